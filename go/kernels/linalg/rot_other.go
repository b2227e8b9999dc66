//go:build !amd64 || purego

package linalg

// rot applies the plane rotation x, y := c·x − s·y, s·x + c·y to two
// equally long rows.
func rot(x, y []float64, c, s float64) { rotGo(x, y, c, s) }

// gemvRows sets y[r] = a[r*lda:][:len(v)]·v for r < len(y).
func gemvRows(a []float64, lda int, v, y []float64) {
	n := len(v)
	for r := range y {
		y[r] = dotGo(a[r*lda:r*lda+n], v)
	}
}

// gemvRows2 is gemvRows against two vectors in one pass over a.
func gemvRows2(a []float64, lda int, v, w, y, z []float64) {
	n := len(v)
	for r := range y {
		y[r] = dotGo(a[r*lda:r*lda+n], v)
		z[r] = dotGo(a[r*lda:r*lda+n], w)
	}
}

// rotStrips applies rots in order to columns [c0, c1) of the rows of zt.
func rotStrips[R float32 | float64](rots []planeRot, zt []R, ldz, c0, c1, maxRow int) {
	rotStripsGo(rots, zt, ldz, c0, c1)
}

// axpyF32 adds a·x to y (len(y) <= len(x)).
func axpyF32(y, x []float32, a float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

// axpy2F64 adds a·x to p and b·x to q (len(q) = len(p) <= len(x)).
func axpy2F64(p, q, x []float64, a, b float64) {
	x, q = x[:len(p)], q[:len(p)]
	for i := range p {
		p[i] += a * x[i]
		q[i] += b * x[i]
	}
}

// axpy4x2F64 adds Σₖ c[k]·xₖ to p and Σₖ c[4+k]·xₖ to q for the four rows
// xₖ = x[k·ldx:] (len(q) = len(p), each row at least len(p) long).
func axpy4x2F64(p, q, x []float64, ldx int, c *[8]float64) {
	n := len(p)
	q = q[:n]
	_ = x[3*ldx+n-1]
	for i := range p {
		x0, x1, x2, x3 := x[i], x[ldx+i], x[2*ldx+i], x[3*ldx+i]
		p[i] += c[0]*x0 + c[1]*x1 + c[2]*x2 + c[3]*x3
		q[i] += c[4]*x0 + c[5]*x1 + c[6]*x2 + c[7]*x3
	}
}

// gemvRows2F32 is gemvRows2 in float32.
func gemvRows2F32(a []float32, lda int, v, w, y, z []float32) {
	n := len(v)
	for r := range y {
		var s, u float32
		for c, x := range a[r*lda : r*lda+n] {
			s += x * v[c]
			u += x * w[c]
		}
		y[r], z[r] = s, u
	}
}
