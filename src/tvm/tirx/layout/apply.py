"""Applying a layout to a coordinate: ``L(x) = D(x) + O`` per axis, then the swizzle.

Constant coordinates are computed with Python ints; symbolic ones build PrimExprs that the
shared analyzer simplifies. The replica set is not part of :func:`apply_layout`'s result (it
returns the base coordinate ``D(x) + O``).
"""

from __future__ import annotations

from ...error import InternalError
from . import _core as C
from .algebra import _fuse_adjacent, group_many, offsets, triples
from .layout import ComposeLayout, LayoutArgumentError

__all__ = ["apply_layout", "apply_to_shape", "swizzle_index"]


def split_coord(coord, extents):
    """Row-major digits of ``coord`` over ``extents``; the outermost digit is not wrapped."""
    coord = C.num(coord)
    digits = [None] * len(extents)
    rest = coord
    for k in range(len(extents) - 1, -1, -1):
        e = C.num(extents[k])
        if k == 0:
            digits[k] = rest
        else:
            digits[k] = C.fmod(rest, e)
            rest = C.fdiv(rest, e)
    return digits


def flatten_coord(coords, shape):
    flat = 0
    for c, e in zip(coords, shape):
        c, e = C.num(c), C.num(e)
        if C.is_const(flat) and C.is_const(c) and C.is_const(e):
            flat = flat * e + c
        else:
            flat = C.expr(flat) * C.expr(e) + C.expr(c) if not (C.is_const(flat) and flat == 0) \
                else C.expr(c)
    return flat


def apply_to_shape(layout, coords, shape):
    if len(coords) != len(shape):
        raise LayoutArgumentError(
            f"apply_to_shape: coordinate {coords} and shape {shape} differ in rank")
    digits, _iters = _digits_for_shape(layout, coords, shape)
    return [C.expr(d) if C.is_const(d) else C.simp(d) for d in digits]


def _digits_for_shape(layout, coords, shape):
    try:
        grouped, seps = group_many(layout, [[C.num(e) for e in shape]])
    except (InternalError, ValueError):
        iters = triples(layout.shard)
        flat = flatten_coord(coords, shape)
        return split_coord(flat, [e for e, _s, _a in iters]), iters
    iters = triples(grouped.shard)
    seps = seps[0]
    digits = []
    for d in range(len(shape)):
        group = iters[seps[d]:seps[d + 1]]
        if C.is_const(C.num(shape[d])) and C.num(shape[d]) == 1 and not group:
            continue
        digits += split_coord(coords[d], [e for e, _s, _a in group])
    return digits, iters


def _sum_per_axis(iters, digits, offset):
    names = []
    acc = {}
    for (_e, s, a), digit in zip(iters, digits):
        digit = C.num(digit)
        if a not in acc:
            names.append(a)
            acc[a] = 0
        if C.is_const(digit):
            term = C.mul(digit, s)
        elif C.is_const(s) and s == 1:
            term = digit
        else:
            term = C.expr(digit) * C.expr(s)
        acc[a] = _plus(acc[a], term)
    for a, v in offset.items():
        if a not in acc:
            names.append(a)
            acc[a] = 0
        acc[a] = _plus(acc[a], v)
    names.sort(key=lambda a: 0 if a.name == "m" else 1)
    return {a.name: (C.expr(acc[a]) if C.is_const(acc[a]) else C.analyzer().simplify(acc[a]))
            for a in names}


def _plus(a, b):
    a, b = C.num(a), C.num(b)
    if C.is_const(a) and C.is_const(b):
        return a + b
    if C.is_const(a) and a == 0:
        return b
    if C.is_const(b) and b == 0:
        return a
    return C.expr(a) + C.expr(b)


def _apply_tile(layout, coords, shape):
    if shape is not None:
        shape = list(shape)
        if len(coords) != len(shape):
            raise LayoutArgumentError(
                f"apply: coordinate {coords} has {len(coords)} dims but shape {shape} has "
                f"{len(shape)}"
            )
        digits, iters = _digits_for_shape(layout, coords, shape)
    elif len(coords) == 1:
        # Fusing contiguous iters keeps the map (also past the size: the outermost iter
        # takes the overflow), and gives simpler expressions for symbolic coordinates.
        iters = _fuse_adjacent(triples(layout.shard))
        digits = split_coord(coords[0], [e for e, _s, _a in iters]) if iters else []
    else:
        iters = triples(layout.shard)
        if len(coords) != len(iters):
            raise LayoutArgumentError(
                f"apply: got {len(coords)} coordinates for a layout with {len(iters)} shard "
                f"iters ({layout}); pass shape= to index a logical shape"
            )
        digits = [0 if C.equal(e, 1) else c for (e, _s, _a), c in zip(iters, coords)]
    return _sum_per_axis(iters, digits, offsets(layout))


def swizzle_index(value, per_element, swizzle_len, atom_len, swizzle_inner=True):
    """The swizzled form of an int ``m`` coordinate."""
    chunk = 1 << per_element
    unit, low = divmod(value, chunk)
    mask = (1 << swizzle_len) - 1
    if swizzle_inner:
        unit ^= (unit & (mask << atom_len)) >> atom_len
    else:
        unit ^= (unit & mask) << atom_len
    return unit * chunk + low


def _swizzle_expr(layout, value):
    """The swizzle of a symbolic ``m`` coordinate as one XOR:
    ``m ^ (((m >> (P + A)) & mask) << P)`` (inner) or ``m ^ (((m >> P) & mask) << (P + A))``
    (outer), which equals :func:`swizzle_index` since the XORed bits never reach the low
    ``P`` bits."""
    p, a = layout.per_element, layout.atom_len
    mask = C.expr((1 << layout.swizzle_len) - 1)
    if layout.swizzle_inner:
        src, dst = p + a, p
    else:
        src, dst = p, p + a
    bits = value >> C.expr(src) if src else value
    bits = bits & mask
    return value ^ (bits << C.expr(dst) if dst else bits)


def apply_layout(layout, coords, shape=None):
    if not coords:
        raise LayoutArgumentError("apply: needs at least one coordinate")
    coords = [C.num(c) for c in coords]
    if isinstance(layout, ComposeLayout):
        out = _apply_tile(layout.tile_layout, coords, shape)
        if "m" in out:
            m = C.num(out["m"])
            if C.is_const(m):
                out["m"] = C.expr(swizzle_index(m, layout.per_element, layout.swizzle_len,
                                                layout.atom_len, layout.swizzle_inner))
            elif layout.swizzle_len > 0:
                out["m"] = _swizzle_expr(layout, m)
        return out
    return _apply_tile(layout, coords, shape)
