"""What the CUDA backend registers into the runtime: its device API and runtime functions.

:func:`register_runtime` is called by ``tvm.backend.cuda.register_backend()`` (on
``import tvm``). It imports nothing heavy: ``cuda.bindings`` is loaded on the first device
operation, so registering costs nothing on a machine without a GPU, where device operations
then raise "no CUDA driver (libcuda.so.1) found; ...".
"""

from __future__ import annotations

import tvm_ffi

from tvm.runtime import device_api as _device_api

from .device_api import CUDADeviceAPI
from .tensormap import encode_tiled_packed

__all__ = ["KDLCUDA", "register_runtime"]

#: DLPack device type of CUDA memory.
KDLCUDA = 2
#: DLPack device type of CUDA managed memory (same API).
KDLCUDA_MANAGED = 13

_API = CUDADeviceAPI()


def register_runtime() -> None:
    """Register the CUDA device API (device types 2 and 13) and the global function
    ``runtime.cuTensorMapEncodeTiled``. Safe to call more than once."""
    _device_api.register_device_api(KDLCUDA, _API, override=True)
    _device_api.register_device_api(KDLCUDA_MANAGED, _API, override=True)
    tvm_ffi.register_global_func(
        "runtime.cuTensorMapEncodeTiled", encode_tiled_packed, override=True
    )
