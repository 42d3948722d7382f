"""The annotated public API passes ``mypy --strict`` (the ``[tool.mypy]`` section of
pyproject.toml names the files), and the package ships ``py.typed`` (PEP 561)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tvm

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

#: The public API issue 23 asks to be annotated, and where each lives.
PUBLIC_API = {
    "tvm.compile": "src/tvm/driver/build_module.py",
    "relax.build": "src/tvm/driver/relax_build.py",
    "relax.build (re-export)": "src/tvm/relax/vm_build.py",
    "relax.VirtualMachine": "src/tvm/relax/vm/machine.py",
    "runtime.Tensor": "src/tvm/runtime/tensor.py",
    "target.Target": "src/tvm/target/target.py",
    "ir.IRModule": "src/tvm/ir/module.py",
    "transform.Pass": "src/tvm/ir/transform.py",
    "relax.BlockBuilder": "src/tvm/relax/block_builder.py",
}


def _pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(PYPROJECT, "rb") as f:
        return tomllib.load(f)


def _mypy_config():
    return _pyproject()["tool"]["mypy"]


def test_py_typed_is_shipped():
    assert (Path(tvm.__file__).parent / "py.typed").is_file()
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["tvm"]


def test_config_checks_the_public_api_strictly():
    config = _mypy_config()
    assert config["strict"] is True
    assert sorted(config["files"]) == sorted(PUBLIC_API.values())
    for path in config["files"]:
        assert (ROOT / path).is_file(), path


#: Code as a user writes it; mypy must accept it (no untyped calls either) and infer these
#: types.
USER_CODE = """\
import numpy as np
import tvm
from tvm import arith, relax, s_tir, te, tirx, topi
from tvm.arith import Analyzer
from tvm.relax.op import matmul
from tvm.relax.op import nn as relax_nn
from tvm.relax.transform import FuseOps, LegalizeOps
from tvm.s_tir import Schedule
from tvm.target import Target
from tvm.tirx import stmt as S
from tvm.tirx.expr_functor import ExprMutator
from tvm.tirx.stmt_functor import StmtExprVisitor, StmtMutator, post_order_visit
from tvm.topi import exp

n = te.var("n")
A = te.placeholder((4,), name="A")
B = te.compute((4,), lambda i: A[i] + tirx.const(1.0, "float32"), name="B")
ex = tvm.compile(te.create_prim_func([A, B]), target=Target("llvm"))
reveal_type(ex)
sch = Schedule(te.create_prim_func([A, topi.sum(exp(A), axis=0)]))
reveal_type(sch)
reveal_type(arith.ConstIntBound(0, 1))
reveal_type(s_tir.SBlockRV)
reveal_type(Analyzer().simplify(n + 0))


class CountLoops(StmtExprVisitor):
    def __init__(self) -> None:
        self.loops = 0

    def visit_for_(self, op: S.For) -> None:
        self.loops += 1
        super().visit_for_(op)


class KeepLoops(StmtMutator):
    def visit_for_(self, op: S.For) -> S.Stmt:
        return super().visit_for_(op)


class ZeroVars(ExprMutator):
    def visit_var_(self, op: tirx.Var) -> tirx.PrimExpr:
        return tirx.const(0, op.dtype)


body = te.create_prim_func([A, B]).body
CountLoops().visit_stmt(body)
reveal_type(KeepLoops().visit_stmt(body))
reveal_type(ZeroVars().visit_expr(n + 1))
post_order_visit(body, lambda node: None)
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorType([3], "float32"))
with bb.function("main", [x]):
    y = bb.emit(relax.op.add(x, x))
    reveal_type(y)
    z = bb.emit(relax_nn.softmax(matmul(y, y)))
    w = bb.emit(relax.op.mean(relax.op.exp(relax.op.subtract(z, y)), axis=0))
    bb.emit_func_output(w)
mod = bb.get()
reveal_type(mod)
reveal_type(LegalizeOps())
mod = tvm.transform.Sequential([LegalizeOps(), FuseOps(fuse_opt_level=2)])(mod)
vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
reveal_type(vm["main"])
t = tvm.runtime.tensor(np.zeros(3, "float32"))
reveal_type(t)
with tvm.transform.PassContext(opt_level=3) as ctx:
    reveal_type(ctx)
"""

REVEALED = [
    "tvm.runtime.executable.Executable",
    "tvm.s_tir.schedule.schedule.Schedule",
    "tvm.arith.bound.ConstIntBound",
    "def () -> tvm.s_tir.schedule.base.SBlockRV",
    "tvm.ir.expr.PrimExpr",
    "tvm.tirx.stmt.Stmt",
    "Any",
    "tvm.relax.expr.Var",
    "tvm.ir.module.IRModule",
    "tvm.ir.transform.ModulePass",
    "def (*Any, **Any) -> Any",
    "tvm.runtime.tensor.Tensor",
    "tvm.ir.transform.PassContext",
]


def _run_mypy(args, cwd, env):
    env = dict(env, MYPY_FORCE_COLOR="0")
    env.pop("MYPYPATH", None)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True,
        encoding="utf-8", env=env, timeout=600, check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_mypy_strict_passes_on_the_public_api(tmp_path):
    pytest.importorskip("mypy")
    # --strict again on the command line: the config cannot switch it off by accident.
    rc, report = _run_mypy(
        ["--strict", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
         *PUBLIC_API.values()], ROOT, os.environ)
    assert rc == 0, f"mypy --strict found problems:\n{report}"
    assert not report.strip(), report


def test_mypy_strict_passes_on_user_code(tmp_path):
    """A user's file, checked as in the user's own project: plain ``mypy --strict``, none of
    our settings (an empty config file, run outside the repository), ``tvm`` found on the
    import path as an installed package is (``py.typed``), not as source under check."""
    pytest.importorskip("mypy")
    user_code = tmp_path / "user_code.py"
    user_code.write_text(USER_CODE, encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    rc, report = _run_mypy(
        ["--strict", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", str(user_code)],
        tmp_path, dict(os.environ, PYTHONPATH=path))
    # `does not explicitly export` here means a package __init__ lacks the name in __all__.
    assert rc == 0, f"mypy --strict found problems in user code:\n{report}"
    lines = report.strip().splitlines()
    problems = [line for line in lines if "Revealed type is" not in line]
    assert not problems, report
    revealed = [line.split('Revealed type is "', 1)[1].rstrip('"') for line in lines]
    assert revealed == REVEALED


def test_config_has_no_reexport_override():
    """Users need no override: the packages list their exports (``__all__``/``X as X``)."""
    for override in _mypy_config().get("overrides", []):
        assert "implicit_reexport" not in override, override


#: Packages whose public names are listed in ``__all__`` (``tvm`` itself uses ``X as X``).
EXPORTING_PACKAGES = ["tvm.relax", "tvm.runtime", "tvm.te", "tvm.ir", "tvm.target", "tvm.tirx",
                      "tvm.script", "tvm.driver", "tvm.topi", "tvm.arith", "tvm.s_tir",
                      "tvm.relax.op", "tvm.relax.transform"]


@pytest.mark.parametrize("name", EXPORTING_PACKAGES)
def test_all_lists_every_public_name(name):
    """Every name in ``__all__`` resolves, and every public non-module name a package holds
    after ``import tvm`` and first use is in its ``__all__`` (nothing reachable is unlisted)."""
    import importlib
    import types

    tvm.IRModule  # noqa: B018 - first use: loads the compiler layers
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), name
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not provide: {missing}"
    ignored = {"annotations", "TYPE_CHECKING"}  # `from __future__`/`typing` helpers
    unlisted = sorted(
        n for n, value in vars(module).items()
        if not n.startswith("_") and n not in ignored and n not in exported
        and not isinstance(value, types.ModuleType)
    )
    assert not unlisted, f"{name} provides names not in __all__: {unlisted}"


def test_tvm_reexports_are_explicit():
    """``tvm/__init__.py`` re-exports each public name as ``X as X`` (no ``__all__``, so that
    ``from tvm import *`` keeps not loading the compiler layers)."""
    import ast

    def module_level(body):  # statements that bind module names (not function bodies)
        for node in body:
            yield node
            if isinstance(node, (ast.If, ast.Try)):
                yield from module_level(node.body + node.orelse)

    tree = ast.parse((ROOT / "src/tvm/__init__.py").read_text(encoding="utf-8"))
    implicit = [
        alias.name for node in module_level(tree.body) if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if not (alias.asname or alias.name).startswith("_") and alias.asname != alias.name
    ]
    assert not implicit, f"tvm/__init__.py re-exports without `as`: {implicit}"
    for name in ("compile", "build", "IRModule", "transform", "cpu", "cuda", "device",
                 "Device", "runtime", "relax", "te", "tirx", "DataType", "__version__"):
        assert hasattr(tvm, name), name


def test_annotations_are_visible_to_users():
    """The signatures carry the types (what an editor or mypy in user code sees)."""
    import inspect

    from tvm import relax
    from tvm.runtime import Tensor

    assert inspect.signature(tvm.compile).return_annotation != inspect.Signature.empty
    assert "TargetLike" in str(inspect.signature(tvm.compile).parameters["target"].annotation)
    assert inspect.signature(relax.BlockBuilder.emit).return_annotation == "Var"
    assert inspect.signature(Tensor.numpy).return_annotation == "np.ndarray"
    assert inspect.signature(relax.VirtualMachine.__getitem__).return_annotation \
        == "Callable[..., Any]"


def _type_checking_defs(path):
    """``{name: ast.FunctionDef}`` of the functions declared in ``if TYPE_CHECKING:`` blocks."""
    import ast

    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            found.update((d.name, d) for d in node.body if isinstance(d, ast.FunctionDef))
    return found


def _stub_parameters(stub):
    """``[(name, kind, default)]`` of a stub, in the terms of ``inspect.Parameter``."""
    import ast
    import inspect

    args = stub.args
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults]
    out = [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, d)
           for a, d in zip(positional, defaults)]
    out += [(a.arg, inspect.Parameter.KEYWORD_ONLY,
             inspect.Parameter.empty if d is None else ast.literal_eval(d))
            for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return out


def _runtime_parameters(obj):
    import inspect

    params = list(inspect.signature(obj).parameters.values())
    if [p.kind for p in params] == [inspect.Parameter.VAR_POSITIONAL,
                                    inspect.Parameter.VAR_KEYWORD]:
        return []  # a pass class without __init__ of its own: it takes no arguments
    return [(p.name, p.kind, p.default) for p in params]


#: Modules whose public objects a type checker cannot see as they are (made in a loop through
#: ``globals()``, or classes under ``@module_pass``): they declare them for the checker in an
#: ``if TYPE_CHECKING:`` block.
STUBBED_MODULES = ["tvm.relax.op.binary", "tvm.relax.op.unary", "tvm.relax.op.statistical",
                   "tvm.relax.transform"]


@pytest.mark.parametrize("name", STUBBED_MODULES)
def test_type_checking_declarations_match_the_objects(name):
    """Each declaration names an object the module has at run time, with the same parameters
    (names, kinds, defaults), and no generated object is left undeclared."""
    import ast
    import importlib
    import inspect

    from tvm.ir.transform import Pass

    module = importlib.import_module(name)
    stubs = _type_checking_defs(module.__file__)
    assert stubs, name
    for stub_name, stub in stubs.items():
        assert stub_name in module.__all__, f"{name}.{stub_name} is declared but not exported"
        assert _stub_parameters(stub) == _runtime_parameters(getattr(module, stub_name)), \
            f"{name}.{stub_name}: the declaration's parameters differ from the object's"
    # What a checker would otherwise miss: functions of this module made other than by a
    # plain ``def``, and classes turned into passes by ``@module_pass``.
    source = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    plain = {node.name for node in source.body if isinstance(node, ast.FunctionDef)}

    def hidden(obj):
        if inspect.isfunction(obj):
            return obj.__module__ == module.__name__
        return (isinstance(obj, type) and issubclass(obj, Pass)
                and obj.__name__ not in ("FunctionPass", "DataflowBlockPass"))

    unseen = sorted(n for n in module.__all__
                    if n not in stubs and n not in plain and hidden(getattr(module, n)))
    assert not unseen, f"{name}: objects a type checker cannot see, without a declaration: {unseen}"
