"""Every gradient rule, compiled: ``relax.transform.Gradient`` of ``sum(op(...) * w)`` for each
static float case of the op tables, legalized, compiled with LLVM and run by the VM, matches
central finite differences of the compiled forward function (``check_numerical_grads``).

Every static float case of every op with a gradient rule is checked (about 170 cases). Compiling
them is the cost, so cases share modules: each family's cases are cut into chunks of
``_CHUNK`` cases, a chunk is one module (kernels that are structurally equal across its cases,
such as the ``sum(out * w)`` kernels of one shape, are compiled once) and one ``relax.build``
at ``-opt-level=0`` (the checks are about values; optimized kernels are covered by the forward
kernels of ``test_compiled_ops.py``). A case whose gradient or kernels cannot be built is an
xfail carrying the error; float64 is used where the op accepts it. The same cases are checked
through the reference evaluator in ``test_op_gradient_numeric.py``.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.ir.op import Op

sys.path.insert(0, str(pathlib.Path(__file__).parent / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}
_FLOAT = ("float32", "float64")
# Markers (checkpoints) and stop_gradient, whose zero gradient is by definition, not a slope.
_SKIP_OPS = {"relax.grad.start_checkpoint", "relax.grad.end_checkpoint", "relax.grad.no_grad"}
_NO_GRAD_PARAMS = {"relax.nn.nll_loss": (2,), "relax.grad.nll_loss_backward": (3,)}
_STEP_OPS = {"relax.ceil", "relax.floor", "relax.round", "relax.sign", "relax.trunc"}
_BUILT: dict = {}
_TARGET = "llvm -opt-level=0"
#: Cases per compiled module: big enough to share kernels and per-build costs, small enough
#: that ``-n 2`` spreads the work.
_CHUNK = 12
#: Cases whose gradient rule states a limit (``docs/arch/autodiff.md``), with the words of its
#: error; none today (an entry fails once the rule covers the case).
_LIMITS: dict = {}


def _tensor_params(case):
    out = []
    for a in case.args:
        if isinstance(a, op_cases.TensorParam):
            out.append(a)
        elif isinstance(a, list):
            out.extend(p for p in a if isinstance(p, op_cases.TensorParam))
    return out


def _op_name(case):
    try:
        call, _, _ = op_cases.build(case)
    except Exception:  # noqa: BLE001 - a case that does not build is the op tests' business
        return None
    return getattr(getattr(call, "op", None), "name", None)


def _selected(case):
    params = _tensor_params(case)
    if case.grad is False:
        return False
    if not all(p.shape is not None and all(isinstance(d, int) for d in p.shape) for p in params):
        return False
    name = _op_name(case)
    if name is None or name in _SKIP_OPS or (name in _STEP_OPS and case.inputs is not None):
        return False
    if Op.get(name).get_attr("FPrimalGradient") is None:
        return False
    if not any(p.dtype == "float32" for p in params):
        return False
    # Integer and low-precision outputs (argmax, casts) are steps: no slope to check.
    ty = relax.BlockBuilder().normalize(op_cases.build(case)[0]).ty
    if isinstance(ty, relax.TupleType):
        ty = ty.fields[0]
    return isinstance(ty, relax.TensorType) and ty.dtype in _FLOAT


def _as_float64(case):
    import dataclasses

    def convert(arg):
        if isinstance(arg, op_cases.TensorParam) and arg.dtype == "float32":
            return dataclasses.replace(arg, dtype="float64")
        if isinstance(arg, list):
            return [convert(a) for a in arg]
        return arg

    inputs = case.inputs
    if inputs is not None:
        inputs = [
            np.asarray(a).astype("float64") if np.asarray(a).dtype == np.float32 else a
            for a in inputs
        ]
    return dataclasses.replace(case, args=[convert(a) for a in case.args], inputs=inputs)


def _case_module(case, name, rng, dtype):
    """``(module with name and name_adjoint, float param indices, inputs)``."""
    call, params, specs = op_cases.build(case)
    ty = relax.BlockBuilder().normalize(call).ty
    if isinstance(ty, relax.TupleType):
        ty = ty.fields[0]
    if ty.dtype != dtype:
        # e.g. a cast to float32: finite differences must run at the output's precision.
        raise TypeError(f"the op computes in {ty.dtype}, not {dtype}")
    bb = relax.BlockBuilder()
    with bb.function(name, params):
        with bb.dataflow():
            out = bb.emit(call)
            if isinstance(out.ty, relax.TupleType):
                out = bb.emit(relax.TupleGetItem(out, 0))
            dims = getattr(ty.shape, "values", None)
            if dims is None:
                # A data-dependent output shape (dynamic_strided_slice): weight by itself.
                weight = out
            else:
                dims = [int(d) for d in dims]
                weight = relax.const(rng.uniform(0.5, 1.5, dims).astype(ty.dtype), ty.dtype)
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    stopped = _NO_GRAD_PARAMS.get(call.op.name, ())
    idx = [i for i, p in enumerate(params) if p.ty.dtype in _FLOAT and i not in stopped]
    mod = relax.transform.Gradient(name, require_grads=[params[i] for i in idx])(bb.get())
    inputs = op_cases.as_numpy_inputs(case, specs, rng)
    return relax.transform.LegalizeOps()(mod), idx, inputs


def _merge(parts):
    """One module of every case's functions; kernels renamed apart per case, and each set of
    structurally equal kernels compiled once."""
    from tvm.relax.expr_functor import ExprMutator

    functions, kernels = {}, {}
    for i, mod in parts.items():
        renames = {}
        for gv, f in mod.functions.items():
            if isinstance(f, relax.Function):
                continue
            same = kernels.setdefault(tvm.ir.structural_hash(f), [])
            shared = next((g for g, k in same if tvm.ir.structural_equal(k, f)), None)
            if shared is None:
                shared = relax.GlobalVar(f"{gv.name_hint}_c{i}")
                same.append((shared, f))
                functions[shared] = f
            renames[gv] = shared

        class _Rename(ExprMutator):
            def visit_global_var_(self, gvar, renames=renames):
                return renames.get(gvar, gvar)

        for gv, f in mod.functions.items():
            if isinstance(f, relax.Function):
                functions[gv] = _Rename().visit_expr(f)
    return tvm.IRModule(functions)


def _build(mod):
    """``relax.build`` of ``mod`` at ``_TARGET``, without the test suite's well-formedness
    instrument: the Gradient and LegalizeOps results were checked when they were made, and the
    build's own passes are checked by the build tests."""
    context = tvm.transform.PassContext.current()
    previous = context.instruments
    context.override_instruments([])
    try:
        return relax.VirtualMachine(
            relax.build(mod, target=_TARGET, relax_pipeline=None), tvm.cpu()
        )
    finally:
        context.override_instruments(previous)


def _chunk(key):
    """``{case index: ((vm, float param indices, inputs, dtype), failure)}`` for one chunk."""
    if key in _BUILT:
        return _BUILT[key]
    family, _ = key
    result, parts, info = {}, {}, {}
    for i in _CHUNKS[key]:
        case = _TABLES[family].CASES[i]
        for candidate, dtype in ((_as_float64(case), "float64"), (case, "float32")):
            try:
                built = _case_module(candidate, f"f{i}", np.random.default_rng(0), dtype)
            except Exception as err:  # noqa: BLE001 - reported as the case's xfail
                built = err
                continue
            break
        if isinstance(built, Exception):
            result[i] = (None, f"gradient/legalization: {type(built).__name__}: {built}")
            continue
        parts[i] = built[0]
        info[i] = (built[1], built[2], dtype)
    try:
        vms = dict.fromkeys(parts, _build(_merge(parts)))
    except (TypeError, ValueError):
        # One case's kernels do not compile: build the cases one by one to find it.
        vms = {}
        for i, mod in parts.items():
            try:
                vms[i] = _build(mod)
            except (TypeError, ValueError) as err:
                result[i] = (None, f"compilation: {type(err).__name__}: {err}")
    for i, vm in vms.items():
        result[i] = ((vm, *info[i]), None)
    _BUILT[key] = result
    return result


def _chunks():
    """``{(family, chunk number): [case index]}``: every selected case, in table order."""
    chunks = {}
    for family, module in _TABLES.items():
        chosen = [i for i, case in enumerate(module.CASES) if _selected(case)]
        for start in range(0, len(chosen), _CHUNK):
            chunks[(family, start // _CHUNK)] = chosen[start : start + _CHUNK]
    return chunks


_CHUNKS = _chunks()


def _case_label(family, i):
    return f"{family}-{op_cases.case_id(_TABLES[family].CASES[i])}-{i}"


def _check(built, index):
    """Raise AssertionError unless the compiled adjoint matches finite differences."""
    vm, idx, inputs, dtype = built
    inputs = [np.require(a, requirements="C") for a in inputs]
    forward, adjoint = vm[f"f{index}"], vm[f"f{index}_adjoint"]
    _, grads = adjoint(*inputs)

    def run_forward(*float_values):
        values = list(inputs)
        for i, value in zip(idx, float_values):
            values[i] = np.require(value.astype(inputs[i].dtype), requirements="C")
        return float(forward(*values).numpy())

    tol = {"atol": 1e-4, "rtol": 1e-3, "delta": 1e-6} if dtype == "float64" else {}
    tvm.testing.check_numerical_grads(
        run_forward, [inputs[i] for i in idx], [g.numpy() for g in grads], **tol
    )


@pytest.mark.parametrize("chunk", list(_CHUNKS), ids=lambda key: f"{key[0]}-{key[1]}")
def test_compiled_gradients_match_finite_differences(chunk):
    """Each case of the chunk matches; a case in ``_LIMITS`` fails with its stated words."""
    failures = []
    for i, (built, failure) in _chunk(chunk).items():
        label = _case_label(chunk[0], i)
        words = _LIMITS.get(label)
        if words is not None:
            if failure is None or words not in failure:
                failures.append(f"{label}: expected the stated limit {words!r}, got {failure}")
            continue
        if failure is not None:
            failures.append(f"{label}: {failure}")
            continue
        try:
            _check(built, i)
        except AssertionError as err:
            failures.append(f"{label}: {err}")
    assert not failures, "\n".join(failures)


#: Ops with a gradient rule that no compiled check can exercise: no float tensor input
#: (creation ops), or no float output (comparisons, arg* searches, isnan...), or a marker
#: (no_grad).
_UNCHECKABLE = {
    "relax.arange", "relax.eye", "relax.full", "relax.ones", "relax.zeros",
    "relax.equal", "relax.not_equal", "relax.greater", "relax.greater_equal", "relax.less",
    "relax.less_equal", "relax.logical_and", "relax.logical_or", "relax.logical_xor",
    "relax.grad.no_grad", "relax.argmax", "relax.argmin", "relax.argsort", "relax.isfinite",
    "relax.isinf", "relax.isnan",
}  # fmt: skip


def test_every_gradient_rule_is_checked_compiled():
    """Each op with an ``FPrimalGradient`` rule has a compiled case, unless it is uncheckable."""
    checked = {
        _op_name(_TABLES[family].CASES[i]) for (family, _), cases in _CHUNKS.items() for i in cases
    }
    # Ops that other tests register on the fly (family "test") may share this process.
    with_rule = {
        name for name in Op.list_op_names()
        if Op.get(name).get_attr("FPrimalGradient") is not None and Op.get(name).family != "test"
    }
    assert with_rule - checked == _UNCHECKABLE
    assert not checked & _UNCHECKABLE
