"""Layout IR nodes: :class:`Iter`, :class:`Layout`, :class:`TileLayout`, :class:`ComposeLayout`.

A :class:`TileLayout` maps a logical index ``x`` (row-major over the shard extents) to a set
of coordinates on named axes::

    L(x) = { D(x) + r + O : r in R }

* the *shard* ``D`` splits ``x`` row-major across its iters (the first iter takes the high
  digits) and sums ``digit * stride`` on each iter's axis;
* the *replica* ``R`` is a set of offsets independent of ``x`` (its iters enumerate them);
* the *offset* ``O`` is a constant per axis.

A :class:`ComposeLayout` applies an XOR swizzle to the ``m`` coordinate of a tile layout.
The algebra lives in :mod:`.algebra` and :mod:`.apply`; these classes hold the data.
"""

from __future__ import annotations

from ...ffi.node import Node
from ...ir.expr import PrimExpr
from . import _core as C
from .axis import (
    Axis,
    LayoutSpec,
    as_axis,
    as_index_expr,
    spec_to_iter_args,
    to_offset,
)

__all__ = ["ComposeLayout", "Iter", "Layout", "TileLayout"]


class LayoutArgumentError(ValueError, AssertionError):
    """An invalid argument to a layout operation (a ValueError; also an AssertionError, as
    Apache TVM's layout helpers assert their arguments)."""


class Iter(Node, type_key="tirx.Iter"):
    """One iterator of a tile layout: ``extent`` digits, each moving ``stride`` on ``axis``."""

    extent: PrimExpr
    stride: PrimExpr
    axis: Axis

    def __init__(self, extent, stride, axis):
        self.__init_fields__(as_index_expr(extent), as_index_expr(stride), as_axis(axis))

    def __repr__(self):
        from .text import iter_text  # lazy: that module imports this one

        return iter_text(self)

    __str__ = __repr__


def _iter_from(triple):
    extent, stride, axis = triple
    return Iter(extent, stride, axis)


def _norm_offset(offset):
    out = {}
    for axis, value in (offset or {}).items():
        axis = as_axis(axis)
        value = as_index_expr(C.num(value) if not isinstance(value, PrimExpr) else value)
        out[axis] = value
    return out


class Layout(Node, type_key="tirx.Layout"):
    """Base class of layouts; see :class:`TileLayout` and :class:`ComposeLayout`."""

    # --- queries -------------------------------------------------------------------------
    def verify_well_formed(self) -> bool:
        """True when the layout is well formed; ValueError naming the problem otherwise.

        A well-formed layout has positive extents and thread axes whose scopes chain up
        without a gap (``warpid`` + ``laneid`` is fine, ``wgid`` + ``laneid`` is not).
        """
        from .algebra import verify_well_formed  # lazy: that module imports this one

        return verify_well_formed(self)

    def size(self, axis_name=None):
        """The number of logical elements (product of shard extents), or of the shard extents
        on ``axis_name``."""
        from .algebra import layout_size  # lazy: that module imports this one

        return layout_size(self, axis_name)

    def span(self, axis_name=None):
        """The extent of the codomain on ``axis_name`` (``m`` by default):
        ``1 + sum((extent - 1) * |stride|)`` over shard and replica iters on that axis."""
        from .algebra import layout_span  # lazy: that module imports this one

        return layout_span(self, axis_name)

    # --- mapping -------------------------------------------------------------------------
    def apply(self, *coord, shape=None) -> dict:
        """Map a coordinate to ``{axis name: PrimExpr}``.

        * one coordinate: a flat index, split row-major across the shard extents (the
          outermost digit is not wrapped, so indices past the size continue the pattern);
        * several coordinates without ``shape``: one per shard iter;
        * ``shape`` given: the coordinate is an index into that logical shape.
        """
        from .apply import apply_layout  # lazy: that module imports this one

        return apply_layout(self, list(coord), shape)

    def apply_to_shape(self, coord, input_shape) -> list:
        """The digit each shard iter takes for ``coord`` in ``input_shape`` (split per
        logical dimension when the layout groups by that shape, else via the flat index)."""
        from .apply import apply_to_shape  # lazy: that module imports this one

        return apply_to_shape(self, list(coord), list(input_shape))

    # --- construction --------------------------------------------------------------------
    def canonicalize(self) -> Layout:
        """Drop unit iters and zero offsets, fuse contiguous iters, sort the replica; under a
        CUDA target also fuse hierarchical thread axes (``warpid``/``laneid`` -> ``tx``)."""
        from .algebra import canonicalize  # lazy: that module imports this one

        return canonicalize(self)

    def tile(self, outer, outer_shape, inner_shape) -> Layout:
        """Tile this (inner) layout by ``outer``: logical dim ``d`` of the result has extent
        ``outer_shape[d] * inner_shape[d]``; outer strides are scaled by the inner span."""
        from .algebra import tile  # lazy: that module imports this one

        return tile(self, outer, list(outer_shape), list(inner_shape))

    def direct_sum(self, left, left_shape, right_shape) -> Layout:
        """``left + self`` over the interleaved domain ``(l0, r0, l1, r1, ...)``, unscaled."""
        from .algebra import direct_sum  # lazy: that module imports this one

        return direct_sum(self, left, list(left_shape), list(right_shape))

    def is_tile_inner(self, tile_layout, tiled_shape, inner_shape):
        """The outer layout when ``tile_layout == self.tile(outer, ...)``, else None."""
        from .recognize import is_tile_inner  # lazy: that module imports this one

        return is_tile_inner(self, tile_layout, list(tiled_shape), list(inner_shape))

    def is_tile_outer(self, tile_layout, tiled_shape, outer_shape):
        """The inner layout when ``tile_layout == inner.tile(self, ...)``, else None."""
        from .recognize import is_tile_outer  # lazy: that module imports this one

        return is_tile_outer(self, tile_layout, list(tiled_shape), list(outer_shape))

    def is_direct_sum_right(self, sum_layout, interleaved_shape, right_shape):
        """The left addend when ``sum_layout == self.direct_sum(left, ...)``, else None."""
        from .recognize import is_direct_sum  # lazy: that module imports this one

        return is_direct_sum(self, sum_layout, list(interleaved_shape), list(right_shape),
                             self_is_right=True)

    def is_direct_sum_left(self, sum_layout, interleaved_shape, left_shape):
        """The right addend when ``sum_layout == right.direct_sum(self, ...)``, else None."""
        from .recognize import is_direct_sum  # lazy: that module imports this one

        return is_direct_sum(self, sum_layout, list(interleaved_shape), list(left_shape),
                             self_is_right=False)

    def slice(self, shape, region):
        """The layout of ``region`` (``(begin, end)`` pairs or Ranges) of a ``shape``-shaped
        view, or None when the region is not expressible as a layout."""
        from .slicing import slice_layout  # lazy: that module imports this one

        if len(shape) != len(region):
            raise LayoutArgumentError(
                f"slice: shape has {len(shape)} dims but region has {len(region)}"
            )
        return slice_layout(self, list(shape), list(region))

    def tile_to(self, to_shape, current_shape) -> Layout:
        """Tile this layout (of ``current_shape``) row-major up to ``to_shape``."""
        if len(to_shape) != len(current_shape):
            raise LayoutArgumentError(
                f"tile_to: to_shape {list(to_shape)} and current_shape "
                f"{list(current_shape)} differ in rank"
            )
        outer_shape = [C.div(C.num(t), C.num(c)) for t, c in zip(to_shape, current_shape)]
        return self.tile(TileLayout(LayoutSpec(shard=(tuple(outer_shape), None))),
                         outer_shape, list(current_shape))

    # --- structure tests -----------------------------------------------------------------
    def is_swizzle(self) -> bool:
        """A bare swizzle: a ComposeLayout over a trivial tile layout."""
        return isinstance(self, ComposeLayout) and self.tile_layout.is_trivial()

    def is_trivial(self) -> bool:
        """Whether the layout is the identity (one stride-1 ``m`` iter); False here.

        ``TileLayout`` overrides this; other layouts are never trivial.
        """
        return False

    def is_trainium(self) -> bool:
        """Whether every axis of the layout is a Trainium memory axis (P, F, Bank)."""
        if not isinstance(self, TileLayout):
            return False
        names = {it.axis.name for it in (*self.shard, *self.replica)} | {
            a.name for a in self.offset}
        return bool(names) and names <= {"P", "F", "Bank"}

    # --- transforms ----------------------------------------------------------------------
    def storage(self) -> Layout:
        """The per-thread storage layout: thread-axis iters and offsets removed."""
        from .algebra import storage  # lazy: that module imports this one

        return storage(self)

    def unpack(self, num) -> Layout:
        """Each element becomes ``num`` contiguous elements."""
        from .algebra import unpack  # lazy: that module imports this one

        return unpack(self, num)

    def pack(self, num) -> Layout:
        """``num`` contiguous elements become one element."""
        from .algebra import pack  # lazy: that module imports this one

        return pack(self, num)

    def broadcast(self, num, position=-1, axis="m") -> Layout:
        """Insert a stride-0 shard iter of extent ``num`` at ``position`` (list.insert
        semantics, with -1 appending)."""
        from .algebra import broadcast  # lazy: that module imports this one

        return broadcast(self, num, position, axis)

    def __repr__(self):
        from .text import layout_text  # lazy: that module imports this one

        return layout_text(self)

    __str__ = __repr__


class TileLayout(Layout, type_key="tirx.TileLayout"):
    """A shard + replica + offset layout, built from ``S[...] + R[...] + offset``.

    Examples
    --------
    >>> from tvm.tirx.layout import S, R, TileLayout, laneid
    >>> TileLayout(S[(8, 4):(4 @ laneid, 1)] + R[2 : 1 @ laneid])
    T.TileLayout(T.S[(8, 4):(4 @ Axis.laneid, 1)] + T.R[2:1 @ Axis.laneid])
    """

    shard: tuple
    replica: tuple = ()
    offset: dict = None

    kPSUMMaxElemPerBank = 512
    kPSUMBankNum = 8

    def __init__(self, spec):
        if not isinstance(spec, LayoutSpec):
            raise TypeError(
                f"TileLayout takes a spec built as S[...] + R[...] + offset, got {spec!r}; "
                "use TileLayout.from_iters for Iter lists"
            )
        shard = tuple(_iter_from(t) for t in spec_to_iter_args(spec.shard))
        replica = tuple(_iter_from(t) for t in spec_to_iter_args(spec.replica))
        offset = {} if spec.offset is None else to_offset(spec.offset).terms
        self.__init_fields__(shard, replica, _norm_offset(offset))

    @staticmethod
    def from_iters(shard=(), replica=(), offset=None) -> TileLayout:
        """A TileLayout from :class:`Iter` lists and an ``{axis: value}`` offset."""
        for it in (*shard, *replica):
            if not isinstance(it, Iter):
                raise TypeError(f"TileLayout.from_iters takes Iter objects, got {it!r}")
        obj = object.__new__(TileLayout)
        obj.__init_fields__(tuple(shard), tuple(replica), _norm_offset(offset))
        return obj

    def is_trivial(self) -> bool:
        """One stride-1 ``m`` shard iter (after canonicalization), no replica, no offset."""
        canon = self.canonicalize()
        if canon.replica or any(not C.equal(v, 0) for v in canon.offset.values()):
            return False
        return (len(canon.shard) == 1 and canon.shard[0].axis.name == "m"
                and C.equal(canon.shard[0].stride, 1))

    def group(self, shape):
        """Split shard iters so that each dim of ``shape`` owns a run of them.

        Returns ``(layout, seps)``: dim ``d`` owns shard iters ``seps[d]:seps[d + 1]``.
        """
        from .algebra import group_many  # lazy: that module imports this one

        layout, seps = group_many(self, [list(shape)])
        return layout, seps[0]

    def group_many(self, shapes):
        """Split shard iters by the minimal common refinement of several shapes.

        Returns ``(layout, [seps per shape])``; repeated boundaries (extent-1 dims) become
        unit iters. InternalError when the boundaries are incompatible or unprovable.
        """
        from .algebra import group_many  # lazy: that module imports this one

        return group_many(self, [list(s) for s in shapes])

    def inverse(self) -> TileLayout:
        """The layout mapping a coordinate back to the logical index (``m`` in the result is
        that index), for a layout that is a bijection onto ``[0, size)`` of one axis with no
        replica and no offset; ValueError otherwise."""
        from .algebra import inverse  # lazy: that module imports this one

        return inverse(self)

    def get_scope(self):
        """``(innermost, outermost)`` execution scopes the thread axes span, or None."""
        from .algebra import layout_scope  # lazy: that module imports this one

        return layout_scope(self)

    @classmethod
    def trainium(cls, annotation, shape, is_psum=False) -> TileLayout:
        """A Trainium layout: ``annotation`` names each dim of ``shape`` ``P`` or ``F``."""
        from .factories import trainium_layout  # lazy: that module imports this one

        return trainium_layout(annotation, shape, is_psum)

    def to_psum(self) -> TileLayout:
        """Split ``F`` iters into PSUM banks of 512 elements (``Bank`` axis)."""
        from .factories import to_psum  # lazy: that module imports this one

        return to_psum(self)

    def permute_dims(self, perm) -> TileLayout:
        """Reorder the shard iters: iter ``i`` of the result is ``shard[perm[i]]``."""
        perm = [int(p) for p in perm]
        if sorted(perm) != list(range(len(self.shard))):
            raise LayoutArgumentError(
                f"permute_dims: {perm} is not a permutation of {len(self.shard)} shard iters"
            )
        return TileLayout.from_iters([self.shard[i] for i in perm], self.replica, self.offset)

    def permute_by_groups(self, seps, perm) -> TileLayout:
        """Reorder groups of shard iters; group ``g`` is ``shard[seps[g]:seps[g + 1]]``."""
        seps = [int(s) for s in seps]
        perm = [int(p) for p in perm]
        if sorted(perm) != list(range(len(seps) - 1)):
            raise LayoutArgumentError(
                f"permute_by_groups: {perm} is not a permutation of {len(seps) - 1} groups"
            )
        flat = [k for g in perm for k in range(seps[g], seps[g + 1])]
        return self.permute_dims(flat)


class ComposeLayout(Layout, type_key="tirx.ComposeLayout"):
    """An XOR swizzle over a tile layout's ``m`` coordinate.

    With ``chunk = 2**per_element`` elements per unit, a unit index ``u`` has
    ``swizzle_len`` bits at bit ``atom_len`` XORed into its low bits (``swizzle_inner``) or
    its low ``swizzle_len`` bits XORed into bits at ``atom_len`` (otherwise). The byte-line
    swizzles of 32B/64B/128B are ``per_element = bitlen(128 / dtype_bits) - 1``,
    ``swizzle_len = 1/2/3``, ``atom_len = 3``.
    """

    per_element: int
    swizzle_len: int
    atom_len: int
    tile_layout: TileLayout
    swizzle_inner: bool = True

    def __init__(self, per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True):
        for name, value in (("per_element", per_element), ("swizzle_len", swizzle_len),
                            ("atom_len", atom_len)):
            value = C.num(value)
            if not C.is_const(value) or value < 0:
                raise LayoutArgumentError(
                    f"ComposeLayout {name} must be a non-negative int, got {value!r}")
        if not isinstance(tile_layout, TileLayout):
            raise TypeError(f"ComposeLayout tile_layout must be a TileLayout, "
                            f"got {type(tile_layout).__name__}")
        self.__init_fields__(int(C.num(per_element)), int(C.num(swizzle_len)),
                             int(C.num(atom_len)), tile_layout, bool(swizzle_inner))

    @property
    def period(self) -> int:
        """Elements in one swizzle period: ``2 ** (per_element + swizzle_len + atom_len)``."""
        return 1 << (self.per_element + self.swizzle_len + self.atom_len)

    def with_tile(self, tile_layout) -> ComposeLayout:
        """The same swizzle over another tile layout."""
        return ComposeLayout(self.per_element, self.swizzle_len, self.atom_len, tile_layout,
                             self.swizzle_inner)
