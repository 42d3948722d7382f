"""``VMBuiltinLower``: ``R.memory.*`` (and leftover ``R.builtin.alloc_tensor``) to ``R.vm.*``.

Before::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.memory.kill_storage(storage)

After (VM storage sizes are bytes, of dtype uint8)::

    storage = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    alloc = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.vm.kill_object(storage)

``R.reshape`` to a shape that is not a literal ``R.shape([...])`` (a shape variable, a
``R.tensor_to_shape`` result) becomes ``R.call_packed("vm.builtin.reshape", x, shape)`` and
``R.tensor_to_shape(t)`` becomes ``R.call_packed("vm.builtin.tensor_to_shape", t)``, as in
TVM, in functions that may make impure calls (``relax.force_pure`` or not pure; a pure
function keeps the ops, which the VM runs as they are); a reshape to a literal shape stays (the VM runs it as a view, with memory planning).

A remaining ``R.builtin.alloc_tensor`` becomes ``R.vm.alloc_storage`` + ``R.vm.alloc_tensor``.
TVM 0.27 names this pass ``LowerRuntimeBuiltin``; both names are exported.
"""

from __future__ import annotations

from ...error import InternalError
from ...ffi.structural import structural_equal
from ...ir.transform import module_pass
from ...tirx.expr import IntImm
from ..analysis.type_analysis import is_base_of
from ..expr import ShapeExpr, VarBinding
from ..expr_functor import ExprMutator
from ..op import vm
from ..op.base import call_packed
from ..ty import TensorType
from ._utils import (
    byte_size,
    emit_binding,
    is_op,
    rewrite_bindings,
    rewrite_relax_functions,
)

__all__ = ["LowerRuntimeBuiltin", "VMBuiltinLower"]


def _lower(func, bb):
    def rewrite(binding):
        value = binding.value
        out = []
        if is_op(value, "relax.memory.alloc_storage"):
            size, device, scope, _dtype = value.args
            new_value = vm.alloc_storage(size, device, "uint8", scope)
        elif is_op(value, "relax.memory.alloc_tensor"):
            new_value = vm.alloc_tensor(*value.args)
        elif is_op(value, "relax.memory.kill_storage") or is_op(value, "relax.memory.kill_tensor"):
            new_value = vm.kill_object(value.args[0])
        elif is_op(value, "relax.builtin.alloc_tensor"):
            shape, dtype, device, scope = value.args
            dims = getattr(getattr(value.ty, "shape", None), "values", None)
            if dims is None or not all(isinstance(d, IntImm) for d in dims):
                # As TVM (an InternalError, a RuntimeError): the pipeline lowers these earlier.
                raise InternalError(
                    f"VMBuiltinLower: R.builtin.alloc_tensor of symbolic shape in "
                    f"{binding.var.name_hint} = {value}; it should have been lowered earlier "
                    "by relax.transform.LowerAllocTensor"
                )
            storage = emit_binding(
                bb, "storage", vm.alloc_storage([byte_size(value.ty)], device, "uint8", scope)
            )
            out.append(storage)
            new_value = vm.alloc_tensor(storage.var, 0, shape, dtype, device)
        else:
            return None
        out.append(VarBinding(binding.var, bb.normalize(new_value), span=binding.span))
        return out

    func = rewrite_bindings(func, rewrite)
    # The shape builtins change the types of the bound variables (the reshape result gets
    # the shape variable as its shape), so they go through a mutator that re-types them.
    attrs = func.attrs or {}
    if func.is_pure and not bool(attrs.get("relax.force_pure", False)):
        # call_packed is impure: a pure function keeps the ops (the VM runs them as they are).
        return func
    new_func = _ShapeBuiltinLower(bb.get()).visit_expr(func)
    body_ty = getattr(new_func.body, "ty", None)
    if new_func is not func and body_ty is not None and new_func.ret_ty is not None \
            and not structural_equal(body_ty, new_func.ret_ty) \
            and is_base_of(new_func.ret_ty, body_ty):
        # As TVM's result: the return type becomes the (more precise) type of the new body.
        new_func = new_func.replace(ret_ty=body_ty)
    return new_func


class _ShapeBuiltinLower(ExprMutator):
    """``R.reshape`` to a non-literal shape and ``R.tensor_to_shape`` to packed VM builtins."""

    def visit_call_(self, call):
        call = super().visit_call_(call)
        if is_op(call, "relax.reshape") and not isinstance(call.args[1], ShapeExpr):
            data, shape = call.args
            return call_packed("vm.builtin.reshape", data, shape,
                               ty_args=[TensorType(shape, call.ty.dtype)])
        if is_op(call, "relax.tensor_to_shape"):
            return call_packed("vm.builtin.tensor_to_shape", call.args[0], ty_args=[call.ty])
        return call


@module_pass(opt_level=0, name="VMBuiltinLower")
class VMBuiltinLower:
    """Lower the memory builtins to the ``R.vm`` ops the Relax VM executes."""

    def transform_module(self, mod, ctx):
        """Lower the ``R.memory.*`` ops (and leftover ``R.builtin.alloc_tensor``) of each Relax
        function to ``R.vm.*`` builtins.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The rewritten module.
        """
        return rewrite_relax_functions(mod, _lower)


def LowerRuntimeBuiltin():
    """TVM 0.27's name of :class:`VMBuiltinLower`."""
    return VMBuiltinLower()
