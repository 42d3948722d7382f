"""``annotate_buffer_access``: give a block an explicit read or write region of a buffer.

As TVM 0.27's ``AnnotateBufferAccess``: ``gen_new_ranges`` maps the block's iter vars to one
``(begin, end)`` pair (or a single index, ``(i, i + 1)``) per buffer dimension; the block's
``buffer_index``-th read (write) region becomes ``[begin, end)`` in each dimension and the
block is annotated ``explicit_read_region`` (``explicit_write_region``) with the list of
buffer indices so fixed. The trace records the map as an ``IndexMap`` from the iter vars to
the flattened pairs (TVM prints it back as the ``lambda`` it came from).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import PrimExpr
from ...tirx.expr_functor import ExprMutator
from ...tirx.generic import const
from ...tirx.index_map import IndexMap
from .base import SBlockRV
from .state import replace_stmts

__all__ = ["AnnotateAccessPrimitives"]


class _OnIterVars(ExprMutator):
    """A map's output over the block's iter vars, its integer constants retyped to theirs (a
    map parsed back from a trace indexes in ``int64``)."""

    def __init__(self, vmap, dtype):
        self.vmap, self.dtype = vmap, dtype

    def visit_var_(self, op):
        """The iter var in place of the map's input variable."""
        return self.vmap.get(op, op)

    def visit_int_imm_(self, op):
        """An index constant in the iter vars' dtype."""
        return const(op.value, self.dtype) if op.dtype.startswith("int") else op


class AnnotateAccessPrimitives:
    """Mixin: ``annotate_buffer_access``."""

    def annotate_buffer_access(self, block: SBlockRV | str, buffer_index: int, buf_type: str,
                               gen_new_ranges) -> None:
        """Set the block's region of one read or write buffer explicitly.

        Parameters
        ----------
        block : SBlockRV or str
            The block.
        buffer_index : int
            The position of the buffer in the block's reads (``buf_type="read"``) or writes.
        buf_type : str
            ``"read"`` or ``"write"``.
        gen_new_ranges : callable or IndexMap
            A function of the block's iter vars returning, per buffer dimension, a
            ``(begin, end)`` pair or a single index; or an ``IndexMap`` from the iter vars to
            the flattened pairs (as the trace records it).

        Raises
        ------
        ValueError
            If ``buf_type`` is neither ``"read"`` nor ``"write"``, or the ranges do not give
            one entry per iter var and buffer dimension.
        ScheduleError
            If ``buffer_index`` is out of range.
        TypeError
            If a range is neither an expression nor a pair.
        """
        prim = "annotate_buffer_access"
        if buf_type not in ("read", "write"):
            raise ValueError(f"Invalid buf_type: {buf_type}. Expected 'read' or 'write'.")
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        blk = path[-1].block
        field = "reads" if buf_type == "read" else "writes"
        regions = list(getattr(blk, field))
        if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(regions):
            raise self._error(
                prim, f"The {buf_type} buffer index {buffer_index} is out of range: block "
                f"{blk.name_hint!r} has {len(regions)} {field} buffers "
                f"({[r.buffer.name for r in regions]})", [blk])
        iter_vars = [iv.var for iv in blk.iter_vars]
        if isinstance(gen_new_ranges, IndexMap):
            index_map = gen_new_ranges
        else:
            spec = gen_new_ranges(*iter_vars)
            if len(iter_vars) != len(spec):
                raise ValueError(
                    f"Number of iter_vars ({len(iter_vars)}) must match number of "
                    f"new_ranges_spec ({len(spec)})")
            flat = []
            for rng in spec:
                if isinstance(rng, (tuple, list)):
                    if len(rng) != 2:
                        raise ValueError(
                            "Tuple must have exactly 2 elements to represent (begin, end).")
                    flat.extend(rng)
                elif isinstance(rng, (PrimExpr, int)):
                    flat.extend([rng, rng + 1])
                else:
                    raise TypeError(f"Expected Expr or tuple of Expr, got {type(rng)}")
            index_map = IndexMap(iter_vars, flat)
        ana = Analyzer()
        if all(a.dtype == b.dtype for a, b in zip(index_map.initial_indices, iter_vars)):
            bounds = index_map.map_indices(iter_vars)
        else:
            retype = _OnIterVars(dict(zip(index_map.initial_indices, iter_vars)),
                                 iter_vars[0].dtype)
            index_map = IndexMap(iter_vars, [retype.visit_expr(f)
                                             for f in index_map.final_indices])
            bounds = index_map.map_indices(iter_vars)
        if len(bounds) % 2 or len(bounds) // 2 != len(regions[buffer_index].buffer.shape):
            raise ValueError(
                f"{prim}: the ranges give {len(bounds) // 2} dimensions for buffer "
                f"{regions[buffer_index].buffer.name!r} of "
                f"{len(regions[buffer_index].buffer.shape)}")
        ranges = [Range.from_min_extent(bounds[i], ana.simplify(bounds[i + 1] - bounds[i]))
                  for i in range(0, len(bounds), 2)]
        regions[buffer_index] = regions[buffer_index].replace(region=tuple(ranges))
        key = f"explicit_{buf_type}_region"
        annotations = dict(blk.annotations)
        marked = [int(i) for i in annotations.get(key, [])]
        if buffer_index not in marked:
            marked.append(buffer_index)
        annotations[key] = marked
        new_blk = blk.replace(**{field: tuple(regions)}, annotations=annotations)
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(blk): new_blk}))
        self._record(prim, kwargs={"block": block, "buffer_index": buffer_index,
                                   "buf_type": buf_type, "gen_new_ranges": index_map})
