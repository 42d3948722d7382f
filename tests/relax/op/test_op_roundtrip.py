"""Every op of the case tables round-trips through the TVMScript printer and parser."""

from __future__ import annotations

import pathlib
import sys

import pytest

import tvm
from tvm import relax

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import op_cases
from test_op_cases import CASES

#: Ops whose attributes cannot be written in TVMScript yet, with the missing piece.
NOT_ROUND_TRIPPABLE: dict = {}


def _module(case):
    call, params, _ = op_cases.build(case)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        out = bb.emit(call)
        bb.emit_func_output(out)
    return bb.get()


#: Cases whose inferred type has a compound symbolic dim (``n * 3``): the function's return
#: annotation prints it as a string (``R.Tensor(("n * 3",))``), which the parser does not read
#: back as a PrimExpr yet (a parser limitation, not an op one).
COMPOUND_DIM_CASES = ("flatten-sym", "concat-sym", "conv2d-sym")


def _is_well_formed(mod) -> bool:
    # TVM's well_formed returns a bool; ours raises at the first violation. Accept both.
    try:
        result = relax.analysis.well_formed(mod)
    except (ValueError, TypeError):
        return False
    return result is not False


@pytest.mark.parametrize("case", CASES)
def test_print_parse_print(case):
    name = getattr(case.op, "__name__", "")
    if name in NOT_ROUND_TRIPPABLE:
        pytest.skip(NOT_ROUND_TRIPPABLE[name])
    if case.id in COMPOUND_DIM_CASES:
        pytest.xfail("the parser does not read string dims of a return annotation back yet")
    mod = _module(case)
    if not _is_well_formed(mod):
        # Type-only rows may use a symbolic variable no parameter defines (``R.arange(0, n)``).
        pytest.skip("the case's function uses a symbolic variable it does not define")
    text = mod.script()
    parsed = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(mod, parsed)
    assert parsed.script() == text
