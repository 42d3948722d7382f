"""``SetupTrainer``: backbone module -> loss, gradient, optimizer and one-call training step."""

from __future__ import annotations

from ..block_builder import BlockBuilder
from ..expr import Tuple, TupleGetItem, Var
from .utils import AppendLoss, inline_body

__all__ = ["SetupTrainer"]

BACKBONE_FUNC = "backbone"
BACKBONE_LOSS_FUNC = "backbone_loss"
ADJOINT_FUNC = "backbone_loss_adjoint"
OPTIMIZER_FUNC = "optimizer"
TRAIN_STEP_FUNC = "train_step"


class SetupTrainer:
    """A module pass preparing a backbone for training (as in Apache TVM 0.27).

    The input module has a function ``backbone(inputs..., params..., states...)`` and the
    module attributes ``param_num`` and ``state_num``. The result adds:

    * ``backbone_loss(inputs..., params..., targets...)``: backbone then loss;
    * ``backbone_loss_adjoint``: its ``relax.transform.Gradient`` with respect to the params,
      returning ``(loss, (grad_1, ..., grad_k))``;
    * ``optimizer(params, gradients, optim_states)``: the optimizer's update;
    * ``train_step(inputs..., params..., targets..., optim_states)``: forward, loss, gradient
      and update in one function, returning ``(loss, params_new, optim_states_new)`` (pytvm's
      addition: one VM call per step);

    and the attributes ``input_num`` and ``optim_state`` (the initial optimizer state).

    Parameters
    ----------
    loss : relax.training.loss.Loss
    optimizer : relax.training.optimizer.Optimizer
        Not yet initialized (``init`` is called here with the backbone's parameters).
    loss_args : list of relax Type
        The types of the loss function's arguments (predictions, then targets).
    legalize : bool
        Run ``LegalizeOps`` on the result.

    Limitations: backbones with states (``state_num > 0``) are not supported yet.
    """

    def __init__(self, loss, optimizer, loss_args, legalize=True):
        self._loss = loss
        self._optimizer = optimizer
        self._loss_args = list(loss_args)
        self._legalize = legalize

    def _check(self, mod):
        names = [gv.name_hint for gv in mod.functions]
        if BACKBONE_FUNC not in names:
            raise ValueError(f"SetupTrainer: the module has no function {BACKBONE_FUNC!r}")
        param_num = mod.get_attr("param_num")
        state_num = mod.get_attr("state_num")
        if param_num is None or state_num is None:
            raise ValueError(
                "SetupTrainer: the module needs the attributes param_num and state_num "
                "(I.module_attrs({'param_num': k, 'state_num': 0}))"
            )
        param_num, state_num = int(param_num), int(state_num)
        if state_num:
            raise ValueError(
                f"SetupTrainer: backbones with states (state_num={state_num}) are not "
                "supported yet"
            )
        num_params = len(mod[BACKBONE_FUNC].params)
        if param_num < 1 or param_num + state_num > num_params:
            raise ValueError(
                f"SetupTrainer: param_num={param_num} and state_num={state_num} do not fit the "
                f"{num_params} parameters of {BACKBONE_FUNC}"
            )
        return param_num, state_num

    def __call__(self, mod):
        """Transform ``mod`` (returns a new IRModule)."""
        from .. import transform  # lazy: the passes sit beside the training utilities

        param_num, state_num = self._check(mod)
        backbone = mod[BACKBONE_FUNC]
        input_num = len(backbone.params) - param_num - state_num
        loss_func = self._loss(*self._loss_args)
        mod = AppendLoss(BACKBONE_FUNC, loss_func, self._loss.num_backbone_outputs,
                         BACKBONE_LOSS_FUNC)(mod)
        loss_fn = mod[BACKBONE_LOSS_FUNC]
        require = list(loss_fn.params[input_num:input_num + param_num])
        mod = transform.Gradient(BACKBONE_LOSS_FUNC, require_grads=require)(mod)
        self._optimizer.init(list(backbone.params[input_num:input_num + param_num]))
        mod[OPTIMIZER_FUNC] = self._optimizer.get_function()
        mod[TRAIN_STEP_FUNC] = _train_step(mod, input_num, param_num)
        mod = mod.with_attrs({
            "input_num": input_num,
            "param_num": param_num,
            "state_num": state_num,
            "optim_state": list(self._optimizer.state),
        })
        if self._legalize:
            mod = transform.LegalizeOps()(mod)
        return mod


def _train_step(mod, input_num, param_num):
    """One function: the adjoint (loss and gradients) followed by the optimizer update."""
    adjoint = mod[ADJOINT_FUNC]
    optimizer = mod[OPTIMIZER_FUNC]
    params = [Var(p.name_hint, p.ty) for p in adjoint.params]
    states = Var("optim_states", optimizer.params[2].ty)
    bb = BlockBuilder()
    with bb.function(TRAIN_STEP_FUNC, [*params, states]):
        with bb.dataflow():
            out = inline_body(bb, adjoint, params)
            loss = bb.emit(TupleGetItem(out, 0) if not isinstance(out, Tuple) else out.fields[0])
            grads = out.fields[1] if isinstance(out, Tuple) else bb.emit(TupleGetItem(out, 1))
            weights = bb.emit(Tuple(params[input_num:input_num + param_num]))
            update = inline_body(bb, optimizer, [weights, grads, states])
            new_params = update.fields[0] if isinstance(update, Tuple) else bb.emit(
                TupleGetItem(update, 0))
            new_states = update.fields[1] if isinstance(update, Tuple) else bb.emit(
                TupleGetItem(update, 1))
            loss = bb.emit_output(loss, "loss")
            new_params = bb.emit_output(new_params, "params_new")
            new_states = bb.emit_output(new_states, "optim_states_new")
        bb.emit_func_output(Tuple([loss, new_params, new_states]))
    return bb.get()[TRAIN_STEP_FUNC]
