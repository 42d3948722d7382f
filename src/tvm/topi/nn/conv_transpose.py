"""Transposed 1-D and 3-D convolutions: ``conv1d_transpose_ncw`` (and its grouped form) and
``conv3d_transpose_ncdhw``, staged as TVM's topi stages them.

The data is dilated by the strides (``data_dilate``: zeros between inputs), padded by
``k - 1 - pad_before`` before and ``k - 1 - pad_after + output_padding`` after each spatial
axis (``data_pad``), the IO... kernel becomes OI... and is flipped along each spatial axis
(``kernel`` for 1-D, ``kernel_transform`` for 3-D, as TVM names them), and a direct
convolution (``compute``) follows. Output extent per axis: ``(n - 1) * stride - pad_before -
pad_after + k + output_padding``. (2-D lives in :mod:`tvm.topi.nn.conv`.)
"""

from __future__ import annotations

from ... import te
from ...tirx import generic as _g
from ..utils import const_like, expand_tuple, get_const_int, reduce_axis, simplify
from .conv import get_pad_tuple
from .dilate import dilate as _dilate
from .pad import pad as _pad

__all__ = [
    "conv1d_transpose_ncw",
    "conv3d_transpose_ncdhw",
    "group_conv1d_transpose_ncw",
    "group_conv3d_transpose_ncdhw",
]

_AXES = {1: ("w",), 3: ("d", "h", "w")}


def _conv_transpose(data, kernel, strides, padding, out_dtype, output_padding, groups,
                    kernel_name, op_name):
    spatial = data.ndim - 2
    if data.ndim != kernel.ndim or spatial not in _AXES:
        raise ValueError(f"{op_name}: expects {2 + spatial}-D data and kernel, got "
                         f"{data.ndim}-D and {kernel.ndim}-D")
    out_dtype = str(out_dtype) if out_dtype not in (None, "", "void") else data.dtype
    strides = expand_tuple(strides, spatial, f"{op_name}: strides")
    opad = expand_tuple(output_padding, spatial, f"{op_name}: output_padding")
    groups = get_const_int(groups)
    ksizes = list(kernel.shape[2:])
    before, after = get_pad_tuple(padding, ksizes)
    dilated = _dilate(data, [1, 1, *strides], name="data_dilate")
    pad_b = [0, 0] + [simplify(k - const_like(1 + b, k.dtype)) for k, b in zip(ksizes, before)]
    pad_a = [0, 0] + [simplify(k - const_like(1 + a - p, k.dtype))
                      for k, a, p in zip(ksizes, after, opad)]
    padded = _pad(dilated, pad_b, pad_a, 0.0, name="data_pad")
    in_c, o_per_group = kernel.shape[0], kernel.shape[1]
    one = const_like(1, in_c.dtype)

    def flip(*idx):  # OI... from IO..., each spatial axis reversed
        o, i, *pos = idx
        return kernel(i, o, *[k - one - p for k, p in zip(ksizes, pos)])

    names = ["o", "i", *_AXES[spatial]]
    transformed = te.compute((o_per_group, in_c, *ksizes), flip, name=kernel_name,
                             varargs_names=names)
    out_c = simplify(o_per_group * const_like(groups, o_per_group.dtype))
    out_sp = [simplify(p - k + one) for p, k in zip(padded.shape[2:], ksizes)]
    chans = padded.shape[1]
    c_group = chans if groups == 1 else _g.floordiv(chans, const_like(groups, chans.dtype))
    dc = reduce_axis(c_group, "dc")
    rk = [reduce_axis(k, f"d{a}") for k, a in zip(ksizes, _AXES[spatial])]

    def cast(v):
        return v if v.dtype == out_dtype else _g.cast(v, out_dtype)

    def body(b, c, *pos):
        win = [p + r.var for p, r in zip(pos, rk)]
        taps = [r.var for r in rk]
        if groups == 1:
            x, w = padded(b, dc.var, *win), transformed(c, dc.var, *taps)
        else:
            per_out = _g.floordiv(out_c, const_like(groups, out_c.dtype))
            chan = _g.floordiv(c, per_out) * c_group + dc.var
            x, w = padded(b, chan, *win), transformed(_g.floormod(c, per_out), chan, *taps)
        return te.sum(cast(x) * cast(w), axis=[dc, *rk])

    shape = (data.shape[0], out_c, *out_sp)
    return te.compute(shape, body, name="compute", tag=f"{op_name}",
                      varargs_names=list(_AXES[spatial]))


def conv1d_transpose_ncw(data, kernel, stride, padding, out_dtype, output_padding):
    """Transposed 1-D convolution of NCW ``data`` with an IOW ``kernel``."""
    return _conv_transpose(data, kernel, stride, padding, out_dtype, output_padding, 1,
                           "kernel", "conv1d_transpose_ncw")


def group_conv1d_transpose_ncw(data, kernel, stride, padding, out_dtype, output_padding,
                               groups):
    """Grouped transposed 1-D convolution (NCW data, IOW kernel: ``I`` is the data's
    channels, ``O`` the output channels per group)."""
    return _conv_transpose(data, kernel, stride, padding, out_dtype, output_padding, groups,
                           "kernel", "group_conv1d_transpose_ncw")


def conv3d_transpose_ncdhw(data, kernel, strides, padding, out_dtype, output_padding):
    """Transposed 3-D convolution of NCDHW ``data`` with an IODHW ``kernel``."""
    return _conv_transpose(data, kernel, strides, padding, out_dtype, output_padding, 1,
                           "kernel_transform", "conv3d_transpose_ncdhw")


def group_conv3d_transpose_ncdhw(data, kernel, strides, padding, out_dtype, output_padding,
                                 groups):
    """Grouped transposed 3-D convolution (NCDHW data, IODHW kernel)."""
    return _conv_transpose(data, kernel, strides, padding, out_dtype, output_padding, groups,
                           "kernel_transform", "group_conv3d_transpose_ncdhw")
