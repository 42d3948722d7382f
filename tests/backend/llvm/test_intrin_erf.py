"""float32 ``erf`` on the LLVM target: the vectorizable expansion of ``intrin._lower_erf``
(Taylor series near 0, ``1 - t * exp(...)`` beyond) against the double-precision erf."""

import math

import numpy as np
import pytest

import tvm
from tvm.backend.llvm.intrin import INTRIN_RULES
from tvm.script import tirx as T
from tvm.tirx.expr import Call


def _erf_kernel(n, dtype):
    @T.prim_func(s_tir=True)
    def kernel(a: T.Buffer((n,), dtype), b: T.Buffer((n,), dtype)):
        T.func_attr({"global_symbol": "main"})
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                b[vi] = T.erf(a[vi])

    return tvm.compile(tvm.IRModule({"main": kernel}), target="llvm")["main"]


def test_float32_erf_is_within_a_few_ulp():
    xs = np.concatenate([np.linspace(-6, 6, 40001), np.logspace(-30, 0.7, 2000),
                         -np.logspace(-30, 0.7, 2000), [0.0, 0.5, -0.5, np.inf, -np.inf]])
    xs = xs.astype("float32")
    got = np.zeros_like(xs)
    _erf_kernel(xs.size, "float32")(xs, got)  # the default schedule vectorizes the loop
    want = np.array([math.erf(float(v)) for v in xs])
    ulp = np.spacing(np.abs(want).astype("float32")).astype("float64")
    assert np.max(np.abs(got - want) / ulp) <= 4
    assert got[-2] == 1.0 and got[-1] == -1.0
    assert np.all(np.abs(got) <= 1.0)


def test_float32_erf_propagates_nan():
    xs = np.array([np.nan, 1.0], "float32")
    got = np.zeros_like(xs)
    _erf_kernel(2, "float32")(xs, got)
    assert np.isnan(got[0]) and got[1] == pytest.approx(math.erf(1.0), rel=1e-6)


def test_float64_erf_still_calls_libm():
    from tvm import tirx

    x = tirx.Var("x", "float64")
    lowered = INTRIN_RULES["tirx.erf"](tirx.op.erf(x))
    assert isinstance(lowered, Call) and "erf" in str(lowered)
    xs = np.linspace(-3, 3, 101)
    got = np.zeros_like(xs)
    _erf_kernel(xs.size, "float64")(xs, got)
    np.testing.assert_allclose(got, [math.erf(v) for v in xs], rtol=1e-15, atol=1e-16)
