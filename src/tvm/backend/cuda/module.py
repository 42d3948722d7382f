"""The CUDA build steps the driver calls, and the ``cuda`` module they produce.

``tvm.compile(func, target="cuda")`` reaches this file through the backend table entry
(``tvm.backend.cuda.register_backend``); the driver owns the flow (``docs/arch/codegen.md``):

* :func:`cuda_tir_pipeline` (the TIR pipeline ``"cuda"``, what ``tir_pipeline="default"``
  means for a cuda target): the sblock lowering, ``UnifyThreadBinding``, the ``tirx``
  passes (``tvm.tirx.compilation_pipeline.tirx_passes``) with :func:`VerifyDeviceMemory`
  before ``SplitHostDevice``, which makes the kernels (target ``cuda``) and leaves the
  launchers (target: the host) calling ``T.call_packed("<name>_kernel", ...)``;
* :func:`finalize_device_passes`: LowerWarpMemory, StmtSimplify, LowerIntrin (``cuda``
  rules) on the kernels;
* :func:`build_cuda`: CUDA C for the kernels, wrapped in a ``tvm.runtime.Module`` of kind
  ``"cuda"`` (:class:`CUDAModuleImpl`). ``inspect_source()`` needs neither nvcc nor a GPU;
  nvcc compiles the cubin on the first launch (or at once with ``compile=True``).
  ``mod["f_kernel"]`` is a ``tvm_ffi.Function`` taking TVM's launch convention
  ``(*kernel_args, *launch_values)``: the host launchers call it.
* :func:`apply_default_gpu_schedule`: the default GPU schedule of unscheduled functions
  (``tvm.s_tir.dlight`` when present; otherwise functions are left as they are and
  :func:`VerifyDeviceMemory` reports the unbound accesses).
* :func:`cuda_tir_pipeline` uses the GPU schedule passes (``LowerCrossThreadReduction``...
  ``LowerThreadAllreduce``, ``ThreadSync``) when present.

:func:`lower_for_cuda` is a thin helper for reading the lowered IR: ``(host_mod, device_mod)``
of the same steps without the driver.
"""

from __future__ import annotations

import threading

from ...ir.expr import Range
from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo, Sequential
from ...runtime.module import Module
from ...target import Target
from ...tirx import transform as _t
from ...tirx.compilation_pipeline import tirx_passes
from ...tirx.expr import IntImm, Var
from ...tirx.function import PrimFunc
from ...tirx.stmt import AttrStmt, BufferLoad, BufferStore, For, ForKind, IterVar
from ...tirx.stmt_functor import StmtExprVisitor, post_order_visit
from ...tirx.transform.split_host_device import is_gpu_target
from ...tirx.type import is_tensormap_pointer
from . import intrin, nvcc
from .codegen_cuda import codegen, kernel_functions

__all__ = [
    "CUDAModuleImpl",
    "VerifyDeviceMemory",
    "apply_default_gpu_schedule",
    "build_cuda",
    "cuda_tir_pipeline",
    "finalize_device_passes",
    "lower_for_cuda",
]

#: The arch nvcc compiles for when the target names none and no GPU can be asked.
DEFAULT_ARCH = "sm_80"


def _as_target(target) -> Target:
    if isinstance(target, Target):
        return target
    return Target(target if target is not None else "cuda")


def _arch(target: Target) -> str | None:
    """The target's ``arch`` (``"sm_90a"``), or None when it names none.

    The kind's default (``Target("cuda")`` says ``sm_50``, which nvcc 13 no longer compiles
    for) counts as none: the binary is then built for GPU 0's arch (:func:`_device_arch`).
    """
    try:
        arch = target.attrs.get("arch")
    except AttributeError:
        arch = dict(target.export()).get("arch")
    default = getattr(getattr(target, "kind", None), "defaults", {}).get("arch")
    return str(arch) if arch and arch != default else None


def _device_arch() -> str:
    """``sm_XY`` of GPU 0 when the driver can tell, else :data:`DEFAULT_ARCH`."""
    from ...runtime.device import cuda  # lazy: only when compiling without an arch

    try:
        dev = cuda(0)
        if dev.exist:
            major, minor = str(dev.compute_version).split(".")
            return f"sm_{major}{minor}{'a' if major in ('9', '10') else ''}"
    except (RuntimeError, ValueError):  # no driver: compile for the default
        pass
    return DEFAULT_ARCH


# --- the pipeline -------------------------------------------------------------------------------


class _UnboundAccess(StmtExprVisitor):
    """The first access of a parameter buffer outside thread-bound loops / launch regions."""

    def __init__(self, params):
        super().__init__()
        self.params = params  # id(data var) -> buffer name
        self.depth = 0
        self.found = None

    def _check(self, buf):
        if self.depth == 0 and self.found is None and id(buf.data) in self.params:
            self.found = buf.name

    def visit_for_(self, op: For):
        bound = op.kind == ForKind.THREAD_BINDING
        self.depth += bound
        super().visit_for_(op)
        self.depth -= bound

    def visit_attr_stmt_(self, op: AttrStmt):
        bound = op.attr_key in ("thread_extent", "virtual_thread")
        self.depth += bound
        super().visit_attr_stmt_(op)
        self.depth -= bound

    def visit_buffer_store_(self, op: BufferStore):
        self._check(op.buffer)
        super().visit_buffer_store_(op)

    def visit_buffer_load_(self, op: BufferLoad):
        self._check(op.buffer)
        super().visit_buffer_load_(op)


def _has_loop_or_binding(stmt) -> bool:
    found = []

    def visit(node):
        if not found and (isinstance(node, For) or (
                isinstance(node, AttrStmt) and node.attr_key == "thread_extent")):
            found.append(node)

    post_order_visit(stmt, visit)
    return bool(found)


def _unit_thread_loops(body):
    """``body`` inside ``blockIdx.x`` and ``threadIdx.x`` loops of extent 1."""
    for tag, name in (("threadIdx.x", "tx"), ("blockIdx.x", "bx")):
        var = Var(name, "int32")
        thread = IterVar(Range.from_min_extent(IntImm("int32", 0), IntImm("int32", 1)),
                         Var(tag, "int32"), IterVar.ThreadIndex, tag)
        body = For(var, IntImm("int32", 0), IntImm("int32", 1), ForKind.THREAD_BINDING, body,
                   thread_binding=thread)
    return body


def BindScalarKernels():
    """Run loop-free GPU functions (scalar work, e.g. ``x * 0.999`` on a 0-d tensor) as a
    kernel of one thread, as TVM's default GPU schedule does for blocks without loops.

    Functions with loops are left alone: without thread bindings, :func:`VerifyDeviceMemory`
    rejects them.
    """

    def run(mod, ctx):
        funcs, changed = {}, False
        for gvar, func in mod.functions.items():
            if isinstance(func, PrimFunc) and is_gpu_target(func.get_attr("target")) \
                    and func.buffer_map and not _has_loop_or_binding(func.body):
                func = func.with_body(_unit_thread_loops(func.body))
                changed = True
            funcs[gvar] = func
        if not changed:
            return mod
        return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)

    return ModulePass(run, PassInfo(0, "cuda.BindScalarKernels"))


def VerifyDeviceMemory():
    """Reject GPU functions that touch device buffers outside a kernel (thread binding).

    Such code would run on the host and read device memory: a ``ValueError`` naming the
    function and buffer, and saying how to fix it (bind threads, or a default schedule).
    """

    def run(mod, ctx):
        for gvar, func in mod.functions.items():
            if not isinstance(func, PrimFunc) or not is_gpu_target(func.get_attr("target")):
                continue
            params = {id(buf.data): buf.name for buf in func.buffer_map.values()}
            visitor = _UnboundAccess(params)
            visitor.visit_stmt(func.body)
            if visitor.found is not None:
                raise ValueError(
                    f"function {gvar.name_hint} accesses buffer {visitor.found} outside any "
                    "GPU thread binding, so that code would run on the host and read device "
                    "memory. Did you forget to bind? Bind its loops to blockIdx/threadIdx "
                    "(T.thread_binding, sch.bind), or schedule it with the default GPU "
                    "schedule (tvm.s_tir.dlight.ApplyDefaultSchedule)"
                )
        return mod

    return ModulePass(run, PassInfo(0, "cuda.VerifyDeviceMemory"))


def _gpu_lowering():
    """``(block lowering passes, kernel passes after StorageRewrite)`` for GPU schedules.

    With the GPU schedule passes present (``tvm.s_tir.transform.gpu_pipeline``): cross-thread
    reductions, on-chip buffer placement, then ``LowerThreadAllreduce`` and
    ``ThreadSync("shared")``; without them, the plain sblock lowering and nothing after.
    """
    # Lazy: s_tir sits above tirx; its transforms are only needed when a cuda build runs.
    try:
        from ...s_tir.transform.gpu_pipeline import gpu_s_tir_passes
        from ...tirx.transform.lower_thread_allreduce import LowerThreadAllreduce
        from ...tirx.transform.thread_sync import ThreadSync
    except ImportError:  # a build without the GPU schedule passes
        from ...s_tir import transform as s_tir_transform

        return [s_tir_transform.LowerInitBlock(), s_tir_transform.ConvertBlocksToOpaque(),
                s_tir_transform.LowerOpaqueBlock()], []
    return gpu_s_tir_passes(), [LowerThreadAllreduce(), ThreadSync("shared")]


def cuda_tir_pipeline(target=None):
    """The TIR pipeline ``"cuda"``: scheduled s_tir with thread bindings -> host + kernels.

    The block lowering (:func:`_gpu_lowering`), ``UnifyThreadBinding``, then the ``tirx``
    passes with the cross-thread reduction lowering and barriers after ``StorageRewrite`` and
    :func:`BindScalarKernels` and :func:`VerifyDeviceMemory` before ``SplitHostDevice``.
    """
    intrin.register_rules()
    block_passes, after_storage = _gpu_lowering()
    passes = [*block_passes, _t.UnifyThreadBinding()]
    for p in tirx_passes(target):
        if p.info.name == "tirx.SplitHostDevice":
            # After StmtSimplify, which drops thread loops of extent 1.
            passes.extend([BindScalarKernels(), VerifyDeviceMemory()])
        passes.append(p)
        if p.info.name == "tirx.StorageRewrite":
            passes.extend(after_storage)
    return Sequential(passes, name="cuda.lower")


def finalize_device_passes(target=None):
    """``Backend.finalize_passes`` of ``cuda``: the kernels' last passes before codegen."""
    intrin.register_rules()
    return Sequential([_t.LowerWarpMemory(), _t.StmtSimplify(), _t.LowerIntrin()],
                      name="cuda.finalize_device")


def apply_default_gpu_schedule(mod: IRModule, target) -> IRModule:
    """Schedule unscheduled PrimFuncs for the GPU (``Backend.default_schedule``).

    The driver's default schedule (``tvm.s_tir.default_schedule.apply_default_schedule``)
    gives GPU targets the dlight rules (``tvm.s_tir.dlight``: Matmul, GeneralReduction,
    Fallback). In a build without dlight the module is returned unchanged, and
    :func:`VerifyDeviceMemory` names the functions that still need a schedule.
    """
    try:
        # Lazy: dlight is heavy and only needed for GPU builds.
        from ...s_tir.dlight.base import apply_gpu_default_schedule  # noqa: F401
    except ImportError:
        return mod
    from ...s_tir.default_schedule import apply_default_schedule

    return apply_default_schedule(mod, _as_target(target))


# --- the module ---------------------------------------------------------------------------------


class CUDAModuleImpl:
    """What a ``cuda`` runtime module holds: source, kernel info and the (lazy) binary.

    ``get_function(name)`` returns a launcher that compiles the binary (nvcc) on its first
    call and then launches through :class:`tvm.backend.cuda.runtime_module.CUDARuntimeModule`.
    """

    kind = "cuda"
    entry_name = ""

    def __init__(self, source: str, function_info: dict, arch: str | None,
                 fmt: str = "cubin", binary: bytes | None = None):
        self.source = source
        self.function_info = function_info
        self.arch = arch
        self.fmt = fmt
        self._binary = binary
        self._runtime = None
        self._functions: dict = {}
        self._lock = threading.Lock()

    def binary(self) -> bytes:
        """The compiled kernels (nvcc on first call, for the target's arch or GPU 0's)."""
        if self._binary is None:
            with self._lock:
                if self._binary is None:
                    if self.arch is None:
                        self.arch = _device_arch()
                    self._binary = nvcc.compile_cuda(self.source, self.arch, self.fmt)
        return self._binary

    def set_binary(self, binary: bytes, fmt: str | None = None) -> None:
        """Use ``binary`` (a cubin/fatbin/PTX built elsewhere) instead of compiling the source.

        Only before the first launch; afterwards a ``ValueError``.
        """
        if self._runtime is not None:
            raise ValueError("set_binary: the cuda module has launched already")
        self._binary = bytes(binary)
        self.fmt = fmt or self.fmt

    def runtime_module(self):
        """The :class:`~tvm.backend.cuda.runtime_module.CUDARuntimeModule` (compiles first)."""
        if self._runtime is None:
            # Lazy: the runtime module imports numpy and the driver wrapper.
            from .runtime_module import CUDARuntimeModule

            runtime = CUDARuntimeModule(self.binary(), self.function_info, self.source,
                                        self.fmt)
            with self._lock:
                if self._runtime is None:
                    self._runtime = runtime
        return self._runtime

    def get_function(self, name):
        """Kernel ``name`` as a ``tvm_ffi.Function`` (None when there is no such kernel)."""
        if name not in self.function_info:
            return None
        function = self._functions.get(name)
        if function is None:
            import tvm_ffi  # lazy: only when a launcher is made

            function = tvm_ffi.convert(_LazyLauncher(self, name))
            self._functions[name] = function
        return function

    def function_names(self) -> list:
        """The names of the kernels in the module."""
        return list(self.function_info)

    def inspect_source(self, fmt: str = "") -> str:
        """The CUDA source of the module.

        Parameters
        ----------
        fmt : str, optional
            ``""``, ``"cu"`` or ``"cuda"``.

        Returns
        -------
        str
            The source.

        Raises
        ------
        ValueError
            For a binary format (``cubin``, ``fatbin``, ``ptx``: use ``binary()``) or an unknown
            one.
        """
        if fmt in ("", "cu", "cuda"):
            return self.source
        if fmt in ("cubin", "fatbin", "ptx"):
            raise ValueError(f"the {fmt} of a cuda module is binary; use binary()")
        raise ValueError(f"unknown source format {fmt!r} (use 'cu')")

    def get_write_formats(self) -> list:
        """The formats :meth:`write_to_file` writes: ``"cu"`` and the binary format."""
        return ["cu", self.fmt]

    def write_to_file(self, path: str, fmt: str = "") -> None:
        """Write the module's CUDA source or its binary.

        Parameters
        ----------
        path : str
            The output path.
        fmt : str, optional
            ``"cu"`` or the module's binary format; ``"cu"`` for a ``.cu`` path and the binary
            format otherwise when empty.

        Raises
        ------
        ValueError
            For any other format.
        """
        fmt = fmt or ("cu" if path.endswith(".cu") else self.fmt)
        if fmt == "cu":
            with open(path, "w") as f:
                f.write(self.source)
        elif fmt == self.fmt:
            with open(path, "wb") as f:
                f.write(self.binary())
        else:
            raise ValueError(f"a cuda module writes 'cu' or {self.fmt!r}, not {fmt!r}")


class _LazyLauncher:
    """``f(*kernel_args, *launch_values)`` of one kernel; binary and launcher made on first use.

    Called from compiled host code through the packed ABI, pointer arguments arrive as
    ``ctypes.c_void_p``; they are passed on as integer addresses.
    """

    def __init__(self, impl: CUDAModuleImpl, name: str):
        self.impl = impl
        self.name = name
        self._launcher = None

    def __call__(self, *args):
        launcher = self._launcher
        if launcher is None:
            launcher = self._launcher = self.impl.runtime_module().get_launcher(self.name)
        values = [a.value or 0 if type(a).__name__ == "c_void_p" else a for a in args]
        launcher(*values)


def _function_info(mod: IRModule) -> dict:
    info = {}
    for name, func in kernel_functions(mod):
        info[name] = {
            "arg_types": [str(p.dtype) for p in func.param_vars],
            "launch_param_tags": [str(t) for t in
                                  (func.get_attr("tirx.kernel_launch_params") or [])],
        }
        # 1: a __grid_constant__ CUtensorMap passed by value (the host passes its address)
        tags = [int(is_tensormap_pointer(getattr(p, "type_annotation", None)))
                for p in func.param_vars]
        if any(tags):
            info[name]["arg_extra_tags"] = tags
    return info


def build_cuda(device_mod, target=None, compile: bool = False, fmt: str = "cubin") -> Module:
    """The ``cuda`` runtime module of the kernels in ``device_mod`` (``Backend.codegen``).

    Parameters
    ----------
    device_mod : IRModule or PrimFunc
        Lowered kernels (``calling_conv`` 2, as ``SplitHostDevice`` makes them).
    target : str, dict or Target, optional
        The cuda target; its ``arch`` picks nvcc's ``-arch`` (none: GPU 0's, else sm_80).
    compile : bool
        Run nvcc now instead of on the first launch.
    fmt : str
        ``"cubin"``, ``"fatbin"`` or ``"ptx"``.
    """
    target = _as_target(target)
    if isinstance(device_mod, PrimFunc):
        device_mod = IRModule({"main": device_mod})
    source = codegen(device_mod, target)
    impl = CUDAModuleImpl(source, _function_info(device_mod), _arch(target), fmt)
    if compile:
        impl.binary()
    return Module(impl)


def lower_for_cuda(mod, target=None) -> tuple[IRModule, IRModule]:
    """``(host_mod, device_mod)``: the driver's lowering for a cuda target, for reading.

    The same passes as ``tvm.compile`` (:func:`cuda_tir_pipeline`, then
    :func:`finalize_device_passes` on the kernels); the host functions are not finalized.
    """
    target = _as_target(target)
    if isinstance(mod, PrimFunc):
        name = str(mod.get_attr("global_symbol") or "main")
        mod = IRModule({name: mod})
    mod = Sequential([_t.BindTarget(target), cuda_tir_pipeline(target)], name="cuda")(mod)
    host, device = {}, {}
    for gvar, func in mod.functions.items():
        is_kernel = isinstance(func, PrimFunc) and func.get_attr("calling_conv") == 2
        (device if is_kernel else host)[gvar] = func
    device_mod = finalize_device_passes(target)(IRModule(device))
    return IRModule(host), device_mod
