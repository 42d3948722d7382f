"""Loss functions as Relax functions: ``L1Loss``, ``MSELoss``, ``CrossEntropyLoss``,
``CategoricalCrossEntropyLoss`` (as in Apache TVM 0.27's ``relax.training.loss``).

A loss object is called with the prediction and target types (or Relax variables) and returns a
``relax.Function`` ``loss(predictions, targets[, weights]) -> R.Tensor((), dtype)``.

Examples
--------
>>> from tvm import relax
>>> from tvm.relax.training.loss import MSELoss
>>> f = MSELoss()(relax.TensorType((2, 3), "float32"), relax.TensorType((2, 3), "float32"))
>>> print(f.ret_ty)
R.Tensor((), dtype="float32")
"""

from __future__ import annotations

from ...ir.type import Type
from .. import op
from ..block_builder import BlockBuilder
from ..expr import Var, const
from ..ty import TensorType

__all__ = ["CategoricalCrossEntropyLoss", "CrossEntropyLoss", "L1Loss", "Loss", "MSELoss"]


def _as_var(name, value):
    if isinstance(value, Var):
        return Var(name, value.ty)
    if isinstance(value, Type):
        return Var(name, value)
    raise TypeError(
        f"loss: {name} must be a relax.Var or a relax Type (e.g. relax.TensorType), got "
        f"{type(value).__name__}"
    )


def _loss_params(predictions, targets, weights):
    """``(p, t, w, params)``: the loss function's variables (``w`` None when ``weights`` is)
    and its parameter list ``[p, t]`` or ``[p, t, w]``."""
    p, t = _as_var("predictions", predictions), _as_var("targets", targets)
    if weights is None:
        return p, t, None, [p, t]
    w = _as_var("weights", weights)
    return p, t, w, [p, t, w]


class Loss:
    """Base class: a named loss with a ``reduction`` of ``"mean"``, ``"sum"`` or ``"none"``.

    Parameters
    ----------
    loss_name : str
        The name of the generated function.
    num_backbone_outputs : int
        How many backbone outputs the loss takes (the predictions).
    reduction : str
        How the per-element losses are reduced.
    """

    _valid_reductions = ("mean", "sum", "none")

    def __init__(self, loss_name: str, num_backbone_outputs: int, reduction: str = "mean"):
        if reduction not in self._valid_reductions:
            raise ValueError(
                f"{type(self).__name__}: reduction must be one of {self._valid_reductions}, "
                f"got {reduction!r}"
            )
        self._loss_name = loss_name
        self._reduction = reduction
        self._num_backbone_outputs = num_backbone_outputs

    @property
    def num_backbone_outputs(self) -> int:
        """The number of backbone outputs the loss function takes first."""
        return self._num_backbone_outputs

    def _reduce(self, expr):
        if self._reduction == "sum":
            return op.sum(expr)
        if self._reduction == "mean":
            return op.mean(expr)
        return expr

    def _build(self, params, body_fn):
        bb = BlockBuilder()
        with bb.function(self._loss_name, params):
            with bb.dataflow():
                out = bb.emit_output(body_fn(bb))
            bb.emit_func_output(out)
        return bb.get()[self._loss_name]


class L1Loss(Loss):
    """Mean (or sum) absolute error: ``reduce(|predictions - targets|)``."""

    def __init__(self, reduction: str = "mean"):
        super().__init__("l1_loss", 1, reduction)

    def __call__(self, predictions, targets):
        """The loss function for these prediction and target types."""
        p, t = _as_var("predictions", predictions), _as_var("targets", targets)
        return self._build(
            [p, t], lambda bb: self._reduce(bb.emit(op.abs(bb.emit(op.subtract(p, t)))))
        )


class MSELoss(Loss):
    """Mean (or sum) squared error: ``reduce((predictions - targets) ** 2)``."""

    def __init__(self, reduction: str = "mean"):
        super().__init__("mse_loss", 1, reduction)

    def __call__(self, predictions, targets):
        """The loss function for these prediction and target types."""
        p, t = _as_var("predictions", predictions), _as_var("targets", targets)

        def body(bb):
            diff = bb.emit(op.subtract(p, t))
            return self._reduce(bb.emit(op.multiply(diff, diff)))

        return self._build([p, t], body)


class CrossEntropyLoss(Loss):
    """Cross entropy of logits against integer class targets: ``nll_loss(log_softmax(x), t)``.

    Parameters
    ----------
    reduction : str
        ``"mean"`` (over the non-ignored targets, weighted), ``"sum"`` or ``"none"``.
    ignore_index : int
        A target value that contributes nothing.
    """

    def __init__(self, reduction: str = "mean", ignore_index: int = -100):
        super().__init__("cross_entropy_loss", 1, reduction)
        self.ignore_index = ignore_index

    def __call__(self, predictions, targets, weights=None):
        """The loss function for these prediction, target (and class weight) types."""
        p, t, w, params = _loss_params(predictions, targets, weights)

        def body(bb):
            logp = bb.emit(op.nn.log_softmax(p, axis=-1))
            return op.nn.nll_loss(logp, t, w, reduction=self._reduction,
                                  ignore_index=self.ignore_index)

        return self._build(params, body)


class CategoricalCrossEntropyLoss(Loss):
    """Cross entropy against one-hot (or soft) float targets: ``-sum(t * log_softmax(x))``.

    ``reduction="mean"`` divides by the batch size (the first dimension). ``ignore_index`` is
    accepted for TVM compatibility and must stay -100 (soft targets have no class index).
    """

    def __init__(self, reduction: str = "mean", ignore_index: int = -100):
        super().__init__("categorical_cross_entropy_loss", 1, reduction)
        if ignore_index != -100:
            raise ValueError(
                "CategoricalCrossEntropyLoss: ignore_index is not supported for one-hot "
                f"targets yet (got {ignore_index})"
            )
        self.ignore_index = ignore_index

    def __call__(self, predictions, targets, weights=None):
        """The loss function for these prediction, target (and class weight) types."""
        p, t, w, params = _loss_params(predictions, targets, weights)
        ty = p.ty
        if not isinstance(ty, TensorType) or ty.ndim < 1:
            raise ValueError(
                f"CategoricalCrossEntropyLoss: predictions must be a tensor of rank >= 1, got {ty}"
            )

        def body(bb):
            logp = bb.emit(op.nn.log_softmax(p, axis=-1))
            prod = bb.emit(op.multiply(logp, t))
            if w is not None:
                prod = bb.emit(op.multiply(prod, w))
            neg = bb.emit(op.negative(prod))
            if self._reduction == "none":
                return op.sum(neg, axis=[-1])
            total = bb.emit(op.sum(neg))
            if self._reduction == "sum":
                return total
            batch = ty.shape.values[0] if ty.ndim > 1 else 1
            return op.divide(total, const(float(int(batch)), ty.dtype))

        return self._build(params, body)
