"""Passes that set function attributes or check the calling convention.

* ``BindTarget(target)``: set the ``target`` attribute of functions that have none.
* ``AnnotateEntryFunc()``: a module with one PrimFunc marks it ``tirx.is_entry_func``.
* ``SplitHostDevice()``: split device kernels out of host functions. On CPU targets (the only
  ones the code generator has now) everything is host code, so functions are only marked
  ``tirx.is_host_func``; a function with GPU thread-bound loops raises ``ValueError`` until
  the CUDA backend plugs its split in here. Loops bound to virtual threads (``vthread*``,
  ``cthread``) are host code: they become serial loops (TVM interleaves their iterations; for
  race-free code, which a virtual-thread binding requires, the result is the same).
* ``MakePackedAPI()``: functions with a ``global_symbol`` get the packed calling convention
  (``calling_conv`` = 1, TVM's ``kCPackedFunc``): the code generator wraps them in a
  ``__tvm_ffi_<name>`` function that checks the argument count, ndim, dtype, device, static
  and symbolic shapes (``tvm.backend.llvm.packed_api``). The pass checks that every parameter
  can be described that way and raises ``ValueError`` naming the function and parameter
  otherwise.
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import IntImm, Var
from ..function import PrimFunc
from ..stmt import For, ForKind
from ..stmt_functor import StmtVisitor, ir_transform, post_order_visit
from .common import PrimFuncPass

__all__ = ["AnnotateEntryFunc", "BindTarget", "MakePackedAPI", "SplitHostDevice"]

CALLING_CONV_PACKED = 1


def BindTarget(target):
    """Set ``target`` on every PrimFunc without one."""

    def run(func, mod, ctx):
        if func.get_attr("target") is not None:
            return func
        return func.with_attr("target", target)

    return PrimFuncPass(run, PassInfo(0, "tirx.BindTarget"))


def AnnotateEntryFunc():
    """Mark the only PrimFunc of a module as the entry function."""

    def run(func, mod, ctx):
        prim_funcs = [f for f in mod.functions.values() if isinstance(f, PrimFunc)]
        if len(prim_funcs) != 1 or func.get_attr("tirx.is_entry_func"):
            return func
        return func.with_attr("tirx.is_entry_func", True)

    return PrimFuncPass(run, PassInfo(0, "tirx.AnnotateEntryFunc"))


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


def SplitHostDevice():
    """Host/device split; for CPU targets every function is host code (see module doc)."""

    def run(func, mod, ctx):
        # One walk in the usual case: without thread-bound loops (virtual ones included)
        # there is nothing to convert.
        if not _has_thread_binding(func.body):
            return _mark_host(func)
        body = _virtual_threads_to_serial(func.body)
        if body is not func.body:
            func = func.replace(body=body)
        if _has_thread_binding(func.body):
            name = func.get_attr("global_symbol") or "<anonymous>"
            raise ValueError(
                f"SplitHostDevice: function {name} has GPU thread-bound loops; device code "
                "generation (CUDA) is not available in this build"
            )
        return _mark_host(func)

    return PrimFuncPass(run, PassInfo(0, "tirx.SplitHostDevice"))


def _mark_host(func):
    if func.get_attr("tirx.is_host_func"):
        return func
    return func.with_attr("tirx.is_host_func", True)


def check_packable(func: PrimFunc, name: str) -> None:
    """Raise ``ValueError`` when a parameter cannot be unpacked by the packed API."""
    bound, compound = set(), []
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is None:
            if p.dtype == "handle":
                raise ValueError(
                    f"MakePackedAPI: function {name}, parameter {p.name}: a handle without a "
                    "buffer_map entry (raw pointer) is not supported yet"
                )
            continue
        for extent in buf.shape:
            if isinstance(extent, Var):
                bound.add(id(extent))
        for dim, extent in enumerate(buf.shape):
            if isinstance(extent, (IntImm, Var)):
                continue
            compound.append((p.name, dim, extent))
    # A compound dim (``n * 2``) is checked at call time against the variables that plain
    # dims or scalar parameters bind; each of its variables must be bound that way.
    bound.update(id(p) for p in func.params if p not in func.buffer_map)
    for pname, dim, extent in compound:
        free = []
        post_order_visit(extent, lambda n, free=free: free.append(n) if isinstance(n, Var) else 0)
        for var in free:
            if id(var) not in bound:
                raise ValueError(
                    f"MakePackedAPI: function {name}, parameter {pname}: shape[{dim}] = "
                    f"{extent} uses {var.name}, which no plain dimension or scalar parameter "
                    "binds"
                )


def MakePackedAPI():
    """Give exported functions the packed calling convention (see module doc)."""

    def run(func, mod, ctx):
        name = func.get_attr("global_symbol")
        if name is None:
            return func
        check_packable(func, str(name))
        if func.get_attr("calling_conv") == CALLING_CONV_PACKED:
            return func
        return func.with_attr("calling_conv", CALLING_CONV_PACKED)

    return PrimFuncPass(run, PassInfo(0, "tirx.MakePackedAPI"))
