"""Source locations shared by every IR: ``SourceName`` and ``Span``."""

from __future__ import annotations

from ..ffi.node import Node
from .json_graph import load_json, save_json
from .structural import assert_structural_equal

__all__ = [
    "Node",
    "Scriptable",
    "SequentialSpan",
    "SourceName",
    "Span",
    "assert_structural_equal",
    "load_json",
    "save_json",
]


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


class SequentialSpan(Node, type_key="ir.SequentialSpan"):
    """The locations of an expression that several source expressions produced together.

    For example a call written inside an inlined helper: the span of the call site and the
    span inside the helper. ``spans`` lists them outermost first.
    """

    spans: tuple

    def __init__(self, spans):
        spans = tuple(spans)
        for i, span in enumerate(spans):
            if not isinstance(span, Span):
                raise TypeError(
                    f"SequentialSpan: spans[{i}] must be a Span, got {type(span).__name__}"
                )
        self.__init_fields__(spans)


class Scriptable:
    """Mixin giving IR objects ``script()``, ``show()`` and a TVMScript ``str()``.

    The printer lives in the higher ``tvm.script`` layer; these methods import it lazily (the
    documented exception to the layer rule), so the IR layers never import it at module level.
    """

    __slots__ = ()

    def script(self, *, name=None, show_meta=False, ir_prefix="I", module_alias="cls",
               int_dtype="int32", float_dtype="void", verbose_expr=False, indent_spaces=4,
               print_line_numbers=False, num_context_lines=-1, syntax_sugar=True,
               show_object_address=False, show_all_ty=True, extra_config=None,
               path_to_underline=None, path_to_annotate=None, obj_to_underline=None,
               obj_to_annotate=None) -> str:
        """Print this object as TVMScript (options as in Apache TVM 0.27)."""
        # Lazy: the printer is in the ``script`` layer above every IR layer.
        from tvm.script.printer import script as _script

        return _script(
            self, name=name, show_meta=show_meta, ir_prefix=ir_prefix,
            module_alias=module_alias, int_dtype=int_dtype, float_dtype=float_dtype,
            verbose_expr=verbose_expr, indent_spaces=indent_spaces,
            print_line_numbers=print_line_numbers, num_context_lines=num_context_lines,
            syntax_sugar=syntax_sugar, show_object_address=show_object_address,
            show_all_ty=show_all_ty, extra_config=extra_config,
            path_to_underline=path_to_underline, path_to_annotate=path_to_annotate,
            obj_to_underline=obj_to_underline, obj_to_annotate=obj_to_annotate,
        )

    def _relax_script(self, **kwargs) -> str:
        """Print with Relax as the preferred dialect: as ``script``, except that an object
        both dialects print (a tuple of scalar types alone) prints as Relax's ``R.Tuple``."""
        # Lazy: the printer is in the ``script`` layer above every IR layer.
        from tvm.script.printer import PREFER_RELAX

        extra = dict(kwargs.pop("extra_config", None) or {})
        extra[PREFER_RELAX] = True
        return self.script(extra_config=extra, **kwargs)

    def show(self, style=None, black_format=False, **kwargs) -> None:
        """Print the TVMScript text to stdout, coloured on a terminal (``style``: ``"light"``,
        ``"dark"``, ``"ansi"`` or a Pygments style; see :func:`tvm.script.highlight.cprint`)."""
        # Lazy: tvm.script sits above tvm.ir (as for script() above).
        from tvm.script.highlight import cprint

        cprint(self.script(**kwargs), style=style, black_format=black_format)

    def __str__(self):
        try:
            return self.script()
        except ImportError:
            return repr(self)
