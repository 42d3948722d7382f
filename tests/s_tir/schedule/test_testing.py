"""tvm.s_tir.schedule.testing: trace round trips (Python text and JSON)."""

import pytest

import tvm
from tvm import s_tir
from tvm.s_tir.schedule import Trace
from tvm.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def two_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.sblock_alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def _scheduled():
    sch = s_tir.Schedule(two_stage, debug_mask="all")
    b = sch.get_sblock("B")
    i, _j = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, factors=[None, 4])
    sch.annotate(io, "pragma_x", 3)
    sch.compute_at(b, ii)
    return sch


def test_roundtrip_python_and_json_reproduce_the_schedule():
    sch = _scheduled()
    new_sch = verify_trace_roundtrip(sch, two_stage)
    tvm.ir.assert_structural_equal(new_sch.mod, sch.mod)
    assert new_sch.trace.as_python() == sch.trace.as_python()


def test_as_json_layout():
    sch = s_tir.Schedule(two_stage)
    b = sch.get_sblock("C")
    sch.get_loops(b)
    insts, decisions = sch.trace.as_json()
    # Kinds with a TVM layout are stored as TVM stores them.
    assert insts[0] == ["GetSBlock", [], ["C", "main"], ["b0"]]
    assert insts[1] == ["GetLoops", ["b0"], [], ["l1", "l2"]]
    assert decisions == []


def test_json_of_kinds_without_a_tvm_layout():
    sch = s_tir.Schedule(two_stage)
    sch.unsafe_set_dtype(sch.get_sblock("B"), 0, "float16")
    insts, _ = sch.trace.as_json()
    assert insts[1] == ["unsafe_set_dtype", [], [["block", {"rv": "b0"}], ["buffer_index", 0],
                                          ["dtype", "float16"]], []]
    new_sch = s_tir.Schedule(two_stage)
    Trace.apply_json_to_schedule(sch.trace.as_json(), new_sch)
    tvm.ir.assert_structural_equal(new_sch.mod, sch.mod)


def test_json_keeps_sampling_decisions():
    sch = s_tir.Schedule(two_stage, seed=7)
    i, _ = sch.get_loops(sch.get_sblock("C"))
    factors = sch.sample_perfect_tile(i, n=2)
    sch.split(i, factors=factors)
    json_obj = sch.trace.as_json()
    assert len(json_obj[1]) == 1
    new_sch = s_tir.Schedule(two_stage, seed=99)
    Trace.apply_json_to_schedule(json_obj, new_sch)
    tvm.ir.assert_structural_equal(new_sch.mod, sch.mod)


def test_apply_json_rejects_bad_input():
    sch = s_tir.Schedule(two_stage)
    with pytest.raises(ValueError, match="expected \\[instructions, decisions\\]"):
        Trace.apply_json_to_schedule({"x": 1}, sch)
    with pytest.raises(ValueError, match="used before an instruction defines it"):
        Trace.apply_json_to_schedule([[["get_loops", [], [["block", {"rv": "b9"}]], []]], []],
                                     sch)


def test_roundtrip_detects_a_different_start():
    sch = _scheduled()
    other = two_stage.with_body(two_stage.body)
    verify_trace_roundtrip(sch, other, text_format="json")
    with pytest.raises(ValueError, match="unknown text format"):
        verify_trace_roundtrip(sch, two_stage, text_format="yaml")


def test_ignore_global_symbol():
    a = two_stage.with_attr("global_symbol", "a")
    b = two_stage.with_attr("global_symbol", "b")
    assert_structural_equal_ignore_global_symbol(a, b)
    with pytest.raises(ValueError):
        tvm.ir.assert_structural_equal(a, b)


def test_roundtrip_of_cache_read_with_and_without_consumers():
    sch = s_tir.Schedule(two_stage, debug_mask="all")
    sch.cache_read(sch.get_sblock("B"), 0, "shared")
    sch.cache_read(sch.get_sblock("C"), 0, "local", consumer_blocks=[sch.get_sblock("C")])
    text = "\n".join(sch.trace.as_python())
    assert 'storage_scope="shared")' in text
    assert 'storage_scope="local", consumer_blocks=[b' in text
    verify_trace_roundtrip(sch, two_stage)
