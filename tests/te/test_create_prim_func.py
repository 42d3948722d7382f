"""te.create_prim_func: structure (vs. a hand-built Expected) and numerics (via the interpreter)."""

import numpy as np
import pytest

from tvm import te, tirx
from tvm.ffi.structural import structural_equal, structural_hash
from tvm.ir import Range
from tvm.tirx import analysis
from tvm.tirx.interpreter import run_prim_func

_RNG = np.random.default_rng(0)


def _rand(*shape):
    """Uniform [0, 1) samples from a seeded generator (deterministic tests)."""
    return _RNG.random(shape)


def _randn(*shape):
    return _RNG.standard_normal(shape)


def _matmul(n=128, m=128, kk=128):
    A = te.placeholder((n, kk), name="A")
    B = te.placeholder((m, kk), name="B")
    k = te.reduce_axis((0, kk), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _expected_matmul():
    """The matmul TVM 0.27 prints, built by hand (T.grid, T.axis.remap("SSR"), T.init)."""
    A = tirx.decl_buffer((128, 128), "float32", name="A")
    B = tirx.decl_buffer((128, 128), "float32", name="B")
    C = tirx.decl_buffer((128, 128), "float32", name="C")
    i, j, k = (tirx.Var(n, "int32") for n in "ijk")
    vi, vj, vk = (tirx.Var("v_" + n, "int32") for n in "ijk")

    r = Range.from_min_extent(tirx.IntImm("int32", 0), tirx.IntImm("int32", 128))
    ivs = [tirx.IterVar(r, vi, tirx.IterVar.DataPar), tirx.IterVar(r, vj, tirx.IterVar.DataPar),
           tirx.IterVar(r, vk, tirx.IterVar.CommReduce)]
    one = tirx.IntImm("int32", 1)
    reads = [tirx.BufferRegion(A, [Range.from_min_extent(vi, one), Range.from_min_extent(vk, one)]),
             tirx.BufferRegion(B, [Range.from_min_extent(vj, one),
                                   Range.from_min_extent(vk, one)])]
    writes = [tirx.BufferRegion(C, [Range.from_min_extent(vi, one),
                                    Range.from_min_extent(vj, one)])]
    init = tirx.BufferStore(C, tirx.FloatImm("float32", 0.0), [vi, vj])
    update = tirx.BufferStore(C, C[vi, vj] + A[vi, vk] * B[vj, vk], [vi, vj])
    block = tirx.SBlock(ivs, reads, writes, "C", update, init=init)
    nest = tirx.SBlockRealize([i, j, k], True, block)
    for var in (k, j, i):
        nest = tirx.For(var, 0, 128, tirx.ForKind.SERIAL, nest)
    root = tirx.SBlock([], [], [], "root", nest)
    attrs = {"global_symbol": "main", "tirx.noalias": True, "s_tir": True}
    return tirx.PrimFunc([A, B, C], tirx.SBlockRealize([], True, root), attrs=attrs)


def test_matmul_structure_matches_tvm():
    func = _matmul()
    assert structural_equal(func, _expected_matmul())
    assert structural_hash(func) == structural_hash(_expected_matmul())
    assert dict(func.attrs.items()) == {"global_symbol": "main", "tirx.noalias": True,
                                        "s_tir": True}
    assert [p.name for p in func.params] == ["A", "B", "C"]
    block = func.body.block.body.body.body.body.block
    assert [iv.var.name for iv in block.iter_vars] == ["v_i", "v_j", "v_k"]
    assert [iv.iter_type for iv in block.iter_vars] == [0, 0, 2]
    assert [r.buffer.name for r in block.reads] == ["A", "B"]
    assert func.body.block.name_hint == "root"
    assert analysis.verify_well_formed(func)


def test_alpha_renamed_functions_are_equal_but_shapes_matter():
    assert structural_equal(_matmul(), _matmul())
    assert not structural_equal(_matmul(), _matmul(n=64))


def test_intermediate_compute_becomes_root_alloc_buffer():
    A = te.placeholder((4, 4), name="A")
    B = te.placeholder((4, 4), name="B")
    D = te.compute((4, 4), lambda i, j: A[i, j] + B[i, j], name="D")
    E = te.compute((4, 4), lambda i, j: te.exp(D[i, j]), name="E")
    func = te.create_prim_func([A, B, E])
    root = func.body.block
    assert [b.name for b in root.alloc_buffers] == ["D"]
    assert [loop.body.body.block.name_hint for loop in root.body.seq] == ["D", "E"]
    block_e = root.body.seq[1].body.body.block
    assert [r.buffer.name for r in block_e.reads] == ["D"]
    assert block_e.init is None


def _run(func, *arrays):
    run_prim_func(func, list(arrays))
    return arrays[-1]


@pytest.mark.parametrize("n", [1, 3, 17])
def test_elementwise_add_numerics(n):
    A = te.placeholder((n, 3), name="A")
    B = te.placeholder((n, 3), name="B")
    C = te.compute((n, 3), lambda i, j: A[i, j] + B[i, j], name="C")
    a, b = _rand(n, 3).astype("float32"), _rand(n, 3).astype("float32")
    out = _run(te.create_prim_func([A, B, C]), a, b, np.zeros((n, 3), "float32"))
    np.testing.assert_allclose(out, a + b, rtol=1e-6)


def test_broadcast_numerics():
    A = te.placeholder((3, 4), name="A")
    B = te.placeholder((4,), name="B")
    C = te.compute((3, 4), lambda i, j: A[i, j] * B[j], name="C")
    a, b = _rand(3, 4).astype("float32"), _rand(4).astype("float32")
    out = _run(te.create_prim_func([A, B, C]), a, b, np.zeros((3, 4), "float32"))
    np.testing.assert_allclose(out, a * b, rtol=1e-6)


@pytest.mark.parametrize("reducer, ref", [(te.sum, np.sum), (te.max, np.max), (te.min, np.min)])
def test_reductions_numerics(reducer, ref):
    A = te.placeholder((5, 17), name="A")
    k = te.reduce_axis((0, 17), name="k")
    B = te.compute((5,), lambda i: reducer(A[i, k], axis=k), name="B")
    a = _randn(5, 17).astype("float32")
    out = _run(te.create_prim_func([A, B]), a, np.zeros(5, "float32"))
    np.testing.assert_allclose(out, ref(a, axis=1), rtol=1e-5, atol=1e-5)


def test_max_reducer_identity_is_lowest_float():
    A = te.placeholder((3,), name="A")
    k = te.reduce_axis((0, 3), name="k")
    B = te.compute((1,), lambda i: te.max(A[k], axis=k), name="B")
    init = te.create_prim_func([A, B]).body.block.body.body.body.block.init
    assert init.value.value == -float(np.finfo("float32").max)


@pytest.mark.parametrize("n, m, kk", [(1, 1, 1), (3, 5, 7), (17, 3, 17)])
def test_matmul_numerics_odd_sizes(n, m, kk):
    func = _matmul(n, m, kk)
    a, b = _rand(n, kk).astype("float32"), _rand(m, kk).astype("float32")
    out = _run(func, a, b, np.full((n, m), 99.0, "float32"))
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-5)


def test_two_stage_pipeline_numerics():
    A = te.placeholder((6, 4), name="A")
    D = te.compute((6, 4), lambda i, j: te.exp(A[i, j]) - 1.0, name="D")
    k = te.reduce_axis((0, 4), name="k")
    E = te.compute((6,), lambda i: te.sum(D[i, k] * 2.0, axis=k), name="E")
    a = _rand(6, 4).astype("float32")
    out = _run(te.create_prim_func([A, E]), a, np.zeros(6, "float32"))
    np.testing.assert_allclose(out, ((np.exp(a) - 1) * 2).sum(1), rtol=1e-5)


def test_symbolic_shape_bound_from_arguments():
    n = te.var("n")
    A = te.placeholder((n, 2), name="A")
    B = te.compute((n, 2), lambda i, j: A[i, j] * 2.0, name="B")
    func = te.create_prim_func([A, B])
    assert analysis.verify_well_formed(func)
    for rows in (1, 3):
        a = _rand(rows, 2).astype("float32")
        out = _run(func, a, np.zeros((rows, 2), "float32"))
        np.testing.assert_allclose(out, a * 2)


def test_reduction_with_condition_and_custom_reducer():
    A = te.placeholder((8,), name="A")
    k = te.reduce_axis((0, 8), name="k")
    prod = te.comm_reducer(lambda x, y: x * y, lambda t: tirx.const(1, t), name="prod")
    B = te.compute((1,), lambda i: prod(A[k], axis=k, where=k < 3), name="B")
    a = np.arange(1, 9).astype("float32")
    out = _run(te.create_prim_func([A, B]), a, np.zeros(1, "float32"))
    assert out[0] == 6.0


def test_integer_compute_with_floordiv():
    A = te.placeholder((7,), dtype="int32", name="A")
    B = te.compute((7,), lambda i: tirx.floordiv(A[i], 2) + tirx.floormod(A[i], 3), name="B")
    a = np.arange(-3, 4).astype("int32")
    out = _run(te.create_prim_func([A, B]), a, np.zeros(7, "int32"))
    np.testing.assert_array_equal(out, a // 2 + a % 3)


def test_placeholder_missing_from_arguments_is_rejected():
    A = te.placeholder((3,), name="A")
    B = te.compute((3,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="placeholder A .*not in the argument list"):
        te.create_prim_func([B])


def test_bad_arguments():
    with pytest.raises(TypeError, match="te.Tensor or tirx.Var"):
        te.create_prim_func([3])
    A = te.placeholder((3,), name="A")
    with pytest.raises(ValueError, match="fcompute takes 2 arguments"):
        te.compute((3,), lambda i, j: A[i])
    with pytest.raises(ValueError, match="indexed with 2"):
        A[1, 2]


def test_partial_indexing_and_call_syntax():
    A = te.placeholder((2, 3), name="A")
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")
    row = A[i]
    assert isinstance(row, te.TensorSlice)
    load = row[j]
    assert isinstance(load, te.ProducerLoad) and load.indices == (i, j)
    assert A(i, j).indices == (i, j)
    B = te.compute((2, 3), lambda i, j: A[i][j] * 2.0, name="B")
    a = _rand(2, 3).astype("float32")
    out = _run(te.create_prim_func([A, B]), a, np.zeros((2, 3), "float32"))
    np.testing.assert_allclose(out, a * 2)


def test_index_dtype_override_int64():
    A = te.placeholder((8, 6), name="A")
    C = te.compute((7, 6), lambda i, j: A[i + 1, j] * tirx.Cast("float32", i), name="C")
    func = te.create_prim_func([A, C], index_dtype_override="int64")
    assert [s.dtype for s in func.buffer_map[func.params[0]].shape] == ["int64", "int64"]
    loop = func.body.block.body
    assert loop.loop_var.dtype == "int64" and loop.extent.dtype == "int64"
    block = loop.body.body.block
    assert [iv.var.dtype for iv in block.iter_vars] == ["int64", "int64"]
    a = _rand(8, 6).astype("float32")
    out = _run(func, a, np.zeros((7, 6), "float32"))
    np.testing.assert_allclose(out, a[1:] * np.arange(7, dtype="float32")[:, None])


def test_multi_axis_reduction_and_offset_axis():
    A = te.placeholder((2, 3, 4), name="A")
    k1, k2 = te.reduce_axis((0, 3), "k1"), te.reduce_axis((1, 4), "k2")
    B = te.compute((2,), lambda i: te.sum(A[i, k1, k2], axis=[k1, k2]), name="B")
    func = te.create_prim_func([A, B])
    loops = [func.body.block.body]
    while isinstance(loops[-1].body, tirx.For):
        loops.append(loops[-1].body)
    assert [(lp.loop_var.name, lp.min.value, lp.extent.value) for lp in loops] == [
        ("i", 0, 2), ("k1", 0, 3), ("k2", 1, 3)]
    block = loops[-1].body.block
    assert [iv.iter_type for iv in block.iter_vars] == [0, 2, 2]
    assert block.iter_vars[2].dom.min.value == 1
    a = _rand(2, 3, 4).astype("float32")
    out = _run(func, a, np.zeros(2, "float32"))
    np.testing.assert_allclose(out, a[:, :, 1:].sum((1, 2)), rtol=1e-5)


def test_scalar_var_argument():
    s = te.var("s", "float32")
    A = te.placeholder((4,), name="A")
    D = te.compute((4,), lambda i: A[i] * s, name="D")
    func = te.create_prim_func([A, D, s])
    assert func.params[2] is s and s not in func.buffer_map
    a = np.arange(4, dtype="float32")
    d = np.zeros(4, "float32")
    run_prim_func(func, [a, d, 0.5])
    np.testing.assert_allclose(d, a * 0.5)


def test_compute_attrs_become_block_annotations_and_tensor_api():
    A = te.placeholder((3,), dtype="int8", name="A")
    B = te.compute((3,), lambda i: A[i], name="B", tag="copy", attrs={"k": 1})
    assert B.op.tag == "copy" and B.dtype == "int8" and B.ndim == 1 and B.name == "B"
    assert B.op.input_tensors == [A]
    block = te.create_prim_func([A, B]).body.block.body.body.block
    assert block.annotations == {"k": 1}


def test_multi_output_compute_shares_loops():
    A = te.placeholder((4,), name="A")
    C, D = te.compute((4,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="C")
    assert (C.name, D.name) == ("C.v0", "C.v1")
    func = te.create_prim_func([A, C, D])
    assert [b.name for b in func.buffer_map.values()] == ["A", "C_v0", "C_v1"]
    loop = func.body.block.body
    assert [r.block.name_hint for r in loop.body.seq] == ["C_v0", "C_v1"]
    assert analysis.verify_well_formed(func)
    a = np.arange(4, dtype="float32")
    c, d = np.zeros(4, "float32"), np.zeros(4, "float32")
    run_prim_func(func, [a, c, d])
    np.testing.assert_allclose(c, a + 1)
    np.testing.assert_allclose(d, a * 2)


def test_reduction_init_value_and_integer_max():
    A = te.placeholder((3, 4), dtype="int32", name="A")
    k = te.reduce_axis((0, 4), name="k")
    B = te.compute((3,), lambda i: te.sum(A[i, k], axis=k, init=100), name="B")
    M = te.compute((3,), lambda i: te.max(A[i, k], axis=k), name="M")
    a = np.arange(-6, 6, dtype="int32").reshape(3, 4)
    b, m = np.zeros(3, "int32"), np.zeros(3, "int32")
    run_prim_func(te.create_prim_func([A, B]), [a, b])
    run_prim_func(te.create_prim_func([A, M]), [a, m])
    np.testing.assert_array_equal(b, a.sum(1) + 100)
    np.testing.assert_array_equal(m, a.max(1))
    init = te.create_prim_func([A, M]).body.block.body.body.body.block.init
    assert init.value.value == -(2**31)


def test_input_tensors_are_the_direct_reads_in_first_read_order():
    # As in TVM: the tensors a compute reads itself, not the inputs of those tensors.
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((4,), lambda i: B[i] + A[i] + B[i], name="C")
    D = te.compute((4,), lambda i: B[i] + 1.0, name="D")
    E = te.compute((4,), lambda i: A[B[i].astype("int32")] + 1.0, name="E")  # read in an index
    assert C.op.input_tensors == [B, A]
    assert D.op.input_tensors == [B]
    assert E.op.input_tensors == [A, B]
    # The lowering still orders producers before consumers across the chain.
    func = te.create_prim_func([A, D])
    assert [b.name for b in func.body.block.alloc_buffers] == ["B"]


def test_block_names_are_unique_as_tvm():
    """Two computes of one name lower to blocks ``T_multiply`` and ``T_multiply_1``."""
    from tvm import topi

    x = te.placeholder((2, 3), name="x")
    out = topi.multiply(topi.multiply(x, x), x)
    func = te.create_prim_func([x, out])
    import re

    names = re.findall(r'T\.sblock\("(\w+)"\)', func.script())
    assert names == ["root", "T_multiply", "T_multiply_1"]
