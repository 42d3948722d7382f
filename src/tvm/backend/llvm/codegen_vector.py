"""Call handlers of the LLVM code generator for vector builtins (``CodeGenLLVM``'s
``_CALL_HANDLERS`` entries): ``T.vscale()``, ``T.get_active_lane_mask`` and
``T.tvm_access_ptr``. Each takes the code generator and the ``Call``."""

from __future__ import annotations

from ...runtime.data_type import dtype_info
from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .codegen_expr import I64, _type_suffix, storage_type, value_type

__all__ = ["emit_access_ptr", "emit_active_lane_mask", "emit_vscale"]


def _declare(gen, name, ftype):
    existing = gen.module.globals.get(name)
    return existing if existing is not None else ir.Function(gen.module, ftype, name)


def emit_active_lane_mask(gen, op):
    """``T.get_active_lane_mask(dtype, base, limit)``: ``llvm.get.active.lane.mask``."""
    base, limit = (gen.emit_expr(a) for a in op.args)
    wide = "int64" if "int64" in (op.args[0].dtype, op.args[1].dtype) else "int32"
    base = gen.cast_value(base, op.args[0].dtype, wide)
    limit = gen.cast_value(limit, op.args[1].dtype, wide)
    ty = value_type(op.dtype)
    name = f"llvm.get.active.lane.mask.{_type_suffix(ty)}.{_type_suffix(base.type)}"
    fn = _declare(gen, name, ir.FunctionType(ty, [base.type, base.type]))
    return gen.builder.call(fn, [base, limit])


def emit_access_ptr(gen, op):
    """``T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask)``: the
    address of element ``offset`` (in units of ``dtype``) of ``data``."""
    dtype = op.args[0].dtype
    base = gen.emit_expr(op.args[1])
    offset = gen.cast_value(gen.emit_expr(op.args[2]), op.args[2].dtype, "int64")
    element, lanes = dtype_info(dtype).element, dtype_info(dtype).lanes
    if lanes != 1:
        offset = gen.builder.mul(offset, ir.Constant(I64, lanes))
    return gen.builder.gep(base, [offset], source_etype=storage_type(element))


def emit_vscale(gen, op):
    """``T.vscale()``: LLVM's ``llvm.vscale`` (the CPU's scalable vector length factor)."""
    ty = value_type(op.dtype)
    name = f"llvm.vscale.i{ty.width}"
    return gen.builder.call(_declare(gen, name, ir.FunctionType(ty, [])), [])
