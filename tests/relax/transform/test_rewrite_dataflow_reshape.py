"""RewriteDataflowReshape: reshape kernels become R.reshape, which the VM runs as a view."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.analysis import has_reshape_pattern
from tvm.script import relax as R
from tvm.script import tirx as T


@T.prim_func(private=True, s_tir=True)
def _reshape(x: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"),
             y: T.Buffer((T.int64(6), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(6), T.int64(4)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = x[vi // T.int64(3), vi % T.int64(3), vj]


@T.prim_func(private=True, s_tir=True)
def _flatten(x: T.Buffer((T.int64(6), T.int64(4)), "float32"),
             y: T.Buffer((T.int64(24),), "float32")):
    for i in range(T.int64(24)):
        with T.sblock("y"):
            vi = T.axis.spatial(T.int64(24), i)
            y[vi] = x[vi // T.int64(4), vi % T.int64(4)]


@T.prim_func(private=True, s_tir=True)
def _transpose(x: T.Buffer((T.int64(6), T.int64(4)), "float32"),
               y: T.Buffer((T.int64(4), T.int64(6)), "float32")):
    for i, j in T.grid(T.int64(4), T.int64(6)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = x[vj, vi]


@T.prim_func(private=True, s_tir=True)
def _exp(x: T.Buffer((T.int64(6), T.int64(4)), "float32"),
         y: T.Buffer((T.int64(6), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(6), T.int64(4)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = T.exp(x[vi, vj])


@T.prim_func(private=True, s_tir=True)
def _slice(x: T.Buffer((T.int64(6), T.int64(4)), "float32"),
           y: T.Buffer((T.int64(6), T.int64(2)), "float32")):
    for i, j in T.grid(T.int64(6), T.int64(2)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = x[vi, vj + T.int64(2)]


def test_has_reshape_pattern():
    assert has_reshape_pattern(_reshape)
    assert has_reshape_pattern(_flatten)
    # A permutation, a compute, and a copy of fewer elements are not reshapes.
    assert not has_reshape_pattern(_transpose)
    assert not has_reshape_pattern(_exp)
    assert not has_reshape_pattern(_slice)


def test_has_reshape_pattern_of_legalized_reshape_and_split():
    x = relax.Var("x", R.Tensor((4, 6, 8), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.reshape(x, (24, 8)))
            b = bb.emit(relax.op.permute_dims(x, [1, 0, 2]))
            c = bb.emit(relax.op.split(x, 2, axis=2))
            out = bb.emit_output(relax.Tuple([a, b, c]))
        bb.emit_func_output(out)
    mod = relax.transform.LegalizeOps()(bb.get())
    kinds = {gv.name_hint: has_reshape_pattern(f) for gv, f in mod.functions.items()
             if isinstance(f, tvm.tirx.PrimFunc)}
    assert kinds == {"reshape": True, "transpose": False, "split": False}


def _f32(*shape):
    return R.Tensor(shape, "float32")


def _build(body, *params):
    """A module ``main(params)`` whose dataflow block ``body(bb, gvars, *params)`` emits."""
    bb = relax.BlockBuilder()
    gvars = {name: bb.add_func(f, name) for name, f in (
        ("reshape", _reshape), ("exp", _exp), ("transpose", _transpose),
        ("flatten", _flatten), ("exp1", _exp1), ("reshape24", _reshape24),
        ("half", _half))}
    with bb.function("main", list(params)):
        out = body(bb, gvars, *params)
        bb.emit_func_output(out)
    return bb.get()


def test_rewrite_dataflow_reshape_before_after():
    x = relax.Var("x", _f32(2, 3, 4))

    def body(bb, g, x, rewritten):
        with bb.dataflow():
            if rewritten:
                a = bb.emit(relax.op.reshape(x, (6, 4)))
            else:
                a = bb.emit(relax.call_tir(g["reshape"], (x,), _f32(6, 4)))
            b = bb.emit(relax.call_tir(g["exp"], (a,), _f32(6, 4)))
            c = bb.emit(relax.call_tir(g["transpose"], (b,), _f32(4, 6)))
            # A dataflow block's output keeps its own memory: never rewritten (as TVM).
            d = bb.emit_output(relax.call_tir(g["reshape"], (x,), _f32(6, 4)))
            out = bb.emit_output(relax.Tuple([c, d]))
        return out

    before = _build(lambda bb, g, x: body(bb, g, x, False), x)
    expected = _build(lambda bb, g, x: body(bb, g, x, True), x)
    after = relax.transform.RewriteDataflowReshape()(before)
    tvm.ir.assert_structural_equal(after["main"], expected["main"])
    assert "R.reshape(x, R.shape([6, 4]))" in after["main"].script()


def test_bindings_outside_dataflow_blocks_are_kept():
    x = relax.Var("x", _f32(2, 3, 4))

    def body(bb, g, x):
        a = bb.emit(relax.call_tir(g["reshape"], (x,), _f32(6, 4)))
        return bb.emit(relax.call_tir(g["exp"], (a,), _f32(6, 4)))

    before = _build(body, x)
    after = relax.transform.RewriteDataflowReshape()(before)
    tvm.ir.assert_structural_equal(after["main"], before["main"])


@T.prim_func(private=True, s_tir=True)
def _exp1(x: T.Buffer((T.int64(24),), "float32"), y: T.Buffer((T.int64(24),), "float32")):
    for i in range(T.int64(24)):
        with T.sblock("y"):
            vi = T.axis.spatial(T.int64(24), i)
            y[vi] = x[vi] * T.float32(0.5) + T.float32(1)


@T.prim_func(private=True, s_tir=True)
def _reshape24(x: T.Buffer((T.int64(24),), "float32"),
               y: T.Buffer((T.int64(6), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(6), T.int64(4)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = x[vi * T.int64(4) + vj]


@T.prim_func(private=True, s_tir=True)
def _half(x: T.Buffer((T.int64(6), T.int64(4)), "float32"),
          y: T.Buffer((T.int64(6), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(6), T.int64(4)):
        with T.sblock("y"):
            vi, vj = T.axis.remap("SS", [i, j])
            y[vi, vj] = x[vi, vj] * T.float32(0.5) - T.float32(0.25)


def _chain_module():
    """exp, flatten, exp1, reshape, half, half, flatten, exp1: each reshape a kernel."""

    def body(bb, g, x):
        with bb.dataflow():
            a = bb.emit(relax.call_tir(g["exp"], (x,), _f32(6, 4)))
            b = bb.emit(relax.call_tir(g["flatten"], (a,), _f32(24)))
            c = bb.emit(relax.call_tir(g["exp1"], (b,), _f32(24)))
            d = bb.emit(relax.call_tir(g["reshape24"], (c,), _f32(6, 4)))
            e = bb.emit(relax.call_tir(g["half"], (d,), _f32(6, 4)))
            f = bb.emit(relax.call_tir(g["half"], (e,), _f32(6, 4)))
            h = bb.emit(relax.call_tir(g["flatten"], (f,), _f32(24)))
            out = bb.emit_output(relax.call_tir(g["exp1"], (h,), _f32(24)))
        return out

    return _build(body, relax.Var("x", _f32(6, 4)))


#: Only the pass (no fusion, which would merge the small kernels of these tests).
_REWRITE = relax.transform.RewriteDataflowReshape()


def _chain_reference(x):
    c = np.exp(x).reshape(24) * 0.5 + 1
    f = (c.reshape(6, 4) * 0.5 - 0.25) * 0.5 - 0.25
    return f.reshape(24) * 0.5 + 1


def test_vm_runs_reshape_as_a_view_with_planned_storage():
    ex = relax.build(_chain_module(), target="llvm", relax_pipeline=_REWRITE)
    code = ex._codes["main"][0]
    # The three reshape kernels are gone: views of their inputs' planned storages.
    assert sorted(set(code.kernels)) == ["exp", "exp1", "half"]
    assert len(code.kernels) == 5
    assert "_view(" not in code.source
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for scale in (1.0, -0.5, 0.25):
        x = (scale * np.random.default_rng(0).standard_normal((6, 4))).astype("float32")
        np.testing.assert_allclose(vm["main"](x).numpy(), _chain_reference(x), rtol=1e-5)


def test_view_keeps_its_storage_alive():
    """A view of ``a`` used after ``a``'s last direct use: ``a``'s storage is not reused
    before then (``memory_plan`` extends ``a``'s lifetime to the view's last use)."""
    ex = relax.build(_chain_module(), target="llvm", relax_pipeline=_REWRITE)
    code = ex._codes["main"][0]
    slots = [slot for slot, _, _ in code.planned]
    # Planned: a, b (view of a), c, d (view of c), e, f, g (view of f); h is returned.
    assert len(slots) == 7
    a, b, c, d, e, f, g = (code.storage_of[s] for s in slots)
    assert b == a and d == c and g == f
    # c = exp1(b) must not overwrite a (b is a's memory); e = half(d) must not take c's.
    assert c != a and e != c and f != e


def test_view_of_a_parameter_and_a_returned_view():
    def body(bb, g, x):
        with bb.dataflow():
            a = bb.emit(relax.call_tir(g["reshape"], (x,), _f32(6, 4)))
            b = bb.emit(relax.call_tir(g["exp"], (a,), _f32(6, 4)))
            c = bb.emit(relax.call_tir(g["flatten"], (b,), _f32(24)))
            out = bb.emit_output(relax.Tuple([c, b]))
        return out

    ex = relax.build(_build(body, relax.Var("x", _f32(2, 3, 4))), target="llvm",
                     relax_pipeline=_REWRITE)
    code = ex._codes["main"][0]
    assert sorted(code.kernels) == ["exp"]
    # The view of the parameter is made at run time; the returned view's input (b) is a
    # fresh result, never a planned buffer that a later call would overwrite.
    assert code.source.count("_view(") == 2 and not code.planned
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x1 = np.random.default_rng(1).standard_normal((2, 3, 4)).astype("float32")
    c1, b1 = vm["main"](x1)
    c2, _ = vm["main"](x1 + 1)
    np.testing.assert_allclose(c1.numpy(), np.exp(x1).reshape(24), rtol=1e-6)
    np.testing.assert_allclose(b1.numpy(), np.exp(x1).reshape(6, 4), rtol=1e-6)
    np.testing.assert_allclose(c2.numpy(), np.exp(x1 + 1).reshape(24), rtol=1e-6)


def test_default_pipeline_removes_standalone_reshape_kernels():
    """A reshape between two matmuls (not fusable into either) runs as a view."""
    x = relax.Var("x", R.Tensor((4, 6, 8), "float32"))
    w = relax.Var("w", R.Tensor((8, 5), "float32"))
    v = relax.Var("v", R.Tensor((5, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, v]):
        with bb.dataflow():
            a = bb.emit(relax.op.matmul(x, w))
            b = bb.emit(relax.op.reshape(a, (24, 5)))
            c = bb.emit(relax.op.matmul(b, v))
            out = bb.emit_output(c)
        bb.emit_func_output(out)
    mod = relax.get_pipeline("default")(bb.get())
    assert "R.reshape(" in mod["main"].script()
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    rng = np.random.default_rng(2)
    xs, ws, vs = (rng.standard_normal(s).astype("float32") for s in ((4, 6, 8), (8, 5), (5, 3)))
    np.testing.assert_allclose(vm["main"](xs, ws, vs).numpy(),
                               (xs @ ws).reshape(24, 5) @ vs, rtol=1e-5, atol=1e-5)


def test_tuple_results_read_by_field_are_planned():
    """A split's outputs (a kernel's tuple result read only through its fields) are planned
    buffers; each field lives as long as the tuple's last field use."""
    x = relax.Var("x", R.Tensor((4, 6), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            parts = bb.emit(relax.op.split(x, 3, axis=1))
            a = bb.emit(relax.TupleGetItem(parts, 0))
            b = bb.emit(relax.TupleGetItem(parts, 1))
            g = bb.emit(relax.TupleGetItem(parts, 2))
            c = bb.emit(relax.op.exp(a))
            d = bb.emit(relax.op.exp(c))
            e = bb.emit(relax.op.add(d, b))
            out = bb.emit_output(relax.op.multiply(e, g))
        bb.emit_func_output(out)
    mod = relax.transform.LegalizeOps()(bb.get())
    ex = relax.build(mod, target="llvm", relax_pipeline=None)
    code = ex._codes["main"][0]
    slots = {slot: code.storage_of[slot] for slot, _, _ in code.planned}
    # The three fields, the two exps and the add are planned: six slots.
    assert len(slots) == 6
    fields = list(slots.values())[:3]
    # The exps and the add must not reuse a field's storage (fields are read after them).
    assert len(set(fields)) == 3 and not set(fields) & set(list(slots.values())[3:])
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for k in (1.0, -0.5):
        xs = (k * np.arange(24, dtype="float32").reshape(4, 6) / 24).astype("float32")
        p0, p1, p2 = np.split(xs, 3, axis=1)
        np.testing.assert_allclose(vm["main"](xs).numpy(), (np.exp(np.exp(p0)) + p1) * p2,
                                   rtol=1e-5)


def test_device_memory_reshape_view_shares_memory():
    """The device VM's run-time view (checked here on the CPU device API)."""
    from tvm.relax.vm.device_memory import DeviceMemory

    memory = DeviceMemory(tvm.cpu())
    t = memory.empty((2, 3, 4), "float32")
    data = np.from_dlpack(t)
    data[...] = np.arange(24, dtype="float32").reshape(2, 3, 4)
    view = memory.reshape_view(t, (6, 4))
    assert tuple(view.shape) == (6, 4)
    data[1, 2, 3] = -1.0  # written through the original: seen through the view
    np.testing.assert_array_equal(np.from_dlpack(view)[5], [20, 21, 22, -1])
    with pytest.raises(ValueError, match=r"cannot view a tensor of shape \(2, 3, 4\) as"):
        memory.reshape_view(t, (5, 4))
