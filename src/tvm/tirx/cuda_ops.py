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
'bool'
"""

from __future__ import annotations

from ..ir.op import register_op, register_op_attr
from .expr import Call, IntImm, StringImm
from .op import CallEffectKind, address_of

__all__ = ["CUDA_OP_ARCH", "CUDANamespace", "address_of", "cuda"]

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

_REDUCE_OPS = ("sum", "max", "min")


def _call(name, dtype, *args):
    return Call(dtype, f"tirx.cuda.{name}", list(args))


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, IntImm)):
        if hasattr(value, "dtype"):
            return value
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}")
    return value


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
        """True in one elected lane of the warp (``elect.sync``, sm_90).

        A ``bool`` here, so that ``if T.cuda.elect_sync():`` builds (our ``IfThenElse``
        requires a boolean condition). Apache TVM 0.27 types it ``uint32`` and accepts any
        condition dtype; the printed text is the same.
        """
        return _call("elect_sync", "bool")

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
        return CUDANamespace.warp_reduce(value, "sum", width)

    @staticmethod
    def warp_max(value, width=32):
        return CUDANamespace.warp_reduce(value, "max", width)

    @staticmethod
    def warp_min(value, width=32):
        return CUDANamespace.warp_reduce(value, "min", width)

    @staticmethod
    def cta_reduce(value, op, num_warps, scratch):
        """CTA-wide reduction of ``value`` over ``num_warps`` warps through shared
        ``scratch`` (one element per warp)."""
        op = _check_reduce_op("cta_reduce", op)
        return _call("cta_reduce", value.dtype, value, op, _int(num_warps, "num_warps"),
                     scratch)

    @staticmethod
    def cta_sum(value, num_warps, scratch):
        return CUDANamespace.cta_reduce(value, "sum", num_warps, scratch)

    @staticmethod
    def cta_max(value, num_warps, scratch):
        return CUDANamespace.cta_reduce(value, "max", num_warps, scratch)

    @staticmethod
    def cta_min(value, num_warps, scratch):
        return CUDANamespace.cta_reduce(value, "min", num_warps, scratch)

    def __getattr__(self, name):
        raise AttributeError(f"T.cuda.{name} is not a CUDA builtin; known: "
                             f"{', '.join(sorted(n for n in dir(CUDANamespace) if not n.startswith('_')))}")

    def __repr__(self):
        return "<T.cuda: CUDA device builtins>"


#: The ``T.cuda`` namespace object.
cuda = CUDANamespace()
