"""``NarrowDataType(target_bits)``: compute index arithmetic in ``target_bits``-bit integers.

Loop variables (serial/parallel/vectorized loops, ``T.launch_thread`` axes) and the integer
expressions around them are narrowed, as in TVM, when the values provably fit:

1. Each loop variable is bound to its range (constant ``min``/``extent``). A loop variable
   wider than ``target_bits`` is *narrowed* unless an integer expression using it has a
   constant bound (``Analyzer.const_int_bound``) outside the signed ``target_bits`` range,
   or its loop bounds are not constant.
2. The rewrite then rebuilds, bottom-up, every integer expression wider than
   ``target_bits`` whose bound fits: narrowed variables, constants, arithmetic, ``min``/
   ``max``, ``Cast`` (a cast that only widened a narrow value disappears). Expressions whose
   bound does not fit (loads of an int64 buffer, symbolic parameters) keep their type; a
   narrowed operand next to a wide one is cast back up.

Example (``target_bits=32``)::

    for i in range(T.int64(15)):                 for i in range(15):
        A[i + T.int64(1)] = A[i] + T.int64(1)        A[i + 1] = A[i] + T.int64(1)

``SBlock`` iteration variables are narrowed like loop variables (their domain bounds them;
the realize's bindings follow). Not handled yet: ``Bind`` variables (they keep their type).
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import PrimExpr, Range
from ...ir.transform import PassInfo
from ...runtime.data_type import dtype_info
from ..expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    Cast,
    Div,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Sub,
    Var,
)
from ..stmt import AttrStmt, BufferLoad, For, IterVar, SBlock, SBlockRealize
from ..stmt_functor import StmtExprMutator, StmtExprVisitor, post_order_visit
from .common import PrimFuncPass

__all__ = ["NarrowDataType"]

_ARITH = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max)
_COMPARE = (EQ, NE, LT, LE, GT, GE)


def _is_int(dtype: str) -> bool:
    info = dtype_info(dtype)
    return info.kind == "int" and info.lanes == 1


class _Fits:
    """Whether integer expressions provably fit in the signed target range."""

    def __init__(self, analyzer: Analyzer, bits: int):
        self.analyzer = analyzer
        self.lo, self.hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        self._memo: dict = {}

    def __call__(self, e) -> bool:
        hit = self._memo.get(id(e))
        if hit is not None:
            return hit[1]
        bound = self.analyzer.const_int_bound(e)
        ok = self.lo <= bound.min_value and bound.max_value <= self.hi
        self._memo[id(e)] = (e, ok)
        return ok


def _loop_range(op):
    if isinstance(op.min, IntImm) and isinstance(op.extent, IntImm):
        return op.min, op.extent
    return None


class _Collect(StmtExprVisitor):
    """Bind loop variables to their ranges and find those that cannot be narrowed."""

    def __init__(self, analyzer, fits, bits):
        self.analyzer, self.fits, self.bits = analyzer, fits, bits
        self.candidates: dict = {}  # id(var) -> var
        self.keep: set = set()

    def _candidate(self, var, rng):
        if not _is_int(var.dtype) or dtype_info(var.dtype).bits <= self.bits:
            return
        self.candidates[id(var)] = var
        if rng is None:
            self.keep.add(id(var))
            return
        lo, extent = rng
        self.analyzer.bind(var, Range.from_min_extent(lo, extent))
        if not (self.fits(lo) and self.fits(IntImm(lo.dtype, lo.value + extent.value))):
            self.keep.add(id(var))

    def visit_for_(self, op: For):
        self._candidate(op.loop_var, _loop_range(op))
        super().visit_for_(op)

    def visit_attr_stmt_(self, op: AttrStmt):
        if op.attr_key == "thread_extent" and isinstance(op.node, IterVar):
            extent = op.value
            rng = (IntImm(extent.dtype, 0), extent) if isinstance(extent, IntImm) else None
            self._candidate(op.node.var, rng)
        super().visit_attr_stmt_(op)

    def visit_sblock_(self, op: SBlock):
        for iv in op.iter_vars:
            dom = iv.dom
            constant = isinstance(dom.min, IntImm) and isinstance(dom.extent, IntImm)
            self._candidate(iv.var, (dom.min, dom.extent) if constant else None)
        super().visit_sblock_(op)

    def _vars_in(self, node) -> list:
        """Candidates the value of ``node`` depends on arithmetically: not through a load
        (a load's value does not depend on the width of its index; its index is checked
        as an expression of its own)."""
        found, stack = [], [node]
        while stack:
            n = stack.pop()
            if isinstance(n, Var):
                if id(n) in self.candidates:
                    found.append(n)
            elif isinstance(n, BufferLoad):
                continue
            elif hasattr(n, "_fields"):
                for fobj in n._fields:
                    if fobj.role == "ignore":
                        continue
                    value = getattr(n, fobj.name, None)
                    if isinstance(value, PrimExpr):
                        stack.append(value)
                    elif isinstance(value, tuple):
                        stack.extend(v for v in value if isinstance(v, PrimExpr))
        return found

    def visit_expr(self, expr):
        # Every integer sub-expression using a candidate must fit for it to be narrowed.
        def check(node):
            if hasattr(node, "dtype") and isinstance(node.dtype, str) and _is_int(node.dtype):
                used = self._vars_in(node)
                if used and not self.fits(node):
                    self.keep.update(id(v) for v in used)

        post_order_visit(expr, check)


class _Rewrite(StmtExprMutator):
    def __init__(self, vmap, fits, dtype):
        self.vmap, self.fits, self.dtype = vmap, fits, dtype

    def _narrowable(self, e) -> bool:
        return (isinstance(e.dtype, str) and _is_int(e.dtype)
                and dtype_info(e.dtype).bits > dtype_info(self.dtype).bits and self.fits(e))

    def visit_expr(self, expr):
        if isinstance(expr, Var):
            return self.vmap.get(id(expr), expr)
        if isinstance(expr, IntImm) and self._narrowable(expr):
            return IntImm(self.dtype, expr.value)
        if isinstance(expr, _ARITH + _COMPARE):
            a0, b0 = self.visit_expr(expr.a), self.visit_expr(expr.b)
            narrow = isinstance(expr, _ARITH) and self._narrowable(expr)
            a, b = self._operands(a0, b0, narrow)
            if a is expr.a and b is expr.b:
                return expr
            return type(expr)(a, b)
        new = super().visit_expr(expr)
        if isinstance(expr, Cast) and self._narrowable(expr):
            value = new.value
            if value.dtype == self.dtype:
                return value
            if _is_int(value.dtype) or value.dtype == "bool":
                return Cast(self.dtype, value)
            return new
        if isinstance(expr, (BufferLoad, Cast)):
            return new  # load indices may change type; the load's own type does not
        return self._restore(expr, new)

    def _restore(self, old, new):
        """``new`` with every operand cast back to its type in ``old`` (calls, selects, ...
        keep the operand types they were built with)."""
        if new is old:
            return new
        changes = {}
        for fobj in old._fields:
            if fobj.role == "ignore":
                continue
            before, after = getattr(old, fobj.name, None), getattr(new, fobj.name, None)
            if isinstance(before, PrimExpr) and isinstance(after, PrimExpr):
                if after.dtype != before.dtype:
                    changes[fobj.name] = self._up(after, before.dtype)
            elif isinstance(before, tuple) and isinstance(after, tuple):
                items = tuple(self._up(a, b.dtype) if isinstance(a, PrimExpr)
                              and isinstance(b, PrimExpr) and a.dtype != b.dtype else a
                              for a, b in zip(after, before))
                if any(x is not y for x, y in zip(items, after)):
                    changes[fobj.name] = items
        return new.replace(**changes) if changes else new

    def visit_buffer_store_(self, op):
        return self._restore_value(op, super().visit_buffer_store_(op))

    def visit_bind_(self, op):
        return self._restore_value(op, super().visit_bind_(op))

    def visit_evaluate_(self, op):
        return self._restore_value(op, super().visit_evaluate_(op))

    def _restore_value(self, op, new):
        if new.value.dtype != op.value.dtype:
            return new.replace(value=self._up(new.value, op.value.dtype))
        return new

    def _operands(self, a, b, narrow):
        if a.dtype == b.dtype:
            return a, b
        if narrow:  # both fit: bring the other side down too
            return self._down(a), self._down(b)
        wide = a.dtype if dtype_info(a.dtype).bits >= dtype_info(b.dtype).bits else b.dtype
        return self._up(a, wide), self._up(b, wide)

    def _down(self, e):
        if e.dtype == self.dtype:
            return e
        if isinstance(e, IntImm):
            return IntImm(self.dtype, e.value)
        return Cast(self.dtype, e)

    @staticmethod
    def _up(e, dtype):
        if e.dtype == dtype:
            return e
        if isinstance(e, IntImm):
            return IntImm(dtype, e.value)
        return Cast(dtype, e)

    def visit_for_(self, op: For):
        var = self.vmap.get(id(op.loop_var))
        new = super().visit_for_(op)
        if var is None:
            return new.replace(min=self._up(new.min, op.loop_var.dtype),
                               extent=self._up(new.extent, op.loop_var.dtype))
        return new.replace(loop_var=var, min=self._down(new.min), extent=self._down(new.extent))

    def visit_sblock_(self, op: SBlock):
        new = super().visit_sblock_(op)
        iter_vars = []
        for old_iv, iv in zip(op.iter_vars, new.iter_vars):
            var = self.vmap.get(id(old_iv.var))
            fit = self._down if var is not None else (lambda e, t=old_iv.var.dtype: self._up(e, t))
            iter_vars.append(iv.replace(var=var if var is not None else iv.var,
                                        dom=Range.from_min_extent(fit(iv.dom.min),
                                                                  fit(iv.dom.extent))))
        return new.replace(iter_vars=tuple(iter_vars))

    def visit_sblock_realize_(self, op: SBlockRealize):
        new = super().visit_sblock_realize_(op)
        values = []
        for value, iv in zip(new.iter_values, op.block.iter_vars):
            narrowed = id(iv.var) in self.vmap
            values.append(self._down(value) if narrowed else self._up(value, iv.var.dtype))
        return new.replace(iter_values=tuple(values))

    def visit_attr_stmt_(self, op: AttrStmt):
        new = super().visit_attr_stmt_(op)
        if op.attr_key == "thread_extent" and isinstance(op.node, IterVar):
            var = self.vmap.get(id(op.node.var))
            if var is not None:
                dom = op.node.dom
                if dom is not None:
                    dom = Range.from_min_extent(self._down(dom.min), self._down(dom.extent))
                node = op.node.replace(var=var, dom=dom)
                return new.replace(node=node, value=self._down(new.value))
        return new


def narrow_datatype(func, target_bits: int):
    """Narrow the index arithmetic of one PrimFunc (see the module doc)."""
    analyzer = Analyzer()
    fits = _Fits(analyzer, target_bits)
    collect = _Collect(analyzer, fits, target_bits)
    collect.visit_stmt(func.body)
    dtype = f"int{target_bits}"
    vmap = {key: Var(var.name, dtype) for key, var in collect.candidates.items()
            if key not in collect.keep}
    body = _Rewrite(vmap, fits, dtype).visit_stmt(func.body)
    return func if body is func.body else func.with_body(body)


def NarrowDataType(target_bits: int):
    """The pass: ``tvm.tirx.transform.NarrowDataType(32)(mod)`` (see the module doc)."""
    if target_bits not in (8, 16, 32, 64):
        raise ValueError(f"NarrowDataType: target_bits must be 8, 16, 32 or 64, got {target_bits}")

    def run(func, mod, ctx):
        return narrow_datatype(func, target_bits)

    return PrimFuncPass(run, PassInfo(0, "tirx.NarrowDataType"))
