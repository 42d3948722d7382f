"""TE gradients of ``R.call_tir_with_grad`` (the table and the adjoint emission).

``tvm.relax.training.utils.register_te_gradient`` fills the table (and registers the function
as the global ``tvm.relax.te_grad._register.<name>``, as in TVM 0.27); the Gradient pass
reads it here, since relax.transform sits below relax.training.
"""

from __future__ import annotations

from ...expr import Call, TupleGetItem
from ...op.base import call_tir
from ...ty import TupleType

__all__ = [
    "TE_GRAD_PREFIX",
    "as_call_tir",
    "emit_te_gradient",
    "lookup_te_gradient",
    "store_te_gradient",
]

#: Global-function name prefix of registered TE gradients.
TE_GRAD_PREFIX = "tvm.relax.te_grad._register."

#: te_grad_name -> the Python TE gradient function.
_TE_GRADIENTS: dict = {}
_WITH_GRAD = "relax.call_tir_with_grad"


def store_te_gradient(name: str, func) -> None:
    """Record ``func`` as the TE gradient ``name`` (called by ``register_te_gradient``)."""
    _TE_GRADIENTS[name] = func


def lookup_te_gradient(name: str):
    """The TE gradient registered as ``name``; ValueError naming it when there is none."""
    func = _TE_GRADIENTS.get(name)
    if func is None:
        raise ValueError(
            f"Function {TE_GRAD_PREFIX}{name} not found: register the TE gradient of "
            f"call_tir_with_grad(te_grad_name={name!r}) with "
            "tvm.relax.training.utils.register_te_gradient before running Gradient"
        )
    return func


def as_call_tir(value):
    """``value`` with a top-level ``call_tir_with_grad`` turned into the plain ``call_tir``."""
    is_with_grad = isinstance(value, Call) and getattr(value.op, "name", None) == _WITH_GRAD
    if not is_with_grad:
        return value
    args = value.args
    tir_vars = args[2] if len(args) > 2 else None
    out_ty = value.ty_args[0]
    return call_tir(args[0], args[1], out_ty, tir_vars=tir_vars)


def emit_te_gradient(bb, call, output_grad):
    """Emit the TE gradient of ``call`` (a ``call_tir_with_grad``) for ``output_grad``.

    Returns one partial per input of the call (the fields of its argument tuple).
    """
    # Lazy: the te bridge pulls in te, which the rest of the Gradient pass never needs.
    from ...te_bridge import call_te

    name = call.attrs.te_grad_name
    func = lookup_te_gradient(name)
    inputs = list(call.args[1].fields)
    kwargs = dict(call.attrs.te_grad_kwargs or {})
    try:
        expr = call_te(bb, func, output_grad, *inputs, primfunc_name_hint=name, **kwargs)
    except TypeError as err:
        # Name the gradient: the user's function is called far from where it was written.
        raise TypeError(
            f"the TE gradient {name!r} (called as {name}(output_grad, *{len(inputs)} inputs, "
            f"**{sorted(kwargs)}) by Gradient) failed: {err}"
        ) from err
    grads = bb.emit(expr)
    ty = grads.ty
    count = len(ty.fields) if isinstance(ty, TupleType) else 1
    if count != len(inputs):
        raise ValueError(
            f"the TE gradient {name!r} returned {count} tensors for the {len(inputs)} inputs "
            "of its call_tir_with_grad; it must return one gradient per input"
        )
    if not isinstance(ty, TupleType):
        return [grads]
    return [TupleGetItem(grads, i) for i in range(count)]
