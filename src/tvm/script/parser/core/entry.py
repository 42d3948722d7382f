"""``parse``: TVMScript program -> IR, with the well-formedness gate.

A Relax function or module that comes out of the parser is checked with
``tvm.relax.analysis.check_well_formed``; a program that fails is reported with
:data:`WELL_FORMED_ERROR_MESSAGE` at the whole source (a zero-width location at its first
line). The flag ``check_well_formed=False`` (on ``parse``, ``from_source`` or the top-level
decorator) turns the gate off, for tests that build deliberately malformed IR.
"""

from __future__ import annotations

import gc
import importlib
from typing import Any

from tvm.error import DiagnosticError

from ....support.recursion import IRTooDeepError, deep_recursion
from .diagnostics import Source
from .parser import Parser

__all__ = ["WELL_FORMED_ERROR_MESSAGE", "default_globals", "parse"]

WELL_FORMED_ERROR_MESSAGE = (
    "Program is not well-formed. If this is deliberate, consider setting check_well_formed in "
    "the top-level decorator to False (e.g., @I.ir_module(check_well_formed=False) or "
    "@R.function(check_well_formed=False))."
)


def default_globals() -> dict[str, Any]:
    """The names every script sees without importing them: ``tvm``, ``I``/``ir``,
    ``R``/``relax``, ``T``/``tir``/``tirx``, ``TypeVar``, and ``Tx``/``Axis`` when the TIR
    dialect provides them."""
    # Lazy: the dialect modules sit above this core module and import it.
    import typing

    import tvm
    from tvm import script

    names: dict[str, Any] = {"tvm": tvm, "TypeVar": typing.TypeVar}
    ir_mod = importlib.import_module("tvm.script.parser.ir")
    names["I"] = names["ir"] = ir_mod
    for dialect, aliases in (("relax", ("R", "relax")), ("tirx", ("T", "tir", "tirx"))):
        try:
            module = script.dialect_module(dialect, "parser")
        except ImportError:
            continue
        for alias in aliases:
            names[alias] = module
    # TIR extras, when the TIR dialect provides them: the tile namespace and layout axes.
    tile = getattr(names.get("T"), "tile", None)
    if tile is not None:
        names["Tx"] = tile
    layout = _optional_module("tvm.tirx.layout")
    if getattr(layout, "Axis", None) is not None:
        names["Axis"] = layout.Axis
    return names


def parse(program, extra_vars=None, check_well_formed=True, s_tir=False, absent_params=None,
          *, default_token=None):
    """Parse TVMScript into IR.

    Parameters
    ----------
    program : str or function or class
        The TVMScript text, or a decorated Python object whose source is read back.
    extra_vars : dict, optional
        Names visible to the script; defaults to :func:`default_globals`. When given, the
        default names are still visible underneath them.
    check_well_formed : bool
        Run the well-formedness gate on the result.
    s_tir : bool
        Parse TIR functions as schedulable (``s_tir``) functions.
    absent_params : optional
        Forwarded to the TIR dialect.
    default_token : str, optional
        The dialect of an undecorated top-level definition (used by decorators, whose own
        decorator line is not part of a class's source).

    Returns
    -------
    The parsed ``IRModule``, Relax ``Function`` or TIR ``PrimFunc``.
    """
    names = default_globals()
    if extra_vars is not None:
        names.update(extra_vars)
    try:
        # Deep nesting: room for the recursive parser, else a DiagnosticError (not a raw
        # RecursionError from Python's own compiler or from ours).
        with deep_recursion("parsing TVMScript"):
            return _parse(program, names, check_well_formed, s_tir, absent_params,
                          default_token)
    except IRTooDeepError as err:
        raise DiagnosticError(f"error: {err}") from None


def _parse(program, names, check_well_formed, s_tir, absent_params, default_token):
    # Lazy: the IR builder is a sibling package that imports dialect modules.
    from tvm.script.ir_builder.base import IRBuilder

    source = Source(program)
    parser = Parser(source, names, s_tir=s_tir, absent_params=absent_params)
    # Parsing allocates many small objects and frees few: pausing the cyclic garbage
    # collector meanwhile (the well-formedness gate included) halves the time on large modules
    # (measured: benchmarks/relax_ir.py).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with IRBuilder() as builder:
            parser.parse(default_token=default_token)
        result = builder.get()
        if check_well_formed:
            _well_formed_gate(parser, result, s_tir)
    finally:
        if gc_was_enabled:
            gc.enable()
    return result


def _well_formed_gate(parser: Parser, result, s_tir: bool) -> None:
    """Report :data:`WELL_FORMED_ERROR_MESSAGE` when ``result`` is not well-formed.

    A Relax function or a module goes through ``relax.analysis.check_well_formed``; a PrimFunc,
    or a module holding PrimFuncs, through the TIR verifier (``verify_well_formed`` for s_tir,
    ``verify_tirx_well_formed`` otherwise), whose message is appended after ``Traceback:``.
    """
    whole = parser.tree
    type_key = getattr(result, "type_key", "")
    is_module = type_key == "ir.IRModule"
    if is_module or type_key.startswith("relax."):
        # Lazy: importing relax with the parser core would load the whole op library early.
        from tvm.relax.analysis import check_well_formed

        if not check_well_formed(result):
            parser.report_error(whole, WELL_FORMED_ERROR_MESSAGE)
    has_tir = type_key.startswith(("tirx.", "tir.")) or (
        is_module
        and any(getattr(f, "type_key", "").startswith("tirx.") for f in result.functions.values())
    )
    if not has_tir:
        return
    analysis = _optional_module("tvm.tirx.analysis")
    if analysis is None:
        return
    funcs = list(result.functions.values()) if is_module else [result]
    try:
        for func in funcs:
            if not getattr(func, "type_key", "").startswith("tirx."):
                continue
            # Each PrimFunc by its own kind: an ``s_tir`` one (attribute or parse flag) may
            # hold SBlocks.
            attrs = getattr(func, "attrs", None)
            schedulable = s_tir or bool(attrs is not None and attrs.get("s_tir", False))
            if schedulable:
                analysis.verify_well_formed(func)
            else:
                analysis.verify_tirx_well_formed(func)
    except DiagnosticError:
        raise
    except Exception as err:  # noqa: BLE001 - the verifier's message goes into the report
        parser.report_error(whole, f"{WELL_FORMED_ERROR_MESSAGE}\n\nTraceback: {err}")


def _optional_module(name: str):
    """``import name`` or ``None`` when that layer is absent (a runtime-only install)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
