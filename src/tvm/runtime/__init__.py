"""``tvm.runtime``: devices, tensors, modules and the executables that run compiled code.

Devices and tensors are ``tvm_ffi``'s, extended with TVM's helpers. ``Module``/``load_module``
and ``DataType`` live in submodules owned by their components and are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: ``tvm.runtime.ShapeTuple``: a shape as an FFI value (a tuple of ints), ``tvm_ffi.Shape`` as
#: in TVM 0.27.
from tvm_ffi import Shape as ShapeTuple

#: ``tvm.runtime.convert``: Python values to FFI values (lists to ``Array``, dicts to ``Map``,
#: numbers stay numbers), ``tvm_ffi.convert`` itself as in TVM 0.27.
from tvm_ffi import convert

from .device import (
    Device,
    cpu,
    cuda,
    device,
    ext_dev,
    hexagon,
    metal,
    opencl,
    rocm,
    vpi,
    vulkan,
)
from .tensor import Tensor, empty, from_dlpack, tensor

if TYPE_CHECKING:  # type checkers do not run __getattr__: they see the lazy names here
    from .constant import const
    from .data_type import DataType, DataTypeCode
    from .executable import Executable
    from .module import BenchmarkResult, Module, enabled, load_module, num_threads, system_lib

# The public names (explicit exports for type checkers: `mypy --strict` in user code). The
# lazy ones are served by __getattr__ (a star import loads them).
__all__ = [
    "BenchmarkResult", "DataType", "DataTypeCode", "Device", "Executable", "Module", "ShapeTuple",
    "Tensor",
    "const", "convert", "cpu", "cuda", "device", "empty", "enabled", "ext_dev", "from_dlpack", "hexagon",
    "load_module", "metal", "num_threads", "opencl", "rocm", "system_lib", "tensor", "vpi",
    "vulkan",
]

# Names served lazily from submodules (they may not exist yet, or are heavier to import).
_LAZY_ATTRS = {
    "Module": "module",
    "Executable": "executable",
    "load_module": "module",
    "enabled": "module",
    "system_lib": "module",
    "num_threads": "module",
    "BenchmarkResult": "module",
    "DataType": "data_type",
    "DataTypeCode": "data_type",
    "const": "constant",
}


def __getattr__(name):
    submodule = _LAZY_ATTRS.get(name)
    if submodule is None:
        raise AttributeError(f"module 'tvm.runtime' has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__name__}.{submodule}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{submodule}":
            raise
        raise AttributeError(
            f"tvm.runtime.{name} is not available yet: tvm/runtime/{submodule}.py does not exist"
        ) from err
    try:
        value = getattr(module, name)
    except AttributeError as err:
        raise AttributeError(f"tvm.runtime.{submodule} does not define {name!r}") from err
    globals()[name] = value
    return value
