# ruff: noqa: F821
"""``@T.jit`` with ``T.constexpr`` keyword-only parameters: specialisation, caching and
errors."""

from __future__ import annotations

import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T


def test_constexpr_values_fill_shapes_bounds_and_expressions():
    @T.jit(private=True)
    def scaled(A: T.Buffer((N,), "int32"), B: T.Buffer((N,), "int32"), *, N: T.constexpr,
               SCALE: T.constexpr = 3):
        for i in range(N):
            B[i] = A[i] * SCALE

    @T.prim_func(private=True)
    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = A[i] * 3

    spec = scaled.specialize(N=16)
    assert isinstance(spec, tvm.tirx.PrimFunc)
    assert len(spec.params) == 2
    assert_structural_equal(spec, expected, map_free_vars=True)
    assert scaled.specialize(N=16) is spec
    assert scaled.specialize(N=16, SCALE=4) is not spec
    assert "A[i] * 4" in scaled.specialize(N=16, SCALE=4).script()


def test_specialize_errors():
    @T.jit
    def k(A: T.Buffer((N,), "int32"), *, N: T.constexpr, M: T.constexpr):
        for i in range(N):
            A[i] = M

    with pytest.raises(TypeError, match="missing T.constexpr argument.*M"):
        k.specialize(N=8)
    with pytest.raises(TypeError, match="unexpected keyword argument.*BOGUS"):
        k.specialize(N=8, M=1, BOGUS=2)


def test_keyword_only_parameters_need_jit():
    with pytest.raises(tvm.error.DiagnosticError, match="need @T.jit"):
        @T.prim_func
        def f(A: T.Buffer((4,), "int32"), *, N: T.constexpr):
            A[0] = 0


def test_optional_parameter_is_left_out_when_none():
    @T.jit(private=True)
    def kernel(a: T.Optional(T.handle), out_h: T.handle):
        out = T.match_buffer(out_h, (1,), "int32")
        if a is not None:
            A = T.match_buffer(a, (1,), "int32")
            out[0] = A[0]
        else:
            out[0] = -1

    present = kernel.specialize()
    absent = kernel.specialize(a=None)
    assert [p.name for p in present.params] == ["A", "out"]  # the buffers' names, as 0.27
    assert [p.name for p in absent.params] == ["out"]
    assert "out[0] = -1" in absent.script() and "out[0] = A[0]" in present.script()
    assert kernel.specialize(a=None) is absent and absent is not present
    with pytest.raises(TypeError, match="only accept None"):
        kernel.specialize(a=object())
    with pytest.raises(tvm.error.DiagnosticError, match="only supported by @T.jit"):
        @T.prim_func
        def invalid(a: T.Optional(T.handle)):
            T.evaluate(0)
