"""Core Relax call ops (``tvm.relax.op.base``): ``call_tir``, ``call_dps_packed``, packed calls,
``print``, ``assert_op``, ``shape_of``, ``tensor_to_shape`` / ``shape_to_tensor``, ``null_value``
and closures, with their inference and purity rules.

``R.print``, ``R.assert_op`` and ``invoke_closure`` are impure; a plain ``call_packed`` (a call
of an ``ExternFunc``) is impure through the ExternFunc's opaque, impure function type.
"""

from __future__ import annotations

from ...ir.expr import GlobalVar, PrimExpr, RelaxExpr
from ...ir.op import Op, register_op_attr
from ...ir.type import PrimType, TupleType, Type
from ..expr import Call, ExternFunc, PrimValue, ShapeExpr, StringImm, Tuple
from ..ty import ObjectType, ShapeType, TensorType
from .call_tir_check import (
    infer_call_tir,
    infer_call_tir_inplace,
    validate_call_tir,
    validate_call_tir_inplace,
)
from .infer_utils import op_name, text
from .op_attrs import CallTIRInplaceAttrs, CallTIRWithGradAttrs
from .registry import register_relax_op

__all__ = [
    "assert_op",
    "call_dps_packed",
    "call_packed",
    "call_pure_packed",
    "call_tir",
    "call_tir_inplace",
    "call_tir_with_grad",
    "invoke_closure",
    "invoke_pure_closure",
    "make_closure",
    "null_value",
    "print",
    "register_gradient",
    "register_relax_op",
    "shape_of",
    "shape_to_tensor",
    "tensor_to_shape",
]


def _out_type(call, _bb=None):
    """The type given at the call: ``ty_args[0]`` (one type) or a tuple of them."""
    if not call.ty_args:
        raise TypeError(f"{op_name(call)} requires its output type (ty_args / out_ty)")
    if len(call.ty_args) == 1:
        return call.ty_args[0]
    return TupleType(list(call.ty_args))


def _object(_call, _bb=None):
    return ObjectType()


def _infer_shape_of(call, _bb=None):
    ty = call.args[0].ty
    if not isinstance(ty, TensorType):
        raise TypeError(f"shape_of expects a Tensor, but {text(call.args[0])} has type {text(ty)}")
    values = getattr(ty.shape, "values", None)
    if values is not None:
        return ShapeType(values)
    shape_ty = getattr(ty.shape, "ty", None)
    if isinstance(shape_ty, ShapeType):
        return shape_ty
    return ShapeType(ndim=ty.ndim)


def _infer_tensor_to_shape(call, _bb=None):
    """A 1-d integer tensor of length n gives an ``R.Shape(ndim=n)`` (unknown length: -1)."""
    ty = call.args[0].ty
    if not isinstance(ty, TensorType):
        raise TypeError(
            f"relax.tensor_to_shape expects a 1-d tensor, but {text(call)} has argument "
            f"{text(call.args[0])} of type {text(ty)}"
        )
    if ty.ndim != 1:
        raise TypeError(
            f"relax.tensor_to_shape expected argument to be 1-d, but {text(call)} has argument "
            f"{text(call.args[0])} with type {text(ty)}"
        )
    values = getattr(ty.shape, "values", None)
    length = values[0] if values is not None else None
    return ShapeType(ndim=int(length.value) if hasattr(length, "value") else -1)


def _infer_shape_to_tensor(call, _bb=None):
    """An ``R.Shape(ndim=n)`` gives a 1-d ``int64`` tensor of n elements."""
    ty = call.args[0].ty
    if not isinstance(ty, ShapeType):
        raise TypeError(
            f"relax.shape_to_tensor expects a shape, but {text(call)} has argument "
            f"{text(call.args[0])} of type {text(ty)}"
        )
    if ty.ndim == -1:
        # TVM 0.27 says R.Tensor((-1,)) here; an unknown length is the honest type.
        return TensorType(None, "int64", ndim=1)
    return TensorType([ty.ndim], "int64")


def _infer_print(_call, _bb=None):
    return TupleType([])


def _infer_assert(call, _bb=None):
    """``assert_op`` returns nothing; its condition must be a boolean scalar."""
    if not call.args:
        raise TypeError("assert_op needs a condition")
    ty = call.args[0].ty
    is_bool_scalar = (
        isinstance(ty, TensorType) and ty.dtype == "bool" and ty.ndim == 0
    ) or (isinstance(ty, PrimType) and ty.dtype == "bool")
    if not is_bool_scalar:
        raise TypeError(
            f"The argument to assert must be a boolean scalar, but received {text(ty)}"
        )
    return TupleType([])


register_relax_op("call_tir", 3, "base", infer_call_tir)
register_relax_op(
    "call_tir_with_grad", 3, "base", infer_call_tir,
    attrs_type_key="relax.attrs.CallTIRWithGradAttrs",
)
# Pure by contract: the caller guarantees the overwritten inputs are not used afterwards.
register_relax_op(
    "call_tir_inplace", 2, "base", infer_call_tir_inplace,
    attrs_type_key="relax.attrs.CallTIRInplaceAttrs",
)
register_op_attr("relax.call_tir_inplace", "FValidate", validate_call_tir_inplace)
register_op_attr("relax.call_tir", "FValidate", validate_call_tir)
register_relax_op("call_dps_packed", 2, "base", _out_type)
register_relax_op("call_pure_packed", -1, "base", _out_type)
register_relax_op("print", -1, "base", _infer_print, purity=False)
register_relax_op("assert_op", -1, "base", _infer_assert, purity=False)
register_relax_op("shape_of", 1, "base", _infer_shape_of)
register_relax_op("tensor_to_shape", 1, "base", _infer_tensor_to_shape)
register_relax_op("shape_to_tensor", 1, "base", _infer_shape_to_tensor)
register_relax_op("null_value", 0, "base", _object)
register_relax_op("make_closure", 2, "base", _object)
register_relax_op("invoke_closure", 2, "base", _out_type, purity=False)
register_relax_op("invoke_pure_closure", 2, "base", _out_type)


def _as_out_types(out_ty, what):
    if isinstance(out_ty, (list, tuple)):
        out_ty = TupleType(list(out_ty)) if len(out_ty) != 1 else out_ty[0]
    if not isinstance(out_ty, Type):
        raise TypeError(
            f"{what}: the output type must be a Type or a list of Types, got {out_ty!r}"
        )
    return out_ty


def _as_args_tuple(args):
    if isinstance(args, RelaxExpr) and not isinstance(args, Tuple):
        return Tuple([args])
    if isinstance(args, (list, tuple)):
        # A TIR expression among the arguments (``R.call_tir(f, (m, n), ...)`` in TVMScript)
        # is passed as a scalar value, as TVM converts it.
        return Tuple([PrimValue(a) if isinstance(a, PrimExpr) else a for a in args])
    return args


def call_tir(gvar, args, out_ty=None, tir_vars=None, *, out_sinfo=None) -> Call:
    """``R.call_tir(gvar, args, out_ty, tir_vars)``: call a PrimFunc in destination-passing style.

    Parameters
    ----------
    gvar : GlobalVar
        The PrimFunc to call.
    args : Expr or list of Expr
        Input tensors (made into a Tuple).
    out_ty : Type or list of Type
        The output tensor type(s) (``out_sinfo`` is the seed-era keyword).
    tir_vars : ShapeExpr or list of PrimExpr, optional
        Extra symbolic integer arguments.
    """
    out_ty = out_ty if out_ty is not None else out_sinfo
    if out_ty is None:
        raise TypeError("call_tir requires out_ty, the type of its output")
    if not isinstance(gvar, (GlobalVar, RelaxExpr)):
        raise TypeError(f"call_tir expects a GlobalVar, got {gvar!r}")
    call_args = [gvar, _as_args_tuple(args)]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, ShapeExpr) else ShapeExpr(tir_vars))
    return Call(Op.get("relax.call_tir"), call_args, None, [_as_out_types(out_ty, "call_tir")])


def call_tir_inplace(gvar, args, inplace_indices, out_ty=None, tir_vars=None) -> Call:
    """``R.call_tir_inplace(gvar, args, inplace_indices, out_ty, tir_vars=None)``.

    Like :func:`call_tir`, but output ``i`` is written into input ``inplace_indices[i]``
    (the PrimFunc's parameters are the inputs, then only the outputs whose index is ``-1``,
    which are allocated as by ``call_tir``). The result aliases those inputs: the caller must
    not use an overwritten input afterwards (the op is pure by that contract, as in TVM).

    Parameters
    ----------
    gvar : GlobalVar
        The PrimFunc to call.
    args : Expr or list of Expr
        Input tensors (made into a Tuple).
    inplace_indices : int or list of int
        One entry per output: the input it overwrites, or -1 for a new tensor. At least one
        entry is not -1, and no input is named twice (ValueError when the call is normalized).
    out_ty : Type or list of Type
        The output tensor type(s); an overwritten input has exactly its output's type.
    tir_vars : ShapeExpr or list of PrimExpr, optional
        Extra symbolic integer arguments.
    """
    if out_ty is None:
        raise TypeError("call_tir_inplace requires out_ty, the type of its output")
    if not isinstance(gvar, (GlobalVar, RelaxExpr)):
        raise TypeError(f"call_tir_inplace expects a GlobalVar, got {gvar!r}")
    if isinstance(inplace_indices, int):
        inplace_indices = [inplace_indices]
    args_tuple = _as_args_tuple(args)
    if isinstance(args_tuple, Tuple) and any(
        isinstance(f, (list, tuple, Tuple)) for f in args_tuple.fields
    ):
        raise ValueError(
            "call_tir_inplace: each argument must be a tensor or a TIR value (PrimFuncs take "
            "no tuple arguments)"
        )
    call_args = [gvar, args_tuple]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, ShapeExpr) else ShapeExpr(tir_vars))
    attrs = CallTIRInplaceAttrs([int(i) for i in inplace_indices])
    out = _as_out_types(out_ty, "call_tir_inplace")
    return Call(Op.get("relax.call_tir_inplace"), call_args, attrs, [out])


def call_tir_with_grad(
    gvar, args, out_ty=None, te_grad_name=None, te_grad_kwargs=None, tir_vars=None, *,
    out_sinfo=None,
) -> Call:
    """``R.call_tir_with_grad``: ``call_tir`` bound to a registered TE gradient function.

    ``relax.transform.Gradient`` differentiates the call with the TE function registered as
    ``te_grad_name`` (:func:`tvm.relax.training.utils.register_te_gradient`); everywhere
    else the call behaves as ``call_tir``.

    Parameters
    ----------
    gvar : GlobalVar
        The PrimFunc to call.
    args : Expr or list of Expr
        Input tensors (made into a Tuple).
    out_ty : Type or list of Type
        The output tensor type(s) (``out_sinfo`` is the seed-era keyword).
    te_grad_name : str
        The name the TE gradient function is registered under.
    te_grad_kwargs : dict of str to Object, optional
        Keyword arguments passed to the TE gradient function (default: none).
    tir_vars : ShapeExpr or list of PrimExpr, optional
        Extra symbolic integer arguments (a pytvm extension; TVM 0.27 has no such parameter).

    Returns
    -------
    Call
        The ``relax.call_tir_with_grad`` call.
    """
    out_ty = out_ty if out_ty is not None else out_sinfo
    if out_ty is None:
        raise TypeError("call_tir_with_grad requires out_ty, the type of its output")
    if not isinstance(te_grad_name, str) or not te_grad_name:
        raise TypeError(
            "call_tir_with_grad requires te_grad_name, the name of a TE gradient registered "
            f"with relax.training.utils.register_te_gradient, got {te_grad_name!r}"
        )
    if not isinstance(gvar, (GlobalVar, RelaxExpr)):
        raise TypeError(f"call_tir_with_grad expects a GlobalVar, got {gvar!r}")
    kwargs = dict(te_grad_kwargs or {})
    for key in kwargs:
        if not isinstance(key, str):
            raise TypeError(f"call_tir_with_grad: te_grad_kwargs keys must be str, got {key!r}")
    call_args = [gvar, _as_args_tuple(args)]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, ShapeExpr) else ShapeExpr(tir_vars))
    attrs = CallTIRWithGradAttrs(te_grad_name, kwargs)
    out = _as_out_types(out_ty, "call_tir_with_grad")
    return Call(Op.get("relax.call_tir_with_grad"), call_args, attrs, [out])


def call_dps_packed(func, args, out_ty=None, *, out_sinfo=None) -> Call:
    """``R.call_dps_packed(func, args, out_ty)``: call a packed function in DPS style."""
    out_ty = out_ty if out_ty is not None else out_sinfo
    if out_ty is None:
        raise TypeError("call_dps_packed requires out_ty, the type of its output")
    if isinstance(func, str):
        func = ExternFunc(func)
    return Call(
        Op.get("relax.call_dps_packed"),
        [func, _as_args_tuple(args)],
        None,
        [_as_out_types(out_ty, "call_dps_packed")],
    )


def call_packed(func, *args, ty_args=None, sinfo_args=None) -> Call:
    """``R.call_packed(name, *args, ty_args=...)``: an (impure) call of a packed function."""
    ty_args = ty_args if ty_args is not None else sinfo_args
    if isinstance(func, str):
        func = ExternFunc(func)
    if isinstance(ty_args, Type):
        ty_args = [ty_args]
    # No ty_args (as in TVM 0.27): the call's type comes from the ExternFunc's, an R.Object.
    return Call(func, list(args), None, list(ty_args or []))


def call_pure_packed(func, *args, ty_args=None, sinfo_args=None) -> Call:
    """``R.call_pure_packed(name, *args, ty_args=...)``: a packed call declared pure."""
    ty_args = ty_args if ty_args is not None else sinfo_args
    if ty_args is None:
        raise TypeError("call_pure_packed requires ty_args, the type of its result")
    if isinstance(func, str):
        func = ExternFunc(func)
    if isinstance(ty_args, Type):
        ty_args = [ty_args]
    return Call(Op.get("relax.call_pure_packed"), [func, *args], None, list(ty_args))


def print(*values, format="") -> Call:
    """``R.print(*values, format=...)``: print at run time (impure)."""
    fmt = format if isinstance(format, StringImm) else StringImm(format)
    return Call(Op.get("relax.print"), [fmt, *values])


def assert_op(condition, format_args=None, format="") -> Call:
    """``R.assert_op(cond, *format_args, format=...)``: fail at run time when ``cond`` is false.

    The call's arguments are ``[condition, format, *format_args]`` (as in TVM); impure.
    """
    if format_args is None:
        format_args = []
    elif not isinstance(format_args, (list, tuple)):
        format_args = [format_args]
    fmt = format if isinstance(format, StringImm) else StringImm(format)
    return Call(Op.get("relax.assert_op"), [condition, fmt, *format_args])


def shape_of(expr) -> Call:
    """``R.shape_of(x)``: the runtime shape of a tensor."""
    return Call(Op.get("relax.shape_of"), [expr])


def tensor_to_shape(expr) -> Call:
    """``R.tensor_to_shape(t)``: the shape whose dims are the values of 1-d tensor ``t``."""
    return Call(Op.get("relax.tensor_to_shape"), [expr])


def shape_to_tensor(expr) -> Call:
    """``R.shape_to_tensor(s)``: the dims of shape ``s`` as a 1-d ``int64`` tensor."""
    return Call(Op.get("relax.shape_to_tensor"), [expr])


def null_value() -> Call:
    """``R.null_value()``: a null object."""
    return Call(Op.get("relax.null_value"), [])


def make_closure(func, args) -> Call:
    """Capture ``args`` with ``func`` into a closure object."""
    return Call(Op.get("relax.make_closure"), [func, _as_args_tuple(args)])


def invoke_closure(closure, args, ty_args) -> Call:
    """Call a closure (impure); ``ty_args`` gives the result type."""
    if isinstance(ty_args, Type):
        ty_args = [ty_args]
    return Call(
        Op.get("relax.invoke_closure"), [closure, _as_args_tuple(args)], None, list(ty_args)
    )


def invoke_pure_closure(closure, args, ty_args) -> Call:
    """Call a closure known to be pure; ``ty_args`` gives the result type."""
    if isinstance(ty_args, Type):
        ty_args = [ty_args]
    return Call(
        Op.get("relax.invoke_pure_closure"), [closure, _as_args_tuple(args)], None, list(ty_args)
    )


def register_gradient(op_name: str, fgradient=None, level: int = 10):
    """Register ``fgradient`` as the ``FPrimalGradient`` rule of op ``op_name``.

    ``fgradient(orig_var, orig_call, output_grad, ctx) -> list[Expr]`` returns one partial
    per argument of ``orig_call`` (``ctx`` is the BlockBuilder of the Gradient pass). Usable
    directly or as a decorator; a lower ``level`` than the registered rule's is ignored.
    """
    from ...ir.op import register_op_attr

    return register_op_attr(op_name, "FPrimalGradient", fgradient, level)
