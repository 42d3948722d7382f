"""SBlocks: public names, region inference, and interpreter semantics (init, predicate,
alloc_buffers, match_buffers)."""

import numpy as np
import pytest

from tvm import s_tir, tirx
from tvm.ffi.structural import structural_equal
from tvm.ir import Range
from tvm.tirx import analysis
from tvm.tirx.interpreter import evaluate_expr, run_prim_func

_RNG = np.random.default_rng(0)


def _rand(*shape):
    """Uniform [0, 1) samples from a seeded generator (deterministic tests)."""
    return _RNG.random(shape)

I32, F32 = "int32", "float32"


def _r(lo, ext):
    def c(v):
        return tirx.IntImm(I32, v) if isinstance(v, int) else v

    return Range.from_min_extent(c(lo), c(ext))


def _regions(regions):
    """``[(buffer name, [(min, extent), ...]), ...]`` with ints where constant."""
    out = []
    for region in regions:
        dims = []
        for r in region.region:
            lo = r.min.value if isinstance(r.min, tirx.IntImm) else r.min
            ext = r.extent.value if isinstance(r.extent, tirx.IntImm) else r.extent
            dims.append((lo, ext))
        out.append((region.buffer.name, dims))
    return out


def test_public_names_and_type_keys():
    assert s_tir.SBlock is tirx.SBlock and s_tir.SBlockRealize is tirx.SBlockRealize
    assert s_tir.MatchBufferRegion.type_key == "s_tir.MatchBufferRegion"
    assert tirx.SBlock.type_key == "s_tir.SBlock"


def test_point_regions_reads_in_first_access_order():
    A = tirx.decl_buffer((4, 4), F32, name="A")
    C = tirx.decl_buffer((4,), F32, name="C")
    vi, vk = tirx.Var("vi", I32), tirx.Var("vk", I32)
    body = tirx.BufferStore(C, C[vi] + A[vi, vk], [vi])
    block = tirx.SBlock([tirx.IterVar(_r(0, 4), vi, 0), tirx.IterVar(_r(0, 4), vk, 2)],
                        [], [], "b", body)
    reads, writes = s_tir.infer_sblock_regions(block)
    assert _regions(reads) == [("C", [(vi, 1)]), ("A", [(vi, 1), (vk, 1)])]
    assert _regions(writes) == [("C", [(vi, 1)])]
    reads2, _ = s_tir.infer_sblock_regions(block, exclude_written_from_reads=True)
    assert _regions(reads2) == [("A", [(vi, 1), (vk, 1)])]
    r, _w, opaque = s_tir.get_sblock_access_region(block, {})
    assert structural_equal(r, reads) and opaque == []


def test_inner_loops_are_relaxed_and_accesses_merged():
    A = tirx.decl_buffer((64,), F32, name="A")
    B = tirx.decl_buffer((16,), F32, name="B")
    vi = tirx.Var("vi", I32)
    j = tirx.Var("j", I32)
    # for j in range(4): B[vi * 4 + j] = A[vi * 16 + j * 2] + A[vi * 16 + j * 2 + 1]
    base = vi * 16 + j * 2
    store = tirx.BufferStore(B, A[base] + A[base + 1], [vi * 4 + j])
    block = tirx.SBlock([tirx.IterVar(_r(0, 4), vi, 0)], [], [], "b",
                        tirx.For(j, 0, 4, tirx.ForKind.SERIAL, store))
    reads, writes = s_tir.infer_sblock_regions(block)
    (rname, [(rlo, rext)]), = _regions(reads)
    (wname, [(wlo, wext)]), = _regions(writes)
    assert (rname, wname) == ("A", "B")
    assert (rext, wext) == (8, 4)
    # The minimum is vi * 16 (and vi * 4), whatever its simplified form.
    assert evaluate_expr(rlo, {vi: 3}) == 48 and evaluate_expr(wlo, {vi: 3}) == 12


def test_allocated_buffers_are_not_regions():
    A = tirx.decl_buffer((4,), F32, name="A")
    T = tirx.decl_buffer((4,), F32, name="T")
    vi = tirx.Var("vi", I32)
    body = tirx.SeqStmt([tirx.BufferStore(T, A[vi], [vi]), tirx.BufferStore(A, T[vi], [vi])])
    block = tirx.SBlock([tirx.IterVar(_r(0, 4), vi, 0)], [], [], "b", body,
                        alloc_buffers=[T])
    reads, writes = s_tir.infer_sblock_regions(block)
    assert [n for n, _ in _regions(reads)] == ["A"]
    assert [n for n, _ in _regions(writes)] == ["A"]


def test_unsupported_index_falls_back_to_full_extent():
    A = tirx.decl_buffer((10,), F32, name="A")
    B = tirx.decl_buffer((1,), F32, name="B")
    j = tirx.Var("j", I32)
    store = tirx.BufferStore(B, A[tirx.truncdiv(j * j, 3)], [0])
    block = tirx.SBlock([], [], [], "b", tirx.For(j, 0, 5, 0, store))
    reads, _ = s_tir.infer_sblock_regions(block)
    assert _regions(reads) == [("A", [(0, 10)])]


def _reduce_func(predicate_limit=None):
    """``B[i] = sum_k A[i, k]`` as a loop nest with an SBlock; optional ``T.where(i < lim)``."""
    A = tirx.decl_buffer((3, 5), F32, name="A")
    B = tirx.decl_buffer((3,), F32, name="B")
    i, k = tirx.Var("i", I32), tirx.Var("k", I32)
    vi, vk = tirx.Var("vi", I32), tirx.Var("vk", I32)
    body = tirx.BufferStore(B, B[vi] + A[vi, vk], [vi])
    init = tirx.BufferStore(B, tirx.const(0.0, F32), [vi])
    ivs = [tirx.IterVar(_r(0, 3), vi, tirx.IterVar.DataPar),
           tirx.IterVar(_r(0, 5), vk, tirx.IterVar.CommReduce)]
    reads, writes = s_tir.infer_sblock_regions(body, exclude_written_from_reads=True)
    block = tirx.SBlock(ivs, reads, writes, "B", body, init=init)
    pred = True if predicate_limit is None else i < predicate_limit
    nest = tirx.For(i, 0, 3, 0, tirx.For(k, 0, 5, 0, tirx.SBlockRealize([i, k], pred, block)))
    root = tirx.SBlock([], [], [], "root", nest)
    return tirx.PrimFunc([A, B], tirx.SBlockRealize([], True, root), attrs={"s_tir": True})


def test_interpreter_runs_init_on_first_reduction_iteration():
    func = _reduce_func()
    assert analysis.verify_well_formed(func)
    a = _rand(3, 5).astype(F32)
    b = np.full(3, 123.0, F32)  # garbage: init must overwrite it
    run_prim_func(func, [a, b])
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-6)


def test_interpreter_block_predicate():
    a = np.ones((3, 5), F32)
    b = np.full(3, -1.0, F32)
    run_prim_func(_reduce_func(predicate_limit=2), [a, b])
    np.testing.assert_array_equal(b, [5.0, 5.0, -1.0])


def test_block_alloc_and_match_buffers():
    A = tirx.decl_buffer((4, 4), F32, name="A")
    B = tirx.decl_buffer((4,), F32, name="B")
    vi = tirx.Var("vi", I32)
    row = tirx.decl_buffer((4,), F32, name="row")
    tmp = tirx.decl_buffer((1,), F32, name="tmp")
    j = tirx.Var("j", I32)
    body = tirx.SeqStmt([
        tirx.BufferStore(tmp, tirx.const(0.0, F32), [0]),
        tirx.For(j, 0, 4, 0, tirx.BufferStore(tmp, tmp[0] + row[j], [0])),
        tirx.BufferStore(B, tmp[0], [vi]),
    ])
    source = tirx.BufferRegion(A, [_r(vi, 1), _r(0, 4)])
    block = tirx.SBlock([tirx.IterVar(_r(0, 4), vi, 0)], [source],
                        [tirx.BufferRegion.from_point(B, [vi])], "rowsum", body,
                        alloc_buffers=[tmp],
                        match_buffers=[s_tir.MatchBufferRegion(row, source)])
    i = tirx.Var("i", I32)
    func = tirx.PrimFunc([A, B], tirx.For(i, 0, 4, 0, tirx.SBlockRealize([i], True, block)))
    assert analysis.verify_well_formed(func)
    a = _rand(4, 4).astype(F32)
    b = np.zeros(4, F32)
    run_prim_func(func, [a, b])
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-6)


def test_sblock_structural_equality_maps_iter_vars():
    assert structural_equal(_reduce_func(), _reduce_func())
    assert not structural_equal(_reduce_func(), _reduce_func(predicate_limit=2))


def test_region_inference_rejects_non_statements():
    with pytest.raises(TypeError, match="SBlock or Stmt"):
        s_tir.infer_sblock_regions(3)


def test_vector_index_regions():
    A = tirx.decl_buffer((16,), F32, name="A")
    vi = tirx.Var("vi", I32)
    ramp = tirx.Ramp(vi * 4, tirx.IntImm(I32, 1), 4)
    zeros = tirx.Broadcast(tirx.const(0.0, F32), 4)
    block = tirx.SBlock([tirx.IterVar(_r(0, 4), vi, 0)], [], [], "b",
                        tirx.BufferStore(A, zeros, [ramp]))
    _, writes = s_tir.infer_sblock_regions(block)
    ((name, [(lo, ext)]),) = _regions(writes)
    assert name == "A" and ext == 4 and evaluate_expr(lo, {vi: 2}) == 8


def test_block_name_is_ignored_by_structural_equality():
    # As TVM: SBlock.name_hint is a hint, not compared or hashed.
    import tvm
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def named_b(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                A[vi] = T.float32(1)

    @T.prim_func(s_tir=True)
    def named_c(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(8, i)
                A[vi] = T.float32(1)

    lhs = named_b.with_attr("global_symbol", "f")
    rhs = named_c.with_attr("global_symbol", "f")
    tvm.ir.assert_structural_equal(lhs, rhs)
    assert tvm.ir.structural_hash(lhs) == tvm.ir.structural_hash(rhs)
    assert 'T.sblock("C")' in rhs.script()


def test_regions_through_a_match_buffer_follow_its_use():
    # Stores through a match buffer write its source region; loads read it (as TVM).
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def through_match(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        B = T.sblock_alloc_buffer((8, 8))
        for i, j in T.grid(8, 8):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B_sub = T.match_buffer(B[vi, vj], [], offset_factor=1)
                B_sub[()] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(8, 8):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                B_sub = T.match_buffer(B[vi, vj], [], offset_factor=1)
                C[vi, vj] = B_sub[()] + T.float32(1)

    text = through_match.script()
    assert "T.reads(A[vi, vj])\n            T.writes(B[vi, vj])" in text
    assert "T.reads(B[vi, vj])\n            T.writes(C[vi, vj])" in text
