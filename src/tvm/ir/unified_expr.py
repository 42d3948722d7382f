"""``tvm.ir.Call``, ``tvm.ir.Var``, ``is_prim_expr`` and ``is_prim_var``: IR-wide views.

Apache TVM 0.27 declares a single call node and a single variable node in ``tvm.ir`` shared by
TIR and Relax. pytvm keeps two node families (``tvm.tirx.Call``/``tvm.tirx.Var`` for scalar
code, ``tvm.relax.Call``/``tvm.relax.Var`` for graph-level code). The names here are the
IR-wide views over both:

* ``isinstance(x, tvm.ir.Call)`` holds for a TIR call and for a Relax call (likewise ``Var``);
* constructing ``tvm.ir.Var(name, ty)`` / ``tvm.ir.Call(op, args, ...)`` builds the node of
  the family the type selects: a primitive type (``PrimType`` or a dtype string) gives the
  TIR node, any other type the Relax node.

Known difference: a Relax variable and a TIR variable stay distinct objects, so a variable
cannot be used both as a Relax binding and as a symbolic shape variable (0.27 allows that).
"""

from __future__ import annotations

from .expr import PrimExpr, RelaxExpr
from .type import PointerType, PrimType, Type

__all__ = ["Call", "Var", "is_prim_expr", "is_prim_var"]


def _family(kind: str):
    """The (TIR class, Relax class) pair of ``kind`` ("Call" or "Var")."""
    # Lazy: tirx and relax are layers above ir; the views only need them on use.
    from tvm import relax, tirx

    return getattr(tirx, kind), getattr(relax, kind)


class _ViewMeta(type):
    """Makes ``isinstance``/``issubclass`` against a view test both node families."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _family(cls._kind))

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, _family(cls._kind))


def _prim_dtype(ty):
    """The dtype string ``ty`` denotes when it is primitive, else None."""
    if isinstance(ty, str):
        return "handle" if ty == "handle" else ty
    if isinstance(ty, PrimType):
        return ty.dtype
    if isinstance(ty, PointerType):
        return "handle"
    return None


class Var(metaclass=_ViewMeta):
    """A local variable of either IR (see the module docstring).

    Parameters
    ----------
    name : str
        The variable's name.
    ty : Type or str, optional
        Its type: a dtype string or ``PrimType`` makes a ``tvm.tirx.Var``; any other type
        (``relax.TensorType``...) or None makes a ``tvm.relax.Var``.
    span : Span, optional
        Source location.
    name_hint : str, optional
        Alternative spelling of ``name`` (give one of the two).
    """

    _kind = "Var"

    def __new__(cls, name=None, ty=None, span=None, *, name_hint=None):
        if name is None:
            name = name_hint
        elif name_hint is not None:
            raise TypeError("tvm.ir.Var: give either name or name_hint, not both")
        if not isinstance(name, str):
            raise TypeError(f"tvm.ir.Var: name must be a str, got {type(name).__name__}")
        if ty is not None and not isinstance(ty, (str, Type)):
            raise TypeError(
                f"tvm.ir.Var: ty must be a Type or a dtype string, got {type(ty).__name__}"
            )
        tir_var, relax_var = _family("Var")
        dtype = _prim_dtype(ty)
        if dtype is not None:
            return tir_var(name, dtype, span=span)
        return relax_var(name, ty, span=span)


class Call(metaclass=_ViewMeta):
    """A call of either IR (see the module docstring).

    Parameters
    ----------
    op : Op, GlobalVar, Expr or str
        The callee; a string names a registered ``Op``.
    args : list of Expr
        The arguments.
    attrs : Attrs or dict, optional
        Operator attributes (Relax calls).
    ty_args : list of Type, optional
        Type arguments (Relax calls' ``sinfo_args``).
    span : Span, optional
        Source location.
    ret_ty : Type or str, optional
        A primitive result type (dtype string or ``PrimType``) makes a ``tvm.tirx.Call``;
        otherwise a ``tvm.relax.Call`` is made, with ``ret_ty`` as its type when given.
    """

    _kind = "Call"

    def __new__(cls, op, args, attrs=None, ty_args=None, span=None, ret_ty=None):
        from .op import Op

        if isinstance(op, str):
            op = Op.get(op)
        tir_call, relax_call = _family("Call")
        dtype = _prim_dtype(ret_ty) if ret_ty is not None else None
        if dtype is not None:
            if attrs or ty_args:
                raise TypeError("tvm.ir.Call: a call with a primitive ret_ty takes no attrs/ty_args")
            return tir_call(dtype, op, list(args), span=span)
        return relax_call(op, list(args), attrs, list(ty_args or []), span=span, ret_ty=ret_ty)


def is_prim_expr(value: object) -> bool:
    """Whether ``value`` is an expression of primitive (scalar) type.

    True for every TIR expression, and for a Relax expression whose type is ``PrimType``.
    """
    if isinstance(value, PrimExpr):
        return True
    return isinstance(value, RelaxExpr) and isinstance(value.ty, PrimType)


def is_prim_var(value: object) -> bool:
    """Whether ``value`` is a plain variable (not a dataflow/size variable) of primitive type."""
    tir_var, relax_var = _family("Var")
    if type(value) is tir_var:
        return True
    return type(value) is relax_var and is_prim_expr(value)
