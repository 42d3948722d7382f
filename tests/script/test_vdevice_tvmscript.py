"""Virtual devices in TVMScript: I.vdevice, vdevice="kind[:i[:scope]]" annotations, printing."""

import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def _module():
    @I.ir_module
    class Mod:
        I.module_global_infos(
            {"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 1), I.vdevice("llvm", 2, "global")]}
        )

        @R.function
        def main(
            a: R.Tensor((2,), "float32", "llvm"),
            b: R.Tensor((2,), "float32", "cuda:0"),
            c: R.Tensor((2,), "float32", "llvm:1"),
            d: R.Tensor((2,), "float32", "vdevice:1"),
        ):
            return a

    return Mod


def test_annotations_name_module_devices():
    mod = _module()
    devices = mod.global_infos["vdevice"]
    params = mod["main"].params
    assert params[0].ty.vdevice.same_as(devices[0])
    assert params[1].ty.vdevice.same_as(devices[1])
    assert params[2].ty.vdevice.same_as(devices[2])
    assert params[3].ty.vdevice.same_as(devices[1])
    assert devices[1].vdevice_id == 1 and devices[2].memory_scope == "global"


def test_printed_form_and_round_trip():
    mod = _module()
    text = mod.script()
    assert 'I.vdevice({"keys": ["cpu"], "kind": "llvm"' in text
    assert 'c: R.Tensor((2,), dtype="float32", vdevice="llvm:1:global")' in text
    assert 'd: R.Tensor((2,), dtype="float32", vdevice="cuda:0:global")' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
    outside = relax.TensorType((2,), "float32", relax.VDevice("llvm"))
    assert outside.script() == 'R.Tensor((2,), dtype="float32", vdevice="llvm:-1:global")'


def test_unknown_devices():
    with pytest.raises(tvm.error.DiagnosticError, match="cuda:0 was not found"):

        @I.ir_module
        class Bad:
            I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

            @R.function
            def main(a: R.Tensor((2,), "float32", "cuda")):
                return a

    ty = R.Tensor((2,), "float32", "llvm")  # outside a module: an unplaced device
    assert ty.vdevice is not None and ty.vdevice.target is None
