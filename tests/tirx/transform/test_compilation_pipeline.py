"""Named TIR pipelines: lookup, registration, and a full lowering of a te compute."""

import pytest

import tvm
from tvm import te
from tvm.tirx import BufferLoad, BufferStore, ForKind
from tvm.tirx import compilation_pipeline as cp
from tvm.tirx.stmt_functor import post_order_visit


def test_pipeline_map_has_default_and_tirx():
    assert {"default", "tirx"} <= set(cp.PIPELINE_MAP)
    assert callable(cp.get_tir_pipeline("tirx"))
    assert cp.get_default_tir_pipeline() is cp.get_tir_pipeline("default")


def test_unknown_pipeline_names_the_registered_ones():
    with pytest.raises(ValueError, match="Unknown TIR pipeline 'nope'.*default"):
        cp.get_tir_pipeline("nope")


def test_register_pipeline():
    calls = []

    def mine(target=None):
        calls.append(target)
        return tvm.transform.Sequential([], name="mine")

    cp.register_tir_pipeline("test_mine", mine)
    try:
        assert cp.get_tir_pipeline("test_mine") is mine
        with pytest.raises(ValueError, match="already registered"):
            cp.register_tir_pipeline("test_mine", mine, override=False)
        with pytest.raises(TypeError, match="must be callable"):
            cp.register_tir_pipeline("bad", 3)
    finally:
        del cp.PIPELINE_MAP["test_mine"]


def test_default_pipeline_lowers_blocks_and_flattens():
    A = te.placeholder((6, 5), "float32", name="A")
    k = te.reduce_axis((0, 5), name="k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    mod = tvm.IRModule({"main": te.create_prim_func([A, B])})
    out = cp.get_tir_pipeline("default")(None)(mod)["main"]
    kinds = []

    def visit(node):
        kinds.append(type(node).__name__)
        if isinstance(node, (BufferLoad, BufferStore)):
            assert len(node.indices) == 1
        if hasattr(node, "kind") and isinstance(node.kind, ForKind):
            assert node.kind in (ForKind.SERIAL, ForKind.PARALLEL)

    post_order_visit(out.body, visit)
    assert "SBlock" not in kinds and "SBlockRealize" not in kinds
    assert out.get_attr("calling_conv") == 1
