"""``has_reshape_pattern``: whether a PrimFunc only copies its input to its output in order.

A reshape kernel (``topi.reshape``, or a fused chain of reshapes that ``FuseTIR`` merged into
one loop nest) writes ``out.flat[k] = in.flat[k]`` for every ``k``: on row-major buffers it is a
no-op that ``RewriteDataflowReshape`` replaces by a view (``R.reshape``).

The check is exact for static shapes: the PrimFunc must be one loop nest (``For`` loops, at most
one ``SBlock`` besides the root) around one ``BufferStore`` ``out[i...] = in[j...]`` of the same
dtype, with integer-affine/div/mod index expressions. The flat index of the store and of the load
are evaluated with NumPy over the whole iteration domain: they must be equal at every point and
the stores must cover every element of ``out`` once. Functions with symbolic shapes, predicates,
an ``init``, several statements, or indices with other operations are reported as not a reshape
(``False``): the pass then leaves the kernel as it is.
"""

from __future__ import annotations

import numpy as np

from ...tirx import expr as _e
from ...tirx import stmt as _s

__all__ = ["has_reshape_pattern"]

#: Larger iteration domains are not evaluated (the check's memory would grow with them).
MAX_CHECKED_ELEMENTS = 1 << 25


def has_reshape_pattern(func) -> bool:
    """Whether the PrimFunc ``func`` copies one input buffer to its output in row-major order.

    Parameters
    ----------
    func : tvm.tirx.PrimFunc
        A kernel, typically the callee of an ``R.call_tir``; its last parameter is the output.

    Returns
    -------
    bool
        True when every output element ``k`` (in row-major order) is the input element ``k``
        and the input and output have the same dtype and element count.
    """
    buffers = [func.buffer_map.get(p) for p in func.params]
    if len(buffers) < 2 or any(b is None for b in buffers):
        return False
    nest = _single_store(func.body)
    if nest is None:
        return False
    loops, bindings, store = nest
    out = buffers[-1]
    if store.buffer is not out or not isinstance(store.value, _s.BufferLoad):
        return False
    if store.value.predicate is not None:
        return False
    src = store.value.buffer
    if src not in buffers[:-1] or src.dtype != out.dtype:
        return False
    in_shape, out_shape = _static_shape(src), _static_shape(out)
    if in_shape is None or out_shape is None:
        return False
    count = int(np.prod(out_shape, dtype=np.int64))
    if count != int(np.prod(in_shape, dtype=np.int64)) or count > MAX_CHECKED_ELEMENTS:
        return False
    extents = []
    for loop in loops:
        if not isinstance(loop.min, _e.IntImm) or not isinstance(loop.extent, _e.IntImm):
            return False
        extents.append((loop.loop_var, int(loop.min.value), int(loop.extent.value)))
    if int(np.prod([e for _, _, e in extents], dtype=np.int64)) != count:
        return False
    env = {}
    grids = np.indices([e for _, _, e in extents], dtype=np.int64) if extents else []
    for (var, lo, _), grid in zip(extents, grids):
        env[var] = grid.reshape(-1) + lo
    for var, value in bindings:
        evaluated = _eval(value, env)
        if evaluated is None:
            return False
        env[var] = evaluated
    stored = _flat(store.indices, out_shape, env)
    loaded = _flat(store.value.indices, in_shape, env)
    if stored is None or loaded is None:
        return False
    stored = np.broadcast_to(stored, (count,))
    loaded = np.broadcast_to(loaded, (count,))
    if not np.array_equal(stored, loaded):
        return False
    if stored.min() < 0 or stored.max() >= count:
        return False
    seen = np.zeros(count, dtype=bool)
    seen[stored] = True
    return bool(seen.all())


def _static_shape(buffer):
    shape = []
    for dim in buffer.shape:
        if not isinstance(dim, _e.IntImm):
            return None
        shape.append(int(dim.value))
    return shape


def _single_store(stmt):
    """``(loops, block bindings, store)`` of a single loop nest, or None."""
    loops, bindings = [], []
    blocks = 0
    while True:
        if isinstance(stmt, _s.For):
            step = stmt.step
            if step is not None and not (isinstance(step, _e.IntImm) and int(step.value) == 1):
                return None
            loops.append(stmt)
            stmt = stmt.body
        elif isinstance(stmt, _s.SBlockRealize):
            block = stmt.block
            if block.init is not None or block.alloc_buffers or block.match_buffers:
                return None
            if not (isinstance(stmt.predicate, _e.IntImm) and int(stmt.predicate.value)):
                return None
            if block.iter_vars:
                blocks += 1
                if blocks > 1:
                    return None
                bindings.extend(
                    (iv.var, value) for iv, value in zip(block.iter_vars, stmt.iter_values)
                )
            stmt = block.body
        elif isinstance(stmt, _s.BufferStore):
            if stmt.predicate is not None:
                return None
            return loops, bindings, stmt
        else:
            return None


def _flat(indices, shape, env):
    if len(indices) != len(shape):
        return None
    flat = np.int64(0)
    for index, extent in zip(indices, shape):
        value = _eval(index, env)
        if value is None:
            return None
        flat = flat * extent + value
    return flat


_BINARY = {
    _e.Add: np.add,
    _e.Sub: np.subtract,
    _e.Mul: np.multiply,
    _e.FloorDiv: np.floor_divide,
    _e.FloorMod: np.mod,
    _e.Min: np.minimum,
    _e.Max: np.maximum,
}


def _eval(expr, env):
    """``expr`` over the iteration domain (int64 arrays), or None if it cannot be evaluated."""
    if isinstance(expr, _e.IntImm):
        return np.int64(expr.value)
    if isinstance(expr, _e.Var):
        return env.get(expr)
    if isinstance(expr, _e.Cast):
        if not str(expr.dtype).startswith(("int", "uint")):
            return None
        return _eval(expr.value, env)
    op = _BINARY.get(type(expr))
    if op is None:
        return None
    a, b = _eval(expr.a, env), _eval(expr.b, env)
    if a is None or b is None:
        return None
    if op in (np.floor_divide, np.mod) and np.any(b == 0):
        return None
    return op(a, b)
