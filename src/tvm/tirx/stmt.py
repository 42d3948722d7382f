"""TIR statements: stores, loops, branches, bindings, allocations, and the s_tir block nodes.

Statements follow Apache TVM 0.27's ``tvm.tirx`` node set. Two 0.27 conventions matter:

* ``Bind(var, value)`` (alias ``LetStmt``), ``AllocBuffer(buffer)`` and ``DeclBuffer(buffer)``
  have **no body**: what they define is visible in the statements that follow them inside the
  enclosing ``SeqStmt`` (or loop/branch body).
* ``SBlock``/``SBlockRealize``/``MatchBufferRegion`` carry the ``s_tir.*`` type keys and are
  re-exported by ``tvm.s_tir``. They are declared here, in the lower layer, so that ``tirx``
  functors and verifiers can name them without importing ``s_tir``.

Field roles: loop variables, bound variables, block iteration variables and buffer definitions
(allocations, declarations, match buffers) are definition sites (``DEF``), so structural
equality is alpha-equivalence over them.
"""

from __future__ import annotations

import enum

from ..ffi.node import DEF, IGNORE, Node, field
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr, Range
from ..runtime.data_type import dtype_info, dtype_lanes, with_lanes
from .expr import IntImm, PrimExprWithOp, StringImm, Var, int_range
from .generic import convert

__all__ = [
    "AllocBuffer",
    "AssertStmt",
    "AttrStmt",
    "Bind",
    "Break",
    "BufferLoad",
    "BufferRegion",
    "BufferStore",
    "Continue",
    "DeclBuffer",
    "Evaluate",
    "For",
    "ForKind",
    "IfThenElse",
    "IterVar",
    "LetStmt",
    "MatchBufferRegion",
    "Return",
    "SBlock",
    "SBlockRealize",
    "ScopeIdDefStmt",
    "SeqStmt",
    "Stmt",
    "While",
    "stmt_list",
    "stmt_seq",
]


def _expr(value, dtype="int32"):
    """Python numbers/bools become immediates (``dtype`` as a hint); PrimExprs pass through."""
    if isinstance(value, IterVar):
        return value.var
    try:
        return convert(value, dtype)
    except TypeError:
        raise TypeError(
            f"expected a PrimExpr or a Python number, got {type(value).__name__}"
        ) from None


def _loop_literal(value, dtype):
    """A loop bound that is an integer literal takes the loop variable's dtype, as in TVM 0.27
    (``For(Var("i", "int64"), 0, 128, ...)`` has int64 bounds); a literal the dtype cannot hold
    (``-1`` for a uint32 loop) is a ValueError."""
    if not isinstance(value, IntImm) or value.dtype == dtype:
        return value
    kind = dtype_info(dtype)
    if kind.lanes != 1 or kind.kind not in ("int", "uint"):
        return value
    lo, hi = int_range(dtype)
    if not lo <= value.value <= hi:
        raise ValueError(f"Literal value {value.value} is not representable in the loop "
                         f"variable's dtype (T.{dtype})")
    return IntImm(dtype, value.value, span=value.span)


def _access_dtype(dtype, indices):
    """The dtype of an access: a vector index (a ``Ramp``) gives a vector of elements."""
    lanes = 1
    for idx in indices:
        lanes *= dtype_lanes(idx.dtype)
    return dtype if lanes == 1 else with_lanes(dtype, lanes * dtype_lanes(dtype))


def _condition(value, what, scalar_ok=False):
    """A boolean condition. With ``scalar_ok`` (IfThenElse, While: Apache TVM 0.27 accepts
    them) any scalar integer or float is taken as "non-zero is true", as in C
    (``if T.cuda.elect_sync():`` is a uint32); otherwise other dtypes are rejected."""
    cond = _expr(value, "bool")
    if cond.dtype == "bool":
        return cond
    if scalar_ok and dtype_lanes(cond.dtype) == 1 and str(cond.dtype).startswith(
            ("int", "uint", "float", "bfloat")):
        return cond
    raise TypeError(f"{what} must be a boolean expression, got dtype {cond.dtype}")


def _index(value):
    """An index expression: ints become int32 immediates (TVM's default index dtype)."""
    return _expr(value, "int32")


def _buffer_indices(buffer, indices, node, preposition):
    """``indices`` as index exprs, checked against ``buffer`` for a ``node`` ("BufferLoad")."""
    if not hasattr(buffer, "shape") or not hasattr(buffer, "data"):
        raise TypeError(f"{node} expects a Buffer, got {type(buffer).__name__}")
    indices = tuple(_index(i) for i in indices)
    if len(indices) != len(buffer.shape):
        raise ValueError(
            f"{node} {preposition} buffer {buffer.name} expects {len(buffer.shape)} indices, "
            f"got {len(indices)}"
        )
    return indices


def _dict(value):
    return {} if value is None else dict(value)


class Stmt(Scriptable, Node, type_key="tirx.Stmt"):
    """Base class of TIR statements."""

    span: object = field(None, role=IGNORE, kw_only=True)


class ForKind(enum.IntEnum):
    """How a ``For`` loop is executed."""

    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


class BufferStore(Stmt, type_key="tirx.BufferStore"):
    """``buffer[indices] = value``; ``predicate`` masks lanes of a vector store."""

    buffer: object
    value: PrimExpr
    indices: tuple
    predicate: object = None

    def __init__(self, buffer, value, indices, predicate=None, span=None):
        indices = _buffer_indices(buffer, indices, "BufferStore", "to")
        expected = _access_dtype(buffer.dtype, indices)
        value = _expr(value, expected)
        if value.dtype != expected:
            raise TypeError(
                f"dtype mismatch on BufferStore: buffer {buffer.name}'s dtype is "
                f"`{buffer.dtype}`, the lanes of indexing are: `{dtype_lanes(expected)}`, "
                f"but RHS's dtype is `{value.dtype}`"
            )
        if predicate is not None:
            predicate = _expr(predicate)
            _check_predicate(predicate, value.dtype, indices, "store a value", "value dtype")
        self.__init_fields__(buffer, value, indices, predicate, span=span)


class PredicateError(ValueError, RuntimeError):
    """A vector access mask that does not match the access (lanes, scalability, type).

    A ``ValueError`` (invalid IR) that is also a ``RuntimeError``, the kind Apache TVM raises.
    """


def _check_predicate(predicate, access_dtype, indices, what, other):
    """The checks of a ``predicate`` mask of a vector load or store, as in TVM."""
    p = dtype_info(predicate.dtype)
    lanes = dtype_info(access_dtype).lanes
    index_scalable = bool(indices) and dtype_info(indices[-1].dtype).lanes < 0
    scalable = lanes < 0 if other == "value dtype" else index_scalable
    if (p.lanes < 0) != scalable:
        raise PredicateError(f"Predicate mask dtype and {other} must both be scalable.")
    if abs(p.lanes) != abs(lanes):
        raise PredicateError(
            f"Got a predicate mask with {abs(p.lanes)} lanes, but trying to {what} with "
            f"{abs(lanes)} lanes. The number of lanes must match."
        )
    if not (p.kind == "bool" or (p.kind == "uint" and p.bits == 1)):
        raise PredicateError(
            f"Predicate mask elements must be boolean values, but got {p.element}."
        )


class BufferLoad(PrimExprWithOp, type_key="tirx.BufferLoad"):
    """``buffer[indices]`` as a scalar expression; its dtype is the buffer's element dtype."""

    buffer: object
    indices: tuple
    predicate: object = None

    def __init__(self, buffer, indices, predicate=None, span=None):
        indices = _buffer_indices(buffer, indices, "BufferLoad", "from")
        dtype = _access_dtype(buffer.dtype, indices)
        if predicate is not None:
            predicate = _expr(predicate)
            _check_predicate(predicate, dtype, indices, "load a vector", "load indices")
        self.__init_fields__(buffer, indices, predicate, span=span, dtype=dtype)


class For(Stmt, type_key="tirx.For"):
    """A loop ``for loop_var in range(min, min + extent, step)`` of a given ``kind``."""

    loop_var: Var = field(role=DEF)
    min: PrimExpr
    extent: PrimExpr
    kind: ForKind
    body: Stmt
    thread_binding: object = field(None, role=DEF)
    annotations: object = None
    step: object = None

    def __init__(self, loop_var, min, extent, kind, body, thread_binding=None,
                 annotations=None, step=None, span=None):
        if not isinstance(loop_var, Var):
            raise TypeError(f"For loop_var must be a tirx.Var, got {type(loop_var).__name__}")
        if not isinstance(body, Stmt):
            raise TypeError(f"For body must be a Stmt, got {type(body).__name__}")
        dtype = loop_var.dtype
        min_e = _loop_literal(_expr(min, dtype), dtype)
        extent_e = _loop_literal(_expr(extent, dtype), dtype)
        step_e = None if step is None else _loop_literal(_expr(step, dtype), dtype)
        self.__init_fields__(loop_var, min_e, extent_e, ForKind(int(kind)), body,
                             thread_binding, _dict(annotations), step_e, span=span)


class While(Stmt, type_key="tirx.While"):
    """``while condition: body``."""

    condition: PrimExpr
    body: Stmt

    def __init__(self, condition, body, span=None):
        self.__init_fields__(_condition(condition, "While condition", True), body, span=span)


class IfThenElse(Stmt, type_key="tirx.IfThenElse"):
    """``if condition: then_case else: else_case`` (``else_case`` may be ``None``)."""

    condition: PrimExpr
    then_case: Stmt
    else_case: object = None

    def __init__(self, condition, then_case, else_case=None, span=None):
        self.__init_fields__(_condition(condition, "IfThenElse condition", True), then_case, else_case,
                             span=span)


class Bind(Stmt, type_key="tirx.Bind"):
    """Bind ``var`` to ``value`` for the statements that follow it in the enclosing scope.

    0.27 semantics: there is no body; the variable is visible in the rest of the enclosing
    ``SeqStmt`` (or loop/branch body). ``LetStmt`` is the same class.
    """

    var: Var = field(role=DEF)
    value: PrimExpr

    def __init__(self, var, value, span=None):
        if not isinstance(var, Var):
            raise TypeError(f"Bind var must be a tirx.Var, got {type(var).__name__}")
        self.__init_fields__(var, _expr(value, var.dtype), span=span)


#: 0.27 spelling: ``tvm.tirx.LetStmt is tvm.tirx.Bind``.
LetStmt = Bind


class AttrStmt(Stmt, type_key="tirx.AttrStmt"):
    """Annotate ``body`` with ``attr_key = value`` about ``node`` (e.g. ``thread_extent``)."""

    node: object = field(role=DEF)
    attr_key: str
    value: PrimExpr
    body: Stmt

    def __init__(self, node, attr_key, value, body, span=None):
        if isinstance(value, str):
            value = StringImm(value)
        self.__init_fields__(node, attr_key, _expr(value), body, span=span)


class AllocBuffer(Stmt, type_key="tirx.AllocBuffer"):
    """Allocate ``buffer`` and declare it for the rest of the enclosing scope (no body)."""

    buffer: object = field(role=DEF)
    annotations: object = None

    def __init__(self, buffer, annotations=None, span=None):
        self.__init_fields__(buffer, _dict(annotations), span=span)


class DeclBuffer(Stmt, type_key="tirx.DeclBuffer"):
    """Declare ``buffer`` as a view of existing memory (``data``, default the buffer's data)."""

    buffer: object = field(role=DEF)
    data: object = None

    def __init__(self, buffer, data=None, span=None):
        self.__init_fields__(buffer, data, span=span)


class ScopeIdDefStmt(Stmt, type_key="tirx.ScopeIdDefStmt"):
    """Define scope-id variables (``tx = T.thread_id([256])``) for the statements that follow.

    Like ``Bind`` it has no body. The field is ``def_`` (Apache TVM names it ``def``, a Python
    keyword; ``getattr(stmt, "def")`` works here too).
    """

    def_: object = field(role=DEF)

    def __init__(self, def_, span=None):
        if type(def_).__name__ != "ScopeIdDef":
            raise TypeError(f"ScopeIdDefStmt expects a ScopeIdDef, got {type(def_).__name__}")
        self.__init_fields__(def_, span=span)

    def __getattr__(self, name):
        if name == "def":
            return self.def_
        raise AttributeError(f"'ScopeIdDefStmt' object has no attribute {name!r}")


class Evaluate(Stmt, type_key="tirx.Evaluate"):
    """Evaluate an expression for its side effects (``T.evaluate(...)``)."""

    value: PrimExpr

    def __init__(self, value, span=None):
        self.__init_fields__(_expr(value), span=span)


class SeqStmt(Stmt, type_key="tirx.SeqStmt"):
    """A sequence of statements. Empty sequences are rejected (use ``Evaluate(0)``)."""

    seq: tuple

    def __init__(self, seq, span=None):
        seq = tuple(seq)
        if not seq:
            raise ValueError(
                "An empty SeqStmt is prohibited. To write a no-op, use Evaluate(0), "
                "or the result of SeqStmt.flatten()"
            )
        for i, stmt in enumerate(seq):
            if not isinstance(stmt, Stmt):
                raise TypeError(f"SeqStmt element {i} must be a Stmt, got {type(stmt).__name__}")
        self.__init_fields__(seq, span=span)

    def __len__(self):
        return len(self.seq)

    def __getitem__(self, i):
        return self.seq[i]

    @staticmethod
    def flatten(*items) -> Stmt:
        """Flatten statements, nested ``SeqStmt`` and lists into one statement.

        Expressions become ``Evaluate``; ``None`` is skipped. One statement is returned as is,
        none gives ``Evaluate(0)``.
        """
        flat: list = []
        stack = list(reversed(items))
        while stack:
            item = stack.pop()
            if item is None:
                continue
            if isinstance(item, SeqStmt):
                stack.extend(reversed(item.seq))
            elif isinstance(item, (list, tuple)):
                stack.extend(reversed(item))
            elif isinstance(item, Stmt):
                flat.append(item)
            elif isinstance(item, (PrimExpr, int)):
                flat.append(Evaluate(item))
            else:
                raise TypeError(f"cannot make a statement from {type(item).__name__}")
        if not flat:
            return Evaluate(0)
        if len(flat) == 1:
            return flat[0]
        return SeqStmt(flat)


def stmt_seq(*args) -> Stmt:
    """Make one statement from several (flattening nested sequences)."""
    return SeqStmt.flatten(*args)


def stmt_list(stmt) -> list:
    """The statements of ``stmt`` as a flat list (a non-sequence gives a one-element list)."""
    result = SeqStmt.flatten(stmt)
    return list(result.seq) if isinstance(result, SeqStmt) else [result]


class AssertStmt(Stmt, type_key="tirx.AssertStmt"):
    """Raise ``error_kind`` with the concatenated ``message_parts`` when ``condition`` fails."""

    error_kind: object
    condition: PrimExpr
    message_parts: tuple = ()

    def __init__(self, kind, condition, message_parts=None, span=None):
        if isinstance(kind, str):
            kind = StringImm(kind)
        parts = []
        for part in message_parts or ():
            parts.append(StringImm(part) if isinstance(part, str) else part)
        self.__init_fields__(kind, _condition(condition, "AssertStmt condition"), tuple(parts),
                             span=span)

    @property
    def kind(self):
        """The error kind (``StringImm``), under its constructor argument's name."""
        return self.error_kind


class Return(Stmt, type_key="tirx.Return"):
    """Leave the function with ``value`` (``return v`` in TVMScript).

    A CUDA kernel returns void: its code generator prints ``return;`` and drops the value.
    """

    value: PrimExpr

    def __init__(self, value, span=None):
        self.__init_fields__(_expr(value), span=span)


class Break(Stmt, type_key="tirx.Break"):
    """Leave the innermost loop."""


class Continue(Stmt, type_key="tirx.Continue"):
    """Go to the next iteration of the innermost loop."""


class BufferRegion(Scriptable, Node, type_key="tirx.BufferRegion"):
    """A rectangular region of a buffer: one ``Range`` per dimension."""

    buffer: object
    region: tuple

    def __init__(self, buffer, region):
        ranges = []
        for r in region:
            if not isinstance(r, Range):
                raise TypeError(f"BufferRegion region entries must be Range, got {type(r)}")
            ranges.append(r)
        if len(ranges) != len(buffer.shape):
            raise ValueError(
                f"BufferRegion of buffer {buffer.name} needs {len(buffer.shape)} ranges, "
                f"got {len(ranges)}"
            )
        self.__init_fields__(buffer, tuple(ranges))

    @staticmethod
    def full_region(buffer) -> BufferRegion:
        """The whole buffer."""
        ranges = [Range.from_min_extent(IntImm(e.dtype, 0), e) for e in buffer.shape]
        return BufferRegion(buffer, ranges)

    @staticmethod
    def from_point(buffer, indices) -> BufferRegion:
        """The single element ``buffer[indices]``."""
        ranges = []
        for idx in indices:
            idx = _index(idx)
            ranges.append(Range.from_min_extent(idx, IntImm(idx.dtype, 1)))
        return BufferRegion(buffer, ranges)

    def __getitem__(self, indices):
        """``region[i0:i1, j]``: a sub-region, indices relative to this region's mins, on the
        same root buffer (``buf[32:64, 0:32][0:16, 0:16]`` is ``buf[32:48, 0:16]``). A slice
        ``start:stop`` (defaults: the region's bounds; no step) or an index (extent 1) per
        dimension; trailing dimensions not given stay whole."""
        indices = indices if isinstance(indices, tuple) else (indices,)
        if len(indices) > len(self.region):
            raise ValueError(f"BufferRegion of {self.buffer.name}: {len(indices)} indices for "
                             f"{len(self.region)} dimensions")
        ranges = []
        for dim, (rng, index) in enumerate(zip(self.region, indices)):
            if isinstance(index, slice):
                if index.step not in (None, 1):
                    raise ValueError(f"BufferRegion of {self.buffer.name}: dim {dim} slice "
                                     f"step {index.step} is not supported (regions are dense)")
                start = _index(0 if index.start is None else index.start)
                extent = rng.extent if index.stop is None else _index(index.stop) - start
                if index.stop is None and index.start is not None:
                    extent = rng.extent - start
            else:
                start = _index(index)
                extent = IntImm(start.dtype, 1)
            if isinstance(start, IntImm) and isinstance(extent, IntImm) and isinstance(
                    rng.extent, IntImm) and (start.value < 0 or extent.value < 0
                                             or start.value + extent.value > rng.extent.value):
                raise ValueError(f"BufferRegion of {self.buffer.name}: dim {dim} takes "
                                 f"[{start.value}, {start.value + extent.value}) of a region of "
                                 f"extent {rng.extent.value}")
            ranges.append(Range.from_min_extent(_offset(rng.min, start), extent))
        ranges += self.region[len(ranges):]
        return BufferRegion(self.buffer, ranges)


def _offset(base, delta):
    """``base + delta`` folded when both are constants (region mins stay literal)."""
    if isinstance(base, IntImm) and isinstance(delta, IntImm):
        return IntImm(base.dtype, base.value + delta.value)
    if isinstance(delta, IntImm) and delta.value == 0:
        return base
    return base + delta


class MatchBufferRegion(Scriptable, Node, type_key="s_tir.MatchBufferRegion"):
    """Bind ``buffer`` (defined here) to the region ``source`` of another buffer."""

    buffer: object = field(role=DEF)
    source: BufferRegion


class IterVar(Scriptable, Node, type_key="tirx.IterVar"):
    """An iteration variable: ``var`` ranging over ``dom`` with a kind (``iter_type``).

    Arithmetic on an ``IterVar`` works on its ``var``, as in TVM (``k + 1``).
    """

    dom: object
    var: Var = field(role=DEF)
    iter_type: int
    thread_tag: str = ""
    span: object = field(None, role=IGNORE, kw_only=True)

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8

    def __init__(self, dom, var, iter_type, thread_tag="", span=None):
        if dom is not None and not isinstance(dom, Range):
            if isinstance(dom, (tuple, list)) and len(dom) == 2:
                lo, hi = _index(dom[0]), _index(dom[1])
                dom = Range.from_min_extent(lo, _simplify_sub(hi, lo))
            else:
                raise TypeError(f"IterVar dom must be a Range or (min, max), got {dom!r}")
        if isinstance(var, str):
            dtype = dom.extent.dtype if dom is not None else "int32"
            var = Var(var, dtype)
        self.__init_fields__(dom, var, int(iter_type), thread_tag, span=span)

    @property
    def dtype(self):
        """The dtype of the iteration variable ``var``."""
        return self.var.dtype

    # Arithmetic forwards to the variable, so ``A[i, k + 1]`` works with IterVars.
    def __add__(self, other):
        return self.var + other

    def __radd__(self, other):
        return other + self.var

    def __sub__(self, other):
        return self.var - other

    def __rsub__(self, other):
        return other - self.var

    def __mul__(self, other):
        return self.var * other

    def __rmul__(self, other):
        return other * self.var

    def __floordiv__(self, other):
        return self.var // other

    def __mod__(self, other):
        return self.var % other

    def __neg__(self):
        return -self.var

    def __lt__(self, other):
        return self.var < other

    def __le__(self, other):
        return self.var <= other

    def __gt__(self, other):
        return self.var > other

    def __ge__(self, other):
        return self.var >= other


def _simplify_sub(hi, lo):
    if isinstance(lo, IntImm) and lo.value == 0:
        return hi
    if isinstance(hi, IntImm) and isinstance(lo, IntImm):
        return IntImm(hi.dtype, hi.value - lo.value)
    return hi - lo


class SBlock(Stmt, type_key="s_tir.SBlock"):
    """A schedulable block: iteration variables, access regions, optional init, and a body.

    ``alloc_buffers`` and ``match_buffers`` are declared before ``reads``/``writes`` so that
    structural equality meets buffer definitions first.
    """

    iter_vars: tuple = field(role=DEF)
    alloc_buffers: tuple = field((), role=DEF)
    match_buffers: tuple = field((), role=DEF)
    reads: tuple = ()
    writes: tuple = ()
    # Not compared by structural equality or hashing (as TVM: a block's name is a hint).
    name_hint: str = field("", role=IGNORE)
    init: object = None
    body: object = None
    annotations: object = None

    def __init__(self, iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None,
                 match_buffers=None, annotations=None, span=None):
        for iv in iter_vars:
            if not isinstance(iv, IterVar):
                raise TypeError(f"SBlock iter_vars must be IterVar, got {type(iv).__name__}")
        if not isinstance(body, Stmt):
            raise TypeError(f"SBlock body must be a Stmt, got {type(body).__name__}")
        self.__init_fields__(
            tuple(iter_vars), tuple(alloc_buffers or ()), tuple(match_buffers or ()),
            tuple(reads), tuple(writes), name_hint, init, body, _dict(annotations), span=span,
        )


class SBlockRealize(Stmt, type_key="s_tir.SBlockRealize"):
    """Execute ``block`` with its iteration variables bound to ``iter_values`` when
    ``predicate`` holds."""

    iter_values: tuple
    predicate: PrimExpr
    block: SBlock

    def __init__(self, iter_values, predicate, block, span=None):
        if not isinstance(block, SBlock):
            raise TypeError(f"SBlockRealize block must be an SBlock, got {type(block).__name__}")
        values = tuple(_index(v) for v in iter_values)
        if len(values) != len(block.iter_vars):
            raise ValueError(
                f"SBlockRealize of block {block.name_hint!r} binds {len(values)} values to "
                f"{len(block.iter_vars)} iteration variables"
            )
        self.__init_fields__(values, _condition(predicate, "SBlockRealize predicate"), block,
                             span=span)
