"""Random-variable handles and the schedule core the primitive families build on.

``ScheduleBase`` holds the state (the module, the function worked on, the trace) and the
helpers every primitive uses: resolving a handle against the current IR, committing a new
function body, recording an instruction and raising a rendered ``ScheduleError``.
"""

from __future__ import annotations

from ...error import InternalError
from ...ir.module import IRModule
from ...tirx.analysis import verify_well_formed
from ...tirx.expr import Var
from ...tirx.function import PrimFunc
from ...tirx.stmt import For, SBlock, SBlockRealize
from .error import render_error
from .state import (
    ScheduleState,
    StmtSRef,
    access_path,
    find_path,
    iter_blocks,
    sref_of_path,
    verifies,
)
from .trace import Instruction, Trace

__all__ = ["ExprRV", "LoopRV", "SBlockRV", "ScheduleBase"]


class _RV:
    """A handle to an object of the scheduled IR, resolved by ``Schedule.get``."""

    __slots__ = ("__weakref__",)
    type_key = ""

    def __repr__(self):
        return f"{type(self).__name__}(0x{id(self):x})"

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very handle."""
        return other is self


class SBlockRV(_RV):
    """A handle to a block (type key ``s_tir.SBlockRV``)."""

    __slots__ = ()
    type_key = "s_tir.SBlockRV"


class LoopRV(_RV):
    """A handle to a loop (type key ``s_tir.LoopRV``)."""

    __slots__ = ()
    type_key = "s_tir.LoopRV"


class ExprRV(_RV):
    """A handle to an integer decided by the schedule (type key ``s_tir.ExprRV``)."""

    __slots__ = ()
    type_key = "s_tir.ExprRV"


_RENDER_LEVELS = ("detail", "fast", "none")

# Primitives that return a list of handles (their trace lines unpack even a single item).
_LIST_KINDS = frozenset({"get_loops", "get_child_blocks", "get_producers", "get_consumers",
                         "get_output_blocks", "split", "sample_perfect_tile",
                         "cache_inplace", "cache_index", "sample_partitioned_tile",
                         "loop_partition"})


class ScheduleBase:
    """State and shared helpers of :class:`tvm.s_tir.Schedule`."""

    def __init__(
        self,
        mod: IRModule | PrimFunc,
        *,
        seed: int | None = None,
        debug_mask: str | int = "none",
        error_render_level: str = "detail",
        enable_check: bool = True,
    ) -> None:
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TypeError(
                f"Schedule expects an IRModule or a PrimFunc, got {type(mod).__name__}"
            )
        verifies(debug_mask)  # validates the value
        if seed is not None and not (isinstance(seed, int) and 1 <= seed <= 2147483647):
            raise ValueError(f"seed must be in the range [1, 2147483647], but gets: {seed}")
        if error_render_level not in _RENDER_LEVELS:
            raise ValueError(
                f"error_render_level must be one of {list(_RENDER_LEVELS)}, "
                f"got {error_render_level!r}"
            )
        self._state = ScheduleState(mod, debug_mask=debug_mask, enable_check=enable_check)
        self._seed = seed
        self._error_render_level = error_render_level
        self._trace = Trace()
        # RV -> (function name, stable key): block name, loop Var, or an int for ExprRV.
        self._table = {}
        prim_funcs = [g.name_hint for g, f in mod.functions.items() if isinstance(f, PrimFunc)]
        if "main" in prim_funcs:
            self._func_name = "main"
        elif len(prim_funcs) == 1:
            self._func_name = prim_funcs[0]
        else:
            self._func_name = None

    # --- state ----------------------------------------------------------------------------------
    @property
    def mod(self) -> IRModule:
        """The module as scheduled so far."""
        return self._state.mod

    @property
    def state(self) -> ScheduleState:
        """The schedule state (its ``mod`` is the current module)."""
        return self._state

    @property
    def trace(self) -> Trace:
        """The instructions applied so far."""
        return self._trace

    @property
    def func_working_on(self):
        """The GlobalVar of the function the schedule works on (``None`` if unset)."""
        if self._func_name is None:
            return None
        return self.mod.get_global_var(self._func_name)

    def work_on(self, func_name: str) -> None:
        """Make ``func_name`` the function that name lookups (``get_sblock``) search."""
        self._prim_func(func_name, "work_on")  # checks that the function exists
        self._func_name = func_name

    @property
    def seed(self):
        """The random seed of the sampling primitives."""
        return self._seed

    # --- helpers for primitives -----------------------------------------------------------------
    def _prim_func(self, name, primitive):
        names = [g.name_hint for g in self.mod.get_global_vars()]
        if name not in names or not isinstance(self.mod[name], PrimFunc):
            prims = [n for n in names if isinstance(self.mod[n], PrimFunc)]
            raise ValueError(
                f"{primitive}: the module has no PrimFunc named {name!r}; candidates are: "
                f"{prims}"
            )
        return self.mod[name]

    def _error(self, primitive, message, objs=()):
        paths = []
        if self._error_render_level == "detail":
            funcs = [g.name_hint for g, f in self.mod.functions.items()
                     if isinstance(f, PrimFunc)]
            for obj in objs:
                for name in funcs:
                    path = access_path(self.mod, name, obj)
                    if path is not None:
                        paths.append(path)
                        break
        return render_error(primitive, message, self.mod, paths, self._error_render_level)

    def _new_rv(self, cls, func_name, key):
        rv = cls()
        self._table[rv] = (func_name, key)
        return rv

    def _as_block(self, block):
        """A block handle from a handle or a block name (looked up as ``get_sblock`` does)."""
        return self.get_sblock(block) if isinstance(block, str) else block

    def _buffer_index(self, blk, index, field, primitive):
        """The position in ``blk.<field>`` of a buffer given by position, name or data var."""
        regions = getattr(blk, field)
        if isinstance(index, (str, Var)):
            for i, r in enumerate(regions):
                if r.buffer.name == index if isinstance(index, str) else r.buffer.data is index:
                    return i
            raise ValueError(
                f"{primitive}: block {blk.name_hint!r} has no {field[:-1]} buffer "
                f"{index if isinstance(index, str) else index.name!r}; its {field} buffers are "
                f"{[r.buffer.name for r in regions]}"
            )
        return index

    def _lookup_rv(self, rv, cls, primitive):
        if not isinstance(rv, cls):
            raise TypeError(
                f"{primitive}: expected a {cls.__name__}, got {type(rv).__name__}"
            )
        if rv not in self._table:
            raise ValueError(
                f"{primitive}: the {cls.__name__} does not belong to this schedule "
                "(or was removed with remove_rv)"
            )
        return self._table[rv]

    def _block(self, rv, primitive):
        """``(func_name, path)`` where ``path`` ends at the block's ``SBlockRealize``."""
        func_name, name = self._lookup_rv(rv, SBlockRV, primitive)
        func = self._prim_func(func_name, primitive)
        path = find_path(func.body, lambda n: isinstance(n, SBlockRealize)
                         and n.block.name_hint == name)
        if path is None:
            raise ValueError(
                f"{primitive}: the block {name!r} referred to by this SBlockRV no longer exists "
                f"in function {func_name!r} (an earlier primitive removed it)"
            )
        return func_name, path

    def _loop(self, rv, primitive):
        """``(func_name, path)`` where ``path`` ends at the ``For``."""
        func_name, var = self._lookup_rv(rv, LoopRV, primitive)
        func = self._prim_func(func_name, primitive)
        path = find_path(func.body, lambda n: isinstance(n, For) and n.loop_var is var)
        if path is None:
            raise ValueError(
                f"{primitive}: the loop {var.name!r} referred to by this LoopRV no longer "
                f"exists in function {func_name!r} (an earlier primitive replaced it)"
            )
        return func_name, path

    def _commit(self, func_name, new_body):
        func = self.mod[func_name]
        new_func = func.with_body(new_body)
        if verifies(self._state.debug_mask):
            # debug_mask="all": check every primitive's result (a failure is our bug).
            try:
                verify_well_formed(new_func)
            except ValueError as err:
                raise InternalError(
                    f"a schedule primitive produced an ill-formed function {func_name!r}: {err}"
                ) from err
        new_mod = self.mod.clone()
        new_mod[func_name] = new_func
        self._state.mod = new_mod

    def _rename_block(self, func_name, old, new):
        """Keep block handles valid when a primitive renames a block."""
        for rv, (fn, key) in self._table.items():
            if fn == func_name and key == old and isinstance(rv, SBlockRV):
                self._table[rv] = (fn, new)

    def _block_names(self, func_name):
        func = self.mod[func_name]
        return [r.block.name_hint for r, _ in iter_blocks(func.body)]

    def _unique_block_name(self, func_name, base):
        names = set(self._block_names(func_name))
        if base not in names:
            return base
        i = 1
        while f"{base}_{i}" in names:
            i += 1
        return f"{base}_{i}"

    def _record(self, kind, args=(), kwargs=None, outputs=(), returns_list=None):
        if returns_list is None:
            returns_list = isinstance(outputs, list) and kind in _LIST_KINDS
        self._trace.append(Instruction(kind, list(args), dict(kwargs or {}), list(outputs),
                                       returns_list))

    # --- public state API -----------------------------------------------------------------------
    def get(self, rv):
        """The current IR object of a handle: an ``SBlock``, a ``For`` or an int."""
        if isinstance(rv, SBlockRV):
            return self._block(rv, "get")[1][-1].block
        if isinstance(rv, LoopRV):
            mark = self._table.get(rv, (None, None))[1]
            if isinstance(mark, str):  # a location mark of sample_compute_location
                return StmtSRef.inline_mark() if mark == "compute-inline" else \
                    StmtSRef.root_mark()
            return self._loop(rv, "get")[1][-1]
        if isinstance(rv, ExprRV):
            return self._lookup_rv(rv, ExprRV, "get")[1]
        if isinstance(rv, StmtSRef):
            return rv.stmt
        raise TypeError(f"get expects an SBlockRV, LoopRV or ExprRV, got {type(rv).__name__}")

    def get_sref(self, rv_or_stmt):
        """A :class:`StmtSRef` for a block/loop handle (or an ``SBlock``/``For`` of the IR)."""
        if isinstance(rv_or_stmt, SBlockRV):
            path = self._block(rv_or_stmt, "get_sref")[1]
        elif isinstance(rv_or_stmt, LoopRV):
            path = self._loop(rv_or_stmt, "get_sref")[1]
        elif isinstance(rv_or_stmt, (SBlock, For)):
            target = rv_or_stmt
            func = self.mod[self._func_name]
            path = find_path(func.body, lambda n: n is target or (
                isinstance(n, SBlockRealize) and n.block is target))
            if path is None:
                raise ValueError("get_sref: the statement is not in the function worked on")
        else:
            raise TypeError(f"get_sref expects a handle or a statement, got {rv_or_stmt!r}")
        return sref_of_path(path)

    def remove_rv(self, rv) -> None:
        """Forget a handle (later uses of it are errors)."""
        self._lookup_rv(rv, _RV, "remove_rv")
        del self._table[rv]

    def copy(self):
        """An independent schedule with the same module, trace and (shared) handles."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._state = ScheduleState(self.mod, debug_mask=self._state.debug_mask,
                                     enable_check=self._state.enable_check)
        other._table = dict(self._table)
        other._trace = Trace(list(self._trace.insts))
        if self.__dict__.get("_rng") is not None:
            # Both schedules continue the same random stream independently.
            other._rng = type(self._rng)()
            other._rng.setstate(self._rng.getstate())
        return other

    def show(self, *args, **kwargs) -> None:
        """Print the scheduled module in TVMScript (as ``IRModule.show``: ``style=``,
        ``black_format=``, and the printer's keyword arguments)."""
        self.mod.show(*args, **kwargs)

    def fork_seed(self) -> int:
        """A new seed derived from this schedule's seed."""
        return self._random().randrange(1, 2**31 - 1)

    def enter_postproc(self) -> None:
        """Mark the start of postprocessing in the trace (``remove_postproc`` drops the rest)."""
        self._record("enter_postproc")


def loop_var_of(sch, rv, primitive) -> Var:
    """The loop variable a ``LoopRV`` stands for."""
    return sch._lookup_rv(rv, LoopRV, primitive)[1]
