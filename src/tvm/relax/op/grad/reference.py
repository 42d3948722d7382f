"""NumPy reference semantics of the ``relax.grad`` ops (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..nn.reference import from_canonical, nll_terms, pool_positions, to_canonical
from ..registry import register_reference

for _name in ("no_grad", "start_checkpoint", "end_checkpoint"):
    register_reference(f"grad.{_name}")(lambda _attrs, x: x)


@register_reference("grad.nll_loss_backward")
def _nll_loss_backward(attrs, output_grad, pred, targets, weights=None):
    weight, _, safe = nll_terms(pred, targets, weights, attrs.ignore_index)
    g = np.asarray(output_grad, np.float64)
    if attrs.reduction == "mean":
        g = g / np.sum(weight)
    elif attrs.reduction == "none":
        g = g.reshape(weight.shape)
    per_item = -weight * g
    one_d = np.ndim(pred) == 1
    shape = (1, *np.shape(pred)) if one_d else np.shape(pred)
    # d loss / d pred[n, c, ...] is -weight * g at the target class c = target[n, ...], else 0.
    classes = np.arange(shape[1]).reshape([1, -1] + [1] * (len(shape) - 2))
    onehot = np.expand_dims(safe, 1) == classes
    grad = np.where(onehot, np.expand_dims(per_item, 1), 0.0)
    return (grad[0] if one_d else grad).astype(pred.dtype)


def _pool_backward(attrs, output_grad, x, route_max):
    data = np.asarray(to_canonical(x, attrs.layout, "NCHW"), np.float64)
    grad_out = np.asarray(to_canonical(output_grad, attrs.out_layout, "NCHW"), np.float64)
    h, w = data.shape[2:]
    grad = np.zeros_like(data)
    pt, pl, pb, pr = attrs.padding
    for i in range(grad_out.shape[2]):
        for j in range(grad_out.shape[3]):
            pos = pool_positions(attrs, i, j)
            inside = [(r, s) for r, s in pos if 0 <= r < h and 0 <= s < w]
            if not inside:
                continue
            g = grad_out[:, :, i, j]
            if route_max:
                vals = np.stack([data[:, :, r, s] for r, s in inside])
                first = np.argmax(vals, axis=0)
                for k, (r, s) in enumerate(inside):
                    grad[:, :, r, s] += np.where(first == k, g, 0.0)
                continue
            if attrs.count_include_pad:
                count = sum(1 for r, s in pos if -pt <= r < h + pb and -pl <= s < w + pr)
            else:
                count = len(inside)
            for r, s in inside:
                grad[:, :, r, s] += g / count
    return from_canonical(grad, attrs.layout, "NCHW").astype(x.dtype)


@register_reference("grad.max_pool2d_backward")
def _max_pool2d_backward(attrs, output_grad, x):
    return _pool_backward(attrs, output_grad, x, True)


@register_reference("grad.avg_pool2d_backward")
def _avg_pool2d_backward(attrs, output_grad, x):
    return _pool_backward(attrs, output_grad, x, False)


@register_reference("grad.take_backward")
def _take_backward(attrs, output_grad, x, indices):
    grad = np.zeros(np.shape(x), np.float64)
    idx = np.asarray(indices, np.int64)
    g = np.asarray(output_grad, np.float64)
    if attrs.axis is None:
        np.add.at(grad.reshape(-1), idx.reshape(-1), g.reshape(-1))
        return grad.astype(x.dtype)
    axis = attrs.axis % np.ndim(x)
    moved = np.moveaxis(grad, axis, 0)
    g_moved = np.moveaxis(
        g.reshape(np.shape(x)[:axis] + idx.shape + np.shape(x)[axis + 1 :]),
        list(range(axis, axis + idx.ndim)),
        list(range(idx.ndim)),
    )
    np.add.at(moved, idx, g_moved)
    return grad.astype(x.dtype)
