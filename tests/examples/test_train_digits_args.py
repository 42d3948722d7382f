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
