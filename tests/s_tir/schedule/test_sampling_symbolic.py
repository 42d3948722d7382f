"""sample_perfect_tile of a loop with a symbolic extent tiles it trivially (as TVM)."""

from tvm import s_tir
from tvm.s_tir.schedule.testing import verify_trace_roundtrip
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def rows(a: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 64))
    for i, j in T.grid(n, 64):
        with T.sblock("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(1)


def test_symbolic_extent_is_tiled_trivially():
    sch = s_tir.Schedule(rows, debug_mask="all")
    i, _ = sch.get_loops("A")
    factors = sch.sample_perfect_tile(i, n=3)
    assert factors[0] is None
    assert [int(sch.get(f)) for f in factors[1:]] == [1, 1]
    assert sch.trace.decisions[sch.trace.insts[-1]] == [-1, 1, 1]
    outer, _, _ = sch.split(i, factors)
    assert str(sch.get(outer).extent) == "n"
    verify_trace_roundtrip(sch, mod=rows)
