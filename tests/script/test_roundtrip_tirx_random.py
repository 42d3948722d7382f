"""Random TIR programs: print -> parse gives a structurally equal function, and the same text.

The programs are built with the IR API (not from text), so the parser meets every expression
shape the printer writes: nested arithmetic, ``T.max``/``T.min``, ``T.Select``, casts,
comparisons combined with ``and``/``or``/``not``, loads inside indices, loops and branches.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm import tirx
from tvm.script import from_source
from tvm.tirx import stmt as S

_A = tirx.decl_buffer((64,), "int32", name="A")
_F = tirx.decl_buffer((64,), "float32", name="F")
_N = tirx.Var("n", "int32")


def _int_expr(loop_vars):
    # Every leaf holds a variable: the parser's operators fold constant-only subexpressions
    # (``0 + 0`` is read back as ``0``), as TVM's do, so those do not round-trip as trees.
    variables = st.sampled_from([_N, *loop_vars])
    leaves = st.one_of(
        variables,
        st.tuples(variables, st.integers(2, 40)).map(
            lambda t: tirx.Add(t[0], tirx.IntImm("int32", t[1]))
        ),
    )

    def extend(children):
        binary = st.tuples(
            st.sampled_from(["add", "sub", "mul", "floordiv", "floormod", "max", "min"]),
            children, children,
        ).map(lambda t: _binary(*t))
        select = st.tuples(_cond(children), children, children).map(
            lambda t: tirx.Select(t[0], t[1], t[2])
        )
        load = children.map(lambda e: S.BufferLoad(_A, [tirx.floormod(e, 64)]))
        cast = children.map(lambda e: tirx.Cast("int32", tirx.Cast("float32", e)))
        return st.one_of(binary, select, load, cast)

    return st.recursive(leaves, extend, max_leaves=6)


def _binary(op, a, b):
    if op in ("floordiv", "floormod"):
        b = tirx.IntImm("int32", 7)  # a constant divisor keeps the program meaningful
    elif a is b:
        # ``T.max(n, n)`` is read back as ``n`` (the same variable twice folds, as in TVM).
        b = tirx.Add(b, tirx.IntImm("int32", 3))
    return {
        "add": lambda: tirx.Add(a, b),
        "sub": lambda: tirx.Sub(a, b),
        "mul": lambda: tirx.Mul(a, b),
        "floordiv": lambda: tirx.FloorDiv(a, b),
        "floormod": lambda: tirx.FloorMod(a, b),
        "max": lambda: tirx.Max(a, b),
        "min": lambda: tirx.Min(a, b),
    }[op]()


def _cond(ints):
    cmp = st.tuples(st.sampled_from([tirx.LT, tirx.LE, tirx.GT, tirx.GE, tirx.EQ, tirx.NE]),
                    ints, ints).map(lambda t: t[0](t[1], t[2]))

    def extend(children):
        return st.one_of(
            st.tuples(children, children).map(lambda t: tirx.And(*t)),
            st.tuples(children, children).map(lambda t: tirx.Or(*t)),
            children.map(tirx.Not),
        )

    return st.recursive(cmp, extend, max_leaves=3)


_I = tirx.Var("i", "int32")
_J = tirx.Var("j", "int32")
# Built once: recursive strategies are costly to construct.
_INTS = _int_expr([_I, _J])
_CONDS = _cond(_INTS)


@st.composite
def _programs(draw):
    i, j, ints = _I, _J, _INTS
    inner = S.BufferStore(_A, draw(ints), [tirx.floormod(draw(ints), 64)])
    if draw(st.booleans()):
        other = S.BufferStore(_F, tirx.Cast("float32", draw(ints)), [tirx.IntImm("int32", 0)])
        inner = S.IfThenElse(draw(_CONDS), inner, other if draw(st.booleans()) else None)
    kind = draw(st.sampled_from([S.ForKind.SERIAL, S.ForKind.PARALLEL, S.ForKind.UNROLLED]))
    loop_j = S.For(j, tirx.IntImm("int32", draw(st.integers(0, 3))),
                   tirx.IntImm("int32", draw(st.integers(1, 9))), kind, inner)
    loop_i = S.For(i, tirx.IntImm("int32", 0), _N, S.ForKind.SERIAL, loop_j)
    return tirx.PrimFunc([_A, _F, _N], loop_i, attrs={"global_symbol": "main"})


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(_programs())
def test_random_programs_roundtrip(func):
    text = func.script()
    parsed = from_source(text)
    tvm.ir.assert_structural_equal(func, parsed)
    assert parsed.script() == text
