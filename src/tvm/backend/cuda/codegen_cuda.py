"""``CodeGenCUDA``: CUDA C for the device functions of a module (the kernels SplitHostDevice made).

Each kernel prints as ``extern "C" __global__ void __launch_bounds__(N) name(params)``, where
``N`` is the product of its constant ``threadIdx`` extents; pointer parameters are
``T* __restrict__``, a ``CUtensorMap`` parameter is ``const __grid_constant__ CUtensorMap``.
Launch variables print as ``((int)threadIdx.x)``. Allocations: ``shared`` ->
``__shared__ alignas(64) T name_ptr[n];``, ``local`` -> ``alignas(64) T name_ptr[n];``, ``shared.dyn`` -> a
pointer into the one ``extern __shared__`` array of the kernel (offsets from
``tvm.tirx.transform.split_host_device.dyn_shared_memory_layout``). ``tvm_storage_sync`` ->
``__syncthreads()``/``__syncwarp()``, warp shuffles -> ``__shfl_sync`` and friends. Vector
types: ``float2``/``float4``, ``int2``/``int4``, ``half2``, ``nv_bfloat162``... with contiguous
loads and stores through a vector pointer and lane-wise arithmetic.

:func:`codegen` returns the whole translation unit: :func:`preamble` (our own: includes for
the dtypes used, integer type names) followed by declarations and kernels.
"""

from __future__ import annotations

import math
from typing import ClassVar

from ...ir.type import PointerType
from ...runtime.data_type import dtype_info
from ...tirx import expr as E
from ...tirx.expr import Var
from ...tirx.function import PrimFunc
from ...tirx.stmt import AllocBuffer, AttrStmt, DeclBuffer
from ...tirx.stmt_functor import post_order_visit
from ...tirx.transform.split_host_device import dyn_shared_memory_layout
from ..c.codegen_c import CodeGenC, hex_float
from . import intrin

__all__ = ["CodeGenCUDA", "codegen", "preamble"]

_SCALAR = {
    "float16": "half", "bfloat16": "nv_bfloat16", "float8_e4m3fn": "__nv_fp8_e4m3",
    "float8_e5m2": "__nv_fp8_e5m2", "int8": "signed char", "uint8": "unsigned char",
    "int16": "short", "uint16": "unsigned short", "int64": "int64_t", "uint64": "uint64_t",
    "uint128": "__uint128_t", "int128": "__int128_t",  # b128 registers (ld.b128, CLC)
}
# (element, lanes) -> CUDA vector type.
_VECTOR = {
    ("float32", 2): "float2", ("float32", 3): "float3", ("float32", 4): "float4",
    ("float64", 2): "double2", ("float64", 4): "double4",
    ("int32", 2): "int2", ("int32", 3): "int3", ("int32", 4): "int4",
    ("uint32", 2): "uint2", ("uint32", 4): "uint4",
    ("int64", 2): "longlong2", ("int8", 4): "char4", ("uint8", 4): "uchar4",
    ("float16", 2): "half2", ("bfloat16", 2): "nv_bfloat162",
}
# Vector constructors whose name is not ``make_<type>``.
_MAKE = {"nv_bfloat162": "make_bfloat162"}
_DYN_SHARED = "buf_dyn_shmem"
#: op name -> ``handler(gen, call) -> str``, and op-name prefix -> handler: filled by
#: ``codegen_tirx`` (the ``T.ptx``/``T.cuda`` calls of TIRx kernels).
CALL_HANDLERS: dict = {}
PREFIX_HANDLERS: dict = {}


class CodeGenCUDA(CodeGenC):
    """C printer with CUDA types, qualifiers and intrinsics (see module doc)."""

    CALL_METHODS: ClassVar[dict] = {
        **CodeGenC.CALL_METHODS,
        "tirx.tvm_storage_sync": "call_tvm_storage_sync",
        "tirx.tvm_warp_shuffle": "call_tvm_warp_shuffle",
        "tirx.tvm_warp_shuffle_up": "call_tvm_warp_shuffle_up",
        "tirx.tvm_warp_shuffle_down": "call_tvm_warp_shuffle_down",
        "tirx.tvm_warp_activemask": "call_tvm_warp_activemask",
        "tirx.tvm_access_ptr": "call_tvm_access_ptr",
    }

    def __init__(self):
        super().__init__()
        self.uses: set = set()  # "fp16", "bf16", "fp8": headers the preamble must include
        self.helpers: dict = {}  # name -> __device__ helper source, emitted before the kernels

    # --- integer floor division by a power of two (0.27's LowerIntrin: a shift / a mask) ---------
    @staticmethod
    def _pow2_shift(op):
        b = op.b
        info = dtype_info(op.dtype)
        if (info.kind in ("int", "uint") and info.lanes == 1 and isinstance(b, E.IntImm)
                and b.value > 1 and b.value & (b.value - 1) == 0):
            return b.value.bit_length() - 1
        return None

    def _floordiv(self, op) -> str:
        shift = self._pow2_shift(op)
        if shift is None:
            return super()._floordiv(op)
        return f"({self.print_expr(op.a)} >> {shift})"  # exact for negatives too

    def _floormod(self, op) -> str:
        shift = self._pow2_shift(op)
        if shift is None:
            return super()._floormod(op)
        return f"({self.print_expr(op.a)} & {(1 << shift) - 1})"

    # --- types ---------------------------------------------------------------------------------
    def type_name(self, dtype: str) -> str:
        """The CUDA type of ``dtype`` (``half``, ``float4``, ``__nv_bfloat162``...).

        Using a float16, bfloat16 or float8 type records that the preamble needs its header.

        Raises
        ------
        ValueError
            For a vector type with no CUDA type; the message lists the supported ones.
        """
        info = dtype_info(dtype)
        element = info.element
        if element == "float16" or element == "bfloat16" or element.startswith("float8"):
            self.uses.add({"float16": "fp16", "bfloat16": "bf16"}.get(element, "fp8"))
        if element in ("int4", "uint4"):
            return _packed_int4_type(element, info.lanes)
        if info.lanes == 1:
            return _SCALAR.get(element) or super().type_name(dtype)
        name = _VECTOR.get((element, info.lanes))
        if name is None:
            raise ValueError(
                f"vector type {dtype} has no CUDA type in the code generator (supported: "
                f"{', '.join(sorted(f'{e}x{n}' for e, n in _VECTOR))})"
            )
        return name

    def make_vector(self, dtype: str, items: str) -> str:
        """A vector value from comma-separated lanes: ``make_float4(...)`` and friends."""
        name = self.type_name(dtype)
        return f"{_MAKE.get(name, 'make_' + name)}({items})"

    def float_literal(self, value: float, dtype: str) -> str:
        """A float constant as CUDA spells it.

        NaN and infinities use the ``CUDART_*`` names; float16 and bfloat16 go through
        ``__float2half_rn``/``__float2bfloat16_rn`` of a float32 literal, float8 through a cast;
        float64 prints in fixed point when that is exact.
        """
        if math.isnan(value) or math.isinf(value):
            # math_constants.h (included by the preamble) names them.
            name = "CUDART_NAN" if math.isnan(value) else "CUDART_INF"
            sign = "-" if value < 0 else ""
            if dtype == "float64":
                return f"{sign}{name}"
            text = f"{sign}{name}_F"
            return text if dtype == "float32" else f"(({self.type_name(dtype)}){text})"
        if dtype == "float16":
            return f"__float2half_rn({super().float_literal(value, 'float32')})"
        if dtype == "bfloat16":
            return f"__float2bfloat16_rn({super().float_literal(value, 'float32')})"
        if dtype.startswith("float8"):
            return f"(({self.type_name(dtype)}){super().float_literal(value, 'float32')})"
        if dtype == "float64":
            fixed = f"{value:.15f}"
            return fixed if float(fixed) == value else f"{hex_float(value)}/*{value:e}*/"
        return super().float_literal(value, dtype)

    def _cast(self, op) -> str:
        src, dst = dtype_info(op.value.dtype), dtype_info(op.dtype)
        if (src.element != dst.element and src.element.startswith("float8")
                and dst.element.startswith("float8") and src.lanes == dst.lanes == 1):
            # cuda_fp8.h has no conversion between two fp8 formats: go through float.
            return f"(({self.type_name(op.dtype)})((float){self.print_expr(op.value)}))"
        return super()._cast(op)

    def _minmax(self, op) -> str:
        element = dtype_info(op.dtype).element
        if element in ("float16", "bfloat16") and dtype_info(op.dtype).lanes == 1:
            fn = "__hmin" if type(op).__name__ == "Min" else "__hmax"
            return f"{fn}({self.print_expr(op.a)}, {self.print_expr(op.b)})"
        return super()._minmax(op)

    # --- functions -----------------------------------------------------------------------------
    def reserved_names(self) -> tuple:
        """CUDA built-in names (``threadIdx``, ``blockIdx``...) and the dynamic shared buffer."""
        return (_DYN_SHARED, "threadIdx", "blockIdx", "blockDim", "gridDim")

    def add_function(self, name: str, func) -> None:
        """Print ``func`` as the CUDA function ``name`` (a kernel when it has a launch)."""
        self._is_kernel = _is_kernel(func)
        super().add_function(name, func)

    def print_param(self, var) -> str:
        """One parameter: ``const __grid_constant__ CUtensorMap`` for a tensor map, a
        ``__restrict__`` pointer for a kernel's buffer, else a scalar.
        """
        name = self.bind_var(var)
        ann = getattr(var, "type_annotation", None)
        if _is_tensor_map(ann):
            return f"const __grid_constant__ CUtensorMap {name}"
        element = self.pointer_element(var)
        if element is not None:
            restrict = " __restrict__" if self._is_kernel else ""
            return f"{self.type_name(element)}*{restrict} {name}"
        return f"{self.type_name(var.dtype)} {name}"

    def function_head(self, name: str, func, params: list) -> str:
        """The signature: ``extern "C" __global__`` with ``__launch_bounds__`` for a kernel of more
        than one thread (or the qualifiers TIRx asks for), ``extern "C" __device__ void`` for a
        function without a launch.
        """
        if not self._is_kernel:
            # No launch: 0.27 prints a plain device function.
            return f'extern "C" __device__ void {name}({", ".join(params)})'
        threads = _block_threads(func)
        # 0.27 leaves one-thread kernels without launch bounds.
        bounds = f"__launch_bounds__({threads}) " if threads not in (None, 1) else ""
        bounds = codegen_tirx.kernel_qualifiers(func, threads, self.func_name or name) or bounds
        return f'extern "C" __global__ void {bounds}{name}({", ".join(params)})'

    def begin_body(self, func) -> None:
        """Declare the ``extern __shared__`` byte array when the function uses dynamic shared
        memory, and lay out the buffers that live in it.
        """
        self._dyn_offsets = {}
        dyn = _dyn_shared_buffers(func.body)
        if dyn:
            self._dyn_offsets, _ = dyn_shared_memory_layout(dyn)
            align = _dyn_shared_align(func.body)
            self.emit(f"extern __shared__ __align__({align}) unsigned char {_DYN_SHARED}[];")

    # --- statements ----------------------------------------------------------------------------
    def _for(self, op):
        pragma = codegen_tirx.unroll_pragma(op)
        if pragma is not None:
            self.emit(pragma)
        super()._for(op)

    def _decl(self, op):
        data, buf = op.data, op.buffer
        if (isinstance(data, Var) and id(data) in self._var_names
                and id(buf.data) not in self._var_names
                and self.pointer_element(data) == buf.dtype):
            # A view of a pointer of the same element type: its name, as 0.27 prints it.
            self.bind_var(buf.data, self._var_names[id(data)])
            return
        super()._decl(op)

    def bind_thread_index(self, iter_var) -> None:
        """Bind a launch variable to its CUDA built-in (``threadIdx.x``...) the first time it is
        seen.
        """
        tag = iter_var.thread_tag
        if id(iter_var.var) not in self._var_names:
            text = codegen_tirx.thread_index_text(self, tag) or f"((int){tag})"
            self.bind_var(iter_var.var, text)

    def _return(self, op):
        self.emit("return;")  # a kernel returns void: ``return 0`` leaves early

    def _evaluate(self, op):
        # The expression as printed, outer parentheses kept (``((unsigned long long)(&(m)));``).
        if isinstance(op.value, (E.IntImm, E.FloatImm)):
            return
        self.emit(self.print_expr(op.value) + ";")

    def _bind(self, op):
        if str(op.var.dtype) == "handle" and self.pointer_element(op.var) is None:
            # An untyped pointer takes its value through a cast, as Apache TVM 0.27 prints it
            # (``void* s_ptr = (void*)tvm_builtin_pointer_offset(...);``).
            value = self.print_expr(op.value)
            ty = self.declared_type(op.var)
            self.emit(f"{ty} {self.bind_var(op.var)} = ({ty}){value};")
        else:
            super()._bind(op)
        codegen_tirx.note_bind(self, op)

    def print_allocation(self, buf) -> None:
        """Declare an allocated buffer by its storage scope.

        ``shared.dyn`` becomes a pointer into the dynamic shared array, ``shared`` an aligned
        ``__shared__`` array, ``local``/``warp`` a local array.

        Raises
        ------
        ValueError
            For any other storage scope.
        """
        scope = buf.scope()
        if scope == "shared.dyn":
            name = self.bind_var(buf.data, self.alloc_name(f"{buf.name}_ptr"))
            ty = self.type_name(buf.dtype)
            offset = self._dyn_offsets[id(buf.data)]
            if not isinstance(offset, int):  # a symbolic size before this buffer
                offset = self.print_expr(offset)
            self.emit(f"{ty}* {name} = ({ty}*)({_DYN_SHARED} + {offset});")
            return
        # The array is named after its data pointer, ``<buffer>_ptr``, as in TVM's output.
        name = self.bind_var(buf.data, self.alloc_name(f"{buf.name}_ptr"))
        size = self.constant_size(buf)
        ty = self.type_name(buf.dtype)
        if scope == "shared":
            align = max(64, int(getattr(buf, "data_alignment", 64) or 64))  # align=1024 tiles
            self.emit(f"__shared__ alignas({align}) {ty} {name}[{size}];")
        elif scope in ("local", "warp", ""):
            self.emit(f"alignas(64) {ty} {name}[{size}];")
        else:
            raise ValueError(
                f"buffer {buf.name} in kernel {self.func_name} has storage scope {scope!r}; "
                "a kernel can allocate shared, shared.dyn or local memory"
            )

    # --- calls ---------------------------------------------------------------------------------
    def call_tvm_storage_sync(self, op) -> str:
        """``tvm_storage_sync``: ``__syncthreads()`` for shared memory, ``__syncwarp()`` for a warp.

        Raises
        ------
        ValueError
            For a grid-wide barrier (not supported yet).
        """
        scope = op.args[0].value
        if scope == "shared" or scope == "shared.dyn":
            return "__syncthreads()"
        if scope == "warp":
            return "__syncwarp()"
        raise ValueError(
            f"tvm_storage_sync({scope!r}) in {self.func_name}: a grid-wide barrier is not "
            "supported yet"
        )

    def _shuffle(self, fn, op) -> str:
        mask, value, lane, width, _ = (self.print_expr(a) for a in op.args)
        return f"{fn}({mask}, {value}, {lane}, {width})"

    def call_tvm_warp_shuffle(self, op) -> str:
        """``tvm_warp_shuffle(mask, value, lane, width, _)`` as ``__shfl_sync``."""
        return self._shuffle("__shfl_sync", op)

    def call_tvm_warp_shuffle_up(self, op) -> str:
        """``tvm_warp_shuffle_up`` as ``__shfl_up_sync``."""
        return self._shuffle("__shfl_up_sync", op)

    def call_tvm_warp_shuffle_down(self, op) -> str:
        """``tvm_warp_shuffle_down`` as ``__shfl_down_sync``."""
        return self._shuffle("__shfl_down_sync", op)

    def call_tvm_warp_activemask(self, op) -> str:
        """``tvm_warp_activemask`` as ``__activemask()``."""
        return "__activemask()"

    def call_tvm_access_ptr(self, op) -> str:
        """``T.tvm_access_ptr(T.type_annotation(dt), data, offset, extent, mask)``: the address
        of element ``offset`` (in ``dt`` units) of ``data``.

        A vector ``dt`` of ``lanes`` lanes is addressed as 0.27 prints it after lowering the
        access to a scalar buffer: ``(vec*)(((scalar*)data) + offset*lanes)``, or for packed
        4-bit lanes ``((vec*)data) + offset*lanes / lanes``.
        """
        dtype = op.args[0].dtype
        data = self.print_expr(op.args[1])
        lanes = dtype_info(dtype).lanes
        if lanes == 1:
            offset = self.print_expr(op.args[2])
            return f"(&({data}[{offset}]))"
        scaled = self.print_expr(self.analyzer.simplify(op.args[2] * lanes))
        info = dtype_info(dtype)
        if info.bits < 8:  # packed sub-byte lanes: offset in whole vectors
            return f"(&(*((({self.type_name(dtype)}*){data}) + {scaled} / {lanes})))"
        scalar = self.type_name(info.element)
        return f"(&(*({self.type_name(dtype)}*)((({scalar}*){data}) + {scaled})))"

    def call_fallback(self, op, name: str) -> str:
        """An intrinsic without a method: a registered CUDA handler, then a lowering rule from
        :mod:`.intrin`, then the C generator's fallback (which raises).
        """
        handler = _handler(op.op.name)
        if handler is not None:
            return handler(self, op)
        rule = intrin.INTRIN_RULES.get(name)
        if rule is not None:
            return self.print_expr(rule(op))
        return super().call_fallback(op, name)

    def call_fabs(self, op) -> str:
        """``fabs`` through the CUDA intrinsic rule (``fabsf``, ``__habs``... by dtype)."""
        return self.print_expr(intrin.INTRIN_RULES["fabs"](op))

    def call_address_of(self, op) -> str:
        """``address_of``: ``&(param)`` for a by-value kernel parameter (as ``unsigned long long``
        for a CUtensorMap), else the address of a buffer element.
        """
        arg = op.args[0]
        if isinstance(arg, Var):  # T.address_of(A_map): a by-value kernel parameter
            text = f"(&({self.print_expr(arg)}))"
            if _is_tensor_map(getattr(arg, "type_annotation", None)):
                return f"((unsigned long long){text})"  # a CUtensorMap's generic address
            return text
        return super().call_address_of(op)


def _handler(op_name: str):
    handler = CALL_HANDLERS.get(op_name)
    if handler is None:
        for prefix, fn in PREFIX_HANDLERS.items():
            if op_name.startswith(prefix):
                return fn
    return handler


def _is_tensor_map(ann) -> bool:
    if ann is None:
        return False
    if type(ann).__name__ == "TensorMapType":
        return True
    if type(getattr(ann, "element_type", None)).__name__ == "TensorMapType":
        return True  # T.TensorMap(): PointerType(TensorMapType())
    return isinstance(ann, PointerType) and ann.storage_scope == "tensormap"


def _packed_int4_type(element: str, lanes: int) -> str:
    """The integer type that holds ``lanes`` packed 4-bit lanes (0.27's names)."""
    unsigned = element == "uint4"
    names = {1: "int", 4: "int16_t", 8: "int", 16: "int2", 32: "int4", 64: "int8"}
    if lanes not in names:
        raise ValueError(f"vector type {element}x{lanes} has no CUDA type in the code "
                         "generator (4-bit lanes: 1, 4, 8, 16, 32 or 64)")
    return ("u" if unsigned else "") + names[lanes]


def _is_kernel(func: PrimFunc) -> bool:
    """Whether ``func`` is launched (``__global__``): ``calling_conv`` 2 or a thread binding.

    A function with neither is printed as a ``__device__`` function, as 0.27 does."""
    if func.get_attr("calling_conv") == 2:
        return True
    found = []

    def visit(node):
        if isinstance(node, AttrStmt) and node.attr_key == "thread_extent":
            found.append(node)

    post_order_visit(func.body, visit)
    return bool(found)


def _block_threads(func: PrimFunc):
    extents: dict = {}

    def visit(node):
        if isinstance(node, AttrStmt) and node.attr_key == "thread_extent":
            tag = node.node.thread_tag
            if tag.startswith("threadIdx."):
                extents.setdefault(tag, node.value)

    post_order_visit(func.body, visit)
    total = 1
    for value in extents.values():
        if not hasattr(value, "value"):
            return None
        total *= int(value.value)
    return total if extents else None


def _dyn_shared_align(body) -> int:
    """The alignment of the dynamic shared memory array: 16 bytes, or a buffer's explicit
    alignment above the default 64 (``align=1024`` swizzled TMA/wgmma tiles of a
    ``T.SMEMPool``): the extern array's alignment is where the driver places the dynamic
    shared memory."""
    align = 16

    def visit(node):
        nonlocal align
        if isinstance(node, (AllocBuffer, DeclBuffer)) and node.buffer.scope() == "shared.dyn":
            asked = int(getattr(node.buffer, "data_alignment", 0) or 0)
            if asked > 64:
                align = max(align, asked)

    post_order_visit(body, visit)
    return align


def _dyn_shared_buffers(body) -> list:
    found = []

    def visit(node):
        if isinstance(node, AllocBuffer) and node.buffer.scope() == "shared.dyn":
            found.append(node.buffer)

    post_order_visit(body, visit)
    return found


def preamble(uses=()) -> str:
    """The lines before the kernels: headers for the dtypes in ``uses`` and type names."""
    lines = [
        "// Generated by pytvm (tvm.backend.cuda.codegen_cuda).",
        "#include <cstdint>",
        "#include <cuda.h>",
        "#include <math_constants.h>",
    ]
    if "fp16" in uses:
        lines.append("#include <cuda_fp16.h>")
    if "bf16" in uses:
        lines.append("#include <cuda_bf16.h>")
    if "fp8" in uses:
        lines.append("#include <cuda_fp8.h>")
    lines += [
        "#ifndef PYTVM_CUDA_TYPES",
        "#define PYTVM_CUDA_TYPES",
        "typedef unsigned int uint;",
        "typedef unsigned char uchar;",
        "typedef unsigned short ushort;",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def kernel_functions(mod) -> list:
    """``[(name, PrimFunc)]`` of the device kernels of ``mod`` (``calling_conv`` 2)."""
    out = []
    for gvar, func in mod.functions.items():
        if isinstance(func, PrimFunc) and func.get_attr("calling_conv") == 2:
            out.append((gvar.name_hint, func))
    return out


def codegen(mod, target=None) -> str:
    """CUDA C for every kernel of ``mod`` (an IRModule of device PrimFuncs, or one PrimFunc).

    A PrimFunc without ``calling_conv`` 2 is printed as a kernel too when it is the only
    function given, so a hand-written launch-form PrimFunc can be printed directly.
    """
    if isinstance(mod, PrimFunc):
        funcs = [(str(mod.get_attr("global_symbol") or "main"), mod)]
    else:
        funcs = kernel_functions(mod)
        if not funcs:
            funcs = [(g.name_hint, f) for g, f in mod.functions.items()
                     if isinstance(f, PrimFunc)]
    codegen_tirx.check_target_arch(funcs, target)
    gen = CodeGenCUDA()
    for name, func in funcs:
        gen.add_function(name, func)
    return preamble(gen.uses) + codegen_tirx.helper_text(gen.helpers) + gen.finish()


from . import codegen_tirx  # registers into CALL_HANDLERS (it imports this module)
