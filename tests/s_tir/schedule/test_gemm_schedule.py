"""A GPU-style GEMM schedule (tiling, thread binding, shared/local caches, decomposed init)."""

from tvm import s_tir


def _gemm_schedule(sch):
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 4])
    ko, ki = sch.split(k, [None, 4])
    sch.reorder(io, jo, ko, ii, ji, ki)
    sch.bind(io, "blockIdx.x")
    sch.bind(jo, "threadIdx.y")
    a_shared = sch.cache_read(c, 0, "shared")
    b_shared = sch.cache_read(c, 1, "shared")
    # B_shared is shared by the threadIdx.y threads: the copy covers all 12 rows of B, while
    # A_shared (indexed by blockIdx.x) covers the block's 4 rows.
    sch.compute_at(a_shared, ko)
    sch.compute_at(b_shared, ko)
    c_local = sch.cache_write(c, 0, "local")
    sch.reverse_compute_at(c_local, jo)
    sch.decompose_reduction(c, ko)
    fused = sch.fuse(*sch.get_loops(a_shared)[-2:])
    sch.vectorize(sch.split(fused, [None, 2])[1])


def test_gemm_schedule_matches_tvm(wl):
    sch = s_tir.Schedule(wl.matmul(16, 12, 10))
    _gemm_schedule(sch)
    wl.assert_tvm_output(sch, "gemm")


def test_gemm_schedule_computes_the_same(wl):
    func = wl.matmul(16, 12, 10)
    sch = s_tir.Schedule(func)
    _gemm_schedule(sch)
    inputs = [wl.rand(16, 10), wl.rand(12, 10, seed=1)]
    wl.assert_same_result(func, sch, inputs, (16, 12))
    wl.assert_replays(sch, func)
