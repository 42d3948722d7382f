"""tvm.testing.env: CUDA probes, checked with the fake driver and with no driver."""

import importlib.util
import sys
from pathlib import Path

import pytest

from tvm.testing import env

_FAKE_PATH = Path(__file__).parents[1] / "backend" / "cuda" / "fake_driver.py"
_FAKE_MODULE = "pytvm_tests_fake_cuda_driver"


def _fake_driver_module():
    module = sys.modules.get(_FAKE_MODULE)
    if module is None:
        spec = importlib.util.spec_from_file_location(_FAKE_MODULE, _FAKE_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[_FAKE_MODULE] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh_probe():
    from tvm.backend.cuda import driver

    env._cuda_compute_versions.cache_clear()
    driver.reset()
    yield
    env._cuda_compute_versions.cache_clear()
    driver.reset()


def test_probes_with_a_fake_h200(monkeypatch, fresh_probe):
    module = _fake_driver_module()
    module.install(monkeypatch, module.FakeCUDA(device_count=2))
    assert env.has_cuda()
    assert env.has_cuda_compute(9)
    assert env.has_cuda_compute(8, 6)
    assert not env.has_cuda_compute(10)
    assert env.has_cuda_compute(9, 0, exact=True)
    assert not env.has_cuda_compute(8, 0, exact=True)


def test_probes_without_driver(monkeypatch, fresh_probe):
    module = _fake_driver_module()
    module.install(monkeypatch, module.FakeCUDA(init_failure="dlopen"))
    assert not env.has_cuda()
    assert not env.has_cuda_compute(7)


def test_requires_cuda_driver_is_a_feature():
    import tvm.testing

    assert tvm.testing.requires_cuda_driver is env.requires_cuda_driver
    assert env.requires_cuda_driver.name == "cuda_driver"
