"""Type inference of the ``relax.nn`` ops: activations, softmax, losses, convolutions, pooling,
normalizations, dropout, attention and padding.

Layouts are strings of dim letters (``NCHW``, ``NHWC``, ``OIHW``...); sub-divided layouts
such as ``NCHW4c`` are rejected with a ValueError.
"""

from __future__ import annotations

from ....ir.type import TupleType
from ..infer_utils import (
    binary_dtype,
    dim_text,
    known_shape,
    make_tensor_type,
    normalize_axes,
    normalize_axis,
    op_name,
    prove_equal,
    require_float,
    same_type_as,
    simplify_dim,
    static_dim,
    tensor_arg,
    tensor_args,
)


def infer_activation_any(call, _bb=None):
    """``relu``: any dtype, same type out."""
    (data,) = tensor_args(call, 1)
    return data


def infer_activation_float(call, _bb=None):
    """``gelu``, ``silu``, ``leakyrelu``...: float dtype, same type out."""
    (data,) = tensor_args(call, 1)
    require_float(call, data)
    return data


def infer_softmax(call, _bb=None):
    """``softmax``/``log_softmax``: float input; ``attrs.axis`` range-checked."""
    (data,) = tensor_args(call, 1)
    require_float(call, data, "Softmax")
    if data.ndim != -1:
        normalize_axis(call, data.ndim, call.attrs.axis)
    return data


def _scalar(dtype, vdevice=None):
    return make_tensor_type([], dtype, 0, vdevice)


def infer_cross_entropy_with_logits(call, _bb=None):
    """A scalar; predictions and labels have the same shape and dtype."""
    pred, labels = tensor_args(call, 2)
    dtype = binary_dtype(call, pred, labels)
    if -1 not in (pred.ndim, labels.ndim) and pred.ndim != labels.ndim:
        raise ValueError(
            "CrossEntropy requires predictions and labels to have the same ndim. "
            f"However, the ndim of predictions is {pred.ndim} while the ndim of "
            f"labels is {labels.ndim}"
        )
    _check_same_shape(call, pred, labels, "predictions", "labels")
    return _scalar(dtype)


def _check_same_shape(call, a, b, a_name, b_name):
    av, bv = known_shape(a), known_shape(b)
    if av is None or bv is None:
        return
    for i, (x, y) in enumerate(zip(av, bv)):
        if prove_equal(x, y) is False:
            raise ValueError(
                f"{op_name(call)} requires {a_name} and {b_name} to have the same "
                f"shape. However, dim {i} is {dim_text(x)} and {dim_text(y)}"
            )


def infer_nll_loss(call, _bb=None):
    """Scalar for mean/sum reduction; the targets' shape for ``reduction="none"``."""
    pred = tensor_arg(call, 0, "predictions")
    targets = tensor_arg(call, 1, "targets")
    require_float(call, pred, "NLLLoss")
    if targets.dtype != "void" and not targets.dtype.startswith(("int", "uint")):
        raise TypeError(
            "NLLLoss expects the dtype of targets to be int/uint. However, the "
            f"dtype of targets is T.{targets.dtype}"
        )
    if len(call.args) > 2:
        weights = tensor_arg(call, 2, "weights")
        if weights.ndim not in (-1, 1):
            raise ValueError(f"NLLLoss expects the weights to be 1-D, got ndim {weights.ndim}")
    if pred.ndim != -1 and targets.ndim != -1:
        if (
            pred.ndim == 0
            or (pred.ndim == 1 and targets.ndim != 0)
            or (pred.ndim > 1 and targets.ndim != pred.ndim - 1)
        ):
            raise ValueError(
                "NLLLoss expects predictions of shape (N, C, d1, ...) or (C,) and targets of "
                f"shape (N, d1, ...) or (); got ndim {pred.ndim} and {targets.ndim}"
            )
        pv, tv = known_shape(pred), known_shape(targets)
        if pv is not None and tv is not None and pred.ndim > 1:
            for i, (x, y) in enumerate(zip([pv[0], *pv[2:]], tv)):
                if prove_equal(x, y) is False:
                    raise ValueError(
                        f"NLLLoss expects targets to match the non-class dims of "
                        f"predictions; dim {i} of targets is {dim_text(y)} but "
                        f"predictions have {dim_text(x)}"
                    )
    reduction = call.attrs.reduction
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"NLLLoss expects reduction to be none, mean or sum, got {reduction!r}")
    if reduction == "none":
        return same_type_as(targets, pred.dtype)
    return _scalar(pred.dtype)


# --- layouts and window arithmetic ------------------------------------------------------------


def layout_axes(call, layout: str, letters: str, role: str):
    """Position of each letter of ``letters`` in ``layout`` (a permutation of them)."""
    if sorted(layout) != sorted(letters):
        raise ValueError(
            f"{op_name(call)} supports {role} layouts that permute {letters}, got {layout!r}"
        )
    return {c: layout.index(c) for c in letters}


def window_out(extent, kernel, stride, dilation, pad_before, pad_after, ceil_mode=False):
    """Output extent of a sliding window (PrimExpr arithmetic; ceil_mode rounds up)."""
    span = extent + (pad_before + pad_after) - (dilation * (kernel - 1) + 1)
    if ceil_mode:
        span = span + (stride - 1)
    return simplify_dim(span // stride + 1)


def _dims(values, axes, letters):
    return [values[axes[c]] for c in letters]


def _out_tensor(call, values_by_letter, out_layout, dtype, ndim):
    try:
        out = [values_by_letter[c] for c in out_layout]
    except KeyError as err:
        raise ValueError(f"{op_name(call)}: unknown out_layout {out_layout!r}") from err
    return make_tensor_type(out, dtype, ndim)


def infer_conv(call, _bb=None):
    """``conv1d``/``conv2d``: ``(N, O, out spatial)`` in ``out_layout``; groups checked."""
    data, weight = tensor_args(call, 2)
    attrs = call.attrs
    spatial = "W" if len(attrs.strides) == 1 else "HW"
    name = "Conv1d" if spatial == "W" else "Conv2d"
    out_dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else None
    dtype = out_dtype or binary_dtype(call, data, weight)
    ndim = 2 + len(spatial)
    daxes = layout_axes(call, attrs.data_layout, "NC" + spatial, "data")
    kaxes = layout_axes(call, attrs.kernel_layout, "OI" + spatial, "kernel")
    for ty, role in ((data, "data"), (weight, "weight")):
        if ty.ndim not in (-1, ndim):
            raise ValueError(
                f"{name} expects the {role} to be a {ndim}-D tensor, but it has ndim {ty.ndim}"
            )
    dv, kv = known_shape(data), known_shape(weight)
    if dv is None or kv is None:
        return make_tensor_type(None, dtype, ndim)
    n, c = _dims(dv, daxes, "NC")
    o, i = _dims(kv, kaxes, "OI")
    groups = int(attrs.groups)
    if prove_equal(c, i * groups) is False:
        raise ValueError(
            "The channel size of the data should equal to the product of input channel size "
            f"of the weight and the number of groups. However, the data channel size is "
            f"{dim_text(c)} while the weight input channel size and number of groups are "
            f"{dim_text(i)} and {groups}"
        )
    if static_dim(o) is not None and static_dim(o) % groups != 0:
        raise ValueError(
            f"{name} expects the number of output channels to be divisible by the "
            f"number of groups. However, the number of output channels is "
            f"{dim_text(o)} while the number of groups is {groups}"
        )
    out = {"N": n, "C": o}
    half = len(spatial)
    for k, letter in enumerate(spatial):
        out[letter] = window_out(
            dv[daxes[letter]],
            kv[kaxes[letter]],
            attrs.strides[k],
            attrs.dilation[k],
            attrs.padding[k],
            attrs.padding[k + half],
        )
    return _out_tensor(call, out, attrs.out_layout, dtype, ndim)


def infer_conv2d_transpose(call, _bb=None):
    """``(H - 1) * s - pads + d * (k - 1) + output_padding + 1`` per spatial dim."""
    data, weight = tensor_args(call, 2)
    attrs = call.attrs
    out_dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else None
    dtype = out_dtype or binary_dtype(call, data, weight)
    daxes = layout_axes(call, attrs.data_layout, "NCHW", "data")
    kaxes = layout_axes(call, attrs.kernel_layout, "IOHW", "kernel")
    dv, kv = known_shape(data), known_shape(weight)
    if dv is None or kv is None:
        return make_tensor_type(None, dtype, 4)
    n, c = _dims(dv, daxes, "NC")
    i, o = _dims(kv, kaxes, "IO")
    groups = int(attrs.groups)
    if prove_equal(c, i) is False:
        raise ValueError(
            f"Conv2dTranspose expects the data channel size {dim_text(c)} to "
            f"equal the weight input channel size {dim_text(i)}"
        )
    out = {"N": n, "C": o * groups}
    for k, letter in enumerate("HW"):
        extent, kernel = dv[daxes[letter]], kv[kaxes[letter]]
        out[letter] = simplify_dim(
            (extent - 1) * attrs.strides[k]
            - attrs.padding[k]
            - attrs.padding[k + 2]
            + attrs.dilation[k] * (kernel - 1)
            + attrs.output_padding[k]
            + 1
        )
    return _out_tensor(call, out, attrs.out_layout, dtype, 4)


# --- normalizations ---------------------------------------------------------------------------


def _check_param(call, data, param, role, expected):
    if param.dtype not in ("void", data.dtype) and data.dtype != "void":
        raise TypeError(
            f"{op_name(call)} expects {role} to have the dtype of the data "
            f"(T.{data.dtype}), got T.{param.dtype}"
        )
    pv = known_shape(param)
    if pv is None or expected is None:
        return
    if len(pv) != len(expected) or any(prove_equal(a, b) is False for a, b in zip(pv, expected)):
        shape = ", ".join(dim_text(v) for v in expected)
        raise ValueError(
            f"{op_name(call)} expects {role} to have shape ({shape}), but it has "
            f"shape ({', '.join(dim_text(v) for v in pv)})"
        )


def infer_layer_norm(call, _bb=None):
    """The data's type; gamma/beta have the shape of the normalized axes."""
    data, gamma, beta = tensor_args(call, 3)
    require_float(call, data)
    values = known_shape(data)
    expected = None
    if data.ndim != -1:
        axes = normalize_axes(call, data.ndim, call.attrs.axes)
        expected = None if values is None else [values[a] for a in sorted(axes)]
    _check_param(call, data, gamma, "gamma", expected)
    _check_param(call, data, beta, "beta", expected)
    return data


def infer_group_norm(call, _bb=None):
    """The data's type; the channels divide into ``num_groups``; gamma/beta per channel."""
    data, gamma, beta = tensor_args(call, 3)
    require_float(call, data)
    attrs = call.attrs
    values = known_shape(data)
    expected = None
    if data.ndim != -1:
        channel = normalize_axis(call, data.ndim, attrs.channel_axis)
        normalize_axes(call, data.ndim, attrs.axes)
        if values is not None:
            expected = [values[channel]]
            c = static_dim(values[channel])
            if c is not None and c % int(attrs.num_groups) != 0:
                raise ValueError(
                    f"group_norm expects the number of channels {c} to be "
                    f"divisible by num_groups {attrs.num_groups}"
                )
    _check_param(call, data, gamma, "gamma", expected)
    _check_param(call, data, beta, "beta", expected)
    return data


def infer_rms_norm(call, _bb=None):
    """The data's type; ``weight`` has the shape of the normalized axes."""
    data, weight = tensor_args(call, 2)
    require_float(call, data)
    values = known_shape(data)
    expected = None
    if data.ndim != -1:
        axes = normalize_axes(call, data.ndim, call.attrs.axes)
        expected = None if values is None else [values[a] for a in sorted(axes)]
    _check_param(call, data, weight, "weight", expected)
    return data


def infer_batch_norm(call, _bb=None):
    """``(data, new moving mean, new moving var)``; the four vectors are per channel."""
    args = tensor_args(call, 5)
    data = args[0]
    require_float(call, data)
    expected = None
    values = known_shape(data)
    if data.ndim != -1:
        axis = normalize_axis(call, data.ndim, call.attrs.axis)
        expected = None if values is None else [values[axis]]
    for ty, role in zip(args[1:], ("gamma", "beta", "moving_mean", "moving_var")):
        _check_param(call, data, ty, role, expected)
    vec = (
        args[3]
        if known_shape(args[3]) is not None or expected is None
        else (make_tensor_type(expected, data.dtype, 1))
    )
    return TupleType([data, vec, vec])


def infer_dropout(call, _bb=None):
    """``(output, mask)``, both of the input's type."""
    (data,) = tensor_args(call, 1)
    rate = float(call.attrs.rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout expects a rate in [0, 1), got {rate}")
    return TupleType([data, data])


def infer_attention(call, _bb=None):
    """``(B, S, N, H)`` query, ``(B, T, N_kv, H)`` key, ``(B, T, N_kv, H_v)`` value -> BSNH_v."""
    query, key, value = (
        tensor_arg(call, i, role) for i, role in enumerate(("query", "key", "value"))
    )
    for ty, role in ((query, "query"), (key, "key"), (value, "value")):
        if ty.ndim not in (-1, 4):
            raise ValueError(
                f"attention expects the {role} to be a 4-D tensor (batch, seq, "
                f"heads, head dim), but it has ndim {ty.ndim}"
            )
    dtype = binary_dtype(call, query, key)
    if call.attrs.causal_mask not in (None, "TopLeft", "BottomRight"):
        raise ValueError(
            f"attention expects causal_mask to be None, TopLeft or BottomRight, "
            f"got {call.attrs.causal_mask!r}"
        )
    qv, kv, vv = known_shape(query), known_shape(key), known_shape(value)
    if qv is None or kv is None or vv is None:
        return make_tensor_type(None, dtype, 4)
    checks = (
        (qv[0], kv[0], "batch size"),
        (qv[3], kv[3], "head dim of query and key"),
        (kv[1], vv[1], "sequence length of key and value"),
        (kv[2], vv[2], "number of heads of key and value"),
    )
    for a, b, what in checks:
        if prove_equal(a, b) is False:
            raise ValueError(
                f"attention expects the {what} to match, got {dim_text(a)} and {dim_text(b)}"
            )
    return make_tensor_type([qv[0], qv[1], qv[2], vv[3]], dtype, 4)


def infer_pad(call, _bb=None):
    """Each dim grows by its before/after pad widths."""
    data = tensor_arg(call, 0, "input data")
    widths = list(call.attrs.pad_width)
    if call.attrs.pad_mode not in ("constant", "edge", "reflect"):
        raise ValueError(
            f"pad expects pad_mode to be constant, edge or reflect, got {call.attrs.pad_mode!r}"
        )
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1)
    if len(widths) != 2 * data.ndim:
        raise ValueError(
            f"pad expects pad_width to have 2 * ndim = {2 * data.ndim} entries "
            f"(before and after for each dim), got {len(widths)}"
        )
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim)
    out = [simplify_dim(v + widths[2 * i] + widths[2 * i + 1]) for i, v in enumerate(values)]
    return make_tensor_type(out, data.dtype, data.ndim)


def infer_prelu(call, _bb=None):
    """``prelu``: float data, ``attrs.axis`` range-checked; the data's type out."""
    data = tensor_arg(call, 0)
    if data.ndim == -1:
        return data
    require_float(call, data, "Prelu")
    normalize_axis(call, data.ndim, call.attrs.axis)
    return data
