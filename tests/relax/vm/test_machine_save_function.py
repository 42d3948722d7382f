"""VirtualMachine.save_function and the tvm.runtime.vm module path."""

import numpy as np
import pytest

import tvm
from tvm import relax, topi


def _vm():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([3], "float32"))
    y = relax.Var("y", relax.TensorType([3], "float32"))
    with bb.function("main", [x, y]):
        bb.emit_func_output(bb.emit_te(topi.add, x, y))
    return relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())


def test_saved_function_repeats_the_call():
    vm = _vm()
    a = np.arange(3, dtype="float32")
    b = np.ones(3, dtype="float32")
    vm.save_function("main", "main_saved", a, b)
    np.testing.assert_allclose(vm["main_saved"]().numpy(), a + 1)
    np.testing.assert_allclose(vm["main_saved"]().numpy(), a + 1)
    vm.save_function("main", "by_name", a, y=tvm.runtime.tensor(2 * b))
    np.testing.assert_allclose(vm["by_name"]().numpy(), a + 2)
    vm.save_function("main", "no_ret", a, b, include_return=False)
    assert vm["no_ret"]() is None


def test_save_function_errors():
    vm = _vm()
    a = np.zeros(3, dtype="float32")
    with pytest.raises(ValueError, match="cannot be overridden"):
        vm.save_function("main", "main", a, a)
    with pytest.raises(ValueError, match="no parameter 'z'"):
        vm.save_function("main", "s", a, z=a)
    with pytest.raises(ValueError, match="no function 'nope'"):
        vm.save_function("nope", "s")


def test_runtime_vm_path_and_device_from_target():
    from tvm.runtime.vm import Executable, VirtualMachine

    assert VirtualMachine is relax.VirtualMachine and Executable is relax.vm.Executable
    with pytest.raises(AttributeError):
        tvm.runtime.vm.NotAThing  # noqa: B018
    assert tvm.device_from_target("llvm") == tvm.cpu(0)
    assert tvm.device_from_target({"kind": "cuda"}, 2) == tvm.cuda(2)
