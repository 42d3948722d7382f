"""Iteration domains of a block moved by ``compute_at``/``reverse_compute_at``.

The moved block *provides* a region of each buffer per instance (what it writes for
``compute_at``, what it reads for ``reverse_compute_at``); the dependent blocks under the
target loop *require* a region per loop iteration. For every block iterator this module finds
the range that covers the required region (``dom``) and the range outside which the iterator
would leave the block's domain or the buffer (``bound``; iterations outside it are guarded with
a predicate), as TVM's ``CalculateBlockVarDomain`` does:

* *affine*: when the provided region is one point whose indices map the block's iterators onto
  the buffer bijectively (``temp[v // 16, v % 16]``), the required corners are mapped back
  through the inverse map;
* *per dimension* otherwise: an index ``v``, ``v * c``, ``v + e``, ``e - v``, ``x // c`` or
  ``x % c`` (``x`` itself such an index) is solved for ``v``; a constant index needs nothing.
"""

from __future__ import annotations

from ...tirx.expr import Add, FloorDiv, FloorMod, IntImm, Mul, Sub, Var
from ...tirx.generic import max as gmax
from ...tirx.generic import min as gmin
from .affine_inverse import invert_split_indices

__all__ = ["DomainSolveError", "solve_block_var_domains"]


class DomainSolveError(ValueError):
    """A provided index has a form the solver does not handle (names the index)."""


def _is_iter(expr, iters):
    return isinstance(expr, Var) and id(expr) in iters


def _free(expr, iters):
    """Whether ``expr`` uses none of the iterators ``iters``."""
    used = set()
    _collect_vars(expr, used)
    return not used & iters.keys()


def _union_interval(a, b, ana):
    if a is None:
        return b
    if b is None:
        return a
    return (ana.simplify(gmin(a[0], b[0])), ana.simplify(gmax(a[1], b[1])))


class _Info:
    """``dom``/``bound`` of one iterator, each ``(lo, hi)`` or None (nothing yet)."""

    def __init__(self):
        self.dom = None
        self.bound = None

    def union(self, dom, bound, ana):
        # As TVM: (d0 ^ b0) v (d1 ^ b1) is relaxed to (d0 v d1) ^ (b0 v b1).
        self.dom = _union_interval(self.dom, dom, ana)
        self.bound = _union_interval(self.bound, bound, ana)


def _solve_dim(pmin, pmax, rmin, rmax, dim_max, iters, ana):
    """``(var, dom, bound)`` for one buffer dimension (``var`` None when nothing constrains an
    iterator), or raise ``DomainSolveError``."""
    for a, b in ((getattr(pmin, "a", None), getattr(pmin, "b", None)),
                 (getattr(pmin, "b", None), getattr(pmin, "a", None))):
        if isinstance(pmin, Mul) and _is_iter(a, iters) and _free(b, iters):
            return a, (ana.simplify(FloorDiv(rmin, b)), ana.simplify(FloorDiv(rmax, b))), \
                (IntImm(dim_max.dtype, 0), ana.simplify(FloorDiv(dim_max, b)))
    if ana.can_prove_equal(pmin, pmax):
        offset = _offset_form(pmin, iters)
        if offset is not None:
            # ``v + e`` / ``e - v`` (TVM reaches these through its affine map detection).
            var, sign, e = offset
            zero = IntImm(dim_max.dtype, 0)
            if sign > 0:
                return var, (ana.simplify(rmin - e), ana.simplify(rmax - e)), \
                    (ana.simplify(zero - e), ana.simplify(dim_max - e))
            return var, (ana.simplify(e - rmax), ana.simplify(e - rmin)), \
                (ana.simplify(e - dim_max), e)
        if _is_iter(pmin, iters):
            return pmin, (rmin, rmax), (IntImm(dim_max.dtype, 0), dim_max)
        if isinstance(pmin, FloorDiv) and ana.can_prove(pmin.b >= 1):
            fac = pmin.b
            lo = ana.simplify(rmin * fac)
            hi = ana.simplify(rmax * fac + fac - 1)
            if _is_iter(pmin.a, iters):
                return pmin.a, (lo, hi), (IntImm(dim_max.dtype, 0),
                                          ana.simplify(dim_max * fac + fac - 1))
            return _solve_dim(pmin.a, pmin.a, lo, hi, ana.simplify(dim_max * fac + fac - 1),
                              iters, ana)
        if isinstance(pmin, FloorMod) and _is_iter(pmin.a, iters):
            # ``x % c`` puts no constraint on the range of ``x``.
            return None, None, None
    raise DomainSolveError(f"the buffer index {pmin} is not an iterator, iterator * c, "
                           "x // c or x % c")


def _offset_form(expr, iters):
    """``(v, +1, e)`` for ``v + e``/``v - e``, ``(v, -1, e)`` for ``e - v``, where ``e``
    does not use an iterator; None otherwise."""

    if isinstance(expr, Add):
        for v, e in ((expr.a, expr.b), (expr.b, expr.a)):
            if _is_iter(v, iters) and _free(e, iters):
                return v, 1, e
    if isinstance(expr, Sub):
        if _is_iter(expr.a, iters) and _free(expr.b, iters):
            return expr.a, 1, IntImm(expr.b.dtype, 0) - expr.b
        if _is_iter(expr.b, iters) and _free(expr.a, iters):
            return expr.b, -1, expr.a
    return None


def _solve_affine(indices, block, required, shape, ana):
    """``{id(var): (dom, bound)}`` through the inverse of a bijective index map, or None."""
    from ...tirx.index_map import IndexMap  # Lazy: only the affine case builds a map.

    used = set()
    for idx in indices:
        _collect_vars(idx, used)
    ivs = list(block.iter_vars)
    if any(id(iv.var) not in used for iv in ivs):
        return None
    if any(getattr(iv.dom.min, "value", None) != 0 for iv in ivs):
        return None
    if all(_is_iter(idx, {id(iv.var) for iv in ivs}) for idx in indices):
        return None  # plain iterators: the per-dimension rule gives the same answer
    from ...tirx.stmt_functor import substitute  # Lazy: as above.

    try:
        inv, padded = IndexMap([iv.var for iv in ivs], list(indices))._inverse(
            [iv.dom.extent for iv in ivs])
    except ValueError:
        inv, padded = None, True
    if padded:
        # Fused sums split by // and % (``(v1 * 8 + v4) // 16``): invert the splits.
        extents = [getattr(iv.dom.extent, "value", None) for iv in ivs]
        if None in extents:
            return None
        axes = [Var(f"axis{k}", getattr(idx, "dtype", "int32")) for k, idx in
                enumerate(indices)]
        got = invert_split_indices(list(indices), [(iv.var, int(e)) for iv, e in
                                                   zip(ivs, extents)], axes, exact=True)
        if got is None:
            return None
        finals = [got[id(iv.var)] for iv in ivs]
    else:
        axes, finals = inv.initial_indices, inv.final_indices

    def corner(points):
        vmap = dict(zip(axes, points))
        return [ana.simplify(substitute(f, vmap)) for f in finals]

    lo_pt = corner([lo for lo, _ in required])
    hi_pt = corner([hi for _, hi in required])
    zero = [IntImm(s.dtype, 0) for s in shape]
    top = [ana.simplify(gmax(s - 1, IntImm(s.dtype, 0))) for s in shape]
    blo, bhi = corner(zero), corner(top)
    out = {}
    for iv, a, b, c, d in zip(ivs, lo_pt, hi_pt, blo, bhi):
        out[id(iv.var)] = ((ana.simplify(gmin(a, b)), ana.simplify(gmax(a, b))),
                           (ana.simplify(gmin(c, d)), ana.simplify(gmax(c, d))))
    return out


def _collect_vars(expr, out):
    from ...tirx.stmt_functor import post_order_visit  # Lazy: as above.

    post_order_visit(expr, lambda n: out.add(id(n)) if isinstance(n, Var) else None)


def solve_block_var_domains(block, provided, required, ana):
    """Per iterator of ``block``: ``(dom, bound)`` where ``dom`` is the ``(lo, hi)`` range
    to iterate and ``bound`` the ``(lo, hi)`` range iterations must stay in (None: no guard).

    ``provided``/``required`` map each buffer (by identity) to ``(buffer, [regions])``; a
    provided region is a list of ``(lo, hi)`` in the block's iterators, a required one in the
    loop variables outside the target loop. Raises ``DomainSolveError`` on an index form the
    solver does not handle.
    """
    iters = {id(iv.var): iv for iv in block.iter_vars}
    infos = {id(iv.var): _Info() for iv in block.iter_vars}
    for key, (buffer, regions) in provided.items():
        req = required.get(key)
        if not req:
            continue
        need = req[0]
        for other in req[1:]:
            need = [_union_interval(a, b, ana) for a, b in zip(need, other)]
        give = regions[0]
        for other in regions[1:]:
            give = [_union_interval(a, b, ana) for a, b in zip(give, other)]
        points = all(ana.can_prove_equal(lo, hi) for lo, hi in give)
        affine = None
        if points:
            affine = _solve_affine([lo for lo, _ in give], block, need, buffer.shape, ana)
        if affine is not None:
            for vid, (dom, bound) in affine.items():
                infos[vid].union(dom, bound, ana)
            continue
        for dim, ((plo, phi), (rlo, rhi)) in enumerate(zip(give, need)):
            if _free(plo, iters) and ana.can_prove_equal(plo, phi):
                continue  # a constant index (or one of shape variables) needs no iterator
            shape = buffer.shape[dim]
            dim_max = ana.simplify(gmax(shape - 1, IntImm(shape.dtype, 0)))
            var, dom, bound = _solve_dim(ana.simplify(plo), ana.simplify(phi),
                                         ana.simplify(rlo), ana.simplify(rhi), dim_max, iters,
                                         ana)
            if var is not None:
                infos[id(var)].union(dom, bound, ana)
    out = []
    for iv in block.iter_vars:
        info = infos[id(iv.var)]
        dmin = iv.dom.min
        dmax = ana.simplify(iv.dom.min + iv.dom.extent - 1)
        if info.bound is None:
            bound = (dmin, dmax)
        else:
            bound = (ana.simplify(gmax(info.bound[0], dmin)),
                     ana.simplify(gmin(info.bound[1], dmax)))
        out.append(_simplify_info(info.dom, bound, ana))
    return out


def _simplify_info(dom, bound, ana):
    """TVM's ``BlockVarDomainInfo::Simplify``: drop the bound when the domain lies inside it,
    take the bound when it lies inside the domain, or the intersection when it is constant."""
    if dom is None:
        return bound, None
    dom = (ana.simplify(dom[0]), ana.simplify(dom[1]))
    bound = (ana.simplify(bound[0]), ana.simplify(bound[1]))
    imin = ana.simplify(gmax(dom[0], bound[0]))
    imax = ana.simplify(gmin(dom[1], bound[1]))
    if ana.can_prove_equal(dom[0], imin) and ana.can_prove_equal(dom[1], imax):
        return dom, None
    if ana.can_prove_equal(bound[0], imin) and ana.can_prove_equal(bound[1], imax):
        return bound, None
    if isinstance(imin, IntImm) and isinstance(imax, IntImm):
        return (imin, imax), None
    return dom, bound
