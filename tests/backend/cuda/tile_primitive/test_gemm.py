"""CUDA gemm variant mma.m16n8k* (src/tvm/backend/cuda/tile_primitive/gemm.py): Tx.warp.gemm over
register fragments lowered to mma.sync.

Without a GPU the numbers are checked by running the lowered ``T.ptx.mma`` calls on a Python
model of ``mma.sync`` written from the PTX ISA's fragment tables (which lane holds which
element), independent of the variant's layouts; every kernel also goes through nvcc."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import numpy as np
import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.backend.cuda.tile_primitive.gemm import (
    mma_a_layout,
    mma_accumulator_layout,
    mma_b_layout,
)
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt_functor import post_order_visit

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


def lower(func):
    mod = tvm.IRModule({"main": func.with_attr("target", TARGET)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def make_gemm(Mt, Nt, Kt, k, *, dtype="float16", beta=0.0, trans_a=False, trans_b=False,
              alpha=1.0, separate_c=False, scope="warp", layouts=None):
    M, N, K = 16 * Mt, 8 * Nt, k * Kt
    a_shape = (K, M) if trans_a else (M, K)
    b_shape = (N, K) if trans_b else (K, N)
    Al, Bl, Dl = layouts or (mma_a_layout(M, K, k, trans_a), mma_b_layout(K, N, k, trans_b),
                             mma_accumulator_layout(M, N))
    call = {"warp": Tx.warp.gemm, "cta": Tx.cta.gemm}[scope]

    @T.prim_func
    def gemm():
        T.device_entry()
        cta = T.cta_id([1])
        warp = T.warp_id([1])
        lane = T.lane_id([32])
        A = T.alloc_buffer(a_shape, dtype, scope="local", layout=Al)
        B = T.alloc_buffer(b_shape, dtype, scope="local", layout=Bl)
        C = T.alloc_buffer((M, N), "float32", scope="local", layout=Dl)
        D = T.alloc_buffer((M, N), "float32", scope="local", layout=Dl)
        if separate_c:
            call(D, A, B, C, transpose_A=trans_a, transpose_B=trans_b, alpha=alpha, beta=beta)
        else:
            call(D, A, B, D, transpose_A=trans_a, transpose_B=trans_b, alpha=alpha, beta=beta)

    return gemm


# ---- a model of mma.sync from the PTX ISA fragment tables (lane = 4 * g + t) ---------------
def _a_elems(k):
    """(row, col) of A's b32 words 0.. for lane (g, t): 2 elements each (col, col + 1)."""
    words = [lambda g, t: (g, 2 * t), lambda g, t: (g + 8, 2 * t)]
    if k == 16:
        words += [lambda g, t: (g, 2 * t + 8), lambda g, t: (g + 8, 2 * t + 8)]
    return words


def _b_elems(k):
    """(row, col) of B's b32 words: elements (row, col), (row + 1, col)."""
    words = [lambda g, t: (2 * t, g)]
    if k == 16:
        words.append(lambda g, t: (2 * t + 8, g))
    return words


_D_ELEMS = [lambda g, t: (g, 2 * t), lambda g, t: (g, 2 * t + 1),
            lambda g, t: (g + 8, 2 * t), lambda g, t: (g + 8, 2 * t + 1)]


def _registers(buffer, values):
    """Per-lane register files of a fragment buffer holding ``values`` (via its layout)."""
    shape = [int(s) for s in buffer.shape]
    size = int(buffer.layout.storage().size())
    regs = np.full((32, size), np.nan, dtype=np.float64)
    for i in range(shape[0]):
        for j in range(shape[1]):
            where = buffer.layout.apply(i, j, shape=shape)
            regs[int(where.get("laneid", 0)), int(where["m"])] = values[i, j]
    return regs


def simulate(func, a, b, c=None):
    """Run the lowered mma calls of ``func`` on A/B values; returns D read through its layout."""
    buffers = {}
    post_order_visit(func.body, lambda n: buffers.setdefault(n.buffer.name, n.buffer)
                     if type(n).__name__ == "AllocBuffer" else None)
    A, B, C, D = (buffers[n] for n in "ABCD")
    file = {A.data: _registers(A, a), B.data: _registers(B, b),
            C.data: _registers(C, c if c is not None else np.zeros([int(s) for s in C.shape])),
            D.data: np.full((32, int(D.layout.storage().size())), np.nan)}
    stmts = []
    post_order_visit(func.body, lambda n: stmts.append(n)
                     if type(n).__name__ in ("BufferStore", "Evaluate") else None)
    for stmt in stmts:
        if type(stmt).__name__ == "BufferStore":  # D initialisation (zero or a copy of C)
            src = stmt.value
            for lane in range(32):
                value = (src.value if hasattr(src, "value") and not hasattr(src, "buffer")
                         else file[src.buffer.data][lane, int(src.indices[0])])
                file[stmt.buffer.data][lane, int(stmt.indices[0])] = value
            continue
        call = stmt.value
        if getattr(call.op, "name", "") != "tirx.ptx.mma":
            continue
        k = 16 if "m16n8k16" in [getattr(x, "value", None) for x in call.args] else 8
        loads = [x for x in call.args if hasattr(x, "buffer")]
        d, rest = loads[:4], loads[4:]
        a_words, b_words = rest[:k // 4], rest[k // 4:k // 4 + k // 8]
        tile_a, tile_b = np.zeros((16, k)), np.zeros((k, 8))
        acc = np.zeros((16, 8))
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for load, where in zip(a_words, _a_elems(k)):
                r, col = where(g, t)
                w = int(load.indices[0])
                tile_a[r, col:col + 2] = file[load.buffer.data][lane, 2 * w:2 * w + 2]
            for load, where in zip(b_words, _b_elems(k)):
                r, col = where(g, t)
                w = int(load.indices[0])
                tile_b[r:r + 2, col] = file[load.buffer.data][lane, 2 * w:2 * w + 2]
            for load, where in zip(loads[-4:], _D_ELEMS):
                acc[where(g, t)] = file[load.buffer.data][lane, int(load.indices[0])]
        out = tile_a @ tile_b + acc
        for lane in range(32):
            g, t = lane // 4, lane % 4
            for load, where in zip(d, _D_ELEMS):
                file[load.buffer.data][lane, int(load.indices[0])] = out[where(g, t)]
    shape = [int(s) for s in D.shape]
    result = np.zeros(shape)
    for i in range(shape[0]):
        for j in range(shape[1]):
            where = D.layout.apply(i, j, shape=shape)
            result[i, j] = file[D.data][int(where.get("laneid", 0)), int(where["m"])]
    return result


def test_registered():
    assert "mma.m16n8k*" in list_registered_schedules()["tirx.tile.gemm"]["cuda"]


def test_single_tile_text():
    text = lower(make_gemm(1, 1, 1, 16)).script()
    assert ('T.ptx.mma(d_local[0], d_local[1], d_local[2], d_local[3], a_words[0], a_words[1], '
            'a_words[2], a_words[3], b_words[0], b_words[1], d_local[0], d_local[1], '
            'd_local[2], d_local[3], "sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", '
            '"f16", "f32", "")') in text
    assert "d_local[0] = T.float32(0.0)" in text  # beta = 0 clears D first


def test_beta_one_copies_c():
    text = lower(make_gemm(1, 1, 1, 16, beta=1.0, separate_c=True)).script()
    assert "d_local[0] = c_local[0]" in text
    assert "T.float32(0" not in text
    # beta = 1 with C = D accumulates in place: no initialisation at all
    text = lower(make_gemm(1, 1, 1, 16, beta=1.0)).script()
    assert "d_local[0] =" not in text


@pytest.mark.parametrize(("Mt", "Nt", "Kt", "k"), [
    (1, 1, 1, 16), (2, 1, 1, 16), (1, 2, 1, 16), (1, 1, 2, 16), (2, 2, 2, 16), (4, 1, 1, 16),
    (1, 1, 1, 8), (1, 1, 3, 8), (2, 2, 3, 8),
])
@pytest.mark.parametrize(("beta", "dtype"), [(0.0, "float16"), (1.0, "bfloat16")])
def test_numbers_on_mma_model(Mt, Nt, Kt, k, beta, dtype):
    rng = np.random.default_rng(Mt * 100 + Nt * 10 + Kt + k)
    M, N, K = 16 * Mt, 8 * Nt, k * Kt
    a = rng.integers(-4, 5, (M, K)).astype(float)
    b = rng.integers(-4, 5, (K, N)).astype(float)
    c = rng.integers(-4, 5, (M, N)).astype(float)
    func = lower(make_gemm(Mt, Nt, Kt, k, dtype=dtype, beta=beta, separate_c=True))
    calls = []
    post_order_visit(func.body, lambda n: calls.append(n)
                     if getattr(getattr(n, "op", None), "name", "") == "tirx.ptx.mma" else None)
    assert len(calls) == Mt * Nt * Kt
    np.testing.assert_array_equal(simulate(func, a, b, c), a @ b + beta * c)


@pytest.mark.parametrize(("trans_a", "trans_b"), [(True, False), (False, True), (True, True)])
def test_transposed_operands_on_mma_model(trans_a, trans_b):
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (32, 32)).astype(float)  # logical A[M, K]
    b = rng.integers(-4, 5, (32, 16)).astype(float)  # logical B[K, N]
    func = lower(make_gemm(2, 2, 2, 16, trans_a=trans_a, trans_b=trans_b))
    got = simulate(func, a.T if trans_a else a, b.T if trans_b else b)
    np.testing.assert_array_equal(got, a @ b)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"alpha": 2.0}, "alpha=2: mma.sync has no scale"),
    ({"beta": 0.5}, "beta=0.5: mma.sync accumulates 1\\*C only"),
    ({"dtype": "float32"}, "A and B must both be float16 or bfloat16"),
    ({"scope": "cta"}, "mma.sync is a warp instruction"),
    ({"layouts": (mma_a_layout(16, 16, 16, transpose=True), mma_b_layout(16, 8),
                  mma_accumulator_layout(16, 8))}, "must have the m16n8k16 or m16n8k8 fragment"),
])
def test_rejections_name_the_reason(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        lower(make_gemm(1, 1, 1, 16, **kwargs))


def test_k8_fragments_tiled_to_k16_are_the_k16_fragment():
    # two k8 fragments stacked along K hold the registers of one k16 fragment: one k16 mma
    layouts = (mma_a_layout(16, 16, 8), mma_b_layout(16, 8, 8), mma_accumulator_layout(16, 8))
    func = lower(make_gemm(1, 1, 1, 16, layouts=layouts))
    assert func.script().count('"m16n8k16"') == 1
    a = np.arange(256, dtype=float).reshape(16, 16) % 7 - 3
    b = np.arange(128, dtype=float).reshape(16, 8) % 5 - 2
    np.testing.assert_array_equal(simulate(func, a, b), a @ b)


@pytest.mark.parametrize(("factory", "args", "match"), [
    (mma_accumulator_layout, (8, 16), "M=8 must be a positive multiple of 16"),
    (mma_a_layout, (16, 24, 16), "K=24 must be a positive multiple of 16"),
    (mma_b_layout, (16, 8, 4), "k must be 8 or 16"),
])
def test_layout_factories_reject_bad_sizes(factory, args, match):
    with pytest.raises(ValueError, match=match):
        factory(*args)


def test_wrong_accumulator_layout_is_rejected():
    bad = mma_b_layout(16, 8)  # B's register map, not the accumulator's
    layouts = (mma_a_layout(16, 16), mma_b_layout(16, 8), bad)
    with pytest.raises(RuntimeError, match="must have the m16n8 accumulator layout"):
        lower(make_gemm(1, 1, 1, 16, layouts=layouts))


M_, N_, K_ = 32, 16, 32
_AL, _BL, _DL = mma_a_layout(M_, K_), mma_b_layout(K_, N_), mma_accumulator_layout(M_, N_)


@T.prim_func
def smem_gemm(A: T.Buffer((M_, K_), "float16"), B: T.Buffer((K_, N_), "float16"),
              D: T.Buffer((M_, N_), "float32")):
    # a warp loads A and B tiles from shared memory with ldmatrix into the fragments
    T.device_entry()
    cta = T.cta_id([1])
    warp = T.warp_id([1])
    lane = T.lane_id([32])
    As = T.alloc_buffer((M_, K_), "float16", scope="shared")
    Bs = T.alloc_buffer((K_, N_), "float16", scope="shared")
    Tx.warp.copy(As, A)
    Tx.warp.copy(Bs, B)
    T.cuda.warp_sync()
    Af = T.alloc_buffer((M_, K_), "float16", scope="local", layout=_AL)
    Bf = T.alloc_buffer((K_, N_), "float16", scope="local", layout=_BL)
    Df = T.alloc_buffer((M_, N_), "float32", scope="local", layout=_DL)
    a_w = T.decl_buffer((8,), "uint32", data=Af.data, scope="local")
    b_w = T.decl_buffer((4,), "uint32", data=Bf.data, scope="local")
    for mt in T.unroll(2):
        for kt in T.unroll(2):
            # x4: matrices (rows 0-7 | 8-15) x (cols 0-7 | 8-15) of the 16x16 tile
            T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(
                a_w[(mt * 2 + kt) * 4], a_w[(mt * 2 + kt) * 4 + 1], a_w[(mt * 2 + kt) * 4 + 2],
                a_w[(mt * 2 + kt) * 4 + 3],
                T.address_of(As[mt * 16 + lane % 16, kt * 16 + lane // 16 * 8]))
    for kt in T.unroll(2):
        for nt in T.unroll(2):
            # x2.trans: B is row-major [K, N]; the two 8x8 halves along K
            T.ptx.ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16(
                b_w[(kt * 2 + nt) * 2], b_w[(kt * 2 + nt) * 2 + 1],
                T.address_of(Bs[kt * 16 + lane % 16, nt * 8]))
    Tx.warp.gemm(Df, Af, Bf, Df)
    D_reg = Df.local(16)
    for s in T.unroll(16):
        D[s // 8 * 16 + lane // 4 + 8 * (s // 2 % 2), s // 4 % 2 * 8 + 2 * (lane % 4) + s % 2] = (
            D_reg[s])


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
def test_kernels_compile_with_nvcc():
    funcs = {
        "k16": make_gemm(2, 2, 2, 16),
        "k8_bf16_beta1": make_gemm(2, 2, 3, 8, dtype="bfloat16", beta=1.0, separate_c=True),
        "transposed": make_gemm(1, 2, 2, 16, trans_a=True, trans_b=True),
        "smem_gemm": smem_gemm,
    }
    mod = tvm.IRModule({n: f.with_attr("global_symbol", n) for n, f in funcs.items()})
    lib = tvm.compile(mod, target=TARGET, tir_pipeline="tirx")
    src = lib.mod.imports[0].inspect_source()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in src
    assert "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32" in src
    assert "((uint*)Af_ptr)[" in src  # the uint32 words of the half registers
    assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in src
    assert len(compile_many([src], "sm_90a")) > 0
