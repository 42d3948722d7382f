"""BindTarget, AnnotateEntryFunc, SplitHostDevice, MakePackedAPI and StorageRewrite."""

import pytest

import tvm
from tvm.tirx import (
    AllocBuffer,
    BufferStore,
    For,
    ForKind,
    PrimFunc,
    SeqStmt,
    Var,
    decl_buffer,
)
from tvm.tirx import transform as T


def _simple(name="f"):
    A = decl_buffer((4,), "float32", name="A")
    return PrimFunc([A], BufferStore(A, 1.0, [0])).with_attr("global_symbol", name)


def test_bind_target_and_entry():
    mod = tvm.IRModule({"f": _simple()})
    mod = T.BindTarget("llvm")(mod)
    mod = T.AnnotateEntryFunc()(mod)
    func = mod["f"]
    assert func.get_attr("target") == "llvm"
    assert func.get_attr("tirx.is_entry_func") is True
    two = T.AnnotateEntryFunc()(tvm.IRModule({"f": _simple("f"), "g": _simple("g")}))
    assert two["f"].get_attr("tirx.is_entry_func") is None


def test_make_packed_api_sets_calling_convention():
    func = T.MakePackedAPI()(tvm.IRModule({"f": _simple()}))["f"]
    assert func.get_attr("calling_conv") == 1


def test_make_packed_api_rejects_compound_shapes():
    n = Var("n", "int32")
    A = decl_buffer((n * 2,), "float32", name="A")
    func = PrimFunc([A], BufferStore(A, 1.0, [0])).with_attr("global_symbol", "twice")
    with pytest.raises(ValueError, match=r"function twice, parameter A.*shape\[0\] = n \* 2"):
        T.MakePackedAPI()(tvm.IRModule({"twice": func}))


def test_make_packed_api_rejects_raw_handles():
    h = Var("h", "handle")
    A = decl_buffer((4,), "float32", name="A")
    func = PrimFunc([h], BufferStore(A, 1.0, [0])).with_attr("global_symbol", "raw")
    with pytest.raises(ValueError, match="function raw, parameter h.*raw pointer"):
        T.MakePackedAPI()(tvm.IRModule({"raw": func}))


def test_split_host_device_cpu_and_gpu():
    func = T.SplitHostDevice()(tvm.IRModule({"f": _simple()}))["f"]
    assert func.get_attr("tirx.is_host_func") is True
    A = decl_buffer((4,), "float32", name="A")
    tx = Var("tx", "int32")
    gpu = PrimFunc([A], For(tx, 0, 4, ForKind.THREAD_BINDING, BufferStore(A, 1.0, [tx])))
    with pytest.raises(ValueError, match="GPU thread-bound loops.*CUDA"):
        T.SplitHostDevice()(tvm.IRModule({"k": gpu.with_attr("global_symbol", "k")}))


def test_storage_rewrite_drops_unused_allocations():
    A = decl_buffer((4,), "float32", name="A")
    used = decl_buffer((4,), "float32", name="used")
    unused = decl_buffer((4,), "float32", name="unused")
    i = Var("i", "int32")
    body = SeqStmt([
        AllocBuffer(used), AllocBuffer(unused),
        For(i, 0, 4, ForKind.SERIAL, BufferStore(used, A[i], [i])),
        For(i, 0, 4, ForKind.SERIAL, BufferStore(A, used[i], [i])),
    ])
    out = T.StorageRewrite()(tvm.IRModule({"f": PrimFunc([A], body)}))["f"]
    allocs = [s for s in out.body.seq if isinstance(s, AllocBuffer)]
    assert [a.buffer.name for a in allocs] == ["used"]
