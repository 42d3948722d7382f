"""NumPy reference semantics of shape manipulation (``FReference``)."""

from __future__ import annotations

import itertools

import numpy as np

from ..registry import register_reference
from .infer import split_bounds


@register_reference("reshape")
def _reshape(_attrs, x, shape):
    return np.reshape(x, shape)


@register_reference("permute_dims")
def _permute_dims(attrs, x):
    return np.transpose(x, None if attrs.axes is None else list(attrs.axes))


@register_reference("broadcast_to")
def _broadcast_to(_attrs, x, shape):
    return np.array(np.broadcast_to(x, shape))


@register_reference("expand_dims")
def _expand_dims(attrs, x):
    return np.expand_dims(x, tuple(attrs.axis))


@register_reference("squeeze")
def _squeeze(attrs, x):
    if attrs.axis is None:
        return np.squeeze(x)
    # Like TVM's inference, an axis whose extent is not 1 is left alone.
    axes = tuple(a for a in attrs.axis if x.shape[a] == 1)
    return np.squeeze(x, axes)


@register_reference("flatten")
def _flatten(_attrs, x):
    return np.reshape(x, (-1,))


@register_reference("concat")
def _concat(attrs, tensors):
    if attrs.axis is None:
        return np.concatenate([np.reshape(t, (-1,)) for t in tensors])
    return np.concatenate(tensors, axis=attrs.axis)


@register_reference("stack")
def _stack(attrs, tensors):
    return np.stack(tensors, axis=attrs.axis)


@register_reference("split")
def _split(attrs, x):
    axis = attrs.axis % x.ndim
    pieces = split_bounds(None, int(x.shape[axis]), attrs.indices_or_sections)
    index = [slice(None)] * x.ndim
    out = []
    for start, end in pieces:
        index[axis] = slice(start, end)
        out.append(np.array(x[tuple(index)]))
    return tuple(out)


def _collapse(data, shape):
    shape = tuple(int(s) for s in shape)
    lead = data.ndim - len(shape)
    axes = list(range(lead))
    axes += [lead + i for i, s in enumerate(shape) if s == 1 and data.shape[lead + i] != 1]
    out = np.sum(data, axis=tuple(axes), keepdims=True) if axes else data
    return np.reshape(out, shape).astype(data.dtype, copy=False)


@register_reference("collapse_sum_like")
def _collapse_sum_like(_attrs, data, target):
    return _collapse(data, target.shape)


@register_reference("collapse_sum_to")
def _collapse_sum_to(_attrs, data, shape):
    return _collapse(data, shape)


@register_reference("repeat")
def _repeat(attrs, x):
    return np.repeat(x, attrs.repeats, axis=attrs.axis)


@register_reference("tile")
def _tile(attrs, x):
    return np.tile(x, tuple(attrs.repeats))


@register_reference("flip")
def _flip(attrs, x):
    return np.flip(x, attrs.axis).copy()


@register_reference("gather_elements")
def _gather_elements(attrs, data, indices):
    axis = attrs.axis % data.ndim
    idx = np.where(indices < 0, indices + data.shape[axis], indices)
    return np.take_along_axis(data, idx.astype(np.int64), axis=axis)


_SCATTER = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@register_reference("scatter_elements")
def _scatter_elements(attrs, data, indices, updates):
    axis = attrs.axis % data.ndim
    out = np.array(data)
    idx = np.where(indices < 0, indices + data.shape[axis], indices).astype(np.int64)
    for pos in itertools.product(*(range(n) for n in indices.shape)):
        target = list(pos)
        target[axis] = idx[pos]
        target = tuple(target)
        if attrs.reduction == "update":
            out[target] = updates[pos]
        elif attrs.reduction == "mean":
            # TVM 0.27's "mean" averages each update with the current value, in index order.
            out[target] = (out[target] + updates[pos]) / 2
        else:
            out[target] = _SCATTER[attrs.reduction](out[target], updates[pos])
    return out


@register_reference("one_hot")
def _one_hot(attrs, indices, on_value, off_value):
    depth = int(attrs.depth)
    axis = attrs.axis % (indices.ndim + 1)
    hot = np.expand_dims(indices, axis) == np.reshape(
        np.arange(depth), [depth if i == axis else 1 for i in range(indices.ndim + 1)]
    )
    dtype = np.asarray(on_value).dtype
    return np.where(hot, on_value, off_value).astype(dtype)


@register_reference("layout_transform")
def _layout_transform(attrs, x):
    # Padding positions hold pad_value (0 when None, as the compiled kernel fills them).
    pad = 0 if attrs.pad_value is None else attrs.pad_value.value
    return attrs.index_map.map_tensor(np.asarray(x), pad_value=pad)
