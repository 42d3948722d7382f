"""Compile LLVM IR with packed-API functions into a ``tvm.runtime.Module`` (in-process JIT).

:func:`build_module` takes an llvmlite ``ir.Module`` (or LLVM IR text) whose exported
functions follow the TVM-FFI packed signature ``int32 __tvm_ffi_<name>(void*, TVMFFIAny*,
int32, TVMFFIAny*)``, optimizes it (O3 by default, host CPU features or the target's
``-mcpu``/``-mattr``), JIT-compiles it with MCJIT, and wraps every ``__tvm_ffi_<name>`` as a
``tvm_ffi.Function``. External symbols resolve to the process: ``TVMFFI*`` functions from
libtvm_ffi, ``TVMBackendParallelLaunch`` from the thread pool (see ``threadpool``), and libc.

Results are cached in memory by a SHA-256 of the IR text and the target options, so building
an unchanged module again returns the same ``runtime.Module`` object without compiling; the
object code is also cached on disk (``disk_cache``), so a new process skips O3 and codegen.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import hashlib
import os
import re
import threading

import tvm_ffi

from tvm.runtime.module import Module

from . import disk_cache, threadpool, workspace
from .target_machine import (
    _LOCK,
    TargetOptions,
    compile_ir,
    emit_assembly,
    emit_object,
    llvm_binding,
    new_target_machine,
    parse_ir,
    register_tvm_ffi_symbols,
)

PACKED_PREFIX = "__tvm_ffi_"
_CACHE_SIZE = 256
_CACHE: collections.OrderedDict[str, Module] = collections.OrderedDict()
# Part key -> (optimized IR text, object file) of parts compiled or loaded in this process.
_PARTS_SIZE = 128
_PARTS: collections.OrderedDict[str, tuple] = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()
_STATS = {"compiled": 0, "cache_hits": 0, "disk_hits": 0}


class LLVMModuleImpl:
    """The runtime-module implementation of one JIT-compiled LLVM module.

    It keeps the optimized LLVM IR text (``inspect_source("ll")``) and the object file MCJIT
    compiled (for ``export_library`` and the disk cache); the assembly is produced from the
    IR text on first request.
    """

    kind = "llvm"

    def __init__(self, name: str, ir_text, options: TargetOptions):
        self.name = name
        self.options = options
        # One optimized IR text per part (a build may be split into parts compiled in
        # parallel, see build_module); ``ir_text`` shows them one after the other.
        self.ir_texts = [ir_text] if isinstance(ir_text, str) else list(ir_text)
        self.ir_text = "\n".join(self.ir_texts)
        self._asm: str | None = None
        self._object: bytes | None = None
        self._engine = None
        self._functions: dict = {}
        self._callees: list = []  # functions the callee slots point at (kept alive)
        #: The triple of a module compiled for another architecture (not loaded), else None.
        self.cross_triple: str | None = None
        self._cross_names: list = []
        # Runtime functions the code calls; a shared library gets them linked in.
        self.runtime_symbols = set(_DECLARATION.findall(self.ir_text)) & set(_RUNTIME_OBJECTS)

    # -- compilation -------------------------------------------------------------------
    def jit(self) -> None:
        """Compile the (optimized) IR in-process and wrap the packed functions."""
        self.jit_objects([compile_ir(text, self.name, self.options, optimized=True)[1]
                          for text in self.ir_texts])

    def jit_object(self, obj: bytes) -> None:
        """Load an object file compiled earlier from ``ir_text`` (disk cache hit)."""
        self.jit_objects([obj])

    def jit_objects(self, objects) -> None:
        """Load the object files of the parts (in order) into one engine; wrap the functions."""
        llvm = llvm_binding()
        _resolve_symbols(_DECLARATION.findall(self.ir_text), self.name)
        with _LOCK:
            engine = llvm.create_mcjit_compiler(
                llvm.parse_assembly(""), new_target_machine(self.options)
            )
            for obj in objects:
                engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            engine.finalize_object()
        if len(objects) == 1 and not self._declares_checks():
            self._object = objects[0]  # self-contained: export can reuse it
        self._wrap_functions(engine, _PACKED_DEFINITION.findall(self.ir_text))

    def keep_cross_objects(self, objects) -> None:
        """Keep the object files of a module for another architecture (not loaded here).

        Its packed functions are listed by :meth:`function_names`; :meth:`get_function`
        raises for them (see :attr:`cross_triple`).
        """
        self.cross_triple = self.options.resolved_triple()
        if len(objects) == 1 and not self._declares_checks():
            self._object = objects[0]
        self._cross_names = [s[len(PACKED_PREFIX):]
                             for s in _PACKED_DEFINITION.findall(self.ir_text)]

    def _declares_checks(self) -> bool:
        return any(symbol.startswith("__pytvm_") for symbol in _DECLARATION.findall(self.ir_text))

    def _linked_module(self):
        """The parts' optimized IR linked into one module (for assembly and one object).

        The argument-check helpers the wrappers call (``packed_checks``; in-process they are
        one shared JIT copy) are linked in as internal definitions, so the object file is
        self-contained and several such objects link into one library.
        """
        mod = parse_ir(self.ir_texts[0], self.name)
        for text in self.ir_texts[1:]:
            # Internal helpers defined in several parts are renamed by the linker.
            mod.link_in(parse_ir(text, self.name))
        if self._declares_checks():
            from .packed_checks import CHECK_SYMBOLS, checks_ir  # lazy: imports llvmlite.ir

            mod.link_in(parse_ir(checks_ir(), "pytvm_checks"))
            for symbol in CHECK_SYMBOLS:
                mod.get_function(symbol).linkage = "internal"
        return mod

    def _wrap_functions(self, engine, symbols) -> None:
        self._engine = engine
        for symbol in symbols:
            address = engine.get_function_address(symbol)
            # keep_alive_object: the machine code lives as long as any Function using it.
            self._functions[symbol[len(PACKED_PREFIX) :]] = tvm_ffi.Function.__from_extern_c__(
                address, keep_alive_object=engine
            )

    def link_imports(self, imports) -> list:
        """Point the module's ``T.call_packed`` callee slots at functions of ``imports``.

        See :mod:`tvm.backend.llvm.call_packed`; the driver calls it after importing the
        device modules. Returns the callee names no import (nor a global function) has.
        """
        if "__pytvm_callee." not in self.ir_text or self.cross_triple is not None:
            return []  # nothing to link (a cross module is never loaded here)
        from .call_packed import link_callees, slot_symbols  # lazy: imports llvmlite.ir

        symbols = slot_symbols(self.ir_text)
        return link_callees(symbols, self._engine.get_global_value_address, imports,
                            self._callees)

    # -- runtime.Module implementation protocol ----------------------------------------
    @property
    def entry_name(self) -> str:
        """The default function: ``main``, unless the module has exactly one other function."""
        if "main" in self._functions or len(self._functions) != 1:
            return "main"
        return next(iter(self._functions))

    def function_names(self) -> list:
        """The names of the module's callable functions (without the ``__tvm_ffi_`` prefix)."""
        return list(self._functions) if self.cross_triple is None else list(self._cross_names)

    def get_function(self, name: str):
        """The callable ``tvm_ffi.Function`` named ``name``, or None when there is none.

        A function compiled for another target triple cannot run here: asking for it raises
        ``RuntimeError`` that says how to export it instead.
        """
        if self.cross_triple is not None and name in self._cross_names:
            raise RuntimeError(
                f"function '{name}' of module '{self.name}' was compiled for target triple "
                f"'{self.cross_triple}' and cannot run on this host; export it with "
                "export_library (a cross linker: fcompile or cc=...) and run it there"
            )
        return self._functions.get(name)

    def function_address(self, name: str) -> int:
        """The machine-code address of ``__tvm_ffi_<name>`` (valid while this module lives)."""
        if name not in self._functions:
            raise AttributeError(f"Module has no function '{name}'")
        return self._engine.get_function_address(PACKED_PREFIX + name)

    def assembly(self) -> str:
        """The target assembly (computed once)."""
        if self._asm is None:
            self._asm = emit_assembly(self._linked_module(), self.options)
        return self._asm

    def object_code(self) -> bytes:
        """The relocatable object file, one for all parts (computed once)."""
        if self._object is None:
            self._object = emit_object(self._linked_module(), self.options)
        return self._object

    def inspect_source(self, fmt: str = "") -> str:
        """The module's source text in format ``fmt``.

        Parameters
        ----------
        fmt : str
            ``""``, ``"ll"`` or ``"llvm"`` for the LLVM IR; ``"asm"`` or ``"s"`` for the assembly.

        Returns
        -------
        str

        Raises
        ------
        ValueError
            For any other format.
        """
        if fmt in ("", "ll", "llvm"):
            return self.ir_text
        if fmt in ("asm", "s"):
            return self.assembly()
        raise ValueError(
            f"Do not know how to get source code with format: '{fmt}'; "
            "the llvm module supports 'll' (LLVM IR) and 'asm'/'s' (assembly)"
        )

    def get_write_formats(self) -> list:
        """The formats :meth:`write_to_file` writes: ``ll`` (IR), ``s`` (assembly), ``o``."""
        return ["ll", "s", "o"]

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        """Write the LLVM IR, assembly or object code to ``file_name``.

        Parameters
        ----------
        file_name : str
        fmt : str, optional
            ``"ll"``, ``"s"``/``"asm"`` or ``"o"``; by default the file's extension.

        Raises
        ------
        ValueError
            For any other format.
        """
        fmt = fmt or os.path.splitext(file_name)[1].lstrip(".")
        if fmt in ("ll", "s", "asm"):
            with open(file_name, "w", encoding="utf-8") as out:
                out.write(self.inspect_source(fmt))
        elif fmt == "o":
            with open(file_name, "wb") as out:
                out.write(self.object_code())
        else:
            raise ValueError(f"cannot write an llvm module in format '{fmt}'; use 'll', 's' or 'o'")

    def export_objects(self, workspace_dir: str) -> list:
        """Write the object file(s) a shared library of this module needs; returns their paths."""
        path = os.path.join(workspace_dir, f"{_safe(self.name)}.o")
        with open(path, "wb") as out:
            out.write(self.object_code())
        paths = [path]
        for symbol in sorted(self.runtime_symbols):
            stem, make_ir = _RUNTIME_OBJECTS[symbol]
            path = os.path.join(workspace_dir, f"{stem}.o")
            if path not in paths:
                with open(path, "wb") as out:
                    out.write(_runtime_object(stem, make_ir, self.options))
                paths.append(path)
        return paths


# `define ... @__tvm_ffi_add(` or `@"__tvm_ffi_add"(` in LLVM IR text.
_PACKED_DEFINITION = re.compile(
    r'^define [^@]*@"?(' + PACKED_PREFIX + r'[\w.$]+)"?\(', re.MULTILINE
)
_DECLARATION = re.compile(r'^declare [^@]*@"?([\w.$]+)"?\(', re.MULTILINE)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name) or "module"


# Runtime symbol -> (object file stem, IR of its hidden definition for shared libraries).
# export_library keeps one object per stem even when several modules need it.
_RUNTIME_OBJECTS = {
    threadpool.LAUNCH_SYMBOL: ("pytvm_runtime_parallel", threadpool.parallel_stub_ir),
    workspace.ALLOC_SYMBOL: ("pytvm_runtime_workspace", lambda: workspace.workspace_ir(True)),
    workspace.FREE_SYMBOL: ("pytvm_runtime_workspace", lambda: workspace.workspace_ir(True)),
}

_RUNTIME_OBJECT_CACHE: dict = {}


def _runtime_object(stem: str, make_ir, options: TargetOptions) -> bytes:
    key = (stem, options.key())
    if key not in _RUNTIME_OBJECT_CACHE:
        _RUNTIME_OBJECT_CACHE[key] = compile_ir(make_ir(), stem, options)[1]
    return _RUNTIME_OBJECT_CACHE[key]


def _resolve_symbols(symbols, module_name: str) -> None:
    """Make a module's external tvm_ffi and runtime symbols resolvable by the JIT."""
    register_tvm_ffi_symbols(symbols, module_name)
    if any(symbol.startswith("__pytvm_") for symbol in symbols):
        # Lazy: packed_checks imports llvmlite.ir (never at `import tvm.backend.llvm`).
        from . import packed_checks

        packed_checks.register_symbols()
    if threadpool.LAUNCH_SYMBOL in symbols:
        threadpool.launch_address()  # compiles the pool once and registers the symbol
    if any(symbol in symbols for symbol in workspace.SYMBOLS):
        workspace.register_symbols()


def cache_key(ir_text: str, options: TargetOptions) -> str:
    """The compilation cache key: SHA-256 of the IR text and the target options."""
    return disk_cache.cache_key(ir_text, options.key())


#: Threads that compile the parts of one build (None: the CPUs this process may use).
COMPILE_THREADS: int | None = None


def compile_threads() -> int:
    """How many threads :func:`build_module` uses for a build of several parts."""
    if COMPILE_THREADS is not None:
        return max(1, int(COMPILE_THREADS))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


_EXECUTOR: list = [None, 0]  # (ThreadPoolExecutor, its size), made on first use
_EXECUTOR_LOCK = threading.Lock()


def _executor(threads: int):
    """The process's compile threads (re-made when :data:`COMPILE_THREADS` changes)."""
    with _EXECUTOR_LOCK:
        pool, size = _EXECUTOR
        if pool is None or size != threads:
            if pool is not None:
                pool.shutdown(wait=False)
            pool = concurrent.futures.ThreadPoolExecutor(threads, "pytvm-llvm")
            _EXECUTOR[:] = [pool, threads]
        return pool


def _jit_checks():
    from . import packed_checks  # lazy: imports llvmlite.ir

    packed_checks.register_symbols()


# The runtime modules generated code calls, by name: each JITs once per process.
_RUNTIME_JIT = {
    "checks": _jit_checks,
    "workspace": workspace.register_symbols,
    "pool": threadpool.launch_address,
}
_RUNTIME_STARTED: set = set()
_RUNTIME_QUEUE: collections.deque = collections.deque()
_RUNTIME_LOCK = threading.Lock()
_RUNTIME_WORKER: list = [False]  # whether a background thread is working through the queue


def prepare_runtime(names=("checks", "workspace")) -> None:
    """Start JIT-compiling runtime modules (:data:`_RUNTIME_JIT` names) in the background.

    ``tvm.compile`` calls this before lowering, and :class:`PartCompiler` when a part calls
    the thread pool: on a cold disk cache these modules then compile on another CPU while
    Python lowers the kernels (loading the kernels waits for them). One background thread
    compiles them one after the other (two at once took the main thread's CPU). Does nothing
    on a single CPU, or for modules already started.
    """
    threads = compile_threads()
    if threads < 2:
        return
    with _RUNTIME_LOCK:
        for name in names:
            if name not in _RUNTIME_STARTED:
                _RUNTIME_STARTED.add(name)
                _RUNTIME_QUEUE.append(_RUNTIME_JIT[name])
        if not _RUNTIME_QUEUE or _RUNTIME_WORKER[0]:
            return
        _RUNTIME_WORKER[0] = True
    _executor(threads).submit(_jit_runtime_queue)


def _jit_runtime_queue() -> None:
    while True:
        with _RUNTIME_LOCK:
            if not _RUNTIME_QUEUE:
                _RUNTIME_WORKER[0] = False
                return
            jit_function = _RUNTIME_QUEUE.popleft()
        try:
            jit_function()
        except Exception:  # noqa: BLE001, S110 - loading the kernels compiles it again, reports
            pass


class PartCompiler:
    """Compile the parts of one module as they come, then load them into one module.

    :meth:`submit` hands each part to a compile thread at once, so a caller that generates
    the parts one after the other (``tvm.compile``) overlaps its Python code generation with
    LLVM's work on the parts already submitted. Parts may call each other's external
    (``hidden``) functions, not internal ones (they are loaded into one engine, or linked
    into one library); exported names must be distinct. :meth:`finish` waits, stores new
    objects in the disk cache and returns the ``tvm.runtime.Module``.

    With ``use_cache``, a part compiled earlier in this process or found in the disk cache is
    not compiled again, and a module whose parts were all loaded together before is returned
    as the same ``Module`` object (the in-memory cache, :func:`cache_info`).
    """

    def __init__(self, target=None, name: str | None = None, *, use_cache: bool = True):
        self.options = TargetOptions.from_target(target)
        self.name = name
        self.use_cache = use_cache
        host = llvm_binding().get_process_triple()
        # Another architecture: compiled (IR, assembly, object files for export_library)
        # but not loaded; its functions cannot run here.
        self.cross = self.options.resolved_triple().split("-")[0] != host.split("-")[0]
        self.keys: list = []
        self._entries: list = []  # (ir text, object); None while a part is being compiled
        self._missing: list = []  # indices of the parts compiled here (to store on disk)
        self._threads = compile_threads()
        # Parts waiting for LLVM, compiled by up to `threads - 1` background workers while the
        # caller generates more parts, and by the caller itself in finish(): so no more
        # threads than CPUs compete with the caller's Python.
        self._pending: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._active = 0
        self._workers: list = []

    def submit(self, part, key: str | None = None, opt_level: int | None = None) -> None:
        """Start compiling one part (an llvmlite ``ir.Module`` or LLVM IR text).

        ``key``: its :func:`cache_key`, when the caller computed it already. ``opt_level``:
        LLVM's level for this part (None: the target's).
        """
        text = part if isinstance(part, str) else str(part)
        if self.name is None:
            self.name = getattr(part, "name", None) or "module"
        options = self.options if opt_level is None else \
            dataclasses.replace(self.options, opt_level=opt_level)
        if not self.use_cache:
            key = None
        elif key is None:
            key = cache_key(text, options)
        self.keys.append(key)
        entry = None
        if key is not None:
            with _CACHE_LOCK:
                entry = _PARTS.get(key)
            entry = entry or disk_cache.load(key)
        if threadpool.LAUNCH_SYMBOL in text:
            prepare_runtime(("pool",))
        index = len(self._entries)
        self._entries.append(entry)
        if entry is not None:
            return
        self._missing.append(index)
        if self._threads < 2:
            self._entries[index] = compile_ir(text, self.name, options)
            return
        with self._lock:
            self._pending.append((index, text, options))
            start = self._active < self._threads - 1
            if start:
                self._active += 1
        if start:
            self._workers.append(_executor(self._threads).submit(self._drain, True))

    def _drain(self, worker: bool = False) -> None:
        """Compile queued parts until none is left (in a worker, or the caller in finish)."""
        while True:
            with self._lock:
                if not self._pending:
                    # Leaving in the same critical section in which the queue was found
                    # empty: a part submitted from now on starts a new worker.
                    self._active -= worker
                    return
                index, text, options = self._pending.popleft()
            try:
                self._entries[index] = compile_ir(text, self.name, options)
            except BaseException:
                with self._lock:
                    self._active -= worker
                raise

    def module_key(self) -> str | None:
        """The in-memory cache key of the module made of the parts submitted so far."""
        if not self.use_cache or not self.keys:
            return None
        if len(self.keys) == 1:
            return self.keys[0]
        return hashlib.sha256("|".join(self.keys).encode()).hexdigest()

    def finish(self, while_waiting=None) -> Module:
        """Wait for every part and load them, in order, into one ``tvm.runtime.Module``.

        ``while_waiting``: called (once, with no arguments) first when a compile thread is
        at work, so that it runs while LLVM compiles there (before this thread takes its
        share of the queued parts); ``tvm.compile`` collects its garbage there.
        """
        if not self._entries:
            raise ValueError("build_module: no LLVM module to compile (an empty list of parts)")
        if while_waiting is not None and not all(worker.done() for worker in self._workers):
            while_waiting()
        self._drain()  # what no worker has taken yet, compiled here
        for worker in self._workers:
            worker.result()  # waits; raises a worker's error (invalid IR)
        entries = self._entries
        key = self.module_key()
        if key is not None:
            with _CACHE_LOCK:
                for part_key, entry in zip(self.keys, entries):
                    _remember(_PARTS, part_key, entry, _PARTS_SIZE)
                cached = _CACHE.get(key)
                if cached is not None:
                    _CACHE.move_to_end(key)
                    _STATS["cache_hits"] += 1
                    return cached
            if disk_cache.cache_dir() is not None:
                for i in self._missing:
                    disk_cache.store(self.keys[i], *entries[i])
        impl = LLVMModuleImpl(self.name, [entry[0] for entry in entries], self.options)
        if self.cross:
            impl.keep_cross_objects([entry[1] for entry in entries])
        else:
            impl.jit_objects([entry[1] for entry in entries])
        _STATS["compiled" if self._missing else "disk_hits"] += 1
        result = Module(impl)
        if key is not None:
            with _CACHE_LOCK:
                _remember(_CACHE, key, result, _CACHE_SIZE)
        return result


def _remember(cache, key, value, size) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def build_module(
    ir_module, target=None, name: str | None = None, *, use_cache: bool = True
) -> Module:
    """Optimize and JIT-compile LLVM IR into a ``tvm.runtime.Module``.

    Parameters
    ----------
    ir_module : llvmlite.ir.Module or str, or a list of them
        The module, or its LLVM IR text. Functions named ``__tvm_ffi_<name>`` become
        ``mod["<name>"]``. A list gives the parts of one module: they are optimized and
        compiled in parallel (:data:`COMPILE_THREADS`, see :class:`PartCompiler`) and loaded
        into one engine, so they must not refer to each other's functions; exported names
        must be distinct.
    target : None, str, dict or Target
        See :meth:`TargetOptions.from_target`; None compiles for the host CPU at O3.
    name : str, optional
        The module name (default: the llvmlite module's name, else ``"module"``).
    use_cache : bool
        Look up and store the result in the in-memory compilation cache and the on-disk
        cache (see ``tvm.backend.llvm.disk_cache``).

    Returns
    -------
    tvm.runtime.Module
        A module of kind ``"llvm"``.
    """
    parts = list(ir_module) if isinstance(ir_module, (list, tuple)) else [ir_module]
    if not parts:
        raise ValueError("build_module: no LLVM module to compile (an empty list of parts)")
    compiler = PartCompiler(target, name or getattr(parts[0], "name", None) or "module",
                            use_cache=use_cache)
    for part in parts:
        compiler.submit(part)
    return compiler.finish()


def cache_info() -> dict:
    """Counters: ``compiled``, ``cache_hits`` (memory), ``disk_hits`` and ``size`` (memory)."""
    with _CACHE_LOCK:
        return dict(_STATS, size=len(_CACHE))


def clear_cache() -> None:
    """Drop every cached module (modules already handed out keep working)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _PARTS.clear()
