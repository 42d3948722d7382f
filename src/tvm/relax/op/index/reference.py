"""NumPy reference semantics of indexing (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..registry import register_reference


@register_reference("take")
def _take(attrs, x, indices):
    # "fast" assumes in-range indices; clipping gives the same result for those.
    mode = {"wrap": "wrap"}.get(attrs.mode, "clip")
    return np.take(x, np.asarray(indices).astype(np.int64), axis=attrs.axis, mode=mode)


@register_reference("strided_slice")
def _strided_slice(_attrs, x, axes, begin, end, strides=None):
    strides = strides if strides is not None else (1,) * len(axes)
    index = [slice(None)] * x.ndim
    for axis, b, e, s in zip(axes, begin, end, strides):
        index[int(axis)] = slice(int(b), int(e), int(s))
    return np.array(x[tuple(index)])


@register_reference("dynamic_strided_slice")
def _dynamic_strided_slice(_attrs, x, begin, end, strides):
    index = [slice(int(b), int(e), int(s)) for b, e, s in zip(begin, end, strides)]
    return np.array(x[tuple(index)])
