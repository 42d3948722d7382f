"""cache_inplace as Apache TVM 0.27 (expected outputs checked against it): a copy in before the
block, the block working on the copy, a copy back after it, in the innermost loop holding it."""

import numpy as np
import pytest

import tvm
from tvm import s_tir
from tvm.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def doubled_rows(A: T.Buffer((16,), "float32")):
    for i in range(4):
        with T.sblock("update"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4])
            T.writes(A[vi * 4:vi * 4 + 4])
            for j in range(4):
                A[vi * 4 + j] = A[vi * 4 + j] * T.float32(2)


# TVM 0.27 leaves the block's ``vi`` in the copies' bindings (a free variable); pytvm binds
# them with ``vi``'s value ``i``, which is what the copies need.
@T.prim_func(s_tir=True)
def doubled_rows_cached(A: T.Buffer((16,), "float32")):
    A_local = T.sblock_alloc_buffer((16,), scope="local")
    for i in range(4):
        for ax0 in range(4):
            with T.sblock("A_local"):
                v0 = T.axis.spatial(16, i * 4 + ax0)
                T.reads(A[v0])
                T.writes(A_local[v0])
                A_local[v0] = A[v0]
        with T.sblock("update"):
            vi = T.axis.spatial(4, i)
            T.reads(A_local[vi * 4:vi * 4 + 4])
            T.writes(A_local[vi * 4:vi * 4 + 4])
            for j in range(4):
                A_local[vi * 4 + j] = A_local[vi * 4 + j] * T.float32(2)
        for ax0 in range(4):
            with T.sblock("A_local_1"):
                v0 = T.axis.spatial(16, i * 4 + ax0)
                T.reads(A_local[v0])
                T.writes(A[v0])
                A[v0] = A_local[v0]


def test_cache_inplace_in_loop():
    sch = s_tir.Schedule(doubled_rows, debug_mask="all")
    copy_in, copy_back = sch.cache_inplace("update", 0, "local")
    assert_structural_equal_ignore_global_symbol(doubled_rows_cached, sch.mod["main"])
    assert sch.get(copy_in).name_hint == "A_local"
    assert sch.get(copy_back).name_hint == "A_local_1"
    verify_trace_roundtrip(sch, doubled_rows)
    assert "cache_inplace(block=b0, read_buffer_index=0, storage_scope=\"local\")" in str(
        sch.trace)


def test_cache_inplace_computes_the_same():
    sch = s_tir.Schedule(doubled_rows)
    sch.cache_inplace("update", "A", "global")
    data = np.arange(16, dtype="float32")
    a = tvm.runtime.tensor(data.copy())
    tvm.compile(sch.mod["main"], target="llvm")(a)
    np.testing.assert_allclose(a.numpy(), data * 2)


@T.prim_func(s_tir=True)
def extern_call(data_io: T.Buffer((64,), "int32")):
    with T.sblock("ext_call"):
        T.reads(data_io[0:64])
        T.writes(data_io[0:64])
        T.evaluate(T.call_extern("call_impl", data_io.data, dtype=""))


@T.prim_func(s_tir=True)
def extern_call_cached(data_io: T.Buffer((64,), "int32")):
    data_io_shared = T.sblock_alloc_buffer((64,), "int32", scope="shared")
    for ax0 in range(64):
        with T.sblock("data_io_shared"):
            v0 = T.axis.spatial(64, ax0)
            T.reads(data_io[v0])
            T.writes(data_io_shared[v0])
            data_io_shared[v0] = data_io[v0]
    with T.sblock("ext_call"):
        T.reads(data_io_shared[0:64])
        T.writes(data_io_shared[0:64])
        T.evaluate(T.call_extern("call_impl", data_io_shared.data, dtype=""))
    for ax0 in range(64):
        with T.sblock("data_io_shared_1"):
            v0 = T.axis.spatial(64, ax0)
            T.reads(data_io_shared[v0])
            T.writes(data_io[v0])
            data_io[v0] = data_io_shared[v0]


def test_cache_inplace_without_loop_swaps_the_data_var():
    sch = s_tir.Schedule(extern_call, debug_mask="all")
    sch.cache_inplace(sch.get_sblock("ext_call"), 0, "shared")
    assert_structural_equal_ignore_global_symbol(extern_call_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, extern_call)


@T.prim_func(s_tir=True)
def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + T.float32(1)


def test_cache_inplace_needs_a_read_write_buffer():
    sch = s_tir.Schedule(add_one)
    with pytest.raises(s_tir.ScheduleError, match="does not both read & write") as info:
        sch.cache_inplace("B", 0, "local")
    assert "^^^^" in str(info.value)


def test_cache_inplace_bad_scope_and_index():
    sch = s_tir.Schedule(doubled_rows)
    with pytest.raises(s_tir.ScheduleError, match="storage scope"):
        sch.cache_inplace("update", 0, "nowhere")
    with pytest.raises(s_tir.ScheduleError, match="out of range"):
        sch.cache_inplace("update", 3, "local")
    with pytest.raises(ValueError, match="no read buffer"):
        sch.cache_inplace("update", "B", "local")
