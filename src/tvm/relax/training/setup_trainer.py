"""``SetupTrainer``: backbone module -> loss, gradient, optimizer and one-call training step."""

from __future__ import annotations

from ...ir.type import TupleType
from ..block_builder import BlockBuilder
from ..expr import DataflowVar, Tuple, Var
from .utils import AppendLoss, call_or_inline, inline_body, split_outputs

__all__ = ["SetupTrainer"]

BACKBONE_FUNC = "backbone"
BACKBONE_LOSS_FUNC = "backbone_loss"
ADJOINT_FUNC = "backbone_loss_adjoint"
OPTIMIZER_FUNC = "optimizer"
TRAIN_STEP_FUNC = "train_step"


class SetupTrainer:
    """A module pass preparing a backbone for training (as in Apache TVM 0.27).

    The input module has a function ``backbone(inputs..., params..., states...)`` and the
    module attributes ``param_num`` and ``state_num``. With states, the backbone returns
    ``(predictions..., new_states...)`` (the last ``state_num`` outputs). The result adds:

    * ``backbone_loss(inputs..., params..., states..., targets...)``: backbone then loss,
      returning ``loss`` or ``(loss, new_states...)``;
    * ``backbone_loss_adjoint``: its ``relax.transform.Gradient`` with respect to the params
      (not the states), returning ``(loss, (grad_1, ..., grad_k))`` (the first field is
      ``(loss, new_states...)`` with states);
    * ``optimizer(params, gradients, optim_states)``: the optimizer's update;
    * ``train_step(inputs..., params..., states..., targets..., optim_states)``: forward, loss,
      gradient and update in one function, returning ``(loss, params_new, optim_states_new)``
      plus ``states_new`` (a tuple) when ``state_num > 0`` (pytvm's addition: one VM call per
      step);

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
        backbone = mod[BACKBONE_FUNC]
        num_params = len(backbone.params)
        if param_num < 1 or state_num < 0 or param_num + state_num > num_params:
            raise ValueError(
                f"SetupTrainer: The number of parameters of the predict function should be no "
                f"less than the number of parameters and states: {BACKBONE_FUNC} has "
                f"{num_params}, param_num={param_num}, state_num={state_num}"
            )
        if state_num:
            ret = backbone.ret_ty
            if not isinstance(ret, TupleType) or len(ret.fields) <= state_num:
                raise ValueError(
                    "SetupTrainer: When model state exists, the predict function should return "
                    f"a tuple of length more than the number of states: {BACKBONE_FUNC} returns "
                    f"{ret} with state_num={state_num}"
                )
        return param_num, state_num

    def __call__(self, mod):
        """Transform ``mod`` (returns a new IRModule)."""
        # Lazy: the driver sits above relax. Its gc_paused (as in relax.build) saves the cyclic
        # collector's scans of every live object while the passes allocate (a few ms here).
        from ...driver.build_module import gc_paused

        with gc_paused():
            return self._transform(mod)

    def _transform(self, mod):
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
        mod[TRAIN_STEP_FUNC] = _train_step(mod, input_num, param_num, state_num)
        mod = mod.with_attrs({
            "input_num": input_num,
            "param_num": param_num,
            "state_num": state_num,
            "optim_state": list(self._optimizer.state),
        })
        if self._legalize:
            mod = transform.LegalizeOps()(mod)
        return mod


def _returned_vars(expr):
    """The variables a function returns, looking into (nested) tuple expressions."""
    if isinstance(expr, Tuple):
        return [v for f in expr.fields for v in _returned_vars(f)]
    return [expr] if isinstance(expr, Var) else []


def _as_output(bb, expr, name):
    """``expr`` if it is visible after the dataflow block, else an output variable bound to it."""
    if isinstance(expr, Var) and not isinstance(expr, DataflowVar):
        return expr
    return bb.emit_output(expr, name)


def _train_step(mod, input_num, param_num, state_num):
    """One function: the adjoint (loss, new states and gradients) then the optimizer update."""
    adjoint = mod[ADJOINT_FUNC]
    optimizer = mod[OPTIMIZER_FUNC]
    params = [Var(p.name_hint, p.ty) for p in adjoint.params]
    optim_states = Var("optim_states", optimizer.params[2].ty)
    # Only the loss, the new states and the optimizer's results leave the dataflow block: the
    # gradients stay dataflow variables, so fusion may join their kernels to the update.
    adjoint_result = adjoint.body.body
    keep = _returned_vars(adjoint_result.fields[0]) if isinstance(adjoint_result, Tuple) else []
    bb = BlockBuilder(mod)
    with bb.function(TRAIN_STEP_FUNC, [*params, optim_states]):
        with bb.dataflow():
            value, grads = split_outputs(bb, call_or_inline(bb, mod, ADJOINT_FUNC, params, keep))
            loss, *new_states = split_outputs(bb, value) if state_num else [value]
            weights = Tuple(params[input_num:input_num + param_num])
            update = inline_body(bb, optimizer, [weights, grads, optim_states],
                                 _returned_vars(optimizer.body.body))
            new_params, new_optim = split_outputs(bb, update)
            loss = _as_output(bb, loss, "loss")
            new_params = _as_output(bb, new_params, "params_new")
            new_optim = _as_output(bb, new_optim, "optim_states_new")
            new_states = [_as_output(bb, s, "state_new") for s in new_states]
        result = [loss, new_params, new_optim]
        bb.emit_func_output(Tuple([*result, Tuple(new_states)]) if state_num else Tuple(result))
    return bb.get()[TRAIN_STEP_FUNC]
