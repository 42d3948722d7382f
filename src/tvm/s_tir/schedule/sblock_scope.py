"""Dependencies among the child blocks of a block: ``SBlockScope``, ``Dependency``, ``DepKind``.

For two child blocks ``a`` before ``b`` (program order) and a buffer they share: ``a`` writes
what ``b`` reads is ``RAW``, both write it ``WAW``, ``a`` reads what ``b`` writes ``WAR``.
"""

from __future__ import annotations

import enum

from .lookup import child_realizes
from .state import StmtSRef

__all__ = ["DepKind", "Dependency", "SBlockScope"]


class DepKind(enum.IntEnum):
    """The kind of a dependency between two blocks."""

    RAW = 0
    WAW = 1
    WAR = 2
    OPAQUE = 3


class Dependency:
    """``dst`` depends on ``src`` (both ``StmtSRef`` of blocks) with ``kind``."""

    def __init__(self, src, dst, kind):
        self.src = src
        self.dst = dst
        self.kind = DepKind(kind)

    def __repr__(self):
        return (f"Dependency({self.src.stmt.name_hint} -> {self.dst.stmt.name_hint}, "
                f"{self.kind.name})")


def _buffers(regions):
    return {id(r.buffer) for r in regions}


class SBlockScope:
    """The dependencies among the blocks directly under a scope block."""

    def __init__(self, scope_block):
        blocks = [r.block for r in child_realizes(scope_block)]
        parent = StmtSRef(scope_block)
        srefs = [StmtSRef(b, parent) for b in blocks]
        self._deps = []
        for i, a in enumerate(blocks):
            for j in range(i + 1, len(blocks)):
                b = blocks[j]
                kinds = []
                if _buffers(a.writes) & _buffers(b.reads):
                    kinds.append(DepKind.RAW)
                if _buffers(a.writes) & _buffers(b.writes):
                    kinds.append(DepKind.WAW)
                if _buffers(a.reads) & _buffers(b.writes):
                    kinds.append(DepKind.WAR)
                self._deps += [Dependency(srefs[i], srefs[j], k) for k in kinds]

    def get_deps_by_src(self, block) -> list:
        """Dependencies whose source is ``block`` (a ``StmtSRef``)."""
        return [d for d in self._deps if d.src == block]

    def get_deps_by_dst(self, block) -> list:
        """Dependencies whose destination is ``block`` (a ``StmtSRef``)."""
        return [d for d in self._deps if d.dst == block]
