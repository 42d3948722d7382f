"""Lookup primitives: ``get_sblock``, ``get_loops``, ``get_child_blocks``, producers/consumers."""

from __future__ import annotations

from ...tirx.stmt import For, SBlock, SBlockRealize
from .base import LoopRV, SBlockRV
from .state import children, iter_blocks

__all__ = ["LookupPrimitives", "block_loops", "consumers", "producers", "scope_blocks"]


def block_loops(path):
    """The ``For`` ancestors of a block (``path`` ends at its realize), outermost first, up to
    the enclosing block."""
    loops = []
    for node in reversed(path[:-1]):
        if isinstance(node, SBlock):
            break
        if isinstance(node, For):
            loops.append(node)
    return loops[::-1]


def enclosing_block(path):
    """The nearest ``SBlock`` strictly above the node ``path`` ends at."""
    for node in reversed(path[:-1]):
        if isinstance(node, SBlock):
            return node
    return None


def child_realizes(stmt):
    """Block realizes under ``stmt`` that are not nested inside another block."""
    out = []
    stack = [c for c in reversed(children(stmt))] if isinstance(stmt, SBlock) else [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, SBlockRealize):
            out.append(node)
            continue
        stack.extend(reversed(children(node)))
    return out


def scope_blocks(func_body, path):
    """Realizes of the blocks that share the scope (enclosing block) of ``path``'s block."""
    return child_realizes(enclosing_block(path))


def _buffers(regions):
    return {id(r.buffer) for r in regions}


def producers(func_body, path):
    """Blocks of the same scope, before this one, writing a buffer this block reads."""
    me = path[-1]
    reads = _buffers(me.block.reads)
    return [r for r in scope_blocks(func_body, path)
            if r is not me and _buffers(r.block.writes) & reads]


def consumers(func_body, path):
    """Blocks of the same scope reading a buffer this block writes."""
    me = path[-1]
    writes = _buffers(me.block.writes)
    return [r for r in scope_blocks(func_body, path)
            if r is not me and _buffers(r.block.reads) & writes]


class LookupPrimitives:
    """Mixin: handles from names and from the IR's structure."""

    def get_sblock(self, name: str, func_name: str | None = None) -> SBlockRV:
        """The block called ``name`` in ``func_name`` (default: the function worked on).

        Raises ``ScheduleError`` when no block (or more than one) has that name; the message
        lists the block names of the function.
        """
        if func_name is None:
            func_name = self._func_name
            if func_name is None:
                raise ValueError(
                    "get_sblock: the module has several functions; pass func_name= or call "
                    "work_on(func_name) first"
                )
        func = self._prim_func(func_name, "get_sblock")
        found = [r for r, _ in iter_blocks(func.body) if r.block.name_hint == name]
        if len(found) != 1:
            names = self._block_names(func_name)
            what = "Cannot find a block with the name" if not found else (
                f"Found {len(found)} blocks with the name")
            raise self._error(
                "get-block",
                f"{what}: {name}. Blocks of function {func_name!r} are: {names}",
                found,
            )
        rv = self._new_rv(SBlockRV, func_name, name)
        self._record("get_sblock", kwargs={"name": name, "func_name": func_name}, outputs=[rv])
        return rv

    def get_loops(self, block: SBlockRV | str) -> list:
        """The loops above ``block``, outermost first."""
        block = self._as_block(block)
        func_name, path = self._block(block, "get_loops")
        rvs = [self._new_rv(LoopRV, func_name, loop.loop_var) for loop in block_loops(path)]
        self._record("get_loops", kwargs={"block": block}, outputs=rvs)
        return rvs

    def get_child_blocks(self, block_or_loop) -> list:
        """The blocks directly under a block or loop (not nested in another block)."""
        if isinstance(block_or_loop, SBlockRV):
            func_name, path = self._block(block_or_loop, "get_child_blocks")
            stmt = path[-1].block
        else:
            func_name, path = self._loop(block_or_loop, "get_child_blocks")
            stmt = path[-1]
        rvs = [self._new_rv(SBlockRV, func_name, r.block.name_hint)
               for r in child_realizes(stmt)]
        self._record("get_child_blocks", args=[block_or_loop], outputs=rvs)
        return rvs

    def _related(self, block, primitive, which):
        """RVs of the blocks ``which(body, path)`` finds for ``block``; records ``primitive``."""
        block = self._as_block(block)
        func_name, path = self._block(block, primitive)
        found = which(self.mod[func_name].body, path)
        rvs = [self._new_rv(SBlockRV, func_name, r.block.name_hint) for r in found]
        self._record(primitive, kwargs={"block": block}, outputs=rvs)
        return rvs

    def get_producers(self, block: SBlockRV | str) -> list:
        """Blocks of the same scope that write a buffer ``block`` reads."""
        return self._related(block, "get_producers", producers)

    def get_consumers(self, block: SBlockRV | str) -> list:
        """Blocks of the same scope that read a buffer ``block`` writes."""
        return self._related(block, "get_consumers", consumers)

    def get_output_blocks(self, scope_block: SBlockRV = None, *, block=None) -> list:
        """Blocks under ``scope_block`` that write a buffer of the function's parameters.

        ``block=`` is the keyword TVM's traces print for ``scope_block``.
        """
        scope_block = self._as_block(block if scope_block is None else scope_block)
        func_name, path = self._block(scope_block, "get_output_blocks")
        params = {id(b) for b in self.mod[func_name].buffer_map.values()}
        found = [r for r in child_realizes(path[-1].block)
                 if _buffers(r.block.writes) & params]
        rvs = [self._new_rv(SBlockRV, func_name, r.block.name_hint) for r in found]
        self._record("get_output_blocks", kwargs={"block": scope_block}, outputs=rvs)
        return rvs
