"""Issue 22, defect 2: a misspelled or unusable ``-mcpu`` is a ValueError, not a process abort.

Before, ``Target("llvm -mcpu=skylak")`` was accepted and the first compile ended the process
("LLVM ERROR: 64-bit code requested on a subtarget that doesn't support it!", then a double
free). Compiles that could abort run in a child process here.
"""

import subprocess
import sys
import textwrap

import pytest

from tvm.target import Target
from tvm.target.kind import host_triple
from tvm.target.llvm_cpus import llvm_cpu_names, llvm_feature_names


def test_misspelled_cpu_suggests_the_closest_names():
    with pytest.raises(ValueError, match=r"-mcpu='skylak' is not a CPU LLVM knows.*'skylake'"):
        Target("llvm -mcpu=skylak")
    with pytest.raises(ValueError, match=r"'znver4'"):
        Target({"kind": "llvm", "mcpu": "znver44"})
    with pytest.raises(ValueError, match="none is close"):
        Target("llvm -mcpu=qqqqqqqqqq")


def test_misspelled_feature_is_rejected():
    with pytest.raises(ValueError, match=r"-mattr entry '\+avx513' is not a feature.*'avx512f'"):
        Target("llvm -mattr=+avx2,+avx513")


def test_valid_names_still_work():
    for cpu in ("skylake", "skylake-avx512", "znver4", "x86-64", "x86-64-v3", "generic"):
        assert Target(f"llvm -mcpu={cpu}").mcpu == cpu
    assert Target("llvm -mattr=+avx2,-fma").mattr == ("+avx2", "-fma")
    # Another architecture's CPUs are checked against that architecture's list.
    aarch64 = {"kind": "llvm", "mcpu": "cortex-a76", "mtriple": "aarch64-linux-gnu"}
    assert Target(aarch64).mcpu == "cortex-a76"
    with pytest.raises(ValueError, match="aarch64"):
        Target(dict(aarch64, mcpu="skylake"))


def test_name_lists_come_from_llvm():
    cpus = llvm_cpu_names(host_triple())
    features = llvm_feature_names(host_triple())
    assert cpus and features and "generic" in cpus
    if host_triple().startswith("x86_64"):
        assert {"skylake", "znver4", "x86-64"} <= cpus
        assert {"avx2", "avx512f", "fma"} <= features


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.mark.skipif(not host_triple().startswith("x86_64"), reason="x86-64 CPU names")
def test_compiling_for_a_bad_cpu_raises_instead_of_aborting():
    # 'skylak' (misspelled) and 'i686' (a known name, but a 32-bit CPU on an x86-64 triple:
    # LLVM ends the process building its subtarget) both raise ValueError, in Target() and
    # when the backend is handed the options directly.
    done = _child("""
        import tvm
        from tvm.backend.llvm import build_module
        from tvm.backend.llvm.target_machine import TargetOptions
        from tvm.backend.llvm.testing import elementwise_add_module
        for target in ("llvm -mcpu=skylak", "llvm -mcpu=i686"):
            try:
                tvm.target.Target(target)
            except ValueError as err:
                print("Target:", err)
        for cpu in ("skylak", "i686"):
            try:
                build_module(elementwise_add_module("add"), TargetOptions(cpu=cpu),
                             use_cache=False)
            except ValueError as err:
                print("build:", err)
        print("still alive")
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "still alive" in out
    assert out.count("Target: -mcpu='skylak' is not a CPU") == 1
    assert out.count("build: -mcpu='skylak' is not a CPU") == 1
    assert "Target: LLVM cannot generate code for -mcpu='i686'" in out
    assert "build: LLVM cannot generate code for -mcpu='i686'" in out
    assert "64-bit code requested" in out
