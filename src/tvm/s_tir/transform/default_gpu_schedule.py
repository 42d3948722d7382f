"""``DefaultGPUSchedule``: give every unscheduled PrimFunc a thread binding (TVM's fallback).

For GPU targets (the function's ``"target"`` attribute, else the current target), each
PrimFunc that has no thread-bound loop and is not marked ``"tirx.is_scheduled"`` gets the
schedule of :class:`tvm.s_tir.dlight.gpu.Fallback`: every block's spatial loops fused and split
over ``blockIdx.x`` x ``threadIdx.x`` (at most ``max_num_threads`` per block), reductions serial
in each thread. Functions for other targets, and functions with no root block, are left as
they are. Use ``dlight.ApplyDefaultSchedule`` with the other gpu rules for faster schedules.
"""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo
from ...target import Target
from ...tirx.function import PrimFunc
from ...tirx.stmt import For, ForKind
from ...tirx.stmt_functor import post_order_visit

__all__ = ["DefaultGPUSchedule"]


def _has_thread_binding(func) -> bool:
    found = False

    def visit(node):
        nonlocal found
        is_loop = isinstance(node, For) and node.kind == ForKind.THREAD_BINDING
        is_attr = type(node).__name__ == "AttrStmt" and node.attr_key == "thread_extent"
        if is_loop or is_attr:
            found = True

    post_order_visit(func.body, visit)
    return found


def _target(func):
    target = func.get_attr("target")
    if target is not None:
        return target if isinstance(target, Target) else Target(target)
    return Target.current(allow_none=True)


def _run(mod: IRModule, ctx) -> IRModule:
    # The rule lives in dlight (same layer); imported here to keep the import graph a tree.
    from ..dlight.base import _is_scheduled
    from ..dlight.gpu.fallback import Fallback

    rule = Fallback()
    updates = {}
    for gvar, func in mod.functions_items():
        if not isinstance(func, PrimFunc) or _is_scheduled(func) or _has_thread_binding(func):
            continue
        target = _target(func)
        if target is None or not rule.is_target_available(target):
            continue
        sch = rule.apply(func, target, False)
        if sch is not None:
            updates[gvar] = sch.mod["main"].with_attr("tirx.is_scheduled", True)
    if not updates:
        return mod
    new = IRModule(dict(mod.functions), attrs=mod.attrs,
                   global_infos=getattr(mod, "global_infos", None))
    for gvar, func in updates.items():
        new.update_func(gvar, func)
    return new


def DefaultGPUSchedule():
    """Bind threads in every unscheduled GPU PrimFunc (see the module docstring)."""
    return ModulePass(_run, PassInfo(0, "s_tir.DefaultGPUSchedule"))
