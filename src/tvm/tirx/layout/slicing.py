"""Slicing a layout to a sub-box of a logical shape (``Layout.slice``)."""

from __future__ import annotations

import numpy as np

from ...error import InternalError
from ...ir.expr import Range
from . import _core as C
from .algebra import add_offsets, grouped_iters, m_axis, make, offsets, resize_swizzle, triples
from .layout import ComposeLayout
from .recognize import MAX_ENUMERATE, enumerate_shard


# --- slicing --------------------------------------------------------------------------------
def _region_pair(r):
    if isinstance(r, Range):
        return C.num(r.min), C.simp(r.extent) if not C.is_const(C.num(r.extent)) else C.num(
            r.extent)
    begin, end = r
    begin, end = C.num(begin), C.num(end)
    return C.simp(begin) if not C.is_const(begin) else begin, C.sub(end, begin)


def _fit_iters(vals, n):
    """Iters (outer to inner) whose row-major sum reproduces ``vals`` (axis -> array of n),
    relative to ``vals[...][0]``; None when no iter list does."""
    axes = list(vals)
    if not axes:
        axes = [m_axis()]
        cur = np.zeros((1, n), dtype=np.int64)
    else:
        cur = np.stack([vals[a] - vals[a][0] for a in axes])
    out = []
    length = n
    while length > 1:
        step = cur[:, 1]
        nonzero = np.flatnonzero(step)
        if len(nonzero) > 1:
            return None
        found = None
        for e in range(length, 1, -1):
            if length % e:
                continue
            blocks = cur.reshape(len(axes), length // e, e)
            expect = blocks[:, :, :1] + step[:, None, None] * np.arange(e)[None, None, :]
            if np.array_equal(blocks, expect):
                found = e
                break
        if found is None:
            return None
        axis = axes[nonzero[0]] if len(nonzero) else m_axis()
        stride = int(step[nonzero[0]]) if len(nonzero) else 0
        out.append((found, stride, axis))
        cur = cur[:, ::found]
        length //= found
    return list(reversed(out))


def _slice_group(group, begin, extent):
    total = C.product(e for e, _s, _a in group)
    if C.equal(begin, 0) and C.equal(extent, total):
        return group, {}
    if len(group) == 1:
        _e, s, a = group[0]
        # The caller guarantees begin + extent <= e, so begin needs no wrapping.
        return [(extent, s, a)], {a: C.mul(begin, s)}
    consts = [v for e, s, _a in group for v in (e, s)] + [begin, extent]
    if all(C.is_const(v) for v in consts):
        vals = enumerate_shard(group, begin + extent)
        vals = {a: v[begin:] for a, v in vals.items()}
        fitted = _fit_iters(vals, extent)
        if fitted is None:
            return None
        return fitted, {a: int(v[0]) for a, v in vals.items() if v[0]}
    # Symbolic: keep the inner iters that the region covers whole, slice the next one.
    inner = 1
    q = len(group)
    while q > 0:
        cand = C.mul(inner, group[q - 1][0])
        if C.divides(cand, begin) and C.divides(cand, extent):
            inner = cand
            q -= 1
        else:
            break
    j = q - 1
    if j < 0:
        return None
    e_j, s_j, a_j = group[j]
    count = C.div(extent, inner)
    start = C.div(begin, inner)
    first = C.fmod(start, e_j)
    if not C.prove(C.expr(C.add(C.simp(first) if not C.is_const(first) else first, count))
                   <= C.expr(e_j)):
        return None
    off = {}
    rest = start
    for k in range(j, -1, -1):
        e_k, s_k, a_k = group[k]
        digit = C.fmod(rest, e_k) if k > 0 else rest
        rest = C.fdiv(rest, e_k)
        off[a_k] = C.add(off.get(a_k, 0), C.simp(C.expr(digit) * C.expr(s_k)))
    return [(count, s_j, a_j)] + list(group[j + 1:]), off


def _numeric_slice(layout, shape, pairs):
    """Slice a constant layout by evaluating it on the region; None when the region's map
    is not a sum of one per-dimension iter list."""
    iters = triples(layout.shard)
    consts = [v for e, s, _a in iters for v in (e, s)] + [v for p in pairs for v in p] + shape
    if not all(C.is_const(v) for v in consts):
        return None
    extents = [n for _b, n in pairs]
    if int(np.prod(extents)) > MAX_ENUMERATE or any(n <= 0 for n in extents):
        return None
    grids = np.meshgrid(*[np.arange(b, b + n, dtype=np.int64) for b, n in pairs],
                        indexing="ij")
    flat = np.zeros(extents, dtype=np.int64)
    for grid, e in zip(grids, shape):
        flat = flat * e + grid
    x = flat.ravel()
    vals = {}
    for k in range(len(iters) - 1, -1, -1):
        e, s, a = iters[k]
        digit = x % e if k > 0 else x
        x = x // e
        vals[a] = vals.get(a, np.zeros_like(digit)) + digit * s
    vals = {a: v.reshape(extents) for a, v in vals.items()}
    origin = (0,) * len(extents)
    base = {a: int(v[origin]) for a, v in vals.items()}
    shard = []
    for d, n in enumerate(extents):
        index = [0] * len(extents)
        index[d] = slice(None)
        lines = {a: v[tuple(index)] for a, v in vals.items()}
        fitted = _fit_iters(lines, n)
        if fitted is None:
            return None
        shard += fitted
    # The fitted per-dimension iters must add up to the whole map.
    for a, v in vals.items():
        total = np.full(extents, base[a], dtype=np.int64)
        for d in range(len(extents)):
            index = [0] * len(extents)
            index[d] = slice(None)
            line = v[tuple(index)] - base[a]
            shape_d = [1] * len(extents)
            shape_d[d] = extents[d]
            total = total + line.reshape(shape_d)
        if not np.array_equal(total, v):
            return None
    off = add_offsets(offsets(layout), {a: b for a, b in base.items() if b})
    return make(shard, triples(layout.replica), off)


def slice_layout(layout, shape, region):
    """The layout of a region of a ``shape``-shaped view of ``layout`` (``Layout.slice``).

    Each dimension's iters are sliced structurally; when that fails the region is mapped
    element by element (constant shapes only).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout; a ComposeLayout keeps its swizzle, resized to the size of ``shape``.
    shape : sequence of int or PrimExpr
        The logical shape.
    region : sequence
        ``(begin, end)`` pairs or Ranges, one per dimension.

    Returns
    -------
    TileLayout or ComposeLayout or None
        The sliced layout, or None when the region is not expressible as a layout.
    """
    pairs = [_region_pair(r) for r in region]
    if isinstance(layout, ComposeLayout):
        tile_t = resize_swizzle(layout, C.product(C.num(e) for e in shape))
        sliced = slice_layout(tile_t, shape, region)
        return None if sliced is None else layout.with_tile(sliced)
    shape = [C.num(e) for e in shape]
    try:
        groups = grouped_iters(layout, shape)
    except (InternalError, ValueError):
        return _numeric_slice(layout, shape, pairs)
    shard = []
    off = offsets(layout)
    for group, (begin, extent) in zip(groups, pairs):
        res = _slice_group(group, begin, extent)
        if res is None:
            return _numeric_slice(layout, shape, pairs)
        iters, extra = res
        shard += iters
        off = add_offsets(off, extra)
    return make(shard, triples(layout.replica), off)


