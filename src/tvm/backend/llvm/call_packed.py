"""``T.call_packed("f", args...)`` in host code: a call through the TVM-FFI packed ABI.

What TVM's ``LowerTVMBuiltin`` + ``CodeGenCPU`` do for ``tvm_call_packed``, written directly
as LLVM IR by the code generator (the host launchers ``SplitHostDevice`` makes call their
kernels this way, ``T.call_packed("main_kernel", A.data, n, grid_x, block_x)``):

1. the arguments are stored in a ``TVMFFIAny`` array on the stack (16 bytes each: ``i32``
   type index, ``u32`` padding, 8-byte value): a handle as ``kTVMFFIOpaquePtr`` (4), an
   integer as ``kTVMFFIInt`` (1, sign- or zero-extended to 64 bits), a bool as
   ``kTVMFFIBool`` (2), a float as ``kTVMFFIFloat`` (3, as a double);
2. the callee's ``TVMFFIObjectHandle`` is read from a module global, the *callee slot*
   ``@"__pytvm_callee.<token>.<name>"``, which :func:`link_callees` fills after the module
   is loaded: with ``<name>`` from the modules imported into it (the CUDA module's kernel
   launchers), else the global function ``<name>``. An empty slot raises ``RuntimeError``
   naming the function;
3. ``TVMFFIFunctionCall(handle, args, nargs, result)``; a nonzero return (the callee raised)
   returns it at once, so the error set by the callee reaches the caller.

``<token>`` is the function attribute ``tirx.device_module_hash`` (the driver sets it to a
hash of the device code of the build), so two builds whose host code is the same but whose
kernels differ never share a slot, even when the JIT cache hands out one engine for both.
The result value is ignored: the callee must return None or a POD value (the launchers do).
"""

from __future__ import annotations

import re

from ...tirx import expr as E
from . import irtext as ir
from .codegen_expr import I8, I32, I64, PTR

__all__ = ["SLOT_PREFIX", "emit_call_packed", "emit_stack_alloca", "link_callees", "slot_name"]

SLOT_PREFIX = "__pytvm_callee."
_CALL = "TVMFFIFunctionCall"
_ANY_BYTES = 16
_TYPE_INT, _TYPE_BOOL, _TYPE_FLOAT, _TYPE_OPAQUE_PTR = 1, 2, 3, 4
_F64 = ir.DoubleType()


def slot_name(token: str, callee: str) -> str:
    """The global holding the handle of ``callee`` for host code marked with ``token``."""
    return f"{SLOT_PREFIX}{token}.{callee}"


def _entry_alloca(cg, nbytes: int, name: str):
    """An 8-byte aligned stack buffer of ``nbytes`` in the function's entry block."""
    here = cg.builder.block
    entry_builder = ir.IRBuilder(cg._entry)
    first = cg._entry.instructions[0] if cg._entry.instructions else None
    if first is not None:
        entry_builder.position_before(first)
    ptr = entry_builder.alloca(I8, size=ir.Constant(I64, nbytes), name=name)
    ptr.align = 8
    cg.builder.position_at_end(here)
    return ptr


def _slot(cg, name: str):
    token = cg.callee_token or "0"
    symbol = slot_name(token, name)
    existing = cg.module.globals.get(symbol)
    if existing is not None:
        return existing
    var = ir.GlobalVariable(cg.module, PTR, symbol)
    var.initializer = ir.Constant(PTR, None)
    var.align = 8
    return var


def _store(b, value, ptr, align: int):
    # llvmlite checks the pointee type of stores; the cast is a no-op in LLVM IR.
    b.store(value, b.bitcast(ptr, value.type.as_pointer()), align=align)


def _store_arg(cg, base, value, dtype: str, where: str):
    b = cg.builder
    code = dtype.split("x")[0] if "x" in dtype and not dtype.startswith("handle") else dtype
    if code != dtype:
        raise ValueError(f"{where}: vector argument of dtype {dtype} is not supported")
    value_ptr = b.gep(base, [ir.Constant(I64, 8)], source_etype=I8)
    if dtype == "handle" or dtype.startswith("handle"):
        type_index = _TYPE_OPAQUE_PTR
        _store(b, b.ptrtoint(value, I64), value_ptr, 8)
    elif dtype == "bool":
        type_index = _TYPE_BOOL
        _store(b, b.zext(value, I64), value_ptr, 8)
    elif dtype.startswith(("int", "uint")):
        type_index = _TYPE_INT
        bits = value.type.width
        if bits < 64:
            value = b.zext(value, I64) if dtype.startswith("uint") else b.sext(value, I64)
        _store(b, value, value_ptr, 8)
    elif dtype.startswith("float") and dtype in ("float16", "float32", "float64"):
        type_index = _TYPE_FLOAT
        if dtype != "float64":
            value = b.fpext(value, _F64)
        _store(b, value, value_ptr, 8)
    else:
        raise ValueError(f"{where}: argument of dtype {dtype} is not supported")
    _store(b, ir.Constant(I32, type_index), base, 8)
    _store(b, ir.Constant(I32, 0), b.gep(base, [ir.Constant(I64, 4)], source_etype=I8), 4)


def emit_call_packed(cg, op: E.Call):
    """Emit ``tvm_call_packed(name, args...)`` (see the module docstring); returns i32 0."""
    if not op.args or not isinstance(op.args[0], E.StringImm):
        raise ValueError(f"tvm_call_packed in function {cg.func_name}: the first argument "
                         "must be the callee's name (a string)")
    name = op.args[0].value
    where = f"T.call_packed({name!r}) in function {cg.func_name}"
    args = op.args[1:]
    values = [cg.emit_expr(a) for a in args]
    b = cg.builder
    array = _entry_alloca(cg, max(1, len(args)) * _ANY_BYTES, "packed_args")
    result = _entry_alloca(cg, _ANY_BYTES, "packed_ret")
    for index, (arg, value) in enumerate(zip(args, values)):
        base = b.gep(array, [ir.Constant(I64, index * _ANY_BYTES)], source_etype=I8)
        _store_arg(cg, base, value, str(arg.dtype), where)
    _store(b, ir.Constant(I64, 0), result, 8)  # kTVMFFINone, no padding
    _store(b, ir.Constant(I64, 0), b.gep(result, [ir.Constant(I64, 8)], source_etype=I8), 8)
    handle = b.load(_slot(cg, name), typ=PTR, align=8)
    with b.if_then(b.icmp_unsigned("==", handle, ir.Constant(PTR, None)), likely=False):
        cg._raise("RuntimeError",
                  f"{where}: no function '{name}' is linked: neither a module imported "
                  "into this one nor a global function provides it")
    call = cg._declare(_CALL, ir.FunctionType(I32, [PTR, PTR, I32, PTR]))
    status = b.call(call, [handle, array, ir.Constant(I32, len(args)), result])
    cg._return_on_error(status)
    return ir.Constant(I32, 0)


#: Bytes and alignment of one ``T.tvm_stack_alloca("tensormap", n)`` slot (a CUtensorMap).
_TENSOR_MAP_BYTES, _TENSOR_MAP_ALIGN = 128, 64


def emit_stack_alloca(cg, op: E.Call):
    """``T.tvm_stack_alloca("tensormap", n)`` on the host: ``n`` 64-byte aligned 128-byte
    ``CUtensorMap`` buffers in the function's entry block (what a TMA copy's descriptor is
    encoded into before the kernel launch). Other slot kinds are lowered by MakePackedAPI's
    own packing and are not expected here."""
    kind = op.args[0].value if isinstance(op.args[0], E.StringImm) else None
    count = op.args[1]
    if kind != "tensormap" or not isinstance(count, E.IntImm):
        raise ValueError(
            f"tvm_stack_alloca({kind!r}, {count}) in function {cg.func_name}: the LLVM host "
            "code generator supports only tvm_stack_alloca('tensormap', <constant>)")
    here = cg.builder.block
    entry_builder = ir.IRBuilder(cg._entry)
    first = cg._entry.instructions[0] if cg._entry.instructions else None
    if first is not None:
        entry_builder.position_before(first)
    ptr = entry_builder.alloca(I8, size=ir.Constant(I64, _TENSOR_MAP_BYTES * int(count.value)),
                               name="tensormap")
    ptr.align = _TENSOR_MAP_ALIGN
    cg.builder.position_at_end(here)
    return ptr


_SLOT_DEFINITION = re.compile(r'^@"?(' + re.escape(SLOT_PREFIX) + r'[^"\s]+)"? = ', re.MULTILINE)


def slot_symbols(ir_text: str) -> list:
    """The callee slots an LLVM module defines (``[]`` quickly when it has none)."""
    if SLOT_PREFIX not in ir_text:
        return []
    return _SLOT_DEFINITION.findall(ir_text)


def link_callees(symbols, address_of, imports, keep_alive: list) -> list:
    """Fill the callee slots ``symbols`` (their addresses from ``address_of(symbol)``).

    Each callee is looked up in ``imports`` (runtime modules; the first that has it), else
    among the global functions. Its ``tvm_ffi.Function`` is appended to ``keep_alive`` (the
    slot holds a borrowed handle). Returns the names that were not found (slots left empty).
    """
    import ctypes

    import tvm_ffi  # lazy: only when a module with slots is linked

    missing = []
    for symbol in symbols:
        name = symbol[len(SLOT_PREFIX):].split(".", 1)[1]
        func = None
        for module in imports:
            func = getattr(module, "impl", module).get_function(name)
            if func is not None:
                break
        if func is None:
            func = tvm_ffi.get_global_func(name, allow_missing=True)
        if func is None:
            missing.append(name)
            continue
        keep_alive.append(func)
        address = address_of(symbol)
        ctypes.c_void_p.from_address(address).value = func.__chandle__()
    return missing
