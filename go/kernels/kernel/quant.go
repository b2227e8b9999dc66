package kernel

// passValues are ops without a kernel of their own that pass values
// through unchanged (constants, tuples, control flow, calls, custom calls,
// host transfers): on quantized tensors they carry the stored integers.
var passValues = map[string]bool{
	"stablehlo.constant": true, "stablehlo.tuple": true, "stablehlo.get_tuple_element": true,
	"stablehlo.optimization_barrier": true, "stablehlo.while": true, "stablehlo.if": true,
	"stablehlo.case": true, "stablehlo.return": true, "func.return": true, "func.call": true,
	"stablehlo.custom_call": true, "stablehlo.infeed": true, "stablehlo.outfeed": true,
	"stablehlo.send": true, "stablehlo.recv": true,
}

// QuantStorage reports whether the op runs on quantized tensors' stored
// integers as they are (Traits.Storage, or an op that passes values), and
// which operands' element type its results share: all of them when
// sharesAll, else those in shared (none for ops whose own type rule
// relates them).
func QuantStorage(name string) (storage bool, shared []int, sharesAll bool) {
	if passValues[name] {
		return true, nil, false
	}
	t := TraitsOf(name)
	if !t.Storage {
		return false, nil, false
	}
	return true, t.StorageShared, t.StorageShared == nil
}
