"""``CommonSubexprElim()``: bind expressions computed more than once to ``cse_vN`` variables.

The pass works in two steps, as Apache TVM 0.27's does:

1. *Plan* (read only). Every statement that opens a scope (``For``/``While`` bodies, each
   branch of an ``IfThenElse``, ``AttrStmt`` bodies) is a node of a scope tree; loop bounds,
   ``if``/``while`` conditions and attribute values belong to the enclosing scope. Each
   *eligible* expression is counted by structure (variables by identity), with the lowest
   common scope of its occurrences and the statement of its first occurrence. Eligible: not a
   leaf (variable, constant), not ``Ramp``/``Broadcast``, not bool-typed (conditions stay
   spelled out), and free of ``Call`` and ``BufferLoad`` (side effects, memory). Expressions
   inside a ``Let`` body are not counted (they may use the ``Let`` variable).

   Expressions are then taken shallowest first. An expression whose occurrences are all inside
   a parent that is itself bound does not get a binding of its own (it would be used once):
   ``count - consumed >= 2`` decides, where a parent bound ``n`` times consumes ``n - 1`` of
   each child's occurrences. Each chosen expression gets ``cse_vK = T.bind(expr)`` (numbered
   in that order) placed before the statement of its first occurrence when that statement
   is in the common scope, else before the scope-opening statement that leads there; deeper
   expressions then refer to the new variable.

2. *Rewrite*. The bindings are inserted, and every occurrence is replaced by its variable.
   A statement object shared by several positions of the tree (``UnrollLoop`` does that)
   gets fresh variables at its second and later positions, so the result stays SSA.

Example::

    B[i1] = (x + y) + z            cse_v1 = T.bind((x + y) + z)
    B[i2] = (x + y) + z    ==>     B[i1] = cse_v1
                                   B[i2] = cse_v1
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Call,
    Cast,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    PrimExpr,
    Select,
    StringImm,
    Sub,
    Var,
)
from ..expr_functor import ExprMutator
from ..stmt import AttrStmt, Bind, BufferLoad, For, IfThenElse, SeqStmt, While
from ..stmt_functor import StmtExprMutator, StmtVisitor, substitute
from .common import PrimFuncPass

__all__ = ["CommonSubexprElim"]

_BINARY = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And,
           Or)
_LEAVES = (Var, IntImm, FloatImm, StringImm)


class _Keys:
    """Structural keys of expressions (variables by identity), memoized per object.

    The memo holds the objects it saw, so their ids stay valid while the pass runs.
    """

    def __init__(self):
        self._memo = {}

    def __call__(self, node):
        hit = self._memo.get(id(node))
        if hit is not None:
            return hit[1]
        if isinstance(node, Var):
            key = ("var", id(node))
        elif isinstance(node, (tuple, list)):
            key = tuple(self(item) for item in node)
        elif hasattr(node, "_fields"):
            parts = [type(node).__name__, getattr(node, "dtype", None)]
            for fobj in node._fields:
                if fobj.role != "ignore":
                    parts.append(self(getattr(node, fobj.name, None)))
            key = tuple(parts)
        else:
            return (type(node).__name__, node)
        self._memo[id(node)] = (node, key)
        return key


class _Entry:
    __slots__ = ("children", "consumed", "count", "depth", "first_scope", "first_stmt", "lca",
                 "repr")

    def __init__(self, expr, scope, stmt, children, depth):
        self.count = 0
        self.consumed = 0
        self.repr = expr
        self.lca = scope
        self.first_scope = scope
        self.first_stmt = stmt
        self.children = children  # [[child key, multiplicity]]
        self.depth = depth


class _Planner(StmtVisitor):
    """Step 1: the scope tree and the table of eligible expressions (see module doc)."""

    def __init__(self, keys: _Keys):
        self.keys = keys
        self.scopes = [(-1, 0, None)]  # (parent, depth, statement that opened it)
        self.scope = 0
        self.stmt = None
        self.let_depth = 0
        self.table: dict = {}  # key -> _Entry, in discovery order

    # --- scopes -----------------------------------------------------------------------------
    def _open(self, creator) -> int:
        parent = self.scope
        self.scopes.append((parent, self.scopes[parent][1] + 1, creator))
        return len(self.scopes) - 1

    def _lca(self, a: int, b: int) -> int:
        scopes = self.scopes
        while scopes[a][1] > scopes[b][1]:
            a = scopes[a][0]
        while scopes[b][1] > scopes[a][1]:
            b = scopes[b][0]
        while a != b:
            a, b = scopes[a][0], scopes[b][0]
        return a

    def insertion_point(self, entry: _Entry):
        if entry.first_scope == entry.lca:
            return entry.first_stmt
        s = entry.first_scope
        while self.scopes[s][0] != entry.lca:
            s = self.scopes[s][0]
        return self.scopes[s][2]

    # --- statements -------------------------------------------------------------------------
    def visit_stmt(self, stmt):
        self.stmt = stmt
        return super().visit_stmt(stmt)

    def visit_expr(self, expr):
        self._scan(expr)

    def visit_for_(self, op: For):
        self._scan(op.min)
        self._scan(op.extent)
        if op.step is not None:
            self._scan(op.step)
        saved, self.scope = self.scope, self._open(op)
        self.visit_stmt(op.body)
        self.scope = saved

    def visit_while_(self, op: While):
        self._scan(op.condition)
        saved, self.scope = self.scope, self._open(op)
        self.visit_stmt(op.body)
        self.scope = saved

    def visit_if_then_else_(self, op: IfThenElse):
        self._scan(op.condition)
        saved = self.scope
        self.scope = self._open(op)
        self.visit_stmt(op.then_case)
        if op.else_case is not None:
            self.scope = saved
            self.scope = self._open(op)
            self.visit_stmt(op.else_case)
        self.scope = saved

    def visit_attr_stmt_(self, op: AttrStmt):
        if isinstance(op.value, PrimExpr):
            self._scan(op.value)
        saved, self.scope = self.scope, self._open(op)
        self.visit_stmt(op.body)
        self.scope = saved

    # --- expressions ------------------------------------------------------------------------
    def _scan(self, e) -> bool:
        """Visit ``e`` bottom-up, recording eligible sub-expressions; True when ``e`` is free
        of calls and buffer loads."""
        if not isinstance(e, PrimExpr):
            return True
        if isinstance(e, _LEAVES):
            return True
        if isinstance(e, _BINARY):
            pure = self._scan(e.a) & self._scan(e.b)
            if pure:
                self._record(e, (e.a, e.b))
            return pure
        if isinstance(e, (Not,)):
            pure = self._scan(e.a)
            if pure:
                self._record(e, (e.a,))
            return pure
        if isinstance(e, Cast):
            pure = self._scan(e.value)
            if pure:
                self._record(e, (e.value,))
            return pure
        if isinstance(e, Select):
            pure = self._scan(e.condition) & self._scan(e.true_value) & self._scan(e.false_value)
            if pure:
                self._record(e, (e.condition, e.true_value, e.false_value))
            return pure
        if isinstance(e, Let):
            pure = self._scan(e.value)
            self.let_depth += 1
            pure &= self._scan(e.body)
            self.let_depth -= 1
            return pure
        if isinstance(e, (BufferLoad, Call)):
            for value in _expr_children(e):
                self._scan(value)
            return False
        pure = True
        for value in _expr_children(e):
            pure &= self._scan(value)
        return pure

    def _record(self, e, ast_children):
        if self.let_depth > 0 or e.dtype == "bool" or e.dtype.startswith("boolx"):
            return
        key = self.keys(e)
        entry = self.table.get(key)
        if entry is None:
            children, depth = [], 0
            for child in ast_children:
                ckey = self.keys(child)
                centry = self.table.get(ckey)
                if centry is None:
                    continue
                depth = max(depth, centry.depth)
                for pair in children:
                    if pair[0] == ckey:
                        pair[1] += 1
                        break
                else:
                    children.append([ckey, 1])
            entry = _Entry(e, self.scope, self.stmt, children, depth + 1)
            self.table[key] = entry
        else:
            entry.lca = self._lca(entry.lca, self.scope)
        entry.count += 1


def _expr_children(e):
    for fobj in e._fields:
        if fobj.role == "ignore":
            continue
        value = getattr(e, fobj.name, None)
        if isinstance(value, PrimExpr):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (v for v in value if isinstance(v, PrimExpr))


class _ReplaceByKey(ExprMutator):
    """Replace every sub-expression structurally equal to ``target`` by ``var``."""

    def __init__(self, keys: _Keys, target_key, var):
        self.keys, self.target_key, self.var = keys, target_key, var

    def visit_expr(self, expr):
        if self.keys(expr) == self.target_key:
            return self.var
        return super().visit_expr(expr)


def _plan(body):
    keys = _Keys()
    planner = _Planner(keys)
    planner.visit_stmt(body)
    entries = sorted(planner.table.items(), key=lambda kv: kv[1].depth)  # stable
    for _, entry in entries:
        if entry.count < 2:
            continue
        for ckey, mult in entry.children:
            planner.table[ckey].consumed += (entry.count - 1) * mult
    insert_before: dict = {}  # id(stmt) -> (stmt, [Bind])
    remap: dict = {}  # key -> cse var
    counter = 0
    for key, entry in entries:
        if entry.count - entry.consumed < 2:
            continue
        at = planner.insertion_point(entry)
        counter += 1
        var = Var(f"cse_v{counter}", entry.repr.dtype)
        insert_before.setdefault(id(at), (at, []))[1].append(Bind(var, entry.repr))
        remap[key] = var
        repr_key = keys(entry.repr)
        for _, other in entries:
            if other.depth > entry.depth:
                other.repr = _ReplaceByKey(keys, repr_key, var).visit_expr(other.repr)
    return keys, insert_before, remap


class _Rewriter(StmtExprMutator):
    """Step 2: insert the planned bindings and replace the expressions (see module doc)."""

    def __init__(self, keys, insert_before, remap):
        self.keys, self.insert_before, self.remap = keys, insert_before, remap
        self.materialized = set()

    def visit_expr(self, expr):
        if not isinstance(expr, _LEAVES):
            var = self.remap.get(self.keys(expr))
            if var is not None:
                return var
        return super().visit_expr(expr)

    def visit_stmt(self, stmt):
        planned = self.insert_before.get(id(stmt))
        visited = super().visit_stmt(stmt)
        if planned is None:
            return visited
        binds = planned[1]
        if id(stmt) not in self.materialized:
            self.materialized.add(id(stmt))
            return SeqStmt.flatten([*binds, visited])
        # The same statement object at another position: bind fresh variables there.
        fresh_map, fresh = {}, []
        for bind in binds:
            value = substitute(bind.value, fresh_map) if fresh_map else bind.value
            var = Var(bind.var.name, bind.var.dtype)
            fresh_map[bind.var] = var
            fresh.append(Bind(var, value))
        return SeqStmt.flatten([*fresh, substitute(visited, fresh_map)])


def CommonSubexprElim():
    """Bind repeated pure expressions to ``cse_vN`` variables (see module doc)."""

    def run(func, mod, ctx):
        keys, insert_before, remap = _plan(func.body)
        if not insert_before:
            return func
        return func.with_body(_Rewriter(keys, insert_before, remap).visit_stmt(func.body))

    return PrimFuncPass(run, PassInfo(0, "tirx.CommonSubexprElim"))
