"""``python -m tvm.examples.train_digits --target cuda`` without a GPU: it compiles, then stops
with one clear line; on the fake driver the whole training loop runs (launches only)."""

import pytest

from tvm.backend.cuda import driver
from tvm.backend.cuda.runtime_register import register_runtime

pytest.importorskip("sklearn", reason="train_digits needs scikit-learn's digits")

ARGS = ["--target", "cuda", "--epochs", "1", "--quiet", "--no-numpy"]


def test_no_driver_exits_with_one_clear_line(monkeypatch, fake_driver_module, capsys):
    from tvm.examples import train_digits

    fake_driver_module.install(monkeypatch, fake_driver_module.FakeCUDA(init_failure="dlopen"))
    register_runtime()
    try:
        assert train_digits.main(ARGS) == 1
    finally:
        driver.reset()
    captured = capsys.readouterr()
    assert "compile:" in captured.out  # the CUDA build itself works without a GPU
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("train_digits: error: no CUDA driver (libcuda.so.1) found; CUDA "
                           "source and cubins can still be built")
    assert "Traceback" not in captured.err


def test_training_loop_runs_on_the_fake_gpu(fake_cuda, fake_driver_module, monkeypatch,
                                            capsys):
    pytest.importorskip("tvm.s_tir.dlight", reason="needs the default GPU schedules")
    from tvm.backend.cuda.module import CUDAModuleImpl
    from tvm.examples import train_digits

    def fake_binary(impl):
        sizes = {"handle": 8, "int64": 8, "float64": 8}
        return fake_driver_module.make_image({
            name: [sizes.get(t, 4) for t in info["arg_types"]]
            for name, info in impl.function_info.items()})

    monkeypatch.setattr(CUDAModuleImpl, "binary", fake_binary)  # the fake cannot load cubins
    assert train_digits.main(ARGS) == 0
    out = capsys.readouterr().out
    assert "pytvm step:" in out and "held-out accuracy" in out
    # Every step of the epoch launched its kernels on the (fake) GPU.
    assert len(fake_cuda.launches) > 44 * 10
