"""Architecture requirements of T.ptx / T.cuda calls: required_arch and check_arch."""

import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.ptx import check_arch, required_arch, required_ptx_version
from tvm.tirx.ptx.spec import arch_satisfies, max_arch, parse_arch


def _scalar(dtype, name="s"):
    buf = tvm.tirx.decl_buffer((1,), dtype, name=name, scope="local")
    return tvm.tirx.BufferLoad(buf, [0])


P = tvm.tirx.Var("p", "handle")


@pytest.mark.parametrize(
    ("make", "arch", "ptx_version"),
    [
        (lambda: T.ptx.mbarrier.init.shared__cta.b64(P, 1), "sm_80", "7.0"),
        (lambda: T.ptx.mbarrier.try_wait.parity.shared__cta.b64(_scalar("uint32"), P, 0),
         "sm_90", "7.8"),
        (lambda: T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(P, 64), "sm_90", "8.0"),
        (lambda: T.ptx.mbarrier.try_wait.parity.relaxed.cta.shared__cta.b64(
            _scalar("uint32"), P, 0), "sm_90", "8.6"),
        (lambda: T.ptx.mbarrier.test_wait.parity.shared__cta.b64(_scalar("uint32"), P, 0),
         "sm_80", "7.1"),
        (lambda: T.ptx.cp.async_.cg.shared.global_(P, P, 16), "sm_80", "7.0"),
        (lambda: T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](
            P, P, 0, 0, P), "sm_90", "8.0"),
        (lambda: T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"
                       ".cta_group::2"](P, P, 0, 0, P), "sm_100a", "8.6"),
        (lambda: T.ptx.wgmma.fence.sync.aligned(), "sm_90a", "8.0"),
        (lambda: T.ptx.setmaxnreg.dec.sync.aligned.u32(40), "sm_90a", "8.0"),
        (lambda: T.ptx.tcgen05.fence__after_thread_sync(), "sm_100a", "8.6"),
        (lambda: T.ptx.ld.global_.acquire.cluster.b32(_scalar("uint32"), P), "sm_90", "2.0"),
        (lambda: T.ptx.ld.global_.acquire.gpu.b32(_scalar("uint32"), P), "sm_70", "2.0"),
        (lambda: T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared.b16"](_scalar("uint32"), P),
         "sm_75", "6.5"),
        (lambda: T.ptx["stmatrix.sync.aligned.m8n8.x1.shared.b16"](P, _scalar("uint32")),
         "sm_90", "7.8"),
        (lambda: T.ptx.fence.proxy.async_(), "sm_90", "8.0"),
        (lambda: T.ptx.griddepcontrol.wait(), "sm_90", "7.8"),
        (lambda: T.ptx.elect_sync(_scalar("uint32"), _scalar("uint32"), 0xFFFFFFFF),
         "sm_90", "8.0"),
    ],
)
def test_required_arch_and_ptx(make, arch, ptx_version):
    call = make()
    assert required_arch(call) == arch
    assert required_ptx_version(call) == ptx_version


def test_cuda_builtins_have_requirements_too():
    assert required_arch(T.cuda.cluster_sync()) == "sm_90"
    assert required_arch(T.cuda.cta_sync()) == "sm_50"


def test_arch_rules():
    assert parse_arch("sm_100a") == (100, "a")
    with pytest.raises(ValueError, match="not a CUDA architecture name"):
        parse_arch("hopper")
    assert arch_satisfies("sm_90a", "sm_80")
    assert arch_satisfies("sm_100a", "sm_90")
    assert arch_satisfies("sm_90a", "sm_90a")
    assert not arch_satisfies("sm_90", "sm_90a")  # arch-specific features need the 'a' target
    assert not arch_satisfies("sm_100a", "sm_90a")  # wgmma is Hopper-only
    assert not arch_satisfies("sm_90a", "sm_100a")
    assert arch_satisfies("sm_103a", "sm_100a")
    assert not arch_satisfies("sm_80", "sm_90")
    assert max_arch(["sm_90", "sm_100a", "sm_70"]) == "sm_100a"


@T.prim_func
def blackwell_kernel(A: T.Buffer((128,), "float32")):
    tmem = T.alloc_shared((1,), "uint32")
    T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem[0]), 512)
    T.cuda.cta_sync()


@T.prim_func
def hopper_kernel(A: T.Buffer((128,), "float32")):
    T.ptx.wgmma.fence.sync.aligned()
    T.cuda.cluster_sync()


def test_check_arch_rejects_tcgen05_on_hopper_with_the_line():
    check_arch(blackwell_kernel, "sm_100a")
    with pytest.raises(ValueError) as info:
        check_arch(blackwell_kernel, "sm_90a")
    message = str(info.value)
    assert "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" in message
    assert "requires sm_100a, but the target is sm_90a" in message
    assert "test_ptx_arch.py" in message and 'T.ptx["tcgen05.alloc' in message


def test_check_arch_rejects_wgmma_on_blackwell_and_cuda_builtins_on_old_gpus():
    check_arch(hopper_kernel, "sm_90a")
    with pytest.raises(ValueError, match="'wgmma.fence.sync.aligned' requires sm_90a, but the "
                                         "target is sm_100a"):
        check_arch(hopper_kernel, "sm_100a")
    with pytest.raises(ValueError, match="requires sm_90a, but the target is sm_90 "):
        check_arch(hopper_kernel, "sm_90")
    mod = tvm.IRModule({"main": blackwell_kernel})
    with pytest.raises(ValueError, match="tcgen05.* in main requires sm_100a"):
        check_arch(mod, "sm_80")
    with pytest.raises(ValueError, match="not a CUDA architecture name"):
        check_arch(mod, "ampere")
