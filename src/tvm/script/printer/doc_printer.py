"""Render a doc tree as Python-style text, with underlines, line numbers and context trimming.

The text format is Apache TVM 0.27's: 4-space indentation (``indent_spaces``), minimal
parentheses from Python operator precedence, a blank line after a function or class that is
followed by more statements, and no trailing newline.

Underlining: the caller passes the docs to underline (see :func:`match_paths`). While printing,
the character span of each such doc is recorded. Afterwards every line that intersects a span
gets a row of ``^`` below it, from the span's start (or the line's first non-blank character for
the following lines of a multi-line span) to the span's end (or the line's end). With
``num_context_lines >= 0`` only underlined lines and that many lines around them are kept; each
run of two or more dropped lines becomes ``(... N lines skipped ...)`` (a single dropped line is
printed instead, as the marker would not be shorter).
"""

from __future__ import annotations

import math

from .doc import (
    AssertDoc,
    AssignDoc,
    AttrAccessDoc,
    CallDoc,
    ClassDoc,
    CommentDoc,
    DictDoc,
    Doc,
    DocStringDoc,
    ExprStmtDoc,
    ForDoc,
    FunctionDoc,
    IdDoc,
    IfDoc,
    IndexDoc,
    LambdaDoc,
    ListDoc,
    LiteralDoc,
    OperationDoc,
    OperationKind,
    ReturnDoc,
    ScopeDoc,
    SliceDoc,
    StmtBlockDoc,
    StmtDoc,
    TupleDoc,
    WhileDoc,
)

__all__ = ["DocPrinter", "decorate_lines", "format_literal", "to_python_script"]

K = OperationKind
# Python precedence, low to high; atoms (names, literals, calls, ...) are highest.
_PREC_LAMBDA = 0
_PREC_IF_THEN_ELSE = 1
_PREC_UNARY = 12
_PREC_ATOM = 20
_OP_INFO = {
    # kind: (symbol, precedence)
    K.Or: ("or", 2),
    K.And: ("and", 3),
    K.Not: ("not ", 4),
    K.Lt: ("<", 5),
    K.LtE: ("<=", 5),
    K.Eq: ("==", 5),
    K.NotEq: ("!=", 5),
    K.Gt: (">", 5),
    K.GtE: (">=", 5),
    K.BitOr: ("|", 6),
    K.BitXor: ("^", 7),
    K.BitAnd: ("&", 8),
    K.LShift: ("<<", 9),
    K.RShift: (">>", 9),
    K.Add: ("+", 10),
    K.Sub: ("-", 10),
    K.Mult: ("*", 11),
    K.Div: ("/", 11),
    K.FloorDiv: ("//", 11),
    K.Mod: ("%", 11),
    K.MatMul: ("@", 11),
    K.USub: ("-", _PREC_UNARY),
    K.Invert: ("~", _PREC_UNARY),
    K.Pow: ("**", 13),
}
_COMPARISON_PREC = 5


def format_literal(value) -> str:
    """Python source text of a literal value as TVMScript prints it."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f'"{value}"'
        return repr(value)
    return _quote(value)


def _quote(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 32:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _precedence(doc) -> int:
    if isinstance(doc, OperationDoc):
        if doc.kind == K.IfThenElse:
            return _PREC_IF_THEN_ELSE
        return _OP_INFO[doc.kind][1]
    if isinstance(doc, LambdaDoc):
        return _PREC_LAMBDA
    if isinstance(doc, LiteralDoc) and isinstance(doc.value, (int, float)) and not isinstance(
        doc.value, bool
    ):
        # A negative number reads like a unary minus: ``(-1) ** x``.
        return _PREC_UNARY if doc.value < 0 else _PREC_ATOM
    return _PREC_ATOM


class DocPrinter:
    """Prints docs into a string and records the character spans of marked docs.

    Parameters
    ----------
    indent_spaces : int
        Spaces per indentation level.
    marked : set of int, optional
        ``id()`` of the docs whose spans to record in :attr:`spans`.
    """

    def __init__(self, indent_spaces: int = 4, marked=None):
        self.indent_unit = " " * indent_spaces
        self.indent = 0
        self.parts: list[str] = []
        self.size = 0
        self.marked = marked or set()
        #: ``id(doc) -> [(start, end), ...]`` character spans of marked docs.
        self.spans: dict[int, list] = {}
        #: Character spans of comments: never underlined.
        self.exempt: list = []
        #: Offsets of the newlines that make the blank line after a function or class. As in
        #: TVM, that blank line belongs to the line before it (for numbering, context counting
        #: and where the underline row goes).
        self.soft_breaks: set = set()
        self._expr_table = {
            LiteralDoc: self._literal,
            IdDoc: self._id,
            AttrAccessDoc: self._attr,
            IndexDoc: self._index,
            CallDoc: self._call,
            OperationDoc: self._operation,
            LambdaDoc: self._lambda,
            TupleDoc: self._tuple,
            ListDoc: self._list,
            DictDoc: self._dict,
            SliceDoc: self._slice,
        }
        self._stmt_table = {
            AssignDoc: self._assign,
            IfDoc: self._if,
            WhileDoc: self._while,
            ForDoc: self._for,
            ScopeDoc: self._scope,
            ExprStmtDoc: self._expr_stmt,
            AssertDoc: self._assert,
            ReturnDoc: self._return,
            FunctionDoc: self._function,
            ClassDoc: self._class,
            CommentDoc: self._comment,
            DocStringDoc: self._docstring,
        }

    # --- output primitives ----------------------------------------------------------------
    def _w(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def _newline(self) -> None:
        text = "\n" + self.indent_unit * self.indent
        self.parts.append(text)
        self.size += len(text)

    def write(self, text: str) -> None:
        """Append raw text (a header, a footer) at the current position."""
        self._w(text)

    def text(self) -> str:
        """The printed text so far."""
        return "".join(self.parts)

    # --- entry points ---------------------------------------------------------------------
    def print_doc(self, doc: Doc) -> None:
        """Print a statement, a statement block or an expression at the current position."""
        if isinstance(doc, StmtBlockDoc):
            self._stmts(doc.stmts, doc)
        elif isinstance(doc, StmtDoc):
            self._stmt(doc)
        else:
            self.expr(doc)

    def expr(self, doc) -> None:
        """Print an expression doc."""
        self._dispatch(doc, self._expr_table, "expression")

    def _dispatch(self, doc, table, what) -> None:
        """Print ``doc`` with its rule in ``table``, recording its span when it is marked."""
        fn = table.get(type(doc))
        if fn is None:
            fn = self._lookup(doc, table, what)
        if self.marked and id(doc) in self.marked:
            start = self.size
            fn(doc)
            self.spans.setdefault(id(doc), []).append((start, self.size))
        else:
            fn(doc)

    def _lookup(self, doc, table, what):
        for cls in type(doc).__mro__:
            if cls in table:
                return table[cls]
        raise TypeError(f"the doc printer cannot print {type(doc).__name__} as {what}")

    def _child(self, doc, parent_prec: int, paren_if_equal: bool) -> None:
        prec = _precedence(doc)
        if prec < parent_prec or (paren_if_equal and prec == parent_prec):
            self._w("(")
            self.expr(doc)
            self._w(")")
        else:
            self.expr(doc)

    def _join(self, docs, sep=", ") -> None:
        first = True
        for item in docs:
            if not first:
                self._w(sep)
            first = False
            self.expr(item)

    # --- expressions ----------------------------------------------------------------------
    def _literal(self, doc: LiteralDoc) -> None:
        self._w(format_literal(doc.value))

    def _id(self, doc: IdDoc) -> None:
        self._w(doc.name)

    def _attr(self, doc: AttrAccessDoc) -> None:
        self._child(doc.value, _PREC_ATOM, False)
        self._w("." + doc.name)

    def _index(self, doc: IndexDoc) -> None:
        self._child(doc.value, _PREC_ATOM, False)
        # No index (a 0-d buffer access) prints ``buf[()]``: ``buf[]`` is not Python.
        self._w("[")
        if doc.indices:
            self._join(doc.indices)
        else:
            self._w("()")
        self._w("]")

    def _call(self, doc: CallDoc) -> None:
        self._child(doc.callee, _PREC_ATOM, False)
        self._w("(")
        self._join(doc.args)
        for i, (key, value) in enumerate(zip(doc.kwargs_keys, doc.kwargs_values)):
            if doc.args or i:
                self._w(", ")
            self._w(key + "=")
            self.expr(value)
        self._w(")")

    def _operation(self, doc: OperationDoc) -> None:
        kind = doc.kind
        if kind == K.IfThenElse:
            # As TVM prints: a nested ``a if c else b`` gets parentheses as the condition or
            # the else value, not as the then value.
            cond, then_value, else_value = doc.operands
            self._child(then_value, _PREC_IF_THEN_ELSE, False)
            self._w(" if ")
            self._child(cond, _PREC_IF_THEN_ELSE, True)
            self._w(" else ")
            self._child(else_value, _PREC_IF_THEN_ELSE, True)
            return
        symbol, prec = _OP_INFO[kind]
        if len(doc.operands) == 1:
            self._w(symbol)
            self._child(doc.operands[0], prec, False)
            return
        lhs, rhs = doc.operands
        if kind == K.Pow:  # right-associative; ``x ** -y`` needs no parentheses
            self._child(lhs, prec, True)
            self._w(f" {symbol} ")
            self._child(rhs, _PREC_UNARY, False)
            return
        # Comparisons chain in Python, so a nested comparison always gets parentheses.
        self._child(lhs, prec, prec == _COMPARISON_PREC)
        self._w(f" {symbol} ")
        self._child(rhs, prec, True)

    def _lambda(self, doc: LambdaDoc) -> None:
        self._w("lambda ")
        self._join(doc.args)
        self._w(": ")
        self._child(doc.body, _PREC_LAMBDA, False)

    def _tuple(self, doc: TupleDoc) -> None:
        self._w("(")
        self._join(doc.elements)
        if len(doc.elements) == 1:
            self._w(",")
        self._w(")")

    def _list(self, doc: ListDoc) -> None:
        self._w("[")
        self._join(doc.elements)
        self._w("]")

    def _dict(self, doc: DictDoc) -> None:
        self._w("{")
        for i, (key, value) in enumerate(zip(doc.keys, doc.values)):
            if i:
                self._w(", ")
            self.expr(key)
            self._w(": ")
            self.expr(value)
        self._w("}")

    def _slice(self, doc: SliceDoc) -> None:
        if doc.start is not None:
            self.expr(doc.start)
        self._w(":")
        if doc.stop is not None:
            self.expr(doc.stop)
        if doc.step is not None:
            self._w(":")
            self.expr(doc.step)

    # --- statements -----------------------------------------------------------------------
    def _stmts(self, stmts, block=None) -> None:
        """Print statements separated by newlines (the caller has positioned the first)."""
        start = self.size
        n = len(stmts)
        for i, stmt in enumerate(stmts):
            if i:
                self._newline()
            if isinstance(stmt, StmtBlockDoc):
                self._stmts(stmt.stmts, stmt)
            else:
                self._stmt(stmt)
            if i + 1 < n and isinstance(stmt, (FunctionDoc, ClassDoc)):
                # A blank line separates a function or class from what follows.
                self.soft_breaks.add(self.size)
                self._w("\n")
        if block is not None and self.marked and id(block) in self.marked:
            self.spans.setdefault(id(block), []).append((start, self.size))

    def _block(self, stmts) -> None:
        """An indented suite after a ``:``; ``pass`` when empty."""
        self.indent += 1
        self._newline()
        if stmts:
            self._stmts(stmts)
        else:
            self._w("pass")
        self.indent -= 1

    def _stmt(self, doc: StmtDoc) -> None:
        self._dispatch(doc, self._stmt_table, "statement")

    def _write_comment(self, text: str) -> None:
        start = self.size
        self._w(text)
        self.exempt.append((start, self.size))

    def _trailing_comment(self, doc: StmtDoc) -> None:
        if doc.comment:
            if "\n" in doc.comment:
                raise ValueError(
                    f"the comment of a {type(doc).__name__} is printed at the end of its line "
                    f"and cannot have newline: {doc.comment!r}"
                )
            self._w("  ")
            self._write_comment("# " + doc.comment)

    def _leading_comment(self, doc: StmtDoc) -> None:
        if doc.comment:
            for line in doc.comment.split("\n"):
                self._write_comment("# " + line if line else "#")
                self._newline()

    def _assign(self, doc: AssignDoc) -> None:
        if isinstance(doc.lhs, TupleDoc) and doc.lhs.elements:
            self._join(doc.lhs.elements)
        else:
            self.expr(doc.lhs)
        if doc.annotation is not None:
            self._w(": ")
            self.expr(doc.annotation)
        if doc.rhs is not None:
            self._w(" = ")
            rhs = doc.rhs
            if isinstance(rhs, TupleDoc) and len(rhs.elements) > 1:
                # ``a = x, y``: TVMScript drops the parentheses of a tuple on the right.
                if self.marked and id(rhs) in self.marked:
                    start = self.size
                    self._join(rhs.elements)
                    self.spans.setdefault(id(rhs), []).append((start, self.size))
                else:
                    self._join(rhs.elements)
            else:
                self.expr(rhs)
        self._trailing_comment(doc)

    def _if(self, doc: IfDoc) -> None:
        self._leading_comment(doc)
        self._w("if ")
        self.expr(doc.predicate)
        self._w(":")
        self._block(doc.then_branch)
        if doc.else_branch:
            self._newline()
            self._w("else:")
            self._block(doc.else_branch)

    def _while(self, doc: WhileDoc) -> None:
        self._leading_comment(doc)
        self._w("while ")
        self.expr(doc.predicate)
        self._w(":")
        self._block(doc.body)

    def _for(self, doc: ForDoc) -> None:
        self._leading_comment(doc)
        self._w("for ")
        if isinstance(doc.lhs, TupleDoc) and doc.lhs.elements:
            self._join(doc.lhs.elements)
        else:
            self.expr(doc.lhs)
        self._w(" in ")
        self.expr(doc.rhs)
        self._w(":")
        self._block(doc.body)

    def _scope(self, doc: ScopeDoc) -> None:
        self._leading_comment(doc)
        self._w("with ")
        self.expr(doc.rhs)
        if doc.lhs is not None:
            self._w(" as ")
            if isinstance(doc.lhs, TupleDoc) and doc.lhs.elements:
                self._join(doc.lhs.elements)
            else:
                self.expr(doc.lhs)
        self._w(":")
        self._block(doc.body)

    def _expr_stmt(self, doc: ExprStmtDoc) -> None:
        self.expr(doc.expr)
        self._trailing_comment(doc)

    def _assert(self, doc: AssertDoc) -> None:
        self._w("assert ")
        self.expr(doc.test)
        if doc.msg is not None:
            self._w(", ")
            self.expr(doc.msg)
        self._trailing_comment(doc)

    def _return(self, doc: ReturnDoc) -> None:
        self._w("return ")
        self.expr(doc.value)
        self._trailing_comment(doc)

    def _decorators(self, decorators) -> None:
        for dec in decorators:
            self._w("@")
            self.expr(dec)
            self._newline()

    def _function(self, doc: FunctionDoc) -> None:
        self._decorators(doc.decorators)
        self._w("def ")
        self.expr(doc.name)
        if doc.type_params:
            self._w("[")
            for i, param in enumerate(doc.type_params):
                if i:
                    self._w(", ")
                self._arg(param)
            self._w("]")
        self._w("(")
        for i, arg in enumerate(doc.args):
            if i:
                self._w(", ")
            self._arg(arg)
        self._w(")")
        if doc.return_type is not None:
            self._w(" -> ")
            self.expr(doc.return_type)
        self._w(":")
        self._body_with_docstring(doc.comment, doc.body)

    def _body_with_docstring(self, comment, body) -> None:
        """A function or class suite; its comment becomes the doc string on the first line."""
        if not comment:
            self._block(body)
            return
        self.indent += 1
        self._newline()
        self._docstring_text(comment)
        self._newline()
        if body:
            self._stmts(body)
        else:
            self._w("pass")
        self.indent -= 1

    def _docstring_text(self, text: str) -> None:
        start = self.size
        self._w('"""')
        for line in text.split("\n"):
            if line:
                self._newline()
                self._w(line)
            else:
                self._w("\n")  # no indentation on a blank line
        self._newline()
        self._w('"""')
        self.exempt.append((start, self.size))

    def _arg(self, arg) -> None:
        if not isinstance(arg, AssignDoc):
            self.expr(arg)
            return
        start = self.size
        self.expr(arg.lhs)
        if arg.annotation is not None:
            self._w(": ")
            self.expr(arg.annotation)
        if arg.rhs is not None:
            self._w(" = ")
            self.expr(arg.rhs)
        if self.marked and id(arg) in self.marked:
            self.spans.setdefault(id(arg), []).append((start, self.size))

    def _class(self, doc: ClassDoc) -> None:
        self._decorators(doc.decorators)
        self._w("class ")
        self.expr(doc.name)
        self._w(":")
        self._body_with_docstring(doc.comment, doc.body)

    def _comment(self, doc: CommentDoc) -> None:
        if not doc.comment:
            return
        for i, line in enumerate(doc.comment.split("\n")):
            if i:
                self._newline()
            self._write_comment("# " + line if line else "#")

    def _docstring(self, doc: DocStringDoc) -> None:
        if doc.comment:
            self._docstring_text(doc.comment)


def to_python_script(doc: Doc, indent_spaces: int = 4, print_line_numbers: bool = False,
                     num_context_lines=None, path_to_underline=None) -> str:
    """Render a doc as text (TVM's ``doc_printer.to_python_script``).

    ``path_to_underline`` lists access paths matched against the docs' ``source_paths``
    (nearest visible parent rule); ``num_context_lines`` (None or negative: all lines) trims
    around underlines; ``print_line_numbers`` numbers the lines.
    """
    marked = set()
    if path_to_underline:
        from .underline import match_paths, to_steps  # local: underline imports this module

        marked, _ = match_paths(doc, [to_steps(p) for p in path_to_underline])
    printer = DocPrinter(indent_spaces, marked)
    printer.print_doc(doc)
    text = printer.text()
    spans = [span for key in marked for span in printer.spans.get(key, ())]
    context = -1 if num_context_lines is None else num_context_lines
    if spans or print_line_numbers:
        text = decorate_lines(text, spans, context, print_line_numbers, printer.exempt,
                              printer.soft_breaks)
    return text


def decorate_lines(text: str, spans, num_context_lines: int = -1,
                   print_line_numbers: bool = False, exempt=(), soft_breaks=()) -> str:
    """Add ``^`` underline rows, line numbers and context trimming to printed text.

    Parameters
    ----------
    text : str
        The printed script.
    spans : list of (int, int)
        Character spans (start, end) to underline.
    num_context_lines : int
        Lines of context to keep around underlined lines; negative keeps every line.
    print_line_numbers : bool
        Prefix each script line with its 1-based number, right-aligned.
    exempt : list of (int, int)
        Character spans never underlined (comments).
    soft_breaks : set of int
        Offsets of newlines that do not start a new numbered line (the blank line after a
        function): that blank line is shown with the line before it, below which the
        underline row goes.
    """
    lines = text.split("\n")
    starts = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    carets: dict[int, list] = {}
    for start, end in spans:
        if end <= start:
            continue
        first = _line_of(starts, start)
        last = _line_of(starts, end - 1)
        for index in range(first, last + 1):
            line = lines[index]
            line_start = starts[index]
            col_start = start - line_start if index == first else len(line) - len(line.lstrip())
            col_end = min(end - line_start, len(line))
            for lo, hi in _minus(col_start, col_end, exempt, line_start):
                if line[lo:hi].strip():
                    carets.setdefault(index, []).append((lo, hi))

    # Numbered lines: a soft blank line joins the line before it.
    groups: list[list[int]] = []
    for index in range(len(lines)):
        if index and starts[index] - 1 in soft_breaks and groups:
            groups[-1].append(index)
        else:
            groups.append([index])
    marked = [any(k in carets for k in group) for group in groups]

    shown = None
    if num_context_lines >= 0 and any(marked):
        n = len(groups)
        shown = [False] * n
        for g, is_marked in enumerate(marked):
            if is_marked:
                for k in range(max(0, g - num_context_lines), min(n, g + num_context_lines + 1)):
                    shown[k] = True
        # A single hidden line between shown parts is printed: its marker would be no shorter.
        for g in range(n):
            if not shown[g] and (g == 0 or shown[g - 1]) and (g == n - 1 or shown[g + 1]):
                shown[g] = True

    width = len(str(len(groups)))
    out = []
    skipped = 0
    for g, group in enumerate(groups):
        if shown is not None and not shown[g]:
            skipped += 1
            continue
        if skipped:
            out.append(f"(... {skipped} lines skipped ...)")
            skipped = 0
        for k, index in enumerate(group):
            prefix = f"{g + 1:>{width}} " if print_line_numbers and k == 0 else ""
            out.append(prefix + lines[index])
        rows = [carets[index] for index in group if index in carets]
        if rows:
            row = _caret_row([iv for intervals in rows for iv in intervals])
            out.append((" " * (width + 1) if print_line_numbers else "") + row)
    if skipped:
        out.append(f"(... {skipped} lines skipped ...)")
    return "\n".join(out)


def _minus(lo, hi, exempt, line_start):
    """``[lo, hi)`` (line columns) without the exempt character spans."""
    parts = [(lo, hi)]
    for e_start, e_end in exempt:
        a, b = e_start - line_start, e_end - line_start
        if b <= lo or a >= hi:
            continue
        next_parts = []
        for p_lo, p_hi in parts:
            if a > p_lo:
                next_parts.append((p_lo, min(a, p_hi)))
            if b < p_hi:
                next_parts.append((max(b, p_lo), p_hi))
        parts = [(x, y) for x, y in next_parts if y > x]
    return parts


def _line_of(starts, offset) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _caret_row(intervals) -> str:
    width = max(end for _, end in intervals)
    row = [" "] * width
    for start, end in intervals:
        for k in range(start, end):
            row[k] = "^"
    return "".join(row).rstrip()
