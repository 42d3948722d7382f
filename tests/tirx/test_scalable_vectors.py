"""Scalable vectors: lanes ``k * T.vscale()``, dtypes ``float32xvscalex4``, TVMScript round trip."""

import pytest

import tvm
from tvm import tirx
from tvm.script import tirx as T


@pytest.mark.parametrize("lanes", [4 * tirx.vscale(), tirx.vscale() * 4, -4])
def test_ramp_and_broadcast_normalize_lanes(lanes):
    ramp = tirx.Ramp(0, 1, lanes)
    bcast = tirx.Broadcast(tirx.const(1.5, "float32"), lanes)
    assert ramp.dtype == "int32xvscalex4" and bcast.dtype == "float32xvscalex4"
    for node in (ramp, bcast):
        assert isinstance(node.lanes, tirx.Mul)
        assert node.lanes.a.op.name == "tirx.vscale" and node.lanes.b.value == 4


@pytest.mark.parametrize("lanes", [tirx.vscale(), tirx.vscale() + 4, tirx.vscale() * 2 + 1,
                                   tirx.Var("n", "int32")])
def test_other_lane_expressions_are_rejected(lanes):
    with pytest.raises(ValueError, match="multiple of T.vscale"):
        tirx.Broadcast(0, lanes)
    with pytest.raises(RuntimeError):
        tirx.Ramp(0, 1, lanes)


def test_constant_lanes_are_int32():
    assert tirx.Ramp(0, 1, tirx.IntImm("int64", 8)).lanes.dtype == "int32"
    assert tirx.Broadcast(0, 8).dtype == "int32x8"


def test_arithmetic_broadcasts_scalars_to_scalable_lanes():
    vec = tirx.Ramp(0, 1, 8 * tirx.vscale()) + 3
    assert vec.dtype == "int32xvscalex8"
    assert isinstance(vec.b, tirx.Broadcast) and vec.b.dtype == "int32xvscalex8"
    buf = tirx.decl_buffer((64,), "float32", name="A")
    load = tirx.BufferLoad(buf, [tirx.Ramp(0, 1, 8 * tirx.vscale())])
    assert load.dtype == "float32xvscalex8"
    assert tvm.tirx.vscale().equal(tvm.tirx.vscale()).value == 1  # the same unknown value
    cast = tirx.Broadcast(1, 4 * tirx.vscale()).astype("float32xvscalex4")
    assert isinstance(cast, tirx.Broadcast) and isinstance(cast.value, tirx.FloatImm)


def test_script_round_trip():
    @T.prim_func(private=True, s_tir=True)
    def func(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        A[T.Ramp(0, 1, T.vscale() * 4)] = B[T.Ramp(0, 1, 4 * T.vscale())] + T.Broadcast(
            T.float32(1), T.vscale() * 4
        )

    text = func.script()
    assert "T.Ramp(0, 1, T.vscale() * 4)" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), func)


def test_predicate_masks_are_checked():
    buf = tirx.decl_buffer((64,), "float32", name="A")
    index = tirx.Ramp(0, 1, 4 * tirx.vscale())
    mask = tirx.Broadcast(tirx.const(True, "bool"), 4 * tirx.vscale())
    load = tirx.BufferLoad(buf, [index], mask)
    assert load.predicate is mask and load.dtype == "float32xvscalex4"
    store = tirx.BufferStore(buf, load, [index], mask)
    assert store.predicate is mask
    with pytest.raises(RuntimeError, match="must both be scalable"):
        tirx.BufferLoad(buf, [index], tirx.Broadcast(tirx.const(True, "bool"), 4))
    with pytest.raises(ValueError, match="mask with 8 lanes, but trying to store a value with 4"):
        tirx.BufferStore(buf, load, [index],
                         tirx.Broadcast(tirx.const(True, "bool"), 8 * tirx.vscale()))
    with pytest.raises(ValueError, match="must be boolean values, but got int32"):
        tirx.BufferLoad(buf, [index], tirx.Broadcast(1, 4 * tirx.vscale()))
    fixed = tirx.BufferLoad(buf, [tirx.Ramp(0, 1, 4)], tirx.Broadcast(tirx.IntImm("uint1", 1), 4))
    assert fixed.dtype == "float32x4"
    assert tirx.IntImm("int1", 1).value == 1  # int1 holds 0 or 1
