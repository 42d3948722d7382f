"""Test helpers TVM users call: tolerant comparison, markers, target lists, ``main()``."""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
import shutil
import sys

import numpy as np

from .numerical_grads import check_numerical_grads

__all__ = [
    "DEFAULT_TEST_TARGETS",
    "IS_IN_CI",
    "SKIP_SLOW_TESTS",
    "Feature",
    "assert_allclose",
    "check_numerical_grads",
    "device_enabled",
    "enabled_targets",
    "main",
    "requires_cuda",
    "requires_gpu",
    "requires_llvm",
    "requires_package",
    "slow",
    "uses_gpu",
]

#: Targets tried when ``TVM_TEST_TARGETS`` is unset, as in TVM 0.27 (strings or config dicts).
DEFAULT_TEST_TARGETS = [
    "llvm",
    "cuda",
    "nvptx",
    {"kind": "vulkan", "from_device": 0},
    "opencl",
    {"kind": "opencl", "device": "mali"},
    {"kind": "opencl", "device": "intel_graphics"},
    "metal",
    "rocm",
    "hexagon",
]


def _as_numpy(value):
    if hasattr(value, "numpy") and callable(value.numpy):
        return value.numpy()
    return np.asanyarray(value)


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7, verbose=True):
    """Assert two arrays (NumPy, Tensors, lists) have the same shape and close values.

    Same as ``numpy.testing.assert_allclose`` with a shape check first (NumPy would
    broadcast) and ``atol`` defaulting to ``1e-7`` rather than 0.

    Examples
    --------
    >>> import numpy as np, tvm.testing
    >>> tvm.testing.assert_allclose(np.ones(3), np.ones(3) + 1e-9)
    """
    actual = _as_numpy(actual)
    desired = _as_numpy(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=verbose)


def main():
    """Run pytest on the calling test file (``if __name__ == "__main__": tvm.testing.main()``)."""
    import pytest  # only test files call this

    test_file = inspect.getsourcefile(sys._getframe(1))
    sys.exit(pytest.main([test_file] + sys.argv[1:]))


# --- features and markers -------------------------------------------------------------------


def _llvm_enabled() -> bool:
    # find_spec does not import llvmlite (heavy); the llvm target needs only that package.
    return importlib.util.find_spec("llvmlite") is not None


def _cuda_device_count() -> int:
    from tvm.runtime.device import cuda_device_count

    return cuda_device_count()


def _cuda_codegen_available() -> bool:
    """Whether pytvm can compile for CUDA: the backend says so with ``CODEGEN_AVAILABLE``."""
    if importlib.util.find_spec("tvm.backend.cuda") is None:
        return False
    import tvm.backend.cuda as cuda_backend

    return bool(getattr(cuda_backend, "CODEGEN_AVAILABLE", False))


class Feature:
    """A capability tests can require: usable as a decorator or through ``.marks()``.

    The check runs lazily (when the decorator or ``marks()`` is used), so importing
    ``tvm.testing`` probes nothing.

    Examples
    --------
    >>> import tvm.testing
    >>> @tvm.testing.requires_llvm
    ... def test_compile_for_cpu():
    ...     pass
    """

    def __init__(self, name, long_name, check, reason, extra_marks=()):
        self.name = name
        self.long_name = long_name
        self._check = check
        self._reason = reason
        self._extra_marks = tuple(extra_marks)

    @functools.cached_property
    def enabled(self) -> bool:
        """Whether the feature is available on this machine."""
        return bool(self._check())

    def marks(self) -> list:
        """The pytest marks: a ``skipif`` when unavailable, plus category marks (``gpu``)."""
        import pytest

        marks = [getattr(pytest.mark, name) for name in self._extra_marks]
        marks.append(pytest.mark.skipif(not self.enabled, reason=self._reason))
        return marks

    def __call__(self, func):
        for mark in self.marks():
            func = mark(func)
        return func

    def __repr__(self):
        return f"<tvm.testing.Feature {self.name}>"


requires_llvm = Feature(
    "llvm", "LLVM", _llvm_enabled, "LLVM support not enabled (llvmlite is not installed)"
)
requires_gpu = Feature(
    "gpu", "GPU", lambda: _cuda_device_count() > 0, "No GPU present", extra_marks=("gpu",)
)
requires_cuda = Feature(
    "cuda",
    "CUDA",
    lambda: _cuda_device_count() > 0 and _cuda_codegen_available(),
    "CUDA not enabled: needs a CUDA device and pytvm's CUDA code generation",
    extra_marks=("gpu", "cuda"),
)


def uses_gpu(func):
    """Mark a test as using a GPU when one is present; it still runs on CPU-only machines."""
    import pytest

    return pytest.mark.gpu(func)


#: ``CI=true`` in the environment.
IS_IN_CI = os.getenv("CI", "") == "true"
#: ``SKIP_SLOW_TESTS=true`` (or 1/yes) skips the tests marked with :func:`slow`.
SKIP_SLOW_TESTS = os.getenv("SKIP_SLOW_TESTS", "").lower() in {"true", "1", "yes"}


def slow(func):
    """Skip this test when ``SKIP_SLOW_TESTS`` is set (it runs by default)."""
    import pytest

    reason = "Skipping slow test since SKIP_SLOW_TESTS environment variable is 'true'"
    return pytest.mark.skipif(SKIP_SLOW_TESTS, reason=reason)(func)


def requires_package(*packages) -> Feature:
    """A feature that holds when every named package can be imported.

    Examples
    --------
    >>> import tvm.testing
    >>> @tvm.testing.requires_package("torch")
    ... def test_with_torch():
    ...     import torch
    """
    if not packages:
        raise ValueError("requires_package needs at least one package name")
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    reason = f"Cannot import '{missing[0]}'" if missing else ""
    return Feature(
        f"package_{'_'.join(packages)}", ", ".join(packages), lambda: not missing, reason
    )


# --- targets --------------------------------------------------------------------------------


def _test_targets() -> list:
    text = os.environ.get("TVM_TEST_TARGETS", "")
    if not text.strip():
        return list(DEFAULT_TEST_TARGETS)
    return [t.strip() for t in text.split(";") if t.strip()]


def _kind_runnable(kind: str) -> bool:
    """Whether code for a target kind can be compiled and run on this machine."""
    if kind == "llvm":
        return _llvm_enabled()
    if kind == "c":
        return shutil.which("gcc") is not None or shutil.which("cc") is not None
    if kind in ("cuda", "nvptx"):
        return requires_cuda.enabled
    return False  # no runtime for other device kinds yet


def enabled_targets() -> list:
    """``(target_string, device)`` pairs for the test targets runnable here.

    The candidates are ``TVM_TEST_TARGETS`` (``;``-separated) or ``DEFAULT_TEST_TARGETS``.
    pytvm can run ``llvm`` (with llvmlite) and ``c`` (with a C compiler) on the CPU; CUDA only
    once its code generation exists and a GPU is present.
    """
    from tvm.runtime.device import device

    pairs = []
    for target in _test_targets():
        kind = _target_kind(target)
        if _kind_runnable(kind):
            dev_type = "cpu" if kind in ("llvm", "c") else "cuda"
            pairs.append((target, device(dev_type, 0)))
    return pairs


def device_enabled(target) -> bool:
    """Whether tests for ``target`` run here: a target string, a config dict or a ``Target``;
    only its kind counts (``{"kind": "llvm", "mtriple": "aarch64-linux-gnu"}`` is llvm)."""
    if isinstance(target, dict):
        kind = str(target.get("kind", ""))
    elif isinstance(target, str) or hasattr(target, "kind"):
        kind = _target_kind(target)
    else:
        raise TypeError(
            f"device_enabled expects a target string, dict or Target, got {type(target).__name__}")
    return any(_target_kind(t) == kind for t, _ in enabled_targets())


def _target_kind(target) -> str:
    """The kind of a test target given as a string, a config dict or a ``Target``."""
    from tvm.target import Target  # lazy: tvm.testing imports nothing heavy at import

    return (target if isinstance(target, Target) else Target(target)).kind.name
