"""Relax parse errors rendered exactly as spec C.6 shows them (Apache TVM 0.27's format)."""

import importlib.util
import sys
import textwrap

import pytest

import tvm
from tvm.error import DiagnosticError
from tvm.script import from_source
from tvm.script.parser import WELL_FORMED_ERROR_MESSAGE


def _error(program, **kwargs):
    with pytest.raises(DiagnosticError) as info:
        from_source(program, **kwargs)
    return str(info.value)


IF_IN_DATAFLOW = """# an if inside a dataflow block
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
        with R.dataflow():
            lv = R.add(x, x)
            lv2 = R.add(lv, lv)
            if c:
                y = R.multiply(lv, lv)
            else:
                y = lv
            R.output(y)
        return y
"""


def test_if_inside_dataflow_underlines_every_line_of_the_statement():
    assert _error(IF_IN_DATAFLOW) == (
        "error: Cannot create an IfFrame inside a dataflow block.\n"
        " --> <str>:9:13\n"
        "    |  \n"
        "  9 |              if c:\n"
        "    |              ^^^^^\n"
        " 10 |                  y = R.multiply(lv, lv)\n"
        "    |  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        " 11 |              else:\n"
        "    |  ^^^^^^^^^^^^^^^^^\n"
        " 12 |                  y = lv\n"
        "    |  ^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_wrong_arity_over_several_lines():
    program = textwrap.dedent(
        """\
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            # three arguments to a binary op
            y = R.add(
                x,
                x,
                x,
            )
            return y
        """
    )
    assert _error(program) == (
        "error: add() takes 2 positional arguments but 3 were given\n"
        " --> <str>:4:9\n"
        "   |  \n"
        " 4 |      y = R.add(\n"
        "   |          ^^^^^^\n"
        " 5 |          x,\n"
        "   |  ^^^^^^^^^^\n"
        " 6 |          x,\n"
        "   |  ^^^^^^^^^^\n"
        " 7 |          x,\n"
        "   |  ^^^^^^^^^^\n"
        " 8 |      )\n"
        "   |  ^^^^^"
    )


def test_missing_argument_points_at_the_call():
    program = '@R.function\ndef main(x: R.Tensor((3, 3), "float32")):\n    w = R.add(x)\n    return w\n'
    assert _error(program) == (
        "error: add() missing 1 required positional argument: 'x2'\n"
        " --> <str>:3:9\n"
        "   |  \n"
        " 3 |      w = R.add(x)\n"
        "   |          ^^^^^^^^"
    )


def test_undefined_variable_points_at_the_statement():
    program = (
        '@R.function\ndef main(x: R.Tensor((3, 3), "float32")):\n'
        "    w = R.add(x, undefined_var)\n    return w\n"
    )
    assert _error(program) == (
        "error: Undefined variable: undefined_var\n"
        " --> <str>:3:5\n"
        "   |  \n"
        " 3 |      w = R.add(x, undefined_var)\n"
        "   |      ^^^^^^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_bad_annotation_keyword_points_at_the_annotation_call():
    program = (
        '@R.function\ndef main(x: R.Tensor((3, 3), "float32")):\n'
        "    w: R.Tensor(foo=1) = R.add(x, x)\n    return w\n"
    )
    assert _error(program) == (
        "error: Tensor() got an unexpected keyword argument 'foo'\n"
        " --> <str>:3:8\n"
        "   |  \n"
        " 3 |      w: R.Tensor(foo=1) = R.add(x, x)\n"
        "   |         ^^^^^^^^^^^^^^^              "
    )


def test_annotation_that_is_not_a_type():
    program = '@R.function\ndef main(x: 3):\n    return x\n'
    text = _error(program)
    assert text.startswith("error: Expected a Relax type annotation such as R.Tensor(...), got 3")
    assert " --> <str>:2:13" in text


def test_string_shape_outside_the_signature():
    program = (
        '@R.function\ndef main(x: R.Tensor(("n",), "float32")):\n'
        '    y = R.match_cast(x, R.Tensor(("m",), "float32"))\n    return y\n'
    )
    assert _error(program).startswith(
        "error: String-defined shape expr is only allowed when parsing function parameters "
        "and return annotations for TVMScript.\n --> <str>:3:25"
    )


def test_decorated_class_in_a_file_reports_absolute_file_lines(tmp_path):
    path = tmp_path / "parse_err.py"
    path.write_text(
        "from tvm.script import ir as I, relax as R\n"
        "\n"
        "\n"
        "def build():\n"
        "    @I.ir_module\n"
        "    class M:\n"
        "        @R.function\n"
        '        def main(x: R.Tensor((3,), "float32")):\n'
        "            y = R.add(x, nowhere)\n"
        "            return y\n"
        "\n"
        "    return M\n"
    )
    spec = importlib.util.spec_from_file_location("parse_err_case", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(DiagnosticError) as info:
        module.build()
    assert str(info.value) == (
        "error: Undefined variable: nowhere\n"
        f" --> {path}:9:13\n"
        "   |  \n"
        " 9 |              y = R.add(x, nowhere)\n"
        "   |              ^^^^^^^^^^^^^^^^^^^^^"
    )
    sys.modules.pop("parse_err_case", None)


def test_well_formedness_gate_zero_width_marker_from_a_string():
    program = (
        '\n@R.function\ndef main(x: R.Tensor((3, 3), "float32")):\n'
        '    w: R.Tensor((4, 3), dtype="float32") = R.add(x, x)\n    return w\n'
    )
    assert _error(program) == (
        f"error: {WELL_FORMED_ERROR_MESSAGE}\n --> <str>:1:1\n   |  \n 1 |  \n   |  "
    )
    # The gate is off on request.
    func = from_source(program, check_well_formed=False)
    assert func.body.blocks[0].bindings[0].var.ty.shape.values[0].value == 4


def test_well_formedness_gate_on_a_class_in_a_file(tmp_path):
    path = tmp_path / "relwf.py"
    path.write_text(
        "from tvm.script import ir as I, relax as R\n"
        "\n"
        "\n"
        "def build(check):\n"
        "    class M:\n"
        "        @R.function\n"
        '        def main(x: R.Tensor((3, 3), "float32")):\n'
        '            w: R.Tensor((4, 3), "float32") = R.add(x, x)\n'
        "            return w\n"
        "\n"
        "    return I.ir_module(M, check_well_formed=check)\n"
    )
    spec = importlib.util.spec_from_file_location("relwf_case", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(DiagnosticError) as info:
        module.build(True)
    assert str(info.value) == (
        f"error: {WELL_FORMED_ERROR_MESSAGE}\n --> {path}:5:9\n"
        "   |  \n 5 |      class M:\n   |              "
    )
    assert isinstance(module.build(False), tvm.ir.IRModule)


def test_annotations_that_are_less_or_more_specific_are_accepted():
    program = (
        '@R.function\ndef main(x: R.Tensor("float32"), y: R.Tensor((3, 3), "float32")):\n'
        '    w: R.Tensor((3, 3), dtype="float32") = R.add(x, x)\n'
        '    v: R.Tensor(dtype="float32") = R.add(y, y)\n'
        "    u: R.Object = R.add(y, y)\n"
        "    return w\n"
    )
    func = from_source(program)
    w, v, u = (b.var for b in func.body.blocks[0].bindings)
    assert [int(d) for d in w.ty.shape.values] == [3, 3]
    assert v.ty.shape is None and v.ty.ndim == -1
    assert isinstance(u.ty, tvm.relax.ObjectType)


def test_annotation_of_another_kind_is_provably_wrong():
    program = (
        '@R.function\ndef main(x: R.Tensor((3, 3), "float32")):\n'
        "    w: R.Shape([3, 3]) = R.add(x, x)\n    return w\n"
    )
    assert _error(program).startswith(f"error: {WELL_FORMED_ERROR_MESSAGE}\n --> <str>:1:1")
