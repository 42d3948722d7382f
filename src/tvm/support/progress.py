"""Progress on a terminal, silence elsewhere: ``tqdm`` bars and a delayed compile spinner.

Both write to standard error, and only when it is a terminal: a pipe, a log file or pytest's
capture gets nothing (no ``"\\r"`` redraws in logs). ``tqdm`` is imported on first use (not by
``import tvm``); without it there is no progress output at all.

- :func:`progress_bar`: a ``tqdm`` bar for a loop we own (training steps of an epoch), or None.
- :func:`delayed_spinner`: a context manager for work of unknown length (``tvm.compile``,
  ``relax.build``) that shows ``"<what> ... 3.2s"`` once the work has run ``delay`` seconds
  (2 s by default) and removes the line when it ends. Nested uses show only the outermost.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["delayed_spinner", "is_terminal", "progress_bar"]

#: Seconds of work before :func:`delayed_spinner` shows anything.
SPINNER_DELAY = 2.0
#: Seconds between two redraws of the spinner.
SPINNER_INTERVAL = 0.2
_FRAMES = "|/-\\"

_depth = 0
_depth_lock = threading.Lock()


def is_terminal(stream: IO[str] | None = None) -> bool:
    """Whether ``stream`` (standard error by default) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed or detached stream
        return False


def _tqdm_class() -> Any:
    try:
        from tqdm import tqdm  # lazy: keeps ``import tvm`` fast, and tqdm optional
    except ImportError:
        return None
    return tqdm


def progress_bar(total: int, desc: str, *, unit: str = "it", stream: IO[str] | None = None,
                 leave: bool = False) -> Any:
    """A ``tqdm`` bar of ``total`` steps on ``stream`` (stderr), or None off a terminal.

    Parameters
    ----------
    total : int
        Number of steps the bar counts to.
    desc : str
        Text before the bar.
    unit : str
        Name of one step in the rate display.
    stream : file, optional
        Where the bar is drawn; standard error by default.
    leave : bool
        Keep the finished bar on the screen (default: erase it when closed).

    Returns
    -------
    tqdm.tqdm or None
        None when ``stream`` is not a terminal or ``tqdm`` is not installed: the caller then
        reports nothing while the loop runs.
    """
    stream = sys.stderr if stream is None else stream
    tqdm = _tqdm_class()
    if tqdm is None or not is_terminal(stream):
        return None
    return tqdm(total=total, desc=desc, unit=unit, file=stream, leave=leave, dynamic_ncols=True)


@contextlib.contextmanager
def delayed_spinner(what: str, *, delay: float | None = None,
                    stream: IO[str] | None = None) -> Iterator[None]:
    """Show ``what`` with a spinner and the elapsed time once the body has run ``delay`` s.

    Parameters
    ----------
    what : str
        What is running, e.g. ``"tvm.compile"``.
    delay : float, optional
        Seconds before the spinner appears (:data:`SPINNER_DELAY`, 2 s, by default); work that
        finishes sooner prints nothing.
    stream : file, optional
        Where the spinner is drawn; standard error by default. Nothing is drawn unless it is a
        terminal and ``tqdm`` is installed.

    Notes
    -----
    A daemon thread draws the spinner; it is erased (``leave=False``) when the body ends.
    Inside another ``delayed_spinner`` (``tvm.compile`` calling ``relax.build``) nothing
    more is shown.
    """
    global _depth
    stream = sys.stderr if stream is None else stream
    delay = SPINNER_DELAY if delay is None else delay
    with _depth_lock:
        outer = _depth == 0
        _depth += 1
    tqdm = _tqdm_class() if outer and is_terminal(stream) else None
    done = threading.Event()
    thread = None
    if tqdm is not None:
        thread = threading.Thread(target=_spin, args=(tqdm, what, delay, stream, done),
                                  name="tvm-progress", daemon=True)
        thread.start()
    try:
        yield
    finally:
        done.set()
        if thread is not None:
            thread.join(timeout=1.0)
        with _depth_lock:
            _depth -= 1


def _spin(tqdm: Any, what: str, delay: float, stream: IO[str], done: threading.Event) -> None:
    if done.wait(delay):
        return
    bar = tqdm(total=None, desc=what, file=stream, leave=False,
               bar_format="{desc} {elapsed}")
    frame = 0
    try:
        while True:
            bar.set_description_str(f"{what} {_FRAMES[frame % len(_FRAMES)]}", refresh=True)
            frame += 1
            if done.wait(SPINNER_INTERVAL):
                break
    finally:
        bar.close()
