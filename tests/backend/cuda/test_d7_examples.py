# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""Spec D.7 examples 3 and 4 and the Hopper GEMM through ``tvm.compile(...,
tir_pipeline="tirx")``: the instructions the CUDA uses and nvcc on it (one nvcc call per arch
for all kernels). Examples 1 and 2 are compared line by line in test_codegen_tirx.py.

Against Apache TVM 0.27 (``inspect_source()`` of the same kernels, compared by hand when
these tests were written): example 3's kernel body is the same text except three unused
``int cse_v<n> = ...;`` declarations that 0.27's common-subexpression pass leaves behind;
0.27 cannot compile example 4 (its MakePackedAPI reports the TMEM address variable
``tmem_addr.source`` as undefined), so example 4 is checked by its instructions and nvcc
(sm_100a, compile-only: no Blackwell GPU here)."""

import re
import sys
from pathlib import Path

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.examples import hopper_gemm as hg
from tvm.script import tirx as T
from tvm.tirx.layout import S, SwizzleMode, TCol, TileLayout, TLane, mma_shared_layout, tid_in_wg

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
SW128 = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (128, 64))


@T.prim_func
def tile_copy(A_ptr: T.handle, B_ptr: T.handle):
    """D.7 example 3: a 64 x 64 fp16 tile to shared memory and back, 128 threads."""
    T.func_attr({"global_symbol": "tile_copy"})
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    A_smem = T.alloc_buffer((64, 64), "float16", scope="shared")
    Tx.cta.copy(A_smem, A)
    T.cuda.cta_sync()
    Tx.cta.copy(B, A_smem)


@T.prim_func
def tcgen05_gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    """D.7 example 4: TMA loads of A and B into 128-byte-swizzled tiles (mbarrier with
    expect_tx), a 512-column TMEM accumulator, one thread's Tx.gemm_async(tcgen05) and
    commit, then tcgen05.ld into a warpgroup fragment and the deallocation."""
    T.func_attr({"global_symbol": "tcgen05_gemm"})
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    C = T.match_buffer(C_ptr, (128, 128), "float32")
    T.device_entry()
    warp = T.warp_id([4])
    bx = T.cta_id([1])
    wg = T.warpgroup_id([1])
    tid = T.thread_id_in_wg([128])
    A_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=SW128)
    B_smem = T.alloc_buffer((128, 64), "float16", scope="shared", layout=SW128)
    tmem_addr = T.alloc_shared([1], "uint32")
    tma_bar = T.alloc_shared([1], "uint64")
    mma_bar = T.alloc_shared([1], "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(tma_bar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mma_bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
            T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
    tmem = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 512):(1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.copy_async(A_smem[:, :], A[:, :], dispatch="tma_auto", mbar=tma_bar.ptr_to([0]))
        Tx.copy_async(B_smem[:, :], B[:, :], dispatch="tma_auto", mbar=tma_bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(tma_bar.ptr_to([0]), T.uint32(32768))
    T.cuda.mbarrier_wait(tma_bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    if tid == 0:
        Tx.gemm_async(tmem[0:128, 0:128], A_smem[:, :], B_smem[:, :], dispatch="tcgen05")
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(
            mma_bar.ptr_to([0]))
    T.cuda.mbarrier_wait(mma_bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    reg = T.alloc_local(128, dtype="float32")
    frag = reg.view(128, 128, layout=TileLayout(S[(128, 128):(1 @ tid_in_wg, 1)]))
    if wg == 0:
        Tx.wg.copy_async(frag[:, :], tmem[0:128, 0:128])
        T.ptx.tcgen05.wait__ld.sync.aligned()
    T.cuda.cta_sync()
    for k in range(128):
        C[tid, k] = reg[k]
    if warp == 0:
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(512))


def _source(func, arch):
    ex = tvm.compile(func, target={"kind": "cuda", "arch": arch}, tir_pipeline="tirx")
    return ex.mod.imports[0].inspect_source()


def _body(source, name):
    start = source.index("{\n", source.rindex(f"void __launch_bounds__(128) {name}("))
    return [line.strip() for line in source[start + 2:].splitlines() if line.strip()]


@pytest.fixture(scope="module")
def sources():
    return {"tile_copy": _source(tile_copy, "sm_90a"),
            "tcgen05_gemm": _source(tcgen05_gemm, "sm_100a"),
            "hopper_gemm": hg.HopperGemm(256, 512, 192, stages=3, num_ctas=3).source()}


def test_example3_vector_copy_body(sources):
    body = _body(sources["tile_copy"], "tile_copy_kernel")
    # the first copy's loop, as 0.27 prints it (minus its unused cse_v declarations)
    assert body[5:16] == [
        "for (int f = 0; f < 4; ++f) {",
        "alignas(64) int g_lin_ptr[1];",
        "g_lin_ptr[0] = ((f * 1024) + (((int)threadIdx.x) * 8));",
        "alignas(64) int s_off_ptr[1];",
        "s_off_ptr[0] = ((f * 1024) + (((int)threadIdx.x) * 8));",
        "void* s_ptr = (void*)tvm_builtin_pointer_offset((&(A_smem_ptr[0])), s_off_ptr[0]);",
        "void* g_ptr = (void*)tvm_builtin_pointer_offset((&(A_ptr[0])), g_lin_ptr[0]);",
        ("tvm_builtin_ptx_ld_vec_global_v4_u32(tmp_ptr[0], tmp_ptr[1], tmp_ptr[2], tmp_ptr[3], "
         "g_ptr);"),
        ("tvm_builtin_ptx_st_vec_shared_v4_u32(tvm_builtin_cuda_cvta_generic_to_shared(s_ptr), "
         "tmp_ptr[0], tmp_ptr[1], tmp_ptr[2], tmp_ptr[3]);"),
        "}",
        "tvm_builtin_cuda_cta_sync();",
    ]


def _asm(source):
    """The PTX instruction texts inside the generated helpers' asm strings."""
    return re.findall(r'asm volatile\("(?:\{[^;]*;[^;]*; )?([a-z][\w.:]*)', source)


def test_example4_tcgen05_gemm_instructions(sources):
    src = sources["tcgen05_gemm"]
    asm = set(_asm(src))
    for instr in ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                  "mbarrier.init.shared.b64", "mbarrier.arrive.expect_tx.shared.b64",
                  ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                   ".mbarrier::complete_tx::bytes"),
                  "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
                  "tcgen05.fence::after_thread_sync", "tcgen05.ld.sync.aligned.32x32b.x128.b32",
                  "tcgen05.wait::ld.sync.aligned",
                  "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
                  "tcgen05.dealloc.cta_group::1.sync.aligned.b32"):
        assert instr in asm, instr
    assert "tcgen05.mma.cta_group::1.kind::f16" in src
    kernel = src[src.rindex('extern "C"'):]
    assert kernel.count("tcgen05_mma_ss_mma_cta_group__1_kind__f16(") == 4  # K = 64: 4 x k16
    assert "const __grid_constant__ CUtensorMap A_tensormap" in kernel


def test_hopper_gemm_instructions(sources):
    asm = set(_asm(sources["hopper_gemm"]))
    for instr in ("setmaxnreg.dec.sync.aligned.u32", "setmaxnreg.inc.sync.aligned.u32",
                  "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
                  "mbarrier.arrive.expect_tx.shared.b64", "mbarrier.arrive.shared.b64",
                  "fence.mbarrier_init.release.cluster",
                  ("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                   ".mbarrier::complete_tx::bytes"), "cvt.rn.f16x2.f32"):
        assert instr in asm, instr
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" in sources["hopper_gemm"]


@requires_nvcc
def test_nvcc_accepts_all_examples(sources):
    sys.path.insert(0, str(Path(__file__).parent))
    from test_codegen_tirx import scale, tmem  # D.7 examples 1 and 2

    sm90 = [_source(scale, "sm_90a"), sources["tile_copy"], sources["hopper_gemm"]]
    sm100 = [_source(tmem, "sm_100a"), sources["tcgen05_gemm"]]
    assert compile_many(sm90, "sm_90a")[:4] == b"\x7fELF"
    assert compile_many(sm100, "sm_100a")[:4] == b"\x7fELF"
