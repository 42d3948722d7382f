"""tvm.backend.cuda.tensormap: argument checks and the driver call of encode_tiled."""

import ctypes

import pytest
import tvm_ffi

import tvm
from tvm.backend.cuda.tensormap import encode_tiled

ADDRESS = 0x7F00_0000_1000  # 16-byte aligned


def test_encode_tiled_passes_driver_order(fake_cuda, fake_driver_module):
    # A row-major 256 x 64 fp16 matrix, 64 x 64 tiles: dims innermost first, strides in bytes.
    data = encode_tiled(
        "float16",
        ADDRESS,
        global_dims=[64, 256],
        global_strides=[128],
        box_dims=[64, 64],
        swizzle="128B",
        l2_promotion="128B",
    )
    assert isinstance(data, bytes) and len(data) == 128
    fields = fake_driver_module.decode_fake_tensor_map(data)
    assert fields == {
        "data_type": 6,  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        "rank": 2,
        "address": ADDRESS,
        "dims": [64, 256],
        "strides": [128],
        "box": [64, 64],
        "element_strides": [1, 1],
        "interleave": 0,
        "swizzle": 3,
        "l2_promotion": 2,
        "oob_fill": 0,
    }
    (args,) = [a for name, a in fake_cuda.calls if name == "cuTensorMapEncodeTiled"]
    assert args[0] is fake_cuda.module.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    assert all(isinstance(v, fake_cuda.module.cuuint64_t) for v in args[3])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"global_dims": []}, "rank must be 1..5, got 0"),
        ({"global_dims": [16] * 6, "global_strides": [32] * 5, "box_dims": [8] * 6}, "rank"),
        ({"global_address": ADDRESS + 8}, "must be 16-byte aligned"),
        ({"global_strides": [120]}, r"global_strides\[0\] = 120 must be a positive multiple of 16"),
        ({"global_strides": [128, 128]}, "global_strides needs 1 entries, got 2"),
        ({"box_dims": [64, 512]}, r"box_dims\[1\] = 512 must be in 1..256"),
        ({"box_dims": [0, 8]}, r"box_dims\[0\] = 0"),
        ({"element_strides": [1, 9]}, r"element_strides\[1\] = 9 must be in 1..8"),
        ({"global_dims": [64, 0]}, r"global_dims\[1\] = 0 must be in 1..2\^32"),
        ({"box_dims": [4, 8]}, "inner box dimension is 8 bytes"),
        ({"swizzle": "64B"}, "128 bytes, more than the 64-byte swizzle span"),
        ({"swizzle": "256B"}, "swizzle must be one of"),
        ({"interleave": "32B"}, "an interleaved layout needs rank >= 3"),
        ({"dtype": "float4_e2m1fn"}, "dtype 'float4_e2m1fn' has no TMA data type"),
        ({"oob_fill": 5}, "oob_fill enum value 5 is out of range"),
    ],
)
def test_encode_tiled_argument_checks(kwargs, message):
    args = {
        "dtype": "float16",
        "global_address": ADDRESS,
        "global_dims": [64, 256],
        "global_strides": [128],
        "box_dims": [64, 64],
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        encode_tiled(**args)


def test_interleave_32b_needs_32b_swizzle():
    with pytest.raises(ValueError, match="interleave '32B' requires swizzle '32B'"):
        encode_tiled("int8", ADDRESS, [32, 8, 8], [32, 256], [32, 8, 8], interleave="32B")


def test_global_function_writes_descriptor(fake_cuda, fake_driver_module):
    encode = tvm_ffi.get_global_func("runtime.cuTensorMapEncodeTiled")
    raw = ctypes.create_string_buffer(128 + 64)
    buffer = (ctypes.addressof(raw) + 63) // 64 * 64
    # tensor_map, dtype, rank, address, dims[2], strides[1], box[2], element_strides[2],
    # interleave, swizzle, l2 promotion, oob fill
    encode(buffer, "bfloat16", 2, ADDRESS, 64, 256, 128, 64, 32, 1, 1, 0, 3, 2, 0)
    written = ctypes.string_at(buffer, 128)
    expected = encode_tiled(
        "bfloat16", ADDRESS, [64, 256], [128], [64, 32], swizzle=3, l2_promotion=2
    )
    assert written == expected
    assert fake_driver_module.decode_fake_tensor_map(written)["data_type"] == 9  # BFLOAT16
    with pytest.raises(ValueError, match="with rank 2 takes 15 arguments"):
        encode(buffer, "bfloat16", 2, ADDRESS, 64, 256)
    with pytest.raises(ValueError, match="must be a 64-byte aligned host buffer"):
        encode(buffer + 8, "bfloat16", 2, ADDRESS, 64, 256, 128, 64, 32, 1, 1, 0, 3, 2, 0)


def test_descriptor_feeds_a_kernel(fake_cuda, fake_driver_module):
    from tvm.backend.cuda.runtime_module import create_cuda_module

    matrix = tvm.runtime.empty((256, 64), "float16", tvm.cuda(0))
    descriptor = encode_tiled("float16", matrix.data_ptr(), [64, 256], [128], [64, 64])
    image = fake_driver_module.make_image({"load": [128]})
    info = {"load": {"arg_types": ["handle"], "arg_extra_tags": [1], "launch_param_tags": []}}
    create_cuda_module(image, info)["load"](descriptor)
    (param,) = fake_cuda.launches[-1]["params"]
    assert fake_driver_module.decode_fake_tensor_map(param)["address"] == matrix.data_ptr()


def test_encode_without_driver(monkeypatch, fake_driver_module):
    fake_driver_module.install(monkeypatch, fake_driver_module.FakeCUDA(init_failure="dlopen"))
    with pytest.raises(RuntimeError, match=r"no CUDA driver \(libcuda.so.1\) found"):
        encode_tiled("float32", ADDRESS, [64], [], [32])
