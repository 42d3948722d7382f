# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""CUDA variants of Tx.copy (src/tvm/backend/cuda/tile_primitive/copy.py): which variant the
dispatcher picks and why, the lowered TIR, and the element partition the vectorized copy
computes (every element moved exactly once)."""

import itertools

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.arith import Analyzer
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt import For
from tvm.tirx.stmt_functor import post_order_visit, substitute

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


def lower(func):
    mod = tvm.IRModule({"main": func.with_attr("target", TARGET)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def calls(func, prefix):
    out = []

    def visit(node):
        if isinstance(node, tvm.tirx.Call) and node.op.name.startswith(prefix):
            out.append(node)

    post_order_visit(func.body, visit)
    return out


def ptx_tokens(call):
    return [a.value for a in call.args if isinstance(a, tvm.tirx.StringImm) and a.value]


def loops(func):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, For) else None)
    return out


def stores_of(func, name):
    out = []

    def visit(node):
        if isinstance(node, tvm.tirx.BufferStore) and node.buffer.name == name:
            out.append(node)

    post_order_visit(func.body, visit)
    return out


@T.prim_func
def d7_copy(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(A_smem, A)
    T.cuda.cta_sync()
    Tx.cta.copy(B, A_smem)


def test_registered_in_priority_order():
    order = list_registered_schedules()["tirx.tile.copy"]["cuda"]
    assert order[:4] == ["vec_128b", "vec_16b", "vec_32b", "vec_64b"]
    assert order[4:] == ["ldstmatrix", "vec_auto", "fallback"]  # 0.27 order


def test_d7_example3_vectorized_16_bytes_4_steps():
    """Spec D.7 example 3: each of 128 threads moves 8 fp16 (16 bytes) per step, 4 steps."""
    out = lower(d7_copy)
    text = out.script()
    fors = loops(out)
    assert [(f.loop_var.name, f.extent.value) for f in fors] == [("f", 4), ("f", 4)]
    ld = calls(out, "tirx.ptx.ld")
    st = calls(out, "tirx.ptx.st")
    assert [ptx_tokens(c) for c in ld] == [["global", "v4", "u32"], ["shared", "v4", "u32"]]
    assert [ptx_tokens(c) for c in st] == [["shared", "v4", "u32"], ["global", "v4", "u32"]]
    assert len(calls(out, "tirx.cuda.func_call")) == 4
    assert len(calls(out, "tirx.cuda.cvta_generic_to_shared")) == 2
    # the lines 0.27 prints for the same kernel (its thread variable is already `tid` there)
    for line in [
        'tmp = T.alloc_local((4,), "uint32")',
        "g_lin: T.int32 = f * 1024 + tx * 8",
        "s_off: T.int32 = f * 1024 + tx * 8",
        ('T.ptx.ld(tmp[0], tmp[1], tmp[2], tmp[3], g_ptr, "", "", "global", "", "", "", "", "",'
        ' "v4", "u32", "")'),
        ('T.ptx.st(T.cuda.cvta_generic_to_shared(s_ptr), tmp[0], tmp[1], tmp[2], tmp[3], "", "",'
        ' "shared", "", "", "", "v4", "u32", "")'),
        ('T.ptx.st(g_ptr, tmp_1[0], tmp_1[1], tmp_1[2], tmp_1[3], "", "", "global", "", "", "",'
        ' "v4", "u32", "")'),
    ]:
        assert line in text, line
    assert "T.tile" not in text and "T.cta.copy" not in text


def _partition(func, buffer_name, threads, steps, tid_name):
    """The element offsets each (step, thread) writes to ``buffer_name``, from the emitted
    offset expressions (local scalars g_lin / s_off ...)."""
    stores = [s for s in stores_of(func, buffer_name)]
    assert len(stores) == 1
    expr = stores[0].value
    f = [f.loop_var for f in loops(func)]
    tid = [v for v in tvm.tirx.analysis.undefined_vars(expr) if v.name == tid_name]
    ana = Analyzer()
    seen = []
    for step, t in itertools.product(range(steps), range(threads)):
        vmap = {}
        if f:
            vmap[f[0]] = tvm.tirx.const(step, "int32")
        if tid:
            vmap[tid[0]] = tvm.tirx.const(t, "int32")
        seen.append(ana.simplify(substitute(expr, vmap)).value)
    return seen


@pytest.mark.parametrize(
    "dtype,vec_bytes,steps",
    [("float32", 16, 8), ("float16", 16, 4), ("uint8", 16, 2), ("float64", 16, 16)],
)
def test_warp_width_by_dtype_covers_every_element_once(dtype, vec_bytes, steps):
    @T.prim_func
    def k(A: T.Buffer((32, 32), dtype), B: T.Buffer((32, 32), dtype)):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((32, 32), dtype, scope="shared")
        Tx.warp.copy(S, A)

    out = lower(k)
    (ld,) = calls(out, "tirx.ptx.ld")
    assert ptx_tokens(ld)[-2:] == ["v4", "u32"]
    (loop,) = loops(out)
    assert loop.extent.value == steps
    elem = tvm.runtime.DataType(dtype).bits // 8
    vec = vec_bytes // elem
    starts = _partition(out, "g_lin", 32, steps, "lane")
    covered = sorted(s + i for s in starts for i in range(vec))
    assert covered == list(range(32 * 32))


def test_subregion_strided_rows_offsets():
    """A 16x32 window of a 64x64 fp16 buffer: rows are 32-element runs 64 apart."""

    @T.prim_func
    def k(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        S = T.alloc_buffer((16, 32), "float16", scope="shared")
        Tx.cta.copy(S, A[16:32, 32:64])

    out = lower(k)
    (ld,) = calls(out, "tirx.ptx.ld")
    assert ptx_tokens(ld) == ["global", "v4", "u32"]
    starts = _partition(out, "g_lin", 64, 1, "tx")
    covered = sorted(s + i for s in starts for i in range(8))
    assert covered == sorted(r * 64 + c for r in range(16, 32) for c in range(32, 64))
    shared = _partition(out, "s_off", 64, 1, "tx")
    assert sorted(s + i for s in shared for i in range(8)) == list(range(16 * 32))


@pytest.mark.parametrize(
    "start,tokens",
    [(0, ["v4", "u32"]), (4, ["v2", "u32"]), (2, ["u32"]), (1, ["u16"])],
)
def test_alignment_narrows_the_vector(start, tokens):
    """A 1x64 fp16 row starting at column `start`: the vector shrinks to what alignment allows
    (8 threads, so 64 elements need at least 8 per... the width that divides)."""

    @T.prim_func
    def k(A: T.Buffer((4, 128), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        S = T.alloc_buffer((64,), "float16", scope="shared")
        Tx.copy(S, A[1, start:start + 64])

    out = lower(k)
    lds = calls(out, "tirx.ptx.ld")
    assert lds and all(ptx_tokens(c)[1:] == tokens for c in lds)


def test_thread_scope_register_tile_unpacks_and_packs_words():
    """fp16 registers <-> global: 16-byte vectors through uint32 words, two halves a word."""

    @T.prim_func
    def k(A: T.Buffer((64,), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        R = T.alloc_local((16,), "float16")
        Tx.copy(R, A[0:16])
        Tx.copy(A[16:32], R)

    out = lower(k)
    text = out.script()
    ld = calls(out, "tirx.ptx.ld")
    st = calls(out, "tirx.ptx.st")
    assert [ptx_tokens(c) for c in ld] == [["global", "v4", "u32"]]
    assert [ptx_tokens(c) for c in st] == [["global", "v4", "u32"]]
    assert 'R_1[f * 8 + 1] = T.reinterpret("float16", T.Cast("uint16", tmp[0] >> T.uint32(16)))' \
        in text
    assert ('T.Cast("uint32", T.reinterpret("uint16", R_1[f * 8])) | T.Cast("uint32", '
            'T.reinterpret("uint16", R_1[f * 8 + 1])) << T.uint32(16)') in text
    assert "g_lin: T.int32 = 16 + f * 8" in text


def test_float64_registers_span_two_words():
    @T.prim_func
    def k(C: T.Buffer((64,), "float64")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        D = T.alloc_local((2,), "float64")
        Tx.copy(D, C[0:2])
        Tx.copy(C[2:4], D)

    text = lower(k).script()
    assert ('D[1] = T.reinterpret("float64", T.Cast("uint64", tmp[2]) | T.Cast("uint64", '
            'tmp[3]) << T.uint64(32))') in text
    assert 'T.Cast("uint32", T.reinterpret("uint64", D[0]) >> T.uint64(32))' in text


def test_register_operand_at_warp_scope_is_rejected_with_reason():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        R = T.alloc_local((64,), "float32")
        Tx.warp.copy(R, A)

    with pytest.raises(RuntimeError) as err:
        lower(k)
    msg = str(err.value)
    assert "vec_auto" in msg and "needs a layout with thread axes" in msg


def test_non_contiguous_innermost_scalar_words():
    """A column of a row-major buffer has no contiguous stretch: no vector wider than one
    element, so each lane moves single u32 words (two steps for 64 elements)."""

    @T.prim_func
    def k(A: T.Buffer((64, 64), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((64,), "float32", scope="shared")
        Tx.warp.copy(S, A[0:64, 3])

    out = lower(k)
    assert [ptx_tokens(c) for c in calls(out, "tirx.ptx.ld")] == [["global", "u32"]]
    starts = _partition(out, "g_lin", 32, 2, "lane")
    assert sorted(starts) == [r * 64 + 3 for r in range(64)]


def test_plan_reasons_name_contiguity_and_thread_count():
    @T.prim_func
    def k(A: T.Buffer((24, 64), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((24,), "float32", scope="shared")
        Tx.warp.copy(S, A[0:24, 3])

    from tvm.backend.cuda.tile_primitive._common import Operand
    from tvm.backend.cuda.tile_primitive.copy import plan_vector_copy
    from tvm.tirx.operator.tile_primitive import DispatchFail

    call = next(s for s in k.body.body.seq if isinstance(s, tvm.tirx.TilePrimitiveCall))
    with pytest.raises(DispatchFail) as err:
        plan_vector_copy(Operand(call.args[0], "destination"), Operand(call.args[1], "source"),
                         32)
    msg = str(err.value)
    assert "16B: the contiguous innermost stretch (1 elements of the source" in msg
    assert "4B: 24 vectors of 4 bytes do not divide over 32 threads" in msg
    with pytest.warns(UserWarning, match="copy/fallback"):
        out = lower(k)
    assert not calls(out, "tirx.ptx.ld")
    text = out.script()
    assert "if lane == 0:" in text
    assert "S[v0] = A[v0, 3]" in text


def test_fallback_when_count_does_not_divide_threads():
    """4x6 = 24 elements over 32 lanes: no vector split; the first lane copies."""

    @T.prim_func
    def k(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4, 6), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((4, 6), "float32", scope="shared")
        Tx.warp.copy(S, A)

    with pytest.warns(UserWarning, match="all faster variants rejected"):
        out = lower(k)
    fors = loops(out)
    assert [f.extent.value for f in fors] == [6, 4]  # post order: inner loop first
    assert "if lane == 0:" in out.script()


def test_fallback_elects_first_active_warp_in_cta():
    @T.prim_func
    def k(A: T.Buffer((5,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        S = T.alloc_buffer((5,), "float32", scope="shared")
        Tx.cta.copy(S, A)

    with pytest.warns(UserWarning):
        out = lower(k)
    assert "if tx == 0:" in out.script()


def test_warpgroup_scope_thread_index():
    @T.prim_func
    def k(A: T.Buffer((8, 128), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        wg = T.warpgroup_id([2])
        tx = T.thread_id([256])
        S = T.alloc_buffer((8, 128), "float16", scope="shared")
        Tx.wg.copy(S, A)

    out = lower(k)
    assert "g_lin: T.int32 = tx % 128 * 8" in out.script()
    starts = _partition(out, "g_lin", 128, 1, "tx")
    assert sorted(s + i for s in starts for i in range(8)) == list(range(1024))


def test_narrowed_scope_declines_vec_auto():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        S = T.alloc_buffer((64,), "float32", scope="shared")
        if tx < 64:
            Tx.cta.copy(S, A)

    with pytest.warns(UserWarning):
        out = lower(k)
    assert not calls(out, "tirx.ptx.ld")


def test_vec_forced_local_to_global_and_global_to_shared():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        R = T.alloc_local((8,), "float32")
        S = T.alloc_buffer((64,), "float32", scope="shared")
        Tx.copy(R[4:8], A[tx * 4:tx * 4 + 4], dispatch="vec_128b")
        Tx.copy(B[8:10], R[0:2], dispatch="vec_64b")
        Tx.copy(S[4:5], A[4:5], dispatch="vec_32b")

    out = lower(k)
    text = out.script()
    assert 'T.address_of(A[tx * 4]), "", "", "global", "", "", "", "", "", "v4", "u32", "")' \
        in text
    assert 'R_1[7] = T.reinterpret("float32", tmp[3])' in text
    assert ('T.ptx.st(T.address_of(B[8]), T.reinterpret("uint32", R_1[0]), '
            'T.reinterpret("uint32", R_1[1]), "", "", "global"') in text
    tokens = [ptx_tokens(c) for c in calls(out, "tirx.ptx.")]
    assert ["global", "u32"] in tokens and ["shared", "u32"] in tokens


@pytest.mark.parametrize(
    "region,reason",
    [
        ("misaligned", "misaligned"),
        ("short", "has 2 elements, vec_128b moves exactly 4"),
    ],
)
def test_vec_forced_rejections(region, reason):
    if region == "misaligned":
        @T.prim_func
        def k(A: T.Buffer((64,), "float32")):
            T.device_entry()
            bx = T.cta_id([1])
            tx = T.thread_id([32])
            R = T.alloc_local((4,), "float32")
            Tx.copy(R, A[2:6], dispatch="vec_128b")
    else:
        @T.prim_func
        def k(A: T.Buffer((64,), "float32")):
            T.device_entry()
            bx = T.cta_id([1])
            tx = T.thread_id([32])
            R = T.alloc_local((4,), "float32")
            Tx.copy(R[0:2], A[0:2], dispatch="vec_128b")

    with pytest.raises(RuntimeError) as err:
        lower(k)
    assert "vec_128b" in str(err.value) and reason in str(err.value)


def test_vec_forced_needs_thread_scope():
    @T.prim_func
    def k(A: T.Buffer((128,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((128,), "float32", scope="shared")
        Tx.warp.copy(S, A, dispatch="vec_128b")

    with pytest.raises(RuntimeError, match="thread scope, got warp"):
        lower(k)


def test_unsupported_layout_is_rejected_with_reason():
    from tvm.tirx.layout import S as LS
    from tvm.tirx.layout import TileLayout

    col_major = TileLayout(LS[(8, 8):(1, 8)])

    @T.prim_func
    def k(A: T.Buffer((8, 8), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        S = T.alloc_buffer((8, 8), "float32", scope="shared", layout=col_major)
        Tx.copy(S, A, dispatch="vec_auto")

    with pytest.raises(RuntimeError, match="only the default row-major layout"):
        lower(k)
