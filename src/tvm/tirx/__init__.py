"""``tvm.tirx``: the low-level tensor IR (scalar expressions, statements, buffers, PrimFuncs)."""

# Expressions.
# ``tirx.Expr``: the base of every expression (TIR and Relax), Apache TVM's annotation type
# for expression mutators (``def visit_add_(self, op) -> tirx.Expr``).
from ..ir.expr import BaseExpr as Expr  # noqa: F401
from . import (  # noqa: F401  (lowering passes, pipelines)
    analysis,
    compilation_pipeline,
    expr_functor,
    stmt_functor,
    transform,
)
from .buffer import Buffer, buffer_data_pointer_type, decl_buffer, is_buffer_var  # noqa: F401
from .exec_scope import ExecScope, ScopeIdDef  # noqa: F401
from .expr import (  # noqa: F401
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BinaryOpExpr,
    BitwiseAnd,
    BitwiseNot,
    BitwiseOr,
    BitwiseXor,
    Broadcast,
    Call,
    Cast,
    CmpExpr,
    ConstExpr,
    Div,
    EqualOp,
    ExprOp,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    LShift,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    NotEqualOp,
    Or,
    PrimExprWithOp,
    Ramp,
    RShift,
    Select,
    Shuffle,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from .function import PrimFunc  # noqa: F401
from .generic import (  # noqa: F401
    const,
    floordiv,
    floormod,
    max,
    min,
    truncdiv,
    truncmod,
)
from .index_map import IndexMap  # noqa: F401
from .op import (  # noqa: F401
    CallEffectKind,
    abs,
    acos,
    acosh,
    address_of,
    all,
    any,
    asin,
    asinh,
    assume,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    call_extern,
    call_intrin,
    call_llvm_intrin,
    call_llvm_pure_intrin,
    call_packed,
    call_pure_extern,
    ceil,
    ceildiv,
    clz,
    copysign,
    cos,
    cosh,
    div,
    erf,
    exp,
    exp2,
    exp10,
    floor,
    fmod,
    hypot,
    if_then_else,
    indexdiv,
    indexmod,
    infinity,
    isfinite,
    isinf,
    isnan,
    ldexp,
    likely,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    max_value,
    min_value,
    nearbyint,
    nextafter,
    popcount,
    pow,
    power,
    print_buffer,
    q_multiply_shift,
    q_multiply_shift_per_axis,
    reinterpret,
    ret,
    round,
    rsqrt,
    shift_left,
    shift_right,
    sigmoid,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    tvm_stack_alloca,
    tvm_storage_sync,
    tvm_warp_activemask,
    tvm_warp_shuffle,
    tvm_warp_shuffle_down,
    tvm_warp_shuffle_up,
    vscale,
)
from .op_gpu import tvm_thread_allreduce  # noqa: F401  (the default GPU schedules' passes)
from .op_wmma import (  # noqa: F401  (tensor-core fragment builtins)
    tvm_access_ptr,
    tvm_bmma_sync,
    tvm_fill_fragment,
    tvm_load_matrix_sync,
    tvm_mma_sync,
    tvm_store_matrix_sync,
    type_annotation,
)
from .reduction import CommReducer, Reduce  # noqa: F401

# Statements, buffers, functions (the statement helper's modules).
from .stmt import (  # noqa: F401
    AllocBuffer,
    AssertStmt,
    AttrStmt,
    Bind,
    Break,
    BufferLoad,
    BufferRegion,
    BufferStore,
    Continue,
    DeclBuffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    IterVar,
    LetStmt,
    MatchBufferRegion,
    Return,
    SBlock,
    SBlockRealize,
    ScopeIdDefStmt,
    SeqStmt,
    Stmt,
    While,
    stmt_list,
    stmt_seq,
)
from .tensor_intrin import TensorIntrin  # noqa: F401
from .tile_primitive import DispatchContext, LambdaExpr, TilePrimitiveCall  # noqa: F401


def build(mod, target=None, pipeline="default"):
    """``tvm.tirx.build``: compile TIR into a ``runtime.Module`` (see ``tvm.compile``)."""
    # Lazy: the driver is the top layer; tirx only forwards to it.
    from ..driver.build_module import build as _build

    return _build(mod, target, pipeline)


def __getattr__(name):
    if name == "script":
        # Lazy: ``tvm.tirx.script`` is an alias of the TIRx script dialect, which lives in the
        # script layer (tvm.script.parser.tirx); tvm.script's import finder resolves it.
        import importlib

        return importlib.import_module("tvm.tirx.script")
    raise AttributeError(f"module 'tvm.tirx' has no attribute {name!r}")
