"""The arithmetic, logic and warp-level ``T.ptx`` families (tvm/tirx/ptx/table_alu.py):
their printed forms (checked against Apache TVM 0.27's printer), the TVMScript round trip,
and the CUDA helpers they render, compiled by nvcc."""

import shutil

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.script import tirx as T
from tvm.tirx.ptx import render_ptx, required_arch


def _scalar(dtype, name):
    return tvm.tirx.decl_buffer((1,), dtype, name=name, scope="local")[0]


U = [_scalar("uint32", f"u{i}") for i in range(5)]
S = [_scalar("int32", f"s{i}") for i in range(4)]
F = [_scalar("float32", f"f{i}") for i in range(4)]
Q = [_scalar("uint64", f"q{i}") for i in range(2)]
P = [_scalar("bool", f"p{i}") for i in range(3)]
PTR = tvm.tirx.Var("ptr", "handle")

# (spelling, operands, the modifier strings Apache TVM 0.27 prints after the operands)
_PRINTED = [
    ("mov.b32", (U[0], U[1]), '"b32", ""'),
    ("mov.pred", (U[0], P[1]), '"pred", "p1"'),
    ("setp.ne.s32", (U[0], S[0], S[1]), '"ne", "", "s32", ""'),
    ("setp.ne.and.s32", (U[0], S[0], S[1], P[1]), '"ne", "and", "", "s32", "p3"'),
    ("setp.lt.ftz.f32", (U[0], F[0], F[1]), '"lt", "ftz", "f32", ""'),
    ("selp.f32", (F[0], F[1], F[2], P[0]), '"f32", "p3"'),
    ("shfl_sync.bfly.b32", (U[0], U[1], U[2], U[3], U[4]), '"bfly", "b32", ""'),
    ("vote_sync.ballot.b32", (U[0], P[1], U[1]), '"ballot", "b32", "p1"'),
    ("redux_sync.min.s32", (S[0], S[1], U[2]), '"min", "s32", ""'),
    ("activemask.b32", (U[0],), '"b32", ""'),
    ("cvta.to.global.u64", (Q[0], PTR), '"to", "global", "u64", ""'),
    ("add.s32", (S[0], S[1], S[2]), '"", "s32", ""'),
    ("add.rn.ftz.f32", (F[0], F[1], F[2]), '"rn", "ftz", "", "f32", "", ""'),
    ("mul.wide.u32", (Q[0], U[1], U[2]), '"wide", "u32", ""'),
    ("mul.rn.f32", (F[0], F[1], F[2]), '"rn", "", "", "f32", ""'),
    ("mad.lo.s32", (S[0], S[1], S[2], S[3]), '"lo", "", "s32", ""'),
    ("fma.rn.f32", (F[0], F[1], F[2], F[3]), '"rn", "", "", "f32", "", ""'),
    ("fma.rn.relu.f16x2", (U[0], U[1], U[2], U[3]), '"rn", "", "", "", "relu", "f16x2", ""'),
    ("max.NaN.xorsign.abs.f32", (F[0], F[1], F[2]), '"", "NaN", "xorsign", "abs", "", "f32", ""'),
    ("and.pred", (U[0], P[1], P[2]), '"pred", "p1,p2"'),
    ("shr.s32", (S[0], S[1], U[2]), '"s32", ""'),
    ("abs.ftz.f32", (F[0], F[1]), '"ftz", "f32", ""'),
    ("ex2.approx.ftz.f32", (F[0], F[1]), '"approx", "ftz", "f32", ""'),
    ("tanh.approx.f32", (F[0], F[1]), '"approx", "f32", ""'),
    ("popc.b64", (U[0], Q[1]), '"b64", ""'),
    ("prmt.b32.f4e", (U[0], U[1], U[2], U[3]), '"b32", "f4e", ""'),
    ("lop3.b32", (U[0], U[1], U[2], U[3], 0xF0), '240, "b32", ""'),
    ("div.full.f32", (F[0], F[1], F[2]), '"full", "", "f32", ""'),
    ("bfi.b32", (U[0], U[1], U[2], U[3], U[4]), '"b32", ""'),
]


@pytest.mark.parametrize(("spelling", "operands", "printed"), _PRINTED,
                         ids=[row[0] for row in _PRINTED])
def test_printed_modifiers_match_027(spelling, operands, printed):
    call = T.ptx[spelling](*operands)
    assert str(call).endswith(printed + ")"), str(call)


def test_spellings_and_rules():
    assert T.ptx.add.s32(S[0], S[1], S[2]).op.name == "tirx.ptx.add"
    assert T.ptx.and_.b32(U[0], U[1], U[2]).op.name == "tirx.ptx.and"
    with pytest.raises(ValueError, match=r"\.lo is an unsigned comparison"):
        T.ptx.setp.lo.s32(U[0], S[0], S[1])
    with pytest.raises(ValueError, match="relu"):
        T.ptx.min.relu.f32(F[0], F[1], F[2])
    with pytest.raises(ValueError, match="must be a 64-bit"):
        T.ptx.mul.wide.u32(U[0], U[1], U[2])  # .wide writes twice the width
    assert required_arch(T.ptx.redux_sync.add.u32(U[0], U[1], U[2])) == "sm_80"
    assert required_arch(T.ptx.min.relu.s32(S[0], S[1], S[2])) == "sm_90"


def test_rendered_helpers():
    setp = render_ptx(T.ptx.setp.ne.and_.s32(P[0], S[0], S[1], P[1]))
    assert setp.asm == ("{ .reg .pred P0; .reg .pred P1; setp.ne.b32 P1, %3, 0; "
                        "setp.ne.and.s32 P0, %1, %2, P1; selp.u32 %0, 1, 0, P0; }")
    assert setp.params == ("bool& __p", "int32_t __a", "int32_t __b", "bool __c")
    assert "__p = (__p_reg != 0);" in setp.source
    wide = render_ptx(T.ptx.mul.wide.u32(Q[0], U[1], U[2]))
    assert wide.asm == "mul.wide.u32 %0, %1, %2;"
    assert wide.outputs == (("=l", "uint64_t", "__d"),)
    cvta = render_ptx(T.ptx.cvta.to.global_.u64(Q[0], PTR))
    assert cvta.params == ("uint64_t& __d", "const void* __a")


@T.prim_func
def warp_math(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "int32")):
    T.device_entry()
    lane = T.thread_id([32])
    f: T.float32 = A[lane]
    g: T.float32 = T.float32(0)
    s: T.int32 = B[lane]
    t: T.int32 = T.int32(0)
    ok: T.uint32 = T.uint32(0)
    bits: T.uint32 = T.uint32(0)
    T.ptx.fma.rn.f32(g, f, f, T.float32(1))
    T.ptx.ex2.approx.ftz.f32(g, g)
    T.ptx.max.NaN.f32(g, g, f)
    T.ptx.redux_sync.add.s32(t, s, T.uint32(0xFFFFFFFF))
    T.ptx.setp.gt.s32(ok, t, 0)
    T.ptx.vote_sync.ballot.b32(bits, ok != T.uint32(0), T.uint32(0xFFFFFFFF))
    T.ptx.shfl_sync.bfly.b32(bits, bits, T.uint32(1), T.uint32(31), T.uint32(0xFFFFFFFF))
    T.ptx.popc.b32(ok, bits)
    T.ptx.mad.lo.s32(t, t, s, T.int32(ok))
    A[lane] = g
    B[lane] = t


def test_tvmscript_round_trip():
    text = warp_math.script()
    assert 'T.ptx.redux_sync(t, s, T.uint32(4294967295), "add", "s32", "")' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), warp_math)


@pytest.mark.skipif(nvcc.find_nvcc() is None or shutil.which("nvcc") is None,
                    reason="nvcc is not installed")
def test_kernel_compiles():
    lib = tvm.compile(warp_math, target={"kind": "cuda", "arch": "sm_90a"}, tir_pipeline="tirx")
    source = lib.imports[0].inspect_source()
    assert "redux.sync.add.s32 %0, %1, %2;" in source
    assert "vote.sync.ballot.b32 %0, P0, %2;" in source
    assert nvcc.compile_cuda(source, "sm_90a", "cubin")[:4] == b"\x7fELF"
