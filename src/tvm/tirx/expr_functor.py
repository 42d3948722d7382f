"""Expression functors: :class:`ExprVisitor` and :class:`ExprMutator` over ``tvm.tirx`` PrimExprs.

Dispatch is by node class: an ``Add`` goes to ``visit_add_``, an ``IntImm`` to
``visit_int_imm_`` (the class name in snake case with a trailing underscore;
``FloorDiv``/``FloorMod`` use Apache TVM's ``visit_floordiv_`` /
``visit_floormod_``). When a class has no method of its own, its base classes are tried in
order, so ``SizeVar`` falls back to ``visit_var_`` unless ``visit_size_var_`` is defined.
Override these methods in a subclass and call ``super()`` to keep the default traversal.

Node types defined in other modules (``BufferLoad``, ``Reduce``, ...) get their method by the
same naming rule; without one, a generic rule visits (or rebuilds through ``replace``) every
PrimExpr-valued field, so a new node type is traversed correctly before anyone writes a
specific method for it.

The mutator rebuilds a node through its constructor only when a child changed (so dtypes are
re-checked), and returns the very same object when nothing changed.

Recursion follows expression depth; importing this module raises Python's recursion limit to
at least 20000 so that expressions thousands of levels deep (long sums) are handled.

Examples
--------
>>> from tvm import tirx
>>> from tvm.tirx.expr_functor import ExprMutator
>>> class Double(ExprMutator):
...     def visit_int_imm_(self, op):
...         return tirx.IntImm(op.dtype, op.value * 2)
>>> x = tirx.Var("x", "int32")
>>> Double().visit_expr(x * 3 + 1)
x * 6 + 2
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ..ffi.node import IGNORE, Node
from ..ir.expr import PrimExpr
from .expr import (
    BinaryOpExpr,
    BitwiseNot,
    Broadcast,
    Call,
    Cast,
    FloatImm,
    IntImm,
    Let,
    Not,
    Ramp,
    Select,
    Shuffle,
    StringImm,
    Var,
)

__all__ = [
    "ExprFunctor",
    "ExprMutator",
    "ExprVisitor",
    "expr_method_name",
    "post_order_visit",
    "substitute",
]

_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_MIN_RECURSION_LIMIT = 20000


# class name -> method name (dispatch tables miss once per class pair); seeded with the names
# Apache TVM spells without the snake-case underscore.
_METHOD_NAMES: dict = {"FloorDiv": "visit_floordiv_", "FloorMod": "visit_floormod_"}


def expr_method_name(cls) -> str:
    """The visit method for a node class: ``IntImm`` -> ``visit_int_imm_``, ``FloorDiv`` ->
    ``visit_floordiv_`` (Apache TVM's spelling)."""
    name = _METHOD_NAMES.get(cls.__name__)
    if name is None:
        name = _METHOD_NAMES[cls.__name__] = (
            "visit_" + _SNAKE.sub("_", cls.__name__).lower() + "_")
    return name


def _ensure_recursion_limit():
    # Python 3.11+ keeps pure-Python frames off the C stack, so a high limit is safe.
    if sys.getrecursionlimit() < _MIN_RECURSION_LIMIT:
        sys.setrecursionlimit(_MIN_RECURSION_LIMIT)


def _lookup(functor_cls, node_cls, fallback):
    table = functor_cls.__dict__.get("_expr_table")
    if table is None:
        table = {}
        type.__setattr__(functor_cls, "_expr_table", table)
    method = table.get(node_cls)
    if method is None:
        for klass in node_cls.__mro__:
            method = getattr(functor_cls, expr_method_name(klass), None)
            if method is not None:
                break
        else:
            method = fallback
        table[node_cls] = method
    return method


class ExprFunctor:
    """Base of expression functors: dispatch only (``visit_expr`` -> ``visit_<name>_``)."""

    #: node class -> method; each functor class gets its own (``__init_subclass__``).
    _expr_table: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Why: one dict per class found by plain attribute lookup makes the common case of
        # ``visit_expr`` a single dict hit (dispatch runs once per node of every pass).
        cls._expr_table = {}

    def visit_expr(self, expr: PrimExpr) -> Any:
        """Visit one expression (dispatches on its class)."""
        try:
            method = self._expr_table[type(expr)]
        except KeyError:
            method = _lookup(type(self), type(expr), type(self).visit_other_)
        return method(self, expr)

    def __call__(self, expr: PrimExpr) -> Any:
        return self.visit_expr(expr)

    def visit_other_(self, op: Any) -> Any:
        """Called for a node class with no ``visit_<name>_`` method of its own."""
        raise TypeError(f"{type(self).__name__} cannot visit {type(op).__name__}")


def _child_values(node):
    """``(field name, value)`` for a node's non-ignored fields."""
    for fobj in node._fields:
        if fobj.role != IGNORE:
            yield fobj.name, getattr(node, fobj.name, None)


class ExprVisitor(ExprFunctor):
    """Visit every sub-expression; override ``visit_<name>_`` methods to act on nodes."""

    def visit_other_(self, op: Any) -> None:
        """Generic rule: visit every PrimExpr found in the node's fields."""
        for _, value in _child_values(op):
            self._visit_value(value)

    def _visit_value(self, value):
        if isinstance(value, PrimExpr):
            self.visit_expr(value)
        elif isinstance(value, (tuple, list)):
            for item in value:
                self._visit_value(item)

    def visit_var_(self, op: Var) -> None:
        """Visit a ``Var`` (a leaf: nothing to do)."""

    def visit_int_imm_(self, op: IntImm) -> None:
        """Visit an ``IntImm`` (a leaf: nothing to do)."""

    def visit_float_imm_(self, op: FloatImm) -> None:
        """Visit a ``FloatImm`` (a leaf: nothing to do)."""

    def visit_string_imm_(self, op: StringImm) -> None:
        """Visit a ``StringImm`` (a leaf: nothing to do)."""

    def _visit_binary(self, op):
        self.visit_expr(op.a)
        self.visit_expr(op.b)

    def _visit_unary(self, op):
        self.visit_expr(op.a)

    def visit_cast_(self, op: Cast) -> None:
        """Visit a ``Cast``: the value being cast."""
        self.visit_expr(op.value)

    def visit_select_(self, op: Select) -> None:
        """Visit a ``Select``: its condition, true value and false value."""
        self.visit_expr(op.condition)
        self.visit_expr(op.true_value)
        self.visit_expr(op.false_value)

    def visit_let_(self, op: Let) -> None:
        """Visit a ``Let``: the bound variable, its value, then the body."""
        self.visit_expr(op.var)  # the bound variable first, as 0.27's visitor does
        self.visit_expr(op.value)
        self.visit_expr(op.body)

    def visit_ramp_(self, op: Ramp) -> None:
        """Visit a ``Ramp``: its base, stride and lane count."""
        self.visit_expr(op.base)
        self.visit_expr(op.stride)
        self.visit_expr(op.lanes)  # an expression (IntImm when constant)

    def visit_broadcast_(self, op: Broadcast) -> None:
        """Visit a ``Broadcast``: the broadcast value and the lane count."""
        self.visit_expr(op.value)
        self.visit_expr(op.lanes)

    def visit_shuffle_(self, op: Shuffle) -> None:
        """Visit a ``Shuffle``: each input vector, then each index."""
        for v in op.vectors:
            self.visit_expr(v)
        for i in op.indices:
            self.visit_expr(i)

    def visit_call_(self, op: Call) -> None:
        """Visit a ``Call``: each PrimExpr argument, and each other argument (a buffer region,
        say) through :meth:`visit_call_arg`.
        """
        for arg in op.args:
            if isinstance(arg, PrimExpr):
                self.visit_expr(arg)
            else:
                self.visit_call_arg(arg)

    def visit_call_arg(self, arg: Any) -> None:
        """A non-PrimExpr call argument (a buffer region, say); generic field visit."""
        if isinstance(arg, Node):
            self.visit_other_(arg)


class ExprMutator(ExprFunctor):
    """Rebuild expressions; a node is rebuilt only if one of its children changed."""

    def visit_other_(self, op: Any) -> Any:
        """Generic rule: mutate every PrimExpr in the node's fields, ``replace`` if changed."""
        changes = {}
        for name, value in _child_values(op):
            new = self._mutate_value(value)
            if new is not value:
                changes[name] = new
        return op.replace(**changes) if changes else op

    def _mutate_value(self, value):
        if isinstance(value, PrimExpr):
            return self.visit_expr(value)
        if isinstance(value, (tuple, list)):
            items = [self._mutate_value(v) for v in value]
            if all(a is b for a, b in zip(items, value)):
                return value
            return type(value)(items)
        return value

    def visit_var_(self, op: Var) -> PrimExpr:
        """Return a ``Var`` unchanged (override to substitute variables)."""
        return op

    def visit_int_imm_(self, op: IntImm) -> PrimExpr:
        """Return an ``IntImm`` unchanged."""
        return op

    def visit_float_imm_(self, op: FloatImm) -> PrimExpr:
        """Return a ``FloatImm`` unchanged."""
        return op

    def visit_string_imm_(self, op: StringImm) -> PrimExpr:
        """Return a ``StringImm`` unchanged."""
        return op

    def _visit_binary(self, op):
        a = self.visit_expr(op.a)
        b = self.visit_expr(op.b)
        if a is op.a and b is op.b:
            return op
        return type(op)(a, b, span=op.span)

    def _visit_unary(self, op):
        a = self.visit_expr(op.a)
        return op if a is op.a else type(op)(a, span=op.span)

    def visit_cast_(self, op: Cast) -> PrimExpr:
        """Rebuild a ``Cast`` around its mutated value; ``op`` if the value is unchanged."""
        value = self.visit_expr(op.value)
        return op if value is op.value else Cast(op.dtype, value, span=op.span)

    def visit_select_(self, op: Select) -> PrimExpr:
        """Rebuild a ``Select`` from its mutated condition and values; ``op`` if unchanged."""
        c = self.visit_expr(op.condition)
        t = self.visit_expr(op.true_value)
        f = self.visit_expr(op.false_value)
        if c is op.condition and t is op.true_value and f is op.false_value:
            return op
        return Select(c, t, f, span=op.span)

    def visit_let_(self, op: Let) -> PrimExpr:
        """Rebuild a ``Let`` from its mutated variable, value and body; ``op`` if unchanged.

        A variable mutated into a non-``Var`` expression (a substitution) keeps the old variable.
        """
        # The bound variable is visited first, as 0.27's mutator does; a result that is not
        # a Var (a substitution by an expression) leaves the binding's variable as it is.
        var = self.visit_expr(op.var)
        if not isinstance(var, Var):
            var = op.var
        value = self.visit_expr(op.value)
        body = self.visit_expr(op.body)
        if var is op.var and value is op.value and body is op.body:
            return op
        return Let(var, value, body, span=op.span)

    def visit_ramp_(self, op: Ramp) -> PrimExpr:
        """Rebuild a ``Ramp`` from its mutated base, stride and lanes; ``op`` if unchanged."""
        base = self.visit_expr(op.base)
        stride = self.visit_expr(op.stride)
        lanes = self.visit_expr(op.lanes)
        if base is op.base and stride is op.stride and lanes is op.lanes:
            return op
        return Ramp(base, stride, lanes, span=op.span)

    def visit_broadcast_(self, op: Broadcast) -> PrimExpr:
        """Rebuild a ``Broadcast`` from its mutated value and lanes; ``op`` if unchanged."""
        value = self.visit_expr(op.value)
        lanes = self.visit_expr(op.lanes)
        if value is op.value and lanes is op.lanes:
            return op
        return Broadcast(value, lanes, span=op.span)

    def visit_shuffle_(self, op: Shuffle) -> PrimExpr:
        """Rebuild a ``Shuffle`` from its mutated vectors and indices; ``op`` if unchanged."""
        vectors = tuple(self.visit_expr(v) for v in op.vectors)
        indices = tuple(self.visit_expr(i) for i in op.indices)
        if all(a is b for a, b in zip(vectors + indices, op.vectors + op.indices)):
            return op
        return Shuffle(vectors, indices, span=op.span)

    def visit_call_(self, op: Call) -> PrimExpr:
        """Rebuild a ``Call`` from its mutated arguments (non-PrimExpr ones through
        :meth:`visit_call_arg`); ``op`` if no argument changed.
        """
        args = tuple(
            self.visit_expr(a) if isinstance(a, PrimExpr) else self.visit_call_arg(a)
            for a in op.args
        )
        if all(a is b for a, b in zip(args, op.args)):
            return op
        return Call(_call_type(op), op.op, args, span=op.span)

    def visit_call_arg(self, arg: Any) -> Any:
        """A non-PrimExpr call argument; generic field rebuild."""
        if isinstance(arg, Node):
            return self.visit_other_(arg)
        return arg


def _install_shared_methods():
    """``visit_add_``, ``visit_lt_``, ... for every binary and unary node class."""
    from . import expr as _expr

    for name in _expr.__all__:
        cls = getattr(_expr, name)
        if not isinstance(cls, type):
            continue
        if issubclass(cls, BinaryOpExpr):
            for functor in (ExprVisitor, ExprMutator):
                if expr_method_name(cls) not in functor.__dict__:
                    setattr(functor, expr_method_name(cls), functor._visit_binary)
        if cls in (Not, BitwiseNot):
            for functor in (ExprVisitor, ExprMutator):
                setattr(functor, expr_method_name(cls), functor._visit_unary)


_install_shared_methods()
_ensure_recursion_limit()


class _Substituter(ExprMutator):
    def __init__(self, vmap):
        self.vmap = vmap

    def visit_var_(self, op):
        value = self.vmap(op)
        return op if value is None else value


def substitute(expr: PrimExpr, vmap: Mapping[Var, Any] | Callable[[Var], Any]) -> PrimExpr:
    """Replace variables in ``expr``: ``vmap`` is a dict ``{Var: PrimExpr}`` or a function.

    A function receives each Var and returns its replacement or ``None`` to keep it. Python
    numbers in a dict are converted to constants of the variable's dtype. A replacement whose
    dtype differs from the variable's raises ``TypeError`` where it would build ill-typed IR.
    """
    from .generic import convert  # same package; generic imports expr only

    if callable(vmap) and not isinstance(vmap, dict):
        fn = vmap
    else:
        table = {}
        for var, value in dict(vmap).items():
            if not isinstance(var, Var):
                raise TypeError(f"substitute keys must be tirx.Var, got {type(var).__name__}")
            table[var] = convert(value, var.dtype)

        def fn(var):
            return table.get(var)

    return _Substituter(fn).visit_expr(expr)


class _PostOrder(ExprVisitor):
    def __init__(self, fvisit):
        self.fvisit = fvisit

    def visit_expr(self, expr):
        super().visit_expr(expr)
        self.fvisit(expr)


def post_order_visit(expr: PrimExpr, fvisit: Callable[..., object]) -> None:
    """Call ``fvisit(node)`` on every sub-expression of ``expr``, children first."""
    _PostOrder(fvisit).visit_expr(expr)


def _call_type(call):
    """What a rebuilt ``Call`` is constructed with: its pointer type when it has one (a
    ``T.reinterpret`` to a ``PointerType``), else its dtype."""
    annotation = call.type_annotation
    return call.dtype if annotation is None else annotation
