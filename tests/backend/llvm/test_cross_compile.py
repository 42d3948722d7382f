"""Cross compilation: an llvm target of another architecture builds IR, assembly and objects."""

import pytest

import tvm
from tvm.script import tirx as T

AARCH64 = {"kind": "llvm", "mtriple": "aarch64-linux-gnu"}
RISCV64 = {"kind": "llvm", "mtriple": "riscv64-linux-gnu", "mcpu": "generic-rv64",
           "mattr": ["+64bit", "+m", "+a", "+f", "+d", "+c", "+v"]}


@T.prim_func(s_tir=True)
def scale(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        B[i] = A[i] * T.float32(3)


def test_aarch64_module_has_ir_assembly_and_an_aarch64_object(tmp_path):
    lib = tvm.compile(scale, target=AARCH64)
    assert 'target triple = "aarch64-linux-gnu"' in lib.inspect_source("ll")
    asm = lib.inspect_source("asm")
    assert "fmul" in asm and "__tvm_ffi_scale:" in asm
    assert lib.function_names() == ["scale"]
    path = tmp_path / "scale.o"
    lib.write_to_file(str(path))
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF"
    assert int.from_bytes(data[18:20], "little") == 183  # e_machine: EM_AARCH64


def test_calling_a_cross_compiled_function_says_why_it_cannot_run():
    lib = tvm.compile(scale, target=AARCH64)
    with pytest.raises(RuntimeError, match="compiled for target triple 'aarch64-linux-gnu' and "
                                           "cannot run on this host"):
        lib["scale"]


def test_riscv_vector_extension_vectorizes_a_vectorized_loop():
    @T.prim_func(s_tir=True)
    def fill(A: T.Buffer((32,), "int8")):
        for j in T.vectorized(32):
            A[j] = T.int8(1)

    asm = tvm.compile(fill, target=RISCV64).inspect_source("asm")
    assert "vsetvli" in asm or "vsetivli" in asm


def test_armv7_object_with_a_parallel_loop(tmp_path):
    @T.prim_func(s_tir=True)
    def add(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"),
            C: T.Buffer((1024,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in T.parallel(256):
            for j in T.vectorized(4):
                C[i * 4 + j] = A[i * 4 + j] + B[i * 4 + j]

    lib = tvm.tirx.build(add, target={"kind": "llvm", "mtriple": "armv7-none-linux-gnueabihf"})
    path = tmp_path / "add.o"
    lib.write_to_file(str(path))
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 1  # ELFCLASS32
    assert int.from_bytes(data[18:20], "little") == 0x28  # e_machine: EM_ARM
