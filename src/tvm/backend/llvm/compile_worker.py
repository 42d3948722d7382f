"""LLVM optimization and code generation in recycled worker processes (issue 22, defect 6).

Why a separate process:

- **Memory.** llvmlite 0.50's ``LLVMPY_CreatePassBuilder`` allocates a
  ``PassInstrumentationCallbacks`` that nothing frees, and every pipeline run registers more
  callbacks into it: about 48 KB of native memory per optimized module, for the life of the
  process. One pass builder cannot be reused either (the callbacks of a run point into that
  run's freed instrumentation objects). So the process that optimizes is replaced from time
  to time: a worker serves at most :func:`max_compiles` compiles and is replaced once its
  resident memory passes :func:`max_rss_mb`.
- **Aborts.** An assertion or a fatal error in LLVM ends the process it happens in. In a
  worker it ends the worker: the caller gets a ``RuntimeError`` naming the module and its
  functions, with the end of LLVM's message, and the next compile starts a new worker.

A worker is ``python -c`` running :func:`serve` from this file, loaded by path (not as
``tvm.backend.llvm.compile_worker``), so it imports llvmlite and nothing of ``tvm``. This
module therefore imports only the standard library at module level; the LLVM helpers below
(:func:`make_target_machine`, :func:`run_pipeline`, :func:`compile_text`) are shared with the
in-process path of ``target_machine``. Requests and replies are pickled tuples on the
worker's stdin and on a copy of its stdout (its fd 1 is pointed at stderr, so anything LLVM
prints cannot corrupt the replies); its stderr goes to an unlinked temporary file that is
read when it dies. Workers are used one request at a time; threads that compile in parallel
each get their own (idle workers wait in a pool, at most one per compile thread).

A compile never waits for a worker to start: ``target_machine.compile_ir`` compiles in its
own process when no started worker is idle, and a process starts its first worker only
after :func:`start_after` such compiles (a script that compiles a few kernels never pays
for one); after that a worker starting in the background (first, or replacing a worn-out
one) is used once it is ready. So the first compiles of a process, and the few compiled
while a replacement starts, are not protected against an LLVM abort, and leak as before.

Environment: ``PYTVM_LLVM_COMPILE_WORKER=0`` compiles in the calling process instead (no
memory bound, no abort protection); ``PYTVM_LLVM_WORKER_START_AFTER`` (default 16),
``PYTVM_LLVM_WORKER_MAX_COMPILES`` (default 500) and ``PYTVM_LLVM_WORKER_MAX_MB``
(resident MB, default 384) set when workers start and how long one lives.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import warnings

_HEADER = struct.Struct("<Q")
DEFAULT_MAX_COMPILES = 500
DEFAULT_MAX_MB = 384
DEFAULT_START_AFTER = 16


# -- LLVM helpers (used by the workers and by target_machine in-process) -------------------
def make_target_machine(llvm, triple: str, cpu: str, features: str, opt_level: int):
    """A new llvmlite ``TargetMachine`` (PIC: the code serves the JIT and shared libraries)."""
    try:
        target = llvm.Target.from_triple(triple)
    except RuntimeError:
        # Another architecture (cross compilation): its targets are registered on demand,
        # the native one is at start-up.
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        target = llvm.Target.from_triple(triple)
    return target.create_target_machine(
        cpu=cpu, features=features, opt=min(max(opt_level, 0), 3), reloc="pic",
        codemodel="default",
    )


def pass_builder(llvm, tm, opt_level: int, unroll: bool, slp: bool):
    """llvmlite's ``PassBuilder`` for the O-level pipeline (loop vectorization always on)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = bool(slp)
    pto.loop_unrolling = bool(unroll)
    return llvm.create_pass_builder(tm, pto)


def run_light_pipeline(llvm, mod, pb) -> None:
    """SROA, instcombine and simplifycfg (``target_machine.optimize_light``)."""
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_sroa_pass()
    mpm.add_instruction_combine_pass()
    mpm.add_simplify_cfg_pass()
    mpm.run(mod, pb)


def compile_text(llvm, ir_text: str, name: str, spec: tuple, optimized: bool, light: bool,
                 tm=None, context=None):
    """``(optimized IR text, object file)``; ``spec``: :func:`spec_of` of the options.

    Raises ``ValueError`` naming ``name`` for IR that does not parse or verify.
    """
    triple, cpu, features, opt_level, unroll, slp = spec
    context = context if context is not None else llvm.create_context()
    try:
        mod = llvm.parse_assembly(ir_text, context=context)
        mod.verify()
    except RuntimeError as err:
        raise ValueError(f"invalid LLVM IR in module '{name}': {err}") from err
    mod.name = name
    tm = tm if tm is not None else make_target_machine(llvm, triple, cpu, features, opt_level)
    if not optimized:
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        if light:
            run_light_pipeline(llvm, mod, llvm.create_pass_builder(
                tm, llvm.create_pipeline_tuning_options(speed_level=2)))
        elif opt_level > 0:
            pb = pass_builder(llvm, tm, opt_level, unroll, slp)
            pb.getModulePassManager().run(mod, pb)
        ir_text = str(mod)
    obj = tm.emit_object(mod)
    return ir_text, obj


def spec_of(options) -> tuple:
    """The resolved code generation options a worker needs, from a ``TargetOptions``."""
    from . import target_machine  # lazy: the tvm side; a worker never calls this

    return (options.resolved_triple(), options.resolved_cpu(), options.resolved_features(),
            options.opt_level, bool(target_machine.LOOP_UNROLLING),
            bool(target_machine.SLP_VECTORIZATION))


# -- the worker process --------------------------------------------------------------------
def _read_exact(stream, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _rss_kb() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return 0


def serve() -> None:
    """The worker's loop: read requests from stdin until it closes, reply on the old stdout."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # LLVM's own output (fd 1) goes to the stderr file, never into the replies
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    replies.write(_HEADER.pack(0))  # ready: an empty message
    replies.flush()
    machines: dict = {}  # spec -> target machine (this process is single-threaded)
    while True:
        header = _read_exact(requests, _HEADER.size)
        if header is None:
            return
        payload = _read_exact(requests, _HEADER.unpack(header)[0])
        if payload is None:
            return
        ir_text, name, spec, optimized, light = pickle.loads(payload)
        try:
            tm = machines.get(spec)
            if tm is None:
                if len(machines) >= 8:
                    machines.clear()
                tm = machines[spec] = make_target_machine(llvm, *spec[:4])
            reply = ("ok", compile_text(llvm, ir_text, name, spec, optimized, light, tm=tm))
        except ValueError as err:
            reply = ("ValueError", str(err))
        except Exception as err:  # noqa: BLE001 - sent to the caller, raised there
            reply = ("RuntimeError", f"{type(err).__name__}: {err}")
        data = pickle.dumps(reply + (_rss_kb(),), protocol=pickle.HIGHEST_PROTOCOL)
        replies.write(_HEADER.pack(len(data)) + data)
        replies.flush()


_BOOT = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('_pytvm_llvm_compile_worker', sys.argv[1])\n"
    "module = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(module)\n"
    "module.serve()\n"
)


# -- the calling side ----------------------------------------------------------------------
class WorkerUnavailable(RuntimeError):
    """No worker process could be started (the caller compiles in its own process)."""


_UNAVAILABLE: list = []  # why workers cannot start in this process (then: never again)


def enabled() -> bool:
    """Whether compiles go to worker processes (``PYTVM_LLVM_COMPILE_WORKER``, POSIX only)."""
    return (os.name == "posix" and not _UNAVAILABLE
            and os.environ.get("PYTVM_LLVM_COMPILE_WORKER", "1") != "0")


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def max_compiles() -> int:
    """Compiles one worker serves before it is replaced (``PYTVM_LLVM_WORKER_MAX_COMPILES``)."""
    return _env_int("PYTVM_LLVM_WORKER_MAX_COMPILES", DEFAULT_MAX_COMPILES)


def start_after() -> int:
    """Compiles a process does itself before its first worker starts
    (``PYTVM_LLVM_WORKER_START_AFTER``, default 16: ~0.8 MB of leak).

    A worker's start-up takes ~0.2 s of CPU, which a script that compiles a few kernels
    would pay for nothing (on a busy 2-core machine it slowed the first ``tvm.compile`` by
    ~0.3 s); a long-running process gets its workers after its first compiles.
    """
    try:
        return max(0, int(os.environ.get("PYTVM_LLVM_WORKER_START_AFTER", DEFAULT_START_AFTER)))
    except ValueError:
        return DEFAULT_START_AFTER


def max_rss_mb() -> int:
    """Resident MB past which a worker is replaced (``PYTVM_LLVM_WORKER_MAX_MB``)."""
    return _env_int("PYTVM_LLVM_WORKER_MAX_MB", DEFAULT_MAX_MB)


class _WorkerDied(Exception):
    """A worker ended during a request; ``fresh``: it had been started for that request."""

    def __init__(self, fresh: bool, message: str):
        super().__init__(message)
        self.fresh = fresh


_STATS = {"started": 0, "compiles": 0, "retired": 0, "died": 0, "in_process": 0}
_IDLE: list = []  # idle workers, most recently used last
_LIVE = [0]  # workers of this process not closed (idle or busy)
_POOL_LOCK = threading.Lock()


class _Worker:
    """One worker process; used by one thread at a time."""

    def __init__(self, for_request: bool = True):
        self.started_for_request = for_request
        # Closed in close(); unlinked, so nothing is left behind.
        self.stderr = tempfile.TemporaryFile(prefix="pytvm-llvm-worker-")  # noqa: SIM115
        self.owner = os.getpid()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _BOOT, os.path.abspath(__file__)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                close_fds=True,
            )
        except OSError as err:
            self.stderr.close()
            _UNAVAILABLE.append(str(err))
            warnings.warn(f"pytvm: cannot start an LLVM compile worker ({err}); compiling in "
                          "this process from now on", RuntimeWarning, stacklevel=3)
            raise WorkerUnavailable(str(err)) from err
        self.compiles = 0
        self.rss_kb = 0
        self.closed = False
        self.ready = False  # its start-up message was read
        with _POOL_LOCK:
            _STATS["started"] += 1
            _LIVE[0] += 1

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll_ready(self) -> bool:
        """Whether the worker finished starting (without waiting)."""
        if not self.ready and select.select([self.proc.stdout], [], [], 0)[0]:
            self._read_ready()
        return self.ready

    def _read_ready(self) -> None:
        header = _read_exact(self.proc.stdout, _HEADER.size)
        if header is not None and _HEADER.unpack(header)[0] == 0:
            self.ready = True

    def request(self, ir_text: str, name: str, spec: tuple, optimized: bool, light: bool):
        data = pickle.dumps((ir_text, name, spec, optimized, light),
                            protocol=pickle.HIGHEST_PROTOCOL)
        try:
            if not self.ready:
                self._read_ready()  # waits for the start-up (or its end: then no payload)
            self.proc.stdin.write(_HEADER.pack(len(data)) + data)
            self.proc.stdin.flush()
            header = _read_exact(self.proc.stdout, _HEADER.size)
            payload = header and _read_exact(self.proc.stdout, _HEADER.unpack(header)[0])
        except (BrokenPipeError, OSError):
            payload = None
        if payload is None:
            raise self._died(ir_text, name)
        kind, result, self.rss_kb = pickle.loads(payload)
        self.compiles += 1
        _STATS["compiles"] += 1
        if kind == "ok":
            return result
        if kind == "ValueError":
            raise ValueError(result)
        raise RuntimeError(f"LLVM failed to compile module '{name}'{_functions(ir_text)}: "
                           f"{result}")

    def _died(self, ir_text: str, name: str) -> _WorkerDied:
        _STATS["died"] += 1
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        how = f"exit status {code}"
        if code < 0:
            try:
                how = f"signal {signal.Signals(-code).name}"
            except ValueError:
                how = f"signal {-code}"
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - 2000))
        tail = self.stderr.read().decode("utf-8", "replace").strip()
        self.close()
        return _WorkerDied(
            self.compiles == 0 and self.started_for_request,
            f"LLVM ended its compile worker process ({how}) while compiling module "
            f"'{name}'{_functions(ir_text)}; this Python process is unaffected. "
            + (f"LLVM's last output:\n{tail}" if tail else "LLVM printed nothing.")
            + ("\n(PYTVM_LLVM_COMPILE_WORKER=0 compiles in this process instead.)"
               if self.compiles == 0 else "")
        )

    def worn_out(self) -> bool:
        return self.compiles >= max_compiles() or self.rss_kb > max_rss_mb() * 1024

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with _POOL_LOCK:
            _LIVE[0] -= 1
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # the worker's loop ends on end of input
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                stream.close()
            except OSError:
                pass


def _functions(ir_text: str) -> str:
    import re

    names = re.findall(r'^define [^@]*@"?([\w.$]+)"?\(', ir_text, re.MULTILINE)
    if not names:
        return ""
    shown = ", ".join(names[:5]) + (f", ... ({len(names)} in all)" if len(names) > 5 else "")
    return f" (functions: {shown})"




def _acquire(wait: bool, keep: int) -> _Worker | None:
    """An idle worker that has started (removed from the pool).

    None started: with ``wait``, one still starting, else a new one; without, None (after
    starting one in the background when fewer than ``keep`` live).
    """
    dead, found, starting = [], None, None
    with _POOL_LOCK:
        for worker in reversed(_IDLE):
            if worker.proc.poll() is not None:
                dead.append(worker)  # killed while idle
            elif worker.poll_ready():
                found = worker
                break
            elif starting is None:
                starting = worker
        for worker in dead:
            _IDLE.remove(worker)
        if found is None and wait and starting is not None:
            found = starting
        if found is not None:
            _IDLE.remove(found)
        spawn = (found is None and not wait and starting is None and _LIVE[0] < keep
                 and _STATS["in_process"] >= start_after())
    for worker in dead:
        worker.close()
    if found is not None or not wait:
        if spawn:
            prestart(force=True)
        return found
    return _Worker()


def _release(worker: _Worker, keep: int) -> None:
    if worker.worn_out():
        _STATS["retired"] += 1
        worker.close()
        return
    with _POOL_LOCK:
        if len(_IDLE) < keep:
            _IDLE.append(worker)
            return
    worker.close()


def compile_in_worker(ir_text: str, name: str, spec: tuple, optimized: bool = False,
                      light: bool = False, keep: int = 2, wait: bool = True):
    """``(optimized IR text, object file)`` compiled in a worker process.

    ``spec``: :func:`spec_of` of the target options; ``keep``: how many idle workers to keep
    (the number of compile threads). ``wait=False``: when no worker has finished starting,
    start one (in the background) and return None at once; the caller compiles itself, so
    a worker's start-up (~0.2 s) never delays a compile. Raises ``ValueError`` for invalid IR
    and ``RuntimeError`` when LLVM fails or ends the worker (an assertion, a fatal error).
    """
    worker = _acquire(wait, keep)
    if worker is None:
        _STATS["in_process"] += 1
        return None
    for attempt in (1, 2):
        try:
            result = worker.request(ir_text, name, spec, optimized, light)
        except _WorkerDied as died:
            if attempt == 2 or died.fresh:
                raise RuntimeError(str(died)) from None
            # A worker that served before may have been killed while idle (out of memory,
            # a signal): the request is tried once more in a new one.
            worker = _Worker()
            continue
        except ValueError:
            _release(worker, keep)
            raise
        except BaseException:
            worker.close()  # its state is unknown (interrupted mid-request)
            raise
        _release(worker, keep)
        return result
    raise AssertionError("unreachable")


def prestart(force: bool = False) -> None:
    """Start a worker now if this process has none (``force``: in any case), so that its
    start-up overlaps other work."""
    if not enabled():
        return
    with _POOL_LOCK:
        if _LIVE[0] > 0 and not force:
            return
    try:
        worker = _Worker(for_request=False)
    except WorkerUnavailable:
        return
    with _POOL_LOCK:
        _IDLE.append(worker)


def stats() -> dict:
    """Counters: workers ``started``, ``compiles``, workers ``retired`` (worn out), ``died``,
    ``in_process`` (compiles done by the caller while no worker had started); plus ``idle``
    (workers waiting) and ``idle_pids``."""
    with _POOL_LOCK:
        return dict(_STATS, idle=len(_IDLE), idle_pids=[worker.pid for worker in _IDLE])


def shutdown() -> None:
    """End the idle workers (at exit; the next compile starts a new one)."""
    with _POOL_LOCK:
        workers = [worker for worker in _IDLE if worker.owner == os.getpid()]
        _IDLE.clear()
    for worker in workers:
        worker.close()


def _forget_after_fork() -> None:
    # A forked child must not talk to its parent's workers: it starts its own (and the
    # lock may have been held by another thread of the parent at the fork).
    global _POOL_LOCK
    _POOL_LOCK = threading.Lock()
    _IDLE.clear()
    _LIVE[0] = 0


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
