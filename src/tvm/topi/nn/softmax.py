"""``softmax`` and ``log_softmax`` along an axis (max-shifted for stability).

The stages are TVM's: ``T_softmax_maxelem``, ``T_softmax_exp``, ``T_softmax_expsum`` and
``T_softmax_norm`` (annotated with the axis) for softmax; the max, a ``compute`` sum of
``exp(x - max)`` and a ``compute`` result for log_softmax.
"""

from __future__ import annotations

from ... import te, tirx
from ..utils import normalize_axis, reduce_axis

__all__ = ["log_softmax", "softmax"]


def _helpers(x, axis):
    def with_reduce(i, k):
        return list(i[:axis]) + [k.var] + list(i[axis:])

    def drop(i):
        return list(i[:axis]) + list(i[axis + 1:])

    reduced = tuple(s for d, s in enumerate(x.shape) if d != axis)
    return with_reduce, drop, reduced


def _max_elem(x, axis, with_reduce, reduced):
    k = reduce_axis(x.shape[axis], "k")
    return te.compute(reduced, lambda *i: te.max(x(*with_reduce(i, k)), axis=[k]),
                      name="T_softmax_maxelem")


def softmax(x, axis=-1):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``."""
    axis = normalize_axis(axis, x.ndim, "softmax")
    with_reduce, drop, reduced = _helpers(x, axis)
    x_max = _max_elem(x, axis, with_reduce, reduced)
    exp = te.compute(x.shape, lambda *i: tirx.exp(x(*i) - x_max(*drop(i))), name="T_softmax_exp")
    k = reduce_axis(x.shape[axis], "k")
    exp_sum = te.compute(reduced, lambda *i: te.sum(exp(*with_reduce(i, k)), axis=[k]),
                         name="T_softmax_expsum")
    return te.compute(x.shape, lambda *i: exp(*i) / exp_sum(*drop(i)), name="T_softmax_norm",
                      tag="softmax_output", attrs={"axis": axis})


def log_softmax(x, axis=-1):
    """``x - max - log(sum(exp(x - max)))`` along ``axis``."""
    axis = normalize_axis(axis, x.ndim, "log_softmax")
    with_reduce, drop, reduced = _helpers(x, axis)
    x_max = _max_elem(x, axis, with_reduce, reduced)
    k = reduce_axis(x.shape[axis], "k")
    exp_sum = te.compute(
        reduced, lambda *i: te.sum(tirx.exp(x(*with_reduce(i, k)) - x_max(*i)), axis=[k]))
    return te.compute(x.shape, lambda *i: x(*i) - x_max(*drop(i)) - tirx.log(exp_sum(*drop(i))),
                      tag="log_softmax_output", attrs={"axis": axis})
