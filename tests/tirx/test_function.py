"""PrimFunc: construction, attributes, buffer parameters, specialize, IRModule membership."""

import numpy as np
import pytest

from tvm import tirx
from tvm.ffi.structural import structural_equal
from tvm.ir import DictAttrs, FuncType, IRModule
from tvm.tirx.interpreter import run_prim_func


def _scale_func(n=None):
    """``B[i] = A[i] * s`` over a buffer of (possibly symbolic) length ``n``."""
    n = n if n is not None else tirx.Var("n", "int32")
    a, b = tirx.Var("a", "handle"), tirx.Var("b", "handle")
    s = tirx.Var("s", "float32")
    A = tirx.decl_buffer((n,), "float32", name="A")
    B = tirx.decl_buffer((n,), "float32", name="B")
    i = tirx.Var("i", "int32")
    body = tirx.For(i, 0, n, tirx.ForKind.SERIAL, tirx.BufferStore(B, A[i] * s, [i]))
    return tirx.PrimFunc([a, b, s], body, buffer_map={a: A, b: B}), n, s


def test_params_buffer_map_and_type():
    func, _n, _s = _scale_func()
    # As in TVM 0.27, a buffer parameter is listed as its Buffer; the handles stay internal.
    assert [p.name for p in func.params] == ["A", "B", "s"]
    assert [p.name for p in func.param_vars] == ["a", "b", "s"]
    assert [b.name for b in func.buffer_map.values()] == ["A", "B"]
    assert func.ret_type is None
    assert isinstance(func.ty, FuncType) and len(func.ty.arg_types) == 3
    assert isinstance(func.attrs, DictAttrs) and len(func.attrs) == 0


def test_buffer_params_become_mapped_handles():
    A = tirx.decl_buffer((3,), "float32", name="A")
    func = tirx.PrimFunc([A], tirx.BufferStore(A, 0.0, [0]))
    (param,) = func.param_vars
    assert param.name == "A" and param.dtype == "handle" and func.buffer_map[param] is A
    assert func.params == (A,) and func.buffer_map[A] is A


def test_with_attr_without_attr():
    func, _, _ = _scale_func()
    f1 = func.with_attr("global_symbol", "scale")
    assert f1.attrs["global_symbol"] == "scale" and "global_symbol" not in func.attrs
    f2 = f1.with_attr({"tirx.noalias": True, "s_tir": True})
    assert dict(f2.attrs.items()) == {"global_symbol": "scale", "tirx.noalias": True,
                                      "s_tir": True}
    f3 = f2.without_attr("s_tir")
    assert "s_tir" not in f3.attrs and f3.body is func.body
    assert f3.ty is not None
    assert f2.with_body(tirx.Evaluate(0)).body.value.value == 0


def test_constructor_errors():
    A = tirx.decl_buffer((3,), "float32", name="A")
    x = tirx.Var("x", "handle")
    with pytest.raises(ValueError, match="buffer_map key x is not a parameter"):
        tirx.PrimFunc([], tirx.Evaluate(0), buffer_map={x: A})
    with pytest.raises(TypeError, match="params must be tirx.Var or Buffer"):
        tirx.PrimFunc([3], tirx.Evaluate(0))
    with pytest.raises(TypeError, match="body must be a Stmt"):
        tirx.PrimFunc([], 0)


def test_specialize_scalar_and_buffer():
    func, _n, s = _scale_func()
    fixed = func.specialize({s: 2.0})
    assert [p.name for p in fixed.params] == ["A", "B"]
    a = np.arange(4, dtype="float32")
    b = np.zeros(4, dtype="float32")
    run_prim_func(fixed, [a, b])
    np.testing.assert_allclose(b, a * 2)
    A8 = tirx.decl_buffer((8,), "float32", name="A")
    sized = func.specialize({func.params[0]: A8})
    assert [int(d.value) for d in sized.buffer_map[sized.params[1]].shape] == [8]
    assert sized.body.extent.value == 8
    with pytest.raises(ValueError, match="not a parameter"):
        func.specialize({tirx.Var("z", "int32"): 1})


def test_prim_func_in_ir_module():
    func, _, _ = _scale_func()
    mod = IRModule({"scale": func})
    assert mod["scale"] is func
    assert mod.get_global_var("scale").name_hint == "scale"
    other, _, _ = _scale_func()
    assert structural_equal(mod, IRModule({"scale": other}))


def test_buffer_map_compares_in_parameter_order():
    def make(names):
        bufs = [tirx.decl_buffer((2 + k,), "float32", name=n) for k, n in enumerate(names)]
        body = tirx.BufferStore(bufs[0], bufs[1][0], [0])
        return tirx.PrimFunc(bufs, body)

    # Alpha-equivalent although the names sort differently.
    assert structural_equal(make(["x", "y"]), make(["y", "x"]))
    func = make(["a", "b"])
    assert dict(func.buffer_map)[func.param_vars[1]].name == "b"
    assert func.buffer_map.keys() == list(func.param_vars)
    assert func.params[0] in func.buffer_map and func.param_vars[0] in func.buffer_map
    with pytest.raises(KeyError, match="not a buffer parameter"):
        func.buffer_map[tirx.Var("z", "handle")]


def test_pickle_and_deepcopy_round_trip():
    import copy
    import pickle

    func, _, _ = _scale_func()
    for clone in (pickle.loads(pickle.dumps(func)), copy.deepcopy(func)):
        assert structural_equal(clone, func)
        assert clone.buffer_map[clone.params[0]].name == "A"
