"""topi.variance is staged as TVM stages it: the mean, the broadcast deviation
(T_subtract), its square (T_multiply), then their mean; values match NumPy."""

import numpy as np

import tvm
from tvm import te, topi


def test_variance_stages_and_values():
    x = te.placeholder((2, 3, 4), name="x")
    out = topi.variance(x, axis=[0, 2], keepdims=True)
    func = te.create_prim_func([x, out])
    blocks = []
    tvm.tirx.stmt_functor.post_order_visit(
        func.body, lambda n: blocks.append(n.name_hint) if type(n).__name__ == "SBlock" else None)
    assert [b for b in blocks if b != "root"] == [
        "x_red", "T_divide", "T_subtract", "T_multiply", "T_multiply_red", "T_divide_1"]
    data = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")
    got = tvm.compile(func, "llvm")
    res = tvm.runtime.empty((1, 3, 1), "float32")
    got(tvm.runtime.tensor(data), res)
    np.testing.assert_allclose(res.numpy(), data.var(axis=(0, 2), keepdims=True), rtol=1e-5)


def test_where_on_a_bool_condition_compares_its_index_cast():
    c = te.placeholder((3,), "bool", name="c")
    x, y = te.placeholder((3,), name="x"), te.placeholder((3,), name="y")
    text = te.create_prim_func([c, x, y, topi.where(c, x, y)]).script()
    assert 'T.Select(0 < T.Cast("int32", c[v_ax0]), x[v_ax0], y[v_ax0])' in text  # as TVM
    func = tvm.compile(te.create_prim_func([c, x, y, topi.where(c, x, y)]), "llvm")
    cond = np.array([True, False, True])
    a, b = np.arange(3, dtype="float32"), -np.arange(3, dtype="float32")
    out = tvm.runtime.empty((3,), "float32")
    func(tvm.runtime.tensor(cond), tvm.runtime.tensor(a), tvm.runtime.tensor(b), out)
    np.testing.assert_array_equal(out.numpy(), np.where(cond, a, b))
