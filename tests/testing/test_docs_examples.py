"""The README's tour and the demo (README command 1) run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_blocks_run(capsys, tmp_path):
    if not README.exists():
        pytest.skip("README.md is not next to the tests (installed without the source tree)")
    text = README.read_text(encoding="utf-8")
    matches = list(re.finditer(r"```python\n(.*?)```", text, re.DOTALL))
    assert matches, "the README has no Python example"
    # The tour reads as one session: later blocks use names from earlier ones. Each block runs
    # from a file of its own, because TVMScript is parsed from the source file of the decorated
    # function or class (and README.md is not Python).
    namespace = {"__name__": "readme_tour"}
    for index, match in enumerate(matches):
        path = tmp_path / f"readme_block_{index}.py"
        path.write_text(match.group(1), encoding="utf-8")
        exec(compile(match.group(1), str(path), "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "(2, 3) float32 cpu:0" in out
    assert "42" in out
    assert "18.0 [1. 1. 1.]" in out


def test_readme_has_the_two_setup_commands():
    if not README.exists():
        pytest.skip("README.md is not next to the tests")
    text = README.read_text(encoding="utf-8")
    assert 'pip install -e ".[examples]" && python -m tvm.examples.train_digits' in text
    assert 'pip install -e ".[test,examples]" && python -m pytest -q -n 2' in text


def test_demo_runs(capsys):
    from tvm.examples import demo

    assert demo.main() == 0
    out = capsys.readouterr().out
    assert "All demo checks passed." in out
    assert "FAILED" not in out
