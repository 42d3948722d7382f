"""GPU builtins: TVM's names, argument order, dtypes and printed forms."""

import pytest

import tvm
from tvm import tirx
from tvm.script import tirx as T


def test_printed_forms_match_tvm():
    # Printed forms checked against Apache TVM 0.27.
    v = tirx.Var("v", "float32")
    mask = tirx.Var("mask", "uint32")
    assert str(tirx.tvm_warp_shuffle_down(mask, v, 16, 32, 32)) == \
        "T.tvm_warp_shuffle_down(mask, v, 16, 32, 32)"
    assert str(tirx.tvm_warp_activemask()) == "T.tvm_warp_activemask()"
    # The form TVM's passes emit (its Python helper also spells out is_load/num_blocks).
    assert str(tirx.tvm_storage_sync("shared")) == 'T.tvm_storage_sync("shared")'


def test_dtypes():
    v = tirx.Var("v", "float16")
    assert tirx.tvm_warp_shuffle_down(0, v, 1, 32, 32).dtype == "float16"
    assert tirx.tvm_warp_shuffle_up(0, v, 1, 32, 32).dtype == "float16"
    assert tirx.tvm_warp_shuffle(0, v, 1, 32, 32).dtype == "float16"
    assert tirx.tvm_warp_activemask().dtype == "uint32"
    assert tirx.tvm_storage_sync("shared").dtype == "int32"
    assert tirx.tvm_thread_allreduce(1, v, True, v).dtype == "void"


def test_ops_are_registered_once_under_tvm_names():
    for name in ("tvm_storage_sync", "tvm_thread_allreduce", "tvm_warp_shuffle",
                 "tvm_warp_shuffle_down", "tvm_warp_shuffle_up", "tvm_warp_activemask"):
        op = tvm.ir.Op.get(f"tirx.{name}")
        assert op.name == f"tirx.{name}"


def test_tvmscript_round_trip():
    @T.prim_func
    def f(A: T.Buffer((64,), "float32")):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            T.tvm_storage_sync("shared")
            m = T.tvm_warp_activemask()
            A[tx] = T.tvm_warp_shuffle_down(m, A[tx], 16, 32, 32)

    text = f.script()
    assert "T.tvm_warp_shuffle_down(m, A[tx], 16, 32, 32)" in text
    assert tvm.ir.structural_equal(tvm.script.from_source(text), f)


def test_storage_sync_needs_a_scope_name():
    with pytest.raises(TypeError, match="must be a str"):
        tirx.tvm_storage_sync(1)
