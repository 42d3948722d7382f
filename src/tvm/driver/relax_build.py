"""``relax.build``: the Relax pipeline, TIR compilation, and the VM executable.

``tvm.relax.build`` (and ``tvm.relax.vm_build.build``) are thin re-exports of :func:`build`.
Steps (``docs/arch/build_and_vm.md``):

0. the target is normalised to a ``tvm.target.Target`` (:func:`.build_module.as_target`);
   local functions are lifted (``LambdaLift``, when there are any);
1. the Relax pipeline (``relax_pipeline``): a name is looked up with
   ``tvm.relax.get_pipeline`` (``"default"``: legalize and fuse, see
   ``relax.pipeline.default_relax_pipeline``), a pass is run as given;
2. every PrimFunc of the result is compiled with ``tvm.compile`` (default schedules, the TIR
   pipeline, the backends of the target) into one ``tvm.runtime.Module``;
3. every Relax function becomes VM code (``tvm.relax.vm.codegen``).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from ..backend import get_backend
from ..ir.module import IRModule
from ..relax import pipeline as relax_pipelines
from ..relax.expr import Function
from ..relax.vm.codegen import compile_function
from ..relax.vm.executable import Executable
from ..support.progress import delayed_spinner
from ..tirx.function import PrimFunc
from ..tirx.stmt_functor import StmtVisitor
from .build_module import TIRPipeline, as_target, gc_paused, host_target
from .build_module import compile_module as tir_compile

if TYPE_CHECKING:
    from ..ir.transform import Pass
    from ..runtime.tensor import Tensor
    from ..target.target import Target, TargetLike

__all__ = ["build"]

#: Timing of each build stage, at DEBUG (``logging.getLogger("tvm").setLevel("DEBUG")``).
logger = logging.getLogger(__name__)


def _relax_pipeline(relax_pipeline: str | Pass | None) -> Pass | None:
    if relax_pipeline is None or relax_pipeline == "none":
        return None
    if isinstance(relax_pipeline, str):
        named: Pass = relax_pipelines.get_pipeline(relax_pipeline)
        return named
    return relax_pipeline


def build(
    mod: IRModule | Function,
    target: TargetLike | None = None,
    params: dict[str, Any] | None = None,
    relax_pipeline: str | Pass | None = "default",
    tir_pipeline: TIRPipeline = "default",
    exec_mode: str = "bytecode",
    *,
    system_lib: bool | None = None,
) -> Executable:
    """Compile an IRModule with Relax functions into a :class:`relax.Executable`.

    Parameters
    ----------
    mod : IRModule
        Relax functions (and PrimFuncs they call with ``R.call_tir``).
    target : str, dict or Target, optional
        ``"llvm"`` (the default); normalised once to a ``tvm.target.Target``.
    params : dict, optional
        Parameter name -> NumPy array or ``tvm.runtime.Tensor`` of ``"main"``. As in TVM 0.27
        they are checked and kept on the executable (``ex.params``, runtime tensors) but NOT
        bound: ``main`` keeps its signature and is called with every argument. To fold
        weights into the module as constants, run ``relax.transform.BindParams("main",
        params)`` before building.
    relax_pipeline : str, Pass or None
        A name of ``relax.get_pipeline`` (``"default"``: legalize and fuse, the same as
        ``relax.get_pipeline("default")``), a pass such as
        ``relax.pipeline.default_relax_pipeline(fuse=False)`` (legalize only), or None to
        compile the module as given.
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

    Notes
    -----
    On a terminal, a build that runs longer than 2 s shows a spinner on standard error
    (``tvm.support.progress``); pipes and logs get nothing.
    """
    if not isinstance(mod, IRModule):
        if isinstance(mod, Function):
            mod = IRModule({"main": mod})
        else:
            raise TypeError(f"relax.build expects an IRModule, got {type(mod).__name__}")
    if exec_mode not in ("bytecode", "compiled"):
        raise ValueError(f"relax.build: exec_mode must be 'bytecode' or 'compiled', got {exec_mode!r}")
    checked_params = _check_params(mod, params) if params else {}
    target = as_target(target)
    # The host backend starts its runtime helpers (the LLVM JIT of the argument checks,
    # workspace and thread pool) on another CPU while the Relax passes run; gc_paused saves
    # the collector's scans of every live object during the passes' allocation bursts
    # (0.1-0.3 s CPU on mlp256).
    host = host_target(target)
    prepare = get_backend(host).prepare
    if prepare is not None:
        prepare(host)
    start = time.perf_counter()
    with gc_paused(), delayed_spinner("relax.build"):  # shown on a terminal after 2 s
        mod = _lift_local_functions(mod)
        passes = _relax_pipeline(relax_pipeline)
        if passes is not None:
            mod = passes(mod)
            mod = _lift_local_functions(mod)  # a pipeline may create local functions
        relax_done = time.perf_counter()
        ex = _build_executable(mod, target, tir_pipeline)
    if logger.isEnabledFor(logging.DEBUG):
        kinds = [isinstance(f, PrimFunc) for f in mod.functions.values()]
        logger.debug(
            "relax.build for %s: Relax pipeline %.3f s, PrimFuncs and VM code %.3f s "
            "(%d PrimFuncs, %d Relax functions)", target.kind.name, relax_done - start,
            time.perf_counter() - relax_done, sum(kinds), len(kinds) - sum(kinds))
    ex.system_lib = bool(system_lib)
    ex.params = checked_params
    return ex


def _check_params(mod: IRModule, params: dict[str, Any]) -> dict[str, Tensor]:
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
    out: dict[str, Tensor] = {}
    for name, value in params.items():
        if name not in names:
            raise ValueError(
                f"relax.build: params= names {name!r}, but main has no parameter named {name!r} "
                f"(its parameters: {', '.join(names)})"
            )
        out[name] = value if isinstance(value, Tensor) else tensor(value)
    return out


def _lift_local_functions(mod: IRModule) -> IRModule:
    """``LambdaLift`` when some function binds a local function (the VM runs lifted ones)."""
    from ..relax.transform.lambda_lift import LambdaLift, has_nested_function

    if not has_nested_function(mod):
        return mod
    lift: Any = LambdaLift()
    lifted: IRModule = lift(mod)
    return lifted


def _build_executable(mod: IRModule, target: Target, tir_pipeline: TIRPipeline) -> Executable:
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
    ex = Executable(lib, codes, mod)
    ex.target = target
    return ex


def _unify_loop_dtypes(func: PrimFunc) -> PrimFunc:
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

    def fix(value: Any, dtype: str) -> Any:
        if value.dtype == dtype:
            return value
        if isinstance(value, IntImm):
            return IntImm(dtype, value.value)
        from ..tirx.generic import cast

        return cast(value, dtype)

    def post(stmt: Any) -> Any:
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
    if body is func.body:
        return func
    replaced: PrimFunc = func.replace(body=body)
    return replaced


def _has_mixed_loop_dtypes(body: Any) -> bool:
    """Whether a loop or block iterator of ``body`` has a bound of another dtype.

    Why: the rewrite above walks every expression; most kernels need nothing, and this
    statement-only look says so (same loops and iterators as the rewrite checks).
    """
    check = _MixedLoopDtypes()
    check.visit_stmt(body)
    return check.found


class _MixedLoopDtypes(StmtVisitor):
    found = False

    def visit_for_(self, op: Any) -> None:
        dtype = op.loop_var.dtype
        if op.min.dtype != dtype or op.extent.dtype != dtype:
            self.found = True
        elif not self.found:
            self.visit_stmt(op.body)

    def visit_sblock_(self, op: Any) -> None:
        for iv in op.iter_vars:
            dom, dtype = iv.dom, iv.var.dtype
            if dom is not None and (dom.min.dtype != dtype or dom.extent.dtype != dtype):
                self.found = True
                return
        if op.init is not None:
            self.visit_stmt(op.init)
        if not self.found:
            self.visit_stmt(op.body)
