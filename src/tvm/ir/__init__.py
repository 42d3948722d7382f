"""``tvm.ir``: what every IR shares: modules, types, ops, attributes, spans, passes."""

from ..ffi.structural import get_first_structural_mismatch, structural_equal, structural_hash
from . import transform
from .attrs import Attrs, DictAttrs, make_node
from .base import Node, Scriptable, SourceName, Span
from .container import Map
from .expr import BaseExpr, GlobalVar, PrimExpr, Range, RelaxExpr
from .function import BaseFunc
from .instrument import PassInstrument
from .module import GlobalInfo, IRModule
from .op import Op, register_op, register_op_attr
from .structural import assert_structural_equal
from .type import FuncType, OpaqueType, PointerType, PrimType, StringType, TupleType, Type

Expr = RelaxExpr

__all__ = [
    "Attrs",
    "BaseExpr",
    "BaseFunc",
    "DictAttrs",
    "Expr",
    "FuncType",
    "GlobalInfo",
    "GlobalVar",
    "IRModule",
    "Map",
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
