"""The Hopper GEMM example (src/tvm/examples/hopper_gemm.py) compiled end to end without a GPU:
TIRx tile primitives -> ``tvm.compile(..., tir_pipeline="tirx")`` -> CUDA -> nvcc (sm_90a,
spills treated as errors). The launch path runs on the fake driver in
tests/backend/cuda/test_hopper_gemm_fake_launch.py; the numeric check against torch is
tests/gpu/test_hopper_gemm_gpu.py (GPU only)."""

import re

import pytest

import tvm
from tvm.backend.cuda.nvcc import compile_cuda, compile_many, find_nvcc
from tvm.backend.cuda.tile_primitive.gemm_async import wgmma_accumulator_layout
from tvm.examples import hopper_gemm as hg
from tvm.tirx.compilation_pipeline import get_tir_pipeline
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
def test_other_sizes_stages_and_grids_compile():
    gemms = [hg.HopperGemm(256, 512, 128, stages=2),
             hg.HopperGemm(1024, 256, 4096, stages=3, num_ctas=3),
             hg.HopperGemm(1152, 768, 64, stages=4, num_ctas=7)]
    # one nvcc call: each kernel renamed so that the names are unique in the unit
    srcs = [g.source().replace("hopper_gemm_kernel", f"hopper_gemm_kernel_{i}")
            for i, g in enumerate(gemms)]
    assert compile_many(srcs, "sm_90a")


@pytest.mark.parametrize(("shape", "kwargs", "match"), [
    ((100, 256, 64), {}, "M=100 must be a positive multiple of 128"),
    ((128, 128, 64), {}, "N=128 must be a positive multiple of 256"),
    ((128, 256, 96), {}, "K=96 must be a positive multiple of 64"),
    ((128, 256, 64), {"stages": 5}, "stages must be 2..4"),
    ((128, 256, 64), {"num_ctas": -1}, "num_ctas must be a positive int"),
])
def test_bad_sizes(shape, kwargs, match):
    with pytest.raises(ValueError, match=match):
        hg.hopper_gemm(*shape, **kwargs)


_BINARY = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b,
           "Mul": lambda a, b: a * b, "FloorDiv": lambda a, b: a // b,
           "FloorMod": lambda a, b: a % b, "BitwiseAnd": lambda a, b: a & b,
           "BitwiseOr": lambda a, b: a | b, "RShift": lambda a, b: a >> b,
           "ShiftRight": lambda a, b: a >> b, "Or": lambda a, b: a | b,
           "And": lambda a, b: a & b}


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


def test_epilogue_stores_each_accumulator_where_the_wgmma_layout_puts_it():
    """Walk the lowered epilogue (``cvt.rn.f16x2.f32`` of two registers into a word, then a
    4-byte store of the word): for every consumer thread, the low half of each stored word is
    the register that ``wgmma_accumulator_layout`` gives for the word's (row, even column),
    the high half that of the odd column (threads of each warp and both consumers), and no
    element is stored twice."""
    M, N = 256, 512
    lowered = _lowered(hg.hopper_gemm(M, N, 128, stages=3, num_ctas=2))
    (kernel,) = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    binds, events = {}, []

    def visit(node):
        kind = type(node).__name__
        if kind == "Bind" and node.var.name in ("row", "word"):
            binds[node.var.name] = node.value
        elif kind == "BufferStore" and node.buffer.name == "C_words":
            events.append(("store", node.indices[0], int(node.value.indices[0].value)))
        elif isinstance(node, tvm.tirx.Call) and node.op.name.startswith("tirx.ptx.") and \
                tvm.tirx.ptx._ptx_text(node) == "cvt.rn.f16x2.f32":
            dst, hi, lo = node.args[:3]
            events.append(("cvt", int(dst.indices[0].value), (int(hi.indices[0].value),
                                                              int(lo.indices[0].value))))

    post_order_visit(kernel.body, visit)
    assert sum(e[0] == "store" for e in events) == 64
    layout = wgmma_accumulator_layout(hg.BLOCK_N)
    threads = (0, 1, 2, 3, 4, 7, 31, 32, 45, 66, 97, 127)
    for wg in (1, 2):
        covered = set()
        for tid in threads:
            env = {"threadIdx_x": 128 * wg + tid, "warp_id_in_cta": 4 * wg + tid // 32,
                   "sched_m_idx": 1, "sched_n_idx": 1}  # the tile at (128, 256)
            env["row"] = _value(binds["row"], env)
            env["word"] = _value(binds["word"], env)
            packed = {}
            for kind, where, what in events:
                if kind == "cvt":
                    packed[where] = what
                    continue
                hi, lo = packed[what]
                word = _value(where, env)
                row = word // (N // 2) - 128 - (wg - 1) * 64
                col = 2 * (word % (N // 2)) - 256
                for c, reg in ((col, lo), (col + 1, hi)):
                    got = layout.apply(row, c, shape=[64, hg.BLOCK_N])
                    assert (int(got["tid_in_wg"]), int(got["m"])) == (tid, reg), (wg, tid, row, c)
                    covered.add((row, c))
        assert len(covered) == len(threads) * 128  # 64 words of 2 halves per thread
