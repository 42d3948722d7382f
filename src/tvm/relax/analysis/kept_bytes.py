"""How many bytes of forward values the backward pass of ``relax.transform.Gradient`` keeps.

A pytvm extension (Apache TVM 0.27 has no such analysis). See "Checkpointing to a memory
budget" in ``docs/arch/autodiff.md``.

The estimate follows the Gradient pass itself rather than a model of it:

1. *What the gradient rules read.* The function (markers stripped) is differentiated once,
   and the forward values that the adjoint reads after its seed are recorded. This is the
   set the backward pass needs when nothing is checkpointed.
2. *Which values are kept.* The checkpoint markers are resolved by the pass's own helper
   (``strip_checkpoints`` in ``relax/transform/gradient/checkpoint.py``). It gives the
   *checkpointed* variables of spec F.4. A value the rules read is kept when it is
   checkpointed. Otherwise it is recomputed from its inputs, and the same question is asked of
   each input (as the pass's ``Recomputer`` does).

Parameters are never counted: the caller holds them anyway. A tuple counts as the sum of its
fields. Shapes must be static.
"""

from __future__ import annotations

import math

from ...ir.module import IRModule
from ...runtime import DataType
from ...tirx.expr import IntImm
from ..block_builder import BlockBuilder
from ..expr import (
    BindingBlock,
    DataflowBlock,
    DataflowVar,
    Function,
    SeqExpr,
    Tuple,
    Var,
    VarBinding,
)
from ..ty import PrimType, ShapeType, TensorType, TupleType

__all__ = ["KeptModel", "estimate_kept_bytes", "static_nbytes"]


def _static_dims(ty):
    shape = getattr(ty, "shape", None)
    values = getattr(shape, "values", None)
    if values is None or not all(isinstance(d, (int, IntImm)) for d in values):
        return None
    return [int(d) for d in values]


def static_nbytes(ty, where: str = "a value") -> int:
    """Bytes of a value of type ``ty`` (a tensor, or a tuple of them) with static shapes."""
    if isinstance(ty, TupleType):
        return sum(static_nbytes(field, where) for field in ty.fields)
    if isinstance(ty, TensorType):
        dims = _static_dims(ty)
        if dims is None or ty.dtype is None or str(ty.dtype) == "":
            raise ValueError(
                f"{where} has type {ty}: the kept-bytes analysis needs static shapes and "
                "dtypes (replace symbolic dimensions by numbers first)"
            )
        dtype = DataType(str(ty.dtype))
        return (math.prod(dims) * dtype.bits * dtype.lanes + 7) // 8
    if isinstance(ty, PrimType):
        dtype = DataType(str(ty.dtype))
        return (dtype.bits * dtype.lanes + 7) // 8
    if isinstance(ty, ShapeType):
        return 0  # a handful of integers, kept by the VM anyway
    raise ValueError(
        f"{where} has type {ty}: the kept-bytes analysis handles tensors, tuples of tensors, "
        "shapes and scalars only"
    )


def _gradient_parts():
    # Lazy: relax.transform (which holds Gradient and its checkpoint helpers) imports
    # relax.analysis, so importing it at module level would be circular.
    from ..transform.gradient import Gradient
    from ..transform.gradient.checkpoint import strip_checkpoints, substitute, used_vars_of

    return Gradient, strip_checkpoints, substitute, used_vars_of


def flat_bindings(func) -> list:
    """The bindings of ``func``'s top-level blocks, in order (``R.If`` branches not entered)."""
    return [b for block in func.body.blocks for b in block.bindings]


def is_single_dataflow(func) -> bool:
    """Whether ``func``'s body is one dataflow block (else: the Gradient control-flow path)."""
    blocks = func.body.blocks
    return len(blocks) == 1 and isinstance(blocks[0], DataflowBlock)


def _without_dataflow(func):
    # Lazy: relax.transform imports relax.analysis (see _gradient_parts).
    from ..transform.to_non_dataflow import without_dataflow

    return without_dataflow(func)


def _check_function(func, what):
    if not isinstance(func, Function):
        raise TypeError(f"{what} expects a relax.Function, got {type(func).__name__}")
    if not isinstance(func.body, SeqExpr):
        raise ValueError(  # noqa: TRY004 - unsupported IR, not a wrong argument type
            f"{what} needs a function whose body is a sequence of binding blocks, as "
            "relax.transform.Gradient does"
        )
    for param in func.params:
        static_nbytes(param.ty, f"{what}: parameter {param.name_hint}")
    for binding in flat_bindings(func):
        if not isinstance(binding, VarBinding):
            raise ValueError(  # noqa: TRY004 - unsupported IR, not a wrong argument type
                f"{what}: {binding.var.name_hint} is bound by a MatchCast; Gradient rejects "
                "MatchCast, so there is nothing to estimate"
            )
        static_nbytes(binding.var.ty, f"{what}: variable {binding.var.name_hint}")


def _target(ret, target_index):
    if isinstance(ret, Tuple):
        if not 0 <= target_index < len(ret.fields):
            raise ValueError(
                f"target_index {target_index} is out of range for a return tuple of "
                f"{len(ret.fields)} fields"
            )
        return ret.fields[target_index]
    return ret


def _is_float_scalar(ty):
    return (
        isinstance(ty, TensorType)
        and ty.ndim == 0
        and str(ty.dtype).startswith(("float", "bfloat"))
    )


def _rule_reads(params, bindings, ret, target_index, what, dataflow=True):
    """The bound variables (of ``bindings``, markers already stripped) the adjoint reads.

    ``dataflow`` False: the function has control flow or several blocks; the surrogate is
    one binding block of plain variables (Gradient's control-flow path).
    """
    from ..op import sum as _sum  # lazy: the op library sits above relax.analysis

    gradient, _, substitute, _ = _gradient_parts()
    # Unique names make the adjoint's forward values easy to map back by position.
    renamed = {}
    new_bindings = []
    for i, binding in enumerate(bindings):
        kind = DataflowVar if dataflow and isinstance(binding.var, DataflowVar) else Var
        new_var = kind(f"kept_b{i}", binding.var.ty)
        new_bindings.append(VarBinding(new_var, substitute(binding.value, renamed)))
        renamed[binding.var] = new_var
    new_ret = substitute(ret, renamed)
    target = _target(new_ret, target_index)
    index = target_index if isinstance(new_ret, Tuple) else 0
    if isinstance(target, Var) and not _is_float_scalar(target.ty):
        if not isinstance(target.ty, TensorType) or not str(target.ty.dtype).startswith(
            ("float", "bfloat")
        ):
            raise ValueError(
                f"{what}: the differentiation target has type {target.ty}; it must be a float "
                "tensor (a non-scalar one is reduced with R.sum for the estimate)"
            )
        # A backbone returns logits, not a loss: estimate the backward pass of sum(logits).
        surrogate = Var("kept_target", TensorType([], target.ty.dtype))
        new_bindings.append(VarBinding(surrogate, BlockBuilder().normalize(_sum(target))))
        new_ret, index = surrogate, 0
    block = DataflowBlock(new_bindings) if dataflow else BindingBlock(new_bindings)
    body = SeqExpr([block], new_ret)
    surrogate_func = BlockBuilder().normalize(Function(list(params), body, ret_ty=new_ret.ty))

    mod = gradient("main", target_index=index)(IRModule({"main": surrogate_func}))
    adjoint = flat_bindings(mod["main_adjoint"])
    target_name = _target(new_ret, index).name_hint
    seed = next(i for i, b in enumerate(adjoint) if b.var.name_hint == f"{target_name}_adjoint")
    by_name = {f"kept_b{i}": binding.var for i, binding in enumerate(bindings)}
    from .var_analysis import free_vars

    reads = []
    for binding in adjoint[seed:]:
        for var in free_vars(binding.value):
            original = by_name.get(var.name_hint)
            if original is not None and original not in reads:
                reads.append(original)
    return reads


class KeptModel:
    """The kept-bytes facts of one function, reusable for several placements of markers.

    Parameters
    ----------
    func : relax.Function
        A function ``relax.transform.Gradient`` accepts, with static shapes; it may hold
        checkpoint markers.
    target_index : int
        The returned tuple's field that is differentiated (as in Gradient). A float tensor
        that is not a scalar is reduced with ``R.sum`` for the estimate.
    what : str
        Who asks, for error messages.
    """

    def __init__(self, func, target_index: int = 0, what: str = "estimate_kept_bytes"):
        _check_function(func, what)
        _, strip, substitute, self._used_vars = _gradient_parts()
        self.params = list(func.params)
        dataflow = is_single_dataflow(func)
        self._func = func
        # Gradient strips a function with control flow after dropping its dataflow blocks
        # (markers on a dataflow output then resolve differently), so the model does too.
        work = func if dataflow else _without_dataflow(func)
        bindings, info = strip(self.params, flat_bindings(work))
        # Stripping makes fresh output aliases, so the function's own strip is remembered.
        self._stripped = (bindings, info)
        ret = substitute(work.body.body, info.redirect)
        #: The bound variables whose forward value a gradient rule reads.
        self.reads = _rule_reads(self.params, bindings, ret, target_index, what, dataflow)

    def kept_vars(self, func) -> list:
        """The bound variables of ``func`` (the same function, markers placed anywhere) whose
        forward value the backward pass keeps, in binding order. For a function with control
        flow or several blocks they are those of its copy without dataflow blocks (the same
        names), as the Gradient pass sees it."""
        if func is self._func:
            bindings, info = self._stripped
        else:
            _, strip, _, _ = _gradient_parts()
            if not is_single_dataflow(func):
                func = _without_dataflow(func)  # keeps the variables of a function without any
            bindings, info = strip(list(func.params), flat_bindings(func))
        values = {b.var: b.value for b in bindings}
        kept, seen = set(), set()
        stack = list(self.reads)
        while stack:
            var = stack.pop()
            if var in seen or var not in values:
                continue  # a parameter, or already visited
            seen.add(var)
            if var in info.checkpointed:
                kept.add(var)
            else:
                # Recomputed in the backward pass (``<var>_cp``): its inputs are needed.
                stack.extend(self._used_vars(values[var]))
        return [b.var for b in bindings if b.var in kept]

    def kept_bytes(self, func) -> int:
        """Total bytes of :meth:`kept_vars`."""
        return sum(static_nbytes(v.ty, v.name_hint) for v in self.kept_vars(func))


def estimate_kept_bytes(func, target_index: int = 0) -> int:
    """Bytes of the forward values that ``relax.transform.Gradient``'s backward pass keeps.

    A pytvm extension (not Apache TVM API). The function is differentiated once (all
    parameters requested; requesting fewer can only read fewer values) to learn what the
    gradient rules read; checkpoint markers decide, by the pass's own rule (spec F.4), which
    of those values are kept and which are recomputed. Parameters are not counted; a tuple
    counts as the sum of its fields.

    Parameters
    ----------
    func : relax.Function
        Static shapes; markers, R.If and several blocks allowed.
    target_index : int
        Which returned field is differentiated when the function returns a tuple. A float
        tensor target that is not a scalar (e.g. a backbone's logits) is reduced with
        ``R.sum`` for the estimate.

    Returns
    -------
    int
        The kept bytes.

    Raises
    ------
    ValueError
        For symbolic shapes, a MatchCast, or a target that is
        not a float tensor (plus the errors of ``relax.transform.Gradient`` itself).
    """
    return KeptModel(func, target_index).kept_bytes(func)
