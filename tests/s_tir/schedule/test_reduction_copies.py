"""decompose_reduction and rfactor keep the block's annotations on the blocks they create, and
a copied thread-bound loop gets its own thread IterVar (outputs checked against TVM 0.27)."""

from tvm import s_tir
from tvm.s_tir.schedule.testing import assert_structural_equal_ignore_global_symbol
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def rowsum(A: T.Buffer((32, 16), "float32"), B: T.Buffer((32,), "float32")):
    for t in T.thread_binding(32, thread="threadIdx.x"):
        for r in range(16):
            with T.sblock("B"):
                vi, vr = T.axis.remap("SR", [t, r])
                T.sblock_attr({"note": 7})
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vr]


@T.prim_func(s_tir=True)
def rowsum_decomposed(A: T.Buffer((32, 16), "float32"), B: T.Buffer((32,), "float32")):
    for t_init in T.thread_binding(32, thread="threadIdx.x"):
        with T.sblock("B_init"):
            vi = T.axis.spatial(32, t_init)
            T.sblock_attr({"note": 7})
            B[vi] = T.float32(0)
    for t in T.thread_binding(32, thread="threadIdx.x"):
        for r in range(16):
            with T.sblock("B_update"):
                vi, vr = T.axis.remap("SR", [t, r])
                T.sblock_attr({"note": 7})
                B[vi] = B[vi] + A[vi, vr]


def test_decompose_reduction_copies_annotations_and_thread_binding():
    sch = s_tir.Schedule(rowsum, debug_mask="all")
    t, _ = sch.get_loops("B")
    sch.decompose_reduction("B", t)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], rowsum_decomposed)
    init_loop, loop = (sch.get(lp) for lp in (sch.get_loops("B_init")[0],
                                              sch.get_loops("B_update")[0]))
    assert init_loop.thread_binding.var is not loop.thread_binding.var


def test_rfactor_block_keeps_annotations():
    sch = s_tir.Schedule(rowsum, debug_mask="all")
    _, r = sch.get_loops("B")
    _, ri = sch.split(r, [None, 4])
    rf = sch.rfactor(ri, 0)
    assert dict(sch.get(rf).annotations) == {"note": 7}
