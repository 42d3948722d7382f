"""``tvm.compile(..., target="cuda")`` end to end: host launchers (LLVM) call the kernels of
the imported ``cuda`` module; launches go through the fake driver (no GPU here). The CUDA
sources of every build are compiled by nvcc in one batch (``test_sources_compile_with_nvcc``).
"""

import shutil
import struct

import numpy as np
import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.script import tirx as T

SOURCES = {}  # build name -> CUDA source, compiled together by nvcc at the end


@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in T.thread_binding(256, thread="threadIdx.x"):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def scale_match(a: T.handle, b: T.handle):
    # D.7 example 1 with classic thread bindings: one CTA of 256 threads.
    A = T.match_buffer(a, (256,), "float32")
    B = T.match_buffer(b, (256,), "float32")
    for bx in T.thread_binding(1, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            B[tx] = A[tx] * T.float32(2)


@T.prim_func
def add_n(a: T.handle, b: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if bx * 128 + tx < n:
                C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]


def _pointers(launch, count):
    return [struct.unpack("<Q", p)[0] for p in launch["params"][:count]]


def _use_fake_image(mod, fake_driver_module, sizes):
    """Give the cuda module a fake image (the fake driver cannot load real cubins)."""
    (cuda_mod,) = mod.imports
    SOURCES.setdefault(next(iter(sizes)), cuda_mod.inspect_source())
    cuda_mod.impl.set_binary(fake_driver_module.make_image(sizes))


def _scale_body(fake, launch):
    a, b = _pointers(launch, 2)
    x = np.frombuffer(fake.read(a, 4 * 256), "float32")
    fake.write(b, (x * 2).tobytes())


def test_compile_cuda_host_imports_cuda_module():
    mod = tvm.compile(scale, target="cuda")
    assert mod.kind == "llvm"
    (cuda_mod,) = mod.imports
    assert cuda_mod.kind == "cuda" and cuda_mod.function_names() == ["scale_kernel"]
    source = cuda_mod.inspect_source()
    assert ('extern "C" __global__ void __launch_bounds__(256) scale_kernel('
            "float* __restrict__ A_ptr, float* __restrict__ B_ptr)") in source
    assert "B_ptr[((int)threadIdx.x)] = (A_ptr[((int)threadIdx.x)] * 0x1p+1f" in source
    host_ir = mod.inspect_source()
    assert "@TVMFFIFunctionCall" in host_ir and "scale_kernel" in host_ir
    assert cuda_mod.impl.function_info["scale_kernel"] == {
        "arg_types": ["handle", "handle"], "launch_param_tags": ["threadIdx.x"]}


def test_launch_through_host_function(fake_cuda, fake_driver_module):
    mod = tvm.compile(scale, target="cuda")
    _use_fake_image(mod, fake_driver_module, {"scale_kernel": [8, 8]})
    fake_cuda.kernels["scale_kernel"] = _scale_body
    dev = tvm.cuda(0)
    a_np = np.arange(256, dtype="float32")
    a = tvm.runtime.tensor(a_np, dev)
    b = tvm.runtime.empty((256,), "float32", dev)
    mod["scale"](a, b)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (1, 1, 1) and launch["block"] == (256, 1, 1)
    assert launch["shared_mem_bytes"] == 0
    assert _pointers(launch, 2) == [a.data_ptr(), b.data_ptr()]
    np.testing.assert_array_equal(b.numpy(), a_np * 2)


def test_d7_example1_classic_binding(fake_cuda, fake_driver_module):
    mod = tvm.compile(scale_match, target={"kind": "cuda", "arch": "sm_90a"})
    source = mod.imports[0].inspect_source()
    assert ('extern "C" __global__ void __launch_bounds__(256) scale_match_kernel('
            "float* __restrict__ A_ptr, float* __restrict__ B_ptr)") in source
    _use_fake_image(mod, fake_driver_module, {"scale_match_kernel": [8, 8]})
    fake_cuda.kernels["scale_match_kernel"] = _scale_body
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.full(256, 1.5, "float32"), dev)
    b = tvm.runtime.empty((256,), "float32", dev)
    mod["scale_match"](a, b)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (1, 1, 1) and launch["block"] == (256, 1, 1)
    assert _pointers(launch, 2) == [a.data_ptr(), b.data_ptr()]
    np.testing.assert_array_equal(b.numpy(), np.full(256, 3.0, "float32"))


def test_symbolic_grid_and_scalar_argument(fake_cuda, fake_driver_module):
    mod = tvm.compile(add_n, target="cuda")
    info = mod.imports[0].impl.function_info["add_n_kernel"]
    n_args = len(info["arg_types"])
    _use_fake_image(mod, fake_driver_module,
                    {"add_n_kernel": [8 if t == "handle" else 4 for t in info["arg_types"]]})
    dev = tvm.cuda(0)
    n = 1000
    a = tvm.runtime.tensor(np.ones(n, "float32"), dev)
    b = tvm.runtime.tensor(np.ones(n, "float32"), dev)
    c = tvm.runtime.empty((n,), "float32", dev)
    mod["add_n"](a, b, c, n)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == ((n + 127) // 128, 1, 1) and launch["block"] == (128, 1, 1)
    assert _pointers(launch, 3) == [a.data_ptr(), b.data_ptr(), c.data_ptr()]
    scalars = [struct.unpack("<i", p)[0] for p, t in zip(launch["params"], info["arg_types"])
               if t == "int32"]
    assert n in scalars and len(launch["params"]) == n_args


def test_host_checks_device_of_arguments(fake_cuda, fake_driver_module):
    mod = tvm.compile(scale, target="cuda")
    _use_fake_image(mod, fake_driver_module, {"scale_kernel": [8, 8]})
    a = np.zeros(256, "float32")
    with pytest.raises(ValueError, match="device"):
        mod["scale"](a, a)
    assert fake_cuda.launches == []


def test_launch_error_propagates_through_host(fake_cuda, fake_driver_module):
    mod = tvm.compile(scale, target="cuda")
    # An image without the kernel: cuModuleGetFunction fails inside the launcher.
    mod.imports[0].impl.set_binary(fake_driver_module.make_image({"other": [8]}))
    dev = tvm.cuda(0)
    a = tvm.runtime.empty((256,), "float32", dev)
    with pytest.raises(RuntimeError, match="cuModuleGetFunction"):
        mod["scale"](a, a)


def test_two_builds_same_host_code_different_kernels(fake_cuda, fake_driver_module):
    @T.prim_func
    def f(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "f"})
        for i in T.thread_binding(256, thread="threadIdx.x"):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def g(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "f"})
        for i in T.thread_binding(256, thread="threadIdx.x"):
            B[i] = A[i] + T.float32(2)

    mod_f = tvm.compile(f, target="cuda")
    mod_g = tvm.compile(g, target="cuda")
    assert mod_f.inspect_source() == mod_g.inspect_source().replace(
        _slot(mod_g), _slot(mod_f))
    assert _slot(mod_f) != _slot(mod_g)
    images = {"f": fake_driver_module.make_image({"f_kernel": [8, 8]}),
              "g": fake_driver_module.make_image({"f_kernel": [8, 8], "g_marker": [8]})}
    mod_f.imports[0].impl.set_binary(images["f"])
    mod_g.imports[0].impl.set_binary(images["g"])
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.zeros(256, "float32"), dev)
    b = tvm.runtime.empty((256,), "float32", dev)
    loaded = []
    for mod in (mod_f, mod_g, mod_f):
        mod["f"](a, b)
        loaded = [bytes(args[0]) for name, args in fake_cuda.calls if name == "cuModuleLoadData"]
    # Each host module launches its own cuda module's kernel (each image loaded once).
    assert loaded == [images["f"], images["g"]]
    assert len(fake_cuda.launches) == 3


def _slot(mod):
    (line,) = [w for w in mod.inspect_source().split() if w.startswith("@__pytvm_callee.")][:1]
    return line


def test_unbound_gpu_function_is_rejected():
    @T.prim_func
    def unbound(A: T.Buffer((16,), "float32")):
        for i in range(16):
            A[i] = T.float32(0)

    with pytest.raises(ValueError, match="Did you forget to bind"):
        tvm.compile(unbound, target="cuda")


def test_inspect_source_needs_no_nvcc(monkeypatch):
    monkeypatch.setattr(nvcc, "find_nvcc", lambda: None)
    mod = tvm.compile(scale_match, target="cuda")
    assert "scale_match_kernel" in mod.imports[0].inspect_source()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_sources_compile_with_nvcc():
    """Every source the tests above built compiles with nvcc (one call)."""
    for func in (scale, scale_match, add_n):
        mod = tvm.compile(func, target={"kind": "cuda", "arch": "sm_90a"})
        (kernel,) = mod.imports[0].function_names()
        SOURCES.setdefault(kernel, mod.imports[0].inspect_source())
    cubin = nvcc.compile_many(list(SOURCES.values()), "sm_90a")
    assert cubin[:4] == b"\x7fELF"


def test_loop_free_function_runs_as_one_thread(fake_cuda, fake_driver_module):
    @T.prim_func
    def scalar(A: T.Buffer((), "float32"), B: T.Buffer((), "float32")):
        B[()] = A[()] * T.float32(0.5)

    mod = tvm.compile(scalar, target="cuda")
    source = mod.imports[0].inspect_source()
    assert "__launch_bounds__" not in source  # 0.27: none for one thread
    assert "__global__ void scalar_kernel(" in source
    _use_fake_image(mod, fake_driver_module, {"scalar_kernel": [8, 8]})
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.array(4.0, "float32"), dev)
    b = tvm.runtime.empty((), "float32", dev)
    mod["scalar"](a, b)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (1, 1, 1) and launch["block"] == (1, 1, 1)
    assert _pointers(launch, 2) == [a.data_ptr(), b.data_ptr()]


def test_time_evaluator_of_host_function_uses_cuda_events(fake_cuda, fake_driver_module):
    mod = tvm.compile(scale, target="cuda")
    _use_fake_image(mod, fake_driver_module, {"scale_kernel": [8, 8]})
    dev = tvm.cuda(0)
    a = tvm.runtime.empty((256,), "float32", dev)
    result = mod.time_evaluator("scale", dev, number=4, repeat=2)(a, a)
    # The fake's event clock advances 0.5 ms per launch: the CUDA timer measured the launches.
    assert result.results == pytest.approx([0.5e-3, 0.5e-3])
    assert len(fake_cuda.launches) >= 8


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_default_arch_is_the_gpus(fake_cuda):
    # Target("cuda") names the kind's default arch (sm_50, which nvcc 13 rejects): the
    # binary is built for GPU 0's compute capability instead (the fake H200: 9.0).
    mod = tvm.compile(scale, target="cuda")
    impl = mod.imports[0].impl
    assert impl.arch is None
    assert impl.binary()[:4] == b"\x7fELF" and impl.arch == "sm_90a"
