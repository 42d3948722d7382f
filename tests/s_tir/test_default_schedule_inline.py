"""Rule 0 of the default schedule: elementwise producers of intermediate buffers are inlined
into their (spatial) readers; the cases that must keep their producer nest; compiled results
vs NumPy."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.script import tirx as T
from tvm.tirx.stmt import AllocBuffer, SBlock
from tvm.tirx.stmt_functor import post_order_visit


def _check(before, expected):
    got = schedule_prim_func(before).with_attr("global_symbol", "main")
    tvm.ir.assert_structural_equal(got, expected.with_attr("global_symbol", "main"))


def _block_names(func):
    names = set()
    post_order_visit(func.body, lambda n: names.add(n.name_hint) if isinstance(n, SBlock)
                     else None)
    return names


def _allocated(func):
    """Names of the intermediates (root allocations and ``T.alloc_buffer`` statements)."""
    root = func.body.block
    stmts = []
    post_order_visit(root.body, lambda n: stmts.append(n.buffer.name)
                     if isinstance(n, AllocBuffer) else None)
    return [b.name for b in root.alloc_buffers] + stmts


def _run(func, *args):
    """Compile ``func`` (default schedule included) and call it on NumPy arrays in place."""
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}),
                      target="llvm")
    lib["main"](*args)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


# --- inlined -----------------------------------------------------------------------------------


@T.prim_func(s_tir=True)
def less_where(x: T.Buffer((64, 256), "float32"), dy: T.Buffer((64, 256), "float32"),
               out: T.Buffer((64, 256), "float32")):
    # relu's gradient as FuseTIR writes it: a bool mask, then a select.
    mask = T.alloc_buffer((64, 256), "bool")
    for i, j in T.grid(64, 256):
        with T.sblock("T_less"):
            vi, vj = T.axis.remap("SS", [i, j])
            mask[vi, vj] = x[vi, vj] < T.float32(0)
    for i, j in T.grid(64, 256):
        with T.sblock("T_where"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = T.Select(mask[vi, vj], T.float32(0), dy[vi, vj])


@T.prim_func(s_tir=True)
def less_where_inlined(x: T.Buffer((64, 256), "float32"), dy: T.Buffer((64, 256), "float32"),
                       out: T.Buffer((64, 256), "float32")):
    for i in range(64):
        for j in T.vectorized(256):
            with T.sblock("T_where"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.Select(x[vi, vj] < T.float32(0), T.float32(0), dy[vi, vj])


def test_less_where_becomes_one_nest_without_the_mask():
    _check(less_where, less_where_inlined)
    x, dy = _rand(64, 256), _rand(64, 256, seed=1)
    got = np.zeros_like(x)
    _run(less_where, x, dy, got)
    np.testing.assert_array_equal(got, np.where(x < 0, 0, dy))


@T.prim_func(s_tir=True)
def multiply_subtract(g: T.Buffer((96, 64), "float32"), w: T.Buffer((96, 64), "float32"),
                      out: T.Buffer((96, 64), "float32")):
    # The SGD update: w - lr * grad.
    scaled = T.alloc_buffer((96, 64), "float32")
    for i, j in T.grid(96, 64):
        with T.sblock("T_multiply"):
            vi, vj = T.axis.remap("SS", [i, j])
            scaled[vi, vj] = T.float32(0.01) * g[vi, vj]
    for i, j in T.grid(96, 64):
        with T.sblock("T_subtract"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = w[vi, vj] - scaled[vi, vj]


@T.prim_func(s_tir=True)
def multiply_subtract_inlined(g: T.Buffer((96, 64), "float32"), w: T.Buffer((96, 64), "float32"),
                              out: T.Buffer((96, 64), "float32")):
    for i in range(96):
        for j in T.vectorized(64):
            with T.sblock("T_subtract"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = w[vi, vj] - T.float32(0.01) * g[vi, vj]


def test_sgd_update_reads_the_gradient_in_place():
    _check(multiply_subtract, multiply_subtract_inlined)
    g, w = _rand(96, 64), _rand(96, 64, seed=1)
    got = np.zeros_like(w)
    _run(multiply_subtract, g, w, got)
    np.testing.assert_allclose(got, w - np.float32(0.01) * g, rtol=1e-6, atol=1e-7)


@T.prim_func(s_tir=True)
def three_stages(x: T.Buffer((8, 16), "float32"), y: T.Buffer((8, 16), "float32"),
                 out: T.Buffer((8, 16), "float32")):
    a = T.alloc_buffer((8, 16), "float32")
    b = T.alloc_buffer((8, 16), "float32")
    for i, j in T.grid(8, 16):
        with T.sblock("a"):
            vi, vj = T.axis.remap("SS", [i, j])
            a[vi, vj] = T.exp(x[vi, vj])
    for i, j in T.grid(8, 16):
        with T.sblock("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            b[vi, vj] = a[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 16):
        with T.sblock("c"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = b[vi, vj] + y[vi, vj]


@T.prim_func(s_tir=True)
def three_stages_inlined(x: T.Buffer((8, 16), "float32"), y: T.Buffer((8, 16), "float32"),
                         out: T.Buffer((8, 16), "float32")):
    for i in range(8):
        for j in T.vectorized(16):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = T.exp(x[vi, vj]) * T.float32(2) + y[vi, vj]


def test_a_chain_of_three_stages_inlines_transitively():
    _check(three_stages, three_stages_inlined)
    x, y = _rand(8, 16), _rand(8, 16, seed=1)
    got = np.zeros_like(x)
    _run(three_stages, x, y, got)
    np.testing.assert_allclose(got, np.exp(x) * 2 + y, rtol=1e-5)


@T.prim_func(s_tir=True)
def broadcast_bias(x: T.Buffer((16, 32), "float32"), b: T.Buffer((32,), "float32"),
                   out: T.Buffer((16, 32), "float32")):
    half = T.alloc_buffer((32,), "float32")
    for j in range(32):
        with T.sblock("half"):
            vj = T.axis.spatial(32, j)
            half[vj] = b[vj] * T.float32(0.5)
    for i, j in T.grid(16, 32):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = x[vi, vj] + half[vj]


@T.prim_func(s_tir=True)
def broadcast_bias_inlined(x: T.Buffer((16, 32), "float32"), b: T.Buffer((32,), "float32"),
                           out: T.Buffer((16, 32), "float32")):
    for i in range(16):
        for j in T.vectorized(32):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = x[vi, vj] + b[vj] * T.float32(0.5)


def test_cheap_producer_read_at_broadcast_indices_is_inlined():
    _check(broadcast_bias, broadcast_bias_inlined)
    x, b = _rand(16, 32), _rand(32, seed=1)
    got = np.zeros_like(x)
    _run(broadcast_bias, x, b, got)
    np.testing.assert_allclose(got, x + b * np.float32(0.5), rtol=1e-6)


@T.prim_func(s_tir=True)
def shifted_difference(x: T.Buffer((17,), "float32"), out: T.Buffer((16,), "float32")):
    sq = T.alloc_buffer((17,), "float32")
    for i in range(17):
        with T.sblock("sq"):
            vi = T.axis.spatial(17, i)
            sq[vi] = x[vi] * x[vi]
    for i in range(16):
        with T.sblock("diff"):
            vi = T.axis.spatial(16, i)
            out[vi] = sq[vi + 1] - sq[vi]


@T.prim_func(s_tir=True)
def shifted_difference_inlined(x: T.Buffer((17,), "float32"), out: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("diff"):
            vi = T.axis.spatial(16, i)
            out[vi] = x[vi + 1] * x[vi + 1] - x[vi] * x[vi]


def test_producer_read_at_shifted_indices_is_inlined():
    _check(shifted_difference, shifted_difference_inlined)
    x = _rand(17)
    got = np.zeros(16, "float32")
    _run(shifted_difference, x, got)
    np.testing.assert_allclose(got, x[1:] ** 2 - x[:-1] ** 2, rtol=1e-5, atol=1e-6)


@T.prim_func(s_tir=True)
def mask_read_twice(x: T.Buffer((4, 64), "float32"), out: T.Buffer((4, 64), "float32"),
                    out2: T.Buffer((4, 64), "float32")):
    # A bool intermediate read by two later nests: inlined into each.
    pos = T.alloc_buffer((4, 64), "bool")
    for i, j in T.grid(4, 64):
        with T.sblock("pos"):
            vi, vj = T.axis.remap("SS", [i, j])
            pos[vi, vj] = x[vi, vj] > T.float32(0)
    for i, j in T.grid(4, 64):
        with T.sblock("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = T.Select(pos[vi, vj], x[vi, vj], T.float32(0))
    for i, j in T.grid(4, 64):
        with T.sblock("step"):
            vi, vj = T.axis.remap("SS", [i, j])
            out2[vi, vj] = T.Cast("float32", pos[vi, vj])


def test_producer_read_by_two_nests_is_inlined_into_both():
    out = schedule_prim_func(mask_read_twice)
    assert _block_names(out) == {"root", "relu", "step"}
    assert _allocated(out) == []
    x = _rand(4, 64)
    got, got2 = np.zeros_like(x), np.zeros_like(x)
    _run(mask_read_twice, x, got, got2)
    np.testing.assert_array_equal(got, np.maximum(x, 0))
    np.testing.assert_array_equal(got2, (x > 0).astype("float32"))


@T.prim_func(s_tir=True)
def symbolic_rows(var_x: T.handle, var_out: T.handle):
    n = T.int64()
    x = T.match_buffer(var_x, (n, 16), "float32")
    out = T.match_buffer(var_out, (n, 16), "float32")
    t = T.alloc_buffer((n, 16), "float32")
    for i, j in T.grid(n, 16):
        with T.sblock("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            t[vi, vj] = x[vi, vj] * T.float32(2)
    for i, j in T.grid(n, 16):
        with T.sblock("use"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = t[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def symbolic_rows_inlined(var_x: T.handle, var_out: T.handle):
    n = T.int64()
    x = T.match_buffer(var_x, (n, 16), "float32")
    out = T.match_buffer(var_out, (n, 16), "float32")
    for i in range(n):
        for j in T.vectorized(16):
            with T.sblock("use"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = x[vi, vj] * T.float32(2) + T.float32(1)


def test_producer_over_a_symbolic_shape_is_inlined():
    _check(symbolic_rows, symbolic_rows_inlined)
    x = _rand(5, 16)
    got = np.zeros_like(x)
    _run(symbolic_rows, x, got)
    np.testing.assert_allclose(got, x * 2 + 1, rtol=1e-6)


@T.prim_func(s_tir=True)
def int64_producer(x: T.Buffer((T.int64(8),), "float32"), out: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((T.int64(8),), "float32")
    for i in range(T.int64(8)):
        with T.sblock("t"):
            vi = T.axis.spatial(T.int64(8), i)
            t[vi] = x[vi] * T.Cast("float32", vi)
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = t[vi]


@T.prim_func(s_tir=True)
def int64_producer_inlined(x: T.Buffer((T.int64(8),), "float32"),
                           out: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = x[T.Cast("int64", vi)] * T.Cast("float32", T.Cast("int64", vi))


def test_int32_index_into_an_int64_producer_is_cast():
    # FuseTIR's iterators are int64; a reader indexing with int32 gets its index cast, so
    # the substituted arithmetic stays of one integer type.
    _check(int64_producer, int64_producer_inlined)
    x = _rand(8)
    got = np.zeros_like(x)
    _run(int64_producer, x, got)
    np.testing.assert_allclose(got, x * np.arange(8, dtype="float32"), rtol=1e-6)


@T.prim_func(s_tir=True)
def dead_producer(x: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    unused = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("unused"):
            vi = T.axis.spatial(8, i)
            unused[vi] = x[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("copy"):
            vi = T.axis.spatial(8, i)
            out[vi] = x[vi] * T.float32(3)


@T.prim_func(s_tir=True)
def dead_producer_dropped(x: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("copy"):
            vi = T.axis.spatial(8, i)
            out[vi] = x[vi] * T.float32(3)


def test_producer_that_nothing_reads_is_dropped():
    _check(dead_producer, dead_producer_dropped)


@T.prim_func(s_tir=True)
def transpose_sum(x: T.Buffer((32, 16), "float32"), out: T.Buffer((16,), "float32")):
    xt = T.alloc_buffer((16, 32), "float32")
    for i, j in T.grid(16, 32):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            xt[vi, vj] = x[vj, vi]
    for i, k in T.grid(16, 32):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                out[vi] = T.float32(0)
            out[vi] = out[vi] + xt[vi, vk]


def test_transpose_is_still_inlined_into_a_reduction():
    out = schedule_prim_func(transpose_sum)
    assert "transpose" not in _block_names(out) and _allocated(out) == []
    (sum_block,) = [b for b in _blocks(out) if b.name_hint == "sum"]
    assert [r.buffer.name for r in sum_block.reads] == ["x"]
    x = _rand(32, 16)
    got = np.zeros(16, "float32")
    _run(transpose_sum, x, got)
    np.testing.assert_allclose(got, x.sum(axis=0), rtol=1e-5, atol=1e-5)


def _blocks(func):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, SBlock) else None)
    return found


@T.prim_func(s_tir=True)
def matmul_sgd(x: T.Buffer((64, 128), "float32"), dy: T.Buffer((128, 64), "float32"),
               w: T.Buffer((64, 64), "float32"), out: T.Buffer((64, 64), "float32")):
    # A gradient matmul, lr * grad, then w - that: the epilogue of the matmul's tile.
    grad = T.alloc_buffer((64, 64), "float32")
    scaled = T.alloc_buffer((64, 64), "float32")
    for i, j, k in T.grid(64, 64, 128):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                grad[vi, vj] = T.float32(0)
            grad[vi, vj] = grad[vi, vj] + x[vi, vk] * dy[vk, vj]
    for i, j in T.grid(64, 64):
        with T.sblock("T_multiply"):
            vi, vj = T.axis.remap("SS", [i, j])
            scaled[vi, vj] = T.float32(0.01) * grad[vi, vj]
    for i, j in T.grid(64, 64):
        with T.sblock("T_subtract"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = w[vi, vj] - scaled[vi, vj]


def test_matmul_epilogue_still_runs_in_the_tile_after_inlining():
    out = schedule_prim_func(matmul_sgd)
    # One tiled nest: the update (with lr * grad inlined) runs on each finished tile, and
    # neither the gradient nor the scaled gradient is written to memory.
    assert _block_names(out) == {"root", "matmul_strip", "matmul_tile"}
    assert _allocated(out) == []
    x, dy, w = _rand(64, 128), _rand(128, 64, seed=1), _rand(64, 64, seed=2)
    got = np.zeros_like(w)
    _run(matmul_sgd, x, dy, w, got)
    np.testing.assert_allclose(got, w - np.float32(0.01) * (x @ dy), rtol=1e-4, atol=1e-5)


# --- not inlined -------------------------------------------------------------------------------


@T.prim_func(s_tir=True)
def relu_then_sum(x: T.Buffer((16, 64), "float32"), out: T.Buffer((16,), "float32")):
    r = T.alloc_buffer((16, 64), "float32")
    for i, j in T.grid(16, 64):
        with T.sblock("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            r[vi, vj] = T.max(x[vi, vj], T.float32(0))
    for i, k in T.grid(16, 64):
        with T.sblock("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                out[vi] = T.float32(0)
            out[vi] = out[vi] + r[vi, vk]


@T.prim_func(s_tir=True)
def relu_then_matmul(x: T.Buffer((64, 64), "float32"), w: T.Buffer((64, 64), "float32"),
                     out: T.Buffer((64, 64), "float32")):
    r = T.alloc_buffer((64, 64), "float32")
    for i, j in T.grid(64, 64):
        with T.sblock("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            r[vi, vj] = T.max(x[vi, vj], T.float32(0))
    for i, j, k in T.grid(64, 64, 64):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[vi, vj] = T.float32(0)
            out[vi, vj] = out[vi, vj] + r[vi, vk] * w[vk, vj]


def test_elementwise_producer_is_not_inlined_into_a_reduction():
    out = schedule_prim_func(relu_then_sum)
    assert "relu" in _block_names(out) and _allocated(out) == ["r"]
    x = _rand(16, 64)
    got = np.zeros(16, "float32")
    _run(relu_then_sum, x, got)
    np.testing.assert_allclose(got, np.maximum(x, 0).sum(axis=1), rtol=1e-5, atol=1e-5)
    # An elementwise op feeding a matmul operand stays a separate nest: the tile reads r.
    out = schedule_prim_func(relu_then_matmul)
    assert {"relu", "matmul_tile"} <= _block_names(out) and _allocated(out) == ["r"]
    x, w = _rand(64, 64), _rand(64, 64, seed=1)
    got = np.zeros_like(x)
    _run(relu_then_matmul, x, w, got)
    np.testing.assert_allclose(got, np.maximum(x, 0) @ w, rtol=1e-4, atol=1e-4)


@T.prim_func(s_tir=True)
def exp_broadcast(x: T.Buffer((16, 32), "float32"), b: T.Buffer((32,), "float32"),
                  out: T.Buffer((16, 32), "float32")):
    e = T.alloc_buffer((32,), "float32")
    for j in range(32):
        with T.sblock("e"):
            vj = T.axis.spatial(32, j)
            e[vj] = T.exp(b[vj])
    for i, j in T.grid(16, 32):
        with T.sblock("scale"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = x[vi, vj] * e[vj]


def test_costly_producer_read_once_per_row_is_not_inlined():
    # Inlined, exp(b[j]) would be computed 16 times per element of e.
    out = schedule_prim_func(exp_broadcast)
    assert "e" in _block_names(out) and _allocated(out) == ["e"]
    x, b = _rand(16, 32), _rand(32, seed=1)
    got = np.zeros_like(x)
    _run(exp_broadcast, x, b, got)
    np.testing.assert_allclose(got, x * np.exp(b), rtol=1e-5)


@T.prim_func(s_tir=True)
def read_before_written(x: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32"),
                        out2: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("early"):
            vi = T.axis.spatial(8, i)
            out2[vi] = t[vi]
    for i in range(8):
        with T.sblock("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = x[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("late"):
            vi = T.axis.spatial(8, i)
            out[vi] = t[vi] * T.float32(2)


def test_producer_read_before_it_is_written_stays():
    out = schedule_prim_func(read_before_written)
    assert {"early", "t", "late"} <= _block_names(out) and _allocated(out) == ["t"]


@T.prim_func(s_tir=True)
def input_rewritten(a: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = a[vi] * T.float32(2)
    for i in range(8):
        with T.sblock("clear"):
            vi = T.axis.spatial(8, i)
            a[vi] = T.float32(0)
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = t[vi] + T.float32(1)


@T.prim_func(s_tir=True)
def output_rewritten(a: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = a[vi] * T.float32(2)
    for i in range(8):
        with T.sblock("bump"):
            vi = T.axis.spatial(8, i)
            t[vi] = t[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = t[vi]


@pytest.mark.parametrize("func", [input_rewritten, output_rewritten],
                         ids=["input_rewritten", "output_rewritten"])
def test_producer_whose_buffers_are_written_again_stays(func):
    out = schedule_prim_func(func)
    assert "t" in _block_names(out) and _allocated(out) == ["t"]
    a = _rand(8)
    want = a * 2 + 1
    got = np.zeros_like(a)
    _run(func, a, got)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@T.prim_func(s_tir=True)
def parameter_output(x: T.Buffer((8, 8), "float32"), t: T.Buffer((8, 8), "float32"),
                     out: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.sblock("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            t[vi, vj] = x[vi, vj] - T.float32(1)
    for i, j in T.grid(8, 8):
        with T.sblock("use"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = t[vi, vj] * t[vi, vj]


def test_producer_of_a_parameter_stays():
    out = schedule_prim_func(parameter_output)
    assert {"t", "use"} <= _block_names(out)
    x = _rand(8, 8)
    got_t, got = np.zeros_like(x), np.zeros_like(x)
    _run(parameter_output, x, got_t, got)
    np.testing.assert_allclose(got_t, x - 1, rtol=1e-6)
    np.testing.assert_allclose(got, (x - 1) ** 2, rtol=1e-5)


@T.prim_func(s_tir=True)
def opaque_call(x: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = T.call_extern("float32", "next_random", x[vi])
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = t[vi] + t[vi]


def test_producer_calling_an_opaque_function_stays():
    # call_extern may have side effects: calling it twice per element (or once per read)
    # would change the program.
    out = schedule_prim_func(opaque_call)
    assert "t" in _block_names(out) and _allocated(out) == ["t"]


def test_fused_relu_gradient_of_fuse_tir_has_no_intermediate():
    # FuseTIR's fused_less_where allocates the mask in its root block; after the default
    # schedule the kernel is one select over the inputs, and the build computes relu's
    # gradient.
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((8, 4, 6, 6), "float32"))
    dy = relax.Var("dy", relax.TensorType((8, 4, 6, 6), "float32"))
    with bb.function("main", [x, dy]):
        with bb.dataflow():
            mask = bb.emit(relax.op.less(x, relax.const(0, "float32")))
            out = bb.emit_output(relax.op.where(mask, relax.const(0, "float32"), dy))
        bb.emit_func_output(out)
    mod = tvm.ir.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
        relax.transform.FuseOps(), relax.transform.FuseTIR(),
    ])(bb.get())
    (fused,) = [f for gv, f in mod.functions.items() if gv.name_hint.startswith("fused_less")]
    assert len(_allocated(fused)) == 1
    out = schedule_prim_func(fused)
    assert _allocated(out) == [] and not any(n.startswith("T_less") for n in _block_names(out))
    xv, dyv = _rand(8, 4, 6, 6), _rand(8, 4, 6, 6, seed=1)
    ex = relax.build(bb.get(), target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](xv, dyv).numpy()
    np.testing.assert_array_equal(got, np.where(xv < 0, 0, dyv))


@T.prim_func(s_tir=True)
def data_pointer_use(x: T.Buffer((8,), "float32"), out: T.Buffer((8,), "float32")):
    t = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.sblock("t"):
            vi = T.axis.spatial(8, i)
            t[vi] = x[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("use"):
            vi = T.axis.spatial(8, i)
            out[vi] = T.call_extern("float32", "read_at", t.data, vi) + t[vi]


def test_buffer_whose_data_pointer_escapes_stays():
    # The extern function reads t through its pointer: t must still be written.
    out = schedule_prim_func(data_pointer_use)
    assert "t" in _block_names(out) and _allocated(out) == ["t"]


@T.prim_func(s_tir=True)
def exp_squared(x: T.Buffer((8, 16), "float32"), out: T.Buffer((8, 16), "float32")):
    e = T.alloc_buffer((8, 16), "float32")
    sq = T.alloc_buffer((8, 16), "float32")
    for i, j in T.grid(8, 16):
        with T.sblock("e"):
            vi, vj = T.axis.remap("SS", [i, j])
            e[vi, vj] = T.exp(x[vi, vj])
    for i, j in T.grid(8, 16):
        with T.sblock("sq"):
            vi, vj = T.axis.remap("SS", [i, j])
            sq[vi, vj] = e[vi, vj] * e[vi, vj]
    for i, j in T.grid(8, 16):
        with T.sblock("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = sq[vi, vj] + T.float32(1)


def test_costly_producer_loaded_twice_per_element_stays_its_cheap_reader_inlines():
    # e * e would compute exp twice per element: e stays; the product is inlined into out.
    out = schedule_prim_func(exp_squared)
    assert _block_names(out) == {"root", "e", "out"} and _allocated(out) == ["e"]
    x = _rand(8, 16)
    got = np.zeros_like(x)
    _run(exp_squared, x, got)
    np.testing.assert_allclose(got, np.exp(x) ** 2 + 1, rtol=1e-5)


def test_switch_off_inlines_only_permutations(monkeypatch):
    from tvm.s_tir import default_schedule_inline

    monkeypatch.setattr(default_schedule_inline, "INLINE_ELEMENTWISE", False)
    assert {"T_less", "T_where"} <= _block_names(schedule_prim_func(less_where))
    assert "transpose" not in _block_names(schedule_prim_func(transpose_sum))


@T.prim_func(s_tir=True)
def exp_two_readers(x: T.Buffer((8, 16), "float32"), out: T.Buffer((8, 16), "float32"),
                    out2: T.Buffer((8, 16), "float32")):
    e = T.alloc_buffer((8, 16), "float32")
    for i, j in T.grid(8, 16):
        with T.sblock("e"):
            vi, vj = T.axis.remap("SS", [i, j])
            e[vi, vj] = T.exp(x[vi, vj])
    for i, j in T.grid(8, 16):
        with T.sblock("plus"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = e[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 16):
        with T.sblock("twice"):
            vi, vj = T.axis.remap("SS", [i, j])
            out2[vi, vj] = e[vi, vj] * T.float32(2)


def test_costly_producer_read_by_two_nests_stays():
    # Each reader loads each element once, but inlined into both, every exp runs twice.
    out = schedule_prim_func(exp_two_readers)
    assert "e" in _block_names(out) and _allocated(out) == ["e"]
    x = _rand(8, 16)
    got, got2 = np.zeros_like(x), np.zeros_like(x)
    _run(exp_two_readers, x, got, got2)
    np.testing.assert_allclose(got, np.exp(x) + 1, rtol=1e-5)
    np.testing.assert_allclose(got2, np.exp(x) * 2, rtol=1e-5)
