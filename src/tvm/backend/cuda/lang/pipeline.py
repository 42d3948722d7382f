"""Pipeline state and mbarrier helpers for warp-specialised CUDA kernels (sm_90 / sm_100).

These are parse-time objects: created inside a ``@T.prim_func`` body, they allocate their
barriers from a ``T.SMEMPool`` and their methods emit TIR where they are called.

* :class:`PipelineState`: the ``stage`` / ``phase`` pair of a ring of ``depth`` slots
  (two ``int32`` locals); ``advance()`` steps to the next slot and flips the phase on wrap.
* :class:`MBarrier`: ``depth`` mbarriers (``uint64`` in shared memory). ``init(count)``
  (one thread, by default ``T.cuda.thread_rank() == 0``), ``wait(stage, phase)``
  (``T.cuda.mbarrier_wait``), ``arrive(stage, remote=None, pred=None, count=None)``: a
  local ``mbarrier.arrive.shared.b64``, or with ``remote=rank`` a ``mapa`` of the address
  into CTA ``rank`` of the cluster and an ``mbarrier.arrive.shared::cluster.b64`` on it.
  ``remote_view(rank)`` maps the whole array once (``mapa.u64``) and returns a barrier
  whose ``arrive`` targets that CTA.
* :class:`TMABar`: an MBarrier whose producer arrives with a transaction count
  (``arrive(stage, tx_count)`` -> ``mbarrier.arrive.expect_tx``), for TMA loads.
* :class:`TCGen05Bar`: an MBarrier signalled by ``tcgen05.commit`` (``arrive(stage,
  cta_group=1, cta_mask=None, pred=None)``; a constant mask naming more than one CTA, or a
  runtime mask, uses the ``.multicast::cluster`` form).
* :class:`Pipeline`: a ``full`` / ``empty`` barrier pair over ``stages`` slots, of kinds
  ``"tma"``, ``"tcgen05"`` or ``"mbar"``, initialised on construction.

``pred=`` of an arrive guards the instruction (``@p``), as Apache TVM 0.27 emits it: the
``T.ptx`` call carries ``pred=``.
"""

from __future__ import annotations

from tvm.ir.type import PointerType, PrimType
from tvm.script import tirx as T
from tvm.script.ir_builder import tirx as B
from tvm.script.parser.tirx.entry import meta_class
from tvm.tirx.expr import IntImm, Var
from tvm.tirx.ptx.engine import guarded

__all__ = ["MBarrier", "Pipeline", "PipelineState", "TCGen05Bar", "TMABar"]


@meta_class
class PipelineState:
    """The slot (``stage``) and parity (``phase``) of a software pipeline of ``depth`` slots.

    Parameters
    ----------
    depth : int
        Number of slots in the ring.
    phase : int or PrimExpr, optional
        The starting phase; when given, ``stage`` starts at 0 at once (else call
        :meth:`init` later).
    """

    def __init__(self, depth, phase=None):
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"PipelineState: depth must be a positive int, got {depth!r}")
        self.stage = T.local_scalar("int32")
        self.phase = T.local_scalar("int32")
        self.depth = depth
        if phase is not None:
            self.init(phase)

    @T.inline
    def init(self, phase):
        """(Inline.) Start at slot 0 with parity ``phase``."""
        self.stage = 0
        self.phase = phase

    @T.inline
    def advance(self):
        """(Inline.) Move to the next slot; the phase flips on wrapping around (every step when
        ``depth`` is 1).
        """
        if self.depth == 1:
            self.phase = self.phase ^ 1
        else:
            self.stage = self.stage + 1
            if self.stage == self.depth:
                self.stage = 0
                self.phase = self.phase ^ 1


def _emit(call, pred=None):
    """Emit ``call`` as a statement, guarded by ``pred`` (``@p``, as ``pred=`` on a T.ptx
    call) when a predicate is given."""
    if pred is not None:
        call = guarded(call, pred)
    T.evaluate(call)


def _remote_addr(ptr, rank):
    """The 32-bit shared::cluster address of ``ptr`` in CTA ``rank`` of the cluster
    (``cvta`` + ``mapa.shared::cluster.u32`` into a ``uint32`` local)."""
    out = T.alloc_local([1], "uint32")
    T.evaluate(T.ptx.mapa.shared__cluster.u32(out[0], T.cuda.cvta_generic_to_shared(ptr),
                                              T.uint32(rank)))
    return out[0]


def _remote_array(ptr, rank, depth):
    """A ``depth``-element ``uint64`` shared buffer over ``ptr`` as mapped into CTA ``rank``
    (``mapa.u64`` of the generic address, reinterpreted as a pointer)."""
    out = T.alloc_local([1], "uint64")
    T.evaluate(T.ptx.mapa.u64(out[0], ptr, T.uint32(rank)))
    ptr_type = PointerType(PrimType("uint64"), "shared")
    data = Var("remote_mbar_ptr", ptr_type)
    B.Bind(T.reinterpret("handle", out[0]), var=data)
    return T.decl_buffer([depth], "uint64", data=data, scope="shared")


def _arrive_cluster(addr, pred=None, count=None, tx_count=None):
    """``mbarrier.arrive{.expect_tx}.shared::cluster.b64`` on a mapped address."""
    if tx_count is not None:
        call = T.ptx.mbarrier.arrive.expect_tx.shared__cluster.b64(addr, T.uint32(tx_count))
    elif count is not None:
        call = T.ptx.mbarrier.arrive.shared__cluster.b64(addr, T.uint32(count))
    else:
        call = T.ptx.mbarrier.arrive.shared__cluster.b64(addr)
    _emit(call, pred)


@meta_class
class MBarrier:
    """``depth`` mbarriers in shared memory, one per pipeline slot.

    Parameters
    ----------
    pool : SMEMPool
        The pool the ``uint64`` barrier array is allocated from (8-byte aligned).
    depth : int
        Number of barriers.
    phase_offset : int
        XORed into the phase of every :meth:`wait` (1 makes a consumer-released barrier
        start "free").
    leader : PrimExpr, optional
        The condition selecting the one thread that runs ``mbarrier.init``; by default
        ``T.cuda.thread_rank() == 0``.
    """

    def __init__(self, pool, depth, phase_offset=0, leader=None):
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"{type(self).__name__}: depth must be a positive int, got "
                             f"{depth!r}")
        self.buf = pool.alloc((depth,), "uint64", align=8)
        self.depth = depth
        self.phase_offset = phase_offset
        self.leader = leader if leader is not None else T.cuda.thread_rank() == 0
        self._remote_rank = None

    def _local_only(self, what):
        if self._remote_rank is not None:
            raise ValueError(f"{type(self).__name__}.remote_view() cannot be {what}")

    def init(self, count):
        """``mbarrier.init`` of every slot with the arrival count ``count`` (leader only)."""
        self._local_only("initialized")
        self._init(count)

    @T.inline
    def _init(self, count):
        if self.leader:
            for i in T.unroll(self.depth):
                T.ptx.mbarrier.init.shared.b64(self.buf.ptr_to([i]), T.uint32(count))

    def wait(self, stage, phase):
        """Block until phase ``phase ^ phase_offset`` of slot ``stage`` has completed."""
        self._local_only("waited on")
        self._wait(stage, phase)

    @T.inline
    def _wait(self, stage, phase):
        T.cuda.mbarrier_wait(self.buf.ptr_to([stage]), phase ^ self.phase_offset)

    def arrive(self, stage, remote=None, pred=None, count=None):
        """Arrive on slot ``stage``: locally (count 1), or on CTA ``remote``'s copy
        (``count`` arrivals; ``pred`` guards the arrive)."""
        if self._remote_rank is not None:
            if remote is not None:
                raise ValueError(f"{type(self).__name__}.remote_view().arrive() cannot also "
                                 "specify remote")
            _arrive_cluster(T.cuda.cvta_generic_to_shared(self.buf.ptr_to([stage])), pred,
                            count)
        elif remote is None and count is None:
            _emit(T.ptx.mbarrier.arrive.shared.b64(self.buf.ptr_to([stage]), T.uint32(1)),
                  pred)
        elif remote is None:
            _emit(T.ptx.mbarrier.arrive.shared.b64(self.buf.ptr_to([stage]),
                                                   T.uint32(count)), pred)
        else:
            _arrive_cluster(_remote_addr(self.buf.ptr_to([stage]), remote), pred, count)

    def ptr_to(self, idx):
        """The address of barrier ``idx`` (``self.buf.ptr_to(idx)``)."""
        return self.buf.ptr_to(idx)

    def remote_view(self, rank):
        """This barrier array as CTA ``rank`` of the cluster sees it: ``arrive`` on the view
        signals that CTA's barriers; ``init`` and ``wait`` are rejected."""
        if self._remote_rank is not None:
            raise ValueError(f"{type(self).__name__}.remote_view() cannot be applied to a "
                             "remote view")
        view = object.__new__(type(self))
        view.buf = _remote_array(self.buf.ptr_to([0]), rank, self.depth)
        view.depth = self.depth
        view.phase_offset = self.phase_offset
        view.leader = self.leader
        view._remote_rank = rank
        return view


class TMABar(MBarrier):
    """An :class:`MBarrier` completed by TMA transfers: the producer's arrive announces the
    bytes to expect (``mbarrier.arrive.expect_tx``)."""

    def arrive(self, stage, tx_count=None, remote=None, pred=None):
        """Arrive on slot ``stage`` expecting ``tx_count`` bytes (a plain arrive when None),
        locally or on CTA ``remote``'s copy."""
        if self._remote_rank is not None:
            if remote is not None:
                raise ValueError("TMABar.remote_view().arrive() cannot also specify remote")
            addr = T.cuda.cvta_generic_to_shared(self.buf.ptr_to([stage]))
        elif remote is not None:
            addr = _remote_addr(self.buf.ptr_to([stage]), remote)
        else:
            ptr = self.buf.ptr_to([stage])
            if tx_count is None:
                call = T.ptx.mbarrier.arrive.shared.b64(ptr, T.uint32(1))
            else:
                call = T.ptx.mbarrier.arrive.expect_tx.shared.b64(ptr, T.uint32(tx_count))
            _emit(call, pred)
            return
        _arrive_cluster(addr, pred, tx_count=tx_count)


def _is_unicast(cta_mask) -> bool:
    """A commit without a mask operand: no mask, or a constant mask of at most one CTA (the
    barrier address then already names it). A runtime mask always multicasts."""
    if cta_mask is None:
        return True
    value = cta_mask.value if isinstance(cta_mask, IntImm) else cta_mask
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_count() <= 1


class TCGen05Bar(MBarrier):
    """An :class:`MBarrier` signalled when the issuing thread's ``tcgen05`` operations
    complete (``tcgen05.commit``). One thread must commit: wrap the call in
    ``if T.cuda.elect_sync():`` or pass ``pred=T.cuda.elect_sync()``."""

    def arrive(self, stage, cta_group=1, cta_mask=None, pred=None):
        """``tcgen05.commit.cta_group::{cta_group}`` arriving once on slot ``stage`` (of every
        CTA in ``cta_mask`` when it names more than one)."""
        if cta_group not in (1, 2):
            raise ValueError(f"TCGen05Bar.arrive: cta_group must be 1 or 2, got {cta_group!r}")
        head = f"tcgen05.commit.cta_group::{cta_group}.mbarrier::arrive::one.shared::cluster"
        ptr = self.buf.ptr_to([stage])
        if _is_unicast(cta_mask):
            call = T.ptx[f"{head}.b64"](ptr)
        else:
            call = T.ptx[f"{head}.multicast::cluster.b64"](ptr, T.Cast("uint16", cta_mask))
        _emit(call, pred)


#: Pipeline barrier kinds by their ``full=`` / ``empty=`` names.
BARRIER_KINDS = {"tma": TMABar, "tcgen05": TCGen05Bar, "mbar": MBarrier}


def _kind(which, name):
    try:
        return BARRIER_KINDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"Pipeline: {which}={name!r} is not a barrier kind; use one of "
                         f"{', '.join(BARRIER_KINDS)}") from None


class Pipeline:
    """A ``full`` / ``empty`` barrier pair over ``stages`` slots of a producer/consumer
    pipeline; both are created from ``pool`` and initialised here.

    Parameters
    ----------
    pool : SMEMPool
        Where the barriers live.
    stages : int
        Number of slots.
    full, empty : str
        Barrier kinds: ``"tma"`` (:class:`TMABar`), ``"tcgen05"`` (:class:`TCGen05Bar`) or
        ``"mbar"`` (:class:`MBarrier`).
    init_full, init_empty : int
        Arrival counts of the full / empty barriers.
    empty_phase_offset : int
        ``phase_offset`` of the empty barriers.
    leader : PrimExpr, optional
        The initialising thread's condition (default: thread rank 0).
    """

    def __init__(self, pool, stages, *, full, empty, init_full=1, init_empty=1,
                 empty_phase_offset=0, leader=None):
        full_kind, empty_kind = _kind("full", full), _kind("empty", empty)
        self.stages = stages
        self.full = full_kind(pool, stages, leader=leader)
        self.full.init(init_full)
        self.empty = empty_kind(pool, stages, phase_offset=empty_phase_offset, leader=leader)
        self.empty.init(init_empty)
