"""Target kinds: the registry of ``llvm``, ``c``, ``cuda``, ... with their typed options.

A kind declares which options a target of that kind accepts (name -> type), its default keys
and default option values, and the DLPack device type it compiles for. Backends may register
more kinds with :func:`register_target_kind`.
"""

from __future__ import annotations

import platform
from types import MappingProxyType

__all__ = ["TargetKind", "get_target_kind", "host_triple", "list_kinds", "register_target_kind"]

#: Options every kind accepts, in the order TVM lists them.
COMMON_OPTIONS = {
    "kind": "str",
    "keys": "Array<str>",
    "tag": "str",
    "device": "str",
    "model": "str",
    "libs": "Array<str>",
    "host": "Target",
    "from_device": "int",
    "target_device_type": "int",
}

_KINDS: dict[str, TargetKind] = {}


class TargetKind:
    """A kind of target: name, typed options, default keys and values, device type.

    Examples
    --------
    >>> from tvm.target import Target
    >>> kind = Target("cuda").kind
    >>> kind.name, kind.default_keys, kind.options["arch"]
    ('cuda', ('cuda', 'gpu'), 'str')
    """

    __slots__ = ("default_device_type", "default_keys", "defaults", "name", "options")

    def __init__(self, name, options, default_keys, defaults, default_device_type):
        self.name = name
        self.options = MappingProxyType(dict(COMMON_OPTIONS, **options))
        self.default_keys = tuple(default_keys)
        self.defaults = MappingProxyType(dict(defaults))
        self.default_device_type = default_device_type

    @staticmethod
    def options_from_name(kind_name: str) -> dict:
        """The options (name -> type name) of the kind ``kind_name``."""
        return dict(get_target_kind(kind_name).options)

    def __repr__(self):
        return self.name

    __str__ = __repr__


def register_target_kind(
    name, options=None, default_keys=(), defaults=None, default_device_type=1, override=False
) -> TargetKind:
    """Register a target kind.

    Parameters
    ----------
    name : str
        The kind name, as written first in a target string.
    options : dict
        Option name -> type: ``"str"``, ``"int"``, ``"bool"`` or ``"Array<str>"``.
    default_keys : tuple of str
        Keys used to pick schedules and strategies (``("cuda", "gpu")``).
    defaults : dict, or callable returning a dict
        Option values filled in when the user gives none.
    default_device_type : int
        The DLPack device type (1 CPU, 2 CUDA, ...).
    override : bool
        Replace an existing kind of that name instead of raising ``ValueError``.
    """
    if name in _KINDS and not override:
        raise ValueError(f"Target kind {name!r} is already registered")
    kind = TargetKind(name, options or {}, default_keys, defaults or {}, default_device_type)
    _KINDS[name] = kind
    return kind


def list_kinds() -> list[str]:
    """Names of every registered target kind."""
    return list(_KINDS)


def get_target_kind(name: str) -> TargetKind:
    """The kind ``name``; ``ValueError`` listing the valid kinds when unknown."""
    kind = _KINDS.get(name)
    if kind is None:
        raise ValueError(
            f'Target kind "{name}" is not defined. Valid kinds: {", ".join(sorted(_KINDS))}'
        )
    return kind


def host_triple() -> str:
    """The LLVM target triple of this machine, computed without importing LLVM."""
    machine = platform.machine().lower() or "x86_64"
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    system = platform.system()
    if system == "Darwin":
        return f"{'arm64' if machine == 'aarch64' else machine}-apple-darwin"
    if system == "Windows":
        return f"{machine}-pc-windows-msvc"
    return f"{machine}-unknown-linux-gnu"


_LLVM_OPTIONS = {
    "mattr": "Array<str>",
    "mcpu": "str",
    "mtriple": "str",
    "mfloat-abi": "str",
    "mabi": "str",
    "num-cores": "int",
    "fast-math": "bool",
    "fast-math-nnan": "bool",
    "fast-math-ninf": "bool",
    "fast-math-nsz": "bool",
    "fast-math-arcp": "bool",
    "fast-math-contract": "bool",
    "fast-math-reassoc": "bool",
    "opt-level": "int",
    "cl-opt": "Array<str>",
    "jit": "str",
    "vector-width": "int",
}
_GPU_LIMITS = {
    "max_num_threads": "int",
    "max_threads_per_block": "int",
    "max_shared_memory_per_block": "int",
    "thread_warp_size": "int",
}

register_target_kind("llvm", _LLVM_OPTIONS, ("cpu",), {"mtriple": host_triple()}, 1)
register_target_kind(
    "c",
    {
        "mcpu": "str",
        "march": "str",
        "workspace-byte-alignment": "int",
        "constants-byte-alignment": "int",
    },
    ("cpu",),
    {},
    1,
)
register_target_kind(
    "cuda",
    {
        "mcpu": "str",
        "arch": "str",
        "registers_per_block": "int",
        "l2_cache_size_bytes": "int",
        **_GPU_LIMITS,
    },
    ("cuda", "gpu"),
    {"arch": "sm_50", "max_num_threads": 1024, "thread_warp_size": 32},
    2,
)
register_target_kind(
    "nvptx",
    {"mcpu": "str", "mtriple": "str", "max_num_threads": "int", "thread_warp_size": "int"},
    ("cuda", "gpu"),
    {
        "mcpu": "sm_50",
        "mtriple": "nvptx64-nvidia-cuda",
        "max_num_threads": 1024,
        "thread_warp_size": 32,
    },
    2,
)
register_target_kind(
    "rocm",
    {"mcpu": "str", "mtriple": "str", "mattr": "Array<str>", **_GPU_LIMITS},
    ("rocm", "gpu"),
    {
        "mcpu": "gfx900",
        "mtriple": "amdgcn-amd-amdhsa-hcc",
        "max_num_threads": 256,
        "max_threads_per_block": 256,
        "max_shared_memory_per_block": 65536,
        "thread_warp_size": 64,
    },
    10,
)
register_target_kind(
    "opencl",
    {
        **_GPU_LIMITS,
        "texture_spatial_limit": "int",
        "texture_depth_limit": "int",
        "max_function_args": "int",
        "image_base_address_alignment": "int",
    },
    ("opencl", "gpu"),
    {
        "max_num_threads": 256,
        "max_threads_per_block": 256,
        "max_shared_memory_per_block": 16384,
        "thread_warp_size": 1,
        "texture_spatial_limit": 16384,
        "texture_depth_limit": 2048,
        "max_function_args": 128,
        "image_base_address_alignment": 64,
    },
    4,
)
register_target_kind(
    "vulkan",
    {
        "mattr": "Array<str>",
        "supports_float16": "bool",
        "supports_float32": "bool",
        "supports_float64": "bool",
        "supports_int8": "bool",
        "supports_int16": "bool",
        "supports_int32": "bool",
        "supports_int64": "bool",
        **_GPU_LIMITS,
    },
    ("vulkan", "gpu"),
    {
        "max_num_threads": 256,
        "max_threads_per_block": 256,
        "thread_warp_size": 1,
        "supports_float32": True,
        "supports_int32": True,
    },
    7,
)
register_target_kind(
    "metal",
    {**_GPU_LIMITS, "max_function_args": "int"},
    ("metal", "gpu"),
    {
        "max_num_threads": 256,
        "max_threads_per_block": 256,
        "max_shared_memory_per_block": 32768,
        "thread_warp_size": 16,
        "max_function_args": 31,
    },
    8,
)
register_target_kind(
    "webgpu",
    {
        "max_num_threads": "int",
        "max_shared_memory_per_block": "int",
        "supports_subgroups": "bool",
        "thread_warp_size": "int",
    },
    ("webgpu", "gpu"),
    {
        "max_num_threads": 256,
        "max_shared_memory_per_block": 32768,
        "supports_subgroups": False,
        "thread_warp_size": 1,
    },
    15,
)
register_target_kind(
    "hexagon",
    {
        "mattr": "Array<str>",
        "mcpu": "str",
        "mtriple": "str",
        "llvm-options": "Array<str>",
        "num-cores": "int",
        "vtcm-capacity": "int",
    },
    ("hexagon", "cpu"),
    {},
    16,
)
register_target_kind("ext_dev", {}, (), {}, 12)
register_target_kind("test", {}, (), {}, 1)
