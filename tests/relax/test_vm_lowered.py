"""relax.build with TVM's whole default pipeline (R.vm.* builtins, shape heap, memory ops).

``relax.build(mod, relax_pipeline=relax.get_default_pipeline(target))`` leaves the VM-level
IR (``VMShapeLower``, ``VMBuiltinLower``, ``StaticPlanBlockMemory``, ...) to the VM; every
module here must give the results of the dataflow path (``relax.build(mod)``).
"""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.vm import builtins
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class SymMLP:
    @R.function
    def main(
        x: R.Tensor(("n", 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")
    ):
        with R.dataflow():
            a = R.matmul(x, w)
            c = R.add(a, b)
            d = R.nn.relu(c)
            e = R.exp(d)
            f = R.add(e, d)
            R.output(f)
        return f


@I.ir_module
class Branches:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor(("n", 4), "float32")):
        if c:
            y = R.exp(x)
            z = R.add(y, x)
        else:
            z = R.multiply(x, R.const(2.0, "float32"))
        w = R.add(z, x)
        return w


@I.ir_module
class ShapesAndTuples:
    @R.function
    def main(t: R.Tuple(R.Tensor(("n", 4), "float32"), R.Tensor(("n", 4), "float32"))):
        n = T.int64()
        k = T.int64()
        a = R.add(t[0], t[1])
        r = R.reshape(a, R.shape([n * 4]))
        m = R.match_cast(r, R.Tensor((k,), "float32"))
        s = R.sum(m)
        return (a, r, s)


@I.ir_module
class Calls:
    @R.function
    def double(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return R.add(x, x)

    @R.function
    def main(x: R.Tensor((5,), "float32")):
        cls = Calls
        y = cls.double(x)
        z = R.multiply(y, x)
        u = cls.double(z)
        return u


@I.ir_module
class Closure:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        @R.function
        def adder(a: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return R.add(a, x)

        r = adder(y)
        return r


def _corpus(name, module):
    """A module of another test file (the test_build* corpus), loaded by path."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent / name
    spec = importlib.util.spec_from_file_location(f"_corpus_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, module)


Elementwise = _corpus("test_build.py", "Elementwise")
Dense = _corpus("test_build.py", "Dense")
FusionMLP = _corpus("test_build_fusion.py", "MLP")

RNG = np.random.default_rng(0)


def _f32(*shape):
    return RNG.random(shape, dtype="float32")


CASES = [
    (SymMLP, lambda: (_f32(5, 3), _f32(3, 4), _f32(4))),
    (SymMLP, lambda: (_f32(1, 3), _f32(3, 4), _f32(4))),
    (Branches, lambda: (np.array(True), _f32(3, 4))),
    (Branches, lambda: (np.array(False), _f32(2, 4))),
    (ShapesAndTuples, lambda: ((_f32(3, 4), _f32(3, 4)),)),
    (Calls, lambda: (_f32(5),)),
    (Closure, lambda: (_f32(2, 3), _f32(2, 3))),
    (Elementwise, lambda: (_f32(3, 8) - 0.5, _f32(8))),
    (Dense, lambda: (_f32(4, 16), _f32(16, 8))),
    (FusionMLP, lambda: (_f32(64, 96), _f32(96, 128), _f32(128), _f32(128, 64), _f32(64))),
]


def _numpy(value):
    if isinstance(value, tuple):
        return tuple(_numpy(v) for v in value)
    return value.numpy() if hasattr(value, "numpy") else value


@pytest.fixture(scope="module")
def built():
    cache = {}

    def get(mod):
        if id(mod) not in cache:
            lowered = relax.build(mod, "llvm", relax_pipeline=relax.get_default_pipeline("llvm"))
            plain = relax.build(mod, "llvm")
            cache[id(mod)] = (
                relax.VirtualMachine(lowered, tvm.cpu()),
                relax.VirtualMachine(plain, tvm.cpu()),
                lowered,
            )
        return cache[id(mod)]

    return get


@pytest.mark.parametrize("index", range(len(CASES)))
def test_default_pipeline_matches_the_dataflow_path(built, index):
    mod, make_args = CASES[index]
    vm_lowered, vm_plain, _ = built(mod)
    args = make_args()
    expected = _numpy(vm_plain["main"](*args))
    got = _numpy(vm_lowered["main"](*args))
    for g, e in zip(_flat(got), _flat(expected)):
        np.testing.assert_allclose(g, e, rtol=1e-5)


def _flat(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def test_the_lowered_code_calls_the_vm_builtins(built):
    _, _, ex = built(SymMLP)
    text = ex.mod.script()
    assert "R.vm.alloc_storage" in text and "vm.builtin.match_shape" in text
    source = ex.as_python()
    assert "_B_vm_builtin_alloc_shape_heap(2)" in source
    assert "_k_shape_func(" in source


def test_results_of_the_lowered_path_are_fresh(built):
    vm, _, _ = built(SymMLP)
    x, w, b = _f32(2, 3), _f32(3, 4), _f32(4)
    first = vm["main"](x, w, b)
    kept = first.numpy().copy()
    vm["main"](x + 1, w, b)
    np.testing.assert_array_equal(first.numpy(), kept)


def test_argument_errors_still_name_the_parameter(built):
    vm, _, _ = built(SymMLP)
    with pytest.raises(ValueError, match=r"function main: parameter 0 \(x\)"):
        vm["main"](_f32(2, 2), _f32(3, 4), _f32(4))


def test_match_cast_failure_in_the_body_raises(built):
    @I.ir_module
    class Cast:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            y = R.match_cast(x, R.Tensor((4,), "float32"))
            z = R.add(y, y)
            return z

    ex = relax.build(Cast, "llvm", relax_pipeline=relax.get_default_pipeline("llvm"))
    vm = relax.VirtualMachine(ex, tvm.cpu())
    np.testing.assert_allclose(vm["main"](np.ones(4, "float32")).numpy(), 2.0)
    with pytest.raises(ValueError, match="match_cast"):
        vm["main"](np.ones(3, "float32"))


# --- the builtins themselves (messages as in TVM: error context, then what is wrong) --------
ERR = "ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 3))) "


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: builtins.check_tensor_info(np.zeros(2), 2, "float64", ERR), "ndim 2 but get 1"),
        (lambda: builtins.check_tensor_info(np.zeros((2, 3)), 2, "float32", ERR),
         "dtype float32 but get float64"),
        (lambda: builtins.check_shape_info((1, 2), 1, ERR), "Shape with ndim 1 but get 2"),
        (lambda: builtins.check_tuple_info((1,), 2, ERR), "Tuple with 2 elements"),
        (lambda: builtins.check_prim_value_info(1.5, "int64", ERR), "PrimValue of dtype int64"),
        (lambda: builtins.match_shape(np.zeros((2, 4)), np.zeros(1, "int64"), 2,
                                      2, 0, 0, 3, ERR), "shape[1] mismatch to specified constant"),
        (lambda: builtins.match_shape(np.zeros((5, 3)), np.array([2]), 2, 3, 0, 0, 3, ERR),
         "mismatch to a previous populated value"),
        (lambda: builtins.alloc_tensor(np.empty(8, "uint8"), 0, (4,), "float32"),
         "does not fit"),
    ],
)
def test_builtin_checks_raise_value_error(call, words):
    with pytest.raises(ValueError, match="ErrorContext|alloc_tensor") as err:
        call()
    assert words in str(err.value)


def test_check_tensor_info_of_a_non_tensor_is_a_type_error():
    # As TVM: a value of the wrong kind is a TypeError (a wrong rank or dtype a ValueError).
    with pytest.raises(TypeError, match="ErrorContext.*expect a Tensor but get int"):
        builtins.check_tensor_info(3, 2, "float32", ERR)


def test_shape_heap_round_trip():
    heap = builtins.alloc_shape_heap(3)
    builtins.match_shape(np.zeros((7, 3)), heap, 2, 1, 0, 0, 3, ERR)
    builtins.match_shape((7, 9), heap, 2, 3, 0, 1, 2, ERR)
    assert builtins.make_shape(heap, 3, 1, 0, 0, 5, 1, 2) == (7, 5, 9)
    assert builtins.make_prim_value(heap, 1, 2) == 9
    storage = builtins.alloc_storage((64,))
    t = builtins.alloc_tensor(storage, 16, (2, 3), "float32")
    assert t.shape == (2, 3) and t.dtype == np.float32
    assert np.shares_memory(t, storage)


def test_a_training_step_on_the_vm_level_ir_matches_the_dataflow_path():
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.loss import CrossEntropyLoss
    from tvm.relax.training.optimizer import SGD

    batch, n_in, n_hidden, n_out = 8, 16, 8, 4
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((batch, n_in), "float32"))
    w0 = relax.Var("w0", relax.TensorType((n_in, n_hidden), "float32"))
    b0 = relax.Var("b0", relax.TensorType((n_hidden,), "float32"))
    w1 = relax.Var("w1", relax.TensorType((n_hidden, n_out), "float32"))
    with bb.function("backbone", [x, w0, b0, w1]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w0), b0)))
            out = bb.emit_output(relax.op.matmul(h, w1))
        bb.emit_func_output(out)
    mod = bb.get().with_attrs({"param_num": 3, "state_num": 0})
    setup = SetupTrainer(CrossEntropyLoss(), SGD(0.1), [
        relax.TensorType((batch, n_out), "float32"), relax.TensorType((batch,), "int64")])
    train_mod = setup(mod)
    rng = np.random.default_rng(1)
    init = [rng.uniform(-0.5, 0.5, s).astype("float32")
            for s in [(n_in, n_hidden), (n_hidden,), (n_hidden, n_out)]]
    xb = rng.random((batch, n_in), dtype=np.float32)
    yb = rng.integers(0, n_out, batch).astype("int64")
    losses = []
    for pipeline in (relax.get_default_pipeline("llvm"), "default"):
        ex = relax.build(train_mod, "llvm", relax_pipeline=pipeline)
        trainer = Trainer(train_mod, relax.VirtualMachine(ex, tvm.cpu()), tvm.cpu())
        trainer.load_params(init)
        losses.append([float(trainer.update(xb, yb).numpy()) for _ in range(3)])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    assert losses[0][2] < losses[0][0]


def test_runtime_tensor_arguments_on_the_vm_level_ir(built):
    vm, vm_plain, _ = built(SymMLP)
    args = [tvm.runtime.tensor(a) for a in (_f32(3, 3), _f32(3, 4), _f32(4))]
    np.testing.assert_allclose(vm["main"](*args).numpy(), vm_plain["main"](*args).numpy(),
                               rtol=1e-6)
    report = vm.profile("main", *args)
    assert report.calls[0][0] == "shape_func"
