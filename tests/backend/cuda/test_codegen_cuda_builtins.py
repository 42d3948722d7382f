# ruff: noqa: F841  (TVMScript scope ids define names a kernel need not read)
"""``T.cuda.*`` builtins that wrap one CUDA intrinsic: TVMScript kernel -> ``tvm.compile``
(``tir_pipeline="tirx"``) -> CUDA source -> nvcc.

The helper signatures and the intrinsic lines checked here are the ones Apache TVM 0.27's
``inspect_source()`` shows for the same kernels; the kernel sources are compiled by nvcc in
one call per arch.
"""

import re

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.script import tirx as T
from tvm.tirx.cuda_ops import LDG_SCALAR_DTYPES

requires_nvcc = pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")


def source_of(func, arch="sm_100a"):
    target = tvm.target.Target({"kind": "cuda", "arch": arch})
    with target:
        ex = tvm.compile(tvm.IRModule({"main": func}), target=target, tir_pipeline="tirx")
    return ex.mod.imports[0].inspect_source()


def helper_of(src, name):
    """The text of the ``__forceinline__ __device__`` helper ``name`` (to its closing brace)."""
    match = re.search(rf"__forceinline__ __device__ [^{{;]+ {re.escape(name)}\(", src)
    assert match is not None, f"helper {name} not in the source"
    return src[match.start():src.index("\n}\n", match.start()) + 2]


def renamed(src, name):
    """``src`` with its kernel ``main_kernel`` renamed, so that sources join into one unit."""
    return src.replace("main_kernel", name)


@T.prim_func
def builtins(U32: T.Buffer((4,), "uint32"), I32: T.Buffer((2,), "int32"),
             U64: T.Buffer((2,), "uint64"), F32: T.Buffer((4,), "float32"),
             F16: T.Buffer((8,), "float16"), BF: T.Buffer((4,), "bfloat16")):
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        T.cuda.nano_sleep(100)
        T.cuda.atomic_add(I32.data, T.int32(1))
        T.cuda.atomic_add(F32.data, T.float32(1))
        I32[1] = T.cuda.atomic_cas(I32.data, T.int32(1), T.int32(2))
        F32[1] = T.cuda.uint_as_float(U32[0])
        U32[3] = T.cuda.float_as_uint(F32[1])
        F32[3] = T.cuda.fdividef(F32[0], F32[1])
        U32[0] = T.cuda.ballot_sync(T.uint32(0xFFFFFFFF), I32[0])
        I32[0] = T.cuda.any_sync(T.uint32(0xFFFFFFFF), I32[1])
        I32[0] = T.cuda.ffs_u32(U32[0])
        U32[0] = T.cuda.reduce_add_sync_u32(T.uint32(0xFFFFFFFF), U32[0])
        U32[0] = T.cuda.reduce_min_sync_u32(T.uint32(0xFFFFFFFF), U32[0])
        U64[0] = T.cuda.clock64()
        pair: T.let = T.cuda.make_float2(F32[0], F32[1])
        F32[0] = T.cuda.float2_x(pair)
        F32[1] = T.cuda.float2_y(pair)
        U64[1] = T.cuda.fmul2_rn(pair, pair)
        U64[1] = T.cuda.fadd2_rn(pair, pair)
        U32[0] = T.cuda.float22bfloat162_rn(F32[0], F32[1])
        U32[1] = T.cuda.float22bfloat162_rn_from_float2(pair)
        U64[1] = T.cuda.bfloat1622float2(U32[1])
        U32[2] = T.cuda.hmin2(U32[0], U32[1])
        U32[2] = T.cuda.hmax2(U32[0], U32[1])
        U32[2] = T.cuda.fp8x4_e4m3_from_float4(F32[0], F32[1], F32[2], F32[3])
        I32[0] = T.cuda.thread_rank()
        F32[0] = T.cuda.half2float(F16[0])
        F32[0] = T.cuda.bfloat162float(BF[0])
        U32[0] = T.cuda.smem_addr_from_uint64(U64[0])
        U32[1] = T.cuda.sm100_2sm_leader_smem_addr(U32.data)
        I32[1] = T.cuda.mov_sreg(32, "%smid")
        T.cuda.float22half2(F16.data, F32.data)
        T.cuda.half8tofloat8(F16.data, F32.data)
        T.cuda.float8tohalf8(F32.data, F16.data)
        T.cuda.trap_when_assert_failed(I32[0] == 0)


#: builtin helper -> a line its body must hold (as Apache TVM 0.27 writes it).
_EXPECTED = {
    "tvm_builtin_cuda_nano_sleep": "__nanosleep(time);",
    "tvm_builtin_cuda_atomic_add": "atomicAdd(addr, value)",
    "tvm_builtin_cuda_atomic_cas": "atomicCAS(address, compare, val)",
    "tvm_builtin_uint_as_float": "__uint_as_float(bits)",
    "tvm_builtin_float_as_uint": "__float_as_uint(x)",
    "tvm_builtin_cuda_fdividef": "__fdividef(x, y)",
    "tvm_builtin_ballot_sync": "__ballot_sync(mask, pred)",
    "tvm_builtin_cuda_any_sync": "__any_sync(mask, pred)",
    "tvm_builtin_ffs_u32": "__ffs(value)",
    "tvm_builtin_reduce_add_sync_u32": "__reduce_add_sync(mask, value)",
    "tvm_builtin_reduce_min_sync_u32": "__reduce_min_sync(mask, value)",
    "tvm_builtin_clock64": "clock64()",
    "tvm_builtin_make_float2": "make_float2(x, y)",
    "tvm_builtin_fmul2_rn": "__fmul2_rn(lhs, rhs)",
    "tvm_builtin_fadd2_rn": "__fadd2_rn(lhs, rhs)",
    "tvm_builtin_float22bfloat162_rn": "__float22bfloat162_rn(make_float2(x, y))",
    "tvm_builtin_bfloat1622float2": "__bfloat1622float2(value)",
    "tvm_builtin_hmin2": "__hmin2(lhs, rhs)",
    "tvm_builtin_hmax2": "__hmax2(lhs, rhs)",
    "tvm_builtin_fp8x4_e4m3_from_float4": "__nv_fp8x4_e4m3(make_float4(x, y, z, w))",
    "tvm_builtin_cuda_thread_rank": "this_thread_block().thread_rank()",
    "tvm_builtin_cuda_half2float": "__half2float(src)",
    "tvm_builtin_cuda_bfloat162float": "__bfloat162float(src)",
    "tvm_builtin_cuda_smem_addr_from_uint64": "static_cast<unsigned int>(cluster_addr)",
    "tvm_builtin_ptx_fetch_register_smid": "mov.u32 %0, %%smid;",
    "tvm_builtin_cuda_float22half2": "__float22half2_rn(",
    "tvm_builtin_cuda_half8tofloat8": "__half22float2(src[i])",
    "tvm_builtin_cuda_float8tohalf8": "__float22half2_rn(src[i])",
    "tvm_builtin_cuda_trap_when_assert_failed": 'asm("trap;");',
}


def test_builtins_print_as_their_names():
    text = builtins.script()
    assert "T.cuda.atomic_cas(I32.data, 1, 2)" in text
    assert "pair: T.let[T.uint64] = T.cuda.make_float2(F32[0], F32[1])" in text
    # sm100_2sm_leader_smem_addr is an expression of cvta_generic_to_shared, not an op.
    assert "T.cuda.cvta_generic_to_shared(U32.data) & T.uint32(4278190079)" in text
    assert 'T.cuda.mov_sreg(32, "smid")' in text
    assert tvm.ir.structural_equal(tvm.script.from_source(text), builtins)


def test_builtins_helpers_and_calls():
    src = source_of(builtins)
    for helper, line in _EXPECTED.items():
        assert line in helper_of(src, helper), helper
    body = src[src.rindex("__global__ void"):]
    # The atomics pass a pointer of the value's type, so the template argument is deduced.
    assert "tvm_builtin_cuda_atomic_add(((int*)I32_ptr), 1);" in body
    assert "tvm_builtin_cuda_atomic_add(((float*)F32_ptr), 0x1p+0f" in body
    assert "I32_ptr[1] = tvm_builtin_cuda_atomic_cas(((int*)I32_ptr), 1, 2);" in body
    assert "(tvm_builtin_cuda_cvta_generic_to_shared(U32_ptr) & (uint)4278190079)" in body
    assert "uint64_t pair = tvm_builtin_make_float2(F32_ptr[0], F32_ptr[1]);" in body
    # Helpers that need a header carry it, for sources joined into one translation unit.
    assert "#include <cooperative_groups.h>" in src
    assert "#include <cuda_fp8.h>" in src


def _ldg_scalar(dtype):
    @T.prim_func
    def main(src: T.Buffer((1,), dtype), out: T.Buffer((1,), dtype)):
        T.device_entry()
        tx = T.thread_id([32])
        if tx == 0:
            out[0] = T.cuda.ldg(src.data, dtype)

    return main


_LDG_SUFFIX = {"int8": ("i8", "signed char"), "uint8": ("u8", "unsigned char"),
               "int16": ("i16", "short"), "uint16": ("u16", "unsigned short"),
               "int32": ("i32", "int"), "uint32": ("u32", "unsigned int"),
               "int64": ("i64", "long long"), "uint64": ("u64", "unsigned long long"),
               "float16": ("f16", "half"), "bfloat16": ("bf16", "nv_bfloat16"),
               "float32": ("f32", "float"), "float64": ("f64", "double")}


def test_ldg_scalar_every_dtype():
    assert set(_LDG_SUFFIX) == set(LDG_SCALAR_DTYPES)
    for dtype, (suffix, cty) in _LDG_SUFFIX.items():
        src = source_of(_ldg_scalar(dtype))
        helper = helper_of(src, f"tvm_builtin_cuda_ldg_{suffix}")
        assert f"__forceinline__ __device__ {cty} tvm_builtin_cuda_ldg_{suffix}(void* src)" \
            in helper
        assert f"return __ldg(reinterpret_cast<const {cty}*>(src));" in helper
        assert f"out_ptr[0] = tvm_builtin_cuda_ldg_{suffix}(src_ptr);" in src


@T.prim_func
def ldg_vectors(src: T.Buffer((4,), "float32"), isrc: T.Buffer((2,), "uint32"),
                out: T.Buffer((6,), "float32")):
    T.device_entry()
    tx = T.thread_id([32])
    t = T.alloc_local((4,), "float32")
    u = T.alloc_local((2,), "uint32")
    if tx == 0:
        T.cuda.ldg(src.data, "float32", dst=(t.ptr_to([0]), t.ptr_to([1]), t.ptr_to([2]),
                                             t.ptr_to([3])), vec="v4")
        T.cuda.ldg(isrc.data, "uint32", dst=(u.ptr_to([0]), u.ptr_to([1])), vec="v2")
        for i in range(4):
            out[i] = t[i]
        out[4] = T.Cast("float32", u[0])
        out[5] = T.Cast("float32", u[1])


def test_ldg_vector_forms():
    text = ldg_vectors.script()
    assert ('T.cuda.ldg(T.address_of(u[0]), T.address_of(u[1]), isrc.data, "uint32", "v2", 2)'
            in text)
    assert tvm.ir.structural_equal(tvm.script.from_source(text), ldg_vectors)
    src = source_of(ldg_vectors)
    v4 = helper_of(src, "tvm_builtin_cuda_ldg_f32_v4_to_dst4")
    assert "float4 v = __ldg(reinterpret_cast<const float4*>(src));" in v4
    assert "*reinterpret_cast<float*>(dst3) = v.w;" in v4
    v2 = helper_of(src, "tvm_builtin_cuda_ldg_u32_v2_to_dst2")
    assert "uint2 v = __ldg(reinterpret_cast<const uint2*>(src));" in v2
    assert "*reinterpret_cast<unsigned int*>(dst1) = v.y;" in v2


@pytest.mark.parametrize(("kwargs", "kind", "words"), [
    ({"dtype": "float16", "dst": 2, "vec": "v2"}, ValueError, "Unsupported vector CUDA __ldg"),
    ({"dtype": "int32", "dst": 1, "vec": "v2"}, ValueError, "stores 2 lanes"),
    ({"dtype": "int32", "dst": 2, "vec": "v3"}, ValueError, "vec must be"),
    ({"dtype": "int32", "dst": None, "vec": "v4"}, ValueError, "needs dst="),
    ({"dtype": "int32", "dst": 2, "vec": ""}, ValueError, "dst= needs a vector form"),
    ({"dtype": "int4", "dst": None, "vec": ""}, ValueError, "Unsupported CUDA __ldg dtype"),
    ({"dtype": 3, "dst": None, "vec": ""}, TypeError, "dtype must be a dtype string"),
])
def test_ldg_bad_arguments(kwargs, kind, words):
    ptr = tvm.tirx.Var("p", "handle")
    dst = None if kwargs["dst"] is None else tuple([ptr] * kwargs["dst"])
    with pytest.raises(kind, match=words):
        T.cuda.ldg(ptr, kwargs["dtype"], dst=dst, vec=kwargs["vec"])


def test_ldg_bad_vector_dtype_in_kernel_is_a_diagnostic():
    with pytest.raises(tvm.error.DiagnosticError, match="Unsupported vector CUDA __ldg"):
        @T.prim_func
        def bad(src: T.Buffer((2,), "float16")):
            T.device_entry()
            tx = T.thread_id([32])
            t = T.alloc_local((2,), "float16")
            T.cuda.ldg(src.data, "float16", dst=(t.ptr_to([0]), t.ptr_to([1])), vec="v2")


def test_other_bad_arguments():
    ptr = tvm.tirx.Var("p", "handle")
    with pytest.raises(ValueError, match="bits must be 32 or 64"):
        T.cuda.mov_sreg(16, "smid")
    with pytest.raises(ValueError, match="not a PTX special register"):
        T.cuda.mov_sreg(32, "sm id")
    with pytest.raises(TypeError, match="atomic_add value must be a PrimExpr"):
        T.cuda.atomic_add(ptr, "one")


@T.prim_func
def waits(A: T.Buffer((1,), "int32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    bar = T.alloc_buffer((2,), "uint64", scope="shared", align=16)
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    T.cuda.mbarrier_wait_acquire_cluster(bar.ptr_to([1]), 1)
    T.cuda.grid_sync()


def test_mbarrier_waits_and_grid_sync():
    src = source_of(waits)
    wait = helper_of(src, "tvm_builtin_cuda_mbarrier_wait")
    assert "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1, %2;" in wait
    assert "uint32_t ticks = 0x989680;" in wait
    cluster = helper_of(src, "tvm_builtin_cuda_mbarrier_wait_acquire_cluster")
    assert "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P1, [%0], %1;" in cluster
    assert "cooperative_groups::this_grid().sync();" in helper_of(
        src, "tvm_builtin_cuda_grid_sync")


@requires_nvcc
def test_nvcc_compiles_the_builtin_kernels():
    sources = [source_of(builtins), source_of(ldg_vectors), source_of(waits)]
    sources += [renamed(source_of(_ldg_scalar(d)), f"ldg_{d}_kernel") for d in _LDG_SUFFIX]
    cubin = nvcc.compile_many(sources, "sm_100a")
    assert cubin[:4] == b"\x7fELF"


@T.prim_func
def reductions(A: T.Buffer((128,), "float32"), I: T.Buffer((128,), "int32"),
               B: T.Buffer((3,), "float32"), J: T.Buffer((1,), "int32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    scratch = T.alloc_shared([4], "float32")
    iscratch = T.alloc_shared([4], "int32")
    B[0] = T.cuda.cta_sum(A[tx], 4, scratch.data)
    B[1] = T.cuda.cta_max(A[tx], 4, scratch.data)
    B[2] = T.cuda.warp_sum(A[tx])
    J[0] = T.cuda.cta_min(I[tx], 4, iscratch.data)


def test_cta_reduce():
    src = source_of(reductions, "sm_90a")
    sum4 = helper_of(src, "tvm_builtin_cuda_cta_reduce_sum_4")
    assert sum4.startswith("__forceinline__ __device__ T tvm_builtin_cuda_cta_reduce_sum_4(")
    assert "a = lane < 4 ? scratch[lane] : T(0);" in sum4
    # max / min fill the lanes past num_warps with a real partial: no identity needed.
    assert "a = lane < 4 ? scratch[lane] : scratch[0];" in helper_of(
        src, "tvm_builtin_cuda_cta_reduce_max_4")
    assert "J_ptr[0] = tvm_builtin_cuda_cta_reduce_min_4(I_ptr[" in src
    with pytest.raises(ValueError, match="num_warps must be a power of two"):
        T.cuda.cta_sum(T.float32(1), 3, tvm.tirx.Var("s", "handle"))


@requires_nvcc
def test_nvcc_compiles_cta_reduce():
    assert nvcc.compile_cuda(source_of(reductions, "sm_90a"), "sm_90a")[:4] == b"\x7fELF"


@T.prim_func
def waits_for_flags(U32: T.Buffer((4,), "uint32"), I64: T.Buffer((4,), "int64")):
    T.device_entry()
    tx = T.thread_id([32])
    v = T.local_scalar("uint32")
    w = T.local_scalar("int64")
    T.cuda.wait_until(v, U32.data, v == T.uint32(1))
    T.cuda.wait_until(w, I64.data, w >= T.int64(3), scope="sys", backoff_ns=64)
    I64[1] = w


def test_wait_until():
    text = waits_for_flags.script()
    assert 'T.cuda.wait_until(v, U32.data, v == T.uint32(1), "gpu", "global", "", 0)' in text
    assert tvm.ir.structural_equal(tvm.script.from_source(text), waits_for_flags)
    src = source_of(waits_for_flags, "sm_90a")
    assert "ld.relaxed.gpu.global.u32 %0, [%1];" in helper_of(
        src, "tvm_builtin_cuda_wait_until_relaxed_gpu_global_u32")
    assert "ld.acquire.sys.global.s64 %0, [%1];" in helper_of(
        src, "tvm_builtin_cuda_wait_until_acquire_sys_global_s64")
    assert "while (!((v_ptr[0] == (uint)1))) {" in src
    assert "__nanosleep(64); tvm_builtin_cuda_wait_until_relaxed_sys_global_s64(w_ptr[0]" in src


@requires_nvcc
def test_nvcc_compiles_wait_until():
    assert nvcc.compile_cuda(source_of(waits_for_flags, "sm_90a"), "sm_90a")[:4] == b"\x7fELF"


@pytest.mark.parametrize(("call", "words"), [
    ('T.cuda.wait_until(A[0], A.data, A[0] == 1)', "dst must be a writable thread-local"),
    ('T.cuda.wait_until(v, A.data, v == 1, scope="device")', "scope must be one of"),
    ('T.cuda.wait_until(v, A.data, v == 1, space="shared")', "space 'shared' is not supported"),
    ('T.cuda.wait_until(f, A.data, f == T.float32(1))', "no PTX load type for a float32"),
])
def test_wait_until_bad_arguments(call, words):
    source = f'''
@T.prim_func
def k(A: T.Buffer((4,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    v = T.local_scalar("int32")
    f = T.local_scalar("float32")
    {call}
'''
    with pytest.raises(tvm.error.DiagnosticError, match=words):
        tvm.script.from_source(source)
