"""``relax.transform.Normalize``: bring every Relax function into normal form."""

from __future__ import annotations

from ...ir.transform import PassInfo, register_named_pass
from .pass_executors import FunctionPass

__all__ = ["Normalize"]


def Normalize() -> FunctionPass:
    """Normalize each Relax function with a ``BlockBuilder``.

    Requires: nothing. Guarantees: the normal form of ``docs/arch/relax_ir.md`` (ANF, every
    expression typed, SeqExpr bodies). Functions already in normal form are kept as the same
    objects. A call whose type cannot be inferred raises the op's error (e.g. matmul with
    mismatched reduction lengths raises ``ValueError``).

    Before (built by hand, call types missing)::

        lv = R.add(R.add(x, x), x)

    After::

        lv1 = R.add(x, x)
        lv = R.add(lv1, x)
    """

    def _normalize(func, mod, ctx):
        # Lazy: the builder imports the op library, which is not needed to declare passes.
        from ..block_builder import BlockBuilder

        return BlockBuilder(mod).normalize(func)

    return FunctionPass(_normalize, PassInfo(1, "Normalize"))


register_named_pass("Normalize", Normalize)
