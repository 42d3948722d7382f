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
    name_hint: str

    def __init__(self, name_hint: str, ty=None, span=None):
        if not isinstance(name_hint, str):
            raise TypeError(f"GlobalVar name must be a str, got {type(name_hint).__name__}")
        self.__init_fields__(name_hint, span=span, ty=ty)

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'


class Range(Node, type_key="ir.Range"):
    """A half-open integer range ``[min, min + extent)`` of PrimExprs."""

    min: object
    extent: object
    span: object = field(None, role=IGNORE, kw_only=True)

    @staticmethod
    def from_min_extent(min_value, extent, span=None):
        return Range(min_value, extent, span=span)
