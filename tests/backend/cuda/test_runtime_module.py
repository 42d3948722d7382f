"""CUDA runtime modules through the fake driver: loading, launch configuration, argument
packing, function attributes, streams, errors and time_evaluator."""

import struct

import numpy as np
import pytest
import tvm_ffi

import tvm
from tvm.backend.cuda.runtime_module import CUDARuntimeModule, create_cuda_module

VADD_INFO = {
    "vadd": {
        "arg_types": ["handle", "handle", "handle", "int32"],
        "launch_param_tags": ["blockIdx.x", "threadIdx.x"],
    }
}


def vadd_body(fake, launch):
    """The fake kernel: c[i] = a[i] + b[i] for i < n (float32)."""
    a, b, c = (struct.unpack("<Q", p)[0] for p in launch["params"][:3])
    (n,) = struct.unpack("<i", launch["params"][3])
    x = np.frombuffer(fake.read(a, 4 * n), "float32")
    y = np.frombuffer(fake.read(b, 4 * n), "float32")
    fake.write(c, (x + y).tobytes())


def make_module(fake_driver_module, info=VADD_INFO, sizes=None):
    sizes = sizes or {"vadd": [8, 8, 8, 4]}
    return create_cuda_module(fake_driver_module.make_image(sizes), info, source="// vadd")


def test_vadd_end_to_end(fake_cuda, fake_driver_module):
    fake_cuda.kernels["vadd"] = vadd_body
    mod = make_module(fake_driver_module)
    assert mod.kind == "cuda" and mod.function_names() == ["vadd"]
    assert mod.inspect_source() == "// vadd"
    dev = tvm.cuda(0)
    a_np = np.arange(100, dtype="float32")
    b_np = np.full(100, 0.5, dtype="float32")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((100,), "float32", dev)
    func = mod["vadd"]
    assert isinstance(func, tvm_ffi.Function)
    func(a, b, c, 100, 1, 128)
    np.testing.assert_array_equal(c.numpy(), a_np + b_np)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (1, 1, 1) and launch["block"] == (128, 1, 1)
    assert launch["shared_mem_bytes"] == 0 and launch["stream"] == 0 and launch["attrs"] == []
    pointers = [struct.unpack("<Q", p)[0] for p in launch["params"][:3]]
    assert pointers == [a.data_ptr(), b.data_ptr(), c.data_ptr()]
    assert struct.unpack("<i", launch["params"][3]) == (100,)


def test_module_loaded_once_per_device(fake_cuda, fake_driver_module):
    mod = make_module(fake_driver_module)
    a = tvm.runtime.empty((4,), "float32", tvm.cuda(0))
    for _ in range(3):
        mod["vadd"](a, a, a, 4, 1, 4)
    assert fake_cuda.call_names().count("cuModuleLoadData") == 1
    assert fake_cuda.call_names().count("cuModuleGetFunction") == 1
    assert len(fake_cuda.launches) == 3


def test_grid_block_cluster_and_dynamic_shared_memory(fake_cuda, fake_driver_module):
    info = {
        "k": {
            "arg_types": ["float32", "int64", "float16"],
            "launch_param_tags": [
                "blockIdx.x",
                "blockIdx.y",
                "threadIdx.x",
                "threadIdx.z",
                "clusterCtaIdx.x",
                "tirx.use_dyn_shared_memory",
            ],
        }
    }
    mod = make_module(fake_driver_module, info, {"k": [4, 8, 2]})
    launcher = mod.impl.get_launcher("k")
    launcher(1.5, -7, 0.25, 132, 0, 128, 2, 2, 1024)
    launch = fake_cuda.launches[-1]
    assert launch["grid"] == (132, 1, 1)  # an extent of 0 counts as 1, as in TVM
    assert launch["block"] == (128, 1, 2)
    assert launch["shared_mem_bytes"] == 1024
    assert launch["attrs"] == [("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", (2, 1, 1))]
    assert struct.unpack("<f", launch["params"][0]) == (1.5,)
    assert struct.unpack("<q", launch["params"][1]) == (-7,)
    assert launch["params"][2] == np.float16(0.25).tobytes()
    assert "k" not in fake_cuda.function_attributes  # 1 KB needs no opt-in, 2 CTAs are portable


def test_large_shared_memory_and_non_portable_cluster_attributes(fake_cuda, fake_driver_module):
    info = {
        "big": {
            "arg_types": [],
            "launch_param_tags": [
                "blockIdx.x",
                "threadIdx.x",
                "clusterCtaIdx.x",
                "clusterCtaIdx.y",
                "tirx.use_dyn_shared_memory",
            ],
        }
    }
    mod = make_module(fake_driver_module, info, {"big": []})
    run = mod["big"]
    run(64, 256, 4, 4, 100 * 1024)
    attributes = fake_cuda.function_attributes["big"]
    assert attributes == {
        "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES": 100 * 1024,
        "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED": 1,
    }
    run(64, 256, 4, 4, 100 * 1024)  # set once, not per launch
    run(64, 256, 4, 4, 200 * 1024)  # a larger request raises the limit again
    assert attributes["CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"] == 200 * 1024
    assert fake_cuda.call_names().count("cuFuncSetAttribute") == 3
    launch = fake_cuda.launches[-1]
    assert launch["params"] == [] and launch["shared_mem_bytes"] == 200 * 1024
    assert launch["attrs"] == [("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", (4, 4, 1))]
    with pytest.raises(RuntimeError, match="cuFuncSetAttribute.*CUDA_ERROR_INVALID_VALUE"):
        run(64, 256, 1, 1, 300 * 1024)  # more than the device's opt-in maximum


def test_programmatic_and_cooperative_launch_attributes(fake_cuda, fake_driver_module):
    info = {
        "p": {
            "arg_types": [],
            "launch_param_tags": [
                "blockIdx.x",
                "tirx.use_programtic_dependent_launch",
                "tirx.use_cooperative_launch",
                "preferredClusterCtaIdx.x",
            ],
        }
    }
    mod = make_module(fake_driver_module, info, {"p": []})
    mod["p"](8, 2)  # the two flags take no launch value
    assert fake_cuda.launches[-1]["attrs"] == [
        ("CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION", (2, 1, 1)),
        ("CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION", 1),
        ("CU_LAUNCH_ATTRIBUTE_COOPERATIVE", 1),
    ]


def test_tensor_map_argument_passed_by_value(fake_cuda, fake_driver_module):
    info = {
        "tma": {
            "arg_types": ["handle", "handle"],
            "launch_param_tags": ["blockIdx.x", "threadIdx.x"],
            "arg_extra_tags": [1, 0],
        }
    }
    mod = make_module(fake_driver_module, info, {"tma": [128, 8]})
    out = tvm.runtime.empty((64, 64), "float16", tvm.cuda(0))
    descriptor = bytes(range(128))
    mod["tma"](descriptor, out, 1, 128)
    params = fake_cuda.launches[-1]["params"]
    assert params[0] == descriptor
    assert struct.unpack("<Q", params[1]) == (out.data_ptr(),)
    with pytest.raises(ValueError, match="CUtensorMap argument has 128 bytes, got 64"):
        mod["tma"](bytes(64), out, 1, 128)


def test_launch_on_current_stream(fake_cuda, fake_driver_module):
    mod = make_module(fake_driver_module)
    dev = tvm.cuda(0)
    a = tvm.runtime.empty((4,), "float32", dev)
    stream = dev.create_raw_stream()
    with tvm_ffi.use_raw_stream(dev, stream):
        mod["vadd"](a, a, a, 4, 1, 4)
    dev.set_raw_stream(stream)
    try:
        mod["vadd"](a, a, a, 4, 1, 4)
    finally:
        dev.set_raw_stream(0)
    mod["vadd"](a, a, a, 4, 1, 4)
    assert [launch["stream"] for launch in fake_cuda.launches] == [stream, stream, 0]


def test_argument_errors(fake_cuda, fake_driver_module):
    mod = make_module(fake_driver_module)
    launcher = mod.impl.get_launcher("vadd")
    dev = tvm.cuda(0)
    a = tvm.runtime.empty((4,), "float32", dev)
    with pytest.raises(ValueError, match=r"takes 4 argument\(s\) and 2 launch value\(s\)"):
        launcher(a, a, a, 4, 1)
    with pytest.raises(ValueError, match="argument 0 is a tensor on device type 1"):
        launcher(tvm.runtime.empty((4,), "float32"), a, a, 4, 1, 4)
    with pytest.raises(TypeError, match="argument 1 is a pointer"):
        launcher(a, "b", a, 4, 1, 4)
    with pytest.raises(TypeError, match=r"argument 3 \(int32\) must be an int"):
        launcher(a, a, a, 4.5, 1, 4)
    with pytest.raises(TypeError, match="launch parameter threadIdx.x must be an int"):
        launcher(a, a, a, 4, 1, 4.0)
    with pytest.raises(ValueError, match="launch parameter blockIdx.x is -1"):
        launcher(a, a, a, 4, -1, 4)
    assert fake_cuda.launches == []
    launcher(a, None, a.data_ptr(), 4, 1, 4)  # raw addresses and NULL are accepted
    assert struct.unpack("<Q", fake_cuda.launches[-1]["params"][1]) == (0,)


def test_function_info_errors(fake_driver_module):
    image = fake_driver_module.make_image({"k": []})
    bad = {"k": {"arg_types": [], "launch_param_tags": ["warpIdx.x"]}}
    with pytest.raises(ValueError, match="unknown launch parameter tag 'warpIdx.x'"):
        CUDARuntimeModule(image, bad)
    not_last = {
        "k": {"arg_types": [], "launch_param_tags": ["tirx.use_dyn_shared_memory", "blockIdx.x"]}
    }
    with pytest.raises(ValueError, match="must be the last launch parameter tag"):
        CUDARuntimeModule(image, not_last)
    with pytest.raises(ValueError, match="has no arg_types"):
        CUDARuntimeModule(image, {"k": {"launch_param_tags": []}})
    with pytest.raises(ValueError, match="arg_extra_tags has 1 entries for 2 arguments"):
        CUDARuntimeModule(image, {"k": {"arg_types": ["int32", "int32"], "arg_extra_tags": [0]}})
    with pytest.raises(ValueError, match="format must be cubin, fatbin or ptx"):
        CUDARuntimeModule(image, {}, fmt="elf")
    mod = tvm.runtime.Module(CUDARuntimeModule(image, {"k": {"arg_types": []}}))
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        mod["nope"]
    with pytest.raises(ValueError, match=r"CUDA module has no kernel 'nope'; it has \['k'\]"):
        mod.impl.get_launcher("nope")


def test_function_info_from_objects(fake_cuda, fake_driver_module):
    class Info:
        arg_types = ("int32",)
        launch_param_tags = ("threadIdx.x",)

    mod = make_module(fake_driver_module, {"k": Info()}, {"k": [4]})
    mod["k"](7, 32)
    launch = fake_cuda.launches[-1]
    assert launch["block"] == (32, 1, 1) and launch["params"] == [struct.pack("<i", 7)]


def test_load_and_launch_errors(fake_cuda, fake_driver_module):
    mod = create_cuda_module(b"\x7fELF not a fake image", VADD_INFO)
    a = tvm.runtime.empty((4,), "float32", tvm.cuda(0))
    with pytest.raises(RuntimeError, match="cuModuleLoadData.*CUDA_ERROR_INVALID_IMAGE"):
        mod["vadd"](a, a, a, 4, 1, 4)
    mod = make_module(fake_driver_module, sizes={"other": []})
    with pytest.raises(RuntimeError, match="cuModuleGetFunction.*CUDA_ERROR_NOT_FOUND"):
        mod["vadd"](a, a, a, 4, 1, 4)
    mod = make_module(fake_driver_module)
    fake_cuda.fail["cuLaunchKernelEx"] = fake_cuda.module.CUresult.CUDA_ERROR_LAUNCH_FAILED
    with pytest.raises(RuntimeError) as info:
        mod["vadd"](a, a, a, 4, 2, 64)
    message = str(info.value)
    assert "launching CUDA kernel 'vadd' on cuda(0)" in message
    assert "grid=(2, 1, 1) block=(64, 1, 1)" in message
    assert "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)" in message


def test_ptx_image_is_nul_terminated(fake_cuda, fake_driver_module):
    image = fake_driver_module.make_image({"k": []})
    mod = create_cuda_module(image, {"k": {"arg_types": []}}, fmt="ptx")
    mod["k"]()
    (loaded,) = [args[0] for name, args in fake_cuda.calls if name == "cuModuleLoadData"]
    assert loaded == image + b"\0"
    assert mod.inspect_source("ptx") == image.decode()


def test_write_to_file(tmp_path, fake_driver_module):
    image = fake_driver_module.make_image({"k": []})
    mod = create_cuda_module(image, {"k": {"arg_types": []}}, source="__global__ void k() {}")
    assert mod.get_write_formats() == ["cubin"]
    mod.write_to_file(str(tmp_path / "k.cubin"))
    mod.write_to_file(str(tmp_path / "k.cu"), "cu")
    assert (tmp_path / "k.cubin").read_bytes() == image
    assert (tmp_path / "k.cu").read_text() == "__global__ void k() {}"
    with pytest.raises(ValueError, match="can write 'cubin' or 'cu', not 'ptx'"):
        mod.write_to_file(str(tmp_path / "k.ptx"), "ptx")


def test_time_evaluator_uses_cuda_events(fake_cuda, fake_driver_module):
    mod = make_module(fake_driver_module)
    a = tvm.runtime.empty((4,), "float32", tvm.cuda(0))
    timer = mod.time_evaluator("vadd", tvm.cuda(0), number=4, repeat=3)
    result = timer(a, a, a, 4, 1, 4)
    # The fake's event clock advances LAUNCH_MS per launch: each call measures one launch.
    assert result.results == (fake_driver_module.LAUNCH_MS / 1e3,) * 3
    assert len(fake_cuda.launches) == 1 + 4 * 3  # one warm-up call, then number x repeat
    names = fake_cuda.call_names()
    assert names.count("cuEventRecord") == 6 and names.count("cuEventElapsedTime") == 3


def test_launch_follows_the_tensors_device(monkeypatch, fake_driver_module):
    from tvm.backend.cuda import driver
    from tvm.backend.cuda.runtime_register import register_runtime

    fake = fake_driver_module.install(monkeypatch, fake_driver_module.FakeCUDA(device_count=2))
    register_runtime()
    try:
        mod = make_module(fake_driver_module)
        on0 = tvm.runtime.empty((4,), "float32", tvm.cuda(0))
        on1 = tvm.runtime.empty((4,), "float32", tvm.cuda(1))
        mod["vadd"](on1, on1, on1, 4, 1, 4)
        mod["vadd"](on0, on0, on0, 4, 1, 4)
        contexts = [int(launch["context"]) for launch in fake.launches]
        assert contexts == [0xC0001, 0xC0000]  # each device's primary context
        assert fake.call_names().count("cuModuleLoadData") == 2  # loaded per device
        with pytest.raises(ValueError, match=r"live on cuda\(1\) and cuda\(0\)"):
            mod["vadd"](on1, on0, on1, 4, 1, 4)
        del on0, on1
    finally:
        driver.reset()
