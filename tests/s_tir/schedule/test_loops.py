"""Loop primitives: split, fuse, reorder, add_unit_loop, parallel, vectorize, unroll, bind."""

import pytest

import tvm
from tvm import s_tir
from tvm.tirx import ForKind


def _loops(sch, name):
    return sch.get_loops(sch.get_sblock(name))


# --- split ------------------------------------------------------------------------------------
def test_split_three_factors_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = _loops(sch, "B")
    sch.split(i, [2, None, 3])
    wl.assert_tvm_output(sch, "split3")


def test_split_unit_factor_without_preserving_unit_iters_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = _loops(sch, "B")
    sch.split(i, [1, None], preserve_unit_iters=False)
    wl.assert_tvm_output(sch, "split_unit")


def test_split_returns_loops_of_inferred_extents(wl):
    sch = s_tir.Schedule(wl.chain(7, 5))
    i, _ = _loops(sch, "B")
    outer, inner = sch.split(i, [None, 3])
    assert [int(sch.get(lp).extent) for lp in (outer, inner)] == [3, 3]
    assert sch.get(outer).loop_var.name == "i_0"
    # 9 iterations for 7 rows: the block is guarded.
    assert "T.where(i_0 * 3 + i_1 < 7)" in wl.script(sch)


@pytest.mark.parametrize("factors", [[None, 3], [2, None], [4, 2], [3, None, 2], [7, 1]])
def test_split_computes_the_same(wl, factors):
    func = wl.chain(7, 5)
    sch = s_tir.Schedule(func)
    i, _ = _loops(sch, "B")
    sch.split(i, factors)
    k = _loops(sch, "C")[1]
    sch.split(k, [None, 2])
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7,))
    wl.assert_replays(sch, func)


def test_split_disable_predication_drops_the_guard(wl):
    sch = s_tir.Schedule(wl.chain(7, 5))
    i, _ = _loops(sch, "B")
    sch.split(i, [None, 4], disable_predication=True)
    assert "T.where" not in wl.script(sch)


def test_split_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="detail")
    i, j = _loops(sch, "B")
    with pytest.raises(s_tir.ScheduleError) as err:
        sch.split(i, [3, 5])
    msg = str(err.value)
    assert "The product of factors [3, 5] (15) is not larger than or equal to the extent (16)" in msg
    assert "primitive 'split'" in msg
    # The rendered IR shows the block and the loop.
    assert 'with T.sblock("B"):' in msg and "^^^^" in msg
    with pytest.raises(s_tir.ScheduleError, match="at most one factor of split can be None"):
        sch.split(i, [None, None])
    with pytest.raises(s_tir.ScheduleError, match="factors must be positive"):
        sch.split(j, [-1, 12])
    with pytest.raises(TypeError, match="factors must be int, None or ExprRV"):
        sch.split(j, ["4", None])
    # Failed primitives leave the IR and the trace unchanged.
    assert wl.script(sch).count("for i, j in T.grid(16, 12):") == 1
    assert [inst.kind for inst in sch.trace.insts] == ["get_sblock", "get_loops"]


# --- fuse / reorder ---------------------------------------------------------------------------
def test_fuse_split_parallel_vectorize_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, j = _loops(sch, "B")
    fused = sch.fuse(i, j)
    outer, inner = sch.split(fused, [None, 5])
    sch.parallel(outer)
    sch.vectorize(inner)
    wl.assert_tvm_output(sch, "fuse_split")


def test_fuse_computes_the_same(wl):
    func = wl.matmul(5, 3, 7)
    sch = s_tir.Schedule(func)
    i, j, _k = _loops(sch, "C")
    fused = sch.fuse(i, j)
    assert int(sch.get(fused).extent) == 15
    a, b = sch.split(fused, [None, 4])
    sch.fuse(a, b)
    inputs = [wl.rand(5, 7), wl.rand(3, 7, seed=1)]
    wl.assert_same_result(func, sch, inputs, (5, 3))
    wl.assert_replays(sch, func)


def test_fuse_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    (bi, bj), (ci, _ck) = _loops(sch, "B"), _loops(sch, "C")
    with pytest.raises(s_tir.ScheduleError, match="not in a single chain"):
        sch.fuse(bi, ci)
    with pytest.raises(ValueError, match="at least 2 loops"):
        sch.fuse(bi)
    with pytest.raises(s_tir.ScheduleError, match="outermost first"):
        sch.fuse(bj, bi)


def test_reorder_computes_the_same(wl):
    func = wl.matmul(5, 3, 7)
    sch = s_tir.Schedule(func)
    i, j, k = _loops(sch, "C")
    sch.reorder(k, i, j)
    assert "for k, i, j in T.grid(7, 5, 3):" in wl.script(sch)
    sch.reorder(j, k)
    assert "for j, i, k in T.grid(3, 5, 7):" in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(5, 7), wl.rand(3, 7, seed=1)], (5, 3))
    wl.assert_replays(sch, func)


def test_reorder_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    (_bi, bj), (ci, ck) = _loops(sch, "B"), _loops(sch, "C")
    with pytest.raises(s_tir.ScheduleError, match="not in a single chain"):
        sch.reorder(bj, ck)
    # After compute_at, loop i holds two nests: i and k are no longer one chain.
    sch.compute_at(sch.get_sblock("B"), ci)
    (ax0,) = _loops(sch, "B")[1:]
    with pytest.raises(s_tir.ScheduleError, match="not the only child"):
        sch.reorder(ck, ci)
    with pytest.raises(s_tir.ScheduleError, match="same loop is given twice"):
        sch.reorder(ax0, ax0)


# --- add_unit_loop ----------------------------------------------------------------------------
def test_add_unit_loop(wl):
    func = wl.elemwise()
    sch = s_tir.Schedule(func)
    u = sch.add_unit_loop(sch.get_sblock("C"))
    assert int(sch.get(u).extent) == 1
    assert isinstance(sch.get(u).body, s_tir.SBlockRealize)
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7, 5))
    wl.assert_replays(sch, func)


# --- loop kinds -------------------------------------------------------------------------------
def test_bind_and_unroll_match_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, j = _loops(sch, "B")
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    sch.unroll(j)
    wl.assert_tvm_output(sch, "bind")


def test_loop_kinds_compute_the_same(wl):
    func = wl.chain(7, 5)
    sch = s_tir.Schedule(func)
    i, j = _loops(sch, "B")
    sch.parallel(i)
    sch.vectorize(j)
    ci, ck = _loops(sch, "C")
    sch.unroll(ck)
    sch.bind(ci, "threadIdx.x")
    assert sch.get(i).kind == ForKind.PARALLEL
    assert sch.get(j).kind == ForKind.VECTORIZED
    assert sch.get(ck).kind == ForKind.UNROLLED
    assert sch.get(ci).thread_binding.thread_tag == "threadIdx.x"
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7,))
    wl.assert_replays(sch, func)


def test_reduction_loops_cannot_be_parallel_vectorized_or_block_bound(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    _, k = _loops(sch, "C")
    with pytest.raises(s_tir.ScheduleError, match="cannot be parallelized: it is bound to the "
                       "reduction block iter v_k of block 'C'"):
        sch.parallel(k)
    with pytest.raises(s_tir.ScheduleError, match="cannot be vectorized"):
        sch.vectorize(k)
    with pytest.raises(s_tir.ScheduleError, match="cannot be bound to a thread"):
        sch.bind(k, "blockIdx.x")
    # Cross-thread reduction: threadIdx may take a reduction loop.
    sch.bind(k, "threadIdx.x")
    with pytest.raises(TypeError, match="thread_axis must be a str"):
        sch.bind(k, 3)


def test_vectorize_needs_a_constant_extent(wl):
    from tvm import te

    n = tvm.tirx.Var("n", "int32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]), error_render_level="fast")
    (i,) = _loops(sch, "B")
    with pytest.raises(s_tir.ScheduleError, match="extent n is not a constant"):
        sch.vectorize(i)
    # (split with a None factor over a symbolic extent works: test_split_symbolic.py)
    sch.parallel(i)


# --- merge ------------------------------------------------------------------------------------
def test_merge_matches_tvm(wl):
    sch = s_tir.Schedule(wl.elemwise(8, 6))
    _, j1 = _loops(sch, "B")
    _, j2 = _loops(sch, "C")
    merged = sch.merge(j1, j2)
    wl.assert_tvm_output(sch, "merge")
    assert sch.get(merged).loop_var.name == "j_m"


def test_merge_computes_the_same(wl):
    func = wl.elemwise(7, 5)
    sch = s_tir.Schedule(func)
    sch.merge(_loops(sch, "B")[0], _loops(sch, "C")[0])
    # The inner loops are now siblings under i_m: merge them too.
    sch.merge(_loops(sch, "B")[1], _loops(sch, "C")[1])
    assert "for i_m, j_m in T.grid(7, 5):" in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7, 5))
    wl.assert_replays(sch, func)


def test_merge_errors(wl):
    sch = s_tir.Schedule(wl.elemwise(8, 6), error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="nesting depth must be same"):
        sch.merge(_loops(sch, "B")[0], _loops(sch, "C")[1])
    with pytest.raises(ValueError, match="merge needs at least 2 loops, got 1"):
        sch.merge(_loops(sch, "B")[0])
    sch.split(_loops(sch, "C")[0], [2, 4])
    with pytest.raises(s_tir.ScheduleError, match=r"loop i_0 \(extent 2\) differs from loop i"):
        sch.merge(_loops(sch, "B")[0], _loops(sch, "C")[0])
    chain = s_tir.Schedule(wl.chain(8, 6), error_render_level="fast")
    # TVM would run B after C here (C reads B); this implementation refuses.
    with pytest.raises(s_tir.ScheduleError, match="must be adjacent statements"):
        chain.merge(_loops(chain, "B")[0], _loops(chain, "D")[0])
