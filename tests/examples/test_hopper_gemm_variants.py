"""The wgmma variant tiles (src/tvm/examples/hopper_gemm_variants.py) compiled end to end
without a GPU: TMA loads into swizzled tiles, one ``Tx.wg.gemm_async`` per kind (tf32, fp8
e4m3 / e5m2, MN-major B), the fragment store; all through nvcc for sm_90a in one call with
spills as errors. The numbers are checked on a Hopper GPU by benchmarks/gpu_check.py."""

import re

import pytest

from tvm.backend.cuda.nvcc import compile_cuda, find_nvcc, join_sources
from tvm.examples import hopper_gemm_variants as hv

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")

FORMS = {"tf32": "m64n128k8.f32.tf32.tf32", "fp8_e4m3": "m64n256k32.f32.e4m3.e4m3",
         "fp8_e5m2": "m64n64k32.f32.e5m2.e5m2", "f16_mn_major_b": "m64n128k16.f32.f16.f16",
         "bf16_mn_major_b": "m64n256k16.f32.bf16.bf16"}


@pytest.fixture(scope="module")
def tiles():
    return {name: hv.WgmmaTile(dtype, N, K, trans_b)
            for name, dtype, N, K, trans_b in hv.VARIANTS}


def test_each_variant_uses_its_wgmma_form(tiles):
    for name, dtype, N, K, trans_b in hv.VARIANTS:
        src = tiles[name].source()
        form = FORMS[name]
        assert f"wgmma.mma_async.sync.aligned.{form}" in src, name
        # one instruction per 32 bytes of K
        k_step = int(re.search(r"k(\d+)\.", form).group(1))
        calls = re.findall(r"\n\s+tvm_builtin_ptx_wgmma_\w+_mma_async\w*\(", src)
        assert len(calls) == K // k_step, name
        # the 16-bit forms end with the transposes: imm-trans-b is 1 for an MN-major B
        if k_step == 16:
            assert re.search(rf"_imm1_1_0_{int(trans_b)}\(", src), name
        assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile" in src


@requires_nvcc
def test_variants_compile_with_nvcc(tiles):
    srcs = [tiles[name].source().replace("wgmma_tile_kernel", f"wgmma_tile_{name}")
            for name, *_ in hv.VARIANTS]
    assert compile_cuda(join_sources(srcs), "sm_90a",
                        options=["-Xptxas=--warn-on-spills,--warning-as-error"])


@pytest.mark.parametrize(("args", "match"), [
    (("float16", 64, 32, False), "K=32 \\(float16\\) must span whole 128-byte lines"),
    (("float16", 100, 64, False), "N=100 be a multiple of 8"),
    (("float16", 32, 64, True), "an MN-major B needs N=32 in whole 128-byte lines"),
])
def test_bad_shapes(args, match):
    with pytest.raises(ValueError, match=match):
        hv.wgmma_tile(*args)
