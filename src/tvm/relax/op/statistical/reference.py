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
