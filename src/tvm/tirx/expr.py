"""TIR scalar expressions (``tvm.tirx`` PrimExprs): variables, constants, arithmetic and calls.

Every class here is a declared node (:mod:`tvm.ffi.node`) deriving from ``ir.PrimExpr``, so it
carries a ``dtype`` string and compares structurally. Constructors validate their operands the
way TVM does (matching dtypes, boolean conditions) and raise ``TypeError``/``ValueError`` with
the offending dtypes in the message.

The Python operators (``+``, ``//``, ``<``, ``==``, ...) come from :class:`ExprOp`. They do
*more* than the node constructors: they convert Python numbers, promote dtypes and fold
constants, exactly as ``tvm.tirx`` does (``x + 0`` is ``x``; ``IntImm + IntImm`` is an
``IntImm``). The rules live in :mod:`tvm.tirx.generic`.

``x == y`` returns an :class:`EqualOp`: usable as an expression (it becomes ``EQ``) and, in an
``if``, true only when both sides are the same object, as in TVM. PrimExprs hash by identity,
so they are usable as dictionary keys.

Node types defined elsewhere in ``tvm.tirx`` (``BufferLoad``, ``Reduce``, ...) derive from
:class:`PrimExprWithOp` to get the same operators.

Examples
--------
>>> from tvm import tirx
>>> n = tirx.Var("n", "int64")
>>> n * 4 // 2
n * T.int64(4) // T.int64(2)
>>> tirx.IntImm("int32", 2) + 3
5
"""

from __future__ import annotations

from ..ffi.node import DEF, IGNORE, Node, field
from ..ir.expr import PrimExpr
from ..ir.op import Op
from ..ir.type import PointerType, PrimType
from ..runtime.data_type import dtype_info, normalize_dtype, with_lanes

__all__ = [
    "EQ",
    "GE",
    "GT",
    "LE",
    "LT",
    "NE",
    "Add",
    "And",
    "BinaryOpExpr",
    "BitwiseAnd",
    "BitwiseNot",
    "BitwiseOr",
    "BitwiseXor",
    "Broadcast",
    "Call",
    "Cast",
    "CmpExpr",
    "ConstExpr",
    "Div",
    "EqualOp",
    "ExprOp",
    "FloatImm",
    "FloorDiv",
    "FloorMod",
    "IntImm",
    "LShift",
    "Let",
    "Max",
    "Min",
    "Mod",
    "Mul",
    "Not",
    "NotEqualOp",
    "Or",
    "PrimExprWithOp",
    "RShift",
    "Ramp",
    "Select",
    "Shuffle",
    "SizeVar",
    "StringImm",
    "Sub",
    "Var",
]

_BOOL_HINT = (
    "Cannot use and / or / not operator to Expr, hint: use tvm.tirx.all / tvm.tirx.any, "
    "if it is None checking, use node is not None"
)


class ExprOp:
    """Python operator overloading for PrimExprs (a mixin; the rules are in ``generic``)."""

    __slots__ = ()

    # --- arithmetic -----------------------------------------------------------------------
    def __add__(self, other):
        return _generic.add(self, other)

    def __radd__(self, other):
        return _generic.add(other, self)

    def __sub__(self, other):
        return _generic.subtract(self, other)

    def __rsub__(self, other):
        return _generic.subtract(other, self)

    def __mul__(self, other):
        return _generic.multiply(self, other)

    def __rmul__(self, other):
        return _generic.multiply(other, self)

    def __truediv__(self, other):
        return _generic.true_divide(self, other)

    def __rtruediv__(self, other):
        return _generic.true_divide(other, self)

    def __floordiv__(self, other):
        return _generic.floordiv(self, other)

    def __rfloordiv__(self, other):
        return _generic.floordiv(other, self)

    def __mod__(self, other):
        return _generic.floormod(self, other)

    def __rmod__(self, other):
        return _generic.floormod(other, self)

    def __neg__(self):
        return _generic.negate(self)

    # --- bitwise --------------------------------------------------------------------------
    def __lshift__(self, other):
        return _generic.left_shift(self, other)

    def __rlshift__(self, other):
        return _generic.left_shift(other, self)

    def __rshift__(self, other):
        return _generic.right_shift(self, other)

    def __rrshift__(self, other):
        return _generic.right_shift(other, self)

    def __and__(self, other):
        return _generic.bitwise_and(self, other)

    def __rand__(self, other):
        return _generic.bitwise_and(other, self)

    def __or__(self, other):
        return _generic.bitwise_or(self, other)

    def __ror__(self, other):
        return _generic.bitwise_or(other, self)

    def __xor__(self, other):
        return _generic.bitwise_xor(self, other)

    def __rxor__(self, other):
        return _generic.bitwise_xor(other, self)

    def __invert__(self):
        return _generic.bitwise_not(self)

    # --- comparison -----------------------------------------------------------------------
    def __lt__(self, other):
        return _generic.less(self, other)

    def __le__(self, other):
        return _generic.less_equal(self, other)

    def __gt__(self, other):
        return _generic.greater(self, other)

    def __ge__(self, other):
        return _generic.greater_equal(self, other)

    def __eq__(self, other):
        return _generic.equal_op(self, other)

    def __ne__(self, other):
        return _generic.not_equal_op(self, other)

    # Identity hash (as TVM's ObjectRef), so expressions work as dict keys despite ``__eq__``.
    __hash__ = object.__hash__

    def __bool__(self):
        raise ValueError(_BOOL_HINT)

    def equal(self, other, span=None):
        """Build ``self == other`` as an ``EQ`` expression (never a Python bool)."""
        return _generic.equal(self, other, span)

    def astype(self, dtype, span=None):
        """Cast to ``dtype`` (constants fold; a same-dtype cast returns ``self``)."""
        return _generic.cast(self, dtype, span)

    def __repr__(self):
        return _text.expr_text(self)


class PrimExprWithOp(ExprOp, PrimExpr, type_key="tirx.PrimExprWithOp"):
    """Base of every ``tvm.tirx`` expression node: a PrimExpr with Python operators."""


class _CmpOp:
    """Result of ``a == b`` / ``a != b``: an expression, and an identity test in ``if``."""

    __slots__ = ("a", "b", "span")

    def __init__(self, a, b, span=None):
        self.a = a
        self.b = b
        self.span = span

    def __repr__(self):
        return f"{type(self).__name__}({self.a!r}, {self.b!r})"

    __hash__ = object.__hash__

    # ``(w == 0) & (l == 0)``: the bitwise operators act on the comparison expression (as
    # Apache TVM's EqualOp, an ExprOp, does).
    def __and__(self, other):
        return _generic.bitwise_and(self.asobject(), _cmp_object(other))

    def __rand__(self, other):
        return _generic.bitwise_and(_cmp_object(other), self.asobject())

    def __or__(self, other):
        return _generic.bitwise_or(self.asobject(), _cmp_object(other))

    def __ror__(self, other):
        return _generic.bitwise_or(_cmp_object(other), self.asobject())


def _cmp_object(value):
    return value.asobject() if isinstance(value, _CmpOp) else value


class EqualOp(_CmpOp):
    """``a == b`` where a side is not constant; ``bool()`` is ``a.same_as(b)``."""

    __slots__ = ()

    def __bool__(self):
        return self.a is self.b

    def asobject(self):
        """The ``EQ`` expression."""
        return _generic.equal(self.a, self.b, self.span)


class NotEqualOp(_CmpOp):
    """``a != b`` where a side is not constant; ``bool()`` is ``not a.same_as(b)``."""

    __slots__ = ()

    def __bool__(self):
        return self.a is not self.b

    def asobject(self):
        """The ``NE`` expression."""
        return _generic.not_equal(self.a, self.b, self.span)


# --- variables and constants ---------------------------------------------------------------


class Var(PrimExprWithOp, type_key="tirx.Var"):
    """A scalar variable. ``dtype`` is a dtype string, or a ``PrimType``/``PointerType``.

    Structural equality ignores the name and maps variables at their definition sites; a free
    variable is equal only to itself.

    Parameters
    ----------
    name : str
        The name hint (printing only).
    dtype : str or Type
        ``"int32"`` by default. A ``PointerType`` gives a ``handle`` variable whose
        ``type_annotation`` is that pointer type (a buffer's data pointer).
    """

    _sequal_kind = "var"

    name: str = field(role=IGNORE)
    type_annotation: object = None

    def __init__(self, name, dtype="int32", span=None, ty=None):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        dtype, annotation = _var_dtype(dtype if ty is None else ty)
        self.__init_fields__(name, annotation, span=span, dtype=dtype)

    @property
    def name_hint(self) -> str:
        """Older spelling of :attr:`name`."""
        return self.name


def _var_dtype(dtype):
    """Split a Var's dtype argument into ``(dtype string, type annotation or None)``."""
    if isinstance(dtype, str):
        return normalize_dtype(dtype), None
    element = getattr(dtype, "element_type", None)
    if element is not None:  # a PointerType
        return "handle", dtype
    inner = getattr(dtype, "dtype", None)
    if isinstance(inner, str):  # a PrimType
        return normalize_dtype(inner), dtype
    # Not a dtype string nor a type: maybe a numpy dtype.
    return normalize_dtype(dtype), None


class SizeVar(Var, type_key="tirx.SizeVar"):
    """A variable known to be non-negative (a tensor extent); the Analyzer uses that fact."""


class ConstExpr(PrimExprWithOp, type_key="tirx.ConstExpr"):
    """Base of the numeric constants ``IntImm`` and ``FloatImm``."""

    def __bool__(self):
        return bool(self.value)


_INT_RANGE_CACHE: dict = {}


def int_range(dtype: str):
    """``(min, max)`` representable by an integer or bool dtype."""
    rng = _INT_RANGE_CACHE.get(dtype)
    if rng is None:
        info = dtype_info(dtype)
        if info.lanes != 1:
            raise ValueError(f"an integer constant needs a scalar dtype, got {dtype}")
        if info.kind == "bool":
            rng = (0, 1)
        elif info.kind == "uint":
            rng = (0, (1 << info.bits) - 1)
        elif info.kind == "int" and info.bits == 1:
            rng = (0, 1)  # int1 holds a truth value, as in TVM (0 or 1)
        elif info.kind == "int":
            rng = (-(1 << (info.bits - 1)), (1 << (info.bits - 1)) - 1)
        else:
            raise ValueError(
                f"IntImm supports only int or uint or bool type, but {dtype} was supplied."
            )
        _INT_RANGE_CACHE[dtype] = rng
    return rng


class IntImm(ConstExpr, type_key="ir.IntImm"):
    """An integer (or bool) constant: ``IntImm("int64", 3)``; ``int(imm)`` gives the value."""

    value: int

    def __init__(self, dtype, value, span=None):
        # Fast path: a dtype string already seen here is known to be valid.
        rng = _INT_RANGE_CACHE.get(dtype) if type(dtype) is str else None
        if rng is None:
            dtype = normalize_dtype(dtype)
            rng = int_range(dtype)
        lo, hi = rng
        if isinstance(value, float) and value != int(value):
            raise ValueError(f"IntImm value must be an integer, got {value!r}")
        ivalue = int(value)
        if not lo <= ivalue <= hi:
            raise ValueError(f"Literal value {ivalue} exceeds range of {dtype}")
        self.__init_fields__(ivalue, span=span, dtype=dtype)

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __float__(self):
        return float(self.value)

    __hash__ = object.__hash__


_INF = float("inf")
# Largest finite values: a literal beyond them would silently become infinity.
_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38,
              # bfloat16's largest finite value, 3.3895313892515355e38, as the 9-digit literal
              # TVM prints it (3.38953139e38, which rounds to it)
              "bfloat16": 3.38953139e38}


class FloatImm(ConstExpr, type_key="ir.FloatImm"):
    """A floating-point constant: ``FloatImm("float32", 1.5)``."""

    value: float

    def __init__(self, dtype, value, span=None):
        dtype = normalize_dtype(dtype)
        if dtype_info(dtype).kind != "float":
            raise ValueError(f"FloatImm supports only float type, but {dtype} was supplied.")
        if dtype_info(dtype).lanes != 1:
            raise ValueError(f"a float constant needs a scalar dtype, got {dtype}")
        value = float(value)
        limit = _FLOAT_MAX.get(dtype_info(dtype).element)
        if limit is not None and abs(value) > limit and abs(value) != _INF:  # nan compares False
            raise ValueError(f"Literal value {value:g} exceeds maximum of {dtype}")
        self.__init_fields__(value, span=span, dtype=dtype)

    def __float__(self):
        return self.value

    __hash__ = object.__hash__


class StringImm(PrimExprWithOp, type_key="tirx.StringImm"):
    """A string constant (an argument of ``call_extern`` and friends); dtype ``handle``."""

    value: str

    def __init__(self, value, span=None):
        if not isinstance(value, str):
            raise TypeError(f"StringImm value must be a str, got {type(value).__name__}")
        self.__init_fields__(value, span=span, dtype="handle")

    def __eq__(self, other):
        # TVM compares a StringImm with a str by value.
        if isinstance(other, str):
            return self.value == other
        return super().__eq__(other)

    def __ne__(self, other):
        if isinstance(other, str):
            return self.value != other
        return super().__ne__(other)

    __hash__ = object.__hash__


class Cast(PrimExprWithOp, type_key="prim.Cast"):
    """``Cast(dtype, value)``: convert ``value`` to ``dtype`` (no folding; ``astype`` folds)."""

    value: PrimExpr

    def __init__(self, dtype, value, span=None):
        dtype = normalize_dtype(dtype)
        value = _generic.convert(value)
        if dtype_info(dtype).lanes != dtype_info(value.dtype).lanes:
            raise TypeError(f"Cast from {value.dtype} to {dtype} changes the number of lanes")
        self.__init_fields__(value, span=span, dtype=dtype)


# --- binary operators ------------------------------------------------------------------------


class BinaryOpExpr(PrimExprWithOp, type_key="tirx.BinaryOpExpr"):
    """Base of two-operand arithmetic nodes; both operands must have the same dtype."""

    a: PrimExpr
    b: PrimExpr

    #: Operand dtype kinds the node accepts (None: any numeric).
    _operand_kinds = None

    def __init__(self, a, b, span=None):
        if not (isinstance(a, PrimExpr) and isinstance(b, PrimExpr)):
            a, b = _generic.convert_pair(a, b)  # Python numbers (mutators pass PrimExprs)
        if a.dtype != b.dtype:
            raise TypeError(f"mismatched types. {a.dtype} vs. {b.dtype}")
        kinds = self._operand_kinds
        if kinds is not None and dtype_info(a.dtype).kind not in kinds:
            raise TypeError(
                f"{type(self).__name__} requires {' or '.join(kinds)} operands, got {a.dtype}"
            )
        self.__init_fields__(a, b, span=span, dtype=self._result_dtype(a.dtype))

    @staticmethod
    def _result_dtype(dtype):
        return dtype


class Add(BinaryOpExpr, type_key="prim.Add"):
    """``a + b``."""


class Sub(BinaryOpExpr, type_key="prim.Sub"):
    """``a - b``."""


class Mul(BinaryOpExpr, type_key="prim.Mul"):
    """``a * b``."""


class Div(BinaryOpExpr, type_key="prim.Div"):
    """``a / b``: true division for floats, truncated division for integers."""


class Mod(BinaryOpExpr, type_key="prim.Mod"):
    """Truncated remainder (sign follows ``a``)."""


class FloorDiv(BinaryOpExpr, type_key="prim.FloorDiv"):
    """``a // b`` rounding toward minus infinity."""


class FloorMod(BinaryOpExpr, type_key="prim.FloorMod"):
    """``a % b`` with the sign of ``b``."""


class Min(BinaryOpExpr, type_key="prim.Min"):
    """``min(a, b)``."""


class Max(BinaryOpExpr, type_key="prim.Max"):
    """``max(a, b)``."""


_INT_KINDS = ("int", "uint", "bool")


class BitwiseAnd(BinaryOpExpr, type_key="prim.BitwiseAnd"):
    """``a & b`` on integers or bools."""

    _operand_kinds = _INT_KINDS


class BitwiseOr(BinaryOpExpr, type_key="prim.BitwiseOr"):
    """``a | b`` on integers or bools."""

    _operand_kinds = _INT_KINDS


class BitwiseXor(BinaryOpExpr, type_key="prim.BitwiseXor"):
    """``a ^ b`` on integers or bools."""

    _operand_kinds = _INT_KINDS


class LShift(BinaryOpExpr, type_key="prim.LShift"):
    """``a << b`` on integers."""

    _operand_kinds = _INT_KINDS


class RShift(BinaryOpExpr, type_key="prim.RShift"):
    """``a >> b`` on integers (arithmetic for signed types)."""

    _operand_kinds = _INT_KINDS


class CmpExpr(BinaryOpExpr, type_key="tirx.CmpExpr"):
    """Base of comparisons; the result is ``bool`` with the operands' lanes."""

    @staticmethod
    def _result_dtype(dtype):
        return with_lanes("bool", dtype_info(dtype).lanes)


class EQ(CmpExpr, type_key="prim.EQ"):
    """``a == b`` as an expression."""


class NE(CmpExpr, type_key="prim.NE"):
    """``a != b`` as an expression."""


class LT(CmpExpr, type_key="prim.LT"):
    """``a < b``."""


class LE(CmpExpr, type_key="prim.LE"):
    """``a <= b``."""


class GT(CmpExpr, type_key="prim.GT"):
    """``a > b``."""


class GE(CmpExpr, type_key="prim.GE"):
    """``a >= b``."""


class And(BinaryOpExpr, type_key="prim.And"):
    """Logical ``a and b`` on bools."""

    _operand_kinds = ("bool",)


class Or(BinaryOpExpr, type_key="prim.Or"):
    """Logical ``a or b`` on bools."""

    _operand_kinds = ("bool",)


class Not(PrimExprWithOp, type_key="prim.Not"):
    """Logical ``not a`` on a bool."""

    a: PrimExpr

    def __init__(self, a, span=None):
        a = _generic.convert(a)
        if dtype_info(a.dtype).kind != "bool":
            raise TypeError(f"Not requires a bool operand, got {a.dtype}")
        self.__init_fields__(a, span=span, dtype=a.dtype)


class BitwiseNot(PrimExprWithOp, type_key="prim.BitwiseNot"):
    """``~a`` on an integer or bool."""

    a: PrimExpr

    def __init__(self, a, span=None):
        a = _generic.convert(a)
        if dtype_info(a.dtype).kind not in _INT_KINDS:
            raise TypeError(f"BitwiseNot requires an integer operand, got {a.dtype}")
        self.__init_fields__(a, span=span, dtype=a.dtype)


# --- other expressions ---------------------------------------------------------------------


class Select(PrimExprWithOp, type_key="prim.Select"):
    """``condition ? true_value : false_value``; both branches are evaluated."""

    condition: PrimExpr
    true_value: PrimExpr
    false_value: PrimExpr

    def __init__(self, condition, true_value, false_value, span=None):
        condition = _generic.convert(condition)
        true_value, false_value = _generic.convert_pair(true_value, false_value)
        if dtype_info(condition.dtype).kind != "bool":
            raise TypeError(f"Select condition must be bool, got {condition.dtype}")
        if true_value.dtype != false_value.dtype:
            raise TypeError(
                f"mismatched types. False type: {false_value.dtype}; "
                f"True type: {true_value.dtype}"
            )
        self.__init_fields__(
            condition, true_value, false_value, span=span, dtype=true_value.dtype
        )


class Let(PrimExprWithOp, type_key="prim.Let"):
    """``let var = value in body``; ``var`` is defined here (alpha-equivalent)."""

    var: Var = field(role=DEF)
    value: PrimExpr
    body: PrimExpr

    def __init__(self, var, value, body, span=None):
        if not isinstance(var, Var):
            raise TypeError(f"Let var must be a tirx.Var, got {type(var).__name__}")
        value = _generic.convert(value, var.dtype)
        if value.dtype != var.dtype:
            raise TypeError(f"Let value dtype {value.dtype} does not match var {var.dtype}")
        body = _generic.convert(body)
        self.__init_fields__(var, value, body, span=span, dtype=body.dtype)


class Ramp(PrimExprWithOp, type_key="prim.Ramp"):
    """The vector ``[base, base + stride, ..., base + (lanes - 1) * stride]``."""

    base: PrimExpr
    stride: PrimExpr
    lanes: object

    def __init__(self, base, stride, lanes, span=None):
        base, stride = _generic.convert_pair(base, stride)
        if base.dtype != stride.dtype:
            raise TypeError(f"Ramp base {base.dtype} and stride {stride.dtype} differ")
        lanes = _lanes_value(lanes)
        self.__init_fields__(
            base, stride, lanes, span=span, dtype=with_lanes(base.dtype, _const_lanes(lanes))
        )


class Broadcast(PrimExprWithOp, type_key="prim.Broadcast"):
    """``value`` repeated ``lanes`` times."""

    value: PrimExpr
    lanes: object

    def __init__(self, value, lanes, span=None):
        value = _generic.convert(value)
        if dtype_info(value.dtype).lanes != 1:
            raise TypeError(f"Broadcast value must be a scalar, got {value.dtype}")
        lanes = _lanes_value(lanes)
        self.__init_fields__(
            value, lanes, span=span, dtype=with_lanes(value.dtype, _const_lanes(lanes))
        )


class Shuffle(PrimExprWithOp, type_key="prim.Shuffle"):
    """Lanes picked by ``indices`` from the concatenation of ``vectors``."""

    vectors: tuple
    indices: tuple

    def __init__(self, vectors, indices, span=None):
        vectors = tuple(_generic.convert(v) for v in vectors)
        indices = tuple(_generic.convert(i) for i in indices)
        if not vectors:
            raise ValueError("Shuffle needs at least one vector")
        element = dtype_info(vectors[0].dtype).element
        self.__init_fields__(
            vectors, indices, span=span, dtype=with_lanes(element, len(indices))
        )


class ScalableLanesError(ValueError, RuntimeError):
    """Vector lanes that are neither a positive constant nor ``k * T.vscale()``.

    A ``ValueError`` that is also a ``RuntimeError``, as Apache TVM raises a RuntimeError there.
    """


def _lanes_value(lanes):
    """Lanes as an int32 ``IntImm`` when constant, else ``T.vscale() * k`` (scalable).

    A negative int -k means k * vscale lanes (what ``DataType.lanes`` reports for a scalable
    dtype such as ``float32xvscalex4``).
    """
    if isinstance(lanes, IntImm):
        if lanes.dtype == "int32" and lanes.value > 0:
            return lanes
        lanes = lanes.value
    if isinstance(lanes, int):
        if lanes > 0:
            return IntImm("int32", lanes)
        if lanes < 0:
            return _scalable_lanes(-lanes)
        raise ValueError(f"lanes must be positive, got {lanes}")
    lanes = _generic.convert(lanes)
    factor = _vscale_factor(lanes)
    if factor is None:
        raise ScalableLanesError(
            "vector lanes must be a positive constant or a constant multiple of T.vscale() "
            f"(4 * T.vscale()); got lanes expression {lanes!r}"
        )
    return _scalable_lanes(factor)


def _is_vscale(e) -> bool:
    return isinstance(e, Call) and getattr(e.op, "name", None) == "tirx.vscale"


def _vscale_factor(e):
    """k for ``k * T.vscale()`` or ``T.vscale() * k`` (k a positive constant), else None."""
    if isinstance(e, Mul):
        for a, b in ((e.a, e.b), (e.b, e.a)):
            if _is_vscale(a) and isinstance(b, IntImm) and b.value > 0:
                return int(b.value)
    return None


def _scalable_lanes(factor: int):
    """``T.vscale() * factor`` in the int32 form TVM keeps as the lanes of scalable vectors."""
    return Mul(Call("int32", "tirx.vscale", []), IntImm("int32", factor))


def _const_lanes(lanes) -> int:
    """The dtype lanes count: the constant, or -k for ``T.vscale() * k``."""
    if isinstance(lanes, IntImm):
        return lanes.value
    factor = _vscale_factor(lanes)
    if factor is not None:
        return -factor
    raise ScalableLanesError(f"unsupported vector lanes expression {lanes!r}")


class Call(PrimExprWithOp, type_key="tirx.Call"):
    """A call of an intrinsic ``Op`` (or a ``GlobalVar``) returning ``dtype``.

    ``op`` may be an ``Op``, a registered op name such as ``"tirx.exp"``, or a ``GlobalVar``.
    """

    op: object
    args: tuple
    # A pointer type when the call returns a typed pointer (``T.reinterpret`` to a
    # ``PointerType``): ``dtype`` is then ``"handle"`` and :attr:`ty` is this type.
    type_annotation: object = field(None, kw_only=True)

    def __init__(self, dtype, op, args, span=None):
        dtype, annotation = _call_dtype(dtype)
        if isinstance(op, str):
            op = Op.get(op if "." in op else f"tirx.{op}")
        self.__init_fields__(op, tuple(_call_arg(a) for a in args), span=span, dtype=dtype,
                             type_annotation=annotation)

    @property
    def ty(self):
        """The result type: the pointer type of a typed call (``T.reinterpret`` to a
        ``PointerType``) or of ``T.address_of(buf[i])`` (the buffer's element type and
        scope), else ``PrimType(dtype)``."""
        if self.type_annotation is not None:
            return self.type_annotation
        if getattr(self.op, "name", None) == "tirx.address_of" and self.args:
            buf = getattr(self.args[0], "buffer", None)
            if buf is not None:
                return PointerType(PrimType(buf.dtype), buf.scope())
        return super().ty


def _call_dtype(dtype):
    """A Call's result type: ``(dtype string, pointer type or None)``; a ``PrimType`` is its
    dtype string (a Call keeps no annotation for a scalar type)."""
    if isinstance(dtype, str):
        return normalize_dtype(dtype), None
    if getattr(dtype, "element_type", None) is not None:  # a PointerType
        return "handle", dtype
    inner = getattr(dtype, "dtype", None)
    if isinstance(inner, str):  # a PrimType
        return normalize_dtype(inner), None
    return normalize_dtype(dtype), None


def _call_arg(value):
    """A Call argument: PrimExprs and other IR nodes (buffers, regions) as they are."""
    if isinstance(value, str):
        return StringImm(value)
    if isinstance(value, Node):
        return value
    return _generic.convert(value)


# Bottom imports: the operator rules and the text fallback use the classes above.
from . import expr_text as _text
from . import generic as _generic


def __getattr__(name):
    # ``from tvm.tirx.expr import BufferLoad`` (Apache TVM's module layout): expression nodes
    # defined in other modules, imported on first use (``stmt`` and ``reduction`` import
    # this module; ``ProducerLoad`` belongs to ``tvm.te``, a layer above, which registers it).
    if name == "BufferLoad":
        from .stmt import BufferLoad

        return BufferLoad
    if name == "Reduce":
        from .reduction import Reduce

        return Reduce
    if name == "ProducerLoad":
        from ..te.tensor import ProducerLoad  # upper layer: looked up only when asked for

        return ProducerLoad
    raise AttributeError(f"module 'tvm.tirx.expr' has no attribute {name!r}")
