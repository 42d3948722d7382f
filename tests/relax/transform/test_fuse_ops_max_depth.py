"""FuseOps' ``relax.FuseOps.max_depth`` (issue 22, defect 5): a long elementwise chain is cut
into groups of at most that many calls (256 by default, as TVM), and still computes the same."""

import numpy as np
import pytest

import tvm
from tvm import relax


def _chain(n):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([4, 4], "float32"))
    half = relax.const(np.float32(0.5))
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for _ in range(n):
                v = bb.emit(relax.op.add(v, half))
            out = bb.emit_output(v)
        bb.emit_func_output(out)
    return bb.get()


def _fused_sizes(mod, config=None):
    seq = tvm.transform.Sequential([
        relax.transform.LegalizeOps(),
        relax.transform.AnnotateTIROpPattern(),
        relax.transform.FuseOps(),
    ])
    with tvm.transform.PassContext(opt_level=3, config=config or {}):
        fused = seq(mod)
    sizes = []  # calls per fused group, one entry per call of a fused function in main
    for binding in fused["main"].body.blocks[0].bindings:
        callee = getattr(binding.value, "op", None)
        func = fused.functions.get(callee) if isinstance(callee, tvm.ir.GlobalVar) else None
        if isinstance(func, relax.Function) and func.attrs and func.attrs.get("Primitive"):
            sizes.append(len(func.body.blocks[0].bindings))
    return sorted(sizes)


def test_groups_hold_at_most_max_depth_calls():
    assert _fused_sizes(_chain(10), {"relax.FuseOps.max_depth": 4}) == [2, 4, 4]
    assert _fused_sizes(_chain(10)) == [10]


def test_the_default_depth_is_256_as_in_tvm():
    assert relax.transform.fuse_ops.DEFAULT_MAX_DEPTH == 256
    assert _fused_sizes(_chain(300)) == [44, 256]


def test_max_depth_one_fuses_nothing_and_zero_is_refused():
    assert _fused_sizes(_chain(5), {"relax.FuseOps.max_depth": 1}) == []
    with pytest.raises(ValueError, match="max_depth must be at least 1, got 0"):
        _fused_sizes(_chain(5), {"relax.FuseOps.max_depth": 0})


def test_a_cut_chain_computes_the_same():
    mod = _chain(12)
    with tvm.transform.PassContext(config={"relax.FuseOps.max_depth": 5}):
        ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(np.zeros((4, 4), "float32"))).numpy()
    np.testing.assert_allclose(got, np.full((4, 4), 6.0, "float32"))
