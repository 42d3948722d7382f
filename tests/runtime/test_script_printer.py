"""tvm.runtime.script_printer: PrinterConfig objects and printing with them."""

import pytest
from tvm_ffi.access_path import AccessPath

import tvm
from tvm import relax, tirx
from tvm.runtime.script_printer import PrinterConfig, _relax_script, _script


def _func():
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    return relax.Function([x], x).with_attr("global_symbol", "main")


def test_script_with_config_matches_script_options():
    func = _func()
    cfg = PrinterConfig(indent_spaces=2, print_line_numbers=True)
    assert _script(func, cfg) == func.script(indent_spaces=2, print_line_numbers=True)
    assert "  return x" in _script(func, PrinterConfig(indent_spaces=2))


def test_underline_path_from_config():
    func = _func()
    path = AccessPath.root().attr("params").array_item(0)
    text = _script(func, PrinterConfig(path_to_underline=[path]))
    assert "^" in text
    assert text == func.script(path_to_underline=[path])


def test_relax_script_prints_relax_types():
    ty = relax.TupleType([tvm.ir.PrimType("float32")])
    assert _relax_script(ty, PrinterConfig()) == "R.Tuple(T.float32)"
    assert ty._relax_script() == "R.Tuple(T.float32)"
    assert tirx.Var("n", "int64")._relax_script() == "n"


def test_bad_config():
    with pytest.raises(TypeError, match="must be a PrinterConfig"):
        _script(_func(), {"indent_spaces": 2})
    with pytest.raises(ValueError, match="indent_spaces"):
        PrinterConfig(indent_spaces=-1)
    with pytest.raises(TypeError, match="extra_config must be a dict"):
        PrinterConfig(extra_config=[1])
