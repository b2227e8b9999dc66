package ir

import "fmt"

// ElemType is a tensor element type. Values are gojax's own; the C boundary maps
// them to PJRT_Buffer_Type.
type ElemType uint8

const (
	Invalid ElemType = iota
	Pred             // i1; stored one byte per element (0 or 1)
	S1
	S2
	S4
	S8
	S16
	S32
	S64
	U1
	U2
	U4
	U8
	U16
	U32
	U64
	F4E2M1FN
	F6E2M3FN
	F6E3M2FN
	F8E3M4
	F8E4M3
	F8E4M3FN
	F8E4M3FNUZ
	F8E4M3B11FNUZ
	F8E5M2
	F8E5M2FNUZ
	F8E8M0FNU
	BF16
	F16
	F32
	F64
	C64  // complex<f32>
	C128 // complex<f64>
	numElemTypes
)

var elemInfo = [numElemTypes]struct {
	name  string // MLIR spelling
	bits  int    // logical width
	bytes int    // storage per element in gojax buffers (sub-byte types take one byte)
}{
	Invalid:       {"invalid", 0, 0},
	Pred:          {"i1", 1, 1},
	S1:            {"si1", 1, 1},
	S2:            {"i2", 2, 1},
	S4:            {"i4", 4, 1},
	S8:            {"i8", 8, 1},
	S16:           {"i16", 16, 2},
	S32:           {"i32", 32, 4},
	S64:           {"i64", 64, 8},
	U1:            {"ui1", 1, 1},
	U2:            {"ui2", 2, 1},
	U4:            {"ui4", 4, 1},
	U8:            {"ui8", 8, 1},
	U16:           {"ui16", 16, 2},
	U32:           {"ui32", 32, 4},
	U64:           {"ui64", 64, 8},
	F4E2M1FN:      {"f4E2M1FN", 4, 1},
	F6E2M3FN:      {"f6E2M3FN", 6, 1},
	F6E3M2FN:      {"f6E3M2FN", 6, 1},
	F8E3M4:        {"f8E3M4", 8, 1},
	F8E4M3:        {"f8E4M3", 8, 1},
	F8E4M3FN:      {"f8E4M3FN", 8, 1},
	F8E4M3FNUZ:    {"f8E4M3FNUZ", 8, 1},
	F8E4M3B11FNUZ: {"f8E4M3B11FNUZ", 8, 1},
	F8E5M2:        {"f8E5M2", 8, 1},
	F8E5M2FNUZ:    {"f8E5M2FNUZ", 8, 1},
	F8E8M0FNU:     {"f8E8M0FNU", 8, 1},
	BF16:          {"bf16", 16, 2},
	F16:           {"f16", 16, 2},
	F32:           {"f32", 32, 4},
	F64:           {"f64", 64, 8},
	C64:           {"complex<f32>", 64, 8},
	C128:          {"complex<f64>", 128, 16},
}

// String returns the MLIR spelling (i32, ui8, bf16, complex<f32>, …).
func (t ElemType) String() string {
	if t >= numElemTypes {
		return fmt.Sprintf("elemtype(%d)", uint8(t))
	}
	return elemInfo[t].name
}

// Bits is the logical bit width (1 for pred, 4 for s4, 64 for c64).
func (t ElemType) Bits() int {
	if t >= numElemTypes {
		return 0
	}
	return elemInfo[t].bits
}

// ByteSize is the storage size of one element in a gojax buffer. Sub-byte types
// use one byte per element, as XLA's CPU backend does for unpacked buffers.
func (t ElemType) ByteSize() int {
	if t >= numElemTypes {
		return 0
	}
	return elemInfo[t].bytes
}

func (t ElemType) IsBool() bool     { return t == Pred }
func (t ElemType) IsSigned() bool   { return t >= S1 && t <= S64 }
func (t ElemType) IsUnsigned() bool { return t >= U1 && t <= U64 }
func (t ElemType) IsInteger() bool  { return t.IsSigned() || t.IsUnsigned() }
func (t ElemType) IsFloat() bool    { return t >= F4E2M1FN && t <= F64 }
func (t ElemType) IsComplex() bool  { return t == C64 || t == C128 }

// IsSmallFloat reports float types narrower than 16 bits (f4, f6, f8 variants):
// gojax computes with them by converting to f32 and back.
func (t ElemType) IsSmallFloat() bool { return t >= F4E2M1FN && t <= F8E8M0FNU }

// ElemTypes lists every valid element type.
func ElemTypes() []ElemType {
	out := make([]ElemType, 0, numElemTypes-1)
	for t := Pred; t < numElemTypes; t++ {
		out = append(out, t)
	}
	return out
}

// ParseElemType maps an MLIR spelling back to an ElemType.
func ParseElemType(s string) (ElemType, bool) {
	for t := Pred; t < numElemTypes; t++ {
		if elemInfo[t].name == s {
			return t, true
		}
	}
	return Invalid, false
}
