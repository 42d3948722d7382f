"""``relax.BlockBuilder``: the one way to build Relax functions in normal form.

Every value given to ``emit`` is normalized (nested calls are bound to fresh variables, types
are inferred through each op's ``FInferType`` rule), so what the builder produces is in the
normal form described in ``docs/arch/relax_ir.md``.

Examples
--------
>>> from tvm import relax
>>> x = relax.Var("x", relax.TensorType([3, 4], "float32"))
>>> bb = relax.BlockBuilder()
>>> with bb.function("main", [x]):
...     with bb.dataflow():
...         lv = bb.emit(relax.op.add(x, x))
...         gv = bb.emit_output(relax.op.multiply(lv, x))
...     bb.emit_func_output(gv)
I.GlobalVar("main")
>>> [b.var.name_hint for b in bb.get()["main"].body.blocks[0].bindings]
['lv', 'gv']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..error import InternalError
from ..ffi.structural import structural_equal
from ..ir.expr import GlobalVar
from ..ir.module import IRModule
from ..tirx.expr import IntImm
from .analysis.type_analysis import tir_vars_in
from .expr import (
    BindingBlock,
    DataflowBlock,
    DataflowVar,
    Expr,
    Function,
    MatchCast,
    SeqExpr,
    Tuple,
    Var,
    VarBinding,
)
from .normalizer import Normalizer, _Frame
from .ty import TensorType, Type

if TYPE_CHECKING:
    from typing_extensions import Self

    from .expr import Call


class BlockBuilderScopeError(ValueError, InternalError):
    """A BlockBuilder used out of order (a function scope nested, left without output, given
    its parameters twice or never). A ValueError, and also the ``tvm.error.InternalError``
    (a RuntimeError) Apache TVM raises for the same misuse."""


__all__ = ["BlockBuilder", "BlockBuilderScopeError"]


class _FunctionScope:
    """``with bb.function(...)``: opens the function's first (non-dataflow) block."""

    def __init__(self, bb: BlockBuilder, name: str, params: Var | Iterable[Var] | None,
                 attrs: Mapping[str, Any] | None, pure: bool, private: bool) -> None:
        self._bb = bb
        self._info: dict[str, Any] = {
            "name": name,
            "params": params,
            "attrs": attrs,
            "pure": pure,
            "private": private,
        }

    def __enter__(self) -> Self:
        self._bb._begin_function(**self._info)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        bb = self._bb
        done = bb._func is None
        bb._abandon_function()
        if exc_type is None and not done:
            raise BlockBuilderScopeError(
                "emit_func_output must be called in a relax function scope"
            )
        return False


class _DataflowScope:
    """``with bb.dataflow()``: a dataflow block inside a function scope."""

    def __init__(self, bb: BlockBuilder) -> None:
        self._bb = bb

    def __enter__(self) -> Self:
        bb = self._bb
        if bb._func is None:
            raise ValueError("bb.dataflow() must be used inside a bb.function(...) scope")
        if bb._frames and bb._frames[-1].is_dataflow:
            raise ValueError("bb.dataflow() scopes cannot be nested")
        bb._close_frame()
        bb._frames.append(_Frame(True))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        bb = self._bb
        if bb._func is None or not bb._frames:
            return False
        bb._close_frame()
        bb._frames.append(_Frame(False))
        return False


class _TestingScope:
    """``with bb.testing_scope(def_vars): ...`` (see :meth:`BlockBuilder.testing_scope`)."""

    def __init__(self, bb: BlockBuilder, def_vars: list[Var]) -> None:
        self._bb = bb
        self._def_vars = def_vars

    def __enter__(self) -> Self:
        self._bb.begin_scope(self._def_vars)
        self._bb.begin_binding_block()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        self._bb.end_block()
        self._bb.end_scope()
        return False


class BlockBuilder(Normalizer):
    """Builds Relax functions binding by binding, normalizing everything it is given.

    Parameters
    ----------
    mod : IRModule, optional
        A module whose functions are visible to calls (the builder works on a copy).
    """

    _stack: ClassVar[list[BlockBuilder]] = []

    def __init__(self, mod: IRModule | None = None) -> None:
        self._mod = mod.clone() if mod is not None else IRModule()
        self._frames: list[_Frame] = []
        self._tir_scopes: list[set[int]] = []
        self._bindings: dict[Var, Expr] = {}
        self._names: dict[str, int] = {}
        self._func: dict[str, Any] | None = None
        # dedup key -> [GlobalVar], built on first add_func
        self._func_hashes: dict[tuple[Any, ...], list[GlobalVar]] | None = None

    # --- context ----------------------------------------------------------------------------
    @staticmethod
    def current() -> BlockBuilder | None:
        """The innermost builder entered with ``with`` or inside a ``bb.function`` scope."""
        return BlockBuilder._stack[-1] if BlockBuilder._stack else None

    def __enter__(self) -> Self:
        BlockBuilder._stack.append(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        self._pop_current()
        return False

    def _pop_current(self) -> None:
        """Remove this builder's innermost entry from the ``current()`` stack."""
        stack = BlockBuilder._stack
        for index in range(len(stack) - 1, -1, -1):
            if stack[index] is self:
                del stack[index]
                break

    # --- scopes -----------------------------------------------------------------------------
    def function(
        self,
        name: str,
        params: Var | Iterable[Var] | None = None,
        attrs: Mapping[str, Any] | None = None,
        pure: bool = True,
        private: bool = False,
    ) -> _FunctionScope:
        """A function scope: ``with bb.function("main", [x, y]): ...``.

        The function is added to the module by :meth:`emit_func_output`. Unless ``private``,
        it gets the ``global_symbol`` attribute ``name``.
        """
        if not isinstance(name, str):
            raise TypeError(f"bb.function name must be a str, got {name!r}")
        return _FunctionScope(self, name, params, attrs, pure, private)

    def dataflow(self) -> _DataflowScope:
        """A dataflow block scope inside a function: ``with bb.dataflow(): ...``."""
        return _DataflowScope(self)

    def _begin_function(self, name: str, params: Var | Iterable[Var] | None,
                        attrs: Mapping[str, Any] | None, pure: bool, private: bool) -> None:
        if self._func is not None:
            raise BlockBuilderScopeError(
                f"bb.function({name!r}) cannot be nested inside function {self._func['name']!r}"
            )
        if isinstance(params, Var):
            params = [params]
        params = None if params is None else list(params)
        self._check_params(params)
        self._func = {
            "name": name,
            "params": params,
            "attrs": dict(attrs or {}),
            "pure": pure,
            "private": private,
            "blocks": [],
        }
        self._frames = [_Frame(False)]
        self._tir_scopes.append(self._param_scope(params))
        BlockBuilder._stack.append(self)

    def _abandon_function(self) -> None:
        """Leave the function scope (once: emit_func_output and the scope's exit both call)."""
        if self._func is None:
            return
        self._pop_current()
        self._func = None
        self._frames = []
        if self._tir_scopes:
            self._tir_scopes.pop()

    @staticmethod
    def _check_params(params: Iterable[Any] | None) -> None:
        for param in params or ():
            if not isinstance(param, Var):
                raise TypeError(f"function params must be relax.Var, got {param!r}")
            if param.ty is None:
                raise TypeError(f"function param {param.name_hint} has no type annotation")

    @staticmethod
    def _param_scope(params: Iterable[Var] | None) -> set[int]:
        return {id(v) for p in params or () for v in tir_vars_in(p.ty)}

    def _close_frame(self) -> None:
        """End the innermost frame of the function, keeping it as a block if non-empty."""
        frame = self._frames.pop()
        if frame.bindings:
            block_cls: type[BindingBlock] = DataflowBlock if frame.is_dataflow else BindingBlock
            self._function_info()["blocks"].append(block_cls(frame.bindings))

    def _function_info(self) -> dict[str, Any]:
        """The open function's parts (name, params, attrs, blocks...); inside a scope only."""
        if self._func is None:
            raise InternalError("BlockBuilder: no function scope is open")
        return self._func

    # --- generic block API (used by mutators and tests) -------------------------------------
    def begin_dataflow_block(self) -> None:
        """Open a dataflow block; close it with :meth:`end_block`."""
        self._frames.append(_Frame(True))

    def begin_binding_block(self) -> None:
        """Open a (non-dataflow) binding block; close it with :meth:`end_block`."""
        self._frames.append(_Frame(False))

    def end_block(self) -> BindingBlock:
        """Close the innermost block and return it (a BindingBlock or DataflowBlock)."""
        frame = self._current_frame("end_block")
        self._frames.pop()
        block_cls: type[BindingBlock] = DataflowBlock if frame.is_dataflow else BindingBlock
        block = block_cls(frame.bindings)
        return block

    def begin_scope(self, params: Iterable[Var] | None = None) -> None:
        """Open a variable scope whose symbolic vars come from ``params``' annotations."""
        self._tir_scopes.append(self._param_scope(params))

    def end_scope(self) -> None:
        """Close the scope opened by :meth:`begin_scope`."""
        if not self._tir_scopes:
            raise ValueError("end_scope called without a matching begin_scope")
        self._tir_scopes.pop()

    # --- emission ---------------------------------------------------------------------------
    def emit(self, expr: Expr, name_hint: str = "") -> Var:
        """Normalize ``expr``, bind it to a fresh variable and return that variable.

        Inside a dataflow block the variable is a ``DataflowVar`` named ``lv``, ``lv1``, ...;
        outside, a ``Var`` named ``gv``, ``gv1``, ... An explicit ``name_hint`` is used as is
        the first time and gets a numeric suffix after that (``x``, ``x1``, ``x2``).
        """
        if not isinstance(name_hint, str):
            raise TypeError(f"name_hint must be a str, got {name_hint!r}")
        self._current_frame()
        value = self.normalize(expr)
        var: Var = self._emit_value(value, name_hint)
        return var

    def emit_output(self, output: Expr | list[Expr] | tuple[Expr, ...], name_hint: str = "") -> Var:
        """Inside a dataflow block, bind ``output`` to a ``Var`` visible after the block."""
        frame = self._current_frame("emit_output")
        if not frame.is_dataflow:
            raise ValueError("emit_output can only be called inside a dataflow block")
        if isinstance(output, (list, tuple)):
            output = Tuple(list(output))
        value = self.normalize(output)
        var: Var = self._emit_value(value, name_hint, is_output=True)
        frame.outputs.append(var)
        return var

    def match_cast(self, value: Expr, ty: Type, name_hint: str = "") -> Var:
        """Bind ``R.match_cast(value, ty)`` to a fresh variable of type ``ty``."""
        if not isinstance(ty, Type):
            raise TypeError(f"match_cast expects a Type, got {ty!r}")
        frame = self._current_frame("match_cast")
        value = (
            self.normalize_argument(value) if isinstance(value, Tuple) else (self.normalize(value))
        )
        name = self._fresh_name(name_hint or ("lv" if frame.is_dataflow else "gv"))
        var_cls: type[Var] = DataflowVar if frame.is_dataflow else Var
        var = var_cls(name, ty)
        frame.bindings.append(MatchCast(var, value, ty))
        self._bindings[var] = value
        self._define_tir_vars(ty)
        return var

    def emit_normalized(self, binding: VarBinding | MatchCast) -> None:
        """Append an already-normalized binding to the current block as is."""
        frame = self._current_frame("emit_normalized")
        frame.bindings.append(binding)
        self._bindings[binding.var] = binding.value
        if isinstance(binding, MatchCast):
            self._define_tir_vars(binding.ty)

    def emit_func_output(self, output: Expr | list[Expr] | tuple[Expr, ...],
                         params: Var | Iterable[Var] | None = None) -> GlobalVar:
        """Finish the current function with result ``output`` and add it to the module.

        Returns the function's GlobalVar (as TVM's ``emit_func_output``), so that later
        functions can call it.
        """
        if self._func is None:
            raise BlockBuilderScopeError(
                "emit_func_output must be called in a relax function scope"
            )
        if self._frames and self._frames[-1].is_dataflow:
            raise ValueError("emit_func_output must be called outside of a dataflow block")
        info = self._func
        if params is not None:
            if info["params"] is not None:
                raise BlockBuilderScopeError(
                    "function params were already given to bb.function(...); "
                    "do not pass them again to emit_func_output"
                )
            info["params"] = [params] if isinstance(params, Var) else list(params)
            self._check_params(info["params"])
            self._tir_scopes[-1] |= self._param_scope(info["params"])
        if info["params"] is None:
            raise BlockBuilderScopeError(
                f"function {info['name']}: no parameters were given; pass them to "
                "bb.function(name, params) or emit_func_output(output, params) (an empty list "
                "for none)"
            )
        if isinstance(output, (list, tuple)):
            output = Tuple(list(output))
        output = self.normalize_argument(output)
        self._close_frame()
        attrs = dict(info["attrs"])
        if not info["private"]:
            attrs.setdefault("global_symbol", info["name"])
        func = Function(
            info["params"], SeqExpr(info["blocks"], output), None, info["pure"], attrs or None
        )
        name = info["name"]
        self._abandon_function()
        func = self.normalize(func)
        return self.add_func(func, name)

    # --- module -----------------------------------------------------------------------------
    def get(self) -> IRModule:
        """The module built so far (the builder's own module object)."""
        return self._mod

    def add_func(self, func: Any, func_name: str) -> GlobalVar:
        """Add ``func`` under a fresh name based on ``func_name``; return its GlobalVar.

        A function structurally equal to one already in the module is not added again: the
        existing GlobalVar is returned (as in TVM, so identical te kernels are shared).
        """
        for gvar, existing in self._mod.functions.items():
            if existing is func:
                return gvar
        if self._func_hashes is None:
            # The module's own functions take part in deduplication too (keyed once).
            self._func_hashes = {}
            for gvar, existing in self._mod.functions.items():
                self._func_hashes.setdefault(_dedup_key(existing), []).append(gvar)
        key = _dedup_key(func)
        for gvar in self._func_hashes.get(key, ()):
            existing = self._mod.functions.get(gvar)
            if existing is not None and structural_equal(existing, func):
                return gvar
        name = func_name
        count = 0
        taken = {g.name_hint for g in self._mod.functions}  # one set, not a scan per candidate
        while name in taken:
            count += 1
            name = f"{func_name}{count}"
        gvar = GlobalVar(name)
        self._mod.update_func(gvar, func)
        self._func_hashes.setdefault(key, []).append(gvar)
        return gvar

    def update_func(self, gv: GlobalVar, updated_func: Any) -> None:
        """Replace the function of ``gv`` in the builder's module."""
        self._mod.update_func(gv, updated_func)

    def lookup_binding(self, var: Var) -> Expr | None:
        """The value bound to ``var`` by this builder, or None."""
        return self._bindings.get(var)

    def current_block_is_dataflow(self) -> bool:
        """Whether the innermost open block is a dataflow block."""
        return bool(self._frames) and self._frames[-1].is_dataflow

    def get_unique_name(self, name_prefix: str) -> str:
        """A fresh name from this builder's name table (``x``, then ``x1``, ``x2``...)."""
        name: str = self._fresh_name(name_prefix)
        return name

    def testing_scope(self, def_vars: Iterable[Var]) -> _TestingScope:
        """A scope for tests of single expressions: ``def_vars`` (whose symbolic vars become
        defined) are in scope and a binding block is open, so nested calls can be emitted."""
        return _TestingScope(self, list(def_vars))

    # TVM's private spellings, which some user code calls.
    _begin_dataflow_block = begin_dataflow_block
    _begin_binding_block = begin_binding_block
    _end_block = end_block

    def finalize(self) -> IRModule:
        """The module, with every public function named as its ``global_symbol``.

        Runs ``relax.transform.NormalizeGlobalVar``: a GlobalVar whose name differs from its
        function's ``global_symbol`` is replaced by one named after the symbol, private
        functions whose names clash are renamed (``func`` -> ``func1``), and calls follow.
        Call once, at the end: the old GlobalVars are no longer in the result.
        """
        # Lazy: the transform package sits above the builder.
        from .transform import NormalizeGlobalVar

        result = NormalizeGlobalVar()(self._mod)
        if result is not self._mod:
            self._mod = result
            self._func_hashes = None
        return self._mod

    def call_te(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Call:
        """``R.call_tir`` of a PrimFunc built with te from ``func(*args, **kwargs)``.

        Relax tensor arguments become ``te.placeholder``s; the PrimFunc (named
        ``primfunc_name_hint`` or ``func.__name__``, private) is added to the module, shared
        with any structurally equal one already there.
        """
        # Lazy: the te bridge imports tvm.te only when a te function is emitted.
        from .te_bridge import call_te

        call: Call = call_te(self, func, *args, **kwargs)
        return call

    def call_te_with_grad(self, func: Callable[..., Any], *args: Any, te_grad_name: str,
                          te_grad_kwargs: Mapping[str, Any] | None = None, **kwargs: Any) -> Call:
        """:meth:`call_te`, as an ``R.call_tir_with_grad`` bound to the TE gradient
        registered as ``te_grad_name`` (``register_te_gradient``), with ``te_grad_kwargs``."""
        # Lazy: the op library sits above the builder in the relax package's import order.
        from .op.base import call_tir_with_grad

        call = self.call_te(func, *args, **kwargs)
        gvar, call_args = call.args[0], call.args[1]
        tir_vars = call.args[2] if len(call.args) > 2 else None
        out = call.ty_args[0]
        result: Call = call_tir_with_grad(gvar, call_args, out_ty=out, te_grad_name=te_grad_name,
                                          te_grad_kwargs=te_grad_kwargs, tir_vars=tir_vars)
        return result

    def emit_te(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Var:
        """``emit(call_te(func, *args, **kwargs))``; ``name_hint=`` names the new variable."""
        name_hint = kwargs.pop("name_hint", "")
        return self.emit(self.call_te(func, *args, **kwargs), name_hint=name_hint)


def _dedup_key(func: Any) -> tuple[Any, ...]:
    """A cheap key for finding structurally equal functions: kind and, for a PrimFunc, its
    parameters' dtypes and its buffers' dtypes and static extents, for a Relax function its
    parameters' types in brief (``_type_summary``).

    Hashing a whole function would cost as much as building it; functions with equal keys
    are then compared with ``structural_equal``, which stops at the first difference. (The
    signature type of every PrimFunc with as many parameters is the same, so without the
    buffers a training step's LegalizeOps compared each new kernel with dozens.)
    """
    buffers = getattr(func, "buffer_map", None)
    if buffers is not None:
        # A PrimFunc: its signature type says no more than its parameters' dtypes and the
        # buffers do, and these are cheaper to read than the type is to hash.
        layout = tuple(
            (buf.dtype, tuple(dim.value if isinstance(dim, IntImm) else -1 for dim in buf.shape))
            for buf in buffers.values()
        )
        return (type(func).__name__, tuple(p.dtype for p in func.param_vars), layout)
    # Another function (Relax): its parameters' kinds, dtypes and static dims, which
    # structurally equal functions share (symbolic dims count as -1); cheaper than hashing
    # the whole signature type.
    params = getattr(func, "params", None)
    return (type(func).__name__, None if params is None else tuple(
        _type_summary(getattr(p, "ty", None)) for p in params
    ))


def _type_summary(ty: Any) -> Any:
    if isinstance(ty, TensorType):
        dims = ty.shape_values
        if dims is not None:
            dims = tuple(d.value if isinstance(d, IntImm) else -1 for d in dims)
        return ("tensor", ty.dtype, ty.ndim, dims)
    return type(ty).__name__
