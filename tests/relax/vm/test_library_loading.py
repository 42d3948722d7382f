"""Loading exported libraries (issue 22, defect 10): a relative path works, and a damaged VM
program inside a library is a ValueError naming the file (never a raw decoding error)."""

import os

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.add(x, x)
            return y

    path = tmp_path_factory.mktemp("lib") / "k.so"
    tvm.compile(Module, target="llvm").export_library(str(path))
    return path


def _run(lib):
    vm = relax.VirtualMachine(lib, tvm.cpu())
    return vm["main"](tvm.runtime.tensor(np.ones(4, "float32"))).numpy()


def test_load_module_with_a_relative_path(library, monkeypatch):
    monkeypatch.chdir(library.parent)
    lib = tvm.runtime.load_module("k.so")
    np.testing.assert_allclose(_run(lib), 2.0)
    assert lib.library_path == os.path.join(str(library.parent), "k.so")


def _damaged(library, tmp_path, offset, byte, name):
    data = bytearray(library.read_bytes())
    start = data.find(b"pytvm-relax-vm-1:")
    assert start >= 0
    data[start + offset] = byte
    out = tmp_path / name
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize(
    ("offset", "byte", "words"),
    [
        (100, ord("!"), "bad base64"),
        (300, 0xFF, "not valid text"),
        (400, ord("Q"), "checksum does not match"),
        (5, ord("X"), "unknown format"),
        (30, ord("z"), "checksum does not match"),
    ],
)
def test_a_damaged_vm_program_is_a_value_error_naming_the_file(
    library, tmp_path, offset, byte, words
):
    bad = _damaged(library, tmp_path, offset, byte, f"bad{offset}.so")
    lib = tvm.runtime.load_module(str(bad))
    with pytest.raises(ValueError, match=words) as info:
        _run(lib)
    assert str(bad) in str(info.value)
