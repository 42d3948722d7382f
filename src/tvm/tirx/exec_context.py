"""Execution contexts of TIRx kernels: which threads run a statement, and how they group.

A kernel's threads are addressed by three hardware axes: ``laneid`` (0..31 in a warp),
``warpid`` (the warp in its CTA) and ``cta_id`` (the CTA in its cluster). The *active set*
``A`` is the box of threads that reach a statement: one :class:`AxisRange` per axis, each an
arithmetic progression ``offset, offset + stride, ...`` of ``extent`` values. Two things
change it while walking a kernel:

* a **filter** (``if warp_id < 8:``, ``if lane_id == 0:``) narrows one axis
  (:func:`filter_narrow`, :func:`filter_modulo`); it only ever shrinks ``A``;
* a **scope switch** (running a statement at warp, warpgroup, CTA... granularity) does not
  change ``A`` but splits its axes (:func:`scope_switch`) into ``inter`` (which scope
  instance: the axes that tell the instances apart) and ``intra`` (the threads inside one
  instance). A warpgroup is 4 consecutive warps, so at warpgroup scope ``warpid`` is factored
  into ``wgid`` (inter) and ``wid_in_wg`` (intra), which needs the warp range to be whole
  warpgroups or to fit inside one.

Filters name the index they test through a :class:`LaneBinding`: a plain axis
(``LANE_FLAT``), the warpgroup index (``LANE_WG_OUTER``), the warp in its warpgroup
(``LANE_W_INNER``), or a flat thread index in the CTA (``LANE_CTA_THREAD``) or in the
warpgroup (``LANE_WG_THREAD``). A selection that is not a box raises
:class:`ExecContextError`.

:class:`ExecContext` bundles ``A``, the current scope and its split; it is immutable (each
step returns a new context), so a walker restores the parent's by keeping it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

__all__ = [
    "CLUSTER",
    "CTA",
    "LANE_CTA_THREAD",
    "LANE_FLAT",
    "LANE_WG_OUTER",
    "LANE_WG_THREAD",
    "LANE_W_INNER",
    "THREAD",
    "WARP",
    "WARPGROUP",
    "WARP_SIZE",
    "WG_SIZE",
    "ActiveSet",
    "AxisRange",
    "ExecContext",
    "ExecContextError",
    "LaneBinding",
    "Split",
    "filter_modulo",
    "filter_narrow",
    "initial_A",
    "scope_switch",
]

THREAD = "thread"
WARP = "warp"
WARPGROUP = "warpgroup"
CTA = "cta"
CLUSTER = "cluster"

LANE_FLAT = "flat"
LANE_WG_OUTER = "wg_outer"
LANE_W_INNER = "w_inner"
LANE_CTA_THREAD = "cta_thread"
LANE_WG_THREAD = "wg_thread"

#: Threads per warp and warps per warpgroup.
WARP_SIZE = 32
WG_SIZE = 4

_AXES = ("laneid", "warpid", "cta_id")


class ExecContextError(ValueError):
    """A filter or scope switch that does not leave a box of threads."""


@dataclass(frozen=True)
class AxisRange:
    """The values ``offset + k * stride`` for ``k`` in ``range(extent)``."""

    extent: int
    offset: int
    stride: int = 1

    def values(self) -> list:
        """The values of the range, ``[offset + k * stride for k in range(extent)]``."""
        return [self.offset + k * self.stride for k in range(self.extent)]

    @property
    def end(self) -> int:
        """One past the last value."""
        return self.offset + (self.extent - 1) * self.stride + 1


@dataclass(frozen=True)
class ActiveSet:
    """The active threads: one range per axis (``laneid``, ``warpid``, ``cta_id``)."""

    laneid: AxisRange
    warpid: AxisRange
    cta_id: AxisRange

    @property
    def size(self) -> int:
        """The number of active threads."""
        return self.laneid.extent * self.warpid.extent * self.cta_id.extent


@dataclass(frozen=True)
class LaneBinding:
    """How a filtered index maps onto the axes: ``axis`` (for ``LANE_FLAT``) and ``kind``;
    ``declared_extent`` is the extent the index was declared with."""

    axis: str
    kind: str = LANE_FLAT
    declared_extent: int | None = None


@dataclass(frozen=True)
class Split:
    """The axes of the active set split at a scope: ``inter`` tell the scope instances
    apart, ``intra`` enumerate the threads of one instance."""

    inter: dict
    intra: dict


def initial_A(warp_ext: int, cta_ext: int = 1) -> ActiveSet:
    """The active set at kernel entry: every lane of ``warp_ext`` warps in ``cta_ext``
    CTAs."""
    return ActiveSet(AxisRange(WARP_SIZE, 0), AxisRange(warp_ext, 0), AxisRange(cta_ext, 0))


def _progression(values, stride_hint: int, what: str) -> AxisRange:
    if not values:
        raise ExecContextError(f"{what} selects an empty range of threads")
    stride = values[1] - values[0] if len(values) > 1 else stride_hint
    if any(b - a != stride for a, b in itertools.pairwise(values)):
        raise ExecContextError(f"{what} selects a non-rectangular set of threads")
    return AxisRange(len(values), values[0], stride)


def _narrow_axis(rng: AxisRange, lo: int, hi: int, what: str) -> AxisRange:
    kept = [v for v in rng.values() if lo <= v < hi]
    return _progression(kept, rng.stride, what)


def filter_modulo(A: ActiveSet, axis: str, modulus: int, residue: int) -> ActiveSet:
    """Keep the threads whose ``axis`` value is ``residue`` modulo ``modulus``."""
    rng = getattr(A, axis)
    kept = [v for v in rng.values() if v % modulus == residue]
    what = f"filter {axis} % {modulus} == {residue}"
    new = _progression(kept, math.lcm(rng.stride, modulus), what)
    return replace(A, **{axis: new})


def _thread_range(A: ActiveSet, base_warp: int, lo: int, hi: int, what: str) -> ActiveSet:
    """Narrow to flat thread indices ``[lo, hi)`` counted from warp ``base_warp``."""
    if lo % WARP_SIZE == 0 and hi % WARP_SIZE == 0:
        warps = _narrow_axis(A.warpid, base_warp + lo // WARP_SIZE,
                             base_warp + hi // WARP_SIZE, what)
        return replace(A, warpid=warps)
    if lo // WARP_SIZE != (hi - 1) // WARP_SIZE:
        raise ExecContextError(
            f"{what}: threads [{lo}, {hi}) cover part of several warps, a non-rectangular set"
        )
    warp = base_warp + lo // WARP_SIZE
    lanes_hi = hi - (lo // WARP_SIZE) * WARP_SIZE
    return replace(A, warpid=_narrow_axis(A.warpid, warp, warp + 1, what),
                   laneid=_narrow_axis(A.laneid, lo % WARP_SIZE, lanes_hi, what))


def _single_warpgroup(A: ActiveSet):
    """The warpgroup holding every active warp, or None if they span several."""
    first, last = A.warpid.offset // WG_SIZE, (A.warpid.end - 1) // WG_SIZE
    return first if first == last else None


def filter_narrow(A: ActiveSet, binding: LaneBinding, lo: int, hi: int) -> ActiveSet:
    """Keep the threads whose index (as bound by ``binding``) lies in ``[lo, hi)``."""
    what = f"filter {binding.axis}[{lo}:{hi}] ({binding.kind})"
    if hi <= lo:
        raise ExecContextError(f"{what}: the range is empty or inverted")
    kind = binding.kind
    if kind == LANE_FLAT:
        if binding.axis not in _AXES:
            raise ExecContextError(f"{what}: unknown axis {binding.axis!r}; axes are {_AXES}")
        return replace(A, **{binding.axis: _narrow_axis(getattr(A, binding.axis), lo, hi,
                                                       what)})
    if kind == LANE_WG_OUTER:
        if A.warpid.offset % WG_SIZE:
            raise ExecContextError(
                f"{what}: the active warps start at warp {A.warpid.offset}, not aligned to "
                f"WG_SIZE ({WG_SIZE})"
            )
        return replace(A, warpid=_narrow_axis(A.warpid, lo * WG_SIZE, hi * WG_SIZE, what))
    if kind == LANE_W_INNER:
        wg = _single_warpgroup(A)
        if wg is None:
            raise ExecContextError(
                f"{what}: the active warp range {A.warpid} spans multiple warpgroups, so the warp "
                "index inside a warpgroup is ambiguous"
            )
        base = wg * WG_SIZE
        return replace(A, warpid=_narrow_axis(A.warpid, base + lo, base + hi, what))
    if kind == LANE_CTA_THREAD:
        return _thread_range(A, 0, lo, hi, what)
    if kind == LANE_WG_THREAD:
        wg = _single_warpgroup(A)
        if wg is None:
            if lo == 0 and hi >= WG_SIZE * WARP_SIZE:
                return A  # every thread of every warpgroup
            raise ExecContextError(
                f"{what}: the active warps {A.warpid} span multiple warpgroups; a partial "
                "thread range would select a different box in each"
            )
        return _thread_range(A, wg * WG_SIZE, lo, hi, what)
    raise ExecContextError(f"{what}: unknown lane binding kind {kind!r}")


def _factor_warps(warps: AxisRange):
    """``(wgid, wid_in_wg)`` of a warp range, or ``ExecContextError``."""
    if warps.stride != 1:
        raise ExecContextError(f"warps {warps} are strided: they do not form warpgroups")
    inner = warps.offset % WG_SIZE
    if inner == 0 and warps.extent % WG_SIZE == 0:  # whole warpgroups
        return (AxisRange(warps.extent // WG_SIZE, warps.offset // WG_SIZE),
                AxisRange(WG_SIZE, 0))
    if inner + warps.extent <= WG_SIZE:  # inside one warpgroup
        return AxisRange(1, warps.offset // WG_SIZE), AxisRange(warps.extent, inner)
    raise ExecContextError(
        f"warps [{warps.offset}, {warps.end}) crosses warpgroup boundary: they are neither "
        "whole warpgroups nor inside one"
    )


def scope_switch(A: ActiveSet, kappa: str) -> Split:
    """Split the axes of ``A`` at scope ``kappa`` (thread, warp, warpgroup, cta, cluster)."""
    lane, warp, cta = A.laneid, A.warpid, A.cta_id
    if kappa == THREAD:
        return Split({"laneid": lane, "warpid": warp, "cta_id": cta}, {})
    if kappa == WARP:
        return Split({"warpid": warp, "cta_id": cta}, {"laneid": lane})
    if kappa == WARPGROUP:
        wgid, wid = _factor_warps(warp)
        return Split({"wgid": wgid, "cta_id": cta}, {"laneid": lane, "wid_in_wg": wid})
    if kappa == CTA:
        return Split({"cta_id": cta}, {"laneid": lane, "warpid": warp})
    if kappa == CLUSTER:
        return Split({}, {"laneid": lane, "warpid": warp, "cta_id": cta})
    raise ExecContextError(
        f"Unknown scope {kappa!r}: one of {THREAD}, {WARP}, {WARPGROUP}, {CTA}, {CLUSTER}"
    )


@dataclass(frozen=True)
class ExecContext:
    """The active set ``A`` at the current scope ``scope_kind`` and its split."""

    A: ActiveSet
    scope_kind: str
    split: Split

    @staticmethod
    def at_kernel_entry(warp_ext: int, cta_ext: int = 1) -> ExecContext:
        """Every thread of the kernel, at cluster scope (the whole launch)."""
        A = initial_A(warp_ext, cta_ext)
        return ExecContext(A, CLUSTER, scope_switch(A, CLUSTER))

    @property
    def inter(self) -> dict:
        """The axes that tell the instances of the current scope apart (``split.inter``)."""
        return self.split.inter

    @property
    def intra(self) -> dict:
        """The axes that enumerate the threads of one scope instance (``split.intra``)."""
        return self.split.intra

    def with_scope_switch(self, kappa: str) -> ExecContext:
        """The context after entering scope ``kappa``."""
        return ExecContext(self.A, kappa, scope_switch(self.A, kappa))

    def with_filter(self, binding: LaneBinding, lo: int, hi: int) -> ExecContext:
        """The context inside a filter ``lo <= index < hi`` (same scope, split again)."""
        A = filter_narrow(self.A, binding, lo, hi)
        return ExecContext(A, self.scope_kind, scope_switch(A, self.scope_kind))
