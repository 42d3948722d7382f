"""``sample_compute_location``: draw where a block could be computed, as TVM does.

The candidates (TVM's ``CollectComputeLocation``), each with its decision number:

* ``-2`` "inline", when ``compute_inline`` of the block would succeed;
* ``-1`` "root" (leave the block where it is);
* ``i``: the ``i``-th loop around the block's first consumer, up to the lowest common ancestor
  of its consumers, skipping unit loops, stopping at a data-parallel loop after a reduction one
  and at reduction loops after the last data-parallel one, where ``compute_at`` (keeping unit
  loops) would succeed.

The returned ``LoopRV`` is that loop, or one of the two marks; ``compute_at`` of the "root" mark
leaves the block in place and of the "inline" mark inlines it.
"""

from __future__ import annotations

from ...tirx.stmt import For, IterVar, SBlockRealize
from .base import LoopRV, SBlockRV
from .error import ScheduleError
from .lookup import block_loops, consumers
from .loops import uses_var
from .state import StmtSRef, iter_blocks

__all__ = ["ComputeLocationSampling"]

_INLINE, _ROOT = "compute-inline", "compute-root"


def _loop_iter_type(loop):
    """TVM's ``GetLoopIterType``: data parallel when every binding using the loop is of a
    data-parallel iterator, reduction when each is data parallel or reduction, else opaque."""
    kinds = set()
    for realize, _ in iter_blocks(loop.body):
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            if uses_var(value, loop.loop_var):
                kinds.add(iv.iter_type)
    if kinds <= {IterVar.DataPar}:
        return IterVar.DataPar
    if kinds <= {IterVar.DataPar, IterVar.CommReduce}:
        return IterVar.CommReduce
    return IterVar.Opaque


class ComputeLocationSampling:
    """Mixin: ``sample_compute_location`` (and the marks ``compute_at`` accepts)."""

    def _compute_locations(self, block):
        """``[(decision, loop_var or mark)]`` of the block's candidate locations."""
        func_name, path = self._block(block, "sample_compute_location")
        key = (id(self.mod[func_name].body), path[-1].block.name_hint)
        cache = getattr(self, "_location_cache", None)
        if cache is not None and cache[0] == key:
            return cache[1]
        out = []
        trial = self.copy()
        try:
            trial.compute_inline(trial.get_sblock(path[-1].block.name_hint, func_name))
            out.append((-2, _INLINE))
        except ScheduleError:
            pass
        out.append((-1, _ROOT))
        body = self.mod[func_name].body
        cons = consumers(body, path)
        if cons:
            cpaths = [p for r, p in iter_blocks(body) if any(r is c for c in cons)]
            common = 0
            while all(len(p) > common and p[common] is cpaths[0][common] for p in cpaths):
                common += 1
            prefix = cpaths[0][:common] if len(cpaths) > 1 else cpaths[0][:-1]
            boundary = next((n for n in reversed(prefix)
                             if isinstance(n, (For, SBlockRealize))), None)
            loops = block_loops(cpaths[0])
            if isinstance(boundary, For) and any(lp is boundary for lp in loops):
                n_candidate = next(i for i, lp in enumerate(loops) if lp is boundary) + 1
                kinds = [_loop_iter_type(lp) for lp in loops[:n_candidate]]
                last_dp = max((i for i, k in enumerate(kinds) if k == IterVar.DataPar),
                              default=-1)
                seen_reduce = False
                name = path[-1].block.name_hint
                for i, (lp, kind) in enumerate(zip(loops[:n_candidate], kinds)):
                    if getattr(lp.extent, "value", None) == 1:
                        continue
                    if kind == IterVar.DataPar:
                        if seen_reduce:
                            break
                    else:
                        seen_reduce = True
                        if i > last_dp:
                            break
                    trial = self.copy()
                    try:
                        rv = trial._new_rv(LoopRV, func_name, lp.loop_var)
                        trial.compute_at(trial.get_sblock(name, func_name), rv, True)
                    except (ScheduleError, ValueError):
                        continue
                    out.append((i, lp.loop_var))
        self._location_cache = (key, out)
        return out

    def sample_compute_location(self, block: SBlockRV | str, decision=None) -> LoopRV:
        """A random compute location of ``block`` (see the module docstring), or the one
        numbered ``decision`` (a decision no longer available becomes the closest one
        before it, as TVM's replay does)."""
        block = self._as_block(block)
        func_name = self._block(block, "sample_compute_location")[0]
        candidates = self._compute_locations(block)
        if decision is None:
            pick = candidates[self._random().randrange(len(candidates))]
        else:
            decision = int(decision)
            before = [c for c in candidates if c[0] <= decision]
            pick = before[-1] if before else (-1, _ROOT)
        decision, where = pick
        rv = self._new_rv(LoopRV, func_name, where)
        self._record("sample_compute_location", kwargs={"block": block, "decision": decision},
                     outputs=[rv])
        return rv

    def _location_mark(self, loop):
        """``"compute-root"``/``"compute-inline"`` when ``loop`` is such a mark, else None."""
        entry = self._table.get(loop) if isinstance(loop, LoopRV) else None
        if entry is not None and entry[1] in (_INLINE, _ROOT):
            return entry[1]
        return None

    @staticmethod
    def _mark_sref(mark):
        return StmtSRef.inline_mark() if mark == _INLINE else StmtSRef.root_mark()
