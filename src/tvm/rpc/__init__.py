"""``tvm.rpc``: sessions that run compiled modules on a device.

Only the in-process session exists: :class:`LocalSession` has the session interface of TVM's
RPC client (``upload``, ``download``, ``load_module``, ``cpu()``, ``get_function``...) and
acts on this process, which is what TVM's ``rpc.LocalSession`` does too. Remote transport
(``rpc.connect``, ``rpc.Server``, trackers and proxies) is not supported yet: those names
exist so TVM code imports, and calling them raises ``ValueError`` saying so.
"""

from __future__ import annotations

from .client import LocalSession, RPCSession, connect, connect_tracker
from .server import Server

__all__ = ["LocalSession", "RPCSession", "Server", "connect", "connect_tracker"]
