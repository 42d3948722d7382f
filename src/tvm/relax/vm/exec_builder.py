"""``relax.ExecBuilder``: what ``relax.vm_build._vmcodegen`` fills and ``_vmlink`` links.

Apache TVM's ExecBuilder assembles VM bytecode instruction by instruction. pytvm's VM runs
Python generated from the Relax functions (``docs/arch/build_and_vm.md``), so here the
builder collects the Relax functions that the code generator turns into an executable; the
two-stage build TVM code uses for tests of lowered modules works:

>>> builder = relax.ExecBuilder()                                    # doctest: +SKIP
>>> tir_mod = relax.vm_build._vmcodegen(builder, mod)                # doctest: +SKIP
>>> ex = relax.vm_build._vmlink(builder, "llvm", tir_mod)            # doctest: +SKIP

The bytecode-level methods (``emit_call``, ``emit_ret``, ``function``...) are not
supported yet and raise ``ValueError`` saying so.
"""

from __future__ import annotations

from ...ir.module import IRModule
from ..expr import Function

__all__ = ["ExecBuilder"]

_NO_BYTECODE = (
    "is not supported yet: pytvm's VM runs Python generated from Relax functions, not "
    "bytecode; build Relax functions and use relax.vm_build._vmcodegen / _vmlink"
)


class ExecBuilder:
    """Collects the Relax functions of a VM executable (see the module docstring)."""

    def __init__(self):
        self.functions = {}  # GlobalVar -> relax.Function, in the order they were added
        self.global_infos = {}
        self.attrs = None

    def add_module(self, mod: IRModule) -> IRModule:
        """Take the Relax functions of ``mod``; return the module of everything else."""
        if not isinstance(mod, IRModule):
            raise TypeError(f"ExecBuilder: expected an IRModule, got {type(mod).__name__}")
        rest = {}
        for gvar, func in mod.functions.items():
            if isinstance(func, Function):
                if any(g.name_hint == gvar.name_hint for g in self.functions):
                    raise ValueError(f"ExecBuilder: function {gvar.name_hint} is defined twice")
                self.functions[gvar] = func
            else:
                rest[gvar] = func
        self.global_infos = dict(mod.global_infos or {})
        self.attrs = mod.attrs
        return IRModule(rest, mod.attrs, mod.global_infos)

    def module(self, tir_mod: IRModule | None = None) -> IRModule:
        """The collected Relax functions together with the functions of ``tir_mod``."""
        funcs = dict(self.functions)
        if tir_mod is not None:
            for gvar, func in tir_mod.functions.items():
                funcs[gvar] = func
        return IRModule(funcs, self.attrs, self.global_infos or None)

    def _bytecode(self, name):
        raise ValueError(f"ExecBuilder.{name} {_NO_BYTECODE}")

    def function(self, *args, **kwargs):
        """Start a bytecode function (not supported yet)."""
        self._bytecode("function")

    def emit_call(self, *args, **kwargs):
        """Emit a call instruction (not supported yet)."""
        self._bytecode("emit_call")

    def emit_ret(self, *args, **kwargs):
        """Emit a return instruction (not supported yet)."""
        self._bytecode("emit_ret")

    def emit_goto(self, *args, **kwargs):
        """Emit a jump instruction (not supported yet)."""
        self._bytecode("emit_goto")

    def emit_if(self, *args, **kwargs):
        """Emit a branch instruction (not supported yet)."""
        self._bytecode("emit_if")

    def declare_function(self, *args, **kwargs):
        """Declare a bytecode function (not supported yet)."""
        self._bytecode("declare_function")

    def get(self):
        """The bytecode executable (not supported yet: link with ``vm_build._vmlink``)."""
        self._bytecode("get")
