"""BindTarget, AnnotateEntryFunc, SplitHostDevice, MakePackedAPI and StorageRewrite."""

import pytest

import tvm
from tvm.tirx import (
    AllocBuffer,
    BufferStore,
    DeclBuffer,
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


def test_make_packed_api_compound_shapes_need_bound_variables():
    n = Var("n", "int32")
    A = decl_buffer((n * 2,), "float32", name="A")
    func = PrimFunc([A], BufferStore(A, 1.0, [0])).with_attr("global_symbol", "twice")
    with pytest.raises(ValueError, match=r"function twice, parameter A.*shape\[0\] = n \* 2 "
                                         r"uses n, which no plain dimension"):
        T.MakePackedAPI()(tvm.IRModule({"twice": func}))
    B = decl_buffer((n,), "float32", name="B")
    ok = PrimFunc([B, A], BufferStore(A, 1.0, [0])).with_attr("global_symbol", "ok")
    assert T.MakePackedAPI()(tvm.IRModule({"ok": ok}))["ok"].get_attr("calling_conv") == 1


def test_make_packed_api_rejects_raw_handles():
    h = Var("h", "handle")
    A = decl_buffer((4,), "float32", name="A")
    func = PrimFunc([h], BufferStore(A, 1.0, [0])).with_attr("global_symbol", "raw")
    with pytest.raises(ValueError, match="function raw, parameter h.*raw pointer"):
        T.MakePackedAPI()(tvm.IRModule({"raw": func}))


def test_split_host_device_cpu_and_gpu():
    func = T.SplitHostDevice()(tvm.IRModule({"f": _simple()}))["f"]
    assert func.get_attr("tirx.is_host_func") is None  # CPU functions stay unmarked (0.27)
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


def _chain(size_t2=64):
    A = decl_buffer((64,), "float32", name="A")
    C = decl_buffer((64,), "float32", name="C")
    t1 = decl_buffer((64,), "float32", name="t1")
    t2 = decl_buffer((size_t2,), "float32", name="t2")
    i = Var("i", "int32")
    body = SeqStmt([
        AllocBuffer(t1), AllocBuffer(t2),
        For(i, 0, 64, ForKind.SERIAL, BufferStore(t1, A[i] * 2.0, [i])),
        For(i, 0, 64, ForKind.SERIAL, BufferStore(C, t1[i] + 1.0, [i])),
        For(i, 0, 64, ForKind.SERIAL, BufferStore(t2, C[i] * 3.0, [i % size_t2])),
        For(i, 0, 64, ForKind.SERIAL, BufferStore(C, t2[i % size_t2], [i])),
    ])
    return PrimFunc([A, C], body), t1


def test_storage_rewrite_reuses_dead_allocation():
    import numpy as np

    from tvm.tirx.interpreter import run_prim_func

    func, t1 = _chain()
    out = T.StorageRewrite()(tvm.IRModule({"f": func}))["f"]
    allocs = [s for s in out.body.seq if isinstance(s, AllocBuffer)]
    assert [a.buffer.name for a in allocs] == ["t1"]
    assert isinstance(out.body.seq[1], DeclBuffer) and out.body.seq[1].buffer.data is t1.data
    store_t2 = out.body.seq[-2].body
    assert store_t2.buffer.name == "t2" and store_t2.buffer.data is t1.data
    a = np.arange(64, dtype="float32")
    want, got = np.zeros(64, "float32"), np.zeros(64, "float32")
    run_prim_func(func, [a, want])
    run_prim_func(out, [a, got])
    np.testing.assert_array_equal(got, want)


def test_storage_rewrite_keeps_larger_buffers_apart():
    func, _ = _chain(size_t2=128)  # t2 does not fit in t1
    out = T.StorageRewrite()(tvm.IRModule({"f": func}))["f"]
    allocs = [s for s in out.body.seq if isinstance(s, AllocBuffer)]
    assert [a.buffer.name for a in allocs] == ["t1", "t2"]
