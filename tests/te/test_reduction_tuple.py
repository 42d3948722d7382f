"""te.comm_reducer over several values (argmax's index and value): one Reduce per value, one
block when lowered, checked by running the PrimFunc against NumPy."""

import numpy as np
import pytest

from tvm import te, tirx
from tvm.tirx.interpreter import run_prim_func


def _argmax_reducer():
    def combine(x, y):
        keep = tirx.Select(x[1] >= y[1], x[0], y[0])
        return keep, tirx.Select(x[1] >= y[1], x[1], y[1])

    def identity(t0, t1):
        return tirx.const(-1, t0), tirx.min_value(t1)

    return te.comm_reducer(combine, identity, name="argmax")


def test_tuple_reducer_returns_one_reduce_per_value():
    argmax = _argmax_reducer()
    A = te.placeholder((3, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    idx, val = te.compute((3,), lambda i: argmax((k.var, A[i, k]), axis=k), name="T")
    assert idx.op is val.op and idx.op.num_outputs == 2
    assert (idx.dtype, val.dtype) == ("int32", "float32")


def test_tuple_reducer_lowers_to_one_block_and_runs():
    argmax = _argmax_reducer()
    A = te.placeholder((3, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    idx, val = te.compute((3,), lambda i: argmax((k.var, A[i, k]), axis=k), name="T")
    func = te.create_prim_func([A, idx, val])
    text = func.script()
    # One block named after the compute; the combined values are bound, then stored.
    assert text.count('T.sblock("T")') == 1
    assert "v_T_v0: T.let[T.int32]" in text and "v_T_v1: T.let[T.float32]" in text
    assert "T.writes(T_v0[v_i], T_v1[v_i])" in text
    assert "            T_v0[v_i] = -1\n" in text  # the identities initialize each output
    assert text.index("v_T_v1: T.let") < text.index("T_v0[v_i] = v_T_v0")
    a = np.random.default_rng(0).standard_normal((3, 5)).astype("float32")
    out_idx, out_val = np.zeros(3, "int32"), np.zeros(3, "float32")
    run_prim_func(func, [a, out_idx, out_val])
    np.testing.assert_array_equal(out_idx, a.argmax(axis=1))
    np.testing.assert_array_equal(out_val, a.max(axis=1))


def test_tuple_reducer_arity_mismatch_is_an_error():
    bad = te.comm_reducer(lambda x, y: (x[0] + y[0],), lambda t0, t1: (tirx.const(0, t0),
                                                                        tirx.const(0, t1)))
    A = te.placeholder((4,), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(ValueError, match="reducer of 2 values must combine into"):
        bad((A[k], A[k]), axis=k)
