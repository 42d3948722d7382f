"""Type inference of ``relax.call_tir``: the declared output type, checked against the callee.

When the module being built (the BlockBuilder's) holds the called PrimFunc, each tensor
argument and each declared output must match the PrimFunc's buffer of the same position: the
same number of dimensions, the same dtype (unless unknown), and the same extent wherever both
are known. A symbolic extent of the PrimFunc (``n``) is bound by its first use and must agree
with every later one. Mismatches raise ``TypeError`` naming the position (so
``relax.analysis.well_formed`` rejects such a module, as in Apache TVM 0.27). Calls whose
arguments are not all tensors, or whose PrimFunc takes further parameters, are not checked.
"""

from __future__ import annotations

from ...ir.type import TupleType
from ..expr import Tuple
from ..ty import TensorType
from .infer_utils import op_name, text

__all__ = [
    "infer_call_tir", "infer_call_tir_inplace", "validate_call_tir", "validate_call_tir_inplace",
]


def _callee(call, bb):
    mod = getattr(bb, "_mod", None) if bb is not None else None
    if mod is None:
        return None
    func = mod.functions.get(call.args[0]) if call.args else None
    if func is None or type(func).__name__ != "PrimFunc":
        return None
    return func


def _static(dim):
    value = getattr(dim, "value", dim)
    return value if isinstance(value, int) else None


def _check_tensor(call, ty, buf, role, binding):
    if not isinstance(ty, TensorType):
        return
    if ty.ndim != -1 and ty.ndim != len(buf.shape):
        raise TypeError(
            f"{op_name(call)}: {role} has {ty.ndim} dimensions but the PrimFunc's buffer "
            f"{buf.name} has {len(buf.shape)}"
        )
    if ty.dtype not in ("void", "") and ty.dtype != buf.dtype:
        raise TypeError(
            f"{op_name(call)}: {role} has dtype {ty.dtype} but the PrimFunc's buffer "
            f"{buf.name} has dtype {buf.dtype}"
        )
    shape = getattr(ty.shape, "values", None)
    if shape is None or len(shape) != len(buf.shape):
        return
    for axis, (dim, expected) in enumerate(zip(shape, buf.shape)):
        want = _static(expected)
        if want is None and type(expected).__name__ in ("Var", "SizeVar"):
            bound = binding.get(id(expected))
            if bound is None:
                binding[id(expected)] = dim
                continue
            want = _static(bound)
        have = _static(dim)
        if want is not None and have is not None and want != have:
            raise TypeError(
                f"{op_name(call)}: {role} has extent {have} at axis {axis} but the PrimFunc's "
                f"buffer {buf.name} expects {want}"
            )


def infer_call_tir(call, bb=None):
    """``ty_args[0]`` (one output type or a tuple), after checking the callee's signature."""
    if not call.ty_args:
        raise TypeError(f"{op_name(call)} requires its output type (ty_args / out_ty)")
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    func = _callee(call, bb)
    if func is None or len(call.args) < 2:
        return out
    args = call.args[1]
    inputs = list(args.fields) if isinstance(args, Tuple) else [args]
    in_types = [a.ty for a in inputs]
    if isinstance(args, Tuple) is False and isinstance(args.ty, TupleType):
        in_types = list(args.ty.fields)
    out_types = list(out.fields) if isinstance(out, TupleType) else [out]
    n_extra = len(call.args[2].values) if len(call.args) > 2 and hasattr(call.args[2], "values") else 0
    if not all(isinstance(t, TensorType) for t in in_types + out_types):
        return out
    if len(func.params) != len(in_types) + len(out_types) + n_extra:
        # Kernels may take further scalar parameters filled in by the VM (output extents of
        # a dynamic op): positions are then not one-to-one, so nothing more is checked.
        return out
    binding = {}
    roles = [f"input {i}" for i in range(len(in_types))] + [
        f"output {i}" for i in range(len(out_types))
    ]
    for param, ty, role in zip(func.params, in_types + out_types, roles):
        buf = func.buffer_map.get(param)
        if buf is not None:
            _check_tensor(call, ty, buf, role, binding)
    return out


def _prove_same_shape(a, b) -> bool:
    from .infer_utils import prove_equal

    da, db = getattr(a.shape, "values", None), getattr(b.shape, "values", None)
    if da is None or db is None:
        return a.shape is not None and a.shape is b.shape
    return len(da) == len(db) and all(prove_equal(x, y) is True for x, y in zip(da, db))


def infer_call_tir_inplace(call, bb=None):
    """``call_tir_inplace``: TVM's checks of ``inplace_indices`` (ValueError), then the callee's
    signature, whose parameters are the inputs followed by the new (index -1) outputs."""
    if not call.ty_args:
        raise TypeError(f"{op_name(call)} requires its output type (ty_args / out_ty)")
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    outs = list(out.fields) if isinstance(out, TupleType) else [out]
    indices = [int(i) for i in call.attrs.inplace_indices]
    if len(indices) != len(outs):
        raise ValueError("There must be an in-place index specified for each output")
    args = call.args[1]
    if not isinstance(args, Tuple):
        raise TypeError(
            f"call_tir_inplace expects its arguments as an in-line tuple, got {type(args).__name__}"
        )
    seen = set()
    for i, index in enumerate(indices):
        if index < -1 or index >= len(args.fields):
            raise ValueError(
                f"In-place index {i} is out of range (must be between -1 and "
                f"{len(args.fields) - 1}, inclusive, but is {index})"
            )
        if index != -1:
            if index in seen:
                raise ValueError(
                    f"All in-place indices must be unique, but index {index} appears more "
                    "than once."
                )
            seen.add(index)
    if not seen:
        raise ValueError(
            "At least one index must have a value other than -1 (or else simply use call_tir)"
        )
    func = _callee(call, bb)
    if func is None:
        return out
    fresh = [t for t, index in zip(outs, indices) if index == -1]
    in_types = [a.ty for a in args.fields]
    n_extra = len(call.args[2].values) if len(call.args) > 2 and hasattr(call.args[2], "values") else 0
    if not all(isinstance(t, TensorType) for t in in_types + fresh):
        return out
    if len(func.params) != len(in_types) + len(fresh) + n_extra:
        return out
    binding = {}
    roles = [f"input {i}" for i in range(len(in_types))] + [
        f"output {i}" for i, index in enumerate(indices) if index == -1
    ]
    for param, ty, role in zip(func.params, in_types + fresh, roles):
        buf = func.buffer_map.get(param)
        if buf is not None:
            _check_tensor(call, ty, buf, role, binding)
    return out


def validate_call_tir_inplace(call):
    """``FValidate`` of ``call_tir_inplace``: each in-place output has exactly the type of the
    input it overwrites (checked by ``well_formed``, so a module parsed with
    ``check_well_formed=False`` may hold such a call, as in TVM)."""
    out = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    outs = list(out.fields) if isinstance(out, TupleType) else [out]
    args = call.args[1]
    for i, index in enumerate(int(k) for k in call.attrs.inplace_indices):
        if index == -1:
            continue
        ty = outs[i]
        if not isinstance(ty, TensorType) or ty.shape is None or ty.dtype in ("void", ""):
            raise ValueError(
                "The output type for an in-place mutation must be a tensor with a defined shape "
                f"and dtype, but output {i} has type {ty}"
            )
        in_ty = args.fields[index].ty
        if not (isinstance(in_ty, TensorType) and in_ty.dtype == ty.dtype
                and _prove_same_shape(in_ty, ty)):
            raise ValueError(
                "The input used for an in-place mutation must be a tensor with identical shape "
                f"and dtype as the output.  However, output {i} with type {ty} is specified as "
                f"an in-place mutation of input {index} with type {in_ty}"
            )


def _param_type(func, param):
    """The Relax type a PrimFunc parameter expects: its buffer's tensor type, or a scalar."""
    from ...ir.type import PrimType  # the ir layer, below relax

    buf = func.buffer_map.get(param)
    if buf is not None:
        return TensorType(list(buf.shape), buf.dtype)
    return PrimType(param.dtype)


def _type_text(ty) -> str:
    """``T.float32`` for a scalar without a known value (as TVM prints it), else the script."""
    if type(ty).__name__ == "PrimType" and getattr(ty, "value", None) is None:
        return f"T.{ty.dtype}"
    return text(ty)


def _bind_or_compare(expected, actual, binding) -> bool:
    """Match one extent of a parameter against an argument's; bind a parameter variable on
    its first use. False only when they provably differ."""
    from ...tirx.expr_functor import substitute  # the tirx layer, below relax
    from .infer_utils import prove_equal

    if type(expected).__name__ in ("Var", "SizeVar") and id(expected) not in binding:
        binding[id(expected)] = (expected, actual)
        return True
    if binding:
        vmap = {var: value for var, value in binding.values()}
        try:
            expected = substitute(expected, vmap)
        except TypeError:
            return True  # dtype mismatch between extents: left to the type inference
    return prove_equal(expected, actual) is not False


def _matches(expected, actual, binding) -> bool:
    """Whether an argument of type ``actual`` may be passed where ``expected`` is declared."""
    if type(expected).__name__ == "PrimType":
        return type(actual).__name__ == "PrimType" and str(actual.dtype) == str(expected.dtype)
    if not isinstance(actual, TensorType):
        return False
    if actual.dtype not in ("void", "") and actual.dtype != expected.dtype:
        return False
    if actual.ndim != -1 and actual.ndim != expected.ndim:
        return False
    have = getattr(actual.shape, "values", None)
    if have is None:
        return True
    return all(_bind_or_compare(e, a, binding)
               for e, a in zip(expected.shape.values, have))


def _output_type(func, params, binding):
    """The output type the PrimFunc's remaining parameters imply, with bound variables."""
    from ...ir.type import PrimType  # the ir layer, below relax
    from ...tirx.expr_functor import substitute  # the tirx layer, below relax
    from .infer_utils import simplify

    vmap = {var: value for var, value in binding.values()}
    types = []
    for param in params:
        ty = _param_type(func, param)
        if isinstance(ty, TensorType) and vmap:
            dims = []
            for dim in ty.shape.values:
                try:
                    dims.append(simplify(substitute(dim, vmap)))
                except TypeError:
                    dims.append(dim)
            ty = TensorType(dims, ty.dtype)
        elif not isinstance(ty, (TensorType, PrimType)):
            return None
        types.append(ty)
    return types[0] if len(types) == 1 else TupleType(types)


def _compatible(inferred, explicit) -> bool:
    """False when the declared output provably differs from the one the PrimFunc implies."""
    from .infer_utils import prove_equal

    if isinstance(inferred, TupleType) or isinstance(explicit, TupleType):
        if not (isinstance(inferred, TupleType) and isinstance(explicit, TupleType)):
            return False
        return len(inferred.fields) == len(explicit.fields) and all(
            _compatible(i, e) for i, e in zip(inferred.fields, explicit.fields))
    if type(inferred).__name__ == "PrimType" or type(explicit).__name__ == "PrimType":
        return type(inferred) is type(explicit) and str(inferred.dtype) == str(explicit.dtype)
    if not isinstance(explicit, TensorType):
        return True
    if explicit.dtype not in ("void", "") and explicit.dtype != inferred.dtype:
        return False
    if explicit.ndim != -1 and explicit.ndim != inferred.ndim:
        return False
    have = getattr(explicit.shape, "values", None)
    if have is None:
        return True
    return all(prove_equal(i, e) is not False for i, e in zip(inferred.shape.values, have))


def validate_call_tir(call, mod=None):
    """``FValidate`` of ``call_tir``: the arguments and ``out_ty`` fit the called PrimFunc.

    Run by ``relax.analysis.well_formed`` with the module holding the PrimFunc (a call of a
    function outside ``mod`` is not checked). The PrimFunc's parameters are the inputs, then
    the outputs, then the ``tir_vars``: each input must have the type of its parameter
    (``Argument 1 type mismatch: expected T.float32, given T.int64``; a ``ShapeExpr`` is not a
    scalar), the parameter's symbolic extents taking their values from the arguments, and the
    remaining parameters imply the output type, which ``out_ty`` must not contradict. Raises
    ``ValueError``.
    """
    if mod is None or len(call.args) < 2 or not call.ty_args:
        return
    func = mod.functions.get(call.args[0])
    if func is None or type(func).__name__ != "PrimFunc":
        return
    args = call.args[1]
    if isinstance(args, Tuple):
        in_types = [a.ty for a in args.fields]
    elif isinstance(args.ty, TupleType):
        in_types = list(args.ty.fields)
    else:
        in_types = [args.ty]
    n_extra = len(call.args[2].values) if len(call.args) > 2 and hasattr(call.args[2], "values") \
        else 0
    params = list(func.params)
    n_out = len(params) - len(in_types) - n_extra
    if n_out < 0:
        raise ValueError(
            f"R.call_tir passes {len(in_types)} arguments and {n_extra} tir_vars to a PrimFunc "
            f"with {len(params)} parameters"
        )
    binding = {}
    for index, (param, ty) in enumerate(zip(params, in_types)):
        expected = _param_type(func, param)
        if not _matches(expected, ty, binding):
            raise ValueError(
                f"Argument {index} type mismatch: expected {_type_text(expected)}, given "
                f"{_type_text(ty)}"
            )
    explicit = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
    inferred = _output_type(func, params[len(in_types):len(in_types) + n_out], binding)
    if inferred is not None and n_out > 0 and not _compatible(inferred, explicit):
        raise ValueError(
            "The `out_ty` argument for R.call_tir must be compatible with the PrimFunc.  "
            "However, the PrimFunc's signature implies that the output should be "
            f"{_type_text(inferred)}, but the `out_ty` argument was {_type_text(explicit)}"
        )


#: ``relax.analysis.well_formed`` passes the module to validators that need it.
validate_call_tir.takes_module = True
