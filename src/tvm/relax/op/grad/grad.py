"""Helpers shared by the ``FPrimalGradient`` rules of every op family (``<family>/grad.py``).

A rule is ``rule(orig_var, orig_call, output_grad, ctx) -> list[Expr]``: one partial per
argument of ``orig_call``, where ``orig_var`` holds the call's forward value and ``ctx`` is the
BlockBuilder of the Gradient pass. A partial may be an unnormalized expression (the pass
normalizes and binds it); ``no_grad(arg)`` marks an argument that gets no gradient.
"""

from __future__ import annotations

from ...expr import Call, ShapeExpr, const
from ...ty import TensorType
from ..base import register_gradient

__all__ = ["fit_shape", "no_grad_all", "register_gradient", "scalar", "shape_of", "static_dims"]


def shape_of(expr) -> ShapeExpr:
    """The ShapeExpr of a tensor-typed expression (ValueError when the shape is unknown)."""
    ty = expr.ty
    shape = getattr(ty, "shape", None)
    if not isinstance(ty, TensorType) or shape is None or getattr(shape, "values", None) is None:
        raise ValueError(
            f"a gradient rule needs the shape of {expr}, but its type is {ty}; "
            "annotate the tensor with a shape"
        )
    return shape if isinstance(shape, ShapeExpr) else ShapeExpr(list(shape.values))


def static_dims(expr):
    """The dims of a tensor as Python ints, or None when some dim is symbolic."""
    dims = []
    for dim in shape_of(expr).values:
        value = getattr(dim, "value", dim)
        if not isinstance(value, int):
            return None
        dims.append(value)
    return dims


def _same_shape(ctx, lhs, rhs) -> bool:
    left, right = shape_of(lhs).values, shape_of(rhs).values
    if len(left) != len(right):
        return False
    analyzer = getattr(ctx, "analyzer", None)
    for a, b in zip(left, right):
        if a is b:
            continue
        va, vb = getattr(a, "value", a), getattr(b, "value", b)
        if isinstance(va, int) and isinstance(vb, int):
            if va != vb:
                return False
            continue
        if analyzer is not None and analyzer.can_prove_equal(a, b):
            continue
        from ....ffi.structural import structural_equal

        if not structural_equal(a, b):
            return False
    return True


def fit_shape(ctx, expr, target):
    """Normalize ``expr``; collapse-sum it to ``target``'s shape unless the shapes are provably
    equal (undoing the broadcast of the forward op)."""
    expr = ctx.normalize(expr)
    if _same_shape(ctx, expr, target):
        return expr
    # Local import: collapse_sum_to lives in the manipulate family.
    from ..manipulate import collapse_sum_to

    return collapse_sum_to(expr, shape_of(target))


def scalar(value, like) -> Call:
    """A scalar constant with the dtype of tensor ``like``."""
    return const(value, like.ty.dtype)


def no_grad_all(orig_call):
    """``[no_grad(arg) for arg in orig_call.args]``: an op with no gradient to any input."""
    from . import no_grad

    return [no_grad(arg) for arg in orig_call.args]


# --- the grad family's own ops ------------------------------------------------------------------


def _stop_gradient(orig_var, orig_call, output_grad, ctx):
    # no_grad in a forward pass stops the gradient (TVM 0.27 has no rule and rejects it).
    return no_grad_all(orig_call)


register_gradient("relax.grad.no_grad", _stop_gradient)
