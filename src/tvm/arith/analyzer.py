"""``tvm.arith.Analyzer``: simplification, proofs and bounds for integer PrimExprs.

The Analyzer holds what is known about variables: bindings ``var -> expr`` (substituted when
simplifying), and integer bounds (from :meth:`Analyzer.bind` with a ``Range``, from
:meth:`Analyzer.update`, from :meth:`Analyzer.constraint_scope`, and ``SizeVar >= 0``).

* :meth:`simplify` rewrites to the canonical sum-of-products form of
  :mod:`tvm.arith.canonical` (``n * 4 // 2`` is ``n * 2``); ``rewrite_simplify`` and
  ``canonical_simplify`` are the same engine here (TVM has two; ours is one).
* :meth:`can_prove` / :meth:`can_prove_equal` decide facts by multiplying products out
  (a polynomial normal form) and by bounds; ``False`` means "not proven", never "disproven".
* :meth:`const_int_bound` gives a :class:`ConstIntBound`.

* :meth:`modular_set` gives a :class:`ModularSet` (``x * 4 + 2`` is 2 modulo 4).

Limitations: there is no iterator-map analysis or ``deduce_bound`` yet, and
``int_set`` tracks symbolic ends through ``+ - * // % min max Select`` only (see
:mod:`tvm.arith.int_set`).

Examples
--------
>>> import tvm
>>> from tvm import tirx, arith
>>> n = tirx.Var("n", "int64")
>>> ana = arith.Analyzer()
>>> ana.simplify(n * 4 // 2)
n * T.int64(2)
>>> ana.can_prove_equal(n * 4 // 2, 2 * n)
True
>>> x = tirx.Var("x", "int32")
>>> ana.bind(x, tvm.ir.Range.from_min_extent(0, 4))
>>> ana.simplify(x % 4), ana.const_int_bound(x * 2 + 1)
(x, arith.ConstIntBound(min_value=1, max_value=7))
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING

from ..ffi.structural import structural_equal
from ..runtime.data_type import dtype_info
from ._tirx import tirx
from .bound import BoundAnalyzer, ConstIntBound, from_sentinel, to_sentinel
from .canonical import Simplifier
from .int_set import IntervalSet, eval_interval
from .modular_set import ModularSet, modular_set_of_sum

if TYPE_CHECKING:
    from ..ir.expr import PrimExpr

__all__ = ["Analyzer", "IntervalSet", "ProofStrength"]


class ProofStrength:
    """How hard :meth:`Analyzer.can_prove` tries (accepted for TVM compatibility)."""

    DEFAULT = 0
    SYMBOLIC_BOUND = 1


class Analyzer:
    """Integer arithmetic analysis; see the module docstring."""

    def __init__(self) -> None:
        self._bounds = BoundAnalyzer()
        #: Var -> PrimExpr bindings, substituted when simplifying.
        self._var_map: dict = {}

    # --- simplification ---------------------------------------------------------------------
    def simplify(self, expr: PrimExpr, steps: int = 2) -> PrimExpr:
        """Simplify ``expr`` to the canonical form (repeated until stable, ``steps`` times)."""
        expr_mod, generic = tirx()
        result = generic.convert(expr)
        # Constants, and variables without a binding, are already simplest (most calls of a
        # lowering pass's simplifier are on those).
        if isinstance(result, (expr_mod.IntImm, expr_mod.FloatImm)) or (
                isinstance(result, expr_mod.Var) and result not in self._var_map):
            return result
        steps = max(1, steps)
        for step in range(steps):
            new = Simplifier(self).simplify(result)
            # The last pass's result is returned either way: no need to compare it.
            if step == steps - 1 or new is result or structural_equal(new, result):
                return new
            result = new
        return result

    def rewrite_simplify(self, expr):
        """Same as :meth:`simplify` (one engine serves both of TVM's simplifiers)."""
        return self.simplify(expr)

    def canonical_simplify(self, expr):
        """Same as :meth:`simplify` (one engine serves both of TVM's simplifiers)."""
        return self.simplify(expr)

    # --- proofs -----------------------------------------------------------------------------
    def can_prove(self, cond, strength=ProofStrength.DEFAULT) -> bool:
        """True when ``cond`` (a bool PrimExpr) holds for every value of its variables."""
        expr_mod, generic = tirx()
        cond = generic.convert(cond)
        if isinstance(cond, expr_mod.IntImm):
            return bool(cond.value)
        if dtype_info(cond.dtype).kind != "bool":
            raise TypeError(f"can_prove expects a bool expression, got dtype {cond.dtype}")
        result = Simplifier(self, expand=True).simplify_bool(cond)
        return isinstance(result, expr_mod.IntImm) and bool(result.value)

    def can_prove_equal(self, lhs, rhs) -> bool:
        """True when ``lhs == rhs`` for every value of the variables."""
        _, generic = tirx()
        lhs, rhs = generic.convert(lhs), generic.convert(rhs)
        info_l, info_r = dtype_info(lhs.dtype), dtype_info(rhs.dtype)
        ints = ("int", "uint")
        if info_l.kind in ints and info_r.kind in ints and info_l.lanes == info_r.lanes == 1:
            simp = Simplifier(self, expand=True)
            diff = simp.recombine(simp.to_sum(lhs).plus(simp.to_sum(rhs), -1))
            if diff.is_const:
                return diff.const == 0
            lo, hi = simp.sum_bound(diff)
            return lo == hi == 0
        return structural_equal(self.simplify(lhs), self.simplify(rhs))

    def modular_set(self, expr) -> ModularSet:
        """What ``expr`` is modulo a constant: ``x * 4 + 2`` gives ``coeff=4, base=2``."""
        _, generic = tirx()
        expr = generic.convert(expr)
        info = dtype_info(expr.dtype)
        if info.kind not in ("int", "uint") or info.lanes != 1:
            raise TypeError(f"modular_set expects an integer expression, got dtype {expr.dtype}")
        simp = Simplifier(self, expand=True)
        return modular_set_of_sum(simp.recombine(simp.to_sum(expr)))

    # --- bounds -----------------------------------------------------------------------------
    def const_int_bound(self, expr) -> ConstIntBound:
        """Constant lower and upper bounds of an integer expression."""
        _, generic = tirx()
        return self._bounds.const_int_bound(generic.convert(expr))

    def const_int_bound_is_bound(self, var) -> bool:
        """Whether ``var`` has bounds recorded in this analyzer."""
        return var in self._bounds.var_bounds

    def update(self, var, info: ConstIntBound, override: bool = False) -> None:
        """Record ``info`` as the bounds of ``var``.

        Without ``override``, conflicting bounds for an already bounded variable raise
        ``ValueError``.
        """
        if not isinstance(info, ConstIntBound):
            raise TypeError(f"update expects a ConstIntBound, got {type(info).__name__}")
        new = (from_sentinel(info.min_value), from_sentinel(info.max_value))
        old = self._bounds.var_bounds.get(var)
        if old is not None and old != new and not override:
            raise ValueError(
                f"Trying to update var '{_name(var)}' with a different const bound: "
                f"original={_fmt(old)}, new={_fmt(new)}; pass override=True to replace it"
            )
        self._bounds.var_bounds[var] = new

    def bind(self, var, expr, allow_override: bool = False) -> None:
        """Bind ``var`` to a value (a PrimExpr, substituted when simplifying) or a ``Range``.

        A range ``[min, min + extent)`` bounds the variable by the constant bounds of its ends.
        """
        expr_mod, generic = tirx()
        if not isinstance(var, expr_mod.Var):
            raise TypeError(f"bind expects a tirx.Var, got {type(var).__name__}")
        if hasattr(expr, "extent") and hasattr(expr, "min"):
            lo_c, ext_c = expr.min, expr.extent
            if (type(lo_c) is expr_mod.IntImm and type(ext_c) is expr_mod.IntImm
                    and lo_c.dtype == ext_c.dtype == var.dtype):
                # Exact fast path for a constant range (most loops): the bounds the general
                # path below folds and simplifies to, when ``min + extent`` does not wrap.
                lo, hi = lo_c.value, lo_c.value + ext_c.value - 1
                dlo, dhi = expr_mod.int_range(var.dtype)
                if dlo <= hi + 1 <= dhi and dlo <= hi <= dhi:
                    self.update(var, ConstIntBound(to_sentinel(lo), to_sentinel(hi)),
                                allow_override)
                    return
            lo_expr = generic.convert(expr.min, var.dtype)
            extent = generic.convert(expr.extent, var.dtype)
            hi_expr = generic.subtract(generic.add(lo_expr, extent), 1)
            lo = self._bounds.bound(self.simplify(lo_expr))[0]
            hi = self._bounds.bound(self.simplify(hi_expr))[1]
            self.update(var, ConstIntBound(to_sentinel(lo), to_sentinel(hi)), allow_override)
            return
        value = self.simplify(generic.convert(expr, var.dtype))
        old = self._var_map.get(var)
        if old is not None and not allow_override and not structural_equal(old, value):
            raise ValueError(
                f"Trying to update var '{_name(var)}' with a different value: "
                f"original={old!r}, new={value!r}"
            )
        self._var_map[var] = value
        self._bounds.var_bounds[var] = self._bounds.bound(value)

    @contextlib.contextmanager
    def constraint_scope(self, constraint):
        """Within the ``with`` block, assume ``constraint`` (a bool expression).

        Conjunctions of comparisons between a variable and an expression with constant bounds
        (``x < 10``, ``0 <= x``, ``n >= m``) tighten the variable's bounds; other constraints are
        accepted and ignored (the analyzer just knows less).
        """
        _, generic = tirx()
        saved = dict(self._bounds.var_bounds)
        try:
            for var, lo, hi in self._constraint_bounds(generic.convert(constraint)):
                old_lo, old_hi = self._bounds.bound(var)
                self._bounds.var_bounds[var] = (max(old_lo, lo), min(old_hi, hi))
            yield self
        finally:
            self._bounds.var_bounds.clear()
            self._bounds.var_bounds.update(saved)

    def _constraint_bounds(self, cond):
        expr_mod, _ = tirx()
        name = type(cond).__name__
        if name == "And":
            yield from self._constraint_bounds(cond.a)
            yield from self._constraint_bounds(cond.b)
            return
        flip = {"LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "EQ": "EQ"}
        if name not in flip:
            return
        for var, other, op in ((cond.a, cond.b, name), (cond.b, cond.a, flip[name])):
            if not isinstance(var, expr_mod.Var):
                continue
            lo, hi = self._bounds.bound(other)
            inf = math.inf
            if op == "LT":
                yield var, -inf, hi - 1
            elif op == "LE":
                yield var, -inf, hi
            elif op == "GT":
                yield var, lo + 1, inf
            elif op == "GE":
                yield var, lo, inf
            else:
                yield var, lo, hi

    def int_set(self, expr, dom_map=None) -> IntervalSet:
        """The interval ``expr`` ranges over while each Var of ``dom_map`` ranges over its domain.

        ``dom_map`` maps variables to a ``Range`` or an :class:`IntervalSet`; other variables stay
        symbolic, so the ends are PrimExprs (``x + y`` with ``x`` in ``[0, 10)`` gives
        ``[y, y + 9]``). See :mod:`tvm.arith.int_set` for what is tracked exactly.
        """
        _, generic = tirx()
        expr = self.simplify(generic.convert(expr))
        dom = {}
        for var, value in (dom_map or {}).items():
            if hasattr(value, "extent"):
                lo = generic.convert(value.min, var.dtype)
                hi = generic.subtract(generic.add(lo, value.extent), 1)
                dom[var] = (self.simplify(lo), self.simplify(hi))
            elif isinstance(value, IntervalSet):
                dom[var] = (value.min_value, value.max_value)
            else:
                raise TypeError(
                    f"int_set domain of {_name(var)} must be a Range or IntervalSet, "
                    f"got {type(value).__name__}"
                )
        lo, hi = eval_interval(expr, dom, self)
        return IntervalSet(
            None if lo is None else self.simplify(lo), None if hi is None else self.simplify(hi)
        )


def _name(var):
    return getattr(var, "name", None) or getattr(var, "name_hint", "?")


def _fmt(bound):
    return f"[{to_sentinel(bound[0])}, {to_sentinel(bound[1])}]"
