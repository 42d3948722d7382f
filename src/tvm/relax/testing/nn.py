"""A tiny neural-network builder for tests (``tvm.relax.testing.nn``), as in Apache TVM.

Layers emit Relax bindings into :meth:`BlockBuilder.current`: ``model(data)`` inside a
``bb.function`` scope builds the forward pass, and ``model.parameters()`` lists the parameters
to pass as function params. Unlike TVM, whose layers emit TE kernels (``call_tir``), the layers
here emit Relax ops, so ``relax.transform.Gradient`` can differentiate them.

The checkpoint helpers (:func:`checkpoint`, :func:`emit_checkpoint`,
:func:`emit_checkpoint_sequential`) mark segments whose forward values the Gradient pass
recomputes instead of keeping (spec F.4).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir.expr import RelaxExpr
from ...ir.op import Op
from ..block_builder import BlockBuilder
from ..expr import Call, Var
from ..op import add, matmul
from ..op import nn as _nn
from ..op.grad import end_checkpoint, start_checkpoint
from ..ty import TensorType

__all__ = [
    "Linear",
    "LogSoftmax",
    "Module",
    "Parameter",
    "Placeholder",
    "ReLU",
    "Sequential",
    "checkpoint",
    "emit",
    "emit_checkpoint",
    "emit_checkpoint_sequential",
    "emit_te",
    "init_params",
]


def _builder(what: str) -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise ValueError(f"{what} needs a current BlockBuilder (use it inside a bb.function scope)")
    return bb


def _unique_name(name):
    """``name`` made unique by the active BlockBuilder (``w``, ``w1``...), as in TVM; the name
    itself outside a builder."""
    builder = BlockBuilder.current()
    return name if builder is None else builder.get_unique_name(name)


class Placeholder(Var):
    """A function input of the given shape and dtype (a Relax Var named ``name``)."""

    def __init__(self, shape, dtype="float32", name="data"):
        super().__init__(_unique_name(name), TensorType(list(shape), dtype))


class Parameter(Var):
    """A trainable parameter of the given shape and dtype (a Relax Var named ``name``)."""

    def __init__(self, shape, dtype="float32", name="param"):
        super().__init__(_unique_name(name), TensorType(list(shape), dtype))


def _unpack_params(value) -> list:
    if isinstance(value, Parameter):
        return [value]
    if isinstance(value, Module):
        return value.parameters()
    if isinstance(value, dict):
        return [p for v in value.values() for p in _unpack_params(v)]
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in _unpack_params(v)]
    return []


class Module:
    """Base class of layers: ``forward`` emits bindings; calling the module calls it."""

    def parameters(self) -> list:
        """The Parameters of this module and its submodules, in attribute order."""
        return [p for value in self.__dict__.values() for p in _unpack_params(value)]

    def forward(self, *inputs):
        """Emit this module's computation on ``inputs``; subclasses define it."""
        raise NotImplementedError(
            f"{type(self).__name__} is abstract: a relax.testing.nn.Module subclass must define "
            "forward(*inputs)")

    def __call__(self, *inputs):
        return self.forward(*inputs)


class Linear(Module):
    """``y = x @ weight (+ bias)`` with ``weight`` of shape ``(in_features, out_features)``."""

    def __init__(self, in_features, out_features, bias=True):
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter((in_features, out_features), name="linear_weight")
        self.bias = Parameter((out_features,), name="linear_bias") if bias else None

    def forward(self, input):
        """Emit ``input @ weight`` (plus ``bias`` when the layer has one)."""
        out = emit(matmul(input, self.weight))
        if self.bias is not None:
            out = emit(add(out, self.bias))
        return out


class ReLU(Module):
    """``relu(x)``."""

    def forward(self, input):
        """Emit ``relu(input)``."""
        return emit(_nn.relu(input))


class LogSoftmax(Module):
    """``log_softmax(x)`` over the last axis."""

    def forward(self, input):
        """Emit ``log_softmax(input)`` over the last axis."""
        return emit(_nn.log_softmax(input))


class Sequential(Module):
    """Applies its modules one after the other."""

    def __init__(self, *modules: Module):
        self.modules = list(modules)

    def forward(self, input):
        """Run the modules in order, each on the previous one's output."""
        for module in self.modules:
            input = module(input)
        return input


def emit(expr, name_hint: str = "") -> Var:
    """Emit ``expr`` into the current BlockBuilder and return its variable."""
    return _builder("emit").emit(expr, name_hint=name_hint)


def emit_te(func: Callable, *args: Any, **kwargs: Any) -> Var:
    """Emit ``call_tir`` of a TE function into the current BlockBuilder (``bb.emit_te``)."""
    return _builder("emit_te").emit_te(func, *args, **kwargs)


def init_params(mod) -> list:
    """Random parameters for ``mod["main"]``: every param not named ``data...``, uniform in
    [0, 1) (NumPy's global generator), as ``tvm.runtime.Tensor``."""
    # Lazy: the runtime is only needed when parameters are made.
    from ... import runtime

    params = []
    for param in mod["main"].params:
        if param.name_hint.startswith("data"):
            continue
        shape = [int(getattr(d, "value", d)) for d in param.ty.shape.values]
        value = np.random.rand(*shape).astype(param.ty.dtype)
        params.append(runtime.tensor(value))
    return params


# --- checkpointing ---------------------------------------------------------------------------


def _map_exprs(value, fn):
    """Apply ``fn`` to every Relax Expr in ``value`` (lists/tuples elementwise)."""
    if isinstance(value, RelaxExpr):
        return fn(value)
    if isinstance(value, list):
        return [_map_exprs(v, fn) for v in value]
    if isinstance(value, tuple):
        return tuple(_map_exprs(v, fn) for v in value)
    return value


def _finish(result):
    # A single Expr stays single; several results come back as a list (as in TVM).
    if isinstance(result, tuple):
        return list(result)
    return result


def checkpoint(func: Callable, *args: Any, **kwargs: Any):
    """``func(*args, **kwargs)`` as a checkpointed segment, without emitting anything.

    Every Expr argument is wrapped in ``start_checkpoint`` and every Expr result in
    ``end_checkpoint`` (lists and tuples elementwise).
    """

    # Built as plain calls: the arguments need not be Vars until the calls are emitted.
    def start(value):
        return Call(Op.get("relax.grad.start_checkpoint"), [value])

    def end(value):
        return Call(Op.get("relax.grad.end_checkpoint"), [value])

    args = _map_exprs(args, start)
    kwargs = {k: _map_exprs(v, start) for k, v in kwargs.items()}
    return _finish(_map_exprs(func(*args, **kwargs), end))


def emit_checkpoint(func: Callable, *args: Any, **kwargs: Any):
    """Like :func:`checkpoint`, but emitting the bindings into the current BlockBuilder.

    Each Expr input ``v`` is bound to ``<v>_scp = start_checkpoint(v)``; each result is
    emitted, then bound to ``<name>_ecp = end_checkpoint(<result>)``.
    """
    bb = _builder("emit_checkpoint")

    def start(value):
        name = _name(value)
        return bb.emit(start_checkpoint(value), f"{name}_scp")

    def end(value):
        out = bb.emit(value)
        return bb.emit(end_checkpoint(out), f"{out.name_hint}_ecp")

    args = _map_exprs(args, start)
    kwargs = {k: _map_exprs(v, start) for k, v in kwargs.items()}
    return _finish(_map_exprs(func(*args, **kwargs), end))


def _name(value):
    if not isinstance(value, Var):
        raise TypeError(
            "emit_checkpoint needs Var arguments (start_checkpoint takes a Var), got "
            f"{type(value).__name__}; emit the value first"
        )
    return value.name_hint


def emit_checkpoint_sequential(
    functions: list, segments, input: Var, checkpoint_last: bool = False
):
    """Run ``functions`` in sequence, checkpointing segments of them.

    Like ``torch.utils.checkpoint.checkpoint_sequential``: an int ``segments`` splits the
    functions evenly (segments start at ``range(0, len, len // segments)``); a list gives the
    segment starts (the end is appended when missing). Every segment is checkpointed except the
    last, unless ``checkpoint_last``. Returns the emitted output variable.
    """
    bb = _builder("emit_checkpoint_sequential")
    count = len(functions)
    if isinstance(segments, int):
        if segments <= 0:
            raise ValueError(f"segments must be positive, got {segments}")
        step = max(count // segments, 1)
        starts = list(range(0, count, step))
    else:
        starts = [int(s) for s in segments]
    if not starts or starts[-1] != count:
        starts.append(count)
    for begin, end in itertools.pairwise(starts):
        if not 0 <= begin < end <= count:
            raise ValueError(f"invalid segment boundaries {starts} for {count} functions")

    def run(segment):
        def chain(value):
            for fn in segment[:-1]:
                value = bb.emit(fn(value))
            return segment[-1](value)

        return chain

    last = len(starts) - 2
    for i, (begin, end) in enumerate(itertools.pairwise(starts)):
        segment = functions[begin:end]
        if i < last or checkpoint_last:
            input = emit_checkpoint(run(segment), input)
        else:
            for fn in segment:
                input = bb.emit(fn(input))
    return input
