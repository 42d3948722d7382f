"""relax.op.nn 1-D/3-D pooling, packed layouts (NCHW16c) and argument-length errors."""

import numpy as np
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


@pytest.mark.parametrize(
    "make, shape, kwargs",
    [
        ("max_pool1d", (1, 2, 9), {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True}),
        ("avg_pool1d", (1, 2, 9), {"pool_size": 3, "strides": 2, "padding": 1}),
        ("avg_pool1d", (1, 9, 2), {"pool_size": 2, "count_include_pad": False, "padding": 1,
                                   "layout": "NWC", "out_layout": "NCW"}),
        ("max_pool3d", (1, 2, 4, 5, 6), {"pool_size": (2, 3, 2), "dilation": (1, 1, 2)}),
        ("avg_pool3d", (1, 2, 4, 5, 6), {"pool_size": 2, "strides": 2, "padding": 1,
                                         "count_include_pad": False, "ceil_mode": True}),
        ("adaptive_avg_pool1d", (1, 2, 10), {"output_size": 3}),
        ("adaptive_avg_pool3d", (1, 2, 5, 4, 7), {"output_size": (2, 3, 3)}),
    ],
)
def test_lowered_pooling_matches_the_reference(make, shape, kwargs):
    from tvm.relax.testing import ReferenceEvaluator

    x = relax.Var("x", relax.TensorType(shape, "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(getattr(relax.op.nn, make)(x, **kwargs)))
    mod = bb.get()
    data = np.random.default_rng(0).random(shape, dtype="float32")
    expected = ReferenceEvaluator(mod).run("main", data)
    expected = expected.numpy() if hasattr(expected, "numpy") else np.asarray(expected)
    lowered = relax.transform.LegalizeOps()(mod)
    assert not any("relax.nn." in str(b.value.op) for b in lowered["main"].body.blocks[0].bindings
                   if isinstance(b.value, relax.Call) and hasattr(b.value.op, "name"))
    vm = relax.VirtualMachine(relax.build(lowered), tvm.cpu())
    np.testing.assert_allclose(vm["main"](data).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_avg_pool1d_values():
    # count_include_pad (the default): the padded edge window averages over 3 positions.
    x = relax.Var("x", R.Tensor((1, 1, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(relax.op.nn.avg_pool1d(x, 3, 1, 1)))
    vm = relax.VirtualMachine(relax.build(relax.transform.LegalizeOps()(bb.get())), tvm.cpu())
    out = vm["main"](np.array([[[3.0, 6.0, 9.0, 12.0]]], "float32")).numpy()
    np.testing.assert_allclose(out, [[[3.0, 6.0, 9.0, 7.0]]])


def test_packed_layout_is_not_lowered_yet():
    x = relax.Var("x", R.Tensor((1, 2, 8, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(relax.op.nn.max_pool1d(x, layout="NCW4c")))
    with pytest.raises(ValueError, match="packed layout 'NCW4c' is not supported yet"):
        relax.transform.LegalizeOps()(bb.get())
