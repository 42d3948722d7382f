"""Objects that print differently alone than inside a function: ``Range`` and tuple types."""

from tvm import ir, relax, tirx


def test_range_alone_is_an_ir_range_with_its_end():
    assert ir.Range(0, 10).script() == "I.Range(0, 10)"
    assert ir.Range.from_min_extent(1, 5).script() == "I.Range(1, 6)"
    start, stop = tirx.IntImm("int64", 2), tirx.IntImm("int64", 7)
    assert ir.Range(start, stop).script() == "I.Range(T.int64(2), T.int64(7))"


def test_scalar_tuple_type_alone_prints_under_the_tir_prefix():
    ty = ir.TupleType([ir.PrimType("float32"), ir.PrimType("int32")])
    assert ty.script() == "T.Tuple(T.float32, T.int32)"
    assert str(ty) == ty.script()


def test_relax_tuple_types_keep_the_relax_prefix():
    ty = relax.TupleType([relax.TensorType((2,), "float32"), ir.PrimType("int32")])
    assert ty.script() == 'R.Tuple(R.Tensor((2,), dtype="float32"), T.int32)'
    assert relax.TupleType([]).script() == "R.Tuple"


def test_runtime_shape_alone_prints_and_has_no_visible_path():
    from tvm_ffi.access_path import AccessPath

    from tvm.runtime import ShapeTuple
    from tvm.runtime.script_printer import PrinterConfig, _script

    assert _script(ShapeTuple([1, 2]), PrinterConfig()) == "Shape(1, 2)"
    text = _script(ShapeTuple([3]),
                   PrinterConfig(path_to_underline=[AccessPath.root().attr("missing")]))
    note = "Note: No visible object for this path is rendered in TVMScript."
    assert text.splitlines()[:2] == ["Access path: <root>.missing", note]
    assert text.endswith("Shape(3)")


def test_printer_config_reads_render_invisible_path_info_from_extra_config():
    from tvm.runtime.script_printer import PrinterConfig

    assert PrinterConfig().render_invisible_path_info is True
    off = PrinterConfig(extra_config={"render_invisible_path_info": False})
    assert off.render_invisible_path_info is False
