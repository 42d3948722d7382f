"""VMBuiltinLower (src/tvm/relax/transform/vm_builtin_lower.py): shape builtins and errors."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_reshape_to_a_shape_variable_becomes_the_packed_builtin_and_runs():
    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor([6], "float32"), t: R.Tensor([2], "int64")):
            R.func_attr({"relax.force_pure": True})
            shape = R.tensor_to_shape(t)
            out = R.reshape(A, shape)
            return out

    after = relax.transform.VMBuiltinLower()(Before)
    text = after.script()
    assert 'R.call_packed("vm.builtin.tensor_to_shape", t' in text
    assert 'R.call_packed("vm.builtin.reshape", A, shape' in text
    assert "out: R.Tensor(shape, dtype=\"float32\")" in text
    ex = relax.build(Before, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](np.arange(6, dtype="float32"), np.array([3, 2], "int64"))
    np.testing.assert_array_equal(out.numpy(), np.arange(6, dtype="float32").reshape(3, 2))


def test_pure_function_keeps_the_shape_ops():
    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor([6], "float32"), t: R.Tensor([2], "int64")):
            out = R.reshape(A, R.tensor_to_shape(t))
            return out

    assert relax.transform.VMBuiltinLower()(Before).script() == Before.script()


def test_reshape_to_a_literal_shape_stays():
    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor([6], "float32")):
            R.func_attr({"relax.force_pure": True})
            out = R.reshape(A, R.shape([2, 3]))
            return out

    assert "R.reshape(A" in relax.transform.VMBuiltinLower()(Before).script()


def test_symbolic_builtin_alloc_tensor_is_refused():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("m",), "float32")):
            R.func_attr({"relax.force_pure": True})
            m = T.int64()
            alloc = R.builtin.alloc_tensor(R.shape([m]), runtime_device_index=0, dtype="float32")
            return alloc

    with pytest.raises(RuntimeError, match="LowerAllocTensor"):
        relax.transform.VMBuiltinLower()(Before)
