"""The adjoint each gradient rule of spec F.6 emits, op by op, as printed TVMScript.

Each case differentiates ``lv = <op call>; gv = R.sum(lv)``. The expected texts are what Apache
TVM 0.27 prints for the same function (binding order, names, attributes), except ``triu`` (TVM
0.27's rule returns one partial for two arguments and fails; ours masks the gradient).
"""

import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R

#: case -> (parameter types, forward call)
CASES = {
    "add": (['R.Tensor((3, 4), "float32")', 'R.Tensor((4,), "float32")'], "R.add(a0, a1)"),
    "subtract": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((4,), "float32")'],
        "R.subtract(a0, a1)",
    ),
    "multiply": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((4,), "float32")'],
        "R.multiply(a0, a1)",
    ),
    "divide": (['R.Tensor((3, 4), "float32")', 'R.Tensor((4,), "float32")'], "R.divide(a0, a1)"),
    "power": (['R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'], "R.power(a0, a1)"),
    "maximum": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'],
        "R.maximum(a0, a1)",
    ),
    "minimum": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'],
        "R.minimum(a0, a1)",
    ),
    "zeros_like": (['R.Tensor((3, 4), "float32")'], "R.zeros_like(a0)"),
    "full_like": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((), "float32")'],
        "R.full_like(a0, a1)",
    ),
    "full": (['R.Tensor((), "float32")'], "R.full((3, 4), a0)"),
    "triu": (['R.Tensor((3, 4), "float32")'], "R.triu(a0, 1)"),
    "abs": (['R.Tensor((3, 4), "float32")'], "R.abs(a0)"),
    "cos": (['R.Tensor((3, 4), "float32")'], "R.cos(a0)"),
    "exp": (['R.Tensor((3, 4), "float32")'], "R.exp(a0)"),
    "log": (['R.Tensor((3, 4), "float32")'], "R.log(a0)"),
    "negative": (['R.Tensor((3, 4), "float32")'], "R.negative(a0)"),
    "sigmoid": (['R.Tensor((3, 4), "float32")'], "R.sigmoid(a0)"),
    "sin": (['R.Tensor((3, 4), "float32")'], "R.sin(a0)"),
    "sqrt": (['R.Tensor((3, 4), "float32")'], "R.sqrt(a0)"),
    "tanh": (['R.Tensor((3, 4), "float32")'], "R.tanh(a0)"),
    "sum_axis": (['R.Tensor((3, 4), "float32")'], "R.sum(a0, axis=[1])"),
    "sum_keep": (['R.Tensor((3, 4), "float32")'], "R.sum(a0, axis=[0], keepdims=True)"),
    "mean": (['R.Tensor((3, 4), "float32")'], "R.mean(a0, axis=[1])"),
    "mean_all": (['R.Tensor((3, 4), "float32")'], "R.mean(a0)"),
    "variance": (['R.Tensor((3, 4), "float32")'], "R.variance(a0, axis=[1])"),
    "permute_dims": (['R.Tensor((2, 3, 4), "float32")'], "R.permute_dims(a0, [2, 0, 1])"),
    "permute_none": (['R.Tensor((3, 4), "float32")'], "R.permute_dims(a0)"),
    "concat": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'],
        "R.concat((a0, a1), axis=1)",
    ),
    "split": (['R.Tensor((3, 4), "float32")'], "R.split(a0, 2, axis=1)[0]"),
    "expand_dims": (['R.Tensor((3, 4), "float32")'], "R.expand_dims(a0, [1])"),
    "reshape": (['R.Tensor((3, 4), "float32")'], "R.reshape(a0, (2, 6))"),
    "cumsum": (['R.Tensor((3, 4), "float32")'], "R.cumsum(a0, axis=1)"),
    "broadcast_to": (['R.Tensor((4,), "float32")'], "R.broadcast_to(a0, (3, 4))"),
    "take": (['R.Tensor((3, 4), "float32")', 'R.Tensor((2,), "int64")'], "R.take(a0, a1, axis=0)"),
    "where": (
        ['R.Tensor((3, 4), "bool")', 'R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'],
        "R.where(a0, a1, a2)",
    ),
    "matmul": (['R.Tensor((3, 4), "float32")', 'R.Tensor((4, 5), "float32")'], "R.matmul(a0, a1)"),
    "matmul_1d": (['R.Tensor((4,), "float32")', 'R.Tensor((4, 5), "float32")'], "R.matmul(a0, a1)"),
    "matmul_1d_b": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((4,), "float32")'],
        "R.matmul(a0, a1)",
    ),
    "matmul_3d": (
        ['R.Tensor((2, 3, 4), "float32")', 'R.Tensor((4, 5), "float32")'],
        "R.matmul(a0, a1)",
    ),
    "astype": (['R.Tensor((3, 4), "float32")'], 'R.astype(a0, "float16")'),
    "relu": (['R.Tensor((3, 4), "float32")'], "R.nn.relu(a0)"),
    "silu": (['R.Tensor((3, 4), "float32")'], "R.nn.silu(a0)"),
    "softmax": (['R.Tensor((3, 4), "float32")'], "R.nn.softmax(a0)"),
    "log_softmax": (['R.Tensor((3, 4), "float32")'], "R.nn.log_softmax(a0)"),
    "cross_entropy": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3, 4), "float32")'],
        "R.nn.cross_entropy_with_logits(a0, a1)",
    ),
    "nll_loss": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3,), "int64")'],
        "R.nn.nll_loss(a0, a1)",
    ),
    "nll_loss_w": (
        ['R.Tensor((3, 4), "float32")', 'R.Tensor((3,), "int64")', 'R.Tensor((4,), "float32")'],
        'R.nn.nll_loss(a0, a1, a2, reduction="sum", ignore_index=1)',
    ),
    "conv2d": (
        ['R.Tensor((2, 3, 6, 6), "float32")', 'R.Tensor((4, 3, 3, 3), "float32")'],
        "R.nn.conv2d(a0, a1, strides=(1, 1), padding=(1, 1))",
    ),
    "conv2d_strided_crop": (
        ['R.Tensor((2, 3, 8, 8), "float32")', 'R.Tensor((4, 3, 3, 3), "float32")'],
        "R.nn.conv2d(a0, a1, strides=(2, 2))",
    ),
    "max_pool2d": (
        ['R.Tensor((2, 3, 6, 6), "float32")'],
        "R.nn.max_pool2d(a0, (2, 2), strides=(2, 2))",
    ),
    "avg_pool2d": (
        ['R.Tensor((2, 3, 6, 6), "float32")'],
        "R.nn.avg_pool2d(a0, (2, 2), strides=(2, 2))",
    ),
}

#: case -> the adjoint function's bindings and R.output, as printed
EXPECTED = {
    "add": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.add(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = lv_adjoint',
        'a1_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv_adjoint, R.shape([4]))',
    ],
    "subtract": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.subtract(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = lv_adjoint',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.negative(lv_adjoint)',
        'a1_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv_1, R.shape([4]))',
    ],
    "multiply": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.multiply(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, a1)',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, a0)',
        'a1_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv_1, R.shape([4]))',
    ],
    "divide": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.divide(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.negative(lv_adjoint)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.divide(lv_adjoint, a1)',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.divide(lv1, a1)',
        'a1_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv2, R.shape([4]))',
    ],
    "power": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.power(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, a1)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.subtract(a1, R.const(1.0, "float32"))',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.power(a0, lv1)',
        'lv3: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv)',
        'lv4: R.Tensor((3, 4), dtype="float32") = R.log(a0)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv2)',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv3, lv4)',
    ],
    "maximum": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.maximum(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="bool") = R.less(a0, a1)',
        'lv1: R.Tensor((3, 4), dtype="bool") = R.greater_equal(a0, a1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(lv_1, R.const(0.0, "float32"), lv_adjoint)',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(lv1, R.const(0.0, "float32"), lv_adjoint)',
    ],
    "minimum": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.minimum(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="bool") = R.greater_equal(a0, a1)',
        'lv1: R.Tensor((3, 4), dtype="bool") = R.less(a0, a1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(lv_1, R.const(0.0, "float32"), lv_adjoint)',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(lv1, R.const(0.0, "float32"), lv_adjoint)',
    ],
    "zeros_like": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.zeros_like(a0, dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.zeros(R.shape([3, 4]), dtype="float32")',
    ],
    "full_like": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.full_like(a0, a1, dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.zeros(R.shape([3, 4]), dtype="float32")',
        'a1_adjoint: R.Tensor((), dtype="float32") = R.zeros(R.shape([]), dtype="float32")',
    ],
    "full": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.full(R.shape([3, 4]), a0, dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'a0_adjoint: R.Tensor((), dtype="float32") = R.zeros(R.shape([]), dtype="float32")',
    ],
    "triu": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.triu(a0, 1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.triu(lv_adjoint, 1)',
    ],
    "abs": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.abs(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="bool") = R.less(a0, R.const(0.0, "float32"))',
        'lv1: R.Tensor((), dtype="float32") = R.negative(R.const(1.0, "float32"))',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.where(lv_1, lv1, R.const(1.0, "float32"))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv2)',
    ],
    "cos": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.cos(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.negative(lv_adjoint)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.sin(a0)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv1)',
    ],
    "exp": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.exp(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv)',
    ],
    "log": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.log(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.divide(lv_adjoint, a0)',
    ],
    "negative": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.negative(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.negative(lv_adjoint)',
    ],
    "sigmoid": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.sigmoid(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv1)',
    ],
    "sin": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.sin(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.cos(a0)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv_1)',
    ],
    "sqrt": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.sqrt(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(R.const(0.5, "float32"), lv_adjoint)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.divide(lv_1, lv)',
    ],
    "tanh": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.tanh(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv, lv)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv_1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv1)',
    ],
    "sum_axis": [
        'lv: R.Tensor((3,), dtype="float32") = R.sum(a0, axis=[1], keepdims=False)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3]))',
        'lv_1: R.Tensor((3, 1), dtype="float32") = R.expand_dims(lv_adjoint, axis=[1])',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(lv_1, R.shape([3, 4]))',
    ],
    "sum_keep": [
        'lv: R.Tensor((1, 4), dtype="float32") = R.sum(a0, axis=[0], keepdims=True)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((1, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([1, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(lv_adjoint, R.shape([3, 4]))',
    ],
    "mean": [
        'lv: R.Tensor((3,), dtype="float32") = R.mean(a0, axis=[1], keepdims=False)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3]))',
        'lv_1: R.Tensor((3,), dtype="float32") = R.divide(lv_adjoint, R.const(4.0, "float32"))',
        'lv1: R.Tensor((3, 1), dtype="float32") = R.expand_dims(lv_1, axis=[1])',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(lv1, R.shape([3, 4]))',
    ],
    "mean_all": [
        'lv: R.Tensor((), dtype="float32") = R.mean(a0, axis=None, keepdims=False)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([]))',
        'lv_1: R.Tensor((), dtype="float32") = R.divide(lv_adjoint, R.const(12.0, "float32"))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(lv_1, R.shape([3, 4]))',
    ],
    "variance": [
        'lv: R.Tensor((3,), dtype="float32") = R.variance(a0, axis=[1], keepdims=False)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3]))',
        'lv_1: R.Tensor((3, 1), dtype="float32") = R.expand_dims(lv_adjoint, axis=[1])',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.multiply(R.const(0.5, "float32"), a0)',
        'lv2: R.Tensor((3, 1), dtype="float32") = R.sum(a0, axis=[1], keepdims=True)',
        'lv3: R.Tensor((3, 1), dtype="float32") = R.multiply(R.const(0.125, "float32"), lv2)',
        'lv4: R.Tensor((3, 4), dtype="float32") = R.subtract(lv1, lv3)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv4)',
    ],
    "permute_dims": [
        'lv: R.Tensor((4, 2, 3), dtype="float32") = R.permute_dims(a0, axes=[2, 0, 1])',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((4, 2, 3), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([4, 2, 3]))',
        'a0_adjoint: R.Tensor((2, 3, 4), dtype="float32") = R.permute_dims(lv_adjoint, axes=[1, 2, 0])',
    ],
    "permute_none": [
        'lv: R.Tensor((4, 3), dtype="float32") = R.permute_dims(a0, axes=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((4, 3), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([4, 3]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.permute_dims(lv_adjoint, axes=None)',
    ],
    "concat": [
        'lv: R.Tensor((3, 8), dtype="float32") = R.concat((a0, a1), axis=1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 8), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 8]))',
        'lv_1: R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32")) = R.split(lv_adjoint, indices_or_sections=[4], axis=1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = lv_1[0]',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = lv_1[1]',
    ],
    "split": [
        'lv: R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32")) = R.split(a0, indices_or_sections=2, axis=1)',
        'lv_1: R.Tensor((3, 2), dtype="float32") = lv[0]',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv_1, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 2), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 2]))',
        'lv_2: R.Tensor((3, 2), dtype="float32") = R.zeros(R.shape([3, 2]), dtype="float32")',
        'lv_adjoint1: R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32")) = lv_adjoint, lv_2',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.concat(lv_adjoint1, axis=1)',
    ],
    "expand_dims": [
        'lv: R.Tensor((3, 1, 4), dtype="float32") = R.expand_dims(a0, axis=[1])',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 1, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 1, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.squeeze(lv_adjoint, axis=[1])',
    ],
    "reshape": [
        'lv: R.Tensor((2, 6), dtype="float32") = R.reshape(a0, R.shape([2, 6]))',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 6), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 6]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.reshape(lv_adjoint, R.shape([3, 4]))',
    ],
    "cumsum": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.cumsum(a0, axis=1, dtype=None, exclusive=False)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 1), dtype="float32") = R.sum(lv_adjoint, axis=[1], keepdims=True)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.cumsum(lv_adjoint, axis=1, dtype=None, exclusive=False)',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.subtract(lv_1, lv1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.add(lv2, lv_adjoint)',
    ],
    "broadcast_to": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(a0, R.shape([3, 4]))',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv_adjoint, R.shape([4]))',
    ],
    "take": [
        'lv: R.Tensor((2, 4), dtype="float32") = R.take(a0, a1, axis=0, mode="fast")',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.grad.take_backward(lv_adjoint, a0, a1, axis=0, mode="")',
        'a1_adjoint: R.Tensor((2,), dtype="int64") = R.zeros(R.shape([2]), dtype="int64")',
    ],
    "where": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.where(a0, a1, a2)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(a0, lv_adjoint, R.const(0.0, "float32"))',
        'a2_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(a0, R.const(0.0, "float32"), lv_adjoint)',
        'a0_adjoint: R.Tensor((3, 4), dtype="bool") = R.zeros(R.shape([3, 4]), dtype="bool")',
    ],
    "matmul": [
        'lv: R.Tensor((3, 5), dtype="float32") = R.matmul(a0, a1, out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 5), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 5]))',
        'lv_1: R.Tensor((5, 4), dtype="float32") = R.permute_dims(a1, axes=[1, 0])',
        'lv1: R.Tensor((4, 3), dtype="float32") = R.permute_dims(a0, axes=[1, 0])',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.matmul(lv_adjoint, lv_1, out_dtype=None)',
        'a1_adjoint: R.Tensor((4, 5), dtype="float32") = R.matmul(lv1, lv_adjoint, out_dtype=None)',
    ],
    "matmul_1d": [
        'lv: R.Tensor((5,), dtype="float32") = R.matmul(a0, a1, out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((5,), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([5]))',
        'lv_1: R.Tensor((1, 5), dtype="float32") = R.expand_dims(lv_adjoint, axis=[-2])',
        'lv1: R.Tensor((5, 4), dtype="float32") = R.permute_dims(a1, axes=[1, 0])',
        'lv2: R.Tensor((4, 1), dtype="float32") = R.expand_dims(a0, axis=[1])',
        'lv3: R.Tensor((1, 4), dtype="float32") = R.matmul(lv_1, lv1, out_dtype=None)',
        'a0_adjoint: R.Tensor((4,), dtype="float32") = R.collapse_sum_to(lv3, R.shape([4]))',
        'a1_adjoint: R.Tensor((4, 5), dtype="float32") = R.matmul(lv2, lv_1, out_dtype=None)',
    ],
    "matmul_1d_b": [
        'lv: R.Tensor((3,), dtype="float32") = R.matmul(a0, a1, out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3]))',
        'lv_1: R.Tensor((3, 1), dtype="float32") = R.expand_dims(lv_adjoint, axis=[-1])',
        'lv1: R.Tensor((1, 4), dtype="float32") = R.expand_dims(a1, axis=[0])',
        'lv2: R.Tensor((4, 3), dtype="float32") = R.permute_dims(a0, axes=[1, 0])',
        'lv3: R.Tensor((4, 1), dtype="float32") = R.matmul(lv2, lv_1, out_dtype=None)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.matmul(lv_1, lv1, out_dtype=None)',
        'a1_adjoint: R.Tensor((4,), dtype="float32") = R.squeeze(lv3, axis=[-1])',
    ],
    "matmul_3d": [
        'lv: R.Tensor((2, 3, 5), dtype="float32") = R.matmul(a0, a1, out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 3, 5), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 3, 5]))',
        'lv_1: R.Tensor((5, 4), dtype="float32") = R.permute_dims(a1, axes=[1, 0])',
        'lv1: R.Tensor((2, 4, 3), dtype="float32") = R.permute_dims(a0, axes=[0, 2, 1])',
        'a0_adjoint: R.Tensor((2, 3, 4), dtype="float32") = R.matmul(lv_adjoint, lv_1, out_dtype=None)',
        'lv2: R.Tensor((2, 4, 5), dtype="float32") = R.matmul(lv1, lv_adjoint, out_dtype=None)',
        'a1_adjoint: R.Tensor((4, 5), dtype="float32") = R.collapse_sum_to(lv2, R.shape([4, 5]))',
    ],
    "astype": [
        'lv: R.Tensor((3, 4), dtype="float16") = R.astype(a0, dtype="float16")',
        'gv: R.Tensor((), dtype="float16") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float16") = R.ones(R.shape([]), dtype="float16")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float16") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.astype(lv_adjoint, dtype="float32")',
    ],
    "relu": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.nn.relu(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="bool") = R.less(a0, R.const(0.0, "float32"))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.where(lv_1, R.const(0.0, "float32"), lv_adjoint)',
    ],
    "silu": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.nn.silu(a0)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.sigmoid(a0)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv_1)',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.multiply(lv, lv1)',
        'lv3: R.Tensor((3, 4), dtype="float32") = R.add(lv_1, lv2)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv3)',
    ],
    "softmax": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.nn.softmax(a0, axis=-1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_adjoint, lv)',
        'lv1: R.Tensor((3, 1), dtype="float32") = R.sum(lv_1, axis=[-1], keepdims=True)',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.subtract(lv_adjoint, lv1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv2, lv)',
    ],
    "log_softmax": [
        'lv: R.Tensor((3, 4), dtype="float32") = R.nn.log_softmax(a0, axis=-1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((3, 4), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([3, 4]))',
        'lv_1: R.Tensor((3, 1), dtype="float32") = R.sum(lv_adjoint, axis=[-1], keepdims=True)',
        'lv1: R.Tensor((3, 4), dtype="float32") = R.exp(lv)',
        'lv2: R.Tensor((3, 4), dtype="float32") = R.multiply(lv_1, lv1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.subtract(lv_adjoint, lv2)',
    ],
    "cross_entropy": [
        'lv: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(a0, a1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([]))',
        'lv_1: R.Tensor((), dtype="float32") = R.divide(lv_adjoint, R.const(3.0, "float32"))',
        'lv1: R.Tensor((), dtype="float32") = R.negative(lv_1)',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv1, a1)',
        'lv2: R.Tensor((), dtype="float32") = R.negative(lv_1)',
        'a1_adjoint: R.Tensor((3, 4), dtype="float32") = R.multiply(lv2, a0)',
    ],
    "nll_loss": [
        'lv: R.Tensor((), dtype="float32") = R.nn.nll_loss(a0, a1, reduction="mean", ignore_index=-100)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.grad.nll_loss_backward(lv_adjoint, a0, a1, reduction="mean", ignore_index=-100)',
        'a1_adjoint: R.Tensor((3,), dtype="int64") = R.zeros(R.shape([3]), dtype="int64")',
    ],
    "nll_loss_w": [
        'lv: R.Tensor((), dtype="float32") = R.nn.nll_loss(a0, a1, a2, reduction="sum", ignore_index=1)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([]))',
        'a0_adjoint: R.Tensor((3, 4), dtype="float32") = R.grad.nll_loss_backward(lv_adjoint, a0, a1, a2, reduction="sum", ignore_index=1)',
        'a1_adjoint: R.Tensor((3,), dtype="int64") = R.zeros(R.shape([3]), dtype="int64")',
        'a2_adjoint: R.Tensor((4,), dtype="float32") = R.zeros(R.shape([4]), dtype="float32")',
    ],
    "conv2d": [
        'lv: R.Tensor((2, 4, 6, 6), dtype="float32") = R.nn.conv2d(a0, a1, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 4, 6, 6), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 4, 6, 6]))',
        'a0_adjoint: R.Tensor((2, 3, 6, 6), dtype="float32") = R.nn.conv2d_transpose(lv_adjoint, a1, strides=[1, 1], padding=[1, 1, 1, 1], output_padding=[0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)',
        'a1_adjoint: R.Tensor((4, 3, 3, 3), dtype="float32") = R.nn.conv2d(a0, lv_adjoint, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="CNHW", kernel_layout="IOHW", out_layout="CNHW", out_dtype=None)',
    ],
    "conv2d_strided_crop": [
        'lv: R.Tensor((2, 4, 3, 3), dtype="float32") = R.nn.conv2d(a0, a1, strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 4, 3, 3), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 4, 3, 3]))',
        'a0_adjoint: R.Tensor((2, 3, 8, 8), dtype="float32") = R.nn.conv2d_transpose(lv_adjoint, a1, strides=[2, 2], padding=[0, 0, 0, 0], output_padding=[1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="IOHW", out_layout="NCHW", out_dtype=None)',
        'lv_1: R.Tensor((4, 3, 4, 4), dtype="float32") = R.nn.conv2d(a0, lv_adjoint, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[2, 2], groups=1, data_layout="CNHW", kernel_layout="IOHW", out_layout="CNHW", out_dtype=None)',
        'a1_adjoint: R.Tensor((4, 3, 3, 3), dtype="float32") = R.strided_slice(lv_1, (0, 1, 2, 3), (0, 0, 0, 0), (4, 3, 3, 3), assume_inbound=False)',
    ],
    "max_pool2d": [
        'lv: R.Tensor((2, 3, 3, 3), dtype="float32") = R.nn.max_pool2d(a0, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 3, 3, 3), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 3, 3, 3]))',
        'a0_adjoint: R.Tensor((2, 3, 6, 6), dtype="float32") = R.grad.max_pool2d_backward(lv_adjoint, a0, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")',
    ],
    "avg_pool2d": [
        'lv: R.Tensor((2, 3, 3, 3), dtype="float32") = R.nn.avg_pool2d(a0, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")',
        'gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)',
        'gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")',
        'lv_adjoint: R.Tensor((2, 3, 3, 3), dtype="float32") = R.broadcast_to(gv_adjoint, R.shape([2, 3, 3, 3]))',
        'a0_adjoint: R.Tensor((2, 3, 6, 6), dtype="float32") = R.grad.avg_pool2d_backward(lv_adjoint, a0, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")',
    ],
}


def _source(name):
    params, body = CASES[name]
    args = ", ".join(f"a{i}: {ty}" for i, ty in enumerate(params))
    return f"""
@I.ir_module
class Module:
    @R.function
    def main({args}):
        with R.dataflow():
            lv = {body}
            gv = R.sum(lv)
            R.output(gv)
        return gv
"""


def _adjoint_lines(name):
    mod = tvm.script.from_source(_source(name), extra_vars={"R": R, "I": I})
    text = relax.transform.Gradient("main")(mod)["main_adjoint"].script()
    body = text.splitlines()
    start = next(i for i, line in enumerate(body) if "with R.dataflow():" in line)
    return [line.strip() for line in body[start + 1 : -2] if "_adjoint_out" not in line]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_emits_tvm_adjoint(name):
    assert _adjoint_lines(name) == EXPECTED[name]


def test_comparison_target_is_rejected():
    mod = tvm.script.from_source(
        """
@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3, 4), "float32"), a1: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv = R.equal(a0, a1)
            gv = R.sum(lv)
            R.output(gv)
        return gv
""",
        extra_vars={"R": R, "I": I},
    )
    with pytest.raises(ValueError, match="must be a float scalar"):
        relax.transform.Gradient("main")(mod)
