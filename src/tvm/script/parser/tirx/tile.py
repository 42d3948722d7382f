"""``from tvm.script.tirx import tile as Tx``: the TIRx tile-primitive namespace.

The tile primitives (``Tx.copy``, ``Tx.fill``, ``Tx.gemm_async``, the scope prefixes
``Tx.cta``/``Tx.warp``...) and their dispatch (spec D.4) are not supported yet: every name
here raises ``AttributeError`` saying so. The module exists so that scripts importing it
load, and so that the tile-primitive work has one place to add them.
"""

from __future__ import annotations

__all__: list = []


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        f"Tx.{name} is not supported yet: the TIRx tile primitives (spec D.4) are not "
        "implemented in this version"
    )
