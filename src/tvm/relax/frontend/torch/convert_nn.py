"""Converters: convolution, pooling, normalization, activations, attention, embedding.

Ops with several results in ATen (``max_pool2d_with_indices``, ``native_layer_norm``, the
batch norms) return a Python list; ``getitem`` picks the result the graph uses. Results this
frontend does not compute (pooling indices, saved mean/rstd) are :data:`NOT_COMPUTED` and a
graph that reads one fails with a message naming it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ....arith import Analyzer
from ....error import OpNotImplemented
from ....tirx.expr import IntImm
from ... import op as R
from ...expr import Expr, TupleGetItem
from .convert_math import as_dtype, dtype_of
from .importer import REJECTORS, register


class _NotComputed:
    """Marker for an ATen result the frontend does not compute (e.g. pooling indices)."""

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return f"<not computed: {self.what}>"


def NOT_COMPUTED(what):
    """A marker for an ATen result the frontend does not compute (``what`` names it); a
    graph that reads it (through ``getitem``) fails with a ``ValueError`` naming it.
    """
    return _NotComputed(what)


def _arg(node, args, index, name, default):
    if name in node.kwargs:
        return node.kwargs[name]
    return args[index] if len(args) > index else default


def _ints(value, n):
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    return value * n if len(value) == 1 else value


def _bias_shape(ndim):
    return [1, -1] + [1] * (ndim - 2)


# ----- convolution -----------------------------------------------------------------------
@register("convolution.default")
def _convolution(imp, node):
    args = imp.retrieve_args(node)
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = args[:9]
    return _conv(imp, x, w, b, stride, padding, dilation, bool(transposed), output_padding, groups)


@register(
    "conv1d.default",
    "conv2d.default",
    "conv3d.default",
    "conv1d.padding",
    "conv2d.padding",
    "conv3d.padding",
)
def _conv_nd(imp, node):
    args = imp.retrieve_args(node)
    x, w = args[:2]
    b = _arg(node, args, 2, "bias", None)
    stride = _arg(node, args, 3, "stride", 1)
    padding = _arg(node, args, 4, "padding", 0)
    dilation = _arg(node, args, 5, "dilation", 1)
    groups = _arg(node, args, 6, "groups", 1)
    spatial = w.struct_info.ndim - 2
    if padding == "valid":
        padding = 0
    elif padding == "same":
        padding = _same_padding(imp, node.args[1], _ints(dilation, spatial), spatial)
    return _conv(imp, x, w, b, stride, padding, dilation, False, 0, groups)


def _same_padding(imp, weight_node, dilation, spatial):
    """torch's ``padding="same"`` (stride 1): ``dilation * (k - 1)`` per dim, split with the
    odd element after (torch pads the end when the total is odd: even kernels)."""
    kernel = [int(k) for k in imp.val(weight_node).shape[2:]]
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    before = [t // 2 for t in total]
    return before + [t - b for t, b in zip(total, before)]


@register("conv_transpose1d.default", "conv_transpose2d.input", "conv_transpose3d.input")
def _conv_transpose_nd(imp, node):
    args = imp.retrieve_args(node)
    x, w = args[:2]
    b = _arg(node, args, 2, "bias", None)
    stride = _arg(node, args, 3, "stride", 1)
    padding = _arg(node, args, 4, "padding", 0)
    output_padding = _arg(node, args, 5, "output_padding", 0)
    groups = _arg(node, args, 6, "groups", 1)
    dilation = _arg(node, args, 7, "dilation", 1)
    return _conv(imp, x, w, b, stride, padding, dilation, True, output_padding, groups)


def _conv(imp, x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    spatial = w.struct_info.ndim - 2
    if spatial not in (1, 2, 3):
        kind = "conv_transpose" if transposed else "conv"
        raise ValueError(
            f"torch frontend: {kind}{spatial}d is not supported yet (1-D, 2-D and 3-D "
            "convolutions are)"
        )
    stride, padding = _ints(stride, spatial), _ints(padding, spatial)
    dilation, output_padding = _ints(dilation, spatial), _ints(output_padding, spatial)
    if spatial == 3 and transposed:
        y = _conv_transpose3d(imp, x, w, stride, padding, output_padding, dilation, groups)
    elif spatial == 3:
        y = _conv3d(imp, x, w, stride, padding, dilation, groups)
    elif not transposed:
        if spatial == 1:
            y = R.nn.conv1d(x, w, stride, padding, dilation, groups)
        else:
            y = R.nn.conv2d(x, w, stride, padding, dilation, groups)
    elif spatial == 2:
        y = R.nn.conv2d_transpose(x, w, stride, padding, output_padding, dilation, groups)
    else:
        # conv_transpose1d as a 2-D transposed convolution over a height of 1
        x2 = imp.emit(R.expand_dims(x, 2))
        w2 = imp.emit(R.expand_dims(w, 2))
        y2 = imp.emit(
            R.nn.conv2d_transpose(
                x2,
                w2,
                (1, stride[0]),
                (0, padding[0]),
                (0, output_padding[0]),
                (1, dilation[0]),
                groups,
            )
        )
        y = R.squeeze(y2, [2])
    if b is None:
        return y
    y = imp.emit(y)
    return R.add(y, imp.emit(R.reshape(b, _bias_shape(spatial + 2))))


def _conv3d(imp, x, w, stride, padding, dilation, groups):
    """A 3-D convolution as a sum of 2-D ones, one per kernel depth offset ``z``.

    pytvm's Relax has no ``R.nn.conv3d``; output depth ``o`` reads input depth
    ``o * stride + z * dilation``, so for each ``z`` the strided depth slice is folded into
    the batch (``(N * D_out, C, H, W)``), convolved with ``w[:, :, z]``, and the results are
    summed. A symbolic depth (``torch.export.Dim``) gives a TIR expression for the output
    depth (the kernel depth must be static).
    """
    if len(padding) == 3:
        padding = padding + padding
    pd0, pd1 = padding[0], padding[3]
    hw_pad = [padding[1], padding[2], padding[4], padding[5]]
    shape = [_static_or_expr(s) for s in x.struct_info.shape]
    depth = shape[2] + pd0 + pd1
    kd = int(w.struct_info.shape[2])
    out_depth = (depth - dilation[0] * (kd - 1) - 1) // stride[0] + 1
    symbolic = not isinstance(out_depth, int)
    if symbolic:
        # a TIR int64 expression (torch.export.Dim); floordiv as in torch
        out_depth = Analyzer().simplify(out_depth)
    if pd0 or pd1:
        x = imp.emit(R.nn.pad(x, [0, 0, 0, 0, pd0, pd1, 0, 0, 0, 0]))
    batch, channels = shape[0], shape[1]
    acc = None
    for z in range(kd):
        begin = z * dilation[0]
        end = begin + (out_depth - 1) * stride[0] + 1
        if symbolic:
            # strided_slice cannot infer a shape from a symbolic end here: gather the depth
            # slices with an arange index instead (its length is out_depth)
            index = imp.emit(R.arange(IntImm("int64", begin), end, stride[0], "int64"))
            part = imp.emit(R.take(x, index, axis=2))
        else:
            part = imp.emit(R.strided_slice(x, [2], [begin], [end], [stride[0]]))
        part = imp.emit(R.permute_dims(part, [0, 2, 1, 3, 4]))
        part = imp.emit(R.reshape(part, [batch * out_depth, channels, shape[3], shape[4]]))
        wz = imp.emit(R.squeeze(R.strided_slice(w, [2], [z], [z + 1]), [2]))
        y = imp.emit(R.nn.conv2d(part, wz, stride[1:], hw_pad, dilation[1:], groups))
        acc = y if acc is None else imp.emit(R.add(acc, y))
    out = list(acc.struct_info.shape)
    acc = imp.emit(R.reshape(acc, [batch, out_depth, out[1], out[2], out[3]]))
    return R.permute_dims(acc, [0, 2, 1, 3, 4])


def _static_or_expr(size):
    """A shape entry as a Python int when static, else the TIR expression itself."""
    if isinstance(size, IntImm):
        return int(size.value)
    return size


def _conv_transpose3d(imp, x, w, stride, padding, output_padding, dilation, groups):
    """A transposed 3-D convolution as a sum of transposed 2-D ones, one per kernel depth
    offset ``z``.

    Input depth ``d`` contributes to output depth ``d * stride + z * dilation - padding``. For
    each ``z`` the input, depth folded into the batch (``(N * D, C, H, W)``), goes through
    ``nn.conv2d_transpose`` with ``w[:, :, z]``; the ``D`` results are spread ``stride`` apart
    along a new depth axis (zero padded between them) and shifted by ``z * dilation``. The sum
    over ``z`` is cropped by ``padding`` at the front, and ``output_padding`` extends the
    end. The input depth must be static.
    """
    shape = list(x.struct_info.shape)
    try:
        depth = int(shape[2])
    except TypeError:
        raise ValueError(
            "torch frontend: conv_transpose3d with a symbolic input depth is not supported yet"
        ) from None
    kd = int(w.struct_info.shape[2])
    sd, dd, pd, od = stride[0], dilation[0], padding[0], output_padding[0]
    spread = (depth - 1) * sd + 1  # depth extent of one offset's results, stride apart
    full = spread + dd * (kd - 1) + od  # before the padding crop
    out_depth = full - 2 * pd
    batch, channels = shape[0], shape[1]
    folded = imp.emit(R.permute_dims(x, [0, 2, 1, 3, 4]))
    folded = imp.emit(R.reshape(folded, [batch * depth, channels, shape[3], shape[4]]))
    acc = None
    for z in range(kd):
        wz = imp.emit(R.squeeze(R.strided_slice(w, [2], [z], [z + 1]), [2]))
        y = imp.emit(
            R.nn.conv2d_transpose(
                folded, wz, stride[1:], padding[1:], output_padding[1:], dilation[1:], groups
            )
        )
        ys = list(y.struct_info.shape)  # (N * D, C_out, H_out, W_out)
        y = imp.emit(R.reshape(y, [batch, depth, 1, ys[1], ys[2], ys[3]]))
        if sd > 1:  # results stride apart: zeros between consecutive input depths
            y = imp.emit(R.nn.pad(y, [0, 0, 0, 0, 0, sd - 1, 0, 0, 0, 0, 0, 0]))
        y = imp.emit(R.reshape(y, [batch, depth * sd, ys[1], ys[2], ys[3]]))
        if sd > 1:
            y = imp.emit(R.strided_slice(y, [1], [0], [spread]))
        before = z * dd
        y = imp.emit(R.nn.pad(y, [0, 0, before, full - spread - before, 0, 0, 0, 0, 0, 0]))
        acc = y if acc is None else imp.emit(R.add(acc, y))
    if pd or od:
        acc = imp.emit(R.strided_slice(acc, [1], [pd], [pd + out_depth]))
    return R.permute_dims(acc, [0, 2, 1, 3, 4])


def _spatial_of(node):
    name = node.target.__name__
    return 1 if "1d" in name else 3 if "3d" in name else 2


_MAX_POOL = {1: R.nn.max_pool1d, 2: R.nn.max_pool2d, 3: R.nn.max_pool3d}
_AVG_POOL = {1: R.nn.avg_pool1d, 2: R.nn.avg_pool2d, 3: R.nn.avg_pool3d}
_ADAPTIVE_AVG = {
    1: R.nn.adaptive_avg_pool1d,
    2: R.nn.adaptive_avg_pool2d,
    3: R.nn.adaptive_avg_pool3d,
}


# ----- pooling ---------------------------------------------------------------------------
def _pool_args(node, args, spatial, with_dilation=True):
    kernel = _ints(args[1], spatial)
    stride = _arg(node, args, 2, "stride", [])
    stride = kernel if not stride else _ints(stride, spatial)
    padding = _ints(_arg(node, args, 3, "padding", 0), spatial)
    return kernel, stride, padding


@register(
    "max_pool2d_with_indices.default",
    "max_pool2d.default",
    "max_pool1d.default",
    "max_pool1d_with_indices.default",
    "max_pool3d.default",
    "max_pool3d_with_indices.default",
)
def _max_pool(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    spatial = _spatial_of(node)
    kernel, stride, padding = _pool_args(node, args, spatial)
    dilation = _ints(_arg(node, args, 4, "dilation", 1), spatial)
    ceil = bool(_arg(node, args, 5, "ceil_mode", False))
    pool = _MAX_POOL[spatial]
    if "with_indices" in node.target.__name__ and _reads_result(node, 1):
        return _max_pool_with_indices(imp, node, x, kernel, stride, padding, dilation)
    y = imp.emit(pool(x, kernel, stride, padding + padding, dilation, ceil), node)
    if "with_indices" in node.target.__name__:
        return [y, NOT_COMPUTED("max pooling indices")]
    return y


def _reads_result(node, index) -> bool:
    """Whether some user of ``node`` reads its result ``index`` (``getitem(node, index)``)."""
    return any(
        user.op == "call_function" and len(user.args) > 1 and user.args[1] == index
        for user in node.users
    )


def _max_pool_with_indices(imp, node, x, kernel, stride, padding, dilation):
    """Max pooling and torch's indices (the flat position of each maximum in its input plane).

    Written as a scan over the kernel offsets: the input, padded with -inf, is sliced once per
    offset; a strictly greater candidate replaces the running maximum and its index, so ties
    keep the first position in scan order, as torch does. The index of each offset is a
    constant computed here from the static shapes (``ceil_mode`` is read from torch's output
    shape). Used only when the graph reads the indices (plain ``max_pool`` otherwise).
    """
    spatial = len(kernel)
    try:
        in_shape = [int(v) for v in imp.val(node.args[0]).shape]
        out_shape = [int(v) for v in imp.val(node)[0].shape]
    except TypeError:
        raise ValueError(
            "torch frontend: max pooling indices with symbolic sizes are not supported yet"
        ) from None
    dtype = dtype_of(x)
    if not dtype.startswith(("float", "bfloat")):
        raise ValueError(f"torch frontend: max pooling indices on {dtype} are not supported yet")
    lead = len(in_shape) - spatial
    in_sp, out_sp = in_shape[lead:], out_shape[lead:]
    after = [
        max(0, (o - 1) * s + (k - 1) * d + 1 - p - i)
        for o, s, k, d, p, i in zip(out_sp, stride, kernel, dilation, padding, in_sp)
    ]
    widths = [0, 0] * lead
    for p, a in zip(padding, after):
        widths += [p, a]
    xp = imp.emit(R.nn.pad(x, widths, "constant", -math.inf)) if any(widths) else x
    plane_strides = [int(np.prod(in_sp[j + 1 :])) for j in range(spatial)]
    axes = list(range(lead, lead + spatial))
    best = best_index = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        begin = [o * d for o, d in zip(offset, dilation)]
        end = [b + (o - 1) * s + 1 for b, o, s in zip(begin, out_sp, stride)]
        cand = imp.emit(R.strided_slice(xp, axes, begin, end, list(stride)))
        grids = np.meshgrid(*(np.arange(o) for o in out_sp), indexing="ij")
        flat = sum(
            (g * s - p + b) * ps
            for g, s, p, b, ps in zip(grids, stride, padding, begin, plane_strides)
        )
        index = imp.const(np.asarray(flat, dtype="int64"), "int64")
        if best is None:
            best = cand
            best_index = imp.emit(R.broadcast_to(index, out_shape))
            continue
        greater = imp.emit(R.greater(cand, best))
        best = imp.emit(R.where(greater, cand, best))
        best_index = imp.emit(R.where(greater, index, best_index))
    return [imp.emit(best, node), best_index]


@register("avg_pool2d.default", "avg_pool1d.default", "avg_pool3d.default")
def _avg_pool(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    spatial = _spatial_of(node)
    kernel, stride, padding = _pool_args(node, args, spatial)
    ceil = bool(_arg(node, args, 4, "ceil_mode", False))
    include_pad = bool(_arg(node, args, 5, "count_include_pad", True))
    if _arg(node, args, 6, "divisor_override", None) is not None:
        raise ValueError("torch frontend: avg_pool divisor_override is not supported yet")
    pool = _AVG_POOL[spatial]
    dilation = [1] * spatial
    return pool(x, kernel, stride, padding + padding, dilation, ceil, include_pad)


@register(
    "_adaptive_avg_pool2d.default",
    "adaptive_avg_pool2d.default",
    "adaptive_avg_pool1d.default",
    "_adaptive_avg_pool1d.default",
    "adaptive_avg_pool3d.default",
    "_adaptive_avg_pool3d.default",
)
def _adaptive_avg_pool(imp, node):
    x, size = imp.retrieve_args(node)[:2]
    spatial = _spatial_of(node)
    return _ADAPTIVE_AVG[spatial](x, _ints(size, spatial))


@register(
    "adaptive_max_pool2d.default", "adaptive_max_pool1d.default", "adaptive_max_pool3d.default"
)
def _adaptive_max_pool(imp, node):
    x, size = imp.retrieve_args(node)[:2]
    spatial = _spatial_of(node)
    size = _ints(size, spatial)
    in_sizes = [int(s) for s in imp.val(node.args[0]).shape[-spatial:]]
    if any(i % o for i, o in zip(in_sizes, size)):
        raise ValueError(
            f"torch frontend: adaptive_max_pool with input {in_sizes} not divisible by output "
            f"{size} is not supported yet"
        )
    kernel = [i // o for i, o in zip(in_sizes, size)]
    y = imp.emit(_MAX_POOL[spatial](x, kernel, kernel), node)
    return [y, NOT_COMPUTED("adaptive max pooling indices")]


# ----- normalization -----------------------------------------------------------------------
def _affine_defaults(imp, w, b, channels, dtype):
    if w is None:
        w = imp.const(1.0, dtype)
        w = imp.emit(R.full([channels], w, dtype))
    if b is None:
        b = imp.emit(R.zeros([channels], dtype))
    return w, b


@register("_native_batch_norm_legit_no_training.default")
def _batch_norm_eval(imp, node):
    args = imp.retrieve_args(node)
    x, w, b, mean, var, _momentum, eps = args[:7]
    return [_bn_eval(imp, node, x, w, b, mean, var, eps), NOT_COMPUTED("save_mean"), None]


def _bn_eval(imp, node, x, w, b, mean, var, eps):
    channels = imp.val(node.args[0]).shape[1]
    w, b = _affine_defaults(imp, w, b, imp.sym_expr(channels), dtype_of(x))
    bn = imp.emit(R.nn.batch_norm(x, w, b, mean, var, axis=1, epsilon=eps, training=False))
    return imp.emit(TupleGetItem(bn, 0), node)


@register("_native_batch_norm_legit_functional.default")
def _batch_norm_train(imp, node):
    """Training-mode batch norm: batch statistics, and the updated running statistics.

    Written with elementwise ops (not ``R.nn.batch_norm``) so the running variance uses
    torch's unbiased batch variance and ``Gradient`` differentiates it like any other code.
    """
    args = imp.retrieve_args(node)
    x, w, b, run_mean, run_var, training, momentum, eps = args[:8]
    if not training:
        out = _bn_eval(imp, node, x, w, b, run_mean, run_var, eps)
        return [out, None, None, run_mean, run_var]
    return _bn_train(imp, node, x, w, b, run_mean, run_var, momentum, eps)


def _bn_train(imp, node, x, w, b, run_mean, run_var, momentum, eps):
    shape = imp.val(node.args[0]).shape
    ndim = len(shape)
    dtype = dtype_of(x)
    axes = [0] + list(range(2, ndim))
    count = 1
    for a in axes:
        count *= int(shape[a])
    bshape = _bias_shape(ndim)
    mean = imp.emit(R.mean(x, axis=axes, keepdims=True))
    centered = imp.emit(R.subtract(x, mean))
    var = imp.emit(R.mean(R.multiply(centered, centered), axis=axes, keepdims=True))
    inv = imp.emit(R.rsqrt(R.add(var, imp.const(eps, dtype))))
    out = imp.emit(R.multiply(centered, inv))
    channels = imp.sym_expr(shape[1])
    w, b = _affine_defaults(imp, w, b, channels, dtype) if (w is None or b is None) else (w, b)
    out = imp.emit(R.multiply(out, R.reshape(w, bshape)))
    out = imp.emit(R.add(out, R.reshape(b, bshape)), node)
    mean_c = imp.emit(R.reshape(mean, [channels]))
    var_c = imp.emit(R.reshape(var, [channels]))
    keep, m = imp.const(1.0 - momentum, dtype), imp.const(momentum, dtype)
    unbiased = imp.const(count / max(count - 1, 1), dtype)
    new_mean = imp.emit(R.add(R.multiply(run_mean, keep), R.multiply(mean_c, m)))
    new_var = imp.emit(R.add(R.multiply(run_var, keep), R.multiply(R.multiply(var_c, unbiased), m)))
    return [out, mean_c, NOT_COMPUTED("save_invstd"), new_mean, new_var]


@register("batch_norm.default")
def _batch_norm(imp, node):
    args = imp.retrieve_args(node)
    x, w, b, run_mean, run_var, training, _momentum, eps = args[:8]
    if training:
        raise ValueError(
            "torch frontend: batch_norm in training mode before decomposition is not supported "
            "(export with run_ep_decomposition=True)"
        )
    return _bn_eval(imp, node, x, w, b, run_mean, run_var, eps)


@register("native_layer_norm.default", "layer_norm.default")
def _layer_norm(imp, node):
    args = imp.retrieve_args(node)
    x, normalized_shape = args[:2]
    w = _arg(node, args, 2, "weight", None)
    b = _arg(node, args, 3, "bias", None)
    eps = _arg(node, args, 4, "eps", 1e-5)
    ndim = x.struct_info.ndim
    k = len(normalized_shape)
    axes = list(range(ndim - k, ndim))
    dtype = dtype_of(x)
    if w is None:
        w = imp.emit(R.ones([imp.sym_expr(s) for s in normalized_shape], dtype))
    if b is None:
        b = imp.emit(R.zeros([imp.sym_expr(s) for s in normalized_shape], dtype))
    y = imp.emit(R.nn.layer_norm(x, w, b, axes, eps), node)
    if node.target.__name__.startswith("native"):
        return [y, NOT_COMPUTED("layer_norm mean"), NOT_COMPUTED("layer_norm rstd")]
    return y


@register("native_group_norm.default", "group_norm.default")
def _group_norm(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    dtype = dtype_of(x)
    channels = imp.val(node.args[0]).shape[1]
    if node.target.__name__.startswith("native"):
        w, b, _n, _c, _hw, groups, eps = args[1:8]
    else:
        groups = args[1]
        w = _arg(node, args, 2, "weight", None)
        b = _arg(node, args, 3, "bias", None)
        eps = _arg(node, args, 4, "eps", 1e-5)
    w, b = _affine_defaults(imp, w, b, imp.sym_expr(channels), dtype)
    ndim = x.struct_info.ndim
    y = imp.emit(R.nn.group_norm(x, w, b, groups, 1, list(range(2, ndim)), eps), node)
    if node.target.__name__.startswith("native"):
        return [y, NOT_COMPUTED("group_norm mean"), NOT_COMPUTED("group_norm rstd")]
    return y


# ----- activations -----------------------------------------------------------------------
@register("gelu")
def _gelu(imp, node):
    x = imp.retrieve_args(node)[0]
    if node.kwargs.get("approximate", "none") == "tanh":
        return R.nn.gelu_tanh(x)
    return R.nn.gelu(x)


@register("leaky_relu")
def _leaky_relu(imp, node):
    args = imp.retrieve_args(node)
    return R.nn.leakyrelu(args[0], _arg(node, args, 1, "negative_slope", 0.01))


@register("softplus")
def _softplus(imp, node):
    args = imp.retrieve_args(node)
    beta = _arg(node, args, 1, "beta", 1.0)
    threshold = _arg(node, args, 2, "threshold", 20.0)
    return R.nn.softplus(args[0], beta, threshold)


@register("elu")
def _elu(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    alpha = _arg(node, args, 1, "alpha", 1.0)
    dtype = dtype_of(x)
    neg = imp.emit(R.multiply(imp.const(alpha, dtype), R.subtract(R.exp(x), imp.const(1.0, dtype))))
    return R.where(R.greater(x, imp.const(0.0, dtype)), x, neg)


@register("hardsigmoid", "hardswish")
def _hard(imp, node):
    x = imp.retrieve_args(node)[0]
    dtype = dtype_of(x)
    gate = imp.emit(R.clip(R.add(R.divide(x, imp.const(6.0, dtype)), imp.const(0.5, dtype)), 0, 1))
    return gate if node.target.__name__.startswith("hardsigmoid") else R.multiply(x, gate)


def _softmax_like(relax_op):
    def convert(imp, node):
        args = imp.retrieve_args(node)
        x, dim = args[0], args[1]
        dtype = imp.out_dtype(node)
        return relax_op(as_dtype(imp, x, dtype), axis=dim)

    return convert


register("_softmax", "softmax", "_safe_softmax")(_softmax_like(R.nn.softmax))
register("_log_softmax", "log_softmax")(_softmax_like(R.nn.log_softmax))


# ----- dropout, embedding ---------------------------------------------------------------------
_TRAIN_DROPOUT_REASON = (
    "in training mode (p > 0): not supported, it needs a fresh random mask per call and "
    "pytvm's Relax has no random-number op (R.nn.dropout keeps every element, its legalized "
    "kernel included); export after model.eval(), or set the dropout probability to 0 for "
    "training through pytvm"
)


def _train_dropout(node) -> bool:
    args = node.args
    p = node.kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    train = node.kwargs.get("train", args[2] if len(args) > 2 else False)
    return bool(train) and float(p) > 0


def _reject_train_dropout(imp, node):
    return _TRAIN_DROPOUT_REASON if _train_dropout(node) else None


_DROPOUTS = ("dropout.default", "native_dropout.default", "feature_dropout.default")
for _name in _DROPOUTS:
    REJECTORS[_name] = _reject_train_dropout


@register(*_DROPOUTS)
def _dropout(imp, node):
    """Dropout in inference mode (or train mode with ``p == 0``): the identity.

    Train-mode dropout with ``p > 0`` is rejected by ``check_supported`` before any binding:
    it needs random numbers, and there is no RNG op in pytvm's Relax.
    """
    x = imp.retrieve_args(node)[0]
    if _train_dropout(node):
        raise OpNotImplemented(
            f"torch frontend: {node.name} ({node.target.__name__}) " + _TRAIN_DROPOUT_REASON
        )
    if node.target.__name__.startswith("native"):
        return [x, imp.emit(R.ones_like(x, "bool"))]
    return x


@register("embedding.default")
def _embedding(imp, node):
    weight, indices = imp.retrieve_args(node)[:2]
    return R.take(weight, indices, axis=0)


# ----- attention -------------------------------------------------------------------------
@register("scaled_dot_product_attention.default")
def _sdpa(imp, node):
    """``F.scaled_dot_product_attention`` on ``(batch, heads, seq, dim)`` tensors.

    Maps to ``R.nn.attention`` (``(batch, seq, heads, dim)``): the inputs and the result
    are transposed. A boolean mask becomes an additive bias (0 where True, -inf elsewhere).
    """
    args = imp.retrieve_args(node)
    q, k, v = args[:3]
    mask = _arg(node, args, 3, "attn_mask", None)
    dropout_p = _arg(node, args, 4, "dropout_p", 0.0)
    causal = bool(_arg(node, args, 5, "is_causal", False))
    scale = _arg(node, args, 6, "scale", None)
    if dropout_p:
        raise ValueError(
            "torch frontend: scaled_dot_product_attention dropout_p > 0 is not supported"
        )
    if q.struct_info.ndim != 4:
        raise ValueError("torch frontend: scaled_dot_product_attention needs 4-D inputs")
    perm = [0, 2, 1, 3]
    qt, kt, vt = (imp.emit(R.permute_dims(t, perm)) for t in (q, k, v))
    bias = None
    if mask is not None:
        if dtype_of(mask) == "bool":
            dtype = dtype_of(q)
            bias = imp.emit(R.where(mask, imp.const(0.0, dtype), imp.const(-math.inf, dtype)))
        else:
            bias = mask
        ndim = bias.struct_info.ndim
        if ndim < 4:
            bias = imp.emit(R.reshape(bias, [1] * (4 - ndim) + list(imp.out_shape(node.args[3]))))
    out = imp.emit(R.nn.attention(qt, kt, vt, bias, scale, "TopLeft" if causal else None))
    return R.permute_dims(out, perm)


@register("constant_pad_nd.default", "pad.default")
def _pad(imp, node):
    args = imp.retrieve_args(node)
    x, pad = args[:2]
    mode = node.kwargs.get("mode", args[2] if len(args) > 2 and isinstance(args[2], str) else None)
    value = node.kwargs.get("value", args[-1] if len(args) > 2 else 0.0)
    if mode not in (None, "constant"):
        raise ValueError(f"torch frontend: pad mode {mode!r} is not supported yet")
    ndim = x.struct_info.ndim
    widths = [0] * (2 * ndim)
    for i in range(len(pad) // 2):
        dim = ndim - 1 - i
        widths[2 * dim], widths[2 * dim + 1] = pad[2 * i], pad[2 * i + 1]
    if any(w < 0 for w in widths):
        raise ValueError("torch frontend: negative padding is not supported yet")
    return R.nn.pad(x, widths, "constant", float(value or 0.0))


__all__ = ["NOT_COMPUTED", "Expr"]
