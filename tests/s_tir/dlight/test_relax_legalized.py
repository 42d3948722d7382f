"""Unscheduled legalized Relax models, scheduled by the dlight GPU rules, run in the SIMT
simulator and compared with NumPy (issue 17: "an unscheduled legalized model runs correctly
on a GPU")."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.s_tir import dlight as dl
from tvm.s_tir.transform import lower_for_gpu
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.tirx.gpu_simulator import simulate_prim_func

RULES = (dl.gpu.Matmul(), dl.gpu.GeneralReduction(), dl.gpu.Fallback())


def _schedule_all(mod):
    with tvm.target.Target("cuda"):
        return dl.ApplyDefaultSchedule(*RULES)(relax.transform.LegalizeOps()(mod))


def _prim_funcs(mod):
    return {gv.name_hint: f for gv, f in mod.functions_items()
            if isinstance(f, tvm.tirx.PrimFunc)}


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@I.ir_module
class MLPHead:
    @R.function
    def main(x: R.Tensor((6, 20), "float32"), w: R.Tensor((20, 10), "float32"),
             b: R.Tensor((10,), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            s = R.sum(r, axis=[1])
            sm = R.nn.softmax(r, axis=1)
            ls = R.nn.log_softmax(r, axis=1)
            R.output(s, sm, ls)
        return (s, sm, ls)


def test_every_legalized_function_is_scheduled_and_bound(gpu):
    funcs = _prim_funcs(_schedule_all(MLPHead))
    assert set(funcs) >= {"matmul", "add", "relu", "sum", "softmax", "log_softmax"}
    for name, f in funcs.items():
        assert bool(f.attrs["tirx.is_scheduled"]), name
        ext = gpu.thread_extents(f)
        assert "blockIdx.x" in ext and "threadIdx.x" in ext, name
        assert gpu.threads_per_block(f) <= 1024, name
    # The matmul got shared-memory tiles and a local accumulator.
    scopes = set(gpu.alloc_scopes(funcs["matmul"]).values())
    assert {"shared", "local"} <= scopes


def test_mlp_head_numerics(gpu):
    funcs = _prim_funcs(_schedule_all(MLPHead))
    x, w, b = gpu.rand(6, 20), gpu.rand(20, 10, seed=1), gpu.rand(10, seed=2)

    def run(name, *arrays):
        simulate_prim_func(lower_for_gpu(funcs[name]), list(arrays))
        return arrays[-1]

    y = run("matmul", x, w, np.zeros((6, 10), "float32"))
    np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-5)
    z = run("add", y, b, np.zeros((6, 10), "float32"))
    np.testing.assert_allclose(z, x @ w + b, rtol=1e-5, atol=1e-5)
    r = run("relu", z, np.zeros((6, 10), "float32"))
    np.testing.assert_allclose(r, np.maximum(z, 0), rtol=1e-6)
    s = run("sum", r, np.zeros((6,), "float32"))
    np.testing.assert_allclose(s, r.sum(axis=1), rtol=1e-5, atol=1e-6)
    sm = run("softmax", r, np.zeros((6, 10), "float32"))
    np.testing.assert_allclose(sm, _softmax(r), rtol=1e-5, atol=1e-6)
    ls = run("log_softmax", r, np.zeros((6, 10), "float32"))
    np.testing.assert_allclose(ls, np.log(_softmax(r)), rtol=1e-5, atol=1e-5)


@I.ir_module
class Conv:
    @R.function
    def main(x: R.Tensor((1, 2, 6, 6), "float32"), w: R.Tensor((3, 2, 3, 3), "float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, padding=(1, 1))
            R.output(y)
        return y


def test_conv2d_falls_back_and_is_correct(gpu):
    legal = relax.transform.LegalizeOps()(Conv)
    conv_name = next(n for n in _prim_funcs(legal) if "conv" in n)
    funcs = _prim_funcs(_schedule_all(Conv))
    conv = funcs[conv_name]
    # Not a matmul, not row reductions: gpu.Fallback bound the spatial loops, and the
    # reduction stays serial in each thread (no cross-thread allreduce).
    lowered = lower_for_gpu(conv)
    assert "tvm_warp_shuffle_down" not in gpu.calls(lowered)
    assert "threadIdx.x" in gpu.thread_extents(conv)
    x, w = gpu.rand(1, 2, 6, 6), gpu.rand(3, 2, 3, 3, seed=3)
    out = np.zeros((1, 3, 6, 6), "float32")
    simulate_prim_func(lowered, [x, w, out])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros_like(out)
    for o in range(3):
        for i in range(6):
            for j in range(6):
                ref[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 3] * w[o]).sum()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rule", [dl.gpu.Matmul(), dl.gpu.GeneralReduction()])
def test_specialised_rules_decline_elementwise(gpu, rule):
    func = _prim_funcs(relax.transform.LegalizeOps()(MLPHead))["add"]
    assert rule.apply(func, tvm.target.Target("cuda"), False) is None


@I.ir_module
class ManyOps:
    @R.function
    def main(x: R.Tensor((6, 20), "float32"), w: R.Tensor((10, 20), "float32"),
             lab: R.Tensor((6,), "int64"), img: R.Tensor((2, 3, 8, 8), "float32")):
        with R.dataflow():
            a = R.matmul(x, R.permute_dims(w))
            b = R.mean(a, axis=[0])
            c = R.sum(x, axis=[0])
            d = R.max(x, axis=[1])
            e = R.argmax(x, axis=1)
            f = R.nn.log_softmax(a, axis=-1)
            h = R.variance(x, axis=[1])
            i = R.nn.max_pool2d(img, pool_size=(2, 2), strides=(2, 2))
            j = R.reshape(img, (2, 192))
            k = R.sum(x)
            m = R.nn.layer_norm(x, R.ones((20,), "float32"), R.zeros((20,), "float32"),
                                axes=[-1])
            n = R.take(x, lab, axis=0)
            o = R.mean(img, axis=[2, 3])
            R.output(a, b, c, d, e, f, h, i, j, k, m, n, o)
        return (a, b, c, d, e, f, h, i, j, k, m, n, o)


_LEGAL = relax.transform.LegalizeOps()(ManyOps)
_SCHEDULED = _schedule_all(ManyOps)


@pytest.mark.parametrize("name", sorted(_prim_funcs(_LEGAL)))
def test_scheduled_function_matches_the_cpu_interpreter(gpu, name):
    """Differential check: each legalized function, unscheduled on the CPU interpreter vs
    scheduled + lowered on the SIMT simulator."""
    from tvm.tirx.interpreter import run_prim_func

    func, scheduled = _LEGAL[name], _SCHEDULED[name]
    assert gpu.thread_extents(scheduled), name
    rng = np.random.default_rng(len(name))
    args = []
    for p in func.params:
        buf = func.buffer_map[p]
        shape = [int(s) for s in buf.shape]
        if "int" in buf.dtype:
            args.append(rng.integers(0, 6, shape).astype(buf.dtype))
        else:
            args.append(rng.uniform(-1, 1, shape).astype(buf.dtype))
    ref = [a.copy() for a in args]
    got = [a.copy() for a in args]
    run_prim_func(func, ref)
    simulate_prim_func(lower_for_gpu(scheduled), got)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


@I.ir_module
class DynamicBatch:
    @R.function
    def main(x: R.Tensor(("n", 20), "float32"), w: R.Tensor((20, 10), "float32")):
        with R.dataflow():
            a = R.matmul(x, w)
            b = R.nn.relu(a)
            f = R.nn.log_softmax(b, axis=-1)
            c = R.sum(f, axis=[0])
            R.output(c)
        return c


@pytest.mark.parametrize("name", ["matmul", "relu", "log_softmax", "sum"])
def test_symbolic_batch(gpu, name):
    from tvm.tirx.interpreter import run_prim_func

    func = _prim_funcs(relax.transform.LegalizeOps()(DynamicBatch))[name]
    scheduled = _prim_funcs(_schedule_all(DynamicBatch))[name]
    rng = np.random.default_rng(1)
    args = []
    for p in func.params:
        buf = func.buffer_map[p]
        shape = [int(s) if isinstance(s, tvm.tirx.IntImm) else 7 for s in buf.shape]
        args.append(rng.uniform(-1, 1, shape).astype(buf.dtype))
    ref = [a.copy() for a in args]
    got = [a.copy() for a in args]
    run_prim_func(func, ref)
    simulate_prim_func(lower_for_gpu(scheduled), got)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


@I.ir_module
class FusedMLP:
    @R.function
    def main(x: R.Tensor((6, 20), "float32"), w: R.Tensor((20, 10), "float32"),
             b: R.Tensor((10,), "float32"), w2: R.Tensor((10, 4), "float32")):
        with R.dataflow():
            a = R.matmul(x, w)
            c = R.add(a, b)
            d = R.nn.relu(c)
            e = R.matmul(d, w2)
            f = R.nn.log_softmax(e, axis=-1)
            g = R.mean(f)
            R.output(g)
        return g


def test_fused_functions_of_the_relax_pipeline(gpu):
    """After FuseOps/FuseTIR (what the build runs): matmul+add+relu is one function, which
    gpu.Matmul schedules with the epilogue in its write-back."""
    from tvm.tirx.interpreter import run_prim_func

    mod = relax.transform.LegalizeOps()(FusedMLP)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    mod = relax.transform.FuseTIR()(relax.transform.FuseOps()(mod))
    funcs = _prim_funcs(mod)
    assert "fused_matmul_add_relu" in funcs
    with tvm.target.Target("cuda"):
        scheduled = _prim_funcs(dl.ApplyDefaultSchedule(*RULES)(mod))
    assert {"shared", "local"} <= set(gpu.alloc_scopes(scheduled["fused_matmul_add_relu"])
                                      .values())
    rng = np.random.default_rng(7)
    for name, func in funcs.items():
        args = [rng.uniform(-1, 1, [int(s) for s in func.buffer_map[p].shape])
                .astype(func.buffer_map[p].dtype) for p in func.params]
        ref = [a.copy() for a in args]
        got = [a.copy() for a in args]
        run_prim_func(func, ref)
        simulate_prim_func(lower_for_gpu(scheduled[name]), got)
        for r, g in zip(ref, got):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5, err_msg=name)
