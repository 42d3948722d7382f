"""relax.Function.bind_params: parameters replaced by expressions or constants."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar


def test_function_bind_params_with_an_expression_and_an_array():
    n = TirVar("n", "int64")
    x = relax.Var("x", relax.TensorType([n], "float32"))
    w = relax.Var("w", relax.TensorType([n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x, w]):
        bb.emit_func_output(bb.emit(op.add(x, w)))
    func = bb.get()["f"]
    # A Relax expression replaces the parameter; its extents define n.
    y = relax.Var("y", relax.TensorType([4], "float32"))
    bound = func.bind_params({x: y})
    assert [p.name_hint for p in bound.params] == ["w"]
    tvm.ir.assert_structural_equal(bound.params[0].ty, relax.TensorType([4], "float32"))
    assert bound.body.blocks[0].bindings[0].value.args[0] is y
    # An array becomes a constant, named by the parameter's name.
    const = func.bind_params({"w": np.ones(3, "float32")})
    assert [p.name_hint for p in const.params] == ["x"]
    assert isinstance(const.body.blocks[0].bindings[0].value.args[1], relax.Constant)
    with pytest.raises(ValueError, match="has no parameter named 'z'"):
        func.bind_params({"z": np.ones(3, "float32")})
