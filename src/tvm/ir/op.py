"""Operators and their per-concern attribute tables.

An :class:`Op` is a named primitive (``"relax.add"``, ``"tirx.exp"``). Each *concern* (type
inference, legalization, gradient, purity, NumPy reference, ...) is one attribute key with one
table. Upper layers *register into* these tables; lower layers read them without importing the
upper layers.

Examples
--------
>>> from tvm.ir.op import register_op, register_op_attr, Op
>>> op = register_op("example.double", num_inputs=1, family="example")
>>> _ = register_op_attr("example.double", "FReference", lambda x: 2 * x)
>>> Op.get("example.double").get_attr("FReference")(3)
6
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .expr import RelaxExpr

__all__ = [
    "MissingOpRuleError",
    "Op",
    "get_op_attr_table",
    "list_op_names",
    "register_attr_loader",
    "register_op",
    "register_op_attr",
]

# name -> Op
_OPS: dict[str, Op] = {}
# attribute key -> {op name -> (value, level)}
_ATTR_TABLES: dict[str, dict[str, tuple[Any, int]]] = {}

#: Where, in the source tree, each concern's rules are authored for an op family.
CONCERN_FILES = {
    "FInferType": "infer.py",
    "FInferStructInfo": "infer.py",
    "FLegalize": "legalize.py",
    "FPrimalGradient": "grad.py",
    "FReference": "reference.py",
}
# attribute key -> a loader run once before that key's rules are first read: upper layers that
# import their rule modules lazily (relax's FLegalize rules) register it here.
_ATTR_LOADERS: dict[str, Any] = {}


def register_attr_loader(attr_key: str, loader) -> None:
    """Run ``loader()`` once, the first time any op's ``attr_key`` rules are read or reset."""
    _ATTR_LOADERS[attr_key] = loader


def _load_rules(key: str) -> None:
    loader = _ATTR_LOADERS.pop(key, None)
    if loader is not None:
        loader()


# TVM's seed-era concern names are aliases of the 0.27 ones.
ATTR_ALIASES = {"FInferStructInfo": "FInferType"}


class MissingOpRuleError(TypeError):
    """An op lacks the rule a pass needs (raised as TypeError, since the IR is unsupported)."""


class Op(RelaxExpr, type_key="ir.Op"):
    """A primitive operator. Ops are singletons: ``Op.get(name)`` always returns the same one."""

    name: str

    __slots__ = ("arguments", "attrs_type_key", "description", "family", "num_inputs")

    def __init__(self, name: str):
        self.__init_fields__(name)
        _set = object.__setattr__
        _set(self, "num_inputs", -1)
        _set(self, "arguments", ())
        _set(self, "description", "")
        _set(self, "attrs_type_key", "")
        _set(self, "family", "")

    @staticmethod
    def get(op_name: str) -> Op:
        """The registered op called ``op_name``; ``ValueError`` if there is none."""
        op = _OPS.get(op_name)
        if op is None:
            close = [n for n in _OPS if n.rsplit(".", 1)[-1] == op_name.rsplit(".", 1)[-1]]
            hint = f" Did you mean one of {close}?" if close else ""
            raise ValueError(f"Operator {op_name} is not registered.{hint}")
        return op

    def get_attr(self, attr_name: str):
        """The value of this op's ``attr_name`` rule, or ``None`` when it has none."""
        key = ATTR_ALIASES.get(attr_name, attr_name)
        _load_rules(key)
        entry = _ATTR_TABLES.get(key, {}).get(self.name)
        return None if entry is None else entry[0]

    def has_attr(self, attr_name: str) -> bool:
        """Whether this operator has a value for attribute ``attr_name`` (e.g. ``FInferType``)."""
        key = ATTR_ALIASES.get(attr_name, attr_name)
        _load_rules(key)
        return self.name in _ATTR_TABLES.get(key, {})

    def set_attr(self, attr_name: str, value, plevel: int = 10) -> None:
        """Register ``value`` as this operator's ``attr_name`` (see ``register_op_attr``)."""
        register_op_attr(self.name, attr_name, value, plevel)

    def reset_attr(self, attr_name: str) -> None:
        """Remove this operator's value for ``attr_name``."""
        key = ATTR_ALIASES.get(attr_name, attr_name)
        _load_rules(key)  # else a later load would bring the reset rule back
        _ATTR_TABLES.get(key, {}).pop(self.name, None)

    def require_attr(self, attr_name: str, purpose: str = ""):
        """The rule ``attr_name``; a :class:`MissingOpRuleError` naming op, concern and file."""
        value = self.get_attr(attr_name)
        if value is None:
            raise MissingOpRuleError(self.missing_rule_message(attr_name, purpose))
        return value

    def missing_rule_message(self, attr_name: str, purpose: str = "") -> str:
        """The error text for a missing ``attr_name`` rule: what is missing, where to add it."""
        where = ""
        if self.family and attr_name in CONCERN_FILES:
            where = (
                f" Add it in src/tvm/relax/op/{self.family}/{CONCERN_FILES[attr_name]}"
                if self.name.startswith("relax.")
                else f" Add it next to the op family '{self.family}'"
            )
            where += f" with register_op_attr({self.name!r}, {attr_name!r}, ...)."
        why = f" ({purpose})" if purpose else ""
        return f"Attribute {attr_name} has not been registered for {self.name}{why}.{where}"

    @staticmethod
    def list_op_names() -> list[str]:
        """Names of every registered operator, sorted."""
        return sorted(_OPS)

    def __repr__(self):
        return f'Op("{self.name}")'

    def __reduce__(self):
        return (Op.get, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def register_op(
    name: str,
    num_inputs: int = -1,
    arguments=(),
    description: str = "",
    attrs_type_key: str = "",
    family: str = "",
) -> Op:
    """Declare an op (idempotent: re-registering returns the existing op, updating metadata)."""
    op = _OPS.get(name)
    if op is None:
        op = Op(name)
        _OPS[name] = op
    _set = object.__setattr__
    if num_inputs != -1:
        _set(op, "num_inputs", num_inputs)
    if arguments:
        _set(op, "arguments", tuple(arguments))
    if description:
        _set(op, "description", description)
    if attrs_type_key:
        _set(op, "attrs_type_key", attrs_type_key)
    if family:
        _set(op, "family", family)
    return op


def register_op_attr(op_name: str, attr_key: str, value=None, level: int = 10):
    """Register ``value`` as op ``op_name``'s ``attr_key`` rule.

    Used directly (``register_op_attr(name, key, fn)``) or as a decorator
    (``@register_op_attr(name, key)``). A registration with a lower ``level`` than the existing
    one is ignored; an equal or higher level overrides it (so a backend can override a default).
    An op not declared yet is declared by its first attribute, as in TVM (a user-defined op:
    ``register_op_attr("custom.op", "FInferType", rule)``).
    """
    if op_name not in _OPS:
        register_op(op_name)
    key = ATTR_ALIASES.get(attr_key, attr_key)

    def _register(fn):
        table = _ATTR_TABLES.setdefault(key, {})
        existing = table.get(op_name)
        if existing is None or level >= existing[1]:
            table[op_name] = (fn, level)
        return fn

    if value is None:
        return _register
    return _register(value)


def get_op_attr_table(attr_key: str) -> dict[str, Callable]:
    """A snapshot ``{op name: rule}`` of one concern's table."""
    key = ATTR_ALIASES.get(attr_key, attr_key)
    _load_rules(key)
    return {name: entry[0] for name, entry in _ATTR_TABLES.get(key, {}).items()}


def list_op_names() -> list[str]:
    """Every registered op name, sorted."""
    return sorted(_OPS)
