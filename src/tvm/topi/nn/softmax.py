"""``softmax`` and ``log_softmax`` along an axis (max-shifted for stability)."""

from __future__ import annotations

from ... import te, tirx
from ..utils import normalize_axis, reduce_axis

__all__ = ["log_softmax", "softmax"]


def _axis_reduce(x, axis, reducer, value, name):
    """``reducer`` over ``axis`` of ``value(index)``; the axis is kept with extent 1 dropped."""
    k = reduce_axis(x.shape[axis], "k")
    shape = tuple(s for d, s in enumerate(x.shape) if d != axis)

    def body(*i):
        idx = list(i[:axis]) + [k.var] + list(i[axis:])
        return reducer(value(idx), axis=[k])

    return te.compute(shape, body, name=name)


def _parts(x, axis, op_name):
    axis = normalize_axis(axis, x.ndim, op_name)
    x_max = _axis_reduce(x, axis, te.max, lambda idx: x(*idx), "T_softmax_maxelem")

    def drop(i):
        return list(i[:axis]) + list(i[axis + 1:])

    exp_sum = _axis_reduce(x, axis, te.sum,
                           lambda idx: tirx.exp(x(*idx) - x_max(*drop(idx))), "T_softmax_expsum")
    return axis, x_max, exp_sum, drop


def softmax(x, axis=-1):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""
    axis, x_max, exp_sum, drop = _parts(x, axis, "softmax")
    return te.compute(
        x.shape, lambda *i: tirx.exp(x(*i) - x_max(*drop(i))) / exp_sum(*drop(i)),
        name="T_softmax_norm", tag="softmax_output")


def log_softmax(x, axis=-1):
    """``x - max - log(sum(exp(x - max)))`` along ``axis``."""
    axis, x_max, exp_sum, drop = _parts(x, axis, "log_softmax")
    return te.compute(
        x.shape, lambda *i: x(*i) - x_max(*drop(i)) - tirx.log(exp_sum(*drop(i))),
        name="compute", tag="log_softmax_output")
