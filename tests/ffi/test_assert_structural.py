"""tvm.ir.assert_structural_equal: the failure report (paths, both sides, underlining)."""

from typing import ClassVar

import pytest

import tvm
from tvm.ffi import DEF, IGNORE, Node, field
from tvm.ir import structural as ir_structural


class Leaf(Node, type_key="test_assert_structural.Leaf"):
    value: int


class Pair(Node, type_key="test_assert_structural.Pair"):
    first: Node
    second: Node


class Scripted(Node, type_key="test_assert_structural.Scripted"):
    """Pretends to be printable as TVMScript; records the paths it was asked to underline."""

    items: tuple = field(role=DEF)
    _calls: ClassVar[list] = []

    def script(self, path_to_underline=None):
        Scripted._calls.append(path_to_underline)
        return f"<script of {len(self.items)} items underlined at {path_to_underline[0]}>"


class BrokenScript(Node, type_key="test_assert_structural.BrokenScript"):
    value: int

    def script(self, path_to_underline=None):
        raise RuntimeError("printer exploded")


def test_reexports_in_tvm_ir():
    assert tvm.ir.assert_structural_equal is ir_structural.assert_structural_equal
    assert ir_structural.structural_equal is tvm.ffi.structural_equal
    assert ir_structural.structural_hash is tvm.ffi.structural_hash
    assert ir_structural.get_first_structural_mismatch is tvm.ffi.get_first_structural_mismatch


def test_equal_passes():
    ir_structural.assert_structural_equal(Pair(Leaf(1), Leaf(2)), Pair(Leaf(1), Leaf(2)))
    ir_structural.assert_structural_equal((1, "a"), (1, "a"))


def test_failure_names_paths_and_shows_both_sides_by_repr():
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal(Pair(Leaf(1), Leaf(2)), Pair(Leaf(1), Leaf(3)))
    text = str(info.value)
    assert text.startswith("StructuralEqual check failed, caused by lhs at <root>.second.value:")
    assert "and rhs at <root>.second.value:" in text
    assert "Access path: <root>.second.value" in text
    assert "Leaf(value=2)" in text and "Leaf(value=3)" in text


def test_failure_on_plain_containers():
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal([1, 2], [1, 3])
    assert "caused by lhs at <root>[1]:" in str(info.value)
    assert "[1, 2]" in str(info.value) and "[1, 3]" in str(info.value)


def test_length_mismatch_paths():
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal((1, 2, 3), (1, 2))
    assert "lhs at <root>[2]" in str(info.value) and "rhs at <root>[2]" in str(info.value)


def test_script_sides_are_underlined_at_the_mismatch():
    Scripted._calls.clear()
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal(
            Scripted((Leaf(1), Leaf(2))), Scripted((Leaf(1), Leaf(5)))
        )
    text = str(info.value)
    assert "<script of 2 items underlined at <root>.items[1].value>" in text
    assert len(Scripted._calls) == 2
    path = Scripted._calls[0][0]
    assert str(path) == "<root>.items[1].value"  # a tvm_ffi AccessPath


def test_printer_failure_does_not_hide_the_mismatch():
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal(BrokenScript(1), BrokenScript(2))
    text = str(info.value)
    assert "caused by lhs at <root>.value" in text
    assert "TVMScript printing failed: RuntimeError: printer exploded" in text


def test_map_free_vars():
    class V(Node, type_key="test_assert_structural.V"):
        _sequal_kind = "var"
        name: str = field(default="v", role=IGNORE)

    x, y = V("x"), V("y")
    with pytest.raises(ValueError):
        ir_structural.assert_structural_equal(Pair(x, x), Pair(y, y))
    ir_structural.assert_structural_equal(Pair(x, x), Pair(y, y), map_free_vars=True)


def test_deep_tree_report():
    lhs, rhs = Leaf(0), Leaf(1)
    for i in range(5000):
        lhs, rhs = Pair(lhs, Leaf(i)), Pair(rhs, Leaf(i))
    with pytest.raises(ValueError) as info:
        ir_structural.assert_structural_equal(lhs, rhs)
    assert ".first.first.value:" in str(info.value)
