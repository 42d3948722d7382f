"""TIRx tile primitives in the IR: ``TilePrimitiveCall``, ``DispatchContext``, ``LambdaExpr``.

A tile primitive is one operation over whole tiles (buffer regions): ``copy``, ``fill``,
``add``, ``gemm``... written ``Tx.cta.copy(A_smem, A)`` in TVMScript (spec D.4). It is stored
as a :class:`TilePrimitiveCall` statement naming the op ``tirx.tile.<name>``, its operands
(buffer regions and scalars), an optional ``workspace`` of scratch buffers, a free ``config``
dict, an optional forced ``dispatch`` variant, and the cooperating :class:`ExecScope`.

The pass ``tvm.tirx.transform.TilePrimitiveDispatch`` replaces each call by an implementation
chosen from the dispatch table of ``tvm.tirx.operator.tile_primitive.dispatcher``; it hands
every implementation a :class:`DispatchContext` describing where the call sits (target,
scope, the active threads split into ``inter``/``intra``) and collecting the side statements
the implementation needs (private allocations, init statements).
"""

from __future__ import annotations

import inspect
import threading

from ..ffi.node import DEF, Node, field
from ..ir.expr import PrimExpr
from ..ir.op import Op, register_op
from .exec_scope import ExecScope
from .expr import FloatImm, Var
from .stmt import BufferRegion, Stmt

__all__ = [
    "TILE_PRIMITIVE_NAMES",
    "DispatchContext",
    "LambdaExpr",
    "TilePrimitiveCall",
    "get_tile_op",
    "is_tile_op",
    "load_variants",
    "register_variant_loader",
]

#: target kind -> functions that register that backend's tile-primitive variants. A backend
#: registers a loader instead of its variants so that ``import tvm`` does not load them (nor
#: the PTX table they use); the dispatcher runs the loaders of a kind on its first dispatch.
_VARIANT_LOADERS: dict = {}
_LOADERS_LOCK = threading.Lock()


def register_variant_loader(target_kind: str, loader) -> None:
    """Run ``loader()`` (which registers tile-primitive variants for ``target_kind``) before
    the first dispatch for that kind."""
    with _LOADERS_LOCK:
        _VARIANT_LOADERS.setdefault(str(target_kind), []).append(loader)


def load_variants(target_kind: str | None = None) -> None:
    """Run the pending loaders of ``target_kind`` (of every kind when None), once each."""
    with _LOADERS_LOCK:
        kinds = list(_VARIANT_LOADERS) if target_kind is None else [str(target_kind)]
        for kind in kinds:
            loaders = _VARIANT_LOADERS.get(kind, [])
            while loaders:
                loaders[0]()
                loaders.pop(0)  # removed only once it ran: a failing loader runs again

#: The tile primitives of spec D.4 (``Tx.<name>``), plus the grouping frame ``compose_op``.
TILE_PRIMITIVE_NAMES = (
    "add", "binary_chain", "binary_reduce", "cast", "copy", "copy_async", "exp", "exp2",
    "log2", "fdiv", "fill", "fma", "gemm", "gemm_async", "max", "maximum", "memset", "min",
    "minimum", "mul", "permute_layout", "reciprocal", "reduce_negate", "select", "silu", "sqrt",
    "sub", "sum", "unary_reduce", "zero", "compose_op",
)

_OP_PREFIX = "tirx.tile."

for _name in TILE_PRIMITIVE_NAMES:
    register_op(_OP_PREFIX + _name, description=f"TIRx tile primitive {_name}",
                family="tirx.tile")
del _name


def get_tile_op(name: str) -> Op:
    """The op ``tirx.tile.<name>``; ``ValueError`` naming the known ops otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"A tile primitive name must be a str, got {type(name).__name__}")
    short = name.removeprefix(_OP_PREFIX)
    if short not in TILE_PRIMITIVE_NAMES:
        raise ValueError(
            f"{name!r} is not a tile primitive; the tile primitives are "
            f"{', '.join(TILE_PRIMITIVE_NAMES)}"
        )
    return Op.get(_OP_PREFIX + short)


def is_tile_op(op) -> bool:
    """Whether ``op`` is one of the ``tirx.tile.*`` ops."""
    return isinstance(op, Op) and op.name.startswith(_OP_PREFIX) and \
        op.name[len(_OP_PREFIX):] in TILE_PRIMITIVE_NAMES


class LambdaExpr(Node, type_key="tirx.LambdaExpr"):
    """A Python lambda made IR: bound variables ``vars`` and a body ``pred`` over them.

    ``Tx.select(B, A, 1.0, lambda i, j: i < j)`` stores ``LambdaExpr(lambda i, j: i < j)``:
    the lambda is called once on fresh ``int32`` Vars named after its parameters.

    Parameters
    ----------
    f_pred : callable, or list of Var
        A callable of one or more index arguments; or the bound Vars (then ``pred`` is the
        body).
    pred : PrimExpr, optional
        The body, when ``f_pred`` is a list of Vars.
    """

    vars: tuple = field(role=DEF)
    pred: PrimExpr

    def __init__(self, f_pred, pred=None):
        if callable(f_pred) and pred is None:
            names = list(inspect.signature(f_pred).parameters)
            lvars = tuple(Var(n, "int32") for n in names)
            pred = f_pred(*lvars)
        else:
            lvars = tuple(f_pred)
            for v in lvars:
                if not isinstance(v, Var):
                    raise TypeError(f"LambdaExpr vars must be Vars, got {type(v).__name__}")
        if isinstance(pred, bool):
            from .expr import IntImm

            pred = IntImm("bool", int(pred))
        if not isinstance(pred, PrimExpr):
            raise TypeError(f"A LambdaExpr body must be a PrimExpr, got {type(pred).__name__}")
        self.__init_fields__(lvars, pred)

    def apply(self, indices):
        """The body with the bound variables replaced by ``indices``."""
        from .stmt_functor import substitute

        indices = list(indices)
        if len(indices) != len(self.vars):
            raise ValueError(
                f"LambdaExpr of {len(self.vars)} variables applied to {len(indices)} indices"
            )
        return substitute(self.pred, dict(zip(self.vars, indices)))

    def __repr__(self):
        return f"LambdaExpr({', '.join(v.name for v in self.vars)}: {self.pred})"


def _normalize_arg(arg):
    """A call operand as stored: a Python float becomes ``T.float32``; a list a tuple."""
    if isinstance(arg, float):
        return FloatImm("float32", arg)
    if isinstance(arg, list):
        return tuple(_normalize_arg(a) for a in arg)
    return arg


def _check_arg(arg, where: str) -> None:
    if arg is None or isinstance(arg, (bool, int, str, PrimExpr, BufferRegion, Op, LambdaExpr,
                                       Stmt)):
        return
    if isinstance(arg, tuple):
        for a in arg:
            _check_arg(a, where)
        return
    raise TypeError(
        f"{where}: an operand must be a buffer region, a PrimExpr, a number, a string, an Op, "
        f"a LambdaExpr or a list of those, got {type(arg).__name__}"
    )


def _normalize_config(config):
    out = {}
    for key, value in dict(config or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"TilePrimitiveCall config keys must be str, got {key!r}")
        out[key] = _normalize_arg(value) if isinstance(value, list) else value
    return out


class TilePrimitiveCall(Stmt, type_key="tirx.TilePrimitiveCall"):
    """One tile primitive call (a statement).

    Parameters
    ----------
    *args
        The operands: buffer regions (destination first), scalars, flags. A Python float
        becomes a ``float32`` immediate.
    op : Op or str
        The op ``tirx.tile.<name>`` (or its short name).
    workspace : dict of str to Buffer, optional
        Scratch buffers the implementation may use.
    config : dict, optional
        Free options (``Tx.copy(..., mbar=..., hint="...")`` collects them here).
    dispatch : str, optional
        The variant to use; dispatch fails if it is not registered or does not apply.
    scope : ExecScope, optional
        The cooperating threads; ``thread`` (one thread does it all) by default.
    """

    op: object
    args: tuple
    workspace: object = None
    config: object = None
    dispatch: object = None
    scope: object = None

    def __init__(self, *args, op=None, workspace=None, config=None, dispatch=None, scope=None,
                 span=None):
        if op is None:
            op = getattr(type(self), "default_op", None)
            if op is None:
                raise TypeError("TilePrimitiveCall needs op= (an Op tirx.tile.<name>)")
        if isinstance(op, str):
            op = get_tile_op(op)
        if not is_tile_op(op):
            raise ValueError(f"TilePrimitiveCall op must be a tirx.tile.* op, got {op!r}")
        norm = tuple(_normalize_arg(a) for a in args)
        for i, a in enumerate(norm):
            _check_arg(a, f"{op.name} operand {i}")
        ws = dict(workspace or {})
        for key, buf in ws.items():
            if not isinstance(key, str) or type(buf).__name__ != "Buffer":
                raise TypeError(
                    f"{op.name}: workspace must map names to Buffers, got {key!r}: "
                    f"{type(buf).__name__}"
                )
        if dispatch is not None and not isinstance(dispatch, str):
            raise TypeError(f"{op.name}: dispatch must be a variant name (str), got {dispatch!r}")
        if scope is None:
            scope = ExecScope("thread")
        elif isinstance(scope, str):
            scope = ExecScope(scope)
        elif not isinstance(scope, ExecScope):
            raise TypeError(f"{op.name}: scope must be an ExecScope, got {scope!r}")
        self.__init_fields__(op, norm, ws, _normalize_config(config), dispatch, scope,
                             span=span)

    @property
    def name(self) -> str:
        """The short op name (``"copy"``)."""
        return self.op.name[len(_OP_PREFIX):]

    def regions(self) -> list:
        """The buffer-region operands, in order."""
        return [a for a in self.args if isinstance(a, BufferRegion)]

    def replace(self, **changes):
        """A copy with some of ``op``, ``args``, ``workspace``, ``config``, ``dispatch``,
        ``scope`` replaced."""
        unknown = set(changes) - {"op", "args", "workspace", "config", "dispatch", "scope",
                                  "span"}
        if unknown:
            raise TypeError(f"TilePrimitiveCall.replace: unknown fields {sorted(unknown)}")
        return TilePrimitiveCall(
            *changes.get("args", self.args), op=changes.get("op", self.op),
            workspace=changes.get("workspace", self.workspace),
            config=changes.get("config", self.config),
            dispatch=changes.get("dispatch", self.dispatch),
            scope=changes.get("scope", self.scope), span=changes.get("span", self.span))

    def __repr__(self):
        try:
            return self.script()
        except Exception:  # noqa: BLE001 - repr must not fail
            return f"TilePrimitiveCall({self.op.name}, {len(self.args)} args)"

    __str__ = __repr__


class DispatchContext(Node, type_key="tirx.DispatchContext"):
    """Where a tile primitive call sits, for the implementation chosen to lower it.

    Parameters
    ----------
    target : Target
        The target being compiled for (``target.kind.name`` selects the dispatch table).
    exec_scope : ExecScope
        The call's cooperating scope.
    launch_params : dict of str to IterVar
        The kernel's thread/CTA indices known at the call (``"thread_id"``, ``"warp_id"``,
        ``"lane_id"``, ``"cta_id"``... of its scope-id definitions), each with its range.
    var_range_map : dict of Var to Range
        The ranges of the loop variables around the call.
    alloc_only : bool
        Whether the implementation is asked only for its allocations.
    callbacks : dict
        Side statements collected from the implementation (see the ``k*`` keys).
    shared_state : dict
        State shared by all dispatches of one lowering (a cache).
    inter, intra : dict of str to list
        The active threads at the call split at its scope: ``inter`` tells the scope
        instances apart, ``intra`` enumerates the threads of one instance. Each maps an axis
        (``laneid``, ``warpid``, ``wgid``, ``wid_in_wg``, ``cta_id``) to ``[extent, offset,
        stride]``. Empty when the kernel's thread layout is not known.
    scope_kind : str
        The scope's name (``"thread"``, ``"warp"``, ``"warpgroup"``, ``"cta"``,
        ``"cluster"``).
    """

    target: object
    exec_scope: object
    launch_params: object = None
    var_range_map: object = None
    alloc_only: bool = False
    callbacks: object = None
    shared_state: object = None
    inter: object = None
    intra: object = None
    scope_kind: str = ""

    kPrivateAlloc = "private_alloc"
    kDeviceInitStmt = "device_init_stmt"
    kHostInitStmt = "host_init_stmt"
    kPostBufferDefStmt = "post_buffer_def_stmt"

    def __init__(self, target, exec_scope, launch_params=None, var_range_map=None,
                 alloc_only=False, callbacks=None, shared_state=None, inter=None, intra=None,
                 scope_kind=""):
        if isinstance(exec_scope, str):
            exec_scope = ExecScope(exec_scope)
        if not scope_kind and exec_scope is not None:
            scope_kind = exec_scope.name
        self.__init_fields__(
            target, exec_scope, dict(launch_params or {}), dict(var_range_map or {}),
            bool(alloc_only), dict(callbacks or {}),
            shared_state if shared_state is not None else {},
            dict(inter or {}), dict(intra or {}), scope_kind)

    # --- side statements --------------------------------------------------------------------
    def add_alloc_buffer(self, buffer) -> None:
        """Allocate ``buffer`` privately for the implementation (at the start of the kernel
        body); it is also available in the call's workspace under its name."""
        self.callbacks.setdefault(self.kPrivateAlloc, []).append(buffer)

    def add_init_stmt(self, stmt, host: bool = False) -> None:
        """Add ``stmt`` to the start of the device region (``host=False``) or of the host
        code before it (``host=True``)."""
        if not isinstance(stmt, Stmt):
            raise TypeError(f"add_init_stmt expects a Stmt, got {type(stmt).__name__}")
        key = self.kHostInitStmt if host else self.kDeviceInitStmt
        self.callbacks.setdefault(key, []).append(stmt)

    def add_post_buffer_def_stmt(self, buffer, stmt) -> None:
        """Insert ``stmt`` right after the definition (allocation/declaration) of
        ``buffer``."""
        if not isinstance(stmt, Stmt):
            raise TypeError(f"add_post_buffer_def_stmt expects a Stmt, got {type(stmt).__name__}")
        table = self.callbacks.setdefault(self.kPostBufferDefStmt, {})
        table.setdefault(buffer, []).append(stmt)

    # --- shared state -----------------------------------------------------------------------
    def cache_get(self, key: str):
        """The value stored under ``key`` by an earlier dispatch, or ``None``."""
        return self.shared_state.get(key)

    def cache_set(self, key: str, value) -> None:
        """Store ``value`` under ``key`` for later dispatches of the same lowering."""
        self.shared_state[key] = value

    shared_state_get = cache_get
    shared_state_set = cache_set

    # --- queries ----------------------------------------------------------------------------
    def is_target(self, name: str) -> bool:
        """Whether the target kind is ``name``."""
        return _kind_name(self.target) == name

    def is_cuda(self) -> bool:
        """Whether the target kind is ``cuda``."""
        return self.is_target("cuda")

    def is_trn(self) -> bool:
        """Whether the target kind is ``trn`` (Trainium)."""
        return self.is_target("trn")

    @property
    def is_thread(self) -> bool:
        """Whether the call runs at thread scope (each thread on its own data)."""
        return self.scope_kind == "thread"

    @property
    def is_warp(self) -> bool:
        """Whether the call runs at warp scope (the 32 threads of a warp together)."""
        return self.scope_kind == "warp"

    @property
    def is_warpgroup(self) -> bool:
        """Whether the call runs at warpgroup scope (4 consecutive warps together)."""
        return self.scope_kind == "warpgroup"

    @property
    def is_cta(self) -> bool:
        """Whether the call runs at CTA scope (all threads of the thread block together)."""
        return self.scope_kind == "cta"

    @property
    def is_cluster(self) -> bool:
        """Whether the call runs at cluster scope (the CTAs of a cluster together)."""
        return self.scope_kind == "cluster"

    def __repr__(self):
        return (f"DispatchContext(target={_kind_name(self.target)}, scope={self.scope_kind}, "
                f"inter={self.inter}, intra={self.intra})")


def _kind_name(target) -> str:
    kind = getattr(target, "kind", None)
    return getattr(kind, "name", str(kind))


# --- statement functor support (``tvm.tirx.stmt_functor`` calls these) ------------------------


def _visit_arg(functor, arg):
    if isinstance(arg, BufferRegion):
        functor.visit_buffer_region(arg)
    elif isinstance(arg, Stmt):
        functor.visit_stmt(arg)
    elif isinstance(arg, LambdaExpr):
        functor.visit_expr(arg.pred)
    elif isinstance(arg, tuple):
        for a in arg:
            _visit_arg(functor, a)
    elif isinstance(arg, PrimExpr):
        functor.visit_expr(arg)


def functor_visit(functor, op: TilePrimitiveCall) -> None:
    """``StmtVisitor.visit_tile_primitive_call_``: every operand (regions, expressions,
    nested calls of a ``compose_op``, lambda bodies) and config expression."""
    for a in op.args:
        _visit_arg(functor, a)
    for value in op.config.values():
        _visit_arg(functor, value)


def _mutate_arg(functor, arg):
    if isinstance(arg, BufferRegion):
        return functor.visit_buffer_region(arg)
    if isinstance(arg, Stmt):
        return functor.visit_stmt(arg)
    if isinstance(arg, LambdaExpr):
        pred = functor.visit_expr(arg.pred)
        return arg if pred is arg.pred else LambdaExpr(list(arg.vars), pred)
    if isinstance(arg, tuple):
        new = tuple(_mutate_arg(functor, a) for a in arg)
        return arg if all(a is b for a, b in zip(new, arg)) else new
    if isinstance(arg, PrimExpr):
        return functor.visit_expr(arg)
    return arg


def functor_mutate(functor, op: TilePrimitiveCall):
    """``StmtMutator.visit_tile_primitive_call_``: the call rebuilt from its mutated operands,
    workspace buffers (``visit_buffer_use``) and config; the same object when unchanged."""
    args = tuple(_mutate_arg(functor, a) for a in op.args)
    workspace = {k: functor.visit_buffer_use(b) for k, b in op.workspace.items()}
    config = {k: _mutate_arg(functor, v) for k, v in op.config.items()}
    if (all(a is b for a, b in zip(args, op.args))
            and all(workspace[k] is op.workspace[k] for k in workspace)
            and all(config[k] is op.config[k] for k in config)):
        return op
    return op.replace(args=args, workspace=workspace, config=config)
