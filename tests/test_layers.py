"""The layer rule of DESIGN.md section 3: a module imports only its own layer or lower ones.

Two checks, both skipping layers that do not exist yet:

* dynamic: each layer package is imported in a fresh interpreter *without* running
  ``tvm/__init__.py`` (a bare ``tvm`` package object stands in for it), and no module of a
  higher layer may end up in ``sys.modules``;
* static: every module-level ``import`` in ``src/tvm`` (function bodies are lazy imports,
  allowed; ``if TYPE_CHECKING:`` blocks never run) must target the same or a lower layer;
* the compile spine (``docs/arch/layout.md``): ``runtime``, ``tirx`` and ``relax`` never import
  ``tvm.backend`` at module level, and never name a backend package (``tvm.backend.llvm``...)
  in any import, lazy or not: they reach backends through tables (``tvm.runtime.hooks``, the
  backend table's ``get_backend``/``find_backend``).
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tvm

TVM_DIR = Path(tvm.__file__).resolve().parent

#: Rank of each layered package, bottom to top. The foundation modules sit with ffi.
LAYERS = {
    "ffi": 0,
    "base": 0,
    "libinfo": 0,
    "error": 0,
    "runtime": 1,
    "ir": 2,
    "target": 2,
    "arith": 3,
    "sym": 3,  # TVM 0.27's name for arith (a re-export package)
    "tirx": 4,
    "s_tir": 5,
    "te": 5,
    "topi": 6,
    "relax": 7,
    "script": 8,
    "backend": 9,
    "driver": 10,
}
PACKAGES = [
    "ffi",
    "runtime",
    "ir",
    "target",
    "arith",
    "sym",
    "tirx",
    "s_tir",
    "te",
    "topi",
    "relax",
    "script",
    "backend",
    "driver",
]


def layer_of(module_name):
    """Rank of ``tvm.<pkg>...`` or None for modules outside the layered packages."""
    parts = module_name.split(".")
    if parts[0] != "tvm" or len(parts) < 2:
        return None
    return LAYERS.get(parts[1])


def test_layer_of():
    assert layer_of("tvm.relax.expr") == 7
    assert layer_of("tvm.ffi") == 0
    assert layer_of("tvm") is None
    assert layer_of("tvm.testing.utils") is None
    assert layer_of("numpy") is None


FRESH_IMPORT = """
import importlib, json, sys, types
pkg = types.ModuleType("tvm")
pkg.__path__ = [{tvm_dir!r}]
pkg.__file__ = {init!r}
sys.modules["tvm"] = pkg
importlib.import_module("tvm.{name}")
print(json.dumps(sorted(m for m in sys.modules if m.startswith("tvm."))))
"""


@pytest.mark.parametrize("name", PACKAGES)
def test_fresh_import_loads_no_higher_layer(name):
    if not (TVM_DIR / name).is_dir() and not (TVM_DIR / f"{name}.py").exists():
        pytest.skip(f"tvm.{name} does not exist yet")
    code = FRESH_IMPORT.format(tvm_dir=str(TVM_DIR), init=str(TVM_DIR / "__init__.py"), name=name)
    env = dict(os.environ, TVM_DEVICE_BACKEND_AUTOLOAD="0")
    proc = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, f"importing tvm.{name} alone failed:\n{proc.stderr}"
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    rank = LAYERS[name]
    higher = [m for m in loaded if (layer_of(m) or -1) > rank]
    assert not higher, f"importing tvm.{name} (layer {rank}) loaded higher layers: {higher}"


def _module_name(path: Path) -> str:
    rel = path.relative_to(TVM_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(tree):
    """Import nodes executed at import time: module body, class bodies, if/try/with blocks."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue  # lazy imports inside functions are the allowed exception
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                stack.extend(node.body)
            stack.extend(node.orelse)
        elif isinstance(node, ast.ClassDef):
            stack.extend(node.body)
        elif isinstance(node, (ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)


def _targets(node, module_name, is_package):
    """Absolute names a module-level import statement brings in."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module_name if is_package else module_name.rpartition(".")[0]
        parts = package.split(".")
        base_parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def _static_violations():
    violations = []
    for path in sorted(TVM_DIR.rglob("*.py")):
        module_name = _module_name(path)
        own = layer_of(module_name)
        if own is None:
            continue  # tvm/__init__.py, tvm.testing, tvm.examples: above every layer
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _module_level_imports(tree):
            for target in _targets(node, module_name, path.name == "__init__.py"):
                rank = layer_of(target)
                if rank is not None and rank > own:
                    violations.append(
                        f"{path.relative_to(TVM_DIR)}:{node.lineno} imports "
                        f"{target} (layer {rank} > {own})"
                    )
    return violations


def test_static_imports_respect_layers():
    violations = _static_violations()
    assert not violations, "module-level imports of higher layers:\n" + "\n".join(violations)


def test_static_checker_catches_violation(tmp_path):
    # The checker's own logic on a synthetic module: tvm.ir importing tvm.relax at top level.
    source = "from ..relax import expr\nimport tvm.script\ndef f():\n    from .. import relax\n"
    tree = ast.parse(source)
    found = [
        t
        for node in _module_level_imports(tree)
        for t in _targets(node, "tvm.ir.module", False)
        if (layer_of(t) or -1) > 2
    ]
    # The function-level import is not counted: "tvm.relax" appears once (the base of line 1).
    assert sorted(found) == ["tvm.relax", "tvm.relax.expr", "tvm.script"]


#: Packages below the backends that reach them only through tables.
SPINE_CLIENTS = ("runtime", "tirx", "relax")


def _all_imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _spine_violations():
    violations = []
    for package in SPINE_CLIENTS:
        for path in sorted((TVM_DIR / package).rglob("*.py")):
            module_name = _module_name(path)
            is_package = path.name == "__init__.py"
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            module_level = {id(node) for node in _module_level_imports(tree)}
            for node in _all_imports(tree):
                for target in _targets(node, module_name, is_package):
                    if not (target == "tvm.backend" or target.startswith("tvm.backend.")):
                        continue
                    where = f"{path.relative_to(TVM_DIR)}:{node.lineno} imports {target}"
                    if id(node) in module_level:
                        violations.append(where + " at module level")
                    elif target.split(".")[2:3] and target.split(".")[2] not in (
                        "get_backend", "find_backend", "HOST_KIND"
                    ):
                        violations.append(where + " (a backend package, not the table)")
    return violations


def test_runtime_tirx_relax_reach_backends_only_through_tables():
    violations = _spine_violations()
    assert not violations, "imports of tvm.backend from below it:\n" + "\n".join(violations)


def test_spine_checker_catches_violations(tmp_path, monkeypatch):
    # The checker on a synthetic package tree: a module-level table import and a lazy import
    # of a backend package are both reported; a lazy table lookup is not.
    fake = tmp_path / "tvm"
    (fake / "runtime").mkdir(parents=True)
    (fake / "tirx").mkdir()
    (fake / "relax").mkdir()
    (fake / "runtime" / "bad.py").write_text(
        "from ..backend import get_backend\n"
        "def f():\n    from ..backend.llvm import threadpool\n"
        "def g():\n    from ..backend import find_backend\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "TVM_DIR", fake)
    found = _spine_violations()
    assert found == [
        "runtime/bad.py:1 imports tvm.backend.get_backend at module level",
        "runtime/bad.py:1 imports tvm.backend at module level",
        "runtime/bad.py:3 imports tvm.backend.llvm.threadpool (a backend package, not the table)",
        "runtime/bad.py:3 imports tvm.backend.llvm (a backend package, not the table)",
    ]
