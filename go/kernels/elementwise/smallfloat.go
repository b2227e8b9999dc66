package elementwise

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/floatconv"
)

// Byte-slice codecs to float32, by element type.

var decodeTables = map[ir.ElemType]*[256]float32{}

func init() {
	for _, t := range ir.ElemTypes() {
		f, ok := floatconv.Of(t)
		if !ok || t.ByteSize() != 1 {
			continue
		}
		tab := new([256]float32)
		for c := range 1 << f.NBits() {
			tab[c] = float32(f.Decode(uint32(c)))
		}
		decodeTables[t] = tab
	}
}

// decoder returns a loop converting len(dst) elements of t to float32.
func decoder(t ir.ElemType) func(dst []float32, src []byte) {
	switch t {
	case ir.BF16:
		return func(dst []float32, src []byte) { floatconv.BF16sToF32(dst, byteview.As[uint16](src)) }
	case ir.F16:
		return func(dst []float32, src []byte) { floatconv.F16sToF32(dst, byteview.As[uint16](src)) }
	}
	tab := decodeTables[t]
	if tab == nil {
		return nil
	}
	return func(dst []float32, src []byte) {
		src = src[:len(dst)]
		for i := range dst {
			dst[i] = tab[src[i]] // codes beyond the format's width cannot occur in valid data
		}
	}
}

// encoder returns a loop rounding float32 values to t.
func encoder(t ir.ElemType) func(dst []byte, src []float32) {
	switch t {
	case ir.BF16:
		return func(dst []byte, src []float32) { floatconv.F32sToBF16(byteview.As[uint16](dst)[:len(src)], src) }
	case ir.F16:
		return func(dst []byte, src []float32) { floatconv.F32sToF16(byteview.As[uint16](dst)[:len(src)], src) }
	}
	f, ok := floatconv.Of(t)
	if !ok {
		return nil
	}
	return func(dst []byte, src []float32) {
		dst = dst[:len(src)]
		for i := range src {
			dst[i] = byte(f.Encode32(src[i]))
		}
	}
}
