"""Named axes of a layout's codomain, and the ``S[...] + R[...] + offset`` spec builders.

An :class:`Axis` names where a layout puts an element: a memory axis (``m`` for the flat
address, ``P``/``F``/``Bank`` for Trainium partitions, ``TLane``/``TCol`` for Blackwell tensor
memory) or a thread axis (``laneid``, ``warpid``, ``tx``...). Axes are singletons made only by
:meth:`Axis.get`; ``n @ axis`` binds a stride or an offset term to an axis.
"""

from __future__ import annotations

import numbers
from typing import ClassVar

from ...ffi.node import Node
from ...ir.expr import PrimExpr
from ..expr import IntImm

__all__ = ["AXIS_NAMES", "Axis", "R", "S"]

# name -> (scope, subscope) for thread axes; None for memory axes. Scope names follow
# ExecScope kinds (kernel > cluster > cta > warpgroup > warp > thread). The block-index axes
# report (thread, cta) as Apache TVM 0.27 does.
_AXIS_TABLE = {
    "bx": ("thread", "cta"),
    "by": ("thread", "cta"),
    "bz": ("thread", "cta"),
    "cbx": ("cluster", "cta"),
    "cby": ("cluster", "cta"),
    "cbz": ("cluster", "cta"),
    "tx": ("cta", "thread"),
    "warpid": ("cta", "warp"),
    "laneid": ("warp", "thread"),
    "wgid": ("cta", "warpgroup"),
    "tid_in_wg": ("warpgroup", "thread"),
    "wid_in_wg": ("warpgroup", "warp"),
    "m": None,
    "P": None,
    "F": None,
    "Bank": None,
    "TCol": None,
    "TLane": None,
}

#: Every registered axis name, in registration order.
AXIS_NAMES = tuple(_AXIS_TABLE)

#: Scope kinds from the innermost up; used to check that a layout's thread axes chain up.
SCOPE_RANK = {"thread": 0, "warp": 1, "warpgroup": 2, "cta": 3, "cluster": 4, "kernel": 5}


class ScopeKind:
    """The name of an execution scope, as an axis reports it (``.name``: ``"warp"``...).

    ``tvm.tirx.exec_scope.ExecScope`` is returned instead where that module exists.
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return getattr(other, "name", None) == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f'T.ExecScope("{self.name}")'


def make_scope(name):
    """An ExecScope for ``name`` (the exec-scope module's class when it exists)."""
    try:
        # Lazy and optional: the sibling exec_scope module may not exist in this build.
        from ..exec_scope import ExecScope  # type: ignore[import-not-found]
    except ImportError:
        return ScopeKind(name)
    try:
        return ExecScope(name)
    except Exception:  # noqa: BLE001 - a differently shaped ExecScope: fall back to the name
        return ScopeKind(name)


class _AxisMeta(type(Node)):
    """Lets ``Axis.laneid`` resolve a registered axis lazily."""

    def __getattr__(cls, name):
        if name in _AXIS_TABLE:
            return cls.get(name)
        raise AttributeError(f"type object 'Axis' has no attribute {name!r}")


class Axis(Node, metaclass=_AxisMeta, type_key="tirx.Axis"):
    """A named axis of a layout's codomain; get one with :meth:`Axis.get`.

    ``4 @ Axis.laneid`` binds the value 4 to the axis (a stride or an offset term).
    """

    name: str

    _registry: ClassVar[dict] = {}

    def __init__(self, name):
        raise TypeError(f"Axis objects are made by Axis.get(name), not Axis({name!r})")

    @staticmethod
    def get(name) -> Axis:
        """The registered axis called ``name`` (ValueError for an unknown name)."""
        if isinstance(name, Axis):
            return name
        axis = Axis._registry.get(name)
        if axis is None:
            if name not in _AXIS_TABLE:
                raise ValueError(
                    f"unknown layout axis {name!r}; registered axes: {', '.join(AXIS_NAMES)}"
                )
            axis = object.__new__(Axis)
            axis.__init_fields__(name)
            Axis._registry[name] = axis
        return axis

    @property
    def name_hint(self) -> str:
        """The axis name (structural equality orders map keys by ``name_hint``)."""
        # Structural equality orders map keys by ``name_hint``.
        return self.name

    def is_thread(self) -> bool:
        """Whether this axis indexes threads (or blocks) rather than memory."""
        return _AXIS_TABLE[self.name] is not None

    def is_memory(self) -> bool:
        """Whether this axis indexes a memory (address, partition, TMEM lane/column)."""
        return _AXIS_TABLE[self.name] is None

    def get_scope(self):
        """The outer execution scope of a thread axis (``warp`` for ``laneid``), else None."""
        entry = _AXIS_TABLE[self.name]
        return None if entry is None else make_scope(entry[0])

    def get_subscope(self):
        """The inner execution scope of a thread axis (``thread`` for ``laneid``), else None."""
        entry = _AXIS_TABLE[self.name]
        return None if entry is None else make_scope(entry[1])

    def scope_interval(self):
        """(low, high) scope ranks this thread axis spans, or None for memory axes."""
        entry = _AXIS_TABLE[self.name]
        if entry is None:
            return None
        a, b = SCOPE_RANK[entry[0]], SCOPE_RANK[entry[1]]
        return (min(a, b), max(a, b))

    def __rmatmul__(self, value):
        return OnAxis(value, self)

    def __repr__(self):
        return f'tirx.Axis(name="{self.name}")'

    __str__ = __repr__

    def __reduce__(self):
        return (Axis.get, (self.name,))


def as_axis(axis) -> Axis:
    """An :class:`Axis` from an axis or its name."""
    if isinstance(axis, Axis):
        return axis
    if isinstance(axis, str):
        return Axis.get(axis)
    raise TypeError(f"a layout axis must be an Axis or an axis name, got {axis!r}")


def as_index_expr(value):
    """A PrimExpr index from an int or PrimExpr (int32 unless the value needs int64)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"layout extents, strides and offsets must be ints or PrimExprs, "
                        f"got {value!r}")
    value = int(value)
    dtype = "int32" if -(2**31) <= value < 2**31 else "int64"
    return IntImm(dtype, value)


class OnAxis:
    """``value @ axis``: a value bound to an axis (a stride, or one offset term)."""

    __slots__ = ("axis", "value")

    def __init__(self, value, axis):
        self.value = value
        self.axis = axis

    def __add__(self, other):
        return OffsetExpr({self.axis: self.value}) + other

    def __radd__(self, other):
        return self.__add__(other)

    def __repr__(self):
        return f"{self.value} @ {self.axis!r}"


class OffsetExpr:
    """A sum of axis-bound terms (``1 @ laneid + 2 @ warpid + 64``); bare values go to ``m``."""

    __slots__ = ("terms",)

    def __init__(self, terms=None):
        self.terms = dict(terms or {})

    def _add(self, axis, value):
        if axis in self.terms:
            self.terms[axis] = self.terms[axis] + value
        else:
            self.terms[axis] = value

    def __add__(self, other):
        if isinstance(other, LayoutSpec):
            return NotImplemented
        out = OffsetExpr(self.terms)
        for axis, value in to_offset(other).terms.items():
            out._add(axis, value)
        return out

    def __radd__(self, other):
        return self.__add__(other)


def to_offset(value) -> OffsetExpr:
    """An :class:`OffsetExpr` from an offset term, a sum of them, an int or a PrimExpr."""
    if isinstance(value, OffsetExpr):
        return value
    if isinstance(value, OnAxis):
        return OffsetExpr({value.axis: value.value})
    if isinstance(value, dict):
        return OffsetExpr({as_axis(k): v for k, v in value.items()})
    if isinstance(value, (numbers.Integral, PrimExpr)) and not isinstance(value, bool):
        return OffsetExpr({Axis.get("m"): value})
    raise TypeError(f"a layout offset must be `value @ axis`, an int or a PrimExpr, "
                    f"got {value!r}")


def _merge_offsets(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return to_offset(a) + to_offset(b)


_OFFSET_TYPES = (OnAxis, OffsetExpr, PrimExpr, numbers.Integral)


class LayoutSpec:
    """``S[...] + R[...] + offset``: the pieces of a :class:`TileLayout`, before building it."""

    __slots__ = ("offset", "replica", "shard")

    def __init__(self, shard=None, replica=None, offset=None):
        self.shard = shard
        self.replica = replica
        self.offset = offset

    def __add__(self, other):
        if isinstance(other, LayoutSpec):
            return LayoutSpec(self.shard or other.shard, other.replica or self.replica,
                              _merge_offsets(self.offset, other.offset))
        if isinstance(other, _OFFSET_TYPES) and not isinstance(other, bool):
            return LayoutSpec(self.shard, self.replica, _merge_offsets(self.offset, other))
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, _OFFSET_TYPES) and not isinstance(other, bool):
            return LayoutSpec(self.shard, self.replica, _merge_offsets(other, self.offset))
        return NotImplemented


class _SpecBuilder:
    """``S[extents : strides]`` / ``R[extents : strides]``; ``S[8, 4]`` means row-major."""

    __slots__ = ("_kind",)

    def __init__(self, kind):
        self._kind = kind

    @staticmethod
    def _as_tuple(value):
        if isinstance(value, (tuple, list)):
            return tuple(value)
        return (value,)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step is not None:
                raise ValueError(f"{self._kind} spec takes `extents : strides`, got a step")
            pair = (self._as_tuple(key.start), self._as_tuple(key.stop))
            if len(pair[0]) != len(pair[1]):
                raise ValueError(
                    f"{self._kind} spec has {len(pair[0])} extents but {len(pair[1])} strides"
                )
        else:
            pair = (self._as_tuple(key), None)
        if self._kind == "shard":
            return LayoutSpec(shard=pair)
        return LayoutSpec(replica=pair)

    def __repr__(self):
        return "T.S" if self._kind == "shard" else "T.R"


#: Shard spec builder: ``S[(8, 4):(4 @ laneid, 1)]``.
S = _SpecBuilder("shard")
#: Replica spec builder: ``R[4 : 1 @ laneid]``.
R = _SpecBuilder("replica")


def row_major_strides(extents):
    """Row-major strides for ``extents`` (innermost stride 1, in the extents' int dtype)."""
    stride = 1
    for e in extents:
        if isinstance(e, PrimExpr) and e.dtype != "int32":
            stride = IntImm(e.dtype, 1)
            break
    out = []
    for e in reversed(extents):
        out.append(stride)
        stride = stride * e
    return list(reversed(out))


def spec_to_iter_args(pair):
    """``(extents, strides)`` of a spec part -> a list of ``(extent, stride, axis)``."""
    if pair is None:
        return []
    extents, strides = pair
    if strides is None:
        strides = row_major_strides(list(extents))
    out = []
    for extent, stride in zip(extents, strides):
        if isinstance(stride, OnAxis):
            out.append((extent, stride.value, stride.axis))
        elif isinstance(stride, str):
            out.append((extent, 1, Axis.get(stride)))
        elif isinstance(stride, tuple):
            if len(stride) != 2:
                raise ValueError(f"a (stride, axis) pair must have two items, got {stride!r}")
            out.append((extent, stride[0], as_axis(stride[1])))
        else:
            out.append((extent, stride, Axis.get("m")))
    return out
