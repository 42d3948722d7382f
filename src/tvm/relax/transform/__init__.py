"""``tvm.relax.transform``: Relax passes and the function / dataflow-block pass decorators."""

# ruff: noqa: F401
from . import legalize_ops
from .annotate_tir_op_pattern import AnnotateTIROpPattern
from .attach_global_symbol import AttachGlobalSymbol
from .bind_params import BindParams
from .call_tir_rewrite import CallTIRRewrite
from .canonicalize_bindings import CanonicalizeBindings
from .checkpoint_budget import CheckpointToBudget
from .convert_to_dataflow import ConvertToDataflow
from .dead_code_elimination import DeadCodeElimination
from .fold_constant import FoldConstant
from .fuse_ops import FuseOps
from .fuse_tir import FuseTIR
from .gradient import ForwardGradient, Gradient, GradientSimplifier
from .kill_after_last_use import KillAfterLastUse
from .lambda_lift import LambdaLift
from .legalize_ops import LegalizeOps
from .lower_alloc_tensor import LowerAllocTensor
from .normalize import Normalize
from .normalize_global_var import NormalizeGlobalVar
from .pass_executors import (
    DataflowBlockPass,
    FunctionPass,
    dataflowblock_pass,
    function_pass,
)
from .remove_purity_checking import RemovePurityChecking
from .rewrite_dataflow_reshape import RewriteDataflowReshape
from .static_plan_block_memory import StaticPlanBlockMemory
from .to_non_dataflow import ToNonDataflow
from .vm_builtin_lower import LowerRuntimeBuiltin, VMBuiltinLower
from .vm_shape_lower import VMShapeLower
