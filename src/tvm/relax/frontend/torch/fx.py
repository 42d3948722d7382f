"""``from_fx``: a ``torch.fx.GraphModule`` as a Relax ``IRModule``.

pytvm runs the graph module through ``torch.export.export`` with example inputs built from
``input_info`` and imports the result with :func:`from_exported_program`, so both entry
points share one set of (ATen) converters. Differences from TVM 0.27, which translates the
fx graph's torch-level calls directly: ``custom_convert_map`` is keyed by ATen op names
(``"sigmoid.default"``) as for ``from_exported_program``; a graph that ``torch.export``
cannot trace (data-dependent Python control flow) is rejected by torch.
"""

from __future__ import annotations

from ....tirx import expr as tir_expr
from ._torch import require_torch, torch_dtype
from .exported_program import from_exported_program


def from_fx(
    model,
    input_info,
    *,
    keep_params_as_input: bool = False,
    unwrap_unit_return_tuple: bool = False,
    no_bind_return_tuple: bool = False,
    custom_convert_map: dict | None = None,
):
    """Convert a ``torch.fx.GraphModule`` (or any ``torch.nn.Module``) to Relax.

    Parameters
    ----------
    model : torch.fx.GraphModule or torch.nn.Module
        The model, e.g. from ``torch.fx.symbolic_trace``.
    input_info : list of (shape, dtype)
        One entry per input: a shape (ints; a str or ``tirx.Var`` for a symbolic dimension,
        the same name meaning the same size) and a dtype string (``"float32"``).
    keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple, custom_convert_map
        As in :func:`from_exported_program`.

    Returns
    -------
    tvm.IRModule
        ``main`` returns the model's output bare when ``forward`` returns one tensor (as TVM's
        ``from_fx``), and a tuple otherwise.
    """
    torch = require_torch("tvm.relax.frontend.torch.from_fx")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"from_fx expects a torch.fx.GraphModule, got {type(model).__name__}")
    args, dims = [], []
    named: dict = {}
    for i, entry in enumerate(input_info):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise ValueError(f"from_fx: input_info[{i}] must be (shape, dtype), got {entry!r}")
        shape, dtype = entry
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"from_fx: input_info[{i}] must be (shape, dtype), got {entry!r}")
        concrete, dyn = [], {}
        for axis, size in enumerate(shape):
            if isinstance(size, (str, tir_expr.Var)):
                name = size if isinstance(size, str) else size.name
                if name not in named:
                    named[name] = torch.export.Dim(name)
                dyn[axis] = named[name]
                concrete.append(3 + len(named))  # distinct example sizes, not 0/1
            else:
                concrete.append(int(size))
        tdtype = torch_dtype(str(dtype))
        if tdtype.is_floating_point:
            args.append(torch.randn(concrete, dtype=tdtype))
        else:
            args.append(torch.zeros(concrete, dtype=tdtype))
        dims.append(dyn or None)
    dynamic = tuple(dims) if any(d for d in dims) else None
    was_training = model.training
    ep = torch.export.export(model, tuple(args), dynamic_shapes=dynamic)
    model.train(was_training)
    single = _returns_one_tensor(model)
    return from_exported_program(
        ep,
        keep_params_as_input=keep_params_as_input,
        unwrap_unit_return_tuple=unwrap_unit_return_tuple or single,
        no_bind_return_tuple=no_bind_return_tuple,
        custom_convert_map=custom_convert_map,
    )


def _returns_one_tensor(model) -> bool:
    graph = getattr(model, "graph", None)
    if graph is None:
        return False
    for node in graph.nodes:
        if node.op == "output":
            return not isinstance(node.args[0], (list, tuple))
    return False
