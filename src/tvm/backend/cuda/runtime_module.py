"""Loading compiled CUDA kernels and launching them: the ``cuda`` runtime module.

:class:`CUDARuntimeModule` takes the compiled binary (cubin, fatbin or PTX text) and a
function-info table, and implements the runtime ``Module`` protocol
(:mod:`tvm.runtime.module`); :func:`create_cuda_module` wraps it as a ``tvm.runtime.Module``.
The binary is loaded with ``cuModuleLoadData`` once per device, on the first launch there.

Function info, per kernel name (a dict, or any object with these attributes):

- ``arg_types``: the kernel parameters' dtypes: ``"handle"`` for a pointer, or a scalar
  dtype (``"int32"``, ``"float32"``, ``"float16"``...);
- ``launch_param_tags``: what the launch values after the kernel arguments mean, in order:
  ``"blockIdx.x|y|z"`` (grid), ``"threadIdx.x|y|z"`` (block), ``"clusterCtaIdx.x|y|z"``
  (cluster), ``"preferredClusterCtaIdx.x|y|z"``, and last ``"tirx.use_dyn_shared_memory"``
  (dynamic shared memory bytes). ``"tirx.use_programtic_dependent_launch"`` and
  ``"tirx.use_cooperative_launch"`` take no value; they add launch attributes;
- ``arg_extra_tags`` (optional): one int per argument, ``1`` for a ``__grid_constant__``
  ``CUtensorMap`` parameter (a 128-byte descriptor passed by value).

A function is called TVM's way: ``f(*kernel_args, *launch_values)``. Tensor arguments pass
their device address (``data_ptr()``, byte offset included); ints pass as raw addresses.
The kernel is launched with ``cuLaunchKernelEx`` on the device of its tensor arguments
(device 0 when it has none) and on that device's current stream
(``tvm.cuda(i).set_raw_stream``, ``tvm_ffi.use_torch_stream``: import torch before tvm or set
``PYTVM_FFI_IMPORTS_TORCH=1`` for that one, see ``tvm/__init__.py``). Dynamic shared memory of
48 KB or more sets ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` first, and clusters
of more than 8 blocks set ``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED``.
"""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np
import tvm_ffi
from tvm_ffi import core as _ffi_core

from tvm.runtime.module import Module

from . import driver

__all__ = [
    "CUDAKernelLauncher",
    "CUDARuntimeModule",
    "FunctionInfo",
    "LaunchParamConfig",
    "create_cuda_module",
]

DYN_SHARED_MEMORY_TAG = "tirx.use_dyn_shared_memory"
PROGRAMMATIC_LAUNCH_TAG = "tirx.use_programtic_dependent_launch"
COOPERATIVE_LAUNCH_TAG = "tirx.use_cooperative_launch"
#: ``arg_extra_tags`` value of a ``__grid_constant__ CUtensorMap`` parameter.
TENSOR_MAP_ARG_TAG = 1
TENSOR_MAP_BYTES = 128
#: Dynamic shared memory above this needs the function attribute (opt-in).
SHARED_MEMORY_OPT_IN_BYTES = 48 << 10
#: Clusters of more blocks than this are non-portable and need the function attribute.
PORTABLE_CLUSTER_SIZE = 8

# Launch-value tag prefixes -> offset into the 12 work sizes (grid, block, cluster, preferred).
_THREAD_TAG_BASES = (
    ("blockIdx.", 0),
    ("threadIdx.", 3),
    ("clusterCtaIdx.", 6),
    ("preferredClusterCtaIdx.", 9),
)
_DEVICE_POINTER_TYPES = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged

# Scalar parameter dtype -> ctypes type of its bits.
_SCALAR_CTYPES = {
    "bool": ctypes.c_bool,
    "int8": ctypes.c_int8,
    "int16": ctypes.c_int16,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
}


# A CUtensorMap parameter's value: the driver copies its 128 bytes into the launch.
_TensorMapParam = ctypes.c_ubyte * TENSOR_MAP_BYTES


class FunctionInfo:
    """What the launcher needs to know about one kernel (see the module docstring)."""

    __slots__ = ("arg_extra_tags", "arg_types", "launch_param_tags", "name")

    def __init__(self, name, arg_types, launch_param_tags=(), arg_extra_tags=None):
        self.name = str(name)
        self.arg_types = tuple(str(t) for t in arg_types)
        self.launch_param_tags = tuple(str(t) for t in launch_param_tags)
        tags = tuple(int(t) for t in (arg_extra_tags or ()))
        if tags and len(tags) != len(self.arg_types):
            raise ValueError(
                f"kernel '{self.name}': arg_extra_tags has {len(tags)} entries for "
                f"{len(self.arg_types)} arguments"
            )
        self.arg_extra_tags = tags or (0,) * len(self.arg_types)

    @classmethod
    def from_value(cls, name: str, value) -> FunctionInfo:
        """Build from a ``FunctionInfo``, a dict or an object with the same attributes."""
        if isinstance(value, FunctionInfo):
            return value
        if isinstance(value, dict):
            get = value.get
        else:

            def get(key, default=None):
                return getattr(value, key, default)

        arg_types = get("arg_types")
        if arg_types is None:
            raise ValueError(f"function info of kernel '{name}' has no arg_types")
        return cls(
            get("name") or name,
            arg_types,
            get("launch_param_tags") or get("thread_axis_tags") or (),
            get("arg_extra_tags"),
        )

    def __repr__(self) -> str:
        return (
            f"FunctionInfo({self.name!r}, arg_types={list(self.arg_types)}, "
            f"launch_param_tags={list(self.launch_param_tags)})"
        )


class LaunchParamConfig:
    """Reads grid, block, cluster and dynamic shared memory from the launch values."""

    def __init__(self, kernel: str, tags):
        self.kernel = kernel
        self.tags = tuple(tags)
        self.slots: list = []  # work-size index of each valued tag, in order
        self.use_dyn_shared_memory = False
        self.programmatic_launch = False
        self.cooperative = False
        for position, tag in enumerate(self.tags):
            if tag == DYN_SHARED_MEMORY_TAG:
                if position != len(self.tags) - 1:
                    raise ValueError(
                        f"kernel '{kernel}': {DYN_SHARED_MEMORY_TAG!r} must be the last "
                        f"launch parameter tag, got {list(self.tags)}"
                    )
                self.use_dyn_shared_memory = True
            elif tag == PROGRAMMATIC_LAUNCH_TAG:
                self.programmatic_launch = True
            elif tag == COOPERATIVE_LAUNCH_TAG:
                self.cooperative = True
            else:
                self.slots.append(self._slot(tag))
        self.value_names = [
            t for t in self.tags if t not in (PROGRAMMATIC_LAUNCH_TAG, COOPERATIVE_LAUNCH_TAG)
        ]

    def _slot(self, tag: str) -> int:
        for prefix, base in _THREAD_TAG_BASES:
            if tag.startswith(prefix) and tag[len(prefix) :] in ("x", "y", "z"):
                return base + "xyz".index(tag[len(prefix) :])
        raise ValueError(
            f"kernel '{self.kernel}': unknown launch parameter tag {tag!r}; expected "
            "blockIdx.[xyz], threadIdx.[xyz], clusterCtaIdx.[xyz], "
            f"preferredClusterCtaIdx.[xyz], {DYN_SHARED_MEMORY_TAG!r}, "
            f"{PROGRAMMATIC_LAUNCH_TAG!r} or {COOPERATIVE_LAUNCH_TAG!r}"
        )

    @property
    def num_values(self) -> int:
        """How many launch values follow the kernel arguments."""
        return len(self.value_names)

    def extract(self, values) -> tuple:
        """``(work_sizes[12], dyn_shared_memory_bytes)`` from the launch values.

        A value of 0 (an empty dynamic extent) counts as 1, as in TVM; negative values and
        non-integers raise.
        """
        sizes = [1] * 12
        for name, value in zip(self.value_names, values):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(
                    f"kernel '{self.kernel}': launch parameter {name} must be an int, "
                    f"got {type(value).__name__}"
                )
            if value < 0:
                raise ValueError(f"kernel '{self.kernel}': launch parameter {name} is {value}")
        for slot, value in zip(self.slots, values):
            if value > 0:
                sizes[slot] = int(value)
        shared = int(values[len(self.slots)]) if self.use_dyn_shared_memory else 0
        return sizes, shared


def _tensor_map_bytes(value) -> bytes:
    """The 128 bytes of a tensor-map argument (bytes, a TensorMap or a CUtensorMap, or the
    nonzero host address of one: compiled host code passes the descriptor it encoded on
    its stack)."""
    if isinstance(value, ctypes.c_void_p):
        value = value.value or 0
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not value:
            raise ValueError("a CUtensorMap argument is a null pointer")
        return ctypes.string_at(int(value), TENSOR_MAP_BYTES)
    if hasattr(value, "descriptor"):
        value = value.descriptor
    if hasattr(value, "opaque") and not isinstance(value, (bytes, bytearray, memoryview)):
        value = b"".join(int(word).to_bytes(8, "little") for word in value.opaque)
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        if len(data) == TENSOR_MAP_BYTES:
            return data
        raise ValueError(f"a CUtensorMap argument has {TENSOR_MAP_BYTES} bytes, got {len(data)}")
    raise TypeError(
        "a CUtensorMap argument must be 128 bytes (tensormap.encode_tiled(...)), got "
        f"{type(value).__name__}"
    )


def _pointer_value(kernel: str, index: int, value):
    """``(address, device index or None)`` of a pointer argument."""
    if value is None:
        return 0, None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), None
    if isinstance(value, _ffi_core.Tensor):
        device = value.device
        device_type, device_id = device.dlpack_device_type(), device.index
    elif hasattr(value, "__dlpack_device__") and hasattr(value, "data_ptr"):
        device_type, device_id = value.__dlpack_device__()
    else:
        raise TypeError(
            f"kernel '{kernel}': argument {index} is a pointer; pass a tensor or an int "
            f"address, got {type(value).__name__}"
        )
    if int(device_type) not in _DEVICE_POINTER_TYPES:
        raise ValueError(
            f"kernel '{kernel}': argument {index} is a tensor on device type "
            f"{int(device_type)} (not CUDA memory); copy it to tvm.cuda() first"
        )
    return int(value.data_ptr()), int(device_id)


def _scalar_value(kernel: str, index: int, dtype: str, value):
    if dtype == "float16" or dtype == "bfloat16":
        if dtype == "float16":
            bits = np.array(value, dtype=np.float16).view(np.uint16)
        else:
            bits = np.array(np.float32(value)).view(np.uint32) >> 16  # truncating conversion
        return ctypes.c_uint16(int(bits))
    ctype = _SCALAR_CTYPES.get(dtype)
    if ctype is None:
        raise ValueError(f"kernel '{kernel}': argument {index} has unsupported dtype {dtype!r}")
    if dtype.startswith(("int", "uint")) and not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"kernel '{kernel}': argument {index} ({dtype}) must be an int, "
            f"got {type(value).__name__}"
        )
    return ctype(value)


class CUDAKernelLauncher:
    """Calls one kernel of a :class:`CUDARuntimeModule` (TVM's calling convention)."""

    def __init__(self, module: CUDARuntimeModule, info: FunctionInfo):
        self.module = module
        self.info = info
        self.name = info.name
        self.launch_config = LaunchParamConfig(info.name, info.launch_param_tags)
        self._num_args = len(info.arg_types)
        self._lock = threading.Lock()
        # Per device: CUfunction, the dynamic shared memory allowed so far, and whether
        # non-portable clusters are allowed.
        self._functions: dict = {}
        self._shared_allowed: dict = {}
        self._non_portable: set = set()

    def __repr__(self) -> str:
        return f"<CUDAKernelLauncher {self.name} {list(self.launch_config.tags)}>"

    def _pack_arguments(self, args):
        """ctypes values of the kernel arguments, and the device their tensors live on."""
        values, device = [], None
        info = self.info
        for index, (dtype, extra, value) in enumerate(
            zip(info.arg_types, info.arg_extra_tags, args)
        ):
            if extra == TENSOR_MAP_ARG_TAG:
                values.append(_TensorMapParam.from_buffer_copy(_tensor_map_bytes(value)))
            elif dtype == "handle" or dtype.startswith("handle"):
                address, arg_device = _pointer_value(self.name, index, value)
                if arg_device is not None:
                    if device is not None and arg_device != device:
                        raise ValueError(
                            f"kernel '{self.name}': tensor arguments live on cuda({device}) "
                            f"and cuda({arg_device}); a launch uses one device"
                        )
                    device = arg_device
                values.append(ctypes.c_void_p(address))
            else:
                values.append(_scalar_value(self.name, index, dtype, value))
        return values, device

    def __call__(self, *args):
        expected = self._num_args + self.launch_config.num_values
        if len(args) != expected:
            raise ValueError(
                f"kernel '{self.name}' takes {self._num_args} argument(s) and "
                f"{self.launch_config.num_values} launch value(s) "
                f"{self.launch_config.value_names}, got {len(args)} values"
            )
        values, device = self._pack_arguments(args[: self._num_args])
        sizes, shared = self.launch_config.extract(args[self._num_args :])
        self.launch(values, 0 if device is None else device, sizes, shared)

    def _function(self, device: int, sizes, shared: int):
        """The CUfunction on ``device`` with its function attributes set for this launch."""
        function = self._functions.get(device)
        if function is None:
            with self._lock:
                function = self._functions.get(device)
                if function is None:
                    function = self.module.load_function(device, self.name)
                    self._functions[device] = function
        if shared >= SHARED_MEMORY_OPT_IN_BYTES and shared > self._shared_allowed.get(device, 0):
            attributes = driver.get_driver().CUfunction_attribute
            driver.call(
                "cuFuncSetAttribute",
                function,
                attributes.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared,
            )
            self._shared_allowed[device] = shared
        if sizes[6] * sizes[7] * sizes[8] > PORTABLE_CLUSTER_SIZE and (
            device not in self._non_portable
        ):
            attributes = driver.get_driver().CUfunction_attribute
            driver.call(
                "cuFuncSetAttribute",
                function,
                attributes.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                1,
            )
            self._non_portable.add(device)
        return function

    def launch(self, values, device: int, sizes, shared: int) -> None:
        """Launch with packed ctypes ``values`` on ``device`` (see :meth:`__call__`)."""
        driver.ensure_context(device)
        function = self._function(device, sizes, shared)
        module = driver.get_driver()
        attrs = []
        ids = module.CUlaunchAttributeID
        for base, attr_id in (
            (6, ids.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION),
            (9, ids.CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION),
        ):
            if sizes[base : base + 3] != [1, 1, 1]:
                attr = module.CUlaunchAttribute()
                attr.id = attr_id
                attr.value.clusterDim.x = sizes[base]
                attr.value.clusterDim.y = sizes[base + 1]
                attr.value.clusterDim.z = sizes[base + 2]
                attrs.append(attr)
        if self.launch_config.programmatic_launch:
            attr = module.CUlaunchAttribute()
            attr.id = ids.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            attr.value.programmaticStreamSerializationAllowed = 1
            attrs.append(attr)
        if self.launch_config.cooperative:
            attr = module.CUlaunchAttribute()
            attr.id = ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            attr.value.cooperative = 1
            attrs.append(attr)
        config = module.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = sizes[0:3]
        config.blockDimX, config.blockDimY, config.blockDimZ = sizes[3:6]
        config.sharedMemBytes = shared
        config.hStream = int(_ffi_core._env_get_current_stream(2, device) or 0)
        if attrs:
            config.attrs = attrs
        config.numAttrs = len(attrs)
        pointers = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.addressof(value) for value in values]
        )
        params = ctypes.addressof(pointers) if values else None
        try:
            driver.call("cuLaunchKernelEx", config, function, params, 0)
        except driver.CUDADriverNotFoundError:
            raise
        except RuntimeError as err:
            raise RuntimeError(
                f"launching CUDA kernel '{self.name}' on cuda({device}) with "
                f"grid={tuple(sizes[0:3])} block={tuple(sizes[3:6])} "
                f"dynamic shared memory={shared} bytes failed: {err}"
            ) from err


class CUDARuntimeModule:
    """Compiled CUDA kernels: a binary plus function info (see the module docstring).

    Parameters
    ----------
    binary : bytes
        A cubin or fatbin image, or PTX text (``fmt="ptx"``).
    function_info : dict
        Kernel name -> function info (dict, :class:`FunctionInfo` or an object with
        ``arg_types``, ``launch_param_tags`` and optionally ``arg_extra_tags``).
    source : str
        The CUDA source, returned by :meth:`inspect_source`.
    fmt : str
        ``"cubin"``, ``"fatbin"`` or ``"ptx"``.
    """

    kind = "cuda"
    entry_name = ""

    def __init__(self, binary, function_info, source: str = "", fmt: str = "cubin"):
        if fmt not in ("cubin", "fatbin", "ptx"):
            raise ValueError(f"CUDA module format must be cubin, fatbin or ptx, got {fmt!r}")
        if isinstance(binary, str):
            binary = binary.encode()
        self.binary = bytes(binary)
        self.fmt = fmt
        self.source = source
        self.function_info = {
            name: FunctionInfo.from_value(name, info) for name, info in function_info.items()
        }
        for info in self.function_info.values():
            LaunchParamConfig(info.name, info.launch_param_tags)  # reject bad tags now
        self._modules: dict = {}  # device index -> CUmodule
        self._launchers: dict = {}
        self._ffi_functions: dict = {}
        self._lock = threading.Lock()

    # -- runtime Module protocol ----------------------------------------------------------
    def function_names(self) -> list:
        """The names of the kernels in the module."""
        return list(self.function_info)

    def get_launcher(self, name: str) -> CUDAKernelLauncher:
        """The Python launcher of kernel ``name`` (``ValueError`` when unknown)."""
        launcher = self._launchers.get(name)
        if launcher is None:
            info = self.function_info.get(name)
            if info is None:
                raise ValueError(
                    f"CUDA module has no kernel {name!r}; it has {self.function_names()}"
                )
            launcher = CUDAKernelLauncher(self, info)
            self._launchers[name] = launcher
        return launcher

    def get_function(self, name: str):
        """Kernel ``name`` as a ``tvm_ffi.Function`` (None when the module has no such kernel)."""
        if name not in self.function_info:
            return None
        function = self._ffi_functions.get(name)
        if function is None:
            function = tvm_ffi.convert(self.get_launcher(name))
            self._ffi_functions[name] = function
        return function

    def inspect_source(self, fmt: str = "") -> str:
        """The PTX text when asked for ``"ptx"`` of a PTX module, else the CUDA source kept
        with the module (empty when none was).
        """
        if fmt in ("ptx",) and self.fmt == "ptx":
            return self.binary.decode(errors="replace")
        return self.source

    def get_write_formats(self) -> list:
        """The formats :meth:`write_to_file` writes: the module's binary format."""
        return [self.fmt]

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        """Write the binary (``fmt`` "" or the module's format) or the source (``"cu"``)."""
        if fmt == "cu":
            with open(file_name, "w") as handle:
                handle.write(self.source)
            return
        if fmt not in ("", self.fmt):
            raise ValueError(f"CUDA module can write {self.fmt!r} or 'cu', not {fmt!r}")
        with open(os.fspath(file_name), "wb") as handle:
            handle.write(self.binary)

    # -- loading ---------------------------------------------------------------------------
    def _image(self) -> bytes:
        if self.fmt == "ptx" and not self.binary.endswith(b"\0"):
            return self.binary + b"\0"  # cuModuleLoadData reads PTX as a C string
        return self.binary

    def load_module(self, device: int):
        """The ``CUmodule`` on ``device``, loaded on first use (needs the driver)."""
        module = self._modules.get(device)
        if module is None:
            with self._lock:
                module = self._modules.get(device)
                if module is None:
                    driver.ensure_context(device)
                    module = driver.call("cuModuleLoadData", self._image())
                    self._modules[device] = module
        return module

    def load_function(self, device: int, name: str):
        """The ``CUfunction`` of kernel ``name`` on ``device``."""
        return driver.call("cuModuleGetFunction", self.load_module(device), name.encode())


def create_cuda_module(binary, function_info, source: str = "", fmt: str = "cubin") -> Module:
    """A ``tvm.runtime.Module`` of kind ``"cuda"`` over compiled kernels (see the module doc)."""
    return Module(CUDARuntimeModule(binary, function_info, source, fmt))
