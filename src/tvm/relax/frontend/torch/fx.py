"""``from_fx``: a ``torch.fx.GraphModule`` as a Relax ``IRModule``.

pytvm runs the graph module through ``torch.export.export`` with example inputs built from
``input_info`` and imports the result with :func:`from_exported_program`, so both entry
points share one set of (ATen) converters. A graph that ``torch.export`` cannot trace
(data-dependent Python control flow) is rejected by torch.

``custom_convert_map`` takes TVM 0.27's keys, which name the fx graph's own calls: a
function's ``__name__`` (``"sigmoid"``, ``"gelu"``) or the function itself (``torch.sigmoid``,
``F.gelu``), and an ``nn.Module`` subclass for ``call_module`` nodes. Each matching fx node is
wrapped, before export, in a private torch custom op (``pytvm_fx::custom_<n>``, deleted after
the import) that runs the original call, so ``torch.export`` keeps it as one node; its
converter then gets a view of the original node (``target``, ``args`` and ``kwargs`` as in
the fx graph, tensor arguments being nodes that ``importer.env`` maps to Relax values), as
TVM passes it: ``fn(node, importer)`` for functions, ``fn(node)`` for module types (as TVM;
a two-argument module converter also gets the importer; ``importer.named_modules`` holds the
model's modules). Keys that match no fx call are ATen
names (``"sigmoid.default"``), passed to :func:`from_exported_program` as before. Limits: a
wrapped call must return one tensor; ``call_method`` nodes cannot be keyed.
"""

from __future__ import annotations

import itertools

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
    default_image_layout: str = "NCHW",
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

    default_image_layout : str
        TVM 0.27's layout of image ops; only ``"NCHW"`` (torch's) is supported here.

    Returns
    -------
    tvm.IRModule
        ``main`` returns the model's output bare when ``forward`` returns one tensor (as TVM's
        ``from_fx``), and a tuple otherwise.
    """
    torch = require_torch("tvm.relax.frontend.torch.from_fx")
    if default_image_layout != "NCHW":
        raise ValueError(
            f"from_fx: default_image_layout={default_image_layout!r} is not supported yet "
            "(only torch's NCHW)"
        )
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
    wrapper = _FxCustomOps(torch, model, custom_convert_map or {})
    try:
        traced = wrapper.wrap()
        ep = torch.export.export(traced, tuple(args), dynamic_shapes=dynamic)
        model.train(was_training)
        single = _returns_one_tensor(model)
        return from_exported_program(
            ep,
            keep_params_as_input=keep_params_as_input,
            unwrap_unit_return_tuple=unwrap_unit_return_tuple or single,
            no_bind_return_tuple=no_bind_return_tuple,
            custom_convert_map=wrapper.aten_map,
        )
    finally:
        wrapper.close()


_CUSTOM_IDS = itertools.count()


class _FxNodeView:
    """What a ``from_fx`` custom converter sees: the original fx node's ``op``, ``target``,
    ``args`` and ``kwargs`` (tensor arguments replaced by the exported nodes, which the
    importer's ``env`` maps to Relax values), with the exported node's ``name`` and ``meta``."""

    def __init__(self, torch, op, target, template, exported):
        tensors = iter(exported.args[0])
        self.op, self.target = op, target
        self.name, self.meta = exported.name, exported.meta
        self.args, self.kwargs = torch.fx.node.map_arg(template, lambda _n: next(tensors))

    def __repr__(self):
        return f"<from_fx node {self.name}: {self.op} {self.target}>"


class _FxCustomOps:
    """Wraps the fx calls that ``custom_convert_map`` keys (TVM's keys) in private custom ops."""

    def __init__(self, torch, model, custom_convert_map):
        self.torch = torch
        self.model = model
        self.custom = dict(custom_convert_map)
        self.aten_map: dict = {}
        self.library = None

    def _key_of(self, node, modules):
        if node.op == "call_function":
            for key in (node.target, getattr(node.target, "__name__", None)):
                if key is not None and _hashable(key) and key in self.custom:
                    return key
        elif node.op == "call_module":
            module_type = type(modules.get(node.target))
            if module_type in self.custom:
                return module_type
        return None

    def wrap(self):
        """The model to export: a copy of the fx graph with keyed calls wrapped, or ``model``."""
        torch = self.torch
        fx_keys = [k for k in self.custom if not isinstance(k, str)]
        graph_module = self.model
        if fx_keys and not isinstance(graph_module, torch.fx.GraphModule):
            graph_module = torch.fx.symbolic_trace(graph_module)
        if not isinstance(graph_module, torch.fx.GraphModule):
            self.aten_map = self.custom
            return self.model
        modules = dict(graph_module.named_modules())
        matches = [n for n in graph_module.graph.nodes if self._key_of(n, modules) is not None]
        used = {self._key_of(n, modules) for n in matches}
        for key, fn in self.custom.items():
            if key not in used:
                if not isinstance(key, str):
                    continue  # a function or module type the graph never calls
                self.aten_map[key] = fn
        if not matches:
            return self.model
        graph_module = _copy_graph_module(torch, graph_module)
        modules = dict(graph_module.named_modules())
        self.library = torch.library.Library("pytvm_fx", "FRAGMENT")
        for node in list(graph_module.graph.nodes):
            key = self._key_of(node, modules)
            if key is not None:
                self._wrap_node(graph_module, node, modules, self.custom[key], key)
        graph_module.recompile()
        return graph_module

    def _wrap_node(self, graph_module, node, modules, converter, key):
        torch = self.torch
        name = f"custom_{next(_CUSTOM_IDS)}"
        inputs: list = []
        torch.fx.node.map_arg((node.args, node.kwargs), inputs.append)
        call = modules[node.target] if node.op == "call_module" else node.target
        template = (node.args, node.kwargs)

        def run(xs, call=call, template=template, what=f"{node.op} {node.target}"):
            values = iter(xs)
            args, kwargs = torch.fx.node.map_arg(template, lambda _n: next(values))
            out = call(*args, **kwargs)
            if not isinstance(out, torch.Tensor):
                raise TypeError(
                    f"from_fx: custom_convert_map[{key!r}] wraps {what}, which returns "
                    f"{type(out).__name__}; only calls returning one tensor can be keyed"
                )
            return out.clone() if any(out is x for x in xs) else out

        self.library.define(f"{name}(Tensor[] xs) -> Tensor")
        self.library.impl(name, run, "CompositeExplicitAutograd")
        torch.library.register_fake(f"pytvm_fx::{name}", run, lib=self.library)
        op = getattr(torch.ops.pytvm_fx, name).default
        with graph_module.graph.inserting_before(node):
            new = graph_module.graph.call_function(op, (inputs,))
        node.replace_all_uses_with(new)
        graph_module.graph.erase_node(node)
        named = modules
        node_op, node_target = node.op, node.target  # erase_node clears the node's args
        one_arg = node_op == "call_module" and _takes_one_arg(converter)

        def convert(exported, importer):
            importer.named_modules = named
            view = _FxNodeView(torch, node_op, node_target, template, exported)
            return converter(view) if one_arg else converter(view, importer)

        self.aten_map[op.__name__] = convert

    def close(self):
        if self.library is not None:
            self.library._destroy()
            self.library = None


def _copy_graph_module(torch, graph_module):
    """A GraphModule sharing ``graph_module``'s submodules, with a copy of its graph."""
    graph = torch.fx.Graph()
    out = graph.graph_copy(graph_module.graph, {})
    graph.output(out)
    return torch.fx.GraphModule(graph_module, graph)


def _takes_one_arg(fn) -> bool:
    """Whether ``fn`` takes one positional argument (TVM calls module converters with the
    node only; a two-argument one also gets the importer here)."""
    import inspect  # lazy: only for module-keyed custom converters

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) < 2 and not any(p.kind == p.VAR_POSITIONAL for p in params)


def _hashable(key) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _returns_one_tensor(model) -> bool:
    graph = getattr(model, "graph", None)
    if graph is None:
        return False
    for node in graph.nodes:
        if node.op == "output":
            return not isinstance(node.args[0], (list, tuple))
    return False
