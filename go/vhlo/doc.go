// Package vhlo turns a StableHLO portable artifact (VHLO dialect in MLIR
// bytecode, any format version 0–6, StableHLO 0.9.0 through MaxVersion) into
// gojax IR. go/mlirbc does the generic bytecode reading; this package knows
// the VHLO, builtin and Shardy encodings.
//
// What the IR looks like:
//
//   - Every vhlo.<op>_vN becomes "stablehlo.<op>" whatever its version;
//     func_v1 becomes an ir.Func, call_v1 "func.call" (callee a SymbolRefAttr),
//     return_v1 "func.return" in a function body and "stablehlo.return" in op
//     regions. Shardy ops keep their names ("sdy.mesh" is a Module.Global),
//     and casts stay "builtin.unrealized_conversion_cast" (identity).
//   - Only the entry function ("main", else every public one) and what it
//     reaches through symbol references (calls, composite decompositions,
//     custom_call called_computations) are decoded and returned.
//   - Attribute names are VHLO's (= the StableHLO spec's, with struct
//     attributes such as #stablehlo.dot / gather / scatter / conv flattened
//     into their fields: lhs_contracting_dimensions, offset_dims,
//     input_batch_dimension, …).
//   - Integer-list tensors become ir.DenseI64Attr (bool lists DenseBoolAttr),
//     flattened row-major: padding (N×2) is [lo0, hi0, lo1, hi1, …];
//     custom_call operand/result layouts are ArrayAttrs of DenseI64Attr.
//     replica_groups and source_target_pairs keep their 2-D shape as
//     *ir.ElementsAttr.
//   - Enums are ir.EnumAttr with the kinds of go/ir/attrs.go; precision_config
//     is an ArrayAttr of them. result_accuracy is a DictAttr (atol, rtol,
//     ulps, mode), omitted when it is the default. VHLO's "unset" markers
//     (#vhlo.type_v1<!vhlo.none_v1>, e.g. the dot_general algorithm fields)
//     are omitted; set algorithm types are TypeAttrs of scalar tensors.
//   - Constants are *ir.ElementsAttr in gojax layout: splats expanded, i1 one
//     byte 0/1 per element, sub-byte integers one byte per element holding
//     the full value (sign-extended for i2/i4), sub-byte floats one byte with
//     the bit pattern in the low bits, complex as (re, im), tensor<…xindex>
//     read as i64.
//   - Shardy attributes are ir.OpaqueAttr{Dialect: "sdy"} whose Text is
//     Shardy's own syntax (#sdy.sharding<@mesh, [{"a"}, {}]>); other foreign
//     attributes are OpaqueAttrs too.
//   - Locations: Name is the outermost NameLoc ("jit(f)/sin"), File/Line/Col
//     the innermost call site's file position.
//   - Attribute values are shared between ops that use the same bytecode
//     entry: treat them as immutable.
//
// Types gojax cannot represent (dynamic or bounded-dynamic shapes, unranked
// tensors, async futures, buffers) make Read fail with an
// error naming the function or op and the type.
package vhlo
