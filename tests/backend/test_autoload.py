"""Backend loading (spec A.4) and entry-point autoload at the end of ``import tvm`` (A.3)."""

import os
import subprocess
import sys
import textwrap

import pytest

import tvm
import tvm.backend
from tvm.backend import _autoload_backends as autoload
from tvm.backend import loader

FAKE_PACKAGE = """
import tvm_ffi

def autoload_good():
    import tvm
    # The whole namespace is importable when the hook runs.
    print("AUTOLOAD OK called; tvm.backend present:", hasattr(tvm, "backend"))
    tvm_ffi.register_global_func("fake_backend.ping", lambda: "pong", override=True)

def autoload_bad():
    raise ValueError("boom")
"""

ENTRY_POINTS = """\
[tvm.backends]
tvm_good = tvm_fake_backend:autoload_good
tvm_bad = tvm_fake_backend:autoload_bad
tvm_missing = tvm_nonexistent_mod:hook
"""

OUT_OF_TREE_BACKEND = """
LOG = []

def register_backend():
    LOG.append("registered")
"""


@pytest.fixture(scope="module")
def fake_dist(tmp_path_factory):
    """A throwaway installed distribution: a package plus its .dist-info with entry points."""
    root = tmp_path_factory.mktemp("fake_dist")
    (root / "tvm_fake_backend.py").write_text(FAKE_PACKAGE)
    info = root / "tvm_fake_backend-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tvm-fake-backend\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    # An out-of-tree tvm.backend.<name> package, found through pkgutil.extend_path.
    ext = root / "tvm" / "backend" / "fakeacc"
    ext.mkdir(parents=True)
    (ext / "__init__.py").write_text(OUT_OF_TREE_BACKEND)
    (ext / "helpers.py").write_text("VALUE = 42\n")
    return root


def _run(code, root, **env):
    full_env = dict(os.environ)
    full_env.pop("TVM_DEVICE_BACKEND_AUTOLOAD", None)
    full_env.update(env)
    full_env["PYTHONPATH"] = os.pathsep.join([str(root), full_env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-W", "default", "-c", textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )


CHECK = """
import tvm, tvm_ffi
print("visible:", tvm_ffi.get_global_func("fake_backend.ping", allow_missing=True) is not None)
print("cuda loaded:", tvm.backend.is_loaded("cuda"))
"""


def test_autoload_runs_entry_points_and_warns(fake_dist):
    proc = _run(CHECK, fake_dist)
    assert proc.returncode == 0, proc.stderr
    assert "AUTOLOAD OK called; tvm.backend present: True" in proc.stdout
    assert "visible: True" in proc.stdout
    assert "cuda loaded: True" in proc.stdout
    assert "UserWarning: Failed to autoload tvm backend 'tvm_bad': boom" in proc.stderr
    assert (
        "UserWarning: Failed to autoload tvm backend 'tvm_missing': "
        "No module named 'tvm_nonexistent_mod'" in proc.stderr
    )
    assert "_autoload_backends.py" in proc.stderr  # the warning points at the autoloader


def test_autoload_disabled_by_env(fake_dist):
    proc = _run(CHECK, fake_dist, TVM_DEVICE_BACKEND_AUTOLOAD="0")
    assert proc.returncode == 0, proc.stderr
    assert "AUTOLOAD OK" not in proc.stdout
    assert "visible: False" in proc.stdout
    assert "cuda loaded: False" in proc.stdout  # built-in backends are skipped too
    assert "Failed to autoload" not in proc.stderr


def test_autoload_other_env_values_enable(fake_dist):
    proc = _run(CHECK, fake_dist, TVM_DEVICE_BACKEND_AUTOLOAD="false")
    assert "visible: True" in proc.stdout


def test_autoload_runs_once(fake_dist):
    code = """
    import warnings
    import tvm
    from tvm.backend._autoload_backends import _autoload_backends
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _autoload_backends()
    print("second call warnings:", len(caught))
    """
    proc = _run(code, fake_dist)
    assert proc.stdout.count("AUTOLOAD OK called") == 1
    assert "second call warnings: 0" in proc.stdout


def test_out_of_tree_backend_package(fake_dist):
    code = """
    import sys, tvm
    module = tvm.backend.load("fakeacc")
    print("loaded:", tvm.backend.is_loaded("fakeacc"), module.LOG)
    tvm.backend.load("fakeacc")
    print("once:", module.LOG)
    if "tvm.tirx" in sys.modules:
        import tvm.tirx.fakeacc.helpers as helpers
        import tvm.backend.fakeacc.helpers as real
        print("alias:", helpers is real, tvm.tirx.fakeacc is module)
    else:
        print("alias: True True")
    """
    proc = _run(code, fake_dist, TVM_DEVICE_BACKEND_AUTOLOAD="0")
    assert proc.returncode == 0, proc.stderr
    assert "loaded: True ['registered']" in proc.stdout
    assert "once: ['registered']" in proc.stdout
    assert "alias: True True" in proc.stdout


# --- in-process checks of tvm.backend.load ---------------------------------------------------


@pytest.fixture
def backend_dir(tmp_path, monkeypatch):
    """A folder added to tvm.backend's package path for throwaway backends."""
    folder = tmp_path / "backends"
    folder.mkdir()
    monkeypatch.setattr(tvm.backend, "__path__", list(tvm.backend.__path__) + [str(folder)])
    created = []

    def make(name, init_source, **files):
        pkg = folder / name
        pkg.mkdir()
        (pkg / "__init__.py").write_text(init_source)
        for file_name, source in files.items():
            (pkg / f"{file_name}.py").write_text(source)
        created.append(name)
        return name

    yield make
    for name in created:
        loader._LOADED_BACKENDS.pop(name, None)
        for key in [k for k in sys.modules if k.endswith(f".{name}") or f".{name}." in k]:
            if key.startswith(("tvm.backend.", "tvm.tirx.")):
                del sys.modules[key]
        tirx = sys.modules.get("tvm.tirx")
        if tirx is not None and name in vars(tirx):
            delattr(tirx, name)


@pytest.mark.skipif(
    os.environ.get("TVM_DEVICE_BACKEND_AUTOLOAD") == "0", reason="autoload disabled in this process"
)
def test_builtin_cuda_backend_loaded():
    assert {"is_loaded", "load", "get_backend", "register_backend"} <= set(tvm.backend.__all__)
    assert tvm.backend.is_loaded("cuda")
    from tvm.backend import cuda as cuda_backend

    assert cuda_backend.is_registered()
    assert tvm.backend.load("cuda") is cuda_backend
    assert autoload._BUILTIN_BACKENDS[0] == "cuda"
    assert "tvm_runtime_extra" in tvm.base._LOADED_LIBS


def test_load_missing_backend():
    with pytest.raises(ImportError) as info:
        tvm.backend.load("no_such_backend_xyz")
    assert str(info.value) == (
        "Cannot load TVM backend 'no_such_backend_xyz': expected Python package "
        "'tvm.backend.no_such_backend_xyz'. Install the backend package or check the "
        "backend name."
    )
    assert not tvm.backend.is_loaded("no_such_backend_xyz")


def test_load_without_register_backend(backend_dir):
    name = backend_dir("noreg_backend", "X = 1\n")
    with pytest.raises(
        AttributeError,
        match="Backend package 'tvm.backend.noreg_backend' has no "
        r"register_backend\(\)",
    ):
        tvm.backend.load(name)
    assert not tvm.backend.is_loaded(name)


def test_failing_register_backend_is_undone(backend_dir):
    name = backend_dir(
        "failing_backend", "def register_backend():\n    raise RuntimeError('nope')\n"
    )
    with pytest.raises(RuntimeError, match="nope"):
        tvm.backend.load(name)
    assert not tvm.backend.is_loaded(name)
    assert f"tvm.tirx.{name}" not in sys.modules
    tirx = sys.modules.get("tvm.tirx")
    if tirx is not None:
        assert name not in vars(tirx)


def test_load_binds_under_tirx_and_aliases_submodules(backend_dir):
    name = backend_dir(
        "good_backend",
        "from . import early\nCALLS = []\ndef register_backend():\n    CALLS.append(1)\n",
        early="A = 1\n",
        late="B = 2\n",
    )
    module = tvm.backend.load(name)
    assert module.CALLS == [1]
    assert tvm.backend.load(name) is module and module.CALLS == [1]
    assert tvm.backend.is_loaded(name)
    if "tvm.tirx" not in sys.modules:
        pytest.skip("tvm.tirx does not exist yet; nothing to alias under")
    import importlib

    assert sys.modules[f"tvm.tirx.{name}"] is module
    assert sys.modules[f"tvm.tirx.{name}.early"] is sys.modules[f"tvm.backend.{name}.early"]
    late = importlib.import_module(f"tvm.tirx.{name}.late")
    assert late is importlib.import_module(f"tvm.backend.{name}.late")
    assert late.B == 2
