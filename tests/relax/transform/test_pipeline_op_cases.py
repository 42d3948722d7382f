"""Every op case table row goes through the whole default pipeline, well-formed after each
pass, down to the VM-level IR (no call_tir, builtin or memory op left)."""

from __future__ import annotations

import importlib
import pathlib
import sys

import pytest

import tvm
from tvm import relax
from tvm.relax.ir.instrument import WellFormedInstrument

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}


def _cases():
    return [
        pytest.param(case, id=f"{family}-{op_cases.case_id(case)}-{i}")
        for family, module in _TABLES.items()
        for i, case in enumerate(module.CASES)
        if case.ref is not None
    ]


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
