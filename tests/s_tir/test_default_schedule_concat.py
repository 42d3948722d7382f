"""Rule 2c of the default schedule: a nest that selects by ranges of its innermost loop (a
concatenation, a split's gradient) is cut into one plain loop per range; compiled results
against NumPy."""

import numpy as np
import pytest

import tvm
from tvm import te, topi
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.script import tirx as T
from tvm.tirx.expr import Call, FloorDiv, FloorMod, Select
from tvm.tirx.stmt import For, ForKind, SBlock
from tvm.tirx.stmt_functor import post_order_visit


def _nodes(func, kind):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, kind) else None)
    return found


def _selects(func):
    return [n for n in _nodes(func, Call) if getattr(n.op, "name", "") == "tirx.if_then_else"] \
        + _nodes(func, Select)


def _run(func, args):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    tvm.compile(mod, target="llvm")["main"](*args)


@pytest.mark.parametrize("widths", [(3, 5), (256, 256, 256), (7, 1, 9, 16)])
def test_concat_along_the_last_axis_is_cut_into_plain_loops(widths):
    inputs = [te.placeholder((6, w), "float32", name=f"x{i}") for i, w in enumerate(widths)]
    out = topi.concatenate(inputs, axis=1)
    func = te.create_prim_func([*inputs, out])
    scheduled = schedule_prim_func(func)
    assert "T_concat_pieces" in {b.name_hint for b in _nodes(scheduled, SBlock)}
    assert not _selects(scheduled)  # every condition was decided by its piece's bounds
    vector_loops = [lp for lp in _nodes(scheduled, For) if lp.kind == ForKind.VECTORIZED]
    assert sorted(int(lp.extent) for lp in vector_loops) == sorted(widths)
    rng = np.random.default_rng(len(widths))
    xs = [rng.standard_normal((6, w)).astype("float32") for w in widths]
    got = np.zeros((6, sum(widths)), "float32")
    _run(func, [*xs, got])
    np.testing.assert_array_equal(got, np.concatenate(xs, axis=1))


@T.prim_func(s_tir=True)
def split_gradient(dq: T.Buffer((8, 16, 8), "float32"), dk: T.Buffer((8, 8, 16), "float32"),
                   out: T.Buffer((32, 48), "float32")):
    # The gradient of ``split`` + ``reshape`` + ``transpose`` of attention's q, k, v, as FuseTIR
    # leaves it: rows (batch * seq) of 3 * heads * dim columns, read back from head-major
    # (batch * heads, seq, dim) tensors; k's is stored transposed, v's part is zero.
    for i, c in T.grid(32, 48):
        with T.sblock("concat"):
            vi, vc = T.axis.remap("SS", [i, c])
            out[vi, vc] = T.if_then_else(
                vc % 48 < 16, dq[vi // 16 * 2 + vc % 48 // 8, vi % 16, vc % 8],
                T.if_then_else(vc % 48 < 32,
                               dk[vi // 16 * 2 + (vc - 16) // 8, (vc - 16) % 8, vi % 16]
                               * T.float32(0.5),
                               T.float32(0)))


def test_split_gradient_pieces_lose_their_divisions():
    scheduled = schedule_prim_func(split_gradient)
    assert not _selects(scheduled)
    # The q and k pieces split once more at the head size (2 heads of 8 lanes, no divisions
    # left); v's piece (zeros) stays one 16-lane loop.
    vector_loops = [lp for lp in _nodes(scheduled, For) if lp.kind == ForKind.VECTORIZED]
    assert sorted(int(lp.extent) for lp in vector_loops) == [8, 8, 16]
    assert not [n for n in _nodes(scheduled, (FloorDiv, FloorMod))
                if any(n.a is lp.loop_var for lp in vector_loops)]
    rng = np.random.default_rng(3)
    dq = rng.standard_normal((8, 16, 8)).astype("float32")
    dk = rng.standard_normal((8, 8, 16)).astype("float32")
    got = np.full((32, 48), np.nan, "float32")
    _run(split_gradient, [dq, dk, got])
    # (batch * heads, seq, dim) -> (batch * seq, heads * dim); k stored as (., dim, seq).
    want = np.zeros((32, 48), "float32")
    for i in range(32):
        b, s = divmod(i, 16)
        for c in range(16):
            want[i, c] = dq[b * 2 + c // 8, s, c % 8]
            want[i, 16 + c] = 0.5 * dk[b * 2 + c // 8, c % 8, s]
    np.testing.assert_array_equal(got, want)


@T.prim_func(s_tir=True)
def select_on_data(x: T.Buffer((8, 32), "float32"), y: T.Buffer((8, 32), "float32")):
    for i, j in T.grid(8, 32):
        with T.sblock("relu_like"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.if_then_else(x[vi, vj] < T.float32(0), T.float32(0), x[vi, vj])


@T.prim_func(s_tir=True)
def select_on_outer_loop(x: T.Buffer((8, 32), "float32"), y: T.Buffer((8, 32), "float32")):
    for i, j in T.grid(8, 32):
        with T.sblock("rows"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.if_then_else(vi < 4, x[vi, vj], T.float32(1))


@pytest.mark.parametrize("func", [select_on_data, select_on_outer_loop])
def test_conditions_not_on_the_innermost_loop_leave_the_generic_rule(func):
    scheduled = schedule_prim_func(func)
    assert not [b for b in _nodes(scheduled, SBlock) if b.name_hint.endswith("_pieces")]
    x = np.random.default_rng(0).standard_normal((8, 32)).astype("float32")
    got = np.zeros((8, 32), "float32")
    _run(func, [x, got])
    if func is select_on_data:
        want = np.maximum(x, 0)
    else:
        want = np.where(np.arange(8)[:, None] < 4, x, 1).astype("float32")
    np.testing.assert_array_equal(got, want)
