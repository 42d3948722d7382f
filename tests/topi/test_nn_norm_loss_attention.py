"""topi.nn normalization, losses and attention against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


def _ph(a, name):
    return te.placeholder(a.shape, str(a.dtype), name=name)


def _norm(v, axes, eps):
    mean = v.mean(axis=axes, keepdims=True)
    return (v - mean) / np.sqrt(v.var(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("axes", [[-1], [1, 2], [0]])
def test_layer_norm(run, rng, axes):
    x = rng.standard_normal((2, 3, 5)).astype("float32")
    pshape = tuple(x.shape[a] for a in axes)
    g = rng.standard_normal(pshape).astype("float32")
    b = rng.standard_normal(pshape).astype("float32")
    X, G, B = _ph(x, "X"), _ph(g, "G"), _ph(b, "B")
    out = run([X, G, B], topi.nn.layer_norm(X, G, B, axes, 1e-5), [x, g, b])
    bshape = [x.shape[d] if d in [a % 3 for a in axes] else 1 for d in range(3)]
    expected = _norm(x.astype("float64"), tuple(axes), 1e-5) * g.reshape(bshape) + \
        b.reshape(bshape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    out = run([X], topi.nn.layer_norm(X, None, None, axes), [x])
    np.testing.assert_allclose(out, _norm(x.astype("float64"), tuple(axes), 1e-5), rtol=1e-4,
                               atol=1e-5)


def test_rms_norm(run, rng):
    x = rng.standard_normal((3, 5)).astype("float32")
    w = rng.standard_normal(5).astype("float32")
    X, W = _ph(x, "X"), _ph(w, "W")
    out = run([X, W], topi.nn.rms_norm(X, W, [-1], 1e-6), [x, w])
    v = x.astype("float64")
    expected = v / np.sqrt((v * v).mean(-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("channel_axis, axes", [(1, [2, 3]), (-1, [1])])
def test_group_norm(run, rng, channel_axis, axes):
    shape = (2, 4, 3, 5) if channel_axis == 1 else (2, 3, 4)
    x = rng.standard_normal(shape).astype("float32")
    ch = channel_axis % x.ndim
    g = rng.standard_normal(x.shape[ch]).astype("float32")
    b = rng.standard_normal(x.shape[ch]).astype("float32")
    X, G, B = _ph(x, "X"), _ph(g, "G"), _ph(b, "B")
    out = run([X, G, B], topi.nn.group_norm(X, G, B, 2, channel_axis, axes, 1e-5), [x, g, b])
    grouped = list(shape[:ch]) + [2, shape[ch] // 2] + list(shape[ch + 1:])
    v = x.astype("float64").reshape(grouped)
    red = tuple([ch + 1] + [a % x.ndim + (1 if a % x.ndim > ch else 0) for a in axes])
    expected = _norm(v, red, 1e-5).reshape(shape)
    pshape = [shape[ch] if d == ch else 1 for d in range(x.ndim)]
    expected = expected * g.reshape(pshape) + b.reshape(pshape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="not divisible"):
        topi.nn.group_norm(X, G, B, 3, channel_axis, axes)


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("axis", [1, -1])
def test_batch_norm(run, rng, training, axis):
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    c = x.shape[axis]
    g, b = rng.standard_normal(c).astype("float32"), rng.standard_normal(c).astype("float32")
    mm = rng.standard_normal(c).astype("float32")
    mv = rng.uniform(0.5, 1.5, c).astype("float32")
    ts = [_ph(a, n) for a, n in ((x, "X"), (g, "G"), (b, "B"), (mm, "MM"), (mv, "MV"))]
    outs = topi.nn.batch_norm(*ts, axis=axis, epsilon=1e-5, training=training, momentum=0.2)
    out, new_mean, new_var = run(ts, outs, [x, g, b, mm, mv])
    ax = axis % 3
    red = tuple(d for d in range(3) if d != ax)
    shape = [c if d == ax else 1 for d in range(3)]
    v = x.astype("float64")
    mean, var = (v.mean(red), v.var(red)) if training else (mm, mv)
    expected = (v - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-5)
    expected = expected * g.reshape(shape) + b.reshape(shape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    exp_mean = 0.8 * mm + 0.2 * mean if training else mm
    exp_var = 0.8 * mv + 0.2 * var if training else mv
    np.testing.assert_allclose(new_mean, exp_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_var, exp_var, rtol=1e-5, atol=1e-6)


def test_batch_norm_no_center_scale(run, rng):
    x = rng.standard_normal((3, 2)).astype("float32")
    arrays = [x] + [rng.uniform(0.5, 1.5, 2).astype("float32") for _ in range(4)]
    ts = [_ph(a, f"T{k}") for k, a in enumerate(arrays)]
    out = run(ts, topi.nn.batch_norm(*ts, center=False, scale=False), arrays)[0]
    np.testing.assert_allclose(out, (x - arrays[3]) / np.sqrt(arrays[4] + 1e-5), rtol=1e-5)


def _nll_ref(pred, targets, weights, reduction, ignore):
    pred = pred.astype("float64")
    if pred.ndim == 1:
        pred, targets = pred[None], np.asarray(targets)[None]
    w = weights if weights is not None else np.ones(pred.shape[1])
    safe = np.where(targets == ignore, 0, targets)
    picked = np.take_along_axis(pred, np.expand_dims(safe, 1), 1).squeeze(1)
    weight = np.where(targets == ignore, 0.0, w[safe])
    loss = -weight * picked
    if reduction == "none":
        return loss, weight
    if reduction == "sum":
        return loss.sum(), weight
    return loss.sum() / weight.sum(), weight


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3)])
@pytest.mark.parametrize("with_weights", [True, False])
def test_nll_loss_and_backward(run, rng, reduction, shape, with_weights):
    pred = rng.standard_normal(shape).astype("float32")
    tshape = (shape[0],) + shape[2:]
    targets = rng.integers(0, 4, tshape).astype("int64")
    targets.flat[0] = -100  # ignored
    w = rng.uniform(0.5, 1.5, 4).astype("float32")
    P, T, W = _ph(pred, "P"), _ph(targets, "T"), _ph(w, "W")
    inputs, arrays = ([P, T, W], [pred, targets, w]) if with_weights else ([P, T],
                                                                            [pred, targets])
    weights_t = W if with_weights else None
    out = run(inputs, topi.nn.nll_loss(P, T, weights_t, reduction, -100), arrays)
    expected, weight = _nll_ref(pred, targets, w if with_weights else None, reduction, -100)
    np.testing.assert_allclose(out, np.asarray(expected).reshape(out.shape), rtol=1e-5,
                               atol=1e-6)
    g = rng.standard_normal(tshape if reduction == "none" else ()).astype("float32")
    Gt = _ph(g, "Gr")
    grad = run([Gt] + inputs, topi.nn.nll_loss_backward(Gt, P, T, weights_t, reduction, -100),
               [g] + arrays)
    scale = g / weight.sum() if reduction == "mean" else g
    per_item = -weight * (scale.reshape(weight.shape) if reduction == "none" else scale)
    safe = np.where(targets == -100, 0, targets)
    onehot = np.expand_dims(safe, 1) == np.arange(4).reshape([1, -1] + [1] * (len(shape) - 2))
    np.testing.assert_allclose(grad, np.where(onehot, np.expand_dims(per_item, 1), 0.0),
                               rtol=1e-5, atol=1e-6)


def test_nll_loss_1d_and_errors(run, rng):
    pred = rng.standard_normal(4).astype("float32")
    target = np.array(2, "int64")
    P, T = _ph(pred, "P"), te.placeholder((), "int64", name="T")
    out = run([P, T], topi.nn.nll_loss(P, T, None, "mean", -100), [pred, target])
    np.testing.assert_allclose(out, -pred[2], rtol=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        topi.nn.nll_loss(P, T, None, "avg", -100)
    with pytest.raises(ValueError, match="one more"):
        topi.nn.nll_loss(P, P, None, "mean", -100)


@pytest.mark.parametrize("shape", [(5,), (3, 5)])
def test_cross_entropy_with_logits(run, rng, shape):
    p = rng.standard_normal(shape).astype("float32")
    lab = rng.uniform(0, 1, shape).astype("float32")
    P, L = _ph(p, "P"), _ph(lab, "L")
    out = run([P, L], topi.nn.cross_entropy_with_logits(P, L), [p, lab])
    expected = -(p * lab).sum() / (shape[0] if len(shape) == 2 else 1)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def _attention_ref(q, k, v, bias, scale, causal):
    heads, kvh = q.shape[2], k.shape[2]
    if kvh != heads:
        k = np.tile(k, (1, 1, heads // kvh, 1))
        v = np.tile(v, (1, 1, heads // kvh, 1))
    scale = scale if scale is not None else 1 / np.sqrt(q.shape[3])
    scores = np.einsum("bsnh,btnh->bnst", q, k) * scale
    if bias is not None:
        scores = scores + bias
    if causal is not None:
        s, t = scores.shape[2:]
        offset = 0 if causal == "TopLeft" else t - s
        scores = np.where(np.arange(t)[None, :] > np.arange(s)[:, None] + offset, -np.inf,
                          scores)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    probs = e / e.sum(-1, keepdims=True)
    return np.einsum("bnst,btnh->bsnh", probs, v)


@pytest.mark.parametrize("kv_heads, bias_shape, scale, causal", [
    (2, None, None, None),
    (2, (1, 2, 3, 4), 0.5, None),
    (1, (3, 4), None, "TopLeft"),
    (2, None, None, "BottomRight"),
])
def test_attention(run, rng, kv_heads, bias_shape, scale, causal):
    q = rng.standard_normal((1, 3, 2, 5)).astype("float32")
    k = rng.standard_normal((1, 4, kv_heads, 5)).astype("float32")
    v = rng.standard_normal((1, 4, kv_heads, 3)).astype("float32")
    Q, K, V = _ph(q, "Q"), _ph(k, "K"), _ph(v, "V")
    inputs, arrays, bias = [Q, K, V], [q, k, v], None
    if bias_shape is not None:
        bias = rng.standard_normal(bias_shape).astype("float32")
        inputs.append(_ph(bias, "Bias"))
        arrays.append(bias)
    out = run(inputs, topi.nn.attention(Q, K, V, inputs[3] if bias is not None else None,
                                        scale, causal), arrays)
    np.testing.assert_allclose(out, _attention_ref(q, k, v, bias, scale, causal), rtol=1e-4,
                               atol=1e-5)


def test_attention_errors():
    Q = te.placeholder((1, 3, 2, 5), name="Q")
    with pytest.raises(ValueError, match="window_size"):
        topi.nn.attention(Q, Q, Q, window_size=2)
    with pytest.raises(ValueError, match="causal_mask"):
        topi.nn.attention(Q, Q, Q, causal_mask="Diagonal")


def test_batch_flatten(run, rng):
    x = rng.standard_normal((2, 3, 1, 5)).astype("float32")
    X = _ph(x, "X")
    np.testing.assert_array_equal(run([X], topi.nn.flatten(X), [x]), x.reshape(2, -1))


def _stages(out):
    """The computes ``out`` reads, directly or not, by name (with their dtypes)."""
    found, seen, stack = {}, set(), [out]
    while stack:
        t = stack.pop()
        if id(t.op) in seen or not hasattr(t.op, "body"):
            continue
        seen.add(id(t.op))
        found[t.op.name] = t.dtype
        stack.extend(t.op.input_tensors)
    return found


def _stage_names(out):
    return set(_stages(out))


def test_layer_norm_float16_accumulates_in_float32(run, rng):
    x = (rng.standard_normal((3, 8)) * 4 + 50).astype("float16")
    g = rng.standard_normal(8).astype("float16")
    b = rng.standard_normal(8).astype("float16")
    X, G, B = _ph(x, "x"), _ph(g, "g"), _ph(b, "b")
    out = topi.nn.layer_norm(X, G, B, [-1], 1e-5)
    assert _stage_names(out) == {"T_layer_norm", "x_sum", "x_mean", "x_var_sum"}
    stages = _stages(out)
    assert (stages["x_sum"], stages["x_var_sum"], stages["T_layer_norm"]) == (
        "float32", "float32", "float16")
    got = run([X, G, B], out, [x, g, b])
    v = x.astype("float64")
    ref = (_norm(v, (1,), 1e-5)).astype("float16").astype("float64") * g + b
    np.testing.assert_allclose(got.astype("float64"), ref, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_rms_norm_stages_and_float16(run, rng, dtype):
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    w = rng.standard_normal((3, 4)).astype(dtype)
    X, W = _ph(x, "x"), _ph(w, "w")
    out = topi.nn.rms_norm(X, W, [1, 2], 1e-5)
    assert out.dtype == dtype
    assert _stage_names(out) == {"T_cast", "T_rms_norm", "rsqrt", "T_multiply_red",
                                 "T_multiply"}
    got = run([X, W], out, [x, w])
    v = x.astype("float64")
    ref = v / np.sqrt((v * v).mean(axis=(1, 2), keepdims=True) + 1e-5) * w
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_group_norm_split_channel_stages_and_float16(run, rng):
    x = rng.standard_normal((2, 4, 3)).astype("float16")
    g = rng.standard_normal(4).astype("float16")
    b = rng.standard_normal(4).astype("float16")
    X, G, B = _ph(x, "x"), _ph(g, "g"), _ph(b, "b")
    out = topi.nn.group_norm(X, G, B, 2, 1, [2], 1e-5)
    # One two-value reduction (sum and sum of squares) over the split channel axis.
    assert "x_red_temp" in _stage_names(out) and "T_group_norm" in _stage_names(out)
    got = run([X, G, B], out, [x, g, b])
    v = x.astype("float64").reshape(2, 2, 2, 3)
    ref = _norm(v, (2, 3), 1e-5).reshape(2, 4, 3) * g.reshape(4, 1) + b.reshape(4, 1)
    np.testing.assert_allclose(got.astype("float64"), ref, rtol=2e-2, atol=2e-2)


def test_batch_norm_training_is_composed_of_topi_stages(run, rng):
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    params = [rng.standard_normal(3).astype("float32") for _ in range(3)]
    var = rng.uniform(0.5, 2.0, 3).astype("float32")
    ts = [_ph(x, "x")] + [_ph(p, f"p{i}") for i, p in enumerate(params)] + [_ph(var, "v")]
    out, new_mean, new_var = topi.nn.batch_norm(*ts, axis=1, training=True, momentum=0.25)
    stages = _stage_names(out)
    assert {"x_red", "T_divide", "T_reshape", "T_subtract", "compute"} <= stages
    got = run(ts, [out, new_mean, new_var], [x, *params, var])
    mean, bvar = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    ref = (x - mean[:, None]) / np.sqrt(bvar[:, None] + 1e-5) * params[0][:, None] + \
        params[1][:, None]
    np.testing.assert_allclose(got[0], ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], 0.75 * params[2] + 0.25 * mean, rtol=1e-5)
    np.testing.assert_allclose(got[2], 0.75 * var + 0.25 * bvar, rtol=1e-5)
