"""Each op prints exactly as Apache TVM 0.27 prints it (the texts were taken from TVM).

The generic printer writes an op's attributes as keywords in field order, so these texts pin
both the attribute classes and the constructors' normalization of their arguments.
"""

from __future__ import annotations

import pytest

from tvm import relax, tirx
from tvm.relax import op
from tvm.relax.op import grad, nn


def _v(name, shape, dtype="float32"):
    return relax.Var(name, relax.TensorType(shape, dtype))


x = _v("x", (2, 3, 4, 4))
w = _v("w", (3, 3, 1, 1))
v = _v("v", (4, 3))
ii = _v("i", (2,), "int64")
c = _v("c", (2, 3, 4, 4), "bool")

PRINTED = [
    (lambda: op.clip(x, 0.0, 1.0), "R.clip(x, T.float64(0.0), T.float64(1.0))"),
    (lambda: op.where(c, x, x), "R.where(c, x, x)"),
    (
        lambda: op.full((2, 3), relax.const(1.0)),
        'R.full(R.shape([2, 3]), R.const(1.0, "float32"), dtype=None)',
    ),
    (
        lambda: op.full_like(x, relax.const(1.0)),
        'R.full_like(x, R.const(1.0, "float32"), dtype=None)',
    ),
    (lambda: op.ones_like(x), "R.ones_like(x, dtype=None)"),
    (lambda: op.arange(0, 10, 2), 'R.arange(0, 10, 2, dtype="int64")'),
    (lambda: op.tril(v, 1), "R.tril(v, 1)"),
    (lambda: op.eye(3), 'R.eye(3, 3, 0, dtype="float32")'),
    (lambda: op.astype(x, "float16"), 'R.astype(x, dtype="float16")'),
    (lambda: op.wrap_param(x, "float16"), 'R.wrap_param(x, dtype="float16")'),
    (lambda: op.expand_dims(x, [0]), "R.expand_dims(x, axis=[0])"),
    (lambda: op.squeeze(x, [0]), "R.squeeze(x, axis=[0])"),
    (lambda: op.flatten(x), "R.flatten(x)"),
    (lambda: op.concat([x, x], 1), "R.concat((x, x), axis=1)"),
    (lambda: op.stack([x, x], 1), "R.stack((x, x), axis=1)"),
    (lambda: op.split(x, 3, 1), "R.split(x, indices_or_sections=3, axis=1)"),
    (lambda: op.split(x, [1, 2], 1), "R.split(x, indices_or_sections=[1, 2], axis=1)"),
    (lambda: op.collapse_sum_to(x, (3, 1, 4)), "R.collapse_sum_to(x, R.shape([3, 1, 4]))"),
    (lambda: op.repeat(x, 2, 1), "R.repeat(x, repeats=2, axis=1)"),
    (lambda: op.tile(x, (2,)), "R.tile(x, repeats=[2])"),
    (lambda: op.flip(x, 1), "R.flip(x, axis=1)"),
    (lambda: op.gather_elements(x, op.astype(x, "int64"), 1), 'R.astype(x, dtype="int64")'),
    (lambda: op.scatter_elements(x, op.astype(x, "int64"), x, 1), 'R.astype(x, dtype="int64")'),
    (
        lambda: op.one_hot(
            ii,
            relax.prim_value(tirx.FloatImm("float32", 1.0)),
            relax.prim_value(tirx.FloatImm("float32", 0.0)),
            5,
            -1,
        ),
        "R.one_hot(i, T.float32(1.0), T.float32(0.0), depth=5, axis=-1)",
    ),
    (lambda: op.take(x, ii, 1), 'R.take(x, i, axis=1, mode="fast")'),
    (
        lambda: op.strided_slice(x, [1], [0], [2], [1]),
        "R.strided_slice(x, (1,), (0,), (2,), (1,), assume_inbound=False)",
    ),
    (lambda: op.einsum([v, v], "ij,ij->i"), 'R.einsum((v, v), subscripts="ij,ij->i")'),
    (lambda: op.outer(ii, ii), "R.outer(i, i)"),
    (lambda: op.mean(x, [1], True), "R.mean(x, axis=[1], keepdims=True)"),
    (lambda: op.std(x), "R.std(x, axis=None, keepdims=False)"),
    (lambda: op.cumsum(x, 1), "R.cumsum(x, axis=1, dtype=None, exclusive=False)"),
    (lambda: op.argmax(x, 1), "R.argmax(x, axis=1, keepdims=False)"),
    (lambda: op.sort(x), "R.sort(x, axis=-1, descending=False)"),
    (lambda: op.argsort(x), 'R.argsort(x, axis=-1, descending=False, dtype="int32")'),
    (
        lambda: op.topk(x, 2),
        'R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int32")',
    ),
    (lambda: nn.leakyrelu(x), "R.nn.leakyrelu(x, alpha=0.01)"),
    (lambda: nn.softplus(x), "R.nn.softplus(x, beta=1.0, threshold=20.0)"),
    (lambda: nn.softmax(x), "R.nn.softmax(x, axis=-1)"),
    (lambda: nn.cross_entropy_with_logits(v, v), "R.nn.cross_entropy_with_logits(v, v)"),
    (
        lambda: nn.nll_loss(v, _v("t", (4,), "int64")),
        'R.nn.nll_loss(v, t, reduction="mean", ignore_index=-100)',
    ),
    (
        lambda: nn.conv1d(_v("x1", (1, 3, 8)), _v("w1", (4, 3, 3))),
        (
            "R.nn.conv1d(x1, w1, strides=[1], padding=[0, 0], dilation=[1], groups=1, "
            'data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype=None)'
        ),
    ),
    (
        lambda: nn.conv2d(x, w),
        (
            "R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, "
            'data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)'
        ),
    ),
    (
        lambda: nn.conv2d_transpose(x, w),
        (
            "R.nn.conv2d_transpose(x, w, strides=[1, 1], padding=[0, 0, 0, 0], "
            'output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", '
            'kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)'
        ),
    ),
    (
        lambda: nn.max_pool2d(x),
        (
            "R.nn.max_pool2d(x, pool_size=[1, 1], strides=[1, 1], dilation=[1, 1], padding=[0, "
            '0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", '
            'out_layout="NCHW")'
        ),
    ),
    (
        lambda: nn.avg_pool2d(x),
        (
            "R.nn.avg_pool2d(x, pool_size=[1, 1], strides=[1, 1], dilation=[1, 1], padding=[0, "
            '0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", '
            'out_layout="NCHW")'
        ),
    ),
    (
        lambda: nn.adaptive_avg_pool2d(x, (1, 1)),
        'R.nn.adaptive_avg_pool2d(x, output_size=[1, 1], layout="NCHW", out_layout="NCHW")',
    ),
    (
        lambda: nn.layer_norm(x, _v("g", (4,)), _v("b", (4,)), [-1]),
        (
            "R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, "
            "scale=True)"
        ),
    ),
    (
        lambda: nn.group_norm(x, _v("g3", (3,)), _v("b3", (3,)), 3, 1, [2, 3]),
        (
            "R.nn.group_norm(x, g3, b3, num_groups=3, channel_axis=1, axes=[2, 3], "
            "epsilon=1.0000000000000001e-05, center=True, scale=True)"
        ),
    ),
    (
        lambda: nn.rms_norm(x, _v("g", (4,))),
        "R.nn.rms_norm(x, g, axes=[-1], epsilon=1.0000000000000001e-05)",
    ),
    (
        lambda: nn.batch_norm(x, _v("g3", (3,)), _v("b3", (3,)), _v("m3", (3,)), _v("v3", (3,)), 1),
        (
            "R.nn.batch_norm(x, g3, b3, m3, v3, axis=1, epsilon=1.0000000000000001e-05, "
            "center=True, scale=True, momentum=0.10000000000000001, training=True)"
        ),
    ),
    (lambda: nn.dropout(x), "R.nn.dropout(x, rate=0.5)"),
    (
        lambda: nn.attention(x, x, x),
        "R.nn.attention(x, x, x, scale=None, causal_mask=None, window_size=None)",
    ),
    (
        lambda: nn.pad(x, [0, 0, 0, 0, 1, 1, 1, 1]),
        'R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_value=0.0, pad_mode="constant")',
    ),
    (lambda: grad.no_grad(x), "R.grad.no_grad(x)"),
    (lambda: grad.start_checkpoint(x), "R.grad.start_checkpoint(x)"),
    (lambda: grad.end_checkpoint(x), "R.grad.end_checkpoint(x)"),
    (lambda: grad.take_backward(x, x, ii, 1), 'R.grad.take_backward(x, x, i, axis=1, mode="")'),
    (
        lambda: grad.max_pool2d_backward(x, x),
        (
            "R.grad.max_pool2d_backward(x, x, pool_size=[1, 1], strides=[1, 1], dilation=[1, 1], "
            'padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", '
            'out_layout="NCHW")'
        ),
    ),
    (
        lambda: grad.nll_loss_backward(_v("og", (), "float32"), v, _v("t", (4,), "int64")),
        'R.grad.nll_loss_backward(og, v, t, reduction="mean", ignore_index=-100)',
    ),
    (lambda: op.ewise_fma(x, x, x), "R.ewise_fma(x, x, x)"),
    (lambda: op.min(x), "R.min(x, axis=None, keepdims=False)"),
    (
        lambda: op.cumprod(x, 1, "float64", True),
        'R.cumprod(x, axis=1, dtype="float64", exclusive=True)',
    ),
]


@pytest.mark.parametrize("build, text", PRINTED, ids=[t.split("(")[0] for _, t in PRINTED])
def test_printed_like_tvm(build, text):
    call = build()
    params = relax.analysis.free_vars(call)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        bb.emit_func_output(bb.emit(call))
    lines = [line.strip() for line in bb.get().script().splitlines() if " = R." in line]
    assert lines[0].split(" = ", 1)[1] == text
