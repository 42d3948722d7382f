"""``tvm.tirx.functor``: the base classes and decorators for TIR visitors written in Python.

TVM code subclasses :class:`PyStmtExprVisitor` or :class:`PyStmtExprMutator`, overrides the
``visit_<node>_`` methods it cares about and decorates the class with :func:`visitor` or
:func:`mutator`::

    @tvm.tirx.functor.mutator
    class AddToSub(tvm.tirx.PyStmtExprMutator):
        def visit_add_(self, op):
            return tvm.tirx.Sub(self.visit_expr(op.a), self.visit_expr(op.b))

    AddToSub().visit_expr(x + y)        # x - y

The default ``visit_<node>_`` methods walk (visitor) or rebuild (mutator) the node's children,
so ``super().visit_for_(op)`` keeps walking below an overridden node. Statements go through
:meth:`visit_stmt`, expressions (also those inside statements) through :meth:`visit_expr`.

In TVM the decorator wraps the Python class in a C++ functor object that keeps a weak reference
to the Python instance as ``_outer``. Here the functors are Python already, so the decorated
class is the class itself, checked to derive from the right base, and ``instance._outer()``
returns the instance (the same call shape as TVM's weak reference).
"""

from __future__ import annotations

from .stmt_functor import StmtExprMutator, StmtExprVisitor

__all__ = ["PyStmtExprMutator", "PyStmtExprVisitor", "mutator", "visitor"]


class PyStmtExprVisitor(StmtExprVisitor):
    """Base class of Python TIR visitors: walks statements and the expressions inside them.

    Override ``visit_<node>_(self, op)`` (``visit_add_``, ``visit_for_``, ``visit_var_``, ...)
    and call the base method to keep visiting the node's children.
    """

    def _outer(self) -> PyStmtExprVisitor:
        """The Python visitor instance (TVM's weak reference to it, dereferenced)."""
        return self


class PyStmtExprMutator(StmtExprMutator):
    """Base class of Python TIR mutators: rebuilds statements and expressions.

    Override ``visit_<node>_(self, op)`` to return the replacement node; the base methods
    rebuild the node from its visited children and return ``op`` itself when nothing changed.
    """

    def _outer(self) -> PyStmtExprMutator:
        """The Python mutator instance (TVM's weak reference to it, dereferenced)."""
        return self


def _decorator(base, kind):
    def wrap(cls):
        if not isinstance(cls, type) or not issubclass(cls, base):
            name = getattr(cls, "__name__", repr(cls))
            raise TypeError(
                f"@tvm.tirx.functor.{kind} expects a subclass of {base.__name__}, got {name}"
            )
        return cls

    return wrap


def visitor(visitor_cls=None):
    """Class decorator for a :class:`PyStmtExprVisitor` subclass.

    Parameters
    ----------
    visitor_cls : type, optional
        The decorated class; ``@visitor`` and ``@visitor()`` are both accepted.

    Returns
    -------
    type
        The class itself, checked.

    Raises
    ------
    TypeError
        When the class does not derive from :class:`PyStmtExprVisitor`.
    """
    wrap = _decorator(PyStmtExprVisitor, "visitor")
    return wrap(visitor_cls) if visitor_cls is not None else wrap


def mutator(mutator_cls=None):
    """Class decorator for a :class:`PyStmtExprMutator` subclass.

    Parameters
    ----------
    mutator_cls : type, optional
        The decorated class; ``@mutator`` and ``@mutator()`` are both accepted.

    Returns
    -------
    type
        The class itself, checked.

    Raises
    ------
    TypeError
        When the class does not derive from :class:`PyStmtExprMutator`.
    """
    wrap = _decorator(PyStmtExprMutator, "mutator")
    return wrap(mutator_cls) if mutator_cls is not None else wrap
