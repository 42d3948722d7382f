"""``from_exported_program``: a ``torch.export.ExportedProgram`` as a Relax ``IRModule``.

The result has one function ``main``. Its parameters are the user inputs, in the order
``torch.export`` recorded them; with ``keep_params_as_input=True`` the model's parameters
follow (in ``graph_signature.input_specs`` order), and the function carries the attributes
``num_input`` (the number of user inputs) and ``params`` (the parameter values as
``tvm.runtime.Tensor``). Otherwise the parameters are bound as constants, as are buffers
and lifted tensor constants. ``main`` returns a tuple of the user outputs
(``unwrap_unit_return_tuple`` returns a lone output bare).

pytvm addition: ``keep_buffers_as_state=True`` (with ``keep_params_as_input``) makes the
buffers (batch-norm running statistics) model state: they follow the parameters as inputs,
``main`` returns the user outputs followed by the buffers' new values (a buffer the graph
does not update comes back unchanged), and the attributes ``state_num`` and ``states`` (the
initial buffer values) are set. This is the calling convention of
``relax.training.SetupTrainer`` (see :mod:`.training`).

Symbolic dimensions (``torch.export.Dim``) become ``int64`` TIR variables named after
torch's symbols; their ranges become the ``tir_var_lower_bound`` / ``tir_var_upper_bound``
attributes, as in TVM.
"""

from __future__ import annotations

import contextlib
import math

from ....ir.expr import PrimExpr
from ....runtime import tensor as runtime_tensor
from ... import expr as rx
from ... import op as R
from ...ty import PrimType, TensorType
from ._torch import dtype_name, require_torch
from .convert_control import has_cond
from .importer import GraphImporter


def _to_numpy(t):
    return t.detach().cpu().contiguous().numpy()


def from_exported_program(
    exported_program,
    *,
    keep_params_as_input: bool = False,
    unwrap_unit_return_tuple: bool = False,
    no_bind_return_tuple: bool = False,
    custom_convert_map: dict | None = None,
    run_ep_decomposition: bool = True,
    keep_buffers_as_state: bool = False,
):
    """Convert a ``torch.export.ExportedProgram`` to a Relax ``IRModule`` (function ``main``).

    Parameters
    ----------
    exported_program : torch.export.ExportedProgram
        The output of ``torch.export.export(model, args)``.
    keep_params_as_input : bool
        Keep the parameters as function inputs after the user inputs (``num_input`` and
        ``params`` attributes), instead of binding them as constants.
    unwrap_unit_return_tuple : bool
        Return a lone output without the enclosing tuple.
    no_bind_return_tuple : bool
        Do not bind the returned tuple to a variable: each output is bound and the function
        returns a tuple expression of them.
    custom_convert_map : dict, optional
        ``{op __name__: fn(node, importer) -> relax.Expr}``, consulted before the built-in
        converters (``importer.block_builder``, ``importer.env`` and
        ``importer.retrieve_args(node)`` are available to it).
    run_ep_decomposition : bool
        Run ``exported_program.run_decompositions()`` (the core ATen op set) first.
    keep_buffers_as_state : bool
        pytvm addition: buffers become state inputs and outputs (see the module docstring).
        Needs ``keep_params_as_input``.

    Returns
    -------
    tvm.IRModule
        The module with ``main``.

    Raises
    ------
    tvm.error.OpNotImplemented
        When the graph has ops without a converter: one error lists each with its count and
        source location.
    """
    torch = require_torch("tvm.relax.frontend.torch.from_exported_program")
    if keep_buffers_as_state and not keep_params_as_input:
        raise ValueError("from_exported_program: keep_buffers_as_state needs keep_params_as_input")
    if not isinstance(exported_program, torch.export.ExportedProgram):
        raise TypeError(
            "from_exported_program expects a torch.export.ExportedProgram (the result of "
            f"torch.export.export), got {type(exported_program).__name__}"
        )
    ep = exported_program.run_decompositions() if run_ep_decomposition else exported_program
    return _import(
        torch,
        ep,
        keep_params_as_input,
        unwrap_unit_return_tuple,
        no_bind_return_tuple,
        custom_convert_map,
        keep_buffers_as_state,
    )


def _import(torch, ep, keep_params, unwrap, no_bind, custom, keep_state):
    kinds = torch.export.graph_signature.InputKind
    out_kinds = torch.export.graph_signature.OutputKind
    imp = GraphImporter(custom)
    imp.graph_module = ep.graph_module
    nodes = list(ep.graph.nodes)
    imp.check_supported(nodes)
    # ``torch.cond`` becomes a Relax ``If``, which may not sit inside a dataflow block.
    plain = has_cond(nodes)

    placeholders = {n.name: n for n in nodes if n.op == "placeholder"}
    state_dict = ep.state_dict
    constants = ep.constants
    user, params, buffers = [], [], []
    param_values, buffer_values, buffer_targets = [], [], []
    for spec in ep.graph_signature.input_specs:
        node = placeholders[spec.arg.name]
        if spec.kind == kinds.USER_INPUT:
            val = node.meta.get("val")
            var, value = _user_input(torch, imp, spec.arg.name, val)
            user.append(var)
            imp.env[node] = value
            continue
        if spec.kind == kinds.PARAMETER:
            value = state_dict[spec.target]
        elif spec.kind == kinds.BUFFER:
            value = state_dict[spec.target] if spec.target in state_dict else constants[spec.target]
        elif spec.kind in (kinds.CONSTANT_TENSOR, getattr(kinds, "CUSTOM_OBJ", None)):
            value = constants[spec.target]
        else:
            raise ValueError(f"from_exported_program: input kind {spec.kind} is not supported")
        array = _to_numpy(value)
        is_param = spec.kind == kinds.PARAMETER and keep_params
        is_state = spec.kind == kinds.BUFFER and keep_state
        if is_param or is_state:
            var = rx.Var(spec.arg.name, TensorType(list(array.shape), dtype_name(value.dtype)))
            imp.env[node] = var
            if is_param:
                params.append(var)
                param_values.append(array)
            else:
                buffers.append(var)
                buffer_values.append(array)
                buffer_targets.append(spec.target)
        else:
            imp.env[node] = rx.const(array, dtype_name(value.dtype))

    attrs = {}
    if keep_params:
        attrs["num_input"] = len(user)
    bounds = _range_attrs(ep, imp)
    attrs.update(bounds)

    bb = imp.block_builder
    with bb.function("main", user + params + buffers, attrs=attrs):
        with contextlib.nullcontext() if plain else bb.dataflow():
            for node in nodes:
                if node.op == "call_function":
                    imp.convert_node(node)
                elif node.op == "output":
                    outputs = imp.output_values(node)
                    output_node = node
            specs = ep.graph_signature.output_specs
            if len(specs) != len(outputs):
                raise ValueError(
                    f"from_exported_program: {len(outputs)} outputs for {len(specs)} output specs"
                )
            results = [
                v
                for v, s in zip(outputs, specs)
                if s.kind in (out_kinds.USER_OUTPUT, out_kinds.LOSS_OUTPUT)
            ]
            if keep_state:
                updated = {
                    s.target: v
                    for v, s in zip(outputs, specs)
                    if s.kind == out_kinds.BUFFER_MUTATION
                }
                for var, target in zip(buffers, buffer_targets):
                    results.append(updated.get(target, var))
            results = [_output_expr(r, i, output_node) for i, r in enumerate(results)]
            bind = bb.emit if plain else bb.emit_output
            if unwrap and len(results) == 1:
                ret = bind(results[0])
            elif no_bind:
                ret = rx.Tuple([bind(r) for r in results])
            else:
                ret = bind(rx.Tuple(results))
        bb.emit_func_output(ret)
    mod = bb.get()
    func = mod["main"]
    if keep_params:
        func = func.with_attr("params", [runtime_tensor(a) for a in param_values])
    if keep_state:
        func = func.with_attr("state_num", len(buffers))
        func = func.with_attr("states", [runtime_tensor(a) for a in buffer_values])
    if func is not mod["main"]:
        mod["main"] = func
    return mod


#: Python scalar type of a non-tensor user input -> the dtype of its ``R.Prim`` parameter.
_SCALAR_DTYPES = ((bool, "bool"), (int, "int64"), (float, "float64"))


def _user_input(torch, imp, name, val):
    """The parameter of one user input and the value the graph's nodes see for it.

    A tensor is an ``R.Tensor`` parameter. A symbolic int (``torch.export.Dim.DYNAMIC`` on an
    int argument) is an ``R.Prim(value=s)`` parameter defining the TIR variable ``s`` that
    the graph's sizes use. A static int, float or bool is an ``R.Prim("int64" / "float64" /
    "bool")`` parameter; torch.export specialized the graph to the example value, so the
    nodes read that constant (as in torch's exported program, the argument is then unused).
    """
    if isinstance(val, torch.Tensor):
        var = rx.Var(name, TensorType(imp.relax_shape(val.shape), dtype_name(val.dtype)))
        return var, var
    if isinstance(val, torch.SymInt):
        expr = imp.sym_expr(val)
        if isinstance(expr, int):
            return rx.Var(name, PrimType("int64")), expr
        return rx.Var(name, PrimType("int64", value=expr)), expr
    for py_type, dtype in _SCALAR_DTYPES:
        if isinstance(val, py_type):
            return rx.Var(name, PrimType(dtype)), val
    raise TypeError(
        f"from_exported_program: user input {name} is a {type(val).__name__}; tensors, "
        "ints (static or symbolic), floats and bools are supported"
    )


def _output_expr(value, index, output_node):
    """One flattened output as a Relax expression: tensors as they are, Python scalars and
    symbolic sizes as ``R.prim_value`` (int64, float64, bool), ``None`` as ``R.null_value()``."""
    if isinstance(value, rx.Expr):
        return value
    if value is None:
        return R.null_value()
    for py_type, dtype in _SCALAR_DTYPES:
        if isinstance(value, py_type):
            return rx.prim_value(value, dtype) if py_type is not bool else rx.prim_value(value)
    if isinstance(value, PrimExpr):
        return rx.prim_value(value)
    raise TypeError(
        f"from_exported_program: output {index} of {output_node.name} is a "
        f"{type(value).__name__}; tensors, scalars, symbolic sizes and None are supported"
    )


def _range_attrs(ep, imp) -> dict:
    """``tir_var_lower_bound`` / ``tir_var_upper_bound`` from ``ep.range_constraints``."""
    lower, upper = {}, {}
    for symbol, vr in getattr(ep, "range_constraints", {}).items():
        name = str(symbol)
        if name not in imp.sym_vars:
            continue
        try:
            lo = int(vr.lower)
        except (TypeError, ValueError, OverflowError):
            continue
        lower[name] = lo
        try:
            hi = float(vr.upper)
            if not math.isinf(hi):
                upper[name] = int(hi)
        except (TypeError, ValueError, OverflowError):
            pass
    attrs = {}
    if lower:
        attrs["tir_var_lower_bound"] = lower
    if upper:
        attrs["tir_var_upper_bound"] = upper
    return attrs
