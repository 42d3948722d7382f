"""tvm.tirx.TensorIntrin's table and the intrinsics tvm.s_tir.tensor_intrin registers."""

import numpy as np
import pytest

import tvm
import tvm.s_tir.tensor_intrin
from tvm.tirx import TensorIntrin


def test_vnni_dot_product_is_registered_with_its_description():
    intrin = TensorIntrin.get("dot_16x4_vnni")
    desc_text = intrin.desc.script()
    assert 'T.axis.remap("SR", [lane, k])' in desc_text
    assert "llvm.x86.avx512.vpdpbusd.512" in intrin.impl.script()
    assert [intrin.desc.buffer_map[p].dtype for p in intrin.desc.params] == [
        "uint8", "int8", "int32"]
    assert "dot_16x4_vnni" in TensorIntrin.registered_names()


def test_vnni_description_computes_the_dot_product():
    intrin = TensorIntrin.get("dot_16x4_vnni")
    lib = tvm.compile(intrin.desc, target="llvm")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, size=(4,), dtype="uint8")
    b = rng.integers(-128, 127, size=(16, 4), dtype="int8")
    c = rng.integers(-100, 100, size=(16,), dtype="int32")
    args = [tvm.runtime.tensor(x) for x in (a, b, c)]
    lib(*args)
    expected = c + b.astype("int32") @ a.astype("int32")
    np.testing.assert_array_equal(args[2].numpy(), expected)


def test_register_and_get_errors():
    intrin = TensorIntrin.get("dot_16x4_vnni")
    with pytest.raises(ValueError, match="registered already"):
        TensorIntrin.register("dot_16x4_vnni", intrin.desc, intrin.impl)
    TensorIntrin.register("dot_16x4_vnni", intrin.desc, intrin.impl, override=True)
    assert TensorIntrin.get("no_such_intrin", allow_missing=True) is None
    with pytest.raises(ValueError, match="no tensor intrinsic named 'no_such_intrin'"):
        TensorIntrin.get("no_such_intrin")
    with pytest.raises(TypeError, match="desc must be a PrimFunc"):
        TensorIntrin(1, intrin.impl)
