"""The document tree: a Python-like syntax tree that the printer renders as text.

Docsifiers turn IR objects into these docs (``tvm.script.printer.ir_docsifier``); the
:mod:`~tvm.script.printer.doc_printer` turns docs into text. Every doc carries
``source_paths``: the access paths (internal linked paths, see ``tvm.ffi.structural``) of the
IR objects it renders, so that the printer can underline the text of a given IR path.

Docs are plain mutable objects with ``__slots__`` (built once per print, never shared between
prints), which keeps printing a 10,000-binding module fast.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "AssertDoc",
    "AssignDoc",
    "AttrAccessDoc",
    "CallDoc",
    "ClassDoc",
    "CommentDoc",
    "DictDoc",
    "Doc",
    "DocStringDoc",
    "ExprDoc",
    "ExprStmtDoc",
    "ForDoc",
    "FunctionDoc",
    "IdDoc",
    "IfDoc",
    "IndexDoc",
    "LambdaDoc",
    "ListDoc",
    "LiteralDoc",
    "OperationDoc",
    "OperationKind",
    "ReturnDoc",
    "ScopeDoc",
    "SliceDoc",
    "StmtBlockDoc",
    "StmtDoc",
    "TupleDoc",
    "WhileDoc",
]


class Doc:
    """Base class of all docs; ``source_paths`` lists the IR paths this doc renders."""

    __slots__ = ("source_paths",)

    def __init__(self):
        self.source_paths = []

    def add_path(self, path) -> Doc:
        """Record that this doc renders the IR object at ``path``; returns ``self``."""
        if path is not None:
            self.source_paths.append(path)
        return self

    def __repr__(self):
        from .doc_printer import to_python_script  # lazy: the printer module imports this one

        return f"{type(self).__name__}({to_python_script(self).rstrip()!r})"


class ExprDoc(Doc):
    """Base class of expression docs, with helpers to build bigger expressions."""

    __slots__ = ()

    def attr(self, name: str) -> AttrAccessDoc:
        """``self.name``."""
        return AttrAccessDoc(self, name)

    def call(self, *args, **kwargs) -> CallDoc:
        """``self(*args, **kwargs)``; keyword order is kept."""
        return CallDoc(self, list(args), list(kwargs.keys()), list(kwargs.values()))

    def __getitem__(self, indices) -> IndexDoc:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return IndexDoc(self, list(indices))


class StmtDoc(Doc):
    """Base class of statement docs; ``comment`` is printed next to (or above) the statement."""

    __slots__ = ("comment",)

    def __init__(self, comment=None):
        super().__init__()
        self.comment = comment


# --- expressions ------------------------------------------------------------------------------


class LiteralDoc(ExprDoc):
    """A literal: ``None``, a bool, an int, a float or a string."""

    __slots__ = ("value",)

    def __init__(self, value, path=None):
        super().__init__()
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise TypeError(f"LiteralDoc takes None, bool, int, float or str, got {value!r}")
        self.value = value
        self.add_path(path)

    @staticmethod
    def none(path=None):
        """A ``LiteralDoc`` printing ``None``.

        Parameters
        ----------
        path : optional
            The access path of the IR node the literal prints (for underlining).

        Returns
        -------
        LiteralDoc
        """
        return LiteralDoc(None, path)

    @staticmethod
    def int(value, path=None):
        """A ``LiteralDoc`` of an integer.

        Parameters
        ----------
        value : object
            Converted with ``int()``.
        path : optional
            The access path of the IR node the literal prints (for underlining).

        Returns
        -------
        LiteralDoc
        """
        return LiteralDoc(int(value), path)

    @staticmethod
    def boolean(value, path=None):
        """A ``LiteralDoc`` of a bool.

        Parameters
        ----------
        value : object
            Converted with ``bool()``.
        path : optional
            The access path of the IR node the literal prints (for underlining).

        Returns
        -------
        LiteralDoc
        """
        return LiteralDoc(bool(value), path)

    @staticmethod
    def float(value, path=None):
        """A ``LiteralDoc`` of a float.

        Parameters
        ----------
        value : object
            Converted with ``float()``.
        path : optional
            The access path of the IR node the literal prints (for underlining).

        Returns
        -------
        LiteralDoc
        """
        return LiteralDoc(float(value), path)

    @staticmethod
    def str(value, path=None):
        """A ``LiteralDoc`` of a string (printed quoted).

        Parameters
        ----------
        value : object
            Converted with ``str()``.
        path : optional
            The access path of the IR node the literal prints (for underlining).

        Returns
        -------
        LiteralDoc
        """
        return LiteralDoc(str(value), path)


class IdDoc(ExprDoc):
    """An identifier."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        super().__init__()
        self.name = name


class AttrAccessDoc(ExprDoc):
    """``value.name``."""

    __slots__ = ("name", "value")

    def __init__(self, value: ExprDoc, name: str):
        super().__init__()
        self.value = value
        self.name = name


class IndexDoc(ExprDoc):
    """``value[i, j, ...]``; an index may be a :class:`SliceDoc`."""

    __slots__ = ("indices", "value")

    def __init__(self, value: ExprDoc, indices: list):
        super().__init__()
        self.value = value
        self.indices = list(indices)


class CallDoc(ExprDoc):
    """``callee(args..., key=value...)``."""

    __slots__ = ("args", "callee", "kwargs_keys", "kwargs_values")

    def __init__(self, callee: ExprDoc, args=(), kwargs_keys=(), kwargs_values=()):
        super().__init__()
        if len(kwargs_keys) != len(kwargs_values):
            raise ValueError("CallDoc needs as many keyword values as keyword names")
        self.callee = callee
        self.args = list(args)
        self.kwargs_keys = list(kwargs_keys)
        self.kwargs_values = list(kwargs_values)


class OperationKind(IntEnum):
    """Operators of :class:`OperationDoc`."""

    # unary
    USub = 0
    Invert = 1
    Not = 2
    # binary
    Add = 10
    Sub = 11
    Mult = 12
    Div = 13
    FloorDiv = 14
    Mod = 15
    Pow = 16
    LShift = 17
    RShift = 18
    BitAnd = 19
    BitOr = 20
    BitXor = 21
    Lt = 22
    LtE = 23
    Eq = 24
    NotEq = 25
    Gt = 26
    GtE = 27
    And = 28
    Or = 29
    MatMul = 30
    # special
    IfThenElse = 40


class OperationDoc(ExprDoc):
    """A unary, binary or ``a if cond else b`` operation on operand docs.

    For ``IfThenElse`` the operands are ``[cond, then_value, else_value]``.
    """

    __slots__ = ("kind", "operands")

    def __init__(self, kind: OperationKind, operands: list):
        super().__init__()
        self.kind = OperationKind(kind)
        self.operands = list(operands)
        expected = 1 if self.kind < 10 else (3 if self.kind == OperationKind.IfThenElse else 2)
        if len(self.operands) != expected:
            raise ValueError(
                f"OperationDoc {self.kind.name} takes {expected} operand(s), "
                f"got {len(self.operands)}"
            )


class LambdaDoc(ExprDoc):
    """``lambda a, b: body``."""

    __slots__ = ("args", "body")

    def __init__(self, args: list, body: ExprDoc):
        super().__init__()
        self.args = list(args)
        self.body = body


class TupleDoc(ExprDoc):
    """``(a, b)``; ``(a,)`` for one element."""

    __slots__ = ("elements",)

    def __init__(self, elements=()):
        super().__init__()
        self.elements = list(elements)


class ListDoc(ExprDoc):
    """``[a, b]``."""

    __slots__ = ("elements",)

    def __init__(self, elements=()):
        super().__init__()
        self.elements = list(elements)


class DictDoc(ExprDoc):
    """``{k: v, ...}`` in the given key order."""

    __slots__ = ("keys", "values")

    def __init__(self, keys=(), values=()):
        super().__init__()
        if len(keys) != len(values):
            raise ValueError("DictDoc needs as many values as keys")
        self.keys = list(keys)
        self.values = list(values)


class SliceDoc(Doc):
    """``start:stop:step`` inside an :class:`IndexDoc`; each part may be None."""

    __slots__ = ("start", "step", "stop")

    def __init__(self, start=None, stop=None, step=None):
        super().__init__()
        self.start = start
        self.stop = stop
        self.step = step


# --- statements -------------------------------------------------------------------------------


class StmtBlockDoc(Doc):
    """A sequence of statements printed at the same indentation."""

    __slots__ = ("stmts",)

    def __init__(self, stmts=()):
        super().__init__()
        self.stmts = list(stmts)


class AssignDoc(StmtDoc):
    """``lhs: annotation = rhs``; ``rhs`` and ``annotation`` are optional (not both absent)."""

    __slots__ = ("annotation", "lhs", "rhs")

    def __init__(self, lhs: ExprDoc, rhs=None, annotation=None, comment=None):
        super().__init__(comment)
        if rhs is None and annotation is None and not isinstance(lhs, ExprDoc):
            raise ValueError("AssignDoc needs a right-hand side or an annotation")
        self.lhs = lhs
        self.rhs = rhs
        self.annotation = annotation


class IfDoc(StmtDoc):
    """``if predicate: then_branch else: else_branch``."""

    __slots__ = ("else_branch", "predicate", "then_branch")

    def __init__(self, predicate: ExprDoc, then_branch=(), else_branch=(), comment=None):
        super().__init__(comment)
        self.predicate = predicate
        self.then_branch = list(then_branch)
        self.else_branch = list(else_branch)


class WhileDoc(StmtDoc):
    """``while predicate: body``."""

    __slots__ = ("body", "predicate")

    def __init__(self, predicate: ExprDoc, body=(), comment=None):
        super().__init__(comment)
        self.predicate = predicate
        self.body = list(body)


class ForDoc(StmtDoc):
    """``for lhs in rhs: body``."""

    __slots__ = ("body", "lhs", "rhs")

    def __init__(self, lhs: ExprDoc, rhs: ExprDoc, body=(), comment=None):
        super().__init__(comment)
        self.lhs = lhs
        self.rhs = rhs
        self.body = list(body)


class ScopeDoc(StmtDoc):
    """``with rhs as lhs: body`` (``lhs`` may be None)."""

    __slots__ = ("body", "lhs", "rhs")

    def __init__(self, lhs, rhs: ExprDoc, body=(), comment=None):
        super().__init__(comment)
        self.lhs = lhs
        self.rhs = rhs
        self.body = list(body)


class ExprStmtDoc(StmtDoc):
    """An expression used as a statement."""

    __slots__ = ("expr",)

    def __init__(self, expr: ExprDoc, comment=None):
        super().__init__(comment)
        self.expr = expr


class AssertDoc(StmtDoc):
    """``assert test, msg``."""

    __slots__ = ("msg", "test")

    def __init__(self, test: ExprDoc, msg=None, comment=None):
        super().__init__(comment)
        self.test = test
        self.msg = msg


class ReturnDoc(StmtDoc):
    """``return value``."""

    __slots__ = ("value",)

    def __init__(self, value: ExprDoc, comment=None):
        super().__init__(comment)
        self.value = value


class FunctionDoc(StmtDoc):
    """``@decorators def name(args) -> return_type: body``; each arg is an :class:`AssignDoc`."""

    __slots__ = ("args", "body", "decorators", "name", "return_type")

    def __init__(self, name: IdDoc, args=(), decorators=(), return_type=None, body=(),
                 comment=None):
        super().__init__(comment)
        self.name = name
        self.args = list(args)
        self.decorators = list(decorators)
        self.return_type = return_type
        self.body = list(body)


class ClassDoc(StmtDoc):
    """``@decorators class name: body``."""

    __slots__ = ("body", "decorators", "name")

    def __init__(self, name: IdDoc, decorators=(), body=(), comment=None):
        super().__init__(comment)
        self.name = name
        self.decorators = list(decorators)
        self.body = list(body)


class CommentDoc(StmtDoc):
    """A comment on its own line(s)."""

    __slots__ = ()

    def __init__(self, comment: str):
        super().__init__(comment)


class DocStringDoc(StmtDoc):
    """A triple-quoted doc string."""

    __slots__ = ()

    def __init__(self, docs: str):
        super().__init__(docs)
