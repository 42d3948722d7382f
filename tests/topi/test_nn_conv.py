"""topi.nn convolutions (1-D/2-D, layouts, strides, padding, dilation, groups, transpose)."""

import numpy as np
import pytest

from tvm import te, topi


def conv_ref(x, w, strides, pads, dilation, groups):
    """N-D grouped convolution on NC.../OI... in float64; ``pads`` = before... + after..."""
    sp = x.ndim - 2
    x = np.pad(x.astype("float64"), [(0, 0), (0, 0)] + [(pads[d], pads[d + sp])
                                                         for d in range(sp)])
    w = w.astype("float64")
    o, ipg = w.shape[:2]
    k = w.shape[2:]
    outs = [(x.shape[2 + d] - dilation[d] * (k[d] - 1) - 1) // strides[d] + 1 for d in range(sp)]
    out = np.zeros([x.shape[0], o] + outs)
    opg = o // groups
    for pos in np.ndindex(*k):
        index = tuple(slice(pos[d] * dilation[d],
                            pos[d] * dilation[d] + (outs[d] - 1) * strides[d] + 1, strides[d])
                      for d in range(sp))
        patch = x[(slice(None), slice(None)) + index]
        for g in range(groups):
            xs = patch[:, g * ipg:(g + 1) * ipg]
            ws = w[(slice(g * opg, (g + 1) * opg), slice(None)) + pos]
            out[:, g * opg:(g + 1) * opg] += np.einsum("nc...,oc->no...", xs, ws)
    return out


def conv_transpose_ref(x, w, strides, pads, dilation, groups, output_padding):
    """Scatter each input through the IOHW kernel, then crop the padding."""
    n, c, h, wd = x.shape
    opg = w.shape[1]
    cpg = c // groups
    (sh, sw), (dh, dw) = strides, dilation
    kh, kw = w.shape[2:]
    fh = (h - 1) * sh + dh * (kh - 1) + 1 + output_padding[0]
    fw = (wd - 1) * sw + dw * (kw - 1) + 1 + output_padding[1]
    full = np.zeros((n, opg * groups, fh, fw))
    for a in range(kh):
        for b in range(kw):
            rows = slice(a * dh, a * dh + (h - 1) * sh + 1, sh)
            cols = slice(b * dw, b * dw + (wd - 1) * sw + 1, sw)
            for g in range(groups):
                full[:, g * opg:(g + 1) * opg, rows, cols] += np.einsum(
                    "nchw,co->nohw", x[:, g * cpg:(g + 1) * cpg],
                    w[g * cpg:(g + 1) * cpg, :, a, b])
    pt, pl, pb, pr = pads
    return full[:, :, pt:fh - pb, pl:fw - pr]


@pytest.mark.parametrize("strides, pads, dilation, groups", [
    ((1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 1), (1, 0, 1, 2), (1, 1), 1),
    ((1, 1), (1, 1, 1, 1), (2, 1), 1),
    ((1, 2), (0, 1, 0, 1), (1, 1), 2),
])
def test_conv2d_nchw(run, rng, strides, pads, dilation, groups):
    x = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    w = rng.standard_normal((2, 2 // groups, 3, 2)).astype("float32")
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    out = run([X, W], topi.nn.conv2d(X, W, strides, pads, dilation, groups=groups), [x, w])
    np.testing.assert_allclose(out, conv_ref(x, w, strides, pads, dilation, groups),
                               rtol=1e-4, atol=1e-5)


def test_conv2d_nhwc_and_entry_points(run, rng):
    x = rng.standard_normal((1, 2, 5, 3)).astype("float32")
    w = rng.standard_normal((3, 2, 2, 3)).astype("float32")  # OIHW
    expected = conv_ref(x, w, (1, 2), (1, 0, 0, 1), (1, 1), 1)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    out = run([X, W], topi.nn.conv2d_nchw(X, W, (1, 2), (1, 0, 0, 1), 1), [x, w])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    xh, wh = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0)  # NHWC, HWIO
    XH, WH = te.placeholder(xh.shape, name="XH"), te.placeholder(wh.shape, name="WH")
    out = run([XH, WH], topi.nn.conv2d_nhwc(XH, WH, (1, 2), (1, 0, 0, 1), 1), [xh, wh])
    np.testing.assert_allclose(out, expected.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)
    # NHWC data with an OIHW kernel (Relax's default kernel layout with NHWC data).
    out = run([XH, W], topi.nn.conv2d(XH, W, (1, 2), (1, 0, 0, 1), 1, "NHWC", "OIHW"), [xh, w])
    np.testing.assert_allclose(out, expected.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)
    out = run([X, W], topi.nn.group_conv2d_nchw(X, W, 1, "SAME", 1, 1), [x, w])
    np.testing.assert_allclose(out, conv_ref(x, w, (1, 1), (0, 1, 1, 1), (1, 1), 1),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layout", ["NCW", "NWC"])
@pytest.mark.parametrize("strides, pads, dilation, groups", [
    (1, (0, 0), 1, 1), (2, (1, 2), 1, 1), (1, (1, 1), 2, 2)])
def test_conv1d(run, rng, layout, strides, pads, dilation, groups):
    x = rng.standard_normal((1, 2, 7)).astype("float32")
    w = rng.standard_normal((4, 2 // groups, 3)).astype("float32")
    expected = conv_ref(x, w, (strides,), pads, (dilation,), groups)
    if layout == "NWC":
        x, w, expected = x.transpose(0, 2, 1), w.transpose(2, 1, 0), expected.transpose(0, 2, 1)
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    out = run([X, W], topi.nn.conv1d(X, W, strides, pads, dilation, groups, layout), [x, w])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv1d_entry_points_and_out_dtype(run, rng):
    x = rng.integers(-3, 3, (1, 2, 5)).astype("int8")
    w = rng.integers(-3, 3, (3, 2, 2)).astype("int8")
    X, W = te.placeholder(x.shape, "int8", name="X"), te.placeholder(w.shape, "int8", name="W")
    out = run([X, W], topi.nn.conv1d_ncw(X, W, 1, 0, 1, out_dtype="int32"), [x, w])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, conv_ref(x, w, (1,), (0, 0), (1,), 1).astype("int32"))
    xw, ww = x.transpose(0, 2, 1), w.transpose(2, 1, 0)
    XW = te.placeholder(xw.shape, "int8", name="XW")
    WW = te.placeholder(ww.shape, "int8", name="WW")
    out = run([XW, WW], topi.nn.conv1d_nwc(XW, WW, 1, 0, 1, out_dtype="int32"), [xw, ww])
    np.testing.assert_array_equal(out.transpose(0, 2, 1),
                                  conv_ref(x, w, (1,), (0, 0), (1,), 1).astype("int32"))


def test_conv_errors():
    X = te.placeholder((1, 3, 5, 5), name="X")
    W = te.placeholder((4, 2, 3, 3), name="W")
    with pytest.raises(ValueError, match="input channels 3"):
        topi.nn.conv2d(X, W, 1, 0, 1)
    with pytest.raises(ValueError, match="layout"):
        topi.nn.conv2d(X, W, 1, 0, 1, "NCHWc")
    with pytest.raises(ValueError, match="padding"):
        topi.nn.conv2d(X, W, 1, (1, 2, 3), 1)


@pytest.mark.parametrize("strides, pads, dilation, groups, opad", [
    ((1, 1), (0, 0, 0, 0), (1, 1), 1, (0, 0)),
    ((2, 2), (1, 0, 0, 1), (1, 1), 1, (1, 0)),
    ((2, 1), (0, 1, 1, 0), (1, 2), 2, (0, 0)),
])
def test_conv2d_transpose(run, rng, strides, pads, dilation, groups, opad):
    x = rng.standard_normal((1, 2, 3, 4)).astype("float32")
    w = rng.standard_normal((2, 3, 3, 2)).astype("float32")  # IOHW, O per group
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    out = run([X, W], topi.nn.conv2d_transpose(X, W, strides, pads, dilation, groups, opad),
              [x, w])
    np.testing.assert_allclose(out, conv_transpose_ref(x, w, strides, pads, dilation, groups,
                                                       opad), rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_entry_points(run, rng):
    x = rng.standard_normal((1, 2, 3, 3)).astype("float32")
    w = rng.standard_normal((2, 1, 2, 2)).astype("float32")
    X, W = te.placeholder(x.shape, name="X"), te.placeholder(w.shape, name="W")
    out = run([X, W], topi.nn.conv2d_transpose_nchw(X, W, (2, 2), (0, 0, 0, 0), "float32",
                                                    (0, 0)), [x, w])
    np.testing.assert_allclose(out, conv_transpose_ref(x, w, (2, 2), (0, 0, 0, 0), (1, 1), 1,
                                                       (0, 0)), rtol=1e-4, atol=1e-5)
    out = run([X, W], topi.nn.group_conv2d_transpose_nchw(X, W, (1, 1), (0, 0, 0, 0),
                                                          "float32", (0, 0), 2), [x, w])
    np.testing.assert_allclose(out, conv_transpose_ref(x, w, (1, 1), (0, 0, 0, 0), (1, 1), 2,
                                                       (0, 0)), rtol=1e-4, atol=1e-5)


def test_dilate_values_and_shape(run, rng):
    x = rng.standard_normal((2, 3)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    D = topi.nn.dilate(X, [1, 2], dilation_value=-1.0)
    assert [int(s) for s in D.shape] == [2, 5]
    expected = np.full((2, 5), -1.0, "float32")
    expected[:, ::2] = x
    np.testing.assert_array_equal(run([X], D, [x]), expected)
    with pytest.raises(ValueError, match="2 strides"):
        topi.nn.dilate(X, [2])


def test_conv_stages_follow_topi():
    """Stage and block names are TVM's: a pad copy even without padding, ``conv2d_nhwc`` with
    reductions in layout order, and the four stages of a transposed convolution."""
    X = te.placeholder((1, 4, 4, 2), name="X")
    W = te.placeholder((3, 2, 2, 2), name="W")
    out = topi.nn.conv(X, W, 1, 0, 1, 1, "NHWC", "OIHW")
    assert out.op.name == "conv2d_nhwc"
    assert out.op.input_tensors[0].op.name == "pad_temp"
    assert [r.var.name for r in out.op.reduce_axis] == ["ry", "rx", "rc"]
    Xc = te.placeholder((1, 4, 3, 3), name="Xc")
    Wt = te.placeholder((4, 1, 2, 2), name="Wt")
    assert topi.nn.conv(Xc, te.placeholder((2, 2, 2, 2), name="Wg"), 1, 0, 1, 2,
                        "NCHW").op.name == "group_conv2d_nchw"
    t = topi.nn.conv2d_transpose(Xc, Wt, (2, 2), (0, 0, 0, 0))
    names = {s.op.name for s in t.op.input_tensors}
    assert names == {"data_pad", "kernel_transform"}
