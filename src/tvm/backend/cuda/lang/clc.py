"""Cluster launch control (Blackwell, sm_100): reading the answer of a
``clusterlaunchcontrol.try_cancel`` request.

A persistent kernel asks the hardware to cancel a CTA that has not started yet
(``T.ptx.clusterlaunchcontrol.try_cancel...(response, mbar)``); the hardware writes a
16-byte opaque response to shared memory and completes the mbarrier. Once the barrier
phase has completed, :func:`query_cancel_first_ctaid_x` turns the response into the x
coordinate of the CTA this one should process next, or ``0xFFFFFFFF`` when nothing was
cancelled (the grid is drained).

Use it inside a ``@T.prim_func`` body; it is a ``@T.inline`` and expands in place::

    nxt = T.local_scalar("uint32")
    query_cancel_first_ctaid_x(nxt, response.ptr_to([0]))
"""

from __future__ import annotations

from tvm.script import tirx as T

__all__ = ["NO_CTA", "query_cancel_first_ctaid_x"]

#: The value :func:`query_cancel_first_ctaid_x` leaves when the request was not granted.
NO_CTA = 0xFFFFFFFF


@T.inline
def query_cancel_first_ctaid_x(first_ctaid_x, handle, *, use_ld_acquire=True):
    """Store into ``first_ctaid_x`` (a ``uint32`` scalar) the first x CTA id of the
    cancelled cluster named by the response at ``handle`` (a pointer to 16 bytes of shared
    memory), or ``0xFFFFFFFF`` when the try_cancel request was refused.

    The response is read with ``ld.acquire.cta.shared.b128`` (``use_ld_acquire=True``),
    which orders it after the mbarrier wait that signalled it; ``use_ld_acquire=False``
    uses a plain ``ld.shared.b128`` for callers that order the read themselves. A
    ``fence.proxy.async.shared::cta`` follows so that the next asynchronous write of the
    response (the next ``try_cancel``) cannot overtake this generic-proxy read.
    """
    resp = T.local_scalar("uint128")
    granted = T.local_scalar("uint32")
    if use_ld_acquire:
        T.ptx.ld.acquire.cta.shared.b128(resp, handle)
    else:
        T.ptx.ld.shared.b128(resp, handle)
    T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(granted, resp)
    # get_first_ctaid runs only on a grant (the call is guarded, ``@p``); otherwise the
    # destination keeps the sentinel.
    first_ctaid_x = T.uint32(NO_CTA)
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128(first_ctaid_x, resp,
                                                                        pred=granted)
    T.ptx.fence.proxy.async_.shared__cta()
