"""``tvm.rpc.Server``: not supported yet (pytvm has no RPC transport)."""

from __future__ import annotations

from .client import _NO_TRANSPORT

__all__ = ["Server"]


class Server:
    """An RPC server (not supported yet: constructing one raises ``ValueError``).

    The parameters are TVM's (``host``, ``port``, ``port_end``, ``is_proxy``, ``key``...).
    """

    def __init__(self, host="0.0.0.0", port=9091, port_end=9199, is_proxy=False,
                 tracker_addr=None, key="", load_library=None, custom_addr=None,
                 silent=False, no_fork=False, server_init_callback=None, reuse_addr=True,
                 timeout=None):
        raise ValueError(f"tvm.rpc.Server({host!r}, {port}) {_NO_TRANSPORT}")
