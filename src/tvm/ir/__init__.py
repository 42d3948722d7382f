"""``tvm.ir``: what every IR shares: modules, types, ops, attributes, spans, passes."""

from ..ffi.structural import get_first_structural_mismatch, structural_equal, structural_hash
from . import transform
from .attrs import Attrs, DictAttrs, make_node
from .base import Node, Scriptable, SequentialSpan, SourceName, Span, load_json, save_json
from .container import Map
from .expr import BaseExpr, GlobalVar, PrimExpr, Range, RelaxExpr
from .function import BaseFunc
from .global_info import DummyGlobalInfo, VDevice
from .instrument import PassInstrument
from .module import GlobalInfo, IRModule
from .op import Op, register_op, register_op_attr
from .structural import assert_structural_equal
from .type import FuncType, OpaqueType, PointerType, PrimType, StringType, TupleType, Type
from .unified_expr import Call, Var, is_prim_expr, is_prim_var

Expr = RelaxExpr

__all__ = [
    "Attrs",
    "BaseExpr",
    "BaseFunc",
    "Call",
    "DictAttrs",
    "DummyGlobalInfo",
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
    "SequentialSpan",
    "SourceName",
    "Span",
    "StringType",
    "TupleType",
    "Type",
    "VDevice",
    "Var",
    "assert_structural_equal",
    "get_first_structural_mismatch",
    "is_prim_expr",
    "is_prim_var",
    "load_json",
    "make_node",
    "register_op",
    "register_op_attr",
    "save_json",
    "structural_equal",
    "structural_hash",
    "transform",
]
