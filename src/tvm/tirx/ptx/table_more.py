"""``T.ptx`` shapes of the less common instructions: ``set``, ``bar.red``, ``cvt.pack``,
``createpolicy``, ``movmatrix``, ``tensormap.replace``, ``multimem.cp*``, the three-input
``min``/``max`` and ``stmatrix.m16n8``.

Written from the PTX ISA (9.7.6.1 set, 9.7.13.1 bar.red, 9.7.9.22 cvt.pack, 9.7.9.19
createpolicy, 9.7.9.16 movmatrix, 9.7.9.27 tensormap.replace, 9.7.3.11/12 min/max, 9.7.9.17
stmatrix, 9.7.9.25 multimem.cp). Every spelling here except ``multimem.cp*`` assembles with
ptxas 13.0 (tests/tirx/ptx/test_ptxas.py); ptxas 13.0 does not know ``multimem.cp`` at all,
so those shapes carry PTX ISA ``9.1`` as an unchecked lower bound and the ptxas test leaves
them out. Families with a two-word mnemonic are spelled with ``_`` (``T.ptx.cvt_pack``,
``T.ptx.tensormap_replace``, ``T.ptx.multimem_cp``), as in Apache TVM 0.27.
"""

from __future__ import annotations

from .rules import _order_scope
from .spec import instr

__all__ = ["MORE_ENTRIES"]

_CMP = "eq|ne|lt|le|gt|ge|lo|ls|hi|hs|equ|neu|ltu|leu|gtu|geu|num|nan"
_SET_STYPE = "b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64"
_EVICT_PRIMARY = "L2::evict_last|L2::evict_normal|L2::evict_first|L2::evict_unchanged"
_EVICT_SECONDARY = "L2::evict_first|L2::evict_unchanged"
_REDOP = "add|min|max|and|or|xor|inc|dec"
#: The half-precision comparisons (ISA 9.7.7.1): the float list, no unsigned lo/ls/hi/hs.
_HALF_CMP = "eq|ne|lt|le|gt|ge|equ|neu|ltu|leu|gtu|geu|num|nan"
_HALF_DTYPE = "f16|bf16|u16|s16|u32|s32|f16x2|bf16x2"
_HALF_STYPE = "b16|b32|b64|u16|u32|u64|s16|s32|s64|f16|f32|f64|bf16|f16x2|bf16x2"
_HALF_ARCH = {"bf16": "sm_90", "bf16x2": "sm_90"}
_HALF_PTX = {"bf16": "7.8", "bf16x2": "7.8"}


def _set_check(m):
    t, cmp = m["stype"], m["cmp"]
    if t[0] == "b" and cmp not in ("eq", "ne"):
        return f".{t} compares only with .eq/.ne"
    if t[0] in "us" and cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
        return f".{cmp} is a floating-point comparison"
    if t[0] in "sf" and cmp in ("lo", "ls", "hi", "hs"):
        return f".{cmp} is an unsigned comparison"
    if m["ftz"] and t != "f32":
        return ".ftz applies to an .f32 comparison"
    return None


def _set_half_check(m):
    """The six syntax groups of the half-precision ``set`` (ISA 9.7.7.1): a ``.f16``/``.bf16``
    result of any plain source; an integer result of one ``.f16``/``.bf16``; a packed result
    of a packed pair. ``.ftz`` never goes with ``.bf16``."""
    d, s = m["dtype"], m["stype"]
    if d in ("f16", "bf16"):
        if s in ("bf16", "f16x2", "bf16x2"):
            return f".{d} results take a .b/.u/.s/.f16/.f32/.f64 source, not .{s}"
    elif d in ("u16", "s16", "u32", "s32"):
        allowed = ("f16", "bf16") + (("f16x2", "bf16x2") if d in ("u32", "s32") else ())
        if s not in allowed:
            return (f"a .{d} result of the half-precision set takes a "
                    f"{'/'.join('.' + a for a in allowed)} source")
    elif s != d:
        return f"a .{d} result takes a .{d} source"
    if m["ftz"] and ("bf16" in (d + s) or s not in ("f16", "f32", "f16x2")):
        return ".ftz applies to a .f16/.f32/.f16x2 source, never with .bf16"
    if s[0] == "b" and s[1].isdigit() and m["cmp"] not in ("eq", "ne"):
        return f".{s} compares only with .eq/.ne"
    if s[0] in "us" and m["cmp"] in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
        return f".{m['cmp']} is a floating-point comparison"
    return None


MORE_ENTRIES = [
    # ---- set: compare, write all ones (integer) or 1.0f (float) when true -------------------
    instr("set", "set", f"cmp={_CMP} ftz?=ftz dtype=u32|s32|f32 stype={_SET_STYPE}",
          "d:$dtype/w a:$stype b:$stype", arch="sm_50", ptx="1.0", check=_set_check),
    instr("set_bool", "set",
          f"cmp={_CMP} boolop=and|or|xor ftz?=ftz dtype=u32|s32|f32 stype={_SET_STYPE}",
          "d:$dtype/w a:$stype b:$stype c:pred", arch="sm_50", ptx="1.0", check=_set_check),
    # half precision (ISA 9.7.7.1): .f16/.bf16 results, or an integer/packed result of a half
    # source. PTX 4.2 is the lower bound of the .f16 lines (the integer-result ones came in
    # 6.5; the table records one version per shape).
    instr("set_half", "set", f"cmp={_HALF_CMP} ftz?=ftz dtype={_HALF_DTYPE} stype={_HALF_STYPE}",
          "d:$dtype/w a:$stype b:$stype", arch="sm_53", ptx="4.2", check=_set_half_check,
          token_arch=_HALF_ARCH, token_ptx=_HALF_PTX),
    instr("set_half_bool", "set",
          f"cmp={_HALF_CMP} boolop=and|or|xor ftz?=ftz dtype={_HALF_DTYPE} stype={_HALF_STYPE}",
          "d:$dtype/w a:$stype b:$stype c:pred", arch="sm_53", ptx="4.2",
          check=_set_half_check, token_arch=_HALF_ARCH, token_ptx=_HALF_PTX),
    # ---- bar.red: a barrier that also reduces a predicate over the CTA ----------------------
    instr("bar_red_popc", "bar", "cta?=cta action=red op=popc type=u32",
          "d:u32/w a:u32 c:pred", arch="sm_50", ptx="2.0", memory=True,
          token_ptx={"cta": "7.8"}),
    instr("bar_red_popc_count", "bar", "cta?=cta action=red op=popc type=u32",
          "d:u32/w a:u32 b:u32 c:pred", arch="sm_50", ptx="2.0", memory=True,
          token_ptx={"cta": "7.8"}),
    instr("bar_red_pred", "bar", "cta?=cta action=red op=and|or type=pred",
          "p:pred/w a:u32 c:pred", arch="sm_50", ptx="2.0", memory=True,
          token_ptx={"cta": "7.8"}),
    instr("bar_red_pred_count", "bar", "cta?=cta action=red op=and|or type=pred",
          "p:pred/w a:u32 b:u32 c:pred", arch="sm_50", ptx="2.0", memory=True,
          token_ptx={"cta": "7.8"}),
    # ---- cvt.pack: two (or, sub-byte, more) saturated s32 values packed into one b32 --------
    instr("cvt_pack", "cvt_pack", "sat=sat dtype=u16|s16 atype=s32",
          "d:b32/w a:s32 b:s32", arch="sm_72", ptx="6.5"),
    instr("cvt_pack_c", "cvt_pack", "sat=sat dtype=u2|s2|u4|s4|u8|s8 atype=s32 ctype=b32",
          "d:b32/w a:s32 b:s32 c:b32", arch="sm_72", ptx="6.5"),
    # ---- createpolicy: an L2 cache-eviction policy for .L2::cache_hint ----------------------
    instr("createpolicy_range", "createpolicy",
          f"kind=range space?=global primary={_EVICT_PRIMARY} secondary?={_EVICT_SECONDARY} "
          "type=b64", "policy:b64/w a:@space primary_size:b32 total_size:b32",
          arch="sm_80", ptx="7.4"),
    instr("createpolicy_fractional", "createpolicy",
          f"kind=fractional primary={_EVICT_PRIMARY} secondary?={_EVICT_SECONDARY} type=b64",
          "policy:b64/w", arch="sm_80", ptx="7.4"),
    instr("createpolicy_fraction", "createpolicy",
          f"kind=fractional primary={_EVICT_PRIMARY} secondary?={_EVICT_SECONDARY} type=b64",
          "policy:b64/w fraction:f32", arch="sm_80", ptx="7.4"),
    instr("createpolicy_cvt", "createpolicy", "kind=cvt level=L2 type=b64",
          "policy:b64/w access_property:b64", arch="sm_80", ptx="7.4"),
    # ---- movmatrix: transpose an 8x8 b16 matrix held across the warp ------------------------
    instr("movmatrix", "movmatrix", "sync=sync aligned=aligned shape=m8n8 trans=trans type=b16",
          "d:b32/w a:b32", arch="sm_75", ptx="7.8"),
    # ---- tensormap.replace: overwrite one field of a 128-byte tensor map --------------------
    instr("tensormap_replace_address", "tensormap_replace",
          "mode=tile field=global_address space?=global|shared::cta b1024=b1024 type=b64",
          "addr:@space new_val:b64", arch="sm_90a", ptx="8.3", memory=True),
    instr("tensormap_replace_rank", "tensormap_replace",
          "mode=tile field=rank space?=global|shared::cta b1024=b1024 type=b32",
          "addr:@space new_val:b32", arch="sm_90a", ptx="8.3", memory=True),
    instr("tensormap_replace_dim", "tensormap_replace",
          "mode=tile field=box_dim|global_dim|element_stride space?=global|shared::cta "
          "b1024=b1024 type=b32", "addr:@space ord:imm new_val:b32", arch="sm_90a",
          ptx="8.3", memory=True),
    instr("tensormap_replace_stride", "tensormap_replace",
          "mode=tile field=global_stride space?=global|shared::cta b1024=b1024 type=b64",
          "addr:@space ord:imm new_val:b64", arch="sm_90a", ptx="8.3", memory=True),
    instr("tensormap_replace_enum", "tensormap_replace",
          "mode=tile field=elemtype|interleave_layout|swizzle_mode|fill_mode "
          "space?=global|shared::cta b1024=b1024 type=b32", "addr:@space new_val:imm",
          arch="sm_90a", ptx="8.3", memory=True),
    # ---- three-input min/max (.f32 only, sm_100) --------------------------------------------
    instr("min3", "min", "ftz?=ftz NaN?=NaN abs?=abs type=f32", "d:f32/w a:f32 b:f32 c:f32",
          arch="sm_100", ptx="8.8"),
    instr("max3", "max", "ftz?=ftz NaN?=NaN abs?=abs type=f32", "d:f32/w a:f32 b:f32 c:f32",
          arch="sm_100", ptx="8.8"),
    # ---- ldmatrix.m16n16: 16x16 8-bit matrices, loaded transposed (two registers each) ------
    instr("ldmatrix_m16n16", "ldmatrix",
          "sync=sync aligned=aligned shape=m16n16 num=x1|x2 trans=trans "
          "space?=shared|shared::cta type=b8", "r:b32*ldmatrix/w p:@space",
          arch="sm_100a", ptx="8.6"),
    # ---- ldmatrix decompression loads: 6/4-bit elements widened to 8 bits (.b8x16) ----------
    # The .m8n16 line spells no .trans; the slot is there (always empty) so that both lines
    # print with the same slots, as in 0.27.
    instr("ldmatrix_m8n16", "ldmatrix",
          "sync=sync aligned=aligned shape=m8n16 num=x1|x2|x4 trans?=trans "
          "space?=shared|shared::cta dst_fmt=b8x16 src_fmt=b6x16_p32|b4x16_p64",
          "r:b32*ldmatrix/w p:@space", arch="sm_100a", ptx="8.6",
          check=lambda m: "the .m8n16 line takes no .trans" if m["trans"] else None),
    instr("ldmatrix_m16n16_fmt", "ldmatrix",
          "sync=sync aligned=aligned shape=m16n16 num=x1|x2 trans=trans "
          "space?=shared|shared::cta dst_fmt=b8x16 src_fmt=b6x16_p32|b4x16_p64",
          "r:b32*ldmatrix/w p:@space", arch="sm_100a", ptx="8.6"),
    # ---- st.async release line, 8-bit: the value goes through a block-local .b8 register ----
    instr("st_async_release_b8", "st_async",
          "mmio?=mmio sem=release scope=gpu|sys space?=global type=b8|u8|s8",
          "addr:@space value:b8", arch="sm_100", ptx="8.7", memory=True,
          check=lambda m: ".mmio requires .sys scope" if m["mmio"] and m["scope"] != "sys"
          else None),
    # ---- spcompress: 2:4 sparse compression of a register vector (PTX 9.4) ------------------
    # IR, printing and PTX text only: ptxas 13.0 (PTX 9.0) does not know it. The register
    # counts (data 2 per .num, compressed data 1 per .num, metadata .num indices of .idxsize
    # bits in .elemsize units) follow Apache TVM 0.27's table; the PTX 9.4 ISA text was not
    # at hand to check them.
    instr("spcompress", "spcompress",
          "elemsize=b8|b16 idxsize=b2|b4 spfactor=sp::2:4 num=x1|x2|x4|x8|x16|x32|x64",
          "mdata:b32*spcompress_meta/w cdata:b32*num/w data:b32*spcompress_data spdesc:u32",
          arch="sm_107a", ptx="9.4"),
    # ---- stmatrix.m16n8: 8-bit matrices, stored transposed ----------------------------------
    instr("stmatrix_m16n8", "stmatrix",
          "sync=sync aligned=aligned shape=m16n8 num=x1|x2|x4 trans=trans "
          "space?=shared|shared::cta type=b8", "p:@space r:b32*ldmatrix",
          arch="sm_100a", ptx="8.6", memory=True),
    # ---- 128-bit values: __uint128_t in C, the "q" register class -------------------------
    instr("atom_exch_b128", "atom",
          "sem?=relaxed|acquire|release|acq_rel scope?=cta|cluster|gpu|sys "
          "space?=global|shared|shared::cta|shared::cluster op=exch type=b128",
          "d:b128/w addr:@space value:b128", arch="sm_90", ptx="8.3", memory=True,
          check=_order_scope),
    instr("atom_cas_b128", "atom",
          "sem?=relaxed|acquire|release|acq_rel scope?=cta|cluster|gpu|sys "
          "space?=global|shared|shared::cta|shared::cluster op=cas type=b128",
          "d:b128/w addr:@space compare:b128 value:b128", arch="sm_90", ptx="8.3",
          memory=True, check=_order_scope),
    instr("mov_pack_b128", "mov", "type=b128", "d:b128/w a:b64*2", arch="sm_70", ptx="8.3"),
    instr("mov_unpack_b128", "mov", "type=b128", "d:b64*2/w~ a:b128", arch="sm_70",
          ptx="8.3"),
    # ---- multimem.cp: bulk copies / reductions into a multicast (NVLS) address --------------
    instr("multimem_cp_async_bulk", "multimem_cp",
          "api=async kind=bulk dst=global src=shared::cta completion=bulk_group",
          "dst_mem:@dst src_mem:@src size:u32", arch="sm_90", ptx="9.1", memory=True),
    instr("multimem_cp_reduce_async_bulk", "multimem_cp",
          "op=reduce api=async kind=bulk dst=global src=shared::cta completion=bulk_group "
          f"redop={_REDOP} type=b32|u32|s32|b64|u64|s64|f32|f64",
          "dst_mem:@dst src_mem:@src size:u32", arch="sm_90", ptx="9.1", memory=True),
]
