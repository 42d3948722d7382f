"""``tvm.relax.transform``: Relax passes and the function / dataflow-block pass decorators."""

# ruff: noqa: F401
from . import legalize_ops
from .legalize_ops import LegalizeOps
from .normalize import Normalize
from .pass_executors import (
    DataflowBlockPass,
    FunctionPass,
    dataflowblock_pass,
    function_pass,
)
from .gradient import Gradient, GradientSimplifier
