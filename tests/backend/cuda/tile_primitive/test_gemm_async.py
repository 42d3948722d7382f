"""CUDA gemm_async variants (src/tvm/backend/cuda/tile_primitive/gemm_async.py): wgmma (Hopper)
and tcgen05 (Blackwell, compile-only).

Without a GPU the shared-memory descriptors are checked against a model of how the tensor
cores address a K-major operand (PTX ISA "shared memory matrix layout": 8-row core-matrix
groups ``stride`` bytes apart, the 16/32/64/128-byte swizzle applied to the address bits),
element by element against the layout the tile was stored with; every kernel goes through
nvcc (sm_90a for wgmma, sm_100a for tcgen05)."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.backend.cuda.tile_primitive.gemm_async import (
    sf_tmem_layout,
    smem_matrix_descriptor,
    tcgen05_instr_descriptor,
    wgmma_accumulator_layout,
)
from tvm.script import tirx as T
from tvm.tirx.layout import S, TCol, TileLayout, TLane, mma_shared_layout
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt_functor import post_order_visit

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
SM90 = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")
SM100 = tvm.target.Target({"kind": "cuda", "arch": "sm_100a"}, host="llvm")
SWIZZLE_BITS = {0: 0, 1: 1, 2: 2, 3: 3}  # SwizzleMode -> XOR width in 16-byte chunks (log2)
WIDTH = {0: 16, 1: 32, 2: 64, 3: 128}


def lower(func, target=SM90):
    mod = tvm.IRModule({"main": func.with_attr("target", target)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def wgmma_kernel(mode=3, N=128, K=64, dtype="float16", accum=False, row0=64, stage=1,
                 acc_1d=False, scope="wg", a_layout="mma", trans_a=False):
    a_shape, b_shape = (2, 128, K), (2, N, K)
    Al = mma_shared_layout(dtype, mode, a_shape) if a_layout == "mma" else None
    Bl = mma_shared_layout(dtype, mode, b_shape)
    Cl = wgmma_accumulator_layout(N)
    call = {"wg": Tx.wg.gemm_async, "thread": Tx.gemm_async}[scope]

    @T.prim_func
    def k(out: T.Buffer((64, N), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        wg = T.warpgroup_id([1])
        tid = T.thread_id_in_wg([128])
        A = T.alloc_buffer(a_shape, dtype, scope="shared", layout=Al, align=1024)
        B = T.alloc_buffer(b_shape, dtype, scope="shared", layout=Bl, align=1024)
        if acc_1d:
            acc = T.alloc_local((N // 2,), "float32")
            call(acc, A[stage, row0:row0 + 64, 0:K], B[stage, 0:N, 0:K], trans_a, False, accum,
                 dispatch="wgmma")
            T.ptx.wgmma.wait_group.sync.aligned(0)
            out[tid // 2, tid % 2] = acc[0]
        else:
            C = T.alloc_buffer((64, N), "float32", scope="local", layout=Cl)
            call(C, A[stage, row0:row0 + 64, 0:K], B[stage, 0:N, 0:K], trans_a, False, accum,
                 dispatch="wgmma")
            T.ptx.wgmma.wait_group.sync.aligned(0)
            regs = C.local(N // 2)
            out[tid // 2, tid % 2] = regs[0]

    return k


def ptx_calls(func, family):
    calls = []
    post_order_visit(func.body, lambda n: calls.append(n)
                     if getattr(getattr(n, "op", None), "name", "") == f"tirx.ptx.{family}"
                     else None)
    return calls


def evaluate(expr, base):
    """The value of a descriptor expression with the tile's shared address = ``base``."""
    kind = type(expr).__name__
    if kind == "IntImm":
        return expr.value
    if kind == "Cast":
        return evaluate(expr.value, base)
    if kind == "Call":  # cvta_generic_to_shared(address_of(tile[0, ...]))
        assert expr.op.name == "tirx.cuda.cvta_generic_to_shared"
        return base
    ops = {"Add": lambda a, b: a + b, "BitwiseAnd": lambda a, b: a & b,
           "BitwiseOr": lambda a, b: a | b, "RShift": lambda a, b: a >> b,
           "Or": lambda a, b: a | b, "And": lambda a, b: a & b}
    a, b = (evaluate(x, base) for x in (expr.a, expr.b))
    return ops[kind](a, b)


def hardware_address(desc, row, kk, mode):
    """Byte address the tensor cores read element (row, kk) of a K-major k16 step from."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    if mode == 0:  # 8x16-byte core matrices: rows 16 B apart, K halves lbo apart
        return start + (row // 8) * sbo + (row % 8) * 16 + (kk // 8) * lbo + (kk % 8) * 2
    width = WIDTH[mode]
    plain = start + (row // 8) * sbo + (row % 8) * width + kk * 2
    bits = SWIZZLE_BITS[mode]
    return plain ^ (((plain >> 7) & ((1 << bits) - 1)) << 4)


def layout_address(buffer, index, base):
    shape = [int(s) for s in buffer.shape]
    return base + 2 * int(buffer.layout.apply(*index, shape=shape)["m"])


def test_registered():
    variants = list_registered_schedules()["tirx.tile.gemm_async"]["cuda"]
    assert "wgmma" in variants and "tcgen05" in variants


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_wgmma_descriptors_address_the_stored_layout(mode):
    N, K, base = 64, 64, 0x8000  # base: a 1024-aligned shared address
    func = lower(wgmma_kernel(mode=mode, N=N, K=K))
    buffers = {}
    post_order_visit(func.body, lambda n: buffers.setdefault(n.buffer.name, n.buffer)
                     if type(n).__name__ == "AllocBuffer" else None)
    calls = ptx_calls(func, "wgmma")
    mmas = [c for c in calls if any(getattr(a, "value", None) == "mma_async" for a in c.args)]
    assert len(mmas) == K // 16
    layout_type = {0: 0, 1: 3, 2: 2, 3: 1}[mode]  # wgmma encoding: 1 = 128B, 2 = 64B, 3 = 32B
    for step, call in enumerate(mmas):
        desc_a, desc_b = (evaluate(x, base) for x in call.args[N // 2:N // 2 + 2])
        for desc in (desc_a, desc_b):
            assert desc >> 62 == layout_type
        for desc, buf, rows, row0 in ((desc_a, buffers["A"], 64, 64), (desc_b, buffers["B"], N, 0)):
            for row in range(rows):
                for kk in range(16):
                    want = layout_address(buf, (1, row0 + row, 16 * step + kk), base)
                    assert hardware_address(desc, row, kk, mode) == want, (buf.name, row, kk)


def test_wgmma_accum_flag_and_fences():
    func = lower(wgmma_kernel(K=64, accum=False))
    calls = ptx_calls(func, "wgmma")
    actions = [next(a.value for a in c.args if getattr(a, "value", None) in
                    ("fence", "mma_async", "commit_group", "wait_group")) for c in calls]
    assert actions == ["fence", "mma_async", "mma_async", "mma_async", "mma_async",
                       "commit_group", "wait_group"]
    scale_d = [c.args[64 + 2].value for c in calls[1:5]]
    assert scale_d == [0, 1, 1, 1]  # accum=False overwrites C on the first K step only
    func = lower(wgmma_kernel(mode=2, K=32, accum=True))
    assert [c.args[64 + 2].value for c in ptx_calls(func, "wgmma")[1:3]] == [1, 1]


def test_wgmma_register_order():
    # the (64, N) accumulator's registers are its local storage in instruction order
    for acc_1d in (False, True):
        func = lower(wgmma_kernel(mode=1, N=64, K=16, acc_1d=acc_1d))
        (mma,) = [c for c in ptx_calls(func, "wgmma") if len(c.args) > 40]
        assert [int(x.indices[0]) for x in mma.args[:32]] == list(range(32))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"scope": "thread"}, "wgmma is a warpgroup instruction"),
    ({"a_layout": None}, "must be laid out by mma_shared_layout"),
    ({"trans_a": True, "mode": 0}, "an MN-major operand without swizzle is not supported"),
    ({"trans_a": True, "dtype": "float32"}, "MN-major \\(transposed\\) operands need float16"),
    ({"dtype": "int8", "K": 128}, "has dtype int8; supported: float16, bfloat16, float32"),
    ({"row0": 4}, "the first row 4 must be a multiple of 8"),
])
def test_wgmma_rejections_name_the_reason(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        lower(wgmma_kernel(**kwargs))


def variant_kernel(dtype="float16", mode=3, N=64, K=64, trans_b=False, stage=1):
    """One warpgroup: ``C = A[stage] @ B[stage]^T`` with A ``(64, K)`` K-major and B ``(N, K)``
    K-major or, with ``trans_b``, ``(K, N)`` N-major, both laid out by mma_shared_layout."""
    a_shape = (2, 64, K)
    b_shape = (2, K, N) if trans_b else (2, N, K)
    Al = mma_shared_layout(dtype, mode, a_shape)
    Bl = mma_shared_layout(dtype, mode, b_shape)
    Cl = wgmma_accumulator_layout(N)

    @T.prim_func
    def k(out: T.Buffer((64, N), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        wg = T.warpgroup_id([1])
        tid = T.thread_id_in_wg([128])
        A = T.alloc_buffer(a_shape, dtype, scope="shared", layout=Al, align=1024)
        B = T.alloc_buffer(b_shape, dtype, scope="shared", layout=Bl, align=1024)
        C = T.alloc_buffer((64, N), "float32", scope="local", layout=Cl)
        if trans_b:
            Tx.wg.gemm_async(C, A[stage, 0:64, 0:K], B[stage, 0:K, 0:N], False, True, False,
                             dispatch="wgmma")
        else:
            Tx.wg.gemm_async(C, A[stage, 0:64, 0:K], B[stage, 0:N, 0:K], False, False, False,
                             dispatch="wgmma")
        T.ptx.wgmma.wait_group.sync.aligned(0)
        regs = C.local(N // 2)
        out[tid // 2, tid % 2] = regs[0]

    return k


def swizzled(plain, mode):
    return plain ^ (((plain >> 7) & ((1 << SWIZZLE_BITS[mode]) - 1)) << 4)


@pytest.mark.parametrize(("dtype", "k_step", "ptx_type"), [
    ("float32", 8, "tf32"), ("float8_e4m3fn", 32, "e4m3"), ("bfloat16", 16, "bf16")])
@pytest.mark.parametrize("mode", [0, 3])
def test_wgmma_kinds_read_32_bytes_of_K_per_instruction(dtype, k_step, ptx_type, mode):
    """tf32 (k8), fp8 (k32) and bf16 (k16): every instruction reads 32 bytes of each row; the
    descriptors address the stored layout element by element (K-major model: 8-row groups
    ``stride`` bytes apart, rows one line apart, K halves ``leading`` bytes apart without
    swizzle)."""
    eb = {"float32": 4, "float8_e4m3fn": 1, "bfloat16": 2}[dtype]
    N, K, base = 32, 128 // eb * 2, 0x8000  # K: two 128-byte lines
    func = lower(variant_kernel(dtype, mode, N=N, K=K))
    buffers = {}
    post_order_visit(func.body, lambda n: buffers.setdefault(n.buffer.name, n.buffer)
                     if type(n).__name__ == "AllocBuffer" else None)
    mmas = [c for c in ptx_calls(func, "wgmma")
            if any(getattr(a, "value", None) == "mma_async" for a in c.args)]
    assert len(mmas) == K // k_step
    text = tvm.tirx.ptx._ptx_text(mmas[0])
    assert text == f"wgmma.mma_async.sync.aligned.m64n{N}k{k_step}.f32.{ptx_type}.{ptx_type}"
    n_tail = 4 if k_step == 16 else 2  # scale-a, scale-b (+ the transposes for 16-bit)
    # d, a-desc, b-desc, scale-d, then the immediates, then the modifier strings
    assert [getattr(a, "value", None) for a in mmas[0].args[N // 2 + 3:N // 2 + 4 + n_tail]] \
        == [1] * 2 + [0] * (n_tail - 2) + ["mma_async"]
    width = WIDTH[mode]
    for step, call in enumerate(mmas):
        for desc, buf, rows in ((evaluate(call.args[N // 2], base), buffers["A"], 64),
                                (evaluate(call.args[N // 2 + 1], base), buffers["B"], N)):
            start, lbo, sbo = ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4,
                               ((desc >> 32) & 0x3FFF) << 4)
            for row in range(0, rows, 3):
                for kk in range(k_step):
                    byte = kk * eb
                    if mode == 0:
                        got = (start + (row // 8) * sbo + (row % 8) * 16 + (byte // 16) * lbo
                               + byte % 16)
                    else:
                        got = swizzled(start + (row // 8) * sbo + (row % 8) * width + byte, mode)
                    col = k_step * step + kk
                    shape = [int(x) for x in buf.shape]
                    want = base + eb * int(buf.layout.apply(1, row, col, shape=shape)["m"])
                    assert got == want, (buf.name, step, row, kk)


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_wgmma_mn_major_B(mode):
    """``transB=True``: B is ``(K, N)`` with N contiguous; imm-trans-b is 1 and the descriptor
    follows the MN-major canonical layout: N in swizzle atoms of one line (``leading`` bytes
    apart: a whole column block), K rows one line apart, 8-row K groups ``stride`` bytes
    apart; each k16 step starts 16 lines further."""
    N, K, base = 128, 64, 0x8000
    func = lower(variant_kernel("float16", mode, N=N, K=K, trans_b=True))
    buffers = {}
    post_order_visit(func.body, lambda n: buffers.setdefault(n.buffer.name, n.buffer)
                     if type(n).__name__ == "AllocBuffer" else None)
    mmas = [c for c in ptx_calls(func, "wgmma")
            if any(getattr(a, "value", None) == "mma_async" for a in c.args)]
    assert len(mmas) == K // 16
    width, line = WIDTH[mode], WIDTH[mode] // 2
    B = buffers["B"]
    for step, call in enumerate(mmas):
        assert [int(a.value) for a in call.args[N // 2 + 3:N // 2 + 7]] == [1, 1, 0, 1]
        desc = evaluate(call.args[N // 2 + 1], base)
        start, lbo, sbo = ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4,
                           ((desc >> 32) & 0x3FFF) << 4)
        assert (lbo, sbo) == (K * width, 8 * width)
        for kk in range(16):
            for n in range(0, N, 5):
                got = swizzled(start + (n // line) * lbo + (kk // 8) * sbo + (kk % 8) * width
                               + (n % line) * 2, mode)
                want = layout_address(B, (1, 16 * step + kk, n), base)
                assert got == want, (step, kk, n)


@requires_nvcc
def test_wgmma_kinds_and_mn_major_compile_with_nvcc():
    """ptxas accepts the tf32, fp8 (e4m3, e5m2) and MN-major forms."""
    funcs = {"tf32": variant_kernel("float32", 3, N=64, K=32),
             "e4m3": variant_kernel("float8_e4m3fn", 3, N=128, K=128),
             "e5m2": variant_kernel("float8_e5m2", 2, N=64, K=64),
             "mn_major_b": variant_kernel("float16", 3, N=128, K=64, trans_b=True),
             "mn_major_b_bf16": variant_kernel("bfloat16", 1, N=64, K=64, trans_b=True)}
    mod = tvm.IRModule({n: f.with_attr("global_symbol", n) for n, f in funcs.items()})
    src = tvm.compile(mod, target=SM90, tir_pipeline="tirx").mod.imports[0].inspect_source()
    for form in ("m64n64k8.f32.tf32.tf32", "m64n128k32.f32.e4m3.e4m3", "m64n64k32.f32.e5m2.e5m2",
                 "m64n128k16.f32.f16.f16", "m64n64k16.f32.bf16.bf16"):
        assert f"wgmma.mma_async.sync.aligned.{form}" in src, form
    assert len(compile_many([src], "sm_90a")) > 0


def test_smem_matrix_descriptor_fields():
    d = smem_matrix_descriptor(0x4560, 16, 1024, 3)
    assert (d & 0x3FFF, (d >> 16) & 0x3FFF, (d >> 32) & 0x3FFF, d >> 62) == (0x456, 1, 64, 1)
    t = smem_matrix_descriptor(0x4560, 16, 1024, 3, arch="tcgen05")
    assert t >> 61 == 2 and (t >> 46) & 1 == 1  # SWIZZLE_128B, descriptor version 1
    assert smem_matrix_descriptor(0, 2048, 128, 0, arch="tcgen05") >> 61 == 0
    with pytest.raises(ValueError, match="stride_bytes must be a multiple of 16"):
        smem_matrix_descriptor(0, 16, 1000, 3)
    with pytest.raises(ValueError, match="arch must be wgmma or tcgen05"):
        smem_matrix_descriptor(0, 16, 1024, 3, arch="mma")


def test_tcgen05_instruction_descriptor_fields():
    d = tcgen05_instr_descriptor(128, 256, "bfloat16")
    assert (d >> 4) & 3 == 1  # f32 accumulator
    assert (d >> 7) & 7 == 1 and (d >> 10) & 7 == 1  # bf16 A and B
    assert (d >> 15) & 3 == 0  # K-major A and B
    assert (d >> 17) & 0x3F == 256 >> 3 and (d >> 24) & 0x1F == 128 >> 4
    assert (tcgen05_instr_descriptor(128, 64, "float16") >> 7) & 0x3F == 0
    with pytest.raises(ValueError, match="f16/bf16 inputs with float32 accumulation"):
        tcgen05_instr_descriptor(128, 64, "float8_e4m3fn")


def tcgen05_kernel(N=128, K=64, mode=3, rows_a=128, scope="thread", col0=0, cols=None):
    cols = cols or N
    Al = mma_shared_layout("float16", mode, (rows_a, K))
    Bl = mma_shared_layout("float16", mode, (N, K))
    call = {"thread": Tx.gemm_async, "warp": Tx.warp.gemm_async}[scope]

    @T.prim_func
    def k(out: T.Buffer((128,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        warp_id = T.warp_id([4])
        lane = T.lane_id([32])
        tid = T.thread_id([128])
        A = T.alloc_buffer((rows_a, K), "float16", scope="shared", layout=Al, align=1024)
        B = T.alloc_buffer((N, K), "float16", scope="shared", layout=Bl, align=1024)
        tmem_addr = T.alloc_shared([1], "uint32")
        mbar = T.alloc_shared([1], "uint64")
        if tid == 0:
            T.ptx.mbarrier.init.shared.b64(T.address_of(mbar[0]), T.uint32(1))
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
                T.address_of(tmem_addr[0]), T.uint32(256))
        T.cuda.cta_sync()
        tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                             layout=TileLayout(S[(128, 256):(1 @ TLane, 1 @ TCol)]))
        if scope == "thread":
            if tid == 0:
                call(tmem[0:128, col0:col0 + cols], A[0:rows_a, 0:K], B[0:N, 0:K],
                     dispatch="tcgen05")
                T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(
                    T.address_of(mbar[0]))
        elif warp_id == 0:
            call(tmem[0:128, col0:col0 + cols], A[0:rows_a, 0:K], B[0:N, 0:K], dispatch="tcgen05")
        T.cuda.mbarrier_wait(T.address_of(mbar[0]), 0)
        T.ptx.tcgen05.fence__after_thread_sync()
        if warp_id == 0:
            T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
            T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(256))

    return k


@pytest.mark.parametrize("mode", [0, 3])
def test_tcgen05_lowering(mode):
    func = lower(tcgen05_kernel(N=64, K=64, mode=mode, col0=128, cols=64), SM100)
    mmas = [c for c in ptx_calls(func, "tcgen05")
            if any(getattr(a, "value", None) == "mma" for a in c.args)]
    assert len(mmas) == 4
    text = func.script()
    assert "tmem_addr[0] + T.uint32(128)" in text  # the accumulator starts at column 128
    idesc = tcgen05_instr_descriptor(128, 64, "float16")
    assert [c.args[3].value for c in mmas] == [idesc] * 4
    assert [c.args[4].value for c in mmas] == [0, 1, 1, 1]  # accum=False
    layout_type = {0: 0, 3: 2}[mode]
    for step, call in enumerate(mmas):
        desc_b = evaluate(call.args[2], 0x8000)
        assert desc_b >> 61 == layout_type and (desc_b >> 46) & 1 == 1
        assert hardware_address(desc_b & ((1 << 46) - 1), 9, 3, mode) == (
            0x8000 + 2 * int(mma_shared_layout("float16", mode, (64, 64)).apply(
                9, 16 * step + 3, shape=[64, 64])["m"]))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"scope": "warp"}, "tcgen05.mma is issued by one thread"),
    ({"rows_a": 64}, "M = 64 is not supported yet"),
    ({"N": 64, "cols": 32}, "C's region spans 32 columns, B gives N = 64"),
])
def test_tcgen05_rejections_name_the_reason(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        lower(tcgen05_kernel(**kwargs), SM100)


@requires_nvcc
def test_wgmma_kernels_compile_with_nvcc():
    funcs = {f"sw{mode}": wgmma_kernel(mode=mode) for mode in range(4)}
    funcs["bf16_n256_1d"] = wgmma_kernel(N=256, K=64, dtype="bfloat16", acc_1d=True)
    mod = tvm.IRModule({n: f.with_attr("global_symbol", n) for n, f in funcs.items()})
    src = tvm.compile(mod, target=SM90, tir_pipeline="tirx").mod.imports[0].inspect_source()
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" in src
    assert "__shared__ alignas(1024) half A_ptr" in src
    assert len(compile_many([src], "sm_90a")) > 0


@requires_nvcc
def test_tcgen05_kernel_compiles_with_nvcc_sm100a():
    func = tcgen05_kernel(N=256, K=64).with_attr("global_symbol", "tc")
    src = tvm.compile(func, target=SM100, tir_pipeline="tirx").mod.imports[0].inspect_source()
    assert "tcgen05.mma.cta_group::1.kind::f16" in src
    assert len(compile_many([src], "sm_100a")) > 0


@pytest.mark.parametrize(("rows", "sf_k", "per_mma", "pack"), [
    (128, 4, 4, 1),  # nvfp4: one MMA's 4 factors fill a column
    (128, 8, 2, 2),  # mxfp4: two K groups share a column
    (256, 12, 1, 4),  # fp8: four groups per column, three columns of chunk rows
    (64, 6, 2, 1),  # 3 groups do not pack in pairs: one group per column
])
def test_sf_tmem_layout_places_each_factor(rows, sf_k, per_mma, pack):
    """Row ``32c + r`` on lane ``r`` (replicated on the 4 lane quarters), byte ``4c`` of the
    chunk's column; K group ``g`` at byte ``(g % pack) * per_mma`` of that column, columns of
    ``g // pack`` a whole chunk row (``rows / 32 * 4`` bytes) apart."""
    layout = sf_tmem_layout(rows, SF_K=sf_k, sf_per_mma=per_mma)
    chunks = rows // 32
    seen = set()
    for row in range(rows):
        for k in range(sf_k):
            got = layout.apply(row, k, shape=[rows, sf_k])
            g, i = divmod(k, per_mma)
            want = (row // 32) * 4 + (g // pack) * chunks * 4 + (g % pack) * per_mma + i
            assert (int(got["TLane"]), int(got["TCol"])) == (row % 32, want)
            seen.add((row % 32, want))
    assert len(seen) == rows * sf_k  # no two factors share a byte
    assert [int(it.extent) for it in layout.replica] == [4]
    assert [int(it.stride) for it in layout.replica] == [32]


def test_sf_tmem_layout_reuse_and_stages():
    layout = sf_tmem_layout(128, SF_K=8, sf_per_mma=2, sf_reuse=4, pipe_depth=2)
    shape = [2, 128, 32]
    # four consecutive K indices reuse one factor; stage 1 starts after stage 0's 32 bytes
    assert {int(layout.apply(0, 5, k, shape=shape)["TCol"]) for k in range(4)} == {0}
    assert int(layout.apply(1, 33, 5, shape=shape)["TCol"]) == 32 + 4 + 1
    with pytest.raises(ValueError, match="rows=48 must be a multiple of 32"):
        sf_tmem_layout(48, SF_K=4, sf_per_mma=4)
    with pytest.raises(ValueError, match="SF_K=3 must be a multiple of sf_per_mma=2"):
        sf_tmem_layout(128, SF_K=3, sf_per_mma=2)
    with pytest.raises(ValueError, match="sf_per_mma=3 must divide 4"):
        sf_tmem_layout(128, SF_K=3, sf_per_mma=3)


def tcgen05_pair_kernel(N=256, K=64, **config):
    """A 2-CTA cluster: each CTA holds 128 rows of A and N / 2 rows of B; CTA 0's thread 0
    issues the pair's M = 256 MMA (``cta_group=2``) and commits to both CTAs' barriers."""
    Al = mma_shared_layout("float16", 3, (128, K))
    Bl = mma_shared_layout("float16", 3, (N // 2, K))

    @T.prim_func
    def k(out: T.Buffer((128,), "float32")):
        T.device_entry()
        cbx = T.cta_id_in_cluster([2])
        cta = T.cta_id([2])
        warp_id = T.warp_id([4])
        lane = T.lane_id([32])
        tid = T.thread_id([128])
        A = T.alloc_buffer((128, K), "float16", scope="shared", layout=Al, align=1024)
        B = T.alloc_buffer((N // 2, K), "float16", scope="shared", layout=Bl, align=1024)
        tmem_addr = T.alloc_shared([1], "uint32")
        mbar = T.alloc_shared([1], "uint64")
        if tid == 0:
            T.ptx.mbarrier.init.shared.b64(T.address_of(mbar[0]), T.uint32(1))
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__2.sync.aligned.shared__cta.b32(
                T.address_of(tmem_addr[0]), T.uint32(256))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.cuda.cluster_sync()
        tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                             layout=TileLayout(S[(128, 256):(1 @ TLane, 1 @ TCol)]))
        if cbx == 0:  # noqa: SIM102 - the inner `tid == 0` narrows the scope to one thread
            if tid == 0:
                Tx.gemm_async(tmem[0:128, 0:N], A[0:128, 0:K], B[0:N // 2, 0:K],
                              dispatch="tcgen05", **config)
                T.ptx["tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
                      ".multicast::cluster.b64"](T.address_of(mbar[0]), T.uint16(3))
        T.cuda.mbarrier_wait(T.address_of(mbar[0]), 0)
        T.ptx.tcgen05.fence__after_thread_sync()
        T.cuda.cluster_sync()
        if warp_id == 0:
            T.ptx.tcgen05.relinquish_alloc_permit.cta_group__2.sync.aligned()
            T.ptx.tcgen05.dealloc.cta_group__2.sync.aligned.b32(tmem_addr[0], T.uint32(256))

    return k


def test_tcgen05_cta_group_2_lowering():
    func = lower(tcgen05_pair_kernel(N=256, K=64, cta_group=2, mma_m=256, mma_n=256), SM100)
    mmas = [c for c in ptx_calls(func, "tcgen05")
            if any(getattr(a, "value", None) == "mma" for a in c.args)]
    assert len(mmas) == 4
    assert all(tvm.tirx.ptx._ptx_text(c) == "tcgen05.mma.cta_group::2.kind::f16" for c in mmas)
    idesc = tcgen05_instr_descriptor(256, 256, "float16")
    assert (idesc >> 24) & 0x1F == 256 >> 4 and (idesc >> 17) & 0x3F == 256 >> 3
    assert [c.args[3].value for c in mmas] == [idesc] * 4
    # B's descriptors address this CTA's 128-row half (the peer's is at the same offset)
    for step, call in enumerate(mmas):
        desc_b = evaluate(call.args[2], 0x8000)
        assert hardware_address(desc_b & ((1 << 46) - 1), 100, 5, 3) == (
            0x8000 + 2 * int(mma_shared_layout("float16", 3, (128, 64)).apply(
                100, 16 * step + 5, shape=[128, 64])["m"]))


@pytest.mark.parametrize(("config", "match"), [
    ({"cta_group": 3}, "cta_group must be 1 or 2"),
    ({"cta_group": 2, "mma_n": 128}, "mma_n=128 does not match the operands"),
    ({"cta_group": 2, "mma_m": 128}, "mma_m=128 does not match"),
    ({"cta_group": 2, "swizzle": 1}, r"config \['swizzle'\] is not supported yet"),
])
def test_tcgen05_cta_group_rejections(config, match):
    with pytest.raises(RuntimeError, match=match):
        lower(tcgen05_pair_kernel(N=256, K=64, **config), SM100)


@requires_nvcc
def test_tcgen05_cta_group_2_compiles_with_nvcc_sm100a():
    funcs = {"pair256": tcgen05_pair_kernel(N=256, K=64, cta_group=2),
             "pair128": tcgen05_pair_kernel(N=128, K=128, cta_group=2, mma_m=256)}
    mod = tvm.IRModule({n: f.with_attr("global_symbol", n) for n, f in funcs.items()})
    src = tvm.compile(mod, target=SM100, tir_pipeline="tirx").mod.imports[0].inspect_source()
    assert "tcgen05.mma.cta_group::2.kind::f16" in src  # one shared helper
    assert len(compile_many([src], "sm_100a")) > 0


def tcgen05_mn_kernel(N=128, K=64, mode=3, dtype="bfloat16"):
    """One thread's tcgen05 MMA with an MN-major B ``(K, N)``."""
    Al = mma_shared_layout(dtype, mode, (128, K))
    Bl = mma_shared_layout(dtype, mode, (K, N))

    @T.prim_func
    def k(out: T.Buffer((128,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        warp_id = T.warp_id([4])
        lane = T.lane_id([32])
        tid = T.thread_id([128])
        A = T.alloc_buffer((128, K), dtype, scope="shared", layout=Al, align=1024)
        B = T.alloc_buffer((K, N), dtype, scope="shared", layout=Bl, align=1024)
        tmem_addr = T.alloc_shared([1], "uint32")
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
                T.address_of(tmem_addr[0]), T.uint32(256))
        T.cuda.cta_sync()
        tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                             layout=TileLayout(S[(128, 256):(1 @ TLane, 1 @ TCol)]))
        if tid == 0:
            Tx.gemm_async(tmem[0:128, 0:N], A[0:128, 0:K], B[0:K, 0:N], False, True, False,
                          dispatch="tcgen05")
        T.cuda.cta_sync()
        if warp_id == 0:
            T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
            T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(256))

    return k


def test_tcgen05_mn_major_B():
    """An MN-major B: bit 16 of the instruction descriptor; the B descriptors address the
    stored (K, N) layout with the MN-major model (atoms along N ``leading`` bytes apart, 8-row
    K groups ``stride`` bytes apart)."""
    N, K, base = 128, 64, 0x8000
    func = lower(tcgen05_mn_kernel(N, K), SM100)
    mmas = [c for c in ptx_calls(func, "tcgen05")
            if any(getattr(a, "value", None) == "mma" for a in c.args)]
    assert len(mmas) == K // 16
    idesc = tcgen05_instr_descriptor(128, N, "bfloat16", trans_b=True)
    assert (idesc >> 16) & 1 == 1 and (idesc >> 15) & 1 == 0
    assert [c.args[3].value for c in mmas] == [idesc] * len(mmas)
    layout = mma_shared_layout("bfloat16", 3, (K, N))
    for step, call in enumerate(mmas):
        desc = evaluate(call.args[2], base)
        assert desc >> 61 == 2 and (desc >> 46) & 1 == 1  # 128B swizzle, version 1
        start, lbo, sbo = ((desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4,
                           ((desc >> 32) & 0x3FFF) << 4)
        assert (lbo, sbo) == (K * 128, 1024)
        for kk in range(0, 16, 3):
            for n in range(0, N, 7):
                got = swizzled(start + (n // 64) * lbo + (kk // 8) * sbo + (kk % 8) * 128
                               + (n % 64) * 2, 3)
                want = base + 2 * int(layout.apply(16 * step + kk, n, shape=[K, N])["m"])
                assert got == want, (step, kk, n)


@requires_nvcc
def test_tcgen05_mn_major_compiles_with_nvcc_sm100a():
    func = tcgen05_mn_kernel(128, 64).with_attr("global_symbol", "tc_mn")
    src = tvm.compile(func, target=SM100, tir_pipeline="tirx").mod.imports[0].inspect_source()
    assert "tcgen05.mma.cta_group::1.kind::f16" in src
    assert len(compile_many([src], "sm_100a")) > 0
