package reduce

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// TestRngBitGeneratorMatchesXLA compares with jax.lax.rng_bit_generator on
// XLA:CPU, bit for bit, outputs and new state.
func TestRngBitGeneratorMatchesXLA(t *testing.T) {
	type tc struct {
		Alg   string   `json:"alg"`
		Dtype string   `json:"dtype"`
		Shape []int64  `json:"shape"`
		State []uint64 `json:"state"`
		Out   []uint64 `json:"out"`
		NewSt []uint64 `json:"new_state"`
	}
	script := `
import json, jax, jax.numpy as jnp, numpy as np
from jax import lax
cases = []
states = {2: [0x0123456789abcdef, 42], 3: [7, 0xffffffffffffffff, 5]}
for alg in ["DEFAULT", "PHILOX", "THREE_FRY"]:
  for dt in ["uint32", "uint64", "uint8", "uint16"]:
    for shape in [(), (5,), (5, 3, 4), (3, 5, 7)]:
      for sl in [2]:
        st = jnp.array(states[sl], dtype=jnp.uint64)
        s, b = lax.rng_bit_generator(st, shape, dtype=jnp.dtype(dt), algorithm=getattr(lax.RandomAlgorithm, "RNG_" + alg))
        cases.append(dict(alg=alg, dtype=dt, shape=list(shape), state=[int(x) for x in states[sl]],
          out=[int(x) & ((1 << (8 * jnp.dtype(dt).itemsize)) - 1) for x in np.asarray(b).reshape(-1)],
          new_state=[int(x) for x in np.asarray(s)]))
print(json.dumps(cases))
`
	var cases []tc
	runPython(t, script, &cases)
	require.NotEmpty(t, cases)
	types := map[string]ir.ElemType{"uint32": ir.U32, "uint64": ir.U64, "uint8": ir.U8, "uint16": ir.U16, "int32": ir.S32, "int64": ir.S64}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.Alg, c.Dtype, c.Shape, len(c.State)), func(t *testing.T) {
			et := types[c.Dtype]
			st := ir.Tensor(ir.U64, int64(len(c.State)))
			op := mkOp("stablehlo.rng_bit_generator", []ir.Type{st}, []ir.Type{st, ir.Tensor(et, c.Shape...)},
				ir.Attrs{"rng_algorithm": ir.EnumAttr{Kind: "rng_algorithm", Value: strings.ToUpper(c.Alg)}})
			got := runOp(t, testCtxs[1], op, u64s(c.State...))
			require.Equal(t, c.NewSt, toU64(got[0]), "state")
			es := et.ByteSize()
			vals := make([]uint64, len(got[1])/es)
			for i := range vals {
				var buf [8]byte
				copy(buf[:], got[1][i*es:(i+1)*es])
				vals[i] = binary.LittleEndian.Uint64(buf[:])
			}
			require.Equal(t, c.Out, vals)
		})
	}
}

func TestRngBitGeneratorErrors(t *testing.T) {
	st := ir.Tensor(ir.U64, 3)
	op := mkOp("stablehlo.rng_bit_generator", []ir.Type{st}, []ir.Type{st, ir.Tensor(ir.U32, 4)},
		ir.Attrs{"rng_algorithm": ir.EnumAttr{Kind: "rng_algorithm", Value: "THREE_FRY"}})
	require.ErrorContains(t, lowerErr(testCtxs[0], op), "THREE_FRY")
}

func TestRngLegacy(t *testing.T) {
	op := mkOp("stablehlo.rng", []ir.Type{ir.Tensor(ir.F32), ir.Tensor(ir.F32), ir.Tensor(ir.S64, 1)},
		[]ir.Type{ir.Tensor(ir.F32, 1000)}, ir.Attrs{"rng_distribution": ir.EnumAttr{Kind: "rng_distribution", Value: "UNIFORM"}})
	a := runOp(t, testCtxs[0], op, f32s(2), f32s(3), u64s(1000))[0]
	for _, v := range toF32(a) {
		require.True(t, v >= 2 && v < 3, "%v", v)
	}
	op = mkOp("stablehlo.rng", []ir.Type{ir.Tensor(ir.S32), ir.Tensor(ir.S32), ir.Tensor(ir.S64, 1)},
		[]ir.Type{ir.Tensor(ir.S32, 1000)}, ir.Attrs{"rng_distribution": ir.EnumAttr{Kind: "rng_distribution", Value: "UNIFORM"}})
	seen := map[int32]bool{}
	for _, v := range toI32(runOp(t, testCtxs[0], op, i32s(-3), i32s(4), u64s(1000))[0]) {
		require.True(t, v >= -3 && v < 4, "%v", v)
		seen[v] = true
	}
	require.Len(t, seen, 7)
	op = mkOp("stablehlo.rng", []ir.Type{ir.Tensor(ir.F64), ir.Tensor(ir.F64), ir.Tensor(ir.S64, 1)},
		[]ir.Type{ir.Tensor(ir.F64, 20000)}, ir.Attrs{"rng_distribution": ir.EnumAttr{Kind: "rng_distribution", Value: "NORMAL"}})
	v := toF64(runOp(t, testCtxs[0], op, f64s(1), f64s(2), u64s(20000))[0])
	mean, sq := 0.0, 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	require.InDelta(t, 1, mean, 0.05)
	require.InDelta(t, 4, sq/float64(len(v)), 0.2)
}

func TestDynamicRngBitGenerator(t *testing.T) {
	st := ir.Tensor(ir.U64, 2)
	op := mkOp("stablehlo.custom_call", []ir.Type{st, ir.Tensor(ir.S32, 2)}, []ir.Type{st, ir.Tensor(ir.U32, 3, 4)},
		ir.Attrs{"rng_algorithm": ir.EnumAttr{Kind: "rng_algorithm", Value: "DEFAULT"}})
	l, ok := lookupCustomCall("stablehlo.dynamic_rng_bit_generator")
	require.True(t, ok)
	step, err := l(testCtxs[0], op)
	require.NoError(t, err)
	outs := [][]byte{make([]byte, 16), make([]byte, 48)}
	require.NoError(t, step([][]byte{u64s(1, 2), i32s(3, 4)}, outs))
	// PHILOX: 12 words are 3 blocks, so the counter advances by 3.
	require.Equal(t, []uint64{1, 5}, toU64(outs[0]))
	require.Error(t, step([][]byte{u64s(1, 2), i32s(4, 3)}, outs))
}
