"""Passes that set function attributes or check the calling convention.

* ``BindTarget(target)``: set the ``target`` attribute of functions that have none.
* ``AnnotateEntryFunc()``: a module with one PrimFunc marks it ``tirx.is_entry_func``.
* ``SplitHostDevice()``: split device kernels out of host functions; it lives in
  ``split_host_device.py`` and is re-exported here.
* ``MakePackedAPI()``: functions with a ``global_symbol`` get the packed calling convention
  (``calling_conv`` = 1, TVM's ``kCPackedFunc``): the code generator wraps them in a
  ``__tvm_ffi_<name>`` function that checks the argument count, ndim, dtype, device, static
  and symbolic shapes (``tvm.backend.llvm.packed_api``). The pass checks that every parameter
  can be described that way and raises ``ValueError`` naming the function and parameter
  otherwise. A ``T.TensorMap()`` parameter (a TMA descriptor) is taken as an opaque pointer
  to the caller's 128-byte descriptor. A function with a GPU target (the host side of a kernel launch) gets the
  target's host (``llvm`` when it has none) as its target.
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import IntImm, Var
from ..function import PrimFunc
from ..stmt_functor import post_order_visit
from ..type import is_tensormap_pointer
from .common import PrimFuncPass
from .split_host_device import SplitHostDevice, host_target, is_gpu_target

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


def check_packable(func: PrimFunc, name: str) -> None:
    """Raise ``ValueError`` when a parameter cannot be unpacked by the packed API."""
    bound, compound = set(), []
    for p in func.param_vars:
        buf = func.buffer_map.get(p)
        if buf is None:
            if p.dtype == "handle" and not is_tensormap_pointer(p.type_annotation):
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
    bound.update(id(p) for p in func.param_vars if p not in func.buffer_map)
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
        conv = func.get_attr("calling_conv")
        if conv is not None and int(conv) not in (0, CALLING_CONV_PACKED):
            return func  # a device kernel (kDeviceKernelLaunch) keeps its convention (as TVM)
        check_packable(func, str(name))
        target = func.get_attr("target")
        if is_gpu_target(target):
            # The host side of a GPU function (it launches the kernels SplitHostDevice made)
            # runs on the host target, as in TVM.
            func = func.with_attr("target", host_target(target))
        if func.get_attr("calling_conv") == CALLING_CONV_PACKED:
            return func
        return func.with_attr("calling_conv", CALLING_CONV_PACKED)

    return PrimFuncPass(run, PassInfo(0, "tirx.MakePackedAPI"))
