"""The ``fake_cuda`` fixture: a fake ``cuda.bindings.driver`` (see fake_driver.py)."""

import importlib.util
import sys
from pathlib import Path

import pytest

_FAKE_PATH = Path(__file__).with_name("fake_driver.py")
_FAKE_MODULE = "pytvm_tests_fake_cuda_driver"


def load_fake_driver():
    """The fake_driver module (loaded once by path: tests use --import-mode=importlib)."""
    module = sys.modules.get(_FAKE_MODULE)
    if module is None:
        spec = importlib.util.spec_from_file_location(_FAKE_MODULE, _FAKE_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[_FAKE_MODULE] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_driver_module():
    return load_fake_driver()


@pytest.fixture
def fake_cuda(monkeypatch):
    """A fake driver with one H200, installed as cuda.bindings.driver, with the CUDA
    runtime registered; the driver wrapper is reset afterwards."""
    from tvm.backend.cuda import driver
    from tvm.backend.cuda.runtime_register import register_runtime

    fake_driver = load_fake_driver()
    fake = fake_driver.install(monkeypatch, fake_driver.FakeCUDA())
    register_runtime()
    yield fake
    driver.reset()
