"""The annotated public API passes ``mypy --strict`` (the ``[tool.mypy]`` section of
pyproject.toml names the files), and the package ships ``py.typed`` (PEP 561)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tvm

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

#: The public API issue 23 asks to be annotated, and where each lives.
PUBLIC_API = {
    "tvm.compile": "src/tvm/driver/build_module.py",
    "relax.build": "src/tvm/driver/relax_build.py",
    "relax.build (re-export)": "src/tvm/relax/vm_build.py",
    "relax.VirtualMachine": "src/tvm/relax/vm/machine.py",
    "runtime.Tensor": "src/tvm/runtime/tensor.py",
    "target.Target": "src/tvm/target/target.py",
    "ir.IRModule": "src/tvm/ir/module.py",
    "transform.Pass": "src/tvm/ir/transform.py",
    "relax.BlockBuilder": "src/tvm/relax/block_builder.py",
}


def _pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(PYPROJECT, "rb") as f:
        return tomllib.load(f)


def _mypy_config():
    return _pyproject()["tool"]["mypy"]


def test_py_typed_is_shipped():
    assert (Path(tvm.__file__).parent / "py.typed").is_file()
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["tvm"]


def test_config_checks_the_public_api_strictly():
    config = _mypy_config()
    assert config["strict"] is True
    assert sorted(config["files"]) == sorted(PUBLIC_API.values())
    for path in config["files"]:
        assert (ROOT / path).is_file(), path


def test_mypy_strict_passes_on_the_public_api(tmp_path):
    pytest.importorskip("mypy")
    env = dict(os.environ, MYPY_FORCE_COLOR="0")
    # --strict again on the command line: the config cannot switch it off by accident.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", env=env, timeout=600,
        check=False,
    )
    assert proc.returncode == 0, f"mypy --strict found problems:\n{proc.stdout}{proc.stderr}"
    assert proc.stdout.strip() == ""


def test_annotations_are_visible_to_users():
    """The signatures carry the types (what an editor or mypy in user code sees)."""
    import inspect

    from tvm import relax
    from tvm.runtime import Tensor

    assert inspect.signature(tvm.compile).return_annotation != inspect.Signature.empty
    assert "TargetLike" in str(inspect.signature(tvm.compile).parameters["target"].annotation)
    assert inspect.signature(relax.BlockBuilder.emit).return_annotation == "Var"
    assert inspect.signature(Tensor.numpy).return_annotation == "np.ndarray"
    assert inspect.signature(relax.VirtualMachine.__getitem__).return_annotation \
        == "Callable[..., Any]"
