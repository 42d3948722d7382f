"""Every ``tvm.s_tir.Schedule`` primitive, applied to a workload of the schedule tests and compiled.

Each case schedules a workload of ``tests/s_tir/schedule/conftest.py`` (odd sizes, so splits
leave predicated tails), all scheduled functions are compiled together in one ``IRModule`` and
each compiled result must equal the interpreter's result for the *unscheduled* function and the
NumPy reference.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tvm
from tvm import s_tir

_SCHEDULE_TESTS = Path(__file__).resolve().parents[2] / "s_tir" / "schedule"


def _load(name):
    # pytest runs with --import-mode=importlib, so test modules are not importable by name.
    spec = importlib.util.spec_from_file_location(f"_sched_cases_{name}", _SCHEDULE_TESTS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WL = _load("conftest.py")
_PAD = _load("test_padding.py")


def _matmul_ref(a, b):
    return a @ b.T


def _pad_ref(a, before=2, after=1):
    return np.pad(a, ((0, 0), (before, after))) * 2


def _stencil_ref(a):
    b = a[np.arange(11) % 9] * 2
    return b[:-2] + b[1:-1] + b[2:]


# workload name -> (builder, input shapes, output shape, NumPy reference)
WORKLOADS = {
    "chain": (lambda: WL.chain(17, 3), [(17, 3)], (17,), WL.chain_ref),
    "elemwise": (lambda: WL.elemwise(17, 3), [(17, 3)], (17, 3), lambda a: a * 2 + 1),
    "matmul": (lambda: WL.matmul(17, 9, 5), [(17, 5), (9, 5)], (17, 9), _matmul_ref),
    "matmul_relu": (lambda: WL.matmul(17, 9, 5, relu=True), [(17, 5), (9, 5)], (17, 9),
                    lambda a, b: np.maximum(a @ b.T, 0)),
    "transpose_chain": (lambda: WL.transpose_chain(3, 17), [(3, 17)], (17, 3),
                        lambda a: a.T * 2 + 1),
    "stencil": (WL.stencil, [(9,)], (9,), _stencil_ref),
    "chain_1x1023": (lambda: WL.chain(1, 1023), [(1, 1023)], (1,), WL.chain_ref),
    "elemwise_1023x1": (lambda: WL.elemwise(1023, 1), [(1023, 1)], (1023, 1),
                        lambda a: a * 2 + 1),
    "pad": (lambda: _PAD._pad(3, 5, before=2, after=1), [(3, 5)], (3, 8), _pad_ref),
}


def _loops(sch, block):
    return sch.get_loops(sch.get_sblock(block))


def _split_reorder_fuse(sch):
    i, j, k = _loops(sch, "C")
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 4])
    sch.reorder(io, jo, k, ii, ji)
    sch.fuse(io, jo)


def _parallel_vectorize_unroll(sch):
    i, j = _loops(sch, "B")
    sch.parallel(i)
    sch.vectorize(j)
    _, k = _loops(sch, "C")
    sch.unroll(k)


def _sampled_split(sch):
    i, j, _ = _loops(sch, "C")
    factors = sch.sample_perfect_tile(i, n=2, max_innermost_factor=4)
    sch.split(i, factors)
    choice = sch.sample_categorical([1, 3], [0.5, 0.5])
    sch.split(j, [None, choice])


def _cache_read_write(sch):
    c = sch.get_sblock("C")
    sch.cache_read(c, 0, "local")
    sch.cache_write(c, 0, "local")


def _compute_at(sch):
    i, _ = _loops(sch, "C")
    sch.compute_at(sch.get_sblock("B"), i)


def _reverse_compute_at(sch):
    i, _, _ = _loops(sch, "C")
    sch.reverse_compute_at(sch.get_sblock("D"), i)


def _decompose_reduction(sch):
    c = sch.get_sblock("C")
    _, _, k = sch.get_loops(c)
    sch.decompose_reduction(c, k)


def _rfactor(sch):
    _, k = _loops(sch, "C")
    _, ki = sch.split(k, [None, 2])
    sch.rfactor(ki, 0)


def _annotate(sch):
    i, j = _loops(sch, "B")
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    sch.annotate(sch.get_sblock("C"), "meta", "s")
    sch.annotate(j, "pragma_x", 1)
    sch.unannotate(j, "pragma_x")


def _merge(sch):
    sch.merge(_loops(sch, "B")[0], _loops(sch, "C")[0])
    sch.merge(_loops(sch, "B")[1], _loops(sch, "C")[1])


def _add_unit_loop(sch):
    sch.add_unit_loop(sch.get_sblock("C"))
    sch.add_unit_loop(_loops(sch, "B")[1])


def _storage_align_set_scope(sch):
    b = sch.get_sblock("B")
    sch.set_scope(b, 0, "global")
    sch.storage_align(b, 0, axis=0, factor=4, offset=1)


def _set_scope_local(sch):
    sch.set_scope(sch.get_sblock("B"), 0, "local")


def _blockize(sch):
    _, j, _ = _loops(sch, "C")
    _, ji = sch.split(j, [None, 3])  # blockize refuses predicated blocks: an exact split
    sch.blockize(ji)


def _decompose_padding(sch):
    sch.decompose_padding("P", sch.get_loops("P")[1])


def _reorder_block_iter_var(sch):
    sch.reorder_block_iter_var(sch.get_sblock("C"), [2, 0, 1])


def _unsafe_hide_buffer_access(sch):
    # Hiding the read of B from C's signature changes no computation.
    sch.unsafe_hide_buffer_access(sch.get_sblock("C"), "read", [1])


def _full_tile(sch):
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, [None, 8])
    jo, ji = sch.split(j, [None, 4])
    sch.reorder(io, jo, k, ii, ji)
    sch.parallel(io)
    sch.vectorize(ji)
    sch.unroll(ii)
    sch.decompose_reduction(c, k)
    sch.reverse_compute_at(sch.get_sblock("D"), jo)


def _bind_vthread(sch):
    i, _ = _loops(sch, "B")
    sch.bind(i, "vthread.x")


def _long_reduction(sch):
    c = sch.get_sblock("C")
    _, k = sch.get_loops(c)
    _, ki = sch.split(k, [None, 16])  # 1023 = 63 * 16 + 15: a predicated tail
    sch.rfactor(ki, 0)


def _long_vectorize(sch):
    fused = sch.fuse(*_loops(sch, "C"))
    outer, inner = sch.split(fused, [None, 8])
    sch.parallel(outer)
    sch.vectorize(inner)
    sch.compute_at(sch.get_sblock("B"), outer)


# case name -> (workload name, schedule function)
SCHEDULES = {
    "split_reorder_fuse": ("matmul", _split_reorder_fuse),
    "parallel_vectorize_unroll": ("chain", _parallel_vectorize_unroll),
    "sample_perfect_tile_categorical": ("matmul", _sampled_split),
    "cache_read_write": ("matmul", _cache_read_write),
    "compute_at": ("transpose_chain", _compute_at),
    "reverse_compute_at": ("matmul_relu", _reverse_compute_at),
    "compute_inline": ("chain", lambda s: s.compute_inline(s.get_sblock("B"))),
    "reverse_compute_inline": ("elemwise", lambda s: s.reverse_compute_inline(
        s.get_sblock("C"))),
    "compute_inline_stencil": ("stencil", lambda s: s.compute_inline(s.get_sblock("B"))),
    "decompose_reduction": ("matmul", _decompose_reduction),
    "rfactor": ("chain", _rfactor),
    "annotate_unannotate": ("chain", _annotate),
    "merge": ("elemwise", _merge),
    "add_unit_loop": ("elemwise", _add_unit_loop),
    "storage_align_set_scope": ("elemwise", _storage_align_set_scope),
    "set_scope_local": ("elemwise", _set_scope_local),
    "blockize": ("matmul", _blockize),
    "decompose_padding": ("pad", _decompose_padding),
    "reorder_block_iter_var": ("matmul", _reorder_block_iter_var),
    "unsafe_hide_buffer_access": ("matmul", _unsafe_hide_buffer_access),
    "full_tile": ("matmul_relu", _full_tile),
    "bind_vthread": ("elemwise", _bind_vthread),
    "rfactor_1023": ("chain_1x1023", _long_reduction),
    "fuse_vectorize_compute_at_1023": ("elemwise_1023x1", _long_vectorize),
    "unscheduled_size_1": ("chain_1x1023", lambda sch: sch.parallel(_loops(sch, "D")[0])),
}


def _inputs(workload, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype("float32") for s in WORKLOADS[workload][1]]


@pytest.fixture(scope="module")
def compiled():
    funcs = {}
    for name, (workload, apply) in SCHEDULES.items():
        sch = s_tir.Schedule(WORKLOADS[workload][0]())
        apply(sch)
        funcs[name] = sch.mod["main"].with_attr("global_symbol", name)
    return tvm.compile(tvm.IRModule(funcs), target="llvm")


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduled_compiled_matches_unscheduled_interpreter(compiled, name):
    workload = SCHEDULES[name][0]
    build, _, out_shape, ref = WORKLOADS[workload]
    inputs = _inputs(workload, sum(map(ord, name)))
    got = np.zeros(out_shape, "float32")
    compiled[name](*inputs, got)
    want = WL.run(build(), inputs, out_shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, ref(*[a.astype("float64") for a in inputs]), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("tag", ["blockIdx.x", "threadIdx.x"])
def test_gpu_thread_binding_is_refused_on_cpu(tag):
    """A CPU build accepts only virtual threads; GPU bindings get a clear error."""
    sch = s_tir.Schedule(WL.elemwise(17, 3))
    sch.bind(_loops(sch, "B")[0], tag)
    with pytest.raises(ValueError, match="GPU thread-bound loops.*not available"):
        tvm.compile(sch.mod, target="llvm")


def test_symbolic_extent_schedule_compiled():
    """parallel / compute_at on a symbolic loop (split / vectorize inside), for n = 1, 3, 17."""
    from tvm import te

    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 4), lambda i, j: B[i, j] + 1.0, name="C")
    func = te.create_prim_func([A, C])
    sch = s_tir.Schedule(func)
    i, j = _loops(sch, "C")
    # split of the symbolic loop itself is refused by this Schedule (constant extents only).
    _, ji = sch.split(j, [None, 2])
    sch.parallel(i)
    sch.vectorize(ji)
    sch.compute_at(sch.get_sblock("B"), i)
    lib = tvm.compile(sch.mod, target="llvm")
    for size in (1, 3, 17):
        a = np.random.default_rng(size).standard_normal((size, 4)).astype("float32")
        got = np.zeros((size, 4), "float32")
        lib["main"](a, got)
        np.testing.assert_allclose(got, WL.run(func, [a], (size, 4)), rtol=1e-6)
        np.testing.assert_allclose(got, a * 2 + 1, rtol=1e-6)


def test_unsafe_set_dtype_compiled_computes_in_the_new_dtype():
    """unsafe_set_dtype changes results (float16 temporary): compare with the scheduled
    function's interpreter result and the float16-rounded NumPy reference."""
    sch = s_tir.Schedule(WL.chain(17, 3))
    sch.unsafe_set_dtype(sch.get_sblock("B"), 0, "float16")
    sch.parallel(_loops(sch, "C")[0])
    lib = tvm.compile(sch.mod, target="llvm")
    a = np.random.default_rng(5).standard_normal((17, 3)).astype("float32")
    got = np.zeros(17, "float32")
    lib["main"](a, got)
    np.testing.assert_allclose(got, WL.run(sch.mod["main"], [a], (17,)), rtol=1e-6, atol=1e-6)
    expected = (a * 2).astype("float16").astype("float32").sum(1) + 1
    np.testing.assert_allclose(got, expected, rtol=1e-3)
