"""Inverting the index map of a block access: block iterators from buffer coordinates.

``reverse_compute_inline`` rewrites a consumer ``C[v...] = f(B[g(v...)])`` into its producer,
which knows the coordinates ``B[p...]``; it needs ``v = g^-1(p)``. The indices ``g`` this module
inverts are *splits of fused iterators*, as TVM's iter-map detection sees them:

* a fused iterator is a mixed-radix sum ``v0 * c0 + v1 * c1 + ... + vn`` of block iterators
  (``c_k = c_{k+1} * extent_{k+1}``, the last coefficient 1);
* an index is the fused iterator itself, ``F // c``, ``F % c`` or ``F // c1 % c2``;
* the splits of one fused iterator over all indices must tile it (lower factors 1, e1, e1*e2,
  ...). The last split may cover more than the iterator (``F // 16`` of an extent-127 ``F``):
  the caller then guards the extra positions.

Anything else (constants added to an index, an iterator in two fused sums, overlapping splits)
is reported as not invertible (``None``).
"""

from __future__ import annotations

import itertools

from ...tirx.expr import Add, FloorDiv, FloorMod, IntImm, Mul, Var

__all__ = ["invert_split_indices", "is_affine_binding"]


def _linear(expr, extents):
    """``[(var, coeff)]`` of a sum of ``var * const`` terms over ``extents``' vars, or None."""
    if isinstance(expr, Var):
        return [(expr, 1)] if id(expr) in extents else None
    if isinstance(expr, Add):
        a, b = _linear(expr.a, extents), _linear(expr.b, extents)
        return None if a is None or b is None else a + b
    if isinstance(expr, Mul):
        for x, c in ((expr.a, expr.b), (expr.b, expr.a)):
            if isinstance(c, IntImm) and c.value > 0:
                inner = _linear(x, extents)
                if inner is not None:
                    return [(v, k * c.value) for v, k in inner]
    return None


def _fused(expr, extents, overlap=False):
    """``(key, terms, extent)`` of a mixed-radix sum (``terms`` outer first), or None.

    With ``overlap``, a sum whose terms overlap without holes (``v0 * 2 + v1``, ``v1`` of
    extent 4) is accepted too, as TVM's surjective iterator maps do; its extent is then one
    past its largest value."""
    terms = _linear(expr, extents)
    if not terms or len({id(v) for v, _ in terms}) != len(terms):
        return None
    terms.sort(key=lambda t: -t[1])
    if terms[-1][1] != 1:
        return None
    exact = True
    for (_, c_out), (v_in, c_in) in itertools.pairwise(terms):
        if c_out != c_in * extents[id(v_in)]:
            exact = False
            if not overlap or c_out > c_in * extents[id(v_in)]:
                return None
    if not exact:
        total = 1 + sum(c * (extents[id(v)] - 1) for v, c in terms)
        return tuple(id(v) for v, _ in terms), terms, total
    total = terms[0][1] * extents[id(terms[0][0])]
    return tuple(id(v) for v, _ in terms), terms, total


def _split(expr, extents, overlap=False):
    """``(fused, lower, extent)`` of one index, or None."""
    div = mod = None
    if isinstance(expr, FloorMod) and isinstance(expr.b, IntImm):
        mod, expr = expr.b.value, expr.a
    if isinstance(expr, FloorDiv) and isinstance(expr.b, IntImm):
        div, expr = expr.b.value, expr.a
    fused = _fused(expr, extents, overlap and div is None and mod is None)
    if fused is None or (div is not None and div <= 0) or (mod is not None and mod <= 0):
        return None
    total = fused[2]
    lower = div or 1
    extent = mod if mod is not None else -(-total // lower)
    return fused, lower, extent


def invert_split_indices(indices, iter_vars, axes, exact=False):
    """``{id(var): expr}``: each of ``iter_vars`` (those with extent > 1) as an expression of
    ``axes`` (one per index), or None when the indices are not splits of fused iterators that
    tile them. Where the splits cover more than an iterator's extent, the returned expression
    can exceed it: the caller guards those positions.

    ``iter_vars`` are ``(var, extent)`` with constant extents and minimum 0. With ``exact``
    the splits must tile each fused iterator exactly (a bijection).
    """
    extents = {id(v): e for v, e in iter_vars}
    groups = {}
    for index, axis in zip(indices, axes):
        got = _split(index, extents)
        if got is None:
            return None
        (key, terms, total), lower, extent = got
        group = groups.setdefault(key, (terms, total, []))
        group[2].append((lower, extent, axis))
    seen = set()
    for key in groups:
        if seen & set(key):
            return None  # an iterator in two different fused sums
        seen |= set(key)
    if seen != set(extents):
        return None  # an iterator the indices do not use
    out = {}
    for terms, total, parts in groups.values():
        parts.sort(key=lambda p: p[0])
        expected = 1
        for lower, extent, _axis in parts:
            if lower != expected:
                return None  # overlapping splits or a gap
            expected = lower * extent
        if expected < total or (exact and expected != total):
            return None  # a hole (or, with ``exact``, positions past the iterators)
        fused = None
        for lower, _extent, axis in parts:  # innermost first, as TVM writes the sum
            term = axis if lower == 1 else axis * IntImm(axis.dtype, lower)
            fused = term if fused is None else fused + term
        for k, (var, coeff) in enumerate(terms):
            value = fused
            if coeff != 1:
                value = FloorDiv(value, IntImm(fused.dtype, coeff))
            if k > 0:
                value = FloorMod(value, IntImm(fused.dtype, extents[id(var)]))
            out[id(var)] = value
    return out


def _sum_terms(expr):
    """The addends of ``expr`` (``a - c`` gives ``a`` and ``-c``)."""
    from ...tirx.expr import Sub  # Lazy: only the binding check splits subtractions.

    if isinstance(expr, Add):
        return _sum_terms(expr.a) + _sum_terms(expr.b)
    if isinstance(expr, Sub):
        return _sum_terms(expr.a) + [Mul(expr.b, IntImm(expr.b.dtype, -1))]
    return [expr]


def is_affine_binding(iter_values, loop_extents, predicate=None):
    """Whether block bindings are *affine* over loops, as TVM's ``IsAffineBinding`` (a
    surjective iterator map): each value is one split (scale 1) of a fused sum of the loops
    ``loop_extents`` (``{id(loop_var): (var, constant extent)}``), plus terms free of those
    loops; splits of one fused sum do not overlap, and a loop is in at most one fused sum.

    Loops not in ``loop_extents`` (outer loops) count as constants. A symbolic extent makes
    the check answer False (not proven affine). A ``predicate`` may only bound fused sums the
    bindings use (``i0 * 16 + i1 < 127`` of a split that does not divide), as TVM accepts.
    """
    from ...tirx.stmt_functor import post_order_visit  # Lazy: only this check walks exprs.

    extents = {k: e for k, (_v, e) in loop_extents.items()}

    def uses_loop(expr):
        found = []
        post_order_visit(expr, lambda n: found.append(n) if isinstance(n, Var)
                         and id(n) in extents else None)
        return bool(found)

    groups = {}
    for value in iter_values:
        moving = [t for t in _sum_terms(value) if uses_loop(t)]
        if not moving:
            continue
        if len(moving) > 1:
            got = _split(_rebuild_sum(moving), extents, overlap=True)
            if got is None:
                # A sum of scaled splits (``f % 4 * 4 + ki`` after fusing and splitting):
                # each addend a split of its own fused loops, the smallest scale 1.
                parts = [_scaled_split(t, extents) for t in moving]
                if any(p is None for p in parts) or min(c for c, _ in parts) != 1:
                    return False
                for _c, ((key, _terms, _total), lower, extent) in parts:
                    groups.setdefault(key, []).append((lower, extent))
                continue
        else:
            got = _split(moving[0], extents, overlap=True)
        if got is None:
            return False
        (key, _terms, _total), lower, extent = got
        groups.setdefault(key, []).append((lower, extent))
    if predicate is not None and not _predicate_bounds_groups(predicate, groups, extents):
        return False
    seen = set()
    for key, parts in groups.items():
        if seen & set(key):
            return False
        seen |= set(key)
        parts.sort()
        for (lo_a, ext_a), (lo_b, _ext_b) in itertools.pairwise(parts):
            if lo_a * ext_a > lo_b:
                return False  # two splits overlap: not a bijection of the fused loops
    return True


def _scaled_split(term, extents):
    """``(scale, split)`` of ``split * c`` or ``split``; None otherwise."""
    if isinstance(term, Mul):
        for x, c in ((term.a, term.b), (term.b, term.a)):
            if isinstance(c, IntImm) and c.value > 0:
                got = _split(x, extents)
                if got is not None:
                    return int(c.value), got
        return None
    got = _split(term, extents)
    return None if got is None else (1, got)


def _rebuild_sum(terms):
    total = terms[0]
    for t in terms[1:]:
        total = Add(total, t)
    return total


def _predicate_bounds_groups(predicate, groups, extents):
    """Whether each conjunct of ``predicate`` is ``fused < c`` of a fused sum in ``groups``."""
    from ...tirx.expr import LT, And  # Lazy: only predicates are split here.

    if isinstance(predicate, IntImm):
        return bool(predicate.value)
    if isinstance(predicate, And):
        return (_predicate_bounds_groups(predicate.a, groups, extents)
                and _predicate_bounds_groups(predicate.b, groups, extents))
    if isinstance(predicate, LT):
        fused = _fused(predicate.a, extents)
        return fused is not None and fused[0] in groups
    return False
