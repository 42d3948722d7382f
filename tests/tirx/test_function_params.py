"""PrimFunc parameters as Apache TVM 0.27 shows them: buffer parameters are Buffers.

``func.params`` lists a buffer parameter as its ``Buffer`` whether the TVMScript declared it as
``A: T.Buffer(...)`` or as a handle bound by a top-level ``T.match_buffer``; scalars and bare
handles stay ``Var``s. ``func.param_vars`` is pytvm's handle-level list (kept for lowering).
The names and kinds below were checked against TVM 0.27.
"""

import numpy as np
import pytest

from tvm import te, tirx
from tvm.ffi.structural import structural_equal
from tvm.script import tirx as T
from tvm.tirx.interpreter import run_prim_func


def _add_one():
    @T.prim_func
    def add_one(a: T.handle, b: T.handle, m: T.int32):
        A = T.match_buffer(a, (m,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        for i in range(m):
            B[i] = A[i] + T.float32(1)

    return add_one


def test_buffer_params_are_buffers():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), n: T.int32, h: T.handle):
        B = T.match_buffer(h, (4,), "int8")
        for i in range(4):
            B[i] = T.Cast("int8", A[i])

    kinds = [(type(p).__name__, p.name, tirx.is_buffer_var(p)) for p in f.params]
    assert kinds == [("Buffer", "A", True), ("Var", "n", False), ("Buffer", "B", True)]
    a_buf, n, b_buf = f.params
    assert a_buf.dtype == "float32" and [int(d) for d in a_buf.shape] == [4]
    assert b_buf.dtype == "int8" and n.dtype == "int32"
    # Each Buffer is the very object the body stores to / loads from.
    store = f.body.body
    assert store.buffer is b_buf and store.value.value.buffer is a_buf
    # The handle-level view: one handle Var per buffer parameter, mapped to it.
    handles = f.param_vars
    assert [h.dtype for h in handles] == ["handle", "int32", "handle"]
    assert f.buffer_map[handles[0]] is a_buf and f.buffer_map[a_buf] is a_buf
    assert f.buffer_map.get(n) is None


def test_bare_handle_stays_a_var():
    @T.prim_func
    def f(p: T.handle, x: T.float32):
        T.evaluate(p)

    assert [(type(q).__name__, q.name, q.dtype) for q in f.params] == [
        ("Var", "p", "handle"), ("Var", "x", "float32")]
    assert not any(tirx.is_buffer_var(q) for q in f.params)


def test_te_create_prim_func_params_are_its_buffers():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    f = te.create_prim_func([A, B])
    assert [(type(p).__name__, p.name) for p in f.params] == [("Buffer", "A"), ("Buffer", "B")]
    blocks = []
    tirx.stmt_functor.post_order_visit(
        f.body, lambda n: blocks.append(n) if isinstance(n, tirx.SBlock) and n.name_hint == "B"
        else None)
    assert blocks[0].writes[0].buffer is f.params[1]


def test_constructor_takes_back_its_own_params():
    func = _add_one()
    rebuilt = tirx.PrimFunc(func.params, func.body, buffer_map=func.buffer_map)
    assert all(x is y for x, y in zip(rebuilt.params, func.params))
    assert all(x is y for x, y in zip(rebuilt.param_vars, func.param_vars))
    # Buffers alone (no buffer_map, as TVM 0.27 builds one) make fresh handles, same function.
    again = tirx.PrimFunc(func.params, func.body, attrs=func.attrs)
    assert structural_equal(again, func)
    assert again.params[0] is func.params[0] and again.param_vars[0] is not func.param_vars[0]
    replaced = func.replace(params=func.params[:2] + (func.params[2],))
    assert replaced.params == func.params


def test_specialize_takes_buffer_params():
    func = _add_one()
    a_buf, _b_buf, m = func.params
    sized = func.specialize({a_buf: tirx.decl_buffer((8,), "float32", name="X")})
    # As in TVM 0.27: ``m`` is bound by the buffer's extent and removed; the parameter keeps
    # its buffer (and name), now of extent 8.
    assert [p.name for p in sized.params] == ["A", "B"]
    assert [[int(d) for d in p.shape] for p in sized.params] == [[8], [8]]
    assert sized.body.extent.value == 8
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, dtype="float32")
    run_prim_func(sized, [a, b])
    np.testing.assert_allclose(b, a + 1)
    fixed = func.specialize({m: 4})
    assert [p.name for p in fixed.params] == ["A", "B"]
    with pytest.raises(ValueError, match="buffer Y is not a parameter"):
        func.specialize({tirx.decl_buffer((8,), "float32", name="Y"): 1})


def test_printed_signature_names_the_buffers():
    # TVM 0.27 prints the matched handles as buffer parameters (the first mention of ``m``,
    # before its own parameter, is a string).
    text = _add_one().script()
    assert 'def add_one(A: T.Buffer(("m",), "float32"), B: T.Buffer((m,), "float32"), ' \
        "m: T.int32):" in text


def test_constructor_takes_attrs_in_the_fourth_position():
    # TVM 0.27: ``PrimFunc(params, body, ret_type=None, attrs=None, span=None)``.
    A = tirx.decl_buffer((2,), "float32", name="A")
    func = tirx.PrimFunc([A], tirx.BufferStore(A, 1.0, [0]), None, {"global_symbol": "g"})
    assert func.attrs["global_symbol"] == "g" and func.params == (A,)
    same = tirx.PrimFunc([A], func.body, None, func.attrs)
    assert same.attrs["global_symbol"] == "g"
