"""R.nn.conv1d_transpose / R.nn.conv3d_transpose: inferred types, printed form (checked
against TVM 0.27's), round trip, errors and legalization."""

import pytest

import tvm
from tvm import relax
from tvm.relax.transform import LegalizeOps
from tvm.script import relax as R

SOURCE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 128, 28), "float32"), w: R.Tensor((128, 16, 3), "float32"),
             x3: R.Tensor((2, 3, 4, 4, 4), "float32"), w3: R.Tensor((3, 4, 3, 3, 3), "float32")):
        gv = R.nn.conv1d_transpose(x, w, strides=2, padding=1, output_padding=1, groups=8)
        gv3 = R.nn.conv3d_transpose(x3, w3, out_dtype="float16")
        return (gv, gv3)
'''


def _module():
    return tvm.script.from_source(SOURCE)


def test_inferred_types_and_printed_form():
    text = _module().script()
    assert ('gv: R.Tensor((2, 128, 56), dtype="float32") = R.nn.conv1d_transpose(x, w, '
            'strides=[2], padding=[1, 1], output_padding=[1], dilation=[1], groups=8, '
            'data_layout="NCW", kernel_layout="IOW", out_layout="NCW", out_dtype=None)') in text
    assert ('gv3: R.Tensor((2, 4, 6, 6, 6), dtype="float16") = R.nn.conv3d_transpose(x3, w3, '
            'strides=[1, 1, 1], padding=[0, 0, 0, 0, 0, 0], output_padding=[0, 0, 0], '
            'dilation=[1, 1, 1], groups=1, data_layout="NCDHW", kernel_layout="IODHW", '
            'out_layout="NCDHW", out_dtype="float16")') in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), _module())


def test_symbolic_and_layout_inference():
    n = tvm.tirx.Var("n", "int64")
    x = relax.Var("x", relax.TensorType([1, n, 4], "float32"))  # NWC: width n, 4 channels
    w = relax.Var("w", relax.TensorType([4, 2, 3], "float32"))
    call = relax.op.nn.conv1d_transpose(x, w, strides=2, data_layout="NWC", dilation=2)
    ty = relax.BlockBuilder().normalize(call).ty
    assert str(ty) == 'R.Tensor((1, n * 2 + 3, 2), dtype="float32")'


def test_channel_mismatch_is_an_error():
    x = relax.Var("x", relax.TensorType([1, 3, 5], "float32"))
    w = relax.Var("w", relax.TensorType([4, 2, 3], "float32"))
    with pytest.raises(ValueError, match=r"Conv1dTranspose expects the channel size of the data should equal to the "
                       r"input channel size of the weight. However, the data channel size is "
                       r"T.int64\(3\)"):
        relax.BlockBuilder().normalize(relax.op.nn.conv1d_transpose(x, w))


def test_legalize_lowers_to_call_tir_and_keeps_other_layouts():
    mod = LegalizeOps()(_module())
    names = sorted(gv.name_hint for gv in mod.functions)
    assert names == ["conv1d_transpose", "conv3d_transpose", "main"]
    blocks = mod["conv1d_transpose"].body.block
    assert [b.name for b in blocks.alloc_buffers] == ["data_dilate", "data_pad", "kernel"]

    @R.function
    def nwc(x: R.Tensor((1, 5, 4), "float32"), w: R.Tensor((4, 2, 3), "float32")):
        gv = R.nn.conv1d_transpose(x, w, data_layout="NWC")
        return gv

    kept = LegalizeOps()(tvm.IRModule({"main": nwc.with_attr("global_symbol", "main")}))
    assert "R.nn.conv1d_transpose" in kept.script()  # as TVM: not lowered, left in place
