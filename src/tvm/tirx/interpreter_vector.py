"""Vector (multi-lane) expressions for the PrimFunc interpreter.

A value of dtype ``float32x4`` is a 1-D NumPy array of 4 ``float32``; ``Ramp`` and
``Broadcast`` make such arrays, buffer loads with a vector index gather with NumPy fancy
indexing, and stores scatter the same way. Integer lanes are NumPy integer arrays of their
dtype, so overflow wraps as on hardware. Division follows the scalar rules: ``floordiv`` rounds
to minus infinity, integer ``Div``/``Mod`` truncate.
"""

from __future__ import annotations

import numpy as np

from ..runtime.data_type import dtype_lanes, element_dtype
from .interpreter_semantics import MATH_INTRINSICS, InterpreterError, is_float, is_int, np_dtype

__all__ = ["VectorOps"]


def _elem(dtype):
    return np_dtype(element_dtype(dtype))


def _trunc_div(a, b):
    q = np.floor_divide(a, b)
    fix = (np.mod(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


class VectorOps:
    """``v_<Node>`` methods compile vector-typed expressions of one compiler into closures."""

    def __init__(self, compiler):
        self.c = compiler

    def _binary(self, e, fn, cast=True):
        fa, fb = self.c.expr(e.a), self.c.expr(e.b)
        elem = _elem(e.dtype)
        if not cast:
            return lambda env: fn(np.asarray(fa(env)), np.asarray(fb(env)))
        return lambda env: np.asarray(fn(np.asarray(fa(env)), np.asarray(fb(env)))).astype(elem)

    def v_Var(self, e):
        return self.c.e_Var(e)

    def v_Ramp(self, e):
        fbase, fstride = self.c.expr(e.base), self.c.expr(e.stride)
        lanes = dtype_lanes(e.dtype)
        elem = _elem(e.dtype)
        steps = np.arange(lanes, dtype=np.int64)
        return lambda env: (steps * int(fstride(env)) + int(fbase(env))).astype(elem)

    def v_Broadcast(self, e):
        fv = self.c.expr(e.value)
        lanes = dtype_lanes(e.dtype)
        elem = _elem(e.dtype)
        return lambda env: np.full(lanes, fv(env), dtype=elem)

    def v_Add(self, e):
        return self._binary(e, np.add)

    def v_Sub(self, e):
        return self._binary(e, np.subtract)

    def v_Mul(self, e):
        return self._binary(e, np.multiply)

    def v_Div(self, e):
        return self._binary(e, _trunc_div if is_int(e.dtype) else np.divide)

    def v_Mod(self, e):
        if is_int(e.dtype):
            return self._binary(e, lambda a, b: a - _trunc_div(a, b) * b)
        return self._binary(e, np.fmod)

    def v_FloorDiv(self, e):
        if is_int(e.dtype):
            return self._binary(e, np.floor_divide)
        return self._binary(e, lambda a, b: np.floor(a / b))

    def v_FloorMod(self, e):
        if is_int(e.dtype):
            return self._binary(e, np.mod)
        return self._binary(e, lambda a, b: a - np.floor(a / b) * b)

    def v_Min(self, e):
        return self._binary(e, np.minimum)

    def v_Max(self, e):
        return self._binary(e, np.maximum)

    def v_BitwiseAnd(self, e):
        return self._binary(e, np.bitwise_and)

    def v_BitwiseOr(self, e):
        return self._binary(e, np.bitwise_or)

    def v_BitwiseXor(self, e):
        return self._binary(e, np.bitwise_xor)

    def v_LShift(self, e):
        return self._binary(e, np.left_shift)

    def v_RShift(self, e):
        return self._binary(e, np.right_shift)

    def v_EQ(self, e):
        return self._binary(e, np.equal, cast=False)

    def v_NE(self, e):
        return self._binary(e, np.not_equal, cast=False)

    def v_LT(self, e):
        return self._binary(e, np.less, cast=False)

    def v_LE(self, e):
        return self._binary(e, np.less_equal, cast=False)

    def v_GT(self, e):
        return self._binary(e, np.greater, cast=False)

    def v_GE(self, e):
        return self._binary(e, np.greater_equal, cast=False)

    def v_And(self, e):
        return self._binary(e, np.logical_and, cast=False)

    def v_Or(self, e):
        return self._binary(e, np.logical_or, cast=False)

    def v_Not(self, e):
        fa = self.c.expr(e.a)
        return lambda env: np.logical_not(fa(env))

    def v_Select(self, e):
        fc = self.c.expr(e.condition)
        ft, ff = self.c.expr(e.true_value), self.c.expr(e.false_value)
        elem = _elem(e.dtype)
        return lambda env: np.where(fc(env), ft(env), ff(env)).astype(elem)

    def v_Cast(self, e):
        fv = self.c.expr(e.value)
        elem = _elem(e.dtype)
        if element_dtype(e.dtype) == "bool":
            return lambda env: np.asarray(fv(env)) != 0
        if is_int(e.dtype) and is_float(e.value.dtype):
            # Truncation toward zero, then two's-complement wrapping, as the scalar cast does.
            return lambda env: np.trunc(fv(env)).astype(np.int64).astype(elem)
        return lambda env: np.asarray(fv(env)).astype(elem)

    def v_Let(self, e):
        return self.c.e_Let(e)

    def v_BufferLoad(self, e):
        b = self.c.buffer_slot(e.buffer)
        idx = [self.c.expr(i) for i in e.indices]
        if e.predicate is None:
            return lambda env: env[b][tuple(f(env) for f in idx)]
        fpred = self.c.expr(e.predicate)
        elem = _elem(e.dtype)

        def masked_load(env):
            # Lanes whose predicate is false are not read (they load zero).
            mask = np.asarray(fpred(env), dtype=bool)
            where = np.broadcast_arrays(*(np.asarray(f(env)) for f in idx), mask)
            out = np.zeros(mask.shape, dtype=elem)
            out[mask] = env[b][tuple(w[mask] for w in where[:-1])]
            return out

        return masked_load

    def v_Shuffle(self, e):
        vectors = [self.c.expr(v) for v in e.vectors]
        indices = [self.c.expr(i) for i in e.indices]
        elem = _elem(e.dtype)

        def shuffle(env):
            pool = np.concatenate([np.atleast_1d(f(env)) for f in vectors])
            picks = np.concatenate([np.atleast_1d(f(env)) for f in indices]).astype(np.int64)
            return pool[picks].astype(elem)

        return shuffle

    def v_Call(self, e):
        name = getattr(e.op, "name", "")
        short = name.rsplit(".", 1)[-1]
        elem = _elem(e.dtype)
        if short == "if_then_else":
            fc, ft, ff = (self.c.expr(a) for a in e.args)
            return lambda env: np.where(fc(env), ft(env), ff(env)).astype(elem)
        if short == "likely":
            return self.c.expr(e.args[0])
        fn = MATH_INTRINSICS.get(short)
        if fn is None:
            raise InterpreterError(
                f"the interpreter cannot run vector call to {name}: it has no NumPy meaning"
            )
        args = [self.c.expr(a) for a in e.args]
        return lambda env: np.asarray(fn(*(f(env) for f in args))).astype(elem)
