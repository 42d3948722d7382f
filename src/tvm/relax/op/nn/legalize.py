"""Legalization rules of the nn family: each op maps to its ``topi.nn`` compute."""

from __future__ import annotations

import math

from .... import tirx, topi
from ....topi import nn as tnn
from ...transform.legalize_ops.common import call_topi, call_topi_with_attrs, register_legalize
from . import pooling_lower  # noqa: F401 - registers the 1-D/3-D pooling rules


def _ints(values):
    return [int(v) for v in values]


register_legalize("relax.nn.relu", call_topi(tnn.relu))


# gelu, gelu_tanh and silu are composed of topi's elementwise computes, one stage each, as
# TVM 0.27 legalizes them (so the kernels' TIR is TVM's: T_multiply, compute, T_add, ...).
def _gelu(x):
    dtype = x.dtype
    erf_in = topi.multiply(x, tirx.const(0.5**0.5, dtype))
    if dtype == "float16":  # erf in float32, as TVM
        erf = topi.cast(topi.erf(topi.cast(erf_in, "float32")), "float16")
    else:
        erf = topi.erf(erf_in)
    half = tirx.const(0.5, dtype)
    return topi.multiply(x, topi.add(half, topi.multiply(erf, half)))


def _gelu_tanh(x):
    dtype = x.dtype

    def c(v):
        return tirx.const(v, dtype)

    # Stages in TVM's order: 0.5 * x, sqrt(2 / pi) * x, 0.044715 * x * x, ...
    half_x = topi.multiply(c(0.5), x)
    scaled = topi.multiply(c(math.sqrt(2.0 / math.pi)), x)
    cube = topi.multiply(topi.multiply(c(0.044715), x), x)
    inner = topi.multiply(scaled, topi.add(c(1), cube))
    return topi.multiply(half_x, topi.add(c(1.0), topi.tanh(inner)))


def _silu(x):
    return topi.multiply(x, topi.sigmoid(x))


register_legalize("relax.nn.gelu", call_topi(_gelu, "gelu"))
register_legalize("relax.nn.gelu_tanh", call_topi(_gelu_tanh, "gelu_tanh"))
register_legalize("relax.nn.silu", call_topi(_silu, "silu"))


def _relu6(x):
    """``clip(x, 0, 6)`` (TVM 0.27 lowers relu6 to one clip kernel)."""
    return topi.clip(x, 0, 6)


register_legalize("relax.nn.relu6", call_topi(_relu6, "relu6"))
# TVM legalizes batch_flatten to a reshape kernel, named so.
register_legalize("relax.nn.batch_flatten", call_topi(tnn.flatten, "reshape"))


@register_legalize("relax.nn.leakyrelu")
def _leakyrelu(bb, call):
    return bb.call_te(
        tnn.leaky_relu, call.args[0], float(call.attrs.alpha), primfunc_name_hint="leaky_relu"
    )


@register_legalize("relax.nn.prelu")
def _prelu(bb, call):
    return bb.call_te(tnn.prelu, call.args[0], call.args[1], int(call.attrs.axis),
                      primfunc_name_hint="prelu")


@register_legalize("relax.nn.softplus")
def _softplus(bb, call):
    attrs = call.attrs
    return bb.call_te(
        tnn.softplus,
        call.args[0],
        float(attrs.beta),
        float(attrs.threshold),
        primfunc_name_hint="softplus",
    )


@register_legalize("relax.nn.softmax")
def _softmax(bb, call):
    return bb.call_te(tnn.softmax, call.args[0], int(call.attrs.axis), primfunc_name_hint="softmax")


@register_legalize("relax.nn.log_softmax")
def _log_softmax(bb, call):
    return bb.call_te(
        tnn.log_softmax, call.args[0], int(call.attrs.axis), primfunc_name_hint="log_softmax"
    )


register_legalize(
    "relax.nn.cross_entropy_with_logits",
    call_topi(tnn.cross_entropy_with_logits, "cross_entropy_with_logits"),
)


@register_legalize("relax.nn.nll_loss")
def _nll_loss(bb, call):
    attrs = call.attrs
    predictions, targets = call.args[:2]
    weights = call.args[2] if len(call.args) > 2 else None

    def nll_loss(pred, tgt, *weight):
        return tnn.nll_loss(
            pred, tgt, weight[0] if weight else None, attrs.reduction, int(attrs.ignore_index)
        )

    args = [predictions, targets] + ([weights] if weights is not None else [])
    return bb.call_te(nll_loss, *args, primfunc_name_hint="nll_loss")


# The convolution and pooling rules: topi's argument order, read from the attributes.
_WINDOW = ("ints:strides", "ints:padding", "ints:dilation")
_CONVOLUTIONS = {
    "conv1d": (*_WINDOW, "int:groups", "data_layout", "kernel_layout", "out_dtype"),
    "conv2d": (*_WINDOW, "data_layout", "kernel_layout", "out_dtype", "int:groups"),
    "conv2d_transpose": (*_WINDOW, "int:groups", "ints:output_padding", "out_dtype"),
}
for _name, _fields in _CONVOLUTIONS.items():
    register_legalize(
        f"relax.nn.{_name}",
        call_topi_with_attrs(getattr(tnn, _name), _name, *_fields, num_args=2),
    )
for _kind in ("max", "avg"):
    register_legalize(
        f"relax.nn.{_kind}_pool2d",
        call_topi_with_attrs(
            tnn.pool2d, f"{_kind}_pool2d", "ints:pool_size", "ints:strides", "ints:dilation",
            "ints:padding", [_kind], "bool:ceil_mode", "layout", "bool:count_include_pad",
        ),
    )  # fmt: skip


@register_legalize("relax.nn.adaptive_avg_pool2d")
def _adaptive_avg_pool2d(bb, call):
    a = call.attrs
    # The output size is the inferred one (output_size=None keeps the input's spatial dims).
    shape = list(call.ty.shape.values)
    layout = a.layout
    hax, wax = tnn.layout_spatial_axes(layout, "HW", "adaptive_avg_pool2d")
    size = [shape[hax], shape[wax]]
    return bb.call_te(
        tnn.adaptive_pool, call.args[0], size, "avg", layout,
        primfunc_name_hint="adaptive_avg_pool2d",
    )


@register_legalize("relax.nn.layer_norm")
def _layer_norm(bb, call):
    a = call.attrs
    data, gamma, beta = call.args

    def layer_norm(x, g, b):
        # center=False / scale=False drop beta / gamma (their arguments stay unused).
        return tnn.layer_norm(
            x, g if a.scale else None, b if a.center else None, _ints(a.axes), float(a.epsilon)
        )

    return bb.call_te(layer_norm, data, gamma, beta, primfunc_name_hint="layer_norm")


@register_legalize("relax.nn.group_norm")
def _group_norm(bb, call):
    a = call.attrs
    return bb.call_te(
        tnn.group_norm,
        *call.args,
        int(a.num_groups),
        int(a.channel_axis),
        _ints(a.axes),
        float(a.epsilon),
        primfunc_name_hint="group_norm",
    )


@register_legalize("relax.nn.rms_norm")
def _rms_norm(bb, call):
    a = call.attrs
    return bb.call_te(
        tnn.rms_norm, *call.args, _ints(a.axes), float(a.epsilon), primfunc_name_hint="rms_norm"
    )


@register_legalize("relax.nn.batch_norm")
def _batch_norm(bb, call):
    a = call.attrs
    return bb.call_te(
        tnn.batch_norm,
        *call.args,
        axis=int(a.axis),
        epsilon=float(a.epsilon),
        center=bool(a.center),
        scale=bool(a.scale),
        training=bool(a.training),
        momentum=float(a.momentum),
        primfunc_name_hint="batch_norm",
    )


@register_legalize("relax.nn.dropout")
def _dropout(bb, call):
    return bb.call_te(
        tnn.dropout, call.args[0], float(call.attrs.rate), primfunc_name_hint="dropout"
    )


@register_legalize("relax.nn.attention")
def _attention(bb, call):
    a = call.attrs

    def attention(q, k, v, *bias):
        return tnn.attention(
            q, k, v, bias[0] if bias else None, a.scale, a.causal_mask, a.window_size
        )

    return bb.call_te(attention, *call.args, primfunc_name_hint="attention")


@register_legalize("relax.nn.pad")
def _pad(bb, call):
    a = call.attrs
    widths = _ints(a.pad_width)
    before, after = widths[0::2], widths[1::2]
    x = call.args[0]
    if a.pad_mode == "constant":
        return bb.call_te(tnn.pad, x, before, after, float(a.pad_value), primfunc_name_hint="pad")
    if a.pad_mode == "edge":
        return bb.call_te(tnn.replicate_pad, x, before, after, primfunc_name_hint="replicate_pad")
    if a.pad_mode == "reflect":
        return bb.call_te(
            tnn.mirror_pad, x, before, after, "REFLECT", primfunc_name_hint="mirror_pad"
        )
    raise ValueError(f"LegalizeOps: relax.nn.pad mode {a.pad_mode!r} has no rule")


def _conv_transpose_rule(name, layouts, group_fn):
    """As TVM: other layouts are left unlowered (the call stays); a dilation dilates the
    kernel first (``kernel_dilate``)."""

    def rule(bb, call):
        a = call.attrs
        if (a.data_layout, a.kernel_layout, a.out_layout) != layouts:
            return call
        dilation = _ints(a.dilation)
        args = [_ints(a.strides), _ints(a.padding), call.ty.dtype, _ints(a.output_padding),
                int(a.groups)]

        def conv_transpose(data, kernel):
            if any(d != 1 for d in dilation):
                kernel = tnn.dilate(kernel, [1, 1, *dilation], name="kernel_dilate")
            return group_fn(data, kernel, *args)

        return bb.call_te(conv_transpose, *call.args, primfunc_name_hint=name)

    return rule


register_legalize(
    "relax.nn.conv1d_transpose",
    _conv_transpose_rule("conv1d_transpose", ("NCW", "IOW", "NCW"),
                         tnn.group_conv1d_transpose_ncw),
)
register_legalize(
    "relax.nn.conv3d_transpose",
    _conv_transpose_rule("conv3d_transpose", ("NCDHW", "IODHW", "NCDHW"),
                         tnn.group_conv3d_transpose_ncdhw),
)
