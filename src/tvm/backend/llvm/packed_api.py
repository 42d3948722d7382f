"""Emit TVM-FFI packed-function wrappers that unpack and check their arguments, in llvmlite.

A compiled kernel is exported as ``int32 __tvm_ffi_<name>(void* self, TVMFFIAny* args,
int32 nargs, TVMFFIAny* result)`` and called by ``tvm_ffi`` with NumPy arrays,
``tvm_ffi.Tensor`` objects, ``DLTensor*`` handles, ints and floats. :func:`emit_packed_function`
writes that wrapper: it checks the argument count, each argument's type, and for tensors the
ndim, dtype, device type, static shapes, symbolic shapes (equal wherever the same name appears),
compactness and, when asked, data alignment. A failing check raises ``TypeError`` (count, type,
dtype) or ``ValueError`` (ndim, device, shape, strides, alignment) through ``TVMFFIErrorSetRaisedFromCStr`` with a message that
names the function signature, the parameter, and the expected and actual values; a bad call
never reaches the body, so it cannot crash. Then the body runs.

Usage by a code generator::

    from llvmlite import ir
    from tvm.backend.llvm.packed_api import TensorParam, ScalarParam, emit_packed_function

    module = ir.Module("kernels")
    params = [TensorParam("A", "float32", ("n",)), TensorParam("B", "float32", ("n",)),
              ScalarParam("alpha", "float32")]

    def body(builder, args):
        # args.tensors["A"].data: ptr (byte_offset applied); .shape: list of i64 values;
        # .strides: list of i64 values (element strides; compact ones unless compact=False)
        # args.scalars["alpha"]: a float (LLVM `float`) value
        # args.shape_vars["n"]: the i64 value of the symbolic dimension n
        builder.call(kernel_fn, [args.tensors["A"].data, args.tensors["B"].data,
                                 args.shape_vars["n"], args.scalars["alpha"]])
        # fall through (or return an i32 value: nonzero means an error was already set)

    emit_packed_function(module, "axpy", params, body)

The wrapper declares ``TVMFFIErrorSetRaisedFromCStr`` (from libtvm_ffi) and ``snprintf`` (from
libc) in the module, for bodies that raise errors themselves; both resolve in-process for the
JIT and at link time for shared libraries. The checks themselves are calls of the shared
helpers of ``packed_checks`` (compiled once per process, linked into exported objects), which
own the message formats: the wrapper passes them its signature (one string per wrapper), the
parameter name, the argument index and the expected dtype and device texts.

Limitations: vector (``lanes > 1``) dtypes are compared exactly; tensor parameters must have
a fixed ndim; ``DLTensor`` fields other than data, device type, ndim, dtype, shape, strides
and byte_offset (e.g. the device id) are not checked.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .packed_checks import (  # noqa: F401  (re-exported: parallel.py, testing.py, tests)
    CHECK_COMPACT,
    CHECK_DEVICE,
    CHECK_DTYPE,
    CHECK_TAIL,
    DEVICE_NAMES,
    DTYPE_PREFIX,
    I8,
    I16,
    I32,
    I64,
    MSG_BYTES,
    OBJECT_HEADER_BYTES,
    PTR,
    TYPE_BOOL,
    TYPE_DLTENSOR_PTR,
    TYPE_FLOAT,
    TYPE_INT,
    TYPE_NAMES,
    TYPE_NONE,
    TYPE_TENSOR,
    alloca,
    cstr,
    declare,
    named_dtypes,
    parse_dtype,
    raise_helper,
    raise_str_helper,
    static_dims,
    tensor_head_helper,
    tensor_tail_helper,
    type_name,
)

_MSG_BYTES = MSG_BYTES
_TYPE_NAMES, _DEVICE_NAMES, _DTYPE_PREFIX = TYPE_NAMES, DEVICE_NAMES, DTYPE_PREFIX
_OBJECT_HEADER_BYTES = OBJECT_HEADER_BYTES
PACKED_FUNCTION_TYPE = ir.FunctionType(I32, [PTR, PTR, I32, PTR])
_parse_dtype, _named_dtypes, _declare = parse_dtype, named_dtypes, declare
#: ``kTVMFFIOpaquePtr``: how a ``ctypes.c_void_p`` argument arrives.
TYPE_OPAQUE_PTR = 4

Dim = int | str | None


@dataclasses.dataclass(frozen=True)
class TensorParam:
    """A tensor parameter of a packed function.

    Parameters
    ----------
    name : str
        The parameter name used in error messages and in ``args.tensors``.
    dtype : str or None
        Required dtype (``"float32"``, ``"int64"``, ``"bool"``, ``"float32x4"``...); None: any.
    shape : sequence of int, str or None
        One entry per dimension: a static extent, a symbolic name (all dimensions with the
        same name, across parameters, must be equal at run time), or None (any extent).
    device_type : int or None
        Required DLPack device type (1 = CPU); None: any.
    compact : bool
        Require a compact row-major layout (strides NULL or equal to the compact strides).
    alignment : int
        Required alignment in bytes of the data pointer (after ``byte_offset``), a power of
        two; 1 checks nothing. A body may then assume it (e.g. ``align`` on vector loads).
    """

    name: str
    dtype: str | None
    shape: Sequence[Dim]
    device_type: int | None = 1
    compact: bool = True
    alignment: int = 1
    #: Optional texts shown for the ``None`` (unchecked here) dims in messages, e.g. the
    #: expression ``n + T.int64(1)`` a code generator checks itself.
    dim_texts: Sequence[str | None] | None = None

    def type_text(self) -> str:
        """The parameter's type as shown in error messages: ``Tensor([n, 8], float32)``."""
        texts = self.dim_texts or [None] * len(self.shape)
        dims = ", ".join((t or "?") if d is None else str(d) for d, t in zip(self.shape, texts))
        return f"Tensor([{dims}], {self.dtype or 'any'})"


@dataclasses.dataclass(frozen=True)
class ScalarParam:
    """A scalar parameter: ``dtype`` is an int, uint, float or bool dtype such as ``"int32"``,
    or ``"handle"`` (an opaque pointer, ``ctypes.c_void_p``)."""

    name: str
    dtype: str

    def type_text(self) -> str:
        """The parameter's type as shown in error messages."""
        return self.dtype


Param = TensorParam | ScalarParam


@dataclasses.dataclass
class TensorArg:
    """The unpacked values of one tensor argument, as LLVM values.

    ``data`` is the data pointer with ``byte_offset`` applied; ``shape`` and ``strides`` hold
    one i64 value per dimension (strides in elements); ``dltensor`` is the ``DLTensor*``.
    """

    data: ir.Value
    shape: list
    strides: list
    dltensor: ir.Value


@dataclasses.dataclass
class PackedArgs:
    """What the body callback receives: checked arguments by parameter name.

    ``tensors`` maps names to :class:`TensorArg`; ``scalars`` maps names to values of the
    parameter's LLVM type; ``shape_vars`` maps symbolic dimension names to i64 values;
    ``result`` is the ``TVMFFIAny*`` result slot (left as None on success).
    """

    tensors: dict
    scalars: dict
    shape_vars: dict
    result: ir.Value


BodyFn = Callable[[ir.IRBuilder, PackedArgs], ir.Value | None]


def llvm_type(dtype: str) -> ir.Type:
    """The LLVM type of a scalar dtype (``"float32"`` -> ``float``, ``"bool"`` -> ``i1``)."""
    parsed = _parse_dtype(dtype)
    code, bits, lanes = parsed
    if code in (0, 1):
        elem = ir.IntType(bits)
    elif code == 6:
        elem = ir.IntType(1)
    elif code == 2 and bits in (16, 32, 64):
        elem = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}[bits]
    else:
        raise ValueError(f"no LLVM scalar type for dtype '{dtype}'")
    return elem if lanes == 1 else ir.VectorType(elem, lanes)


def signature_text(name: str, params: Sequence[Param]) -> str:
    """The call signature shown in error messages: ``add(A: Tensor([8], float32), ...)``."""
    return f"{name}(" + ", ".join(f"{p.name}: {p.type_text()}" for p in params) + ")"


def emit_packed_function(
    module: ir.Module, name: str, params: Sequence[Param], body: BodyFn
) -> ir.Function:
    """Emit ``__tvm_ffi_<name>`` into ``module``: unpack and check ``params``, then ``body``.

    Parameters
    ----------
    module : llvmlite.ir.Module
        The module to add the function (and its private helpers) to.
    name : str
        The function name; the exported symbol is ``__tvm_ffi_<name>``.
    params : sequence of TensorParam or ScalarParam
        The expected arguments, in order.
    body : callable
        ``body(builder, args)`` emits the computation, positioned after all checks passed.
        It may return an i32 value to return (nonzero means it already set an error);
        returning None, or leaving the block unterminated, returns 0.

    Returns
    -------
    llvmlite.ir.Function
        The emitted wrapper.
    """
    _validate(name, params)
    fn = ir.Function(module, PACKED_FUNCTION_TYPE, name=f"__tvm_ffi_{name}")
    fn.args[0].name, fn.args[1].name, fn.args[2].name, fn.args[3].name = (
        "self",
        "args",
        "nargs",
        "result",
    )
    emitter = _Emitter(module, fn, name, params)
    args = emitter.unpack()
    ret = body(emitter.builder, args)
    if not emitter.builder.block.is_terminated:
        emitter.builder.ret(ret if ret is not None else ir.Constant(I32, 0))
    return fn


def _escape(text: str) -> str:
    """``text`` as a literal part of a printf format."""
    return text.replace("%", "%%")


def _validate(name: str, params: Sequence[Param]) -> None:
    """Reject bad parameter specs before anything is added to the module."""
    for index, param in enumerate(params):
        if not isinstance(param, (TensorParam, ScalarParam)):
            raise TypeError(
                f"parameter #{index} of '{name}' must be a TensorParam or "
                f"ScalarParam, got {type(param).__name__}"
            )
        if param.dtype is not None:
            _parse_dtype(param.dtype)
        if isinstance(param, ScalarParam):
            if param.dtype == "handle":  # an opaque pointer (a TMA descriptor's address)
                continue
            code, _, lanes = _parse_dtype(param.dtype)
            if lanes != 1 or code not in (0, 1, 2, 6):
                raise ValueError(
                    f"scalar parameter '{param.name}' of '{name}' has unsupported "
                    f"dtype '{param.dtype}'; expected an int, uint, float or bool dtype"
                )
            continue
        if param.alignment < 1 or param.alignment & (param.alignment - 1):
            raise ValueError(
                f"alignment of parameter '{param.name}' must be a power of two, "
                f"got {param.alignment}"
            )
        for dim, want in enumerate(param.shape):
            if isinstance(want, bool) or not isinstance(want, (int, str, type(None))):
                raise TypeError(
                    f"shape entry {dim} of parameter '{param.name}' must be an int, "
                    f"a str or None, got {want!r}"
                )
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"packed function '{name}' has duplicate parameter names: {names}")


class _Emitter:
    """Builds one wrapper; the checks shared by all wrappers are calls of ``packed_checks``."""

    def __init__(self, module, fn, name, params):
        self.module, self.fn, self.name, self.params = module, fn, name, list(params)
        self.signature = signature_text(name, params)
        # One C string per wrapper: every message of its checks takes it as a `%s` value.
        self.sig = cstr(module, self.signature)
        self.builder = ir.IRBuilder(fn.append_basic_block("entry"))
        # Declared for bodies that raise errors themselves (documented in the module doc).
        declare(module, "snprintf", ir.FunctionType(I32, [PTR, I64, PTR], var_arg=True))
        declare(module, "TVMFFIErrorSetRaisedFromCStr",
                ir.FunctionType(ir.VoidType(), [PTR, PTR]))
        self.shape_vars = {}  # symbolic name -> (i64 value, "A.shape[0]")
        self._counter = 0

    # -- error reporting ---------------------------------------------------------------
    def _cstr(self, text: str) -> ir.Value:
        """A private constant C string; identical texts share one global."""
        return cstr(self.module, text)

    def _branch_fail(self, cond):
        """Branch to a new error block when ``cond`` holds; the builder is left in it."""
        self._counter += 1
        fail = self.fn.append_basic_block(f"fail{self._counter}")
        ok = self.fn.append_basic_block(f"ok{self._counter}")
        self.builder.cbranch(cond, fail, ok)
        self.builder.position_at_end(fail)
        return ok

    def _fail_if(self, cond, kind: str, text: str, *values) -> None:
        """Raise ``kind`` with the printf format ``text`` when ``cond`` holds; else continue.

        ``text`` takes the signature first (``%s``, see :meth:`_where`), then ``values``: at
        most two i64 values (``%lld``), or one callable that builds a ``const char*``
        (``%s``) inside the error block. Callers escape a literal '%' as '%%'.
        """
        ok = self._branch_fail(cond)
        b = self.builder
        kind, text = self._cstr(kind), self._cstr(text)
        if values and callable(values[0]):
            b.call(raise_str_helper(self.module), [kind, text, self.sig, values[0]()])
        else:
            padded = [*values, *[ir.Constant(I64, 0)] * (2 - len(values))]
            b.call(raise_helper(self.module), [kind, text, self.sig, *padded])
        b.ret(ir.Constant(I32, -1))
        b.position_at_end(ok)

    @staticmethod
    def _where(index: int, what: str) -> str:
        """The message prefix naming ``what`` and the argument; the signature is its ``%s``."""
        return f"{_escape(what)} on argument #{index} when calling:\n  `%s`,\n  "

    # -- unpacking ---------------------------------------------------------------------
    def unpack(self) -> PackedArgs:
        b = self.builder
        nargs = self.fn.args[2]
        expected = len(self.params)
        self._fail_if(
            b.icmp_signed("!=", nargs, ir.Constant(I32, expected)),
            "TypeError",
            f"Expected {expected} argument{'s' if expected != 1 else ''} when calling:\n"
            "  `%s`,\n  got %lld",
            b.sext(nargs, I64),
        )
        tensors, scalars = {}, {}
        for index, param in enumerate(self.params):
            slot = b.gep(self.fn.args[1], [ir.Constant(I64, 16 * index)], source_etype=I8)
            if isinstance(param, TensorParam):
                tensors[param.name] = self._unpack_tensor(index, param, slot)
            else:
                type_index = b.load(slot, typ=I32, name=f"{param.name}.type_index")
                value_ptr = b.gep(slot, [ir.Constant(I64, 8)], source_etype=I8)
                scalars[param.name] = self._unpack_scalar(index, param, type_index, value_ptr)
        shape_vars = {key: value for key, (value, _) in self.shape_vars.items()}
        return PackedArgs(tensors, scalars, shape_vars, self.fn.args[3])

    def _unpack_tensor(self, index, param: TensorParam, slot) -> TensorArg:
        b = self.builder
        p = param.name
        where = functools.partial(self._where, index)
        # Type, NULL, ndim, dtype and device: one call of the module's shared helper.
        code, bits, lanes = _parse_dtype(param.dtype) if param.dtype is not None else (0, 0, 0)
        flags = (CHECK_DTYPE if param.dtype is not None else 0) | (
            CHECK_DEVICE if param.device_type is not None else 0
        )
        expected_device = _DEVICE_NAMES.get(
            param.device_type, f"device_type={param.device_type}"
        )
        null = ir.Constant(PTR, None)
        # The helpers own the message formats: they get the pieces (see packed_checks.FMT_*).
        name_text, index_value = self._cstr(p), ir.Constant(I32, index)
        # Without symbolic extents the helper checks the static ones too, and then (no check
        # is left to do in between) the layout, data pointer and alignment: same order.
        all_static = not any(isinstance(want, str) for want in param.shape)
        dims = (static_dims(self.module, param.shape) if all_static
                else ir.Constant(PTR, None))
        if all_static:
            flags |= CHECK_TAIL | (CHECK_COMPACT if param.compact else 0)
        dl = b.call(
            tensor_head_helper(self.module),
            [
                slot,
                ir.Constant(I32, len(param.shape)),
                ir.Constant(I8, code),
                ir.Constant(I8, bits),
                ir.Constant(I16, lanes),
                ir.Constant(I32, param.device_type or 0),
                ir.Constant(I32, flags),
                dims,
                self.sig,
                name_text,
                index_value,
                self._cstr(param.dtype) if flags & CHECK_DTYPE else null,
                self._cstr(expected_device) if flags & CHECK_DEVICE else null,
                ir.Constant(I64, param.alignment),
            ],
            name=f"{p}.dltensor",
        )
        ok = self._branch_fail(b.icmp_unsigned("==", dl, ir.Constant(PTR, None)))
        b.ret(ir.Constant(I32, -1))
        b.position_at_end(ok)

        def field(offset, typ, label):
            ptr = b.gep(dl, [ir.Constant(I64, offset)], source_etype=I8)
            return b.load(ptr, typ=typ, name=f"{p}.{label}")

        # Shapes inline: symbolic extents bind variables the body uses; static ones become
        # constants for the body once checked.
        # Not read by a compact tensor of static extents (checked by the head helper).
        known = all_static and all(isinstance(want, int) for want in param.shape)
        shape_ptr = None if known and param.compact else field(24, PTR, "shape")
        shape = []
        for dim, want in enumerate(param.shape):
            label = f"{p}.shape[{dim}]"
            if isinstance(want, int) and all_static:
                shape.append(ir.Constant(I64, want))  # checked by the head helper
                continue
            extent = b.load(
                b.gep(shape_ptr, [ir.Constant(I64, dim)], source_etype=I64),
                typ=I64,
                name=f"{p}.shape{dim}",
            )
            if isinstance(want, int):
                self._fail_if(
                    b.icmp_signed("!=", extent, ir.Constant(I64, want)),
                    "ValueError",
                    where(f"Invalid {label}") + f"expected {want}, got %lld",
                    extent,
                )
                extent = ir.Constant(I64, want)
            elif isinstance(want, str):
                if want in self.shape_vars:
                    first, first_label = self.shape_vars[want]
                    self._fail_if(
                        b.icmp_signed("!=", extent, first),
                        "ValueError",
                        where(f"Mismatched {label}")
                        + f"expected to match {_escape(first_label)} ({_escape(want)} = "
                        "%lld), got %lld",
                        first,
                        extent,
                    )
                    extent = first
                else:
                    self._fail_if(
                        b.icmp_signed("<", extent, ir.Constant(I64, 0)),
                        "ValueError",
                        where(f"Invalid {label}") + "expected >= 0, got %lld",
                        extent,
                    )
                    self.shape_vars[want] = (extent, label)
            shape.append(extent)
        if not all_static:
            # Layout, data pointer and alignment, after the inline extent checks.
            status = b.call(
                tensor_tail_helper(self.module),
                [
                    dl,
                    ir.Constant(I32, int(param.compact)),
                    ir.Constant(I64, param.alignment),
                    self.sig,
                    name_text,
                    index_value,
                ],
            )
            ok = self._branch_fail(b.icmp_signed("!=", status, ir.Constant(I32, 0)))
            b.ret(status)
            b.position_at_end(ok)
        strides_ptr = None if param.compact else field(32, PTR, "strides")
        strides = self._strides(param, strides_ptr, shape, shape_ptr)
        data = field(0, PTR, "data")
        offset = field(40, I64, "byte_offset")
        data = b.gep(data, [offset], source_etype=I8, name=f"{p}.data")
        return TensorArg(data=data, shape=shape, strides=strides, dltensor=dl)

    def _strides(self, param, strides_ptr, shape, safe_ptr) -> list:
        """The element strides as i64 values: compact ones, or loaded (checked by the helper)."""
        b = self.builder
        compact, running = [], ir.Constant(I64, 1)
        for extent in reversed(shape):
            compact.insert(0, running)
            if isinstance(running, ir.Constant) and isinstance(extent, ir.Constant):
                # Static extents: constants, not instructions (the wrapper is not optimized).
                running = ir.Constant(I64, running.constant * extent.constant)
            else:
                running = b.mul(running, extent)
        if param.compact:
            return compact
        is_null = b.icmp_unsigned("==", strides_ptr, ir.Constant(PTR, None))
        # Loads are guarded by a select on a safe address so that NULL strides are never read.
        safe_ptr = b.select(is_null, safe_ptr, strides_ptr)
        loaded = []
        for dim in range(len(shape)):
            value = b.load(b.gep(safe_ptr, [ir.Constant(I64, dim)], source_etype=I64), typ=I64)
            loaded.append(b.select(is_null, compact[dim], value, name=f"{param.name}.stride{dim}"))
        return loaded

    def _unpack_scalar(self, index, param: ScalarParam, type_index, value_ptr) -> ir.Value:
        b = self.builder
        if param.dtype == "handle":
            # an opaque pointer argument (``ctypes.c_void_p``): T.TensorMap() parameters
            self._fail_if(
                b.icmp_signed("!=", type_index, ir.Constant(I32, TYPE_OPAQUE_PTR)),
                "TypeError",
                self._where(index, "Mismatched type") + "expected void* (an opaque pointer), "
                "got %s",
                lambda: type_name(self.module, b, type_index),
            )
            return b.inttoptr(b.load(value_ptr, typ=I64), PTR, name=param.name)
        code, bits, _ = _parse_dtype(param.dtype)
        is_int = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_INT))
        is_bool = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_BOOL))
        is_float = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_FLOAT))
        integral = b.or_(is_int, is_bool)
        accepted = b.or_(integral, is_float) if code == 2 else integral
        expected = "float or int" if code == 2 else "int or bool"
        self._fail_if(
            b.not_(accepted),
            "TypeError",
            self._where(index, "Mismatched type")
            # TVM's word for a bool parameter is "boolean"; the others name their dtype
            + f"expected {'boolean' if code == 6 else param.dtype} ({expected}), got %s",
            lambda: type_name(self.module, b, type_index),
        )
        target = llvm_type(param.dtype)
        as_int = b.load(value_ptr, typ=I64)
        if code == 2:
            as_float = b.load(value_ptr, typ=ir.DoubleType())
            value = b.select(is_float, as_float, b.sitofp(as_int, ir.DoubleType()))
            if bits != 64:
                value = b.fptrunc(value, target)
            return value
        if code == 6:
            return b.icmp_signed("!=", as_int, ir.Constant(I64, 0), name=param.name)
        return b.trunc(as_int, target, name=param.name) if bits < 64 else as_int
