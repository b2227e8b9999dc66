package compiler

import (
	"fmt"
	"strings"
)

// PlanText describes the compiled plan: slots, then one line per step with
// the slots it reads and writes (s3[16] is 16 bytes of slot 3). It is for
// debugging; GOJAX_DUMP_DIR receives it beside the module text.
func (e *Executable) PlanText() string {
	var b strings.Builder
	p := e.plan
	fmt.Fprintf(&b, "plan %s: %d slots (%d internal, %d scratch bytes), %d kernel steps\n",
		e.name, p.numSlots, p.stats.Slots, p.stats.ScratchBytes, p.stats.KernelSteps)
	fmt.Fprintf(&b, "params %v outputs %v aliases %v\n", p.paramSlots, p.outSlots, e.aliasArg)
	for _, c := range p.consts {
		fmt.Fprintf(&b, "const s%d[%d]\n", c.slot, len(c.data))
	}
	describeInstrs(&b, p.body, "")
	for _, c := range p.final {
		fmt.Fprintf(&b, "copy %s -> %s\n", c.src, c.dst)
	}
	return b.String()
}

func (r ref) String() string { return fmt.Sprintf("s%d[%d]", r.slot, r.size) }

func describeInstrs(b *strings.Builder, body []instr, indent string) {
	for _, in := range body {
		switch in := in.(type) {
		case *kernelInstr:
			for _, c := range in.pre {
				fmt.Fprintf(b, "%scopy %s -> %s\n", indent, c.src, c.dst)
			}
			fmt.Fprintf(b, "%s%v = %s%v  // %s\n", indent, in.outs, in.op.Name, in.ins, in.op.Loc)
		case *sliceInstr:
			if r := in.relabel; r != nil {
				fmt.Fprintf(b, "%s%v = %s%v merged  // %s\n", indent, r.outs, r.op.Name, r.ins, r.op.Loc)
			}
			fmt.Fprintf(b, "%s%v = %s%v direct  // %s\n", indent, in.k.outs, in.k.op.Name, in.k.ins, in.k.op.Loc)
		case *scalarInstr:
			fmt.Fprintf(b, "%s%v = %s%v inline  // %s\n", indent, in.k.outs, in.k.op.Name, in.k.ins, in.k.op.Loc)
		case *whileInstr:
			fmt.Fprintf(b, "%swhile init%v {\n%s  cond -> %s\n", indent, in.init, indent, in.pred)
			describeInstrs(b, in.cond, indent+"    ")
			fmt.Fprintf(b, "%s  body\n", indent)
			describeInstrs(b, in.body, indent+"    ")
			fmt.Fprintf(b, "%s  stage%v swap%v\n%s}\n", indent, in.stage, in.swaps, indent)
		case *caseInstr:
			fmt.Fprintf(b, "%scase %s {\n", indent, in.index)
			for i, br := range in.branches {
				fmt.Fprintf(b, "%s  branch %d\n", indent, i)
				describeInstrs(b, br, indent+"    ")
				if len(in.copies[i]) > 0 {
					fmt.Fprintf(b, "%s    copy%v\n", indent, in.copies[i])
				}
			}
			fmt.Fprintf(b, "%s}\n", indent)
		default:
			fmt.Fprintf(b, "%s%T\n", indent, in)
		}
	}
}

func (c copyPair) String() string { return c.src.String() + "->" + c.dst.String() }
