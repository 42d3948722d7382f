"""Type inference of ``relax.call_tir``: the declared output type, checked against the callee.

When the module being built (the BlockBuilder's) holds the called PrimFunc, each tensor
argument and each declared output must match the PrimFunc's buffer of the same position: the
same number of dimensions, the same dtype (unless unknown), and the same extent wherever both
are known. A symbolic extent of the PrimFunc (``n``) is bound by its first use and must agree
with every later one. Mismatches raise ``TypeError`` naming the position (so
``relax.analysis.well_formed`` rejects such a module, as in Apache TVM 0.27). Calls whose
arguments are not all tensors, or whose PrimFunc takes further parameters, are not checked.
"""

from __future__ import annotations

from ...ir.type import TupleType
from ..expr import Tuple
from ..ty import TensorType
from .infer_utils import op_name

__all__ = ["infer_call_tir", "infer_call_tir_inplace", "validate_call_tir_inplace"]


def _callee(call, bb):
    mod = getattr(bb, "_mod", None) if bb is not None else None
    if mod is None:
        return None
    func = mod.functions.get(call.args[0]) if call.args else None
    if func is None or type(func).__name__ != "PrimFunc":
        return None
    return func


def _static(dim):
    value = getattr(dim, "value", dim)
    return value if isinstance(value, int) else None


def _check_tensor(call, ty, buf, role, binding):
    if not isinstance(ty, TensorType):
        return
    if ty.ndim != -1 and ty.ndim != len(buf.shape):
        raise TypeError(
            f"{op_name(call)}: {role} has {ty.ndim} dimensions but the PrimFunc's buffer "
            f"{buf.name} has {len(buf.shape)}"
        )
    if ty.dtype not in ("void", "") and ty.dtype != buf.dtype:
        raise TypeError(
            f"{op_name(call)}: {role} has dtype {ty.dtype} but the PrimFunc's buffer "
            f"{buf.name} has dtype {buf.dtype}"
        )
    shape = getattr(ty.shape, "values", None)
    if shape is None or len(shape) != len(buf.shape):
        return
    for axis, (dim, expected) in enumerate(zip(shape, buf.shape)):
        want = _static(expected)
        if want is None and type(expected).__name__ in ("Var", "SizeVar"):
            bound = binding.get(id(expected))
            if bound is None:
                binding[id(expected)] = dim
                continue
            want = _static(bound)
        have = _static(dim)
        if want is not None and have is not None and want != have:
            raise TypeError(
                f"{op_name(call)}: {role} has extent {have} at axis {axis} but the PrimFunc's "
                f"buffer {buf.name} expects {want}"
            )


def infer_call_tir(call, bb=None):
    """``ty_args[0]`` (one output type or a tuple), after checking the callee's signature."""
    if not call.ty_args:
        raise TypeError(f"{op_name(call)} requires its output type (ty_args / out_ty)")
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    func = _callee(call, bb)
    if func is None or len(call.args) < 2:
        return out
    args = call.args[1]
    inputs = list(args.fields) if isinstance(args, Tuple) else [args]
    in_types = [a.ty for a in inputs]
    if isinstance(args, Tuple) is False and isinstance(args.ty, TupleType):
        in_types = list(args.ty.fields)
    out_types = list(out.fields) if isinstance(out, TupleType) else [out]
    n_extra = len(call.args[2].values) if len(call.args) > 2 and hasattr(call.args[2], "values") else 0
    if not all(isinstance(t, TensorType) for t in in_types + out_types):
        return out
    if len(func.params) != len(in_types) + len(out_types) + n_extra:
        # Kernels may take further scalar parameters filled in by the VM (output extents of
        # a dynamic op): positions are then not one-to-one, so nothing more is checked.
        return out
    binding = {}
    roles = [f"input {i}" for i in range(len(in_types))] + [
        f"output {i}" for i in range(len(out_types))
    ]
    for param, ty, role in zip(func.params, in_types + out_types, roles):
        buf = func.buffer_map.get(param)
        if buf is not None:
            _check_tensor(call, ty, buf, role, binding)
    return out


def _prove_same_shape(a, b) -> bool:
    from .infer_utils import prove_equal

    da, db = getattr(a.shape, "values", None), getattr(b.shape, "values", None)
    if da is None or db is None:
        return a.shape is not None and a.shape is b.shape
    return len(da) == len(db) and all(prove_equal(x, y) is True for x, y in zip(da, db))


def infer_call_tir_inplace(call, bb=None):
    """``call_tir_inplace``: TVM's checks of ``inplace_indices`` (ValueError), then the callee's
    signature, whose parameters are the inputs followed by the new (index -1) outputs."""
    if not call.ty_args:
        raise TypeError(f"{op_name(call)} requires its output type (ty_args / out_ty)")
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    outs = list(out.fields) if isinstance(out, TupleType) else [out]
    indices = [int(i) for i in call.attrs.inplace_indices]
    if len(indices) != len(outs):
        raise ValueError("There must be an in-place index specified for each output")
    args = call.args[1]
    if not isinstance(args, Tuple):
        raise TypeError(
            f"call_tir_inplace expects its arguments as an in-line tuple, got {type(args).__name__}"
        )
    seen = set()
    for i, index in enumerate(indices):
        if index < -1 or index >= len(args.fields):
            raise ValueError(
                f"In-place index {i} is out of range (must be between -1 and "
                f"{len(args.fields) - 1}, inclusive, but is {index})"
            )
        if index != -1:
            if index in seen:
                raise ValueError(
                    f"All in-place indices must be unique, but index {index} appears more "
                    "than once."
                )
            seen.add(index)
    if not seen:
        raise ValueError(
            "At least one index must have a value other than -1 (or else simply use call_tir)"
        )
    func = _callee(call, bb)
    if func is None:
        return out
    fresh = [t for t, index in zip(outs, indices) if index == -1]
    in_types = [a.ty for a in args.fields]
    n_extra = len(call.args[2].values) if len(call.args) > 2 and hasattr(call.args[2], "values") else 0
    if not all(isinstance(t, TensorType) for t in in_types + fresh):
        return out
    if len(func.params) != len(in_types) + len(fresh) + n_extra:
        return out
    binding = {}
    roles = [f"input {i}" for i in range(len(in_types))] + [
        f"output {i}" for i, index in enumerate(indices) if index == -1
    ]
    for param, ty, role in zip(func.params, in_types + fresh, roles):
        buf = func.buffer_map.get(param)
        if buf is not None:
            _check_tensor(call, ty, buf, role, binding)
    return out


def validate_call_tir_inplace(call):
    """``FValidate`` of ``call_tir_inplace``: each in-place output has exactly the type of the
    input it overwrites (checked by ``well_formed``, so a module parsed with
    ``check_well_formed=False`` may hold such a call, as in TVM)."""
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    outs = list(out.fields) if isinstance(out, TupleType) else [out]
    args = call.args[1]
    for i, index in enumerate(int(k) for k in call.attrs.inplace_indices):
        if index == -1:
            continue
        ty = outs[i]
        if not isinstance(ty, TensorType) or ty.shape is None or ty.dtype in ("void", ""):
            raise ValueError(
                "The output type for an in-place mutation must be a tensor with a defined shape "
                f"and dtype, but output {i} has type {ty}"
            )
        in_ty = args.fields[index].ty
        if not (isinstance(in_ty, TensorType) and in_ty.dtype == ty.dtype
                and _prove_same_shape(in_ty, ty)):
            raise ValueError(
                "The input used for an in-place mutation must be a tensor with identical shape "
                f"and dtype as the output.  However, output {i} with type {ty} is specified as "
                f"an in-place mutation of input {index} with type {in_ty}"
            )
