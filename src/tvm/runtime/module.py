"""``tvm.runtime.Module``: compiled functions callable through tvm_ffi, and ``load_module``.

A :class:`Module` wraps either a ``tvm_ffi.Module`` (a shared library loaded from disk) or a
backend *implementation* object, such as the LLVM backend's in-process JIT library. Functions
come back as raw ``tvm_ffi.Function`` objects, so ``mod["add"](a, b, c)`` costs what a tvm_ffi
call costs (about 0.1 us with ``tvm_ffi.Tensor`` arguments, 0.4 us with NumPy arrays).

The implementation protocol (duck-typed; see ``tvm.backend.llvm.module.LLVMModuleImpl``):

- ``kind`` (str) and ``entry_name`` (str);
- ``get_function(name) -> tvm_ffi.Function | None`` and ``function_names() -> list[str]``;
- ``inspect_source(fmt) -> str`` and ``write_to_file(path, fmt)``;
- ``get_write_formats() -> list[str]``;
- ``export_objects(workspace_dir) -> list[str]``: write relocatable object files for
  ``export_library`` (optional: modules without it are not exportable).

Unlike TVM 0.27, :class:`Module` is a Python class, not a ``tvm_ffi.Module`` subclass; use
:attr:`Module.ffi_module` to reach the underlying ``tvm_ffi.Module`` of a loaded library.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence

import tvm_ffi

from . import device_api as _device_api
from .hooks import get_runtime_hook


class BenchmarkResult:
    """Timing results of :meth:`Module.time_evaluator`, in seconds per call, one per repeat.

    Parameters
    ----------
    results : sequence of float
        The mean time of one call in each repeat, in seconds.
    """

    def __init__(self, results: Sequence[float]):
        self.results = tuple(float(r) for r in results)
        if not self.results:
            raise ValueError("BenchmarkResult needs at least one measurement")
        import statistics  # lazy: 2-3 ms (decimal, fractions) on every first build otherwise

        self.mean = statistics.fmean(self.results)
        self.median = statistics.median(self.results)
        self.min = min(self.results)
        self.max = max(self.results)
        self.std = statistics.pstdev(self.results)

    def __repr__(self) -> str:
        return (
            f"BenchmarkResult(min={self.min}, mean={self.mean}, median={self.median}, "
            f"max={self.max}, std={self.std}, results={list(self.results)})"
        )

    def __str__(self) -> str:
        header = (
            f"{'mean (ms)':>10}   {'median (ms)':>11}    {'max (ms)':>8}     "
            f"{'min (ms)':>8}     {'std (ms)':>8}"
        )
        values = (
            f"{self.mean * 1e3:>10.4f}   {self.median * 1e3:>11.4f}    {self.max * 1e3:>8.4f}     "
            f"{self.min * 1e3:>8.4f}     {self.std * 1e3:>8.4f}"
        )
        return f"Execution time summary:\n{header}\n{values}"


class Module:
    """A runtime module: named compiled functions plus imported modules.

    Parameters
    ----------
    impl : tvm_ffi.Module or backend implementation
        What provides the functions (see the module docstring for the protocol).

    Examples
    --------
    >>> mod = tvm.runtime.load_module("add.so")     # doctest: +SKIP
    >>> mod["add"](a, b, c)                          # doctest: +SKIP
    """

    def __init__(self, impl):
        self._impl = impl
        self._imports: list = []
        self._functions: dict = {}
        if isinstance(impl, tvm_ffi.Module):
            self._imports = [Module(m) for m in impl.imports]

    # -- identity --------------------------------------------------------------------------
    @property
    def ffi_module(self) -> tvm_ffi.Module | None:
        """The wrapped ``tvm_ffi.Module``, or None for an in-process (JIT) module."""
        return self._impl if isinstance(self._impl, tvm_ffi.Module) else None

    @property
    def impl(self):
        """The backend implementation object (or ``tvm_ffi.Module``) behind this module."""
        return self._impl

    @property
    def kind(self) -> str:
        """The module kind: ``"llvm"`` for the LLVM JIT, ``"library"`` for a loaded .so."""
        return str(self._impl.kind)

    @property
    def type_key(self) -> str:
        """Alias of :attr:`kind` (the pre-tvm_ffi spelling)."""
        return self.kind

    @property
    def entry_name(self) -> str:
        """The name of the entry function that :meth:`__call__` runs."""
        return str(getattr(self._impl, "entry_name", "main"))

    @property
    def entry_func(self) -> tvm_ffi.Function:
        """The entry function (see :attr:`entry_name`)."""
        return self.get_function(self.entry_name)

    def __call__(self, *args):
        return self.entry_func(*args)

    def __repr__(self) -> str:
        return f"Module(kind={self.kind!r}, functions={self.function_names()!r})"

    # -- functions -------------------------------------------------------------------------
    def function_names(self) -> list:
        """Names of the functions this module itself defines (when the backend can list them)."""
        names = getattr(self._impl, "function_names", None)
        return list(names()) if names is not None else []

    def _lookup(self, name: str, query_imports: bool):
        func = self._functions.get(name)
        if func is not None:
            return func
        if isinstance(self._impl, tvm_ffi.Module):
            func = (
                self._impl.get_function(name, False)
                if self._impl.implements_function(name)
                else None
            )
        else:
            func = self._impl.get_function(name)
        if func is not None:
            self._functions[name] = func
            return func
        if query_imports:
            for imported in self._imports:
                func = imported._lookup(name, True)
                if func is not None:
                    return func
        return None

    def get_function(self, name: str, query_imports: bool = False) -> tvm_ffi.Function:
        """Return the function ``name`` as a ``tvm_ffi.Function``.

        Raises ``AttributeError`` ("Module has no function 'name'") when it does not exist.
        """
        func = self._lookup(name, query_imports)
        if func is None:
            raise AttributeError(f"Module has no function '{name}'")
        return func

    def __getitem__(self, name: str) -> tvm_ffi.Function:
        if not isinstance(name, str):
            raise TypeError(f"function name must be a str, got {type(name).__name__}")
        return self.get_function(name, query_imports=True)

    def __contains__(self, name: str) -> bool:
        return self.implements_function(name, query_imports=True)

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        """Whether the module (and, with ``query_imports``, its imports) defines ``name``."""
        return self._lookup(name, query_imports) is not None

    # -- imports ---------------------------------------------------------------------------
    @property
    def imports(self) -> list:
        """The imported modules (a copy of the list)."""
        return list(self._imports)

    def import_module(self, module: Module) -> None:
        """Import ``module``: ``get_function(..., query_imports=True)`` searches it too."""
        if not isinstance(module, Module):
            raise TypeError(
                f"import_module expects a tvm.runtime.Module, got {type(module).__name__}"
            )
        if module is self:
            raise ValueError("a module cannot import itself")
        self._imports.append(module)

    def clear_imports(self) -> None:
        """Remove all imported modules."""
        self._imports.clear()

    # -- source and files ------------------------------------------------------------------
    def inspect_source(self, fmt: str = "") -> str:
        """Return the module's source: ``"ll"`` (LLVM IR), ``"asm"``/``"s"``; ``""`` = default.

        A library loaded from disk keeps no source and returns ``""``.
        """
        return self._impl.inspect_source(fmt)

    def get_source(self, fmt: str = "") -> str:
        """Alias of :meth:`inspect_source`."""
        return self.inspect_source(fmt)

    def get_write_formats(self) -> list:
        """Formats :meth:`write_to_file` accepts."""
        return list(self._impl.get_write_formats())

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        """Write the module's ``"ll"``, ``"s"`` or ``"o"`` form to ``file_name``."""
        self._impl.write_to_file(file_name, fmt)

    def is_runnable(self) -> bool:
        """Whether functions of this module can be called in this process."""
        return True

    def is_compilation_exportable(self) -> bool:
        """Whether :meth:`export_library` can include this module."""
        return hasattr(self._impl, "export_objects")

    def _collect_exportable(self) -> list:
        found, stack, seen = [], [self], set()
        while stack:
            mod = stack.pop()
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            if mod.is_compilation_exportable():
                found.append(mod)
            elif not isinstance(mod._impl, tvm_ffi.Module):
                raise ValueError(
                    f"module of kind '{mod.kind}' cannot be exported by export_library"
                )
            stack.extend(reversed(mod._imports))
        return found

    def export_library(
        self,
        file_name,
        *,
        fcompile=None,
        fpack_imports=None,
        addons=None,
        workspace_dir=None,
        **kwargs,
    ) -> str:
        """Write this module and its imports as a shared library loadable by :func:`load_module`.

        Object files are produced in-process by the backends; linking them needs a C compiler
        driver (``$CC``, else ``cc``/``gcc``/``clang``), unless ``fcompile`` is given.
        A ``.o`` file name writes the single object file instead (no linker needed).

        Parameters
        ----------
        file_name : str or os.PathLike
            The output path (``.so``, ``.dylib``, or ``.o``).
        fcompile : callable, optional
            ``fcompile(file_name, object_files, **kwargs)`` replaces the default linker.
        fpack_imports, addons : not supported
            Must be None (no device-code packing yet).
        workspace_dir : str, optional
            Where to write intermediate object files (default: a temporary directory).
        **kwargs
            Passed to ``fcompile``; the default linker takes ``options`` (extra arguments)
            and ``cc`` (the compiler driver to use).

        Returns
        -------
        str
            ``file_name``.
        """
        if fpack_imports is not None or addons:
            raise ValueError(
                "export_library: fpack_imports and addons are not supported "
                "(no device-code modules exist yet)"
            )
        file_name = os.fspath(file_name)
        modules = self._collect_exportable()
        if not modules:
            raise ValueError(
                "export_library: nothing to export (no module with compiled code; a library "
                "loaded from disk cannot be exported again)"
            )
        with tempfile.TemporaryDirectory(prefix="pytvm_export_") as tmp:
            work = workspace_dir or tmp
            os.makedirs(work, exist_ok=True)
            objects = []
            for index, mod in enumerate(modules):
                sub = os.path.join(work, f"lib{index}")
                os.makedirs(sub, exist_ok=True)
                objects.extend(mod._impl.export_objects(sub))
            objects = _dedupe_runtime_objects(objects)
            if file_name.endswith(".o"):
                if len(objects) != 1:
                    raise ValueError(
                        f"export_library to '{file_name}' needs exactly one object file, "
                        f"got {len(objects)}; export a shared library (.so) instead"
                    )
                shutil.copyfile(objects[0], file_name)
                return file_name
            if fcompile is not None:
                fcompile(file_name, objects, **kwargs)
                return file_name
            unknown = sorted(set(kwargs) - {"options", "cc"})
            if unknown:
                raise TypeError(
                    f"export_library got unexpected keyword arguments {unknown}; "
                    "the default linker takes 'options' and 'cc'"
                )
            link_shared(file_name, objects, kwargs.get("options") or (), cc=kwargs.get("cc"))
        return file_name

    # -- timing ----------------------------------------------------------------------------
    def time_evaluator(
        self,
        func_name: str,
        dev,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: int = 0,
        limit_zero_time_iterations: int = 100,
        cooldown_interval_ms: int = 0,
        repeats_to_cooldown: int = 1,
        cache_flush_bytes: int = 0,
        f_preproc: str = "",
    ) -> Callable:
        """Return ``f(*args) -> BenchmarkResult`` timing ``func_name`` on ``dev``.

        Each of ``repeat`` measurements runs the function ``number`` times and records the
        mean time per call; when ``min_repeat_ms`` > 0, ``number`` grows until one repeat
        takes at least that long. On CPU, timing happens in Python (``time.perf_counter``),
        so each call includes ~0.1 us of Python loop overhead; other devices time with their
        device API's timer (CUDA events around the calls).
        """
        if f_preproc:
            raise ValueError(f"time_evaluator: f_preproc={f_preproc!r} is not supported")
        device_type = _device_type(dev)
        # Non-CPU devices time on the device through their device API (CUDA: events on the
        # current stream); ValueError when no backend registered one.
        timer = _device_timer(dev) if device_type != 1 else None
        if number < 1 or repeat < 1:
            raise ValueError(
                f"time_evaluator needs number >= 1 and repeat >= 1, got {number}, {repeat}"
            )
        func = self.get_function(func_name, query_imports=True)
        flush = bytearray(cache_flush_bytes) if cache_flush_bytes > 0 else None

        def evaluator(*args) -> BenchmarkResult:
            func(*args)  # warm up: first-call costs (page faults, lazy pool start) are excluded
            results, count = [], number
            for index in range(repeat):
                if index > 0 and cooldown_interval_ms > 0 and index % repeats_to_cooldown == 0:
                    time.sleep(cooldown_interval_ms / 1e3)
                zero_runs = 0
                while True:
                    if flush is not None:
                        flush[::64] = bytes(len(flush[::64]))
                    if timer is not None:
                        timer.start()
                        for _ in range(count):
                            func(*args)
                        timer.stop()
                        elapsed = timer.elapsed_seconds()
                    else:
                        start = time.perf_counter()
                        for _ in range(count):
                            func(*args)
                        elapsed = time.perf_counter() - start
                    if elapsed == 0.0 and zero_runs < limit_zero_time_iterations:
                        zero_runs += 1
                        continue
                    if min_repeat_ms <= 0 or elapsed * 1e3 >= min_repeat_ms:
                        break
                    # Grow toward min_repeat_ms, as TVM does, at least doubling each time.
                    scale = min_repeat_ms / max(elapsed * 1e3, 1e-6)
                    count = max(count * 2, int(count * scale * 1.1))
                results.append(elapsed / count)
            return BenchmarkResult(results)

        return evaluator


def _device_timer(dev):
    """A ``DeviceTimer`` for a non-CPU device (from the runtime's device-API table)."""
    if isinstance(dev, str):
        dev = tvm_ffi.device(dev)
    return _device_api.get_device_api(dev.dlpack_device_type()).create_timer(dev)


def _device_type(dev) -> int:
    if dev is None:
        return 1
    if hasattr(dev, "dlpack_device_type"):
        return int(dev.dlpack_device_type())
    if isinstance(dev, str):
        return 1 if dev in ("cpu", "llvm") else -1
    return int(getattr(dev, "device_type", -1))


def _dedupe_runtime_objects(objects: list) -> list:
    """Keep one copy of runtime support objects that several modules asked for."""
    seen, result = set(), []
    for path in objects:
        base = os.path.basename(path)
        if base.startswith("pytvm_runtime_"):
            if base in seen:
                continue
            seen.add(base)
        result.append(path)
    return result


def find_linker(cc: str | None = None) -> str | None:
    """The C compiler driver that links shared libraries: ``cc``, else ``$CC``, else the first
    of ``cc``, ``gcc``, ``clang`` on PATH; None when there is none."""
    if cc:
        candidates = [cc]
    elif os.environ.get("CC"):
        candidates = [os.environ["CC"]]
    else:
        candidates = ["cc", "gcc", "clang"]
    for name in candidates:
        path = shutil.which(name)
        if path:
            return path
    return None


def link_shared(
    file_name: str, objects: Sequence[str], options: Sequence[str] = (), cc: str | None = None
) -> None:
    """Link ``objects`` into the shared library ``file_name`` against libtvm_ffi.

    Raises ``RuntimeError`` when no linker exists or linking fails (with the linker output).
    """
    linker = find_linker(cc)
    if linker is None:
        wanted = cc or os.environ.get("CC") or "cc, gcc or clang"
        raise RuntimeError(
            f"export_library('{file_name}') needs a C compiler driver to link the shared library, "
            f"but {wanted} was not found on PATH. Install one (e.g. gcc), set $CC, pass "
            "fcompile=..., or export an object file ('.o') instead. In-process use needs no linker."
        )
    lib = tvm_ffi.libinfo.find_libtvm_ffi()
    lib_dir = os.path.dirname(lib)
    cmd = [
        linker,
        "-shared",
        "-fPIC",
        "-o",
        file_name,
        *objects,
        f"-L{lib_dir}",
        "-ltvm_ffi",
        f"-Wl,-rpath,{lib_dir}",
        *options,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"linking '{file_name}' failed (exit {proc.returncode}):\n"
            f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
        )


def enabled(target) -> bool:
    """Whether code for ``target`` can be generated and run here (``tvm.runtime.enabled``).

    ``target`` is a kind or target string (only its kind counts): ``"cpu"`` is always
    enabled; ``"llvm"`` needs llvmlite; ``"c"`` a C compiler (``cc``/``gcc``/``clang``,
    ``$CC``); a device kind (``"cuda"``, ``"gpu"`` for cuda) needs its device API, which its
    backend registers (having a device is another question: ``tvm.cuda().exist``).
    """
    import importlib.util  # lazy: only this check needs it

    kind = str(target).split()[0] if str(target).strip() else ""
    if kind == "cpu":
        return True
    if kind == "llvm":
        return importlib.util.find_spec("llvmlite") is not None
    if kind == "c":
        return find_linker() is not None
    names = {name: code for code, name in _device_api._DEVICE_TYPE_NAMES.items()}
    code = names.get("cuda" if kind == "gpu" else kind)
    return code is not None and _device_api.has_device_api(code)


def load_module(path, fmt: str = "") -> Module:
    """Load a shared library written by :meth:`Module.export_library` (or any TVM-FFI library).

    Raises ``ValueError`` when the file does not exist or is not a shared library.
    """
    # Absolute: the dynamic loader searches the library path for a bare "k.so", not the cwd.
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise ValueError(f"cannot find file {path}")
    if not path.endswith((".so", ".dylib", ".dll")) and fmt not in ("so", "dylib", "dll"):
        raise ValueError(
            f"load_module('{path}'): only shared libraries (.so, .dylib, .dll) can be loaded"
        )
    ffi_mod = tvm_ffi.load_module(path)
    _connect_parallel_runtime(path)
    module = Module(ffi_mod)
    module.library_path = path  # named by errors about the library's contents
    return module


def _connect_parallel_runtime(path: str) -> None:
    """Point an exported library's parallel-launch hook at this process's thread pool."""
    import ctypes

    try:
        lib = ctypes.CDLL(path)
        hook = ctypes.c_void_p.in_dll(lib, "__pytvm_parallel_launch_fptr")
    except (OSError, ValueError):
        return  # not a library with parallel code: nothing to connect
    if hook.value:
        return
    # The pool belongs to a backend (llvm), which registers this hook (tvm.runtime.hooks).
    hook.value = get_runtime_hook("parallel_launch_address")()


def system_lib(symbol_prefix: str = "") -> Module:
    """The module of functions registered in this process's system library (``tvm_ffi``)."""
    return Module(tvm_ffi.system_lib(symbol_prefix))


def num_threads() -> int:
    """Number of threads parallel loops of compiled code run on (``TVM_NUM_THREADS`` or CPUs)."""
    return get_runtime_hook("num_threads")()
