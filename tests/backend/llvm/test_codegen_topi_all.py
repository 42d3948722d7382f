"""Every topi compute family compiled with the default CPU schedule.

Each case builds a PrimFunc from topi, compiles it (all static cases share one ``IRModule``,
so one LLVM compilation), runs it on NumPy arrays and checks the output against both the PrimFunc
interpreter and a NumPy reference. The unary/binary/activation tables and their NumPy
references are the ones of the interpreter tests in ``tests/topi/``, loaded by path.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import tvm
from tvm import te, tirx, topi
from tvm.tirx.interpreter import run_prim_func

F32 = "float32"
_TOPI_TESTS = Path(__file__).resolve().parents[2] / "topi"


def _load(name):
    # pytest runs with --import-mode=importlib, so test modules are not importable by name.
    spec = importlib.util.spec_from_file_location(f"_topi_cases_{name}", _TOPI_TESTS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MATH = _load("test_math_broadcast_reduction.py")
_NN = _load("test_nn_basic.py")
_CONV = _load("test_nn_conv.py")
_INDEX = _load("test_index.py")
_LOSS = _load("test_nn_norm_loss_attention.py")
_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _f(shape, lo=-2.0, hi=2.0, dtype=F32):
    return ("float", shape, dtype, lo, hi)


def _i(shape, lo, hi, dtype="int32"):
    return ("int", shape, dtype, lo, hi)


def _b(shape):
    return ("bool", shape, "bool", 0, 2)


def _c(values, dtype="int64"):
    """A fixed input array (index arguments that must stay in range)."""
    values = np.asarray(values, dtype)
    return ("const", values.shape, dtype, values, None)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _conv2d_nchw(x, w, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for r in range(kh):
        for s in range(kw):
            patch = x[:, :, r:r + stride * oh:stride, s:s + stride * ow:stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, r, s])
    return out


def _pool_max(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for r in range(k):
        for t in range(k):
            out = np.maximum(out, x[:, :, r:r + s * oh:s, t:t + s * ow:s])
    return out


def _layer_norm(x, g, b, axes, eps=1e-5):
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _attention(q, k, v):
    # BSNH layout, as topi.nn.attention.
    s = np.einsum("bsnh,btnh->bnst", q, k) / math.sqrt(q.shape[-1])
    return np.einsum("bnst,btnh->bsnh", _softmax(s, -1), v)


def _nll_reference(g, p, t, w):
    loss, weight = _LOSS._nll_ref(p, t, w, "mean", -100)
    grad = np.zeros_like(p)
    scale = g / weight.sum()
    safe = np.where(t == -100, 0, t)
    for b in range(p.shape[0]):
        for x in range(p.shape[2]):
            grad[b, safe[b, x], x] = -weight[b, x] * scale
    return [loss, grad]


# name -> (input specs, builder(*placeholders) -> tensor(s), NumPy reference(*arrays) -> array(s))
CASES = {}

for _name, _ref in _MATH.UNARY.items():
    _lo, _hi = (0.5, 3.0) if _name in ("log", "sqrt", "rsqrt", "log2", "log10") else (-2.0, 2.0)
    if _name in ("asin", "acos", "atanh"):
        _lo, _hi = -0.9, 0.9
    CASES[f"unary_{_name}"] = ([_f((17,), _lo, _hi)], getattr(topi, _name), _ref)
for _name, _ref in _MATH.FLOAT_BINARY.items():
    _lo = 0.5 if _name in ("divide", "floor_divide", "floor_mod", "mod", "power") else -2.0
    CASES[f"binary_{_name}"] = ([_f((3, 1), 0.5, 2.0), _f((5,), _lo, 2.0)],
                                getattr(topi, _name), _ref)
for _name, _ref in _MATH.INT_BINARY.items():
    _lo = 0 if "shift" in _name else -9
    CASES[f"int_{_name}"] = ([_i((2, 3), _lo, 10), _i((3,), 1, 5)], getattr(topi, _name), _ref)
for _name, (_build, _ref) in _NN.ACTIVATIONS.items():
    CASES[f"act_{_name}"] = ([_f((3, 5), -3.0, 3.0)], _build, _ref)

CASES.update({
    # math extras and odd sizes (1, 3, 1023)
    "acosh": ([_f((3,), 1.0, 7.0)], topi.acosh, np.arccosh),
    "exp_size1": ([_f((1,))], topi.exp, np.exp),
    "tanh_1023": ([_f((1023,))], topi.tanh, np.tanh),
    "sum_1023": ([_f((3, 1023))], lambda a: topi.sum(a, axis=1), lambda a: a.sum(axis=1)),
    "isnan_isinf_isfinite": ([_f((5,))],
                             lambda a: [topi.isnan(a), topi.isinf(a), topi.isfinite(a)],
                             lambda a: [np.isnan(a), np.isinf(a), np.isfinite(a)]),
    "clip": ([_f((4, 5))], lambda a: topi.clip(a, -0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5)),
    "cast": ([_f((7,), -9, 9)], lambda a: topi.cast(a, "int32"), lambda a: a.astype("int32")),
    "bitwise_not": ([_i((5,), -9, 9)], topi.bitwise_not, np.invert),
    "logical_ops": ([_b((6,)), _b((6,))],
                    lambda a, b: [topi.logical_and(a, b), topi.logical_or(a, b),
                                  topi.logical_xor(a, b), topi.logical_not(a)],
                    lambda a, b: [a & b, a | b, a ^ b, ~a]),
    "sign_abs_int": ([_i((7,), -5, 5)], lambda a: [topi.sign(a), topi.abs(a)],
                     lambda a: [np.sign(a), np.abs(a)]),
    # reductions
    "sum_axes_keepdims": ([_f((3, 4, 5))], lambda a: topi.sum(a, (0, 2), True),
                          lambda a: a.sum(axis=(0, 2), keepdims=True)),
    "max_min_prod": ([_f((3, 17), 0.5, 1.5)],
                     lambda a: [topi.max(a, 1), topi.min(a, 0), topi.prod(a, 1)],
                     lambda a: [a.max(1), a.min(0), a.prod(1)]),
    "mean_all": ([_f((9, 4))], topi.mean, np.mean),
    "argmax_argmin": ([_f((6, 5))], lambda a: [topi.argmax(a, 1), topi.argmin(a, 0)],
                      lambda a: [a.argmax(1), a.argmin(0)]),
    "any_all": ([_b((3, 4))], lambda a: [topi.any(a, 1), topi.all(a, 0)],
                lambda a: [a.any(1), a.all(0)]),
    "collapse_sum": ([_f((3, 4))], lambda a: topi.collapse_sum(a, (4,)), lambda a: a.sum(0)),
    # transform
    "transpose": ([_f((2, 3, 4))], lambda a: topi.transpose(a, (2, 0, 1)),
                  lambda a: a.transpose(2, 0, 1)),
    "reshape_concat": ([_f((2, 6)), _f((3, 4))],
                       lambda a, b: topi.concatenate([topi.reshape(a, (3, 4)), b], axis=0),
                       lambda a, b: np.concatenate([a.reshape(3, 4), b], 0)),
    "stack": ([_f((3,)), _f((3,))], lambda a, b: topi.stack([a, b], 1),
              lambda a, b: np.stack([a, b], 1)),
    "split": ([_f((6, 2))], lambda a: list(topi.split(a, 3, 0)), lambda a: np.split(a, 3, 0)),
    "squeeze_expand": ([_f((3, 1, 4))],
                       lambda a: [topi.squeeze(a, [1]), topi.expand_dims(a, 0, 2)],
                       lambda a: [a.squeeze(1), a[None, None]]),
    "flatten": ([_f((2, 3, 4))], lambda a: [topi.flatten(a), topi.nn.flatten(a)],
                lambda a: [a.reshape(24), a.reshape(2, 12)]),
    "broadcast_to": ([_f((3, 1))], lambda a: topi.broadcast_to(a, (2, 3, 4)),
                     lambda a: np.broadcast_to(a, (2, 3, 4))),
    "repeat_tile_flip": ([_f((3, 4))],
                         lambda a: [topi.repeat(a, 2, 1), topi.tile(a, (2, 1)),
                                    topi.flip(a, 0)],
                         lambda a: [np.repeat(a, 2, 1), np.tile(a, (2, 1)), a[::-1]]),
    "layout_transform": ([_f((1, 8, 3, 2))], lambda a: topi.layout_transform(a, "NCHW", "NHWC"),
                         lambda a: a.transpose(0, 2, 3, 1)),
    "tril_triu": ([_f((5, 5))], lambda a: [topi.tril(a, 0), topi.triu(a, 1),
                                           topi.trilu(a, tirx.const(-1, "int32"), True)],
                  lambda a: [np.tril(a), np.triu(a, 1), np.triu(a, -1)]),
    # index
    "take": ([_f((7, 3)), _i((5,), 0, 7)], lambda a, idx: topi.take(a, idx, axis=0),
             lambda a, idx: a[idx]),
    "strided_slice": ([_f((10, 8))], lambda a: topi.strided_slice(a, [1, 0], [9, 8], [2, 3]),
                      lambda a: a[1:9:2, 0:8:3]),
    "gather": ([_f((4, 3)), _i((4, 2), 0, 3)], lambda a, idx: topi.gather(a, 1, idx),
               lambda a, idx: np.take_along_axis(a, idx, 1)),
    "gather_elements": ([_f((4, 3)), _i((2, 3), 0, 4)],
                        lambda a, idx: topi.gather_elements(a, idx, 0),
                        lambda a, idx: np.take_along_axis(a, idx, 0)),
    "where": ([_f((8,)), _f((8,))], lambda a, b: topi.where(topi.greater(a, b), a, b),
              np.maximum),
    "one_hot": ([_i((5,), 0, 4)],
                lambda idx: topi.one_hot(idx, tirx.const(1.0, F32), tirx.const(0.0, F32), 4, -1,
                                         F32),
                lambda idx: np.eye(4, dtype=F32)[idx]),
    # creation (no inputs)
    "arange": ([], lambda: topi.arange(2, 17, 3, "int32"), lambda: np.arange(2, 17, 3)),
    "full_zeros_ones": ([], lambda: [topi.full((3, 2), F32, 1.5), topi.zeros((4,)),
                                     topi.ones((1, 3), "int32")],
                        lambda: [np.full((3, 2), 1.5), np.zeros(4), np.ones((1, 3))]),
    "full_like": ([_f((2, 3))], lambda a: topi.full_like(a, 2.5), lambda a: np.full_like(a, 2.5)),
    "eye": ([], lambda: topi.eye(3, 5, 1), lambda: np.eye(3, 5, 1)),
    # scan, sort, einsum
    "cumsum_cumprod": ([_f((4, 6), 0.5, 1.5)],
                       lambda a: [topi.cumsum(a, 1), topi.cumprod(a, 0)],
                       lambda a: [np.cumsum(a, 1), np.cumprod(a, 0)]),
    "cumsum_exclusive": ([_f((17,))], lambda a: topi.cumsum(a, 0, exclusive=True),
                         lambda a: np.concatenate([[0], np.cumsum(a)[:-1]])),
    "sort_argsort": ([_f((3, 17))],
                     lambda a: [topi.sort(a, -1), topi.argsort(a, axis=-1, dtype="int32")],
                     lambda a: [np.sort(a, -1), np.argsort(a, -1, kind="stable")]),
    "topk": ([_f((3, 9))], lambda a: topi.topk(a, 3, ret_type="values"),
             lambda a: -np.sort(-a, -1)[:, :3]),
    "einsum_matmul": ([_f((3, 4)), _f((4, 5))], lambda a, b: topi.einsum("ij,jk->ik", a, b),
                      lambda a, b: a @ b),
    "einsum_trace_outer": ([_f((4, 4)), _f((3,))],
                           lambda a, b: [topi.einsum("ii->", a), topi.einsum("i,j->ij", b, b)],
                           lambda a, b: [np.trace(a), np.outer(b, b)]),
    # nn
    "softmax_log_softmax": ([_f((4, 10))],
                            lambda a: [topi.nn.softmax(a, 1), topi.nn.log_softmax(a, 0)],
                            lambda a: [_softmax(a, 1), np.log(_softmax(a, 0))]),
    "prelu": ([_f((2, 3, 5)), _f((3,), 0.1, 0.3)], lambda a, s: topi.nn.prelu(a, s, 1),
              lambda a, s: np.where(a > 0, a, a * s[:, None])),
    "dense": ([_f((5, 16)), _f((8, 16))], topi.nn.dense, lambda x, w: x @ w.T),
    "nn_matmul_bias": ([_f((3, 4)), _f((5, 4)), _f((5,))],
                       lambda a, b, c: topi.nn.matmul(a, b, c, transpose_b=True),
                       lambda a, b, c: a @ b.T + c),
    "matmul": ([_f((3, 4)), _f((4, 2))], topi.matmul, np.matmul),
    "batch_matmul": ([_f((2, 3, 4)), _f((2, 5, 4))], topi.nn.batch_matmul,
                     lambda a, b: a @ b.transpose(0, 2, 1)),
    "conv2d_nchw": ([_f((1, 3, 8, 8)), _f((4, 3, 3, 3))],
                    lambda x, w: topi.nn.conv2d_nchw(x, w, 1, 1, 1),
                    lambda x, w: _conv2d_nchw(x, w, 1, 1)),
    "conv2d_nhwc": ([_f((1, 7, 7, 3)), _f((3, 3, 3, 2))],
                    lambda x, w: topi.nn.conv2d_nhwc(x, w, 2, 0, 1),
                    lambda x, w: _conv2d_nchw(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1),
                                              2, 0).transpose(0, 2, 3, 1)),
    "group_conv2d_nchw": ([_f((1, 4, 5, 5)), _f((4, 2, 3, 3))],
                          lambda x, w: topi.nn.group_conv2d_nchw(x, w, 1, 1, 1, 2),
                          lambda x, w: np.concatenate(
                              [_conv2d_nchw(x[:, 2 * g:2 * g + 2], w[2 * g:2 * g + 2], 1, 1)
                               for g in range(2)], 1)),
    "conv1d_ncw": ([_f((1, 2, 17)), _f((3, 2, 3))], lambda x, w: topi.nn.conv1d(x, w, 1, 0),
                   lambda x, w: _conv2d_nchw(x[:, :, None], w[:, :, None], 1, 0)[:, :, 0]),
    "conv2d_transpose_nchw": ([_f((1, 2, 4, 4)), _f((2, 3, 3, 3))],
                              lambda x, w: topi.nn.conv2d_transpose_nchw(x, w, (1, 1), (0, 0),
                                                                         F32, (0, 0)),
                              lambda x, w: _conv2d_nchw(x, w[:, :, ::-1, ::-1].transpose(1, 0, 2,
                                                                                        3), 1, 2)),
    "max_pool2d": ([_f((1, 2, 6, 6))],
                   lambda x: topi.nn.pool2d(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max"),
                   lambda x: _pool_max(x, 2, 2)),
    "avg_pool2d": ([_f((1, 2, 6, 6))],
                   lambda x: topi.nn.pool2d(x, (3, 3), (3, 3), (1, 1), (0, 0, 0, 0), "avg"),
                   lambda x: x.reshape(1, 2, 2, 3, 2, 3).mean(axis=(3, 5))),
    "global_adaptive_pool": ([_f((1, 3, 4, 4))],
                             lambda x: [topi.nn.global_pool(x, "avg"),
                                        topi.nn.adaptive_pool(x, (2, 2), "max")],
                             lambda x: [x.mean(axis=(2, 3), keepdims=True),
                                        x.reshape(1, 3, 2, 2, 2, 2).max(axis=(3, 5))]),
    "pool_grad_avg": ([_f((1, 1, 2, 2)), _f((1, 1, 4, 4))],
                      lambda g, x: topi.nn.pool_grad(g, x, (2, 2), (2, 2), (0, 0, 0, 0), "avg"),
                      lambda g, x: np.repeat(np.repeat(g, 2, 2), 2, 3) / 4),
    "pad_family": ([_f((3, 4))],
                   lambda a: [topi.nn.pad(a, (1, 2), (2, 0), 1.5),
                              topi.nn.mirror_pad(a, (1, 1), (1, 1), "REFLECT"),
                              topi.nn.replicate_pad(a, (1, 0), (0, 2))],
                   lambda a: [np.pad(a, ((1, 2), (2, 0)), constant_values=1.5),
                              np.pad(a, 1, "reflect"), np.pad(a, ((1, 0), (0, 2)), "edge")]),
    "layer_norm": ([_f((4, 12)), _f((12,)), _f((12,))],
                   lambda x, g, b: topi.nn.layer_norm(x, g, b, axis=[1]),
                   lambda x, g, b: _layer_norm(x, g, b, (1,))),
    "rms_norm": ([_f((3, 8)), _f((8,))], lambda x, w: topi.nn.rms_norm(x, w, [1]),
                 lambda x, w: x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5) * w),
    "group_norm": ([_f((2, 4, 3)), _f((4,)), _f((4,))],
                   lambda x, g, b: topi.nn.group_norm(x, g, b, 2, 1, [2]),
                   lambda x, g, b: _layer_norm(x.reshape(2, 2, 2, 3), 1, 0, (2, 3)).reshape(
                       2, 4, 3) * g[:, None] + b[:, None]),
    "batch_norm_inference": ([_f((2, 3, 4)), _f((3,)), _f((3,)), _f((3,)), _f((3,), 0.5, 2.0)],
                             lambda x, g, b, m, v: topi.nn.batch_norm(x, g, b, m, v, axis=1)[0],
                             lambda x, g, b, m, v: (x - m[:, None]) / np.sqrt(
                                 v[:, None] + 1e-5) * g[:, None] + b[:, None]),
    "cross_entropy": ([_f((3, 5)), _f((3, 5), 0.0, 1.0)],
                      topi.nn.cross_entropy_with_logits, lambda p, t: -(p * t).sum() / 3),
    "nll_loss_none": ([_f((4, 5)), _i((4,), 0, 5), _f((5,), 0.5, 1.5)],
                      lambda p, t, w: topi.nn.nll_loss(p, t, w, "none", -100),
                      lambda p, t, w: -p[np.arange(4), t] * w[t]),
    "attention": ([_f((1, 3, 2, 4)), _f((1, 5, 2, 4)), _f((1, 5, 2, 4))],
                  topi.nn.attention, _attention),
    # more of the families exercised in tests/topi (references from those tests where factored)
    "variance_std": ([_f((3, 1, 5), 0.5, 1.5)],
                     lambda a: [topi.variance(a, (0, 2)), topi.std(a, -1, True)],
                     lambda a: [a.var((0, 2)), a.std(-1, keepdims=True)]),
    "dynamic_strided_slice": ([_f((4, 5)), _c([1, -4]), _c([4, 5]), _c([2, 1])],
                              lambda a, b, e, s: topi.dynamic_strided_slice(a, b, e, s, (2, 4)),
                              lambda a, b, e, s: a[1:4:2, -4:5]),
    "layout_transform_index_map": ([_f((1, 8, 3, 2))],
                                   lambda a: topi.layout_transform_index_map(
                                       a, lambda n, c, h, w: (n, c // 3, h, w, c % 3),
                                       pad_value=-1.0),
                                   lambda a: np.concatenate(
                                       [a, np.full((1, 1, 3, 2), -1.0)], 1).reshape(
                                       1, 3, 3, 3, 2).transpose(0, 1, 3, 4, 2)),
    "conv2d_generic_groups_dilation": ([_f((1, 2, 5, 5)), _f((2, 1, 3, 2))],
                                       lambda x, w: topi.nn.conv2d(x, w, (1, 2), (0, 1, 0, 1),
                                                                   (2, 1), groups=2),
                                       lambda x, w: _CONV.conv_ref(x, w, (1, 2), (0, 1, 0, 1),
                                                                   (2, 1), 2)),
    "conv1d_nwc_int8": ([_i((1, 5, 2), -3, 3, "int8"), _i((2, 2, 3), -3, 3, "int8")],
                        lambda x, w: topi.nn.conv1d_nwc(x, w, 1, 0, 1, out_dtype="int32"),
                        lambda x, w: _CONV.conv_ref(x.transpose(0, 2, 1), w.transpose(2, 1, 0),
                                                    (1,), (0, 0), (1,), 1).transpose(0, 2, 1)),
    "conv2d_transpose_generic": ([_f((1, 2, 3, 4)), _f((2, 3, 3, 2))],
                                 lambda x, w: topi.nn.conv2d_transpose(
                                     x, w, (2, 1), (0, 1, 1, 0), (1, 2), 2, (0, 0)),
                                 lambda x, w: _CONV.conv_transpose_ref(
                                     x, w, (2, 1), (0, 1, 1, 0), (1, 2), 2, (0, 0))),
    "group_conv2d_transpose_nchw": ([_f((1, 2, 3, 4)), _f((2, 3, 3, 2))],
                                    lambda x, w: topi.nn.group_conv2d_transpose_nchw(
                                        x, w, (1, 1), (0, 0, 0, 0), F32, (0, 0), 2),
                                    lambda x, w: _CONV.conv_transpose_ref(
                                        x, w, (1, 1), (0, 0, 0, 0), (1, 1), 2, (0, 0))),
    "dropout": ([_f((2, 3, 5))], lambda a: list(topi.nn.dropout(a, 0.3)),
                lambda a: [a, np.ones_like(a)]),
    "nll_loss_mean_backward": ([_f(()), _f((2, 4, 3)), _c([[0, 3, -100], [1, 2, 2]]),
                                _f((4,), 0.5, 1.5)],
                               lambda g, p, t, w: [topi.nn.nll_loss(p, t, w, "mean", -100),
                                                   topi.nn.nll_loss_backward(g, p, t, w, "mean",
                                                                             -100)],
                               None),
    "topk_both_argsort_descending": ([_f((3, 9))],
                                     lambda a: list(topi.topk(a, 2, 0, "both", False, "int32"))
                                     + [topi.argsort(a, axis=0, is_ascend=False, dtype="int32")],
                                     lambda a: [-np.sort(-a, 0)[:2], np.argsort(-a, 0)[:2],
                                                np.argsort(-a, 0, kind="stable")]),
})

for _red in ("update", "add", "mul", "max", "min", "mean"):
    CASES[f"scatter_elements_{_red}"] = (
        [_f((3, 5)), _c([[0, -1, 4], [2, 2, -5]]), _f((2, 3))],
        lambda d, i, u, _red=_red: topi.scatter_elements(d, i, u, 1, _red),
        lambda d, i, u, _red=_red: _INDEX._scatter_ref(d, i, u, 1, _red))


def _make(name):
    specs, build, _ = CASES[name]
    placeholders = [te.placeholder(s[1], s[2], name=f"in{k}") for k, s in enumerate(specs)]
    outs = build(*placeholders)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    func = te.create_prim_func(placeholders + outs).with_attr("global_symbol", name)
    return func, outs


def _inputs(specs, rng):
    arrays = []
    for kind, shape, dtype, lo, hi in specs:
        if kind == "float":
            arrays.append(np.asarray(rng.uniform(lo, hi, shape), dtype))
        elif kind == "const":
            arrays.append(lo.copy())
        else:
            arrays.append(rng.integers(lo, hi, shape).astype(dtype))
    return arrays


@pytest.fixture(scope="module")
def built():
    made = {name: _make(name) for name in CASES}
    lib = tvm.compile(tvm.IRModule({name: m[0] for name, m in made.items()}), target="llvm")
    return made, lib


def _run_all(func, lib_func, outs, inputs):
    shapes = [tuple(int(d) for d in t.shape) for t in outs]
    compiled = [np.zeros(s, t.dtype) for s, t in zip(shapes, outs)]
    interp = [np.zeros(s, t.dtype) for s, t in zip(shapes, outs)]
    lib_func(*inputs, *compiled)
    run_prim_func(func, [a.copy() for a in inputs] + interp)
    return compiled, interp


@pytest.mark.parametrize("name", sorted(CASES))
def test_topi_compiled_matches_interpreter_and_numpy(built, name):
    made, lib = built
    func, outs = made[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    specs, _, ref = CASES[name]
    inputs = _inputs(specs, rng)
    compiled, interp = _run_all(func, lib[name], outs, inputs)
    if ref is None:  # NumPy reference from the interpreter test's helper (see _nll_reference)
        ref = _nll_reference
    expected = ref(*[a.astype("float64") if a.dtype == F32 else a for a in inputs])
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    assert len(expected) == len(compiled)
    for got, want, exp in zip(compiled, interp, expected):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(got, np.asarray(exp).astype(got.dtype), rtol=1e-4, atol=1e-5)


# Symbolic int64 shapes (as Relax legalization builds them): the cases of
# tests/topi/test_symbolic.py, compiled once and run for several values of ``n``.
_SYM = _load("test_symbolic.py")
# References that the interpreter tests give only for n == 2 (or not at all), for any n.
_SYM_REFS = {
    "conv2d": lambda x, w: _conv2d_nchw(x, w, 1, 1),
    "avg_pool": lambda x: x[:, :, :4, :4].reshape(len(x), 2, 2, 2, 2, 2).mean((3, 5)),
}


def _make_symbolic(name):
    build, inputs, _ = _SYM.CASES[name]
    out = build()
    symbol = f"sym_{name}"
    return te.create_prim_func(list(inputs) + [out]).with_attr("global_symbol", symbol), out


@pytest.fixture(scope="module")
def built_symbolic():
    made = {name: _make_symbolic(name) for name in _SYM.CASES}
    lib = tvm.compile(tvm.IRModule({f"sym_{n}": m[0] for n, m in made.items()}), target="llvm")
    return made, lib


def _concrete(tensor, n):
    from tvm.ffi.node import walk
    from tvm.tirx import Var
    from tvm.tirx.interpreter import evaluate_expr

    shape = []
    for dim in tensor.shape:
        free = {v: n for v in walk(dim) if isinstance(v, Var)}
        shape.append(int(evaluate_expr(dim, free)))
    return tuple(shape)


@pytest.mark.parametrize("n", [1, 3, 17])
@pytest.mark.parametrize("name", sorted(_SYM.CASES))
def test_topi_symbolic_compiled(built_symbolic, name, n):
    made, lib = built_symbolic
    func, out_t = made[name]
    _, inputs, ref = _SYM.CASES[name]
    ref = _SYM_REFS.get(name, ref)
    rng = np.random.default_rng(n)
    arrays = [rng.standard_normal(_concrete(t, n)).astype(F32) for t in inputs]
    got = np.zeros(_concrete(out_t, n), out_t.dtype)
    want = np.zeros_like(got)
    lib[f"sym_{name}"](*arrays, got)
    run_prim_func(func, [a.copy() for a in arrays] + [want])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    expected = ref(*[a.astype("float64") for a in arrays])
    np.testing.assert_allclose(got, np.asarray(expected).astype(got.dtype), rtol=1e-4, atol=1e-4)


def test_non_contiguous_input_is_rejected_with_clear_error(built):
    """The packed API requires compact strides: a strided view is refused, naming the argument."""
    _, lib = built
    base = np.ones((3, 10), F32)  # (3, 5) float view with a row stride of 10 elements
    strided = base[:, ::2]
    out = np.zeros((3, 5), F32)
    with pytest.raises(ValueError, match=r"(?s)strides.*compact"):
        lib["act_relu"](strided, out)
    with pytest.raises(ValueError, match=r"(?s)strides.*compact"):
        lib["act_relu"](np.ones((3, 5), F32), np.zeros((5, 3), F32).T)
    assert not out.any()  # nothing was written before the check failed


def test_non_contiguous_input_works_after_ascontiguousarray(built):
    made, lib = built
    func, outs = made["act_relu"]
    strided = np.random.default_rng(3).uniform(-1, 1, (3, 10)).astype(F32)[:, ::2]
    compiled, interp = _run_all(func, lib["act_relu"], outs, [np.ascontiguousarray(strided)])
    np.testing.assert_array_equal(compiled[0], interp[0])
    np.testing.assert_array_equal(compiled[0], np.maximum(strided, 0))
