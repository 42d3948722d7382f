"""CUDA source generation: TVMScript -> lower_for_cuda -> codegen -> nvcc, without tvm.compile.

Kernel bodies were checked line by line against Apache TVM 0.27's CUDA output for the same
scripts (``tvm.compile(f, target={"kind": "cuda", "arch": "sm_90a"})`` with CSE disabled).
Every generated kernel is compiled by nvcc for sm_80 and sm_90a, all kernels in one
translation unit per arch (nvcc costs about 1.2 s per call).
"""

import pathlib
import sys

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.backend.cuda.codegen_cuda import codegen
from tvm.backend.cuda.module import build_cuda, lower_for_cuda
from tvm.ir.type import PointerType, PrimType
from tvm.script import tirx as T

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from cuda_kernels import ALL, CONVERSION_DTYPES, conversion

TARGET = {"kind": "cuda", "arch": "sm_90a"}
requires_nvcc = pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")


def _source(name):
    _, device = lower_for_cuda(ALL[name], TARGET)
    return build_cuda(device, TARGET).inspect_source()


def _body(source, kernel):
    head = f"{kernel}("
    start = source.index(" {\n", source.rindex(head))
    return source[start + 3: source.index("\n}\n", start)]


def _conversion_sources():
    out = {}
    for src in CONVERSION_DTYPES:
        for dst in CONVERSION_DTYPES:
            if src != dst:
                _, device = lower_for_cuda(conversion(src, dst), TARGET)
                out[f"conv_{src}_{dst}"] = build_cuda(device, TARGET).inspect_source()
    return out


@pytest.fixture(scope="module")
def sources():
    """Every test kernel's source, plus one cast kernel per pair of dtypes."""
    found = {name: _source(name) for name in ALL}
    found.update(_conversion_sources())
    return found


def test_scale_kernel_matches_tvm_text(sources):
    src = sources["scale"]
    sig = ('extern "C" __global__ void __launch_bounds__(256) scale_kernel('
           "float* __restrict__ A_ptr, float* __restrict__ B_ptr)")
    assert sig + ";" in src
    assert sig + " {" in src
    assert _body(src, "scale_kernel") == (
        "  B_ptr[((int)threadIdx.x)] = (A_ptr[((int)threadIdx.x)] * 0x1p+1f/*2.000000e+00*/);"
    )


def test_two_dimensional_launch_and_math(sources):
    body = _body(sources["add2d"], "add2d_kernel")
    index = ("((((((int)blockIdx.y) * 1024) + (((int)threadIdx.y) * 128)) + "
             "(((int)blockIdx.x) * 32)) + ((int)threadIdx.x))")
    assert body == f"  C_ptr[{index}] = (A_ptr[{index}] + expf(B_ptr[{index}]));"
    assert "__launch_bounds__(256) add2d_kernel" in sources["add2d"]  # 8 x 32 threads


def test_symbolic_bound_and_scalar_parameter(sources):
    src = sources["bounded"]
    assert "bounded_kernel(float* __restrict__ A_ptr, float* __restrict__ B_ptr, int n)" in src
    body = _body(src, "bounded_kernel")
    assert body.startswith("  if (((((int)blockIdx.x) * 128) + ((int)threadIdx.x)) < n) {")
    assert "tanhf(" in body and "sqrtf(fabsf(" in body


def test_warp_shuffle_reduction(sources):
    body = _body(sources["warp_sum"], "warp_sum_kernel").splitlines()
    assert body[0] == "  alignas(64) float red_ptr[1];"
    assert body[1] == "  alignas(64) uint mask_ptr[1];"
    assert "  mask_ptr[0] = __activemask();" in body
    assert ("  red_ptr[0] = (red_ptr[0] + __shfl_down_sync(mask_ptr[0], red_ptr[0], 16, 32));"
            in body)
    assert "  red_ptr[0] = __shfl_sync(mask_ptr[0], red_ptr[0], 0, 32);" in body


def test_shared_memory_tiles_and_barriers(sources):
    body = _body(sources["matmul"], "matmul_kernel")
    assert "__shared__ alignas(64) float As_ptr[256];" in body
    assert "__shared__ alignas(64) float Bs_ptr[256];" in body
    assert body.count("__syncthreads();") == 2
    assert ("acc_ptr[0] = (acc_ptr[0] + (As_ptr[((((int)threadIdx.y) * 16) + k1)] * "
            "Bs_ptr[((k1 * 16) + ((int)threadIdx.x))]));") in body
    assert "for (int k1 = 0; k1 < 16; ++k1) {" in body


def test_half_bfloat16_fp8(sources):
    src = sources["half_bf16"]
    for header in ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h"):
        assert f"#include <{header}>" in src
    assert ("half* __restrict__ A_ptr, nv_bfloat16* __restrict__ B_ptr, float* __restrict__ "
            "C_ptr, __nv_fp8_e4m3* __restrict__ D_ptr") in src
    body = _body(src, "half_bf16_kernel")
    assert "((float)hexp(A_ptr[" in body
    assert "__float2bfloat16_rn(0x1p-1f/*5.000000e-01*/)" in body
    assert "] = ((__nv_fp8_e4m3)C_ptr[" in body
    assert "#include <cuda_fp16.h>" not in sources["scale"]


def test_vector_float4_load_store(sources):
    body = _body(sources["vec4"], "vec4_kernel").splitlines()
    addr = "((((int)blockIdx.x) * 256) + (((int)threadIdx.x) * 4))"
    assert body[0] == f"  float4 tmp = *(float4*)(A_ptr + {addr});"
    assert body[1].startswith("  float4 tmp_1 = make_float4(0x1.8p+1f/*3.000000e+00*/, ")
    assert "  vec.w = (tmp.w * tmp_1.w);" in body
    assert body[-1] == f"  *(float4*)(B_ptr + {addr}) = vec;"


def test_vector_half2_and_bfloat162(sources):
    body = _body(sources["vec_half"], "vec_half_kernel").splitlines()
    assert body[0] == "  half2 tmp = *(half2*)(A_ptr + (((int)threadIdx.x) * 2));"
    assert body[1].startswith("  half2 tmp_1 = make_half2(__float2half_rn(0x1p+0f")
    assert "  vec.y = (tmp.y + tmp_1.y);" in body
    assert any(line.startswith("  nv_bfloat162 tmp_3 = make_bfloat162(") for line in body)


def test_dynamic_shared_memory(sources):
    body = _body(sources["dyn_shared"], "dyn_shared_kernel").splitlines()
    assert body[0] == "  extern __shared__ __align__(16) unsigned char buf_dyn_shmem[];"
    assert body[1] == "  float* S_ptr = (float*)(buf_dyn_shmem + 0);"
    assert body[2] == "  int* I_ptr = (int*)(buf_dyn_shmem + 1024);"


def test_dynamic_shared_memory_of_symbolic_size():
    host, device = lower_for_cuda(ALL["dyn_symbolic"], TARGET)
    # n floats rounded up to 16 bytes, then 4 halves (8 bytes) rounded up to 16.
    assert ('T.call_packed("dyn_symbolic_kernel", A.data, n, 256, (n * 4 + 15) // 16 * 16 + 16)'
            in host.script())
    body = _body(build_cuda(device, TARGET).inspect_source(), "dyn_symbolic_kernel")
    # 0.27 lowers floor division by a power of two to a shift (exact for negatives too).
    assert "  half* H_ptr = (half*)(buf_dyn_shmem + ((((n * 4) + 15) >> 4) * 16));" in body


def test_atomic_add_through_address_of(sources):
    assert _body(sources["atomic"], "atomic_kernel") == (
        "  atomicAdd((&(B_ptr[0])), A_ptr[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))]);"
    )


def test_constants_floordiv_select_unroll(sources):
    body = _body(sources["misc"], "misc_kernel")
    assert "__float2half_rn(0x1.8p+0f/*1.500000e+00*/)" in body
    assert "__hmax(" in body
    assert "* 2.500000000000000) + CUDART_INF);" in body
    assert "(C_ptr[((int)threadIdx.x)] + (int64_t)3)" in body
    # The T.unroll loop is unrolled by UnrollLoop; the k = 0 step is a no-op store.
    assert "  D_ptr[((int)threadIdx.x)] = (D_ptr[((int)threadIdx.x)] + 3);" in body
    assert "for (" not in body
    assert "(D_ptr[((int)threadIdx.x)] / n)" in body  # floordiv by a symbolic divisor


def test_conversions_between_narrow_floats(sources):
    body = _body(sources["conv_float8_e4m3fn_float8_e5m2"], "conv_float8_e4m3fn_float8_e5m2_kernel")
    assert body == ("  B_ptr[((int)threadIdx.x)] = ((__nv_fp8_e5m2)((float)"
                    "A_ptr[((int)threadIdx.x)]));")
    body = _body(sources["conv_float16_bfloat16"], "conv_float16_bfloat16_kernel")
    assert body == "  B_ptr[((int)threadIdx.x)] = ((nv_bfloat16)A_ptr[((int)threadIdx.x)]);"


def test_function_info_for_the_launcher():
    _, device = lower_for_cuda(ALL["dyn_shared"], TARGET)
    mod = build_cuda(device, TARGET)
    assert mod.kind == "cuda"
    assert mod.function_names() == ["dyn_shared_kernel"]
    info = mod.impl.function_info["dyn_shared_kernel"]
    assert info["arg_types"] == ["handle", "handle"]
    assert info["launch_param_tags"] == ["blockIdx.x", "threadIdx.x", "tirx.use_dyn_shared_memory"]
    assert mod.get_source() == mod.inspect_source()
    host, _ = lower_for_cuda(ALL["dyn_shared"], TARGET)
    assert 'T.call_packed("dyn_shared_kernel", A.data, B.data, 4, 256, 2048)' in host.script()


def test_module_writes_its_source(tmp_path):
    _, device = lower_for_cuda(ALL["scale"], TARGET)
    mod = build_cuda(device, TARGET)
    path = tmp_path / "scale.cu"
    mod.write_to_file(str(path))
    assert path.read_text() == mod.inspect_source()
    assert mod.get_write_formats() == ["cu", "cubin"]
    with pytest.raises(ValueError, match="unknown source format 'll'"):
        mod.inspect_source("ll")


def test_grid_constant_tensor_map_parameter():
    from tvm import tirx

    tmap = tirx.Var("tmap", PointerType(PrimType("uint8"), "tensormap"))

    @T.prim_func
    def body_src(A: T.Buffer((32,), "float32")):
        tx = T.launch_thread("threadIdx.x", 32)
        A[tx] = T.float32(0)

    data = body_src.buffer_map[body_src.params[0]].data
    func = tirx.PrimFunc([data, tmap], body_src.body).with_attr("global_symbol", "tma")
    src = codegen(func)
    assert "tma(float* __restrict__ A, const __grid_constant__ CUtensorMap tmap)" in src


def test_codegen_errors_name_the_construct():
    @T.prim_func
    def global_alloc(A: T.Buffer((32,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            G = T.alloc_buffer((32,), "float32", scope="global")
            G[tx] = A[tx]
            A[tx] = G[tx]

    _, device = lower_for_cuda(global_alloc, TARGET)
    with pytest.raises(ValueError, match="storage scope 'global'.*shared, shared.dyn or local"):
        codegen(device)


@requires_nvcc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_every_kernel_compiles_with_nvcc(sources, arch):
    cubin = nvcc.compile_many(sources.values(), arch)
    assert cubin[:4] == b"\x7fELF"


@requires_nvcc
def test_nvcc_error_shows_the_offending_line():
    src = 'extern "C" __global__ void broken(float* a) {\n  a[0] = undefined_name;\n}\n'
    with pytest.raises(nvcc.CUDACompileError) as err:
        nvcc.compile_cuda(src, "sm_80")
    text = str(err.value)
    assert "undefined_name" in text
    assert ">>     2 |   a[0] = undefined_name;" in text


def test_nvcc_missing_or_bad_arguments(monkeypatch):
    with pytest.raises(ValueError, match="fmt must be one of"):
        nvcc.compile_cuda("", fmt="elf")
    with pytest.raises(ValueError, match="target_arch must look like"):
        nvcc.compile_cuda("", target_arch="hopper")
    monkeypatch.setattr(nvcc, "find_nvcc", lambda: None)
    with pytest.raises(RuntimeError, match="nvcc was not found"):
        nvcc.compile_cuda("", "sm_80")


def test_join_sources_keeps_one_preamble_and_rejects_duplicates(sources):
    joined = nvcc.join_sources([sources["scale"], sources["vec4"]])
    assert joined.count("#include <cuda.h>") == 1
    assert "scale_kernel(" in joined and "vec4_kernel(" in joined
    with pytest.raises(ValueError, match="kernel scale_kernel appears in two sources"):
        nvcc.join_sources([sources["scale"], sources["scale"]])


def _te_scheduled():
    from tvm import s_tir, te

    A = te.placeholder((1024, 64), name="A")
    k = te.reduce_axis((0, 64), name="k")
    B = te.compute((1024,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
    C = te.compute((1024,), lambda i: te.sigmoid(B[i]), name="C")
    sch = s_tir.Schedule(te.create_prim_func([A, C]))
    for name in ["B", "C"]:
        bx, tx = sch.split(sch.get_loops(sch.get_sblock(name))[0], [None, 128])
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")
    return sch.mod["main"]


def test_te_schedule_to_cuda_source_and_host_launches():
    host, device = lower_for_cuda(_te_scheduled(), TARGET)
    host_text = host.script()
    # The intermediate B lives in global memory allocated by the host, passed to both kernels.
    assert 'T.call_packed("main_kernel", A.data, B.data, 8, 128)' in host_text
    assert 'T.call_packed("main_kernel_1", C.data, B.data, 8, 128)' in host_text
    assert host["main"].get_attr("target").kind.name == "llvm"
    assert host["main"].get_attr("calling_conv") == 1
    src = build_cuda(device, TARGET).inspect_source()
    body = _body(src, "main_kernel")
    assert body.startswith("  for (int k = 0; k < 64; ++k) {\n    if (k == 0) {")
    assert "expf(" in _body(src, "main_kernel_1")


@requires_nvcc
def test_te_kernels_compile_with_nvcc():
    _, device = lower_for_cuda(_te_scheduled(), TARGET)
    mod = build_cuda(device, TARGET, compile=True)
    assert mod.impl.binary()[:4] == b"\x7fELF"


def test_warp_memory_becomes_registers_and_shuffles(sources):
    body = _body(sources["warp_mem"], "warp_mem_kernel")
    assert body.startswith("  alignas(64) float W_ptr[2];")
    assert ("__shfl_sync(__activemask(), W_ptr[y_1], ((((int)threadIdx.x) + 1) & 31), 32)"
            in body)


def test_nvrtc_without_cuda_bindings_says_what_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda(name, *args, **kwargs):
        if name == "cuda.bindings" or name.startswith("cuda"):
            raise ImportError("No module named 'cuda'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with pytest.raises(RuntimeError, match="NVRTC needs the cuda-bindings package"):
        nvcc.compile_cuda(_source("scale"), "sm_80", compiler="nvrtc")


def _consume_access_ptr_func(dtype):
    """A function without a thread launch that passes ``A.access_ptr(offset=2)`` on."""
    buffer = tvm.tirx.decl_buffer((8,), dtype, name="A")
    data = tvm.tirx.Var("A_data", tvm.tirx.buffer_data_pointer_type(buffer))
    access_ptr = buffer.access_ptr(access_mask=3, offset=2, extent=4)
    body = tvm.tirx.SeqStmt([
        tvm.tirx.DeclBuffer(buffer, data=data),
        tvm.tirx.Evaluate(tvm.tirx.call_extern("void", "consume", access_ptr)),
    ])
    return tvm.tirx.PrimFunc([data], body).with_attr("global_symbol", "main")


@pytest.mark.parametrize(("dtype", "ctype", "call"), [
    ("int4x4", "int16_t", "consume((&(*(((int16_t*)A_data) + 8 / 4))));"),
    ("uint4x8", "uint", "consume((&(*(((uint*)A_data) + 16 / 8))));"),
    ("float32", "float", "consume((&(A_data[2])));"),
    ("float32x4", "float4", "consume((&(*(float4*)(((float*)A_data) + 8))));"),
])
def test_target_build_cuda_prints_device_function_and_access_ptr(dtype, ctype, call):
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_80"})
    mod = tvm.IRModule.from_expr(_consume_access_ptr_func(dtype))
    source = tvm.get_global_func("target.build.cuda")(mod, target).inspect_source()
    # No thread launch: a __device__ function (0.27's form), with its forward declaration.
    assert f'extern "C" __device__ void main({ctype}* A_data);' in source
    assert f'extern "C" __device__ void main({ctype}* A_data) {{' in source
    assert "__global__" not in source
    assert call in source


def test_packed_int4_vector_rejects_unsupported_lanes():
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_80"})
    mod = tvm.IRModule.from_expr(_consume_access_ptr_func("int4x2"))
    with pytest.raises(ValueError, match="int4x2 has no CUDA type"):
        tvm.get_global_func("target.build.cuda")(mod, target)
