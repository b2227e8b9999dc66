// Package nancheck fails an execution at the first step that turns NaN-free
// inputs into a NaN (a compiler.StepObserver), naming the op and the Python
// source line JAX recorded for it. A NaN that arrives as an argument, or that
// an earlier step produced, is blamed on nobody downstream: each op is
// checked only when none of its inputs holds a NaN.
package nancheck

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
)

// Checker is stateless; one value serves every execution.
type Checker struct{}

// BeforeStep reports whether an input already holds a NaN (checked before
// the step runs: the planner may let it overwrite an input in place).
func (Checker) BeforeStep(s *compiler.StepInfo, ins [][]byte) bool {
	for j, in := range ins {
		if j < len(s.Op.Operands) {
			if it, ok := s.Op.Operands[j].Type.(*ir.TensorType); ok && HasNaN(it.Elem, in) {
				return true
			}
		}
	}
	return false
}

// Step implements compiler.StepObserver: inputHadNaN is BeforeStep's answer.
func (Checker) Step(s *compiler.StepInfo, _ uint64, _ time.Time, _ time.Duration, _, outs [][]byte, inputHadNaN bool) error {
	if inputHadNaN {
		return nil // propagated, not produced here
	}
	for i, t := range s.Outs {
		tt, ok := t.(*ir.TensorType)
		if !ok || i >= len(outs) || !HasNaN(tt.Elem, outs[i]) {
			continue
		}
		where := s.Where
		if where == "" {
			where = "an unknown location"
		}
		if s.Op.Name != s.Name { // a fused chain: the culprit is one of its ops
			return fmt.Errorf("gojax debug_nans: NaN produced inside %s at %s (result %d, %s); "+
				"programs compiled while debug_nans is on are not fused and name the op", s.Name, where, i, tt)
		}
		return fmt.Errorf("gojax debug_nans: NaN produced by %s at %s (result %d, %s)", s.Name, where, i, tt)
	}
	return nil
}

// HasNaN reports whether a buffer of element type e holds a NaN; types
// without NaNs (integers, and the small floats, which are not checked)
// report false.
func HasNaN(e ir.ElemType, b []byte) bool {
	switch e {
	case ir.F32, ir.C64:
		for i := 0; i+4 <= len(b); i += 4 {
			v := binary.LittleEndian.Uint32(b[i:])
			if v&0x7f800000 == 0x7f800000 && v&0x007fffff != 0 {
				return true
			}
		}
	case ir.F64, ir.C128:
		for i := 0; i+8 <= len(b); i += 8 {
			if math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))) {
				return true
			}
		}
	case ir.F16:
		for i := 0; i+2 <= len(b); i += 2 {
			v := binary.LittleEndian.Uint16(b[i:])
			if v&0x7c00 == 0x7c00 && v&0x03ff != 0 {
				return true
			}
		}
	case ir.BF16:
		for i := 0; i+2 <= len(b); i += 2 {
			v := binary.LittleEndian.Uint16(b[i:])
			if v&0x7f80 == 0x7f80 && v&0x007f != 0 {
				return true
			}
		}
	}
	return false
}
