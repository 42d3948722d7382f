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

__all__ = ["invert_split_indices"]


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


def _fused(expr, extents):
    """``(key, terms, extent)`` of a mixed-radix sum (``terms`` outer first), or None."""
    terms = _linear(expr, extents)
    if not terms or len({id(v) for v, _ in terms}) != len(terms):
        return None
    terms.sort(key=lambda t: -t[1])
    if terms[-1][1] != 1:
        return None
    for (_, c_out), (v_in, c_in) in itertools.pairwise(terms):
        if c_out != c_in * extents[id(v_in)]:
            return None
    total = terms[0][1] * extents[id(terms[0][0])]
    return tuple(id(v) for v, _ in terms), terms, total


def _split(expr, extents):
    """``(fused, lower, extent)`` of one index, or None."""
    div = mod = None
    if isinstance(expr, FloorMod) and isinstance(expr.b, IntImm):
        mod, expr = expr.b.value, expr.a
    if isinstance(expr, FloorDiv) and isinstance(expr.b, IntImm):
        div, expr = expr.b.value, expr.a
    fused = _fused(expr, extents)
    if fused is None or (div is not None and div <= 0) or (mod is not None and mod <= 0):
        return None
    total = fused[2]
    lower = div or 1
    extent = mod if mod is not None else -(-total // lower)
    return fused, lower, extent


def invert_split_indices(indices, iter_vars, axes):
    """``{id(var): expr}``: each of ``iter_vars`` (those with extent > 1) as an expression of
    ``axes`` (one per index), or None when the indices are not splits of fused iterators that
    tile them. Where the splits cover more than an iterator's extent, the returned expression
    can exceed it: the caller guards those positions.

    ``iter_vars`` are ``(var, extent)`` with constant extents and minimum 0.
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
        if expected < total:
            return None
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
