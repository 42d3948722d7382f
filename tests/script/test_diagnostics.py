"""Parser diagnostics: source locations and the exact rendering of spec C.6."""

import ast
import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tvm
from tvm.error import DiagnosticError, InternalError
from tvm.script import from_source
from tvm.script.parser.core.diagnostics import (
    Diagnostics,
    Source,
    _format_source_snippet,
    reduce_error_message,
)
from tvm.script.parser.core.parser import Parser


def _lines(text):
    return text.splitlines(keepends=True)


# --- snippet rendering -------------------------------------------------------------------


def test_snippet_multi_line_span_underlines_indentation_of_later_lines():
    src = ["\n"] * 8 + [
        "            if c:\n",
        "                y = R.multiply(lv, lv)\n",
        "            else:\n",
        "                y = lv\n",
    ]
    expected = (
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
    assert _format_source_snippet(src, 9, 13, 12, 23) == expected


def test_snippet_single_line_and_gutter_width():
    src = ["a\n"] * 5 + ["        A[i] = undefined_var\n"]
    expected = (
        "   |  \n"
        " 6 |          A[i] = undefined_var\n"
        "   |          ^^^^^^^^^^^^^^^^^^^^"
    )
    assert _format_source_snippet(src, 6, 9, 6, 29) == expected


def test_snippet_zero_width_marker_is_spaces_as_long_as_the_line():
    src = ["\n"] * 4 + ["    class M:\n"]
    assert _format_source_snippet(src, 5, 9, 5, 9) == "   |  \n 5 |      class M:\n   |              "


def test_snippet_end_before_start_and_missing_lines():
    src = ["abc\n"]
    # An end line before the start line is treated as the start line.
    assert _format_source_snippet(src, 1, 2, 0, 3) == "   |  \n 1 |  abc\n   |   ^ "
    # Lines outside the source render nothing.
    assert _format_source_snippet(src, 7, 1, 8, 2) == ""


def test_snippet_keeps_trailing_spaces_and_strips_only_the_newline():
    src = ["x = 1   \r\n"]
    assert _format_source_snippet(src, 1, 1, 1, 4) == "   |  \n 1 |  x = 1   \n   |  ^^^     "


# --- Source ------------------------------------------------------------------------------


def test_source_from_string():
    src = Source("x = 1\n")
    assert (src.source_name, src.start_line, src.start_column) == ("<str>", 1, 0)
    assert src.source == src.full_source == "x = 1\n"
    node = src.as_ast().body[0]
    assert src.location(node) == (1, 1, 1, 6)
    span = src.to_span(node)
    assert isinstance(span, tvm.ir.Span)
    assert (span.source_name.name, span.line, span.column, span.end_line, span.end_column) == (
        "<str>", 1, 1, 1, 6)


def _decorator(func):
    return func


def test_source_from_function_starts_at_the_decorator_and_is_dedented():
    class Holder:
        @_decorator
        def method(self):
            return 1

    src = Source(Holder.method)
    first_line = inspect.getsourcelines(Holder.method)[1]
    assert src.source_name == __file__
    assert src.start_line == first_line
    assert src.source.startswith("@_decorator\ndef method(self):")
    assert src.start_column == 8
    with open(__file__) as f:
        assert src.full_source == f.read()
    tree = src.as_ast()
    ret = tree.body[0].body[0]
    line, col, _, _ = src.location(ret)
    assert line == first_line + 2
    assert col == 13  # "return" sits at column 12 (0-based) of the file


def test_source_from_nested_class_starts_at_the_class_line():
    def make():
        @_decorator
        class Inner:
            x = 1

        return Inner

    cls = make()
    src = Source(cls)
    assert src.source.startswith("class Inner:")
    assert src.start_column == 8
    with open(__file__) as f:
        lines = f.readlines()
    assert lines[src.start_line - 1].strip() == "class Inner:"


def test_whole_ast_location_is_zero_width_at_the_start():
    src = Source("\n\nx = 1\n")
    tree = src.as_ast()
    assert src.location(tree) == (1, 1, 1, 1)


# --- Diagnostics and message reduction ---------------------------------------------------


def test_diagnostics_error_raises_with_exact_format():
    src = Source("x = 1\ny = 2\n")
    node = src.as_ast().body[1]
    with pytest.raises(DiagnosticError) as info:
        Diagnostics(src).error(node, "bad thing")
    assert str(info.value) == "error: bad thing\n --> <str>:2:1\n   |  \n 2 |  y = 2\n   |  ^^^^^"


def test_reduce_error_message_rules():
    assert reduce_error_message(InternalError("context\n\n  last line  \n\n")) == "  last line  "
    assert reduce_error_message(KeyError("k")) == "KeyError: 'k'"
    assert reduce_error_message(ValueError("a\nb")) == "a\nb"


def test_report_error_passes_diagnostics_through_and_keeps_the_cause():
    src = Source("x = 1\n")
    parser = Parser(src, {})
    node = src.as_ast().body[0]
    original = DiagnosticError("as is")
    with pytest.raises(DiagnosticError) as info:
        parser.report_error(node, original)
    assert info.value is original
    inner = ValueError("inner")
    try:
        raise inner
    except ValueError as err:
        with pytest.raises(DiagnosticError) as info:
            parser.report_error(node, err)
    assert info.value.__cause__ is inner
    assert info.value.__traceback__ is not None
    assert str(info.value).startswith("error: inner\n --> <str>:1:1")


# --- through from_source (default dialect only) ------------------------------------------


def test_undefined_variable_is_reported_at_the_statement():
    with pytest.raises(DiagnosticError) as info:
        from_source("x = 1\ny = undefined_var + x\n")
    assert str(info.value) == (
        "error: Undefined variable: undefined_var\n --> <str>:2:1\n"
        "   |  \n 2 |  y = undefined_var + x\n   |  ^^^^^^^^^^^^^^^^^^^^^"
    )


def test_failing_call_is_reported_at_the_call_over_several_lines():
    program = "x = 1\ny = divmod(\n    1,\n    2,\n    3,\n)\n"
    with pytest.raises(DiagnosticError) as info:
        from_source(program, check_well_formed=False)
    assert str(info.value) == (
        "error: divmod expected 2 arguments, got 3\n"
        " --> <str>:2:5\n"
        "   |  \n"
        " 2 |  y = divmod(\n"
        "   |      ^^^^^^^\n"
        " 3 |      1,\n"
        "   |  ^^^^^^\n"
        " 4 |      2,\n"
        "   |  ^^^^^^\n"
        " 5 |      3,\n"
        "   |  ^^^^^^\n"
        " 6 |  )\n"
        "   |  ^"
    )


def test_undecorated_definition_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as info:
        from_source("def f(a):\n    return a\n")
    assert "Cannot tell which dialect" in str(info.value)
    assert " --> <str>:1:1" in str(info.value)


def test_unknown_syntax_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as info:
        from_source("while True:\n    pass\n")
    assert "Unsupported statement" in str(info.value)
    assert "While" in str(info.value)


def test_python_syntax_error_is_both_a_syntax_error_and_a_diagnostic():
    with pytest.raises(SyntaxError) as info:  # what Apache TVM raises
        Source("def (:\n").as_ast()
    assert isinstance(info.value, tvm.error.DiagnosticError)
    assert str(info.value).startswith("error: invalid syntax\n --> ")
    assert info.value.lineno == 1


def test_ast_module_parse_is_plain_python_ast():
    assert isinstance(Source("x = 1").as_ast(), ast.Module)


# --- the well-formedness gate on TIR results (spec C.7) ------------------------------------


def _sblock_prim_func():
    from tvm import te

    a = te.placeholder((4,), name="A")
    b = te.compute((4,), lambda i: a[i] * 2, name="B")
    return te.create_prim_func([a, b])


def test_tir_gate_appends_the_verifier_message():
    from tvm.script.parser import WELL_FORMED_ERROR_MESSAGE
    from tvm.script.parser.core.entry import _well_formed_gate

    src = Source("x = 1\n")
    parser = Parser(src, {})
    parser.tree = src.as_ast()
    # Without its "s_tir" attribute (a schedulable function may hold SBlocks, whatever the flag).
    func = _sblock_prim_func().without_attr("s_tir")
    _well_formed_gate(parser, _sblock_prim_func(), s_tir=False)
    with pytest.raises(DiagnosticError) as info:
        _well_formed_gate(parser, func, s_tir=False)
    text = str(info.value)
    assert text.startswith(f"error: {WELL_FORMED_ERROR_MESSAGE}\n\nTraceback: TIR verifier does "
                           "not support statement s_tir.SBlockRealize at <root>.body")
    assert "\n --> <str>:1:1\n" in text
    # SBlocks are fine in an s_tir function, and in a module of s_tir functions.
    _well_formed_gate(parser, func, s_tir=True)
    _well_formed_gate(parser, tvm.ir.IRModule({"f": func}), s_tir=True)
    with pytest.raises(DiagnosticError, match="Traceback: TIR verifier"):
        _well_formed_gate(parser, tvm.ir.IRModule({"f": func}), s_tir=False)


# --- rendering invariants (property test) ------------------------------------------------

_line = st.text(alphabet=" abc()=:", min_size=0, max_size=12).map(lambda t: t + "\n")


@given(
    lines=st.lists(_line, min_size=1, max_size=6),
    first=st.integers(1, 6),
    extra=st.integers(0, 3),
    col=st.integers(1, 14),
    end_col=st.integers(1, 14),
)
def test_snippet_shape(lines, first, extra, col, end_col):
    last = first + extra
    text = _format_source_snippet(lines, first, col, last, end_col)
    shown = [n for n in range(first, last + 1) if n <= len(lines)]
    if not shown:
        assert text == ""
        return
    rows = text.split("\n")
    width = len(f" {last} ")
    assert rows[0] == " " * width + "|  "
    assert len(rows) == 1 + 2 * len(shown)
    for i, num in enumerate(shown):
        source_row, marker_row = rows[1 + 2 * i], rows[2 + 2 * i]
        line_text = lines[num - 1].rstrip("\n")
        assert source_row == f" {num} ".rjust(width) + "|  " + line_text
        marker = marker_row[width + 3:]
        assert len(marker) == len(line_text)
        assert set(marker) <= {" ", "^"}
        start = col if num == first else 1
        stop = end_col if num == last else len(line_text) + 1
        assert marker.count("^") == max(0, min(stop, len(line_text) + 1) - max(start, 1))


def test_top_level_decorated_class_in_a_file(tmp_path):
    import importlib.util
    import sys

    path = tmp_path / "toplevel_case.py"
    path.write_text(
        "from tvm.script import ir as I, relax as R\n"
        "\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        '    def main(x: R.Tensor((3,), "float32")):\n'
        "        return R.nothing(x)\n"
    )
    spec = importlib.util.spec_from_file_location("toplevel_case", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["toplevel_case"] = module
    try:
        with pytest.raises(DiagnosticError) as info:
            spec.loader.exec_module(module)
    finally:
        sys.modules.pop("toplevel_case", None)
    assert str(info.value) == (
        "error: R.nothing does not exist: tvm.relax.op has no 'nothing'\n"
        f" --> {path}:8:16\n"
        "   |  \n"
        " 8 |          return R.nothing(x)\n"
        "   |                 ^^^^^^^^^   "
    )


def test_source_of_code_without_a_file():
    namespace = {}
    exec("def made_by_exec():\n    return 1\n", namespace)  # noqa: S102
    with pytest.raises(OSError, match="Cannot read the source of made_by_exec") as info:
        Source(namespace["made_by_exec"])
    assert "tvm.script.from_source" in str(info.value)


def test_format_source_snippet_takes_tvms_keyword_names():
    lines = ["ignored\n", "    abc + def\n", "ignored\n"]
    by_keyword = _format_source_snippet(lines, lineno=2, col_offset=5, end_lineno=2,
                                        end_col_offset=8)
    assert by_keyword == _format_source_snippet(lines, 2, 5, 2, 8)
    assert by_keyword.splitlines()[-1].count("^") == 3
