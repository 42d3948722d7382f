"""The TVMScript printer: IR -> doc tree -> text, in Apache TVM 0.27's format.

``obj.script(**options)`` on any IR object (``IRModule``, Relax function or expression, type,
PrimExpr) calls :func:`script`. The pipeline:

1. docsifiers (``ir_printer``, ``relax_printer``, ``tirx_printer``; one file per dialect,
   registered with :func:`register_printer`) turn the IR into a doc tree
   (:mod:`~tvm.script.printer.doc`), each doc recording the access paths it renders;
2. :mod:`~tvm.script.printer.doc_printer` renders the docs as text, recording the spans of
   the docs to underline;
3. underlines, ``Access path:`` headers, line numbers and context trimming are added.

Limitations: TIRx kernel constructs of spec D.3 (scope ids, layouts, tile primitives) have
no docsifier yet (printing one raises a ``TypeError`` naming the class); ``show_meta=True``
writes the metadata section as TVMScript (``metadata = {"key": [R.const(...)]}``) rather than
TVM's ``tvm.ir.load_json`` blob.
"""

from __future__ import annotations

import gc

import numpy as np
from tvm_ffi import Shape

from ...support.recursion import deep_recursion
from . import ir_printer as _ir_printer  # noqa: F401 - registers docsifiers
from . import relax_printer as _relax_printer  # noqa: F401 - registers docsifiers
from . import tirx_gpu_printer as _tirx_gpu_printer  # noqa: F401 - CommReducer docsifier
from . import tirx_printer as _tirx_printer  # noqa: F401 - registers docsifiers
from . import tirx_stmt_printer as _tirx_stmt_printer  # noqa: F401 - registers docsifiers
from . import tirx_tile_printer as _tirx_tile_printer  # noqa: F401 - registers docsifiers
from .doc import ClassDoc, ExprDoc, ExprStmtDoc, FunctionDoc, StmtBlockDoc
from .doc_printer import DocPrinter, decorate_lines
from .ir_docsifier import (
    ROOT,
    IRDocsifier,
    PrinterConfig,
    attr_path,
    item_path,
    path_steps,
    register_printer,
)
from .relax_printer import register_call_printer
from .underline import annotate_paths, format_path_text, match_paths, to_steps

__all__ = ["PrinterConfig", "register_call_printer", "register_printer", "script"]

# Relax IR fragments that print as statements after declarations of their free variables.
_FRAGMENT_ROOTS = {"VarBinding", "MatchCast", "BindingBlock", "DataflowBlock", "SeqExpr"}
_METADATA_OMITTED = "# Metadata omitted. Use show_meta=True in script() method to show it."


#: ``extra_config`` key of :func:`tvm.runtime.script_printer._relax_script`: an object both
#: dialects print (a tuple of scalar types) prints as Relax's ``R.Tuple(...)``.
PREFER_RELAX = "pytvm.prefer_relax"


class PrinterConfigError(ValueError, RuntimeError):
    """An invalid ``script()`` option: a ``ValueError``, and a ``RuntimeError`` as Apache TVM
    raises it (its printer reports the failed check as an ``InternalError``)."""


def _check_identifier(option: str, value) -> None:
    if not isinstance(value, str) or not value.isidentifier():
        raise PrinterConfigError(
            f"Invalid `{option}`: {value} (the printed script uses it as a Python name, so it "
            "must be an identifier)")


def script(obj, name=None, show_meta=False, ir_prefix="I", module_alias="cls",
           int_dtype="int32", float_dtype="void", verbose_expr=False, indent_spaces=4,
           print_line_numbers=False, num_context_lines=-1, syntax_sugar=True,
           show_object_address=False, show_all_ty=True, extra_config=None,
           path_to_underline=None, path_to_annotate=None, obj_to_underline=None,
           obj_to_annotate=None, show_all_struct_info=None) -> str:
    """Print an IR object as TVMScript.

    Parameters are Apache TVM 0.27's ``script()`` options. The ones with an effect here:
    ``name`` (module or function name), ``show_meta``, ``ir_prefix``, ``module_alias``,
    ``int_dtype``, ``float_dtype``, ``indent_spaces``, ``print_line_numbers``,
    ``num_context_lines`` (lines kept around underlines; -1 keeps all), ``extra_config``
    (``{"render_invisible_path_info": bool}``, default True: print ``Access path:`` headers),
    ``path_to_underline`` (``tvm_ffi.access_path.AccessPath`` objects or internal linked
    paths), ``obj_to_underline`` (IR objects, underlined where first referenced),
    ``path_to_annotate`` / ``obj_to_annotate`` (``{path or obj: comment}``, appended to the
    enclosing statement), ``show_all_ty`` (False: no type annotations on Relax bindings).
    ``verbose_expr``, ``syntax_sugar`` and ``show_object_address`` are accepted and have no
    effect yet.

    Examples
    --------
    >>> from tvm import tirx
    >>> n = tirx.Var("n", "int64")
    >>> script(n * 2)
    'n * T.int64(2)'
    """
    _check_identifier("ir_prefix", ir_prefix)
    if module_alias:
        _check_identifier("module_alias", module_alias)
    extra = dict(extra_config or {})
    tirx_prefix = extra.pop("tirx.prefix", "T")  # TIRx prints under T (0.27's default)
    # ``_relax_script``'s preference: objects shared by the dialects print as Relax's.
    prefer_relax = bool(extra.pop(PREFER_RELAX, False))
    if tirx_prefix != "T":
        raise ValueError(f"extra_config tirx.prefix={tirx_prefix!r} is not supported yet: "
                         "TIRx prints with the prefix 'T'")
    cfg = PrinterConfig(
        name=name, show_meta=show_meta, ir_prefix=ir_prefix, module_alias=module_alias,
        int_dtype=int_dtype, float_dtype=float_dtype, verbose_expr=verbose_expr,
        indent_spaces=indent_spaces, print_line_numbers=print_line_numbers,
        num_context_lines=num_context_lines, syntax_sugar=syntax_sugar,
        show_object_address=show_object_address,
        show_all_ty=show_all_ty if show_all_struct_info is None else show_all_struct_info,
        render_invisible_path_info=bool(extra.pop("render_invisible_path_info", True)),
        path_to_underline=list(path_to_underline or []),
        path_to_annotate=dict(path_to_annotate or {}),
        obj_to_underline=list(obj_to_underline or []),
        obj_to_annotate=dict(obj_to_annotate or {}),
    )
    if extra:
        raise ValueError(f"unknown extra_config keys for the TVMScript printer: {sorted(extra)}")
    # The doc tree is many small acyclic objects: pausing the cyclic GC while building and
    # printing it avoids repeated full collections over the whole IR (about 2x faster).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with deep_recursion("printing TVMScript"):
            return _script(obj, cfg, prefer_relax)
    finally:
        if gc_was_enabled:
            gc.enable()


def _script(obj, cfg: PrinterConfig, prefer_relax: bool = False) -> str:
    d = IRDocsifier(cfg)
    free_vars = None
    if type(obj).__name__ in _FRAGMENT_ROOTS:
        # A binding, block or sequence printed alone first declares the variables it uses
        # but does not define: ``x: R.Tensor((3,), dtype="float32")``.
        # Free TIR variables of their types come first (``x = T.int64()``), as in TVM.
        d.state["free_var_decls"] = free_vars = d.open_declarations()
    elif _is_tir_stmt(obj):
        # A TIR statement printed alone declares its free variables and buffers first.
        free_vars = d.open_declarations()
    elif cfg.verbose_expr and not _declares_own_vars(obj):
        # ``verbose_expr``: an expression or type printed alone declares its free variables
        # first (``a = T.int64()``, ``x: R.Tensor((a,), dtype="float32")``), as in TVM.
        free_vars = d.open_declarations()
        d.state["free_var_decls"] = free_vars
    doc = None if prefer_relax else _lone_root_doc(obj, d)
    if doc is None:
        doc = d.as_doc(obj, ROOT)
    if free_vars:
        if isinstance(doc, ExprDoc):
            doc = ExprStmtDoc(doc)
        doc = StmtBlockDoc(free_vars + (doc.stmts if isinstance(doc, StmtBlockDoc) else [doc]))

    # Underline targets: requested paths plus the paths where requested objects appear.
    requests = [(to_steps(p), format_path_text(p)) for p in cfg.path_to_underline]
    for target in cfg.obj_to_underline:
        path = d.obj_paths.get(id(target))
        if path is not None:
            requests.append((path_steps(path), format_path_text(path)))
    annotations = [(to_steps(p), text) for p, text in cfg.path_to_annotate.items()]
    for target, text in cfg.obj_to_annotate.items():
        path = d.obj_paths.get(id(target))
        if path is not None:
            annotations.append((path_steps(path), text))

    marked, notes = match_paths(doc, [steps for steps, _ in requests])
    if annotations:
        annotate_paths(doc, annotations)

    printer = DocPrinter(cfg.indent_spaces, marked)
    if isinstance(doc, (FunctionDoc, ClassDoc)):
        # Only functions and modules get the import header (as in TVM).
        header = _import_header(d)
        if header:
            printer.write("\n".join(header) + "\n\n")
        top = [_type_var_decl(n) for n in d.type_vars]
        printer.print_doc(StmtBlockDoc(top + [doc]) if top else doc)
    else:
        printer.print_doc(doc)
    if d.metadata and not cfg.show_meta:
        # As in TVM, the note is one more statement: a blank line follows a function or class.
        sep = "\n\n" if isinstance(doc, (FunctionDoc, ClassDoc)) else "\n"
        printer.write(sep + _METADATA_OMITTED)
    text = printer.text()
    if d.metadata and cfg.show_meta:
        # As in TVM, the metadata section comes first, so ``metadata`` is defined when read.
        text = _metadata_text(d) + "\n" + text

    spans = [span for key in marked for span in printer.spans.get(key, ())]
    body = text
    if spans or cfg.print_line_numbers:
        body = decorate_lines(text, spans, cfg.num_context_lines, cfg.print_line_numbers,
                              printer.exempt, printer.soft_breaks)
    if requests and cfg.render_invisible_path_info:
        lines = []
        for (_, shown), note in zip(requests, notes):
            lines.append(f"Access path: {shown}")
            if note:
                lines.append(note)
        return "\n".join(lines) + "\n\n" + body
    return body


def _lone_root_doc(obj, d):
    """The doc of an object that prints differently alone than inside a function, or None.

    As TVM 0.27 outside any function: a tuple of scalar types is TIR's ``ir.TupleType``
    (``T.Tuple(T.float32, T.int32)``); pytvm's Relax tuples share the class, so a tuple with a
    tensor, shape or other non-scalar field (or none) keeps ``R.Tuple``, as Relax's
    ``TupleStructInfo`` prints. A ``Range`` is ``I.Range(begin, end)`` (``range(begin, end)``
    inside TIR).
    """
    kind = type(obj).__name__
    if isinstance(obj, Shape):
        # A runtime value, not IR: no access path reaches into it (an underline request
        # gets TVM's "No visible object" note).
        return d.as_doc(obj, None)
    if kind == "TupleType" and _scalar_tuple(obj):
        fields = [d.as_doc(f, item_path(attr_path(ROOT, "fields"), i))
                  for i, f in enumerate(obj.fields)]
        doc = d.prefix("T").attr("Tuple").call(*fields)
    elif kind == "Range":
        end = _range_end(obj)
        doc = d.prefix("I").attr("Range").call(d.as_doc(obj.min, attr_path(ROOT, "min")),
                                               d.as_doc(end, None))
    else:
        return None
    doc.source_paths.append(ROOT)
    return doc


def _scalar_tuple(ty) -> bool:
    from ...ir.type import PrimType, TupleType  # local: keeps the printer's import list short

    return bool(ty.fields) and all(
        isinstance(f, PrimType) or (isinstance(f, TupleType) and _scalar_tuple(f))
        for f in ty.fields)


def _range_end(rng):
    from ...tirx import IntImm  # local: keeps the printer's import list short

    if isinstance(rng.min, IntImm) and isinstance(rng.extent, IntImm):
        return IntImm(rng.min.dtype, rng.min.value + rng.extent.value)
    return rng.min + rng.extent


def _declares_own_vars(obj) -> bool:
    """Modules and functions print their own parameter and variable declarations."""
    return type(obj).__name__ in ("IRModule", "Function", "PrimFunc", "ExternFunc")


def _is_tir_stmt(obj) -> bool:
    from ...tirx.stmt import Stmt  # local: keeps the printer's import list short

    return isinstance(obj, Stmt)


# --- header and metadata ------------------------------------------------------------------------


def _import_header(d) -> list:
    lines = []
    if d.type_vars:
        lines.append("# from typing import TypeVar")
    if "I" in d.prefixes:
        lines.append(f"# from tvm.script import ir as {d.cfg.ir_prefix}")
    if "T" in d.prefixes:
        lines.append(f"# from tvm.script import tirx as {d.cfg.tir_prefix}")
        lines.append("# from tvm.tirx.layout import Axis")
    if "R" in d.prefixes:
        lines.append(f"# from tvm.script import relax as {d.cfg.relax_prefix}")
    return lines


def _type_var_decl(name):
    from .doc import AssignDoc, IdDoc, LiteralDoc

    return AssignDoc(IdDoc(name), IdDoc("TypeVar").call(LiteralDoc(name)))


def _metadata_text(d) -> str:
    """``metadata = {"key": [R.const(...), ...]}``: the values of ``metadata[...]`` references.

    Apache TVM 0.27 writes ``metadata = tvm.ir.load_json("<JSON>")`` before the script (its
    own printer crashes on it); the JSON graph format is not implemented here, so each value is
    written as the TVMScript that builds it, which the parser reads back (a round trip gives a
    structurally equal module).
    """
    lines = ["metadata = {"]
    for key, items in d.metadata.items():
        lines.append(f"    {_quote(key)}: [")
        lines.extend(f"        {_metadata_value_text(obj, d)}," for obj in items)
        lines.append("    ],")
    lines.append("}")
    return "\n".join(lines)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _metadata_value_text(obj, d) -> str:
    """One metadata value (a Relax constant) as ``R.const(<nested list>, "<dtype>")``."""
    array = np.asarray(getattr(obj, "data", obj).numpy())  # a Constant, or a runtime Tensor
    dtype = str(array.dtype)
    text = _nested_list_text(array)
    if np.array(array.tolist()).shape != array.shape:
        # An empty array whose leading dims are 0 loses its trailing dims as a nested list.
        raise ValueError(
            f"show_meta=True cannot write the empty constant of shape {array.shape} as "
            "TVMScript (a nested list keeps no trailing dimensions after a 0)"
        )
    return f"{d.cfg.relax_prefix}.const({text}, {_quote(dtype)})"


def _nested_list_text(array) -> str:
    if array.ndim == 0:
        return _scalar_text(array.item(), array.dtype)
    return "[" + ", ".join(_nested_list_text(sub) for sub in array) + "]"


def _scalar_text(value, dtype) -> str:
    if isinstance(value, (bool, int, np.bool_, np.integer)):
        return repr(value.item() if hasattr(value, "item") else value)
    value = float(value)
    if np.isnan(value):
        return 'float("nan")'
    if np.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    # The shortest text that reads back as the same value of this dtype.
    return str(dtype.type(value))

