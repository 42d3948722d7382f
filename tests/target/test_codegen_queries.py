"""``tvm.target.codegen``: LLVM version and CPU-feature queries."""

import llvmlite.binding as llvm

import tvm
from tvm.target import codegen


def test_llvm_version_is_the_backend_llvm():
    assert codegen.llvm_version_major() == llvm.llvm_version_info[0]


def test_host_triple_and_cpu():
    assert codegen.llvm_get_system_triple() == llvm.get_process_triple()
    assert codegen.llvm_get_system_cpu() == llvm.get_host_cpu_name()


def test_features_from_mattr_and_host():
    target = tvm.target.Target("llvm -mattr=+avx512f,-sse4.2")
    assert codegen.llvm_cpu_has_features("avx512f", target)
    assert not codegen.llvm_cpu_has_features(["avx512f", "sse4.2"], target)
    host = {f[1:] for f in llvm.get_host_cpu_features().flatten().split(",") if f[0] == "+"}
    some = sorted(host)[:2]
    assert codegen.target_has_features(some)
    assert not codegen.target_has_features("not-a-cpu-feature")
