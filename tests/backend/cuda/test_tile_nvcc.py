"""The CUDA tile-primitive variants end to end: TIRx kernels with Tx copies, cp.async copies,
elementwise ops and reductions compiled with ``tvm.compile(..., tir_pipeline="tirx")`` to CUDA
source that nvcc accepts for sm_90a (one nvcc call for all kernels). Needs the CUDA code generation of T.ptx /
T.cuda calls (``tvm.backend.cuda.codegen_tirx``) and nvcc; skipped without them."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import importlib.util

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.script import tirx as T

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("tvm.backend.cuda.codegen_tirx") is None,
                       reason="CUDA codegen of T.ptx/T.cuda calls is not present yet"),
    pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found"),
]

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


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


@T.prim_func
def elementwise(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float16")):
    T.device_entry()
    bx = T.cta_id([1])
    warp = T.warp_id([2])
    lane = T.lane_id([32])
    tx = T.thread_id([64])
    S = T.alloc_buffer((8, 16), "float32", scope="shared")
    R = T.alloc_local((8,), "float32")
    Tx.warp.copy(S, A)
    Tx.warp.exp(S, S)
    Tx.warp.fma(S, S, T.float32(2), T.float32(1))
    Tx.copy(R, S[lane % 8, 0:8])
    Tx.warp.add(R, R, T.float32(1))
    Tx.copy(S[lane % 8, 8:16], R)
    Tx.cta.cast(B, S)


@T.prim_func
def reductions(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32"),
               C: T.Buffer((1,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_buffer((4, 64), "float32", scope="shared")
    Tx.cta.copy(S, A)
    T.cuda.cta_sync()
    Tx.warp.sum(B, S, [1])
    Tx.cta.max(C, S, [0, 1])


@T.prim_func
def registers(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "float32"),
              C: T.Buffer((64,), "float64"), E: T.Buffer((64,), "int8")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    R = T.alloc_local((16,), "float16")
    Q = T.alloc_local((8,), "float32")
    D = T.alloc_local((2,), "float64")
    I8 = T.alloc_local((8,), "int8")
    Tx.copy(R, A[0:16])
    Tx.copy(A[16:32], R)
    Tx.copy(Q[4:8], B[tx * 4:tx * 4 + 4], dispatch="vec_128b")
    Tx.copy(B[8:10], Q[0:2], dispatch="vec_64b")
    Tx.copy(D, C[0:2])
    Tx.copy(C[2:4], D)
    Tx.copy(I8, E[0:8])
    Tx.copy(E[8:16], I8)
    Tx.copy(A[33:34], R[1:2], dispatch="vec_16b")


@T.prim_func
def async_copy(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 6), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_buffer((64, 64), "float16", scope="shared")
    S2 = T.alloc_buffer((64, 4), "float32", scope="shared")
    Tx.cta.copy_async(S, A)
    Tx.cta.copy_async(S2, B[0:64, 2:6])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(A, S)


def test_kernels_compile_with_nvcc_sm90a():
    # one module, so one generated source holds every helper the kernels call
    funcs = {"d7_copy": d7_copy, "elementwise": elementwise, "reductions": reductions,
             "registers": registers, "async_copy": async_copy}
    mod = tvm.IRModule({name: f.with_attr("global_symbol", name) for name, f in funcs.items()})
    lib = tvm.compile(mod, target=TARGET, tir_pipeline="tirx")
    src = getattr(lib, "mod", lib).imports[0].inspect_source()
    d7 = src[src.index("d7_copy_kernel("):]
    # spec D.7 example 3: 16-byte vectors, 4 steps, the pointer-offset helper, shared window
    assert "for (int f = 0; f < 4; ++f)" in d7
    assert "tvm_builtin_ptx_ld_vec_global_v4_u32(" in d7
    assert "tvm_builtin_ptx_st_vec_shared_v4_u32(tvm_builtin_cuda_cvta_generic_to_shared(" in d7
    assert "tvm_builtin_pointer_offset((&(A_smem_ptr[0]))" in d7
    assert "ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" in src
    assert "cp.async.cg.shared.global" in src and "cp.async.ca.shared.global" in src
    for name in funcs:
        assert f"{name}_kernel(" in src
    cubin = compile_many([src], "sm_90a")
    assert len(cubin) > 0
