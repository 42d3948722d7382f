"""tvm.relax.testing.vm (test.vm.* functions, check_saved_func) and runtime_builtin codes."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing.runtime_builtin import MakeShapeCode, MatchShapeCode
from tvm.relax.testing.vm import check_saved_func
from tvm.script import relax as R


def test_registered_functions():
    a = tvm.runtime.tensor(np.array([[1.0, 2.0]], "float32"))
    b = tvm.runtime.tensor(np.array([[3.0, 4.0]], "float32"))
    get = tvm.get_global_func
    np.testing.assert_allclose(get("test.vm.add")(a, b).numpy(), [[4.0, 6.0]])
    np.testing.assert_allclose(get("test.vm.mul")(a, b).numpy(), [[3.0, 8.0]])
    np.testing.assert_allclose(get("test.vm.subtract_one")(a).numpy(), [[0.0, 1.0]])
    assert not get("test.vm.equal_zero")(a).numpy()
    out = tvm.runtime.empty((1, 4), "float32")
    get("test.vm.tile")(a, out)
    np.testing.assert_allclose(out.numpy(), [[1.0, 2.0, 1.0, 2.0]])
    assert get("test.vm.add_scalar")(2, 3) == 5
    assert get("test.vm.get_device_id")(tvm.cpu(3)) == 3
    assert get("test.vm.check_if_defined")(a) and not get("test.vm.check_if_defined")(None)


def test_check_saved_func_runs_a_packed_call():
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        z = R.call_pure_packed("test.vm.add", x, y, sinfo_args=R.Tensor((2,), "float32"))
        return z

    mod = tvm.IRModule({"main": main})
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    a = tvm.runtime.tensor(np.array([1.0, 2.0], "float32"))
    res = check_saved_func(vm, "main", a, a)
    np.testing.assert_allclose(res.numpy(), [2.0, 4.0])


def test_shape_codes_drive_the_vm_builtins():
    from tvm.relax.vm import builtins

    assert [int(c) for c in MatchShapeCode] == [0, 1, 2, 3]
    heap = [0, 0]
    x = np.zeros((3, 5), "float32")
    ms = MatchShapeCode
    builtins.match_shape(x, heap, 2, ms.STORE_TO_HEAP, 0, ms.ASSERT_EQUAL_TO_IMM, 5, "err")
    assert heap[0] == 3
    with pytest.raises(ValueError, match="mismatch"):
        builtins.match_shape(x, heap, 2, ms.ASSERT_EQUAL_TO_LOAD, 1, ms.NO_OP, 0, "err")
    shape = builtins.make_shape(heap, 2, MakeShapeCode.LOAD_SHAPE, 0, MakeShapeCode.USE_IMM, 7)
    assert shape == (3, 7)
