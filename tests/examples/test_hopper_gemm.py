"""The Hopper GEMM example (src/tvm/examples/hopper_gemm.py) compiled end to end without a GPU:
TIRx tile primitives -> ``tvm.compile(..., tir_pipeline="tirx")`` -> CUDA -> nvcc (sm_90a,
spills treated as errors). The launch path runs on the fake driver in
tests/backend/cuda/test_hopper_gemm_fake_launch.py; the numeric check against torch is
tests/gpu/test_hopper_gemm_gpu.py (GPU only)."""

import re

import pytest

import tvm
from tvm.backend.cuda.nvcc import compile_cuda, find_nvcc, join_sources
from tvm.backend.cuda.tile_primitive.gemm_async import wgmma_accumulator_layout
from tvm.examples import hopper_gemm as hg
from tvm.tirx.compilation_pipeline import get_tir_pipeline
from tvm.tirx.layout import SwizzleMode, mma_shared_layout
from tvm.tirx.stmt_functor import post_order_visit

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


@pytest.fixture(scope="module")
def gemm4096():
    return hg.HopperGemm(4096, 4096, 4096, num_ctas=132)


def _lowered(func):
    mod = tvm.tirx.transform.BindTarget(TARGET)(tvm.IRModule({"main": func}))
    return get_tir_pipeline("tirx")(TARGET)(mod)


def _ptx_texts(stmt):
    found = []

    def visit(node):
        if isinstance(node, tvm.tirx.Call) and node.op.name.startswith("tirx.ptx."):
            found.append(tvm.tirx.ptx._ptx_text(node))

    post_order_visit(stmt, visit)
    return found


def test_kernel_is_written_with_tile_primitives(gemm4096):
    text = gemm4096.func.script()
    # two TMA copies and one warpgroup wgmma per K tile; no hand-written wgmma / TMA asm
    assert text.count('dispatch="tma_auto"') == 2
    assert text.count("T.wg.gemm_async(") == 1
    ptx = _ptx_texts(gemm4096.func.body)
    assert not [p for p in ptx if p.startswith(("wgmma.mma_async", "cp.async.bulk.tensor"))]
    assert "setmaxnreg.dec.sync.aligned.u32" in ptx and "setmaxnreg.inc.sync.aligned.u32" in ptx


def test_lowered_instructions(gemm4096):
    lowered = _lowered(gemm4096.func)
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    ptx = _ptx_texts(kernel.body)
    # 4 k16 steps of one 64-wide K tile, between one fence and one commit
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 4
    assert ptx.count("wgmma.fence.sync.aligned") == 1
    assert ptx.count("wgmma.commit_group.sync.aligned") == 1
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                     ".mbarrier::complete_tx::bytes") == 2
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "fence.mbarrier_init.release.cluster" in ptx
    tags = [str(t) for t in kernel.get_attr("tirx.kernel_launch_params")]
    assert tags == ["blockIdx.x", "threadIdx.x", "tirx.use_dyn_shared_memory"]
    host = lowered["main"].script()
    # 132 persistent CTAs of 384 threads; 4 stages x 48 KB of tiles + 8 mbarriers
    assert "132, 384, T.int64(196672))" in host
    assert host.count('"runtime.cuTensorMapEncodeTiled"') == 2


def test_generated_source(gemm4096):
    src = gemm4096.source()
    head = re.search(r'extern "C" __global__ void (__launch_bounds__\([^)]*\)) hopper_gemm_kernel'
                     r"\(([^)]*)\)", src)
    assert head.group(1) == "__launch_bounds__(384, 1)"
    assert head.group(2) == ("half* __restrict__ C_ptr, const __grid_constant__ CUtensorMap "
                             "A_tensormap, const __grid_constant__ CUtensorMap B_tensormap_1")
    # the swizzled tiles need 1024-byte alignment: the dynamic shared memory array asks for it
    assert "extern __shared__ __align__(1024) unsigned char" in src
    for asm in ("setmaxnreg.dec.sync.aligned.u32 40;", "setmaxnreg.inc.sync.aligned.u32 232;",
                "mbarrier.try_wait.parity", "mbarrier.arrive.expect_tx.shared.b64",
                ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes"), "wgmma.fence.sync.aligned;",
                "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 1;",
                "cvt.rn.f16x2.f32 %0, %1, %2;"):
        assert asm in src, asm
    # 128 accumulators in registers, the two descriptors, the scale-d predicate
    wgmma = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16 \{([^}]*)\}, "
                      r"(%\d+), (%\d+), (P0), 1, 1, 0, 0;", src)
    assert wgmma is not None and len(wgmma.group(1).split(",")) == 128
    # the descriptor's high bits: 128-byte swizzle (1 << 62), 1024-byte stride, 16-byte lead
    assert str((1 << 62) | (64 << 32) | (1 << 16)) in src
    # the persistent loop
    assert "while (" in src


@requires_nvcc
def test_nvcc_compiles_without_spills(gemm4096):
    cubin = compile_cuda(gemm4096.source(), "sm_90a",
                         options=["-Xptxas=--warn-on-spills,--warning-as-error"])
    assert len(cubin) > 10_000


@requires_nvcc
def test_other_sizes_stages_grids_epilogues_and_clusters_compile():
    gemms = [hg.HopperGemm(256, 512, 128, stages=2),
             hg.HopperGemm(1024, 256, 4096, stages=3, num_ctas=3),
             hg.HopperGemm(1152, 768, 64, stages=4, num_ctas=7),
             hg.HopperGemm(200, 300, 72, stages=2),  # edge tiles in M, N and K
             hg.HopperGemm(130, 301, 64),  # odd N: 2-byte stores
             hg.HopperGemm(4096, 4096, 4096, epilogue="tma"),
             hg.HopperGemm(4096, 4096, 4096, cluster=2),
             hg.HopperGemm(300, 520, 200, epilogue="tma", cluster=2, num_ctas=6)]
    # one nvcc call: each kernel renamed so that the names are unique in the unit; no
    # register spills (the accumulators must stay in registers)
    srcs = [g.source().replace("hopper_gemm_kernel", f"hopper_gemm_kernel_{i}")
            for i, g in enumerate(gemms)]
    assert compile_cuda(join_sources(srcs), "sm_90a",
                        options=["-Xptxas=--warn-on-spills,--warning-as-error"])


@pytest.mark.parametrize(("shape", "kwargs", "match"), [
    ((0, 256, 64), {}, "M must be an int >= 1"),
    ((128, 2.5, 64), {}, "N must be an int >= 1"),
    ((128, 256, 100), {}, "K=100 must be a multiple of 8"),
    ((128, 260, 64), {"epilogue": "tma"}, "N=260 must be a multiple of 8 with the TMA"),
    ((128, 256, 64), {"stages": 5}, "stages must be 2..4"),
    ((128, 256, 64), {"stages": 4, "epilogue": "tma"}, "stages must be 2..3 with the tma"),
    ((128, 256, 64), {"num_ctas": -1}, "num_ctas must be an int >= 1"),
    ((128, 256, 64), {"num_ctas": 1, "cluster": 2}, "num_ctas must be an int >= 2"),
    ((128, 256, 64), {"cluster": 4}, "cluster must be 1 or 2"),
    ((128, 256, 64), {"epilogue": "smem"}, "epilogue must be one of"),
])
def test_bad_sizes(shape, kwargs, match):
    with pytest.raises(ValueError, match=match):
        hg.hopper_gemm(*shape, **kwargs)


def test_default_stages_fit_shared_memory():
    assert hg.max_stages("direct") == 4 and hg.max_stages("tma") == 3
    for epilogue in hg.EPILOGUES:
        lowered = _lowered(hg.hopper_gemm(256, 256, 64, num_ctas=2, epilogue=epilogue))
        host = lowered["main"].script()
        smem = int(re.search(r"T\.int64\((\d+)\)\)", host).group(1))
        assert smem <= hg.SMEM_LIMIT
        assert smem > hg.SMEM_LIMIT - 48 * 1024  # the deepest pipeline that fits


_BINARY = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b,
           "Mul": lambda a, b: a * b, "FloorDiv": lambda a, b: a // b,
           "FloorMod": lambda a, b: a % b, "BitwiseAnd": lambda a, b: a & b,
           "BitwiseOr": lambda a, b: a | b, "RShift": lambda a, b: a >> b,
           "ShiftRight": lambda a, b: a >> b, "Or": lambda a, b: a | b,
           "And": lambda a, b: a & b, "BitwiseXor": lambda a, b: a ^ b,
           "LT": lambda a, b: int(a < b), "LE": lambda a, b: int(a <= b),
           "GT": lambda a, b: int(a > b), "GE": lambda a, b: int(a >= b)}


class _Eval:
    """The value of a lowered index / address expression, given the pipeline stage (every
    ``st_stage`` local) and the warp index; a shared address is the byte offset in the
    dynamic shared memory (``address_of(buf[i])`` = (elem_offset + i) * element size)."""

    def __init__(self, stage, warp):
        self.stage, self.warp = stage, warp

    def __call__(self, e):
        kind = type(e).__name__
        if kind == "IntImm":
            return e.value
        if kind == "Cast":
            return self(e.value)
        if kind == "Var" and e.name == "warp_id_in_cta":
            return self.warp
        if kind == "BufferLoad" and e.buffer.name.startswith("st_stage"):
            return self.stage
        if kind in _BINARY:
            return _BINARY[kind](self(e.a), self(e.b))
        if kind == "Call" and e.op.name == "tirx.cuda.cvta_generic_to_shared":
            return self(e.args[0])
        if kind == "Call" and e.op.name == "tirx.address_of":
            load = e.args[0]
            (index,) = load.indices
            elem = tvm.runtime.DataType(str(load.buffer.dtype)).bits // 8
            return (self(load.buffer.elem_offset) + self(index)) * elem
        raise AssertionError(f"unexpected {kind} in an address: {e}")


def test_wgmma_reads_where_tma_wrote():
    """Per stage and consumer, each k16 step's wgmma descriptors start where the TMA copy of
    that stage put the consumer's rows (+32 bytes per step), on a 1024-byte swizzle atom."""
    stages = 3
    lowered = _lowered(hg.hopper_gemm(256, 512, 128, stages=stages, num_ctas=2))
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    tma, mma = [], []

    def visit(node):
        if isinstance(node, tvm.tirx.Call) and node.op.name.startswith("tirx.ptx."):
            text = tvm.tirx.ptx._ptx_text(node)
            if text.startswith("cp.async.bulk.tensor"):
                tma.append(node)
            elif text.startswith("wgmma.mma_async"):
                mma.append(node)

    post_order_visit(kernel.body, visit)
    assert len(tma) == 2 and len(mma) == 4
    for stage in range(stages):
        for wg in (1, 2):
            ev = _Eval(stage, warp=4 * wg)
            a_tile, b_tile = (ev(call.args[0]) for call in tma)
            assert a_tile % 1024 == 0 and b_tile % 1024 == 0
            assert a_tile == stage * 128 * 64 * 2 and b_tile == (stages * 128 + stage * 256) * 128
            for step, call in enumerate(mma):
                for desc, want in ((ev(call.args[128]), a_tile + (wg - 1) * 64 * 128),
                                   (ev(call.args[129]), b_tile)):
                    assert (desc & 0x3FFF) << 4 == want + 32 * step
                    # leading byte offset 16, stride 1024 (8 rows of 128 B), 128-byte swizzle
                    assert ((desc >> 16) & 0x3FFF, (desc >> 32) & 0x3FFF, desc >> 62) == (1, 64, 1)


def _value(e, env):
    """An int expression's value; ``env`` maps variable names and buffer names (loads of
    element 0) to values."""
    kind = type(e).__name__
    if kind == "IntImm":
        return e.value
    if kind == "Cast":
        return _value(e.value, env)
    if kind == "Var":
        return env[e.name]
    if kind == "BufferLoad":
        return env[e.buffer.name]
    return _BINARY[kind](_value(e.a, env), _value(e.b, env))


def _epilogue(kernel, first):
    """The statements of the consumer's epilogue: from the ``Bind`` of ``first`` on."""
    found = []

    def visit(node):
        if isinstance(node, tvm.tirx.SeqStmt):
            names = [getattr(getattr(x, "var", None), "name", None) for x in node.seq]
            if first in names:
                found.append(list(node.seq)[names.index(first):])

    post_order_visit(kernel.body, visit)
    (stmts,) = found
    return stmts


def _run_epilogue(stmts, env, N):
    """Interpret the epilogue for one thread: ``[(where, address, registers)]`` of each store,
    ``where`` ``"global"`` (address: C's element index) or ``"shared"`` (the word index of the
    dynamic shared memory); ``registers`` are (low half, high half) of a packed word, or one
    register. ``if`` conditions are evaluated; statements of the scheduler (loads of locals
    not in ``env``) are skipped."""
    packed, out = {}, []

    def run(stmt):
        kind = type(stmt).__name__
        if kind == "SeqStmt":
            for x in stmt.seq:
                run(x)
        elif kind == "Bind":
            try:
                env[stmt.var.name] = _value(stmt.value, env)
            except (KeyError, AttributeError):
                pass
        elif kind == "IfThenElse":
            try:
                cond = _value(stmt.condition, env)
            except (KeyError, AttributeError):
                return
            if cond:
                run(stmt.then_case)
            elif stmt.else_case is not None:
                run(stmt.else_case)
        elif kind == "Evaluate" and isinstance(stmt.value, tvm.tirx.Call) and \
                stmt.value.op.name.startswith("tirx.ptx.") and \
                tvm.tirx.ptx._ptx_text(stmt.value) == "cvt.rn.f16x2.f32":
            dst, hi, lo = stmt.value.args[:3]
            packed[int(dst.indices[0].value)] = (int(lo.indices[0].value),
                                                 int(hi.indices[0].value))
        elif kind == "BufferStore":
            name = stmt.buffer.name
            if name in ("C_words", "Cw"):
                where = "global" if name == "C_words" else "shared"
                out.append((where, _value(stmt.indices[0], env),
                            packed[int(stmt.value.indices[0].value)]))
            elif name == "C":
                idx = [_value(i, env) for i in stmt.indices]
                flat = idx[0] if len(idx) == 1 else idx[0] * N + idx[1]
                out.append(("global", flat, (int(stmt.value.value.indices[0].value),)))

    for stmt in stmts:
        run(stmt)
    return out


def _fragment(tid):
    """(row, column, register) of a consumer thread's m64n256 accumulators."""
    layout = wgmma_accumulator_layout(hg.BLOCK_N)
    out = []
    for j in range(hg.BLOCK_N // 8):
        for h in (0, 1):
            for c in (0, 1):
                row, col = 16 * (tid // 32) + (tid % 32) // 4 + 8 * h, 8 * j + 2 * (tid % 4) + c
                got = layout.apply(row, col, shape=[64, hg.BLOCK_N])
                assert int(got["tid_in_wg"]) == tid
                out.append((row, col, int(got["m"])))
    return out


_THREADS = (0, 1, 2, 3, 4, 7, 31, 32, 45, 66, 97, 127)


@pytest.mark.parametrize(("M", "N"), [
    (256, 512),  # whole tiles: no predicates
    (200, 300),  # an edge tile in M and N: 4-byte stores, predicated
    (130, 301),  # odd N: 2-byte stores, predicated
])
def test_direct_epilogue_stores_each_accumulator_once_inside_C(M, N):
    """Walk the lowered epilogue of the last tile (``cvt.rn.f16x2.f32`` of two registers into
    a word, then a store of the word, or one fp16 store): for every sampled consumer thread,
    the elements stored are exactly its accumulator fragment's elements inside ``M x N``, each
    with the register ``wgmma_accumulator_layout`` gives it, none twice."""
    lowered = _lowered(hg.hopper_gemm(M, N, 128, stages=3, num_ctas=2))
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    stmts = _epilogue(kernel, "row")
    m_idx, n_idx = (M - 1) // 128, (N - 1) // 256
    for wg in (1, 2):
        for tid in _THREADS:
            env = {"threadIdx_x": 128 * wg + tid, "warp_id_in_cta": 4 * wg + tid // 32,
                   "sched_m_idx": m_idx, "sched_n_idx": n_idx}
            stored = {}
            for where, addr, regs in _run_epilogue(stmts, env, N):
                assert where == "global"
                elems = [addr] if len(regs) == 1 else [2 * addr, 2 * addr + 1]
                for elem, reg in zip(elems, regs):
                    assert elem not in stored, (wg, tid, elem)
                    stored[elem] = reg
            want = {}
            for row, col, reg in _fragment(tid):
                r, c = m_idx * 128 + (wg - 1) * 64 + row, n_idx * 256 + col
                if r < M and c < N:
                    want[r * N + c] = reg
            assert stored == want, (wg, tid)


def test_tma_epilogue_writes_the_swizzled_tile_the_store_reads():
    """The TMA epilogue: each thread's packed words land in the consumer's half of the shared
    C tile where ``mma_shared_layout(float16, 128B swizzle, (2, 64, 256))`` puts their
    elements (each element once); then a fence, a named barrier, and one thread's four
    ``cp.async.bulk.tensor`` stores of 64-column boxes starting at that half."""
    stages = 2
    lowered = _lowered(hg.hopper_gemm(200, 304, 72, stages=stages, num_ctas=2, epilogue="tma"))
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    c_layout = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (2, 64, 256))
    c_start = stages * (128 + 256) * 64  # fp16 elements before the C tile
    stmts = _epilogue(kernel, "line")
    for wg in (1, 2):
        for tid in _THREADS:
            env = {"threadIdx_x": 128 * wg + tid, "warp_id_in_cta": 4 * wg + tid // 32}
            stored = {}
            for where, word, (lo, hi) in _run_epilogue(stmts, env, 304):
                assert where == "shared"
                for elem, reg in ((2 * word, lo), (2 * word + 1, hi)):
                    assert elem not in stored
                    stored[elem] = reg
            want = {c_start + int(c_layout.apply(wg - 1, row, col, shape=[2, 64, 256])["m"]): reg
                    for row, col, reg in _fragment(tid)}
            assert stored == want, (wg, tid)
    ptx = _ptx_texts(kernel.body)
    stores = [p for p in ptx if p.startswith("cp.async.bulk.tensor.2d.global.shared::cta")]
    assert len(stores) == 4 and all(p.endswith(".tile.bulk_group") for p in stores)
    assert ptx.count("fence.proxy.async.shared::cta") == 1
    assert "cp.async.bulk.wait_group.read" in ptx and "cp.async.bulk.wait_group" in ptx
    store_calls = []

    def visit(node):
        if isinstance(node, tvm.tirx.Call) and node.op.name.startswith("tirx.ptx.") and \
                tvm.tirx.ptx._ptx_text(node).startswith("cp.async.bulk.tensor.2d.global"):
            store_calls.append(node)

    post_order_visit(kernel.body, visit)
    for wg in (1, 2):
        ev = _Eval(0, warp=4 * wg)
        starts = [ev(call.args[3]) for call in store_calls]  # byte offsets in shared memory
        half = 2 * (c_start + (wg - 1) * 64 * 256)
        assert starts == [half + q * 64 * 64 * 2 for q in range(4)]
        assert all(s % 1024 == 0 for s in starts)


def test_cluster_multicasts_half_of_B_and_releases_both_slots():
    """``cluster=2``: each CTA loads its A tile and half of the B tile, multicast to both CTAs
    (mask 0b11) at that half's rows; a consumer releases a slot on both CTAs' empty barriers
    (``mapa`` + ``mbarrier.arrive.shared::cluster``), which count the 4 consumers of the pair;
    cluster barriers after the mbarrier init and before exit; clusters of 2 at launch."""
    stages = 3
    lowered = _lowered(hg.hopper_gemm(640, 520, 128, stages=stages, num_ctas=6, cluster=2))
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    tags = [str(t) for t in kernel.get_attr("tirx.kernel_launch_params")]
    assert tags[:3] == ["clusterCtaIdx.x", "blockIdx.x", "threadIdx.x"]
    assert ", 2, 6, 384, " in lowered["main"].script()  # cluster 2, grid 6
    ptx = _ptx_texts(kernel.body)
    head = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    assert ptx.count(head) == 1 and ptx.count(head + ".multicast::cluster") == 1
    assert ptx.count("mapa.shared::cluster.u32") == 4  # 2 ranks x (in-loop, final) release
    assert ptx.count("mbarrier.arrive.shared::cluster.b64") == 4
    src = tvm.compile(hg.hopper_gemm(640, 520, 128, stages=stages, num_ctas=6, cluster=2),
                      target=TARGET, tir_pipeline="tirx").mod.imports[0].inspect_source()
    body = src[src.index("hopper_gemm_kernel("):]
    assert body.count("tvm_builtin_cuda_cluster_sync();") == 2
    multicast = re.search(r"multicast__cluster\((.*)\);", body).group(1)
    assert multicast.endswith("(unsigned short)3")
    # B half: rows rank * 128 of the slot (8192 elements), coordinate n0 + rank * 128
    assert "(((int)tvm_builtin_cluster_ctaid_x()) * 8192)" in multicast
    assert "((((int)tvm_builtin_cluster_ctaid_x()) * 128) + n0)" in multicast
    inits = re.findall(r"mbarrier_init_init_shared_b64\([^;]*\(uint\)(\d+)\);", body)
    assert inits == ["1"] * stages + ["4"] * stages
