"""tvm.ir.save_json / load_json: round trips of TIR and Relax graphs, determinism, bad input."""

import numpy as np
import pytest

import tvm
from tvm import relax, tirx
from tvm.script import tirx as T


@T.prim_func(private=True, s_tir=True)
def _scale(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.parallel(16):
        if i < n:
            B[i] = A[i] * T.float32(0.5) + T.exp(A[i])


def test_prim_func_round_trip_is_structurally_equal_and_stable():
    text = tvm.ir.save_json(_scale)
    back = tvm.ir.load_json(text)
    tvm.ir.assert_structural_equal(back, _scale)
    assert tvm.ir.save_json(back) == text
    # the loop variable is one object in the rebuilt function (shared, not copied)
    loop = back.body
    store = loop.body.then_case
    assert store.indices[0] is loop.loop_var


def test_module_with_ops_enums_and_constants():
    x = tirx.Var("x", "int64")
    expr = tirx.Select(x > 3, tirx.const(float("inf"), "float32"), tirx.const(-0.0, "float32"))
    back = tvm.ir.load_json(tvm.ir.save_json(expr))
    tvm.ir.assert_structural_equal(back, expr, map_free_vars=True)
    assert back.true_value.value == float("inf")

    call = tirx.call_intrin("float32", "tirx.exp", tirx.const(1.0, "float32"))
    back = tvm.ir.load_json(tvm.ir.save_json(call))
    assert back.op is call.op  # operators are looked up by name, not copied

    data = np.arange(6, dtype="float32").reshape(2, 3)
    const = relax.const(data)
    back = tvm.ir.load_json(tvm.ir.save_json(const))
    np.testing.assert_array_equal(back.data.numpy(), data)


def test_foreign_or_broken_text_is_rejected():
    with pytest.raises(ValueError, match="not pytvm's IR JSON format"):
        tvm.ir.load_json('{"root": 1, "nodes": [], "b64ndarrays": []}')
    with pytest.raises(ValueError, match="not JSON text"):
        tvm.ir.load_json("{")
    evil = '{"format":"pytvm-ir-json","version":1,"root":{"reduce":"os:system","args":["true"]},"nodes":[]}'
    with pytest.raises(ValueError, match="refusing to call os:system"):
        tvm.ir.load_json(evil)
    with pytest.raises(TypeError, match="cannot write a value of type object"):
        tvm.ir.save_json([object()])
