"""Turns a StableHLO round-trip test into a self-checking program.

The testdata corpus has ~390 programs upstream only serializes and
deserializes: no inputs, no expected values, no checks. Their @main is
shape-polymorphic in JAX's old style: leading tensor<i32>/tensor<i64>
arguments carry the dimension sizes, the array arguments have '?' dims.
JAX never hands such a program to a plugin as is; it refines it to the
concrete shapes first. This module does the same with one size for every
dimension variable (a valid assignment, since each '?' is one variable):

  1. wrap @main: a static @main taking the arrays with '?' set to the size,
     passing the size as a constant for each dimension argument;
  2. refine with jaxlib's refine_polymorphic_shapes (as jax.export does);
  3. run the refined program on XLA:CPU with deterministic random inputs;
  4. emit a program whose @main takes nothing, calls the refined function on
     the inputs as constants, and checks each result against XLA's:
     integers exactly (check.expect_eq); floats of programs that accumulate
     (dot_general, convolution, reduce, reduce_window) within an error bound
     computed from the inputs (check.expect_within, see error_bound); other
     floats as JAX's test suite compares two backends (check.expect_allclose,
     numpy.allclose with JAX's default per-dtype tolerance as both rtol and
     atol): two correct engines may round transcendental functions
     differently.

Why a bound for accumulations: XLA's own sums differ between CPUs (blocking,
FMA use and summation order follow the machine), so a fixed rtol/atol that
holds on one CPU fails on another. Any summation order satisfies
|computed - exact| <= gamma_n * sum|terms| (gamma_n = n*u/(1-n*u), u the
unit roundoff), so gojax and XLA may differ by twice that.

So these cases are differential tests against XLA:CPU, not against an
independent oracle; the case note says so.
"""

import re

import numpy as np

# Bump when the generated program changes, so cached artifacts are rebuilt.
VERSION = "5"

# jax._src.public_test_util default tolerances (rtol = atol), per element type.
TOLERANCE = {"f16": 1e-3, "bf16": 1e-2, "f32": 1e-6, "f64": 1e-15,
             "complex<f32>": 1e-6, "complex<f64>": 1e-15}

# Sizes tried for the dimension variables (a few programs need more room,
# e.g. a strided convolution over a dynamic spatial dimension).
SIZES = (3, 4, 8)


class NotRunnable(Exception):
  """The program cannot be made runnable (not a gojax failure)."""


def _dtypes():
  import ml_dtypes
  return {
      "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
      "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
      "complex<f32>": np.complex64, "complex<f64>": np.complex128,
  }


def _is_dim_arg(t, ir):
  rt = ir.RankedTensorType(t)
  return rt.rank == 0 and str(rt.element_type) in ("i32", "i64")


def _main(module, ir):
  for op in module.body.operations:
    attrs = op.operation.attributes
    if "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value == "main":
      return op
  raise NotRunnable("no @main")


def count_results(text, make_ctx):
  """Number of @main results (one check each)."""
  from jax._src.lib.mlir import ir
  with make_ctx():
    module = ir.Module.parse(text)
    main = _main(module, ir)
    return len(ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value).results)


def refine(text, size, make_ctx):
  """Returns the refined module (bytecode) with a static @main of arrays."""
  from jax._src.lib import _jax
  from jax._src.lib.mlir import ir
  from jax._src.lib.mlir.dialects import func as func_dialect
  from jax._src.lib.mlir.dialects import hlo
  with make_ctx(), ir.Location.unknown():
    module = ir.Module.parse(text)
    main = _main(module, ir)
    main.operation.attributes["sym_name"] = ir.StringAttr.get("_polymorphic_main")
    main.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
    ftype = ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value)
    ins = list(ftype.inputs)
    ndim = 0
    while ndim < len(ins) and _is_dim_arg(ins[ndim], ir):
      ndim += 1
    if any(_is_dim_arg(t, ir) for t in ins[ndim:]) and ndim == 0:
      raise NotRunnable("no leading dimension arguments")
    static = []
    for t in ins[ndim:]:
      rt = ir.RankedTensorType(t)
      shape = [size if rt.is_dynamic_dim(i) else rt.get_dim_size(i) for i in range(rt.rank)]
      static.append(ir.RankedTensorType.get(shape, rt.element_type))
    with ir.InsertionPoint(module.body):
      wrapper = func_dialect.FuncOp("main", (static, list(ftype.results)))
      wrapper.attributes["sym_visibility"] = ir.StringAttr.get("public")
      block = wrapper.add_entry_block()
      with ir.InsertionPoint(block):
        args = []
        for t in ins[:ndim]:
          dt = np.int64 if str(ir.RankedTensorType(t).element_type) == "i64" else np.int32
          args.append(hlo.constant(ir.DenseElementsAttr.get(np.array(size, dtype=dt), type=t)))
        args += [hlo.convert(t, a) for t, a in zip(ins[ndim:], block.arguments)]
        call = func_dialect.CallOp(list(ftype.results), ir.FlatSymbolRefAttr.get("_polymorphic_main"), args)
        func_dialect.ReturnOp(call.results)
    wrapped = str(module)
  return _jax.mlir.refine_polymorphic_shapes(
      wrapped.encode(), enable_shape_assertions=True, validate_static_shapes=True)


def _inputs(types, seed, ir):
  rng = np.random.default_rng(seed)
  dts = _dtypes()
  out = []
  for t in types:
    rt = ir.RankedTensorType(t)
    et = str(rt.element_type)
    if et not in dts:
      raise NotRunnable(f"input element type {et} has no generator")
    shape = [rt.get_dim_size(i) for i in range(rt.rank)]
    dt = dts[et]
    if et == "i1":
      a = rng.integers(0, 2, size=shape).astype(np.bool_)
    elif et.startswith("ui"):
      a = rng.integers(0, 10, size=shape).astype(dt)
    elif et.startswith("i"):
      a = rng.integers(-5, 6, size=shape).astype(dt)
    elif et.startswith("complex"):
      a = (rng.standard_normal(shape) * 3 + 1j * rng.standard_normal(shape) * 3).astype(dt)
    else:
      a = (rng.standard_normal(shape) * 3).astype(dt)
    out.append(np.asarray(a, dtype=dt))
  return out


def _run_xla(refined, *input_sets):
  """Compiles the refined program on XLA:CPU once; one output list per input set."""
  import jax
  from jax._src import xla_bridge
  # Without x64, device_put narrows 64-bit inputs (this process only
  # serializes, so the global switch is harmless).
  jax.config.update("jax_enable_x64", True)
  backend = xla_bridge.get_backend("cpu")
  exe = backend.compile_and_load(refined, backend.devices()[:1])
  outs = []
  for inputs in input_sets:
    bufs = [jax.device_put(a, backend.devices()[0]) for a in inputs]
    outs.append([np.asarray(o) for o in exe.execute(bufs)])
  return outs


# Ops through which a program of |inputs| computes, per result element, an
# upper bound of the sum of the magnitudes of the terms XLA or gojax add up
# (every op is monotone in the magnitudes of its operands, no cancellation
# can be hidden): with all-ones inputs the same program counts the terms.
_MONOTONE = {
    "stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.reduce",
    "stablehlo.reduce_window", "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
    "stablehlo.convert", "stablehlo.slice", "stablehlo.concatenate", "stablehlo.pad",
    "stablehlo.reverse", "stablehlo.constant", "stablehlo.return", "func.return", "func.call",
    "func.func"}
_ACCUMULATING = {"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution",
                 "stablehlo.reduce", "stablehlo.reduce_window"}
# Ops that round a product (one more rounding per term than the count of terms).
_PRODUCTS = {"stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.multiply"}


def _unit_roundoff(et):
  """u of a float element type name (complex: of its parts); None for others
  (the narrow formats: their programs keep the fixed tolerance)."""
  et = et.removeprefix("complex<").removesuffix(">")
  return {"f16": 2.0**-11, "bf16": 2.0**-8, "f32": 2.0**-24, "f64": 2.0**-53}.get(et)


def _elem(t, ir):
  """The element type name of a ranked tensor type, "" for other types."""
  try:
    return str(ir.RankedTensorType(t).element_type)
  except ValueError:
    return ""


def _bound_plan(module, ir):
  """(u, products) when every result's error is bounded by gamma_n times the
  program on |inputs|: the program accumulates, uses only _MONOTONE ops,
  non-negative float constants (±inf as reduction identities) and no product
  reductions; u is the largest unit roundoff of its float types and products
  the number of product-rounding ops. None otherwise."""
  state = {"accumulates": False, "ok": True, "u": 0.0, "products": 0}

  def visit(op, in_reduction_body):
    name = op.name
    if name not in _MONOTONE:
      state["ok"] = False
      return
    if name in _ACCUMULATING:
      state["accumulates"] = True
    if name in _PRODUCTS:
      state["products"] += 1
      if in_reduction_body:  # a product reduction: the term count is wrong
        state["ok"] = False
    for r in op.results:
      et = _elem(r.type, ir)
      if et.startswith(("f", "bf", "complex")):
        u = _unit_roundoff(et)
        if u is None:
          state["ok"] = False
        else:
          state["u"] = max(state["u"], u)
    if name == "stablehlo.constant":
      if _elem(op.results[0].type, ir).startswith(("f", "bf", "complex")):
        try:
          v = np.asarray(np.array(ir.DenseElementsAttr(op.attributes["value"])), dtype=np.complex128)
        except Exception:  # a type numpy cannot read back
          state["ok"] = False
          return
        if np.any(v.imag != 0) or np.any((v.real < 0) & np.isfinite(v.real)):
          state["ok"] = False
    body = in_reduction_body or name in ("stablehlo.reduce", "stablehlo.reduce_window")
    for region in op.regions:
      for block in region.blocks:
        for inner in block.operations:
          visit(inner.operation, body)

  for op in module.body.operations:
    visit(op.operation, False)
  if not (state["ok"] and state["accumulates"] and state["u"] > 0):
    return None
  return state["u"], state["products"]


def error_bound(magnitude, count, u, products, result_dtype):
  """Per-element allowed |gojax - XLA|, in float64.

  magnitude: the program's result on |inputs| (an upper bound of
  sum|terms| per element, computed by XLA in the result type, so it may be
  low by a factor 1 - gamma_n: divided by that); count: its result on
  all-ones inputs (the number of terms n per element); u: the program's
  largest unit roundoff; products: product-rounding ops, each adding one
  rounding per term. Each engine is within gamma_n * sum|terms| of the exact
  value (sqrt 2 more for complex products), so the two within twice that;
  plus the type's smallest normal for underflow. inf where gamma_n >= 1 or
  the inputs say nothing (NaN)."""
  import ml_dtypes
  mag = np.abs(np.asarray(magnitude, dtype=np.complex128)).astype(np.float64)
  n = np.abs(np.asarray(count, dtype=np.complex128)).astype(np.float64) + products
  nu = n * u
  with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
    gamma = np.where(nu < 1, nu / (1 - nu), np.inf)
    bound = np.where(gamma < 1, 2 * gamma * mag / (1 - gamma), np.inf)
  if np.issubdtype(result_dtype, np.complexfloating):
    bound = bound * np.sqrt(2)
    part = np.float32 if result_dtype == np.complex64 else np.float64
  else:
    part = result_dtype
  tiny = float(ml_dtypes.finfo(part).tiny)
  bound = np.where(np.isnan(bound), np.inf, bound) + tiny
  return bound


def _const(name, a, tensor_type):
  """SSA lines defining %name as the constant a of tensor_type (i1 via i8)."""
  data = np.ascontiguousarray(a)
  if str(tensor_type).endswith("xi1>") or str(tensor_type) == "tensor<i1>":
    i8 = str(tensor_type)[:-3] + "i8>"
    hexed = data.astype(np.uint8).tobytes().hex().upper()
    return [f'%{name}_i8 = stablehlo.constant dense<"0x{hexed}"> : {i8}',
            f"%{name} = stablehlo.convert %{name}_i8 : ({i8}) -> {tensor_type}"]
  if data.size == 0:
    return [f"%{name} = stablehlo.constant dense<> : {tensor_type}"]
  return [f'%{name} = stablehlo.constant dense<"0x{data.tobytes().hex().upper()}"> : {tensor_type}']


def self_checking(text, seed, make_ctx):
  """Returns (program text, number of checks) for a round-trip test."""
  from jax._src.lib.mlir import ir
  last = None
  for size in SIZES:
    try:
      refined = refine(text, size, make_ctx)
      break
    except NotRunnable:
      raise
    except Exception as e:  # refinement rejects this size (shape assertions)
      last = e
  else:
    msg = " ".join(str(last).split())
    m = re.search(r"error: (.*?)(?: -:\d+:\d+: note:|$)", msg)
    raise NotRunnable("shape refinement failed for sizes " + ", ".join(map(str, SIZES)) + ": "
                      + (m.group(1) if m else msg)[:300])
  with make_ctx():
    module = ir.Module.parse(refined)
    main = _main(module, ir)
    ftype = ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value)
    in_types, out_types = list(ftype.inputs), list(ftype.results)
    out_elems, out_shapes = [], []
    for t in out_types:
      try:
        rt = ir.RankedTensorType(t)
      except ValueError:
        raise NotRunnable(f"result type {t} is not a tensor")
      out_elems.append(str(rt.element_type))
      out_shapes.append(tuple(rt.get_dim_size(i) for i in range(rt.rank)))
    inputs = _inputs(in_types, seed, ir)
    plan = _bound_plan(module, ir)
    if plan is not None and not all(_elem(t, ir).startswith(("f", "bf", "complex")) for t in in_types):
      plan = None  # integer inputs may be indices or counts, not terms
    if plan is None:
      [outputs] = _run_xla(refined, inputs)
    else:
      outputs, magnitudes, counts = _run_xla(
          refined, inputs, [np.abs(a).astype(a.dtype) for a in inputs], [np.ones_like(a) for a in inputs])
    main.operation.attributes["sym_name"] = ir.StringAttr.get("_refined_main")
    main.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
    body = str(module)
  ins_t = [str(t) for t in in_types]
  outs_t = [str(t) for t in out_types]
  lines = []
  for i, (a, t) in enumerate(zip(inputs, ins_t)):
    lines += _const(f"in{i}", a, t)
  args = ", ".join(f"%in{i}" for i in range(len(ins_t)))
  call = f"func.call @_refined_main({args}) : ({', '.join(ins_t)}) -> ({', '.join(outs_t)})"
  if len(outs_t) == 0:
    lines.append(call)
    results = []
  elif len(outs_t) == 1:
    lines.append(f"%r = {call}")
    results = ["%r"]
  else:
    lines.append(f"%r:{len(outs_t)} = {call}")
    results = [f"%r#{i}" for i in range(len(outs_t))]
  for i, (r, a, t) in enumerate(zip(results, outputs, outs_t)):
    lines += _const(f"want{i}", a.reshape(out_shapes[i]), t)
    integral = re.fullmatch(r"u?i\d+", out_elems[i]) is not None
    if integral:
      lines.append(f"stablehlo.custom_call @check.expect_eq({r}, %want{i}) {{has_side_effect = true}} : ({t}, {t}) -> ()")
    else:
      if out_elems[i] not in TOLERANCE:
        raise NotRunnable(f"no tolerance for result element type {out_elems[i]}")
      bound = None
      if plan is not None:
        bound = error_bound(magnitudes[i], counts[i], plan[0], plan[1], a.dtype)
        if np.isinf(bound).any() and not np.isinf(magnitudes[i]).any():
          bound = None  # gamma_n >= 1: the bound says nothing, keep allclose
      if bound is not None:
        bt = "tensor<" + "".join(f"{d}x" for d in out_shapes[i]) + "f64>"
        lines += _const(f"bound{i}", bound.reshape(out_shapes[i]), bt)
        lines.append(f"stablehlo.custom_call @check.expect_within({r}, %want{i}, %bound{i}) "
                     f"{{has_side_effect = true}} : ({t}, {t}, {bt}) -> ()")
        continue
      tol = TOLERANCE[out_elems[i]]
      lines.append(f'stablehlo.custom_call @check.expect_allclose({r}, %want{i}) '
                   f'{{backend_config = "rtol={tol},atol={tol}", has_side_effect = true}} : ({t}, {t}) -> ()')
  # Results are returned too, so TestDumpOutputs can hand them to verdicts.py.
  if results:
    lines.append(f"func.return {', '.join(results)} : {', '.join(outs_t)}")
  else:
    lines.append("func.return")
  fn = (f"  func.func public @main() -> ({', '.join(outs_t)}) {{\n"
        + "".join(f"    {l}\n" for l in lines) + "  }\n")
  end = body.rstrip().rindex("}")
  return body[:end] + fn + body[end:], len(results)

