package elementwise

import (
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// bitcast_convert reinterprets bits. Between whole-byte types it is a plain
// byte copy of the little-endian storage (a wider element splits into a new
// minor dimension, least significant part first, as on XLA's little-endian
// hosts). Types narrower than their one-byte storage (s4, u2, f4E2M1FN, …)
// are packed and unpacked by logical bit width.

func init() {
	kernel.RegisterOp("stablehlo.bitcast_convert", lowerBitcast, kernel.Traits{Elementwise: false, Arity: 1, InPlace: true, TypeRule: bitcastRule,
		Storage: true, StorageShared: []int{}})
}

// bitcastRule: equal widths keep the shape; a wider operand gains a
// trailing dim of the width ratio; a narrower one loses it.
func bitcastRule(op *ir.Op, ins []*ir.TensorType, out *ir.TensorType) error {
	in := ins[0]
	ib, ob := int64(in.Elem.Bits()), int64(out.Elem.Bits())
	switch {
	case ib == ob:
		return kernel.SameShape(op, "result shape must equal operand shape", in, out)
	case ib > ob:
		want := append(append([]int64(nil), in.Shape...), ib/ob)
		if ib%ob != 0 {
			return op.Errorf("operand width %d is not a multiple of result width %d", ib, ob)
		}
		return kernel.WantShape(op, "result", out, want)
	default:
		if ob%ib != 0 {
			return op.Errorf("result width %d is not a multiple of operand width %d", ob, ib)
		}
		want := append([]int64(nil), out.Shape...)
		want = append(want, ob/ib)
		return kernel.WantShape(op, "operand", in, want)
	}
}

// packed reports types whose logical width is less than their storage.
func packed(t ir.ElemType) bool { return t.Bits() < 8*t.ByteSize() }

func lowerBitcast(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	ins, out, err := tensorOperands(op, 1)
	if err != nil {
		return nil, err
	}
	in := ins[0]
	sb, db := in.Elem.Bits(), out.Elem.Bits()
	if sb == 0 || db == 0 {
		return nil, op.Errorf("unsupported element types %s -> %s", in.Elem, out.Elem)
	}
	// Shapes: equal widths keep the shape; otherwise the narrower side has an
	// extra minor dimension of size wide/narrow.
	switch {
	case sb == db:
		if !sameDims(in.Shape, out.Shape) {
			return nil, op.Errorf("shape %s must equal %s", in, out)
		}
	case sb > db:
		if sb%db != 0 || out.Rank() != in.Rank()+1 || !sameDims(in.Shape, out.Shape[:in.Rank()]) || out.Shape[in.Rank()] != int64(sb/db) {
			return nil, op.Errorf("result %s must be operand shape %v plus a minor dimension of %d", out, in.Shape, sb/db)
		}
	default:
		if db%sb != 0 || in.Rank() != out.Rank()+1 || !sameDims(out.Shape, in.Shape[:out.Rank()]) || in.Shape[out.Rank()] != int64(db/sb) {
			return nil, op.Errorf("operand %s must be result shape %v plus a minor dimension of %d", in, out.Shape, db/sb)
		}
	}
	var k kern
	if !packed(in.Elem) && !packed(out.Elem) {
		k = k1(copyLoop[byte])
	} else {
		if sb > 64 || db > 64 {
			return nil, op.Errorf("bit packing %s -> %s is not supported", in.Elem, out.Elem)
		}
		k = packKern(in.Elem, out.Elem)
	}
	// Element counts differ when widths differ, so describe the copy in
	// units of the wider element, which both sides share.
	unit := max(sb, db)
	n := int(out.NumElements())
	if db < unit {
		n /= unit / db
	}
	p := &plan{op: op, k: k, grain: grain, n: n, outSize: int(out.ByteSize()) / max(n, 1), inSize: []int{int(in.ByteSize()) / max(n, 1)}, scalar: []bool{false}}
	if n == 0 {
		p.outSize, p.inSize[0] = 0, 0
	}
	return p.step(ctx), nil
}

// readBits/writeBits move one element's logical bits in and out of storage.
func readBits(b []byte, i, size, nbits int) uint64 {
	var v uint64
	for j := range size {
		v |= uint64(b[i*size+j]) << (8 * j)
	}
	return v & lowMask(uint(nbits))
}

func writeBits(b []byte, i, size int, v uint64, t ir.ElemType) {
	if t.IsSigned() && t.Bits() < 64 {
		sh := 64 - uint(t.Bits())
		v = uint64(int64(v<<sh) >> sh) // sign-extend sub-byte signed ints
	}
	for j := range size {
		b[i*size+j] = byte(v >> (8 * j))
	}
}

// packKern splits or joins elements bit by bit.
func packKern(from, to ir.ElemType) kern {
	sb, db := from.Bits(), to.Bits()
	ss, ds := from.ByteSize(), to.ByteSize()
	return func(d, a, _, _ []byte) {
		switch {
		case sb == db:
			for i := range len(d) / ds {
				writeBits(d, i, ds, readBits(a, i, ss, sb), to)
			}
		case sb > db:
			r := sb / db
			for i := range len(a) / ss {
				v := readBits(a, i, ss, sb)
				for j := range r {
					writeBits(d, i*r+j, ds, v>>(j*db)&lowMask(uint(db)), to)
				}
			}
		default:
			r := db / sb
			for i := range len(d) / ds {
				var v uint64
				for j := range r {
					v |= readBits(a, i*r+j, ss, sb) << (j * sb)
				}
				writeBits(d, i, ds, v, to)
			}
		}
	}
}
