"""``tvm.relax.transform``: Relax passes and the function / dataflow-block pass decorators."""

# ruff: noqa: F401
from .normalize import Normalize
from .pass_executors import (
    DataflowBlockPass,
    FunctionPass,
    dataflowblock_pass,
    function_pass,
)
