"""``relax.build``: Relax pipeline, TIR compilation, and the VM executable.

Steps (``docs/arch/build_and_vm.md``):

0. local functions are lifted (``LambdaLift``, when there are any);
1. the Relax pipeline (``relax_pipeline``): by default ``LegalizeOps``,
   ``AnnotateTIROpPattern``/``FuseOps``/``FuseTIR`` and the clean-up passes that exist;
2. every PrimFunc of the result is compiled with ``tvm.compile`` (default schedules, the TIR
   pipeline, LLVM) into one ``tvm.runtime.Module``;
3. every Relax function becomes VM code (``tvm.relax.vm.codegen``).
"""

from __future__ import annotations

from ..ir.module import IRModule
from ..tirx.stmt_functor import StmtVisitor
from .expr import Function
from .vm.codegen import compile_function
from .vm.executable import Executable

__all__ = ["build", "default_relax_pipeline"]

# Passes of the default pipeline, by name in tvm.relax.transform, in order. A pass that does
# not exist yet is skipped (the build still works on modules that need no such pass).
# The fusion passes (FUSION_PASSES) run after LegalizeOps: the default CPU schedule runs a
# fused matmul's elementwise epilogue (bias add, relu) on each tile of the tiled matmul and
# row-fuses the other nests of a fused function (see s_tir/default_schedule.py).
_DEFAULT_PASSES = (
    "LegalizeOps",
    # Resolves aliases and tuple round trips (the trainer's ``(grads...)[i]``), so that FuseOps
    # sees a gradient matmul feeding its optimizer update directly and fuses them.
    "CanonicalizeBindings",
    "FoldConstant",
    "DeadCodeElimination",
)
#: The fusion passes, run after legalization unless ``default_relax_pipeline(fuse=False)``.
FUSION_PASSES = ("AnnotateTIROpPattern", "FuseOps", "FuseTIR")


def default_relax_pipeline(fuse: bool = True):
    """The passes ``relax.build`` runs by default, as a ``tvm.transform.Sequential``.

    With ``fuse`` (the default), the fusion passes run after legalization (see
    ``FUSION_PASSES``); ``fuse=False`` gives the legalize-only pipeline.
    """
    from ..ir import transform as ir_transform  # lazy: pass infrastructure
    from . import transform

    names = list(_DEFAULT_PASSES)
    if fuse:
        names[2:2] = FUSION_PASSES
    passes = [getattr(transform, name)() for name in names if hasattr(transform, name)]
    return ir_transform.Sequential(passes, name="relax.build.default")


def _relax_pipeline(relax_pipeline):
    if relax_pipeline is None or relax_pipeline == "none":
        return None
    if isinstance(relax_pipeline, str):
        if relax_pipeline in ("default", "default_build", "zero"):
            return default_relax_pipeline()
        if relax_pipeline == "fuse":  # the default since fusion is on by default
            return default_relax_pipeline(fuse=True)
        # Lazy: relax.pipeline is written by the compilation-pass work (may not exist yet).
        try:
            from . import pipeline as _pipeline
        except ImportError:
            _pipeline = None
        if _pipeline is not None and hasattr(_pipeline, "get_pipeline"):
            return _pipeline.get_pipeline(relax_pipeline)
        raise ValueError(
            f"relax.build: unknown relax_pipeline {relax_pipeline!r}; use 'default', None, or "
            "a pass"
        )
    return relax_pipeline


def build(
    mod,
    target=None,
    params=None,
    relax_pipeline="default",
    tir_pipeline="default",
    exec_mode="bytecode",
    *,
    system_lib=None,
):
    """Compile an IRModule with Relax functions into a :class:`relax.Executable`.

    Parameters
    ----------
    mod : IRModule
        Relax functions (and PrimFuncs they call with ``R.call_tir``).
    target : str, dict or Target, optional
        ``"llvm"`` (the default).
    params : dict, optional
        Parameter name -> NumPy array or ``tvm.runtime.Tensor`` of ``"main"``. As in TVM 0.27
        they are checked and kept on the executable (``ex.params``, runtime tensors) but NOT
        bound: ``main`` keeps its signature and is called with every argument. To fold
        weights into the module as constants, run ``relax.transform.BindParams("main",
        params)`` before building.
    relax_pipeline : str, Pass or None
        ``"default"`` (legalize and fuse; ``"fuse"`` is the same),
        ``default_relax_pipeline(fuse=False)`` (legalize only), None to compile the module as
        given, or a pass.
    tir_pipeline : str or callable
        Passed to ``tvm.compile`` for the PrimFuncs.
    exec_mode : str
        ``"bytecode"`` (the default) or ``"compiled"``; both produce the Python VM code.
    system_lib : bool, optional
        Accepted for TVM compatibility. TVM then registers the kernels in a system library
        for static linking; here the kernels are always loaded in-process (JIT), and
        ``export_library`` writes the same shared library either way. ``ex.system_lib``
        records the flag.

    Returns
    -------
    relax.Executable
        Run it with ``relax.VirtualMachine(ex, tvm.cpu())``.
    """
    if not isinstance(mod, IRModule):
        if isinstance(mod, Function):
            mod = IRModule({"main": mod})
        else:
            raise TypeError(f"relax.build expects an IRModule, got {type(mod).__name__}")
    if exec_mode not in ("bytecode", "compiled"):
        raise ValueError(f"relax.build: exec_mode must be 'bytecode' or 'compiled', got {exec_mode!r}")
    checked_params = _check_params(mod, params) if params else {}
    # Lazy: the driver sits above relax; its gc_paused saves the collector's scans of every
    # live object during the allocation bursts of the passes too (0.1-0.3 s CPU on mlp256);
    # prepare_llvm_runtime JITs the kernels' runtime helpers on another CPU meanwhile.
    from ..driver.build_module import gc_paused, prepare_llvm_runtime

    prepare_llvm_runtime(target)
    with gc_paused():
        mod = _lift_local_functions(mod)
        passes = _relax_pipeline(relax_pipeline)
        if passes is not None:
            mod = passes(mod)
            mod = _lift_local_functions(mod)  # a pipeline may create local functions
        ex = _build_executable(mod, target, tir_pipeline)
    ex.system_lib = bool(system_lib)
    ex.params = checked_params
    return ex


def _check_params(mod, params):
    """``params`` as TVM 0.27 takes them: main's parameter names -> runtime tensors (unbound)."""
    from ..runtime.tensor import Tensor, tensor

    if not isinstance(params, dict):
        raise TypeError(
            f"relax.build: params must be a dict of parameter name -> array, got "
            f"{type(params).__name__}"
        )
    if "main" not in mod:
        raise ValueError("relax.build: params= names parameters of 'main', which the module lacks")
    names = [p.name_hint for p in mod["main"].params]
    out = {}
    for name, value in params.items():
        if name not in names:
            raise ValueError(
                f"relax.build: params= names {name!r}, but main has no parameter named {name!r} "
                f"(its parameters: {', '.join(names)})"
            )
        out[name] = value if isinstance(value, Tensor) else tensor(value)
    return out


def _lift_local_functions(mod):
    """``LambdaLift`` when some function binds a local function (the VM runs lifted ones)."""
    from .transform.lambda_lift import LambdaLift, has_nested_function

    return LambdaLift()(mod) if has_nested_function(mod) else mod


def _build_executable(mod, target, tir_pipeline):
    # Lazy: the TIR layer and the driver sit below/beside relax but are heavy to import.
    from ..driver.build_module import compile as tir_compile
    from ..tirx.function import PrimFunc

    prims = {
        gv: _unify_loop_dtypes(f) for gv, f in mod.functions.items() if isinstance(f, PrimFunc)
    }
    lib = None
    if prims:
        lib = tir_compile(IRModule(prims), target, tir_pipeline=tir_pipeline)
    # The profiling variant of each function is generated when first needed (Executable).
    codes = {
        gv.name_hint: (compile_function(gv.name_hint, func, mod), None)
        for gv, func in mod.functions.items()
        if isinstance(func, Function)
    }
    return Executable(lib, codes, mod)


def _unify_loop_dtypes(func):
    """Give every loop's ``min`` and ``extent`` the dtype of its loop variable.

    Workaround: te reduce axes built from ``range(0, K)`` with an int64 ``K`` carry an int32
    ``0`` as the loop (and block iterator) minimum, which the lowering and the LLVM code
    generator reject ("Operands must be the same type", "mismatched types"). Remove once
    ``te``/``Range`` unify the dtypes themselves.
    """
    from ..ir.expr import Range
    from ..tirx.expr import IntImm
    from ..tirx.stmt import For
    from ..tirx.stmt_functor import ir_transform

    def fix(value, dtype):
        if value.dtype == dtype:
            return value
        if isinstance(value, IntImm):
            return IntImm(dtype, value.value)
        from ..tirx.generic import cast

        return cast(value, dtype)

    def post(stmt):
        if isinstance(stmt, For):
            dtype = stmt.loop_var.dtype
            if stmt.min.dtype == dtype and stmt.extent.dtype == dtype:
                return None
            return stmt.replace(min=fix(stmt.min, dtype), extent=fix(stmt.extent, dtype))
        # A block: its iterators' domains (reduction iterators carry the same int32 0).
        changed, ivs = False, []
        for iv in stmt.iter_vars:
            dom, dtype = iv.dom, iv.var.dtype
            if dom is not None and (dom.min.dtype != dtype or dom.extent.dtype != dtype):
                dom = Range.from_min_extent(fix(dom.min, dtype), fix(dom.extent, dtype))
                iv = iv.replace(dom=dom)
                changed = True
            ivs.append(iv)
        return stmt.replace(iter_vars=tuple(ivs)) if changed else None

    if not _has_mixed_loop_dtypes(func.body):
        return func
    body = ir_transform(func.body, None, post, only_enable=["tirx.For", "s_tir.SBlock"])
    return func if body is func.body else func.replace(body=body)


def _has_mixed_loop_dtypes(body) -> bool:
    """Whether a loop or block iterator of ``body`` has a bound of another dtype.

    Why: the rewrite above walks every expression; most kernels need nothing, and this
    statement-only look says so (same loops and iterators as the rewrite checks).
    """
    check = _MixedLoopDtypes()
    check.visit_stmt(body)
    return check.found


class _MixedLoopDtypes(StmtVisitor):
    found = False

    def visit_for_(self, op):
        dtype = op.loop_var.dtype
        if op.min.dtype != dtype or op.extent.dtype != dtype:
            self.found = True
        elif not self.found:
            self.visit_stmt(op.body)

    def visit_sblock_(self, op):
        for iv in op.iter_vars:
            dom, dtype = iv.dom, iv.var.dtype
            if dom is not None and (dom.min.dtype != dtype or dom.extent.dtype != dtype):
                self.found = True
                return
        if op.init is not None:
            self.visit_stmt(op.init)
        if not self.found:
            self.visit_stmt(op.body)
