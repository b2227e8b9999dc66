//go:build amd64 && !purego

package linalg

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func rotAVX2(x, y *float64, n int, c, s float64)

// rot applies the plane rotation x, y := c·x − s·y, s·x + c·y to two
// equally long rows.
func rot(x, y []float64, c, s float64) {
	y = y[:len(x)]
	if cpufeat.AVX2FMA && len(x) >= 4 {
		rotAVX2(&x[0], &y[0], len(x), c, s)
		return
	}
	rotGo(x, y, c, s)
}

//go:noescape
func dot4AVX2(a *float64, lda int, v *float64, n int, y *[4]float64)

// gemvRows sets y[r] = a[r*lda:][:len(v)]·v for r < len(y).
func gemvRows(a []float64, lda int, v, y []float64) {
	n := len(v)
	r := 0
	if cpufeat.AVX2FMA && n > 0 {
		for ; r+4 <= len(y); r += 4 {
			_ = a[(r+3)*lda+n-1]
			dot4AVX2(&a[r*lda], lda, &v[0], n, (*[4]float64)(y[r:]))
		}
	}
	for ; r < len(y); r++ {
		y[r] = dotGo(a[r*lda:r*lda+n], v)
	}
}

//go:noescape
func dot4x2AVX2(a *float64, lda int, v, w *float64, n int, y *[8]float64)

// gemvRows2 is gemvRows against two vectors in one pass over a:
// y[r] = a[r*lda:][:len(v)]·v and z[r] = ·w (len(z) = len(y)).
func gemvRows2(a []float64, lda int, v, w, y, z []float64) {
	n := len(v)
	w = w[:n]
	z = z[:len(y)]
	r := 0
	if cpufeat.AVX2FMA && n > 0 {
		var t [8]float64
		for ; r+4 <= len(y); r += 4 {
			_ = a[(r+3)*lda+n-1]
			dot4x2AVX2(&a[r*lda], lda, &v[0], &w[0], n, &t)
			copy(y[r:r+4], t[:4])
			copy(z[r:r+4], t[4:])
		}
	}
	for ; r < len(y); r++ {
		y[r] = dotGo(a[r*lda:r*lda+n], v)
		z[r] = dotGo(a[r*lda:r*lda+n], w)
	}
}

//go:noescape
func rotStrip32AVX512(rots *planeRot, nrot int, z *float64, ldz int)

//go:noescape
func rotStrip16AVX2(rots *planeRot, nrot int, z *float64, ldz int)

//go:noescape
func rotStrip64F32AVX512(rots *planeRot, nrot int, z *float32, ldz int)

//go:noescape
func rotStrip32F32AVX2(rots *planeRot, nrot int, z *float32, ldz int)

// rotStrips applies rots in order to columns [c0, c1) of the rows of zt
// (row r at zt[r*ldz:]), in strips of 32 (AVX-512) or 16 (AVX2) float64
// columns, or twice as many float32 ones, the rest in Go; maxRow is the
// largest row a rotation touches.
func rotStrips[R float32 | float64](rots []planeRot, zt []R, ldz, c0, c1, maxRow int) {
	if len(rots) > 0 && c1 > c0 {
		_ = zt[maxRow*ldz+c1-1]
		if z32, ok := any(zt).([]float32); ok {
			if cpufeat.AVX512 {
				for ; c0+64 <= c1; c0 += 64 {
					rotStrip64F32AVX512(&rots[0], len(rots), &z32[c0], ldz)
				}
			}
			if cpufeat.AVX2FMA {
				for ; c0+32 <= c1; c0 += 32 {
					rotStrip32F32AVX2(&rots[0], len(rots), &z32[c0], ldz)
				}
			}
		} else {
			z64 := any(zt).([]float64)
			if cpufeat.AVX512 {
				for ; c0+32 <= c1; c0 += 32 {
					rotStrip32AVX512(&rots[0], len(rots), &z64[c0], ldz)
				}
			}
			if cpufeat.AVX2FMA {
				for ; c0+16 <= c1; c0 += 16 {
					rotStrip16AVX2(&rots[0], len(rots), &z64[c0], ldz)
				}
			}
		}
	}
	rotStripsGo(rots, zt, ldz, c0, c1)
}

//go:noescape
func axpyF32AVX2(y, x *float32, n int, a float32)

// axpyF32 adds a·x to y (len(y) <= len(x)), with one rounding per
// element where the vector kernel runs.
func axpyF32(y, x []float32, a float32) {
	x = x[:len(y)]
	i := 0
	if cpufeat.AVX2FMA && len(y) >= 32 {
		i = len(y) &^ 31
		axpyF32AVX2(&y[0], &x[0], i, a)
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

//go:noescape
func axpy2F64AVX2(p, q, x *float64, n int, a, b float64)

//go:noescape
func axpy4x2F64AVX2(p, q, x *float64, ldx, n int, c *[8]float64)

// axpy4x2F64 adds Σₖ c[k]·xₖ to p and Σₖ c[4+k]·xₖ to q for the four rows
// xₖ = x[k·ldx:] (len(q) = len(p), each row at least len(p) long): p and
// q pass through memory once for four rows instead of four times.
func axpy4x2F64(p, q, x []float64, ldx int, c *[8]float64) {
	n := len(p)
	q = q[:n]
	_ = x[3*ldx+n-1]
	i := 0
	if cpufeat.AVX2FMA && n >= 4 {
		i = n &^ 3
		axpy4x2F64AVX2(&p[0], &q[0], &x[0], ldx, i, c)
	}
	for ; i < n; i++ {
		x0, x1, x2, x3 := x[i], x[ldx+i], x[2*ldx+i], x[3*ldx+i]
		p[i] += c[0]*x0 + c[1]*x1 + c[2]*x2 + c[3]*x3
		q[i] += c[4]*x0 + c[5]*x1 + c[6]*x2 + c[7]*x3
	}
}

// axpy2F64 adds a·x to p and b·x to q (len(q) = len(p) <= len(x)), with
// one rounding per element where the vector kernel runs.
func axpy2F64(p, q, x []float64, a, b float64) {
	x, q = x[:len(p)], q[:len(p)]
	i := 0
	if cpufeat.AVX2FMA && len(p) >= 8 {
		i = len(p) &^ 7
		axpy2F64AVX2(&p[0], &q[0], &x[0], i, a, b)
	}
	for ; i < len(p); i++ {
		p[i] += a * x[i]
		q[i] += b * x[i]
	}
}

//go:noescape
func dot4x2F32AVX2(a *float32, lda int, v, w *float32, n int, y *[64]float32)

// gemvRows2F32 is gemvRows2 in float32: y[r] = a[r*lda:][:len(v)]·v and
// z[r] = ·w, float32 sums (eight lanes, then the tail).
func gemvRows2F32(a []float32, lda int, v, w, y, z []float32) {
	n := len(v)
	w = w[:n]
	z = z[:len(y)]
	r := 0
	if n8 := n &^ 7; cpufeat.AVX2FMA && n8 > 0 {
		var t [64]float32
		for ; r+4 <= len(y); r += 4 {
			_ = a[(r+3)*lda+n-1]
			dot4x2F32AVX2(&a[r*lda], lda, &v[0], &w[0], n8, &t)
			for q := 0; q < 4; q++ {
				row := a[(r+q)*lda : (r+q)*lda+n]
				var s, u float32
				for l := 0; l < 8; l++ {
					s += t[8*q+l]
					u += t[32+8*q+l]
				}
				for c := n8; c < n; c++ {
					s += row[c] * v[c]
					u += row[c] * w[c]
				}
				y[r+q], z[r+q] = s, u
			}
		}
	}
	for ; r < len(y); r++ {
		var s, u float32
		for c, x := range a[r*lda : r*lda+n] {
			s += x * v[c]
			u += x * w[c]
		}
		y[r], z[r] = s, u
	}
}
