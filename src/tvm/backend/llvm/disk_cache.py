"""On-disk cache of JIT-compiled LLVM modules, so a new process skips optimization and codegen.

Each entry is two files named by the compilation cache key (a SHA-256 of the IR text and the
target options, see ``jit.cache_key``): ``<key>.ll`` (the optimized LLVM IR, served by
``inspect_source("ll")`` and used by ``export_library``) and ``<key>.obj`` (a header with the
SHA-256 digests of the object file and of the ``.ll`` text, then the object file, which
MCJIT loads). Every read checks both digests: an entry whose files were changed or damaged
is a miss, so the module is compiled again and the entry replaced (issue 22: one changed
constant in a ``.ll`` made ``export_library`` compute wrong numbers; MCJIT crashes the process
on a damaged object file).

Where: ``$PYTVM_CACHE_DIR/llvm``, else ``$XDG_CACHE_HOME/pytvm/llvm``, else
``~/.cache/pytvm/llvm``; ``PYTVM_LLVM_DISK_CACHE=0`` turns the cache off. The directory is
created private (mode 0700). A directory owned by another user or writable by group or
others is not used: the cache is turned off for the process with a ``RuntimeWarning`` saying
why (compiling still works; another user could otherwise plant machine code we would run).
Entries are opened without following symbolic links and without blocking, and only regular
files are read, so a FIFO or a link to a device is a miss, replaced on the next store.

Size: at most ``PYTVM_LLVM_CACHE_MAX_MB`` megabytes (default 512; 0: no limit). A hit marks
its entry used (its ``.obj`` modification time); when a store takes the cache over the limit,
the least recently used entries are removed until it is under 90% of it. The cache is best
effort: unreadable, partial or unwritable entries are ignored and compiled again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
import warnings

_MAGIC = b"PYTVM-OBJ-2\n"
_HEADER = len(_MAGIC) + 64  # magic, SHA-256 of the object, SHA-256 of the .ll text
DEFAULT_MAX_MB = 512

_LOCK = threading.Lock()
_REFUSED: dict = {}  # directory -> why it is not used (warned once)
_SIZE: dict = {}  # directory -> bytes in it as this process counts them (None: unknown)


def cache_dir() -> str | None:
    """The directory of the cache, or None when it is turned off (or refused, see above)."""
    if os.environ.get("PYTVM_LLVM_DISK_CACHE", "1") == "0":
        return None
    base = os.environ.get("PYTVM_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        # XDG: a relative path is invalid and is ignored.
        root = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"),
                                                                    ".cache")
        base = os.path.join(root, "pytvm")
    directory = os.path.join(base, "llvm")
    with _LOCK:
        if directory in _REFUSED:
            return None
        why = _unsafe(directory)
        if why is None:
            return directory
        _REFUSED[directory] = why
    warnings.warn(f"pytvm: not using the LLVM disk cache {directory}: {why}; compiling "
                  "without it (set PYTVM_CACHE_DIR to a private directory)", RuntimeWarning,
                  stacklevel=2)
    return None


def _unsafe(directory: str) -> str | None:
    """Why ``directory`` must not be used as the cache (None: it is safe, or not there yet)."""
    try:
        info = os.stat(directory)
    except FileNotFoundError:
        return None  # created private by the first store
    except OSError as err:
        return f"cannot inspect it ({err.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"it is owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"it is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def max_bytes() -> int:
    """The size limit (``PYTVM_LLVM_CACHE_MAX_MB``; 0: none)."""
    raw = os.environ.get("PYTVM_LLVM_CACHE_MAX_MB", "")
    try:
        megabytes = float(raw) if raw else DEFAULT_MAX_MB
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return max(0, int(megabytes * 1024 * 1024))


def _read_regular(path: str) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (no link followed, never blocking)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None  # missing, a symbolic link (ELOOP), unreadable
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # a FIFO, a device, a directory: never read
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def load(key: str) -> tuple[str, bytes] | None:
    """Return ``(optimized IR text, object bytes)`` cached under ``key``, or None.

    None also for an entry that fails its digests (changed or damaged files), or whose files
    are not regular files.
    """
    directory = cache_dir()
    if directory is None:
        return None
    obj_path = os.path.join(directory, f"{key}.obj")
    blob = _read_regular(obj_path)
    raw_ir = _read_regular(os.path.join(directory, f"{key}.ll"))
    if blob is None or raw_ir is None or not blob.startswith(_MAGIC):
        return None
    obj = blob[_HEADER:]
    if blob[len(_MAGIC) : len(_MAGIC) + 32] != hashlib.sha256(obj).digest():
        return None
    if blob[len(_MAGIC) + 32 : _HEADER] != hashlib.sha256(raw_ir).digest():
        return None
    try:
        ir_text = raw_ir.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not obj or not ir_text:
        return None
    try:
        os.utime(obj_path)  # used now: the last entry the size limit evicts
    except OSError:
        pass
    return ir_text, obj


def store(key: str, ir_text: str, obj: bytes) -> bool:
    """Write an entry (each file atomically, object last); returns whether it was written.

    Replaces whatever the entry's paths held (a damaged entry, a link, a FIFO); then keeps
    the cache under its size limit (:func:`max_bytes`).
    """
    directory = cache_dir()
    if directory is None:
        return False
    raw_ir = ir_text.encode("utf-8")
    blob = _MAGIC + hashlib.sha256(obj).digest() + hashlib.sha256(raw_ir).digest() + obj
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        # The object is written last: `load` checks the .ll against the digest in it, so a
        # half-written entry is a miss.
        _write_atomic(os.path.join(directory, f"{key}.ll"), raw_ir)
        _write_atomic(os.path.join(directory, f"{key}.obj"), blob)
    except OSError:
        return False  # e.g. a read-only home directory: caching is an optimization only
    _account(directory, len(raw_ir) + len(blob))
    return True


def _account(directory: str, added: int) -> None:
    """Count ``added`` bytes; evict least recently used entries past the limit."""
    limit = max_bytes()
    if not limit:
        return
    with _LOCK:
        size = _SIZE.get(directory)
        if size is not None:
            size += added
            _SIZE[directory] = size
            if size <= limit:
                return
        _SIZE[directory] = evict(directory, limit)


def evict(directory: str, limit: int) -> int:
    """Remove the least recently used entries until the cache holds under 90% of ``limit``.

    Returns the bytes left. Entries are ranked by their ``.obj`` modification time (a hit
    refreshes it); an entry's ``.ll`` goes with its ``.obj``.
    """
    entries = {}
    try:
        with os.scandir(directory) as scan:
            for item in scan:
                stem, dot, suffix = item.name.rpartition(".")
                if not dot or suffix not in ("ll", "obj") or item.name.startswith("."):
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                used, size = entries.get(stem, (0.0, 0))
                used = info.st_mtime if suffix == "obj" else used
                entries[stem] = (used, size + info.st_size)
    except OSError:
        return 0
    total = sum(size for _, size in entries.values())
    if total <= limit:
        return total
    target = int(limit * 0.9)
    for stem, (_, size) in sorted(entries.items(), key=lambda item: item[1][0]):
        if total <= target:
            break
        for suffix in ("obj", "ll"):  # the .obj first: without it the entry is a miss
            try:
                os.unlink(os.path.join(directory, f"{stem}.{suffix}"))
            except OSError:
                pass
        total -= size
    return total


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
