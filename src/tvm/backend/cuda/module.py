"""The ``cuda`` runtime module (source, lazy binary, kernel info) and the CUDA build steps.

* :func:`lower_for_cuda(mod, target) <lower_for_cuda>`: the TIR lowering from a scheduled
  function with thread bindings to ``(host_mod, device_mod)``: UnifyThreadBinding,
  the sblock lowering, UnifyThreadBinding, the ``tirx`` pipeline
  (``tvm.tirx.compilation_pipeline.tirx_passes``: FlattenBuffer, VectorizeLoop, UnrollLoop,
  StorageRewrite, SplitHostDevice, MakePackedAPI...), then on the kernels LowerWarpMemory,
  StmtSimplify and LowerIntrin (``cuda`` rules).
* :func:`build_cuda(device_mod, target) <build_cuda>`: CUDA C for the kernels, wrapped in a
  ``tvm.runtime.Module`` of kind ``"cuda"`` (``inspect_source()`` gives the CUDA C). The cubin
  is compiled by nvcc on first use of :meth:`CUDAModuleImpl.binary`, or at once with
  ``compile=True``.
* Launching is not done here: a launcher reads :attr:`CUDAModuleImpl.function_info`,
  ``{name: {"arg_types": [...], "launch_param_tags": [...]}}``, and the cubin.

The host side (the function that calls ``T.call_packed("<name>_kernel", ...)``) is compiled
by the host backend (LLVM); wiring ``tvm.compile(..., target="cuda")`` to both is the
driver's job.
"""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import Sequential
from ...runtime.module import Module
from ...s_tir import transform as s_tir_transform
from ...target import Target
from ...tirx import transform as _t
from ...tirx.compilation_pipeline import tirx_passes
from ...tirx.function import PrimFunc
from . import intrin, nvcc
from .codegen_cuda import codegen, kernel_functions

__all__ = ["CUDAModuleImpl", "build_cuda", "lower_for_cuda"]


def _as_target(target) -> Target:
    if isinstance(target, Target):
        return target
    return Target(target if target is not None else "cuda")


def _arch(target: Target) -> str:
    arch = None
    try:
        arch = target.attrs.get("arch")
    except AttributeError:
        arch = dict(target.export()).get("arch")
    return str(arch or "sm_80")


class CUDAModuleImpl:
    """What a ``cuda`` runtime module holds: source, kernel info and the (lazy) binary."""

    kind = "cuda"
    entry_name = ""

    def __init__(self, source: str, function_info: dict, arch: str, fmt: str = "cubin",
                 binary: bytes | None = None):
        self.source = source
        self.function_info = function_info
        self.arch = arch
        self.fmt = fmt
        self._binary = binary

    def binary(self) -> bytes:
        """The compiled kernels (nvcc, on first call)."""
        if self._binary is None:
            self._binary = nvcc.compile_cuda(self.source, self.arch, self.fmt)
        return self._binary

    def get_function(self, name):
        # Launching lives in the CUDA runtime (driver.py); this module only describes kernels.
        return None

    def function_names(self) -> list:
        return list(self.function_info)

    def inspect_source(self, fmt: str = "") -> str:
        if fmt in ("", "cu", "cuda"):
            return self.source
        if fmt in ("cubin", "fatbin", "ptx"):
            raise ValueError(f"the {fmt} of a cuda module is binary; use binary()")
        raise ValueError(f"unknown source format {fmt!r} (use 'cu')")

    def get_write_formats(self) -> list:
        return ["cu", self.fmt]

    def write_to_file(self, path: str, fmt: str = "") -> None:
        fmt = fmt or ("cu" if path.endswith(".cu") else self.fmt)
        if fmt == "cu":
            with open(path, "w") as f:
                f.write(self.source)
        elif fmt == self.fmt:
            with open(path, "wb") as f:
                f.write(self.binary())
        else:
            raise ValueError(f"a cuda module writes 'cu' or {self.fmt!r}, not {fmt!r}")


def _function_info(mod: IRModule) -> dict:
    info = {}
    for name, func in kernel_functions(mod):
        info[name] = {
            "arg_types": [str(p.dtype) for p in func.params],
            "launch_param_tags": [str(t) for t in
                                  (func.get_attr("tirx.kernel_launch_params") or [])],
        }
    return info


def build_cuda(device_mod, target=None, compile: bool = False, fmt: str = "cubin") -> Module:
    """The ``cuda`` runtime module of the kernels in ``device_mod`` (see module doc)."""
    target = _as_target(target)
    if isinstance(device_mod, PrimFunc):
        device_mod = IRModule({"main": device_mod})
    source = codegen(device_mod, target)
    impl = CUDAModuleImpl(source, _function_info(device_mod), _arch(target), fmt)
    if compile:
        impl.binary()
    return Module(impl)


def lower_for_cuda(mod, target=None) -> tuple[IRModule, IRModule]:
    """Lower scheduled TIR with thread bindings: ``(host_mod, device_mod)`` (see module doc)."""
    target = _as_target(target)
    if isinstance(mod, PrimFunc):
        name = str(mod.get_attr("global_symbol") or "main")
        mod = IRModule({name: mod})
    intrin.register_rules()
    passes = [
        _t.BindTarget(target),
        s_tir_transform.LowerInitBlock(),
        s_tir_transform.ConvertBlocksToOpaque(),
        s_tir_transform.LowerOpaqueBlock(),
        _t.UnifyThreadBinding(),
        *tirx_passes(target),
    ]
    mod = Sequential(passes, name="cuda.lower")(mod)
    host, device = {}, {}
    for gvar, func in mod.functions.items():
        is_kernel = isinstance(func, PrimFunc) and func.get_attr("calling_conv") == 2
        (device if is_kernel else host)[gvar] = func
    finalize = Sequential([_t.LowerWarpMemory(), _t.StmtSimplify(), _t.LowerIntrin()],
                          name="cuda.finalize_device")
    device_mod = finalize(IRModule(device))
    return IRModule(host), device_mod
