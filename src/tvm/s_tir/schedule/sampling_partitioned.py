"""``sample_partitioned_tile``: perfect tile factors whose inner part is a multiple of a factor.

As TVM 0.27's ``SamplePartitionedTile``: ``n`` factors whose product is the loop's constant
extent, such that the product of the factors from ``partition_pos`` on is a multiple of
``innerpart_factor``. A loop of symbolic extent, or one whose extent ``innerpart_factor`` does
not divide, gets the trivial tiling ``[None, 1, ..., 1]`` (decision ``[-1, 1, ..., 1]``). A
given decision whose inner part is not a multiple falls back to
``[extent // innerpart_factor, 1, ..., innerpart_factor (at partition_pos), ..., 1]``; one that
no longer divides the extent is made perfect again from the innermost factor outwards. The
random stream is the schedule's own (not TVM's generator).
"""

from __future__ import annotations

from .base import ExprRV
from .state import const_int

__all__ = ["PartitionedTileSampling"]


def _random_perfect_tile(rng, extent, n):
    """``n`` factors of ``extent`` drawn uniformly among the divisors, innermost first."""
    factors, rest = [], extent
    for _ in range(n - 1):
        f = rng.choice([d for d in range(1, rest + 1) if rest % d == 0])
        factors.append(f)
        rest //= f
    factors.append(rest)
    return factors[::-1]


def _product(values):
    out = 1
    for v in values:
        out *= v
    return out


class PartitionedTileSampling:
    """Mixin: ``sample_partitioned_tile``."""

    def sample_partitioned_tile(self, loop, n: int, partition_pos: int = 0,
                                innerpart_factor: int = 1, decision=None) -> list:
        """Sample ``n`` perfect tile factors of ``loop`` with a divisible inner part.

        Parameters
        ----------
        loop : LoopRV
            The loop to tile.
        n : int
            The number of factors.
        partition_pos : int
            Where the inner part starts: the product of the factors from this position on is
            a multiple of ``innerpart_factor``.
        innerpart_factor : int
            The factor the inner part must be a multiple of.
        decision : list of int, optional
            Factors to use instead of sampling (adjusted as TVM does, see the module
            docstring).

        Returns
        -------
        list of ExprRV
            The ``n`` factors (the first is ``None`` for the trivial tiling of a symbolic or
            non-divisible extent, as ``sample_perfect_tile`` returns it).

        Raises
        ------
        ValueError
            If ``n`` is below 2 (when partitioning), ``partition_pos`` is outside
            ``[0, n)`` or ``innerpart_factor`` is not positive.
        """
        prim = "sample_partitioned_tile"
        func_name, path = self._loop(loop, prim)
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"{prim}: n must be a positive int, got {n!r}")
        if not isinstance(innerpart_factor, int) or innerpart_factor < 1:
            raise ValueError(f"{prim}: innerpart_factor must be a positive int, got "
                             f"{innerpart_factor!r}")
        if not isinstance(partition_pos, int) or not 0 <= partition_pos < n:
            raise ValueError(f"{prim}: partition_pos must be in [0, {n}), got {partition_pos!r}")
        extent = const_int(path[-1].extent)
        if extent is None or extent % innerpart_factor != 0:
            result = [-1] + [1] * (n - 1)
        elif decision is not None:
            result = [int(f) for f in decision]
            if len(result) != n or min(result) < 1:
                raise ValueError(f"{prim}: decision {result} must be {n} positive factors")
            if _product(result[partition_pos:]) % innerpart_factor != 0:
                result = [1] * n
                result[0] = extent // innerpart_factor
                result[partition_pos] = innerpart_factor
            else:
                rest = extent
                for i in range(n - 1, 0, -1):
                    if rest % result[i] != 0:
                        result[i] = rest
                    rest //= result[i]
                result[0] = rest
        else:
            if (partition_pos != 0 or innerpart_factor != 1) and n < 2:
                raise ValueError(f"{prim}: Cannot tile a loop into {n} splits")
            rng = self._random()
            while True:
                result = _random_perfect_tile(rng, extent, n)
                if _product(result[partition_pos:]) % innerpart_factor == 0:
                    break
        values = [None if f == -1 else f for f in result]
        rvs = [self._new_rv(ExprRV, func_name, v) for v in values]
        self._record(prim, kwargs={"loop": loop, "n": n, "partition_pos": partition_pos,
                                   "innerpart_factor": innerpart_factor,
                                   "decision": list(result)}, outputs=rvs)
        return [None, *rvs[1:]] if result[0] == -1 else rvs
