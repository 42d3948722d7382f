"""Shared helper for the topi tests: build a PrimFunc from te tensors, run it, return outputs."""

import numpy as np
import pytest

from tvm import te
from tvm.ffi.node import walk
from tvm.tirx import Var
from tvm.tirx.interpreter import evaluate_expr, run_prim_func


def _static_shape(tensor, bindings):
    shape = []
    for dim in tensor.shape:
        free = {v: bindings[v.name] for v in walk(dim) if isinstance(v, Var)}
        shape.append(int(evaluate_expr(dim, free)))
    return tuple(shape)


def run_te(inputs, outputs, arrays, **bindings):
    """Run ``create_prim_func(inputs + outputs)`` on ``arrays``; returns the output arrays.

    Symbolic output extents are given by name in ``bindings``.
    """
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    func = te.create_prim_func(list(inputs) + outputs)
    outs = [np.zeros(_static_shape(t, bindings), dtype=t.dtype) for t in outputs]
    run_prim_func(func, [np.asarray(a) for a in arrays] + outs)
    return outs if len(outs) > 1 else outs[0]


@pytest.fixture
def run():
    """The :func:`run_te` helper."""
    return run_te


@pytest.fixture
def rng():
    """A seeded NumPy generator."""
    return np.random.default_rng(0)
