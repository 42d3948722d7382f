"""tensorize with the CPU tensor intrinsics: x86 AVX-512 VNNI (run here when the CPU has it)
and AArch64 SDOT (checked in LLVM IR and AArch64 assembly); match errors; the match-buffer
lowering."""

import numpy as np
import pytest

import tvm
import tvm.s_tir.tensor_intrin  # registers the intrinsics
from tvm import s_tir
from tvm.s_tir.schedule.testing import verify_trace_roundtrip
from tvm.script import tirx as T


def _has_cpu_flag(flag):
    try:
        with open("/proc/cpuinfo") as f:
            return flag in f.read()
    except OSError:
        return False


@T.prim_func(s_tir=True)
def packed_dense(A: T.Buffer((8, 16), "uint8"), B: T.Buffer((2, 4, 16, 4), "int8"),
                 C: T.Buffer((8, 32), "int32")):
    for i, jo, ko, ji, ki in T.grid(8, 2, 4, 16, 4):
        with T.sblock("C"):
            vi, vjo, vko, vji, vki = T.axis.remap("SSRSR", [i, jo, ko, ji, ki])
            with T.init():
                C[vi, vjo * 16 + vji] = 0
            C[vi, vjo * 16 + vji] = C[vi, vjo * 16 + vji] + T.Cast(
                "int32", A[vi, vko * 4 + vki]) * T.Cast("int32", B[vjo, vko, vji, vki])


def _vnni_schedule():
    sch = s_tir.Schedule(packed_dense, debug_mask="all")
    _, _, ko, ji, _ = sch.get_loops("C")
    sch.decompose_reduction("C", ko)
    sch.tensorize(ji, "dot_16x4_vnni")
    return sch


def test_tensorize_vnni_binds_the_tile_regions():
    sch = _vnni_schedule()
    block = sch.get(sch.get_sblock("C_update_o"))
    sources = [(mb.buffer.shape, mb.source.buffer.name) for mb in block.match_buffers]
    assert [(tuple(int(x) for x in s), n) for s, n in sources] == [
        ((4,), "A"), ((16, 4), "B"), ((16,), "C")]
    assert "llvm.x86.avx512.vpdpbusd.512" in sch.mod.script()
    verify_trace_roundtrip(sch, mod=packed_dense)


@pytest.mark.skipif(not _has_cpu_flag("avx512_vnni"), reason="CPU without AVX-512 VNNI")
def test_tensorize_vnni_numbers():
    sch = _vnni_schedule()
    f = tvm.compile(sch.mod, target="llvm -mcpu=cascadelake")
    rng = np.random.default_rng(1)
    a = rng.integers(0, 255, (8, 16)).astype("uint8")
    b = rng.integers(-128, 127, (2, 4, 16, 4)).astype("int8")
    c = tvm.runtime.tensor(np.zeros((8, 32), "int32"))
    f(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
    weights = b.transpose(0, 2, 1, 3).reshape(32, 16).astype("int32")
    np.testing.assert_array_equal(c.numpy(), a.astype("int32") @ weights.T)


def test_tensorize_refuses_a_tile_of_another_shape():
    sch = s_tir.Schedule(packed_dense, debug_mask="all")
    _, _, ko, ji, _ = sch.get_loops("C")
    sch.decompose_reduction("C", ko)
    _, jii = sch.split(ji, [2, 8])
    with pytest.raises(s_tir.ScheduleError, match="does not match the description") as info:
        sch.tensorize(jii, "dot_16x4_vnni")
    assert "^^^" in str(info.value)


@pytest.mark.skipif(not _has_cpu_flag("avx512_vnni"), reason="CPU without AVX-512 VNNI")
def test_tensorize_keeps_the_tile_init():
    # Without decompose_reduction, blockize gives the tile block the zeroing init; the
    # intrinsic replaces the update only.
    sch = s_tir.Schedule(packed_dense, debug_mask="all")
    ji = sch.get_loops("C")[3]
    sch.tensorize(ji, "dot_16x4_vnni")
    assert sch.get(sch.get_sblock("C_o")).init is not None
    f = tvm.compile(sch.mod, target="llvm -mcpu=cascadelake")
    a = np.full((8, 16), 3, "uint8")
    b = np.full((2, 4, 16, 4), -2, "int8")
    c = tvm.runtime.tensor(np.full((8, 32), 99, "int32"))
    f(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
    np.testing.assert_array_equal(c.numpy(), np.full((8, 32), 16 * 3 * -2))


@T.prim_func(s_tir=True)
def packed_dense_i8(A: T.Buffer((4, 8), "int8"), B: T.Buffer((2, 2, 4, 4), "int8"),
                    C: T.Buffer((4, 8), "int32")):
    for i, jo, ko, ji, ki in T.grid(4, 2, 2, 4, 4):
        with T.sblock("C"):
            vi, vjo, vko, vji, vki = T.axis.remap("SSRSR", [i, jo, ko, ji, ki])
            with T.init():
                C[vi, vjo * 4 + vji] = 0
            C[vi, vjo * 4 + vji] = C[vi, vjo * 4 + vji] + T.Cast(
                "int32", A[vi, vko * 4 + vki]) * T.Cast("int32", B[vjo, vko, vji, vki])


def test_tensorize_sdot_emits_the_aarch64_instruction():
    from tvm.backend.llvm.codegen import codegen_module

    sch = s_tir.Schedule(packed_dense_i8, debug_mask="all")
    _, _, ko, ji, _ = sch.get_loops("C")
    sch.decompose_reduction("C", ko)
    sch.tensorize(ji, "dot_4x4_i8i8s32_sdot")
    kernels, _ = codegen_module(tvm.driver.lower(sch.mod), "sdot", split_wrappers=True)
    ir_text = str(kernels)
    assert "call <4 x i32> @\"llvm.aarch64.neon.sdot.v4i32.v16i8\"" in ir_text
    llvm = pytest.importorskip("llvmlite.binding")
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        target = llvm.Target.from_triple("aarch64-linux-gnu")
    except RuntimeError:
        pytest.skip("llvmlite built without the AArch64 target")
    machine = target.create_target_machine(features="+neon,+dotprod")
    module = llvm.parse_assembly(ir_text.replace("x86_64-unknown-linux-gnu", "aarch64-linux-gnu"))
    asm = machine.emit_assembly(module)
    assert "sdot\tv" in asm


def test_sdot_description_numbers():
    intrin = tvm.tirx.TensorIntrin.get("dot_4x4_i8i8s32_sdot")
    lib = tvm.compile(intrin.desc, target="llvm")
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 127, 4).astype("int8")
    b = rng.integers(-128, 127, (4, 4)).astype("int8")
    c = rng.integers(-9, 9, 4).astype("int32")
    args = [tvm.runtime.tensor(x) for x in (a, b, c)]
    lib(*args)
    np.testing.assert_array_equal(args[2].numpy(), c + b.astype("int32") @ a.astype("int32"))


@T.prim_func(s_tir=True)
def row_major_dense(A: T.Buffer((8, 16), "uint8"), B: T.Buffer((32, 16), "int8"),
                    C: T.Buffer((8, 32), "int32")):
    for i, j, k in T.grid(8, 32, 16):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[vj, vk])


def test_lowering_refuses_a_strided_tile_for_a_compact_intrinsic():
    sch = s_tir.Schedule(row_major_dense, debug_mask="all")
    i, j, k = sch.get_loops("C")
    jo, ji = sch.split(j, [None, 16])
    ko, ki = sch.split(k, [None, 4])
    sch.reorder(i, jo, ko, ji, ki)
    sch.decompose_reduction("C", ko)
    sch.tensorize(ji, "dot_16x4_vnni")  # the description matches ...
    with pytest.raises(ValueError, match="must be contiguous in memory"):
        tvm.compile(sch.mod, target="llvm")  # ... but B's 16x4 tile is not one run of bytes
