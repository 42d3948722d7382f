"""The IRModule frame and the calls that fill it."""

from __future__ import annotations

from typing import Any

from tvm.ir import GlobalVar, IRModule

from ..base import IRBuilder, IRBuilderFrame

__all__ = [
    "IRModuleFrame",
    "decl_function",
    "def_function",
    "ir_module",
    "module_attrs",
    "module_get_attr",
    "module_global_infos",
    "module_set_attr",
]


class IRModuleFrame(IRBuilderFrame):
    """Collects global functions, module attributes and global infos into an ``IRModule``."""

    def __init__(self):
        self.global_vars: dict[str, GlobalVar] = {}
        self.functions: dict[GlobalVar, Any] = {}
        self.attrs: dict[str, Any] | None = None
        self.global_infos: dict[str, list] | None = None

    def exit_with_scope(self) -> None:
        """Build the ``IRModule`` (functions in declaration order) and make it the builder's
        result.

        Raises
        ------
        ValueError
            When a declared function was never defined.
        """
        self._run_callbacks()
        missing = [name for name, gv in self.global_vars.items() if gv not in self.functions]
        if missing:
            raise ValueError(f"Functions declared but never defined in the module: {missing}")
        # Keep the declaration order of the source.
        functions = {gv: self.functions[gv] for gv in self.global_vars.values()}
        mod = IRModule(functions, attrs=self.attrs, global_infos=self.global_infos)
        parent = IRBuilder.current()
        if parent.frames:
            parent.frames[-1].add_module(mod)  # pragma: no cover - no frame nests modules yet
        else:
            parent.set_result(mod)


def ir_module() -> IRModuleFrame:
    """Open a module frame: ``with I.ir_module(): ...``."""
    return IRModuleFrame()


def _module_frame(what: str) -> IRModuleFrame:
    frame = IRBuilder.current().find_frame(IRModuleFrame)
    if frame is None:
        raise ValueError(f"{what} must be called inside an I.ir_module() frame")
    return frame


def decl_function(func_name: str, func_signature=None) -> GlobalVar:
    """Declare a function of the current module and return its GlobalVar.

    ``func_signature`` (a function type, or a function whose type is used) lets calls to the
    function be typed before its body is parsed.
    """
    frame = _module_frame("decl_function")
    if func_name in frame.global_vars:
        raise ValueError(f"Duplicate function definition in the module: {func_name}")
    ty = getattr(func_signature, "ty", func_signature)
    gvar = GlobalVar(func_name, ty)
    frame.global_vars[func_name] = gvar
    return gvar


def def_function(func_name: str, func) -> GlobalVar:
    """Define the body of a function declared with :func:`decl_function` (or declare it)."""
    frame = _module_frame("def_function")
    gvar = frame.global_vars.get(func_name)
    if gvar is None:
        gvar = decl_function(func_name)
    if gvar in frame.functions:
        raise ValueError(f"Function {func_name} is defined twice in the module")
    ty = getattr(func, "ty", None)
    if ty is not None and gvar.ty is not ty:
        # The full type (with the inferred return type) replaces the declared signature.
        from tvm.ffi.node import set_field

        set_field(gvar, "ty", ty)
    frame.functions[gvar] = func
    return gvar


def module_attrs(attrs: dict, allow_overwrite: bool = False) -> None:
    """Set the module attributes (``I.module_attrs({"key": value})``)."""
    if not IRBuilder.is_in_scope():
        # Python runs the decorated class body before @I.ir_module parses it: nothing to do.
        return
    frame = _module_frame("module_attrs")
    if frame.attrs is not None and not allow_overwrite:
        raise ValueError("Duplicate module attrs: I.module_attrs is called twice")
    frame.attrs = dict(attrs)


def module_get_attr(attr_key: str):
    """A module attribute set so far, or ``None``."""
    frame = _module_frame("module_get_attr")
    return None if frame.attrs is None else frame.attrs.get(attr_key)


def module_set_attr(attr_key: str, attr_value, allow_overwrite: bool = False) -> None:
    """Set one module attribute."""
    frame = _module_frame("module_set_attr")
    attrs = dict(frame.attrs or {})
    if attr_key in attrs and not allow_overwrite:
        raise ValueError(f"Duplicate module attr: {attr_key}")
    attrs[attr_key] = attr_value
    frame.attrs = attrs


def module_global_infos(global_infos: dict) -> None:
    """Set the module's global infos (``I.module_global_infos({"vdevice": [...]})``)."""
    if not IRBuilder.is_in_scope():
        return  # the class body running as Python (see module_attrs)
    frame = _module_frame("module_global_infos")
    if frame.global_infos is not None:
        raise ValueError("Duplicate module global infos: I.module_global_infos is called twice")
    frame.global_infos = {k: list(v) for k, v in dict(global_infos).items()}
