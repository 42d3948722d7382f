"""Backbones with states (``state_num > 0``): a running mean updated by every training step.

The backbone is ``backbone(x, w, running_mean) -> (prediction, new_running_mean)``. The
Expected functions for ``backbone_loss`` and ``backbone_loss_adjoint`` were checked against
Apache TVM 0.27's printed output for the same module (same bindings, same outputs).
"""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.training import SetupTrainer, Trainer
from tvm.relax.training.loss import MSELoss
from tvm.relax.training.optimizer import SGD
from tvm.script import ir as I
from tvm.script import relax as R

LR = 0.1


@I.ir_module
class Backbone:
    I.module_attrs({"param_num": 1, "state_num": 1})

    @R.function
    def backbone(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                 running_mean: R.Tensor((3,), "float32")):
        with R.dataflow():
            mean = R.mean(x, axis=[0])
            centered = R.subtract(x, running_mean)
            y = R.matmul(centered, w)
            decayed = R.multiply(running_mean, R.const(0.9, "float32"))
            new_mean = R.add(decayed, R.multiply(mean, R.const(0.1, "float32")))
            R.output(y, new_mean)
        return (y, new_mean)


@I.ir_module
class Expected:
    @R.function
    def backbone_loss(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                      running_mean: R.Tensor((3,), "float32"),
                      targets: R.Tensor((4, 2), "float32")):
        with R.dataflow():
            mean = R.mean(x, axis=[0])
            centered = R.subtract(x, running_mean)
            y = R.matmul(centered, w)
            decayed = R.multiply(running_mean, R.const(0.9, "float32"))
            lv = R.multiply(mean, R.const(0.1, "float32"))
            new_mean = R.add(decayed, lv)
            diff = R.subtract(y, targets)
            square = R.multiply(diff, diff)
            gv = R.mean(square)
            R.output(new_mean, gv)
        return (gv, new_mean)

    @R.function
    def backbone_loss_adjoint(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                              running_mean: R.Tensor((3,), "float32"),
                              targets: R.Tensor((4, 2), "float32")):
        with R.dataflow():
            mean = R.mean(x, axis=[0])
            centered = R.subtract(x, running_mean)
            y = R.matmul(centered, w)
            decayed = R.multiply(running_mean, R.const(0.9, "float32"))
            lv = R.multiply(mean, R.const(0.1, "float32"))
            new_mean = R.add(decayed, lv)
            diff = R.subtract(y, targets)
            square = R.multiply(diff, diff)
            gv = R.mean(square)
            gv_adjoint = R.ones(R.shape([]), "float32")
            scaled = R.divide(gv_adjoint, R.const(8.0, "float32"))
            square_adjoint = R.broadcast_to(scaled, R.shape([4, 2]))
            diff_adjoint = R.multiply(square_adjoint, diff)
            diff_adjoint1 = R.multiply(square_adjoint, diff)
            diff_adjoint2 = R.add(diff_adjoint, diff_adjoint1)
            y_adjoint = diff_adjoint2
            centered_t = R.permute_dims(centered, axes=[1, 0])
            w_adjoint = R.matmul(centered_t, y_adjoint)
            w_adjoint_out = w_adjoint
            R.output(new_mean, gv, w_adjoint_out)
        # No adjoint for running_mean: states are inputs of the loss, not differentiated.
        return ((gv, new_mean), (w_adjoint_out,))

    @R.function
    def train_step(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                   running_mean: R.Tensor((3,), "float32"), targets: R.Tensor((4, 2), "float32"),
                   optim_states: R.Tuple(R.Tensor((), "int64"))):
        with R.dataflow():
            mean = R.mean(x, axis=[0])
            centered = R.subtract(x, running_mean)
            y = R.matmul(centered, w)
            decayed = R.multiply(running_mean, R.const(0.9, "float32"))
            lv = R.multiply(mean, R.const(0.1, "float32"))
            new_mean = R.add(decayed, lv)
            diff = R.subtract(y, targets)
            square = R.multiply(diff, diff)
            gv = R.mean(square)
            gv_adjoint = R.ones(R.shape([]), "float32")
            scaled = R.divide(gv_adjoint, R.const(8.0, "float32"))
            square_adjoint = R.broadcast_to(scaled, R.shape([4, 2]))
            diff_adjoint = R.multiply(square_adjoint, diff)
            diff_adjoint1 = R.multiply(square_adjoint, diff)
            diff_adjoint2 = R.add(diff_adjoint, diff_adjoint1)
            y_adjoint = diff_adjoint2
            centered_t = R.permute_dims(centered, axes=[1, 0])
            w_adjoint = R.matmul(centered_t, y_adjoint)
            w_adjoint_out = w_adjoint
            num_steps = optim_states[0]
            num_steps_new = R.add(num_steps, R.const(1, "int64"))
            w_1 = w
            w_grad = w_adjoint_out
            step = R.multiply(R.const(LR, "float32"), w_grad)
            w_new = R.subtract(w_1, step)
            params_new = (w_new,)
            optim_states_new = (num_steps_new,)
            R.output(new_mean, gv, params_new, optim_states_new)
        # (loss, params_new, optim_states_new, states_new): the states come last.
        return (gv, params_new, optim_states_new, (new_mean,))


def _setup(legalize):
    args = [relax.TensorType((4, 2), "float32"), relax.TensorType((4, 2), "float32")]
    return SetupTrainer(MSELoss(), SGD(LR), args, legalize=legalize)(Backbone)


@pytest.mark.parametrize("name", ["backbone_loss", "backbone_loss_adjoint", "train_step"])
def test_setup_trainer_with_states_matches_expected(name):
    mod = _setup(legalize=False)
    tvm.ir.assert_structural_equal(mod[name], Expected[name])
    assert int(mod.get_attr("state_num")) == 1
    assert int(mod.get_attr("input_num")) == 1


def _numpy_step(x, w, running_mean, targets):
    """Loss, new weight and new running mean of one SGD step, in NumPy."""
    centered = x - running_mean
    diff = centered @ w - targets
    loss = (diff**2).mean()
    grad = centered.T @ (2 * diff / diff.size)
    return loss, w - LR * grad, 0.9 * running_mean + 0.1 * x.mean(0)


@pytest.fixture(scope="module")
def trainer():
    mod = _setup(legalize=True)
    return Trainer(mod, relax.VirtualMachine(relax.build(mod), tvm.cpu()), tvm.cpu())


def test_compiled_steps_update_the_state_as_numpy_does(trainer):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 2)).astype("float32")
    trainer.load_params([w])
    trainer.zero_init_states()
    mean = np.zeros(3, "float32")
    for _ in range(3):
        x = rng.standard_normal((4, 3)).astype("float32") + 2.0
        t = rng.standard_normal((4, 2)).astype("float32")
        loss = float(trainer.update(x, t).numpy())
        ref_loss, w, mean = _numpy_step(x, w, mean, t)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
        np.testing.assert_allclose(trainer.export_params()["w"].numpy(), w, rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(trainer.export_states()["running_mean"].numpy(), mean,
                                   rtol=1e-5, atol=1e-6)


def test_predict_uses_but_does_not_update_the_states(trainer):
    w = np.eye(3, 2, dtype="float32")
    trainer.load_params({"w": w})
    trainer.load_states({"running_mean": np.ones(3, "float32")})
    x = np.arange(12, dtype="float32").reshape(4, 3)
    np.testing.assert_allclose(trainer.predict(x).numpy(), (x - 1) @ w)
    np.testing.assert_allclose(trainer.export_states()["running_mean"].numpy(), np.ones(3))
    trainer.load_states([np.full(3, 2.0, "float32")])
    np.testing.assert_allclose(trainer.predict(x).numpy(), (x - 2) @ w)


def test_load_states_errors(trainer):
    with pytest.raises(ValueError, match=r"unknown states \['mean'\]"):
        trainer.load_states({"mean": np.zeros(3, "float32")})
    with pytest.raises(ValueError, match="expected 1 states, got 2"):
        trainer.load_states([np.zeros(3, "float32")] * 2)
    with pytest.raises(ValueError, match=r"state running_mean expects shape \(3,\)"):
        trainer.load_states([np.zeros(4, "float32")])


def test_setup_trainer_state_errors():
    args = [relax.TensorType((4, 2), "float32"), relax.TensorType((4, 2), "float32")]
    too_many = Backbone.with_attr("state_num", 3)
    with pytest.raises(ValueError, match="no less than the number of parameters and states"):
        SetupTrainer(MSELoss(), SGD(LR), args)(too_many)

    @I.ir_module
    class NoStateOutput:
        I.module_attrs({"param_num": 1, "state_num": 1})

        @R.function
        def backbone(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                     running_mean: R.Tensor((3,), "float32")):
            with R.dataflow():
                y = R.matmul(R.subtract(x, running_mean), w)
                R.output(y)
            return y

    with pytest.raises(ValueError, match="should return a tuple of length more than the number "
                       "of states"):
        SetupTrainer(MSELoss(), SGD(LR), args)(NoStateOutput)


def test_stateless_trainer_has_no_states():
    @I.ir_module
    class Linear:
        I.module_attrs({"param_num": 1, "state_num": 0})

        @R.function
        def backbone(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32")):
            with R.dataflow():
                y = R.matmul(x, w)
                R.output(y)
            return y

    args = [relax.TensorType((4, 2), "float32"), relax.TensorType((4, 2), "float32")]
    mod = SetupTrainer(MSELoss(), SGD(LR), args, legalize=False)(Linear)
    assert len(mod["train_step"].ret_ty.fields) == 3
    trainer = Trainer(mod, relax.VirtualMachine(relax.build(mod), tvm.cpu()), tvm.cpu())
    assert trainer.export_states() == {}
    trainer.load_states([])
    with pytest.raises(ValueError, match="expected 0 states, got 1"):
        trainer.load_states([np.zeros(3, "float32")])


@I.ir_module
class TwoStates:
    """A state returned unchanged (``scale``) and an int64 step counter."""

    I.module_attrs({"param_num": 2, "state_num": 2})

    @R.function
    def backbone(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                 b: R.Tensor((2,), "float32"), scale: R.Tensor((3,), "float32"),
                 count: R.Tensor((), "int64")):
        with R.dataflow():
            y = R.add(R.matmul(R.multiply(x, scale), w), b)
            count_new = R.add(count, R.const(1, "int64"))
            R.output(y, count_new)
        return (y, scale, count_new)


@R.function
def two_states_loss(x: R.Tensor((4, 3), "float32"), w: R.Tensor((3, 2), "float32"),
                    b: R.Tensor((2,), "float32"), scale: R.Tensor((3,), "float32"),
                    count: R.Tensor((), "int64"), targets: R.Tensor((4,), "int64")):
    # As TVM 0.27 prints it: the unchanged state is returned as the parameter itself.
    with R.dataflow():
        scaled = R.multiply(x, scale)
        lv1 = R.matmul(scaled, w)
        y = R.add(lv1, b)
        count_new = R.add(count, R.const(1, "int64"))
        logp = R.nn.log_softmax(y, axis=-1)
        gv = R.nn.nll_loss(logp, targets, reduction="mean", ignore_index=-100)
        R.output(count_new, gv)
    return (gv, scale, count_new)


def test_two_states_with_an_unchanged_state_and_a_counter():
    from tvm.relax.testing import evaluate
    from tvm.relax.training.loss import CrossEntropyLoss

    args = [relax.TensorType((4, 2), "float32"), relax.TensorType((4,), "int64")]
    mod = SetupTrainer(CrossEntropyLoss(), SGD(LR), args, legalize=False)(TwoStates)
    tvm.ir.assert_structural_equal(mod["backbone_loss"], two_states_loss.with_attr(
        "global_symbol", "backbone_loss"))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3)).astype("float32")
    w = rng.standard_normal((3, 2)).astype("float32")
    b = np.zeros(2, "float32")
    scale = np.array([1.0, 0.5, 2.0], "float32")
    y = np.array([0, 1, 1, 0], "int64")
    loss, params, optim, states = evaluate(
        mod, x, w, b, scale, np.array(4, "int64"), y, (np.array(0, "int64"),),
        func_name="train_step")
    logits = (x * scale) @ w + b
    shifted = logits - logits.max(1, keepdims=True)
    prob = np.exp(shifted) / np.exp(shifted).sum(1, keepdims=True)
    np.testing.assert_allclose(loss, -np.log(prob[np.arange(4), y]).mean(), rtol=1e-5)
    dlogits = (prob - np.eye(2)[y]) / 4
    np.testing.assert_allclose(params[0], w - LR * ((x * scale).T @ dlogits), rtol=1e-5)
    np.testing.assert_allclose(params[1], b - LR * dlogits.sum(0), rtol=1e-5, atol=1e-7)
    assert int(optim[0]) == 1
    np.testing.assert_array_equal(states[0], scale)
    assert int(states[1]) == 5
