"""The ``T.ptx`` instruction table, written from the PTX ISA (version 8.x/9.0).

Each entry is one syntax shape (see :mod:`.spec` for the two mini-languages). Shapes of one
family share the Op ``tirx.ptx.<family>``; a call is dispatched to a shape by its modifiers
and its operand count. ``arch`` is the oldest GPU that has the instruction, ``ptx`` the first
PTX ISA version with it; ``token_arch`` raises the requirement for single modifiers
(``cta_group::2`` needs sm_100a, the ``.cluster`` scope sm_90, ...).

Coverage is the subset TIRx kernels use (spec §D.3); adding an instruction is one
:func:`~.spec.instr` call (docs/arch/tirx_ptx.md).
"""

from __future__ import annotations

from dataclasses import replace

from .rules import NEWER_PTX, RULES
from .spec import instr
from .table_alu import ALU_ENTRIES
from .table_mma import MMA_ENTRIES
from .table_more import MORE_ENTRIES

__all__ = ["ENTRIES", "TABLE"]

_SEM_LD = "weak|acquire|relaxed|volatile"
_SEM_ST = "weak|release|relaxed|volatile"
_SCOPE = "cta|cluster|gpu|sys"
_SPACE = "global|shared|shared::cta|shared::cluster|local"
_L1EV = "L1::evict_normal|L1::evict_unchanged|L1::evict_first|L1::evict_last|L1::no_allocate"
_L2EV = "L2::evict_first|L2::evict_last|L2::evict_normal"
_TYPE256 = "b32|u32|s32|f32|b64|u64|s64|f64"


def _check_256(m):
    wide = m["type"][1:] == "64"
    if (m["vec"] == "v8") == wide:
        return "the 256-bit lines are .v8 with a 32-bit type or .v4 with a 64-bit type"
    return None


def _check_st_async_release(m):
    if m.get("mmio") and m["scope"] != "sys":
        return ".mmio requires .sys scope"
    return None


def _check_vec(m):
    if m["vec"] == "v4" and m["type"][1:] == "64":
        return ".v4 of a 64-bit type is a 256-bit access (the ld_vec256/st_vec256 line)"
    return None
_PREFETCH = "L2::64B|L2::128B|L2::256B"
_LDST_TYPE = "b8|u8|s8|b16|u16|s16|b32|u32|s32|b64|u64|s64|f32|f64"
_CLUSTER = {"cluster": "sm_90", "shared::cluster": "sm_90"}
_SCOPED = {"acquire": "sm_70", "release": "sm_70", "relaxed": "sm_70", "cta": "sm_70",
           "gpu": "sm_70", "sys": "sm_70", **_CLUSTER}
_CACHE_HINT = {"L2::cache_hint": "sm_80", "L2::64B": "sm_75", "L2::128B": "sm_75",
               "L2::256B": "sm_80"}
_DIM = "1d|2d|3d|4d|5d"
_BULK_SEM = "sem?=weak|relaxed scope?=cta|cluster|gpu|sys"
_REDOP = "add|min|max|inc|dec|and|or|xor"

_MB_ARRIVE_SLOTS = ("sem?=release|relaxed scope?=cta|cluster "
                    "space?=shared|shared::cta|shared::cluster type=b64")
_MB_WAIT_SLOTS = "sem?=acquire|relaxed scope?=cta|cluster space?=shared|shared::cta type=b64"
_MB_SCOPED = {"release": "sm_90", "acquire": "sm_90", "cta": "sm_90", "relaxed": "sm_90",
              **_CLUSTER}
_MB_PTX = {"release": "8.0", "acquire": "8.0", "cta": "8.0", "cluster": "8.0",
           "relaxed": "8.6", "shared::cluster": "8.0"}

_WGMMA_SHAPES = {
    16: "|".join(f"m64n{n}k16" for n in range(8, 257, 8)),
    8: "|".join(f"m64n{n}k8" for n in range(8, 257, 8)),
    32: "|".join(f"m64n{n}k32" for n in range(8, 257, 8)),
}
_WGMMA = {"arch": "sm_90a", "ptx": "8.0"}
_TC05 = {"arch": "sm_100a", "ptx": "8.6"}
_CG = "cta_group=cta_group::1|cta_group::2"
_COLLECT_A = "|".join(f"collector::a::{op}" for op in ("fill", "use", "lastuse", "discard"))
_TC05_NUM = "x1|x2|x4|x8|x16|x32|x64|x128"

_FLOATS = ("f16", "bf16", "f32", "f64")
_IRND = ("rni", "rzi", "rmi", "rpi")
_FRND = ("rn", "rz", "rm", "rp")


def _int_range(t):
    bits = int(t[1:])
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)


def _cvt_scalar_check(m):
    """The rules of the scalar cvt lines (ISA 9.7.9.21): which rounding and saturation go
    with which pair of types."""
    rnd, dtype, atype = m["rnd"], m["dtype"], m["atype"]
    d_float, a_float = dtype in _FLOATS, atype in _FLOATS
    if m["relu"] or m["satfinite"]:
        if not (dtype in ("f16", "bf16") and atype == "f32" and rnd in ("rn", "rz")):
            return ".relu/.satfinite belong to cvt.{rn,rz}{.relu}{.satfinite}.{f16,bf16}.f32"
        if m["ftz"] or m["sat"]:
            return ".relu/.satfinite do not combine with .ftz/.sat"
    if a_float and not d_float and rnd not in _IRND:
        return "a float-to-integer cvt needs an integer rounding (.rni, .rzi, .rmi, .rpi)"
    if d_float and not a_float and rnd not in _FRND:
        return "an integer-to-float cvt needs a float rounding (.rn, .rz, .rm, .rp)"
    if not a_float and not d_float and rnd:
        return "an integer-to-integer cvt takes no rounding"
    if a_float and d_float:
        a_bits, d_bits = int(atype[-2:].lstrip("f")), int(dtype[-2:].lstrip("f"))
        if d_bits < a_bits and rnd not in _FRND:
            return "a narrowing float cvt needs a float rounding (.rn, .rz, .rm, .rp)"
        if d_bits > a_bits and rnd:
            return "a widening float cvt takes no rounding"
        if d_bits == a_bits and dtype != atype:
            return "cvt between .f16 and .bf16 is not a PTX conversion"
        if dtype == atype and rnd in _FRND:
            return "a same-type float cvt rounds to an integer (.rni, .rzi, .rmi, .rpi)"
    if "bf16" in (dtype, atype) and {dtype, atype} & {"u8", "s8"}:
        return ".bf16 does not convert to or from 8-bit integers"
    if m["sat"] and "bf16" in (dtype, atype):
        return ".sat does not apply to .bf16 conversions"
    if m["sat"] and not d_float and not a_float:
        lo_d, hi_d = _int_range(dtype)
        lo_a, hi_a = _int_range(atype)
        if lo_d <= lo_a and hi_a <= hi_d:
            return f".sat cannot clamp: .{dtype} holds every .{atype} value"
    if m["ftz"] and "f32" not in (dtype, atype):
        return ".ftz applies only when a side is .f32"
    return None


ENTRIES = [
    # ---- mbarrier (ISA 9.7.13.15) ------------------------------------------------------------
    instr("mbarrier_init", "mbarrier",
          "action=init layout?=layout::v0|layout::v1 space?=shared|shared::cta type=b64",
          "addr:@space count:u32", arch="sm_80", ptx="7.0",
          token_arch={"shared::cta": "sm_80"}, memory=True),
    instr("mbarrier_arrive_nocount", "mbarrier", "action=arrive " + _MB_ARRIVE_SLOTS,
          "state:_ addr:@space", arch="sm_80", ptx="7.0", token_arch=_MB_SCOPED, token_ptx=_MB_PTX,
          memory=True),
    instr("mbarrier_arrive", "mbarrier", "action=arrive " + _MB_ARRIVE_SLOTS,
          "state:_ addr:@space count:u32", arch="sm_90", ptx="7.8", token_arch=_MB_SCOPED, token_ptx=_MB_PTX,
          memory=True),
    instr("mbarrier_arrive_expect_tx", "mbarrier",
          "action=arrive expect_tx=expect_tx " + _MB_ARRIVE_SLOTS,
          "state:_ addr:@space tx_count:u32", arch="sm_90", ptx="8.0",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_arrive_no_complete", "mbarrier",
          "action=arrive no_complete=noComplete sem?=release scope?=cta "
          "space?=shared|shared::cta type=b64",
          "state:b64/rw addr:@space count:u32", arch="sm_80", ptx="7.0",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_complete_tx", "mbarrier",
          "action=complete_tx sem?=relaxed scope?=cta|cluster "
          "space?=shared|shared::cta|shared::cluster type=b64",
          "addr:@space tx_count:u32", arch="sm_90", ptx="8.0", token_arch=_CLUSTER,
          memory=True),
    instr("mbarrier_expect_tx", "mbarrier",
          "action=expect_tx sem?=relaxed scope?=cta|cluster "
          "space?=shared|shared::cta|shared::cluster type=b64",
          "addr:@space tx_count:u32", arch="sm_90", ptx="8.0", memory=True),
    instr("mbarrier_test_wait", "mbarrier",
          "action=test_wait phase_type?=phase_type::primary " + _MB_WAIT_SLOTS,
          "wait_complete:pred/w addr:@space state:b64", arch="sm_80", ptx="7.0",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_test_wait_parity", "mbarrier",
          "action=test_wait parity=parity phase_type?=phase_type::primary " + _MB_WAIT_SLOTS,
          "wait_complete:pred/w addr:@space phase:u32", arch="sm_80", ptx="7.1",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_try_wait", "mbarrier",
          "action=try_wait phase_type?=phase_type::primary " + _MB_WAIT_SLOTS,
          "wait_complete:pred/w addr:@space state:b64", arch="sm_90", ptx="7.8",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_try_wait_parity", "mbarrier",
          "action=try_wait parity=parity phase_type?=phase_type::primary " + _MB_WAIT_SLOTS,
          "wait_complete:pred/w addr:@space phase:u32", arch="sm_90", ptx="7.8",
          token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_try_wait_parity_hint", "mbarrier",
          "action=try_wait parity=parity phase_type?=phase_type::primary " + _MB_WAIT_SLOTS,
          "wait_complete:pred/w addr:@space phase:u32 time_hint:u32", arch="sm_90",
          ptx="7.8", token_arch=_MB_SCOPED, token_ptx=_MB_PTX, memory=True),
    instr("mbarrier_inval", "mbarrier", "action=inval space?=shared|shared::cta type=b64",
          "addr:@space", arch="sm_80", ptx="7.0", memory=True),
    instr("mbarrier_pending_count", "mbarrier",
          "action=pending_count layout?=layout::v0 type=b64",
          "count:u32/w state:b64", arch="sm_80", ptx="7.0"),
    # ---- fences (ISA 9.7.13.4) ---------------------------------------------------------------
    instr("fence", "fence", "sem?=sc|acq_rel|acquire|release scope=" + _SCOPE, "",
          arch="sm_70", ptx="6.0", memory=True,
          token_arch={"cluster": "sm_90", "acquire": "sm_90", "release": "sm_90"},
          token_ptx={"acquire": "8.6", "release": "8.6", "cluster": "7.8"}),
    instr("fence_mbarrier_init", "fence", "op_restrict=mbarrier_init sem=release scope=cluster",
          "", arch="sm_90", ptx="8.0", memory=True),
    instr("fence_proxy", "fence",
          "proxy=proxy proxykind=alias|async space?=global|shared::cta|shared::cluster", "",
          arch="sm_70", ptx="7.5", memory=True,
          token_arch={"async": "sm_90", "global": "sm_90", "shared::cta": "sm_90",
                      "shared::cluster": "sm_90"},
          token_ptx={"async": "8.0"}),
    instr("fence_proxy_tensormap_release", "fence",
          "proxy=proxy proxykind=tensormap::generic sem=release scope=" + _SCOPE, "",
          arch="sm_90", ptx="8.3", memory=True),
    instr("fence_proxy_tensormap_acquire", "fence",
          "proxy=proxy proxykind=tensormap::generic sem=acquire scope=" + _SCOPE,
          "addr:@ size:=128", arch="sm_90", ptx="8.3", memory=True),
    # ---- cp.async (LDGSTS, ISA 9.7.9.25.3) ---------------------------------------------------
    instr("cp_async_ca", "cp",
          "api=async cop=ca dst=shared|shared::cta src=global cache?=L2::cache_hint "
          "prefetch?=" + _PREFETCH,
          "dst_mem:@dst src_mem:@src cp_size:imm=4,8,16 cache_policy:b64?cache",
          arch="sm_80", ptx="7.0", token_arch=_CACHE_HINT, memory=True),
    instr("cp_async_cg", "cp",
          "api=async cop=cg dst=shared|shared::cta src=global cache?=L2::cache_hint "
          "prefetch?=" + _PREFETCH,
          "dst_mem:@dst src_mem:@src cp_size:imm=16 cache_policy:b64?cache",
          arch="sm_80", ptx="7.0", token_arch=_CACHE_HINT, memory=True),
    instr("cp_async_commit_group", "cp", "api=async action=commit_group", "",
          arch="sm_80", ptx="7.0", memory=True),
    instr("cp_async_mbarrier_arrive", "cp",
          "api=async unit=mbarrier action=arrive noinc?=noinc space?=shared|shared::cta "
          "type=b64", "addr:@space", arch="sm_80", ptx="7.0", memory=True),
    instr("cp_async_wait_group", "cp", "api=async action=wait_group", "group:imm",
          arch="sm_80", ptx="7.0", memory=True),
    instr("cp_async_wait_all", "cp", "api=async action=wait_all", "",
          arch="sm_80", ptx="7.0", memory=True),
    # ---- cp.async.bulk (TMA, ISA 9.7.9.25.4) -------------------------------------------------
    instr("cp_async_bulk_g2s_cta", "cp",
          "api=async kind=bulk " + _BULK_SEM + " dst=shared::cta src=global "
          "completion=mbarrier::complete_tx::bytes cache?=L2::cache_hint ignore_oob?=ignore_oob "
          "type?=b128",
          "dst_mem:@dst src_mem:@src size:u32 ignore_bytes_left:u32?ignore_oob "
          "ignore_bytes_right:u32?ignore_oob mbar:@dst cache_policy:b64?cache",
          arch="sm_90", ptx="8.6", memory=True),
    instr("cp_async_bulk_g2s_cluster", "cp",
          "api=async kind=bulk " + _BULK_SEM + " dst=shared::cluster src=global "
          "completion=mbarrier::complete_tx::bytes multicast?=multicast::cluster "
          "cache?=L2::cache_hint type?=b128",
          "dst_mem:@dst src_mem:@src size:u32 mbar:@dst cta_mask:u16?multicast "
          "cache_policy:b64?cache", arch="sm_90", ptx="8.0", memory=True),
    instr("cp_async_bulk_s2g", "cp",
          "api=async kind=bulk " + _BULK_SEM + " dst=global src=shared::cta "
          "completion=bulk_group cache?=L2::cache_hint cp_mask?=cp_mask type?=b128",
          "dst_mem:@dst src_mem:@src size:u32 cache_policy:b64?cache byte_mask:u16?cp_mask",
          arch="sm_90", ptx="8.0", memory=True, token_arch={"cp_mask": "sm_100"},
          token_ptx={"cp_mask": "8.6"}),
    instr("cp_async_bulk_s2c", "cp",
          "api=async kind=bulk " + _BULK_SEM + " dst=shared::cluster src=shared::cta "
          "completion=mbarrier::complete_tx::bytes type?=b128",
          "dst_mem:@dst src_mem:@src size:u32 mbar:@dst", arch="sm_90", ptx="8.0",
          memory=True),
    instr("cp_async_bulk_prefetch", "cp",
          "api=async kind=bulk op=prefetch level=L2 src=global cache?=L2::cache_hint",
          "src_mem:@src size:u32 cache_policy:b64?cache", arch="sm_90", ptx="8.0"),
    instr("cp_async_bulk_tensor_g2s_cta", "cp",
          f"api=async kind=bulk unit=tensor dim={_DIM} dst=shared::cta src=global "
          "load_mode?=tile|tile::gather4 completion=mbarrier::complete_tx::bytes "
          "cta_group?=cta_group::1|cta_group::2 cache?=L2::cache_hint",
          "dst_mem:@dst [tmap:@src coords:s32*tma_coords] mbar:@dst cache_policy:b64?cache",
          arch="sm_90", ptx="8.0", memory=True,
          token_arch={"cta_group::1": "sm_100a", "cta_group::2": "sm_100a",
                      "tile::gather4": "sm_100a", "shared::cta": "sm_90"},
          token_ptx={"shared::cta": "8.6"}),
    instr("cp_async_bulk_tensor_g2s_cluster", "cp",
          f"api=async kind=bulk unit=tensor dim={_DIM} dst=shared::cluster src=global "
          "load_mode?=tile|tile::gather4 completion=mbarrier::complete_tx::bytes "
          "multicast?=multicast::cluster cta_group?=cta_group::1|cta_group::2 "
          "cache?=L2::cache_hint",
          "dst_mem:@dst [tmap:@src coords:s32*tma_coords] mbar:@dst cta_mask:u16?multicast "
          "cache_policy:b64?cache", arch="sm_90", ptx="8.0", memory=True,
          token_arch={"cta_group::1": "sm_100a", "cta_group::2": "sm_100a",
                      "tile::gather4": "sm_100a"}),
    instr("cp_async_bulk_tensor_s2g", "cp",
          f"api=async kind=bulk unit=tensor dim={_DIM} dst=global src=shared::cta "
          "load_mode?=tile|tile::scatter4 completion=bulk_group cache?=L2::cache_hint",
          "[tmap:@dst coords:s32*tma_coords] src_mem:@src cache_policy:b64?cache",
          arch="sm_90", ptx="8.0", memory=True, token_arch={"tile::scatter4": "sm_100a"}),
    instr("cp_reduce_async_bulk_tensor", "cp",
          f"op=reduce api=async kind=bulk unit=tensor dim={_DIM} dst=global src=shared::cta "
          f"redop={_REDOP} load_mode?=tile completion=bulk_group cache?=L2::cache_hint",
          "[tmap:@dst coords:s32*tma_coords] src_mem:@src cache_policy:b64?cache",
          arch="sm_90", ptx="8.0", memory=True),
    instr("cp_async_bulk_tensor_prefetch", "cp",
          f"api=async kind=bulk action=prefetch unit=tensor dim={_DIM} level=L2 src=global "
          "load_mode?=tile|tile::gather4 cache?=L2::cache_hint",
          "[tmap:@src coords:s32*tma_coords] cache_policy:b64?cache", arch="sm_90", ptx="8.0",
          token_arch={"tile::gather4": "sm_100a"}),
    instr("cp_async_bulk_commit_group", "cp", "api=async kind=bulk action=commit_group", "",
          arch="sm_90", ptx="8.0", memory=True),
    instr("cp_async_bulk_wait_group", "cp",
          "api=async kind=bulk action=wait_group read?=read", "group:imm",
          arch="sm_90", ptx="8.0", memory=True),
    instr("prefetch", "prefetch",
          "space?=global|local|const|param level?=L1|L2 "
          "evict?=L2::evict_last|L2::evict_normal tensormap?=tensormap", "addr:@space",
          arch="sm_50", ptx="2.0",
          check=lambda m: (".tensormap takes .const or .param (or generic addressing)"
                           if m["tensormap"] and m["space"] in ("global", "local") else None),
          token_arch={"tensormap": "sm_90", "L2::evict_last": "sm_80",
                      "L2::evict_normal": "sm_80"},
          token_ptx={"tensormap": "8.0"}),
    instr("tensormap_cp_fenceproxy", "tensormap_cp_fenceproxy",
          "dst=global src=shared::cta proxy=tensormap::generic sem=release "
          "scope=" + _SCOPE + " sync=sync aligned=aligned",
          "dst_mem:@dst src_mem:@src size:imm=128", arch="sm_90", ptx="8.3", memory=True),
    # ---- ld / st (ISA 9.7.9.8, 9.7.9.11) -----------------------------------------------------
    instr("ld", "ld",
          f"mmio?=mmio sem?={_SEM_LD} scope?={_SCOPE} space?={_SPACE} cop?=ca|cg|cs|lu|cv "
          f"nc?=nc l1ev?={_L1EV} cache?=L2::cache_hint prefetch?={_PREFETCH} "
          f"type={_LDST_TYPE}|b128",
          "d:$type/w addr:@space cache_policy:b64?cache", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, **_CACHE_HINT, "mmio": "sm_70", "b128": "sm_70"},
          token_ptx={"b128": "8.3", "mmio": "8.2"}),
    instr("ld_vec", "ld",
          f"sem?={_SEM_LD} scope?={_SCOPE} space?={_SPACE} cop?=ca|cg|cs|lu|cv nc?=nc "
          f"l1ev?={_L1EV} cache?=L2::cache_hint prefetch?={_PREFETCH} vec=v2|v4 "
          f"type={_LDST_TYPE}",
          "d:$type*vec/w addr:@space cache_policy:b64?cache", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, **_CACHE_HINT}, check=_check_vec),
    instr("ld_vec256", "ld",
          f"sem?={_SEM_LD} scope?={_SCOPE} space?=global cop?=ca|cg|cs|lu|cv nc?=nc "
          f"l1ev?={_L1EV} l2ev?={_L2EV} cache?=L2::cache_hint prefetch?={_PREFETCH} "
          f"vec=v4|v8 type={_TYPE256}",
          "d:$type*vec/w addr:@space cache_policy:b64?cache", arch="sm_100", ptx="8.8",
          check=_check_256),
    instr("st", "st",
          f"mmio?=mmio sem?={_SEM_ST} scope?={_SCOPE} space?={_SPACE} cop?=wb|cg|cs|wt "
          f"l1ev?={_L1EV} cache?=L2::cache_hint type={_LDST_TYPE}|b128",
          "addr:@space value:$type cache_policy:b64?cache", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, **_CACHE_HINT, "mmio": "sm_70", "b128": "sm_70"},
          memory=False),
    instr("st_vec", "st",
          f"sem?={_SEM_ST} scope?={_SCOPE} space?={_SPACE} cop?=wb|cg|cs|wt l1ev?={_L1EV} "
          f"cache?=L2::cache_hint vec=v2|v4 type={_LDST_TYPE}",
          "addr:@space value:$type*vec cache_policy:b64?cache", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, **_CACHE_HINT}, check=_check_vec),
    instr("st_vec256", "st",
          f"sem?={_SEM_ST} scope?={_SCOPE} space?=global cop?=wb|cg|cs|wt l1ev?={_L1EV} "
          f"l2ev?={_L2EV} cache?=L2::cache_hint vec=v4|v8 type={_TYPE256}",
          "addr:@space value:$type*vec cache_policy:b64?cache", arch="sm_100", ptx="8.8",
          check=_check_256),
    instr("st_async", "st_async",
          "weak?=weak space?=shared::cluster completion=mbarrier::complete_tx::bytes "
          "type=b32|b64|u32|u64|s32|s64|f32|f64",
          "addr:@space value:$type mbar:@space", arch="sm_90", ptx="8.1", memory=True),
    instr("st_async_vec", "st_async",
          "weak?=weak space?=shared::cluster completion=mbarrier::complete_tx::bytes "
          "vec=v2|v4 type=b32|b64|u32|u64|s32|s64|f32|f64",
          "addr:@space value:$type*vec mbar:@space", arch="sm_90", ptx="8.1", memory=True),
    # The release line (no mbarrier). Its 8-bit types (b8/u8/s8) take a real .b8 source
    # register: that shape, st_async_release_b8, is in table_more.
    instr("st_async_release", "st_async",
          "mmio?=mmio sem=release scope=gpu|sys space?=global "
          "type=b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64",
          "addr:@space value:$type", arch="sm_100", ptx="8.7", memory=True,
          check=_check_st_async_release),
    instr("red_async", "red_async",
          "sem=relaxed scope=cluster space?=shared::cluster "
          "completion=mbarrier::complete_tx::bytes op=inc|dec|min|max|and|or|xor|add "
          "type=u32|s32|u64|b32",
          "addr:@space value:$type mbar:@space", arch="sm_90", ptx="8.1", memory=True),
    instr("st_bulk", "st_bulk", "weak?=weak space?=shared::cta",
          "addr:@space size:u64 initval:imm=0", arch="sm_100", ptx="8.6", memory=True),
    # ---- atom / red (ISA 9.7.13.5/6) ---------------------------------------------------------
    instr("atom", "atom",
          f"sem?=relaxed|acquire|release|acq_rel scope?={_SCOPE} "
          f"space?=global|shared|shared::cta|shared::cluster op={_REDOP}|exch "
          "cache?=L2::cache_hint type=b32|b64|u32|u64|s32|s64|f32|f64",
          "d:$type/w addr:@space value:$type cache_policy:b64?cache", arch="sm_50",
          ptx="2.0", token_arch={**_SCOPED, **_CACHE_HINT, "acq_rel": "sm_70"}, memory=True),
    instr("atom_cas", "atom",
          f"sem?=relaxed|acquire|release|acq_rel scope?={_SCOPE} "
          "space?=global|shared|shared::cta|shared::cluster op=cas type=b16|b32|b64",
          "d:$type/w addr:@space compare:$type value:$type", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, "acq_rel": "sm_70", "b16": "sm_70"}, memory=True),
    instr("red", "red",
          f"sem?=relaxed|release scope?={_SCOPE} "
          f"space?=global|shared|shared::cta|shared::cluster op={_REDOP} "
          "cache?=L2::cache_hint type=b32|b64|u32|u64|s32|s64|f32|f64",
          "addr:@space value:$type cache_policy:b64?cache", arch="sm_50", ptx="2.0",
          token_arch={**_SCOPED, **_CACHE_HINT}, memory=True),
    instr("multimem_ld_reduce", "multimem_ld_reduce",
          f"sem?=weak|relaxed|acquire scope?={_SCOPE} space?=global "
          "op=min|max|add|and|or|xor type=b32|b64|u32|u64|s32|s64",
          "d:$type/w addr:@space", arch="sm_90", ptx="8.1", memory=True),
    instr("multimem_st", "multimem_st",
          f"sem?=weak|relaxed|release scope?={_SCOPE} space?=global "
          "type=b32|b64|u32|u64|s32|s64|f32|f64",
          "addr:@space value:$type", arch="sm_90", ptx="8.1", memory=True),
    instr("multimem_red", "multimem_red",
          f"sem?=relaxed|release scope?={_SCOPE} space?=global "
          "op=min|max|add|and|or|xor type=b32|b64|u32|u64|s32|s64",
          "addr:@space value:$type", arch="sm_90", ptx="8.1", memory=True),
    # ---- matrices (ISA 9.7.14) ---------------------------------------------------------------
    instr("ldmatrix", "ldmatrix",
          "sync=sync aligned=aligned shape=m8n8 num=x1|x2|x4 trans?=trans "
          "space?=shared|shared::cta type=b16",
          "r:b32*ldmatrix/w p:@space", arch="sm_75", ptx="6.5"),
    instr("stmatrix", "stmatrix",
          "sync=sync aligned=aligned shape=m8n8 num=x1|x2|x4 trans?=trans "
          "space?=shared|shared::cta type=b16",
          "p:@space r:b32*ldmatrix", arch="sm_90", ptx="7.8", memory=True),
    instr("mma", "mma",
          "sync=sync aligned=aligned shape=m16n8k8|m16n8k16 alayout=row blayout=col "
          "dtype=f32 atype=f16|bf16 btype=f16|bf16 ctype=f32",
          "d:f32*mma_c/w a:b32*mma_a b:b32*mma_b c:f32*mma_c", arch="sm_75", ptx="6.5",
          token_arch={"bf16": "sm_80", "m16n8k16": "sm_80"}, token_ptx={"bf16": "7.0"}),
    instr("mma_tf32", "mma",
          "sync=sync aligned=aligned shape=m16n8k8|m16n8k4 alayout=row blayout=col "
          "dtype=f32 atype=tf32 btype=tf32 ctype=f32",
          "d:f32*mma_c/w a:b32*mma_a b:b32*mma_b c:f32*mma_c", arch="sm_80", ptx="7.0"),
    instr("mma_f16acc", "mma",
          "sync=sync aligned=aligned shape=m16n8k8|m16n8k16 alayout=row blayout=col "
          "dtype=f16 atype=f16 btype=f16 ctype=f16",
          "d:b32*mma_c/w a:b32*mma_a b:b32*mma_b c:b32*mma_c", arch="sm_75", ptx="6.5",
          token_arch={"m16n8k16": "sm_80"}),
    instr("mma_fp8", "mma",
          "sync=sync aligned=aligned shape=m16n8k32 alayout=row blayout=col "
          "dtype=f32 atype=e4m3|e5m2 btype=e4m3|e5m2 ctype=f32",
          "d:f32*mma_c/w a:b32*mma_a b:b32*mma_b c:f32*mma_c", arch="sm_89", ptx="8.4"),
    instr("mma_int", "mma",
          "sync=sync aligned=aligned shape=m16n8k16|m16n8k32 alayout=row blayout=col "
          "satfinite?=satfinite dtype=s32 atype=u8|s8 btype=u8|s8 ctype=s32",
          "d:s32*mma_c/w a:b32*mma_a b:b32*mma_b c:s32*mma_c", arch="sm_80", ptx="7.0"),
    # ---- wgmma (ISA 9.7.15) ------------------------------------------------------------------
    instr("wgmma_f16_ss", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_WGMMA_SHAPES[16]} "
          "dtype=f32|f16 atype=f16|bf16 btype=f16|bf16",
          "d:acc*wgmma_d/rw a_desc:u64 b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1 trans_a:imm=0,1 trans_b:imm=0,1", **_WGMMA),
    instr("wgmma_f16_rs", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_WGMMA_SHAPES[16]} "
          "dtype=f32|f16 atype=f16|bf16 btype=f16|bf16",
          "d:acc*wgmma_d/rw a:b32*wgmma_a b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1 trans_b:imm=0,1", **_WGMMA),
    instr("wgmma_tf32_ss", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_WGMMA_SHAPES[8]} "
          "dtype=f32 atype=tf32 btype=tf32",
          "d:acc*wgmma_d/rw a_desc:u64 b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1", **_WGMMA),
    instr("wgmma_fp8_ss", "wgmma",
          f"action=mma_async sync=sync aligned=aligned shape={_WGMMA_SHAPES[32]} "
          "dtype=f32|f16 atype=e4m3|e5m2 btype=e4m3|e5m2",
          "d:acc*wgmma_d/rw a_desc:u64 b_desc:u64 scale_d:pred scale_a:imm=1,-1 "
          "scale_b:imm=1,-1", **_WGMMA),
    instr("wgmma_fence", "wgmma", "action=fence sync=sync aligned=aligned", "",
          memory=True, **_WGMMA),
    instr("wgmma_commit_group", "wgmma", "action=commit_group sync=sync aligned=aligned", "",
          memory=True, **_WGMMA),
    instr("wgmma_wait_group", "wgmma", "action=wait_group sync=sync aligned=aligned",
          "group:imm", memory=True, **_WGMMA),
    # ---- warp-level / cluster misc -----------------------------------------------------------
    instr("setmaxnreg", "setmaxnreg", "action=inc|dec sync=sync aligned=aligned type=u32",
          "nreg:imm=" + ",".join(str(n) for n in range(24, 257, 8)), arch="sm_90a", ptx="8.0"),
    instr("elect_sync", "elect_sync", "", "d:b32/w| p:pred/w membermask:b32",
          arch="sm_90", ptx="8.0"),
    instr("mapa_u32", "mapa", "space=shared::cluster type=u32", "d:u32/w a:u32 b:u32",
          arch="sm_90", ptx="7.8"),
    # A pointer ``a`` (T.address_of(...)) takes the pointer shape, with an optional
    # .shared::cluster slot (printed ``"", "u64", ""`` as in 0.27); a uint64 ``a`` the
    # integer shapes. The pointer shape comes first: the u64 shapes take a handle too.
    instr("mapa", "mapa", "space?=shared::cluster type=u64", "d:u64/w a:ptr b:u32",
          arch="sm_90", ptx="7.8"),
    instr("mapa_u64_shared", "mapa", "space=shared::cluster type=u64", "d:u64/w a:u64 b:u32",
          arch="sm_90", ptx="7.8"),
    instr("mapa_u64", "mapa", "type=u64", "d:u64/w a:u64 b:u32", arch="sm_90", ptx="7.8"),
    instr("bar_sync", "bar", "cta?=cta action=sync", "a:u32", arch="sm_50", ptx="2.0",
          memory=True, token_ptx={"cta": "7.8"}),
    instr("bar_sync_count", "bar", "cta?=cta action=sync", "a:u32 b:u32", arch="sm_50",
          ptx="2.0", memory=True),
    instr("bar_arrive", "bar", "cta?=cta action=arrive", "a:u32 b:u32", arch="sm_50",
          ptx="2.0", memory=True),
    instr("barrier_sync", "barrier", "cta?=cta action=sync aligned?=aligned", "a:u32",
          arch="sm_70", ptx="6.0", memory=True),
    instr("barrier_sync_count", "barrier", "cta?=cta action=sync aligned?=aligned",
          "a:u32 b:u32", arch="sm_70", ptx="6.0", memory=True),
    instr("barrier_arrive", "barrier", "cta?=cta action=arrive aligned?=aligned",
          "a:u32 b:u32", arch="sm_70", ptx="6.0", memory=True),
    instr("barrier_cluster_arrive", "barrier",
          "cluster=cluster action=arrive sem?=release|relaxed aligned?=aligned", "",
          arch="sm_90", ptx="7.8", memory=True, token_ptx={"release": "8.0", "relaxed": "8.0"}),
    instr("barrier_cluster_wait", "barrier",
          "cluster=cluster action=wait sem?=acquire aligned?=aligned", "",
          arch="sm_90", ptx="7.8", memory=True, token_ptx={"acquire": "8.0"}),
    instr("griddepcontrol", "griddepcontrol", "action=launch_dependents|wait", "",
          arch="sm_90", ptx="7.8", memory=True),
    instr("clusterlaunchcontrol_try_cancel", "clusterlaunchcontrol",
          "action=try_cancel async_=async space?=shared::cta "
          "completion=mbarrier::complete_tx::bytes multicast?=multicast::cluster::all "
          "type=b128", "addr:@space mbar:@space", arch="sm_100", ptx="8.6", memory=True),
    instr("clusterlaunchcontrol_query_cancel_is_canceled", "clusterlaunchcontrol",
          "action=query_cancel query=is_canceled ptype=pred type=b128",
          "p:pred/w response:b128", arch="sm_100", ptx="8.6"),
    instr("clusterlaunchcontrol_query_cancel_get_first_ctaid", "clusterlaunchcontrol",
          "action=query_cancel query=get_first_ctaid::x|get_first_ctaid::y|get_first_ctaid::z "
          "dtype=b32 type=b128", "d:b32/w response:b128", arch="sm_100", ptx="8.6"),
    # ---- cvt (ISA 9.7.9.21, PTX 9.x syntax lines) -----------------------------------------
    instr("cvt", "cvt",
          "rnd?=rni|rzi|rmi|rpi|rn|rz|rm|rp relu?=relu satfinite?=satfinite ftz?=ftz sat?=sat "
          "dtype=u8|u16|u32|u64|s8|s16|s32|s64|bf16|f16|f32|f64 "
          "atype=u8|u16|u32|u64|s8|s16|s32|s64|bf16|f16|f32|f64",
          "d:$dtype/w a:$atype", arch="sm_50", ptx="2.0", check=_cvt_scalar_check,
          token_arch={"bf16": "sm_80", "relu": "sm_80", "satfinite": "sm_80"},
          token_ptx={"bf16": "7.0", "relu": "7.0", "satfinite": "8.1"}),
    instr("cvt_f16x2_f32", "cvt",
          "rnd=rn|rz relu?=relu satfinite?=satfinite dtype=f16x2 atype=f32",
          "d:b32/w a:f32 b:f32", arch="sm_80", ptx="7.0", token_ptx={"satfinite": "8.1"}),
    instr("cvt_bf16x2_f32", "cvt",
          "rnd=rn|rz relu?=relu satfinite?=satfinite dtype=bf16x2 atype=f32",
          "d:b32/w a:f32 b:f32", arch="sm_80", ptx="7.0", token_ptx={"satfinite": "8.1"}),
    instr("cvt_tf32_f32", "cvt", "rnd=rna|rn|rz satfinite?=satfinite relu?=relu "
          "dtype=tf32 atype=f32", "d:b32/w a:f32", arch="sm_80", ptx="7.0",
          token_arch={"rn": "sm_90", "rz": "sm_90"}, token_ptx={"rn": "7.8", "rz": "7.8"},
          combo_arch=(({"rnd": "rn|rz", "satfinite": "satfinite"}, "sm_100"),),
          check=lambda m: (".relu needs .rn or .rz" if m["relu"] and m["rnd"] == "rna"
                           else None)),
    # stochastic rounding: a trailing random-bits operand; the x4 forms pack {a, b, e, f}
    instr("cvt_rs_f16x2_f32", "cvt",
          "rnd=rs relu?=relu satfinite?=satfinite dtype=f16x2 atype=f32",
          "d:b32/w a:f32 b:f32 rbits:u32", arch="sm_100a", ptx="8.7"),
    instr("cvt_rs_bf16x2_f32", "cvt",
          "rnd=rs relu?=relu satfinite?=satfinite dtype=bf16x2 atype=f32",
          "d:b32/w a:f32 b:f32 rbits:u32", arch="sm_100a", ptx="8.7"),
    instr("cvt_rs_f8x4_f32", "cvt",
          "rnd=rs relu?=relu satfinite=satfinite dtype=e4m3x4|e5m2x4 atype=f32",
          "d:b32/w abef:f32*4 rbits:u32", arch="sm_100a", ptx="8.7"),
    instr("cvt_rs_f4x4_f32", "cvt",
          "rnd=rs relu?=relu satfinite=satfinite dtype=e2m1x4 atype=f32",
          "d:b16/w abef:f32*4 rbits:u32", arch="sm_100a", ptx="8.7"),
    instr("cvt_rs_f6x4_f32", "cvt",
          "rnd=rs relu?=relu satfinite=satfinite dtype=e2m3x4|e3m2x4 atype=f32",
          "d:b32/w abef:f32*4 rbits:u32", arch="sm_100a", ptx="8.7"),
    # ue8m0 scale factors
    instr("cvt_ue8m0x2_f32", "cvt", "rnd=rz|rp satfinite?=satfinite dtype=ue8m0x2 atype=f32",
          "d:b16/w a:f32 b:f32", arch="sm_100a", ptx="8.6"),
    instr("cvt_ue8m0x2_bf16x2", "cvt",
          "rnd=rz|rp satfinite?=satfinite dtype=ue8m0x2 atype=bf16x2",
          "d:b16/w a:b32", arch="sm_100a", ptx="8.6"),
    instr("cvt_bf16x2_ue8m0x2", "cvt", "rnd=rn dtype=bf16x2 atype=ue8m0x2",
          "d:b32/w a:b16", arch="sm_100a", ptx="8.6"),
    # fp8
    instr("cvt_f8x2_f32", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e4m3x2|e5m2x2 atype=f32",
          "d:b16/w a:f32 b:f32", arch="sm_89", ptx="7.8", token_ptx={"relu": "8.1"}),
    instr("cvt_f8x2_fp16x2", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e4m3x2|e5m2x2 atype=f16x2|bf16x2",
          "d:b16/w a:b32", arch="sm_89", ptx="7.8", token_arch={"bf16x2": "sm_100a"},
          token_ptx={"relu": "8.1", "bf16x2": "9.1"}),
    instr("cvt_f16x2_f8x2", "cvt", "rnd=rn relu?=relu dtype=f16x2 atype=e4m3x2|e5m2x2",
          "d:b32/w a:b16", arch="sm_89", ptx="7.8", token_ptx={"relu": "8.1"}),
    instr("cvt_bf16x2_f8x2", "cvt",
          "rnd=rn relu?=relu satfinite?=satfinite scaled?=scaled::n2::ue8m0 dtype=bf16x2 "
          "atype=e4m3x2|e5m2x2", "d:b32/w a:b16 scale_factor:b16?scaled",
          arch="sm_100a", ptx="9.2"),
    # fp4 (.e2m1x2 is a .b8 value: staged through a .reg .b8 when rendered)
    instr("cvt_f4x2_f32", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e2m1x2 atype=f32",
          "d:b8/w a:f32 b:f32", arch="sm_100a", ptx="8.6"),
    instr("cvt_f4x2_fp16x2", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e2m1x2 atype=f16x2|bf16x2",
          "d:b8/w a:b32", arch="sm_100a", ptx="9.2"),
    instr("cvt_f16x2_f4x2", "cvt", "rnd=rn relu?=relu dtype=f16x2 atype=e2m1x2",
          "d:b32/w a:b8", arch="sm_100a", ptx="8.6"),
    instr("cvt_bf16x2_f4x2", "cvt",
          "rnd=rn relu?=relu satfinite?=satfinite scaled?=scaled::n2::ue8m0 dtype=bf16x2 "
          "atype=e2m1x2", "d:b32/w a:b8 scale_factor:b16?scaled", arch="sm_100a", ptx="9.2"),
    # fp6
    instr("cvt_f6x2_f32", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e2m3x2|e3m2x2 atype=f32",
          "d:b16/w a:f32 b:f32", arch="sm_100a", ptx="8.6"),
    instr("cvt_f6x2_fp16x2", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu dtype=e2m3x2|e3m2x2 atype=f16x2|bf16x2",
          "d:b16/w a:b32", arch="sm_100a", ptx="9.2"),
    instr("cvt_f16x2_f6x2", "cvt", "rnd=rn relu?=relu dtype=f16x2 atype=e2m3x2|e3m2x2",
          "d:b32/w a:b16", arch="sm_100a", ptx="8.6"),
    instr("cvt_bf16x2_f6x2", "cvt",
          "rnd=rn relu?=relu satfinite?=satfinite scaled?=scaled::n2::ue8m0 dtype=bf16x2 "
          "atype=e2m3x2|e3m2x2", "d:b32/w a:b16 scale_factor:b16?scaled",
          arch="sm_100a", ptx="9.2"),
    # scaled signed fp6
    instr("cvt_s2f6x2_f32", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu scaled?=scaled::n2::ue8m0 dtype=s2f6x2 "
          "atype=f32", "d:b16/w a:f32 b:f32 scale_factor:b16?scaled", arch="sm_100a",
          ptx="9.2"),
    instr("cvt_s2f6x2_bf16x2", "cvt",
          "rnd=rn satfinite=satfinite relu?=relu scaled?=scaled::n2::ue8m0 dtype=s2f6x2 "
          "atype=bf16x2", "d:b16/w a:b32 scale_factor:b16?scaled", arch="sm_100a", ptx="9.2"),
    instr("cvt_bf16x2_s2f6x2", "cvt",
          "rnd=rn relu?=relu satfinite?=satfinite scaled?=scaled::n2::ue8m0 dtype=bf16x2 "
          "atype=s2f6x2", "d:b32/w a:b16 scale_factor:b16?scaled", arch="sm_100a", ptx="9.2"),
    # ---- tcgen05 (ISA 9.7.16) ----------------------------------------------------------------
    instr("tcgen05_alloc", "tcgen05",
          f"action=alloc {_CG} sync=sync aligned=aligned space?=shared::cta type=b32",
          "dst:@space ncols:u32", memory=True, **_TC05),
    instr("tcgen05_dealloc", "tcgen05",
          f"action=dealloc {_CG} sync=sync aligned=aligned type=b32",
          "taddr:tmem ncols:u32", memory=True, **_TC05),
    instr("tcgen05_relinquish_alloc_permit", "tcgen05",
          f"action=relinquish_alloc_permit {_CG} sync=sync aligned=aligned", "",
          memory=True, **_TC05),
    instr("tcgen05_mma_ss", "tcgen05",
          f"action=mma {_CG} kind=kind::f16|kind::tf32|kind::f8f6f4|kind::i8 "
          "collector?=" + _COLLECT_A,
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 enable_input_d:pred",
          memory=True, **_TC05),
    instr("tcgen05_mma_ts", "tcgen05",
          f"action=mma {_CG} kind=kind::f16|kind::tf32|kind::f8f6f4|kind::i8 "
          "collector?=" + _COLLECT_A,
          "[d_tmem:tmem] [a_tmem:tmem] b_desc:u64 idesc:u32 enable_input_d:pred",
          memory=True, **_TC05),
    instr("tcgen05_mma_block_scale_ss", "tcgen05",
          f"action=mma {_CG} kind=kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4 "
          "block_scale=block_scale block_size?=block16|block32",
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 [sfa_tmem:tmem] [sfb_tmem:tmem] "
          "enable_input_d:pred", memory=True, **_TC05),
    instr("tcgen05_mma_block_scale_vec_ss", "tcgen05",
          f"action=mma {_CG} kind=kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4 "
          "block_scale=block_scale scale_vec=scale_vec::1X|scale_vec::2X|scale_vec::4X",
          "[d_tmem:tmem] a_desc:u64 b_desc:u64 idesc:u32 [sfa_tmem:tmem] [sfb_tmem:tmem] "
          "enable_input_d:pred", memory=True, **_TC05),
    instr("tcgen05_mma_block_scale_vec_ts", "tcgen05",
          f"action=mma {_CG} kind=kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4 "
          "block_scale=block_scale scale_vec=scale_vec::1X|scale_vec::2X|scale_vec::4X",
          "[d_tmem:tmem] [a_tmem:tmem] b_desc:u64 idesc:u32 [sfa_tmem:tmem] [sfb_tmem:tmem] "
          "enable_input_d:pred", memory=True, **_TC05),
    instr("tcgen05_commit", "tcgen05",
          f"action=commit {_CG} completion=mbarrier::arrive::one space?=shared::cluster "
          "type=b64", "mbar:@space", memory=True, **_TC05),
    instr("tcgen05_commit_multicast", "tcgen05",
          f"action=commit {_CG} completion=mbarrier::arrive::one space?=shared::cluster "
          "multicast=multicast::cluster type=b64", "mbar:@space mask:u16",
          memory=True, **_TC05),
    instr("tcgen05_cp", "tcgen05",
          f"action=cp {_CG} shape=128x256b|4x256b|128x128b|64x128b|32x128b "
          "multicast?=warpx2::02_13|warpx2::01_23|warpx4 dst_fmt?=b8x16 "
          "src_fmt?=b6x16_p32|b4x16_p64", "[taddr:tmem] s_desc:u64", memory=True, **_TC05),
    instr("tcgen05_ld", "tcgen05",
          f"action=ld sync=sync aligned=aligned shape=16x64b|16x128b|16x256b|32x32b "
          f"num={_TC05_NUM} pack?=pack::16b type=b32",
          "r:b32*tcgen05_ldst/w [taddr:tmem]", **_TC05),
    instr("tcgen05_st", "tcgen05",
          f"action=st sync=sync aligned=aligned shape=16x64b|16x128b|16x256b|32x32b "
          f"num={_TC05_NUM} unpack?=unpack::16b type=b32",
          "[taddr:tmem] r:b32*tcgen05_ldst", memory=True, **_TC05),
    instr("tcgen05_ld_split", "tcgen05",
          f"action=ld sync=sync aligned=aligned shape=16x32bx2 num={_TC05_NUM} "
          "pack?=pack::16b type=b32",
          "r:b32*tcgen05_ldst/w [taddr:tmem] half_splitoff:imm", **_TC05),
    instr("tcgen05_st_split", "tcgen05",
          f"action=st sync=sync aligned=aligned shape=16x32bx2 num={_TC05_NUM} "
          "unpack?=unpack::16b type=b32",
          "[taddr:tmem] half_splitoff:imm r:b32*tcgen05_ldst", memory=True, **_TC05),
    instr("tcgen05_wait", "tcgen05", "action=wait::ld|wait::st sync=sync aligned=aligned", "",
          memory=True, **_TC05),
    instr("tcgen05_fence", "tcgen05",
          "action=fence::before_thread_sync|fence::after_thread_sync", "",
          memory=True, **_TC05),
    instr("tcgen05_shift", "tcgen05", f"action=shift {_CG} down=down", "[taddr:tmem]",
          memory=True, **_TC05),
]

def _with_rules(entry):
    """Attach :data:`.rules.RULES` (after the entry's own check) and :data:`.rules.NEWER_PTX`."""
    extra = RULES.get(entry.key)
    offered = {c for s in entry.slots for c in s.choices}
    newer = {**NEWER_PTX["*"], **NEWER_PTX.get(entry.key, {})}
    token_ptx = {**entry.token_ptx, **{t: v for t, v in newer.items() if t in offered}}
    if extra is None:
        return replace(entry, token_ptx=token_ptx)
    own = entry.check

    def check(mods, own=own, extra=extra):
        return (own(mods) if own is not None else None) or extra(mods)

    return replace(entry, check=check, token_ptx=token_ptx)


ENTRIES = [_with_rules(entry) for entry in [*ENTRIES, *ALU_ENTRIES, *MMA_ENTRIES,
                                               *MORE_ENTRIES]]

#: key -> :class:`~.spec.Instr`
TABLE = {entry.key: entry for entry in ENTRIES}
if len(TABLE) != len(ENTRIES):  # two shapes with one key would silently shadow each other
    raise RuntimeError("duplicate key in the T.ptx table")
