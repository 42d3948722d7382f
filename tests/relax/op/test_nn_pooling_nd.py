"""relax.op.nn 1-D/3-D pooling, packed layouts (NCHW16c) and argument-length errors."""

import pytest

import tvm
from tvm import relax, tirx
from tvm.relax.op.nn.args import InvalidOpArgument
from tvm.script import ir as I
from tvm.script import relax as R


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def test_pool1d_output_extents():
    x = relax.Var("x", R.Tensor((2, 3, 32), "float32"))
    nn = relax.op.nn
    assert _infer(nn.max_pool1d(x, pool_size=3)).script() == 'R.Tensor((2, 3, 30), dtype="float32")'
    assert _infer(nn.avg_pool1d(x, strides=2)).script() == 'R.Tensor((2, 3, 16), dtype="float32")'
    ty = _infer(nn.max_pool1d(x, padding=1, out_layout="NWC"))
    assert ty.script() == 'R.Tensor((2, 34, 3), dtype="float32")'
    assert nn.avg_pool1d(x).attrs.count_include_pad is True
    assert list(nn.max_pool1d(x, padding=(1, 2)).attrs.padding) == [1, 2]


def test_pool3d_and_adaptive():
    x = relax.Var("x", R.Tensor((1, 4, 8, 10, 12), "float16"))
    nn = relax.op.nn
    ty = _infer(nn.max_pool3d(x, pool_size=(2, 3, 4), strides=2))
    assert ty.script() == 'R.Tensor((1, 4, 4, 4, 5), dtype="float16")'
    ty = _infer(nn.adaptive_avg_pool3d(x, output_size=(2, 2, 3)))
    assert ty.script() == 'R.Tensor((1, 4, 2, 2, 3), dtype="float16")'
    y = relax.Var("y", R.Tensor((1, 4, 9), "float32"))
    assert _infer(nn.adaptive_avg_pool1d(y, 3)).script() == 'R.Tensor((1, 4, 3), dtype="float32")'


def test_symbolic_ceil_mode():
    n, c, w = (tirx.Var(v, "int64") for v in "ncw")
    x = relax.Var("x", R.Tensor((n, c, w), "float32"))
    call = relax.op.nn.max_pool1d(x, pool_size=3, strides=2, padding=1, dilation=2, ceil_mode=True)
    expected = relax.TensorType((n, c, tirx.floordiv(w, 2)), "float32")
    tvm.ir.assert_structural_equal(_infer(call), expected)


def test_packed_layouts():
    n, c, h, w = (tirx.Var(v, "int64") for v in "nchw")
    x = relax.Var("x", R.Tensor((n, c, h, w, 16), "float32"))
    call = relax.op.nn.max_pool2d(x, layout="NCHW16c", out_layout="NHWC")
    tvm.ir.assert_structural_equal(
        _infer(call), relax.TensorType((n, h, w, c * 16), "float32")
    )
    y = relax.Var("y", R.Tensor((1, 32, 6, 6), "float32"))
    ty = _infer(relax.op.nn.avg_pool2d(y, layout="NCHW", out_layout="NCHW8c"))
    assert ty.script() == 'R.Tensor((1, 4, 6, 6, 8), dtype="float32")'


def test_errors():
    x = relax.Var("x", R.Tensor((2, 3, 28), "float32"))
    with pytest.raises(InvalidOpArgument, match="pool_size to have 1 values"):
        relax.op.nn.max_pool1d(x, pool_size=(1, 2))
    # Both a ValueError and the kind TVM reports it as.
    with pytest.raises(ValueError):
        relax.op.nn.avg_pool3d(x, padding=(1, 2, 3, 4))
    with pytest.raises(tvm.error.InternalError):
        relax.op.nn.adaptive_avg_pool1d(x, output_size=(3, 3))
    bb = relax.BlockBuilder()
    with pytest.raises(ValueError, match="primal axes permute NCW"):
        bb.normalize(relax.op.nn.max_pool1d(x, layout="OIW"))
    with pytest.raises(ValueError, match="needs a split factor"):
        bb.normalize(relax.op.nn.max_pool1d(x, out_layout="NCWc"))
    with pytest.raises(ValueError, match="requires the input to be 3-dim"):
        bb.normalize(relax.op.nn.max_pool1d(relax.Var("y", R.Tensor((1, 2, 3, 4), "float32"))))
    with pytest.raises(TypeError, match="to be a Tensor"):
        bb.normalize(relax.op.nn.max_pool3d(relax.Var("s", R.Shape((1, 2, 3, 4, 5)))))


def test_tvmscript_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 2, 16), "float32")):
            y = R.nn.max_pool1d(x, pool_size=[2], strides=[2])
            z = R.nn.adaptive_avg_pool1d(y, output_size=[4])
            return z

    text = Mod.script()
    assert "R.nn.max_pool1d(" in text and "R.nn.adaptive_avg_pool1d(" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), Mod)
    assert Mod["main"].ret_ty.script() == 'R.Tensor((1, 2, 4), dtype="float32")'
