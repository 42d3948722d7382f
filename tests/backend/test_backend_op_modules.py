"""``tvm.tirx.{cuda,metal,trn}.op``: backend builtins as plain functions, kept out of
``tvm.tirx`` and ``T``. The printed forms were checked against Apache TVM 0.27's."""

import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx import Var


@pytest.fixture(scope="module")
def ops():
    from tvm.tirx.cuda import op as cuda_op
    from tvm.tirx.metal import op as metal_op
    from tvm.tirx.trn import op as trn_op

    return cuda_op, metal_op, trn_op


@pytest.mark.parametrize("name", ["ptx_legacy_mma", "mma_store", "cuda_thread_fence",
                                  "nvshmem_fence", "make_filled_simdgroup_matrix",
                                  "simdgroup_load", "nki_load"])
def test_backend_names_are_not_root_exports(name):
    assert not hasattr(tvm.tirx.op, name)
    assert not hasattr(tvm.tirx, name)
    assert not hasattr(T, name)


def test_wrappers_build_the_namespace_calls(ops):
    cuda_op, metal_op, trn_op = ops
    p, q = Var("p", "handle"), Var("q", "handle")
    buf = tvm.tirx.decl_buffer((4,), "float32", name="buf")
    assert_structural_equal(cuda_op.cuda_thread_fence(), T.cuda.thread_fence())
    assert_structural_equal(cuda_op.cuda_warp_sum(p), T.cuda.warp_sum(p))
    assert_structural_equal(cuda_op.nvshmem_my_pe(), T.nvshmem.my_pe())
    assert_structural_equal(cuda_op.nvshmem_getmem_nbi_warp(p, q, 4, 0),
                            T.nvshmem.getmem_nbi.warp(p, q, 4, 0))
    assert_structural_equal(trn_op.nki_load(buf[0:4], buf[0:4]), T.nki.load(buf[0:4], buf[0:4]))
    assert_structural_equal(metal_op.simdgroup_load(p, 0, q, 8),
                            T.metal.simdgroup_load(p, 0, q, 8))


def test_printed_forms(ops):
    cuda_op, metal_op, _ = ops
    p, q = Var("p", "handle"), Var("q", "handle")
    cases = [
        (cuda_op.mma_store("float32", 16, 16, p, q, 0, 16),
         'T.cuda.mma_store("float32", 16, 16, p, q, 0, 16)', "tirx.mma_store"),
        (cuda_op.mma_fill("float32", 8, p, 0), 'T.cuda.mma_fill("float32", 8, p, 0)',
         "tirx.mma_fill"),
        (metal_op.make_filled_simdgroup_matrix(p, 0, 1.0),
         "T.metal.make_filled_simdgroup_matrix(p, 0, T.float32(1.0), 8, 8)",
         "tirx.make_filled_simdgroup_matrix"),
        (metal_op.simdgroup_store(p, 0, q, 8),
         "T.metal.simdgroup_store(p, 0, q, 8, 8, 8, T.bool(False))", "tirx.simdgroup_store"),
        (metal_op.simdgroup_multiply_accumulate(p, 0, p, 1, p, 2, p, 3),
         "T.metal.simdgroup_multiply_accumulate(p, 0, p, 1, p, 2, p, 3)",
         "tirx.simdgroup_multiply_accumulate"),
    ]
    for call, text, op_name in cases:
        assert str(call) == text
        assert call.op.name == op_name


def test_builtins_round_trip():
    @T.prim_func(check_well_formed=False)
    def func(a: T.handle, b: T.handle):
        T.evaluate(T.cuda.mma_store("float32", 16, 16, a, b, 0, 16))
        T.evaluate(T.cuda.mma_fill("float16", 8, a, 0))
        T.evaluate(T.metal.make_filled_simdgroup_matrix(a, 0, T.float32(0), 8, 8))
        T.evaluate(T.metal.simdgroup_load(a, 1, b, 16, 8, 8, T.bool(True)))

    text = func.script()
    assert 'T.cuda.mma_store("float32", 16, 16, a, b, 0, 16)' in text
    assert "T.metal.simdgroup_load(a, 1, b, 16, 8, 8, T.bool(True))" in text
    assert_structural_equal(func, tvm.script.from_source(text))
