"""``FPrimalGradient`` rules of the neural-network family (``relax.nn.*``).

relu ... avg_pool2d follow Apache TVM 0.27 exactly; leakyrelu, gelu, gelu_tanh, softplus, pad,
layer_norm and rms_norm go beyond its list.
"""

from __future__ import annotations

import math

import numpy as np

from ...expr import TupleGetItem, const
from ..binary import add, divide, greater, less, multiply, subtract
from ..grad import avg_pool2d_backward, max_pool2d_backward, nll_loss_backward, no_grad
from ..grad.grad import no_grad_all, register_gradient, scalar, shape_of, static_dims
from ..index import strided_slice
from ..manipulate import (
    collapse_sum_to,
    concat,
    expand_dims,
    flip,
    permute_dims,
    reshape,
    split,
    squeeze,
)
from ..nn import avg_pool2d, conv2d, conv2d_transpose, max_pool2d, softmax
from ..nn import pad as nn_pad
from ..statistical import mean, sum
from ..ternary import where
from ..unary import erf, exp, negative, sigmoid, sqrt, tanh


@register_gradient("relax.nn.relu")
def _relu_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    zero = scalar(0.0, x)
    return [where(less(x, zero), zero, output_grad)]


@register_gradient("relax.nn.silu")
def _silu_grad(orig_var, orig_call, output_grad, ctx):
    # y = x * s(x): dy/dx = s + y * (1 - s)
    x = orig_call.args[0]
    sig = ctx.emit(sigmoid(x))
    slope = add(sig, multiply(orig_var, subtract(scalar(1.0, x), sig)))
    return [multiply(output_grad, slope)]


@register_gradient("relax.nn.softmax")
def _softmax_grad(orig_var, orig_call, output_grad, ctx):
    axis = int(orig_call.attrs.axis)
    inner = sum(multiply(output_grad, orig_var), [axis], keepdims=True)
    return [multiply(subtract(output_grad, inner), orig_var)]


@register_gradient("relax.nn.log_softmax")
def _log_softmax_grad(orig_var, orig_call, output_grad, ctx):
    axis = int(orig_call.attrs.axis)
    total = sum(output_grad, [axis], keepdims=True)
    return [subtract(output_grad, multiply(total, exp(orig_var)))]


@register_gradient("relax.nn.cross_entropy_with_logits")
def _cross_entropy_grad(orig_var, orig_call, output_grad, ctx):
    # loss = -sum(p * l) (/ batch when batched)
    predictions, labels = orig_call.args
    grad = output_grad
    if predictions.ty.ndim == 2:
        batch = shape_of(predictions).values[0]
        batch = float(getattr(batch, "value", batch))
        grad = ctx.emit(divide(grad, const(batch, predictions.ty.dtype)))
    return [multiply(negative(grad), labels), multiply(negative(grad), predictions)]


@register_gradient("relax.nn.nll_loss")
def _nll_loss_grad(orig_var, orig_call, output_grad, ctx):
    predictions, targets, *weights = orig_call.args
    attrs = orig_call.attrs
    grads = no_grad_all(orig_call)
    grads[0] = nll_loss_backward(
        output_grad,
        predictions,
        targets,
        weights[0] if weights else None,
        attrs.reduction,
        attrs.ignore_index,
    )
    return grads


def _pair(values):
    return [int(getattr(v, "value", v)) for v in values]


def _check_conv(attrs, name, layouts, grouped=False):
    if (attrs.data_layout, attrs.kernel_layout, attrs.out_layout) != layouts:
        raise ValueError(
            f"the {name} gradient supports the {'/'.join(layouts)} layouts only, got "
            f"{attrs.data_layout}/{attrs.kernel_layout}/{attrs.out_layout}"
        )
    if int(attrs.groups) != 1 and not grouped:
        raise ValueError(f"the {name} gradient supports groups=1 only, got groups={attrs.groups}")


def _conv2d_grads(ctx, data, weight, output_grad, strides, padding, dilation, out_dtype, groups=1):
    """``(data_grad, weight_grad)`` of an NCHW/OIHW conv2d (the expressions of TVM 0.27 for
    groups=1; grouped convolutions take the weight gradient group by group)."""
    in_dims, w_dims, g_dims = static_dims(data), static_dims(weight), static_dims(output_grad)
    if None in (in_dims, w_dims, g_dims):
        raise ValueError("the conv2d gradient is supported for static shapes only")
    top, left, bottom, right = padding
    # The transposed convolution reproduces the input size up to this remainder.
    out_padding = []
    for k, (size, pad_sum) in enumerate(zip(in_dims[2:], (top + bottom, left + right))):
        covered = (g_dims[2 + k] - 1) * strides[k] - pad_sum + (w_dims[2 + k] - 1) * dilation[k]
        out_padding.append(size - covered - 1)
    data_grad = conv2d_transpose(
        output_grad, weight, strides, list(padding), out_padding, dilation, groups,
        "NCHW", "IOHW", "NCHW", out_dtype,
    )  # fmt: skip

    # The weight gradient correlates the input with the output gradient (strides and dilation
    # swap roles), computed in the CNHW/IOHW layouts so batch acts as the reduction axis.
    def weight_grad_of(part_data, part_grad, dims):
        grad = conv2d(
            part_data, part_grad, dilation, list(padding), strides, 1, "CNHW", "IOHW", "CNHW",
            out_dtype,
        )  # fmt: skip
        return _crop(ctx, grad, dims)

    return data_grad, _per_group(ctx, weight_grad_of, data, output_grad, groups, w_dims)


def _per_group(ctx, weight_grad_of, first, second, groups, w_dims):
    """``weight_grad_of(first, second, w_dims)``; with groups, group by group (channel axis 1
    of both split in ``groups``) and the pieces concatenated along the weight's axis 0."""
    if groups == 1:
        return weight_grad_of(first, second, w_dims)
    first_parts = ctx.emit(split(first, groups, 1))
    second_parts = ctx.emit(split(second, groups, 1))
    dims = [w_dims[0] // groups, *w_dims[1:]]
    pieces = [
        weight_grad_of(TupleGetItem(first_parts, i), TupleGetItem(second_parts, i), dims)
        for i in range(groups)
    ]
    return concat(pieces, 0)


def _crop(ctx, expr, dims):
    """``expr`` cut to ``dims`` when the computed window came out larger."""
    normalized = ctx.normalize(expr)
    if static_dims(normalized) == dims:
        return expr
    return strided_slice(normalized, list(range(len(dims))), [0] * len(dims), list(dims),
                         assume_inbound=False)  # fmt: skip


@register_gradient("relax.nn.conv2d")
def _conv2d_grad(orig_var, orig_call, output_grad, ctx):
    data, weight = orig_call.args
    attrs = orig_call.attrs
    layouts = (str(attrs.data_layout), str(attrs.kernel_layout), str(attrs.out_layout))
    default = ("NCHW", "OIHW", "NCHW")
    if layouts != default:
        # Other orders of the same axes (e.g. NHWC/HWIO): transpose into NCHW/OIHW, take the
        # gradients there, and transpose them back.
        if any(sorted(have) != sorted(want) for have, want in zip(layouts, default)):
            raise ValueError(
                "the conv2d gradient supports permutations of the NCHW/OIHW layouts only, got "
                f"{'/'.join(layouts)}"
            )

        def to_default(expr, have, want):
            return ctx.normalize(permute_dims(expr, [have.index(c) for c in want]))

        data_grad, weight_grad = _conv2d_grads(
            ctx, to_default(data, layouts[0], "NCHW"), to_default(weight, layouts[1], "OIHW"),
            to_default(output_grad, layouts[2], "NCHW"), _pair(attrs.strides),
            _pair(attrs.padding), _pair(attrs.dilation), attrs.out_dtype, int(attrs.groups),
        )  # fmt: skip
        return [
            permute_dims(data_grad, ["NCHW".index(c) for c in layouts[0]]),
            permute_dims(weight_grad, ["OIHW".index(c) for c in layouts[1]]),
        ]
    grads = _conv2d_grads(
        ctx, data, weight, output_grad, _pair(attrs.strides), _pair(attrs.padding),
        _pair(attrs.dilation), attrs.out_dtype, int(attrs.groups),
    )  # fmt: skip
    return list(grads)


@register_gradient("relax.nn.conv1d")
def _conv1d_grad(orig_var, orig_call, output_grad, ctx):
    # conv1d is conv2d with a unit height: expand, take the conv2d gradients, squeeze.
    data, weight = orig_call.args
    attrs = orig_call.attrs
    _check_conv(attrs, "conv1d", ("NCW", "OIW", "NCW"), grouped=True)
    (stride,), (dilation,) = _pair(attrs.strides), _pair(attrs.dilation)
    left, right = _pair(attrs.padding)

    def lift(expr):
        return ctx.normalize(expand_dims(expr, [2]))

    data_grad, weight_grad = _conv2d_grads(
        ctx, lift(data), lift(weight), lift(output_grad), [1, stride], [0, left, 0, right],
        [1, dilation], attrs.out_dtype, int(attrs.groups),
    )  # fmt: skip
    return [squeeze(data_grad, [2]), squeeze(weight_grad, [2])]


@register_gradient("relax.nn.conv2d_transpose")
def _conv2d_transpose_grad(orig_var, orig_call, output_grad, ctx):
    # conv2d_transpose(x, w) is the adjoint of conv2d(., w) (w read as OIHW), so the data
    # gradient is that conv2d, and the weight gradient is conv2d's weight gradient with the
    # roles of input and output swapped.
    data, weight = orig_call.args
    attrs = orig_call.attrs
    _check_conv(attrs, "conv2d_transpose", ("NCHW", "IOHW", "NCHW"), grouped=True)
    groups = int(attrs.groups)
    w_dims = static_dims(weight)
    strides, padding, dilation = (
        _pair(attrs.strides), _pair(attrs.padding), _pair(attrs.dilation)
    )  # fmt: skip
    data_grad = conv2d(
        output_grad, weight, strides, padding, dilation, groups, "NCHW", "OIHW", "NCHW",
        attrs.out_dtype,
    )  # fmt: skip

    def weight_grad_of(part_grad, part_data, dims):
        grad = conv2d(
            part_grad, part_data, dilation, padding, strides, 1, "CNHW", "IOHW", "CNHW",
            attrs.out_dtype,
        )  # fmt: skip
        return _crop(ctx, grad, dims)

    # Group by group: input channels i*C/G.. pair with output channels i*O/G...
    return [data_grad, _per_group(ctx, weight_grad_of, output_grad, data, groups, w_dims)]


def _pool_backward(backward):
    def rule(orig_var, orig_call, output_grad, ctx):
        attrs = orig_call.attrs
        return [
            backward(
                output_grad,
                orig_call.args[0],
                attrs.pool_size,
                attrs.strides,
                attrs.padding,
                attrs.dilation,
                attrs.ceil_mode,
                attrs.count_include_pad,
                attrs.layout,
                attrs.out_layout,
            )
        ]

    return rule


register_gradient("relax.nn.max_pool2d", _pool_backward(max_pool2d_backward))
register_gradient("relax.nn.avg_pool2d", _pool_backward(avg_pool2d_backward))


def _as_2d(orig_call, what):
    """A 1-D pool's layout seen as 2-D: ``(axis of W, 2-D layout)`` with an ``H`` of extent 1."""
    attrs = orig_call.attrs
    layout, out_layout = str(attrs.layout), str(attrs.out_layout)
    if layout != out_layout or sorted(layout) != sorted("NCW"):
        raise ValueError(
            f"the {what} gradient is supported for the plain layouts NCW and NWC (same in and "
            f"out) only, got layout={layout!r}, out_layout={out_layout!r}"
        )
    axis = layout.index("W")
    return axis, layout[:axis] + "H" + layout[axis:]


def _pool1d_backward(backward, what):
    # A 1-D pool is the 2-D pool of the tensor with an extent-1 H axis before W.
    def rule(orig_var, orig_call, output_grad, ctx):
        attrs = orig_call.attrs
        axis, layout2 = _as_2d(orig_call, what)
        before, after = (int(p) for p in attrs.padding)
        grad = backward(
            expand_dims(output_grad, axis),
            expand_dims(orig_call.args[0], axis),
            (1, int(attrs.pool_size[0])),
            (1, int(attrs.strides[0])),
            (0, before, 0, after),
            (1, int(attrs.dilation[0])),
            attrs.ceil_mode,
            attrs.count_include_pad,
            layout2,
            layout2,
        )
        return [squeeze(grad, [axis])]

    return rule


register_gradient("relax.nn.max_pool1d", _pool1d_backward(max_pool2d_backward, "max_pool1d"))
register_gradient("relax.nn.avg_pool1d", _pool1d_backward(avg_pool2d_backward, "avg_pool1d"))


def _pool3d_as_2d(pool2d, backward, output_grad, x, out_dims, pool, strides, padding, dilation,
                  ceil_mode, count_include_pad, what):
    """The gradient of a 3-D pool through its separable form: a 2-D pool over (H, W) of every
    depth slice, then a 2-D pool over depth (an (k, 1) window on (D, Ho * Wo)). Max and
    average are both separable (an average's valid count is the product of the per-axis
    counts), so the composition is the 3-D pool and its gradient is the 3-D gradient."""
    dims = static_dims(x)
    if dims is None or out_dims is None:
        raise ValueError(f"the {what} gradient is supported for static shapes only")
    n, c, d, h, w = dims
    _, _, do, ho, wo = out_dims
    kd, kh, kw = pool
    front, top, left, back, bottom, right = padding
    common = (ceil_mode, count_include_pad, "NCHW", "NCHW")
    hw_args = ((kh, kw), strides[1:], (top, left, bottom, right), dilation[1:], *common)
    d_args = ((kd, 1), (strides[0], 1), (front, 0, back, 0), (dilation[0], 1), *common)
    x2 = reshape(x, (n, c * d, h, w))
    stage = reshape(pool2d(x2, *hw_args), (n, c, d, ho * wo))
    grad_stage = backward(reshape(output_grad, (n, c, do, ho * wo)), stage, *d_args)
    grad_x2 = backward(reshape(grad_stage, (n, c * d, ho, wo)), x2, *hw_args)
    return reshape(grad_x2, dims)


def _pool3d_rule(pool2d, backward, what):
    def rule(orig_var, orig_call, output_grad, ctx):
        attrs = orig_call.attrs
        if str(attrs.layout) != "NCDHW" or str(attrs.out_layout) != "NCDHW":
            raise ValueError(
                f"the {what} gradient is supported for the NCDHW layout only, got "
                f"layout={attrs.layout!r}, out_layout={attrs.out_layout!r}"
            )
        ints = lambda values: [int(v) for v in values]
        return [
            _pool3d_as_2d(
                pool2d, backward, output_grad, orig_call.args[0], static_dims(orig_var),
                ints(attrs.pool_size), ints(attrs.strides), ints(attrs.padding),
                ints(attrs.dilation), bool(attrs.ceil_mode), bool(attrs.count_include_pad), what,
            )
        ]  # fmt: skip

    return rule


register_gradient("relax.nn.max_pool3d", _pool3d_rule(max_pool2d, max_pool2d_backward,
                                                      "max_pool3d"))
register_gradient("relax.nn.avg_pool3d", _pool3d_rule(avg_pool2d, avg_pool2d_backward,
                                                      "avg_pool3d"))


@register_gradient("relax.nn.adaptive_avg_pool3d")
def _adaptive_avg_pool3d_grad(orig_var, orig_call, output_grad, ctx):
    # When the output size divides the input size, the windows are a regular average pool.
    x = orig_call.args[0]
    attrs = orig_call.attrs
    if str(attrs.layout) != "NCDHW" or str(attrs.out_layout) != "NCDHW":
        raise ValueError("the adaptive_avg_pool3d gradient is supported for NCDHW only")
    in_dims, out_dims = static_dims(x), static_dims(orig_var)
    if in_dims is None or out_dims is None:
        raise ValueError("the adaptive_avg_pool3d gradient is supported for static shapes only")
    window = []
    for a, b in zip(in_dims[2:], out_dims[2:]):
        if a % b:
            raise ValueError(
                "the adaptive_avg_pool3d gradient is supported only when the output size "
                f"divides the input size, got {in_dims[2:]} -> {out_dims[2:]}"
            )
        window.append(a // b)
    return [
        _pool3d_as_2d(avg_pool2d, avg_pool2d_backward, output_grad, x, out_dims, window, window,
                      [0] * 6, [1, 1, 1], False, True, "adaptive_avg_pool3d")
    ]


# --- beyond TVM 0.27's list --------------------------------------------------------------------


@register_gradient("relax.nn.leakyrelu")
def _leakyrelu_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    alpha = scalar(float(orig_call.attrs.alpha), x)
    return [where(greater(x, scalar(0.0, x)), output_grad, multiply(alpha, output_grad))]


@register_gradient("relax.nn.gelu")
def _gelu_grad(orig_var, orig_call, output_grad, ctx):
    # y = x * Phi(x): dy/dx = Phi(x) + x * phi(x)
    x = orig_call.args[0]
    cdf = multiply(
        scalar(0.5, x), add(scalar(1.0, x), erf(multiply(x, scalar(1 / math.sqrt(2.0), x))))
    )
    pdf = multiply(
        scalar(1 / math.sqrt(2 * math.pi), x), exp(multiply(scalar(-0.5, x), multiply(x, x)))
    )
    return [multiply(output_grad, add(cdf, multiply(x, pdf)))]


@register_gradient("relax.nn.gelu_tanh")
def _gelu_tanh_grad(orig_var, orig_call, output_grad, ctx):
    # y = 0.5 x (1 + t), t = tanh(c (x + k x^3))
    x = orig_call.args[0]
    c, k = math.sqrt(2 / math.pi), 0.044715
    x2 = ctx.emit(multiply(x, x))
    t = ctx.emit(tanh(multiply(scalar(c, x), add(x, multiply(scalar(k, x), multiply(x2, x))))))
    one = scalar(1.0, x)
    dt = multiply(
        subtract(one, multiply(t, t)),
        multiply(scalar(c, x), add(one, multiply(scalar(3 * k, x), x2))),
    )
    slope = add(multiply(scalar(0.5, x), add(one, t)), multiply(multiply(scalar(0.5, x), x), dt))
    return [multiply(output_grad, slope)]


@register_gradient("relax.nn.softplus")
def _softplus_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    scaled = ctx.emit(multiply(scalar(float(orig_call.attrs.beta), x), x))
    linear = greater(scaled, scalar(float(orig_call.attrs.threshold), x))
    return [where(linear, output_grad, multiply(output_grad, sigmoid(scaled)))]


@register_gradient("relax.nn.pad")
def _pad_grad(orig_var, orig_call, output_grad, ctx):
    # Constant padding: the gradient is the interior. Edge and reflect padding copy input
    # elements into the border, so each border's gradient is folded back onto them, one axis
    # at a time.
    attrs = orig_call.attrs
    mode = str(attrs.pad_mode)
    if mode not in ("constant", "edge", "reflect"):
        raise ValueError(f"the pad gradient for pad_mode={mode!r} is not supported")
    x = orig_call.args[0]
    dims = static_dims(x)
    if dims is None:
        raise ValueError("the pad gradient is supported for static shapes only")
    widths = _pair(attrs.pad_width)
    ndim = len(dims)
    if mode == "constant":
        begin = [widths[2 * i] for i in range(ndim)]
        end = [begin[i] + dims[i] for i in range(ndim)]
        return [strided_slice(output_grad, list(range(ndim)), begin, end)]
    grad = output_grad
    for axis in range(ndim):
        before, after, size = widths[2 * axis], widths[2 * axis + 1], dims[axis]
        if before == 0 and after == 0:
            continue
        grad = ctx.emit(grad)
        grad = _fold_axis(grad, axis, before, after, size, mode)
    return [grad]


def _fold_axis(grad, axis, before, after, size, mode):
    """Fold the borders of ``grad`` along ``axis`` onto the ``size`` interior elements."""

    def cut(start, stop):
        return strided_slice(grad, [axis], [start], [stop])

    def place(value, lead, trail):
        # Zero-pad ``value`` along the axis to the interior size.
        pads = [0, 0] * axis + [lead, trail] + [0, 0] * (len(static_dims(grad)) - axis - 1)
        return nn_pad(value, pads)

    result = cut(before, before + size)
    if before:
        left = cut(0, before)
        if mode == "edge":
            result = add(result, place(sum(left, [axis], keepdims=True), 0, size - 1))
        else:  # reflect: padded index i (< before) copies input index before - i
            result = add(result, place(flip(left, axis), 1, size - 1 - before))
    if after:
        right = cut(before + size, before + size + after)
        if mode == "edge":
            result = add(result, place(sum(right, [axis], keepdims=True), size - 1, 0))
        else:  # the first right pad copies input index size - 2, going down
            result = add(result, place(flip(right, axis), size - 1 - after, 1))
    return result


def _norm_axes(call, x):
    ndim = x.ty.ndim
    axes = sorted(int(a) % ndim for a in call.attrs.axes)
    if axes != list(range(ndim - len(axes), ndim)):
        raise ValueError(
            f"the gradient of {call.op.name} supports normalizing over trailing axes only, "
            f"got axes {list(call.attrs.axes)} for a rank-{ndim} input"
        )
    return axes


def _centered_var(ctx, x, axes):
    """``x - mean(x)`` (emitted) and the variance over ``axes``, both keeping dims."""
    centered = ctx.emit(subtract(x, mean(x, axes, keepdims=True)))
    return centered, mean(multiply(centered, centered), axes, keepdims=True)


def _inv_std_xhat(ctx, centered, var, epsilon, like):
    """``1 / sqrt(var + eps)`` and the normalized input, both emitted (dtype of ``like``)."""
    inv_std = ctx.emit(divide(scalar(1.0, like), sqrt(add(var, scalar(float(epsilon), like)))))
    return inv_std, ctx.emit(multiply(centered, inv_std))


@register_gradient("relax.nn.layer_norm")
def _layer_norm_grad(orig_var, orig_call, output_grad, ctx):
    x, gamma, beta = orig_call.args
    attrs = orig_call.attrs
    axes = _norm_axes(orig_call, x)
    centered, var = _centered_var(ctx, x, axes)
    inv_std, xhat = _inv_std_xhat(ctx, centered, var, attrs.epsilon, x)
    grads = [None, no_grad(gamma), no_grad(beta)]
    dxhat = output_grad
    if attrs.scale:
        dxhat = ctx.emit(multiply(output_grad, gamma))
        grads[1] = collapse_sum_to(multiply(output_grad, xhat), shape_of(gamma))
    if attrs.center:
        grads[2] = collapse_sum_to(output_grad, shape_of(beta))
    inner = subtract(
        subtract(dxhat, mean(dxhat, axes, keepdims=True)),
        multiply(xhat, mean(multiply(dxhat, xhat), axes, keepdims=True)),
    )
    grads[0] = multiply(inv_std, inner)
    return grads


@register_gradient("relax.nn.rms_norm")
def _rms_norm_grad(orig_var, orig_call, output_grad, ctx):
    x, weight = orig_call.args
    axes = _norm_axes(orig_call, x)
    eps = scalar(float(orig_call.attrs.epsilon), x)
    inv_rms = ctx.emit(
        divide(scalar(1.0, x), sqrt(add(mean(multiply(x, x), axes, keepdims=True), eps)))
    )
    dxhat = ctx.emit(multiply(output_grad, weight))
    proj = mean(multiply(dxhat, x), axes, keepdims=True)
    dx = multiply(inv_rms, subtract(dxhat, multiply(multiply(x, proj), multiply(inv_rms, inv_rms))))
    dw = collapse_sum_to(multiply(output_grad, multiply(x, inv_rms)), shape_of(weight))
    return [dx, dw]


@register_gradient("relax.nn.dropout")
def _dropout_grad(orig_var, orig_call, output_grad, ctx):
    # Outputs: (output, mask). This project's dropout keeps every element in every backend
    # (inference mode: output = data, mask of ones; docs/arch/relax_ops.md), so the output's
    # gradient passes through unchanged and the constant mask contributes nothing.
    return [TupleGetItem(output_grad, 0)]


@register_gradient("relax.nn.batch_norm")
def _batch_norm_grad(orig_var, orig_call, output_grad, ctx):
    # Outputs: (normalized, new running mean, new running var). In training the batch statistics
    # normalize and the running statistics move by momentum m towards them; in evaluation the
    # running statistics normalize and pass through unchanged.
    x, gamma, beta, moving_mean, moving_var = orig_call.args
    attrs = orig_call.attrs
    dims = static_dims(x)
    if dims is None:
        raise ValueError("the batch_norm gradient is supported for static shapes only")
    axis = int(attrs.axis) % len(dims)
    reduce = [i for i in range(len(dims)) if i != axis]
    count = 1
    for i in reduce:
        count *= dims[i]
    channel_shape = [dims[axis] if i == axis else 1 for i in range(len(dims))]

    def per_channel(value):
        return reshape(value, channel_shape)

    g = ctx.emit(TupleGetItem(output_grad, 0))
    g_mean, g_var = TupleGetItem(output_grad, 1), TupleGetItem(output_grad, 2)
    momentum = float(attrs.momentum)
    if attrs.training:
        centered, var = _centered_var(ctx, x, reduce)
    else:
        centered = ctx.emit(subtract(x, per_channel(moving_mean)))
        var = per_channel(moving_var)
    inv_std, xhat = _inv_std_xhat(ctx, centered, var, attrs.epsilon, x)
    dxhat = ctx.emit(multiply(g, per_channel(gamma))) if attrs.scale else g
    grads = [None, no_grad(gamma), no_grad(beta), None, None]
    if attrs.scale:
        grads[1] = sum(multiply(g, xhat), reduce)
    if attrs.center:
        grads[2] = sum(g, reduce)
    if attrs.training:
        inner = subtract(
            subtract(dxhat, mean(dxhat, reduce, keepdims=True)),
            multiply(xhat, mean(multiply(dxhat, xhat), reduce, keepdims=True)),
        )
        stats = add(
            multiply(scalar(momentum / count, x), per_channel(g_mean)),
            multiply(multiply(scalar(2 * momentum / count, x), centered), per_channel(g_var)),
        )
        grads[0] = add(multiply(inv_std, inner), stats)
        grads[3] = multiply(scalar(1.0 - momentum, x), g_mean)
        grads[4] = multiply(scalar(1.0 - momentum, x), g_var)
    else:
        grads[0] = multiply(dxhat, inv_std)
        grads[3] = subtract(g_mean, sum(multiply(dxhat, inv_std), reduce))
        cube = multiply(multiply(inv_std, inv_std), inv_std)
        slope = multiply(multiply(dxhat, centered), multiply(scalar(-0.5, x), cube))
        grads[4] = add(g_var, sum(slope, reduce))
    return grads


@register_gradient("relax.nn.adaptive_avg_pool2d")
def _adaptive_avg_pool2d_grad(orig_var, orig_call, output_grad, ctx):
    # When the output size divides the input size, the adaptive windows are a regular
    # average pool (window = stride = input / output).
    x = orig_call.args[0]
    attrs = orig_call.attrs
    layout = attrs.layout
    in_dims, out_dims = static_dims(x), static_dims(orig_var)
    if in_dims is None or out_dims is None:
        raise ValueError("the adaptive_avg_pool2d gradient is supported for static shapes only")
    spatial = [layout.index("H"), layout.index("W")]
    window = []
    for axis in spatial:
        if in_dims[axis] % out_dims[axis]:
            raise ValueError(
                "the adaptive_avg_pool2d gradient is supported only when the output size "
                f"divides the input size, got {in_dims[axis]} -> {out_dims[axis]}"
            )
        window.append(in_dims[axis] // out_dims[axis])
    return [
        avg_pool2d_backward(
            output_grad, x, window, window, [0, 0, 0, 0], [1, 1], False, False, layout,
            attrs.out_layout,
        )
    ]  # fmt: skip


@register_gradient("relax.nn.adaptive_avg_pool1d")
def _adaptive_avg_pool1d_grad(orig_var, orig_call, output_grad, ctx):
    # As the 2-D rule, on the tensor with an extent-1 H axis before W.
    x = orig_call.args[0]
    axis, layout2 = _as_2d(orig_call, "adaptive_avg_pool1d")
    in_dims, out_dims = static_dims(x), static_dims(orig_var)
    if in_dims is None or out_dims is None:
        raise ValueError("the adaptive_avg_pool1d gradient is supported for static shapes only")
    if in_dims[axis] % out_dims[axis]:
        raise ValueError(
            "the adaptive_avg_pool1d gradient is supported only when the output size divides "
            f"the input size, got {in_dims[axis]} -> {out_dims[axis]}"
        )
    window = [1, in_dims[axis] // out_dims[axis]]
    grad = avg_pool2d_backward(
        expand_dims(output_grad, axis), expand_dims(x, axis), window, window, [0, 0, 0, 0],
        [1, 1], False, False, layout2, layout2,
    )  # fmt: skip
    return [squeeze(grad, [axis])]


@register_gradient("relax.nn.group_norm")
def _group_norm_grad(orig_var, orig_call, output_grad, ctx):
    # Split the channel axis into (groups, channels per group) and apply the layer-norm
    # gradient over each group's channels and the normalized axes.
    x, gamma, beta = orig_call.args
    attrs = orig_call.attrs
    dims = static_dims(x)
    if dims is None:
        raise ValueError("the group_norm gradient is supported for static shapes only")
    ndim = len(dims)
    ch = int(attrs.channel_axis) % ndim
    groups = int(attrs.num_groups)
    grouped = dims[:ch] + [groups, dims[ch] // groups] + dims[ch + 1 :]
    axes = [ch + 1] + [int(a) % ndim + (1 if int(a) % ndim > ch else 0) for a in attrs.axes]
    others = [i for i in range(ndim) if i != ch]
    channel_shape = [dims[ch] if i == ch else 1 for i in range(ndim)]

    xg = reshape(x, grouped)
    centered, var = _centered_var(ctx, xg, axes)
    inv_std, xhat_g = _inv_std_xhat(ctx, centered, var, attrs.epsilon, x)
    grads = [None, no_grad(gamma), no_grad(beta)]
    dxhat = output_grad
    if attrs.scale:
        dxhat = multiply(output_grad, reshape(gamma, channel_shape))
        grads[1] = sum(multiply(output_grad, reshape(xhat_g, dims)), others)
    if attrs.center:
        grads[2] = sum(output_grad, others)
    dxhat_g = ctx.emit(reshape(dxhat, grouped))
    inner = subtract(
        subtract(dxhat_g, mean(dxhat_g, axes, keepdims=True)),
        multiply(xhat_g, mean(multiply(dxhat_g, xhat_g), axes, keepdims=True)),
    )
    grads[0] = reshape(multiply(inv_std, inner), dims)
    return grads


@register_gradient("relax.nn.attention")
def _attention_grad(orig_var, orig_call, output_grad, ctx):
    # out = softmax(q k^T * scale + bias, masked) v, per batch and head ((batch, seq, head, dim)
    # tensors; causal and sliding-window masks). The probabilities are recomputed, then the usual softmax/matmul gradients.
    from ..linear_algebra import einsum
    from ..manipulate import tile

    query, key, value, *bias = orig_call.args
    attrs = orig_call.attrs
    q_dims, k_dims = static_dims(query), static_dims(key)
    if q_dims is None or k_dims is None:
        raise ValueError("the attention gradient is supported for static shapes only")
    heads, kv_heads = q_dims[2], k_dims[2]
    reps = heads // kv_heads
    key_t = tile(key, [1, 1, reps, 1]) if reps != 1 else key
    value_t = tile(value, [1, 1, reps, 1]) if reps != 1 else value
    scale = attrs.scale if attrs.scale is not None else 1 / math.sqrt(q_dims[3])
    scale = scalar(float(scale), query)
    scores = multiply(einsum([query, key_t], "bsnh,btnh->bnst"), scale)
    if bias:
        scores = add(scores, bias[0])
    if attrs.causal_mask is not None:
        s, t = q_dims[1], k_dims[1]
        offset = 0 if attrs.causal_mask == "TopLeft" else t - s
        hidden = np.arange(t)[None, :] > np.arange(s)[:, None] + offset
        if attrs.window_size is not None:
            # Sliding window: each query also stops seeing keys ``window_size`` or more
            # positions before its diagonal (the mask of the forward op).
            window = int(attrs.window_size)
            hidden |= np.arange(t)[None, :] < np.arange(s)[:, None] + offset - (window - 1)
        scores = where(const(hidden, "bool"), scalar(-np.inf, query), scores)
    probs = ctx.emit(softmax(scores, -1))
    d_probs = einsum([output_grad, value_t], "bsnh,btnh->bnst")
    d_scores = ctx.emit(
        multiply(probs, subtract(d_probs, sum(multiply(d_probs, probs), [-1], keepdims=True)))
    )
    d_query = multiply(einsum([d_scores, key_t], "bnst,btnh->bsnh"), scale)
    d_key = multiply(einsum([d_scores, query], "bnst,bsnh->btnh"), scale)
    d_value = einsum([probs, output_grad], "bnst,bsnh->btnh")
    if reps != 1:
        # Key/value heads were tiled: each original head collects the gradient of its copies.
        split_shape = [k_dims[0], k_dims[1], reps, kv_heads, k_dims[3]]
        d_key = sum(reshape(d_key, split_shape), [2])
        d_value = sum(reshape(d_value, split_shape[:4] + [static_dims(value)[3]]), [2])
    grads = [d_query, d_key, d_value]
    if bias:
        grads.append(collapse_sum_to(d_scores, shape_of(bias[0])))
    return grads


@register_gradient("relax.nn.relu6")
def _relu6_grad(orig_var, orig_call, output_grad, ctx):
    # d/dx clip(x, 0, 6): 1 strictly inside (0, 6), 0 outside.
    x = orig_call.args[0]
    zero = scalar(0.0, x)
    inside = where(less(x, zero), zero, output_grad)
    return [where(greater(x, scalar(6.0, x)), zero, inside)]


@register_gradient("relax.nn.batch_flatten")
def _batch_flatten_grad(orig_var, orig_call, output_grad, ctx):
    return [reshape(output_grad, shape_of(orig_call.args[0]))]


@register_gradient("relax.nn.prelu")
def _prelu_grad(orig_var, orig_call, output_grad, ctx):
    # y = x if x > 0 else a[c] * x: dy/dx = 1 or a[c]; dy/da[c] = sum of x where x <= 0.
    x, alpha = orig_call.args
    ndim = x.ty.ndim
    if ndim < 0:
        raise ValueError("the gradient of R.nn.prelu is not supported yet for an input of unknown "
                         "rank: the slope is reshaped along its axis")
    axis = int(orig_call.attrs.axis) % ndim
    slope_shape = [1] * ndim
    slope_shape[axis] = -1
    slope = reshape(alpha, slope_shape)
    positive = greater(x, scalar(0.0, x))
    dx = where(positive, output_grad, multiply(output_grad, slope))
    per_element = where(positive, scalar(0.0, x), multiply(output_grad, x))
    alpha_dims = static_dims(alpha)
    if alpha_dims is not None and alpha_dims == [1]:
        dalpha = reshape(sum(per_element), [1])
    else:
        dalpha = sum(per_element, axis=[i for i in range(ndim) if i != axis])
    return [dx, dalpha]
