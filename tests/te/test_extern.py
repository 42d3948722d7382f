"""te.extern: hand-written statements lowered by create_prim_func."""

import numpy as np
import pytest

from tvm import te, tirx
from tvm.tirx import analysis
from tvm.tirx.interpreter import run_prim_func

_RNG = np.random.default_rng(0)


def _rand(*shape):
    """Uniform [0, 1) samples from a seeded generator (deterministic tests)."""
    return _RNG.random(shape)


def _cumsum_ir(ins, outs):
    """``out[0] = in[0]; out[i] = out[i - 1] + in[i]`` (a scan, as topi's cumsum)."""
    data, out = ins[0], outs[0]
    n = data.shape[0]
    i = tirx.Var("i", "int32")
    first = tirx.BufferStore(out, data[0], [0])
    rest = tirx.For(i, 1, n - 1, tirx.ForKind.SERIAL,
                    tirx.BufferStore(out, out[i - 1] + data[i], [i]))
    return tirx.SeqStmt([first, rest])


def test_single_extern_is_the_root_block():
    A = te.placeholder((5,), name="A")
    B = te.extern((5,), [A], _cumsum_ir, name="B")
    func = te.create_prim_func([A, B])
    assert isinstance(func.body, tirx.SBlockRealize) and func.body.block.name_hint == "B"
    assert func.body.block.reads == () and func.body.block.writes == ()
    assert analysis.verify_well_formed(func)
    a = _rand(5).astype("float32")
    b = np.zeros(5, "float32")
    run_prim_func(func, [a, b])
    np.testing.assert_allclose(b, np.cumsum(a), rtol=1e-6)


def test_extern_feeding_a_compute():
    A = te.placeholder((3,), name="A")
    B = te.extern((3,), [A], _cumsum_ir, name="B")
    C = te.compute((3,), lambda i: B[i] * 2.0, name="C")
    func = te.create_prim_func([A, C])
    root = func.body.block
    assert root.name_hint == "root" and [b.name for b in root.alloc_buffers] == ["B"]
    a = np.array([1.0, 2.0, 3.0], "float32")
    c = np.zeros(3, "float32")
    run_prim_func(func, [a, c])
    np.testing.assert_allclose(c, [2.0, 6.0, 12.0])


def test_multi_output_extern():
    A = te.placeholder((4,), dtype="int32", name="A")

    def split(ins, outs):
        i = tirx.Var("i", "int32")
        return tirx.For(i, 0, 4, tirx.ForKind.SERIAL, tirx.SeqStmt([
            tirx.BufferStore(outs[0], tirx.floordiv(ins[0][i], 2), [i]),
            tirx.BufferStore(outs[1], tirx.floormod(ins[0][i], 2), [i]),
        ]))

    Q, R = te.extern([(4,), (4,)], [A], split, name="divmod")
    assert Q.op is R.op and R.value_index == 1 and Q.dtype == "int32"
    func = te.create_prim_func([A, Q, R])
    a = np.array([-3, -1, 4, 7], "int32")
    q, r = np.zeros(4, "int32"), np.zeros(4, "int32")
    run_prim_func(func, [a, q, r])
    np.testing.assert_array_equal(q, a // 2)
    np.testing.assert_array_equal(r, a % 2)


def test_extern_errors():
    A = te.placeholder((2,), name="A")
    with pytest.raises(TypeError, match="fcompute must return a Stmt"):
        te.extern((2,), [A], lambda ins, outs: "nope", name="B")
    with pytest.raises(TypeError, match="inputs must be te.Tensor"):
        te.extern((2,), [3], _cumsum_ir)
    with pytest.raises(ValueError, match="2 outputs but 3 dtypes"):
        te.extern([(2,), (2,)], [A], _cumsum_ir, dtype=["float32"] * 3)


def test_extern_one_shape_in_a_list_gives_a_tensor():
    A = te.placeholder((4,), name="A")
    B = te.extern([(4,)], [A], lambda ins, outs: tirx.Evaluate(0), name="B")
    assert isinstance(B, te.Tensor) and B.op.output_placeholders[0].name == "B"


def _accumulate_func():
    """``C[0] += 2 * A[i]`` and ``A[i] += D[1]``: C and A are updated in place, D only read."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def acc(C: T.Buffer((1,), "float32"), A: T.Buffer((6,), "float32"),
            D: T.Buffer((2,), "float32")):
        for i in range(6):
            with T.sblock():
                C[0] = C[0] + A[i] * T.float32(2)
                A[i] = A[i] + D[1]

    return acc


def test_extern_primfunc_inputs_outputs_and_run():
    func = _accumulate_func()
    by_name = {p.name: p for p in func.params}
    # Read: C, A, D; written: C, A. All written buffers are in place, so the last one (A)
    # is the output and C, D are the inputs.
    ins = [te.placeholder(by_name[n].shape, name=f"in_{n}") for n in ("C", "D")]
    out = te.extern_primfunc(ins, func)
    assert isinstance(out, te.Tensor)
    assert [b.name for b in out.op.input_placeholders] == ["C", "D"]
    assert [b.name for b in out.op.output_placeholders] == ["A"]
    prim = te.create_prim_func([*ins, out])
    # The extern's input buffers are the function's parameters (names kept, as in TVM).
    assert [p.name for p in prim.params] == ["C", "D", "A"]
    c, d = np.zeros(1, "float32"), np.array([0.0, 1.5], "float32")
    a0 = np.arange(6, dtype="float32")
    a = a0.copy()
    run_prim_func(prim, [c, d, a])
    np.testing.assert_allclose(c, [2 * a0.sum()])
    np.testing.assert_allclose(a, a0 + 1.5)


def test_extern_primfunc_errors():
    func = _accumulate_func()
    one = te.placeholder((1,), name="x")
    with pytest.raises(ValueError, match="1 input tensors given, but the PrimFunc has 2 input"):
        te.extern_primfunc([one], func)
    wrong = te.placeholder((3,), name="y")
    with pytest.raises(ValueError, match="input tensor y has shape"):
        te.extern_primfunc([one, wrong], func)
    with pytest.raises(TypeError, match="expects a tirx.PrimFunc"):
        te.extern_primfunc([one], "f")
