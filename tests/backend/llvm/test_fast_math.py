"""float32 math on the LLVM target that vectorizes: ``erf`` (``intrin._lower_erf``: a rational
approximation) against the double-precision erf, and the inline ``exp``
(``codegen_expr.fast_exp_f32``) at the ends of its range."""

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
    assert np.max(np.abs(got - want) / ulp) <= 6
    assert np.max(np.abs(got - want)) < 4e-7
    tiny = np.abs(xs) < 1e-3  # relative accuracy near 0 (erf(x) ~ 1.128 x)
    np.testing.assert_allclose(got[tiny], want[tiny], rtol=3e-7, atol=0)
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


def _exp_kernel(n):
    @T.prim_func(s_tir=True)
    def kernel(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        T.func_attr({"global_symbol": "main"})
        for i in range(n):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                b[vi] = T.exp(a[vi])

    return tvm.compile(tvm.IRModule({"main": kernel}), target="llvm")["main"]


def test_float32_exp_range_ends():
    # -inf (a causally masked attention score) gives 0 without computing a denormal;
    # results between the smallest normal and 2^-149 stay denormal; NaN stays NaN.
    xs = np.array([-np.inf, -1e30, -104.0, -100.0, -90.0, -87.0, 0.0, 1.0, 88.0, 89.0,
                   np.inf, np.nan] + [0.5] * 20, "float32")
    got = np.zeros_like(xs)
    _exp_kernel(xs.size)(xs, got)
    want = np.exp(xs.astype("float64"))
    finite = (want > 0) & (want < np.finfo("float32").max)  # float32 results, not inf or 0
    np.testing.assert_allclose(got[finite], want[finite].astype("float32"), rtol=5e-7,
                               atol=2e-45)
    assert list(got[:3]) == [0.0, 0.0, 0.0]
    assert got[3] > 0  # exp(-100) is a denormal float32, not flushed
    assert got[9] == np.inf and got[10] == np.inf and np.isnan(got[11])
