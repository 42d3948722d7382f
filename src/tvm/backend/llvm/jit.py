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
    declared_symbols,
    emit_assembly,
    emit_object,
    llvm_binding,
    new_target_machine,
    optimize,
    parse_ir,
    register_tvm_ffi_symbols,
)

PACKED_PREFIX = "__tvm_ffi_"
_CACHE_SIZE = 256
_CACHE: collections.OrderedDict[str, Module] = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()
_STATS = {"compiled": 0, "cache_hits": 0, "disk_hits": 0}


class LLVMModuleImpl:
    """The runtime-module implementation of one JIT-compiled LLVM module.

    It keeps the optimized LLVM IR text (``inspect_source("ll")``) and the object file MCJIT
    compiled (for ``export_library`` and the disk cache); the assembly is produced from the
    IR text on first request.
    """

    kind = "llvm"

    def __init__(self, name: str, ir_text: str, options: TargetOptions):
        self.name = name
        self.options = options
        self.ir_text = ir_text
        self._asm: str | None = None
        self._object: bytes | None = None
        self._engine = None
        self._functions: dict = {}
        # Runtime functions the code calls; a shared library gets them linked in.
        self.runtime_symbols = set(_DECLARATION.findall(ir_text)) & set(_RUNTIME_OBJECTS)

    # -- compilation -------------------------------------------------------------------
    def jit(self) -> None:
        """Compile ``ir_text`` in-process and wrap the packed functions."""
        llvm = llvm_binding()
        mod = parse_ir(self.ir_text, self.name)
        _resolve_symbols(declared_symbols(mod), self.name)
        with _LOCK:
            engine = llvm.create_mcjit_compiler(mod, new_target_machine(self.options))
            # MCJIT hands over the object file it produced: kept for export and the disk cache.
            engine.set_object_cache(notify_func=self._remember_object)
            engine.finalize_object()
        names = [
            fn.name
            for fn in mod.functions
            if not fn.is_declaration and fn.name.startswith(PACKED_PREFIX)
        ]
        self._wrap_functions(engine, names)

    def jit_object(self, obj: bytes) -> None:
        """Load an object file compiled earlier from ``ir_text`` (disk cache hit)."""
        llvm = llvm_binding()
        _resolve_symbols(_DECLARATION.findall(self.ir_text), self.name)
        with _LOCK:
            engine = llvm.create_mcjit_compiler(
                llvm.parse_assembly(""), new_target_machine(self.options)
            )
            engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            engine.finalize_object()
        self._object = obj
        self._wrap_functions(engine, _PACKED_DEFINITION.findall(self.ir_text))

    def _remember_object(self, _module, buffer: bytes) -> None:
        self._object = bytes(buffer)

    def _wrap_functions(self, engine, symbols) -> None:
        self._engine = engine
        for symbol in symbols:
            address = engine.get_function_address(symbol)
            # keep_alive_object: the machine code lives as long as any Function using it.
            self._functions[symbol[len(PACKED_PREFIX) :]] = tvm_ffi.Function.__from_extern_c__(
                address, keep_alive_object=engine
            )

    # -- runtime.Module implementation protocol ----------------------------------------
    @property
    def entry_name(self) -> str:
        if "main" in self._functions or len(self._functions) != 1:
            return "main"
        return next(iter(self._functions))

    def function_names(self) -> list:
        return list(self._functions)

    def get_function(self, name: str):
        return self._functions.get(name)

    def function_address(self, name: str) -> int:
        """The machine-code address of ``__tvm_ffi_<name>`` (valid while this module lives)."""
        if name not in self._functions:
            raise AttributeError(f"Module has no function '{name}'")
        return self._engine.get_function_address(PACKED_PREFIX + name)

    def assembly(self) -> str:
        """The target assembly (computed once)."""
        if self._asm is None:
            self._asm = emit_assembly(parse_ir(self.ir_text, self.name), self.options)
        return self._asm

    def object_code(self) -> bytes:
        """The relocatable object file (computed once)."""
        if self._object is None:
            self._object = emit_object(parse_ir(self.ir_text, self.name), self.options)
        return self._object

    def inspect_source(self, fmt: str = "") -> str:
        if fmt in ("", "ll", "llvm"):
            return self.ir_text
        if fmt in ("asm", "s"):
            return self.assembly()
        raise ValueError(
            f"Do not know how to get source code with format: '{fmt}'; "
            "the llvm module supports 'll' (LLVM IR) and 'asm'/'s' (assembly)"
        )

    def get_write_formats(self) -> list:
        return ["ll", "s", "o"]

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
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
        mod = parse_ir(make_ir(), stem)
        optimize(mod, options)
        _RUNTIME_OBJECT_CACHE[key] = emit_object(mod, options)
    return _RUNTIME_OBJECT_CACHE[key]


def _resolve_symbols(symbols, module_name: str) -> None:
    """Make a module's external tvm_ffi and runtime symbols resolvable by the JIT."""
    register_tvm_ffi_symbols(symbols, module_name)
    if threadpool.LAUNCH_SYMBOL in symbols:
        threadpool.launch_address()  # compiles the pool once and registers the symbol
    if any(symbol in symbols for symbol in workspace.SYMBOLS):
        workspace.register_symbols()


def _load_from_disk(key: str, name: str, options: TargetOptions) -> LLVMModuleImpl | None:
    entry = disk_cache.load(key)
    if entry is None:
        return None
    impl = LLVMModuleImpl(name, entry[0], options)
    impl.jit_object(entry[1])
    _STATS["disk_hits"] += 1
    return impl


def cache_key(ir_text: str, options: TargetOptions) -> str:
    """The compilation cache key: SHA-256 of the IR text and the target options."""
    digest = hashlib.sha256()
    digest.update(ir_text.encode("utf-8"))
    digest.update(b"\0")
    digest.update(options.key().encode("utf-8"))
    return digest.hexdigest()


def build_module(
    ir_module, target=None, name: str | None = None, *, use_cache: bool = True
) -> Module:
    """Optimize and JIT-compile LLVM IR into a ``tvm.runtime.Module``.

    Parameters
    ----------
    ir_module : llvmlite.ir.Module or str
        The module, or its LLVM IR text. Functions named ``__tvm_ffi_<name>`` become
        ``mod["<name>"]``.
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
    ir_text = ir_module if isinstance(ir_module, str) else str(ir_module)
    name = name or getattr(ir_module, "name", None) or "module"
    options = TargetOptions.from_target(target)
    host = llvm_binding().get_process_triple()
    if options.resolved_triple().split("-")[0] != host.split("-")[0]:
        raise ValueError(
            f"cannot JIT-compile module '{name}' for triple '{options.triple}' on this "
            f"'{host}' host: cross compilation is not supported by the llvm backend yet"
        )
    key = cache_key(ir_text, options) if use_cache else None
    if key is not None:
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
            if cached is not None:
                _CACHE.move_to_end(key)
                _STATS["cache_hits"] += 1
                return cached
    impl = _load_from_disk(key, name, options) if key is not None else None
    if impl is None:
        mod = parse_ir(ir_text, name)
        optimize(mod, options)
        impl = LLVMModuleImpl(name, str(mod), options)
        impl.jit()
        _STATS["compiled"] += 1
        if key is not None and disk_cache.cache_dir() is not None:
            disk_cache.store(key, impl.ir_text, impl.object_code())
    result = Module(impl)
    if key is not None:
        with _CACHE_LOCK:
            _CACHE[key] = result
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return result


def cache_info() -> dict:
    """Counters: ``compiled``, ``cache_hits`` (memory), ``disk_hits`` and ``size`` (memory)."""
    with _CACHE_LOCK:
        return dict(_STATS, size=len(_CACHE))


def clear_cache() -> None:
    """Drop every cached module (modules already handed out keep working)."""
    with _CACHE_LOCK:
        _CACHE.clear()
