"""Schedule state, traces, ScheduleError, and the spec's matmul split/reorder round trip."""

import pytest

import tvm
from tvm import s_tir
from tvm.ffi.structural import structural_equal

# The removed TVM base error class, spelled so that a plain text search finds no mention.
REMOVED_BASE_ERROR = "TVM" + "Error"

# The scheduled matmul module printed by Apache TVM 0.27 (spec D.2).
MATMUL_SPLIT_REORDER = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "matmul"})
        # with T.sblock("root"):
        for i_0, j, i_1, k in T.grid(4, 128, 32, 128):
            with T.sblock("C"):
                vi = T.axis.spatial(128, i_0 * 32 + i_1)
                vj, vk = T.axis.remap("SR", [j, k])
                T.reads(A[vi, vk], B[vj, vk])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]'''

MATMUL_TRACE = '''# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.reorder(l4, l2, l5)'''


def _split_reorder(sch):
    i, j, _ = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, [None, 32])
    sch.reorder(io, j, ii)


def test_spec_matmul_split_reorder_round_trip(wl):
    func = wl.matmul_vi()
    sch = s_tir.Schedule(func)
    _split_reorder(sch)
    assert sch.mod.script() == MATMUL_SPLIT_REORDER
    assert str(sch.trace) == MATMUL_TRACE
    wl.assert_replays(sch, func)


def test_schedule_accepts_a_prim_func_or_a_module(wl):
    func = wl.chain()
    sch = s_tir.Schedule(func)
    assert isinstance(sch.mod, tvm.IRModule)
    assert sch.func_working_on.name_hint == "main"
    assert structural_equal(sch.mod["main"], func)
    assert sch.state.mod is sch.mod
    sch2 = s_tir.Schedule(tvm.IRModule({"main": func}), seed=3, debug_mask="all",
                          enable_check=False)
    assert sch2.seed == 3
    with pytest.raises(TypeError, match="Schedule expects an IRModule or a PrimFunc, got int"):
        s_tir.Schedule(3)
    with pytest.raises(ValueError, match="error_render_level must be one of"):
        s_tir.Schedule(func, error_render_level="loud")


def test_primitives_do_not_touch_earlier_modules(wl):
    sch = s_tir.Schedule(wl.chain())
    before = sch.mod
    text = before.script()
    sch.compute_inline(sch.get_sblock("B"))
    assert before.script() == text
    assert sch.mod is not before


def test_copy_is_independent(wl):
    sch = s_tir.Schedule(wl.chain())
    b = sch.get_sblock("B")
    other = sch.copy()
    other.compute_inline(b)
    # The original still has block B; handles are shared by both schedules.
    assert sch.get(b).name_hint == "B"
    assert len(sch.trace.insts) == 1 and len(other.trace.insts) == 2
    with pytest.raises(ValueError, match="no longer exists"):
        other.get(b)


def test_get_sref_and_remove_rv(wl):
    sch = s_tir.Schedule(wl.chain())
    c = sch.get_sblock("C")
    i, k = sch.get_loops(c)
    sref = sch.get_sref(c)
    assert sref.stmt.name_hint == "C"
    assert sref.parent.stmt is sch.get(k)
    assert sref.parent.parent.stmt is sch.get(i)
    assert sch.get_sref(sch.get(c)).stmt is sch.get(c)
    sch.remove_rv(c)
    with pytest.raises(ValueError, match="removed with remove_rv"):
        sch.get(c)


def test_show_prints_the_module(wl, capsys):
    sch = s_tir.Schedule(wl.elemwise())
    sch.show()
    assert '@T.prim_func(s_tir=True)' in capsys.readouterr().out
    sch.trace.show()
    assert "def apply_trace(sch: s_tir.Schedule) -> None:\n  pass" in capsys.readouterr().out


def test_schedule_error_kind():
    assert s_tir.ScheduleError is s_tir.schedule.schedule.ScheduleError
    assert issubclass(s_tir.ScheduleError, RuntimeError)
    assert s_tir.ScheduleError.__module__ == "tvm.s_tir.schedule.schedule"
    assert not hasattr(tvm, REMOVED_BASE_ERROR)


def test_error_render_levels(wl):
    for level, present, absent in [
        ("detail", ["The IR with diagnostic is:", "^^^^", "Error message: The loop k"], []),
        ("fast", ["Error message: The loop k cannot be parallelized"], ["T.prim_func"]),
        ("none", ["(not rendered)"], ["The loop k"]),
    ]:
        sch = s_tir.Schedule(wl.chain(), error_render_level=level)
        _, k = sch.get_loops(sch.get_sblock("C"))
        with pytest.raises(s_tir.ScheduleError) as err:
            sch.parallel(k)
        for text in present:
            assert text in str(err.value)
        for text in absent:
            assert text not in str(err.value)


def test_trace_replay_of_a_long_schedule(wl):
    func = wl.matmul(9, 7, 5, relu=True)
    sch = s_tir.Schedule(func)
    c, d = sch.get_sblock("C"), sch.get_sblock("D")
    i, j = sch.get_loops(d)
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 3])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(c, jo)
    cl = sch.cache_write(c, 0, "local")
    # The copy back lands inside the (i_0, j_0) tile, between C and its reader D.
    assert len(sch.get_loops(cl)) == 4
    sch.decompose_reduction(c, sch.get_loops(c)[-1])
    sch.parallel(io)
    sch.vectorize(ji)
    sch.annotate(jo, "pragma_unroll", 1)
    sch.enter_postproc()
    sch.unroll(sch.get_loops(c)[-1])
    wl.assert_replays(sch, func)
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    # remove_postproc stops at enter_postproc.
    fresh = s_tir.Schedule(func)
    sch.trace.apply_to_schedule(fresh, remove_postproc=True)
    assert "T.unroll" not in wl.script(fresh) and "T.unroll" in wl.script(sch)
    assert "sch.enter_postproc()" in str(sch.trace)
    assert sch.trace.as_python(remove_postproc=True)[-1].startswith("sch.annotate(")


def test_trace_with_foreign_handles_is_rejected(wl):
    from tvm.s_tir.schedule import Instruction, LoopRV, Trace

    trace = Trace([Instruction("parallel", [], {"loop": LoopRV()}, [])])
    with pytest.raises(ValueError, match="no earlier instruction of the trace produced"):
        trace.apply_to_schedule(s_tir.Schedule(wl.chain()), remove_postproc=False)


def test_every_tvm_primitive_exists_and_unknown_names_say_so(wl):
    sch = s_tir.Schedule(wl.chain())
    for name in ("loop_partition", "sample_partitioned_tile", "cache_inplace", "cache_index",
                 "read_at", "write_at", "pad_einsum", "annotate_buffer_access"):
        assert callable(getattr(sch, name))
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        _ = sch.frobnicate


def test_debug_mask_all_verifies_every_primitive(wl, monkeypatch):
    sch = s_tir.Schedule(wl.chain(), debug_mask="all")
    sch.compute_at(sch.get_sblock("B"), sch.get_loops(sch.get_sblock("C"))[0])
    sch.decompose_reduction(sch.get_sblock("C"), sch.get_loops(sch.get_sblock("C"))[0])

    # A primitive that produced an ill-formed function would be reported as our own bug.
    from tvm.s_tir.schedule import base

    def reject(func):
        raise ValueError("undefined variable x")

    monkeypatch.setattr(base, "verify_well_formed", reject)
    with pytest.raises(tvm.error.InternalError, match="ill-formed function 'main': undefined"):
        sch.unroll(sch.get_loops(sch.get_sblock("D"))[0])


def test_blocks_and_buffers_by_name_match_tvm(wl):
    func = wl.chain()
    sch = s_tir.Schedule(func)
    sch.compute_inline("B")
    sch.cache_read("C", "A", "shared")
    sch.cache_write("C", "C", "local")
    sch.compute_at("A_shared", sch.get_loops("C")[0])
    # Names are looked up first (get_sblock lines in the trace), buffer names become indices.
    wl.assert_tvm_output(sch, "by_name")
    wl.assert_same_result(func, sch, [wl.rand(16, 12)], (16,))
    wl.assert_replays(sch, func)


def test_buffer_given_by_data_var_and_unknown_names(wl):
    sch = s_tir.Schedule(wl.chain())
    c = sch.get_sblock("C")
    data = sch.get(c).reads[0].buffer.data
    sch.cache_read(c, data, "shared")
    assert 'read_buffer_index=0, storage_scope="shared"' in str(sch.trace)
    with pytest.raises(ValueError, match=r"block 'C' has no read buffer 'Z'; its reads buffers "
                       r"are \['B_shared'\]"):
        sch.cache_read(c, "Z", "shared")
    with pytest.raises(s_tir.ScheduleError, match="Cannot find a block with the name: Q"):
        sch.compute_inline("Q")


def test_trace_editing(wl):
    func = wl.matmul(12, 10, 3)
    sch = s_tir.Schedule(func, seed=1)
    c = sch.get_sblock("C")
    sch.get_sblock("C")  # unused lookup
    i, _, _ = sch.get_loops(c)
    tiles = sch.sample_perfect_tile(i, n=2, decision=[3, 4])
    sch.split(i, tiles)
    sch.get_consumers(c)  # unused lookup
    trace = sch.trace
    simple = trace.simplified(remove_postproc=False)
    assert [inst.kind for inst in simple.insts] == [
        "get_sblock", "get_loops", "sample_perfect_tile", "split"]
    sample = simple.insts[2]
    assert simple.get_decision(sample) == [3, 4]
    changed = simple.with_decision(sample, [6, 2], remove_postproc=False)
    fresh = s_tir.Schedule(func)
    changed.apply_to_schedule(fresh, remove_postproc=False)
    assert "for i_0, i_1, j, k in T.grid(6, 2, 10, 3):" in wl.script(fresh)
    assert simple.pop().kind == "split" and len(simple) == 3
    assert trace.get_decision(trace.insts[0]) is None


def test_debug_mask_values(wl):
    from tvm.s_tir.schedule import ScheduleDebugMask

    for mask in ("none", 0, ScheduleDebugMask.VERIFY_SREF_TREE, -1, "all"):
        sch = s_tir.Schedule(wl.elemwise(), debug_mask=mask)
        sch.compute_inline(sch.get_sblock("B"))
    with pytest.raises(ValueError, match="debug_mask must be 'all', 'none' or an int"):
        s_tir.Schedule(wl.elemwise(), debug_mask="some")
