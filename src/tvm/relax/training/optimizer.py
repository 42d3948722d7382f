"""Optimizers as Relax functions: ``SGD``, ``MomentumSGD``, ``Adam`` (as in Apache TVM 0.27).

``opt.init(params)`` fixes the parameters (Relax variables of one float dtype) and creates the
optimizer state (``opt.state``: a list of runtime tensors, the step count first);
``opt.get_function()`` returns the Relax function

``optimizer(params: R.Tuple(...), gradients: R.Tuple(...), optim_states: R.Tuple(...))
-> R.Tuple(params_new, optim_states_new)``.

Examples
--------
>>> from tvm import relax
>>> from tvm.relax.training.optimizer import SGD
>>> w = relax.Var("w", relax.TensorType((3,), "float32"))
>>> f = SGD(0.1).init([w]).get_function()
>>> [p.name_hint for p in f.params]
['params', 'gradients', 'optim_states']
"""

from __future__ import annotations

import numpy as np

from ...ir.type import TupleType
from .. import op
from ..block_builder import BlockBuilder
from ..expr import Tuple, TupleGetItem, Var, const
from ..ty import TensorType

__all__ = ["SGD", "Adam", "MomentumSGD", "Optimizer"]


class Optimizer:
    """Base class of the optimizers.

    Attributes
    ----------
    name : str
        The name of the generated function (``"optimizer"``).
    param_list : list of relax.Var
        The parameters given to :meth:`init`.
    state : list of tvm.runtime.Tensor
        The optimizer state (step count first), created by :meth:`init`.
    dtype : str
        The float dtype shared by every parameter.
    """

    def __init__(self, name: str):
        self.name = name
        self.param_list = None
        self.state = None
        self.dtype = None

    def init(self, params):
        """Set the parameters (one ``relax.Var`` or a list) and create the state."""
        if isinstance(params, Var):
            params = [params]
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__}.init: the parameter list is empty")
        dtypes = set()
        for p in params:
            if not isinstance(p, Var) or not isinstance(p.ty, TensorType):
                raise TypeError(
                    f"{type(self).__name__}.init: parameters must be relax.Vars of tensor type, "
                    f"got {p!r}"
                )
            if not str(p.ty.dtype).startswith(("float", "bfloat")):
                raise ValueError(
                    f"{type(self).__name__}.init: parameter {p.name_hint} has dtype "
                    f"{p.ty.dtype}; only float parameters can be optimized"
                )
            if p.ty.shape is None or getattr(p.ty.shape, "values", None) is None:
                raise ValueError(
                    f"{type(self).__name__}.init: parameter {p.name_hint} needs a known shape"
                )
            dtypes.add(str(p.ty.dtype))
        if len(dtypes) != 1:
            raise ValueError(
                f"{type(self).__name__}.init: every parameter must have the same dtype, got "
                f"{sorted(dtypes)}"
            )
        self.param_list = params
        self.dtype = dtypes.pop()
        self.state = self._init_state()
        return self

    # --- helpers for subclasses ---------------------------------------------------------------
    def _shape(self, p):
        return tuple(int(d) for d in p.ty.shape.values)

    def _tensor(self, array):
        from ...runtime import tensor  # lazy: runtime tensors only when creating the state

        return tensor(array)

    def _steps_state(self):
        return self._tensor(np.zeros((), "int64"))

    def _init_state(self):
        return [self._steps_state()]

    def _check_init(self):
        if self.param_list is None:
            raise ValueError(f"{type(self).__name__}: call init(params) before get_function()")

    def _c(self, value):
        return const(float(value), self.dtype)

    def get_function(self):
        """The Relax function performing one update (see the module docstring)."""
        self._check_init()
        p_tys = [p.ty for p in self.param_list]
        params = Var("params", TupleType(p_tys))
        grads = Var("gradients", TupleType(p_tys))
        states = Var("optim_states", TupleType([self._state_type(i) for i in range(
            len(self.state))]))
        bb = BlockBuilder()
        with bb.function(self.name, [params, grads, states]):
            with bb.dataflow():
                steps = bb.emit(TupleGetItem(states, 0), "num_steps")
                steps_new = bb.emit(op.add(steps, const(1, "int64")), "num_steps_new")
                new_params, new_states = self._update(bb, params, grads, states)
                p_out = bb.emit_output(Tuple(new_params), "params_new")
                s_out = bb.emit_output(Tuple([steps_new, *new_states]), "optim_states_new")
            bb.emit_func_output(Tuple([p_out, s_out]))
        return bb.get()[self.name]

    def _state_type(self, index):
        value = self.state[index]
        return TensorType(tuple(value.shape), str(value.dtype))

    def _grad(self, bb, params, grads, i):
        """``(p, g)`` of parameter ``i`` with weight decay folded into ``g``."""
        name = self.param_list[i].name_hint
        p = bb.emit(TupleGetItem(params, i), name)
        g = bb.emit(TupleGetItem(grads, i), f"{name}_grad")
        if self.weight_decay:
            g = bb.emit(op.add(g, op.multiply(self._c(self.weight_decay), p)))
        return p, g


class SGD(Optimizer):
    """Stochastic gradient descent: ``p -= lr * (g + weight_decay * p)``."""

    def __init__(self, lr: float, weight_decay: float = 0):
        super().__init__("optimizer")
        self.lr = float(lr)
        self.weight_decay = float(weight_decay)

    def _update(self, bb, params, grads, states):
        out = []
        for i, var in enumerate(self.param_list):
            p, g = self._grad(bb, params, grads, i)
            step = bb.emit(op.multiply(self._c(self.lr), g))
            out.append(bb.emit(op.subtract(p, step), f"{var.name_hint}_new"))
        return out, []


class MomentumSGD(Optimizer):
    """SGD with momentum (PyTorch's formulation, with dampening and Nesterov).

    ``v = momentum * v + (1 - dampening) * g``; ``p -= lr * (g + momentum * v)`` with Nesterov,
    else ``p -= lr * v``. The state is ``(num_steps, v_1, ..., v_k)``.
    """

    def __init__(self, lr: float, momentum: float, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False):
        super().__init__("optimizer")
        self.lr = float(lr)
        self.momentum = float(momentum)
        self.dampening = float(dampening)
        self.weight_decay = float(weight_decay)
        self.nesterov = bool(nesterov)

    def _init_state(self):
        zeros = [self._tensor(np.zeros(self._shape(p), self.dtype)) for p in self.param_list]
        return [self._steps_state(), *zeros]

    def _update(self, bb, params, grads, states):
        out, vs = [], []
        for i, var in enumerate(self.param_list):
            p, g = self._grad(bb, params, grads, i)
            v = bb.emit(TupleGetItem(states, i + 1), f"{var.name_hint}_v")
            scaled = g if self.dampening == 0 else bb.emit(
                op.multiply(self._c(1 - self.dampening), g))
            v_new = bb.emit(op.add(op.multiply(self._c(self.momentum), v), scaled),
                            f"{var.name_hint}_v_new")
            direction = v_new
            if self.nesterov:
                direction = bb.emit(op.add(g, op.multiply(self._c(self.momentum), v_new)))
            step = bb.emit(op.multiply(self._c(self.lr), direction))
            out.append(bb.emit(op.subtract(p, step), f"{var.name_hint}_new"))
            vs.append(v_new)
        return out, vs


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction.

    The state is ``(num_steps, beta1_prod, beta2_prod, m_1..m_k, v_1..v_k)``.
    """

    def __init__(self, lr: float, betas=(0.9, 0.999), eps: float = 1e-08,
                 weight_decay: float = 0):
        super().__init__("optimizer")
        self.lr = float(lr)
        self.beta1, self.beta2 = (float(b) for b in betas)
        self.eps = float(eps)
        self.weight_decay = float(weight_decay)

    def _init_state(self):
        ones = [self._tensor(np.ones((), self.dtype)) for _ in range(2)]
        zeros = [self._tensor(np.zeros(self._shape(p), self.dtype))
                 for _ in range(2) for p in self.param_list]
        return [self._steps_state(), *ones, *zeros]

    def _update(self, bb, params, grads, states):
        k = len(self.param_list)
        b1p = bb.emit(op.multiply(TupleGetItem(states, 1), self._c(self.beta1)), "beta1_prod")
        b2p = bb.emit(op.multiply(TupleGetItem(states, 2), self._c(self.beta2)), "beta2_prod")
        corr1 = bb.emit(op.subtract(self._c(1), b1p))
        corr2 = bb.emit(op.subtract(self._c(1), b2p))
        out, ms, vs = [], [], []
        for i, var in enumerate(self.param_list):
            name = var.name_hint
            p, g = self._grad(bb, params, grads, i)
            m = bb.emit(TupleGetItem(states, 3 + i), f"{name}_m")
            v = bb.emit(TupleGetItem(states, 3 + k + i), f"{name}_v")
            m_new = bb.emit(op.add(op.multiply(self._c(self.beta1), m),
                                   op.multiply(self._c(1 - self.beta1), g)), f"{name}_m_new")
            v_new = bb.emit(op.add(op.multiply(self._c(self.beta2), v),
                                   op.multiply(self._c(1 - self.beta2), op.multiply(g, g))),
                            f"{name}_v_new")
            m_hat = bb.emit(op.divide(m_new, corr1))
            v_hat = bb.emit(op.divide(v_new, corr2))
            denom = bb.emit(op.add(op.sqrt(v_hat), self._c(self.eps)))
            step = bb.emit(op.multiply(self._c(self.lr), op.divide(m_hat, denom)))
            out.append(bb.emit(op.subtract(p, step), f"{name}_new"))
            ms.append(m_new)
            vs.append(v_new)
        return out, [b1p, b2p, *ms, *vs]
