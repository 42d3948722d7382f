"""R.call_tir_inplace: TVMScript round trip, TVM's checks of ``inplace_indices`` and types,
CallTIRRewrite's lowering, and the VM writing into the given tensors."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class AddInto:
    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((2, 3), "int32"), B: T.Buffer((2, 3), "int32"),
            C: T.Buffer((2, 3), "int32")):
        # A += B, and C = A * 2 (a new output)
        for i, j in T.grid(2, 3):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + B[vi, vj]
                C[vi, vj] = A[vi, vj] * 2

    @R.function
    def main(x: R.Tensor((2, 3), "int32"), y: R.Tensor((2, 3), "int32")):
        res = R.call_tir_inplace(
            AddInto.add, (x, y), [0, -1],
            [R.Tensor((2, 3), "int32"), R.Tensor((2, 3), "int32")],
        )
        return res


def test_round_trip_and_printed_form():
    text = AddInto.script()
    assert "R.call_tir_inplace(cls.add, (x, y), out_ty=[" in text
    assert "inplace_indices=[0, -1])" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), AddInto)


def test_rewrite_allocates_only_new_outputs():
    lowered = relax.transform.CallTIRRewrite()(AddInto)["main"].script()
    assert lowered.count("R.builtin.alloc_tensor") == 1
    assert "add(x, y, alloc)" in lowered and "= x, alloc" in lowered


def test_vm_writes_into_the_input_and_returns_it():
    x = tvm.runtime.tensor(np.arange(6, dtype="int32").reshape(2, 3))
    y = tvm.runtime.tensor(np.full((2, 3), 10, "int32"))
    vm = relax.VirtualMachine(relax.build(AddInto, "llvm"), tvm.cpu())
    first, second = vm["main"](x, y)
    expected = np.arange(6).reshape(2, 3) + 10
    np.testing.assert_array_equal(x.numpy(), expected)  # written in place
    assert first == x
    np.testing.assert_array_equal(second.numpy(), expected * 2)


def _call(indices, out_ty, args=None):
    x = relax.Var("x", relax.TensorType((2, 3), "int32"))
    y = relax.Var("y", relax.TensorType((2, 3), "int32"))
    gv = relax.GlobalVar("f")
    call = relax.call_tir_inplace(gv, args or [x, y], indices, out_ty)
    return relax.BlockBuilder().normalize(call)


@pytest.mark.parametrize(
    "indices, message",
    [
        ([0, 0], "appears more than once"),
        ([-1, -1], "At least one index must have a value other than -1"),
        ([2, -1], "out of range"),
        ([0], "an in-place index specified for each output"),
    ],
)
def test_index_errors(indices, message):
    t = relax.TensorType((2, 3), "int32")
    with pytest.raises(ValueError, match=message):
        _call(indices, [t, t])


@I.ir_module(check_well_formed=False)
class WrongShape:
    @T.prim_func(s_tir=True)
    def inc(A: T.Buffer((6,), "int32")):
        for i in range(6):
            with T.sblock("inc"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + 1

    @R.function
    def main(x: R.Tensor((6,), "int32")):
        return R.call_tir_inplace(WrongShape.inc, x, 0, R.Tensor((3, 2), "int32"))


def test_type_mismatch_is_a_well_formedness_error():
    # Parsed (the check is FValidate's), and rejected by the well-formedness check.
    assert not relax.analysis.check_well_formed(WrongShape)
    with pytest.raises(ValueError, match="identical shape and dtype"):
        validate = tvm.ir.Op.get("relax.call_tir_inplace").get_attr("FValidate")
        validate(WrongShape["main"].body.blocks[0].bindings[0].value)
