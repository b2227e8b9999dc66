package shape

import (
	"unsafe"

	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// A copyPlan moves elements between two strided views of buffers:
// dst[dBase + Σ idx·dst] = src[sBase + Σ idx·src] for every idx in shape.
// Most data-movement ops (broadcast, transpose, slice, reverse, pad,
// concatenate, dynamic slices) are one or a few such plans, built once at
// lowering with the dims already collapsed.
type copyPlan struct {
	shape []int // collapsed iteration shape; empty when there is nothing to copy
	ds    []int // destination strides in elements
	ss    []int // source strides in elements
	es    int   // element size in bytes
	rows  int   // product of shape[:n-1]
	empty bool
	tileK int // >= 0: blocked transpose over dims tileK and n-1
	total int
}

const (
	parallelMinElems = 1 << 16 // below this a plan runs on the calling goroutine
	tileSize         = 16
)

// newCopyPlan builds a plan; strides are in elements, may be zero or negative.
func newCopyPlan(shape, dstStrides, srcStrides []int64, es int) *copyPlan {
	p := &copyPlan{es: es, tileK: -1}
	total := 1
	var sh, ds, ss []int
	for i, d := range shape {
		total *= int(d)
		if d == 1 {
			continue
		}
		// Merge with the previous kept dim when both views are contiguous across it.
		if n := len(sh); n > 0 && ds[n-1] == int(dstStrides[i])*int(d) && ss[n-1] == int(srcStrides[i])*int(d) {
			sh[n-1] *= int(d)
			ds[n-1] = int(dstStrides[i])
			ss[n-1] = int(srcStrides[i])
			continue
		}
		sh = append(sh, int(d))
		ds = append(ds, int(dstStrides[i]))
		ss = append(ss, int(srcStrides[i]))
	}
	p.total = total
	if total == 0 {
		p.empty = true
		return p
	}
	if len(sh) == 0 {
		sh, ds, ss = []int{1}, []int{1}, []int{1}
	}
	p.shape, p.ds, p.ss = sh, ds, ss
	n := len(sh)
	p.rows = total / sh[n-1]
	// A transpose-like plan (source not contiguous along the innermost dim but
	// contiguous along another) is copied in square tiles so both sides stay
	// in cache.
	if n >= 2 && ss[n-1] != 1 && ss[n-1] != 0 && ds[n-1] == 1 && sh[n-1] >= 8 {
		for k := n - 2; k >= 0; k-- {
			if ss[k] == 1 && sh[k] >= 8 {
				p.tileK = k
				break
			}
		}
	}
	return p
}

// run executes the plan, splitting large copies across ctx's workers.
// Every element is written exactly once, so results do not depend on the split.
func (p *copyPlan) run(ctx kernel.Context, dst, src []byte, dBase, sBase int) {
	if p.empty {
		return
	}
	if p.tileK >= 0 {
		units := p.tileUnits()
		if ctx == nil || p.total < parallelMinElems || units < 2 {
			p.exec(dst, src, dBase, sBase, 0, units)
			return
		}
		grain := max(1, parallelMinElems/(tileSize*p.shape[len(p.shape)-1]))
		ctx.Parallel(units, grain, func(lo, hi int) { p.exec(dst, src, dBase, sBase, lo, hi) })
		return
	}
	if p.rows == 1 && len(p.shape) == 1 && p.ds[0] == 1 && p.ss[0] == 1 && ctx != nil && p.total >= 4*parallelMinElems {
		// One long contiguous run (reshape, copies): split the memmove.
		es, n := p.es, p.total
		chunk := parallelMinElems
		d, s := dst[dBase*es:(dBase+n)*es], src[sBase*es:(sBase+n)*es]
		ctx.Parallel((n+chunk-1)/chunk, 1, func(lo, hi int) {
			copy(d[lo*chunk*es:min(n, hi*chunk)*es], s[lo*chunk*es:])
		})
		return
	}
	if ctx == nil || p.total < parallelMinElems || p.rows < 2 {
		p.exec(dst, src, dBase, sBase, 0, p.rows)
		return
	}
	grain := max(1, parallelMinElems/(4*p.shape[len(p.shape)-1]))
	ctx.Parallel(p.rows, grain, func(lo, hi int) { p.exec(dst, src, dBase, sBase, lo, hi) })
}

// tileUnits is the number of parallel units in tiled mode: outer rows times
// tiles along dim tileK.
func (p *copyPlan) tileUnits() int {
	outer := p.rows / p.shape[p.tileK]
	return outer * ((p.shape[p.tileK] + tileSize - 1) / tileSize)
}

func (p *copyPlan) exec(dst, src []byte, dBase, sBase, lo, hi int) {
	switch p.es {
	case 1:
		execT(p, dst, src, dBase, sBase, lo, hi)
	case 2:
		execT(p, byteview.As[uint16](dst), byteview.As[uint16](src), dBase, sBase, lo, hi)
	case 4:
		execT(p, byteview.As[uint32](dst), byteview.As[uint32](src), dBase, sBase, lo, hi)
	case 8:
		execT(p, byteview.As[uint64](dst), byteview.As[uint64](src), dBase, sBase, lo, hi)
	case 16:
		execT(p, byteview.As[[2]uint64](dst), byteview.As[[2]uint64](src), dBase, sBase, lo, hi)
	default:
		panic("shape: unsupported element size")
	}
}

// elem is a fixed-size element storage type.
type elem interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~[2]uint64
}

func execT[T elem](p *copyPlan, dst, src []T, dBase, sBase, lo, hi int) {
	if p.tileK >= 0 {
		execTiled(p, dst, src, dBase, sBase, lo, hi)
		return
	}
	shape, ds, ss := p.shape, p.ds, p.ss
	n := len(shape)
	inner, dsi, ssi := shape[n-1], ds[n-1], ss[n-1]
	var idxArr [16]int
	var idx []int
	if n-1 <= len(idxArr) {
		idx = idxArr[:n-1]
	} else {
		idx = make([]int, n-1)
	}
	dOff, sOff := dBase, sBase
	r := lo
	for d := n - 2; d >= 0; d-- {
		idx[d] = r % shape[d]
		r /= shape[d]
		dOff += idx[d] * ds[d]
		sOff += idx[d] * ss[d]
	}
	for row := lo; row < hi; row++ {
		switch {
		case dsi == 1 && ssi == 1:
			copy(dst[dOff:dOff+inner], src[sOff:sOff+inner])
		case ssi == 0:
			v := src[sOff]
			if dsi == 1 {
				seg := dst[dOff : dOff+inner]
				for i := range seg {
					seg[i] = v
				}
			} else {
				for i, o := 0, dOff; i < inner; i, o = i+1, o+dsi {
					dst[o] = v
				}
			}
		case dsi == 1:
			seg := dst[dOff : dOff+inner]
			for i, o := 0, sOff; i < len(seg); i, o = i+1, o+ssi {
				seg[i] = src[o]
			}
		default:
			for i, d, s := 0, dOff, sOff; i < inner; i, d, s = i+1, d+dsi, s+ssi {
				dst[d] = src[s]
			}
		}
		for d := n - 2; d >= 0; d-- {
			idx[d]++
			dOff += ds[d]
			sOff += ss[d]
			if idx[d] < shape[d] {
				break
			}
			dOff -= ds[d] * shape[d]
			sOff -= ss[d] * shape[d]
			idx[d] = 0
		}
	}
}

// execTiled copies units [lo,hi) of a tiled plan: a unit is one tile row
// (tileSize indices of dim k) of one outer index (all dims but k and n-1).
func execTiled[T elem](p *copyPlan, dst, src []T, dBase, sBase, lo, hi int) {
	shape, ds, ss := p.shape, p.ds, p.ss
	n, k := len(shape), p.tileK
	inner, dsi, ssi := shape[n-1], ds[n-1], ss[n-1]
	kn, dsk, ssk := shape[k], ds[k], ss[k]
	kTiles := (kn + tileSize - 1) / tileSize
	for u := lo; u < hi; u++ {
		outer, kt := u/kTiles, u%kTiles
		dOff, sOff := dBase, sBase
		for d := n - 2; d >= 0; d-- {
			if d == k {
				continue
			}
			i := outer % shape[d]
			outer /= shape[d]
			dOff += i * ds[d]
			sOff += i * ss[d]
		}
		k0, k1 := kt*tileSize, min(kn, (kt+1)*tileSize)
		for j0 := 0; j0 < inner; j0 += tileSize {
			j1 := min(inner, j0+tileSize)
			for i := k0; i < k1; i++ {
				d := dOff + i*dsk + j0*dsi
				s := sOff + i*ssk + j0*ssi
				for j := j0; j < j1; j, d, s = j+1, d+dsi, s+ssi {
					dst[d] = src[s]
				}
			}
		}
	}
}

// fillBytes writes the element value v (es bytes) to every element of dst.
func fillBytes(dst, v []byte) {
	es := len(v)
	if len(dst) < es {
		return
	}
	copy(dst, v)
	for filled := es; filled < len(dst); filled *= 2 {
		copy(dst[filled:], dst[:filled])
	}
}

// execAll runs the whole plan on the calling goroutine.
func (p *copyPlan) execAll(dst, src []byte, dBase, sBase int) {
	if p.empty {
		return
	}
	if p.tileK >= 0 {
		p.exec(dst, src, dBase, sBase, 0, p.tileUnits())
		return
	}
	p.exec(dst, src, dBase, sBase, 0, p.rows)
}

// sameBuffer reports whether a and b start at the same address: the planner
// ran an op in place (result aliasing operand 0), so copying the operand
// into the result is a no-op to skip.
func sameBuffer(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}
