"""``tvm.runtime.hooks``: what the runtime calls, registered by backends."""

import pytest

import tvm
from tvm.runtime import hooks


@pytest.fixture
def saved_hooks():
    before = dict(hooks._HOOKS)
    yield
    hooks._HOOKS.clear()
    hooks._HOOKS.update(before)


def test_llvm_backend_registers_the_runtime_hooks():
    # Registered by tvm.backend's import (the llvm backend), without compiling anything.
    assert {"parallel_launch_address", "num_threads", "text_module"} <= set(
        hooks.runtime_hooks())
    assert hooks.has_runtime_hook("num_threads")


def test_num_threads_goes_through_the_hook(saved_hooks):
    hooks.register_runtime_hook("num_threads", lambda: 7, override=True)
    assert tvm.runtime.num_threads() == 7


def test_registration_errors(saved_hooks):
    with pytest.raises(TypeError, match="runtime hook 'x.y' must be callable, got int"):
        hooks.register_runtime_hook("x.y", 3)
    hooks.register_runtime_hook("x.y", len)
    hooks.register_runtime_hook("x.y", len)  # the same function again is fine
    with pytest.raises(ValueError, match="runtime hook 'x.y' is already registered"):
        hooks.register_runtime_hook("x.y", abs)
    with pytest.raises(ValueError, match=r"no backend registered the runtime hook 'x.z' "
                                         r"\(registered: .*num_threads"):
        hooks.get_runtime_hook("x.z")
