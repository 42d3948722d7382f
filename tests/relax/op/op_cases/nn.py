"""Cases of the relax.nn ops (activations, losses, convolutions, pooling, norms, ...)."""

import math

import numpy as np

from tvm.relax.op import nn

from . import Case, Err, t

F23 = 'R.Tensor((2, 3), dtype="float32")'
_erf = np.vectorize(math.erf)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _conv2d_loops(x, w, stride=1, pad=0, groups=1):
    """A direct (slow, obvious) grouped NCHW convolution."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    patch = x[
                        b,
                        g * cg : (g + 1) * cg,
                        i * stride : i * stride + kh,
                        j * stride : j * stride + kw,
                    ]
                    out[b, oc, i, j] = np.sum(patch * w[oc])
    return out.astype(np.float32)


def _conv_t_loops(x, w, stride, pad, out_pad):
    n, _, h, wd = x.shape
    _, o, kh, kw = w.shape
    full = np.zeros((n, o, (h - 1) * stride + kh + out_pad, (wd - 1) * stride + kw + out_pad))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    end_h, end_w = full.shape[2] - pad, full.shape[3] - pad
    return full[:, :, pad:end_h, pad:end_w].astype(np.float32)


def _max_pool(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * s : i * s + k, j * s : j * s + k].max(axis=(2, 3))
    return out


def _layer_norm(x, g, b, eps=1e-5):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def _nll(pred, target, reduction="mean"):
    picked = -pred[np.arange(len(target)), target]
    return {"mean": picked.mean(), "sum": picked.sum(), "none": picked}[reduction]


def _attention(q, k, v, causal=None, scale=None, bias=None):
    scores = np.einsum("bsnh,btnh->bnst", q, k) * (scale or 1 / math.sqrt(q.shape[-1]))
    if bias is not None:
        scores = scores + bias
    if causal:
        s, tt = scores.shape[-2:]
        offset = 0 if causal in (True, "TopLeft") else tt - s
        scores = np.where(np.triu(np.ones((s, tt), bool), 1 + offset), -np.inf, scores)
    return np.einsum("bnst,btnh->bsnh", _softmax(scores), v)


def _window_attention(q, k, v, window):
    """Sliding-window attention written out: query ``i`` of ``s`` sees keys ``j`` of ``t``
    with ``i + t - s - window < j <= i + t - s`` (TVM 0.27's bottom-right window)."""
    s, tt = q.shape[1], k.shape[1]
    allowed = np.zeros((s, tt), bool)
    for i in range(s):
        last = i + tt - s
        allowed[i, max(0, last - window + 1) : last + 1] = True
    scores = np.einsum("bsnh,btnh->bnst", q, k) / math.sqrt(q.shape[-1])
    return np.einsum("bnst,btnh->bsnh", _softmax(np.where(allowed, scores, -np.inf)), v)


def _dilated_conv(x, w):
    dilated = np.zeros(w.shape[:2] + (5, 5), w.dtype)
    dilated[:, :, ::2, ::2] = w
    return _conv2d_loops(x, dilated)


def _avg_pool(x, k, s, pad, count_pad, out=None):
    """Average pooling; the divisor counts padding only with ``count_pad`` (never the part
    of a ceil-mode window beyond the padding)."""
    h = x.shape[2]
    out = out or (h + 2 * pad - k) // s + 1
    res = np.zeros(x.shape[:2] + (out, out))
    for i in range(out):
        for j in range(out):
            rows = [r for r in range(i * s - pad, i * s - pad + k) if -pad <= r < h + pad]
            cols = [c for c in range(j * s - pad, j * s - pad + k) if -pad <= c < h + pad]
            inside_r = [r for r in rows if 0 <= r < h]
            inside_c = [c for c in cols if 0 <= c < h]
            total = x[:, :, inside_r][:, :, :, inside_c].sum(axis=(2, 3))
            count = len(rows) * len(cols) if count_pad else len(inside_r) * len(inside_c)
            res[:, :, i, j] = total / count
    return res


def _group_norm_last(x, g, b):
    grouped = x.reshape(2, 3, 2, 2)
    norm = (grouped - grouped.mean((1, 3), keepdims=True)) / np.sqrt(
        grouped.var((1, 3), keepdims=True) + 1e-5
    )
    return norm.reshape(2, 3, 4) * g + b


CASES = [
    Case(nn.relu, [t((2, 3))], F23, lambda x: np.maximum(x, 0)),
    Case(
        nn.relu, [t(())], 'R.Tensor((), dtype="float32")', lambda x: np.maximum(x, 0), id="relu-0d"
    ),
    Case(
        nn.relu,
        [t(("n",), "int32")],
        'R.Tensor((n,), dtype="int32")',
        lambda x: np.maximum(x, 0),
        sizes={"n": 4},
        id="relu-int-sym",
    ),
    Case(
        nn.relu6,
        [t((2, 3))],
        F23,
        lambda x: np.clip(x, 0, 6),
        inputs=[np.array([[-1.5, 2.0, 7.0], [0.5, 6.5, 3.0]], "float32")],
    ),
    Case(
        nn.batch_flatten,
        [t((2, 3, 4))],
        'R.Tensor((2, 12), dtype="float32")',
        lambda x: x.reshape(2, 12),
    ),
    Case(nn.batch_flatten, [t(("n", 3, 2))], 'R.Tensor((n, 6), dtype="float32")', None,
         id="batch_flatten-sym"),
    Case(nn.leakyrelu, [t((2, 3)), 0.1], F23, lambda x: np.where(x > 0, x, 0.1 * x)),
    # prelu: one slope per channel (axis 1), or one slope for every channel
    Case(nn.prelu, [t((2, 3)), t((3,))], F23, lambda x, a: np.where(x > 0, x, a * x),
         id="prelu-per-channel"),
    Case(nn.prelu, [t((2, 3)), t((1,))], F23, lambda x, a: np.where(x > 0, x, a[0] * x),
         id="prelu-single-slope"),
    Case(nn.prelu, [t((3, 2)), t((3,))], 'R.Tensor((3, 2), dtype="float32")',
         lambda x, a: np.where(x > 0, x, a[:, None] * x), kwargs={"axis": 0}, id="prelu-axis0"),
    Case(nn.gelu, [t((2, 3))], F23, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    Case(
        nn.gelu_tanh,
        [t((2, 3))],
        F23,
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    Case(nn.silu, [t((2, 3))], F23, lambda x: x / (1 + np.exp(-x))),
    Case(nn.softplus, [t((2, 3))], F23, lambda x: np.log1p(np.exp(x))),
    Case(
        nn.softplus,
        [t((3,))],
        'R.Tensor((3,), dtype="float32")',
        lambda x: np.where(2 * x > 20, x, np.log1p(np.exp(2 * x)) / 2),
        kwargs={"beta": 2.0},
        inputs=[np.array([30.0, 1.0, -1.0], "float32")],
        id="softplus-threshold",
    ),
    Case(nn.softmax, [t((2, 3))], F23, _softmax),
    Case(
        nn.softmax,
        [t(("n", 3)), 0],
        'R.Tensor((n, 3), dtype="float32")',
        lambda x: _softmax(x, 0),
        sizes={"n": 2},
        id="softmax-axis0-sym",
    ),
    Case(nn.log_softmax, [t((2, 3))], F23, lambda x: np.log(_softmax(x))),
    Case(
        nn.cross_entropy_with_logits,
        [t((2, 3)), t((2, 3))],
        'R.Tensor((), dtype="float32")',
        lambda p, lab: -np.sum(p * lab) / 2,
    ),
    Case(
        nn.nll_loss,
        [t((4, 3)), t((4,), "int64", domain="index:3")],
        'R.Tensor((), dtype="float32")',
        _nll,
    ),
    Case(
        nn.nll_loss,
        [t((4, 3)), t((4,), "int64", domain="index:3")],
        'R.Tensor((4,), dtype="float32")',
        lambda p, y: _nll(p, y, "none"),
        kwargs={"reduction": "none"},
        id="nll_loss-none",
    ),
    Case(
        nn.nll_loss,
        [t((3, 2)), t((3,), "int64"), t((2,))],
        'R.Tensor((), dtype="float32")',
        lambda p, y, w: np.float32(-(0.2 * 2.0 + 0.6 * 2.0) / 4.0),
        kwargs={"ignore_index": 0},
        inputs=[
            np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], "float32"),
            np.array([1, 0, 1], "int64"),
            np.array([1.0, 2.0], "float32"),
        ],
        id="nll_loss-weights-ignore",
    ),
    Case(
        nn.conv1d,
        [t((1, 2, 7)), t((3, 2, 3))],
        'R.Tensor((1, 3, 5), dtype="float32")',
        lambda x, w: _conv2d_loops(x[:, :, None], w[:, :, None])[:, :, 0],
    ),
    Case(
        nn.conv2d,
        [t((1, 2, 5, 5)), t((4, 2, 3, 3))],
        'R.Tensor((1, 4, 3, 3), dtype="float32")',
        _conv2d_loops,
    ),
    Case(
        nn.conv2d,
        [t((1, 4, 6, 6)), t((4, 2, 3, 3))],
        'R.Tensor((1, 4, 3, 3), dtype="float32")',
        lambda x, w: _conv2d_loops(x, w, stride=2, pad=1, groups=2),
        kwargs={"strides": 2, "padding": 1, "groups": 2},
        id="conv2d-stride-pad-groups",
    ),
    Case(
        nn.conv2d,
        [t((1, 5, 5, 2)), t((4, 2, 3, 3))],
        'R.Tensor((1, 3, 3, 4), dtype="float32")',
        lambda x, w: _conv2d_loops(x.transpose(0, 3, 1, 2), w).transpose(0, 2, 3, 1),
        kwargs={"data_layout": "NHWC"},
        id="conv2d-nhwc",
    ),
    Case(
        nn.conv2d,
        [t(("n", 2, "h", 8)), t((4, 2, 3, 3))],
        'R.Tensor((n, 4, h - 2, 6), dtype="float32")',
        _conv2d_loops,
        sizes={"n": 1, "h": 5},
        id="conv2d-sym",
    ),
    Case(
        nn.conv2d_transpose,
        [t((1, 2, 3, 3)), t((2, 3, 3, 3))],
        'R.Tensor((1, 3, 6, 6), dtype="float32")',
        lambda x, w: _conv_t_loops(x, w, 2, 1, 1),
        kwargs={"strides": 2, "padding": 1, "output_padding": 1},
    ),
    Case(
        nn.max_pool2d,
        [t((1, 2, 4, 4)), 2, 2],
        'R.Tensor((1, 2, 2, 2), dtype="float32")',
        lambda x: _max_pool(x, 2, 2),
    ),
    Case(
        nn.max_pool2d,
        [t((1, 1, 5, 5)), 2, 2],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda x: (
            np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
            .reshape(1, 1, 3, 2, 3, 2)
            .max(axis=(3, 5))
        ),
        kwargs={"ceil_mode": True},
        id="max_pool2d-ceil",
    ),
    Case(
        nn.avg_pool2d,
        [t((1, 2, 4, 4)), 2, 2],
        'R.Tensor((1, 2, 2, 2), dtype="float32")',
        lambda x: x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(3, 5)),
    ),
    Case(
        nn.avg_pool2d,
        [t((1, 1, 2, 2)), 2, 1, 1],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda x: np.array([[[[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]]]], "float32"),
        inputs=[np.array([[[[1, 2], [3, 4]]]], "float32")],
        id="avg_pool2d-pad-excluded",
    ),
    Case(
        nn.adaptive_avg_pool2d,
        [t((1, 2, 4, 6)), (2, 3)],
        'R.Tensor((1, 2, 2, 3), dtype="float32")',
        lambda x: x.reshape(1, 2, 2, 2, 3, 2).mean(axis=(3, 5)),
    ),
    Case(
        nn.max_pool1d,
        [t((1, 2, 6)), 2, 2],
        'R.Tensor((1, 2, 3), dtype="float32")',
        lambda x: x.reshape(1, 2, 3, 2).max(axis=3),
    ),
    Case(
        nn.avg_pool1d,
        [t((1, 2, 6)), 2, 2],
        'R.Tensor((1, 2, 3), dtype="float32")',
        lambda x: x.reshape(1, 2, 3, 2).mean(axis=3),
    ),
    Case(
        nn.adaptive_avg_pool1d,
        [t((1, 2, 6)), 3],
        'R.Tensor((1, 2, 3), dtype="float32")',
        lambda x: x.reshape(1, 2, 3, 2).mean(axis=3),
    ),
    Case(
        nn.max_pool3d,
        [t((1, 2, 4, 4, 4)), 2, 2],
        'R.Tensor((1, 2, 2, 2, 2), dtype="float32")',
        lambda x: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(3, 5, 7)),
    ),
    Case(
        nn.avg_pool3d,
        [t((1, 2, 4, 4, 4)), 2, 2],
        'R.Tensor((1, 2, 2, 2, 2), dtype="float32")',
        lambda x: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean(axis=(3, 5, 7)),
    ),
    Case(
        nn.adaptive_avg_pool3d,
        [t((1, 2, 4, 4, 4)), 2],
        'R.Tensor((1, 2, 2, 2, 2), dtype="float32")',
        lambda x: x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean(axis=(3, 5, 7)),
    ),
    Case(
        nn.layer_norm,
        [t((2, 4)), t((4,)), t((4,)), -1],
        'R.Tensor((2, 4), dtype="float32")',
        _layer_norm,
    ),
    Case(
        nn.group_norm,
        [t((2, 4, 3)), t((4,)), t((4,)), 2, 1, [2]],
        'R.Tensor((2, 4, 3), dtype="float32")',
        lambda x, g, b: (
            (
                (x.reshape(2, 2, 6) - x.reshape(2, 2, 6).mean(-1, keepdims=True))
                / np.sqrt(x.reshape(2, 2, 6).var(-1, keepdims=True) + 1e-5)
            ).reshape(2, 4, 3)
            * g[:, None]
            + b[:, None]
        ),
    ),
    Case(
        nn.rms_norm,
        [t((2, 4)), t((4,))],
        'R.Tensor((2, 4), dtype="float32")',
        lambda x, w: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w,
    ),
    Case(
        nn.batch_norm,
        [t((2, 3, 2)), t((3,)), t((3,)), t((3,)), t((3,), domain="pos"), 1],
        'R.Tuple(R.Tensor((2, 3, 2), dtype="float32"), R.Tensor((3,), dtype="float32"), '
        'R.Tensor((3,), dtype="float32"))',
        lambda x, g, b, m, v: (
            (x - x.mean((0, 2), keepdims=True))
            / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5)
            * g[:, None]
            + b[:, None],
            0.9 * m + 0.1 * x.mean((0, 2)),
            0.9 * v + 0.1 * x.var((0, 2)),
        ),
        rtol=1e-4,
    ),
    Case(
        nn.batch_norm,
        [t((2, 3)), t((3,)), t((3,)), t((3,)), t((3,), domain="pos"), 1],
        'R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32"), '
        'R.Tensor((3,), dtype="float32"))',
        lambda x, g, b, m, v: ((x - m) / np.sqrt(v + 1e-5) * g + b, m, v),
        kwargs={"training": False},
        rtol=1e-4,
        id="batch_norm-eval",
    ),
    Case(
        nn.dropout,
        [t((2, 3))],
        'R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"))',
        lambda x: (x, np.ones_like(x)),
    ),
    Case(
        nn.attention,
        [t((1, 3, 2, 4)), t((1, 5, 2, 4)), t((1, 5, 2, 6))],
        'R.Tensor((1, 3, 2, 6), dtype="float32")',
        _attention,
    ),
    Case(
        nn.attention,
        [t((1, 3, 2, 4)), t((1, 3, 2, 4)), t((1, 3, 2, 4))],
        'R.Tensor((1, 3, 2, 4), dtype="float32")',
        lambda q, k, v: _attention(q, k, v, "TopLeft"),
        kwargs={"causal_mask": "TopLeft"},
        id="attention-causal",
    ),
    Case(
        nn.pad,
        [t((2, 3)), [1, 0, 0, 2]],
        'R.Tensor((3, 5), dtype="float32")',
        lambda x: np.pad(x, ((1, 0), (0, 2))),
    ),
    Case(
        nn.pad,
        [t((2, 3)), [1, 1, 2, 2], "reflect"],
        'R.Tensor((4, 7), dtype="float32")',
        lambda x: np.pad(x, ((1, 1), (2, 2)), mode="reflect"),
        id="pad-reflect",
    ),
    # Edge settings, checked against Apache TVM 0.27's compiled kernels.
    Case(
        nn.conv2d,
        [t((1, 2, 7, 7)), t((3, 2, 3, 3))],
        'R.Tensor((1, 3, 3, 3), dtype="float32")',
        _dilated_conv,
        kwargs={"dilation": 2},
        id="conv2d-dilation",
    ),
    Case(
        nn.conv2d_transpose,
        [t((1, 4, 3, 3)), t((4, 1, 2, 2))],
        'R.Tensor((1, 2, 4, 4), dtype="float32")',
        lambda x, w: np.concatenate(
            [
                _conv_t_loops(x[:, 2 * g : 2 * g + 2], w[2 * g : 2 * g + 2], 1, 0, 0)
                for g in range(2)
            ],
            axis=1,
        ),
        kwargs={"groups": 2},
        id="conv2d_transpose-groups",
    ),
    Case(
        nn.avg_pool2d,
        [t((1, 1, 5, 5)), 3, 2, 1],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda x: _avg_pool(x, 3, 2, 1, True),
        kwargs={"count_include_pad": True},
        id="avg_pool2d-count-pad",
    ),
    Case(
        nn.avg_pool2d,
        [t((1, 1, 6, 6)), 3, 2],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda x: _avg_pool(x, 3, 2, 0, False, out=3),
        kwargs={"ceil_mode": True},
        id="avg_pool2d-ceil",
    ),
    Case(
        nn.max_pool2d,
        [t((1, 3, 3, 2)), 2, 1],
        'R.Tensor((1, 2, 2, 2), dtype="float32")',
        lambda x: _max_pool(x.transpose(0, 3, 1, 2), 2, 1).transpose(0, 2, 3, 1),
        kwargs={"layout": "NHWC"},
        id="max_pool2d-nhwc",
    ),
    Case(
        nn.group_norm,
        [t((2, 3, 4)), t((4,)), t((4,)), 2, -1, [1]],
        'R.Tensor((2, 3, 4), dtype="float32")',
        _group_norm_last,
        id="group_norm-last-axis",
    ),
    Case(
        nn.layer_norm,
        [t((2, 3, 4)), t((3, 4)), t((3, 4)), [1, 2]],
        'R.Tensor((2, 3, 4), dtype="float32")',
        lambda x, g, b: (
            (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
        ),
        kwargs={"center": False, "scale": False},
        id="layer_norm-no-affine",
    ),
    Case(
        nn.nll_loss,
        [t((2, 3, 2)), t((2, 2), "int64", domain="index:3"), t((3,), domain="pos")],
        'R.Tensor((), dtype="float32")',
        lambda p, y, w: -np.sum(w[y] * np.take_along_axis(p, y[:, None], 1)[:, 0]),
        kwargs={"reduction": "sum"},
        id="nll_loss-spatial-sum",
    ),
    Case(
        nn.attention,
        [t((1, 2, 4, 3)), t((1, 3, 2, 3)), t((1, 3, 2, 3))],
        'R.Tensor((1, 2, 4, 3), dtype="float32")',
        lambda q, k, v: _attention(
            q, np.tile(k, (1, 1, 2, 1)), np.tile(v, (1, 1, 2, 1)), "BottomRight", 0.5
        ),
        kwargs={"causal_mask": "BottomRight", "scale": 0.5},
        id="attention-gqa-bottomright",
    ),
    Case(
        nn.attention,
        [t((1, 3, 2, 3)), t((1, 5, 2, 3)), t((1, 5, 2, 3))],
        'R.Tensor((1, 3, 2, 3), dtype="float32")',
        lambda q, k, v: _window_attention(q, k, v, 2),
        kwargs={"causal_mask": "BottomRight", "window_size": 2},
        id="attention-window",
    ),
    Case(
        nn.attention,
        [t((1, 2, 2, 3)), t((1, 3, 2, 3)), t((1, 3, 2, 3)), t((1, 2, 2, 3))],
        'R.Tensor((1, 2, 2, 3), dtype="float32")',
        lambda q, k, v, b: _attention(q, k, v, bias=b),
        id="attention-bias",
    ),
    Case(
        nn.log_softmax,
        [t((2, 3, 2)), 1],
        'R.Tensor((2, 3, 2), dtype="float32")',
        lambda x: np.log(_softmax(x, 1)),
        id="log_softmax-axis1",
    ),
    Case(
        nn.pad,
        [t((2, 3)), [1, 1, 2, 0], "edge"],
        'R.Tensor((4, 5), dtype="float32")',
        lambda x: np.pad(x, ((1, 1), (2, 0)), mode="edge"),
        id="pad-edge",
    ),
    # Symbolic and unknown shapes (types checked against TVM 0.27).
    Case(
        nn.conv2d,
        [t(None, ndim=4), t((4, 2, 3, 3))],
        'R.Tensor(dtype="float32", ndim=4)',
        id="conv2d-unknown",
    ),
    Case(
        nn.max_pool2d,
        [t(("n", 3, "h", "w")), 3, 2, 1],
        'R.Tensor((n, 3, (h - 1) // 2 + 1, (w - 1) // 2 + 1), dtype="float32")',
        sizes={"n": 1, "h": 5, "w": 4},
        id="max_pool2d-sym",
    ),
    Case(
        nn.avg_pool2d,
        [t((1, 3, "h", 8)), 3, 2, 0, 1, True],
        'R.Tensor((1, 3, h // 2, 4), dtype="float32")',
        id="avg_pool2d-ceil-sym",
    ),
    Case(
        nn.adaptive_avg_pool2d,
        [t(("n", 3, "h", "w"))],
        'R.Tensor((n, 3, h, w), dtype="float32")',
        lambda x: x,
        sizes={"n": 1, "h": 2, "w": 3},
        id="adaptive_avg_pool2d-sym",
    ),
    Case(
        nn.conv2d_transpose,
        [t((1, 4, "h", 5)), t((4, 3, 3, 3)), 2, 1],
        'R.Tensor((1, 3, h * 2 - 1, 9), dtype="float32")',
        lambda x, w: _conv_t_loops(x, w, 2, 1, 0),
        sizes={"h": 3},
        id="conv2d_transpose-sym",
    ),
    Case(
        nn.attention,
        [t(("b", "s", 4, 8)), t(("b", "t", 4, 8)), t(("b", "t", 4, 6))],
        'R.Tensor((b, s, 4, 6), dtype="float32")',
        id="attention-sym",
    ),
    Case(
        nn.pad,
        [t(("n", 3)), [1, 2, 0, 0]],
        'R.Tensor((n + 3, 3), dtype="float32")',
        lambda x: np.pad(x, ((1, 2), (0, 0))),
        sizes={"n": 2},
        id="pad-sym",
    ),
    Case(
        nn.batch_norm,
        [t(None, ndim=4), t((3,)), t((3,)), t((3,)), t((3,)), 1],
        'R.Tuple(R.Tensor(dtype="float32", ndim=4), R.Tensor((3,), dtype="float32"), '
        'R.Tensor((3,), dtype="float32"))',
        id="batch_norm-unknown",
    ),
    Case(
        nn.nll_loss,
        [t((5,)), t((), "int64", domain="index:5")],
        'R.Tensor((), dtype="float32")',
        lambda p, y: -p[y],
        id="nll_loss-1d",
    ),
]

ERRORS = [
    Err(
        nn.softmax,
        [t((2, 3), "int32")],
        TypeError,
        ("Softmax requires the input tensor to have float dtype", "T.int32"),
    ),
    Err(
        nn.softmax,
        [t((2, 3)), 5],
        ValueError,
        ("nn.softmax", "the input axis 5 is out of range", "[-2, 2)"),
    ),
    Err(nn.gelu, [t((2,), "int32")], TypeError, ("nn.gelu", "float dtype")),
    Err(nn.prelu, [t((2, 3), "int32"), t((3,), "int32")], TypeError, ("Prelu", "float dtype")),
    Err(nn.prelu, [t((2, 3)), t((3,))], ValueError, ("axis 2", "out of range"),
        kwargs={"axis": 2}),
    Err(
        nn.conv2d,
        [t((1, 3, 8, 8)), t((4, 2, 3, 3))],
        ValueError,
        (
            "The channel size of the data should equal to the product of input channel size",
            "T.int64(3)",
            "T.int64(2) and 1",
        ),
    ),
    Err(
        nn.conv2d,
        [t((1, 4, 8, 8)), t((3, 2, 3, 3))],
        ValueError,
        ("number of output channels to be divisible by the number of groups",),
        kwargs={"groups": 2},
    ),
    Err(
        nn.max_pool2d,
        [t((2, 3))],
        ValueError,
        ("layout NCHW requires the input to be 4-dim tensor", "ndim 2"),
    ),
    Err(
        nn.nll_loss,
        [t((2, 3)), t((2,))],
        TypeError,
        ("NLLLoss expects the dtype of targets to be int/uint", "T.float32"),
    ),
    Err(
        nn.cross_entropy_with_logits,
        [t((2, 3)), t((3,))],
        ValueError,
        ("CrossEntropy requires predictions and labels to have the same ndim",),
    ),
    Err(
        nn.layer_norm,
        [t((2, 4)), t((3,)), t((4,)), -1],
        ValueError,
        ("layer_norm", "gamma", "(T.int64(4))"),
    ),
    Err(nn.pad, [t((2, 3)), [1, 1]], ValueError, ("pad", "2 * ndim = 4")),
    Err(
        nn.conv2d,
        [t((1, 2, 5, 5)), t((4, 2, 3, 3))],
        ValueError,
        ("conv2d", "layouts"),
        kwargs={"data_layout": "NCHW4c"},
    ),
    # Attribute errors raised by the constructors.
    Err(
        nn.conv2d,
        [t((1, 2, 5, 5)), t((4, 2, 3, 3))],
        ValueError,
        ("conv2d expects padding to have 1, 2 or 4 values", "[1, 2, 3]"),
        kwargs={"padding": (1, 2, 3)},
    ),
    Err(
        nn.max_pool2d,
        [t((1, 2, 5, 5))],
        ValueError,
        ("max_pool2d expects strides to have 2 values", "[1, 2, 3]"),
        kwargs={"strides": (1, 2, 3)},
    ),
    Err(
        nn.dropout,
        [t((2,))],
        ValueError,
        ("dropout expects a rate in [0, 1)", "1.5"),
        kwargs={"rate": 1.5},
    ),
    Err(
        nn.attention,
        [t((1, 2, 2, 3)), t((1, 3, 2, 3)), t((1, 3, 2, 3))],
        ValueError,
        ("attention expects causal_mask to be None, TopLeft or BottomRight",),
        kwargs={"causal_mask": "Diagonal"},
    ),
    Err(
        nn.nll_loss,
        [t((4, 3)), t((4,), "int64")],
        ValueError,
        ("NLLLoss expects reduction to be none, mean or sum", "'avg'"),
        kwargs={"reduction": "avg"},
    ),
    Err(
        nn.batch_norm,
        [t((2, 3)), t((4,)), t((3,)), t((3,)), t((3,)), 1],
        ValueError,
        ("batch_norm expects gamma to have shape (T.int64(3))",),
    ),
]
