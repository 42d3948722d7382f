"""Loop metadata the LLVM code generator attaches to keep LLVM's compile time in check."""

import numpy as np

import tvm
from tvm import te, topi
from tvm.backend.llvm import codegen
from tvm.driver.build_module import lower


def _ir(func, name="f"):
    mod = lower(tvm.IRModule({name: func.with_attr("global_symbol", name)}))
    return str(codegen.codegen_module(mod))


def _exp(shape):
    A = te.placeholder(shape, name="A")
    return te.create_prim_func([A, te.compute(shape, lambda i, j: te.exp(A[i, j]), name="B")])


def _define_line(text, name):
    return next(line for line in text.splitlines()
                if line.startswith("define") and f'@"{name}"' in line)


def _attributes(text, name):
    return _define_line(text, name).rsplit(")", 1)[1].split()


def test_small_kernels_are_not_optimized_by_llvm():
    text = _ir(_exp((64, 10)))  # 640 stores <= SMALL_KERNEL_STORES
    assert "optnone" in _attributes(text, "f_compute")
    assert "!llvm.loop" not in text  # no hints: LLVM leaves the function as it is anyway


def test_only_the_loop_body_of_a_parallel_kernel_is_optimized():
    text = _ir(_exp((64, 256)))
    assert "optnone" in _attributes(text, "f_compute")  # stores the closure, launches
    assert "optnone" in _attributes(text, "f_parallel_1_task")  # splits the range, calls
    assert _attributes(text, "f_parallel_1") == ["noinline"]  # the loops
    declared = [line for line in text.splitlines() if line.startswith("declare")]
    assert declared and not any("optnone" in line for line in declared)


def test_large_serial_kernels_are_optimized():
    from tvm.script import tirx as T

    @T.prim_func
    def f(a: T.Buffer((64, 256), "float32"), b: T.Buffer((64, 256), "float32")):
        for i, j in T.grid(64, 256):
            b[i, j] = a[i, j] * T.float32(2)

    mod = lower(tvm.IRModule({"f": f.with_attr("global_symbol", "f")}), default_schedule=False)
    assert "optnone" not in _attributes(str(codegen.codegen_module(mod)), "f_compute")


def test_long_loops_of_large_kernels_are_not_unrolled_but_vectorizable():
    text = _ir(_exp((64, 256)))
    assert '!"llvm.loop.unroll.disable"' in text
    assert "llvm.loop.vectorize.enable" not in text
    # The loop ID refers to itself, as LLVM requires.
    ids = [line for line in text.splitlines() if '!"llvm.loop.unroll.disable"' not in line
           and line.startswith("!") and "= !{" in line]
    assert any(line.split(" = ")[0] in line.split(" = ")[1] for line in ids)


def test_no_hints_when_switched_off(monkeypatch):
    monkeypatch.setattr(codegen, "SMALL_KERNEL_STORES", None)
    monkeypatch.setattr(codegen, "UNROLL_MAX_EXTENT", None)
    assert "!llvm.loop" not in _ir(_exp((64, 10)))


def test_small_kernels_compute_the_reference():
    # argmax: a maxnum reduction, which LLVM's vectorizer once miscompiled for small kernels
    # marked optsize (the 5th of 5 columns was skipped); log_softmax: exp and two reductions.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 5)).astype("float32")
    A = te.placeholder((6, 5), name="A")
    lib = tvm.compile(tvm.IRModule({
        "argmax": te.create_prim_func([A, topi.argmax(A, axis=1)]).with_attr(
            "global_symbol", "argmax"),
        "log_softmax": te.create_prim_func([A, topi.nn.log_softmax(A)]).with_attr(
            "global_symbol", "log_softmax"),
    }))
    idx = np.zeros(6, "int32")
    lib["argmax"](a, idx)
    np.testing.assert_array_equal(idx, a.argmax(axis=1))
    out = np.zeros_like(a)
    lib["log_softmax"](a, out)
    shifted = a - a.max(axis=1, keepdims=True)
    np.testing.assert_allclose(out, shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)),
                               rtol=1e-5, atol=1e-6)


def test_vector_map_nests_are_not_unrolled():
    # relu over 28-float rows: every loop of the nest (4, 8 and 28 iterations) stays rolled
    # (LLVM unrolled the 28 x 8 rows of the cnn step's relu: 60 ms of O3 for 55 lines of IR).
    A = te.placeholder((4, 8, 28, 28), name="A")
    text = _ir(te.create_prim_func([A, topi.nn.relu(A)]))
    assert "<28 x float>" in text
    assert text.count("!llvm.loop") == 3 and '!"llvm.loop.unroll.disable"' in text


def test_accumulating_vector_loops_keep_llvms_unroller():
    # A sum over k adds into its output row in the loop: the k loop (20 iterations) is left
    # to LLVM's unroller.
    B = te.placeholder((16, 20, 28), name="B")
    k = te.reduce_axis((0, 20), "k")
    S = te.compute((16, 28), lambda i, j: te.sum(B[i, k, j], axis=k), name="S")
    text = _ir(te.create_prim_func([B, S]))
    back_edges = [line for line in text.splitlines() if 'label %"for.k", label' in line]
    assert back_edges and not any("!llvm.loop" in line for line in back_edges)


def test_vector_map_nest_computes_the_reference():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 8, 28, 28)).astype("float32")
    A = te.placeholder(a.shape, name="A")
    lib = tvm.compile(te.create_prim_func([A, topi.nn.relu(A)]).with_attr("global_symbol", "relu"))
    out = np.zeros_like(a)
    lib["relu"](a, out)
    np.testing.assert_array_equal(out, np.maximum(a, 0))


def test_index_arithmetic_splats_and_addresses_are_emitted_once_per_block():
    # Four unrolled rows: the row base `i * 64`, its 64-bit offset, the splat of 2.0 and the
    # address of each row (loaded and stored) are each computed once in the loop's block.
    from tvm.script import tirx as T

    @T.prim_func
    def rows(a: T.Buffer((64, 16), "float32"), b: T.Buffer((64, 16), "float32")):
        for i in range(16):
            for r in T.unroll(4):
                for j in T.vectorized(16):
                    b[i * 4 + r, j] = b[i * 4 + r, j] + a[i * 4 + r, j] * T.float32(2)

    text = _ir(rows)
    body = text[text.index("define internal"):]
    body = body[:body.index("\n}")]
    lines = [line.split(" = ", 1)[1] for line in body.splitlines() if " = " in line]
    for op in ("mul i", "sext", "shufflevector", "getelementptr"):
        picked = [line for line in lines if line.startswith(op)]
        assert picked and len(picked) == len(set(picked)), op
    assert sum(line.startswith("getelementptr float, ptr %\"b\"") for line in lines) == 4
    a = np.arange(64 * 16, dtype="float32").reshape(64, 16)
    out = np.ones_like(a)
    tvm.compile(rows.with_attr("global_symbol", "rows"))["rows"](a, out)
    np.testing.assert_array_equal(out, 1 + a * 2)


def test_splats_of_zero_and_minus_zero_stay_apart():
    # 0.0 == -0.0 as dict keys: the reused splats are keyed by the constant's text.
    from tvm.script import tirx as T

    @T.prim_func
    def signs(b: T.Buffer((16,), "float32"), c: T.Buffer((16,), "float32")):
        b[T.Ramp(0, 1, 16)] = T.Broadcast(T.float32(0.0), 16)
        c[T.Ramp(0, 1, 16)] = T.Broadcast(T.float32(-0.0), 16)

    b, c = np.full(16, 7, "float32"), np.full(16, 7, "float32")
    tvm.compile(signs.with_attr("global_symbol", "signs"))["signs"](b, c)
    assert (b == 0).all() and (c == 0).all()
    assert not np.signbit(b).any() and np.signbit(c).all()
