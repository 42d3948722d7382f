"""The CUDA backend package (``tvm.backend.cuda``, bound as ``tvm.tirx.cuda`` once loaded).

:func:`register_backend` (run on ``import tvm`` by the backend autoload) puts the ``cuda``
entry in the backend table (``tvm.backend.get_backend("cuda")``) and registers the CUDA
runtime (device API for ``tvm.cuda()``, ``runtime.cuTensorMapEncodeTiled``). With it,
``tvm.compile(func, target="cuda")`` flows through the driver's generic path
(``docs/arch/codegen.md`` section 0, ``docs/arch/cuda.md``):

* TIR pipeline ``"cuda"`` (:func:`tvm.backend.cuda.module.cuda_tir_pipeline`): the sblock
  lowering, ``UnifyThreadBinding``, the ``tirx`` passes with ``SplitHostDevice`` (kernels
  ``<name>_kernel`` get the cuda target, the launchers the host target) and a memory check;
* device finalization (``Backend.finalize_passes``): ``LowerWarpMemory``, ``StmtSimplify``,
  ``LowerIntrin`` with the ``cuda`` rules;
* code generation (``Backend.codegen``, :func:`tvm.backend.cuda.module.build_cuda`): CUDA C
  in a runtime module of kind ``"cuda"``, imported into the LLVM host module; nvcc compiles
  it on the first launch (``inspect_source()`` needs neither nvcc nor a GPU);
* launching: the host function calls ``mod.imports[0]["<name>_kernel"]`` through the packed
  ABI (``tvm.backend.llvm`` lowers ``T.call_packed``), which launches with
  ``cuLaunchKernelEx`` (``runtime_module.py``).

Submodules: ``codegen_cuda`` (CUDA C), ``intrin`` (math rules), ``nvcc`` (compiler),
``module`` (build steps, the lazily compiled module), ``driver`` / ``device_api`` /
``runtime_module`` / ``tensormap`` (the runtime, ``docs/arch/runtime_cuda.md``).
"""

import tvm_ffi

__all__ = ["CODEGEN_AVAILABLE", "DEVICE_TYPE", "is_registered", "register_backend"]

#: True: this package compiles and runs CUDA code, so ``tvm.testing.requires_cuda`` and
#: ``tvm.testing.enabled_targets()`` enable CUDA tests (when a GPU is present).
CODEGEN_AVAILABLE = True

#: DLPack device type of the code this backend generates (kDLCUDA).
DEVICE_TYPE = 2

_REGISTERED = False


def register_backend() -> None:
    """Hook for ``tvm.backend.load("cuda")``: the table entry and the CUDA runtime.

    Cheap: the code generator, nvcc and ``cuda.bindings`` load on first use.
    """
    global _REGISTERED
    from .. import Backend, LazyRules
    from .. import register_backend as add_backend
    from ..loader import when_tirx_imported
    from .runtime_register import _API, register_runtime

    register_runtime()
    add_backend(
        Backend(
            name="cuda",
            codegen=_codegen,
            intrin_rules=LazyRules("tvm.backend.cuda.intrin", "INTRIN_RULES"),
            device_type=DEVICE_TYPE,
            device_api=_API,
            host=False,
            default_tir_pipeline="cuda",
            finalize_passes=_finalize_passes,
            default_schedule=_default_schedule,
        ),
        override=True,
    )
    # The TIR pipeline and tile-primitive tables live in tirx, which `import tvm` imports
    # on first use: registered then (or now, when it is imported already).
    when_tirx_imported(_register_tirx_tables)
    tvm_ffi.register_global_func("target.build.cuda", _build_global, override=True)
    _REGISTERED = True


def _register_tirx_tables() -> None:
    from ...tirx.tile_primitive import register_variant_loader  # lazy: see register_backend

    _register_pipeline()
    register_variant_loader("cuda", _load_tile_primitives)


def _load_tile_primitives() -> None:
    """Register the CUDA tile-primitive variants (run by the dispatcher on first use)."""
    from . import tile_primitive  # noqa: F401 - importing it registers the variants


def is_registered() -> bool:
    """Whether :func:`register_backend` has run in this process."""
    return _REGISTERED


def _register_pipeline() -> None:
    # Lazy: the pipeline table lives in tirx, loaded by now on `import tvm`, but this hook
    # must not import the compiler layers when called early.
    from ...tirx.compilation_pipeline import register_tir_pipeline

    register_tir_pipeline("cuda", _tir_pipeline)


def _tir_pipeline(target=None):
    from .module import cuda_tir_pipeline  # lazy: see _codegen

    return cuda_tir_pipeline(target)


def _codegen(mod, target):
    from .module import build_cuda  # lazy: the code generator loads on first build

    return build_cuda(mod, target)


def _build_global(mod, target):
    """``target.build.cuda(mod, target)``: the CUDA source module of ``mod``'s kernels."""
    # The module is callable, which tvm_ffi would turn into a Function: pass it through
    # as an opaque Python object so that the caller receives the Module itself.
    return tvm_ffi.core._convert_to_opaque_object(_codegen(mod, target))


def _finalize_passes(target):
    from .module import finalize_device_passes  # lazy: see _codegen

    return finalize_device_passes(target)


def _default_schedule(mod, target):
    from .module import apply_default_gpu_schedule  # lazy: see _codegen

    return apply_default_gpu_schedule(mod, target)


