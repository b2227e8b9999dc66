//go:build amd64 && !purego

package linalg

import (
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/cpufeat"
)

//go:generate go run gen_packtrans.go

// packA14TransF32 reads row i from rows[i]. Rows are pointers rather than
// offsets from one base so that a row can lie in another object (the zero
// row of packA14RowsF32) without computing addresses across objects.
//
//go:noescape
func packA14TransF32(dst *float32, rows *[14]*float32, k16 int)

//go:noescape
func packT16x32F32(dst, src *float32, offs *[16]int, k16 int)

//go:noescape
func packA14TransF64(dst, src *float64, offs *[14]int, k8 int)

// packTransOK enables the AVX-512 14-row transposing pack (tests turn it
// off to compare with the Go loop).
var packTransOK = cpufeat.AVX512

// packA14Trans packs the first k&^15 columns of a full 14-row float32
// panel whose row i is a[offs[i]:][:k] (bounds already checked by the
// caller) and returns how many columns it packed: a multiple of 16
// (float32) or 8 (float64), 0 without AVX-512.
func packA14Trans[T float32 | float64](pan, a []T, offs *[14]int, k int) int {
	var z T
	size := int(unsafe.Sizeof(z))
	kv := k &^ (64/size - 1) // whole 64-byte vectors of a row
	if !packTransOK || kv == 0 {
		return 0
	}
	dst := byteview.Bytes(pan[:14*kv])
	if size == 8 {
		b := byteOffs(offs, size)
		packA14TransF64(&byteview.As[float64](dst)[0], &byteview.As[float64](byteview.Bytes(a))[0], &b, kv)
		return kv
	}
	var rows [14]*float32
	for i, o := range offs {
		rows[i] = &byteview.As[float32](byteview.Bytes(a[o : o+kv]))[0]
	}
	packA14TransF32(&byteview.As[float32](dst)[0], &rows, kv)
	return kv
}

// byteOffs returns offs in bytes of size-byte elements.
func byteOffs(offs *[14]int, size int) (b [14]int) {
	for i, o := range offs {
		b[i] = size * o
	}
	return b
}

// packBTrans32 packs the first k&^15 k rows of a full 32-column float32 B
// panel (pan[32p+j]) whose column j is b[c0+cols[j]:][:k], contiguous in
// k (a transposed B), and returns how many k rows it packed: 0 for
// float64, without AVX-512, or when k < 16.
func packBTrans32[T float32 | float64](pan, b []T, cols []int, c0, k int) int {
	var z T
	k16 := k &^ 15
	if !packTransOK || unsafe.Sizeof(z) != 4 || k16 == 0 {
		return 0
	}
	_ = pan[32*k16-1]
	_ = cols[31]
	for h := 0; h < 2; h++ {
		var offs [16]int
		for j := range offs {
			o := c0 + cols[16*h+j]
			_ = b[o+k16-1]
			offs[j] = 4 * o
		}
		packT16x32F32(&byteview.As[float32](byteview.Bytes(pan[16*h:]))[0], &byteview.As[float32](byteview.Bytes(b))[0], &offs, k16)
	}
	return k16
}

// packAPairs14Trans is packA14Trans for bf16 k pairs (uint32 slots): row i's
// pairs start at a[offs[i]] (bf16 elements, bounds checked by the caller).
func packAPairs14Trans(pan []uint32, a []uint16, offs *[14]int, kq int) int {
	k16 := kq &^ 15
	if !packTransOK || k16 == 0 {
		return 0
	}
	var rows [14]*float32
	for i, o := range offs {
		rows[i] = &byteview.As[float32](byteview.Bytes(a[o : o+2*k16]))[0]
	}
	packA14TransF32(&byteview.As[float32](byteview.Bytes(pan[:14*k16]))[0], &rows, k16)
	return k16
}

// zeroF32 backs padded rows in packA14RowsF32.
var zeroF32 [512]float32

// packA14RowsF32 packs k columns of 14 float32 rows into a k-major panel
// (pan[14p+i]): row i is a[offs[i]:][:k], or zeros where offs[i] < 0. It
// reports false, doing nothing, without AVX-512.
func packA14RowsF32(pan, a []float32, offs *[14]int, k int) bool {
	if !packTransOK || k <= 0 {
		return false
	}
	pan = pan[:14*k]
	for p0 := 0; p0 < k; p0 += len(zeroF32) {
		k16 := min(k-p0, len(zeroF32)) &^ 15
		if k16 == 0 {
			break
		}
		var rows [14]*float32
		for i, o := range offs {
			if o < 0 {
				rows[i] = &zeroF32[0]
			} else {
				rows[i] = &a[o+p0 : o+p0+k16][0]
			}
		}
		packA14TransF32(&pan[14*p0 : 14*(p0+k16)][0], &rows, k16)
	}
	for p := k &^ 15; p < k; p++ {
		d := (*[14]float32)(pan[14*p:])
		for i, o := range offs {
			if o < 0 {
				d[i] = 0
			} else {
				d[i] = a[o+p]
			}
		}
	}
	return true
}
