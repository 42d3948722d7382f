"""The documentation builds without warnings, its guide's code runs, and it names every
environment variable the source reads."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUNNABLE_PAGES = sorted(p for p in (DOCS / "guide").glob("*.md")
                        if "```python" in p.read_text(encoding="utf-8"))


def test_sphinx_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(tmp_path / "html")],
        capture_output=True, encoding="utf-8", errors="replace", timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "html" / "guide" / "first_model.html").is_file()
    assert (tmp_path / "html" / "api" / "autodiff.html").is_file()


def test_the_guide_has_runnable_pages():
    assert {"installing", "first_model", "debugging"} <= {p.stem for p in RUNNABLE_PAGES}


@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=[p.stem for p in RUNNABLE_PAGES])
def test_guide_code_runs(page, tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    if page.stem == "gpu" and shutil.which("nvcc") is None:
        pytest.skip("the GPU page compiles CUDA with nvcc")
    script = tmp_path / f"{page.stem}.py"  # a file: TVMScript is parsed from source text
    script.write_text("\n".join(blocks), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, encoding="utf-8", errors="replace",
                          cwd=tmp_path, timeout=900, check=False)
    assert proc.returncode == 0, f"{page.name}:\n{proc.stderr}"
    assert proc.stdout.strip(), f"{page.name} printed nothing"


_ENV_READ = re.compile(
    r"""(?:environ(?:\.get)?\(\s*|environ\[\s*|getenv\(\s*)["']([A-Z][A-Z0-9_]+)["']""")


def test_environment_page_names_every_variable_read():
    page = (DOCS / "guide" / "environment.md").read_text(encoding="utf-8")
    read = {name for path in (ROOT / "src" / "tvm").rglob("*.py")
            for name in _ENV_READ.findall(path.read_text(encoding="utf-8"))}
    assert "PYTVM_CACHE_DIR" in read  # the pattern finds what it is meant to
    missing = sorted(name for name in read if f"`{name}`" not in page)
    assert not missing, f"docs/guide/environment.md does not list {missing}"
