"""Execution scopes of TIRx kernels and the scope-id definitions that name them.

A TIRx kernel is written for a hierarchy of execution scopes::

    kernel > cluster > cta > warpgroup > warp > thread

(plus ``cta_pair``, the two CTAs of a cluster that share a Blackwell tcgen05 MMA).
:class:`ExecScope` names one of the five scopes a statement can run at. A
:class:`ScopeIdDef` defines index variables of one scope inside its parent scope, for example
``tx = T.thread_id([256])`` is ``ScopeIdDef([tx], [256], "cta", "thread")``: the thread's
index among the 256 threads of its CTA. It lives in a ``ScopeIdDefStmt`` (``tvm.tirx.stmt``).

Only the (parent, current) pairs of :data:`SCOPE_BINDINGS` exist; each has a fixed integer
code, stored in ``ScopeIdDef.scope``.
"""

from __future__ import annotations

from ..ffi.node import DEF, Node, field
from ..ir.expr import PrimExpr
from .expr import IntImm, Var

__all__ = [
    "EXEC_SCOPE_KINDS",
    "SCOPE_BINDINGS",
    "SCOPE_ID_FUNCTIONS",
    "ExecScope",
    "ScopeIdDef",
    "scope_binding",
]

#: Scope kind name -> its integer kind, outermost first.
SCOPE_KINDS = {"world": 0, "kernel": 1, "cluster": 2, "cta": 3, "warpgroup": 4, "warp": 5,
               "thread": 6, "cta_pair": 7}

#: The scopes :class:`ExecScope` accepts.
EXEC_SCOPE_KINDS = ("cluster", "cta", "warpgroup", "warp", "thread")

#: The (parent, current) scope pairs a ScopeIdDef may bind, by their integer code.
SCOPE_BINDINGS = {
    0: ("kernel", "cluster"),
    1: ("kernel", "cta"),
    2: ("cluster", "cta"),
    3: ("cta", "warpgroup"),
    4: ("cta", "warp"),
    5: ("warpgroup", "warp"),
    6: ("warp", "thread"),
    7: ("cta", "thread"),
    8: ("warpgroup", "thread"),
    9: ("cluster", "cta_pair"),
}

#: The TVMScript call of each binding (``T.<name>``); the printer and parser share it.
SCOPE_ID_FUNCTIONS = {
    ("kernel", "cluster"): "cluster_id",
    ("kernel", "cta"): "cta_id",
    ("cluster", "cta"): "cta_id_in_cluster",
    ("cluster", "cta_pair"): "cta_id_in_pair",
    ("cta", "warpgroup"): "warpgroup_id",
    ("cta", "warp"): "warp_id",
    ("warpgroup", "warp"): "warp_id_in_wg",
    ("warp", "thread"): "lane_id",
    ("cta", "thread"): "thread_id",
    ("warpgroup", "thread"): "thread_id_in_wg",
}

_BINDING_CODE = {pair: code for code, pair in SCOPE_BINDINGS.items()}


def scope_binding(parent: str, cur: str) -> int:
    """The integer code of the scope pair ``(parent, cur)``; ``ValueError`` if none."""
    code = _BINDING_CODE.get((parent, cur))
    if code is None:
        known = ", ".join(f"{p}->{c}" for p, c in SCOPE_BINDINGS.values())
        raise ValueError(
            f"There is no scope id of scope {cur!r} inside scope {parent!r}; the scope pairs "
            f"are {known}"
        )
    return code


def _extent(value):
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"A scope id extent must be an int or a PrimExpr, got {value!r}")
    return IntImm("int32", value)


def _extents(values):
    if values is None:
        return None
    if isinstance(values, (int, PrimExpr)):
        values = [values]
    return tuple(_extent(v) for v in values)


class ScopeIdDef(Node, type_key="tirx.ScopeIdDef"):
    """Index variables ``def_ids`` of scope ``cur`` inside scope ``parent``.

    Parameters
    ----------
    def_ids : list of Var
        The index variables, one per dimension (``bx, by = T.cta_id([8, 10])``).
    extents : list of int or PrimExpr, or None
        The extent of each dimension. ``None`` defers it: it is inferred from the sibling
        scope ids when the kernel is lowered; a deferred definition has exactly one variable.
    parent, cur : str
        The scope pair, one of :data:`SCOPE_BINDINGS`.
    preferred_extents : list of int or PrimExpr, optional
        Only for ``cluster -> cta``: the preferred cluster shape (checked by
        ``verify_tirx_well_formed`` to have as many entries as ``extents``).
    """

    def_ids: tuple = field(role=DEF)
    extents: object = None
    scope: int = 0
    preferred_extents: object = None

    def __init__(self, def_ids, extents, parent, cur, preferred_extents=None):
        def_ids = tuple(def_ids)
        for v in def_ids:
            if not isinstance(v, Var):
                raise TypeError(f"ScopeIdDef def_ids must be tirx.Vars, got {v!r}")
        if not def_ids:
            raise ValueError("A ScopeIdDef must define at least one Var")
        code = scope_binding(parent, cur)
        extents = _extents(extents)
        if extents is None and len(def_ids) != 1:
            raise ValueError(
                f"Deferred ScopeIdDef (extents=None) of {parent}->{cur} must define exactly one "
                f"Var, got {len(def_ids)}"
            )
        if extents is not None and len(extents) != len(def_ids):
            raise ValueError(
                f"ScopeIdDef of {parent}->{cur}: {len(def_ids)} Vars but {len(extents)} extents"
            )
        preferred = _extents(preferred_extents)
        if preferred is not None and (parent, cur) != ("cluster", "cta"):
            raise ValueError(
                f"preferred extents are only allowed on cluster->cta scope ids "
                f"(T.cta_id_in_cluster), not on {parent}->{cur}"
            )
        self.__init_fields__(def_ids, extents, code, preferred)

    @property
    def parent(self) -> str:
        """The enclosing scope's name."""
        return SCOPE_BINDINGS[self.scope][0]

    @property
    def cur(self) -> str:
        """The defined scope's name."""
        return SCOPE_BINDINGS[self.scope][1]

    def __repr__(self):
        ids = ", ".join(v.name for v in self.def_ids)
        ext = None if self.extents is None else [str(e) for e in self.extents]
        return f"ScopeIdDef([{ids}], {ext}, {self.parent!r}, {self.cur!r})"

    def fused_extent(self):
        """The product of the extents (``None`` when deferred or symbolic)."""
        if self.extents is None:
            return None
        total = 1
        for e in self.extents:
            if not isinstance(e, IntImm):
                return None
            total *= e.value
        return total


class ExecScope(Node, type_key="tirx.ExecScope"):
    """An execution scope: one of ``cluster``, ``cta``, ``warpgroup``, ``warp``, ``thread``.

    >>> from tvm.tirx.exec_scope import ExecScope
    >>> ExecScope("warp").name
    'warp'
    """

    kind: int
    scope_id_def: tuple = ()

    def __init__(self, name, scope_id_def=()):
        if name not in EXEC_SCOPE_KINDS:
            raise ValueError(
                f"Unknown scope kind name {name!r}: an execution scope is one of "
                f"{', '.join(EXEC_SCOPE_KINDS)}"
            )
        self.__init_fields__(SCOPE_KINDS[name], tuple(scope_id_def))

    @property
    def name(self) -> str:
        """The scope's name (``"cta"``, ``"warp"``, ...)."""
        for key, value in SCOPE_KINDS.items():
            if value == self.kind:
                return key
        raise ValueError(f"ExecScope has an unknown kind {self.kind}")

    def __repr__(self):
        return f"ExecScope({self.name!r})"
