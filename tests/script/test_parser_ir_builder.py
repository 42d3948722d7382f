"""The IR builder used directly from Python, and the dialect registry of ``tvm.script``."""

import importlib
import sys

import pytest

import tvm
from tvm import relax
from tvm.script import ir_builder
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import ir as IB
from tvm.script.ir_builder import relax as RB


def _tensor(*shape):
    return relax.TensorType(list(shape), "float32")


def test_builder_makes_the_same_function_as_the_parser():
    with IRBuilder() as ib, RB.function():
        RB.func_name("main")
        x = RB.arg("x", _tensor(3))
        RB.func_ret_ty(_tensor(3))
        with RB.dataflow():
            y = RB.emit(relax.op.add(x, x))
            IRBuilder.name("y", y)
            z = RB.emit(relax.op.multiply(y, y))
            IRBuilder.name("z", z)
            RB.output(z)
        RB.func_ret_value(z)
    built = ib.get()

    parsed = tvm.script.from_source(
        '@R.function\ndef main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):\n'
        "    with R.dataflow():\n        y = R.add(x, x)\n        z = R.multiply(y, y)\n"
        "        R.output(z)\n    return z\n"
    )
    tvm.ir.assert_structural_equal(built, parsed)
    block = built.body.blocks[0]
    # R.output turned the already-emitted dataflow variable into an ordinary one, and its
    # use in the block's later bindings is rewritten too.
    assert type(block.bindings[1].var) is relax.Var
    assert type(block.bindings[0].var) is relax.DataflowVar
    assert built.body.body is block.bindings[1].var


def test_output_rewrites_later_uses_in_the_block():
    with IRBuilder() as ib, RB.function():
        RB.func_name("main")
        x = RB.arg("x", _tensor(3))
        with RB.dataflow():
            a = RB.emit(relax.op.add(x, x), name="a")
            b = RB.emit(relax.op.multiply(a, a), name="b")
            RB.output(a, b)
        RB.func_ret_value(relax.Tuple([a, b]))
    func = ib.get()
    first, second = func.body.blocks[0].bindings
    assert type(first.var) is relax.Var
    assert second.value.args[0] is first.var


def test_module_frame_with_decl_and_def():
    with IRBuilder() as ib, IB.ir_module():
        gv = IB.decl_function("helper")
        with RB.function():
            RB.func_name("helper")
            x = RB.arg("x", _tensor(2))
            RB.func_ret_value(x)
        IB.module_attrs({"k": "v"})
    mod = ib.get()
    assert isinstance(mod, tvm.ir.IRModule)
    assert mod.get_global_var("helper") is gv
    assert mod.attrs["k"] == "v"


def test_builder_errors():
    with pytest.raises(ValueError, match="No IRBuilder is active"):
        IRBuilder.current()
    with IRBuilder() as ib:
        with pytest.raises(ValueError, match="must be called inside R.function"):
            RB.func_name("x")
        with pytest.raises(ValueError, match="inside an I.ir_module"):
            IB.decl_function("f")
    with pytest.raises(ValueError, match="no result"):
        ib.get()
    with IRBuilder() as ib, RB.function():
        x = RB.arg("x", _tensor(2))
        with (
            pytest.raises(ValueError, match="Cannot create an IfFrame inside a dataflow"),
            RB.dataflow(),
            RB.If(x),
        ):
            pass
        with pytest.raises(ValueError, match="R.output must be called directly"):
            RB.output(x)
        RB.func_ret_value(x)


def test_declared_but_undefined_function_is_an_error():
    with IRBuilder(), pytest.raises(ValueError, match="never defined"), IB.ir_module():
        IB.decl_function("lost")


# --- the dialect registry --------------------------------------------------------------------


def test_dialect_spellings_resolve_to_the_same_modules():
    from tvm.script import relax as r1
    from tvm.script.parser import relax as r2

    assert r1 is r2 is importlib.import_module("tvm.script.relax")
    assert ir_builder.relax is RB
    assert importlib.import_module("tvm.script.ir_builder.relax") is RB
    from tvm.script import ir as I
    from tvm.script import tirx as T

    assert I.ir_module is importlib.import_module("tvm.script.parser.ir").ir_module
    assert T.int64(3).value == 3


def test_register_dialect_with_alias_finder(tmp_path, monkeypatch):
    pkg = tmp_path / "mydialect_pkg"
    (pkg / "parser").mkdir(parents=True)
    (pkg / "builder").mkdir()
    (pkg / "__init__.py").write_text("NAME = 'pkg'\n")
    (pkg / "parser" / "__init__.py").write_text("NAME = 'parser'\n")
    (pkg / "builder" / "__init__.py").write_text("NAME = 'builder'\n")
    (pkg / "extra.py").write_text("NAME = 'extra'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    tvm.script.register_dialect("mydialect", "mydialect_pkg")
    try:
        from tvm.script import mydialect

        assert mydialect.NAME == "pkg"
        assert importlib.import_module("tvm.script.mydialect").NAME == "pkg"
        assert importlib.import_module("tvm.script.mydialect.extra").NAME == "extra"
        assert importlib.import_module("tvm.script.parser.mydialect").NAME == "parser"
        assert importlib.import_module("tvm.script.ir_builder.mydialect").NAME == "builder"
        assert "mydialect" in tvm.script.registered_dialects()
    finally:
        tvm.script._DIALECTS.pop("mydialect")
        for name in list(sys.modules):
            if "mydialect" in name:
                del sys.modules[name]


def test_unknown_dialect():
    with pytest.raises(ImportError, match="No TVMScript dialect named 'nope'"):
        tvm.script.dialect_module("nope")
    with pytest.raises(AttributeError):
        tvm.script.nope  # noqa: B018


def test_if_frames_from_python():
    with IRBuilder() as ib, RB.function():
        RB.func_name("main")
        x = RB.arg("x", _tensor(3))
        c = RB.arg("c", relax.TensorType((), "bool"))
        with RB.If(c) as if_frame:
            with RB.Then():
                RB.emit(relax.op.multiply(x, x), name="y")
            with RB.Else():
                RB.emit(x, name="y")
        RB.func_ret_value(if_frame.var)
    built = ib.get()

    parsed = tvm.script.from_source(
        '@R.function\ndef main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):\n'
        "    if c:\n        y = R.multiply(x, x)\n    else:\n        y = x\n    return y\n"
    )
    tvm.ir.assert_structural_equal(built, parsed)
    (binding,) = built.body.blocks[0].bindings
    assert binding.var.name_hint == "y" and isinstance(binding.value, relax.If)


def test_emit_match_cast_and_var_binding_from_python():
    with IRBuilder() as ib, RB.function():
        RB.func_name("main")
        x = RB.arg("x", relax.TensorType(ndim=1, dtype="float32"))
        m = tvm.tirx.Var("m", "int64")
        y = RB.emit_match_cast(x, relax.TensorType([m], "float32"), name="y")
        z = relax.Var("z", y.ty)
        RB.emit_var_binding(relax.VarBinding(z, y))
        RB.func_ret_value(z)
    func = ib.get()
    cast, alias = func.body.blocks[0].bindings
    assert isinstance(cast, relax.MatchCast) and cast.ty.shape.values[0] is m
    assert alias.var is z and alias.value is y
