"""Rendering T.ptx calls to inline-asm helpers, checked by ptxas (one nvcc call per arch)."""

import shutil
import subprocess

import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.ptx import check_arch, render_ptx


def _scalar(dtype, name):
    buf = tvm.tirx.decl_buffer((1,), dtype, name=name, scope="local")
    return tvm.tirx.BufferLoad(buf, [0])


SMEM = tvm.tirx.decl_buffer((256,), "float16", name="smem", scope="shared")
GLOBAL = tvm.tirx.decl_buffer((256,), "float32", name="A")
S = T.address_of(SMEM[0])
G = T.address_of(GLOBAL[0])
R = [_scalar("uint32", f"r{i}") for i in range(6)]
F = [_scalar("float32", f"f{i}") for i in range(8)]
U64 = _scalar("uint64", "u")
TM = _scalar("uint32", "tm")
H = _scalar("uint16", "h")


def hopper_calls():
    p = T.ptx
    return [
        p.mbarrier.init.shared__cta.b64(S, 1),
        p.mbarrier.arrive.shared__cta.b64(S),
        p.mbarrier.arrive.expect_tx.shared__cta.b64(S, 1024),
        p.mbarrier.try_wait.parity.shared__cta.b64(R[0], S, 0),
        p.fence.proxy.async_.shared__cta(),
        p.fence.mbarrier_init.release.cluster(),
        p.ld.global_.acquire.gpu.b32(R[0], G),
        p.ld.global_.v4.f32(F[0], F[1], F[2], F[3], G),
        p.st.shared.v2.b32(S, R[0], R[1]),
        p.cp.async_.cg.shared.global_(S, G, 16),
        p.cp.async_.commit_group(),
        p.cp.async_.wait_group(0),
        p["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            S, G, 0, 0, S),
        p["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"](G, 0, 0, S),
        p["cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group"](G, 0, S),
        p["cp.async.bulk.commit_group"](),
        p["cp.async.bulk.wait_group.read"](0),
        p["ldmatrix.sync.aligned.m8n8.x4.shared.b16"](R[0], R[1], R[2], R[3], S),
        p["stmatrix.sync.aligned.m8n8.x2.trans.shared.b16"](S, R[0], R[1]),
        p["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"](*F[:4], *R[:4], R[4], R[5],
                                                               *F[4:8]),
        p["wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"](*F[:4], U64, U64, 1, 1, 1, 0, 0),
        p.wgmma.fence.sync.aligned(),
        p.wgmma.commit_group.sync.aligned(),
        p.wgmma.wait_group.sync.aligned(0),
        p.setmaxnreg.inc.sync.aligned.u32(240),
        p.elect_sync(R[0], R[1], 0xFFFFFFFF),
        p["mapa.shared::cluster.u32"](R[0], R[1], 1),
        p.barrier.cluster.arrive.release.aligned(),
        p.barrier.cluster.wait.acquire.aligned(),
        p.bar.sync(1, 128),
        p.griddepcontrol.wait(),
        p["cvt.rn.bf16x2.f32"](R[0], F[0], F[1]),
        p["cvt.rn.satfinite.e4m3x2.f32"](H, F[0], F[1]),
        p["red.relaxed.gpu.global.add.u32"](G, R[0]),
        p["atom.global.cas.b32"](R[0], G, R[1], R[2]),
        p["multimem.st.global.f32"](G, F[0]),
        p["st.async.shared::cluster.mbarrier::complete_tx::bytes.b32"](S, R[0], S),
        p["fence.proxy.tensormap::generic.acquire.gpu"](G),
        p["prefetch.tensormap"](G),
    ]


def blackwell_calls():
    p = T.ptx
    return [
        p["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](S, 512),
        p.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned(),
        p.tcgen05.dealloc.cta_group__1.sync.aligned.b32(TM, 512),
        p["tcgen05.mma.cta_group::1.kind::f16"](TM, U64, U64, R[0], True),
        p["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"](S),
        p["tcgen05.cp.cta_group::1.128x256b"](TM, U64),
        p["tcgen05.ld.sync.aligned.32x32b.x2.b32"](R[0], R[1], TM),
        p["tcgen05.st.sync.aligned.16x128b.x1.b32"](TM, R[0], R[1]),
        p.tcgen05.wait__ld.sync.aligned(),
        p.tcgen05.fence__before_thread_sync(),
        p["clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"](
            S, S),
        p["st.bulk.weak.shared::cta"](S, U64, 0),
        p["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.cta_group::1"](
            S, G, 0, 0, S),
        p["tcgen05.mma.cta_group::1.kind::tf32"](TM, TM, U64, R[0], R[1] == 0),  # A in TMEM
        p["tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X"](
            TM, U64, U64, R[0], TM, TM, False),
        p["tcgen05.ld.sync.aligned.16x32bx2.x2.b32"](R[0], R[1], TM, 16),
        p["tcgen05.st.sync.aligned.16x32bx2.x1.b32"](TM, 8, R[0]),
        p["tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
          ".b64"](S, H),
        p.tcgen05.shift.cta_group__1.down(TM),
    ]


def translation_unit(calls):
    """One .cu file: each distinct helper once, and one kernel per call (ptxas rejects a kernel
    that mixes cta_group::1 and cta_group::2, so calls do not share a kernel)."""
    helpers, kernels = {}, []
    for k, call in enumerate(calls):
        rendered = render_ptx(call)
        helpers[rendered.name] = rendered.source
        body, argv = [], []
        for j, param in enumerate(rendered.params):
            ctype = param.rsplit(" ", 1)[0]
            if ctype.endswith("&"):
                body.append(f"  {ctype[:-1]} v{j};")
                argv.append(f"v{j}")
            elif ctype == "const void*":
                argv.append("(const void*)g")
            else:
                argv.append(f"({ctype})in[{j}]")
        body.append(f"  {rendered.name}({', '.join(argv)});")
        body += [f"  out[{j}] = (unsigned long long)v{j};"
                 for j, param in enumerate(rendered.params) if "&" in param]
        kernels.append(f'extern "C" __global__ void k{k}(float* g, const unsigned long long* in, '
                       "unsigned long long* out) {\n" + "\n".join(body) + "\n}\n")
    return "#include <cstdint>\n" + "".join(helpers.values()) + "".join(kernels)


def test_rendered_asm_text():
    alloc = render_ptx(hopper_calls()[0])  # mbarrier.init
    assert alloc.asm == "mbarrier.init.shared::cta.b64 [%0], %1;"
    assert alloc.name == "tvm_builtin_ptx_mbarrier_init_init_shared__cta_b64"
    (tc_alloc,) = [render_ptx(c) for c in blackwell_calls()[:1]]
    assert tc_alloc.name == (
        "tvm_builtin_ptx_tcgen05_alloc_alloc_cta_group__1_sync_aligned_shared__cta_b32")
    assert tc_alloc.asm == "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;"
    assert [c for c, _, _ in tc_alloc.inputs] == ["r", "r"]
    wait = render_ptx(hopper_calls()[3])
    assert wait.asm == ("{ .reg .pred P0; mbarrier.try_wait.parity.shared::cta.b64 P0, [%1], %2; "
                        "selp.u32 %0, 1, 0, P0; }")
    assert wait.outputs == (("=r", "uint32_t", "__wait_complete"),)
    tma = render_ptx(hopper_calls()[12])
    assert tma.asm.endswith("[%0], [%1, {%2, %3}], [%4];")
    assert [c for c, _, _ in tma.inputs] == ["r", "l", "r", "r", "r"]
    elect = render_ptx(hopper_calls()[25])
    assert "elect.sync %0|P0, %2;" in elect.asm
    arrive = render_ptx(hopper_calls()[1])
    assert arrive.asm == "mbarrier.arrive.shared::cta.b64 _, [%0];"
    ld = render_ptx(hopper_calls()[7])
    assert ld.asm == "ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
    assert [c for c, _, _ in ld.outputs] == ["=f"] * 4
    ts = render_ptx(blackwell_calls()[13])
    assert ts.name.startswith("tvm_builtin_ptx_tcgen05_mma_ts_")
    assert ts.asm == ("{ .reg .pred P0; setp.ne.b32 P0, %4, 0; "
                      "tcgen05.mma.cta_group::1.kind::tf32 [%0], [%1], %2, %3, P0; }")
    mma = render_ptx(hopper_calls()[19])
    assert mma.asm.startswith("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                              "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};")


def test_check_arch_matches_what_the_helpers_need():
    # The same verdicts ptxas gives (verified by hand: tcgen05 on sm_90a and wgmma on sm_100a
    # are rejected with "not supported on .target").
    from tvm.tirx.ptx import required_arch
    from tvm.tirx.ptx.spec import arch_satisfies

    assert all(arch_satisfies("sm_90a", required_arch(c)) for c in hopper_calls())
    assert not any(arch_satisfies("sm_90a", required_arch(c)) for c in blackwell_calls())
    wgmma = hopper_calls()[20]
    assert not arch_satisfies("sm_100a", required_arch(wgmma))

    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        T.ptx.tcgen05.fence__before_thread_sync()

    with pytest.raises(ValueError, match="requires sm_100a, but the target is sm_90a"):
        check_arch(k, "sm_90a")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize(("arch", "make"), [("sm_90a", hopper_calls),
                                            ("sm_100a", blackwell_calls)])
def test_helpers_assemble_with_ptxas(tmp_path, arch, make):
    source = tmp_path / f"helpers_{arch}.cu"
    source.write_text(translation_unit(make()))
    proc = subprocess.run(
        ["nvcc", f"-arch={arch}", "-cubin", "-o", str(tmp_path / "out.cubin"), str(source)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
