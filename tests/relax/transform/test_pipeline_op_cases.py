"""Every op case table row goes through the whole default pipeline, well-formed after each
pass, down to the VM-level IR (no call_tir, builtin or memory op left); through the zero
pipeline (legalize, fold, fuse, canonicalize, DCE) its value still matches the reference."""

from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.relax.testing import evaluate

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}


# The PrimFunc interpreter binds a trailing tir_vars parameter (n) after checking the buffer
# dims that use it (n * 3): the evaluation of this row fails there, not in the passes.
_EVAL_GAPS = {"statistical-cumsum-sym-flat"}


def _cases(evaluating=False):
    items = []
    for family, module in _TABLES.items():
        for i, case in enumerate(module.CASES):
            if case.ref is None:
                continue
            key = f"{family}-{op_cases.case_id(case)}"
            marks = []
            if evaluating and key in _EVAL_GAPS:
                marks = [pytest.mark.xfail(reason="interpreter binds tir_vars late", strict=True)]
            items.append(pytest.param(case, id=f"{key}-{i}", marks=marks))
    return items


@pytest.mark.parametrize("case", _cases())
def test_default_pipeline_lowers_every_case(case):
    call, params, _ = op_cases.build(case)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(call))
        bb.emit_func_output(out)
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_default_pipeline(None)(bb.get())
    text = mod["main"].script()
    for leftover in ("R.call_tir", "R.builtin.", "R.memory.", "R.call_dps_packed"):
        assert leftover not in text, leftover
    assert "vm.builtin.check_tensor_info" in text or not any(
        isinstance(p.ty, relax.TensorType) for p in mod["main"].params
    )


def _compare(actual, expected, rtol):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _compare(a, e, rtol)
        return
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    if expected.dtype.kind == "V" or actual.dtype.kind == "V":  # ml_dtypes
        actual, expected = actual.astype("float32"), expected.astype("float32")
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case", _cases(evaluating=True))
def test_zero_pipeline_keeps_values(case):
    call, params, specs = op_cases.build(case)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(call))
        bb.emit_func_output(out)
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_pipeline("zero")(bb.get())
    if "vm.builtin.tensor_to_shape" in mod.script():
        pytest.skip("vm.builtin.tensor_to_shape is a VM runtime builtin")
    inputs = op_cases.as_numpy_inputs(case, specs, np.random.default_rng(0))
    _compare(evaluate(mod, *inputs), case.ref(*inputs), case.rtol)
