package linalg

// Packed, cache-blocked GEMM for f32 and f64 (the dot_general hot path).
//
// Operands are addressed through offset tables rather than strides: for each
// batch index, row (lhs free index), column (rhs free index) and contracting
// index the plan stores the element offset into its operand. Any placement of
// batch/contracting/free dimensions, transposed operands included, is handled
// while packing, so nothing is transposed in memory.
//
// The output is split into tiles (batch × rows × columns, sized from the
// problem shape alone) computed by one worker each, walking K in the same
// kcBlock order, so every output element sees the same reduction order
// however many workers run.

const (
	kcBlock  = 256 // contracting depth per packed panel (B micro-panel stays in L1)
	mcBlock  = 128 // rows of A packed at once (L2-sized)
	ncBlock  = 512 // columns of B packed at once
	minTiles = 32  // output tiles wanted before shrinking them further
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
	mr, nr int
	fn     func(kc int, a, b, c []T, ldc int, acc bool)
}

var (
	ukF32 = microKernel[float32]{mr: 4, nr: 4, fn: kern4x4F32}
	ukF64 = microKernel[float64]{mr: 4, nr: 4, fn: kern4x4F64}
)

// parallelFn is kernel.Context.Parallel.
type parallelFn func(n, grain int, fn func(lo, hi int))

// gemm runs the plan on typed operand views. c must hold batch*m*n elements.
func gemm[T float32 | float64](p *gemmPlan, uk microKernel[T], a, b, c []T, par parallelFn, pool func(n int) *buf[T]) {
	if p.batch == 0 || p.m == 0 || p.n == 0 {
		return
	}
	if p.k == 0 {
		clear(c[:p.batch*p.m*p.n])
		return
	}
	if p.n <= 2 || p.m <= 2 {
		// Matrix-vector shapes: packing into micro-tiles would mostly pad.
		thinGemm(p, a, b, c, par)
		return
	}
	// Smaller tiles for small problems, so that enough of them exist to
	// keep the workers busy. Tile sizes never change an element's
	// reduction order (that is fixed by kcBlock alone).
	mcb, ncb := mcBlock, ncBlock
	for p.batch*ceilDiv(p.m, mcb)*ceilDiv(p.n, ncb) < minTiles && (mcb > 32 || ncb > 64) {
		if ncb > 64 && (ncb >= 2*mcb || mcb <= 32) {
			ncb /= 2
		} else {
			mcb /= 2
		}
	}
	tilesM := ceilDiv(p.m, mcb)
	tilesN := ceilDiv(p.n, ncb)
	total := p.batch * tilesM * tilesN
	// Grain: enough tiles per goroutine to be worth ~1 MFLOP.
	perTile := p.flops() / float64(total)
	grain := 1
	if perTile < 1e6 {
		grain = int(1e6/perTile) + 1
	}
	mr, nr := uk.mr, uk.nr
	// Packed panels are padded to whole micro-tiles.
	kc := min(kcBlock, p.k)
	mc := roundUp(min(mcb, p.m), mr)
	nc := roundUp(min(ncb, p.n), nr)
	work := func(lo, hi int) {
		abuf := pool(mc*kc + nc*kc + mr*nr)
		defer abuf.release()
		ap := abuf.s[:mc*kc]
		bp := abuf.s[mc*kc : mc*kc+nc*kc]
		tmp := abuf.s[mc*kc+nc*kc:]
		for t := lo; t < hi; t++ {
			bi := t / (tilesM * tilesN)
			r := t % (tilesM * tilesN)
			i0 := (r / tilesN) * mcb
			j0 := (r % tilesN) * ncb
			m := min(mcb, p.m-i0)
			n := min(ncb, p.n-j0)
			cb := c[bi*p.m*p.n:]
			for p0 := 0; p0 < p.k; p0 += kcBlock {
				k := min(kcBlock, p.k-p0)
				packA(ap, a[p.lhsBatch[bi]:], p.lhsRow[i0:i0+m], p.lhsK[p0:p0+k], mr, p.lhsKUnit)
				packB(bp, b[p.rhsBatch[bi]:], p.rhsK[p0:p0+k], p.rhsCol[j0:j0+n], nr, p.rhsColUnit)
				acc := p0 > 0
				for jr := 0; jr < n; jr += nr {
					bpan := bp[(jr/nr)*nr*k:]
					nn := min(nr, n-jr)
					for ir := 0; ir < m; ir += mr {
						apan := ap[(ir/mr)*mr*k:]
						mm := min(mr, m-ir)
						off := (i0+ir)*p.n + j0 + jr
						if mm == mr && nn == nr {
							uk.fn(k, apan, bpan, cb[off:], p.n, acc)
							continue
						}
						uk.fn(k, apan, bpan, tmp, nr, false)
						for i := 0; i < mm; i++ {
							row := cb[off+i*p.n : off+i*p.n+nn]
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
		}
	}
	if total <= grain {
		work(0, total)
		return
	}
	par(total, grain, work)
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// packA packs rows×ks of A into mr-row panels, k-major within a panel,
// zero-padding the last panel. unit says ks is a unit-stride run.
func packA[T float32 | float64](dst, a []T, rows, ks []int, mr int, unit bool) {
	k := len(ks)
	for i0 := 0; i0 < len(rows); i0 += mr {
		pan := dst[(i0/mr)*mr*k : (i0/mr+1)*mr*k]
		mm := min(mr, len(rows)-i0)
		if mm < mr {
			clear(pan)
		}
		for i := 0; i < mm; i++ {
			ro := rows[i0+i]
			if unit && k > 0 {
				src := a[ro+ks[0] : ro+ks[0]+k]
				for p, v := range src {
					pan[p*mr+i] = v
				}
				continue
			}
			for p, ko := range ks {
				pan[p*mr+i] = a[ro+ko]
			}
		}
	}
}

// packB packs ks×cols of B into nr-column panels, k-major within a panel,
// zero-padding the last panel. unit says cols is a unit-stride run.
func packB[T float32 | float64](dst, b []T, ks, cols []int, nr int, unit bool) {
	k := len(ks)
	for j0 := 0; j0 < len(cols); j0 += nr {
		pan := dst[(j0/nr)*nr*k : (j0/nr+1)*nr*k]
		nn := min(nr, len(cols)-j0)
		if nn < nr {
			clear(pan)
		}
		cs := cols[j0 : j0+nn]
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
