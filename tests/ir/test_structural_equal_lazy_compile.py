"""``tvm.ir.structural_equal`` compares a node class's fields with a loop at first and with
generated code once the class has been compared often (ffi/structural.py): same answers."""

import pytest

from tvm import te, tirx
from tvm.ffi import structural
from tvm.ir import structural_equal


def _kernel(scale, names=("i", "j")):
    A = te.placeholder((4, 8), name="A")
    B = te.compute((4, 8), lambda *ij: A[ij] * scale, name="B", varargs_names=list(names))
    return te.create_prim_func([A, B])


def _answers():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    return [
        structural_equal(_kernel(2.0), _kernel(2.0)),
        structural_equal(_kernel(2.0), _kernel(3.0)),
        structural_equal(_kernel(2.0), _kernel(2.0, ("p", "q"))),  # bound vars map
        structural_equal(x + 1, x + 1),
        structural_equal(x + 1, y + 1),  # free vars differ
        structural_equal(x + 1, y + 1, map_free_vars=True),
    ]


@pytest.mark.parametrize("compile_after", [1, 3, 10**9])
def test_loop_and_generated_fields_eq_agree(monkeypatch, compile_after):
    monkeypatch.setattr(structural, "_COMPILE_AFTER", compile_after)
    # Forget what earlier tests classified, so the classes start over with this threshold.
    saved = dict(structural._INFO)
    for cls, info in saved.items():
        if info.__class__ is tuple:
            del structural._INFO[cls]
    try:
        first = _answers()
        again = _answers()  # with compile_after 1 or 3, now through the generated code
        assert first == again == [True, False, True, True, False, True]
        generated = [
            info[3].__name__ == "fields_eq" and info[3].__code__.co_filename == "<string>"
            for info in structural._INFO.values() if info.__class__ is tuple
        ]
        assert any(generated) == (compile_after < 10**9)
    finally:
        structural._INFO.clear()
        structural._INFO.update(saved)
