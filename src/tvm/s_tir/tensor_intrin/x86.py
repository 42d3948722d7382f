"""x86 tensor intrinsics: the AVX-512 VNNI dot product (``vpdpbusd``).

``dot_16x4_vnni``: for each of 16 int32 lanes ``i``, ``C[i] += sum_k A[k] * B[i, k]`` over
four ``uint8 x int8`` products. One ``vpdpbusd`` does it: the four bytes of ``A`` are read
as one 32-bit word broadcast to the 16 lanes, and the 64 bytes of ``B`` as 16 words.
"""

from __future__ import annotations

from ...tirx.tensor_intrin import TensorIntrin

__all__ = ["VNNI_DOT_16x4_INTRIN"]

VNNI_DOT_16x4_INTRIN = "dot_16x4_vnni"


def _register() -> None:
    # Lazy: the intrinsics are written in TVMScript, and tvm.script sits above s_tir.
    from ...script import tirx as T

    @T.prim_func(s_tir=True)
    def dot_16x4_u8i8i32_desc(
        A: T.Buffer((4,), "uint8", offset_factor=1),
        B: T.Buffer((16, 4), "int8", offset_factor=1),
        C: T.Buffer((16,), "int32", offset_factor=1),
    ):
        with T.sblock("root"):
            T.reads(C[0:16], A[0:4], B[0:16, 0:4])
            T.writes(C[0:16])
            for lane, k in T.grid(16, 4):
                with T.sblock("update"):
                    v_lane, v_k = T.axis.remap("SR", [lane, k])
                    C[v_lane] = C[v_lane] + (
                        T.Cast("int32", A[v_k]) * T.Cast("int32", B[v_lane, v_k])
                    )

    @T.prim_func(s_tir=True)
    def dot_16x4_u8i8i32_vnni(
        A: T.Buffer((4,), "uint8", offset_factor=1),
        B: T.Buffer((16, 4), "int8", offset_factor=1),
        C: T.Buffer((16,), "int32", offset_factor=1),
    ):
        with T.sblock("root"):
            T.reads(C[0:16], A[0:4], B[0:16, 0:4])
            T.writes(C[0:16])
            C[T.Ramp(0, 1, 16)] = T.call_llvm_pure_intrin(
                "int32x16",
                "llvm.x86.avx512.vpdpbusd.512",
                C[T.Ramp(0, 1, 16)],
                T.Broadcast(T.reinterpret("int32", A[T.Ramp(0, 1, 4)]), 16),
                T.reinterpret("int32x16", B[0, T.Ramp(0, 1, 64)]),
            )

    TensorIntrin.register(VNNI_DOT_16x4_INTRIN, dot_16x4_u8i8i32_desc, dot_16x4_u8i8i32_vnni)


_register()
