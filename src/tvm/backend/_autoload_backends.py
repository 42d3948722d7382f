"""Backend autoload, run once as the very last step of ``import tvm``.

1. Once per process: ``_AUTO_LOAD_DONE`` is set before any work.
2. ``TVM_DEVICE_BACKEND_AUTOLOAD=0`` (exactly ``"0"``) turns all of it off.
3. Unless runtime-only, the built-in backends of ``_BUILTIN_BACKENDS`` are loaded
   (missing ones are skipped), and ``tvm_runtime_extra`` is recorded as loaded.
4. Every entry point of the group ``tvm.backends`` is loaded and called with no arguments.
   A failure becomes ``UserWarning("Failed to autoload tvm backend '<name>': <error>")`` and
   the next entry point still runs.

An extension declares::

    [project.entry-points."tvm.backends"]
    tvm_foo = "tvm_foo:_autoload"
"""

from __future__ import annotations

import os
import threading
import warnings

__all__ = ["_BUILTIN_BACKENDS", "_autoload_backends", "_load_builtin_backends"]

_BUILTIN_BACKENDS = (
    "cuda",
    "metal",
    "rocm",
    "trn",
    "opencl",
    "vulkan",
    "webgpu",
    "hexagon",
    "adreno",
)

_AUTO_LOAD_DONE = False


def _load_builtin_backends() -> None:
    """Load each built-in backend package that is present; absent ones are skipped."""
    from .. import base
    from .loader import load

    for name in _BUILTIN_BACKENDS:
        try:
            load(name)
        except ImportError:
            continue  # this build has no such backend package
        except Exception as err:  # noqa: BLE001 - one broken backend must not break import
            warnings.warn(f"Failed to load built-in tvm backend '{name}': {err}")
    # pytvm has no separate extra runtime library; record it as present, as TVM does.
    if "tvm_runtime_extra" not in base._LOADED_LIBS:
        base._LOADED_LIBS["tvm_runtime_extra"] = base.LibrarySentinel("tvm_runtime_extra")


def _autoload_backends() -> None:
    """Load built-in backends and call every ``tvm.backends`` entry point, once per process."""
    global _AUTO_LOAD_DONE
    if _AUTO_LOAD_DONE:
        return
    # Another thread waits for the first one's loads instead of going on without the
    # backends (issue 22); the loading thread itself may come back here (re-entry).
    with _AUTO_LOAD_LOCK:
        if _AUTO_LOAD_DONE or _AUTO_LOAD_RUNNING:
            return
        _AUTO_LOAD_RUNNING.append(True)
        try:
            _autoload_locked()
        finally:
            _AUTO_LOAD_RUNNING.clear()
            _AUTO_LOAD_DONE = True  # once, even when a load failed (it warned)


_AUTO_LOAD_LOCK = threading.RLock()
_AUTO_LOAD_RUNNING: list = []


def _autoload_locked() -> None:
    if os.environ.get("TVM_DEVICE_BACKEND_AUTOLOAD", "1") == "0":
        return

    from .. import base

    if not base._RUNTIME_ONLY:
        _load_builtin_backends()

    from importlib.metadata import entry_points

    for entry_pt in entry_points(group="tvm.backends"):
        try:
            entry_pt.load()()
        except Exception as e:  # noqa: BLE001 - reported as a warning, import continues
            warnings.warn(f"Failed to autoload tvm backend '{entry_pt.name}': {e}")
