"""CUDA code of the ``T.cuda.*`` device builtins that wrap one CUDA intrinsic each.

:func:`register` puts a handler per builtin into ``codegen_cuda.CALL_HANDLERS``; the
handler adds a ``__forceinline__ __device__`` helper (once per translation unit, through
``codegen_tirx``'s helper table) and prints a call to it. Helper names, parameter types and
the intrinsic each one calls follow Apache TVM 0.27's generated CUDA (for example
``T.cuda.ldg(p, "float32")`` -> ``tvm_builtin_cuda_ldg_f32(void* src)`` calling
``__ldg(reinterpret_cast<const float*>(src))``), so kernels and their generated source read
the same in both.

A helper whose intrinsic lives in a header the preamble may lack (``cuda_bf16.h``,
``cuda_fp8.h``, ``cooperative_groups.h``) carries its own ``#include`` line, so a
translation unit joined from several kernels (``nvcc.join_sources``) still compiles.
"""

from __future__ import annotations

from ...tirx.cuda_ops import LDG_SCALAR_DTYPES, LDG_VECTOR_DTYPES, WAIT_UNTIL_PTX_TYPES
from ...tirx.expr import IntImm, StringImm
from . import codegen_cuda as _cg

__all__ = ["BUILTINS", "register"]

_BF16 = "#include <cuda_bf16.h>\n"
_FP8 = "#include <cuda_fp8.h>\n"
_CG = "#include <cooperative_groups.h>\n"
_U64 = "unsigned long long"
_F2_IN = "    float2 {0} = *reinterpret_cast<float2*>(&{1});\n"
_F2_OUT = "    return *reinterpret_cast<unsigned long long*>(&{0});\n"
_U32_OUT = "    return *reinterpret_cast<unsigned int*>(&{0});\n"


def _bf2_binary(fn):
    return ("    __nv_bfloat162 lhs;\n    __nv_bfloat162 rhs;\n"
            "    *reinterpret_cast<unsigned int*>(&lhs) = a;\n"
            "    *reinterpret_cast<unsigned int*>(&rhs) = b;\n"
            f"    __nv_bfloat162 result = {fn}(lhs, rhs);\n" + _U32_OUT.format("result"))


def _f2_binary(fn):
    return (_F2_IN.format("lhs", "a") + _F2_IN.format("rhs", "b")
            + f"    float2 result = {fn}(lhs, rhs);\n" + _F2_OUT.format("result"))


#: builtin -> (helper name, return C type, C parameters, body, header prefix).
BUILTINS = {
    "nano_sleep": ("tvm_builtin_cuda_nano_sleep", "void", "uint64_t time",
                   "    __nanosleep(time);\n", ""),
    "clock64": ("tvm_builtin_clock64", _U64, "", "    return clock64();\n", ""),
    "thread_rank": ("tvm_builtin_cuda_thread_rank", "int", "",
                    "    return cooperative_groups::this_thread_block().thread_rank();\n",
                    _CG),
    "grid_sync": ("tvm_builtin_cuda_grid_sync", "void", "",
                  "    cooperative_groups::this_grid().sync();\n", _CG),
    "smem_addr_from_uint64": ("tvm_builtin_cuda_smem_addr_from_uint64", "unsigned int",
                              "uint64_t cluster_addr",
                              "    return static_cast<unsigned int>(cluster_addr);\n", ""),
    "trap_when_assert_failed": ("tvm_builtin_cuda_trap_when_assert_failed", "void",
                                "bool cond", '    if (!cond) {\n        asm("trap;");\n    }\n',
                                ""),
    "ballot_sync": ("tvm_builtin_ballot_sync", "unsigned int", "unsigned int mask, int pred",
                    "    return __ballot_sync(mask, pred);\n", ""),
    "any_sync": ("tvm_builtin_cuda_any_sync", "int", "unsigned mask, int pred",
                 "    return __any_sync(mask, pred);\n", ""),
    "reduce_add_sync_u32": ("tvm_builtin_reduce_add_sync_u32", "unsigned int",
                            "unsigned int mask, unsigned int value",
                            "    return __reduce_add_sync(mask, value);\n", ""),
    "reduce_min_sync_u32": ("tvm_builtin_reduce_min_sync_u32", "unsigned int",
                            "unsigned int mask, unsigned int value",
                            "    return __reduce_min_sync(mask, value);\n", ""),
    "ffs_u32": ("tvm_builtin_ffs_u32", "int", "unsigned int value",
                "    return __ffs(value);\n", ""),
    "uint_as_float": ("tvm_builtin_uint_as_float", "float", "unsigned int bits",
                      "    return __uint_as_float(bits);\n", ""),
    "float_as_uint": ("tvm_builtin_float_as_uint", "unsigned int", "float x",
                      "    return __float_as_uint(x);\n", ""),
    "fdividef": ("tvm_builtin_cuda_fdividef", "float", "float x, float y",
                 "    return __fdividef(x, y);\n", ""),
    "half2float": ("tvm_builtin_cuda_half2float", "float", "half src",
                   "    return __half2float(src);\n", "#include <cuda_fp16.h>\n"),
    "bfloat162float": ("tvm_builtin_cuda_bfloat162float", "float", "nv_bfloat16 src",
                       "    return __bfloat162float(src);\n", _BF16),
    "make_float2": ("tvm_builtin_make_float2", _U64, "float x, float y",
                    "    float2 value = make_float2(x, y);\n" + _F2_OUT.format("value"), ""),
    "float2_x": ("tvm_builtin_float2_x", "float", f"{_U64} packed",
                 _F2_IN.format("value", "packed") + "    return value.x;\n", ""),
    "float2_y": ("tvm_builtin_float2_y", "float", f"{_U64} packed",
                 _F2_IN.format("value", "packed") + "    return value.y;\n", ""),
    "fmul2_rn": ("tvm_builtin_fmul2_rn", _U64, f"{_U64} a, {_U64} b",
                 _f2_binary("__fmul2_rn"), ""),
    "fadd2_rn": ("tvm_builtin_fadd2_rn", _U64, f"{_U64} a, {_U64} b",
                 _f2_binary("__fadd2_rn"), ""),
    "float22bfloat162_rn": ("tvm_builtin_float22bfloat162_rn", "unsigned int",
                            "float x, float y",
                            "    __nv_bfloat162 value = __float22bfloat162_rn(make_float2(x, y));"
                            "\n" + _U32_OUT.format("value"), _BF16),
    "float22bfloat162_rn_from_float2": (
        "tvm_builtin_float22bfloat162_rn_from_float2", "unsigned int", f"{_U64} packed",
        _F2_IN.format("value", "packed")
        + "    __nv_bfloat162 result = __float22bfloat162_rn(value);\n"
        + _U32_OUT.format("result"), _BF16),
    "bfloat1622float2": ("tvm_builtin_bfloat1622float2", _U64, "unsigned int packed",
                         "    __nv_bfloat162 value;\n"
                         "    *reinterpret_cast<unsigned int*>(&value) = packed;\n"
                         "    float2 result = __bfloat1622float2(value);\n"
                         + _F2_OUT.format("result"), _BF16),
    "hmin2": ("tvm_builtin_hmin2", "unsigned int", "unsigned int a, unsigned int b",
              _bf2_binary("__hmin2"), _BF16),
    "hmax2": ("tvm_builtin_hmax2", "unsigned int", "unsigned int a, unsigned int b",
              _bf2_binary("__hmax2"), _BF16),
    "fp8x4_e4m3_from_float4": ("tvm_builtin_fp8x4_e4m3_from_float4", "unsigned int",
                               "float x, float y, float z, float w",
                               "    __nv_fp8x4_e4m3 result = __nv_fp8x4_e4m3("
                               "make_float4(x, y, z, w));\n" + _U32_OUT.format("result"),
                               _FP8),
    "float22half2": ("tvm_builtin_cuda_float22half2", "void", "void* dst, void* src",
                     ("    *reinterpret_cast<half2*>(dst) = "
                     "__float22half2_rn(*reinterpret_cast<float2*>(src));\n"),
                     "#include <cuda_fp16.h>\n"),
    "half8tofloat8": ("tvm_builtin_cuda_half8tofloat8", "void", "void* src_addr, void* dst_addr",
                      ("    const half2* src = reinterpret_cast<const half2*>(src_addr);\n"
                      "    float2* dst = reinterpret_cast<float2*>(dst_addr);\n"
                      "    for (int i = 0; i < 4; ++i) dst[i] = __half22float2(src[i]);\n"),
                      "#include <cuda_fp16.h>\n"),
    "float8tohalf8": ("tvm_builtin_cuda_float8tohalf8", "void", "void* src_addr, void* dst_addr",
                      ("    const float2* src = reinterpret_cast<const float2*>(src_addr);\n"
                      "    half2* dst = reinterpret_cast<half2*>(dst_addr);\n"
                      "    for (int i = 0; i < 4; ++i) dst[i] = __float22half2_rn(src[i]);\n"),
                      "#include <cuda_fp16.h>\n"),
}


def _add_helper(gen, name, source):
    gen.helpers.setdefault(name, source)


def _table_handler(builtin):
    fn, ret, params, body, header = BUILTINS[builtin]
    source = f"{header}__forceinline__ __device__ {ret} {fn}({params}) {{\n{body}}}\n"

    def handle(gen, op):
        _add_helper(gen, fn, source)
        return f"{fn}({', '.join(gen.print_expr(a) for a in op.args)})"

    return handle


_ATOMIC = {
    "atomic_add": ("tvm_builtin_cuda_atomic_add", "T* addr, T value", "atomicAdd(addr, value)"),
    "atomic_cas": ("tvm_builtin_cuda_atomic_cas", "T* address, T compare, T val",
                   "atomicCAS(address, compare, val)"),
}


def _atomic_handler(builtin):
    fn, params, expr = _ATOMIC[builtin]
    source = (f"template <typename T>\n__forceinline__ __device__ T {fn}({params}) {{\n"
              f"    return {expr};\n}}\n")

    def handle(gen, op):
        _add_helper(gen, fn, source)
        # The pointer is cast to the value's type so that the template argument is deduced
        # from one place, whatever the handle's own element type.
        ty = gen.type_name(op.dtype)
        ptr = f"(({ty}*){gen.print_expr(op.args[0])})"
        rest = [f"(({ty}){gen.print_expr(a)})" if a.dtype != op.dtype else gen.print_expr(a)
                for a in op.args[1:]]
        return f"{fn}({', '.join([ptr, *rest])})"

    return handle


def _ldg_suffix(dtype: str) -> str:
    return dtype.replace("float", "f").replace("uint", "u").replace("int", "i")


_LDG_CTYPE = {"int8": "signed char", "uint8": "unsigned char", "int16": "short",
              "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int",
              "int64": "long long", "uint64": "unsigned long long", "float16": "half",
              "bfloat16": "nv_bfloat16", "float32": "float", "float64": "double"}
_LDG_VEC_BASE = {"int32": "int", "uint32": "uint", "float32": "float"}
_HEADER_OF = {"float16": "#include <cuda_fp16.h>\n", "bfloat16": _BF16}


def _ldg(gen, op):
    args = list(op.args)
    if len(args) == 2:  # scalar: (addr, dtype)
        dtype = args[1].value
        if dtype not in LDG_SCALAR_DTYPES:
            raise ValueError(f"Unsupported CUDA __ldg dtype {dtype!r} in kernel {gen.func_name}")
        cty = _LDG_CTYPE[dtype]
        fn = f"tvm_builtin_cuda_ldg_{_ldg_suffix(dtype)}"
        _add_helper(gen, fn, (
            f"{_HEADER_OF.get(dtype, '')}__forceinline__ __device__ {cty} {fn}(void* src) {{\n"
            f"    return __ldg(reinterpret_cast<const {cty}*>(src));\n}}\n"))
        return f"{fn}({gen.print_expr(args[0])})"
    # vector: (*dst, addr, dtype, vec, count)
    dsts, addr = args[:-4], args[-4]
    dtype, vec, count = args[-3].value, args[-2].value, args[-1]
    count = count.value if isinstance(count, IntImm) else int(count)
    if dtype not in LDG_VECTOR_DTYPES:
        raise ValueError(f"Unsupported vector CUDA __ldg dtype {dtype!r} in kernel "
                         f"{gen.func_name}; supported: {', '.join(LDG_VECTOR_DTYPES)}")
    lanes = int(vec[1:])
    if lanes != count or len(dsts) != count:
        raise ValueError(f"T.cuda.ldg in kernel {gen.func_name}: {vec} needs {lanes} "
                         f"destinations, got {len(dsts)} (count {count})")
    cty, vty = _LDG_CTYPE[dtype], f"{_LDG_VEC_BASE[dtype]}{lanes}"
    fn = f"tvm_builtin_cuda_ldg_{_ldg_suffix(dtype)}_{vec}_to_dst{lanes}"
    params = "".join(f"void* dst{i}, " for i in range(lanes))
    stores = "".join(f"    *reinterpret_cast<{cty}*>(dst{i}) = v.{'xyzw'[i]};\n"
                     for i in range(lanes))
    _add_helper(gen, fn, (
        f"__forceinline__ __device__ void {fn}({params}void* src) {{\n"
        f"    {vty} v = __ldg(reinterpret_cast<const {vty}*>(src));\n{stores}}}\n"))
    return f"{fn}({', '.join(gen.print_expr(a) for a in [*dsts, addr])})"


def _mov_sreg(gen, op):
    bits, reg = op.args
    bits = bits.value
    reg = reg.value if isinstance(reg, StringImm) else str(reg)
    ident = reg.replace(".", "_")
    fn = f"tvm_builtin_ptx_fetch_register_{ident}"
    ret, ty, cons = ("int32_t", "u32", "r") if bits == 32 else ("int64_t", "u64", "l")
    raw = "uint32_t" if bits == 32 else "uint64_t"
    _add_helper(gen, fn, (
        f"__forceinline__ __device__ {ret} {fn}() {{\n"
        f"    {raw} x;\n"
        f'    asm volatile("mov.{ty} %0, %%{reg};" : "={cons}"(x));\n'
        f"    return ({ret})x;\n}}\n"))
    return f"{fn}()"


def _wait_load(gen, sem, scope, ptype, cty):
    """The helper ``d = ld.<sem>.<scope>.global.<ptype> [addr]``; its name."""
    fn = f"tvm_builtin_cuda_wait_until_{sem}_{scope}_global_{ptype}"
    reg = "l" if ptype.endswith("64") else "r"
    _add_helper(gen, fn, (
        f"__forceinline__ __device__ void {fn}({cty}& d, const void* addr) {{\n"
        f'    asm volatile("ld.{sem}.{scope}.global.{ptype} %0, [%1];" : "={reg}"(d) '
        ': "l"(addr) : "memory");\n}\n'))
    return fn


def _wait_until(gen, op):
    """``T.cuda.wait_until``: a statement (the predicate is C text re-evaluated after every
    relaxed load), then an acquire load of the same address to order what follows."""
    dst, ptr, pred, scope, space, ptx_type, backoff = op.args
    if space.value != "global":
        raise ValueError(f"T.cuda.wait_until in kernel {gen.func_name}: space "
                         f"{space.value!r} is not supported yet (only 'global')")
    ptype = ptx_type.value or WAIT_UNTIL_PTX_TYPES[dst.dtype]
    cty = gen.type_name(dst.dtype)
    relaxed = _wait_load(gen, "relaxed", scope.value, ptype, cty)
    acquire = _wait_load(gen, "acquire", scope.value, ptype, cty)
    d, p, c = gen.print_expr(dst), f"(const void*)({gen.print_expr(ptr)})", gen.print_expr(pred)
    nap = ("" if isinstance(backoff, IntImm) and backoff.value == 0
           else f"__nanosleep({gen.print_expr(backoff)}); ")
    return (f"do {{ {relaxed}({d}, {p}); "
            f"while (!({c})) {{ {nap}{relaxed}({d}, {p}); }} "
            f"{{ {cty} edge; {acquire}(edge, {p}); (void)edge; }} }} while (0)")


def register() -> None:
    """Put the handlers into ``codegen_cuda.CALL_HANDLERS`` (idempotent)."""
    for name in BUILTINS:
        _cg.CALL_HANDLERS[f"tirx.cuda.{name}"] = _table_handler(name)
    for name in _ATOMIC:
        _cg.CALL_HANDLERS[f"tirx.cuda.{name}"] = _atomic_handler(name)
    _cg.CALL_HANDLERS["tirx.cuda.ldg"] = _ldg
    _cg.CALL_HANDLERS["tirx.cuda.mov_sreg"] = _mov_sreg
    _cg.CALL_HANDLERS["tirx.cuda.wait_until"] = _wait_until
