"""The lowering passes a GPU schedule needs, in order (``gpu_lowering_passes``).

The s_tir part runs on scheduled functions, before and around the block lowering:

1. ``LowerCrossThreadReduction``: reductions bound to ``threadIdx`` become
   ``tvm_thread_allreduce`` stages;
2. ``LowerInitBlock``;
3. ``PlanAndUpdateBufferAllocationLocation``: on-chip buffers move into the kernel;
4. ``ConvertBlocksToOpaque``;
5. ``CompactBufferAllocation``: on-chip buffers shrink to their tiles;
6. ``LowerOpaqueBlock``;

then the tirx part:

7. ``tirx.transform.LowerThreadAllreduce``: warp shuffles and shared memory;
8. ``tirx.transform.ThreadSync("shared")``: barriers.

The result keeps its thread-bound loops (``T.thread_binding``); converting them to
``thread_extent`` attributes and splitting host and device code is the code generator's part.
:func:`lower_for_gpu` runs the eight passes on a module (tests, the GPU simulator).
"""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import Sequential
from ...tirx.function import PrimFunc
from ...tirx.transform.lower_thread_allreduce import LowerThreadAllreduce
from ...tirx.transform.thread_sync import ThreadSync
from .buffer_placement import CompactBufferAllocation, PlanAndUpdateBufferAllocationLocation
from .lower_cross_thread_reduction import LowerCrossThreadReduction
from .lower_sblocks import ConvertBlocksToOpaque, LowerInitBlock, LowerOpaqueBlock

__all__ = ["gpu_lowering_passes", "gpu_s_tir_passes", "lower_for_gpu"]


def gpu_s_tir_passes() -> list:
    """Passes 1-6: scheduled s_tir in, block-free tirx with thread-bound loops out."""
    return [
        LowerCrossThreadReduction(),
        LowerInitBlock(),
        PlanAndUpdateBufferAllocationLocation(),
        ConvertBlocksToOpaque(),
        CompactBufferAllocation(),
        LowerOpaqueBlock(),
    ]


def gpu_lowering_passes() -> list:
    """All eight passes (see the module docstring)."""
    return gpu_s_tir_passes() + [LowerThreadAllreduce(), ThreadSync("shared")]


def lower_for_gpu(mod):
    """Run :func:`gpu_lowering_passes` on ``mod`` (an IRModule or a PrimFunc)."""
    if isinstance(mod, PrimFunc):
        return lower_for_gpu(IRModule({"main": mod}))["main"]
    return Sequential(gpu_lowering_passes(), name="s_tir.gpu_lowering")(mod)
