"""Declarative case tables of the Relax op library, one module per op family.

Each family module defines ``CASES`` (valid calls: expected type, NumPy reference) and
``ERRORS`` (bad calls: error kind and message words). ``tests/relax/op/test_op_cases.py`` runs
them: type inference against the expected TVMScript type text, the reference evaluator against
the NumPy reference, and every bad call against its error.

Argument notation in a case: ``t((2, 3))`` / ``t(("n", 3), "int32")`` is a tensor parameter
(strings are symbolic dims shared by the whole case), a list of them is a Relax tuple of
parameters, and anything else is passed to the constructor as is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from tvm import relax
from tvm.tirx.expr import Var as TirVar

FAMILIES = (
    "unary",
    "binary",
    "ternary",
    "create",
    "datatype",
    "manipulate",
    "index",
    "linear_algebra",
    "statistical",
    "search",
    "nn",
    "grad",
)


@dataclasses.dataclass(frozen=True)
class TensorParam:
    """A tensor parameter of a case: shape (ints, symbolic names, or None), dtype, ndim."""

    shape: Any
    dtype: str = "float32"
    ndim: int = -1
    #: Input domain for random data: "any", "pos" (> 0), "unit" (|x| < 1), "ge1" (>= 1),
    #: "index:<n>" (ints in [0, n)).
    domain: str = "any"


def t(shape=None, dtype="float32", ndim=-1, domain="any"):
    """A tensor parameter."""
    return TensorParam(None if shape is None else tuple(shape), dtype, ndim, domain)


@dataclasses.dataclass
class Case:
    """A valid call: ``op(*args, **kwargs)`` has type ``ty``; ``ref(*arrays)`` is its value."""

    op: Callable
    args: list
    ty: str
    ref: Callable | None = None
    kwargs: dict = dataclasses.field(default_factory=dict)
    #: Concrete shapes for symbolic parameters when running the reference ({"n": 3}).
    sizes: dict = dataclasses.field(default_factory=dict)
    #: Explicit input arrays (else random ones from the parameters' types and domains).
    inputs: list | None = None
    rtol: float = 1e-5
    id: str = ""
    #: For the gradient checks (issue 5): None lets them decide (the op has an
    #: ``FPrimalGradient`` rule and float inputs); False marks a row where the op is not
    #: differentiable at these inputs.
    grad: bool | None = None


@dataclasses.dataclass
class Err:
    """A bad call: building and normalizing it raises ``exc`` with every word of ``words``."""

    op: Callable
    args: list
    exc: type
    words: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    id: str = ""


def case_id(case) -> str:
    return case.id or getattr(case.op, "__name__", "op")


# --- turning a case into IR and data -------------------------------------------------------


def _dim(value, syms):
    if isinstance(value, str):
        if value not in syms:
            syms[value] = TirVar(value, "int64")
        return syms[value]
    return value


def param_type(param: TensorParam, syms):
    shape = None if param.shape is None else [_dim(d, syms) for d in param.shape]
    return relax.TensorType(shape, param.dtype, ndim=param.ndim)


def build(case):
    """``(call, params, param_specs)`` for a case (params are the Relax Vars, in order)."""
    syms, params, specs = {}, [], []

    def lower(arg):
        if isinstance(arg, TensorParam):
            var = relax.Var(f"p{len(params)}", param_type(arg, syms))
            params.append(var)
            specs.append(arg)
            return var
        if isinstance(arg, list) and arg and all(isinstance(a, TensorParam) for a in arg):
            return [lower(a) for a in arg]
        return arg

    args = [lower(a) for a in case.args]
    return case.op(*args, **case.kwargs), params, specs


def random_input(spec: TensorParam, sizes, rng):
    shape = tuple(sizes[d] if isinstance(d, str) else d for d in spec.shape)
    dtype = spec.dtype
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if spec.domain.startswith("index:"):
        return rng.integers(0, int(spec.domain[6:]), shape).astype(dtype)
    if dtype.startswith(("int", "uint")):
        low = 1 if spec.domain == "pos" else (0 if dtype.startswith("uint") else -5)
        return rng.integers(low, 6, shape).astype(dtype)
    low, high = {"pos": (0.5, 2.0), "unit": (-0.9, 0.9), "ge1": (1.1, 3.0)}.get(
        spec.domain, (-2.0, 2.0)
    )
    return rng.uniform(low, high, shape).astype(dtype)


def as_numpy_inputs(case, specs, rng):
    if case.inputs is not None:
        return [np.asarray(a) for a in case.inputs]
    return [random_input(s, case.sizes, rng) for s in specs]
