package linalg

import (
	"slices"
	"unsafe"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// stablehlo.convolution runs as im2col + GEMM for every configuration: the
// im2col gather applies padding, base (lhs) and window (rhs) dilation,
// strides and window reversal exactly as the spec's per-element definition
// does, so no configuration needs a separate slow path. Feature and batch
// groups become one GEMM per group over the corresponding slices. For f32
// and f64 compute, faster plans take the shapes they fit: the implicit
// im2col below (one group), a stencil for depthwise convolutions and
// their weight gradients (conv_depthwise.go), and per-phase GEMMs for
// base-dilated ones (conv_phase.go).

func init() {
	kernel.RegisterOp("stablehlo.convolution", lowerConvolution, kernel.Traits{Cost: convCost})
}

// convCost: two flops per multiply-add, counting only the kernel taps that
// meet an input element (not padding, not a hole of the base dilation), as
// XLA's cost analysis does; which taps do is decided per spatial
// dimension, so the count is a product of per-dimension counts.
func convCost(op *ir.Op) kernel.Work {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return kernel.Work{}
	}
	lt, rt, ot := op.Operands[0].StaticTensor(), op.Operands[1].StaticTensor(), op.Results[0].StaticTensor()
	if lt == nil || rt == nil || ot == nil {
		return kernel.Work{}
	}
	cd, err := readConvDims(op)
	if err != nil || cd.fgc < 1 || cd.bgc < 1 || len(cd.kSp) != len(cd.inSp) || len(cd.outSp) != len(cd.inSp) {
		return kernel.Work{}
	}
	macs := lt.Shape[cd.inFeat] / cd.fgc * ot.Shape[cd.outFeat] * (lt.Shape[cd.inBatch] / cd.bgc)
	for d := range cd.inSp {
		in, k, o := lt.Shape[cd.inSp[d]], rt.Shape[cd.kSp[d]], ot.Shape[cd.outSp[d]]
		valid := int64(0)
		for ki := int64(0); ki < k; ki++ {
			for oi := int64(0); oi < o; oi++ {
				pos := oi*cd.strides[d] - cd.pad[2*d] + ki*cd.rhsDil[d]
				if pos >= 0 && pos%cd.lhsDil[d] == 0 && pos/cd.lhsDil[d] < in {
					valid++
				}
			}
		}
		macs *= valid
	}
	return kernel.Work{Flops: 2 * macs}
}

// convPlan is everything the step needs, resolved at compile time.
type convPlan struct {
	groups int
	// GEMM per group: rows = output batch × output spatial positions,
	// cols (K) = input features per group × kernel spatial positions,
	// N = output features per group.
	m, k, n int
	ks      int // kernel spatial positions
	kin     int // input features per group

	// im2col gather.
	rowBatch    []int   // per row: output batch index
	rowSpatial  []int   // per row: index into spatialTab (output spatial position)
	spatialTab  [][]int // per output spatial position: per kernel position, lhs spatial offset or -1
	lhsBatchStr int
	lhsFeatStr  int
	batchGroup  bool // true: group g reads input batches g*outBatch+b; false: feature groups
	outBatch    int

	rhs *gemmPlan // per-group template; rhsCol shifted by group at run time

	outRow     []int // per row: output offset of (batch, spatial)
	outCol     []int // per output feature within group (unshifted)
	outFeatStr int

	fast   *convFast   // f32/f64 implicit-im2col path, nil when it does not apply
	depth  *convDepth  // f32/f64 depthwise stencil, nil when it does not apply
	phases *convPhases // f32/f64 base-dilated convolution split by output phase, or nil
	bgVec  *convBGVec  // f32/f64 batch-grouped, one feature per group (depthwise weight gradient), or nil
}

// convFast runs a single-group convolution whose output rows are whole
// contiguous rows of n features (NHWC-like outputs, and HWIO weight
// gradients) as one GEMM whose lhs is gathered while packing (implicit
// im2col: no im2col buffer, no product buffer, no scatter). GEMM rows are
// numbered in output-memory order, so the GEMM writes the output in place.
type convFast struct {
	g        gemmPlan
	rowBase  []int   // per GEMM row: lhs offset of its batch
	rowTab   [][]int // per GEMM row: spatialTab entry of its output position
	posMajor bool    // K ordered (kernel position, input feature): feature runs are contiguous
	kin, ks  int
	featStr  int
	// unitRun[i]: how many GEMM rows from i on share row i's spatial table
	// with lhs offsets rising by one (weight gradients: consecutive input
	// channels); a 14-row panel of such rows is 14 contiguous elements per
	// contracting index and is packed without a transpose.
	unitRun []int32
	// conts[contIdx[i]]: bit pos set when, for GEMM row i, kernel
	// position pos+1 reads the kin input elements right after those
	// position pos reads (or both read padding). Nil unless posMajor with
	// at most contMax positions.
	conts   [][contWords]uint64
	contIdx []int32
	// rowOrig[i] >= 0: GEMM row i reads no padding and its lhs offset at
	// kernel position pos is rowOrig[i]+delta[pos] (interior rows; saves
	// reading its spatial table, which for large outputs outweighs the
	// input). -1 otherwise.
	rowOrig []int
	delta   []int
	// One input feature: lineRun[i] counts the GEMM rows from i on whose
	// window origins (rowV, where padding rows would read) rise by one,
	// so at each kernel position 14 such rows read 14 consecutive
	// elements. Nil unless kin is 1.
	rowV    []int
	lineRun []int32
}

// contWords bounds the kernel positions whose runs the pack merges.
const (
	contWords = 4
	contMax   = 64 * contWords
)

// convDims are the convolution's dimension numbers and window. The verifier
// has checked the dimension numbers (in range, each a permutation), the
// group counts and how they divide the features and batch, and the ranks,
// both for stablehlo.convolution and for dynamic_conv, which lowers through
// this kernel once its padding operand is known (sized from that operand's
// shape). It does not check dynamic_conv's strides, dilations and reversal,
// nor a result shape that depends on run-time padding: those are checked
// here.
type convDims struct {
	inBatch, inFeat, kIn, kOut, outBatch, outFeat int64
	inSp, kSp, outSp                              []int64
	strides, lhsDil, rhsDil                       []int64
	pad                                           []int64 // low, high per spatial dimension
	rev                                           []bool
	fgc, bgc                                      int64
}

func lowerConvolution(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	lt, rt, ot := op.Operands[0].Tensor(), op.Operands[1].Tensor(), op.Results[0].Tensor()
	cd, err := readConvDims(op)
	if err != nil {
		return nil, err
	}
	if err := checkPrecision(op, 2); err != nil {
		return nil, err
	}
	if want := cd.resultShape(lt, rt); !ir.Tensor(ot.Elem, want...).Equal(ot) {
		return nil, op.Errorf("result type %s, want shape %v", ot, want)
	}
	kind, err := dotCompute(lt.Elem, rt.Elem, ot.Elem)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	if ot.Elem.IsComplex() != (kind == computeC64 || kind == computeC128) {
		return nil, op.Errorf("result type %s does not match operands %s, %s", ot, lt, rt)
	}
	p := newConvPlan(&cd, lt, rt, ot)
	// The special paths, most specific first; each applies to f32/f64
	// compute only, the rest runs im2col + GEMM.
	rhsGroupStr := p.n * int(rt.Strides()[cd.kOut])
	if p.depth = buildConvDepth(p, int(rt.Strides()[cd.kOut])); p.depth == nil {
		if p.phases = buildConvPhases(p, &cd, rt, ot); p.phases == nil {
			p.fast = buildConvFast(p)
		}
	}
	p.bgVec = buildConvBGVec(p, rhsGroupStr)
	return convStep(kind, p, lt.Elem, rt.Elem, ot.Elem, rhsGroupStr, ctx.Parallel), nil
}

// readConvDims reads the dimension numbers, the window and the group counts.
func readConvDims(op *ir.Op) (convDims, error) {
	var cd convDims
	var err error
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{"input_batch_dimension", &cd.inBatch}, {"input_feature_dimension", &cd.inFeat},
		{"kernel_input_feature_dimension", &cd.kIn}, {"kernel_output_feature_dimension", &cd.kOut},
		{"output_batch_dimension", &cd.outBatch}, {"output_feature_dimension", &cd.outFeat},
	} {
		if *f.dst, err = intAttr(op, f.name, 0); err != nil {
			return cd, err
		}
	}
	for _, f := range []struct {
		name string
		dst  *[]int64
	}{
		{"input_spatial_dimensions", &cd.inSp}, {"kernel_spatial_dimensions", &cd.kSp}, {"output_spatial_dimensions", &cd.outSp},
	} {
		v, ok, err := i64List(op, f.name)
		if err != nil {
			return cd, err
		}
		if !ok {
			// The verifier lets them be absent when there are no spatial
			// dimensions; gojax has always required them.
			return cd, op.Errorf("missing attribute %s", f.name)
		}
		*f.dst = v
	}
	s := len(cd.inSp)
	if cd.strides, err = positiveList(op, "window_strides", s); err != nil {
		return cd, err
	}
	if cd.lhsDil, err = positiveList(op, "lhs_dilation", s); err != nil {
		return cd, err
	}
	if cd.rhsDil, err = positiveList(op, "rhs_dilation", s); err != nil {
		return cd, err
	}
	pad, ok, err := i64List(op, "padding")
	if err != nil {
		return cd, err
	}
	if !ok || len(pad) == 0 {
		pad = make([]int64, 2*s)
	}
	cd.pad = pad
	rev, ok, err := boolList(op, "window_reversal")
	if err != nil {
		return cd, err
	}
	if !ok || len(rev) == 0 {
		rev = make([]bool, s)
	}
	if len(rev) != s {
		return cd, op.Errorf("window_reversal has %d entries, want %d", len(rev), s)
	}
	cd.rev = rev
	if cd.fgc, err = intAttr(op, "feature_group_count", 1); err != nil {
		return cd, err
	}
	if cd.bgc, err = intAttr(op, "batch_group_count", 1); err != nil {
		return cd, err
	}
	return cd, nil
}

// positiveList reads a per-spatial-dimension list of positive integers
// (strides, dilations), all ones when absent or empty.
func positiveList(op *ir.Op, name string, s int) ([]int64, error) {
	v, ok, err := i64List(op, name)
	if err != nil {
		return nil, err
	}
	if !ok || len(v) == 0 {
		v = make([]int64, s)
		for i := range v {
			v[i] = 1
		}
	}
	if len(v) != s {
		return nil, op.Errorf("%s has %d entries, want %d", name, len(v), s)
	}
	for _, x := range v {
		if x < 1 {
			return nil, op.Errorf("%s must be positive, have %v", name, v)
		}
	}
	return v, nil
}

// resultShape is the result shape the window gives for these operands.
func (cd *convDims) resultShape(lt, rt *ir.TensorType) []int64 {
	s := len(cd.inSp)
	want := make([]int64, s+2)
	want[cd.outBatch] = lt.Shape[cd.inBatch] / cd.bgc
	want[cd.outFeat] = rt.Shape[cd.kOut]
	for d := 0; d < s; d++ {
		in := lt.Shape[cd.inSp[d]]
		padded := cd.pad[2*d] + cd.pad[2*d+1]
		if in > 0 {
			padded += (in-1)*cd.lhsDil[d] + 1
		}
		win := (rt.Shape[cd.kSp[d]]-1)*cd.rhsDil[d] + 1
		if rt.Shape[cd.kSp[d]] == 0 {
			win = 0
		}
		o := int64(0)
		if padded >= win && padded > 0 {
			o = (padded-win)/cd.strides[d] + 1
		}
		want[cd.outSp[d]] = o
	}
	return want
}

// newConvPlan lays the convolution out as per-group GEMMs: the output rows
// and columns, the im2col gather table and the kernel as a K×N matrix, all
// addressed in the operands' row-major layout.
func newConvPlan(cd *convDims, lt, rt, ot *ir.TensorType) *convPlan {
	s := len(cd.inSp)
	ls, os := lt.Strides(), ot.Strides()
	ib, kin, kout := lt.Shape[cd.inBatch], rt.Shape[cd.kIn], rt.Shape[cd.kOut]
	groups := int(max(cd.fgc, cd.bgc))
	p := &convPlan{
		groups:      groups,
		kin:         int(kin),
		n:           int(kout) / groups,
		lhsBatchStr: int(ls[cd.inBatch]),
		lhsFeatStr:  int(ls[cd.inFeat]),
		batchGroup:  cd.bgc > 1,
		outBatch:    int(ib / cd.bgc),
		outFeatStr:  int(os[cd.outFeat]),
	}
	outSpShape := make([]int64, s)
	kSpShape := make([]int64, s)
	for d := 0; d < s; d++ {
		outSpShape[d] = ot.Shape[cd.outSp[d]]
		kSpShape[d] = rt.Shape[cd.kSp[d]]
	}
	nos := int(ir.Tensor(ir.F32, outSpShape...).NumElements())
	p.ks = int(ir.Tensor(ir.F32, kSpShape...).NumElements())
	p.m = p.outBatch * nos
	p.k = p.kin * p.ks
	p.spatialTab = spatialTable(cd, lt, outSpShape, kSpShape, p.ks)
	p.outputRows(cd, os, outSpShape, nos)
	p.rhs = kernelMatrix(cd, rt, kSpShape, p.kin, p.ks, p.n)
	return p
}

// spatialTable returns, per output position o and kernel position k, the
// lhs spatial offset of the input element that o meets at k (after
// reversal), or -1 when it falls in padding or between dilated elements.
func spatialTable(cd *convDims, lt *ir.TensorType, outSpShape, kSpShape []int64, ks int) [][]int {
	s := len(cd.inSp)
	ls := lt.Strides()
	nOut := ir.Tensor(ir.F32, outSpShape...).NumElements()
	kernel.Need(nOut * int64(ks) * 8)
	tabs := kernel.Make[[]int](int(nOut))
	for o := range tabs {
		oi := unravelI(o, outSpShape)
		tab := make([]int, ks)
		for kk := range tab {
			ki := unravelI(kk, kSpShape)
			off := 0
			for d := 0; d < s; d++ {
				// Window position kk meets padded-dilated input position
				// o*stride + k*dilation; reversal flips which kernel element
				// that is, handled by indexing the kernel reversed below.
				pos := oi[d]*cd.strides[d] + ki[d]*cd.rhsDil[d] - cd.pad[2*d]
				if pos < 0 || pos%cd.lhsDil[d] != 0 || pos/cd.lhsDil[d] >= lt.Shape[cd.inSp[d]] {
					off = -1
					break
				}
				off += int(pos/cd.lhsDil[d]) * int(ls[cd.inSp[d]])
			}
			tab[kk] = off
		}
		tabs[o] = tab
	}
	return tabs
}

// outputRows numbers the GEMM rows (output batch, then output spatial
// position) and columns (output features within a group) and finds where
// each lands in the output.
func (p *convPlan) outputRows(cd *convDims, os []int64, outSpShape []int64, nos int) {
	s := len(cd.inSp)
	p.rowBatch = kernel.Make[int](p.m)
	p.rowSpatial = kernel.Make[int](p.m)
	p.outRow = kernel.Make[int](p.m)
	for r := 0; r < p.m; r++ {
		b, o := r/nos, r%nos
		p.rowBatch[r], p.rowSpatial[r] = b, o
		oi := unravelI(o, outSpShape)
		off := b * int(os[cd.outBatch])
		for d := 0; d < s; d++ {
			off += int(oi[d]) * int(os[cd.outSp[d]])
		}
		p.outRow[r] = off
	}
	p.outCol = kernel.Make[int](p.n)
	for j := range p.outCol {
		p.outCol[j] = j * p.outFeatStr
	}
}

// kernelMatrix addresses the kernel in place as a K×N matrix: column c =
// (input feature within group, kernel position), row j = output feature
// within group.
func kernelMatrix(cd *convDims, rt *ir.TensorType, kSpShape []int64, kin, ks, n int) *gemmPlan {
	s := len(cd.inSp)
	rs := rt.Strides()
	k := kin * ks
	rhsK := kernel.Make[int](k)
	for f := 0; f < kin; f++ {
		for kk := 0; kk < ks; kk++ {
			ki := unravelI(kk, kSpShape)
			off := f * int(rs[cd.kIn])
			for d := 0; d < s; d++ {
				idx := ki[d]
				if cd.rev[d] {
					idx = kSpShape[d] - 1 - idx
				}
				off += int(idx) * int(rs[cd.kSp[d]])
			}
			rhsK[f*ks+kk] = off
		}
	}
	rhsCol := kernel.Make[int](n)
	for j := range rhsCol {
		rhsCol[j] = j * int(rs[cd.kOut])
	}
	return &gemmPlan{batch: 1, n: n, k: k, lhsBatch: []int{0}, rhsBatch: []int{0}, rhsK: rhsK, rhsCol: rhsCol,
		lhsKUnit: true, rhsColUnit: unitStride(rhsCol)}
}

// buildConvFast returns the implicit-im2col plan when the convolution has one
// group and every output row (batch, spatial position) is n contiguous
// features starting at a multiple of n (so rows sorted by output offset
// tile the output exactly).
func buildConvFast(p *convPlan) *convFast {
	if p.groups != 1 || p.outFeatStr != 1 || p.m <= 2 || p.n <= 2 || p.k == 0 {
		return nil
	}
	order := kernel.Make[int](p.m) // GEMM row → conv row
	seen := kernel.Make[bool](p.m)
	for r, off := range p.outRow {
		if off%p.n != 0 || off/p.n >= p.m || seen[off/p.n] {
			return nil
		}
		seen[off/p.n] = true
		order[off/p.n] = r
	}
	return newConvFast(p, order)
}

// newConvFast is the implicit-im2col plan whose GEMM row i is conv row
// order[i].
func newConvFast(p *convPlan, order []int) *convFast {
	f := &convFast{kin: p.kin, ks: p.ks, featStr: p.lhsFeatStr, posMajor: p.lhsFeatStr == 1}
	f.rowBase = kernel.Make[int](p.m)
	f.rowTab = kernel.Make[[]int](p.m)
	for i, r := range order {
		f.rowBase[i] = p.rowBatch[r] * p.lhsBatchStr
		f.rowTab[i] = p.spatialTab[p.rowSpatial[r]]
	}
	if f.posMajor && p.ks <= contMax {
		f.contIdx = kernel.Make[int32](p.m)
		idx := map[[contWords]uint64]int32{}
		spIdx := kernel.Make[int32](len(p.spatialTab))
		for o, tab := range p.spatialTab {
			var m [contWords]uint64
			for pos := 0; pos+1 < len(tab); pos++ {
				a, b := tab[pos], tab[pos+1]
				if (a < 0) == (b < 0) && (a < 0 || b == a+p.kin) {
					m[pos>>6] |= 1 << (pos & 63)
				}
			}
			j, ok := idx[m]
			if !ok {
				j = int32(len(f.conts))
				idx[m] = j
				f.conts = append(f.conts, m)
			}
			spIdx[o] = j
		}
		for i, r := range order {
			f.contIdx[i] = spIdx[p.rowSpatial[r]]
		}
	}
	f.setOrigins(p, order)
	f.unitRun = kernel.Make[int32](p.m)
	for i := p.m - 1; i >= 0; i-- {
		f.unitRun[i] = 1
		if i+1 < p.m && f.rowBase[i+1] == f.rowBase[i]+1 && &f.rowTab[i+1][0] == &f.rowTab[i][0] {
			f.unitRun[i] = f.unitRun[i+1] + 1
		}
	}
	rhsK := p.rhs.rhsK
	if f.posMajor {
		rhsK = kernel.Make[int](p.k)
		for fi := 0; fi < p.kin; fi++ {
			for kk := 0; kk < p.ks; kk++ {
				rhsK[kk*p.kin+fi] = p.rhs.rhsK[fi*p.ks+kk]
			}
		}
	}
	f.g = gemmPlan{batch: 1, m: p.m, n: p.n, k: p.k, lhsBatch: []int{0}, rhsBatch: []int{0},
		rhsK: rhsK, rhsCol: p.rhs.rhsCol, rhsColUnit: p.rhs.rhsColUnit}
	return f
}

// runConvFast multiplies the implicit im2col matrix of lhs by the kernel
// straight into out. Every output element is the GEMM's sum over K blocks
// in order, as for dot_general, whatever the worker count.
func runConvFast[T float32 | float64](f *convFast, uk microKernel[T], lhs, rhs, out []T, par parallelFn, pool func(int) *buf[T]) {
	runConvFastFin(f, uk, lhs, rhs, out, par, pool, nil)
}

// runConvFastFin is runConvFast handing each finished block of GEMM rows
// to fin (see gemmSrc).
func runConvFastFin[T float32 | float64](f *convFast, uk microKernel[T], lhs, rhs, out []T, par parallelFn, pool func(int) *buf[T], fin func(off, rows, cols, ldc int)) {
	kin, ks, featStr := f.kin, f.ks, f.featStr
	var gather func(dst []T, ld, i0, i1, p0, p1 int)
	if f.posMajor {
		gather = func(dst []T, ld, i0, i1, p0, p1 int) {
			for i := i0; i < i1; i++ {
				d := dst[(i-i0)*ld : (i-i0)*ld+(p1-p0)]
				base, tab := f.rowBase[i], f.rowTab[i]
				pos, f0 := p0/kin, p0%kin
				for q := 0; q < len(d); {
					run := min(kin-f0, len(d)-q)
					if off := tab[pos]; off < 0 {
						clear(d[q : q+run])
					} else {
						copy(d[q:q+run], lhs[base+off+f0:])
					}
					q += run
					pos++
					f0 = 0
				}
			}
		}
	} else {
		gather = func(dst []T, ld, i0, i1, p0, p1 int) {
			for i := i0; i < i1; i++ {
				d := dst[(i-i0)*ld : (i-i0)*ld+(p1-p0)]
				base, tab := f.rowBase[i], f.rowTab[i]
				fi, kk := p0/ks, p0%ks
				fb := base + fi*featStr
				for q := range d {
					if off := tab[kk]; off < 0 {
						d[q] = 0
					} else {
						d[q] = lhs[fb+off]
					}
					if kk++; kk == ks {
						kk = 0
						fb += featStr
					}
				}
			}
		}
	}
	var panel func(pan []T, i0, p0, k int) bool
	var z T
	if f.posMajor && uk.mr == 14 && packTransOK && unsafe.Sizeof(z) == 4 {
		// Each kernel position's feature run of 14 rows is transposed
		// straight from lhs (padded rows read zeros).
		lhs32 := asF32(lhs)
		panel = func(pan []T, i0, p0, k int) bool {
			if f.lineRun != nil && f.lineRun[i0] >= 14 {
				packLine(f, pan, lhs, i0, p0, k)
				return true
			}
			pan32 := asF32(pan)
			// Positions where every row of the panel continues its run.
			var all [contWords]uint64
			if f.conts != nil {
				all = f.conts[f.contIdx[i0]]
				for _, c := range f.contIdx[i0+1 : i0+14] {
					for w := range all {
						all[w] &= f.conts[c][w]
					}
				}
			}
			for q := 0; q < k; {
				pos, f0 := (p0+q)/kin, (p0+q)%kin
				run := min(kin-f0, k-q)
				var offs [14]int
				for i := range offs {
					if o := f.rowOrig[i0+i]; o >= 0 {
						offs[i] = o + f.delta[pos] + f0
					} else if off := f.rowTab[i0+i][pos]; off < 0 {
						offs[i] = -1
					} else {
						offs[i] = f.rowBase[i0+i] + off + f0
					}
				}
				// Few input features (first layers): the next kernel
				// positions usually continue every row's run in memory
				// (neighbouring input columns), so one transpose packs
				// them all.
				for ; run < k-q && pos+1 < ks && all[pos>>6]>>(pos&63)&1 != 0; pos++ {
					run = min(run+kin, k-q)
				}
				if !packA14RowsF32(pan32[14*q:], lhs32, &offs, run) {
					return false
				}
				q += run
			}
			if convPrefetch {
				// The panel one A block on: its rows' last kernel
				// position reads the input lines no earlier row has.
				prefetchRows(f, lhs32, i0+mcBlock/14*14, (p0+k-1)/kin)
			}
			return true
		}
	}
	if !f.posMajor && uk.mr == 14 {
		panel = func(pan []T, i0, p0, k int) bool {
			if f.unitRun[i0] < 14 {
				return packSegments(f, pan, lhs, i0, p0, k)
			}
			base, tab := f.rowBase[i0], f.rowTab[i0]
			fi, kk := p0/ks, p0%ks
			fb := base + fi*featStr
			pan = pan[:14*k]
			for q := 0; q < k; q++ {
				d := (*[14]T)(pan[14*q:])
				if off := tab[kk]; off < 0 {
					*d = [14]T{}
				} else {
					*d = *(*[14]T)(lhs[fb+off:])
				}
				if kk++; kk == ks {
					kk = 0
					fb += featStr
				}
			}
			return true
		}
	}
	gemmSrc(&f.g, uk, operand[T]{gather: gather, panel: panel}, operand[T]{v: rhs}, out[:f.g.m*f.g.n], par, pool, fin)
}

// convPrefetch makes each transposing panel pack ask L2 for the input the
// matching panel of the next A block will read first: without it those
// loads wait on L3 or memory inside the pack (tests flip it; values are
// only loaded earlier, so bits cannot change).
var convPrefetch = true

// prefetchRows asks for the input that GEMM rows [i0,i0+14) read at
// kernel position pos, when that is one short contiguous range.
func prefetchRows(f *convFast, lhs []float32, i0, pos int) {
	i1 := i0 + 13
	if i1 >= len(f.rowBase) || f.rowBase[i0] != f.rowBase[i1] {
		return
	}
	a, b := f.rowTab[i0][pos], f.rowTab[i1][pos]
	if a < 0 || b < a || b-a > 2048 {
		return
	}
	o := f.rowBase[i0] + a
	_ = lhs[o+b-a+f.kin-1]
	prefetchL2(&lhs[o], (b-a+f.kin+15)/16)
}

func unravelI(i int, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = int64(i) % shape[d]
			i /= int(shape[d])
		}
	}
	return idx
}

// im2colRows is how many GEMM rows are gathered at once; it bounds the
// scratch to about im2colBudget elements whatever the problem size.
const im2colBudget = 1 << 21

func convStep(kind computeKind, p *convPlan, le, re, oe ir.ElemType, rhsGroupStr int, par parallelFn) kernel.Step {
	switch kind {
	case computeF32:
		return func(ins, outs [][]byte) error {
			a, ar := viewF32(ins[0], le)
			b, br := viewF32(ins[1], re)
			c, cr := viewF32Out(outs[0], oe)
			if p.depth != nil {
				runConvDepth(p.depth, a, b, c, par, f32scratch)
			} else if p.phases != nil {
				runConvPhases(p.phases, ukF32, a, b, c, par, f32scratch)
			} else if p.bgVec != nil {
				runConvBGVec(p.bgVec, a, b, c, par, f32scratch)
			} else if p.fast != nil {
				runConvFast(p.fast, ukF32, a, b, c, par, f32scratch)
			} else {
				runConv(p, a, b, c, rhsGroupStr, par, f32scratch, func(g *gemmPlan, x, y, z []float32) { gemm(g, ukF32, x, y, z, par, f32scratch) })
			}
			if cr != nil {
				fromF32(outs[0], c, oe)
				cr.release()
			}
			releaseAll(ar, br)
			return nil
		}
	case computeF64:
		return func(ins, outs [][]byte) error {
			a, ar := viewF64(ins[0], le)
			b, br := viewF64(ins[1], re)
			c, cr := viewF64Out(outs[0], oe)
			if p.depth != nil {
				runConvDepth(p.depth, a, b, c, par, f64scratch)
			} else if p.phases != nil {
				runConvPhases(p.phases, ukF64, a, b, c, par, f64scratch)
			} else if p.bgVec != nil {
				runConvBGVec(p.bgVec, a, b, c, par, f64scratch)
			} else if p.fast != nil {
				runConvFast(p.fast, ukF64, a, b, c, par, f64scratch)
			} else {
				runConv(p, a, b, c, rhsGroupStr, par, f64scratch, func(g *gemmPlan, x, y, z []float64) { gemm(g, ukF64, x, y, z, par, f64scratch) })
			}
			if cr != nil {
				fromF64(outs[0], c, oe)
				cr.release()
			}
			releaseAll(ar, br)
			return nil
		}
	case computeC64:
		return func(ins, outs [][]byte) error {
			a, b, c := c64scratch(len(ins[0])/le.ByteSize()), c64scratch(len(ins[1])/re.ByteSize()), c64scratch(len(outs[0])/oe.ByteSize())
			toC64(a.s, ins[0], le)
			toC64(b.s, ins[1], re)
			runConv(p, a.s, b.s, c.s, rhsGroupStr, par, c64scratch, func(g *gemmPlan, x, y, z []complex64) { naiveDot(g, x, y, z, par) })
			fromC64(outs[0], c.s, oe)
			releaseAll(a, b, c)
			return nil
		}
	case computeC128:
		return func(ins, outs [][]byte) error {
			a, b, c := c128scratch(len(ins[0])/le.ByteSize()), c128scratch(len(ins[1])/re.ByteSize()), c128scratch(len(outs[0])/oe.ByteSize())
			toC128(a.s, ins[0], le)
			toC128(b.s, ins[1], re)
			runConv(p, a.s, b.s, c.s, rhsGroupStr, par, c128scratch, func(g *gemmPlan, x, y, z []complex128) { naiveDot(g, x, y, z, par) })
			fromC128(outs[0], c.s, oe)
			releaseAll(a, b, c)
			return nil
		}
	}
	return func(ins, outs [][]byte) error {
		a, b, c := i64scratch(len(ins[0])/le.ByteSize()), i64scratch(len(ins[1])/re.ByteSize()), i64scratch(len(outs[0])/oe.ByteSize())
		toI64(a.s, ins[0], le)
		toI64(b.s, ins[1], re)
		if oe == ir.Pred {
			for i, v := range a.s {
				a.s[i] = b2i(v != 0)
			}
			for i, v := range b.s {
				b.s[i] = b2i(v != 0)
			}
		}
		runConv(p, a.s, b.s, c.s, rhsGroupStr, par, i64scratch, func(g *gemmPlan, x, y, z []int64) { naiveDot(g, x, y, z, par) })
		fromI64(outs[0], c.s, oe)
		releaseAll(a, b, c)
		return nil
	}
}

// runConv gathers im2col row chunks and multiplies them with the kernel,
// group by group, scattering each product into the output layout.
func runConv[T float32 | float64 | complex64 | complex128 | int64](p *convPlan, lhs, rhs, out []T, rhsGroupStr int, par parallelFn, pool func(int) *buf[T], mm func(*gemmPlan, []T, []T, []T)) {
	if p.m == 0 || p.n == 0 {
		return
	}
	chunk := p.m
	if p.k > 0 {
		chunk = max(1, min(p.m, im2colBudget/p.k))
	}
	cols := pool(chunk*p.k + chunk*p.n)
	defer cols.release()
	im := cols.s[:chunk*p.k]
	prod := cols.s[chunk*p.k:]
	lhsRow := kernel.Make[int](chunk)
	for i := range lhsRow {
		lhsRow[i] = i * p.k
	}
	lhsK := kernel.Make[int](p.k)
	for i := range lhsK {
		lhsK[i] = i
	}
	for g := 0; g < p.groups; g++ {
		batchBase, featBase := 0, 0
		if p.batchGroup {
			batchBase = g * p.outBatch
		} else {
			featBase = g * p.kin
		}
		gp := *p.rhs
		gp.rhsBatch = []int{g * rhsGroupStr}
		gp.lhsK = lhsK
		for r0 := 0; r0 < p.m; r0 += chunk {
			rows := min(chunk, p.m-r0)
			gather := func(lo, hi int) {
				for r := lo; r < hi; r++ {
					R := r0 + r
					base := (batchBase+p.rowBatch[R])*p.lhsBatchStr + featBase*p.lhsFeatStr
					tab := p.spatialTab[p.rowSpatial[R]]
					dst := im[r*p.k : (r+1)*p.k]
					for f := 0; f < p.kin; f++ {
						fb := base + f*p.lhsFeatStr
						d := dst[f*p.ks : (f+1)*p.ks]
						for kk, off := range tab {
							if off < 0 {
								var zero T
								d[kk] = zero
							} else {
								d[kk] = lhs[fb+off]
							}
						}
					}
				}
			}
			if rows*p.k < 1<<15 {
				gather(0, rows)
			} else {
				par(rows, max(1, (1<<15)/max(p.k, 1)), gather)
			}
			gp.m = rows
			gp.lhsRow = lhsRow[:rows]
			mm(&gp, im[:rows*p.k], rhs, prod[:rows*p.n])
			colBase := g * p.n * p.outFeatStr
			for r := 0; r < rows; r++ {
				ro := p.outRow[r0+r] + colBase
				src := prod[r*p.n : (r+1)*p.n]
				for j, co := range p.outCol {
					out[ro+co] = src[j]
				}
			}
		}
	}
}

// setOrigins finds the interior rows: those whose spatial table is the
// first padding-free table shifted by a constant.
func (f *convFast) setOrigins(p *convPlan, order []int) {
	f.rowOrig = kernel.Make[int](len(f.rowBase))
	for _, tab := range p.spatialTab {
		if !slices.Contains(tab, -1) {
			f.delta = kernel.Make[int](len(tab))
			for kk, off := range tab {
				f.delta[kk] = off - tab[0]
			}
			break
		}
	}
	spOrig := kernel.Make[int](len(p.spatialTab))
	for o, tab := range p.spatialTab {
		spOrig[o] = -1
		if f.delta == nil {
			continue
		}
		regular := true
		for kk, off := range tab {
			if off < 0 || off-tab[0] != f.delta[kk] {
				regular = false
				break
			}
		}
		if regular {
			spOrig[o] = tab[0]
		}
	}
	for i, r := range order {
		f.rowOrig[i] = -1
		if o := spOrig[p.rowSpatial[r]]; o >= 0 {
			f.rowOrig[i] = f.rowBase[i] + o
		}
	}
	if f.posMajor && f.kin == 1 && f.delta != nil {
		f.setLines(p, order)
	}
}

// setLines finds each row's window origin from any tap that meets the
// input (the origin is that tap's offset less its delta) and the runs of
// rows whose origins rise by one.
func (f *convFast) setLines(p *convPlan, order []int) {
	const unknown = -1 << 62
	spV := kernel.Make[int](len(p.spatialTab))
	for o, tab := range p.spatialTab {
		spV[o] = unknown
		for kk, off := range tab {
			if off < 0 {
				continue
			}
			v := off - f.delta[kk]
			if spV[o] != unknown && spV[o] != v {
				spV[o] = unknown // not a shifted window (cannot happen without lhs dilation)
				break
			}
			spV[o] = v
		}
	}
	f.rowV = kernel.Make[int](len(order))
	for i, r := range order {
		f.rowV[i] = unknown
		if v := spV[p.rowSpatial[r]]; v != unknown {
			f.rowV[i] = f.rowBase[i] + v
		}
	}
	f.lineRun = kernel.Make[int32](len(order))
	for i := len(order) - 1; i >= 0; i-- {
		if f.rowV[i] == unknown {
			continue
		}
		f.lineRun[i] = 1
		if i+1 < len(order) && f.rowV[i+1] == f.rowV[i]+1 {
			f.lineRun[i] = f.lineRun[i+1] + 1
		}
	}
}

// packLine packs the panel of 14 rows from i0, whose window origins rise
// by one, for contracting indices [p0,p0+k) (one input feature: index =
// kernel position): each position is one 14-element copy, then the rows
// that read padding there are zeroed.
func packLine[T float32 | float64](f *convFast, pan, lhs []T, i0, p0, k int) {
	var border [14]int
	nb := 0
	for i, o := range f.rowOrig[i0 : i0+14] {
		if o < 0 {
			border[nb] = i
			nb++
		}
	}
	v := f.rowV[i0]
	for q := range k {
		pos := p0 + q
		d := (*[14]T)(pan[14*q:])
		if b := v + f.delta[pos]; b >= 0 && b+14 <= len(lhs) {
			*d = *(*[14]T)(lhs[b:])
		} else {
			*d = [14]T{}
			for i := range d {
				if f.rowTab[i0+i][pos] >= 0 {
					d[i] = lhs[b+i]
				}
			}
			continue
		}
		for _, i := range border[:nb] {
			if f.rowTab[i0+i][pos] < 0 {
				d[i] = 0
			}
		}
	}
}

// maxSegments bounds the runs packSegments splits a panel into; more
// scattered rows are gathered element by element.
const maxSegments = 4

// packSegments packs a 14-row panel made of a few unit runs (a weight
// gradient's panel that spans two kernel positions' runs of input
// channels): per contracting index, one contiguous copy per run.
func packSegments[T float32 | float64](f *convFast, pan, lhs []T, i0, p0, k int) bool {
	var start, n, base [maxSegments]int
	var tabs [maxSegments][]int
	ns := 0
	for i := 0; i < 14; ns++ {
		if ns == maxSegments {
			return false
		}
		u := min(int(f.unitRun[i0+i]), 14-i)
		start[ns], n[ns], base[ns], tabs[ns] = i, u, f.rowBase[i0+i], f.rowTab[i0+i]
		i += u
	}
	ks, featStr := f.ks, f.featStr
	fi, kk := p0/ks, p0%ks
	fb := fi * featStr
	pan = pan[:14*k]
	for q := 0; q < k; q++ {
		d := pan[14*q : 14*q+14]
		for s := range ns {
			dd := d[start[s] : start[s]+n[s]]
			if off := tabs[s][kk]; off < 0 {
				clear(dd)
			} else {
				// Runs are a few elements: a loop beats a memmove call.
				src := lhs[base[s]+fb+off:][:len(dd)]
				for t, v := range src {
					dd[t] = v
				}
			}
		}
		if kk++; kk == ks {
			kk = 0
			fb += featStr
		}
	}
	return true
}
