"""Producer inlining of long chains (issue 22, defect 5): the summaries that make it linear
inline what they should, and the result computes the same numbers. (The rewrite was checked
statement by statement against the earlier, quadratic implementation when it landed; that
frozen copy is not kept in the tree.)"""

import numpy as np

import tvm
from tvm.s_tir.default_schedule import _flat_stmts, schedule_prim_func
from tvm.s_tir.default_schedule_inline import inline_producers
from tvm.script import from_source
from tvm.tirx.stmt import AllocBuffer


def _stage(k, kind):
    src = "x" if k == 0 else f"t{k - 1}"
    prev2 = "x" if k < 2 else f"t{k - 2}"
    value = {
        "add": f"{src}[vi, vj] + T.float32(0.5)",
        "mul": f"{src}[vi, vj] * T.float32(1.0001)",
        "transpose": f"{src}[vj, vi]",
        "diamond": f"{src}[vi, vj] * {prev2}[vi, vj]",
        "exp": f"T.exp({src}[vi, vj])",
        "broadcast": f"{src}[vi, vj] + {src}[0, vj]",
        "shift": f"{src}[vi, (vj + 1) % 8]",
    }[kind]
    return value


def _chain(kinds):
    """TVMScript of one nest per kind, each reading the previous (``x`` first), the last
    writing ``out``."""
    n = len(kinds)
    lines = ["@T.prim_func(s_tir=True)",
             'def main(x: T.Buffer((8, 8), "float32"), out: T.Buffer((8, 8), "float32")):']
    lines += [f'    t{k} = T.alloc_buffer((8, 8), "float32")' for k in range(n - 1)]
    for k, kind in enumerate(kinds):
        dst = "out" if k == n - 1 else f"t{k}"
        lines += ["    for i, j in T.grid(8, 8):",
                  f'        with T.sblock("s{k}"):',
                  '            vi, vj = T.axis.remap("SS", [i, j])',
                  f"            {dst}[vi, vj] = {_stage(k, kind)}"]
    return from_source("\n".join(lines) + "\n", extra_vars={"T": tvm.script.tirx})


def _inlined_nests(func):
    root = func.body.block
    stmts = _flat_stmts(root.body)
    allocated = list(root.alloc_buffers) + [s.buffer for s in stmts
                                            if isinstance(s, AllocBuffer)]
    got, any_inlined = inline_producers(stmts, allocated)
    assert any_inlined
    return [s for s in got if not isinstance(s, AllocBuffer)]  # the loop nests


def test_long_add_multiply_chain_inlines_as_before():
    kinds = ["add" if k % 2 == 0 else "mul" for k in range(300)]
    got = _inlined_nests(_chain(kinds))
    assert len(got) == 1  # the whole chain in the last nest


def test_mixed_chain_inlines_as_before():
    # Transposes, diamonds (a producer read by two nests), costly exp read once or twice per
    # element, broadcasts and shifted reads: some producers inline, some stay.
    pattern = ["add", "transpose", "diamond", "exp", "broadcast", "mul", "shift", "exp",
               "add", "transpose", "transpose", "diamond", "mul"]
    got = _inlined_nests(_chain(pattern * 5))
    assert 1 < len(got) < len(pattern) * 5


def test_mixed_chain_computes_the_same_numbers():
    pattern = ["add", "transpose", "diamond", "exp", "broadcast", "mul", "shift", "add"]
    kinds = pattern * 2
    func = _chain(kinds)
    x = np.random.default_rng(0).uniform(-0.2, 0.2, (8, 8)).astype("float32")
    want = x
    vals = []
    for kind in kinds:
        prev2 = vals[-2] if len(vals) >= 2 else x
        want = {"add": lambda a: a + np.float32(0.5),
                "mul": lambda a: a * np.float32(1.0001),
                "transpose": lambda a: a.T,
                "diamond": lambda a, b=prev2: a * b,
                "exp": np.exp,
                "broadcast": lambda a: a + a[0:1, :],
                "shift": lambda a: np.roll(a, -1, axis=1)}[kind](want)
        vals.append(want)
    lib = tvm.compile(tvm.IRModule({"main": schedule_prim_func(func)
                                    .with_attr("global_symbol", "main")}), target="llvm")
    out = tvm.runtime.tensor(np.zeros((8, 8), "float32"))
    lib["main"](tvm.runtime.tensor(x), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4)
