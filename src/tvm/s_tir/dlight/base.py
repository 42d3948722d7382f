"""``ScheduleRule``, the ``ApplyDefaultSchedule`` pass and helpers shared by the rules."""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo
from ...target import Target
from ...tirx.function import PrimFunc
from ..schedule import Schedule, ScheduleError
from .analysis import normalize_prim_func

__all__ = [
    "ApplyDefaultSchedule",
    "ScheduleRule",
    "apply_gpu_default_schedule",
    "max_threads_per_block",
    "try_inline",
    "try_inline_contiguous_spatial",
]


class ScheduleRule:
    """A default schedule for the PrimFuncs it recognises.

    ``apply(func, target, tunable)`` returns a :class:`~tvm.s_tir.Schedule` (or a list of
    them when ``tunable``), or ``None`` when the rule does not apply to ``func``.
    """

    def apply(self, func: PrimFunc, target: Target, tunable: bool):
        """Schedule ``func`` for ``target``; ``None`` when the rule does not apply."""
        raise NotImplementedError(
            f"{type(self).__name__} is an abstract ScheduleRule: a subclass must override apply"
        )

    def is_target_available(self, target: Target) -> bool:
        """Whether the rule schedules for ``target`` (every target, unless overridden)."""
        return True

    @staticmethod
    def from_callable(name):
        """Decorator: a rule whose ``apply`` is the decorated ``f(func, target, tunable)``."""

        def decorator(f):
            rule_cls = type(name, (ScheduleRule,), {
                "apply": lambda self, func, target, tunable: f(func, target, tunable)})
            return rule_cls()

        return decorator

    def __repr__(self):
        return f"{type(self).__name__}()"


def _is_scheduled(func) -> bool:
    value = func.get_attr("tirx.is_scheduled") if isinstance(func, PrimFunc) else None
    return value is not None and bool(getattr(value, "value", value))


def _target_of(func) -> Target:
    target = func.get_attr("target")
    if target is not None:
        return target if isinstance(target, Target) else Target(target)
    target = Target.current(allow_none=True)
    if target is None:
        raise ValueError(
            "ApplyDefaultSchedule needs a target: run it inside `with tvm.target.Target(...)` "
            "or give the functions a \"target\" attribute"
        )
    return target


def _apply_rules(func, target, rules, tunable):
    for rule in rules:
        if not rule.is_target_available(target):
            continue
        result = rule.apply(func, target, tunable)
        if result is None:
            continue
        return result if isinstance(result, list) else [result]
    return None


class ApplyDefaultSchedule(ModulePass):
    """Module pass: schedule each unscheduled PrimFunc with the first rule that applies.

    Parameters
    ----------
    *rules : ScheduleRule
        Tried in order for each PrimFunc. A PrimFunc with ``"tirx.is_scheduled"`` set is left
        alone; a scheduled result gets ``"tirx.is_scheduled" = True``. A PrimFunc no rule
        accepts is left unchanged.
    """

    def __init__(self, *rules: ScheduleRule):
        for rule in rules:
            if not isinstance(rule, ScheduleRule):
                raise TypeError(
                    f"ApplyDefaultSchedule: expected ScheduleRule instances, got {rule!r}")
        self.rules = list(rules)
        super().__init__(self.transform_module, PassInfo(0, "ApplyDefaultSchedule"))

    def transform_module(self, mod: IRModule, ctx) -> IRModule:
        """Apply the rules to every unscheduled PrimFunc of ``mod``."""
        updates = {}
        for gvar, func in mod.functions_items():
            if not isinstance(func, PrimFunc) or _is_scheduled(func):
                continue
            schedules = _apply_rules(func, _target_of(func), self.rules, tunable=False)
            if schedules is None:
                continue
            if len(schedules) != 1:
                raise ValueError("ApplyDefaultSchedule: a rule returned several schedules "
                                 "although tunable=False")
            updates[gvar] = schedules[0].mod["main"].with_attr("tirx.is_scheduled", True)
        if not updates:
            return mod
        mod = IRModule(dict(mod.functions), attrs=mod.attrs,
                       global_infos=getattr(mod, "global_infos", None))
        for gvar, func in updates.items():
            mod[gvar] = func
        return mod

    def __repr__(self):
        return f"ApplyDefaultSchedule({', '.join(map(repr, self.rules))})"


def apply_gpu_default_schedule(mod: IRModule, target, should_schedule=None) -> IRModule:
    """``mod`` with every PrimFunc scheduled by ``gpu.Matmul``, ``gpu.GeneralReduction`` or
    ``gpu.Fallback`` (the first that applies) for the GPU ``target``.

    ``should_schedule(func)`` (optional) picks the functions to schedule; by default those
    not marked ``"tirx.is_scheduled"``. Used by the driver's default schedule for GPU targets.
    """
    # Lazy: the gpu rules import this module (a cycle at import time).
    from .gpu import Fallback, GeneralReduction, Matmul

    target = target if isinstance(target, Target) else Target(target)
    rules = [Matmul(), GeneralReduction(), Fallback()]
    updates = {}
    for gvar, func in mod.functions_items():
        if not isinstance(func, PrimFunc) or _is_scheduled(func):
            continue
        if should_schedule is not None and not should_schedule(func):
            continue
        schedules = _apply_rules(func, target, rules, tunable=False)
        if schedules:
            updates[gvar] = schedules[0].mod["main"].with_attr("tirx.is_scheduled", True)
    if not updates:
        return mod
    new = IRModule(dict(mod.functions), attrs=mod.attrs,
                   global_infos=getattr(mod, "global_infos", None))
    for gvar, func in updates.items():
        new.update_func(gvar, func)
    return new


def max_threads_per_block(target: Target) -> int:
    """The target's ``max_num_threads`` (1024 for CUDA), 256 when it does not say."""
    value = target.attrs.get("max_num_threads") if target is not None else None
    return int(getattr(value, "value", value)) if value is not None else 256


def try_inline(sch: Schedule, block_infos):
    """Inline every block that can be (``compute_inline``, else ``reverse_compute_inline``).

    Returns the infos of the blocks left, re-analysed.
    """
    changed = True
    while changed:
        changed = False
        infos = normalize_prim_func(sch)
        for info in infos:
            if info.is_reduction() or len(infos) == 1:
                continue
            for inline in (sch.compute_inline, sch.reverse_compute_inline):
                try:
                    inline(info.block_rv)
                except (ScheduleError, ValueError):
                    continue
                changed = True
                break
            if changed:
                break
    return normalize_prim_func(sch)


def try_inline_contiguous_spatial(sch: Schedule, block_infos):
    """Inline the elementwise spatial blocks only (a cheaper :func:`try_inline`)."""
    changed = True
    while changed:
        changed = False
        infos = normalize_prim_func(sch)
        for info in infos:
            if len(infos) == 1 or not info.is_elementwise(sch):
                continue
            try:
                sch.compute_inline(info.block_rv)
            except (ScheduleError, ValueError):
                continue
            changed = True
            break
    return normalize_prim_func(sch)
