"""Every op of the case tables (``tests/relax/op/op_cases``), legalized, compiled with LLVM and
run by the VM, matches its NumPy reference.

The cases of one family are compiled together (one module, one LLVM compilation) to keep the
file fast. A case whose op has no legalization rule yet, or whose kernel does not compile yet,
is reported as xfail with the error (the legalization and codegen work is in flight); once it
works the case passes with no change here.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

import tvm
from tvm import relax

sys.path.insert(0, str(pathlib.Path(__file__).parent / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}
_BUILT: dict = {}


def _case_module(case, name):
    call, params, specs = op_cases.build(case)
    bb = relax.BlockBuilder()
    with bb.function(name, params):
        bb.emit_func_output(bb.emit(call))
    return bb.get(), specs


def _family(family):
    """``{index: (vm function or None, specs, failure message or None)}`` for a family."""
    if family in _BUILT:
        return _BUILT[family]
    result, funcs = {}, {}
    for i, case in enumerate(_TABLES[family].CASES):
        if case.ref is None:
            continue
        mod, specs = _case_module(case, f"f{i}")
        try:
            legal = relax.transform.LegalizeOps()(mod)
        except (TypeError, ValueError) as err:  # recorded as the case's xfail reason
            result[i] = (None, None, f"legalization: {type(err).__name__}: {err}")
            continue
        funcs[i] = (legal, specs)
    try:
        vm = _build_group(funcs)
        for i, (_, specs) in funcs.items():
            result[i] = (vm[f"f{i}"], specs, None)
    except Exception:  # noqa: BLE001 - one bad kernel: compile the cases one by one
        for i, (legal, specs) in funcs.items():
            try:
                vm = relax.VirtualMachine(relax.build(legal, relax_pipeline=None), tvm.cpu())
                result[i] = (vm[f"f{i}"], specs, None)
            except (TypeError, ValueError) as err:  # recorded as the case's xfail reason
                result[i] = (None, None, f"compilation: {type(err).__name__}: {err}")
    _BUILT[family] = result
    return result


def _build_group(funcs):
    """One module with every case's function and kernels (kernels renamed per case)."""
    from tvm.relax.expr_functor import ExprMutator

    functions = {}
    for i, (legal, _) in funcs.items():
        renames = {}
        for gv, f in legal.functions.items():
            if gv.name_hint != f"f{i}":
                renames[gv] = relax.GlobalVar(f"{gv.name_hint}_c{i}")

        class _Rename(ExprMutator):
            def visit_global_var_(self, gvar, renames=renames):
                return renames.get(gvar, gvar)

        for gv, f in legal.functions.items():
            if gv in renames:
                functions[renames[gv]] = f
            else:
                functions[gv] = _Rename().visit_expr(f)
    ex = relax.build(tvm.IRModule(functions), relax_pipeline=None)
    return relax.VirtualMachine(ex, tvm.cpu())


def _params():
    items = []
    for family, module in _TABLES.items():
        for i, case in enumerate(module.CASES):
            if case.ref is not None:
                items.append(pytest.param(family, i, id=f"{family}-{op_cases.case_id(case)}-{i}"))
    return items


def _numpy(value):
    if isinstance(value, tuple):
        return tuple(_numpy(v) for v in value)
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def _compare(actual, expected, rtol):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _compare(a, e, rtol)
        return
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    if expected.dtype.kind == "V" or actual.dtype.kind == "V":
        actual, expected = actual.astype("float32"), expected.astype("float32")
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=max(rtol, 1e-5), atol=max(rtol, 1e-5))


@pytest.mark.parametrize(("family", "index"), _params())
def test_compiled_op_matches_reference(family, index):
    case = _TABLES[family].CASES[index]
    func, specs, failure = _family(family)[index]
    if failure is not None:
        pytest.xfail(failure[:300])
    rng = np.random.default_rng(0)
    inputs = op_cases.as_numpy_inputs(case, specs, rng)
    _compare(_numpy(func(*[np.require(a, requirements="C") for a in inputs])), case.ref(*inputs), case.rtol)
