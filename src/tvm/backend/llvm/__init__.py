"""The LLVM CPU backend's runtime side: JIT, shared-library export, packed API, thread pool.

Submodules (import them directly; none imports llvmlite until it compiles something, except
``packed_api``, which builds llvmlite IR and is only imported by code generators):

- ``target_machine``: target options, optimization and object/assembly emission;
- ``jit``: :func:`build_module` (LLVM IR -> ``tvm.runtime.Module``), the compilation cache;
- ``packed_api``: emit ``__tvm_ffi_<name>`` wrappers that unpack and check arguments;
- ``threadpool``: ``TVMBackendParallelLaunch`` for parallel loops.
"""


def register_backend():
    """Hook for ``tvm.backend.load("llvm")``: nothing to set up, everything loads lazily."""


def build_module(ir_module, target=None, name=None, *, use_cache=True):
    """Compile LLVM IR into a ``tvm.runtime.Module``; see ``tvm.backend.llvm.jit.build_module``."""
    # Lazy import keeps `import tvm.backend.llvm` free of llvmlite.
    from .jit import build_module as _build

    return _build(ir_module, target, name, use_cache=use_cache)
