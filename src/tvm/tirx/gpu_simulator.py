"""A small, slow SIMT simulator of thread-bound PrimFuncs (GPU semantics on the CPU).

:func:`simulate_prim_func` runs a lowered ``PrimFunc`` whose kernels are written with
thread-bound loops (``T.thread_binding(n, "threadIdx.x")``) or ``T.launch_thread`` /
``thread_extent`` attributes, on NumPy arrays, the way a GPU would:

* Code outside every thread-bound loop is *host* code and runs once, as in
  :func:`tvm.tirx.interpreter.run_prim_func`.
* The first thread-bound loop (or ``thread_extent`` attribute) met by host code launches a
  *kernel*: its subtree. The grid and block sizes are the largest extents of the
  ``blockIdx.*`` / ``threadIdx.*`` loops in the subtree (evaluated at launch time).
* CTAs (thread blocks) run one after the other. Inside a CTA, **every thread runs the whole
  kernel body**, as CUDA threads do. A loop bound to ``threadIdx.x`` with extent ``n`` runs its
  body once, with the loop variable equal to the thread's ``threadIdx.x``, in the threads whose
  index is below ``n`` (a nested loop bound to the same tag means the same thing). Loops bound
  to ``vthread*`` run serially in each thread.
* Threads run in lockstep between barriers: each thread runs until it reaches
  ``T.tvm_storage_sync("shared")`` (or ``"warp"``, treated as a CTA barrier), a warp shuffle,
  or its end; a barrier is released when every thread that has not exited waits on it
  (threads waiting at *different* barrier statements are reported as a deadlock).
  A warp shuffle (``tvm_warp_shuffle``/``_down``/``_up``) is resolved when every live lane of
  the warp (32 lanes, linear thread id = ``x + y*bdx + z*bdx*bdy``) has reached a shuffle;
  lanes read the value that the source lane offered. A source lane outside the ``width``
  section gives the lane its own value (as CUDA does); a source lane that is not at a shuffle
  gives garbage (NaN / a fixed integer pattern), so results that use it show it.
* Memory: buffers allocated with scope ``"shared"`` inside a kernel exist once per CTA (the
  first thread's allocation is reused by the others); ``"local"`` and unscoped allocations
  inside a kernel are per thread; parameters are global memory. A ``"shared"``/``"local"``
  allocation in host code is an error (the lowering must place it inside the kernel).
* ``T.tvm_warp_activemask()`` is the mask of the warp's lanes that have not exited.

Limits (each raises an :class:`~tvm.tirx.interpreter_semantics.InterpreterError`, a
``ValueError``, naming the construct): no ``tvm_thread_allreduce`` (run
``tirx.transform.LowerThreadAllreduce`` first), no global barriers, no SBlocks around barriers
or thread-bound loops (lower them first), shuffles only as the value (or a part of it) of a
``BufferStore``, ``Bind`` or ``Evaluate``, no nested shuffles. Memory races are not detected: a
missing barrier shows up only when the lockstep order above reads a stale value. Everything
else is the interpreter's (see :mod:`tvm.tirx.interpreter`). It is meant for small shapes:
every thread is a Python generator.
"""

from __future__ import annotations

import itertools

import numpy as np

from .expr import Call, Var
from .expr_functor import ExprMutator, _ensure_recursion_limit
from .interpreter import _as_array, _bind_buffer_arg, _Compiler
from .interpreter_semantics import GARBAGE_INT, InterpreterError, cast_value, is_float, wrap_int
from .op_gpu import GPU_SHUFFLE_OPS
from .stmt import AttrStmt, Evaluate, For, ForKind
from .stmt_functor import post_order_visit

__all__ = ["simulate_prim_func"]

WARP_SIZE = 32
_SHARED_SCOPES = ("shared", "shared.dyn")
_DEVICE_ONLY_SCOPES = ("shared", "shared.dyn", "local", "warp")
_THREAD_OPS = ("tvm_storage_sync", "tvm_thread_allreduce", *GPU_SHUFFLE_OPS)


def _op_name(call) -> str:
    name = getattr(call.op, "name", "") or ""
    return name.rsplit(".", 1)[-1]


def _thread_tag(stmt):
    """The thread tag a loop or ``thread_extent`` attribute launches, or ``None``."""
    if isinstance(stmt, For) and stmt.kind == ForKind.THREAD_BINDING:
        tag = stmt.thread_binding.thread_tag if stmt.thread_binding is not None else ""
        return tag or None
    if isinstance(stmt, AttrStmt) and stmt.attr_key == "thread_extent":
        return stmt.node.thread_tag
    return None


def _is_launch_tag(tag) -> bool:
    return tag is not None and (tag.startswith(("blockIdx.", "threadIdx.")))


def _needs_threads(stmt) -> bool:
    """Whether ``stmt`` contains a barrier, a shuffle, a thread-bound loop or a shared alloc."""
    found = False

    def visit(node):
        nonlocal found
        if found:
            return
        sync_or_shuffle = isinstance(node, Call) and _op_name(node) in _THREAD_OPS
        shared_alloc = (type(node).__name__ == "AllocBuffer"
                        and node.buffer.scope() in _SHARED_SCOPES)
        if sync_or_shuffle or shared_alloc or _is_launch_tag(_thread_tag(node)):
            found = True

    post_order_visit(stmt, visit)
    return found


class _ShuffleHoister(ExprMutator):
    """Replace each shuffle call by a fresh variable; remember (var, call)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def visit_call_(self, op):
        if _op_name(op) in GPU_SHUFFLE_OPS:
            for arg in op.args:
                post_order_visit(arg, self._no_nested)
            var = Var(f"shfl{len(self.found)}", op.dtype)
            self.found.append((var, op))
            return var
        return super().visit_call_(op)

    @staticmethod
    def _no_nested(node):
        if isinstance(node, Call) and _op_name(node) in GPU_SHUFFLE_OPS:
            raise InterpreterError("the GPU simulator does not support nested warp shuffles")


def _garbage(dtype):
    if is_float(dtype):
        return cast_value(np.nan, dtype)
    if dtype == "bool":
        return False
    return wrap_int(GARBAGE_INT, dtype)


class _SimCompiler(_Compiler):
    """The interpreter's compiler, plus kernel launches and generator-based thread code."""

    def __init__(self, warp_size):
        super().__init__()
        self.warp_size = warp_size
        self.in_kernel = False
        self._tag_keys = {}
        self.cta_key = object()
        self.mask_key = object()
        self.cta_slot = self.slot(self.cta_key)
        self.mask_slot = self.slot(self.mask_key)

    def tag_slot(self, tag):
        key = self._tag_keys.setdefault(tag, object())
        return self.slot(key)

    # --- expressions: the active mask is per thread ----------------------------------------
    def e_Call(self, e):
        short = _op_name(e)
        if short == "tvm_warp_activemask":
            if not self.in_kernel:
                raise InterpreterError("tvm_warp_activemask() is used outside a GPU kernel")
            slot = self.mask_slot
            return lambda env: env[slot]
        if short in GPU_SHUFFLE_OPS or short in ("tvm_storage_sync", "tvm_thread_allreduce"):
            if short == "tvm_thread_allreduce":
                raise InterpreterError(
                    "the GPU simulator does not run tvm_thread_allreduce; lower it first with "
                    "tvm.tirx.transform.LowerThreadAllreduce"
                )
            raise InterpreterError(
                f"the GPU simulator only supports {short} as a statement of a GPU kernel "
                "(a BufferStore/Bind value or an Evaluate)"
            )
        return super().e_Call(e)

    # --- host statements: kernel launches and allocation checks ----------------------------
    def s_For(self, s):
        if not self.in_kernel and _is_launch_tag(_thread_tag(s)):
            return self.launch(s)
        return super().s_For(s)

    def s_AttrStmt(self, s):
        if not self.in_kernel and _is_launch_tag(_thread_tag(s)):
            return self.launch(s)
        return super().s_AttrStmt(s)

    def s_AllocBuffer(self, s):
        scope = s.buffer.scope()
        if not self.in_kernel and scope in _DEVICE_ONLY_SCOPES:
            raise InterpreterError(
                f"buffer {s.buffer.name} of scope {scope!r} is allocated outside every "
                "thread-bound loop; a GPU kernel cannot see it (lower the schedule so that "
                "the allocation sits inside the kernel)"
            )
        return super().s_AllocBuffer(s)

    # --- kernels ----------------------------------------------------------------------------
    def launch(self, s):
        extents = {}

        def visit(node):
            tag = _thread_tag(node)
            if _is_launch_tag(tag):
                ext = node.extent if isinstance(node, For) else node.value
                extents.setdefault(tag, []).append(self.expr(ext))

        post_order_visit(s, visit)
        self.in_kernel = True
        try:
            body = self.g_stmt(s)
        finally:
            self.in_kernel = False
        tag_slots = {tag: self.tag_slot(tag) for tag in
                     ("blockIdx.x", "blockIdx.y", "blockIdx.z",
                      "threadIdx.x", "threadIdx.y", "threadIdx.z")}
        warp_size = self.warp_size

        def dims(env, prefix):
            out = []
            for axis in "xyz":
                fs = extents.get(f"{prefix}.{axis}", [])
                try:
                    out.append(max((int(f(env)) for f in fs), default=1))
                except TypeError as err:
                    raise InterpreterError(
                        f"the extent of a {prefix}.{axis} loop depends on a value that is not "
                        "known at kernel launch"
                    ) from err
            return out

        def run_kernel(env):
            grid, block = dims(env, "blockIdx"), dims(env, "threadIdx")
            nthreads = block[0] * block[1] * block[2]
            if nthreads > 1024:
                raise InterpreterError(f"a CTA of {block} has {nthreads} threads (> 1024)")
            for bz, by, bx in itertools.product(*(range(n) for n in reversed(grid))):
                cta = {}
                envs = []
                for tz, ty, tx in itertools.product(*(range(n) for n in reversed(block))):
                    tenv = list(env)
                    for tag, value in (("blockIdx.x", bx), ("blockIdx.y", by),
                                       ("blockIdx.z", bz), ("threadIdx.x", tx),
                                       ("threadIdx.y", ty), ("threadIdx.z", tz)):
                        tenv[tag_slots[tag]] = value
                    tenv[self.cta_slot] = cta
                    envs.append(tenv)
                _run_cta(body, envs, warp_size, self.mask_slot)

        return run_kernel

    def g_stmt(self, s):
        """A generator function ``env -> generator`` running ``s`` in one thread."""
        if not _needs_threads(s):
            f = self.stmt(s)

            def plain(env):
                f(env)
                return
                yield

            return plain
        method = getattr(self, "g_" + type(s).__name__, None)
        if method is None:
            raise InterpreterError(
                f"the GPU simulator does not support {type(s).__name__} around barriers, "
                "shuffles or thread-bound loops (lower SBlocks first)"
            )
        return method(s)

    def g_SeqStmt(self, s):
        parts = [self.g_stmt(x) for x in s.seq]

        def run(env):
            for p in parts:
                yield from p(env)

        return run

    def _thread_loop(self, tag, var, lo, extent, body):
        i = self.slot(var)
        tslot = self.tag_slot(tag)

        def loop(env):
            idx = env[tslot]
            if idx < extent(env):
                env[i] = lo(env) + idx
                yield from body(env)

        return loop

    def g_For(self, s):
        self.slot(s.loop_var)  # defined before the body uses it
        body = self.g_stmt(s.body)
        tag = _thread_tag(s)
        if _is_launch_tag(tag):
            return self._thread_loop(tag, s.loop_var, self.expr(s.min), self.expr(s.extent),
                                     body)
        i = self.slot(s.loop_var)
        flo, fext = self.expr(s.min), self.expr(s.extent)
        fstep = self.expr(s.step) if s.step is not None else None

        def loop(env):
            lo = flo(env)
            step = fstep(env) if fstep is not None else 1
            for v in range(lo, lo + fext(env), step):
                env[i] = v
                yield from body(env)

        return loop

    def g_AttrStmt(self, s):
        if _is_launch_tag(_thread_tag(s)):
            self.slot(s.node.var)  # defined before the body uses it
        body = self.g_stmt(s.body)
        tag = _thread_tag(s)
        if _is_launch_tag(tag):
            return self._thread_loop(tag, s.node.var, lambda env: 0, self.expr(s.value), body)
        return body

    def g_IfThenElse(self, s):
        fc, ft = self.expr(s.condition), self.g_stmt(s.then_case)
        fe = self.g_stmt(s.else_case) if s.else_case is not None else None

        def branch(env):
            if fc(env):
                yield from ft(env)
            elif fe is not None:
                yield from fe(env)

        return branch

    def g_AllocBuffer(self, s):
        buf = s.buffer
        if buf.scope() not in _SHARED_SCOPES:
            f = self.allocate(buf)

            def local(env):
                f(env)
                return
                yield

            return local
        alloc = self.allocate(buf)
        define = self.define_buffer_view(buf.replace(strides=()))
        dslot, cslot = self.slot(buf.data), self.cta_slot
        key = buf

        def shared(env):
            cta = env[cslot]
            if key in cta:
                env[dslot] = cta[key]
                define(env)
            else:
                alloc(env)
                cta[key] = env[dslot]
            return
            yield

        return shared

    def _with_shuffles(self, s, value, rebuild):
        hoister = _ShuffleHoister()
        new_value = hoister(value)
        if not hoister.found:
            # No shuffle (an allreduce, say): the interpreter's compile names the problem.
            f = self.stmt(s)

            def plain(env):
                f(env)
                return
                yield

            return plain
        for var, _call in hoister.found:
            self.slot(var)
        rest = self.stmt(rebuild(new_value))
        plans = []
        for var, call in hoister.found:
            short = _op_name(call)
            _mask, fval, flane, fwidth, _warp = (self.expr(a) for a in call.args)
            plans.append((self.slot(var), short, fval, flane, fwidth, call.dtype))

        def run(env):
            for slot, short, fval, flane, fwidth, dtype in plans:
                env[slot] = yield ("shfl", short, fval(env), int(flane(env)), int(fwidth(env)),
                                   dtype)
            rest(env)

        return run

    def g_BufferStore(self, s):
        return self._with_shuffles(s, s.value, lambda v: s.replace(value=v))

    def g_Bind(self, s):
        return self._with_shuffles(s, s.value, lambda v: s.replace(value=v))

    def g_Evaluate(self, s):
        v = s.value
        if isinstance(v, Call) and _op_name(v) == "tvm_storage_sync":
            scope = getattr(v.args[0], "value", None) if v.args else None
            if scope not in ("shared", "shared.dyn", "warp"):
                raise InterpreterError(
                    f"the GPU simulator supports tvm_storage_sync on 'shared' and 'warp' "
                    f"memory, not {scope!r}"
                )

            key = id(s)

            def sync(env):
                yield ("sync", key)

            return sync
        return self._with_shuffles(s, v, lambda new: Evaluate(new))


def _shuffle_source(short, lane, arg, width, warp_size):
    """The lane (index within the warp) a shuffle reads from; ``lane`` itself if outside."""
    section = lane - lane % width
    if short == "tvm_warp_shuffle_down":
        src = lane + arg
        return src if src < section + width else lane
    if short == "tvm_warp_shuffle_up":
        src = lane - arg
        return src if src >= section else lane
    return section + arg % width


def _run_cta(body, envs, warp_size, mask_slot):
    n = len(envs)
    nwarps = (n + warp_size - 1) // warp_size
    gens = [body(env) for env in envs]
    waiting = [None] * n
    send = [None] * n
    done = [False] * n

    def update_masks():
        for w in range(nwarps):
            lanes = range(w * warp_size, min(n, (w + 1) * warp_size))
            mask = sum(1 << (t - w * warp_size) for t in lanes if not done[t])
            for t in lanes:
                envs[t][mask_slot] = mask

    update_masks()
    while True:
        exited = False
        for t in range(n):
            if done[t] or waiting[t] is not None:
                continue
            try:
                waiting[t] = gens[t].send(send[t])
                send[t] = None
            except StopIteration:
                done[t] = True
                exited = True
        if exited:
            update_masks()
        alive = [t for t in range(n) if not done[t]]
        if not alive:
            return
        if all(waiting[t][0] == "sync" for t in alive):
            if len({waiting[t][1] for t in alive}) > 1:
                raise InterpreterError(
                    "GPU simulator deadlock: threads of a CTA wait at different barriers "
                    "(a barrier inside a thread-dependent branch)"
                )
            for t in alive:
                waiting[t] = None
            continue
        resolved = False
        for w in range(nwarps):
            lanes = [t for t in range(w * warp_size, min(n, (w + 1) * warp_size))
                     if not done[t]]
            if not lanes or not all(waiting[t][0] == "shfl" for t in lanes):
                continue
            base = w * warp_size
            for t in lanes:
                _, short, _value, arg, width, dtype = waiting[t]
                if width <= 0 or width > warp_size:
                    raise InterpreterError(f"warp shuffle width {width} is not in 1..{warp_size}")
                src = base + _shuffle_source(short, t - base, arg, width, warp_size)
                if src < n and not done[src] and waiting[src][0] == "shfl":
                    send[t] = waiting[src][2]
                else:
                    send[t] = _garbage(dtype)
            for t in lanes:
                waiting[t] = None
            resolved = True
        if not resolved:
            kinds = sorted({waiting[t][0] for t in alive})
            raise InterpreterError(
                "GPU simulator deadlock: live threads of a CTA wait at different points "
                f"({', '.join(kinds)}) - a barrier or shuffle is not reached by every thread"
            )


def simulate_prim_func(func, args, *, warp_size=WARP_SIZE):
    """Run ``func`` on NumPy ``args`` with GPU thread semantics (see the module docstring).

    Outputs are written into their arrays in place; returns ``None``.

    Examples
    --------
    >>> import numpy as np
    >>> from tvm.script import tirx as T
    >>> @T.prim_func
    ... def rev(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    ...     for tx in T.thread_binding(4, thread="threadIdx.x"):
    ...         S = T.alloc_buffer((4,), scope="shared")
    ...         S[tx] = A[tx]
    ...         T.tvm_storage_sync("shared")
    ...         B[tx] = S[3 - tx]
    >>> a, b = np.arange(4, dtype="float32"), np.zeros(4, dtype="float32")
    >>> simulate_prim_func(rev, [a, b]); b.tolist()
    [3.0, 2.0, 1.0, 0.0]
    """
    _ensure_recursion_limit()
    params = func.param_vars
    if len(args) != len(params):
        raise InterpreterError(f"PrimFunc expects {len(params)} arguments, got {len(args)}")
    comp = _SimCompiler(warp_size)
    steps = []
    for p, arg in zip(params, args):
        buf = func.buffer_map.get(p)
        if buf is None:
            slot = comp.slot(p)
            if p.dtype == "handle":
                arr = _as_array(arg)
                steps.append(lambda env, s=slot, a=arr: env.__setitem__(s, a.reshape(-1)))
            else:
                value = cast_value(arg, p.dtype)
                steps.append(lambda env, s=slot, v=value: env.__setitem__(s, v))
            continue
        steps.extend(_bind_buffer_arg(comp, p, buf, _as_array(arg), True))
    body = comp.stmt(func.body)
    env = [None] * len(comp.slots)
    for step in steps:
        step(env)
    body(env)

