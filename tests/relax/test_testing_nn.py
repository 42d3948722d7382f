"""``tvm.relax.testing.nn``: modules emit Relax bindings; an MLP trained by Gradient."""

import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax
from tvm.relax.testing import ReferenceEvaluator, nn


def _mlp_module():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2, bias=False), nn.LogSoftmax())
    data = nn.Placeholder((5, 4), name="data")
    label = nn.Placeholder((5, 2), name="label")
    bb = relax.BlockBuilder()
    with bb.function("main", [data, label, *model.parameters()]):
        with bb.dataflow():
            logits = model(data)
            loss = bb.emit_output(relax.op.nn.cross_entropy_with_logits(logits, label))
        bb.emit_func_output(loss)
    return bb.get(), model


def test_parameters_and_forward_bindings():
    mod, model = _mlp_module()
    params = model.parameters()
    assert [p.name_hint for p in params] == ["linear_weight", "linear_bias", "linear_weight"]
    assert all(isinstance(p, nn.Parameter) and isinstance(p, relax.Var) for p in params)
    assert [int(d) for d in params[0].ty.shape.values] == [4, 3]
    ops = [b.value.op.name for b in mod["main"].body.blocks[0].bindings]
    assert ops == [
        "relax.matmul",
        "relax.add",
        "relax.nn.relu",
        "relax.matmul",
        "relax.nn.log_softmax",
        "relax.nn.cross_entropy_with_logits",
    ]


def test_module_without_forward_and_emit_outside_builder():
    class Empty(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match="must define forward"):
        Empty()(relax.Var("x", relax.TensorType([1], "float32")))
    with pytest.raises(ValueError, match="current BlockBuilder"):
        nn.emit(relax.op.exp(relax.Var("x", relax.TensorType([1], "float32"))))


def test_nested_modules_collect_parameters_in_order():
    class Block(nn.Module):
        def __init__(self):
            self.layers = [nn.Linear(2, 2), {"out": nn.Linear(2, 1, bias=False)}]
            self.scale = nn.Parameter((1,), name="scale")

    names = [p.name_hint for p in Block().parameters()]
    assert names == ["linear_weight", "linear_bias", "linear_weight", "scale"]


def test_init_params_skips_data():
    mod, _ = _mlp_module()
    np.random.seed(0)
    params = nn.init_params(mod)
    assert [tuple(p.numpy().shape) for p in params] == [(5, 2), (4, 3), (3,), (3, 2)]
    assert all(isinstance(p, tvm.runtime.Tensor) for p in params)


def test_mlp_gradient_numerically_and_by_training():
    mod, model = _mlp_module()
    params = model.parameters()
    mod = relax.transform.Gradient("main", require_grads=params)(mod)
    evaluator = ReferenceEvaluator(mod)
    # Seed 16 keeps every ReLU input at least 0.1 away from the kink at 0, so the finite
    # differences below do not step across it.
    rng = np.random.default_rng(16)
    data = rng.uniform(-1, 1, (5, 4)).astype("float32")
    label = np.eye(2, dtype="float32")[rng.integers(0, 2, 5)]
    weights = [rng.uniform(-0.5, 0.5, [int(d) for d in p.ty.shape.values]) for p in params]
    weights = [w.astype("float32") for w in weights]
    loss, grads = evaluator.run("main_adjoint", data, label, *weights)
    tvm.testing.check_numerical_grads(
        lambda *ws: evaluator.run("main", data, label, *[w.astype("float32") for w in ws]),
        weights,
        [np.asarray(g) for g in grads],
        delta=1e-2,
        atol=1e-3,
        rtol=1e-2,
    )
    # A few steps of gradient descent lower the loss.
    for _ in range(20):
        _, grads = evaluator.run("main_adjoint", data, label, *weights)
        weights = [w - 0.5 * np.asarray(g) for w, g in zip(weights, grads)]
    new_loss = evaluator.run("main", data, label, *weights)
    assert float(new_loss) < float(loss)


def test_emit_te_emits_call_tir():
    te = pytest.importorskip("tvm.te")
    x = relax.Var("x", relax.TensorType([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = nn.emit_te(lambda a: te.compute((3,), lambda i: a[i] + 1.0, name="b"), x)
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    assert bb.get()["main"].body.blocks[0].bindings[0].value.op.name == "relax.call_tir"
