"""``tvm.tirx.transform``: the TIR lowering passes, one file per pass (family).

Each pass is a factory returning a pass object: ``tvm.tirx.transform.FlattenBuffer()(mod)``.
The order they run in is the pipeline of ``tvm.tirx.compilation_pipeline``.
"""

from .common import PrimFuncPass, prim_func_pass  # noqa: F401
from .common_subexpr_elim import CommonSubexprElim  # noqa: F401
from .flatten_buffer import FlattenBuffer  # noqa: F401
from .function_attrs import (  # noqa: F401
    AnnotateEntryFunc,
    BindTarget,
    MakePackedAPI,
    SplitHostDevice,
)
from .loops import UnrollLoop, VectorizeLoop  # noqa: F401
from .lower_intrin import LowerIntrin  # noqa: F401
from .lower_thread_allreduce import LowerThreadAllreduce  # noqa: F401
from .lower_tirx import LowerTIRx, LowerTIRxCleanup  # noqa: F401
from .lower_tirx_dedup_tensormap import LowerTIRxDedupCuTensorMaps  # noqa: F401
from .lower_tirx_opaque import LowerTIRxOpaque  # noqa: F401
from .lower_warp_memory import LowerWarpMemory  # noqa: F401
from .narrow_datatype import NarrowDataType  # noqa: F401
from .simplify import Simplify, StmtSimplify  # noqa: F401
from .storage_rewrite import StorageRewrite  # noqa: F401
from .thread_binding import LowerThreadBindingLoops, UnifyThreadBinding  # noqa: F401
from .thread_sync import ThreadSync  # noqa: F401
from .tile_primitive_dispatch import TilePrimitiveDispatch  # noqa: F401
from .utility import Apply, Filter, RemoveNoOp, SkipAssert  # noqa: F401
