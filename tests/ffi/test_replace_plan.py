"""``Node.replace`` with kw-only, derived and inherited fields (its precomputed field plan)."""

import pytest

from tvm.ffi.node import IGNORE, Node, field


class _Base(Node, type_key="test_replace_plan.Base"):
    a: object
    span: object = field(None, role=IGNORE, kw_only=True)


class _Typed(_Base, type_key="test_replace_plan.Typed"):
    b: object = None
    ty: object = field(None, derived=True, kw_only=True)


def test_derived_field_resets_only_when_something_changes():
    node = _Typed(1, 2, span="s", ty="T")
    assert node.replace(a=1, b=2) is node  # identical values: the very node, ty kept
    changed = node.replace(b=3)
    assert (changed.a, changed.b, changed.span, changed.ty) == (1, 3, "s", None)
    assert (node.a, node.b, node.ty) == (1, 2, "T")  # the original is untouched
    # Setting the derived field itself keeps the given value.
    assert node.replace(ty="U", a=5).ty == "U"


def test_inherited_and_kw_only_fields_are_copied():
    node = _Typed(1, span="here")
    changed = node.replace(a=7)
    assert type(changed) is _Typed
    assert (changed.a, changed.b, changed.span) == (7, None, "here")
    assert changed.replace(span="there").span == "there"


def test_unknown_field_is_rejected_even_with_valid_ones():
    node = _Typed(1)
    with pytest.raises(TypeError, match=r"_Typed has no field 'c'; fields are \('a', 'b'"):
        node.replace(a=2, c=3)
    with pytest.raises(TypeError, match="no field 'c'"):
        node.replace(c=3)  # also when nothing else changes
