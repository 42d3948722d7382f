"""The tile-primitive dispatch table and its search.

Each implementation of a tile primitive is a *variant* registered for an op and a target
kind with :func:`register_dispatch`::

    @register_dispatch("copy", ANY_TARGET, variant="default", priority=-100,
                       when=[predicate("exec_scope", scope_in, scopes=("thread", "cta"))])
    def copy_default(call, ctx):
        ...
        return prim_func          # or fail("why this variant does not apply")

:func:`run_dispatch` (called by ``tvm.tirx.transform.TilePrimitiveDispatch``) picks the
variant for one call:

1. the cases of ``(op, target kind)`` and of ``(op, ANY_TARGET)``; with ``dispatch="name"``
   on the call, only the cases of that variant (an unknown name is an error);
2. sorted by ``(-priority, variant)``;
3. the first whose predicates all pass and whose implementation returns a PrimFunc wins.
   A predicate returns a bool or ``(bool, reason)``, or raises :class:`DispatchFail`; an
   implementation returns a PrimFunc or raises :class:`DispatchFail` (:func:`fail`);
4. when none does, a :class:`TileDispatchError` (a ``RuntimeError``, as in Apache TVM) names
   the op, the target, the operands (buffer, scope, dtype, layout) and gives one row per
   variant tried with the reason it was rejected.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from ...tile_primitive import get_tile_op, load_variants

__all__ = [
    "ANY_TARGET",
    "DispatchCase",
    "DispatchFail",
    "Predicate",
    "TileDispatchError",
    "fail",
    "list_registered_schedules",
    "predicate",
    "register_dispatch",
    "run_dispatch",
]

#: The target kind of variants that apply to every target (the generic loop lowerings).
ANY_TARGET = "*"


class DispatchFail(Exception):
    """A variant (or one of its predicates) declines a call; the message says why."""


class TileDispatchError(RuntimeError):
    """No variant could lower a tile-primitive call (the message has the reasons)."""


def fail(reason: str):
    """Decline the call from inside a variant or predicate: raises :class:`DispatchFail`."""
    raise DispatchFail(reason)


@dataclass
class Predicate:
    """A named condition of a variant: ``fn(call, ctx, **kwargs)``."""

    name: str
    fn: Callable
    kwargs: dict = field(default_factory=dict)

    def check(self, call, ctx):
        """``(passed, reason)``; ``reason`` is None when it passed or gave none."""
        try:
            out = self.fn(call, ctx, **self.kwargs)
        except DispatchFail as err:
            return False, str(err)
        except Exception as err:  # noqa: BLE001 - a broken predicate rejects, with the cause
            return False, f"predicate raised {type(err).__name__}: {err}"
        if isinstance(out, tuple):
            ok, reason = (out + (None,))[:2]
            return bool(ok), (None if ok or reason is None else str(reason))
        return bool(out), None


def predicate(name: str, fn: Callable, **kwargs) -> Predicate:
    """A named predicate for ``register_dispatch(..., when=[...])``; ``kwargs`` are passed to
    ``fn(call, ctx, **kwargs)``."""
    return Predicate(name, fn, dict(kwargs))


@dataclass
class DispatchCase:
    """One registered variant: its name, priority, predicates and implementation."""

    variant: str
    priority: int
    preds: list
    impl: Callable


#: (Op, target kind) -> registered cases.
_DISPATCH_TABLE: dict = {}


def register_dispatch(op_name: str, target_kind: str, *, variant: str, priority: int = 0,
                      when=None):
    """Register the decorated ``impl(call, ctx) -> PrimFunc`` as variant ``variant`` of tile
    primitive ``op_name`` for targets of kind ``target_kind`` (:data:`ANY_TARGET`: all).

    Higher ``priority`` is tried first; every predicate of ``when`` must pass. Registering the
    same (op, target, variant) again replaces the earlier case.
    """
    op = get_tile_op(op_name)
    if not isinstance(variant, str) or not variant:
        raise ValueError(f"register_dispatch({op_name!r}): variant must be a non-empty str")
    preds = list(when or [])
    for p in preds:
        if not isinstance(p, Predicate):
            raise TypeError(
                f"register_dispatch({op_name!r}, variant={variant!r}): when= takes predicate(...) "
                f"objects, got {type(p).__name__}"
            )

    def decorator(impl):
        cases = _DISPATCH_TABLE.setdefault((op, target_kind), [])
        cases[:] = [c for c in cases if c.variant != variant]
        cases.append(DispatchCase(variant, int(priority), preds, impl))
        return impl

    return decorator


def list_registered_schedules() -> dict:
    """``{op name: {target kind: [variant, ...]}}``, variants in the order they are tried."""
    load_variants()
    out: dict = {}
    for (op, target), cases in sorted(_DISPATCH_TABLE.items(), key=lambda kv: (kv[0][0].name,
                                                                               kv[0][1])):
        ordered = sorted(cases, key=lambda c: (-c.priority, c.variant))
        out.setdefault(op.name, {})[target] = [c.variant for c in ordered]
    return out


def _target_kind(ctx) -> str:
    kind = getattr(getattr(ctx, "target", None), "kind", None)
    return getattr(kind, "name", None) or str(kind)


def _call_text(call) -> list:
    try:
        script = getattr(call, "script", None)
        text = script() if callable(script) else str(call)
    except Exception:  # noqa: BLE001 - the report must not fail on a broken call
        text = f"{getattr(getattr(call, 'op', None), 'name', '?')} (unprintable)"
    return text.splitlines()


def _operand_lines(call) -> list:
    """One line per buffer-region operand: buffer, scope, dtype, shape, region, layout."""
    lines = []
    for i, arg in enumerate(getattr(call, "args", ()) or ()):
        buf = getattr(arg, "buffer", None)
        region = getattr(arg, "region", None)
        if buf is None or region is None:
            continue
        extents = ", ".join(f"{r.min}:{r.min + r.extent}" for r in region)
        layout = getattr(buf, "layout", None)
        lines.append(
            f"  operand {i}: {buf.name}[{extents}] scope={buf.scope()} dtype={buf.dtype} "
            f"shape={[str(s) for s in buf.shape]} layout={'default' if layout is None else layout}"
        )
    return lines


def _table(rows) -> list:
    """An ASCII table of (variant, [lines]) rows."""
    head = ("Variant", "Error")
    w0 = max([len(head[0])] + [len(v) for v, _ in rows])
    w1 = max([len(head[1])] + [len(line) for _, lines in rows for line in lines])
    rule = f"+{'-' * (w0 + 2)}+{'-' * (w1 + 2)}+"
    out = [rule, f"| {head[0].ljust(w0)} | {head[1].ljust(w1)} |", rule]
    for variant, lines in rows:
        for k, line in enumerate(lines or [""]):
            out.append(f"| {(variant if k == 0 else '').ljust(w0)} | {line.ljust(w1)} |")
    out.append(rule)
    return out


def _where(call) -> str:
    """`` at <file>:<line>: <TVMScript text>`` of a call parsed from TVMScript, else ``""``."""
    span = getattr(call, "span", None)
    source = getattr(getattr(span, "source_name", None), "name", None)
    if not source or not getattr(span, "line", None):
        return ""
    import linecache  # stdlib, only when a dispatch fails

    text = linecache.getline(source, span.line).strip()
    return f" at {source}:{span.line}" + (f": {text}" if text else "")


def _error(call, target, rows, note=None, cause=None):
    op_name = getattr(getattr(call, "op", None), "name", "?")
    scope = getattr(getattr(call, "scope", None), "name", None)
    lines = [f"TIRx schedule dispatch failed: op={op_name} target={target}"
             + (f" scope={scope}" if scope else "") + _where(call)]
    lines += _operand_lines(call)
    if rows:
        lines += _table(rows)
    if note:
        lines.append(note)
    err = TileDispatchError("\n".join(lines))
    if cause is not None:
        raise err from cause
    raise err


def run_dispatch(call, ctx):
    """Lower one tile-primitive ``call`` in context ``ctx``: the PrimFunc of the first variant
    that applies (see the module docstring); :class:`TileDispatchError` when none does."""
    target = _target_kind(ctx)
    load_variants(target)
    cases = list(_DISPATCH_TABLE.get((call.op, target), []))
    if target != ANY_TARGET:
        cases += _DISPATCH_TABLE.get((call.op, ANY_TARGET), [])
    if not cases:
        _error(call, target, [], "no registered variants for this op/target")
    forced = getattr(call, "dispatch", None)
    if forced is not None:
        known = sorted({c.variant for c in cases})
        cases = [c for c in cases if c.variant == forced]
        if not cases:
            _error(call, target, [], f"no variant named '{forced}' is registered "
                   f"(registered: {', '.join(known)})")
    rows = []
    last_exc = None
    for case in sorted(cases, key=lambda c: (-c.priority, c.variant)):
        label = f"{case.variant} (prio={case.priority})"
        reasons = []
        for pred in case.preds:
            ok, reason = pred.check(call, ctx)
            if not ok:
                reasons.append(f"rejected: {pred.name}" + (f" — {reason}" if reason else ""))
        if reasons:
            rows.append((label, ["; ".join(reasons), "opcall:", *_call_text(call)]))
            continue
        try:
            result = case.impl(call, ctx)
        except DispatchFail as err:
            rows.append((label, [f"declined — {err}", "opcall:", *_call_text(call)]))
            continue
        except Exception as err:  # noqa: BLE001 - reported in the table, then re-raised
            last_exc = err
            tb = traceback.format_exception(type(err), err, err.__traceback__)
            rows.append((label, [f"exception — {type(err).__name__}: {err}", "opcall:",
                                 *_call_text(call), *"".join(tb).splitlines()]))
            continue
        if result is None:
            msg = ("declined — the implementation returned None (it must return a PrimFunc "
                   "or call fail(reason))")
            rows.append((label, [msg]))
            continue
        return result
    _error(call, target, rows, cause=last_exc)
    return None  # unreachable
