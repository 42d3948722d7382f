"""The session side of ``tvm.rpc``: :class:`LocalSession` (in-process)."""

from __future__ import annotations

import os
import shutil

import tvm_ffi

from ..runtime.device import device as _make_device
from ..runtime.module import load_module as _load_module
from ..support.utils import tempdir

__all__ = ["LocalSession", "RPCSession", "connect", "connect_tracker"]

_NO_TRANSPORT = (
    "is not supported yet: pytvm has no RPC transport; run on this machine with "
    "tvm.rpc.LocalSession() (same session interface)"
)


class RPCSession:
    """What every session offers: files in a working directory, modules, devices."""

    def __init__(self):
        self._temp = tempdir()

    # -- files ----------------------------------------------------------------------------
    def _path(self, target):
        if os.path.isabs(target) or ".." in target.split(os.sep):
            raise ValueError(f"rpc: '{target}' must be a name inside the session directory")
        return self._temp.relpath(target)

    def upload(self, data, target=None):
        """Copy ``data`` (a file path or bytes) into the session directory as ``target``."""
        if isinstance(data, (bytes, bytearray)):
            if target is None:
                raise ValueError("rpc upload: target is required when data is bytes")
            with open(self._path(target), "wb") as f:
                f.write(bytes(data))
            return
        source = os.fspath(data)
        shutil.copyfile(source, self._path(target or os.path.basename(source)))

    def download(self, path) -> bytearray:
        """The contents of ``path`` in the session directory."""
        with open(self._path(path), "rb") as f:
            return bytearray(f.read())

    def remove(self, path):
        """Delete ``path`` from the session directory."""
        full = self._path(path)
        if os.path.isdir(full):
            shutil.rmtree(full)
        else:
            os.remove(full)

    def listdir(self, path="."):
        """The names in ``path`` of the session directory."""
        return os.listdir(self._temp.relpath(path))

    def load_module(self, path):
        """Load the shared library ``path`` (a name in the session directory)."""
        return _load_module(self._path(path))

    # -- devices and functions ------------------------------------------------------------
    def device(self, dev_type, dev_id=0):
        """The device ``dev_type`` (a name such as ``"cpu"``, or a type code)."""
        return _make_device(dev_type, dev_id)

    def cpu(self, dev_id=0):
        """The CPU device of the session."""
        return self.device("cpu", dev_id)

    def cuda(self, dev_id=0):
        """CUDA device ``dev_id`` of the session."""
        return self.device("cuda", dev_id)

    def get_function(self, name):
        """The global function ``name`` of the session."""
        func = tvm_ffi.get_global_func(name, allow_missing=True)
        if func is None:
            raise ValueError(f"rpc: no global function named '{name}'")
        return func

    def system_lib(self):
        """The system library module (not supported: pytvm builds no system library)."""
        raise ValueError("rpc session system_lib " + _NO_TRANSPORT)


class LocalSession(RPCSession):
    """A session in this process: files go to a private temporary directory.

    Examples
    --------
    >>> from tvm import rpc
    >>> sess = rpc.LocalSession()
    >>> sess.upload(b"abc", "x.bin")
    >>> bytes(sess.download("x.bin"))
    b'abc'
    """


def connect(url, port, key="", session_timeout=0, session_constructor_args=None,
            enable_logging=False):
    """Connect to an RPC server (not supported yet; raises ``ValueError``)."""
    raise ValueError(f"tvm.rpc.connect({url!r}, {port}) {_NO_TRANSPORT}")


def connect_tracker(url, port):
    """Connect to an RPC tracker (not supported yet; raises ``ValueError``)."""
    raise ValueError(f"tvm.rpc.connect_tracker({url!r}, {port}) {_NO_TRANSPORT}")
