"""Sampling primitives: ``sample_categorical`` and ``sample_perfect_tile``.

A sample is an ``ExprRV`` holding a Python int (``sch.get(v)``); it can be passed as a split
factor or an annotation value. The decision is recorded in the trace (``decision=...``), so a
replay reproduces it. The random stream comes from the schedule's seed (a ``random.Random``);
it is not TVM's generator, so the same seed samples different values than TVM does.
"""

from __future__ import annotations

import random

from .base import ExprRV
from .state import const_int

__all__ = ["SamplingPrimitives"]


def _divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


class SamplingPrimitives:
    """Mixin: random decisions recorded in the trace."""

    def _random(self):
        if getattr(self, "_rng", None) is None:
            self._rng = random.Random(self._seed)
        return self._rng

    def sample_categorical(self, candidates, probs, decision=None) -> ExprRV:
        """One of ``candidates``, drawn with weights ``probs`` (or the one at ``decision``)."""
        candidates, probs = [int(c) for c in candidates], [float(p) for p in probs]
        if len(candidates) != len(probs):
            raise ValueError(
                f"sample_categorical: number of candidates ({len(candidates)}) does not match "
                f"number of probabilities ({len(probs)})"
            )
        if not candidates or any(p < 0 for p in probs) or sum(probs) <= 0:
            raise ValueError(
                "sample_categorical: needs at least one candidate and non-negative "
                f"probabilities with a positive sum, got {probs}"
            )
        if decision is None:
            decision = self._random().choices(range(len(candidates)), weights=probs)[0]
        elif not isinstance(decision, int) or not 0 <= decision < len(candidates):
            raise ValueError(
                f"sample_categorical: decision {decision!r} is not an index into the "
                f"{len(candidates)} candidates"
            )
        rv = self._new_rv(ExprRV, self._func_name, candidates[decision])
        self._record("sample_categorical", kwargs={"candidates": candidates, "probs": probs,
                                                   "decision": decision}, outputs=[rv])
        return rv

    def sample_perfect_tile(self, loop, n: int, max_innermost_factor: int = 16,
                            decision=None) -> list:
        """``n`` factors whose product is the loop's (constant) extent, the innermost at most
        ``max_innermost_factor`` (or the factors given as ``decision``). A loop of symbolic
        extent gets ``[None, 1, ..., 1]`` (the first factor is the whole extent), as in TVM."""
        func_name, path = self._loop(loop, "sample_perfect_tile")
        extent = const_int(path[-1].extent)
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"sample_perfect_tile: n must be a positive int, got {n!r}")
        if extent is None:
            # As TVM: a loop of symbolic extent is tiled trivially, [None, 1, ..., 1] (the
            # decision -1 stands for "the rest of the extent").
            decision = [-1] + [1] * (n - 1)
            rvs = [self._new_rv(ExprRV, func_name, None)]
            rvs += [self._new_rv(ExprRV, func_name, 1) for _ in range(n - 1)]
            self._record("sample_perfect_tile",
                         kwargs={"loop": loop, "n": n,
                                 "max_innermost_factor": max_innermost_factor,
                                 "decision": decision}, outputs=rvs)
            return [None, *rvs[1:]]
        if decision is None:
            rng = self._random()
            inner_choices = [d for d in _divisors(extent) if d <= max(1, max_innermost_factor)]
            factors = [rng.choice(inner_choices)] if n > 1 else []
            rest = extent // factors[0] if factors else extent
            while len(factors) < n - 1:
                f = rng.choice(_divisors(rest))
                factors.append(f)
                rest //= f
            factors.append(rest)
            decision = factors[::-1]
        else:
            decision = [int(f) for f in decision]
            product = 1
            for f in decision:
                product *= f
            if len(decision) != n or product != extent or min(decision) < 1:
                raise ValueError(
                    f"sample_perfect_tile: decision {decision} must be {n} positive factors "
                    f"whose product is the extent {extent}"
                )
        rvs = [self._new_rv(ExprRV, func_name, f) for f in decision]
        self._record("sample_perfect_tile",
                     kwargs={"loop": loop, "n": n, "max_innermost_factor": max_innermost_factor,
                             "decision": list(decision)}, outputs=rvs)
        return rvs
