"""relax.take with a scalar ``R.Prim`` index (TVM's ``R.take(x, R.prim_value(i))``): the axis is
dropped; a constant index is folded into the kernel, a variable one is a scalar parameter."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.script import relax as R


def test_type_drops_the_axis():
    x = relax.Var("x", relax.TensorType((2, 3, 4), "float32"))
    i = relax.Var("i", relax.PrimType("int64"))
    ty = relax.BlockBuilder().normalize(op.take(x, i, axis=1)).ty
    assert str(ty) == 'R.Tensor((2, 4), dtype="float32")'
    with pytest.raises(TypeError, match="integer dtype"):
        relax.BlockBuilder().normalize(op.take(x, relax.PrimValue(tvm.tirx.const(1.0)), axis=1))


@R.function
def _take_var(x: R.Tensor((2, 3, 4), "float32"), index: R.Prim("int64")):
    return R.take(x, index, axis=1)


@R.function
def _take_const(x: R.Tensor((2, 3, 4), "float32")):
    return R.take(x, R.prim_value(2), axis=-1)


def test_legalized_kernels():
    var_kernel = relax.transform.LegalizeOps()(tvm.IRModule.from_expr(_take_var))["take"]
    assert [str(p.dtype) for p in var_kernel.param_vars] == ["handle", "int64", "handle"]
    const_kernel = relax.transform.LegalizeOps()(tvm.IRModule.from_expr(_take_const))["take"]
    assert len(const_kernel.params) == 2  # the constant index is part of the kernel


def test_results_match_numpy():
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    vm = relax.VirtualMachine(relax.build(tvm.IRModule.from_expr(_take_var), "llvm"), tvm.cpu())
    for index in range(3):
        got = vm["_take_var"](tvm.runtime.tensor(data), index).numpy()
        np.testing.assert_array_equal(got, np.take(data, index, axis=1))
    vm = relax.VirtualMachine(relax.build(tvm.IRModule.from_expr(_take_const), "llvm"),
                              tvm.cpu())
    np.testing.assert_array_equal(vm["_take_const"](tvm.runtime.tensor(data)).numpy(), data[..., 2])


def test_kernel_reads_the_gathered_buffer_before_its_index():
    # TVM's region order: the loaded buffer, then the buffers its indices load from.
    @R.function
    def gather(x: R.Tensor((2, 3), "float32"), idx: R.Tensor((4,), "int64")):
        return R.take(x, idx, axis=1)

    kernel = relax.transform.LegalizeOps()(tvm.IRModule.from_expr(gather))["take"]
    assert "T.reads(x[v_ax0, idx[v_ax1]], idx[v_ax1])" in kernel.script()
