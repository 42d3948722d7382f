# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""A kernel using an instruction its target arch lacks is rejected by ``tvm.compile`` before
nvcc runs, and the error names the instruction, the arch it needs, the target's arch and the
TVMScript line: raw ``T.ptx`` calls (the code generator's arch check) and tile primitives
(the dispatcher: the variant's reason and the line of the ``Tx`` call)."""

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.tile_primitive.gemm_async import wgmma_accumulator_layout
from tvm.script import tirx as T
from tvm.tirx.layout import S, SwizzleMode, TCol, TileLayout, TLane, mma_shared_layout
from tvm.tirx.operator.tile_primitive.dispatcher import TileDispatchError

SW128 = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (64, 64))
SW128_M128 = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (128, 64))


@pytest.fixture(autouse=True)
def no_nvcc(monkeypatch):
    """Any nvcc call fails the test: the rejection must come first."""
    from tvm.backend.cuda import nvcc

    def refuse(*args, **kwargs):
        raise AssertionError("nvcc was called")

    monkeypatch.setattr(nvcc, "compile_cuda", refuse)


def _compile(func, arch):
    ex = tvm.compile(func, target={"kind": "cuda", "arch": arch}, tir_pipeline="tirx")
    ex.mod.imports[0].impl.binary()  # would run nvcc


@T.prim_func
def raw_wgmma(A: T.Buffer((4,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    T.ptx.wgmma.fence.sync.aligned()
    A[0] = T.float32(1)


@T.prim_func
def raw_tcgen05(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    bx = T.cta_id([1])
    warp = T.warp_id([4])
    tx = T.thread_id([128])
    addr = T.alloc_shared([1], "uint32")
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(addr),
                                                                       T.uint32(32))
    A[0] = addr[0]


@T.prim_func
def tile_wgmma(out: T.Buffer((64, 64), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    wg = T.warpgroup_id([1])
    tid = T.thread_id_in_wg([128])
    As = T.alloc_buffer((64, 64), "float16", scope="shared", layout=SW128, align=1024)
    Bs = T.alloc_buffer((64, 64), "float16", scope="shared", layout=SW128, align=1024)
    C = T.alloc_buffer((64, 64), "float32", scope="local", layout=wgmma_accumulator_layout(64))
    Tx.wg.gemm_async(C, As[:, :], Bs[:, :], False, False, False, dispatch="wgmma")
    T.ptx.wgmma.wait_group.sync.aligned(0)
    out[tid // 2, tid % 2] = C.local(32)[0]


@T.prim_func
def tile_tcgen05(out: T.Buffer((128,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    warp = T.warp_id([4])
    tid = T.thread_id([128])
    As = T.alloc_buffer((128, 64), "float16", scope="shared", layout=SW128_M128, align=1024)
    Bs = T.alloc_buffer((64, 64), "float16", scope="shared", layout=SW128, align=1024)
    addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=addr[0],
                         layout=TileLayout(S[(128, 64):(1 @ TLane, 1 @ TCol)]))
    if tid == 0:
        Tx.gemm_async(tmem[0:128, 0:64], As[:, :], Bs[:, :], dispatch="tcgen05")
    out[tid] = T.float32(0)


@pytest.mark.parametrize(("func", "arch", "words"), [
    (raw_wgmma, "sm_80", ["'wgmma.fence.sync.aligned'", "requires sm_90a", "target is sm_80",
                          "T.ptx.wgmma.fence.sync.aligned()"]),
    (raw_wgmma, "sm_100a", ["'wgmma.fence.sync.aligned'", "requires sm_90a",
                            "target is sm_100a"]),
    (raw_tcgen05, "sm_90a", ["'tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32'",
                             "requires sm_100a", "target is sm_90a",
                             "T.ptx.tcgen05.alloc.cta_group__1"]),
])
def test_raw_ptx_rejected_with_instruction_arch_and_line(func, arch, words):
    with pytest.raises(ValueError) as info:
        _compile(func, arch)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert "test_arch_rejection.py:" in message


@pytest.mark.parametrize(("func", "arch", "words"), [
    (tile_wgmma, "sm_80", ["wgmma.mma_async needs sm_90a, the target is sm_80",
                           "Tx.wg.gemm_async(C, As[:, :], Bs[:, :]"]),
    (tile_wgmma, "sm_100a", ["wgmma.mma_async needs sm_90a, the target is sm_100a"]),
    (tile_tcgen05, "sm_90a", ["tcgen05.mma needs sm_100a, the target is sm_90a",
                              "Tx.gemm_async(tmem[0:128, 0:64]"]),
])
def test_tile_primitive_rejected_with_instruction_arch_and_line(func, arch, words):
    with pytest.raises(TileDispatchError) as info:
        _compile(func, arch)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert "test_arch_rejection.py:" in message.splitlines()[0]


def test_the_same_kernels_pass_on_their_arch():
    # the checks reject the arch, not the kernels: nothing raises before nvcc here
    for func, arch in ((raw_wgmma, "sm_90a"), (tile_wgmma, "sm_90a"),
                       (raw_tcgen05, "sm_100a"), (tile_tcgen05, "sm_100a")):
        ex = tvm.compile(func, target={"kind": "cuda", "arch": arch}, tir_pipeline="tirx")
        assert ex.mod.imports[0].inspect_source()
