"""The CUDA driver, through ``cuda.bindings.driver`` (the optional ``cuda`` extra).

This is the only module that imports ``cuda.bindings.driver``, and it does so lazily, on
the first call that needs the driver: ``import tvm`` and building CUDA source or cubins
never touch it.

Every ``cuda.bindings`` call returns a tuple whose first item is a ``CUresult``.
:func:`call` runs a driver function by name, raises ``RuntimeError`` naming the call and
the CUDA error (``cuMemAlloc(1024) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)``)
when the result is not ``CUDA_SUCCESS``, and returns the remaining value(s).

Without the package, or without ``libcuda.so.1`` (a machine with no NVIDIA driver), the
first call raises :class:`CUDADriverNotFoundError`, a ``RuntimeError`` that says so; nothing
crashes or hangs, and the failure is remembered so later calls fail at once.

Contexts: the driver API needs a current context per thread. :func:`ensure_context` retains
each device's primary context once (the context the CUDA runtime, PyTorch and CuPy also
use, so pointers are shared) and makes it current before device work.
"""

from __future__ import annotations

import threading

__all__ = [
    "CUDADriverNotFoundError",
    "call",
    "check",
    "device_count",
    "ensure_context",
    "get_driver",
    "reset",
]

NO_DRIVER_MESSAGE = "no CUDA driver (libcuda.so.1) found; CUDA source and cubins can still be built"
NO_BINDINGS_MESSAGE = (
    "the CUDA runtime needs the cuda-bindings package (pip install 'pytvm-compiler[cuda]', i.e. "
    "'cuda-bindings>=13,<14'); CUDA source and cubins can still be built without it"
)


class CUDADriverNotFoundError(RuntimeError):
    """No usable CUDA driver: ``cuda-bindings`` is missing, or ``libcuda.so.1`` is."""


_LOCK = threading.Lock()
_DRIVER = None  # the cuda.bindings.driver module, once cuInit succeeded
_INIT_ERROR: str | None = None  # why initialisation failed, remembered
_PRIMARY_CONTEXTS: dict = {}  # device index -> retained primary context
_DEVICE_COUNT: int | None = None


def reset() -> None:
    """Forget the driver module, contexts and remembered failure (tests swap drivers)."""
    global _DRIVER, _INIT_ERROR, _DEVICE_COUNT
    with _LOCK:
        _DRIVER = None
        _INIT_ERROR = None
        _DEVICE_COUNT = None
        _PRIMARY_CONTEXTS.clear()


def _import_bindings():
    # Lazy: cuda-bindings is an optional extra, and importing it costs ~100 ms.
    from cuda.bindings import driver

    return driver


def get_driver():
    """The initialised ``cuda.bindings.driver`` module (``cuInit`` has run).

    Raises
    ------
    CUDADriverNotFoundError
        When cuda-bindings is not installed, libcuda.so.1 cannot be loaded, or cuInit fails.
    """
    global _DRIVER, _INIT_ERROR
    driver = _DRIVER
    if driver is not None:
        return driver
    with _LOCK:
        if _DRIVER is not None:
            return _DRIVER
        if _INIT_ERROR is not None:
            raise CUDADriverNotFoundError(_INIT_ERROR)
        try:
            module = _import_bindings()
        except ImportError as err:
            _INIT_ERROR = f"{NO_BINDINGS_MESSAGE} ({err})"
            raise CUDADriverNotFoundError(_INIT_ERROR) from err
        try:
            result = module.cuInit(0)
        except Exception as err:  # the loader raises several kinds (see below)
            # cuda-bindings 13.0 raises RuntimeError("Failed to dlopen libcuda.so.1"); 13.5
            # raises cuda.pathfinder's DynamicLibNotFoundError (a RuntimeError subclass).
            _INIT_ERROR = f"{NO_DRIVER_MESSAGE} ({type(err).__name__}: {err})"
            raise CUDADriverNotFoundError(_INIT_ERROR) from err
        code = _result_code(result[0])
        if code != 0:
            name = _enum_name(module, result[0])
            _INIT_ERROR = (
                f"the CUDA driver failed to initialise: cuInit(0) returned {name}; "
                "CUDA source and cubins can still be built"
            )
            raise CUDADriverNotFoundError(_INIT_ERROR)
        _DRIVER = module
        return module


def _result_code(value) -> int:
    return int(value)


def _enum_name(module, err) -> str:
    try:
        return module.CUresult(int(err)).name
    except (ValueError, AttributeError, TypeError):
        return f"CUresult {int(err)}"


def _text(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode(errors="replace")
    return str(value)


def error_text(module, err) -> str:
    """``"NAME (description)"`` for a ``CUresult``; falls back to the enum name."""
    name = _enum_name(module, err)
    try:
        got_name = module.cuGetErrorName(err)
        got_text = module.cuGetErrorString(err)
    except Exception:  # noqa: BLE001 - describing an error must never raise another
        return name
    if _result_code(got_name[0]) == 0 and got_name[1]:
        name = _text(got_name[1])
    if _result_code(got_text[0]) == 0 and got_text[1]:
        return f"{name} ({_text(got_text[1])})"
    return name


def _describe_call(name: str, args) -> str:
    shown = []
    for arg in args:
        text = repr(arg)
        if isinstance(arg, (bytes, bytearray)):
            text = f"<{len(arg)} bytes>"
        elif len(text) > 60:
            text = f"<{type(arg).__name__}>"
        shown.append(text)
    return f"{name}({', '.join(shown)})"


def check(result, what: str):
    """Unpack a ``cuda.bindings`` result tuple; raise ``RuntimeError`` on an error code.

    Returns None for a bare ``(CUresult,)``, the value for ``(CUresult, value)`` and a tuple
    of the values otherwise. ``what`` names the call in the message.
    """
    if not isinstance(result, tuple):
        result = (result,)
    if _result_code(result[0]) != 0:
        module = _DRIVER if _DRIVER is not None else _import_bindings()
        raise RuntimeError(f"{what} failed: {error_text(module, result[0])}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def call(name: str, *args):
    """Call the driver function ``name`` with ``args`` and unpack its result (see :func:`check`).

    Examples
    --------
    >>> ptr = call("cuMemAlloc", 1024)          # doctest: +SKIP
    """
    module = get_driver()
    try:
        function = getattr(module, name)
    except AttributeError as err:
        raise RuntimeError(
            f"the installed cuda-bindings has no {name}; pytvm needs cuda-bindings>=13,<14"
        ) from err
    return check(function(*args), _describe_call(name, args))


def device_count() -> int:
    """Number of CUDA devices the driver reports (raises when there is no driver)."""
    global _DEVICE_COUNT
    if _DEVICE_COUNT is None:
        _DEVICE_COUNT = int(call("cuDeviceGetCount"))
    return _DEVICE_COUNT


def cu_device(index: int):
    """The ``CUdevice`` handle of device ``index``; ``ValueError`` when it does not exist."""
    count = device_count()
    if not 0 <= int(index) < count:
        raise ValueError(f"cuda({index}) does not exist: the driver reports {count} device(s)")
    return call("cuDeviceGet", int(index))


def ensure_context(index: int):
    """Make device ``index``'s primary context current on this thread; returns it.

    The primary context is retained once per device and kept for the life of the process.
    """
    context = _PRIMARY_CONTEXTS.get(index)
    if context is None:
        with _LOCK:
            context = _PRIMARY_CONTEXTS.get(index)
        if context is None:
            device = cu_device(index)
            context = call("cuDevicePrimaryCtxRetain", device)
            with _LOCK:
                _PRIMARY_CONTEXTS.setdefault(index, context)
                context = _PRIMARY_CONTEXTS[index]
    call("cuCtxSetCurrent", context)
    return context


def handle_value(handle) -> int:
    """The integer address inside a driver handle (``CUdeviceptr``, ``CUstream``...)."""
    if handle is None:
        return 0
    if isinstance(handle, int):
        return handle
    return int(handle)
