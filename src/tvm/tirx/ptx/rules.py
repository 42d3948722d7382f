"""Cross-slot rules of the ``T.ptx`` table: combinations that every slot allows alone but the
PTX ISA forbids together (a memory order without a scope, ``atom.inc`` on ``.b32``...).

Each rule takes the modifier map ``{slot: token or ""}`` and returns an error message or
None. :data:`RULES` maps table keys to their rules; :mod:`.table` attaches them to the
entries (after the entry's own ``check``). Every rule here was checked against ptxas 13.0:
the spellings it rejects are those ptxas rejects, see tests/tirx/ptx/test_ptxas.py.
"""

from __future__ import annotations

__all__ = ["NEWER_PTX", "RULES"]

_ORDERS = ("acquire", "release", "relaxed", "acq_rel", "sc")


def _order_scope(m):
    """A strong memory order needs a scope, and a scope needs a strong memory order."""
    sem, scope = m.get("sem", ""), m.get("scope", "")
    if sem in _ORDERS and not scope:
        return f".{sem} needs a scope (.cta, .cluster, .gpu or .sys)"
    if scope and sem not in _ORDERS:
        return f"the scope .{scope} needs a memory order (.relaxed, .acquire, .release...)"
    return None


def _cache_hint(m):
    if m.get("cache") and m.get("space") not in ("", "global"):
        return ".L2::cache_hint needs the .global space (or a generic address)"
    return None


def _ld_st(m):
    error = _order_scope(m) or _cache_hint(m)
    if error:
        return error
    if m.get("mmio") and not (m.get("sem") == "relaxed" and m.get("scope") == "sys"):
        return ".mmio needs .relaxed.sys"
    if m.get("nc") and m.get("space") != "global":
        return ".nc needs the .global space"
    if m.get("nc") and m.get("sem") not in ("", "weak"):
        return ".nc takes no memory order"
    return None


def _int_or(types, what):
    def rule(m):
        if m["type"] not in types:
            return f"{what} takes {', '.join('.' + t for t in types)}, not .{m['type']}"
        return None

    return rule


_OP_TYPES = {
    "add": ("u32", "s32", "u64", "f32", "f64"),
    "inc": ("u32",),
    "dec": ("u32",),
    "min": ("u32", "s32", "u64", "s64"),
    "max": ("u32", "s32", "u64", "s64"),
    "and": ("b32", "b64"),
    "or": ("b32", "b64"),
    "xor": ("b32", "b64"),
    "exch": ("b32", "b64"),
}


def _atom_red(m):
    types = _OP_TYPES.get(m["op"])
    if types and m["type"] not in types:
        return (f".{m['op']} takes {', '.join('.' + t for t in types)}, "
                f"not .{m['type']}")
    return _order_scope(m) or _cache_hint(m)


_MULTIMEM_TYPES = {
    "add": ("u32", "s32", "u64"),
    "min": ("u32", "s32", "u64", "s64"),
    "max": ("u32", "s32", "u64", "s64"),
    "and": ("b32", "b64"),
    "or": ("b32", "b64"),
    "xor": ("b32", "b64"),
}


def _multimem(m):
    types = _MULTIMEM_TYPES.get(m.get("op", ""))
    if types and m["type"] not in types:
        return (f"multimem .{m['op']} takes {', '.join('.' + t for t in types)}, "
                f"not .{m['type']}")
    if m.get("sem") == "weak" and m.get("scope"):
        return ".weak takes no scope"
    return _order_scope(m)


def _red_async(m):
    types = {"add": ("u32", "s32", "u64"), "inc": ("u32",), "dec": ("u32",),
             "min": ("u32", "s32"), "max": ("u32", "s32"),
             "and": ("b32",), "or": ("b32",), "xor": ("b32",)}[m["op"]]
    if m["type"] not in types:
        return f"red.async .{m['op']} takes {', '.join('.' + t for t in types)}"
    return None


def _mbarrier(m):
    return _order_scope(m)


def _tma(m):
    mode = m.get("load_mode", "")
    if mode in ("tile::gather4", "tile::scatter4") and m["dim"] != "2d":
        return f".{mode} needs .2d"
    return None


def _fence_proxy(m):
    if m["proxykind"] == "alias" and m["space"]:
        return "fence.proxy.alias takes no state space"
    return None


def _prefetch(m):
    if m["tensormap"]:
        if m["level"] or m["evict"]:
            return "prefetch.tensormap takes no cache level or eviction priority"
        if m["space"] in ("global", "local"):
            return ".tensormap takes .const or .param (or generic addressing)"
        return None
    if m["space"] in ("const", "param"):
        return f".{m['space']} is only for prefetch.tensormap"
    if m["evict"]:
        if m["level"] or m["space"] != "global":
            return "an L2 eviction priority needs .global and no cache level"
        return None
    if not m["level"]:
        return "prefetch needs a cache level (.L1 or .L2)"
    return None


def _mma(m):
    if m["atype"] != m["btype"] and "f16" in (m["atype"], m["btype"]):
        return ".f16 and .bf16 operands cannot be mixed"
    return None


def _st_async_vec(m):
    if m["vec"] == "v4" and m["type"][1:] == "64":
        return "st.async vectors are at most 128 bits (.v4 of a 32-bit type)"
    return None


def _wgmma16(m):
    if m["atype"] == "bf16" and m["dtype"] != "f32":
        return ".bf16 inputs accumulate in .f32"
    return _mma(m)


_TC05_MAX = {"16x128b": 64, "16x256b": 32}


def _tcgen05_ldst(m):
    most = _TC05_MAX.get(m["shape"])
    if most and int(m["num"][1:]) > most:
        return f".{m['shape']} allows at most .x{most}"
    return None


def _tcgen05_cp(m):
    shape, multicast = m["shape"], m["multicast"]
    need = {"64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)}.get(shape)
    if need and multicast not in need:
        return f".{shape} needs one of {', '.join('.' + t for t in need)}"
    if not need and multicast:
        return f".{shape} takes no warp multicast"
    if bool(m["dst_fmt"]) != bool(m["src_fmt"]):
        return "the decompression formats come as a pair (.b8x16 with .b6x16_p32 or .b4x16_p64)"
    return None


_BLOCK = {"kind::mxf8f6f4": ("block32", "scale_vec::1X"),
          "kind::mxf4": ("block32", "scale_vec::2X"),
          "kind::mxf4nvf4": ("block16", "block32", "scale_vec::2X", "scale_vec::4X")}


def _block_scale(m):
    size = m.get("block_size") or m.get("scale_vec") or ""
    if not size and m["kind"] == "kind::mxf4nvf4":
        return ".kind::mxf4nvf4 needs a block size (.block16/.block32 or .scale_vec::2X/4X)"
    if size and size not in _BLOCK[m["kind"]]:
        return f".{m['kind']} cannot use .{size}"
    return None


RULES = {
    "ld": _ld_st, "ld_vec": _ld_st, "ld_vec256": _ld_st,
    "st": _ld_st, "st_vec": _ld_st, "st_vec256": _ld_st,
    "atom": _atom_red, "red": _atom_red, "atom_cas": _order_scope,
    "multimem_ld_reduce": _multimem, "multimem_st": _multimem, "multimem_red": _multimem,
    "red_async": _red_async, "st_async_vec": _st_async_vec,
    **{key: _mbarrier for key in (
        "mbarrier_arrive_nocount", "mbarrier_arrive", "mbarrier_arrive_expect_tx",
        "mbarrier_arrive_no_complete", "mbarrier_complete_tx",
        "mbarrier_expect_tx", "mbarrier_test_wait", "mbarrier_test_wait_parity",
        "mbarrier_try_wait", "mbarrier_try_wait_parity", "mbarrier_try_wait_parity_hint")},
    "cp_async_bulk_g2s_cta": _order_scope, "cp_async_bulk_g2s_cluster": _order_scope,
    "cp_async_bulk_s2g": _order_scope, "cp_async_bulk_s2c": _order_scope,
    "cp_async_bulk_tensor_g2s_cta": _tma, "cp_async_bulk_tensor_g2s_cluster": _tma,
    "cp_async_bulk_tensor_s2g": _tma, "cp_async_bulk_tensor_prefetch": _tma,
    "fence_proxy": _fence_proxy, "prefetch": _prefetch, "mma": _mma,
    "wgmma_f16_ss": _wgmma16, "wgmma_f16_rs": _wgmma16,
    "tcgen05_ld": _tcgen05_ldst, "tcgen05_st": _tcgen05_ldst, "tcgen05_cp": _tcgen05_cp,
    "tcgen05_mma_block_scale_ss": _block_scale, "tcgen05_mma_block_scale_vec_ss": _block_scale,
    "tcgen05_mma_block_scale_vec_ts": _block_scale,
}

#: Tokens that Apache TVM's dialect spells but ptxas 13.0 (PTX ISA 9.0) does not know, per
#: table key ("*": every key offering the token). They need a newer PTX ISA; "9.1" is a
#: lower bound that could not be checked here.
_BULK_NEW = {"weak": "9.1", "relaxed": "9.1", "cta": "9.1", "cluster": "9.1", "gpu": "9.1",
             "sys": "9.1", "b128": "9.1", "ignore_oob": "9.1"}
NEWER_PTX = {
    "*": {"phase_type::primary": "9.1", "layout::v0": "9.1", "layout::v1": "9.1"},
    "cp_async_bulk_g2s_cta": _BULK_NEW,
    "cp_async_bulk_g2s_cluster": {k: v for k, v in _BULK_NEW.items() if k != "cluster"},
    "cp_async_bulk_s2g": _BULK_NEW,
    "cp_async_bulk_s2c": _BULK_NEW,
}
