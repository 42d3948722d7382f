"""The TIR IR builder: frames and calls that build PrimFuncs, usable from Python like TVM's.

>>> from tvm.script.ir_builder import IRBuilder
>>> from tvm.script.ir_builder import tirx as T
>>> with IRBuilder() as ib:
...     with T.prim_func():
...         T.func_name("main")
...         A = T.arg("A", T.Buffer((4,), "float32"))
...         with T.serial(4) as i:
...             T.buffer_store(A, A[i] * 2.0, [i])
>>> ib.get().params[0].name
'A'

The ``T`` namespace of TVMScript (:mod:`tvm.script.parser.tirx`) re-exports these calls; the
parser drives them statement by statement.
"""

from __future__ import annotations

import typing

from tvm.error import InternalError
from tvm.ffi.node import set_field
from tvm.ir import Range
from tvm.ir.expr import PrimExpr
from tvm.ir.op import Op as _Op
from tvm.tirx import stmt as _stmt
from tvm.tirx.buffer import NO_LAYOUT as _NO_LAYOUT
from tvm.tirx.buffer import VIEW_DECLARERS as _VIEW_DECLARERS
from tvm.tirx.buffer import Buffer as _Buffer
from tvm.tirx.buffer import decl_buffer as _decl_buffer
from tvm.tirx.buffer import pointer_type_of
from tvm.tirx.expr import Call as _Call
from tvm.tirx.expr import IntImm, StringImm, Var

from ..base import IRBuilder
from .frame import (
    AttrFrame,
    ElseFrame,
    ForFrame,
    IfFrame,
    InitFrame,
    LaunchThreadFrame,
    PrimFuncFrame,
    SBlockFrame,
    ThenFrame,
    TIRFrame,
    WhileFrame,
    add_to_parent,
    current_frame,
)

__all__ = [
    "Assert",
    "Bind",
    "Buffer",
    "Else",
    "If",
    "Then",
    "While",
    "add_to_parent",
    "alloc_buffer",
    "arg",
    "attr",
    "axis",
    "buffer_store",
    "decl_buffer",
    "evaluate",
    "func_attr",
    "func_name",
    "func_ret",
    "grid",
    "init",
    "match_buffer",
    "name_buffer",
    "parallel",
    "prim_func",
    "reads",
    "sblock",
    "sblock_alloc_buffer",
    "sblock_attr",
    "serial",
    "thread_binding",
    "unroll",
    "vectorized",
    "where",
    "writes",
]


# --- functions ------------------------------------------------------------------------------


def prim_func(s_tir: bool = False, private: bool = False,
              persistent: bool = False) -> PrimFuncFrame:
    """Open a PrimFunc frame (``persistent``: a persistent kernel, attribute
    ``"tirx.persistent_kernel": True``)."""
    return PrimFuncFrame(s_tir=s_tir, private=private, persistent=persistent)


def _func_frame(what: str) -> PrimFuncFrame:
    return current_frame(PrimFuncFrame, what)


def func_name(name: str) -> None:
    """Name the function (its ``global_symbol`` unless private)."""
    _func_frame("T.func_name").name = name


def func_attr(attrs: dict) -> None:
    """``T.func_attr({...})``: set the function's attributes."""
    frame = _func_frame("T.func_attr")
    if frame.attrs is not None:
        raise ValueError("T.func_attr is called twice in the same function")
    frame.attrs = dict(attrs)


def func_ret(ret_type) -> None:
    """Set the function's return type."""
    _func_frame("T.func_ret").ret_type = ret_type


def arg(name: str, obj):
    """Add a parameter: a ``Var`` (scalar or handle) or a ``Buffer`` (a handle mapped to it)."""
    frame = _func_frame("T.arg")
    if isinstance(obj, _Buffer):
        name_buffer(obj, name)
        handle = Var(name, "handle")
        frame.args.append(handle)
        frame.buffer_map[handle] = obj
        return obj
    if not isinstance(obj, Var):
        raise TypeError(f"T.arg expects a tirx.Var or a Buffer, got {type(obj).__name__}")
    IRBuilder.name(name, obj)
    frame.args.append(obj)
    return obj


# --- buffers --------------------------------------------------------------------------------


def name_buffer(buf, name: str):
    """Give ``buf`` (and its own data pointer, when unnamed) the name ``name``."""
    if not buf.name or buf.name == "buffer":
        set_field(buf, "name", name)
        if buf.data.name in ("", "buffer"):
            set_field(buf.data, "name", name)
    return buf


def _sym_dim(value):
    """A shape entry: a string names a symbolic ``int32`` variable of the current function; a
    ``typing.TypeVar`` (a module-level ``n = TypeVar("n")``, which TVM prints for the Relax
    shape variables of a module) an ``int64`` one."""
    dtype = "int32"
    if isinstance(value, typing.TypeVar):
        value, dtype = value.__name__, "int64"
    if not isinstance(value, str):
        return value
    frame = IRBuilder.current().find_frame(PrimFuncFrame) if IRBuilder.is_in_scope() else None
    if frame is None:
        return Var(value, dtype)
    var = frame.sym_vars.get(value)
    if var is None:
        var = frame.sym_vars[value] = Var(value, dtype)
    return var


def _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                 buffer_type, axis_separators, layout="default", allocated_addr=None):
    # As Apache TVM 0.27: an omitted ``layout=`` is the row-major default (stored as None);
    # an explicit ``layout=None`` means "no layout" (NO_LAYOUT, printed ``layout=None``).
    layout = _NO_LAYOUT if layout is None else layout
    if isinstance(shape, str) and not shape.isidentifier():
        # A string is a symbolic dim's name (``"n"``), never a shape's text (``"(128, 128)"``).
        raise TypeError(
            f"Mismatched type on argument #0 (shape): expected a list of dims, got the string "
            f"{shape!r}"
        )
    if isinstance(shape, (int, str, PrimExpr)):
        shape = (shape,)
    shape = tuple(_sym_dim(s) for s in shape)
    if buffer_type == "auto":
        buffer_type = "auto_broadcast"
    return _decl_buffer(
        shape, dtype or "float32", "buffer", data=data,
        strides=[_sym_dim(s) for s in strides] if strides else None,
        elem_offset=_sym_dim(elem_offset), scope="" if scope == "global" else scope,
        data_alignment=align, offset_factor=offset_factor, buffer_type=buffer_type,
        axis_separators=axis_separators, layout=layout, allocated_addr=allocated_addr,
    )


def Buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None, scope="global",
           align=-1, offset_factor=0, buffer_type="", axis_separators=None, layout="default",
           allocated_addr=None):
    """``T.Buffer((16,), "float32")``: a buffer (a parameter annotation or a declaration)."""
    return _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                        buffer_type, axis_separators, layout=layout,
                        allocated_addr=allocated_addr)


def match_buffer(param, shape=None, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=-1, offset_factor=0, buffer_type="default",
                 axis_separators=None, layout="default"):
    """``T.match_buffer(a, shape, dtype)``: bind a handle parameter (at function level) or a
    buffer region (inside a block) to a new buffer; ``layout`` is a TIRx layout object."""
    if isinstance(param, _stmt.BufferLoad):
        param = _stmt.BufferRegion.from_point(param.buffer, param.indices)
    elif isinstance(param, _stmt.BufferRegion):
        param = _simplified(param)
    if shape is None:
        if not isinstance(param, _stmt.BufferRegion):
            raise ValueError("T.match_buffer of a handle needs a shape")
        shape = [r.extent for r in param.region]
    buf = _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                       buffer_type, axis_separators, layout=layout)
    if isinstance(param, _stmt.BufferRegion):
        block = current_frame(SBlockFrame, "T.match_buffer of a buffer region")
        _check_region_fits(param, buf)
        block.match_buffers.append(_stmt.MatchBufferRegion(buf, param))
        return buf
    frame = _func_frame("T.match_buffer")
    if not isinstance(param, Var) or not any(param is a for a in frame.args):
        raise ValueError(
            f"T.match_buffer expects a handle parameter of the function or a buffer region, "
            f"got {param!r}"
        )
    if param in frame.buffer_map:
        raise ValueError(f"Parameter {param.name} is matched to a buffer twice")
    frame.buffer_map[param] = buf
    return buf


def _check_region_fits(region, buf) -> None:
    """The matched buffer's dims are the region's trailing extents (as TVM checks)."""
    from tvm.arith import Analyzer  # local: only region matches need it

    extents = [r.extent for r in region.region]
    if len(buf.shape) > len(extents):
        raise ValueError(
            f"T.match_buffer: buffer {buf.name or '<unnamed>'} has {len(buf.shape)} dims but the "
            f"region of {region.buffer.name} has {len(extents)}"
        )
    analyzer = Analyzer()
    for extent, dim in zip(extents[len(extents) - len(buf.shape):], buf.shape):
        diff = analyzer.simplify(extent - dim)
        if isinstance(diff, IntImm) and diff.value != 0:
            raise ValueError(
                "The dimension mismatched between source region and target buffer shape, got "
                f"{analyzer.simplify(extent)} vs. {dim}."
            )


def alloc_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=-1, offset_factor=0, buffer_type="default",
                 axis_separators=None, annotations=None, layout="default", allocated_addr=None):
    """``T.alloc_buffer(shape, dtype, scope=..., layout=..., align=...)``: allocate a buffer
    for the rest of the scope. ``layout`` is a ``tvm.tirx.layout`` Layout (None: row-major);
    ``allocated_addr`` fixes the address (Trainium, TMEM)."""
    buf = _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                       buffer_type, axis_separators, layout=layout,
                       allocated_addr=allocated_addr)
    add_to_parent(_stmt.AllocBuffer(buf, annotations))
    return buf


def alloc_local(shape, dtype="float32", **kwargs):
    """``T.alloc_local(shape, dtype)``: a ``local``-scope allocation."""
    return alloc_buffer(shape, dtype, scope="local", **kwargs)


def alloc_shared(shape, dtype="float32", **kwargs):
    """``T.alloc_shared(shape, dtype)``: a ``shared``-scope allocation."""
    return alloc_buffer(shape, dtype, scope="shared", **kwargs)


def _declare_view(buf):
    """``B = A.local()`` (and every other derived view) in a function being built: a
    ``DeclBuffer`` for the rest of the scope. Registered in ``tvm.tirx.buffer``."""
    if not IRBuilder.is_in_scope():
        return None
    frames = IRBuilder.current().frames
    if not frames or not isinstance(frames[-1], TIRFrame):
        return None
    add_to_parent(_stmt.DeclBuffer(buf, _decl_data(buf, buf.data)))
    return buf


def _decl_data(buf, data):
    """The ``data`` of a ``DeclBuffer`` of ``buf``: as in Apache TVM 0.27, a TMEM buffer with an
    ``allocated_addr`` is addressed by it, ``T.reinterpret(T.handle(dtype, "tmem"), addr)``
    (printed without ``data=``); any other buffer by ``data`` as given."""
    if buf.scope() == "tmem" and buf.allocated_addr is not None:
        return _Call(buf.data.type_annotation, _Op.get("tirx.reinterpret"),
                     (buf.allocated_addr[0],))
    return data


_VIEW_DECLARERS.append(_declare_view)


def decl_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                scope="global", align=-1, offset_factor=0, buffer_type="default",
                axis_separators=None, allocated_addr=None, layout="default"):
    """``T.decl_buffer(shape, dtype, data=..., allocated_addr=..., scope=..., layout=...)``:
    declare a buffer view for the rest of the scope; ``allocated_addr`` carries a TMEM
    address."""
    buf = _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                       buffer_type, axis_separators, layout=layout,
                       allocated_addr=allocated_addr)
    add_to_parent(_stmt.DeclBuffer(buf, _decl_data(buf, data)))
    return buf


def sblock_alloc_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                        scope="global", align=-1, offset_factor=0, buffer_type="default",
                        axis_separators=None):
    """``T.sblock_alloc_buffer``: a buffer allocated by the enclosing block (the root block
    at function level)."""
    buf = _make_buffer(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                       buffer_type, axis_separators)
    frames = IRBuilder.current().frames
    block = next((f for f in reversed(frames) if isinstance(f, (SBlockFrame, PrimFuncFrame))),
                 None)
    if block is None:
        raise ValueError("T.sblock_alloc_buffer must be used inside a PrimFunc or a block")
    (block.alloc_buffers if isinstance(block, SBlockFrame)
     else block.root_alloc_buffers).append(buf)
    return buf


# --- statements -----------------------------------------------------------------------------


def buffer_store(buffer, value, indices) -> None:
    """``buffer[indices] = value``; a scalar value of another dtype is converted to the
    buffer's (a constant is re-typed, an expression cast), as TVM does."""
    if (isinstance(value, PrimExpr) and isinstance(getattr(buffer, "dtype", None), str)
            and value.dtype != buffer.dtype and "x" not in value.dtype):
        value = _convert(value, buffer.dtype)
    if not isinstance(indices, (list, tuple)):  # T.buffer_store(buf, v, 0): one index
        indices = [indices]
    if isinstance(value, PrimExpr) and "x" in value.dtype:
        # A vector of another element type is cast to the access dtype (lanes included),
        # as TVM's parser does: ``A[0:4] = T.Broadcast(1, 4)`` on float32 stores float32x4.
        value = _cast_vector(buffer, value, indices)
    add_to_parent(_stmt.BufferStore(buffer, value, list(indices)))


def _cast_vector(buffer, value, indices):
    from tvm.runtime.data_type import dtype_info, with_lanes
    from tvm.tirx.generic import cast

    lanes = dtype_info(value.dtype).lanes
    index_lanes = [dtype_info(i.dtype).lanes for i in indices if isinstance(i, PrimExpr)]
    buffer_dtype = getattr(buffer, "dtype", None)
    if not isinstance(buffer_dtype, str) or "x" in buffer_dtype or lanes not in index_lanes:
        return value
    expected = with_lanes(buffer_dtype, lanes)
    return value if expected == value.dtype else cast(value, expected)


def _convert(value, dtype):
    from tvm.tirx.expr import Cast, FloatImm

    is_float = dtype.startswith(("float", "bfloat"))
    if isinstance(value, IntImm) and not is_float:
        return IntImm(dtype, value.value)
    if isinstance(value, (IntImm, FloatImm)) and is_float:
        return FloatImm(dtype, float(value.value))
    return Cast(dtype, value)


def evaluate(value) -> None:
    """``T.evaluate(value)``: evaluate an expression for its side effects.

    ``T.evaluate(T.break_loop())`` and ``T.evaluate(T.continue_loop())`` (what ``break`` and
    ``continue`` mean in TVMScript) add a ``Break`` / ``Continue`` statement.
    """
    op_name = getattr(getattr(value, "op", None), "name", None)
    if isinstance(value, _Call) and op_name in _LOOP_JUMPS and not value.args:
        add_to_parent(_LOOP_JUMPS[op_name]())
        return
    add_to_parent(_stmt.Evaluate(value))


_LOOP_JUMPS = {"tirx.break_loop": _stmt.Break, "tirx.continue_loop": _stmt.Continue}


def Bind(value, dtype=None, var=None):
    """``x = T.Bind(value)``: bind a new variable for the statements that follow."""
    if var is None:
        if dtype is None:
            dtype = value.dtype if isinstance(value, PrimExpr) else _python_dtype(value)
        # ``ptr = A.ptr_to([i])``: a pointer variable of the element type and scope.
        var = Var("", pointer_type_of(value) or dtype)
    add_to_parent(_stmt.Bind(var, value))
    frame = IRBuilder.current().find_frame(PrimFuncFrame)
    if frame is not None:
        frame.bound_vars.add(id(var))
    return var


def _python_dtype(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32" if -(2**31) <= value < 2**31 else "int64"
    if isinstance(value, float):
        return "float32"
    raise TypeError(f"Cannot bind a {type(value).__name__} to a TIR variable")


def Assert(condition, message) -> None:
    """``T.Assert(cond, message)``: a ``RuntimeError`` assertion; ``message`` is a string, a
    list of parts, or ``(kind, parts)`` (the printed form)."""
    kind = "RuntimeError"
    if isinstance(message, tuple) and len(message) == 2 and isinstance(message[0], str):
        kind, message = message
    if isinstance(message, (str, StringImm)):
        message = [message]
    add_to_parent(_stmt.AssertStmt(kind, condition, list(message)))


def attr(node, attr_key: str | None = None, value=None) -> AttrFrame:
    """``with T.attr(node, "key", value):``; ``T.attr({"key": value, ...})`` (0.27's form
    for attributes about no node) nests one attribute per entry, about the node ``0``."""
    if isinstance(node, dict):
        if attr_key is not None or value is not None:
            raise TypeError("T.attr({...}) takes the attribute dict only")
        return AttrFrame([(IntImm("int32", 0), k, v) for k, v in node.items()])
    if attr_key is None:
        raise TypeError("T.attr(node, attr_key, value) is missing attr_key")
    if isinstance(node, int):
        node = IntImm("int32", node)
    return AttrFrame([(node, attr_key, value)])


def env_thread(thread_tag: str):
    """``tx = T.env_thread("threadIdx.x")``: a thread variable, launched later with
    ``T.launch_thread(tx, extent)``."""
    iter_var = _stmt.IterVar(None, Var("", "int32"), _stmt.IterVar.ThreadIndex, thread_tag)
    frame = IRBuilder.current().find_frame(PrimFuncFrame) if IRBuilder.is_in_scope() else None
    if frame is not None:
        # Scripts use the variable by name; T.launch_thread(tx, n) finds its tag here.
        frame.env_threads[id(iter_var.var)] = iter_var
    return iter_var


def launch_thread(thread, extent) -> LaunchThreadFrame:
    """``bx = T.launch_thread("blockIdx.x", 4)`` (or ``T.launch_thread(tx, 64)`` for a
    ``T.env_thread``): launch ``extent`` threads; the body runs with the thread variable."""
    extent = _as_expr(extent, extent.dtype if isinstance(extent, PrimExpr) else "int32")
    dom = Range.from_min_extent(IntImm(extent.dtype, 0), extent)
    if isinstance(thread, str):
        iter_var = _stmt.IterVar(dom, Var("", extent.dtype), _stmt.IterVar.ThreadIndex, thread)
    elif isinstance(thread, Var) and IRBuilder.is_in_scope():
        frame = IRBuilder.current().find_frame(PrimFuncFrame)
        env = frame.env_threads.get(id(thread)) if frame is not None else None
        if env is None:
            raise ValueError(f"T.launch_thread: {thread.name} is not a T.env_thread variable")
        return launch_thread(env, extent)
    elif isinstance(thread, _stmt.IterVar):
        iter_var = _stmt.IterVar(dom, thread.var, _stmt.IterVar.ThreadIndex, thread.thread_tag)
    else:
        raise TypeError(
            f"T.launch_thread expects a thread tag or a T.env_thread variable, got {thread!r}"
        )
    return LaunchThreadFrame(iter_var, extent)


def While(condition) -> WhileFrame:
    """``with T.While(cond):``."""
    return WhileFrame(condition)


def If(condition) -> IfFrame:
    """``with T.If(cond):`` (then ``with T.Then():`` / ``with T.Else():``)."""
    return IfFrame(condition)


def Then() -> ThenFrame:
    """The then-branch of ``T.If``."""
    return ThenFrame()


def Else() -> ElseFrame:
    """The else-branch of ``T.If``."""
    return ElseFrame()


# --- loops ----------------------------------------------------------------------------------


def _loop_dtype(*values) -> str:
    """The loop variable's dtype from its bounds: int64 if any is, else uint32 if any is
    (``range(T.uint32(128))``), else int32."""
    dtypes = {v.dtype for v in values if isinstance(v, PrimExpr)}
    if "int64" in dtypes:
        return "int64"
    if "uint32" in dtypes:
        return "uint32"
    return "int32"


def _as_expr(value, dtype):
    if isinstance(value, PrimExpr):
        return value
    return IntImm(dtype, int(value))


def _bounds(start, stop, dtype=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _loop_dtype(start, stop)
    lo, hi = _as_loop_bound(start, dtype), _as_loop_bound(stop, dtype)
    if isinstance(lo, IntImm) and lo.value == 0:
        extent = hi
    elif isinstance(lo, IntImm) and isinstance(hi, IntImm):
        extent = IntImm(dtype, hi.value - lo.value)
    else:
        # Lazy: the analyzer is only needed for symbolic bounds.
        from tvm.arith import Analyzer

        extent = Analyzer().simplify(hi - lo)
    return lo, extent, dtype


def _as_loop_bound(value, dtype):
    """A loop bound of the loop's dtype: a Python int becomes a constant of it, an
    expression of another dtype is cast (``T.serial(n, dtype="uint32")``)."""
    value = _as_expr(value, dtype)
    if value.dtype == dtype:
        return value
    if isinstance(value, IntImm):
        return IntImm(dtype, value.value)
    from tvm.tirx.expr import Cast

    return Cast(dtype, value)


def _check_loop_dtype(dtype, what):
    if dtype is not None and dtype not in ("int32", "uint32"):
        raise ValueError(f'{what}: the loop variable dtype must be "int32" or "uint32", '
                         f"got {dtype!r}")


def _unroll_annotations(annotations, unroll):
    """``unroll=False`` asks for no unrolling (``disable_unroll``); ``unroll=True`` or a count
    asks for ``#pragma unroll`` (``pragma_unroll``)."""
    if unroll is None:
        return annotations
    annotations = dict(annotations or {})
    if unroll is False:
        annotations["disable_unroll"] = True
    elif unroll is True or (isinstance(unroll, int) and unroll > 0):
        annotations["pragma_unroll"] = unroll
    else:
        raise ValueError(f"unroll must be a bool or a positive count, got {unroll!r}")
    return annotations


def _loop(kind, start, stop, annotations=None, step=None, thread=None, unroll=None,
          dtype=None, what="T.serial") -> ForFrame:
    _check_loop_dtype(dtype, what)
    for index, bound in enumerate((start, stop)):
        if bound is not None and not isinstance(bound, (int, PrimExpr)):
            raise TypeError(
                f"Mismatched type on argument #{index} when calling {what}: expected an int or "
                f"PrimExpr, got {type(bound).__name__} {bound!r}"
            )
    lo, extent, dtype = _bounds(start, stop, dtype)
    if step is not None and not isinstance(step, PrimExpr):
        step = IntImm(dtype, int(step))
    elif step is not None and step.dtype != dtype:
        step = _as_loop_bound(step, dtype)
    return ForFrame([Var("", dtype)], [lo], [extent], kind, thread,
                    _unroll_annotations(annotations, unroll), step)


def serial(start, stop=None, *, annotations=None, step=None, unroll=None,
           dtype=None) -> ForFrame:
    """``for i in T.serial(n)`` / ``T.serial(lo, hi, step=2)``; ``range`` means the same.

    ``unroll`` (``False``, ``True`` or a count) asks codegen not to unroll or to unroll the
    loop; ``dtype`` (``"int32"`` or ``"uint32"``) is the loop variable's dtype."""
    return _loop(_stmt.ForKind.SERIAL, start, stop, annotations, step, unroll=unroll,
                 dtype=dtype, what="T.serial")


def parallel(start, stop=None, *, annotations=None, step=None, dtype=None) -> ForFrame:
    """``for i in T.parallel(n)``."""
    return _loop(_stmt.ForKind.PARALLEL, start, stop, annotations, step, dtype=dtype,
                 what="T.parallel")


def vectorized(start, stop=None, *, annotations=None, step=None, dtype=None) -> ForFrame:
    """``for i in T.vectorized(n)``."""
    return _loop(_stmt.ForKind.VECTORIZED, start, stop, annotations, step, dtype=dtype,
                 what="T.vectorized")


def unroll(start, stop=None, *, annotations=None, step=None, dtype=None) -> ForFrame:
    """``for i in T.unroll(n)``."""
    return _loop(_stmt.ForKind.UNROLLED, start, stop, annotations, step, dtype=dtype,
                 what="T.unroll")


def thread_binding(start, stop=None, thread=None, *, annotations=None) -> ForFrame:
    """``for i in T.thread_binding(n, thread="threadIdx.x")``."""
    if thread is None:
        if isinstance(stop, str):  # T.thread_binding(n, "threadIdx.x")
            stop, thread = None, stop
        else:
            raise ValueError("T.thread_binding needs a thread tag (thread=\"threadIdx.x\")")
    return _loop(_stmt.ForKind.THREAD_BINDING, start, stop, annotations, thread=thread)


def grid(*extents, dtype=None) -> ForFrame:
    """``for i, j in T.grid(m, (lo, n))``: directly nested serial loops; each is an extent or
    a ``(min, extent)`` pair (``dtype`` as in :func:`serial`)."""
    if not extents:
        raise ValueError("T.grid needs at least one extent")
    _check_loop_dtype(dtype, "T.grid")
    mins, exts, loop_vars = [], [], []
    for e in extents:
        if isinstance(e, (tuple, list)):
            # ``(min, extent)``: a loop over ``range(min, min + extent)``.
            if len(e) != 2:
                raise ValueError(f"T.grid: a loop is an extent or (min, extent), got {e!r}")
            dtype_i = dtype or _loop_dtype(*e)
            lo = _as_loop_bound(e[0], dtype_i)
            extent = _as_loop_bound(e[1], dtype_i)
            mins.append(lo)
            exts.append(extent)
            loop_vars.append(Var("", dtype_i))
            continue
        lo, extent, dtype_i = _bounds(e, None, dtype)
        mins.append(lo)
        exts.append(extent)
        loop_vars.append(Var("", dtype_i))
    return ForFrame(loop_vars, mins, exts)


# --- blocks ---------------------------------------------------------------------------------


def sblock(name: str = "", no_realize: bool = False, exec_scope: str = "") -> SBlockFrame:
    """``with T.sblock("name"):``. ``exec_scope`` (TIRx execution scopes, spec D.3) is not
    supported yet: only the default ``""`` is accepted."""
    if exec_scope:
        raise ValueError(
            f"T.sblock(exec_scope={exec_scope!r}): TIRx execution scopes are not supported by "
            "this builder yet (only exec_scope=\"\")"
        )
    return SBlockFrame(name, no_realize)


def init() -> InitFrame:
    """``with T.init():`` inside a block."""
    return InitFrame()


def _block(what: str) -> SBlockFrame:
    return current_frame(SBlockFrame, what)


def _simplified(region):
    """``region`` with simplified extents: a slice ``A[4 * i:4 * i + 4]`` has extent 4."""
    from tvm.arith import Analyzer  # local: only regions with symbolic bounds need it

    analyzer = Analyzer()
    ranges = []
    for r in region.region:
        extent = r.extent if isinstance(r.extent, IntImm) else analyzer.simplify(r.extent)
        ranges.append(r if extent is r.extent else Range.from_min_extent(r.min, extent))
    if all(a is b for a, b in zip(ranges, region.region)):
        return region
    return _stmt.BufferRegion(region.buffer, ranges)


def _regions(args):
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out.extend(_regions(a))
        elif isinstance(a, _stmt.BufferLoad):
            out.append(_stmt.BufferRegion.from_point(a.buffer, a.indices))
        elif isinstance(a, _stmt.BufferRegion):
            out.append(_simplified(a))
        elif isinstance(a, _Buffer):
            out.append(_stmt.BufferRegion.full_region(a))
        else:
            raise TypeError(f"Expected a buffer region such as A[i, 0:4], got {a!r}")
    return out


def reads(*regions) -> None:
    """``T.reads(A[i, 0:4], ...)``: the block's read regions."""
    block = _block("T.reads")
    if block.reads is not None:
        raise ValueError(f"T.reads is called twice in block {block.name!r}")
    block.reads = _regions(regions)


def writes(*regions) -> None:
    """``T.writes(C[i, j])``: the block's write regions."""
    block = _block("T.writes")
    if block.writes is not None:
        raise ValueError(f"T.writes is called twice in block {block.name!r}")
    block.writes = _regions(regions)


def where(predicate) -> None:
    """``T.where(cond)``: the block predicate (once per block)."""
    block = _block("T.where")
    if block.predicate is not None:
        raise ValueError(
            f"Duplicate block predicate declaration, previous one is {block.predicate}"
        )
    block.predicate = predicate


def sblock_attr(attrs: dict) -> None:
    """``T.sblock_attr({...})``: block annotations."""
    block = _block("T.sblock_attr")
    previous = dict(block.annotations or {})
    for key, value in dict(attrs).items():
        if key in previous and not _same_annotation(previous[key], value):
            raise ValueError(
                "Try to merge two annotations with different values for key "
                f"`{key}`, previous one is {_annotation_text(previous[key])}, new one is "
                f"{_annotation_text(value)}"
            )
    block.annotations = {**previous, **dict(attrs)}


def _same_annotation(a, b) -> bool:
    from tvm.ffi.structural import structural_equal  # local: only repeated keys need it

    if isinstance(a, (str, int, float, bool)) or isinstance(b, (str, int, float, bool)):
        return type(a) is type(b) and a == b
    return bool(structural_equal(a, b))


def _annotation_text(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _dom(dom, dtype):
    if isinstance(dom, Range):
        return dom
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2:
            raise ValueError(f"An axis domain is an extent or (min, max), got {dom!r}")
        lo, extent, _ = _bounds(_as_expr(dom[0], dtype), _as_expr(dom[1], dtype))
        return Range.from_min_extent(lo, extent)
    return Range.from_min_extent(IntImm(dtype, 0), _as_expr(dom, dtype))


def _dom_dtype(dom, dtype):
    """The iteration variable's dtype: an ``int64`` domain makes an ``int64`` variable (as in
    TVM) unless another dtype is asked for."""
    if dtype != "int32":
        return dtype
    parts = [dom.min, dom.extent] if isinstance(dom, Range) else (
        list(dom) if isinstance(dom, (tuple, list)) else [dom])
    if any(isinstance(p, PrimExpr) and p.dtype == "int64" for p in parts):
        return "int64"
    return dtype


def _axis(iter_type, dom, binding, dtype):
    block = _block("T.axis")
    parts = list(dom) if isinstance(dom, (tuple, list)) else [dom]
    for part in parts:
        part_dtype = part.dtype if isinstance(part, PrimExpr) else (
            "float32" if isinstance(part, float) else None)
        if part_dtype is not None and not part_dtype.startswith(("int", "uint")):
            raise TypeError(
                "The dtype of the domain of an IterVar must be an integer type. However, the "
                f"domain's dtype is {part_dtype}"
            )
    dtype = _dom_dtype(dom, dtype)
    rng = _dom(dom, dtype)
    var = Var("", dtype)
    block.iter_vars.append(_stmt.IterVar(rng, var, iter_type))
    block.iter_values.append(binding)
    return var


class axis:
    """``T.axis.spatial/reduce/scan/opaque/remap`` (and the ``S``/``R`` aliases)."""

    @staticmethod
    def spatial(dom, binding, dtype="int32"):
        """A data-parallel block iteration variable bound to ``binding``."""
        return _axis(_stmt.IterVar.DataPar, dom, binding, dtype)

    @staticmethod
    def reduce(dom, binding, dtype="int32"):
        """A reduction block iteration variable."""
        return _axis(_stmt.IterVar.CommReduce, dom, binding, dtype)

    @staticmethod
    def scan(dom, binding, dtype="int32"):
        """An ordered (scan) block iteration variable."""
        return _axis(_stmt.IterVar.Ordered, dom, binding, dtype)

    @staticmethod
    def opaque(dom, binding, dtype="int32"):
        """An opaque block iteration variable."""
        return _axis(_stmt.IterVar.Opaque, dom, binding, dtype)

    S = spatial
    R = reduce

    @staticmethod
    def remap(kinds: str, bindings, dtype="int32"):
        """``vi, vj, vk = T.axis.remap("SSR", [i, j, k])``: one iteration variable per loop
        variable, with the loop's domain."""
        bindings = list(bindings)
        if len(kinds) != len(bindings):
            raise ValueError(
                f"T.axis.remap: {len(kinds)} kinds ({kinds!r}) for {len(bindings)} bindings"
            )
        frames = IRBuilder.current().frames
        out = []
        for kind, value in zip(kinds, bindings):
            if kind not in "SR":
                raise InternalError(f"Unknown axis kind: {kind}")
            dom = None
            for frame in reversed(frames):
                if isinstance(frame, ForFrame):
                    dom = frame.dom_of(value)
                    if dom is not None:
                        break
            if dom is None:
                raise ValueError(
                    f"T.axis.remap binds {value!r}, which is not the variable of an enclosing "
                    "loop"
                )
            maker = axis.spatial if kind == "S" else axis.reduce
            out.append(maker(dom, value, value.dtype if dtype == "int32" else dtype))
        return out[0] if len(out) == 1 else out


from tvm.tirx.op import buffer_offset

__all__ += ["buffer_offset"]

# TIRx kernel constructs (spec D.3); at the end: they use alloc_buffer/decl_buffer above.
from .kernel import (
    TensorMap,
    address_of,
    alloc_cast_frag,
    alloc_scalar,
    alloc_tcgen05_ldst_frag,
    cluster_id,
    cta_id,
    cta_id_in_cluster,
    cta_id_in_pair,
    decl_scalar,
    device_entry,
    elected,
    hint,
    lane_id,
    local_scalar,
    meta_var,
    scope_id,
    shared_scalar,
    smem,
    static_assert,
    thread_id,
    thread_id_in_wg,
    tmem,
    warp_id,
    warp_id_in_wg,
    warpgroup_id,
    wg_reg_tile,
)

__all__ += [
    "TensorMap",
    "address_of",
    "alloc_cast_frag",
    "alloc_scalar",
    "alloc_tcgen05_ldst_frag",
    "cluster_id",
    "cta_id",
    "cta_id_in_cluster",
    "cta_id_in_pair",
    "decl_scalar",
    "device_entry",
    "elected",
    "hint",
    "lane_id",
    "local_scalar",
    "meta_var",
    "scope_id",
    "shared_scalar",
    "smem",
    "static_assert",
    "thread_id",
    "thread_id_in_wg",
    "tmem",
    "warp_id",
    "warp_id_in_wg",
    "warpgroup_id",
    "wg_reg_tile",
]


def __getattr__(name):
    # ``tvm.script.ir_builder.tirx`` is the ``T`` namespace of TVM's IR builder: the dtype
    # constructors (``T.int32(3)``), ``T.bind``, ``T.ptr``, ``T.comm_reducer``... live in the
    # parser's ``T`` module (they build values the same way for both). Imported on use: the
    # parser package imports this module.
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib

    namespace = importlib.import_module("tvm.script.parser.tirx")
    try:
        return getattr(namespace, name)
    except AttributeError:
        raise AttributeError(
            f"module 'tvm.script.ir_builder.tirx' has no attribute {name!r}"
        ) from None
