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
        return CallDoc(self, *args, **kwargs)

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
    """``callee(args..., key=value...)``: ``CallDoc(callee, *args, **kwargs)`` as in TVM.

    Keyword order is kept. :meth:`from_lists` builds one from an argument list and parallel
    keyword name / value lists.
    """

    __slots__ = ("args", "callee", "kwargs_keys", "kwargs_values")

    def __init__(self, callee: ExprDoc, *args, **kwargs):
        super().__init__()
        for arg in args:
            if not isinstance(arg, Doc):
                raise TypeError(
                    f"CallDoc takes argument docs, got {type(arg).__name__}; use "
                    "CallDoc.from_lists(callee, args, kwargs_keys, kwargs_values) for lists"
                )
        self.callee = callee
        self.args = list(args)
        self.kwargs_keys = list(kwargs.keys())
        self.kwargs_values = list(kwargs.values())

    @classmethod
    def from_lists(cls, callee: ExprDoc, args=(), kwargs_keys=(), kwargs_values=()) -> CallDoc:
        """``callee(*args, k0=v0, ...)`` from a list of arguments and parallel keyword lists.

        Parameters
        ----------
        callee : ExprDoc
            What is called.
        args : list of ExprDoc
            Positional arguments.
        kwargs_keys : list of str
            Keyword names, in print order.
        kwargs_values : list of ExprDoc
            Keyword values, one per name.

        Returns
        -------
        CallDoc
        """
        if len(kwargs_keys) != len(kwargs_values):
            raise ValueError("CallDoc needs as many keyword values as keyword names")
        doc = cls(callee, *args)
        doc.kwargs_keys = list(kwargs_keys)
        doc.kwargs_values = list(kwargs_values)
        return doc


class OperationKind(IntEnum):
    """Operators of :class:`OperationDoc`.

    The numbering follows TVM's: the underscore members bracket the unary, binary and special
    groups, so ``OperationKind._UnaryStart < kind < OperationKind._UnaryEnd`` tests a group.
    """

    _UnaryStart = 0
    USub = 1
    Invert = 2
    Not = 3
    _UnaryEnd = 4
    _BinaryStart = 5
    Add = 6
    Sub = 7
    Mult = 8
    Div = 9
    FloorDiv = 10
    Mod = 11
    Pow = 12
    LShift = 13
    RShift = 14
    BitAnd = 15
    BitOr = 16
    BitXor = 17
    Lt = 18
    LtE = 19
    Eq = 20
    NotEq = 21
    Gt = 22
    GtE = 23
    And = 24
    Or = 25
    MatMul = 26
    _BinaryEnd = 27
    _SpecialStart = 28
    IfThenElse = 29
    _SpecialEnd = 30


class OperationDoc(ExprDoc):
    """A unary, binary or ``a if cond else b`` operation on operand docs.

    For ``IfThenElse`` the operands are ``[cond, then_value, else_value]``.
    """

    __slots__ = ("kind", "operands")

    def __init__(self, kind: OperationKind, operands: list):
        super().__init__()
        self.kind = OperationKind(kind)
        self.operands = list(operands)
        if self.kind.name.startswith("_"):
            raise ValueError(f"OperationDoc needs an operator, got the marker {self.kind.name}")
        if self.kind < OperationKind._UnaryEnd:
            expected = 1
        else:
            expected = 3 if self.kind == OperationKind.IfThenElse else 2
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
    """``{k: v, ...}`` from a dict of key doc to value doc, in its order (as in TVM).

    :meth:`from_lists` builds one from parallel key and value lists.
    """

    __slots__ = ("keys", "values")

    def __init__(self, content=None):
        super().__init__()
        content = {} if content is None else content
        if not isinstance(content, dict):
            raise TypeError(
                f"DictDoc takes a dict of key doc to value doc, got {type(content).__name__}; "
                "use DictDoc.from_lists(keys, values) for lists"
            )
        self.keys = list(content.keys())
        self.values = list(content.values())

    @classmethod
    def from_lists(cls, keys=(), values=()) -> DictDoc:
        """``{keys[0]: values[0], ...}`` from parallel lists (keys may repeat).

        Parameters
        ----------
        keys : list of ExprDoc
        values : list of ExprDoc

        Returns
        -------
        DictDoc
        """
        if len(keys) != len(values):
            raise ValueError("DictDoc needs as many values as keys")
        doc = cls()
        doc.keys = list(keys)
        doc.values = list(values)
        return doc


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

    __slots__ = ("args", "body", "decorators", "name", "return_type", "type_params")

    def __init__(self, name: IdDoc, args=(), decorators=(), return_type=None, body=(),
                 comment=None, type_params=()):
        super().__init__(comment)
        self.name = name
        # PEP 695 type parameters, ``def name[T, U: int](...)``: IdDocs or annotated AssignDocs
        self.type_params = list(type_params or ())
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
