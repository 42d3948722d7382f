"""``from tvm.script.tirx import tile as Tx``: the TIRx tile primitives (spec D.4).

Each ``Tx.<op>(...)`` adds one :class:`tvm.tirx.TilePrimitiveCall` statement to the function
being built. A scope prefix selects which threads cooperate on the call:

* ``Tx.<op>`` is thread scope (each thread runs the whole op; printed ``T.tile.<op>``);
* ``Tx.warp.<op>``, ``Tx.wg.<op>`` (= ``Tx.warpgroup.<op>``), ``Tx.cta.<op>`` and
  ``Tx.cluster.<op>`` run it cooperatively (printed ``T.warp.<op>``, ``T.wg.<op>``...).

Operands are buffers or buffer regions: a whole buffer ``A`` stands for ``A[0:n, 0:m]`` and
``A[i]`` of a 2-D buffer for ``A[i, 0:m]``; some operands (the second source of ``add``, the
value of ``fill``) may also be scalars. A scalar where a tile is required is a ``TypeError``
that names the scalar form ``T.<op>``. Every op also takes ``workspace={name: buffer}``,
``dispatch="<variant>"`` and free keyword options, collected into the call's ``config``.

``with Tx.compose_op(...):`` groups tile calls into one ``compose_op`` call (a fused group
lowered as a whole by a backend).
"""

from __future__ import annotations

from ....ir.expr import PrimExpr
from ....ir.op import Op
from ....tirx.buffer import Buffer
from ....tirx.exec_scope import ExecScope
from ....tirx.expr import IntImm
from ....tirx.stmt import BufferLoad, BufferRegion
from ....tirx.tile_primitive import (
    TILE_PRIMITIVE_NAMES,
    LambdaExpr,
    TilePrimitiveCall,
    get_tile_op,
)
from ...ir_builder.tirx.frame import TIRFrame, add_to_parent

__all__ = list(TILE_PRIMITIVE_NAMES) + [
    "ScopeNamespace", "cluster", "cta", "thread", "to_region", "warp", "warpgroup", "wg",
]

_REQUIRED = object()
_SAME_AS_DST = object()

# Operand kinds: "R" a tile (buffer region), "RS" a tile or a scalar, "V" a plain value,
# "AX" reduction axes (an int or a list of ints), "OP" an op name, "L" a lambda.
_SIGNATURES = {
    "zero": [("dst", "R", _REQUIRED), ("src", "R", _SAME_AS_DST)],
    "reciprocal": [("dst", "R", _REQUIRED), ("src", "R", _SAME_AS_DST)],
    "silu": [("dst", "R", _REQUIRED), ("src", "R", _REQUIRED)],
    "cast": [("dst", "R", _REQUIRED), ("src", "R", _SAME_AS_DST)],
    "copy": [("dst", "R", _REQUIRED), ("src", "R", _REQUIRED)],
    "copy_async": [("dst", "R", _REQUIRED), ("src", "R", _REQUIRED)],
    "permute_layout": [("dst", "R", _REQUIRED), ("src", "R", _SAME_AS_DST)],
    "fill": [("dst", "R", _REQUIRED), ("value", "V", _REQUIRED)],
    "memset": [("dst", "R", _REQUIRED), ("value", "V", _REQUIRED)],
    "fma": [("dst", "R", _REQUIRED), ("src", "R", _REQUIRED), ("scale", "RS", _REQUIRED),
            ("bias", "RS", _REQUIRED)],
    "gemm": [("D", "R", _REQUIRED), ("A", "R", _REQUIRED), ("B", "R", _REQUIRED),
             ("C", "R", _REQUIRED), ("transpose_A", "V", False), ("transpose_B", "V", False),
             ("alpha", "V", 1.0), ("beta", "V", 0.0)],
    "select": [("dst", "R", _REQUIRED), ("true_value", "RS", _REQUIRED),
               ("false_value", "RS", _REQUIRED), ("pred", "L", _REQUIRED)],
    "binary_reduce": [("binary_output", "R", _REQUIRED), ("reduce_output", "R", _REQUIRED),
                      ("binary_input1", "RS", _REQUIRED), ("binary_input2", "RS", _REQUIRED),
                      ("binary_op", "OP", _REQUIRED), ("reduce_op", "OP", _REQUIRED),
                      ("reduce_axes", "AX", -1)],
    "unary_reduce": [("unary_output", "R", _REQUIRED), ("reduce_output", "R", _REQUIRED),
                     ("unary_input", "R", _REQUIRED), ("unary_op", "OP", _REQUIRED),
                     ("reduce_op", "OP", _REQUIRED), ("bias", "RS", None), ("scale", "V", None),
                     ("reduce_axes", "AX", -1)],
    "binary_chain": [("output", "R", _REQUIRED), ("data", "R", _REQUIRED),
                     ("operand0", "RS", _REQUIRED), ("operand1", "RS", _REQUIRED),
                     ("op0", "OP", _REQUIRED), ("op1", "OP", _REQUIRED),
                     ("reverse1", "V", False)],
    # Stored as (output, input, reduce_axes, accum, reduce_op): see _STORED_ORDER.
    "reduce_negate": [("output", "R", _REQUIRED), ("input", "R", _REQUIRED),
                      ("reduce_op", "OP", _REQUIRED), ("reduce_axes", "AX", -1),
                      ("accum", "V", False)],
}
#: Ops whose operands are stored in another order than their parameters (indices).
_STORED_ORDER = {"reduce_negate": (0, 1, 3, 4, 2)}
for _name in ("sqrt", "exp", "exp2", "log2"):
    _SIGNATURES[_name] = [("dst", "R", _REQUIRED), ("src", "R", _SAME_AS_DST),
                          ("bias", "RS", None), ("scale", "V", None)]
for _name in ("add", "sub", "mul", "fdiv", "maximum", "minimum"):
    _SIGNATURES[_name] = [("dst", "R", _REQUIRED), ("src1", "RS", _REQUIRED),
                          ("src2", "RS", _REQUIRED)]
for _name in ("sum", "max", "min"):
    _SIGNATURES[_name] = [("dst", "R", _REQUIRED), ("src", "R", _REQUIRED),
                          ("axes", "AX", -1), ("accum", "V", False)]
del _name


def _is_tile(value) -> bool:
    return isinstance(value, (Buffer, BufferRegion))


def to_region(value, what: str = "operand") -> BufferRegion:
    """A tile operand as a ``BufferRegion``: a buffer is its full region, a region itself, an
    element load ``A[i, j]`` the one-element region."""
    if isinstance(value, BufferRegion):
        return _simplified(value)
    if isinstance(value, Buffer):
        return BufferRegion.full_region(value)
    if isinstance(value, BufferLoad):
        ranges = []
        from ....ir.expr import Range

        for idx in value.indices:
            ranges.append(Range.from_min_extent(idx, IntImm(getattr(idx, "dtype", "int32"), 1)))
        return BufferRegion(value.buffer, ranges)
    raise TypeError(f"{what}: expected a Buffer or BufferRegion, got {type(value).__name__}")


def _simplified(region: BufferRegion) -> BufferRegion:
    """``A[i * 4:i * 4 + 4]`` has the extent ``i * 4 + 4 - i * 4``: store it simplified."""
    if all(isinstance(r.extent, IntImm) for r in region.region):
        return region
    from ....arith import Analyzer
    from ....ir.expr import Range

    analyzer = Analyzer()
    ranges = [r if isinstance(r.extent, IntImm)
              else Range.from_min_extent(r.min, analyzer.simplify(r.extent))
              for r in region.region]
    return BufferRegion(region.buffer, ranges)


def _scalar_error(op: str, param: str, value) -> TypeError:
    return TypeError(
        f"Tx.{op} is tile-only: operand {param!r} must be a Buffer or BufferRegion, got "
        f"{type(value).__name__} {value!r}; use T.{op} for scalar expressions"
    )


def _axis(v):
    if isinstance(v, IntImm):
        return v.value
    if isinstance(v, int):
        return int(v)
    raise TypeError(f"A reduction axis must be an int, got {v!r}")


def _axes(value):
    """Reduction axes as a tuple of Python ints (``-1``, ``[1]``, ``(0, 1)``)."""
    if isinstance(value, (list, tuple)):
        return tuple(_axis(v) for v in value)
    return (_axis(value),)


def _op_arg(value, op: str, param: str):
    if isinstance(value, str):
        return get_tile_op(value)
    if isinstance(value, PrimExpr) or value is None:
        raise TypeError(f"Tx.{op}: {param} must be a tile op name (\"add\", \"sum\"...)")
    return value


def _bind(op: str, args, kwargs):
    """Bind the call's arguments to the op signature: ``(operands, leftover kwargs)``."""
    sig = _SIGNATURES[op]
    if (op == "reduce_negate" and len(args) >= 3 and not isinstance(args[2], (str, Op))):
        # The printed (stored) order ``(output, input, axes, accum, reduce_op)``.
        args = [args[i] for i in (0, 1, 4, 2, 3) if i < len(args)]
    if len(args) > len(sig):
        raise TypeError(f"Tx.{op} takes at most {len(sig)} operands, got {len(args)}")
    values = {}
    for (param, _, _), value in zip(sig, args):
        values[param] = value
    for param, _, _ in sig[len(args):]:
        if param in kwargs:
            values[param] = kwargs.pop(param)
    out = []
    for param, kind, default in sig:
        value = values.get(param, default)
        if value is _REQUIRED:
            raise TypeError(f"Tx.{op}: missing operand {param!r}")
        if value is _SAME_AS_DST:
            value = out[0]
        elif kind == "R":
            if not _is_tile(value) and not isinstance(value, BufferLoad):
                raise _scalar_error(op, param, value)
            value = to_region(value, f"Tx.{op} {param}")
        elif kind == "RS" and isinstance(value, Buffer):
            value = to_region(value)
        elif kind == "AX":
            value = _axes(value)
        elif kind == "OP":
            value = _op_arg(value, op, param)
        elif kind == "L" and not isinstance(value, LambdaExpr):
            if not callable(value):
                raise TypeError(f"Tx.{op}: {param} must be a lambda over the tile indices")
            value = LambdaExpr(value)
        out.append(value)
    order = _STORED_ORDER.get(op)
    if order is not None:
        out = [out[i] for i in order]
    return out, kwargs


def _check_copy_shapes(op: str, dst: BufferRegion, src: BufferRegion) -> None:
    """Copy operands must cover the same region shape, dimensions of extent 1 aside."""
    from ....arith import Analyzer

    def squeeze(region):
        return [r.extent for r in region.region
                if not (isinstance(r.extent, IntImm) and r.extent.value == 1)]

    d, s = squeeze(dst), squeeze(src)
    same = len(d) == len(s)
    if same:
        analyzer = None
        for a, b in zip(d, s):
            if isinstance(a, IntImm) and isinstance(b, IntImm):
                same = a.value == b.value
            else:
                analyzer = analyzer or Analyzer()
                same = analyzer.can_prove_equal(a, b)
            if not same:
                break
    if not same:
        raise ValueError(
            f"Tx.{op}: destination region {dst.buffer.name} of shape {[str(e) for e in d]} and "
            f"source region {src.buffer.name} of shape {[str(e) for e in s]} differ (dimensions "
            "of extent 1 aside); copy operands must cover the same region"
        )


def _emit(op: str, scope: ExecScope, args, kwargs):
    workspace = kwargs.pop("workspace", None)
    dispatch = kwargs.pop("dispatch", None)
    operands, config = _bind(op, args, kwargs)
    if op == "gemm_async":
        raise AssertionError("unreachable: gemm_async has its own builder")
    if op in ("copy", "copy_async") and dispatch not in ("tma_auto", "tma_explicit"):
        _check_copy_shapes(op, operands[0], operands[1])
    call = TilePrimitiveCall(*operands, op=get_tile_op(op), workspace=workspace, config=config,
                             dispatch=dispatch, scope=scope)
    add_to_parent(call)
    return call


def _gemm_async(scope, *args, workspace=None, dispatch=None, **kwargs):
    """``Tx.gemm_async(C, A, B, SFA=None, SFB=None, transA=False, transB=False,
    accum=False)``. Positionally, the tiles come first (C, A, B and optionally SFA, SFB) and
    the flags after them, which is also how the call prints."""
    args = list(args)
    tiles = []
    while args and (_is_tile(args[0]) or args[0] is None) and len(tiles) < 5:
        tiles.append(args.pop(0))
    names = ["C", "A", "B", "SFA", "SFB"]
    values = dict(zip(names, tiles))
    for n in names:
        if n in kwargs:
            values[n] = kwargs.pop(n)
    flags = dict(zip(["transA", "transB", "accum"], args))
    if len(args) > 3:
        raise TypeError(f"Tx.gemm_async: too many operands ({len(tiles) + len(args)})")
    for n in ("transA", "transB", "accum"):
        if n in kwargs:
            flags[n] = kwargs.pop(n)
    regions = []
    for n in ("C", "A", "B"):
        if n not in values:
            raise TypeError(f"Tx.gemm_async: missing operand {n!r}")
        if not _is_tile(values[n]):
            raise _scalar_error("gemm_async", n, values[n])
        regions.append(to_region(values[n]))
    sfa, sfb = values.get("SFA"), values.get("SFB")
    if (sfa is None) != (sfb is None):
        raise ValueError("SFA and SFB must both be provided or both be None")
    if sfa is not None:
        regions += [to_region(sfa, "Tx.gemm_async SFA"), to_region(sfb, "Tx.gemm_async SFB")]
    call = TilePrimitiveCall(*regions, flags.get("transA", False), flags.get("transB", False),
                             flags.get("accum", False), op=get_tile_op("gemm_async"),
                             workspace=workspace, config=kwargs, dispatch=dispatch, scope=scope)
    add_to_parent(call)
    return call


def _raise_tile(op, param, value):
    raise _scalar_error(op, param, value)


class ComposeOpFrame(TIRFrame):
    """``with Tx.compose_op(...):``: the tile calls of the block, grouped into one
    ``compose_op`` call (its operands are the calls)."""

    def __init__(self, scope, workspace, dispatch, config):
        super().__init__()
        self.scope = scope
        self.workspace = workspace
        self.dispatch = dispatch
        self.config = config

    def exit_with_scope(self) -> None:
        """Group the tile calls of the body into one ``compose_op`` call and add it to the parent.

        Raises
        ------
        TypeError
            When the body holds a statement other than a tile-primitive call.
        """
        for stmt in self.stmts:
            if not isinstance(stmt, TilePrimitiveCall):
                raise TypeError(
                    "Only tile primitive calls (Tx.<op>) may appear inside Tx.compose_op, got "
                    f"{type(stmt).__name__}"
                )
        add_to_parent(TilePrimitiveCall(
            *self.stmts, op=get_tile_op("compose_op"), workspace=self.workspace,
            config=self.config, dispatch=self.dispatch, scope=self.scope))


def _make(op: str, scope: ExecScope):
    if op == "compose_op":
        def call(workspace=None, dispatch=None, **kwargs):
            return ComposeOpFrame(scope, workspace, dispatch, kwargs)
    elif op == "gemm_async":
        def call(*args, **kwargs):
            return _gemm_async(scope, *args, **kwargs)
    else:
        def call(*args, **kwargs):
            return _emit(op, scope, args, dict(kwargs))
    call.__name__ = call.__qualname__ = op
    call.__doc__ = (f"``Tx.{op}`` at {scope.name} scope: adds a ``tirx.tile.{op}`` "
                    "TilePrimitiveCall (see the module docstring).")
    return call


class ScopeNamespace:
    """The tile primitives at one scope: ``Tx.cta.copy(...)``, ``Tx.warp.fill(...)``."""

    def __init__(self, scope: str, label: str):
        self._scope = ExecScope(scope)
        self._label = label
        for op in TILE_PRIMITIVE_NAMES:
            setattr(self, op, _make(op, self._scope))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(
            f"Tx.{self._label}.{name} is not a tile primitive; the tile primitives are "
            f"{', '.join(TILE_PRIMITIVE_NAMES)}"
        )

    def __repr__(self):
        return f"<Tx.{self._label}: {self._scope.name}-scope tile primitives>"


thread = ScopeNamespace("thread", "thread")
warp = ScopeNamespace("warp", "warp")
wg = ScopeNamespace("warpgroup", "wg")
warpgroup = ScopeNamespace("warpgroup", "warpgroup")
cta = ScopeNamespace("cta", "cta")
cluster = ScopeNamespace("cluster", "cluster")

for _op in TILE_PRIMITIVE_NAMES:
    globals()[_op] = getattr(thread, _op)
del _op


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        f"Tx.{name} is not a tile primitive; the tile primitives are "
        f"{', '.join(TILE_PRIMITIVE_NAMES)}, at the scopes Tx.<op> (thread), Tx.warp, Tx.wg, "
        "Tx.cta and Tx.cluster"
    )
