"""Convolutions: ``conv`` (N-D, any ``N``/``C``/spatial layout, groups, dilation) with the
TVM entry points ``conv1d``, ``conv2d``, ``conv2d_nchw``, ``conv2d_nhwc``, ``conv1d_ncw``,
``conv1d_nwc``, ``group_conv2d_nchw``; and ``conv2d_transpose`` (NCHW data, IOHW kernel, with
groups, dilation and ``output_padding``) with ``conv2d_transpose_nchw`` and
``group_conv2d_transpose_nchw``.

Layouts are strings of axis letters: data ``N``, ``C`` and spatial letters (``"NCHW"``,
``"NHWC"``, ``"NCW"``...); kernels ``O``, ``I`` and the same spatial letters (``"OIHW"``,
``"HWIO"``...). The output uses the data layout. Padding is an int, one value per spatial
axis, or ``before...`` then ``after...`` values (``(top, left, bottom, right)`` in 2-D), or
``"VALID"``/``"SAME"``.
"""

from __future__ import annotations

from ... import te
from ...tirx import generic as _g
from ..utils import (
    as_index,
    const_like,
    expand_tuple,
    get_const_int,
    is_const_int,
    reduce_axis,
    simplify,
)
from .dilate import dilate as _dilate
from .pad import pad as _pad

__all__ = [
    "conv", "conv1d", "conv1d_ncw", "conv1d_nwc", "conv2d", "conv2d_nchw", "conv2d_nhwc",
    "conv2d_transpose", "conv2d_transpose_nchw", "get_pad_tuple", "group_conv2d_nchw",
    "group_conv2d_transpose_nchw",
]


def get_pad_tuple(padding, kernel_sizes):
    """``(before, after)`` lists for each spatial axis from TVM's padding spellings."""
    n = len(kernel_sizes)
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0] * n, [0] * n
        if padding.upper() == "SAME":
            totals = [get_const_int(k) - 1 for k in kernel_sizes]
            return [t // 2 for t in totals], [t - t // 2 for t in totals]
        raise ValueError(f"conv: padding string must be 'VALID' or 'SAME', got {padding!r}")
    if is_const_int(padding):
        p = get_const_int(padding)
        return [p] * n, [p] * n
    values = [get_const_int(v) for v in padding]
    if len(values) == 1:
        return values * n, values * n
    if len(values) == n:
        return values, list(values)
    if len(values) == 2 * n:
        return values[:n], values[n:]
    raise ValueError(f"conv: padding needs 1, {n} or {2 * n} values, got {values}")


def _check_layout(layout, letters, ndim, what):
    if sorted(layout) != sorted(letters) or len(layout) != ndim:
        raise ValueError(f"conv: {what} layout {layout!r} does not fit a {ndim}-D tensor with "
                         f"axes {letters}")


def conv(inp, filt, stride, padding, dilation, groups, data_layout, kernel_layout="",
         out_dtype=None, order=None):
    """Grouped N-D convolution (see the module docstring for the layout conventions)."""
    spatial = [c for c in data_layout if c not in "NC"]
    nsp = len(spatial)
    _check_layout(data_layout, ["N", "C"] + spatial, inp.ndim, "data")
    if not kernel_layout:
        kernel_layout = "OI" + "".join(spatial) if data_layout.index("C") == 1 else \
            "".join(spatial) + "IO"
    _check_layout(kernel_layout, ["O", "I"] + spatial, filt.ndim, "kernel")
    out_dtype = str(out_dtype) if out_dtype not in (None, "", "void") else inp.dtype
    strides = expand_tuple(stride, nsp, "conv: strides")
    dilations = expand_tuple(dilation, nsp, "conv: dilation")
    groups = get_const_int(groups)
    dsize = {c: inp.shape[data_layout.index(c)] for c in data_layout}
    ksize = {c: filt.shape[kernel_layout.index(c)] for c in kernel_layout}
    before, after = get_pad_tuple(padding, [ksize[c] for c in spatial])
    chan_in, per_group = dsize["C"], ksize["I"]
    if is_const_int(chan_in) and is_const_int(per_group) and \
            get_const_int(chan_in) != get_const_int(per_group) * groups:
        raise ValueError(f"conv: input channels {get_const_int(chan_in)} != kernel input "
                         f"channels {get_const_int(per_group)} x groups {groups}")
    out_ch = ksize["O"]
    if is_const_int(out_ch) and get_const_int(out_ch) % groups:
        raise ValueError(f"conv: output channels {get_const_int(out_ch)} are not divisible "
                         f"by groups {groups}")
    pad_b = [before[spatial.index(c)] if c in spatial else 0 for c in data_layout]
    pad_a = [after[spatial.index(c)] if c in spatial else 0 for c in data_layout]
    # TVM pads even with zero widths (a ``pad_temp`` copy stage), so the TIR is topi's.
    padded = _pad(inp, pad_b, pad_a, 0.0, name="pad_temp")

    out_size = {"N": dsize["N"], "C": out_ch}
    for s, c in enumerate(spatial):
        dtype = dsize[c].dtype
        span = dsize[c] - (ksize[c] - const_like(1, dtype)) * const_like(dilations[s], dtype) - \
            const_like(1, dtype) + const_like(before[s], dtype) + const_like(after[s], dtype)
        out_size[c] = simplify(_g.floordiv(span, const_like(strides[s], dtype)) +
                                const_like(1, dtype))
    shape = tuple(out_size[c] for c in data_layout)
    # TVM reduces over the data's channels per group (``c // groups``), not the kernel's I.
    rc = reduce_axis(simplify(_g.floordiv(chan_in, const_like(groups, chan_in.dtype))), "rc")
    # TVM's reduction names (ry, rx, rz by spatial position) and order (as in the layout).
    rk = {c: reduce_axis(ksize[c], f"r{'yxz'[s] if s < 3 else s}")
          for s, c in enumerate(spatial)}
    reduce_order = [rc if c == "C" else rk[c] for c in data_layout if c != "N"]

    def body(*i):
        out = dict(zip(data_layout, i))
        o = out["C"]
        if groups == 1:
            chan = as_index(rc.var, o.dtype)
        else:
            group_size = _g.floordiv(out_ch, const_like(groups, out_ch.dtype))
            chan = _g.floordiv(o, as_index(group_size, o.dtype)) * as_index(
                _g.floordiv(chan_in, const_like(groups, chan_in.dtype)), o.dtype) + as_index(
                rc.var, o.dtype)
        data_idx = {"N": out["N"], "C": chan}
        kern_idx = {"O": o, "I": rc.var}
        for s, c in enumerate(spatial):
            y = out[c]
            data_idx[c] = y * const_like(strides[s], y.dtype) + \
                as_index(rk[c].var, y.dtype) * const_like(dilations[s], y.dtype)
            kern_idx[c] = rk[c].var
        a = padded(*[data_idx[c] for c in data_layout])
        w = filt(*[kern_idx[c] for c in kernel_layout])
        if a.dtype != out_dtype:
            a = _g.cast(a, out_dtype)
        if w.dtype != out_dtype:
            w = _g.cast(w, out_dtype)
        return te.sum(a * w, axis=reduce_order)

    name = f"{'group_' if groups > 1 else ''}conv{nsp}d_{data_layout.lower()}"
    return te.compute(shape, body, name=name, tag=name)


def conv1d(data, kernel, strides=1, padding="VALID", dilation=1, groups=1, data_layout="NCW",
           kernel_layout="", out_dtype=None):
    """1-D convolution (``"NCW"`` or ``"NWC"`` data)."""
    return conv(data, kernel, strides, padding, dilation, groups, data_layout, kernel_layout,
                out_dtype)


def conv1d_ncw(data, kernel, strides=1, padding="VALID", dilation=1, out_dtype=None):
    """1-D convolution, NCW data and OIW kernel."""
    return conv(data, kernel, strides, padding, dilation, 1, "NCW", "OIW", out_dtype)


def conv1d_nwc(data, kernel, strides=1, padding="VALID", dilation=1, out_dtype=None):
    """1-D convolution, NWC data and WIO kernel."""
    return conv(data, kernel, strides, padding, dilation, 1, "NWC", "WIO", out_dtype)


def conv2d(input, filter, strides, padding, dilation, data_layout="NCHW",
           kernel_layout="", out_dtype=None, groups=1):
    """2-D convolution (``groups`` is an extension: TVM uses ``group_conv2d_*``)."""
    return conv(input, filter, strides, padding, dilation, groups, data_layout, kernel_layout,
                out_dtype)


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None):
    """2-D convolution, NCHW data and OIHW kernel."""
    return conv(Input, Filter, stride, padding, dilation, 1, "NCHW", "OIHW", out_dtype)


def conv2d_nhwc(Input, Filter, stride, padding, dilation, out_dtype="float32",
                auto_scheduler_rewritten_layout="", meta_schedule_original_shape=None):
    """2-D convolution, NHWC data and HWIO kernel."""
    return conv(Input, Filter, stride, padding, dilation, 1, "NHWC", "HWIO", out_dtype)


def group_conv2d_nchw(Input, Filter, stride, padding, dilation, groups,
                      out_dtype=None):
    """Grouped 2-D convolution, NCHW data and OIHW kernel."""
    return conv(Input, Filter, stride, padding, dilation, groups, "NCHW", "OIHW", out_dtype)


def conv2d_transpose(data, kernel, strides, padding, dilation=1, groups=1,
                     output_padding=(0, 0), out_dtype=None):
    """Transposed 2-D convolution of NCHW ``data`` with an IOHW ``kernel``, staged as TVM's
    topi stages it: ``data_dilate`` (zeros between inputs, ``stride`` apart), ``data_pad``
    (``k - 1 - pad`` on each side, plus ``output_padding`` after), ``kernel_transform`` (OIHW,
    rotated by 180 degrees), then a direct convolution (``compute``). ``dilation`` dilates the
    kernel first (``kernel_dilate``). The output extent is ``(h - 1) * stride - pad_before -
    pad_after + dilation * (k - 1) + 1 + output_padding``.
    """
    if data.ndim != 4 or kernel.ndim != 4:
        raise ValueError("conv2d_transpose expects 4-D NCHW data and an IOHW kernel")
    out_dtype = str(out_dtype) if out_dtype not in (None, "", "void") else data.dtype
    strides = expand_tuple(strides, 2, "conv: strides")
    dilations = expand_tuple(dilation, 2, "conv: dilation")
    opad = expand_tuple(output_padding, 2, "conv: output_padding")
    groups = get_const_int(groups)
    c, c_k = data.shape[1], kernel.shape[0]
    if is_const_int(c) and is_const_int(c_k) and get_const_int(c) != get_const_int(c_k):
        raise ValueError(f"conv2d_transpose: data channels {get_const_int(c)} != kernel input "
                         f"channels {get_const_int(c_k)}")
    if any(d != 1 for d in dilations):
        kernel = _dilate(kernel, [1, 1, *dilations], name="kernel_dilate")
    _, o_per_group, kh, kw = kernel.shape
    before, after = get_pad_tuple(padding, [kh, kw])
    dilated = _dilate(data, [1, 1, *strides], name="data_dilate")
    pad_b = [0, 0] + [simplify(k - const_like(1 + b, k.dtype)) for k, b in zip((kh, kw), before)]
    pad_a = [0, 0] + [simplify(k - const_like(1 + a - p, k.dtype))
                      for k, a, p in zip((kh, kw), after, opad)]
    padded = _pad(dilated, pad_b, pad_a, 0.0, name="data_pad")
    in_c = data.shape[1]
    one = const_like(1, kh.dtype)

    # OIHW from IOHW, rotated by 180 degrees.
    transformed = te.compute((o_per_group, in_c, kh, kw),
                             lambda o, i, h, w: kernel(i, o, kh - one - h, kw - one - w),
                             name="kernel_transform")
    batch, chans, ph, pw = padded.shape
    out_c = simplify(o_per_group * const_like(groups, o_per_group.dtype))
    out_h, out_w = simplify(ph - kh + one), simplify(pw - kw + one)
    c_group = chans if groups == 1 else _g.floordiv(chans, const_like(groups, chans.dtype))
    dc = reduce_axis(c_group, "dc")
    dh, dw = reduce_axis(kh, "dh"), reduce_axis(kw, "dw")

    def cast(v):
        return v if v.dtype == out_dtype else _g.cast(v, out_dtype)

    if groups == 1:
        def body(b, o, h, w):
            return te.sum(cast(padded(b, dc.var, h + dh.var, w + dw.var))
                          * cast(transformed(o, dc.var, dh.var, dw.var)), axis=[dc, dh, dw])
        tag = "conv2d_transpose_nchw"
    else:
        def body(b, o, h, w):
            per_out = _g.floordiv(out_c, const_like(groups, out_c.dtype))
            chan = _g.floordiv(o, per_out) * c_group + dc.var
            return te.sum(cast(padded(b, chan, h + dh.var, w + dw.var))
                          * cast(transformed(_g.floormod(o, per_out), chan, dh.var, dw.var)),
                          axis=[dc, dh, dw])
        tag = "group_conv2d_transpose_nchw"
    return te.compute((batch, out_c, out_h, out_w), body, tag=tag)


def conv2d_transpose_nchw(Input, Filter, strides, padding, out_dtype,
                          output_padding):
    """Transposed 2-D convolution, NCHW data and IOHW kernel."""
    return conv2d_transpose(Input, Filter, strides, padding, 1, 1, output_padding, out_dtype)


def group_conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype, output_padding,
                                groups):
    """Grouped transposed 2-D convolution, NCHW data and IOHW kernel."""
    return conv2d_transpose(data, kernel, stride, padding, 1, groups, output_padding,
                            out_dtype)
