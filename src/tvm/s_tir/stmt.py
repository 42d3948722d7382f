"""s_tir statements: ``SBlock``, ``SBlockRealize`` and ``MatchBufferRegion``.

The classes are declared in :mod:`tvm.tirx.stmt` (with the ``s_tir.*`` type keys) so that the
lower ``tirx`` layer's functors and verifiers can name them; this module is their public home.
"""

from ..tirx.stmt import MatchBufferRegion, SBlock, SBlockRealize

__all__ = ["MatchBufferRegion", "SBlock", "SBlockRealize"]
