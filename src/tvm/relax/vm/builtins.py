"""Run-time builtins of the VM: what ``R.call_packed("vm.builtin.*")`` and ``R.vm.*`` call.

The VM lowering passes of ``relax.pipeline.get_default_pipeline`` (``VMShapeLower``,
``VMBuiltinLower``, ...) make shape checks, symbolic shapes and memory explicit as calls of
these builtins; the generated Python calls the functions here directly (``BUILTINS``).

* the *shape heap* is a 1-d int64 NumPy array holding the values of symbolic variables
  (``alloc_shape_heap``), written by ``match_shape`` and by the generated ``shape_func``
  kernels, read by ``make_shape`` and ``make_prim_value``;
* a storage (``alloc_storage``) is a uint8 NumPy array of the byte size; a tensor placed in it
  (``alloc_tensor``) is a NumPy view at the byte offset, which kernels accept through DLPack.
  Tensors of ml_dtypes (bfloat16, float8), which NumPy cannot export, get runtime tensors of
  their own instead of a view;
* ``kill_object`` does nothing: Python frees an object with its last reference.

Check failures raise ``ValueError`` with TVM's error context (``ErrorContext(fn=main,
loc=param[0], param=x, annotation=...)``) followed by what is wrong.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BUILTINS", "Closure", "builtin_ident"]

# match_shape codes (per dim): 0 = equal to the value, 1 = store into the heap slot,
# 2 = no check, 3 = equal to the heap slot. make_shape / make_prim_value: 0 = value, 1 = load.
_USE_IMM, _STORE, _NO_OP, _ASSERT_EQUAL = 0, 1, 2, 3


class Closure:
    """A function with captured values: ``closure(*args)`` calls ``func(*args, *captured)``."""

    __slots__ = ("captured", "func", "name")

    def __init__(self, name, func, captured):
        self.name, self.func, self.captured = name, func, tuple(captured)

    def __call__(self, *args):
        return self.func(*args, *self.captured)

    def __repr__(self):
        return f"relax.vm.Closure({self.name}, {len(self.captured)} captured)"


def make_closure(name, func, captured):
    """``R.make_closure(f, (c, ...))``: ``f`` is a generated VM function."""
    return Closure(name, func, captured)


def invoke_closure(closure, *args):
    """``R.invoke_closure(c, args)``: call a closure (or any VM function value)."""
    if not callable(closure):
        raise TypeError(
            f"VirtualMachine: invoke_closure expects a closure or function, got "
            f"{type(closure).__name__}"
        )
    return closure(*args)


def _err(err, detail, kind=ValueError):
    raise kind(f"{str(err).strip()}  {detail}")


def alloc_shape_heap(size):
    """The shape heap of a call: ``size`` int64 slots."""
    return np.zeros(int(size), dtype=np.int64)


def _ndim(x):
    return len(x.shape)


def check_tensor_info(x, ndim, dtype, err):
    """``x`` is a tensor of rank ``ndim`` (-1: any) and dtype ``dtype`` ("void": any)."""
    shape = getattr(x, "shape", None)
    if shape is None or isinstance(x, tuple):
        _err(err, f"expect a Tensor but get {type(x).__name__}", TypeError)
    if ndim != -1 and len(shape) != ndim:
        _err(err, f"expect Tensor with ndim {ndim} but get {len(shape)}")
    if dtype and dtype != "void" and str(x.dtype) != dtype:
        _err(err, f"expect Tensor with dtype {dtype} but get {x.dtype}")


def check_shape_info(x, ndim, err):
    """``x`` is a shape (tuple of ints) with ``ndim`` values (-1: any)."""
    if not isinstance(x, tuple):
        _err(err, f"expect a Shape but get {type(x).__name__}")
    if ndim != -1 and len(x) != ndim:
        _err(err, f"expect Shape with ndim {ndim} but get {len(x)}")


def check_prim_value_info(x, dtype, err):
    """``x`` is a Python (or NumPy) scalar of the kind of ``dtype``."""
    kinds = {"bool": (bool, np.bool_), "int": (int, np.integer), "uint": (int, np.integer),
             "float": (int, float, np.floating, np.integer)}
    base = "bool" if dtype == "bool" else dtype.rstrip("0123456789")
    accepted = kinds.get(base)
    if accepted is not None and (not isinstance(x, accepted) or
                                 (base != "bool" and isinstance(x, (bool, np.bool_)))):
        _err(err, f"expect a PrimValue of dtype {dtype} but get {type(x).__name__} {x!r}")


def check_tuple_info(x, size, err):
    """``x`` is a tuple (or list) of ``size`` fields."""
    if not isinstance(x, (tuple, list)):
        _err(err, f"expect a Tuple but get {type(x).__name__}")
    if len(x) != size:
        _err(err, f"expect a Tuple with {size} elements,  but get a Tuple with {len(x)} elements.")


def check_func_info(x, err):
    """``x`` is callable (a VM function or closure)."""
    if not callable(x):
        _err(err, f"expect a Function but get {type(x).__name__}")


def match_shape(x, heap, ndim, *rest):
    """Match the dims of tensor or shape ``x`` against codes/values, storing new variables."""
    err = rest[-1]
    shape = x if isinstance(x, tuple) else tuple(x.shape)
    if len(shape) != ndim:
        _err(err, f"match_cast error, expect ndim {ndim} but get {len(shape)}")
    for i in range(ndim):
        code, value = rest[2 * i], rest[2 * i + 1]
        dim = int(shape[i])
        if code == _USE_IMM:
            if dim != value:
                _err(err, f"match_cast error,  shape[{i}] mismatch to specified constant "
                          f"({dim} vs. {value}).")
        elif code == _STORE:
            heap[value] = dim
        elif code == _ASSERT_EQUAL and dim != heap[value]:
            _err(err, f"match_cast error,  shape[{i}] mismatch to a previous populated "
                      f"value ({dim} vs. {int(heap[value])}).")


def make_shape(heap, ndim, *codes):
    """A shape tuple from immediate values and heap slots."""
    return tuple(
        int(codes[2 * i + 1]) if codes[2 * i] == 0 else int(heap[codes[2 * i + 1]])
        for i in range(ndim)
    )


def make_prim_value(heap, code, value):
    """A symbolic scalar: ``value`` itself (code 0) or heap slot ``value`` (code 1)."""
    return int(value) if code == 0 else int(heap[value])


def storage_bytes(size, dtype="uint8") -> int:
    """Bytes of a storage of ``size`` (a shape) elements of ``dtype``, as TVM's allocator
    counts them (``R.vm.alloc_storage(R.shape([4]), dtype="float32")`` is 16 bytes)."""
    from ..op.registry import reference_dtype  # lazy: the dtype table

    dims = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    count = 1
    for d in dims:
        count *= int(d)
    name = str(getattr(dtype, "dtype", dtype) or "uint8")
    try:
        itemsize = np.dtype(reference_dtype(name)).itemsize
    except TypeError:
        itemsize = 1
    return count * itemsize


def alloc_storage(size, device_index=0, dtype="uint8", scope="global"):
    """``R.vm.alloc_storage``: ``prod(size)`` elements of ``dtype`` (bytes by default)."""
    return np.empty(storage_bytes(size, dtype), dtype=np.uint8)


def memory_alloc_storage(size, device_index=0, scope="global", dtype="uint8"):
    """``R.memory.alloc_storage`` (the order of its arguments differs from ``R.vm``'s)."""
    return alloc_storage(size, device_index, dtype, scope)


def alloc_tensor(storage, offset, shape, dtype, device_index=0):
    """A tensor of ``shape``/``dtype`` in ``storage`` at byte ``offset``."""
    from ..op.registry import reference_dtype  # lazy: dtype table only when allocating

    np_dtype = reference_dtype(dtype)
    shape = tuple(int(d) for d in shape)
    if np_dtype.kind not in "biuf":
        from ...runtime import empty  # ml_dtypes: NumPy cannot export a view through DLPack

        return empty(shape, str(dtype))
    count = 1
    for d in shape:
        count *= d
    offset = int(offset)
    nbytes = count * np_dtype.itemsize
    if offset + nbytes > storage.size:
        raise ValueError(
            f"VirtualMachine: alloc_tensor of {nbytes} bytes at offset {offset} does not fit "
            f"in a storage of {storage.size} bytes"
        )
    return storage[offset:offset + nbytes].view(np_dtype).reshape(shape)


def kill_object(obj):
    """``R.vm.kill_object``: nothing to do (the last reference frees the object)."""


def null_value():
    """``R.null_value()``: None."""


def _tuple_getitem(tup, index):
    return tup[int(index)]


def shape_of(x):
    """``R.shape_of(x)``: the shape of a tensor as a tuple of ints."""
    return tuple(int(d) for d in x.shape)


def tensor_to_shape(tensor):
    """``vm.builtin.tensor_to_shape``: a 1-d integer tensor as a shape tuple."""
    return tuple(int(v) for v in np.asarray(tensor).reshape(-1))


def shape_to_tensor(shape):
    """``relax.run.shape_to_tensor``: a shape as a 1-d int64 tensor."""
    return np.array([int(d) for d in shape], dtype="int64")


def _host_array(x):
    """A NumPy view (or copy, for a device tensor) of a tensor argument."""
    if isinstance(x, np.ndarray):
        return x
    numpy = getattr(x, "numpy", None)
    if numpy is None:
        raise TypeError(f"VirtualMachine: expected a tensor, got {type(x).__name__}")
    return numpy()


def copy(x):
    """``vm.builtin.copy``: a new tensor with the contents of ``x``."""
    return np.array(_host_array(x), copy=True)


def reshape(x, shape):
    """``vm.builtin.reshape``: ``x`` viewed with ``shape`` (same number of elements)."""
    shape = tuple(int(d) for d in shape)
    data = _host_array(x)
    if int(np.prod(shape, dtype=np.int64)) != data.size:
        raise ValueError(
            f"VirtualMachine: vm.builtin.reshape cannot view {data.size} elements as {shape}"
        )
    return data.reshape(shape)


def to_device(x, device_type, device_id):
    """``vm.builtin.to_device``: a copy of ``x`` on device ``(device_type, device_id)``."""
    from ...runtime.device import device as make_device  # lazy: devices only when moving
    from ...runtime.tensor import tensor

    return tensor(np.array(_host_array(x), copy=True), make_device(int(device_type),
                                                                   int(device_id)))


#: builtin name (as in TVM's ``R.call_packed``/``call_builtin_with_ctx``) -> function.
BUILTINS = {
    "vm.builtin.alloc_shape_heap": alloc_shape_heap,
    "vm.builtin.check_tensor_info": check_tensor_info,
    "vm.builtin.check_shape_info": check_shape_info,
    "vm.builtin.check_prim_value_info": check_prim_value_info,
    "vm.builtin.check_tuple_info": check_tuple_info,
    "vm.builtin.check_func_info": check_func_info,
    "vm.builtin.match_shape": match_shape,
    "vm.builtin.make_shape": make_shape,
    "vm.builtin.make_prim_value": make_prim_value,
    "vm.builtin.alloc_storage": alloc_storage,
    "vm.builtin.alloc_tensor": alloc_tensor,
    "vm.builtin.null_value": null_value,
    "vm.builtin.tuple_getitem": _tuple_getitem,
    "vm.builtin.make_closure": make_closure,
    "vm.builtin.invoke_closure": invoke_closure,
    "vm.builtin.shape_of": shape_of,
    "vm.builtin.tensor_to_shape": tensor_to_shape,
    "relax.run.shape_to_tensor": shape_to_tensor,
    "vm.builtin.copy": copy,
    "vm.builtin.reshape": reshape,
    "vm.builtin.to_device": to_device,
    "memory.alloc_storage": memory_alloc_storage,
}


def builtin_ident(name: str) -> str:
    """The name the generated code uses for builtin ``name``."""
    return "_B_" + "".join(c if c.isalnum() else "_" for c in name)
