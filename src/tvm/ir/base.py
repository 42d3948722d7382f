"""Source locations shared by every IR: ``SourceName`` and ``Span``."""

from __future__ import annotations

from ..ffi.node import Node

__all__ = ["SourceName", "Span", "Node"]


class SourceName(Node, type_key="ir.SourceName"):
    """The name of a source file (or ``"<str>"`` for a string)."""

    name: str


class Span(Node, type_key="ir.Span"):
    """A region of source text: 1-based lines and columns, end column exclusive."""

    source_name: SourceName
    line: int
    end_line: int
    column: int
    end_column: int
