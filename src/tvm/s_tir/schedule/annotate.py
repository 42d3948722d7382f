"""Annotation primitives: ``annotate`` and ``unannotate`` on blocks and loops."""

from __future__ import annotations

from ...tirx.expr import FloatImm, IntImm, StringImm
from .base import ExprRV, SBlockRV
from .state import replace_stmts

__all__ = ["AnnotatePrimitives"]


def _ann_value(sch, value):
    # Annotation values are stored as IR values, as in TVM (ints/floats/strings/lists).
    if isinstance(value, ExprRV):
        value = sch.get(value)
    if isinstance(value, (list, tuple)):
        return tuple(_ann_value(sch, v) for v in value)
    if isinstance(value, dict):
        return {k: _ann_value(sch, v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, str, IntImm, FloatImm, StringImm)):
        return value
    raise TypeError(f"annotate: unsupported annotation value {value!r}")


class AnnotatePrimitives:
    """Mixin: attach and remove annotations."""

    def _annotated(self, block_or_loop, primitive):
        if isinstance(block_or_loop, SBlockRV):
            func_name, path = self._block(block_or_loop, primitive)
            return func_name, path[-1].block
        func_name, path = self._loop(block_or_loop, primitive)
        return func_name, path[-1]

    def annotate(self, block_or_loop, ann_key: str, ann_val) -> None:
        """Set annotation ``ann_key`` of a block (``T.sblock_attr``) or loop to ``ann_val``."""
        if not isinstance(ann_key, str):
            raise TypeError(f"annotate: ann_key must be a str, got {type(ann_key).__name__}")
        func_name, node = self._annotated(block_or_loop, "annotate")
        anns = dict(node.annotations or {})
        anns[ann_key] = _ann_value(self, ann_val)
        new = node.replace(annotations=anns)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(node): new}))
        self._record("annotate", kwargs={"block_or_loop": block_or_loop, "ann_key": ann_key,
                                         "ann_val": ann_val})

    def unannotate(self, block_or_loop, ann_key: str) -> None:
        """Remove annotation ``ann_key`` of a block or loop (it must be present)."""
        func_name, node = self._annotated(block_or_loop, "unannotate")
        anns = dict(node.annotations or {})
        if ann_key not in anns:
            raise self._error(
                "unannotate", f"The annotation {ann_key!r} is not present; annotations are: "
                f"{sorted(anns)}", [node])
        del anns[ann_key]
        new = node.replace(annotations=anns)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(node): new}))
        self._record("unannotate", kwargs={"block_or_loop": block_or_loop, "ann_key": ann_key})
