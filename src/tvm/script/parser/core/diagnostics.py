"""Source text of a TVMScript program and the diagnostics that point into it.

:class:`Source` holds the text of what is parsed (a string, or a Python function or class
read back with :mod:`inspect`) together with where it sits in its file, so that every AST
node maps to absolute file lines and columns. :class:`Diagnostics` turns an AST node and a
message into a :class:`tvm.error.DiagnosticError` whose text shows the offending lines with
an underline (the exact format is pinned by the tests in ``tests/script/test_diagnostics.py``).
"""

from __future__ import annotations

import ast
import inspect
import linecache

from tvm.error import DiagnosticError
from tvm.ir.base import SourceName, Span

__all__ = ["Diagnostics", "Source", "_format_source_snippet"]


def _class_source_lines(cls) -> tuple[list[str], int]:
    """Lines of a class definition and its 0-based first line, located through its qualname.

    ``inspect`` cannot always locate nested classes (for example a class defined inside a
    function); scanning the file's AST for the dotted qualname is exact.
    """
    filename = _source_file(cls)
    lines = linecache.getlines(filename)
    if not lines:
        raise OSError(f"could not read the source of class {cls.__qualname__}")
    tree = ast.parse("".join(lines))
    target = [p for p in cls.__qualname__.split(".") if p != "<locals>"]
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                path = prefix + [child.name]
                if isinstance(child, ast.ClassDef) and path == target:
                    found.append(child)
                visit(child, path)
            else:
                visit(child, prefix)

    visit(tree, [])
    if not found:
        # Fall back to the first class of that name anywhere in the file.
        found = [
            n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == target[-1]
        ]
    if not found:
        raise OSError(f"could not find class {cls.__qualname__} in {filename}")
    node = found[0]
    # The span starts at the ``class`` line itself (decorators are not part of it).
    start = node.lineno - 1
    return lines[start : node.end_lineno], start


def _source_file(obj) -> str:
    """The file defining ``obj``; for a class whose module is not importable (a file run with
    ``runpy``), the file of one of its methods."""
    try:
        return inspect.getsourcefile(obj)
    except TypeError:
        if not inspect.isclass(obj):
            raise
        for value in vars(obj).values():
            code = getattr(value, "__code__", None)
            if code is not None:
                return code.co_filename
        raise


def _strip_indent(line: str, indent: int) -> str:
    """Remove up to ``indent`` leading blanks (a shorter blank prefix, e.g. an empty line)."""
    prefix = len(line) - len(line.lstrip(" \t"))
    return line[min(prefix, indent) :]


class DiagnosticSyntaxError(DiagnosticError, SyntaxError):
    """TVMScript text that is not Python: a ``DiagnosticError`` (the message underlines the
    line, as every parse error) and a ``SyntaxError`` (what Apache TVM raises, so code that
    catches that keeps working)."""

    __str__ = DiagnosticError.__str__


class Source:
    """The text being parsed and its position in the file it came from.

    Parameters
    ----------
    program : str or function or class
        TVMScript text, or a Python object whose source is read with :mod:`inspect`.

    Attributes
    ----------
    source_name : str
        ``"<str>"`` for a string, otherwise the defining file's path.
    start_line : int
        The 1-based file line of the first line of :attr:`source`.
    start_column : int
        How many columns of indentation were removed from every line.
    source : str
        The dedented text that is parsed.
    full_source : str
        The whole text of the defining file (``source`` itself for a string).
    """

    def __init__(self, program):
        if isinstance(program, str):
            self.source_name = "<str>"
            self.start_line = 1
            self.start_column = 0
            self.source = program
            self.full_source = program
            return
        try:
            self.source_name = _source_file(program)
            if inspect.isclass(program):
                lines, start = _class_source_lines(program)
            else:
                # For a decorated function this starts at the first decorator line.
                lines, lnum = inspect.getsourcelines(program)
                start = max(lnum - 1, 0)
        except (OSError, TypeError) as err:
            name = getattr(program, "__qualname__", type(program).__name__)
            raise OSError(
                f"Cannot read the source of {name} ({err}): TVMScript is parsed from source "
                "text; define it in a file, or pass the text to tvm.script.from_source"
            ) from err
        first = lines[0]
        indent = len(first) - len(first.lstrip())
        self.start_line = start + 1
        self.start_column = indent
        self.source = "".join(_strip_indent(line, indent) for line in lines)
        self.full_source = "".join(linecache.getlines(self.source_name))

    def as_ast(self) -> ast.AST:
        """Parse :attr:`source` into a Python ``ast.Module``; text that is not Python is a
        :class:`DiagnosticSyntaxError` at the offending line: a ``DiagnosticError`` that is
        also the ``SyntaxError`` Apache TVM raises there."""
        try:
            return ast.parse(self.source)
        except SyntaxError as err:
            line = self.start_line + max((err.lineno or 1) - 1, 0)
            column = (err.offset or 1) + self.start_column
            text = (err.text or "").rstrip("\n")
            error = DiagnosticSyntaxError(
                f"error: {err.msg}\n --> {self.source_name}:{line}:{column}\n  |  {text}"
            )
            error.msg, error.filename, error.lineno, error.offset = (
                err.msg, self.source_name, line, column)
            error.text = text
            raise error from None

    def location(self, node) -> tuple[int, int, int, int]:
        """``(line, column, end_line, end_column)`` of ``node``, 1-based and absolute."""
        lineno = getattr(node, "lineno", None) or 1
        col_offset = getattr(node, "col_offset", None)
        if col_offset is None:
            col_offset = self.start_column
        line = lineno + self.start_line - 1
        col = col_offset + self.start_column + 1
        end_lineno = getattr(node, "end_lineno", None)
        end_col_offset = getattr(node, "end_col_offset", None)
        if end_lineno is None or end_col_offset is None:
            # No end position: a zero-width span at the start.
            return line, col, line, col
        return line, col, end_lineno + self.start_line - 1, end_col_offset + self.start_column + 1

    def to_span(self, node) -> Span:
        """The :class:`tvm.ir.Span` of ``node``."""
        line, col, end_line, end_col = self.location(node)
        name = self.__dict__.get("_span_source_name")
        if name is None:
            name = self._span_source_name = SourceName(self.source_name)
        return Span(name, line, end_line, col, end_col)


def _format_source_snippet(source_lines, lineno, col_offset, end_lineno, end_col_offset) -> str:
    """Render source lines ``lineno..end_lineno`` with a gutter and a ``^`` underline.

    Every line of the span is shown; the underline starts at column ``col_offset`` (1-based)
    on the first line and at column 1 (indentation included) on later ones, and stops before
    ``end_col_offset`` on the last line. A zero-width span gives a marker row of spaces. The
    parameter names are TVM's (``_format_source_snippet(lines, lineno=2, col_offset=5,
    end_lineno=4, end_col_offset=13)``).
    """
    col, end_col = col_offset, end_col_offset
    end_lineno = max(end_lineno, lineno)
    width = len(f" {end_lineno} ")
    blank = " " * width
    rows = [blank + "|  "]
    rendered = False
    for num in range(lineno, end_lineno + 1):
        if num < 1 or num > len(source_lines):
            continue
        text = source_lines[num - 1].rstrip("\n").rstrip("\r")
        start = col if num == lineno else 1
        stop = end_col if num == end_lineno else len(text) + 1
        marker = "".join("^" if start <= i < stop else " " for i in range(1, len(text) + 1))
        rows.append(f" {num} ".rjust(width) + "|  " + text)
        rows.append(blank + "|  " + marker)
        rendered = True
    return "\n".join(rows) if rendered else ""


class Diagnostics:
    """Reports errors located at AST nodes of one :class:`Source`."""

    def __init__(self, source: Source):
        self.source = source
        self._lines = source.full_source.splitlines(keepends=True)

    def format(self, node, message: str) -> str:
        """The full diagnostic text for ``message`` at ``node``."""
        line, col, end_line, end_col = self.source.location(node)
        snippet = _format_source_snippet(self._lines, line, col, end_line, end_col)
        return f"error: {message}\n --> {self.source.source_name}:{line}:{col}\n{snippet}"

    def error(self, node, message: str):
        """Raise :class:`tvm.error.DiagnosticError` for ``message`` located at ``node``."""
        raise DiagnosticError(self.format(node, message))


def reduce_error_message(err: BaseException) -> str:
    """The one-line message a parse error shows for an exception raised while parsing.

    * a ``RuntimeError`` (our FFI error kinds) keeps only its last non-empty line, dropping
      any context or backtrace text above it;
    * a ``KeyError`` is prefixed with ``"KeyError: "`` (its ``str`` alone is just the key);
    * anything else is ``str(err)``.
    """
    if isinstance(err, RuntimeError):
        lines = [line for line in str(err).splitlines() if line.strip()]
        return lines[-1] if lines else ""
    if isinstance(err, KeyError):
        return "KeyError: " + str(err)
    return str(err)
