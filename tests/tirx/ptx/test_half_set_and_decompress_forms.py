"""Half-precision ``set``, the ``.b8`` release ``st.async``, the ldmatrix decompression loads
(``.m8n16`` and ``.m16n16 ... .b8x16``), ``mapa``'s pointer shape and ``spcompress``: printed
forms (checked against Apache TVM 0.27), PTX text, requirements and ptxas."""

import importlib.util
from pathlib import Path

import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.ptx import render_ptx, required_arch, required_ptx_version


def _batch():
    path = Path(__file__).with_name("ptxas_batch.py")  # by path: --import-mode=importlib
    spec = importlib.util.spec_from_file_location("ptx_ptxas_batch_half", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


batch = _batch()
A = tvm.tirx.decl_buffer((8,), "uint32", name="A", scope="local")
H = tvm.tirx.decl_buffer((4,), "float16", name="H", scope="local")
BF = tvm.tirx.decl_buffer((4,), "bfloat16", name="BF", scope="local")
U = tvm.tirx.decl_buffer((4,), "uint16", name="U", scope="local")
B8 = tvm.tirx.decl_buffer((4,), "uint8", name="B8", scope="local")
I8 = tvm.tirx.decl_buffer((4,), "int8", name="I8", scope="local")
P = tvm.tirx.decl_buffer((4,), "uint64", name="P", scope="local")
F = tvm.tirx.decl_buffer((4,), "float32", name="F", scope="local")
G = tvm.tirx.decl_buffer((8,), "uint32", name="G")
S = tvm.tirx.decl_buffer((64,), "uint32", name="S", scope="shared")


def _calls():
    g, s = T.address_of(G[0]), T.address_of(S[0])
    return {
        "set_f16_f32": T.ptx.set.lt.ftz.f16.f32(H[0], F[1], F[2]),
        "set_f16_u32": T.ptx.set.eq.f16.u32(H[0], A[1], A[2]),
        "set_bf16_f32": T.ptx.set.gt.bf16.f32(BF[0], F[1], F[2]),
        "set_u32_f16": T.ptx.set.lt.u32.f16(A[0], H[1], H[2]),
        "set_s16_bf16": T.ptx.set.num.s16.bf16(U[0], BF[1], BF[2]),
        "set_u16_bf16": T.ptx["set.gt.u16.bf16"](U[0], U[1], U[2]),
        "set_f16x2": T.ptx.set.lt.f16x2.f16x2(A[0], A[1], A[2]),
        "set_u32_f16x2": T.ptx.set.ltu.ftz.u32.f16x2(A[0], A[1], A[2]),
        "set_bf16x2": T.ptx.set.ge.bf16x2.bf16x2(A[0], A[1], A[2]),
        "set_bool_bf16x2": T.ptx["set.ne.xor.s32.bf16x2"](A[0], A[1], A[2], A[3]),
        "set_bool_f16": T.ptx["set.lt.and.ftz.f16.f16"](H[0], H[1], H[2], A[3]),
        "st_b8": T.ptx.st_async.release.gpu.b8(g, B8[1]),
        "st_u8": T.ptx.st_async.release.sys.global_.u8(g, B8[1]),
        "st_s8": T.ptx.st_async.mmio.release.sys.global_.s8(g, I8[1]),
        "ldm_m8n16": T.ptx["ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32"](A[0], s),
        "ldm_m8n16_x4": T.ptx["ldmatrix.sync.aligned.m8n16.x4.shared::cta.b8x16.b4x16_p64"](
            A[0], A[1], A[2], A[3], s),
        "ldm_m16n16": T.ptx["ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64"](
            A[0], A[1], s),
        "mapa_ptr": T.ptx.mapa.u64(P[0], s, A[1]),
        "mapa_ptr_cluster": T.ptx.mapa.shared__cluster.u64(P[0], s, A[1]),
        "mapa_u64_cluster": T.ptx.mapa.shared__cluster.u64(P[0], P[1], A[1]),
        "mapa_u64": T.ptx.mapa.u64(P[0], P[1], A[1]),
        "spcompress": T.ptx["spcompress.b8.b2.sp::2:4.x1"](A[0], A[1], A[2], A[3], A[4]),
    }


def test_printed_forms_match_0_27():
    printed = {k: str(c) for k, c in _calls().items()}
    assert printed["set_f16x2"] == 'T.ptx.set(A[0], A[1], A[2], "lt", "", "f16x2", "f16x2", "")'
    assert printed["set_u16_bf16"] == 'T.ptx.set(U[0], U[1], U[2], "gt", "", "u16", "bf16", "")'
    assert printed["st_b8"] == \
        'T.ptx.st_async(T.address_of(G[0]), B8[1], "", "release", "gpu", "", "b8", "")'
    assert printed["ldm_m8n16"] == (
        'T.ptx.ldmatrix(A[0], T.cuda.cvta_generic_to_shared(T.address_of(S[0])), "sync", '
        '"aligned", "m8n16", "x1", "", "shared", "b8x16", "b6x16_p32", "")')
    assert printed["ldm_m16n16"] == (
        'T.ptx.ldmatrix(A[0], A[1], T.cuda.cvta_generic_to_shared(T.address_of(S[0])), "sync", '
        '"aligned", "m16n16", "x1", "trans", "shared", "b8x16", "b4x16_p64", "")')
    assert printed["mapa_ptr"] == 'T.ptx.mapa(P[0], T.address_of(S[0]), A[1], "", "u64", "")'
    assert printed["mapa_ptr_cluster"] == \
        'T.ptx.mapa(P[0], T.address_of(S[0]), A[1], "shared::cluster", "u64", "")'
    assert printed["mapa_u64"] == 'T.ptx.mapa(P[0], P[1], A[1], "u64", "")'
    assert printed["spcompress"] == \
        'T.ptx.spcompress(A[0], A[1], A[2], A[3], A[4], "b8", "b2", "sp::2:4", "x1", "")'


def test_printed_forms_parse_back():
    for key, call in _calls().items():
        text = str(call)
        again = eval(text, {"T": T, "A": A, "H": H, "BF": BF, "U": U, "B8": B8, "I8": I8,
                            "P": P, "F": F, "G": G, "S": S})
        assert str(again) == text, key


def test_ptx_text_and_requirements():
    calls = _calls()
    asm = {k: render_ptx(c).asm for k, c in calls.items()}
    assert asm["set_u32_f16x2"] == "set.ltu.ftz.u32.f16x2 %0, %1, %2;"
    # the 8-bit value crosses as a 16-bit register and is narrowed into a real .b8 one
    assert asm["st_s8"] == ("{ .reg .b8 raw_value; cvt.u8.u16 raw_value, %1; "
                            "st.async.mmio.release.sys.global.s8 [%0], raw_value; }")
    assert asm["ldm_m8n16_x4"] == ("ldmatrix.sync.aligned.m8n16.x4.shared::cta.b8x16.b4x16_p64 "
                                   "{%0, %1, %2, %3}, [%4];")
    assert asm["mapa_ptr_cluster"] == "mapa.shared::cluster.u64 %0, %1, %2;"
    # the pointer shape's helper is named as 0.27 names it (tvm_builtin_ptx_mapa_u64...)
    assert render_ptx(calls["mapa_ptr"]).name.startswith("tvm_builtin_ptx_mapa_u64")
    assert asm["spcompress"] == "spcompress.b8.b2.sp::2:4.x1 {%0}, {%1}, {%2, %3}, %4;"
    reqs = {k: (required_arch(c), required_ptx_version(c)) for k, c in calls.items()}
    assert reqs["set_f16_f32"] == ("sm_53", "4.2")
    assert reqs["set_bool_bf16x2"] == ("sm_90", "7.8")
    assert reqs["st_b8"] == ("sm_100", "8.7")
    assert reqs["ldm_m8n16"] == ("sm_100a", "8.6")
    assert reqs["mapa_ptr"] == ("sm_90", "7.8")
    assert reqs["spcompress"] == ("sm_107a", "9.4")


def test_spcompress_register_counts():
    # x4 of b16 with 4-bit indices: data 8, compressed 4, metadata ceil(4 * 4 / 16) = 1
    call = T.ptx["spcompress.b16.b4.sp::2:4.x4"](*[A[i % 8] for i in range(14)])
    assert "{%0}, {%1, %2, %3, %4}, {%5, %6, %7, %8, %9, %10, %11, %12}, %13;" in \
        render_ptx(call).asm
    with pytest.raises(ValueError, match="expects 14 operand"):
        T.ptx["spcompress.b16.b4.sp::2:4.x4"](A[0], A[1])


def test_bad_spellings_name_the_rule():
    with pytest.raises(ValueError, match="ftz applies to a .f16/.f32/.f16x2 source"):
        T.ptx.set.eq.ftz.f16.u32(H[0], A[1], A[2])  # ptxas: "Illegal modifier '.ftz'"
    with pytest.raises(ValueError, match="never with .bf16"):
        T.ptx.set.lt.ftz.u32.bf16x2(A[0], A[1], A[2])
    with pytest.raises(ValueError, match="takes a .f16x2 source"):
        T.ptx.set.lt.f16x2.bf16x2(A[0], A[1], A[2])
    with pytest.raises(ValueError, match="takes a .f16/.bf16 source"):
        T.ptx["set.lt.u16.s32"](U[0], A[1], A[2])
    with pytest.raises(ValueError, match="takes no .trans"):
        T.ptx["ldmatrix.sync.aligned.m8n16.x1.trans.shared.b8x16.b6x16_p32"](
            A[0], T.address_of(S[0]))
    with pytest.raises(ValueError, match=".mmio requires .sys scope"):
        T.ptx.st_async.mmio.release.gpu.b8(T.address_of(G[0]), B8[1])
    with pytest.raises(ValueError, match="is a pointer"):
        T.ptx["mapa.u64"](P[0], A[1], A[2])  # a 32-bit value: neither a pointer nor a u64


@pytest.mark.skipif(not batch.have_nvcc(), reason="needs nvcc")
def test_forms_assemble_with_ptxas():
    calls = _calls()
    by_arch = {"sm_90a": [], "sm_100a": []}
    for key, call in calls.items():
        if not batch.ptx_ok(required_ptx_version(call)):
            assert key == "spcompress"  # PTX 9.4: beyond this ptxas (IR and text only)
            continue
        arch = "sm_100a" if required_arch(call).startswith("sm_100") else "sm_90a"
        by_arch[arch].append(render_ptx(call).source)
    for arch, sources in by_arch.items():
        error = batch.assemble(list(dict.fromkeys(sources)), arch)
        assert error == "", error[:3000]
