"""TIR intrinsics (``tvm.tirx.exp``, ``if_then_else``, ``call_extern``, ...) and helpers.

Each intrinsic is an ``Op`` registered under ``"tirx.<name>"`` with the op attribute
``"TCallEffectKind"`` (a :class:`CallEffectKind` value: pure, opaque, ...). The result dtype is
computed by the Python constructor, not by an op attribute: each constructor below states its
rule. They follow ``tvm.tirx`` in Apache TVM 0.27, including its leniencies:

* most unary math keeps the argument's dtype even for integers (``exp(int32)`` is an ``int32``
  call), but ``sin``/``cos``/``tan`` reject integers, and ``pow``/``logaddexp`` require floats;
* rounding functions (``floor``, ``ceil``, ``round``, ``trunc``, ``nearbyint``) return an
  integer argument unchanged and fold float constants;
* ``isnan``/``isinf``/``isfinite`` of an integer are constants; ``isinf``/``isfinite`` of a
  float expand into ``fabs``/``isnan`` expressions;
* ``abs`` of a signed integer is ``Select(x >= 0, x, 0 - x)``, of a float the ``fabs`` call.

Examples
--------
>>> from tvm import tirx
>>> f = tirx.Var("f", "float32")
>>> tirx.exp(f)
T.exp(f)
>>> tirx.pow(f, 2)
T.pow(f, T.float32(2.0))
>>> tirx.floor(tirx.Var("i", "int32"))
i
"""

from __future__ import annotations

import builtins
import math

from ..ir.op import Op, register_op, register_op_attr
from ..runtime.data_type import dtype_info, normalize_dtype, with_lanes
from . import generic as _g
from .expr import GE, Call, FloatImm, IntImm, Select, StringImm, Sub, Var, int_range

__all__ = [
    "CallEffectKind",
    "abs",
    "acos",
    "acosh",
    "address_of",
    "all",
    "any",
    "asin",
    "asinh",
    "assume",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "buffer_offset",
    "call_extern",
    "call_intrin",
    "call_llvm_intrin",
    "call_llvm_pure_intrin",
    "call_packed",
    "call_pure_extern",
    "ceil",
    "ceildiv",
    "clz",
    "copysign",
    "cos",
    "cosh",
    "div",
    "erf",
    "exp",
    "exp2",
    "exp10",
    "floor",
    "fmod",
    "get_active_lane_mask",
    "hypot",
    "if_then_else",
    "indexdiv",
    "indexmod",
    "infinity",
    "isfinite",
    "isinf",
    "isnan",
    "ldexp",
    "likely",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "max_value",
    "min_value",
    "nearbyint",
    "nextafter",
    "popcount",
    "pow",
    "power",
    "print_buffer",
    "q_multiply_shift",
    "q_multiply_shift_per_axis",
    "reinterpret",
    "ret",
    "round",
    "rsqrt",
    "shift_left",
    "shift_right",
    "sigmoid",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "tvm_stack_alloca",
    "tvm_storage_sync",
    "tvm_warp_activemask",
    "tvm_warp_shuffle",
    "tvm_warp_shuffle_down",
    "tvm_warp_shuffle_up",
    "vscale",
]


class CallEffectKind:
    """Side-effect classes of intrinsic calls (the ``"TCallEffectKind"`` op attribute)."""

    ExprAnnotation = 0
    Pure = 1
    ReadState = 2
    UpdateState = 3
    Opaque = 4
    SpecialCallArg = 5
    EmbedC = 6
    ControlJump = 7


_UNARY_MATH = (
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh",
    "sigmoid", "erf", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
    "acosh", "atanh", "floor", "ceil", "round", "trunc", "nearbyint", "fabs", "isnan",
    "popcount", "clz",
)
_BINARY_MATH = ("pow", "atan2", "fmod", "copysign", "hypot", "nextafter", "ldexp")
_INTRINSICS = {
    "if_then_else": (3, CallEffectKind.Pure),
    "likely": (1, CallEffectKind.ExprAnnotation),
    "assume": (1, CallEffectKind.SpecialCallArg),
    "vscale": (0, CallEffectKind.Pure),
    "get_active_lane_mask": (2, CallEffectKind.Pure),
    "reinterpret": (1, CallEffectKind.Pure),
    "call_extern": (-1, CallEffectKind.Opaque),
    "call_pure_extern": (-1, CallEffectKind.Pure),
    "call_llvm_intrin": (-1, CallEffectKind.Opaque),
    "call_llvm_pure_intrin": (-1, CallEffectKind.Pure),
    "ret": (1, CallEffectKind.ControlJump),
    "break_loop": (0, CallEffectKind.ControlJump),
    "continue_loop": (0, CallEffectKind.ControlJump),
    "q_multiply_shift": (4, CallEffectKind.Pure),
    "q_multiply_shift_per_axis": (7, CallEffectKind.Pure),
    # GPU and packed-call builtins (the host/device split and the CUDA code generator).
    "address_of": (1, CallEffectKind.Pure),
    # TIRx: the flat element offset of a buffer element (resolved by LowerTIRx).
    "buffer_offset": (1, CallEffectKind.Pure),
    "tvm_call_packed": (-1, CallEffectKind.Opaque),
    "tvm_stack_alloca": (2, CallEffectKind.UpdateState),
    "tvm_storage_sync": (-1, CallEffectKind.Opaque),
    "tvm_warp_activemask": (0, CallEffectKind.UpdateState),
    "tvm_warp_shuffle": (5, CallEffectKind.UpdateState),
    "tvm_warp_shuffle_up": (5, CallEffectKind.UpdateState),
    "tvm_warp_shuffle_down": (5, CallEffectKind.UpdateState),
    "print_buffer": (-1, CallEffectKind.Opaque),
}
# Ops whose TVMScript name differs from the op name (``T.call_packed`` is ``tvm_call_packed``).
_SCRIPT_NAMES = {"tvm_call_packed": "call_packed"}


def _register_all():
    for name in _UNARY_MATH:
        register_op(f"tirx.{name}", num_inputs=1, family="math")
        register_op_attr(f"tirx.{name}", "TCallEffectKind", CallEffectKind.Pure)
        register_op_attr(f"tirx.{name}", "TVectorizable", True)
    for name in _BINARY_MATH:
        register_op(f"tirx.{name}", num_inputs=2, family="math")
        register_op_attr(f"tirx.{name}", "TCallEffectKind", CallEffectKind.Pure)
        register_op_attr(f"tirx.{name}", "TVectorizable", True)
    register_op("tirx.fma", num_inputs=3, family="math")
    register_op_attr("tirx.fma", "TCallEffectKind", CallEffectKind.Pure)
    register_op_attr("tirx.fma", "TVectorizable", True)
    for name, (num_inputs, effect) in _INTRINSICS.items():
        register_op(f"tirx.{name}", num_inputs=num_inputs, family="intrinsic")
        register_op_attr(f"tirx.{name}", "TCallEffectKind", effect)
    for name, printed in _SCRIPT_NAMES.items():
        register_op_attr(f"tirx.{name}", "TScriptPrinterName", printed)


_register_all()


def _op(name):
    return Op.get(f"tirx.{name}")


def _call(dtype, name, *args, span=None):
    return Call(dtype, _op(name), args, span=span)


# --- unary math ------------------------------------------------------------------------------


def _unary_math(name, float_only=False):
    def build(x, span=None):
        x = _g.convert(x)
        if float_only and dtype_info(x.dtype).kind != "float":
            raise TypeError(
                f"tirx.{name} only supports floating-point inputs, but got {x.dtype}"
            )
        return _call(x.dtype, name, x, span=span)

    build.__name__ = name
    build.__qualname__ = name
    build.__doc__ = (
        f"``{name}(x)``: an intrinsic call with ``x``'s dtype"
        + (" (floating-point ``x`` only)." if float_only else ".")
    )
    return build


exp = _unary_math("exp")
exp2 = _unary_math("exp2")
exp10 = _unary_math("exp10")
log = _unary_math("log")
log2 = _unary_math("log2")
log10 = _unary_math("log10")
log1p = _unary_math("log1p")
sqrt = _unary_math("sqrt")
rsqrt = _unary_math("rsqrt")
tanh = _unary_math("tanh")
sigmoid = _unary_math("sigmoid")
erf = _unary_math("erf")
sin = _unary_math("sin", float_only=True)
cos = _unary_math("cos", float_only=True)
tan = _unary_math("tan", float_only=True)
asin = _unary_math("asin")
acos = _unary_math("acos")
atan = _unary_math("atan")
sinh = _unary_math("sinh")
cosh = _unary_math("cosh")
asinh = _unary_math("asinh")
acosh = _unary_math("acosh")
atanh = _unary_math("atanh")
popcount = _unary_math("popcount")
#: ``T.fabs(x)``: the float absolute value call (TVM 0.27 has it in ``T`` only, not ``tvm.tirx``).
fabs = _unary_math("fabs")


def clz(x, span=None):
    """Count leading zeros; the result is ``int32``."""
    x = _g.convert(x)
    return _call("int32", "clz", x, span=span)


def _rounding(name, fold):
    def build(x, span=None):
        x = _g.convert(x)
        if dtype_info(x.dtype).kind != "float":
            return x  # an integer is already rounded
        if isinstance(x, FloatImm):
            return FloatImm(x.dtype, fold(x.value), span=span)
        return _call(x.dtype, name, x, span=span)

    build.__name__ = name
    build.__qualname__ = name
    build.__doc__ = (
        f"``{name}(x)``: integers are returned unchanged, float constants fold."
    )
    return build


def _round_half_even(v):
    # Python's round() rounds halves to even, like C's nearbyint in the default mode.
    return float(builtins.round(v)) if math.isfinite(v) else v


floor = _rounding("floor", lambda v: float(math.floor(v)) if math.isfinite(v) else v)
ceil = _rounding("ceil", lambda v: float(math.ceil(v)) if math.isfinite(v) else v)
trunc = _rounding("trunc", lambda v: float(math.trunc(v)) if math.isfinite(v) else v)
round = _rounding("round", _round_half_even)
nearbyint = _rounding("nearbyint", _round_half_even)


def abs(x, span=None):
    """``|x|``: constants fold; signed ints build a ``Select``; floats call ``fabs``."""
    x = _g.convert(x)
    kind = dtype_info(x.dtype).kind
    if isinstance(x, IntImm):
        return IntImm(x.dtype, -x.value if x.value < 0 else x.value, span=span)
    if isinstance(x, FloatImm):
        return FloatImm(x.dtype, math.fabs(x.value), span=span)
    if kind in ("uint", "bool"):
        return x
    if kind == "int":
        zero = _g.convert(0, x.dtype)
        return Select(GE(x, zero), x, Sub(zero, x), span=span)
    if kind == "float":
        return _call(x.dtype, "fabs", x, span=span)
    raise TypeError(f"abs does not support dtype {x.dtype}")


def isnan(x, span=None):
    """``bool`` NaN test; ``False`` for integers."""
    x = _g.convert(x)
    result = _g.bool_dtype_like(x.dtype)
    if dtype_info(x.dtype).kind != "float":
        return _g.convert(False) if result == "bool" else _g.cast(False, result)
    if isinstance(x, FloatImm):
        return IntImm("bool", int(math.isnan(x.value)), span=span)
    if dtype_info(x.dtype).bits == 16:
        # 16-bit floats are tested as float32, as TVM does (no half-precision isnan)
        x = _g.cast(x, with_lanes("float32", dtype_info(x.dtype).lanes))
    return _call(result, "isnan", x, span=span)


def isinf(x, span=None):
    """``bool`` infinity test: ``fabs(x) == inf and not isnan(x)``; ``False`` for integers."""
    x = _g.convert(x)
    if dtype_info(x.dtype).kind != "float":
        return IntImm("bool", 0, span=span)
    if isinstance(x, FloatImm):
        return IntImm("bool", int(math.isinf(x.value)), span=span)
    return _g.logical_and(
        _g.equal(abs(x), infinity(x.dtype)), _g.logical_not(isnan(x)), span=span
    )


def isfinite(x, span=None):
    """``bool`` finiteness test: ``not isinf(x) and not isnan(x)``; ``True`` for integers."""
    x = _g.convert(x)
    if dtype_info(x.dtype).kind != "float":
        return IntImm("bool", 1, span=span)
    if isinstance(x, FloatImm):
        return IntImm("bool", int(math.isfinite(x.value)), span=span)
    return _g.logical_and(_g.logical_not(isinf(x)), _g.logical_not(isnan(x)), span=span)


# --- binary math -----------------------------------------------------------------------------


def pow(x, y, span=None):
    """``x ** y`` on floats: the operands are promoted to a common float dtype, as TVM's
    binary operators do (``int32 ** float64`` is float64); two non-float operands are an
    error."""
    x, y = _g.convert_pair(x, y)
    if dtype_info(x.dtype).kind != "float" and dtype_info(y.dtype).kind != "float":
        raise _g.OperandTypeError(f"power only applies to float, but got {x.dtype}")
    x, y = _g.match_types(x, y, "power")
    return _call(x.dtype, "pow", x, y, span=span)


power = pow


def _binary_math(name):
    def build(x, y, span=None):
        x = _g.convert(x)
        y = _g.convert(y)
        return _call(x.dtype, name, x, y, span=span)

    build.__name__ = name
    build.__qualname__ = name
    build.__doc__ = f"``{name}(x, y)``: an intrinsic call with ``x``'s dtype."
    return build


atan2 = _binary_math("atan2")
fmod = _binary_math("fmod")
copysign = _binary_math("copysign")
hypot = _binary_math("hypot")
nextafter = _binary_math("nextafter")
ldexp = _binary_math("ldexp")


def logaddexp(a, b, span=None):
    """``log(exp(a) + exp(b))`` on floats (built from ``exp`` and ``log``)."""
    a, b = _g.convert(a), _g.convert(b)
    for v in (a, b):
        if dtype_info(v.dtype).kind != "float":
            raise TypeError(f"logaddexp requires floating-point operands, got {v.dtype}")
    return log(_g.add(exp(a), exp(_g.cast(b, a.dtype))), span=span)


# --- integer helpers -------------------------------------------------------------------------

shift_left = _g.left_shift
shift_right = _g.right_shift
bitwise_and = _g.bitwise_and
bitwise_or = _g.bitwise_or
bitwise_xor = _g.bitwise_xor
bitwise_not = _g.bitwise_not
indexdiv = _g.floordiv
indexmod = _g.floormod
div = _g.div


def ceildiv(a, b, span=None):
    """``ceil(a / b)`` for integers, built as ``(a + b - 1) // b``."""
    a, b = _g.match_types(a, b, "ceildiv")
    if dtype_info(a.dtype).kind not in ("int", "uint"):
        raise TypeError(f"ceildiv requires integer operands, got {a.dtype}")
    return _g.floordiv(_g.subtract(_g.add(a, b), 1), b, span)


def q_multiply_shift(x, y, q, s, span=None):
    """Fixed-point multiply ``(x * y) >> (q + s)`` with rounding, as an ``int32`` call."""
    args = [_g.convert(v, "int32") for v in (x, y, q, s)]
    return _call("int32", "q_multiply_shift", *args, span=span)


def q_multiply_shift_per_axis(x, y, ls, rs, q, is_lshift_required, is_rshift_required,
                              span=None):
    """:func:`q_multiply_shift` with per-channel shifts: ``ls`` left, ``rs`` right, ``q``
    fractional bits; the two flags say which shifts apply. An ``int32`` call; no pytvm code
    generator lowers it yet (it parses, prints and goes through schedules)."""
    args = [_g.convert(v, "int32") for v in (x, y, ls, rs, q)]
    flags = [_g.convert(v, "bool") if isinstance(v, bool) else _g.convert(v)
             for v in (is_lshift_required, is_rshift_required)]
    return _call("int32", "q_multiply_shift_per_axis", *args, *flags, span=span)


# --- logic -----------------------------------------------------------------------------------


def all(*args, span=None):
    """Conjunction of bool expressions, folded left to right (``tirx.all(a, b, c)``)."""
    if not args:
        raise ValueError("all must take at least 1 argument")
    result = _g.convert(args[0])
    for arg in args[1:]:
        result = _g.logical_and(result, arg, span)
    return result


def any(*args, span=None):
    """Disjunction of bool expressions, folded left to right (``tirx.any(a, b, c)``)."""
    if not args:
        raise ValueError("any must take at least 1 argument")
    result = _g.convert(args[0])
    for arg in args[1:]:
        result = _g.logical_or(result, arg, span)
    return result


def if_then_else(cond, t, f, span=None):
    """``t`` if ``cond`` else ``f``, evaluating only the taken branch (unlike ``Select``)."""
    cond = _g.convert(cond)
    if dtype_info(cond.dtype).kind != "bool":
        raise _g.OperandTypeError(
            f"if_then_else only accept the condition to be boolean type, got {cond.dtype}"
        )
    t, f = _g.match_types(t, f, "if_then_else")
    if isinstance(cond, IntImm):
        return t if cond.value else f
    return _call(t.dtype, "if_then_else", cond, t, f, span=span)


def likely(cond, span=None):
    """Mark ``cond`` as likely true (a hint for loop partitioning); constants pass through."""
    cond = _g.convert(cond)
    if isinstance(cond, IntImm):
        return cond
    return _call(cond.dtype, "likely", cond, span=span)


def vscale():
    """``T.vscale()``: the target's vector-length multiplier (LLVM's ``llvm.vscale``), an
    ``int32`` used in the lane count of scalable vectors (``4 * T.vscale()``)."""
    return _call("int32", "vscale")


def get_active_lane_mask(dtype, base, limit):
    """``T.get_active_lane_mask("uint1x4", base, limit)``: the boolean vector whose lane ``i``
    is ``base + i < limit`` (LLVM's ``llvm.get.active.lane.mask``); the predicate of the
    buffer accesses of a vectorized loop's tail (``VectorizeLoop`` with buffer-level
    predication). ``dtype`` is a ``uint1`` vector dtype, scalable ones included
    (``"uint1xvscalex4"``)."""
    info = dtype_info(str(dtype))
    if info.element != "uint1" or info.lanes == 1:
        raise ValueError(
            f"get_active_lane_mask: dtype must be a uint1 vector dtype such as 'uint1x4', got "
            f"{dtype!r}"
        )
    return _call(str(dtype), "get_active_lane_mask", _g.convert(base), _g.convert(limit))


def assume(cond=None):
    """``T.assume(cond)``: state that ``cond`` holds (for the simplifier); lowering drops it.

    Used as a statement, ``T.evaluate(T.assume(cond))``; ``cond=None`` assumes ``True``.
    """
    cond = _g.convert(True if cond is None else cond)
    if dtype_info(cond.dtype).kind != "bool":
        raise TypeError(f"assume expects a boolean condition, got {cond.dtype}")
    return _call("bool", "assume", cond)


# --- values and calls ------------------------------------------------------------------------


def reinterpret(dtype, value, span=None):
    """Reinterpret the bits of ``value`` as ``dtype`` (sizes must match).

    ``dtype`` is a dtype string, a ``PrimType`` or a ``PointerType``. To a pointer type the
    value must be a 64-bit integer or a handle (an address, e.g. from ``T.ptx.mapa``); the
    call's ``dtype`` is then ``"handle"`` and its ``ty`` the pointer type, so a variable bound
    to it is a typed pointer a buffer can use as its ``data``.
    """
    value = _g.convert(value)
    if getattr(dtype, "element_type", None) is not None:  # a PointerType
        if value.dtype not in ("uint64", "int64", "handle"):
            raise TypeError(
                f"reinterpret to the pointer type {dtype} needs a 64-bit integer or handle "
                f"value, got {value.dtype}"
            )
        return Call(dtype, _op("reinterpret"), (value,), span=span)
    if not isinstance(dtype, str) and isinstance(getattr(dtype, "dtype", None), str):
        dtype = dtype.dtype  # a PrimType
    dtype = normalize_dtype(dtype)
    if value.dtype == dtype:
        return value
    src, dst = dtype_info(value.dtype), dtype_info(dtype)
    if src.bits * src.lanes != dst.bits * dst.lanes:
        raise TypeError(f"Reinterpret requires size match {dtype} vs {value.dtype}")
    return Call(dtype, _op("reinterpret"), (value,), span=span)


def ret(val, span=None):
    """Return ``val`` from the enclosing PrimFunc (a control-flow intrinsic)."""
    val = _g.convert(val)
    return _call(val.dtype, "ret", val, span=span)


def break_loop(span=None):
    """Leave the innermost enclosing loop (``T.break_loop()``, TVMScript's ``break``).

    Returns
    -------
    Call
        A ``tirx.break_loop`` control-jump call. TVMScript's ``T.evaluate`` turns it into a
        :class:`tvm.tirx.Break` statement, the form the passes and code generators handle;
        an ``Evaluate`` of it built by hand is not lowered.
    """
    return _call("void", "break_loop", span=span)


def continue_loop(span=None):
    """Skip to the next iteration of the innermost loop (``T.continue_loop()``, ``continue``).

    Returns
    -------
    Call
        A ``tirx.continue_loop`` control-jump call. TVMScript's ``T.evaluate`` turns it into a
        :class:`tvm.tirx.Continue` statement, the form the passes and code generators handle;
        an ``Evaluate`` of it built by hand is not lowered.
    """
    return _call("void", "continue_loop", span=span)


def call_intrin(dtype, func_name, *args, span=None):
    """Call the registered intrinsic op ``func_name`` (e.g. ``"tirx.exp"``)."""
    if isinstance(func_name, Op):
        op = func_name
    else:
        op = Op.get(func_name)
    return Call(normalize_dtype(dtype), op, args, span=span)


def _named_call(op_name, dtype, func_name, args, span):
    if not isinstance(func_name, str):
        raise TypeError(f"{op_name}: the function name must be a str, got {func_name!r}")
    return Call(normalize_dtype(dtype), _op(op_name), (StringImm(func_name), *args), span=span)


def call_extern(dtype, func_name, *args, span=None):
    """Call an external C function ``func_name`` returning ``dtype`` (may have side effects)."""
    return _named_call("call_extern", dtype, func_name, args, span)


def call_pure_extern(dtype, func_name, *args, span=None):
    """Call a side-effect-free external C function ``func_name``."""
    return _named_call("call_pure_extern", dtype, func_name, args, span)


def call_llvm_intrin(dtype, name, *args, span=None):
    """Call the LLVM intrinsic ``name`` (e.g. ``"llvm.exp"``)."""
    return _named_call("call_llvm_intrin", dtype, name, args, span)


def call_llvm_pure_intrin(dtype, name, *args, span=None):
    """Call the side-effect-free LLVM intrinsic ``name``."""
    return _named_call("call_llvm_pure_intrin", dtype, name, args, span)


# --- GPU and packed-call builtins -----------------------------------------------------------


def buffer_offset(buffer_load, span=None):
    """``T.buffer_offset(A[i, j])``: the element offset of ``A[i, j]`` from the start of
    ``A`` (its layout applied), an ``int32``. ``LowerTIRx`` replaces it by the flat index."""
    from .stmt import BufferLoad  # lazy: stmt imports this module

    if not isinstance(buffer_load, BufferLoad):
        raise TypeError(f"T.buffer_offset expects a buffer element such as A[i], got "
                        f"{type(buffer_load).__name__}")
    return _call("int32", "buffer_offset", buffer_load, span=span)


def address_of(buffer_load, span=None):
    """``T.address_of(A[i])``: the address of one buffer element, a ``handle``.

    A whole buffer ``A`` means ``A[0, ...]``; a variable (a tensor map, a scalar) is also
    accepted. ``tvm.tirx.buffer.pointer_type_of`` gives the pointer type of the result.
    """
    from .buffer import Buffer  # buffer.py imports this module
    from .stmt import BufferLoad  # stmt imports expr; op is imported by expr's users first

    if isinstance(buffer_load, Buffer):
        buffer_load = buffer_load[tuple(IntImm("int32", 0) for _ in buffer_load.shape)]
    if not isinstance(buffer_load, (BufferLoad, Var)):
        raise TypeError(
            "T.address_of expects a buffer element such as A[i], a buffer or a variable, "
            f"got {type(buffer_load).__name__}"
        )
    return _call("handle", "address_of", buffer_load, span=span)


def call_packed(func_name, *args, span=None):
    """Call the packed (``tvm_ffi``) function ``func_name`` with ``args``; an ``int32`` status.

    SplitHostDevice launches a kernel this way: the arguments are the kernel's parameters,
    then the launch extents (``T.call_packed("f_kernel", A.data, n, grid_x, block_x)``).
    """
    if not isinstance(func_name, str):
        raise TypeError(f"call_packed: the function name must be a str, got {func_name!r}")
    args = tuple(StringImm(a) if isinstance(a, str) else _g.convert(a) for a in args)
    return Call("int32", _op("tvm_call_packed"), (StringImm(func_name), *args), span=span)


def tvm_stack_alloca(dtype_code, num, span=None):
    """Reserve ``num`` slots of kind ``dtype_code`` (``"array"``, ``"shape"``, ``"tvm_ffi_any"``)
    on the host stack; a ``handle``."""
    if not isinstance(dtype_code, str):
        raise TypeError(f"tvm_stack_alloca: the slot kind must be a str, got {dtype_code!r}")
    return _call("handle", "tvm_stack_alloca", StringImm(dtype_code), _g.convert(num, "int32"),
                 span=span)


def fma(a, b, c, span=None):
    """``a * b + c`` as one fused multiply-add (the ``tirx.fma`` intrinsic, ``T.fma``), of
    ``a``'s dtype; Python numbers in ``b``/``c`` take that dtype."""
    a = _g.convert(a)
    b = _g.convert(b, a.dtype)
    c = _g.convert(c, a.dtype)
    for what, x in (("b", b), ("c", c)):
        if x.dtype != a.dtype:
            raise TypeError(f"fma: {what} has dtype {x.dtype}, expected {a.dtype} (as a)")
    return _call(a.dtype, "fma", a, b, c, span=span)


def print_buffer(buffer_var, dtype, is_string, is_scalar, dim_num, *shape, span=None):
    """Print memory at run time (a device-side debugging aid), as Apache TVM's
    ``T.print_buffer``: ``buffer_var`` points at the data, ``dtype`` its element type,
    ``is_string``/``is_scalar`` choose a C string or one value, ``dim_num`` and ``shape``
    the dimensions (``shape`` may also be given as one list).

    Builds ``Call(dtype, tirx.print_buffer, [buffer_var, "dtype", T.bool(is_string),
    T.bool(is_scalar), T.uint32(dim_num), *shape])``. Only the IR is provided here; the
    CUDA code generator does not emit it yet.
    """
    if len(shape) == 1 and isinstance(shape[0], list | tuple):
        shape = tuple(shape[0])
    dtype = getattr(dtype, "dtype", dtype)
    if not isinstance(dtype, str):
        raise TypeError(f"print_buffer: dtype must be a str or PrimType, got {dtype!r}")
    flags = []
    for what, flag in (("is_string", is_string), ("is_scalar", is_scalar)):
        flag = _g.convert(flag, "bool")
        if flag.dtype != "bool":
            raise TypeError(f"print_buffer: {what} must be a bool, got {flag!r}")
        flags.append(flag)
    rank = _g.convert(dim_num, "uint32")
    if not isinstance(rank, IntImm):
        raise TypeError(f"print_buffer: dim_num must be an integer constant, got {dim_num!r}")
    rank = IntImm("uint32", rank.value)
    dims = tuple(_g.convert(s) for s in shape)
    return _call(dtype, "print_buffer", _g.convert(buffer_var), StringImm(dtype), *flags, rank,
                 *dims, span=span)


def tvm_storage_sync(storage_scope, span=None):
    """Barrier for memory of ``storage_scope`` (``"shared"``: CUDA's ``__syncthreads()``)."""
    if not isinstance(storage_scope, str):
        raise TypeError(f"tvm_storage_sync: the scope must be a str, got {storage_scope!r}")
    return _call("int32", "tvm_storage_sync", StringImm(storage_scope), span=span)


def tvm_warp_activemask(span=None):
    """The mask of the active lanes of the warp (``__activemask()``), a ``uint32``."""
    return _call("uint32", "tvm_warp_activemask", span=span)


def _warp_shuffle(name, doc):
    def build(mask, value, lane_or_delta, width, warp_size, span=None):
        value = _g.convert(value)
        args = (_g.convert(mask, "uint32"), value, _g.convert(lane_or_delta, "int32"),
                _g.convert(width, "int32"), _g.convert(warp_size, "int32"))
        return _call(value.dtype, name, *args, span=span)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = doc
    return build


tvm_warp_shuffle = _warp_shuffle(
    "tvm_warp_shuffle",
    "``tvm_warp_shuffle(mask, value, lane, width, warp_size)``: ``value`` of lane ``lane`` of "
    "the ``width``-wide group (``__shfl_sync``).",
)
tvm_warp_shuffle_up = _warp_shuffle(
    "tvm_warp_shuffle_up",
    "``tvm_warp_shuffle_up(mask, value, delta, width, warp_size)``: ``value`` of lane "
    "``lane - delta`` (``__shfl_up_sync``).",
)
tvm_warp_shuffle_down = _warp_shuffle(
    "tvm_warp_shuffle_down",
    "``tvm_warp_shuffle_down(mask, value, delta, width, warp_size)``: ``value`` of lane "
    "``lane + delta`` (``__shfl_down_sync``).",
)


# --- dtype limits ----------------------------------------------------------------------------

_FLOAT_LIMITS = {
    "float16": 65504.0,
    "float32": 3.4028234663852886e38,
    "float64": 1.7976931348623157e308,
    "bfloat16": 3.3895313892515355e38,
}


def _float_max(dtype):
    element = dtype_info(dtype).element
    if element in _FLOAT_LIMITS:
        return _FLOAT_LIMITS[element]
    import ml_dtypes  # lazy: only the exotic float formats need it

    return float(ml_dtypes.finfo(getattr(ml_dtypes, element)).max)


def max_value(dtype, span=None):
    """The largest value of ``dtype`` as a constant."""
    dtype = normalize_dtype(dtype)
    kind = dtype_info(dtype).kind
    if kind in ("int", "uint"):
        return IntImm(dtype, int_range(dtype)[1], span=span)
    if kind == "float":
        return FloatImm(dtype, _float_max(dtype), span=span)
    raise TypeError(f"Cannot decide max_value for type {dtype}")


def min_value(dtype, span=None):
    """The smallest (most negative) value of ``dtype`` as a constant."""
    dtype = normalize_dtype(dtype)
    kind = dtype_info(dtype).kind
    if kind in ("int", "uint"):
        return IntImm(dtype, int_range(dtype)[0], span=span)
    if kind == "float":
        return FloatImm(dtype, -_float_max(dtype), span=span)
    raise TypeError(f"Cannot decide min_value for type {dtype}")


def infinity(dtype, span=None):
    """Positive infinity of a float dtype."""
    dtype = normalize_dtype(dtype)
    if dtype_info(dtype).kind != "float":
        raise TypeError(f"Cannot decide infinity for type {dtype}")
    return FloatImm(dtype, math.inf, span=span)
