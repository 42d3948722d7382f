"""Host-side TMA descriptors: ``encode_tiled`` over ``cuTensorMapEncodeTiled``.

A Hopper kernel that copies tiles with TMA (``cp.async.bulk.tensor``) takes a
``__grid_constant__ const CUtensorMap`` parameter: a 128-byte descriptor the host encodes
with the driver. :func:`encode_tiled` checks the arguments against the driver's documented
rules first, so a mistake is a ``ValueError`` naming the argument rather than a bare
``CUDA_ERROR_INVALID_VALUE``, then returns the descriptor's 128 bytes; pass them to a
kernel parameter tagged as a tensor map (``arg_extra_tags`` 1, see
:mod:`tvm.backend.cuda.runtime_module`).

Dimensions follow the driver's order: index 0 is the innermost (contiguous) dimension.
``global_strides`` are in bytes and have ``rank - 1`` entries (dimension 0 is contiguous).

:func:`encode_tiled_packed` is the same function in the calling convention of TVM's global
function ``runtime.cuTensorMapEncodeTiled`` (it writes into a host buffer), registered by
:func:`tvm.backend.cuda.runtime_register.register_runtime`.
"""

from __future__ import annotations

import ctypes

from . import driver

__all__ = ["TENSOR_MAP_BYTES", "encode_tiled", "encode_tiled_packed", "tensor_map_data_type"]

TENSOR_MAP_BYTES = 128

# TVM dtype name -> (CUtensorMapDataType value, element bytes).
_DATA_TYPES = {
    "uint8": (0, 1),
    "int8": (0, 1),
    "bool": (0, 1),
    "float8_e4m3fn": (0, 1),
    "float8_e5m2": (0, 1),
    "float8_e4m3fnuz": (0, 1),
    "float8_e5m2fnuz": (0, 1),
    "float8_e8m0fnu": (0, 1),
    "uint16": (1, 2),
    "int16": (1, 2),
    "uint32": (2, 4),
    "int32": (3, 4),
    "uint64": (4, 8),
    "int64": (5, 8),
    "float16": (6, 2),
    "float32": (7, 4),
    "float64": (8, 8),
    "bfloat16": (9, 2),
    "tfloat32": (11, 4),
}
# CUtensorMapDataType value -> element bytes (13..15 are packed sub-byte types).
_ELEMENT_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 4, 11: 4, 12: 4}
_INTERLEAVE = {"none": 0, "16B": 1, "32B": 2}
_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
_SWIZZLE_SPAN = {0: None, 1: 32, 2: 64, 3: 128, 4: 128, 5: 128, 6: 128}
_L2_PROMOTION = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
_OOB_FILL = {"none": 0, "nan": 1}


def tensor_map_data_type(dtype) -> tuple:
    """``(CUtensorMapDataType value, element bytes)`` of a TVM dtype name."""
    name = str(dtype)
    if name not in _DATA_TYPES:
        raise ValueError(
            f"encode_tiled: dtype {name!r} has no TMA data type; supported: "
            f"{', '.join(_DATA_TYPES)}"
        )
    return _DATA_TYPES[name]


def _enum(kind: str, table: dict, value, limit: int) -> int:
    if isinstance(value, str):
        if value not in table:
            raise ValueError(f"encode_tiled: {kind} must be one of {list(table)}, got {value!r}")
        return table[value]
    value = int(value)
    if not 0 <= value <= limit:
        raise ValueError(f"encode_tiled: {kind} enum value {value} is out of range 0..{limit}")
    return value


def _ints(kind: str, values, count: int) -> list:
    values = [int(v) for v in values]
    if len(values) != count:
        raise ValueError(f"encode_tiled: {kind} needs {count} entries, got {len(values)}")
    return values


def _validate(data_type, address, dims, strides, box, element_strides, interleave, swizzle):
    """Check the documented cuTensorMapEncodeTiled rules; returns the element size."""
    rank = len(dims)
    element_bytes = _ELEMENT_BYTES.get(data_type)  # None for the packed sub-byte types
    address_alignment = 32 if interleave == 2 else 16
    if address % address_alignment:
        raise ValueError(
            f"encode_tiled: global_address {address:#x} must be {address_alignment}-byte aligned"
        )
    if interleave != 0 and rank < 3:
        raise ValueError(f"encode_tiled: an interleaved layout needs rank >= 3, got {rank}")
    for index, dim in enumerate(dims):
        if not 0 < dim <= 1 << 32:
            raise ValueError(f"encode_tiled: global_dims[{index}] = {dim} must be in 1..2^32")
    stride_alignment = 32 if interleave == 2 else 16
    for index, stride in enumerate(strides):
        if stride <= 0 or stride % stride_alignment or stride >= 1 << 40:
            raise ValueError(
                f"encode_tiled: global_strides[{index}] = {stride} must be a positive multiple "
                f"of {stride_alignment} bytes below 2^40"
            )
    for index, extent in enumerate(box):
        if not 0 < extent <= 256:
            raise ValueError(f"encode_tiled: box_dims[{index}] = {extent} must be in 1..256")
    for index, step in enumerate(element_strides):
        if not 0 < step <= 8:
            raise ValueError(f"encode_tiled: element_strides[{index}] = {step} must be in 1..8")
    if interleave == 2 and swizzle != 1:
        raise ValueError("encode_tiled: interleave '32B' requires swizzle '32B'")
    if interleave == 0 and element_bytes is not None:
        inner_bytes = box[0] * element_bytes
        if inner_bytes % 16:
            raise ValueError(
                f"encode_tiled: the inner box dimension is {inner_bytes} bytes "
                f"(box_dims[0]={box[0]} x {element_bytes}); it must be a multiple of 16 bytes"
            )
        span = _SWIZZLE_SPAN.get(swizzle)
        if span is not None and inner_bytes > span:
            raise ValueError(
                f"encode_tiled: the inner box dimension is {inner_bytes} bytes, more than the "
                f"{span}-byte swizzle span; use a smaller box_dims[0] or a wider swizzle"
            )
    return element_bytes


def encode_tiled(
    dtype,
    global_address: int,
    global_dims,
    global_strides,
    box_dims,
    element_strides=None,
    interleave="none",
    swizzle="none",
    l2_promotion="none",
    oob_fill="none",
) -> bytes:
    """Encode a tiled TMA descriptor; returns its 128 bytes.

    Parameters
    ----------
    dtype : str or int
        The element dtype (``"float16"``, ``"bfloat16"``, ``"float32"``, ``"uint8"``...), or
        a raw ``CUtensorMapDataType`` value.
    global_address : int
        Device address of the tensor (``tensor.data_ptr()``); 16-byte aligned.
    global_dims : sequence of int
        Extent of each dimension, innermost first; the rank (1 to 5) is its length.
    global_strides : sequence of int
        Byte stride of dimensions 1 .. rank-1 (multiples of 16).
    box_dims : sequence of int
        The tile copied per TMA operation, innermost first (each 1..256).
    element_strides : sequence of int, optional
        Traversal step per dimension (1..8); default all 1.
    interleave, swizzle, l2_promotion, oob_fill : str or int
        ``"none"``/``"16B"``/``"32B"``; ``"none"``/``"32B"``/``"64B"``/``"128B"``;
        ``"none"``/``"64B"``/``"128B"``/``"256B"``; ``"none"``/``"nan"`` (or enum values).

    Raises
    ------
    ValueError
        When an argument breaks a rule of ``cuTensorMapEncodeTiled``.
    RuntimeError
        When there is no CUDA driver, or the driver rejects the descriptor.
    """
    if isinstance(dtype, int):
        data_type = dtype
    else:
        data_type = tensor_map_data_type(dtype)[0]
    dims = [int(v) for v in global_dims]
    rank = len(dims)
    if not 1 <= rank <= 5:
        raise ValueError(f"encode_tiled: rank must be 1..5, got {rank} global dims")
    strides = _ints("global_strides", global_strides, rank - 1)
    box = _ints("box_dims", box_dims, rank)
    element_strides = _ints(
        "element_strides", element_strides if element_strides is not None else [1] * rank, rank
    )
    interleave = _enum("interleave", _INTERLEAVE, interleave, 2)
    swizzle = _enum("swizzle", _SWIZZLE, swizzle, 6)
    l2_promotion = _enum("l2_promotion", _L2_PROMOTION, l2_promotion, 3)
    oob_fill = _enum("oob_fill", _OOB_FILL, oob_fill, 1)
    address = int(global_address)
    _validate(data_type, address, dims, strides, box, element_strides, interleave, swizzle)

    module = driver.get_driver()
    tensor_map = driver.call(
        "cuTensorMapEncodeTiled",
        module.CUtensorMapDataType(data_type),
        rank,
        address,
        [module.cuuint64_t(v) for v in dims],
        [module.cuuint64_t(v) for v in strides],
        [module.cuuint32_t(v) for v in box],
        [module.cuuint32_t(v) for v in element_strides],
        module.CUtensorMapInterleave(interleave),
        module.CUtensorMapSwizzle(swizzle),
        module.CUtensorMapL2promotion(l2_promotion),
        module.CUtensorMapFloatOOBfill(oob_fill),
    )
    data = b"".join(int(word).to_bytes(8, "little") for word in tensor_map.opaque)
    if len(data) != TENSOR_MAP_BYTES:
        raise RuntimeError(f"cuTensorMapEncodeTiled returned {len(data)} bytes, expected 128")
    return data


def _address(value) -> int:
    """An address from an int or an opaque handle (tvm_ffi passes handles as c_void_p)."""
    if isinstance(value, ctypes.c_void_p):
        return value.value or 0
    if value is None:
        return 0
    return int(value)


def _dtype_arg(dtype):
    """The dtype argument of the packed call: a dtype name (str or DataType), a raw
    ``CUtensorMapDataType`` value (int), or the address of a C string naming the dtype
    (compiled host code passes a string constant that way)."""
    if isinstance(dtype, ctypes.c_void_p):
        if not dtype.value:
            raise ValueError("runtime.cuTensorMapEncodeTiled: the dtype is a null pointer")
        return ctypes.string_at(dtype.value).decode()
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    return str(dtype)


def encode_tiled_packed(tensor_map_ptr, dtype, rank, global_address, *rest) -> None:
    """``runtime.cuTensorMapEncodeTiled``: encode into the 128-byte host buffer at
    ``tensor_map_ptr``.

    ``rest`` is ``global_dims`` (rank values), ``global_strides`` (rank - 1),
    ``box_dims`` (rank), ``element_strides`` (rank), then ``interleave``, ``swizzle``,
    ``l2_promotion`` and ``oob_fill`` enum values, as in TVM.
    """
    rank = int(rank)
    expected = 4 * rank + 3
    if len(rest) != expected:
        raise ValueError(
            f"runtime.cuTensorMapEncodeTiled with rank {rank} takes {4 + expected} arguments "
            f"(tensor_map, dtype, rank, address, global_dims[{rank}], "
            f"global_strides[{rank - 1}], box_dims[{rank}], element_strides[{rank}], "
            f"interleave, swizzle, l2_promotion, oob_fill), got {4 + len(rest)}"
        )
    dims = rest[0:rank]
    strides = rest[rank : 2 * rank - 1]
    box = rest[2 * rank - 1 : 3 * rank - 1]
    element_strides = rest[3 * rank - 1 : 4 * rank - 1]
    interleave, swizzle, l2_promotion, oob_fill = rest[4 * rank - 1 :]
    data = encode_tiled(
        _dtype_arg(dtype),
        _address(global_address),
        dims,
        strides,
        box,
        element_strides,
        int(interleave),
        int(swizzle),
        int(l2_promotion),
        int(oob_fill),
    )
    pointer = _address(tensor_map_ptr)
    if not pointer or pointer % 64:
        raise ValueError(
            f"runtime.cuTensorMapEncodeTiled: tensor_map {pointer:#x} must be a 64-byte "
            "aligned host buffer of 128 bytes"
        )
    ctypes.memmove(pointer, data, TENSOR_MAP_BYTES)
