"""Rule 1 of the default schedule (tiled matmul): tile shapes, packed B strips, transposed
operands, inlined transposes, register-only intermediates; compiled results vs NumPy."""

import numpy as np
import pytest

import tvm
from tvm import relax, te
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.s_tir.default_schedule_matmul import (
    MATMUL_PACK_MIN_ROWS,
    MATMUL_TILES,
    planning_for,
    tile_shape,
)
from tvm.script import tirx as T
from tvm.tirx.stmt import AllocBuffer, BufferStore, For, ForKind, SBlock
from tvm.tirx.stmt_functor import post_order_visit

#: The AVX-512 plan's tile. The structural tests below plan for AVX-512 on every host (the
#: schedule is loop structure only: the scheduled function compiles for the host's vectors);
#: the AVX2 plan has its own tests at the end.
MATMUL_TILE = MATMUL_TILES[16]
AVX512 = "llvm -mattr=+avx512f"
AVX2 = "llvm -mattr=+avx2,+fma"


@pytest.fixture(autouse=True)
def _plan_for_avx512():
    with planning_for(AVX512):
        yield


def _matmul_func(m, n, k, trans_a=False, trans_b=False):
    a = te.placeholder((k, m) if trans_a else (m, k), "float32", name="A")
    b = te.placeholder((n, k) if trans_b else (k, n), "float32", name="B")
    r = te.reduce_axis((0, k), name="k")

    def at(i, kk):
        return a[kk, i] if trans_a else a[i, kk]

    def bt(kk, j):
        return b[j, kk] if trans_b else b[kk, j]

    c = te.compute((m, n), lambda i, j: te.sum(at(i, r) * bt(r, j), axis=r), name="C")
    return te.create_prim_func([a, b, c])


def _compile(func):
    """``func`` scheduled for the vectors planned for (the fixture's), compiled for the host."""
    func = schedule_prim_func(func)
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    return tvm.compile(mod, target="llvm")["main"]


def _nodes(func, kind):
    found = []
    post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, kind) else None)
    return found


def _block_names(func):
    return {b.name_hint for b in _nodes(func, SBlock)}


@pytest.mark.parametrize(
    "m,n,expected",
    [
        ((256, 1024), None, MATMUL_TILE),
        ((64, 1568), None, (8, 32)),   # 1568 = 49 * 32: a half-width tile, more rows
        ((64, 48), None, (8, 16)),
        ((256, 10), False, (8, 10)),   # narrow output: all columns, more rows
        ((1024, 10), True, (16, 10)),  # rows of A adjacent (A[k, i]): twice the rows
        ((6, 64), None, (4, 64)),      # 4-row tiles leave a 2-row tail
        ((3, 64), None, (3, 64)),      # at most m rows
        ((7, 1000), None, None),       # 1000 columns: no tile (generic rule)
    ],
)
def test_tile_shape(m, n, expected):
    rows, cols = m
    assert tile_shape(rows, cols, bool(n)) == expected


@pytest.mark.parametrize(
    "m,n,k,trans_a,trans_b",
    [
        (64, 128, 96, False, False),
        (36, 64, 50, True, False),    # A read as A[k, i] (inlined permute_dims)
        (64, 192, 10, False, True),   # B read as B[j, k]; K smaller than a vector
        (40, 96, 33, True, True),     # 96 columns: 32-wide strips
        (72, 10, 128, False, False),  # a classifier's 10 columns
        (48, 10, 64, True, False),
        (6, 64, 70, False, False),    # 6 rows: a 4-row tile and a 2-row tail
        (67, 64, 9, True, False),     # 16 tiles of 4 rows and a 3-row tail
        (136, 128, 40, False, False),  # enough rows to pack B's strips
        (128, 64, 24, True, True),
    ],
)
def test_tiled_matmul_matches_numpy(m, n, k, trans_a, trans_b):
    func = _matmul_func(m, n, k, trans_a, trans_b)
    scheduled = schedule_prim_func(func)
    assert "C_strip" in _block_names(scheduled)  # the tiled rule applied
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype("float32")
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    _compile(func)(a, b, c)
    want = (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


def test_strip_is_packed_and_parallel():
    out = schedule_prim_func(_matmul_func(MATMUL_PACK_MIN_ROWS, 256, 32))
    outer = out.body.block.body
    assert isinstance(outer, For) and outer.kind == ForKind.PARALLEL
    assert int(outer.extent) == 256 // MATMUL_TILE[1]
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed"]
    assert len(packs) == 1 and [int(d) for d in packs[0].buffer.shape] == [32, MATMUL_TILE[1]]


@pytest.mark.parametrize("trans_b", [False, True])
def test_few_rows_read_b_in_place_unless_transposed(trans_b):
    out = schedule_prim_func(_matmul_func(MATMUL_PACK_MIN_ROWS // 2, 256, 32, trans_b=trans_b))
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed"]
    assert len(packs) == int(trans_b)


@pytest.mark.parametrize("trans_b", [False, True])
def test_pack_loops_read_b_along_its_rows(trans_b):
    # B[k, j]: the strip's rows are B's rows, copied as vectors; B[j, k]: the copy walks B's
    # rows element by element (a vector along j1 would be a stride-K gather).
    out = schedule_prim_func(_matmul_func(MATMUL_PACK_MIN_ROWS, 128, 24, trans_b=trans_b))
    pack = next(s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed")
    loops = [lp for lp in reversed(_nodes(out, For))  # outermost first
             if any(s is pack for s in _nodes(lp, BufferStore)) and lp.kind != ForKind.PARALLEL]
    assert [lp.loop_var.name for lp in loops] == (["j_1", "k_p"] if trans_b else ["k_p", "j_1"])
    assert [lp.kind for lp in loops] == ([ForKind.SERIAL] * 2 if trans_b
                                         else [ForKind.SERIAL, ForKind.VECTORIZED])


def test_one_strip_runs_its_row_tiles_in_parallel():
    out = schedule_prim_func(_matmul_func(64, 10, 32))
    strip = out.body.block.body
    assert strip.kind == ForKind.SERIAL and int(strip.extent) == 1
    rows = [lp for lp in _nodes(out, For) if lp.kind == ForKind.PARALLEL]
    assert len(rows) == 1 and int(rows[0].extent) == 64 // tile_shape(64, 10)[0]


def test_columns_without_a_tile_use_the_generic_rule():
    out = schedule_prim_func(_matmul_func(8, 1000, 8))
    assert "C_strip" not in _block_names(out)
    assert ForKind.PARALLEL in [lp.kind for lp in _nodes(out, For)]


@T.prim_func(s_tir=True)
def transpose_matmul_update(x: T.Buffer((48, 40), "float32"), dy: T.Buffer((48, 64), "float32"),
                            w: T.Buffer((40, 64), "float32"), w_new: T.Buffer((40, 64), "float32")):
    # The gradient of a dense layer plus its SGD update, as FuseTIR fuses them:
    # w_new = w - 0.5 * (x^T @ dy), with the transpose materialized in xt.
    xt = T.alloc_buffer((40, 48), "float32")
    grad = T.alloc_buffer((40, 64), "float32")
    step = T.alloc_buffer((40, 64), "float32")
    for i, j in T.grid(40, 48):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            xt[vi, vj] = x[vj, vi]
    for i, j, k in T.grid(40, 64, 48):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                grad[vi, vj] = T.float32(0)
            grad[vi, vj] = grad[vi, vj] + xt[vi, vk] * dy[vk, vj]
    for i, j in T.grid(40, 64):
        with T.sblock("scale"):
            vi, vj = T.axis.remap("SS", [i, j])
            step[vi, vj] = T.float32(0.5) * grad[vi, vj]
    for i, j in T.grid(40, 64):
        with T.sblock("update"):
            vi, vj = T.axis.remap("SS", [i, j])
            w_new[vi, vj] = w[vi, vj] - step[vi, vj]


def test_transpose_is_inlined_and_intermediates_stay_in_the_tile():
    out = schedule_prim_func(transpose_matmul_update)
    assert "transpose" not in _block_names(out)  # the matmul reads x[k, i] in place
    stored = {s.buffer.name for s in _nodes(out, BufferStore)}
    assert not stored & {"xt", "grad", "step"}  # never written to memory
    assert not _nodes(out, AllocBuffer)  # nor allocated
    assert isinstance(out.body.block.body, For)  # one nest: the tiled matmul
    rng = np.random.default_rng(5)
    x = rng.standard_normal((48, 40)).astype("float32")
    dy = rng.standard_normal((48, 64)).astype("float32")
    w = rng.standard_normal((40, 64)).astype("float32")
    got = np.zeros((40, 64), "float32")
    _compile(transpose_matmul_update)(x, dy, w, got)
    np.testing.assert_allclose(got, w - 0.5 * (x.T @ dy), rtol=1e-4, atol=1e-4)


@T.prim_func(s_tir=True)
def transpose_read_twice(x: T.Buffer((32, 16), "float32"), dy: T.Buffer((32, 64), "float32"),
                         out: T.Buffer((16, 64), "float32"), xt_out: T.Buffer((16, 32), "float32")):
    xt = T.alloc_buffer((16, 32), "float32")
    for i, j in T.grid(16, 32):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            xt[vi, vj] = x[vj, vi]
    for i, j, k in T.grid(16, 64, 32):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                out[vi, vj] = T.float32(0)
            out[vi, vj] = out[vi, vj] + xt[vi, vk] * dy[vk, vj]
    for i, j in T.grid(16, 32):
        with T.sblock("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            xt_out[vi, vj] = xt[vi, vj] + T.float32(1)


def test_transpose_read_by_several_nests_is_inlined_into_each():
    out = schedule_prim_func(transpose_read_twice)
    assert "transpose" not in _block_names(out)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((32, 16)).astype("float32")
    dy = rng.standard_normal((32, 64)).astype("float32")
    got, got_t = np.zeros((16, 64), "float32"), np.zeros((16, 32), "float32")
    _compile(transpose_read_twice)(x, dy, got, got_t)
    np.testing.assert_allclose(got, x.T @ dy, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_t, x.T + 1, rtol=1e-6)


@T.prim_func(s_tir=True)
def column_sum_then_scale(a: T.Buffer((64, 128), "float32"), out: T.Buffer((128,), "float32")):
    s = T.alloc_buffer((128,), "float32")
    for j, i in T.grid(128, 64):
        with T.sblock("collapse_sum"):
            vj, vi = T.axis.remap("SR", [j, i])
            with T.init():
                s[vj] = T.float32(0)
            s[vj] = s[vj] + a[vi, vj]
    for j in range(128):
        with T.sblock("scale"):
            vj = T.axis.remap("S", [j])
            out[vj] = s[vj] * T.float32(0.5)


def test_column_reduction_is_not_row_fused():
    # Sharing the j loop with the scale would put the strided reduction over rows innermost;
    # the reduction runs its rows outside the contiguous j loop instead.
    out = schedule_prim_func(column_sum_then_scale)
    nests = [s for s in out.body.block.body.seq if isinstance(s, For)]
    # init (vectorized j), update (rows outside, vectorized j inside), scale: three nests.
    assert [n.loop_var.name for n in nests] == ["j", "i", "j"]
    assert nests[0].kind == nests[1].body.kind == ForKind.VECTORIZED
    a = np.random.default_rng(7).standard_normal((64, 128)).astype("float32")
    got = np.zeros(128, "float32")
    _compile(column_sum_then_scale)(a, got)
    np.testing.assert_allclose(got, a.sum(axis=0) * 0.5, rtol=1e-5, atol=1e-5)


def test_fused_conv_nests_are_all_scheduled():
    # FuseTIR keeps conv2d's pad + conv nests in a SeqStmt of their own inside the root.
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4, 1, 12, 12), "float32"))
    w = relax.Var("w", relax.TensorType((4, 1, 3, 3), "float32"))
    bias = relax.Var("b", relax.TensorType((1, 4, 1, 1), "float32"))
    with bb.function("main", [x, w, bias]):
        with bb.dataflow():
            y = bb.emit(relax.op.add(relax.op.nn.conv2d(x, w, padding=(1, 1)), bias))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    mod = tvm.ir.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
        relax.transform.FuseOps(), relax.transform.FuseTIR(),
    ])(bb.get())
    fused = [f for gv, f in mod.functions.items() if gv.name_hint.startswith("fused_conv2d")]
    assert len(fused) == 1
    out = schedule_prim_func(fused[0])
    body = out.body.block.body
    nests = [s for s in getattr(body, "seq", [body]) if isinstance(s, For)]
    assert nests and all(n.kind == ForKind.PARALLEL for n in nests)
    assert ForKind.VECTORIZED in [lp.kind for lp in _nodes(out, For)]
    ex = relax.build(mod, target="llvm")
    rng = np.random.default_rng(8)
    xv = rng.standard_normal((4, 1, 12, 12)).astype("float32")
    wv = rng.standard_normal((4, 1, 3, 3)).astype("float32")
    bv = rng.standard_normal((1, 4, 1, 1)).astype("float32")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](xv, wv, bv).numpy()
    pad = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((4, 4, 12, 12), "float32")
    for dh in range(3):
        for dw in range(3):
            want += wv[None, :, 0, dh, dw, None, None] * pad[:, :, dh:dh + 12, dw:dw + 12]
    np.testing.assert_allclose(got, np.maximum(want + bv, 0), rtol=1e-4, atol=1e-4)


def _conv_weight_grad_func(n=4, c=3, h=20, w=20, kh=3, kw=3):
    # dW[o, kh, kw] = sum over (batch, h, w) of x_pad[b, kh + y, kw + x] * dy[b, o, y, x]
    xp = te.placeholder((n, h + kh - 1, w + kw - 1), "float32", name="xp")
    dy = te.placeholder((n, c, h, w), "float32", name="dy")
    rb = te.reduce_axis((0, n), name="rb")
    ry = te.reduce_axis((0, h), name="ry")
    rx = te.reduce_axis((0, w), name="rx")
    dw = te.compute(
        (c, kh, kw),
        lambda o, i, j: te.sum(xp[rb, i + ry.var, j + rx.var] * dy[rb, o, ry, rx],
                               axis=[rb, ry, rx]),
        name="dW",
    )
    return te.create_prim_func([xp, dy, dw])


def test_long_sum_runs_on_a_vector_of_partial_sums():
    func = _conv_weight_grad_func()
    out = schedule_prim_func(func)
    assert "dW_rf" in _block_names(out)
    # The 3-wide output column is not moved inside the 20-long reduction over x: that
    # reduction is the vectorized loop.
    vectorized = {lp.loop_var.name for lp in _nodes(out, For) if lp.kind == ForKind.VECTORIZED}
    assert vectorized == {"rx", "rx_init"}
    rng = np.random.default_rng(9)
    xp = rng.standard_normal((4, 22, 22)).astype("float32")
    dy = rng.standard_normal((4, 3, 20, 20)).astype("float32")
    got = np.zeros((3, 3, 3), "float32")
    _compile(func)(xp, dy, got)
    want = np.zeros((3, 3, 3), "float32")
    for i in range(3):
        for j in range(3):
            want[:, i, j] = np.einsum("byx,boyx->o", xp[:, i:i + 20, j:j + 20], dy)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_short_sums_keep_the_scalar_reduction():
    func = _conv_weight_grad_func(n=1, h=4, w=4)  # 16 terms per output
    assert "dW_rf" not in _block_names(schedule_prim_func(func))


@T.prim_func(s_tir=True)
def transpose_input_rewritten(a: T.Buffer((8, 16), "float32"), out: T.Buffer((16, 8), "float32")):
    x = T.alloc_buffer((8, 16), "float32")
    xt = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(8, 16):
        with T.sblock("first"):
            vi, vj = T.axis.remap("SS", [i, j])
            x[vi, vj] = a[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 8):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            xt[vi, vj] = x[vj, vi]
    for i, j in T.grid(8, 16):
        with T.sblock("second"):
            vi, vj = T.axis.remap("SS", [i, j])
            x[vi, vj] = a[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.sblock("use"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = xt[vi, vj] + x[vj, vi]


def test_transpose_whose_input_is_rewritten_later_stays():
    out = schedule_prim_func(transpose_input_rewritten)
    assert "transpose" in _block_names(out)
    a = np.random.default_rng(10).standard_normal((8, 16)).astype("float32")
    got = np.zeros((16, 8), "float32")
    _compile(transpose_input_rewritten)(a, got)
    np.testing.assert_allclose(got, (a + 1).T + (a * 2).T, rtol=1e-6)


def _reshape_func(src, dst):
    x = te.placeholder(src, "float32", name="X")
    y = tvm.topi.reshape(x, dst)
    return te.create_prim_func([x, y])


def test_flatten_is_split_into_plain_copies():
    func = _reshape_func((4, 3, 5, 6), (4, 90))
    out = schedule_prim_func(func)
    assert "T_reshape_split" in _block_names(out)
    loads = [n for n in _nodes(out, tvm.tirx.BufferLoad) if n.buffer.name == "X"]
    assert len(loads) == 1 and all(isinstance(ix, tvm.tirx.Var) for ix in loads[0].indices)
    x = np.random.default_rng(11).standard_normal((4, 3, 5, 6)).astype("float32")
    got = np.zeros((4, 90), "float32")
    _compile(func)(x, got)
    np.testing.assert_array_equal(got, x.reshape(4, 90))


def test_reshape_that_does_not_split_evenly_uses_the_generic_rule():
    func = _reshape_func((6, 10), (4, 15))
    out = schedule_prim_func(func)
    assert "T_reshape_split" not in _block_names(out)
    x = np.arange(60, dtype="float32").reshape(6, 10)
    got = np.zeros((4, 15), "float32")
    _compile(func)(x, got)
    np.testing.assert_array_equal(got, x.reshape(4, 15))


@pytest.fixture
def grouped(monkeypatch):
    """Group strips even at the small sizes of a test: 2 strips per task, 32-row A blocks."""
    from tvm.backend.llvm import jit
    from tvm.driver import clear_cache
    from tvm.s_tir import default_schedule_matmul as dsm

    monkeypatch.setattr(dsm, "MATMUL_TASKS_PER_THREAD", 0)
    monkeypatch.setattr(dsm, "MATMUL_GROUP_MAX", 2)
    monkeypatch.setattr(dsm, "MATMUL_GROUP_BYTES", 1 << 20)  # whatever the host's L2
    clear_cache()
    jit.clear_cache()
    yield dsm
    clear_cache()
    jit.clear_cache()


@pytest.mark.parametrize(
    "m,n,k,trans_a,trans_b",
    [
        (128, 256, 40, False, False),
        (192, 128, 24, True, False),   # A^T (dW = X^T dY): 16-row tiles
        (136, 256, 33, False, True),   # B^T
        (128, 128, 300, True, True),
    ],
)
def test_grouped_strips_match_numpy(grouped, monkeypatch, m, n, k, trans_a, trans_b):
    monkeypatch.setattr(grouped, "MATMUL_A_BLOCK_BYTES", 4 * k * 32)  # several row blocks
    func = _matmul_func(m, n, k, trans_a, trans_b)
    out = schedule_prim_func(func)
    outer = out.body.block.body
    assert outer.kind == ForKind.PARALLEL and int(outer.extent) == n // MATMUL_TILE[1] // 2
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed"]
    assert [int(d) for d in packs[0].buffer.shape] == [2, k, MATMUL_TILE[1]]
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype("float32")
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    _compile(func)(a, b, c)
    want = (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


def _matmul_bias_relu_func(m, n, k, trans_a=False):
    """``D = max(A @ B + bias, 0)`` (``A`` stored as ``A[k, i]`` when ``trans_a``)."""
    a = te.placeholder((k, m) if trans_a else (m, k), "float32", name="A")
    b = te.placeholder((k, n), "float32", name="B")
    bias = te.placeholder((n,), "float32", name="bias")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum((a[r, i] if trans_a else a[i, r]) * b[r, j],
                                               axis=r), name="C")
    d = te.compute((m, n), lambda i, j: te.max(c[i, j] + bias[j], 0.0), name="D")
    return te.create_prim_func([a, b, bias, d])


def test_grouped_strips_keep_the_fused_epilogue(grouped):
    m, n, k = 128, 256, 48
    func = _matmul_bias_relu_func(m, n, k)
    out = schedule_prim_func(func)
    assert int(out.body.block.body.extent) == n // MATMUL_TILE[1] // 2
    # The matmul's result stays in the register tile: no store to a full-size C buffer.
    assert not [s for s in _nodes(out, BufferStore) if s.buffer.name == "C"]
    rng = np.random.default_rng(7)
    av, bv = rng.standard_normal((m, k), "float32"), rng.standard_normal((k, n), "float32")
    biasv, dv = rng.standard_normal(n, "float32"), np.zeros((m, n), "float32")
    _compile(func)(av, bv, biasv, dv)
    np.testing.assert_allclose(dv, np.maximum(av @ bv + biasv, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "strips,k,threads,expected",
    [
        (16, 1024, 2, 2),   # matmul 1024^3 on 2 threads: 8 tasks of 2 strips
        (16, 1024, 1, 4),
        (16, 1024, 16, 1),  # 16 threads: one strip per task
        (32, 2048, 2, 2),   # 4 strips of K = 2048 would take 2 MiB
        (4, 784, 2, 1),     # 256 columns: too few strips to group
    ],
)
def test_strip_group_sizes(monkeypatch, strips, k, threads, expected):
    from tvm.s_tir import default_schedule_matmul as dsm
    from tvm.s_tir.default_schedule_matmul import strip_group

    monkeypatch.setattr(dsm, "MATMUL_GROUP_BYTES", 1 << 20)  # a 4 MiB L2's quarter
    assert strip_group(strips, k, MATMUL_TILE[1], True, threads) == expected
    assert strip_group(strips, k, MATMUL_TILE[1], False, threads) == 1  # B read in place


def test_row_block_fits_the_l2_budget(monkeypatch):
    from tvm.s_tir import default_schedule_matmul as dsm
    from tvm.s_tir.default_schedule_matmul import row_block

    monkeypatch.setattr(dsm, "MATMUL_A_BLOCK_BYTES", 1 << 19)
    assert row_block(1024, 1024, 4) * 1024 * 4 <= 1 << 19
    assert row_block(1024, 1024, 4) == 128
    assert row_block(784, 256, 16) == 112  # a multiple of the tile dividing 784
    assert row_block(64, 784, 4) == 64     # all rows fit


@pytest.mark.parametrize("l2, expected", [(2 << 20, 2), (1 << 20, 1), (512 << 10, 1)])
def test_group_budget_follows_the_l2_size(monkeypatch, l2, expected):
    # By default the packed strips and the block of A each take a quarter of L2: on a 1 MiB
    # L2 (Zen 4) a 1024^3 matmul keeps one strip per task, on 2 MiB it groups 2.
    from tvm.s_tir import default_schedule_matmul as dsm

    monkeypatch.setattr(dsm, "l2_cache_bytes", lambda: l2)
    assert dsm.strip_group(16, 1024, MATMUL_TILE[1], True, threads=2) == expected
    assert dsm.row_block(1024, 1024, 4) * 1024 * 4 <= l2 // 4


@pytest.fixture
def k_blocked(monkeypatch):
    """Split the reduction into blocks already at the small sizes of a test (K >= 64)."""
    from tvm.backend.llvm import jit
    from tvm.driver import clear_cache
    from tvm.s_tir import default_schedule_matmul as dsm

    monkeypatch.setattr(dsm, "MATMUL_K_BLOCK_MIN", 64)
    monkeypatch.setattr(dsm, "MATMUL_K_BLOCK", 16)
    clear_cache()
    jit.clear_cache()
    yield dsm
    clear_cache()
    jit.clear_cache()


@pytest.mark.parametrize(
    "m,n,k,trans_a,trans_b",
    [
        (128, 128, 64, True, False),   # dW = X^T dY: A read transposed
        (136, 256, 96, False, False),
        (40, 64, 80, False, True),     # one strip: the row tiles run in parallel
        (64, 10, 128, True, False),    # a classifier's 10 columns
    ],
)
@pytest.mark.parametrize("strips_outside", [True, False])
def test_k_blocked_matmul_matches_numpy(k_blocked, monkeypatch, strips_outside, m, n, k,
                                        trans_a, trans_b):
    monkeypatch.setattr(k_blocked, "MATMUL_K_BLOCK_STRIPS_OUTSIDE", strips_outside)
    func = _matmul_func(m, n, k, trans_a, trans_b)
    out = schedule_prim_func(func)
    assert "C_kblocks" in _block_names(out)
    blocks = [lp for lp in _nodes(out, For) if lp.loop_var.name == "k_b"]
    assert len(blocks) == 1 and int(blocks[0].extent) == k // 16
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype("float32")
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype("float32")
    c = np.zeros((m, n), "float32")
    _compile(func)(a, b, c)
    want = (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


def _weight_gradient_sgd_func(m, n, k):
    """``D = W - 0.01 * X^T dY`` (``X``: ``k x m``, ``dY``: ``k x n``), a dW matmul + SGD."""
    x = te.placeholder((k, m), "float32", name="X")
    dy = te.placeholder((k, n), "float32", name="dY")
    w = te.placeholder((m, n), "float32", name="W")
    r = te.reduce_axis((0, k), name="k")
    grad = te.compute((m, n), lambda i, j: te.sum(x[r, i] * dy[r, j], axis=r), name="C")
    new = te.compute((m, n), lambda i, j: w[i, j] - 0.01 * grad[i, j], name="D")
    return te.create_prim_func([x, dy, w, new])


def test_k_blocked_matmul_keeps_the_fused_epilogue(k_blocked):
    # A weight gradient and its SGD update (W - lr * X^T dY): the update runs on the last
    # block's tiles; the gradient itself is never written to a full-size buffer.
    m, n, k = 64, 128, 96
    func = _weight_gradient_sgd_func(m, n, k)
    out = schedule_prim_func(func)
    assert "C_kblocks" in _block_names(out)
    assert not [s for s in _nodes(out, BufferStore) if s.buffer.name == "C"]
    rng = np.random.default_rng(5)
    xv, dyv = rng.standard_normal((k, m), "float32"), rng.standard_normal((k, n), "float32")
    wv, got = rng.standard_normal((m, n), "float32"), np.zeros((m, n), "float32")
    _compile(func)(xv, dyv, wv, got)
    np.testing.assert_allclose(got, wv - 0.01 * (xv.T @ dyv), rtol=1e-4, atol=1e-4)


def test_short_reductions_are_not_k_blocked():
    from tvm.s_tir.default_schedule_matmul import MATMUL_K_BLOCK_MIN, k_block

    assert k_block(MATMUL_K_BLOCK_MIN - 64) is None
    assert k_block(MATMUL_K_BLOCK_MIN) is not None
    assert k_block(MATMUL_K_BLOCK_MIN + 1) is None  # not a multiple of the block
    assert "C_kblocks" not in _block_names(schedule_prim_func(_matmul_func(128, 128, 256)))


def _batch_matmul_func(batch, m, n, k, trans_a=False, trans_b=False, shared_b=False):
    a = te.placeholder((batch, k, m) if trans_a else (batch, m, k), "float32", name="A")
    b_shape = (n, k) if trans_b else (k, n)
    b = te.placeholder(b_shape if shared_b else (batch, *b_shape), "float32", name="B")
    r = te.reduce_axis((0, k), name="k")

    def at(z, i, kk):
        return a[z, kk, i] if trans_a else a[z, i, kk]

    def bt(z, kk, j):
        index = (j, kk) if trans_b else (kk, j)
        return b[index] if shared_b else b[(z, *index)]

    c = te.compute((batch, m, n), lambda z, i, j: te.sum(at(z, i, r) * bt(z, r, j), axis=r),
                   name="C")
    return te.create_prim_func([a, b, c])


@pytest.mark.parametrize(
    "batch,m,n,k,trans_a,trans_b,shared_b",
    [
        (6, 32, 64, 16, False, False, False),   # attention's P V
        (5, 32, 32, 16, False, True, False),    # Q K^T: B read transposed
        (4, 16, 64, 40, True, False, False),    # a gradient: A read transposed
        (3, 24, 48, 20, True, True, False),
        (3, 40, 64, 12, False, False, True),    # B shared by the batch (broadcast)
        (2, 136, 128, 24, False, False, False),  # enough rows to pack B's strips
    ],
)
def test_batched_matmul_is_tiled_and_matches_numpy(batch, m, n, k, trans_a, trans_b, shared_b):
    func = _batch_matmul_func(batch, m, n, k, trans_a, trans_b, shared_b)
    out = schedule_prim_func(func)
    assert "C_tile" in _block_names(out)
    outer = out.body.block.body
    assert isinstance(outer, For) and outer.kind == ForKind.PARALLEL
    assert int(outer.extent) == batch
    inner = [lp for lp in _nodes(out, For) if lp is not outer]
    assert all(lp.kind != ForKind.PARALLEL for lp in inner)  # no nested parallel loops
    rng = np.random.default_rng(batch + m + n + k)
    a = rng.standard_normal((batch, k, m) if trans_a else (batch, m, k)).astype("float32")
    b_shape = (n, k) if trans_b else (k, n)
    b = rng.standard_normal(b_shape if shared_b else (batch, *b_shape)).astype("float32")
    c = np.zeros((batch, m, n), "float32")
    _compile(func)(a, b, c)
    at = a.transpose(0, 2, 1) if trans_a else a
    bt = np.swapaxes(b, -1, -2) if trans_b else b
    np.testing.assert_allclose(c, at @ bt, rtol=1e-4, atol=1e-4)


def test_batched_matmul_reads_an_inlined_transpose_in_place():
    # FuseOps puts the permute_dims of a gradient (Q^T for dK) before the batched matmul:
    # the transpose is inlined (no copy), the product is tiled per batch element.
    batch, m, n, k = 4, 16, 32, 24
    q = te.placeholder((batch, k, m), "float32", name="Q")
    g = te.placeholder((batch, k, n), "float32", name="G")
    qt = te.compute((batch, m, k), lambda z, i, kk: q[z, kk, i], name="T_transpose")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((batch, m, n), lambda z, i, j: te.sum(qt[z, i, r] * g[z, r, j], axis=r),
                   name="C")
    func = te.create_prim_func([q, g, c])
    out = schedule_prim_func(func)
    assert "C_tile" in _block_names(out)
    assert not [s for s in _nodes(out, BufferStore) if s.buffer.name == "T_transpose"]
    rng = np.random.default_rng(3)
    qv, gv = rng.standard_normal((batch, k, m), "float32"), rng.standard_normal((batch, k, n),
                                                                                 "float32")
    got = np.zeros((batch, m, n), "float32")
    _compile(func)(qv, gv, got)
    np.testing.assert_allclose(got, qv.transpose(0, 2, 1) @ gv, rtol=1e-4, atol=1e-4)


# The AVX2 plan (16 vector registers of 8 lanes): 6 x 16 tiles, whose rows rarely divide M.


@pytest.mark.parametrize(
    "m,n,contiguous,expected",
    [
        (4096, 1024, False, (6, 16)),  # 682 tiles of 6 rows and a 4-row tail
        (4096, 24, False, (8, 8)),     # 24 columns: 8-wide, more rows
        (256, 10, False, (6, 10)),     # narrow output: all columns
        (5, 64, False, (5, 16)),       # at most m rows
    ],
)
def test_avx2_tile_shape(m, n, contiguous, expected):
    with planning_for(AVX2):
        assert tile_shape(m, n, contiguous) == expected


def _avx2_matches_numpy(func, shapes, reference, seed):
    with planning_for(AVX2):
        out = schedule_prim_func(func)
        tiles = [b for b in _nodes(out, SBlock) if b.name_hint == "C_tile"]
        run = _compile(func)
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(s).astype("float32") for s in shapes[:-1]]
    got = np.zeros(shapes[-1], "float32")
    run(*args, got)
    np.testing.assert_allclose(got, reference(*args), rtol=1e-4, atol=1e-4)
    return out, tiles


@pytest.mark.parametrize(
    "m,n,k,trans_a,trans_b",
    [
        (136, 64, 40, False, False),   # packed strips; 22 tiles of 6 rows, a 4-row tail
        (64, 48, 33, True, False),     # a 4-row tail
        (30, 32, 17, False, True),     # rows divide: no tail
        (131, 16, 20, True, True),     # one strip, row tiles in parallel, 5-row tail
    ],
)
def test_avx2_plan_row_tail_matches_numpy(m, n, k, trans_a, trans_b):
    func = _matmul_func(m, n, k, trans_a, trans_b)
    shapes = [(k, m) if trans_a else (m, k), (n, k) if trans_b else (k, n), (m, n)]
    _out, tiles = _avx2_matches_numpy(
        func, shapes, lambda a, b: (a.T if trans_a else a) @ (b.T if trans_b else b), m + n + k)
    tile_rows = sorted({int(t.alloc_buffers[0].shape[0]) for t in tiles})
    with planning_for(AVX2):
        main, _ = tile_shape(m, n, trans_a)
    assert tile_rows == sorted({main, m % main} - {0})


def test_avx2_plan_grouped_strips_with_a_row_tail(grouped, monkeypatch):
    m, n, k = 136, 64, 24
    monkeypatch.setattr(grouped, "MATMUL_A_BLOCK_BYTES", 4 * k * 48)  # row blocks of 12
    func = _matmul_func(m, n, k)
    out, tiles = _avx2_matches_numpy(func, [(m, k), (k, n), (m, n)], lambda a, b: a @ b, 3)
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed"]
    assert [int(d) for d in packs[0].buffer.shape] == [2, k, 16]  # two 16-wide strips a task
    assert sorted(int(t.alloc_buffers[0].shape[0]) for t in tiles) == [4, 6]


@pytest.mark.parametrize("strips_outside", [True, False])
def test_avx2_plan_k_blocked_with_a_row_tail(k_blocked, monkeypatch, strips_outside):
    monkeypatch.setattr(k_blocked, "MATMUL_K_BLOCK_STRIPS_OUTSIDE", strips_outside)
    m, n, k = 50, 32, 96
    func = _matmul_func(m, n, k, trans_a=True)
    out, tiles = _avx2_matches_numpy(func, [(k, m), (k, n), (m, n)], lambda a, b: a.T @ b, 4)
    assert "C_kblocks" in _block_names(out)
    assert sorted(int(t.alloc_buffers[0].shape[0]) for t in tiles) == [2, 6]


def test_avx2_plan_batched_with_a_row_tail():
    batch, m, n, k = 3, 20, 32, 12
    func = _batch_matmul_func(batch, m, n, k, trans_b=True)
    _out, tiles = _avx2_matches_numpy(
        func, [(batch, m, k), (batch, n, k), (batch, m, n)],
        lambda a, b: a @ b.transpose(0, 2, 1), 9)
    assert sorted(int(t.alloc_buffers[0].shape[0]) for t in tiles) == [2, 6]


@pytest.mark.parametrize("target,width", [(AVX512, 64), (AVX2, 16),
                                          ("llvm -mcpu=skylake-avx512", 64),
                                          ("llvm -mcpu=znver2", 16)])
def test_default_schedule_plans_for_the_target_vectors(target, width):
    from tvm.s_tir.default_schedule import apply_default_schedule

    mod = tvm.IRModule({"main": _matmul_func(MATMUL_PACK_MIN_ROWS, 256, 32)})
    out = apply_default_schedule(mod, tvm.target.Target(target))["main"]
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "B_packed"]
    assert [int(d) for d in packs[0].buffer.shape][-1] == width


@pytest.mark.parametrize("plan", [AVX512, AVX2])
@pytest.mark.parametrize("strips_outside", [True, False])
def test_k_blocked_groups_strips_and_copies_a_tile(k_blocked, monkeypatch, plan,
                                                   strips_outside):
    # A weight gradient with its SGD update: two strips per task share each block's copy of
    # the tile's rows of A (``C_local_a``: KC x MR, contiguous).
    monkeypatch.setattr(k_blocked, "MATMUL_K_BLOCK_STRIPS_OUTSIDE", strips_outside)
    monkeypatch.setattr(k_blocked, "MATMUL_K_GROUP_MAX", 2)
    m, n, k = 134, 256, 96
    func = _weight_gradient_sgd_func(m, n, k)
    with planning_for(plan):
        out = schedule_prim_func(func)
        run = _compile(func)
        rows, width = tile_shape(m, n, True)
    packs = [s for s in _nodes(out, BufferStore) if s.buffer.name == "dY_packed"]
    assert [int(d) for d in packs[0].buffer.shape] == [2, 16, width]
    copies = sorted(int(s.buffer.shape[1]) for s in _nodes(out, BufferStore)
                    if s.buffer.name == "C_local_a")
    assert copies == sorted({rows, m % rows} - {0})
    rng = np.random.default_rng(11)
    xv, dyv = rng.standard_normal((k, m), "float32"), rng.standard_normal((k, n), "float32")
    wv, got = rng.standard_normal((m, n), "float32"), np.zeros((m, n), "float32")
    run(xv, dyv, wv, got)
    np.testing.assert_allclose(got, wv - 0.01 * (xv.T @ dyv), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "strips,threads,expected",
    [(16, 1, 16), (16, 2, 8), (64, 2, 16), (12, 2, 4), (16, 16, 1), (3, 1, 1)],
)
def test_k_strip_group_gives_each_thread_one_task(strips, threads, expected):
    from tvm.s_tir.default_schedule_matmul import k_strip_group

    assert k_strip_group(strips, True, threads) == expected
    assert k_strip_group(strips, False, threads) == 1  # B read in place


@pytest.mark.parametrize(
    "m,n,k,trans_a,trans_b",
    [(64, 10, 256, False, False), (131, 10, 20, True, True), (48, 12, 64, False, True)],
)
def test_avx2_plan_narrow_output_runs_whole_vectors_then_the_rest(m, n, k, trans_a, trans_b):
    # 10 columns with 8-lane vectors: one nest of 8 columns, one of 2 (a <10 x float>
    # vector was split with shuffles and spills at every k).
    func = _matmul_func(m, n, k, trans_a, trans_b)
    shapes = [(k, m) if trans_a else (m, k), (n, k) if trans_b else (k, n), (m, n)]
    out, _ = _avx2_matches_numpy(
        func, shapes, lambda a, b: (a.T if trans_a else a) @ (b.T if trans_b else b), m + n)
    widths = sorted({int(lp.extent) for lp in _nodes(out, For) if lp.kind == ForKind.VECTORIZED
                     and lp.loop_var.name == "j_1"})
    assert widths == [n % 8, 8]


def test_avx2_plan_narrow_output_keeps_its_epilogue(k_blocked):
    # A classifier's bias + relu on the K-blocked product, split into 8 + 2 columns.
    m, n, k = 40, 10, 96
    func = _matmul_bias_relu_func(m, n, k, trans_a=True)
    out, _ = _avx2_matches_numpy(func, [(k, m), (k, n), (n,), (m, n)],
                                 lambda av, bv, biasv: np.maximum(av.T @ bv + biasv, 0), 8)
    assert "C_kblocks" in _block_names(out)


def test_other_targets_plan_for_their_vectors():
    from tvm.s_tir.default_schedule_matmul import vector_lanes_of

    assert vector_lanes_of("llvm -mtriple=aarch64-linux-gnu") == 4
    assert vector_lanes_of("c") == vector_lanes_of(None)  # the C backend compiles for the host
