"""Expression bases shared by the IRs: ``BaseExpr``, ``PrimExpr``, ``RelaxExpr``, ``GlobalVar``,
``Range``.

* ``PrimExpr`` is the base of TIR scalar expressions (``tvm.tirx``): it carries a ``dtype``
  string such as ``"int64"`` or ``"float32"``.
* ``RelaxExpr`` is the base of Relax expressions (``tvm.relax``): it carries ``ty``, the type
  inferred by normalization (a derived field, filled once by the BlockBuilder).
* ``GlobalVar`` names a function of an ``IRModule``; it compares structurally by name.
"""

from __future__ import annotations

from ..ffi.node import IGNORE, Node, field
from .base import Scriptable

__all__ = ["BaseExpr", "GlobalVar", "PrimExpr", "Range", "RelaxExpr"]


class BaseExpr(Scriptable, Node, type_key="ir.BaseExpr"):
    """Base class of all expressions."""

    span: object = field(None, role=IGNORE, kw_only=True)


class PrimExpr(BaseExpr, type_key="ir.PrimExpr"):
    """Base class of scalar (TIR) expressions; ``dtype`` is a dtype string."""

    dtype: str = field("int32", kw_only=True)

    @property
    def ty(self):
        """The expression's type: a variable's ``type_annotation`` when it has one (a pointer
        type for a buffer's data), else ``PrimType(dtype)``."""
        annotation = getattr(self, "type_annotation", None)
        if annotation is not None:
            return annotation
        from .type import PrimType  # type.py and expr.py are siblings; kept lazy for cycles

        return PrimType(self.dtype)


class RelaxExpr(BaseExpr, type_key="ir.RelaxExpr"):
    """Base class of Relax expressions; ``ty`` is filled in by normalization."""

    ty: object = field(None, role=IGNORE, derived=True, kw_only=True)

    @property
    def struct_info(self):
        """Seed-era alias of :attr:`ty`."""
        return self.ty


class GlobalVar(RelaxExpr, type_key="ir.GlobalVar"):
    """A global function name inside an ``IRModule``."""

    # Identity matters (module keys and call sites): pickle keeps it shared (ffi/node.py).
    _pickle_by_reference = True
    # Not a field: (signature parts, type) of the last module insertion that typed this
    # GlobalVar, so re-inserting the same function skips re-deriving its type (ir/module.py).
    __slots__ = ("_ty_origin",)
    name_hint: str

    def __init__(self, name_hint: str, ty=None, span=None):
        if not isinstance(name_hint, str):
            raise TypeError(f"GlobalVar name must be a str, got {type(name_hint).__name__}")
        self.__init_fields__(name_hint, span=span, ty=ty)

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'


class Range(Scriptable, Node, type_key="ir.Range"):
    """A half-open integer range ``[begin, end)`` of PrimExprs, stored as ``min``/``extent``.

    Parameters
    ----------
    begin : PrimExpr or int
        The first value; with ``end=None`` it is the end instead and the range is
        ``[0, begin)``.
    end : PrimExpr or int, optional
        One past the last value. ``extent`` is computed as ``end - begin`` with PrimExpr
        arithmetic (integer constants fold; symbolic bounds stay symbolic).
    span : Span, optional
        Source location.

    Use :meth:`from_min_extent` to build a range from its ``min`` and ``extent``.
    """

    min: object
    extent: object
    span: object = field(None, role=IGNORE, kw_only=True)

    def __init__(self, begin, end=None, span=None):
        # Lazy: PrimExpr constants and arithmetic live in ``tirx``, above ``ir``.
        from ..tirx.generic import const, convert

        begin = _range_bound(convert, begin, "begin")
        if end is None:
            # ``Range(n)`` is ``[0, n)``: the zero takes the dtype of ``n``.
            begin, end = const(0, begin.dtype), begin
        else:
            end = _range_bound(convert, end, "end")
        extent = end if _is_const_zero(begin) else end - begin
        self.__init_fields__(begin, extent, span=span)

    @staticmethod
    def from_min_extent(min_value, extent, span=None):
        """The range ``[min_value, min_value + extent)``; Python ints become ``IntImm``."""
        if isinstance(min_value, int) or isinstance(extent, int):
            # Lazy: PrimExpr constants live in ``tirx``, above ``ir``.
            from ..tirx.generic import convert

            if isinstance(min_value, int):
                min_value = convert(min_value)
            if isinstance(extent, int):
                extent = convert(extent)
        obj = object.__new__(Range)
        obj.__init_fields__(min_value, extent, span=span)
        return obj

    def __repr__(self):
        lo, ext = self.min, self.extent
        if _is_const_zero(lo):
            end = ext
        elif isinstance(lo, PrimExpr) and isinstance(ext, PrimExpr):
            end = lo + ext
        else:
            return f"I.Range.from_min_extent({lo}, {ext})"
        return f"I.Range({lo}, {end})"

    __str__ = __repr__


def _range_bound(convert, value, what):
    """``value`` as an integer PrimExpr, or a ``TypeError`` naming the bound."""
    try:
        expr = convert(value)
    except TypeError as err:
        raise TypeError(f"Range {what} must be an integer PrimExpr or int, got "
                        f"{type(value).__name__} {value!r}") from err
    dtype = getattr(expr, "dtype", "")
    if not dtype.startswith(("int", "uint")):
        raise TypeError(f"Range {what} must have an integer dtype, got {dtype!r} ({value!r})")
    return expr


def _is_const_zero(value):
    """Whether ``value`` is the integer constant 0 (``IntImm`` or a Python int)."""
    if isinstance(value, int):
        return value == 0
    return type(value).__name__ == "IntImm" and value.value == 0
