"""Scalable vectors (``float32xvscalex4``, ``T.vscale()``) in the llvm backend: IR for SVE/RVV."""

import re

import pytest

import tvm
from tvm.script import tirx as T

SVE = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+sve"]}


def _ll(func):
    with tvm.target.Target(SVE):  # tvm.tirx.build without a target takes the current one
        return tvm.tirx.build(func).inspect_source("ll")


def test_vscale_is_llvm_vscale():
    @T.prim_func(s_tir=True)
    def times(A: T.Buffer((5,), "int32")):
        for i in range(5):
            A[i] = 2 * T.vscale()

    ll = _ll(times)
    assert 'target triple = "aarch64-linux-gnu"' in ll
    assert "call i32 @llvm.vscale.i32()" in ll


def test_contiguous_scalable_load_and_store():
    @T.prim_func(s_tir=True)
    def copy(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        T.func_attr({"tirx.noalias": True})
        B[T.ramp(0, 1, 4 * T.vscale())] = A[T.ramp(0, 1, 4 * T.vscale())] * T.broadcast(
            T.float32(2), 4 * T.vscale())

    ll = _ll(copy)
    assert "load <vscale x 4 x float>" in ll
    assert re.search(r"fmul [a-z ]*<vscale x 4 x float>", ll)
    assert "store <vscale x 4 x float>" in ll


def test_scalable_broadcast_store_folds_to_a_splat():
    @T.prim_func(s_tir=True)
    def fill(A: T.Buffer((128,), "float32")):
        T.func_attr({"tirx.noalias": True})
        A[T.ramp(0, 1, 4 * T.vscale())] = T.broadcast(T.float32(1), 4 * T.vscale())

    assert "store <vscale x 4 x float> splat (float 1.000000e+00)" in _ll(fill)


def test_scalable_ramp_value_uses_stepvector():
    @T.prim_func(s_tir=True)
    def iota(A: T.Buffer((128,), "int32")):
        A[T.ramp(0, 1, 4 * T.vscale())] = T.ramp(5, 3, 4 * T.vscale())

    assert "@llvm.stepvector.nxv4i32()" in _ll(iota)


def test_strided_scalable_load_is_rejected():
    @T.prim_func(s_tir=True)
    def strided(A: T.Buffer((512,), "float32"), B: T.Buffer((128,), "float32")):
        B[T.ramp(0, 1, 4 * T.vscale())] = A[T.ramp(0, 2, 4 * T.vscale())]

    with pytest.raises(ValueError, match="only contiguous scalable vector accesses"):
        _ll(strided)
