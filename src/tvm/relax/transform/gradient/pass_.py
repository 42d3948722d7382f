"""``relax.transform.Gradient``: the driver of reverse-mode automatic differentiation.

It checks the function (spec F.2), copies it with fresh variables, strips checkpoint markers
(:mod:`.checkpoint`), re-emits the forward bindings, runs the reverse sweep
(:mod:`.adjoint`), then removes unused bindings and simplifies (:mod:`.simplify`).
"""

from __future__ import annotations

import contextlib

from ....ir.module import IRModule
from ....ir.transform import module_pass
from ...analysis import remove_all_unused
from ...block_builder import BlockBuilder
from ...expr import DataflowBlock, Function, If, SeqExpr, Tuple, Var
from ...ty import TensorType
from ...utils import copy_with_new_vars
from ..convert_to_dataflow import convert_to_dataflow
from ..to_non_dataflow import without_dataflow
from .adjoint import (
    BackwardGenerator,
    GradientError,
    depends_on,
    gradient_error,
    is_float_dtype,
    is_float_value,
)
from .checkpoint import Recomputer, strip_checkpoints, substitute
from .inline import inline_function_calls
from .simplify import simplify_gradient
from .te_grad import as_call_tir

__all__ = ["Gradient", "GradientError"]


def _script(node) -> str:
    try:
        return node.script() if hasattr(node, "script") else str(node)
    except Exception:  # noqa: BLE001 - only a message is being built
        return repr(node)


def _check_function(mod: IRModule, func_name: str):
    """The Relax function to differentiate, its single dataflow block and its target."""
    func = mod[func_name]  # ValueError naming the candidates when absent
    if not isinstance(func, Function):
        raise gradient_error(
            "func_node",
            f"{func_name} is not a Relax Function (it is a {type(func).__name__}); "
            "Gradient differentiates Relax functions only",
        )
    if not isinstance(func.body, SeqExpr):
        raise gradient_error(
            "seq_expr",
            f"the body of {func_name} is not a sequence of binding blocks; normalize the "
            "function (relax.transform.Normalize) first",
        )
    return func


def _top_bindings(func) -> list:
    """The bindings of the function body's blocks, in order (``R.If`` branches not entered)."""
    return [b for block in func.body.blocks for b in block.bindings]


def _is_single_dataflow(func) -> bool:
    blocks = func.body.blocks
    return len(blocks) == 1 and isinstance(blocks[0], DataflowBlock)


def _check_target(func, func_name, target_index):
    ret = func.body.body
    if isinstance(ret, Var):
        if target_index != 0:
            raise gradient_error(
                f"target_index == 0 ({target_index} vs. 0) ",
                "When the function has only one return value, target_index can only be 0. "
                f"But the target_index specified is {target_index}",
            )
        target = ret
    elif isinstance(ret, Tuple):
        if not 0 <= target_index < len(ret.fields):
            raise gradient_error(
                "target_index < ret->fields.size()",
                "target_index should be in the range of the number of return values of the "
                f"function. But the specified target_index is {target_index}, while the number "
                f"of return values is {len(ret.fields)}",
            )
        target = ret.fields[target_index]
        if not isinstance(target, Var):
            raise gradient_error(
                "target->IsInstance<VarNode>()",
                f"Target must be a Var, but the specified target is {_script(target)}; bind it "
                "to a variable inside the dataflow block",
            )
    else:
        raise GradientError(
            "The return value of the function must be Var or Tuple. However, the return value "
            f"of {func_name} is {type(ret).__name__} {_script(ret)}"
        )
    ty = target.ty
    if not (isinstance(ty, TensorType) and ty.ndim == 0 and is_float_dtype(ty.dtype)):
        raise gradient_error(
            "IsFloatScalar(target)",
            "The differentiation target must be a float scalar (0-dim Tensor), but the Type of "
            f"the given target {target.name_hint} is {_script(ty)}; reduce it to a scalar "
            "(e.g. with R.sum) first",
        )
    return target


def _check_require_grads(func, func_name, require_grads):
    """Positions of the requested variables: ``("param", i)`` or ``("bound", i)``."""
    params = list(func.params)
    bound = [b.var for b in _top_bindings(func)]
    if require_grads is None:
        return [("param", i) for i in range(len(params))]
    positions, seen = [], set()
    for var in require_grads:
        if not isinstance(var, Var):
            raise TypeError(f"require_grads must hold relax.Var objects, got {var!r}")
        if any(var is p for p in params):
            pos = ("param", next(i for i, p in enumerate(params) if p is var))
        elif any(var is v for v in bound):
            pos = ("bound", next(i for i, v in enumerate(bound) if v is var))
        else:
            raise gradient_error(
                "var_in_function",
                f"There is no Var named {var.name_hint} in the function {func_name}; "
                "require_grads must name parameters or bound variables of that function",
            )
        if pos in seen:
            raise gradient_error(
                "var_set.count(var) == 0 (1 vs. 0) ",
                f"Var {var.name_hint} appears more than once in require_grads",
            )
        seen.add(pos)
        if not is_float_value(var.ty):
            raise gradient_error(
                "IsFloatTensorOrTupleOfFloat(var)",
                "Only Tensors of floating point dtype or Tuples of float Tensors can require "
                f"gradients, but the Type of Var {var.name_hint} is {_script(var.ty)}",
            )
        positions.append(pos)
    return positions


def _renamed_vars(func, new_func) -> dict:
    """``id(original var) -> copied var`` for the parameters and bound variables (by position)."""
    mapping = {id(old): new for old, new in zip(func.params, new_func.params)}
    old_bindings = _top_bindings(func)
    new_bindings = _top_bindings(new_func)
    mapping.update({id(a.var): b.var for a, b in zip(old_bindings, new_bindings)})
    return mapping


def _prepare(mod, func, func_name, target, positions, dataflow):
    """The copied function's parameters, flat (inlined) bindings, return, target, requested.

    With ``dataflow`` False the copy has no dataflow block (the control-flow path).
    """
    new_func = copy_with_new_vars(func)
    if not dataflow:
        new_func = without_dataflow(new_func)
    params = list(new_func.params)
    bindings = _top_bindings(new_func)
    new_target = _renamed_vars(func, new_func)[id(target)]
    requested = [params[i] if kind == "param" else bindings[i].var for kind, i in positions]
    bindings = inline_function_calls(mod, bindings, func_name, dataflow=dataflow)
    return params, bindings, new_func.body.body, new_target, requested


def _adjoint_function(func, func_name, require_grads, target_index, mod=None):
    """Build ``<func_name>_adjoint`` from ``func`` (already checked).

    Returns the adjoint and the builder's module: ``mod`` plus the PrimFuncs of TE
    gradients (``call_tir_with_grad``) emitted on the way.

    A function that is one dataflow block (after inlining calls) gets Apache TVM's adjoint,
    one dataflow block. Any other (``R.If``, several blocks, bindings outside dataflow) is
    differentiated without dataflow blocks; ``ConvertToDataflow`` then regroups the pure runs.
    """
    target = _check_target(func, func_name, target_index)
    positions = _check_require_grads(func, func_name, require_grads)

    dataflow = _is_single_dataflow(func)
    prepared = _prepare(mod, func, func_name, target, positions, dataflow)
    if dataflow and any(isinstance(b.value, If) for b in prepared[1]):
        dataflow = False  # an inlined callee branches
        prepared = _prepare(mod, func, func_name, target, positions, dataflow)
    params, bindings, ret, new_target, requested = prepared

    forward, info = strip_checkpoints(params, bindings)
    ret = substitute(ret, info.redirect)
    new_target = info.resolve(new_target)
    requested = [info.resolve(var) for var in requested]
    name = f"{func_name}_adjoint"
    attrs = {k: v for k, v in (func.attrs or {}).items() if k != "global_symbol"}
    bb = BlockBuilder(mod)
    with bb.function(name, params, attrs=attrs, pure=func.is_pure):
        with bb.dataflow() if dataflow else contextlib.nullcontext():
            for binding in forward:
                # Inside the adjoint a call_tir_with_grad is a plain call_tir (as in TVM).
                bb.emit_normalized(binding.replace(value=as_call_tir(binding.value)))
            generator = BackwardGenerator(
                bb, Recomputer(bb, info), None if dataflow else depends_on(requested, forward)
            )
            generator.seed(new_target)
            for binding in reversed(forward):
                generator.visit_binding(binding)
            outs = generator.epilogue(requested, dataflow=dataflow)
        bb.emit_func_output(Tuple([ret, Tuple(outs)]))
    adjoint = bb.get()[name]
    if not dataflow:
        adjoint = convert_to_dataflow(adjoint)
    adjoint = remove_all_unused(adjoint)
    return simplify_gradient(adjoint), bb.get()


def Gradient(func_name: str, require_grads=None, target_index: int = 0):
    """Reverse-mode automatic differentiation of one Relax function (a module pass).

    Adds ``<func_name>_adjoint`` to the module. It takes the same parameters (fresh
    variables) and returns ``(original return value, (adjoint_1, ..., adjoint_k))``: one
    adjoint per entry of ``require_grads``, in order.

    Parameters
    ----------
    func_name : str
        The function to differentiate. Its body must be one dataflow block.
    require_grads : relax.Var or list of relax.Var, optional
        The variables (parameters or bound variables of the function) whose adjoints are
        returned; all parameters when None.
    target_index : int
        When the function returns a tuple, which field is the target; it must be a float
        scalar (0-d tensor).

    Returns
    -------
    tvm.ir.transform.Pass
        A module pass named ``"Gradient"`` (opt_level 0).

    Examples
    --------
    >>> from tvm import relax
    >>> x = relax.Var("x", relax.TensorType([3], "float32"))
    >>> bb = relax.BlockBuilder()
    >>> with bb.function("main", [x]):
    ...     with bb.dataflow():
    ...         gv = bb.emit_output(relax.op.sum(relax.op.multiply(x, x)))
    ...     bb.emit_func_output(gv)
    I.GlobalVar("main")
    >>> mod = relax.transform.Gradient("main")(bb.get())
    >>> [b.var.name_hint for b in mod["main_adjoint"].body.blocks[0].bindings][-2:]
    ['x_adjoint', 'x_adjoint_out']
    """
    if not isinstance(func_name, str):
        raise TypeError(f"Gradient expects the function name as a str, got {func_name!r}")
    if isinstance(require_grads, Var):
        require_grads = [require_grads]
    elif require_grads is not None:
        require_grads = list(require_grads)
    if not isinstance(target_index, int) or isinstance(target_index, bool):
        raise TypeError(f"target_index must be an int, got {target_index!r}")

    def _transform(mod, _ctx):
        func = _check_function(mod, func_name)
        name = f"{func_name}_adjoint"
        base = mod.clone()
        if name in base:
            del base[name]  # replaced: the builder must add the adjoint under this very name
        adjoint, new_mod = _adjoint_function(func, func_name, require_grads, target_index, base)
        new_mod[name] = adjoint.with_attr("global_symbol", name)
        return new_mod

    return module_pass(_transform, opt_level=0, name="Gradient")
