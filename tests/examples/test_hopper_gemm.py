"""The Hopper GEMM example (src/tvm/examples/hopper_gemm.py) compiled end to end without a GPU:
TIRx -> ``tvm.compile(..., tir_pipeline="tirx")`` -> CUDA -> nvcc (sm_90a, spills and wgmma
serialisation warnings treated as errors). The numeric check against torch is
tests/gpu/test_hopper_gemm_gpu.py (GPU only)."""

import re

import pytest

import tvm
from tvm.backend.cuda.nvcc import compile_cuda, find_nvcc
from tvm.examples import hopper_gemm as hg
from tvm.tirx.compilation_pipeline import get_tir_pipeline
from tvm.tirx.stmt_functor import post_order_visit

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def gemm4096():
    return hg.HopperGemm(4096, 4096, 4096)


def _ptx_texts(func):
    found = []

    def visit(node):
        if isinstance(node, tvm.tirx.Call) and node.op.name.startswith("tirx.ptx."):
            found.append(tvm.tirx.ptx._ptx_text(node))

    post_order_visit(func.body, visit)
    return found


def test_kernel_structure(gemm4096):
    ptx = _ptx_texts(gemm4096.func)
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 1
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                     ".mbarrier::complete_tx::bytes") == 2
    assert "setmaxnreg.dec.sync.aligned.u32" in ptx and "setmaxnreg.inc.sync.aligned.u32" in ptx
    assert "mbarrier.arrive.expect_tx.shared::cta.b64" in ptx
    assert "wgmma.wait_group.sync.aligned" in ptx


def test_generated_source(gemm4096):
    src = gemm4096.source()
    head = re.search(r'extern "C" __global__ void (__launch_bounds__\([^)]*\)) hopper_gemm_kernel'
                     r"\(([^)]*)\)", src)
    assert head.group(1) == "__launch_bounds__(384, 1)"
    assert head.group(2) == "unsigned char* __restrict__ tensor_maps_ptr, half* __restrict__ C_ptr"
    assert "extern __shared__" in src
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in src
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in src
    # 128 accumulators in registers, the two descriptors, the scale-d predicate
    wgmma = re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16 \{([^}]*)\}, "
                      r"(%\d+), (%\d+), (P0), 1, 1, 0, 0;", src)
    assert len(wgmma.group(1).split(",")) == 128
    # the descriptor's high bits: 128-byte swizzle, stride 1024 B, leading 16 B
    assert str(hg.smem_descriptor(0)) in src
    # epilogue: f16x2 words (first cvt source in the upper half) stored 4 bytes at a time
    assert "cvt.rn.f16x2.f32 %0, %1, %2;" in src
    assert "((uint*)C_ptr)[word_ptr[0]] = packed_ptr[0];" in src
    # k16 steps of one 64-wide K tile move the descriptor by 32 bytes
    for step in (1, 2, 3):
        assert f"+ (uint){32 * step})" in src


def test_launch_configuration(gemm4096):
    mod = tvm.IRModule({"main": gemm4096.func})
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")
    mod = tvm.tirx.transform.BindTarget(target)(mod)
    lowered = get_tir_pipeline("tirx")(target)(mod)
    kernels = [f for f in lowered.functions.values() if f.get_attr("calling_conv") == 2]
    (kernel,) = kernels
    tags = [str(t) for t in kernel.get_attr("tirx.kernel_launch_params")]
    assert tags == ["blockIdx.x", "threadIdx.x", "tirx.use_dyn_shared_memory"]
    host = lowered["main"].script()
    # 512 CTAs of 384 threads, 4 stages x 48 KB + 1 KB to align the tiles
    assert "512, 384, 197632)" in host


@requires_nvcc
def test_nvcc_compiles_without_spills(gemm4096):
    cubin = compile_cuda(gemm4096.source(), "sm_90a",
                         options=["-Xptxas=--warn-on-spills,--warning-as-error"])
    assert len(cubin) > 10_000


@requires_nvcc
def test_other_sizes_and_stages_compile():
    srcs = [hg.HopperGemm(256, 512, 128, stages=2).source(),
            hg.HopperGemm(1024, 256, 4096, stages=3).source()]
    for src in srcs:
        assert compile_cuda(src, "sm_90a")


def test_smem_descriptor_fields():
    desc = hg.smem_descriptor(0x1_2340)
    assert desc & 0x3FFF == 0x1_2340 >> 4
    assert (desc >> 16) & 0x3FFF == 1  # leading byte offset 16 (unused with a swizzle)
    assert (desc >> 32) & 0x3FFF == 1024 >> 4  # 8 rows x 128 B between core-matrix groups
    assert desc >> 62 == 1  # 128-byte swizzle
    assert hg.smem_descriptor(0, 128, 256, swizzle="none") >> 62 == 0
    assert hg.smem_descriptor(0, swizzle="64B") >> 62 == 2
    assert hg.smem_descriptor(0, swizzle="32B") >> 62 == 3
    expr = hg.smem_descriptor(tvm.tirx.Var("addr", "uint32"))
    assert expr.dtype == "uint64"


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"swizzle": "16B"}, "swizzle must be none, 32B, 64B or 128B"),
    ({"stride_bytes": 24}, "stride_bytes must be a multiple of 16"),
    ({"leading_bytes": 1 << 20}, "leading_bytes must be a multiple of 16 below 256 KB"),
])
def test_smem_descriptor_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hg.smem_descriptor(0, **kwargs)


@pytest.mark.parametrize(("shape", "stages", "match"), [
    ((100, 256, 64), 4, "M=100 must be a positive multiple of 128"),
    ((128, 128, 64), 4, "N=128 must be a positive multiple of 256"),
    ((128, 256, 96), 4, "K=96 must be a positive multiple of 64"),
    ((128, 256, 64), 5, "stages must be 2..4"),
])
def test_bad_sizes(shape, stages, match):
    with pytest.raises(ValueError, match=match):
        hg.hopper_gemm(*shape, stages=stages)


def _tma_sw128_address(base, row, col):
    """Where TMA with CU_TENSOR_MAP_SWIZZLE_128B puts fp16 element (row, col) of a 64-wide
    box (128-byte rows): 16-byte chunk ``c`` of row ``r`` at chunk ``c ^ (r % 8)``."""
    byte = col * 2
    return base + row * 128 + (((byte // 16) ^ (row % 8)) * 16) + byte % 16


def _wgmma_k_major_sw128(desc, row, kk):
    """The address wgmma reads element (row, kk) of a k16 step from (128-byte swizzle)."""
    start = (desc & 0x3FFF) << 4
    stride = ((desc >> 32) & 0x3FFF) << 4
    plain = start + (row // 8) * stride + (row % 8) * 128 + kk * 2
    return plain ^ (((plain >> 7) & 7) << 4)


def test_descriptors_read_what_tma_wrote():
    base = 3 * 1024  # any 1024-aligned tile address
    for step in range(hg.BLOCK_K // 16):  # the kernel's descriptor: tile + 32 bytes per step
        desc = hg.smem_descriptor(base + 32 * step)
        for row in range(hg.BLOCK_N):
            for kk in range(16):
                assert _wgmma_k_major_sw128(desc, row, kk) == _tma_sw128_address(
                    base, row, 16 * step + kk)
