"""topi.nn transposed 1-D/3-D convolutions (plain and grouped) against a NumPy scatter
reference, and their stages."""

import itertools

import numpy as np
import pytest

from tvm import te, topi


def conv_transpose_ref(x, w, strides, pads_before, pads_after, output_padding, groups):
    """Scatter each input element times the kernel into the full output, then crop."""
    n, cin = x.shape[:2]
    spatial = x.shape[2:]
    opg = w.shape[1]
    ipg = cin // groups
    ks = w.shape[2:]
    full = [(s - 1) * st + k + op for s, st, k, op in zip(spatial, strides, ks, output_padding)]
    out = np.zeros((n, opg * groups, *[f + pa for f, pa in zip(full, pads_after)]))
    for pos in itertools.product(*[range(s) for s in spatial]):
        for kpos in itertools.product(*[range(k) for k in ks]):
            dst = tuple(p * st + kk for p, st, kk in zip(pos, strides, kpos))
            for g in range(groups):
                xs = x[(slice(None), slice(g * ipg, (g + 1) * ipg), *pos)]  # (n, ipg)
                ws = w[(slice(g * ipg, (g + 1) * ipg), slice(None), *kpos)]  # (ipg, opg)
                out[(slice(None), slice(g * opg, (g + 1) * opg), *dst)] += xs @ ws
    lengths = [(s - 1) * st - pb - pa + k + op for s, st, pb, pa, k, op in
               zip(spatial, strides, pads_before, pads_after, ks, output_padding)]
    crop = tuple(slice(pb, pb + ln) for pb, ln in zip(pads_before, lengths))
    return out[(slice(None), slice(None), *crop)]


@pytest.mark.parametrize("groups", [1, 2])
def test_conv1d_transpose(run, rng, groups):
    x = rng.standard_normal((2, 4, 5)).astype("float32")
    w = rng.standard_normal((4, 3, 3)).astype("float32")
    X, W = te.placeholder(x.shape, name="x"), te.placeholder(w.shape, name="w")
    out = topi.nn.group_conv1d_transpose_ncw(X, W, 2, [1, 0], "float32", 1, groups)
    assert [int(d) for d in out.shape] == [2, 3 * groups, 11]
    got = run([X, W], out, [x, w])
    ref = conv_transpose_ref(x, w, (2,), (1,), (0,), (1,), groups)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_out_dtype(run, rng):
    x = rng.standard_normal((1, 2, 3, 2, 3)).astype("float32")
    w = rng.standard_normal((2, 2, 2, 3, 2)).astype("float32")
    X, W = te.placeholder(x.shape, name="x"), te.placeholder(w.shape, name="w")
    out = topi.nn.conv3d_transpose_ncdhw(X, W, (1, 2, 1), (0, 1, 0, 0, 1, 1), "float64",
                                         (0, 1, 0))
    assert out.dtype == "float64"
    got = run([X, W], out, [x, w])
    ref = conv_transpose_ref(x, w, (1, 2, 1), (0, 1, 0), (0, 1, 1), (0, 1, 0), 1)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_conv_transpose_stages_as_tvm():
    X = te.placeholder((1, 4, 5), name="x")
    W = te.placeholder((4, 2, 3), name="w")
    out = topi.nn.conv1d_transpose_ncw(X, W, 2, 1, "float32", 0)
    names = [t.op.name for t in out.op.input_tensors]
    assert names == ["data_pad", "kernel"]
    X3 = te.placeholder((1, 2, 2, 2, 2), name="x")
    W3 = te.placeholder((2, 1, 2, 2, 2), name="w")
    out3 = topi.nn.conv3d_transpose_ncdhw(X3, W3, 1, 0, "float32", 0)
    assert [t.op.name for t in out3.op.input_tensors] == ["data_pad", "kernel_transform"]
    with pytest.raises(ValueError, match="expects 3-D data and kernel"):
        topi.nn.conv1d_transpose_ncw(X, W3, 1, 0, "float32", 0)
