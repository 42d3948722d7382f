"""Ops written in TVMScript by hand parse, infer and evaluate (the parser resolves R.<op>)."""

from __future__ import annotations

import numpy as np

from tvm.relax.testing import evaluate
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class SmallNet:
    @R.function
    def main(
        x: R.Tensor((1, 2, 6, 6), "float32"),
        w: R.Tensor((3, 2, 3, 3), "float32"),
        labels: R.Tensor((1,), "int64"),
    ):
        with R.dataflow():
            y = R.nn.conv2d(x, w, padding=1)
            y = R.nn.relu(y)
            y = R.nn.max_pool2d(y, pool_size=2, strides=2)
            y = R.reshape(y, R.shape([1, 27]))
            z = R.strided_slice(y, axes=[1], begin=[0], end=[5])
            logp = R.nn.log_softmax(z, axis=-1)
            loss = R.nn.nll_loss(logp, labels)
            parts = R.split(z, 5, axis=1)
            top = R.topk(z, k=2, axis=-1)
            R.output(loss, parts, top)
        return (loss, parts[4], top[1], R.clip(loss, T.float32(0.0), T.float32(1.0)))


def _numpy_net(x, w, labels):
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 3, 6, 6), "float64")
    for i in range(6):
        for j in range(6):
            conv[0, :, i, j] = np.einsum("chw,ochw->o", xp[0, :, i : i + 3, j : j + 3], w)
    y = np.maximum(conv, 0).reshape(1, 3, 3, 2, 3, 2).max(axis=(3, 5)).reshape(1, 27)
    z = y[:, :5]
    logp = z - z.max() - np.log(np.exp(z - z.max()).sum())
    return z, -logp[0, labels[0]]


def test_hand_written_tvmscript_runs():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (1, 2, 6, 6)).astype("float32")
    w = rng.uniform(-1, 1, (3, 2, 3, 3)).astype("float32")
    labels = np.array([3], "int64")
    loss, last, top_idx, clipped = evaluate(SmallNet, x, w, labels)
    z, want_loss = _numpy_net(x, w, labels)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-4)
    np.testing.assert_allclose(last, z[:, 4:5], rtol=1e-5)
    np.testing.assert_array_equal(top_idx, np.argsort(-z, axis=-1, kind="stable")[:, :2])
    np.testing.assert_allclose(clipped, np.clip(want_loss, 0, 1), rtol=1e-4)


def test_printed_types_of_hand_written_ops():
    text = SmallNet.script()
    assert "R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1]" in text
    assert 'R.Tensor((1, 3, 6, 6), dtype="float32")' in text
    assert 'R.topk(z, k=2, axis=-1, ret_type="both", largest=True, dtype="int32")' in text
