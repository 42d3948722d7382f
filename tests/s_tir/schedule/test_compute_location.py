"""compute_inline, reverse_compute_inline, compute_at and reverse_compute_at."""

import pytest

from tvm import s_tir, te
from tvm.ffi.structural import structural_equal


def _loops(sch, name):
    return sch.get_loops(sch.get_sblock(name))


# --- compute_inline ---------------------------------------------------------------------------
def test_compute_inline_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.compute_inline(sch.get_sblock("B"))
    wl.assert_tvm_output(sch, "inline")


def test_compute_inline_equals_the_inlined_te_compute(wl):
    sch = s_tir.Schedule(wl.chain(7, 5))
    sch.compute_inline(sch.get_sblock("B"))
    A = te.placeholder((7, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((7,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="C")
    D = te.compute((7,), lambda i: C[i] + 1.0, name="D")
    expected = te.create_prim_func([A, D])
    assert structural_equal(sch.mod["main"], expected)


def test_compute_inline_computes_the_same(wl):
    func = wl.elemwise()
    sch = s_tir.Schedule(func)
    sch.compute_inline(sch.get_sblock("B"))
    assert "B" not in [b.name for b in sch.mod["main"].body.block.alloc_buffers]
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7, 5))
    wl.assert_replays(sch, func)


def test_compute_inline_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="The block 'C' is not a complete block"):
        sch.compute_inline(sch.get_sblock("C"))
    with pytest.raises(s_tir.ScheduleError, match="writes D, an output buffer of the function"):
        sch.compute_inline(sch.get_sblock("D"))
    with pytest.raises(s_tir.ScheduleError, match="root block cannot be inlined"):
        sch.compute_inline(sch.get_sblock("root"))
    sch.compute_inline(sch.get_sblock("B"))
    b = s_tir.SBlockRV
    assert b is not None
    with pytest.raises(s_tir.ScheduleError, match="Cannot find a block with the name: B"):
        sch.get_sblock("B")


def test_inlined_block_handle_expires(wl):
    sch = s_tir.Schedule(wl.chain())
    b = sch.get_sblock("B")
    sch.compute_inline(b)
    with pytest.raises(ValueError, match="block 'B' referred to by this SBlockRV no longer exists"):
        sch.get(b)


# --- reverse_compute_inline -------------------------------------------------------------------
def test_reverse_compute_inline_matches_tvm(wl):
    sch = s_tir.Schedule(wl.transpose_chain())
    sch.reverse_compute_inline(sch.get_sblock("C"))
    wl.assert_tvm_output(sch, "rinline")


def test_reverse_compute_inline_computes_the_same(wl):
    func = wl.transpose_chain(7, 5)
    sch = s_tir.Schedule(func)
    sch.reverse_compute_inline(sch.get_sblock("C"))
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (5, 7))
    wl.assert_replays(sch, func)


def test_reverse_compute_inline_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    # D's producer C is a reduction.
    with pytest.raises(s_tir.ScheduleError, match="producer block 'C' must be a complete block"):
        sch.reverse_compute_inline(sch.get_sblock("D"))
    with pytest.raises(s_tir.ScheduleError, match="'C' is not a complete block"):
        sch.reverse_compute_inline(sch.get_sblock("C"))
    # B reads only the input A: no producer block.
    with pytest.raises(s_tir.ScheduleError, match="only a single producer block, found 0"):
        sch.reverse_compute_inline(sch.get_sblock("B"))


# --- compute_at -------------------------------------------------------------------------------
def test_compute_at_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = _loops(sch, "C")
    sch.compute_at(sch.get_sblock("B"), i)
    wl.assert_tvm_output(sch, "compute_at")


def test_compute_at_under_split_loops_computes_the_same(wl):
    func = wl.matmul(9, 7, 5, relu=True)
    sch = s_tir.Schedule(func)
    i, j = _loops(sch, "D")
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 3])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_sblock("C"), jo)
    text = wl.script(sch)
    # Each (io, jo) tile computes a 4 x 3 tile of C (plus the reduction loop).
    assert "for ax0, ax1, ax2 in T.grid(4, 3, 5):" in text
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    wl.assert_replays(sch, func)


def test_compute_at_preserve_unit_loops_and_index(wl):
    func = wl.chain(7, 5)
    sch = s_tir.Schedule(func)
    i, _ = _loops(sch, "C")
    sch.compute_at(sch.get_sblock("B"), i, preserve_unit_loops=True, index=0)
    assert "for ax0, ax1 in T.grid(1, 5):" in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7,))


def test_compute_at_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    b = sch.get_sblock("B")
    bi, _ = _loops(sch, "B")
    di = _loops(sch, "D")[0]
    with pytest.raises(s_tir.ScheduleError, match="The loop i is an ancestor of block 'B'"):
        sch.compute_at(b, bi)
    with pytest.raises(s_tir.ScheduleError,
                       match="requires all the consumer.*the loop i is not an ancestor of any "
                             "consumer of block 'B'"):
        sch.compute_at(b, di)
    ci = _loops(sch, "C")[0]
    with pytest.raises(s_tir.ScheduleError, match="not a valid insertion point"):
        sch.compute_at(b, ci, index=5)


# --- reverse_compute_at -----------------------------------------------------------------------
def test_reverse_compute_at_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = _loops(sch, "C")
    sch.reverse_compute_at(sch.get_sblock("D"), i)
    wl.assert_tvm_output(sch, "rcompute_at")


def test_reverse_compute_at_under_split_loops_computes_the_same(wl):
    func = wl.matmul(9, 7, 5, relu=True)
    sch = s_tir.Schedule(func)
    i, _j, _k = _loops(sch, "C")
    io, _ii = sch.split(i, [None, 2])
    sch.reverse_compute_at(sch.get_sblock("D"), io)
    assert "for ax0, ax1 in T.grid(2, 7):" in wl.script(sch)
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    wl.assert_replays(sch, func)


def test_reverse_compute_at_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    d = sch.get_sblock("D")
    bi, _ = _loops(sch, "B")
    with pytest.raises(s_tir.ScheduleError,
                       match="requires all the producer.*the loop i is not an ancestor of any "
                             "producer of block 'D'"):
        sch.reverse_compute_at(d, bi)
    with pytest.raises(s_tir.ScheduleError, match="is an ancestor of block 'D'"):
        sch.reverse_compute_at(d, _loops(sch, "D")[0])


def test_compute_at_of_a_stencil_matches_tvm(wl):
    func = wl.stencil()
    sch = s_tir.Schedule(func)
    (i,) = sch.get_loops(sch.get_sblock("C"))
    io, _ = sch.split(i, [None, 4])
    sch.compute_at(sch.get_sblock("B"), io)
    # Each 4-wide tile of C needs 6 values of B (a halo of 2), guarded at the end.
    assert wl.script(sch) == wl.tvm_output("stencil_compute_at")[0]
    wl.assert_same_result(func, sch, [wl.rand(9)], (9,))
    wl.assert_replays(sch, func)


def test_compute_at_with_a_nonlinear_consumer_index(wl):
    # C[i, j] reads B[(j * j) % 7]: interval arithmetic over j gives a safe bound (or the whole
    # dimension), and the result is unchanged.
    A = te.placeholder((7,), name="A")
    B = te.compute((7,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((3, 7), lambda i, j: B[(j * j) % 7] * 2.0, name="C")
    func = te.create_prim_func([A, C])
    sch = s_tir.Schedule(func)
    i, _ = _loops(sch, "C")
    sch.compute_at(sch.get_sblock("B"), i)
    assert "for ax0 in range(7):" in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(7)], (3, 7))
    wl.assert_replays(sch, func)


def test_reverse_compute_at_of_a_reduction_matches_tvm(wl):
    # C reads B[v_i, v_k] with v_k a reduction iterator: each row of B feeds one row of C.
    func = wl.chain(6, 5)
    sch = s_tir.Schedule(func)
    sch.reverse_compute_at(sch.get_sblock("C"), _loops(sch, "B")[0])
    assert wl.script(sch) == wl.tvm_output("reverse_compute_at_reduction")[0]
    wl.assert_same_result(func, sch, [wl.rand(6, 5)], (6,))
    wl.assert_replays(sch, func)


def test_compute_at_scope_and_complete_block_errors():
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def nested(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi]
        for io in range(4):
            with T.sblock("C_outer"):
                vo = T.axis.spatial(4, io)
                for ii in range(4):
                    with T.sblock("C"):
                        vi = T.axis.spatial(16, vo * 4 + ii)
                        C[vi] = B[vi]

    sch = s_tir.Schedule(nested, error_render_level="fast")
    inner = sch.get_loops(sch.get_sblock("C"))[-1]
    with pytest.raises(s_tir.ScheduleError, match="under the same block scope: loop ii is in "
                       "block 'C_outer', block 'B' in 'root'"):
        sch.compute_at(sch.get_sblock("B"), inner)

    @T.prim_func(s_tir=True)
    def two_writers(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.sblock_alloc_buffer((16,))
        for i in range(8):
            with T.sblock("B_0"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi]
        for i in range(8):
            with T.sblock("B_1"):
                vi = T.axis.spatial(16, i + 8)
                B[vi] = A[vi]
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = B[vi]

    sch = s_tir.Schedule(two_writers, error_render_level="fast")
    loop = sch.get_loops(sch.get_sblock("C"))[0]
    with pytest.raises(s_tir.ScheduleError, match="'B_0' is not a complete block: it is not the "
                       "only writer"):
        sch.compute_at(sch.get_sblock("B_0"), loop)


def test_compute_inline_rejects_opaque_access():
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def opaque_reader(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        B = T.sblock_alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i in range(1):
            with T.sblock("D"):
                T.reads(B[0:16, 0:16])
                T.writes(C[0:16, 0:16])
                T.evaluate(T.call_extern("int32", "consume", B.data, C.data))

    sch = s_tir.Schedule(opaque_reader, error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match=r"B written by block 'B' is accessed "
                       r"opaquely .* by \['D'\]"):
        sch.compute_inline(sch.get_sblock("B"))
