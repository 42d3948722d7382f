"""Scalable vectors (``float32xvscalex4``, ``T.vscale()``) in the llvm backend: IR for SVE/RVV."""

import re

import numpy as np
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


def test_buffer_of_vector_elements_runs():
    # A local buffer of float32x4 elements: each element is a whole vector in memory.
    @T.prim_func(s_tir=True)
    def twice(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"tirx.noalias": True})
        V = T.alloc_buffer((2,), "float32x4", scope="local")
        for i in range(2):
            V[i] = A[T.ramp(i * 4, 1, 4)] * T.broadcast(T.float32(2), 4)
        for i in range(2):
            B[T.ramp(i * 4, 1, 4)] = V[1 - i]

    a = np.arange(8, dtype="float32")
    b = tvm.runtime.tensor(np.zeros(8, "float32"))
    tvm.compile(twice)(tvm.runtime.tensor(a), b)
    np.testing.assert_array_equal(b.numpy(), np.concatenate([a[4:], a[:4]]) * 2)


def test_riscv_target_intrinsics_take_their_overloads_from_the_arguments():
    @T.prim_func(s_tir=True)
    def load(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        v = T.call_llvm_intrin(
            "float32xvscalex4", "llvm.riscv.vle", T.Broadcast(T.float32(0), T.vscale() * 4),
            T.tvm_access_ptr(T.type_annotation("float32"), A.data, 0, 8, 1), T.int64(8))
        B[T.ramp(0, 1, 4 * T.vscale())] = v

    rvv = {"kind": "llvm", "mtriple": "riscv64-linux-gnu", "mcpu": "generic-rv64",
           "mattr": ["+64bit", "+m", "+a", "+f", "+d", "+c", "+v"]}
    ll = tvm.tirx.build(load, target=rvv).inspect_source("ll")
    assert "@llvm.riscv.vle.nxv4f32.p0.i64(" in ll
