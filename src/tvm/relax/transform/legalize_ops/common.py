"""Registering legalization rules (``FLegalize``) and helpers the family rules share.

A rule is ``rule(bb, call) -> Expr``: it receives the :class:`~tvm.relax.BlockBuilder` of the
pass and a normalized call of its op, and returns an equivalent expression made of lower
level calls, usually ``bb.call_te(topi_fn, *call.args, ...)`` (an ``R.call_tir``).
The default rules live in ``src/tvm/relax/op/<family>/legalize.py``.
"""

from __future__ import annotations

import importlib
import threading

from ....ir.op import register_attr_loader, register_op_attr
from ...expr import Constant, PrimValue, ShapeExpr, Tuple
from ...ty import ShapeType, TensorType

__all__ = ["LegalizeFunc", "load_default_rules", "register_legalize"]

#: Families whose ``legalize.py`` hold the default rules.
RULE_FAMILIES = (
    "unary",
    "binary",
    "ternary",
    "create",
    "datatype",
    "manipulate",
    "index",
    "linear_algebra",
    "statistical",
    "search",
    "qdq",
    "set",
    "nn",
    "grad",
)

LegalizeFunc = object  # rule(bb, call) -> Expr (a name TVM exports for annotations)

# "loaded" is set only once every rule module imported; "loading" lets the importing thread
# re-enter (the rule modules call register_legalize, which calls load_default_rules) while
# other threads wait on the lock (issue 22: a second thread used to see "loaded" early and
# found no rule for relax.matmul).
_LOAD_STATE = {"loaded": False, "loading": False}
_LOAD_LOCK = threading.RLock()


def load_default_rules() -> None:
    """Import every family's ``legalize.py`` once (their import registers the rules).

    Thread-safe: a thread that arrives while another imports the rules waits until all are
    registered. When an import fails, the next call tries again.
    """
    if _LOAD_STATE["loaded"]:
        return
    with _LOAD_LOCK:
        if _LOAD_STATE["loaded"] or _LOAD_STATE["loading"]:
            return  # loaded meanwhile, or this thread is inside the imports below
        _LOAD_STATE["loading"] = True
        try:
            for family in RULE_FAMILIES:
                importlib.import_module(f"tvm.relax.op.{family}.legalize")
            # The core ops of relax/op/base.py have no family folder: their rules live here.
            importlib.import_module("tvm.relax.transform.legalize_ops.base")
            _LOAD_STATE["loaded"] = True
        finally:
            _LOAD_STATE["loading"] = False


# ``Op.get(name).get_attr("FLegalize")`` sees the default rules too (TVM registers them at
# import); they are imported on that first read rather than with tvm.relax.
register_attr_loader("FLegalize", load_default_rules)


def register_legalize(op_name: str, legal_func=None, level: int = 10):
    """Register ``legal_func(bb, call)`` as the legalization rule of ``op_name``.

    Usable as a decorator. A registration with a higher ``level`` than the existing rule
    overrides it; the default rules use level 10, so a user rule of level 11 wins.

    Parameters
    ----------
    op_name : str
        The op, e.g. ``"relax.add"``.
    legal_func : callable, optional
        ``legal_func(bb, call) -> Expr``.
    level : int
        Priority of the rule.
    """
    # The defaults are loaded first so that a user rule is never overwritten by them later.
    if not op_name.startswith(("relax.memory.", "relax.builtin.", "relax.vm.")):
        load_default_rules()
    return register_op_attr(op_name, "FLegalize", legal_func, level)


# --- helpers for the family rules ----------------------------------------------------------


def has_known_shape(ty) -> bool:
    """Whether every tensor in ``ty`` has a known (possibly symbolic) shape."""
    if isinstance(ty, TensorType):
        return getattr(ty.shape, "values", None) is not None
    fields = getattr(ty, "fields", None)
    if fields is not None:
        return all(has_known_shape(f) for f in fields)
    return True


def shape_values(expr):
    """The dims of a shape argument (a ``ShapeExpr`` or an expression of known shape type)."""
    if isinstance(expr, ShapeExpr):
        return list(expr.values)
    ty = expr.ty
    if isinstance(ty, ShapeType) and ty.values is not None:
        return list(ty.values)
    raise ValueError(f"LegalizeOps: the shape {expr!r} must have known dims")


def prim_value(expr):
    """The TIR value of a ``PrimValue`` argument."""
    if isinstance(expr, PrimValue):
        return expr.value
    raise ValueError(f"LegalizeOps: expected a PrimValue argument, got {expr!r}")


def tuple_fields(expr):
    """The fields of a tuple argument (a ``Tuple`` node or a tuple-typed expression)."""
    if isinstance(expr, Tuple):
        return list(expr.fields)
    from ....ffi.node import set_field
    from ...expr import TupleGetItem

    items = []
    for i, field_ty in enumerate(expr.ty.fields):
        # Typed as the normalizer would: call_te needs each field's tensor type.
        item = TupleGetItem(expr, i)
        set_field(item, "ty", field_ty)
        items.append(item)
    return items


def out_ty(call):
    """The tensor type of the call's result."""
    return call.ty


def call_topi(topi_fn, name=None):
    """A rule calling ``topi_fn`` on every argument of the call (no attributes)."""

    def rule(bb, call):
        args = list(call.args)
        if args and not any(_tensor_input(a) for a in args):
            # call_te inlines 0-d constants as TIR literals, and topi needs one tensor (e.g.
            # ``negative(R.const(1.0))``): bind the first argument to a variable.
            args[0] = bb.emit(args[0])
        return bb.call_te(topi_fn, *args, primfunc_name_hint=name or topi_fn.__name__)

    return rule


def call_topi_with_attrs(topi_fn, name, *fields, num_args=1):
    """A rule calling ``topi_fn(*call.args[:num_args], *values)``, one value per field.

    A field names an attribute of the call: ``"ints:strides"`` (a list of ints),
    ``"int:groups"``, ``"bool:ceil_mode"``, ``"layout"`` (as is), or ``"out_dtype"`` (the
    attribute, else the call's dtype). A field that is not a string is passed as given (e.g.
    the ``"max"`` of a pooling rule is written ``["max"]``: a one-element list stands for its
    element).
    """
    readers = {"ints": lambda v: [int(x) for x in v], "int": int, "bool": bool}

    def value(call, field):
        if isinstance(field, list):
            return field[0]
        kind, _, attr = field.rpartition(":")
        if attr == "out_dtype":
            return call.attrs.out_dtype or call.ty.dtype
        raw = getattr(call.attrs, attr)
        return readers[kind](raw) if kind else raw

    def rule(bb, call):
        values = [value(call, f) for f in fields]
        return bb.call_te(topi_fn, *call.args[:num_args], *values, primfunc_name_hint=name)

    return rule


def _tensor_input(arg) -> bool:
    """Whether ``call_te`` turns ``arg`` into a te tensor (0-d constants become literals)."""
    if isinstance(arg, Constant) and arg.data.ndim == 0:
        return False
    return isinstance(arg.ty, TensorType)


def reduce_axis(extent, name):
    """``te.reduce_axis`` over ``[0, extent)`` with the start in the extent's dtype (te would
    make a literal 0 int32 next to an int64 extent, which code generation rejects)."""
    from .... import te
    from ....tirx.generic import const

    dtype = getattr(extent, "dtype", "int32")
    return te.reduce_axis((const(0, dtype), extent), name=name)
