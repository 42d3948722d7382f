"""Padding: ``pad`` (constant), ``mirror_pad`` (reflect/symmetric) and ``replicate_pad``."""

from __future__ import annotations

from ... import te, tirx
from ...tirx import generic as _g
from ..utils import as_index, const_like

__all__ = ["mirror_pad", "pad", "replicate_pad"]


def _widths(data, pad_before, pad_after):
    before = list(pad_before)
    after = list(pad_after) if pad_after is not None else list(before)
    if len(before) != data.ndim or len(after) != data.ndim:
        raise ValueError(f"pad: {data.ndim}-D input needs {data.ndim} widths before and after, "
                         f"got {before} and {after}")
    dtypes = [s.dtype for s in data.shape]
    return ([as_index(b, d) for b, d in zip(before, dtypes)],
            [as_index(a, d) for a, d in zip(after, dtypes)])


def _padded_shape(data, before, after):
    # Lazy: arith simplification keeps static extents constant (5 + 1 + 1 -> 7).
    from ...arith import Analyzer

    ana = Analyzer()
    return tuple(ana.simplify(s + b + a) for s, b, a in zip(data.shape, before, after))


def _is_zero(v) -> bool:
    return hasattr(v, "value") and int(v.value) == 0


def pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput", attrs=None):
    """``data`` with ``pad_before[d]``/``pad_after[d]`` elements of ``pad_value`` on each
    axis (``pad_after`` defaults to ``pad_before``)."""
    before, after = _widths(data, pad_before, pad_after)
    shape = _padded_shape(data, before, after)
    value = const_like(pad_value, data.dtype)

    def body(*i):
        idx, conds = [], []
        for d, v in enumerate(i):
            if _is_zero(before[d]) and _is_zero(after[d]):
                idx.append(v)
                continue
            idx.append(v - before[d])
            # TVM's spelling: ``v >= before`` and ``v < extent + before``, all conditions
            # joined left to right (the simplifier turns them into ``1 <= v and v < 29``).
            conds.append(_g.greater_equal(v, before[d]))
            conds.append(_g.less(v, data.shape[d] + before[d]))
        if not conds:
            return data(*idx)
        inside = conds[0]
        for c in conds[1:]:
            inside = _g.logical_and(inside, c)
        # if_then_else, not Select: the load would be out of bounds in the padding.
        return tirx.if_then_else(inside, data(*idx), value)

    return te.compute(shape, body, name=name, tag="injective,pad", attrs=attrs)


def _mirror_index(src, n, symmetric):
    zero, one = const_like(0, src.dtype), const_like(1, src.dtype)
    if symmetric:
        low = zero - src - one
        high = n + n - src - one
    else:
        low = zero - src
        high = n + n - src - const_like(2, src.dtype)
    return tirx.Select(_g.less(src, zero), low, tirx.Select(_g.greater_equal(src, n), high, src))


def mirror_pad(data, pad_before, pad_after=None, mode="SYMMETRIC"):
    """Mirror padding: ``"REFLECT"`` (edge not repeated, as ``np.pad(mode="reflect")``) or
    ``"SYMMETRIC"`` (edge repeated). Widths must be below the extent (one reflection)."""
    if mode not in ("SYMMETRIC", "REFLECT"):
        raise ValueError(f"mirror_pad: mode must be 'SYMMETRIC' or 'REFLECT', got {mode!r}")
    before, after = _widths(data, pad_before, pad_after)
    shape = _padded_shape(data, before, after)

    def body(*i):
        return data(*[_mirror_index(v - before[d], data.shape[d], mode == "SYMMETRIC")
                      for d, v in enumerate(i)])

    return te.compute(shape, body, name="MirrorPadInput", tag="injective,pad")


def replicate_pad(data, pad_before, pad_after=None):
    """Edge padding: each padded element repeats the nearest edge element."""
    before, after = _widths(data, pad_before, pad_after)
    shape = _padded_shape(data, before, after)

    def body(*i):
        idx = []
        for d, v in enumerate(i):
            src = v - before[d]
            last = data.shape[d] - const_like(1, src.dtype)
            idx.append(_g.min(_g.max(src, const_like(0, src.dtype)), last))
        return data(*idx)

    return te.compute(shape, body, name="ReplicatePadInput", tag="injective,pad")
