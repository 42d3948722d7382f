"""``relax.transform.ForwardGradient``: forward-mode differentiation (Jacobian-vector products).

Built from the reverse mode by transposition, so it covers exactly the programs and ops
``Gradient`` covers (``R.If``, calls, every op with a reverse rule). For ``y = f(x)``:

1. ``vjp(x, g) = sum(f(x) * g)``; its ``Gradient`` with respect to ``x`` is ``J^T g``, linear
   in the cotangent ``g``;
2. ``dot(x, g, u) = sum((J^T g) * u) = g . (J u)``; its ``Gradient`` with respect to ``g`` is
   ``J u``, whatever ``g`` is (``g`` = zeros is passed);
3. ``<name>_jvp(x, u)`` inlines ``f`` (the value) and ``dot``'s adjoint (the tangent).

The helper functions are removed from the module afterwards. The cost is about one forward
and two reverse sweeps, where dedicated forward rules would cost about two forward sweeps;
those rules are not written (see ``docs/arch/autodiff.md``).
"""

from __future__ import annotations

from ....ir.transform import module_pass
from ...analysis import remove_all_unused
from ...block_builder import BlockBuilder
from ...expr import Call, Function, Tuple, TupleGetItem, Var
from ...op import add, multiply, zeros
from ...op import sum as sum_
from ...ty import TensorType
from ...utils import instantiate_body
from ..convert_to_dataflow import convert_to_dataflow
from ..to_non_dataflow import without_dataflow
from .adjoint import GradientError, is_float_dtype
from .pass_ import Gradient

__all__ = ["ForwardGradient"]


def _emit_inlined(bb, func, args):
    """Emit ``func``'s body with its parameters bound to ``args``; return its result."""
    body = without_dataflow(instantiate_body(func, args))
    for block in body.blocks:
        for binding in block.bindings:
            bb.emit_normalized(binding)
    return body.body


def _fresh(var, suffix=""):
    return Var(var.name_hint + suffix, var.ty)


def _float_tensor(ty) -> bool:
    return isinstance(ty, TensorType) and is_float_dtype(ty.dtype)


def ForwardGradient(func_name: str, require_grads=None):
    """Forward-mode automatic differentiation of one Relax function (a module pass).

    Adds ``<func_name>_jvp(params..., tangents...)``: one tangent parameter (same type,
    named ``<param>_tangent``) per entry of ``require_grads`` (all float tensor parameters
    when None), returning ``(f(params), J u)`` where ``J u`` is the directional derivative of
    the result along the tangents.

    Parameters
    ----------
    func_name : str
        The function; it must return one float tensor (any shape).
    require_grads : relax.Var or list of relax.Var, optional
        Parameters of the function that get a tangent.

    Returns
    -------
    tvm.ir.transform.Pass
        A module pass named ``"ForwardGradient"`` (opt_level 0).
    """
    if not isinstance(func_name, str):
        raise TypeError(f"ForwardGradient expects the function name as a str, got {func_name!r}")
    if isinstance(require_grads, Var):
        require_grads = [require_grads]

    def _transform(mod, _ctx):
        func = mod[func_name]
        if not isinstance(func, Function):
            raise GradientError(
                f"{func_name} is not a Relax Function (it is a {type(func).__name__}); "
                "ForwardGradient differentiates Relax functions only"
            )
        out_ty = func.ret_ty if func.ret_ty is not None else func.body.ty
        if not _float_tensor(out_ty):
            raise GradientError(
                f"ForwardGradient of {func_name}: the function must return one float tensor, "
                f"but it returns {out_ty}"
            )
        params = list(func.params)
        if require_grads is None:
            wrt = [i for i, p in enumerate(params) if _float_tensor(p.ty)]
        else:
            wrt = []
            for var in require_grads:
                index = next((i for i, p in enumerate(params) if p is var), None)
                if index is None or not _float_tensor(var.ty):
                    raise GradientError(
                        f"ForwardGradient of {func_name}: require_grads must name float tensor "
                        f"parameters of the function, got {getattr(var, 'name_hint', var)!r}"
                    )
                wrt.append(index)
        if not wrt:
            raise GradientError(f"ForwardGradient of {func_name}: no float tensor parameter")
        vjp_name, dot_name = f"_{func_name}_fwd_vjp", f"_{func_name}_fwd_dot"
        work = mod.clone()

        # 1. vjp(x, g) = sum(f(x) * g), differentiated with respect to the requested x.
        xs = [_fresh(p) for p in params]
        g = Var("cotangent", out_ty)
        bb = BlockBuilder(work)
        with bb.function(vjp_name, [*xs, g], private=True):
            with bb.dataflow():
                value = bb.emit(Call(work.get_global_var(func_name), xs))
                out = bb.emit_output(sum_(multiply(value, g)))
            bb.emit_func_output(out)
        work = Gradient(vjp_name, require_grads=[xs[i] for i in wrt])(bb.get())

        # 2. dot(x, g, u) = sum_i sum(vjp_x_i * u_i), differentiated with respect to g.
        xs2 = [_fresh(p) for p in params]
        g2 = Var("cotangent", out_ty)
        us = [_fresh(params[i], "_tangent") for i in wrt]
        bb = BlockBuilder(work)
        with bb.function(dot_name, [*xs2, g2, *us], private=True):
            with bb.dataflow():
                both = bb.emit(Call(work.get_global_var(f"{vjp_name}_adjoint"), [*xs2, g2]))
                grads = bb.emit(TupleGetItem(both, 1))
                total = None
                for k, u in enumerate(us):
                    term = bb.emit(sum_(multiply(TupleGetItem(grads, k), u)))
                    total = term if total is None else bb.emit(add(total, term))
                total = bb.emit_output(total)
            bb.emit_func_output(total)
        work = Gradient(dot_name, require_grads=[g2])(bb.get())

        # 3. <name>_jvp(x, u) = (f(x), J u).
        xs3 = [_fresh(p) for p in params]
        us3 = [_fresh(params[i], "_tangent") for i in wrt]
        name = f"{func_name}_jvp"
        bb = BlockBuilder(work)
        attrs = {k: v for k, v in (func.attrs or {}).items() if k != "global_symbol"}
        with bb.function(name, [*xs3, *us3], attrs=attrs):
            value = _emit_inlined(bb, func, xs3)
            zero = bb.emit(zeros(out_ty.shape, out_ty.dtype))
            both = _emit_inlined(bb, work[f"{dot_name}_adjoint"], [*xs3, zero, *us3])
            grads = both.fields[1] if isinstance(both, Tuple) else TupleGetItem(both, 1)
            tangent = grads.fields[0] if isinstance(grads, Tuple) else TupleGetItem(grads, 0)
            tangent = bb.emit(tangent, "tangent")
            bb.emit_func_output(Tuple([value, tangent]))
        result = bb.get()
        jvp = remove_all_unused(convert_to_dataflow(result[name]))
        for helper in (vjp_name, f"{vjp_name}_adjoint", dot_name, f"{dot_name}_adjoint", name):
            if helper in result:
                del result[helper]
        result[name] = jvp
        return result

    return module_pass(_transform, opt_level=0, name="ForwardGradient")
