"""A pass instrument that checks every PrimFunc is well-formed after each pass.

:class:`WellFormedInstrument` is given to a ``PassContext``; after each pass (a ``Sequential``
too, which re-checks its last inner pass's result: harmless) it runs, on every PrimFunc of the
result, :func:`~tvm.tirx.analysis.verify_well_formed` while the function still holds SBlocks
and :func:`~tvm.tirx.analysis.verify_tirx_well_formed` once they are gone. The first failure
raises ``ValueError`` naming the pass and the function.

Examples
--------
>>> import tvm
>>> from tvm import te
>>> from tvm.tirx.instrument import WellFormedInstrument
>>> A = te.placeholder((4,), "float32", name="A")
>>> B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
>>> mod = tvm.IRModule({"main": te.create_prim_func([A, B])})
>>> checker = WellFormedInstrument()
>>> with tvm.transform.PassContext(instruments=[checker]):
...     _ = tvm.tirx.compilation_pipeline.get_tir_pipeline("default")(None)(mod)
>>> checker.checked[:3]
['s_tir.LowerInitBlock', 's_tir.ConvertBlocksToOpaque', 's_tir.LowerOpaqueBlock']
"""

from __future__ import annotations

from ..ir.instrument import PassInstrument
from .analysis import verify_tirx_well_formed, verify_well_formed
from .function import PrimFunc
from .stmt import SBlock, SBlockRealize
from .stmt_functor import post_order_visit

__all__ = ["WellFormedInstrument", "has_sblock", "verify_after_pass"]


def has_sblock(func: PrimFunc) -> bool:
    """Whether ``func``'s body still contains an ``SBlock`` or ``SBlockRealize``."""
    found = []

    def visit(node):
        if isinstance(node, (SBlock, SBlockRealize)):
            found.append(node)

    post_order_visit(func.body, visit)
    return bool(found)


def verify_after_pass(mod, pass_name: str = "<pass>") -> None:
    """Check every PrimFunc of ``mod`` with the verifier that fits it (see module docstring).

    Raises
    ------
    ValueError
        The first ill-formed function, with the pass name, function name and the verifier's
        message.
    """
    for gvar, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            continue
        verify = verify_well_formed if has_sblock(func) else verify_tirx_well_formed
        try:
            verify(func)
        except ValueError as err:
            raise ValueError(
                f"after pass {pass_name}: function {gvar.name_hint} is ill-formed "
                f"({verify.__name__}): {err}"
            ) from None


class WellFormedInstrument(PassInstrument):
    """Check well-formedness after every pass; ``checked`` lists the passes checked."""

    def __init__(self):
        self.checked: list = []

    def run_after_pass(self, mod, info):
        """Verify ``mod``, the result of the pass described by ``info``."""
        verify_after_pass(mod, info.name)
        self.checked.append(info.name)

