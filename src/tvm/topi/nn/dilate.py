"""``dilate``: spread a tensor's elements ``stride`` apart, zeros (or a value) between."""

from __future__ import annotations

from ... import te, tirx
from ...tirx import generic as _g
from ..utils import const_like, get_const_int, is_const_int, simplify

__all__ = ["dilate"]


def dilate(data, strides, dilation_value=0.0, name="DilatedInput"):
    """``out[i] = data[i // s]`` where every ``i % s == 0``, else ``dilation_value``.

    The output extent of an axis is ``(n - 1) * s + 1``; a stride of 1 leaves the axis as is.
    """
    if len(strides) != data.ndim:
        raise ValueError(f"dilate: {data.ndim}-D input needs {data.ndim} strides, got "
                         f"{list(strides)}")
    shape = tuple(
        simplify((n - const_like(1, n.dtype)) * const_like(s, n.dtype) + const_like(1, n.dtype))
        for n, s in zip(data.shape, strides)
    )

    def body(*i):
        idx, conds = [], []
        for v, s in zip(i, strides):
            if is_const_int(s) and get_const_int(s) == 1:
                idx.append(v)
                continue
            step = const_like(s, v.dtype)
            idx.append(_g.floordiv(v, step))
            conds.append(_g.equal(_g.floormod(v, step), const_like(0, v.dtype)))
        if not conds:
            return data(*idx)
        inside = conds[0]
        for c in conds[1:]:
            inside = _g.logical_and(inside, c)
        return tirx.if_then_else(inside, data(*idx), const_like(dilation_value, data.dtype))

    return te.compute(shape, body, name=name, tag="injective,dilate")
