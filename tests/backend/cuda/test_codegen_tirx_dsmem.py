# ruff: noqa: F841  (TVMScript scope ids and lets define names a kernel need not read)
"""CUDA for distributed shared memory kernels written with raw ``T.ptx`` calls.

One-thread kernels (``T.thread_id([1])``) keep their launch through the pipeline, so the
warp-id shuffle stays in the kernel; ``T.reinterpret`` to a pointer type prints as a C cast;
a bound typed pointer is declared with a cast (as Apache TVM 0.27 prints both). The
expected lines were checked against 0.27's ``inspect_source()`` for the same kernels.
"""

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.ir import PointerType, PrimType
from tvm.script import tirx as T

SHARED_U64 = PointerType(PrimType("uint64"), "shared")


def cuda_source(func):
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        mod = tvm.compile(tvm.IRModule({"main": func}), target=target, tir_pipeline="tirx")
    return mod.mod.imports[0].inspect_source()


def body_lines(source):
    # The kernel's definition follows its declaration: the body after the last ``__global__``.
    start = source.index("{\n", source.rindex("__global__"))
    return [line.strip() for line in source[start + 2:].splitlines() if line.strip() != "}"]


@T.prim_func
def bulk_s2c(A: T.Buffer((64,), "float32")):
    T.device_entry()
    cta_id = T.cta_id([1])
    tid = T.thread_id([1])
    A_smem = T.alloc_shared([64], "float32")
    for i in T.serial(64):
        A_smem[i] = A[i]
    mapped = T.alloc_local([2], "uint64")
    T.ptx.mapa.u64(mapped[0], A_smem.ptr_to([0]), T.uint32(1))
    T.ptx.mapa.u64(mapped[1], A_smem.ptr_to([0]), T.uint32(1))
    T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"](
        T.cast(mapped[0], "uint32"), A_smem.ptr_to([0]), T.uint32(256),
        T.cast(mapped[1], "uint32"))


@T.prim_func
def remote_load(A: T.Buffer((1,), "uint64")):
    T.device_entry()
    cta_id = T.cta_id([1])
    tid = T.thread_id([1])
    mbar = T.alloc_shared([2], "uint64")
    mapped = T.alloc_local([1], "uint64")
    T.ptx.mapa.u64(mapped[0], mbar.ptr_to([0]), T.uint32(0))
    remote_ptr = T.reinterpret(SHARED_U64, mapped[0])
    remote_mbar = T.decl_buffer([1], "uint64", data=remote_ptr, scope="shared")
    A[0] = remote_mbar[0]


def test_one_thread_kernel_keeps_its_launch():
    lines = body_lines(cuda_source(bulk_s2c))
    # The warp id of the only thread: the shuffle is in the kernel, its lane folded to 0.
    assert lines[:3] == ["int warp_id_in_cta = __shfl_sync((uint)4294967295, 0, 0, 32);",
                         "int cta_id = 0;", "int tid = 0;"]
    assert any("tvm_builtin_ptx_cp_async_bulk_s2c" in line and "tvm_builtin_cuda_cvta_generic_to_shared" in line
               for line in lines)


def test_reinterpret_pointer_codegen():
    source = cuda_source(remote_load)
    lines = body_lines(source)
    assert "uint64_t* remote_ptr = (uint64_t*)((uint64_t*)mapped_ptr[0]);" in lines
    assert "A_ptr[0] = remote_ptr[0];" in lines


def test_bound_pointer_is_cast():
    @T.prim_func
    def bound(A: T.Buffer((64,), "float32")):
        T.device_entry()
        cta_id = T.cta_id([1])
        tid = T.thread_id([32])
        A_smem = T.alloc_shared([64], "float32")
        p = A_smem.ptr_to([tid])
        T.evaluate(T.cuda.cvta_generic_to_shared(p))
        A[0] = A_smem[0]

    assert "float* p = (float*)(&(A_smem_ptr[((int)threadIdx.x)]));" in body_lines(
        cuda_source(bound))


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
def test_dsmem_kernels_compile():
    sources = [cuda_source(f) for f in (bulk_s2c, remote_load)]
    for cubin in [nvcc.compile_many(sources, "sm_90a")]:
        assert cubin[:4] == b"\x7fELF"
