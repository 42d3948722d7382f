"""The T dialect parser: what each TIR TVMScript construct builds, and its diagnostics."""

import pytest

import tvm
from tvm import tirx
from tvm.error import DiagnosticError
from tvm.script import from_source
from tvm.script import tirx as T
from tvm.tirx import stmt as S
from tvm.tirx.analysis import verify_well_formed

ForKind = S.ForKind


def _seq(func):
    return list(S.stmt_list(func.body))


# --- functions and parameters ---------------------------------------------------------------


@T.prim_func
def scale(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (16,), "float32")
    B = T.match_buffer(b, (16,), "float32")
    T.func_attr({"tirx.noalias": True})
    for i in range(16):
        B[i] = A[i] * T.float32(2.0)


def test_decorated_function_with_match_buffer():
    assert isinstance(scale, tirx.PrimFunc)
    # As in TVM 0.27, a matched handle parameter takes its buffer's name.
    assert [p.name for p in scale.params] == ["A", "B"]
    assert all(p.dtype == "handle" for p in scale.param_vars)  # pytvm keeps the handles
    A = scale.buffer_map[scale.params[0]]
    assert A.name == "A" and A.data.name == "A" and A.dtype == "float32"
    assert [int(s) for s in A.shape] == [16]
    assert scale.attrs["global_symbol"] == "scale"
    assert scale.attrs["tirx.noalias"]
    loop = scale.body
    assert isinstance(loop, S.For) and loop.kind == ForKind.SERIAL
    assert int(loop.min) == 0 and int(loop.extent) == 16
    store = loop.body
    assert isinstance(store, S.BufferStore)
    assert store.buffer.name == "B" and store.indices[0] is loop.loop_var


def test_buffer_annotations_private_and_scalar_params():
    func = from_source(
        """
@T.prim_func(private=True)
def f(A: T.Buffer(("n", 4), "int8"), n: T.int32, h: T.handle):
    A[0, 0] = T.int8(1)
"""
    )
    assert "global_symbol" not in func.attrs
    n = func.params[1]
    assert n.dtype == "int32" and n.name == "n"
    A = func.buffer_map[func.params[0]]
    # The string in the shape is the scalar parameter declared after it.
    assert A.shape[0] is n
    assert func.params[2].dtype == "handle" and func.params[2] not in func.buffer_map


def test_closure_values_are_visible():
    size = 8

    @T.prim_func
    def fill(A: T.Buffer((size,), "int32")):
        for i in range(size):
            A[i] = i

    assert int(fill.buffer_map[fill.params[0]].shape[0]) == 8
    assert int(fill.body.extent) == 8


def test_s_tir_adds_the_attribute_and_a_root_block():
    func = from_source(
        """
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4,), "float32")):
    B = T.sblock_alloc_buffer((4,))
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]
"""
    )
    assert func.attrs["s_tir"]
    root = func.body
    assert isinstance(root, S.SBlockRealize) and root.block.name_hint == "root"
    assert [b.name for b in root.block.alloc_buffers] == ["B"]
    assert verify_well_formed(func)
    # Without blocks there is no root block.
    plain = from_source(
        '@T.prim_func(s_tir=True)\ndef g(A: T.Buffer((4,), "float32")):\n'
        "    A[0] = T.float32(1.0)\n"
    )
    assert plain.attrs["s_tir"] and isinstance(plain.body, S.BufferStore)


def test_from_source_s_tir_flag():
    func = from_source(
        '@T.prim_func\ndef g(A: T.Buffer((4,), "float32")):\n    A[0] = T.float32(1.0)\n',
        s_tir=True,
    )
    assert func.attrs["s_tir"]


# --- loops ----------------------------------------------------------------------------------


def test_loop_kinds():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.parallel(16):
        A[i] = T.float32(0.0)
    for i in T.vectorized(4):
        A[i] = T.float32(0.0)
    for i in T.unroll(4):
        A[i] = T.float32(0.0)
    for i in T.thread_binding(16, thread="threadIdx.x"):
        A[i] = T.float32(0.0)
    for i in T.serial(2, 10, annotations={"pragma": 1}):
        A[i] = T.float32(0.0)
    for i in range(2, n):
        A[i] = T.float32(0.0)
    for i, j in T.grid(4, n):
        A[i + j] = T.float32(0.0)
"""
    )
    loops = _seq(func)
    assert [lp.kind for lp in loops[:4]] == [
        ForKind.PARALLEL, ForKind.VECTORIZED, ForKind.UNROLLED, ForKind.THREAD_BINDING
    ]
    assert loops[3].thread_binding.thread_tag == "threadIdx.x"
    assert loops[3].thread_binding.var.name == "threadIdx.x"
    assert int(loops[4].min) == 2 and int(loops[4].extent) == 8
    assert dict(loops[4].annotations) == {"pragma": 1}
    n = func.params[1]
    assert int(loops[5].min) == 2
    tvm.ir.assert_structural_equal(loops[5].extent, n - 2)
    outer = loops[6]
    assert outer.loop_var.name == "i" and isinstance(outer.body, S.For)
    assert outer.body.loop_var.name == "j" and outer.body.extent is n


def test_int64_loop_variable():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((T.int64(8),), "float32")):
    for i in range(T.int64(8)):
        A[i] = T.float32(0.0)
"""
    )
    assert func.body.loop_var.dtype == "int64"


# --- statements -----------------------------------------------------------------------------


def test_binds_and_stores():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int64"), n: T.int32):
    x: T.let[T.int32] = n + 1
    y: T.let[T.int32] = x * 2
    z = T.Bind(T.float32(0.5))
    w = y + 1
    A[0] = T.Cast("float32", w) + z
    A[1] = 1
    A[2] = T.int32(3)
    A[3] = n
    B[0] = T.int32(2)
    A[0] += T.float32(1.0)
"""
    )
    stmts = _seq(func)
    binds = stmts[:3]
    assert all(isinstance(b, S.Bind) for b in binds)
    assert [b.var.name for b in binds] == ["x", "y", "z"]
    assert [b.var.dtype for b in binds] == ["int32", "int32", "float32"]
    assert binds[1].value.a is binds[0].var
    # As Apache TVM 0.27: a bare ``w = y + 1`` is a one-element local buffer holding the value.
    assert isinstance(stmts[3], S.AllocBuffer) and stmts[3].buffer.name == "w"
    assert stmts[3].buffer.scope() == "local" and stmts[3].buffer.dtype == "int32"
    assert isinstance(stmts[4], S.BufferStore) and stmts[4].buffer is stmts[3].buffer
    stores = stmts[5:]
    # Values of another dtype are converted to the buffer's: constants re-typed, others cast.
    assert isinstance(stores[1].value, tirx.FloatImm) and stores[1].value.value == 1.0
    assert isinstance(stores[2].value, tirx.FloatImm) and stores[2].value.dtype == "float32"
    assert isinstance(stores[3].value, tirx.Cast) and stores[3].value.dtype == "float32"
    assert isinstance(stores[4].value, tirx.IntImm) and stores[4].value.dtype == "int64"
    # ``A[0] += v`` stores A[0] + v.
    assert isinstance(stores[5].value, tirx.Add)
    assert isinstance(stores[5].value.a, S.BufferLoad)


def test_control_flow_and_misc_statements():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((16,), "int32"), n: T.int32):
    if n > 4 and n < 10:
        A[0] = n
    else:
        A[1] = 1
    if not n == 3:
        A[2] = 2
    while A[0] < 100:
        A[0] = A[0] * 2
    assert n > 0, "n must be positive"
    T.evaluate(T.call_extern("int32", "foo", n))
    T.call_extern("int32", "bar")
    with T.attr(0, "pragma_key", 1):
        A[3] = 3
    with T.attr({"a": 1, "b": 2}):
        A[4] = 4
    if 1 > 2:
        A[5] = 5
    for i in range(4):
        if i == 2:
            break
        continue
"""
    )
    stmts = _seq(func)
    first = stmts[0]
    assert isinstance(first, S.IfThenElse) and isinstance(first.condition, tirx.And)
    assert first.else_case is not None
    assert isinstance(stmts[1].condition, tirx.Not) and stmts[1].else_case is None
    assert isinstance(stmts[2], S.While)
    check = stmts[3]
    assert isinstance(check, S.AssertStmt) and check.kind.value == "RuntimeError"
    assert [p.value for p in check.message_parts] == ["n must be positive"]
    assert isinstance(stmts[4], S.Evaluate) and isinstance(stmts[5], S.Evaluate)
    assert stmts[5].value.args[0].value == "bar"
    attr = stmts[6]
    assert isinstance(attr, S.AttrStmt) and attr.attr_key == "pragma_key"
    assert int(attr.node) == 0
    nested = stmts[7]
    assert nested.attr_key == "a" and nested.body.attr_key == "b"
    # ``if 1 > 2`` is decided while parsing: nothing is built.
    loop = stmts[8]
    assert isinstance(loop, S.For) and len(stmts) == 9
    body = list(S.stmt_list(loop.body))
    assert isinstance(body[0].then_case, S.Break) and isinstance(body[1], S.Continue)


def test_buffer_allocations_and_views():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    L = T.alloc_buffer((4,), scope="local")
    Sh = T.alloc_shared((16,), "int32")
    V = T.decl_buffer((4, 4), data=A.data)
    W = A.view(2, 8)
    L[0] = V[1, 2] + W[1, 1]
    Sh[0] = 1
"""
    )
    stmts = _seq(func)
    alloc_l, alloc_s, decl_v, decl_w = stmts[:4]
    assert isinstance(alloc_l, S.AllocBuffer) and alloc_l.buffer.scope() == "local"
    assert alloc_l.buffer.name == "L" and alloc_l.buffer.data.name == "L"
    assert alloc_s.buffer.scope() == "shared" and alloc_s.buffer.dtype == "int32"
    A = func.buffer_map[func.params[0]]
    for decl, shape in ((decl_v, [4, 4]), (decl_w, [2, 8])):
        assert isinstance(decl, S.DeclBuffer)
        assert decl.buffer.data is A.data
        assert [int(s) for s in decl.buffer.shape] == shape


# --- blocks ---------------------------------------------------------------------------------


def _blocks(func):
    out = []
    for node in tvm.ffi.node.walk(func.body):
        if isinstance(node, S.SBlockRealize) and node.block.name_hint != "root":
            out.append(node)
    return out


def test_sblock_axes_regions_init_and_attributes():
    func = from_source(
        """
@T.prim_func(s_tir=True)
def f(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16,), "float32")):
    for i_0, i_1, k in T.grid(4, 4, 16):
        with T.sblock("C"):
            vi = T.axis.spatial(16, i_0 * 4 + i_1)
            vk = T.axis.R(16, k)
            T.where(i_0 * 4 + i_1 < 16)
            T.sblock_attr({"meta": 1})
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + A[vi, vk]
    for i, j in T.grid(16, 16):
        with T.sblock("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            tmp = T.sblock_alloc_buffer((1,))
            sub = T.match_buffer(A[vi, 0:16], (16,))
            tmp[0] = sub[vj]
            C[vi] = C[vi] + tmp[0]
    for i in range(2, 6):
        with T.sblock("E"):
            vs = T.axis.scan((2, 6), i)
            vo = T.axis.opaque(4, i - 2)
            T.reads(A[vs, 0:vo + 1])
            T.writes([C[vs]])
            C[vs] = A[vs, vo]
"""
    )
    c, d, e = _blocks(func)
    block = c.block
    assert [iv.iter_type for iv in block.iter_vars] == [tirx.IterVar.DataPar,
                                                       tirx.IterVar.CommReduce]
    assert [iv.var.name for iv in block.iter_vars] == ["vi", "vk"]
    assert int(block.iter_vars[0].dom.extent) == 16
    assert isinstance(c.predicate, tirx.LT)
    assert dict(block.annotations) == {"meta": 1}
    assert isinstance(block.init, S.BufferStore)
    # Omitted regions are inferred; a reduction block does not read what it writes.
    assert [r.buffer.name for r in block.reads] == ["A"]
    assert [r.buffer.name for r in block.writes] == ["C"]
    dblock = d.block
    assert [v.name for v in d.iter_values] == ["i", "j"]
    assert [b.name for b in dblock.alloc_buffers] == ["tmp"]
    match = dblock.match_buffers[0]
    assert match.buffer.name == "sub" and match.source.buffer.name == "A"
    assert int(match.source.region[1].extent) == 16
    # Not a reduction: C is read and written.
    assert sorted(r.buffer.name for r in dblock.reads) == ["A", "C"]
    eblock = e.block
    assert [iv.iter_type for iv in eblock.iter_vars] == [tirx.IterVar.Ordered,
                                                        tirx.IterVar.Opaque]
    assert int(eblock.iter_vars[0].dom.min) == 2 and int(eblock.iter_vars[0].dom.extent) == 4
    extent = eblock.reads[0].region[1].extent
    tvm.ir.assert_structural_equal(extent, eblock.iter_vars[1].var + 1)
    assert [r.buffer.name for r in eblock.writes] == ["C"]


def test_axis_remap_takes_the_loop_domain():
    func = from_source(
        """
@T.prim_func(s_tir=True)
def f(A: T.Buffer((8,), "float32")):
    for i in range(2, 8):
        with T.sblock("b"):
            vi = T.axis.remap("S", [i])
            A[vi] = T.float32(0.0)
"""
    )
    iv = _blocks(func)[0].block.iter_vars[0]
    assert int(iv.dom.min) == 2 and int(iv.dom.extent) == 6


# --- modules --------------------------------------------------------------------------------


def test_module_mixing_prim_funcs_and_relax():
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @T.prim_func
        def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                B[i] = A[i] + T.float32(1.0)

        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            cls = Module
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
            return y

    assert isinstance(Module["add_one"], tirx.PrimFunc)
    call = Module["main"].body.blocks[0].bindings[0].value
    assert call.args[0] is Module.get_global_var("add_one")


# --- the IR builder from Python --------------------------------------------------------------


def test_ir_builder_from_python():
    from tvm.script.ir_builder import IRBuilder
    from tvm.script.ir_builder import tirx as TB

    with IRBuilder() as ib, TB.prim_func():
        TB.func_name("main")
        A = TB.arg("A", TB.Buffer((4,), "float32"))
        with TB.serial(4) as i:
            TB.buffer_store(A, A[i] * 2.0, [i])
        with TB.If(A[0] > 1.0):
            with TB.Then():
                TB.evaluate(0)
            with TB.Else():
                TB.evaluate(1)
    func = ib.get()
    expected = from_source(
        """
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] * T.float32(2.0)
    if A[0] > T.float32(1.0):
        T.evaluate(0)
    else:
        T.evaluate(1)
"""
    )
    tvm.ir.assert_structural_equal(func, expected)


# --- diagnostics ----------------------------------------------------------------------------

UNDEFINED = """
@T.prim_func
def main(a: T.handle):
    A = T.match_buffer(a, (16,), "float32")
    for i in range(16):
        A[i] = undefined_var
"""


def _error(program, **kwargs) -> str:
    with pytest.raises(DiagnosticError) as info:
        from_source(program, **kwargs)
    return str(info.value)


def test_undefined_variable_exact_rendering():
    # The observed Apache TVM 0.27 rendering (spec C.6).
    assert _error(UNDEFINED) == (
        "error: Undefined variable: undefined_var\n"
        " --> <str>:6:9\n"
        "   |  \n"
        " 6 |          A[i] = undefined_var\n"
        "   |          ^^^^^^^^^^^^^^^^^^^^"
    )


SBLOCK_IN_TIRX = """
@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("b"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(1.0)
"""


def test_well_formedness_gate_rejects_sblocks_outside_s_tir():
    from tvm.script.parser.core.entry import WELL_FORMED_ERROR_MESSAGE

    # The observed Apache TVM 0.27 text (spec C.7).
    assert _error(SBLOCK_IN_TIRX) == (
        f"error: {WELL_FORMED_ERROR_MESSAGE}\n\nTraceback: TIR verifier does not support "
        "statement s_tir.SBlockRealize at <root>.body.body\n --> <str>:1:1\n   |  \n 1 |  \n   |  "
    )
    # Opting out, or declaring the function schedulable, accepts it.
    assert isinstance(from_source(SBLOCK_IN_TIRX, check_well_formed=False), tirx.PrimFunc)
    assert from_source(SBLOCK_IN_TIRX, s_tir=True).attrs["s_tir"]


def test_well_formedness_gate_with_the_decorator_flag():
    program = SBLOCK_IN_TIRX.replace("@T.prim_func", "@T.prim_func(check_well_formed=False)")
    with pytest.raises(DiagnosticError, match="Program is not well-formed"):
        from_source(program)  # the flag of the text's decorator is not the parse's
    from tvm.script.parser.core.entry import parse

    assert isinstance(parse(SBLOCK_IN_TIRX, check_well_formed=False), tirx.PrimFunc)


def test_unknown_axis_kind():
    # The observed Apache TVM 0.27 rendering.
    program = SBLOCK_IN_TIRX.replace('T.axis.spatial(16, i)', 'T.axis.remap("X", [i])')
    program = program.replace("@T.prim_func", "@T.prim_func(s_tir=True)")
    assert _error(program) == (
        "error: Unknown axis kind: X\n --> <str>:6:18\n   |  \n"
        ' 6 |              vi = T.axis.remap("X", [i])\n'
        "   |                   ^^^^^^^^^^^^^^^^^^^^^^"
    )


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("    for i in [1, 2]:\n        A[i] = A[i]\n",
         "Expect the for loop to be one of the following: range, T.serial, T.grid"),
        ("    for i in range(4):\n        vi = T.axis.spatial(4, i)\n",
         "T.axis must be used inside a SBlockFrame"),
        ("    T.reads(A[0])\n", "T.reads must be used inside a SBlockFrame"),
        ("    for i in range(2):\n        A[0:i] = A[0]\n",
         "A vector store's slice must have a constant length and step"),
        ("    return A\n", "`return` in a TIR function needs a PrimExpr value, got Buffer"),
        ("    n: T.int32 = T.float32(1.0)\n", "The value of n has dtype float32, annotated int32"),
        ("    T.init()\n", "T.init() must be used in a `with` statement"),
        ("    with A[0]:\n        pass\n", "Expected a TIR scope such as T.sblock(...)"),
        ("    for i, j in range(4):\n        pass\n", "The loop binds 1 variable(s) to 2 names"),
        ("    x: T.let[T.int32]\n", "x needs a value"),
    ],
)
def test_error_messages(body, words):
    program = '@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n' + body
    text = _error(program)
    assert text.startswith("error: " + words), text
    assert " --> <str>:" in text


def test_remap_needs_a_loop_variable():
    program = (
        '@T.prim_func(s_tir=True)\ndef main(A: T.Buffer((4,), "float32")):\n'
        "    for i in range(4):\n"
        '        with T.sblock("b"):\n'
        '            vi = T.axis.remap("S", [i + 1])\n'
    )
    assert "which is not the variable of an enclosing loop" in _error(program)


def test_init_twice_and_bad_decorator_keyword():
    program = (
        '@T.prim_func(s_tir=True)\ndef main(A: T.Buffer((4,), "float32")):\n'
        "    for i in range(4):\n"
        '        with T.sblock("b"):\n'
        "            vi = T.axis.spatial(4, i)\n"
        "            with T.init():\n                A[vi] = T.float32(0.0)\n"
        "            with T.init():\n                A[vi] = T.float32(0.0)\n"
    )
    assert "has two T.init() sections" in _error(program)
    text = _error('@T.prim_func(fast=True)\ndef main(A: T.Buffer((4,), "float32")):\n    pass\n')
    assert text.startswith("error: T.prim_func() got an unexpected keyword argument 'fast'")


def test_missing_parameter_annotation():
    text = _error("@T.prim_func\ndef main(A):\n    pass\n")
    assert text.startswith("error: Type annotation required for function parameters.\n"
                           " --> <str>:2:10")


def test_gate_checks_each_function_by_its_own_kind():
    schedulable = SBLOCK_IN_TIRX.replace("@T.prim_func", "@T.prim_func(s_tir=True)")
    body = "\n".join("    " + line for line in schedulable.strip().splitlines())
    module = "@I.ir_module\nclass M:\n" + body + "\n"
    mod = from_source(module)  # an s_tir function may hold SBlocks in a plain module
    assert mod["main"].attrs["s_tir"]
    plain = "\n".join("    " + line for line in SBLOCK_IN_TIRX.strip().splitlines())
    mixed = module + plain.replace("def main", "def other") + "\n"
    assert "TIR verifier does not support statement s_tir.SBlockRealize" in _error(mixed)


def test_ir_module_s_tir_flag_marks_its_prim_funcs():
    from tvm.script import ir as I

    @I.ir_module(s_tir=True)
    class Module:
        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("b"):
                    vi = T.axis.spatial(4, i)
                    A[vi] = T.float32(0.0)

    func = Module["f"]
    assert func.attrs["s_tir"] and func.body.block.name_hint == "root"


def test_errors_in_decorated_functions_point_into_this_file():
    import inspect

    line = inspect.currentframe().f_lineno + 5
    with pytest.raises(DiagnosticError) as info:

        @T.prim_func
        def bad(A: T.Buffer((4,), "float32")):
            A[0] = missing_name  # noqa: F821

    assert str(info.value).startswith(
        f"error: Undefined variable: missing_name\n --> {__file__}:{line}:13\n"
    )


def test_range_is_a_loop_only_in_for_statements():
    func = from_source(
        """
@T.prim_func(s_tir=True)
def f(A: T.Buffer((8,), "float32")):
    for i in range(0, 8, 2):
        with T.sblock("b"):
            vi = T.axis.spatial(8, i)
            T.reads([A[k] for k in range(2)])
            T.writes(A[vi])
            A[vi] = T.float32(1.0)
"""
    )
    loop = func.body.block.body
    assert int(loop.step) == 2 and int(loop.extent) == 8
    reads = _blocks(func)[0].block.reads
    assert [int(r.region[0].min) for r in reads] == [0, 1]


def test_buffer_declared_over_another_buffers_data():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    A_1 = T.Buffer((16,), data=A.data)
    A_1[5] = T.float32(1.0)
""",
        check_well_formed=False,
    )
    store = func.body
    A = func.buffer_map[func.params[0]]
    assert store.buffer.name == "A_1" and store.buffer.data is A.data


def test_rebinding_a_scalar_is_an_error_not_a_new_variable():
    # A let-bound variable is immutable (``x: T.int32 = 3`` would be a mutable one-element
    # buffer, as in TVM 0.27); a silent new variable here would change what the loop does.
    program = (
        '@T.prim_func\ndef main(A: T.Buffer((4,), "int32")):\n'
        "    x: T.let[T.int32] = 3\n"
        "    while x > 0:\n"
        "        x = x - 1\n"
    )
    text = _error(program)
    assert text.startswith("error: Variable x is already bound: TIR variables are immutable")
    assert " --> <str>:5:9" in text


def test_vector_stores_through_slices():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(2):
        B[i * 8:i * 8 + 4] = A[T.Ramp(i * 8, 1, 4)] * T.Broadcast(T.float32(2.0), 4)
    B[0:8:2] = A[T.Ramp(1, 2, 4)]
"""
    )
    loop, strided = _seq(func)
    ramp = loop.body.indices[0]
    assert isinstance(ramp, tirx.Ramp) and int(ramp.stride) == 1 and ramp.lanes == 4
    assert loop.body.value.dtype == "float32x4"
    assert int(strided.indices[0].stride) == 2 and strided.indices[0].lanes == 4


# Apache TVM 0.27's printed form of a function launching threads.
LAUNCH = """
@T.prim_func
def f(A: T.Buffer((256,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    A[bx * 64 + tx] = T.float32(1.0)
"""


def test_launch_thread_lasts_to_the_end_of_the_body():
    func = from_source(LAUNCH)
    outer = func.body
    assert isinstance(outer, S.AttrStmt) and outer.attr_key == "thread_extent"
    assert outer.node.thread_tag == "blockIdx.x" and outer.node.var.name == "bx"
    assert int(outer.node.dom.extent) == 4 and int(outer.value) == 4
    inner = outer.body
    assert inner.node.thread_tag == "threadIdx.x" and int(inner.value) == 64
    store = inner.body
    assert isinstance(store, S.BufferStore)
    used = {id(n) for n in tvm.ffi.node.walk(store.indices[0])}
    assert id(outer.node.var) in used and id(inner.node.var) in used
    # The env_thread spelling builds the same function.
    env = LAUNCH.replace(
        '    tx = T.launch_thread("threadIdx.x", 64)\n',
        '    tx = T.env_thread("threadIdx.x")\n    T.launch_thread(tx, 64)\n',
    )
    tvm.ir.assert_structural_equal(from_source(env), func)


def test_launch_thread_as_a_with_scope():
    func = from_source(
        """
@T.prim_func
def f(A: T.Buffer((256,), "float32")):
    for i in range(2):
        with T.launch_thread("threadIdx.x", 64) as tx:
            A[i * 64 + tx] = T.float32(1.0)
        A[0] = T.float32(2.0)
"""
    )
    first, second = func.body.body.seq
    assert isinstance(first, S.AttrStmt) and isinstance(second, S.BufferStore)
    with pytest.raises(DiagnosticError, match="is not a T.env_thread variable"):
        from_source(LAUNCH.replace('T.launch_thread("threadIdx.x", 64)',
                                   "T.launch_thread(bx, 64)"))


# --- macros ---------------------------------------------------------------------------------

_SCALE = 2.0


@T.macro
def _fill(buf, i, value):
    buf[i] = value


@T.macro
def _scaled(buf, i):
    # Hygienic: _SCALE is this module's.
    return buf[i] * T.float32(_SCALE)


@T.macro(hygienic=False)
def _store_from_caller(i):
    # Not hygienic: ``A`` is the caller's buffer.
    A[i] = A[i] + T.float32(1.0)  # noqa: F821


def test_macros_expand_in_place():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            _fill(A, i, T.float32(1.0))
            A[i] = _scaled(A, i)
            _store_from_caller(i)

    expected = from_source(
        """
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(1.0)
        A[i] = A[i] * T.float32(2.0)
        A[i] = A[i] + T.float32(1.0)
"""
    )
    tvm.ir.assert_structural_equal(f, expected)


@T.macro
def _bad_macro(buf):
    buf[0] = nowhere  # noqa: F821


def test_macro_errors():
    with pytest.raises(TypeError, match="can only be called inside a @T.prim_func"):
        _fill(None, 0, 1)
    with pytest.raises(DiagnosticError) as info:

        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            _bad_macro(A)

    # Reported in the macro's own source.
    assert str(info.value).startswith("error: Undefined variable: nowhere\n --> " + __file__)
    assert "buf[0] = nowhere" in str(info.value)


def test_sblock_exec_scope_is_not_supported_yet():
    program = (
        '@T.prim_func(s_tir=True)\ndef main(A: T.Buffer((4,), "float32")):\n'
        '    with T.sblock("b", exec_scope="cta"):\n        A[0] = T.float32(0.0)\n'
    )
    assert "TIRx execution scopes are not supported" in _error(program)


_BLOCK_ERRORS = {
    "duplicate axis": ("""
@T.prim_func
def f():
    for i, j in T.grid(16, 16):
        with T.sblock():
            vi = T.axis.S(16, i)
            vi = T.axis.S(16, j)
            T.evaluate(1.0)
""", 7, "Variable vi already defined in current scope"),
    "duplicate remap names": ("""
@T.prim_func
def f():
    for i, j in T.grid(16, 16):
        with T.sblock():
            vi, vi = T.axis.remap("SS", [i, j])
            T.evaluate(1.0)
""", 6, "Duplicate vars assigned."),
    "duplicate buffer": ("""
@T.prim_func
def f():
    A = T.sblock_alloc_buffer((128, 128), "float32")
    A = T.sblock_alloc_buffer((128, 128), "float32")
""", 5, "Variable A already defined in current scope"),
    "predicate twice": ("""
@T.prim_func
def f():
    for i in range(16):
        with T.sblock():
            vi = T.axis.S(16, i)
            T.where(1)
            T.where(0)
""", 8, "Duplicate block predicate declaration, previous one is"),
    "conflicting annotation": ("""
@T.prim_func
def f():
    for i in range(16):
        with T.sblock():
            vi = T.axis.S(16, i)
            T.sblock_attr({"key1": "block1"})
            T.sblock_attr({"key1": "block2"})
""", 8, 'different values for key `key1`, previous one is "block1", new one is "block2"'),
    "float axis domain": ("""
@T.prim_func
def f():
    with T.sblock():
        i = T.axis.S(0.1, 0.1)
""", 5, "The dtype of the domain of an IterVar must be an integer type"),
    "string loop bounds": ("""
@T.prim_func
def f():
    for i in T.serial("1", "1"):
        T.evaluate(1)
""", 4, "Mismatched type on argument #0 when calling T.serial"),
    "string shape": ("""
@T.prim_func
def f():
    A = T.sblock_alloc_buffer("(128, 128)", "float32")
""", 4, "expected a list of dims, got the string '(128, 128)'"),
    "with-as a block": ("""
@T.prim_func
def f():
    with T.sblock("root") as x:
        T.evaluate(0.0)
""", 4, "Do not know how to bind type: SBlockFrame in with statement"),
    "region shape mismatch": ("""
@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, (8, 8))
    for i, j in T.grid(8, 2):
        with T.sblock():
            T.reads([])
            T.writes([A[i, j * 4 : j * 4 + 4]])
            sub_A = T.match_buffer(A[i, j * 4 : j * 4 + 4], (5,))
            T.evaluate(0)
""", 9, "The dimension mismatched between source region and target buffer shape, got 4 vs. 5."),
}


@pytest.mark.parametrize("case", list(_BLOCK_ERRORS))
def test_builder_rejects_what_tvm_rejects(case):
    program, line, message = _BLOCK_ERRORS[case]
    text = _error(program)
    assert f"<str>:{line}:" in text
    assert message in text


def test_names_may_repeat_in_sibling_blocks():
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("a"):
                vi = T.axis.S(16, i)
                A[vi] = T.float32(0)
        for i in range(16):
            with T.sblock("b"):
                vi = T.axis.S(16, i)
                A[vi] = A[vi] + T.float32(1)

    verify_well_formed(f)
