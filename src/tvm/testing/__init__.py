"""``tvm.testing``: helpers for tests written against TVM.

What user test files call: :func:`assert_allclose`, :func:`main`, :func:`parameter`,
:func:`parameters`, :func:`fixture`, the markers ``requires_llvm``, ``requires_cuda``,
``requires_gpu`` and :func:`requires_package`, :func:`enabled_targets`,
:func:`device_enabled`, and :func:`assert_structural_equal`.

Other helpers live in further modules of this package; any public name listed in a
submodule's ``__all__`` is also reachable as ``tvm.testing.<name>`` (found on first use).
"""

import importlib as _importlib
import pkgutil as _pkgutil

from ..ir.structural import assert_structural_equal
from ._fixtures import fixture, parameter, parameters
from .utils import (
    DEFAULT_TEST_TARGETS,
    IS_IN_CI,
    SKIP_SLOW_TESTS,
    Feature,
    assert_allclose,
    device_enabled,
    enabled_targets,
    main,
    requires_cuda,
    requires_gpu,
    requires_llvm,
    requires_package,
    slow,
    uses_gpu,
)

__all__ = [
    "DEFAULT_TEST_TARGETS",
    "IS_IN_CI",
    "SKIP_SLOW_TESTS",
    "Feature",
    "assert_allclose",
    "assert_structural_equal",
    "device_enabled",
    "enabled_targets",
    "fixture",
    "main",
    "parameter",
    "parameters",
    "requires_cuda",
    "requires_gpu",
    "requires_llvm",
    "requires_package",
    "slow",
    "uses_gpu",
]

# Submodules already imported above, or not meant to be scanned for names.
_SKIP_SCAN = {"utils", "_fixtures", "plugin"}


def __getattr__(name):
    # Lets other components add helpers as new files without editing this one.
    if name.startswith("_"):
        raise AttributeError(f"module 'tvm.testing' has no attribute {name!r}")
    for info in _pkgutil.iter_modules(__path__):
        if info.name in _SKIP_SCAN or info.name.startswith("_"):
            continue
        module = _importlib.import_module(f"{__name__}.{info.name}")
        if name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module 'tvm.testing' has no attribute {name!r}")
