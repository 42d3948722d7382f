"""The reference evaluator (tvm.relax.testing.evaluate) on whole Relax programs."""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax, te, tirx
from tvm.ir.op import register_op
from tvm.relax.op.registry import register_relax_op
from tvm.relax.testing import EvaluationError, ReferenceEvaluator, evaluate
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Branchy:
    @R.function
    def helper(x: R.Tensor(("n", 2), "float32")) -> R.Tensor(("n", 2), "float32"):
        return R.nn.relu(x)

    @R.function
    def main(x: R.Tensor(("n", 2), "float32"), flag: R.Tensor((), "bool")):
        n = T.int64()
        y = Branchy.helper(x)
        if flag:
            z = R.multiply(y, y)
        else:
            z = R.negative(y)
        s = R.sum(z, axis=[0])
        w = R.match_cast(y, R.Tensor((n, 2), "float32"))
        return (s, R.shape_of(x), w)


X = np.array([[1.0, -2.0], [3.0, 4.0], [-1.0, 0.5]], "float32")


def test_if_module_calls_tuples_and_symbolic_shapes():
    relu = np.maximum(X, 0)
    s, shape, w = evaluate(Branchy, X, np.array(True))
    np.testing.assert_allclose(s, (relu * relu).sum(0))
    assert shape == (3, 2)
    np.testing.assert_array_equal(w, relu)
    s, _, _ = evaluate(Branchy, X, np.array(False), func_name="main")
    np.testing.assert_allclose(s, -relu.sum(0))


def test_evaluator_object_runs_any_function():
    np.testing.assert_array_equal(ReferenceEvaluator(Branchy).run("helper", X), np.maximum(X, 0))


def test_argument_checks():
    with pytest.raises(EvaluationError, match="parameter x: expected dtype float32, got int32"):
        evaluate(Branchy, X.astype("int32"), np.array(True))
    with pytest.raises(EvaluationError, match="parameter x: expected ndim 2"):
        evaluate(Branchy, X[0], np.array(True))
    with pytest.raises(TypeError, match="main expects 2 arguments, got 1"):
        evaluate(Branchy, X)


@I.ir_module
class SharedDim:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")):
        return R.add(x, y)


def test_symbolic_dim_bound_by_first_use_and_checked_after():
    np.testing.assert_array_equal(
        evaluate(SharedDim, np.ones(3, "float32"), np.ones(3, "float32")), np.full(3, 2.0)
    )
    with pytest.raises(EvaluationError, match="parameter y: dim 0 is 4, but the type requires n"):
        evaluate(SharedDim, np.ones(3, "float32"), np.ones(4, "float32"))


@I.ir_module
class Casts:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)):
        m = T.int64()
        k = T.int64()
        y = R.match_cast(x, R.Tensor((m, k), "float32"))
        z = R.match_cast(y, R.Tensor((m, 3), "float32"))
        return R.reshape(z, R.shape([m * 3]))


def test_match_cast_binds_and_checks():
    out = evaluate(Casts, np.ones((2, 3), "float32"))
    assert out.shape == (6,)
    with pytest.raises(EvaluationError, match="match_cast of z: dim 1 is 4"):
        evaluate(Casts, np.ones((2, 4), "float32"))


@I.ir_module
class ShapesAndScalars:
    @R.function
    def main(s: R.Shape(["a", "b"]), v: R.Prim("int64")):
        a = T.int64()
        b = T.int64()
        z = R.zeros(R.shape([a, b]), "float32")
        return (z, R.shape([b, a]), v)


def test_shape_and_prim_values():
    z, shape, v = evaluate(ShapesAndScalars, (2, 3), 7)
    assert z.shape == (2, 3) and shape == (3, 2) and v == 7


def _dps_module():
    n = tirx.Var("n", "int64")
    a = te.placeholder((n,), name="A")
    b = te.compute((n,), lambda i: a[i] * 2.0, name="B")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((n,), "float32"))
    out_ty = relax.TensorType((n,), "float32")
    with bb.function("main", [x]):
        gv = bb.add_func(te.create_prim_func([a, b]), "times2")
        y = bb.emit(relax.op.call_tir(gv, [x], out_ty))
        z = bb.emit(relax.op.call_pure_packed("testing.evaluator.add1", y, ty_args=out_ty))
        w = bb.emit(relax.op.call_dps_packed("testing.evaluator.times10", [z], out_ty))
        bb.emit_func_output(w)
    return bb.get()


def test_call_tir_and_packed_functions():
    @tvm.ffi.register_func("testing.evaluator.add1", override=True)
    def _add1(t):
        return tvm.runtime.tensor(t.numpy() + 1)

    @tvm.ffi.register_func("testing.evaluator.times10", override=True)
    def _times10(t, out):
        out.copyfrom(t.numpy() * 10)

    np.testing.assert_array_equal(
        evaluate(_dps_module(), np.arange(3, dtype="float32")), [10.0, 30.0, 50.0]
    )


def test_impure_call_packed():
    seen = []

    @tvm.ffi.register_func("testing.evaluator.record", override=True)
    def _record(t):
        seen.append(t.numpy().tolist())

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x], pure=False):
        bb.emit(relax.op.call_packed("testing.evaluator.record", x))
        bb.emit_func_output(x)
    evaluate(bb.get(), np.array([1.0, 2.0], "float32"))
    assert seen == [[1.0, 2.0]]


def test_missing_packed_function():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.op.call_pure_packed("testing.evaluator.nowhere", x, ty_args=x.ty))
        bb.emit_func_output(y)
    with pytest.raises(ValueError, match="testing.evaluator.nowhere"):
        evaluate(bb.get(), np.ones(2, "float32"))


def test_nested_function_closure():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    y = relax.Var("y", relax.TensorType((2,), "float32"))
    inner = relax.Function([y], relax.op.multiply(x, y), ret_ty=relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        f = bb.emit(inner)
        out = bb.emit(relax.Call(f, [x]))
        bb.emit_func_output(out)
    np.testing.assert_array_equal(evaluate(bb.get(), np.array([2.0, 3.0], "float32")), [4.0, 9.0])


def test_missing_reference_rule_names_op_concern_and_file():
    op = register_relax_op(
        "testing_evaluator_noref", 1, "unary", lambda call, bb=None: call.args[0].ty
    )
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.Call(op, [x]))
        bb.emit_func_output(y)
    with pytest.raises(TypeError, match="FReference") as info:
        evaluate(bb.get(), np.ones(2, "float32"))
    assert "relax.testing_evaluator_noref" in str(info.value)
    assert "src/tvm/relax/op/unary/reference.py" in str(info.value)
    assert register_op  # the op registry is the same one the evaluator reads


def test_reference_disagreeing_with_inference_is_an_internal_error():
    op = register_relax_op(
        "testing_evaluator_wrong", 1, "unary", lambda call, bb=None: call.args[0].ty
    )
    tvm.ir.register_op_attr(op.name, "FReference", lambda attrs, x: x.astype("float64"))
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.Call(op, [x]))
        bb.emit_func_output(y)
    with pytest.raises(tvm.error.InternalError, match="expected dtype float32, got float64"):
        evaluate(bb.get(), np.ones(2, "float32"))


def test_evaluates_a_bare_function():
    func = Branchy["helper"]
    np.testing.assert_array_equal(evaluate(func, X), np.maximum(X, 0))


def test_undefined_variable_is_invalid_ir():
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    ghost = relax.Var("ghost", relax.TensorType((2,), "float32"))
    func = relax.Function([x], relax.SeqExpr([], ghost), ret_ty=x.ty)
    with pytest.raises(ValueError, match="ghost is used before it is defined"):
        evaluate(func, np.ones(2, "float32"))


def test_call_tir_with_symbolic_tir_vars():
    n = tirx.Var("n", "int64")
    a = te.placeholder((n,), name="A")
    b = te.compute((n,), lambda i: a[i] + 1.0, name="B")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((n,), "float32"))
    with bb.function("main", [x]):
        gv = bb.add_func(te.create_prim_func([a, b]), "plus1")
        y = bb.emit(relax.op.call_tir(gv, [x], relax.TensorType((n,), "float32")))
        z = bb.emit(relax.op.call_tir(gv, [y], relax.TensorType((n,), "float32")))
        bb.emit_func_output(relax.Tuple([y, z]))
    y, z = evaluate(bb.get(), np.zeros(4, "float32"))
    np.testing.assert_array_equal(y, np.ones(4))
    np.testing.assert_array_equal(z, np.full(4, 2.0))
