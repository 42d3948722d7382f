"""``IRModule``: the unit passes transform, a map from ``GlobalVar`` to functions.

Mutation semantics
------------------
Like every node, an ``IRModule`` is immutable through attribute assignment. As in Apache TVM,
though, ``mod["f"] = func``, :meth:`IRModule.update_func` and :meth:`IRModule.update` change the
module *in place*. They install a **new** ``functions`` dict rather than editing the old one, so
a dict obtained earlier from ``mod.functions`` keeps its contents. Passes never mutate their
input: they build a new module (``IRModule(new_functions, mod.attrs, mod.global_infos)``) or
call :meth:`IRModule.clone` first.

Structural equality compares functions by their GlobalVar *names*, so two modules built
separately compare equal when they define the same functions under the same names.
"""

from __future__ import annotations

from ..ffi.node import IGNORE, Node, field, set_field
from .attrs import DictAttrs
from .base import Scriptable
from .expr import GlobalVar

__all__ = ["GlobalInfo", "IRModule", "register_global_var_type"]


class GlobalInfo(Scriptable, Node, type_key="ir.GlobalInfo"):
    """Base class of module-level information kept in ``IRModule.global_infos``
    (for example Relax's virtual devices)."""


class IRModule(Scriptable, Node, type_key="ir.IRModule"):
    """A module of global functions, with module attributes and global infos.

    Parameters
    ----------
    functions : dict, optional
        ``{GlobalVar or str: function}``. String keys become new GlobalVars.
    attrs : dict or DictAttrs, optional
        Module attributes.
    global_infos : dict, optional
        ``{name: [GlobalInfo, ...]}`` (for example virtual devices).

    Examples
    --------
    >>> from tvm.ir import IRModule
    >>> mod = IRModule()
    >>> "main" in mod
    False
    """

    functions: dict
    attrs: object = None
    global_infos: dict = field(None)
    span: object = field(None, role=IGNORE, kw_only=True)

    def __init__(self, functions=None, attrs=None, global_infos=None):
        funcs = {}
        for key, func in (functions or {}).items():
            if isinstance(key, str):
                key = GlobalVar(key)
            if not isinstance(key, GlobalVar):
                raise TypeError(f"IRModule keys must be GlobalVar or str, got {key!r}")
            _attach_type(key, func)
            funcs[key] = func
        # As in TVM, a module always has a (possibly empty) DictAttrs.
        if not isinstance(attrs, DictAttrs):
            attrs = DictAttrs(dict(attrs or {}))
        infos = {k: tuple(v) for k, v in (global_infos or {}).items()}
        self.__init_fields__(funcs, attrs, infos)

    # --- lookup -------------------------------------------------------------------------------
    def get_global_var(self, name: str) -> GlobalVar:
        """The GlobalVar called ``name``; ``ValueError`` listing the candidates if absent."""
        for gvar in self.functions:
            if gvar.name_hint == name:
                return gvar
        candidates = ", ".join(f'"{g.name_hint}"' for g in self.functions)
        raise ValueError(
            f'Cannot find global var "{name}" in the Module\ncandidates are: [{candidates}]'
        )

    def get_global_vars(self) -> list:
        """All GlobalVars of the module, sorted by name."""
        return sorted(self.functions, key=lambda g: g.name_hint)

    def functions_items(self) -> list:
        """``(GlobalVar, function)`` pairs, sorted by name."""
        return sorted(self.functions.items(), key=lambda kv: kv[0].name_hint)

    def _lookup(self, key):
        if isinstance(key, str):
            key = self.get_global_var(key)
        if not isinstance(key, GlobalVar):
            raise TypeError(f"IRModule index must be a str or GlobalVar, got {key!r}")
        func = self.functions.get(key)
        if func is None:
            # A different GlobalVar object with the same name designates the same function.
            return self.functions[self.get_global_var(key.name_hint)]
        return func

    def __getitem__(self, key):
        return self._lookup(key)

    def __contains__(self, key) -> bool:
        if isinstance(key, GlobalVar):
            key = key.name_hint
        return any(g.name_hint == key for g in self.functions)

    def __len__(self):
        return len(self.functions)

    def __iter__(self):
        return iter(self.functions.items())

    def items(self):
        return self.functions.items()

    def get_attr(self, key, default=None):
        """A module attribute, or ``default``."""
        return default if self.attrs is None else self.attrs.get(key, default)

    # --- in-place updates (see module docstring) ---------------------------------------------
    def __setitem__(self, key, func):
        if isinstance(key, str):
            key = self.get_global_var(key) if key in self else GlobalVar(key)
        self.update_func(key, func)

    def update_func(self, gvar: GlobalVar, func) -> None:
        """Set (or add) the function for ``gvar`` in place."""
        if not isinstance(gvar, GlobalVar):
            raise TypeError(f"update_func expects a GlobalVar, got {gvar!r}")
        funcs = dict(self.functions)
        # Replace a same-named GlobalVar rather than adding a second entry.
        for existing in list(funcs):
            if existing.name_hint == gvar.name_hint and existing is not gvar:
                del funcs[existing]
        _attach_type(gvar, func)
        funcs[gvar] = func
        set_field(self, "functions", funcs)

    def remove(self, gvar) -> None:
        """Remove a function in place (by GlobalVar or name)."""
        if isinstance(gvar, str):
            gvar = self.get_global_var(gvar)
        funcs = {g: f for g, f in self.functions.items() if g.name_hint != gvar.name_hint}
        set_field(self, "functions", funcs)

    def __delitem__(self, key):
        self.remove(key)

    def update(self, other) -> None:
        """Add every function of ``other`` (an IRModule or dict) in place."""
        items = other.functions.items() if isinstance(other, IRModule) else other.items()
        for gvar, func in items:
            self[gvar] = func

    # --- functional updates --------------------------------------------------------------------
    def clone(self) -> IRModule:
        """A shallow copy (same functions and GlobalVars, independent function table)."""
        return IRModule(dict(self.functions), self.attrs, dict(self.global_infos))

    def with_attr(self, attr_key: str, attr_value) -> IRModule:
        """A copy of the module with attribute ``attr_key`` set."""
        attrs = (
            self.attrs.with_attr(attr_key, attr_value)
            if self.attrs is not None
            else (DictAttrs({attr_key: attr_value}))
        )
        return IRModule(dict(self.functions), attrs, dict(self.global_infos))

    def without_attr(self, attr_key: str) -> IRModule:
        """A copy of the module without attribute ``attr_key``."""
        attrs = None if self.attrs is None else self.attrs.without_attr(attr_key)
        return IRModule(dict(self.functions), attrs, dict(self.global_infos))

    def with_attrs(self, attr_map) -> IRModule:
        mod = self
        for key, value in dict(attr_map).items():
            mod = mod.with_attr(key, value)
        return mod

    def update_global_info(self, name: str, global_info: list) -> None:
        """Set global infos ``name`` in place."""
        infos = dict(self.global_infos)
        infos[name] = tuple(global_info)
        set_field(self, "global_infos", infos)

    @staticmethod
    def from_expr(expr, functions=None, type_defs=None) -> IRModule:
        """A module whose ``main`` is ``expr`` (wrapped in a parameterless function if needed)."""
        funcs = dict(functions or {})
        name = "main"
        func = expr
        if not _is_function(expr):
            # Lazy: the Relax layer sits above ``ir``; only needed for bare expressions.
            from tvm.relax.expr import Function

            func = Function([], expr)
        elif getattr(expr, "attrs", None) is not None and "global_symbol" in expr.attrs:
            name = expr.attrs["global_symbol"]
        funcs[GlobalVar(name)] = func
        return IRModule(funcs)

    def __repr__(self):
        names = ", ".join(g.name_hint for g in self.get_global_vars())
        return f"IRModule([{names}])"


def _is_function(value) -> bool:
    return hasattr(value, "params") and hasattr(value, "body")


# type key of a function kind -> rule giving the type its GlobalVar has in a module. Upper
# layers register here: Relax gives a TIR PrimFunc's GlobalVar a Relax function type, so that
# ``R.call_tir(gv, ...)`` and the well-formedness rules see a callable.
_GLOBAL_VAR_TYPE_RULES: dict = {}


def register_global_var_type(func_type_key: str, rule, depends_on=None) -> None:
    """Make ``rule(func) -> Type`` give the GlobalVar type of functions of ``func_type_key``.

    ``depends_on(func) -> tuple``, optional, names the (immutable) parts of the function the
    type is made from; a GlobalVar typed for parts identical to a new function's keeps its
    type (see ``_attach_type``). Without it the function itself is that part.
    """
    _GLOBAL_VAR_TYPE_RULES[func_type_key] = (rule, depends_on or _whole_function)


def _whole_function(func) -> tuple:
    return (func,)


def _attach_type(gvar: GlobalVar, func) -> None:
    """Give ``gvar`` its function's type (TVM does this when a function is added).

    Functions whose kind has a registered rule always get the rule's type; others set the
    GlobalVar's type only when it has none yet.
    """
    entry = _GLOBAL_VAR_TYPE_RULES.get(getattr(func, "type_key", None))
    if entry is not None:
        rule, depends_on = entry
        # Why: passes rebuild modules (``clone``, ``IRModule(new_functions)``) many times with
        # the same GlobalVar -> function pairs, or functions whose signature parts are the
        # same objects (a TIR pass changes bodies only). Nodes are immutable, so when ``gvar``
        # still holds the type the rule made from these very parts, deriving it again gives
        # an equal type. Parts and type are checked by identity: anything else re-derives.
        parts = depends_on(func)
        origin = getattr(gvar, "_ty_origin", None)
        if (
            origin is not None
            and origin[1] is gvar.ty
            and len(origin[0]) == len(parts)
            and all(a is b for a, b in zip(origin[0], parts))
        ):
            return
        ty = rule(func)
        if ty is not None and gvar.ty is not ty:
            set_field(gvar, "ty", ty)
        object.__setattr__(gvar, "_ty_origin", (parts, gvar.ty) if ty is not None else None)
        return
    ty = getattr(func, "ty", None)
    if gvar.ty is None and ty is not None:
        set_field(gvar, "ty", ty)
