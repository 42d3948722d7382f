"""``CodeGenCHost``: lowered host PrimFuncs -> one C translation unit of packed functions.

Each PrimFunc of the module becomes ``int32_t __tvm_ffi_<name>(void* self, void* args,
int32_t num_args, void* result)``, the TVM-FFI packed calling convention, exported from the
shared library the ``c`` backend compiles (:mod:`tvm.backend.c.module`). The function first
unpacks and checks its arguments, then runs the body in place (as TVM's C host code does):

- the argument count (``TypeError``: ``Expected 2 arguments when calling: ...``);
- each argument's type index (``TypeError``: ``Mismatched type on argument #1 ... expected
  Tensor``; scalars expect ``int``, ``float`` or ``boolean``);
- per tensor: ndim and device type (``ValueError``), dtype (``TypeError``), every constant
  dimension (``Invalid a.shape[0] ...``), every repeated symbolic dimension (``Mismatched
  B.shape[0] ... expected to match A.shape[0]``), dimensions given by an expression once all
  variables are bound (``Invalid A.shape[0] ... expected B.shape[0] + 1``), and compact strides
  unless the buffer declares its own.

The messages are those of the ``llvm`` backend's packed API (which follows TVM's), so the two
backends raise the same errors. ``AssertStmt`` raises its kind with its message parts
(``TVMFFIErrorSetRaisedFromCStrParts``); ``return v`` stores ``v`` in the caller's result.

Not supported yet (``ValueError`` naming the construct): raw pointer (handle) parameters,
buffers with an ``elem_offset``, compound strides, ``T.call_packed`` and workspace
allocation calls, and intrinsics other than the math functions of ``tvm.backend.c.intrin``.
"""

from __future__ import annotations

from typing import ClassVar

from ...runtime.data_type import dtype_info
from ...tirx import expr as E
from ...tirx.stmt_functor import post_order_visit
from .codegen_c import CodeGenC

__all__ = ["CodeGenCHost", "codegen_host"]

_TYPE_INDEX_INT, _TYPE_INDEX_BOOL, _TYPE_INDEX_FLOAT = 1, 2, 3
_TYPE_INDEX_OPAQUE_PTR, _TYPE_INDEX_DLTENSOR_PTR, _TYPE_INDEX_TENSOR = 4, 7, 70
_DLPACK_CODES = {"int": 0, "uint": 1, "float": 2, "bfloat": 4, "bool": 6}

HEADER = """#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include "tvm/ffi/c_api.h"
#ifdef __cplusplus
#define PYTVM_EXTERN extern "C"
#else
#define PYTVM_EXTERN
#endif
#define PYTVM_EXPORT PYTVM_EXTERN __attribute__((visibility("default")))

static inline int32_t pytvm_raise(const char* kind, const char** parts, int32_t n) {
  TVMFFIErrorSetRaisedFromCStrParts(kind, parts, n);
  return -1;
}
"""


class _CExpr(str):
    """A message part that is a C expression (a ``char*`` variable), not literal text."""


def _c_string(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or ord(ch) > 126:
            out.extend(f"\\{b:03o}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _dim_text(extent) -> str:
    if isinstance(extent, E.IntImm):
        return str(int(extent.value))
    if isinstance(extent, E.Var):
        return extent.name
    return str(extent)


class CodeGenCHost(CodeGenC):
    """Print host PrimFuncs as exported packed C functions (see the module doc)."""

    SCALAR_TYPES: ClassVar[dict] = {**CodeGenC.SCALAR_TYPES, "int32": "int32_t", "uint32": "uint32_t"}

    def __init__(self):
        super().__init__()
        self.signature = ""
        self._ret_dtype = None
        self.exported: list = []

    def finish(self) -> str:
        return HEADER + "\n" + super().finish()

    def reserved_names(self) -> tuple:
        return ("self_handle", "args", "num_args", "result", "pytvm_raise", "pytvm_parts")

    # --- the packed function -----------------------------------------------------------------
    def add_packed_function(self, name: str, func) -> None:
        """Print ``func`` as ``__tvm_ffi_<name>``: argument checks, then the body."""
        self.func_name = name
        self._var_names = {}
        self._names = set(self.reserved_names())
        self._lines = []
        self._indent = 1
        from ...arith.analyzer import Analyzer

        self.analyzer = Analyzer()
        self._ret_dtype = func.ret_type.dtype if _returns_value(func) else None
        head = (f"PYTVM_EXPORT int32_t __tvm_ffi_{name}(void* self_handle, void* args_, "
                "int32_t num_args, void* result)")
        self.decls.append(head + ";")
        self.emit("TVMFFIAny* args = (TVMFFIAny*)args_;")
        self._emit_unpack(name, func)
        self.print_stmt(func.body)
        self.emit("return 0;")
        self.funcs.append(head + " {\n" + "".join(line + "\n" for line in self._lines) + "}\n\n")
        self._indent = 0
        self.exported.append(name)

    def _raise(self, kind: str, parts) -> None:
        """Emit: set a ``kind`` error from the message ``parts`` and return -1."""
        items = ", ".join(p if isinstance(p, _CExpr) else _c_string(p) for p in parts)
        self.emit("{")
        self.emit(f"  const char* pytvm_parts[{len(parts)}] = {{{items}}};")
        self.emit(f"  return pytvm_raise({_c_string(kind)}, pytvm_parts, {len(parts)});")
        self.emit("}")

    def _check(self, cond: str, kind: str, parts) -> None:
        self.emit(f"if (!({cond})) {{")
        self._indent += 1
        self._raise(kind, parts)
        self._indent -= 1
        self.emit("}")

    def _where(self, index: int) -> list:
        return [" on argument #", str(index), " when calling:\n  `", self.signature, "`,\n  "]

    def _emit_unpack(self, name: str, func) -> None:
        params, texts = [], []
        for p in func.params:
            buf = func.buffer_map.get(p)
            if buf is None:
                if p.dtype == "handle":
                    raise ValueError(
                        f"function {name}: handle parameter {p.name} has no buffer_map entry; "
                        "raw pointer parameters are not supported by the c backend yet"
                    )
                params.append((p, None))
                texts.append(f"{p.name}: {p.dtype}")
            else:
                params.append((p, buf))
                dims = ", ".join(_dim_text(d) for d in buf.shape)
                texts.append(f"{p.name}: Tensor([{dims}], {buf.dtype})")
        self.signature = f"{name}(" + ", ".join(texts) + ")"
        n = len(params)
        self._check(f"num_args == {n}", "TypeError",
                    ["Expected ", str(n), " arguments", " when calling:\n  `", self.signature,
                     "`"])
        # Types first, in order; then each tensor's fields.
        handles = {}
        for i, (p, buf) in enumerate(params):
            tidx = f"args[{i}].type_index"
            mismatch = ["Mismatched type on argument #", str(i), " when calling:\n  `",
                        self.signature, "`,\n  expected "]
            if buf is None:
                kind = dtype_info(p.dtype).kind
                var = self.bind_var(p)
                ctype = self.type_name(p.dtype)
                if kind == "float":
                    self._check(f"{tidx} == {_TYPE_INDEX_FLOAT} || {tidx} == {_TYPE_INDEX_INT} "
                                f"|| {tidx} == {_TYPE_INDEX_BOOL}", "TypeError",
                                [*mismatch, "float"])
                    self.emit(f"{ctype} {var} = ({ctype})({tidx} == {_TYPE_INDEX_FLOAT} ? "
                              f"args[{i}].v_float64 : (double)args[{i}].v_int64);")
                elif kind in ("int", "uint", "bool"):
                    expected = "boolean" if kind == "bool" else "int"
                    self._check(f"{tidx} == {_TYPE_INDEX_INT} || {tidx} == {_TYPE_INDEX_BOOL}",
                                "TypeError", [*mismatch, expected])
                    value = f"args[{i}].v_int64"
                    self.emit(f"{ctype} {var} = ({ctype})({value}{' != 0' if kind == 'bool' else ''});")
                else:
                    raise ValueError(
                        f"function {name}: parameter {p.name} of dtype {p.dtype} is not "
                        "supported by the c backend yet"
                    )
                continue
            self._check(f"{tidx} == {_TYPE_INDEX_TENSOR} || {tidx} == {_TYPE_INDEX_DLTENSOR_PTR} "
                        f"|| ({tidx} == {_TYPE_INDEX_OPAQUE_PTR} && args[{i}].v_ptr != NULL)",
                        "TypeError", [*mismatch, "Tensor"])
            handle = self.alloc_name(f"{p.name}_tensor")
            handles[id(p)] = handle
            self.emit(f"DLTensor* {handle} = {tidx} == {_TYPE_INDEX_TENSOR} ? "
                      f"(DLTensor*)((char*)args[{i}].v_obj + sizeof(TVMFFIObject)) : "
                      f"(DLTensor*)args[{i}].v_ptr;")
        bound, compound, shape_sources = {}, [], {}
        for i, (p, buf) in enumerate(params):
            if buf is None:
                continue
            self._emit_tensor_checks(i, p, buf, handles[id(p)], bound, compound, shape_sources)
        # Dimensions given by expressions, once every variable is bound.
        for i, p, dim, extent, handle in compound:
            free = []
            post_order_visit(extent, lambda node, free=free: free.append(node)
                             if isinstance(node, E.Var) else None)
            for var in free:
                if id(var) not in self._var_names:
                    raise ValueError(
                        f"function {name}: parameter {p.name} has shape[{dim}] = {extent}, but "
                        f"{var.name} is not bound by a plain dimension or scalar parameter"
                    )
            expected = self.print_expr(extent)
            actual = f"{handle}->shape[{dim}]"
            rendered = _render(extent, shape_sources)
            self.emit(f"if ((int64_t)({expected}) != {actual}) {{")
            self._indent += 1
            self.emit("char pytvm_text[64];")
            self.emit(f'snprintf(pytvm_text, sizeof(pytvm_text), " = %lld, got %lld", '
                      f"(long long)({expected}), (long long){actual});")
            self._raise("ValueError", ["Invalid ", f"{p.name}.shape[{dim}]", *self._where(i),
                                       "expected ", rendered, _CExpr("pytvm_text")])
            self._indent -= 1
            self.emit("}")

    def _emit_tensor_checks(self, i, p, buf, handle, bound, compound, sources) -> None:
        info = dtype_info(buf.dtype)
        where = self._where(i)
        ndim = len(buf.shape)
        self._check(f"{handle}->ndim == {ndim}", "ValueError",
                    ["Mismatched ", p.name, ".ndim", *where, "expected ", str(ndim)])
        code = _DLPACK_CODES.get(info.kind)
        if code is None:
            raise ValueError(f"parameter {p.name}: dtype {buf.dtype} has no DLPack type code")
        bits = 8 if info.kind == "bool" else info.bits
        self._check(f"{handle}->dtype.code == {code} && {handle}->dtype.bits == {bits} && "
                    f"{handle}->dtype.lanes == {info.lanes}", "TypeError",
                    ["Mismatched ", p.name, ".dtype", *where, "expected ", str(buf.dtype)])
        self._check(f"{handle}->device.device_type == 1", "ValueError",
                    ["Mismatched ", p.name, ".device_type", *where, "expected ", "cpu"])
        for dim, extent in enumerate(buf.shape):
            actual = f"{handle}->shape[{dim}]"
            label = f"{p.name}.shape[{dim}]"
            if isinstance(extent, E.IntImm):
                self._check(f"{actual} == {int(extent.value)}", "ValueError",
                            ["Invalid ", label, *where, "expected ", str(int(extent.value))])
            elif isinstance(extent, E.Var):
                if id(extent) in bound:
                    self._check(f"{actual} == (int64_t){self.var_name(extent)}", "ValueError",
                                ["Mismatched ", label, *where, "expected to match ",
                                 bound[id(extent)]])
                else:
                    bound[id(extent)] = label
                    sources[id(extent)] = label
                    var = self.bind_var(extent)
                    ctype = self.type_name(extent.dtype)
                    self.emit(f"{ctype} {var} = ({ctype}){actual};")
            else:
                compound.append((i, p, dim, extent, handle))
        strides = f"{handle}->strides"
        if buf.strides:
            for dim, stride in enumerate(buf.strides):
                actual = f"({strides} == NULL ? pytvm_compact_stride({handle}, {dim}) : " \
                         f"{strides}[{dim}])"
                if isinstance(stride, E.Var) and id(stride) not in bound:
                    bound[id(stride)] = f"{p.name}.strides[{dim}]"
                    var = self.bind_var(stride)
                    ctype = self.type_name(stride.dtype)
                    self.emit(f"{ctype} {var} = ({ctype}){actual};")
                elif isinstance(stride, (E.IntImm, E.Var)):
                    expected = (str(int(stride.value)) if isinstance(stride, E.IntImm)
                                else f"(int64_t){self.var_name(stride)}")
                    self._check(f"{actual} == {expected}", "ValueError",
                                ["Mismatched ", p.name, ".strides", *where,
                                 "expected ", _dim_text(stride)])
                else:
                    raise ValueError(
                        f"function {self.func_name}: parameter {p.name} has a compound stride "
                        f"{stride}; only constants and variables are supported"
                    )
        else:
            self._check(f"{strides} == NULL || pytvm_is_compact({handle})", "ValueError",
                        ["Mismatched ", p.name, ".strides", *where,
                         "expected to be compact array"])
        if buf.elem_offset is not None and not (
            isinstance(buf.elem_offset, E.IntImm) and buf.elem_offset.value == 0
        ):
            raise ValueError(
                f"function {self.func_name}: parameter {p.name} has elem_offset "
                f"{buf.elem_offset}; offset buffer parameters are not supported yet"
            )
        data = self.bind_var(buf.data)
        ctype = self.type_name(buf.dtype)
        self.emit(f"{ctype}* {data} = ({ctype}*)((char*){handle}->data + "
                  f"{handle}->byte_offset);")

    # --- statements ------------------------------------------------------------------------------
    def _assert(self, op):
        parts = [p.value if isinstance(p, E.StringImm) else str(p) for p in op.message_parts]
        self._check(self.print_expr(op.condition), str(op.error_kind.value), parts or [""])

    def _return(self, op):
        dtype = self._ret_dtype
        if dtype is None:
            self.emit("return 0;")
            return
        value = self.print_expr(op.value)
        kind = dtype_info(dtype).kind
        if kind == "float":
            index, field, cast = _TYPE_INDEX_FLOAT, "v_float64", "double"
        elif kind == "bool":
            index, field, cast = _TYPE_INDEX_BOOL, "v_int64", "int64_t"
        elif kind == "handle":
            index, field, cast = _TYPE_INDEX_OPAQUE_PTR, "v_ptr", "void*"
        else:
            index, field, cast = _TYPE_INDEX_INT, "v_int64", "int64_t"
        self.emit(f"((TVMFFIAny*)result)->type_index = {index};")
        self.emit("((TVMFFIAny*)result)->zero_padding = 0;")
        self.emit(f"((TVMFFIAny*)result)->{field} = ({cast})({value});")
        self.emit("return 0;")


def _returns_value(func) -> bool:
    ret = getattr(func, "ret_type", None)
    dtype = getattr(ret, "dtype", None)
    return dtype is not None and str(dtype) not in ("", "void")


def _render(expr, sources: dict) -> str:
    """``expr`` with each variable replaced by where it came from (``B.shape[0] + 1``)."""
    if isinstance(expr, E.Var):
        return sources.get(id(expr), expr.name)
    if isinstance(expr, E.IntImm):
        return str(int(expr.value))
    symbols = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%"}
    symbol = symbols.get(type(expr))
    if symbol is not None:
        return f"{_render(expr.a, sources)} {symbol} {_render(expr.b, sources)}"
    return str(expr)


_HELPERS = """
static inline int64_t pytvm_compact_stride(DLTensor* t, int dim) {
  int64_t stride = 1;
  for (int k = t->ndim - 1; k > dim; --k) stride *= t->shape[k];
  return stride;
}

static inline int pytvm_is_compact(DLTensor* t) {
  int64_t expected = 1;
  for (int k = t->ndim - 1; k >= 0; --k) {
    if (t->shape[k] != 1 && t->strides[k] != expected) return 0;
    expected *= t->shape[k];
  }
  return 1;
}
"""


def codegen_host(mod) -> tuple:
    """C source of every PrimFunc of a lowered ``IRModule``, and the exported names.

    Functions are named by their ``global_symbol`` attribute, else their GlobalVar.
    """
    from ...tirx.function import PrimFunc  # the tirx layer, below backend

    cg = CodeGenCHost()
    for gvar, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            cg.add_packed_function(str(func.get_attr("global_symbol") or gvar.name_hint), func)
    source = cg.finish().replace(HEADER, HEADER + _HELPERS, 1)
    return source, list(cg.exported)

