"""Refines a shape-polymorphic jax.export artifact to static shapes.

Usage: python refine_polymorphic.py IN.bc OUT.bc SHAPE...   (SHAPE like 4x3, or "" for a scalar)

gojax IR is static. JAX never sends dynamic shapes to a PJRT plugin: it refines
shape-polymorphic modules against the actual argument shapes first (as
jax.export's call path and XlaCallModule do). This script does the same for a
bare artifact: it wraps the polymorphic @main in a static @main that converts
its arguments, runs jaxlib's refine_polymorphic_shapes, and re-serializes the
result as a portable artifact that vhlo.Read accepts.
"""
import sys

from jax._src.interpreters import mlir as jmlir
from jax._src.lib import _jax
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import func as func_dialect
from jax._src.lib.mlir.dialects import hlo


def refine(data: bytes, arg_shapes, target="1.13.0") -> bytes:
    ctx = jmlir.make_ir_context()
    with ctx, ir.Location.unknown():
        module = _jax.mlir.deserialize_portable_artifact(data)
        main = next(op for op in module.body.operations if op.operation.attributes["sym_name"].value == "main")
        main.operation.attributes["sym_name"] = ir.StringAttr.get("_polymorphic_main")
        main.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
        ftype = ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value)
        static_inputs = [ir.RankedTensorType.get(shape, ir.RankedTensorType(t).element_type)
                         for t, shape in zip(ftype.inputs, arg_shapes)]
        with ir.InsertionPoint(module.body):
            wrapper = func_dialect.FuncOp("main", (static_inputs, list(ftype.results)))
            wrapper.attributes["sym_visibility"] = ir.StringAttr.get("public")
            block = wrapper.add_entry_block()
            with ir.InsertionPoint(block):
                args = [hlo.convert(t, a) for t, a in zip(ftype.inputs, block.arguments)]
                call = func_dialect.CallOp(list(ftype.results), ir.FlatSymbolRefAttr.get("_polymorphic_main"), args)
                func_dialect.ReturnOp(call.results)
        text = str(module)
    refined = _jax.mlir.refine_polymorphic_shapes(text.encode(), enable_shape_assertions=True, validate_static_shapes=True)
    with ctx:
        return _jax.mlir.serialize_portable_artifact(ir.Module.parse(refined), target, True)


if __name__ == "__main__":
    shapes = [tuple(int(d) for d in s.split("x")) if s else () for s in sys.argv[3:]]
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    with open(sys.argv[2], "wb") as f:
        f.write(refine(data, shapes))
