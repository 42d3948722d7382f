"""Type inference of the ``relax.grad`` ops."""

from __future__ import annotations

from ..infer_utils import tensor_arg, tensor_args


def infer_identity(call, _bb=None):
    """The input's type (these ops only mark the graph)."""
    if len(call.args) != 1:
        raise TypeError(f"relax.{call.op.name[6:]} expects 1 argument, got {len(call.args)}")
    return call.args[0].ty


def infer_checkpoint(call, _bb=None):
    """``start_checkpoint``/``end_checkpoint``: the input's type; the input must be a Var once
    normalized (a computed value is bound to one first; a tuple or constant is rejected)."""
    ty = infer_identity(call, _bb)
    # Lazy: relax.expr imports the op registry, which loads this family.
    from ...expr import Var

    if not isinstance(call.args[0], Var):
        raise TypeError(f"The argument of relax.op.{call.op.name[6:]} should be a Var.")
    return ty


def infer_like_data(call, _bb=None):
    """The type of the forward op's data (argument 1)."""
    tensor_arg(call, 0, "output gradient")
    return tensor_arg(call, 1, "forward input")


def infer_nll_loss_backward(call, _bb=None):
    """The type of ``predictions``."""
    count = len(call.args)
    if count not in (3, 4):
        raise TypeError(f"nll_loss_backward expects 3 or 4 arguments, got {count}")
    return tensor_args(call, count)[1]
