"""The IR -> doc converter ("docsifier") core: dispatch table, variable naming, paths, config.

Each IR dialect registers one function per node class with :func:`register_printer`::

    @register_printer(relax.Call)
    def _call(call, path, d):
        return ...  # an ExprDoc or StmtDoc

``d`` is the :class:`IRDocsifier`: ``d.as_doc(child, path_of_child)`` converts children, so
every doc records the access path of the IR object it renders (``doc.source_paths``).

Paths are linked tuples ``(parent, kind, key)`` with :data:`ROOT` (``()``) as the root and
``kind`` one of ``"attr"``, ``"item"``, ``"map"``. :func:`attr_path`, :func:`item_path` and
:func:`map_path` extend them in O(1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .doc import Doc, IdDoc

__all__ = [
    "ROOT",
    "IRDocsifier",
    "PrinterConfig",
    "attr_path",
    "item_path",
    "map_path",
    "path_steps",
    "register_printer",
]

#: The root access path.
ROOT = ()


def attr_path(path, name: str):
    """``path.name``."""
    return (path, "attr", name)


def item_path(path, index: int):
    """``path[index]`` of a sequence."""
    return (path, "item", index)


def map_path(path, key):
    """``path[key]`` of a mapping."""
    return (path, "map", key)


def path_steps(path) -> tuple:
    """The steps ``((kind, key), ...)`` of a linked path, root first."""
    out = []
    while path:
        path, kind, key = path
        out.append((kind, key))
    out.reverse()
    return tuple(out)


@dataclass
class PrinterConfig:
    """The printer options of ``obj.script(...)`` (Apache TVM 0.27 names and defaults)."""

    name: str | None = None
    show_meta: bool = False
    ir_prefix: str = "I"
    module_alias: str = "cls"
    int_dtype: str = "int32"
    float_dtype: str = "void"
    verbose_expr: bool = False
    indent_spaces: int = 4
    print_line_numbers: bool = False
    num_context_lines: int = -1
    syntax_sugar: bool = True
    show_object_address: bool = False
    show_all_ty: bool = True
    render_invisible_path_info: bool = True
    tir_prefix: str = "T"
    relax_prefix: str = "R"
    path_to_underline: list = field(default_factory=list)
    path_to_annotate: dict = field(default_factory=dict)
    obj_to_underline: list = field(default_factory=list)
    obj_to_annotate: dict = field(default_factory=dict)


# --- dispatch -----------------------------------------------------------------------------------

_PRINTERS: dict = {}
_RESOLVED: dict = {}


def register_printer(*classes):
    """Register ``fn(obj, path, d) -> Doc`` as the docsifier of the given node classes.

    A class without its own entry uses the nearest base class's. ``None`` entries (a class
    that does not exist in this build) are skipped, so dialect printers can register
    optional node types.
    """

    def _register(fn):
        for cls in classes:
            if cls is not None:
                _PRINTERS[cls] = fn
        _RESOLVED.clear()
        return fn

    return _register


def has_printer(cls) -> bool:
    """Whether ``cls`` (or a base class) has a docsifier registered."""
    return _resolve(cls) is not None


def _resolve(cls):
    fn = _RESOLVED.get(cls)
    if fn is None:
        for base in cls.__mro__:
            fn = _PRINTERS.get(base)
            if fn is not None:
                break
        _RESOLVED[cls] = fn
    return fn


# --- the docsifier ------------------------------------------------------------------------------


class IRDocsifier:
    """Converts IR objects to docs; holds variable names, used dialect prefixes and metadata."""

    def __init__(self, config: PrinterConfig):
        self.cfg = config
        #: ``id(var) -> printed name`` of variables currently defined.
        self.var_names: dict[int, str] = {}
        # The dialect prefixes are taken: a variable named ``R`` prints as ``R_1`` (as in TVM).
        self.used_names: set[str] = {config.ir_prefix, config.tir_prefix, config.relax_prefix}
        # One list of defined var ids per open frame (function), released on exit.
        self._frames: list[list[int]] = []
        #: Dialect prefixes used (``"I"``, ``"R"``, ``"T"``) for the import header.
        self.prefixes: set[str] = set()
        #: Symbolic shape variables declared at file level as ``n = TypeVar("n")``.
        self.type_vars: list[str] = []
        #: ``key -> [objects]`` for ``metadata["key"][i]`` references.
        self.metadata: dict[str, list] = {}
        #: ``id(obj) -> first path`` recorded for the objects of ``obj_to_underline``.
        self._track = {id(obj) for obj in config.obj_to_underline}
        self._track.update(id(obj) for obj in config.obj_to_annotate)
        self.obj_paths: dict[int, tuple] = {}
        #: ``id(GlobalVar) -> True`` for functions of the module being printed.
        self.module_gvars: set[int] = set()
        self.in_module = False
        #: Free-form per-dialect state (for example the function being printed).
        self.state: dict = {}

    # --- conversion -----------------------------------------------------------------------
    def as_doc(self, obj, path) -> Doc:
        """Convert ``obj`` (reached at ``path``) to a doc that records the path."""
        fn = _resolve(type(obj))
        if fn is None:
            fn = self._fallback(obj)
        doc = fn(obj, path, self)
        if path is not None:
            doc.source_paths.append(path)
        if (self._track and path is not None and id(obj) in self._track
                and id(obj) not in self.obj_paths):
            self.obj_paths[id(obj)] = path
        return doc

    def _fallback(self, obj):
        from .doc import LiteralDoc  # local: only needed for plain Python values

        if obj is None or isinstance(obj, (bool, int, float, str)):
            return lambda o, p, d: LiteralDoc(o)
        raise TypeError(
            f"the TVMScript printer has no rule for {type(obj).__module__}."
            f"{type(obj).__name__}; register one with "
            "tvm.script.printer.register_printer"
        )

    def prefix(self, name: str) -> IdDoc:
        """An identifier for a dialect prefix (``"R"``, ``"T"``, ``"I"``), recorded as used."""
        self.prefixes.add(name)
        if name == "R":
            return IdDoc(self.cfg.relax_prefix)
        if name == "T":
            return IdDoc(self.cfg.tir_prefix)
        if name == "I":
            return IdDoc(self.cfg.ir_prefix)
        return IdDoc(name)

    # --- variables ------------------------------------------------------------------------
    def push_frame(self) -> None:
        """Open a naming frame (a function): variables defined in it are released on pop."""
        self._frames.append([])

    def pop_frame(self) -> None:
        """Close the innermost frame and free its variables' names."""
        for key in self._frames.pop():
            name = self.var_names.pop(key, None)
            if name is not None:
                self.used_names.discard(name)

    @property
    def depth(self) -> int:
        """The number of open naming frames."""
        return len(self._frames)

    def define(self, var, name_hint: str, frame=None) -> IdDoc:
        """Give ``var`` a fresh printed name based on ``name_hint``: ``lv``, ``lv_1``, ...

        The name is released when the innermost frame closes, or frame number ``frame``
        (``-1``: never; used for declarations hoisted to an outer scope).
        """
        name = self.fresh_name(name_hint)
        self.var_names[id(var)] = name
        if frame is None:
            target = self._frames[-1] if self._frames else None
        else:
            target = self._frames[frame] if 0 <= frame < len(self._frames) else None
        if target is not None:
            target.append(id(var))
        return IdDoc(name)

    def define_named(self, var, name: str) -> IdDoc:
        """Define ``var`` under exactly ``name`` (even if in use) in the innermost frame.

        For names that must print as given (a function's symbolic variables). The name is
        freed when the frame closes only if this call reserved it.
        """
        self.var_names[id(var)] = name
        if name not in self.used_names:
            self.used_names.add(name)
            if self._frames:
                self._frames[-1].append(id(var))
        return IdDoc(name)

    def open_declarations(self) -> list:
        """Start collecting hoisted declarations for the innermost frame; returns the list."""
        decls: list = []
        self.state["func_decls"] = decls
        self.state["decl_frame"] = len(self._frames) - 1
        return decls

    def declare(self, var, name_hint: str, make_decl) -> IdDoc:
        """Define ``var`` in the scope of the open declarations and record ``make_decl(name)``.

        Returns None when no declaration scope is open.
        """
        decls = self.state.get("func_decls")
        if decls is None:
            return None
        name = self.define(var, name_hint, frame=self.state.get("decl_frame", -1)).name
        decls.append(make_decl(name))
        return IdDoc(name)

    def fresh_name(self, hint: str) -> str:
        """Reserve and return an unused name derived from ``hint``."""
        base = hint or "v"
        name = base
        k = 1
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        return name

    def is_defined(self, var) -> bool:
        """Whether ``var`` has been given a name in the printed text so far."""
        return id(var) in self.var_names

    def var_doc(self, var):
        """An identifier for a defined variable, or None when it is not defined."""
        name = self.var_names.get(id(var))
        return None if name is None else IdDoc(name)

    # --- metadata -------------------------------------------------------------------------
    def add_metadata(self, key: str, obj) -> int:
        """Index of ``obj`` in ``metadata[key]`` (appended when new)."""
        items = self.metadata.setdefault(key, [])
        for i, item in enumerate(items):
            if item is obj:
                return i
        items.append(obj)
        return len(items) - 1
