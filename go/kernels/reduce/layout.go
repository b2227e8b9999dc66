package reduce

// layout splits an operand's dims into kept dims (in result order) and
// reduced dims, dropping size-1 dims and merging neighbours of the same kind,
// so kernels see the fewest, longest dims. Strides are input element strides.
type layout struct {
	kShape, kStride []int
	rShape, rStride []int
	kn, rn          int
	innerReduced    bool // the input's innermost (stride-1) dim is reduced
}

func newLayout(shape []int64, reduced []bool) layout {
	var l layout
	l.kn, l.rn = 1, 1
	stride := 1
	type dim struct {
		size, stride int
		red          bool
	}
	var rev []dim // innermost first
	for i := len(shape) - 1; i >= 0; i-- {
		n := int(shape[i])
		if reduced[i] {
			l.rn *= n
		} else {
			l.kn *= n
		}
		if n != 1 {
			if k := len(rev) - 1; k >= 0 && rev[k].red == reduced[i] && rev[k].stride*rev[k].size == stride {
				rev[k].size *= n
			} else {
				rev = append(rev, dim{n, stride, reduced[i]})
			}
		}
		stride *= n
	}
	for i := len(rev) - 1; i >= 0; i-- {
		d := rev[i]
		if d.red {
			l.rShape = append(l.rShape, d.size)
			l.rStride = append(l.rStride, d.stride)
		} else {
			l.kShape = append(l.kShape, d.size)
			l.kStride = append(l.kStride, d.stride)
		}
	}
	l.innerReduced = len(rev) == 0 || rev[0].red
	if len(l.rShape) == 0 {
		l.rShape, l.rStride = []int{1}, []int{1}
	}
	if len(l.kShape) == 0 {
		l.kShape, l.kStride = []int{1}, []int{1}
	}
	return l
}

// offset maps a linear index over shape to an element offset.
func offset(i int, shape, stride []int) int {
	off := 0
	for d := len(shape) - 1; d >= 0; d-- {
		n := shape[d]
		off += (i % n) * stride[d]
		i /= n
	}
	return off
}
