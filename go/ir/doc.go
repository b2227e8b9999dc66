// Package ir is gojax's in-memory form of a StableHLO program: what
// vhlo.Read decodes a portable artifact into, verify.Module checks, the
// compiler's passes rewrite and its planner lowers, and print.go writes as
// MLIR text.
//
// # Structure
//
// A Module holds Funcs, module attributes (replica and partition counts,
// Shardy meshes) and Globals, ops outside any function kept for reference.
// Module.Main names the entry function: "main", else the only public one.
//
// A Func has a signature (FuncType), per-argument and per-result attribute
// sets, and a Body: a Region of exactly one Block whose arguments are the
// parameters and whose last op is "func.return".
//
// An Op has a canonical name ("stablehlo.add", "func.call",
// "stablehlo.return"; other dialects keep their own, such as "sdy.*"),
// operands, results, attributes, optional nested Regions (while bodies,
// reduce bodies, comparators) and a Location. A Region is a list of Blocks;
// StableHLO regions hold one. A Block is a straight-line list of ops that
// ends in its terminator: "func.return" in a function body,
// "stablehlo.return" (or "sdy.return") in an op's region.
//
// A Value is an SSA value: defined once, as an op result (Def, Index) or a
// block argument (Block, Index), and used by any number of ops as an
// operand. Values are identified by pointer; the IR keeps no use lists, so
// finding the users of a value means walking the ops (Region.Walk). Every
// value has a Type: a *TensorType (static shape, every dim >= 0, an
// ElemType, and for !quant.uniform elements a Quant whose ElemType is the
// storage type: quant.go), a *TokenType that only orders side effects, or a *TupleType.
// Scope follows StableHLO: regions are not isolated from above, so an op in
// a region may use any value defined earlier in an enclosing block.
//
// # Links
//
// Objects point both ways, and code that builds or rewrites IR keeps the
// back-pointers right: a result has Def set to its op and Index to its
// position in Results; a block argument has Block set to its block, Index
// to its position and Def nil; an op's Block is the block holding it, a
// block's Region the region holding it, and a region's Parent the op that
// owns it (nil for a function body). NewOp, NewBlock, Block.Append,
// NewRegion and Op.AddRegion set them. NewOp keeps the operand slice it is
// given and makes a fresh Attrs when given nil.
//
// # Sharing
//
// Several things are shared between objects and must be treated as
// immutable; to change one, build a new one and assign it:
//
//   - Attrs maps and the attribute values in them: the reader decodes one
//     map per distinct attribute dictionary and gives it to every op that
//     has it (an *ElementsAttr's Data included), and the compiler's clone
//     of a module keeps them. Replace an op's Attrs, never write into it.
//   - Locations: the reader gives one *Location to every op that carries
//     that location. A nil *Location is the unknown location, and its
//     methods accept it.
//   - Types: the reader shares one Type object among the values of a type,
//     and clones keep them. Never change a TensorType's Shape or Elem in
//     place.
//
// What is not shared belongs to its owner: a Value to the op or block that
// defines it, an Op to its block, a Block to its region, a Region to its op
// or function.
//
// # Invariants
//
// verify.Module checks a module before it is compiled: function names are
// non-empty and unique; each body has one block whose arguments match the
// signature and which ends in func.return with values of the result types;
// every operand is defined before its use, in its block or an enclosing
// one; each result points back to its op at its index; regions are not
// empty and their blocks end in a terminator, with no terminator before
// the last op; every type is well formed; every op name is one gojax knows
// (Shardy ops and unrealized casts are accepted unchecked), and each known
// op satisfies its own rule from the StableHLO spec (operand and result
// counts and types, required attributes, region signatures, callees that
// exist). The compiler checks the structural part again after every pass
// (back-pointers of blocks, regions, ops, results and block arguments
// included), so a pass that breaks the IR is named at once.
package ir
