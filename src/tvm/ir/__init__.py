"""``tvm.ir``: what every IR shares: modules, types, ops, attributes, spans, passes."""

from ..ffi.structural import get_first_structural_mismatch, structural_equal, structural_hash
from . import transform
from .attrs import Attrs, DictAttrs, make_node
from .base import Node, Scriptable, SourceName, Span
from .expr import BaseExpr, GlobalVar, PrimExpr, Range, RelaxExpr
from .instrument import PassInstrument
from .module import GlobalInfo, IRModule
from .op import Op, register_op, register_op_attr
from .type import FuncType, OpaqueType, PointerType, PrimType, StringType, TupleType, Type

try:
    # The underlined-diff assertion lives with the foundation's structural helpers.
    from .structural import assert_structural_equal
except ImportError:  # pragma: no cover - only before tvm/ir/structural.py exists

    def assert_structural_equal(lhs, rhs, map_free_vars=False):
        """Raise ``ValueError`` naming the first mismatching paths when not equal."""
        paths = get_first_structural_mismatch(lhs, rhs, map_free_vars)
        if paths is not None:
            raise ValueError(
                f"StructuralEqual check failed, caused by lhs at {paths[0]} and rhs at {paths[1]}"
            )


Expr = RelaxExpr

__all__ = [
    "Attrs",
    "BaseExpr",
    "DictAttrs",
    "Expr",
    "FuncType",
    "GlobalInfo",
    "GlobalVar",
    "IRModule",
    "Node",
    "Op",
    "OpaqueType",
    "PassInstrument",
    "PointerType",
    "PrimExpr",
    "PrimType",
    "Range",
    "RelaxExpr",
    "Scriptable",
    "SourceName",
    "Span",
    "StringType",
    "TupleType",
    "Type",
    "assert_structural_equal",
    "get_first_structural_mismatch",
    "make_node",
    "register_op",
    "register_op_attr",
    "structural_equal",
    "structural_hash",
    "transform",
]
