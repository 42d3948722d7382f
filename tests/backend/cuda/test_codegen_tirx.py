# ruff: noqa: F841  (TVMScript scope ids and lets define names a kernel need not read)
"""CUDA code generation of TIRx kernels: TVMScript -> the ``tirx`` pipeline -> CUDA -> nvcc.

The kernel bodies are compared with the text Apache TVM 0.27's ``inspect_source()`` gives
for the same kernels (spec D.7 examples 1 and 2); the lines that differ are noted where they
are checked. Every kernel is compiled by nvcc, one call per arch.
"""

import re

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.backend.cuda.codegen_cuda import codegen
from tvm.backend.cuda.codegen_tirx import join_tirx_sources
from tvm.ir.transform import Sequential
from tvm.script import tirx as T
from tvm.tirx import transform as tx
from tvm.tirx.compilation_pipeline import get_tir_pipeline, tirx_kernel_passes

requires_nvcc = pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")


def cuda_source(func, arch, packed=True):
    """TVMScript kernel -> tirx pipeline -> device finalization -> CUDA C.

    ``packed=False`` stops before MakePackedAPI (the host side of a kernel taking a
    ``T.TensorMap()`` is not supported by MakePackedAPI yet)."""
    target = tvm.target.Target({"kind": "cuda", "arch": arch}).with_host("llvm")
    mod = tvm.IRModule({str(func.get_attr("global_symbol")): func})
    mod = tx.BindTarget(target)(mod)
    if packed:
        mod = get_tir_pipeline("tirx")(target)(mod)
    else:
        passes = tirx_kernel_passes(target)
        mod = Sequential([p for p in passes if p.info.name != "tirx.MakePackedAPI"])(mod)
    kernels = {g: f for g, f in mod.functions.items() if f.get_attr("calling_conv") == 2}
    dev = Sequential([tx.LowerWarpMemory(), tx.StmtSimplify(), tx.LowerIntrin()])(
        tvm.IRModule(kernels))
    return codegen(dev, target)


def kernel_body(source, name):
    start = source.index(f"{name}(", source.index("void __launch_bounds__"))
    start = source.index("{\n", source.index(f"{name}(", start + 1))
    return [line.strip() for line in source[start + 2:].splitlines()
            if line.strip() and line.strip() != "}"]


@T.prim_func
def scale(A_ptr: T.handle, B_ptr: T.handle):
    T.func_attr({"global_symbol": "scale"})
    A = T.match_buffer(A_ptr, (256,), "float32")
    B = T.match_buffer(B_ptr, (256,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([256])
    B[tx] = A[tx] * T.float32(2)


@T.prim_func
def tmem(A: T.Buffer((16, 16), "float16")):
    T.func_attr({"global_symbol": "tmem"})
    T.device_entry()
    cta_id = T.cta_id([1])
    warp_id = T.warp_id([4])
    lane_id = T.lane_id([32])
    tid = T.thread_id([128])
    tmem_addr = T.shared_scalar("uint32")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](
            T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
    if warp_id == 0:
        T.ptx["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"]()
        T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"](tmem_addr, T.uint32(512))


@T.prim_func
def hopper_sync(A: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "hopper_sync"})
    T.device_entry()
    cl = T.cta_id_in_cluster([2])
    bx = T.cta_id([2])
    wg = T.warpgroup_id([2])
    tid = T.thread_id([256])
    bar = T.alloc_shared((1,), "uint64")
    done = T.alloc_local((1,), "uint32")
    if tid == 0:
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), 256)
        T.ptx.fence.mbarrier_init.release.cluster()
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.barrier.cluster.arrive.release.aligned()
    T.ptx.barrier.cluster.wait.acquire.aligned()
    if wg == 0:
        T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
    else:
        T.ptx.setmaxnreg.inc.sync.aligned.u32(232)
    if T.cuda.elect_sync():
        A[tid] = T.float32(1)
    T.ptx.mbarrier.arrive.shared__cta.b64(T.address_of(bar[0]))
    T.ptx.mbarrier.try_wait.parity.shared__cta.b64(done[0], T.address_of(bar[0]), 0)
    T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)
    T.cuda.cluster_sync()
    T.cuda.warp_sync()
    T.cuda.thread_fence()


@T.prim_func
def cuda_misc(A: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "cuda_misc"})
    T.device_entry()
    bx = T.cta_id([1])
    tid = T.thread_id([128])
    s = T.cuda.warp_sum(A[tid])
    A[tid] = T.cuda.func_call("twice", s, source_code=(
        "__device__ float twice(float x) { return 2.0f * x; }"), return_type="float32")
    T.cuda.printf("tid %d\n", tid)


@T.prim_func
def tma_load(A_map: T.TensorMap(), B: T.Buffer((64,), "float16")):
    T.func_attr({"global_symbol": "tma_load"})
    T.device_entry()
    bx = T.cta_id([1])
    tid = T.thread_id([128])
    bar = T.alloc_shared((1,), "uint64")
    As = T.alloc_shared((64, 64), "float16")
    if tid == 0:
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), 1)
        T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(T.address_of(bar[0]), 8192)
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            T.address_of(As[0, 0]), T.address_of(A_map), 0, 0, T.address_of(bar[0]))
    T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)
    B[tid % 64] = As[0, tid % 64]


def test_tensor_map_parameter_and_tma_load():
    src = cuda_source(tma_load, "sm_90a", packed=False)
    assert "const __grid_constant__ CUtensorMap A_map" in src
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in src
    assert "((void*)((unsigned long long)(&(A_map))))" in src


def test_scale_kernel_matches_027():
    src = cuda_source(scale, "sm_90a")
    assert ('extern "C" __global__ void __launch_bounds__(256) scale_kernel(float* '
            "__restrict__ A_ptr, float* __restrict__ B_ptr) {") in src
    body = kernel_body(src, "scale_kernel")
    # Apache TVM 0.27's kernel body, line for line.
    assert body == [
        "int warp_id_in_cta = __shfl_sync((uint)4294967295, (((int)threadIdx.x) >> 5), 0, 32);",
        "int bx = 0;",
        "int tx = ((int)threadIdx.x);",
        "B_ptr[((int)threadIdx.x)] = (A_ptr[((int)threadIdx.x)] * 0x1p+1f/*2.000000e+00*/);",
    ]


def test_tmem_kernel_matches_027():
    src = cuda_source(tmem, "sm_100a")
    body = kernel_body(src, "tmem_kernel")
    alloc = "tvm_builtin_ptx_tcgen05_alloc_alloc_cta_group__1_sync_aligned_shared__cta_b32"
    relinquish = ("tvm_builtin_ptx_tcgen05_relinquish_alloc_permit_relinquish_alloc_permit_"
                  "cta_group__1_sync_aligned")
    dealloc = "tvm_builtin_ptx_tcgen05_dealloc_dealloc_cta_group__1_sync_aligned_b32"
    # Apache TVM 0.27's kernel body, line for line (its simplifier substitutes the alias
    # warp_id = warp_id_in_cta into the conditions; floor division/modulo by 32 are >> / &).
    assert body == [
        "int warp_id_in_cta = __shfl_sync((uint)4294967295, (((int)threadIdx.x) >> 5), 0, 32);",
        "int cta_id = 0;",
        "int warp_id = warp_id_in_cta;",
        "int lane_id = (((int)threadIdx.x) & 31);",
        "int tid = ((int)threadIdx.x);",
        "__shared__ alignas(64) uint tmem_addr_ptr[1];",
        "if (warp_id_in_cta == 0) {",
        f"{alloc}(tvm_builtin_cuda_cvta_generic_to_shared((&(tmem_addr_ptr[0]))), (uint)512);",
        "tvm_builtin_cuda_cta_sync();",
        "if (warp_id_in_cta == 0) {",
        f"{relinquish}();",
        f"{dealloc}(tmem_addr_ptr[0], (uint)512);",
    ]
    # One helper per variant, defined once, before the kernel (qualifiers in 0.27's order).
    kernel_at = src.index('extern "C"')
    for name in (alloc, relinquish, dealloc, "tvm_builtin_cuda_cta_sync",
                 "tvm_builtin_cuda_cvta_generic_to_shared"):
        assert src.count(f"__forceinline__ __device__ void {name}(") + src.count(
            f"__forceinline__ __device__ unsigned int {name}(") == 1, name
        assert src.index(f" {name}(") < kernel_at
    assert ('asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"'
            in src)


def test_hopper_sync_kernel_source():
    src = cuda_source(hopper_sync, "sm_90a")
    for text in (
        "mbarrier.init.shared::cta.b64 [%0], %1;",
        "fence.mbarrier_init.release.cluster;",
        "fence.proxy.async.shared::cta;",
        "barrier.cluster.arrive.release.aligned;",
        "barrier.cluster.wait.acquire.aligned;",
        "setmaxnreg.dec.sync.aligned.u32 40;",
        "setmaxnreg.inc.sync.aligned.u32 232;",
        "elect.sync _|P, 0xffffffff;",
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1, %2;",
        "__syncwarp();",
        "__threadfence();",
    ):
        assert text in src, text
    body = "\n".join(kernel_body(src, "hopper_sync_kernel"))
    assert "if (tvm_builtin_cuda_elect_sync()) {" in body
    assert "__shared__ alignas(64) uint64_t bar_ptr[1];" in body
    # The launch: 2 CTAs in clusters of 2, 256 threads.
    assert "__launch_bounds__(256)" in src


def test_cuda_misc_builtins_source():
    src = cuda_source(cuda_misc, "sm_90a")
    assert src.count("__device__ float twice(float x) { return 2.0f * x; }") == 1
    assert "__shfl_xor_sync(0xffffffffu, a, offset, width)" in src
    body = "\n".join(kernel_body(src, "cuda_misc_kernel"))
    assert "twice(" in body
    # As in 0.27 the simplifier substitutes tid = threadIdx.x into the arguments.
    assert 'printf("tid %d\\n", ((int)threadIdx.x));' in body


def test_arch_checked_before_nvcc():
    with pytest.raises(ValueError, match=r"tcgen05\.alloc.*sm_100") as info:
        cuda_source(tmem, "sm_90a")
    assert "T.ptx[" in str(info.value) or "tcgen05" in str(info.value)


def test_unsupported_builtin_names_itself():
    @T.prim_func
    def k(A: T.Buffer((1,), "float32")):
        T.func_attr({"global_symbol": "k"})
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        T.cuda.wgmma.encode_matrix_descriptor(tid, tid, 1, 64, 3)

    with pytest.raises(ValueError, match="wgmma_encode_matrix_descriptor.*not supported yet"):
        cuda_source(k, "sm_90a")


def test_join_tirx_sources_keeps_each_helper_once():
    a, b = cuda_source(scale, "sm_100a"), cuda_source(tmem, "sm_100a")
    c = cuda_source(cuda_misc, "sm_100a")
    joined = join_tirx_sources([a, b, c])
    assert joined.count("__forceinline__ __device__ void tvm_builtin_cuda_cta_sync()") == 1
    assert len(re.findall(r"unsigned int tvm_builtin_cuda_cvta_generic_to_shared\(", joined)) == 1
    with pytest.raises(ValueError, match="appears in two sources"):
        join_tirx_sources([a, a])


@requires_nvcc
def test_nvcc_compiles_all_kernels_one_call_per_arch():
    hopper = join_tirx_sources([cuda_source(f, "sm_90a")
                                for f in (scale, hopper_sync, cuda_misc)]
                               + [cuda_source(tma_load, "sm_90a", packed=False)])
    assert nvcc.compile_cuda(hopper, "sm_90a", "cubin")[:4] == b"\x7fELF"
    blackwell = join_tirx_sources([cuda_source(f, "sm_100a") for f in (tmem, scale)])
    assert nvcc.compile_cuda(blackwell, "sm_100a", "cubin")[:4] == b"\x7fELF"


@pytest.mark.parametrize(("func", "arch", "name"), [(scale, "sm_90a", "scale_kernel"),
                                                    (tmem, "sm_100a", "tmem_kernel")])
def test_tvm_compile_with_tirx_pipeline(func, arch, name):
    lib = tvm.compile(func, target={"kind": "cuda", "arch": arch}, tir_pipeline="tirx")
    source = lib.imports[0].inspect_source()
    assert kernel_body(source, name) == kernel_body(cuda_source(func, arch), name)
    assert lib.imports[0].impl.arch == arch


def test_tvm_compile_rejects_instruction_the_arch_lacks():
    with pytest.raises(ValueError, match=r"tcgen05\.alloc.*requires sm_100"):
        tvm.compile(tmem, target={"kind": "cuda", "arch": "sm_90a"}, tir_pipeline="tirx")


def _attr_kernel(attrs, threads=128):
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.func_attr({"global_symbol": "main"})
        T.device_entry()
        T.attr(attrs)
        bx = T.cta_id([4])
        tx = T.thread_id([threads])
        if tx == 0:
            A[bx] = A[bx] + 1

    return main


@pytest.mark.parametrize(("attrs", "threads", "head"), [
    ({"tirx.launch_bounds_min_blocks_per_sm": 1}, 128, "__launch_bounds__(128, 1) main_kernel"),
    ({"tirx.launch_bounds_min_blocks_per_sm": 1, "tirx.launch_bounds_max_blocks_per_cluster": 1},
     384, "__launch_bounds__(384, 1, 1) main_kernel"),
    ({"tirx.max_registers": 92}, 128, "__maxnreg__(92) main_kernel"),
])
def test_kernel_launch_attributes(attrs, threads, head):
    src = cuda_source(_attr_kernel(attrs, threads), "sm_90a")
    assert f'extern "C" __global__ void {head}(' in src
    assert "tirx." not in src
    if "maxnreg" in head:
        assert "__launch_bounds__" not in src


def test_max_registers_with_launch_bounds_is_rejected():
    attrs = {"tirx.max_registers": 92, "tirx.launch_bounds_min_blocks_per_sm": 1}
    with pytest.raises(tvm.error.InternalError, match="cannot be combined with CUDA launch"):
        cuda_source(_attr_kernel(attrs), "sm_90a")


def test_unroll_pragmas():
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.func_attr({"global_symbol": "main"})
        T.device_entry()
        tx = T.thread_id([32])
        if tx == 0:
            for i in T.serial(4, unroll=True):
                A[i] = A[i] + 1
            for i in T.serial(4, unroll=2):
                A[i] = A[i] + 1
            for i in T.serial(A[0], A[1], unroll=False):
                A[i] = A[i] + 1

    src = cuda_source(main, "sm_90a")
    assert re.search(r"#pragma unroll\n\s*for \(int i = 0; i < 4", src)
    assert re.search(r"#pragma unroll 2\n\s*for \(", src)
    assert re.search(r"#pragma unroll 1\n\s*for \(int i_2 = A_ptr\[0\]", src)


@T.prim_func
def early_return(A: T.Buffer((4,), "int32")):
    T.func_attr({"global_symbol": "early_return"})
    T.device_entry()
    bx = T.cta_id([4])
    tx = T.thread_id([32])
    if bx >= 3:
        return 0
    if tx == 0:
        A[bx] = A[bx] + 1


def test_kernel_return_is_void_early_return():
    # 0.27's text: bx in [0, 4) makes ``bx >= 3`` the last point, and a kernel returns void.
    body = kernel_body(cuda_source(early_return, "sm_90a"), "early_return_kernel")
    assert body[body.index("if (((int)blockIdx.x) == 3) {") + 1] == "return;"
    assert not any("return 0" in line for line in body)


@T.prim_func
def tensor_map_address(A_map: T.TensorMap()):
    T.func_attr({"global_symbol": "tensor_map_address"})
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        T.evaluate(T.address_of(A_map))


def test_tensor_map_address_is_a_u64():
    body = kernel_body(cuda_source(tensor_map_address, "sm_90a", packed=False),
                       "tensor_map_address_kernel")
    assert "((unsigned long long)(&(A_map)));" in body


@requires_nvcc
def test_nvcc_compiles_return_and_tensor_map_address():
    source = join_tirx_sources([cuda_source(early_return, "sm_90a"),
                                cuda_source(tensor_map_address, "sm_90a", packed=False)])
    assert nvcc.compile_cuda(source, "sm_90a", "cubin")[:4] == b"\x7fELF"
