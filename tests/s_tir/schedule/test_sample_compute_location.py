"""sample_compute_location: the candidate locations TVM collects (inline, root, the loops
around the consumer), decisions replayed through the trace, and compute_at of the marks."""

from tvm import s_tir
from tvm.s_tir.schedule.state import StmtSRef
from tvm.s_tir.schedule.testing import verify_trace_roundtrip
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def two_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    B = T.sblock_alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, u, k in T.grid(16, 1, 16):
        with T.sblock("C"):
            vi, _vu, vk = T.axis.remap("SSR", [i, u, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vk]


def _decisions(sch, n):
    out = set()
    for _ in range(n):
        sch.sample_compute_location("B")
        out.add(sch.trace.decisions[sch.trace.insts[-1]])
    return out


def test_candidates_are_inline_root_and_the_spatial_loop():
    # Loop 0 (i) qualifies; the unit loop u is skipped; k is a trailing reduction loop.
    sch = s_tir.Schedule(two_stage, seed=3, debug_mask="all")
    assert _decisions(sch, 60) == {-2, -1, 0}


def test_decision_replays_and_marks_drive_compute_at():
    sch = s_tir.Schedule(two_stage, debug_mask="all")
    loc = sch.sample_compute_location("B", decision=0)
    assert sch.get(loc).loop_var.name == "i"
    sch.compute_at("B", loc)
    assert sch.get(sch.get_loops("B")[0]).loop_var.name == "i"
    verify_trace_roundtrip(sch, mod=two_stage)

    sch = s_tir.Schedule(two_stage, debug_mask="all")
    root = sch.sample_compute_location("B", decision=-1)
    assert sch.get(root).same_as(StmtSRef.root_mark())
    sch.compute_at("B", root)  # leaves the block where it is
    assert len(sch.get_loops("B")) == 2

    sch = s_tir.Schedule(two_stage, debug_mask="all")
    inline = sch.sample_compute_location("B", decision=-2)
    sch.compute_at("B", inline)  # inlines it
    assert "B = " not in sch.mod.script()
    verify_trace_roundtrip(sch, mod=two_stage)
