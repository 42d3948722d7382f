"""Target parsing (strings, dicts, JSON, tags), attributes, context, host, errors."""

import pickle
import threading

import pytest

import tvm
from tvm.target import Target, TargetKind


@pytest.mark.parametrize(
    "text, kind, attrs",
    [
        ("llvm", "llvm", {}),
        ("llvm -mcpu=skylake -num-cores=4", "llvm", {"mcpu": "skylake", "num-cores": 4}),
        ("c", "c", {}),
        ("cuda -arch=sm_90a", "cuda", {"arch": "sm_90a"}),
        ({"kind": "llvm", "mcpu": "skylake"}, "llvm", {"mcpu": "skylake"}),
        ('{"kind": "cuda", "arch": "sm_80"}', "cuda", {"arch": "sm_80"}),
    ],
)
def test_parse(text, kind, attrs):
    target = Target(text)
    assert target.kind.name == kind
    assert isinstance(target.kind, TargetKind)
    for name, value in attrs.items():
        assert target.attrs[name] == value


def test_str_is_tvm_json_and_round_trips():
    assert str(Target("c")) == '{"kind":"c","tag":"","keys":["cpu"]}'
    cuda = Target("cuda -arch=sm_90a")
    assert str(cuda) == (
        '{"kind":"cuda","tag":"","keys":["cuda","gpu"],"arch":"sm_90a",'
        '"max_num_threads":1024,"thread_warp_size":32}'
    )
    for text in [
        "llvm",
        "llvm -mcpu=skylake -num-cores=4",
        "c",
        "cuda -arch=sm_90a",
        "llvm -mattr=+avx2,+fma -fast-math",
        "nvidia/nvidia-h100",
    ]:
        target = Target(text)
        again = Target(str(target))
        assert str(again) == str(target)
        assert again == target and hash(again) == hash(target)
    assert Target("llvm -mcpu=skylake") != Target("llvm -mcpu=znver4")


def test_attribute_access_and_defaults():
    target = Target("llvm -mcpu=skylake -num-cores=4")
    assert target.mcpu == "skylake"
    assert target.attrs["num-cores"] == 4
    assert target.keys == ("cpu",)
    assert target.tag == ""
    assert target.attrs["mtriple"].count("-") >= 2  # host triple filled in by default
    cuda = Target("cuda -arch=sm_90a")
    assert cuda.arch == "sm_90a"
    assert cuda.max_num_threads == 1024
    assert cuda.keys == ("cuda", "gpu")
    assert cuda.get_target_device_type() == 2
    assert Target("llvm -mattr=+avx2,+fma").mattr == ("+avx2", "+fma")
    assert Target("llvm -fast-math").attrs["fast-math"] is True
    with pytest.raises(AttributeError, match="no attribute 'arch'"):
        Target("llvm").arch  # noqa: B018
    with pytest.raises(TypeError):
        target.attrs["mcpu"] = "other"
    with pytest.raises(AttributeError, match="immutable"):
        target.mcpu = "other"


def test_tags():
    h100 = Target("nvidia/nvidia-h100")
    assert h100.kind.name == "cuda" and h100.arch == "sm_90a"
    assert "nvidia/nvidia-h100" in tvm.target.list_tags()
    tvm.target.register_tag("test/my-cpu", {"kind": "llvm", "mcpu": "znver4"}, override=True)
    assert Target("test/my-cpu").mcpu == "znver4"
    with pytest.raises(ValueError, match="already registered"):
        tvm.target.register_tag("test/my-cpu", {"kind": "llvm"})


def test_context_and_current():
    assert Target.current() is None
    assert Target.current(allow_none=True) is None
    with pytest.raises(ValueError, match="Target context required"):
        Target.current(allow_none=False)
    outer = Target("llvm")
    with outer as entered:
        assert entered is outer
        assert Target.current() is outer
        with Target("c") as inner:
            assert Target.current() is inner
        assert Target.current() is outer
        assert Target.target_or_current(None) is outer
    assert Target.current() is None
    assert Target.target_or_current("c").kind.name == "c"


def test_context_is_per_thread():
    seen = []
    with Target("llvm"):
        worker = threading.Thread(target=lambda: seen.append(Target.current()))
        worker.start()
        worker.join()
    assert seen == [None]


def test_host():
    cuda = Target("cuda", host="llvm")
    assert cuda.host.kind.name == "llvm"
    assert str(cuda).startswith(
        '{"kind":"cuda","tag":"","keys":["cuda","gpu"],"host":{"kind":"llvm"'
    )
    assert Target("cuda").host is None
    with_host = Target("cuda").with_host("llvm -mcpu=skylake")
    assert with_host.host.mcpu == "skylake"
    assert Target({"kind": "cuda", "host": {"kind": "c"}}).host.kind.name == "c"
    assert Target(str(cuda)) == cuda
    assert Target(Target("llvm"), host="c").host.kind.name == "c"


def test_export_and_pickle():
    target = Target("cuda -arch=sm_80", host="llvm")
    config = target.export()
    assert config["kind"] == "cuda" and config["arch"] == "sm_80"
    assert config["host"]["kind"] == "llvm"
    assert Target(config) == target
    assert pickle.loads(pickle.dumps(target)) == target


def test_list_kinds_and_options():
    kinds = Target.list_kinds()
    for name in ["llvm", "c", "cuda", "nvptx", "rocm", "vulkan", "metal", "opencl"]:
        assert name in kinds
    assert TargetKind.options_from_name("llvm")["num-cores"] == "int"


def test_unknown_kind_lists_valid_kinds():
    with pytest.raises(ValueError, match='Target kind "foo" is not defined') as info:
        Target("foo")
    assert "llvm" in str(info.value) and "cuda" in str(info.value)


def test_unknown_option_lists_known_options():
    with pytest.raises(ValueError, match="Unknown option '-foo'") as info:
        Target("llvm -foo=1")
    assert "mcpu" in str(info.value) and "num-cores" in str(info.value)
    with pytest.raises(ValueError, match="Unknown config option 'arch'") as info:
        Target({"kind": "llvm", "arch": "sm_80"})
    assert "'mcpu'" in str(info.value)


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"kind": "llvm", "mcpu": 3}, "Option 'mcpu': expected type 'str' but got 'int'"),
        ({"kind": "llvm", "num-cores": "4"}, "Option 'num-cores': expected type 'int'"),
        ({"kind": "llvm", "mattr": "+avx2"}, "Option 'mattr': expected type 'Array<str>'"),
        ({"mcpu": "x"}, 'Field "kind" is not found'),
        ("llvm -num-cores=many", "expects an integer"),
        ("llvm -fast-math=maybe", "expects true/false"),
        ("llvm mcpu=x", "expected '-option=value'"),
        ("", "empty"),
        ("{not json", "Cannot parse target JSON"),
    ],
)
def test_bad_values(bad, words):
    with pytest.raises(ValueError) as info:
        Target(bad)
    assert words in str(info.value)


def test_bad_argument_type():
    with pytest.raises(TypeError, match="str, dict or Target"):
        Target(3)


def test_register_target_kind():
    kind = tvm.target.register_target_kind(
        "test_accel", {"lanes": "int"}, ("accel",), {"lanes": 8}, 12, override=True
    )
    assert Target("test_accel").attrs["lanes"] == 8
    assert Target("test_accel -lanes=16").lanes == 16
    assert kind.default_keys == ("accel",)
    with pytest.raises(ValueError, match="already registered"):
        tvm.target.register_target_kind("llvm")
