"""The VM builtins as global functions (``tvm.get_global_func("vm.builtin.make_shape")``).

The generated VM code calls the builtins of :mod:`.builtins` directly on NumPy arrays and
tuples. TVM code also calls them through the global function table with runtime objects
(``tvm.runtime.Tensor`` heaps, ``tvm_ffi.Shape``, ``tvm_ffi.Array`` tuples); the functions here
take those, return runtime objects, and raise TVM's error kinds:

* shape builtins: ``vm.builtin.make_shape``, ``vm.builtin.match_shape`` (a mismatch is a
  RuntimeError), ``vm.builtin.check_{tensor,shape,tuple,func}_info`` (a wrong kind is a
  TypeError, a wrong rank/dtype/size a ValueError; the error context comes first),
  ``vm.builtin.tuple_getitem``;
* the legacy attention KV cache of language-model runtimes: ``vm.builtin.attention_kv_cache_*``
  (create, append, update, view, window_override[_with_sinks], array_popn, array_clear);
* the tensor cache of ``tvm.contrib.tvmjs`` shards: ``vm.builtin.tensor_cache.{load, get,
  update, remove, clear}`` and ``vm.builtin.param_array_from_cache``.

Registered when ``tvm.relax.vm`` is imported (``import tvm.relax`` does).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tvm_ffi

from ...ffi.registry import register_func
from . import builtins as _b

__all__ = ["AttentionKVCacheLegacy"]


def _array(x, what="a Tensor"):
    """A NumPy view of a runtime tensor (or the array itself)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__") and hasattr(x, "shape"):
        try:
            return np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError):
            return x.numpy()
    raise TypeError(f"expected {what}, got {type(x).__name__}")


def _tensor(array, device=None):
    from ...runtime import tensor  # lazy: runtime tensors only when a builtin returns one

    return tensor(np.ascontiguousarray(array), device)


def _context(err) -> str:
    return "" if err is None else str(err)


def _fail(kind, err, detail):
    # TVM writes the error context first, then what went wrong: "<ctx> expect ...".
    raise kind(f"VirtualMachine: {_context(err)} {detail}".replace("  ", " "))


def _shape_tuple(x):
    if isinstance(x, tuple):
        return tuple(int(d) for d in x)
    return None


@register_func("vm.builtin.make_shape", override=True)
def make_shape(heap, ndim, *codes):
    """A ``tvm_ffi.Shape`` of ``ndim`` dims, each an immediate or a heap slot."""
    return tvm_ffi.Shape(_b.make_shape(_array(heap, "a shape heap"), int(ndim), *codes))


@register_func("vm.builtin.match_shape", override=True)
def match_shape(x, heap, ndim, *rest):
    """Match the dims of a tensor or shape against codes, storing new ones into ``heap``."""
    shape = _shape_tuple(x)
    target = shape if shape is not None else tuple(int(d) for d in x.shape)
    expected = 2 * int(ndim) + 1
    if len(rest) != expected:
        raise RuntimeError(
            f"VirtualMachine: {_context(rest[-1] if rest else None)} match_cast shape size "
            f"mismatch: {int(ndim)} dims need {expected} code/value arguments, got {len(rest)}"
        )
    try:
        _b.match_shape(target, _array(heap, "a shape heap"), int(ndim), *rest)
    except ValueError as err:
        raise RuntimeError(str(err)) from None


@register_func("vm.builtin.check_tensor_info", override=True)
def check_tensor_info(x, ndim, *rest):
    """``x`` is a tensor of rank ``ndim`` (-1: any) and, when given, dtype ``dtype``.

    Called as ``(x, ndim, dtype, err)`` or ``(x, ndim, err)``.
    """
    dtype, err = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0] if rest else None)
    if isinstance(x, tuple) or not hasattr(x, "shape") or not hasattr(x, "dtype"):
        _fail(TypeError, err, f"expect a Tensor but get {type(x).__name__}")
    if int(ndim) != -1 and len(x.shape) != int(ndim):
        _fail(ValueError, err, f"expect Tensor with ndim {int(ndim)} but get {len(x.shape)}")
    if dtype is not None and str(dtype) not in ("", "void") and str(x.dtype) != str(dtype):
        _fail(ValueError, err, f"expect Tensor with dtype {dtype} but get {x.dtype}")


@register_func("vm.builtin.check_shape_info", override=True)
def check_shape_info(x, ndim, err=None):
    """``x`` is a shape with ``ndim`` values (-1: any)."""
    shape = _shape_tuple(x)
    if shape is None:
        _fail(TypeError, err, f"expect a Shape but get {type(x).__name__}")
    if int(ndim) != -1 and len(shape) != int(ndim):
        _fail(ValueError, err, f"expect Shape with ndim {int(ndim)} but get {len(shape)}")


def _is_sequence(x) -> bool:
    return isinstance(x, (tuple, list, tvm_ffi.Array)) and not isinstance(x, tvm_ffi.Shape)


@register_func("vm.builtin.check_tuple_info", override=True)
def check_tuple_info(x, size, err=None):
    """``x`` is a tuple (``tvm_ffi.Array``, tuple or list) of ``size`` fields."""
    if not _is_sequence(x):
        _fail(TypeError, err, f"expect a Tuple but get {type(x).__name__}")
    if len(x) != int(size):
        _fail(ValueError, err,
              f"expect a Tuple with {int(size)} elements, but get a Tuple with {len(x)} elements.")


@register_func("vm.builtin.check_func_info", override=True)
def check_func_info(x, err=None):
    """``x`` is a function (a packed function, closure or Python callable)."""
    if not callable(x) or hasattr(x, "shape"):
        _fail(TypeError, err, f"expect a Function but get {type(x).__name__}")


@register_func("vm.builtin.tuple_getitem", override=True)
def tuple_getitem(tup, index):
    """Field ``index`` of a tuple."""
    return tup[int(index)]


class AttentionKVCacheLegacy:
    """The KV cache of ``vm.builtin.attention_kv_cache_*``: rows appended along dim 0.

    ``data`` holds the reserved rows (its dim 0 doubles when an append needs more),
    ``fill_count`` how many are valid, ``window_attention_current_pos`` where a sliding-window
    override writes next.
    """

    def __init__(self, data, fill_count=0, current_pos=0):
        self.data = data
        self.fill_count = int(fill_count)
        self.window_attention_current_pos = int(current_pos)

    def _check(self, value):
        if value.dtype != self.data.dtype:
            raise ValueError(
                f"attention_kv_cache: dtype mismatch ({value.dtype} vs. {self.data.dtype})"
            )
        if value.shape[1:] != self.data.shape[1:]:
            raise ValueError(
                f"attention_kv_cache: row shape mismatch ({value.shape[1:]} vs. "
                f"{self.data.shape[1:]})"
            )

    def _reserve(self, rows):
        reserved = self.data.shape[0]
        while rows > reserved:
            reserved *= 2
        if reserved != self.data.shape[0]:
            grown = np.empty((reserved,) + self.data.shape[1:], self.data.dtype)
            grown[: self.data.shape[0]] = self.data
            self.data = grown

    def append(self, value):
        """Rows of ``value`` after the filled ones."""
        self._check(value)
        self._reserve(self.fill_count + value.shape[0])
        self.data[self.fill_count : self.fill_count + value.shape[0]] = value
        self.fill_count += value.shape[0]

    def update(self, value):
        """Replace the filled rows by ``value`` (as many rows as are filled)."""
        self._check(value)
        if value.shape[0] != self.fill_count:
            raise ValueError(
                f"attention_kv_cache_update: {value.shape[0]} rows given, {self.fill_count} "
                "filled"
            )
        self.data[: value.shape[0]] = value

    def window_override(self, value, max_cache_size, num_sinks=0):
        """Write ``value`` into a ring of ``max_cache_size`` rows whose first ``num_sinks``
        rows (attention sinks) are never overwritten once filled."""
        self._check(value)
        n = value.shape[0]
        if n > max_cache_size - num_sinks:
            raise ValueError(
                f"attention_kv_cache_window_override: {n} rows exceed the window of "
                f"{max_cache_size - num_sinks}"
            )
        if self.fill_count + n <= max_cache_size:
            self._reserve(self.fill_count + n)
        pos = self.window_attention_current_pos
        first = min(n, max_cache_size - pos)
        self.fill_count = min(self.fill_count + n, max_cache_size)
        self.window_attention_current_pos = min(pos + n, max_cache_size)
        if first > 0:
            self.data[pos : pos + first] = value[:first]
        if first < n:
            rest = n - first
            self.data[num_sinks : num_sinks + rest] = value[first:]
            self.window_attention_current_pos = rest + num_sinks

    def view(self, shape):
        """The filled rows as a tensor of ``shape``.

        Parameters
        ----------
        shape : sequence of int
            ``(fill_count, *row_shape)``.

        Returns
        -------
        Tensor

        Raises
        ------
        ValueError
            When ``shape[0]`` is not the filled count, or the row shape differs from the cache's.
        """
        shape = tuple(int(d) for d in shape)
        if shape[0] != self.fill_count:
            raise ValueError(
                f"attention_kv_cache_view: requested {shape[0]} rows, {self.fill_count} filled"
            )
        if shape[1:] != self.data.shape[1:]:
            raise ValueError(
                f"attention_kv_cache_view: row shape {shape[1:]} differs from the cache's "
                f"{self.data.shape[1:]}"
            )
        return _tensor(self.data[: shape[0]])


@register_func("vm.builtin.attention_kv_cache_create", override=True)
def attention_kv_cache_create(init_data, reserve_shape, init_fill_count):
    """A cache of ``reserve_shape`` holding ``init_data``'s rows; ``init_fill_count >= 0``
    then sets the filled count (and the window position)."""
    init = _array(init_data)
    cache = AttentionKVCacheLegacy(np.empty(tuple(int(d) for d in reserve_shape), init.dtype))
    cache.append(init)
    if int(init_fill_count) >= 0:
        cache.fill_count = cache.window_attention_current_pos = int(init_fill_count)
    return cache


@register_func("vm.builtin.attention_kv_cache_append", override=True)
def attention_kv_cache_append(cache, value):
    """``vm.builtin.attention_kv_cache_append``: add the rows of ``value`` after the filled
    ones; returns ``cache``."""
    cache.append(_array(value))
    return cache


@register_func("vm.builtin.attention_kv_cache_update", override=True)
def attention_kv_cache_update(cache, value):
    """``vm.builtin.attention_kv_cache_update``: replace the filled rows by ``value``; returns
    ``cache``."""
    cache.update(_array(value))
    return cache


@register_func("vm.builtin.attention_kv_cache_window_override", override=True)
def attention_kv_cache_window_override(cache, value, max_cache_size):
    """``vm.builtin.attention_kv_cache_window_override``: write ``value`` into the ring of
    ``max_cache_size`` rows (sliding-window attention); returns ``cache``.
    """
    cache.window_override(_array(value), int(max_cache_size))
    return cache


@register_func("vm.builtin.attention_kv_cache_window_override_with_sinks", override=True)
def attention_kv_cache_window_override_with_sinks(cache, value, max_cache_size, num_sinks):
    """``vm.builtin.attention_kv_cache_window_override_with_sinks``: as
    :func:`attention_kv_cache_window_override`, keeping the first ``num_sinks`` rows; returns
    ``cache``.
    """
    cache.window_override(_array(value), int(max_cache_size), int(num_sinks))
    return cache


@register_func("vm.builtin.attention_kv_cache_view", override=True)
def attention_kv_cache_view(cache, shape):
    """``vm.builtin.attention_kv_cache_view``: the filled rows as a tensor of ``shape`` (see
    :meth:`AttentionKVCacheLegacy.view`)."""
    return cache.view(shape)


@register_func("vm.builtin.attention_kv_cache_array_popn", override=True)
def attention_kv_cache_array_popn(caches, n):
    """Drop the last ``n`` rows of every cache."""
    for cache in caches:
        if int(n) > cache.fill_count:
            raise ValueError(f"attention_kv_cache_array_popn: {n} > {cache.fill_count} filled")
        cache.fill_count -= int(n)


@register_func("vm.builtin.attention_kv_cache_array_clear", override=True)
def attention_kv_cache_array_clear(caches):
    """``vm.builtin.attention_kv_cache_array_clear``: empty every cache of ``caches``."""
    for cache in caches:
        cache.fill_count = cache.window_attention_current_pos = 0


# --- tensor cache (tvmjs shards) --------------------------------------------------------------

_TENSOR_CACHE: dict = {}


def _decode(record, raw):
    from ...contrib import tvmjs  # lazy: the shard format lives with its writer

    return tvmjs.decode_record(record, raw)


@register_func("vm.builtin.tensor_cache.load", override=True)
def tensor_cache_load(cache_path, device_type, device_id):
    """Load every record of ``cache_path/tensor-cache.json`` into the tensor cache."""
    from ...runtime.device import device as make_device  # lazy: devices only when loading

    path = os.fspath(cache_path)
    with open(os.path.join(path, "tensor-cache.json"), encoding="utf-8") as f:
        meta = json.load(f)
    dev = make_device(int(device_type), int(device_id))
    for shard in meta["records"]:
        with open(os.path.join(path, shard["dataPath"]), "rb") as f:
            data = f.read()
        for record in shard["records"]:
            start = int(record["byteOffset"])
            raw = data[start : start + int(record["nbytes"])]
            _TENSOR_CACHE[record["name"]] = _tensor(_decode(record, raw), dev)


@register_func("vm.builtin.tensor_cache.get", override=True)
def tensor_cache_get(name):
    """The cached tensor ``name`` (None when absent)."""
    return _TENSOR_CACHE.get(str(name))


@register_func("vm.builtin.tensor_cache.update", override=True)
def tensor_cache_update(name, value, override=False):
    """``vm.builtin.tensor_cache.update``: cache ``value`` under ``name``.

    Raises
    ------
    ValueError
        When ``name`` is already cached and ``override`` is false.
    """
    if str(name) in _TENSOR_CACHE and not override:
        raise ValueError(f"tensor_cache.update: {name!r} is already cached (override=False)")
    _TENSOR_CACHE[str(name)] = value


@register_func("vm.builtin.tensor_cache.remove", override=True)
def tensor_cache_remove(name):
    """``vm.builtin.tensor_cache.remove``: drop ``name`` from the tensor cache (if present)."""
    _TENSOR_CACHE.pop(str(name), None)


@register_func("vm.builtin.tensor_cache.clear", override=True)
def tensor_cache_clear():
    """``vm.builtin.tensor_cache.clear``: empty the tensor cache."""
    _TENSOR_CACHE.clear()


@register_func("vm.builtin.param_array_from_cache", override=True)
def param_array_from_cache(prefix, num):
    """``[prefix_0, prefix_1, ...]``: ``num`` tensors, or (``num == -1``) until one is absent."""
    out = []
    i = 0
    while int(num) < 0 or i < int(num):
        value = _TENSOR_CACHE.get(f"{prefix}_{i}")
        if value is None:
            if int(num) < 0:
                break
            raise ValueError(f"param_array_from_cache: {prefix}_{i} is not in the tensor cache")
        out.append(value)
        i += 1
    return out


@register_func("relax.run.unique", override=True)
def run_unique(x, sorted_, return_index, return_inverse, return_counts, axis=None):
    """``R.unique`` at run time (its outputs' extents depend on the data)."""
    from ..op.set.reference import unique_outputs  # lazy: the op family's NumPy rule

    out = unique_outputs(_array(x), bool(sorted_), bool(return_index), bool(return_inverse),
                         bool(return_counts), None if axis is None else int(axis))
    tensors = [_tensor(a) for a in out]
    return tensors[0] if len(tensors) == 1 else tuple(tensors)
