"""LLVM target machines through llvmlite: target options, optimization, object/assembly emission.

llvmlite is imported lazily by :func:`llvm_binding` so that ``import tvm`` never pays for it.
Everything else in ``tvm.backend.llvm`` reaches LLVM through the helpers of this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading

from ...target import Target
from ...target.llvm_cpus import check_llvm_cpu
from . import compile_worker

# LLVM's global state (targets, the pass pipeline) is not safe to initialize twice concurrently.
_LOCK = threading.RLock()

#: LLVM's loop unrolling in the O2/O3 pipeline. Measured 2026-11-30: turning it off halves
#: LLVM's time on the CNN training step (1.45 s -> 0.71 s CPU) but doubles the step's run time
#: (12-13 ms -> 22-26 ms: the conv loops rely on it), so it stays on. Lowering LLVM's unrolling
#: threshold (``-unroll-threshold`` 150/100/50, O3's default is 300) instead: -0.2 s CPU on the
#: cnn build but its step 1.42 -> 1.7 ms, rejected too. Part of the disk-cache key; clear the
#: in-memory caches (``tvm.driver.clear_cache``, ``jit.clear_cache``) after changing it.
LOOP_UNROLLING = True

#: LLVM's SLP (straight-line code) vectorizer in the O2/O3 pipeline. Off since 2026-11-30
#: (round 3 of ``benchmarks/README_compile.md``): our schedules vectorize the loops that
#: matter explicitly, and the SLP pass cost ~0.1 s CPU of each cold training-step build
#: (-7% to -14% compile time) with no training-step run time change beyond the noise.
SLP_VECTORIZATION = False


@functools.cache
def llvm_binding():
    """Import and initialize ``llvmlite.binding`` once; returns the module."""
    # Lazy import: llvmlite costs ~100 ms and is only needed when something is compiled.
    import llvmlite.binding as llvm

    with _LOCK:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        llvm.initialize_native_asmparser()
        _install_private_lock(llvm)
    return llvm


# -- compiling in parallel threads ---------------------------------------------------------
# llvmlite wraps every call into libllvmlite in one process-wide lock (``ffi.lib._lock``), so
# threads that compile separate modules run one after the other even though ctypes releases
# the GIL. LLVM itself is thread-safe for work that shares nothing: a module in its own
# LLVMContext, optimized and emitted by its own TargetMachine. A thread inside
# ``private_llvm()`` skips llvmlite's lock and must touch only such objects; every other
# thread (and everything that uses the global context, the shared target machines, MCJIT
# engines or the symbol table) still takes the lock, so those stay serialized.
_PRIVATE = threading.local()
_PRIVATE_LOCK_INSTALLED = False


class _SkippableLock:
    """llvmlite's lock, not taken by threads inside :func:`private_llvm`."""

    def __init__(self, inner):
        self._inner = inner

    def acquire(self, *args, **kwargs):
        if getattr(_PRIVATE, "active", False):
            return True
        return self._inner.acquire(*args, **kwargs)

    def release(self):
        if getattr(_PRIVATE, "active", False):
            return None
        return self._inner.release()


def _install_private_lock(llvm) -> None:
    global _PRIVATE_LOCK_INSTALLED
    lock = getattr(getattr(getattr(llvm, "ffi", None), "lib", None), "_lock", None)
    inner = getattr(lock, "_lock", None)
    if inner is None or not (hasattr(inner, "acquire") and hasattr(inner, "release")):
        return  # another llvmlite layout: parts still compile correctly, one at a time
    if not isinstance(inner, _SkippableLock):
        lock._lock = _SkippableLock(inner)
    _PRIVATE_LOCK_INSTALLED = True


def parallel_compilation() -> bool:
    """Whether threads inside :func:`private_llvm` really run LLVM concurrently."""
    llvm_binding()
    return _PRIVATE_LOCK_INSTALLED


@contextlib.contextmanager
def private_llvm():
    """Run LLVM in this thread without llvmlite's process-wide lock (see above).

    Only for code that creates and uses its own context, modules and target machine.
    """
    llvm_binding()
    previous = getattr(_PRIVATE, "active", False)
    _PRIVATE.active = True
    try:
        yield
    finally:
        _PRIVATE.active = previous


#: The LLVM optimization level of a target that names none (``-opt-level=N`` overrides it).
#: 1, not LLVM's usual 3: the kernels reach LLVM already scheduled (tiled, vectorized,
#: unrolled by the TIR passes), and O1 (with loop vectorization and unrolling still on, see
#: :func:`optimize`) ran them as fast as O3 (``benchmarks/kernels.py``: matmuls, softmax,
#: layer_norm, exp, add within the noise or faster; training steps: MLPs the same, cnn +3-5%)
#: in 15-30% less LLVM time (``benchmarks/README_compile.md``, round 5).
DEFAULT_OPT_LEVEL = 1


@dataclasses.dataclass(frozen=True)
class TargetOptions:
    """The LLVM code generation options derived from a TVM target.

    Parameters
    ----------
    triple : str
        The target triple; ``""`` means the host process triple.
    cpu : str
        The ``-mcpu`` name; ``""`` means the host CPU.
    features : str
        The ``-mattr`` feature string; ``""`` means the host CPU features when ``cpu`` is the
        host CPU, and the CPU's defaults otherwise.
    opt_level : int
        The optimization level, 0 to 3 (default :data:`DEFAULT_OPT_LEVEL`).
    """

    triple: str = ""
    cpu: str = ""
    features: str = ""
    opt_level: int = DEFAULT_OPT_LEVEL

    @staticmethod
    def from_target(target=None) -> TargetOptions:
        """Read ``mtriple``/``mcpu``/``mattr``/``opt-level`` from a target.

        ``target`` may be ``None`` (the host), a ``tvm.target.Target``, anything
        ``Target(...)`` accepts (``"llvm -mcpu=skylake"``, a config dict), or an object with
        an ``attrs`` mapping.
        """
        if target is None:
            return TargetOptions()
        if isinstance(target, TargetOptions):
            return target
        if isinstance(target, (str, dict)):
            target = Target(target)
        kind = getattr(getattr(target, "kind", None), "name", "llvm")
        if kind != "llvm":
            raise ValueError(f"the LLVM backend cannot compile for target kind '{kind}'")
        attrs = getattr(target, "attrs", None) or {}
        mattr = attrs.get("mattr") or ""
        if not isinstance(mattr, str):
            mattr = ",".join(str(x) for x in mattr)
        return TargetOptions(
            triple=str(attrs.get("mtriple") or ""),
            cpu=str(attrs.get("mcpu") or ""),
            features=mattr,
            opt_level=int(attrs.get("opt-level", DEFAULT_OPT_LEVEL)),
        )

    def key(self) -> str:
        """A string that identifies the generated code, used in compilation cache keys."""
        llvm = llvm_binding()
        return "|".join(
            (
                self.resolved_triple(),
                self.resolved_cpu(),
                self.resolved_features(),
                str(self.opt_level),
                # The pipeline knobs change the generated code, so they are part of the key.
                f"unroll={bool(LOOP_UNROLLING)},slp={bool(SLP_VECTORIZATION)}",
                llvm.llvm_version_info.__repr__(),
            )
        )

    def resolved_triple(self) -> str:
        """The triple with the host default filled in."""
        return self.triple or llvm_binding().get_process_triple()

    def resolved_cpu(self) -> str:
        """The CPU name with the host default filled in (``generic`` for another
        architecture: the host CPU means nothing there)."""
        if self.cpu:
            return self.cpu
        if self.triple and self.triple.split("-")[0] != \
                llvm_binding().get_process_triple().split("-")[0]:
            return "generic"
        return llvm_binding().get_host_cpu_name()

    def resolved_features(self) -> str:
        """The feature string; the host's features when compiling for the host CPU.

        Host features matter: a virtual machine may report a CPU name whose default features
        (e.g. AVX-512) it does not enable.
        """
        if self.features or self.cpu:
            return self.features
        if self.triple and self.triple != llvm_binding().get_process_triple():
            return ""
        return _host_features()


@functools.cache
def _host_features() -> str:
    return llvm_binding().get_host_cpu_features().flatten()


def target_machine(options: TargetOptions):
    """The calling thread's cached llvmlite ``TargetMachine`` for ``options`` (for optimizing
    and emitting).

    One per thread: code generation through one ``TargetMachine`` from two threads at once is
    not safe in LLVM (compiling threads emit objects in parallel once the private lock is
    installed). Never hand it to an execution engine: engines take ownership of their target
    machine and free it with themselves. Use :func:`new_target_machine` for those.
    """
    return _thread_target_machine(options, threading.get_ident())


@functools.lru_cache(maxsize=64)
def _thread_target_machine(options: TargetOptions, thread_ident: int):
    # Keyed by the thread's ident: a dead thread's ident may be reused, and its machine with
    # it, by a later thread (never by two live threads at once).
    return new_target_machine(options)


def new_target_machine(options: TargetOptions):
    """Create a new llvmlite ``TargetMachine`` for ``options``.

    Raises ``ValueError`` for a CPU or feature name LLVM does not know, or options LLVM
    would end the process on (``tvm.target.llvm_cpus.check_llvm_cpu``).
    """
    llvm = llvm_binding()
    if options.cpu or options.features:
        check_llvm_cpu(options.resolved_triple(), options.cpu, options.features)
    return compile_worker.make_target_machine(
        llvm, options.resolved_triple(), options.resolved_cpu(), options.resolved_features(),
        options.opt_level)


def parse_ir(ir_text: str, name: str = "module", context=None):
    """Parse and verify LLVM IR text into an llvmlite ``ModuleRef``.

    ``context``: an ``llvm.create_context()`` to parse into (None: the global context); a
    thread that compiles while other threads do must use its own. Raises ``ValueError``
    naming the module when the IR does not parse or verify.
    """
    llvm = llvm_binding()
    try:
        mod = llvm.parse_assembly(ir_text, context=context)
        mod.verify()
    except RuntimeError as err:
        raise ValueError(f"invalid LLVM IR in module '{name}': {err}") from err
    mod.name = name
    return mod


def optimize(mod, options: TargetOptions, tm=None) -> None:
    """Run the LLVM new-pass-manager pipeline at ``options.opt_level`` on ``mod`` in place.

    ``tm``: the target machine to use (default: the shared one of ``options``); threads that
    optimize concurrently each pass their own (with modules in their own contexts).
    """
    llvm = llvm_binding()
    private = tm is not None
    tm = tm or target_machine(options)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    if options.opt_level <= 0:
        return
    with _LOCK:
        pb = compile_worker.pass_builder(llvm, tm, options.opt_level, LOOP_UNROLLING,
                                         SLP_VECTORIZATION)
        if not private:  # the shared target machine: one user at a time
            pb.getModulePassManager().run(mod, pb)
            return
    # Outside the lock: modules in separate contexts with their own target machines are
    # optimized in parallel by threads inside private_llvm() (see compile_ir).
    pb.getModulePassManager().run(mod, pb)


def optimize_light(mod, tm) -> None:
    """A short IR pipeline (SROA, instcombine, simplifycfg) for hand-written runtime modules.

    The runtime's own modules (argument checks, thread pool, workspace) are small, loop-light
    code already written in SSA form; the full O3 pipeline took 40-45 ms for each of the
    checks and the pool, on every process's first build, this one ~2 ms, and the machine
    code's call and launch times stayed the same (``benchmarks/call_overhead.py``).
    """
    llvm = llvm_binding()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    with _LOCK:
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    compile_worker.run_light_pipeline(llvm, mod, pb)


def compile_ir(ir_text: str, name: str, options: TargetOptions, optimized: bool = False,
               light: bool = False):
    """``(optimized IR text, object file)`` of LLVM IR text; safe to run in several threads.

    By default the work runs in a worker process (:mod:`.compile_worker`: llvmlite leaks
    ~48 KB of native memory per optimized module, and an LLVM abort would end this process),
    one per compiling thread, so calls in different threads run in parallel. With
    ``PYTVM_LLVM_COMPILE_WORKER=0`` the module is parsed into its own LLVM context and
    optimized and emitted by its own target machine here, outside llvmlite's process-wide
    lock (:func:`private_llvm`). ``optimized``: the text is already optimized (only code
    generation runs); ``light``: :func:`optimize_light` instead of the O-level pipeline.
    Raises ``ValueError`` naming ``name`` for IR that does not parse, ``RuntimeError``
    naming the module and its functions when LLVM fails or aborts in the worker.
    """
    llvm = llvm_binding()
    if options.cpu or options.features:
        # Checked here, where a misspelled name is a ValueError (the worker trusts it).
        check_llvm_cpu(options.resolved_triple(), options.cpu, options.features)
    # The light runtime modules (a few per process, ~2 ms each) compile here: a worker's
    # start-up would cost more than their one-off leak.
    if compile_worker.enabled() and not light:
        with private_llvm():  # host queries only: no need to wait for llvmlite's lock
            spec = compile_worker.spec_of(options)
        try:
            result = compile_worker.compile_in_worker(ir_text, name, spec, optimized, light,
                                                      keep=_compile_threads(), wait=False)
        except compile_worker.WorkerUnavailable:
            result = None  # warned once; compiled here, as with PYTVM_LLVM_COMPILE_WORKER=0
        if result is not None:
            return result
        # No worker has started yet (the first compiles of a process, or just after one
        # was replaced): compiled here rather than waiting for one.
    with private_llvm():
        context = llvm.create_context()
        mod = parse_ir(ir_text, name, context=context)
        tm = new_target_machine(options)
        if not optimized:
            if light:
                optimize_light(mod, tm)
            else:
                optimize(mod, options, tm=tm)
            ir_text = str(mod)
        obj = tm.emit_object(mod)
        del mod, tm, context  # disposed here, inside the private section
    return ir_text, obj


def _compile_threads() -> int:
    from .jit import compile_threads  # lazy: jit imports this module

    return compile_threads()


def emit_assembly(mod, options: TargetOptions) -> str:
    """Return the target assembly of an (optimized) module."""
    return target_machine(options).emit_assembly(mod)


def emit_object(mod, options: TargetOptions) -> bytes:
    """Return the relocatable object file bytes of an (optimized) module."""
    return target_machine(options).emit_object(mod)


def register_tvm_ffi_symbols(symbols, module_name: str) -> None:
    """Make the ``TVMFFI*`` functions among ``symbols`` resolvable by the JIT.

    libtvm_ffi is loaded privately (``RTLD_LOCAL``) by tvm_ffi, so the JIT cannot find its
    symbols by itself; their addresses come from ``tvm_ffi.LIB`` through ctypes.
    """
    # Lazy imports: only needed when JIT-compiling.
    import ctypes

    import tvm_ffi

    llvm = llvm_binding()
    for name in symbols:
        if not name.startswith("TVMFFI"):
            continue
        try:
            address = ctypes.cast(getattr(tvm_ffi.LIB, name), ctypes.c_void_p).value
        except AttributeError as err:
            raise ValueError(
                f"LLVM module '{module_name}' calls '{name}', which libtvm_ffi does not export"
            ) from err
        llvm.add_symbol(name, address)


def declared_symbols(mod) -> list:
    """Names of the functions an llvmlite ``ModuleRef`` declares but does not define."""
    return [fn.name for fn in mod.functions if fn.is_declaration]
