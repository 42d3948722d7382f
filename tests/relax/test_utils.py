"""relax.utils.copy_with_new_vars."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.relax.analysis import all_vars, defined_symbolic_vars
from tvm.relax.utils import copy_with_new_vars
from tvm.tirx.expr import Var as TirVar


def _func():
    n = TirVar("n", "int64")
    x = relax.Var("x", relax.TensorType([n, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(op.add(x, x))
            s = bb.emit(relax.ShapeExpr([n, 4]))
            gv = bb.emit_output(relax.Tuple([lv, s]))
        bb.emit_func_output(gv)
    return bb.get()["main"]


def test_copy_shares_no_variables():
    func = _func()
    copy = copy_with_new_vars(func)
    tvm.ir.assert_structural_equal(copy, func)
    old_ids = {id(v) for v in all_vars(func)}
    assert not old_ids & {id(v) for v in all_vars(copy)}
    old_sym = {id(v) for v in defined_symbolic_vars(func)}
    assert not old_sym & {id(v) for v in defined_symbolic_vars(copy)}
    # The symbolic var inside the ShapeExpr follows the new parameter's.
    new_n = copy.params[0].ty.shape.values[0]
    shape_binding = copy.body.blocks[0].bindings[1]
    assert shape_binding.value.values[0] is new_n


def test_copy_rejects_non_function():
    with pytest.raises(TypeError, match="expects a relax.Function"):
        copy_with_new_vars(relax.const(1.0))
