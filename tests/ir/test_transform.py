"""Pass infrastructure: PassInfo, PassContext, module_pass, Sequential, instruments."""

import pytest

import tvm
from tvm import relax
from tvm.ir import IRModule
from tvm.ir.instrument import PassInstrument
from tvm.ir.transform import PassContext, PassInfo, Sequential, module_pass


def _mod():
    x = relax.Var("x", relax.TensorType([2], "float32"))
    return IRModule({"main": relax.Function([x], relax.SeqExpr([], x))})


def _recording(name, log, opt_level=0, required=None):
    @module_pass(opt_level=opt_level, name=name, required=required)
    def record(mod, ctx):
        log.append(name)
        return mod

    return record


def test_tvm_transform_is_ir_transform():
    assert tvm.transform is tvm.ir.transform


def test_module_pass_decorator_on_function():
    @module_pass(opt_level=1)
    def add_attr(mod, ctx):
        return mod.with_attr("seen", ctx.opt_level)

    assert add_attr.info.name == "add_attr"
    assert add_attr.info.opt_level == 1
    assert isinstance(add_attr, tvm.transform.ModulePass)
    out = add_attr(_mod())
    assert out.get_attr("seen") == 2  # the default context has opt_level 2


def test_module_pass_direct_call_and_name():
    p = module_pass(lambda mod, ctx: mod, opt_level=0, name="Ident")
    assert p.info.name == "Ident"
    mod = _mod()
    assert p(mod) is mod


def test_module_pass_requires_opt_level():
    with pytest.raises(ValueError, match="opt_level"):
        module_pass(lambda mod, ctx: mod)


def test_module_pass_on_class():
    @module_pass(opt_level=2, name="Tag")
    class Tag:
        def __init__(self, value):
            self.value = value

        def transform_module(self, mod, ctx):
            return mod.with_attr("tag", self.value)

    p = Tag("hello")
    assert p.info.name == "Tag"
    assert p.value == "hello"  # the user's attributes are reachable
    assert p(_mod()).get_attr("tag") == "hello"


def test_class_without_transform_module():
    with pytest.raises(TypeError, match="transform_module"):

        @module_pass(opt_level=0)
        class Bad:
            pass


def test_pass_on_non_module_is_type_error():
    p = module_pass(lambda mod, ctx: mod, opt_level=0, name="P")
    with pytest.raises(TypeError, match="Pass P expects an IRModule, got int"):
        p(3)


def test_pass_returning_non_module():
    p = module_pass(lambda mod, ctx: 3, opt_level=0, name="Broken")
    with pytest.raises(TypeError, match="Module pass Broken must return an IRModule"):
        p(_mod())


def test_sequential_respects_opt_level_required_disabled():
    log = []
    seq = Sequential([_recording("A", log, 0), _recording("B", log, 3), _recording("C", log, 1)])
    assert seq.info.name == "sequential" and seq.info.opt_level == 0
    seq(_mod())
    assert log == ["A", "C"]
    log.clear()
    with PassContext(opt_level=3):
        seq(_mod())
    assert log == ["A", "B", "C"]
    log.clear()
    with PassContext(opt_level=0, required_pass=["B"], disabled_pass=["A"]):
        seq(_mod())
    assert log == ["B"]
    log.clear()
    with PassContext(opt_level=3, disabled_pass=["B"]):
        seq(_mod())
    assert log == ["A", "C"]


def test_nested_sequential():
    log = []
    inner = Sequential([_recording("A", log), _recording("B", log)], name="inner")
    outer = Sequential([inner, _recording("C", log)], name="outer")
    outer(_mod())
    assert log == ["A", "B", "C"]
    log.clear()
    with PassContext(disabled_pass=["inner"]):
        outer(_mod())
    assert log == ["C"]


def test_sequential_runs_required_named_passes():
    log = []
    tvm.transform.register_named_pass("RecordReq", lambda: _recording("RecordReq", log))
    seq = Sequential([_recording("Main", log, required=["RecordReq"])])
    seq(_mod())
    assert log == ["RecordReq", "Main"]
    bad = Sequential([_recording("Main", log, required=["NoSuchPass"])])
    with pytest.raises(ValueError, match="requires pass 'NoSuchPass'"):
        bad(_mod())


def test_sequential_rejects_non_pass():
    with pytest.raises(TypeError, match="expects Pass objects"):
        Sequential([lambda mod: mod])


def test_pass_context_current_and_config():
    default = PassContext.current()
    assert default.opt_level == 2 and default.config == {}
    tvm.transform.register_pass_config("test.relax_x", int)
    with PassContext(opt_level=3, config={"test.relax_x": 1}) as ctx:
        assert PassContext.current() is ctx
        assert ctx.config["test.relax_x"] == 1
        with PassContext(opt_level=0) as inner:
            assert PassContext.current() is inner
        assert PassContext.current() is ctx
    assert PassContext.current() is default
    with pytest.raises(TypeError, match="required_pass must be a list"):
        PassContext(required_pass="A")


def test_pass_info():
    info = PassInfo(1, "X", required=["Y"])
    assert info.required == ("Y",) and not info.traceable
    assert repr(info) == (
        "transform.PassInfo(opt_level=1, name=\"X\", required=('Y',), traceable=False)"
    )


class _Recorder(PassInstrument):
    def __init__(self, skip=()):
        self.events = []
        self.skip = skip

    def enter_pass_ctx(self):
        self.events.append("enter")

    def exit_pass_ctx(self):
        self.events.append("exit")

    def should_run(self, mod, info):
        return info.name not in self.skip

    def run_before_pass(self, mod, info):
        self.events.append(("before", info.name))

    def run_after_pass(self, mod, info):
        self.events.append(("after", info.name))


def test_instruments_are_called_around_each_pass():
    log = []
    rec = _Recorder(skip=("B",))
    seq = Sequential([_recording("A", log), _recording("B", log)], name="S")
    with PassContext(instruments=[rec]) as ctx:
        assert ctx.instruments == (rec,)
        seq(_mod())
    assert log == ["A"]
    assert rec.events == [
        "enter",
        ("before", "S"),
        ("before", "A"),
        ("after", "A"),
        ("after", "S"),
        "exit",
    ]


def test_print_ir(capsys):
    mod = _mod()
    out = tvm.transform.PrintIR("HEADER")(mod)
    assert out is mod
    text = capsys.readouterr().out
    assert "HEADER" in text and "def main" in text


def test_pass_config_options_are_declared_and_typed():
    tvm.transform.register_pass_config("test.flag", bool)
    assert PassContext.list_configs()["test.flag"] == {"type": "bool"}
    assert PassContext(config={"test.flag": 1}).config["test.flag"] is True
    with pytest.raises(AttributeError, match="Invalid config option 'test.flga' candidates are: "):
        PassContext(config={"test.flga": True})
    with pytest.raises(TypeError, match="'test.flag' expects a bool, got 'yes'"):
        PassContext(config={"test.flag": "yes"})
    with pytest.raises(TypeError, match="unsupported value type"):
        tvm.transform.register_pass_config("test.bad", object)


def test_override_instruments_in_active_context():
    first, second = _Recorder(), _Recorder()
    with PassContext(instruments=[first]) as ctx:
        ctx.override_instruments([second])
        assert ctx.instruments == (second,)
    assert first.events == ["enter", "exit"]
    assert second.events == ["enter", "exit"]
