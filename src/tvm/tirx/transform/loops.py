"""Loop passes: ``UnrollLoop`` and ``VectorizeLoop``.

``UnrollLoop`` replaces ``T.unroll`` loops of constant extent (up to ``max_extent``, 64 by
default) by copies of the body with the loop variable substituted. Before::

    for k in T.unroll(2):
        C[k] = A[k]

After::

    C[0] = A[0]
    C[1] = A[1]

``VectorizeLoop`` lowers ``T.vectorized`` loops. A loop of constant extent (2 to
``max_lanes``, 64 by default) whose body is one store of arithmetic, casts, selects and loads
(no calls, no nested statements), whose store index and every load index that uses the loop
variable simplify to a ``Ramp`` (stride 1 for the store), becomes one vector statement, as in
TVM::

    for j in T.vectorized(4):
        B[i * 4 + j] = A[i * 4 + j] * T.float32(2)

becomes ``B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2), 4)``.
Any other vectorized loop becomes a serial loop annotated ``"pragma_vectorize"``; LLVM's loop
vectorizer (O3, ``noalias`` pointers) vectorizes those in the code generator. As in TVM,
``T.vectorized`` is the user's promise that iterations are independent.
"""

from __future__ import annotations

import itertools

from ...arith.analyzer import Analyzer
from ...ir.expr import Range
from ...ir.transform import PassInfo, register_pass_config
from ...runtime.data_type import dtype_info
from ..expr import (
    Add,
    BinaryOpExpr,
    Broadcast,
    Cast,
    IntImm,
    Mul,
    Not,
    Ramp,
    Select,
    Sub,
    Var,
)
from ..function import PrimFunc
from ..stmt import BufferLoad, BufferStore, For, ForKind, SeqStmt
from ..stmt_functor import StmtExprVisitor, StmtMutator, post_order_visit, substitute
from .common import PrimFuncPass

__all__ = ["UnrollLoop", "VectorizeLoop", "unroll_loops", "vectorize_loops"]


class _Unroller(StmtMutator):
    def __init__(self, max_extent):
        super().__init__()
        self.max_extent = max_extent

    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        if op.kind != ForKind.UNROLLED:
            return op
        if not (isinstance(op.extent, IntImm) and isinstance(op.min, IntImm)):
            return op.replace(kind=ForKind.SERIAL)  # symbolic extent: keep a loop
        if op.extent.value > self.max_extent:
            return op.replace(kind=ForKind.SERIAL)
        copies = [substitute(op.body, {op.loop_var: IntImm(op.loop_var.dtype, op.min.value + k)})
                  for k in range(op.extent.value)]
        return SeqStmt.flatten(copies)


def unroll_loops(func: PrimFunc, max_extent: int = 64) -> PrimFunc:
    """Unroll the ``T.unroll`` loops of one function."""
    body = _Unroller(max_extent)(func.body)
    return func if body is func.body else func.with_body(body)


def UnrollLoop(max_extent: int = 64):
    """The pass object: ``tvm.tirx.transform.UnrollLoop()(mod)``."""
    return PrimFuncPass(lambda f, m, c: unroll_loops(f, max_extent), PassInfo(0, "tirx.UnrollLoop"))


class _NotVectorizable(Exception):
    """The loop body is outside what the vector rewrite handles (fall back to LLVM)."""


class _Found(Exception):
    """Stops a :class:`_Finder` walk at the first match."""


class _Finder(StmtExprVisitor):
    """Whether an expression holds a given variable, or a ``Call``/``Let``.

    A plain walk that stops at the first match (``post_order_visit`` would visit the whole
    tree with a callback and a seen-set per node; these checks run several times per store).
    """

    def __init__(self, var=None, calls=False):
        self.var, self.calls = var, calls

    def visit_var_(self, op):
        if op is self.var:
            raise _Found

    def visit_call_(self, op):
        if self.calls:
            raise _Found
        super().visit_call_(op)

    def visit_let_(self, op):
        if self.calls:
            raise _Found
        super().visit_let_(op)

    def found(self, expr) -> bool:
        try:
            self.visit_expr(expr)
        except _Found:
            return True
        return False


class _Lanes:
    """Rewrite one expression with the loop variable replaced by a ``Ramp`` of ``lanes``."""

    def __init__(self, var, lo, lanes):
        self.var, self.lanes = var, lanes
        self.ramp = Ramp(lo, IntImm(var.dtype, 1), lanes)
        self.analyzer = Analyzer()
        self._finder = _Finder(var)
        self._uses: dict = {}  # id(expr) -> (expr, uses the variable); nodes kept alive

    def uses_var(self, expr) -> bool:
        entry = self._uses.get(id(expr))
        if entry is None:
            entry = self._uses[id(expr)] = (expr, self._finder.found(expr))
        return entry[1]

    def widen(self, expr):
        return expr if dtype_info(expr.dtype).lanes > 1 else Broadcast(expr, self.lanes)

    def index(self, expr):
        """A vectorized index: a ``Ramp`` (or a scalar when it does not use the variable)."""
        if not self.uses_var(expr):
            return expr
        simplify = self.analyzer.simplify
        lo = self.ramp.base
        step = self._affine_step(expr)
        stride = IntImm(expr.dtype, step) if step is not None else self._constant_step(expr)
        if stride is not None:
            return Ramp(simplify(substitute(expr, {self.var: lo})), stride, self.lanes)
        # Otherwise evaluate the index at every lane; it must step by one loop-invariant
        # stride (e.g. a floordiv whose quotient is the same for all lanes).
        points = [simplify(substitute(expr, {self.var: lo + t})) for t in range(self.lanes)]
        stride = simplify(points[1] - points[0])
        for a, b in itertools.pairwise(points[1:]):
            if not self.analyzer.can_prove_equal(b - a, stride):
                raise _NotVectorizable
        return Ramp(points[0], stride, self.lanes)

    def _affine_step(self, e):
        """The step of ``e`` per unit of the loop variable when ``e`` uses it only through
        ``+``, ``-`` and multiplication by integer constants (most indices: ``i * 64 + j``),
        else None. Read off the tree: no simplification needed."""
        if e is self.var:
            return 1
        if isinstance(e, (IntImm, Var)):
            return 0
        if isinstance(e, (Add, Sub)):
            a, b = self._affine_step(e.a), self._affine_step(e.b)
            if a is None or b is None:
                return None
            return a + b if isinstance(e, Add) else a - b
        if isinstance(e, Mul):
            for term, factor in ((e.a, e.b), (e.b, e.a)):
                if isinstance(factor, IntImm):
                    step = self._affine_step(term)
                    return None if step is None else step * factor.value
        return None if self.uses_var(e) else 0

    def _constant_step(self, expr):
        """``expr(v + 1) - expr(v)`` when it is the same for every lane, else None.

        With a fresh ``t`` in ``[0, lanes - 1)``, the difference between lanes ``t + 1`` and
        ``t`` simplifies to an expression free of ``t`` exactly when every step is the same,
        so two simplifications replace one per lane (affine indices such as ``i * 64 + j``).
        """
        t = Var("t", self.var.dtype)
        self.analyzer.bind(t, Range.from_min_extent(IntImm(t.dtype, 0),
                                                    IntImm(t.dtype, self.lanes - 1)))
        lo = self.ramp.base
        step = self.analyzer.simplify(
            substitute(expr, {self.var: lo + t + 1}) - substitute(expr, {self.var: lo + t}))
        found = []
        post_order_visit(step, lambda n: found.append(n) if n is t or n is self.var else None)
        return None if found else step

    def expr(self, e):
        if not self.uses_var(e):
            return e
        if e is self.var:
            return self.ramp
        if isinstance(e, BufferLoad):
            if len(e.indices) != 1 or e.predicate is not None:
                raise _NotVectorizable
            return BufferLoad(e.buffer, [self.index(e.indices[0])])
        if isinstance(e, BinaryOpExpr):
            a, b = self.expr(e.a), self.expr(e.b)
            return type(e)(self.widen(a), self.widen(b))
        if isinstance(e, Cast):
            value = self.widen(self.expr(e.value))
            return Cast(f"{dtype_info(e.dtype).element}x{self.lanes}", value)
        if isinstance(e, Select):
            parts = [self.widen(self.expr(x)) for x in (e.condition, e.true_value,
                                                        e.false_value)]
            return Select(*parts)
        if isinstance(e, Not):
            return Not(self.widen(self.expr(e.a)))
        raise _NotVectorizable


def _vectorize_store(op: For, max_lanes: int):
    """The vector statement for ``op``, or None when the loop is not handled."""
    store = op.body
    if not (isinstance(op.extent, IntImm) and isinstance(op.min, IntImm)):
        return None
    lanes = op.extent.value
    if not (2 <= lanes <= max_lanes) or not isinstance(store, BufferStore):
        return None
    if len(store.indices) != 1 or store.predicate is not None:
        return None
    if _Finder(calls=True).found(store.value):
        return None
    rw = _Lanes(op.loop_var, op.min, lanes)
    try:
        index = rw.index(store.indices[0])
        if not (isinstance(index, Ramp) and isinstance(index.stride, IntImm)
                and index.stride.value == 1):
            return None
        value = rw.widen(rw.expr(store.value))
        return BufferStore(store.buffer, value, [index])
    except (_NotVectorizable, TypeError, ValueError):
        return None


class _Vectorizer(StmtMutator):
    def __init__(self, max_lanes=64):
        super().__init__()
        self.max_lanes = max_lanes

    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        if op.kind != ForKind.VECTORIZED:
            return op
        vector = _vectorize_store(op, self.max_lanes)
        if vector is not None:
            return vector
        annotations = dict(op.annotations or {})
        annotations["pragma_vectorize"] = IntImm("int32", 1)
        return op.replace(kind=ForKind.SERIAL, annotations=annotations)


def vectorize_loops(func: PrimFunc) -> PrimFunc:
    """Lower the ``T.vectorized`` loops of one function."""
    body = _Vectorizer()(func.body)
    return func if body is func.body else func.with_body(body)


register_pass_config("tirx.disable_vectorize", bool)


def VectorizeLoop(enable_vectorize: bool = True):
    """The pass object: ``tvm.tirx.transform.VectorizeLoop()(mod)``.

    With ``enable_vectorize=False``, or the ``PassContext`` option
    ``"tirx.disable_vectorize": True``, vectorized loops become plain serial loops.
    """

    def run(func, mod, ctx):
        if enable_vectorize and not ctx.config.get("tirx.disable_vectorize", False):
            return vectorize_loops(func)
        return func.with_body(_Serializer()(func.body))

    return PrimFuncPass(run, PassInfo(0, "tirx.VectorizeLoop"))


class _Serializer(StmtMutator):
    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        return op.replace(kind=ForKind.SERIAL) if op.kind == ForKind.VECTORIZED else op
