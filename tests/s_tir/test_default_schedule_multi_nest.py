"""The default CPU schedule of PrimFuncs with several loop nests (FuseTIR's fused kernels).

A tileable matmul followed by elementwise nests over its output becomes one tiled nest whose
tiles run the elementwise epilogue while they are in the cache; the result is compiled and
compared with NumPy.
"""

import numpy as np
import pytest

import tvm
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.s_tir.default_schedule_matmul import planning_for
from tvm.script import tirx as T
from tvm.tirx.stmt import For, ForKind, SBlockRealize, SeqStmt


@pytest.fixture(autouse=True)
def _plan_for_avx512():
    # The structure below is the AVX-512 plan's (4 x 64 tiles, no row tail); the scheduled
    # functions compile for the host's vectors whichever plan made them.
    with planning_for("llvm -mattr=+avx512f"):
        yield


@T.prim_func(s_tir=True)
def matmul_add_relu(A: T.Buffer((128, 256), "float32"), B: T.Buffer((256, 128), "float32"),
                    bias: T.Buffer((128,), "float32"), D: T.Buffer((128, 128), "float32")):
    C = T.alloc_buffer((128, 128), "float32")
    E = T.alloc_buffer((128, 128), "float32")
    for i, j, k in T.grid(128, 128, 256):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(128, 128):
        with T.sblock("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = C[vi, vj] + bias[vj]
    for i, j in T.grid(128, 128):
        with T.sblock("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(E[vi, vj], T.float32(0))


@T.prim_func(s_tir=True)
def matmul_then_transpose(A: T.Buffer((128, 256), "float32"), B: T.Buffer((256, 128), "float32"),
                          D: T.Buffer((128, 128), "float32")):
    C = T.alloc_buffer((128, 128), "float32")
    for i, j, k in T.grid(128, 128, 256):
        with T.sblock("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(128, 128):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vj, vi]


def _root_stmts(func):
    """The root block's loop nests (its ``T.alloc_buffer`` statements left out)."""
    body = func.body.block.body
    stmts = list(body.seq) if isinstance(body, SeqStmt) else [body]
    return [s for s in stmts if isinstance(s, For)]


def _tile_body(nest):
    """The statements of the tile in ``for j0 (parallel): pack B; for i0: matmul_tile``."""
    assert isinstance(nest, For) and nest.kind == ForKind.PARALLEL
    strip = nest.body
    assert isinstance(strip, SBlockRealize) and strip.block.name_hint == "matmul_strip"
    pack, rows = strip.block.body.seq
    assert pack.body.body.buffer.name == "B_packed"
    assert isinstance(rows, For) and rows.kind == ForKind.SERIAL
    assert isinstance(rows.body, SBlockRealize)
    assert rows.body.block.name_hint == "matmul_tile"
    return list(rows.body.block.body.seq)


def _stored_buffer(tile_loop):
    """Name of the buffer stored by ``for i1 (unrolled): for j1 (vectorized): X[...] = ...``."""
    assert tile_loop.kind == ForKind.UNROLLED
    assert tile_loop.body.kind == ForKind.VECTORIZED
    return tile_loop.body.body.buffer.name


def _compile(func):
    return tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}),
                       target="llvm")


def _inputs(seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((128, 256)).astype("float32")
    b = rng.standard_normal((256, 128)).astype("float32")
    return a, b, rng.standard_normal(128).astype("float32")


def test_epilogue_runs_inside_the_matmul_tile():
    stmts = _root_stmts(schedule_prim_func(matmul_add_relu))
    assert len(stmts) == 1, "the add and relu nests joined the matmul's tile loop"
    tile = _tile_body(stmts[0])
    # init, k loop, then the relu of the bias add (the add is inlined into it, rule 0) on
    # the same 4 x 64 tile. C is an intermediate read by nothing else: it stays in a
    # per-tile buffer (registers), and the root block no longer allocates it (nor E).
    assert len(tile) == 3
    assert tile[1].kind == ForKind.SERIAL and tile[1].loop_var.name == "k"
    assert _stored_buffer(tile[2]) == "D"
    body = schedule_prim_func(matmul_add_relu).body.block.body
    assert isinstance(body, For)  # no AllocBuffer statements left


def test_fused_matmul_add_relu_compiles_to_numpy_result():
    lib = _compile(matmul_add_relu)
    a, b, bias = _inputs(0)
    got = np.zeros((128, 128), "float32")
    lib["main"](a, b, bias, got)
    np.testing.assert_allclose(got, np.maximum(a @ b + bias, 0), rtol=1e-4, atol=1e-4)


def test_consumer_reading_another_element_stays_a_separate_nest():
    # D[i, j] = C[j, i] needs other tiles of C: it must not run inside the matmul's tile.
    stmts = _root_stmts(schedule_prim_func(matmul_then_transpose))
    assert len(stmts) == 2
    assert len(_tile_body(stmts[0])) == 3
    assert stmts[1].loop_var.name == "i" and stmts[1].body.kind == ForKind.VECTORIZED
    lib = _compile(matmul_then_transpose)
    a, b, _ = _inputs(1)
    got = np.zeros((128, 128), "float32")
    lib["main"](a, b, got)
    np.testing.assert_allclose(got, (a @ b).T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("with_attr", [True, False])
def test_block_form_without_s_tir_attr_is_scheduled(with_attr):
    # FuseTIR's fused functions carry no "s_tir" attribute; their root block marks them.
    func = matmul_add_relu if with_attr else matmul_add_relu.without_attr("s_tir")
    assert len(_root_stmts(schedule_prim_func(func))) == 1
    scheduled = func.with_attr("tirx.is_scheduled", True)
    assert schedule_prim_func(scheduled) is scheduled
