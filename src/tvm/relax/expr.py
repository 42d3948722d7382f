"""Relax expressions, bindings and functions.

Every expression has ``ty``, its inferred type. For most expressions it is a *derived* field:
filled by normalization (``BlockBuilder.normalize``), ignored by structural equality, reset
by ``replace()``. A :class:`Var`'s ``ty`` is instead its *annotation*: it is compared where
the variable is defined (function parameters and binding variables are definition sites),
so alpha-renamed functions are structurally equal.

Constructors of leaves (``ShapeExpr``, ``Constant``, ``PrimValue``, ...) and of ``Tuple`` and
``Function`` fill ``ty`` right away, as Apache TVM does. ``Call``, ``TupleGetItem``, ``If`` and
``SeqExpr`` get theirs from the BlockBuilder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ffi.node import DEF, IGNORE, Node, field, set_field
from ..ir.attrs import DictAttrs
from ..ir.base import Scriptable
from ..ir.expr import GlobalVar, RelaxExpr
from ..ir.function import BaseFunc
from ..ir.op import Op
from ..ir.type import PrimType, StringType, TupleType, Type
from ..runtime.tensor import tensor as _runtime_tensor
from .expr_ops import ExprWithOp
from .ty import FuncType, ObjectType, ShapeType, TensorType, as_prim_expr

if TYPE_CHECKING:
    from ..ir.base import Span
    from ..ir.expr import PrimExpr

__all__ = [
    "BaseFunc",
    "Binding",
    "BindingBlock",
    "Call",
    "Constant",
    "DataTypeImm",
    "DataflowBlock",
    "DataflowVar",
    "Expr",
    "ExternFunc",
    "Function",
    "GlobalVar",
    "If",
    "MatchCast",
    "PrimValue",
    "SeqExpr",
    "ShapeExpr",
    "StringImm",
    "Tuple",
    "TupleGetItem",
    "Var",
    "VarBinding",
    "const",
    "extern",
    "get_shape_of",
    "make_shape",
    "prim_value",
]

Expr = RelaxExpr

_set = object.__setattr__


def _check_type(ty, what):
    if ty is not None and not isinstance(ty, Type):
        raise TypeError(f"{what} must be a Type (e.g. relax.TensorType), got {ty!r}")
    return ty


def _pick_ty(ty, struct_info, what):
    """Accept the seed-era ``struct_info=`` keyword as an alias of ``ty=``."""
    if struct_info is not None:
        if ty is not None:
            raise TypeError(f"{what}: pass either ty= or struct_info=, not both")
        ty = struct_info
    return _check_type(ty, f"{what} type")


def _func_name_of(func) -> str:
    symbol = func.get_attr("global_symbol")
    return str(symbol) if symbol is not None else "function"


class Var(ExprWithOp, RelaxExpr, type_key="relax.expr.Var"):
    """A Relax variable. ``ty`` is its annotation, compared at the definition site."""

    name_hint: str = field(role=IGNORE)
    ty: object = field(None, kw_only=True)

    _sequal_kind = "var"

    def __init__(
        self,
        name_hint: str = "",
        ty: Type | None = None,
        span: Span | None = None,
        *,
        name: str | None = None,
        struct_info: Type | None = None,
    ) -> None:
        # TVM 0.27 calls the first parameter ``name``; ``name_hint`` is the older keyword.
        if name is not None:
            name_hint = name
        if not isinstance(name_hint, str):
            raise TypeError(f"Var name must be a str, got {type(name_hint).__name__}")
        self.__init_fields__(name_hint, ty=_pick_ty(ty, struct_info, "Var"), span=span)

    @property
    def name(self) -> str:
        """The variable's name (``name_hint``)."""
        return self.name_hint

    def __repr__(self):
        return self.name_hint


class DataflowVar(Var, type_key="relax.expr.DataflowVar"):
    """A variable local to a dataflow block (not visible after it)."""


class Constant(ExprWithOp, RelaxExpr, type_key="relax.expr.Constant"):
    """A constant tensor. ``data`` is a runtime tensor: ``const.data.numpy()`` works."""

    data: object

    def __init__(self, data, ty=None, span=None, *, struct_info=None):
        data = _as_tensor(data)
        ty = _pick_ty(ty, struct_info, "Constant")
        if ty is None:
            array = data.numpy()
            ty = TensorType(list(array.shape), str(array.dtype))
        self.__init_fields__(data, span=span, ty=ty)


def _as_tensor(data):
    if hasattr(data, "numpy") and not isinstance(data, np.ndarray):
        return data
    return _runtime_tensor(np.asarray(data))


def _all_exprs(items) -> bool:
    """Whether ``items`` (nested tuples/lists) holds only Relax expressions."""
    return all(
        _all_exprs(i) if isinstance(i, (tuple, list)) else isinstance(i, RelaxExpr) for i in items
    )


class Tuple(ExprWithOp, RelaxExpr, type_key="relax.expr.Tuple"):
    """A tuple of expressions; its type is known once every field has one."""

    fields: tuple

    def __init__(self, fields: Sequence[Any], span: Span | None = None) -> None:
        if isinstance(fields, Node):
            raise TypeError("relax.Tuple expects a list of expressions, got a single expression")
        # Nested Python tuples/lists of expressions are tuples too (TVM converts them).
        fields = tuple(
            Tuple(item) if isinstance(item, (tuple, list)) and _all_exprs(item) else item
            for item in fields
        )
        for i, item in enumerate(fields):
            if not isinstance(item, RelaxExpr):
                raise TypeError(f"relax.Tuple field {i} must be a Relax Expr, got {item!r}")
        tys = [item.ty for item in fields]
        ty = TupleType(tys) if all(t is not None for t in tys) else None
        self.__init_fields__(fields, span=span, ty=ty)

    def __len__(self):
        return len(self.fields)

    def __getitem__(self, index):
        return self.fields[index]


class TupleGetItem(ExprWithOp, RelaxExpr, type_key="relax.expr.TupleGetItem"):
    """``tuple_value[index]``."""

    tuple_value: RelaxExpr
    index: int

    def __init__(self, tuple_value, index, span=None):
        if not isinstance(index, int):
            raise TypeError(f"TupleGetItem index must be an int, got {index!r}")
        # Typed at construction when the tuple's type is known (as TVM).
        tuple_ty = getattr(tuple_value, "ty", None)
        fields = getattr(tuple_ty, "fields", None) if isinstance(tuple_ty, TupleType) else None
        ty = fields[index] if fields is not None and 0 <= index < len(fields) else None
        self.__init_fields__(tuple_value, index, span=span, ty=ty)


class Call(ExprWithOp, RelaxExpr, type_key="relax.expr.Call"):
    """A call of an ``Op``, a ``GlobalVar``, an ``ExternFunc`` or a function-typed Var.

    Parameters
    ----------
    op : Op, Expr or str
        A string is looked up with ``Op.get``.
    args : list of Expr
    attrs : Attrs, optional
        The op's attribute node (e.g. ``relax.attrs.MatmulAttrs``).
    ty_args : list of Type, optional
        Types given explicitly at the call (``sinfo_args`` is the seed-era name), as used by
        ``call_tir``'s output type or ``call_packed``'s return type.
    """

    op: RelaxExpr
    args: tuple
    attrs: object = None
    ty_args: tuple = ()

    def __init__(
        self, op, args, attrs=None, ty_args=None, span=None, *, sinfo_args=None, ret_ty=None
    ):
        if isinstance(op, str):
            op = Op.get(op)
        if sinfo_args is not None:
            ty_args = sinfo_args
        if isinstance(attrs, dict):
            attrs = DictAttrs(attrs)
        if isinstance(ty_args, Type):
            ty_args = (ty_args,)
        args = tuple(args)
        for i, item in enumerate(args):
            if not isinstance(item, RelaxExpr):
                raise TypeError(f"Call argument {i} must be a Relax Expr, got {item!r}")
        self.__init_fields__(
            op, args, attrs, tuple(ty_args or ()), span=span, ty=_check_type(ret_ty, "Call ret_ty")
        )

    @property
    def sinfo_args(self):
        """Seed-era name of :attr:`ty_args`."""
        return self.ty_args


class ShapeExpr(ExprWithOp, RelaxExpr, type_key="relax.expr.ShapeExpr"):
    """A shape value made of int64 PrimExprs (``R.shape([n, 4])``)."""

    values: tuple

    def __init__(self, values: Sequence[PrimExpr | int], span: Span | None = None) -> None:
        values = tuple(as_prim_expr(v) for v in values)
        self.__init_fields__(values, span=span, ty=ShapeType(values))

    # A shape indexes, measures and iterates as its dimensions (as in TVM 0.27), not as a
    # Relax tuple (``TupleGetItem``).
    def __getitem__(self, index):
        if not isinstance(index, int):
            raise TypeError(f"ShapeExpr index must be an int, got {type(index).__name__}")
        if index >= len(self.values) or index < -len(self.values):
            raise IndexError(f"ShapeExpr index {index} out of range for {len(self.values)} dims")
        return self.values[index]

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(self.values)


class PrimValue(ExprWithOp, RelaxExpr, type_key="relax.expr.PrimValue"):
    """A scalar PrimExpr used as a Relax value (``R.prim_value(3)``)."""

    value: object

    def __init__(self, value, span=None):
        if isinstance(value, bool):
            value = _tir_imm("bool", value)
        elif isinstance(value, int):
            value = as_prim_expr(value, "int64")
        elif isinstance(value, float):
            value = _tir_imm("float64", value)
        self.__init_fields__(value, span=span, ty=PrimType(value.dtype, value))


def _tir_imm(dtype, value):
    from .ty import _tir

    tir = _tir()
    if dtype.startswith("float"):
        return tir.FloatImm(dtype, value)
    return tir.IntImm(dtype, value)


class StringImm(ExprWithOp, RelaxExpr, type_key="relax.expr.StringImm"):
    """A string value (``R.str("...")``)."""

    value: str

    def __init__(self, value, span=None):
        if not isinstance(value, str):
            raise TypeError(f"StringImm expects a str, got {value!r}")
        self.__init_fields__(value, span=span, ty=StringType())


class DataTypeImm(ExprWithOp, RelaxExpr, type_key="relax.expr.DataTypeImm"):
    """A dtype value (``R.dtype("float32")``)."""

    value: str

    def __init__(self, value, span=None):
        self.__init_fields__(str(value), span=span, ty=ObjectType())


class If(ExprWithOp, RelaxExpr, type_key="relax.expr.If"):
    """``if cond: true_branch else: false_branch``; branches become SeqExprs when normalized."""

    cond: RelaxExpr
    true_branch: RelaxExpr
    false_branch: RelaxExpr

    def __init__(self, cond, true_branch, false_branch, span=None):
        self.__init_fields__(cond, true_branch, false_branch, span=span)


class Binding(Scriptable, Node, type_key="relax.expr.Binding"):
    """Base class of bindings (a variable defined by a value)."""

    span: object = field(None, role=IGNORE, kw_only=True)


class VarBinding(Binding, type_key="relax.expr.VarBinding"):
    """``var = value``."""

    var: Var = field(role=DEF)
    value: RelaxExpr

    def __init__(self, var, value, span=None):
        if not isinstance(var, Var):
            raise TypeError(f"VarBinding var must be a relax.Var, got {var!r}")
        if not isinstance(value, Node):
            raise TypeError(f"VarBinding value must be an expression, got {value!r}")
        self.__init_fields__(var, value, span=span)


class MatchCast(Binding, type_key="relax.expr.MatchCast"):
    """``var = R.match_cast(value, ty)``: a checked cast that may define symbolic vars."""

    var: Var = field(role=DEF)
    value: RelaxExpr
    ty: Type = field(role=DEF)

    def __init__(self, var, value, ty=None, span=None, *, struct_info=None):
        ty = _pick_ty(ty, struct_info, "MatchCast")
        if ty is None:
            raise TypeError("MatchCast requires the target type (ty=)")
        if not isinstance(var, Var):
            raise TypeError(f"MatchCast var must be a relax.Var, got {var!r}")
        self.__init_fields__(var, value, ty, span=span)

    @property
    def struct_info(self):
        """The type the value is cast to (TVM's name for ``ty``)."""
        return self.ty


class BindingBlock(Scriptable, Node, type_key="relax.expr.BindingBlock"):
    """A sequence of bindings."""

    bindings: tuple
    span: object = field(None, role=IGNORE, kw_only=True)

    def __init__(self, bindings, span=None):
        bindings = tuple(bindings)
        for i, item in enumerate(bindings):
            if not isinstance(item, Binding):
                raise TypeError(
                    f"{type(self).__name__} binding {i} must be a Binding, got {item!r}"
                )
        self.__init_fields__(bindings, span=span)


class DataflowBlock(BindingBlock, type_key="relax.expr.DataflowBlock"):
    """A side-effect-free binding block (``with R.dataflow():``)."""


class SeqExpr(ExprWithOp, RelaxExpr, type_key="relax.expr.SeqExpr"):
    """Binding blocks followed by a result expression (a function body, an If branch)."""

    blocks: tuple
    body: RelaxExpr

    def __init__(self, blocks, body, span=None):
        blocks = tuple(blocks)
        for i, item in enumerate(blocks):
            if not isinstance(item, BindingBlock):
                raise TypeError(f"SeqExpr block {i} must be a BindingBlock, got {item!r}")
        # ``SeqExpr([], leaf)`` is already normal: its type is the leaf's.
        ty = None
        if not blocks and isinstance(body, (Var, Constant, ShapeExpr, PrimValue)):
            ty = body.ty
        self.__init_fields__(blocks, body, span=span, ty=ty)


def function_keeping_ret_ty(func, ret_ty):
    """``func`` with ``ret_ty`` as its return type even where its body's type is more precise
    (the form TVM's passes keep when they update a function in place rather than build a new
    one, e.g. ``LambdaLift``)."""
    new = Function.__new__(Function)
    new.__init_fields__(
        func.params,
        func.body,
        ret_ty,
        func.is_pure,
        func.attrs,
        span=func.span,
        ty=_function_type(func.params, ret_ty, func.is_pure),
    )
    return new


def _refined_ret_ty(params, ret_ty, body_ty):
    """As TVM's ``Function``: a declared return type that is a base of the body's type is
    replaced by the body's (more precise) type, keeping only the symbolic variables the
    parameters define (``-> R.Tensor(ndim=4)`` over a ``(2, 3, 16, 32)`` body becomes
    ``R.Tensor((2, 3, 16, 32))``)."""
    # Lazy: the type analysis imports this module.
    from ..ffi.structural import structural_equal
    from .analysis.type_analysis import is_base_of

    if ret_ty is body_ty or not isinstance(ret_ty, Type) or not is_base_of(ret_ty, body_ty):
        return ret_ty
    if structural_equal(ret_ty, body_ty, map_free_vars=True):
        return ret_ty
    return _body_ret_ty(params, body_ty)


def _body_ret_ty(params, body_ty):
    """The body's type as a return type: only the symbolic variables the parameters define
    are kept (TVM's ``EraseToWellDefined`` of ``Function``)."""
    # Lazy: the type analysis imports this module.
    from .analysis.type_analysis import definable_tir_vars_in_type, erase_to_well_defined

    defined = []
    for param in params:
        if getattr(param, "ty", None) is not None:
            defined.extend(definable_tir_vars_in_type(param.ty))
    return erase_to_well_defined(body_ty, {v: v for v in defined})


class Function(ExprWithOp, BaseFunc, type_key="relax.expr.Function"):
    """A Relax function.

    Parameters
    ----------
    params : list of Var
        Definition sites; their annotations (and symbolic vars in them) are part of the
        function's signature.
    body : Expr
        Normalized to a ``SeqExpr`` by the BlockBuilder.
    ret_ty : Type, optional
        The return annotation (``ret_struct_info`` is the seed-era keyword); defaults to the
        body's type when known.
    is_pure : bool
    attrs : dict or DictAttrs, optional
    """

    params: tuple = field(role=DEF)
    body: RelaxExpr
    ret_ty: object = None
    is_pure: bool = True
    attrs: object = None

    def __init__(
        self,
        params,
        body,
        ret_ty=None,
        is_pure=True,
        attrs=None,
        span=None,
        *,
        ret_struct_info=None,
    ):
        params = tuple(params)
        for i, item in enumerate(params):
            if not isinstance(item, Var):
                raise TypeError(f"Function param {i} must be a relax.Var, got {item!r}")
        ret_ty = _pick_ty(ret_ty, ret_struct_info, "Function ret")
        if ret_ty is None and body is not None:
            ret_ty = body.ty
        elif body is not None and getattr(body, "ty", None) is not None:
            ret_ty = _refined_ret_ty(params, ret_ty, body.ty)
        # As in TVM, a function always has a (possibly empty) DictAttrs.
        if not isinstance(attrs, DictAttrs):
            attrs = DictAttrs(dict(attrs or {}))
        self.__init_fields__(
            params,
            body,
            ret_ty,
            bool(is_pure),
            attrs,
            span=span,
            ty=_function_type(params, ret_ty, is_pure),
        )

    @staticmethod
    def create_empty(params, ret_ty, is_pure=True, attrs=None, span=None):
        """A function with a signature but no body (a forward declaration)."""
        return Function(params, None, ret_ty, is_pure, attrs, span)

    def with_attr(self, attr_key, attr_value) -> Function:
        """A copy with function attribute ``attr_key`` set."""
        attrs = DictAttrs({}) if self.attrs is None else self.attrs
        return self._with(attrs.with_attr(attr_key, attr_value))

    def with_attrs(self, attr_map) -> Function:
        """A copy of the function with every attribute of ``attr_map`` set."""
        func = self
        for key, value in dict(attr_map).items():
            func = func.with_attr(key, value)
        return func

    def without_attr(self, attr_key) -> Function:
        """A copy without function attribute ``attr_key``."""
        if self.attrs is None or attr_key not in self.attrs:
            return self
        return self._with(self.attrs.without_attr(attr_key))

    def _with(self, attrs):
        new = self.replace(attrs=attrs)
        _set(new, "ty", self.ty)  # the signature is unchanged, keep the derived type
        return new

    def get_attr(self, key, default=None):
        """The function attribute ``key``, or ``default`` when it is not set."""
        return default if self.attrs is None else self.attrs.get(key, default)

    def bind_params(self, binding_map) -> Function:
        """A copy with some parameters replaced by values, which leave the signature.

        Parameters
        ----------
        binding_map : dict
            Parameter (``relax.Var`` or its name) -> a Relax expression, or a NumPy array /
            ``tvm.runtime.Tensor`` (bound as a constant). Symbolic dims of a bound parameter
            take the value's extents everywhere in the function.

        Returns
        -------
        Function
            The function without the bound parameters (not re-normalized).
        """
        # Lazy: the transform package sits above relax.expr.
        from .transform.bind_params import bind_params

        return bind_params(self, dict(binding_map), _func_name_of(self))

    @property
    def ret_struct_info(self):
        """The declared return type (TVM's name for ``ret_ty``)."""
        return self.ret_ty

    def __call__(self, *args):
        return Call(self, args)


def _function_type(params, ret_ty, is_pure):
    """The FuncType of a signature, or None while some annotation is missing."""
    if ret_ty is None or any(p.ty is None for p in params):
        return None
    return FuncType([p.ty for p in params], ret_ty, is_pure)


class ExternFunc(ExprWithOp, BaseFunc, type_key="relax.expr.ExternFunc"):
    """A function provided by the runtime, named by ``global_symbol`` (a packed function)."""

    global_symbol: str

    def __init__(self, global_symbol, ty=None, span=None, *, struct_info=None):
        ty = _pick_ty(ty, struct_info, "ExternFunc")
        if ty is None:
            ty = FuncType.opaque_func()
        self.__init_fields__(str(global_symbol), span=span, ty=ty)


# --- helpers users call ------------------------------------------------------------------------


def const(value, dtype=None) -> Constant:
    """A constant tensor from a Python scalar, list, NumPy array or runtime tensor.

    Without ``dtype``, as in Apache TVM: ``float64`` data becomes ``float32`` and ``int64``
    data becomes ``int32`` (Python ints and floats included); a runtime tensor is used as is.

    Examples
    --------
    >>> from tvm import relax
    >>> relax.const(1.5).data.numpy()
    array(1.5, dtype=float32)
    >>> relax.const([1, 2]).ty.dtype
    'int32'
    """
    if hasattr(value, "numpy") and not isinstance(value, (np.ndarray, np.generic)):
        if dtype is None:
            return Constant(value)
        value = value.numpy()
    array = np.asarray(value)
    if dtype is not None:
        array = array.astype(dtype)
    elif array.dtype == np.float64:
        array = array.astype("float32")
    elif array.dtype == np.int64:
        array = array.astype("int32")
    return Constant(array)


def prim_value(value, dtype=None) -> PrimValue:
    """A ``PrimValue`` from a PrimExpr or a Python number (ints default to int64)."""
    if dtype is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return PrimValue(_tir_imm(dtype, value))
    return PrimValue(value)


def extern(name: str, ty=None, span=None) -> ExternFunc:
    """An ``ExternFunc`` named ``name``."""
    return ExternFunc(name, ty, span)


def make_shape(shape) -> ShapeExpr:
    """A ``ShapeExpr`` from a list of ints/PrimExprs."""
    if isinstance(shape, ShapeExpr):
        return shape
    if isinstance(shape, (list, tuple)):
        return ShapeExpr(shape)
    raise ValueError(f"make_shape expects a list/tuple of dims, got {shape!r}")


def get_shape_of(expr):
    """The shape of a tensor expression: its static ``ShapeExpr`` when known, else
    ``R.shape_of(expr)``."""
    ty = expr.ty
    if isinstance(ty, TensorType) and ty.shape is not None:
        return ty.shape
    from .op.base import shape_of

    return shape_of(expr)


def _update_type(expr, ty) -> None:
    """Set the inferred type of ``expr`` in place (``ty`` a Type, or None to clear it).

    For building IR by hand without normalization (TVM 0.27's ``relax.expr._update_type``);
    nothing is checked: ``relax.analysis.well_formed`` reports a type that does not fit.
    """
    if not isinstance(expr, RelaxExpr):
        raise TypeError(f"_update_type expects a Relax expression, got {type(expr).__name__}")
    if ty is not None and not isinstance(ty, Type):
        raise TypeError(f"_update_type expects a Type or None, got {type(ty).__name__}")
    set_field(expr, "ty", ty)
