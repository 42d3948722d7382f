"""T.ptx: both spellings parse, print exactly as Apache TVM 0.27 prints them, and round-trip.

Every expected line below was printed by Apache TVM 0.27 for the same source line.
"""

import importlib.util

import pytest

import tvm
from tvm.script import tirx as T

_HEADER = """
import tvm
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float16")):
    barb = T.alloc_shared((4,), "uint64")
    smem = T.alloc_shared((256,), "float16")
    tmb = T.alloc_local((16,), "uint64")
    tm: T.uint32
    r: T.uint32
    r2: T.uint32
    r3: T.uint32
    r4: T.uint32
    u64: T.uint64
    f32: T.float32
    f32b: T.float32
    d0: T.float32
    d1: T.float32
    d2: T.float32
    d3: T.float32
    h: T.float16
    hh: T.uint16
    i32: T.int32
"""


def parse_kernel(tmp_path, line, name="k"):
    """Parse the kernel above with ``line`` appended to its body (from a real file, so that
    spans and error snippets point at it)."""
    path = tmp_path / f"{name}.py"
    path.write_text(_HEADER + "    " + line + "\n")
    spec = importlib.util.spec_from_file_location(f"_ptx_kernel_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


# (source line, the printed statement): checked against Apache TVM 0.27's printer.
CASES = [
    ('T.ptx.mbarrier.init.shared__cta.b64(T.address_of(barb[0]), 1)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(1), "init", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.init.shared.b64(T.address_of(barb[0]), 1)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(1), "init", "", "shared", "b64", "")'),
    ('T.ptx.mbarrier.arrive.shared__cta.b64(T.address_of(barb[0]))',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "arrive", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.arrive.shared__cta.b64(T.address_of(barb[0]), 2)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(2), "arrive", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(T.address_of(barb[0]), 1024)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(1024), "arrive", "expect_tx", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.arrive.release.cluster.shared__cluster.b64(T.address_of(barb[0]), 1)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(1), "arrive", "release", "cluster", "shared::cluster", "b64", "")'),
    ('T.ptx.mbarrier.try_wait.parity.shared__cta.b64(r, T.address_of(barb[0]), 0)',
     'T.ptx.mbarrier(r, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(0), "try_wait", "parity", "", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.try_wait.shared__cta.b64(r, T.address_of(barb[0]), u64)',
     'T.ptx.mbarrier(r, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), u64, "try_wait", "", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.test_wait.parity.shared__cta.b64(r, T.address_of(barb[0]), 0)',
     'T.ptx.mbarrier(r, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(0), "test_wait", "parity", "", "", "", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.inval.shared__cta.b64(T.address_of(barb[0]))',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "inval", "shared::cta", "b64", "")'),
    ('T.ptx.mbarrier.pending_count.b64(r, u64)',
     'T.ptx.mbarrier(r, u64, "pending_count", "", "b64", "")'),
    ('T.ptx.mbarrier.expect_tx.relaxed.cta.shared__cta.b64(T.address_of(barb[0]), 16)',
     'T.ptx.mbarrier(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), T.uint32(16), "expect_tx", "relaxed", "cta", "shared::cta", "b64", "")'),
    ('T.ptx.fence.proxy.async_.shared__cta()',
     'T.ptx.fence("proxy", "async", "shared::cta", "")'),
    ('T.ptx.fence.proxy.async_()',
     'T.ptx.fence("proxy", "async", "", "")'),
    ('T.ptx.fence.mbarrier_init.release.cluster()',
     'T.ptx.fence("mbarrier_init", "release", "cluster", "")'),
    ('T.ptx.fence.acq_rel.gpu()',
     'T.ptx.fence("acq_rel", "gpu", "")'),
    ('T.ptx.fence.sc.cta()',
     'T.ptx.fence("sc", "cta", "")'),
    ('T.ptx.fence.proxy.tensormap__generic.release.gpu()',
     'T.ptx.fence("proxy", "tensormap::generic", "release", "gpu", "")'),
    ('T.ptx.ld.global_.acquire.gpu.b32(r, T.address_of(A[0]))',
     'T.ptx.ld(r, T.address_of(A[0]), "", "acquire", "gpu", "global", "", "", "", "", "", "b32", "")'),
    ('T.ptx.ld.global_.b32(r, T.address_of(A[0]))',
     'T.ptx.ld(r, T.address_of(A[0]), "", "", "", "global", "", "", "", "", "", "b32", "")'),
    ('T.ptx.ld.global_.v4.u32(r, r2, r3, r4, T.address_of(A[0]))',
     'T.ptx.ld(r, r2, r3, r4, T.address_of(A[0]), "", "", "global", "", "", "", "", "", "v4", "u32", "")'),
    ('T.ptx.ld.global_.nc.f32(f32, T.address_of(A[0]))',
     'T.ptx.ld(f32, T.address_of(A[0]), "", "", "", "global", "", "nc", "", "", "", "f32", "")'),
    ('T.ptx.st.global_.b32(T.address_of(A[0]), r)',
     'T.ptx.st(T.address_of(A[0]), r, "", "", "", "global", "", "", "", "b32", "")'),
    ('T.ptx.st.shared.v4.u32(T.address_of(smem[0]), r, r2, r3, r4)',
     'T.ptx.st(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), r, r2, r3, r4, "", "", "shared", "", "", "", "v4", "u32", "")'),
    ('T.ptx.st.release.gpu.global_.b32(T.address_of(A[0]), r)',
     'T.ptx.st(T.address_of(A[0]), r, "", "release", "gpu", "global", "", "", "", "b32", "")'),
    ('T.ptx.cp.async_.ca.shared.global_(T.address_of(smem[0]), T.address_of(A[0]), 16)',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(A[0]), 16, "async", "ca", "shared", "global", "", "", "")'),
    ('T.ptx.cp.async_.cg.shared.global_(T.address_of(smem[0]), T.address_of(A[0]), 16)',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(A[0]), 16, "async", "cg", "shared", "global", "", "", "")'),
    ('T.ptx["cp.async.cg.shared.global"](T.address_of(smem[0]), T.address_of(A[0]), 16)',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(A[0]), 16, "async", "cg", "shared", "global", "", "", "")'),
    ('T.ptx.cp.async_.commit_group()',
     'T.ptx.cp("async", "commit_group", "")'),
    ('T.ptx.cp.async_.wait_group(0)',
     'T.ptx.cp(0, "async", "wait_group", "")'),
    ('T.ptx.cp.async_.wait_all()',
     'T.ptx.cp("async", "wait_all", "")'),
    ('T.ptx.bar.sync(0)',
     'T.ptx.bar(T.uint32(0), "", "sync", "")'),
    ('T.ptx.bar.sync(1, 128)',
     'T.ptx.bar(T.uint32(1), T.uint32(128), "", "sync", "")'),
    ('T.ptx.barrier.sync(0)',
     'T.ptx.barrier(T.uint32(0), "", "sync", "", "")'),
    ('T.ptx.bar.arrive(1, 128)',
     'T.ptx.bar(T.uint32(1), T.uint32(128), "", "arrive", "")'),
    ('T.ptx.barrier.cluster.arrive()',
     'T.ptx.barrier("cluster", "arrive", "", "", "")'),
    ('T.ptx.barrier.cluster.arrive.release()',
     'T.ptx.barrier("cluster", "arrive", "release", "", "")'),
    ('T.ptx.barrier.cluster.wait()',
     'T.ptx.barrier("cluster", "wait", "", "", "")'),
    ('T.ptx.barrier.cluster.wait.acquire()',
     'T.ptx.barrier("cluster", "wait", "acquire", "", "")'),
    ('T.ptx.setmaxnreg.inc.sync.aligned.u32(240)',
     'T.ptx.setmaxnreg(240, "inc", "sync", "aligned", "u32", "")'),
    ('T.ptx.setmaxnreg.dec.sync.aligned.u32(40)',
     'T.ptx.setmaxnreg(40, "dec", "sync", "aligned", "u32", "")'),
    ('T.ptx.wgmma.fence.sync.aligned()',
     'T.ptx.wgmma("fence", "sync", "aligned", "")'),
    ('T.ptx.wgmma.commit_group.sync.aligned()',
     'T.ptx.wgmma("commit_group", "sync", "aligned", "")'),
    ('T.ptx.wgmma.wait_group.sync.aligned(0)',
     'T.ptx.wgmma(0, "wait_group", "sync", "aligned", "")'),
    ('T.ptx.griddepcontrol.wait()',
     'T.ptx.griddepcontrol("wait", "")'),
    ('T.ptx.griddepcontrol.launch_dependents()',
     'T.ptx.griddepcontrol("launch_dependents", "")'),
    ('T.ptx.cvt.rn.f16.f32(h, f32)',
     'T.ptx.cvt(h, f32, "rn", "", "", "", "", "f16", "f32", "")'),
    ('T.ptx.cvt.rn.bf16x2.f32(r, f32, f32b)',
     'T.ptx.cvt(r, f32, f32b, "rn", "", "", "bf16x2", "f32", "")'),
    ('T.ptx.cvt.rzi.s32.f32(i32, f32)',
     'T.ptx.cvt(i32, f32, "rzi", "", "", "", "", "s32", "f32", "")'),
    ('T.ptx.tcgen05.fence__before_thread_sync()',
     'T.ptx.tcgen05("fence::before_thread_sync", "")'),
    ('T.ptx.tcgen05.fence__after_thread_sync()',
     'T.ptx.tcgen05("fence::after_thread_sync", "")'),
    ('T.ptx.tcgen05.wait__ld.sync.aligned()',
     'T.ptx.tcgen05("wait::ld", "sync", "aligned", "")'),
    ('T.ptx.tcgen05.wait__st.sync.aligned()',
     'T.ptx.tcgen05("wait::st", "sync", "aligned", "")'),
    ('T.ptx.mapa.shared__cluster.u32(r, tm, 1)',
     'T.ptx.mapa(r, tm, T.uint32(1), "shared::cluster", "u32", "")'),
    ('T.ptx.mapa.u64(u64, u64, 1)',
     'T.ptx.mapa(u64, u64, T.uint32(1), "u64", "")'),
    ('T.ptx.elect_sync(r, r2, T.uint32(0xFFFFFFFF))',
     'T.ptx.elect_sync(r, r2, T.uint32(4294967295), "")'),
    ('T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](T.address_of(smem[0]), T.address_of(tmb[0]), i32, i32, T.address_of(barb[0]))',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(tmb[0]), i32, i32, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "async", "bulk", "tensor", "2d", "shared::cluster", "global", "tile", "mbarrier::complete_tx::bytes", "", "", "", "")'),
    ('T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](T.address_of(smem[0]), T.address_of(tmb[0]), 0, 0, T.address_of(barb[0]))',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(tmb[0]), 0, 0, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "async", "bulk", "tensor", "2d", "shared::cluster", "global", "", "mbarrier::complete_tx::bytes", "", "", "", "")'),
    ('T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"](T.address_of(smem[0]), T.address_of(tmb[0]), 0, 0, T.address_of(barb[0]), hh)',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(tmb[0]), 0, 0, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), hh, "async", "bulk", "tensor", "2d", "shared::cluster", "global", "", "mbarrier::complete_tx::bytes", "multicast::cluster", "", "", "")'),
    ('T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.cta_group::2"](T.address_of(smem[0]), T.address_of(tmb[0]), 0, 0, T.address_of(barb[0]))',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(tmb[0]), 0, 0, T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "async", "bulk", "tensor", "2d", "shared::cta", "global", "", "mbarrier::complete_tx::bytes", "cta_group::2", "", "")'),
    ('T.ptx["cp.async.bulk.tensor.3d.global.shared::cta.bulk_group"](T.address_of(tmb[0]), 0, 0, 0, T.address_of(smem[0]))',
     'T.ptx.cp(T.address_of(tmb[0]), 0, 0, 0, T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), "async", "bulk", "tensor", "3d", "global", "shared::cta", "", "bulk_group", "", "")'),
    ('T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group"](T.address_of(tmb[0]), 0, 0, T.address_of(smem[0]))',
     'T.ptx.cp(T.address_of(tmb[0]), 0, 0, T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), "reduce", "async", "bulk", "tensor", "2d", "global", "shared::cta", "add", "", "bulk_group", "", "")'),
    ('T.ptx["cp.async.bulk.prefetch.tensor.2d.L2.global"](T.address_of(tmb[0]), 0, 0)',
     'T.ptx.cp(T.address_of(tmb[0]), 0, 0, "async", "bulk", "prefetch", "tensor", "2d", "L2", "global", "", "", "")'),
    ('T.ptx["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"](T.address_of(smem[0]), T.address_of(A[0]), 256, T.address_of(barb[0]))',
     'T.ptx.cp(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.address_of(A[0]), T.uint32(256), T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "async", "bulk", "", "", "shared::cluster", "global", "mbarrier::complete_tx::bytes", "", "", "", "")'),
    ('T.ptx["cp.async.bulk.global.shared::cta.bulk_group"](T.address_of(A[0]), T.address_of(smem[0]), 256)',
     'T.ptx.cp(T.address_of(A[0]), T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.uint32(256), "async", "bulk", "", "", "global", "shared::cta", "bulk_group", "", "", "", "")'),
    ('T.ptx["cp.async.bulk.commit_group"]()',
     'T.ptx.cp("async", "bulk", "commit_group", "")'),
    ('T.ptx["cp.async.bulk.wait_group.read"](0)',
     'T.ptx.cp(0, "async", "bulk", "wait_group", "read", "")'),
    ('T.ptx["cp.async.bulk.wait_group"](1)',
     'T.ptx.cp(1, "async", "bulk", "wait_group", "", "")'),
    ('T.ptx["cp.async.bulk.prefetch.L2.global"](T.address_of(A[0]), 256)',
     'T.ptx.cp(T.address_of(A[0]), T.uint32(256), "async", "bulk", "prefetch", "L2", "global", "", "")'),
    ('T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"](r, r2, r3, r4, T.address_of(smem[0]))',
     'T.ptx.ldmatrix(r, r2, r3, r4, T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), "sync", "aligned", "m8n8", "x4", "", "shared", "b16", "")'),
    ('T.ptx["ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"](r, T.address_of(smem[0]))',
     'T.ptx.ldmatrix(r, T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), "sync", "aligned", "m8n8", "x1", "trans", "shared", "b16", "")'),
    ('T.ptx["stmatrix.sync.aligned.m8n8.x2.shared.b16"](T.address_of(smem[0]), r, r2)',
     'T.ptx.stmatrix(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), r, r2, "sync", "aligned", "m8n8", "x2", "", "shared", "b16", "")'),
    ('T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"](d0, d1, d2, d3, r, r2, r3, r4, r, r2, f32, f32, f32, f32)',
     'T.ptx.mma(d0, d1, d2, d3, r, r2, r3, r4, r, r2, f32, f32, f32, f32, "sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16", "f32", "")'),
    ('T.ptx["mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"](d0, d1, d2, d3, r, r2, r, f32, f32, f32, f32)',
     'T.ptx.mma(d0, d1, d2, d3, r, r2, r, f32, f32, f32, f32, "sync", "aligned", "m16n8k8", "row", "col", "f32", "bf16", "bf16", "f32", "")'),
    ('T.ptx["mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"](d0, d1, d2, d3, r, r2, r3, r4, r, r2, f32, f32, f32, f32)',
     'T.ptx.mma(d0, d1, d2, d3, r, r2, r3, r4, r, r2, f32, f32, f32, f32, "sync", "aligned", "m16n8k32", "row", "col", "f32", "e4m3", "e4m3", "f32", "")'),
    ('T.ptx["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"](T.address_of(barb[0]))',
     'T.ptx.tcgen05(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "commit", "cta_group::1", "mbarrier::arrive::one", "shared::cluster", "b64", "")'),
    ('T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(barb[0]))',
     'T.ptx.tcgen05(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "commit", "cta_group::1", "mbarrier::arrive::one", "shared::cluster", "b64", "")'),
    ('T.ptx["tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"](T.address_of(barb[0]), hh)',
     'T.ptx.tcgen05(T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), hh, "commit", "cta_group::2", "mbarrier::arrive::one", "shared::cluster", "multicast::cluster", "b64", "")'),
    ('T.ptx["tcgen05.cp.cta_group::1.128x256b"](tm, u64)',
     'T.ptx.tcgen05(tm, u64, "cp", "cta_group::1", "128x256b", "", "", "", "")'),
    ('T.ptx["tcgen05.ld.sync.aligned.32x32b.x2.b32"](r, r2, tm)',
     'T.ptx.tcgen05(r, r2, tm, "ld", "sync", "aligned", "32x32b", "x2", "", "b32", "")'),
    ('T.ptx["tcgen05.ld.sync.aligned.16x128b.x1.b32"](r, r2, tm)',
     'T.ptx.tcgen05(r, r2, tm, "ld", "sync", "aligned", "16x128b", "x1", "", "b32", "")'),
    ('T.ptx["tcgen05.st.sync.aligned.32x32b.x1.b32"](tm, r)',
     'T.ptx.tcgen05(tm, r, "st", "sync", "aligned", "32x32b", "x1", "", "b32", "")'),
    ('T.ptx["red.global.add.f32"](T.address_of(A[0]), f32)',
     'T.ptx.red(T.address_of(A[0]), f32, "", "", "global", "add", "", "f32", "")'),
    ('T.ptx["red.relaxed.gpu.global.add.u32"](T.address_of(A[0]), r)',
     'T.ptx.red(T.address_of(A[0]), r, "relaxed", "gpu", "global", "add", "", "u32", "")'),
    ('T.ptx["atom.global.add.u32"](r, T.address_of(A[0]), r2)',
     'T.ptx.atom(r, T.address_of(A[0]), r2, "", "", "global", "add", "", "u32", "")'),
    ('T.ptx["atom.global.cas.b32"](r, T.address_of(A[0]), r2, r3)',
     'T.ptx.atom(r, T.address_of(A[0]), r2, r3, "", "", "global", "cas", "b32", "")'),
    ('T.ptx["clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"](T.address_of(smem[0]), T.address_of(barb[0]))',
     'T.ptx.clusterlaunchcontrol(T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), T.cuda.cvta_generic_to_shared(T.address_of(barb[0])), "try_cancel", "async", "shared::cta", "mbarrier::complete_tx::bytes", "", "b128", "")'),
    ('T.ptx["mapa.shared::cluster.u32"](r, r2, 1)',
     'T.ptx.mapa(r, r2, T.uint32(1), "shared::cluster", "u32", "")'),
    ('T.ptx["cvt.rn.satfinite.e4m3x2.f32"](hh, f32, f32b)',
     'T.ptx.cvt(hh, f32, f32b, "rn", "satfinite", "", "e4m3x2", "f32", "")'),
    ('T.ptx["cvt.rn.f16x2.e4m3x2"](r, hh)',
     'T.ptx.cvt(r, hh, "rn", "", "f16x2", "e4m3x2", "")'),
    ('T.ptx["cvt.rna.tf32.f32"](r, f32)',
     'T.ptx.cvt(r, f32, "rna", "", "", "tf32", "f32", "")'),
    ('T.ptx.cp.async_.wait_group(i32)',
     'T.ptx.cp(i32, "async", "wait_group", "")'),
    ('T.ptx["tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"](tm, u64, u64, r, tm, tm, i32 == 0)',
     'T.ptx.tcgen05(tm, u64, u64, r, tm, tm, i32 == 0, "mma", "cta_group::1", "kind::mxf8f6f4", "block_scale", "scale_vec::1X", "p6")'),
    ('T.ptx["tcgen05.ld.sync.aligned.16x32bx2.x1.b32"](r, tm, 16)',
     'T.ptx.tcgen05(r, tm, 16, "ld", "sync", "aligned", "16x32bx2", "x1", "", "b32", "")'),
    ('T.ptx["tcgen05.st.sync.aligned.16x32bx2.x1.b32"](tm, 16, r)',
     'T.ptx.tcgen05(tm, 16, r, "st", "sync", "aligned", "16x32bx2", "x1", "", "b32", "")'),
    ('T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"](d0, d1, d2, d3, u64, u64, i32 == 0, 1, 1, 0, 0)',
     'T.ptx.wgmma(d0, d1, d2, d3, u64, u64, i32 == 0, 1, 1, 0, 0, "mma_async", "sync", "aligned", "m64n8k16", "f32", "f16", "f16", "p6")'),
    ('T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"](d0, d1, d2, d3, r, r2, r3, r4, u64, i32 == 0, 1, 1, 0)',
     'T.ptx.wgmma(d0, d1, d2, d3, r, r2, r3, r4, u64, i32 == 0, 1, 1, 0, "mma_async", "sync", "aligned", "m64n8k16", "f32", "bf16", "bf16", "p9")'),
    ('T.ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"](r, 1)',
     'T.ptx.mbarrier(r, T.uint32(1), "arrive", "release", "cluster", "shared::cluster", "b64", "")'),
    # cp.async.bulk shared::cta -> shared::cluster: the optional .sem/.scope/.b128 slots print
    # empty, as 0.27 (they need a PTX ISA newer than 9.0).
    ('T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"](r, T.address_of(smem[0]), r2, r3)',
     'T.ptx.cp(r, T.cuda.cvta_generic_to_shared(T.address_of(smem[0])), r2, r3, "async", "bulk", "", "", "shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes", "", "")'),
]


@pytest.mark.parametrize(("line", "printed"), CASES, ids=[c[0][:60] for c in CASES])
def test_print_and_round_trip(tmp_path, line, printed):
    func = parse_kernel(tmp_path, line)
    text = func.script()
    assert text.rstrip().splitlines()[-1].strip() == printed
    again = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(func, again)
    assert again.script() == text


def test_spec_example_tmem_alloc_prints_as_apache_tvm():
    # Spec D.3 / D.7 example 2: the exact-string spelling, printed with its modifier slots.
    @T.prim_func
    def kernel(A: T.Buffer((128,), "float32")):
        tmem_addr = T.alloc_shared((1,), "uint32")
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](
            T.address_of(tmem_addr[0]), 512
        )
        T.cuda.cta_sync()
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], 512)

    lines = [line.strip() for line in kernel.script().splitlines()]
    assert (
        'T.ptx.tcgen05(T.cuda.cvta_generic_to_shared(T.address_of(tmem_addr[0])), T.uint32(512), '
        '"alloc", "cta_group::1", "sync", "aligned", "shared::cta", "b32", "")'
    ) in lines
    assert 'T.ptx.tcgen05("relinquish_alloc_permit", "cta_group::1", "sync", "aligned", "")' in lines
    assert (
        'T.ptx.tcgen05(tmem_addr[0], T.uint32(512), "dealloc", "cta_group::1", "sync", "aligned", '
        '"b32", "")'
    ) in lines
    tvm.ir.assert_structural_equal(kernel, tvm.script.from_source(kernel.script()))


def test_spellings_build_the_same_call():
    chain = T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32
    exact = T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"]
    reordered = T.ptx.tcgen05.b32.shared__cta.aligned.sync.cta_group__1.alloc
    addr = tvm.tirx.Var("addr", "uint32")
    a, b, c = chain(addr, 512), exact(addr, 512), reordered(addr, 512)
    tvm.ir.assert_structural_equal(a, b)
    tvm.ir.assert_structural_equal(a, c)
    assert a.op.name == "tirx.ptx.tcgen05"
    assert a.dtype == ""  # a void statement
    assert tvm.ir.Op.get("tirx.ptx.tcgen05").get_attr("TCallEffectKind") == 4  # Opaque


def test_keyword_and_double_colon_escapes():
    ptr = tvm.tirx.Var("p", "handle")
    call = T.ptx.fence.proxy.async_.global_()
    assert [a.value for a in call.args] == ["proxy", "async", "global", ""]
    call = T.ptx["elect.sync"](*_scalars("uint32", "uint32"), 0xFFFFFFFF)  # dotted family name
    assert call.op.name == "tirx.ptx.elect_sync"
    assert T.ptx.ld.global_.b32(_scalars("uint32")[0], ptr).args[1] is ptr
    # A token that starts with a digit is written with a leading "_" (an extension).
    chained = T.ptx.cp.async_.bulk.tensor._2d.shared__cluster.global_.mbarrier__complete_tx__bytes
    exact = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"]
    tvm.ir.assert_structural_equal(chained(ptr, ptr, 0, 0, ptr), exact(ptr, ptr, 0, 0, ptr))
    assert "_2d" in dir(T.ptx.cp.async_.bulk.tensor)


def _scalars(*dtypes):
    out = []
    for i, dtype in enumerate(dtypes):
        buf = tvm.tirx.decl_buffer((1,), dtype, name=f"s{i}", scope="local")
        out.append(tvm.tirx.BufferLoad(buf, [0]))
    return out


# ---- validation ---------------------------------------------------------------------------


def test_unknown_family_lists_the_families():
    with pytest.raises(ValueError, match="'foo' is not a ptx instruction family.*mbarrier"):
        T.ptx.foo  # noqa: B018
    assert not hasattr(T.ptx, "foo")


def test_unknown_modifier_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"'bogus' is not a valid modifier for ptx.ld.*type: b8"):
        T.ptx.ld.global_.bogus  # noqa: B018
    with pytest.raises(ValueError, match="'g2s' is not a valid modifier for ptx.cp"):
        T.ptx["cp.async.bulk.tensor.g2s"]


def test_missing_modifier_and_operand_count():
    p = tvm.tirx.Var("p", "handle")
    with pytest.raises(ValueError, match="missing required modifier.*type"):
        T.ptx.mbarrier.init.shared__cta(p, 1)
    with pytest.raises(ValueError, match=r"expects 3 operand\(s\) \(d, p, membermask\), got 2"):
        T.ptx.elect_sync(*_scalars("uint32"), 0xFFFFFFFF)


def test_operand_kinds_are_checked():
    (r,) = _scalars("uint32")
    p = tvm.tirx.Var("p", "handle")
    f = tvm.tirx.Var("f", "float32")
    with pytest.raises(ValueError, match="'addr' is a shared::cta address.*got float32"):
        T.ptx.mbarrier.init.shared__cta.b64(f, 1)
    with pytest.raises(ValueError, match="'d' is a destination and must be a writable"):
        T.ptx.ld.global_.b32(r + 1, p)
    with pytest.raises(ValueError, match=r"'d' is \.b16, so its value must be a 16-bit"):
        T.ptx["cvt.rn.satfinite.e4m3x2.f32"](r, f, f)
    with pytest.raises(ValueError, match="'cp_size' must be one of 4, 8, 16, got 3"):
        T.ptx.cp.async_.ca.shared.global_(p, p, 3)
    with pytest.raises(ValueError, match="'nreg' must be one of 24, 32"):
        T.ptx.setmaxnreg.inc.sync.aligned.u32(7)
    with pytest.raises(ValueError, match="tensormap takes .const or .param"):
        T.ptx["prefetch.global.tensormap"](p)


def test_parser_reports_ptx_errors_at_the_line(tmp_path):
    with pytest.raises(tvm.error.DiagnosticError) as info:
        parse_kernel(tmp_path, "T.ptx.ld.global_.bogus.b32(r, T.address_of(A[0]))", "bad")
    message = str(info.value)
    assert "'bogus' is not a valid modifier for ptx.ld" in message
    assert "bad.py" in message and "T.ptx.ld.global_.bogus.b32" in message
