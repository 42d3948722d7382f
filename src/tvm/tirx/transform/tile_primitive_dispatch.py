"""``TilePrimitiveDispatch``: replace each tile-primitive call by the variant that lowers it.

For every :class:`~tvm.tirx.TilePrimitiveCall` of a PrimFunc (spec D.4):

1. the active threads at the call are resolved: the kernel's thread layout comes from its
   scope ids (``T.thread_id([128])``, ``T.warp_id([4])``/``T.lane_id([32])``,
   ``T.cta_id_in_cluster([2])``), narrowed by the enclosing ``if``s on scope ids
   (``if warp_id == 0:``, ``if tx < 64:``...), then split at the call's scope into ``inter``
   and ``intra`` (:func:`tvm.tirx.exec_context.scope_switch`); each axis is encoded as
   ``[extent, offset, stride]``. Conditions that are not such comparisons leave the set as is;
   without a known thread layout the split is empty;
2. a :class:`~tvm.tirx.DispatchContext` is built (target, scope, scope ids as
   ``launch_params``, loop ranges, the split, a ``shared_state`` shared by all calls);
3. :func:`tvm.tirx.operator.tile_primitive.run_dispatch` picks the variant, which returns a
   PrimFunc;
4. its body replaces the call. A PrimFunc with buffer parameters has them bound to the call's
   buffer-region operands in order (``P[i]`` becomes ``A[min + i]``). Calls inside the
   returned body are dispatched in turn;
5. the side statements the variants asked for are placed: private allocations and device
   init statements at the start of the device region (after ``T.device_entry()``), host
   init statements before it, post-definition statements right after the buffer's
   allocation or declaration.

The target is the function's ``target`` attribute, else the current ``with target:``, else
the ``target`` given to the pass (the compilation pipeline gives its own).
A call left in the result (a variant returning one it does not lower) is a ``ValueError``.
"""

from __future__ import annotations

from ...ir.expr import Range
from ...ir.transform import PassInfo
from ..exec_scope import SCOPE_ID_FUNCTIONS
from ..expr import IntImm
from ..function import PrimFunc
from ..stmt import AllocBuffer, AttrStmt, BufferLoad, BufferStore, IterVar, SeqStmt
from ..stmt_functor import StmtExprMutator, StmtExprVisitor, _Substitute
from ..tile_primitive import DispatchContext, TilePrimitiveCall
from . import _dispatch_exec
from .common import PrimFuncPass

__all__ = ["BufferReplacer", "TilePrimitiveDispatch", "check_no_tile_primitive"]

DEVICE_ENTRY_KEY = "tirx.device_entry"
WARP_SIZE = 32
_MAX_NESTING = 8

def TilePrimitiveDispatch(target=None):
    """The pass lowering every tile-primitive call (see the module docstring).

    ``target`` (a Target or its string) is used for functions without a ``target``
    attribute when no ``with target:`` is active (the compilation pipeline passes its own).
    """

    def run(func, mod, ctx):
        return _run(func, mod, ctx, target)

    return PrimFuncPass(run, PassInfo(0, "tirx.TilePrimitiveDispatch"))


class _Finder(StmtExprVisitor):
    def __init__(self):
        self.found = None

    def visit_tile_primitive_call_(self, op):
        if self.found is None:
            self.found = op


def _find_call(stmt):
    finder = _Finder()
    finder.visit_stmt(stmt)
    return finder.found


def check_no_tile_primitive(func: PrimFunc, where: str = "lowering") -> None:
    """``ValueError`` when ``func`` still holds a tile-primitive call."""
    call = _find_call(func.body)
    if call is not None:
        name = func.get_attr("global_symbol") or "the function"
        raise ValueError(
            f"TilePrimitiveCall {call.op.name} survived {where} in {name}: tile primitives must "
            "be lowered by tvm.tirx.transform.TilePrimitiveDispatch (is a variant returning "
            "a body that still holds one?)"
        )


def _run(func, mod, ctx, default_target=None):
    if _find_call(func.body) is None:
        return func
    from ...target import Target  # lazy: the target layer is only needed for the fallback

    target = func.get_attr("target") or Target.current()
    if target is None and default_target is not None:
        target = Target(default_target) if isinstance(default_target, str) else default_target
    if target is None:
        raise ValueError(
            "TilePrimitiveDispatch needs a target: bind one to the function "
            "(tvm.tirx.transform.BindTarget) or run the pass inside `with target:`"
        )
    lowering = _Dispatcher(target, func)
    body = lowering.visit_stmt(func.body)
    body = lowering.place_side_statements(body)
    out = func.with_body(body)
    check_no_tile_primitive(out, "TilePrimitiveDispatch")
    return out


def _int(e):
    return e.value if isinstance(e, IntImm) else None


class _Dispatcher(StmtExprMutator):
    def __init__(self, target, func):
        self.target = target
        self.func = func
        self.scope_ids = {}  # scope-id function name -> (Var, extent or None)
        self.var_to_scope = {}  # id(Var) -> scope-id function name
        self.narrower = _dispatch_exec.Narrower()
        self.active = None  # the active thread set here (_dispatch_exec), None if unknown
        self.var_range_map = {}
        self.shared_state = {}
        self.private_allocs = []
        self.device_init = []
        self.host_init = []
        self.post_def = {}  # id(buffer) -> (buffer, [stmts])
        self.depth = 0

    # --- scope ids and control flow ---------------------------------------------------------
    def visit_scope_id_def_stmt_(self, op):
        sdef = op.def_
        name = SCOPE_ID_FUNCTIONS[(sdef.parent, sdef.cur)]
        for k, v in enumerate(sdef.def_ids):
            key = name if len(sdef.def_ids) == 1 else f"{name}_{k}"
            ext = None if sdef.extents is None else _int(sdef.extents[k])
            self.scope_ids[key] = (v, ext)
            self.var_to_scope[id(v)] = key
        self.narrower.define((sdef.parent, sdef.cur), sdef.def_ids)
        return op

    def visit_attr_stmt_(self, op):
        if op.attr_key != DEVICE_ENTRY_KEY:
            return super().visit_attr_stmt_(op)
        # Lazy: lower_tirx imports this module (LowerTIRx = this pass + the cleanup).
        from .lower_tirx import launch_extents

        saved = self.active
        try:
            self.active = _dispatch_exec.entry_set(launch_extents(self.func))
        except ValueError:  # no thread ids, symbolic extents: no context to track
            self.active = None
        try:
            return super().visit_attr_stmt_(op)
        finally:
            self.active = saved

    def visit_if_then_else_(self, op):
        cond = self.visit_expr(op.condition)
        saved = self.active
        self.active = self.narrower.narrow(saved, op.condition)
        try:
            then_case = self.visit_stmt(op.then_case)
        finally:
            self.active = saved
        else_case = None if op.else_case is None else self.visit_stmt(op.else_case)
        if cond is op.condition and then_case is op.then_case and else_case is op.else_case:
            return op
        return op.replace(condition=cond, then_case=then_case, else_case=else_case)

    def visit_for_(self, op):
        self.var_range_map[op.loop_var] = Range.from_min_extent(op.min, op.extent)
        try:
            return super().visit_for_(op)
        finally:
            self.var_range_map.pop(op.loop_var, None)

    # --- the active thread set --------------------------------------------------------------
    def _split(self, scope: str):
        got = None if self.active is None else _dispatch_exec.split(self.active, scope)
        if got is None:
            return {}, {}
        return _dispatch_exec.encode(got[0]), _dispatch_exec.encode(got[1])

    def _launch_params(self):
        out = {}
        for key, (var, ext) in self.scope_ids.items():
            dom = None if ext is None else Range.from_min_extent(IntImm(var.dtype, 0),
                                                                 IntImm(var.dtype, ext))
            out[key] = IterVar(dom, var, IterVar.ThreadIndex, key)
        return out

    # --- dispatch ---------------------------------------------------------------------------
    def visit_tile_primitive_call_(self, op):
        # Lazy: the operator package registers its variants on import and imports this layer.
        from ..operator.tile_primitive.dispatcher import run_dispatch

        call = super().visit_tile_primitive_call_(op)
        scope = call.scope.name
        inter, intra = self._split(scope)
        ctx = DispatchContext(self.target, call.scope, self._launch_params(),
                              dict(self.var_range_map), False, {}, self.shared_state, inter,
                              intra, scope)
        result = run_dispatch(call, ctx)
        if not isinstance(result, PrimFunc):
            raise TypeError(
                f"The dispatch variant of {call.op.name} returned {type(result).__name__}, "
                "not a PrimFunc"
            )
        self._collect(ctx.callbacks)
        body = _bind_params(result, call)
        if self.depth >= _MAX_NESTING:
            check_no_tile_primitive(result.with_body(body), f"{_MAX_NESTING} nested dispatches")
            return body
        self.depth += 1
        try:
            return self.visit_stmt(body)
        finally:
            self.depth -= 1

    def _collect(self, callbacks):
        self.private_allocs += list(callbacks.get(DispatchContext.kPrivateAlloc, []))
        self.device_init += list(callbacks.get(DispatchContext.kDeviceInitStmt, []))
        self.host_init += list(callbacks.get(DispatchContext.kHostInitStmt, []))
        for buf, stmts in callbacks.get(DispatchContext.kPostBufferDefStmt, {}).items():
            self.post_def.setdefault(id(buf), (buf, []))[1].extend(stmts)

    # --- side statements --------------------------------------------------------------------
    def place_side_statements(self, body):
        post = dict(self.post_def)
        if post:
            body = _PostDefInserter(post).visit_stmt(body)
        device_prefix = [AllocBuffer(b) for b in self.private_allocs] + self.device_init
        for buf, stmts in post.values():  # buffers defined outside the body (parameters)
            device_prefix += stmts
        if not device_prefix and not self.host_init:
            return body
        if isinstance(body, AttrStmt) and body.attr_key == DEVICE_ENTRY_KEY:
            inner = SeqStmt.flatten(device_prefix + [body.body]) if device_prefix else body.body
            return SeqStmt.flatten(self.host_init + [body.replace(body=inner)])
        entry = _DeviceEntryPrefixer(device_prefix)
        new = entry.visit_stmt(body)
        if entry.done:
            return SeqStmt.flatten(self.host_init + [new]) if self.host_init else new
        return SeqStmt.flatten(self.host_init + device_prefix + [body])


class _DeviceEntryPrefixer(StmtExprMutator):
    def __init__(self, prefix):
        self.prefix = prefix
        self.done = False

    def visit_attr_stmt_(self, op):
        if op.attr_key == DEVICE_ENTRY_KEY and not self.done:
            self.done = True
            return op.replace(body=SeqStmt.flatten(self.prefix + [op.body]))
        return super().visit_attr_stmt_(op)


class _PostDefInserter(StmtExprMutator):
    def __init__(self, post):
        self.post = post

    def _after(self, op):
        entry = self.post.pop(id(op.buffer), None)
        return op if entry is None else SeqStmt.flatten([op] + entry[1])

    def visit_alloc_buffer_(self, op):
        return self._after(op)

    def visit_decl_buffer_(self, op):
        return self._after(super().visit_decl_buffer_(op))


class _ParamBinder(StmtExprMutator):
    """``P[i, j]`` of a parameter buffer ``P`` bound to region ``A[a:.., b:..]`` becomes
    ``A[a + i, b + j]``."""

    def __init__(self, bindings):
        self.bindings = bindings  # id(param buffer) -> BufferRegion

    def _map(self, buffer, indices):
        region = self.bindings.get(id(buffer))
        if region is None:
            return None
        return region.buffer, [r.min + i for r, i in zip(region.region, indices)]

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        mapped = self._map(op.buffer, op.indices)
        return op if mapped is None else BufferLoad(mapped[0], mapped[1])

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        mapped = self._map(op.buffer, op.indices)
        return op if mapped is None else BufferStore(mapped[0], op.value, mapped[1])


def _bind_params(func: PrimFunc, call: TilePrimitiveCall):
    """The body of ``func`` with its buffer parameters bound to the call's regions."""
    if not func.param_vars:
        return func.body
    regions = call.regions()
    bindings = {}
    for k, param in enumerate(func.param_vars):
        buf = func.buffer_map.get(param) if func.buffer_map else None
        if buf is None:
            raise TypeError(
                f"The variant of {call.op.name} returned a PrimFunc with the non-buffer "
                f"parameter {param}; only buffer parameters can be bound to the call's operands"
            )
        if k >= len(regions):
            raise ValueError(
                f"The variant of {call.op.name} has {len(func.param_vars)} buffer parameters but the "
                f"call has {len(regions)} buffer-region operands"
            )
        region = regions[k]
        if len(buf.shape) != len(region.region):
            raise ValueError(
                f"Parameter {buf.name} of the {call.op.name} variant has {len(buf.shape)} "
                f"dimensions, operand {region.buffer.name} {len(region.region)}"
            )
        bindings[id(buf)] = region
    return _ParamBinder(bindings).visit_stmt(func.body)


class BufferReplacer(_Substitute):
    """Replace buffers (``buffer_map``: old -> new) and variables (``var_map``) in a statement
    or expression; buffers whose shape, strides or offset use a replaced variable are rebuilt.
    Variants use it to retarget a body written for one buffer to another.

    >>> new_stmt = BufferReplacer(buffer_map={A: B}, var_map={n: m})(stmt)
    """

    def __init__(self, buffer_map=None, var_map=None):
        self.buffer_map = dict(buffer_map or {})
        self.var_map = dict(var_map or {})
        super().__init__(self.var_map.get)

    def _buffer(self, buf):
        mapped = self.buffer_map.get(buf)
        if mapped is not None:
            return mapped
        return super()._buffer(buf)
