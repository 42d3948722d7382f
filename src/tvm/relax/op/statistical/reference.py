"""NumPy reference semantics of reductions and scans (``FReference``), in the input dtype."""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference

_REDUCE = {
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "prod": np.prod,
    "std": np.std,
    "variance": np.var,
}


def _reduction(fn):
    def rule(attrs, x):
        axis = None if attrs.axis is None else tuple(attrs.axis)
        return np.asarray(fn(x, axis=axis, keepdims=bool(attrs.keepdims))).astype(x.dtype)

    return rule


for _name, _fn in _REDUCE.items():
    register_reference(_name)(_reduction(_fn))


def _scan(fn, identity):
    def rule(attrs, x):
        dtype = attrs.dtype if attrs.dtype not in (None, "", "void") else x.dtype
        data = np.asarray(x).astype(reference_dtype(dtype))
        axis = attrs.axis
        if axis is None:
            data, axis = data.reshape(-1), 0
        out = fn(data, axis=axis)
        if attrs.exclusive:
            # Exclusive scan: shift by one along the axis, starting from the identity.
            out = np.concatenate(
                [
                    np.full_like(np.take(out, [0], axis=axis), identity),
                    np.take(out, range(out.shape[axis] - 1), axis=axis),
                ],
                axis=axis,
            )
        return out.astype(data.dtype, copy=False)

    return rule


register_reference("cumsum")(_scan(np.cumsum, 0))
register_reference("cumprod")(_scan(np.cumprod, 1))


@register_reference("median")
def _median(attrs, x):
    """Lower median: ``sorted[(n - 1) // 2]`` along the axis (stable order for the index)."""
    x = np.asarray(x)
    keepdims = bool(attrs.keepdims)
    if attrs.axis is None:
        flat = np.sort(x.reshape(-1), kind="stable")
        value = flat[(flat.size - 1) // 2]
        shape = (1,) * x.ndim if keepdims else ()
        return np.asarray(value, dtype=x.dtype).reshape(shape)
    axis = int(attrs.axis[0]) % x.ndim
    mid = (x.shape[axis] - 1) // 2
    order = np.argsort(x, axis=axis, kind="stable")
    index = np.take(order, [mid], axis=axis)
    value = np.take_along_axis(x, index, axis=axis)
    if not keepdims:
        index, value = np.squeeze(index, axis), np.squeeze(value, axis)
    return value.astype(x.dtype), index.astype("int64")
