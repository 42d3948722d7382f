"""CUDA code generation of the TIRx device intrinsics: ``T.ptx.*`` and ``T.cuda.*`` calls.

This module registers handlers into ``codegen_cuda.CALL_HANDLERS`` (by op name) and
``codegen_cuda.PREFIX_HANDLERS`` (``tirx.ptx.`` for every PTX family). A handler returns
the C expression of the call and may add a *helper*: a ``__device__ __forceinline__``
function emitted once per translation unit, before the kernels (``CodeGenCUDA.helpers``),
written ``__forceinline__ __device__`` as Apache TVM 0.27 writes it.

* ``T.ptx.<family>(...)``: :func:`tvm.tirx.ptx.render_ptx` gives one inline-asm helper per
  variant (opcode, modifiers and immediates); the call passes the remaining arguments.
* ``T.cuda.<name>(...)``: each builtin becomes a ``tvm_builtin_cuda_<name>`` helper, as
  Apache TVM 0.27 emits them: ``cta_sync`` -> ``__syncthreads()``, ``warp_sync`` ->
  ``__syncwarp()``, ``warpgroup_sync(b)`` -> ``bar.sync b, 128``, ``thread_fence`` ->
  ``__threadfence()``, ``cluster_sync`` -> ``barrier.cluster.arrive`` + ``wait``,
  ``elect_sync`` -> ``elect.sync``, ``cvta_generic_to_shared`` ->
  ``__cvta_generic_to_shared``, ``mbarrier_wait(bar, phase)`` -> a ``try_wait.parity``
  loop, ``syncthreads_and/or``, ``get_tmem_addr`` (``addr + (row << 16) + col``),
  ``warp_reduce`` (a ``__shfl_xor_sync`` butterfly); ``func_call`` emits its
  ``source_code`` once and calls the function; ``printf`` is CUDA's ``printf``.
* ``cta_reduce`` (warp butterflies and a shared partial per warp); the one-intrinsic
  builtins (``ldg``, atomics, bit casts, ``grid_sync``...) are in ``codegen_cuda_builtins``.
* ``wgmma.noop_barrier(reg)`` -> an empty ``asm volatile`` that reads and writes ``reg``
  (``"+f"`` for float32, ``"+r"`` for 32-bit integers): the compiler may not move uses of a
  wgmma accumulator across it (CUTLASS calls this ``warpgroup_fence_operand``).
* Not supported yet (a ``ValueError`` says so): the wgmma / tcgen05 descriptor encoders.

:func:`join_tirx_sources` batches several generated sources into one translation unit
(one preamble, each helper once) so that one nvcc call compiles many kernels.
"""

from __future__ import annotations

import re

from ...error import InternalError
from ...ir.expr import Range
from ...tirx.expr import Call, IntImm, StringImm, Var
from ...tirx.ptx import check_arch, render_ptx
from ...tirx.stmt import AttrStmt, ForKind
from ...tirx.stmt_functor import post_order_visit
from . import codegen_cuda as _cg
from . import codegen_cuda_builtins

__all__ = ["HELPER_BEGIN", "check_target_arch", "join_tirx_sources", "register"]

HELPER_BEGIN = "// tvm helper: "


def _helper(gen, name: str, source: str) -> str:
    if source.startswith("__device__ __forceinline__ "):  # 0.27 writes the qualifiers so
        source = "__forceinline__ __device__ " + source[len("__device__ __forceinline__ "):]
    gen.helpers.setdefault(name, source)
    return name


def _ptx(gen, op) -> str:
    r = render_ptx(op)
    _helper(gen, r.name, r.source)
    args = []
    for value in r.args:
        text = gen.print_expr(value)
        if text.startswith("((unsigned long long)(&("):
            text = f"((void*){text})"  # a CUtensorMap's address into a ``const void*`` operand
        args.append(text)
    return f"{r.name}({', '.join(args)})"


def _simple(name: str, ret: str, params: str, body: str):
    """A handler for a builtin whose helper is fixed text."""
    fn = f"tvm_builtin_cuda_{name}"
    source = f"__device__ __forceinline__ {ret} {fn}({params}) {{\n{body}}}\n"

    def handle(gen, op):
        _helper(gen, fn, source)
        return f"{fn}({', '.join(gen.print_expr(a) for a in op.args)})"

    return handle


_MBAR_WAIT = (
    "  uint32_t addr = (uint32_t)__cvta_generic_to_shared(bar);\n"
    "{ticks_decl}"
    "  asm volatile(\n"
    "    \"{{\\n\"\n"
    "    \".reg .pred P1;\\n\"\n"
    "    \"WAIT_%=:\\n\"\n"
    "    \"mbarrier.try_wait.parity{sem}.shared::cta.b64 P1, [%0], %1{ticks_op};\\n\"\n"
    "    \"@!P1 bra WAIT_%=;\\n\"\n"
    "    \"}}\\n\" :: \"r\"(addr), \"r\"(phase){ticks_in} : \"memory\");\n"
)
#: ``T.cuda.mbarrier_wait``: acquire at CTA scope, with a suspend-time hint of 10^7 ns per
#: try (``0x989680``), as Apache TVM 0.27 emits it.
_MBAR_WAIT_CTA = _MBAR_WAIT.format(
    sem=".acquire.cta", ticks_decl="  uint32_t ticks = 0x989680;\n", ticks_op=", %2",
    ticks_in=', \"r\"(ticks)')
_MBAR_WAIT_CLUSTER = _MBAR_WAIT.format(sem=".acquire.cluster", ticks_decl="", ticks_op="",
                                       ticks_in="")

_HANDLERS = {
    "cta_sync": _simple("cta_sync", "void", "", "  __syncthreads();\n"),
    "warp_sync": _simple("warp_sync", "void", "", "  __syncwarp();\n"),
    "warpgroup_sync": _simple(
        "warpgroup_sync", "void", "int bar_no",
        '  asm volatile("bar.sync %0, 128;" :: "r"(bar_no) : "memory");\n'),
    "syncthreads_and": _simple("syncthreads_and", "int", "int cond",
                               "  return __syncthreads_and(cond);\n"),
    "syncthreads_or": _simple("syncthreads_or", "int", "int cond",
                              "  return __syncthreads_or(cond);\n"),
    "thread_fence": _simple("thread_fence", "void", "", "  __threadfence();\n"),
    "cluster_sync": _simple(
        "cluster_sync", "void", "",
        '  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");\n'
        '  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");\n'),
    "elect_sync": _simple(
        "elect_sync", "uint32_t", "",
        "  uint32_t pred = 0;\n"
        '  asm volatile("{ .reg .pred P; elect.sync _|P, 0xffffffff; selp.u32 %0, 1, 0, P; }"'
        ' : "=r"(pred));\n'
        "  return pred;\n"),
    "cvta_generic_to_shared": _simple(
        "cvta_generic_to_shared", "unsigned int", "void* p",
        "  return (unsigned int)__cvta_generic_to_shared(p);\n"),
    "mbarrier_wait": _simple("mbarrier_wait", "void", "void* bar, int phase", _MBAR_WAIT_CTA),
    "mbarrier_wait_acquire_cluster": _simple(
        "mbarrier_wait_acquire_cluster", "void", "void* bar, int phase", _MBAR_WAIT_CLUSTER),

    "get_tmem_addr": _simple(
        "get_tmem_addr", "uint32_t", "uint32_t addr, int row, int col",
        "  return addr + ((uint32_t)row << 16) + (uint32_t)col;\n"),
}


def _func_call(gen, op):
    name = op.args[0].value
    source = op.args[-1].value
    _helper(gen, f"func_call:{name}", source.rstrip("\n") + "\n")
    return f"{name}({', '.join(gen.print_expr(a) for a in op.args[1:-1])})"


def _printf(gen, op):
    fmt = op.args[0].value.encode("unicode_escape").decode().replace('"', '\\"')
    rest = "".join(", " + gen.print_expr(a) for a in op.args[1:])
    return f'printf("{fmt}"{rest})'


_REDUCE = {"sum": "a + b", "max": "(a > b ? a : b)", "min": "(a < b ? a : b)"}


def _warp_reduce(gen, op):
    value, kind, width = op.args
    kind = kind.value if isinstance(kind, StringImm) else str(kind)
    ty = gen.type_name(op.dtype)
    fn = f"tvm_builtin_cuda_warp_{kind}_{re.sub(r'[^0-9A-Za-z]', '_', ty)}"
    source = (
        f"__device__ __forceinline__ {ty} {fn}({ty} a, int width) {{\n"
        "  for (int offset = width / 2; offset > 0; offset /= 2) {\n"
        f"    {ty} b = __shfl_xor_sync(0xffffffffu, a, offset, width);\n"
        f"    a = {_REDUCE[kind]};\n"
        "  }\n"
        "  return a;\n"
        "}\n"
    )
    _helper(gen, fn, source)
    return f"{fn}({gen.print_expr(value)}, {gen.print_expr(width)})"


def _cta_reduce(gen, op):
    """``T.cuda.cta_reduce``: a butterfly within each warp, one partial per warp in
    ``scratch``, warp 0 reduces the partials, every thread reads ``scratch[0]`` (0.27's
    helper name ``tvm_builtin_cuda_cta_reduce_<op>_<num_warps>``, a template over the type).
    Lanes of warp 0 past ``num_warps`` contribute 0 to a sum and ``scratch[0]`` (a real
    partial) to a max / min, so no identity value of the type is needed."""
    value, kind, num_warps, scratch = op.args
    kind = kind.value if isinstance(kind, StringImm) else str(kind)
    if not isinstance(num_warps, IntImm):
        raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong argument type
            f"T.cuda.cta_reduce in kernel {gen.func_name}: num_warps must be a constant, "
            f"got {num_warps}")
    nw = num_warps.value
    fn = f"tvm_builtin_cuda_cta_reduce_{kind}_{nw}"
    combine = _REDUCE[kind]
    fill = "T(0)" if kind == "sum" else "scratch[0]"
    _helper(gen, fn, (
        "template <typename T>\n"
        f"__forceinline__ __device__ T {fn}(T val, void* scratch_raw) {{\n"
        "  T* scratch = reinterpret_cast<T*>(scratch_raw);\n"
        "  int tid = threadIdx.x + threadIdx.y * blockDim.x"
        " + threadIdx.z * blockDim.x * blockDim.y;\n"
        "  int warp = tid / 32;\n"
        "  int lane = tid % 32;\n"
        "  T a = val;\n"
        "  for (int offset = 16; offset > 0; offset /= 2) {\n"
        "    T b = __shfl_xor_sync(0xffffffffu, a, offset);\n"
        f"    a = {combine};\n"
        "  }\n"
        "  if (lane == 0) scratch[warp] = a;\n"
        "  __syncthreads();\n"
        "  if (warp == 0) {\n"
        f"    a = lane < {nw} ? scratch[lane] : {fill};\n"
        "    for (int offset = 16; offset > 0; offset /= 2) {\n"
        "      T b = __shfl_xor_sync(0xffffffffu, a, offset);\n"
        f"      a = {combine};\n"
        "    }\n"
        "    if (lane == 0) scratch[0] = a;\n"
        "  }\n"
        "  __syncthreads();\n"
        "  return scratch[0];\n"
        "}\n"))
    return f"{fn}({gen.print_expr(value)}, {gen.print_expr(scratch)})"


_FENCE_OPERAND = {"float32": ("float", "f"), "int32": ("int", "r"), "uint32": ("unsigned int", "r")}


def _wgmma_noop_barrier(gen, op):
    (reg,) = op.args
    kind = _FENCE_OPERAND.get(str(reg.dtype))
    if kind is None:
        raise ValueError(f"T.cuda.wgmma.noop_barrier in kernel {gen.func_name}: the register "
                         f"must be float32, int32 or uint32, got {reg.dtype}")
    ty, cons = kind
    fn = f"tvm_builtin_cuda_wgmma_noop_barrier_{cons}"
    _helper(gen, fn, f"__device__ __forceinline__ void {fn}({ty}& reg) {{\n"
                     f'  asm volatile("" : "+{cons}"(reg) :: "memory");\n}}\n')
    return f"{fn}({gen.print_expr(reg)})"


def _unsupported(name):
    def handle(gen, op):
        raise ValueError(
            f"T.cuda.{name} in kernel {gen.func_name}: CUDA code generation of this builtin is "
            "not supported yet"
        )

    return handle


def register() -> None:
    """Put the handlers into the CUDA code generator's tables (idempotent)."""
    for name, handler in _HANDLERS.items():
        _cg.CALL_HANDLERS[f"tirx.cuda.{name}"] = handler
    _cg.CALL_HANDLERS["tirx.cuda.func_call"] = _func_call
    _cg.CALL_HANDLERS["tirx.cuda.printf"] = _printf
    _cg.CALL_HANDLERS["tirx.cuda.warp_reduce"] = _warp_reduce
    _cg.CALL_HANDLERS["tirx.cuda.cta_reduce"] = _cta_reduce
    _cg.CALL_HANDLERS["tirx.cuda.wgmma_noop_barrier"] = _wgmma_noop_barrier
    codegen_cuda_builtins.register()
    for name in ("wgmma_encode_matrix_descriptor", "tcgen05_encode_matrix_descriptor",
                 "tcgen05_encode_instr_descriptor",
                 "tcgen05_encode_instr_descriptor_block_scaled"):
        _cg.CALL_HANDLERS[f"tirx.cuda.{name}"] = _unsupported(name)
    _cg.PREFIX_HANDLERS["tirx.ptx."] = _ptx


def thread_index_text(gen, tag: str):
    """The C text of a launch variable CUDA has no built-in name for (``clusterCtaIdx.d``:
    the CTA's index in its cluster, read from ``%cluster_ctaid.d``), else None."""
    if tag.startswith("preferredClusterCtaIdx."):
        return "0"  # a launch parameter (the preferred cluster shape), not an index
    if not tag.startswith("clusterCtaIdx."):
        return None
    dim = tag.rsplit(".", 1)[1]
    fn = f"tvm_builtin_cluster_ctaid_{dim}"
    _helper(gen, fn, (
        f"__device__ __forceinline__ unsigned int {fn}() {{\n"
        "  unsigned int id;\n"
        f'  asm volatile("mov.u32 %0, %%cluster_ctaid.{dim};" : "=r"(id));\n'
        "  return id;\n"
        "}\n"))
    return f"((int){fn}())"


_NONNEG = Range.from_min_extent(IntImm("int32", 0), IntImm("int32", 2**31 - 1))


def note_bind(gen, op) -> None:
    """Tell the printer's analyzer that a bound variable is non-negative when it is the
    ``warp_id_in_cta`` shuffle of a non-negative index, or an alias of such a variable, so
    that ``warp_id // 4`` prints as plain C division."""
    value, var = op.value, op.var
    if var.dtype != "int32":
        return
    known = getattr(gen, "_nonneg_vars", None)
    if known is None:
        known = gen._nonneg_vars = set()
    nonneg = False
    if isinstance(value, Call) and getattr(value.op, "name", "") == "tirx.tvm_warp_shuffle":
        nonneg = gen._nonnegative(value.args[1])
    elif isinstance(value, Var):
        nonneg = id(value) in known
    if nonneg:
        known.add(id(var))
        gen.analyzer.bind(var, _NONNEG, allow_override=True)


#: Kernel attributes (``T.attr({...})`` after ``T.device_entry()``) read by the code generator.
MIN_BLOCKS = "tirx.launch_bounds_min_blocks_per_sm"
MAX_BLOCKS_PER_CLUSTER = "tirx.launch_bounds_max_blocks_per_cluster"
MAX_REGISTERS = "tirx.max_registers"


def _kernel_attrs(func) -> dict:
    found = {}

    def visit(node):
        if isinstance(node, AttrStmt) and node.attr_key in (
                MIN_BLOCKS, MAX_BLOCKS_PER_CLUSTER, MAX_REGISTERS):
            found.setdefault(node.attr_key, node.value)

    post_order_visit(func.body, visit)
    return found


class KernelAttrConflict(ValueError, InternalError):
    """Kernel attributes that CUDA cannot express together: a ``ValueError`` that is also a
    ``tvm.error.InternalError``, the kind Apache TVM 0.27's code generator reports it as."""


def kernel_qualifiers(func, threads, name: str):
    """``__launch_bounds__(threads, min_blocks[, max_blocks_per_cluster]) `` or
    ``__maxnreg__(n) `` from the kernel's attributes; None when it sets none of them."""
    attrs = _kernel_attrs(func)
    if not attrs:
        return None
    text = {k: _const_int(v, k, name) for k, v in attrs.items()}
    if MAX_REGISTERS in text:
        if MIN_BLOCKS in text or MAX_BLOCKS_PER_CLUSTER in text:
            raise KernelAttrConflict(
                f"kernel {name}: {MAX_REGISTERS} (__maxnreg__) cannot be combined with CUDA "
                f"launch bounds ({MIN_BLOCKS} / {MAX_BLOCKS_PER_CLUSTER})"
            )
        return f"__maxnreg__({text[MAX_REGISTERS]}) "
    if threads is None:
        raise ValueError(f"kernel {name}: launch-bounds attributes need a constant thread count")
    operands = [str(threads), text.get(MIN_BLOCKS, "1")]
    if MAX_BLOCKS_PER_CLUSTER in text:
        operands.append(text[MAX_BLOCKS_PER_CLUSTER])
    return f"__launch_bounds__({', '.join(operands)}) "


def _const_int(value, key, name) -> str:
    if not isinstance(value, IntImm):
        raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong argument type
            f"kernel {name}: attribute {key} must be a constant integer, got {value}")
    return str(value.value)


def unroll_pragma(loop):
    """``#pragma unroll`` / ``#pragma unroll N`` / ``#pragma unroll 1`` for a serial loop
    annotated ``pragma_unroll`` (``T.serial(n, unroll=True|N)``) or ``disable_unroll``
    (``unroll=False``); None otherwise."""
    ann = loop.annotations or {}
    if loop.kind == ForKind.UNROLLED:
        return None  # the C printer writes its own ``#pragma unroll``
    if ann.get("disable_unroll"):
        return "#pragma unroll 1"
    value = ann.get("pragma_unroll")
    is_bool = isinstance(value, bool) or getattr(value, "dtype", None) == "bool"
    count = value.value if hasattr(value, "value") else value
    if value is None or not count:
        return None
    return "#pragma unroll" if is_bool else f"#pragma unroll {int(count)}"


#: The ``cuda`` target kind's placeholder arch when none is given (``Target("cuda")``).
_DEFAULT_ARCH = "sm_50"


def _target_arch(target):
    if target is None:
        return None
    attrs = getattr(target, "attrs", None)
    arch = attrs.get("arch") if attrs is not None and hasattr(attrs, "get") else None
    return str(arch) if arch else None


def check_target_arch(funcs, target) -> None:
    """Reject, before nvcc, a kernel using a ``T.ptx``/``T.cuda`` instruction that the
    target's ``arch`` lacks (:func:`tvm.tirx.ptx.check_arch`: the instruction, the arch it
    needs and the TVMScript line). Without an ``arch`` nothing is checked."""
    arch = _target_arch(target)
    if arch is None or arch == _DEFAULT_ARCH:
        # No arch was asked for: "sm_50" is the target kind's placeholder, as in Apache TVM
        # 0.27 (which checks nothing); nvcc judges the instructions then.
        return
    for _name, func in funcs:
        check_arch(func, arch)


def helper_text(helpers: dict) -> str:
    """The helper definitions, each after a ``// tvm helper: <name>`` marker line."""
    return "".join(f"{HELPER_BEGIN}{name}\n{source}" for name, source in helpers.items())


def join_tirx_sources(sources) -> str:
    """One translation unit from several generated sources (``nvcc.join_sources``)."""
    from .nvcc import join_sources  # nvcc.py imports this module's helper markers lazily

    return join_sources(sources)


register()
