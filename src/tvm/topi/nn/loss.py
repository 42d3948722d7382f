"""Losses: ``nll_loss`` (with its backward ``nll_loss_backward``) and
``cross_entropy_with_logits``.

``nll_loss`` takes log-probabilities ``predictions`` of shape ``(C,)``, ``(N, C)`` or
``(N, C, d1, ...)`` and integer ``targets`` of the shape without ``C``; each element
contributes ``-weights[t] * predictions[n, t, d...]``, and targets equal to ``ignore_index``
contribute (and weigh) 0. ``reduction`` is ``"none"``, ``"sum"`` or ``"mean"`` (divided by the
total weight).
"""

from __future__ import annotations

from ... import te, tirx
from ...tirx import generic as _g
from ..reduction import sum as _sum
from ..utils import as_index, const_like

__all__ = ["cross_entropy_with_logits", "nll_loss", "nll_loss_backward"]


def _as_tensor(value):
    """A 0-d target given as a scalar (``call_te`` inlines 0-d constants) as a 0-d tensor."""
    if isinstance(value, te.Tensor):
        return value
    return te.compute((), lambda: value, name="nll_loss_target")


def _check(predictions, targets, reduction):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"nll_loss: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")
    if predictions.ndim != targets.ndim + 1:
        raise ValueError(f"nll_loss: predictions have {predictions.ndim} dims, targets "
                         f"{targets.ndim}; predictions need one more (the class axis)")


def _pred_index(predictions, t_idx, cls):
    """The prediction index of target position ``t_idx`` and class ``cls``."""
    if predictions.ndim == 1:
        return [cls]
    return [t_idx[0], cls] + list(t_idx[1:])


def _terms(predictions, targets, weights, ignore_index):
    """Per-target ``loss`` and ``weight`` tensors (shape of ``targets``)."""
    cls_dtype = predictions.shape[0 if predictions.ndim == 1 else 1].dtype
    dtype = predictions.dtype

    def parts(i):
        t = targets(*i)
        valid = _g.not_equal(t, const_like(ignore_index, t.dtype))
        cls = _g.cast(t, cls_dtype) if t.dtype != cls_dtype else t
        w = const_like(1, dtype) if weights is None else weights(cls)
        return valid, cls, w

    def weight_body(*i):
        valid, _, w = parts(i)
        # if_then_else: an ignored target (e.g. -100) is not a valid index into weights.
        return tirx.if_then_else(valid, w, const_like(0, dtype))

    def loss_body(*i):
        valid, cls, w = parts(i)
        picked = predictions(*_pred_index(predictions, i, cls))
        return tirx.if_then_else(valid, -(w * picked), const_like(0, dtype))

    weight = te.compute(targets.shape, weight_body, name="nll_loss_weight")
    loss = te.compute(targets.shape, loss_body, name="nll_loss")
    return loss, weight


def nll_loss(predictions, targets, weights, reduction, ignore_index):
    """Negative log-likelihood loss (see the module docstring)."""
    targets = _as_tensor(targets)
    _check(predictions, targets, reduction)
    loss, weight = _terms(predictions, targets, weights, ignore_index)
    if reduction == "none":
        return loss
    total = _sum(loss)
    if reduction == "sum":
        return total
    weight_sum = _sum(weight)
    return te.compute((), lambda: total() / weight_sum(), name="nll_loss_mean")


def nll_loss_backward(output_grad, predictions, targets, weights=None, reduction="mean",
                      ignore_index=-100):
    """Gradient of :func:`nll_loss` with respect to ``predictions``.

    ``grad[n, c, d...] = -weights[t] * g`` where ``c`` is the target ``t`` (and ``t`` is not
    ignored), else 0; ``g`` is ``output_grad`` (``"sum"``), ``output_grad / total weight``
    (``"mean"``) or ``output_grad[n, d...]`` (``"none"``).
    """
    targets = _as_tensor(targets)
    _check(predictions, targets, reduction)
    _, weight = _terms(predictions, targets, weights, ignore_index)
    weight_sum = _sum(weight) if reduction == "mean" else None
    cls_axis = 0 if predictions.ndim == 1 else 1
    dtype = predictions.dtype

    def body(*i):
        cls = i[cls_axis]
        t_idx = list(i[:cls_axis]) + list(i[cls_axis + 1:])
        t = targets(*t_idx)
        hit = _g.equal(_g.cast(t, cls.dtype) if t.dtype != cls.dtype else t, cls)
        if reduction == "none":
            g = output_grad(*t_idx)
        elif reduction == "sum":
            g = output_grad()
        else:
            g = output_grad() / weight_sum()
        return tirx.Select(hit, -(weight(*t_idx) * g), const_like(0, dtype))

    return te.compute(predictions.shape, body, name="nll_loss_backward", tag="injective")


def cross_entropy_with_logits(predictions, labels):
    """``-sum(predictions * labels)``, divided by the batch size for 2-D inputs (Relax's
    ``nn.cross_entropy_with_logits``); a 0-D result."""
    if predictions.ndim not in (1, 2):
        raise ValueError(f"cross_entropy_with_logits expects 1-D or 2-D predictions, got "
                         f"{predictions.ndim}-D")
    prod = te.compute(predictions.shape, lambda *i: predictions(*i) * labels(*i),
                      name="T_multiply")
    total = _sum(prod)
    if predictions.ndim == 1:
        return te.compute((), lambda: -total(), name="T_negative")
    n = predictions.shape[0]
    count = _g.cast(as_index(n, n.dtype), predictions.dtype)
    return te.compute((), lambda: -total() / count, name="T_divide")
