"""pytvm: the TVM deep-learning compiler stack in Python, importable as ``tvm``.

The import order follows Apache TVM: ``tvm_ffi`` re-exports, version and base, runtime,
error kinds, the backends, the ``sys.excepthook`` wrapper, and as the very last statement the
backend autoload. The compiler layers (``ir`` ... ``script``, ``driver``) are imported on
first use, all of them at once and bottom to top (``_load_compiler_layers``): ``import tvm``
itself then costs about what ``tvm_ffi`` does (issue 23, ``benchmarks/import_time.py``).
An autoload hook that touches a layer (``tvm.relax``...) imports them then.

Every layered package is listed once in ``_COMPILER_LAYERS`` (a missing package is skipped;
a broken one raises), so a new layer package needs no edit here; a new top-level package
adds its name there. ``tvm.testing`` and other optional packages are imported on first
attribute access too.
"""

# ruff: noqa: I001
import os as _os
import sys as _sys
import importlib as _importlib
import threading as _threading

# --- Apache TVM in the same environment: both are the `tvm` package ------------------------
def _check_no_apache_tvm():
    """Raise ImportError when the apache-tvm distribution shares this environment.

    Both install the package `tvm`; whichever was installed last overwrites files of the other,
    and the mix fails in odd places. Looked up as its dist-info directory next to this package
    or on sys.path (a directory listing each, no metadata parsing).
    """
    here = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    for entry in dict.fromkeys([here, *_sys.path]):
        try:
            names = _os.listdir(entry or ".")
        except OSError:
            continue
        clash = next((n for n in names if n.startswith("apache_tvm-") and n.endswith(
            (".dist-info", ".egg-info"))), None)
        if clash is not None:
            raise ImportError(
                f"Apache TVM ({clash} in {entry}) is installed in the same environment as "
                "pytvm. Both provide the `tvm` package and break each other. Use separate "
                "virtual environments (pip uninstall apache-tvm here, or install pytvm in a "
                "fresh venv)."
            )


_check_no_apache_tvm()


# --- tvm_ffi, without importing PyTorch on the way -----------------------------------------
def _import_tvm_ffi_without_torch():
    """Import ``tvm_ffi`` so that it does not import PyTorch when the program has not.

    tvm_ffi 0.1.15 runs ``import torch`` at its own import when torch is installed, which makes
    ``import tvm`` take seconds. Unless the program imported torch already (then nothing
    changes) or ``PYTVM_FFI_IMPORTS_TORCH=1`` is set, torch is hidden for the length of that
    one import. What the user gives up, measured with torch 2.13: nothing for tensors (torch
    tensors still cross by DLPack, zero-copy, through ``__dlpack_c_exchange_api__``); only
    tvm_ffi's own ``torch.dtype`` -> dtype table and ``tvm_ffi.use_torch_stream`` are not set
    up, as when torch is not installed.
    """
    if "tvm_ffi" in _sys.modules or "torch" in _sys.modules:
        return
    if _os.environ.get("PYTVM_FFI_IMPORTS_TORCH", "") not in ("", "0"):
        return
    _sys.modules["torch"] = None  # `import torch` raises ImportError while this is set
    try:
        _importlib.import_module("tvm_ffi")
    finally:
        if "torch" in _sys.modules and _sys.modules["torch"] is None:
            del _sys.modules["torch"]


_import_tvm_ffi_without_torch()

# --- tvm_ffi re-exports --------------------------------------------------------------------
# `X as X`: an explicit re-export (`mypy --strict` in user code accepts `tvm.X` only then).
from tvm_ffi import (
    Object as Object,
    get_global_func as get_global_func,
    register_global_func as register_global_func,
    register_object as register_object,
)

# --- version and base ----------------------------------------------------------------------
from .libinfo import __version__ as __version__
from .base import _RUNTIME_ONLY
from . import base as base, libinfo as libinfo, ffi as ffi

# --- runtime --------------------------------------------------------------------------------
from . import runtime as runtime
from .runtime import (
    Device as Device,
    cpu as cpu,
    cuda as cuda,
    device as device,
    ext_dev as ext_dev,
    hexagon as hexagon,
    metal as metal,
    opencl as opencl,
    rocm as rocm,
    vpi as vpi,
    vulkan as vulkan,
)

# --- error kinds ----------------------------------------------------------------------------
from . import error as error


def _import_layer(name):
    """Import ``tvm.<name>`` if that package exists; a missing one is skipped, not an error."""
    full_name = f"{__name__}.{name}"
    try:
        return _importlib.import_module(full_name)
    except ModuleNotFoundError as err:
        if err.name != full_name:
            raise  # the package exists but one of its imports is broken
        return None


# --- compiler layers: imported on first use (issue 23: `import tvm` stays fast) -------------
# The packages below used to be imported here, bottom to top; together they were ~85% of
# `import tvm`. Now the first access to any of them (`tvm.relax`, `from tvm import tirx`,
# `tvm.compile`, `tvm.IRModule`...) imports all of them, in this order, under a lock, so
# every registration a layer makes into a lower one's tables is in place exactly as it was.
# `import tvm.relax` (an import statement naming the package) imports that package and what
# it depends on, as for any Python package.
_COMPILER_LAYERS = ("ir", "target", "arith", "sym", "tirx", "s_tir", "te", "topi", "relax",
                    "script")
_LAYER_NAMES = frozenset(_COMPILER_LAYERS + ("driver",))
# Names re-exported from the layers: name -> (package, attribute).
_LAYER_EXPORTS = {
    "IRModule": ("ir", "IRModule"),
    "transform": ("ir", "transform"),
    "instrument": ("ir", "instrument"),
    "build": ("driver", "build"),
    "compile": ("driver", "compile"),
}
_LAYERS_LOCK = _threading.RLock()
_LAYERS_LOADED = False


def _load_compiler_layers():
    """Import every compiler layer, bottom to top, once (thread-safe; re-entrant)."""
    global _LAYERS_LOADED
    if _LAYERS_LOADED:
        return
    with _LAYERS_LOCK:
        if _LAYERS_LOADED:
            return
        if not _RUNTIME_ONLY:
            for name in _COMPILER_LAYERS:
                _import_layer(name)
            _import_layer("driver")
        _LAYERS_LOADED = True  # published only after every layer finished importing


_import_layer("backend")

try:
    from .runtime.data_type import DataType as DataType, DataTypeCode as DataTypeCode
except ImportError:  # pragma: no cover - before tvm/runtime/data_type.py is complete
    pass


def device_from_target(target, index=None):
    """The runtime device of a compilation target's device type.

    Parameters
    ----------
    target : str, dict or tvm.target.Target
        The target (``"llvm"`` gives a CPU device, ``"cuda"`` a CUDA device...).
    index : int, optional
        The device index (0 when None).

    Returns
    -------
    Device
    """
    from .target import Target

    if not isinstance(target, Target):
        target = Target(target)
    return device(target.get_target_device_type(), 0 if index is None else int(index))


# Imported on first access (``tvm.testing.<x>``) so ``import tvm`` stays fast.
_LAZY_SUBMODULES = ("testing", "examples", "contrib", "support", "exec", "meta_schedule")


# Type checkers and editors do not run __getattr__: they see the lazy names here.
from typing import TYPE_CHECKING as _TYPE_CHECKING  # typing is loaded by tvm_ffi already

# `X as X` makes each an explicit re-export (`mypy --strict` in user code: `tvm.compile`).
if _TYPE_CHECKING:
    from . import (
        ir as ir, target as target, arith as arith, sym as sym, tirx as tirx, s_tir as s_tir,
        te as te, topi as topi, relax as relax, script as script, driver as driver,
    )
    from .ir import IRModule as IRModule, transform as transform, instrument as instrument
    from .driver import build as build, compile as compile


def __getattr__(name):
    if name in _LAYER_NAMES:
        _load_compiler_layers()
        module = _sys.modules.get(f"{__name__}.{name}")
        if module is not None:
            return module
    elif name in _LAYER_EXPORTS:
        _load_compiler_layers()
        package, attribute = _LAYER_EXPORTS[name]
        module = _sys.modules.get(f"{__name__}.{package}")
        if module is not None and hasattr(module, attribute):
            value = getattr(module, attribute)
            globals()[name] = value
            return value
    elif name in _LAZY_SUBMODULES:
        module = _import_layer(name)
        if module is not None:
            return module
    raise AttributeError(f"module 'tvm' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAYER_NAMES | set(_LAYER_EXPORTS) | set(_LAZY_SUBMODULES))


# --- sys.excepthook: a short note for uncaught TVMScript errors -----------------------------
def _tvm_wrap_excepthook(original_hook):
    """Wrap ``sys.excepthook``: an uncaught ``DiagnosticError`` prints its message, no traceback.

    The parser's message shows the underlined source, so the Python traceback is noise unless
    ``TVM_BACKTRACE=1`` (or under pytest): the message (with the error kind) goes to stderr
    instead, and a note on ``TVM_BACKTRACE`` to stdout (as Apache TVM prints it). Child processes are always terminated.
    """

    def wrapper(exctype, value, trbk):
        text = _os.environ.get("TVM_BACKTRACE", "0")
        try:
            show_backtrace = bool(int(text))
        except ValueError:
            raise ValueError(
                f"invalid value for TVM_BACKTRACE {text}, please set to 0 or 1."
            ) from None
        in_pytest = "PYTEST_CURRENT_TEST" in _os.environ
        if (isinstance(exctype, type) and issubclass(exctype, error.DiagnosticError)
                and not show_backtrace and not in_pytest):
            # Issue 22: only the note was printed before; the message is what the user needs.
            # The note goes to stdout, as Apache TVM prints it.
            print(f"{exctype.__module__}.{exctype.__qualname__}: {value}", file=_sys.stderr)
            print("note: run with `TVM_BACKTRACE=1` environment variable to display a backtrace.")
        else:
            original_hook(exctype, value, trbk)
        multiprocessing = _sys.modules.get("multiprocessing")
        if multiprocessing is not None:  # no children can exist if it was never imported
            for child in multiprocessing.active_children():
                child.terminate()

    wrapper._tvm_original_hook = original_hook
    return wrapper


if not hasattr(_sys.excepthook, "_tvm_original_hook"):
    _sys.excepthook = _tvm_wrap_excepthook(_sys.excepthook)

# --- must stay the very last statement: autoload backends once the namespace is complete -----
from .backend._autoload_backends import _autoload_backends as _autoload

_autoload()
