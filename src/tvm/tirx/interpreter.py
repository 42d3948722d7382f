"""A slow, simple, NumPy-backed interpreter of PrimFuncs (the numerics oracle before codegen).

:func:`run_prim_func` runs a ``PrimFunc`` on NumPy arrays, writing outputs in place, the way a
compiled kernel would. It supports every statement of ``tvm.tirx.stmt`` (loops of every kind run
serially, ``SBlock``/``SBlockRealize`` with ``init`` on the first reduction iteration and block
predicates, allocations, buffer views, ``Bind``, ``AssertStmt``, ``Break``/``Continue``), and the
scalar expressions of ``tvm.tirx.expr`` with TVM's integer semantics (``floordiv``/``floormod``
round toward minus infinity, ``Div``/``Mod`` on integers truncate), casts that wrap integers,
and math intrinsics computed by NumPy in the call's dtype.

How it works: the function is compiled once per call into nested Python closures (one per
statement and expression); variables live in slots of a flat list. Loops run one iteration
at a time in Python (no NumPy vectorization of loop nests).

Vector lanes (``Ramp``, ``Broadcast``, ``float32x4`` values) are NumPy arrays, handled by
:mod:`tvm.tirx.interpreter_vector`.

Limitations (each raises an ``InterpreterError``, a ``ValueError``, naming the construct):
predicated *scalar* loads, ``call_extern``/``call_packed`` and other calls with no NumPy meaning,
pointer arithmetic, and strided buffers as parameters. Memory that is allocated but never
written reads as NaN (floats) or a fixed garbage pattern (integers), so a missing ``init``
shows up in results.
"""

from __future__ import annotations

import math

import numpy as np

from ..ir.expr import PrimExpr
from ..runtime.data_type import dtype_lanes
from .buffer import Buffer
from .expr_functor import _ensure_recursion_limit
from .interpreter_semantics import (
    GARBAGE_INT,
    MATH_INTRINSICS,
    InterpreterError,
    bits_of,
    cast_value,
    floordiv,
    floormod,
    int_intrinsic,
    is_float,
    is_int,
    np_dtype,
    truncdiv,
    truncmod,
    wrap_int,
)
from .interpreter_vector import VectorOps
from .stmt import IterVar, SBlockRealize

__all__ = ["InterpreterError", "evaluate_expr", "run_prim_func"]


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Compiler:
    """Turns statements and expressions into closures over a slot list ``env``."""

    def __init__(self):
        self.slots: dict[int, int] = {}
        self.keep: list = []
        self.vectors = VectorOps(self)

    # --- slots --------------------------------------------------------------------------------
    def slot(self, obj) -> int:
        key = id(obj)
        index = self.slots.get(key)
        if index is None:
            index = len(self.slots)
            self.slots[key] = index
            self.keep.append(obj)
        return index

    def has_slot(self, obj) -> bool:
        return id(obj) in self.slots

    # --- expressions --------------------------------------------------------------------------
    def expr(self, e):
        if isinstance(e, IterVar):
            e = e.var
        if not isinstance(e, PrimExpr):
            if isinstance(e, (bool, int, float)):
                return lambda env, v=e: v
            raise InterpreterError(f"the interpreter cannot evaluate {type(e).__name__}")
        if e.dtype not in ("handle", "void") and dtype_lanes(e.dtype) != 1:
            # Vector lanes are NumPy arrays: a separate family of closures (vector_ops.py).
            method = getattr(self.vectors, "v_" + type(e).__name__, None)
            if method is None:
                raise InterpreterError(
                    f"the interpreter does not support vector dtype {e.dtype} in "
                    f"{type(e).__name__}"
                )
            return method(e)
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise InterpreterError(
                f"the interpreter does not support expression {type(e).__name__}"
            )
        return method(e)

    def e_Var(self, e):
        if not self.has_slot(e):
            raise InterpreterError(f"variable {e.name} is used but not defined")
        i = self.slot(e)
        return lambda env: env[i]

    e_SizeVar = e_Var

    def e_IntImm(self, e):
        value = bool(e.value) if e.dtype == "bool" else int(e.value)
        return lambda env: value

    def e_FloatImm(self, e):
        value = np_dtype(e.dtype).type(e.value)
        return lambda env: value

    def e_StringImm(self, e):
        value = e.value
        return lambda env: value

    def e_Cast(self, e):
        f, dtype = self.expr(e.value), e.dtype
        return lambda env: cast_value(f(env), dtype)

    def _binary(self, e, fn):
        fa, fb = self.expr(e.a), self.expr(e.b)
        return lambda env: fn(fa(env), fb(env))

    def e_Add(self, e):
        return self._wrapped(e, lambda a, b: a + b)

    def e_Sub(self, e):
        return self._wrapped(e, lambda a, b: a - b)

    def e_Mul(self, e):
        return self._wrapped(e, lambda a, b: a * b)

    def _wrapped(self, e, fn):
        if is_int(e.dtype):
            dtype = e.dtype
            return self._binary(e, lambda a, b: wrap_int(fn(a, b), dtype))
        return self._binary(e, fn)

    def e_Div(self, e):
        if is_int(e.dtype):
            return self._binary(e, truncdiv)
        return self._binary(e, lambda a, b: a / b)

    def e_Mod(self, e):
        if is_int(e.dtype):
            return self._binary(e, truncmod)
        return self._binary(e, np.fmod)

    def e_FloorDiv(self, e):
        if is_int(e.dtype):
            return self._binary(e, floordiv)
        return self._binary(e, lambda a, b: np.floor(a / b))

    def e_FloorMod(self, e):
        if is_int(e.dtype):
            return self._binary(e, floormod)
        return self._binary(e, lambda a, b: a - np.floor(a / b) * b)

    def e_Min(self, e):
        return self._binary(e, lambda a, b: min(a, b))

    def e_Max(self, e):
        return self._binary(e, lambda a, b: max(a, b))

    def e_EQ(self, e):
        return self._binary(e, lambda a, b: bool(a == b))

    def e_NE(self, e):
        return self._binary(e, lambda a, b: bool(a != b))

    def e_LT(self, e):
        return self._binary(e, lambda a, b: bool(a < b))

    def e_LE(self, e):
        return self._binary(e, lambda a, b: bool(a <= b))

    def e_GT(self, e):
        return self._binary(e, lambda a, b: bool(a > b))

    def e_GE(self, e):
        return self._binary(e, lambda a, b: bool(a >= b))

    def e_And(self, e):
        fa, fb = self.expr(e.a), self.expr(e.b)
        return lambda env: bool(fa(env)) and bool(fb(env))

    def e_Or(self, e):
        fa, fb = self.expr(e.a), self.expr(e.b)
        return lambda env: bool(fa(env)) or bool(fb(env))

    def e_Not(self, e):
        fa = self.expr(e.a)
        return lambda env: not fa(env)

    def e_BitwiseAnd(self, e):
        return self._wrapped(e, lambda a, b: a & b)

    def e_BitwiseOr(self, e):
        return self._wrapped(e, lambda a, b: a | b)

    def e_BitwiseXor(self, e):
        return self._wrapped(e, lambda a, b: a ^ b)

    def e_LShift(self, e):
        return self._wrapped(e, lambda a, b: a << b)

    def e_RShift(self, e):
        return self._wrapped(e, lambda a, b: a >> b)

    def e_BitwiseNot(self, e):
        fa, dtype = self.expr(e.a), e.dtype
        return lambda env: wrap_int(~fa(env), dtype)

    def e_Select(self, e):
        fc, ft, ff = self.expr(e.condition), self.expr(e.true_value), self.expr(e.false_value)
        return lambda env: ft(env) if fc(env) else ff(env)

    def e_Let(self, e):
        fv = self.expr(e.value)
        i = self.slot(e.var)
        fb = self.expr(e.body)

        def run(env):
            env[i] = fv(env)
            return fb(env)

        return run

    def e_BufferLoad(self, e):
        if e.predicate is not None:
            raise InterpreterError("the interpreter does not support predicated BufferLoad")
        b = self.buffer_slot(e.buffer)
        idx = [self.expr(i) for i in e.indices]
        if len(idx) == 1:
            (f0,) = idx

            def load(env):
                return env[b][f0(env)]
        elif len(idx) == 2:
            f0, f1 = idx

            def load(env):
                return env[b][f0(env), f1(env)]
        else:

            def load(env):
                return env[b][tuple(f(env) for f in idx)]

        # Integers and booleans are Python values in the interpreter (exact arithmetic).
        if is_int(e.dtype):
            return lambda env: int(load(env))
        if e.dtype == "bool":
            return lambda env: bool(load(env))
        return load

    def e_Call(self, e):
        op = e.op
        name = getattr(op, "name", None) or getattr(op, "name_hint", "")
        short = name.rsplit(".", 1)[-1]
        args = [self.expr(a) for a in e.args] if short != "if_then_else" else None
        dtype = e.dtype
        if short == "if_then_else":
            fc, ft, ff = (self.expr(a) for a in e.args)
            return lambda env: ft(env) if fc(env) else ff(env)
        if short in ("likely", "assume"):
            (fa,) = args[:1]
            return fa
        if short == "reinterpret":
            (fa,) = args
            src = e.args[0].dtype
            src_np, dst_np = np_dtype(src), np_dtype(dtype)

            def reinterpret(env):
                raw = np.array(fa(env), dtype=src_np).view(dst_np)[()]
                return int(raw) if is_int(dtype) else raw

            return reinterpret
        if short in ("max_value", "min_value"):
            raise InterpreterError(f"unexpected call {name}")
        if short == "clz":
            (fa,) = args
            bits = bits_of(e.args[0].dtype)
            return lambda env: bits - (fa(env) & ((1 << bits) - 1)).bit_length()
        int_fn = int_intrinsic(short)
        if int_fn is not None and (is_int(dtype) or dtype == "bool"):
            return lambda env: wrap_int(int_fn(*(f(env) for f in args)), dtype) \
                if is_int(dtype) else int_fn(*(f(env) for f in args))
        fn = MATH_INTRINSICS.get(short)
        if fn is None:
            raise InterpreterError(
                f"the interpreter cannot run call to {name}: it has no NumPy meaning"
            )
        if dtype == "bool":
            return lambda env: bool(fn(*(f(env) for f in args)))
        if is_int(dtype):
            return lambda env: cast_value(fn(*(f(env) for f in args)), dtype)
        out = np_dtype(dtype).type
        return lambda env: out(fn(*(f(env) for f in args)))

    # --- buffers ------------------------------------------------------------------------------
    def buffer_slot(self, buffer: Buffer) -> int:
        if not self.has_slot(buffer):
            raise InterpreterError(
                f"buffer {buffer.name} is used but not defined (no buffer_map entry, "
                "allocation or declaration)"
            )
        return self.slot(buffer)

    def define_buffer_view(self, buffer: Buffer):
        """A closure making the buffer's array view from its data var's flat storage."""
        dslot = self.slot(buffer.data)
        bslot = self.slot(buffer)
        shape = [self.expr(s) for s in buffer.shape]
        strides = [self.expr(s) for s in buffer.strides]
        offset = self.expr(buffer.elem_offset) if buffer.elem_offset is not None else None
        elem_dtype = np_dtype(buffer.dtype)

        def define(env):
            flat = env[dslot]
            if flat.dtype != elem_dtype:
                flat = flat.view(elem_dtype)
            dims = [int(f(env)) for f in shape]
            start = int(offset(env)) if offset is not None else 0
            if strides:
                st = [int(f(env)) * flat.itemsize for f in strides]
                env[bslot] = np.lib.stride_tricks.as_strided(flat[start:], dims, st)
            else:
                size = math.prod(dims)
                env[bslot] = flat[start:start + size].reshape(dims)

        return define

    def allocate(self, buffer: Buffer):
        """A closure allocating fresh storage for ``buffer`` and defining its view."""
        dslot = self.slot(buffer.data)
        shape = [self.expr(s) for s in buffer.shape]
        elem_dtype = np_dtype(buffer.dtype)
        fill = np.nan if is_float(buffer.dtype) else (
            False if buffer.dtype == "bool" else wrap_int(GARBAGE_INT, buffer.dtype))
        define = self.define_buffer_view(buffer.replace(strides=()))

        def alloc(env):
            size = math.prod(int(f(env)) for f in shape)
            env[dslot] = np.full(size, fill, dtype=elem_dtype)
            define(env)

        return alloc

    # --- statements ---------------------------------------------------------------------------
    def stmt(self, s):
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            raise InterpreterError(f"the interpreter does not support statement {type(s).__name__}")
        return method(s)

    def s_SeqStmt(self, s):
        parts = [self.stmt(x) for x in s.seq]

        def run(env):
            for p in parts:
                p(env)

        return run

    def s_BufferStore(self, s):
        if s.predicate is not None:
            return self._masked_store(s)
        b = self.buffer_slot(s.buffer)
        fv = self.expr(s.value)
        idx = [self.expr(i) for i in s.indices]
        if len(idx) == 1:
            (f0,) = idx

            def store1(env):
                env[b][f0(env)] = fv(env)

            return store1
        if len(idx) == 2:
            f0, f1 = idx

            def store2(env):
                env[b][f0(env), f1(env)] = fv(env)

            return store2

        def store(env):
            env[b][tuple(f(env) for f in idx)] = fv(env)

        return store

    def _masked_store(self, s):
        b = self.buffer_slot(s.buffer)
        fv, fpred = self.expr(s.value), self.expr(s.predicate)
        idx = [self.expr(i) for i in s.indices]

        def store(env):
            # Only lanes whose predicate is true are written.
            mask = np.asarray(fpred(env), dtype=bool)
            parts = np.broadcast_arrays(*(np.asarray(f(env)) for f in idx),
                                        np.asarray(fv(env)), mask)
            env[b][tuple(p[mask] for p in parts[:-2])] = parts[-2][mask]

        return store

    def s_For(self, s):
        i = self.slot(s.loop_var)
        flo, fext = self.expr(s.min), self.expr(s.extent)
        fstep = self.expr(s.step) if s.step is not None else None
        body = self.stmt(s.body)

        def loop(env):
            lo = flo(env)
            step = fstep(env) if fstep is not None else 1
            for v in range(lo, lo + fext(env), step):
                env[i] = v
                try:
                    body(env)
                except _Continue:
                    continue
                except _Break:
                    break

        return loop

    def s_While(self, s):
        fc, body = self.expr(s.condition), self.stmt(s.body)

        def loop(env):
            while fc(env):
                try:
                    body(env)
                except _Continue:
                    continue
                except _Break:
                    break

        return loop

    def s_IfThenElse(self, s):
        fc, ft = self.expr(s.condition), self.stmt(s.then_case)
        fe = self.stmt(s.else_case) if s.else_case is not None else None

        def branch(env):
            if fc(env):
                ft(env)
            elif fe is not None:
                fe(env)

        return branch

    def s_Bind(self, s):
        fv, i = self.expr(s.value), self.slot(s.var)

        def bind(env):
            env[i] = fv(env)

        return bind

    def s_AttrStmt(self, s):
        return self.stmt(s.body)

    def s_AllocBuffer(self, s):
        return self.allocate(s.buffer)

    def s_DeclBuffer(self, s):
        buf = s.buffer
        if s.data is not None and s.data is not buf.data:
            raise InterpreterError(
                f"the interpreter only supports DeclBuffer {buf.name} over its own data var"
            )
        if not self.has_slot(buf.data):
            raise InterpreterError(
                f"DeclBuffer {buf.name}: its data {buf.data.name} is not allocated"
            )
        return self.define_buffer_view(buf)

    def s_Evaluate(self, s):
        fv = self.expr(s.value)
        return lambda env: fv(env)

    def s_AssertStmt(self, s):
        fc = self.expr(s.condition)
        kind = getattr(s.error_kind, "value", str(s.error_kind))
        message = "".join(getattr(p, "value", str(p)) for p in s.message_parts)
        error = {"ValueError": ValueError, "TypeError": TypeError,
                 "IndexError": IndexError}.get(kind, RuntimeError)

        def check(env):
            if not fc(env):
                raise error(message)

        return check

    def s_Break(self, s):
        def brk(env):
            raise _Break()

        return brk

    def s_Continue(self, s):
        def cont(env):
            raise _Continue()

        return cont

    def s_SBlockRealize(self, s):
        block = s.block
        slots = [self.slot(iv.var) for iv in block.iter_vars]
        values = [self.expr(v) for v in s.iter_values]
        fpred = self.expr(s.predicate)
        allocs = [self.allocate(b) for b in block.alloc_buffers]
        matches = [self._match_buffer(mb) for mb in block.match_buffers]
        body = self.stmt(block.body)
        init = None
        # (slot, minimum) of each reduction variable; constant minimums are plain ints.
        checks = []
        if block.init is not None:
            init = self.stmt(block.init)
            for iv in block.iter_vars:
                if iv.iter_type == IterVar.CommReduce:
                    lo = iv.dom.min
                    value = int(lo.value) if type(lo).__name__ == "IntImm" else self.expr(lo)
                    checks.append((self.slot(iv.var), value))
        binds = list(zip(slots, values))
        setup = allocs + matches
        pred_true = type(s.predicate).__name__ == "IntImm" and bool(s.predicate.value)

        def at_first_reduction(env):
            for i, lo in checks:
                if env[i] != (lo(env) if callable(lo) else lo):
                    return False
            return True

        def realize(env):
            if not pred_true and not fpred(env):
                return
            for i, f in binds:
                env[i] = f(env)
            for step in setup:
                step(env)
            if init is not None and at_first_reduction(env):
                init(env)
            body(env)

        return realize

    def s_SBlock(self, s):
        # A bare SBlock (no realize) runs as a realize with no iteration variables.
        if s.iter_vars:
            raise InterpreterError(f"SBlock {s.name_hint!r} with iter_vars needs SBlockRealize")
        return self.s_SBlockRealize(SBlockRealize([], True, s))

    def _match_buffer(self, mb):
        src = mb.source
        sslot = self.buffer_slot(src.buffer)
        mins = [self.expr(r.min) for r in src.region]
        exts = [self.expr(r.extent) for r in src.region]
        buf = mb.buffer
        bslot, dslot = self.slot(buf), self.slot(buf.data)
        shape_binds = [(s, self.slot(s) if type(s).__name__ in ("Var", "SizeVar") else None)
                       for s in buf.shape]
        ndim = len(buf.shape)

        def match(env):
            arr = env[sslot]
            region = arr[tuple(slice(lo(env), lo(env) + ext(env)) for lo, ext in zip(mins, exts))]
            # Drop leading unit dims so that a lower-rank match buffer views the region.
            dims = [d for d in region.shape]
            while len(dims) > ndim and dims[0] == 1:
                dims.pop(0)
            view = region.reshape(dims)
            for d, (expr, slot) in enumerate(shape_binds):
                if slot is not None:
                    env[slot] = view.shape[d]
            env[bslot] = view
            env[dslot] = view

        return match


def _as_array(value):
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy"):
        raise InterpreterError(
            "run_prim_func writes outputs in place and needs NumPy arrays; "
            "pass tensor.numpy() and copy the result back"
        )
    raise InterpreterError(f"expected a NumPy array for a buffer argument, got {type(value)}")


def run_prim_func(func, args, *, check_shapes=True):
    """Run ``func`` on ``args`` (NumPy arrays for buffers, Python numbers for scalars).

    Outputs are written into their arrays in place. Symbolic shape variables are bound from the
    arrays' shapes. Returns ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> from tvm import te
    >>> from tvm.tirx.interpreter import run_prim_func
    >>> A = te.placeholder((3,), name="A")
    >>> B = te.compute((3,), lambda i: A[i] * 2.0, name="B")
    >>> a, b = np.arange(3, dtype="float32"), np.zeros(3, dtype="float32")
    >>> run_prim_func(te.create_prim_func([A, B]), [a, b]); b.tolist()
    [0.0, 2.0, 4.0]
    """
    # Compilation and evaluation recurse along expression depth (long sums).
    _ensure_recursion_limit()
    params = func.param_vars
    if len(args) != len(params):
        raise InterpreterError(
            f"PrimFunc expects {len(params)} arguments, got {len(args)}"
        )
    comp = _Compiler()
    steps = []  # closures run before the body: bind params, check shapes, define buffers
    for p, arg in zip(params, args):
        buf = func.buffer_map.get(p)
        if buf is None:
            known = comp.has_slot(p)  # already bound from an earlier buffer's shape
            slot = comp.slot(p)
            if p.dtype == "handle":
                arr = _as_array(arg)
                steps.append(lambda env, s=slot, a=arr: env.__setitem__(s, a.reshape(-1)))
            elif known:
                value = cast_value(arg, p.dtype)

                def check(env, s=slot, v=value, name=p.name):
                    if env[s] != v:
                        raise InterpreterError(
                            f"argument {name} = {v} disagrees with the buffer shape that "
                            f"binds it to {env[s]}"
                        )

                steps.append(check)
            else:
                value = cast_value(arg, p.dtype)
                steps.append(lambda env, s=slot, v=value: env.__setitem__(s, v))
            continue
        arr = _as_array(arg)
        steps.extend(_bind_buffer_arg(comp, p, buf, arr, check_shapes))
    body = comp.stmt(func.body)
    env = [None] * len(comp.slots)
    for step in steps:
        step(env)
    body(env)


def _bind_buffer_arg(comp, param, buf, arr, check_shapes):
    name = buf.name
    expect = np_dtype(buf.dtype)
    if arr.dtype != expect:
        raise InterpreterError(
            f"argument {name} has dtype {arr.dtype}, but the buffer expects {buf.dtype}"
        )
    if arr.ndim != len(buf.shape):
        raise InterpreterError(
            f"argument {name} has {arr.ndim} dimensions, but the buffer has {len(buf.shape)}"
        )
    steps = []
    for d, dim in enumerate(buf.shape):
        actual = arr.shape[d]
        if type(dim).__name__ in ("Var", "SizeVar") and not comp.has_slot(dim):
            slot = comp.slot(dim)
            steps.append(lambda env, s=slot, v=actual: env.__setitem__(s, v))
        elif check_shapes:
            f = comp.expr(dim)

            def check(env, f=f, d=d, actual=actual):
                want = f(env)
                if want != actual:
                    raise InterpreterError(
                        f"argument {name} has shape {arr.shape}: dimension {d} is {actual}, "
                        f"but the buffer expects {want}"
                    )

            steps.append(check)
    bslot, dslot, pslot = comp.slot(buf), comp.slot(buf.data), comp.slot(param)
    if buf.strides:
        raise InterpreterError(f"the interpreter does not support strided buffer {name} as "
                               "a parameter")

    def define(env):
        env[bslot] = arr
        env[dslot] = arr.reshape(-1)
        env[pslot] = env[dslot]

    steps.append(define)
    return steps


def evaluate_expr(expr, bindings=None):
    """Evaluate a scalar expression with ``{Var: value}`` bindings (Python/NumPy scalars)."""
    _ensure_recursion_limit()
    comp = _Compiler()
    values = []
    for var, value in (bindings or {}).items():
        values.append((comp.slot(var), value))
    f = comp.expr(expr)
    env = [None] * max(len(comp.slots), 1)
    for slot, value in values:
        env[slot] = value
    return f(env)


