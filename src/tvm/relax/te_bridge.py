"""``BlockBuilder.call_te`` / ``emit_te``: turn a te compute function into ``R.call_tir``.

The Relax tensor arguments become ``te.placeholder``s (named after the Relax variables), the
function builds te tensors, ``te.create_prim_func`` lowers them to a private PrimFunc that is
added to the builder's module (structurally equal PrimFuncs are shared), and the result is a
``call_tir`` whose output type is read from the te outputs. Symbolic dims of the outputs that
no input determines are passed as ``tir_vars``.
"""

from __future__ import annotations

from ..ir.expr import PrimExpr, RelaxExpr
from ..ir.type import PrimType
from ..tirx.expr import Var as TirVar
from .analysis.type_analysis import tir_vars_in
from .expr import Constant, PrimValue
from .ty import TensorType

__all__ = ["call_te"]


class _Converter:
    """Replaces Relax tensor arguments by te placeholders, remembering the Relax inputs."""

    def __init__(self, te):
        self.te = te
        self.inputs = []  # (relax expr, placeholder) in order of first use
        self.by_id = {}
        self.prim_uses = []  # TIR expressions given as arguments (their vars may be unbound)

    def convert(self, value):
        if isinstance(value, (list, tuple)):
            return type(value)(self.convert(v) for v in value)
        if isinstance(value, dict):
            return {k: self.convert(v) for k, v in value.items()}
        if isinstance(value, PrimValue):
            self.prim_uses.append(value.value)
            return value.value
        if isinstance(value, PrimExpr):
            self.prim_uses.append(value)
            return value
        if isinstance(value, Constant) and value.data.ndim == 0:
            # A scalar constant is inlined into the PrimFunc as a TIR literal, as in TVM.
            from ..tirx.generic import const

            return const(value.data.numpy().item(), value.ty.dtype)
        if isinstance(value, RelaxExpr) and not isinstance(value, PrimExpr):
            return self._placeholder(value)
        return value

    def _placeholder(self, expr):
        known = self.by_id.get(id(expr))
        if known is not None:
            return known
        ty = expr.ty
        if isinstance(ty, PrimType) and ty.dtype not in ("", "void"):
            if ty.value is not None:
                return ty.value  # a known value (``R.Prim(value=n)``) is used directly
            # A scalar computed at run time becomes a scalar parameter of the PrimFunc, in
            # the argument order, as in TVM (``R.add(x, y)`` with ``y: R.Prim("float32")``).
            name = getattr(expr, "name_hint", "") or f"prim_arg_{len(self.inputs)}"
            scalar = TirVar(name, ty.dtype)
            self.by_id[id(expr)] = scalar
            self.inputs.append((expr, scalar))
            return scalar
        if not isinstance(ty, TensorType):
            raise TypeError(
                f"call_te: Relax argument {expr!r} must be a tensor, but its type is {ty!r}"
            )
        values = getattr(ty.shape, "values", None)
        if values is None:
            raise ValueError(
                f"call_te: the shape of argument {expr!r} must be known (symbolic dims are "
                f"fine), but its type is {ty!r}"
            )
        name = getattr(expr, "name_hint", "") or "rxplaceholder"
        tensor = self.te.placeholder(values, ty.dtype, name=name)
        self.by_id[id(expr)] = tensor
        self.inputs.append((expr, tensor))
        return tensor


def _as_int64(value):
    """Relax shapes are int64: te's int32 literals and expressions are widened (``astype``
    folds constants)."""
    if value.dtype == "int64":
        return value
    return value.astype("int64")


def _outputs(result):
    if isinstance(result, (list, tuple)):
        return list(result), True
    return [result], False


def _own_symbolic_vars(prim):
    """``prim`` with fresh copies (same names and dtypes) of the symbolic variables its
    parameters and buffer shapes bind.

    te reuses the Relax function's variables (``n`` of ``R.Tensor((n,))``) in the PrimFunc; a
    PrimFunc written in TVMScript binds its own. With its own copies, a module built by
    ``emit_te`` / ``LegalizeOps`` is structurally equal to the same module parsed from text
    (one comparison maps each variable once, so a variable shared by two functions would map
    to two different ones).
    """
    from ..tirx.function import PrimFunc
    from ..tirx.stmt_functor import substitute  # lazy: tirx passes are only needed here

    bound = []
    seen = set()
    buffers = [buf for _, buf in prim.buffer_map.items()]
    for value in [*prim.param_vars, *buffers]:
        for var in tir_vars_in(value.shape if hasattr(value, "shape") else value):
            if isinstance(var, TirVar) and var.dtype != "handle" and id(var) not in seen:
                seen.add(id(var))
                bound.append(var)
    if not bound:
        return prim
    vmap = {var: type(var)(var.name, var.dtype) for var in bound}
    # One substitution over the body and every buffer: a buffer rebuilt for its new shape is
    # the same object wherever it appears.
    new_body, *new_buffers = substitute([prim.body, *buffers], vmap)
    handles = [param for param, _ in prim.buffer_map.items()]
    new_params = [vmap.get(p, p) for p in prim.param_vars]
    return PrimFunc(
        new_params,
        new_body,
        prim.ret_type,
        dict(zip(handles, new_buffers)),
        prim.attrs,
        span=prim.span,
    )


def call_te(bb, func, *args, **kwargs):
    """``R.call_tir`` of the PrimFunc that ``func(*args, **kwargs)`` computes with te.

    Keyword-only options consumed here: ``primfunc_name_hint`` (default ``func.__name__``)
    and ``primfunc_attrs`` (extra PrimFunc attributes).
    """
    # Lazy: te is only needed by call_te; relax stays importable without it.
    from .. import te
    from .op.base import call_tir

    name_hint = kwargs.pop("primfunc_name_hint", None) or getattr(func, "__name__", "te_func")
    extra_attrs = kwargs.pop("primfunc_attrs", None) or {}
    converter = _Converter(te)
    te_args = converter.convert(list(args))
    te_kwargs = converter.convert(dict(kwargs))
    outs, many = _outputs(func(*te_args, **te_kwargs))
    for out in outs:
        if not isinstance(out, te.Tensor):
            raise TypeError(f"call_te: {name_hint} must return te tensors, got {out!r}")
    placeholders = [t for _, t in converter.inputs]
    # As TVM: a symbolic var is bound when it is a whole dim of an input or output tensor
    # (the buffer carries it at run time); any other var the kernel reads (``n`` of an
    # ``n * 3`` dim, or a TIR expression argument) becomes a scalar parameter after the
    # inputs, passed by ``R.prim_value`` in the argument tuple.
    tensors = [t for t in placeholders if isinstance(t, te.Tensor)] + outs
    bound = {id(d) for t in tensors for d in t.shape if isinstance(d, TirVar)}
    bound.update(id(t) for t in placeholders if isinstance(t, TirVar))
    extra_vars = []
    for value in [t.shape for t in tensors] + converter.prim_uses:
        for var in tir_vars_in(value):
            if isinstance(var, TirVar) and id(var) not in bound:
                bound.add(id(var))
                extra_vars.append(var)
    prim = _own_symbolic_vars(te.create_prim_func(placeholders + extra_vars + outs))
    prim = prim.without_attr("global_symbol")  # private: the module calls it by GlobalVar
    if extra_attrs:
        prim = prim.with_attr(dict(extra_attrs))
    gvar = bb.add_func(prim, name_hint)
    out_types = [TensorType([_as_int64(v) for v in o.shape], o.dtype) for o in outs]
    out_ty = out_types if many else out_types[0]
    relax_inputs = [expr for expr, _ in converter.inputs] + [PrimValue(v) for v in extra_vars]
    tir_vars = None
    return call_tir(gvar, relax_inputs, out_ty, tir_vars=tir_vars)
