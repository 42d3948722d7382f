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

__all__ = [
    "broadcast_like",
    "fit_shape",
    "no_grad_all",
    "register_gradient",
    "scalar",
    "shape_of",
    "static_dims",
]


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


def broadcast_like(grad, x):
    """``grad`` broadcast to the shape of ``x``: ``broadcast_to`` when the dims are known, else
    ``grad + zeros_like(x)`` (the dims are read when the program runs, e.g. after
    ``dynamic_strided_slice``)."""
    if not _unknown_dims(x):
        # Local import: broadcast_to lives in the manipulate family.
        from ..manipulate import broadcast_to

        return broadcast_to(grad, shape_of(x))
    from ..binary import add
    from ..create import zeros_like

    return add(grad, zeros_like(x))


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
    # Local import: collapse_sum_to lives in the manipulate family.
    from ..manipulate import collapse_sum_like, collapse_sum_to

    if _unknown_dims(expr) or _unknown_dims(target):
        # Data-dependent shapes: collapse to the target's shape read at run time.
        return collapse_sum_like(expr, target)
    if _same_shape(ctx, expr, target):
        return expr
    return collapse_sum_to(expr, shape_of(target))


def _unknown_dims(expr) -> bool:
    ty = expr.ty
    return isinstance(ty, TensorType) and getattr(ty.shape, "values", None) is None


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


# Second order: each *_backward op below is linear in its output_grad (the transpose of the
# linear map its forward op applies to its first input), so its gradient with respect to
# output_grad is that forward map applied to the incoming gradient. Its other inputs are read
# for their shapes or are integer (x, predictions, data, indices, targets), or are weights
# that nll_loss's own rule does not differentiate either: they get none.


def _take_backward_grad(orig_var, orig_call, output_grad, ctx):
    # Local import: grad.py is loaded before the index family's ops are needed.
    from ..index import take
    from ..manipulate import reshape

    _, x, indices = orig_call.args
    axis = orig_call.attrs.axis
    grads = no_grad_all(orig_call)
    if axis is None and x.ty.ndim != 1:
        # take with axis=None reads 1-D data: the indices address the flattened x.
        output_grad = reshape(output_grad, [-1])
    grads[0] = take(output_grad, indices, None if axis is None else int(axis))
    return grads


def _nll_loss_backward_grad(orig_var, orig_call, output_grad, ctx):
    from ..nn import nll_loss

    targets, *weights = orig_call.args[2:]
    attrs = orig_call.attrs
    grads = no_grad_all(orig_call)
    grads[0] = nll_loss(
        output_grad,
        targets,
        weights[0] if weights else None,
        str(attrs.reduction),
        int(attrs.ignore_index),
    )
    return grads


def _avg_pool2d_backward_grad(orig_var, orig_call, output_grad, ctx):
    from ..nn import avg_pool2d

    a = orig_call.attrs
    grads = no_grad_all(orig_call)
    grads[0] = avg_pool2d(
        output_grad,
        [int(v) for v in a.pool_size],
        [int(v) for v in a.strides],
        [int(v) for v in a.padding],
        [int(v) for v in a.dilation],
        bool(a.ceil_mode),
        bool(a.count_include_pad),
        str(a.layout),
        str(a.out_layout),
    )
    return grads


def _max_pool2d_backward_grad(orig_var, orig_call, output_grad, ctx):
    # max_pool2d_backward routes og[o] to the first maximum of window o (scan order), so its
    # gradient reads the incoming gradient there: d og[o] = g[argmax(o)]. The windows are
    # walked offset by offset as strided slices of the padded data and gradient.
    from ..binary import add, equal, logical_and, logical_or, maximum
    from ..index import strided_slice
    from ..nn import pad
    from ..ternary import where
    from ..unary import logical_not

    og, data = orig_call.args[:2]
    a = orig_call.attrs
    dims, out_dims = static_dims(data), static_dims(og)
    if dims is None or out_dims is None or str(a.layout) != "NCHW":
        raise ValueError(
            "the gradient of grad.max_pool2d_backward is supported for static shapes in the "
            f"NCHW layout only (got layout {a.layout})"
        )
    (kh, kw), (sh, sw), (dh, dw) = ([int(v) for v in a.pool_size], [int(v) for v in a.strides],
                                    [int(v) for v in a.dilation])  # fmt: skip
    pt, pl = int(a.padding[0]), int(a.padding[1])
    # Pad so that every window offset can be sliced (ceil_mode windows may end past the data).
    need_h, need_w = (
        (kh - 1) * dh + (out_dims[2] - 1) * sh + 1,
        (kw - 1) * dw + (out_dims[3] - 1) * sw + 1,
    )
    widths = [0, 0, 0, 0, pt, max(need_h - dims[2] - pt, 0), pl, max(need_w - dims[3] - pl, 0)]
    padded_x = ctx.emit(pad(data, widths, pad_value=float("-inf")))
    padded_g = ctx.emit(pad(output_grad, widths))

    def window_offset(value, r, c):
        begin = [r * dh, c * dw]
        end = [begin[0] + (out_dims[2] - 1) * sh + 1, begin[1] + (out_dims[3] - 1) * sw + 1]
        return ctx.emit(strided_slice(value, [2, 3], begin, end, [sh, sw]))

    offsets = [(r, c) for r in range(kh) for c in range(kw)]
    values = [window_offset(padded_x, r, c) for r, c in offsets]
    peak = values[0]
    for value in values[1:]:
        peak = ctx.emit(maximum(peak, value))
    result, taken = None, None
    for value, (r, c) in zip(values, offsets):
        hit = ctx.emit(equal(value, peak))
        if taken is not None:
            hit = ctx.emit(logical_and(hit, logical_not(taken)))
        term = where(hit, window_offset(padded_g, r, c), scalar(0.0, og))
        result = term if result is None else add(result, term)
        taken = hit if taken is None else ctx.emit(logical_or(taken, hit))
    grads = no_grad_all(orig_call)
    grads[0] = result
    return grads


register_gradient("relax.grad.take_backward", _take_backward_grad)
register_gradient("relax.grad.max_pool2d_backward", _max_pool2d_backward_grad)
register_gradient("relax.grad.nll_loss_backward", _nll_loss_backward_grad)
register_gradient("relax.grad.avg_pool2d_backward", _avg_pool2d_backward_grad)
