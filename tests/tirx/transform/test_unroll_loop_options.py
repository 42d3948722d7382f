"""UnrollLoop's ``"tirx.UnrollLoop"`` options, the unroll pragma, and per-copy buffers."""

import pytest

import tvm
from tvm.script import tirx as T


def _unroll(func, **options):
    mod = tvm.IRModule.from_expr(func)
    with tvm.transform.PassContext(config={"tirx.UnrollLoop": options} if options else {}):
        return tvm.tirx.transform.UnrollLoop()(mod)["main"]


@T.prim_func(private=True, s_tir=True)
def two_by_eight(A: T.Buffer(16, "int32")):
    for i in T.serial(2):
        for j in T.unroll(8):
            A[j + 1] = A[i] + 1


def test_auto_max_step_counts_steps():
    # 2 iterations x 8 unrolled stores = 16 steps.
    assert not isinstance(_unroll(two_by_eight, auto_max_step=16).body, tvm.tirx.For)
    kept = _unroll(two_by_eight, auto_max_step=15).body
    assert isinstance(kept, tvm.tirx.For) and kept.kind == tvm.tirx.ForKind.SERIAL
    assert len(kept.body.seq) == 8  # the explicit T.unroll is unrolled regardless


def test_marked_not_unrolled_without_explicit_unroll():
    out = _unroll(two_by_eight, auto_max_step=16, explicit_unroll=False).body
    assert out.kind == tvm.tirx.ForKind.UNROLLED
    assert out.body.kind == tvm.tirx.ForKind.UNROLLED


def test_extent_one_loop_around_a_loop():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        for i in T.serial(1):
            A[i * 2] = 3
            for j in T.serial(10):
                A[j + 1] = A[i] + 1

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer(16, "int32")):
        A[0] = 3
        for j in T.serial(10):
            A[j + 1] = A[0] + 1

    out = _unroll(before, auto_max_depth=8, auto_max_extent=1, explicit_unroll=False)
    # The copy holds ``0 * 2`` (substituted, not simplified, as in TVM): simplify to compare.
    out = tvm.tirx.transform.StmtSimplify()(tvm.IRModule.from_expr(out))["main"]
    tvm.ir.assert_structural_equal(out, expected)


def test_pragma_sets_max_step_for_its_body():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        with T.attr(T.int32(0), "pragma_auto_unroll_max_step", 4):
            for i in T.serial(4):
                A[i] = 1
        for i in T.serial(4):
            A[i] = 2

    out = _unroll(before, explicit_unroll=False).body
    assert out.seq[0].kind == tvm.tirx.ForKind.UNROLLED
    assert out.seq[1].kind == tvm.tirx.ForKind.SERIAL


def test_each_copy_allocates_its_own_buffer():
    @T.prim_func(private=True, s_tir=True)
    def before():
        for i in T.unroll(2):
            buf = T.alloc_buffer([16], "float32")
            buf[i] = 0.0

    @T.prim_func(private=True, s_tir=True)
    def expected():
        buf1 = T.alloc_buffer([16], "float32")
        buf1[0] = 0.0
        buf2 = T.alloc_buffer([16], "float32")
        buf2[1] = 0.0

    tvm.ir.assert_structural_equal(_unroll(before), expected)


def test_local_access_unrolled():
    @T.prim_func(private=True, s_tir=True)
    def before():
        A_local = T.alloc_buffer((4,), scope="local")
        for i in T.serial(4):
            A_local[i] = T.float32(1)

    out = _unroll(before, auto_max_depth=0, unroll_local_access=True).body
    assert [type(s).__name__ for s in out.seq] == ["AllocBuffer"] + ["BufferStore"] * 4


def test_bad_options():
    with pytest.raises(ValueError, match="unknown option"):
        _unroll(two_by_eight, max_step=3)
    with pytest.raises(TypeError, match="'auto_max_step' expects a int"):
        _unroll(two_by_eight, auto_max_step="16")
