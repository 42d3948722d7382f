"""Runs the op case tables of ``op_cases/<family>.py``: inference, reference, errors."""

from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

from tvm import relax
from tvm.relax.testing import evaluate

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}


def _collect(kind):
    items = []
    for family, module in _TABLES.items():
        for i, case in enumerate(getattr(module, kind)):
            items.append(pytest.param(case, id=f"{family}-{op_cases.case_id(case)}-{i}"))
    return items


CASES = _collect("CASES")
ERRORS = _collect("ERRORS")


@pytest.mark.parametrize("case", CASES)
def test_inferred_type(case):
    call, _, _ = op_cases.build(case)
    ty = relax.BlockBuilder().normalize(call).ty
    assert str(ty) == case.ty


def _compare(actual, expected, rtol, where="result"):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, f"{where}[{i}]")
        return
    expected = np.asarray(expected)
    assert isinstance(actual, np.ndarray), where
    assert actual.shape == expected.shape, (where, actual.shape, expected.shape)
    if expected.dtype.kind == "V" or actual.dtype.kind == "V":  # ml_dtypes (bfloat16, fp8)
        assert actual.dtype == expected.dtype, (where, actual.dtype, expected.dtype)
        actual, expected = actual.astype("float32"), expected.astype("float32")
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=where)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol, err_msg=where)


@pytest.mark.parametrize("case", [c for c in CASES if c.values[0].ref is not None])
def test_reference_through_evaluator(case):
    call, params, specs = op_cases.build(case)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        out = bb.emit(call)
        bb.emit_func_output(out)
    rng = np.random.default_rng(0)
    inputs = op_cases.as_numpy_inputs(case, specs, rng)
    actual = evaluate(bb.get(), *inputs)
    _compare(actual, case.ref(*inputs), case.rtol)


@pytest.mark.parametrize("case", ERRORS)
def test_error(case):
    with pytest.raises(case.exc) as info:
        call, _, _ = op_cases.build(case)
        relax.BlockBuilder().normalize(call)
    message = str(info.value)
    for word in case.words:
        assert word in message, (word, message)


def test_every_family_has_cases_and_errors():
    for family, module in _TABLES.items():
        assert module.CASES, family
        assert module.ERRORS, family
