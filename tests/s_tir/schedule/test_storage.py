"""set_scope, unsafe_set_dtype, storage_align and reorder_block_iter_var."""

import pytest

from tvm import s_tir


def test_storage_primitives_match_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.set_scope(sch.get_sblock("B"), 0, "shared")
    sch.reorder_block_iter_var(sch.get_sblock("B"), [1, 0])
    sch.storage_align(sch.get_sblock("B"), 0, axis=0, factor=16, offset=1)
    sch.unsafe_set_dtype(sch.get_sblock("C"), 0, "float16")
    wl.assert_tvm_output(sch, "storage")


def test_set_scope_and_reorder_block_iter_var_compute_the_same(wl):
    func = wl.chain(7, 5)
    sch = s_tir.Schedule(func)
    sch.set_scope(sch.get_sblock("B"), 0, "shared")
    sch.set_scope(sch.get_sblock("B"), 0, "shared")  # already there: no change
    sch.set_scope(sch.get_sblock("C"), 0, "local")
    sch.reorder_block_iter_var(sch.get_sblock("C"), [1, 0])
    allocs = [(b.name, b.scope()) for b in sch.mod["main"].body.block.alloc_buffers]
    assert allocs == [("B_shared", "shared"), ("C_local", "local")]
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7,))
    wl.assert_replays(sch, func)


def test_unsafe_set_dtype_computes_in_the_new_dtype(wl):
    func = wl.chain(7, 5)
    sch = s_tir.Schedule(func)
    sch.unsafe_set_dtype(sch.get_sblock("B"), 0, "float16")
    import numpy as np

    a = wl.rand(7, 5)
    expected = (a * 2).astype("float16").astype("float32").sum(1) + 1
    np.testing.assert_allclose(wl.run(sch.mod["main"], [a], (7,)), expected, rtol=1e-3)
    wl.assert_replays(sch, func)


def test_storage_align_updates_one_entry_per_axis(wl):
    sch = s_tir.Schedule(wl.elemwise())
    b = sch.get_sblock("B")
    sch.storage_align(b, 0, axis=-1, factor=8, offset=0)
    sch.storage_align(b, 0, axis=1, factor=16, offset=2)
    assert [list(e) for e in sch.get(b).annotations["buffer_dim_align"]] == [[0, 1, 16, 2]]


def test_storage_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    d, b = sch.get_sblock("D"), sch.get_sblock("B")
    for prim, args in [("set_scope", ("shared",)), ("unsafe_set_dtype", ("float16",))]:
        with pytest.raises(s_tir.ScheduleError,
                           match="The input buffer D is not allocated by a block"):
            getattr(sch, prim)(d, 0, *args)
    with pytest.raises(s_tir.ScheduleError, match="write buffer index 1 is out of range"):
        sch.set_scope(b, 1, "shared")
    with pytest.raises(TypeError, match="storage_scope must be a str"):
        sch.set_scope(b, 0, 3)
    with pytest.raises(s_tir.ScheduleError, match=r"\(0, 0\) is not a valid permutation"):
        sch.reorder_block_iter_var(b, [0, 0])
    with pytest.raises(s_tir.ScheduleError, match=r"axis` is required to be in \[-2, 2\)"):
        sch.storage_align(b, 0, axis=3, factor=16, offset=1)
    with pytest.raises(s_tir.ScheduleError, match="factor must be positive"):
        sch.storage_align(b, 0, axis=0, factor=0, offset=1)


# Printed by TVM 0.27 after hiding read 1 (B) of matmul(4, 4, 4)'s block C.
HIDDEN_TRACE = '''# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  sch.unsafe_hide_buffer_access(block=b0, buf_type="read", buf_index_array=[1])'''


def test_unsafe_hide_buffer_access(wl):
    func = wl.matmul(4, 4, 4)
    sch = s_tir.Schedule(func, error_render_level="fast")
    c = sch.get_sblock("C")
    sch.unsafe_hide_buffer_access(c, "read", [1])
    assert "            T.reads(A[v_i, v_k])\n" in wl.script(sch)
    assert str(sch.trace) == HIDDEN_TRACE
    # Only the declaration changes: the computation is the same.
    wl.assert_same_result(func, sch, [wl.rand(4, 4), wl.rand(4, 4, seed=1)], (4, 4))
    with pytest.raises(s_tir.ScheduleError, match="integers between 0 and 0, got 5 instead"):
        sch.unsafe_hide_buffer_access(c, "read", [5])
    with pytest.raises(s_tir.ScheduleError, match="either be 'read' or 'write', got readx"):
        sch.unsafe_hide_buffer_access(c, "readx", [0])


def test_storage_align_rejects_a_function_parameter():
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def scale(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)

    sch = s_tir.Schedule(scale, error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="The input buffer C is not allocated by a "
                       "block"):
        sch.storage_align(sch.get_sblock("C"), 0, axis=0, factor=16, offset=1)
