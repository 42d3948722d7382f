"""PrimFunc and TIR statement printing; expected texts are Apache TVM 0.27's output."""

from tvm import tirx
from tvm.ir.expr import Range
from tvm.tirx import stmt as S
from tvm.tirx.buffer import decl_buffer
from tvm.tirx.function import PrimFunc

HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"
TRUE = tirx.IntImm("bool", 1)


def i32(value):
    return tirx.IntImm("int32", value)


def var(name, dtype="int32"):
    return tirx.Var(name, dtype)


def loop(v, extent, body, kind=S.ForKind.SERIAL, start=0, **kwargs):
    return S.For(v, start, extent, kind, body, **kwargs)


def test_elementwise_grid():
    a, b, c = (decl_buffer((2, 3), "float32", name=n) for n in "ABC")
    i, j = var("i"), var("j")
    body = loop(i, 2, loop(j, 3, S.BufferStore(c, a[i, j] + b[i, j], [i, j])))
    f = PrimFunc([a, b, c], body, attrs={"global_symbol": "add", "tir.noalias": True})
    assert f.script() == HEADER + """\
@T.prim_func
def add(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32"), \
C: T.Buffer((2, 3), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(2, 3):
        C[i, j] = A[i, j] + B[i, j]"""


def test_statements_and_scoped_loop_names():
    a, b = decl_buffer((16,), "int32", name="A"), decl_buffer((16,), "int32", name="B")
    n, x, i, i2 = var("n"), var("x"), var("i"), var("i")
    body = S.SeqStmt([
        S.AllocBuffer(b),
        loop(i, 16, S.IfThenElse(i < n, S.BufferStore(b, a[i] * 2, [i]),
                                 S.BufferStore(b, i32(0), [i]))),
        loop(i2, 16, S.BufferStore(a, b[i2], [i2])),
        S.Bind(x, n + 1),
        S.Evaluate(x),
        S.While(x > 0, S.BufferStore(a, x, [i32(0)])),
    ])
    f = PrimFunc([a, n], body, attrs={"global_symbol": "misc"})
    assert f.script() == HEADER + """\
@T.prim_func
def misc(A: T.Buffer((16,), "int32"), n: T.int32):
    B = T.alloc_buffer((16,), "int32")
    for i in range(16):
        if i < n:
            B[i] = A[i] * 2
        else:
            B[i] = 0
    for i in range(16):
        A[i] = B[i]
    x: T.let[T.int32] = n + 1
    T.evaluate(x)
    while x > 0:
        A[0] = x"""


def test_loop_kinds():
    a = decl_buffer((16, 16), "float32", name="A")
    i, j, k, t, s, u, v = (var(c) for c in "ijktsuv")
    one = tirx.FloatImm("float32", 1.0)
    body = S.SeqStmt([
        loop(i, 16, loop(j, 4, S.BufferStore(a, one, [i, j]), S.ForKind.VECTORIZED),
             S.ForKind.PARALLEL),
        loop(k, 8, S.BufferStore(a, one, [k, i32(0)]), S.ForKind.UNROLLED, start=2),
        loop(t, 16, S.BufferStore(a, one, [t, i32(1)]), S.ForKind.THREAD_BINDING,
             thread_binding=S.IterVar(None, var("tx"), 1, "threadIdx.x")),
        loop(s, 16, S.BufferStore(a, one, [s, i32(2)]), annotations={"pragma": 1}),
        loop(u, 16, loop(v, 6, S.BufferStore(a, one, [u, v]), start=2)),
    ])
    text = PrimFunc([a], body, attrs={"global_symbol": "loops"}).script()
    assert text.split("\n")[5:] == [
        "    for i in T.parallel(16):",
        "        for j in T.vectorized(4):",
        "            A[i, j] = T.float32(1.0)",
        "    for k in T.unroll(2, 10):",
        "        A[k, 0] = T.float32(1.0)",
        '    for t in T.thread_binding(16, thread="threadIdx.x"):',
        "        A[t, 1] = T.float32(1.0)",
        '    for s in T.serial(16, annotations={"pragma": 1}):',
        "        A[s, 2] = T.float32(1.0)",
        "    for u in range(16):",
        "        for v in range(2, 8):",
        "            A[u, v] = T.float32(1.0)",
    ]


def region(buf, *indices):
    return S.BufferRegion(buf, [Range.from_min_extent(getattr(x, "var", x), i32(1))
                                for x in indices])


def test_sblock_matmul_with_remap_and_init():
    a, b, c = (decl_buffer((128, 128), "float32", name=n) for n in "ABC")
    i, j, k = (var(n) for n in "ijk")
    vi, vj, vk = (S.IterVar(Range.from_min_extent(i32(0), i32(128)), var(n), kind)
                  for n, kind in (("vi", 0), ("vj", 0), ("vk", 2)))
    update = S.BufferStore(c, c[vi.var, vj.var] + a[vi.var, vk.var] * b[vj.var, vk.var],
                           [vi.var, vj.var])
    init = S.BufferStore(c, tirx.FloatImm("float32", 0.0), [vi.var, vj.var])
    block = S.SBlock([vi, vj, vk], [region(a, vi, vk), region(b, vj, vk)],
                     [region(c, vi, vj)], "C", update, init=init)
    nest = loop(i, 128, loop(j, 128, loop(k, 128, S.SBlockRealize([i, j, k], TRUE, block))))
    root = S.SBlockRealize([], TRUE, S.SBlock([], [], [], "root", nest))
    f = PrimFunc([a, b, c], root, attrs={"global_symbol": "mm"})
    assert f.script() == HEADER + """\
@T.prim_func(s_tir=True)
def mm(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), \
C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]"""


def test_sblock_axes_where_attrs_and_alloc():
    a, b = decl_buffer((16, 16), "float32", name="A"), decl_buffer((16,), "float32", name="B")
    tmp = decl_buffer((16,), "float32", name="tmp")
    i, j = var("i"), var("j")
    vi = S.IterVar(Range.from_min_extent(i32(0), i32(16)), var("vi"), 0)
    vj = S.IterVar(Range.from_min_extent(i32(0), i32(16)), var("vj"), 2)
    inner = S.SBlock([vj], [region(a, vi, vj)], [region(tmp, vj)], "inner",
                     S.BufferStore(tmp, a[vi.var, vj.var], [vj.var]))
    inner_loop = loop(j, 16, S.SBlockRealize([j], j < 15, inner))
    outer_body = S.SeqStmt([inner_loop, S.BufferStore(b, tmp[i32(0)], [vi.var])])
    full_row = S.BufferRegion(a, [Range.from_min_extent(vi.var, i32(1)),
                                  Range.from_min_extent(i32(0), i32(16))])
    outer = S.SBlock([vi], [full_row], [region(b, vi)], "s", outer_body,
                     alloc_buffers=[tmp], annotations={"k": 1})
    nest = loop(i, 16, S.SBlockRealize([i], TRUE, outer))
    root = S.SBlockRealize([], TRUE, S.SBlock([], [], [], "root", nest))
    f = PrimFunc([a, b], root, attrs={"global_symbol": "blk"})
    assert f.script() == HEADER + """\
@T.prim_func(s_tir=True)
def blk(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i in range(16):
        with T.sblock("s"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:16])
            T.writes(B[vi])
            T.sblock_attr({"k": 1})
            tmp = T.sblock_alloc_buffer((16,))
            for j in range(16):
                with T.sblock("inner"):
                    vj = T.axis.reduce(16, j)
                    T.where(j < 15)
                    T.reads(A[vi, vj])
                    T.writes(tmp[vj])
                    tmp[vj] = A[vi, vj]
            B[vi] = tmp[0]"""


def test_prim_func_in_module_comes_first_and_is_called_through_cls():
    from tvm import relax
    from tvm.ir import GlobalVar, IRModule
    from tvm.relax import op

    a, b = decl_buffer((2, 3), "float32", name="A"), decl_buffer((2, 3), "float32", name="B")
    i, j = var("i"), var("j")
    store = S.BufferStore(b, a[i, j] + tirx.FloatImm("float32", 1.0), [i, j])
    prim = PrimFunc([a, b], loop(i, 2, loop(j, 3, store)), attrs={"global_symbol": "h"})
    gv = GlobalVar("h")
    t23 = relax.TensorType([2, 3], "float32")
    x, d = relax.Var("x", t23), relax.Var("d", t23)
    call = op.call_tir(gv, relax.Tuple([x]), out_ty=t23)
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(d, call)])], d)
    main = relax.Function([x], body, t23, attrs={"global_symbol": "main"})
    text = IRModule({"main": main, gv: prim}).script()
    assert text.split("\n")[:12] == [
        "# from tvm.script import ir as I",
        "# from tvm.script import tirx as T",
        "# from tvm.tirx.layout import Axis",
        "# from tvm.script import relax as R",
        "",
        "@I.ir_module",
        "class Module:",
        "    @T.prim_func",
        '    def h(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):',
        "        for i, j in T.grid(2, 3):",
        "            B[i, j] = A[i, j] + T.float32(1.0)",
        "",
    ]
    assert text.split("\n")[13:] == [
        '    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):',
        "        cls = Module",
        '        d = R.call_tir(cls.h, (x,), out_ty=R.Tensor((2, 3), dtype="float32"))',
        "        return d",
    ]


def test_statement_fragment_declares_free_vars_and_buffers():
    a = decl_buffer((16,), "int32", name="A")
    n, i = var("n"), var("i")
    j = var("j")
    stmt = S.SeqStmt([
        loop(i, 16, S.IfThenElse(i < n, S.BufferStore(a, a[i] * 2, [i]))),
        loop(j, 16, S.BufferStore(a, a[j] + n, [j])),
    ])
    # Declared once, at the top, even when first met inside a loop.
    assert str(stmt).split("\n") == [
        "n = T.int32()",
        'A = T.Buffer((16,), "int32")',
        "for i in range(16):",
        "    if i < n:",
        "        A[i] = A[i] * 2",
        "for j in range(16):",
        "    A[j] = A[j] + n",
    ]


def test_params_attrs_asserts_views_and_extern_calls():
    from tvm.tirx import op as tir_op

    a = decl_buffer((16, 16), "float32", name="A")
    b = decl_buffer((tirx.IntImm("int64", 8),), "float32", name="B", scope="shared")
    c = decl_buffer((4,), "float32", name="C", scope="local")
    view = decl_buffer((16,), "float32", name="D", data=a.data)
    n, h = var("n"), tirx.Var("h", "handle")
    exp_call = tir_op.exp(a[i32(0), i32(1)])
    body = S.SeqStmt([
        S.AllocBuffer(c),
        S.AssertStmt("RuntimeError", n > 0, ["n must be positive"]),
        S.AttrStmt(i32(0), "pragma_x", i32(1), S.BufferStore(a, exp_call, [i32(0), i32(0)])),
        S.DeclBuffer(view),
        S.BufferStore(view, tirx.FloatImm("float32", 1.0), [i32(0)]),
        S.Evaluate(tir_op.call_extern("int32", "foo", n, a.data)),
    ])
    f = PrimFunc([a, b, n, h], body, attrs={"global_symbol": "loops"})
    assert f.script() == HEADER + """\
@T.prim_func
def loops(A: T.Buffer((16, 16), "float32"), B: T.Buffer((T.int64(8),), "float32", \
scope="shared"), n: T.int32, h: T.handle):
    C = T.alloc_local((4,))
    assert n > 0, ("RuntimeError", ["n must be positive"])
    with T.attr({"pragma_x": 1}):
        A[0, 0] = T.exp(A[0, 1])
    D = A.view(16)
    D[0] = T.float32(1.0)
    T.call_extern("int32", "foo", n, A.data)"""
