"""``tvm.contrib.tvmjs``: tensor caches (parameter shards) in TVM's web-runtime format.

:func:`dump_tensor_cache` writes a dict of arrays as binary shards plus ``tensor-cache.json``;
:func:`load_tensor_cache` reads them back, and the VM builtin
``vm.builtin.tensor_cache.load`` loads them into the runtime's tensor cache
(``vm.builtin.param_array_from_cache``).

The JSON holds ``{"metadata": ..., "records": [shard, ...]}``; each shard is
``{"dataPath", "format": "raw-shard", "nbytes", "records": [entry, ...]}`` and each entry
``{"name", "shape", "dtype", "format", "nbytes", "byteOffset"}``. Entry formats: ``"raw"``
(the array's bytes, little-endian) and ``"f32-to-bf16"`` (a float32 array stored as bfloat16:
half the bytes, rounded to nearest even; ``dtype`` stays ``float32``).

Limitations: the WebGPU/JS packaging helpers of TVM's module (``create_tvmjs_wasm``,
``export_runtime``...) are not provided.
"""

from __future__ import annotations

import json
import os

import numpy as np

__all__ = ["decode_record", "dump_tensor_cache", "load_tensor_cache"]

_JSON = "tensor-cache.json"


def _convert_f32_to_bf16(value):
    """float32 array -> its bfloat16 bit patterns (uint16), rounded to nearest even.

    Values beyond the largest finite bfloat16 are truncated toward it (as masks of -inf-like
    values stay finite), matching TVM's writer.
    """
    value = np.ascontiguousarray(value, dtype="float32")
    bits = value.view("uint32").astype("uint64")
    limit = np.float32(np.frombuffer(np.uint32(0x7F7F0000).tobytes(), "float32")[0])
    in_range = np.abs(value) < limit
    bias = np.where(in_range, ((bits >> 16) & 1) + 0x7FFF, 0)
    return ((bits + bias) >> 16).astype("uint16")


def _convert_bf16_to_f32(value):
    """bfloat16 bit patterns (uint16) -> float32 values."""
    return (np.asarray(value).astype("uint32") << 16).view("float32")


def _encode(array, encode_format):
    array = np.asarray(array)
    if encode_format == "f32-to-bf16" and array.dtype == np.float32:
        return _convert_f32_to_bf16(array).tobytes(), "f32-to-bf16"
    return np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes(), "raw"


def decode_record(record, raw: bytes):
    """The NumPy array of one cache entry from its bytes."""
    shape = tuple(int(d) for d in record["shape"])
    if record.get("format", "raw") == "f32-to-bf16":
        return _convert_bf16_to_f32(np.frombuffer(raw, "<u2")).reshape(shape)
    if record.get("format", "raw") != "raw":
        raise ValueError(f"tensor cache: unknown record format {record.get('format')!r}")
    return np.frombuffer(raw, np.dtype(record["dtype"]).newbyteorder("<")).reshape(shape).copy()


def load_tensor_cache(cache_dir) -> dict:
    """``{name: numpy array}`` of every entry of the cache in ``cache_dir``."""
    cache_dir = os.fspath(cache_dir)
    with open(os.path.join(cache_dir, _JSON), encoding="utf-8") as f:
        meta = json.load(f)
    result = {}
    for shard in meta["records"]:
        with open(os.path.join(cache_dir, shard["dataPath"]), "rb") as f:
            data = f.read()
        for record in shard["records"]:
            start = int(record["byteOffset"])
            result[record["name"]] = decode_record(record, data[start : start + record["nbytes"]])
    return result


def dump_tensor_cache(
    params,
    cache_dir,
    encode_format: str = "f32-to-bf16",
    meta_data=None,
    shard_cap_mb: int = 32,
    show_progress: bool = True,
    update_if_exists: bool = False,
):
    """Write ``params`` (name -> array or runtime tensor) as a tensor cache in ``cache_dir``.

    Parameters
    ----------
    params : dict or list of (name, array)
        The tensors, written in this order.
    cache_dir : str or path
        The directory (created when missing).
    encode_format : str
        ``"f32-to-bf16"`` stores float32 arrays as bfloat16; ``"raw"`` stores every array as is.
    meta_data : dict, optional
        Written under ``"metadata"``.
    shard_cap_mb : int
        Entries go to ``params_shard_<k>.bin`` files of at most this many MB (an entry larger
        than the cap gets a shard of its own).
    show_progress : bool
        Accepted for TVM compatibility; nothing is printed.
    update_if_exists : bool
        When a cache already exists, keep its entries and replace or add those in ``params``
        (otherwise the cache is written anew).
    """
    if encode_format not in ("raw", "f32-to-bf16"):
        raise ValueError(f"dump_tensor_cache: encode_format must be 'raw' or 'f32-to-bf16', "
                         f"got {encode_format!r}")
    cache_dir = os.fspath(cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
    items = list(params.items()) if isinstance(params, dict) else list(params)
    entries = {}
    if update_if_exists and os.path.exists(os.path.join(cache_dir, _JSON)):
        entries.update(load_tensor_cache(cache_dir))
    for name, value in items:
        entries[name] = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    cap = int(shard_cap_mb) * (1 << 20)
    shards, current, blob = [], [], bytearray()

    def close_shard():
        if not current:
            return
        path = f"params_shard_{len(shards)}.bin"
        with open(os.path.join(cache_dir, path), "wb") as f:
            f.write(bytes(blob))
        shards.append({"dataPath": path, "format": "raw-shard", "nbytes": len(blob),
                       "records": list(current)})
        current.clear()
        blob.clear()

    for name, array in entries.items():
        data, fmt = _encode(array, encode_format)
        if blob and len(blob) + len(data) > cap:
            close_shard()
        current.append({"name": name, "shape": [int(d) for d in array.shape],
                        "dtype": str(array.dtype), "format": fmt, "nbytes": len(data),
                        "byteOffset": len(blob)})
        blob.extend(data)
    close_shard()
    meta = {"metadata": dict(meta_data or {}), "records": shards}
    with open(os.path.join(cache_dir, _JSON), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
