"""``tvm.tirx.script.builder.ir``: the device-intrinsic namespaces behind ``T.cuda`` etc.,
their classes as the backends export them, and ``register_script_namespace``."""

import pytest
from tvm.tirx.script.builder import ir as builder_ir

import tvm
from tvm.backend.cuda.script import CUDANamespace, NVSHMEMNamespace, STIRNamespace
from tvm.backend.metal.script import MetalNamespace
from tvm.backend.trn.script import NKINamespace
from tvm.ir import Op
from tvm.script import tirx as T


def test_namespaces_are_the_objects_T_uses():
    for name, cls in [("cuda", CUDANamespace), ("nvshmem", NVSHMEMNamespace),
                      ("s_tir", STIRNamespace), ("metal", MetalNamespace),
                      ("nki", NKINamespace)]:
        namespace = getattr(builder_ir, name)
        assert isinstance(namespace, cls)
        assert getattr(T, name) is namespace


def test_device_intrinsics_are_classified():
    buffer = tvm.tirx.decl_buffer((1,), "float32")
    calls = {"cuda": T.cuda.thread_fence(), "nvshmem": T.nvshmem.fence(),
             "nki": T.nki.identity(buffer[0:1], 1)}
    for namespace, call in calls.items():
        op = call.op
        assert op.get_attr("TIRxOpCategory") == "device_intrin"
        assert op.get_attr("TDeviceIntrinsicNamespace") == namespace
    # A buffer region is passed through as it is (NKI operands are tensor tiles).
    assert isinstance(calls["nki"].args[0], tvm.tirx.BufferRegion)


def test_register_script_namespace():
    class Greeting:
        @staticmethod
        def hello():
            return tvm.tirx.const(7, "int32")

    namespace = Greeting()
    try:
        assert builder_ir.register_script_namespace("unit_greeting", namespace) is namespace
        assert T.unit_greeting is namespace
        assert tvm.tirx.script.builder.unit_greeting is namespace
        # Re-registering the same object is fine; another one needs override=True.
        builder_ir.register_script_namespace("unit_greeting", namespace)
        with pytest.raises(ValueError, match="T.unit_greeting is already registered"):
            builder_ir.register_script_namespace("unit_greeting", Greeting())
        other = Greeting()
        builder_ir.register_script_namespace("unit_greeting", other, override=True)
        assert T.unit_greeting is other

        @T.prim_func(check_well_formed=False)
        def func(A: T.Buffer((1,), "int32")):
            A[0] = T.unit_greeting.hello()

        assert func.body.value.value == 7
    finally:
        for module in (builder_ir, tvm.tirx.script.builder, T):
            vars(module).pop("unit_greeting", None)


@pytest.mark.parametrize("name", ["not an id", "class", 3])
def test_register_script_namespace_rejects_bad_names(name):
    with pytest.raises(ValueError, match="is not a Python identifier"):
        builder_ir.register_script_namespace(name, object())


def test_flat_builtins_have_no_device_namespace():
    for name in ("tirx.mma_store", "tirx.mma_fill", "tirx.simdgroup_load"):
        op = Op.get(name)
        assert op.get_attr("TIRxOpCategory") == "builtin"
        assert op.get_attr("TDeviceIntrinsicNamespace") is None
