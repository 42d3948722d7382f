"""Evaluation of the Python expressions inside TVMScript (annotations, calls, arguments).

TVMScript is never executed as Python; statements are interpreted by the dialect handlers,
but the expressions inside them (``R.add(x, y)``, ``R.Tensor((n, 4), "float32")``,
``T.int64(3)``) are evaluated here, node by node, against the parser's variable table and
the decorated object's captured names. A failing call is reported at the call's own
location, so a bad argument list underlines exactly that call.
"""

from __future__ import annotations

import ast
import builtins
import operator
from typing import Any

from tvm.error import DiagnosticError

from . import dispatch

__all__ = ["ExprEvaluator", "UndefinedVariableError"]


class UndefinedVariableError(NameError):
    """A name used in TVMScript is neither defined by the script nor captured."""

    def __init__(self, name: str):
        super().__init__(f"Undefined variable: {name}")
        self.var_name = name


_BINARY = {
    "Add": operator.add,
    "Sub": operator.sub,
    "Mult": operator.mul,
    "Div": operator.truediv,
    "FloorDiv": operator.floordiv,
    "Mod": operator.mod,
    "Pow": operator.pow,
    "LShift": operator.lshift,
    "RShift": operator.rshift,
    "BitOr": operator.or_,
    "BitXor": operator.xor,
    "BitAnd": operator.and_,
    "MatMult": operator.matmul,
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Is": operator.is_,
    "IsNot": operator.is_not,
    "In": lambda a, b: operator.contains(b, a),
    "NotIn": lambda a, b: not operator.contains(b, a),
}
_UNARY = {
    "USub": operator.neg,
    "UAdd": operator.pos,
    "Invert": operator.invert,
    "Not": operator.not_,
}


def _is_python_value(value) -> bool:
    """A plain Python value (known while parsing), not an IR expression."""
    return value is None or isinstance(value, bool | int | float | str | tuple | list | dict)


#: The evaluator refuses Python integers wider than this many bits (``10**12**12`` would
#: otherwise run for hours): no shape, index or constant in TVMScript needs more.
MAX_INT_BITS = 1 << 16
#: ... and sequences (``"a" * n``, ``[0] * n``) longer than this many items.
MAX_SEQUENCE_LEN = 1 << 24


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _too_costly(name, lhs, rhs):
    """Why ``lhs <op> rhs`` on plain Python values would take unbounded time or memory, or None.

    Only the operators whose cost grows exponentially with the size of the source text are
    bounded: ``**`` and ``<<`` on integers, and repetition of a sequence by ``*``.
    """
    if name == "Pow" and _is_int(lhs) and _is_int(rhs) and rhs > 0 and abs(lhs) > 1:
        bits = (abs(lhs).bit_length() - 1) * rhs if rhs < MAX_INT_BITS * 2 else MAX_INT_BITS * 2
        if bits > MAX_INT_BITS:
            return (
                f"{lhs} ** {rhs} is too large to evaluate while parsing (more than "
                f"{MAX_INT_BITS} bits; TVMScript integers are at most 64 bits)"
            )
    elif name == "LShift" and _is_int(lhs) and _is_int(rhs) and lhs != 0:
        if rhs + abs(lhs).bit_length() > MAX_INT_BITS:
            return (
                f"{lhs} << {rhs} is too large to evaluate while parsing (more than "
                f"{MAX_INT_BITS} bits; TVMScript integers are at most 64 bits)"
            )
    elif name == "Mult":
        for seq, count in ((lhs, rhs), (rhs, lhs)):
            if (isinstance(seq, str | bytes | tuple | list) and _is_int(count)
                    and len(seq) * count > MAX_SEQUENCE_LEN):
                return (
                    f"repeating a {type(seq).__name__} of length {len(seq)} {count} times "
                    f"is too large to evaluate while parsing (limit {MAX_SEQUENCE_LEN} items)"
                )
    return None


class _EvalMethod:
    """``ExprEvaluator.eval`` in both of its forms.

    On an evaluator, ``evaluator.eval(node)`` (the parser's own use). On the class, Apache TVM's
    static form ``ExprEvaluator.eval(parser, value_table, node)``: ``node`` evaluated with the
    names of ``value_table`` (then Python's builtins); ``parser`` may be None, else its
    operator overrides apply and errors are reported at its source.
    """

    def __get__(self, obj, owner):
        if obj is None:
            return _eval_with_table
        return obj._eval


class _ValueTableParser:
    """The parser stand-in of the static form: names from a dict, errors raised plainly (or
    through the real parser when there is one)."""

    def __init__(self, parser, value_table):
        self._parser = parser
        self._table = dict(value_table or {})
        self.extra_vars = self._table
        self.var_table = _NoScriptNames()
        self.current_token = getattr(parser, "current_token", "default")
        self.source = getattr(parser, "source", None) or _NamedSource("<expr>")

    def lookup(self, name):
        if name in self._table:
            return self._table[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if self._parser is not None:
            return self._parser.lookup(name)
        raise UndefinedVariableError(name)

    def report_error(self, node, err):
        if self._parser is not None:
            self._parser.report_error(node, err)
        if isinstance(err, BaseException):
            raise err
        raise ValueError(f"{err} (line {getattr(node, 'lineno', '?')})")


class _NoScriptNames:
    def get(self):
        return {}


class _NamedSource:
    def __init__(self, name):
        self.source_name = name


def _eval_with_table(parser, value_table, node):
    """``ExprEvaluator.eval(parser, value_table, node)``: see :class:`_EvalMethod`."""
    return ExprEvaluator(_ValueTableParser(parser, value_table))._eval(node)


class ExprEvaluator:
    """Evaluates expression AST nodes for a parser (names come from ``parser.lookup``)."""

    def __init__(self, parser):
        self.parser = parser
        self._methods = {
            "Constant": self._constant,
            "Name": self._name,
            "Attribute": self._attribute,
            "Call": self._call,
            "Tuple": self._tuple,
            "List": self._list,
            "Dict": self._dict,
            "Set": self._set,
            "BinOp": self._binop,
            "UnaryOp": self._unaryop,
            "BoolOp": self._boolop,
            "Compare": self._compare,
            "Subscript": self._subscript,
            "Slice": self._slice,
            "IfExp": self._ifexp,
            "JoinedStr": self._joinedstr,
            "FormattedValue": self._formatted,
            "Lambda": self._lambda,
            "Starred": self._starred,
        }

    def _eval(self, node: ast.AST) -> Any:
        """The value of ``node``."""
        method = self._methods.get(type(node).__name__)
        if method is None:
            return self._python_eval(node)
        return method(node)

    eval = _EvalMethod()

    def _python_eval(self, node):
        """Other expressions (comprehensions, ...) run as plain Python over the visible names."""
        names = dict(self.parser.extra_vars)
        names.update(self.parser.var_table.get())
        try:
            code = compile(ast.Expression(body=node), self.parser.source.source_name, "eval")
            return eval(code, names)  # the user's own script expression
        except DiagnosticError:
            raise
        except Exception as err:  # noqa: BLE001 - reported at the expression
            self.parser.report_error(node, err)

    # Leaves -------------------------------------------------------------------------------
    def _constant(self, node):
        return node.value

    def _name(self, node):
        return self.parser.lookup(node.id)

    def _attribute(self, node):
        value = self.eval(node.value)
        if node.attr == "layout" and type(value).__name__ == "Buffer":
            return _script_buffer_layout(value)
        try:
            return getattr(value, node.attr)
        except AttributeError as err:
            self.parser.report_error(node, err)

    # Containers ---------------------------------------------------------------------------
    def _tuple(self, node):
        return tuple(self._elements(node.elts))

    def _list(self, node):
        return self._elements(node.elts)

    def _set(self, node):
        return set(self._elements(node.elts))

    def _elements(self, elts):
        out = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                out.extend(self.eval(elt.value))
            else:
                out.append(self.eval(elt))
        return out

    def _dict(self, node):
        out = {}
        for key, value in zip(node.keys, node.values):
            if key is None:  # ``**mapping``
                out.update(self.eval(value))
            else:
                out[self.eval(key)] = self.eval(value)
        return out

    def _starred(self, node):
        return self.eval(node.value)

    # Operators ----------------------------------------------------------------------------
    def _apply(self, node, op_name, operands, default):
        token = self.parser.current_token
        func = dispatch.get_op(token, op_name, len(operands)) or default
        try:
            return func(*operands)
        except DiagnosticError:
            raise
        except Exception as err:  # noqa: BLE001 - any failure is reported at the operator
            self.parser.report_error(node, err)

    def _binop(self, node):
        lhs = self.eval(node.left)
        rhs = self.eval(node.right)
        name = type(node.op).__name__
        problem = _too_costly(name, lhs, rhs)
        if problem is not None:
            self.parser.report_error(node, ValueError(problem))
        return self._apply(node, name, (lhs, rhs), _BINARY[name])

    def _unaryop(self, node):
        operand = self.eval(node.operand)
        name = type(node.op).__name__
        return self._apply(node, name, (operand,), _UNARY[name])

    def _boolop(self, node):
        name = type(node.op).__name__
        override = dispatch.get_op(self.parser.current_token, name, 2)
        result = self.eval(node.values[0])
        for operand in node.values[1:]:
            if _is_python_value(result) and (not result if name == "And" else result):
                # Python's short circuit: ``a is None or f()`` does not evaluate ``f()``
                # when ``a is None`` is already known while parsing.
                return result
            value = self.eval(operand)
            if override is not None:
                result = self._apply(node, name, (result, value), override)
            elif name == "And":
                result = result and value
            else:
                result = result or value
        return result

    def _compare(self, node):
        lhs = self.eval(node.left)
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            rhs = self.eval(comparator)
            name = type(op).__name__
            value = self._apply(node, name, (lhs, rhs), _BINARY[name])
            result = value if result is None else self._apply(node, "And", (result, value),
                                                              lambda a, b: a and b)
            lhs = rhs
        return result

    def _subscript(self, node):
        value = self.eval(node.value)
        index = self.eval(node.slice)
        try:
            return value[index]
        except DiagnosticError:
            raise
        except Exception as err:  # noqa: BLE001
            self.parser.report_error(node, err)

    def _slice(self, node):
        lower = None if node.lower is None else self.eval(node.lower)
        upper = None if node.upper is None else self.eval(node.upper)
        step = None if node.step is None else self.eval(node.step)
        return slice(lower, upper, step)

    def _ifexp(self, node):
        return self.eval(node.body) if self.eval(node.test) else self.eval(node.orelse)

    def _joinedstr(self, node):
        return "".join(str(self.eval(v)) for v in node.values)

    def _formatted(self, node):
        value = self.eval(node.value)
        spec = "" if node.format_spec is None else self.eval(node.format_spec)
        return format(value, spec)

    def _lambda(self, node):
        # Lambdas (TIR index maps) take their arguments as new names in a nested scope.
        names = [a.arg for a in node.args.args]
        parser = self.parser

        def _fn(*args):
            with parser.var_table.with_frame():
                for name, arg in zip(names, args):
                    parser.var_table.add(name, arg, allow_shadowing=True)
                return self.eval(node.body)

        # The real parameter names, so ``IndexMap.from_func`` names its variables after them.
        import inspect  # local: only lambdas need it

        _fn.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names]
        )
        return _fn

    # Calls --------------------------------------------------------------------------------
    def _call(self, node):
        func = self.eval(node.func)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.eval(arg.value))
            else:
                args.append(self.eval(arg))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        # A dialect may give meaning to calling its values (``cls.f(x)`` in Relax).
        override = dispatch.get_op(self.parser.current_token, "Call", 1)
        try:
            if override is not None:
                result = override(func, args, kwargs)
                if result is not NotImplemented:
                    return result
            return func(*args, **kwargs)
        except DiagnosticError:
            raise
        except Exception as err:  # noqa: BLE001 - reported at the call, with its traceback
            self.parser.report_error(node, err)


def _script_buffer_layout(buffer):
    """``A.layout`` in TVMScript, as in TVM 0.27: the row-major ``TileLayout`` of the shape
    for a buffer declared without a layout, None for one declared with ``layout=None``.

    pytvm stores the default as ``Buffer.layout = None`` (and ``layout=None`` as
    ``NO_LAYOUT``), so Python code reading ``buffer.layout`` directly still sees None for
    the default; only script code gets TVM's value.
    """
    from tvm.tirx.buffer import NoLayout  # lazy: the core parser serves every dialect
    from tvm.tirx.layout.buffer_layout import default_layout

    layout = buffer.layout
    if isinstance(layout, NoLayout):
        return None
    if layout is None:
        return default_layout(buffer.shape) if buffer.shape else None
    return layout
