"""``CodeGenCHost``: lowered host PrimFuncs -> one C source file with packed-API entry points.

Each PrimFunc ``f`` with a ``global_symbol`` becomes

* ``static int32_t f_compute(float* restrict A, ..., int64_t n, int32_t x)``: the body, over
  data pointers (``restrict`` under ``tirx.noalias``), the symbolic extents and strides it
  uses and the scalar parameters; a function that returns a value writes it into an extra
  last ``TVMFFIAny*`` argument;
* ``int32_t __tvm_ffi_f(void*, void*, int32_t, void*)``: the packed wrapper of
  :mod:`.packed_c` (argument checks, then the call).

A PrimFunc without a ``global_symbol`` (a private subroutine) becomes a plain ``static``
function over its parameters. The file starts with the includes (``tvm/ffi/c_api.h`` of
``tvm_ffi``, ``<math.h>``), the vector typedefs it uses (GCC vector extensions: ``float2`` is
``float __attribute__((vector_size(8), aligned(4)))``; vector ``min``/``max``/``select`` go
lane by lane, casts through ``__builtin_convertvector``), the workspace functions and the wrappers' helpers.

Statements and expressions are printed by :class:`~.codegen_c.CodeGenC`; this class adds the
host parts: ``AssertStmt`` (raise the error kind through ``TVMFFIErrorSetRaisedFromCStr``,
return -1), ``return v`` (into the result slot), allocations (a stack array up to
``STACK_LIMIT_BYTES``, else ``TVMBackendAllocWorkspace``, freed at the end of the enclosing
scope), ``T.min``/``T.max``, ``tvm_access_ptr`` and calls of other PrimFuncs of the module.
Loops of every kind are printed as serial C loops: ``T.parallel`` loops run on one thread
(the C target has no thread pool), vectorized loops were rewritten by ``VectorizeLoop``.
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import GlobalVar
from ...runtime.data_type import dtype_info
from ...tirx import expr as E
from ...tirx.stmt import AllocBuffer, Return
from ...tirx.stmt_functor import post_order_visit
from .codegen_c import CodeGenC, _strip
from .packed_c import c_string, emit_wrapper, packed_signature, preamble

__all__ = ["STACK_LIMIT_BYTES", "CodeGenCHost", "codegen_c_host"]

#: Allocations of a constant size below this many bytes are C arrays on the stack; larger or
#: symbolic ones come from ``TVMBackendAllocWorkspace`` (TVM's ``kMaxStackAlloca``).
STACK_LIMIT_BYTES = 1024

_HEADER = """\
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "tvm/ffi/c_api.h"

/* The symbol tvm_ffi looks up to give the library its context. */
void* __tvm_ffi__library_ctx = NULL;

/* Workspace memory of kernels (64-byte aligned, CPU). */
static void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                      int dtype_code_hint, int dtype_bits_hint) {
  (void)device_type; (void)device_id; (void)dtype_code_hint; (void)dtype_bits_hint;
  void* ptr = NULL;
  if (posix_memalign(&ptr, 64, nbytes > 0 ? (size_t)nbytes : 1) != 0) {
    TVMFFIErrorSetRaisedFromCStr("MemoryError", "TVMBackendAllocWorkspace: out of memory");
    return NULL;
  }
  return ptr;
}

static int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  (void)device_type; (void)device_id;
  free(ptr);
  return 0;
}
"""


class CodeGenCHost(CodeGenC):
    """Print the host PrimFuncs of a module as C (see the module doc)."""

    SCALAR_TYPES = {  # noqa: RUF012 - a class table, like the base class's
        **CodeGenC.SCALAR_TYPES,
        "int32": "int32_t", "uint32": "uint32_t", "float16": "_Float16",
    }

    def __init__(self):
        super().__init__()
        self._vector_types: dict = {}  # C name -> typedef line
        self._scopes: list = []  # per statement scope: workspace pointers to free
        self._ret_dtype = None
        self._functions: dict = {}  # GlobalVar name -> C name of the callable function
        self._inner = None  # the kernel signature being printed (add_host_function)
        self._kernel = False  # printing an exported function's kernel
        self._sub_returns = False  # printing a subroutine that returns a value
        self.exported: list = []  # names of the packed functions

    # --- types ---------------------------------------------------------------------------
    def type_name(self, dtype: str) -> str:
        """The C type of ``dtype``; a vector dtype becomes a GCC vector typedef (``float4``...).

        The typedef is recorded once and printed by :meth:`finish`; it is aligned as its element,
        so vector accesses at any element offset are unaligned loads, not faults.

        Raises
        ------
        ValueError
            For boolean vectors, which have no C type.
        """
        info = dtype_info(dtype)
        if info.lanes == 1:
            return super().type_name(dtype)
        element = super().type_name(info.element)
        if info.element == "bool":
            raise ValueError(f"vector type {dtype} has no C type (boolean vectors)")
        base = {"int32_t": "int", "uint32_t": "uint", "float": "float", "double": "double",
                "int64_t": "long", "uint64_t": "ulong", "int8_t": "char", "uint8_t": "uchar",
                "int16_t": "short", "uint16_t": "ushort", "_Float16": "half"}[element]
        name = f"{base}{info.lanes}"
        if name not in self._vector_types:
            elem_bytes = max(1, dtype_info(info.element).bits // 8)
            # Aligned as its element (a typedef may lower the alignment): vector accesses at
            # any element offset (``A + (i * 4 + 1)``) are then unaligned loads, not faults.
            self._vector_types[name] = (
                f"typedef {element} {name} __attribute__((vector_size({elem_bytes * info.lanes}),"
                f" aligned({elem_bytes})));")
        return name

    def lane(self, value: str, i: int, dtype: str) -> str:
        """Lane ``i`` of a GCC vector value: ``value[i]``."""
        return f"{value}[{i}]"

    # --- functions -----------------------------------------------------------------------
    def declare_functions(self, mod) -> None:
        """Give every PrimFunc of ``mod`` its C name before any body is printed."""
        for gvar, func in mod.functions.items():
            symbol = func.get_attr("global_symbol")
            self._functions[gvar.name_hint] = (
                f"{symbol}_compute" if symbol is not None else str(gvar.name_hint))

    def add_host_function(self, gvar, func) -> None:
        """Print ``func``: a kernel plus a packed wrapper, or a private subroutine."""
        symbol = func.get_attr("global_symbol")
        if symbol is None:
            self._ret_dtype = None
            self._inner = None
            self.add_function(self._functions[gvar.name_hint], func)
            return
        name = str(symbol)
        params, inner_args, dim_checks = packed_signature(func, name)
        returns = _has_return(func.body)
        self._ret_dtype = _return_dtype(func, name) if returns else None
        noalias = bool(func.get_attr("tirx.noalias", False))
        self._inner = (inner_args, returns, noalias, dim_checks)
        kernel = self._functions[gvar.name_hint]
        self.add_function(kernel, func)
        self.exported.append(name)

        def call_body(values):
            args = []
            for kind, _, source in _distinct(inner_args):
                args.append(values[(kind, source)])
            if returns:
                args.append(values["result"])
            return f"{kernel}({', '.join(args)})"

        lines = emit_wrapper(name, params, call_body, lambda values: self._binding_checks(
            name, params, inner_args, dim_checks, values))
        self.decls.append(lines[0][:-2] + ";")
        self.funcs.append("\n".join(lines) + "\n\n")

    def _binding_checks(self, name, params, inner_args, dim_checks, values) -> list:
        """Checks after unpacking: variables bound twice agree; expression extents hold."""
        lines, first, sources = [], {}, {}
        index_of = {p.name: i for i, p in enumerate(params)}
        for kind, var, source in inner_args:
            text = values[(kind, source)]
            if id(var) in first:
                message = (f"Mismatched {_describe(kind, source)} when calling {name}: expected "
                           f"it to equal {sources[id(var)]} (both bind {var.name})")
                lines += [f"  if ({text} != {first[id(var)]}) {{",
                          (f"    TVMFFIErrorSetRaisedFromCStr(\"ValueError\", "
                          f"{c_string(message)});"), "    return -1;", "  }"]
                continue
            first[id(var)] = text
            sources[id(var)] = source if kind == "scalar" else _describe(kind, source)
        if not dim_checks:
            return lines
        saved_names, saved_func = self._var_names, self.func_name
        self._var_names = dict(first)
        self.func_name = name
        try:
            for extent, tname, dim in dim_checks:
                expected = f"(int64_t)({self.print_expr(extent)})"
                rendered = _render(extent, sources).replace("%", "%%")
                index = index_of[tname]
                fmt = (f"Invalid {tname}.shape[{dim}] on argument #{index} when calling:"
                       f"\n  `%s`,\n  expected {rendered} = %lld, got %lld")
                actual = f"dl{index}->shape[{dim}]"
                lines += [f"  if ({expected} != {actual}) {{",
                          (f"    pytvm_raise(\"ValueError\", {c_string(fmt)}, sig, "
                          f"(long long)({expected}), (long long)({actual}));"),
                          "    return -1;", "  }"]
        finally:
            self._var_names, self.func_name = saved_names, saved_func
        return lines

    def print_param(self, var) -> str:
        """One parameter declaration; pointers get ``restrict`` when the kernel is
        ``tirx.noalias``."""
        inner = getattr(self, "_inner", None)
        text = super().print_param(var)
        if inner is not None and inner[2] and self.pointer_element(var) is not None:
            return text.replace("* ", "* restrict ", 1)
        return text

    def function_head(self, name: str, func, params: list) -> str:
        """The signature of a function.

        A kernel (a function with ``global_symbol``) takes the values its packed wrapper unpacked,
        in argument order, plus ``TVMFFIAny* ret_value`` when it returns a value, and returns
        ``int32_t``; a subroutine returns its own type. Both are ``static``.
        """
        inner = getattr(self, "_inner", None)
        if func.get_attr("global_symbol") is not None and inner is not None:
            inner_args, returns, _, _ = inner
            # The kernel takes the values the wrapper unpacked, in inner_args order.
            params = []
            for kind, var, _ in _distinct(inner_args):
                if kind == "data":
                    element = self.pointer_element(var)
                    ctype = self.type_name(element) if element is not None else "void"
                    restrict = " restrict" if inner[2] else ""
                    params.append(f"{ctype}*{restrict} {self.bind_var(var)}")
                else:
                    params.append(f"{self.type_name(var.dtype)} {self.bind_var(var)}")
            if returns:
                params.append("TVMFFIAny* ret_value")
            self._inner = None
        ret = "int32_t" if func.get_attr("global_symbol") is not None else self._sub_ret(func)
        return f"static {ret} {name}({', '.join(params) or 'void'})"

    def _sub_ret(self, func) -> str:
        dtype = getattr(func.ret_type, "dtype", None)
        if dtype is None or str(dtype) == "void":
            return "int32_t"
        return self.type_name(str(dtype))

    def add_function(self, name: str, func) -> None:
        """Print ``func`` as the static C function ``name`` and record its declaration.

        A kernel's parameters are bound by its packed wrapper's values (see
        :meth:`function_head`); a subroutine prints its own parameters.
        """
        self._kernel = func.get_attr("global_symbol") is not None
        ret = getattr(func.ret_type, "dtype", None)
        self._sub_returns = not self._kernel and ret is not None and str(ret) != "void"
        if self._kernel:
            # The wrapper's values bind the parameters: print_param is not used.
            self.func_name = name
            self._var_names = {}
            self._names = set(self.reserved_names())
            self._lines = []
            self.analyzer = Analyzer()
            head = self.function_head(name, func, [])
        else:
            self.func_name = name
            self._var_names = {}
            self._names = set(self.reserved_names())
            self._lines = []
            self.analyzer = Analyzer()
            params = [self.print_param(p) for p in func.param_vars]
            head = self.function_head(name, func, params)
        self.decls.append(head + ";")
        self._indent = 1
        self._scopes = [[]]
        self.print_stmt(func.body)
        self._free(self._scopes.pop())
        if func.get_attr("global_symbol") is not None or self._sub_ret(func) == "int32_t":
            self.emit("return 0;")
        self.funcs.append(head + " {\n" + "".join(line + "\n" for line in self._lines)
                          + "}\n\n")
        self._indent = 0

    def reserved_names(self) -> tuple:
        """Names the packed-function wrapper uses, kept from variables."""
        return ("ret_value", "sig", "slots", "result", "args")

    def finish(self) -> str:
        """The whole source: header, vector typedefs, preamble, declarations, then functions."""
        typedefs = "".join(line + "\n" for line in self._vector_types.values())
        return (_HEADER + typedefs + "\n" + preamble() + "\n"
                + "".join(d + "\n" for d in self.decls) + "\n" + "".join(self.funcs))

    # --- statements ----------------------------------------------------------------------
    def _for(self, op):
        # Parallel and vectorized loops run serially; unroll hints are left to the compiler.
        lo = self.print_expr(op.min)
        extent = self.print_expr(op.extent)
        if op.kind.name == "THREAD_BINDING" or op.thread_binding is not None:
            raise ValueError(
                f"loop {op.loop_var.name} in {self.func_name} is bound to a GPU thread; the "
                "C host target runs only CPU loops"
            )
        var = self.bind_var(op.loop_var)
        self._bind_range(op.loop_var, op.min, op.extent)
        ty = self.type_name(op.loop_var.dtype)
        end = extent if isinstance(op.min, E.IntImm) and op.min.value == 0 else \
            f"({lo} + {extent})"
        step = op.step
        inc = (f"++{var}" if step is None or (isinstance(step, E.IntImm) and step.value == 1)
               else f"{var} += {self.print_expr(step)}")
        self.emit(f"for ({ty} {var} = {lo}; {var} < {end}; {inc}) {{")
        self._scoped(op.body)
        self.emit("}")

    def _scoped(self, stmt) -> None:
        self._indent += 1
        self._scopes.append([])
        self.print_stmt(stmt)
        self._free(self._scopes.pop())
        self._indent -= 1

    def _free(self, pointers) -> None:
        for name in reversed(pointers):
            self.emit(f"if (TVMBackendFreeWorkspace(1, 0, {name}) != 0) {{")
            self.emit("  return -1;")
            self.emit("}")

    def _while(self, op):
        self.emit(f"while ({_strip(self.print_expr(op.condition))}) {{")
        self._scoped(op.body)
        self.emit("}")

    def _if(self, op):
        self.emit(f"if ({_strip(self.print_expr(op.condition))}) {{")
        self._scoped(op.then_case)
        if op.else_case is not None:
            self.emit("} else {")
            self._scoped(op.else_case)
        self.emit("}")

    def _alloc(self, op: AllocBuffer):
        buf = op.buffer
        element = self.type_name(buf.dtype)
        size = 1
        constant = True
        for extent in buf.shape:
            if isinstance(extent, E.IntImm):
                size *= extent.value
            else:
                constant = False
        nbytes_each = max(1, dtype_info(buf.dtype).bits // 8) * dtype_info(buf.dtype).lanes
        scope = buf.scope()
        if constant and (size * nbytes_each < STACK_LIMIT_BYTES or scope != "global"):
            name = self.bind_var(buf.data)
            self.emit(f"{element} {name}[{max(size, 1)}] __attribute__((aligned(64)));")
            return
        if constant:
            nbytes = f"(uint64_t){size * nbytes_each}ULL"
        else:
            total = buf.shape[0]
            for extent in buf.shape[1:]:
                total = total * extent
            nbytes = f"((uint64_t)({self.print_expr(total)}) * {nbytes_each})"
        info = dtype_info(buf.dtype)
        code = {"int": 0, "uint": 1, "float": 2}.get(info.kind, 2)
        name = self.bind_var(buf.data)
        self.emit(f"{element}* {name} = (({element}*)TVMBackendAllocWorkspace(1, 0, {nbytes}, "
                  f"{code}, {dtype_info(info.element).bits}));")
        self.emit(f"if ({name} == NULL) {{")
        self.emit("  return -1;")
        self.emit("}")
        self._scopes[-1].append(name)

    def _assert(self, op):
        cond = _strip(self.print_expr(op.condition))
        message = "".join(p.value if isinstance(p, E.StringImm) else str(p)
                          for p in op.message_parts)
        kind = op.error_kind.value if op.error_kind is not None else "RuntimeError"
        self.emit(f"if (!({cond})) {{")
        self.emit(f"  TVMFFIErrorSetRaisedFromCStr({c_string(kind)}, {c_string(message)});")
        self.emit("  return -1;")
        self.emit("}")

    def _return(self, op: Return):
        if self._kernel:
            if self._ret_dtype is not None:
                self._store_result(op.value)
            for scope in reversed(self._scopes):
                self._free(scope)
            self.emit("return 0;")
            return
        value = _strip(self.print_expr(op.value)) if self._sub_returns else None
        for scope in reversed(self._scopes):
            self._free(scope)
        self.emit(f"return {value};" if value is not None else "return 0;")

    def _store_result(self, value) -> None:
        """``return v`` of an exported function: ``v`` into the caller's ``TVMFFIAny``."""
        kind = dtype_info(self._ret_dtype).kind
        text = self.print_expr(value)
        if kind == "float":
            field, index, text = "v_float64", "kTVMFFIFloat", f"(double)({text})"
        elif kind == "bool":
            field, index, text = "v_int64", "kTVMFFIBool", f"(int64_t)({text})"
        elif kind == "handle":
            field, index = "v_ptr", "kTVMFFIOpaquePtr"
        else:
            field, index, text = "v_int64", "kTVMFFIInt", f"(int64_t)({text})"
        self.emit(f"ret_value->type_index = {index};")
        self.emit("ret_value->zero_padding = 0;")
        self.emit(f"ret_value->{field} = {text};")

    # --- expressions ---------------------------------------------------------------------
    def _minmax(self, op) -> str:
        a, b = self.ssa(op.a), self.ssa(op.b)
        symbol = "<" if isinstance(op, E.Min) else ">"
        lanes = dtype_info(op.dtype).lanes
        if lanes != 1:
            # C has no vector ``?:``: lane by lane through a temporary.
            out = self.alloc_name("vec")
            self.emit(f"{self.type_name(op.dtype)} {out};")
            for i in range(lanes):
                self.emit(f"{out}[{i}] = (({a}[{i}] {symbol} {b}[{i}]) ? {a}[{i}] : {b}[{i}]);")
            return out
        return f"(({a} {symbol} {b}) ? {a} : {b})"

    def _select(self, op) -> str:
        lanes = dtype_info(op.dtype).lanes
        if lanes == 1:
            return super()._select(op)
        cond, t, f = self.ssa(op.condition), self.ssa(op.true_value), self.ssa(op.false_value)
        out = self.alloc_name("vec")
        self.emit(f"{self.type_name(op.dtype)} {out};")
        cond_lanes = dtype_info(op.condition.dtype).lanes
        for i in range(lanes):
            c = f"{cond}[{i}]" if cond_lanes != 1 else cond
            self.emit(f"{out}[{i}] = ({c} ? {t}[{i}] : {f}[{i}]);")
        return out

    def vector_cast(self, op) -> str:
        """A vector cast with ``__builtin_convertvector``; lane counts must match.

        Raises
        ------
        ValueError
            When the lane counts differ or either side is a boolean vector.
        """
        lanes = dtype_info(op.dtype).lanes
        if lanes < 0 or dtype_info(op.value.dtype).lanes != lanes:
            raise ValueError(f"vector cast to {op.dtype} in {self.func_name} is not supported")
        if dtype_info(op.dtype).element == "bool" or dtype_info(op.value.dtype).element == "bool":
            raise ValueError(f"vector cast between {op.value.dtype} and {op.dtype} in "
                             f"{self.func_name} is not supported (boolean vectors)")
        return (f"__builtin_convertvector({self.print_expr(op.value)}, "
                f"{self.type_name(op.dtype)})")

    def vector_binary(self, op, symbol: str) -> str:
        """Element-wise vector arithmetic with the GCC vector operator ``symbol``."""
        # GCC vector extensions have the element-wise operators.
        return f"({self.print_expr(op.a)} {symbol} {self.print_expr(op.b)})"

    def _call(self, op: E.Call) -> str:
        if isinstance(op.op, GlobalVar):
            name = self._functions.get(op.op.name_hint)
            if name is None:
                raise ValueError(
                    f"function {self.func_name} calls {op.op.name_hint}, which is not in the "
                    "module"
                )
            return f"{name}({self._args(op.args)})"
        if op.op.name == "tirx.tvm_access_ptr":
            return self._access_ptr(op)
        if op.op.name == "tirx.type_annotation":
            return "0"
        return super()._call(op)

    def _access_ptr(self, op) -> str:
        # tvm_access_ptr(type_annotation(dtype), data, offset, extent, mask): the address of
        # element ``offset`` (in units of dtype) of the buffer.
        dtype = op.args[0].dtype
        data = self.print_expr(op.args[1])
        info = dtype_info(dtype)
        offset = op.args[2]
        if info.lanes != 1:
            scalar = self.type_name(info.element)
            offset = Analyzer().simplify(offset * info.lanes)
            return (f"(({self.type_name(dtype)}*)((({scalar}*){data}) + "
                    f"{self.print_expr(offset)}))")
        return f"((({self.type_name(dtype)}*){data}) + {self.print_expr(offset)})"

    def call_fallback(self, op, name: str) -> str:
        """An intrinsic with no rule here: raises ``ValueError`` naming it and what is supported."""
        raise ValueError(
            f"intrinsic {op.op.name} in function {self.func_name} has no C code generation "
            "rule (the C host target supports math functions, call_extern and the builtins "
            "of scalar code)"
        )


def _distinct(inner_args) -> list:
    seen, out = set(), []
    for entry in inner_args:
        if id(entry[1]) in seen:
            continue
        seen.add(id(entry[1]))
        out.append(entry)
    return out


def _describe(kind, source) -> str:
    if kind == "scalar":
        return f"argument {source}"
    if kind in ("shape", "stride"):
        return f"{source[0]}.{kind}{'s' if kind == 'stride' else ''}[{source[1]}]"
    return f"{source}.data"


_RENDER_OPS = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%"}


def _render(expr, sources) -> str:
    """``expr`` with each variable written as the argument it comes from (``B.shape[0] + 1``)."""
    if isinstance(expr, E.Var):
        return sources.get(id(expr), expr.name)
    if isinstance(expr, E.IntImm):
        return str(expr.value)
    symbol = _RENDER_OPS.get(type(expr))
    if symbol is not None:
        a, b = _render(expr.a, sources), _render(expr.b, sources)
        if isinstance(expr.b, tuple(_RENDER_OPS)):
            b = f"({b})"
        return f"{a} {symbol} {b}"
    return str(expr)


def _has_return(body) -> bool:
    found = []
    post_order_visit(body, lambda n: found.append(n) if isinstance(n, Return) else None)
    return bool(found)


def _return_dtype(func, name: str):
    ret = func.ret_type
    dtype = getattr(ret, "dtype", None)
    if ret is None or dtype is None or str(dtype) == "void":
        return None
    if dtype_info(str(dtype)).lanes != 1:
        raise ValueError(
            f"function {name} returns the vector type {dtype}; only scalar results can be "
            "returned through the packed API"
        )
    return str(dtype)


def codegen_c_host(mod) -> tuple:
    """C source of the lowered host module ``mod`` and the names of its packed functions."""
    gen = CodeGenCHost()
    gen.declare_functions(mod)
    for gvar, func in mod.functions.items():
        gen.add_host_function(gvar, func)
    return gen.finish(), list(gen.exported)
