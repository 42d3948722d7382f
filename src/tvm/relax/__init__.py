"""``tvm.relax``: the graph-level IR (expressions, types, BlockBuilder, functors, passes)."""

from ..ir.expr import GlobalVar
from ..ir.type import PrimType, TupleType
from . import (
    analysis,
    expr_functor,
    op,
    pipeline,  # compilation pipelines (named pass lists)
    transform,
    ty,
    utils,
)
from .block_builder import BlockBuilder
from .expr import (
    BaseFunc,
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    DataTypeImm,
    Expr,
    ExternFunc,
    Function,
    If,
    MatchCast,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
    VarBinding,
    const,
    extern,
    get_shape_of,
    make_shape,
    prim_value,
)
from .expr_functor import ExprFunctor, ExprMutator, ExprVisitor, PyExprMutator, PyExprVisitor
from .global_info import DummyGlobalInfo, VDevice
from .op.base import (  # relax.call_tir(...), as in TVM 0.27
    call_dps_packed,
    call_pure_packed,
    call_tir,
    call_tir_inplace,
    call_tir_with_grad,
)
from .pipeline import get_default_pipeline, get_pipeline, register_pipeline
from .ty import (
    AnyType,
    FuncStructInfo,
    FuncType,
    ObjectStructInfo,
    ObjectType,
    PackedFuncType,
    PrimStructInfo,
    ShapeStructInfo,
    ShapeType,
    StructInfo,
    TensorStructInfo,
    TensorType,
    TupleStructInfo,
    Type,
)
from .vm import ExecBuilder, Executable, VirtualMachine, VMExecutable, VMInstrumentReturnKind
from .vm_build import build

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "AnyType", "BaseFunc", "Binding", "BindingBlock", "BlockBuilder", "Call", "Constant",
    "DataTypeImm", "DataflowBlock", "DataflowVar", "DummyGlobalInfo", "ExecBuilder",
    "Executable", "Expr", "ExprFunctor", "ExprMutator", "ExprVisitor", "ExternFunc",
    "FuncStructInfo", "FuncType", "Function", "GlobalVar", "If", "MatchCast",
    "ObjectStructInfo", "ObjectType", "PackedFuncType", "PrimStructInfo", "PrimType",
    "PrimValue", "PyExprMutator", "PyExprVisitor", "SeqExpr", "ShapeExpr", "ShapeStructInfo",
    "ShapeType", "StringImm", "StructInfo", "TensorStructInfo", "TensorType", "Tuple",
    "TupleGetItem", "TupleStructInfo", "TupleType", "Type", "VDevice", "VMExecutable",
    "VMInstrumentReturnKind", "Var",
    "VarBinding", "VirtualMachine", "analysis", "build", "call_dps_packed", "call_pure_packed",
    "call_tir", "call_tir_inplace", "call_tir_with_grad", "const", "expr_functor", "extern",
    "get_default_pipeline", "get_pipeline", "get_shape_of", "make_shape", "op", "pipeline",
    "prim_value", "register_pipeline", "transform", "ty", "utils",
]
