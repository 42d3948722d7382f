"""tvm.ir.VDevice / DummyGlobalInfo (re-exported by tvm.relax), SequentialSpan, ir.base names."""

import pytest

import tvm
from tvm import relax
from tvm.ir import DummyGlobalInfo, SequentialSpan, VDevice


def test_vdevice_is_shared_with_relax():
    assert relax.VDevice is VDevice and relax.DummyGlobalInfo is DummyGlobalInfo
    vd = VDevice("llvm", 1, "global")
    assert vd.target.kind.name == "llvm" and vd.vdevice_id == 1 and vd.memory_scope == "global"
    mod = tvm.IRModule({}, global_infos={"vdevice": [vd], "dummy": [DummyGlobalInfo()]})
    assert mod.global_infos["vdevice"][0].same_as(vd)


def test_sequential_span_lists_spans():
    src = tvm.ir.SourceName("a.py")
    s1 = tvm.ir.Span(src, 1, 1, 0, 4)
    s2 = tvm.ir.Span(src, 7, 7, 2, 9)
    seq = SequentialSpan([s1, s2])
    assert [s.line for s in seq.spans] == [1, 7]
    with pytest.raises(TypeError, match=r"spans\[1\] must be a Span"):
        SequentialSpan([s1, "x"])


def test_ir_base_reexports_assert_structural_equal():
    from tvm.ir.base import assert_structural_equal

    assert assert_structural_equal is tvm.ir.assert_structural_equal
    with pytest.raises(ValueError):
        assert_structural_equal(tvm.tirx.const(1, "int32"), tvm.tirx.const(2, "int32"))
