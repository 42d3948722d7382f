"""Relax printing: expected strings are Apache TVM 0.27's output for the same IR (format facts).

The IR is built with our constructors (the parser is tested elsewhere).
"""

import pytest
from tvm_ffi.access_path import AccessPath

from tvm import relax, tirx
from tvm.ir import IRModule
from tvm.relax import op

SEED = "/work/shared/spec/seed_gradient_expected.txt"


def tensor(shape, dtype="float32"):
    return relax.TensorType(list(shape), dtype)


def func(params, blocks, body, ret, name=None, **kwargs):
    attrs = {"global_symbol": name} if name else None
    return relax.Function(params, relax.SeqExpr(blocks, body), ret, attrs=attrs, **kwargs)


def gradient_module():
    t33, scalar = tensor((3, 3)), tensor(())

    def forward():
        x, y = relax.Var("x", t33), relax.Var("y", t33)
        lv1, lv2 = relax.DataflowVar("lv1", t33), relax.Var("lv2", scalar)
        block = relax.DataflowBlock([
            relax.VarBinding(lv1, op.add(x, y)),
            relax.VarBinding(lv2, op.sum(lv1, axis=None, keepdims=False)),
        ])
        return x, y, lv1, lv2, block

    x, y, _, lv2, block = forward()
    main = func([x, y], [block], lv2, scalar, "main")
    x, y, _, lv2, block = forward()
    names = ["lv2_adjoint", "lv1_adjoint", "x_adjoint", "y_adjoint"]
    lv2a, lv1a, xa, ya = (relax.DataflowVar(n, scalar if n == "lv2_adjoint" else t33)
                          for n in names)
    xo, yo = relax.Var("x_adjoint_out", t33), relax.Var("y_adjoint_out", t33)
    bindings = list(block.bindings) + [
        relax.VarBinding(lv2a, op.ones(relax.ShapeExpr([]), "float32")),
        relax.VarBinding(lv1a, op.broadcast_to(lv2a, relax.ShapeExpr([3, 3]))),
        relax.VarBinding(xa, lv1a),
        relax.VarBinding(ya, lv1a),
        relax.VarBinding(xo, xa),
        relax.VarBinding(yo, ya),
    ]
    ret = relax.TupleType([scalar, relax.TupleType([t33, t33])])
    body = relax.Tuple([lv2, relax.Tuple([xo, yo])])
    adjoint = func([x, y], [relax.DataflowBlock(bindings)], body, ret, "main_adjoint")
    return IRModule({"main": main, "main_adjoint": adjoint})


def test_seed_gradient_module_byte_for_byte():
    with open(SEED) as f:
        expected = f.read()
    assert gradient_module().script() + "\n" == expected
    assert str(gradient_module()) + "\n" == expected


# --- underlining (spec C.4) -------------------------------------------------------------------


def small_function():
    t3 = tensor((3,))
    x = relax.Var("x", t3)
    y, z = relax.DataflowVar("y", t3), relax.Var("z", t3)
    block = relax.DataflowBlock([
        relax.VarBinding(y, op.add(x, x)),
        relax.VarBinding(z, op.multiply(y, x)),
    ])
    return func([x], [block], z, t3, "f")


ROOT = AccessPath.root()
BINDINGS = ROOT.attr("body").attr("blocks").array_item(0).attr("bindings")
SMALL = """\
# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    with R.dataflow():
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
        R.output(z)
    return z"""


def test_plain_function():
    assert small_function().script() == SMALL


def test_underline_nearest_visible_parent():
    text = small_function().script(
        path_to_underline=[BINDINGS.array_item(0).attr("value").attr("attrs")]
    )
    assert text == """\
Access path: <root>.body.blocks[0].bindings[0].value.attrs
Note: The underlined object is the nearest visible parent of this path.

# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    with R.dataflow():
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
                                             ^^^^^^^^^^^
        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
        R.output(z)
    return z"""


def test_underline_block_spans_lines():
    text = small_function().script(
        path_to_underline=[ROOT.attr("body").attr("blocks").array_item(0)]
    )
    assert text == """\
Access path: <root>.body.blocks[0]

# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    with R.dataflow():
    ^^^^^^^^^^^^^^^^^^
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        R.output(z)
        ^^^^^^^^^^^
    return z"""


def test_two_paths_and_line_numbers():
    text = small_function().script(
        path_to_underline=[BINDINGS.array_item(1), ROOT.attr("params").array_item(0)],
        print_line_numbers=True,
    )
    assert text == """\
Access path: <root>.body.blocks[0].bindings[1]
Access path: <root>.params[0]
Note: The underlined object is the nearest visible parent of this path.

1 # from tvm.script import relax as R
2 
3 @R.function
  ^^^^^^^^^^^
4 def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
5     with R.dataflow():
      ^^^^^^^^^^^^^^^^^^
6         y: R.Tensor((3,), dtype="float32") = R.add(x, x)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
7         z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
8         R.output(z)
          ^^^^^^^^^^^
9     return z
      ^^^^^^^^"""


def test_hidden_info_and_context():
    text = small_function().script(
        path_to_underline=[BINDINGS.array_item(1)],
        extra_config={"render_invisible_path_info": False},
        num_context_lines=1,
    )
    assert text == """\
(... 5 lines skipped ...)
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        R.output(z)
    return z"""


def test_var_path_underlines_its_use():
    text = small_function().script(
        path_to_underline=[BINDINGS.array_item(1).attr("var")], num_context_lines=0
    )
    assert text == """\
Access path: <root>.body.blocks[0].bindings[1].var

(... 7 lines skipped ...)
        R.output(z)
                 ^
    return z"""


def test_obj_to_underline_uses_first_reference():
    f = small_function()
    y = f.body.blocks[0].bindings[0].var
    text = f.script(obj_to_underline=[y])
    assert text.split("\n")[0] == "Access path: <root>.body.blocks[0].bindings[1].value.args[0]"
    assert text.split("\n")[-4:-2] == [
        '        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)',
        "                                                        ^",
    ]


@pytest.mark.parametrize(
    "path, caret_line",
    [
        (ROOT.attr("body").attr("body"), "           ^"),
        (BINDINGS.array_item(0).attr("value").attr("op"), " " * 45 + "^^^^^"),
        (BINDINGS.array_item(0).attr("value").attr("args").array_item(1), " " * 54 + "^"),
    ],
)
def test_underline_parts_of_expressions(path, caret_line):
    text = small_function().script(path_to_underline=[path])
    assert caret_line in text.split("\n")
    assert "Note:" not in text


def test_unknown_path_underlines_root():
    text = small_function().script(path_to_underline=[ROOT.attr("foo")])
    lines = text.split("\n")
    assert lines[:2] == [
        "Access path: <root>.foo",
        "Note: The underlined object is the nearest visible parent of this path.",
    ]
    assert lines[5:7] == ["@R.function", "^^^^^^^^^^^"]


def long_function(n_before=9):
    t = tensor((3,))
    x = relax.Var("x", t)
    bindings, prev = [], x
    for i in range(n_before):
        var = relax.Var(f"a{i}", t)
        bindings.append(relax.VarBinding(var, op.add(prev if i else x, x)))
        prev = var
    return func([x], [relax.BindingBlock(bindings)], prev, t, "f")


@pytest.mark.parametrize(
    "context, index, first, last",
    [
        (0, 0, "(... 4 lines skipped ...)", "(... 9 lines skipped ...)"),
        (0, 8, "(... 12 lines skipped ...)", "    return a8"),
        (1, 7, "(... 10 lines skipped ...)", "    return a8"),
        (2, 0, "(... 2 lines skipped ...)", "(... 7 lines skipped ...)"),
        (3, 0, "# from tvm.script import relax as R", "(... 6 lines skipped ...)"),
        (3, 5, "(... 6 lines skipped ...)", "    return a8"),
    ],
)
def test_context_trimming_matches_tvm(context, index, first, last):
    path = ROOT.attr("body").attr("blocks").array_item(0).attr("bindings").array_item(index)
    text = long_function().script(
        path_to_underline=[path.attr("value")], num_context_lines=context,
        extra_config={"render_invisible_path_info": False},
    )
    lines = text.split("\n")
    assert (lines[0], lines[-1]) == (first, last)


def test_unknown_extra_config_is_an_error():
    with pytest.raises(ValueError, match="extra_config"):
        small_function().script(extra_config={"bogus": 1})


# --- constructs -------------------------------------------------------------------------------


def test_signature_types_and_decorator_flags():
    x = relax.Var("x", relax.TensorType(None, "float32", ndim=2))
    o = relax.Var("o", relax.ObjectType())
    s = relax.Var("s", relax.ShapeType([2, 3]))
    p = relax.Var("p", relax.PrimType("int64"))
    t = relax.Var("t", relax.TupleType([relax.TensorType(None, "void"), tensor((2,), "int32")]))
    cb = relax.Var("cb", relax.FuncType([tensor((3,))], tensor((3,))))
    f = relax.Function([x, o, s, p, t, cb], relax.SeqExpr([], x),
                       relax.TensorType(None, "float32", ndim=2), is_pure=False,
                       attrs={"num_input": 1})
    assert f.script() == """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@R.function(pure=False, private=True)
def main(x: R.Tensor(dtype="float32", ndim=2), o: R.Any, s: R.Shape([2, 3]), p: T.int64, \
t: R.Tuple(R.Tensor, R.Tensor((2,), dtype="int32")), cb: R.Callable((R.Tensor((3,), \
dtype="float32"),), R.Tensor((3,), dtype="float32"), True)) -> R.Tensor(dtype="float32", ndim=2):
    R.func_attr({"num_input": 1})
    return x"""


def test_symbolic_vars_typevar_and_string_return():
    n = tirx.Var("n", "int64")
    x = relax.Var("x", tensor((n, 4)))
    lv = relax.Var("lv", tensor((n * 2, 4)))
    block = relax.BindingBlock([relax.VarBinding(lv, op.reshape(x, relax.ShapeExpr([n * 2, 4])))])
    f = func([x], [block], lv, tensor((n * 2, 4)), "f3")
    assert f.script() == """\
# from typing import TypeVar
# from tvm.script import relax as R

n = TypeVar("n")
@R.function
def f3(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 2", 4), dtype="float32"):
    lv: R.Tensor((n * 2, 4), dtype="float32") = R.reshape(x, R.shape([n * 2, 4]))
    return lv"""


def test_body_symbolic_vars_are_declared_in_the_function():
    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    x = relax.Var("x", tensor((n,)))
    y = relax.Var("y", tensor((m,)))
    p = relax.Var("p", relax.PrimType("int64"))
    block = relax.BindingBlock([
        relax.MatchCast(y, x, tensor((m,))),
        relax.VarBinding(p, relax.PrimValue(m + 1)),
    ])
    f = func([x], [block], p, relax.PrimType("int64"), "h")
    assert f.script() == """\
# from typing import TypeVar
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@R.function
def h(x: R.Tensor((n,), dtype="float32")) -> T.int64:
    m = T.int64()
    y: R.Tensor((m,), dtype="float32") = R.match_cast(x, R.Tensor((m,), dtype="float32"))
    p: T.int64 = m + 1
    return p"""


def test_leaf_expressions_and_name_dedup():
    t = tensor((2, 4))
    x, y = relax.Var("x", t), relax.Var("y", t)
    lv_a, lv_b = relax.DataflowVar("lv", t), relax.Var("lv", t)
    z = relax.DataflowVar("z", tensor(()))
    tup_ty = relax.TupleType([t, tensor(())])
    tup, g = relax.DataflowVar("t", tup_ty), relax.Var("g", t)
    s = relax.DataflowVar("s", relax.ShapeType([2, 4]))
    st = relax.DataflowVar("st", relax.ObjectType())
    dt = relax.DataflowVar("dt", relax.ObjectType())
    block = relax.DataflowBlock([
        relax.VarBinding(lv_a, op.add(x, y)),
        relax.VarBinding(lv_b, op.multiply(lv_a, lv_a)),
        relax.VarBinding(z, relax.const(1.0, "float32")),
        relax.VarBinding(tup, relax.Tuple([lv_b, z])),
        relax.VarBinding(g, relax.TupleGetItem(tup, 0)),
        relax.VarBinding(s, relax.ShapeExpr([2, 4])),
        relax.VarBinding(st, relax.StringImm("hi")),
        relax.VarBinding(dt, relax.DataTypeImm("float32")),
    ])
    f = func([x, y], [block], lv_b, t, "f")
    assert f.script() == """\
# from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 4), dtype="float32"), y: R.Tensor((2, 4), dtype="float32")) -> \
R.Tensor((2, 4), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 4), dtype="float32") = R.add(x, y)
        lv_1: R.Tensor((2, 4), dtype="float32") = R.multiply(lv, lv)
        z: R.Tensor((), dtype="float32") = R.const(1.0, "float32")
        t: R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((), dtype="float32")) = lv_1, z
        g: R.Tensor((2, 4), dtype="float32") = t[0]
        s: R.Shape([2, 4]) = R.shape([2, 4])
        st: R.Any = R.str("hi")
        dt: R.Any = R.dtype("float32")
        R.output(lv_1, g)
    return lv_1"""


def test_constants_and_metadata():
    import numpy as np

    t = tensor((2, 3), "int32")
    c, k = relax.Var("c", t), relax.Var("k", tensor(()))
    block = relax.BindingBlock([
        relax.VarBinding(c, relax.const(np.arange(6, dtype="int32").reshape(2, 3))),
        relax.VarBinding(k, relax.const(np.float32(0.1))),
    ])
    f = func([], [block], c, t, "f5")
    text = f.script()
    assert text.split("\n")[4:] == [
        '    c: R.Tensor((2, 3), dtype="int32") = metadata["ir.GenericConst"][0]',
        '    k: R.Tensor((), dtype="float32") = R.const(0.10000000149011612, "float32")',
        "    return c",
        "",
        "# Metadata omitted. Use show_meta=True in script() method to show it.",
    ]
    shown = f.script(show_meta=True)
    # The metadata section comes first, written as TVMScript (see test_metadata_consistency.py).
    assert shown.startswith('metadata = {\n    "ir.GenericConst": [\n')
    assert '        R.const([[0, 1, 2], [3, 4, 5]], "int32"),\n' in shown


def test_if_nested_function_calls_and_call_tir():
    t = tensor((3,))
    x, c = relax.Var("x", t), relax.Var("c", tensor((), "bool"))
    y = relax.Var("y", t)
    z = relax.Var("z", t)
    inner = func([y], [relax.BindingBlock([relax.VarBinding(z, op.add(y, y))])], z, t)
    inner_var = relax.Var("inner", relax.FuncType([t], t))
    a, b, r, r_else = (relax.Var(n, t) for n in ("a", "b", "r", "r_else"))
    then = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(b, op.add(x, x))])], b)
    other = relax.SeqExpr(
        [relax.BindingBlock([relax.VarBinding(r_else, op.multiply(x, x))])], r_else
    )
    e, p = relax.Var("e", t), relax.Var("p", tensor((2, 3)))
    block = relax.BindingBlock([
        relax.VarBinding(inner_var, inner),
        relax.VarBinding(a, relax.Call(inner_var, [x])),
        relax.VarBinding(r, relax.If(c, then, other)),
        relax.VarBinding(e, op.call_dps_packed("ext", relax.Tuple([x]), out_ty=t)),
        relax.VarBinding(p, op.call_packed("foo", x, ty_args=[tensor((2, 3))])),
    ])
    f = func([x, c], [block], r, t, "f")
    assert f.script().split("\n")[3:] == [
        ('def f(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> '
         'R.Tensor((3,), dtype="float32"):'),
        "    # from tvm.script import relax as R",
        "    ",
        "    @R.function",
        '    def inner(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):',
        '        z: R.Tensor((3,), dtype="float32") = R.add(y, y)',
        "        return z",
        "",
        '    a: R.Tensor((3,), dtype="float32") = inner(x)',
        "    if c:",
        '        b: R.Tensor((3,), dtype="float32") = R.add(x, x)',
        '        r: R.Tensor((3,), dtype="float32") = b',
        "    else:",
        '        r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)',
        '        r: R.Tensor((3,), dtype="float32") = r_else',
        '    e = R.call_dps_packed("ext", (x,), out_ty=R.Tensor((3,), dtype="float32"))',
        ('    p: R.Tensor((2, 3), dtype="float32") = R.call_packed("foo", x, '
         'ty_args=(R.Tensor((2, 3), dtype="float32"),))'),
        "    return r",
    ]


def test_module_order_attrs_and_module_alias():
    t = tensor((3,))

    def ident(name):
        x = relax.Var("x", t)
        return func([x], [], x, t, name)

    x = relax.Var("x", t)
    e = relax.Var("e", t)
    gv_f = relax.GlobalVar("f") if hasattr(relax, "GlobalVar") else None
    caller = func([x], [relax.BindingBlock([relax.VarBinding(e, relax.Call(gv_f, [x, x]))])],
                  e, t, "g")
    mod = IRModule({gv_f: ident("f"), "main": ident("main"), "g": caller, "a": ident("a")},
                   attrs={"attr": 10})
    lines = mod.script().split("\n")
    assert lines[:6] == [
        "# from tvm.script import ir as I",
        "# from tvm.script import relax as R",
        "",
        "@I.ir_module",
        "class Module:",
        '    I.module_attrs({"attr": 10})',
    ]
    defs = [line.split("(")[0].strip() for line in lines if line.startswith("    def ")]
    assert defs == ["def a", "def f", "def g", "def main"]
    start = lines.index('    def g(x: R.Tensor((3,), dtype="float32")) -> '
                        'R.Tensor((3,), dtype="float32"):')
    assert lines[start + 1:start + 4] == [
        "        cls = Module",
        '        e: R.Tensor((3,), dtype="float32") = cls.f(x, x)',
        "        return e",
    ]
    # The standalone function refers to the callee by name.
    assert 'e: R.Tensor((3,), dtype="float32") = f(x, x)' in caller.script()


def test_op_attrs_print_as_keywords():
    x = relax.Var("x", tensor((3, 4)))
    y = relax.Var("y", tensor((4, 5)))
    lv = relax.Var("lv", tensor((3, 5)))
    s = relax.Var("s", tensor((4,)))
    block = relax.BindingBlock([
        relax.VarBinding(lv, op.matmul(x, y)),
        relax.VarBinding(s, op.sum(x, axis=[0], keepdims=True)),
    ])
    text = func([x, y], [block], lv, tensor((3, 5)), "main").script()
    assert '    lv: R.Tensor((3, 5), dtype="float32") = R.matmul(x, y, out_dtype=None)' in text
    assert "R.sum(x, axis=[0], keepdims=True)" in text


def test_missing_printer_rule_names_the_class():
    class Strange:
        pass

    with pytest.raises(TypeError, match="no rule for .*Strange"):
        from tvm.script.printer import script

        script(Strange())


# --- spec C.3 renderings ----------------------------------------------------------------------


def matmul_function(n_before=0, n_after=0):
    t34 = tensor((3, 4))
    x, y = relax.Var("x", t34), relax.Var("y", tensor((5, 6)))
    bindings, prev = [], x
    for i in range(n_before):
        var = relax.Var(f"a{i}", t34)
        bindings.append(relax.VarBinding(var, op.add(prev if i else x, x)))
        prev = var
    # The bad call is bound with no type (built without normalization), so no annotation.
    bad = relax.Var("bad" if n_before else "lv")
    call = relax.Call(tvm_op("relax.matmul"), [prev if n_before else x, y],
                      op.matmul(x, x).attrs)
    bindings.append(relax.VarBinding(bad, call))
    prev = bad
    for i in range(n_after):
        var = relax.Var(f"b{i}")
        bindings.append(relax.VarBinding(var, op.add(prev, prev)))
        prev = var
    return func([x, y], [relax.BindingBlock(bindings)], prev, tensor((3, 6)), "main")


def tvm_op(name):
    from tvm.ir.op import Op

    return Op.get(name)


def test_spec_c3_enriched_location_block():
    path = BINDINGS.array_item(0).attr("value")
    text = matmul_function().script(path_to_underline=[path], num_context_lines=10)
    assert text == """\
Access path: <root>.body.blocks[0].bindings[0].value

# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((5, 6), dtype="float32")) -> \
R.Tensor((3, 6), dtype="float32"):
    lv = R.matmul(x, y, out_dtype=None)
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    return lv"""


def test_spec_c3_long_function_trimming():
    path = BINDINGS.array_item(14).attr("value")
    text = matmul_function(14, 14).script(path_to_underline=[path], num_context_lines=10)
    lines = text.split("\n")
    assert lines[:3] == [
        "Access path: <root>.body.blocks[0].bindings[14].value",
        "",
        "(... 8 lines skipped ...)",
    ]
    assert lines[3] == '    a4: R.Tensor((3, 4), dtype="float32") = R.add(a3, x)'
    bad = lines.index("    bad = R.matmul(a13, y, out_dtype=None)")
    assert lines[bad + 1] == "          " + "^" * 32
    assert lines[bad + 2] == "    b0 = R.add(bad, bad)"
    assert lines[-1] == "(... 5 lines skipped ...)"
    assert len(lines) == 3 + 10 + 2 + 10 + 1


def test_fragments_declare_free_vars_and_have_no_header():
    t3 = tensor((3,))
    x, y = relax.Var("x", t3), relax.Var("y", t3)
    block = relax.DataflowBlock([relax.VarBinding(y, op.add(x, x))])
    seq = relax.SeqExpr([block], y)
    assert str(block.bindings[0].value) == "R.add(x, x)"
    assert str(x) == "x"
    assert str(t3) == 'R.Tensor((3,), dtype="float32")'
    decl = 'x: R.Tensor((3,), dtype="float32")'
    assert str(block.bindings[0]) == decl + '\ny: R.Tensor((3,), dtype="float32") = R.add(x, x)'
    assert str(seq).split("\n") == [
        decl,
        "with R.dataflow():",
        '    y: R.Tensor((3,), dtype="float32") = R.add(x, x)',
        "    R.output(y)",
        "y",
    ]


def test_annotations_go_on_statements_only():
    f = small_function()
    text = f.script(path_to_annotate={BINDINGS.array_item(1): "here"})
    assert '        z: R.Tensor((3,), dtype="float32") = R.multiply(y, x)  # here' in text
    text = f.script(path_to_annotate={ROOT.attr("body").attr("blocks").array_item(0): "blk"})
    assert "    # blk\n    with R.dataflow():" in text
    z = f.body.blocks[0].bindings[1].var
    with pytest.warns(UserWarning, match="expected a statement"):
        text = f.script(obj_to_annotate={z: "out"})
    assert text == SMALL


def test_call_tir_tuple_output_and_extern_func_binding():
    from tvm.ir import GlobalVar

    t23 = tensor((2, 3))
    x, s, u = relax.Var("x", t23), relax.Var("s", relax.ShapeType(ndim=2)), relax.Var(
        "u", relax.TensorType(None, "float32"))
    out_ty = relax.TupleType([t23, t23])
    d, e = relax.Var("d", out_ty), relax.Var("e", relax.FuncType(None, relax.ObjectType()))
    call = op.call_tir(GlobalVar("h"), relax.Tuple([x]), out_ty=out_ty)
    block = relax.BindingBlock([
        relax.VarBinding(d, call),
        relax.VarBinding(e, relax.ExternFunc("myfunc")),
    ])
    text = func([x, s, u], [block], d, out_ty, "f").script()
    assert text.split("\n")[3:] == [
        ('def f(x: R.Tensor((2, 3), dtype="float32"), s: R.Shape(ndim=2), '
         'u: R.Tensor(dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), '
         'R.Tensor((2, 3), dtype="float32")):'),
        ('    d = R.call_tir(h, (x,), out_ty=[R.Tensor((2, 3), dtype="float32"), '
         'R.Tensor((2, 3), dtype="float32")])'),
        '    e: R.Callable = R.ExternFunc("myfunc")',
        "    return d",
    ]


def test_show_all_ty_false_drops_binding_annotations():
    text = small_function().script(show_all_ty=False)
    assert text.split("\n")[5:7] == ["        y = R.add(x, x)", "        z = R.multiply(y, x)"]


def test_internal_linked_paths_format_global_vars():
    mod = gradient_module()
    gv = mod.get_global_var("main")
    path = None
    steps = [("attr", "functions"), ("map", gv), ("attr", "body"), ("attr", "blocks"),
             ("item", 0), ("attr", "bindings"), ("item", 1), ("attr", "value")]
    for kind, key in steps:
        path = (path, kind, key)
    lines = mod.script(path_to_underline=[path], num_context_lines=0).split("\n")
    assert lines[0] == (
        'Access path: <root>.functions[I.GlobalVar("main")].body.blocks[0].bindings[1].value'
    )
    assert lines[3:5] == [
        '            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)',
        " " * 49 + "^" * 37,
    ]


def two_function_module():
    t3 = tensor((3,))

    def chain(name, names):
        x = relax.Var("x", t3)
        bindings, prev = [], x
        for i, var_name in enumerate(names):
            var = relax.Var(var_name, t3)
            bindings.append(relax.VarBinding(var, op.add(prev if i else x, x)))
            prev = var
        return func([x], [relax.BindingBlock(bindings)], prev, t3, name)

    return IRModule({"f": chain("f", ["a"]), "g": chain("g", ["b", "c"])})


def linked(*steps):
    path = None
    for kind, key in steps:
        path = (path, kind, key)
    return path


def test_blank_line_after_function_joins_the_line_before():
    # TVM 0.27 does not number the blank line after a function and puts the underline row of
    # the function's last line after it.
    mod = two_function_module()
    g, f = mod.get_global_var("g"), mod.get_global_var("f")
    value = linked(("attr", "functions"), ("map", g), ("attr", "body"), ("attr", "blocks"),
                   ("item", 0), ("attr", "bindings"), ("item", 0), ("attr", "value"))
    text = mod.script(path_to_underline=[value], num_context_lines=0, print_line_numbers=True)
    assert text == 'Access path: <root>.functions[I.GlobalVar("g")].body.blocks[0].bindings[0].value\n\n(... 11 lines skipped ...)\n12         b: R.Tensor((3,), dtype="float32") = R.add(x, x)\n                                                ^^^^^^^^^^^\n(... 2 lines skipped ...)'
    whole_f = linked(("attr", "functions"), ("map", f))
    text = mod.script(path_to_underline=[whole_f], print_line_numbers=True)
    assert text == 'Access path: <root>.functions[I.GlobalVar("f")]\n\n 1 # from tvm.script import ir as I\n 2 # from tvm.script import relax as R\n 3 \n 4 @I.ir_module\n 5 class Module:\n 6     @R.function\n       ^^^^^^^^^^^\n 7     def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n 8         a: R.Tensor((3,), dtype="float32") = R.add(x, x)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n 9         return a\n\n           ^^^^^^^^\n10     @R.function\n11     def g(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n12         b: R.Tensor((3,), dtype="float32") = R.add(x, x)\n13         c: R.Tensor((3,), dtype="float32") = R.add(b, x)\n14         return c'
    text = mod.script(path_to_underline=[whole_f], num_context_lines=1)
    assert text == 'Access path: <root>.functions[I.GlobalVar("f")]\n\n(... 4 lines skipped ...)\nclass Module:\n    @R.function\n    ^^^^^^^^^^^\n    def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n        a: R.Tensor((3,), dtype="float32") = R.add(x, x)\n        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n        return a\n\n        ^^^^^^^^\n    @R.function\n(... 4 lines skipped ...)'


def test_empty_tuple_variables_print_as_their_value():
    unit = relax.TupleType([])
    x, y, t0 = relax.Var("x", unit), relax.Var("y", unit), relax.Var("t0", unit)
    block = relax.BindingBlock([relax.VarBinding(t0, relax.Tuple([]))])
    f = func([x, y], [block], x, unit, "f")
    assert f.script().split("\n")[3:] == [
        "def f(x: R.Tuple, y: R.Tuple) -> R.Tuple:",
        "    R.tuple()",
        "    return R.tuple()",
    ]


def test_op_print_rules_are_data_driven():
    from tvm.ir.op import Op, register_op, register_op_attr
    from tvm.script.printer import register_call_printer
    from tvm.script.printer.doc import IdDoc

    register_op("relax.test_printer.custom_a", 1)
    register_op("relax.test_printer.custom_b", 1)
    t3 = tensor((3,))
    x, a, b = relax.Var("x", t3), relax.Var("a", t3), relax.Var("b", t3)

    # An op attribute (what an op family registers next to its other rules)...
    def print_a(call, path, d):
        return IdDoc("special_a").call(d.as_doc(call.args[0], None))

    register_op_attr("relax.test_printer.custom_a", "FPrintCall", print_a)

    # ... or the printer's own table, which can also drop the binding annotation.
    @register_call_printer("relax.test_printer.custom_b", annotate_binding=False)
    def print_b(call, path, d):
        return IdDoc("special_b").call(d.as_doc(call.args[0], None))

    try:
        block = relax.BindingBlock([
            relax.VarBinding(a, relax.Call(Op.get("relax.test_printer.custom_a"), [x])),
            relax.VarBinding(b, relax.Call(Op.get("relax.test_printer.custom_b"), [a])),
        ])
        lines = func([x], [block], b, t3, "f").script().split("\n")
        assert lines[4:6] == [
            '    a: R.Tensor((3,), dtype="float32") = special_a(x)',
            "    b = special_b(a)",
        ]
    finally:
        Op.get("relax.test_printer.custom_a").reset_attr("FPrintCall")
        _forget_ops("relax.test_printer.custom_a", "relax.test_printer.custom_b")


def _forget_ops(*names):
    """Remove test-only ops so registry-wide checks in the same run do not see them."""
    from tvm.ir import op as op_module
    from tvm.script.printer import relax_printer

    for name in names:
        op_module._OPS.pop(name, None)
        relax_printer._CALL_PRINTERS.pop(name, None)


def test_generic_op_call_spelling():
    from tvm.ir.op import Op, register_op

    register_op("relax.test_printer.nn.thing", 1)
    t3 = tensor((3,))
    x, a = relax.Var("x", t3), relax.Var("a", t3)
    call = relax.Call(Op.get("relax.test_printer.nn.thing"), [x])
    block = relax.BindingBlock([relax.VarBinding(a, call)])
    try:
        lines = func([x], [block], a, t3, "f").script().split("\n")
    finally:
        _forget_ops("relax.test_printer.nn.thing")
    assert lines[4] == '    a: R.Tensor((3,), dtype="float32") = R.test_printer.nn.thing(x)'
