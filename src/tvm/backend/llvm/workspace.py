"""Workspace allocation for generated code: ``TVMBackendAllocWorkspace`` / ``FreeWorkspace``.

TVM lowers large temporary buffers to calls of its C runtime API::

    void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                   int dtype_code_hint, int dtype_bits_hint);
    int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);

Here both are a few lines of LLVM IR over libc ``posix_memalign``/``free`` (64-byte aligned,
CPU only). On failure the allocation sets a ``MemoryError`` (or ``ValueError`` for a non-CPU
device) and returns NULL, which generated code must check. The JIT resolves the symbols to
one in-process copy; a shared library gets hidden copies linked in (see ``jit.py``).
"""

from __future__ import annotations

import functools
import threading

from . import disk_cache

ALLOC_SYMBOL = "TVMBackendAllocWorkspace"
FREE_SYMBOL = "TVMBackendFreeWorkspace"
SYMBOLS = (ALLOC_SYMBOL, FREE_SYMBOL)

_WORKSPACE_IR = """
@ws_oom_kind = private constant [12 x i8] c"MemoryError\\00"
@ws_oom_msg = private constant [56 x i8] c"TVMBackendAllocWorkspace: cannot allocate the workspace\\00"
@ws_dev_kind = private constant [11 x i8] c"ValueError\\00"
@ws_dev_msg = private constant [59 x i8] c"TVMBackendAllocWorkspace: only CPU workspaces are provided\\00"

declare i32 @posix_memalign(ptr, i64, i64)
declare void @free(ptr)
declare void @TVMFFIErrorSetRaisedFromCStr(ptr, ptr)

define {visibility} ptr @{alloc}(i32 %device_type, i32 %device_id, i64 %nbytes,
                                 i32 %dtype_code_hint, i32 %dtype_bits_hint) {{
entry:
  %slot = alloca ptr, align 8
  %cpu = icmp eq i32 %device_type, 1
  br i1 %cpu, label %allocate, label %bad_device
allocate:
  %empty = icmp eq i64 %nbytes, 0
  %size = select i1 %empty, i64 1, i64 %nbytes
  %rc = call i32 @posix_memalign(ptr %slot, i64 64, i64 %size)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %done, label %oom
done:
  %ptr = load ptr, ptr %slot
  ret ptr %ptr
oom:
  call void @TVMFFIErrorSetRaisedFromCStr(ptr @ws_oom_kind, ptr @ws_oom_msg)
  ret ptr null
bad_device:
  call void @TVMFFIErrorSetRaisedFromCStr(ptr @ws_dev_kind, ptr @ws_dev_msg)
  ret ptr null
}}

define {visibility} i32 @{free}(i32 %device_type, i32 %device_id, ptr %ptr) {{
entry:
  call void @free(ptr %ptr)
  ret i32 0
}}
"""


def workspace_ir(hidden: bool = False) -> str:
    """The LLVM IR defining the two functions (``hidden`` for linking into a library)."""
    return _WORKSPACE_IR.format(
        visibility="hidden" if hidden else "", alloc=ALLOC_SYMBOL, free=FREE_SYMBOL
    )


_LOCK = threading.Lock()


@functools.cache
def _compile() -> dict:
    # Two calls of malloc/free: code generation at level 0 (half the time of level 1).
    return disk_cache.jit_runtime_module(workspace_ir(), "pytvm_workspace", SYMBOLS, opt_level=0)


def register_symbols() -> dict:
    """JIT the functions once per process and make them resolvable; returns their addresses."""
    with _LOCK:
        return _compile()
