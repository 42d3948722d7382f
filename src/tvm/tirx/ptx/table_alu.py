"""``T.ptx`` shapes of the arithmetic, logic, data-movement and warp-level instructions.

Written from the PTX ISA (9.7.1 integer arithmetic, 9.7.3 floating point, 9.7.4 half
precision, 9.7.6 comparison and selection, 9.7.7 logic and shift, 9.7.9 data movement:
``mov``, ``shfl.sync``, ``cvta``, ``prmt``; 9.7.13 ``vote.sync``, ``redux.sync``,
``activemask``). The slots are in PTX text order, which is also Apache TVM 0.27's print
order. :mod:`.table` appends :data:`ALU_ENTRIES` to its entries.
"""

from __future__ import annotations

from .spec import instr

__all__ = ["ALU_ENTRIES"]

_INT = "u16|u32|u64|s16|s32|s64"
_BITS = "b16|b32|b64"
_CMP = "eq|ne|lt|le|gt|ge|lo|ls|hi|hs|equ|neu|ltu|leu|gtu|geu|num|nan"
_SETP_TYPES = "b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64|f16|bf16"
_RND = "rn|rz|rm|rp"
_HALF = "f16|f16x2|bf16|bf16x2"
_SETP_ARCH = {"f16": "sm_53", "bf16": "sm_90"}
_SETP_PTX = {"f16": "4.2", "bf16": "7.8"}
_HALF_ARCH = {"bf16": "sm_90", "bf16x2": "sm_90"}


def _setp_check(m):
    t, cmp = m["type"], m["cmp"]
    if t[0] == "b" and cmp not in ("eq", "ne"):
        return f".{t} compares only with .eq/.ne"
    if t[0] in "us" and cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
        return f".{cmp} is a floating-point comparison"
    if t[0] == "s" and cmp in ("lo", "ls", "hi", "hs"):
        return f".{cmp} is an unsigned comparison"
    if t[0] == "f" and cmp in ("lo", "ls", "hi", "hs"):
        return f".{cmp} is an unsigned comparison"
    if m.get("ftz") and t not in ("f32", "f16"):
        return ".ftz applies to .f32 and .f16"
    return None


_SETP_ARCH_X2 = {"bf16x2": "sm_90"}
_SETP_PTX_X2 = {"bf16x2": "7.8"}


def _setp_x2_check(m):
    if m["cmp"] in ("lo", "ls", "hi", "hs"):
        return f".{m['cmp']} is an unsigned comparison"
    if m.get("ftz") and m["type"] != "f16x2":
        return ".ftz applies to .f16x2, not .bf16x2"
    return None


def _float_rnd(m):
    if m.get("ftz") and m["type"] not in ("f32", "f32x2"):
        return ".ftz applies to .f32 only"
    if m.get("sat") and m["type"] not in ("f32",):
        return ".sat applies to .f32 only"
    if m.get("srctype") and m["type"] != "f32":
        return "a mixed-precision source needs an .f32 result"
    if m.get("srctype") and (m.get("ftz")):
        return "mixed precision takes no .ftz"
    if m["type"] in ("f64", "f32x2") and not m.get("rnd") and m.get("srctype"):
        return None
    return None


def _approx(m):
    mode, t = m["mode"], m["type"]
    if mode == "approx" and t == "f64":
        return ".approx takes .f32 (.rcp/.sqrt .f64 need a rounding)"
    if mode != "approx" and m.get("ftz") and t == "f64":
        return ".ftz applies to .f32 only"
    return None


def _minmax(m):
    t = m["type"]
    floaty = t in ("f32", "f64", "f16", "f16x2", "bf16", "bf16x2")
    if not floaty and (m["ftz"] or m["NaN"] or m["xorsign"]):
        return ".ftz/.NaN/.xorsign.abs are floating-point modifiers"
    if bool(m["xorsign"]) != bool(m["abs"]):
        return ".xorsign and .abs come together"
    if m["relu"] and t not in ("s16x2", "s32"):
        return ".relu takes .s32 or .s16x2"
    if m["ftz"] and t not in ("f32", "f16", "f16x2"):
        return ".ftz takes .f32, .f16 or .f16x2"
    if m["xorsign"] and t not in ("f32", "f16", "f16x2", "bf16", "bf16x2"):
        return ".xorsign.abs takes 32- or 16-bit floats"
    if m["NaN"] and t == "f64":
        return ".NaN does not take .f64"
    return None


def _fma_half(m):
    if (m["ftz"] or m["sat"]) and m["type"].startswith("bf"):
        return ".ftz/.sat take .f16/.f16x2"
    if m["sat"] and (m["relu"] or m["oob"]):
        return ".sat does not combine with .relu/.oob"
    if m["ftz"] and m["oob"]:
        return ".ftz does not combine with .oob"
    return None


ALU_ENTRIES = [
    # ---- data movement --------------------------------------------------------------------
    instr("mov", "mov", f"type={_BITS}|{_INT}|f32|f64|pred", "d:$type/w a:$type",
          arch="sm_50", ptx="1.0"),
    instr("mov_unpack_b64", "mov", "type=b64", "d:b32*2/w~ a:b64", arch="sm_50", ptx="1.0"),
    instr("mov_pack_b64", "mov", "type=b64", "d:b64/w a:b32*2", arch="sm_50", ptx="1.0"),
    instr("mov_unpack_b32", "mov", "type=b32", "d:b16*2/w~ a:b32", arch="sm_50", ptx="1.0"),
    instr("mov_pack_b32", "mov", "type=b32", "d:b32/w a:b16*2", arch="sm_50", ptx="1.0"),
    instr("selp", "selp", f"type={_BITS}|{_INT}|f32|f64", "d:$type/w a:$type b:$type c:pred",
          arch="sm_50", ptx="1.0"),
    instr("shfl_sync", "shfl_sync", "mode=up|down|bfly|idx type=b32",
          "d:b32/w a:b32 b:b32 c:b32 membermask:b32", arch="sm_70", ptx="6.0"),
    instr("shfl_sync_p", "shfl_sync", "mode=up|down|bfly|idx type=b32",
          "d:b32/w| p:pred/w a:b32 b:b32 c:b32 membermask:b32", arch="sm_70", ptx="6.0"),
    instr("prmt", "prmt", "type=b32 mode?=f4e|b4e|rc8|ecl|ecr|rc16",
          "d:b32/w a:b32 b:b32 c:b32", arch="sm_50", ptx="2.0"),
    instr("cvta", "cvta", "space=shared|global|local|const|param|shared::cta|shared::cluster "
          "type=u64", "d:u64/w a:u64", arch="sm_50", ptx="2.0",
          token_arch={"shared::cluster": "sm_90", "shared::cta": "sm_90"},
          token_ptx={"shared::cluster": "7.8", "shared::cta": "7.8", "param": "7.7"}),
    instr("cvta_to", "cvta", "dir=to space=shared|global|local|const|param|shared::cta|"
          "shared::cluster type=u64", "d:u64/w a:u64", arch="sm_50", ptx="2.0",
          token_arch={"shared::cluster": "sm_90", "shared::cta": "sm_90"},
          token_ptx={"shared::cluster": "7.8", "shared::cta": "7.8", "param": "7.7"}),
    # ---- warp-level -----------------------------------------------------------------------
    instr("vote_sync", "vote_sync", "mode=all|any|uni type=pred",
          "d:pred/w a:pred membermask:b32", arch="sm_70", ptx="6.0"),
    instr("vote_sync_ballot", "vote_sync", "mode=ballot type=b32",
          "d:b32/w a:pred membermask:b32", arch="sm_70", ptx="6.0"),
    instr("redux_sync", "redux_sync", "op=add|min|max type=u32|s32",
          "d:$type/w a:$type membermask:b32", arch="sm_80", ptx="7.0"),
    instr("redux_sync_bitwise", "redux_sync", "op=and|or|xor type=b32",
          "d:b32/w a:b32 membermask:b32", arch="sm_80", ptx="7.0"),
    instr("activemask", "activemask", "type=b32", "d:b32/w", arch="sm_50", ptx="6.2"),
    # ---- comparison -----------------------------------------------------------------------
    instr("setp", "setp", f"cmp={_CMP} ftz?=ftz type={_SETP_TYPES}",
          "p:pred/w a:$type b:$type", arch="sm_50", ptx="1.0", check=_setp_check,
          token_arch=_SETP_ARCH, token_ptx=_SETP_PTX),
    instr("setp_bool", "setp", f"cmp={_CMP} boolop=and|or|xor ftz?=ftz type={_SETP_TYPES}",
          "p:pred/w a:$type b:$type c:pred", arch="sm_50", ptx="1.0", check=_setp_check,
          token_arch=_SETP_ARCH, token_ptx=_SETP_PTX),
    # packed half precision: `p|q` hold the lower and the upper half's comparison
    instr("setp_x2", "setp", f"cmp={_CMP} ftz?=ftz type=f16x2|bf16x2",
          "p:pred/w| q:pred/w a:$type b:$type", arch="sm_53", ptx="4.2",
          check=_setp_x2_check, token_arch=_SETP_ARCH_X2, token_ptx=_SETP_PTX_X2),
    instr("setp_x2_bool", "setp", f"cmp={_CMP} boolop=and|or|xor ftz?=ftz type=f16x2|bf16x2",
          "p:pred/w| q:pred/w a:$type b:$type c:pred", arch="sm_53", ptx="4.2",
          check=_setp_x2_check, token_arch=_SETP_ARCH_X2, token_ptx=_SETP_PTX_X2),
    # ---- logic and shift ------------------------------------------------------------------
    *(instr(op, op, f"type=pred|{_BITS}", "d:$type/w a:$type b:$type", arch="sm_50",
            ptx="1.0") for op in ("and", "or", "xor")),
    instr("not", "not", f"type=pred|{_BITS}", "d:$type/w a:$type", arch="sm_50", ptx="1.0"),
    instr("cnot", "cnot", f"type={_BITS}", "d:$type/w a:$type", arch="sm_50", ptx="1.0"),
    instr("lop3", "lop3", "type=b32", "d:b32/w a:b32 b:b32 c:b32 immlut:imm", arch="sm_50",
          ptx="4.3"),
    # lop3.BoolOp: also writes p = (d != 0) BoolOp q; `_|p` discards the bit result.
    instr("lop3_bool", "lop3", "boolop=or|and type=b32",
          "d:b32/w| p:pred/w a:b32 b:b32 c:b32 immlut:imm q:pred", arch="sm_70", ptx="8.2"),
    instr("lop3_bool_sink", "lop3", "boolop=or|and type=b32",
          "d:_| p:pred/w a:b32 b:b32 c:b32 immlut:imm q:pred", arch="sm_70", ptx="8.2"),
    instr("shl", "shl", f"type={_BITS}", "d:$type/w a:$type b:u32", arch="sm_50", ptx="1.0"),
    instr("shr", "shr", f"type={_BITS}|{_INT}", "d:$type/w a:$type b:u32", arch="sm_50",
          ptx="1.0"),
    *(instr(op, op, "type=b32|b64", "d:u32/w a:$type", arch="sm_50", ptx="2.0")
      for op in ("popc", "clz")),
    instr("brev", "brev", "type=b32|b64", "d:$type/w a:$type", arch="sm_50", ptx="2.0"),
    instr("bfe", "bfe", "type=u32|u64|s32|s64", "d:$type/w a:$type b:u32 c:u32",
          arch="sm_50", ptx="2.0"),
    instr("bfi", "bfi", "type=b32|b64", "f:$type/w a:$type b:$type c:u32 d:u32",
          arch="sm_50", ptx="2.0"),
    # ---- integer arithmetic ---------------------------------------------------------------
    *(instr(f"{op}_int", op, f"sat?=sat type={_INT}", "d:$type/w a:$type b:$type",
            arch="sm_50", ptx="1.0",
            check=lambda m: ".sat takes .s32" if m["sat"] and m["type"] != "s32" else None)
      for op in ("add", "sub")),
    instr("mul_int", "mul", f"mode=lo|hi type={_INT}", "d:$type/w a:$type b:$type",
          arch="sm_50", ptx="1.0"),
    instr("mul_wide", "mul", "mode=wide type=u16|u32|s16|s32", "d:wide/w a:$type b:$type",
          arch="sm_50", ptx="1.0"),
    instr("mad_int", "mad", f"mode=lo|hi sat?=sat type={_INT}",
          "d:$type/w a:$type b:$type c:$type", arch="sm_50", ptx="1.0",
          check=lambda m: (".sat applies to .hi.s32 only"
                           if m["sat"] and (m["mode"], m["type"]) != ("hi", "s32") else None)),
    instr("mad_wide", "mad", "mode=wide type=u16|u32|s16|s32",
          "d:wide/w a:$type b:$type c:wide", arch="sm_50", ptx="1.0"),
    instr("mul24", "mul24", "mode=lo|hi type=u32|s32", "d:$type/w a:$type b:$type",
          arch="sm_50", ptx="1.0"),
    instr("div_int", "div", f"type={_INT}", "d:$type/w a:$type b:$type", arch="sm_50",
          ptx="1.0"),
    instr("rem", "rem", f"type={_INT}", "d:$type/w a:$type b:$type", arch="sm_50", ptx="1.0"),
    instr("abs_int", "abs", "type=s16|s32|s64", "d:$type/w a:$type", arch="sm_50", ptx="1.0"),
    instr("neg_int", "neg", "type=s16|s32|s64", "d:$type/w a:$type", arch="sm_50", ptx="1.0"),
    instr("min", "min", "ftz?=ftz NaN?=NaN xorsign?=xorsign abs?=abs relu?=relu "
          "type=u16|u32|u64|s16|s32|s64|u16x2|s16x2|f32|f64|f16|f16x2|bf16|bf16x2",
          "d:$type/w a:$type b:$type", arch="sm_50", ptx="1.0", check=_minmax,
          token_arch={"u16x2": "sm_90", "s16x2": "sm_90", "relu": "sm_90", "NaN": "sm_80",
                      "xorsign": "sm_86", "f16": "sm_80", "f16x2": "sm_80", "bf16": "sm_80",
                      "bf16x2": "sm_80"},
          token_ptx={"u16x2": "8.0", "s16x2": "8.0", "relu": "8.0", "NaN": "7.0",
                     "xorsign": "7.2", "f16": "7.0", "f16x2": "7.0", "bf16": "7.0",
                     "bf16x2": "7.0"}),
    instr("max", "max", "ftz?=ftz NaN?=NaN xorsign?=xorsign abs?=abs relu?=relu "
          "type=u16|u32|u64|s16|s32|s64|u16x2|s16x2|f32|f64|f16|f16x2|bf16|bf16x2",
          "d:$type/w a:$type b:$type", arch="sm_50", ptx="1.0", check=_minmax,
          token_arch={"u16x2": "sm_90", "s16x2": "sm_90", "relu": "sm_90", "NaN": "sm_80",
                      "xorsign": "sm_86", "f16": "sm_80", "f16x2": "sm_80", "bf16": "sm_80",
                      "bf16x2": "sm_80"},
          token_ptx={"u16x2": "8.0", "s16x2": "8.0", "relu": "8.0", "NaN": "7.0",
                     "xorsign": "7.2", "f16": "7.0", "f16x2": "7.0", "bf16": "7.0",
                     "bf16x2": "7.0"}),
    # ---- floating point -------------------------------------------------------------------
    *(instr(op, op, f"rnd?={_RND} ftz?=ftz sat?=sat type=f32|f64|f32x2 srctype?=f16|bf16",
            "d:$type/w a:src b:$type", arch="sm_50", ptx="1.0", check=_float_rnd,
            token_arch={"f16": "sm_100", "bf16": "sm_100", "f32x2": "sm_100"},
            token_ptx={"f16": "8.6", "bf16": "8.6", "f32x2": "8.6"}) for op in ("add", "sub")),
    instr("mul", "mul", f"rnd?={_RND} ftz?=ftz sat?=sat type=f32|f64|f32x2",
          "d:$type/w a:$type b:$type", arch="sm_50", ptx="1.0", check=_float_rnd,
          token_arch={"f32x2": "sm_100"}, token_ptx={"f32x2": "8.6"}),
    instr("fma", "fma", f"rnd={_RND} ftz?=ftz sat?=sat type=f32|f64|f32x2 srctype?=f16|bf16",
          "d:$type/w a:src b:src c:$type", arch="sm_50", ptx="2.0", check=_float_rnd,
          token_arch={"f16": "sm_100", "bf16": "sm_100", "f32x2": "sm_100"},
          token_ptx={"f16": "8.6", "bf16": "8.6", "f32x2": "8.6"}),
    instr("mad", "mad", f"rnd={_RND} ftz?=ftz sat?=sat type=f32|f64",
          "d:$type/w a:$type b:$type c:$type", arch="sm_50", ptx="2.0", check=_float_rnd),
    *(instr(f"{op}_half", op, f"rnd?=rn ftz?=ftz sat?=sat type={_HALF}",
            "d:$type/w a:$type b:$type", arch="sm_53", ptx="4.2",
            token_arch=_HALF_ARCH, token_ptx={"bf16": "7.8", "bf16x2": "7.8"},
            check=lambda m: (".ftz/.sat take .f16/.f16x2" if (m["ftz"] or m["sat"])
                             and m["type"].startswith("bf") else None))
      for op in ("add", "sub", "mul")),
    instr("fma_half", "fma", f"rnd=rn ftz?=ftz sat?=sat oob?=oob relu?=relu type={_HALF}",
          "d:$type/w a:$type b:$type c:$type", arch="sm_53", ptx="4.2",
          token_arch={"bf16": "sm_80", "bf16x2": "sm_80", "relu": "sm_80", "oob": "sm_90"},
          token_ptx={"bf16": "7.0", "bf16x2": "7.0", "relu": "7.0", "oob": "8.1"},
          check=_fma_half),
    instr("div", "div", "mode=approx|full|rn|rz|rm|rp ftz?=ftz type=f32|f64",
          "d:$type/w a:$type b:$type", arch="sm_50", ptx="1.0",
          check=lambda m: (".approx/.full take .f32" if m["mode"] in ("approx", "full")
                           and m["type"] == "f64" else
                           ".ftz applies to .f32 only" if m["ftz"] and m["type"] == "f64"
                           else None)),
    instr("abs", "abs", "ftz?=ftz type=f32|f64", "d:$type/w a:$type", arch="sm_50", ptx="1.0",
          check=lambda m: ".ftz applies to .f32 only" if m["ftz"] and m["type"] == "f64"
          else None),
    instr("neg", "neg", "ftz?=ftz type=f32|f64", "d:$type/w a:$type", arch="sm_50", ptx="1.0",
          check=lambda m: ".ftz applies to .f32 only" if m["ftz"] and m["type"] == "f64"
          else None),
    *(instr(op, op, "mode=approx|rn|rz|rm|rp ftz?=ftz type=f32|f64", "d:$type/w a:$type",
            arch="sm_50", ptx="1.0", check=_approx) for op in ("rcp", "sqrt")),
    instr("rsqrt", "rsqrt", "mode=approx ftz?=ftz type=f32|f64", "d:$type/w a:$type",
          arch="sm_50", ptx="1.0",
          check=lambda m: ".ftz applies to .f32 only" if m["ftz"] and m["type"] == "f64"
          else None),
    *(instr(op, op, "mode=approx ftz?=ftz type=f32", "d:f32/w a:f32", arch="sm_50",
            ptx="1.0") for op in ("ex2", "lg2", "sin", "cos")),
    instr("ex2_half", "ex2", f"mode=approx ftz?=ftz type={_HALF}", "d:$type/w a:$type",
          arch="sm_75", ptx="7.0", token_arch={"bf16": "sm_90", "bf16x2": "sm_90"},
          token_ptx={"bf16": "7.8", "bf16x2": "7.8"},
          check=lambda m: (".f16 forms take no .ftz; .bf16 forms need it"
                           if bool(m["ftz"]) != m["type"].startswith("bf") else None)),
    instr("tanh", "tanh", f"mode=approx type=f32|{_HALF}", "d:$type/w a:$type", arch="sm_75",
          ptx="7.0", token_arch={"bf16": "sm_90", "bf16x2": "sm_90"},
          token_ptx={"bf16": "7.8", "bf16x2": "7.8"}),
    *(instr(f"{op}_half", op, f"ftz?=ftz type={_HALF}", "d:$type/w a:$type", arch="sm_53",
            ptx="6.5", token_arch={"bf16": "sm_80", "bf16x2": "sm_80"},
            token_ptx={"bf16": "7.0", "bf16x2": "7.0"},
            check=lambda m: (".ftz takes .f16/.f16x2" if m["ftz"] and m["type"][0] == "b"
                             else None)) for op in ("abs", "neg")),
    instr("copysign", "copysign", "type=f32|f64", "d:$type/w a:$type b:$type", arch="sm_50",
          ptx="2.0"),
    instr("testp", "testp", "op=finite|infinite|number|notanumber|normal|subnormal "
          "type=f32|f64", "p:pred/w a:$type", arch="sm_50", ptx="2.0"),
    instr("slct", "slct", f"ftz?=ftz dtype={_BITS}|{_INT}|f32|f64 ctype=s32|f32",
          "d:$dtype/w a:$dtype b:$dtype c:$ctype", arch="sm_50", ptx="1.0",
          check=lambda m: ".ftz goes with an .f32 selector" if m["ftz"] and m["ctype"] != "f32"
          else None),
    instr("shf", "shf", "dir=l|r mode=clamp|wrap type=b32", "d:b32/w a:b32 b:b32 c:u32",
          arch="sm_50", ptx="3.1"),
    instr("dp4a", "dp4a", "atype=u32|s32 btype=u32|s32", "d:b32/w a:b32 b:b32 c:b32",
          arch="sm_61", ptx="5.0"),
    instr("dp2a", "dp2a", "mode=lo|hi atype=u32|s32 btype=u32|s32",
          "d:b32/w a:b32 b:b32 c:b32", arch="sm_61", ptx="5.0"),
    instr("match_sync", "match", "mode=any|all sync=sync type=b32|b64",
          "d:b32/w a:$type membermask:b32", arch="sm_70", ptx="6.0"),
    instr("fns", "fns", "type=b32", "d:b32/w mask:b32 base:u32 offset:s32", arch="sm_50",
          ptx="6.0"),
    instr("isspacep", "isspacep", "space=const|global|local|shared|param::entry|shared::cta|"
          "shared::cluster", "p:pred/w a:u64", arch="sm_50", ptx="2.0",
          token_arch={"shared::cta": "sm_90", "shared::cluster": "sm_90"},
          token_ptx={"shared::cta": "7.8", "shared::cluster": "7.8", "param::entry": "8.3"}),
    instr("ldu", "ldu", f"space?=global type={_BITS}|{_INT}|b8|u8|s8|f32|f64",
          "d:$type/w addr:@space", arch="sm_50", ptx="2.0"),
    instr("prefetchu", "prefetchu", "level=L1", "addr:@", arch="sm_50", ptx="2.0"),
    instr("discard", "discard", "space?=global level=L2", "addr:@space size:=128",
          arch="sm_80", ptx="7.4", memory=True),
    instr("applypriority", "applypriority", "space?=global level=L2::evict_normal",
          "addr:@space size:=128", arch="sm_80", ptx="7.4", memory=True),
]
