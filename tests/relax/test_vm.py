"""The Relax VM on hand-legalized modules (call_tir to te-built PrimFuncs): results, checks,
tuples, control flow, set_input/invoke_stateful, profiling, timing, export and load."""

import numpy as np
import pytest

import tvm
from tvm import relax, tirx, topi
from tvm.relax.testing import evaluate


def _f32(*shape):
    return relax.TensorType(list(shape), "float32")


@pytest.fixture(scope="module")
def sym_mod():
    """main(x: (n, 4), y: (n, 4)) -> (x + y) * y, and pair(x, y) -> (x + y, x * y)."""
    n = tirx.Var("n", "int64")
    bb = relax.BlockBuilder()
    x, y = relax.Var("x", _f32(n, 4)), relax.Var("y", _f32(n, 4))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            z = bb.emit_te(topi.add, x, y)
            w = bb.emit_output(bb.emit_te(topi.multiply, z, y))
        bb.emit_func_output(w)
    x2, y2 = relax.Var("x", _f32(n, 4)), relax.Var("y", _f32(n, 4))
    with bb.function("pair", [x2, y2]):
        a = bb.emit_te(topi.add, x2, y2)
        b = bb.emit_te(topi.multiply, x2, y2)
        bb.emit_func_output(relax.Tuple([a, b]))
    return bb.get()


@pytest.fixture(scope="module")
def vm(sym_mod):
    return relax.VirtualMachine(relax.build(sym_mod, relax_pipeline=None), tvm.cpu())


def _data(n=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, 4), dtype="float32"), rng.random((n, 4), dtype="float32")


def test_numpy_and_tensor_arguments_match_the_reference(sym_mod, vm):
    a, b = _data()
    expected = evaluate(sym_mod, a, b)
    out = vm["main"](a, b)
    assert isinstance(out, tvm.runtime.Tensor)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out = vm["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(b))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_symbolic_dims_take_any_extent(vm):
    for n in (1, 5):
        a, b = _data(n)
        np.testing.assert_allclose(vm["main"](a, b).numpy(), (a + b) * b, rtol=1e-6)


def test_tuple_results(vm):
    a, b = _data()
    s, p = vm["pair"](a, b)
    np.testing.assert_allclose(s.numpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose(p.numpy(), a * b, rtol=1e-6)


def test_results_are_fresh_on_every_call(vm):
    a, b = _data()
    first = vm["main"](a, b)
    kept = first.numpy()
    vm["main"](b, a)
    np.testing.assert_array_equal(first.numpy(), kept)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((np.zeros((3, 4), "float32"), np.zeros((2, 4), "float32")), "shape (2, 4)"),
        ((np.zeros((3, 4), "float32"), np.zeros((3, 4), "float64")), "dtype float64"),
        ((np.zeros((3, 4), "float32"), np.zeros((3, 4, 1), "float32")), "shape (3, 4, 1)"),
        ((np.zeros((3, 5), "float32"), np.zeros((3, 5), "float32")), "shape (3, 5)"),
        ((np.zeros((3, 4), "float32"), 1.0), "float"),
    ],
)
def test_argument_checks_name_function_parameter_and_annotation(vm, args, words):
    # A value of another kind (a float for a tensor) is TVM's TypeError, a mismatching
    # tensor a ValueError.
    kind = TypeError if words == "float" else ValueError
    with pytest.raises(kind, match="function main") as err:
        vm["main"](*args)
    message = str(err.value)
    assert "R.Tensor((n, 4), dtype=\"float32\")" in message
    assert words in message
    assert "parameter" in message


def test_unknown_function(vm):
    with pytest.raises(ValueError, match="no function 'nope'"):
        vm["nope"]


def test_set_input_invoke_stateful_get_outputs(vm):
    a, b = _data()
    vm.set_input("main", a, y=b)
    vm.invoke_stateful("main")
    np.testing.assert_allclose(vm.get_outputs("main").numpy(), (a + b) * b, rtol=1e-6)
    with pytest.raises(ValueError, match="set_input"):
        vm.invoke_stateful("pair")
    with pytest.raises(ValueError, match="no parameter 'z'"):
        vm.set_input("main", a, z=b)


def test_profile_reports_every_kernel(vm):
    a, b = _data()
    report = vm.profile("main", a, b)
    names = [name for name, _ in report.calls]
    assert names == ["add", "multiply"]
    table = str(report)
    assert "Name" in table and "add" in table and "multiply" in table and "Total" in table


def test_time_evaluator(vm):
    a, b = _data()
    result = vm.time_evaluator("main", tvm.cpu(), number=3, repeat=2)(a, b)
    assert len(result.results) == 2
    assert all(r > 0 for r in result.results)


def test_static_shapes_plan_intermediates_once():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _f32(8))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.add, x, x)
            b = bb.emit_te(topi.multiply, a, a)
            c = bb.emit_output(bb.emit_te(topi.add, b, x))
        bb.emit_func_output(c)
    ex = relax.build(bb.get(), relax_pipeline=None)
    assert "2 planned buffers" in ex.stats()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    v = np.arange(8, dtype="float32")
    outs = [vm["main"](v * k) for k in (1, 2)]
    for k, out in zip((1, 2), outs):
        np.testing.assert_allclose(out.numpy(), (2 * k * v) ** 2 + k * v)


def test_if_and_calls_between_functions():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _f32(4))
    with bb.function("double", [x]):
        bb.emit_func_output(bb.emit_te(topi.add, x, x))
    double = bb.get().get_global_var("double")
    c = relax.Var("c", relax.TensorType([], "bool"))
    y = relax.Var("y", _f32(4))
    with bb.function("main", [c, y]):
        then = relax.SeqExpr([], relax.Call(double, [y]))
        other = relax.SeqExpr([], y)
        bb.emit_func_output(bb.emit(relax.If(c, then, other)))
    vm = relax.VirtualMachine(relax.build(bb.get(), relax_pipeline=None), tvm.cpu())
    v = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](np.array(True), v).numpy(), 2 * v)
    np.testing.assert_array_equal(vm["main"](np.array(False), v).numpy(), v)


def test_export_library_and_load(sym_mod, tmp_path):
    ex = relax.build(sym_mod, relax_pipeline=None)
    path = str(tmp_path / "mod.so")
    ex.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    a, b = _data()
    np.testing.assert_allclose(vm["main"](a, b).numpy(), (a + b) * b, rtol=1e-6)
    # The parameter's annotation is printed from the exported (pickled) program.
    with pytest.raises(ValueError, match=r"function main: parameter 1 .*expects R\.Tensor"):
        vm["main"](a, a[:, :2].copy())


def test_a_plain_library_is_not_a_vm_program(tmp_path):
    from tvm import te

    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    lib = tvm.compile(te.create_prim_func([A, B]))
    with pytest.raises(ValueError, match="no Relax VM program"):
        relax.VirtualMachine(lib, tvm.cpu())


def test_cpu_executable_does_not_run_on_a_gpu(sym_mod):
    ex = relax.build(sym_mod, relax_pipeline=None)
    with pytest.raises(ValueError, match="built for target 'llvm'.*cuda"):
        relax.VirtualMachine(ex, tvm.cuda())


def test_exported_library_runs_in_a_new_process(sym_mod, tmp_path):
    import subprocess
    import sys

    path = str(tmp_path / "mod.so")
    relax.build(sym_mod, relax_pipeline=None).export_library(path)
    script = (
        "import numpy as np, tvm\n"
        "from tvm import relax\n"
        f"vm = relax.VirtualMachine(tvm.runtime.load_module({path!r}), tvm.cpu())\n"
        "a = np.full((2, 4), 2.0, 'float32')\n"
        "print(vm['main'](a, a).numpy().sum())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "64.0"


def test_wrong_dtype_runtime_tensor_is_reported_by_parameter(vm):
    # Runtime tensors feeding kernels skip the Python dtype check on the fast path; the kernel
    # rejects them and the VM re-checks to name the parameter.
    a = tvm.runtime.tensor(np.zeros((3, 4), "float32"))
    b = tvm.runtime.tensor(np.zeros((3, 4), "float64"))
    with pytest.raises(ValueError, match=r"function main: parameter 1 \(y\)") as err:
        vm["main"](a, b)
    assert "dtype float64" in str(err.value)
    with pytest.raises(ValueError, match=r"function pair: parameter 0 \(x\)"):
        vm["pair"](b, a)


def test_if_branch_values_are_not_planned_buffers():
    # Branch results are the If's value (returned): they must be fresh on every call.
    bb = relax.BlockBuilder()
    c = relax.Var("c", relax.TensorType([], "bool"))
    x = relax.Var("x", _f32(4))
    with bb.function("main", [c, x]):
        a = bb.emit_te(topi.add, x, x)
        b = bb.emit_te(topi.multiply, x, x)
        bb.emit_func_output(bb.emit(relax.If(c, a, b)))
    vm = relax.VirtualMachine(relax.build(bb.get(), relax_pipeline=None), tvm.cpu())
    v = np.arange(4, dtype="float32")
    first = vm["main"](np.array(True), v)
    vm["main"](np.array(True), v + 1)
    np.testing.assert_array_equal(first.numpy(), 2 * v)


def test_profiling_code_is_generated_on_first_use_as_eagerly(sym_mod, tmp_path):
    from tvm.relax.vm.codegen import compile_function

    ex = relax.build(sym_mod, relax_pipeline=None)
    assert all(prof is None for _, prof in ex._codes.values())
    compiled = ex.mod
    eager = {name: compile_function(name, compiled[name], compiled, profile=True).source
             for name in ex._codes}
    # An in-place change of ex.mod does not change what is profiled.
    ex.mod["pair"] = ex.mod["main"]
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a, b = _data()
    assert [name for name, _ in vm.profile("main", a, b).calls] == ["add", "multiply"]
    assert {name: prof.source for name, (_, prof) in ex._codes.items()} == eager
    # A library written before any profiling carries the profiling code too.
    fresh = relax.build(sym_mod, relax_pipeline=None)
    path = str(tmp_path / "lazy.so")
    fresh.export_library(path)
    loaded = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    assert [name for name, _ in loaded.profile("pair", a, b).calls] == ["add", "multiply"]
    with pytest.raises(ValueError, match="only be left out with the module"):
        relax.Executable(None, {"main": (fresh._codes["main"][0], None)})
