"""get_sblock, get_loops, get_child_blocks, get_producers, get_consumers, get_output_blocks."""

import pytest

import tvm
from tvm import s_tir
from tvm.tirx import For


def _names(sch, rvs):
    return [sch.get(rv).name_hint for rv in rvs]


# Printed by Apache TVM 0.27 for the calls of test_lookups_and_their_trace.
TVM_TRACE = '''# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="B", func_name="main")
  b1 = sch.get_sblock(name="C", func_name="main")
  b2 = sch.get_sblock(name="D", func_name="main")
  b3 = sch.get_sblock(name="root", func_name="main")
  b4, b5, b6 = sch.get_child_blocks(b3)
  b7, = sch.get_producers(block=b1)
  b8, = sch.get_consumers(block=b1)
  b9, = sch.get_output_blocks(block=b3)
  l10, l11 = sch.get_loops(block=b1)
  b12, = sch.get_child_blocks(l10)'''


def test_lookups_and_their_trace(wl):
    func = wl.chain()
    sch = s_tir.Schedule(func)
    _, c, _ = (sch.get_sblock(x) for x in "BCD")
    root = sch.get_sblock("root")
    assert _names(sch, sch.get_child_blocks(root)) == ["B", "C", "D"]
    assert _names(sch, sch.get_producers(c)) == ["B"]
    assert _names(sch, sch.get_consumers(c)) == ["D"]
    assert _names(sch, sch.get_output_blocks(root)) == ["D"]
    i, k = sch.get_loops(c)
    assert _names(sch, sch.get_child_blocks(i)) == ["C"]
    assert isinstance(sch.get(i), For) and sch.get(k).loop_var.name == "k"
    assert str(sch.trace) == TVM_TRACE
    # Lookups do not change the IR, and the trace replays.
    wl.assert_replays(sch, func)
    assert tvm.ffi.structural.structural_equal(sch.mod["main"], func)


def test_get_loops_is_outermost_first(wl):
    sch = s_tir.Schedule(wl.matmul())
    loops = sch.get_loops(sch.get_sblock("C"))
    assert [sch.get(lp).loop_var.name for lp in loops] == ["i", "j", "k"]
    assert sch.get_loops(sch.get_sblock("root")) == []


def test_get_sblock_unknown_name_lists_candidates(wl):
    sch = s_tir.Schedule(wl.chain())
    with pytest.raises(s_tir.ScheduleError) as err:
        sch.get_sblock("X")
    msg = str(err.value)
    assert "Cannot find a block with the name: X" in msg
    assert "Blocks of function 'main' are: ['root', 'B', 'C', 'D']" in msg
    assert "primitive 'get-block'" in msg
    # Failed lookups are not recorded.
    assert sch.trace.insts == []


def test_get_sblock_in_multi_function_modules(wl):
    mod = tvm.IRModule({"f": wl.chain(), "g": wl.elemwise()})
    sch = s_tir.Schedule(mod)
    assert sch.func_working_on is None
    with pytest.raises(ValueError, match="pass func_name= or call work_on"):
        sch.get_sblock("B")
    sch.work_on("g")
    assert sch.func_working_on.name_hint == "g"
    assert sch.get(sch.get_sblock("C")).name_hint == "C"
    c_in_f = sch.get_sblock("C", func_name="f")
    assert sch.get(c_in_f).init is not None  # f's C is the reduction
    with pytest.raises(ValueError, match=r"no PrimFunc named 'h'; candidates are: \['f', 'g'\]"):
        sch.get_sblock("C", func_name="h")
    with pytest.raises(ValueError, match="no PrimFunc named 'h'"):
        sch.work_on("h")


def test_handles_of_the_wrong_kind(wl):
    sch = s_tir.Schedule(wl.chain())
    b = sch.get_sblock("B")
    (i, _) = sch.get_loops(b)
    with pytest.raises(TypeError, match="get_loops: expected a SBlockRV, got LoopRV"):
        sch.get_loops(i)
    with pytest.raises(TypeError, match="split: expected a LoopRV, got SBlockRV"):
        sch.split(b, [2, None])
    other = s_tir.Schedule(wl.chain())
    with pytest.raises(ValueError, match="does not belong to this schedule"):
        other.get(b)


def test_block_scope_dependencies(wl):
    from tvm.s_tir.schedule import DepKind

    sch = s_tir.Schedule(wl.chain())
    root = sch.get_sref(sch.get_sblock("root"))
    scope = sch.state.get_sblock_scope(root)
    c = sch.get_sref(sch.get_sblock("C"))
    into = [(d.src.stmt.name_hint, d.kind) for d in scope.get_deps_by_dst(c)]
    out = [(d.dst.stmt.name_hint, d.kind) for d in scope.get_deps_by_src(c)]
    assert into == [("B", DepKind.RAW)] and out == [("D", DepKind.RAW)]
    # References compare by the statement they refer to.
    k = sch.get_loops(sch.get_sblock("C"))[1]
    assert c.parent == sch.get_sref(k) and c.parent.same_as(sch.get_sref(k))
    assert sch.get(c).name_hint == "C"
    assert sch.state.get_sref(sch.get(k)) == sch.get_sref(k)
    assert s_tir.StmtSRef.inline_mark() is not s_tir.StmtSRef.root_mark()


def test_schedule_state_from_a_prim_func(wl):
    state = s_tir.ScheduleState(wl.elemwise(), debug_mask="all")
    assert [g.name_hint for g in state.mod.get_global_vars()] == ["main"]
    with pytest.raises(TypeError, match="get_sref expects an SBlock or For"):
        state.get_sref(3)
