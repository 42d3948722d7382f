"""The graph walker shared by ``from_exported_program`` and ``from_fx``.

:class:`GraphImporter` turns the ``call_function`` nodes of a ``torch.fx`` graph (ATen ops
after ``torch.export``) into Relax bindings, one node at a time, through one table:

* :data:`CONVERTERS` maps an op name to a converter ``fn(importer, node) -> value``. The name
  is the ATen overload's ``__name__`` (``"add.Tensor"``); a converter registered under the
  packet name (``"add"``) serves every overload. Python builtins that fx records
  (``operator.getitem``, ``operator.mul`` on symbolic sizes) use ``"operator.<name>"``.
  The converters live beside this file: ``convert_math.py`` (elementwise, reductions,
  matrix products), ``convert_nn.py`` (conv, pooling, norms, activations, attention),
  ``convert_shape.py`` (views, indexing, creation, dtype conversions).
* A value is a Relax expression (a tensor), a Python list of values (an op with several
  results, read by ``getitem``), a Python scalar, or a TIR expression (a symbolic size).

Before any binding is emitted, :meth:`GraphImporter.check_supported` looks every node up and
raises one :class:`tvm.error.OpNotImplemented` that lists each missing op with its count and
the source location torch recorded, so a user sees the whole gap at once.

Shapes of ops whose result shape torch already computed (views, expand, creation) are read
from the node's ``meta["val"]``; symbolic sizes (``torch.export.Dim``) become ``int64`` TIR
variables named after torch's symbols (``s0``, ...), shared across the whole function.
"""

from __future__ import annotations

import contextlib
import operator
import re
from collections.abc import Callable
from typing import Any

from ....error import OpNotImplemented
from ....tirx import expr as tir_expr
from ...block_builder import BlockBuilder
from ...expr import Expr, Tuple, Var, const
from ...ty import TensorType
from ._torch import dtype_name, require_torch

#: op name -> converter ``fn(importer, node)``; filled by the ``convert_*`` modules.
CONVERTERS: dict[str, Callable[..., Any]] = {}

#: op names that produce no value the Relax program needs (shape assertions and the like).
IGNORED = {
    "_assert_tensor_metadata.default",
    "_assert_scalar.default",
    "sym_constrain_range_for_size.default",
    "sym_constrain_range.default",
    "_assert_async.msg",
}


#: op name -> ``fn(importer, node) -> str | None``: a reason why this node (an op that has a
#: converter) cannot be translated, reported by :meth:`GraphImporter.check_supported` with
#: the missing ops (e.g. boolean-mask indexing, whose result shape is data dependent).
REJECTORS: dict[str, Callable[..., Any]] = {}


def register(*names: str):
    """Decorator: register a converter under one or more op names."""

    def wrap(fn):
        for name in names:
            if name in CONVERTERS:
                raise ValueError(f"torch frontend: converter {name!r} registered twice")
            CONVERTERS[name] = fn
        return fn

    return wrap


def op_key(target) -> str:
    """The table key of an fx ``call_function`` target."""
    if getattr(target, "__module__", None) == "_operator" or target in _OPERATORS:
        return "operator." + target.__name__
    return getattr(target, "__name__", str(target))


_OPERATORS = {
    operator.getitem,
    operator.add,
    operator.sub,
    operator.mul,
    operator.floordiv,
    operator.truediv,
    operator.mod,
    operator.neg,
}


def packet_key(key: str) -> str:
    """``"add.Tensor"`` -> ``"add"`` (the overload packet's name)."""
    return key.split(".")[0] if not key.startswith("operator.") else key


def source_location(node) -> str:
    """``file:line in function`` of the user frame torch recorded for ``node``, or ``"?"``."""
    trace = node.meta.get("stack_trace") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', trace)
    if not frames:
        return "?"
    path, line, func = frames[-1]
    return f"{path}:{line} in {func}"


class GraphImporter:
    """Translate the nodes of one fx graph into the current Relax function.

    Parameters
    ----------
    custom_convert_map : dict, optional
        Extra converters ``{name: fn(node, importer) -> relax.Expr}``, looked up before
        :data:`CONVERTERS` by the op's ``__name__`` (``"sigmoid.default"``), as in TVM.
    """

    def __init__(self, custom_convert_map: dict | None = None):
        self.torch = require_torch()
        # Importing the converter modules registers them into CONVERTERS.
        from . import convert_control, convert_math, convert_nn, convert_shape  # noqa: F401

        self.block_builder = BlockBuilder()
        self.env: dict = {}
        self.sym_vars: dict[str, tir_expr.Var] = {}
        self.custom_convert_map = dict(custom_convert_map or {})
        #: the ``torch.fx.GraphModule`` whose graph is imported (``get_attr`` targets, such as
        #: ``torch.cond``'s branch subgraphs, are its attributes); set by the caller.
        self.graph_module = None
        #: the importer of the outermost graph: branch functions are added to its module.
        self.root = self
        self._branch_count = 0

    # ----- lookup -------------------------------------------------------------------------
    def converter_of(self, node):
        """The converter of a ``call_function`` node, or None when there is none."""
        name = getattr(node.target, "__name__", None)
        if name in self.custom_convert_map:
            custom = self.custom_convert_map[name]
            return lambda imp, n: custom(n, imp)
        key = op_key(node.target)
        if key in IGNORED:
            return _ignore
        return CONVERTERS.get(key) or CONVERTERS.get(packet_key(key))

    def check_supported(self, nodes) -> None:
        """Raise one ``OpNotImplemented`` listing every op of ``nodes`` without a converter
        (the ops of ``torch.cond`` branch subgraphs included)."""
        missing: dict[str, list] = {}
        self._collect_missing(nodes, self.graph_module, missing)
        if not missing:
            return
        lines = []
        for key, found in sorted(missing.items()):
            places = sorted({source_location(n) for n in found})
            lines.append(f"  {key} (x{len(found)}) at {', '.join(places)}")
        raise OpNotImplemented(
            f"torch frontend: unsupported function types, {len(missing)} op(s) have no "
            "converter in tvm.relax.frontend.torch (add one to convert_*.py or pass "
            "custom_convert_map):\n" + "\n".join(lines)
        )

    def _collect_missing(self, nodes, graph_module, missing: dict) -> None:
        from .convert_control import is_cond  # the sibling converter module (imported above)

        for node in nodes:
            if is_cond(node) and graph_module is not None:
                for arg in node.args[1:3]:
                    sub = getattr(graph_module, str(getattr(arg, "target", "")), None)
                    if sub is not None and hasattr(sub, "graph"):
                        self._collect_missing(list(sub.graph.nodes), sub, missing)
            if node.op in ("call_module", "call_method"):
                missing.setdefault(f"{node.op} {node.target}", []).append(node)
            elif node.op == "call_function":
                conv = self.converter_of(node)
                if conv is None:
                    missing.setdefault(op_key(node.target), []).append(node)
                    continue
                rejector = REJECTORS.get(op_key(node.target))
                reason = rejector(self, node) if rejector is not None else None
                if reason:
                    missing.setdefault(f"{op_key(node.target)} {reason}", []).append(node)

    # ----- values -------------------------------------------------------------------------
    def retrieve_args(self, node):
        """``node.args`` with every fx node replaced by its imported value."""
        return self.resolve(node.args)

    def resolve(self, value):
        """Map fx nodes inside ``value`` (nested lists/tuples/dicts) to imported values."""
        if isinstance(value, self.torch.fx.Node):
            if value not in self.env:
                raise ValueError(f"torch frontend: node {value.name} is used before it is defined")
            return self.env[value]
        if isinstance(value, (list, tuple)):
            return [self.resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        return value

    def emit(self, expr, node=None):
        """Bind ``expr`` in the current block (named after ``node`` when given)."""
        if not isinstance(expr, Expr):
            return expr
        name = node.name if node is not None else ""
        return self.block_builder.emit(expr, name_hint=name)

    def val(self, node):
        """The ``FakeTensor`` (or SymInt, or tuple of them) torch recorded for ``node``."""
        value = node.meta.get("val", node.meta.get("tensor_meta"))
        if value is None:
            raise ValueError(f"torch frontend: node {node.name} has no recorded value (meta)")
        return value

    def out_dtype(self, node, index=None) -> str:
        """The Relax dtype of the value torch recorded for ``node``.

        Parameters
        ----------
        node : torch.fx.Node
        index : int, optional
            For a node with several results, which one.

        Returns
        -------
        str
        """
        value = self.val(node)
        if index is not None:
            value = value[index]
        return dtype_name(value.dtype)

    def out_shape(self, node, index=None) -> list:
        """The Relax shape (ints and TIR ``int64`` expressions) of the value torch recorded for
        ``node``.

        Parameters
        ----------
        node : torch.fx.Node
        index : int, optional
            For a node with several results, which one.

        Returns
        -------
        list
        """
        value = self.val(node)
        if index is not None:
            value = value[index]
        return self.relax_shape(value.shape)

    def relax_shape(self, sizes) -> list:
        """torch sizes (ints and SymInts) -> Relax shape entries (ints and TIR exprs)."""
        return [self.sym_expr(s) for s in sizes]

    def sym_expr(self, size):
        """An int, or the TIR ``int64`` expression of a ``torch.SymInt``."""
        if isinstance(size, int):
            return size
        if isinstance(size, self.torch.SymInt):
            expr = size.node.expr
            if expr.is_number:
                return int(expr)
            return self._sympy_to_tir(expr)
        return int(size)

    def symbol(self, name: str) -> tir_expr.Var:
        """The TIR ``int64`` variable of the symbolic size ``name`` (made once, on first use)."""
        if name not in self.sym_vars:
            self.sym_vars[name] = tir_expr.Var(name, "int64")
        return self.sym_vars[name]

    def _sympy_to_tir(self, expr):
        import sympy  # lazy: sympy comes with torch and is only needed for symbolic shapes

        if expr.is_Symbol:
            return self.symbol(str(expr))
        if expr.is_Integer:
            return int(expr)
        args = [self._sympy_to_tir(a) for a in expr.args]
        if isinstance(expr, sympy.Add):
            return _fold(operator.add, args)
        if isinstance(expr, sympy.Mul):
            return _fold(operator.mul, args)
        name = type(expr).__name__
        if name == "FloorDiv":
            return tir_expr.FloorDiv(_as_prim(args[0]), _as_prim(args[1]))
        if name in ("Mod", "PythonMod"):
            return tir_expr.FloorMod(_as_prim(args[0]), _as_prim(args[1]))
        raise ValueError(f"torch frontend: symbolic size {expr} ({name}) is not supported yet")

    def const(self, value, dtype: str):
        """A Relax constant of ``value`` with ``dtype``."""
        return const(value, dtype)

    # ----- the walk -----------------------------------------------------------------------
    def convert_node(self, node):
        """Convert one ``call_function`` node with its converter and record its value.

        An expression result is emitted as a binding named after the node.

        Parameters
        ----------
        node : torch.fx.Node

        Returns
        -------
        object
            The node's Relax value (a Var, a Python value, or a list of them).
        """
        conv = self.converter_of(node)
        value = conv(self, node)
        if isinstance(value, Expr):
            value = self.emit(value, node)
        self.env[node] = value
        return value

    def import_branch(self, graph_module, operands, name_hint: str):
        """Import a ``torch.cond`` branch subgraph as a Relax function of the root module.

        Parameters
        ----------
        graph_module : torch.fx.GraphModule
            The branch (``true_graph_0``...); its placeholders take ``operands``.
        operands : list of relax.Expr
            The cond's operands (their types when a placeholder has no recorded value).
        name_hint : str
            ``"cond_true_branch"`` ...; a counter shared by the module is appended.

        Returns
        -------
        tuple
            ``(GlobalVar, number of results)``.
        """
        from .convert_control import branch_output, has_cond  # sibling module (see above)

        root = self.root
        name = f"{name_hint}_{root._branch_count}"
        root._branch_count += 1
        sub = GraphImporter(self.custom_convert_map)
        sub.root = root
        sub.graph_module = graph_module
        nodes = list(graph_module.graph.nodes)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        if len(placeholders) != len(operands):
            raise ValueError(
                f"torch frontend: branch {name} takes {len(placeholders)} inputs, the cond "
                f"passes {len(operands)}"
            )
        params = []
        for ph, operand in zip(placeholders, operands):
            val = ph.meta.get("val")
            if isinstance(val, self.torch.Tensor):
                ty = TensorType(sub.relax_shape(val.shape), dtype_name(val.dtype))
            else:
                ty = operand.struct_info
            params.append(Var(ph.name, ty))
            sub.env[ph] = params[-1]
        bb = sub.block_builder
        # An If may not sit inside a dataflow block: branches with a nested cond use plain
        # binding blocks, the others a dataflow block.
        plain = has_cond(nodes)
        with bb.function(name, params):
            with contextlib.nullcontext() if plain else bb.dataflow():
                outputs = []
                for node in nodes:
                    if node.op == "call_function":
                        sub.convert_node(node)
                    elif node.op == "output":
                        outputs = sub.output_values(node)
                for i, value in enumerate(outputs):
                    if not isinstance(value, Expr):
                        raise TypeError(
                            f"torch frontend: branch {name} result {i} is a "
                            f"{type(value).__name__}, not a tensor; not supported yet"
                        )
                ret = branch_output(bb, outputs)
                if not plain:
                    ret = bb.emit_output(ret)
            bb.emit_func_output(ret)
        gv = root.block_builder.add_func(bb.get()[name], name)
        return gv, len(outputs)

    def output_values(self, node) -> list:
        """The flattened list of values of the graph's ``output`` node."""
        flat: list = []

        def walk(v):
            if isinstance(v, (list, tuple)):
                for item in v:
                    walk(item)
            else:
                flat.append(v)

        walk(node.args[0])
        return [self.resolve(v) if v is not None else None for v in flat]


def _ignore(importer, node):
    return None


def _as_prim(value):
    return tir_expr.IntImm("int64", value) if isinstance(value, int) else value


def _fold(fn, args):
    out = args[0]
    for a in args[1:]:
        if isinstance(out, int) and not isinstance(a, int):
            out = fn(_as_prim(out), a)
        else:
            out = fn(out, a)
    return out


def make_tuple(values) -> Tuple:
    """A Relax ``Tuple`` of ``values``."""
    return Tuple(list(values))
