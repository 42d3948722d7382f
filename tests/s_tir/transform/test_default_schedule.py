"""Default CPU schedules: which loops become parallel/vectorized/tiled, and results unchanged."""

import numpy as np

from tvm import te, topi
from tvm.s_tir.default_schedule import matmul_tile, schedule_prim_func
from tvm.tirx import For, ForKind
from tvm.tirx.interpreter import run_prim_func
from tvm.tirx.stmt_functor import post_order_visit


def _loops(func):
    loops = []
    post_order_visit(func.body, lambda n: loops.append(n) if isinstance(n, For) else None)
    return loops[::-1]  # outermost first


def _same_results(before, after, args, n_out):
    want = [a.copy() for a in args]
    got = [a.copy() for a in args]
    run_prim_func(before, want)
    run_prim_func(after, got)
    for w, g in zip(want[-n_out:], got[-n_out:]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_row_reduction_keeps_order_and_decomposes_init():
    A = te.placeholder((64, 100), "float32", name="A")
    k = te.reduce_axis((0, 100), name="k")
    B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
    func = te.create_prim_func([A, B])
    out = schedule_prim_func(func)
    outer = out.body.block.body
    assert outer.loop_var.name == "i" and outer.kind == ForKind.PARALLEL
    _, update = outer.body.seq
    assert update.loop_var.name == "k" and update.body.block.init is None
    a = np.random.default_rng(3).standard_normal((64, 100)).astype("float32")
    _same_results(func, out, [a, np.zeros(64, "float32")], 1)


def test_elementwise_parallel_outer_vectorized_inner():
    A = te.placeholder((64, 128), "float32", name="A")
    B = te.compute((64, 128), lambda i, j: te.exp(A[i, j]) * 2.0, name="B")
    func = te.create_prim_func([A, B])
    out = schedule_prim_func(func)
    kinds = [lp.kind for lp in _loops(out)]
    assert kinds == [ForKind.PARALLEL, ForKind.VECTORIZED]
    a = np.random.default_rng(0).standard_normal((64, 128)).astype("float32")
    _same_results(func, out, [a, np.zeros_like(a)], 1)


def test_memory_bound_nests_stay_serial(monkeypatch):
    from tvm.s_tir import default_schedule

    A = te.placeholder((64, 128), "float32", name="A")
    B = te.compute((64, 128), lambda i, j: A[i, j] * 2.0, name="B")
    out = schedule_prim_func(te.create_prim_func([A, B]))
    assert [lp.kind for lp in _loops(out)] == [ForKind.SERIAL, ForKind.VECTORIZED]
    monkeypatch.setattr(default_schedule, "PARALLEL_MEMORY_BOUND", True)
    out = schedule_prim_func(te.create_prim_func([A, B]))
    assert [lp.kind for lp in _loops(out)] == [ForKind.PARALLEL, ForKind.VECTORIZED]


def test_large_memory_bound_nests_run_in_parallel(monkeypatch):
    # From PARALLEL_MEMORY_BOUND_MIN_WORK iterations (1 MiB of float32) on: past the L2
    # cache, a second core's own memory stream helps; copies cut by rule 2a/2c too.
    from tvm.s_tir import default_schedule

    A = te.placeholder((512, 512), "float32", name="A")
    B = te.compute((512, 512), lambda i, j: A[i, j] * 2.0, name="B")
    out = schedule_prim_func(te.create_prim_func([A, B]))
    assert [lp.kind for lp in _loops(out)] == [ForKind.PARALLEL, ForKind.VECTORIZED]
    X = te.placeholder((512, 256), "float32", name="X")
    Y = te.placeholder((512, 256), "float32", name="Y")
    cat = topi.concatenate([X, Y], axis=1)
    out = schedule_prim_func(te.create_prim_func([X, Y, cat]))
    assert _loops(out)[0].kind == ForKind.PARALLEL
    monkeypatch.setattr(default_schedule, "PARALLEL_MEMORY_BOUND_MIN_WORK", None)
    out = schedule_prim_func(te.create_prim_func([A, B]))
    assert [lp.kind for lp in _loops(out)] == [ForKind.SERIAL, ForKind.VECTORIZED]
    out = schedule_prim_func(te.create_prim_func([X, Y, cat]))
    assert all(lp.kind != ForKind.PARALLEL for lp in _loops(out))


def test_small_nests_stay_serial():
    A = te.placeholder((4, 4), "float32", name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1.0, name="B")
    out = schedule_prim_func(te.create_prim_func([A, B]))
    assert [lp.kind for lp in _loops(out)] == [ForKind.SERIAL, ForKind.VECTORIZED]


def test_column_reduction_moves_contiguous_loop_inside():
    A = te.placeholder((200, 64), "float32", name="A")
    k = te.reduce_axis((0, 200), name="k")
    B = te.compute((64,), lambda j: te.sum(A[k, j], axis=k), name="B")
    func = te.create_prim_func([A, B])
    out = schedule_prim_func(func)
    init, update = out.body.block.body.seq  # the init is decomposed into its own nest
    assert isinstance(init, For) and init.kind == ForKind.VECTORIZED
    assert update.loop_var.name == "k" and update.body.loop_var.name == "j"
    assert update.body.kind == ForKind.VECTORIZED
    a = np.random.default_rng(1).standard_normal((200, 64)).astype("float32")
    _same_results(func, out, [a, np.zeros(64, "float32")], 1)


def test_matmul_gets_the_tiled_schedule(monkeypatch):
    from tvm.s_tir import default_schedule_matmul

    monkeypatch.setattr(default_schedule_matmul, "MATMUL_MIN_WORK", 1)  # small: interpreted
    m, n, k_ = 8, 128, 16
    A = te.placeholder((m, k_), "float32", name="A")
    B = te.placeholder((k_, n), "float32", name="B")
    k = te.reduce_axis((0, k_), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    func = te.create_prim_func([A, B, C])
    out = schedule_prim_func(func)
    loops = _loops(out)
    # Column strips in parallel (B's strip packed once per strip), row tiles inside.
    assert loops[0].kind == ForKind.PARALLEL and int(loops[0].extent) == n // matmul_tile()[1]
    assert ForKind.UNROLLED in [lp.kind for lp in loops]
    assert ForKind.VECTORIZED in [lp.kind for lp in loops]
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k_)).astype("float32")
    b = rng.standard_normal((k_, n)).astype("float32")
    _same_results(func, out, [a, b, np.zeros((m, n), "float32")], 1)


def test_scheduled_functions_are_left_alone():
    A = te.placeholder((64, 128), "float32", name="A")
    B = te.compute((64, 128), lambda i, j: A[i, j] * 2.0, name="B")
    func = te.create_prim_func([A, B]).with_attr("tirx.is_scheduled", True)
    assert schedule_prim_func(func) is func
    once = schedule_prim_func(te.create_prim_func([A, B]))
    assert schedule_prim_func(once) is once  # loops already have kinds


def test_row_stages_share_one_parallel_row_loop():
    m, n = 16, 300
    X = te.placeholder((m, n), "float32", name="X")
    k1 = te.reduce_axis((0, n), name="k1")
    mx = te.compute((m,), lambda i: te.max(X[i, k1], axis=k1), name="mx")
    E = te.compute((m, n), lambda i, j: te.exp(X[i, j] - mx[i]), name="E")
    k2 = te.reduce_axis((0, n), name="k2")
    S = te.compute((m,), lambda i: te.sum(E[i, k2], axis=k2), name="S")
    Y = te.compute((m, n), lambda i, j: E[i, j] / S[i], name="Y")
    func = te.create_prim_func([X, Y])
    out = schedule_prim_func(func)
    row = out.body.block.body
    assert isinstance(row, For) and row.kind == ForKind.PARALLEL  # one loop over the rows
    assert len(row.body.seq) == 6  # mx init/update, E, S init/update, Y
    x = np.random.default_rng(5).standard_normal((m, n)).astype("float32")
    _same_results(func, out, [x, np.zeros_like(x)], 1)


def test_column_reads_prevent_row_fusion():
    A = te.placeholder((8, 8), "float32", name="A")
    B = te.compute((8, 8), lambda i, j: te.exp(A[i, j]), name="B")
    C = te.compute((8, 8), lambda i, j: B[j, i] + 1.0, name="C")  # reads other rows of B
    func = te.create_prim_func([A, B, C])  # B an output: not inlined into C (rule 0)
    out = schedule_prim_func(func)
    assert len(out.body.block.body.seq) == 2  # two separate nests
    a = np.random.default_rng(6).standard_normal((8, 8)).astype("float32")
    _same_results(func, out, [a, np.zeros_like(a), np.zeros_like(a)], 2)


def test_untiled_matmul_runs_i_k_j():
    A = te.placeholder((6, 5), "float32", name="A")
    B = te.placeholder((5, 7), "float32", name="B")  # 7 columns: not a multiple of the tile
    k = te.reduce_axis((0, 5), name="k")
    C = te.compute((6, 7), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    func = te.create_prim_func([A, B, C])
    out = schedule_prim_func(func)
    outer = out.body.block.body
    _, update = outer.body.seq
    assert [outer.loop_var.name, update.loop_var.name, update.body.loop_var.name] == [
        "i", "k", "j"]
    rng = np.random.default_rng(8)
    a = rng.standard_normal((6, 5)).astype("float32")
    b = rng.standard_normal((5, 7)).astype("float32")
    _same_results(func, out, [a, b, np.zeros((6, 7), "float32")], 1)
