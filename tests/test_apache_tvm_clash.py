"""``import tvm`` refuses an environment that also holds Apache TVM (both are ``tvm``)."""

from __future__ import annotations

import os
import subprocess
import sys


def _import_tvm_with(path_entry):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [p for p in [*sys.path, str(path_entry)] if p and os.path.isdir(p)]
    )
    return subprocess.run([sys.executable, "-c", "import tvm"], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def test_apache_tvm_dist_info_on_the_path_is_an_import_error(tmp_path):
    (tmp_path / "apache_tvm-0.27.0.dist-info").mkdir()
    proc = _import_tvm_with(tmp_path)
    assert proc.returncode == 1
    assert "ImportError: Apache TVM (apache_tvm-0.27.0.dist-info in" in proc.stderr
    assert "Use separate virtual environments" in proc.stderr


def test_clean_environment_imports(tmp_path):
    (tmp_path / "apache_tvm_helpers").mkdir()  # a similar name is not the distribution
    proc = _import_tvm_with(tmp_path)
    assert proc.returncode == 0, proc.stderr
