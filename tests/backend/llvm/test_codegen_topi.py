"""topi computes compiled with the default schedule against the PrimFunc interpreter.

All cases are compiled into one module (one LLVM compilation); each runs compiled and through
``run_prim_func`` on the same inputs, and the outputs must agree.
"""

import numpy as np
import pytest

import tvm
from tvm import te, topi
from tvm.tirx.interpreter import run_prim_func

F32 = "float32"


def _f(shape, lo=-2.0, hi=2.0, dtype=F32):
    return ("float", shape, dtype, lo, hi)


def _i(shape, lo, hi, dtype="int32"):
    return ("int", shape, dtype, lo, hi)


# name -> (input specs, builder(*placeholders) -> output tensor or list of tensors)
CASES = {
    "exp": ([_f((7, 9))], topi.exp),
    "log": ([_f((33,), 0.1, 5.0)], topi.log),
    "sqrt": ([_f((33,), 0.0, 5.0)], topi.sqrt),
    "tanh": ([_f((17,))], topi.tanh),
    "sigmoid": ([_f((17,))], topi.sigmoid),
    "erf": ([_f((17,))], topi.erf),
    "abs_floor_round": ([_f((19,))], lambda a: [topi.abs(a), topi.floor(a), topi.round(a)]),
    "clip": ([_f((4, 5))], lambda a: topi.clip(a, -0.5, 0.5)),
    "add_broadcast": ([_f((3, 1, 5)), _f((4, 1))], topi.add),
    "divide_power": ([_f((6,), 0.5, 2.0), _f((6,), 0.5, 2.0)],
                     lambda a, b: [topi.divide(a, b), topi.power(a, b)]),
    "maximum_where": ([_f((8,)), _f((8,))],
                      lambda a, b: topi.where(topi.greater(a, b), a, topi.minimum(a, b))),
    "int_floor_div_mod": ([_i((16,), -20, 20), _i((16,), 1, 6)],
                          lambda a, b: [topi.floor_divide(a, b), topi.floor_mod(a, b)]),
    "sum_axis": ([_f((5, 6, 7))], lambda a: topi.sum(a, axis=1)),
    "max_keepdims": ([_f((5, 6))], lambda a: topi.max(a, axis=0, keepdims=True)),
    "mean_all": ([_f((9, 4))], lambda a: topi.mean(a)),
    "prod": ([_f((3, 4), 0.5, 1.5)], lambda a: topi.prod(a, axis=1)),
    "argmax": ([_f((6, 5))], lambda a: topi.argmax(a, axis=1)),
    "transpose": ([_f((2, 3, 4))], lambda a: topi.transpose(a, (2, 0, 1))),
    "reshape_concat": ([_f((2, 6)), _f((3, 4))],
                       lambda a, b: topi.concatenate([topi.reshape(a, (3, 4)), b], axis=0)),
    "strided_slice": ([_f((10, 8))], lambda a: topi.strided_slice(a, [1, 0], [9, 8], [2, 3])),
    "take": ([_f((7, 3)), _i((5,), 0, 7)], lambda a, idx: topi.take(a, idx, axis=0)),
    "flip_tile": ([_f((3, 4))], lambda a: topi.tile(topi.flip(a, axis=1), (2, 1))),
    "relu_softmax": ([_f((4, 10))], lambda a: topi.nn.softmax(topi.nn.relu(a), axis=1)),
    "log_softmax": ([_f((3, 7))], lambda a: topi.nn.log_softmax(a, axis=-1)),
    "dense": ([_f((5, 16)), _f((8, 16))], lambda x, w: topi.nn.dense(x, w)),
    "batch_matmul": ([_f((2, 3, 4)), _f((2, 5, 4))], topi.nn.batch_matmul),
    "conv2d_nchw": ([_f((1, 3, 8, 8)), _f((4, 3, 3, 3))],
                    lambda x, w: topi.nn.conv2d_nchw(x, w, 1, 1, 1)),
    "max_pool2d": ([_f((1, 2, 6, 6))],
                   lambda x: topi.nn.pool2d(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")),
    "pad": ([_f((3, 4))], lambda a: topi.nn.pad(a, (1, 2), (2, 0), 1.5)),
    "layer_norm": ([_f((4, 12)), _f((12,)), _f((12,))],
                   lambda x, g, b: topi.nn.layer_norm(x, g, b, axis=[1])),
    "gelu": ([_f((20,))], topi.nn.gelu),
    "cumsum": ([_f((4, 6))], lambda a: topi.cumsum(a, axis=1)),
    "one_hot": ([_i((5,), 0, 4)], lambda idx: topi.one_hot(
        idx, tvm.tirx.const(1.0, F32), tvm.tirx.const(0.0, F32), 4, -1, F32)),
    "tril": ([_f((5, 5))], lambda a: topi.tril(a, 0)),
}


def _make(name):
    specs, build = CASES[name]
    placeholders = [te.placeholder(s[1], s[2], name=f"in{k}") for k, s in enumerate(specs)]
    outs = build(*placeholders)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    func = te.create_prim_func(placeholders + outs).with_attr("global_symbol", name)
    return func, placeholders, outs


def _inputs(specs, rng):
    arrays = []
    for kind, shape, dtype, lo, hi in specs:
        if kind == "float":
            arrays.append(rng.uniform(lo, hi, shape).astype(dtype))
        else:
            arrays.append(rng.integers(lo, hi, shape).astype(dtype))
    return arrays


@pytest.fixture(scope="module")
def built():
    made = {name: _make(name) for name in CASES}
    lib = tvm.compile(tvm.IRModule({name: m[0] for name, m in made.items()}))
    return made, lib


@pytest.mark.parametrize("name", sorted(CASES))
def test_topi_compiled_matches_interpreter(built, name):
    made, lib = built
    func, _, outs = made[name]
    rng = np.random.default_rng(abs(hash(name)) % (1 << 32))
    inputs = _inputs(CASES[name][0], rng)
    shapes = [tuple(int(d) for d in t.shape) for t in outs]
    compiled = [np.zeros(s, t.dtype) for s, t in zip(shapes, outs)]
    interp = [np.zeros(s, t.dtype) for s, t in zip(shapes, outs)]
    lib[name](*inputs, *compiled)
    run_prim_func(func, [a.copy() for a in inputs] + interp)
    for got, want in zip(compiled, interp):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
