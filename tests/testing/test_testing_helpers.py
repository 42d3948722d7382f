"""tvm.testing: assert_allclose, markers, targets, parameter/parameters/fixture, main()."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvm
import tvm.testing


def test_assert_allclose():
    tvm.testing.assert_allclose(np.ones(3), np.ones(3) + 1e-9)
    tvm.testing.assert_allclose(tvm.runtime.tensor(np.ones(2, "float32")), [1.0, 1.0])
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        tvm.testing.assert_allclose(np.ones(3), np.ones(3) * 1.1)
    # A shape mismatch fails even where NumPy would broadcast.
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.ones((1, 3)), np.ones(3))
    tvm.testing.assert_allclose(np.ones(3), np.ones(3) * 1.05, rtol=0.1)


def test_assert_structural_equal_reexported():
    from tvm.ir.structural import assert_structural_equal

    assert tvm.testing.assert_structural_equal is assert_structural_equal


def test_features():
    assert tvm.testing.requires_llvm.enabled  # llvmlite is a dependency
    marks = tvm.testing.requires_cuda.marks()
    assert {m.name for m in marks} >= {"gpu", "cuda", "skipif"}
    present = tvm.testing.requires_package("numpy")
    missing = tvm.testing.requires_package("numpy", "surely_not_a_package_xyz")
    assert present.enabled and not missing.enabled
    skip = next(m for m in missing.marks() if m.name == "skipif")
    assert skip.kwargs["reason"] == "Cannot import 'surely_not_a_package_xyz'"
    with pytest.raises(ValueError, match="at least one package"):
        tvm.testing.requires_package()


def test_enabled_targets_and_device_enabled(monkeypatch):
    monkeypatch.delenv("TVM_TEST_TARGETS", raising=False)
    targets = dict(tvm.testing.enabled_targets())
    assert "llvm" in targets and targets["llvm"] == tvm.cpu()
    assert tvm.testing.device_enabled("llvm")
    assert tvm.testing.device_enabled("llvm -mcpu=skylake")
    assert not tvm.testing.device_enabled("metal")
    # A config dict or a Target counts by its kind (a cross triple is still llvm).
    assert tvm.testing.device_enabled({"kind": "llvm", "mtriple": "aarch64-linux-gnu"})
    assert tvm.testing.device_enabled(tvm.target.Target("llvm"))
    assert not tvm.testing.device_enabled({"kind": "metal"})
    monkeypatch.setenv("TVM_TEST_TARGETS", "c;metal")
    kinds = [t for t, _ in tvm.testing.enabled_targets()]
    assert "llvm" not in kinds and "metal" not in kinds
    assert not tvm.testing.device_enabled("llvm")
    with pytest.raises(TypeError, match="target string"):
        tvm.testing.device_enabled(3)


def test_parameter_validation():
    with pytest.raises(ValueError, match="at least one value"):
        tvm.testing.parameter()
    with pytest.raises(ValueError, match="same length"):
        tvm.testing.parameters((1, 2), (3,))
    with pytest.raises(ValueError, match="by_dict"):
        tvm.testing.parameter(1, by_dict={"a": 1})


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute 'definitely_missing'"):
        tvm.testing.definitely_missing  # noqa: B018


USER_TEST_FILE = """
import numpy as np
import tvm
import tvm.testing

dtype = tvm.testing.parameter("float32", "int8")
size = tvm.testing.parameter(by_dict={"small": 2, "big": 5})
shape, fill = tvm.testing.parameters(((2,), 1), ((3, 1), 7))
CALLS = []

@tvm.testing.fixture
def doubled(size):
    return size * 2

@tvm.testing.fixture(cache_return_value=True)
def expensive(size):
    CALLS.append(size)
    return [size]

def test_dtype(dtype):
    assert dtype in ("float32", "int8")

def test_pairs(shape, fill):
    assert (shape, fill) in (((2,), 1), ((3, 1), 7))

def test_fixture(doubled, size):
    assert doubled == 2 * size

def test_cached_a(expensive, size):
    expensive.append("mutated")
    assert expensive[0] == size

def test_cached_b(expensive, size):
    assert expensive == [size]

def test_cache_counted():
    assert sorted(CALLS) == [2, 5]

@tvm.testing.requires_llvm
def test_llvm_runs():
    pass

@tvm.testing.requires_package("surely_not_a_package_xyz")
def test_pkg_skipped():
    pass

@tvm.testing.requires_gpu
def test_gpu():
    pass

@tvm.testing.uses_gpu
def test_uses_gpu_runs_anywhere():
    pass

@tvm.testing.slow
def test_slow_one():
    pass

if __name__ == "__main__":
    tvm.testing.main()
"""


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user_tests")
    path = folder / "test_user_file.py"
    path.write_text(textwrap.dedent(USER_TEST_FILE))
    (folder / "conftest.py").write_text('pytest_plugins = ["tvm.testing.plugin"]\n')
    env = dict(os.environ, TVM_DEVICE_BACKEND_AUTOLOAD="0", SKIP_SLOW_TESTS="1")
    env.pop("PYTEST_ADDOPTS", None)
    # tvm.testing.main() runs pytest on the file itself.
    return subprocess.run(
        [sys.executable, str(path), "-v", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=300,
    )


def test_user_file_outcome(user_run):
    out = user_run.stdout
    assert user_run.returncode == 0, out + user_run.stderr
    assert "test_dtype[float32] PASSED" in out and "test_dtype[int8] PASSED" in out
    # parameters() pairs values up instead of crossing them: exactly two runs.
    assert out.count("::test_pairs[") == 2
    assert "test_fixture[small] PASSED" in out and "test_fixture[big] PASSED" in out
    assert "test_cache_counted PASSED" in out
    assert "test_llvm_runs PASSED" in out
    assert "Cannot import 'surely_not_a_package_xyz'" in out
    assert "test_uses_gpu_runs_anywhere PASSED" in out
    assert "test_slow_one SKIPPED" in out  # the run sets SKIP_SLOW_TESTS=1
    assert "SKIP_SLOW_TESTS environment variable is 'true'" in out


def test_user_file_gpu_marker(user_run):
    from tvm.runtime.device import cuda_device_count

    expected = "PASSED" if cuda_device_count() > 0 else "SKIPPED"
    assert f"test_gpu {expected}" in user_run.stdout
    if expected == "SKIPPED":
        assert "No GPU present" in user_run.stdout
