//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func sqrt32Y(d, a *float32, n int)

//go:noescape
func floor32Y(d, a *float32, n int)

//go:noescape
func ceil32Y(d, a *float32, n int)

//go:noescape
func rne32Y(d, a *float32, n int)

//go:noescape
func cvti32Y(d, a *float32, n int)

//go:noescape
func sqrt32Z(d, a *float32, n int)

//go:noescape
func floor32Z(d, a *float32, n int)

//go:noescape
func ceil32Z(d, a *float32, n int)

//go:noescape
func rne32Z(d, a *float32, n int)

//go:noescape
func cvti32Z(d, a *float32, n int)

func init() { useUnary32(cpufeat.Widest()) }

// useUnary32 selects the f32 unary vector loops; tests run each.
func useUnary32(isa string) {
	switch isa {
	case "Z":
		unary32Vec, unary32Block = &[unaryOps32]func(d, a *float32, n int){sqrt32Z, floor32Z, ceil32Z, rne32Z, cvti32Z}, 32
	case "Y":
		unary32Vec, unary32Block = &[unaryOps32]func(d, a *float32, n int){sqrt32Y, floor32Y, ceil32Y, rne32Y, cvti32Y}, 16
	default:
		unary32Vec, unary32Block = nil, 1
	}
}
