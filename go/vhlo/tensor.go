package vhlo

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/mlirbc"
)

// MaxSplatBytes caps the size a splat constant may expand to, so a few input
// bytes cannot demand an unbounded allocation.
var MaxSplatBytes int64 = 1 << 28

// tensorAttr turns TensorV1/DenseElements raw data into gojax layout:
// splats expanded, i1 unpacked to one byte per element. Tensors of index
// (integer lists such as custom_call layouts) read as i64.
func tensorAttr(r *mlirbc.Reader, t *vtype, blob []byte) (ir.Attr, error) {
	if t.kind != kindTensor {
		return nil, r.Errorf("tensor constant of type %s: %s", t.desc, t.why)
	}
	tt := t.ir.(*ir.TensorType)
	n := tt.NumElements()
	if t.elem == ir.Pred {
		data, err := boolData(r, blob, n)
		if err != nil {
			return nil, err
		}
		return &ir.ElementsAttr{Type: tt, Data: data}, nil
	}
	size := int64(t.elem.ByteSize())
	if n > math.MaxInt64/size {
		return nil, r.Errorf("constant %s is too large", t.desc)
	}
	want := n * size
	switch {
	case int64(len(blob)) == want:
		return &ir.ElementsAttr{Type: tt, Data: normalizeSubByte(t.elem, append([]byte(nil), blob...))}, nil
	case int64(len(blob)) == size && n > 1:
		if want > MaxSplatBytes {
			return nil, r.Errorf("splat constant %s would expand to %d bytes (limit %d)", t.desc, want, MaxSplatBytes)
		}
		if err := devmem.CheckHostBytes(want); err != nil {
			return nil, fmt.Errorf("splat constant %s: %w", t.desc, err)
		}
		data := make([]byte, want)
		for off := int64(0); off < want; off += size {
			copy(data[off:], blob)
		}
		return &ir.ElementsAttr{Type: tt, Data: normalizeSubByte(t.elem, data)}, nil
	case n == 0 && len(blob) <= int(size):
		return &ir.ElementsAttr{Type: tt, Data: []byte{}}, nil
	}
	return nil, r.Errorf("constant %s has %d data bytes, want %d (or %d for a splat)", t.desc, len(blob), want, size)
}

// normalizeSubByte makes each byte of a sub-byte integer tensor hold the
// element's full value: sign-extended for i2/i4, masked for ui2/ui4, so the
// byte reads correctly as int8/uint8.
func normalizeSubByte(el ir.ElemType, data []byte) []byte {
	bits := el.Bits()
	if !el.IsInteger() || bits >= 8 {
		return data
	}
	for i, b := range data {
		data[i] = byte(extend(uint64(b), bits, el.IsSigned()))
	}
	return data
}

// boolData decodes i1 data: bit-packed LSB first (ceil(n/8) bytes), a one-byte
// splat (0xFF true, 0x00 false), or unpacked (one byte per element).
func boolData(r *mlirbc.Reader, blob []byte, n int64) ([]byte, error) {
	packed := (n + 7) / 8
	switch {
	case len(blob) == 1 && (blob[0] == 0xFF || (n > 8 && blob[0] == 0)):
		if n > MaxSplatBytes {
			return nil, r.Errorf("splat i1 constant of %d elements exceeds the limit %d", n, MaxSplatBytes)
		}
		if err := devmem.CheckHostBytes(n); err != nil {
			return nil, fmt.Errorf("splat i1 constant of %d elements: %w", n, err)
		}
		data := make([]byte, n)
		if blob[0] != 0 {
			for i := range data {
				data[i] = 1
			}
		}
		return data, nil
	case int64(len(blob)) == n:
		data := make([]byte, n)
		for i, b := range blob {
			if b != 0 {
				data[i] = 1
			}
		}
		return data, nil
	case int64(len(blob)) == packed:
		data := make([]byte, n)
		for i := int64(0); i < n; i++ {
			data[i] = blob[i/8] >> (i % 8) & 1
		}
		return data, nil
	case n == 0 && len(blob) <= 1:
		return []byte{}, nil
	}
	return nil, r.Errorf("i1 constant of %d elements has %d data bytes", n, len(blob))
}

// int64List reads n little-endian integers of width bytes (splat allowed).
func int64List(r *mlirbc.Reader, blob []byte, n int64, width int) ([]int64, error) {
	w := int64(width)
	splat := int64(len(blob)) == w && n > 1
	if !splat && (n > int64(len(blob))/w || int64(len(blob)) != n*w) {
		return nil, r.Errorf("integer list of %d elements has %d data bytes", n, len(blob))
	}
	if splat && n > MaxSplatBytes/8 {
		return nil, r.Errorf("splat integer list of %d elements exceeds the limit", n)
	}
	out := make([]int64, n)
	for i := range out {
		off := int64(i) * w
		if splat {
			off = 0
		}
		out[i] = readInt(blob[off:off+w], width, true)
	}
	return out, nil
}

func readInt(b []byte, width int, signed bool) int64 {
	switch width {
	case 1:
		if signed {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		v := binary.LittleEndian.Uint16(b)
		if signed {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b)
		if signed {
			return int64(int32(v))
		}
		return int64(v)
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// elementsToI64 converts an integer (or bool) constant to an integer list.
func elementsToI64(e *ir.ElementsAttr) ([]int64, error) {
	el := e.Type.Elem
	if !el.IsInteger() && el != ir.Pred {
		return nil, fmt.Errorf("integer list has element type %s", el)
	}
	w := el.ByteSize()
	n := int(e.Type.NumElements())
	if len(e.Data) != n*w {
		return nil, fmt.Errorf("integer list data is %d bytes, want %d", len(e.Data), n*w)
	}
	out := make([]int64, n)
	for i := range out {
		v := readInt(e.Data[i*w:(i+1)*w], w, el.IsSigned())
		if el.Bits() < 8 && el.IsSigned() {
			v = extend(uint64(v), el.Bits(), true)
		}
		out[i] = v
	}
	return out, nil
}
