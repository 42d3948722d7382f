"""``python -m tvm.examples.train_digits`` rejects bad numbers with a usage error (exit 2)
naming the flag, never a crash deep inside (``--batch-size 0`` was a ZeroDivisionError)."""

import pytest

pytest.importorskip("sklearn")

from tvm.examples import train_digits


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--batch-size", "0"], "argument --batch-size: must be greater than 0, got 0"),
        (["--batch-size", "x"], "argument --batch-size: expected an integer, got 'x'"),
        (["--epochs", "-2"], "argument --epochs: must be greater than 0, got -2"),
        (["--hidden", "0"], "argument --hidden: must be greater than 0"),
        (["--lr", "0"], "argument --lr/--learning-rate: must be greater than 0"),
        (["--lr", "fast"], "expected a number, got 'fast'"),
        (["--batch-size", "5000"], "--batch-size 5000 is larger than the 1437 training images"),
    ],
)
def test_bad_numbers_are_usage_errors(args, words, capsys):
    with pytest.raises(SystemExit) as info:
        train_digits.main(args)
    assert info.value.code == 2
    assert words in capsys.readouterr().err


def test_no_carriage_returns_into_a_pipe(capsys):
    """Output that is not a terminal (a pipe, a log, pytest's capture) gets one line per epoch
    and no "\\r" redraws."""
    assert train_digits.main(["--epochs", "1", "--no-numpy", "--hidden", "16"]) == 0
    out = capsys.readouterr().out
    assert "\r" not in out
    assert out.count("epoch  1/1 [########################] loss") == 1


def test_device_target_without_its_device_says_what_is_missing(capsys):
    """``--target cuda`` on a machine without CUDA: exit 1 with one line naming the missing
    piece (the cuda-bindings package and its extra, or the driver), no traceback."""
    from tvm.backend.cuda import driver

    try:
        driver.get_driver()
    except RuntimeError:
        pass
    else:
        pytest.skip("this machine has a CUDA driver")
    assert train_digits.main(["--target", "cuda", "--epochs", "1", "--no-numpy",
                              "--hidden", "8", "--batch-size", "64"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("train_digits: error: ")
    assert "Traceback" not in err
    assert ("pytvm-compiler[cuda]" in err) or ("no CUDA driver (libcuda.so.1) found" in err)
