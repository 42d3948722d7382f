"""Rule 2b of the default schedule (``default_schedule_reduce``): row reductions (sum, max,
min over one loop) split into steps of a 16-lane vector; compiled results vs NumPy."""

import numpy as np
import pytest

import tvm
from tvm import te, topi
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.s_tir.default_schedule_reduce import ROW_REDUCE_LANES, ROW_REDUCE_MIN
from tvm.tirx.stmt import For, ForKind, SBlock
from tvm.tirx.stmt_functor import post_order_visit


def _nodes(func, kind):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, kind) else None)
    return found


def _compile(func):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    return tvm.compile(mod, target="llvm")["main"]


def _row_reduce(rows, cols, kind):
    x = te.placeholder((rows, cols), "float32", name="X")
    k = te.reduce_axis((0, cols), name="k")
    reducer = {"sum": te.sum, "max": te.max, "min": te.min}[kind]
    y = te.compute((rows,), lambda i: reducer(x[i, k] * 2.0, axis=k), name="Y")
    return te.create_prim_func([x, y])


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
@pytest.mark.parametrize("cols", [256, 48])
def test_row_reduction_is_split_into_vector_steps(kind, cols):
    func = _row_reduce(37, cols, kind)
    out = schedule_prim_func(func)
    assert "Y_rf" in {b.name_hint for b in _nodes(out, SBlock)}
    lanes = [lp for lp in _nodes(out, For) if lp.kind == ForKind.VECTORIZED]
    assert {int(lp.extent) for lp in lanes} == {ROW_REDUCE_LANES}
    steps = [lp for lp in _nodes(out, For) if lp.loop_var.name == "k_s"]
    assert len(steps) == 1 and int(steps[0].extent) == cols // ROW_REDUCE_LANES
    x = np.random.default_rng(cols).standard_normal((37, cols)).astype("float32")
    got = np.zeros(37, "float32")
    _compile(func)(x, got)
    want = {"sum": np.sum, "max": np.max, "min": np.min}[kind](x * 2, axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cols", [ROW_REDUCE_MIN - ROW_REDUCE_LANES, 40])
def test_short_or_uneven_rows_keep_the_scalar_loop(cols):
    # 16 columns: too short to split; 40: not a multiple of the 16 lanes.
    out = schedule_prim_func(_row_reduce(8, cols, "sum"))
    assert "Y_rf" not in {b.name_hint for b in _nodes(out, SBlock)}


def test_softmax_rows_match_numpy():
    # softmax's max and sum rows run inside the fused row loop, both split.
    x = te.placeholder((6, 4, 128), "float32", name="X")
    func = te.create_prim_func([x, topi.nn.softmax(x, axis=-1)])
    out = schedule_prim_func(func)
    assert len([b for b in _nodes(out, SBlock) if b.name_hint.endswith("_rf")]) == 2
    xv = np.random.default_rng(2).standard_normal((6, 4, 128)).astype("float32")
    xv[:, :, 64:] = -np.inf  # a causal mask's row tail
    got = np.zeros_like(xv)
    _compile(func)(xv, got)
    e = np.exp(xv - xv.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
