package linalg

import (
	"sync"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/ir"
)

// The 8-bit integer GEMM: dot_general of two 8-bit integer operands (s8 or
// u8) into an integer result, accumulated in int32. int32 sums wrap modulo
// 2^32, which is the result the int64 reference gives after wrapping to a
// result of at most 32 bits; 64-bit results take this path only while the
// sums cannot leave int32 (maxI8K).
//
// Both operands are packed into panels of dwords: A as [kq][mr] (one dword
// per row and k group), B as [kq][nr], k padded with zeros to a whole
// group. A dword holds either
//
//   - two int16 (pairs: the plain-Go and AVX2 kernels), the values widened
//     exactly, or
//   - four bytes (quads: the VNNI kernel, whose VPDPBUSD multiplies
//     unsigned by signed bytes): A stored as signed bytes a' = a - oa and
//     B as unsigned bytes b' = b + ob, where oa = 128 for u8 A (else 0)
//     and ob = 128 for s8 B (else 0), i.e. the top bit flipped. Then
//     Σ a·b = Σ a'·b' - ob·Σ a' + oa·Σ b' - k·oa·ob, and the driver adds the
//     three corrections from per-row sums of a' and per-column sums of b'.
//
// Micro-kernels add the corrections as biases (per row, per column) and
// write whole mr×nr tiles: straight into the result where the tile fits,
// else into a scratch tile whose valid part the driver copies out, so edges
// need no kernel of their own.

// i8KernelFn sets c[i*ldc+j] (i < mr, j < nr) to the sum over the kq
// dwords of the A panel's row i and the B panel's column j, plus bias[i] +
// bias[mr+j].
type i8KernelFn func(kq int, a, b []byte, c []int32, ldc int, bias []int32)

// i8Kernel is one micro-kernel and its tile.
type i8Kernel struct {
	name   string
	mr, nr int
	quads  bool // four-byte groups with offsets; else int16 pairs
	fn     i8KernelFn
	// packB16, when not nil, packs 16 quad columns of B rows contiguous
	// in j over kq full groups (row t of group q at b[off[4q+t]:]), each
	// group's 64 bytes at dst[q·stride:], and sets sums to their column
	// sums (of the flipped bytes).
	packB16 func(kq int, b []byte, off []int64, dst []byte, stride int, flip byte, sums []int32)
	// packARow, when not nil, packs a prefix of an A row contiguous in k
	// (flipped) as dwords stride bytes apart from dst on and returns the
	// prefix's length and sum.
	packARow func(src, dst []byte, stride int, flip byte) (int, int32)
}

var (
	i8Plain = i8Kernel{name: "go-4x4", mr: 4, nr: 4, fn: i8KernPairs4x4}

	// kernelsI8 lists every 8-bit GEMM micro-kernel this machine can run,
	// slowest first (architecture files append at init); tests run them
	// all. ukI8 is the one in use, the last.
	kernelsI8 = []i8Kernel{i8Plain}
	ukI8      = i8Plain
)

// maxI8K is the longest contraction whose sums of products of 8-bit
// integers stay inside int32 (32768·255² < 2^31), for 64-bit results.
const maxI8K = 1 << 15

// useI8GEMM reports whether a dot with these types and contraction length
// takes the 8-bit GEMM.
func useI8GEMM(le, re, oe ir.ElemType, k int) bool {
	is8 := func(t ir.ElemType) bool { return t == ir.S8 || t == ir.U8 }
	if !is8(le) || !is8(re) || !oe.IsInteger() || oe == ir.Pred || k == 0 {
		return false
	}
	return oe.Bits() <= 32 || k <= maxI8K
}

var poolI32 sync.Pool

func i32scratch(n int) *buf[int32] { return getBuf[int32](&poolI32, n) }

var poolU8 sync.Pool

func u8scratch(n int) *buf[byte] { return getBuf[byte](&poolU8, n) }

// i8DotStep runs the plan with the 8-bit GEMM and writes the result in oe.
func i8DotStep(p *gemmPlan, le, re, oe ir.ElemType, par parallelFn) func(ins, outs [][]byte) error {
	return func(ins, outs [][]byte) error {
		n := p.batch * p.m * p.n
		if oe == ir.S32 || oe == ir.U32 {
			i8GEMM(p, ukI8, ins[0], ins[1], le, re, byteview.As[int32](outs[0])[:n], par)
			return nil
		}
		c := i32scratch(n)
		i8GEMM(p, ukI8, ins[0], ins[1], le, re, c.s, par)
		w := i64scratch(n)
		for i, v := range c.s {
			w.s[i] = int64(v)
		}
		fromI64(outs[0], w.s, oe)
		releaseAll(c)
		w.release()
		return nil
	}
}

// i8GEMM sets c (batch·m·n, row-major per batch) to the products of the raw
// operands a and b (element types le and re, each s8 or u8) under plan p
// with micro-kernel uk.
func i8GEMM(p *gemmPlan, uk i8Kernel, a, b []byte, le, re ir.ElemType, c []int32, par parallelFn) {
	if p.batch == 0 || p.m == 0 || p.n == 0 {
		return
	}
	kg := 2
	if uk.quads {
		kg = 4
	}
	kq := (p.k + kg - 1) / kg
	npan := (p.n + uk.nr - 1) / uk.nr
	panel := 4 * kq * uk.nr // bytes per packed B panel
	var flipA, flipB byte   // the top-bit flips that make a' and b'
	var oa, ob int32
	if uk.quads {
		if le == ir.U8 {
			flipA, oa = 0x80, 128
		}
		if re == ir.S8 {
			flipB, ob = 0x80, 128
		}
	}

	// Pack every batch's B panels (and, for quads, the column sums of b').
	bp := u8scratch(p.batch * npan * panel)
	colSum := i32scratch(p.batch * npan * uk.nr)
	par(p.batch*npan, 1, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			bi, jp := u/npan, u%npan
			dst := bp.s[u*panel : (u+1)*panel]
			sums := colSum.s[u*uk.nr : (u+1)*uk.nr]
			packI8B(p, b, re, bi, jp*uk.nr, uk, kg, flipB, dst, sums)
		}
	})

	mblk := (p.m + uk.mr - 1) / uk.mr
	grain := 1 + (1<<18)/(1+p.n*p.k)
	par(p.batch*mblk, grain, func(lo, hi int) {
		ap := u8scratch(4 * kq * uk.mr)
		tile := i32scratch(uk.mr * uk.nr)
		bias := i32scratch(uk.mr + uk.nr)
		rowBias, colBias := bias.s[:uk.mr], bias.s[uk.mr:]
		for u := lo; u < hi; u++ {
			bi, i0 := u/mblk, (u%mblk)*uk.mr
			rows := min(uk.mr, p.m-i0)
			packI8A(p, a, le, bi, i0, rows, uk, kg, flipA, ap.s, rowBias)
			for i, s := range rowBias {
				rowBias[i] = -ob*s - int32(p.k)*oa*ob
			}
			for jp := range npan {
				j0 := jp * uk.nr
				cols := min(uk.nr, p.n-j0)
				pu := bi*npan + jp
				for j, s := range colSum.s[pu*uk.nr : (pu+1)*uk.nr] {
					colBias[j] = oa * s
				}
				off := (bi*p.m+i0)*p.n + j0
				if rows == uk.mr && cols == uk.nr {
					uk.fn(kq, ap.s, bp.s[pu*panel:(pu+1)*panel], c[off:], p.n, bias.s)
					continue
				}
				uk.fn(kq, ap.s, bp.s[pu*panel:(pu+1)*panel], tile.s, uk.nr, bias.s)
				for i := range rows {
					copy(c[off+i*p.n:][:cols], tile.s[i*uk.nr:][:cols])
				}
			}
		}
		releaseAll(ap)
		releaseAll(tile, bias)
	})
	bp.release()
	colSum.release()
}

// i8At reads element idx of an s8 or u8 operand.
func i8At(raw []byte, t ir.ElemType, idx int) int32 {
	if t == ir.S8 {
		return int32(int8(raw[idx]))
	}
	return int32(raw[idx])
}

// packI8B packs the B panel of batch bi whose first column is j0 into dst
// (kq·nr dwords), and for quads sets sums[j] to Σ_k b'[k][j0+j].
func packI8B(p *gemmPlan, b []byte, re ir.ElemType, bi, j0 int, uk i8Kernel, kg int, flip byte, dst []byte, sums []int32) {
	clear(dst)
	clear(sums)
	cols := min(uk.nr, p.n-j0)
	colOff := p.rhsCol[j0 : j0+cols]
	if uk.quads && p.rhsColUnit {
		// Rows of B are contiguous in j: gather four k rows into dwords,
		// whole 16-column strips of whole groups in assembly.
		f32 := uint32(flip) * 0x01010101
		full, strips := p.k/4, 0
		if uk.packB16 != nil && full > 0 {
			strips = cols / 16
			off := i64scratch(4 * full)
			for kk := range off.s {
				off.s[kk] = int64(p.rhsBatch[bi] + p.rhsK[kk] + colOff[0])
			}
			for s := range strips {
				uk.packB16(full, b[16*s:], off.s, dst[64*s:], 4*uk.nr, flip, sums[16*s:16*s+16])
			}
			off.release()
		}
		var rows [4][]byte
		for q := range (p.k + 3) / 4 {
			j0 := 0
			if q < full {
				j0 = 16 * strips
			}
			if j0 == cols {
				continue
			}
			m := uint32(0)
			for t := range rows {
				if kk := 4*q + t; kk < p.k {
					rows[t] = b[p.rhsBatch[bi]+p.rhsK[kk]+colOff[0]:][:cols]
					m |= 0xff << (8 * t)
				} else {
					rows[t] = rows[0]
				}
			}
			d := byteview.As[uint32](dst[4*q*uk.nr:][:4*cols])
			r0 := rows[0]
			r1, r2, r3 := rows[1][:len(r0)], rows[2][:len(r0)], rows[3][:len(r0)]
			for j := j0; j < len(d); j++ {
				v := (uint32(r0[j]) | uint32(r1[j])<<8 | uint32(r2[j])<<16 | uint32(r3[j])<<24) ^ f32
				v &= m
				d[j] = v
				sums[j] += int32(v&0xff + v>>8&0xff + v>>16&0xff + v>>24)
			}
		}
		return
	}
	if !uk.quads && p.rhsColUnit {
		// Rows of B are contiguous in j: widen two k rows into dwords.
		for q := range (p.k + 1) / 2 {
			r0 := b[p.rhsBatch[bi]+p.rhsK[2*q]+colOff[0]:][:cols]
			r1 := r0
			m := uint32(0xffff)
			if 2*q+1 < p.k {
				r1 = b[p.rhsBatch[bi]+p.rhsK[2*q+1]+colOff[0]:][:cols]
				m = 0xffffffff
			}
			d := byteview.As[uint32](dst[4*q*uk.nr:][:4*cols])
			widenPairs(d, r0, r1[:len(r0)], re == ir.S8, m)
		}
		return
	}
	for kk, ko := range p.rhsK {
		q, t := kk/kg, kk%kg
		base := p.rhsBatch[bi] + ko
		row := dst[4*q*uk.nr:]
		if uk.quads {
			for j, co := range colOff {
				v := b[base+co] ^ flip
				row[4*j+t] = v
				sums[j] += int32(v)
			}
			continue
		}
		for j, co := range colOff {
			v := uint16(int16(i8At(b, re, base+co)))
			row[4*j+2*t] = byte(v)
			row[4*j+2*t+1] = byte(v >> 8)
		}
	}
}

// packI8A packs rows i0..i0+rows of batch bi's A into dst (kq·mr dwords,
// rows past the end zero), and for quads sets sums[i] to Σ_k a'[i][k].
func packI8A(p *gemmPlan, a []byte, le ir.ElemType, bi, i0, rows int, uk i8Kernel, kg int, flip byte, dst []byte, sums []int32) {
	clear(dst)
	clear(sums)
	for i := range rows {
		base := p.lhsBatch[bi] + p.lhsRow[i0+i]
		if uk.quads && p.lhsKUnit {
			// The row is contiguous in k: copy whole dwords.
			src := a[base+p.lhsK[0]:][:p.k]
			var done int
			var s int32
			if uk.packARow != nil {
				done, s = uk.packARow(src, dst[4*i:], 4*uk.mr, flip)
			}
			for kk := done; kk < p.k; kk++ {
				v := src[kk] ^ flip
				dst[4*((kk/4)*uk.mr+i)+kk%4] = v
				s += int32(int8(v))
			}
			sums[i] = s
			continue
		}
		if uk.quads {
			var s int32
			for kk, ko := range p.lhsK {
				v := a[base+ko] ^ flip
				dst[4*((kk/4)*uk.mr+i)+kk%4] = v
				s += int32(int8(v))
			}
			sums[i] = s
			continue
		}
		if p.lhsKUnit && p.k >= 2 {
			// The row is contiguous in k: widen pairs into dwords.
			src := a[base+p.lhsK[0]:][:p.k]
			n := p.k / 2
			for q := range n {
				x0, x1 := uint32(src[2*q]), uint32(src[2*q+1])
				if le == ir.S8 {
					x0, x1 = uint32(uint16(int8(x0))), uint32(uint16(int8(x1)))
				}
				byteview.As[uint32](dst[4*(q*uk.mr+i):][:4])[0] = x0 | x1<<16
			}
			if p.k%2 == 1 {
				v := uint16(int16(i8At(src, le, p.k-1)))
				o := 4 * (n*uk.mr + i)
				dst[o], dst[o+1] = byte(v), byte(v>>8)
			}
			continue
		}
		for kk, ko := range p.lhsK {
			v := uint16(int16(i8At(a, le, base+ko)))
			o := 4*((kk/2)*uk.mr+i) + 2*(kk%2)
			dst[o] = byte(v)
			dst[o+1] = byte(v >> 8)
		}
	}
}

// widenPairs sets d[j] to the int16 pair (r0[j], r1[j]) widened from s8
// (signed) or u8, masked by m (0xffff when there is no second row).
func widenPairs(d []uint32, r0, r1 []byte, signed bool, m uint32) {
	r0, r1 = r0[:len(d)], r1[:len(d)]
	for j := range d {
		x0, x1 := uint32(r0[j]), uint32(r1[j])
		if signed {
			x0, x1 = uint32(uint16(int8(x0))), uint32(uint16(int8(x1)))
		}
		d[j] = (x0 | x1<<16) & m
	}
}

// i8KernPairs4x4 is the plain-Go micro-kernel over int16 pairs (a dword's
// low half is the first k, its high half the second).
func i8KernPairs4x4(kq int, a, b []byte, c []int32, ldc int, bias []int32) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 int32
	av := byteview.As[uint32](a[:16*kq])
	bv := byteview.As[uint32](b[:16*kq])
	for q := 0; q+4 <= len(av) && q+4 <= len(bv); q += 4 {
		ap, bp := av[q:q+4:q+4], bv[q:q+4:q+4]
		a0l, a0h := int32(int16(ap[0])), int32(ap[0])>>16
		a1l, a1h := int32(int16(ap[1])), int32(ap[1])>>16
		a2l, a2h := int32(int16(ap[2])), int32(ap[2])>>16
		a3l, a3h := int32(int16(ap[3])), int32(ap[3])>>16
		b0l, b0h := int32(int16(bp[0])), int32(bp[0])>>16
		b1l, b1h := int32(int16(bp[1])), int32(bp[1])>>16
		b2l, b2h := int32(int16(bp[2])), int32(bp[2])>>16
		b3l, b3h := int32(int16(bp[3])), int32(bp[3])>>16
		c00 += a0l*b0l + a0h*b0h
		c01 += a0l*b1l + a0h*b1h
		c02 += a0l*b2l + a0h*b2h
		c03 += a0l*b3l + a0h*b3h
		c10 += a1l*b0l + a1h*b0h
		c11 += a1l*b1l + a1h*b1h
		c12 += a1l*b2l + a1h*b2h
		c13 += a1l*b3l + a1h*b3h
		c20 += a2l*b0l + a2h*b0h
		c21 += a2l*b1l + a2h*b1h
		c22 += a2l*b2l + a2h*b2h
		c23 += a2l*b3l + a2h*b3h
		c30 += a3l*b0l + a3h*b0h
		c31 += a3l*b1l + a3h*b1h
		c32 += a3l*b2l + a3h*b2h
		c33 += a3l*b3l + a3h*b3h
	}
	bias = bias[:8]
	r0, r1, r2, r3 := c[0:4:4], c[ldc:ldc+4:ldc+4], c[2*ldc:2*ldc+4:2*ldc+4], c[3*ldc:3*ldc+4:3*ldc+4]
	b0, b1, b2, b3 := bias[4], bias[5], bias[6], bias[7]
	r0[0], r0[1], r0[2], r0[3] = c00+bias[0]+b0, c01+bias[0]+b1, c02+bias[0]+b2, c03+bias[0]+b3
	r1[0], r1[1], r1[2], r1[3] = c10+bias[1]+b0, c11+bias[1]+b1, c12+bias[1]+b2, c13+bias[1]+b3
	r2[0], r2[1], r2[2], r2[3] = c20+bias[2]+b0, c21+bias[2]+b1, c22+bias[2]+b2, c23+bias[2]+b3
	r3[0], r3[1], r3[2], r3[3] = c30+bias[3]+b0, c31+bias[3]+b1, c32+bias[3]+b2, c33+bias[3]+b3
}
