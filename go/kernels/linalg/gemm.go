package linalg

import (
	"github.com/gojax/gojax/go/internal/byteview"
	"github.com/gojax/gojax/go/internal/workers"
	"math"
	"unsafe"
)

// Packed, cache-blocked GEMM for f32 and f64 (the dot_general hot path).
//
// Operands are addressed through offset tables rather than strides: for each
// batch index, row (lhs free index), column (rhs free index) and contracting
// index the plan stores the element offset into its operand. Any placement of
// batch/contracting/free dimensions, transposed operands included, is handled
// while packing, so nothing is transposed in memory.
//
// The output is split into tiles (batch × rows × columns, sized from the
// problem shape and GOMAXPROCS) computed by one worker each, walking K in
// the same kcBlock order, so every output element sees the same reduction
// order however many workers run and however the tiles fall.

const (
	kcBlock = 512 // contracting depth per packed panel (measured best of 128-1024 on Zen 5: longer kernel runs beat an L1-resident B micro-panel)
	mcBlock = 128 // rows of A packed at once (L2-sized), rounded down to whole micro-tiles
	ncBlock = 512 // columns of B packed at once (at most; see tiling.go)
)

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// gemmPlan is a batched C[b] (M×N, row-major, contiguous per batch) =
// A[b] (M×K) · B[b] (K×N) with operands addressed via offset tables.
type gemmPlan struct {
	batch, m, n, k int
	lhsBatch       []int // per batch index: offset into lhs
	rhsBatch       []int
	lhsRow         []int // per row i: offset into lhs
	lhsK           []int // per contracting index: offset into lhs
	rhsK           []int
	rhsCol         []int // per column j: offset into rhs

	// Unit-stride flags: the contracting offsets of lhs (row-major A) and
	// the column offsets of rhs (row-major B) let packing copy runs.
	lhsKUnit, rhsColUnit bool
}

// unitStride reports whether offsets are 0, 1, 2, … plus a constant.
func unitStride(offs []int) bool {
	for i := 1; i < len(offs); i++ {
		if offs[i] != offs[0]+i {
			return false
		}
	}
	return true
}

func (p *gemmPlan) flops() float64 {
	return 2 * float64(p.batch) * float64(p.m) * float64(p.n) * float64(p.k)
}

// microKernel computes an mr×nr block: c[i*ldc+j] (+)= Σ_p a[p*mr+i]·b[p*nr+j]
// for p < kc, overwriting c when acc is false. a and b are packed panels.
// Keeping this a value (not a direct call) lets a SIMD kernel with other mr/nr
// replace the plain-Go one without touching the blocking code.
type microKernel[T float32 | float64] struct {
	name   string
	mr, nr int
	fn     func(kc int, a, b, c []T, ldc int, acc bool)
	// edge, when set, computes only the first edgeRows rows of the tile
	// (same a, b and c layout, same bits per element): macroKernel runs
	// it for panels with that few rows instead of fn over padding.
	edge     func(kc int, a, b, c []T, ldc int, acc bool)
	edgeRows int
	// pairs marks a bf16 dot-product kernel: both operands are bf16 and
	// each packed float32 slot holds two bf16 values adjacent in k (low
	// half first), so fn's kc counts k pairs.
	pairs bool
	// tilePairs marks a pairs kernel on matrix tiles (AMX): its A panels
	// hold each row's k pairs contiguously, 16 pairs at a time
	// (packAPairsRows), and both panels are zero-padded to a whole number
	// of 16-pair steps, so fn's kc is always a multiple of 16.
	tilePairs bool
}

// tileStep is the k pairs a tile kernel consumes per step (a 64-byte tile
// row of bf16 pairs).
const tileStep = 16

// panelPairs is the k pairs (slots per panel row or column) a pairs
// kernel's panels hold for k contracting indices.
func (uk *microKernel[T]) panelPairs(k int) int {
	kp := (k + 1) / 2
	if uk.tilePairs {
		kp = roundUp(kp, tileStep)
	}
	return kp
}

var (
	ukF32Plain = microKernel[float32]{name: "go-4x4", mr: 4, nr: 4, fn: kern4x4F32}
	ukF64Plain = microKernel[float64]{name: "go-4x4", mr: 4, nr: 4, fn: kern4x4F64}

	// kernelsF32/kernelsF64 list every micro-kernel this machine can run,
	// slowest first (architecture files append at init); tests run them
	// all. ukF32/ukF64 are the ones in use, the last of each list.
	kernelsF32 = []microKernel[float32]{ukF32Plain}
	kernelsF64 = []microKernel[float64]{ukF64Plain}
	ukF32      = ukF32Plain
	ukF64      = ukF64Plain

	// kernelsBF16 lists the bf16 pair kernels (pairs set) this machine
	// has; ukBF16, when not nil, runs dots with two bf16 operands.
	kernelsBF16 []microKernel[float32]
	ukBF16      *microKernel[float32]
)

// parallelFn is kernel.Context.Parallel.
type parallelFn func(n, grain int, fn func(lo, hi int))

// gemm runs the plan on typed operand views. c must hold batch*m*n elements.
//
// Loop order (GotoBLAS): the output is split into tiles of (batch index,
// up to ncBlock columns, a range of rows), one worker each. For each kcBlock
// slice of K a tile packs its B block (k × columns) once, then walks its
// rows mcBlock at a time, packing that A block and running the micro-kernel
// over it, B micro-panel by B micro-panel. Tiles only decide who computes an
// element, never how: every element is the kernel's sequential sum over each
// K block, the blocks added to c in ascending order, so results do not
// depend on the tiling or the worker count.
func gemm[T float32 | float64](p *gemmPlan, uk microKernel[T], a, b, c []T, par parallelFn, pool func(n int) *buf[T]) {
	gemmSrc(p, uk, operand[T]{v: a}, operand[T]{v: b}, c, par, pool, nil)
}

// operand is one GEMM input: its elements as T, or, for float32 compute
// only, bfloat16 bits widened while packing (exact, so the result is the
// same as converting the whole operand first).
type operand[T float32 | float64] struct {
	v    []T
	bf16 []uint16
	// gather, when set, defines the lhs implicitly (convolution's im2col):
	// it writes A[i][p] for rows [i0,i1) and contracting indices [p0,p1)
	// row-major into dst, row stride ld. The plan's lhs offset tables are
	// then unused; only the packed path calls it (callers check packedOnly).
	gather func(dst []T, ld, i0, i1, p0, p1 int)
	// panel, when set, may pack a full mr-row panel (rows [i0,i0+mr),
	// contracting indices [p0,p0+k)) directly, k-major; it reports false
	// when those rows need gather.
	panel func(pan []T, i0, p0, k int) bool
}

// packedOnly reports whether gemmSrc would run this plan through the
// packed path (not the thin one), which is the only path that reads bf16
// operands directly.
func (p *gemmPlan) packedOnly() bool {
	return p.batch > 0 && p.m > 2 && p.n > 2 && p.k > 0
}

// gemmSrc is gemm on operands that may be bf16. When fin is not nil, the
// packed path calls it from the worker for each finished block of rows of
// an output tile: rows×cols elements of c starting at off, row stride ldc
// (so a narrow result is written while the block is still in L2).
func gemmSrc[T float32 | float64](p *gemmPlan, uk microKernel[T], a, b operand[T], c []T, par parallelFn, pool func(n int) *buf[T], fin func(off, rows, cols, ldc int)) {
	if p.batch == 0 || p.m == 0 || p.n == 0 {
		return
	}
	if p.k == 0 {
		clear(c[:p.batch*p.m*p.n])
		return
	}
	if p.n <= 2 || p.m <= 2 {
		// Matrix-vector shapes: packing into micro-tiles would mostly pad.
		// (Callers pass bf16 operands only when packedOnly.)
		thinGemm(p, a.v, b.v, c, par)
		return
	}
	mr, nr := uk.mr, uk.nr
	kcb := kcBlock
	kc := min(kcb, p.k)
	mcb := max(mr, mcBlock/mr*mr)
	tl := chooseTiling(p, mr, nr, workers.Count())
	ncb, mtile, tilesM, tilesN := tl.ncb, tl.mtile, tl.tilesM, tl.tilesN
	total := p.batch * tilesM * tilesN
	grain := tileGrain(p, total)
	// Packed panels are padded to whole micro-tiles.
	mc := roundUp(min(mcb, mtile), mr)
	nc := roundUp(ncb, nr)
	oneK := p.k <= kcb
	if uk.pairs {
		// Slots hold k pairs: half as many, rounded up (kcBlock is even,
		// so pairs never straddle K blocks).
		kc = uk.panelPairs(kc)
	}
	gtmpLen := 0
	if a.gather != nil {
		gtmpLen = mr * kc
	}
	work := func(lo, hi int) {
		abuf := pool(mc*kc + nc*kc + mr*nr + gtmpLen)
		defer abuf.release()
		ap := abuf.s[:mc*kc]
		bp := abuf.s[mc*kc : mc*kc+nc*kc]
		tmp := abuf.s[mc*kc+nc*kc : mc*kc+nc*kc+mr*nr]
		gtmp := abuf.s[mc*kc+nc*kc+mr*nr:]
		packed := -1 // (batch, column block) whose whole-K B block is in bp
		for t := lo; t < hi; t++ {
			bi := t / (tilesM * tilesN)
			r := t % (tilesM * tilesN)
			jt := r / tilesM
			i0 := (r % tilesM) * mtile
			j0 := jt * ncb
			m := min(mtile, p.m-i0)
			n := min(ncb, p.n-j0)
			cb := c[bi*p.m*p.n:]
			for p0 := 0; p0 < p.k; p0 += kcb {
				k := min(kcb, p.k-p0)
				kk := k
				if uk.pairs {
					kk = uk.panelPairs(k)
				}
				if key := bi*tilesN + jt; !oneK || packed != key {
					if uk.pairs {
						packBPairs(asU32(bp), b.bf16[p.rhsBatch[bi]:], p.rhsK[p0:p0+k], p.rhsCol[j0:j0+n], nr, p.rhsColUnit, kk)
					} else if b.bf16 != nil {
						packBBF16(asF32(bp), b.bf16[p.rhsBatch[bi]:], p.rhsK[p0:p0+k], p.rhsCol[j0:j0+n], nr, p.rhsColUnit)
					} else {
						packB(bp, b.v[p.rhsBatch[bi]:], p.rhsK[p0:p0+k], p.rhsCol[j0:j0+n], nr, p.rhsColUnit)
					}
					packed = key
				}
				acc := p0 > 0
				for ic := 0; ic < m; ic += mcb {
					mm := min(mcb, m-ic)
					if a.gather != nil {
						packAGather(ap, a.gather, a.panel, i0+ic, mm, p0, k, mr, gtmp)
					} else if uk.tilePairs {
						packAPairsRows(asU32(ap), a.bf16[p.lhsBatch[bi]:], p.lhsRow[i0+ic:i0+ic+mm], p.lhsK[p0:p0+k], mr, p.lhsKUnit, kk)
					} else if uk.pairs {
						packAPairs(asU32(ap), a.bf16[p.lhsBatch[bi]:], p.lhsRow[i0+ic:i0+ic+mm], p.lhsK[p0:p0+k], mr, p.lhsKUnit)
					} else if a.bf16 != nil {
						packABF16(asF32(ap), a.bf16[p.lhsBatch[bi]:], p.lhsRow[i0+ic:i0+ic+mm], p.lhsK[p0:p0+k], mr, p.lhsKUnit)
					} else {
						packA(ap, a.v[p.lhsBatch[bi]:], p.lhsRow[i0+ic:i0+ic+mm], p.lhsK[p0:p0+k], mr, p.lhsKUnit)
					}
					macroKernel(uk, kk, ap, bp, cb[(i0+ic)*p.n+j0:], p.n, mm, n, acc, tmp)
					if fin != nil && p0+k == p.k {
						// Last K block: these rows are final.
						fin(bi*p.m*p.n+(i0+ic)*p.n+j0, mm, n, p.n)
					}
				}
			}
		}
	}
	if total <= grain {
		work(0, total)
		return
	}
	par(total, grain, work)
}

// macroKernel multiplies a packed m×k A block by a packed k×n B block into
// c (row stride ldc), accumulating when acc. Edge micro-tiles go through
// tmp (mr×nr) so the kernel never writes outside c.
func macroKernel[T float32 | float64](uk microKernel[T], k int, ap, bp, c []T, ldc, m, n int, acc bool, tmp []T) {
	mr, nr := uk.mr, uk.nr
	for jr := 0; jr < n; jr += nr {
		bpan := bp[(jr/nr)*nr*k:]
		nn := min(nr, n-jr)
		for ir := 0; ir < m; ir += mr {
			apan := ap[(ir/mr)*mr*k:]
			mm := min(mr, m-ir)
			off := ir*ldc + jr
			if mm == mr && nn == nr {
				uk.fn(k, apan, bpan, c[off:], ldc, acc)
				continue
			}
			fn := uk.fn
			if mm <= uk.edgeRows {
				if mm == uk.edgeRows && nn == nr {
					uk.edge(k, apan, bpan, c[off:], ldc, acc)
					continue
				}
				fn = uk.edge
			}
			fn(k, apan, bpan, tmp, nr, false)
			for i := 0; i < mm; i++ {
				row := c[off+i*ldc : off+i*ldc+nn]
				src := tmp[i*nr : i*nr+nn]
				if acc {
					for j := range row {
						row[j] += src[j]
					}
				} else {
					copy(row, src)
				}
			}
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA packs rows×ks of A into mr-row panels, k-major within a panel,
// zero-padding the last panel. unit says ks is a unit-stride run.
func packA[T float32 | float64](dst, a []T, rows, ks []int, mr int, unit bool) {
	k := len(ks)
	start := 0
	if nfull := len(rows) / mr; !unit && nfull > 0 && unitStride(rows) {
		// Transposed A (rows adjacent in memory): read each k's run of
		// rows in order, scattering it over the full panels.
		if packFullPanels(dst, a, rows[0], ks, constStride(ks), mr, nfull, true) {
			start = nfull * mr
		}
	}
	for i0 := start; i0 < len(rows); i0 += mr {
		pan := dst[(i0/mr)*mr*k : (i0/mr+1)*mr*k]
		mm := min(mr, len(rows)-i0)
		if mm < mr {
			clear(pan)
		}
		if unit && mm == 14 && k > 0 {
			packA14(pan, a, rows[i0:i0+14], ks[0], k)
			continue
		}
		if !unit && mm == 14 && consecutive14(rows[i0:i0+14]) {
			// Transposed A (rows adjacent in memory): each k is 14
			// contiguous elements, one block copy.
			r0 := rows[i0]
			for p, ko := range ks {
				*(*[14]T)(pan[14*p:]) = *(*[14]T)(a[r0+ko:])
			}
			continue
		}
		for i := 0; i < mm; i++ {
			ro := rows[i0+i]
			if unit && k > 0 {
				src := a[ro+ks[0] : ro+ks[0]+k]
				d := pan[i:]
				for p, v := range src {
					d[p*mr] = v
				}
				continue
			}
			for p, ko := range ks {
				pan[p*mr+i] = a[ro+ko]
			}
		}
	}
}

// packFullPanels copies the first nfull full w-wide panels of a k-major
// pack (dst[p*w + j*w*k + i] = src[base + ks[p] + j*w + i]) in one block
// copy when the k offsets have the single stride kStep > 0, else, where
// byRows allows, one row copy per k, and reports whether it did.
func packFullPanels[T float32 | float64](dst, src []T, base int, ks []int, kStep, w, nfull int, byRows bool) bool {
	k := len(ks)
	if kStep > 0 && copyBlock(dst, src, base+ks[0], w, w*k, w, nfull, k, kStep, w) {
		return true
	}
	if !byRows {
		return false
	}
	done := false
	for p, ko := range ks {
		if !copyRows(dst[p*w:], src, base+ko, w, w*k, w, nfull) {
			break
		}
		done = true
	}
	return done
}

// constStride returns s > 0 when offs[i] = offs[0] + i*s for all i (at
// least two offsets), else 0.
func constStride(offs []int) int {
	if len(offs) < 2 || offs[1] <= offs[0] {
		return 0
	}
	s := offs[1] - offs[0]
	for i := 2; i < len(offs); i++ {
		if offs[i]-offs[i-1] != s {
			return 0
		}
	}
	return s
}

func consecutive14(rows []int) bool {
	_ = rows[13]
	for i := 1; i < 14; i++ {
		if rows[i] != rows[0]+i {
			return false
		}
	}
	return true
}

// packA14 packs one full 14-row panel of unit-stride rows k-major, writing
// the panel sequentially.
func packA14[T float32 | float64](pan, a []T, rows []int, k0, k int) {
	_ = rows[13]
	var offs [14]int
	for i := range offs {
		offs[i] = rows[i] + k0
	}
	packA14Offs(pan, a, &offs, k)
}

// packAGather packs rows [i0,i0+mm) × contracting indices [p0,p0+k) of an
// implicit lhs into mr-row panels like packA: each panel's rows are gathered
// row-major into tmp (mr×k, in L1) and then interleaved.
func packAGather[T float32 | float64](dst []T, g func(dst []T, ld, i0, i1, p0, p1 int), panel func(pan []T, i0, p0, k int) bool, i0, mm, p0, k, mr int, tmp []T) {
	for r := 0; r < mm; r += mr {
		n := min(mr, mm-r)
		pan := dst[(r/mr)*mr*k : (r/mr+1)*mr*k]
		if n == mr && panel != nil && panel(pan, i0+r, p0, k) {
			continue
		}
		g(tmp, k, i0+r, i0+r+n, p0, p0+k)
		if n == 14 {
			packA14ld(pan, tmp, k, k)
			continue
		}
		if n < mr {
			clear(pan)
		}
		for i := 0; i < n; i++ {
			src := tmp[i*k : (i+1)*k]
			d := pan[i:]
			for p, v := range src {
				d[p*mr] = v
			}
		}
	}
}

// packA14ld is packA14 for 14 rows of a row-major matrix (row stride ld).
func packA14ld[T float32 | float64](pan, a []T, ld, k int) {
	var offs [14]int
	for i := range offs {
		offs[i] = i * ld
	}
	packA14Offs(pan, a, &offs, k)
}

// packA14Offs packs one full 14-row panel whose row i is a[offs[i]:][:k]
// k-major, writing the panel sequentially.
func packA14Offs[T float32 | float64](pan, a []T, offs *[14]int, k int) {
	r0, r1, r2, r3 := a[offs[0]:][:k], a[offs[1]:][:k], a[offs[2]:][:k], a[offs[3]:][:k]
	r4, r5, r6, r7 := a[offs[4]:][:k], a[offs[5]:][:k], a[offs[6]:][:k], a[offs[7]:][:k]
	r8, r9, r10, r11 := a[offs[8]:][:k], a[offs[9]:][:k], a[offs[10]:][:k], a[offs[11]:][:k]
	r12, r13 := a[offs[12]:][:k], a[offs[13]:][:k]
	pan = pan[:14*k]
	for p := packA14Trans(pan, a, offs, k); p < k; p++ {
		d := (*[14]T)(pan[14*p:])
		d[0], d[1], d[2], d[3] = r0[p], r1[p], r2[p], r3[p]
		d[4], d[5], d[6], d[7] = r4[p], r5[p], r6[p], r7[p]
		d[8], d[9], d[10], d[11] = r8[p], r9[p], r10[p], r11[p]
		d[12], d[13] = r12[p], r13[p]
	}
}

// packB packs ks×cols of B into nr-column panels, k-major within a panel,
// zero-padding the last panel. unit says cols is a unit-stride run: then
// each k row of a full panel is one fixed-size block copy.
func packB[T float32 | float64](dst, b []T, ks, cols []int, nr int, unit bool) {
	k := len(ks)
	kStep := constStride(ks)
	kUnit := kStep == 1
	start := 0
	if nfull := len(cols) / nr; unit && nfull > 0 {
		// Row-major B: read each k row of the block in order (the
		// hardware prefetcher follows it), scattering it over the
		// full panels; per k row where the k offsets have no single
		// stride, if that row is long enough to be worth a call.
		if packFullPanels(dst, b, cols[0], ks, kStep, nr, nfull, nfull >= 4) {
			start = nfull * nr
		}
	}
	for j0 := start; j0 < len(cols); j0 += nr {
		pan := dst[(j0/nr)*nr*k : (j0/nr+1)*nr*k]
		nn := min(nr, len(cols)-j0)
		cs := cols[j0 : j0+nn]
		if unit && nn == nr {
			c0 := cs[0]
			switch nr {
			case 32:
				for p, ko := range ks {
					*(*[32]T)(pan[p*32:]) = *(*[32]T)(b[ko+c0:])
				}
				continue
			case 16:
				for p, ko := range ks {
					*(*[16]T)(pan[p*16:]) = *(*[16]T)(b[ko+c0:])
				}
				continue
			case 8:
				for p, ko := range ks {
					*(*[8]T)(pan[p*8:]) = *(*[8]T)(b[ko+c0:])
				}
				continue
			case 4:
				for p, ko := range ks {
					*(*[4]T)(pan[p*4:]) = *(*[4]T)(b[ko+c0:])
				}
				continue
			}
		}
		if nn < nr {
			clear(pan)
		}
		if !unit && kUnit {
			// Transposed B: each column is a contiguous run of k, so
			// read it in order (AVX-512 transposes 16 columns at once).
			p0 := 0
			if nn == 32 && nr == 32 {
				p0 = packBTrans32(pan, b, cs, ks[0], k)
			}
			for j, co := range cs {
				if p0 == k {
					break
				}
				src := b[co+ks[0]+p0 : co+ks[0]+k]
				d := pan[p0*nr+j:]
				for p, v := range src {
					d[p*nr] = v
				}
			}
			continue
		}
		for p, ko := range ks {
			row := pan[p*nr : p*nr+nn]
			if unit {
				copy(row, b[ko+cs[0]:ko+cs[0]+nn])
				continue
			}
			for j, co := range cs {
				row[j] = b[ko+co]
			}
		}
	}
}

// asF32 reinterprets a packing buffer as float32; bf16 operands exist only
// for float32 compute, so T is float32 whenever it is called.
func asF32[T float32 | float64](s []T) []float32 {
	var z T
	if unsafe.Sizeof(z) != 4 {
		panic("linalg: bf16 operand in a float64 GEMM")
	}
	return byteview.As[float32](byteview.Bytes(s))
}

func asU32[T float32 | float64](s []T) []uint32 {
	return byteview.As[uint32](byteview.Bytes(asF32(s)))
}

// packAPairs packs rows×ks of bf16 A into mr-row panels of k pairs: slot
// q*mr+i holds A[i][2q] (low half) and A[i][2q+1] (high half, 0 past the
// end). The last panel is zero-padded.
func packAPairs(dst []uint32, a []uint16, rows, ks []int, mr int, unit bool) {
	k := len(ks)
	kp := (k + 1) / 2
	for i0 := 0; i0 < len(rows); i0 += mr {
		pan := dst[(i0/mr)*mr*kp : (i0/mr+1)*mr*kp]
		mm := min(mr, len(rows)-i0)
		if mm < mr {
			clear(pan)
		}
		if unit && mm == 14 && k > 1 {
			packAPairs14(pan, a, rows[i0:i0+14], ks[0], k)
			continue
		}
		for i := 0; i < mm; i++ {
			ro := rows[i0+i]
			d := pan[i:]
			q := 0
			for ; 2*q+1 < k; q++ {
				d[q*mr] = uint32(a[ro+ks[2*q]]) | uint32(a[ro+ks[2*q+1]])<<16
			}
			if q < kp {
				d[q*mr] = uint32(a[ro+ks[2*q]])
			}
		}
	}
}

// packAPairsRows packs rows×ks of bf16 A into mr-row panels for tile
// kernels: step c of a panel (16 k pairs) is mr rows of 16 slots, slot
// c*16*mr + i*16 + q%16 holding A[i][2q] (low half) and A[i][2q+1] (high
// half), so each tile row is one panel row's 64 contiguous bytes. Pairs
// past the end (up to kpad, a multiple of 16) and rows past the last are
// zero.
func packAPairsRows(dst []uint32, a []uint16, rows, ks []int, mr int, unit bool, kpad int) {
	k := len(ks)
	kp := (k + 1) / 2
	for i0 := 0; i0 < len(rows); i0 += mr {
		pan := dst[(i0/mr)*mr*kpad : (i0/mr+1)*mr*kpad]
		mm := min(mr, len(rows)-i0)
		if mm < mr || kp < kpad {
			clear(pan)
		}
		for i := 0; i < mm; i++ {
			ro := rows[i0+i]
			if unit && k > 0 {
				// A row's whole pairs are little-endian uint32s already.
				src := a[ro+ks[0]:][:k]
				kq := k / 2
				w := byteview.As[uint32](byteview.Bytes(src[:2*kq]))
				for c := 0; c*tileStep < kq; c++ {
					n := min(tileStep, kq-c*tileStep)
					copy(pan[c*tileStep*mr+i*tileStep:][:n], w[c*tileStep:c*tileStep+n])
				}
				if k%2 == 1 {
					pan[(kq/tileStep)*tileStep*mr+i*tileStep+kq%tileStep] = uint32(src[k-1])
				}
				continue
			}
			for q := 0; q < kp; q++ {
				v := uint32(a[ro+ks[2*q]])
				if 2*q+1 < k {
					v |= uint32(a[ro+ks[2*q+1]]) << 16
				}
				pan[(q/tileStep)*tileStep*mr+i*tileStep+q%tileStep] = v
			}
		}
	}
}

// packAPairs14 packs a full 14-row panel of unit-stride bf16 rows: a k pair
// of a row is one little-endian uint32 there already.
func packAPairs14(pan []uint32, a []uint16, rows []int, k0, k int) {
	_ = rows[13]
	kq := k / 2
	var rs [14][]uint32
	for i := range rs {
		r := a[rows[i]+k0:][:k]
		rs[i] = byteview.As[uint32](byteview.Bytes(r[:2*kq]))
	}
	r0, r1, r2, r3, r4, r5, r6 := rs[0], rs[1][:kq], rs[2][:kq], rs[3][:kq], rs[4][:kq], rs[5][:kq], rs[6][:kq]
	r7, r8, r9, r10, r11, r12, r13 := rs[7][:kq], rs[8][:kq], rs[9][:kq], rs[10][:kq], rs[11][:kq], rs[12][:kq], rs[13][:kq]
	pan = pan[:14*((k+1)/2)]
	var offs [14]int
	for i := range offs {
		offs[i] = rows[i] + k0
	}
	for q := packAPairs14Trans(pan, a, &offs, kq); q < kq; q++ {
		d := (*[14]uint32)(pan[14*q:])
		d[0], d[1], d[2], d[3], d[4], d[5], d[6] = r0[q], r1[q], r2[q], r3[q], r4[q], r5[q], r6[q]
		d[7], d[8], d[9], d[10], d[11], d[12], d[13] = r7[q], r8[q], r9[q], r10[q], r11[q], r12[q], r13[q]
	}
	if k%2 == 1 {
		d := (*[14]uint32)(pan[14*kq:])
		for i := range d {
			d[i] = uint32(a[rows[i]+k0+k-1])
		}
	}
}

// packBPairs packs ks×cols of bf16 B into nr-column panels of kpad k
// pairs: slot q*nr+j holds B[2q][j] (low half) and B[2q+1][j] (high
// half); pairs past the end ((k+1)/2 <= q < kpad) are zero. Whole pairs of
// unit-stride columns may be packed in assembly first.
func packBPairs(dst []uint32, b []uint16, ks, cols []int, nr int, unit bool, kpad int) {
	k := len(ks)
	kp := (k + 1) / 2
	q0 := packBPairsVec(dst, b, ks, cols, nr, unit, kpad)
	for j0 := 0; j0 < len(cols); j0 += nr {
		pan := dst[(j0/nr)*nr*kpad : (j0/nr+1)*nr*kpad]
		nn := min(nr, len(cols)-j0)
		cs := cols[j0 : j0+nn]
		if nn < nr {
			clear(pan[q0*nr:]) // the assembly zeroes its rows' padding
		} else {
			clear(pan[kp*nr:])
		}
		for q := q0; q < kp; q++ {
			row := pan[q*nr : q*nr+nn]
			lo := b[ks[2*q]:]
			if 2*q+1 == k {
				for j, co := range cs {
					row[j] = uint32(lo[co])
				}
				continue
			}
			hi := b[ks[2*q+1]:]
			for j, co := range cs {
				row[j] = uint32(lo[co]) | uint32(hi[co])<<16
			}
		}
	}
}

func widenBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// packABF16 is packA reading bfloat16 bits.
func packABF16(dst []float32, a []uint16, rows, ks []int, mr int, unit bool) {
	k := len(ks)
	for i0 := 0; i0 < len(rows); i0 += mr {
		pan := dst[(i0/mr)*mr*k : (i0/mr+1)*mr*k]
		mm := min(mr, len(rows)-i0)
		if unit && mm == 14 && k > 0 {
			packA14BF16(pan, a, rows[i0:i0+14], ks[0], k)
			continue
		}
		if mm < mr {
			clear(pan)
		}
		for i := 0; i < mm; i++ {
			ro := rows[i0+i]
			for p, ko := range ks {
				pan[p*mr+i] = widenBF16(a[ro+ko])
			}
		}
	}
}

func packA14BF16(pan []float32, a []uint16, rows []int, k0, k int) {
	_ = rows[13]
	r0, r1, r2, r3 := a[rows[0]+k0:][:k], a[rows[1]+k0:][:k], a[rows[2]+k0:][:k], a[rows[3]+k0:][:k]
	r4, r5, r6, r7 := a[rows[4]+k0:][:k], a[rows[5]+k0:][:k], a[rows[6]+k0:][:k], a[rows[7]+k0:][:k]
	r8, r9, r10, r11 := a[rows[8]+k0:][:k], a[rows[9]+k0:][:k], a[rows[10]+k0:][:k], a[rows[11]+k0:][:k]
	r12, r13 := a[rows[12]+k0:][:k], a[rows[13]+k0:][:k]
	pan = pan[:14*k]
	for p := range r0 {
		d := (*[14]float32)(pan[14*p:])
		d[0], d[1], d[2], d[3] = widenBF16(r0[p]), widenBF16(r1[p]), widenBF16(r2[p]), widenBF16(r3[p])
		d[4], d[5], d[6], d[7] = widenBF16(r4[p]), widenBF16(r5[p]), widenBF16(r6[p]), widenBF16(r7[p])
		d[8], d[9], d[10], d[11] = widenBF16(r8[p]), widenBF16(r9[p]), widenBF16(r10[p]), widenBF16(r11[p])
		d[12], d[13] = widenBF16(r12[p]), widenBF16(r13[p])
	}
}

// packBBF16 is packB reading bfloat16 bits.
func packBBF16(dst []float32, b []uint16, ks, cols []int, nr int, unit bool) {
	k := len(ks)
	for j0 := 0; j0 < len(cols); j0 += nr {
		pan := dst[(j0/nr)*nr*k : (j0/nr+1)*nr*k]
		nn := min(nr, len(cols)-j0)
		cs := cols[j0 : j0+nn]
		if nn < nr {
			clear(pan)
		}
		for p, ko := range ks {
			row := pan[p*nr : p*nr+nn]
			if unit {
				widenRowBF16(row, b[ko+cs[0]:][:len(row)])
				continue
			}
			for j, co := range cs {
				row[j] = widenBF16(b[ko+co])
			}
		}
	}
}

// widenRowBF16 widens len(dst) bf16 values; widenRowBF16Asm replaces it
// where the CPU has AVX-512.
var widenRowBF16 = func(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for j, h := range src {
		dst[j] = widenBF16(h)
	}
}

// thinGemm handles products with at most two rows or columns directly, each
// output element summed over k in ascending order.
func thinGemm[T float32 | float64](p *gemmPlan, a, b, c []T, par parallelFn) {
	rows := p.batch * p.m
	work := func(lo, hi int) {
		for r := lo; r < hi; r++ {
			bi, i := r/p.m, r%p.m
			ao := p.lhsBatch[bi] + p.lhsRow[i]
			bo := p.rhsBatch[bi]
			out := c[r*p.n : (r+1)*p.n]
			if p.n <= 2 {
				for j := range out {
					bj := bo + p.rhsCol[j]
					var s T
					for kk, lk := range p.lhsK {
						s += a[ao+lk] * b[bj+p.rhsK[kk]]
					}
					out[j] = s
				}
				continue
			}
			// Few rows, many columns: stream rows of B (axpy form).
			clear(out)
			for kk, lk := range p.lhsK {
				f := a[ao+lk]
				bk := bo + p.rhsK[kk]
				for j, cj := range p.rhsCol {
					out[j] += f * b[bk+cj]
				}
			}
		}
	}
	grain := 1 + (1<<16)/(1+p.n*p.k)
	if rows <= grain {
		work(0, rows)
		return
	}
	par(rows, grain, work)
}
