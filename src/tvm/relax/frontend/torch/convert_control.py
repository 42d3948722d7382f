"""Control flow: ``torch.cond`` (``torch.ops.higher_order.cond``) as a Relax ``If``.

``torch.export`` records ``torch.cond(pred, true_fn, false_fn, operands)`` as one
``call_function`` node whose second and third arguments are ``get_attr`` nodes naming the two
branch subgraphs (``true_graph_0``, ``false_graph_0``: ``torch.fx.GraphModule`` attributes of
the exported graph module), the operands being a tuple of nodes. Each branch is imported as its
own Relax function of the module (``cond_true_branch_<n>`` / ``cond_false_branch_<n>``, as TVM
0.27 names them), whose parameters are the operands with fresh symbolic sizes, and the node
becomes::

    if pred:
        r = cls.cond_true_branch_0(x, y)
    else:
        r = cls.cond_false_branch_1(x, y)

``If`` may not appear inside a dataflow block, so a function with a ``cond`` is built with
plain binding blocks (see :func:`has_cond`). A branch returning one tensor returns it bare; a
branch with several results returns a tuple that ``getitem`` reads. A predicate on symbolic
sizes (``x.shape[0] > 4``, a torch ``SymBool``) is an ``R.Prim("bool")`` value. Nested
``cond`` inside a branch is imported the same way (its functions are added to the same
module).
"""

from __future__ import annotations

from ....ir.expr import PrimExpr
from ... import op as R
from ...expr import Call, If, Tuple, prim_value
from .importer import register


def is_cond(node) -> bool:
    """Whether ``node`` is a ``torch.ops.higher_order.cond`` call."""
    target = node.target
    return (
        node.op == "call_function"
        and getattr(target, "__name__", None) == "cond"
        and "higher_order" in (getattr(target, "__module__", "") or "")
    )


def has_cond(nodes) -> bool:
    """Whether any node of ``nodes`` is a ``cond`` (the function then has no dataflow block)."""
    return any(is_cond(n) for n in nodes)


def branch_graphs(imp, node) -> tuple:
    """The two branch ``GraphModule`` s of a ``cond`` node (``get_attr`` targets)."""
    graphs = []
    for arg in node.args[1:3]:
        if getattr(arg, "op", None) != "get_attr" or imp.graph_module is None:
            raise ValueError(
                f"torch frontend: cond {node.name}: branch {arg} is not a get_attr of a "
                "subgraph; only torch.export's form of torch.cond is supported"
            )
        graphs.append(getattr(imp.graph_module, arg.target))
    return tuple(graphs)


@register("cond")
def _cond(imp, node):
    pred = imp.resolve(node.args[0])
    operands = imp.resolve(list(node.args[3]) if len(node.args) > 3 else [])
    for i, value in enumerate(operands):
        if not hasattr(value, "struct_info"):
            raise ValueError(
                f"torch frontend: cond {node.name}: operand {i} is a {type(value).__name__}, "
                "not a tensor; only tensor operands are supported yet"
            )
    true_graph, false_graph = branch_graphs(imp, node)
    if isinstance(pred, (bool, PrimExpr)):
        # a condition on symbolic sizes (SymBool, ``x.shape[0] > 4``): an ``R.Prim("bool")``
        pred = imp.block_builder.emit(prim_value(pred), name_hint=str(node.args[0]))
    elif not hasattr(pred, "struct_info"):
        raise ValueError(
            f"torch frontend: cond {node.name}: the predicate is a {type(pred).__name__}; "
            "a tensor or a condition on sizes is supported"
        )
    else:
        sinfo = pred.struct_info
        if sinfo.ndim != 0:
            # torch accepts any one-element boolean tensor; Relax ``If`` needs a scalar.
            pred = imp.emit(R.reshape(pred, []))
        if sinfo.dtype != "bool":
            pred = imp.emit(R.astype(pred, "bool"))
    true_gv, n_true = imp.import_branch(true_graph, operands, "cond_true_branch")
    false_gv, n_false = imp.import_branch(false_graph, operands, "cond_false_branch")
    if n_true != n_false:
        raise ValueError(
            f"torch frontend: cond {node.name}: the branches return {n_true} and {n_false} "
            "values"
        )
    value = If(pred, Call(true_gv, operands), Call(false_gv, operands))
    return _results(imp, node, value, n_true)


def _results(imp, node, value, n_out):
    """The node's value, read by ``getitem``: a one-element list holding the bound result of a
    one-result branch, else the tuple-valued expression (bound by ``convert_node``)."""
    if n_out == 1:
        return [imp.emit(value, node)]
    return value


def branch_output(bb, values):
    """The returned expression of a branch function: one value bare, several as a tuple."""
    if len(values) == 1:
        return values[0]
    return Tuple(list(values))
