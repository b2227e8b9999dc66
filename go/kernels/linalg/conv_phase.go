package linalg

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// A base-dilated (lhs_dilation, as in transposed convolutions and the
// input gradient of strided ones) convolution meets a hole of the dilated
// input at most kernel taps: of a 3×3 kernel on a 2×-dilated input, an
// output position meets 4, 2, 2 or 1 inputs. Which taps meet inputs
// depends only on the output position's phase modulo the dilation, so the
// output rows split into phases, each an ordinary convolution with its own
// subset of taps, run as an implicit-im2col GEMM with that shorter K.

// convPhases is the per-phase plan.
type convPhases struct {
	n     int
	parts []convPhase
}

type convPhase struct {
	f      *convFast // nil when no tap of the phase meets the input: its rows are zeros
	outRow []int     // per GEMM row of the phase: output offset of its n features
}

// buildConvPhases returns the phase plan for a single-group convolution
// with some lhs dilation above one whose output rows are n contiguous
// features, nil otherwise.
func buildConvPhases(p *convPlan, cd *convDims, rt, ot *ir.TensorType) *convPhases {
	if p.groups != 1 || p.outFeatStr != 1 || p.m <= 2 || p.n <= 2 || p.k == 0 {
		return nil
	}
	s := len(cd.inSp)
	nPhase := 1
	for _, l := range cd.lhsDil {
		nPhase *= int(l)
	}
	if nPhase == 1 {
		return nil
	}
	outSpShape := make([]int64, s)
	kSpShape := make([]int64, s)
	for d := 0; d < s; d++ {
		outSpShape[d] = ot.Shape[cd.outSp[d]]
		kSpShape[d] = rt.Shape[cd.kSp[d]]
	}
	// Phase (mixed radix over the dilations) of each output position.
	spKey := kernel.Make[int](len(p.spatialTab))
	for o := range spKey {
		oi := unravelI(o, outSpShape)
		key := 0
		for d := 0; d < s; d++ {
			l := cd.lhsDil[d]
			key = key*int(l) + int(((oi[d]*cd.strides[d]-cd.pad[2*d])%l+l)%l)
		}
		spKey[o] = key
	}
	rowsOf := make([][]int, nPhase) // per phase: its conv rows, in output order
	for r := range p.m {
		k := spKey[p.rowSpatial[r]]
		rowsOf[k] = append(rowsOf[k], r)
	}
	ph := &convPhases{n: p.n}
	for key, rows := range rowsOf {
		if len(rows) == 0 {
			continue
		}
		taps := phaseTaps(key, cd, kSpShape, p.ks)
		part := convPhase{outRow: kernel.Make[int](len(rows))}
		for i, r := range rows {
			part.outRow[i] = p.outRow[r]
		}
		if len(taps) > 0 {
			if len(rows) <= 2 {
				return nil // the GEMM would take its thin path, which cannot gather
			}
			part.f = newConvFast(phasePlan(p, rows, taps), identity(len(rows)))
		}
		ph.parts = append(ph.parts, part)
	}
	return ph
}

// phaseTaps lists the kernel positions at which outputs of this phase meet
// an input element rather than a hole.
func phaseTaps(key int, cd *convDims, kSpShape []int64, ks int) []int {
	s := len(cd.inSp)
	phase := make([]int64, s)
	for d := s - 1; d >= 0; d-- {
		phase[d] = int64(key) % cd.lhsDil[d]
		key /= int(cd.lhsDil[d])
	}
	var taps []int
	for kk := range ks {
		ki := unravelI(kk, kSpShape)
		ok := true
		for d := 0; d < s; d++ {
			if (phase[d]+ki[d]*cd.rhsDil[d])%cd.lhsDil[d] != 0 {
				ok = false
				break
			}
		}
		if ok {
			taps = append(taps, kk)
		}
	}
	return taps
}

// phasePlan is p restricted to conv rows rows and kernel positions taps.
func phasePlan(p *convPlan, rows, taps []int) *convPlan {
	sub := &convPlan{groups: 1, m: len(rows), n: p.n, kin: p.kin, ks: len(taps), k: p.kin * len(taps),
		lhsBatchStr: p.lhsBatchStr, lhsFeatStr: p.lhsFeatStr, outBatch: p.outBatch, outFeatStr: p.outFeatStr}
	sub.rowBatch = kernel.Make[int](len(rows))
	sub.rowSpatial = kernel.Make[int](len(rows))
	sub.outRow = kernel.Make[int](len(rows))
	newSp := map[int]int{}
	for i, r := range rows {
		o := p.rowSpatial[r]
		j, ok := newSp[o]
		if !ok {
			j = len(sub.spatialTab)
			newSp[o] = j
			tab := kernel.Make[int](len(taps))
			for t, kk := range taps {
				tab[t] = p.spatialTab[o][kk]
			}
			sub.spatialTab = append(sub.spatialTab, tab)
		}
		sub.rowBatch[i], sub.rowSpatial[i], sub.outRow[i] = p.rowBatch[r], j, p.outRow[r]
	}
	rhs := *p.rhs
	rhs.k = sub.k
	rhs.rhsK = kernel.Make[int](sub.k)
	for fi := range p.kin {
		for t, kk := range taps {
			rhs.rhsK[fi*len(taps)+t] = p.rhs.rhsK[fi*p.ks+kk]
		}
	}
	sub.rhs = &rhs
	return sub
}

func identity(n int) []int {
	v := kernel.Make[int](n)
	for i := range v {
		v[i] = i
	}
	return v
}

// runConvPhases runs each phase's GEMM into scratch and copies its rows to
// their output positions as the GEMM finishes them. Each output element is
// its phase GEMM's sum, whatever the worker count.
func runConvPhases[T float32 | float64](ph *convPhases, uk microKernel[T], lhs, rhs, out []T, par parallelFn, pool func(int) *buf[T]) {
	n := ph.n
	for _, part := range ph.parts {
		if part.f == nil {
			for _, o := range part.outRow {
				clear(out[o : o+n])
			}
			continue
		}
		c := pool(len(part.outRow) * n)
		fin := func(off, rows, cols, ldc int) {
			i0, j0 := off/ldc, off%ldc
			for r := range rows {
				copy(out[part.outRow[i0+r]+j0:][:cols], c.s[off+r*ldc:][:cols])
			}
		}
		runConvFastFin(part.f, uk, lhs, rhs, c.s, par, pool, fin)
		c.release()
	}
}
