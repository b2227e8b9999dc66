package mlirbc

import (
	"fmt"
	"os"
	"testing"
)

func walkOps(ops []*Op, fn func(*Op)) {
	for _, op := range ops {
		fn(op)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				walkOps(b.Ops, fn)
			}
		}
	}
}

func TestZZProps(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	f, _ := Parse(data)
	top, _ := f.TopLevel(false)
	walkOps(top, func(op *Op) {
		if op.Name == os.Getenv("OPNAME") && op.Props != nil {
			fmt.Printf("%x\n", op.Props.data)
		}
	})
}
