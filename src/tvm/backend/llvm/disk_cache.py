"""On-disk cache of JIT-compiled LLVM modules, so a new process skips optimization and codegen.

Each entry is two files named by the compilation cache key (a SHA-256 of the IR text and the
target options, see ``jit.cache_key``): ``<key>.ll`` (the optimized LLVM IR, served by
``inspect_source("ll")``) and ``<key>.obj`` (a header with the SHA-256 of the object file,
then the object file, which MCJIT loads and ``export_library`` reuses). The digest matters:
MCJIT crashes the process on a damaged object file instead of raising. The directory is ``$PYTVM_CACHE_DIR/llvm`` (default
``~/.cache/pytvm/llvm``); ``PYTVM_LLVM_DISK_CACHE=0`` turns the cache off. The cache is best
effort: unreadable, partial or unwritable entries are ignored and compiled again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile

_MAGIC = b"PYTVM-OBJ-1\n"


def cache_dir() -> str | None:
    """The directory of the cache, or None when it is turned off."""
    if os.environ.get("PYTVM_LLVM_DISK_CACHE", "1") == "0":
        return None
    base = os.environ.get("PYTVM_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "pytvm"
    )
    return os.path.join(base, "llvm")


def load(key: str) -> tuple[str, bytes] | None:
    """Return ``(optimized IR text, object bytes)`` cached under ``key``, or None."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        with open(os.path.join(directory, f"{key}.obj"), "rb") as obj_file:
            blob = obj_file.read()
        with open(os.path.join(directory, f"{key}.ll"), encoding="utf-8") as ir_file:
            ir_text = ir_file.read()
    except (OSError, UnicodeDecodeError):
        return None
    header = len(_MAGIC) + 32
    obj = blob[header:]
    if not blob.startswith(_MAGIC) or blob[len(_MAGIC) : header] != hashlib.sha256(obj).digest():
        return None  # damaged or from another format version
    if not obj or not ir_text:
        return None
    return ir_text, obj


def store(key: str, ir_text: str, obj: bytes) -> bool:
    """Write an entry (each file atomically, object last); returns whether it was written."""
    directory = cache_dir()
    if directory is None:
        return False
    try:
        os.makedirs(directory, exist_ok=True)
        # The object is written last: `load` reads it first, so a half-written entry
        # (only the .ll) is a miss.
        _write_atomic(os.path.join(directory, f"{key}.ll"), ir_text.encode("utf-8"))
        blob = _MAGIC + hashlib.sha256(obj).digest() + obj
        _write_atomic(os.path.join(directory, f"{key}.obj"), blob)
    except OSError:
        return False  # e.g. a read-only home directory: caching is an optimization only
    return True


def _write_atomic(path: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)  # concurrent writers of the same key write the same bytes
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def cache_key(ir_text: str, options_key: str) -> str:
    """The key of an entry: SHA-256 of the IR text and the target options' key."""
    digest = hashlib.sha256()
    digest.update(ir_text.encode("utf-8"))
    digest.update(b"\0")
    digest.update(options_key.encode("utf-8"))
    return digest.hexdigest()


def compiled_object(ir_text: str, name: str, options) -> bytes:
    """The object file of ``ir_text`` for ``options`` (a ``TargetOptions``), light IR passes.

    Served from the cache when there, else compiled and stored. For the runtime's own
    modules (thread pool, workspace functions, argument checks), which every process
    JIT-compiles once: ``target_machine.optimize_light`` instead of the O3 pipeline.
    """
    # Lazy import: the cache itself does not need LLVM.
    from .target_machine import compile_ir

    key = cache_key(ir_text, options.key() + "|light")
    entry = load(key)
    if entry is not None:
        return entry[1]
    optimized, obj = compile_ir(ir_text, name, options, light=True)
    store(key, optimized, obj)
    return obj


def jit_runtime_module(ir_text: str, name: str, symbols, export=None,
                       opt_level: int | None = None) -> dict:
    """JIT a runtime module of ours (thread pool, workspace, argument checks) for good.

    The object file comes from :func:`compiled_object` (the disk cache after the first
    process). The engine is never disposed: generated kernels (and the pool's worker threads)
    run its code until the process exits. Returns ``{symbol: address}`` for ``symbols``; those
    in ``export`` (default: all of them) become resolvable by modules JIT-compiled later.
    ``opt_level``: the code generator's level (None: the target default); 0 selects
    instructions 2-3x faster, for modules whose speed does not matter.
    """
    # Lazy import: the cache itself does not need LLVM.
    from .target_machine import (
        TargetOptions,
        declared_symbols,
        llvm_binding,
        new_target_machine,
        parse_ir,
        register_tvm_ffi_symbols,
    )

    llvm = llvm_binding()
    options = TargetOptions() if opt_level is None else TargetOptions(opt_level=opt_level)
    register_tvm_ffi_symbols(declared_symbols(parse_ir(ir_text, name)), name)
    obj = compiled_object(ir_text, name, options)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine(options))
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    addresses = {symbol: engine.get_function_address(symbol) for symbol in symbols}
    engine.detach()  # never disposed, not even at interpreter shutdown
    for symbol in addresses if export is None else export:
        llvm.add_symbol(symbol, addresses[symbol])
    return addresses
