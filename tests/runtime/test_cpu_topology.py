"""tvm.runtime.cpu_topology: thread count, CPU order for pinning, L2 size."""

import os

import pytest

from tvm.runtime import cpu_topology


def test_cpu_order_covers_the_affinity_mask():
    cores, cpus = cpu_topology.cpu_order()
    assert 1 <= cores <= len(cpus)
    if hasattr(os, "sched_getaffinity"):
        assert sorted(cpus) == sorted(os.sched_getaffinity(0))
        assert len(set(cpus)) == len(cpus)


@pytest.mark.parametrize("value, expected", [("3", 3), ("5000", 1024), ("0", None),
                                             ("two", None), ("", None)])
def test_default_num_threads_reads_tvm_num_threads(monkeypatch, value, expected):
    monkeypatch.setenv("TVM_NUM_THREADS", value)
    cores = cpu_topology.cpu_order()[0]
    assert cpu_topology.default_num_threads() == (expected if expected else min(1024, cores))


def test_l2_cache_bytes_is_a_plausible_size():
    size = cpu_topology.l2_cache_bytes()
    assert 64 << 10 <= size <= 1 << 30
