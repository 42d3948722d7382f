"""Which threads reach a tile-primitive call: the execution context that
``TilePrimitiveDispatch`` hands to each variant as ``sctx.inter`` / ``sctx.intra``.

The *active set* is a box of threads, one arithmetic progression per hardware axis
(:class:`Rng`: ``extent`` values ``offset, offset + stride, ...``):

* ``laneid`` (the lane in its warp) and ``warpid`` (the warp in its CTA);
* the CTA: one ``cta_id`` axis, or, for a multi-dimensional id, one axis per dimension:
  ``cbx``/``cby``/``cbz`` for the CTA in its cluster (when the kernel has a cluster of more
  than one CTA), else ``bx``/``by``/``bz`` for the CTA in the grid.

At the device entry every thread of the launch is active. An ``if`` whose condition tests
scope ids narrows the set for its then-branch (:meth:`Narrower.narrow`):

* comparisons of a scope id with a constant (``warp_id == 0``, ``34 <= tid``, ``tid < 40``),
  joined by ``and`` or ``&``; the ranges on one id are intersected first, and an id whose
  narrowing needs another first (a thread range inside one warpgroup) waits for it;
* ``v % m == r`` on a CTA id (a progression with stride ``m``);
* ``cta_id_in_pair == 0/1`` (the parity of the CTA index in the cluster);
* ``T.cuda.elect_sync()``: the lane becomes ``(1, T.selector(lane_id, cond))``, a single lane
  chosen at run time.

A condition that does not fit leaves the set as it is; a comparison with a non-constant leaves
its id unfiltered. At a call of scope ``kind`` (thread, warp, warpgroup, cta, cluster) the set
is split (:func:`split`) into ``inter`` (the axes that tell instances of the scope apart) and
``intra`` (the threads of one instance); the warpgroup scope factors ``warpid`` into ``wgid``
and ``wid_in_wg``. :func:`encode` gives each axis as ``[extent, offset]``, or
``[extent, offset, stride]`` when the stride is not 1 (int64 constants), as Apache TVM 0.27
passes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...ir.op import register_op, register_op_attr
from ..expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BitwiseAnd,
    Call,
    Cast,
    FloorMod,
    IntImm,
    Mod,
    Mul,
    Sub,
    Var,
)
from ..op import CallEffectKind

__all__ = ["Narrower", "Rng", "encode", "entry_set", "split"]

WARP = 32
WG = 4
_INF = 1 << 62

#: ``T.selector(var, cond)``: the one value of ``var`` for which ``cond`` holds (a lane chosen
#: by ``elect_sync``). Only an operand of the execution context; it is never lowered.
register_op("tirx.selector", num_inputs=2, family="intrinsic")
register_op_attr("tirx.selector", "TCallEffectKind", CallEffectKind.Opaque)

# Scope pairs (parent, cur) of the scope ids.
KERNEL_CTA = ("kernel", "cta")
CLUSTER_CTA = ("cluster", "cta")
CTA_PAIR = ("cluster", "cta_pair")
CTA_THREAD = ("cta", "thread")
CTA_WARP = ("cta", "warp")
WARP_THREAD = ("warp", "thread")
CTA_WG = ("cta", "warpgroup")
WG_WARP = ("warpgroup", "warp")
WG_THREAD = ("warpgroup", "thread")


@dataclass(frozen=True)
class Rng:
    """``extent`` values ``offset + k * stride``; ``offset`` is an int, or a PrimExpr for a
    lane chosen at run time (then ``extent`` is 1)."""

    extent: int
    offset: object = 0
    stride: int = 1


class ActiveSet:
    """An ordered ``{axis: Rng}`` (immutable: :meth:`with_axis` returns a new set)."""

    def __init__(self, axes):
        self.axes = tuple(axes)

    def get(self, name):
        for k, r in self.axes:
            if k == name:
                return r
        return None

    def names(self):
        return [k for k, _ in self.axes]

    def with_axis(self, name, rng):
        return ActiveSet((k, rng if k == name else r) for k, r in self.axes)


def _int_ranges(*rngs) -> bool:
    return all(isinstance(r.offset, int) for r in rngs)


def intersect(r: Rng, lo: int, hi: int):
    """The values of ``r`` in ``[lo, hi)``, or None (empty or not a progression)."""
    if not _int_ranges(r) or r.stride <= 0:
        return None
    i_lo = max(0, -((r.offset - lo) // r.stride))  # ceil((lo - offset) / stride)
    i_hi = min(r.extent, (hi - 1 - r.offset) // r.stride + 1)
    if i_hi <= i_lo:
        return None
    return Rng(i_hi - i_lo, r.offset + r.stride * i_lo, r.stride)


def modulo(r: Rng, m: int, residue: int):
    """The values of ``r`` equal to ``residue`` modulo ``m``, or None."""
    if m <= 0 or not _int_ranges(r) or r.stride <= 0:
        return None
    kept = [k for k in range(r.extent) if (r.offset + k * r.stride - residue) % m == 0]
    if not kept:
        return None
    period = m // math.gcd(r.stride, m)
    return Rng(len(kept), r.offset + r.stride * kept[0], r.stride * period)


def _factor_warps(w: Rng):
    """``(wid_in_wg, wgid)`` of a warp range: whole warpgroups or part of one; else None."""
    if not _int_ranges(w) or w.stride != 1:
        return None
    inner, outer = w.offset % WG, w.offset // WG
    if inner == 0 and w.extent % WG == 0:
        return Rng(WG, 0), Rng(w.extent // WG, outer)
    if w.extent <= WG - inner:
        return Rng(w.extent, inner), Rng(1, outer)
    return None


def _narrow_flat(major: Rng, lane: Rng, lo: int, hi: int):
    """Narrow the flat index ``major * 32 + lane`` to ``[lo, hi)``: new ``(major, lane)``."""
    if not _int_ranges(major, lane) or min(major.extent, lane.extent) <= 0:
        return None
    first = major.offset * WARP + lane.offset
    last = ((major.offset + major.stride * (major.extent - 1)) * WARP
            + lane.offset + lane.stride * (lane.extent - 1))
    if lo <= first and last < hi:
        return major, lane
    if major.stride != 1 or lane.stride != 1:
        return None
    lane_hi, major_hi = lane.offset + lane.extent, major.offset + major.extent
    hit_lo = max(major.offset, (lo - lane_hi) // WARP + 1)
    hit_hi = min(major_hi, -((lane.offset - hi) // WARP))
    if hit_hi <= hit_lo:
        return None
    if hit_hi == hit_lo + 1:
        new_lo = max(lane.offset, lo - hit_lo * WARP)
        new_hi = min(lane_hi, hi - hit_lo * WARP)
        if new_hi <= new_lo:
            return None
        return Rng(1, hit_lo), Rng(new_hi - new_lo, new_lo)
    if lo <= hit_lo * WARP + lane.offset and (hit_hi - 1) * WARP + lane_hi <= hi:
        return Rng(hit_hi - hit_lo, hit_lo), lane
    return None


def _narrow_axis(A, name, lo, hi):
    r = A.get(name)
    new = None if r is None else intersect(r, lo, hi)
    return None if new is None else A.with_axis(name, new)


def filter_range(A: ActiveSet, scope, lo: int, hi: int):
    """``A`` narrowed to the threads whose 1-D scope id ``scope`` lies in ``[lo, hi)``."""
    if lo >= hi:
        return None
    if scope == WARP_THREAD:
        return _narrow_axis(A, "laneid", lo, hi)
    if scope == CTA_WARP:
        return _narrow_axis(A, "warpid", lo, hi)
    if scope in (KERNEL_CTA, CLUSTER_CTA):
        return _narrow_axis(A, "cta_id", lo, hi)
    w, lane = A.get("warpid"), A.get("laneid")
    if scope == CTA_WG:
        if not _int_ranges(w) or w.offset % WG or w.extent % WG:
            return None
        outer = intersect(Rng(w.extent // WG, w.offset // WG), lo, hi)
        return None if outer is None else A.with_axis("warpid", Rng(outer.extent * WG,
                                                                     outer.offset * WG))
    if scope == WG_WARP:
        if not _int_ranges(w):
            return None
        inner_off = w.offset % WG
        if w.extent > WG - inner_off:
            return None
        inner = intersect(Rng(w.extent, inner_off), lo, hi)
        if inner is None:
            return None
        return A.with_axis("warpid", Rng(inner.extent, (w.offset // WG) * WG + inner.offset))
    if scope == CTA_THREAD:
        got = _narrow_flat(w, lane, lo, hi)
        return None if got is None else A.with_axis("warpid", got[0]).with_axis("laneid", got[1])
    if scope == WG_THREAD:
        factored = _factor_warps(w)
        if factored is None:
            return None
        wid, wgid = factored
        got = _narrow_flat(wid, lane, lo, hi)
        if got is None:
            return None
        if wgid.extent != 1:
            return A if got == (wid, lane) else None
        return A.with_axis("laneid", got[1]).with_axis(
            "warpid", Rng(got[0].extent, wgid.offset * WG + got[0].offset))
    return None  # cluster_id, cta_id_in_pair (see narrow): not a range filter


def entry_set(extents: dict) -> ActiveSet | None:
    """The active set at the device entry of a launch ``{thread tag: extent}`` (None when the
    thread count is not known)."""
    threads = 1
    for d in "xyz":
        threads *= extents.get(f"threadIdx.{d}", 1)
    if not any(t.startswith("threadIdx.") for t in extents) or threads <= 0:
        return None
    cluster = [(f"cb{d}", extents[f"clusterCtaIdx.{d}"]) for d in "xyz"
               if f"clusterCtaIdx.{d}" in extents]
    if math.prod(e for _, e in cluster) == 1:
        cluster = []
    cta = cluster or [(f"b{d}", extents[f"blockIdx.{d}"]) for d in "xyz"
                      if f"blockIdx.{d}" in extents]
    axes = [("laneid", Rng(WARP)), ("warpid", Rng(threads // WARP))]
    if len(cta) <= 1:
        axes.append(("cta_id", Rng(math.prod(e for _, e in cta))))
    else:
        axes += [(name, Rng(e)) for name, e in cta]
    return _Tracked(axes, cluster)


class _Tracked(ActiveSet):
    """An active set that remembers the kernel's cluster, ``[(cbx, extent), ...]`` (empty
    without one): a grid-index filter says nothing about it, ``cta_id_in_pair`` counts in it."""

    def __init__(self, axes, cluster):
        super().__init__(axes)
        self.cluster = list(cluster)

    def with_axis(self, name, rng):
        return _Tracked(ActiveSet.with_axis(self, name, rng).axes, self.cluster)


def _cta_axis(scope, dim):
    if dim > 2:
        return None
    if scope == KERNEL_CTA:
        return "b" + "xyz"[dim]
    if scope == CLUSTER_CTA:
        return "cb" + "xyz"[dim]
    return None


class Target:
    """A scope-id variable: its scope pair, its dimension ``dim`` of ``ndim``."""

    __slots__ = ("dim", "ndim", "scope")

    def __init__(self, scope, dim, ndim):
        self.scope, self.dim, self.ndim = scope, dim, ndim

    def key(self):
        return (self.scope, self.dim, self.ndim)


def _push_range(A, t: Target, lo, hi, cluster_ctas):
    if t.scope == CTA_PAIR:
        if hi != lo + 1 or lo not in (0, 1):
            return None
        return _push_pair(A, lo, cluster_ctas)
    if t.scope == KERNEL_CTA and cluster_ctas:
        return None  # the grid index says nothing about the CTA in its cluster
    if t.ndim != 1:
        axis = _cta_axis(t.scope, t.dim)
        return None if axis is None else _narrow_axis(A, axis, lo, hi)
    return filter_range(A, t.scope, lo, hi)


def _push_modulo(A, t: Target, m, residue, cluster_ctas):
    if t.scope == CTA_PAIR or (t.scope == KERNEL_CTA and cluster_ctas):
        return None
    axis = _cta_axis(t.scope, t.dim) if t.ndim != 1 else (
        "cta_id" if t.scope in (KERNEL_CTA, CLUSTER_CTA) else None)
    r = None if axis is None else A.get(axis)
    new = None if r is None else modulo(r, m, residue)
    return None if new is None else A.with_axis(axis, new)


def _push_pair(A, value, cluster_ctas):
    """``cta_id_in_pair == value``: the CTA's index in its cluster has parity ``value``."""
    if not cluster_ctas:
        return None
    if len(cluster_ctas) <= 1:
        r = A.get("cta_id")
        new = None if r is None else modulo(r, 2, value)
        return None if new is None else A.with_axis("cta_id", new)
    parity_axis, coeff, fixed = None, 1, 0
    for name, full in cluster_ctas:
        r = A.get(name)
        if r is None or not _int_ranges(r):
            return None
        fixed += coeff * r.offset
        if r.extent > 1 and (coeff * r.stride) % 2:
            if parity_axis is not None:
                return None
            parity_axis = name
        coeff *= full
    residue = (value - fixed) % 2
    if parity_axis is None:
        return A if residue == 0 else None
    new = modulo(A.get(parity_axis), 2, residue)
    return None if new is None else A.with_axis(parity_axis, new)


def _strip_cast(e):
    while isinstance(e, Cast):
        e = e.value
    return e


def _conjuncts(e, out):
    e = _strip_cast(e)
    if isinstance(e, (And, BitwiseAnd)):
        _conjuncts(e.a, out)
        _conjuncts(e.b, out)
    else:
        out.append(e)
    return out


def _is_elect(e):
    return isinstance(e, Call) and getattr(e.op, "name", "") == "tirx.cuda.elect_sync"


def _contains_elect(e):
    if _is_elect(e):
        return True
    return any(_contains_elect(c) for c in _children(e))


def _children(e):
    if isinstance(e, Call):
        return [a for a in e.args if hasattr(a, "dtype")]
    return [getattr(e, f) for f in ("a", "b", "value") if hasattr(e, f)
            and hasattr(getattr(e, f), "dtype")]


_CMP = (EQ, LT, LE, GT, GE)
_REFLECT = {EQ: EQ, LT: GT, LE: GE, GT: LT, GE: LE}


def _op_range(kind, c):
    return {EQ: (c, c + 1), LT: (-_INF, c), LE: (-_INF, c + 1), GT: (c + 1, _INF),
            GE: (c, _INF)}[kind]


def _linear(e, var):
    """``(coeff, const)`` with ``e == coeff * var + const``, or None."""
    e = _strip_cast(e)
    if isinstance(e, IntImm):
        return 0, e.value
    if isinstance(e, Var):
        return (1, 0) if e is var else None
    if isinstance(e, (Add, Sub)):
        a, b = _linear(e.a, var), _linear(e.b, var)
        if a is None or b is None:
            return None
        s = 1 if isinstance(e, Add) else -1
        return a[0] + s * b[0], a[1] + s * b[1]
    if isinstance(e, Mul):
        a, b = _linear(e.a, var), _linear(e.b, var)
        if a is None or b is None or (a[0] and b[0]):
            return None
        return a[0] * b[1] + b[0] * a[1], a[1] * b[1]
    return None


class Narrower:
    """Narrows active sets by ``if`` conditions; ``targets`` maps ``id(var)`` of each scope id
    in scope to its :class:`Target`, ``lane_var`` is the 1-D ``lane_id`` variable (or None)."""

    def __init__(self):
        self.targets = {}
        self.vars = []
        self.lane_var = None

    def define(self, scope, def_ids):
        for i, v in enumerate(def_ids):
            self.targets[id(v)] = Target(scope, i, len(def_ids))
            self.vars.append(v)
        if scope == WARP_THREAD and len(def_ids) == 1:
            self.lane_var = def_ids[0]

    def _target(self, e):
        e = _strip_cast(e)
        return self.targets.get(id(e)) if isinstance(e, Var) else None

    # --- the canonical form: `scope id <cmp> constant` atoms and elect_sync ---------------
    def _atom(self, term):
        if not isinstance(term, _CMP):
            return None
        kind, lhs, rhs = type(term), term.a, term.b
        if not (isinstance(lhs, Var) and isinstance(rhs, IntImm)):
            lhs, rhs, kind = rhs, lhs, _REFLECT[kind]
        if not (isinstance(lhs, Var) and isinstance(rhs, IntImm)):
            return None
        t = self.targets.get(id(lhs))
        return None if t is None else (t, *_op_range(kind, rhs.value))

    def _selector(self, A, cond):
        if self.lane_var is None:
            return None
        sel = Call(self.lane_var.dtype, "tirx.selector", [self.lane_var, cond])
        return A.with_axis("laneid", Rng(1, sel, 1))

    def narrow(self, A, cond):
        """The active set of the then-branch of ``if cond`` (``A`` when nothing applies)."""
        if A is None:
            return None
        cluster_ctas = A.cluster
        terms = _conjuncts(cond, [])
        atoms, elects = [], []
        for term in terms:
            if _is_elect(term):
                elects.append(term)
                continue
            atom = self._atom(term)
            if atom is None:
                break
            atoms.append(atom)
        else:
            if atoms or elects:
                A = self._push_groups(A, [(a[0], a[1], a[2], None) for a in atoms], cluster_ctas)
                for call in elects:
                    A = self._selector(A, call) or A
                return A
        if _contains_elect(cond):
            return self._selector(A, cond) or A
        return self._fallback(A, cond, cluster_ctas)

    def _push_groups(self, A, ranges, cluster_ctas):
        groups = {}
        for t, lo, hi, _ in ranges:
            g = groups.setdefault(t.key(), [t, -_INF, _INF])
            g[1], g[2] = max(g[1], lo), min(g[2], hi)
        pending = list(groups.values())
        progress = True
        while progress:
            progress = False
            for g in list(pending):
                if g[1] >= g[2]:
                    pending.remove(g)
                    continue
                new = _push_range(A, g[0], g[1], g[2], cluster_ctas)
                if new is not None:
                    A = new
                    pending.remove(g)
                    progress = True
        return A

    # --- other forms: linear comparisons, modulo equalities -------------------------------
    def _linear_range(self, term):
        if not isinstance(term, _CMP):
            return None
        diff_a, diff_b = term.a, term.b
        for v in self.vars:
            la, lb = _linear(diff_a, v), _linear(diff_b, v)
            if la is None or lb is None:
                continue
            c, base = la[0] - lb[0], la[1] - lb[1]  # c * v + base <op> 0
            if c not in (1, -1):
                continue
            kind = type(term) if c == 1 else _REFLECT[type(term)]
            lo, hi = _op_range(kind, -base * c)
            return self.targets[id(v)], lo, hi
        return None

    def _modulo_eq(self, A, term, cluster_ctas):
        if not isinstance(term, EQ):
            return None
        for lhs, rhs in ((term.a, term.b), (term.b, term.a)):
            lhs = _strip_cast(lhs)
            if isinstance(lhs, (Mod, FloorMod)) and isinstance(lhs.b, IntImm) \
                    and isinstance(rhs, IntImm) and lhs.b.value > 0:
                t = self._target(lhs.a)
                if t is not None:
                    return _push_modulo(A, t, lhs.b.value, rhs.value, cluster_ctas)
        return None

    def _fallback(self, A, cond, cluster_ctas):
        terms = _conjuncts(cond, [])
        ranges, rest = [], []
        for term in terms:
            r = self._linear_range(term)
            if r is not None:
                ranges.append((*r, None))
            else:
                rest.append(term)
        A = self._push_groups(A, ranges, cluster_ctas)
        for term in rest:
            if isinstance(term, NE):
                continue
            A = self._modulo_eq(A, term, cluster_ctas) or A
        return A


def split(A: ActiveSet, kind: str):
    """``(inter, intra)`` of ``A`` at scope ``kind``, or None when the warps do not factor
    into warpgroups."""
    lane, warp = A.get("laneid"), A.get("warpid")

    def cta_axes():
        if A.get("cta_id") is not None:
            return {"cta_id": A.get("cta_id")}
        return {k: r for k, r in A.axes if k not in ("laneid", "warpid")}

    if kind == "thread":
        return {"laneid": lane, "warpid": warp, **cta_axes()}, {}
    if kind == "warp":
        return {"warpid": warp, **cta_axes()}, {"laneid": lane}
    if kind == "cta":
        return cta_axes(), {"laneid": lane, "warpid": warp}
    if kind == "cluster":
        return {}, {"laneid": lane, "warpid": warp, **cta_axes()}
    if kind == "warpgroup":
        factored = _factor_warps(warp)
        if factored is None:
            return None
        wid, wgid = factored
        return {"wgid": wgid, **cta_axes()}, {"laneid": lane, "wid_in_wg": wid}
    return None


def encode(side: dict) -> dict:
    """``{axis: [extent, offset(, stride)]}`` with int64 constants (a selector offset as is)."""

    def c(v):
        return IntImm("int64", v) if isinstance(v, int) else v

    return {k: [c(r.extent), c(r.offset)] + ([] if r.stride == 1 else [c(r.stride)])
            for k, r in side.items()}
