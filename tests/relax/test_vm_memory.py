"""The VM's planned buffers share storage between bindings whose lifetimes do not overlap."""

import numpy as np

import tvm
from tvm import relax, topi
from tvm.relax.vm.memory_plan import StoragePlanner, binding_lifetimes


def _f32(*shape):
    return relax.TensorType(list(shape), "float32")


def _chain_module():
    """main(x: (8,)): a = x+x; b = a*a; c = b+x; d = c*c; e = d+a; f = e*x (returned)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", _f32(8))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.add, x, x)
            b = bb.emit_te(topi.multiply, a, a)
            c = bb.emit_te(topi.add, b, x)
            d = bb.emit_te(topi.multiply, c, c)
            e = bb.emit_te(topi.add, d, a)
            f = bb.emit_output(bb.emit_te(topi.multiply, e, x))
        bb.emit_func_output(f)
    return bb.get()


def _reference(v):
    a = v + v
    b = a * a
    c = b + v
    d = c * c
    e = d + a
    return e * v


def test_disjoint_lifetimes_share_storage():
    ex = relax.build(_chain_module(), relax_pipeline=None)
    info = ex.planned_memory()["main"]
    # a lives until e; b dies at c, so c reuses nothing of a's but d can take b's storage...
    assert info["buffers"] == 5
    assert info["bytes"] == 5 * 32
    assert info["storages"] == 3 and info["shared_bytes"] == 3 * 32
    assert "5 planned buffers (160 bytes, 96 bytes in 3 shared storages)" in ex.stats()
    code = ex._codes["main"][0]
    slots = [slot for slot, _, _ in code.planned]
    a_slot, b_slot, c_slot, d_slot, e_slot = slots
    # A kernel's output never shares storage with one of its inputs.
    assert code.storage_of[b_slot] != code.storage_of[a_slot]
    assert code.storage_of[c_slot] != code.storage_of[b_slot]
    assert code.storage_of[e_slot] not in (code.storage_of[d_slot], code.storage_of[a_slot])
    # a is live until e: nothing defined before then reuses its storage.
    assert code.storage_of[a_slot] not in (code.storage_of[s] for s in (b_slot, c_slot, d_slot))


def test_shared_storage_gives_the_right_results_on_every_call():
    vm = relax.VirtualMachine(relax.build(_chain_module(), relax_pipeline=None), tvm.cpu())
    for k in (1.0, 0.5, -2.0):
        v = np.linspace(-1, 1, 8, dtype="float32") * k
        np.testing.assert_allclose(vm["main"](v).numpy(), _reference(v), rtol=1e-5)


def _tile_as_int(t):
    return topi.cast(topi.reshape(topi.concatenate([t, t, t, t]), (16,)), "int32")


def test_storage_is_byte_based_across_shapes_and_dtypes():
    # a: (4, 8) float32 (128 bytes) dies before c: (16,) int32 (64 bytes) is made.
    bb = relax.BlockBuilder()
    x = relax.Var("x", _f32(4, 8))
    with bb.function("main", [x]):
        a = bb.emit_te(topi.add, x, x)
        b = bb.emit_te(topi.sum, a, axis=1)
        c = bb.emit_te(_tile_as_int, b)
        d = bb.emit_te(topi.add, c, c)
        bb.emit_func_output(relax.Tuple([d]))
    ex = relax.build(bb.get(), relax_pipeline=None)
    info = ex.planned_memory()["main"]
    assert info["buffers"] == 3
    assert info["shared_bytes"] < info["bytes"]
    vm = relax.VirtualMachine(ex, tvm.cpu())
    v = np.arange(32, dtype="float32").reshape(4, 8) / 8
    expected = np.tile((2 * v).sum(axis=1), 4).astype("int32") * 2
    np.testing.assert_array_equal(vm["main"](v)[0].numpy(), expected)


def test_lifetimes_number_bindings_in_execution_order():
    func = _chain_module()["main"]
    position, last_use = binding_lifetimes(func)
    bindings = [b.var for block in func.body.blocks for b in block.bindings]
    assert [position[v] for v in bindings] == list(range(len(bindings)))
    a = bindings[0]
    assert last_use[a] == position[bindings[4]]  # e = d + a


def test_if_branches_share_storage_with_dead_values():
    bb = relax.BlockBuilder()
    c = relax.Var("c", relax.TensorType([], "bool"))
    x = relax.Var("x", _f32(4))
    with bb.function("main", [c, x]):
        a = bb.emit_te(topi.add, x, x)
        b = bb.emit_te(topi.multiply, a, x)  # a dies here
        then_val = relax.SeqExpr([], b)
        other = relax.SeqExpr([], x)
        r = bb.emit(relax.If(c, then_val, other))
        bb.emit_func_output(r)
    vm = relax.VirtualMachine(relax.build(bb.get(), relax_pipeline=None), tvm.cpu())
    v = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](np.array(True), v).numpy(), 2 * v * v)
    np.testing.assert_array_equal(vm["main"](np.array(False), v).numpy(), v)


def test_planner_best_fit_and_growth():
    func = _chain_module()["main"]
    planner = StoragePlanner(func)
    a, b, c, d = [bd.var for block in func.body.blocks for bd in block.bindings][:4]
    assert planner.assign(a, 32) == 0
    assert planner.assign(b, 32) == 1
    assert planner.assign(c, 64) == 2  # b is an input of c: a new storage
    assert planner.assign(d, 16) == 1  # b is dead: reused (best fit)
    assert planner.sizes == [32, 32, 64]


def test_shared_storage_survives_export(tmp_path):
    ex = relax.build(_chain_module(), relax_pipeline=None)
    path = str(tmp_path / "chain.so")
    ex.export_library(path)
    loaded = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    assert loaded.module.planned_memory()["main"]["storages"] == 3
    v = np.linspace(-1, 1, 8, dtype="float32")
    np.testing.assert_allclose(loaded["main"](v).numpy(), _reference(v), rtol=1e-5)
