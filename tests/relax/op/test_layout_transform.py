"""``relax.op.layout_transform``: IndexMap or callable, padding, TVMScript round trip (printed
as TVM 0.27 prints it), reference, legalization and gradient."""

import numpy as np
import pytest

import tvm
from tvm import relax, tirx
from tvm.relax.testing import evaluate
from tvm.script import relax as R
from tvm.script import tirx as T

EXPECTED = '''# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((10,), dtype="float32")) -> R.Tensor((4, 3), dtype="float32"):
        gv: R.Tensor((3, 4), dtype="float32") = R.layout_transform(x, index_map=T.index_map(lambda i: (i // 4, i % 4)), pad_value=T.float32(2.0))
        gv1: R.Tensor((4, 3), dtype="float32") = R.layout_transform(gv, index_map=T.index_map(lambda a, b: (b, a)), pad_value=None)
        return gv1'''


def _module(shape, *transforms, dtype="float32"):
    x = relax.Var("x", relax.TensorType(shape, dtype))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = x
        for index_map, pad_value in transforms:
            out = bb.emit(relax.op.layout_transform(out, index_map, pad_value=pad_value))
        bb.emit_func_output(out)
    return bb.get()


def _lines(text):
    # The header lists the imports the printer used; compare the code lines.
    return [line for line in text.splitlines() if not line.startswith("# from")]


def test_printed_as_tvm_and_parsed_back():
    mod = _module((10,), (lambda i: (i // 4, i % 4), 2.0), (lambda a, b: (b, a), None))
    assert _lines(mod.script()) == _lines(EXPECTED)
    parsed = tvm.script.from_source(mod.script())
    tvm.ir.assert_structural_equal(mod, parsed)
    assert parsed.script() == mod.script()


def test_tvmscript_in_numbers_out():
    @tvm.script.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 8, 3, 3), dtype="float32")):
            y = R.layout_transform(
                x, index_map=T.index_map(lambda n, c, h, w: (n, c // 4, h, w, c % 4))
            )
            return y

    ty = Mod["main"].body.body.ty
    assert str(ty) == 'R.Tensor((2, 2, 3, 3, 4), dtype="float32")'
    index_map = Mod["main"].body.blocks[0].bindings[0].value.attrs.index_map
    assert [v.name for v in index_map.initial_indices] == ["n", "c", "h", "w"]
    x = np.random.default_rng(0).standard_normal((2, 8, 3, 3)).astype("float32")
    expected = x.reshape(2, 2, 4, 3, 3).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(evaluate(Mod, x), expected)
    legalized = relax.transform.LegalizeOps()(Mod)
    np.testing.assert_array_equal(evaluate(legalized, x), expected)


def test_index_map_object_and_int_pad():
    index_map = tirx.IndexMap.from_func(lambda i, j: (j // 2, i, j % 2))
    mod = _module((2, 3), (index_map, 7), dtype="int32")
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.attrs.index_map is index_map
    assert call.attrs.pad_value.dtype == "int32"
    assert str(call.ty) == 'R.Tensor((2, 2, 2), dtype="int32")'
    x = np.arange(6, dtype="int32").reshape(2, 3)
    expected = np.full((2, 2, 2), 7, "int32")
    for i in range(2):
        for j in range(3):
            expected[j // 2, i, j % 2] = x[i, j]
    np.testing.assert_array_equal(evaluate(mod, x), expected)
    np.testing.assert_array_equal(evaluate(relax.transform.LegalizeOps()(mod), x), expected)


def test_non_invertible_map_legalizes_by_gather():
    # (i + j, j) is injective but not a mixed-radix sum: legalized as a gather, padded with 0.
    mod = _module((2, 3), (lambda i, j: (i + j, j), None))
    assert str(mod["main"].ret_ty) == 'R.Tensor((4, 3), dtype="float32")'
    x = np.arange(1, 7, dtype="float32").reshape(2, 3)
    expected = np.zeros((4, 3), "float32")
    for i in range(2):
        for j in range(3):
            expected[i + j, j] = x[i, j]
    np.testing.assert_array_equal(evaluate(mod, x), expected)
    np.testing.assert_array_equal(evaluate(relax.transform.LegalizeOps()(mod), x), expected)


def test_symbolic_and_unknown_shapes():
    n = tirx.Var("n", "int64")
    mod = _module((n, 4), (lambda i, j: (j, i), None))
    assert str(mod["main"].ret_ty) == 'R.Tensor((4, n), dtype="float32")'
    x = relax.Var("x", relax.TensorType(dtype="float32", ndim=2))
    call = relax.BlockBuilder().normalize(
        relax.op.layout_transform(x, lambda i, j: (i // 2, j, i % 2))
    )
    assert str(call.ty) == 'R.Tensor(dtype="float32", ndim=3)'


def test_gradient_through_inverse():
    x = relax.Var("x", relax.TensorType((10,), "float32"))
    w = relax.Var("w", relax.TensorType((3, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(relax.op.layout_transform(x, lambda i: (i // 4, i % 4), pad_value=5.0))
            loss = bb.emit_output(relax.op.sum(relax.op.multiply(y, w)))
        bb.emit_func_output(loss)
    grad_mod = relax.transform.Gradient("main", require_grads=[x])(bb.get())
    wv = np.arange(12, dtype="float32").reshape(3, 4)
    _, (gx,) = evaluate(grad_mod, np.zeros(10, "float32"), wv, func_name="main_adjoint")
    # d loss / d x[i] = w[i // 4, i % 4]; the padding's weights do not flow back.
    np.testing.assert_array_equal(gx, wv.reshape(-1)[:10])


@pytest.mark.parametrize("args, kwargs, kind, words", [
    (["not a map"], {}, TypeError, "tirx.IndexMap or a callable"),
    ([lambda i: (i,)], {"pad_value": "zero"}, TypeError, "pad_value"),
    ([lambda i: (i,)], {}, ValueError, "takes 1"),
    ([lambda i, j: (j, i)], {"pad_value": tirx.const(1, "int64")}, TypeError, "dtype float32"),
])
def test_errors(args, kwargs, kind, words):
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    with pytest.raises(kind, match=words):
        relax.BlockBuilder().normalize(relax.op.layout_transform(x, *args, **kwargs))


def test_gradient_of_non_invertible_map_is_an_error():
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.layout_transform(x, lambda i, j: (i + j, j)))
            loss = bb.emit_output(relax.op.sum(y))
        bb.emit_func_output(loss)
    with pytest.raises(ValueError, match=r"cannot invert T.index_map\(lambda i, j"):
        relax.transform.Gradient("main")(bb.get())


def test_symbolic_padded_split():
    n = tirx.Var("n", "int64")
    mod = _module((n,), (lambda i: (i // 4, i % 4), 2.0))
    assert str(mod["main"].ret_ty) == 'R.Tensor(((n + 3) // 4, 4), dtype="float32")'
    tvm.ir.assert_structural_equal(mod, tvm.script.from_source(mod.script()))
    x = np.arange(10, dtype="float32")
    expected = np.concatenate([x, [2, 2]]).astype("float32").reshape(3, 4)
    np.testing.assert_array_equal(evaluate(mod, x), expected)
    np.testing.assert_array_equal(evaluate(relax.transform.LegalizeOps()(mod), x), expected)
