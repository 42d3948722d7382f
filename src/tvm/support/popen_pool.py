"""``tvm.support.popen_pool``: run Python functions in fresh worker processes.

A :class:`PopenWorker` is a child interpreter (``subprocess.Popen`` of ``sys.executable``)
that receives pickled ``(fn, args, kwargs)`` messages on its stdin and answers on its stdout;
:class:`PopenPoolExecutor` hands calls to a set of such workers. Functions travel with
``cloudpickle`` when it is installed (closures and lambdas work), else with ``pickle``
(module-level functions only). A call that runs past its ``timeout`` kills the worker and
raises ``TimeoutError``; an exception in the worker is raised again in the caller; a worker
that dies raises ``ChildProcessError``.
"""

from __future__ import annotations

import concurrent.futures
import enum
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time

__all__ = ["MapResult", "PopenPoolExecutor", "PopenWorker", "StatusKind"]

_HEADER = struct.Struct("<Q")

# The worker's main loop (run with ``python -c``): length-prefixed pickles both ways.
_WORKER_MAIN = r"""
import os, pickle, struct, sys, traceback
try:
    import cloudpickle as _ser
except ImportError:
    _ser = pickle
H = struct.Struct("<Q")
rd, wr = sys.stdin.buffer, sys.stdout.buffer
sys.stdout = sys.stderr  # prints of the called functions must not corrupt the channel

def read():
    head = rd.read(H.size)
    if len(head) < H.size:
        return None
    return pickle.loads(rd.read(H.unpack(head)[0]))

def write(obj):
    try:
        data = _ser.dumps(obj)
    except Exception as err:  # an unpicklable result
        data = _ser.dumps(("err", RuntimeError(f"cannot pickle the result: {err}")))
    wr.write(H.pack(len(data)) + data)
    wr.flush()

init = read()
if init is not None and init[0] is not None:
    init[0](*init[1])
while True:
    msg = read()
    if msg is None:
        break
    fn, args, kwargs = msg
    try:
        write(("ok", fn(*args, **kwargs)))
    except BaseException as err:  # noqa: BLE001 - sent back to the caller
        err.__traceback_text__ = traceback.format_exc()
        try:
            write(("err", err))
        except Exception:
            write(("err", RuntimeError(traceback.format_exc())))
"""


def _serializer():
    try:
        import cloudpickle  # optional: closures and lambdas

        return cloudpickle
    except ImportError:
        return pickle


class PopenWorker:
    """One worker process; ``send`` a call, then ``recv`` its result.

    Parameters
    ----------
    initializer : callable, optional
        Run once in the worker before its first call, with ``initargs``.
    initargs : tuple
        Arguments of ``initializer``.
    maximum_uses : int, optional
        Restart the process after this many calls (None: never).
    stdout, stderr : optional
        Where the worker's output goes (``subprocess`` conventions; default: inherited).
    """

    def __init__(self, initializer=None, initargs=(), maximum_uses=None, stdout=None,
                 stderr=None):
        self._initializer = initializer
        self._initargs = tuple(initargs)
        self._maximum_uses = maximum_uses
        self._stdout, self._stderr = stdout, stderr
        self._proc = None
        self._uses = 0
        self._deadline = None
        self._pending = False

    # -- process management ---------------------------------------------------------------
    def _start(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_MAIN],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._uses = 0
        self._write((self._initializer, self._initargs))

    def _write(self, obj):
        data = _serializer().dumps(obj)
        self._proc.stdin.write(_HEADER.pack(len(data)) + data)
        self._proc.stdin.flush()

    def is_alive(self) -> bool:
        """Whether the worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    def kill(self):
        """Stop the worker process (a later ``send`` starts a new one)."""
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for pipe in (self._proc.stdin, self._proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
        self._proc = None
        self._pending = False

    def join(self, timeout=None):
        """Close the worker's input and wait for it to exit."""
        if self._proc is None:
            return
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return
        self._proc = None

    def __del__(self):
        try:
            self.kill()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass

    # -- calls ----------------------------------------------------------------------------
    def send(self, fn, args=(), kwargs=None, timeout=None):
        """Start ``fn(*args, **kwargs)`` in the worker; ``recv`` returns its result."""
        if self._pending:
            raise RuntimeError("PopenWorker.send: the previous call's result was not received")
        if self._maximum_uses is not None and self._uses >= self._maximum_uses:
            self.kill()
        if not self.is_alive():
            self.kill()
            self._start()
        self._write((fn, tuple(args), dict(kwargs or {})))
        self._uses += 1
        self._pending = True
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def _read_exact(self, n):
        out = bytearray()
        stream = self._proc.stdout
        while len(out) < n:
            if self._deadline is not None:
                left = self._deadline - time.monotonic()
                ready, _, _ = select.select([stream], [], [], max(left, 0))
                if not ready:
                    self.kill()
                    raise TimeoutError("PopenWorker: the call ran past its timeout")
            chunk = os.read(stream.fileno(), n - len(out))
            if not chunk:
                self.kill()
                raise ChildProcessError("PopenWorker: the worker process exited unexpectedly")
            out += chunk
        return bytes(out)

    def recv(self):
        """The result of the last ``send``; re-raises the worker's exception."""
        if not self._pending or self._proc is None:
            raise RuntimeError("PopenWorker.recv: no call was sent")
        (size,) = _HEADER.unpack(self._read_exact(_HEADER.size))
        status, value = pickle.loads(self._read_exact(size))
        self._pending = False
        if status == "err":
            raise value
        return value


class StatusKind(enum.IntEnum):
    """How a call of :meth:`PopenPoolExecutor.map_with_error_catching` ended."""

    COMPLETE = 0
    EXCEPTION = 1
    TIMEOUT = 2


class MapResult:
    """``status`` (:class:`StatusKind`) and ``value`` (the result or the exception)."""

    __slots__ = ("status", "value")

    def __init__(self, status, value):
        self.status, self.value = status, value

    def __repr__(self):
        return f"MapResult(status={self.status!r}, value={self.value!r})"


class PopenPoolExecutor:
    """A pool of :class:`PopenWorker` processes behind a ``concurrent.futures`` interface.

    Parameters
    ----------
    max_workers : int, optional
        Number of worker processes (default: ``os.cpu_count()``).
    timeout : float, optional
        Per-call time limit in seconds.
    initializer, initargs, maximum_process_uses, stdout, stderr
        Passed to each :class:`PopenWorker`.
    """

    def __init__(self, max_workers=None, timeout=None, initializer=None, initargs=(),
                 maximum_process_uses=None, stdout=None, stderr=None):
        self._max_workers = max_workers or os.cpu_count() or 1
        self._timeout = timeout
        self._worker_args = (initializer, initargs, maximum_process_uses, stdout, stderr)
        self._threads = concurrent.futures.ThreadPoolExecutor(self._max_workers)
        self._local = threading.local()
        self._workers = []
        self._lock = threading.Lock()

    def _worker(self):
        worker = getattr(self._local, "worker", None)
        if worker is None:
            worker = PopenWorker(*self._worker_args)
            self._local.worker = worker
            with self._lock:
                self._workers.append(worker)
        return worker

    def _call(self, fn, args, kwargs):
        worker = self._worker()
        worker.send(fn, args, kwargs, self._timeout)
        return worker.recv()

    def submit(self, fn, *args, **kwargs) -> concurrent.futures.Future:
        """Run ``fn(*args, **kwargs)`` in a worker; a future of its result."""
        return self._threads.submit(self._call, fn, args, kwargs)

    def map_with_error_catching(self, fn, iterator):
        """``fn`` over ``iterator``; one :class:`MapResult` per item, errors caught."""
        futures = [self.submit(fn, item) for item in iterator]
        for future in futures:
            try:
                yield MapResult(StatusKind.COMPLETE, future.result())
            except TimeoutError as err:
                yield MapResult(StatusKind.TIMEOUT, err)
            except Exception as err:  # noqa: BLE001 - reported in the result
                yield MapResult(StatusKind.EXCEPTION, err)

    def shutdown(self, wait=True):
        """Stop the pool and its worker processes."""
        self._threads.shutdown(wait=wait)
        with self._lock:
            for worker in self._workers:
                worker.kill()
            self._workers.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()

    def __del__(self):
        try:
            self.shutdown(wait=False)
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass
