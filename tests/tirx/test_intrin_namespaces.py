"""``T.nvshmem``, ``T.nki`` and ``T.fma``: the calls they build, their op attributes, and
their TVMScript round trip (texts checked against Apache TVM 0.27)."""

import numpy as np
import pytest

import tvm
from tvm.ir import Op, assert_structural_equal
from tvm.script import tirx as T


def _roundtrip(func):
    code = func.script()
    parsed = tvm.script.from_source(code)
    assert parsed.script() == code
    assert_structural_equal(func, parsed)
    return code


def test_device_namespaces_roundtrip():
    @T.prim_func
    def func(A: T.Buffer((2, 2), "float16")):
        T.nvshmem.quiet()
        T.nki.identity(A[0, 0], 1)
        T.nvshmem.getmem_nbi.warp(A.data, A.data, 16, 1)
        T.nvshmem.wait_until(A.data, "eq", 1)
        T.nki.tensorreduce(A[0, 0], A[1, 1], "add", False, 0, 1)
        T.nki.activation(A[0, 0], A[1, 1], "exp")
        T.evaluate(T.nvshmem.my_pe())

    code = _roundtrip(func)
    body = code.split("):\n", 1)[1]
    assert body == (
        "    T.nvshmem.quiet()\n"
        "    T.nki.identity(A[0, 0], 1)\n"
        "    T.nvshmem.getmem_nbi.warp(A.data, A.data, 16, 1)\n"
        '    T.nvshmem.wait_until(A.data, "eq", 1, "uint64_t")\n'
        '    T.nki.tensorreduce(A[0, 0], A[1, 1], "add", T.bool(False), 0, 1)\n'
        '    T.nki.activation(A[0, 0], A[1, 1], "exp", T.float32(0.0), T.float32(1.0))\n'
        "    T.nvshmem.my_pe()"
    )


@pytest.mark.parametrize(("call", "op_name", "namespace", "dtype"), [
    (lambda: T.nvshmem.my_pe(), "tirx.nvshmem.my_pe", "nvshmem", "int32"),
    (lambda: T.nvshmem.fence(), "tirx.nvshmem.fence", "nvshmem", ""),
    (lambda: T.nvshmem.putmem_signal_nbi.block(
        tvm.tirx.Var("d", "handle"), tvm.tirx.Var("s", "handle"), 16,
        tvm.tirx.Var("g", "handle"), 1, "set", 0),
     "tirx.nvshmem.putmem_signal_nbi_block", "nvshmem", ""),
    (lambda: T.nki.matmul(tvm.tirx.Var("a", "float32"), tvm.tirx.Var("b", "float32"),
                          tvm.tirx.Var("c", "float32")), "tirx.nki.matmul", "nki", ""),
])
def test_ops_are_classified_device_intrinsics(call, op_name, namespace, dtype):
    c = call()
    assert c.op.name == op_name
    assert c.dtype == dtype
    op = Op.get(op_name)
    assert op.get_attr("TIRxOpCategory") == "device_intrin"
    assert op.get_attr("TDeviceIntrinsicNamespace") == namespace
    assert op.get_attr("TCallEffectKind") == tvm.tirx.op.CallEffectKind.UpdateState


def test_defaults_and_argument_errors():
    x = tvm.tirx.Var("x", "float32")
    assert [str(a) for a in T.nki.matmul(x, x, x).args[3:]] == ["T.bool(True)"]
    assert len(T.nki.tensorscalar(x, x, 2.0, "mul", reverse=True).args) == 5
    with pytest.raises(TypeError, match="missing required argument 'size'"):
        T.nki.identity(x)
    with pytest.raises(TypeError, match="unexpected arguments"):
        T.nvshmem.quiet(1)
    with pytest.raises(TypeError, match="unexpected arguments: bogus"):
        T.nki.memset(x, 0.0, bogus=1)


def test_fma_builds_prints_and_runs():
    y = tvm.tirx.Var("y", "float32")
    call = T.fma(y, 1.0, 2.0)
    assert call.op.name == "tirx.fma" and call.dtype == "float32"
    assert str(call) == "T.fma(y, T.float32(1.0), T.float32(2.0))"
    with pytest.raises(TypeError, match="expected float32"):
        T.fma(y, tvm.tirx.Var("i", "int32"), y)

    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = T.fma(A[i], A[i], T.float32(1))

    assert "B[i] = T.fma(A[i], A[i], T.float32(1.0))" in _roundtrip(f)
    a = tvm.runtime.tensor(np.arange(4, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(4, "float32"))
    tvm.compile(f, target="llvm")(a, b)
    np.testing.assert_allclose(b.numpy(), np.arange(4) ** 2 + 1)


def test_s_tir_metal_ptx_legacy_namespaces_roundtrip():
    @T.prim_func
    def func(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float16")):
        R = T.alloc_buffer((1,), "float32", scope="local")
        T.s_tir.ldg32(R[0], 1, A[0], 0)
        T.metal.simd_shuffle(A[0], 0)
        T.metal.simd_shuffle_down(A[1], 1)
        T.evaluate(T.metal.simd_shuffle_up(B[0], 1) + T.float16(1))
        T.ptx_legacy.ldmatrix(False, 4, ".b16", A.data, 0, B.data, 0)
        T.tvm_kernel_replace_point()

    code = _roundtrip(func)
    for text in ("T.s_tir.ldg32(R_1, 1, A[0], 0)", "T.metal.simd_shuffle(A[0], 0)",
                 "T.metal.simd_shuffle_down(A[1], 1)",
                 "T.evaluate(T.metal.simd_shuffle_up(B[0], 1) + T.float16(1.0))",
                 'T.ptx_legacy.ldmatrix(T.bool(False), 4, ".b16", A.data, 0, B.data, 0)',
                 "T.tvm_kernel_replace_point()"):
        assert text in code, text
    for name, namespace in (("s_tir.ldg32", "s_tir"), ("metal.simd_shuffle", "metal"),
                            ("ptx_legacy.mma", "ptx_legacy")):
        op = Op.get(f"tirx.{name}")
        assert op.get_attr("TIRxOpCategory") == "device_intrin"
        assert op.get_attr("TDeviceIntrinsicNamespace") == namespace
    assert Op.get("tirx.tvm_kernel_replace_point").get_attr("TIRxOpCategory") == "builtin"
    # the shuffles return the value's dtype, as Apache TVM 0.27
    assert T.metal.simd_shuffle(tvm.tirx.Var("h", "float16"), 0).dtype == "float16"
    with pytest.raises(TypeError, match="missing required argument 'lane'"):
        T.metal.simd_shuffle(tvm.tirx.Var("h", "float16"))
