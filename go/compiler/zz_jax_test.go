package compiler

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

func TestZZJax(t *testing.T) {
	var idx []struct {
		Name   string
		Nin    int
		Outs   []string
		Donate []int
	}
	data, err := os.ReadFile("/tmp/gjx/index.json")
	if err != nil {
		t.Skip()
	}
	json.Unmarshal(data, &idx)
	for _, c := range idx {
		code, _ := os.ReadFile("/tmp/gjx/" + c.Name + ".bc")
		e, err := Compile(code, Options{DumpDir: "/tmp/gjx/dump"})
		if err != nil {
			t.Errorf("%s: compile: %v", c.Name, err)
			continue
		}
		var args [][]byte
		for i := range c.Nin {
			b, _ := os.ReadFile(fmt.Sprintf("/tmp/gjx/%s.in%d", c.Name, i))
			args = append(args, b)
		}
		don := make([]bool, c.Nin)
		for _, d := range c.Donate {
			don[d] = true
		}
		res, err := e.Run(args, don)
		if err != nil {
			t.Errorf("%s: run: %v", c.Name, err)
			continue
		}
		maxd := 0.0
		for i, dt := range c.Outs {
			want, _ := os.ReadFile(fmt.Sprintf("/tmp/gjx/%s.out%d", c.Name, i))
			got := res.Outputs[i]
			if len(got) != len(want) {
				t.Errorf("%s out %d: %d bytes want %d", c.Name, i, len(got), len(want))
				continue
			}
			if dt == "float32" {
				for j := 0; j < len(got); j += 4 {
					g := math.Float32frombits(binary.LittleEndian.Uint32(got[j:]))
					w := math.Float32frombits(binary.LittleEndian.Uint32(want[j:]))
					maxd = math.Max(maxd, math.Abs(float64(g-w))/(1+math.Abs(float64(w))))
				}
			} else if string(got) != string(want) {
				t.Errorf("%s out %d (%s) differs", c.Name, i, dt)
			}
		}
		t.Logf("%s: ok, max rel diff %.2g, aliases %v, stats %+v", c.Name, maxd, res.AliasOf, e.Stats())
		if maxd > 1e-4 {
			t.Errorf("%s: max rel diff %g", c.Name, maxd)
		}
	}
}
