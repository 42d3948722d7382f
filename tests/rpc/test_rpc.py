"""tvm.rpc: the in-process session; remote transport says it is not supported yet."""

import numpy as np
import pytest

import tvm
from tvm import relax, rpc
from tvm.script import relax as R


def test_local_session_files():
    sess = rpc.LocalSession()
    sess.upload(b"abc", "x.bin")
    assert bytes(sess.download("x.bin")) == b"abc"
    assert sess.listdir() == ["x.bin"]
    sess.remove("x.bin")
    assert sess.listdir() == []
    with pytest.raises(ValueError, match="inside the session directory"):
        sess.download("../etc/passwd")
    assert sess.cpu() == tvm.cpu()


def test_local_session_runs_an_exported_executable(tmp_path):
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        return R.add(x, x)

    path = tmp_path / "lib.so"
    relax.build(tvm.IRModule({"main": main}), "llvm").export_library(str(path))
    sess = rpc.LocalSession()
    sess.upload(str(path))
    vm = relax.VirtualMachine(sess.load_module("lib.so"), sess.cpu())
    x = np.arange(3, dtype="float32")
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), 2 * x)


def test_remote_transport_not_supported_yet():
    with pytest.raises(ValueError, match="not supported yet"):
        rpc.Server("127.0.0.1")
    with pytest.raises(ValueError, match="not supported yet"):
        rpc.connect("127.0.0.1", 9090)
