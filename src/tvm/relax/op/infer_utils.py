"""Helpers shared by the type-inference rules of every op family.

A rule has the signature ``rule(call, bb) -> Type``: it reads the argument types
(``call.args[i].ty``) and attributes, and returns the call's type or raises ``ValueError`` /
``TypeError`` with a message naming the op and the argument.

Symbolic dims are compared with :func:`prove_equal`, which answers True, False, or None
(undecided). It uses ``tvm.arith.Analyzer`` when that package is present and otherwise
structural equality plus integer constants, which decides every static case and symbolic
dims that are literally the same expression.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ..ir_types import IntImm64
from ..ty import ObjectType, ShapeType, TensorType

__all__ = [
    "binary_dtype",
    "broadcast_shapes",
    "dim_text",
    "is_one",
    "known_shape",
    "make_tensor_type",
    "normalize_axes",
    "op_name",
    "prove_equal",
    "reduced_tensor_type",
    "shape_arg_values",
    "shape_text",
    "simplify",
    "static_dim",
    "tensor_arg",
    "tensor_args",
    "text",
]


def op_name(call) -> str:
    """``"add"`` for ``relax.add``: the short name used in messages."""
    name = getattr(call.op, "name", "")
    return name.removeprefix("relax.")


def text(obj) -> str:
    """TVMScript text of an IR object for messages (repr when the printer is unavailable)."""
    try:
        # A PrimType's str is its bare dtype (as 0.27); messages show its script form.
        return repr(obj) if type(obj).__name__ == "PrimType" else str(obj)
    except Exception:  # noqa: BLE001 - a message must never fail to render
        return repr(obj)


def dim_text(value) -> str:
    """A shape dim as TVMScript prints it inside messages: ``T.int64(4)`` or ``n``."""
    if type(value).__name__ == "IntImm":
        return f"T.{value.dtype}({value.value})"
    return text(value)


def _dim_plain(value) -> str:
    if type(value).__name__ == "IntImm":
        return str(value.value)
    return text(value)


def shape_text(ty) -> str:
    """``R.shape([3, 4])`` for a tensor type with a known shape (else its type text)."""
    values = known_shape(ty)
    if values is None:
        return text(ty.shape if getattr(ty, "shape", None) is not None else ty)
    return "R.shape([" + ", ".join(_dim_plain(v) for v in values) + "])"


def tensor_arg(call, index: int, role: str = ""):
    """The TensorType of argument ``index``; TypeError naming the op and argument otherwise."""
    arg = call.args[index]
    ty = arg.ty
    if not isinstance(ty, TensorType):
        which = role or f"argument {index}"
        raise TypeError(
            f"Operator {op_name(call)} expects the {which} to be a Tensor, but {text(arg)} "
            f"has type {text(ty)}"
        )
    return ty


def tensor_args(call, count: int):
    """The TensorTypes of the call's arguments, checking there are exactly ``count``.

    Parameters
    ----------
    call : relax.Call
        The operator call being inferred.
    count : int
        The number of arguments the operator takes.

    Returns
    -------
    list of TensorType

    Raises
    ------
    TypeError
        When the argument count differs, or an argument is not a tensor (naming the op).
    """
    if len(call.args) != count:
        raise TypeError(
            f"Operator {op_name(call)} expects {count} arguments, but got {len(call.args)}"
        )
    return [tensor_arg(call, i) for i in range(count)]


def static_dim(value):
    """The int value of a constant dim, else None."""
    if type(value).__name__ == "IntImm":
        return value.value
    return None


def _analyzer():
    try:
        from ...arith import Analyzer
    except ImportError:
        return None
    return Analyzer()


def prove_equal(lhs, rhs):
    """True/False when provable, None when undecided (symbolic dims)."""
    a, b = static_dim(lhs), static_dim(rhs)
    if a is not None and b is not None:
        return a == b
    if lhs is rhs or structural_equal(lhs, rhs, map_free_vars=False):
        return True
    analyzer = _analyzer()
    if analyzer is not None:
        try:
            if analyzer.can_prove_equal(lhs, rhs):
                return True
            diff = analyzer.simplify(lhs - rhs)
            if static_dim(diff) is not None:
                return diff.value == 0
        except Exception:  # noqa: BLE001 - an analyzer failure just leaves it undecided
            return None
    return None


def simplify(expr):
    """``expr`` simplified by ``tvm.arith.Analyzer`` when available (else unchanged)."""
    analyzer = _analyzer()
    if analyzer is None:
        return expr
    try:
        return analyzer.simplify(expr)
    except Exception:  # noqa: BLE001 - the unsimplified expression is still correct
        return expr


def is_one(value) -> bool:
    """Whether ``value`` is the constant dimension 1 (a symbolic dim is not)."""
    return static_dim(value) == 1


def known_shape(ty):
    """The tuple of dims of a TensorType/ShapeType whose dims are known, else None."""
    if isinstance(ty, ShapeType):
        return ty.values
    shape = getattr(ty, "shape", None)
    return getattr(shape, "values", None)


def make_tensor_type(shape_values, dtype, ndim=-1, vdevice=None):
    """A TensorType from dims (or from ``ndim`` alone when ``shape_values`` is None)."""
    if shape_values is None and ndim == 0:
        shape_values = []  # a 0-d tensor's shape is known: ``R.Tensor((), ...)`` as in TVM
    if shape_values is not None:
        return TensorType(list(shape_values), dtype, vdevice)
    return TensorType(None, dtype, vdevice, ndim)


def reduced_tensor_type(data, axes, keepdims: bool, dtype: str):
    """The type of reducing ``data`` (ndim known) over ``axes``: those dims are dropped, or
    kept as 1 with ``keepdims``."""
    out_ndim = data.ndim if keepdims else data.ndim - len(axes)
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, dtype, out_ndim, data.vdevice)
    out = []
    for i, dim in enumerate(values):
        if i in axes:
            if keepdims:
                out.append(IntImm64(1))
        else:
            out.append(dim)
    return make_tensor_type(out, dtype, out_ndim, data.vdevice)


def binary_dtype(call, lhs, rhs) -> str:
    """The common dtype of two operands; TypeError if they differ.

    As in Apache TVM 0.27, an unknown dtype (``"void"``) matches only another unknown dtype.
    """
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            "Binary operators must have the same datatype for both operands.  However, "
            f"{text(call)} uses datatype T.{lhs.dtype} on the LHS (Type of {text(lhs)}), and "
            f"datatype T.{rhs.dtype} on the RHS (Type of {text(rhs)})."
        )
    return lhs.dtype


def broadcast_shapes(call, lhs_values, rhs_values):
    """NumPy-style broadcast of two dim tuples; None when a symbolic pair is undecided."""
    out = []
    n_l, n_r = len(lhs_values), len(rhs_values)
    for i in range(1, max(n_l, n_r) + 1):
        a = lhs_values[n_l - i] if i <= n_l else None
        b = rhs_values[n_r - i] if i <= n_r else None
        if a is None:
            out.append(b)
        elif b is None or is_one(b):
            out.append(a)
        elif is_one(a):
            out.append(b)
        else:
            same = prove_equal(a, b)
            if same is None:
                return None
            if not same:
                raise ValueError(
                    f"In {call.op.name}, the first input shape at dim {n_l - i} is "
                    f"{dim_text(a)} and the second input shape at dim {n_r - i} is "
                    f"{dim_text(b)}, which are not broadcastable."
                )
            out.append(a)
    out.reverse()
    return out


def normalize_axes(call, ndim: int, axes):
    """Axes made non-negative, range-checked and checked unique (``ndim`` must be known)."""
    result = []
    for axis in axes:
        axis = int(axis)
        if not -ndim <= axis < ndim:
            raise ValueError(
                f"In {call.op.name}, the input axis {axis} is out of range. The input tensor "
                f"has {ndim} dimensions, so axis should be in range [-{ndim}, {ndim})."
            )
        axis = axis + ndim if axis < 0 else axis
        if axis in result:
            raise ValueError(
                f"In {call.op.name}, the input axes is required to be non-repetitive. "
                f"However, there are multiple given axes referring to axis {axis}"
            )
        result.append(axis)
    return result


def shape_arg_values(call, index: int):
    """Dims of a shape argument (a ShapeExpr or shape-typed value): ``(values, ndim)``."""
    arg = call.args[index]
    ty = arg.ty
    if not isinstance(ty, ShapeType):
        raise TypeError(
            f"Operator {op_name(call)} expects argument {index} to be a shape, but {text(arg)} "
            f"has type {text(ty)}"
        )
    return ty.values, ty.ndim


def object_type(_call=None, _bb=None):
    """A rule giving ``R.Object``."""
    return ObjectType()


# --- helpers of the op library families (unary, nn, index, ...) -------------------------------


def same_type_as(data, dtype=None):
    """``data``'s type (shape, ndim, vdevice kept) with ``dtype`` when given."""
    if dtype is None:
        return data
    return TensorType(data.shape, dtype, data.vdevice, data.ndim)


def is_float_dtype(dtype: str) -> bool:
    """Whether ``dtype`` is a floating-point dtype (``float*`` or ``bfloat*``)."""
    return dtype.startswith(("float", "bfloat"))


def is_int_dtype(dtype: str) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype (``int*`` or ``uint*``)."""
    return dtype.startswith(("int", "uint"))


def require_float(call, data, name: str = "") -> None:
    """TypeError unless ``data``'s dtype is a float dtype (unknown "void" is accepted)."""
    if data.dtype != "void" and not is_float_dtype(data.dtype):
        raise TypeError(
            f"{name or op_name(call)} requires the input tensor to have float dtype. However, "
            f"the given input dtype is T.{data.dtype}"
        )


def require_int(call, data, what: str = "input tensor", name: str = "") -> None:
    """TypeError unless ``data``'s dtype is an integer dtype (unknown "void" is accepted)."""
    if data.dtype != "void" and not is_int_dtype(data.dtype):
        short = what.split()[-1] if what.startswith("input ") else what
        raise TypeError(
            f"{name or op_name(call)} requires the {what} to have integer dtype. However, the "
            f"given {short} dtype is T.{data.dtype}"
        )


def normalize_axis(call, ndim: int, axis) -> int:
    """One axis made non-negative, with TVM's out-of-range message."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"In {op_name(call)}, the input axis {axis} is out of range. The input tensor has "
            f"{ndim} dimensions, so axis should be in range [-{ndim}, {ndim})."
        )
    return axis + ndim if axis < 0 else axis


def prim_arg(call, index: int, role: str = ""):
    """The PrimExpr value of a ``PrimValue`` argument (TypeError naming the op otherwise)."""
    arg = call.args[index]
    value = getattr(arg, "value", None)
    if type(arg).__name__ != "PrimValue":
        ty = arg.ty
        if type(ty).__name__ == "PrimType":
            return getattr(ty, "value", None)
        raise TypeError(
            f"Operator {op_name(call)} expects the {role or f'argument {index}'} to be a "
            f"PrimValue, but {text(arg)} has type {text(ty)}"
        )
    return value


def product(values):
    """The product of dims (PrimExpr arithmetic folds constants)."""
    from ..ir_types import IntImm64

    result = IntImm64(1)
    for v in values:
        result = result * v
    return result


def int_list(value, what: str, name: str):
    """A list of Python ints from an int / sequence attribute (TypeError naming the op)."""
    if isinstance(value, int):
        return [int(value)]
    try:
        return [int(v) for v in value]
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{name} expects {what} to be an int or a list of ints, got {value!r}"
        ) from err


def simplify_dim(value):
    """A symbolic dim simplified by ``tvm.arith`` (``h - 3 + 1`` becomes ``h - 2``)."""
    if isinstance(value, int) or static_dim(value) is not None:
        return value
    from ...arith import Analyzer  # lazy: the analyzer is only needed for symbolic dims

    return Analyzer().simplify(value)


def prim_value_arg(value, name: str, role: str):
    """A constructor argument as a ``PrimValue``: ints, floats, bools and PrimExprs are wrapped.

    A ``PrimValue`` passes through; any other Relax expression is a TypeError naming the op
    and the argument (``eye expects n to be ...``).
    """
    from ...ir.expr import PrimExpr, RelaxExpr
    from ..expr import PrimValue

    if isinstance(value, PrimValue):
        return value
    if isinstance(value, (bool, int, float, PrimExpr)):
        return PrimValue(value)
    if isinstance(value, RelaxExpr):
        raise TypeError(
            f"{name} expects {role} to be an int, a float, a PrimExpr or a "
            f"PrimValue, but got a {type(value).__name__} of type {text(value.ty)}"
        )
    raise TypeError(
        f"{name} expects {role} to be an int, a float, a PrimExpr or a PrimValue, but got {value!r}"
    )
