"""``tvm.compile`` / ``tvm.tirx.build``: PrimFuncs -> lowered tirx -> backends -> runtime.Module.

The driver owns the compile pipeline; the flow is one way: driver -> relax / s_tir / tirx ->
backend -> runtime. Steps (``docs/arch/codegen.md``):

1. normalise ``target`` to a ``tvm.target.Target`` once (:func:`as_target`); everything below
   gets that object;
2. wrap a lone PrimFunc into an ``IRModule``; give each function a ``global_symbol``;
3. apply the default CPU schedule to unscheduled functions (``tvm.s_tir.default_schedule``);
4. run the TIR pipeline (``tir_pipeline``, see ``tvm.tirx.compilation_pipeline``) and the
   host finalization (``LowerIntrin``, whose rules come from the backend table);
5. hand each function to the backend of its target kind (``tvm.backend.get_backend``): host
   functions to the host backend (``llvm``), in parts that compile while the next part is
   lowered (``Backend.codegen_parts``); functions of a device kind (a ``target`` attribute
   of a non-host kind) to that backend's ``codegen``, whose modules the host module imports.

Compilation is cached by the structural hash of the input module plus the normalised target's
string and the pipeline: compiling a structurally equal module again returns the same
``runtime.Module`` without lowering. A module with Relax functions goes to
:func:`tvm.driver.relax_build.build` (the Relax VM executable), which compiles its PrimFuncs
through this same path.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Union, overload

from ..backend import HOST_KIND, Backend, get_backend
from ..ffi.structural import structural_equal, structural_hash
from ..ir.expr import GlobalVar
from ..ir.module import IRModule
from ..ir.transform import PassContext
from ..runtime.executable import Executable
from ..runtime.module import Module
from ..support.progress import delayed_spinner
from ..support.recursion import deep_recursion
from ..target import Target
from ..tirx.analysis.symbols import exported_symbols
from ..tirx.expr import Call
from ..tirx.function import PrimFunc
from ..tirx.stmt_functor import post_order_visit

if TYPE_CHECKING:
    from ..relax.vm.executable import Executable as RelaxExecutable
    from ..target.target import TargetLike

#: A TIR pipeline: a name of ``tvm.tirx.compilation_pipeline.PIPELINE_MAP`` (``"default"``: the
#: backend's), a function ``target -> Pass``, or a Pass.
TIRPipeline = Union[str, Callable[..., Any]]  # noqa: UP007 - evaluated at run time (3.10)

__all__ = ["as_target", "build", "clear_cache", "compile", "compile_module", "host_target", "lower"]

_CACHE: collections.OrderedDict[tuple[Any, ...], tuple[IRModule, Any]] = \
    collections.OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 256

#: Compile timing and in-memory cache hits, at DEBUG
#: (``logging.getLogger("tvm").setLevel("DEBUG")`` with a handler, e.g. ``logging.basicConfig``).
logger = logging.getLogger(__name__)


def _as_module(mod: PrimFunc | IRModule) -> IRModule:
    if isinstance(mod, PrimFunc):
        name = mod.get_attr("global_symbol") or "main"
        return IRModule({str(name): mod})
    if isinstance(mod, IRModule):
        return mod
    raise TypeError(
        f"tvm.compile expects a PrimFunc or an IRModule, got {type(mod).__name__}"
    )


#: Normalised string targets (a Target is immutable): parsing is skipped on repeated builds.
_TARGETS: dict[str, Target] = {}


def as_target(target: TargetLike | None) -> Target:
    """``target`` as a ``tvm.target.Target``: None is ``llvm``; strings and dicts are parsed.

    The one place the driver interprets what users pass as ``target``; everything below gets
    the ``Target`` object. Invalid targets raise ``Target``'s ``ValueError``.
    """
    if isinstance(target, Target):
        return target
    if target is None:
        target = HOST_KIND
    if isinstance(target, str):
        cached = _TARGETS.get(target)
        if cached is None:
            cached = Target(target)
            if len(_TARGETS) < 64:
                _TARGETS[target] = cached
        return cached
    return Target(target)


def host_target(target: Target) -> Target:
    """The target host code is compiled for: ``target.host`` when set, else ``target`` when
    its kind's backend generates host code, else ``Target("llvm")``.

    Raises ``ValueError`` (``get_backend``'s) when ``target``'s kind has no backend.
    """
    if target.host is not None:
        return target.host
    if get_backend(target).host:
        return target
    return as_target(HOST_KIND)


def _called_functions(mod: IRModule) -> set[str]:
    """Names of the functions of ``mod`` that another function calls (``Module.sub(...)``).

    Such a function without a ``global_symbol`` is a private subroutine: it gets no packed
    entry point of its own, as in TVM.
    """
    called: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, Call) and isinstance(node.op, GlobalVar):
            called.add(node.op.name_hint)

    for func in mod.functions.values():
        if isinstance(func, PrimFunc):
            post_order_visit(func.body, visit)
    return called


def _with_symbols(mod: IRModule) -> IRModule:
    funcs, changed = {}, False
    called = _called_functions(mod)
    for gvar, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong argument type
                f"tvm.driver.lower: function {gvar.name_hint} is a {type(func).__name__}; "
                "lowering Relax functions is not supported here: use tvm.compile or "
                "relax.build for modules with Relax functions"
            )
        if func.get_attr("global_symbol") is None and gvar.name_hint not in called:
            func = func.with_attr("global_symbol", gvar.name_hint)
            changed = True
        funcs[gvar] = func
    return IRModule(funcs, attrs=mod.attrs) if changed else mod


def lower(mod: PrimFunc | IRModule, target: TargetLike | None = None,
          tir_pipeline: TIRPipeline = "default", default_schedule: bool = True) -> IRModule:
    """Lower PrimFuncs to the form the code generators take (returns an ``IRModule``).

    Steps: for a device target, bind the target to every function without one and record
    the device type their tensor arguments live on (``tirx.arg_device_type``, checked by the
    host's packed API); the backend's default schedule (``Backend.default_schedule``; the
    default CPU schedule for a host kind); the TIR pipeline; then the finalization per
    kind: each device kind's ``Backend.finalize_passes`` on its functions (the kernels),
    the host finalization (``LowerIntrin``) on the rest.
    """
    # Lazy imports: s_tir's transforms register the "default" TIR pipeline on import.
    from ..s_tir import transform as _s_tir_transform  # noqa: F401
    from ..tirx.compilation_pipeline import finalize_host_passes, get_tir_pipeline

    target = as_target(target)
    backend = get_backend(target)
    mod = _with_symbols(_as_module(mod))
    if not backend.host:
        mod = _bind_device_target(mod, target, backend)
    elif target.kind.name != HOST_KIND:
        # Host code of another kind (``c``): functions carry the target, so that LowerIntrin
        # applies that kind's rules rather than llvm's.
        mod = IRModule({g: f if f.get_attr("target") is not None else f.with_attr("target", target)
                        for g, f in mod.functions.items()}, attrs=mod.attrs,
                       global_infos=mod.global_infos)
    if default_schedule:
        if backend.default_schedule is not None:
            mod = backend.default_schedule(mod, target)
        elif backend.host:
            from ..s_tir.default_schedule import apply_default_schedule

            mod = apply_default_schedule(mod, target)
    pipeline: Any = tir_pipeline
    if isinstance(pipeline, str):
        if pipeline == "default":
            pipeline = backend.default_tir_pipeline
        pipeline = get_tir_pipeline(pipeline)
    passes: Any = pipeline(target) if not hasattr(pipeline, "info") else pipeline
    lowered: IRModule = passes(mod)
    return _finalize(lowered, target, finalize_host_passes)


def _bind_device_target(mod: IRModule, target: Target, backend: Backend) -> IRModule:
    """Give functions without a ``target`` the device target, and mark the device type of
    the tensors they take (``tirx.arg_device_type``: the host launchers check it)."""
    funcs = {}
    for gvar, func in mod.functions.items():
        own = func.get_attr("target")
        if own is None:
            func = func.with_attr("target", target)
            own_backend = backend
        else:
            own_backend = get_backend(own if isinstance(own, Target) else Target(own))
        if not own_backend.host and own_backend.device_type is not None \
                and func.get_attr("tirx.arg_device_type") is None:
            func = func.with_attr("tirx.arg_device_type", own_backend.device_type)
        funcs[gvar] = func
    return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)


def _finalize(mod: IRModule, target: Target, finalize_host_passes: Callable[[Target], Any]
              ) -> IRModule:
    """Device kinds' ``finalize_passes`` on their functions, the host finalization on the rest."""
    device: dict[str, tuple[Target, dict[Any, Any]]] = {}  # kind -> (Target, {GlobalVar: PrimFunc})
    for gvar, func in mod.functions.items():
        dev = _device_target(func, target)
        if dev is not None:
            device.setdefault(dev.kind.name, (dev, {}))[1][gvar] = func
    if not device:
        finalized: IRModule = finalize_host_passes(target)(mod)
        return finalized
    done: set[Any] = set()
    funcs: dict[Any, Any] = {}
    for dev, kind_funcs in device.values():
        passes = get_backend(dev).finalize_passes or finalize_host_passes
        part = passes(dev)(IRModule(kind_funcs, attrs=mod.attrs))
        funcs.update(part.functions)
        done.update(kind_funcs)
    host = {g: f for g, f in mod.functions.items() if g not in done}
    if host:
        host_mod = finalize_host_passes(host_target(target))(IRModule(host, attrs=mod.attrs))
        funcs.update(host_mod.functions)
    return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)


@overload
def compile(
    mod: PrimFunc,
    target: TargetLike | None = None,
    *,
    relax_pipeline: str | Any | None = "default",
    tir_pipeline: TIRPipeline = "default",
) -> Executable: ...


@overload
def compile(
    mod: IRModule,
    target: TargetLike | None = None,
    *,
    relax_pipeline: str | Any | None = "default",
    tir_pipeline: TIRPipeline = "default",
) -> Executable | RelaxExecutable: ...


def compile(
    mod: PrimFunc | IRModule,
    target: TargetLike | None = None,
    *,
    relax_pipeline: str | Any | None = "default",
    tir_pipeline: TIRPipeline = "default",
) -> Executable | RelaxExecutable:
    """Compile a PrimFunc or an IRModule into something to run.

    Parameters
    ----------
    mod : PrimFunc or IRModule
        PrimFuncs only, or a module with Relax functions (built by ``relax.build``).
    target : str, dict or Target, optional
        ``"llvm"`` by default (see :func:`compile_module`).
    relax_pipeline : str, Pass or None
        For modules with Relax functions: passed to ``relax.build``.
    tir_pipeline : str or callable
        The TIR pipeline (see :func:`compile_module`).

    Returns
    -------
    tvm.runtime.Executable or relax.Executable
        A ``tvm.runtime.Executable`` for PrimFuncs (``ex["main"](*tensors)``), a Relax VM
        executable for a module with Relax functions (run it with ``relax.VirtualMachine``).

    Notes
    -----
    On a terminal, a compile that runs longer than 2 s shows a spinner on standard error
    (``tvm.support.progress``); pipes and logs get nothing.
    """
    # A spinner on a terminal's stderr once the compile has run 2 s (nothing into pipes/logs).
    with deep_recursion("tvm.compile"), delayed_spinner("tvm.compile"):
        result = compile_module(mod, target, relax_pipeline=relax_pipeline,
                                tir_pipeline=tir_pipeline)
    if not isinstance(result, Module):
        return result
    # One Executable per compiled module, so a compile-cache hit returns the same object.
    executable: Executable | None = getattr(result, "_executable", None)
    if executable is None:
        executable = Executable(result)
        result._executable = executable  # type: ignore[attr-defined]  # cached on the Module
    return executable


def compile_module(
    mod: PrimFunc | IRModule,
    target: TargetLike | None = None,
    *,
    relax_pipeline: str | Any | None = "default",
    tir_pipeline: TIRPipeline = "default",
) -> Module | RelaxExecutable:
    """Compile a PrimFunc or an IRModule of PrimFuncs into a ``tvm.runtime.Module``.

    Parameters
    ----------
    mod : PrimFunc or IRModule
        What to compile. A module with Relax functions is built by ``relax.build`` into a VM
        executable; otherwise every function is a PrimFunc and the result a runtime.Module.
    target : str, dict or Target, optional
        ``"llvm"`` (the default; ``"llvm -mcpu=... -opt-level=..."`` also works). Normalised
        once to a ``tvm.target.Target``; its kind must have a backend
        (``tvm.backend.get_backend``), else ``ValueError``.
    relax_pipeline : str, Pass or None
        For modules with Relax functions: passed to ``relax.build``.
    tir_pipeline : str or callable
        A name in ``tvm.tirx.compilation_pipeline.PIPELINE_MAP`` (``"default"``: the
        backend's ``default_tir_pipeline``) or a pipeline function.

    Returns
    -------
    tvm.runtime.Module
        ``mod["name"](*tensors)`` runs a function on ``tvm.runtime.Tensor`` or NumPy arrays.

    Examples
    --------
    >>> import numpy as np, tvm
    >>> from tvm import te
    >>> A = te.placeholder((4,), name="A")
    >>> B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    >>> f = tvm.compile(te.create_prim_func([A, B]))
    >>> a, b = np.arange(4, dtype="float32"), np.zeros(4, dtype="float32")
    >>> f["main"](a, b); b.tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    target = as_target(target)
    get_backend(target)  # a kind without a backend: ValueError before any work
    mod = _as_module(mod)
    if any(not isinstance(f, PrimFunc) for f in mod.functions.values()):
        # Relax functions: relax.build makes a VM executable.
        from .relax_build import build as relax_build  # lazy: relax_build imports this module

        return relax_build(mod, target, relax_pipeline=relax_pipeline, tir_pipeline=tir_pipeline)
    key: tuple[Any, ...] | None = None
    ctx = PassContext.current()
    if isinstance(tir_pipeline, str) and not ctx.instruments:
        # The pass context changes what the passes do, so it is part of the key; with
        # instruments the passes must really run, so nothing is cached.
        settings = repr((ctx.opt_level, sorted(ctx.config.items()), sorted(ctx.disabled_pass),
                         sorted(ctx.required_pass)))
        key = (structural_hash(mod), str(target), tir_pipeline, settings)
        with _CACHE_LOCK:
            entry = _CACHE.get(key)
        if entry is not None and structural_equal(entry[0], mod):
            logger.debug("tvm.compile for %s: %d PrimFuncs, in-memory cache hit", target.kind.name,
                         len(mod.functions))
            cached: Module = entry[1]
            return cached
    start = time.perf_counter()
    with gc_paused(), quick_thread_switches():
        result = _compile_prim_funcs(mod, target, tir_pipeline)
    logger.debug("tvm.compile for %s: %d PrimFuncs lowered and compiled in %.3f s", target.kind.name,
                 len(mod.functions), time.perf_counter() - start)
    if key is not None:
        with _CACHE_LOCK:
            _CACHE[key] = (mod, result)
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return result


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a compilation (re-enabled on exit).

    Compiling allocates hundreds of thousands of short-lived objects (IR nodes, llvmlite
    values); each allocation burst triggers collections that scan every live object of the
    process (a few hundred thousand with NumPy/torch loaded). Reference counting still frees
    the garbage; cycles wait until the collector runs again. Measured: llvmlite IR emission of
    the mlp256 training step 0.16-0.21 s -> 0.05-0.07 s CPU.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


#: Parts per compile thread that ``tvm.compile`` splits a module into (see _compile_prim_funcs).
PARTS_PER_THREAD = 2

#: The interpreter's thread switch interval while ``tvm.compile`` runs (seconds).
SWITCH_INTERVAL = 0.0002


@contextlib.contextmanager
def quick_thread_switches() -> Iterator[None]:
    """Shorten the interpreter's thread switch interval for a compilation (restored on exit).

    The LLVM compile threads call into LLVM through ctypes a few dozen times per part; each
    call gives the GIL up and must take it back from the main thread, which is busy
    generating the next parts in Python. At the default interval (5 ms) every such hand-back
    can wait 5 ms: measured, a part that needs 0.06 s of CPU took 0.15 s, and the runtime
    helpers (0.14 s of CPU) 0.42 s. At 0.2 ms the threads get the GIL back almost at once.
    """
    previous = sys.getswitchinterval()
    if previous <= SWITCH_INTERVAL:
        yield
        return
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def _compile_prim_funcs(mod: IRModule, target: Target, tir_pipeline: TIRPipeline) -> Module:
    """Lower an IRModule of PrimFuncs and hand each function to the backend of its kind.

    The functions are split into parts (:func:`_partition`), lowered one part at a time as
    the host backend pulls them (``Backend.codegen_parts``: the LLVM backend compiles each
    part in a worker thread while the next one is lowered). Lowered functions whose target
    kind is a device kind (:func:`_device_target`) are set aside; after the host module, each
    device kind's functions go to its backend's ``codegen`` and the resulting modules are
    imported into the host module.
    """
    host = host_target(target)
    host_backend = get_backend(host)
    mod = _with_symbols(mod)
    exported_symbols(mod)  # a clash between two parts would go unnoticed
    names = [gv.name_hint for gv in mod.functions]
    module_name = "_".join(names)[:64] or "pytvm"
    device_funcs: dict[str, dict[Any, Any]] = {}  # kind -> {GlobalVar: PrimFunc}
    device_targets: dict[str, Target] = {}  # kind -> Target

    def host_parts() -> Iterator[IRModule]:
        threads = _compile_threads(host_backend)
        # More parts than threads, each lowered on its own: the backend starts on the first
        # part while Python still lowers the others.
        for group in _partition(mod, PARTS_PER_THREAD * threads if threads > 1 else 1):
            lowered = lower(IRModule(group, attrs=mod.attrs), target, tir_pipeline)
            host_funcs: dict[Any, Any] = {}
            part_devices: dict[Any, Any] = {}
            for gvar, func in lowered.functions.items():
                device = _device_target(func, target)
                if device is None:
                    host_funcs[gvar] = func
                    continue
                kind = device.kind.name
                device_funcs.setdefault(kind, {})[gvar] = func
                part_devices[gvar] = func
                device_targets.setdefault(kind, device)
            if part_devices:
                host_funcs = _mark_device_hash(host_funcs, part_devices, target)
            if host_funcs:
                yield IRModule(host_funcs, attrs=lowered.attrs)

    if host_backend.codegen_parts is not None:
        host_mod: Module = host_backend.codegen_parts(host_parts(), host, module_name)
    else:
        parts = list(host_parts())
        merged = {gv: f for part in parts for gv, f in part.functions.items()}
        host_mod = host_backend.codegen(IRModule(merged, attrs=mod.attrs), host)
    if not device_funcs:
        link = getattr(host_mod.impl, "link_imports", None)
        if link is not None:
            link(host_mod.imports)  # T.call_packed of global functions, if any
        return host_mod
    # A fresh wrapper: the host backend may hand out a cached module for the same host code.
    root = Module(host_mod.impl)
    if not root.imports:
        for imported in host_mod.imports:
            root.import_module(imported)
    for kind, funcs in device_funcs.items():
        device = device_targets[kind]
        root.import_module(get_backend(device).codegen(IRModule(funcs, attrs=mod.attrs), device))
    link = getattr(root.impl, "link_imports", None)
    if link is not None:
        # The host calls the device launchers through callee slots (T.call_packed).
        missing = link(root.imports)
        if missing:
            raise ValueError(
                f"tvm.compile: the host code calls {', '.join(map(repr, missing))}, which no "
                "device module of this build provides"
            )
    return root


def _mark_device_hash(host_funcs: dict[Any, Any], device_funcs: dict[Any, Any],
                      target: Target) -> dict[Any, Any]:
    """Host functions with ``tirx.device_module_hash``: a hash of the device code they call.

    The host backend names its callee slots after it (``tvm.backend.llvm.call_packed``), so
    two builds with the same host code but different kernels never share a slot.
    """
    token = format(structural_hash(IRModule(device_funcs)) & 0xFFFFFFFFFFFF, "012x")
    return {g: f.with_attr("tirx.device_module_hash", token) for g, f in host_funcs.items()}


def _device_target(func: Any, target: Target) -> Target | None:
    """The device target of a lowered function, or None for host code.

    A function's kind is that of its ``target`` attribute, else the build target's. It is
    device code when that kind's backend does not generate host code (``Backend.host``
    False). So for a device target, ``SplitHostDevice`` gives the host functions it creates
    (the launchers) the host target as ``target`` attribute and the kernels the device target.
    """
    own = func.get_attr("target")
    if own is not None:
        own = own if isinstance(own, Target) else Target(own)
    else:
        own = target
    if own.kind.name == HOST_KIND:
        return None
    return None if get_backend(own).host else own


def _compile_threads(backend: Backend) -> int:
    """How many threads the host backend compiles with (parts are sized to it)."""
    return int(backend.compile_threads()) if backend.compile_threads is not None else 1


def _partition(mod: IRModule, count: int) -> list[dict[Any, Any]]:
    """Split the functions of ``mod`` into at most ``count`` groups of similar size.

    The size of a function is its number of TIR nodes (a proxy for the LLVM work); the
    largest go first, each to the lightest group. The heaviest group comes first (it should
    start compiling first). Deterministic, so the LLVM IR of each group, and hence its
    disk-cache key, is the same in every process.
    """
    from ..tirx.stmt_functor import post_order_visit

    items = list(mod.functions.items())
    count = max(1, min(count, len(items)))
    if count == 1:
        return [dict(items)]
    sizes = []
    for gvar, func in items:
        counter = [0]
        post_order_visit(func.body, lambda _node, c=counter: c.__setitem__(0, c[0] + 1))
        sizes.append(counter[0])
    groups: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for index in sorted(range(len(items)), key=lambda i: (-sizes[i], i)):
        lightest = loads.index(min(loads))
        groups[lightest].append(index)
        loads[lightest] += sizes[index]
    order = sorted(range(count), key=lambda g: (-loads[g], g))
    # Keep the module's function order inside each group.
    return [dict(items[i] for i in sorted(groups[g])) for g in order if groups[g]]


def build(mod: PrimFunc | IRModule, target: TargetLike | None = None,
          pipeline: TIRPipeline = "default") -> Module | RelaxExecutable:
    """``tvm.tirx.build``: compile TIR into a ``runtime.Module`` (:func:`compile_module` with
    ``tir_pipeline``; ``tvm.compile`` wraps the same module in an ``Executable``)."""
    if target is None:
        # As TVM: without a target, the innermost ``with tvm.target.Target(...)`` one.
        target = Target.current(allow_none=True)
    with deep_recursion("tvm.tirx.build"):
        return compile_module(mod, target, tir_pipeline=pipeline)


def clear_cache() -> None:
    """Forget every compiled module (the LLVM-level caches are separate)."""
    with _CACHE_LOCK:
        _CACHE.clear()
