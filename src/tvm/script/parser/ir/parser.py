"""Parse handlers of the ``ir`` dialect: the ``@I.ir_module`` class body."""

from __future__ import annotations

import ast

from ...ir_builder import ir as I
from ..core import dispatch
from ..core.parser import Parser

__all__ = ["ModuleNamespace"]


class ModuleNamespace:
    """What the module's class name (``Module``, aliased ``cls``) evaluates to in its body.

    ``cls.f`` is the GlobalVar of function ``f``, declared before any body is parsed, so
    functions can call each other regardless of order.
    """

    def __init__(self, name: str):
        self._name = name
        self._gvars: dict = {}

    def _add(self, name: str, gvar) -> None:
        self._gvars[name] = gvar

    def __getattr__(self, name: str):
        try:
            return self._gvars[name]
        except KeyError:
            raise AttributeError(
                f"Module {self._name} has no function {name!r}; functions: {sorted(self._gvars)}"
            ) from None


@dispatch.register("ir", "ClassDef")
def _visit_class_def(parser: Parser, node: ast.ClassDef) -> None:
    namespace = ModuleNamespace(node.name)
    with parser.var_table.with_frame():
        parser.var_table.add(node.name, namespace)
        parser.state["ir_module_namespace"] = namespace
        with I.ir_module():
            # Module-level statements (I.module_global_infos, I.module_attrs) come first: the
            # function signatures may name their virtual devices (vdevice="llvm:0").
            header = [stmt for stmt in node.body if isinstance(stmt, ast.Expr)]
            parser.visit_body(header)
            # Declare every function first so that calls between them can be typed.
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if parser.decorator_token(stmt) is None:
                        # As TVM: a method of an IRModule class needs @R.function or
                        # @T.prim_func (it would otherwise be taken for the module itself).
                        parser.report_error(stmt, "Function must be decorated")
                    namespace._add(stmt.name, _declare_function(parser, stmt))
            body = [stmt for stmt in node.body if not isinstance(stmt, ast.Expr)]
            # PrimFunc bodies first (they never refer to Relax functions): a Relax function
            # that calls a PrimFunc directly (``cls.copy(x, y)``) then sees its signature,
            # wherever the PrimFunc is written. The module keeps the source order.
            prims = [stmt for stmt in body if isinstance(stmt, ast.FunctionDef)
                     and parser.decorator_token(stmt) == "tirx"]
            parser.visit_body(prims + [stmt for stmt in body if not any(stmt is p
                                                                         for p in prims)])


def _declare_function(parser: Parser, node: ast.FunctionDef):
    token = parser.decorator_token(node)
    declare = dispatch.get(token or "", "tvm_declare_function")
    if declare is None:
        return I.decl_function(node.name)
    with parser.with_dispatch_token(token):
        try:
            return declare(parser, node)
        except Exception as err:  # noqa: BLE001 - reported at the function's signature
            parser.report_error(node, err)


@dispatch.register("ir", "Expr")
def _visit_expr(parser: Parser, node: ast.Expr) -> None:
    # ``I.module_attrs({...})``, ``I.module_global_infos({...})``, or a docstring.
    parser.eval_expr(node.value)


@dispatch.register("ir", "Assign")
def _visit_assign(parser: Parser, node: ast.Assign) -> None:
    from ..core.parser import bind_python_target

    value = parser.eval_expr(node.value)
    if type(value).__name__ == "ExternFunc" and len(node.targets) == 1 and isinstance(
        node.targets[0], ast.Name
    ):
        # ``my_ext = R.ExternFunc("symbol")``: an external function of the module.
        name = node.targets[0].id
        gvar = I.decl_function(name, value)
        I.def_function(name, value)
        parser.state["ir_module_namespace"]._add(name, gvar)
        return
    for target in node.targets:
        bind_python_target(parser, target, value)
