"""The CUDA backend package (``tvm.backend.cuda``, bound as ``tvm.tirx.cuda`` once loaded).

Code generation (classic TIR path), as plain functions the driver can wire in:

* ``tvm.backend.cuda.module.lower_for_cuda(mod, target) -> (host_mod, device_mod)``: the TIR
  lowering from a scheduled PrimFunc with thread bindings to the host function (which
  launches each kernel with ``T.call_packed("<name>_kernel", args..., extents...)``) and the
  device kernels;
* ``tvm.backend.cuda.codegen_cuda.codegen(device_mod, target) -> str``: the CUDA C source;
* ``tvm.backend.cuda.module.build_cuda(device_mod, target)``: a ``tvm.runtime.Module`` of
  kind ``"cuda"`` (``inspect_source()``, kernel ``function_info`` for a launcher, the cubin
  compiled lazily by nvcc);
* ``tvm.backend.cuda.nvcc.compile_cuda(source, target_arch, fmt)``: nvcc (or NVRTC);
* ``tvm.backend.cuda.intrin.INTRIN_RULES``: the ``cuda.FLowerIntrinsic`` math rules.

Not here yet: launching kernels (the CUDA driver runtime), ``tvm.compile(..., target="cuda")``
wiring, and the ``T.cuda``/``T.ptx`` script namespaces. ``CODEGEN_AVAILABLE`` stays False
until kernels can run, since it gates the tests that launch them. See docs/arch/cuda.md.
"""

__all__ = ["CODEGEN_AVAILABLE", "is_registered", "register_backend"]

#: Set to True once this package can compile and run CUDA code: ``tvm.testing.requires_cuda``
#: and ``tvm.testing.enabled_targets()`` only enable CUDA tests when it is True (and a GPU
#: is present).
CODEGEN_AVAILABLE = False

_REGISTERED = False


def register_backend() -> None:
    """Register the CUDA backend (records itself; nothing else to register yet)."""
    global _REGISTERED
    _REGISTERED = True


def is_registered() -> bool:
    """Whether :func:`register_backend` has run in this process."""
    return _REGISTERED
