"""``relax.ExecBuilder``: what ``relax.vm_build._vmcodegen`` fills and ``_vmlink`` links.

Apache TVM's ExecBuilder assembles VM bytecode instruction by instruction. pytvm's VM runs
Python generated from the Relax functions (``docs/arch/build_and_vm.md``), so here the
builder collects the Relax functions that the code generator turns into an executable; the
two-stage build TVM code uses for tests of lowered modules works:

>>> builder = relax.ExecBuilder()                                    # doctest: +SKIP
>>> tir_mod = relax.vm_build._vmcodegen(builder, mod)                # doctest: +SKIP
>>> ex = relax.vm_build._vmlink(builder, "llvm", tir_mod)            # doctest: +SKIP

It also assembles VM bytecode as TVM's does (``function``, ``emit_call``, ``emit_ret``,
``emit_goto``, ``emit_if``, ``r``/``imm``/``c``/``f``, ``convert_constant``); ``get()``
returns an executable that :class:`relax.VirtualMachine` runs (see :mod:`.bytecode`):

>>> ib = relax.ExecBuilder()                                         # doctest: +SKIP
>>> with ib.function("func0", num_inputs=2):                         # doctest: +SKIP
...     ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
...     ib.emit_ret(ib.r(2))
>>> vm = relax.VirtualMachine(ib.get(), tvm.cpu())                   # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import tvm_ffi

from ...ir.module import IRModule
from ..expr import Function
from .bytecode import (
    IMM_MAX,
    IMM_MIN,
    KIND_CONST,
    KIND_FUNC,
    KIND_IMM,
    KIND_REG,
    REG_VM_STATE,
    REG_VOID,
    BytecodeExecutable,
    BytecodeFunction,
    Instr,
    arg_kind,
    arg_value,
    check_function,
    format_text,
    make_arg,
)

__all__ = ["ExecBuilder"]

class ExecBuilder:
    """Collects the Relax functions of a VM executable, or assembles bytecode (see the module
    docstring)."""

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

    # --- the instruction-level API (TVM's ExecBuilder) ---------------------------------------
    def _bc(self):
        state = getattr(self, "_bc_state", None)
        if state is None:
            state = self._bc_state = {
                "funcs": [], "names": [], "consts": [], "const_index": {}, "current": None,
            }
        return state

    def r(self, idx: int) -> int:
        """An instruction argument that reads register ``idx``."""
        return make_arg(KIND_REG, idx)

    def imm(self, value: int) -> int:
        """An instruction argument holding the integer ``value`` itself."""
        return make_arg(KIND_IMM, value)

    def c(self, idx: int) -> int:
        """An instruction argument that reads constant ``idx`` of the constant pool."""
        return make_arg(KIND_CONST, idx)

    def f(self, name: str) -> int:
        """An instruction argument naming function ``name`` (declared or defined before)."""
        names = self._bc()["names"]
        if name not in names:
            raise ValueError(f"ExecBuilder.f: function {name!r} is not declared or defined")
        return make_arg(KIND_FUNC, names.index(name))

    def void_arg(self) -> int:
        """The ``%void`` register (no value)."""
        return self.r(REG_VOID)

    def vm_state(self) -> int:
        """The ``%vm`` register (the VM state, first argument of some builtins)."""
        return self.r(REG_VM_STATE)

    def declare_function(self, func_name: str, kind: int = 0) -> None:
        """Declare function ``func_name`` (``kind`` 0: packed function, 1: VM function)."""
        names = self._bc()["names"]
        if func_name not in names:
            names.append(func_name)

    def function(self, func_name: str, num_inputs: int | None = 0,
                 param_names: list | None = None) -> _FunctionScope:
        """Start VM function ``func_name``; use as ``with ib.function(...):``."""
        state = self._bc()
        if state["current"] is not None:
            raise ValueError(
                f"ExecBuilder.function: {func_name} starts inside function "
                f"{state['current'][0]}; end that one first"
            )
        if any(fn.name == func_name for fn in state["funcs"]):
            raise ValueError(f"ExecBuilder.function: function {func_name} is defined twice")
        num_inputs = int(num_inputs or 0)
        names = list(param_names) if param_names else [f"arg{i}" for i in range(num_inputs)]
        if len(names) != num_inputs:
            raise ValueError(
                f"ExecBuilder.function: {func_name} has {num_inputs} inputs but "
                f"{len(names)} parameter names"
            )
        self.declare_function(func_name, 1)
        state["current"] = (func_name, num_inputs, names, [])
        return _FunctionScope(self)

    def _end_function(self) -> None:
        state = self._bc()
        name, num_inputs, names, instrs = state["current"]
        state["current"] = None
        # Functions are checked and renumbered in get(), as TVM does.
        state["funcs"].append(BytecodeFunction(name, num_inputs, names, instrs, 0))

    def _emit(self, instr: Instr, what: str) -> None:
        current = self._bc()["current"]
        if current is None:
            raise ValueError(f"ExecBuilder.{what}: emit should happen in a function scope")
        current[3].append(instr)

    def convert_constant(self, const: object) -> int:
        """The argument for ``const``: an immediate for an int, else a (cached) constant."""
        if type(const) is int and IMM_MIN <= const <= IMM_MAX:
            return self.imm(const)
        state = self._bc()
        key = _const_key(const)
        index = state["const_index"].get(key) if key is not None else None
        if index is None:
            index = len(state["consts"])
            state["consts"].append(const)
            if key is not None:
                state["const_index"][key] = index
        return self.c(index)

    def emit_call(self, name: str, args: list | None = None, dst: int | None = None) -> None:
        """Emit a call of packed or VM function ``name``; its result goes to register ``dst``.

        Tuples become shape constants and tensors, data types and shapes become constants.
        """
        self._check_scope("emit_call")
        encoded = []
        for arg in args or ():
            if isinstance(arg, tuple):
                encoded.append(self.convert_constant(tvm_ffi.Shape(arg)))
            elif isinstance(arg, (tvm_ffi.Tensor, tvm_ffi.dtype, tvm_ffi.Shape)):
                encoded.append(self.convert_constant(arg))
            elif isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
                encoded.append(int(arg))
            else:
                raise TypeError(
                    f"ExecBuilder.emit_call: argument {arg!r} of {name} is not an encoded "
                    "argument (ib.r/imm/c/f), a tuple, a tensor or a data type"
                )
        dst_reg = REG_VOID if dst is None else _register(dst, "emit_call dst")
        self.declare_function(name)
        self._emit(Instr("call", func=name, args=encoded, dst=dst_reg), "emit_call")

    def emit_ret(self, result: int) -> None:
        """Emit a return of register ``result``."""
        self._emit(Instr("ret", reg=_register(result, "emit_ret")), "emit_ret")

    def emit_goto(self, pc_offset: int) -> None:
        """Emit a jump by ``pc_offset`` instructions."""
        self._emit(Instr("goto", offset=int(pc_offset)), "emit_goto")

    def emit_if(self, cond: int, false_offset: int) -> None:
        """Emit a branch: go on when register ``cond`` is true, else jump ``false_offset``."""
        self._emit(Instr("if", reg=_register(cond, "emit_if"), offset=int(false_offset)),
                   "emit_if")

    def _check_scope(self, what: str) -> None:
        if self._bc()["current"] is None:
            raise ValueError(f"ExecBuilder.{what}: emit should happen in a function scope")

    def get(self) -> BytecodeExecutable:
        """The executable of the functions built so far (run it with relax.VirtualMachine).

        Raises RuntimeError (tvm.error.InternalError, as TVM) when a register is read but
        never written.
        """
        state = self._bc()
        if state["current"] is not None:
            raise ValueError(f"ExecBuilder.get: function {state['current'][0]} is not ended")
        funcs = state["funcs"]
        names = list(state["names"])
        for fn in funcs:
            if fn.num_regs:
                continue  # checked by an earlier get()
            fn.num_regs = check_function(
                fn.name, fn.num_inputs, fn.instrs,
                lambda: format_text(funcs, names),
            )
        return BytecodeExecutable(funcs, names, state["consts"])


class _FunctionScope:
    """``with ib.function(...)``: ends the function on exit."""

    def __init__(self, builder):
        self.builder = builder

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        if self.builder._bc()["current"] is not None:
            self.builder._end_function()


def _register(arg: int, what: str) -> int:
    arg = int(arg)
    if arg_kind(arg) != KIND_REG:
        raise ValueError(f"ExecBuilder.{what}: expected a register (ib.r(i)), got {arg}")
    return arg_value(arg)


def _const_key(const):
    """A hashable key under which equal constants share one pool entry (None: no sharing)."""
    if isinstance(const, str):  # tvm.DataType is a str subclass: keep the type apart
        return (type(const).__name__, str(const))
    if isinstance(const, tvm_ffi.Shape):
        return ("shape", tuple(int(d) for d in const))
    if hasattr(const, "numpy") and hasattr(const, "shape"):
        array = np.asarray(const.numpy())
        return ("tensor", str(array.dtype), array.shape, array.tobytes())
    try:
        return (type(const).__name__, hash(const), str(const))
    except TypeError:
        return None
