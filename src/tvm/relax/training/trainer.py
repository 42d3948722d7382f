"""``Trainer``: runs a module prepared by ``SetupTrainer`` on the VM, keeping the weights."""

from __future__ import annotations

import numpy as np

from .setup_trainer import (
    ADJOINT_FUNC,
    BACKBONE_FUNC,
    BACKBONE_LOSS_FUNC,
    OPTIMIZER_FUNC,
    TRAIN_STEP_FUNC,
)

__all__ = ["Trainer"]


def _tensor(value):
    from ...runtime import tensor  # lazy: runtime tensors

    return tensor(np.asarray(value))


def _unique(names):
    """Parameter names with repeats made distinct (``linear_weight``, ``linear_weight_1``)."""
    seen, out = {}, []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        out.append(name if count == 0 else f"{name}_{count}")
    return out


class Trainer:
    """Holds parameters and optimizer state; ``predict`` and ``update`` call the VM.

    Parameters
    ----------
    train_mod : IRModule
        The output of :class:`SetupTrainer` (before or after building).
    vm : relax.VirtualMachine
        The VM of ``relax.build(train_mod)``.
    device : Device
        Where the tensors live (CPU).
    zero_init_param_state : bool
        Start from zero parameters (else call :meth:`load_params` or
        :meth:`xaiver_uniform_init_params` before training).

    Examples
    --------
    See ``docs/arch/training.md`` and ``python -m tvm.examples.train_digits``.
    """

    BACKBONE_FUNC = BACKBONE_FUNC
    BACKBONE_LOSS_FUNC = BACKBONE_LOSS_FUNC
    ADJOINT_FUNC = ADJOINT_FUNC
    OPTIMIZER_FUNC = OPTIMIZER_FUNC
    TRAIN_STEP_FUNC = TRAIN_STEP_FUNC

    def __init__(self, train_mod, vm, device, zero_init_param_state=True):
        self.mod = train_mod
        self.vm = vm
        self.device = device
        self._input_num = int(train_mod.get_attr("input_num"))
        self._param_num = int(train_mod.get_attr("param_num"))
        self._state_num = int(train_mod.get_attr("state_num"))
        backbone = train_mod[BACKBONE_FUNC]
        first = self._input_num
        self._param_vars = list(backbone.params[first:first + self._param_num])
        self._param_names = _unique([p.name_hint for p in self._param_vars])
        self._optim_state = [_tensor(t.numpy()) for t in train_mod.get_attr("optim_state")]
        self._params = None
        self._step = vm[TRAIN_STEP_FUNC]
        self._predict = vm[BACKBONE_FUNC]
        if zero_init_param_state:
            self.zero_init_params()

    # --- parameters -------------------------------------------------------------------------
    def _shapes(self):
        return [(tuple(int(d) for d in p.ty.shape.values), str(p.ty.dtype))
                for p in self._param_vars]

    def zero_init_params(self):
        """Set every parameter to zeros."""
        self._params = [_tensor(np.zeros(s, d)) for s, d in self._shapes()]

    def xaiver_uniform_init_params(self, seed=None):
        """Xavier (Glorot) uniform initialization; 1-D parameters (biases) start at zero.

        The limit is ``sqrt(6 / (fan_in + fan_out))`` with ``fan_in = shape[0]`` and
        ``fan_out = shape[1]`` for 2-D weights (Relax's ``x @ w`` layout) and, for convolution
        kernels ``(O, I, kh, kw)``, ``fan_in = I*kh*kw`` and ``fan_out = O*kh*kw``.
        """
        rng = np.random.default_rng(seed)
        params = []
        for shape, dtype in self._shapes():
            if len(shape) < 2:
                params.append(_tensor(np.zeros(shape, dtype)))
                continue
            if len(shape) == 2:
                fan_in, fan_out = shape
            else:
                receptive = int(np.prod(shape[2:]))
                fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
            limit = float(np.sqrt(6.0 / (fan_in + fan_out)))
            params.append(_tensor(rng.uniform(-limit, limit, shape).astype(dtype)))
        self._params = params

    def load_params(self, params):
        """Set the parameters from a list (in order) or a dict by parameter name."""
        if isinstance(params, dict):
            unknown = sorted(set(params) - set(self._param_names))
            if unknown:
                raise ValueError(
                    f"Trainer.load_params: unknown parameters {unknown}; the backbone's "
                    f"parameters are {self._param_names}"
                )
            current = dict(zip(self._param_names, self._params))
            current.update(params)
            params = [current[n] for n in self._param_names]
        params = list(params)
        if len(params) != self._param_num:
            raise ValueError(
                f"Trainer.load_params: expected {self._param_num} parameters, got {len(params)}"
            )
        checked = []
        for name, value, (shape, dtype) in zip(self._param_names, params, self._shapes()):
            array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if array.shape != shape or str(array.dtype) != dtype:
                raise ValueError(
                    f"Trainer.load_params: parameter {name} expects shape {shape} and dtype "
                    f"{dtype}, got shape {array.shape} and dtype {array.dtype}"
                )
            checked.append(_tensor(array))
        self._params = checked

    def export_params(self) -> dict:
        """The parameters by name (runtime tensors), in order.

        Repeated parameter names (two ``nn.Linear`` layers) get ``_1``, ``_2``... suffixes.
        """
        return dict(zip(self._param_names, self._params))

    def zero_init_states(self):
        """Backbone states are not supported yet (``state_num`` is 0): nothing to do."""

    def export_states(self) -> dict:
        """Backbone states (always empty: states are not supported yet)."""
        return {}

    # --- running --------------------------------------------------------------------------------
    def predict(self, *input_instances):
        """Run the backbone on the inputs with the current parameters."""
        if len(input_instances) != self._input_num:
            raise ValueError(
                f"Trainer.predict: expected {self._input_num} inputs, got {len(input_instances)}"
            )
        return self._predict(*input_instances, *self._params)

    def update(self, input_instances, targets):
        """One training step (forward, loss, gradient, optimizer); returns the loss tensor."""
        inputs = list(input_instances) if isinstance(input_instances, (list, tuple)) else [
            input_instances]
        targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
        if len(inputs) != self._input_num:
            raise ValueError(
                f"Trainer.update: expected {self._input_num} inputs, got {len(inputs)}"
            )
        loss, params, states = self._step(*inputs, *self._params, *targets,
                                          tuple(self._optim_state))
        self._params = list(params)
        self._optim_state = list(states)
        return loss
