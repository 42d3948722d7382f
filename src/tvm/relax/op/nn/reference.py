"""NumPy reference semantics of the ``relax.nn`` ops (``FReference``).

Convolutions and pooling loop over kernel positions and vectorize over the rest; layouts are
handled by transposing to NC(H)W / OI(H)W and back. Results keep the input dtype (or
``out_dtype``); float math runs in float64 and is cast back.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import reference_dtype, register_reference


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def _like(out, x):
    return np.asarray(out).astype(x.dtype, copy=False)


@register_reference("nn.relu")
def _relu(_attrs, x):
    return np.maximum(x, np.zeros((), x.dtype))


@register_reference("nn.prelu")
def _prelu(attrs, x, alpha):
    shape = [1] * x.ndim
    shape[attrs.axis % x.ndim] = -1
    slope = np.asarray(alpha).reshape(-1)
    slope = np.broadcast_to(slope, (x.shape[attrs.axis % x.ndim],)).reshape(shape)
    return _like(np.where(x > 0, x, slope * _f64(x)), x)


@register_reference("nn.leakyrelu")
def _leakyrelu(attrs, x):
    return _like(np.where(x > 0, x, attrs.alpha * _f64(x)), x)


_ERF = np.vectorize(math.erf, otypes=[np.float64])


@register_reference("nn.gelu")
def _gelu(_attrs, x):
    v = _f64(x)
    return _like(0.5 * v * (1 + _ERF(v / math.sqrt(2))), x)


@register_reference("nn.gelu_tanh")
def _gelu_tanh(_attrs, x):
    v = _f64(x)
    return _like(0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3))), x)


@register_reference("nn.silu")
def _silu(_attrs, x):
    v = _f64(x)
    return _like(v / (1 + np.exp(-v)), x)


@register_reference("nn.softplus")
def _softplus(attrs, x):
    v = _f64(x) * attrs.beta
    soft = np.log1p(np.exp(np.minimum(v, attrs.threshold))) / attrs.beta
    return _like(np.where(v > attrs.threshold, _f64(x), soft), x)


def softmax_f64(x, axis):
    """Softmax of ``x`` along ``axis`` in float64 (the maximum is subtracted first).

    Parameters
    ----------
    x : numpy.ndarray
    axis : int

    Returns
    -------
    numpy.ndarray
        A float64 array of ``x``'s shape.
    """
    v = _f64(x)
    e = np.exp(v - np.max(v, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@register_reference("nn.softmax")
def _softmax(attrs, x):
    return _like(softmax_f64(x, attrs.axis), x)


@register_reference("nn.log_softmax")
def _log_softmax(attrs, x):
    v = _f64(x)
    shifted = v - np.max(v, axis=attrs.axis, keepdims=True)
    return _like(shifted - np.log(np.sum(np.exp(shifted), axis=attrs.axis, keepdims=True)), x)


@register_reference("nn.cross_entropy_with_logits")
def _cross_entropy(_attrs, pred, labels):
    total = -np.sum(_f64(pred) * _f64(labels))
    if pred.ndim == 2:
        total = total / pred.shape[0]
    return _like(total, pred)


def nll_terms(pred, targets, weights, ignore_index):
    """Per-element ``(weight, log-prob)`` of the target class; ignored targets weigh 0."""
    pred = _f64(pred)
    if pred.ndim == 1:
        pred, targets = pred[None], np.asarray(targets)[None]
    n_class = pred.shape[1]
    w = _f64(weights) if weights is not None else np.ones(n_class)
    safe = np.where(targets == ignore_index, 0, targets).astype(np.int64)
    picked = np.take_along_axis(pred, np.expand_dims(safe, 1), axis=1).squeeze(1)
    weight = np.where(targets == ignore_index, 0.0, w[safe])
    return weight, picked, safe


@register_reference("nn.nll_loss")
def _nll_loss(attrs, pred, targets, weights=None):
    weight, picked, _ = nll_terms(pred, targets, weights, attrs.ignore_index)
    loss = -weight * picked
    if attrs.reduction == "none":
        return _like(loss.reshape(np.shape(targets)), pred)
    if attrs.reduction == "sum":
        return _like(np.sum(loss), pred)
    return _like(np.sum(loss) / np.sum(weight), pred)


# --- convolutions ----------------------------------------------------------------------------


def to_canonical(x, layout, canonical):
    """Transpose ``x`` from ``layout`` to the ``canonical`` axis order.

    Parameters
    ----------
    x : numpy.ndarray
    layout : str
        ``x``'s layout (``"NHWC"``).
    canonical : str
        The same letters in the wanted order (``"NCHW"``).

    Returns
    -------
    numpy.ndarray
    """
    return np.transpose(x, [layout.index(c) for c in canonical])


def from_canonical(x, layout, canonical):
    """Transpose ``x`` from the ``canonical`` axis order back to ``layout`` (inverse of
    :func:`to_canonical`).
    """
    return np.transpose(x, [canonical.index(c) for c in layout])


def conv_nchw(data, weight, strides, padding, dilation, groups):
    """N-D grouped convolution on canonical layouts (``NC...``, ``OI...``) in float64."""
    spatial = data.ndim - 2
    pads = [(0, 0), (0, 0)] + [(padding[i], padding[i + spatial]) for i in range(spatial)]
    x = np.pad(_f64(data), pads)
    w = _f64(weight)
    n = x.shape[0]
    o, i_per_group = w.shape[:2]
    kernel = w.shape[2:]
    out_sizes = [
        (x.shape[2 + d] - dilation[d] * (kernel[d] - 1) - 1) // strides[d] + 1
        for d in range(spatial)
    ]
    out = np.zeros([n, o] + out_sizes)
    o_per_group = o // groups
    for pos in np.ndindex(*kernel):
        index = tuple(
            slice(
                pos[d] * dilation[d],
                pos[d] * dilation[d] + (out_sizes[d] - 1) * strides[d] + 1,
                strides[d],
            )
            for d in range(spatial)
        )
        patch = x[(slice(None), slice(None)) + index]
        for g in range(groups):
            xs = patch[:, g * i_per_group : (g + 1) * i_per_group]
            ws = w[(slice(g * o_per_group, (g + 1) * o_per_group), slice(None)) + pos]
            out[:, g * o_per_group : (g + 1) * o_per_group] += np.einsum("nc...,oc->no...", xs, ws)
    return out


def _conv(attrs, data, weight, spatial):
    data_c = to_canonical(data, attrs.data_layout, "NC" + spatial)
    weight_c = to_canonical(weight, attrs.kernel_layout, "OI" + spatial)
    out = conv_nchw(data_c, weight_c, attrs.strides, attrs.padding, attrs.dilation, attrs.groups)
    out = from_canonical(out, attrs.out_layout, "NC" + spatial)
    dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else data.dtype
    return out.astype(reference_dtype(dtype))


@register_reference("nn.conv1d")
def _conv1d(attrs, data, weight):
    return _conv(attrs, data, weight, "W")


@register_reference("nn.conv2d")
def _conv2d(attrs, data, weight):
    return _conv(attrs, data, weight, "HW")


@register_reference("nn.conv2d_transpose")
def _conv2d_transpose(attrs, data, weight):
    x = _f64(to_canonical(data, attrs.data_layout, "NCHW"))
    w = _f64(to_canonical(weight, attrs.kernel_layout, "IOHW"))
    n, c, h, wd = x.shape
    o_per_group = w.shape[1]
    groups = attrs.groups
    c_per_group = c // groups
    (sh, sw), (dh, dw) = attrs.strides, attrs.dilation
    kh, kw = w.shape[2:]
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + attrs.output_padding[0]
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + attrs.output_padding[1]
    full = np.zeros((n, o_per_group * groups, full_h, full_w))
    for a in range(kh):
        for b in range(kw):
            rows = slice(a * dh, a * dh + (h - 1) * sh + 1, sh)
            cols = slice(b * dw, b * dw + (wd - 1) * sw + 1, sw)
            for g in range(groups):
                xs = x[:, g * c_per_group : (g + 1) * c_per_group]
                ws = w[g * c_per_group : (g + 1) * c_per_group, :, a, b]
                full[:, g * o_per_group : (g + 1) * o_per_group, rows, cols] += np.einsum(
                    "nchw,co->nohw", xs, ws
                )
    pt, pl, pb, pr = attrs.padding
    out = full[:, :, pt : full_h - pb, pl : full_w - pr]
    out = from_canonical(out, attrs.out_layout, "NCHW")
    dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else data.dtype
    return out.astype(reference_dtype(dtype))


# --- pooling ----------------------------------------------------------------------------------


def pool_out_size(attrs, h, w):
    """The output (height, width) of a 2-D pooling window over an (h, w) input."""
    (kh, kw), (sh, sw), (dh, dw) = attrs.pool_size, attrs.strides, attrs.dilation
    pt, pl, pb, pr = attrs.padding

    def out_size(extent, k, s, d, p0, p1):
        span = extent + p0 + p1 - (d * (k - 1) + 1)
        return (span + (s - 1 if attrs.ceil_mode else 0)) // s + 1

    oh = out_size(h, kh, sh, dh, pt, pb)
    ow = out_size(w, kw, sw, dw, pl, pr)
    return oh, ow


def pool_positions(attrs, i, j):
    """The input ``(row, col)`` positions the pooling window of output ``(i, j)`` covers.

    Positions come from ``attrs``'s pool size, strides, dilation and top/left padding; they may
    lie in the padding (negative or past the end).

    Returns
    -------
    list of tuple of int
    """
    (kh, kw), (sh, sw), (dh, dw) = attrs.pool_size, attrs.strides, attrs.dilation
    pt, pl = attrs.padding[0], attrs.padding[1]
    return [(i * sh - pt + a * dh, j * sw - pl + b * dw) for a in range(kh) for b in range(kw)]


def _pool(attrs, x, reduce_max):
    data = _f64(to_canonical(x, attrs.layout, "NCHW"))
    n, c, h, w = data.shape
    oh, ow = pool_out_size(attrs, h, w)
    out = np.zeros((n, c, oh, ow))
    pt, pl, pb, pr = attrs.padding
    for i in range(oh):
        for j in range(ow):
            pos = pool_positions(attrs, i, j)
            inside = [(r, s) for r, s in pos if 0 <= r < h and 0 <= s < w]
            vals = [data[:, :, r, s] for r, s in inside]
            if reduce_max:
                out[:, :, i, j] = np.max(vals, axis=0) if vals else -np.inf
                continue
            if attrs.count_include_pad:
                count = sum(1 for r, s in pos if -pt <= r < h + pb and -pl <= s < w + pr)
            else:
                count = len(inside)
            out[:, :, i, j] = np.sum(vals, axis=0) / max(count, 1) if vals else 0.0
    return from_canonical(out, attrs.out_layout, "NCHW").astype(x.dtype)


@register_reference("nn.max_pool2d")
def _max_pool2d(attrs, x):
    return _pool(attrs, x, True)


@register_reference("nn.avg_pool2d")
def _avg_pool2d(attrs, x):
    return _pool(attrs, x, False)


@register_reference("nn.adaptive_avg_pool2d")
def _adaptive_avg_pool2d(attrs, x):
    data = _f64(to_canonical(x, attrs.layout, "NCHW"))
    n, c, h, w = data.shape
    oh, ow = attrs.output_size if attrs.output_size is not None else (h, w)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = data[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return from_canonical(out, attrs.out_layout, "NCHW").astype(x.dtype)


# --- normalization, dropout, attention, pad --------------------------------------------------


def _param_shape(x, axes):
    """Shape that broadcasts a parameter over the normalized ``axes`` of ``x``."""
    axes = sorted(a % x.ndim for a in axes)
    return [x.shape[i] if i in axes else 1 for i in range(x.ndim)]


def _scale_center(out, attrs, gamma, beta, shape):
    """A normalized ``out`` times ``gamma`` / plus ``beta`` (reshaped to ``shape``) as asked."""
    if attrs.scale:
        out = out * _f64(gamma).reshape(shape)
    if attrs.center:
        out = out + _f64(beta).reshape(shape)
    return out


@register_reference("nn.layer_norm")
def _layer_norm(attrs, x, gamma, beta):
    v = _f64(x)
    axes = tuple(a % x.ndim for a in attrs.axes)
    mean = v.mean(axis=axes, keepdims=True)
    var = v.var(axis=axes, keepdims=True)
    out = (v - mean) / np.sqrt(var + attrs.epsilon)
    shape = _param_shape(x, attrs.axes)
    out = _scale_center(out, attrs, gamma, beta, shape)
    return _like(out, x)


@register_reference("nn.group_norm")
def _group_norm(attrs, x, gamma, beta):
    v = _f64(x)
    ch = attrs.channel_axis % x.ndim
    groups = attrs.num_groups
    shape = list(x.shape)
    grouped = shape[:ch] + [groups, shape[ch] // groups] + shape[ch + 1 :]
    g = v.reshape(grouped)
    axes = [ch + 1] + [a % x.ndim + (1 if a % x.ndim > ch else 0) for a in attrs.axes]
    mean = g.mean(axis=tuple(axes), keepdims=True)
    var = g.var(axis=tuple(axes), keepdims=True)
    out = ((g - mean) / np.sqrt(var + attrs.epsilon)).reshape(shape)
    pshape = [shape[ch] if i == ch else 1 for i in range(x.ndim)]
    out = _scale_center(out, attrs, gamma, beta, pshape)
    return _like(out, x)


@register_reference("nn.rms_norm")
def _rms_norm(attrs, x, weight):
    v = _f64(x)
    axes = tuple(a % x.ndim for a in attrs.axes)
    rms = np.sqrt(np.mean(v * v, axis=axes, keepdims=True) + attrs.epsilon)
    return _like(v / rms * _f64(weight).reshape(_param_shape(x, attrs.axes)), x)


@register_reference("nn.batch_norm")
def _batch_norm(attrs, x, gamma, beta, moving_mean, moving_var):
    v = _f64(x)
    axis = attrs.axis % x.ndim
    reduce_axes = tuple(i for i in range(x.ndim) if i != axis)
    shape = [x.shape[axis] if i == axis else 1 for i in range(x.ndim)]
    if attrs.training:
        mean, var = v.mean(axis=reduce_axes), v.var(axis=reduce_axes)
        m = attrs.momentum
        new_mean = (1 - m) * _f64(moving_mean) + m * mean
        new_var = (1 - m) * _f64(moving_var) + m * var
    else:
        mean, var = _f64(moving_mean), _f64(moving_var)
        new_mean, new_var = mean, var
    out = (v - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + attrs.epsilon)
    out = _scale_center(out, attrs, gamma, beta, shape)
    return (_like(out, x), _like(new_mean, moving_mean), _like(new_var, moving_var))


@register_reference("nn.dropout")
def _dropout(_attrs, x):
    # Inference mode: random masks are not reproducible, so the reference keeps every element.
    return (np.array(x), np.ones_like(x))


@register_reference("nn.attention")
def _attention(attrs, query, key, value, bias=None):
    window = attrs.window_size
    if window is not None:
        window = int(window)
        if window < 1 or attrs.causal_mask != "BottomRight":
            # As TVM 0.27 (flash attention's window_size_left = W - 1, right = 0).
            raise ValueError(
                "attention: window_size (sliding-window attention) is only defined as a "
                f"positive int with causal_mask='BottomRight', got window_size={window}, "
                f"causal_mask={attrs.causal_mask!r}"
            )
    q, k, v = _f64(query), _f64(key), _f64(value)
    heads, kv_heads = q.shape[2], k.shape[2]
    if kv_heads != heads:
        # Grouped-query attention: query head h reads key/value head h % kv_heads (as TVM).
        k = np.tile(k, (1, 1, heads // kv_heads, 1))
        v = np.tile(v, (1, 1, heads // kv_heads, 1))
    scale = attrs.scale if attrs.scale is not None else 1 / math.sqrt(q.shape[3])
    scores = np.einsum("bsnh,btnh->bnst", q, k) * scale
    if bias is not None:
        scores = scores + _f64(bias)
    if attrs.causal_mask is not None:
        s, t = scores.shape[2], scores.shape[3]
        offset = 0 if attrs.causal_mask == "TopLeft" else t - s
        mask = np.arange(t)[None, :] > np.arange(s)[:, None] + offset
        if window is not None:
            # Sliding window: each query sees the last ``window`` keys up to its diagonal.
            mask |= np.arange(t)[None, :] < np.arange(s)[:, None] + offset - (window - 1)
        scores = np.where(mask, -np.inf, scores)
    probs = softmax_f64(scores, -1)
    return _like(np.einsum("bnst,btnh->bsnh", probs, v), query)


@register_reference("nn.pad")
def _pad(attrs, x):
    widths = [(attrs.pad_width[2 * i], attrs.pad_width[2 * i + 1]) for i in range(x.ndim)]
    if attrs.pad_mode == "constant":
        return np.pad(x, widths, constant_values=np.asarray(attrs.pad_value, x.dtype))
    return np.pad(x, widths, mode=attrs.pad_mode)
