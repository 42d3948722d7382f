"""``train_digits --log-csv F`` writes the per-epoch numbers; ``--plot F`` saves the curves
(matplotlib, the ``plot`` extra; a missing matplotlib is a one-line error naming the extra)."""

import csv
import sys

import pytest

pytest.importorskip("sklearn")

from tvm.examples import train_digits


def test_log_csv_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    table, image = tmp_path / "history.csv", tmp_path / "loss.png"
    args = ["--epochs", "2", "--no-numpy", "--hidden", "16", "--quiet",
            "--log-csv", str(table), "--plot", str(image)]
    assert train_digits.main(args) == 0
    out = capsys.readouterr().out
    assert f"per-epoch numbers: {table}" in out
    assert f"loss and accuracy curves: {image}" in out
    with open(table, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == train_digits.HISTORY_COLUMNS
    assert [row[0] for row in rows[1:]] == ["1", "2"]
    for row in rows[1:]:
        loss, train_acc, heldout_acc = map(float, row[1:])
        assert loss > 0
        assert 0 <= train_acc <= 1 and 0 <= heldout_acc <= 1
    # Two epochs of Adam on the digits: clearly better than chance (10 classes).
    assert float(rows[2][3]) > 0.5
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_csv_numbers_match_the_printed_epochs(tmp_path, capsys):
    table = tmp_path / "h.csv"
    assert train_digits.main(["--epochs", "1", "--no-numpy", "--hidden", "16",
                              "--log-csv", str(table)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    # Not a terminal (pytest's capture): no tqdm bar, no compile spinner, no "\r" anywhere.
    assert "\r" not in out + captured.err
    assert "it/s" not in captured.err and "step/s" not in captured.err
    row = table.read_text(encoding="utf-8").splitlines()[1].split(",")
    assert (f"loss {float(row[1]):.4f} train accuracy {float(row[2]):.1%} held-out accuracy "
            f"{float(row[3]):.1%}") in out


def test_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(SystemExit) as info:
        train_digits.main(["--epochs", "1", "--plot", str(tmp_path / "x.png")])
    message = str(info.value.code)
    assert "--plot needs matplotlib" in message
    assert "pip install 'pytvm-compiler[plot]'" in message
    assert not (tmp_path / "x.png").exists()


def test_write_history_csv_columns(tmp_path):
    path = tmp_path / "t.csv"
    train_digits.write_history_csv(str(path), [(1, 2.0, 0.25, 0.5)])
    assert path.read_text(encoding="utf-8").splitlines() == [
        "epoch,loss,train_accuracy,heldout_accuracy", "1,2.000000,0.250000,0.500000"]
