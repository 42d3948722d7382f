"""The README's tour and the demo (README command 1) run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_blocks_run(capsys):
    if not README.exists():
        pytest.skip("README.md is not next to the tests (installed without the source tree)")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, "the README has no Python example"
    # The tour reads as one session: later blocks use names from earlier ones.
    namespace = {"__name__": "readme_tour"}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "(2, 3) float32 cpu:0" in out
    assert "42" in out


def test_readme_has_the_two_setup_commands():
    if not README.exists():
        pytest.skip("README.md is not next to the tests")
    text = README.read_text(encoding="utf-8")
    assert "python -m tvm.examples.demo" in text
    assert 'pip install -e ".[test]" && python -m pytest -q -n 2' in text


def test_demo_runs(capsys):
    from tvm.examples import demo

    assert demo.main() == 0
    out = capsys.readouterr().out
    assert "All demo checks passed." in out
    assert "FAILED" not in out
