"""``SplitHostDevice``: move GPU kernels out of host functions.

Contract
--------
Input: PrimFuncs whose kernels are written in launch form, ``AttrStmt(IterVar(tag),
"thread_extent", extent, body)`` (``T.launch_thread``; thread-bound loops are turned into it by
:func:`~tvm.tirx.transform.LowerThreadBindingLoops`, which this pass runs first on GPU
functions that still have them).

For a function whose ``target`` is a GPU target (kind ``cuda``, or a target with the ``gpu``
key), every outermost ``thread_extent`` region becomes a device PrimFunc named
``<name>_kernel`` (then ``<name>_kernel_1``, ...) with

* parameters: one pointer per buffer the region uses and does not allocate
  (``A_ptr: T.handle("float32", "global")``, with a ``T.decl_buffer(..., data=A_ptr)`` at the top
  of the kernel), in order of first use, then the scalar variables it reads;
* attributes ``global_symbol`` (its name), ``target`` (the device target, without its host),
  ``calling_conv`` = 2
  (``kDeviceKernelLaunch``), ``tirx.is_global_func``, ``tirx.noalias`` and
  ``tirx.kernel_launch_params``: the launch tags in order of first appearance
  (``["blockIdx.x", "threadIdx.x"]``), followed by ``"tirx.use_dyn_shared_memory"`` when the
  kernel allocates ``shared.dyn`` memory.

The region in the host function is replaced by the launch
``T.call_packed("f_kernel", <arguments>, <one extent per launch tag>[, <dynamic shared bytes>])``.
An explicit region ``T.attr(T.target("cuda"), "target", 0)`` becomes a kernel as above in
any function. A region for a CPU target stays inline (TVM makes it a kernel returning an
``int32`` error code, called through ``T.call_extern`` and checked by an assert; that is not
supported yet because the LLVM backend compiles every function with the packed API). A device
kernel may only ``T.ret(0)``; another
return value raises ``tvm.error.InternalError`` (TVM's check). Kernels keep the ``s_tir`` mark
of their function. Otherwise functions for CPU targets are left as they are (no
``tirx.is_host_func`` mark, as TVM 0.27); their virtual-thread loops become serial loops, and
a hardware thread-bound loop in a CPU function raises ``ValueError``.

Difference from TVM 0.27: TVM's host side calls ``T.call_ffi_kernel(...)`` with the tags as a
keyword; here the launch is a plain ``call_packed`` whose trailing arguments are the extents,
in the order of the kernel's ``tirx.kernel_launch_params``.
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...error import InternalError
from ...ir.expr import GlobalVar
from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo
from ...ir.type import PointerType, PrimType
from ...runtime.data_type import dtype_info
from ..buffer import Buffer
from ..expr import IntImm, Var
from ..function import PrimFunc
from ..op import call_packed
from ..stmt import (
    AllocBuffer,
    AttrStmt,
    Bind,
    DeclBuffer,
    Evaluate,
    For,
    ForKind,
    Return,
    SeqStmt,
)
from ..stmt_functor import (
    StmtExprMutator,
    StmtExprVisitor,
    StmtMutator,
    StmtVisitor,
    ir_transform,
    post_order_visit,
)
from .thread_binding import is_hardware_thread_tag, lower_thread_binding_loops

__all__ = [
    "CALLING_CONV_DEVICE_KERNEL_LAUNCH",
    "DYN_SHARED_MEMORY_TAG",
    "SplitHostDevice",
    "dyn_shared_memory_layout",
    "host_target",
    "is_gpu_target",
    "split_host_device",
]

CALLING_CONV_DEVICE_KERNEL_LAUNCH = 2
DYN_SHARED_MEMORY_TAG = "tirx.use_dyn_shared_memory"
#: Alignment of each ``shared.dyn`` buffer inside the kernel's dynamic shared memory.
DYN_SHARED_ALIGN = 16


def is_gpu_target(target) -> bool:
    """Whether ``target`` (a ``Target``, or None) compiles for a GPU."""
    if target is None:
        return False
    kind = getattr(getattr(target, "kind", None), "name", None)
    return kind == "cuda" or "gpu" in tuple(getattr(target, "keys", ()) or ())


def host_target(target):
    """The host target of a device target (``llvm`` when it names none)."""
    host = getattr(target, "host", None)
    return host if host is not None else type(target)("llvm")


def _device_target(target):
    host = getattr(target, "host", None)
    if host is None:
        return target
    config = dict(target.export())
    config.pop("host", None)
    return type(target)(config)


def dyn_shared_memory_layout(buffers) -> tuple[dict, object]:
    """Byte offsets of ``shared.dyn`` buffers packed in one array, and the total size.

    Each buffer starts at a multiple of 16 bytes. Returns ``({id(buffer.data): offset},
    total)``; offsets and total are ints, or PrimExprs when a size is symbolic. The CUDA code
    generator lays the buffers out the same way.
    """
    offsets, total = {}, 0
    for buf in buffers:
        info = dtype_info(buf.dtype)
        elem_bytes = max(1, info.bits * info.lanes // 8)
        size = 1
        for extent in buf.shape:
            size = size * (extent.value if isinstance(extent, IntImm) else extent)
        offsets[id(buf.data)] = total
        # Works on ints and on PrimExprs alike (``//`` is floordiv there).
        total = (total + size * elem_bytes + DYN_SHARED_ALIGN - 1) // DYN_SHARED_ALIGN
        total = total * DYN_SHARED_ALIGN
    if not isinstance(total, int):
        simplify = Analyzer().simplify
        offsets = {k: v if isinstance(v, int) else simplify(v) for k, v in offsets.items()}
        total = simplify(total)
    return offsets, total


# --- CPU functions ----------------------------------------------------------------------------


class _ThreadBindingFinder(StmtVisitor):
    # Loops are statements, so the walk skips expressions (most of a kernel's nodes).
    found = False

    def visit_for_(self, op: For):
        if op.kind == ForKind.THREAD_BINDING or op.thread_binding is not None:
            self.found = True
        elif not self.found:
            super().visit_for_(op)


def _has_thread_binding(stmt) -> bool:
    finder = _ThreadBindingFinder()
    finder(stmt)
    return finder.found


def _is_virtual_thread_loop(node) -> bool:
    binding = node.thread_binding
    return (binding is not None and node.kind == ForKind.THREAD_BINDING
            and (binding.thread_tag.startswith("vthread") or binding.thread_tag == "cthread"))


def _virtual_threads_to_serial(stmt):
    def postorder(node):
        if isinstance(node, For) and _is_virtual_thread_loop(node):
            return For(node.loop_var, node.min, node.extent, ForKind.SERIAL, node.body,
                       annotations=node.annotations, step=node.step, span=node.span)
        return None

    return ir_transform(stmt, None, postorder, ["tirx.For"])


def _has_target_region(stmt) -> bool:
    """Whether ``stmt`` holds a ``T.attr(gpu_target, "target", 0)`` region (an explicit kernel)."""
    found = []

    def visit(node):
        if isinstance(node, AttrStmt) and node.attr_key == "target" and is_gpu_target(node.node):
            found.append(node)

    post_order_visit(stmt, visit)
    return bool(found)


def _cpu_host_function(func: PrimFunc) -> PrimFunc:
    """A CPU function is host code: virtual threads become serial loops; GPU loops raise."""
    # One walk in the usual case: without thread-bound loops (virtual ones included) there
    # is nothing to convert.
    if not _has_thread_binding(func.body):
        return func
    body = _virtual_threads_to_serial(func.body)
    if body is not func.body:
        func = func.replace(body=body)
    if _has_thread_binding(func.body):
        name = func.get_attr("global_symbol") or "<anonymous>"
        kind = getattr(getattr(func.get_attr("target"), "kind", None), "name", "cpu")
        raise ValueError(
            f"SplitHostDevice: function {name} has GPU thread-bound loops; device code "
            f"generation is not available for its target ({kind}); compile it for a CUDA "
            "target (target=\"cuda\", see tvm.backend.cuda)"
        )
    return func


# --- analysis of one kernel region -------------------------------------------------------------


class _RegionUses(StmtExprVisitor):
    """Free variables and outside buffers of a kernel region, in order of first use."""

    def __init__(self):
        super().__init__()
        self.defined: set = set()
        self.buffers: dict = {}  # id(data var) -> Buffer used from outside
        self.scalars: dict = {}  # id(var) -> Var
        self.launch: dict = {}  # tag -> extent
        self.dyn_shared: list = []
        self.dyn_smem_bytes = None  # a T.attr({"tirx.dyn_smem_bytes": n}) (SMEMPool.commit)

    def _use_buffer(self, buf):
        key = id(buf.data)
        if key not in self.defined and key not in self.buffers:
            self.buffers[key] = buf

    def visit_var_(self, op):
        # Pointers (``A.data``) land here too; the splitter matches them to their buffers.
        if id(op) not in self.defined:
            self.scalars.setdefault(id(op), op)

    def visit_buffer_load_(self, op):
        self._use_buffer(op.buffer)
        super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        self._use_buffer(op.buffer)
        super().visit_buffer_store_(op)

    def visit_for_(self, op: For):
        self.defined.add(id(op.loop_var))
        super().visit_for_(op)

    def visit_bind_(self, op: Bind):
        super().visit_bind_(op)
        self.defined.add(id(op.var))

    def visit_let_(self, op):
        self.defined.add(id(op.var))
        super().visit_let_(op)

    def visit_attr_stmt_(self, op: AttrStmt):
        if op.attr_key == "thread_extent":
            tag = op.node.thread_tag
            self.visit_expr(op.value)
            self.defined.add(id(op.node.var))
            self.launch.setdefault(tag, op.value)
            self.visit_stmt(op.body)
            return
        if op.attr_key == "tirx.dyn_smem_bytes":
            self.dyn_smem_bytes = op.value
        super().visit_attr_stmt_(op)

    def visit_alloc_buffer_(self, op: AllocBuffer):
        super().visit_alloc_buffer_(op)
        self.defined.add(id(op.buffer.data))
        if op.buffer.scope() == "shared.dyn":
            self.dyn_shared.append(op.buffer)

    def visit_decl_buffer_(self, op: DeclBuffer):
        if op.buffer.scope() == "tmem" and (op.data is None
                                            or op.buffer.allocated_addr is not None):
            # tensor memory is the kernel's own (addressed through allocated_addr)
            self.defined.add(id(op.buffer.data))
            if op.buffer.allocated_addr is not None:
                for addr in op.buffer.allocated_addr:
                    self.visit_expr(addr)
        elif op.data is None:
            self._use_buffer(op.buffer)
        else:
            self.visit_expr(op.data)
            self.defined.add(id(op.buffer.data))
        for extent in op.buffer.shape:
            self.visit_expr(extent)


class _Remap(StmtExprMutator):
    """Replace variables and the data pointers of buffers."""

    def __init__(self, var_map: dict):
        super().__init__()
        self.var_map = var_map  # id(old var) -> new var
        self.buffers: dict = {}

    def visit_var_(self, op):
        return self.var_map.get(id(op), op)

    def _buffer(self, buf):
        new = self.buffers.get(id(buf))
        if new is None:
            data = self.var_map.get(id(buf.data), buf.data)
            shape = self._exprs(buf.shape)
            new = buf
            if data is not buf.data or shape is not buf.shape:
                new = buf.replace(data=data, shape=shape)
            self.buffers[id(buf)] = new
        return new

    def visit_buffer_def(self, buffer):
        return self._buffer(buffer)

    def visit_buffer_use(self, buffer):
        return self._buffer(buffer)


def _pointer_param(buf: Buffer) -> Var:
    scope = buf.scope() or "global"
    return Var(f"{buf.name}_ptr", PointerType(PrimType(buf.dtype), scope))


def _host_buffers(func: PrimFunc) -> dict:
    """``{id(data var): Buffer}`` of the buffers a function declares (to type bare pointers)."""
    found = {id(b.data): b for b in func.buffer_map.values()}

    def visit(node):
        if isinstance(node, (AllocBuffer, DeclBuffer)):
            found.setdefault(id(node.buffer.data), node.buffer)

    post_order_visit(func.body, visit)
    return found


class _Splitter(StmtMutator):
    def __init__(self, func: PrimFunc, name: str, device_target, taken=()):
        super().__init__()
        self.func = func
        self.name = name
        self.device_target = device_target
        self.gpu_function = is_gpu_target(func.get_attr("target"))
        self.taken = set(taken)  # function names already in the module
        self.kernels: list = []  # (name, PrimFunc)
        self.host_buffers = _host_buffers(func)
        # Launch flags set on the host function (e.g. programmatic dependent launch) carry
        # over to its kernels; they add no launch argument.
        self.flags = [str(t) for t in (func.get_attr("tirx.kernel_launch_params") or [])
                      if not is_hardware_thread_tag(str(t))]

    def _param_rank(self) -> dict:
        rank = {}
        for i, p in enumerate(self.func.param_vars):
            buf = self.func.buffer_map.get(p)
            rank[id(buf.data if buf is not None else p)] = i
        return rank

    def _kernel_name(self):
        base, k = f"{self.name}_kernel", 0
        name = base
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def visit_attr_stmt_(self, op: AttrStmt):
        if op.attr_key == "thread_extent" and self.gpu_function:
            return self._split(op, op)
        if op.attr_key == "target" and is_gpu_target(op.node):
            # ``T.attr(T.target("cuda"), "target", 0)`` marks a device region explicitly. A
            # CPU-target region stays inline: TVM makes it a kernel returning an error code,
            # but the LLVM backend here compiles every function with the packed API and cannot
            # emit the C-convention kernel the host would call.
            return self._split(op.body, op, _device_target(op.node))
        return super().visit_attr_stmt_(op)

    def _split(self, region, marker, device_target=None):
        _check_kernel_returns(region, self.name)
        params, body, args, uses = self._kernel_signature(region)
        # cluster shapes are launch values too (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        tags = [t for t in uses.launch if is_hardware_thread_tag(t)
                or t.startswith(("clusterCtaIdx.", "preferredClusterCtaIdx."))]
        extents = [uses.launch[t] for t in tags]
        launch_params = list(tags) + self.flags
        if uses.dyn_shared:
            _, total = dyn_shared_memory_layout(uses.dyn_shared)
            if uses.dyn_smem_bytes is not None:  # a pool's declared size wins (as 0.27)
                total = uses.dyn_smem_bytes
            launch_params.append(DYN_SHARED_MEMORY_TAG)
            extents.append(total)
        kernel_name = self._kernel_name()
        attrs = {
            "calling_conv": CALLING_CONV_DEVICE_KERNEL_LAUNCH,
            "global_symbol": kernel_name,
            "target": device_target if device_target is not None else self.device_target,
            "tirx.is_global_func": True,
            "tirx.kernel_launch_params": launch_params,
            "tirx.noalias": True,
        }
        if self.func.get_attr("s_tir"):
            attrs["s_tir"] = True  # a schedulable function's kernels stay marked (as TVM)
        kernel = PrimFunc(params, body, attrs=attrs)
        self.kernels.append((kernel_name, kernel))
        return Evaluate(call_packed(kernel_name, *args, *extents), span=marker.span)

    def _kernel_signature(self, region):
        """``(params, body, host arguments, uses)`` of the kernel made from ``region``."""
        uses = _RegionUses()
        uses.visit_stmt(region)
        for key, var in list(uses.scalars.items()):
            buf = self.host_buffers.get(key)
            if var.dtype == "handle" and buf is not None and key not in uses.buffers:
                uses.buffers[key] = buf  # the kernel uses only ``A.data``: pass A
        # Parameters follow the host function's parameter order (TVM's order), then first use.
        rank = self._param_rank()
        buffers = sorted(uses.buffers.values(), key=lambda b: rank.get(id(b.data), len(rank)))
        data_ids = {id(b.data) for b in buffers}
        scalars = [v for k, v in uses.scalars.items()
                   if k not in uses.defined and k not in data_ids]
        scalars.sort(key=lambda v: rank.get(id(v), len(rank)))
        for var in scalars:
            if var.dtype == "handle" and not _is_tensor_map(var):
                raise ValueError(
                    f"SplitHostDevice: function {self.name}: the kernel uses the pointer "
                    f"{var.name} without a buffer; declare a buffer over it (T.decl_buffer)"
                )
        var_map, params, decls = {}, [], []
        for buf in buffers:
            param = _pointer_param(buf)
            var_map[id(buf.data)] = param
            params.append(param)
        for var in scalars:
            # A TMA descriptor (T.TensorMap()) keeps its type: the kernel takes it by value.
            new = Var(var.name, var.type_annotation if _is_tensor_map(var) else var.dtype)
            var_map[id(var)] = new
            params.append(new)
        remap = _Remap(var_map)
        body = remap.visit_stmt(region)
        for buf in buffers:
            kernel_buf = remap.visit_buffer_def(buf)
            # ``T.decl_buffer(shape, data=A_data)``: the declaration names its pointer (TVM's form)
            decls.append(DeclBuffer(kernel_buf, data=kernel_buf.data))
        body = SeqStmt.flatten([*decls, body]) if decls else body
        args = [buf.data for buf in buffers] + scalars
        return params, body, args, uses


def _check_kernel_returns(region, name: str) -> None:
    """A device kernel has no return channel: only ``T.ret(0)`` (success) may appear."""

    def visit(node):
        if isinstance(node, Return):
            value = node.value
            if not (isinstance(value, IntImm) and value.value == 0):
                # TVM 0.27 reports this as an internal check (ICHECK): kernels made by the
                # pipeline never return a value; the same error kind is kept here.
                raise InternalError(
                    f"SplitHostDevice: function {name}: a device kernel may only use the "
                    f"successful return (T.ret(0)); it returns {value}"
                )

    post_order_visit(region, visit)


def split_host_device(func: PrimFunc, name: str, taken=()) -> tuple[PrimFunc, list]:
    """Split one function: ``(host function, [(kernel name, kernel PrimFunc), ...])``.

    ``taken``: function names already used in the module (kernel names avoid them).
    """
    target = func.get_attr("target")
    if not is_gpu_target(target):
        func = _cpu_host_function(func)
        if not _has_target_region(func.body):
            return func, []
    else:
        func = lower_thread_binding_loops(func)
    splitter = _Splitter(func, name, _device_target(target), taken)
    body = splitter.visit_stmt(func.body)
    host = func if body is func.body else func.with_body(body)
    return host, splitter.kernels


def SplitHostDevice():
    """The pass object (see module doc): adds the kernels to the module."""

    def run(mod, ctx):
        funcs, changed = {}, False
        taken = {g.name_hint for g in mod.functions}
        for gvar, func in mod.functions.items():
            if not isinstance(func, PrimFunc):
                funcs[gvar] = func
                continue
            name = str(func.get_attr("global_symbol") or gvar.name_hint)
            host, kernels = split_host_device(func, name, taken)
            changed = changed or host is not func or bool(kernels)
            funcs[gvar] = host
            for kernel_name, kernel in kernels:
                funcs[GlobalVar(kernel_name)] = kernel
        if not changed:
            return mod
        return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)

    return ModulePass(run, PassInfo(0, "tirx.SplitHostDevice"))


def _is_tensor_map(var) -> bool:
    ann = getattr(var, "type_annotation", None)
    return type(getattr(ann, "element_type", None)).__name__ == "TensorMapType"
