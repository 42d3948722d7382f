"""Neural network ops (``relax.nn.*``, written ``R.nn.conv2d(...)`` in TVMScript).

Constructors follow TVM 0.27's signatures and defaults; scalar and tuple arguments are
normalized the way TVM prints them (``strides=[1, 1]``, 4-value ``padding`` for 2-D ops,
``out_layout`` defaulting to the data layout).
"""

from __future__ import annotations

from ...expr import Call
from ..registry import register_op_table
from . import infer as _infer
from . import pooling as _pooling
from .args import dtype_arg, int_values, ints, padding_values
from .attrs import (
    AdaptivePool2DAttrs,
    AttentionAttrs,
    BatchNormAttrs,
    Conv1DAttrs,
    Conv2DAttrs,
    Conv2DTransposeAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    LayerNormAttrs,
    LeakyReluAttrs,
    NLLLossAttrs,
    PadAttrs,
    Pool2DAttrs,
    PReluAttrs,
    RMSNormAttrs,
    SoftmaxAttrs,
    SoftplusAttrs,
)
from .shape_ops import batch_flatten, relu6

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "attention",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_flatten",
    "batch_norm",
    "conv1d",
    "conv1d_transpose",
    "conv2d",
    "conv2d_transpose",
    "conv3d_transpose",
    "cross_entropy_with_logits",
    "dropout",
    "gelu",
    "gelu_tanh",
    "group_norm",
    "layer_norm",
    "leakyrelu",
    "log_softmax",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "nll_loss",
    "pad",
    "prelu",
    "relu",
    "relu6",
    "rms_norm",
    "silu",
    "softmax",
    "softplus",
]

#: (op name, number of inputs, inference rule, attrs class name or "", description)
NN_OPS = (
    ("relu", 1, _infer.infer_activation_any, "", "Rectified linear unit max(x, 0)."),
    ("leakyrelu", 1, _infer.infer_activation_float, "LeakyReluAttrs", "Leaky ReLU."),
    ("prelu", 2, _infer.infer_prelu, "PReluAttrs", "Parametric ReLU (a slope per channel)."),
    ("gelu", 1, _infer.infer_activation_float, "", "GELU (erf form)."),
    ("gelu_tanh", 1, _infer.infer_activation_float, "", "GELU (tanh approximation)."),
    ("silu", 1, _infer.infer_activation_float, "", "SiLU x * sigmoid(x)."),
    ("softplus", 1, _infer.infer_activation_float, "SoftplusAttrs", "Softplus."),
    ("softmax", 1, _infer.infer_softmax, "SoftmaxAttrs", "Softmax along an axis."),
    ("log_softmax", 1, _infer.infer_softmax, "SoftmaxAttrs", "Log of softmax along an axis."),
    (
        "cross_entropy_with_logits",
        2,
        _infer.infer_cross_entropy_with_logits,
        "",
        "Cross entropy of log-probabilities and labels.",
    ),
    ("nll_loss", 3, _infer.infer_nll_loss, "NLLLossAttrs", "Negative log-likelihood loss."),
    ("conv1d", 2, _infer.infer_conv, "Conv1DAttrs", "1-D convolution."),
    ("conv2d", 2, _infer.infer_conv, "Conv2DAttrs", "2-D convolution."),
    (
        "conv2d_transpose",
        2,
        _infer.infer_conv2d_transpose,
        "Conv2DTransposeAttrs",
        "2-D transposed convolution.",
    ),
    ("max_pool2d", 1, _pooling.infer_pool, "Pool2DAttrs", "2-D max pooling."),
    ("avg_pool2d", 1, _pooling.infer_pool, "Pool2DAttrs", "2-D average pooling."),
    (
        "adaptive_avg_pool2d",
        1,
        _pooling.infer_adaptive_pool,
        "AdaptivePool2DAttrs",
        "2-D adaptive average pooling.",
    ),
    ("layer_norm", 3, _infer.infer_layer_norm, "LayerNormAttrs", "Layer normalization."),
    ("group_norm", 3, _infer.infer_group_norm, "GroupNormAttrs", "Group normalization."),
    ("rms_norm", 2, _infer.infer_rms_norm, "RMSNormAttrs", "RMS normalization."),
    ("batch_norm", 5, _infer.infer_batch_norm, "BatchNormAttrs", "Batch normalization."),
    ("dropout", 1, _infer.infer_dropout, "DropoutAttrs", "Dropout (output and mask)."),
    (
        "attention",
        4,
        _infer.infer_attention,
        "AttentionAttrs",
        "Scaled dot-product attention on (batch, seq, heads, dim) tensors.",
    ),
    ("pad", 1, _infer.infer_pad, "PadAttrs", "Pad a tensor."),
)

_OPS = register_op_table("nn.", "nn", NN_OPS)


_int_values = int_values
_ints = ints
_padding = padding_values
_dtype = dtype_arg


def relu(data) -> Call:
    """``R.nn.relu(data)``: ``max(data, 0)``."""
    return Call(_OPS["relu"], [data])


def leakyrelu(data, alpha=0.01) -> Call:
    """``R.nn.leakyrelu(data, alpha=0.01)``: ``x`` if ``x > 0`` else ``alpha * x``."""
    return Call(_OPS["leakyrelu"], [data], LeakyReluAttrs(float(alpha)))


def prelu(data, alpha, axis=1) -> Call:
    """``R.nn.prelu(data, alpha, axis=1)``: ``x`` if ``x > 0`` else ``alpha[c] * x``, with ``c``
    the index along ``axis`` (``alpha`` is 1-D: one slope per channel, or one for all)."""
    return Call(_OPS["prelu"], [data, alpha], PReluAttrs(int(axis)))


def gelu(data) -> Call:
    """``R.nn.gelu(data)``: ``x * Phi(x)`` with the Gauss error function."""
    return Call(_OPS["gelu"], [data])


def gelu_tanh(data) -> Call:
    """``R.nn.gelu_tanh(data)``: GELU with the tanh approximation."""
    return Call(_OPS["gelu_tanh"], [data])


def silu(data) -> Call:
    """``R.nn.silu(data)``: ``x * sigmoid(x)``."""
    return Call(_OPS["silu"], [data])


def softplus(data, beta=1.0, threshold=20.0) -> Call:
    """``R.nn.softplus(data, beta=1.0, threshold=20.0)``: linear where ``beta * x > threshold``."""
    return Call(_OPS["softplus"], [data], SoftplusAttrs(float(beta), float(threshold)))


def softmax(data, axis=-1) -> Call:
    """``R.nn.softmax(data, axis=-1)``."""
    return Call(_OPS["softmax"], [data], SoftmaxAttrs(int(axis)))


def log_softmax(data, axis=-1) -> Call:
    """``R.nn.log_softmax(data, axis=-1)``."""
    return Call(_OPS["log_softmax"], [data], SoftmaxAttrs(int(axis)))


def cross_entropy_with_logits(predictions, labels) -> Call:
    """``R.nn.cross_entropy_with_logits(predictions, labels)``: ``-sum(p * l) / batch``.

    The sum is divided by the batch size (dim 0) when the inputs are 2-D.
    """
    return Call(_OPS["cross_entropy_with_logits"], [predictions, labels])


def nll_loss(predictions, targets, weights=None, reduction="mean", ignore_index=-100) -> Call:
    """``R.nn.nll_loss(predictions, targets, weights=None, reduction="mean", ignore_index=-100)``.

    ``predictions`` are log-probabilities ``(N, C, d1, ...)`` or ``(C,)``; ``targets`` are
    class indices ``(N, d1, ...)`` or ``()``.
    """
    args = [predictions, targets] + ([weights] if weights is not None else [])
    return Call(_OPS["nll_loss"], args, NLLLossAttrs(str(reduction), int(ignore_index)))


def conv1d(
    data,
    weight,
    strides=1,
    padding=0,
    dilation=1,
    groups=1,
    data_layout="NCW",
    kernel_layout="OIW",
    out_layout=None,
    out_dtype=None,
) -> Call:
    """``R.nn.conv1d(data, weight, strides=1, padding=0, dilation=1, groups=1, ...)``."""
    name = "conv1d"
    attrs = Conv1DAttrs(
        _ints(strides, 1, "strides", name),
        _padding(padding, 1, name),
        _ints(dilation, 1, "dilation", name),
        int(groups),
        data_layout,
        kernel_layout,
        out_layout or data_layout,
        _dtype(out_dtype),
    )
    return Call(_OPS["conv1d"], [data, weight], attrs)


def conv2d(
    data,
    weight,
    strides=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    groups=1,
    data_layout="NCHW",
    kernel_layout="OIHW",
    out_layout=None,
    out_dtype=None,
) -> Call:
    """``R.nn.conv2d(data, weight, strides=(1, 1), padding=(0, 0), dilation=(1, 1), ...)``.

    Parameters
    ----------
    data, weight : Expr
        Tensors in ``data_layout`` (default NCHW) and ``kernel_layout`` (default OIHW); any
        permutation of those letters is accepted.
    strides, dilation : int or tuple of 2 ints
    padding : int or tuple of 1, 2 (vertical, horizontal) or 4 (top, left, bottom, right) ints
    groups : int
        The data channels must equal ``I * groups`` and ``O`` must divide by ``groups``.
    out_layout : str, optional
        The output layout (``data_layout`` when None).
    out_dtype : str, optional
        The output dtype (the input dtype when None).

    Returns
    -------
    Call
        Output ``(N, O, (H + pads - dilation * (kh - 1) - 1) // stride + 1, ...)``.

    Examples
    --------
    >>> from tvm import relax
    >>> x = relax.Var("x", relax.TensorType([1, 3, 8, 8], "float32"))
    >>> w = relax.Var("w", relax.TensorType([4, 3, 3, 3], "float32"))
    >>> call = relax.op.nn.conv2d(x, w, strides=2, padding=1)
    >>> print(relax.BlockBuilder().normalize(call).ty)
    R.Tensor((1, 4, 4, 4), dtype="float32")
    """
    name = "conv2d"
    attrs = Conv2DAttrs(
        _ints(strides, 2, "strides", name),
        _padding(padding, 2, name),
        _ints(dilation, 2, "dilation", name),
        int(groups),
        data_layout,
        kernel_layout,
        out_layout or data_layout,
        _dtype(out_dtype),
    )
    return Call(_OPS["conv2d"], [data, weight], attrs)


def conv2d_transpose(
    data,
    weight,
    strides=(1, 1),
    padding=(0, 0),
    output_padding=(0, 0),
    dilation=(1, 1),
    groups=1,
    data_layout="NCHW",
    kernel_layout="IOHW",
    out_layout=None,
    out_dtype=None,
) -> Call:
    """``R.nn.conv2d_transpose(data, weight, ...)``: the gradient of conv2d w.r.t. its data."""
    name = "conv2d_transpose"
    attrs = Conv2DTransposeAttrs(
        _ints(strides, 2, "strides", name),
        _padding(padding, 2, name),
        _ints(output_padding, 2, "output_padding", name),
        _ints(dilation, 2, "dilation", name),
        int(groups),
        data_layout,
        kernel_layout,
        out_layout or data_layout,
        _dtype(out_dtype),
    )
    return Call(_OPS["conv2d_transpose"], [data, weight], attrs)


def pool2d_attrs(
    name, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout
):
    """Normalized ``Pool2DAttrs`` (shared with the pooling backward ops)."""
    return Pool2DAttrs(
        _ints(pool_size, 2, "pool_size", name),
        _ints(strides, 2, "strides", name),
        _ints(dilation, 2, "dilation", name),
        _padding(padding, 2, name),
        bool(ceil_mode),
        bool(count_include_pad),
        layout,
        out_layout or layout,
    )


def max_pool2d(
    data,
    pool_size=(1, 1),
    strides=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    ceil_mode=False,
    count_include_pad=False,
    layout="NCHW",
    out_layout=None,
) -> Call:
    """``R.nn.max_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), ...)``.

    Parameters
    ----------
    data : Expr
        A 4-D tensor in ``layout`` (default NCHW).
    pool_size, strides, dilation : int or tuple of 2 ints
    padding : int or tuple of 1, 2 or 4 ints
        Padded positions never win the maximum.
    ceil_mode : bool
        Round the output size up (a last, partial window).
    count_include_pad : bool
        Unused by max pooling (kept for TVM's signature and printed form).
    layout, out_layout : str
    """
    attrs = pool2d_attrs(
        "max_pool2d",
        pool_size,
        strides,
        padding,
        dilation,
        ceil_mode,
        count_include_pad,
        layout,
        out_layout,
    )
    return Call(_OPS["max_pool2d"], [data], attrs)


def avg_pool2d(
    data,
    pool_size=(1, 1),
    strides=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    ceil_mode=False,
    count_include_pad=False,
    layout="NCHW",
    out_layout=None,
) -> Call:
    """``R.nn.avg_pool2d(...)``; padding is excluded from the average unless
    ``count_include_pad``."""
    attrs = pool2d_attrs(
        "avg_pool2d",
        pool_size,
        strides,
        padding,
        dilation,
        ceil_mode,
        count_include_pad,
        layout,
        out_layout,
    )
    return Call(_OPS["avg_pool2d"], [data], attrs)


def adaptive_avg_pool2d(data, output_size=None, layout="NCHW", out_layout=None) -> Call:
    """``R.nn.adaptive_avg_pool2d(data, output_size=None, layout="NCHW", out_layout=None)``."""
    if output_size is not None:
        output_size = _ints(output_size, 2, "output_size", "adaptive_avg_pool2d")
    attrs = AdaptivePool2DAttrs(output_size, layout, out_layout or layout)
    return Call(_OPS["adaptive_avg_pool2d"], [data], attrs)


def _axes(axes):
    return [int(axes)] if isinstance(axes, int) else [int(a) for a in axes]


def layer_norm(data, gamma, beta, axes, epsilon=1e-5, center=True, scale=True) -> Call:
    """``R.nn.layer_norm(data, gamma, beta, axes, epsilon=1e-5, center=True, scale=True)``.

    ``(data - mean) / sqrt(var + epsilon) * gamma + beta`` with the mean and (population)
    variance over ``axes``; ``gamma``/``beta`` have the shape of those axes and are skipped
    when ``scale``/``center`` are False.
    """
    attrs = LayerNormAttrs(_axes(axes), float(epsilon), bool(center), bool(scale))
    return Call(_OPS["layer_norm"], [data, gamma, beta], attrs)


def group_norm(
    data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5, center=True, scale=True
) -> Call:
    """``R.nn.group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5, ...)``."""
    attrs = GroupNormAttrs(
        int(num_groups), int(channel_axis), _axes(axes), float(epsilon), bool(center), bool(scale)
    )
    return Call(_OPS["group_norm"], [data, gamma, beta], attrs)


def rms_norm(data, weight, axes=-1, epsilon=1e-5) -> Call:
    """``R.nn.rms_norm(data, weight, axes=-1, epsilon=1e-5)``."""
    return Call(_OPS["rms_norm"], [data, weight], RMSNormAttrs(_axes(axes), float(epsilon)))


def batch_norm(
    data,
    gamma,
    beta,
    moving_mean,
    moving_var,
    axis,
    epsilon=1e-5,
    center=True,
    scale=True,
    momentum=0.1,
    training=True,
) -> Call:
    """``R.nn.batch_norm(...)``: a tuple ``(output, new moving mean, new moving var)``.

    With ``training`` the batch statistics normalize the data and update the moving ones
    (``new = (1 - momentum) * moving + momentum * batch``); otherwise the moving statistics
    normalize and are returned unchanged.
    """
    attrs = BatchNormAttrs(
        int(axis), float(epsilon), bool(center), bool(scale), float(momentum), bool(training)
    )
    return Call(_OPS["batch_norm"], [data, gamma, beta, moving_mean, moving_var], attrs)


def dropout(data, rate=0.5) -> Call:
    """``R.nn.dropout(data, rate=0.5)``: a tuple ``(output, mask)``.

    The reference evaluator runs dropout in inference mode (output = data, mask of ones):
    random masks are not reproducible, so no NumPy reference can check them.
    """
    return Call(_OPS["dropout"], [data], DropoutAttrs(float(rate)))


def attention(query, key, value, bias=None, scale=None, causal_mask=None, window_size=None) -> Call:
    """``R.nn.attention(query, key, value, bias=None, scale=None, causal_mask=None, ...)``.

    Tensors are ``(batch, seq, heads, head_dim)``; ``causal_mask`` is None, ``"TopLeft"`` or
    ``"BottomRight"``; key/value may have fewer heads than query (grouped-query attention:
    query head ``h`` uses key/value head ``h % kv_heads``, as in TVM).
    """
    scale = None if scale is None else float(getattr(scale, "value", scale))
    args = [query, key, value] + ([bias] if bias is not None else [])
    attrs = AttentionAttrs(scale, causal_mask, None if window_size is None else int(window_size))
    return Call(_OPS["attention"], args, attrs)


def pad(data, pad_width, pad_mode="constant", pad_value=0.0) -> Call:
    """``R.nn.pad(data, pad_width, pad_mode="constant", pad_value=0.0)``.

    ``pad_width`` lists (before, after) for every dim, flattened; modes: constant, edge,
    reflect.
    """
    widths = [int(getattr(v, "value", v)) for v in pad_width]
    attrs = PadAttrs(widths, float(pad_value), str(pad_mode or "constant"))
    return Call(_OPS["pad"], [data], attrs)


from . import (
    pooling_reference,  # noqa: F401 - registers FReference
    reference,  # noqa: F401 - registers FReference after the ops exist
)
from .conv_transpose import conv1d_transpose, conv3d_transpose
from .pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool3d,
    avg_pool1d,
    avg_pool3d,
    max_pool1d,
    max_pool3d,
)
