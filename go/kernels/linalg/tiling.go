package linalg

import "sync"

// Output tiling: how gemmSrc splits C into (batch, row range, column range)
// tiles, one worker each. The worker pool hands each worker one contiguous
// run of ceil(tiles/workers) tiles, so the slowest run sets the time: a
// 784-column product split into 512+272 columns leaves one of two workers
// idle a third of the time, and 256 rows split 140+116 (whole 14-row
// micro-tiles) likewise. chooseTiling therefore tries the splits with a
// few tiles per worker and keeps the one whose slowest run is cheapest,
// counting padded micro-tiles and packing.

// packCost is the cost of packing one element in flops of kernel time (the
// kernel does ~64 flops a cycle, packing a few elements; measured shares
// of the MLP GEMM profiles put it near 30).
const packCost = 32

type gemmTiling struct {
	mtile, ncb     int // rows and columns per tile (the last may be short)
	tilesM, tilesN int
}

type tilingKey struct{ batch, m, n, k, mr, nr, workers int }

// tilings caches chooseTiling: with many workers the search below costs
// tens of microseconds, more than a small GEMM.
var tilings sync.Map // tilingKey → gemmTiling

// chooseTiling picks the tiling of p for micro-tiles mr×nr and the given
// worker count: columns at most ncBlock per tile, rows in whole micro-tiles.
func chooseTiling(p *gemmPlan, mr, nr, workers int) gemmTiling {
	key := tilingKey{p.batch, p.m, p.n, p.k, mr, nr, workers}
	if t, ok := tilings.Load(key); ok {
		return t.(gemmTiling)
	}
	t := searchTiling(p, mr, nr, workers)
	tilings.Store(key, t)
	return t
}

func searchTiling(p *gemmPlan, mr, nr, workers int) gemmTiling {
	minN := ceilDiv(p.n, ncBlock)
	ncb := roundUp(ceilDiv(p.n, minN), nr) // even column blocks
	single := gemmTiling{mtile: roundUp(p.m, mr), ncb: ncb, tilesM: 1, tilesN: ceilDiv(p.n, ncb)}
	if workers <= 1 || p.batch*minN >= 4*workers {
		return single // enough tiles already
	}
	best, bestCost, bestT := single, -1, 0
	maxT := 4 * workers
	for tn := minN; p.batch*tn <= maxT && tn <= ceilDiv(p.n, nr); tn++ {
		ncb := roundUp(ceilDiv(p.n, tn), nr)
		if ceilDiv(p.n, ncb) != tn {
			continue // same as a smaller tn
		}
		for tm := 1; p.batch*tn*tm <= maxT && tm <= ceilDiv(p.m, mr); tm++ {
			mtile := roundUp(ceilDiv(p.m, tm), mr)
			if ceilDiv(p.m, mtile) != tm {
				continue
			}
			t := gemmTiling{mtile: mtile, ncb: ncb, tilesM: tm, tilesN: tn}
			c := t.makespan(p, mr, nr, workers)
			T := p.batch * tm * tn
			if bestCost < 0 || c < bestCost || c == bestCost && T < bestT {
				best, bestCost, bestT = t, c, T
			}
		}
	}
	return best
}

// makespan estimates the cost of the slowest worker's run of tiles, in the
// order gemmSrc walks them (row tiles innermost, so with one K block a
// worker packs each column block's B once).
func (t gemmTiling) makespan(p *gemmPlan, mr, nr, workers int) int {
	total := p.batch * t.tilesM * t.tilesN
	size := ceilDiv(total, min(workers, ceilDiv(total, tileGrain(p, total))))
	oneK := p.k <= kcBlock
	worst := 0
	for lo := 0; lo < total; lo += size {
		cost, packed := 0, -1
		for r := lo; r < min(lo+size, total); r++ {
			key := r / t.tilesM // (batch, column block)
			jt, it := key%t.tilesN, r%t.tilesM
			mm := roundUp(min(t.mtile, p.m-it*t.mtile), mr)
			nn := roundUp(min(t.ncb, p.n-jt*t.ncb), nr)
			cost += 2*mm*nn + packCost*mm
			if !oneK || key != packed {
				cost += packCost * nn
				packed = key
			}
		}
		worst = max(worst, cost)
	}
	return worst // per unit of k
}

// tileGrain is how many tiles one goroutine takes at least: enough to be
// worth ~1 MFLOP.
func tileGrain(p *gemmPlan, tiles int) int {
	perTile := p.flops() / float64(tiles)
	if perTile < 1e6 {
		return int(1e6/perTile) + 1
	}
	return 1
}
