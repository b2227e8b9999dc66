package mlirbc

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func dumpOps(ops []*Op, ind string) {
	for _, op := range ops {
		fmt.Printf("%s%s res=%d opnds=%d regions=%d iso=%v props=%v attrs=%v\n", ind, op.Name, len(op.Results), len(op.Operands), op.NumRegions, op.Isolated, op.HasProps, op.HasAttrs)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				fmt.Printf("%s  block args=%d\n", ind, len(b.Args))
				dumpOps(b.Ops, ind+"    ")
			}
		}
	}
}

func TestZZDump(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(f.Version, f.Producer, len(f.Strings), len(f.AttrTypes.Attrs), len(f.AttrTypes.Types), f.NumProperties())
	for _, d := range f.Dialects {
		fmt.Println("dialect", d.Name)
	}
	top, err := f.TopLevel(false)
	if err != nil {
		t.Fatal(err)
	}
	dumpOps(top, "")
	_ = strings.Join
}
