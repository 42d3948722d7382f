"""``ScheduleError``: the error a schedule primitive raises when its precondition fails.

The class is public as ``tvm.s_tir.schedule.schedule.ScheduleError`` and
``tvm.s_tir.ScheduleError``; it is declared here so that the primitive modules can raise it
without importing the ``Schedule`` class.
"""

from __future__ import annotations

from tvm_ffi import register_error

__all__ = ["ScheduleError", "render_error"]


@register_error
class ScheduleError(RuntimeError):
    """A schedule primitive's precondition does not hold (the IR is left unchanged)."""


# Public home of the class (spec B.1); the FFI kind name is the class name.
ScheduleError.__module__ = "tvm.s_tir.schedule.schedule"


def render_error(primitive, message, mod, paths, level):
    """Build the ``ScheduleError`` for ``primitive`` failing with ``message``.

    ``level`` is the schedule's ``error_render_level``: ``"detail"`` shows the module in
    TVMScript with the statements at ``paths`` (printer access paths) underlined, ``"fast"``
    only the message and ``"none"`` a fixed text.
    """
    if level == "none":
        return ScheduleError("ScheduleError: (not rendered)")
    head = f"ScheduleError: An error occurred in the schedule primitive '{primitive}'.\n"
    if level == "fast" or mod is None:
        return ScheduleError(f"{head}Error message: {message}")
    try:
        text = mod.script(path_to_underline=[p for p in paths if p is not None])
    except Exception as err:  # noqa: BLE001 - never hide the real error behind a printer bug
        text = f"(the IR could not be printed: {type(err).__name__}: {err})"
    return ScheduleError(
        f"{head}\nThe IR with diagnostic is:\n{text}\nError message: {message}"
    )
