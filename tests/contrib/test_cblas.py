"""tvm.contrib.cblas: extern matrix products that build and compute like NumPy."""

import numpy as np
import pytest

import tvm
from tvm import relax, te, tirx
from tvm.contrib import cblas


def _run_prim(f, *arrays, out_shape):
    ex = tvm.compile(f)
    out = tvm.runtime.tensor(np.zeros(out_shape, "float32"))
    ex(*[tvm.runtime.tensor(a) for a in arrays], out)
    return out.numpy()


@pytest.mark.parametrize("transa,transb", [(False, False), (True, False), (False, True),
                                           (True, True)])
def test_matmul_matches_numpy(transa, transb):
    rng = np.random.default_rng(0)
    a = rng.random((5, 4) if transa else (4, 5), dtype="float32")
    b = rng.random((6, 5) if transb else (5, 6), dtype="float32")
    A = te.placeholder(a.shape, name="A")
    B = te.placeholder(b.shape, name="B")
    C = cblas.matmul(A, B, transa=transa, transb=transb)
    assert C.op.name == "C" and [int(d) for d in C.shape] == [4, 6]
    got = _run_prim(te.create_prim_func([A, B, C]), a, b, out_shape=(4, 6))
    ref = (a.T if transa else a) @ (b.T if transb else b)
    np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_batch_matmul_broadcasts_batch_of_one():
    rng = np.random.default_rng(1)
    a = rng.random((3, 2, 4), dtype="float32")
    b = rng.random((1, 4, 5), dtype="float32")
    A = te.placeholder(a.shape, name="A")
    B = te.placeholder(b.shape, name="B")
    C = cblas.batch_matmul(A, B)
    got = _run_prim(te.create_prim_func([A, B, C]), a, b, out_shape=(3, 2, 5))
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)


def test_emit_te_with_symbolic_shapes_runs_in_the_vm():
    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    x = relax.Var("x", relax.TensorType([n, m], "float32"))
    y = relax.Var("y", relax.TensorType([m, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        out = bb.emit_te(cblas.matmul, x, y)
        bb.emit_func_output(out)
    mod = bb.finalize()
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.args[0].name_hint == "matmul"
    assert list(call.ty_args[0].shape) == [n, n]
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.arange(6, dtype="float32").reshape(3, 2)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(b)).numpy(),
                               a @ b)


def test_bad_operands():
    A = te.placeholder((2, 3, 4), name="A")
    with pytest.raises(ValueError, match="2-D"):
        cblas.matmul(A, A)
    with pytest.raises(TypeError, match="te.Tensor"):
        cblas.batch_matmul(np.zeros((1, 2, 2)), A)
