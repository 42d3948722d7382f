"""TVMScript parse errors point at the source (spec C.6), cases not covered in tests/script."""

import pytest

from tvm import relax
from tvm.error import DiagnosticError
from tvm.script import from_source
from tvm.script.parser.core.entry import WELL_FORMED_ERROR_MESSAGE

TIR_PROGRAM = """# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = undefined_var
"""


def test_tir_undefined_variable_single_line():
    # Apache TVM 0.27's exact output for this program.
    with pytest.raises(DiagnosticError) as info:
        from_source(TIR_PROGRAM)
    assert str(info.value) == (
        "error: Undefined variable: undefined_var\n"
        " --> <str>:6:9\n"
        "   |  \n"
        " 6 |          A[i] = undefined_var\n"
        "   |          ^^^^^^^^^^^^^^^^^^^^"
    )


def test_relax_gate_uses_check_well_formed_and_can_be_disabled():
    program = (
        "@R.function\n"
        'def main(x: R.Tensor((3,), "float32")):\n'
        '    y = R.print(x, format="{}")\n'
        "    return x\n"
    )
    with pytest.raises(DiagnosticError) as info:
        from_source(program)
    # Apache TVM 0.27's exact output: a zero-width location at the first line.
    assert str(info.value) == (
        f"error: {WELL_FORMED_ERROR_MESSAGE}\n --> <str>:1:1\n   |  \n 1 |  @R.function\n"
        "   |             "
    )
    func = from_source(program, check_well_formed=False)
    assert [b.var.name_hint for b in func.body.blocks[0].bindings] == ["y"]
    with pytest.raises(ValueError, match="annotated as pure but contains an impure call"):
        relax.analysis.well_formed(func)
