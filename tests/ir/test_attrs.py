"""``DictAttrs`` printing: TVMScript as TVM 0.27 (formats checked against the oracle)."""

import numpy as np

import tvm
from tvm import relax
from tvm.ir import DictAttrs


def _func():
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    return relax.Function([x], x)


def test_empty_attrs_print_as_empty_dict():
    assert repr(_func().attrs) == "{}"


def test_attrs_print_sorted_as_tvmscript():
    f = _func().with_attr("global_symbol", "main").with_attr("flag", True)
    f = f.with_attr("fl", 1.5).with_attr("lst", [1, "a"])
    text = '{"fl": 1.5, "flag": True, "global_symbol": "main", "lst": [1, "a"]}'
    assert repr(f.attrs) == text
    assert str(f.attrs) == text


def test_params_print_as_metadata_references_not_values():
    big = np.arange(5000, dtype="float32").reshape(50, 100)
    f = _func().with_attr("num_input", 1)
    f = f.with_attr("params", [tvm.runtime.tensor(big), tvm.runtime.tensor(np.ones(3, "int64"))])
    f = f.with_attr("tir_var_upper_bound", {"s0": 10})
    assert repr(f.attrs) == (
        '{"num_input": 1, "params": [metadata["ffi.Tensor"][0], metadata["ffi.Tensor"][1]], '
        '"tir_var_upper_bound": {"s0": 10}}\n'
        "# Metadata omitted. Use show_meta=True in script() method to show it."
    )
    # the values are still there
    np.testing.assert_array_equal(f.attrs["params"][0].numpy(), big)


def test_make_node_dict_attrs_prints():
    assert str(tvm.ir.make_node("ir.DictAttrs", a=1)) == '{"a": 1}'
    assert repr(DictAttrs({"b": "x", "a": 2})) == '{"a": 2, "b": "x"}'
