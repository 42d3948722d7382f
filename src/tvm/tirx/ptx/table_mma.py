"""``T.ptx`` shapes of the sparse and integer matrix instructions and the im2col TMA modes.

Written from the PTX ISA: ``mma.sp`` (9.7.14.6), the integer, FP8, TF32 register-A and
single-bit ``wgmma.mma_async`` forms (9.7.15.5), ``tcgen05.mma.ws`` and the
disable-output-lane / collector forms of ``tcgen05.mma`` (9.7.16.10), and the ``.im2col``
load modes of ``cp.async.bulk.tensor`` (9.7.9.25.5). :mod:`.table` appends
:data:`MMA_ENTRIES` to its entries.
"""

from __future__ import annotations

from .spec import instr

__all__ = ["MMA_ENTRIES"]

_WGMMA = {"arch": "sm_90a", "ptx": "8.0"}
_TC05 = {"arch": "sm_100a", "ptx": "8.6"}
#: N of the integer and single-bit wgmma shapes: 8, 16, 24, then multiples of 16.
_INT_N = (8, 16, 24, *range(32, 257, 16))
_INT_SHAPES = "|".join(f"m64n{n}k32" for n in _INT_N)
_B1_SHAPES = "|".join(f"m64n{n}k256" for n in _INT_N)
_F8_SHAPES = "|".join(f"m64n{n}k32" for n in range(8, 257, 8))
_TF32_SHAPES = "|".join(f"m64n{n}k8" for n in range(8, 257, 8))
_COLLECT_A = "|".join(f"collector::a::{op}" for op in ("fill", "use", "lastuse", "discard"))
_COLLECT_B = "|".join(f"collector::b{i}::{op}" for i in range(4)
                      for op in ("fill", "use", "lastuse", "discard"))
_KINDS = "kind::f16|kind::tf32|kind::f8f6f4|kind::i8"
_CG = "cta_group=cta_group::1|cta_group::2"
_DIM = "3d|4d|5d"


def _sp_check(m):
    shape, atype = m["shape"], m["atype"]
    allowed = {"f16": ("m16n8k16", "m16n8k32"), "bf16": ("m16n8k16", "m16n8k32"),
               "e4m3": ("m16n8k64",), "e5m2": ("m16n8k64",)}.get(atype)
    if allowed and shape not in allowed:
        return f"sparse .{atype} takes {', '.join('.' + s for s in allowed)}"
    if atype in ("f16", "bf16") and m["btype"] != atype:
        return ".f16 and .bf16 operands cannot be mixed"
    if atype in ("e4m3", "e5m2") and m["btype"] not in ("e4m3", "e5m2"):
        return "an FP8 A goes with an FP8 B"
    return None


def _sp_int_check(m):
    allowed = {"s8": ("m16n8k32", "m16n8k64"), "u8": ("m16n8k32", "m16n8k64"),
               "s4": ("m16n8k64", "m16n8k128"), "u4": ("m16n8k64", "m16n8k128")}[m["atype"]]
    if m["shape"] not in allowed:
        return f"sparse .{m['atype']} takes {', '.join('.' + s for s in allowed)}"
    if (m["atype"][1], m["btype"][1]) != (m["atype"][1],) * 2:
        return "both integer operands have the same width"
    return None



MMA_ENTRIES = [
    # ---- mma.sp (structured 2:4 sparsity) -------------------------------------------------
    instr("mma_sp", "mma",
          "sp=sp|sp::ordered_metadata sync=sync aligned=aligned "
          "shape=m16n8k16|m16n8k32|m16n8k64 alayout=row blayout=col dtype=f32 "
          "atype=f16|bf16|e4m3|e5m2 btype=f16|bf16|e4m3|e5m2 ctype=f32",
          "d:f32*mma_c/w a:b32*mma_sp_a b:b32*mma_b c:f32*mma_c e:b32 f:imm=0,1",
          arch="sm_80", ptx="7.1", check=_sp_check,
          token_arch={"e4m3": "sm_89", "e5m2": "sm_89"},
          token_ptx={"sp::ordered_metadata": "8.5", "e4m3": "8.5", "e5m2": "8.5"}),
    instr("mma_sp_int", "mma",
          "sp=sp|sp::ordered_metadata sync=sync aligned=aligned "
          "shape=m16n8k32|m16n8k64|m16n8k128 alayout=row blayout=col satfinite?=satfinite "
          "dtype=s32 atype=s8|u8|s4|u4 btype=s8|u8|s4|u4 ctype=s32",
          "d:s32*mma_c/w a:b32*mma_sp_a b:b32*mma_b c:s32*mma_c e:b32 f:imm=0",
          arch="sm_80", ptx="7.1", check=_sp_int_check,
          token_ptx={"sp::ordered_metadata": "8.5"}),
    # ---- wgmma: integer, FP8/TF32 with A in registers, single bit ---------------------------
    instr("wgmma_int_ss", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_INT_SHAPES} "
          "satfinite?=satfinite dtype=s32 atype=s8|u8 btype=s8|u8",
          "d:acc*wgmma_d/rw a_desc:u64 b_desc:u64 scale_d:pred", **_WGMMA),
    instr("wgmma_int_rs", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_INT_SHAPES} "
          "satfinite?=satfinite dtype=s32 atype=s8|u8 btype=s8|u8",
          "d:acc*wgmma_d/rw a:b32*wgmma_a b_desc:u64 scale_d:pred", **_WGMMA),
    instr("wgmma_fp8_rs", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_F8_SHAPES} "
          "dtype=f32|f16 atype=e4m3|e5m2 btype=e4m3|e5m2",
          "d:acc*wgmma_d/rw a:b32*wgmma_a b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1", **_WGMMA),
    instr("wgmma_tf32_rs", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_TF32_SHAPES} "
          "dtype=f32 atype=tf32 btype=tf32",
          "d:acc*wgmma_d/rw a:b32*wgmma_a b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1", **_WGMMA),
    instr("wgmma_b1_ss", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_B1_SHAPES} "
          "dtype=s32 atype=b1 btype=b1 op=and popc=popc",
          "d:acc*wgmma_d/rw a_desc:u64 b_desc:u64 scale_d:pred", **_WGMMA),
    instr("wgmma_b1_rs", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_B1_SHAPES} "
          "dtype=s32 atype=b1 btype=b1 op=and popc=popc",
          "d:acc*wgmma_d/rw a:b32*wgmma_a b_desc:u64 scale_d:pred", **_WGMMA),
    # ---- tcgen05.mma with the disable-output-lane vector, and the .ws forms ---------------
    instr("tcgen05_mma_ss_dol", "tcgen05",
          f"action=mma {_CG} kind={_KINDS} collector?={_COLLECT_A}",
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 disable_output_lane:u32*disable_lanes "
          "enable_input_d:pred", memory=True, **_TC05),
    instr("tcgen05_mma_ts_dol", "tcgen05",
          f"action=mma {_CG} kind={_KINDS} collector?={_COLLECT_A}",
          "[d_tmem:tmem] [a_tmem:tmem] b_desc:u64 idesc:u32 "
          "disable_output_lane:u32*disable_lanes enable_input_d:pred", memory=True, **_TC05),
    instr("tcgen05_mma_ws_ss", "tcgen05",
          f"action=mma ws=ws cta_group=cta_group::1 kind={_KINDS} collector?={_COLLECT_B}",
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 enable_input_d:pred "
          "zero_col_mask:u64", memory=True, **_TC05),
    instr("tcgen05_mma_ws_ts", "tcgen05",
          f"action=mma ws=ws cta_group=cta_group::1 kind={_KINDS} collector?={_COLLECT_B}",
          "[d_tmem:tmem] [a_tmem:tmem] b_desc:u64 idesc:u32 enable_input_d:pred "
          "zero_col_mask:u64", memory=True, **_TC05),
    instr("tcgen05_mma_ws_ss_nomask", "tcgen05",
          f"action=mma ws=ws cta_group=cta_group::1 kind={_KINDS} collector?={_COLLECT_B}",
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 enable_input_d:pred",
          memory=True, **_TC05),
    instr("tcgen05_mma_ws_ts_nomask", "tcgen05",
          f"action=mma ws=ws cta_group=cta_group::1 kind={_KINDS} collector?={_COLLECT_B}",
          "[d_tmem:tmem] [a_tmem:tmem] b_desc:u64 idesc:u32 enable_input_d:pred",
          memory=True, **_TC05),
    # ---- cp.async.bulk.tensor .im2col ------------------------------------------------------
    instr("cp_async_bulk_tensor_g2s_cta_im2col", "cp",
          f"api=async kind=bulk unit=tensor dim={_DIM} dst=shared::cta src=global "
          "load_mode=im2col completion=mbarrier::complete_tx::bytes "
          "cta_group?=cta_group::1|cta_group::2 cache?=L2::cache_hint",
          "dst_mem:@dst [tmap:@src coords:s32*dim] mbar:@dst offsets:u16*im2col_offsets "
          "cache_policy:b64?cache", arch="sm_90", ptx="8.6", memory=True,
          token_arch={"cta_group::1": "sm_100a", "cta_group::2": "sm_100a"}),
    instr("cp_async_bulk_tensor_g2s_cluster_im2col", "cp",
          f"api=async kind=bulk unit=tensor dim={_DIM} dst=shared::cluster src=global "
          "load_mode=im2col completion=mbarrier::complete_tx::bytes "
          "multicast?=multicast::cluster cta_group?=cta_group::1|cta_group::2 "
          "cache?=L2::cache_hint",
          "dst_mem:@dst [tmap:@src coords:s32*dim] mbar:@dst offsets:u16*im2col_offsets "
          "cta_mask:u16?multicast cache_policy:b64?cache", arch="sm_90", ptx="8.0",
          memory=True, token_arch={"cta_group::1": "sm_100a", "cta_group::2": "sm_100a"}),
    instr("cp_async_bulk_tensor_prefetch_im2col", "cp",
          f"api=async kind=bulk action=prefetch unit=tensor dim={_DIM} level=L2 src=global "
          "load_mode=im2col cache?=L2::cache_hint",
          "[tmap:@src coords:s32*dim] offsets:u16*im2col_offsets cache_policy:b64?cache",
          arch="sm_90", ptx="8.0"),
]
