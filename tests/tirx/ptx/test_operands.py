"""``T.ptx.SINK`` lanes, ``T.ptx.addr`` immediate offsets, and the backend view of the table
(``tvm.backend.cuda.ptx``): TVMScript in, printed TVMScript / CUDA helper text out."""

import pytest

import tvm
from tvm.backend.cuda.ptx import TABLE, render_variant, renderings, tokens_for
from tvm.script import tirx as T
from tvm.tirx.ptx import render_ptx


def _scalar(dtype, name):
    return tvm.tirx.decl_buffer((1,), dtype, name=name, scope="local")[0]


LO, HI = _scalar("uint32", "lo"), _scalar("uint32", "hi")
PACKED = _scalar("uint64", "packed")


@T.prim_func
def sink_kernel(A: T.Buffer((32,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        hi = T.local_scalar("uint32")
        packed = T.local_scalar("uint64")
        T.ptx.mov.b64(T.ptx.SINK, hi, packed)
        A[0] = hi


def test_sink_prints_marker_and_round_trips():
    text = sink_kernel.script()
    assert 'T.ptx.mov(hi, packed, "b64", "s0")' in text  # as Apache TVM 0.27 prints it
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), sink_kernel)


def test_sink_renders_underscore():
    lib = tvm.compile(sink_kernel, target={"kind": "cuda", "arch": "sm_90a"},
                      tir_pipeline="tirx")
    source = lib.imports[0].inspect_source()
    assert '"mov.b64 {_, %0}, %1;" : "=r"(__d1) : "l"(__a)' in source
    assert "tvm_builtin_ptx_mov_unpack_b64_b64_sink_d0(" in source


def test_sink_errors():
    with pytest.raises(ValueError, match="not sinkable here"):
        T.ptx.mov.b64(PACKED, LO, T.ptx.SINK)  # the pack form's source takes no "_"
    with pytest.raises(ValueError, match="must be a real register"):
        T.ptx.mov.b64(T.ptx.SINK, T.ptx.SINK, PACKED)
    assert repr(T.ptx.SINK) == "T.ptx.SINK"


def test_addr_offset_in_text():
    buf = tvm.tirx.decl_buffer((4,), "uint64", name="src")
    vals = [_scalar("uint64", f"v{i}") for i in range(2)]
    call = T.ptx.ld.global_.v2.b64(*vals, T.ptx.addr(buf.data, 16))
    assert "T.ptx.addr(src, 16)" in str(call)
    r = render_ptx(call)
    assert r.asm == "ld.global.v2.b64 {%0, %1}, [%2+16];"
    assert r.name.endswith("_addr_p16")
    back = render_ptx(T.ptx.st.global_.b64(T.ptx.addr(buf.data, -8), vals[0]))
    assert back.asm == "st.global.b64 [%0-8], %1;"
    with pytest.raises(TypeError, match="compile-time integer"):
        T.ptx.addr(buf.data, vals[0])


def test_backend_view_api():
    entry = TABLE["cvt_tf32_f32"]
    assert entry.ptx_name == "cvt" and entry.cert_arch == "sm_100"
    assert tokens_for(entry, rnd="rn", satfinite="satfinite", dtype="tf32", atype="f32") == (
        "rn", "satfinite", "", "tf32", "f32")
    with pytest.raises(ValueError, match="no modifier slot named"):
        tokens_for(entry, rounding="rn")
    with pytest.raises(ValueError, match="relu needs .rn or .rz"):
        tokens_for(entry, rnd="rna", relu="relu", dtype="tf32", atype="f32")
    rows = list(renderings(entry))
    assert (("rn", "satfinite", "", "tf32", "f32"), "sm_100", "7.8") in rows
    opcode, helper, source = render_variant(entry, ("rna", "", "", "tf32", "f32"))
    assert opcode == "cvt.rna.tf32.f32"
    assert helper == "tvm_builtin_ptx_cvt_tf32_f32_rna_tf32_f32"
    assert source.startswith(f"__forceinline__ __device__ void {helper}(uint32_t& __d, float __a)")
    with pytest.raises(ValueError, match="immediate"):
        render_variant(TABLE["setmaxnreg"], ("inc", "sync", "aligned", "u32"))
    assert "setmaxnreg.inc.sync.aligned.u32 240;" in render_variant(
        TABLE["setmaxnreg"], ("inc", "sync", "aligned", "u32"), imms=[240])[2]


def test_copy_ptx_form():
    from tvm.tirx.cuda.tile_primitive.copy._common import copy_ptx_form

    assert copy_ptx_form(16) == ("v4.u32", 4, "uint32")
    assert copy_ptx_form(1) == ("u8", 1, "uint8")
    with pytest.raises(ValueError, match="no single ld/st moves 3 bytes"):
        copy_ptx_form(3)


def test_matrix_shapes_print_like_027():
    d = [_scalar("uint32", f"d{i}") for i in range(12)]
    f = [_scalar("float32", f"f{i}") for i in range(4)]
    q, p = _scalar("uint64", "q"), _scalar("bool", "p")
    wg_int = T.ptx["wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.s8"](*d, q, q, p)
    assert str(wg_int).endswith('"mma_async", "sync", "aligned", "m64n24k32", "", "s32", "s8", '
                                '"s8", "p14")')
    b1 = T.ptx["wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc"](*d[:4], q, q, p)
    assert str(b1).endswith('"m64n8k256", "s32", "b1", "b1", "and", "popc", "p6")')
    ws = T.ptx["tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill"](d[0], q, q, d[1], p, q)
    assert str(ws).endswith('"mma", "ws", "cta_group::1", "kind::f16", "collector::b0::fill", '
                            '"p4")')
    sp = T.ptx["mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"](
        *f, *d[:4], *d[4:8], *f, d[8], 0)
    assert str(sp).endswith('"sp", "sync", "aligned", "m16n8k32", "row", "col", "f32", "f16", '
                            '"f16", "f32", "")')
    assert render_ptx(sp).asm.endswith("{%12, %13, %14, %15}, %16, 0;")
    im2col = T.ptx["cp.async.bulk.tensor.4d.shared::cluster.global.im2col."
                   "mbarrier::complete_tx::bytes"](
        d[0], q, *[_scalar("int32", f"c{i}") for i in range(4)], d[1],
        _scalar("uint16", "o0"), _scalar("uint16", "o1"))
    assert render_ptx(im2col).asm == (
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};")
