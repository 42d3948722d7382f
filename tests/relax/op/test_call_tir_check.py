"""relax.call_tir type inference checks the arguments against the called PrimFunc."""

import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def _module(arg_shape, arg_dtype, out_shape):
    @I.ir_module(check_well_formed=False)
    class Module:
        @R.function
        def main(A: R.Tensor(arg_shape, arg_dtype)):
            B = R.call_tir(Module.add_one, A, out_ty=R.Tensor(out_shape, "float16"))
            return B

        @T.prim_func
        def add_one(A: T.Buffer(16, "float16"), B: T.Buffer(16, "float16")):
            for i in range(16):
                B[i] = A[i] + T.float16(1.0)

    return Module


def test_matching_call_is_well_formed():
    assert relax.analysis.check_well_formed(_module([16], "float16", [16]))


@pytest.mark.parametrize(
    "arg_shape, arg_dtype, out_shape, words",
    [
        ([4, 4], "float16", [16], "input 0 has 2 dimensions"),
        ([16], "float32", [16], "input 0 has dtype float32"),
        ([8], "float16", [16], "input 0 has extent 8 at axis 0"),
        ([16], "float16", [4, 4], "output 0 has 2 dimensions"),
    ],
)
def test_mismatches_are_rejected(arg_shape, arg_dtype, out_shape, words):
    mod = _module(arg_shape, arg_dtype, out_shape)
    assert not relax.analysis.check_well_formed(mod)
    value = mod["main"].body.blocks[0].bindings[0].value
    fresh = relax.Call(value.op, value.args, value.attrs, value.ty_args)  # not typed yet
    with pytest.raises(TypeError, match=words):
        relax.BlockBuilder(mod).normalize(fresh)


def test_symbolic_extents_bind_consistently():
    n = tvm.tirx.Var("n", "int64")

    @T.prim_func
    def copy(a: T.handle, b: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        for i in range(m):
            B[i] = A[i]

    mod = tvm.IRModule({"copy": copy})
    gv = mod.get_global_var("copy")
    bb = relax.BlockBuilder(mod)
    x = relax.Var("x", relax.TensorType([n], "float32"))
    ok = relax.call_tir(gv, [x], relax.TensorType([n], "float32"))
    assert bb.normalize(ok).ty.script() == 'R.Tensor((n,), dtype="float32")'
    y = relax.Var("y", relax.TensorType([3], "float32"))
    with pytest.raises(TypeError, match="output 0 has extent 4 at axis 0"):
        bb.normalize(relax.call_tir(gv, [y], relax.TensorType([4], "float32")))
