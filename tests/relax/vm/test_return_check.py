"""The VM checks a returned value against the function's return annotation when the body's
type does not prove it (Apache TVM's VMShapeLower does the same)."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def _vm(mod):
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())


def _t(shape, dtype="float32"):
    return tvm.runtime.tensor(np.zeros(shape, dtype))


def test_return_value_checked_against_annotation():
    @I.ir_module
    class Mod:
        @R.function
        def foo(x: R.Tensor(["n", "m"], "int32"), y: R.Any) -> R.Tensor(["m", "n"]):
            return y

    vm = _vm(Mod)
    out = vm["foo"](_t((1, 2), "int32"), _t((2, 1)))
    assert out.shape == (2, 1)
    with pytest.raises(RuntimeError, match="return value expects"):
        vm["foo"](_t((1, 2), "int32"), _t((1, 2)))  # dims swapped
    with pytest.raises(ValueError, match="return value .*ndim 3, expected ndim 2"):
        vm["foo"](_t((1, 2), "int32"), _t((2, 1, 1)))


def test_match_cast_rank_mismatch_names_ndim():
    @I.ir_module
    class Mod:
        @R.function
        def foo(x: R.Tensor(dtype="float32")) -> R.Shape:
            n, m = T.int64(), T.int64()
            _ = R.match_cast(x, R.Tensor((n, m), "float32"))
            return R.shape([n * 2, m * 3])

    vm = _vm(Mod)
    assert tuple(vm["foo"](_t((4, 5)))) == (8, 15)
    with pytest.raises(ValueError, match="match_cast.*ndim 1, expected ndim 2"):
        vm["foo"](_t((3,)))
