"""Doc tree -> text: precedence, literals, statements, underlines, context, line numbers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm.script.printer.doc import (
    AssertDoc,
    AssignDoc,
    CallDoc,
    ClassDoc,
    CommentDoc,
    DictDoc,
    DocStringDoc,
    ExprStmtDoc,
    ForDoc,
    FunctionDoc,
    IdDoc,
    IfDoc,
    LambdaDoc,
    ListDoc,
    LiteralDoc,
    OperationDoc,
    ReturnDoc,
    ScopeDoc,
    SliceDoc,
    StmtBlockDoc,
    TupleDoc,
    WhileDoc,
)
from tvm.script.printer.doc import (
    OperationKind as K,
)
from tvm.script.printer.doc_printer import DocPrinter, decorate_lines, to_python_script

a, b, c = IdDoc("a"), IdDoc("b"), IdDoc("c")


def rows(*lines):
    return "\n".join(lines)


def op(kind, *operands):
    return OperationDoc(kind, list(operands))


@pytest.mark.parametrize(
    "doc, text",
    [
        (op(K.Add, op(K.Add, a, b), c), "a + b + c"),
        (op(K.Add, a, op(K.Add, b, c)), "a + (b + c)"),
        (op(K.Mult, op(K.Add, a, b), c), "(a + b) * c"),
        (op(K.Sub, a, op(K.Sub, b, c)), "a - (b - c)"),
        (op(K.Mult, op(K.FloorDiv, a, b), c), "a // b * c"),
        (op(K.Pow, op(K.Pow, a, b), c), "(a ** b) ** c"),
        (op(K.Pow, a, op(K.Pow, b, c)), "a ** b ** c"),
        (op(K.USub, op(K.Add, a, b)), "-(a + b)"),
        (op(K.Not, op(K.Lt, a, b)), "not a < b"),
        (op(K.And, op(K.Lt, a, b), op(K.Gt, a, c)), "a < b and a > c"),
        (op(K.Lt, op(K.Lt, a, b), c), "(a < b) < c"),
        (op(K.Mult, a, LiteralDoc(-1)), "a * -1"),
        (op(K.IfThenElse, c, a, b), "a if c else b"),
        (op(K.Add, op(K.IfThenElse, c, a, b), a), "(a if c else b) + a"),
        (op(K.BitOr, op(K.BitAnd, a, b), c), "a & b | c"),
        (LambdaDoc([a], op(K.Add, a, b)), "lambda a: a + b"),
        (a.attr("x").call(b, k=LiteralDoc(1)), "a.x(b, k=1)"),
        (a.call(k=LiteralDoc(None)), "a(k=None)"),
        (op(K.Add, a, b).attr("x"), "(a + b).x"),
        (a[b, SliceDoc(LiteralDoc(1), None)], "a[b, 1:]"),
        (a[SliceDoc(None, c, LiteralDoc(2))], "a[:c:2]"),
        (TupleDoc([]), "()"),
        (TupleDoc([a]), "(a,)"),
        (TupleDoc([a, b]), "(a, b)"),
        (ListDoc([a, LiteralDoc(2)]), "[a, 2]"),
        (DictDoc.from_lists([LiteralDoc("k")], [LiteralDoc(1.5)]), '{"k": 1.5}'),
        (LiteralDoc('say "hi"\n'), '"say \\"hi\\"\\n"'),
        (LiteralDoc(True), "True"),
        (LiteralDoc(None), "None"),
    ],
)
def test_expressions(doc, text):
    assert to_python_script(doc) == text


def test_bad_docs_are_rejected():
    with pytest.raises(ValueError, match="takes 2 operand"):
        OperationDoc(K.Add, [a])
    with pytest.raises(TypeError, match="LiteralDoc takes"):
        LiteralDoc([1])
    with pytest.raises(ValueError, match="keyword values"):
        CallDoc.from_lists(a, [], ["k"], [])


def test_statements():
    func = FunctionDoc(
        IdDoc("f"),
        [AssignDoc(a, None, IdDoc("int")), AssignDoc(b, LiteralDoc(1), None)],
        [IdDoc("R").attr("function")],
        IdDoc("int"),
        [
            AssignDoc(TupleDoc([a, b]), TupleDoc([b, a])),
            AssignDoc(c, TupleDoc([a]), IdDoc("T")),
            IfDoc(op(K.Lt, a, b), [ExprStmtDoc(a.call())], [ReturnDoc(b)]),
            ForDoc(TupleDoc([a, b]), IdDoc("grid").call(), [AssertDoc(a, LiteralDoc("m"))]),
            WhileDoc(c, []),
            ScopeDoc(None, IdDoc("R").attr("dataflow").call(), [ExprStmtDoc(b, comment="note")]),
            ScopeDoc(a, IdDoc("ctx").call(), [CommentDoc("two\nlines")]),
            ReturnDoc(a),
        ],
    )
    cls = ClassDoc(IdDoc("Module"), [IdDoc("I").attr("ir_module")], [func, func])
    first = rows(
        "    @R.function",
        "    def f(a: int, b = 1) -> int:",
        "        a, b = b, a",
        "        c: T = (a,)",
        "        if a < b:",
        "            a()",
        "        else:",
        "            return b",
        "        for a, b in grid():",
        '            assert a, "m"',
        "        while c:",
        "            pass",
        "        with R.dataflow():",
        "            b  # note",
        "        with ctx() as a:",
        "            # two",
        "            # lines",
        "        return a",
    )
    # A blank line separates consecutive functions.
    assert to_python_script(cls) == f"@I.ir_module\nclass Module:\n{first}\n\n{first}"


def test_indent_spaces():
    doc = FunctionDoc(IdDoc("f"), [], [], None, [ReturnDoc(a)])
    assert to_python_script(doc, indent_spaces=2) == "def f():\n  return a"


def _printed_with_mark(doc, marked_doc):
    printer = DocPrinter(4, {id(marked_doc)})
    printer.print_doc(doc)
    return printer.text(), printer.spans[id(marked_doc)]


def test_spans_and_underline_single_line():
    target = a.call(b)
    stmt = StmtBlockDoc([AssignDoc(c, target), ReturnDoc(c)])
    text, spans = _printed_with_mark(stmt, target)
    assert text[spans[0][0]:spans[0][1]] == "a(b)"
    assert decorate_lines(text, spans) == "c = a(b)\n    ^^^^\nreturn c"


def test_underline_multi_line_starts_at_first_non_blank():
    inner = ScopeDoc(None, IdDoc("ctx").call(), [ExprStmtDoc(a), ExprStmtDoc(b)])
    func = FunctionDoc(IdDoc("f"), [], [], None, [inner])
    text, spans = _printed_with_mark(func, inner)
    assert decorate_lines(text, spans) == rows(
        "def f():",
        "    with ctx():",
        "    ^^^^^^^^^^^",
        "        a",
        "        ^",
        "        b",
        "        ^",
    )


def test_two_spans_on_one_line_share_a_caret_row():
    text = "x = f(a, b)"
    assert decorate_lines(text, [(6, 7), (9, 10)]) == "x = f(a, b)\n      ^  ^"


def _numbered(n):
    return "\n".join(f"line{i}" for i in range(1, n + 1))


def test_context_trimming_markers():
    text = _numbered(12)
    line6 = text.index("line6")
    out = decorate_lines(text, [(line6, line6 + 5)], num_context_lines=1)
    assert out == rows(
        "(... 4 lines skipped ...)",
        "line5",
        "line6",
        "^^^^^",
        "line7",
        "(... 5 lines skipped ...)",
    )


def test_context_single_hidden_line_is_printed():
    text = _numbered(5)
    line3 = text.index("line3")
    out = decorate_lines(text, [(line3, line3 + 5)], num_context_lines=1)
    # Lines 1 and 5 are alone on each side: printed, not replaced by a marker.
    assert "skipped" not in out
    out0 = decorate_lines(text, [(line3, line3 + 5)], num_context_lines=0)
    assert out0.splitlines() == ["(... 2 lines skipped ...)", "line3", "^^^^^",
                                 "(... 2 lines skipped ...)"]


def test_line_numbers_are_right_aligned():
    text = _numbered(10) + "\n"
    out = decorate_lines(text, [(0, 5)], print_line_numbers=True)
    lines = out.split("\n")
    assert lines[0] == " 1 line1"
    assert lines[1] == "   ^^^^^"
    assert lines[10] == "10 line10"
    assert lines[11] == "11 "


# --- property: printed operations parse back with the same meaning ---------------------------


_BINARY = {
    K.Add: lambda x, y: x + y,
    K.Sub: lambda x, y: x - y,
    K.Mult: lambda x, y: x * y,
    K.FloorDiv: lambda x, y: x // y,
    K.Mod: lambda x, y: x % y,
    K.BitAnd: lambda x, y: x & y,
    K.BitOr: lambda x, y: x | y,
    K.BitXor: lambda x, y: x ^ y,
    K.Lt: lambda x, y: x < y,
    K.Eq: lambda x, y: x == y,
    K.GtE: lambda x, y: x >= y,
    K.And: lambda x, y: x and y,
    K.Or: lambda x, y: x or y,
}
_UNARY = {K.USub: lambda x: -x, K.Invert: lambda x: ~x, K.Not: lambda x: not x}


def _trees():
    leaves = st.integers(-5, 5).map(lambda v: (LiteralDoc(v), v))

    def extend(children):
        binary = st.tuples(st.sampled_from(sorted(_BINARY)), children, children)
        unary = st.tuples(st.sampled_from(sorted(_UNARY)), children)
        # TVM prints a ternary in the then position of another one without parentheses
        # (``a if b else c if d else e``), which Python reads differently; leave it out.
        ternary = st.tuples(st.just(K.IfThenElse), children, children, children).filter(
            lambda parts: not _is_ternary(parts[2][0])
        )
        return st.one_of(binary, unary, ternary).map(_build)

    return st.recursive(leaves, extend, max_leaves=12)


def _is_ternary(doc):
    return isinstance(doc, OperationDoc) and doc.kind == K.IfThenElse


def _build(parts):
    kind, *children = parts
    docs = [c[0] for c in children]
    values = [c[1] for c in children]
    if any(v is ZeroDivisionError for v in values):
        return OperationDoc(kind, docs), ZeroDivisionError
    try:
        if kind == K.IfThenElse:
            value = values[1] if values[0] else values[2]
        elif kind in _UNARY:
            value = _UNARY[kind](values[0])
        else:
            value = _BINARY[kind](*values)
    except ZeroDivisionError:
        value = ZeroDivisionError
    return OperationDoc(kind, docs), value


@settings(max_examples=300, deadline=None)
@given(_trees())
def test_printed_operations_keep_their_meaning(tree):
    doc, expected = tree
    text = to_python_script(doc)
    if expected is ZeroDivisionError:
        return
    # The text is made of int literals and operators only.
    assert eval(text) == expected, text


def test_to_python_script_underlines_source_paths():
    from tvm_ffi.access_path import AccessPath

    call = a.call(b)
    call.source_paths.append((None, "attr", "value"))
    doc = StmtBlockDoc([AssignDoc(c, call), ReturnDoc(c)])
    text = to_python_script(doc, path_to_underline=[AccessPath.root().attr("value")],
                            print_line_numbers=True)
    assert text == rows("1 c = a(b)", "      ^^^^", "2 return c")


@settings(max_examples=200, deadline=None)
@given(
    n_lines=st.integers(1, 30),
    marked=st.sets(st.integers(0, 29), max_size=4),
    context=st.integers(-1, 5),
)
def test_context_trimming_accounts_for_every_line(n_lines, marked, context):
    text = "\n".join(f"line{i}" for i in range(n_lines))
    starts = [text.index(f"line{i}") for i in range(n_lines)]
    spans = [(starts[i], starts[i] + 4) for i in marked if i < n_lines]
    out = decorate_lines(text, spans, num_context_lines=context).split("\n")
    shown = [line for line in out if line.startswith("line")]
    skipped = sum(int(line.split()[1]) for line in out if line.startswith("(..."))
    # Every line is either shown or counted in a marker, in order; markers hide 2+ lines.
    assert len(shown) + skipped == n_lines
    assert shown == sorted(shown, key=lambda line: int(line[4:]))
    assert all(int(line.split()[1]) >= 2 for line in out if line.startswith("(..."))
    # Each underlined line is shown, followed by its caret row.
    for i in marked:
        if i < n_lines:
            k = out.index(f"line{i}")
            assert out[k + 1] == "^^^^"
    if not spans or context < 0:
        assert skipped == 0


def test_tvm_constructor_forms():
    """``CallDoc(callee, *args, **kwargs)`` and ``DictDoc({k: v})`` as TVM spells them."""
    f = IdDoc("f")
    assert to_python_script(CallDoc(f, a, b, key0=c, key1=a)) == "f(a, b, key0=c, key1=a)"
    assert to_python_script(CallDoc(f)) == "f()"
    dict_doc = DictDoc({LiteralDoc("x"): a, LiteralDoc("y"): b})
    assert to_python_script(dict_doc) == '{"x": a, "y": b}'
    assert to_python_script(DictDoc()) == "{}"
    with pytest.raises(TypeError, match="from_lists"):
        CallDoc(f, [a], [], [])
    with pytest.raises(TypeError, match="from_lists"):
        DictDoc([a])


def test_operation_kind_groups():
    unary = [k for k in K if K._UnaryStart < k < K._UnaryEnd]
    binary = [k for k in K if K._BinaryStart < k < K._BinaryEnd]
    assert unary == [K.USub, K.Invert, K.Not]
    assert K.MatMul in binary and K.Pow in binary and K.IfThenElse not in binary
    with pytest.raises(ValueError, match="marker"):
        OperationDoc(K._UnaryStart, [a])


def test_power_and_ternary_parentheses():
    # printed forms checked against Apache TVM 0.27
    neg = lambda x: op(K.USub, x)
    assert to_python_script(op(K.Pow, neg(a), neg(b))) == "(-a) ** -b"
    assert to_python_script(op(K.IfThenElse, a, op(K.IfThenElse, b, b, b), c)) == (
        "b if b else b if a else c"
    )
    assert to_python_script(op(K.IfThenElse, a, b, op(K.IfThenElse, c, c, c))) == (
        "b if a else (c if c else c)"
    )


def test_comments_and_doc_strings():
    assert to_python_script(CommentDoc("")) == ""
    assert to_python_script(DocStringDoc("")) == ""
    assert to_python_script(DocStringDoc("one\ntwo")) == '"""\none\ntwo\n"""'
    func = FunctionDoc(IdDoc("f"), [], [IdDoc("wrap")], None, [ReturnDoc(a)], comment="x\n\ny")
    assert to_python_script(func) == rows(
        "@wrap", "def f():", '    """', "    x", "", "    y", '    """', "    return a"
    )
    cls = ClassDoc(IdDoc("C"), [], [], comment="doc")
    assert to_python_script(cls) == rows("class C:", '    """', "    doc", '    """', "    pass")
    for stmt in (ExprStmtDoc(a), AssertDoc(a), ReturnDoc(a), AssignDoc(a, b)):
        stmt.comment = "1\n2"
        with pytest.raises(ValueError, match="cannot have newline"):
            to_python_script(stmt)


def test_function_type_params():
    func = FunctionDoc(
        IdDoc("f"), [], [], None, [ReturnDoc(a)],
        type_params=[IdDoc("T"), AssignDoc(IdDoc("U"), None, IdDoc("int"))],
    )
    assert to_python_script(func) == rows("def f[T, U: int]():", "    return a")
