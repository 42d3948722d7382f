"""``LowerTIRx``: a TIRx kernel (device entry, scope ids, layouts) becomes launch-form TIR.

``LowerTIRx`` is ``TilePrimitiveDispatch`` (``tile_primitive_dispatch.py``: each ``Tx.*``
call becomes the body of the variant that lowers it) followed by :func:`LowerTIRxCleanup`
(spec D.6).

The cleanup, on each PrimFunc with a ``tirx.device_entry`` attribute:

* replaces the device-entry attribute by nested ``thread_extent`` attributes: first
  ``clusterCtaIdx.*`` (when the kernel defines ``cluster -> cta`` ids), then
  ``preferredClusterCtaIdx.*`` (its ``preferred=`` shape, a launch parameter), then ``blockIdx.d``
  and ``threadIdx.d`` interleaved per dimension ``d``, as Apache TVM 0.27 orders them;
* infers the launch extents from the scope ids, deferred ids (``T.warp_id()``) included:
  ``cta -> thread = cta -> warp * 32 = cta -> warpgroup * 128``, ``kernel -> cta =
  kernel -> cluster * cluster -> cta`` per dimension;
* binds ``warp_id_in_cta = tvm_warp_shuffle(0xffffffff, tid // 32, 0, 32, 32)`` (a uniform
  warp index, as 0.27 does) and turns each scope id into a ``Bind`` of an expression of the
  launch variables: ``warp_id`` -> ``warp_id_in_cta``, ``lane_id`` -> ``tid % 32``,
  ``warpgroup_id`` -> ``warp_id_in_cta // 4``, ``warp_id_in_wg`` -> ``warp_id_in_cta % 4``,
  ``thread_id_in_wg`` -> ``tid % 128``, ``cta_id_in_cluster`` -> ``clusterCtaIdx``,
  ``cluster_id`` -> ``blockIdx // cluster extent`` (0.27 reads ``%clusterid`` with
  ``T.cuda.mov_sreg``, which pytvm does not have yet);
* applies layouts and flattens every buffer access: the address is ``elem_offset +
  layout.apply(coord, shape=shape)["m"]`` for a buffer with a layout, the row-major (or
  strided) offset otherwise, simplified with the scope-id bindings substituted (so
  ``A[tx]`` reads ``A_1[threadIdx_x]``). Parameter buffers keep their ``buffer_map`` entry
  and get a flat ``DeclBuffer`` over their data in front of the launch.

A function without a device entry is returned unchanged; a kernel without thread-level
scope ids is rejected ("the kernel has no thread launch parameters").
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import PrimExpr, Range
from ...ir.op import Op
from ...ir.transform import PassInfo, Sequential
from ..buffer import NO_LAYOUT, NoLayout
from ..expr import Call, Cast, FloorDiv, FloorMod, IntImm, Var
from ..function import BufferMap, PrimFunc
from ..op import call_intrin
from ..stmt import (
    AttrStmt,
    Bind,
    BufferLoad,
    BufferStore,
    DeclBuffer,
    Evaluate,
    IterVar,
    ScopeIdDefStmt,
    SeqStmt,
)
from ..stmt_functor import StmtExprMutator, post_order_visit, substitute
from .common import PrimFuncPass
from .tile_primitive_dispatch import TilePrimitiveDispatch

__all__ = [
    "LowerTIRx",
    "LowerTIRxCleanup",
    "launch_extents",
    "launch_nest_order",
    "lower_tirx_cleanup",
]

DEVICE_ENTRY = "tirx.device_entry"
_DIMS = ("x", "y", "z")



def _int(value):
    return value.value if isinstance(value, IntImm) else None


def _find_device_entry(body):
    found = []

    def visit(node):
        if isinstance(node, AttrStmt) and node.attr_key == DEVICE_ENTRY:
            found.append(node)

    post_order_visit(body, visit)
    return found


def _scope_defs(body) -> list:
    defs = []

    def visit(node):
        if isinstance(node, ScopeIdDefStmt):
            defs.append(node)

    post_order_visit(body, visit)
    # post_order_visit visits a sequence in order; keep source order.
    return defs


class _Extents:
    """Extents per scope pair, inferred from each other (see the module docstring)."""

    def __init__(self, defs, fname):
        self.fname = fname
        self.defs = defs
        self.known: dict = {}  # (parent, cur) -> list of int extents
        for stmt in defs:
            d = stmt.def_
            key = (d.parent, d.cur)
            if d.extents is None:
                continue
            values = [_int(e) if _int(e) is not None else e for e in d.extents]
            self.known.setdefault(key, values)

    def fused(self, key):
        values = self.known.get(key)
        if values is None:
            return None
        total = 1
        for v in values:
            if not isinstance(v, int):
                raise ValueError(  # noqa: TRY004 - unsupported IR, not a wrong argument type
                    f"LowerTIRx: scope {key[0]}->{key[1]} of {self.fname} has a symbolic "
                    f"extent {v}; symbolic launch extents are not supported yet"
                )
            total *= v
        return total

    def threads(self) -> list:
        """Per-dimension threadIdx extents."""
        if ("cta", "thread") in self.known:
            self.fused(("cta", "thread"))  # rejects symbolic extents
            return list(self.known[("cta", "thread")])
        per_warp = self.fused(("warp", "thread")) or 32
        if ("cta", "warp") in self.known:
            return [self.fused(("cta", "warp")) * per_warp]
        if ("cta", "warpgroup") in self.known:
            per_wg = self.fused(("warpgroup", "thread"))
            if per_wg is None:
                per_wg = (self.fused(("warpgroup", "warp")) or 4) * per_warp
            return [self.fused(("cta", "warpgroup")) * per_wg]
        raise ValueError(
            f"LowerTIRx: the kernel has no thread launch parameters ({self.fname}): no "
            "cta->thread, cta->warp or cta->warpgroup scope id gives the CTA's thread count"
        )

    def cluster(self):
        if ("cluster", "cta") not in self.known:
            return None
        self.fused(("cluster", "cta"))
        return list(self.known[("cluster", "cta")])

    def preferred_cluster(self):
        for stmt in self.defs:
            d = stmt.def_
            if (d.parent, d.cur) == ("cluster", "cta") and d.preferred_extents is not None:
                return [_int(e) for e in d.preferred_extents]
        return None

    def grid(self) -> list:
        if ("kernel", "cta") in self.known:
            self.fused(("kernel", "cta"))
            return list(self.known[("kernel", "cta")])
        clusters = self.known.get(("kernel", "cluster"))
        per = self.cluster()
        if clusters is not None:
            self.fused(("kernel", "cluster"))
            per = per or [1] * len(clusters)
            n = max(len(clusters), len(per))
            clusters = clusters + [1] * (n - len(clusters))
            per = per + [1] * (n - len(per))
            return [a * b for a, b in zip(clusters, per)]
        return [1]


def launch_extents(func: PrimFunc) -> dict:
    """``{thread tag: extent}`` of the launch a TIRx kernel's scope ids describe.

    ``{"blockIdx.x": 1, "threadIdx.x": 256}`` for ``T.cta_id([1])``/``T.thread_id([256])``.
    A function without a device entry gives ``{}``.
    """
    entries = _find_device_entry(func.body)
    if not entries:
        return {}
    defs = _scope_defs(entries[0].body)
    if not defs:  # a device entry without scope ids: no launch (as 0.27)
        return {}
    ext = _Extents(defs, _fname(func))
    out = {}
    cluster = ext.cluster()
    for i, e in enumerate(cluster or []):
        out[f"clusterCtaIdx.{_DIMS[i]}"] = e
    for i, e in enumerate(ext.preferred_cluster() or []):
        out[f"preferredClusterCtaIdx.{_DIMS[i]}"] = e
    grid, threads = ext.grid(), ext.threads()
    for i in range(max(len(grid), len(threads))):
        if i < len(grid):
            out[f"blockIdx.{_DIMS[i]}"] = grid[i]
        if i < len(threads):
            out[f"threadIdx.{_DIMS[i]}"] = threads[i]
    return out


_M64 = (1 << 64) - 1
_LAUNCH_GROUPS = ("clusterCtaIdx.", "preferredClusterCtaIdx.", "blockIdx.", "threadIdx.")


def _bytes_hash(data: bytes) -> int:
    """libstdc++'s ``std::hash<std::string_view>`` on 64-bit targets (``_Hash_bytes`` with its
    default seed: a MurmurHash2 variant over little-endian 8-byte words)."""
    mul = (0xC6A4A793 << 32) | 0x5BD1E995

    def shift_mix(v):
        return v ^ (v >> 47)

    h = (0xC70F6907 ^ (len(data) * mul)) & _M64
    whole = len(data) & ~7
    for i in range(0, whole, 8):
        word = int.from_bytes(data[i:i + 8], "little")
        h = ((h ^ ((shift_mix((word * mul) & _M64) * mul) & _M64)) * mul) & _M64
    if len(data) & 7:
        h = ((h ^ int.from_bytes(data[whole:], "little")) * mul) & _M64
    return shift_mix((shift_mix(h) * mul) & _M64)


def launch_nest_order(tags) -> list:
    """The launch tags outermost first, in Apache TVM 0.27's nesting.

    0.27 keeps the launch parameters in a ``std::unordered_map<String, IterVar>`` (the cluster
    tags, the preferred-cluster tags, ``blockIdx.*``, ``threadIdx.*``, then the helper
    ``warp_id_in_cta``, inserted in that order) and wraps the kernel body in one
    ``thread_extent`` per entry in the map's iteration order, so the last one iterated is the
    outermost. With at most 13 entries that map has 13 buckets (libstdc++'s prime rehash
    policy), and a new key goes to the front of the list when its bucket is empty, else to the
    front of its bucket's run. This reproduces that order.
    """
    rank = {g: i for i, g in enumerate(_LAUNCH_GROUPS)}
    keys = sorted(tags, key=lambda t: (rank.get(t[: t.index(".") + 1], len(rank)), t))
    keys.append("warp_id_in_cta")
    if len(keys) > 13:  # not a launch 0.27 can express; keep the plain order
        return list(tags)
    buckets, order = {}, []
    for key in keys:
        b = _bytes_hash(key.encode()) % 13
        run = [i for i, k in enumerate(order) if buckets[k] == b]
        order.insert(run[0] if run else 0, key)
        buckets[key] = b
    return [k for k in reversed(order) if k != "warp_id_in_cta"]


def _has_op(name) -> bool:
    try:
        Op.get(name)
    except ValueError:
        return False
    return True


def _fname(func) -> str:
    return str(func.get_attr("global_symbol") or "<prim_func>")


def _unravel(fused, extents) -> list:
    """Row-major digits of ``fused`` with the first dimension fastest (as threadIdx.x)."""
    if len(extents) == 1:
        return [fused]
    out, stride = [], 1
    for i, e in enumerate(extents):
        digit = fused if stride == 1 else FloorDiv(fused, IntImm("int32", stride))
        if i < len(extents) - 1:
            digit = FloorMod(digit, IntImm("int32", e))
        out.append(digit)
        stride *= e
    return out


class _Launch:
    """The launch variables of one kernel and the expression of every scope id."""

    def __init__(self, func, extents: dict):
        self.extents = extents
        self.vars = {tag: Var(tag.replace(".", "_"), "int32") for tag in extents}
        tids = [self.vars[t] for t in extents if t.startswith("threadIdx.")]
        tid_ext = [extents[t] for t in extents if t.startswith("threadIdx.")]
        flat, stride = None, 1
        for v, e in zip(tids, tid_ext):
            term = v if stride == 1 else v * IntImm("int32", stride)
            flat = term if flat is None else flat + term
            stride *= e
        self.tid = flat
        self.warp_id = Var("warp_id_in_cta", "int32")
        if flat is None:  # no launch at all (a device entry without scope ids)
            return
        self.warp_value = call_intrin(
            "int32", "tirx.tvm_warp_shuffle", IntImm("uint32", 0xFFFFFFFF),
            FloorDiv(flat, IntImm("int32", 32)), IntImm("int32", 0), IntImm("int32", 32),
            IntImm("int32", 32))

    def _dims(self, prefix):
        return [self.vars[t] for t in self.extents if t.startswith(prefix)]

    def values(self, d, fname) -> list:
        """The expression of each variable of ScopeIdDef ``d``."""
        key = (d.parent, d.cur)
        n = len(d.def_ids)
        ext = [_int(e) for e in d.extents] if d.extents is not None else None

        def one(expr):
            if ext is None or len(ext) == 1:
                return [expr]
            if any(e is None for e in ext):
                raise ValueError(f"LowerTIRx: {fname}: multi-dimensional {key[0]}->{key[1]} ids "
                                 "need constant extents")
            return _unravel(expr, ext)

        c32, c4, c128 = IntImm("int32", 32), IntImm("int32", 4), IntImm("int32", 128)
        if key == ("kernel", "cta"):
            return self._dims("blockIdx.")[:n]
        if key == ("cta", "thread"):
            return self._dims("threadIdx.")[:n] if n > 1 else [self.tid]
        if key == ("cluster", "cta"):
            return self._dims("clusterCtaIdx.")[:n]
        if key == ("kernel", "cluster"):
            if _has_op("tirx.cuda.mov_sreg"):  # 0.27: read %clusterid.d
                return [Call("int32", "tirx.cuda.mov_sreg", [32, f"clusterid.{_DIMS[i]}"])
                        for i in range(n)]
            blocks, out = self._dims("blockIdx."), []
            for i in range(n):
                size = self.extents.get(f"clusterCtaIdx.{_DIMS[i]}", 1)
                out.append(blocks[i] if size == 1 else FloorDiv(blocks[i], IntImm("int32", size)))
            return out
        if key == ("cta", "warp"):
            return one(self.warp_id)
        if key == ("warp", "thread"):
            return one(FloorMod(self.tid, c32))
        if key == ("cta", "warpgroup"):
            return one(FloorDiv(self.warp_id, c4))
        if key == ("warpgroup", "warp"):
            return one(FloorMod(self.warp_id, c4))
        if key == ("warpgroup", "thread"):
            return one(FloorMod(self.tid, c128))
        if key == ("cluster", "cta_pair"):
            return [FloorMod(self._dims("clusterCtaIdx.")[0], IntImm("int32", 2))]
        raise ValueError(f"LowerTIRx: {fname}: scope ids {key[0]}->{key[1]} are not supported "
                         "yet")


class _Cleanup(StmtExprMutator):
    """Scope ids -> Binds, buffer accesses -> flat accesses through the layout."""

    def __init__(self, launch, fname):
        super().__init__()
        self.launch = launch
        self.fname = fname
        self.bound: dict = {}  # id(scope-id var) -> (var, value)
        self.binds: list = []  # the Binds of every scope id, in visit order
        self.top_evals: list = []  # evaluate(v) of the implicit ids defined in the entry body
        self.top_level: set = set()  # id() of the ScopeIdDefStmts directly in the entry body
        self._flat: dict = {}  # id(buffer) -> flat buffer
        self._allocated: set = set()  # id() of the buffers an AllocBuffer defines
        self.analyzer = Analyzer()
        for tag, var in launch.vars.items():  # launch variables range over their extents
            extent = _int_or_none(launch.extents[tag])
            if extent is not None and extent > 0:
                # As TVM's Analyzer.Bind: a range of one point binds the value itself.
                self.analyzer.bind(var, IntImm("int32", 0) if extent == 1
                                   else Range.from_min_extent(0, extent))

    # --- scope ids -----------------------------------------------------------------------
    def bind_scope_ids(self, op) -> list:
        """Record the ``Bind`` of each variable of ScopeIdDefStmt ``op``; return the implicit
        ones (a bare ``T.cta_id([1])`` defines a variable with an empty name)."""
        d = op.def_
        values = self.launch.values(d, self.fname)
        implicit = []
        for var, value in zip(d.def_ids, values):
            if value.dtype != var.dtype:  # uint32 scope ids: the launch variables are int32
                value = Cast(var.dtype, value)
            self.bound[id(var)] = (var, value)
            self.binds.append(Bind(var, value))
            if not var.name:
                implicit.append(var)
        return implicit

    def visit_seq_stmt_(self, op):
        # Scope-id definitions leave the body: their Binds go to the top of the kernel (as
        # 0.27 does); a nested implicit id keeps an ``evaluate`` of its variable in place.
        out = []
        for stmt in op.seq:
            if isinstance(stmt, ScopeIdDefStmt):
                implicit = self.bind_scope_ids(stmt)
                if id(stmt) in self.top_level:
                    self.top_evals += [Evaluate(v) for v in implicit]
                else:
                    out += [Evaluate(v) for v in implicit]
            else:
                out.append(self.visit_stmt(stmt))
        return SeqStmt.flatten(out)

    def visit_scope_id_def_stmt_(self, op):
        implicit = self.bind_scope_ids(op)
        if id(op) in self.top_level:
            self.top_evals += [Evaluate(v) for v in implicit]
            return Evaluate(0)
        return SeqStmt.flatten([Evaluate(v) for v in implicit])

    # --- buffers -------------------------------------------------------------------------
    def flat(self, buf):
        out = self._flat.get(id(buf))
        if out is not None:
            return out
        layout = _layout_of(buf)
        if layout is not None:
            # As 0.27: an allocation whose layout spreads over threads holds one thread's
            # part (the memory span); any other buffer covers its whole shape (a swizzle
            # atom smaller than the buffer repeats), or the span when that is larger.
            span = layout.span("m")
            thread_split = _int_or_none(layout.size()) != _int_or_none(layout.size("m"))
            if not (thread_split and id(buf) in self._allocated):
                size = 1
                for extent in buf.shape:
                    size = size * extent
                size = _int_or_none(size)
                span_int = _int_or_none(span)
                if size is not None and span_int is not None and size > span_int:
                    span = size
            out = buf.replace(shape=(_as_i32(span),), strides=(), axis_separators=(),
                              layout=NO_LAYOUT)
        elif len(buf.shape) == 1 and not buf.strides:
            out = buf.replace(layout=NO_LAYOUT)
        else:
            out = buf.get_flattened_buffer().replace(layout=NO_LAYOUT)
        if isinstance(buf.elem_offset, PrimExpr) and not isinstance(buf.elem_offset, IntImm):
            # elem_offset=A.elem_offset_of([i, j]): T.buffer_offset(A[i, j]) -> the flat index
            elem_offset = self.visit_expr(buf.elem_offset)
            if elem_offset is not buf.elem_offset:
                out = out.replace(elem_offset=elem_offset)
        self._flat[id(buf)] = out
        return out

    def visit_call_(self, op):
        if getattr(op.op, "name", "") == "tirx.buffer_offset" and len(op.args) == 1 \
                and isinstance(op.args[0], BufferLoad):
            return self.visit_expr(op.args[0]).indices[0]  # the load's flat index
        return super().visit_call_(op)

    def visit_for_(self, op):
        # The loop variable's range simplifies the flat indices inside (``i // 2`` of a
        # ``T.vectorized(2)`` loop is 0), as 0.27's analyzer-carrying mutator does.
        if isinstance(op.min, IntImm) and isinstance(op.extent, IntImm) and op.extent.value > 0:
            self.analyzer.bind(op.loop_var, Range.from_min_extent(op.min, op.extent),
                               allow_override=True)
        return super().visit_for_(op)

    def visit_alloc_buffer_(self, op):
        self._allocated.add(id(op.buffer))
        return super().visit_alloc_buffer_(op)

    def visit_buffer_def(self, buffer):
        return self.flat(buffer)

    def visit_buffer_use(self, buffer):
        return self.flat(buffer)

    def offset(self, buf, indices):
        layout = _layout_of(buf)
        vmap = {var: value for var, value in self.bound.values()}
        indices = [substitute(i, vmap) if vmap else i for i in indices]
        if layout is not None:
            coord = layout.apply(*indices, shape=list(buf.shape))
            if "m" not in coord or len(coord) != 1:
                raise ValueError(
                    f"LowerTIRx: buffer {buf.name} in {self.fname} has a layout over "
                    f"{sorted(coord)}; only memory layouts (axis m) can be applied to a direct "
                    "access (thread-axis layouts need a tile primitive)"
                )
            off = coord["m"]
        else:
            # The buffer's own elem_offset stays on the flat buffer (FlattenBuffer adds it).
            off = buf.replace(elem_offset=None).offset_of(indices)[0]
        return self.analyzer.simplify(off)

    def visit_buffer_load_(self, op: BufferLoad):
        indices = [self.visit_expr(i) for i in op.indices]
        return BufferLoad(self.flat(op.buffer), [self.offset(op.buffer, indices)], op.predicate)

    def visit_buffer_store_(self, op: BufferStore):
        indices = [self.visit_expr(i) for i in op.indices]
        value = self.visit_expr(op.value)
        return BufferStore(self.flat(op.buffer), value, [self.offset(op.buffer, indices)],
                           op.predicate)


def _layout_of(buf):
    """The layout to apply to ``buf``: None for the row-major default or no layout."""
    layout = getattr(buf, "layout", None)
    return None if layout is None or isinstance(layout, NoLayout) else layout


def _int_or_none(value):
    """``value`` as a Python int when it is a constant (an int or an IntImm), else None."""
    if isinstance(value, IntImm):
        return int(value.value)
    return value if isinstance(value, int) else None


def _as_i32(value):
    return IntImm("int32", value) if isinstance(value, int) else value


def lower_tirx_cleanup(func: PrimFunc) -> PrimFunc:
    """Lower one TIRx kernel to launch form (see the module docstring)."""
    entries = _find_device_entry(func.body)
    if not entries:
        return func
    fname = _fname(func)
    if len(entries) > 1:
        raise ValueError(f"LowerTIRx: {fname} has {len(entries)} device entries; a kernel has one")
    entry = entries[0]
    extents = launch_extents(func)
    launch = _Launch(func, extents)
    cleanup = _Cleanup(launch, fname)
    top = entry.body.seq if isinstance(entry.body, SeqStmt) else (entry.body,)
    cleanup.top_level = {id(s) for s in top if isinstance(s, ScopeIdDefStmt)}
    inner = cleanup(entry.body)
    warp_bind = [Bind(launch.warp_id, launch.warp_value)] if launch.tid is not None else []
    body = SeqStmt.flatten(warp_bind, cleanup.binds, cleanup.top_evals, inner)
    for tag in reversed(launch_nest_order(extents)):
        var = launch.vars[tag]
        extent = IntImm("int32", extents[tag])
        iv = IterVar(Range.from_min_extent(IntImm("int32", 0), extent), var,
                     IterVar.ThreadIndex, tag)
        body = AttrStmt(iv, "thread_extent", extent, body)

    class _Replace(StmtExprMutator):
        def visit_attr_stmt_(self, op):
            if op is entry:
                return body
            return super().visit_attr_stmt_(op)

    # Statements before the entry (host setup) are kept as they are.
    new_body = _Replace()(func.body)
    for buf in func.buffer_map.values():
        new_body = SeqStmt.flatten([DeclBuffer(cleanup.flat(buf), buf.data)], new_body)
    # As in 0.27 every buffer of the result has no layout (printed ``layout=None``), the
    # parameter buffers included.
    bmap = {p: b.replace(layout=NO_LAYOUT) for p, b in func.buffer_map.items()}
    return func._with(body=new_body, buffer_map=BufferMap(bmap, func.param_vars))


def LowerTIRxCleanup():
    """The pass object: ``tvm.tirx.transform.LowerTIRxCleanup()(mod)``."""
    return PrimFuncPass(lambda f, m, c: lower_tirx_cleanup(f),
                        PassInfo(0, "tirx.LowerTIRxCleanup"))


def LowerTIRx(target=None):
    """``TilePrimitiveDispatch(target)`` then ``LowerTIRxCleanup`` (see the module docstring);
    ``target`` is for functions without a ``target`` attribute outside ``with target:``."""
    return Sequential([TilePrimitiveDispatch(target), LowerTIRxCleanup()], name="tirx.LowerTIRx")
