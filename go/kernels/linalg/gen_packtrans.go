//go:build ignore

// gen_packtrans writes packtrans_amd64.s and packtransb_amd64.s: AVX-512
// transposing packers that turn rows contiguous in k into k-major packed
// panels, with the 16×16 (float32) and 8×8 (float64) register transposes
// spelled out here once instead of by hand. Run with `go generate` (see
// packtrans_amd64.go).
//
//   - packA14TransF32 (packtrans_amd64.s): 14 float32 rows into a 14-row A
//     panel (a 16×16 transpose with two zero rows, 14-lane stores);
//   - packT16x32F32: 16 float32 rows (B columns of a transposed B) into
//     half of a 32-wide B panel, k-row stride 128 bytes;
//   - packA14TransF64: 14 float64 rows into a 14-row A panel (two 8×8
//     transposes, the second with two zero rows and a 6-lane store).
package main

import (
	"fmt"

	"github.com/gojax/gojax/go/kernels/internal/asmgen"
)

// out is the file being written.
var out *asmgen.File

func p(format string, args ...any) { out.I(format, args...) }

func z(i int) string { return fmt.Sprintf("Z%d", i) }

// loadRows loads row i (i < n) from SI + the byte offset in offs[i] (AX).
func loadRows(n int) {
	for i := 0; i < n; i++ {
		p("MOVQ %d(AX), R8", 8*i)
		p("VMOVUPS (SI)(R8*1), %s", z(i))
	}
}

// lanes4 finishes a transpose whose four inputs hold, in 128-bit lane l,
// the values of k = step*l + c for four row groups (in group order): it
// writes the four k rows (c, c+step, c+2step, c+3step) to w0..w3 using
// u0..u3 as temporaries, and calls store for each.
func lanes4(in [4]string, u [4]string, w [4]string, shuf string, store func(j int, reg string)) {
	p("%s $0x44, %s, %s, %s", shuf, in[1], in[0], u[0])
	p("%s $0xEE, %s, %s, %s", shuf, in[1], in[0], u[1])
	p("%s $0x44, %s, %s, %s", shuf, in[3], in[2], u[2])
	p("%s $0xEE, %s, %s, %s", shuf, in[3], in[2], u[3])
	p("%s $0x88, %s, %s, %s", shuf, u[2], u[0], w[0])
	p("%s $0xDD, %s, %s, %s", shuf, u[2], u[0], w[1])
	p("%s $0x88, %s, %s, %s", shuf, u[3], u[1], w[2])
	p("%s $0xDD, %s, %s, %s", shuf, u[3], u[1], w[3])
	for j := range w {
		store(j, w[j])
	}
}

// transpose16F32 loads rows float32 rows (14 or 16; rows 14 and 15 are
// zero, Z31, when there are 14) from SI + offs (AX), transposes the 16×16
// block in registers and calls store for each of the 16 k rows, in the
// order k = 0, 4, 8, 12, 1, 5, ….
func transpose16F32(rows int, store func(k int, reg string)) {
	loadRows(rows)
	// 32-bit unpacks of row pairs: Z16+2i / Z17+2i hold rows 2i, 2i+1.
	var t [16]string
	for i := 0; i < 8; i++ {
		if 2*i >= rows {
			t[2*i], t[2*i+1] = "Z31", "Z31"
			continue
		}
		t[2*i], t[2*i+1] = z(16+2*i), z(17+2*i)
		p("VUNPCKLPS %s, %s, %s", z(2*i+1), z(2*i), t[2*i])
		p("VUNPCKHPS %s, %s, %s", z(2*i+1), z(2*i), t[2*i+1])
	}
	// 64-bit unpacks: Z(4q+c) holds, for rows 4q..4q+3, k = 4l+c in lane l.
	for q := 0; q < 4; q++ {
		s := 4 * q
		p("VUNPCKLPD %s, %s, %s", t[s+2], t[s], z(4*q))
		p("VUNPCKHPD %s, %s, %s", t[s+2], t[s], z(4*q+1))
		p("VUNPCKLPD %s, %s, %s", t[s+3], t[s+1], z(4*q+2))
		p("VUNPCKHPD %s, %s, %s", t[s+3], t[s+1], z(4*q+3))
	}
	for c := 0; c < 4; c++ {
		lanes4([4]string{z(c), z(4 + c), z(8 + c), z(12 + c)}, [4]string{"Z16", "Z17", "Z18", "Z19"},
			[4]string{"Z20", "Z21", "Z22", "Z23"}, "VSHUFF32X4", func(j int, reg string) { store(c+4*j, reg) })
	}
}

func genA14F32() {
	out.Raw(`
// packA14TransF32 packs 14 rows × k16 (a multiple of 16) float32 values
// into a k-major 14-row panel: dst[14p+i] = row i's element p, row i
// starting at rows[i] (SI is the byte offset reached in every row). Each
// 16-column block is loaded as 14 ZMM rows (two zero rows complete the
// square), transposed 16×16 in registers (32-bit unpacks, 64-bit unpacks,
// two 128-bit lane shuffles), and stored as 16 masked 14-element stores.

// func packA14TransF32(dst *float32, rows *[14]*float32, k16 int)
TEXT ·packA14TransF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	XORQ SI, SI
	MOVQ rows+8(FP), AX
	MOVQ k16+16(FP), CX
	MOVL $0x3FFF, DX
	KMOVW DX, K1
	VPXORD Z31, Z31, Z31
loop:
	CMPQ CX, $16
	JLT done
`)
	transpose16F32(14, func(k int, reg string) { p("VMOVUPS %s, K1, %d(DI)", reg, 56*k) })
	out.Raw(`	ADDQ $64, SI
	ADDQ $896, DI
	SUBQ $16, CX
	JMP loop
done:
	VZEROUPPER
	RET
`)
}

func genT16x32() {
	out.Raw(`
// func packT16x32F32(dst, src *float32, offs *[16]int, k16 int)
//
// dst[32p+j] = row j's element p for p < k16 (a multiple of 16), row j
// starting at src + offs[j] bytes. Per 16 k: 16 row loads, 32-bit and
// 64-bit unpacks, two rounds of 128-bit lane shuffles, 16 stores.
TEXT ·packT16x32F32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ offs+16(FP), AX
	MOVQ k16+24(FP), CX
t16loop:
	CMPQ CX, $16
	JLT t16done
`)
	transpose16F32(16, func(k int, reg string) { p("VMOVUPS %s, %d(DI)", reg, 128*k) })
	out.Raw(`	ADDQ $64, SI
	ADDQ $2048, DI
	SUBQ $16, CX
	JMP t16loop
t16done:
	VZEROUPPER
	RET
`)
}

func genA14F64() {
	out.Raw(`
// func packA14TransF64(dst, src *float64, offs *[14]int, k8 int)
//
// dst[14p+i] = row i's element p for p < k8 (a multiple of 8), row i
// starting at src + offs[i] bytes. Per 8 k: rows 0-7 and rows 8-13 (plus
// two zero rows) are each transposed 8×8 (64-bit unpacks, two rounds of
// 128-bit lane shuffles); the first half of each k row is a full store,
// the second a 6-lane masked one.
TEXT ·packA14TransF64(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ offs+16(FP), AX
	MOVQ k8+24(FP), CX
	MOVL $0x3F, DX
	KMOVW DX, K1
	VPXORQ Z31, Z31, Z31
a14loop:
	CMPQ CX, $8
	JLT a14done
`)
	loadRows(14)
	// Pair unpacks: t[2i] / t[2i+1] hold rows 2i, 2i+1 at k = 2l / 2l+1.
	var t [16]string
	for i := 0; i < 7; i++ {
		t[2*i], t[2*i+1] = z(16+2*i), z(17+2*i)
		p("VUNPCKLPD %s, %s, %s", z(2*i+1), z(2*i), t[2*i])
		p("VUNPCKHPD %s, %s, %s", z(2*i+1), z(2*i), t[2*i+1])
	}
	t[14], t[15] = "Z31", "Z31" // rows 14, 15: zeros
	for half := 0; half < 2; half++ {
		for e := 0; e < 2; e++ {
			b := 8 * half
			lanes4([4]string{t[b+e], t[b+2+e], t[b+4+e], t[b+6+e]}, [4]string{"Z0", "Z1", "Z2", "Z3"},
				[4]string{"Z4", "Z5", "Z6", "Z7"}, "VSHUFF64X2", func(j int, reg string) {
					off := 112*(e+2*j) + 64*half
					if half == 0 {
						p("VMOVUPD %s, %d(DI)", reg, off)
					} else {
						p("VMOVUPD %s, K1, %d(DI)", reg, off)
					}
				})
		}
	}
	out.Raw(`	ADDQ $64, SI
	ADDQ $896, DI
	SUBQ $8, CX
	JMP a14loop
a14done:
	VZEROUPPER
	RET
`)
}

func main() {
	out = asmgen.NewAsm("gen_packtrans.go")
	genA14F32()
	out.Write("packtrans_amd64.s")
	out = asmgen.NewAsm("gen_packtrans.go")
	genT16x32()
	genA14F64()
	out.Write("packtransb_amd64.s")
}
