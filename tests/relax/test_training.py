"""``tvm.relax.training``: losses and optimizers against NumPy, SetupTrainer's functions, and
the Trainer training a small model end to end through the VM."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import evaluate
from tvm.relax.training import AppendLoss, SetupTrainer, Trainer
from tvm.relax.training.loss import CategoricalCrossEntropyLoss, CrossEntropyLoss, L1Loss, MSELoss
from tvm.relax.training.optimizer import SGD, Adam, MomentumSGD
from tvm.script import ir as I
from tvm.script import relax as R

F32 = relax.TensorType((4, 3), "float32")
rng = np.random.default_rng(0)
P = rng.standard_normal((4, 3)).astype("float32")
T = rng.standard_normal((4, 3)).astype("float32")
LABELS = np.array([0, 2, 1, 2], "int64")


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _run(func, *args):
    return evaluate(tvm.IRModule({"main": func}), *args)


@pytest.mark.parametrize(
    ("loss", "reference"),
    [
        (L1Loss(), lambda p, t: np.abs(p - t).mean()),
        (L1Loss("sum"), lambda p, t: np.abs(p - t).sum()),
        (MSELoss(), lambda p, t: ((p - t) ** 2).mean()),
        (MSELoss("none"), lambda p, t: (p - t) ** 2),
        (CategoricalCrossEntropyLoss(), lambda p, t: -(t * _log_softmax(p)).sum() / 4),
        (CategoricalCrossEntropyLoss("sum"), lambda p, t: -(t * _log_softmax(p)).sum()),
    ],
)
def test_float_target_losses(loss, reference):
    func = loss(F32, F32)
    np.testing.assert_allclose(_run(func, P, T), reference(P, T), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_loss(reduction):
    func = CrossEntropyLoss(reduction)(F32, relax.TensorType((4,), "int64"))
    picked = -_log_softmax(P)[np.arange(4), LABELS]
    expected = {"mean": picked.mean(), "sum": picked.sum(), "none": picked}[reduction]
    np.testing.assert_allclose(_run(func, P, LABELS), expected, rtol=1e-5)


def test_class_weighted_losses():
    weights = np.array([0.5, 2.0, 1.0], "float32")
    w_ty = relax.TensorType((3,), "float32")
    func = CrossEntropyLoss()(F32, relax.TensorType((4,), "int64"), w_ty)
    assert [p.name_hint for p in func.params] == ["predictions", "targets", "weights"]
    picked = -_log_softmax(P)[np.arange(4), LABELS] * weights[LABELS]
    np.testing.assert_allclose(_run(func, P, LABELS, weights),
                               picked.sum() / weights[LABELS].sum(), rtol=1e-5)
    func = CategoricalCrossEntropyLoss("sum")(F32, F32, w_ty)
    np.testing.assert_allclose(_run(func, P, T, weights),
                               -(T * _log_softmax(P) * weights).sum(), rtol=1e-5)


def test_loss_errors():
    with pytest.raises(ValueError, match="reduction must be one of"):
        MSELoss("avg")
    with pytest.raises(TypeError, match="predictions must be a relax.Var or a relax Type"):
        MSELoss()(np.zeros(3), F32)
    with pytest.raises(ValueError, match="ignore_index is not supported"):
        CategoricalCrossEntropyLoss(ignore_index=1)


def _opt_step(opt, params, grads):
    names = [f"w{i}" for i in range(len(params))]
    vars_ = [relax.Var(n, relax.TensorType(p.shape, "float32")) for n, p in zip(names, params)]
    opt.init(vars_)
    func = opt.get_function()
    states = tuple(s.numpy() for s in opt.state)
    return _run(func, tuple(params), tuple(grads), states)


def test_sgd_step_with_weight_decay():
    w, g = rng.standard_normal(3).astype("float32"), rng.standard_normal(3).astype("float32")
    (new,), (steps,) = _opt_step(SGD(0.1, weight_decay=0.01), [w], [g])
    np.testing.assert_allclose(new, w - 0.1 * (g + 0.01 * w), rtol=1e-6)
    assert int(steps) == 1


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_sgd_first_step(nesterov):
    w, g = rng.standard_normal(3).astype("float32"), rng.standard_normal(3).astype("float32")
    (new,), (_, v) = _opt_step(MomentumSGD(0.1, 0.9, nesterov=nesterov), [w], [g])
    np.testing.assert_allclose(v, g, rtol=1e-6)
    direction = g + 0.9 * g if nesterov else g
    np.testing.assert_allclose(new, w - 0.1 * direction, rtol=1e-6)


def test_adam_first_step():
    w, g = rng.standard_normal(3).astype("float32"), rng.standard_normal(3).astype("float32")
    (new,), states = _opt_step(Adam(0.01), [w], [g])
    steps, b1p, b2p, m, v = states
    assert int(steps) == 1
    np.testing.assert_allclose(b2p, 0.999, rtol=1e-6)
    np.testing.assert_allclose(m, 0.1 * g, rtol=1e-5)
    np.testing.assert_allclose(v, 0.001 * g * g, rtol=1e-5)
    np.testing.assert_allclose(b1p, 0.9, rtol=1e-6)
    # The first bias-corrected Adam step is lr * sign(g) (up to eps).
    np.testing.assert_allclose(new, w - 0.01 * np.sign(g), rtol=1e-4, atol=1e-6)


def test_optimizer_errors():
    with pytest.raises(ValueError, match="call init"):
        SGD(0.1).get_function()
    with pytest.raises(ValueError, match="only float parameters"):
        SGD(0.1).init([relax.Var("i", relax.TensorType((3,), "int32"))])
    mixed = [relax.Var("a", relax.TensorType((3,), "float32")),
             relax.Var("b", relax.TensorType((3,), "float64"))]
    with pytest.raises(ValueError, match="same dtype"):
        SGD(0.1).init(mixed)


@I.ir_module
class Backbone:
    I.module_attrs({"param_num": 2, "state_num": 0})

    @R.function
    def backbone(x: R.Tensor((8, 4), "float32"), w: R.Tensor((4, 3), "float32"),
                 b: R.Tensor((3,), "float32")):
        with R.dataflow():
            y = R.add(R.matmul(x, w), b)
            R.output(y)
        return y


def _setup(opt, legalize=True):
    loss = CrossEntropyLoss()
    args = [relax.TensorType((8, 3), "float32"), relax.TensorType((8,), "int64")]
    return SetupTrainer(loss, opt, args, legalize=legalize)(Backbone)


def test_setup_trainer_functions_and_attributes():
    mod = _setup(SGD(0.1), legalize=False)
    names = {gv.name_hint for gv in mod.functions}
    assert {"backbone", "backbone_loss", "backbone_loss_adjoint", "optimizer",
            "train_step"} <= names
    assert int(mod.get_attr("input_num")) == 1
    assert int(mod.get_attr("param_num")) == 2
    assert [p.name_hint for p in mod["train_step"].params] == [
        "x", "w", "b", "targets", "optim_states"]


def test_train_step_equals_adjoint_then_optimizer():
    mod = _setup(MomentumSGD(0.1, 0.9), legalize=False)
    x = rng.standard_normal((8, 4)).astype("float32")
    w = rng.standard_normal((4, 3)).astype("float32")
    b = rng.standard_normal(3).astype("float32")
    y = rng.integers(0, 3, 8).astype("int64")
    states = tuple(t.numpy() for t in mod.get_attr("optim_state"))
    loss, grads = evaluate(mod, x, w, b, y, func_name="backbone_loss_adjoint")
    new_params, new_states = evaluate(mod, (w, b), grads, states, func_name="optimizer")
    loss2, params2, states2 = evaluate(mod, x, w, b, y, states, func_name="train_step")
    np.testing.assert_allclose(loss2, loss, rtol=1e-6)
    for a, e in zip(params2 + states2, new_params + new_states):
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_setup_trainer_errors():
    with pytest.raises(ValueError, match="no function 'backbone'"):
        SetupTrainer(MSELoss(), SGD(0.1), [F32, F32])(tvm.IRModule({}))
    no_attrs = Backbone.without_attr("param_num")
    with pytest.raises(ValueError, match="param_num and state_num"):
        SetupTrainer(MSELoss(), SGD(0.1), [F32, F32])(no_attrs)


def test_append_loss_adds_a_function():
    loss = MSELoss()(relax.TensorType((8, 3), "float32"), relax.TensorType((8, 3), "float32"))
    mod = AppendLoss("backbone", loss)(Backbone)
    f = mod["backbone_loss"]
    assert [p.name_hint for p in f.params] == ["x", "w", "b", "targets"]
    x = np.ones((8, 4), "float32")
    w = np.ones((4, 3), "float32")
    b = np.zeros(3, "float32")
    np.testing.assert_allclose(evaluate(mod, x, w, b, np.zeros((8, 3), "float32"),
                                        func_name="backbone_loss"), 16.0)


@pytest.fixture(scope="module")
def trained():
    mod = _setup(Adam(0.05))
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    trainer = Trainer(mod, vm, tvm.cpu())
    trainer.xaiver_uniform_init_params(seed=0)
    data = np.random.default_rng(1)
    x = data.standard_normal((8, 4)).astype("float32")
    y = (x @ data.standard_normal((4, 3))).argmax(1).astype("int64")
    losses = [float(trainer.update(x, y).numpy()) for _ in range(60)]
    return trainer, x, y, losses


def test_trainer_learns(trained):
    trainer, x, y, losses = trained
    assert losses[-1] < 0.2 * losses[0]
    assert (trainer.predict(x).numpy().argmax(1) == y).all()


def test_trainer_params_roundtrip(trained):
    trainer, x, _, _ = trained
    params = {k: v.numpy() for k, v in trainer.export_params().items()}
    assert sorted(params) == ["b", "w"]
    before = trainer.predict(x).numpy()
    trainer.load_params({"w": np.zeros((4, 3), "float32")})
    np.testing.assert_allclose(trainer.predict(x).numpy(), np.broadcast_to(params["b"], (8, 3)))
    trainer.load_params([params["w"], params["b"]])
    np.testing.assert_allclose(trainer.predict(x).numpy(), before)


def test_trainer_errors(trained):
    trainer = trained[0]
    with pytest.raises(ValueError, match="unknown parameters"):
        trainer.load_params({"v": np.zeros(3)})
    with pytest.raises(ValueError, match="parameter w expects shape"):
        trainer.load_params([np.zeros((3, 3), "float32"), np.zeros(3, "float32")])
    with pytest.raises(ValueError, match="expected 1 inputs"):
        trainer.predict()
    with pytest.raises(ValueError, match="function train_step"):
        trainer.update(np.zeros((7, 4), "float32"), np.zeros(8, "int64"))


@pytest.mark.parametrize(
    "module_name",
    ["tvm.relax.vm.machine", "tvm.relax.training.loss", "tvm.relax.training.optimizer"],
)
def test_docstring_examples_run(module_name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module_name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_trainer_without_initial_parameters(trained):
    first, x, _, _ = trained
    trainer = Trainer(first.mod, first.vm, tvm.cpu(), zero_init_param_state=False)
    assert trainer.export_params() == {"w": None, "b": None}
    with pytest.raises(RuntimeError, match=r"Trainer.predict: The 0-th parameter \(w\) is not "
                       "initialized before training or inference"):
        trainer.predict(x)
    trainer.load_params({"w": np.zeros((4, 3), "float32")})
    with pytest.raises(RuntimeError, match=r"Trainer.update: The 1-th parameter \(b\)"):
        trainer.update(x, np.zeros(8, "int64"))
    trainer.load_params({"b": np.ones(3, "float32")})
    np.testing.assert_allclose(trainer.predict(x).numpy(), np.ones((8, 3)))
