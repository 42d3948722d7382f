"""``tvm.compile`` / ``tvm.tirx.build``: PrimFuncs -> lowered tirx -> LLVM -> runtime.Module.

Steps (``docs/arch/codegen.md``):

1. wrap a lone PrimFunc into an ``IRModule``; give each function a ``global_symbol``;
2. apply the default CPU schedule to unscheduled functions (``tvm.s_tir.default_schedule``);
3. run the TIR pipeline (``tir_pipeline``, see ``tvm.tirx.compilation_pipeline``) and the
   host finalization (``LowerIntrin``);
4. generate LLVM IR (``tvm.backend.llvm.codegen``) and JIT-compile it
   (``tvm.backend.llvm.jit.build_module``).

Compilation is cached by the structural hash of the input module plus the target and
pipeline: compiling a structurally equal module again returns the same ``runtime.Module``
without lowering. A module with Relax functions goes to ``tvm.relax.vm_build.build`` (the
Relax VM executable), which compiles its PrimFuncs through this same path.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import sys
import threading

from ..ffi.structural import structural_equal, structural_hash
from ..ir.module import IRModule
from ..ir.transform import PassContext
from ..tirx.function import PrimFunc

__all__ = ["build", "clear_cache", "compile", "lower"]

_CACHE: collections.OrderedDict = collections.OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 256


def _as_module(mod) -> IRModule:
    if isinstance(mod, PrimFunc):
        name = mod.get_attr("global_symbol") or "main"
        return IRModule({str(name): mod})
    if isinstance(mod, IRModule):
        return mod
    raise TypeError(
        f"tvm.compile expects a PrimFunc or an IRModule, got {type(mod).__name__}"
    )


def _target_kind(target) -> str:
    if target is None:
        return "llvm"
    if isinstance(target, str):
        return target.split()[0] if target.strip() else "llvm"
    if isinstance(target, dict):
        return str(target.get("kind", "llvm"))
    kind = getattr(target, "kind", None)
    return str(getattr(kind, "name", kind) or "llvm")


def _with_symbols(mod: IRModule) -> IRModule:
    funcs, changed = {}, False
    for gvar, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong argument type
                f"tvm.driver.lower: function {gvar.name_hint} is a {type(func).__name__}; "
                "lowering Relax functions is not supported here: use tvm.compile or "
                "relax.build for modules with Relax functions"
            )
        if func.get_attr("global_symbol") is None:
            func = func.with_attr("global_symbol", gvar.name_hint)
            changed = True
        funcs[gvar] = func
    return IRModule(funcs, attrs=mod.attrs) if changed else mod


def lower(mod, target=None, tir_pipeline="default", default_schedule: bool = True) -> IRModule:
    """Lower PrimFuncs to the form the code generator takes (returns an ``IRModule``)."""
    # Lazy imports: the driver sits on top of every layer it calls into.
    from ..backend.llvm import intrin as _llvm_intrin  # noqa: F401  (LowerIntrin's rules)
    from ..s_tir import transform as _s_tir_transform  # noqa: F401  (registers "default")
    from ..tirx.compilation_pipeline import finalize_host_passes, get_tir_pipeline

    mod = _with_symbols(_as_module(mod))
    if default_schedule:
        from ..s_tir.default_schedule import apply_default_schedule

        mod = apply_default_schedule(mod, target)
    pipeline = tir_pipeline if not isinstance(tir_pipeline, str) else get_tir_pipeline(
        tir_pipeline)
    passes = pipeline(target) if not hasattr(pipeline, "info") else pipeline
    mod = passes(mod)
    return finalize_host_passes(target)(mod)


def compile(mod, target=None, *, relax_pipeline="default", tir_pipeline="default"):
    """Compile a PrimFunc or an IRModule of PrimFuncs into a ``tvm.runtime.Module``.

    Parameters
    ----------
    mod : PrimFunc or IRModule
        What to compile. A module with Relax functions is built by ``relax.build`` into a VM
        executable; otherwise every function is a PrimFunc and the result a runtime.Module.
    target : str, dict or Target, optional
        ``"llvm"`` (the default; ``"llvm -mcpu=... -opt-level=..."`` also works).
    relax_pipeline : str
        Accepted for TVM compatibility; unused until Relax compilation exists.
    tir_pipeline : str or callable
        A name in ``tvm.tirx.compilation_pipeline.PIPELINE_MAP`` or a pipeline function.

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
    kind = _target_kind(target)
    if kind not in ("llvm", "c"):
        raise ValueError(
            f"tvm.compile: target kind {kind!r} is not supported; available: 'llvm'"
        )
    if kind == "c":
        raise ValueError("tvm.compile: the 'c' target is not implemented; use 'llvm'")
    mod = _as_module(mod)
    if any(not isinstance(f, PrimFunc) for f in mod.functions.values()):
        # Relax functions: relax.build makes a VM executable (lazy: relax is a higher layer).
        from ..relax.vm_build import build as relax_build

        return relax_build(mod, target, relax_pipeline=relax_pipeline, tir_pipeline=tir_pipeline)
    key = None
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
            return entry[1]
    with gc_paused(), quick_thread_switches():
        result = _compile_prim_funcs(mod, target, tir_pipeline)
    if key is not None:
        with _CACHE_LOCK:
            _CACHE[key] = (mod, result)
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return result


@contextlib.contextmanager
def gc_paused():
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
def quick_thread_switches():
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


def prepare_llvm_runtime(target=None) -> None:
    """Start JIT-compiling the LLVM runtime helpers in the background (``relax.build``).

    The argument checks, workspace functions and thread pool that compiled kernels call are
    JIT-compiled once per process (loaded from the disk cache after the first). Started
    before the Relax passes, they compile on another CPU while Python runs them.
    """
    if _target_kind(target) != "llvm":
        return
    from ..backend.llvm.jit import prepare_runtime  # lazy: imports llvmlite

    prepare_runtime(("checks", "workspace", "pool"))


def _compile_prim_funcs(mod, target, tir_pipeline):
    """Lower, generate LLVM IR (in parts) and JIT-compile an IRModule of PrimFuncs.

    The functions are split into parts (:func:`_partition`); each part is lowered and its
    LLVM IR generated in turn, and LLVM compiles it in a worker thread as soon as it is
    submitted, so Python's lowering of the next parts overlaps LLVM's work on the earlier
    ones. The runtime helpers the kernels call are JIT-compiled in the background meanwhile.
    """
    # Lazy: llvmlite is imported only when something is compiled.
    from ..backend.llvm.codegen import exported_symbols
    from ..backend.llvm.jit import PartCompiler, compile_threads, prepare_runtime

    prepare_runtime()
    mod = _with_symbols(mod)
    exported_symbols(mod)  # a clash between two parts would go unnoticed
    names = [gv.name_hint for gv in mod.functions]
    module_name = "_".join(names)[:64] or "pytvm"
    llvm_target = None if target is None or isinstance(target, str) and target.strip() == "llvm" \
        else target
    compiler = PartCompiler(llvm_target, name=module_name)
    threads = compile_threads()
    # More parts than threads, each lowered and generated on its own: LLVM starts on the
    # first part while Python still lowers the others.
    for group in _partition(mod, PARTS_PER_THREAD * threads if threads > 1 else 1):
        _submit_part(compiler, IRModule(group, attrs=mod.attrs), target, tir_pipeline,
                     module_name)
    return compiler.finish(while_waiting=_collect_young_garbage)


def _submit_part(compiler, mod, target, tir_pipeline, module_name) -> None:
    """Lower one group, generate its LLVM IR and hand it to ``compiler``.

    Two LLVM modules: the kernels, and their packed wrappers (argument unpacking and checks,
    then one call), which LLVM compiles at level 0 (fast instruction selection).
    """
    # Lazy: llvmlite is imported only when something is compiled.
    from ..backend.llvm.codegen import codegen_module

    lowered = lower(mod, target, tir_pipeline)
    kernels, wrappers = codegen_module(lowered, module_name=module_name, split_wrappers=True)
    compiler.submit(kernels)
    compiler.submit(wrappers, opt_level=0)


def _collect_young_garbage() -> None:
    """Collect the objects allocated since the collector was paused (``gc_paused``).

    The build leaves cyclic garbage (every llvmlite module is one big cycle) that only the
    collector frees; with it paused, the first collection after the build scanned all of it:
    ~20 ms at the end of an MLP training step's ``relax.build``. Run while the last part
    compiles in another thread, that collection costs no wall time.
    """
    gc.collect(0)


def _partition(mod: IRModule, count: int) -> list:
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
    groups = [[] for _ in range(count)]
    loads = [0] * count
    for index in sorted(range(len(items)), key=lambda i: (-sizes[i], i)):
        lightest = loads.index(min(loads))
        groups[lightest].append(index)
        loads[lightest] += sizes[index]
    order = sorted(range(count), key=lambda g: (-loads[g], g))
    # Keep the module's function order inside each group.
    return [dict(items[i] for i in sorted(groups[g])) for g in order if groups[g]]


def build(mod, target=None, pipeline="default"):
    """``tvm.tirx.build``: compile TIR (same as :func:`compile` with ``tir_pipeline``)."""
    return compile(mod, target, tir_pipeline=pipeline)


def clear_cache() -> None:
    """Forget every compiled module (the LLVM-level caches are separate)."""
    with _CACHE_LOCK:
        _CACHE.clear()
