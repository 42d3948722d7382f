"""``script(show_meta=True)``: a metadata section the parser reads back.

Apache TVM 0.27 crashes when printing its metadata section (a ``tvm.ir.load_json`` blob placed
before the script), so there is no reference text; ours writes each value as TVMScript, also
before the script, and printing then parsing gives a structurally equal module.
"""

import ml_dtypes
import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import from_source


def _module_with_consts(*arrays):
    x = relax.Var("x", relax.TensorType(arrays[0].shape, str(arrays[0].dtype)))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = x
        for array in arrays:
            c = bb.emit(relax.const(array, str(array.dtype)))
            out = bb.emit(relax.op.add(out, c)) if array.dtype == arrays[0].dtype else out
        bb.emit_func_output(out)
    return bb.get()


_EXPECTED = '''metadata = {
    "ir.GenericConst": [
        R.const([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "float32"),
        R.const([[0.1, -2.5, float("nan")], [float("inf"), -float("inf"), -0.0]], "float32"),
    ],
}
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        gv: R.Tensor((2, 3), dtype="float32") = metadata["ir.GenericConst"][0]
        gv1: R.Tensor((2, 3), dtype="float32") = R.add(x, gv)
        gv2: R.Tensor((2, 3), dtype="float32") = metadata["ir.GenericConst"][1]
        gv3: R.Tensor((2, 3), dtype="float32") = R.add(gv1, gv2)
        return gv3'''


def test_show_meta_text():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.array([[0.1, -2.5, np.nan], [np.inf, -np.inf, -0.0]], dtype="float32")
    assert _module_with_consts(a, b).script(show_meta=True) == _EXPECTED


def test_show_meta_omitted_by_default():
    text = _module_with_consts(np.ones((2, 2), "float32")).script()
    assert text.endswith("# Metadata omitted. Use show_meta=True in script() method to show it.")
    assert not text.startswith("metadata")


@pytest.mark.parametrize(
    "array",
    [
        np.linspace(-3, 3, 12, dtype="float32").reshape(3, 4) / 7,
        (np.arange(8, dtype="float64") / 3.0).reshape(2, 4),
        (np.arange(6) / 7).astype("float16").reshape(2, 3),
        (np.arange(6) / 7).astype(ml_dtypes.bfloat16).reshape(3, 2),
        np.array([[1, -2], [127, -128]], dtype="int8"),
        np.array([2**40, -(2**40)], dtype="int64"),
        np.array([[True, False, True]]),
        np.zeros((2, 0), dtype="float32"),
    ],
    ids=["float32", "float64", "float16", "bfloat16", "int8", "int64", "bool", "empty"],
)
def test_show_meta_round_trip(array):
    mod = _module_with_consts(array)
    again = from_source(mod.script(show_meta=True))
    tvm.ir.assert_structural_equal(mod, again)
    const = again["main"].body.blocks[0].bindings[0].value
    parsed = const.data.numpy()
    assert parsed.dtype == array.dtype and parsed.shape == array.shape
    np.testing.assert_array_equal(parsed.view(np.uint8), array.view(np.uint8))


def test_show_meta_rejects_unwritable_empty_constant():
    mod = _module_with_consts(np.zeros((0, 3), dtype="float32"))
    with pytest.raises(ValueError, match=r"empty constant of shape \(0, 3\)"):
        mod.script(show_meta=True)
