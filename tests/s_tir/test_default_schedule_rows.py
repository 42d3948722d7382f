"""Rule 3 of the default schedule at depth: nests sharing their row loop share their next
loops too when each reads only its own row of the rows (a convolution's channels and rows,
its bias add and its relu); compiled results vs NumPy."""

import numpy as np

import tvm
from tvm import relax
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.script import tirx as T
from tvm.tirx.stmt import For, ForKind, SBlock
from tvm.tirx.stmt_functor import post_order_visit


def _nodes(stmt, kind):
    found = []
    post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, kind) else None)
    return found


def _block_names(stmt):
    return {b.name_hint for b in _nodes(stmt, SBlock)}


def _compile(func):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    return tvm.compile(mod, target="llvm")["main"]


def _loop_sharing(func, names):
    """The innermost loops whose bodies hold every block of ``names`` (outermost first)."""
    # post_order_visit lists inner loops first.
    return [lp for lp in _nodes(func.body, For) if names <= _block_names(lp.body)][::-1]


@T.prim_func(s_tir=True)
def scale_then_shift(a: T.Buffer((4, 8, 16), "float32"), out: T.Buffer((4, 8, 16), "float32"),
                     rev: T.Buffer((4, 8, 16), "float32"), t: T.Buffer((4, 8, 16), "float32")):
    # t is an output: an intermediate computed elementwise would be inlined (rule 0).
    for i, j, k in T.grid(4, 8, 16):
        with T.sblock("t"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            t[vi, vj, vk] = a[vi, vj, vk] * T.float32(2)
    for i, j, k in T.grid(4, 8, 16):
        with T.sblock("plus"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            out[vi, vj, vk] = t[vi, vj, vk] + T.float32(1)
    for i, j, k in T.grid(4, 8, 16):
        with T.sblock("reversed"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            rev[vi, vj, vk] = t[vi, 7 - vj, vk]


def test_rows_of_rows_share_their_loop_unless_another_row_is_read():
    out = schedule_prim_func(scale_then_shift)
    # All three share the outer row loop (each reads row i of t only).
    assert [lp.loop_var.name for lp in _loop_sharing(out, {"t", "plus", "reversed"})] == ["i"]
    # "plus" reads row j of row i: it shares the j loop with "t"; "reversed" reads row 7 - j,
    # written by a later j iteration, so it keeps its own j loop.
    shared = _loop_sharing(out, {"t", "plus"})
    assert [lp.loop_var.name for lp in shared] == ["i", "j"]
    assert "reversed" not in _block_names(shared[-1].body)
    # The innermost loops stay vector loops.
    inner = [lp for lp in _nodes(out.body, For) if not _nodes(lp.body, For)]
    assert inner and all(lp.kind == ForKind.VECTORIZED for lp in inner)
    a = np.random.default_rng(3).standard_normal((4, 8, 16)).astype("float32")
    got, got_rev, got_t = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    _compile(scale_then_shift)(a, got, got_rev, got_t)
    np.testing.assert_allclose(got, a * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(got_rev, a[:, ::-1] * 2, rtol=1e-6)


def test_conv_bias_relu_run_row_by_row():
    # FuseTIR's conv2d + add + relu: inside the parallel batch loop, the convolution, the bias
    # add and the relu share the channel and row loops (one output row at a time).
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 1, 10, 10), "float32"))
    w = relax.Var("w", relax.TensorType((3, 1, 3, 3), "float32"))
    bias = relax.Var("b", relax.TensorType((1, 3, 1, 1), "float32"))
    with bb.function("main", [x, w, bias]):
        with bb.dataflow():
            y = bb.emit(relax.op.add(relax.op.nn.conv2d(x, w, padding=(1, 1)), bias))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    mod = tvm.ir.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
        relax.transform.FuseOps(), relax.transform.FuseTIR(),
    ])(bb.get())
    (fused,) = [f for gv, f in mod.functions.items() if gv.name_hint.startswith("fused_conv2d")]
    out = schedule_prim_func(fused)
    # The bias add is inlined into the relu (rule 0): one nest computes max(conv + b, 0).
    assert "T_add" not in _block_names(out.body)
    shared = _loop_sharing(out, {"conv2d_nchw", "compute"})
    assert len(shared) == 3
    assert shared[0].kind == ForKind.PARALLEL
    assert all(lp.kind == ForKind.SERIAL for lp in shared[1:])
    assert [lp.extent.value for lp in shared] == [2, 3, 10]
    ex = relax.build(mod, target="llvm")
    rng = np.random.default_rng(4)
    xv = rng.standard_normal((2, 1, 10, 10)).astype("float32")
    wv = rng.standard_normal((3, 1, 3, 3)).astype("float32")
    bv = rng.standard_normal((1, 3, 1, 1)).astype("float32")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](xv, wv, bv).numpy()
    pad = np.pad(xv, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((2, 3, 10, 10), "float32")
    for dh in range(3):
        for dw in range(3):
            want += wv[None, :, 0, dh, dw, None, None] * pad[:, :, dh:dh + 10, dw:dw + 10]
    np.testing.assert_allclose(got, np.maximum(want + bv, 0), rtol=1e-4, atol=1e-4)


@T.prim_func(s_tir=True)
def row_expsum(x: T.Buffer((256, 10), "float32"), m: T.Buffer((256,), "float32"),
               s: T.Buffer((256,), "float32")):
    # softmax's sum: m[i] (the row max) is the same for every k, x is streamed along k.
    for i, k in T.grid(256, 10):
        with T.sblock("expsum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                s[vi] = T.float32(0)
            s[vi] = s[vi] + T.exp(x[vi, vk] - m[vi])


def test_a_load_the_reduction_does_not_stream_keeps_the_reduction_innermost():
    # Moving i inside k would vectorize m[i] (loop-invariant along k) at the price of reading
    # x with a stride of 10 floats; the row loop stays outside, the reduction inside.
    out = schedule_prim_func(row_expsum)
    assert [lp.loop_var.name for lp in _loop_sharing(out, {"expsum"})] == ["i", "k"]
    rng = np.random.default_rng(5)
    x = rng.standard_normal((256, 10)).astype("float32")
    m = x.max(axis=1)
    got = np.zeros(256, "float32")
    _compile(row_expsum)(x, m, got)
    np.testing.assert_allclose(got, np.exp(x - m[:, None]).sum(axis=1), rtol=1e-5)
