"""``pred=`` guards, type-suffixed helper names and the later table families (set, bar.red,
cvt.pack, createpolicy, movmatrix, tensormap.replace, 3-input min/max, stmatrix.m16n8,
cp.async.mbarrier.arrive, mbarrier.complete_tx/noComplete, the DSMEM bulk copy, 128-bit
atom/mov, multimem.cp)."""

import importlib.util
from pathlib import Path

import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.ptx import check_arch, render_ptx, required_arch, required_ptx_version


def _batch():
    path = Path(__file__).with_name("ptxas_batch.py")  # by path: --import-mode=importlib
    spec = importlib.util.spec_from_file_location("ptx_ptxas_batch_guard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


batch = _batch()


def _scalar(dtype, name):
    buf = tvm.tirx.decl_buffer((1,), dtype, name=name, scope="local")
    return tvm.tirx.BufferLoad(buf, [0])


SMEM = tvm.tirx.decl_buffer((256,), "uint64", name="smem", scope="shared")
GLOBAL = tvm.tirx.decl_buffer((256,), "float32", name="A")
S = T.address_of(SMEM[0])
G = T.address_of(GLOBAL[0])
U = [_scalar("uint32", f"u{i}") for i in range(4)]
I32 = [_scalar("int32", f"i{i}") for i in range(3)]
F = [_scalar("float32", f"f{i}") for i in range(4)]
U64 = [_scalar("uint64", f"w{i}") for i in range(3)]
Q = [_scalar("uint128", f"q{i}") for i in range(3)]


def test_guarded_call_renders_at_p_and_keeps_destinations():
    call = T.ptx.mbarrier.arrive.noComplete.release.cta.shared__cta.b64(U64[0], S, 3,
                                                                         pred=I32[0])
    assert call.args[-1].value == "pred"
    r = render_ptx(call)
    assert r.name.endswith("_b64_pred")
    assert "setp.ne.b32 p, %3, 0; @p mbarrier.arrive.noComplete.release.cta.shared::cta.b64 " \
        "%0, [%1], %2;" in r.asm
    assert '"+l"(__state)' in r.source  # a false guard leaves the destination as it was
    assert r.args[-1].same_as(I32[0])
    # an unguarded call of the same spelling is another helper
    assert render_ptx(T.ptx.mbarrier.arrive.noComplete.release.cta.shared__cta.b64(
        U64[0], S, 3)).name == r.name[:-len("_pred")]


def test_guarded_predicate_destination_is_read_back_under_the_guard():
    r = render_ptx(T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(U[0], Q[0],
                                                                                  pred=True))
    assert "@p selp.u32 %0, 1, 0, P0;" in r.asm


def test_pred_must_be_an_integer_or_bool():
    with pytest.raises(TypeError, match="pred= takes a bool or integer"):
        T.ptx.mbarrier.arrive.shared__cta.b64(S, pred=F[0])


@T.prim_func
def guarded(Pred: T.Buffer((1,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        bar = T.alloc_shared((2,), "uint64", align=16)
        T.ptx.mbarrier.complete_tx.relaxed.cta.shared__cta.b64(bar.ptr_to([0]), T.uint32(8),
                                                               pred=Pred[0])
        T.ptx.cp.async_.mbarrier.arrive.noinc.shared__cta.b64(bar.ptr_to([1]))


def test_guarded_call_prints_and_parses_back():
    text = guarded.script()
    assert '"complete_tx", "relaxed", "cta", "shared::cta", "b64", "pred")' in text
    assert "T.uint32(8), Pred[0], " in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), guarded)


def test_helper_name_lists_lane_types_when_a_value_is_not_the_natural_type():
    unsigned = render_ptx(T.ptx.ld.acquire.gpu.global_.b32(U[0], G))
    signed = render_ptx(T.ptx.ld.acquire.gpu.global_.b32(I32[0], G))
    assert unsigned.name == "tvm_builtin_ptx_ld_acquire_gpu_global_b32"
    assert signed.name == "tvm_builtin_ptx_ld_acquire_gpu_global_b32_s32"
    assert "int32_t& __d" in signed.source
    moved = render_ptx(T.ptx.mov.b32(U[0], F[0]))
    assert moved.name == "tvm_builtin_ptx_mov_b32_u32_f32"


def _new_form_calls():
    p = T.ptx
    return [
        p.set.lt.u32.s32(U[0], I32[0], I32[1]),
        p.set.gt.and_.ftz.f32.f32(F[0], F[1], F[2], U[1]),
        p.bar.red.popc.u32(U[0], U[1], U[2]),
        p.bar.cta.red.or_.pred(U[0], U[1], U[2], U[3]),
        p.cvt_pack.sat.u16.s32(U[0], I32[0], I32[1]),
        p.cvt_pack.sat.s4.s32.b32(U[0], I32[0], I32[1], U[1]),
        p.createpolicy.fractional.L2__evict_last.b64(U64[0], F[0]),
        p.createpolicy.fractional.L2__evict_last.L2__evict_unchanged.b64(U64[0]),
        p.createpolicy.range.global_.L2__evict_first.b64(U64[0], G, U[0], U[1]),
        p.createpolicy.cvt.L2.b64(U64[0], U64[1]),
        p.movmatrix.sync.aligned.m8n8.trans.b16(U[0], U[1]),
        p.tensormap_replace.tile.global_address.global_.b1024.b64(G, U64[0]),
        p.tensormap_replace.tile.box_dim.shared__cta.b1024.b32(S, 1, U[0]),
        p.tensormap_replace.tile.swizzle_mode.shared__cta.b1024.b32(S, 3),
        p.min.f32(F[0], F[1], F[2], F[3]),
        p.max.NaN.f32(F[0], F[1], F[2], F[3]),
        p.stmatrix.sync.aligned.m16n8.x2.trans.shared.b8(S, U[0], U[1]),
        p.cp.async_.mbarrier.arrive.shared.b64(S),
        p.mbarrier.complete_tx.relaxed.cluster.shared__cluster.b64(U[0], U[1], pred=U[2]),
        p.mbarrier.arrive.relaxed.cta.shared__cta.b64(S, pred=I32[0]),
        p["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"](
            U[0], S, U[1], U[2]),
        p.atom.global_.exch.b128(Q[0], G, Q[1]),
        p.atom.acq_rel.gpu.global_.cas.b128(Q[0], G, Q[1], Q[2]),
        p.mov.b128(Q[0], U64[0], U64[1]),
        p.mov.b128(U64[0], U64[1], Q[0]),
        p.ld.global_.b32(I32[0], G),
        p.st.global_.b32(G, I32[1]),
    ]


def test_new_forms_render_their_ptx_text():
    texts = [render_ptx(call).asm for call in _new_form_calls()]
    for expected in ("set.lt.u32.s32 %0, %1, %2;", "bar.red.popc.u32 %0, %1, P0;",
                     "cvt.pack.sat.s4.s32.b32 %0, %1, %2, %3;",
                     "createpolicy.fractional.L2::evict_last.b64 %0, %1;",
                     "movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;",
                     "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;",
                     "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;",
                     "min.f32 %0, %1, %2, %3;",
                     "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%0], {%1, %2};",
                     "cp.async.mbarrier.arrive.shared.b64 [%0];",
                     ("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                     "[%0], [%1], %2, [%3];"),
                     "atom.acq_rel.gpu.global.cas.b128 %0, [%1], %2, %3;",
                     "mov.b128 %0, {%1, %2};"):
        assert any(expected in t for t in texts), expected


@pytest.mark.skipif(not batch.have_nvcc(), reason="needs nvcc")
def test_new_forms_assemble_with_ptxas():
    sources = list(dict.fromkeys(render_ptx(call).source for call in _new_form_calls()))
    error = batch.assemble(sources, "sm_100a")
    assert error == "", error[:3000]


def test_arch_and_ptx_requirements_of_new_forms():
    assert required_arch(T.ptx.min.f32(F[0], F[1], F[2], F[3])) == "sm_100"
    assert required_arch(T.ptx.min.f32(F[0], F[1], F[2])) == "sm_50"
    assert required_arch(
        T.ptx.stmatrix.sync.aligned.m16n8.x1.trans.shared.b8(S, U[0])) == "sm_100a"
    assert required_arch(T.ptx.tensormap_replace.tile.rank.global_.b1024.b32(G, U[0])) \
        == "sm_90a"
    bulk = T.ptx.multimem_cp.async_.bulk.global_.shared__cta.bulk_group(G, S, U[0])
    assert required_ptx_version(bulk) == "9.1"
    assert render_ptx(bulk).asm == \
        "multimem.cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"


@T.prim_func
def three_input_max(A: T.Buffer((4,), "float32")):
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        T.ptx.max.f32(A[0], A[1], A[2], A[3])


def test_check_arch_rejects_three_input_max_before_sm_100():
    with pytest.raises(ValueError, match="requires sm_100, but the target is sm_90a"):
        check_arch(three_input_max, "sm_90a")
    check_arch(three_input_max, "sm_100a")


def test_bad_spellings_name_the_rule():
    with pytest.raises(ValueError, match="compares only with .eq/.ne"):
        T.ptx.set.lt.u32.b32(U[0], U[1], U[2])
    with pytest.raises(ValueError, match="needs a scope"):
        T.ptx.atom.acquire.global_.exch.b128(Q[0], G, Q[1])
    with pytest.raises(ValueError, match="needs a compile-time integer"):
        T.ptx.tensormap_replace.tile.swizzle_mode.global_.b1024.b32(G, F[0])


def test_guarded_adds_a_guard_once():
    from tvm.tirx.ptx.engine import call_guard, guarded

    call = guarded(T.ptx.mbarrier.arrive.shared__cta.b64(S), U[0])
    assert call_guard(call).same_as(U[0])
    assert render_ptx(call).asm.endswith("@p mbarrier.arrive.shared::cta.b64 _, [%0]; }")
    with pytest.raises(ValueError, match="already guarded"):
        guarded(call, U[1])


def test_bulk_copy_to_cluster_order_and_scope():
    push = T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"]
    plain = push(U[0], S, U[1], U[2])
    assert required_ptx_version(plain) == "8.0"
    assert render_ptx(plain).asm == ("cp.async.bulk.shared::cluster.shared::cta."
                                     "mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];")
    ordered = T.ptx.cp.async_.bulk.relaxed.cluster.shared__cluster.shared__cta \
        .mbarrier__complete_tx__bytes(U[0], S, U[1], U[2])
    assert required_ptx_version(ordered) == "9.1"  # newer than ptxas 13.0 knows
    with pytest.raises(ValueError, match="relaxed needs a scope"):
        T.ptx.cp.async_.bulk.relaxed.shared__cluster.shared__cta \
            .mbarrier__complete_tx__bytes(U[0], S, U[1], U[2])
