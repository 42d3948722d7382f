"""``T.nvshmem.*`` and ``T.nki.*``: device intrinsics of NVSHMEM and AWS Trainium (NKI).

Each one is an Op ``tirx.<namespace>.<name>`` (effect kind UpdateState, category
``device_intrin``, as in Apache TVM 0.27) returning a ``Call`` whose arguments are the given
ones converted to TIR (a ``str`` becomes a ``StringImm``, a Python ``float`` a ``float32``
immediate, a ``bool`` a ``T.bool``); it prints as ``T.<namespace>.<name>(...)`` and parses
back to the same call. The sub-namespaces (``T.nvshmem.getmem_nbi.warp``) print with a dot
through the op attribute ``TScriptPrinterName``.

Only the IR is provided: no code generator in this project emits these calls yet (the CUDA
backend does not link NVSHMEM, and there is no Trainium backend), so a kernel using them can
be written, printed, parsed and transformed, not built.

Examples
--------
>>> from tvm.tirx.intrin_namespaces import nvshmem
>>> nvshmem.my_pe().dtype
'int32'
>>> nvshmem.getmem_nbi.warp.__name__
'getmem_nbi_warp'
"""

from __future__ import annotations

from ..ffi.node import Node
from ..ir.op import register_op, register_op_attr
from . import generic as _g
from .expr import Call, StringImm
from .op import CallEffectKind

__all__ = ["MetalNamespace", "NKINamespace", "NVSHMEMNamespace", "PTXLegacyNamespace",
           "STIRNamespace", "metal", "nki", "nvshmem", "ptx_legacy", "s_tir", "tvm_kernel_replace_point"]

_REQUIRED = object()


def _arg(value):
    if isinstance(value, str):
        return StringImm(value)
    if isinstance(value, Node):  # a buffer region (``T.nki.identity(A[0:1], 1)``), a buffer
        return value
    return _g.convert(value)


def _intrinsic(namespace: str, name: str, dtype, params, printed: str | None = None,
               effect=CallEffectKind.UpdateState, builtin: bool = False):
    """Register ``tirx.<namespace>.<name>`` and return a builder taking ``params`` (a list of
    ``(param name, default or _REQUIRED)``; a name starting with ``*`` takes the rest).
    ``dtype`` is the result dtype, or a function of the converted arguments giving it.

    ``builtin=True`` registers a flat TIR builtin ``tirx.<name>`` instead (category
    ``builtin``, no device namespace) that still prints as ``T.<namespace>.<name>``, as 0.27
    does for the Metal simdgroup builtins."""
    op_name = f"tirx.{name}" if builtin else f"tirx.{namespace}.{name}"
    register_op(op_name, family="builtin" if builtin else namespace)
    register_op_attr(op_name, "TCallEffectKind", effect)
    if not builtin:
        register_op_attr(op_name, "TDeviceIntrinsicNamespace", namespace)
    register_op_attr(op_name, "TIRxOpCategory", "builtin" if builtin else "device_intrin")
    register_op_attr(op_name, "TScriptPrinterName", printed or f"{namespace}.{name}")
    shown = f"T.{printed or f'{namespace}.{name}'}"

    def build(*args, **kwargs):
        values = []
        rest = list(args)
        for pname, default in params:
            if pname.startswith("*"):
                values.extend(rest)
                rest = []
                break
            if rest:
                value = rest.pop(0)
                if pname in kwargs:
                    raise TypeError(f"{shown}() got multiple values for argument '{pname}'")
            elif pname in kwargs:
                value = kwargs.pop(pname)
            elif default is not _REQUIRED:
                value = default
            else:
                raise TypeError(f"{shown}() missing required argument '{pname}'")
            values.append(value)
        if rest or kwargs:
            extra = [repr(a) for a in rest] + list(kwargs)
            raise TypeError(f"{shown}() got unexpected arguments: {', '.join(extra)}")
        converted = [_arg(v) for v in values]
        return Call(dtype(converted) if callable(dtype) else dtype, op_name, converted)

    build.__name__ = name
    build.__qualname__ = f"{namespace}.{name}"
    returns = "the first argument's dtype" if callable(dtype) else (dtype or "void")
    build.__doc__ = (f"``{shown}({', '.join(p for p, _ in params)})``: the "
                     f"``{op_name}`` intrinsic (returns {returns}).")
    return build


def _r(*names):
    return [(n, _REQUIRED) for n in names]


# --- NVSHMEM ---------------------------------------------------------------------------------

_COPY = _r("dst", "src", "nelems", "pe")
_SIGNAL_COPY = _r("dst", "src", "nelems", "sig_addr", "signal", "sig_op", "pe")


class _CopyNamespace:
    """A blocking-free NVSHMEM copy: called per thread, or ``.warp``/``.block``."""

    def __init__(self, name, params):
        self._call = _intrinsic("nvshmem", name, "", params)
        self.warp = _intrinsic("nvshmem", f"{name}_warp", "", params, f"nvshmem.{name}.warp")
        self.block = _intrinsic("nvshmem", f"{name}_block", "", params,
                                f"nvshmem.{name}.block")
        self.__doc__ = self._call.__doc__

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)


class NVSHMEMNamespace:
    """``T.nvshmem``: NVSHMEM device calls (PE queries, one-sided copies, signals, fences)."""

    my_pe = staticmethod(_intrinsic("nvshmem", "my_pe", "int32", []))
    n_pes = staticmethod(_intrinsic("nvshmem", "n_pes", "int32", []))
    signal_op = staticmethod(_intrinsic("nvshmem", "signal_op", "",
                                        _r("sig_addr", "signal", "sig_op", "pe")))
    wait_until = staticmethod(_intrinsic("nvshmem", "wait_until", "",
                                         [*_r("ivar", "cmp", "cmp_value"),
                                          ("type", "uint64_t")]))
    quiet = staticmethod(_intrinsic("nvshmem", "quiet", "", []))
    fence = staticmethod(_intrinsic("nvshmem", "fence", "", []))
    barrier_all = staticmethod(_intrinsic("nvshmem", "barrier_all", "", []))
    getmem_nbi = _CopyNamespace("getmem_nbi", _COPY)
    putmem_nbi = _CopyNamespace("putmem_nbi", _COPY)
    putmem_signal_nbi = _CopyNamespace("putmem_signal_nbi", _SIGNAL_COPY)


# --- NKI (AWS Trainium) ----------------------------------------------------------------------

_NKI = {
    "load": _r("res", "data"),
    "store": _r("res", "data"),
    "tensor_copy": _r("res", "data"),
    "matmul": [*_r("res", "lhs", "rhs"), ("accum", True)],
    "activation": [*_r("result", "data", "opcode"), ("bias", 0.0), ("scale", 1.0)],
    "activation_reduce": [*_r("reduce_res", "act_res", "data", "opcode", "reduce_opcode"),
                          ("bias", 0.0), ("scale", 1.0)],
    "reciprocal": _r("result", "data"),
    "tensorreduce": [*_r("result", "data", "opcode", "negate"), ("*axes", None)],
    "tensortensor": _r("result", "operand0", "operand1", "opcode"),
    "tensorscalar": [*_r("result", "operand0", "operand1", "opcode"), ("reverse", False)],
    "tensorscalar_reduce": [*_r("reduce_res", "tensorscalar_res", "operand0", "operand1",
                                "opcode", "reduce_opcode"), ("reverse", False)],
    "scalar_tensor_tensor": [*_r("result", "data", "operand0", "operand1", "opcode0",
                                 "opcode1"), ("reverse0", False), ("reverse1", False)],
    "scalar_tensor_scalar": [*_r("result", "data", "operand0", "operand1", "opcode0",
                                 "opcode1"), ("reverse0", False), ("reverse1", False)],
    "memset": _r("result", "value"),
    "identity": _r("result", "size"),
    "affine_select": _r("result", "pred", "true_value", "false_value"),
}


class NKINamespace:
    """``T.nki``: AWS Trainium NKI instructions (all ``void``; results are written through
    their first operands)."""


for _name, _params in _NKI.items():
    setattr(NKINamespace, _name, staticmethod(_intrinsic("nki", _name, "", _params)))
del _name, _params


# --- s_tir / metal / ptx_legacy (IR and printing; no code generation yet) --------------------


def _first_dtype(args):
    return str(args[0].dtype)


class STIRNamespace:
    """``T.s_tir``: device intrinsics kept from the scheduled-TIR world (``ldg32``: a guarded
    32-bit global load into a register). IR and printing only: code generation of these
    calls is not supported yet."""

    ldg32 = staticmethod(_intrinsic("s_tir", "ldg32", _first_dtype,
                                    _r("reg", "guard", "addr", "local_addr"),
                                    effect=CallEffectKind.Pure))


_SIMDGROUP_SHAPE = [("col", 8), ("row", 8)]


class MetalNamespace:
    """``T.metal``: Metal SIMD-group intrinsics (``simd_shuffle``, ``simd_shuffle_up``,
    ``simd_shuffle_down``: the value of another lane; the result has the value's dtype) and
    the simdgroup-matrix builtins (``make_filled_simdgroup_matrix``, ``simdgroup_load``,
    ``simdgroup_store``, ``simdgroup_multiply_accumulate``: flat ``tirx.*`` builtins on
    8x8 matrices held in a ``handle`` ``d`` at ``index``). IR and printing only: there is no
    Metal code generator."""

    make_filled_simdgroup_matrix = staticmethod(_intrinsic(
        "metal", "make_filled_simdgroup_matrix", "handle",
        [*_r("d", "index", "value"), *_SIMDGROUP_SHAPE], builtin=True))
    simdgroup_load = staticmethod(_intrinsic(
        "metal", "simdgroup_load", "handle",
        [*_r("d", "index", "ptr", "stride"), *_SIMDGROUP_SHAPE, ("transpose_matrix", False)],
        builtin=True))
    simdgroup_store = staticmethod(_intrinsic(
        "metal", "simdgroup_store", "handle",
        [*_r("d", "index", "ptr", "stride"), *_SIMDGROUP_SHAPE, ("transpose_matrix", False)],
        builtin=True))
    simdgroup_multiply_accumulate = staticmethod(_intrinsic(
        "metal", "simdgroup_multiply_accumulate", "handle",
        _r("d", "index_d", "a", "index_a", "b", "index_b", "c", "index_c"), builtin=True))

    simd_shuffle = staticmethod(_intrinsic("metal", "simd_shuffle", _first_dtype,
                                           _r("var", "lane")))
    simd_shuffle_up = staticmethod(_intrinsic("metal", "simd_shuffle_up", _first_dtype,
                                              _r("var", "delta")))
    simd_shuffle_down = staticmethod(_intrinsic("metal", "simd_shuffle_down", _first_dtype,
                                                _r("var", "delta")))


class PTXLegacyNamespace:
    """``T.ptx_legacy``: the positional ``ldmatrix``/``mma`` forms of older TIR (dtype and
    layout strings first, then buffers and offsets), kept so that such TVMScript parses and
    prints. New kernels use the table-driven ``T.ptx``. IR and printing only: code
    generation of these calls is not supported yet."""

    ldmatrix = staticmethod(_intrinsic("ptx_legacy", "ldmatrix", "", [("*args", None)]))
    mma = staticmethod(_intrinsic("ptx_legacy", "mma", "", [("*args", None)]))


nvshmem = NVSHMEMNamespace()
nki = NKINamespace()
s_tir = STIRNamespace()
metal = MetalNamespace()
ptx_legacy = PTXLegacyNamespace()

register_op("tirx.tvm_kernel_replace_point", family="builtin")
register_op_attr("tirx.tvm_kernel_replace_point", "TCallEffectKind", CallEffectKind.Opaque)
register_op_attr("tirx.tvm_kernel_replace_point", "TIRxOpCategory", "builtin")


def tvm_kernel_replace_point():
    """``T.tvm_kernel_replace_point()``: a marker statement where a later pass substitutes a
    kernel body (a builtin, not a tile primitive)."""
    return Call("", "tirx.tvm_kernel_replace_point", [])
