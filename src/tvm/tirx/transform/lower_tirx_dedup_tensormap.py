"""``LowerTIRxDedupCuTensorMaps``: one ``CUtensorMap`` per distinct TMA descriptor.

Tile primitives that copy with TMA each create their descriptor on the host: a ``Bind`` of
``T.tvm_stack_alloca("tensormap", 1)`` and an ``evaluate`` of
``T.call_packed("runtime.cuTensorMapEncodeTiled", map, <arguments>)``. Two copies of the same
global tile encode the same descriptor twice. This pass keeps the first encode of each
argument list and makes later ones with structurally equal arguments use its map:

* the later map variable is replaced by the first one everywhere (kernel arguments too);
* its ``tvm_stack_alloca`` binding and its encode call are removed.

An encode is visible to the statements after it in its own block and in the blocks nested in
it; a loop body, a while body, and each branch of an ``if`` open a new block, so an encode
inside a branch is not reused after the branch. Functions without a duplicate come back as
they are (the same object).

Apache TVM has this pass after 0.27 (``tirx.LowerTIRxDedupCuTensorMaps``), outside its
pipelines; it is not in the ``tirx`` pipeline here either.

Before::

    A_map: T.handle = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float16", 2, A.data, 64, 64, ...)
    A_map_1: T.handle = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map_1, "float16", 2, A.data, 64, 64, ...)
    T.call_packed("k_kernel", A_map, A_map_1)

After::

    A_map: T.handle = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float16", 2, A.data, 64, 64, ...)
    T.call_packed("k_kernel", A_map, A_map)
"""

from __future__ import annotations

from ...ir.structural import structural_equal
from ...ir.transform import PassInfo
from ..expr import Call, IntImm, StringImm, Var
from ..stmt import Bind, Evaluate, For, IfThenElse, SeqStmt, While
from ..stmt_functor import StmtExprMutator, StmtExprVisitor
from .common import PrimFuncPass

__all__ = ["LowerTIRxDedupCuTensorMaps", "dedup_cu_tensor_maps"]

_ENCODE = "runtime.cuTensorMapEncodeTiled"


def _op_name(call) -> str:
    return getattr(call.op, "name", "")


def _encode_of(stmt):
    """``(map var or None, argument list)`` of an encode ``evaluate``, else None."""
    if not isinstance(stmt, Evaluate) or not isinstance(stmt.value, Call):
        return None
    call = stmt.value
    if _op_name(call) != "tirx.tvm_call_packed" or len(call.args) < 2:
        return None
    name = call.args[0]
    if not (isinstance(name, StringImm) and name.value == _ENCODE):
        return None
    var = call.args[1] if isinstance(call.args[1], Var) else None
    return var, list(call.args[2:])


def _is_map_alloca(stmt) -> bool:
    value = stmt.value
    return (isinstance(value, Call) and _op_name(value) == "tirx.tvm_stack_alloca"
            and len(value.args) == 2 and isinstance(value.args[0], StringImm)
            and value.args[0].value == "tensormap")


def _known(scopes, key):
    for scope in scopes:
        for k, var in scope:
            if len(k) == len(key) and structural_equal(k, key, map_free_vars=False):
                return var
    return None


class _Analyzer(StmtExprVisitor):
    """Which map variables repeat an earlier encode: ``remap[id(var)] = (var, canonical)``."""

    def __init__(self):
        super().__init__()
        self.scopes = [[]]
        self.remap = {}

    def _nested(self, stmt):
        self.scopes.append([])
        try:
            self.visit_stmt(stmt)
        finally:
            self.scopes.pop()

    def visit_for_(self, op: For):
        self.visit_expr(op.min)
        self.visit_expr(op.extent)
        self._nested(op.body)

    def visit_while_(self, op: While):
        self.visit_expr(op.condition)
        self._nested(op.body)

    def visit_if_then_else_(self, op: IfThenElse):
        self.visit_expr(op.condition)
        self._nested(op.then_case)
        if op.else_case is not None:
            self._nested(op.else_case)

    def visit_evaluate_(self, op: Evaluate):
        found = _encode_of(op)
        if found is not None and found[0] is not None:
            var, key = found
            canonical = _known(self.scopes, key)
            if canonical is None:
                self.scopes[-1].append((key, var))
            elif canonical is not var:
                self.remap[id(var)] = (var, canonical)
        super().visit_evaluate_(op)


class _Rewriter(StmtExprMutator):
    """Use the canonical maps; drop the repeated allocations and encodes."""

    def __init__(self, remap):
        super().__init__()
        self.remap = remap
        self.scopes = [[]]

    def visit_var_(self, op):
        entry = self.remap.get(id(op))
        return op if entry is None or entry[0] is not op else entry[1]

    def _nested(self, stmt):
        self.scopes.append([])
        try:
            return self.visit_stmt(stmt)
        finally:
            self.scopes.pop()

    def visit_for_(self, op: For):
        lo, extent = self.visit_expr(op.min), self.visit_expr(op.extent)
        body = self._nested(op.body)
        if lo is op.min and extent is op.extent and body is op.body:
            return op
        return op.replace(min=lo, extent=extent, body=body)

    def visit_while_(self, op: While):
        cond = self.visit_expr(op.condition)
        body = self._nested(op.body)
        if cond is op.condition and body is op.body:
            return op
        return op.replace(condition=cond, body=body)

    def visit_if_then_else_(self, op: IfThenElse):
        cond = self.visit_expr(op.condition)
        then_case = self._nested(op.then_case)
        else_case = None if op.else_case is None else self._nested(op.else_case)
        if cond is op.condition and then_case is op.then_case and else_case is op.else_case:
            return op
        return op.replace(condition=cond, then_case=then_case, else_case=else_case)

    def visit_bind_(self, op: Bind):
        if _is_map_alloca(op) and id(op.var) in self.remap:
            return Evaluate(IntImm("int32", 0))
        return super().visit_bind_(op)

    def visit_evaluate_(self, op: Evaluate):
        new = super().visit_evaluate_(op)
        found = _encode_of(new)
        if found is None:
            return new
        if _known(self.scopes, found[1]) is not None:
            return Evaluate(IntImm("int32", 0))
        self.scopes[-1].append((found[1], found[0]))
        return new

    def visit_seq_stmt_(self, op: SeqStmt):
        out = []
        for stmt in op.seq:
            new = self.visit_stmt(stmt)
            dropped = (isinstance(new, Evaluate) and isinstance(new.value, IntImm)
                       and new.value.value == 0 and new is not stmt)
            if not dropped:
                out.append(new)
        if len(out) == len(op.seq) and all(a is b for a, b in zip(out, op.seq)):
            return op
        return SeqStmt.flatten(out)


def dedup_cu_tensor_maps(func):
    """One function (see the module docstring)."""
    analyzer = _Analyzer()
    analyzer.visit_stmt(func.body)
    if not analyzer.remap:
        return func
    return func.with_body(_Rewriter(analyzer.remap)(func.body))


def LowerTIRxDedupCuTensorMaps():
    """The pass object: ``tvm.tirx.transform.LowerTIRxDedupCuTensorMaps()(mod)``."""
    return PrimFuncPass(lambda f, m, c: dedup_cu_tensor_maps(f),
                        PassInfo(0, "tirx.LowerTIRxDedupCuTensorMaps"))
