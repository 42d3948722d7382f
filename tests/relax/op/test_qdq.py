"""relax.quantize / relax.dequantize: types and errors (TVM 0.27's rules), the legalized
kernels against NumPy, and the printed form."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax import op

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _var(name, shape, dtype):
    return relax.Var(name, T(shape, dtype))


def _run(build_call, *arrays):
    params = [_var(f"a{i}", a.shape, str(a.dtype)) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        bb.emit_func_output(bb.emit(build_call(*params)))
    mod = bb.finalize()
    lowered = relax.transform.LegalizeOps()(mod).script()
    assert "R.quantize" not in lowered and "R.dequantize" not in lowered
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in arrays]).numpy()


def test_types():
    x = _var("x", (2, 4), "float32")
    s, z = _var("s", (2,), "float32"), _var("z", (2,), "int8")
    assert str(_infer(op.quantize(x, s, z, axis=0))) == 'R.Tensor((2, 4), dtype="int8")'
    q = _var("q", (2, 4), "uint8")
    assert str(_infer(op.dequantize(q, s, z, axis=0, out_dtype="float16"))) == (
        'R.Tensor((2, 4), dtype="float16")')
    # scalar and singleton parameters fit any axis
    s0, z0 = _var("s0", (), "float32"), _var("z0", (1,), "int8")
    assert str(_infer(op.quantize(x, s0, z0, axis=1))) == 'R.Tensor((2, 4), dtype="int8")'


def test_errors():
    x = _var("x", (2, 4), "float32")
    s, z = _var("s", (2,), "float32"), _var("z", (2,), "int8")
    with pytest.raises(TypeError, match="Unsupported output datatype"):
        _infer(op.quantize(x, s, z, axis=0, out_dtype="int32"))
    with pytest.raises(TypeError, match="Unsupported input datatype"):
        _infer(op.quantize(_var("i", (2, 4), "int32"), s, z, axis=0))
    with pytest.raises(TypeError, match="scale param datatype"):
        _infer(op.quantize(x, _var("s", (2,), "int8"), z, axis=0))
    with pytest.raises(TypeError, match="zero_point param datatype"):
        _infer(op.quantize(x, s, _var("z", (2,), "float32"), axis=0))
    with pytest.raises(ValueError, match="axis param is out of range"):
        _infer(op.quantize(x, s, z, axis=2))
    with pytest.raises(ValueError, match=r"Size mismatch: relax.quantize.*scale param is 'T.int64\(2\)'"):
        _infer(op.quantize(x, s, z, axis=1))
    with pytest.raises(ValueError, match="scalar or singleton tensors for rank-0 input"):
        _infer(op.dequantize(_var("q", (), "int8"), s, z, axis=0))


def test_printed_form_round_trips():
    x = _var("x", (2, 4), "float32")
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        call = op.quantize(x, relax.const(0.5, "float32"), relax.const(3, "int8"), axis=-1)
        bb.emit_func_output(bb.emit(call))
    mod = bb.finalize()
    text = mod.script()
    assert 'axis=-1, out_dtype="int8"' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)


def test_quantize_per_axis_matches_numpy():
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((3, 5)) * 40).astype("float32")
    scale = np.array([0.5, 0.25, 2.0], "float32")
    zp = np.array([3, -2, 0], "int8")
    got = _run(lambda x, s, z: op.quantize(x, s, z, axis=0, out_dtype="int8"), data, scale, zp)
    expected = np.clip(np.round(data / scale[:, None]) + zp[:, None], -128, 127).astype("int8")
    np.testing.assert_array_equal(got, expected)


def test_quantize_to_uint8_with_scalar_constants():
    data = np.linspace(-10, 300, 12, dtype="float32").reshape(3, 4)

    def build(x):
        return op.quantize(x, relax.const(2.0, "float32"), relax.const(7, "uint8"),
                           out_dtype="uint8")

    got = _run(build, data)
    np.testing.assert_array_equal(got, np.clip(np.round(data / 2) + 7, 0, 255).astype("uint8"))


def test_dequantize_matches_numpy_and_inverts_quantize():
    q = np.array([[-128, -1, 0, 127], [5, 6, 7, 8]], "int8")
    scale = np.array([0.5, 4.0], "float32")
    zp = np.array([1, -3], "int8")
    got = _run(lambda x, s, z: op.dequantize(x, s, z, axis=0), q, scale, zp)
    expected = (q.astype("int32") - zp[:, None].astype("int32")).astype("float32") * scale[:, None]
    np.testing.assert_array_equal(got, expected)
    back = _run(lambda x, s, z: op.quantize(op.dequantize(x, s, z, axis=0), s, z, axis=0),
                q, scale, zp)
    np.testing.assert_array_equal(back, q)


def test_dequantize_to_float16_clips_to_its_range():
    q = np.array([100, -100, 3], "int16")
    got = _run(lambda x: op.dequantize(x, relax.const(1000.0, "float32"),
                                        relax.const(0, "int16"), out_dtype="float16"), q)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.array([65504, -65504, 3000], "float16"))


def test_reference_rule_agrees_with_kernel():
    rule = tvm.ir.Op.get("relax.quantize").get_attr("FReference")
    data = np.array([[1.2, -3.7], [250.0, -250.0]], "float32")
    attrs = op.quantize(_var("x", (2, 2), "float32"), relax.const(1.0), relax.const(0, "int8"),
                        axis=1).attrs
    got = rule(attrs, data, np.float32(1.0), np.int8(0))
    np.testing.assert_array_equal(got, np.array([[1, -4], [127, -128]], "int8"))
