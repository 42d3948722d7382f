"""Helpers for testing schedules: trace round trips and name-insensitive function comparison.

``verify_trace_roundtrip`` replays a schedule's trace on a fresh schedule, through the Python
text of the trace and through its JSON form, and checks that the result is the same module
and that the replayed trace prints the same.
"""

from __future__ import annotations

from ...ir.structural import assert_structural_equal
from .schedule import Schedule
from .trace import Trace

__all__ = ["assert_structural_equal_ignore_global_symbol", "verify_trace_roundtrip"]


def assert_structural_equal_ignore_global_symbol(func1, func2, *args, **kwargs) -> None:
    """Assert that two PrimFuncs are structurally equal, ignoring their ``global_symbol``.

    Both functions get ``global_symbol = "main"`` before the comparison; extra arguments go to
    :func:`tvm.ir.assert_structural_equal`.
    """
    assert_structural_equal(
        func1.with_attr("global_symbol", "main"),
        func2.with_attr("global_symbol", "main"),
        *args,
        **kwargs,
    )


def _replay_python(trace: Trace, sch: Schedule) -> None:
    # Lazy: tvm.script sits above s_tir in the layer order (the trace text uses T.*).
    from ... import tirx
    from ...script import tirx as T

    namespace = dict(vars(tirx))
    namespace["T"] = T
    exec("\n".join(trace.as_python()), namespace, {"sch": sch})  # noqa: S102


def verify_trace_roundtrip(sch: Schedule, mod, *, debug_mask="all",
                           text_format=("python", "json")) -> Schedule:
    """Replay ``sch.trace`` on a fresh schedule of ``mod`` and check it reproduces ``sch.mod``.

    Parameters
    ----------
    sch : Schedule
        The schedule whose trace is checked.
    mod : IRModule or PrimFunc
        What the fresh schedule starts from (what ``sch`` started from).
    debug_mask : str or int
        Passed to the fresh :class:`Schedule`.
    text_format : str or sequence of str
        ``"python"`` (the trace's Python text, executed), ``"json"`` (``Trace.as_json`` then
        ``Trace.apply_json_to_schedule``), or several of them, checked in turn.

    Returns
    -------
    Schedule
        The fresh schedule after the (last) replay.

    Raises
    ------
    AssertionError
        If the replay gives a different module or a differently printed trace.
    """
    if not isinstance(text_format, str):
        new_sch = None
        for fmt in text_format:
            new_sch = verify_trace_roundtrip(sch, mod, debug_mask=debug_mask, text_format=fmt)
        return new_sch
    trace = sch.trace
    if trace is None:
        raise ValueError("verify_trace_roundtrip: the schedule records no trace")
    new_sch = Schedule(mod, debug_mask=debug_mask)
    if text_format == "json":
        Trace.apply_json_to_schedule(trace.as_json(), new_sch)
    elif text_format == "python":
        _replay_python(trace, new_sch)
    else:
        raise ValueError(
            f"verify_trace_roundtrip: unknown text format {text_format!r}; "
            "expected 'python' or 'json'"
        )
    assert_structural_equal(new_sch.mod, sch.mod)
    old_text = "\n".join(trace.as_python())
    new_text = "\n".join(new_sch.trace.as_python())
    assert old_text == new_text, (
        f"the replayed trace prints differently:\n{old_text}\n--- replayed ---\n{new_text}"
    )
    return new_sch
