"""Operators used by automatic differentiation (``relax.grad.*``, ``R.grad.*`` in TVMScript).

``no_grad``, ``start_checkpoint`` and ``end_checkpoint`` are identities that mark where
gradients stop or where a checkpointed segment begins and ends; the ``*_backward`` ops are the
gradient computations of ops whose gradient is not expressible with other ops.
"""

from __future__ import annotations

from ...expr import Call
from ..nn import pool2d_attrs
from ..nn.attrs import NLLLossAttrs
from ..op_attrs import TakeAttrs
from ..registry import register_op_table
from . import infer as _infer

__all__ = [
    "avg_pool2d_backward",
    "end_checkpoint",
    "max_pool2d_backward",
    "nll_loss_backward",
    "no_grad",
    "start_checkpoint",
    "take_backward",
]

_OPS = register_op_table(
    "grad.",
    "grad",
    (
        ("no_grad", 1, _infer.infer_identity, "", "Stop gradients through the input."),
        ("start_checkpoint", 1, _infer.infer_checkpoint, "", "Start a checkpointed segment."),
        ("end_checkpoint", 1, _infer.infer_checkpoint, "", "End a checkpointed segment."),
        (
            "nll_loss_backward",
            4,
            _infer.infer_nll_loss_backward,
            "NLLLossAttrs",
            "Gradient of nll_loss w.r.t. predictions.",
        ),
        (
            "max_pool2d_backward",
            2,
            _infer.infer_like_data,
            "Pool2DAttrs",
            "Gradient of max_pool2d w.r.t. its data.",
        ),
        (
            "avg_pool2d_backward",
            2,
            _infer.infer_like_data,
            "Pool2DAttrs",
            "Gradient of avg_pool2d w.r.t. its data.",
        ),
        (
            "take_backward",
            3,
            _infer.infer_like_data,
            "TakeAttrs",
            "Gradient of take w.r.t. its data.",
        ),
    ),
)


def no_grad(input) -> Call:
    """``R.grad.no_grad(input)``: the input, with no gradient flowing back through it."""
    return Call(_OPS["no_grad"], [input])


def _checkpoint(name, value):
    # A computed value is bound to a Var by normalization; the op's type inference rejects an
    # argument that is still not a Var then (a tuple, a constant), as TVM 0.27 does.
    return Call(_OPS[name], [value])


def start_checkpoint(input) -> Call:
    """``R.grad.start_checkpoint(input)``: mark the start of a checkpointed segment.

    ``input`` must be a Var once normalized (TypeError from type inference otherwise).
    """
    return _checkpoint("start_checkpoint", input)


def end_checkpoint(input) -> Call:
    """``R.grad.end_checkpoint(input)``: mark the end of a checkpointed segment (a Var)."""
    return _checkpoint("end_checkpoint", input)


def nll_loss_backward(
    output_grad, predictions, targets, weights=None, reduction="mean", ignore_index=-100
) -> Call:
    """``R.grad.nll_loss_backward(output_grad, predictions, targets, weights=None, ...)``."""
    args = [output_grad, predictions, targets] + ([weights] if weights is not None else [])
    return Call(_OPS["nll_loss_backward"], args, NLLLossAttrs(str(reduction), int(ignore_index)))


def max_pool2d_backward(
    output_grad,
    data,
    pool_size=(1, 1),
    strides=(1, 1),
    padding=(0, 0, 0, 0),
    dilation=(1, 1),
    ceil_mode=False,
    count_include_pad=False,
    layout="NCHW",
    out_layout=None,
) -> Call:
    """``R.grad.max_pool2d_backward(output_grad, data, ...)``: route each gradient to the max."""
    attrs = pool2d_attrs(
        "max_pool2d_backward",
        pool_size,
        strides,
        padding,
        dilation,
        ceil_mode,
        count_include_pad,
        layout,
        out_layout,
    )
    return Call(_OPS["max_pool2d_backward"], [output_grad, data], attrs)


def avg_pool2d_backward(
    output_grad,
    data,
    pool_size=(1, 1),
    strides=(1, 1),
    padding=(0, 0, 0, 0),
    dilation=(1, 1),
    ceil_mode=False,
    count_include_pad=False,
    layout="NCHW",
    out_layout=None,
) -> Call:
    """``R.grad.avg_pool2d_backward(output_grad, data, ...)``: spread each gradient evenly."""
    attrs = pool2d_attrs(
        "avg_pool2d_backward",
        pool_size,
        strides,
        padding,
        dilation,
        ceil_mode,
        count_include_pad,
        layout,
        out_layout,
    )
    return Call(_OPS["avg_pool2d_backward"], [output_grad, data], attrs)


def take_backward(output_grad, x, indices, axis=None, *, mode="") -> Call:
    """``R.grad.take_backward(output_grad, x, indices, axis=None)``: scatter-add the gradient.

    ``mode`` is accepted only because TVM prints the (unused) ``mode=""`` of its attributes.
    """
    return Call(
        _OPS["take_backward"],
        [output_grad, x, indices],
        TakeAttrs(None if axis is None else int(axis), str(mode)),
    )


from . import reference  # noqa: F401 - registers FReference after the ops exist
