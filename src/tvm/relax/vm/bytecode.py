"""VM bytecode as assembled by :class:`relax.ExecBuilder`: instructions, TVM's text formats,
and the Python the VM runs for them.

An instruction argument is one int64 as in Apache TVM: the kind in the top 8 bits (register,
immediate, constant index, function index) and a 56-bit two's-complement value below. The
special registers ``%vm`` (the VM state) and ``%void`` (no value) are registers with the
numbers ``(1 << 54) + 1`` and ``1 << 54``.

A built bytecode function runs as generated Python (the same way the VM runs Relax
functions, ``docs/arch/build_and_vm.md``): a loop over the program counter whose branches are
the instructions. Packed functions are looked up by name when first called (``vm.builtin.*``
from the VM's builtin table, anything else from the global function registry).
"""

from __future__ import annotations

import functools

from ...error import InternalError
from .builtins import BUILTINS, Closure
from .codegen import FunctionCode, _ident
from .executable import Executable
from .machine import _packed

__all__ = ["BytecodeExecutable", "Instr", "arg_kind", "arg_value", "make_arg"]

KIND_REG, KIND_IMM, KIND_CONST, KIND_FUNC = 0, 1, 2, 3
_VALUE_BITS = 56
_VALUE_MASK = (1 << _VALUE_BITS) - 1
REG_VOID = 1 << 54
REG_VM_STATE = (1 << 54) + 1
#: The smallest and largest immediates an argument can hold.
IMM_MIN, IMM_MAX = -(1 << (_VALUE_BITS - 1)), (1 << (_VALUE_BITS - 1)) - 1


def make_arg(kind: int, value: int) -> int:
    """The int64 encoding of an argument of ``kind`` with ``value``."""
    value = int(value)
    if not IMM_MIN <= value <= IMM_MAX:
        raise ValueError(f"ExecBuilder: value {value} does not fit in a 56-bit argument")
    return (kind << _VALUE_BITS) | (value & _VALUE_MASK)


def arg_kind(arg: int) -> int:
    """The kind of an encoded argument."""
    return (int(arg) >> _VALUE_BITS) & 0xFF


def arg_value(arg: int) -> int:
    """The (sign-extended) value of an encoded argument."""
    value = int(arg) & _VALUE_MASK
    return value - (1 << _VALUE_BITS) if value >> (_VALUE_BITS - 1) else value


class Instr:
    """One instruction: ``op`` is ``"call"``, ``"ret"``, ``"goto"`` or ``"if"``.

    ``call``: ``func`` (name), ``args`` (encoded), ``dst`` (register); ``ret``: ``reg``;
    ``goto``: ``offset``; ``if``: ``reg`` (condition), ``offset`` (taken when false).
    """

    __slots__ = ("args", "dst", "func", "offset", "op", "reg")

    def __init__(self, op, func=None, args=(), dst=REG_VOID, reg=0, offset=0):
        self.op, self.func, self.args, self.dst = op, func, list(args), dst
        self.reg, self.offset = reg, offset


class BytecodeFunction:
    """A VM function: its name, parameter count and names, instructions, register count."""

    def __init__(self, name, num_inputs, param_names, instrs, num_regs):
        self.name, self.num_inputs = name, num_inputs
        self.param_names = list(param_names)
        self.instrs, self.num_regs = instrs, num_regs


# --- text formats ----------------------------------------------------------------------------
def _reg_text(reg):
    return {REG_VOID: "%void", REG_VM_STATE: "%vm"}.get(reg, f"%{reg}")


def _arg_text(arg, func_names):
    kind, value = arg_kind(arg), arg_value(arg)
    if kind == KIND_REG:
        return _reg_text(value)
    if kind == KIND_IMM:
        return f"i{value}"
    if kind == KIND_CONST:
        return f"c[{value}]"
    return f"f[{func_names[value]}]"


def format_text(vm_funcs, func_names) -> str:
    """``Executable.as_text()`` in TVM's layout: every VM function's instructions, then one
    ``@name packed_func;`` line per packed function."""
    out = []
    for fn in vm_funcs:
        out.append(f"@{fn.name}:\n")
        for ins in fn.instrs:
            if ins.op == "call":
                args = ", ".join(_arg_text(a, func_names) for a in ins.args)
                out.append(f"  call  {ins.func:<16} in: {args:<12} dst: {_reg_text(ins.dst)}\n")
            elif ins.op == "ret":
                out.append(f"  ret   {_reg_text(ins.reg)}\n")
            elif ins.op == "goto":
                out.append(f"  goto  {ins.offset}\n")
            else:
                out.append(f"  If    {_reg_text(ins.reg)}, {ins.offset}\n")
        out.append("\n")
    vm_names = {fn.name for fn in vm_funcs}
    for name in func_names:
        if name not in vm_names:
            out.append(f"@{name} packed_func;\n\n")
    return "".join(out)


def _arg_python(arg, func_names):
    kind, value = arg_kind(arg), arg_value(arg)
    if kind == KIND_REG:
        return "ib.r(vm)" if value == REG_VM_STATE else f"ib.r({value})"
    if kind == KIND_IMM:
        return f"ib.imm({value})"
    if kind == KIND_CONST:
        return f"ib.c({value})"
    return f'ib.f("{func_names[value]}")'


def format_python(vm_funcs, func_names) -> str:
    """``Executable.as_python()``: the ExecBuilder calls that rebuild the program (TVM's
    layout)."""
    out = ["ib = rx.Builder()\n"]
    for fn in vm_funcs:
        out.append(f'with ib.function("{fn.name}", num_inputs={fn.num_inputs}):\n')
        for ins in fn.instrs:
            if ins.op == "call":
                args = ", ".join(_arg_python(a, func_names) for a in ins.args)
                dst = "" if ins.dst == REG_VOID else f", dst=ib.r({ins.dst})"
                out.append(f'    ib.emit_call("{ins.func}", args=[{args}]{dst})\n')
            elif ins.op == "ret":
                out.append(f"    ib.emit_ret(ib.r({ins.reg}))\n")
            elif ins.op == "goto":
                out.append(f"    ib.emit_goto({ins.offset})\n")
            else:
                out.append(f"    ib.emit_if(ib.r({ins.reg}), {ins.offset})\n")
    return "".join(out)


# --- Python for the VM ------------------------------------------------------------------------
class _VMState:
    """The value of register ``%vm`` (passed to packed functions that are not VM builtins)."""

    def __repr__(self):
        return "relax.vm.VMState"


VM_STATE = _VMState()


def _closure(name, func, *captured):
    """TVM's ``vm.builtin.make_closure(f, *captured)``: calling it runs ``f(*captured, *args)``."""
    return Closure(name, functools.partial(func, *captured), ())


def _arg_source(arg, func_names, vm_names):
    kind, value = arg_kind(arg), arg_value(arg)
    if kind == KIND_REG:
        if value == REG_VM_STATE:
            return "_bc_vm_state"
        if value == REG_VOID:
            return "None"
        return f"r[{value}]"
    if kind == KIND_IMM:
        return str(value)
    if kind == KIND_CONST:
        return f"_bc_consts[{value}]"
    name = func_names[value]
    return f"_funcs[{name!r}]" if name in vm_names else f"_packed({name!r})"


def _function_source(fn, func_names, vm_names) -> str:
    lines = [
        f"def {_ident(fn.name)}(*args):",
        f"    if len(args) != {fn.num_inputs}:",
        (f"        raise TypeError('VirtualMachine: {fn.name} takes {fn.num_inputs} "
         "arguments, got %d' % len(args))"),
        f"    r = [*args{', None' * (fn.num_regs - fn.num_inputs)}]",
        "    pc = 0",
        "    while True:",
    ]
    for pc, ins in enumerate(fn.instrs):
        lines.append(f"        {'if' if pc == 0 else 'elif'} pc == {pc}:")
        if ins.op == "call":
            args = list(ins.args)
            name = ins.func
            if name in BUILTINS and args and args[0] == make_arg(KIND_REG, REG_VM_STATE):
                args = args[1:]  # pytvm's builtins do not take the VM state
            srcs = [_arg_source(a, func_names, vm_names) for a in args]
            if name == "vm.builtin.make_closure" and srcs:
                callee_name = func_names[arg_value(args[0])] if arg_kind(args[0]) == KIND_FUNC \
                    else "closure"
                call = f"_bc_closure({callee_name!r}, {', '.join(srcs)})"
            elif name in vm_names:
                call = f"_funcs[{name!r}]({', '.join(srcs)})"
            else:
                call = f"_bc_packed({name!r})({', '.join(srcs)})"
            target = "" if ins.dst == REG_VOID else f"r[{ins.dst}] = "
            lines += [f"            {target}{call}", f"            pc = {pc + 1}"]
        elif ins.op == "ret":
            lines.append(f"            return _ret(r[{ins.reg}])")
        elif ins.op == "goto":
            lines.append(f"            pc = {pc + ins.offset}")
        else:
            lines.append(
                f"            pc = {pc + 1} if _truth(r[{ins.reg}]) else {pc + ins.offset}"
            )
    lines += [
        "        else:",
        (f"            raise RuntimeError('VirtualMachine: {fn.name} jumped to pc=%d, "
         f"outside its {len(fn.instrs)} instructions' % pc)"),
    ]
    return "\n".join(lines) + "\n"


def _packed_cache():
    cache = {}

    def packed(name):
        fn = cache.get(name)
        if fn is None:
            fn = cache[name] = _packed(name)
        return fn

    return packed


class BytecodeExecutable(Executable):
    """The executable :meth:`relax.ExecBuilder.get` returns; ``relax.VirtualMachine`` runs it.

    ``as_text``/``as_python`` print the bytecode in TVM's formats. Exporting it as a library
    is not supported yet (``export_library`` raises ``ValueError``).
    """

    def __init__(self, vm_funcs, func_names, constants):
        self._vm_funcs = list(vm_funcs)
        self._func_names = list(func_names)
        self.constants = list(constants)
        vm_names = {fn.name for fn in vm_funcs}
        codes = {}
        for fn in vm_funcs:
            ns = {
                "_bc_consts": self.constants, "_bc_vm_state": VM_STATE,
                "_bc_closure": _closure, "_bc_packed": _packed_cache(),
            }
            code = FunctionCode(fn.name, _function_source(fn, func_names, vm_names), ns,
                                [], [], [])
            code.param_names = list(fn.param_names)
            codes[fn.name] = (code, code)
        super().__init__(None, codes)

    def as_text(self) -> str:
        """The bytecode in TVM's text format."""
        return format_text(self._vm_funcs, self._func_names)

    def as_python(self) -> str:
        """The ExecBuilder calls that rebuild the program (TVM's ``as_python`` format)."""
        return format_python(self._vm_funcs, self._func_names)

    def stats(self) -> str:
        """The constant pool and the function table."""
        return (
            "Relax VM executable statistics:\n"
            f"  Constant pool (# {len(self.constants)}): "
            f"[{', '.join(_const_text(c) for c in self.constants)}]\n"
            f"  Globals (#{len(self._func_names)}): [{', '.join(self._func_names)}]\n"
        )

    def export_library(self, file_name, *, fcompile=None, workspace_dir=None, **kwargs) -> str:
        """Not supported yet for bytecode executables."""
        raise ValueError(
            "export_library of an ExecBuilder executable is not supported yet: only "
            "executables of relax.build can be exported"
        )


def _const_text(const):
    if type(const) is str:
        return f'"{const}"'
    if isinstance(const, tuple):
        return f"shapetuple[{', '.join(str(int(d)) for d in const)}]"
    if hasattr(const, "numpy") and hasattr(const, "shape"):
        return f"tensor[{', '.join(str(int(d)) for d in const.shape)}]"
    return str(const)


def check_function(name, num_inputs, instrs, dump) -> int:
    """Check that every register read is written somewhere; renumber registers by first
    definition (TVM's formalization). Return the register count."""
    defined = set(range(num_inputs))

    def used(reg):
        if reg in (REG_VOID, REG_VM_STATE):
            return
        if reg not in defined:
            # TVM raises InternalError (a RuntimeError) here; kept for compatibility.
            raise InternalError(
                f"register r({reg}) in VM function \"{name}\" is used as input while it is "
                f"never defined as a destination. Dump:\n{dump()}"
            )

    # In instruction order, as TVM checks: a register is read after an earlier write.
    for ins in instrs:
        if ins.op == "call":
            for a in ins.args:
                if arg_kind(a) == KIND_REG:
                    used(arg_value(a))
            if ins.dst != REG_VOID:
                defined.add(ins.dst)
        elif ins.op in ("ret", "if"):
            used(ins.reg)
    mapping = {i: i for i in range(num_inputs)}
    for ins in instrs:
        if ins.op == "call" and ins.dst not in (REG_VOID, REG_VM_STATE) \
                and ins.dst not in mapping:
            mapping[ins.dst] = len(mapping)

    def remap(reg):
        return mapping.get(reg, reg)

    for ins in instrs:
        if ins.op == "call":
            ins.args = [make_arg(KIND_REG, remap(arg_value(a))) if arg_kind(a) == KIND_REG
                        else a for a in ins.args]
            ins.dst = remap(ins.dst)
        elif ins.op in ("ret", "if"):
            ins.reg = remap(ins.reg)
    return len(mapping)
