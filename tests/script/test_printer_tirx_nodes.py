"""Lone TIR nodes printed as TVM 0.27 prints them (texts checked against Apache TVM 0.27):
binary nodes over two constants and ``IterVar``; plus round trips of constant binaries."""

import pytest

import tvm
from tvm import tirx
from tvm.ir import Range
from tvm.script import from_source

_NAMES = ["Add", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "EQ", "NE", "LT", "LE", "GT", "GE"]


@pytest.mark.parametrize("name", _NAMES)
def test_binary_of_two_constants_prints_as_the_node(name):
    a, b = tirx.IntImm("int64", 3), tirx.IntImm("int64", 4)
    node = getattr(tirx, name)(a, b)
    assert node.script(verbose_expr=True) == f"T.{name}(T.int64(3), T.int64(4))"
    assert str(getattr(tirx, name)(tirx.IntImm("int32", 3), tirx.IntImm("int32", 4))) == (
        f"T.{name}(3, 4)"
    )


def test_binary_with_a_variable_keeps_the_operator():
    x = tirx.Var("x", "int64")
    four = tirx.IntImm("int64", 4)
    assert tirx.Add(x, four).script(verbose_expr=True) == "x = T.int64()\nx + T.int64(4)"
    nested = tirx.Add(tirx.Add(tirx.IntImm("int64", 3), four), x)
    assert nested.script(verbose_expr=True) == (
        "x = T.int64()\nT.Add(T.int64(3), T.int64(4)) + x"
    )
    t, f = tirx.IntImm("bool", 1), tirx.IntImm("bool", 0)
    assert str(tirx.And(t, f)) == "T.And(T.bool(True), T.bool(False))"
    assert str(tirx.Or(t, f)) == "T.Or(T.bool(True), T.bool(False))"


@pytest.mark.parametrize("name", _NAMES + ["And", "Or"])
def test_constant_binary_round_trips_unfolded(name):
    args = "T.bool(True), T.bool(False)" if name in ("And", "Or") else "T.int64(3), T.int64(4)"
    src = f'@T.prim_func\ndef main(A: T.Buffer((1,), "int64")):\n    T.evaluate(T.{name}({args}))\n'
    func = from_source(src)
    assert type(func.body.value).__name__ == name
    again = from_source(func.script())
    tvm.ir.assert_structural_equal(func, again)


@pytest.mark.parametrize(
    ("iter_type", "tag", "dom", "text"),
    [
        (0, "", Range(0, 8), 'T.iter_var(a, T.Range(0, 8), "DataPar", "")'),
        (1, "threadIdx.x", Range(2, 8),
         'T.iter_var(a, T.Range(2, 8), "ThreadIndex", "threadIdx.x")'),
        (4, "", Range(2, 8), 'T.iter_var(a, T.Range(2, 8), "Opaque", "")'),
        (8, "", Range(2, 8), 'T.iter_var(a, T.Range(2, 8), "Tensorized", "")'),
        (1, "threadIdx.x", None, 'T.iter_var(a, None, "ThreadIndex", "threadIdx.x")'),
    ],
)
def test_iter_var_text(iter_type, tag, dom, text):
    node = tirx.IterVar(dom, "a", iter_type=iter_type, thread_tag=tag)
    assert node.script(verbose_expr=True) == f"a = T.int32()\n{text}"


def test_lone_block_prints_no_realize():
    from tvm.script.ir_builder import IRBuilder
    from tvm.script.ir_builder import tirx as TB

    i, k = tirx.Var("i", "int32"), tirx.Var("k", "int32")
    with IRBuilder() as ib, TB.sblock(name="block"):
        ib.name("vi", TB.axis.spatial(128, i))
        ib.name("vk", TB.axis.reduce(32, k))
        TB.reads()
        TB.writes()
        TB.evaluate(0)
    realize = ib.get()
    lines = [
        'with T.sblock("block", no_realize=True):',
        "    vi = T.axis.spatial(128)",
        "    vk = T.axis.reduce(32)",
        "    T.reads()",
        "    T.writes()",
        "    T.evaluate(0)",
    ]
    assert realize.block.script(verbose_expr=True).splitlines() == lines
    # The realize around it still prints the bindings.
    assert "    vi = T.axis.spatial(128, i)\n" in realize.script(verbose_expr=True)
