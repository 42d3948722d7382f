"""tvm.instrument: hook order, should_run, printing, dumping and timing instruments."""

import re

import pytest

import tvm
from tvm import relax
from tvm.relax.ir.instrument import WellFormedInstrument

MODULE_TEXT = (
    "# from tvm.script import ir as I\n"
    "# from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    '    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n'
    '        y: R.Tensor((3,), dtype="float32") = R.add(x, x)\n'
    "        return y"
)
NORMALIZE_INFO = 'transform.PassInfo(opt_level=1, name="Normalize", required=(), traceable=False)'


def _module():
    x = relax.Var("x", relax.TensorType([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.add(x, x), name_hint="y")
        bb.emit_func_output(y)
    return bb.get()


def _identity(name):
    return tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name=name)


def test_tvm_instrument_is_tvm_ir_instrument():
    assert tvm.instrument is tvm.ir.instrument
    for name in (
        "PassInstrument",
        "pass_instrument",
        "PrintBeforeAll",
        "PrintAfterAll",
        "PassPrintingInstrument",
        "PassTimingInstrument",
        "DumpIR",
    ):
        assert hasattr(tvm.instrument, name)


def test_hooks_run_in_order_and_should_run_skips():
    events = []

    @tvm.instrument.pass_instrument
    class Recorder:
        def __init__(self, skip):
            self.skip = skip

        def enter_pass_ctx(self):
            events.append("enter")

        def exit_pass_ctx(self):
            events.append("exit")

        def should_run(self, mod, info):
            events.append(f"should_run {info.name}")
            return info.name != self.skip

        def run_before_pass(self, mod, info):
            events.append(f"before {info.name}")

        def run_after_pass(self, mod, info):
            events.append(f"after {info.name}")

    recorder = Recorder("Skipped")
    assert isinstance(recorder, tvm.instrument.PassInstrument)
    assert recorder.skip == "Skipped"
    mod = _module()
    seq = tvm.transform.Sequential([_identity("First"), _identity("Skipped")], name="seq")
    with tvm.transform.PassContext(instruments=[recorder]):
        assert seq(mod) is mod
    assert events == [
        "enter",
        "should_run seq",
        "before seq",
        "should_run First",
        "before First",
        "after First",
        "should_run Skipped",
        "after seq",
        "exit",
    ]


def test_partial_instrument_defaults_and_decorator_with_parentheses():
    @tvm.instrument.pass_instrument()
    class OnlyAfter:
        def __init__(self):
            self.names = []

        def run_after_pass(self, mod, info):
            self.names.append(info.name)

    inst = OnlyAfter()
    assert inst.should_run(None, None) is True
    with tvm.transform.PassContext(instruments=[inst]):
        _identity("A")(_module())
    assert inst.names == ["A"]
    assert OnlyAfter.__name__ == "OnlyAfter"


def test_pass_instrument_rejects_non_classes():
    with pytest.raises(TypeError, match="pass_instrument expects a class"):
        tvm.instrument.pass_instrument(lambda: None)

    class Bad:
        should_run = 3

    with pytest.raises(TypeError, match="Bad.should_run must be a method"):
        tvm.instrument.pass_instrument(Bad)


def test_should_run_false_returns_the_input():
    @tvm.instrument.pass_instrument
    class Never:
        def should_run(self, mod, info):
            return False

    @tvm.transform.module_pass(opt_level=0)
    def explode(mod, ctx):
        raise AssertionError("must not run")

    mod = _module()
    with tvm.transform.PassContext(instruments=[Never()]):
        assert explode(mod) is mod


def test_print_before_and_after_all(capsys):
    with tvm.transform.PassContext(
        instruments=[tvm.instrument.PrintBeforeAll(), tvm.instrument.PrintAfterAll()]
    ):
        relax.transform.Normalize()(_module())
    assert capsys.readouterr().out == (
        f"Before Running Pass: {NORMALIZE_INFO}\n{MODULE_TEXT}\n"
        f"After Running Pass: {NORMALIZE_INFO}\n{MODULE_TEXT}\n"
    )


def test_pass_printing_instrument(capsys):
    inst = tvm.instrument.PassPrintingInstrument(["Normalize"], ["Normalize"])
    with tvm.transform.PassContext(instruments=[inst]):
        tvm.transform.Sequential([relax.transform.Normalize()])(_module())
    assert capsys.readouterr().out == (
        f"Print IR before: Normalize\n{MODULE_TEXT}\n\n\n"
        f"Print IR after: Normalize\n{MODULE_TEXT}\n\n\n"
    )


def test_dump_ir_numbers_passes_as_they_finish(tmp_path):
    (tmp_path / "stale.py").write_text("old")
    with tvm.transform.PassContext(instruments=[tvm.instrument.DumpIR(tmp_path, refresh=True)]):
        tvm.transform.Sequential([relax.transform.Normalize()])(_module())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["000_Normalize.py", "001_sequential.py"]
    assert (tmp_path / "000_Normalize.py").read_text() == MODULE_TEXT


def test_pass_timing_render():
    timing = tvm.instrument.PassTimingInstrument()
    mod = _module()
    inner = tvm.transform.Sequential([_identity("C")], name="inner")
    with tvm.transform.PassContext(instruments=[timing]):
        _identity("A")(mod)
        tvm.transform.Sequential([_identity("B"), inner], name="outer")(mod)
        profile = timing.render()
        assert timing.render() == profile  # rendering does not clear
    line = r"(\t*)(\w+): (\d+)us \[(\d+)us\] \((\d+\.\d\d)%; (\d+\.\d\d)%\)"
    rows = [re.fullmatch(line, text).groups() for text in profile.splitlines()]
    assert [(tabs, name) for tabs, name, *_ in rows] == [
        ("", "A"),
        ("", "outer"),
        ("\t", "B"),
        ("\t", "inner"),
        ("\t\t", "C"),
    ]
    assert sum(float(r[4]) for r in rows if not r[0]) == pytest.approx(100.0, abs=0.02)
    for tabs, _, total, self_time, *_ in rows:
        assert int(self_time) <= int(total)
    assert timing.render() == ""  # the profile ends with the context


@pytest.mark.skip_well_formed_check_before_transform
def test_well_formed_instrument_reports_the_pass(capsys):
    x = relax.Var("x", relax.TensorType([3], "float32"))
    undef = relax.Var("undef", relax.TensorType([3], "float32"))
    func = relax.Function([x], relax.SeqExpr([], undef)).with_attr("global_symbol", "main")
    mod = tvm.IRModule({"main": func})
    inst = WellFormedInstrument()
    assert (inst.check_ty, inst.validate_before_transform) == (True, True)
    expected = "not well-formed before pass Ident: Var undef"
    with (
        tvm.transform.PassContext(instruments=[inst]),
        pytest.raises(AssertionError, match=expected),
    ):
        _identity("Ident")(mod)
    assert "class BeforeIdent:" in capsys.readouterr().out
    with (
        tvm.transform.PassContext(
            instruments=[WellFormedInstrument(validate_before_transform=False)]
        ),
        pytest.raises(AssertionError, match="after pass Ident"),
    ):
        _identity("Ident")(mod)
    assert "class AfterIdent:" in capsys.readouterr().out


def test_well_formed_instrument_accepts_good_modules():
    with tvm.transform.PassContext(instruments=[WellFormedInstrument()]):
        out = tvm.transform.Sequential([_identity("A"), relax.transform.Normalize()])(_module())
    assert tvm.ir.structural_equal(out, _module())
