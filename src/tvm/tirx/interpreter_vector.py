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
    """``v_<Node>`` methods compile vector-typed expressions of one compiler into closures.

    Each ``v_<Node>(self, e)`` takes an expression node ``e`` whose dtype has several lanes and
    returns a closure ``env -> numpy.ndarray`` (one entry per lane); operands are compiled
    with the owning compiler's ``expr``.
    """

    def __init__(self, compiler):
        self.c = compiler

    def _binary(self, e, fn, cast=True):
        fa, fb = self.c.expr(e.a), self.c.expr(e.b)
        elem = _elem(e.dtype)
        if not cast:
            return lambda env: fn(np.asarray(fa(env)), np.asarray(fb(env)))
        return lambda env: np.asarray(fn(np.asarray(fa(env)), np.asarray(fb(env)))).astype(elem)

    def v_Var(self, e):
        """Compile a vector-typed ``Var``: read its value from the environment (as a scalar one)."""
        return self.c.e_Var(e)

    def v_Ramp(self, e):
        """Compile a ``Ramp``: ``base + k * stride`` for each lane ``k``, in the element dtype."""
        fbase, fstride = self.c.expr(e.base), self.c.expr(e.stride)
        lanes = dtype_lanes(e.dtype)
        elem = _elem(e.dtype)
        steps = np.arange(lanes, dtype=np.int64)
        return lambda env: (steps * int(fstride(env)) + int(fbase(env))).astype(elem)

    def v_Broadcast(self, e):
        """Compile a ``Broadcast``: the scalar value repeated in every lane."""
        fv = self.c.expr(e.value)
        lanes = dtype_lanes(e.dtype)
        elem = _elem(e.dtype)
        return lambda env: np.full(lanes, fv(env), dtype=elem)

    def v_Add(self, e):
        """Compile a vector ``Add``: lane-wise ``a + b``, wrapped to the element dtype."""
        return self._binary(e, np.add)

    def v_Sub(self, e):
        """Compile a vector ``Sub``: lane-wise ``a - b``, wrapped to the element dtype."""
        return self._binary(e, np.subtract)

    def v_Mul(self, e):
        """Compile a vector ``Mul``: lane-wise ``a * b``, wrapped to the element dtype."""
        return self._binary(e, np.multiply)

    def v_Div(self, e):
        """Compile a vector ``Div``: lane-wise division (truncating for integers)."""
        return self._binary(e, _trunc_div if is_int(e.dtype) else np.divide)

    def v_Mod(self, e):
        """Compile a vector ``Mod``: lane-wise truncated remainder (``fmod`` for floats)."""
        if is_int(e.dtype):
            return self._binary(e, lambda a, b: a - _trunc_div(a, b) * b)
        return self._binary(e, np.fmod)

    def v_FloorDiv(self, e):
        """Compile a vector ``FloorDiv``: lane-wise division rounded toward minus infinity."""
        if is_int(e.dtype):
            return self._binary(e, np.floor_divide)
        return self._binary(e, lambda a, b: np.floor(a / b))

    def v_FloorMod(self, e):
        """Compile a vector ``FloorMod``: lane-wise remainder with the sign of the divisor."""
        if is_int(e.dtype):
            return self._binary(e, np.mod)
        return self._binary(e, lambda a, b: a - np.floor(a / b) * b)

    def v_Min(self, e):
        """Compile a vector ``Min``: the lane-wise minimum."""
        return self._binary(e, np.minimum)

    def v_Max(self, e):
        """Compile a vector ``Max``: the lane-wise maximum."""
        return self._binary(e, np.maximum)

    def v_BitwiseAnd(self, e):
        """Compile a vector ``bitwise_and``: lane-wise ``a & b``."""
        return self._binary(e, np.bitwise_and)

    def v_BitwiseOr(self, e):
        """Compile a vector ``bitwise_or``: lane-wise ``a | b``."""
        return self._binary(e, np.bitwise_or)

    def v_BitwiseXor(self, e):
        """Compile a vector ``bitwise_xor``: lane-wise ``a ^ b``."""
        return self._binary(e, np.bitwise_xor)

    def v_LShift(self, e):
        """Compile a vector ``shift_left``: lane-wise ``a << b``."""
        return self._binary(e, np.left_shift)

    def v_RShift(self, e):
        """Compile a vector ``shift_right``: lane-wise ``a >> b`` (arithmetic for signed lanes)."""
        return self._binary(e, np.right_shift)

    def v_EQ(self, e):
        """Compile a vector ``EQ``: lane-wise ``a == b`` as a bool array."""
        return self._binary(e, np.equal, cast=False)

    def v_NE(self, e):
        """Compile a vector ``NE``: lane-wise ``a != b`` as a bool array."""
        return self._binary(e, np.not_equal, cast=False)

    def v_LT(self, e):
        """Compile a vector ``LT``: lane-wise ``a < b`` as a bool array."""
        return self._binary(e, np.less, cast=False)

    def v_LE(self, e):
        """Compile a vector ``LE``: lane-wise ``a <= b`` as a bool array."""
        return self._binary(e, np.less_equal, cast=False)

    def v_GT(self, e):
        """Compile a vector ``GT``: lane-wise ``a > b`` as a bool array."""
        return self._binary(e, np.greater, cast=False)

    def v_GE(self, e):
        """Compile a vector ``GE``: lane-wise ``a >= b`` as a bool array."""
        return self._binary(e, np.greater_equal, cast=False)

    def v_And(self, e):
        """Compile a vector ``And``: lane-wise logical and."""
        return self._binary(e, np.logical_and, cast=False)

    def v_Or(self, e):
        """Compile a vector ``Or``: lane-wise logical or."""
        return self._binary(e, np.logical_or, cast=False)

    def v_Not(self, e):
        """Compile a vector ``Not``: lane-wise logical not."""
        fa = self.c.expr(e.a)
        return lambda env: np.logical_not(fa(env))

    def v_Select(self, e):
        """Compile a vector ``Select``: per lane, the true value where the condition holds, else
        the false one."""
        fc = self.c.expr(e.condition)
        ft, ff = self.c.expr(e.true_value), self.c.expr(e.false_value)
        elem = _elem(e.dtype)
        return lambda env: np.where(fc(env), ft(env), ff(env)).astype(elem)

    def v_Cast(self, e):
        """Compile a vector ``Cast``: to bool as ``!= 0``, float to int truncating toward zero
        then wrapping, otherwise NumPy's conversion.
        """
        fv = self.c.expr(e.value)
        elem = _elem(e.dtype)
        if element_dtype(e.dtype) == "bool":
            return lambda env: np.asarray(fv(env)) != 0
        if is_int(e.dtype) and is_float(e.value.dtype):
            # Truncation toward zero, then two's-complement wrapping, as the scalar cast does.
            return lambda env: np.trunc(fv(env)).astype(np.int64).astype(elem)
        return lambda env: np.asarray(fv(env)).astype(elem)

    def v_Let(self, e):
        """Compile a vector-typed ``Let`` the way the scalar compiler does."""
        return self.c.e_Let(e)

    def v_BufferLoad(self, e):
        """Compile a vector ``BufferLoad``: a NumPy gather at the lane indices; with a predicate,
        masked-off lanes are not read and load zero.
        """
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
        """Compile a ``Shuffle``: concatenate the input vectors' lanes, pick them by the indices."""
        vectors = [self.c.expr(v) for v in e.vectors]
        indices = [self.c.expr(i) for i in e.indices]
        elem = _elem(e.dtype)

        def shuffle(env):
            pool = np.concatenate([np.atleast_1d(f(env)) for f in vectors])
            picks = np.concatenate([np.atleast_1d(f(env)) for f in indices]).astype(np.int64)
            return pool[picks].astype(elem)

        return shuffle

    def v_Call(self, e):
        """Compile a vector ``Call`` of ``if_then_else``, ``likely`` or a math intrinsic, lane-wise.

        Raises
        ------
        InterpreterError
            For any other callee: it has no NumPy meaning in the interpreter.
        """
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
