"""The layout algebra: canonical form, grouping, tiling, direct sums, recognition, slicing.

Algorithms work on ``(extent, stride, axis)`` triples (see :mod:`._core`). Recognition
(``is_tile_inner`` and friends) builds a candidate from the grouped iters and then checks it
by rebuilding the composite and comparing meanings: element by element when every number is
constant, by canonical structure otherwise.
"""

from __future__ import annotations

import itertools

from ...error import InternalError
from ...target import Target
from . import _core as C
from .axis import SCOPE_RANK, Axis, make_scope
from .layout import ComposeLayout, Iter, LayoutArgumentError, TileLayout

_M = None


def m_axis():
    """The memory axis ``m``, looked up once and cached.

    Returns
    -------
    Axis
        The interned ``Axis`` named ``"m"``.
    """
    global _M
    if _M is None:
        _M = Axis.get("m")
    return _M


# --- conversions ----------------------------------------------------------------------------
def triples(iters):
    """The ``(extent, stride, axis)`` triples of ``iters``, numbers normalised.

    Parameters
    ----------
    iters : sequence of Iter
        Shard or replica iters of a TileLayout.

    Returns
    -------
    list of tuple
        One ``(extent, stride, axis)`` per iter; constant extents and strides become Python ints.
    """
    return [(C.num(it.extent), C.num(it.stride), it.axis) for it in iters]


def offsets(layout):
    """The offset of ``layout`` as a dict with normalised values.

    Parameters
    ----------
    layout : TileLayout
        The layout whose ``offset`` map is read.

    Returns
    -------
    dict
        ``{Axis: value}``; constant values become Python ints.
    """
    return {axis: C.num(v) for axis, v in layout.offset.items()}


def make(shard, replica=(), offset=None) -> TileLayout:
    """Build a TileLayout from triples.

    Parameters
    ----------
    shard : sequence of tuple
        ``(extent, stride, axis)`` per shard iter, outermost first.
    replica : sequence of tuple, optional
        ``(extent, stride, axis)`` per replica iter.
    offset : dict, optional
        ``{Axis: value}`` added to every coordinate.

    Returns
    -------
    TileLayout
        The layout, not canonicalized.
    """
    shard_iters = [Iter(e, s, a) for e, s, a in shard]
    replica_iters = [Iter(e, s, a) for e, s, a in replica]
    return TileLayout.from_iters(shard_iters, replica_iters, dict(offset or {}))


def _require_tile(layout, what):
    if not isinstance(layout, TileLayout):
        raise LayoutArgumentError(f"{what} needs a TileLayout, got {type(layout).__name__}")


# --- size, span, scope ----------------------------------------------------------------------
def size_of(layout, axis=None):
    """The number of logical elements of ``layout`` (product of shard extents).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout; a ComposeLayout is measured by its tile layout.
    axis : Axis, optional
        Count only the shard iters on this axis; all of them when None.

    Returns
    -------
    int or PrimExpr
        The product, a Python int when every extent is constant.
    """
    if isinstance(layout, ComposeLayout):
        return size_of(layout.tile_layout, axis)
    return C.product(e for e, _s, a in triples(layout.shard) if axis is None or a is axis)


def span_of(layout, axis):
    """``1 + sum((extent - 1) * stride) + offset`` over shard and replica iters on ``axis``
    (the largest coordinate plus one when strides are non-negative)."""
    if isinstance(layout, ComposeLayout):
        return span_of(layout.tile_layout, axis)
    out = 1
    for e, s, a in triples(layout.shard) + triples(layout.replica):
        if a is axis:
            out = C.add(out, C.mul(C.sub(e, 1), s))
    return C.add(out, offsets(layout).get(axis, 0))


def layout_size(layout, axis_name=None):
    """``Layout.size``: the product of the shard extents, as a PrimExpr.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout to measure.
    axis_name : str, optional
        Count only the shard iters on the axis of this name; all of them when None.

    Returns
    -------
    PrimExpr
        The size.
    """
    axis = None if axis_name is None else Axis.get(axis_name)
    return C.expr(size_of(layout, axis))


def layout_span(layout, axis_name=None):
    """``Layout.span``: the extent the layout covers on one axis, as a PrimExpr.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout to measure.
    axis_name : str, optional
        The axis; the memory axis ``m`` when None.

    Returns
    -------
    PrimExpr
        ``1 + sum((extent - 1) * stride) + offset`` over the iters on that axis (see
        :func:`span_of`).
    """
    axis = m_axis() if axis_name is None else Axis.get(axis_name)
    return C.expr(span_of(layout, axis))


_RANK_NAME = {rank: name for name, rank in SCOPE_RANK.items()}


def _thread_intervals(layout):
    axes = [it.axis for it in (*layout.shard, *layout.replica)] + list(layout.offset)
    return sorted({a.scope_interval() for a in axes if a.is_thread()})


def layout_scope(layout):
    """(innermost, outermost) scope of a TileLayout's thread axes; None if none or broken."""
    intervals = _thread_intervals(layout)
    if not intervals:
        return None
    lo, hi = intervals[0]
    for a, b in intervals[1:]:
        if a > hi:
            return None
        hi = max(hi, b)
    return make_scope(_RANK_NAME[lo]), make_scope(_RANK_NAME[hi])


def verify_well_formed(layout) -> bool:
    """Check that ``layout`` is well formed, raising when it is not.

    Every constant iter extent must be positive, and the scopes of the thread axes used
    (in shard, replica and offset) must chain up without a gap between their scopes.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout to check; a ComposeLayout is checked through its tile layout.

    Returns
    -------
    bool
        Always True (failures raise).

    Raises
    ------
    ValueError
        When an extent is not positive or the thread-axis scopes do not chain up.
    """
    if isinstance(layout, ComposeLayout):
        return verify_well_formed(layout.tile_layout)
    for it in (*layout.shard, *layout.replica):
        e = C.num(it.extent)
        if C.is_const(e) and e <= 0:
            raise ValueError(f"layout {layout}: iter extent must be positive, got {e}")
    intervals = _thread_intervals(layout)
    if intervals:
        hi = intervals[0][1]
        for a, b in intervals[1:]:
            if a > hi:
                names = sorted({it.axis.name for it in (*layout.shard, *layout.replica)
                                if it.axis.is_thread()} | {
                    ax.name for ax in layout.offset if ax.is_thread()})
                raise ValueError(
                    f"layout {layout}: thread axes {names} do not chain up: nothing covers "
                    f"the scopes between {_RANK_NAME[hi]} and {_RANK_NAME[a]}"
                )
            hi = max(hi, b)
    return True


# --- canonical form -------------------------------------------------------------------------
def _fuse_adjacent(iters):
    out = []
    for e, s, a in iters:
        if out:
            pe, ps, pa = out[-1]
            if pa is a and C.equal(ps, C.mul(e, s)):
                out[-1] = (C.mul(pe, e), s, a)
                continue
        out.append((e, s, a))
    return out


def _in_cuda_target():
    target = Target.current()
    return target is not None and getattr(getattr(target, "kind", None), "name", "") == "cuda"


# (lower axis, upper axis, fused axis, factor of the upper axis's stride)
_THREAD_FUSIONS = (
    ("laneid", "wid_in_wg", "tid_in_wg", 32),
    ("laneid", "warpid", "tx", 32),
    ("tid_in_wg", "wgid", "tx", 128),
)


def _fuse_thread_axes(shard, replica, offset):
    for low, high, fused, factor in _THREAD_FUSIONS:
        # Offsets move with the iters but do not decide whether to fuse (as in 0.27).
        names = {a.name for _e, _s, a in shard + replica}
        if low not in names or high not in names:
            continue
        target = Axis.get(fused)

        def remap(e, s, a, low=low, high=high, factor=factor, target=target):
            if a.name == low:
                return (e, s, target)
            if a.name == high:
                return (e, C.mul(s, factor), target)
            return (e, s, a)

        shard = [remap(*t) for t in shard]
        replica = [remap(*t) for t in replica]
        new_offset = {}
        for a, v in offset.items():
            if a.name in (low, high):
                v = C.mul(v, factor) if a.name == high else v
                a = target
            new_offset[a] = C.add(new_offset.get(a, 0), v)
        offset = new_offset
    return shard, replica, offset


def _replica_key(t):
    e, s, a = t
    return (a.name, -s if C.is_const(s) else 0, str(s), str(e))


def canonicalize(layout):
    """The canonical form of ``layout``.

    Unit-extent iters and zero offsets are dropped (a layout with no shard iter left keeps
    one ``1:1`` iter on its first axis), adjacent contiguous shard iters are fused and the
    replica iters are sorted. Under a CUDA target hierarchical thread axes are fused too
    (``warpid``/``laneid`` into ``tx`` and so on).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout; a ComposeLayout keeps its swizzle and canonicalizes its tile layout.

    Returns
    -------
    TileLayout or ComposeLayout
        A new layout with the same meaning.
    """
    if isinstance(layout, ComposeLayout):
        return layout.with_tile(canonicalize(layout.tile_layout))
    shard, replica, offset = triples(layout.shard), triples(layout.replica), offsets(layout)
    first_axis = shard[0][2] if shard else None
    shard = [t for t in shard if not C.equal(t[0], 1)]
    replica = [t for t in replica if not C.equal(t[0], 1)]
    offset = {a: v for a, v in offset.items() if not C.equal(v, 0)}
    if first_axis is not None and not shard:
        shard = [(1, 1, first_axis)]
    if _in_cuda_target():
        shard, replica, offset = _fuse_thread_axes(shard, replica, offset)
        offset = {a: v for a, v in offset.items() if not C.equal(v, 0)}
    shard = _fuse_adjacent(shard)
    replica = sorted(replica, key=_replica_key)  # a set of offsets: order only, no fusing
    return make(shard, replica, offset)


# --- grouping -------------------------------------------------------------------------------
def _before(a, b) -> bool:
    """Whether boundary ``a`` comes no later than ``b``: provably smaller, or a divisor of it
    (extents are positive, so a divisor is never larger)."""
    return C.less(a, b) or C.divides(a, b)


def _insert_boundary(values, v):
    """Insert ``v`` into the sorted distinct list ``values``; return its index."""
    for i, w in enumerate(values):
        if C.equal(v, w):
            return i
        if _before(v, w):
            values.insert(i, v)
            return i
        if not _before(w, v):
            raise InternalError(
                f"layout group: cannot prove the order or equality of cumulative boundaries "
                f"{v} and {w}"
            )
    values.append(v)
    return len(values) - 1


def _index_of(values, v):
    for i, w in enumerate(values):
        if C.equal(v, w):
            return i
    raise InternalError(f"layout group: boundary {v} is missing from {values}")


def group_many(layout, shapes):
    """Split ``layout``'s shard iters by the common refinement of ``shapes``."""
    _require_tile(layout, "group")
    iters = triples(layout.shard)
    total = C.product(e for e, _s, _a in iters)
    seqs = [[C.num(e) for e in shape] for shape in shapes]
    for shape in seqs:
        if not C.equal(C.product(shape), total):
            raise InternalError(
                f"layout group: shape {shape} has {C.product(shape)} elements but layout "
                f"{layout} has {total}"
            )
    seqs_all = [*seqs, [e for e, _s, _a in iters]]
    values = [1]
    for seq in seqs_all:
        p = 1
        for e in seq:
            p = C.mul(p, e)
            _insert_boundary(values, p)
    for lo, hi in itertools.pairwise(values):
        if not C.divides(lo, hi):
            if C.is_const(lo) and C.is_const(hi):
                raise InternalError(
                    f"layout group: incompatible cumulative boundaries {lo} and {hi} for "
                    f"shapes {seqs} of layout {layout}"
                )
            raise InternalError(
                f"layout group: cannot prove cumulative boundary divisibility of {hi} by {lo}"
            )
    nvals = len(values)

    def positions(seq):
        """(index of cumulative boundary, is unit) for each dim of seq."""
        out, p = [], 1
        for e in seq:
            p = C.mul(p, e)
            out.append((_index_of(values, p), C.equal(e, 1)))
        return out

    pos_all = [positions(seq) for seq in seqs_all]
    units = [0] * nvals  # unit pieces at each boundary: as many as some shape needs there
    for pos in pos_all[:-1]:
        counts = [0] * nvals
        for j, is_unit in pos:
            if is_unit:
                counts[j] += 1
        units = [max(u, c) for u, c in zip(units, counts)]

    # The layout's own iters: index range and (for unit iters) their strides per boundary.
    own = []
    start = 0
    own_units = [[] for _ in range(nvals)]
    for (e, s, a), (j, is_unit) in zip(iters, pos_all[-1]):
        if is_unit:
            own_units[j].append((e, s, a))
        else:
            own.append((start, j, s, a))
        start = j

    def inside(j):
        for js, je, s, a in own:
            if js < j < je:
                return s, a, je
        return None

    def ending(j):
        for js, je, s, a in own:
            if js < j == je:
                return (1, s, a)
        return None

    def starting(j):
        for js, je, s, a in own:
            if js == j < je:
                return (1, C.mul(s, C.div(values[je], values[j])), a)
        return None

    def covering(j):
        """The iter holding the piece between boundaries j - 1 and j."""
        return next(t for t in own if t[0] < j <= t[1])

    pieces = []
    nonunit_end = [0] * nvals
    for j in range(nvals):
        if j > 0:
            _js, je, s, a = covering(j)
            extent = C.div(values[j], values[j - 1])
            pieces.append((extent, C.mul(s, C.div(values[je], values[j])), a))
        nonunit_end[j] = len(pieces)
        host = inside(j)
        if host is not None:
            s, a, je = host
            fresh = (1, C.mul(s, C.div(values[je], values[j])), a)
        else:
            fresh = ending(j) or starting(j) or (1, 1, m_axis())
        # The layout's own unit iters here are reused when they sit on the same axis as
        # the iter they border. A new unit piece takes the stride of the iter it splits, of
        # the iter ending here, or (at the start of an iter) one step over that whole iter;
        # at the very end it repeats the piece before it.
        mine = list(own_units[j])
        if ending(j) or starting(j):
            mine = [t for t in mine if t[2] is fresh[2]]
        for k in range(units[j]):
            if k < len(mine):
                pieces.append(mine[k])
            elif j == nvals - 1 and pieces:
                pieces.append((1,) + tuple(pieces[-1][1:]))
            else:
                pieces.append(fresh)

    all_seps = []
    for pos in pos_all[:-1]:
        seps = [0]
        seen_units = [0] * nvals
        for k, (j, is_unit) in enumerate(pos):
            if k == len(pos) - 1:
                seps.append(len(pieces))
            elif is_unit:
                seps.append(nonunit_end[j] + seen_units[j] + 1)
                seen_units[j] += 1
            else:
                seps.append(nonunit_end[j])
        if not pos:
            seps.append(len(pieces))
        all_seps.append(seps)
    grouped = make(pieces, triples(layout.replica), offsets(layout))
    return grouped, all_seps


def grouped_iters(layout, shape):
    """Split the shard iters of ``layout`` into one group per dimension of ``shape``.

    Iters are split where needed so each group's extents multiply to that dimension.

    Parameters
    ----------
    layout : TileLayout
        The layout to group.
    shape : sequence of int or PrimExpr
        The logical shape; its product must equal the layout's size.

    Returns
    -------
    list of list of tuple
        The ``(extent, stride, axis)`` triples of dimension ``d`` at index ``d``.

    Raises
    ------
    InternalError or ValueError
        When the shard iters can not be split along ``shape``.
    """
    grouped, seps = group_many(layout, [shape])
    its = triples(grouped.shard)
    return [its[seps[0][d]:seps[0][d + 1]] for d in range(len(shape))]


# --- tiling ---------------------------------------------------------------------------------
def resize_swizzle(layout, n):
    """A ComposeLayout's tile layout, stretched to ``n`` elements when it is a bare swizzle."""
    tile = layout.tile_layout
    if not C.equal(size_of(tile), n) and tile.is_trivial():
        return make([(n, 1, m_axis())])
    return tile


def _scaled(iters, spans):
    return [(e, C.mul(s, spans.get(a, 1)), a) for e, s, a in iters]


def tile_spans(layout, axes):
    """Scale factors for tiling over ``layout``: its span on each axis its canonical shard
    uses (1 on the other axes, as Apache TVM 0.27 tiles)."""
    tile_layout = layout.tile_layout if isinstance(layout, ComposeLayout) else layout
    used = {it.axis for it in canonicalize(tile_layout).shard}
    return {a: span_of(layout, a) for a in axes if a in used}


def axes_of(layout):
    """Every axis ``layout`` uses in its shard, replica or offset.

    Parameters
    ----------
    layout : TileLayout
        The layout to read.

    Returns
    -------
    set of Axis
        The axes.
    """
    return ({a for _e, _s, a in triples(layout.shard) + triples(layout.replica)}
            | set(layout.offset))


def add_offsets(*dicts):
    """Sum offset dicts axis by axis.

    Parameters
    ----------
    *dicts : dict
        ``{Axis: value}`` maps.

    Returns
    -------
    dict
        ``{Axis: sum of the values on that axis}``; zero sums are kept.
    """
    out = {}
    for d in dicts:
        for a, v in d.items():
            out[a] = C.add(out.get(a, 0), v)
    return out


def tile(inner, outer, outer_shape, inner_shape):
    """Tile ``inner`` by ``outer`` (``Layout.tile``).

    Dimension ``d`` of the result has extent ``outer_shape[d] * inner_shape[d]``: the outer
    iters of that dimension, their strides scaled by the span of ``inner`` on each axis, come
    before the inner iters. Replicas and offsets of both layouts are added unscaled.

    Parameters
    ----------
    inner : TileLayout or ComposeLayout
        The inner layout; a ComposeLayout keeps its swizzle, resized to the inner size.
    outer : TileLayout
        The outer layout.
    outer_shape, inner_shape : sequence of int or PrimExpr
        The logical shapes of ``outer`` and ``inner``, of the same rank.

    Returns
    -------
    TileLayout or ComposeLayout
        The canonicalized tiled layout.

    Raises
    ------
    LayoutArgumentError
        When the ranks differ, a layout's size does not match its shape, or ``outer`` is a
        ComposeLayout (not supported yet).
    """
    if len(outer_shape) != len(inner_shape):
        raise LayoutArgumentError(
            f"tile: outer_shape {outer_shape} and inner_shape {inner_shape} differ in rank"
        )
    if isinstance(outer, ComposeLayout):
        raise LayoutArgumentError(
            "tile: a ComposeLayout as the outer layout is not supported yet"
        )
    if isinstance(inner, ComposeLayout):
        resized = resize_swizzle(inner, C.product(C.num(e) for e in inner_shape))
        return inner.with_tile(tile(resized, outer, outer_shape, inner_shape))
    for name, lay, shape in (("inner", inner, inner_shape), ("outer", outer, outer_shape)):
        if not C.equal(size_of(lay), C.product(C.num(e) for e in shape)):
            raise LayoutArgumentError(
                f"tile: {name} layout {lay} has {size_of(lay)} elements, but {name}_shape "
                f"{list(shape)} has {C.product(C.num(e) for e in shape)}"
            )
    gi = grouped_iters(inner, inner_shape)
    go = grouped_iters(outer, outer_shape)
    spans = tile_spans(inner, axes_of(outer))
    shard = []
    for d in range(len(inner_shape)):
        shard += _scaled(go[d], spans) + gi[d]
    # The outer layout's replica and offset are added as they are (not scaled).
    replica = triples(inner.replica) + triples(outer.replica)
    return canonicalize(make(shard, replica, add_offsets(offsets(inner), offsets(outer))))


def direct_sum(right, left, left_shape, right_shape):
    """The direct sum ``left + right`` over the interleaved domain (``Layout.direct_sum``).

    Dimension ``2d`` of the domain is ``left_shape[d]`` and ``2d + 1`` is ``right_shape[d]``;
    the shard iters of both are concatenated per dimension without scaling, and replicas and
    offsets are added.

    Parameters
    ----------
    right : TileLayout
        The right addend (the layout the method is called on).
    left : TileLayout
        The left addend.
    left_shape, right_shape : sequence of int or PrimExpr
        The logical shapes of ``left`` and ``right``, of the same rank.

    Returns
    -------
    TileLayout
        The sum, not canonicalized.

    Raises
    ------
    LayoutArgumentError
        When a layout is not a TileLayout or the ranks differ.
    """
    _require_tile(right, "direct_sum")
    _require_tile(left, "direct_sum")
    if len(left_shape) != len(right_shape):
        raise LayoutArgumentError(
            f"direct_sum: left_shape {left_shape} and right_shape {right_shape} differ in rank"
        )
    gl = grouped_iters(left, left_shape)
    gr = grouped_iters(right, right_shape)
    shard = []
    for d in range(len(left_shape)):
        shard += gl[d] + gr[d]
    replica = triples(left.replica) + triples(right.replica)
    return make(shard, replica, add_offsets(offsets(left), offsets(right)))


# --- inverse --------------------------------------------------------------------------------
def inverse(layout):
    """The layout from a memory coordinate back to the logical index, for a bijective
    layout onto ``[0, size)`` of one axis (no replica, no offset)."""
    _require_tile(layout, "inverse")
    iters = [t for t in triples(layout.shard) if not C.equal(t[0], 1)]
    axes = {a for _e, _s, a in iters}
    if layout.replica or any(not C.equal(v, 0) for v in layout.offset.values()) or len(
            axes) > 1:
        raise LayoutArgumentError(
            f"inverse: layout {layout} must map onto one axis without replica or offset")
    if not all(C.is_const(v) for t in iters for v in t[:2]):
        raise LayoutArgumentError(f"inverse: layout {layout} has symbolic extents or strides")
    logical = []
    stride = 1
    for e, _s, _a in reversed(iters):
        logical.append(stride)
        stride *= e
    logical.reverse()
    order = sorted(range(len(iters)), key=lambda k: iters[k][1])
    expect = 1
    for k in order:
        e, s, _a = iters[k]
        if s != expect:
            raise LayoutArgumentError(
                f"inverse: layout {layout} is not a bijection onto [0, {stride}): its strides "
                "do not tile the range without gaps or overlaps"
            )
        expect = s * e
    return make([(iters[k][0], logical[k], m_axis()) for k in reversed(order)] or [(1, 1, m_axis())])


# --- transforms -----------------------------------------------------------------------------
def storage(layout):
    """The per-thread storage layout (``Layout.storage``).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout; a ComposeLayout keeps its swizzle.

    Returns
    -------
    TileLayout or ComposeLayout
        ``layout`` with every shard iter, replica iter and offset on a thread axis removed.
    """
    if isinstance(layout, ComposeLayout):
        return layout.with_tile(storage(layout.tile_layout))
    shard = [it for it in layout.shard if not it.axis.is_thread()]
    replica = [it for it in layout.replica if not it.axis.is_thread()]
    off = {a: v for a, v in layout.offset.items() if not a.is_thread()}
    return TileLayout.from_iters(shard, replica, off)


def _log2_exact(num, what):
    num = int(C.num(num))
    if num <= 0 or num & (num - 1):
        raise LayoutArgumentError(f"{what}: num must be a power of 2 for a ComposeLayout, "
                                  f"got {num}")
    return num.bit_length() - 1


def unpack(layout, num):
    """Each element becomes ``num`` contiguous elements (``Layout.unpack``).

    Memory strides and offsets are multiplied by ``num`` and a ``num:1`` iter on ``m`` is
    appended; a ComposeLayout's ``per_element`` grows by ``log2(num)``.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout to unpack.
    num : int or PrimExpr
        Elements per old element; a power of two for a ComposeLayout.

    Returns
    -------
    TileLayout or ComposeLayout
        The unpacked layout.
    """
    if isinstance(layout, ComposeLayout):
        bits = _log2_exact(num, "unpack")
        return ComposeLayout(layout.per_element + bits, layout.swizzle_len, layout.atom_len,
                             unpack(layout.tile_layout, num), layout.swizzle_inner)
    num = C.num(num)

    def scale(t):
        e, s, a = t
        return (e, C.mul(s, num), a) if a.is_memory() else t

    shard = [scale(t) for t in triples(layout.shard)] + [(num, 1, m_axis())]
    replica = [scale(t) for t in triples(layout.replica)]
    off = {a: (C.mul(v, num) if a.is_memory() else v) for a, v in offsets(layout).items()}
    return make(shard, replica, off)


def pack(layout, num):
    """``num`` contiguous elements become one (``Layout.pack``), the inverse of :func:`unpack`.

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout to pack; its innermost shard iter must be a stride-1 memory iter whose
        extent is a multiple of ``num``, and every memory stride and offset a multiple of
        ``num``.
    num : int or PrimExpr
        Elements per new element; a power of two for a ComposeLayout.

    Returns
    -------
    TileLayout or ComposeLayout
        The packed layout.

    Raises
    ------
    LayoutArgumentError
        When the layout can not be packed by ``num``.
    """
    if isinstance(layout, ComposeLayout):
        bits = _log2_exact(num, "pack")
        if layout.per_element < bits:
            raise LayoutArgumentError(
                f"pack: per_element {layout.per_element} of {layout} is smaller than "
                f"log2({num})"
            )
        return ComposeLayout(layout.per_element - bits, layout.swizzle_len, layout.atom_len,
                             pack(layout.tile_layout, num), layout.swizzle_inner)
    num = C.num(num)
    shard = triples(layout.shard)
    if not shard:
        raise LayoutArgumentError(f"pack: layout {layout} has no shard iters")
    e, s, a = shard[-1]
    if not (a.is_memory() and C.equal(s, 1) and C.divides(num, e)):
        raise LayoutArgumentError(
            f"pack: layout {layout} can not be packed into {num} elements: the innermost "
            "iter must be a stride-1 memory iter whose extent divides by num"
        )

    def shrink(t):
        e2, s2, a2 = t
        if not a2.is_memory():
            return t
        if not C.divides(num, s2):
            raise LayoutArgumentError(
                f"pack: stride {s2} of layout {layout} is not a multiple of {num}")
        return (e2, C.div(s2, num), a2)

    new_shard = [shrink(t) for t in shard[:-1]] + [(C.div(e, num), 1, a)]
    replica = [shrink(t) for t in triples(layout.replica)]
    off = {}
    for ax, v in offsets(layout).items():
        off[ax] = shrink((1, v, ax))[1]
    return make(new_shard, replica, off)


def broadcast(layout, num, position=-1, axis="m"):
    """Insert a stride-0 shard iter (``Layout.broadcast``).

    Parameters
    ----------
    layout : TileLayout or ComposeLayout
        The layout; a ComposeLayout keeps its swizzle.
    num : int or PrimExpr
        Extent of the new iter.
    position : int, optional
        Where to insert it among the shard iters; negative values count from the end, -1
        appends.
    axis : str or Axis, optional
        Axis of the new iter, ``"m"`` by default.

    Returns
    -------
    TileLayout or ComposeLayout
        The layout with the broadcast iter.
    """
    if isinstance(layout, ComposeLayout):
        return layout.with_tile(broadcast(layout.tile_layout, num, position, axis))
    shard = list(layout.shard)
    at = position if position >= 0 else len(shard) + 1 + position
    shard.insert(at, Iter(num, 0, axis))
    return TileLayout.from_iters(shard, layout.replica, layout.offset)
