package linalg

import (
	"math"
	"sort"
)

// The symmetric tridiagonal eigenproblem by implicit QL iteration with
// Wilkinson shifts. Eigenvalues converge on the scalar diagonal; the plane
// rotations of each sweep are buffered and applied to the eigenvector rows
// in batches, the columns of those rows split over the workers, with a
// vectorized row rotation (rot_amd64.s).

// planeRot is one rotation of rows i and i+1.
type planeRot struct {
	i    int
	c, s float64
}

// rotBatch is how many rotations are buffered before they are applied.
const rotBatch = 4096

// rotGo is the plain-Go row rotation: x, y := c·x − s·y, s·x + c·y.
func rotGo(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for k, xv := range x {
		yv := y[k]
		x[k] = c*xv - s*yv
		y[k] = s*xv + c*yv
	}
}

// rotStripsGo is rotStrips in plain Go, one rotation over the whole
// column range at a time.
func rotStripsGo[R float32 | float64](rots []planeRot, zt []R, ldz, c0, c1 int) {
	if c0 >= c1 {
		return
	}
	for _, r := range rots {
		x, y := zt[r.i*ldz+c0:r.i*ldz+c1], zt[(r.i+1)*ldz+c0:(r.i+1)*ldz+c1]
		y = y[:len(x)]
		c, s := R(r.c), R(r.s)
		for k, xv := range x {
			yv := y[k]
			x[k] = c*xv - s*yv
			y[k] = s*xv + c*yv
		}
	}
}

// applyRots applies rots in order to the rows of zt (row r at
// zt[r*ldz:][:w]), ranges of columns in parallel.
func applyRots[R float32 | float64](par parallelFn, rots []planeRot, zt []R, ldz, w int) {
	if len(rots) == 0 || w == 0 {
		return
	}
	maxRow := 0
	for _, r := range rots {
		maxRow = max(maxRow, r.i+1)
	}
	const cw = 64
	chunks := ceilDiv(w, cw)
	run := func(lo, hi int) {
		rotStrips(rots, zt, ldz, lo*cw, min(w, hi*cw), maxRow)
	}
	if chunks == 1 || len(rots)*w < 1<<15 {
		run(0, chunks)
		return
	}
	par(chunks, 1, run)
}

// tqlRot computes the eigenvalues of the symmetric tridiagonal matrix with
// diagonal d (n) and off-diagonal e (e[i] couples i and i+1; len(e) >= n,
// e[n-1] is scratch), overwriting d with them (unsorted), and applies every
// rotation to the rows of zt, so that rows that held Qᵀ end up holding the
// eigenvectors of Q·T·Qᵀ (row r for eigenvalue d[r]). It reports false
// when an eigenvalue did not converge in 30 iterations.
func tqlRot[R float32 | float64](par parallelFn, n int, d, e []float64, zt []R, ldz, w int) bool {
	if n <= 1 {
		return true
	}
	e[n-1] = 0
	// Scale entries to about 1 so that nothing overflows or underflows
	// (a power of two: exact, undone at the end).
	anorm := 0.0
	for i := 0; i < n; i++ {
		anorm = max(anorm, math.Abs(d[i]), math.Abs(e[i]))
	}
	if anorm == 0 {
		return true
	}
	if math.IsNaN(anorm) || math.IsInf(anorm, 0) {
		return false
	}
	_, ex := math.Frexp(anorm)
	scale := math.Ldexp(1, -ex)
	for i := 0; i < n; i++ {
		d[i] *= scale
		e[i] *= scale
	}
	rots := make([]planeRot, 0, rotBatch)
	flush := func() {
		applyRots(par, rots, zt, ldz, w)
		rots = rots[:0]
	}
	const eps = dlamchE
	ok := true
	for l := 0; l < n && ok; l++ {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				dd := math.Abs(d[m]) + math.Abs(d[m+1])
				if math.Abs(e[m]) <= eps*dd || math.Abs(e[m]) < dlamchS {
					e[m] = 0
					break
				}
			}
			if m == l {
				break
			}
			if iter == 30 {
				ok = false
				break
			}
			// Wilkinson shift from the leading 2×2 block.
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			underflow := false
			for i := m - 1; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				r = hypot(f, g)
				e[i+1] = r
				if r == 0 {
					// Underflow: deflate and restart the sweep.
					d[i+1] -= p
					e[m] = 0
					underflow = true
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				rots = append(rots, planeRot{i, c, s})
				if len(rots) == cap(rots) {
					flush()
				}
			}
			if underflow {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	flush()
	for i := 0; i < n; i++ {
		d[i] /= scale
	}
	return ok
}

// hypot is √(x²+y²): the plain formula where neither square can overflow
// nor lose the result to underflow (the QL sweeps call it once per
// rotation; math.Hypot's scaling costs more than the sweep's arithmetic),
// math.Hypot elsewhere.
func hypot(x, y float64) float64 {
	big := max(math.Abs(x), math.Abs(y))
	if big > 0x1p-400 && big < 0x1p400 {
		return math.Sqrt(x*x + y*y)
	}
	return math.Hypot(x, y)
}

// ascending returns the permutation that sorts d ascending (stable).
func ascending(d []float64) []int {
	perm := make([]int, len(d))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return d[perm[a]] < d[perm[b]] })
	return perm
}

// dotGo is x·y with four partial sums.
func dotGo(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(x); k += 4 {
		s0 += x[k] * y[k]
		s1 += x[k+1] * y[k+1]
		s2 += x[k+2] * y[k+2]
		s3 += x[k+3] * y[k+3]
	}
	for ; k < len(x); k++ {
		s0 += x[k] * y[k]
	}
	return (s0 + s1) + (s2 + s3)
}
