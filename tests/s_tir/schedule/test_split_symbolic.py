"""split with an inferred factor over a symbolic extent (dynamic batch sizes on GPUs)."""

import numpy as np

import tvm
from tvm import s_tir, te, tirx
from tvm.tirx.interpreter import run_prim_func


def _scale():
    n = tirx.Var("n", "int32")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    return te.create_prim_func([A, B])


def test_inferred_outer_factor_is_ceildiv_with_predicate():
    sch = s_tir.Schedule(_scale())
    (i,) = sch.get_loops(sch.get_sblock("B"))
    io, ii = sch.split(i, [None, 16])
    assert str(sch.get(io).extent) == "(n + 15) // 16"
    assert int(sch.get(ii).extent) == 16
    # Checked against Apache TVM 0.27: the same loops and predicate.
    text = sch.mod["main"].script()
    assert "for i_0, i_1 in T.grid((n + 15) // 16, 16):" in text
    assert "T.where(i_0 * 16 + i_1 < n)" in text
    for size in (1, 16, 37):
        a = np.arange(size, dtype="float32")
        b = np.zeros_like(a)
        run_prim_func(sch.mod["main"], [a, b])
        np.testing.assert_array_equal(b, a * 2)


def test_inferred_middle_factor():
    sch = s_tir.Schedule(_scale())
    (i,) = sch.get_loops(sch.get_sblock("B"))
    _, i1, _ = sch.split(i, [4, None, 8])
    assert str(sch.get(i1).extent) == "(n + 31) // 32"
    a = np.arange(70, dtype="float32")
    b = np.zeros_like(a)
    run_prim_func(sch.mod["main"], [a, b])
    np.testing.assert_array_equal(b, a * 2)


def test_gpu_binding_of_a_symbolic_loop_runs_in_the_simulator():
    from tvm.s_tir.transform import lower_for_gpu
    from tvm.tirx.gpu_simulator import simulate_prim_func

    sch = s_tir.Schedule(_scale())
    (i,) = sch.get_loops(sch.get_sblock("B"))
    bx, tx = sch.split(i, [None, 32])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    a = np.arange(45, dtype="float32")
    b = np.zeros_like(a)
    simulate_prim_func(lower_for_gpu(tvm.IRModule({"main": sch.mod["main"]}))["main"], [a, b])
    np.testing.assert_array_equal(b, a * 2)
