"""Modular facts about integer expressions: :class:`ModularSet` ``{coeff * k + base}``.

``modular_set(x * 4 + 2)`` is ``coeff=4, base=2``: the expression is always ``2`` modulo ``4``.
A constant ``c`` is ``coeff=0, base=c``; an unknown variable is ``coeff=1, base=0``. The facts
come from the expanded canonical sum: the coefficient is the gcd of the term coefficients
(each monomial of unknown atoms may be any integer), the base is the constant modulo it.

Examples
--------
>>> from tvm import tirx, arith
>>> x = tirx.Var("x")
>>> arith.Analyzer().modular_set(x * 8 + 6)
arith.ModularSet(coeff=8, base=6)
"""

from __future__ import annotations

import math

from ..ffi.node import Node

__all__ = ["ModularSet", "modular_set_of_sum"]


class ModularSet(Node, type_key="arith.ModularSet"):
    """The integers ``coeff * k + base`` for every integer ``k`` (``coeff == 0``: just base)."""

    coeff: int
    base: int

    def __init__(self, coeff, base):
        self.__init_fields__(int(coeff), int(base))

    def __repr__(self):
        return f"arith.ModularSet(coeff={self.coeff}, base={self.base})"

    __str__ = __repr__


def modular_set_of_sum(s) -> ModularSet:
    """The ModularSet of a canonical Sum (``tvm.arith.canonical.Sum``)."""
    coeff = 0
    for term_coeff, _ in s.terms.values():
        coeff = math.gcd(coeff, term_coeff)
    base = s.const % coeff if coeff else s.const
    return ModularSet(coeff, base)
