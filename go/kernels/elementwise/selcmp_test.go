package elementwise

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/cpufeat"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// Every select and compare loop the machine runs gives the Go loop's bytes,
// for lengths around the vector widths, any nonzero pred byte meaning true.
func TestSelectVectorMatchesScalar(t *testing.T) {
	defer useSelCmp(cpufeat.Widest())
	r := rand.New(rand.NewSource(3))
	for _, isa := range cpufeat.Sets() {
		useSelCmp(isa)
		for _, es := range []int{1, 2, 4, 8} {
			for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 100, 129, 1027} {
				p, a, b := make([]byte, n), make([]byte, n*es), make([]byte, n*es)
				for i := range p {
					p[i] = []byte{0, 1, 2, 0x80, 0xff, 0, 1}[r.Intn(7)]
				}
				r.Read(a)
				r.Read(b)
				got, want := make([]byte, n*es), make([]byte, n*es)
				selectKern(map[int]ir.ElemType{1: ir.S8, 2: ir.BF16, 4: ir.F32, 8: ir.F64}[es])(got, p, a, b)
				goSelect(es)(want, p, a, b)
				require.Truef(t, bytes.Equal(got, want), "set %q, %d-byte select of %d", isa, es, n)
				if n > 1 { // a broadcast predicate
					selectKern(map[int]ir.ElemType{1: ir.S8, 2: ir.BF16, 4: ir.F32, 8: ir.F64}[es])(got, p[:1], a, b)
					goSelect(es)(want, p[:1], a, b)
					require.Truef(t, bytes.Equal(got, want), "set %q, broadcast %d-byte select of %d", isa, es, n)
				}
			}
		}
	}
}

func TestCompareVectorMatchesScalar(t *testing.T) {
	defer useSelCmp(cpufeat.Widest())
	r := rand.New(rand.NewSource(4))
	a32, b32 := arithInputs(arithSpecials32, 1000, func() float32 { return float32(r.NormFloat64()) })
	a64, b64 := arithInputs(arithSpecials64, 1000, func() float64 { return r.NormFloat64() })
	for _, isa := range cpufeat.Sets() {
		useSelCmp(isa)
		for dir := range cmpDirs {
			for _, n := range []int{0, 1, 5, 8, 15, 16, 17, 33, 999, 1000} {
				got, want := make([]byte, n), make([]byte, n)
				cmpVec32(dir)(got, byteview.Bytes(a32[:n]), byteview.Bytes(b32[:n]), nil)
				cmpReal[float32](dir)(want, byteview.Bytes(a32[:n]), byteview.Bytes(b32[:n]), nil)
				require.Truef(t, bytes.Equal(got, want), "set %q, f32 %s of %d", isa, dir, n)
				cmpVec64(dir)(got, byteview.Bytes(a64[:n]), byteview.Bytes(b64[:n]), nil)
				cmpReal[float64](dir)(want, byteview.Bytes(a64[:n]), byteview.Bytes(b64[:n]), nil)
				require.Truef(t, bytes.Equal(got, want), "set %q, f64 %s of %d", isa, dir, n)
			}
		}
	}
}

// BenchmarkReluGrad is select(x > 0, g, 0) over one fusion block, the
// ReLU gradient: Go loops against the vector ones.
func BenchmarkReluGrad(b *testing.B) {
	const n = 1024
	r := rand.New(rand.NewSource(5))
	x, g, zero := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], g[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	p, d := make([]byte, n), make([]byte, 4*n)
	for _, isa := range cpufeat.Sets() {
		b.Run("set="+isa, func(b *testing.B) {
			defer useSelCmp(cpufeat.Widest())
			useSelCmp(isa)
			cmp, sel := compareKern("GT", ir.F32, false), selectKern(ir.F32)
			for b.Loop() {
				cmp(p, byteview.Bytes(x), byteview.Bytes(zero), nil)
				sel(d, p, byteview.Bytes(g), byteview.Bytes(zero))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		})
	}
}

// goSelect is the plain Go select for es-byte elements.
func goSelect(es int) func(d, p, a, b []byte) {
	return map[int]func(d, p, a, b []byte){1: selectLoop[uint8], 2: selectLoop[uint16], 4: selectLoop[uint32], 8: selectLoop[uint64]}[es]
}
