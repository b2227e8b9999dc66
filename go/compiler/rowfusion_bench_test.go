package compiler

import (
	"testing"

	"github.com/gojax/gojax/go/ir"
)

// BenchmarkRowFusion runs softmax and layer norm over 4096x1024 f32 with
// the row fusion and without it (elementwise fusion only), for
// `go test -bench RowFusion -count 6` comparisons.
func BenchmarkRowFusion(b *testing.B) {
	if n, ok := lookupAll("stablehlo.reduce", "stablehlo.exponential", "stablehlo.rsqrt"); !ok {
		b.Fatalf("no kernel registered for %s", n)
	}
	for _, kind := range []string{"softmax", "layernorm"} {
		m := rowProgram(kind, ir.F32, []int64{4096}, []int64{1024})
		args := rowInputs(m, 1)
		x := toF32(args[0]) // finite values: a NaN row takes the scalar max
		for i, v := range x {
			if v-v != 0 {
				x[i] = 0
			}
		}
		args[0] = f32s(x...)
		for _, on := range []bool{true, false} {
			name := kind + "/rowless"
			if on {
				name = kind + "/rowfused"
			}
			b.Run(name, func(b *testing.B) {
				rowFusion = on
				e, err := CompileModule(m, Options{})
				rowFusion = true
				if err != nil {
					b.Fatal(err)
				}
				for range b.N {
					res, err := e.Run(args, nil)
					if err != nil {
						b.Fatal(err)
					}
					freeAll(res)
				}
			})
		}
	}
}
