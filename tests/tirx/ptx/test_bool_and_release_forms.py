"""lop3 with a predicate (``.or``/``.and``), packed half ``setp`` (``p|q``), the ``.m16n16``
ldmatrix and the release line of st.async (``.mmio``): printed forms (checked against Apache
TVM 0.27), PTX text, arch / PTX requirements and ptxas."""

import importlib.util
from pathlib import Path

import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.ptx import render_ptx, required_arch, required_ptx_version


def _batch():
    path = Path(__file__).with_name("ptxas_batch.py")  # by path: --import-mode=importlib
    spec = importlib.util.spec_from_file_location("ptx_ptxas_batch_bool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


batch = _batch()
A = tvm.tirx.decl_buffer((8,), "uint32", name="A", scope="local")
H = tvm.tirx.decl_buffer((2,), "uint16", name="H", scope="local")
W = tvm.tirx.decl_buffer((2,), "uint64", name="W", scope="local")
G = tvm.tirx.decl_buffer((8,), "uint32", name="G")
SMEM = tvm.tirx.decl_buffer((64,), "uint32", name="S", scope="shared")
Q = T.ptx.pred(A[5])


def _calls():
    g = T.address_of(G[0])
    return {
        "lop3_or": T.ptx["lop3.or.b32"](A[0], A[4], A[1], A[2], A[3], 0x80, Q),
        "lop3_sink": T.ptx["lop3.and.b32"](A[4], A[1], A[2], A[3], 0x80, Q),
        "setp_f16x2": T.ptx["setp.lt.f16x2"](A[0], A[1], A[2], A[3]),
        "setp_bool": T.ptx["setp.gtu.and.ftz.f16x2"](A[0], A[1], A[2], A[3], Q),
        "setp_bf16x2": T.ptx["setp.eq.bf16x2"](A[0], A[1], A[2], A[3]),
        "ldm_x1": T.ptx.ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8(
            A[0], A[1], T.address_of(SMEM[0])),
        "ldm_x2": T.ptx.ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8(
            A[0], A[1], A[2], A[3], T.address_of(SMEM[0])),
        "st_mmio": T.ptx.st_async.mmio.release.sys.global_.b32(g, A[1]),
        "st_u64": T.ptx.st_async.release.gpu.u64(g, W[1]),
        "st_b16": T.ptx.st_async.release.gpu.global_.b16(g, H[1]),
    }


def test_printed_forms_match_0_27():
    printed = {k: str(c) for k, c in _calls().items()}
    assert printed["lop3_or"] == \
        'T.ptx.lop3(A[0], A[4], A[1], A[2], A[3], 128, A[5], "or", "b32", "p6")'
    assert printed["lop3_sink"] == \
        'T.ptx.lop3(A[4], A[1], A[2], A[3], 128, A[5], "and", "b32", "p5")'
    assert printed["setp_f16x2"] == 'T.ptx.setp(A[0], A[1], A[2], A[3], "lt", "", "f16x2", "")'
    assert printed["setp_bool"] == \
        'T.ptx.setp(A[0], A[1], A[2], A[3], A[5], "gtu", "and", "ftz", "f16x2", "p4")'
    assert printed["ldm_x2"].endswith('"sync", "aligned", "m16n16", "x2", "trans", "shared", '
                                      '"b8", "")')
    assert printed["st_mmio"] == \
        'T.ptx.st_async(T.address_of(G[0]), A[1], "mmio", "release", "sys", "global", "b32", "")'
    assert printed["st_u64"] == \
        'T.ptx.st_async(T.address_of(G[0]), W[1], "", "release", "gpu", "", "u64", "")'


def test_ptx_text_and_requirements():
    calls = _calls()
    asm = {k: render_ptx(c).asm for k, c in calls.items()}
    assert "lop3.or.b32 %0|P0, %2, %3, %4, 128, P1;" in asm["lop3_or"]
    assert "lop3.and.b32 _|P0, %1, %2, %3, 128, P1;" in asm["lop3_sink"]
    assert "setp.lt.f16x2 P0|P1, %2, %3;" in asm["setp_f16x2"]
    assert "selp.u32 %1, 1, 0, P1;" in asm["setp_f16x2"]  # q: the upper half
    assert asm["ldm_x1"] == "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%0, %1}, [%2];"
    assert asm["st_mmio"] == "st.async.mmio.release.sys.global.b32 [%0], %1;"
    reqs = {k: (required_arch(c), required_ptx_version(c)) for k, c in calls.items()}
    assert reqs["lop3_or"] == ("sm_70", "8.2")
    assert reqs["setp_f16x2"] == ("sm_53", "4.2")
    assert reqs["setp_bf16x2"] == ("sm_90", "7.8")
    assert reqs["ldm_x2"] == ("sm_100a", "8.6")
    assert reqs["st_mmio"] == ("sm_100", "8.7")


def test_bad_spellings_name_the_rule():
    with pytest.raises(ValueError, match=".mmio requires .sys scope"):
        T.ptx.st_async.mmio.release.gpu.global_.b32(T.address_of(G[0]), A[1])
    with pytest.raises(ValueError, match="ftz applies to .f16x2"):
        T.ptx["setp.lt.ftz.bf16x2"](A[0], A[1], A[2], A[3])
    with pytest.raises(ValueError, match="x4"):
        T.ptx.ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8(
            A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], T.address_of(SMEM[0]))


@pytest.mark.skipif(not batch.have_nvcc(), reason="needs nvcc")
def test_forms_assemble_with_ptxas():
    sources = list(dict.fromkeys(render_ptx(c).source for c in _calls().values()))
    error = batch.assemble(sources, "sm_100a")
    assert error == "", error[:3000]
