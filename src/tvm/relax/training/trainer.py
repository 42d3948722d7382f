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
    """Holds parameters, backbone states and optimizer state; ``predict`` and ``update`` call
    the VM.

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
        :meth:`xaiver_uniform_init_params` before training). Backbone states always start at
        zero.

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
        first += self._param_num
        self._state_vars = list(backbone.params[first:first + self._state_num])
        self._state_names = _unique([p.name_hint for p in self._state_vars])
        self._optim_state = [_tensor(t.numpy()) for t in train_mod.get_attr("optim_state")]
        self._params = [None] * self._param_num  # None: not initialized yet
        self._uninitialized = True
        self._step = vm[TRAIN_STEP_FUNC]
        self._predict = vm[BACKBONE_FUNC]
        if zero_init_param_state:
            self.zero_init_params()
        self.zero_init_states()

    # --- parameters and states ------------------------------------------------------------------
    @staticmethod
    def _shapes(variables):
        return [(tuple(int(d) for d in v.ty.shape.values), str(v.ty.dtype)) for v in variables]

    def zero_init_params(self):
        """Set every parameter to zeros."""
        self._params = [_tensor(np.zeros(s, d)) for s, d in self._shapes(self._param_vars)]
        self._uninitialized = False

    def xaiver_uniform_init_params(self, seed=None):
        """Xavier (Glorot) uniform initialization; 1-D parameters (biases) start at zero.

        The limit is ``sqrt(6 / (fan_in + fan_out))`` with ``fan_in = shape[0]`` and
        ``fan_out = shape[1]`` for 2-D weights (Relax's ``x @ w`` layout) and, for convolution
        kernels ``(O, I, kh, kw)``, ``fan_in = I*kh*kw`` and ``fan_out = O*kh*kw``.
        """
        rng = np.random.default_rng(seed)
        params = []
        for shape, dtype in self._shapes(self._param_vars):
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
        self._uninitialized = False

    def _checked(self, method, what, values, names, variables, current):
        """``values`` (a list in order, or a dict by name over ``current``) as checked tensors.

        Entries a dict leaves unset keep their ``current`` value (None: not initialized).
        """
        keep = set()
        if isinstance(values, dict):
            unknown = sorted(set(values) - set(names))
            if unknown:
                raise ValueError(
                    f"{method}: unknown {what}s {unknown}; the backbone's {what}s are {names}"
                )
            keep = set(names) - set(values)
            merged = dict(zip(names, current))
            merged.update(values)
            values = [merged[n] for n in names]
        values = list(values)
        if len(values) != len(names):
            raise ValueError(f"{method}: expected {len(names)} {what}s, got {len(values)}")
        checked = []
        for name, value, (shape, dtype) in zip(names, values, self._shapes(variables)):
            if name in keep:
                checked.append(value)
                continue
            array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if array.shape != shape or str(array.dtype) != dtype:
                raise ValueError(
                    f"{method}: {what} {name} expects shape {shape} and dtype {dtype}, got "
                    f"shape {array.shape} and dtype {array.dtype}"
                )
            checked.append(_tensor(array))
        return checked

    def _check_inited(self, method):
        """TVM's error for a parameter not set yet (``zero_init_param_state=False``)."""
        for i, (name, value) in enumerate(zip(self._param_names, self._params)):
            if value is None:
                raise RuntimeError(
                    f"{method}: The {i}-th parameter ({name}) is not initialized before "
                    "training or inference; call load_params, zero_init_params or "
                    "xaiver_uniform_init_params"
                )

    def load_params(self, params):
        """Set the parameters from a list (in order) or a dict by parameter name."""
        self._params = self._checked("Trainer.load_params", "parameter", params,
                                     self._param_names, self._param_vars, self._params)
        self._uninitialized = any(p is None for p in self._params)

    def export_params(self) -> dict:
        """The parameters by name (runtime tensors), in order.

        Repeated parameter names (two ``nn.Linear`` layers) get ``_1``, ``_2``... suffixes.
        """
        return dict(zip(self._param_names, self._params))

    def zero_init_states(self):
        """Set every backbone state (the ``state_num`` last backbone parameters) to zeros."""
        self._states = [_tensor(np.zeros(s, d)) for s, d in self._shapes(self._state_vars)]

    def load_states(self, states):
        """Set the backbone states from a list (in order) or a dict by state name."""
        self._states = self._checked("Trainer.load_states", "state", states,
                                     self._state_names, self._state_vars, self._states)

    def export_states(self) -> dict:
        """The backbone states by name (runtime tensors), in order; empty without states."""
        return dict(zip(self._state_names, self._states))

    # --- running --------------------------------------------------------------------------------
    def predict(self, *input_instances):
        """Run the backbone on the inputs with the current parameters and states.

        Returns the prediction (the backbone's first output when it has states); the states
        are not updated (only :meth:`update` updates them).
        """
        if len(input_instances) != self._input_num:
            raise ValueError(
                f"Trainer.predict: expected {self._input_num} inputs, got {len(input_instances)}"
            )
        if self._uninitialized:
            self._check_inited("Trainer.predict")
        out = self._predict(*input_instances, *self._params, *self._states)
        return out[0] if self._state_num else out

    def _step_args(self, method, input_instances, targets):
        """``(inputs, targets)`` as lists (one value or a sequence each), checked: the number
        of inputs, and parameters set."""
        inputs = list(input_instances) if isinstance(input_instances, (list, tuple)) else [
            input_instances]
        targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
        if len(inputs) != self._input_num:
            raise ValueError(f"{method}: expected {self._input_num} inputs, got {len(inputs)}")
        if self._uninitialized:
            self._check_inited(method)
        return inputs, targets

    def update(self, input_instances, targets):
        """One training step (forward, loss, gradient, optimizer); returns the loss tensor.

        The parameters, the optimizer state and the backbone states are replaced by their new
        values.
        """
        inputs, targets = self._step_args("Trainer.update", input_instances, targets)
        out = self._step(*inputs, *self._params, *self._states, *targets,
                         tuple(self._optim_state))
        self._params = list(out[1])
        self._optim_state = list(out[2])
        if self._state_num:
            self._states = list(out[3])
        return out[0]
