"""``tvm.tirx.IndexMap``: a map from a tensor's indices to the indices of a new layout.

``IndexMap.from_func(lambda i, j: (j, i))`` is a transpose, ``lambda i: (i // 4, i % 4)``
splits a dimension. It prints as TVMScript ``T.index_map(lambda i, j: (j, i))``.

Inversion (:meth:`IndexMap.inverse`, :meth:`IndexMap.non_surjective_inverse`) handles maps
whose final indices are mixed-radix sums of *digits* of the initial indices, each digit
``(v // lower) % extent * scale`` with constant ``lower`` and ``scale``: permutations,
splits, fusions and their combinations (the maps layout transforms use). TVM's iterator-map
analysis accepts more; other maps raise a ``ValueError`` saying so.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..ffi.node import DEF, IGNORE, Node, field
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr, Range
from . import expr as _e
from .stmt_functor import substitute

__all__ = ["IndexMap"]


def _as_prim(value, dtype):
    """``value`` (an int or a PrimExpr) as a PrimExpr of ``dtype`` when it is an int."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"IndexMap: an index must be an int or a PrimExpr, got {value!r}")
    return _e.IntImm(dtype, int(value))


def _analyzer():
    # Lazy: tvm.arith sits above tirx in the layer order and imports tirx itself.
    from ..arith import Analyzer

    return Analyzer()


class IndexMap(Scriptable, Node, type_key="tirx.IndexMap"):
    """A map from ``initial_indices`` (variables) to ``final_indices`` (expressions of them).

    Parameters
    ----------
    initial_indices : list of tirx.Var
        The variables naming the input indices.
    final_indices : list of PrimExpr
        The output indices, as expressions of ``initial_indices``.
    inverse_index_map : IndexMap or callable, optional
        A known inverse (used by :meth:`inverse` instead of computing one).
    """

    initial_indices: tuple = field(role=DEF)
    final_indices: tuple
    inverse_index_map: object = field(None, role=IGNORE)

    def __init__(self, initial_indices, final_indices, inverse_index_map=None):
        initial = tuple(initial_indices)
        for v in initial:
            if not isinstance(v, _e.Var):
                raise TypeError(f"IndexMap: initial_indices must be tirx.Var, got {v!r}")
        dtype = initial[0].dtype if initial else "int64"
        if isinstance(final_indices, PrimExpr):
            final_indices = [final_indices]
        final = tuple(_as_prim(f, dtype) for f in final_indices)
        if callable(inverse_index_map) and not isinstance(inverse_index_map, IndexMap):
            inverse_index_map = IndexMap.from_func(inverse_index_map, ndim=len(final),
                                                   index_dtype=dtype)
        self.__init_fields__(initial, final, inverse_index_map)

    def __repr__(self):
        # As TVM 0.27: an index map shows as its TVMScript, ``T.index_map(lambda i: (i,))``.
        return str(self)

    # --- construction ---------------------------------------------------------------------
    @staticmethod
    def from_func(mapping_function, ndim=None, inverse_index_map=None, *, index_dtype="int64"):
        """Build an IndexMap from a Python function of the input indices.

        Parameters
        ----------
        mapping_function : callable
            Takes one ``tirx.Var`` per input dimension, returns the output indices (a tuple,
            a list or one PrimExpr).
        ndim : int, optional
            The number of input dimensions; required when the function takes ``*args``.
        inverse_index_map : IndexMap or callable, optional
            A known inverse.
        index_dtype : str
            The dtype of the index variables.
        """
        if not callable(mapping_function):
            raise TypeError(f"IndexMap.from_func expects a callable, got {mapping_function!r}")
        names = []
        star = None
        kwonly = []  # keyword-only parameters name the last dimensions (``*rest, k``)
        for param in inspect.signature(mapping_function).parameters.values():
            if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                names.append(param.name)
            elif param.kind == param.VAR_POSITIONAL:
                star = param.name
            elif param.kind == param.KEYWORD_ONLY and param.default is param.empty:
                kwonly.append(param.name)
        fixed = len(names) + len(kwonly)
        if ndim is None:
            if star is not None:
                raise ValueError("IndexMap.from_func: a function taking *args needs ndim")
            ndim = fixed
        if ndim < fixed or (ndim > fixed and star is None):
            raise ValueError(
                f"IndexMap.from_func: ndim={ndim} does not match the function's "
                f"{fixed} parameter(s)"
            )
        stars = [f"{star}_{k}" for k in range(ndim - fixed)]
        initial = [_e.Var(name, index_dtype) for name in names + stars + kwonly]
        positional = initial[:len(names) + len(stars)]
        keywords = dict(zip(kwonly, initial[len(positional):]))
        final = mapping_function(*positional, **keywords)
        if not isinstance(final, (list, tuple)):
            final = [final]
        return IndexMap(initial, final, inverse_index_map)

    # --- application ----------------------------------------------------------------------
    def _ndim_check(self, values, what):
        if len(values) != len(self.initial_indices):
            raise ValueError(
                f"IndexMap: {what} has {len(values)} element(s), the map takes "
                f"{len(self.initial_indices)}"
            )

    def map_indices(self, indices):
        """The output indices for the given input indices (simplified PrimExprs)."""
        indices = list(indices)
        self._ndim_check(indices, "indices")
        vmap = {v: _as_prim(x, v.dtype) for v, x in zip(self.initial_indices, indices)}
        ana = _analyzer()
        return [ana.simplify(substitute(f, vmap)) for f in self.final_indices]

    def map_shape(self, shape):
        """The shape of the output: one past the largest value of each output index.

        When the map splits a dimension by a factor that does not divide it
        (``lambda i: (i // 4, i % 4)`` on ``(10,)``), the output is padded: ``(3, 4)``.
        """
        shape = list(shape)
        self._ndim_check(shape, "shape")
        ana = _analyzer()
        dom = {}
        for v, s in zip(self.initial_indices, shape):
            s = _as_prim(s, v.dtype)
            dom[v] = Range.from_min_extent(_e.IntImm(v.dtype, 0), s)
        out = []
        for f in self.final_indices:
            c = _const(f.b) if isinstance(f, _e.FloorDiv) else None
            if c is not None and c > 0:
                # max(x) // c + 1 == (max(x) + c) // c: the ceil-division form, (n + 3) // 4.
                top = ana.int_set(f.a, dom).max_value
                out.append(ana.simplify(_e.FloorDiv(top + _e.IntImm(top.dtype, c), f.b)))
                continue
            interval = ana.int_set(f, dom)
            out.append(ana.simplify(interval.max_value + 1))
        return out

    def map_tensor(self, arr_src, pad_value=0):
        """``arr_src`` laid out by the map: ``out[map(i)] = arr_src[i]``.

        Accepts a NumPy array (returns one) or a ``tvm.runtime.Tensor`` (returns one). Output
        positions that no input index reaches (padding) hold ``pad_value``.
        """
        runtime_in = not isinstance(arr_src, np.ndarray)
        src = arr_src.numpy() if runtime_in else arr_src
        self._ndim_check(src.shape, "the tensor's shape")
        mapped = self.map_shape(src.shape)
        out_shape = [_const(dim) for dim in mapped]
        if None in out_shape:
            raise ValueError(f"IndexMap.map_tensor: output shape {mapped} is not constant")
        grids = np.indices(src.shape, dtype=np.int64) if src.ndim else []
        env = {id(v): g for v, g in zip(self.initial_indices, grids)}
        coords = [np.broadcast_to(_eval_np(f, env), src.shape) for f in self.final_indices]
        out = np.full(out_shape, pad_value, dtype=src.dtype)
        out[tuple(coords)] = src
        if runtime_in:
            # Lazy: the runtime tensor type is only needed for runtime inputs.
            from .. import runtime

            return runtime.tensor(out)
        return out

    # --- comparison -----------------------------------------------------------------------
    def is_equivalent_to(self, other_map) -> bool:
        """Whether both maps send every index to the same place (provably)."""
        if not isinstance(other_map, IndexMap):
            return False
        if len(self.initial_indices) != len(other_map.initial_indices):
            return False
        if len(self.final_indices) != len(other_map.final_indices):
            return False
        vmap = dict(zip(other_map.initial_indices, self.initial_indices))
        ana = _analyzer()
        return all(
            ana.can_prove_equal(a, substitute(b, vmap))
            for a, b in zip(self.final_indices, other_map.final_indices)
        )

    # --- inversion ------------------------------------------------------------------------
    def inverse(self, shape):
        """The inverse map, for a map that is a bijection on ``shape``.

        Raises ``ValueError`` when the map pads ``shape`` (use
        :meth:`non_surjective_inverse`) or is not a form this inversion handles.
        """
        if isinstance(self.inverse_index_map, IndexMap):
            return self.inverse_index_map
        inv, padded = self._inverse(list(shape))
        if padded:
            raise ValueError(
                f"IndexMap.inverse: the map is not surjective on shape {list(shape)} (the "
                "output is padded); use non_surjective_inverse"
            )
        return inv

    def non_surjective_inverse(self, shape):
        """``(inverse, padding_predicate)``: the inverse map, and a condition on its input
        indices that is true exactly at padding positions (``T.bool(False)`` if none).

        The predicate is ``inverse(o)[k] >= shape[k]`` for some ``k``; TVM 0.27 simplifies it
        further (``axis0 == 2 and 2 <= axis1``), this form is equivalent.
        """
        shape = list(shape)
        inv, _ = self._inverse(shape)
        ana = _analyzer()
        cond = None
        dom = {}
        out_shape = self.map_shape(shape)
        for v, s in zip(inv.initial_indices, out_shape):
            dom[v] = s
        for f, s in zip(inv.final_indices, shape):
            s = _as_prim(s, f.dtype)
            term = _e.GE(f, s)
            if _proved_in_range(ana, f, s, inv.initial_indices, out_shape):
                continue
            cond = term if cond is None else _e.Or(cond, term)
        if cond is None:
            cond = _e.IntImm("bool", 0)
        return inv, cond

    def _inverse(self, shape):
        """The inverse map on ``shape`` and whether the forward map pads it."""
        self._ndim_check(shape, "shape")
        dtype = self.initial_indices[0].dtype if self.initial_indices else "int64"
        shape = [_as_prim(s, v.dtype) for v, s in zip(self.initial_indices, shape)]
        out_shape = self.map_shape(shape)
        axes = [_e.Var(f"axis{k}", dtype) for k in range(len(self.final_indices))]
        ana = _analyzer()
        for a, s in zip(axes, out_shape):
            ana.bind(a, Range.from_min_extent(_e.IntImm(dtype, 0), s))
        # Constant extents as ints, so digit arithmetic stays exact Python ints.
        extent_of = {v: (_const(s) if _const(s) is not None else s)
                     for v, s in zip(self.initial_indices, shape)}
        # Each output index is a sum of digits; its digits must form a mixed radix.
        digits = {id(v): [] for v in self.initial_indices}
        for k, f in enumerate(self.final_indices):
            terms = _digits(f, extent_of)
            if any(t[0] is None for t in terms):
                raise ValueError(f"IndexMap.inverse: cannot invert {self}: output index {k} "
                                 f"({f}) is not a sum of splits of the input indices")
            terms.sort(key=lambda t: -t[3])
            for j, (v, lower, extent, scale) in enumerate(terms):
                if j + 1 < len(terms):
                    nxt = terms[j + 1]
                    if not isinstance(nxt[2], int) or nxt[3] * nxt[2] != scale:
                        raise ValueError(f"IndexMap.inverse: cannot invert {self}: output "
                                         f"index {k} ({f}) is not a mixed-radix sum")
                elif scale != 1:
                    raise ValueError(f"IndexMap.inverse: cannot invert {self}: output index "
                                     f"{k} ({f}) skips values (scale {scale})")
                if len(terms) == 1:
                    value = axes[k]
                else:
                    value = _e.FloorDiv(axes[k], _e.IntImm(dtype, scale))
                    if j > 0:
                        value = _e.FloorMod(value, _as_prim(extent, dtype))
                digits[id(v)].append((lower, extent, value))
        final = []
        padded = False
        for v, s in zip(self.initial_indices, shape):
            parts = sorted(digits[id(v)], key=lambda t: t[0])
            if not parts:
                raise ValueError(f"IndexMap.inverse: cannot invert {self}: input index "
                                 f"{v.name} does not appear in the output")
            expected = 1
            for j, (lower, extent, _value) in enumerate(parts):
                if lower != expected:
                    raise ValueError(f"IndexMap.inverse: cannot invert {self}: the splits of "
                                     f"{v.name} overlap or leave gaps")
                if j + 1 < len(parts):
                    if not isinstance(extent, int):
                        raise ValueError(f"IndexMap.inverse: cannot invert {self}: inner "
                                         f"split of {v.name} has a symbolic extent")
                    expected = lower * extent
            total = None
            for lower, _extent, value in parts:
                term = value if lower == 1 else value * _e.IntImm(dtype, lower)
                total = term if total is None else total + term
            final.append(ana.simplify(total))
            outer_lower, outer_extent, _ = parts[-1]
            covered = _as_prim(outer_extent, dtype) * _e.IntImm(dtype, outer_lower)
            if not ana.can_prove_equal(covered, s):
                padded = True
        return IndexMap(axes, final), padded


def _proved_in_range(ana, expr, bound, axes, out_shape):
    """Whether ``expr < bound`` holds for every ``axes`` value in ``out_shape``."""
    dom = {a: Range.from_min_extent(_e.IntImm(a.dtype, 0), s) for a, s in zip(axes, out_shape)}
    interval = ana.int_set(expr, dom)
    return ana.can_prove(interval.max_value < bound)


def _const(e):
    if isinstance(e, _e.IntImm):
        return int(e.value)
    return None


def _digits(expr, extent_of):
    """``expr`` as a list of digits ``(var, lower, extent, scale)``; ``var`` None if not."""
    if isinstance(expr, _e.Add):
        return _digits(expr.a, extent_of) + _digits(expr.b, extent_of)
    if isinstance(expr, _e.Var) and any(expr is v for v in extent_of):
        return [(expr, 1, extent_of[expr], 1)]
    if isinstance(expr, _e.Mul):
        for x, c in ((expr.a, _const(expr.b)), (expr.b, _const(expr.a))):
            if c is not None and c > 0:
                return [(v, lo, ex, s * c) for v, lo, ex, s in _digits(x, extent_of)]
        return [(None, 0, 0, 0)]
    if isinstance(expr, (_e.FloorDiv, _e.FloorMod)):
        c = _const(expr.b)
        inner = _digits(expr.a, extent_of)
        if c is None or c <= 0 or len(inner) != 1 or inner[0][0] is None or inner[0][3] != 1:
            return [(None, 0, 0, 0)]
        v, lower, extent, _ = inner[0]
        if isinstance(expr, _e.FloorDiv):
            if isinstance(extent, int):
                if extent % c:
                    # A split of a dim the factor does not divide: the outer digit rounds up.
                    return [(v, lower * c, -(-extent // c), 1)]
                return [(v, lower * c, extent // c, 1)]
            return [(v, lower * c, _ceil_div(extent, c), 1)]
        return [(v, lower, c if not isinstance(extent, int) else min(c, extent), 1)]
    return [(None, 0, 0, 0)]


def _ceil_div(extent, c):
    """``ceil(extent / c)`` of a symbolic extent, simplified."""
    dtype = extent.dtype
    return _analyzer().simplify(_e.FloorDiv(extent + _e.IntImm(dtype, c - 1), _e.IntImm(dtype, c)))


def _eval_np(expr, env):
    """Evaluate an integer PrimExpr on NumPy arrays of index values (``env``: id(var) -> arr)."""
    if isinstance(expr, _e.Var):
        if id(expr) not in env:
            raise ValueError(f"IndexMap: free variable {expr.name} in an index expression")
        return env[id(expr)]
    if isinstance(expr, _e.IntImm):
        return np.int64(expr.value)
    if isinstance(expr, _e.Cast):
        return _eval_np(expr.value, env)
    binary = {
        _e.Add: np.add, _e.Sub: np.subtract, _e.Mul: np.multiply,
        _e.FloorDiv: np.floor_divide, _e.FloorMod: np.mod,
        _e.Min: np.minimum, _e.Max: np.maximum,
    }
    fn = binary.get(type(expr))
    if fn is not None:
        return fn(_eval_np(expr.a, env), _eval_np(expr.b, env))
    if isinstance(expr, (_e.Div, _e.Mod)):
        # Truncating division, as C (TVM's Div/Mod on integers).
        a, b = _eval_np(expr.a, env), _eval_np(expr.b, env)
        q = np.trunc(np.divide(a, b)).astype(np.int64)
        return q if isinstance(expr, _e.Div) else a - q * b
    raise ValueError(f"IndexMap: cannot evaluate index expression {expr} (node "
                     f"{type(expr).__name__}) on concrete indices")
