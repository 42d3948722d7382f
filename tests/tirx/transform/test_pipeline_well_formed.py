"""Every pass of the default TIR pipeline leaves well-formed IR that prints and parses back.

Each corpus function is lowered pass by pass (the ``s_tir.default`` pipeline: SBlock lowering,
then the ``tirx`` passes, then the host finalization). After each pass, every PrimFunc must
pass ``verify_well_formed`` while SBlocks remain and ``verify_tirx_well_formed`` once they are
gone, and ``func.script()`` must parse back (``tvm.script.from_source``) to a structurally
equal function.
"""

import numpy as np
import pytest

import tvm
from tvm import s_tir, te
from tvm.tirx import compilation_pipeline as cp
from tvm.tirx.analysis import verify_tirx_well_formed, verify_well_formed
from tvm.tirx.instrument import WellFormedInstrument, has_sblock, verify_after_pass
from tvm.tirx.interpreter import run_prim_func


# --- corpus: te computes --------------------------------------------------------------------
def _elementwise():
    A = te.placeholder((4, 8), "float32", name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    return te.create_prim_func([A, B])


def _broadcast():
    A = te.placeholder((4, 8), "float32", name="A")
    b = te.placeholder((8,), "float32", name="b")
    C = te.compute((4, 8), lambda i, j: A[i, j] + b[j], name="C")
    return te.create_prim_func([A, b, C])


def _reduction():
    A = te.placeholder((6, 5), "float32", name="A")
    k = te.reduce_axis((0, 5), name="k")
    B = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


def _matmul(n=8, m=6, kk=4):
    A = te.placeholder((n, kk), "float32", name="A")
    B = te.placeholder((kk, m), "float32", name="B")
    k = te.reduce_axis((0, kk), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _softmax_rows():
    A = te.placeholder((3, 7), "float32", name="A")
    k1 = te.reduce_axis((0, 7), name="k1")
    mx = te.compute((3,), lambda i: te.max(A[i, k1], axis=k1), name="mx")
    E = te.compute((3, 7), lambda i, j: te.exp(A[i, j] - mx[i]), name="E")
    k2 = te.reduce_axis((0, 7), name="k2")
    S = te.compute((3,), lambda i: te.sum(E[i, k2], axis=k2), name="S")
    out = te.compute((3, 7), lambda i, j: E[i, j] / S[i], name="out")
    return te.create_prim_func([A, out])


def _two_stage():
    A = te.placeholder((5, 6), "float32", name="A")
    B = te.compute((5, 6), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((5, 6), lambda i, j: B[i, j] * 3.0, name="C")
    return te.create_prim_func([A, C])


def _symbolic_elementwise():
    n = te.var("n")
    A = te.placeholder((n, 4), "float32", name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] - 1.0, name="B")
    return te.create_prim_func([A, B])


def _symbolic_reduction():
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), "float32", name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


# --- corpus: scheduled functions --------------------------------------------------------------
def _split_reorder():
    sch = s_tir.Schedule(_matmul())
    i, j, _ = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, factors=[None, 4])
    sch.reorder(io, j, ii)
    return sch.mod["main"]


def _split_non_divisible():
    sch = s_tir.Schedule(_elementwise())
    _, j = sch.get_loops(sch.get_sblock("B"))
    sch.split(j, factors=[None, 3])  # 8 = 3 * 3 - 1: a predicate guards the tail
    return sch.mod["main"]


def _parallel_vectorize():
    sch = s_tir.Schedule(_elementwise())
    i, j = sch.get_loops(sch.get_sblock("B"))
    sch.parallel(i)
    sch.vectorize(j)
    return sch.mod["main"]


def _compute_at():
    sch = s_tir.Schedule(_two_stage())
    i, _ = sch.get_loops(sch.get_sblock("C"))
    sch.compute_at(sch.get_sblock("B"), i)
    return sch.mod["main"]


def _cache_write():
    sch = s_tir.Schedule(_matmul())
    sch.cache_write(sch.get_sblock("C"), 0, "local")
    return sch.mod["main"]


def _rfactor():
    sch = s_tir.Schedule(_reduction())
    _, k = sch.get_loops(sch.get_sblock("B"))
    _, ki = sch.split(k, factors=[None, 2])
    sch.rfactor(ki, 0)
    return sch.mod["main"]


def _symbolic_split_parallel():
    sch = s_tir.Schedule(_symbolic_elementwise())
    i, j = sch.get_loops(sch.get_sblock("B"))
    sch.split(j, factors=[None, 3])  # 4 = 2 * 3 - 2: a predicate guards the tail
    sch.parallel(i)  # over the symbolic extent n
    return sch.mod["main"]


def _unrolled():
    sch = s_tir.Schedule(_two_stage())
    _, j = sch.get_loops(sch.get_sblock("C"))
    sch.unroll(j)
    return sch.mod["main"]


CORPUS = {
    "elementwise": _elementwise,
    "broadcast": _broadcast,
    "reduction": _reduction,
    "matmul": _matmul,
    "softmax_rows": _softmax_rows,
    "two_stage": _two_stage,
    "symbolic_elementwise": _symbolic_elementwise,
    "symbolic_reduction": _symbolic_reduction,
    "split_reorder": _split_reorder,
    "split_non_divisible": _split_non_divisible,
    "parallel_vectorize": _parallel_vectorize,
    "compute_at": _compute_at,
    "cache_write": _cache_write,
    "rfactor": _rfactor,
    "symbolic_split_parallel": _symbolic_split_parallel,
    "unrolled": _unrolled,
}


# --- the pass-by-pass driver ------------------------------------------------------------------
def _pipeline_passes():
    """The default pipeline's passes, flattened, then the host finalization passes."""
    passes = list(cp.get_tir_pipeline("default")(None).passes)
    passes += list(cp.finalize_host_passes(None).passes)
    return passes


def _check_round_trip(func, where):
    text = func.script()
    back = tvm.script.from_source(text)
    if isinstance(back, tvm.IRModule):
        (back,) = back.functions.values()
    try:
        tvm.ir.assert_structural_equal(back, func, map_free_vars=True)
    except ValueError as err:
        raise AssertionError(f"{where}: round trip differs\n{text}\n{err}") from None


def _lower_checking_each_pass(func, round_trip_exempt=()):
    """Run the pipeline pass by pass; return the names of the passes run and the result.

    ``round_trip_exempt`` names passes after which only well-formedness is checked.
    """
    mod = tvm.IRModule({"main": func})
    verify_well_formed(mod)
    names = []
    for p in _pipeline_passes():
        mod = p(mod)
        names.append(p.info.name)
        for gvar, f in mod.functions.items():
            where = f"after {p.info.name}, function {gvar.name_hint}"
            if has_sblock(f):
                assert verify_well_formed(f), where
            else:
                assert verify_tirx_well_formed(f), where
            if p.info.name not in round_trip_exempt:
                _check_round_trip(f, where)
    return names, mod


# UnrollLoop substitutes the loop variable by constants without simplifying, leaving
# ``B[i * 6 + 0]``; the printer shows it faithfully but the parser constant-folds ``x + 0`` to
# ``x`` while building the expression (Apache TVM 0.27's parser does the same), so that one
# step cannot round-trip structurally. The next StmtSimplify removes the ``+ 0``.
_UNROLL_FOLD = "parser folds `i * 6 + 0` to `i * 6` after UnrollLoop (as TVM 0.27 does)"
_CASES = [
    pytest.param("unrolled", marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=_UNROLL_FOLD)
    )
    if name == "unrolled" else name
    for name in sorted(CORPUS)
]


@pytest.mark.parametrize("name", _CASES)
def test_every_pass_leaves_well_formed_ir_that_round_trips(name):
    names, mod = _lower_checking_each_pass(CORPUS[name]())
    assert names[:3] == [
        "s_tir.LowerInitBlock",
        "s_tir.ConvertBlocksToOpaque",
        "s_tir.LowerOpaqueBlock",
    ]
    assert "tirx.FlattenBuffer" in names and names[-1] == "tirx.LowerIntrin"
    assert not has_sblock(mod["main"])


def test_unrolled_is_well_formed_after_every_pass_and_round_trips_after_all_but_unroll():
    names, mod = _lower_checking_each_pass(_unrolled(), round_trip_exempt={"tirx.UnrollLoop"})
    assert "tirx.UnrollLoop" in names
    assert "+ 0]" not in mod["main"].script()  # the following StmtSimplify cleaned it


def _thread_bound():
    sch = s_tir.Schedule(_elementwise())
    i, j = sch.get_loops(sch.get_sblock("B"))
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    return sch.mod["main"]


def test_thread_bound_function_is_well_formed_until_split_host_device_refuses_it():
    # Device code generation does not exist here: SplitHostDevice says so; every pass before
    # it leaves well-formed IR that round-trips (the thread-bound loops stay as they are).
    mod = tvm.IRModule({"main": _thread_bound()})
    for p in _pipeline_passes():
        if p.info.name == "tirx.SplitHostDevice":
            with pytest.raises(ValueError, match="thread-bound loops; device code generation"):
                p(mod)
            break
        mod = p(mod)
        f = mod["main"]
        if has_sblock(f):
            assert verify_well_formed(f)
        else:
            assert verify_tirx_well_formed(f)
        _check_round_trip(f, f"after {p.info.name}")
    else:
        pytest.fail("the pipeline has no SplitHostDevice")
    assert 'T.thread_binding(8, thread="threadIdx.x")' in mod["main"].script()


# --- numbers: each pass keeps what the function computes --------------------------------------
def _random_args(func, seed=0):
    """One float32 array per buffer parameter; symbolic dimensions are given the size 5."""
    rng = np.random.default_rng(seed)
    args = []
    for buf in func.buffer_map.values():
        shape = tuple(int(d.value) if hasattr(d, "value") else 5 for d in buf.shape)
        args.append(rng.standard_normal(shape).astype("float32"))
    return args


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_pass_keeps_the_numbers(name):
    func = CORPUS[name]()
    inputs = _random_args(func)
    expected = [a.copy() for a in inputs]
    run_prim_func(func, expected)  # the interpreter runs SBlock functions too
    mod = tvm.IRModule({"main": func})
    for p in _pipeline_passes():
        if p.info.name == "tirx.MakePackedAPI":
            break  # the packed calling convention takes other arguments
        mod = p(mod)
        got = [a.copy() for a in inputs]
        run_prim_func(mod["main"], got)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=p.info.name)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_llvm_build_is_well_formed_after_every_pass_and_computes_the_reference(name):
    # tvm.compile first applies the default CPU schedule (which decomposes reductions) and
    # then the pipeline; the instrument checks every PrimFunc after each pass on the way.
    func = CORPUS[name]()
    inputs = _random_args(func, seed=1)
    expected = [a.copy() for a in inputs]
    run_prim_func(func, expected)
    checker = WellFormedInstrument()
    with tvm.transform.PassContext(instruments=[checker]):
        lib = tvm.compile(func, target="llvm")
    assert "tirx.FlattenBuffer" in checker.checked and "tirx.LowerIntrin" in checker.checked
    got = [a.copy() for a in inputs]
    lib["main"](*got)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_reference_numbers_match_numpy():
    # The interpreter's result on the unlowered functions, which the test above uses as its
    # reference, is itself checked against NumPy for two of the corpus functions.
    a, b, c = _random_args(_matmul())
    run_prim_func(_matmul(), [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    x, out = _random_args(_softmax_rows())
    run_prim_func(_softmax_rows(), [x, out])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


# --- the two fixed bugs, pinned ---------------------------------------------------------------
def test_convert_blocks_to_opaque_rewrites_reads_and_writes():
    mod = tvm.IRModule({"main": _reduction()})
    mod = s_tir.transform.LowerInitBlock()(mod)
    mod = s_tir.transform.ConvertBlocksToOpaque()(mod)
    text = mod["main"].script()
    # The regions now use the loop variables; the block iterators are gone.
    assert "T.reads(A[i, k])" in text and "T.writes(B[i])" in text
    assert "v_i" not in text and "v_k" not in text
    assert verify_well_formed(mod)


_MATCH_BUFFER_SRC = """
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i in range(4):
        with T.sblock("row"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi, 0:8])
            T.writes(B[vi, 0:8])
            Ar = T.match_buffer(A[vi, 0:8], (8,))
            Br = T.match_buffer(B[vi, 0:8], (8,))
            for j in range(8):
                Br[j] = Ar[j] * T.float32(2.0)
"""


def test_convert_blocks_to_opaque_rewrites_match_buffer_sources():
    mod = tvm.IRModule({"main": tvm.script.from_source(_MATCH_BUFFER_SRC)})
    out = s_tir.transform.ConvertBlocksToOpaque()(mod)
    text = out["main"].script()
    assert "Ar = T.match_buffer(A[i, 0:8], (8,))" in text and "vi" not in text
    assert verify_well_formed(out)
    _check_round_trip(out["main"], "after ConvertBlocksToOpaque")
    # The next step turns the match buffers' loads and stores into accesses of their sources.
    lowered = s_tir.transform.LowerOpaqueBlock()(out)["main"].script()
    assert "B[i, j] = A[i, j] * T.float32(2.0)" in lowered and "match_buffer" not in lowered


def test_flatten_buffer_declares_the_flat_parameter_views():
    mod = tvm.IRModule({"main": _elementwise()})
    passes = list(_pipeline_passes())
    upto = [p.info.name for p in passes].index("tirx.FlattenBuffer") + 1
    mod = tvm.transform.Sequential(passes[:upto])(mod)
    text = mod["main"].script()
    assert "A_1 = A.view(32)" in text and "B_1 = B.view(32)" in text
    assert "B_1[i * 8 + j] = A_1[i * 8 + j] * T.float32(2.0) + T.float32(1.0)" in text
    assert verify_tirx_well_formed(mod)
    # The parameters keep their N-D buffers (the packed API checks them).
    assert [tuple(int(d) for d in b.shape) for b in mod["main"].buffer_map.values()] == [
        (4, 8),
        (4, 8),
    ]


def test_opaque_block_may_use_enclosing_loop_vars_but_not_a_block_with_iterators():
    from tvm.tirx.stmt_functor import StmtExprMutator, substitute

    mod = tvm.IRModule({"main": _elementwise()})
    assert verify_well_formed(mod)
    assert verify_well_formed(s_tir.transform.ConvertBlocksToOpaque()(mod))

    class UseLoopVarsInBody(StmtExprMutator):
        # Keep the block's iterators but let its body read the loop variables directly.
        def visit_sblock_realize_(self, op):
            op = super().visit_sblock_realize_(op)
            block = op.block
            vmap = {iv.var: v for iv, v in zip(block.iter_vars, op.iter_values)}
            return op.replace(block=block.replace(body=substitute(block.body, vmap)))

    bad = mod["main"].with_body(UseLoopVarsInBody()(mod["main"].body))
    with pytest.raises(ValueError, match='loop variable i inside block "B"'):
        verify_well_formed(bad)


# --- the instrument ---------------------------------------------------------------------------
def test_instrument_checks_each_pass_of_the_pipeline():
    checker = WellFormedInstrument()
    mod = tvm.IRModule({"main": _matmul()})
    with tvm.transform.PassContext(instruments=[checker]):
        cp.get_tir_pipeline("default")(None)(mod)
    inner = [p.info.name for p in cp.get_tir_pipeline("default")(None).passes]
    # Every inner pass, then the Sequential itself.
    assert checker.checked == inner + ["s_tir.default"]


def test_instrument_names_the_pass_and_function_that_broke_the_ir():
    from tvm.tirx import Var
    from tvm.tirx.stmt import Evaluate

    func = _elementwise()
    stray = Var("stray", "int32")

    @tvm.tirx.transform.prim_func_pass(opt_level=0, name="BreakIt")
    def break_it(f, m, c):
        return f.with_body(Evaluate(stray + 1))

    checker = WellFormedInstrument()
    with (
        tvm.transform.PassContext(instruments=[checker]),
        pytest.raises(ValueError, match="after pass BreakIt: function main .*stray"),
    ):
        break_it(tvm.IRModule({"main": func}))


def test_verify_after_pass_uses_the_tirx_verifier_once_blocks_are_gone():
    mod = tvm.IRModule({"main": _elementwise()})
    verify_after_pass(mod, "start")  # SBlocks present: the s_tir rules apply
    lowered = cp.get_tir_pipeline("default")(None)(mod)
    verify_after_pass(lowered, "end")
    assert not has_sblock(lowered["main"])
