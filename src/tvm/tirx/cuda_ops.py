"""``T.cuda.*``: CUDA device builtins as TIR intrinsics, and ``T.address_of``.

Each builtin is an Op ``tirx.cuda.<name>`` (effect kind UpdateState, as in Apache TVM 0.27)
that prints as ``T.cuda.<name>(...)``; the ones under a sub-namespace print with a dot
(``tirx.cuda.wgmma_encode_matrix_descriptor`` prints as
``T.cuda.wgmma.encode_matrix_descriptor``, through the op attribute ``TScriptPrinterName``).
The CUDA code generator (``tvm.backend.cuda``) gives them meaning; this module only builds,
checks and prints the IR.

``required_arch`` of a builtin is in :data:`CUDA_OP_ARCH` (used by
:func:`tvm.tirx.ptx.check_arch`).

Examples
--------
>>> from tvm.tirx.cuda_ops import cuda
>>> cuda.cta_sync().op.name
'tirx.cuda.cta_sync'
>>> cuda.elect_sync().dtype
'uint32'
"""

from __future__ import annotations

from ..ir.op import register_op, register_op_attr
from ..runtime.data_type import DataType
from .expr import Call, IntImm, StringImm
from .op import CallEffectKind, address_of

__all__ = ["CUDA_OP_ARCH", "LDG_SCALAR_DTYPES", "LDG_VECTOR_DTYPES", "WAIT_UNTIL_PTX_TYPES",
           "CUDANamespace", "address_of", "cuda"]

#: (name, printed name or None, minimum arch or None).
_OPS = [
    ("cta_sync", None, None),
    ("warp_sync", None, None),
    ("warpgroup_sync", None, None),
    ("grid_sync", None, "sm_60"),
    ("syncthreads_and", None, None),
    ("syncthreads_or", None, None),
    ("thread_fence", None, None),
    ("cluster_sync", None, "sm_90"),
    ("elect_sync", None, "sm_90"),
    ("cvta_generic_to_shared", None, None),
    ("mbarrier_wait", None, "sm_90"),
    ("mbarrier_wait_acquire_cluster", None, "sm_90"),
    ("func_call", None, None),
    ("printf", None, None),
    ("get_tmem_addr", None, None),
    ("warp_reduce", None, None),
    ("cta_reduce", None, None),
    ("wgmma_noop_barrier", "cuda.wgmma.noop_barrier", None),
    ("wgmma_encode_matrix_descriptor", "cuda.wgmma.encode_matrix_descriptor", None),
    ("tcgen05_encode_matrix_descriptor", "cuda.tcgen05.encode_matrix_descriptor", None),
    ("tcgen05_encode_instr_descriptor", "cuda.tcgen05.encode_instr_descriptor", None),
    ("tcgen05_encode_instr_descriptor_block_scaled",
     "cuda.tcgen05.encode_instr_descriptor_block_scaled", None),
    # memory, atomics, timing
    ("ldg", None, None),
    ("atomic_add", None, None),
    ("atomic_cas", None, None),
    ("nano_sleep", None, "sm_70"),
    ("clock64", None, None),
    ("thread_rank", None, None),
    ("smem_addr_from_uint64", None, None),
    ("mov_sreg", None, None),
    ("trap_when_assert_failed", None, None),
    ("wait_until", None, "sm_70"),
    # warp votes and reductions
    ("ballot_sync", None, None),
    ("any_sync", None, None),
    ("reduce_add_sync_u32", None, "sm_80"),
    ("reduce_min_sync_u32", None, "sm_80"),
    ("ffs_u32", None, None),
    # bit casts and conversions
    ("uint_as_float", None, None),
    ("float_as_uint", None, None),
    ("fdividef", None, None),
    ("half2float", None, None),
    ("bfloat162float", None, None),
    ("make_float2", None, None),
    ("float2_x", None, None),
    ("float2_y", None, None),
    ("fmul2_rn", None, "sm_100"),
    ("fadd2_rn", None, "sm_100"),
    ("float22bfloat162_rn", None, None),
    ("float22bfloat162_rn_from_float2", None, None),
    ("bfloat1622float2", None, None),
    ("hmin2", None, None),
    ("hmax2", None, None),
    ("fp8x4_e4m3_from_float4", None, None),
    ("float22half2", None, None),
    ("half8tofloat8", None, None),
    ("float8tohalf8", None, None),
]

#: op name -> the oldest arch whose CUDA code can use it (absent: any).
CUDA_OP_ARCH = {f"tirx.cuda.{n}": arch for n, _, arch in _OPS if arch}

for _name, _printed, _arch in _OPS:
    register_op(f"tirx.cuda.{_name}", family="cuda")
    register_op_attr(f"tirx.cuda.{_name}", "TCallEffectKind", CallEffectKind.UpdateState)
    register_op_attr(f"tirx.cuda.{_name}", "TDeviceIntrinsicNamespace", "cuda")
    register_op_attr(f"tirx.cuda.{_name}", "TIRxOpCategory", "device_intrin")
    if _printed:
        register_op_attr(f"tirx.cuda.{_name}", "TScriptPrinterName", _printed)
del _name, _printed, _arch

# Flat TIR builtins of the tensor-core pipeline (``tirx.mma_store``, ``tirx.mma_fill``), which
# 0.27 prints under ``T.cuda``: category ``builtin``, no device namespace.
for _name in ("mma_store", "mma_fill"):
    register_op(f"tirx.{_name}", family="builtin")
    register_op_attr(f"tirx.{_name}", "TCallEffectKind", CallEffectKind.UpdateState)
    register_op_attr(f"tirx.{_name}", "TIRxOpCategory", "builtin")
    register_op_attr(f"tirx.{_name}", "TScriptPrinterName", f"cuda.{_name}")
del _name

_REDUCE_OPS = ("sum", "max", "min")


def _call(name, dtype, *args):
    return Call(dtype, f"tirx.cuda.{name}", list(args))


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, IntImm)):
        if hasattr(value, "dtype"):
            return value
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}")
    return value


#: dtypes of the scalar ``T.cuda.ldg`` and of its vector (``v2``/``v4``) form.
LDG_SCALAR_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                     "float16", "bfloat16", "float32", "float64")
LDG_VECTOR_DTYPES = ("int32", "uint32", "float32")


#: ``T.cuda.wait_until``: memory scopes, and dst dtype -> PTX load type.
_WAIT_SCOPES = ("cta", "cluster", "gpu", "sys")
WAIT_UNTIL_PTX_TYPES = {"int32": "s32", "uint32": "u32", "int64": "s64", "uint64": "u64"}


def _is_local_scalar(value):
    buf = getattr(value, "buffer", None)
    return (buf is not None and buf.scope() == "local" and len(value.indices) == 1
            and tuple(int(getattr(s, "value", -1)) for s in buf.shape) == (1,))


def _dtype_text(dtype, what):
    text = dtype.value if isinstance(dtype, StringImm) else dtype
    if not isinstance(text, str):
        text = str(text) if hasattr(text, "bits") else None
    if not text:
        raise TypeError(f"{what}: dtype must be a dtype string, got {dtype!r}")
    return str(DataType(text))


def _dtype_of(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "dtype"):
        raise TypeError(f"{what} must be a PrimExpr or number, got {type(value).__name__}")
    if isinstance(value, int):
        return "int32"
    if isinstance(value, float):
        return "float32"
    return value.dtype


def _check_reduce_op(fn, op):
    op = op.value if isinstance(op, StringImm) else op
    if op not in _REDUCE_OPS:
        raise ValueError(f"T.cuda.{fn}: op must be one of {', '.join(_REDUCE_OPS)}, got {op!r}")
    return op


class _WGMMANamespace:
    """``T.cuda.wgmma``: Hopper warpgroup MMA helpers."""

    @staticmethod
    def noop_barrier(reg):
        """``T.cuda.wgmma.noop_barrier(reg)``: an empty asm that pins ``reg`` (a fragment
        register) across wgmma instructions."""
        return _call("wgmma_noop_barrier", "", reg)

    @staticmethod
    def encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle):
        """Write the 64-bit wgmma shared-memory matrix descriptor of ``addr`` into ``*desc``
        (leading/stride byte offsets ``ldo``/``sdo``, swizzle mode ``swizzle``)."""
        return _call("wgmma_encode_matrix_descriptor", "", desc, addr, _int(ldo, "ldo"),
                     _int(sdo, "sdo"), _int(swizzle, "swizzle"))


_INSTR_DESC_FIELDS = ("d_dtype", "a_dtype", "b_dtype", "M", "N", "K", "trans_a", "trans_b",
                      "n_cta_groups", "neg_a", "neg_b", "sat_d", "is_sparse")
_INSTR_DESC_DEFAULTS = {"n_cta_groups": 1, "neg_a": False, "neg_b": False, "sat_d": False,
                        "is_sparse": False}
_BS_DESC_FIELDS = ("d_dtype", "a_dtype", "b_dtype", "sfa_dtype", "sfb_dtype", "sfa_tmem_addr",
                   "sfb_tmem_addr", "M", "N", "K", "trans_a", "trans_b", "n_cta_groups",
                   "neg_a", "neg_b", "is_sparse")
_BS_DESC_DEFAULTS = {"n_cta_groups": 1, "neg_a": False, "neg_b": False, "is_sparse": False}


def _desc_args(fn, fields, defaults, args, kwargs):
    if len(args) > len(fields):
        raise TypeError(f"T.cuda.tcgen05.{fn} takes at most {len(fields) + 1} arguments")
    values = dict(zip(fields, args))
    for key, value in kwargs.items():
        if key not in fields:
            raise TypeError(f"T.cuda.tcgen05.{fn}: unexpected argument {key!r}; "
                            f"valid: {', '.join(fields)}")
        if key in values:
            raise TypeError(f"T.cuda.tcgen05.{fn}: {key!r} given twice")
        values[key] = value
    out = []
    for key in fields:
        if key not in values:
            if key not in defaults:
                raise TypeError(f"T.cuda.tcgen05.{fn}: missing argument {key!r}")
            values[key] = defaults[key]
        value = values[key]
        out.append(IntImm("bool", int(value)) if isinstance(value, bool) else value)
    return out


class _TCGen05Namespace:
    """``T.cuda.tcgen05``: Blackwell descriptor helpers."""

    @staticmethod
    def encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle):
        """Write the 64-bit tcgen05 shared-memory matrix descriptor of ``addr`` into ``*desc``."""
        return _call("tcgen05_encode_matrix_descriptor", "", desc, addr, _int(ldo, "ldo"),
                     _int(sdo, "sdo"), _int(swizzle, "swizzle"))

    @staticmethod
    def encode_instr_descriptor(desc, *args, **kwargs):
        """Write the 32-bit tcgen05.mma instruction descriptor into ``*desc``: ``d_dtype``,
        ``a_dtype``, ``b_dtype``, ``M``, ``N``, ``K``, ``trans_a``, ``trans_b``,
        ``n_cta_groups=1``, ``neg_a``, ``neg_b``, ``sat_d``, ``is_sparse`` (by keyword, or
        positionally in that order as the printer writes them)."""
        values = _desc_args("encode_instr_descriptor", _INSTR_DESC_FIELDS,
                            _INSTR_DESC_DEFAULTS, args, kwargs)
        return _call("tcgen05_encode_instr_descriptor", "", desc, *values)

    @staticmethod
    def encode_instr_descriptor_block_scaled(desc, *args, **kwargs):
        """The block-scaled (``kind::mxf8f6f4``/``mxf4``) variant of
        :meth:`encode_instr_descriptor`, with scale-factor dtypes and TMEM addresses."""
        values = _desc_args("encode_instr_descriptor_block_scaled", _BS_DESC_FIELDS,
                            _BS_DESC_DEFAULTS, args, kwargs)
        return _call("tcgen05_encode_instr_descriptor_block_scaled", "", desc, *values)


class CUDANamespace:
    """``T.cuda``: CUDA device builtins (synchronisation, election, reductions, inline CUDA)."""

    wgmma = _WGMMANamespace()
    tcgen05 = _TCGen05Namespace()

    # -- synchronisation ---------------------------------------------------------------------
    @staticmethod
    def cta_sync():
        """``__syncthreads()``."""
        return _call("cta_sync", "")

    @staticmethod
    def warp_sync():
        """``__syncwarp()``."""
        return _call("warp_sync", "")

    @staticmethod
    def warpgroup_sync(bar_no):
        """Synchronise the 128 threads of this warpgroup on named barrier ``bar_no``."""
        return _call("warpgroup_sync", "", _int(bar_no, "bar_no"))

    @staticmethod
    def grid_sync():
        """Cooperative-groups grid synchronisation (needs a cooperative launch)."""
        return _call("grid_sync", "")

    @staticmethod
    def syncthreads_and(cond):
        """``__syncthreads_and(cond)``."""
        return _call("syncthreads_and", "int64", cond)

    @staticmethod
    def syncthreads_or(cond):
        """``__syncthreads_or(cond)``."""
        return _call("syncthreads_or", "int64", cond)

    @staticmethod
    def thread_fence():
        """``__threadfence()``."""
        return _call("thread_fence", "")

    @staticmethod
    def cluster_sync():
        """``barrier.cluster.arrive`` + ``barrier.cluster.wait`` (sm_90)."""
        return _call("cluster_sync", "")

    @staticmethod
    def elect_sync():
        """Non-zero in one elected lane of the warp (``elect.sync``, sm_90).

        A ``uint32``, as Apache TVM 0.27 types it: ``if T.cuda.elect_sync():`` builds because
        an ``IfThenElse`` condition may be any scalar (non-zero is true), and
        ``T.cuda.elect_sync() != 0`` compares with ``T.uint32(0)``.
        """
        return _call("elect_sync", "uint32")

    @staticmethod
    def cvta_generic_to_shared(ptr):
        """The 32-bit shared-window address of a generic pointer to shared memory."""
        return _call("cvta_generic_to_shared", "uint32", ptr)

    @staticmethod
    def mbarrier_wait(bar, phase):
        """Spin on ``mbarrier.try_wait.parity`` until phase ``phase`` of ``bar`` completes."""
        return _call("mbarrier_wait", "", bar, phase)

    @staticmethod
    def mbarrier_wait_acquire_cluster(bar, phase):
        """:meth:`mbarrier_wait` with ``.acquire.cluster`` semantics."""
        return _call("mbarrier_wait_acquire_cluster", "", bar, phase)

    # -- tensor-core fragments (flat builtins) -----------------------------------------------
    @staticmethod
    def mma_store(dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride):
        """``tirx.mma_store``: store an ``m`` x ``n`` mma accumulator fragment at ``src_ptr``
        (+ ``src_offset``) to ``dst_ptr`` with row stride ``dst_stride``; ``dtype`` (printed
        first) is the element dtype. IR and printing only: no code generator lowers it yet."""
        return Call(dtype, "tirx.mma_store",
                    [m, n, dst_ptr, src_ptr, src_offset, dst_stride])

    @staticmethod
    def mma_fill(dtype, local_size, local_ptr, offset):
        """``tirx.mma_fill``: zero the ``local_size`` elements of an mma accumulator fragment
        at ``local_ptr`` + ``offset``. IR and printing only: no code generator lowers it yet."""
        return Call(dtype, "tirx.mma_fill", [local_size, local_ptr, offset])

    # -- inline CUDA -------------------------------------------------------------------------
    @staticmethod
    def func_call(func_name, *args, source_code, return_type="void"):
        """Call the ``__device__`` function ``func_name`` defined by ``source_code``.

        It prints as ``T.cuda.func_call("f", *args, source_code=..., return_type=...)``
        (``return_type`` omitted when void).
        """
        if not isinstance(func_name, str):
            raise TypeError(f"T.cuda.func_call: func_name must be a str, got {func_name!r}")
        if not isinstance(source_code, str):
            raise TypeError("T.cuda.func_call: source_code must be a str of CUDA source")
        dtype = "" if return_type in ("void", "", None) else return_type
        return _call("func_call", dtype, func_name, *args, source_code)

    @staticmethod
    def printf(fmt, *args):
        """Device ``printf(fmt, args...)``."""
        if not isinstance(fmt, str):
            raise TypeError("T.cuda.printf: the format must be a str")
        return _call("printf", "", fmt, *args)

    @staticmethod
    def get_tmem_addr(addr, row_offset, col_offset):
        """The TMEM address ``addr`` moved by ``row_offset`` lanes and ``col_offset`` columns
        (``addr + (row << 16) + col``); a uint32."""
        return _call("get_tmem_addr", "uint32", addr, row_offset, col_offset)

    # -- reductions --------------------------------------------------------------------------
    @staticmethod
    def warp_reduce(value, op, width=32):
        """Butterfly-shuffle reduction of ``value`` over ``width`` lanes (``op``: sum/max/min)."""
        op = _check_reduce_op("warp_reduce", op)
        return _call("warp_reduce", value.dtype, value, op, _int(width, "width"))

    @staticmethod
    def warp_sum(value, width=32):
        """``warp_reduce(value, "sum", width)``: the sum of ``value`` over ``width`` lanes.

        Parameters
        ----------
        value : PrimExpr
            Each lane's value.
        width : int
            The number of lanes reduced together (a power of two up to 32).

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every lane of the group.
        """
        return CUDANamespace.warp_reduce(value, "sum", width)

    @staticmethod
    def warp_max(value, width=32):
        """``warp_reduce(value, "max", width)``: the max of ``value`` over ``width`` lanes.

        Parameters
        ----------
        value : PrimExpr
            Each lane's value.
        width : int
            The number of lanes reduced together (a power of two up to 32).

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every lane of the group.
        """
        return CUDANamespace.warp_reduce(value, "max", width)

    @staticmethod
    def warp_min(value, width=32):
        """``warp_reduce(value, "min", width)``: the min of ``value`` over ``width`` lanes.

        Parameters
        ----------
        value : PrimExpr
            Each lane's value.
        width : int
            The number of lanes reduced together (a power of two up to 32).

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every lane of the group.
        """
        return CUDANamespace.warp_reduce(value, "min", width)

    @staticmethod
    def cta_reduce(value, op, num_warps, scratch):
        """CTA-wide reduction of ``value`` over ``num_warps`` warps (a power of two, 1 to 32)
        through shared ``scratch`` (one element per warp); every thread gets the result."""
        op = _check_reduce_op("cta_reduce", op)
        n = num_warps.value if isinstance(num_warps, IntImm) else num_warps
        if isinstance(n, int) and not (1 <= n <= 32 and n & (n - 1) == 0):
            raise ValueError(f"T.cuda.cta_reduce: num_warps must be a power of two in [1, 32], "
                             f"got {n}")
        return _call("cta_reduce", value.dtype, value, op, _int(num_warps, "num_warps"),
                     scratch)

    @staticmethod
    def cta_sum(value, num_warps, scratch):
        """``cta_reduce(value, "sum", num_warps, scratch)``: the sum of ``value`` over the CTA.

        Parameters
        ----------
        value : PrimExpr
            Each thread's value.
        num_warps : int
            The warps of the CTA (a power of two, 1 to 32).
        scratch : Buffer
            Shared memory with one element per warp.

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every thread.
        """
        return CUDANamespace.cta_reduce(value, "sum", num_warps, scratch)

    @staticmethod
    def cta_max(value, num_warps, scratch):
        """``cta_reduce(value, "max", num_warps, scratch)``: the max of ``value`` over the CTA.

        Parameters
        ----------
        value : PrimExpr
            Each thread's value.
        num_warps : int
            The warps of the CTA (a power of two, 1 to 32).
        scratch : Buffer
            Shared memory with one element per warp.

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every thread.
        """
        return CUDANamespace.cta_reduce(value, "max", num_warps, scratch)

    @staticmethod
    def cta_min(value, num_warps, scratch):
        """``cta_reduce(value, "min", num_warps, scratch)``: the min of ``value`` over the CTA.

        Parameters
        ----------
        value : PrimExpr
            Each thread's value.
        num_warps : int
            The warps of the CTA (a power of two, 1 to 32).
        scratch : Buffer
            Shared memory with one element per warp.

        Returns
        -------
        PrimExpr
            The reduced value (dtype of ``value``), in every thread.
        """
        return CUDANamespace.cta_reduce(value, "min", num_warps, scratch)

    # -- memory, atomics, timing -------------------------------------------------------------
    @staticmethod
    def ldg(addr, dtype, *rest, dst=None, vec=""):
        """A read-only cached global load (``__ldg``) of ``dtype`` from the pointer ``addr``.

        Scalar form (``vec=""``): the loaded value, of ``dtype`` (any of
        :data:`LDG_SCALAR_DTYPES`). Vector form (``vec="v2"``/``"v4"``, for
        :data:`LDG_VECTOR_DTYPES`): one ``int2``/``int4``-style load whose lanes are stored
        through the pointers of ``dst`` (a tuple of ``vec`` length); the call is a
        statement and prints as ``T.cuda.ldg(*dst, addr, dtype, vec, len(dst))``, which
        parses back.
        """
        if rest:  # the printed vector form: (*dst, addr, dtype, vec, count)
            args = [addr, dtype, *rest]
            if len(args) < 5 or dst is not None:
                raise TypeError("T.cuda.ldg takes (addr, dtype, *, dst=None, vec='') or the "
                                "printed vector form (*dst, addr, dtype, vec, count)")
            count = args[-1].value if isinstance(args[-1], IntImm) else args[-1]
            vec = args[-2].value if isinstance(args[-2], StringImm) else args[-2]
            if count != len(args) - 4:
                raise ValueError(f"T.cuda.ldg: count {count} does not match the "
                                 f"{len(args) - 4} destination pointer(s)")
            dst, addr, dtype = tuple(args[:-4]), args[-4], args[-3]
        dtype = _dtype_text(dtype, "T.cuda.ldg")
        if vec in ("", None):
            if dst is not None:
                raise ValueError("T.cuda.ldg: dst= needs a vector form (vec='v2' or 'v4')")
            if dtype not in LDG_SCALAR_DTYPES:
                raise ValueError(f"Unsupported CUDA __ldg dtype {dtype!r} in T.cuda.ldg; "
                                 f"supported: {', '.join(LDG_SCALAR_DTYPES)}")
            return _call("ldg", dtype, addr, dtype)
        if vec not in ("v2", "v4"):
            raise ValueError(f"T.cuda.ldg: vec must be '', 'v2' or 'v4', got {vec!r}")
        if dst is None:
            raise ValueError(f"T.cuda.ldg: the vector form vec={vec!r} needs dst=(ptr, ...)")
        dst = list(dst) if isinstance(dst, (tuple, list)) else [dst]
        if len(dst) != int(vec[1:]):
            raise ValueError(f"T.cuda.ldg: vec={vec!r} stores {vec[1:]} lanes, but dst has "
                             f"{len(dst)} pointer(s)")
        if dtype not in LDG_VECTOR_DTYPES:
            raise ValueError(f"Unsupported vector CUDA __ldg dtype {dtype!r} in T.cuda.ldg; "
                             f"supported: {', '.join(LDG_VECTOR_DTYPES)}")
        return _call("ldg", "", *dst, addr, dtype, vec, len(dst))

    @staticmethod
    def atomic_add(res_addr, value):
        """``atomicAdd(res_addr, value)``: the old value, of ``value``'s dtype."""
        return _call("atomic_add", _dtype_of(value, "T.cuda.atomic_add value"), res_addr, value)

    @staticmethod
    def atomic_cas(ptr, old_val, new_val):
        """``atomicCAS(ptr, old_val, new_val)``: the value found at ``ptr``."""
        return _call("atomic_cas", _dtype_of(old_val, "T.cuda.atomic_cas old_val"), ptr,
                     old_val, new_val)

    @staticmethod
    def nano_sleep(time):
        """``__nanosleep(time)``: suspend the thread for about ``time`` ns (sm_70)."""
        return _call("nano_sleep", "", time)

    @staticmethod
    def clock64():
        """``clock64()``: the SM cycle counter, a uint64."""
        return _call("clock64", "uint64")

    @staticmethod
    def thread_rank():
        """The thread's rank in its CTA (cooperative groups ``thread_rank()``), an int32."""
        return _call("thread_rank", "int32")

    @staticmethod
    def smem_addr_from_uint64(cluster_addr):
        """The low 32 bits of a 64-bit shared-memory address (a uint32)."""
        return _call("smem_addr_from_uint64", "uint32", cluster_addr)

    @staticmethod
    def sm100_2sm_leader_smem_addr(ptr):
        """The shared-window address of ``ptr`` in the even (leader) CTA of an sm_100 CTA pair:
        ``cvta_generic_to_shared(ptr) & 0xFEFFFFFF`` (bit 24 selects the peer CTA)."""
        return CUDANamespace.cvta_generic_to_shared(ptr) & IntImm("uint32", 0xFEFFFFFF)

    @staticmethod
    def mov_sreg(bits, reg_name):
        """Read the PTX special register ``%reg_name`` (``mov.u32``/``mov.u64``); ``bits`` is
        32 (an int32 result) or 64 (an int64)."""
        bits = int(bits.value if isinstance(bits, IntImm) else bits)
        if bits not in (32, 64):
            raise ValueError(f"T.cuda.mov_sreg: bits must be 32 or 64, got {bits}")
        name = reg_name.value if isinstance(reg_name, StringImm) else reg_name
        if not isinstance(name, str) or not name.lstrip("%").replace("_", "").replace(
                ".", "").isalnum():
            raise ValueError(f"T.cuda.mov_sreg: {reg_name!r} is not a PTX special register name")
        return _call("mov_sreg", f"int{bits}", bits, name.lstrip("%"))

    @staticmethod
    def wait_until(dst, ptr, predicate, scope="gpu", space="global", ptx_type=None,
                   backoff_ns=None):
        """Spin until ``predicate`` (an expression of ``dst``) holds, reloading ``dst`` from
        ``ptr`` with ``ld.relaxed.<scope>.<space>`` (sleeping ``backoff_ns`` ns between tries
        when given), then one ``ld.acquire`` of ``ptr`` orders what follows after the
        write that was seen. ``dst`` is a thread-local scalar (``T.local_scalar``) of a
        32/64-bit integer type (``ptx_type`` overrides the PTX type, e.g. ``"b32"``)."""
        if not _is_local_scalar(dst):
            raise TypeError("T.cuda.wait_until: dst must be a writable thread-local scalar "
                            f"(T.local_scalar), got {dst!r}")
        if scope not in _WAIT_SCOPES:
            raise ValueError(f"T.cuda.wait_until: scope must be one of "
                             f"{', '.join(_WAIT_SCOPES)}, got {scope!r}")
        if space != "global":
            raise ValueError(f"T.cuda.wait_until: space {space!r} is not supported yet "
                             "(only 'global')")
        if ptx_type is None and dst.dtype not in WAIT_UNTIL_PTX_TYPES:
            raise ValueError(f"T.cuda.wait_until: no PTX load type for a {dst.dtype} dst; "
                             f"use one of {', '.join(WAIT_UNTIL_PTX_TYPES)} or pass ptx_type")
        backoff = 0 if backoff_ns is None else backoff_ns
        return _call("wait_until", "", dst, ptr, predicate, scope, space, ptx_type or "",
                     backoff)

    @staticmethod
    def trap_when_assert_failed(cond):
        """Execute PTX ``trap`` (abort the kernel) when ``cond`` is false."""
        return _call("trap_when_assert_failed", "", cond)

    # -- warp votes and reductions -----------------------------------------------------------
    @staticmethod
    def ballot_sync(mask, pred):
        """``__ballot_sync(mask, pred)``: the lanes of ``mask`` whose ``pred`` is true."""
        return _call("ballot_sync", "uint32", mask, pred)

    @staticmethod
    def any_sync(mask, pred):
        """``__any_sync(mask, pred)``: non-zero when ``pred`` holds in some lane of ``mask``."""
        return _call("any_sync", "int32", mask, pred)

    @staticmethod
    def reduce_add_sync_u32(mask, value):
        """``__reduce_add_sync(mask, value)`` on unsigned 32-bit values (sm_80)."""
        return _call("reduce_add_sync_u32", "uint32", mask, value)

    @staticmethod
    def reduce_min_sync_u32(mask, value):
        """``__reduce_min_sync(mask, value)`` on unsigned 32-bit values (sm_80)."""
        return _call("reduce_min_sync_u32", "uint32", mask, value)

    @staticmethod
    def ffs_u32(value):
        """``__ffs(value)``: 1 + the index of the lowest set bit, 0 for 0 (an int32)."""
        return _call("ffs_u32", "int32", value)

    # -- bit casts and conversions -----------------------------------------------------------
    @staticmethod
    def uint_as_float(bits):
        """``__uint_as_float``: the float32 with the bit pattern of ``bits``."""
        return _call("uint_as_float", "float32", bits)

    @staticmethod
    def float_as_uint(x):
        """``__float_as_uint``: the bit pattern of the float32 ``x`` as a uint32."""
        return _call("float_as_uint", "uint32", x)

    @staticmethod
    def fdividef(x, y):
        """``__fdividef(x, y)``: fast approximate float32 division."""
        return _call("fdividef", "float32", x, y)

    @staticmethod
    def half2float(src):
        """``__half2float``: a float16 value as float32."""
        return _call("half2float", "float32", src)

    @staticmethod
    def bfloat162float(src):
        """``__bfloat162float``: a bfloat16 value as float32."""
        return _call("bfloat162float", "float32", src)

    @staticmethod
    def make_float2(x, y):
        """A ``float2`` of ``(x, y)`` carried in a uint64 (the operand form of the packed
        ``T.ptx.*.f32x2`` instructions)."""
        return _call("make_float2", "uint64", x, y)

    @staticmethod
    def float2_x(packed):
        """The ``x`` lane (float32) of a float2 packed in a uint64."""
        return _call("float2_x", "float32", packed)

    @staticmethod
    def float2_y(packed):
        """The ``y`` lane (float32) of a float2 packed in a uint64."""
        return _call("float2_y", "float32", packed)

    @staticmethod
    def fmul2_rn(a, b):
        """Lane-wise ``__fmul2_rn`` of two packed float2 values (uint64 in and out, sm_100)."""
        return _call("fmul2_rn", "uint64", a, b)

    @staticmethod
    def fadd2_rn(a, b):
        """Lane-wise ``__fadd2_rn`` of two packed float2 values (uint64 in and out, sm_100)."""
        return _call("fadd2_rn", "uint64", a, b)

    @staticmethod
    def float22bfloat162_rn(v0, v1):
        """Two float32 values rounded to a ``__nv_bfloat162``, its bits as a uint32."""
        return _call("float22bfloat162_rn", "uint32", v0, v1)

    @staticmethod
    def float22bfloat162_rn_from_float2(packed):
        """:meth:`float22bfloat162_rn` of a float2 packed in a uint64."""
        return _call("float22bfloat162_rn_from_float2", "uint32", packed)

    @staticmethod
    def bfloat1622float2(packed):
        """A ``__nv_bfloat162`` (its bits in a uint32) widened to a float2 packed in a
        uint64."""
        return _call("bfloat1622float2", "uint64", packed)

    @staticmethod
    def hmin2(a, b):
        """Lane-wise ``__hmin2`` of two bfloat16x2 values carried as uint32 bits."""
        return _call("hmin2", "uint32", a, b)

    @staticmethod
    def hmax2(a, b):
        """Lane-wise ``__hmax2`` of two bfloat16x2 values carried as uint32 bits."""
        return _call("hmax2", "uint32", a, b)

    @staticmethod
    def fp8x4_e4m3_from_float4(x, y, z, w):
        """Four float32 values converted to ``__nv_fp8x4_e4m3``, its bits as a uint32."""
        return _call("fp8x4_e4m3_from_float4", "uint32", x, y, z, w)

    @staticmethod
    def float22half2(dst, src):
        """``*(half2*)dst = __float22half2_rn(*(float2*)src)``."""
        return _call("float22half2", "", dst, src)

    @staticmethod
    def half8tofloat8(src_addr, dst_addr):
        """Widen 8 halves at ``src_addr`` to 8 floats at ``dst_addr``."""
        return _call("half8tofloat8", "", src_addr, dst_addr)

    @staticmethod
    def float8tohalf8(src_addr, dst_addr):
        """Narrow 8 floats at ``src_addr`` to 8 halves (round to nearest) at ``dst_addr``."""
        return _call("float8tohalf8", "", src_addr, dst_addr)

    def __getattr__(self, name):
        raise AttributeError(f"T.cuda.{name} is not a CUDA builtin; known: "
                             f"{', '.join(sorted(n for n in dir(CUDANamespace) if not n.startswith('_')))}")

    def __repr__(self):
        return "<T.cuda: CUDA device builtins>"


#: The ``T.cuda`` namespace object.
cuda = CUDANamespace()
