package nancheck

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func f32(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func step(name string, ins ...ir.Type) *compiler.StepInfo {
	var operands []*ir.Value
	for _, t := range ins {
		operands = append(operands, &ir.Value{Type: t})
	}
	op := &ir.Op{Name: name, Operands: operands, Loc: &ir.Location{File: "model.py", Line: 12, Col: 8}}
	return &compiler.StepInfo{Op: op, Name: name, Where: op.Loc.String(), Outs: []ir.Type{ir.Tensor(ir.F32, 2)}}
}

func TestBlamesTheProducer(t *testing.T) {
	nan := float32(math.NaN())
	s := step("stablehlo.log", ir.Tensor(ir.F32, 2))
	check := func(in, out []byte) error {
		c := Checker{}
		before := c.BeforeStep(s, [][]byte{in})
		return c.Step(s, 1, time.Now(), 0, [][]byte{in}, [][]byte{out}, before)
	}
	require.ErrorContains(t, check(f32(-1, 1), f32(nan, 0)), "NaN produced by stablehlo.log at model.py:12:8")
	require.NoError(t, check(f32(1, 2), f32(0, 0.7)))
	// A NaN that came in is not this op's doing.
	require.NoError(t, check(f32(nan, 2), f32(nan, 0.7)))
	// In place: the input now holds the output; BeforeStep saw it clean.
	buf := f32(-1, 1)
	before := Checker{}.BeforeStep(s, [][]byte{buf})
	copy(buf, f32(nan, 0))
	require.Error(t, Checker{}.Step(s, 1, time.Now(), 0, [][]byte{buf}, [][]byte{buf}, before))
}

func TestHasNaNPerType(t *testing.T) {
	require.True(t, HasNaN(ir.F32, f32(1, float32(math.NaN()))))
	require.False(t, HasNaN(ir.F32, f32(1, float32(math.Inf(1)))))
	d := make([]byte, 16)
	binary.LittleEndian.PutUint64(d[8:], math.Float64bits(math.NaN()))
	require.True(t, HasNaN(ir.F64, d))
	require.True(t, HasNaN(ir.C128, d))
	require.True(t, HasNaN(ir.F16, []byte{0x01, 0x7e}))
	require.False(t, HasNaN(ir.F16, []byte{0x00, 0x7c}), "f16 infinity")
	require.True(t, HasNaN(ir.BF16, []byte{0xc1, 0x7f}))
	require.False(t, HasNaN(ir.S32, []byte{0xff, 0xff, 0xff, 0xff}))
}
