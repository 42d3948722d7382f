"""The VM builtins through the global function table, with runtime objects (TVM's calling
convention): shape heaps as tensors, ``tvm_ffi.Shape``, error kinds; the legacy attention KV
cache against a NumPy model; the tensor cache loaded from ``tvm.contrib.tvmjs`` shards."""

import numpy as np
import pytest
import tvm_ffi

import tvm
import tvm.relax
from tvm.contrib import tvmjs
from tvm.relax.testing.runtime_builtin import MakeShapeCode as MK
from tvm.relax.testing.runtime_builtin import MatchShapeCode as MS
from tvm.support import utils


def _f(name):
    return tvm.get_global_func(f"vm.builtin.{name}")


def test_make_and_match_shape_through_a_tensor_heap():
    heap = tvm.runtime.tensor(np.array([5, 0, 0, 7], "int64"))
    assert _f("make_shape")(heap, 2, MK.USE_IMM, 3, MK.LOAD_SHAPE, 3) == tvm_ffi.Shape([3, 7])
    x = tvm.runtime.tensor(np.zeros((5, 9), "float32"))
    _f("match_shape")(x, heap, 2, MS.ASSERT_EQUAL_TO_LOAD, 0, MS.STORE_TO_HEAP, 2, "")
    assert heap.numpy()[2] == 9  # the heap tensor itself is written
    with pytest.raises(RuntimeError, match="mismatch"):
        _f("match_shape")(x, heap, 2, MS.ASSERT_EQUAL_TO_IMM, 4, MS.NO_OP, 0, "ctx")
    with pytest.raises(RuntimeError, match="shape size mismatch"):
        _f("match_shape")(x, heap, 1, MS.NO_OP, 0, MS.NO_OP, 0, "")


def test_check_builtins_raise_tvms_kinds_with_the_context_first():
    x = tvm.runtime.tensor(np.zeros((2, 3), "int32"))
    _f("check_tensor_info")(x, 2, "int32", "")
    _f("check_tensor_info")(x, -1, "")  # dtype may be left out
    with pytest.raises(ValueError, match=r"where: expect Tensor with ndim 3 but get 2"):
        _f("check_tensor_info")(x, 3, "where:")
    with pytest.raises(ValueError, match="dtype float32"):
        _f("check_tensor_info")(x, 2, "float32", "")
    with pytest.raises(TypeError, match="expect a Tensor"):
        _f("check_tensor_info")([], 2, None, "")
    _f("check_shape_info")(tvm_ffi.Shape([1, 2]), 2, "")
    with pytest.raises(TypeError, match="expect a Shape"):
        _f("check_shape_info")([], 2, "")
    t = tvm.runtime.convert([x, x])
    _f("check_tuple_info")(t, 2, "")
    with pytest.raises(ValueError, match="3 elements"):
        _f("check_tuple_info")(t, 3, "")
    with pytest.raises(TypeError, match="expect a Tuple"):
        _f("check_tuple_info")(x, 2, "")
    _f("check_func_info")(tvm.runtime.convert(lambda v: v), "")
    with pytest.raises(TypeError, match="ctx9 expect a Function"):
        _f("check_func_info")(x, "ctx9")
    assert _f("tuple_getitem")(t, 1) == x


def _window_model(rows, capacity, sinks):
    """The rows a sliding-window cache with attention sinks keeps, oldest first."""
    if len(rows) <= capacity:
        return rows
    return rows[:sinks] + rows[len(rows) - (capacity - sinks):]


@pytest.mark.parametrize("sinks", [0, 2])
def test_kv_cache_window_override_keeps_the_last_rows(sinks):
    create, view = _f("attention_kv_cache_create"), _f("attention_kv_cache_view")
    override = _f("attention_kv_cache_window_override_with_sinks")
    cache = create(tvm.runtime.tensor(np.zeros((8, 2), "int32")), tvm_ffi.Shape([8, 2]), 0)
    rows = []
    for step in range(1, 12):
        new = [[step * 10 + k, step] for k in range(step % 3 + 1)]
        rows += new
        cache = override(cache, tvm.runtime.tensor(np.array(new, "int32")), 8, sinks)
    got = view(cache, tvm_ffi.Shape([min(len(rows), 8), 2])).numpy().tolist()
    expected = _window_model(rows, 8, sinks)
    # the ring holds the same rows in rotated order; the sinks stay in front
    assert sorted(map(tuple, got)) == sorted(map(tuple, expected))
    assert got[:sinks] == expected[:sinks]


def test_kv_cache_append_grows_and_views():
    create, append = _f("attention_kv_cache_create"), _f("attention_kv_cache_append")
    cache = create(tvm.runtime.empty((0, 3), "float32"), tvm_ffi.Shape([1, 3]), 0)
    for i in range(5):
        cache = append(cache, tvm.runtime.tensor(np.full((1, 3), i, "float32")))
    got = _f("attention_kv_cache_view")(cache, tvm_ffi.Shape([5, 3])).numpy()
    np.testing.assert_array_equal(got, np.repeat(np.arange(5, dtype="float32"), 3).reshape(5, 3))
    with pytest.raises(ValueError, match="5 filled"):
        _f("attention_kv_cache_view")(cache, tvm_ffi.Shape([4, 3]))
    _f("attention_kv_cache_array_popn")([cache], 2)
    assert _f("attention_kv_cache_view")(cache, tvm_ffi.Shape([3, 3])).numpy().shape == (3, 3)


@pytest.mark.parametrize("encode_format", ["raw", "f32-to-bf16"])
def test_tensor_cache_round_trip(encode_format):
    params = {"w_0": np.arange(6, dtype="int32").reshape(2, 3),
              "w_1": np.linspace(-3, 3, 7).astype("float32"),
              "w_2": np.array([1e38, -1e38, 0.1], "float32")}
    temp = utils.tempdir()
    tvmjs.dump_tensor_cache(params, temp.path, encode_format=encode_format, shard_cap_mb=0)
    assert len(tvmjs.load_tensor_cache(temp.path)) == 3
    _f("tensor_cache.load")(str(temp.path), tvm.cpu().dlpack_device_type(), 0)
    loaded = _f("param_array_from_cache")("w", -1)
    assert len(loaded) == 3
    for i, value in enumerate(loaded):
        expected = params[f"w_{i}"]
        if encode_format == "f32-to-bf16" and expected.dtype == np.float32:
            # bfloat16 keeps 8 significant bits: relative error below 2**-8
            np.testing.assert_allclose(value.numpy(), expected, rtol=2**-8)
            assert np.all(value.numpy().view("uint32") & 0xFFFF == 0)
        else:
            np.testing.assert_array_equal(value.numpy(), expected)
    _f("tensor_cache.clear")()
    assert _f("param_array_from_cache")("w", -1) == []


def test_bf16_conversion_rounds_to_nearest_even():
    one = np.float32(1.0)
    ulp = np.float32(2.0**-7)  # bfloat16 spacing at 1.0
    values = np.array([one + ulp / 2, one + ulp * 1.5, one + ulp * 0.49], "float32")
    back = tvmjs._convert_bf16_to_f32(tvmjs._convert_f32_to_bf16(values))
    np.testing.assert_array_equal(back, np.array([one, one + 2 * ulp, one], "float32"))


def test_tensor_cache_update_if_exists_keeps_old_entries():
    temp = utils.tempdir()
    tvmjs.dump_tensor_cache({"a": np.ones(2, "int32"), "b": np.zeros(2, "int32")}, temp.path)
    tvmjs.dump_tensor_cache({"b": np.full(2, 5, "int32")}, temp.path, update_if_exists=True)
    got = tvmjs.load_tensor_cache(temp.path)
    np.testing.assert_array_equal(got["a"], [1, 1])
    np.testing.assert_array_equal(got["b"], [5, 5])


def test_alloc_storage_counts_elements_of_its_dtype():
    from tvm.relax.vm.builtins import alloc_storage, alloc_tensor

    storage = alloc_storage((4,), 0, "float32")
    assert storage.nbytes == 16  # 4 float32 elements, as TVM's allocator counts
    view = alloc_tensor(storage, 0, (2, 2), "float32")
    assert view.shape == (2, 2) and view.dtype == np.float32
