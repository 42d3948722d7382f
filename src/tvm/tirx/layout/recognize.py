"""Recognizing layout compositions: ``is_tile_inner``/``is_tile_outer`` and the direct-sum
tests, plus the meaning comparison they rely on.

Recognition reads a candidate factor off the grouped iters of the composite, then checks it
by rebuilding the composite and comparing meanings (:func:`equivalent`): element by element
when every value is constant, by canonical structure otherwise.
"""

from __future__ import annotations

import numpy as np

from ...error import InternalError
from ...ffi.structural import structural_equal
from . import _core as C
from .algebra import (
    add_offsets,
    axes_of,
    canonicalize,
    direct_sum,
    group_many,
    m_axis,
    make,
    offsets,
    resize_swizzle,
    size_of,
    tile,
    tile_spans,
    triples,
)
from .axis import Axis
from .layout import ComposeLayout, LayoutArgumentError, TileLayout

# --- meaning comparison ---------------------------------------------------------------------
MAX_ENUMERATE = 1 << 22


def _all_const(layout):
    vals = [v for e, s, _a in triples(layout.shard) + triples(layout.replica) for v in (e, s)]
    return all(C.is_const(v) for v in vals + list(offsets(layout).values()))


def enumerate_shard(iters, n=None):
    """Per-axis values of ``sum(digit * stride)`` for flat indices ``0 .. n-1`` (numpy)."""
    total = 1
    for e, _s, _a in iters:
        total *= e
    n = total if n is None else n
    x = np.arange(n, dtype=np.int64)
    out = {}
    for k in range(len(iters) - 1, -1, -1):
        e, s, a = iters[k]
        digit = x % e if k > 0 else x
        x = x // e
        out[a] = out.get(a, np.zeros(n, dtype=np.int64)) + digit * s
    return out


def _meaning(layout):
    shard = triples(layout.shard)
    vals = enumerate_shard(shard)
    n = int(np.prod([e for e, _s, _a in shard])) if shard else 1
    for a, v in offsets(layout).items():
        vals[a] = vals.get(a, np.zeros(n, dtype=np.int64)) + v
    vals = {a: v for a, v in vals.items() if np.any(v)}
    rep = triples(layout.replica)
    rvals = enumerate_shard(rep) if rep else {}
    m = int(np.prod([e for e, _s, _a in rep])) if rep else 1
    axes = sorted(rvals, key=lambda a: a.name)
    rset = {tuple((a.name, int(rvals[a][i])) for a in axes if rvals[a][i]) for i in range(m)}
    return n, vals, rset


def equivalent(a, b) -> bool:
    """Whether two layouts have the same meaning."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ComposeLayout):
        if (a.per_element, a.swizzle_len, a.atom_len, a.swizzle_inner) != (
                b.per_element, b.swizzle_len, b.atom_len, b.swizzle_inner):
            return False
        return equivalent(a.tile_layout, b.tile_layout)
    ca, cb = canonicalize(a), canonicalize(b)
    if structural_equal(ca, cb):
        return True
    if not (_all_const(a) and _all_const(b)):
        return False
    size_a, size_b = size_of(a), size_of(b)
    if size_a != size_b or size_a > MAX_ENUMERATE:
        return False
    na, va, ra = _meaning(a)
    nb, vb, rb = _meaning(b)
    if na != nb or set(va) != set(vb) or ra != rb:
        return False
    return all(np.array_equal(va[k], vb[k]) for k in va)


# --- recognition ----------------------------------------------------------------------------
def _minus_replica(total, part):
    """``total`` replica iters with those of ``part`` removed; None if one is missing."""
    total = [t if isinstance(t, tuple) else triples([t])[0] for t in total]
    part = [t if isinstance(t, tuple) else triples([t])[0] for t in part]
    rest = list(triples(canonicalize(make([(1, 1, m_axis())], total)).replica))
    for e, s, a in triples(canonicalize(make([(1, 1, m_axis())], part)).replica):
        for i, (e2, s2, a2) in enumerate(rest):
            if a2 is a and C.equal(e, e2) and C.equal(s, s2):
                del rest[i]
                break
        else:
            return None
    return rest


def _divide_scaled(iters, spans):
    out = []
    for e, s, a in iters:
        span = spans.get(a, 1)
        if C.equal(e, 1) and not C.divides(span, s):
            out.append((e, 0, a))
        elif C.equal(s, 0):
            out.append((e, s, a))
        elif C.divides(span, s):
            out.append((e, C.div(s, span), a))
        else:
            return None
    return out


# (fused axis, upper axis, lower axis, lower extent): fused = upper * extent + lower.
_THREAD_SPLITS = (
    ("tx", "wgid", "tid_in_wg", 128),
    ("tx", "warpid", "laneid", 32),
    ("tid_in_wg", "wid_in_wg", "laneid", 32),
)


def _split_thread_iter(t, upper, lower, bound):
    """Rewrite one fused-axis iter on (upper, lower) axes; None when it straddles badly."""
    e, s, _a = t
    if not (C.is_const(e) and C.is_const(s)) or s <= 0:
        return None
    if s % bound == 0:
        return [(e, s // bound, upper)]
    if s * (e - 1) < bound and bound % s == 0 and bound % (s * e) == 0:
        return [(e, s, lower)]
    if bound % s == 0 and (e * s) % bound == 0:
        return [((e * s) // bound, 1, upper), (bound // s, s, lower)]
    return None


def _defuse_threads(layout, reference):
    """``layout`` with fused thread axes (``tx``, ``tid_in_wg``) split into the hierarchical
    axes that ``reference`` uses, so their iters can be matched one to one."""
    if not isinstance(layout, TileLayout):
        return layout
    wanted = {a.name for a in axes_of(reference)}
    shard, replica = triples(layout.shard), triples(layout.replica)
    changed = False
    for fused, upper, lower, bound in _THREAD_SPLITS:
        if not wanted & {upper, lower} or fused in wanted:
            continue
        if fused == "tx" and upper == "wgid" and not wanted & {"wgid", "tid_in_wg",
                                                                "wid_in_wg"}:
            continue
        parts = []
        for iters in (shard, replica):
            out = []
            for t in iters:
                if t[2].name != fused:
                    out.append(t)
                    continue
                split = _split_thread_iter(t, Axis.get(upper), Axis.get(lower), bound)
                if split is None:
                    return layout
                out += split
                changed = True
            parts.append(out)
        shard, replica = parts
    if not changed:
        return layout
    return make(shard, replica, offsets(layout))


def _split_shapes(tiled_shape, part_shape):
    other = []
    for t, p in zip(tiled_shape, part_shape):
        t, p = C.num(t), C.num(p)
        if not C.divides(p, t):
            return None
        other.append(C.div(t, p))
    return other


def _group_interleaved(layout, first, second):
    interleaved = [v for pair in zip(first, second) for v in pair]
    try:
        grouped, seps = group_many(layout, [interleaved])
    except (InternalError, ValueError):
        return None
    its = triples(grouped.shard)
    seps = seps[0]
    return [its[seps[k]:seps[k + 1]] for k in range(len(interleaved))]


def _compose_parts(self_layout, other):
    """True when both layouts are tile layouts, or compose layouts with the same swizzle;
    None otherwise (recognition then fails)."""
    if isinstance(self_layout, ComposeLayout) != isinstance(other, ComposeLayout):
        return None
    if isinstance(self_layout, ComposeLayout) and (
        (self_layout.per_element, self_layout.swizzle_len, self_layout.atom_len,
                self_layout.swizzle_inner) != (other.per_element, other.swizzle_len,
                                               other.atom_len, other.swizzle_inner)):
        return None
    return True


def is_tile_inner(inner, tiled, tiled_shape, inner_shape):
    """Recognize ``tiled`` as ``inner.tile(outer, ...)`` and return ``outer``.

    Parameters
    ----------
    inner : TileLayout or ComposeLayout
        The known inner layout.
    tiled : TileLayout or ComposeLayout
        The candidate composite.
    tiled_shape, inner_shape : sequence of int or PrimExpr
        Logical shapes of ``tiled`` and ``inner``; each tiled extent must be a multiple of
        the inner one.

    Returns
    -------
    TileLayout or None
        The outer layout such that tiling rebuilds a layout equivalent to ``tiled``, or None
        when there is none.
    """
    if len(tiled_shape) != len(inner_shape) or _compose_parts(inner, tiled) is None:
        return None
    outer_shape = _split_shapes(tiled_shape, inner_shape)
    if outer_shape is None:
        return None
    if isinstance(inner, ComposeLayout):
        inner_t = resize_swizzle(inner, C.product(C.num(e) for e in inner_shape))
        tiled_t = resize_swizzle(tiled, C.product(C.num(e) for e in tiled_shape))
    else:
        inner_t, tiled_t = inner, tiled
    if not C.equal(size_of(inner_t), C.product(C.num(e) for e in inner_shape)):
        return None
    target = tiled.with_tile(tiled_t) if isinstance(tiled, ComposeLayout) else tiled
    tiled_t = _defuse_threads(tiled_t, inner_t)
    groups = _group_interleaved(tiled_t, outer_shape, inner_shape)
    if groups is None:
        return None
    spans = tile_spans(inner_t, axes_of(tiled_t))
    outer_iters = []
    for d in range(len(inner_shape)):
        scaled = _divide_scaled(groups[2 * d], spans)
        if scaled is None:
            return None
        outer_iters += scaled
    rep = _minus_replica(tiled_t.replica, inner_t.replica)
    if rep is None:
        return None
    off = {a: v for a, v in add_offsets(offsets(tiled_t), {
        a: C.sub(0, v) for a, v in offsets(inner_t).items()}).items() if not C.equal(v, 0)}
    candidate = make(outer_iters, rep, off)
    try:
        rebuilt = tile(inner, candidate, outer_shape, inner_shape)
    except (LayoutArgumentError, InternalError):
        return None
    return candidate if equivalent(rebuilt, target) else None


def is_tile_outer(outer, tiled, tiled_shape, outer_shape):
    """Recognize ``tiled`` as ``inner.tile(outer, ...)`` and return ``inner``.

    Parameters
    ----------
    outer : TileLayout
        The known outer layout (a ComposeLayout is never an outer layout).
    tiled : TileLayout or ComposeLayout
        The candidate composite.
    tiled_shape, outer_shape : sequence of int or PrimExpr
        Logical shapes of ``tiled`` and ``outer``.

    Returns
    -------
    TileLayout or ComposeLayout or None
        The inner layout (with ``tiled``'s swizzle when it has one) such that tiling rebuilds
        a layout equivalent to ``tiled``, or None when there is none.
    """
    if len(tiled_shape) != len(outer_shape) or isinstance(outer, ComposeLayout):
        return None
    inner_shape = _split_shapes(tiled_shape, outer_shape)
    if inner_shape is None:
        return None
    tiled_t = tiled
    if isinstance(tiled, ComposeLayout):
        tiled_t = resize_swizzle(tiled, C.product(C.num(e) for e in tiled_shape))
    target = tiled.with_tile(tiled_t) if isinstance(tiled, ComposeLayout) else tiled
    tiled_t = _defuse_threads(tiled_t, outer)
    groups = _group_interleaved(tiled_t, outer_shape, inner_shape)
    if groups is None:
        return None
    inner_iters = [t for d in range(len(outer_shape)) for t in groups[2 * d + 1]]
    rep = _minus_replica(tiled_t.replica, outer.replica)
    if rep is None:
        return None
    outer_off = {a: C.sub(0, v) for a, v in offsets(outer).items()}
    off = {a: v for a, v in add_offsets(offsets(tiled_t), outer_off).items()
           if not C.equal(v, 0)}
    candidate = make(inner_iters, rep, off)
    if isinstance(tiled, ComposeLayout):
        candidate = tiled.with_tile(candidate)
    try:
        rebuilt = tile(candidate, outer, outer_shape, inner_shape)
    except (LayoutArgumentError, InternalError):
        return None
    return candidate if equivalent(rebuilt, target) else None


def is_direct_sum(self_layout, sum_layout, interleaved_shape, own_shape, self_is_right):
    """Recognize ``sum_layout`` as a direct sum with ``self_layout`` and return the other addend.

    Parameters
    ----------
    self_layout : TileLayout
        The known addend.
    sum_layout : TileLayout
        The candidate sum.
    interleaved_shape : sequence of int or PrimExpr
        The sum's domain ``(l0, r0, l1, r1, ...)``.
    own_shape : sequence of int or PrimExpr
        The shape of ``self_layout``; must match its half of ``interleaved_shape``.
    self_is_right : bool
        Whether ``self_layout`` is the right addend.

    Returns
    -------
    TileLayout or None
        The other addend such that :func:`direct_sum` rebuilds a layout equivalent to
        ``sum_layout``, or None when there is none.
    """
    if not isinstance(self_layout, TileLayout) or not isinstance(sum_layout, TileLayout):
        return None
    if len(interleaved_shape) != 2 * len(own_shape):
        return None
    left_shape = list(interleaved_shape[0::2])
    right_shape = list(interleaved_shape[1::2])
    mine = right_shape if self_is_right else left_shape
    if not all(C.equal(C.num(a), C.num(b)) for a, b in zip(mine, own_shape)):
        return None
    try:
        grouped, seps = group_many(sum_layout, [list(interleaved_shape)])
    except (InternalError, ValueError):
        return None
    its = triples(grouped.shard)
    seps = seps[0]
    groups = [its[seps[k]:seps[k + 1]] for k in range(len(interleaved_shape))]
    parity = 0 if self_is_right else 1
    other_iters = [t for k, g in enumerate(groups) if k % 2 == parity for t in g]
    rep = _minus_replica(sum_layout.replica, self_layout.replica)
    if rep is None:
        return None
    off = {a: v for a, v in add_offsets(offsets(sum_layout), {
        a: C.sub(0, v) for a, v in offsets(self_layout).items()}).items() if not C.equal(v, 0)}
    candidate = make(other_iters, rep, off)
    try:
        if self_is_right:
            rebuilt = direct_sum(self_layout, candidate, left_shape, right_shape)
        else:
            rebuilt = direct_sum(candidate, self_layout, left_shape, right_shape)
    except (LayoutArgumentError, InternalError):
        return None
    return candidate if equivalent(rebuilt, sum_layout) else None


