package kernel

import (
	"fmt"

	"github.com/gojax/gojax/go/ir"
)

// Traits are the facts about an op that the compiler, the verifier and
// other kernel families need besides its lowering. They are registered with
// the lowering (RegisterOp) so each fact lives once, in the op's kernel file:
// adding an elementwise op is one kernel file, and the planner, the fusion
// pass and the fused kernels learn about it from here.
type Traits struct {
	// Opcode is assigned by the registry: a small number naming the op
	// that kernels compare instead of op names.
	Opcode Opcode
	// Elementwise: result element i depends only on element i of each
	// operand (or on a one-element broadcast operand).
	Elementwise bool
	// Arity is the operand count (0 when it varies).
	Arity int
	// InPlace: the planner may give the result the buffer of a same-typed
	// operand whose last use is this op, so the kernel must be correct with
	// outs[0] aliasing that operand (an elementwise kernel is: it reads
	// element i of every operand before writing element i of its result).
	InPlace bool
	// Overwrites, when set, narrows InPlace to the operands it accepts: the
	// result may be written over v's buffer (a fusion's operands read at
	// the result's index, dynamic_update_slice's updated array).
	Overwrites func(op *ir.Op, v *ir.Value) bool
	// Loop, when set, makes the op a fusion member: it returns the op's
	// loop for these operand and result types and attributes, or false
	// where the op's own kernel would reject them or there is no loop (the
	// op then stays unfused and fails or runs as it would unfused).
	// Operands and results are static tensors when it is called.
	Loop func(op *ir.Op) (Loop, bool)
	// Class, for a unary or binary op whose operands and result share one
	// type, is the set of element types StableHLO allows (the verifier's
	// rule).
	Class ElemClass
	// TypeRule is the rest of the op's StableHLO type rule: the whole rule
	// of an op whose result type differs from its operands' (convert,
	// compare, select, …), the attributes of a same-type op. The verifier
	// checks every op that registers a Class or a TypeRule from these two
	// alone, once it is linked in when the verifier initializes (go/verify
	// imports the kernel packages whose rules it applies).
	TypeRule TypeRule
	// Transcendental: an elementwise op that counts as one transcendental
	// per element in cost analysis (exp, log, tanh, sqrt, …) rather than
	// one flop (WorkOf).
	Transcendental bool
	// Cost, when set, is the op's work for cost analysis (cost.go); ops
	// that compute something other than one value per result element (dot,
	// convolution, reduce, …) or that read part of an operand (slice,
	// gather) set it.
	Cost func(op *ir.Op) Work
	// Identity, for a binary elementwise op, reports whether the one
	// element v (storage bytes) of type e is the op's identity on e:
	// op(v, x) = op(x, v) = x for every x of e (a NaN x gives a NaN).
	// Compiler rewrites drop such an op; nil is no identity known.
	Identity func(e ir.ElemType, v []byte) bool
	// Storage: the op moves, selects or passes elements without computing
	// on their values (reshape, gather, select, …), or computes only in its
	// body (reduce, scatter, map, …), so on quantized tensors it runs on the
	// stored integers as they are, and its body's ops are quantized ops in
	// their own right; every other op on them is dequantize, op, quantize
	// (StableHLO spec, "Quantization"; QuantStorage).
	Storage bool
	// StorageShared lists, for a Storage op, the operands whose element
	// type, quantization included, its results have; nil is every operand,
	// an empty list none (bitcast_convert).
	StorageShared []int
}

// Opcode names a registered op without its string: 0 is no op.
type Opcode uint16

// Name is the op name registered under c.
func (c Opcode) Name() string {
	mu.RLock()
	defer mu.RUnlock()
	if int(c) < len(opNames) {
		return opNames[c]
	}
	return ""
}

// Loop is an elementwise op's loop over a run of elements in gojax storage
// layout, for kernels that fuse ops (go/kernels/fused): the element count is
// len(d) divided by the result element size and operands hold that many
// elements, except where the op's kernel accepts a one-element broadcast
// (select's predicate, clamp's bounds). Loops do not allocate, keep no
// reference to their arguments and may run concurrently on disjoint
// slices; each computes every element as the op's own kernel does, so a
// fused plan's results are the unfused plan's bits.
type Loop struct {
	// Op is the member's opcode.
	Op Opcode
	// Exactly one of F1, F2, F3 is set, by arity.
	F1 func(d, a []byte)
	F2 func(d, a, b []byte)
	F3 func(d, a, b, c []byte)
	// Scalar returns F2 with operand j (0 or 1) holding one element (a
	// broadcast scalar), when the op has such a loop.
	Scalar func(j int) (func(d, v, s []byte), bool)
	// Affine is a binary op's part in an affine prologue x*s + o when its
	// second operand is a broadcast scalar.
	Affine AffineRole
	// AffineLoop, for a unary op, computes op(src*scale[0] + offset[0]),
	// the multiply and the add each rounded (scale 1 and offset -0 stand
	// for a missing step), so a multiply and an add by broadcast scalars
	// fold into the member without changing results.
	AffineLoop func(d, src, scale, offset []byte)
	// AffineThen, for a unary op with AffineLoop, is AffineLoop followed
	// by the binary loop bin with an array operand w: d[i] = bin(r, w[i])
	// when unaryFirst, else bin(w[i], r).
	AffineThen func(bin Loop, unaryFirst bool) (func(d, src, w, scale, offset []byte), bool)
	// Cost is the relative cost per element: 1 for a few-ns op, 8 for
	// transcendental functions, emulated float types and complex math.
	Cost int
}

// AffineRole is a binary loop's part in an affine prologue.
type AffineRole uint8

const (
	AffineNone   AffineRole = iota
	AffineScale             // x * s
	AffineOffset            // x + s
)

// ElemClass is a set of element-type kinds.
type ElemClass uint8

const (
	ClassBool ElemClass = 1 << iota
	ClassSigned
	ClassUnsigned
	ClassFloat
	ClassComplex

	ClassInt     = ClassSigned | ClassUnsigned
	ClassIntBool = ClassInt | ClassBool
	ClassFC      = ClassFloat | ClassComplex
	ClassSFC     = ClassSigned | ClassFloat | ClassComplex
	ClassNumeric = ClassInt | ClassFloat | ClassComplex
	ClassAll     = ClassNumeric | ClassBool
)

var (
	traits  = map[string]Traits{}
	opNames = []string{""}
	opcodes = map[string]Opcode{}
)

// RegisterOp installs the lowering of a StableHLO op (or of a compiler op,
// "gojax.fusion") together with its traits.
func RegisterOp(name string, l Lower, t Traits) {
	Register(name, l)
	mu.Lock()
	defer mu.Unlock()
	t.Opcode = opcodeLocked(name)
	traits[name] = t
}

func opcodeLocked(name string) Opcode {
	if c, ok := opcodes[name]; ok {
		return c
	}
	if len(opNames) >= 1<<16 {
		panic(fmt.Sprintf("kernel: too many ops registering %s", name))
	}
	c := Opcode(len(opNames))
	opNames = append(opNames, name)
	opcodes[name] = c
	return c
}

// TraitsOf returns the traits registered with an op (zero for an op
// registered without traits or not at all).
func TraitsOf(name string) Traits {
	mu.RLock()
	defer mu.RUnlock()
	return traits[name]
}

// OpcodeOf returns the opcode of an op registered with traits.
func OpcodeOf(name string) (Opcode, bool) {
	mu.RLock()
	defer mu.RUnlock()
	c, ok := opcodes[name]
	return c, ok
}
