"""Errors raised inside passes name the pass and underline the node in TVMScript (spec C.2-C.3).

Expected strings are Apache TVM 0.27's output for the same IR.
"""

import pytest

import tvm
from tvm import relax
from tvm.error import InternalError
from tvm.ffi.node import walk
from tvm.ir.error_context import (
    add_enclosing_node,
    attach_node,
    enrich_pass_error,
    error_node,
    find_node_path,
    raise_with_node,
)

# The inputs below are deliberately not normalized (the passes under test repair or reject them).
pytestmark = pytest.mark.skip_well_formed_check_before_transform

MATMUL_MESSAGE = (
    "Matmul requires the reduction length of the operands to be equal.  However, the LHS {lhs} "
    "has shape R.shape([3, 4]), while the RHS y has shape R.shape([5, 6]).  The reduction "
    "dimensions of T.int64(4) and T.int64(5) are not equal."
)
SIGNATURE = (
    'def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((5, 6), dtype="float32")) '
    '-> R.Tensor((3, 6), dtype="float32"):'
)


def TT(*shape):
    return relax.TensorType(list(shape), "float32")


def _main(bindings, ret, params):
    body = relax.SeqExpr([relax.BindingBlock(bindings)], ret)
    func = relax.Function(params, body, TT(3, 6)).with_attr("global_symbol", "main")
    return tvm.IRModule({"main": func})


def _matmul_module():
    """main(x: [3, 4], y: [5, 6]) binding lv = matmul(x, y), built without normalization."""
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    lv = relax.Var("lv")
    return _main([relax.VarBinding(lv, relax.op.matmul(x, y))], lv, [x, y])


def test_normalize_error_names_pass_and_underlines_call():
    with pytest.raises(ValueError) as info:
        relax.transform.Normalize()(_matmul_module())
    assert str(info.value) == (
        MATMUL_MESSAGE.format(lhs="x") + "\n\n"
        "Error in pass: Normalize\n"
        "Location (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[0].value\n"
        "\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@R.function\n" + SIGNATURE + "\n"
        "    lv = R.matmul(x, y, out_dtype=None)\n"
        "         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "    return lv"
    )
    assert error_node(info.value) is None  # the payload is consumed


def test_normalize_error_in_long_function_shows_ten_lines_of_context():
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    bindings, prev = [], x
    for i in range(14):
        var = relax.Var(f"a{i}", TT(3, 4))
        bindings.append(relax.VarBinding(var, relax.op.add(prev, x)))
        prev = var
    bad = relax.Var("bad")
    bindings.append(relax.VarBinding(bad, relax.op.matmul(prev, y)))
    prev = bad
    for i in range(14):
        var = relax.Var(f"b{i}")
        bindings.append(relax.VarBinding(var, relax.op.add(prev, prev)))
        prev = var
    mod = _main(bindings, prev, [x, y])
    with pytest.raises(ValueError) as info:
        relax.transform.Normalize()(mod)
    above = "".join(
        f'    a{i}: R.Tensor((3, 4), dtype="float32") = R.add(a{i - 1}, x)\n' for i in range(4, 14)
    )
    below = "".join(
        f"    b{i} = R.add({f'b{i - 1}' if i else 'bad'}, {f'b{i - 1}' if i else 'bad'})\n"
        for i in range(10)
    )
    assert str(info.value) == (
        MATMUL_MESSAGE.format(lhs="a13") + "\n\n"
        "Error in pass: Normalize\n"
        "Location (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[14].value\n"
        "\n"
        "(... 8 lines skipped ...)\n" + above + "    bad = R.matmul(a13, y, out_dtype=None)\n"
        "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" + below + "(... 5 lines skipped ...)"
    )


def test_nested_call_error_underlines_the_inner_call():
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    lv = relax.Var("lv")
    value = relax.op.add(relax.op.matmul(x, y), x)
    mod = _main([relax.VarBinding(lv, value)], lv, [x, y])
    with pytest.raises(ValueError) as info:
        relax.transform.Normalize()(mod)
    text = str(info.value)
    assert "Access path: <root>.body.blocks[0].bindings[0].value.args[0]\n" in text
    assert "    lv = R.add(R.matmul(x, y, out_dtype=None), x)\n" in text
    assert "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" in text


def test_enrichment_happens_once_inside_sequential():
    seq = tvm.transform.Sequential([relax.transform.Normalize()], name="outer")
    with pytest.raises(ValueError) as info:
        seq(_matmul_module())
    assert str(info.value).count("Location (TVMScript):") == 1
    assert str(info.value).count("Error in pass:") == 1
    assert "Error in pass: Normalize\n" in str(info.value)


def test_enrichment_happens_once_for_a_module_pass_running_a_pass():
    @tvm.transform.module_pass(opt_level=0, name="Wrapper")
    def wrapper(mod, ctx):
        return relax.transform.Normalize()(mod)

    with pytest.raises(ValueError) as info:
        wrapper(_matmul_module())
    assert str(info.value).count("Location (TVMScript):") == 1
    assert "Error in pass: Normalize\n" in str(info.value)


def test_python_module_pass_error_renders_the_whole_module():
    mod = _matmul_module()
    call = mod["main"].body.blocks[0].bindings[0].value

    @tvm.transform.module_pass(opt_level=0, name="RejectMatmul")
    def reject(mod, ctx):
        raise_with_node(TypeError("matmul is not supported here"), call)

    with pytest.raises(TypeError) as info:
        reject(mod)
    assert str(info.value) == (
        "matmul is not supported here\n\n"
        "Error in pass: RejectMatmul\n"
        "Location (TVMScript):\n"
        'Access path: <root>.functions[I.GlobalVar("main")].body.blocks[0].bindings[0].value\n'
        "\n"
        "# from tvm.script import ir as I\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n    " + SIGNATURE + "\n"
        "        lv = R.matmul(x, y, out_dtype=None)\n"
        "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "        return lv"
    )


def test_python_function_pass_error_renders_the_function():
    @relax.transform.function_pass(opt_level=0, name="RejectMatmul")
    class RejectMatmul:
        def transform_function(self, func, mod, ctx):
            raise_with_node(ValueError("no matmul allowed"), func.body.blocks[0].bindings[0].value)

    with pytest.raises(ValueError) as info:
        RejectMatmul()(_matmul_module())
    assert str(info.value) == (
        "no matmul allowed\n\nError in pass: RejectMatmul\nLocation (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[0].value\n\n"
        "# from tvm.script import relax as R\n\n@R.function\n" + SIGNATURE + "\n"
        "    lv = R.matmul(x, y, out_dtype=None)\n"
        "         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "    return lv"
    )


def test_dataflow_block_pass_error_is_enriched():
    x = relax.Var("x", TT(3))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(relax.op.add(x, x))
        bb.emit_func_output(gv)
    mod = bb.get()

    @relax.transform.dataflowblock_pass(opt_level=0, name="RejectBlock")
    def reject(block, mod, ctx):
        raise_with_node(ValueError("block rejected"), block.bindings[0].value)

    with pytest.raises(ValueError) as info:
        reject(mod)
    text = str(info.value)
    assert text.startswith(
        "block rejected\n\nError in pass: RejectBlock\nLocation (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[0].value\n\n"
    )
    assert text.count("Location (TVMScript):") == 1


def test_error_without_node_passes_through_unchanged():
    @tvm.transform.module_pass(opt_level=0, name="Boom")
    def boom(mod, ctx):
        raise InternalError("boom here")

    seq = tvm.transform.Sequential([boom])
    with pytest.raises(InternalError) as info:
        seq(_matmul_module())
    assert str(info.value) == "boom here"
    assert info.value.__cause__ is None
    # The traceback still reaches the line that raised.
    assert info.traceback[-1].name == "boom"


def test_error_whose_node_is_not_in_the_module_passes_through():
    stranger = relax.Var("stranger", TT(1))

    @tvm.transform.module_pass(opt_level=0, name="Elsewhere")
    def elsewhere(mod, ctx):
        raise_with_node(ValueError("not here"), stranger)

    with pytest.raises(ValueError, match=r"^not here$") as info:
        elsewhere(_matmul_module())
    assert error_node(info.value) is stranger


def test_well_formed_inside_a_pass_is_enriched():
    x = relax.Var("x", TT(3))
    undef = relax.Var("undef", TT(3))
    func = relax.Function([x], relax.SeqExpr([], undef), TT(3)).with_attr("global_symbol", "main")

    @tvm.transform.module_pass(opt_level=0, name="Check")
    def check(mod, ctx):
        relax.analysis.well_formed(mod)
        return mod

    with pytest.raises(ValueError) as info:
        check(tvm.IRModule({"main": func}))
    assert str(info.value).startswith(
        "Var undef is not defined.\n\nError in pass: Check\nLocation (TVMScript):\n"
        'Access path: <root>.functions[I.GlobalVar("main")].body.body\n'
    )
    assert str(info.value).endswith("        return undef\n               ^^^^^")


def test_enclosing_node_used_when_the_node_was_rebuilt():
    mod = _matmul_module()
    call = mod["main"].body.blocks[0].bindings[0].value
    err = add_enclosing_node(attach_node(ValueError("bad"), relax.Var("rebuilt")), call)
    enriched = enrich_pass_error(err, mod, "P")
    assert 'Access path: <root>.functions[I.GlobalVar("main")].body.blocks[0]' in str(enriched)


def test_class_with_custom_constructor_keeps_its_class():
    class CodedError(ValueError):
        def __init__(self, code, text):
            super().__init__(code, text)

        def __str__(self):
            return f"[{self.args[0]}] {self.args[1]}"

    mod = _matmul_module()
    call = mod["main"].body.blocks[0].bindings[0].value
    err = attach_node(CodedError(7, "bad"), call)
    assert enrich_pass_error(err, mod, "P") is err  # cannot be rebuilt: left as it was
    assert str(err) == "[7] bad"


def test_attach_keeps_the_innermost_node_and_find_path():
    mod = _matmul_module()
    call = mod["main"].body.blocks[0].bindings[0].value
    err = attach_node(ValueError("x"), call)
    attach_node(err, mod["main"])
    assert error_node(err) is call
    path = find_node_path(mod["main"], call)
    assert tvm.ffi.structural.format_path(path) == "<root>.body.blocks[0].bindings[0].value"
    assert find_node_path(call, call) == ()
    assert find_node_path(mod, relax.Var("nowhere")) is None


def _enriched_suffix(mod):
    with pytest.raises(ValueError) as info:
        relax.transform.Normalize()(mod)
    return str(info.value).split("\n\n", 1)[1]


def test_error_inside_an_if_branch_and_in_a_dataflow_block():
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    c, lv, r = relax.Var("c", relax.TensorType([], "bool")), relax.Var("lv"), relax.Var("r")
    branch = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, relax.op.matmul(x, y))])], lv)
    cond = relax.If(c, branch, relax.SeqExpr([], x))
    mod = _main([relax.VarBinding(r, cond)], r, [c, x, y])
    assert _enriched_suffix(mod) == (
        "Error in pass: Normalize\n"
        "Location (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[0].value.true_branch.blocks[0].bindings[0]"
        ".value\n"
        "\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@R.function\n"
        'def main(c: R.Tensor((), dtype="bool"), x: R.Tensor((3, 4), dtype="float32"), '
        'y: R.Tensor((5, 6), dtype="float32")) -> R.Tensor((3, 6), dtype="float32"):\n'
        "    if c:\n"
        "        lv = R.matmul(x, y, out_dtype=None)\n"
        "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "        r = lv\n"
        "    else:\n"
        "        r = x\n"
        "    return r"
    )
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    lv, out = relax.DataflowVar("lv"), relax.Var("o")
    block = relax.DataflowBlock(
        [relax.VarBinding(lv, relax.op.matmul(x, y)), relax.VarBinding(out, lv)]
    )
    func = relax.Function([x, y], relax.SeqExpr([block], out), TT(3, 6))
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    assert _enriched_suffix(mod).endswith(
        "    with R.dataflow():\n"
        "        lv = R.matmul(x, y, out_dtype=None)\n"
        "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "        o = lv\n"
        "        R.output(o)\n"
        "    return o"
    )


def test_error_in_the_function_body_expression():
    x, y = relax.Var("x", TT(3, 4)), relax.Var("y", TT(5, 6))
    func = relax.Function([x, y], relax.SeqExpr([], relax.op.matmul(x, y)), TT(3, 6))
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    assert _enriched_suffix(mod) == (
        "Error in pass: Normalize\n"
        "Location (TVMScript):\n"
        "Access path: <root>.body.body\n"
        "\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@R.function\n" + SIGNATURE + "\n"
        "    return R.matmul(x, y, out_dtype=None)\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_function_pass_renders_only_the_failing_function():
    a = relax.Var("a", TT(3, 4))
    first = relax.Function([a], relax.SeqExpr([], a), TT(3, 4)).with_attr("global_symbol", "first")
    mod = _matmul_module()
    mod = tvm.IRModule({"first": first, "main": mod["main"]})
    suffix = _enriched_suffix(mod)
    assert "def first" not in suffix
    assert suffix.startswith(
        "Error in pass: Normalize\nLocation (TVMScript):\n"
        "Access path: <root>.body.blocks[0].bindings[0].value\n\n"
    )


def test_class_with_its_own_str_is_rebuilt_with_the_same_class():
    class LoudError(ValueError):
        def __str__(self):
            return self.args[0].upper() if "Error in pass" not in self.args[0] else self.args[0]

    mod = _matmul_module()
    call = mod["main"].body.blocks[0].bindings[0].value

    @tvm.transform.module_pass(opt_level=0, name="Loud")
    def loud(mod, ctx):
        raise_with_node(LoudError("quiet"), call)

    with pytest.raises(LoudError) as info:
        loud(mod)
    assert str(info.value).startswith("QUIET\n\nError in pass: Loud\nLocation (TVMScript):\n")
    assert "loud" in [entry.name for entry in info.traceback]  # the original traceback
    assert error_node(info.value) is None


def test_every_node_of_a_parsed_module_can_be_located_and_rendered():
    mod = tvm.script.from_source(
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        '    def main(x: R.Tensor(("n", 4), "float32"), c: R.Tensor((), "bool")):\n'
        "        n = T.int64()\n"
        "        with R.dataflow():\n"
        "            y = R.add(x, x)\n"
        "            R.output(y)\n"
        "        if c:\n"
        "            z = R.multiply(y, y)\n"
        "        else:\n"
        "            z = y\n"
        "        s = R.shape([n, 4])\n"
        "        return (z, s)\n"
    )
    gvar = mod.get_global_var("main")
    count = 0
    for node in walk(mod["main"]):
        err = enrich_pass_error(attach_node(ValueError("m"), node), mod, "P", gvar)
        text = str(err)
        assert text.startswith("m\n\nError in pass: P\nLocation (TVMScript):\nAccess path: <root>")
        assert "^" in text and error_node(err) is None
        count += 1
    assert count > 50
