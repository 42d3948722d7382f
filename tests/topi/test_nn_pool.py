"""topi.nn pooling (max/avg, padding, dilation, ceil_mode, count_include_pad, layouts),
adaptive pooling and pooling gradients against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


def _positions(i, j, kernel, strides, dilation, pads):
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides, dilation
    return [(i * sh - pads[0] + a * dh, j * sw - pads[1] + b * dw)
            for a in range(kh) for b in range(kw)]


def _out_size(h, w, kernel, strides, dilation, pads, ceil_mode):
    def size(extent, k, s, d, p0, p1):
        span = extent + p0 + p1 - (d * (k - 1) + 1)
        return (span + (s - 1 if ceil_mode else 0)) // s + 1

    return (size(h, kernel[0], strides[0], dilation[0], pads[0], pads[2]),
            size(w, kernel[1], strides[1], dilation[1], pads[1], pads[3]))


def _count(pos, h, w, pads, count_include_pad):
    if count_include_pad:
        return sum(1 for r, s in pos if -pads[0] <= r < h + pads[2] and -pads[1] <= s < w + pads[3])
    return sum(1 for r, s in pos if 0 <= r < h and 0 <= s < w)


def pool_ref(x, kernel, strides, dilation, pads, is_max, ceil_mode, count_include_pad):
    n, c, h, w = x.shape
    oh, ow = _out_size(h, w, kernel, strides, dilation, pads, ceil_mode)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            pos = _positions(i, j, kernel, strides, dilation, pads)
            vals = [x[:, :, r, s] for r, s in pos if 0 <= r < h and 0 <= s < w]
            if is_max:
                out[:, :, i, j] = np.max(vals, axis=0) if vals else -np.inf
            else:
                count = max(_count(pos, h, w, pads, count_include_pad), 1)
                out[:, :, i, j] = np.sum(vals, axis=0) / count if vals else 0.0
    return out


def pool_grad_ref(g_out, x, kernel, strides, dilation, pads, is_max, count_include_pad):
    h, w = x.shape[2:]
    grad = np.zeros(x.shape)
    for i in range(g_out.shape[2]):
        for j in range(g_out.shape[3]):
            pos = _positions(i, j, kernel, strides, dilation, pads)
            inside = [(r, s) for r, s in pos if 0 <= r < h and 0 <= s < w]
            if not inside:
                continue
            g = g_out[:, :, i, j]
            if is_max:
                first = np.argmax(np.stack([x[:, :, r, s] for r, s in inside]), axis=0)
                for k, (r, s) in enumerate(inside):
                    grad[:, :, r, s] += np.where(first == k, g, 0.0)
            else:
                count = _count(pos, h, w, pads, count_include_pad)
                for r, s in inside:
                    grad[:, :, r, s] += g / count
    return grad


CASES = [
    # kernel, strides, dilation, pads, ceil_mode, count_include_pad
    ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0), False, True),
    ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1), False, True),
    ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1), False, False),
    ((2, 3), (2, 2), (1, 1), (0, 1, 1, 0), True, False),
    ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0), True, True),
    ((2, 2), (1, 2), (2, 1), (1, 0, 0, 0), False, True),
]


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("case", CASES)
def test_pool2d(run, rng, pool_type, case):
    kernel, strides, dilation, pads, ceil_mode, cip = case
    x = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    out = run([X], topi.nn.pool2d(X, kernel, strides, dilation, pads, pool_type, ceil_mode,
                                  "NCHW", cip), [x])
    np.testing.assert_allclose(out, pool_ref(x, kernel, strides, dilation, pads,
                                             pool_type == "max", ceil_mode, cip), rtol=1e-5)


def test_pool2d_nhwc_and_errors(run, rng):
    x = rng.standard_normal((1, 2, 5, 3)).astype("float32")
    xh = x.transpose(0, 2, 3, 1)
    X = te.placeholder(xh.shape, name="X")
    out = run([X], topi.nn.pool2d(X, (2, 2), (1, 1), (1, 1), (1, 0, 0, 1), "avg",
                                  layout="NHWC"), [xh])
    expected = pool_ref(x, (2, 2), (1, 1), (1, 1), (1, 0, 0, 1), False, False, True)
    np.testing.assert_allclose(out, expected.transpose(0, 2, 3, 1), rtol=1e-5)
    with pytest.raises(ValueError, match="pool_type"):
        topi.nn.pool2d(X, 2, 1, 1, 0, "sum", layout="NHWC")
    with pytest.raises(ValueError, match="splits the spatial axis 'H'"):
        topi.nn.pool2d(X, 2, 1, 1, 0, "max", layout="NCHW4h")
    with pytest.raises(ValueError, match="must contain the axes 'HW'"):
        topi.nn.pool2d(X, 2, 1, 1, 0, "max", layout="NCDW")


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_pool2d_blocked_layout(run, rng, pool_type):
    # NCHW4c: channel blocks of 4 as the last axis; H and W are axes 2 and 3.
    x = rng.standard_normal((1, 8, 6, 5)).astype("float32")
    blocked = x.reshape(1, 2, 4, 6, 5).transpose(0, 1, 3, 4, 2)
    X = te.placeholder(blocked.shape, name="X")
    out = run([X], topi.nn.pool2d(X, (3, 2), (2, 1), (1, 1), (1, 0, 1, 1), pool_type, True,
                                  "NCHW4c", False), [blocked])
    ref = pool_ref(x, (3, 2), (2, 1), (1, 1), (1, 0, 1, 1), pool_type == "max", True, False)
    ref = ref.reshape(1, 2, 4, *ref.shape[2:]).transpose(0, 1, 3, 4, 2)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_pool2d_stages_as_tvm():
    # Padding is a stage of its own (pad_temp); the reduction reads it without bounds checks.
    X = te.placeholder((1, 1, 4, 4), name="X")
    out = topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    assert [t.name for t in out.op.input_tensors] == ["pad_temp"]
    assert out.op.attrs["schedule_rule"] == "meta_schedule.pool_max"
    assert [a.var.name for a in out.op.reduce_axis] == ["rv0", "rv1"]
    avg = topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "avg")
    assert [t.name for t in avg.op.input_tensors] == ["pool_sum"]


def adaptive_ref(x, out_size, is_max):
    n, c, h, w = x.shape
    oh, ow = out_size
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        r0, r1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            c0, c1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            window = x[:, :, r0:r1, c0:c1]
            out[:, :, i, j] = window.max(axis=(2, 3)) if is_max else window.mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("out_size", [(1, 1), (2, 3), (5, 4), None])
@pytest.mark.parametrize("pool_type", ["avg", "max"])
def test_adaptive_pool(run, rng, out_size, pool_type):
    x = rng.standard_normal((1, 2, 5, 4)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    out = run([X], topi.nn.adaptive_pool(X, out_size, pool_type), [x])
    np.testing.assert_allclose(out, adaptive_ref(x, out_size or (5, 4), pool_type == "max"),
                               rtol=1e-5)


def test_global_pool_nhwc(run, rng):
    x = rng.standard_normal((1, 3, 4, 2)).astype("float32")
    X = te.placeholder(x.shape, name="X")
    out = run([X], topi.nn.global_pool(X, "avg", "NHWC"), [x])
    np.testing.assert_allclose(out, x.mean(axis=(1, 2), keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("case", CASES[:4] + CASES[5:])
def test_pool_grad(run, rng, pool_type, case):
    kernel, strides, dilation, pads, ceil_mode, cip = case
    x = rng.integers(0, 4, (1, 2, 5, 5)).astype("float32")  # ties: first maximum wins
    oh, ow = _out_size(5, 5, kernel, strides, dilation, pads, ceil_mode)
    g = rng.standard_normal((1, 2, oh, ow)).astype("float32")
    X, G = te.placeholder(x.shape, name="X"), te.placeholder(g.shape, name="G")
    out = run([G, X], topi.nn.pool_grad(G, X, kernel, strides, pads, pool_type, ceil_mode,
                                        cip, "NCHW", dilation), [g, x])
    np.testing.assert_allclose(out, pool_grad_ref(g, x, kernel, strides, dilation, pads,
                                                  pool_type == "max", cip), rtol=1e-5,
                               atol=1e-6)


DISJOINT = [
    # shape, kernel, strides, pads, ceil_mode: each input in at most one window (the
    # elementwise form of pool_grad)
    ((4, 6), (2, 2), (2, 2), (0, 0, 0, 0), False),  # every window inside, every input covered
    ((5, 5), (2, 2), (2, 2), (0, 0, 0, 0), False),  # last row/column in no window
    ((5, 5), (2, 2), (2, 2), (0, 0, 0, 0), True),  # last windows half outside
    ((5, 7), (2, 2), (3, 3), (0, 0, 0, 0), False),  # gaps between windows
    ((5, 5), (2, 3), (2, 3), (1, 1, 1, 1), False),  # padding
    ((6, 6), (3, 3), (3, 3), (0, 0, 0, 0), False),
]


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("case", DISJOINT)
def test_pool_grad_disjoint_windows(run, rng, pool_type, case):
    (h, w), kernel, strides, pads, ceil_mode = case
    x = rng.integers(0, 3, (2, 3, h, w)).astype("float32")  # many ties: first maximum wins
    oh, ow = _out_size(h, w, kernel, strides, (1, 1), pads, ceil_mode)
    g = rng.standard_normal((2, 3, oh, ow)).astype("float32")
    X, G = te.placeholder(x.shape, name="X"), te.placeholder(g.shape, name="G")
    out = run([G, X], topi.nn.pool_grad(G, X, kernel, strides, pads, pool_type, ceil_mode,
                                        True, "NCHW"), [g, x])
    ref = pool_grad_ref(g, x, kernel, strides, (1, 1), pads, pool_type == "max", True)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_pool_grad_disjoint_nhwc(run, rng):
    x = rng.integers(0, 3, (2, 6, 4, 3)).astype("float32")
    g = rng.standard_normal((2, 3, 2, 3)).astype("float32")
    X, G = te.placeholder(x.shape, name="X"), te.placeholder(g.shape, name="G")
    out = run([G, X], topi.nn.pool_grad(G, X, (2, 2), (2, 2), (0, 0), "max", layout="NHWC"),
              [g, x])
    nchw = lambda a: a.transpose(0, 3, 1, 2)
    ref = pool_grad_ref(nchw(g), nchw(x), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), True, True)
    np.testing.assert_allclose(out, ref.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-6)


def test_pool_grad_disjoint_form_is_elementwise():
    # Non-overlapping windows: the gradient stage has no reduction over the window (its
    # dead iterations made the loop form ~4x slower for 2x2 windows).
    X, G = te.placeholder((1, 2, 4, 4), name="X"), te.placeholder((1, 2, 2, 2), name="G")
    out = topi.nn.pool_grad(G, X, (2, 2), (2, 2), (0, 0), "max")
    assert not out.op.reduce_axis
    out = topi.nn.pool_grad(G, X, (2, 2), (1, 1), (0, 0), "max")  # overlapping: loop form
    assert len(out.op.reduce_axis) == 2


@pytest.mark.parametrize("pool_type", ["avg", "max"])
def test_adaptive_pool_even_windows_blocked_layout(run, rng, pool_type):
    # 6x4 -> 3x2: windows of 2x2 that tile the input (TVM's fixed-window staging, rv0/rv1).
    x = rng.standard_normal((1, 8, 6, 4)).astype("float32")
    blocked = x.reshape(1, 2, 4, 6, 4).transpose(0, 1, 3, 4, 2)  # NCHW4c
    X = te.placeholder(blocked.shape, name="X")
    out = topi.nn.adaptive_pool(X, (3, 2), pool_type, "NCHW4c")
    assert out.op.attrs["schedule_rule"] == f"meta_schedule.adaptive_pool_{pool_type}"
    got = run([X], out, [blocked])
    ref = adaptive_ref(x, (3, 2), pool_type == "max")
    np.testing.assert_allclose(got, ref.reshape(1, 2, 4, 3, 2).transpose(0, 1, 3, 4, 2),
                               rtol=1e-5)
