package capi

import "github.com/gojax/gojax/go/ir"

// PJRT_Buffer_Type values (pjrt-abi-0.114.txt).
const (
	pjrtInvalid       = 0
	pjrtPred          = 1
	pjrtS8            = 2
	pjrtS16           = 3
	pjrtS32           = 4
	pjrtS64           = 5
	pjrtU8            = 6
	pjrtU16           = 7
	pjrtU32           = 8
	pjrtU64           = 9
	pjrtF16           = 10
	pjrtF32           = 11
	pjrtF64           = 12
	pjrtBF16          = 13
	pjrtC64           = 14
	pjrtC128          = 15
	pjrtF8E5M2        = 16
	pjrtF8E4M3FN      = 17
	pjrtF8E4M3B11FNUZ = 18
	pjrtF8E5M2FNUZ    = 19
	pjrtF8E4M3FNUZ    = 20
	pjrtS4            = 21
	pjrtU4            = 22
	pjrtToken         = 23
	pjrtS2            = 24
	pjrtU2            = 25
	pjrtF8E4M3        = 26
	pjrtF8E3M4        = 27
	pjrtF8E8M0FNU     = 28
	pjrtF4E2M1FN      = 29
	pjrtS1            = 30
	pjrtU1            = 31
	pjrtF6E2M3FN      = 32
	pjrtF6E3M2FN      = 33
)

var pjrtToElem = map[int]ir.ElemType{
	pjrtPred: ir.Pred, pjrtS8: ir.S8, pjrtS16: ir.S16, pjrtS32: ir.S32, pjrtS64: ir.S64,
	pjrtU8: ir.U8, pjrtU16: ir.U16, pjrtU32: ir.U32, pjrtU64: ir.U64,
	pjrtF16: ir.F16, pjrtF32: ir.F32, pjrtF64: ir.F64, pjrtBF16: ir.BF16,
	pjrtC64: ir.C64, pjrtC128: ir.C128,
	pjrtF8E5M2: ir.F8E5M2, pjrtF8E4M3FN: ir.F8E4M3FN, pjrtF8E4M3B11FNUZ: ir.F8E4M3B11FNUZ,
	pjrtF8E5M2FNUZ: ir.F8E5M2FNUZ, pjrtF8E4M3FNUZ: ir.F8E4M3FNUZ,
	pjrtS4: ir.S4, pjrtU4: ir.U4, pjrtS2: ir.S2, pjrtU2: ir.U2,
	pjrtF8E4M3: ir.F8E4M3, pjrtF8E3M4: ir.F8E3M4, pjrtF8E8M0FNU: ir.F8E8M0FNU,
	pjrtF4E2M1FN: ir.F4E2M1FN, pjrtS1: ir.S1, pjrtU1: ir.U1,
	pjrtF6E2M3FN: ir.F6E2M3FN, pjrtF6E3M2FN: ir.F6E3M2FN,
}

var elemToPjrt = func() map[ir.ElemType]int {
	m := map[ir.ElemType]int{}
	for k, v := range pjrtToElem {
		m[v] = k
	}
	return m
}()

// elemFromPjrt maps a PJRT_Buffer_Type to an element type (tokens excluded).
func elemFromPjrt(t int) (ir.ElemType, bool) {
	e, ok := pjrtToElem[t]
	return e, ok
}

// pjrtType maps a value type to its PJRT_Buffer_Type.
func pjrtType(t ir.Type) int {
	switch t := t.(type) {
	case *ir.TensorType:
		return elemToPjrt[t.Elem]
	case *ir.TokenType:
		return pjrtToken
	}
	return pjrtInvalid
}
