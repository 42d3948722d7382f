"""``T.target``, ``T.comm_reducer``, ``T.ramp``/``T.broadcast``, ``T.bind``, vector dtype
constructors and ``T.fabs``: parsed from TVMScript and printed back."""

import pytest

import tvm
from tvm import tirx
from tvm.ir import PointerType, PrimType
from tvm.script import tirx as T


def _roundtrip(func):
    text = func.script()
    again = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(func, again)
    assert again.script() == text
    return text


def test_target_attribute_roundtrip():
    @T.prim_func(s_tir=True)
    def func():
        T.func_attr({"target": T.target("nvidia/nvidia-a100", host="llvm")})
        T.evaluate(0)

    target = func.attrs["target"]
    assert isinstance(target, tvm.target.Target)
    assert target.kind.name == "cuda" and target.host.kind.name == "llvm"
    text = _roundtrip(func)
    # The options print as a dict with sorted keys, the host nested in it.
    assert 'T.target({"arch": "sm_80", "host": {"keys": ["cpu"], "kind": "llvm"' in text


def test_target_bad_argument():
    with pytest.raises(TypeError, match="T.target expects a target string"):
        T.target(3)


def test_comm_reducer_single_and_multiple_values():
    add = T.comm_reducer(lambda x, y: x + y, [T.float32(0)])
    assert isinstance(add, tirx.CommReducer)
    assert [v.dtype for v in (*add.lhs, *add.rhs)] == ["float32", "float32"]
    assert str(add) == "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])"

    argmax = T.comm_reducer(
        lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0), T.Select(x1 >= y1, x1, y1)),
        [T.int32(-1), T.min_value("float32")],
    )
    assert [v.dtype for v in argmax.lhs] == ["int32", "float32"]
    assert str(argmax).startswith(
        "T.comm_reducer(lambda x0, x1, y0, y1: (T.Select(x1 >= y1, x0, y0), "
        "T.Select(x1 >= y1, x1, y1)), [-1, T.float32("
    )


def test_comm_reducer_arity_errors():
    with pytest.raises(TypeError, match="takes 3 argument.*need 2"):
        T.comm_reducer(lambda x, y, z: x, [T.float32(0)])
    with pytest.raises(TypeError, match="returns 1 value.*expected 2"):
        T.comm_reducer(lambda a, b, c, d: a, [T.int32(0), T.int32(0)])


def test_comm_reducer_in_attr_roundtrip():
    @T.prim_func(s_tir=True)
    def func(a: T.handle):
        A = T.match_buffer(a, [128], dtype="float32")
        threadIdx_x = T.env_thread("threadIdx.x")
        T.launch_thread(threadIdx_x, 128)
        reduce_temp0 = T.alloc_buffer((1,), scope="local")
        with T.attr(
            T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.int32(0)
        ):
            T.evaluate(
                T.tvm_thread_allreduce(
                    T.uint32(1), A[threadIdx_x], True, reduce_temp0.data, threadIdx_x,
                    dtype="handle",
                )
            )

    assert "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])" in _roundtrip(func)


def test_ramp_broadcast_and_vector_constructors():
    assert isinstance(T.ramp(0, 1, 4), tirx.Ramp) and T.ramp(0, 1, 4).dtype == "int32x4"
    b = T.broadcast(T.float32(0), 8)
    assert isinstance(b, tirx.Broadcast) and b.dtype == "float32x8"
    v = T.int32x4()
    assert isinstance(v, tirx.Var) and v.dtype == "int32x4"
    const = T.float32x4(1.5)
    assert isinstance(const, tirx.Broadcast) and const.dtype == "float32x4"
    assert const.value.value == 1.5
    cast = T.float16x4(T.float32x4())
    assert isinstance(cast, tirx.Cast) and cast.dtype == "float16x4"
    assert T.float8_e4m3fnx8().dtype == "float8_e4m3fnx8"
    assert T.boolean(True).dtype == "bool"


def test_vector_load_store_roundtrip():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(16):
            B[T.ramp(i * 4, 1, 4)] = A[T.ramp(i * 4, 1, 4)] + T.broadcast(T.float32(1), 4)

    store = func.body.body
    assert isinstance(store.indices[0], tirx.Ramp) and store.value.dtype == "float32x4"
    _roundtrip(func)


def test_bind_new_and_existing_var():
    @T.prim_func(s_tir=True)
    def func():
        x = T.bind(0)
        y = T.bind(T.int64(1))
        T.evaluate(x + T.Cast("int32", y))

    first, second = func.body.seq[0], func.body.seq[1]
    assert isinstance(first, tirx.Bind) and first.var.name == "x" and first.var.dtype == "int32"
    assert second.var.dtype == "int64"
    _roundtrip(func)

    i = tirx.Var("i", "int32")
    with pytest.raises(TypeError, match="either type_annotation or var"):
        T.bind(1, PrimType("int32"), var=i)
    with pytest.raises(TypeError, match="PrimType or a PointerType"):
        T.bind(1, 3)


def test_ptr_builders():
    p = T.ptr("float32", "shared")
    assert isinstance(p, tirx.Var)
    assert tvm.ir.structural_equal(p.type_annotation, PointerType(PrimType("float32"), "shared"))
    assert T.buffer_var("int8").type_annotation.storage_scope == "global"
    assert T.var("int32", "n").name == "n"


def test_fabs_roundtrip():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.fabs(A[i])

    assert func.body.body.value.op.name == "tirx.fabs"
    assert "T.fabs(A[i])" in _roundtrip(func)


def test_fabs_with_dtype_keyword():
    x = tirx.Var("x", "float32")
    assert tvm.ir.structural_equal(T.fabs(x, dtype="float32"), T.fabs(x))
