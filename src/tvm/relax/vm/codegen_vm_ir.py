"""Code generation for the VM-level IR: ``R.vm.*``, ``R.memory.*``, closures, VM builtins.

Each emitter takes the code generator (``codegen._Gen``), the call and the indentation, emits
the lines it needs and returns the Python expression of the call's value. The functions called
at run time live in :mod:`.builtins` (bound into the generated code's namespace by the VM).
"""

from __future__ import annotations

from ...ir.expr import GlobalVar
from ..expr import ShapeExpr, Tuple, Var
from .builtins import builtin_ident

__all__ = ["VM_IR_EMITTERS"]


def _vm_builtin(name):
    """A call of a VM builtin with the call's arguments (``R.vm.*``, ``R.memory.*``)."""
    ident = builtin_ident(name)

    def emit(gen, call, indent):
        args = [gen.expr(a, indent) for a in call.args]
        return f"{ident}({', '.join(args)})"

    return emit


def _field_sources(gen, expr, indent):
    """The Python sources of a tuple argument's fields (of the value itself if not a tuple)."""
    fields = list(expr.fields) if isinstance(expr, Tuple) else [expr]
    return [gen.expr(f, indent) for f in fields]


def _call_builtin_with_ctx(gen, call, indent):
    # No VM context object here: the builtin gets the argument tuple's fields.
    func = gen.expr(call.args[0], indent)
    return f"{func}({', '.join(_field_sources(gen, call.args[1], indent))})"


def _make_closure(gen, call, indent):
    func, captured = call.args
    items = "".join(f"{src}, " for src in _field_sources(gen, captured, indent))
    if isinstance(func, GlobalVar):
        name, target = repr(func.name_hint), f"_funcs[{func.name_hint!r}]"
    else:
        target = gen.expr(func, indent)
        name = repr(target)
    return f"{builtin_ident('vm.builtin.make_closure')}({name}, {target}, ({items}))"


def _invoke_closure(gen, call, indent):
    closure = gen.expr(call.args[0], indent)
    args = [closure, *_field_sources(gen, call.args[1], indent)]
    return f"{builtin_ident('vm.builtin.invoke_closure')}({', '.join(args)})"


def _kill_object(gen, call, indent):
    """``R.vm.kill_object(x)``: ``x`` reads as null afterwards (TVM clears its register);
    a trivial alias bound before keeps the object."""
    arg = call.args[0] if call.args else None
    name = gen.names.get(arg) if isinstance(arg, Var) else None
    if name is not None and name.isidentifier() and name != "None":
        gen.emit(indent, f"{name} = None")
    return "None"


def _call_tir_dyn(gen, call, indent):
    # R.vm.call_tir_dyn(f, (args..., shape)): the last field holds the symbolic scalars.
    gvar, packed = call.args
    kernel = gen._kernel(gvar.name_hint)
    fields = list(packed.fields)
    args = [gen.expr(f, indent) for f in fields[:-1]]
    shape = fields[-1]
    if isinstance(shape, ShapeExpr):
        args += [gen.prim(v) for v in shape.values]
    else:
        args.append(f"*{gen.expr(shape, indent)}")
    if gen.profile:
        gen.emit(indent, f"_prof({gvar.name_hint!r}, {kernel}, {', '.join(args)})")
    else:
        gen.emit(indent, f"{kernel}({', '.join(args)})")
    return "None"


#: op name -> emitter, merged into the code generator's table of special ops.
VM_IR_EMITTERS = {
    "relax.vm.kill_object": _kill_object,
    "relax.vm.alloc_storage": _vm_builtin("vm.builtin.alloc_storage"),
    "relax.vm.alloc_tensor": _vm_builtin("vm.builtin.alloc_tensor"),
    "relax.memory.alloc_storage": _vm_builtin("memory.alloc_storage"),
    "relax.memory.alloc_tensor": _vm_builtin("vm.builtin.alloc_tensor"),
    "relax.vm.call_tir_dyn": _call_tir_dyn,
    "relax.call_builtin_with_ctx": _call_builtin_with_ctx,
    "relax.make_closure": _make_closure,
    "relax.invoke_closure": _invoke_closure,
    "relax.invoke_pure_closure": _invoke_closure,
}
