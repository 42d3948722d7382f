"""AArch64 tensor intrinsics: the NEON dot-product instructions ``sdot``/``udot``.

``dot_4x4_i8i8s32_sdot``: for each of 4 int32 lanes ``i``, ``C[i] += sum_k A[k] * B[i, k]``
over four ``int8`` products; ``dot_4x4_u8u8u32_udot`` is the ``uint8 -> uint32`` form. One
``sdot``/``udot`` (Armv8.2 ``+dotprod``) does it: the four bytes of ``A`` are read as one
32-bit word repeated in the 4 lanes, the 16 bytes of ``B`` as four 4-byte groups.
"""

from __future__ import annotations

from ...tirx.tensor_intrin import TensorIntrin

__all__ = ["ARM_DOT_4x4_i8_SDOT_INTRIN", "ARM_DOT_4x4_u8_UDOT_INTRIN"]

ARM_DOT_4x4_i8_SDOT_INTRIN = "dot_4x4_i8i8s32_sdot"
ARM_DOT_4x4_u8_UDOT_INTRIN = "dot_4x4_u8u8u32_udot"


def _dot_4x4(in_dtype: str, out_dtype: str, instruction: str):
    # Lazy: the intrinsics are written in TVMScript, and tvm.script sits above s_tir.
    from ...script import tirx as T

    @T.prim_func(s_tir=True)
    def desc(
        A: T.Buffer((4,), in_dtype, offset_factor=1),
        B: T.Buffer((4, 4), in_dtype, offset_factor=1),
        C: T.Buffer((4,), out_dtype, offset_factor=1),
    ):
        with T.sblock("root"):
            T.reads(C[0:4], A[0:4], B[0:4, 0:4])
            T.writes(C[0:4])
            for lane, k in T.grid(4, 4):
                with T.sblock("update"):
                    v_lane, v_k = T.axis.remap("SR", [lane, k])
                    C[v_lane] = C[v_lane] + (
                        T.Cast(out_dtype, A[v_k]) * T.Cast(out_dtype, B[v_lane, v_k])
                    )

    @T.prim_func(s_tir=True)
    def impl(
        A: T.Buffer((4,), in_dtype, offset_factor=1),
        B: T.Buffer((4, 4), in_dtype, offset_factor=1),
        C: T.Buffer((4,), out_dtype, offset_factor=1),
    ):
        with T.sblock("root"):
            T.reads(C[0:4], A[0:4], B[0:4, 0:4])
            T.writes(C[0:4])
            C[T.Ramp(0, 1, 4)] = T.call_llvm_pure_intrin(
                f"{out_dtype}x4",
                instruction,
                C[T.Ramp(0, 1, 4)],
                T.reinterpret(f"{in_dtype}x16", T.Broadcast(
                    T.reinterpret(out_dtype, A[T.Ramp(0, 1, 4)]), 4)),
                B[0, T.Ramp(0, 1, 16)],
            )

    return desc, impl


TensorIntrin.register(ARM_DOT_4x4_i8_SDOT_INTRIN,
                      *_dot_4x4("int8", "int32", "llvm.aarch64.neon.sdot.v4i32.v16i8"))
TensorIntrin.register(ARM_DOT_4x4_u8_UDOT_INTRIN,
                      *_dot_4x4("uint8", "uint32", "llvm.aarch64.neon.udot.v4i32.v16i8"))
