"""Property-based fuzzing of the TVMScript parser (issue 22, "Fuzzing and CI").

Mutated versions of valid TVMScript programs (characters deleted, replaced or inserted,
tokens swapped, lines duplicated or dropped) must either parse or fail with a
``DiagnosticError``, ``ValueError`` or ``TypeError``: never another exception type, never a
hang. The run is bounded (a fixed number of examples, no per-example deadline) so the whole
file stays well under its share of the 60 s CI budget. Parsing executes Python expressions:
the mutations here are random text, not hostile programs (see the README's security note).
"""

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm.error import DiagnosticError

ALLOWED = (DiagnosticError, ValueError, TypeError)

SEEDS = [
    '''
@T.prim_func(s_tir=True)
def add(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("b"):
            vi = T.axis.spatial(8, i)
            b[vi] = a[vi] + T.float32(1.0)
''',
    '''
@T.prim_func(s_tir=True)
def red(a: T.Buffer((4, 4), "float32"), s: T.Buffer((), "float32")):
    for i, j in T.grid(4, 4):
        with T.sblock("s"):
            vi, vj = T.axis.remap("RR", [i, j])
            with T.init():
                s[()] = T.float32(0.0)
            s[()] = s[()] + a[vi, vj] * T.float32(2.0)
''',
    '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.nn.relu(a)
            c = R.sum(b, axis=[1])
            R.output(c)
        return c
''',
    '''
@R.function
def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
    n = T.int64()
    y = R.multiply(x, R.const(2.0, "float32"))
    z = R.reshape(y, R.shape([n, 4]))
    return z
''',
]

TOKENS = ["(", ")", "[", "]", ":", ",", "=", "+", "*", "**", "-1", "0", "9" * 30, '"', "'",
          "T.", "R.", "I.", "\n", "    ", "lambda", "None", "()", "[]", "x", "with", "for",
          "return", "@R.function", "@T.prim_func", "1e400", "-", "/", "//", "%", "<<", "not"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "replace", "insert", "token", "line"]))
        pos = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "delete":
            end = pos + draw(st.integers(1, 8))
            text = text[:pos] + text[end:]
        elif kind == "replace":
            text = text[:pos] + draw(st.characters(codec="ascii")) + text[pos + 1:]
        elif kind == "insert":
            text = text[:pos] + draw(st.text(alphabet=st.characters(codec="ascii"),
                                             max_size=4)) + text[pos:]
        elif kind == "token":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        else:
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            if draw(st.booleans()):
                lines.insert(k, lines[k])
            else:
                del lines[k]
            text = "\n".join(lines)
    return text


def test_the_seeds_parse():
    for seed in SEEDS:
        tvm.script.from_source(seed)


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_program_parses_or_raises_an_allowed_error(text):
    limit = sys.getrecursionlimit()
    try:
        tvm.script.from_source(text)
    except ALLOWED:
        pass
    except Exception as err:  # noqa: BLE001 - the property under test
        pytest.fail(f"{type(err).__name__}: {err}\n--- program ---\n{text}")
    assert sys.getrecursionlimit() == limit
