"""Applying a layout to a coordinate: ``L(x) = D(x) + O`` per axis, then the swizzle.

Constant coordinates are computed with Python ints; symbolic ones build PrimExprs that the
shared analyzer simplifies. The replica set is not part of :func:`apply_layout`'s result (it
returns the base coordinate ``D(x) + O``).
"""

from __future__ import annotations

from ...error import InternalError
from ..expr import Let, Var
from . import _core as C
from .algebra import _fuse_adjacent, group_many, m_axis, offsets, triples
from .layout import ComposeLayout, LayoutArgumentError

__all__ = ["apply_layout", "apply_to_shape", "swizzle_index"]


def split_coord(coord, extents):
    """Row-major digits of ``coord`` over ``extents`` as 0.27 writes them: digit ``k`` is
    ``coord % (e_k * inner) // inner`` (``inner`` = product of the later extents); the
    outermost digit is ``coord // inner``, not wrapped."""
    coord = C.num(coord)
    digits = [None] * len(extents)
    inner = 1
    for k in range(len(extents) - 1, -1, -1):
        e = C.num(extents[k])
        if k == 0:
            digits[k] = C.fdiv(coord, inner)
        else:
            outer = C.mul(e, inner)
            digits[k] = C.fdiv(C.fmod(coord, outer), inner)
        inner = C.mul(inner, e)
    return digits


def flatten_coord(coords, shape):
    """Row-major flat index of ``coords`` in ``shape``.

    Parameters
    ----------
    coords : sequence of int or PrimExpr
        One coordinate per dimension.
    shape : sequence of int or PrimExpr
        The extents.

    Returns
    -------
    int or PrimExpr
        The flat index; a Python int when every number is constant.
    """
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
    """The digit each shard iter takes for ``coords`` in ``shape`` (``Layout.apply_to_shape``).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout.
    coords : sequence of int or PrimExpr
        A coordinate in ``shape``.
    shape : sequence of int or PrimExpr
        The logical shape; when the layout can not be grouped by it the flat index is split.

    Returns
    -------
    list of PrimExpr
        One digit per shard iter, simplified.

    Raises
    ------
    LayoutArgumentError
        When ``coords`` and ``shape`` differ in rank.
    """
    if len(coords) != len(shape):
        raise LayoutArgumentError(
            f"apply_to_shape: coordinate {coords} and shape {shape} differ in rank")
    digits, _iters = _digits_for_shape(layout, coords, shape, fuse=False)
    return [C.expr(d) if C.is_const(d) else C.simp(d) for d in digits]


def _digits_for_shape(layout, coords, shape, fuse=True, refine=None):
    try:
        grouped, seps = group_many(layout, [[C.num(e) for e in shape]])
    except (InternalError, ValueError):
        iters = triples(layout.shard)
        flat = flatten_coord(coords, shape)
        return split_coord(flat, [e for e, _s, _a in iters]), iters
    iters = triples(grouped.shard)
    seps = seps[0]
    digits, fused = [], []
    for d in range(len(shape)):
        group = iters[seps[d]:seps[d + 1]]
        if fuse:  # contiguous iters of one dim take one digit: simpler expressions
            group = _fuse_adjacent(group)
        if refine is not None:
            group = refine(group)
        part = split_coord(coords[d], [e for e, _s, _a in group])
        if fuse:  # an in-range coordinate puts 0 on extent-1 iters
            part = [0 if C.equal(e, 1) else dg for (e, _s, _a), dg in zip(group, part)]
        digits += part
        fused += group
    return digits, fused


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
    iters, digits = _iters_and_digits(layout, coords, shape)
    return _sum_per_axis(iters, digits, offsets(layout))


def _iters_and_digits(layout, coords, shape, refine=None):
    """The shard iters (contiguous ones fused) and the digit each takes for ``coords``."""
    if shape is not None:
        shape = list(shape)
        if len(coords) != len(shape):
            raise LayoutArgumentError(
                f"apply: coordinate {coords} has {len(coords)} dims but shape {shape} has "
                f"{len(shape)}"
            )
        digits, iters = _digits_for_shape(layout, coords, shape, refine=refine)
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
    return iters, digits


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


def _swizzle_expr(layout, value, bind=False):
    """The swizzle of a symbolic ``m`` coordinate on whole units, as 0.27 writes it:
    ``((q ^ ((q & (mask << A)) >> A)) << P) + m % 2**P`` with ``q = m // 2**P`` (inner;
    the outer swizzle shifts the other way). ``m`` is Let-bound (``compose_m``,
    ``compose_q``) unless it is a variable and ``bind`` is False."""
    p, a = layout.per_element, layout.atom_len
    chunk = 1 << p
    mask = (1 << layout.swizzle_len) - 1

    def body(m, q):
        if layout.swizzle_inner:
            mixed = q ^ ((q & C.expr(mask << a)) >> C.expr(a))
        else:
            mixed = q ^ ((q & C.expr(mask)) << C.expr(a))
        return (mixed << C.expr(p)) + m % C.expr(chunk) if p else mixed

    value = C.expr(value) if C.is_const(C.num(value)) else value
    if isinstance(value, Var) and not bind:
        return body(value, value // C.expr(chunk) if p else value)
    m = Var("compose_m", value.dtype)
    q = Var("compose_q", value.dtype)
    return Let(m, value, Let(q, m // C.expr(chunk) if p else m, body(m, q)))


def apply_layout(layout, coords, shape=None):
    """Map a coordinate through ``layout`` (``Layout.apply``).

    Computes ``D(x) + O`` per axis, then applies a ComposeLayout's swizzle to ``m``: with
    numbers when every coordinate is constant, else as an expression (structured per row
    when a shape or several coordinates are given). The replica set is not applied.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout.
    coords : sequence of int or PrimExpr
        One flat index, one coordinate per shard iter, or (with ``shape``) a coordinate in
        ``shape``.
    shape : sequence of int or PrimExpr, optional
        The logical shape ``coords`` index into.

    Returns
    -------
    dict
        ``{axis name: PrimExpr}``.

    Raises
    ------
    LayoutArgumentError
        When ``coords`` is empty.
    """
    if not coords:
        raise LayoutArgumentError("apply: needs at least one coordinate")
    coords = [C.num(c) for c in coords]
    if not isinstance(layout, ComposeLayout):
        return _apply_tile(layout, coords, shape)
    tile = layout.tile_layout
    iters, digits = _iters_and_digits(tile, coords, shape)
    out = _sum_per_axis(iters, digits, offsets(tile))
    if "m" not in out:
        return out
    m = C.num(out["m"])
    if C.is_const(m) and all(C.is_const(c) for c in coords):
        out["m"] = C.expr(swizzle_index(m, layout.per_element, layout.swizzle_len,
                                        layout.atom_len, layout.swizzle_inner))
    elif layout.swizzle_len > 0:
        structured = None
        shaped = shape is not None or len(coords) > 1  # 0.27 keeps a flat index unstructured
        if shaped:
            if shape is not None:  # split row-crossing iters before taking digits
                iters, digits = _iters_and_digits(tile, coords, shape,
                                                  refine=_row_splitter(layout))
            structured = _structured_swizzle(layout, iters, digits, tile.offset.get(m_axis()))
        out["m"] = structured if structured is not None else _swizzle_expr(layout, m, shaped)
    return out


# --- structured swizzled addresses --------------------------------------------------------
# For an inner swizzle the XOR only moves bits at and above ``R = 2**(P + A)`` (the row)
# into bits ``[P, P + B)``. When every term of the address is either a multiple of R (the
# "high" part) or provably below R without carries (the "low" part), the address is
#     high + (low ^ ((row & mask) << P))        with row = high / R,
# and a constant low part whose bits sit above the variable low part is XORed in last.


def _row_splitter(layout):
    """Splits an iter that crosses the swizzle row ``2**(P + A)`` into the rows it steps
    over and the part inside a row, so each digit falls on one side (as 0.27 does)."""
    row = 1 << (layout.per_element + layout.atom_len)

    def refine(group):
        out = []
        for e, s, a in group:
            if (a.name == "m" and C.is_const(e) and C.is_const(s) and 0 < s < row
                    and s * (e - 1) >= row and row % s == 0 and e % (row // s) == 0):
                per_row = row // s
                out += [(e // per_row, row, a), (per_row, s, a)]
            else:
                out.append((e, s, a))
        return out

    return refine


def _offset_terms(value):
    """The summands of an offset expression (None when it is not a plain sum)."""
    if value is None:
        return []
    value = C.num(value)
    if C.is_const(value):
        return [value]
    if type(value).__name__ == "Add":
        left, right = _offset_terms(value.a), _offset_terms(value.b)
        return None if left is None or right is None else left + right
    return [value]


def _upper_bound(expr):
    bound = C.analyzer().const_int_bound(expr)
    lo, hi = int(bound.min_value), int(bound.max_value)
    return None if lo < 0 or hi >= 1 << 62 else hi


def _structured_swizzle(layout, iters, digits, offset):
    # The XORed bits [P, P + B) must lie in the low part, below the row bits.
    if not layout.swizzle_inner or layout.swizzle_len > layout.atom_len:
        return None
    row_bits = layout.per_element + layout.atom_len
    row = 1 << row_bits
    high, low = [], []  # (stride, term[, row term]), ordered by stride like 0.27
    low_max = 0
    # Terms are ordered by stride (ties keep the iter order), as 0.27 mostly does.
    for (e, s, a), digit in zip(iters, digits):
        if a.name != "m" or C.equal(e, 1):
            continue
        if not (C.is_const(s) and C.is_const(e)) or s < 0:
            return None
        if s == 0:
            continue
        digit = C.expr(digit) if C.is_const(C.num(digit)) else C.num(digit)
        if s % row == 0:
            high.append((s, digit * s, digit if s == row else digit * (s // row)))
        elif s * (e - 1) < row:
            low.append((s, digit if s == 1 else digit * s))
            low_max += s * (e - 1)
        elif row % s == 0 and e % (row // s) == 0:
            per_row = row // s
            high.append((row, digit // per_row * row, digit // per_row))
            low.append((s, digit % per_row if s == 1 else digit % per_row * s))
            low_max += s * (per_row - 1)
        else:
            return None
    high.sort(key=lambda t: -t[0])
    low.sort(key=lambda t: -t[0])
    high_const, low_const = 0, 0
    terms = _offset_terms(offset)
    if terms is None:
        return None
    for term in terms:
        if C.is_const(term):
            high_const += term - term % row
            low_const += term % row
            continue
        if type(term).__name__ == "Mul" and C.is_const(C.num(term.b)) and C.num(term.b) % row == 0:
            factor = C.num(term.b) // row
            high.append((C.num(term.b), term, term.a if factor == 1 else term.a * factor))
            continue
        bound = _upper_bound(term)
        if bound is None:
            return None
        low.append((0, term))
        low_max += bound
    if low_max >= row or low_max + low_const >= row:
        return None
    if low_const and low_const % (1 << low_max.bit_length()):
        return None  # the constant would carry into the variable low bits
    mask = (1 << layout.swizzle_len) - 1
    # Only the constant's row bits under the mask reach the XOR (whole periods do not).
    row_const = (high_const // row) & mask
    row_terms = [t[2] for t in high] + ([row_const] if row_const else [])
    row_expr = _sum(row_terms)
    if row_expr is None:
        shift = C.expr(0)
    else:
        shift = row_expr & mask
        if layout.per_element:
            shift = shift << layout.per_element
    low_expr = _sum([t[1] for t in low])
    if low_expr is None:
        low_expr = C.expr(0)
    mixed = low_expr ^ shift
    high_terms = [t[1] for t in high]
    # Apache TVM 0.27's simplifier moves a signed constant after the swizzled term and
    # leaves an unsigned one inside the high part; the same order is kept here.
    if high_const and high_terms and mixed.dtype.startswith("uint"):
        result = _sum(high_terms) + high_const + mixed
    else:
        result = _sum([*high_terms, mixed])
        if high_const:
            result = result + high_const
    if low_const:
        result = result ^ low_const
    return result


def _sum(terms):
    out = None
    for term in terms:
        out = term if out is None else out + term
    return out
