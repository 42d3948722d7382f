"""Plain-text rendering of PrimExprs in TVMScript's expression syntax (``x + T.int64(1)``).

This is the ``repr`` of every ``tvm.tirx`` expression, so expressions read well in errors and
tests without the TVMScript printer (which lives in the higher ``script`` layer and may
render expressions itself). Node types defined elsewhere add their form with
:func:`register_expr_text`.

Examples
--------
>>> from tvm import tirx
>>> x = tirx.Var("x")
>>> tirx.expr_text.expr_text((x + 1) * 2 < tirx.const(3, "int64"))
'T.Cast("int64", (x + 1) * 2) < T.int64(3)'
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["const_text", "expr_text", "register_expr_text"]

# Binding strength, loosest first (Python's own precedence, which TVMScript uses).
_PREC_OR, _PREC_AND, _PREC_NOT, _PREC_CMP = 1, 2, 3, 4
_PREC_BOR, _PREC_BXOR, _PREC_BAND, _PREC_SHIFT = 5, 6, 7, 8
_PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_ATOM = 9, 10, 11, 12

_INFIX = {
    "Add": ("+", _PREC_ADD),
    "Sub": ("-", _PREC_ADD),
    "Mul": ("*", _PREC_MUL),
    "FloorDiv": ("//", _PREC_MUL),
    "FloorMod": ("%", _PREC_MUL),
    "EQ": ("==", _PREC_CMP),
    "NE": ("!=", _PREC_CMP),
    "LT": ("<", _PREC_CMP),
    "LE": ("<=", _PREC_CMP),
    "GT": (">", _PREC_CMP),
    "GE": (">=", _PREC_CMP),
    "And": ("and", _PREC_AND),
    "Or": ("or", _PREC_OR),
    "BitwiseAnd": ("&", _PREC_BAND),
    "BitwiseOr": ("|", _PREC_BOR),
    "BitwiseXor": ("^", _PREC_BXOR),
    "LShift": ("<<", _PREC_SHIFT),
    "RShift": (">>", _PREC_SHIFT),
}
_CALL_FORM = {"Min": "T.min", "Max": "T.max", "Mod": "T.truncmod"}

#: Extra renderers: class -> fn(expr, text_of_child) -> (text, precedence).
_EXTRA: dict[type, Callable] = {}


def register_expr_text(cls: type, render: Callable) -> None:
    """Register ``render(expr, text) -> (str, precedence)`` for a node class defined elsewhere.

    ``text(child)`` renders a child expression; return precedence 12 for atoms/calls.
    """
    _EXTRA[cls] = render


def const_text(dtype: str, value) -> str:
    """How TVMScript writes a constant: ``3``, ``T.int64(3)``, ``T.float32(1.5)``."""
    if dtype == "bool":
        return f"T.bool({bool(value)})"
    if isinstance(value, float) or dtype.startswith(("float", "bfloat")):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return f'T.{dtype}("{value}")'
        if value.is_integer():
            body = f"{int(value)}.0"
        else:
            body = f"{value:.17g}"
            if "." not in body and "e" not in body:
                body += ".0"
        return f"T.{dtype}({body})"
    if dtype == "int32":
        return str(value)
    return f"T.{dtype}({value})"


def expr_text(expr) -> str:
    """Render ``expr`` as TVMScript expression text."""
    return _render(expr)[0]


def _render(e):
    name = type(e).__name__
    for cls in type(e).__mro__:
        render = _EXTRA.get(cls)
        if render is not None:
            return render(e, expr_text)
    if name in _INFIX and hasattr(e, "b"):
        symbol, prec = _INFIX[name]
        left, lprec = _render(e.a)
        right, rprec = _render(e.b)
        # Comparisons don't chain; other operators associate to the left.
        if lprec < prec or (prec == _PREC_CMP and lprec <= prec):
            left = f"({left})"
        if rprec <= prec:
            right = f"({right})"
        return f"{left} {symbol} {right}", prec
    if name in _CALL_FORM:
        return f"{_CALL_FORM[name]}({expr_text(e.a)}, {expr_text(e.b)})", _PREC_ATOM
    if name == "Div":
        if e.dtype.startswith(("float", "bfloat")):
            left, lprec = _render(e.a)
            right, rprec = _render(e.b)
            left = f"({left})" if lprec < _PREC_MUL else left
            right = f"({right})" if rprec <= _PREC_MUL else right
            return f"{left} / {right}", _PREC_MUL
        return f"T.Div({expr_text(e.a)}, {expr_text(e.b)})", _PREC_ATOM
    if name in ("Var", "SizeVar") or getattr(e, "_sequal_kind", None) == "var":
        return getattr(e, "name", None) or getattr(e, "name_hint", "v"), _PREC_ATOM
    if name in ("IntImm", "FloatImm"):
        text = const_text(e.dtype, e.value)
        return text, (_PREC_UNARY if text.startswith("-") else _PREC_ATOM)
    if name == "StringImm":
        return _quote(e.value), _PREC_ATOM
    if name == "Not":
        operand, prec = _render(e.a)
        return f"not {f'({operand})' if prec < _PREC_NOT else operand}", _PREC_NOT
    if name == "BitwiseNot":
        operand, prec = _render(e.a)
        return f"~{f'({operand})' if prec < _PREC_UNARY else operand}", _PREC_UNARY
    if name == "Cast":
        return f'T.Cast("{e.dtype}", {expr_text(e.value)})', _PREC_ATOM
    if name == "Select":
        parts = ", ".join(expr_text(x) for x in (e.condition, e.true_value, e.false_value))
        return f"T.Select({parts})", _PREC_ATOM
    if name == "Let":
        return (
            f"T.Let({expr_text(e.body)}, where={{{expr_text(e.var)}: {expr_text(e.value)}}})",
            _PREC_ATOM,
        )
    if name == "Ramp":
        return (
            f"T.Ramp({expr_text(e.base)}, {expr_text(e.stride)}, {expr_text(e.lanes)})",
            _PREC_ATOM,
        )
    if name == "Broadcast":
        return f"T.Broadcast({expr_text(e.value)}, {expr_text(e.lanes)})", _PREC_ATOM
    if name == "Shuffle":
        vectors = ", ".join(expr_text(v) for v in e.vectors)
        indices = ", ".join(expr_text(i) for i in e.indices)
        return f"T.Shuffle([{vectors}], [{indices}])", _PREC_ATOM
    if name == "Call":
        return _call_text(e), _PREC_ATOM
    return object.__repr__(e), _PREC_ATOM


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Calls whose TVMScript form names the result dtype first.
_DTYPE_FIRST = {
    "tirx.call_extern",
    "tirx.call_pure_extern",
    "tirx.call_llvm_intrin",
    "tirx.call_llvm_pure_intrin",
    "tirx.reinterpret",
    "tirx.get_active_lane_mask",
}


def _call_text(e) -> str:
    op_name = getattr(e.op, "name", None)
    args = [expr_text(a) if not isinstance(a, str) else _quote(a) for a in e.args]
    if op_name is None:  # a GlobalVar or other callee
        callee = getattr(e.op, "name_hint", None) or repr(e.op)
        return f"{callee}({', '.join(args)})"
    if op_name in _DTYPE_FIRST:
        args.insert(0, f'"{e.dtype}"')
    short = op_name.removeprefix("tirx.")
    return f"T.{short}({', '.join(args)})"
