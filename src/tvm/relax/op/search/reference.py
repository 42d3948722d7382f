"""NumPy reference semantics of search and sort ops (``FReference``); sorts are stable."""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference


def _arg(fn):
    def rule(attrs, x):
        out = fn(x, axis=attrs.axis, keepdims=bool(attrs.keepdims))
        return np.asarray(out).astype(np.int64)

    return rule


register_reference("argmax")(_arg(np.argmax))
register_reference("argmin")(_arg(np.argmin))


def _order(x, axis, descending):
    # A stable descending order: sort the negated keys (ties keep their input order).
    if descending:
        keys = -x if x.dtype.kind != "b" else ~x
        return np.argsort(keys, axis=axis, kind="stable")
    return np.argsort(x, axis=axis, kind="stable")


@register_reference("sort")
def _sort(attrs, x):
    return np.take_along_axis(x, _order(x, attrs.axis, attrs.descending), axis=attrs.axis)


@register_reference("argsort")
def _argsort(attrs, x):
    return _order(x, attrs.axis, attrs.descending).astype(reference_dtype(attrs.dtype))


@register_reference("topk")
def _topk(attrs, x):
    order = _order(x, attrs.axis, bool(attrs.largest))
    k = int(attrs.k)
    if k >= 1:
        order = np.take(order, range(k), axis=attrs.axis)
    values = np.take_along_axis(x, order, axis=attrs.axis)
    indices = order.astype(reference_dtype(attrs.dtype))
    if attrs.ret_type == "values":
        return values
    if attrs.ret_type == "indices":
        return indices
    return (values, indices)
