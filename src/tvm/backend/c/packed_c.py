"""Packed-function wrappers in C: ``__tvm_ffi_<name>`` unpacks and checks, then calls the body.

The C host target (:mod:`tvm.backend.c`) gives every exported PrimFunc the TVM-FFI packed
signature ``int32_t __tvm_ffi_<name>(void* self_handle, void* args, int32_t num_args,
void* result)``, as the LLVM backend does, with the same checks in the same order and the same
messages: argument count; per tensor the type index (``Tensor`` or ``DLTensor*``), NULL, ndim,
dtype, device type, static and symbolic extents, compact layout and data pointer; per scalar
the type index. The formats are those of the LLVM backend's helpers
(``tvm.backend.llvm.packed_checks.FMT_*``, Apache TVM 0.27's texts with the actual value
appended). A failing check raises ``TypeError`` or ``ValueError`` through
``TVMFFIErrorSetRaisedFromCStr`` and returns -1, so a bad call never reaches the body.

:func:`preamble` is the C text of the helper functions (``static``, one copy per source
file); :func:`packed_signature` derives the parameters from a PrimFunc; :func:`emit_wrapper`
writes one wrapper.
"""

from __future__ import annotations

import dataclasses

from ...tirx import expr as E
from ...tirx.stmt_functor import post_order_visit
from ...tirx.type import is_tensormap_pointer
from ..llvm.packed_checks import (
    DEVICE_NAMES,
    DTYPE_PREFIX,
    FMT_DATA,
    FMT_DEVICE,
    FMT_DTYPE,
    FMT_DTYPE_VECTOR,
    FMT_EXTENT,
    FMT_NDIM,
    FMT_NULL,
    FMT_STRIDES,
    FMT_TYPE,
    MSG_BYTES,
    OBJECT_HEADER_BYTES,
    TYPE_NAMES,
    named_dtypes,
    parse_dtype,
)

__all__ = ["CParam", "c_string", "emit_wrapper", "packed_signature", "preamble"]


def c_string(text: str) -> str:
    """``text`` as a C string literal (escapes quotes, backslashes and control characters)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif code < 32 or code == 127:
            out.append(f"\\{code:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@dataclasses.dataclass
class CParam:
    """One parameter of a packed function as the C wrapper sees it.

    ``kind`` is ``"tensor"`` or ``"scalar"``; ``shape`` holds per dimension an int (static),
    a variable name (symbolic) or None (an expression, checked after unpacking, its text in
    ``dim_texts``); ``compact`` is False for a buffer with explicit strides.
    """

    name: str
    kind: str
    dtype: str
    shape: tuple = ()
    compact: bool = True
    device_type: int = 1
    dim_texts: tuple = ()

    def type_text(self) -> str:
        """The parameter's type in error messages: ``Tensor([n, 8], float32)`` or ``int32``."""
        if self.kind == "scalar":
            return self.dtype
        texts = self.dim_texts or (None,) * len(self.shape)
        dims = ", ".join((t or "?") if d is None else str(d) for d, t in zip(self.shape, texts))
        return f"Tensor([{dims}], {self.dtype})"


def signature_text(name: str, params) -> str:
    """The call signature in messages: ``add(A: Tensor([8], float32), x: int32)``."""
    return f"{name}(" + ", ".join(f"{p.name}: {p.type_text()}" for p in params) + ")"


def packed_signature(func, name: str):
    """Parameters of ``func`` and the values its body function takes.

    Returns ``(params, inner_args, dim_checks)``: ``params`` a list of :class:`CParam`;
    ``inner_args`` a list of ``(kind, var, source)`` with kind ``"data"`` (source: tensor
    name), ``"shape"``/``"stride"`` (source: ``(tensor name, dim)``) or ``"scalar"``
    (source: parameter name), one per variable the body needs, in order (a variable bound
    twice appears twice: the wrapper checks the two sources agree); ``dim_checks`` a list of
    ``(extent expression, tensor name, dim)`` for extents that are expressions.
    """
    params, inner_args, dim_checks, seen, used = [], [], [], set(), set()
    device_type = int(func.get_attr("tirx.arg_device_type") or 1)

    def unique(base):
        # Parameter names appear in messages and must differ (te may repeat them).
        candidate, k = base, 0
        while candidate in used:
            k += 1
            candidate = f"{base}_{k}"
        used.add(candidate)
        return candidate

    for p in func.param_vars:
        buf = func.buffer_map.get(p)
        if buf is None:
            if p.dtype == "handle" and not is_tensormap_pointer(p.type_annotation):
                raise ValueError(
                    f"function {name}: handle parameter {p.name} has no buffer_map entry; raw "
                    "pointer parameters of exported functions are not supported by the C "
                    "target yet"
                )
            sname = unique(p.name)
            params.append(CParam(sname, "scalar", str(p.dtype)))
            inner_args.append(("scalar", p, sname))
            continue
        tname = unique(p.name)
        shape, texts = [], []
        for dim, extent in enumerate(buf.shape):
            texts.append(None if isinstance(extent, (E.IntImm, E.Var)) else str(extent))
            if isinstance(extent, E.IntImm):
                shape.append(int(extent.value))
            elif isinstance(extent, E.Var):
                shape.append(extent.name)
                if id(extent) not in seen:
                    seen.add(id(extent))
                    inner_args.append(("shape", extent, (tname, dim)))
            else:
                shape.append(None)
                dim_checks.append((extent, tname, dim))
        compact = not buf.strides
        for dim, stride in enumerate(buf.strides or ()):
            if isinstance(stride, E.Var) and id(stride) not in seen:
                seen.add(id(stride))
                inner_args.append(("stride", stride, (tname, dim)))
            elif not isinstance(stride, (E.Var, E.IntImm)):
                raise ValueError(
                    f"function {name}: parameter {tname} has the compound stride {stride}; "
                    "only constants and variables are supported"
                )
        offset = buf.elem_offset
        if offset is not None and not (isinstance(offset, E.IntImm) and offset.value == 0):
            raise ValueError(
                f"function {name}: parameter {tname} has elem_offset {offset}; offset buffer "
                "parameters are not supported yet"
            )
        params.append(CParam(tname, "tensor", str(buf.dtype), tuple(shape), compact,
                             device_type, tuple(texts) if any(texts) else ()))
        inner_args.append(("data", buf.data, tname))
    bound = {id(v) for kind, v, _ in inner_args if kind != "data"}
    for extent, tname, dim in dim_checks:
        free = []
        post_order_visit(extent, lambda n, free=free: free.append(n)
                         if isinstance(n, E.Var) else None)
        for var in free:
            if id(var) not in bound:
                raise ValueError(
                    f"function {name}: parameter {tname} has shape[{dim}] = {extent}, but "
                    f"{var.name} is not bound by a plain dimension or scalar parameter"
                )
    return params, inner_args, dim_checks


def _name_switch(fn: str, table: dict, default: str) -> str:
    cases = "".join(f"    case {k}: return {c_string(v)};\n" for k, v in sorted(table.items()))
    return (f"static const char* {fn}(int32_t value) {{\n  switch (value) {{\n{cases}"
            f"    default: return {c_string(default)};\n  }}\n}}\n")


def preamble() -> str:
    """The helper functions every wrapper of a C source file calls (``static``)."""
    prefixes = "".join(f"    case {c}: prefix = {c_string(p)}; break;\n"
                       for c, p in sorted(DTYPE_PREFIX.items()))
    named = "".join(f"  if (code == {c} && bits == {b}) {{ snprintf(out, size, \"%s\", "
                    f"{c_string(n)}); return; }}\n" for (c, b), n in named_dtypes().items())
    return f"""\
#define PYTVM_MSG_BYTES {MSG_BYTES}
{_name_switch("pytvm_type_name", TYPE_NAMES, "Object")}
{_name_switch("pytvm_device_name", DEVICE_NAMES, "device_type=?")}
static void pytvm_raise(const char* kind, const char* fmt, const char* sig, long long a,
                        long long b) {{
  char msg[PYTVM_MSG_BYTES];
  snprintf(msg, sizeof(msg), fmt, sig, a, b);
  TVMFFIErrorSetRaisedFromCStr(kind, msg);
}}

static void pytvm_raise_str(const char* kind, const char* fmt, const char* sig,
                            const char* text) {{
  char msg[PYTVM_MSG_BYTES];
  snprintf(msg, sizeof(msg), fmt, sig, text);
  TVMFFIErrorSetRaisedFromCStr(kind, msg);
}}

static void pytvm_dtype_text(char* out, size_t size, int code, int bits) {{
  const char* prefix = NULL;
{named}  switch (code) {{
{prefixes}    default: break;
  }}
  if (prefix != NULL) {{
    snprintf(out, size, "%s%d", prefix, bits);
  }} else {{
    snprintf(out, size, "dtype(bits=%d, code=%d)", bits, code);
  }}
}}

/* Layout (compact row-major when `compact`), then the data pointer of a non-empty tensor. */
static int32_t pytvm_tensor_tail(DLTensor* dl, int compact, const char* sig, const char* name,
                                 int32_t index) {{
  char msg[PYTVM_MSG_BYTES];
  int64_t running = 1, bad_dim = -1, bad_value = 0, bad_compact = 0;
  for (int32_t d = dl->ndim - 1; d >= 0; --d) {{
    int64_t extent = dl->shape[d];
    int64_t stride = dl->strides != NULL ? dl->strides[d] : running;
    if (stride != running && extent != 1) {{
      bad_dim = d;
      bad_value = stride;
      bad_compact = running;
    }}
    running *= extent;
  }}
  if (compact && running != 0 && bad_dim >= 0) {{
    snprintf(msg, sizeof(msg), {c_string(FMT_STRIDES)}, name, index, sig, (int)bad_dim,
             (long long)bad_value, (long long)bad_compact);
    TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
    return -1;
  }}
  if (dl->data == NULL && running != 0) {{
    snprintf(msg, sizeof(msg), {c_string(FMT_DATA)}, name, index, sig);
    TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
    return -1;
  }}
  return 0;
}}

/* Type index, NULL, ndim, dtype (code >= 0), device type (device > 0), then the static
   extents of `dims` (entries >= 0; NULL: none) and, when `tail`, pytvm_tensor_tail. */
static DLTensor* pytvm_tensor_head(TVMFFIAny* slot, int32_t ndim, int code, int bits,
                                   int lanes, int32_t device, const int64_t* dims, int tail,
                                   int compact, const char* sig, const char* name,
                                   int32_t index, const char* dtype_text,
                                   const char* device_text) {{
  char msg[PYTVM_MSG_BYTES];
  DLTensor* dl;
  if (slot->type_index == kTVMFFITensor) {{
    if (slot->v_obj == NULL) goto null_tensor;
    dl = (DLTensor*)((char*)slot->v_obj + {OBJECT_HEADER_BYTES});
  }} else if (slot->type_index == kTVMFFIDLTensorPtr) {{
    if (slot->v_ptr == NULL) goto null_tensor;
    dl = (DLTensor*)slot->v_ptr;
  }} else {{
    snprintf(msg, sizeof(msg), {c_string(FMT_TYPE)}, index, sig,
             pytvm_type_name(slot->type_index));
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
    return NULL;
  }}
  if (dl->ndim != ndim) {{
    snprintf(msg, sizeof(msg), {c_string(FMT_NDIM)}, name, index, sig, (int)ndim,
             (int)dl->ndim);
    TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
    return NULL;
  }}
  if (code >= 0 && (dl->dtype.code != code || dl->dtype.bits != bits ||
                    dl->dtype.lanes != lanes)) {{
    char actual[64];
    pytvm_dtype_text(actual, sizeof(actual), dl->dtype.code, dl->dtype.bits);
    if (dl->dtype.lanes != 1) {{
      snprintf(msg, sizeof(msg), {c_string(FMT_DTYPE_VECTOR)}, name, index, sig, dtype_text,
               actual, (int)dl->dtype.lanes);
    }} else {{
      snprintf(msg, sizeof(msg), {c_string(FMT_DTYPE)}, name, index, sig, dtype_text, actual);
    }}
    TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
    return NULL;
  }}
  if (device > 0 && dl->device.device_type != device) {{
    snprintf(msg, sizeof(msg), {c_string(FMT_DEVICE)}, name, index, sig, device_text,
             pytvm_device_name(dl->device.device_type), (int)dl->device.device_type);
    TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
    return NULL;
  }}
  if (dims != NULL) {{
    for (int32_t d = 0; d < ndim; ++d) {{
      if (dims[d] >= 0 && dl->shape[d] != dims[d]) {{
        snprintf(msg, sizeof(msg), {c_string(FMT_EXTENT)}, name, (int)d, index, sig,
                 (long long)dims[d], (long long)dl->shape[d]);
        TVMFFIErrorSetRaisedFromCStr("ValueError", msg);
        return NULL;
      }}
    }}
  }}
  if (tail && pytvm_tensor_tail(dl, compact, sig, name, index) != 0) return NULL;
  return dl;
null_tensor:
  snprintf(msg, sizeof(msg), {c_string(FMT_NULL)}, index, sig);
  TVMFFIErrorSetRaisedFromCStr("TypeError", msg);
  return NULL;
}}
"""


def _escape(text: str) -> str:
    return text.replace("%", "%%")


def _where(index: int, what: str) -> str:
    return f"{_escape(what)} on argument #{index} when calling:\n  `%s`,\n  "


def emit_wrapper(name: str, params, call_body, extra_checks=None) -> list:
    """Lines of the C function ``__tvm_ffi_<name>`` (see the module doc).

    ``call_body(values)`` returns the C expression (an ``int32_t`` status) that runs the body;
    ``values`` maps ``("data", tensor)``, ``("shape", (tensor, dim))``, ``("stride", (tensor,
    dim))`` and ``("scalar", name)`` to C expressions of the unpacked values, and
    ``"result"`` to the ``TVMFFIAny*`` result slot. ``extra_checks(values)``, when given,
    returns lines of further checks that run after unpacking, before the body.
    """
    sig = signature_text(name, params)
    lines = [
        (f"int32_t __tvm_ffi_{name}(void* self_handle, void* args, int32_t num_args, "
        "void* result) {"),
        f"  static const char sig[] = {c_string(sig)};",
        "  TVMFFIAny* slots = (TVMFFIAny*)args;",
        "  (void)self_handle; (void)slots;",
    ]
    n = len(params)
    count_fmt = (f"Expected {n} argument{'s' if n != 1 else ''} when calling:\n  `%s`,\n"
                 "  got %lld")
    lines += [
        f"  if (num_args != {n}) {{",
        f"    pytvm_raise(\"TypeError\", {c_string(count_fmt)}, sig, (long long)num_args, 0);",
        "    return -1;",
        "  }",
    ]
    values: dict = {"result": "((TVMFFIAny*)result)"}
    first_dim: dict = {}  # symbolic name -> (C variable, "A.shape[0]")
    for index, p in enumerate(params):
        slot = f"(&slots[{index}])"
        if p.kind == "scalar":
            lines += _unpack_scalar(index, p, slot, values)
        else:
            lines += _unpack_tensor(index, p, slot, values, first_dim)
    if extra_checks is not None:
        lines += extra_checks(values)
    lines.append(f"  return {call_body(values)};")
    lines.append("}")
    return lines


def _fail(cond: str, kind: str, fmt: str, *values: str, indent: str = "  ") -> list:
    args = ", ".join([*(f"(long long)({v})" for v in values), *["0"] * (2 - len(values))])
    return [f"{indent}if ({cond}) {{",
            f"{indent}  pytvm_raise({c_string(kind)}, {c_string(fmt)}, sig, {args});",
            f"{indent}  return -1;", f"{indent}}}"]


def _unpack_scalar(index: int, p: CParam, slot: str, values: dict) -> list:
    var = f"arg{index}"
    where = _where(index, "Mismatched type")
    if p.dtype == "handle":
        fmt = where + "expected void* (an opaque pointer), got %s"
        values[("scalar", p.name)] = var
        return [f"  if ({slot}->type_index != kTVMFFIOpaquePtr) {{",
                (f"    pytvm_raise_str(\"TypeError\", {c_string(fmt)}, sig, "
                f"pytvm_type_name({slot}->type_index));"),
                "    return -1;", "  }", f"  void* {var} = {slot}->v_ptr;"]
    code, bits, _ = parse_dtype(p.dtype)
    accepted = "kTVMFFIInt, kTVMFFIBool" + (", kTVMFFIFloat" if code == 2 else "")
    expected = "float or int" if code == 2 else "int or bool"
    fmt = where + f"expected {'boolean' if code == 6 else p.dtype} ({expected}), got %s"
    tests = " && ".join(f"{slot}->type_index != {t.strip()}" for t in accepted.split(","))
    lines = [f"  if ({tests}) {{",
             (f"    pytvm_raise_str(\"TypeError\", {c_string(fmt)}, sig, "
             f"pytvm_type_name({slot}->type_index));"),
             "    return -1;", "  }"]
    if code == 2:
        ctype = {16: "_Float16", 32: "float", 64: "double"}.get(bits)
        if ctype is None:
            raise ValueError(f"scalar parameter {p.name}: no C type for {p.dtype}")
        lines.append(f"  {ctype} {var} = ({ctype})({slot}->type_index == kTVMFFIFloat ? "
                     f"{slot}->v_float64 : (double){slot}->v_int64);")
    elif code == 6:
        lines.append(f"  bool {var} = {slot}->v_int64 != 0;")
    else:
        ctype = f"{'u' if code == 1 else ''}int{bits}_t"
        lines.append(f"  {ctype} {var} = ({ctype}){slot}->v_int64;")
    values[("scalar", p.name)] = var
    return lines


def _unpack_tensor(index: int, p: CParam, slot: str, values: dict, first_dim: dict) -> list:
    dl = f"dl{index}"
    code, bits, lanes = parse_dtype(p.dtype)
    all_static = not any(isinstance(d, str) for d in p.shape)
    lines = []
    dims = "NULL"
    if all_static and p.shape:
        entries = ", ".join(str(d if isinstance(d, int) else -1) for d in p.shape)
        lines.append(f"  static const int64_t dims{index}[{len(p.shape)}] = {{{entries}}};")
        dims = f"dims{index}"
    device_text = DEVICE_NAMES.get(p.device_type, f"device_type={p.device_type}")
    lines.append(
        f"  DLTensor* {dl} = pytvm_tensor_head({slot}, {len(p.shape)}, {code}, {bits}, {lanes}, "
        f"{p.device_type}, {dims}, {int(all_static)}, {int(p.compact)}, sig, "
        f"{c_string(p.name)}, {index}, {c_string(p.dtype)}, {c_string(device_text)});")
    lines.append(f"  if ({dl} == NULL) return -1;")
    for dim, want in enumerate(p.shape):
        extent = f"{dl}->shape[{dim}]"
        label = f"{p.name}.shape[{dim}]"
        if isinstance(want, int):
            if not all_static:
                lines += _fail(f"{extent} != {want}", "ValueError",
                               _where(index, f"Invalid {label}") + f"expected {want}, got %lld",
                               extent)
            values[("shape", (p.name, dim))] = f"(int64_t){want}"
        elif isinstance(want, str):
            if want in first_dim:
                var, first_label = first_dim[want]
                lines += _fail(f"{extent} != {var}", "ValueError",
                               _where(index, f"Mismatched {label}")
                               + f"expected to match {_escape(first_label)} ({_escape(want)} = "
                               "%lld), got %lld", var, extent)
                values[("shape", (p.name, dim))] = var
            else:
                var = f"shape{index}_{dim}"
                lines.append(f"  int64_t {var} = {extent};")
                lines += _fail(f"{var} < 0", "ValueError",
                               _where(index, f"Invalid {label}") + "expected >= 0, got %lld",
                               var)
                first_dim[want] = (var, label)
                values[("shape", (p.name, dim))] = var
        else:
            values[("shape", (p.name, dim))] = extent
    if not all_static:
        lines.append(f"  if (pytvm_tensor_tail({dl}, {int(p.compact)}, sig, {c_string(p.name)}, "
                     f"{index}) != 0) return -1;")
    if not p.compact:
        running = "1"
        compact = []
        for dim in reversed(range(len(p.shape))):
            compact.insert(0, running)
            running = f"({running} * {dl}->shape[{dim}])"
        for dim in range(len(p.shape)):
            values[("stride", (p.name, dim))] = (
                f"({dl}->strides != NULL ? {dl}->strides[{dim}] : (int64_t){compact[dim]})")
    values[("data", p.name)] = f"(void*)((char*){dl}->data + {dl}->byte_offset)"
    return lines
