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

The wrapper calls ``TVMFFIErrorSetRaisedFromCStr`` (from libtvm_ffi) and ``snprintf`` (from
libc); both resolve in-process for the JIT and at link time for shared libraries.

Limitations: vector (``lanes > 1``) dtypes are compared exactly; tensor parameters must have
a fixed ndim; ``DLTensor`` fields other than data, device type, ndim, dtype, shape, strides
and byte_offset (e.g. the device id) are not checked.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Sequence

from llvmlite import ir  # this module is only imported by code that is generating LLVM IR

from ...runtime.data_type import FLOAT8_DTYPES

# TVMFFIAny type indices (tvm_ffi's c_api.h) used by the unpacking code.
TYPE_NONE, TYPE_INT, TYPE_BOOL, TYPE_FLOAT, TYPE_DLTENSOR_PTR, TYPE_TENSOR = 0, 1, 2, 3, 7, 70
# The TVMFFIObject header that precedes the DLTensor inside a tvm_ffi.Tensor object.
_OBJECT_HEADER_BYTES = 24
_TYPE_NAMES = {
    0: "None",
    1: "int",
    2: "bool",
    3: "float",
    4: "void*",
    5: "DataType",
    6: "Device",
    7: "DLTensor*",
    8: "str",
    9: "bytes",
    11: "str",
    12: "bytes",
    64: "Object",
    65: "str",
    66: "bytes",
    67: "Error",
    68: "Function",
    69: "Shape",
    70: "Tensor",
    71: "Array",
    72: "Map",
    73: "Module",
    74: "OpaquePyObject",
    75: "List",
    76: "Dict",
}
_DEVICE_NAMES = {
    1: "cpu",
    2: "cuda",
    3: "cuda_host",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    10: "rocm",
    13: "cuda_managed",
    14: "oneapi",
    15: "webgpu",
}
_DTYPE_PREFIX = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 5: "complex"}

I8, I16, I32, I64 = ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
PACKED_FUNCTION_TYPE = ir.FunctionType(I32, [PTR, PTR, I32, PTR])
_MSG_BYTES = 1024

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

    def type_text(self) -> str:
        """The parameter's type as shown in error messages: ``Tensor([n, 8], float32)``."""
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)
        return f"Tensor([{dims}], {self.dtype or 'any'})"


@dataclasses.dataclass(frozen=True)
class ScalarParam:
    """A scalar parameter: ``dtype`` is an int, uint, float or bool dtype such as ``"int32"``."""

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


def _parse_dtype(dtype: str) -> tuple:
    # Lazy import: tvm_ffi's dtype parser is the one the runtime uses for DLPack dtypes.
    import tvm_ffi

    try:
        parsed = tvm_ffi.dtype(dtype)
    except Exception as err:  # tvm_ffi raises its own kinds for unknown names
        raise ValueError(f"unknown dtype '{dtype}'") from err
    return int(parsed.type_code), int(parsed.bits), int(parsed.lanes)


@functools.cache
def _named_dtypes() -> dict:
    """``(type code, bits) -> name`` of DLPack dtypes whose code has a fixed meaning."""
    names = ["bool", *FLOAT8_DTYPES, "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
    table = {}
    for name in names:
        try:
            code, bits, _ = _parse_dtype(name)
        except ValueError:
            continue  # a tvm_ffi without this dtype
        table[(code, bits)] = name
    return table


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
    """Builds one wrapper; error messages share a stack buffer allocated in the entry block."""

    def __init__(self, module, fn, name, params):
        self.module, self.fn, self.name, self.params = module, fn, name, list(params)
        self.signature = signature_text(name, params)
        self.builder = ir.IRBuilder(fn.append_basic_block("entry"))
        self.msg = alloca(self.builder, ir.ArrayType(I8, _MSG_BYTES), "msg")
        self.dtype_text = alloca(self.builder, ir.ArrayType(I8, 64), "dtype_text")
        self.snprintf = _declare(
            module, "snprintf", ir.FunctionType(I32, [PTR, I64, PTR], var_arg=True)
        )
        self.raise_fn = _declare(
            module, "TVMFFIErrorSetRaisedFromCStr", ir.FunctionType(ir.VoidType(), [PTR, PTR])
        )
        self.shape_vars = {}  # symbolic name -> (i64 value, "A.shape[0]")
        self._counter = 0

    # -- error reporting ---------------------------------------------------------------
    def _cstr(self, text: str) -> ir.Value:
        """A private constant C string; identical texts share one global."""
        data = bytearray(text.encode("utf-8")) + b"\0"
        # A content hash (not hash(), which is salted per process) keeps the IR deterministic.
        key = f"__pytvm_str_{hashlib.sha1(data).hexdigest()[:16]}"
        gv = self.module.globals.get(key)
        if gv is None:
            gv = ir.GlobalVariable(self.module, ir.ArrayType(I8, len(data)), name=key)
            gv.linkage, gv.global_constant = "private", True
            gv.initializer = ir.Constant(ir.ArrayType(I8, len(data)), data)
            # llvmlite types globals as typed pointers (`[N x i8]*`); LLVM 15+ only has `ptr`.
            # An opaque type lets strings of different lengths meet in one `select`.
            gv.type = PTR
        return gv

    def _str_ptr(self, text: str) -> ir.Value:
        """A C string as an opaque ``ptr`` value."""
        return self._cstr(text)

    def _fail_if(self, cond, kind: str, text: str, *values) -> None:
        """Branch to an error block raising ``kind`` when ``cond`` holds; continue otherwise."""
        self._counter += 1
        fail = self.fn.append_basic_block(f"fail{self._counter}")
        ok = self.fn.append_basic_block(f"ok{self._counter}")
        self.builder.cbranch(cond, fail, ok)
        self.builder.position_at_end(fail)
        fmt = self._cstr(text)  # a printf format: callers escape literal '%' as '%%'
        self.builder.call(self.snprintf, [self.msg, ir.Constant(I64, _MSG_BYTES), fmt, *values])
        self.builder.call(self.raise_fn, [self._cstr(kind), self.msg])
        self.builder.ret(ir.Constant(I32, -1))
        self.builder.position_at_end(ok)

    def _where(self, index: int, what: str) -> str:
        what = what.replace("%", "%%")
        sig = self.signature.replace("%", "%%")
        return f"{what} on argument #{index} when calling:\n  `{sig}`,\n  "

    # -- unpacking ---------------------------------------------------------------------
    def unpack(self) -> PackedArgs:
        b = self.builder
        nargs = self.fn.args[2]
        expected = len(self.params)
        sig = self.signature.replace("%", "%%")
        self._fail_if(
            b.icmp_signed("!=", nargs, ir.Constant(I32, expected)),
            "TypeError",
            f"Expected {expected} argument{'s' if expected != 1 else ''} when calling:\n"
            f"  `{sig}`,\n  got %d",
            nargs,
        )
        tensors, scalars = {}, {}
        for index, param in enumerate(self.params):
            slot = b.gep(self.fn.args[1], [ir.Constant(I64, 16 * index)], source_etype=I8)
            type_index = b.load(slot, typ=I32, name=f"{param.name}.type_index")
            value_ptr = b.gep(slot, [ir.Constant(I64, 8)], source_etype=I8)
            if isinstance(param, TensorParam):
                tensors[param.name] = self._unpack_tensor(index, param, type_index, value_ptr)
            else:
                scalars[param.name] = self._unpack_scalar(index, param, type_index, value_ptr)
        shape_vars = {key: value for key, (value, _) in self.shape_vars.items()}
        return PackedArgs(tensors, scalars, shape_vars, self.fn.args[3])

    def _type_name(self, type_index) -> ir.Value:
        """A ``const char*`` naming a TVMFFIAny type index (select chain over known kinds)."""
        b = self.builder
        result = self._str_ptr("Object")
        for code, text in _TYPE_NAMES.items():
            hit = b.icmp_signed("==", type_index, ir.Constant(I32, code))
            result = b.select(hit, self._str_ptr(text), result)
        return result

    def _unpack_tensor(self, index, param: TensorParam, type_index, value_ptr) -> TensorArg:
        b = self.builder
        is_tensor = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_TENSOR))
        is_handle = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_DLTENSOR_PTR))
        self._fail_if(
            b.not_(b.or_(is_tensor, is_handle)),
            "TypeError",
            self._where(index, "Mismatched type") + "expected Tensor, got %s",
            self._type_name(type_index),
        )
        raw = b.load(value_ptr, typ=PTR)
        header = b.gep(raw, [ir.Constant(I64, _OBJECT_HEADER_BYTES)], source_etype=I8)
        dl = b.select(is_tensor, header, raw, name=f"{param.name}.dltensor")
        self._fail_if(
            b.icmp_unsigned("==", raw, ir.Constant(PTR, None)),
            "TypeError",
            self._where(index, "Mismatched type") + "expected Tensor, got NULL",
        )

        def field(offset, typ, label):
            ptr = b.gep(dl, [ir.Constant(I64, offset)], source_etype=I8)
            return b.load(ptr, typ=typ, name=f"{param.name}.{label}")

        ndim = field(16, I32, "ndim")
        p = param.name
        self._fail_if(
            b.icmp_signed("!=", ndim, ir.Constant(I32, len(param.shape))),
            "ValueError",
            self._where(index, f"Mismatched {p}.ndim") + f"expected {len(param.shape)}, got %d",
            ndim,
        )
        if param.dtype is not None:
            self._check_dtype(
                index,
                param,
                field(20, I8, "dtype.code"),
                field(21, I8, "dtype.bits"),
                field(22, I16, "dtype.lanes"),
            )
        if param.device_type is not None:
            device = field(8, I32, "device_type")
            expected = _DEVICE_NAMES.get(param.device_type, f"device_type={param.device_type}")
            name = self._str_ptr("device_type=?")
            for code, text in _DEVICE_NAMES.items():
                name = b.select(
                    b.icmp_signed("==", device, ir.Constant(I32, code)), self._str_ptr(text), name
                )
            self._fail_if(
                b.icmp_signed("!=", device, ir.Constant(I32, param.device_type)),
                "ValueError",
                self._where(index, f"Mismatched {p}.device")
                + f"expected {expected}, got %s (device_type=%d)",
                name,
                device,
            )
        shape_ptr = field(24, PTR, "shape")
        shape = []
        for dim, want in enumerate(param.shape):
            extent = b.load(
                b.gep(shape_ptr, [ir.Constant(I64, dim)], source_etype=I64),
                typ=I64,
                name=f"{p}.shape{dim}",
            )
            label = f"{p}.shape[{dim}]"
            if isinstance(want, int):
                self._fail_if(
                    b.icmp_signed("!=", extent, ir.Constant(I64, want)),
                    "ValueError",
                    self._where(index, f"Invalid {label}") + f"expected {want}, got %lld",
                    extent,
                )
            elif isinstance(want, str):
                if want in self.shape_vars:
                    first, first_label = self.shape_vars[want]
                    self._fail_if(
                        b.icmp_signed("!=", extent, first),
                        "ValueError",
                        self._where(index, f"Mismatched {label}")
                        + f"expected to match {first_label} ({want} = %lld), got %lld",
                        first,
                        extent,
                    )
                else:
                    self._fail_if(
                        b.icmp_signed("<", extent, ir.Constant(I64, 0)),
                        "ValueError",
                        self._where(index, f"Invalid {label}") + "expected >= 0, got %lld",
                        extent,
                    )
                    self.shape_vars[want] = (extent, label)
            shape.append(extent)
        strides = self._strides(index, param, field(32, PTR, "strides"), shape)
        data = field(0, PTR, "data")
        numel = ir.Constant(I64, 1)
        for extent in shape:
            numel = b.mul(numel, extent)
        self._fail_if(
            b.and_(
                b.icmp_unsigned("==", data, ir.Constant(PTR, None)),
                b.icmp_signed("!=", numel, ir.Constant(I64, 0)),
            ),
            "ValueError",
            self._where(index, f"Invalid {p}.data")
            + "expected a non-NULL data pointer for a non-empty tensor, got NULL",
        )
        offset = field(40, I64, "byte_offset")
        data = b.gep(data, [offset], source_etype=I8, name=f"{p}.data")
        if param.alignment > 1:
            address = b.ptrtoint(data, I64)
            misaligned = b.and_(address, ir.Constant(I64, param.alignment - 1))
            self._fail_if(
                b.icmp_unsigned("!=", misaligned, ir.Constant(I64, 0)),
                "ValueError",
                self._where(index, "Misaligned Tensor data")
                + f"expected data alignment={param.alignment} byte, got address %% "
                f"{param.alignment} = %lld",
                misaligned,
            )
        return TensorArg(data=data, shape=shape, strides=strides, dltensor=dl)

    def _check_dtype(self, index, param, code, bits, lanes):
        b = self.builder
        want_code, want_bits, want_lanes = _parse_dtype(param.dtype)
        bad = b.or_(
            b.icmp_unsigned("!=", code, ir.Constant(I8, want_code)),
            b.or_(
                b.icmp_unsigned("!=", bits, ir.Constant(I8, want_bits)),
                b.icmp_unsigned("!=", lanes, ir.Constant(I16, want_lanes)),
            ),
        )
        self._counter += 1
        fail = self.fn.append_basic_block(f"fail{self._counter}")
        ok = self.fn.append_basic_block(f"ok{self._counter}")
        b.cbranch(bad, fail, ok)
        b.position_at_end(fail)
        # Format the actual dtype: "<prefix><bits>" for int/uint/float/bfloat/..., the exact
        # name for codes with fixed meanings (bool, the float8/6/4 kinds), else the numbers;
        # then "x<lanes>" for vectors. Arguments (text, bits, code) suit all three formats.
        generic = b.icmp_unsigned("<=", code, ir.Constant(I8, max(_DTYPE_PREFIX)))
        text_arg = self._str_ptr("")
        for c, prefix in _DTYPE_PREFIX.items():
            hit = b.icmp_unsigned("==", code, ir.Constant(I8, c))
            text_arg = b.select(hit, self._str_ptr(prefix), text_arg)
        fmt = b.select(generic, self._str_ptr("%s%d"), self._str_ptr("dtype%s(bits=%d, code=%d)"))
        for (c, nbits), name in _named_dtypes().items():
            hit = b.and_(
                b.icmp_unsigned("==", code, ir.Constant(I8, c)),
                b.icmp_unsigned("==", bits, ir.Constant(I8, nbits)),
            )
            text_arg = b.select(hit, self._str_ptr(name), text_arg)
            fmt = b.select(hit, self._str_ptr("%s"), fmt)
        args = [self.dtype_text, ir.Constant(I64, 64), fmt, text_arg]
        b.call(self.snprintf, [*args, b.zext(bits, I32), b.zext(code, I32)])
        where = self._where(index, f"Mismatched {param.name}.dtype")
        scalar = self._str_ptr(where + f"expected {param.dtype}, got %s")
        vector = self._str_ptr(where + f"expected {param.dtype}, got %sx%d")
        text = b.select(b.icmp_unsigned("!=", lanes, ir.Constant(I16, 1)), vector, scalar)
        b.call(
            self.snprintf,
            [self.msg, ir.Constant(I64, _MSG_BYTES), text, self.dtype_text, b.zext(lanes, I32)],
        )
        b.call(self.raise_fn, [self._cstr("TypeError"), self.msg])
        b.ret(ir.Constant(I32, -1))
        b.position_at_end(ok)

    def _strides(self, index, param, strides_ptr, shape) -> list:
        """Check compactness (when required) and return the element strides as i64 values."""
        b = self.builder
        compact, running = [], ir.Constant(I64, 1)
        for extent in reversed(shape):
            compact.insert(0, running)
            running = b.mul(running, extent)
        is_null = b.icmp_unsigned("==", strides_ptr, ir.Constant(PTR, None))
        nonempty = b.icmp_signed("!=", running, ir.Constant(I64, 0))
        loaded = []
        # Loads are guarded by a select on a safe address so that NULL strides are never read.
        safe_ptr = b.select(
            is_null, b.gep(self.msg, [ir.Constant(I64, 0)], source_etype=I8), strides_ptr
        )
        for dim, extent in enumerate(shape):
            value = b.load(b.gep(safe_ptr, [ir.Constant(I64, dim)], source_etype=I64), typ=I64)
            value = b.select(is_null, compact[dim], value, name=f"{param.name}.stride{dim}")
            loaded.append(value)
            if param.compact:
                # A dimension of extent 1 may carry any stride (DLPack exporters differ there),
                # and an empty tensor has no layout to check.
                bad = b.and_(
                    b.icmp_signed("!=", value, compact[dim]),
                    b.and_(b.icmp_signed("!=", extent, ir.Constant(I64, 1)), nonempty),
                )
                self._fail_if(
                    bad,
                    "ValueError",
                    self._where(index, f"Mismatched {param.name}.strides")
                    + f"expected to be compact array, got strides[{dim}] = %lld where %lld "
                    "is compact",
                    value,
                    compact[dim],
                )
        return compact if param.compact else loaded

    def _unpack_scalar(self, index, param: ScalarParam, type_index, value_ptr) -> ir.Value:
        b = self.builder
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
            self._where(index, "Mismatched type") + f"expected {param.dtype} ({expected}), got %s",
            self._type_name(type_index),
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


def alloca(builder: ir.IRBuilder, typ: ir.Type, name: str = "") -> ir.Value:
    """``alloca`` returning an opaque ``ptr`` (llvmlite would type it ``T*``, which LLVM 15+
    only accepts as legacy syntax and which llvmlite's ``store``/``select`` then reject)."""
    value = builder.alloca(typ, name=name)
    value.type = PTR
    return value


def _declare(module: ir.Module, name: str, ftype: ir.FunctionType) -> ir.Function:
    """Get or declare an external function in ``module``."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ir.Function(module, ftype, name=name)
