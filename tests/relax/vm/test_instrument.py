"""VirtualMachine.set_instrument (src/tvm/relax/vm/machine.py) and
relax.testing.lib_comparator.LibCompareVMInstrument."""

import numpy as np
import pytest

import tvm
from tvm import relax, topi
from tvm.relax.testing.lib_comparator import LibCompareVMInstrument


def _exec():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([4], "float32"))
    with bb.function("main", [x]):
        y = bb.emit_te(topi.add, x, x, primfunc_name_hint="double")
        bb.emit_func_output(bb.emit_te(topi.nn.relu, y, primfunc_name_hint="relu"))
    return relax.build(bb.get(), "llvm")


def test_instrument_sees_and_can_skip_kernels():
    vm = relax.VirtualMachine(_exec(), tvm.cpu())
    seen = []

    def instrument(func, name, before_run, ret_val, *args):
        assert callable(func)
        seen.append((name, before_run))
        if name == "double":
            return relax.VMInstrumentReturnKind.SKIP_RUN
        return relax.VMInstrumentReturnKind.NO_OP

    vm.set_instrument(instrument)
    x = np.array([-1, 2, -3, 4], "float32")
    vm["main"](x)
    assert seen == [("double", True), ("relu", True), ("relu", False)]
    vm.set_instrument(None)
    np.testing.assert_array_equal(vm["main"](x).numpy(), [0, 4, 0, 8])
    with pytest.raises(TypeError, match="callable"):
        vm.set_instrument(3)


def test_lib_comparator_runs_every_kernel_against_the_reference():
    ex = _exec()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    cmp = LibCompareVMInstrument(vm.module.imports[0], tvm.cpu(), verbose=False)
    vm.set_instrument(cmp)
    out = vm["main"](np.array([-1, 2, -3, 4], "float32"))
    np.testing.assert_array_equal(out.numpy(), [0, 4, 0, 8])
    assert cmp.compared == ["double", "relu"]
