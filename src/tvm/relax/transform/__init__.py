"""``tvm.relax.transform``: Relax passes and the function / dataflow-block pass decorators."""

from typing import TYPE_CHECKING

from . import legalize_ops
from .checkpoint_budget import CheckpointToBudget
from .convert_to_dataflow import ConvertToDataflow
from .gradient import ForwardGradient, Gradient
from .normalize import Normalize
from .pass_executors import (
    DataflowBlockPass,
    FunctionPass,
    dataflowblock_pass,
    function_pass,
)

if TYPE_CHECKING:
    # The passes below are classes under ``@module_pass``, which makes each a ModulePass
    # subclass; a type checker does not apply class decorators and would take them for plain
    # classes whose instances are not passes. Their signatures as a checker should see them
    # (tests/test_typing.py keeps them equal to the classes'):
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ...ir.transform import ModulePass

    def AnnotateTIROpPattern() -> ModulePass: ...
    def AttachGlobalSymbol() -> ModulePass: ...
    def BindParams(func_name: str, params: Mapping[Any, Any]) -> ModulePass: ...
    def CallTIRRewrite() -> ModulePass: ...
    def CanonicalizeBindings() -> ModulePass: ...
    def DeadCodeElimination(entry_functions: Sequence[str] | None = None) -> ModulePass: ...
    def FoldConstant(max_elements: int = 1000000) -> ModulePass: ...
    def FuseOps(fuse_opt_level: int = -1) -> ModulePass: ...
    def FuseTIR() -> ModulePass: ...
    def GradientSimplifier() -> ModulePass: ...
    def KillAfterLastUse() -> ModulePass: ...
    def LambdaLift() -> ModulePass: ...
    def LegalizeOps(
        customize_legalize_map: Mapping[str, Any] | None = None,
        enable_warning: bool = True,
        keep_ops: Sequence[str] | None = None,
    ) -> ModulePass: ...
    def LowerAllocTensor() -> ModulePass: ...
    def LowerRuntimeBuiltin() -> ModulePass: ...
    def NormalizeGlobalVar() -> ModulePass: ...
    def RemovePurityChecking() -> ModulePass: ...
    def RewriteDataflowReshape() -> ModulePass: ...
    def StaticPlanBlockMemory() -> ModulePass: ...
    def ToNonDataflow() -> ModulePass: ...
    def VMBuiltinLower() -> ModulePass: ...
    def VMShapeLower(*, emit_err_ctx: bool = True) -> ModulePass: ...
else:
    from .annotate_tir_op_pattern import AnnotateTIROpPattern
    from .attach_global_symbol import AttachGlobalSymbol
    from .bind_params import BindParams
    from .call_tir_rewrite import CallTIRRewrite
    from .canonicalize_bindings import CanonicalizeBindings
    from .dead_code_elimination import DeadCodeElimination
    from .fold_constant import FoldConstant
    from .fuse_ops import FuseOps
    from .fuse_tir import FuseTIR
    from .gradient import GradientSimplifier
    from .kill_after_last_use import KillAfterLastUse
    from .lambda_lift import LambdaLift
    from .legalize_ops import LegalizeOps
    from .lower_alloc_tensor import LowerAllocTensor
    from .normalize_global_var import NormalizeGlobalVar
    from .remove_purity_checking import RemovePurityChecking
    from .rewrite_dataflow_reshape import RewriteDataflowReshape
    from .static_plan_block_memory import StaticPlanBlockMemory
    from .to_non_dataflow import ToNonDataflow
    from .vm_builtin_lower import LowerRuntimeBuiltin, VMBuiltinLower
    from .vm_shape_lower import VMShapeLower

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "AnnotateTIROpPattern", "AttachGlobalSymbol", "BindParams", "CallTIRRewrite",
    "CanonicalizeBindings", "CheckpointToBudget", "ConvertToDataflow", "DataflowBlockPass",
    "DeadCodeElimination", "FoldConstant", "ForwardGradient", "FunctionPass", "FuseOps", "FuseTIR",
    "Gradient", "GradientSimplifier", "KillAfterLastUse", "LambdaLift", "LegalizeOps",
    "LowerAllocTensor", "LowerRuntimeBuiltin", "Normalize", "NormalizeGlobalVar",
    "RemovePurityChecking", "RewriteDataflowReshape", "StaticPlanBlockMemory", "ToNonDataflow",
    "VMBuiltinLower", "VMShapeLower", "dataflowblock_pass", "function_pass", "legalize_ops",
]
