"""verify_well_formed and friends: one bad function per rule, with TVM's messages."""

import pytest

from tvm import te, tirx
from tvm.ir import IRModule, Range
from tvm.tirx import analysis

F32 = "float32"


def _range(n):
    return Range.from_min_extent(tirx.IntImm("int32", 0), tirx.IntImm("int32", n))


def _good_func():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    return te.create_prim_func([A, B])


def test_well_formed_functions_pass():
    func = _good_func()
    assert analysis.verify_well_formed(func)
    assert analysis.verify_well_formed(IRModule({"main": func}))
    assert analysis.verify_ssa(func)


def test_undefined_variable():
    x = tirx.Var("x", "int32")
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    body = tirx.BufferStore(A, tirx.Cast(F32, x), [i])
    func = tirx.PrimFunc([A], tirx.For(i, 0, 4, tirx.ForKind.SERIAL, body))
    with pytest.raises(ValueError, match=r"^Invalid use of undefined variable x at "
                                         r"<root>\.body\.body\.value\.value\.$"):
        analysis.verify_well_formed(func)
    assert analysis.verify_well_formed(func, assert_mode=False) is False


def test_variable_defined_twice():
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    loop = tirx.For(i, 0, 4, tirx.ForKind.SERIAL, tirx.BufferStore(A, 1.0, [i]))
    func = tirx.PrimFunc([A], tirx.SeqStmt([loop, loop]))
    with pytest.raises(ValueError, match=(
            r"TIR is ill-formed, due to multiple definitions of variable i\. It was first "
            r"defined at <root>\.body\.seq\[0\]\.loop_var, and was later re-defined at "
            r"<root>\.body\.seq\[1\]\.loop_var")):
        analysis.verify_well_formed(func)
    assert analysis.verify_ssa(func) is False


def test_loop_var_out_of_scope():
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    loop = tirx.For(i, 0, 4, tirx.ForKind.SERIAL, tirx.Evaluate(0))
    func = tirx.PrimFunc([A], tirx.SeqStmt([loop, tirx.BufferStore(A, 1.0, [i])]))
    with pytest.raises(ValueError, match=r"undefined variable i at <root>\.body\.seq\[1\]"):
        analysis.verify_well_formed(func)


def test_bind_scope_is_rest_of_sequence():
    A = tirx.decl_buffer((4,), "int32", name="A")
    x = tirx.Var("x", "int32")
    ok = tirx.PrimFunc([A], tirx.SeqStmt([tirx.Bind(x, 1), tirx.BufferStore(A, x, [0])]))
    assert analysis.verify_well_formed(ok)
    inner = tirx.IfThenElse(tirx.const(True), tirx.Bind(x, 1))
    bad = tirx.PrimFunc([A], tirx.SeqStmt([inner, tirx.BufferStore(A, x, [0])]))
    with pytest.raises(ValueError, match="undefined variable x"):
        analysis.verify_well_formed(bad)


def test_undeclared_buffer():
    A = tirx.decl_buffer((4,), F32, name="A")
    T = tirx.decl_buffer((4,), F32, name="T")
    func = tirx.PrimFunc([A], tirx.BufferStore(A, T[0], [0]))
    with pytest.raises(ValueError, match=r"undeclared buffer T at <root>\.body\.value\.buffer: "
                                         r"buffer T is used without a prior DeclBuffer"):
        analysis.verify_well_formed(func)
    declared = tirx.PrimFunc([A], tirx.SeqStmt([tirx.AllocBuffer(T),
                                                tirx.BufferStore(A, T[0], [0])]))
    assert analysis.verify_well_formed(declared)


def test_block_must_not_use_outer_loop_vars_directly():
    A = tirx.decl_buffer((4,), F32, name="A")
    i, vi = tirx.Var("i", "int32"), tirx.Var("vi", "int32")
    block = tirx.SBlock([tirx.IterVar(_range(4), vi, 0)], [], [], "b",
                        tirx.BufferStore(A, 1.0, [i]))
    loop = tirx.For(i, 0, 4, tirx.ForKind.SERIAL, tirx.SBlockRealize([i], True, block))
    func = tirx.PrimFunc([A], loop)
    with pytest.raises(ValueError, match=r'loop variable i inside block "b" at '
                                         r"<root>\.body\.body\.block\.body\.indices\[0\]"):
        analysis.verify_well_formed(func)


def test_block_iter_var_not_visible_in_its_bindings():
    A = tirx.decl_buffer((4,), F32, name="A")
    vi = tirx.Var("vi", "int32")
    block = tirx.SBlock([tirx.IterVar(_range(4), vi, 0)], [], [], "b",
                        tirx.BufferStore(A, 1.0, [vi]))
    func = tirx.PrimFunc([A], tirx.SBlockRealize([vi], True, block))
    with pytest.raises(ValueError, match=r"undefined variable vi at <root>\.body\.iter_values"):
        analysis.verify_well_formed(func)


def test_tirx_verifier_rejects_sblocks():
    func = _good_func()
    with pytest.raises(ValueError, match=r"^TIR verifier does not support statement "
                                         r"s_tir\.SBlockRealize at <root>\.body$"):
        analysis.verify_tirx_well_formed(func)
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    plain = tirx.PrimFunc([A], tirx.For(i, 0, 4, 0, tirx.BufferStore(A, 1.0, [i])))
    assert analysis.verify_tirx_well_formed(plain)


def test_undefined_vars_order():
    x = tirx.Var("x", "int32")
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    store = tirx.BufferStore(A, tirx.Cast(F32, x), [i])
    assert analysis.undefined_vars(store) == [A.data, x, i]
    assert analysis.undefined_vars(x + i, defs=[x]) == [i]
    with pytest.raises(TypeError, match="Stmt or PrimExpr"):
        analysis.undefined_vars("x")


def test_bad_argument_kind():
    with pytest.raises(TypeError, match="PrimFunc or an IRModule"):
        analysis.verify_well_formed(3)


def test_match_buffer_defines_shape_vars_and_decl_buffer_views():
    A = tirx.decl_buffer((8,), F32, name="A")
    n = tirx.Var("n", "int32")
    sub = tirx.decl_buffer((n,), F32, name="sub")
    vi = tirx.Var("vi", "int32")
    source = tirx.BufferRegion(A, [Range.from_min_extent(vi * 4, tirx.IntImm("int32", 4))])
    j = tirx.Var("j", "int32")
    body = tirx.For(j, 0, n, 0, tirx.BufferStore(sub, 0.0, [j]))
    block = tirx.SBlock([tirx.IterVar(_range(2), vi, 0)], [], [source], "b", body,
                        match_buffers=[tirx.MatchBufferRegion(sub, source)])
    i = tirx.Var("i", "int32")
    func = tirx.PrimFunc([A], tirx.For(i, 0, 2, 0, tirx.SBlockRealize([i], True, block)))
    assert analysis.verify_well_formed(func)
    flat = tirx.decl_buffer((8,), F32, name="flat", data=A.data)
    view = tirx.PrimFunc([A], tirx.SeqStmt([tirx.DeclBuffer(flat),
                                            tirx.BufferStore(flat, 1.0, [0])]))
    assert analysis.verify_well_formed(view)


def test_thread_extent_attr_defines_its_iter_var():
    A = tirx.decl_buffer((4,), F32, name="A")
    tx = tirx.IterVar(_range(4), "threadIdx.x", tirx.IterVar.ThreadIndex, "threadIdx.x")
    body = tirx.AttrStmt(tx, "thread_extent", 4, tirx.BufferStore(A, 1.0, [tx.var]))
    assert analysis.verify_well_formed(tirx.PrimFunc([A], body))


def test_non_assert_mode_collects_without_raising():
    A = tirx.decl_buffer((4,), F32, name="A")
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    body = tirx.SeqStmt([tirx.BufferStore(A, 1.0, [x]), tirx.BufferStore(A, 1.0, [y])])
    assert analysis.verify_well_formed(tirx.PrimFunc([A], body), assert_mode=False) is False
    mod = IRModule({"f": tirx.PrimFunc([A], body), "g": _good_func()})
    assert analysis.verify_well_formed(mod, assert_mode=False) is False


def test_block_iter_domain_may_use_enclosing_loops():
    # ``for k in range(i)`` under a block iterator: vk's domain is the loop variable i, which
    # is evaluated where the block is realized (TVM accepts it); the body still may not use i.
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def triangular(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
        for i in range(8):
            for k in range(i):
                with T.sblock("B"):
                    vi, vk = T.axis.remap("SS", [i, k])
                    B[vi, vk] = A[vi, vk]

    blk = triangular.body.block.body.body.body.block
    assert blk.iter_vars[1].dom.extent.name == "i"
    analysis.verify_well_formed(triangular)


def test_nested_redefinition_and_out_of_scope_use_name_the_first_definition():
    A = tirx.decl_buffer((4,), F32, name="A")
    i = tirx.Var("i", "int32")
    # Two Binds of i in one sequence: the first is still in scope ("nested").
    body = tirx.SeqStmt([tirx.Bind(i, 1), tirx.Bind(i, 2), tirx.BufferStore(A, 1.0, [i])])
    with pytest.raises(ValueError, match=(
            r"multiple nested definitions of variable i\. It was first defined at "
            r"<root>\.body\.seq\[0\]\.var, and was re-defined at <root>\.body\.seq\[1\]\.var")):
        analysis.verify_well_formed(tirx.PrimFunc([A], body))
    assert analysis.verify_ssa(tirx.PrimFunc([A], body)) is False
    # A use after the loop that defined i: the message says where i was defined.
    loop = tirx.For(i, 0, 4, tirx.ForKind.SERIAL, tirx.Evaluate(0))
    func = tirx.PrimFunc([A], tirx.SeqStmt([loop, tirx.BufferStore(A, 1.0, [i])]))
    with pytest.raises(ValueError, match=(
            r"While this variable was previously defined at <root>\.body\.seq\[0\]\.loop_var, "
            r"this definition is no longer in-scope\.")):
        analysis.verify_well_formed(func)


def test_body_variables_are_not_shared_between_functions():
    i = tirx.Var("i", "int32")

    def func():
        return tirx.PrimFunc([], tirx.SeqStmt([tirx.Bind(i, 42), tirx.Evaluate(i)]))

    assert analysis.verify_well_formed(func())
    with pytest.raises(ValueError, match=(
            r"multiple definitions of variable i\. It was first defined at "
            r"<root>\.body\.seq\[0\]\.var in function f1")):
        analysis.verify_well_formed(IRModule({"f1": func(), "f2": func()}))


def test_thread_variable_may_be_launched_twice_in_one_function_only():
    A = tirx.decl_buffer((256,), F32, name="A")
    tx = tirx.Var("threadIdx_x", "int32")

    def launch(value):
        iv = tirx.IterVar(_range(256), tx, tirx.IterVar.ThreadIndex, "threadIdx.x")
        return tirx.AttrStmt(iv, "thread_extent", 256, tirx.BufferStore(A, value, [tx]))

    twice = tirx.PrimFunc([A], tirx.SeqStmt([launch(1.0), launch(2.0)]))
    assert analysis.verify_well_formed(twice)
    once = tirx.PrimFunc([A], launch(1.0))
    with pytest.raises(ValueError, match="multiple definitions of variable threadIdx_x"):
        analysis.verify_well_formed(IRModule({"k1": once, "k2": once.with_attr("x", 1)}))
