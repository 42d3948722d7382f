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

from ... import te, tirx
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
    padded = _pad(inp, pad_b, pad_a, 0.0, name="pad_temp") if any(pad_b + pad_a) else inp

    out_size = {"N": dsize["N"], "C": out_ch}
    for s, c in enumerate(spatial):
        dtype = dsize[c].dtype
        eff = const_like(dilations[s], dtype) * (ksize[c] - const_like(1, dtype)) + \
            const_like(1, dtype)
        span = dsize[c] + const_like(before[s] + after[s], dtype) - eff
        out_size[c] = simplify(_g.floordiv(span, const_like(strides[s], dtype)) +
                                const_like(1, dtype))
    shape = tuple(out_size[c] for c in data_layout)
    rc = reduce_axis(per_group, "rc")
    rk = {c: reduce_axis(ksize[c], f"r{c.lower()}") for c in spatial}

    def body(*i):
        out = dict(zip(data_layout, i))
        o = out["C"]
        if groups == 1:
            chan = as_index(rc.var, o.dtype)
        else:
            group_size = _g.floordiv(out_ch, const_like(groups, out_ch.dtype))
            chan = _g.floordiv(o, as_index(group_size, o.dtype)) * as_index(
                per_group, o.dtype) + as_index(rc.var, o.dtype)
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
        return te.sum(a * w, axis=[rc] + [rk[c] for c in spatial])

    return te.compute(shape, body, name="conv", tag=f"conv{nsp}d_{data_layout.lower()}")


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
    """Transposed 2-D convolution of NCHW ``data`` with an IOHW ``kernel``.

    ``out[n, o, y, x] = sum data[n, c, i, j] * kernel[c, o', a, b]`` over
    ``y + pad_top = i * stride + a * dilation`` (same for ``x``), within ``o``'s group. The
    output extent is ``(h - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1 +
    output_padding``.
    """
    if data.ndim != 4 or kernel.ndim != 4:
        raise ValueError("conv2d_transpose expects 4-D NCHW data and an IOHW kernel")
    out_dtype = str(out_dtype) if out_dtype not in (None, "", "void") else data.dtype
    strides = expand_tuple(strides, 2, "conv: strides")
    dilations = expand_tuple(dilation, 2, "conv: dilation")
    opad = expand_tuple(output_padding, 2, "conv: output_padding")
    groups = get_const_int(groups)
    n, c, h, w = data.shape
    c_k, o_per_group, kh, kw = kernel.shape
    before, after = get_pad_tuple(padding, [kh, kw])
    if is_const_int(c) and is_const_int(c_k) and get_const_int(c) != get_const_int(c_k):
        raise ValueError(f"conv2d_transpose: data channels {get_const_int(c)} != kernel input "
                         f"channels {get_const_int(c_k)}")
    sizes = []
    for s, (extent, k) in enumerate(((h, kh), (w, kw))):
        dt = extent.dtype
        full = (extent - const_like(1, dt)) * const_like(strides[s], dt) + \
            const_like(dilations[s], dt) * (k - const_like(1, dt)) + const_like(1, dt)
        sizes.append(simplify(full - const_like(before[s] + after[s] - opad[s], dt)))
    out_ch = simplify(o_per_group * const_like(groups, o_per_group.dtype))
    c_per_group = _g.floordiv(c, const_like(groups, c.dtype))
    rc = reduce_axis(c_per_group, "rc")
    ra, rb = reduce_axis(kh, "ra"), reduce_axis(kw, "rb")

    def body(nn, o, y, x):
        g = _g.floordiv(o, as_index(o_per_group, o.dtype))
        chan = g * as_index(c_per_group, o.dtype) + as_index(rc.var, o.dtype)
        o_local = _g.floormod(o, as_index(o_per_group, o.dtype))
        conds, src = [], []
        for s, (pos, r, extent) in enumerate(((y, ra, h), (x, rb, w))):
            dt = pos.dtype
            full = pos + const_like(before[s], dt) - as_index(r.var, dt) * \
                const_like(dilations[s], dt)
            stride = const_like(strides[s], dt)
            i = _g.floordiv(full, stride)
            conds += [_g.equal(_g.floormod(full, stride), const_like(0, dt)),
                      _g.greater_equal(full, const_like(0, dt)),
                      _g.less(i, as_index(extent, dt))]
            src.append(i)
        inside = conds[0]
        for cond in conds[1:]:
            inside = _g.logical_and(inside, cond)
        a = data(nn, chan, src[0], src[1])
        wv = kernel(chan, o_local, ra.var, rb.var)
        if a.dtype != out_dtype:
            a = _g.cast(a, out_dtype)
        if wv.dtype != out_dtype:
            wv = _g.cast(wv, out_dtype)
        # if_then_else: the data load is out of bounds where no input position maps here.
        value = tirx.if_then_else(inside, a * wv, const_like(0, out_dtype))
        return te.sum(value, axis=[rc, ra, rb])

    return te.compute((n, out_ch, sizes[0], sizes[1]), body, name="conv2d_transpose",
                      tag="conv2d_transpose_nchw")


def conv2d_transpose_nchw(Input, Filter, strides, padding, out_dtype,
                          output_padding):
    """Transposed 2-D convolution, NCHW data and IOHW kernel."""
    return conv2d_transpose(Input, Filter, strides, padding, 1, 1, output_padding, out_dtype)


def group_conv2d_transpose_nchw(data, kernel, stride, padding, out_dtype, output_padding,
                                groups):
    """Grouped transposed 2-D convolution, NCHW data and IOHW kernel."""
    return conv2d_transpose(data, kernel, stride, padding, 1, groups, output_padding,
                            out_dtype)
