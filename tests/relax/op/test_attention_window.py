"""``nn.attention`` with ``window_size`` (sliding-window attention): the reference evaluator
and the legalized kernel against a mask written out in NumPy; undefined uses are errors."""

import numpy as np
import pytest

from tvm import relax
from tvm.relax.testing import evaluate


def _module(s, t, causal_mask, window_size):
    q = relax.Var("q", relax.TensorType((1, s, 1, 2), "float32"))
    k = relax.Var("k", relax.TensorType((1, t, 1, 2), "float32"))
    v = relax.Var("v", relax.TensorType((1, t, 1, t), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [q, k, v]):
        out = bb.emit(relax.op.nn.attention(q, k, v, causal_mask=causal_mask,
                                            window_size=window_size))
        bb.emit_func_output(out)
    return bb.get()


def _uniform_inputs(s, t):
    # Equal scores and one-hot values: each output row is the averaging weights themselves.
    q = np.zeros((1, s, 1, 2), "float32")
    k = np.zeros((1, t, 1, 2), "float32")
    v = np.eye(t, dtype="float32").reshape(1, t, 1, t)
    return q, k, v


@pytest.mark.parametrize("s, t, window, expected", [
    # Query i's diagonal is key i + 2; the window holds it and the key before.
    (3, 5, 2, [[0, 0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5, 0], [0, 0, 0, 0.5, 0.5]]),
    (4, 4, 1, np.eye(4)),
    (3, 3, 2, [[1, 0, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]]),
])
def test_window_weights(s, t, window, expected):
    mod = _module(s, t, "BottomRight", window)
    expected = np.asarray(expected, "float32")
    ref = evaluate(mod, *_uniform_inputs(s, t))[0, :, 0, :]
    np.testing.assert_allclose(ref, expected, atol=1e-6)
    legalized = relax.transform.LegalizeOps()(mod)
    out = evaluate(legalized, *_uniform_inputs(s, t))[0, :, 0, :]
    np.testing.assert_allclose(out, expected, atol=1e-6)


@pytest.mark.parametrize("causal_mask", [None, "TopLeft"])
def test_window_needs_bottom_right(causal_mask):
    mod = _module(3, 3, causal_mask, 2)
    with pytest.raises(ValueError, match="window_size.*BottomRight"):
        evaluate(mod, *_uniform_inputs(3, 3))
    with pytest.raises(ValueError, match="window_size.*BottomRight"):
        relax.transform.LegalizeOps()(mod)
