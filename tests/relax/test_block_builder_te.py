"""BlockBuilder.call_te / emit_te: te functions become call_tir to private PrimFuncs."""

import pytest

import tvm
from tvm import relax, te
from tvm.ir import Op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _scale_add(a, b, scale=1.0):
    return te.compute(a.shape, lambda i, j: a[i, j] * scale + b[j], name="out")


def test_emit_te_builds_call_tir_and_primfunc():
    n = TirVar("n", "int64")
    x = relax.Var("x", T([n, 4], "float32"))
    y = relax.Var("y", T([4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit_te(_scale_add, x, y, scale=2.0)
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    mod = bb.get()
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.op is Op.get("relax.call_tir")
    assert call.args[0].name_hint == "_scale_add"
    assert [a.name_hint for a in call.args[1].fields] == ["x", "y"]
    tvm.ir.assert_structural_equal(lv.ty, T([n, 4], "float32"))
    prim = mod["_scale_add"]
    assert "global_symbol" not in prim.attrs  # private
    # Buffers are named after the Relax variables and the te output.
    assert [prim.buffer_map[p].name for p in prim.params] == ["x", "y", "out"]


def test_structurally_equal_kernels_are_shared():
    x = relax.Var("x", T([2, 4], "float32"))
    y = relax.Var("y", T([4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        a = bb.emit_te(_scale_add, x, y, scale=2.0)
        b = bb.emit_te(_scale_add, a, y, scale=2.0, primfunc_name_hint="other")
        c = bb.emit_te(_scale_add, b, y, scale=3.0)
        bb.emit_func_output(c)
    mod = bb.get()
    names = sorted(g.name_hint for g in mod.get_global_vars())
    assert names == ["_scale_add", "_scale_add1", "main"]
    calls = [bd.value for bd in mod["main"].body.blocks[0].bindings]
    assert calls[0].args[0] is calls[1].args[0]


def test_symbolic_dims_bound_by_buffers_or_passed_as_scalars():
    # As TVM: a var that is a whole dim of an output is bound by the output buffer; a var the
    # kernel only reads (a TIR expression argument) is a scalar parameter after the inputs,
    # passed as a prim value in the argument tuple.
    m = TirVar("m", "int64")
    x = relax.Var("x", T([4], "float32"))

    def tile(a):
        return te.compute((m, 4), lambda i, j: a[j], name="tiled")

    def scaled(a, n):
        return te.compute((4,), lambda i: a[i] * n.astype("float32"), name="sc")

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit(bb.call_te(tile, x))
        bb.emit(bb.call_te(scaled, x, m))
        bb.emit_func_output(out)
    mod = bb.get()
    tile_call, scaled_call = [b.value for b in mod["main"].body.blocks[0].bindings]
    assert len(tile_call.args) == 2 and len(tile_call.args[1].fields) == 1
    tvm.ir.assert_structural_equal(out.ty, T([m, 4], "float32"))
    assert len(scaled_call.args) == 2
    prim_arg = scaled_call.args[1].fields[1]
    assert isinstance(prim_arg, relax.PrimValue) and prim_arg.value is m
    assert [p.dtype for p in mod["scaled"].param_vars] == ["handle", "int64", "handle"]


def test_multiple_outputs_and_errors():
    x = relax.Var("x", T([3], "float32"))

    def two(a):
        return [
            te.compute((3,), lambda i: a[i] + 1.0, name="p"),
            te.compute((3,), lambda i: a[i] * 2.0, name="q"),
        ]

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit_te(two, x)
        bb.emit_func_output(out)
    assert isinstance(out.ty, relax.TupleType) and len(out.ty.fields) == 2

    unknown = relax.Var("u", T(ndim=1, dtype="float32"))
    with pytest.raises(ValueError, match="shape of argument u must be known"):
        relax.BlockBuilder().call_te(lambda a: a, unknown)
    with pytest.raises(TypeError, match="must be a tensor"):
        relax.BlockBuilder().call_te(lambda a: a, relax.Var("s", relax.ShapeType([2])))


def test_add_func_deduplicates_structurally_equal_functions():
    # As observed in Apache TVM 0.27: a second, structurally equal private function is the
    # first one.
    x = relax.Var("x", T([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x], private=True):
        bb.emit_func_output(x)
    with bb.function("g", [x], private=True):
        bb.emit_func_output(x)
    assert [g.name_hint for g in bb.get().get_global_vars()] == ["f"]


def test_prim_func_global_var_has_relax_function_type():
    # As in Apache TVM 0.27: R.Callable((buffers...), R.Tuple, False).
    x = relax.Var("x", T([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit_te(
            lambda t: te.compute(t.shape, lambda i: t[i] * 2.0, name="d"),
            x,
            primfunc_name_hint="dbl",
        )
        bb.emit_func_output(out)
    mod = bb.get()
    ty = mod.get_global_var("dbl").ty
    expected = relax.FuncType([T([3], "float32"), T([3], "float32")], relax.TupleType([]), False)
    tvm.ir.assert_structural_equal(ty, expected)
    relax.analysis.well_formed(mod)


def _double(a):
    return te.compute(a.shape, lambda i, j: a[i, j] * 2.0, name="out")


def test_emitted_primfunc_binds_its_own_symbolic_vars():
    # A PrimFunc written in TVMScript binds its own ``m``; the one emit_te makes does too, so
    # the built module equals the same module parsed from its text.
    from tvm.script import from_source

    m = TirVar("m", "int64")
    x = relax.Var("x", relax.TensorType([m, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit_te(_double, x)
        bb.emit_func_output(out)
    mod = bb.finalize()
    prim = next(f for gv, f in mod.functions.items() if gv.name_hint != "main")
    prim_m = prim.buffer_map[prim.params[0]].shape[0]
    assert prim_m.name == "m" and prim_m is not m
    assert mod["main"].body.blocks[0].bindings[0].value.ty_args[0].shape[0] is m
    tvm.ir.assert_structural_equal(mod, from_source(mod.script()))


def test_prim_valued_argument_becomes_a_scalar_parameter():
    # R.add(x, y) with y: R.Prim("float32") legalizes, as in TVM, to a kernel taking y as a
    # scalar parameter in argument order (x, y, out).
    import numpy as np

    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor([4, 3], "float32"), y: R.Prim("float32")):
            return R.add(x, y)

    after = relax.transform.LegalizeOps()(Before)
    prim = after["add"]
    assert [p.dtype for p in prim.param_vars] == ["handle", "float32", "handle"]
    call = after["main"].body.body if not after["main"].body.blocks else (
        after["main"].body.blocks[0].bindings[0].value)
    assert [a.name_hint for a in call.args[1].fields] == ["x", "y"]
    vm = relax.VirtualMachine(relax.build(Before, "llvm"), tvm.cpu())
    x = np.arange(12, dtype="float32").reshape(4, 3)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x), 2.5).numpy(), x + 2.5)
