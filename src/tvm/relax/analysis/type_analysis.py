"""Relations between Relax types: base checks, least common ancestor, erasure, substitution.

The types form a lattice with ``ObjectType`` on top. ``TensorType(shape=(n, 4))`` is below
``TensorType(ndim=2)``, which is below ``TensorType(ndim=-1)``, which is below ``ObjectType``.

:func:`struct_info_base_check` answers whether ``base`` is a base (a supertype) of
``derived`` with one of four :class:`BaseCheckResult` levels, as Apache TVM does: a hard
failure, a failure that a ``match_cast`` could fix at run time (``derived`` is coarser), a
symbolic question that could not be decided, and a proof.
"""

from __future__ import annotations

import enum

from ...ffi.node import Node, walk
from ...ffi.structural import structural_equal
from ...ir.type import PrimType, TupleType, Type
from ...tirx.expr import IntImm
from ..expr import ShapeExpr
from ..op.infer_utils import prove_equal
from ..ty import FuncType, ObjectType, PackedFuncType, ShapeType, TensorType

__all__ = [
    "BaseCheckResult",
    "erase_to_well_defined",
    "get_static_type",
    "is_base_of",
    "struct_info_base_check",
    "struct_info_lca",
    "substitute_type",
    "tir_vars_in",
    "type_base_check",
    "type_lca",
]


class BaseCheckResult(enum.IntEnum):
    """Outcome of a base check, ordered from worst to best."""

    #: Statically known to fail (different kinds, dtypes, ranks or constant dims).
    FAIL_L0 = 0
    #: ``derived`` is coarser than ``base`` (unknown dtype/rank/shape): a run-time check could
    #: still succeed (``match_cast``).
    FAIL_L1 = 1
    #: Symbolic dims could not be proved equal (or unequal).
    FAIL_L2 = 2
    #: ``base`` is provably a base of ``derived``.
    PASS = 3


_F0, _F1, _F2, _PASS = (
    BaseCheckResult.FAIL_L0,
    BaseCheckResult.FAIL_L1,
    BaseCheckResult.FAIL_L2,
    BaseCheckResult.PASS,
)


def _values_check(base_values, derived_values):
    if derived_values is None:
        return _F2
    if len(base_values) != len(derived_values):
        return _F0
    result = _PASS
    for a, b in zip(base_values, derived_values):
        same = prove_equal(a, b)
        if same is False:
            return _F0
        if same is None:
            result = min(result, _F2)
    return result


def struct_info_base_check(base: Type, derived: Type) -> BaseCheckResult:
    """How sure it is that every value of type ``derived`` is also of type ``base``."""
    if base is derived or isinstance(base, ObjectType):
        return _PASS
    if isinstance(derived, ObjectType):
        return _F1
    if type(base) is not type(derived):
        return _F0
    if isinstance(base, PrimType):
        if base.dtype not in ("", "void") and base.dtype != derived.dtype:
            return _F0
        if base.value is None:
            return _PASS
        if derived.value is None:
            return _F2
        same = prove_equal(base.value, derived.value)
        return _PASS if same else (_F0 if same is False else _F2)
    if isinstance(base, ShapeType):
        if base.ndim != -1 and derived.ndim == -1:
            return _F1
        if base.ndim != -1 and base.ndim != derived.ndim:
            return _F0
        if base.values is None:
            return _PASS
        return _values_check(base.values, derived.values)
    if isinstance(base, TensorType):
        return _tensor_check(base, derived)
    if isinstance(base, TupleType):
        if len(base.fields) != len(derived.fields):
            return _F0
        return _pairwise_check(base.fields, derived.fields)
    if isinstance(base, FuncType):
        return _func_check(base, derived)
    if isinstance(base, PackedFuncType):
        return _PASS
    return _PASS if structural_equal(base, derived) else _F0


_UNKNOWN_DTYPES = ("void", "")


def _tensor_check(base, derived):
    result = _PASS
    # An unknown dtype is spelled "void" (TVM's DataType::Void) or "" (as a user may pass it).
    if base.dtype not in _UNKNOWN_DTYPES:
        if derived.dtype in _UNKNOWN_DTYPES:
            result = _F1
        elif base.dtype != derived.dtype:
            return _F0
    if base.ndim != -1:
        if derived.ndim == -1:
            result = min(result, _F1)
        elif base.ndim != derived.ndim:
            return _F0
    if (
        base.vdevice is not None
        and derived.vdevice is not None
        and not structural_equal(base.vdevice, derived.vdevice)
    ):
        return _F0
    if base.shape is None:
        return result
    if derived.shape is None:
        return min(result, _F2 if derived.ndim != -1 else _F1)
    base_values = getattr(base.shape, "values", None)
    derived_values = getattr(derived.shape, "values", None)
    if base_values is not None:
        return min(result, _values_check(base_values, derived_values))
    # The base shape is a shape variable: only the same variable is provably equal.
    return min(result, _PASS if base.shape is derived.shape else _F2)


def _func_check(base, derived):
    if base.purity and not derived.purity:
        return _F0
    if base.params is None:
        return struct_info_base_check(base.ret, derived.ret)
    if derived.params is None:
        return _F2
    if len(base.params) != len(derived.params):
        return _F0
    # As in TVM, parameters are compared covariantly (not contravariantly), for simplicity.
    result = _pairwise_check(base.params, derived.params)
    if result == _F0:
        return result
    return min(result, struct_info_base_check(base.ret, derived.ret))


def _pairwise_check(bases, deriveds):
    """The weakest base check over paired types (stopping at the first failure)."""
    result = _PASS
    for b, d in zip(bases, deriveds):
        result = min(result, struct_info_base_check(b, d))
        if result == _F0:
            break
    return result


type_base_check = struct_info_base_check


def is_base_of(base: Type, derived: Type) -> bool:
    """Whether ``base`` is provably a base of ``derived``."""
    return struct_info_base_check(base, derived) == _PASS


def struct_info_lca(lhs: Type, rhs: Type) -> Type:
    """The most precise type that is a base of both (their least common ancestor)."""
    if lhs is rhs:
        return lhs
    if isinstance(lhs, ObjectType) or isinstance(rhs, ObjectType) or type(lhs) is not type(rhs):
        return ObjectType()
    if isinstance(lhs, PrimType):
        if lhs.dtype != rhs.dtype:
            return ObjectType()
        same = lhs.value is not None and rhs.value is not None and prove_equal(lhs.value, rhs.value)
        return lhs if same else PrimType(lhs.dtype)
    if isinstance(lhs, ShapeType):
        if lhs.ndim != rhs.ndim:
            return ShapeType(ndim=-1)
        if lhs.values is not None and _values_check(lhs.values, rhs.values) == _PASS:
            return lhs
        return ShapeType(ndim=lhs.ndim)
    if isinstance(lhs, TensorType):
        dtype = lhs.dtype if lhs.dtype == rhs.dtype else "void"
        ndim = lhs.ndim if lhs.ndim == rhs.ndim else -1
        vdevice = lhs.vdevice if structural_equal(lhs.vdevice, rhs.vdevice) else None
        shape = None
        if ndim != -1 and lhs.shape is not None and rhs.shape is not None:
            lvals = getattr(lhs.shape, "values", None)
            rvals = getattr(rhs.shape, "values", None)
            if (
                lvals is not None
                and _values_check(lvals, rvals) == _PASS
                or lvals is None
                and lhs.shape is rhs.shape
            ):
                shape = lhs.shape
        return TensorType(shape, dtype, vdevice, ndim if shape is None else -1)
    if isinstance(lhs, TupleType):
        if len(lhs.fields) != len(rhs.fields):
            return ObjectType()
        return TupleType([struct_info_lca(a, b) for a, b in zip(lhs.fields, rhs.fields)])
    if isinstance(lhs, FuncType):
        # When one signature is a base of the other, it is the least common ancestor.
        if struct_info_base_check(lhs, rhs) == _PASS:
            return lhs
        if struct_info_base_check(rhs, lhs) == _PASS:
            return rhs
        purity = lhs.purity and rhs.purity
        ret = struct_info_lca(lhs.ret, rhs.ret)
        if (
            lhs.params is not None
            and rhs.params is not None
            and structural_equal(lhs.params, rhs.params)
        ):
            return FuncType(lhs.params, ret, purity)
        return FuncType.opaque_func(ret=ret, purity=purity)
    return lhs if structural_equal(lhs, rhs) else ObjectType()


type_lca = struct_info_lca


def tir_vars_in(value) -> list:
    """The distinct TIR variables (PrimExpr nodes with var semantics) inside ``value``."""
    # Fast exits for what most calls are given, a static tensor type or a tuple of literal
    # dims: nothing else in them can hold a variable (a TensorType's other fields are its
    # dtype, rank and device; a ShapeExpr's its values).
    cls = type(value)
    if cls is TensorType:
        shape = value.shape
        if (value.vdevice is None and type(shape) is ShapeExpr
                and all(type(dim) is IntImm for dim in shape.values)):
            return []
    elif cls is tuple and all(type(item) is IntImm for item in value):
        return []
    seen = {}
    # Why the children hook: this runs for every shape a builder, normalizer or pass looks
    # at, and most dims are integer literals; a literal holds no variable, so it is not
    # entered (no per-node child iteration).
    for node in walk(value, children=lambda n: () if type(n) is IntImm else None):
        if node._sequal_kind == "var" and hasattr(node, "dtype") and id(node) not in seen:
            seen[id(node)] = node
    return list(seen.values())


def _defined_all(_var):
    return True


def _erase(ty, tir_defined, relax_defined):
    if isinstance(ty, TensorType):
        shape = ty.shape
        if shape is None:
            return ty
        values = getattr(shape, "values", None)
        if values is not None:
            if all(tir_defined(v) for v in tir_vars_in(values)):
                return ty
        elif relax_defined(shape):
            return ty
        return TensorType(None, ty.dtype, ty.vdevice, ty.ndim)
    if isinstance(ty, ShapeType):
        if ty.values is None or all(tir_defined(v) for v in tir_vars_in(ty.values)):
            return ty
        return ShapeType(ndim=ty.ndim)
    if isinstance(ty, PrimType):
        if ty.value is None or all(tir_defined(v) for v in tir_vars_in(ty.value)):
            return ty
        return PrimType(ty.dtype)
    if isinstance(ty, TupleType):
        fields = [_erase(f, tir_defined, relax_defined) for f in ty.fields]
        if all(a is b for a, b in zip(fields, ty.fields)):
            return ty
        return TupleType(fields)
    if isinstance(ty, FuncType) and ty.params is not None:
        # Symbolic vars in a function signature are bound by the signature itself.
        params = {id(v) for p in ty.params for v in tir_vars_in(p)}

        def inner(var):
            return id(var) in params or tir_defined(var)

        ret = _erase(ty.ret, inner, relax_defined)
        return ty if ret is ty.ret else FuncType(ty.params, ret, ty.purity)
    return ty


def erase_to_well_defined(ty: Type, shape_var_map=None, var_map=None) -> Type:
    """Drop the parts of ``ty`` that mention variables not in scope.

    Symbolic TIR variables are in scope when they are keys of ``shape_var_map`` (and are then
    replaced by their value); Relax variables when they are keys of ``var_map``. With no maps,
    every variable is out of scope, so symbolic shapes are erased to their rank.
    """
    shape_var_map = dict(shape_var_map or {})
    var_map = dict(var_map or {})
    if shape_var_map:
        ty = substitute_type(ty, shape_var_map)
        values = {id(v) for v in shape_var_map.values()}
    else:
        values = set()
    keys = {id(k) for k in shape_var_map}
    relax_keys = {id(k) for k in var_map}

    def tir_defined(var):
        return id(var) in keys or id(var) in values

    def relax_defined(var):
        return id(var) in relax_keys

    return _erase(ty, tir_defined, relax_defined)


def get_static_type(ty: Type) -> Type:
    """A coarser type without symbolic or shape detail: tensors keep only dtype and rank."""
    if isinstance(ty, TensorType):
        return TensorType(None, ty.dtype, ty.vdevice, ty.ndim)
    if isinstance(ty, ShapeType):
        return ShapeType(ndim=ty.ndim)
    if isinstance(ty, PrimType):
        return PrimType(ty.dtype)
    if isinstance(ty, TupleType):
        return TupleType([get_static_type(f) for f in ty.fields])
    if isinstance(ty, FuncType):
        params = None if ty.params is None else [get_static_type(p) for p in ty.params]
        return FuncType(params, get_static_type(ty.ret), ty.purity)
    return ty


def _simplify(expr):
    try:
        from ...arith import Analyzer
    except ImportError:
        return expr
    try:
        return Analyzer().simplify(expr)
    except Exception:  # noqa: BLE001 - keep the unsimplified (still correct) expression
        return expr


def _subst_expr(value, mapping):
    """Replace TIR variables in a PrimExpr tree (recursive; PrimExprs in types are small)."""
    if not isinstance(value, Node):
        if isinstance(value, tuple):
            items = tuple(_subst_expr(v, mapping) for v in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        return value
    hit = mapping.get(id(value))
    if hit is not None:
        return hit
    changes = {}
    for fobj in value._fields:
        if fobj.role == "ignore":
            continue
        old = getattr(value, fobj.name)
        new = _subst_expr(old, mapping)
        if new is not old:
            changes[fobj.name] = new
    if not changes:
        return value
    if type(value).__name__ == "ShapeExpr":
        return type(value)(changes.get("values", value.values))
    return _simplify(value.replace(**changes))


def substitute_type(ty: Type, mapping) -> Type:
    """``ty`` with TIR variables replaced: ``mapping`` is ``{tir Var: PrimExpr}``."""
    if not mapping:
        return ty
    by_id = {id(k): v for k, v in mapping.items()}
    return _subst_type(ty, by_id)


def _subst_type(ty, by_id):
    if isinstance(ty, TensorType):
        if ty.shape is None or getattr(ty.shape, "values", None) is None:
            return ty
        values = tuple(_subst_expr(v, by_id) for v in ty.shape.values)
        if all(a is b for a, b in zip(values, ty.shape.values)):
            return ty
        return TensorType(list(values), ty.dtype, ty.vdevice)
    if isinstance(ty, ShapeType):
        if ty.values is None:
            return ty
        values = tuple(_subst_expr(v, by_id) for v in ty.values)
        return ty if all(a is b for a, b in zip(values, ty.values)) else ShapeType(values)
    if isinstance(ty, PrimType):
        if ty.value is None:
            return ty
        value = _subst_expr(ty.value, by_id)
        return ty if value is ty.value else PrimType(ty.dtype, value)
    if isinstance(ty, TupleType):
        fields = [_subst_type(f, by_id) for f in ty.fields]
        return ty if all(a is b for a, b in zip(fields, ty.fields)) else TupleType(fields)
    if isinstance(ty, FuncType):
        params = None if ty.params is None else [_subst_type(p, by_id) for p in ty.params]
        ret = _subst_type(ty.ret, by_id)
        return FuncType(params, ret, ty.purity)
    return ty


def tir_vars_in_type(ty: Type) -> list:
    """Every symbolic TIR variable used in ``ty`` (in order of first use)."""
    return tir_vars_in(ty)


def definable_tir_vars_in_type(ty: Type) -> list:
    """The TIR variables ``ty`` can *define*: those appearing bare as a dim or prim value.

    In ``R.Tensor((n * 2, n))`` only ``n`` (the second dim) is definable.
    """
    found = {}

    def visit(t):
        if isinstance(t, TensorType):
            for value in getattr(t.shape, "values", None) or ():
                if value._sequal_kind == "var":
                    found.setdefault(id(value), value)
        elif isinstance(t, ShapeType):
            for value in t.values or ():
                if value._sequal_kind == "var":
                    found.setdefault(id(value), value)
        elif isinstance(t, PrimType):
            if t.value is not None and t.value._sequal_kind == "var":
                found.setdefault(id(t.value), t.value)
        elif isinstance(t, TupleType):
            for field in t.fields:
                visit(field)

    visit(ty)
    return list(found.values())


def derive_call_ret_type(func_ty: FuncType, call, ctx=None) -> Type:
    """The type of ``call`` to a function of type ``func_ty``.

    The argument count and each argument's type are checked against the parameters first, as
    TVM 0.27 does: an argument whose type provably cannot match (a different kind, dtype, rank,
    constant extent or tuple arity) or is coarser than the parameter (unknown dtype or rank,
    ``R.Object`` for a tensor: it would need a ``match_cast``) raises ``ValueError``; symbolic
    dims that cannot be decided statically are accepted. The callee's symbolic parameters (bare
    dims of its parameter types) are then bound against the argument types and substituted
    into the return type; callee variables left unbound are erased from the result. An opaque
    ``func_ty`` gives its ``ret``. ``ctx`` (the BlockBuilder) is accepted for TVM compatibility.
    """
    if func_ty.params is None:
        return func_ty.ret
    _check_call_args(func_ty, call)
    mapping = {}
    for param_ty, arg in zip(func_ty.params, call.args):
        _bind_symbols(param_ty, arg.ty, mapping)
    # Every symbolic var of the signature is the callee's own: the unbound ones must not leak
    # into the caller, so they are erased before the bound ones are substituted.
    ret = func_ty.ret
    own = {id(v) for v in tir_vars_in(func_ty.params)} | {id(v) for v in tir_vars_in(ret)}
    if own:
        bound = {id(k) for k in mapping}
        ret = _erase(ret, lambda v: id(v) not in own or id(v) in bound, _defined_all)
    return substitute_type(ret, mapping) if mapping else ret


def _check_call_args(func_ty, call):
    """Raise ``ValueError`` (TVM 0.27's wording) when the arguments cannot fit the parameters."""
    from ..op.infer_utils import text  # lazy: message rendering only

    params, args = func_ty.params, call.args
    if len(args) != len(params):
        # TVM shows the argument array as a tuple inside parentheses: ``((x,))``.
        shown = ", ".join(text(a) for a in args)
        shown = f"(({shown},))" if len(args) == 1 else f"(({shown}))"
        raise ValueError(
            f"Number of arguments and parameters mismatch: Function {text(call.op)} has type "
            f"{text(func_ty)} and accepts {len(params)} parameters, but was called with "
            f"{len(args)} arguments {shown}"
        )
    for index, (param_ty, arg) in enumerate(zip(params, args)):
        arg_ty = arg.ty
        if arg_ty is None:
            continue  # not normalized yet: nothing to compare
        # As TVM: FAIL_L2 (symbolic dims undecided) passes, a hard or coarser mismatch fails.
        if struct_info_base_check(param_ty, arg_ty) <= _F1:
            # TVM's message names no callee; ours adds it when the callee has a name.
            name = getattr(call.op, "name_hint", None)
            where = f" (in a call to {name})" if name else ""
            raise ValueError(
                f"Argument {index} type mismatch: expected {text(param_ty)}, given "
                f"{text(arg_ty)}{where}"
            )


def _bind_symbols(param_ty, arg_ty, mapping):
    """Match the bare symbolic dims of a parameter type against an argument type."""
    if isinstance(param_ty, TensorType) and isinstance(arg_ty, TensorType):
        pvals = getattr(param_ty.shape, "values", None)
        avals = getattr(arg_ty.shape, "values", None)
        if pvals is not None and avals is not None and len(pvals) == len(avals):
            _bind_values(pvals, avals, mapping)
    elif isinstance(param_ty, ShapeType) and isinstance(arg_ty, ShapeType):
        if param_ty.values is not None and arg_ty.values is not None:
            _bind_values(param_ty.values, arg_ty.values, mapping)
    elif isinstance(param_ty, PrimType) and isinstance(arg_ty, PrimType):
        if param_ty.value is not None and arg_ty.value is not None:
            _bind_values([param_ty.value], [arg_ty.value], mapping)
    elif isinstance(param_ty, TupleType) and isinstance(arg_ty, TupleType):
        for p, a in zip(param_ty.fields, arg_ty.fields):
            _bind_symbols(p, a, mapping)


def _bind_values(params, args, mapping):
    for p, a in zip(params, args):
        if p._sequal_kind == "var" and not any(k is p for k in mapping):
            mapping[p] = a
