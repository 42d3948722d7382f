"""Shared argument-check helpers of the packed-function wrappers (``packed_api``), in llvmlite.

Every wrapper of a module calls the same few internal functions for the parts of a tensor
argument check that do not depend on the parameter's shape: the type index, NULL, ndim, dtype
and device checks (:func:`tensor_head_helper`), then the layout, data pointer and alignment
checks (:func:`tensor_tail_helper`; run by the head helper itself when no inline extent check
comes in between). Error messages are formatted and raised inside them: the helpers own the
formats (``FMT_*``), and a wrapper passes only the pieces (its signature string, shared by
all its checks, the parameter name, the argument index, the expected dtype and device texts).
Why: a full format per check and argument, each repeating the signature, was about half of
the LLVM IR text of a training-step build.

Why: emitted inline into every wrapper, these checks and their error formatting (select chains
naming dtypes, devices and type indices) made up about 80% of the LLVM IR of a Relax build,
and LLVM spent most of its optimization and code generation time on them. As helpers they are
compiled once per module; a wrapper keeps only the per-dimension shape checks inline, because
those bind symbolic variables the body uses. The helpers are ``noinline cold``, so LLVM keeps
them out of line, and the check order and message texts are those of the inline checks.
"""

from __future__ import annotations

import functools
import hashlib
import threading

from ...runtime.data_type import FLOAT8_DTYPES
from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)

I8, I16, I32, I64 = ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
MSG_BYTES = 1024
# TVMFFIAny type indices (tvm_ffi's c_api.h) used by the unpacking code.
TYPE_NONE, TYPE_INT, TYPE_BOOL, TYPE_FLOAT, TYPE_DLTENSOR_PTR, TYPE_TENSOR = 0, 1, 2, 3, 7, 70
# The TVMFFIObject header that precedes the DLTensor inside a tvm_ffi.Tensor object.
OBJECT_HEADER_BYTES = 24
TYPE_NAMES = {
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
DEVICE_NAMES = {
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
DTYPE_PREFIX = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 5: "complex"}

# Flags of tensor_head_helper: check the dtype; check the device type; run the checks of
# tensor_tail_helper at the end (for parameters without inline extent checks); the compact
# layout check of those.
CHECK_DTYPE, CHECK_DEVICE, CHECK_TAIL, CHECK_COMPACT = 1, 2, 4, 8

# The messages of the helpers' checks (Apache TVM 0.27's texts). The helpers own them, so a
# wrapper passes only the pieces: the parameter name, the argument index, the signature it
# shares with all its other checks, and the expected dtype and device texts. The values come
# in message order: the name (not in the type, NULL and alignment messages), the dimension
# (extent message only), the index, the signature, then the expected and actual values. A '%'
# in a name, signature or dtype/device text comes out literally, being a ``%s`` value.
AT = " on argument #%d when calling:\n  `%s`,\n  "
FMT_TYPE = "Mismatched type" + AT + "expected Tensor, got %s"
FMT_NULL = "Mismatched type" + AT + "expected Tensor, got NULL"
FMT_NDIM = "Mismatched %s.ndim" + AT + "expected %d, got %d"
FMT_DTYPE = "Mismatched %s.dtype" + AT + "expected %s, got %s"
FMT_DTYPE_VECTOR = "Mismatched %s.dtype" + AT + "expected %s, got %sx%d"
FMT_DEVICE = "Mismatched %s.device" + AT + "expected %s, got %s (device_type=%d)"
FMT_EXTENT = "Invalid %s.shape[%d]" + AT + "expected %lld, got %lld"
FMT_STRIDES = (
    "Mismatched %s.strides" + AT
    + "expected to be compact array, got strides[%d] = %lld where %lld is compact"
)
FMT_DATA = (
    "Invalid %s.data" + AT + "expected a non-NULL data pointer for a non-empty tensor, got NULL"
)
FMT_ALIGN = (
    "Misaligned Tensor data" + AT + "expected data alignment=%lld byte, got address %% %lld = %lld"
)


def parse_dtype(dtype: str) -> tuple:
    """``(type code, bits, lanes)`` of a dtype name; ``ValueError`` for unknown names."""
    # Lazy import: tvm_ffi's dtype parser is the one the runtime uses for DLPack dtypes.
    import tvm_ffi

    try:
        parsed = tvm_ffi.dtype(dtype)
    except Exception as err:  # tvm_ffi raises its own kinds for unknown names
        raise ValueError(f"unknown dtype '{dtype}'") from err
    return int(parsed.type_code), int(parsed.bits), int(parsed.lanes)


@functools.cache
def named_dtypes() -> dict:
    """``(type code, bits) -> name`` of DLPack dtypes whose code has a fixed meaning."""
    names = ["bool", *FLOAT8_DTYPES, "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
    table = {}
    for name in names:
        try:
            code, bits, _ = parse_dtype(name)
        except ValueError:
            continue  # a tvm_ffi without this dtype
        table[(code, bits)] = name
    return table


def cstr(module: ir.Module, text: str) -> ir.Value:
    """A private constant C string in ``module``; identical texts share one global."""
    data = bytearray(text.encode("utf-8")) + b"\0"
    # A content hash (not hash(), which is salted per process) keeps the IR deterministic.
    key = f"__pytvm_str_{hashlib.sha1(data).hexdigest()[:16]}"
    gv = module.globals.get(key)
    if gv is None:
        gv = ir.GlobalVariable(module, ir.ArrayType(I8, len(data)), name=key)
        gv.linkage, gv.global_constant = "private", True
        gv.initializer = ir.Constant(ir.ArrayType(I8, len(data)), data)
        # llvmlite types globals as typed pointers (`[N x i8]*`); LLVM 15+ only has `ptr`.
        # An opaque type lets strings of different lengths meet in one `select`.
        gv.type = PTR
    return gv


def declare(module: ir.Module, name: str, ftype: ir.FunctionType) -> ir.Function:
    """Get or declare an external function in ``module``."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ir.Function(module, ftype, name=name)


def alloca(builder: ir.IRBuilder, typ: ir.Type, name: str = "") -> ir.Value:
    """``alloca`` returning an opaque ``ptr`` (llvmlite would type it ``T*``, which LLVM 15+
    only accepts as legacy syntax and which llvmlite's ``store``/``select`` then reject)."""
    value = builder.alloca(typ, name=name)
    value.type = PTR
    return value


def _snprintf(module):
    return declare(module, "snprintf", ir.FunctionType(I32, [PTR, I64, PTR], var_arg=True))


def _raise_fn(module):
    return declare(
        module, "TVMFFIErrorSetRaisedFromCStr", ir.FunctionType(ir.VoidType(), [PTR, PTR])
    )


def _helper(module: ir.Module, name: str, ftype: ir.FunctionType, cold: bool = True):
    """Get or add helper ``name`` in ``module``; the 2nd value says whether to build its body.

    In a kernel module the helper is only declared: its definition lives in the runtime
    module of :func:`checks_ir`, compiled once per process (and cached on disk), so no build
    pays for compiling it again. Error-only helpers are ``cold``; helpers on the checked path
    must not be: a call of a cold function tells LLVM that the code around it rarely runs.
    """
    existing = module.globals.get(name)
    if existing is not None:
        return existing, False
    fn = ir.Function(module, ftype, name=name)
    if cold:
        fn.attributes.add("cold")
    define = getattr(module, "_pytvm_define_checks", None)
    if define is None:
        return fn, False  # a declaration
    fn.attributes.add("noinline")
    if cold:
        # Error paths only: not worth LLVM's optimization time (this module is compiled
        # in every process with a cold disk cache).
        fn.attributes.add("optnone")
    return fn, True


# The runtime helpers, by symbol: a kernel module declares the ones it calls.
CHECK_SYMBOLS = (
    "__pytvm_type_name",
    "__pytvm_device_name",
    "__pytvm_dtype_error",
    "__pytvm_tensor_head",
    "__pytvm_tensor_tail",
    "__pytvm_raise",
    "__pytvm_raise_str",
)


def checks_ir() -> str:
    """LLVM IR text defining every helper of :data:`CHECK_SYMBOLS` (external linkage).

    The JIT compiles it once per process; an exported object gets its own internal copy
    (``jit.LLVMModuleImpl._linked_module``).
    """
    module = ir.Module("pytvm_checks")
    module._pytvm_define_checks = True
    name_helper(module, "__pytvm_type_name", TYPE_NAMES, "Object")
    name_helper(module, "__pytvm_device_name", DEVICE_NAMES, "device_type=?")
    for build in (dtype_error_helper, tensor_head_helper, tensor_tail_helper, raise_helper,
                  raise_str_helper):
        build(module)
    return str(module)


_REGISTER_LOCK = threading.Lock()


@functools.cache
def _register_locked() -> dict:
    # Lazy import: the JIT machinery is only needed when something runs in-process.
    from .disk_cache import jit_runtime_module

    return jit_runtime_module(checks_ir(), "pytvm_checks", CHECK_SYMBOLS)


def register_symbols() -> dict:
    """JIT the helpers once per process and make them resolvable; returns their addresses."""
    with _REGISTER_LOCK:
        return _register_locked()


class _Raiser:
    """Error exits of one helper: each ``fail_if`` formats a message and returns ``on_error``."""

    def __init__(self, fn, builder, on_error):
        self.fn, self.b, self.on_error = fn, builder, on_error
        self.msg = alloca(builder, ir.ArrayType(I8, MSG_BYTES), "msg")

    def fail_block(self):
        """A block that returns ``on_error`` (the error was raised already)."""
        block = self.fn.append_basic_block("failed")
        ir.IRBuilder(block).ret(self.on_error)
        return block

    def fail_if(self, cond, kind: str, fmt: str, *values) -> None:
        """Raise ``kind`` with the message ``fmt % values`` when ``cond`` holds; else go on.

        A callable value is called inside the error block (code only the error path needs).
        """
        b = self.b
        fail = self.fn.append_basic_block("fail")
        ok = self.fn.append_basic_block("ok")
        b.cbranch(cond, fail, ok)
        b.position_at_end(fail)
        values = [value() if callable(value) else value for value in values]
        module = self.fn.module
        b.call(_snprintf(module),
               [self.msg, ir.Constant(I64, MSG_BYTES), cstr(module, fmt), *values])
        b.call(_raise_fn(module), [cstr(module, kind), self.msg])
        b.ret(self.on_error)
        b.position_at_end(ok)


def name_helper(module, name: str, table: dict, default: str):
    """``const char* name(i32 code)``: the text of ``table[code]``, else ``default``."""
    fn, new = _helper(module, name, ir.FunctionType(PTR, [I32]))
    if new:
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        result = cstr(module, default)
        for code, text in table.items():
            hit = b.icmp_signed("==", fn.args[0], ir.Constant(I32, code))
            result = b.select(hit, cstr(module, text), result)
        b.ret(result)
    return fn


def type_name(module, builder, type_index) -> ir.Value:
    """A ``const char*`` naming a TVMFFIAny type index."""
    return builder.call(name_helper(module, "__pytvm_type_name", TYPE_NAMES, "Object"), [type_index])


def dtype_error_helper(module):
    """``void f(msg, name, i32 index, sig, expected, code, bits, lanes)``: the dtype TypeError.

    Formats the actual dtype (``float32``, ``float32x4``...) into :data:`FMT_DTYPE` (or
    :data:`FMT_DTYPE_VECTOR` when ``lanes != 1``) after the parameter ``name``, the argument
    ``index``, the signature ``sig`` and the ``expected`` dtype text; writes the message into
    ``msg`` and raises it.
    """
    ftype = ir.FunctionType(ir.VoidType(), [PTR, PTR, I32, PTR, PTR, I8, I8, I16])
    fn, new = _helper(module, "__pytvm_dtype_error", ftype)
    if not new:
        return fn
    msg, param, index, sig, expected, code, bits, lanes = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    dtype_text = alloca(b, ir.ArrayType(I8, 64), "dtype_text")
    # Format the actual dtype: "<prefix><bits>" for int/uint/float/bfloat/..., the exact
    # name for codes with fixed meanings (bool, the float8/6/4 kinds), else the numbers;
    # then "x<lanes>" for vectors. Arguments (text, bits, code) suit all three formats.
    generic = b.icmp_unsigned("<=", code, ir.Constant(I8, max(DTYPE_PREFIX)))
    text_arg = cstr(module, "")
    for c, prefix in DTYPE_PREFIX.items():
        hit = b.icmp_unsigned("==", code, ir.Constant(I8, c))
        text_arg = b.select(hit, cstr(module, prefix), text_arg)
    fmt = b.select(generic, cstr(module, "%s%d"), cstr(module, "dtype%s(bits=%d, code=%d)"))
    for (c, nbits), name in named_dtypes().items():
        hit = b.and_(
            b.icmp_unsigned("==", code, ir.Constant(I8, c)),
            b.icmp_unsigned("==", bits, ir.Constant(I8, nbits)),
        )
        text_arg = b.select(hit, cstr(module, name), text_arg)
        fmt = b.select(hit, cstr(module, "%s"), fmt)
    snprintf = _snprintf(module)
    b.call(snprintf, [dtype_text, ir.Constant(I64, 64), fmt, text_arg, b.zext(bits, I32),
                      b.zext(code, I32)])
    text = b.select(b.icmp_unsigned("!=", lanes, ir.Constant(I16, 1)),
                    cstr(module, FMT_DTYPE_VECTOR), cstr(module, FMT_DTYPE))
    b.call(snprintf, [msg, ir.Constant(I64, MSG_BYTES), text, param, index, sig, expected,
                      dtype_text, b.zext(lanes, I32)])
    b.call(_raise_fn(module), [cstr(module, "TypeError"), msg])
    b.ret_void()
    return fn


def static_dims(module: ir.Module, dims) -> ir.Value:
    """A private constant ``i64`` array of expected extents (-1: not checked by the helper)."""
    values = [d if isinstance(d, int) else -1 for d in dims]
    key = "__pytvm_dims_" + "_".join(str(v).replace("-", "m") for v in values)
    gv = module.globals.get(key)
    if gv is None:
        typ = ir.ArrayType(I64, len(values))
        gv = ir.GlobalVariable(module, typ, name=key)
        gv.linkage, gv.global_constant = "private", True
        gv.initializer = ir.Constant(typ, values)
        gv.type = PTR
    return gv


def tensor_head_helper(module):
    """``ptr head(slot, ndim, code, bits, lanes, device, flags, dims, sig, name, i32 index,
    dtype_text, device_text, i64 alignment)``: the first checks of a tensor argument.

    ``slot`` is the argument's ``TVMFFIAny*``. Checks, in order: the type index (Tensor or
    DLTensor*), NULL, ndim, dtype (when ``flags & CHECK_DTYPE``), device type (when ``flags
    & CHECK_DEVICE``), then, when ``dims`` is not NULL, every extent ``dims[d] >= 0`` (see
    :func:`static_dims`), then, when ``flags & CHECK_TAIL``, those of
    :func:`tensor_tail_helper` (compact layout when ``flags & CHECK_COMPACT``; data pointer;
    ``alignment``). Returns the ``DLTensor*``, or NULL after raising the error. The
    messages are the ``FMT_*`` texts, with the signature ``sig``, the parameter ``name``, the
    argument ``index`` and the expected ``dtype_text`` and ``device_text`` (``"float32"``,
    ``"cpu"``; unused, and may be NULL, when the flags skip their check).
    """
    ftype = ir.FunctionType(
        PTR, [PTR, I32, I8, I8, I16, I32, I32, PTR, PTR, PTR, I32, PTR, PTR, I64])
    fn, new = _helper(module, "__pytvm_tensor_head", ftype, cold=False)
    if not new:
        return fn
    slot, ndim, code, bits, lanes, device, flags, dims = fn.args[:8]
    sig, name, index, dtype_text, device_text, alignment = fn.args[8:]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    raiser = _Raiser(fn, b, ir.Constant(PTR, None))
    type_index = b.load(slot, typ=I32)
    is_tensor = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_TENSOR))
    is_handle = b.icmp_signed("==", type_index, ir.Constant(I32, TYPE_DLTENSOR_PTR))
    raiser.fail_if(b.not_(b.or_(is_tensor, is_handle)), "TypeError", FMT_TYPE, index, sig,
                   lambda: type_name(module, b, type_index))
    raw = b.load(b.gep(slot, [ir.Constant(I64, 8)], source_etype=I8), typ=PTR)
    raiser.fail_if(b.icmp_unsigned("==", raw, ir.Constant(PTR, None)), "TypeError", FMT_NULL,
                   index, sig)
    header = b.gep(raw, [ir.Constant(I64, OBJECT_HEADER_BYTES)], source_etype=I8)
    dl = b.select(is_tensor, header, raw)

    def field(offset, typ):
        return b.load(b.gep(dl, [ir.Constant(I64, offset)], source_etype=I8), typ=typ)

    actual_ndim = field(16, I32)
    raiser.fail_if(b.icmp_signed("!=", actual_ndim, ndim), "ValueError", FMT_NDIM, name, index,
                   sig, ndim, actual_ndim)
    # dtype, when asked.
    check = fn.append_basic_block("check_dtype")
    after = fn.append_basic_block("after_dtype")
    want = b.icmp_unsigned("!=", b.and_(flags, ir.Constant(I32, CHECK_DTYPE)), ir.Constant(I32, 0))
    b.cbranch(want, check, after)
    b.position_at_end(check)
    a_code, a_bits, a_lanes = field(20, I8), field(21, I8), field(22, I16)
    bad = b.or_(
        b.icmp_unsigned("!=", a_code, code),
        b.or_(b.icmp_unsigned("!=", a_bits, bits), b.icmp_unsigned("!=", a_lanes, lanes)),
    )
    fail = fn.append_basic_block("fail")
    b.cbranch(bad, fail, after)
    b.position_at_end(fail)
    b.call(dtype_error_helper(module),
           [raiser.msg, name, index, sig, dtype_text, a_code, a_bits, a_lanes])
    b.ret(ir.Constant(PTR, None))
    # device type, when asked.
    b.position_at_end(after)
    check = fn.append_basic_block("check_device")
    done = fn.append_basic_block("done")
    want = b.icmp_unsigned("!=", b.and_(flags, ir.Constant(I32, CHECK_DEVICE)), ir.Constant(I32, 0))
    b.cbranch(want, check, done)
    b.position_at_end(check)
    actual = field(8, I32)
    names = name_helper(module, "__pytvm_device_name", DEVICE_NAMES, "device_type=?")
    raiser.fail_if(b.icmp_signed("!=", actual, device), "ValueError", FMT_DEVICE, name, index,
                   sig, device_text, lambda: b.call(names, [actual]), actual)
    b.branch(done)
    # Static extents, in dimension order, when asked.
    b.position_at_end(done)
    ret = fn.append_basic_block("ret")
    loop = fn.append_basic_block("extent_loop")
    body = fn.append_basic_block("extent_body")
    check = fn.append_basic_block("extent_check")
    b.cbranch(b.icmp_unsigned("==", dims, ir.Constant(PTR, None)), ret, loop)
    b.position_at_end(loop)
    d = b.phi(I32)
    d.add_incoming(ir.Constant(I32, 0), done)
    b.cbranch(b.icmp_signed("<", d, ndim), body, ret)
    b.position_at_end(body)
    shape = field(24, PTR)
    d64 = b.sext(d, I64)
    want = b.load(b.gep(dims, [d64], source_etype=I64), typ=I64)
    got = b.load(b.gep(shape, [d64], source_etype=I64), typ=I64)
    bad = b.and_(b.icmp_signed(">=", want, ir.Constant(I64, 0)), b.icmp_signed("!=", got, want))
    raiser.fail_if(bad, "ValueError", FMT_EXTENT, name, d, index, sig, want, got)
    b.branch(check)
    b.position_at_end(check)
    d.add_incoming(b.add(d, ir.Constant(I32, 1)), check)
    b.branch(loop)
    # The layout, data pointer and alignment checks, when asked.
    b.position_at_end(ret)
    tail = fn.append_basic_block("tail")
    done = fn.append_basic_block("checked")
    want = b.icmp_unsigned("!=", b.and_(flags, ir.Constant(I32, CHECK_TAIL)), ir.Constant(I32, 0))
    b.cbranch(want, tail, done)
    b.position_at_end(tail)
    compact = b.zext(b.icmp_unsigned("!=", b.and_(flags, ir.Constant(I32, CHECK_COMPACT)),
                                      ir.Constant(I32, 0)), I32)
    status = b.call(tensor_tail_helper(module), [dl, compact, alignment, sig, name, index])
    b.cbranch(b.icmp_signed("!=", status, ir.Constant(I32, 0)), raiser.fail_block(), done)
    b.position_at_end(done)
    b.ret(dl)
    return fn


def tensor_tail_helper(module):
    """``i32 tail(dl, compact, alignment, sig, name, i32 index)``: the last checks.

    Checks, in order: a compact row-major layout when ``compact`` is nonzero (NULL strides
    are compact; a dimension of extent 1 may have any stride; an empty tensor has no layout;
    the first bad dimension is reported, :data:`FMT_STRIDES`), a non-NULL data pointer for a
    non-empty tensor (:data:`FMT_DATA`), and the alignment of the data pointer plus
    ``byte_offset`` when ``alignment > 1`` (:data:`FMT_ALIGN`). The messages name the
    parameter ``name``, the argument ``index`` and the signature ``sig``. Returns 0, or -1
    after raising the error.
    """
    ftype = ir.FunctionType(I32, [PTR, I32, I64, PTR, PTR, I32])
    fn, new = _helper(module, "__pytvm_tensor_tail", ftype, cold=False)
    if not new:
        return fn
    dl, compact, alignment, sig, name, index = fn.args
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    raiser = _Raiser(fn, b, ir.Constant(I32, -1))
    ndim = b.sext(b.load(b.gep(dl, [ir.Constant(I64, 16)], source_etype=I8), typ=I32), I64)
    shape = b.load(b.gep(dl, [ir.Constant(I64, 24)], source_etype=I8), typ=PTR)
    strides = b.load(b.gep(dl, [ir.Constant(I64, 32)], source_etype=I8), typ=PTR)
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    # Walk the dimensions from the last one: the running product is the compact stride of
    # each and, at the end, the element count. The lowest bad dimension is the one reported.
    loop, body, end = (fn.append_basic_block(n) for n in ("loop", "body", "end"))
    b.branch(loop)
    b.position_at_end(loop)
    dim = b.phi(I64)
    running = b.phi(I64)
    bad_dim = b.phi(I64)
    bad_value = b.phi(I64)
    bad_compact = b.phi(I64)
    for phi, init in ((dim, ndim), (running, one), (bad_dim, ir.Constant(I64, -1)),
                      (bad_value, zero), (bad_compact, zero)):
        phi.add_incoming(init, entry)
    b.cbranch(b.icmp_signed(">", dim, zero), body, end)
    b.position_at_end(body)
    d = b.sub(dim, one)
    extent = b.load(b.gep(shape, [d], source_etype=I64), typ=I64)
    has_strides = b.icmp_unsigned("!=", strides, ir.Constant(PTR, None))
    # Loads are guarded by a select on a safe address so that NULL strides are never read.
    safe = b.select(has_strides, strides, shape)
    stride = b.select(has_strides, b.load(b.gep(safe, [d], source_etype=I64), typ=I64), running)
    bad = b.and_(b.icmp_signed("!=", stride, running), b.icmp_signed("!=", extent, one))
    new_running = b.mul(running, extent)
    for phi, value in ((dim, d), (running, new_running), (bad_dim, b.select(bad, d, bad_dim)),
                       (bad_value, b.select(bad, stride, bad_value)),
                       (bad_compact, b.select(bad, running, bad_compact))):
        phi.add_incoming(value, body)
    b.branch(loop)
    b.position_at_end(end)
    nonempty = b.icmp_signed("!=", running, zero)
    layout_bad = b.and_(
        b.and_(b.icmp_unsigned("!=", compact, ir.Constant(I32, 0)), nonempty),
        b.icmp_signed(">=", bad_dim, zero),
    )
    raiser.fail_if(layout_bad, "ValueError", FMT_STRIDES, name, index, sig,
                   lambda: b.trunc(bad_dim, I32), bad_value, bad_compact)
    data = b.load(dl, typ=PTR)
    raiser.fail_if(
        b.and_(b.icmp_unsigned("==", data, ir.Constant(PTR, None)), nonempty),
        "ValueError",
        FMT_DATA,
        name,
        index,
        sig,
    )
    offset = b.load(b.gep(dl, [ir.Constant(I64, 40)], source_etype=I8), typ=I64)
    address = b.add(b.ptrtoint(data, I64), offset)
    misaligned = b.and_(address, b.sub(alignment, one))
    raiser.fail_if(b.icmp_unsigned("!=", misaligned, zero), "ValueError", FMT_ALIGN, index, sig,
                   alignment, alignment, misaligned)
    b.ret(ir.Constant(I32, 0))
    return fn


def raise_helper(module):
    """``void raise(kind, fmt, sig, i64 a, i64 b)``: format and raise an error.

    ``fmt`` takes the signature ``sig`` (``%s``), then up to two ``%lld`` values.
    """
    ftype = ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, I64, I64])
    fn, new = _helper(module, "__pytvm_raise", ftype)
    if new:
        kind, fmt, sig, a, c = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        msg = alloca(b, ir.ArrayType(I8, MSG_BYTES), "msg")
        # Extra arguments are ignored by snprintf (C11 7.21.6.1p2).
        b.call(_snprintf(module), [msg, ir.Constant(I64, MSG_BYTES), fmt, sig, a, c])
        b.call(_raise_fn(module), [kind, msg])
        b.ret_void()
    return fn


def raise_str_helper(module):
    """``void raise_str(kind, fmt, sig, text)``: format (``%s``: ``sig``, then ``%s``:
    ``text``) and raise an error."""
    ftype = ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, PTR])
    fn, new = _helper(module, "__pytvm_raise_str", ftype)
    if new:
        kind, fmt, sig, text = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        msg = alloca(b, ir.ArrayType(I8, MSG_BYTES), "msg")
        b.call(_snprintf(module), [msg, ir.Constant(I64, MSG_BYTES), fmt, sig, text])
        b.call(_raise_fn(module), [kind, msg])
        b.ret_void()
    return fn
