"""Loop passes: ``UnrollLoop`` and ``VectorizeLoop``.

``UnrollLoop`` replaces ``T.unroll`` loops of constant extent (up to ``max_extent``, 64 by
default) by copies of the body with the loop variable substituted (buffers allocated in the
body are new in each copy); the ``"tirx.UnrollLoop"`` option unrolls serial loops too, as in
TVM 0.27 (see :class:`_Unroller`). Before::

    for k in T.unroll(2):
        C[k] = A[k]

After::

    C[0] = A[0]
    C[1] = A[1]

``VectorizeLoop`` lowers ``T.vectorized`` loops. A loop of constant extent (2 to
``max_lanes``, 64 by default), or of extent ``k * T.vscale()`` on a target with scalable
vectors (SVE, RVV), whose body is a sequence of stores and ``T.bind`` of arithmetic, casts,
selects, loads, lane-wise calls (``T.reinterpret``, ``T.call_llvm_pure_intrin``) and
``T.if_then_else`` with a loop-invariant condition (no other calls or nested statements),
whose store indices and every load index that uses the loop variable simplify to a ``Ramp``
(stride 1 for stores), becomes vector statements (bound variables become vectors), as in
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
from ...error import InternalError
from ...ir.expr import Range
from ...ir.op import Op
from ...ir.transform import PassContext, PassInfo, register_pass_config
from ...runtime.data_type import dtype_info, with_lanes
from ...target import Target
from ..expr import (
    LT,
    Add,
    BinaryOpExpr,
    Broadcast,
    Call,
    Cast,
    IntImm,
    Mul,
    Not,
    PrimExpr,
    Ramp,
    Select,
    StringImm,
    Sub,
    Var,
)
from ..function import PrimFunc
from ..stmt import (
    AllocBuffer,
    Bind,
    BufferLoad,
    BufferStore,
    DeclBuffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    SeqStmt,
    While,
)
from ..stmt_functor import (
    StmtExprVisitor,
    StmtMutator,
    _Substitute,  # the buffer-aware substituter, one copy per unroll
    post_order_visit,
    substitute,
)
from .common import PrimFuncPass

__all__ = ["UnrollLoop", "VectorizeError", "VectorizeLoop", "unroll_loops", "vectorize_loops"]


#: ``PassContext`` option of ``UnrollLoop`` (as in TVM 0.27): a dict of
#: ``auto_max_step`` (int, 0), ``auto_max_depth`` (int, 8), ``auto_max_extent`` (int, 0),
#: ``explicit_unroll`` (bool, True) and ``unroll_local_access`` (bool, False).
register_pass_config("tirx.UnrollLoop", dict)
_UNROLL_OPTIONS = {
    "auto_max_step": (int, 0),
    "auto_max_depth": (int, 8),
    "auto_max_extent": (int, 0),
    "explicit_unroll": (bool, True),
    "unroll_local_access": (bool, False),
}


def _unroll_options() -> dict:
    given = dict(PassContext.current().config.get("tirx.UnrollLoop", {}))
    options = {}
    for key, (kind, default) in _UNROLL_OPTIONS.items():
        value = given.pop(key, default)
        if isinstance(value, int) and kind is bool and value in (0, 1):
            value = bool(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(
                f"tirx.UnrollLoop option {key!r} expects a {kind.__name__}, got {value!r}"
            )
        options[key] = value
    if given:
        raise ValueError(
            f"tirx.UnrollLoop: unknown option(s) {sorted(given)}; options are "
            f"{sorted(_UNROLL_OPTIONS)}"
        )
    return options


class _FreshCopy(_Substitute):
    """One copy of an unrolled body: the loop variable replaced by a constant and the buffers
    the body allocates (``T.alloc_buffer``/``T.decl_buffer``) replaced by new ones, so that
    each copy declares its own buffer."""

    def __init__(self, var_map: dict, fresh: dict):
        super().__init__(var_map.get)
        self.fresh = fresh

    def _buffer(self, buf):
        new = self.fresh.get(id(buf))
        return super()._buffer(buf if new is None else new)


def _unrolled_copy(body, loop_var, value):
    allocated = []
    post_order_visit(
        body,
        lambda n: allocated.append(n.buffer) if isinstance(n, (AllocBuffer, DeclBuffer)) else None,
    )
    var_map = {loop_var: value}
    if not allocated:
        return substitute(body, var_map)
    fresh = {}
    for buf in allocated:
        data = buf.data
        new_data = var_map.get(data)
        if new_data is None:
            new_data = Var(data.name, data.type_annotation)
            var_map[data] = new_data
        fresh[id(buf)] = buf.replace(data=new_data)
    return _FreshCopy(var_map, fresh).visit_stmt(body)


class _Unroller(StmtMutator):
    """TVM's unrolling rule: explicit ``T.unroll`` loops always; serial loops of constant
    extent when the options allow (``auto_max_step``: extent times the statements of the
    body; ``auto_max_extent``; ``auto_max_depth`` nested unrolled loops; not around a loop
    that stays a loop; ``unroll_local_access``: a loop indexing a ``"local"`` buffer)."""

    def __init__(self, max_extent, options):
        super().__init__()
        self.max_extent = max_extent
        self.auto_max_step = options["auto_max_step"]
        self.auto_max_depth = options["auto_max_depth"]
        self.auto_max_extent = options["auto_max_extent"]
        self.explicit_unroll = options["explicit_unroll"]
        self.unroll_local_access = options["unroll_local_access"]
        self.step_count = 0
        self.unroll_depth = 0
        self.normal_loop_depth = 0

    def visit_attr_stmt_(self, op):
        if op.attr_key == "pragma_auto_unroll_max_step":
            saved = self.auto_max_step
            self.auto_max_step = int(op.value.value)
            try:
                return self.visit_stmt(op.body)  # the pragma is consumed, as in TVM
            finally:
                self.auto_max_step = saved
        return super().visit_attr_stmt_(op)

    def visit_buffer_store_(self, op):
        self.step_count += 1
        return super().visit_buffer_store_(op)

    def visit_evaluate_(self, op):
        if not isinstance(op.value, IntImm):
            self.step_count += 1
        return super().visit_evaluate_(op)

    def visit_seq_stmt_(self, op):
        seq = []
        for stmt in op.seq:
            steps, unroll, normal = self.step_count, self.unroll_depth, self.normal_loop_depth
            self.step_count = self.unroll_depth = self.normal_loop_depth = 0
            seq.append(self.visit_stmt(stmt))
            self.step_count += steps
            self.unroll_depth = max(unroll, self.unroll_depth)
            self.normal_loop_depth = max(normal, self.normal_loop_depth)
        if all(new is old for new, old in zip(seq, op.seq)):
            return op
        return SeqStmt.flatten(seq)

    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        value = op.extent.value if isinstance(op.extent, IntImm) else -1
        auto = (op.kind == ForKind.SERIAL and value >= 0 and self.normal_loop_depth == 0
                and self.unroll_depth <= self.auto_max_depth
                and (value * self.step_count <= self.auto_max_step
                     or value <= self.auto_max_extent))
        if op.kind == ForKind.UNROLLED:
            # An explicit unroll of a symbolic extent (TVM rejects it) stays a serial loop;
            # so does one longer than ``max_extent``.
            auto = 0 <= value <= self.max_extent
            if not auto:
                self.normal_loop_depth += 1
                return op.replace(kind=ForKind.SERIAL)
        if (not auto and self.unroll_local_access and op.kind == ForKind.SERIAL
                and value >= 0 and _indexes_local_buffer(op.body, op.loop_var)):
            auto = True
        if auto:
            self.step_count *= value
            self.unroll_depth += 1
        else:
            self.normal_loop_depth += 1
        if (auto and self.explicit_unroll) or (0 <= value <= self.auto_max_extent == 1):
            return self._unroll(op, value)
        if auto and op.kind != ForKind.UNROLLED:
            return op.replace(kind=ForKind.UNROLLED)
        return op

    def _unroll(self, op, value):
        if value == 0:
            return Evaluate(0)
        if not isinstance(op.min, IntImm):
            copies = [_unrolled_copy(op.body, op.loop_var, op.min + k) for k in range(value)]
        else:
            copies = [_unrolled_copy(op.body, op.loop_var,
                                     IntImm(op.loop_var.dtype, op.min.value + k))
                      for k in range(value)]
        return SeqStmt.flatten(copies)


def _indexes_local_buffer(body, loop_var) -> bool:
    found = []

    def visit(node):
        if (isinstance(node, (BufferLoad, BufferStore)) and node.buffer.scope() == "local"
                and any(_uses(index, loop_var) for index in node.indices)):
            found.append(node)

    post_order_visit(body, visit)
    return bool(found)


def _uses(expr, var) -> bool:
    hits = []
    post_order_visit(expr, lambda n: hits.append(n) if n is var else None)
    return bool(hits)


def unroll_loops(func: PrimFunc, max_extent: int = 64, options: dict | None = None) -> PrimFunc:
    """Unroll the loops of one function: ``T.unroll`` loops of constant extent up to
    ``max_extent``, and serial loops as ``options`` (the ``"tirx.UnrollLoop"`` dict) allow."""
    merged = {key: default for key, (_, default) in _UNROLL_OPTIONS.items()}
    merged.update(options or {})
    body = _Unroller(max_extent, merged)(func.body)
    return func if body is func.body else func.with_body(body)


def UnrollLoop(max_extent: int = 64):
    """The pass object: ``tvm.tirx.transform.UnrollLoop()(mod)``; reads the ``PassContext``
    option ``"tirx.UnrollLoop"`` (see :func:`unroll_loops`)."""
    return PrimFuncPass(
        lambda f, m, c: unroll_loops(f, max_extent, _unroll_options()),
        PassInfo(0, "tirx.UnrollLoop"),
    )


class _NotVectorizable(Exception):
    """The loop body is outside what the vector rewrite handles (fall back to LLVM)."""


#: Calls computed lane by lane, so a vector call of the widened arguments (as in TVM):
#: ``T.reinterpret`` and LLVM's pure intrinsics (``llvm.sqrt`` on ``float32x4``). Other calls
#: leave the loop to LLVM's loop vectorizer.
_LANEWISE_CALLS = frozenset({"tirx.reinterpret", "tirx.call_llvm_pure_intrin"})
#: Calls the rewrite handles: the lane-wise ones, and ``T.if_then_else`` with a condition
#: that does not depend on the loop (its branches become vectors); ``T.vscale()`` (a constant
#: of the CPU) in indices and extents.
_VECTOR_CALLS = _LANEWISE_CALLS | {"tirx.if_then_else", "tirx.vscale"}


class _Found(Exception):
    """Stops a :class:`_Finder` walk at the first match."""


class _Finder(StmtExprVisitor):
    """Whether an expression holds a given variable, or a ``Call``/``Let``.

    A plain walk that stops at the first match (``post_order_visit`` would visit the whole
    tree with a callback and a seen-set per node; these checks run several times per store).
    """

    def __init__(self, var=None, calls=False, also=None):
        self.var, self.calls = var, calls
        self.also = also if also is not None else {}  # more variables to look for, by id

    def visit_var_(self, op):
        if op is self.var or id(op) in self.also:
            raise _Found

    def visit_call_(self, op):
        if self.calls and getattr(op.op, "name", None) not in _VECTOR_CALLS:
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
        #: Variables bound (``T.bind``) in the loop body to vector values: id -> new variable
        self.bound: dict = {}
        self._finder = _Finder(var, also=self.bound)
        self._uses: dict = {}  # id(expr) -> (expr, uses the variable); nodes kept alive
        #: The lane mask of a predicated body (:meth:`_BodyVectorizer.predicated`): every
        #: load takes it, and a load that is not a vector one cannot be predicated.
        self.predicate = None

    def uses_var(self, expr) -> bool:
        entry = self._uses.get(id(expr))
        if entry is None:
            entry = self._uses[id(expr)] = (expr, self._finder.found(expr))
        return entry[1]

    def widen(self, expr):
        return expr if dtype_info(expr.dtype).lanes != 1 else Broadcast(expr, self.lanes)

    def index(self, expr):
        """A vectorized index: a ``Ramp`` (or a scalar when it does not use the variable)."""
        if not self.uses_var(expr):
            return expr
        simplify = self.analyzer.simplify
        lo = self.ramp.base
        step = self._affine_step(expr)
        if step is None and self.lanes < 0:
            raise _NotVectorizable  # scalable: only affine indices (lanes are not known)
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
        if self.predicate is not None and not self.uses_var(e) and _has_load(e):
            raise _NotVectorizable  # a scalar load in a predicated body: lane by lane
        if not self.uses_var(e):
            return e
        if e is self.var:
            return self.ramp
        if isinstance(e, Var) and id(e) in self.bound:
            return self.bound[id(e)]
        if isinstance(e, BufferLoad):
            if len(e.indices) != 1 or e.predicate is not None:
                raise _NotVectorizable
            index = self.index(e.indices[0])
            if self.predicate is not None:
                if not isinstance(index, Ramp):
                    raise _NotVectorizable
                return BufferLoad(e.buffer, [index], self.predicate)
            return BufferLoad(e.buffer, [index])
        if isinstance(e, BinaryOpExpr):
            a, b = self.expr(e.a), self.expr(e.b)
            return type(e)(self.widen(a), self.widen(b))
        if isinstance(e, Cast):
            value = self.widen(self.expr(e.value))
            return Cast(with_lanes(e.dtype, self.lanes), value)
        if isinstance(e, Select):
            parts = [self.widen(self.expr(x)) for x in (e.condition, e.true_value,
                                                        e.false_value)]
            return Select(*parts)
        if isinstance(e, Not):
            return Not(self.widen(self.expr(e.a)))
        if isinstance(e, Call) and getattr(e.op, "name", None) == "tirx.if_then_else":
            cond, then_value, else_value = e.args
            if self.uses_var(cond):
                raise _NotVectorizable  # lanes would take different branches
            then_value = self.widen(self.expr(then_value))
            else_value = self.widen(self.expr(else_value))
            return Call(then_value.dtype, e.op, [cond, then_value, else_value])
        if isinstance(e, Call) and getattr(e.op, "name", None) in _LANEWISE_CALLS:
            args = [a if isinstance(a, StringImm) or not isinstance(a, PrimExpr)
                    else self.widen(self.expr(a)) for a in e.args]
            return Call(with_lanes(e.dtype, self.lanes), e.op, args)
        raise _NotVectorizable


class VectorizeError(ValueError, InternalError):
    """A vectorized loop that cannot be vectorized and must not run otherwise (a ``while``
    loop in it, scalable vectors of vectors, ``T.vscale()`` lanes on a target without
    scalable vectors): a ``ValueError`` that is also a ``tvm.error.InternalError``, the kind
    Apache TVM 0.27 reports it as."""


class _Scalarize(Exception):
    """The statement being vectorized must run lane by lane (see :class:`_BodyVectorizer`)."""


class _BodyVectorizer:
    """Vectorize the body of one ``T.vectorized`` loop, statement by statement.

    Each statement becomes its vector form when :class:`_Lanes` handles it; otherwise it
    runs in a serial loop of its own over the lanes (``for j_s in range(extent)``, the loop
    variable renamed with ``_s``), as TVM's vectorizer does. An ``if`` whose condition does
    not depend on the loop variable keeps its place and has its branches vectorized; one
    whose condition does runs lane by lane. Statements that define something later
    statements use (``T.bind``, buffer allocations) cannot be split that way: a body with
    one that does not vectorize runs lane by lane as a whole.
    """

    def __init__(self, op: For, lanes: int, predication: bool = False):
        self.op = op
        self.lanes = lanes
        self.predication = predication
        self.rw = _Lanes(op.loop_var, op.min, lanes)

    def run(self):
        if _has_local_buffers(self.op.body):
            # A buffer allocated in the body is per lane; keep the loop's scalar semantics.
            return self.scalarize(self.op.body)
        try:
            return self.stmt(self.op.body)
        except _Scalarize:
            return self.scalarize(self.op.body)

    def scalarize(self, stmt):
        var = self.op.loop_var
        lane = Var(var.name + "_s", var.dtype)
        return For(lane, self.op.min, self.op.extent, ForKind.SERIAL,
                   substitute(stmt, {var: lane}))

    def attempt(self, stmt):
        """``stmt`` vectorized, or in a lane loop of its own."""
        try:
            return self.stmt(stmt)
        except _Scalarize:
            return self.scalarize(stmt)

    def stmt(self, stmt):
        if isinstance(stmt, SeqStmt):
            out = []
            for child in stmt.seq:
                # A definition that does not vectorize cannot be split from its uses.
                out.append(self.stmt(child) if isinstance(child, Bind) else self.attempt(child))
            return SeqStmt.flatten(out)
        if isinstance(stmt, BufferStore):
            return self.store(stmt)
        if isinstance(stmt, Bind):
            return self.bind(stmt)
        if isinstance(stmt, IfThenElse):
            if self.rw.uses_var(stmt.condition):
                if self.predication and stmt.else_case is None:
                    return self.predicated(stmt)
                raise _Scalarize  # lanes would take different branches
            then_case = self.attempt(stmt.then_case)
            else_case = None if stmt.else_case is None else self.attempt(stmt.else_case)
            return IfThenElse(stmt.condition, then_case, else_case)
        if isinstance(stmt, For):
            if self.rw.uses_var(stmt.min) or self.rw.uses_var(stmt.extent):
                raise _Scalarize
            return stmt.replace(body=self.attempt(stmt.body))
        if isinstance(stmt, While):
            raise VectorizeError("A while loop inside a vectorized loop not supported")
        if isinstance(stmt, Evaluate):
            if isinstance(stmt.value, (IntImm,)) or not self.rw.uses_var(stmt.value):
                return stmt
            raise _Scalarize
        raise _Scalarize

    def predicated(self, stmt: IfThenElse):
        """``if base + j < limit: stores`` as stores (and loads) predicated by
        ``T.get_active_lane_mask(base, limit)``: a loop tail without a lane loop.

        Only for a ``<`` whose left side steps by one per lane and whose right side does not
        depend on the loop, and a body of stores whose every access is a vector one (a
        scalar access cannot take the mask); otherwise the ``if`` runs lane by lane.
        """
        cond, rw = stmt.condition, self.rw
        if not isinstance(cond, LT) or rw.uses_var(cond.b) or not rw.uses_var(cond.a):
            raise _Scalarize
        try:
            ramp = rw.index(cond.a)
        except (_NotVectorizable, TypeError, ValueError):
            raise _Scalarize from None
        if not (isinstance(ramp, Ramp) and isinstance(ramp.stride, IntImm)
                and ramp.stride.value == 1):
            raise _Scalarize
        lanes = self.lanes
        mask_dtype = f"uint1x{lanes}" if lanes > 0 else f"uint1xvscalex{-lanes}"
        mask = Call(mask_dtype, Op.get("tirx.get_active_lane_mask"), [ramp.base, cond.b])
        body = stmt.then_case
        stores = list(body.seq) if isinstance(body, SeqStmt) else [body]
        if not all(isinstance(st, BufferStore) for st in stores):
            raise _Scalarize
        rw.predicate = mask
        try:
            out = [self.store(st) for st in stores]
        finally:
            rw.predicate = None
        return SeqStmt.flatten([BufferStore(st.buffer, st.value, st.indices, mask)
                                for st in out])

    def bind(self, stmt: Bind):
        rw = self.rw
        if not rw.uses_var(stmt.value):
            return stmt
        try:
            if _Finder(calls=True).found(stmt.value):
                raise _NotVectorizable
            value = rw.expr(stmt.value)
        except (_NotVectorizable, TypeError, ValueError) as err:
            if isinstance(err, VectorizeError):
                raise
            raise _Scalarize from None
        var = Var(stmt.var.name, value.dtype)
        rw.bound[id(stmt.var)] = var
        return Bind(var, value)

    def store(self, stmt: BufferStore):
        rw = self.rw
        scalable_loop = self.lanes < 0
        if dtype_info(stmt.buffer.dtype).lanes < 0:
            raise VectorizeError(
                "Vectorizing over scalable buffer elements is not supported in vectorizer.")
        if any(dtype_info(x.dtype).lanes != 1 for x in (*stmt.indices, stmt.value)):
            vector_lanes = [dtype_info(x.dtype).lanes for x in (*stmt.indices, stmt.value)]
            if scalable_loop:
                raise VectorizeError(
                    "Creating scalable vectors from existing vectors is not supported.")
            if any(n < 0 for n in vector_lanes):
                raise VectorizeError("Vectorizing over existing scalable vectors is not "
                                     "supported.")
        if not rw.uses_var(stmt.value) and not any(rw.uses_var(i) for i in stmt.indices):
            if rw.predicate is not None:
                raise _Scalarize  # a scalar store cannot take the lane mask
            return stmt  # the same in every lane: stored once
        if len(stmt.indices) != 1 or stmt.predicate is not None:
            raise _Scalarize
        try:
            if _Finder(calls=True).found(stmt.value):
                raise _NotVectorizable
            index = rw.index(stmt.indices[0])
            if not (isinstance(index, Ramp) and isinstance(index.stride, IntImm)
                    and index.stride.value == 1):
                raise _NotVectorizable
            value = rw.expr(stmt.value)
        except (_NotVectorizable, TypeError, ValueError) as err:
            if isinstance(err, VectorizeError):
                raise
            raise _Scalarize from None
        element_lanes = dtype_info(stmt.buffer.dtype).lanes
        want = self.lanes * element_lanes if self.lanes > 0 else self.lanes
        value_lanes = dtype_info(value.dtype).lanes
        if value_lanes == 1:
            value = Broadcast(value, want if want > 0 else self.lanes)
        elif value_lanes != want:
            if isinstance(value, Broadcast) and dtype_info(value.value.dtype).lanes == 1:
                value = Broadcast(value.value, want)  # a vector of vectors: one wider vector
            else:
                raise _Scalarize
        return BufferStore(stmt.buffer, value, [index])


def _has_load(expr) -> bool:
    found = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, BufferLoad) else None)
    return bool(found)


def _has_local_buffers(stmt) -> bool:
    found = []
    post_order_visit(stmt, lambda n: found.append(n)
                     if isinstance(n, (AllocBuffer, DeclBuffer)) else None)
    return bool(found)


def _vector_lanes(op: For, max_lanes: int):
    """The lanes of a vectorized loop (``-k`` for ``k * vscale``), or None when it stays a
    serial loop (symbolic or out-of-range extents; LLVM's loop vectorizer may take it)."""
    if not isinstance(op.min, IntImm):
        return None
    if isinstance(op.extent, IntImm):
        lanes = op.extent.value
        return lanes if 2 <= lanes <= max_lanes else None
    if _vscale_factor(op.extent) is not None:
        return -_scalable_factor(op)
    return None


def _vscale_factor(extent):
    """k when ``extent`` is ``k * T.vscale()`` (either order), else None."""
    if isinstance(extent, Mul):
        for a, b in ((extent.a, extent.b), (extent.b, extent.a)):
            vscale = isinstance(a, Call) and getattr(a.op, "name", None) == "tirx.vscale"
            if vscale and isinstance(b, IntImm) and b.value > 0:
                return int(b.value)
    return None


def _has_scalable_vectors(target) -> bool:
    """Whether ``target`` has scalable vector registers: AArch64 SVE, RISC-V V."""
    if target is None or getattr(getattr(target, "kind", None), "name", None) != "llvm":
        return False
    features = [str(f) for f in (target.attrs.get("mattr") or ())]
    triple = str(target.attrs.get("mtriple") or "")
    if any(f in ("+sve", "+sve2") or f.startswith("+sve") for f in features):
        return True
    return triple.startswith("riscv") and any(f == "+v" or f.startswith("+zve")
                                              for f in features)


def _scalable_factor(op: For) -> int:
    """The vscale factor of a vectorized loop of extent ``k * T.vscale()``; ``ValueError``
    when the target has no scalable vectors."""
    factor = _vscale_factor(op.extent)
    target = _CURRENT_TARGET[0]
    if factor is None or not _has_scalable_vectors(target):
        raise VectorizeError(
            f"Failed to vectorize loop with extent {Analyzer().simplify(op.extent)} for "
            f"target {target}: a "
            "loop of extent k * T.vscale() needs a target with scalable vectors (llvm with "
            "+sve, or riscv with +v)"
        )
    return factor


#: The target of the function being vectorized (its "target" attribute, else the current
#: ``tvm.target.Target`` scope), set by :func:`vectorize_loops`.
_CURRENT_TARGET: list = [None]


class _Vectorizer(StmtMutator):
    def __init__(self, max_lanes=64):
        super().__init__()
        self.max_lanes = max_lanes

    def visit_attr_stmt_(self, op):
        if op.attr_key != "target":
            return super().visit_attr_stmt_(op)
        # ``with T.attr(target, "target", 0):`` sets the target of the statements inside.
        saved, _CURRENT_TARGET[0] = _CURRENT_TARGET[0], op.node
        try:
            return super().visit_attr_stmt_(op)
        finally:
            _CURRENT_TARGET[0] = saved

    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        if op.kind != ForKind.VECTORIZED:
            return op
        lanes = _vector_lanes(op, self.max_lanes)
        if lanes is not None:
            return _BodyVectorizer(op, lanes, _predication_enabled()).run()
        annotations = dict(op.annotations or {})
        annotations["pragma_vectorize"] = IntImm("int32", 1)
        return op.replace(kind=ForKind.SERIAL, annotations=annotations)


def _predication_enabled() -> bool:
    """Buffer-level predication: the ``tirx.enable_buffer_level_predication`` option, by
    default on for targets with scalable vectors (as in TVM)."""
    option = PassContext.current().config.get("tirx.enable_buffer_level_predication")
    if option is not None:
        return bool(option)
    return _has_scalable_vectors(_CURRENT_TARGET[0])


def vectorize_loops(func: PrimFunc) -> PrimFunc:
    """Lower the ``T.vectorized`` loops of one function."""
    target = func.get_attr("target") or Target.current(allow_none=True)
    saved, _CURRENT_TARGET[0] = _CURRENT_TARGET[0], target
    try:
        body = _Vectorizer()(func.body)
    finally:
        _CURRENT_TARGET[0] = saved
    return func if body is func.body else func.with_body(body)


register_pass_config("tirx.disable_vectorize", bool)
register_pass_config("tirx.enable_buffer_level_predication", bool)


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
