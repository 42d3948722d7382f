"""User-written Relax TVMScript -> our parser -> our printer == what Apache TVM 0.27 prints.

Each case is a script as a user writes it (nested calls, unannotated bindings, branches...).
The expected text is Apache TVM 0.27's ``from_source(program).script()`` for the same program
(format facts, recorded once). Matching it checks the parser's structure *and* its automatic
names (``gv``, ``lv1``... are handed out per function, one per binding, as in TVM), then the
printed text must parse back to an equal module.
"""

import pytest

import tvm
from tvm.script import from_source

CASES = {
    "if_with_dataflow": (
        """
@R.function
def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
    if c:
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        y = R.multiply(a, a)
    else:
        y = x
    return y
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):
    if c:
        with R.dataflow():
            a: R.Tensor((3,), dtype="float32") = R.add(x, x)
            R.output(a)
        y_then: R.Tensor((3,), dtype="float32") = R.multiply(a, a)
        y: R.Tensor((3,), dtype="float32") = y_then
    else:
        y: R.Tensor((3,), dtype="float32") = x
    return y""",
    ),
    "nested_calls": (
        """
@R.function
def main(x: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        y = R.add(R.multiply(x, x), x)
        z = R.sum(R.permute_dims(y, axes=[1, 0]), axis=[0], keepdims=True)
        R.output(z)
    w = R.add(R.multiply(z, z), z)
    return w
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((1, 2), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.multiply(x, x)
        y: R.Tensor((2, 3), dtype="float32") = R.add(lv, x)
        lv2: R.Tensor((3, 2), dtype="float32") = R.permute_dims(y, axes=[1, 0])
        z: R.Tensor((1, 2), dtype="float32") = R.sum(lv2, axis=[0], keepdims=True)
        R.output(z)
    gv: R.Tensor((1, 2), dtype="float32") = R.multiply(z, z)
    w: R.Tensor((1, 2), dtype="float32") = R.add(gv, z)
    return w""",
    ),
    "match_cast_symbolic": (
        """
@R.function
def main(x: R.Tensor(ndim=2, dtype="float32")):
    m = T.int64()
    n = T.int64()
    y = R.match_cast(x, R.Tensor((m, n), "float32"))
    z = R.reshape(y, (m * n,))
    return z
""",
        """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=1):
    m = T.int64()
    n = T.int64()
    y: R.Tensor((m, n), dtype="float32") = R.match_cast(x, R.Tensor((m, n), dtype="float32"))
    z: R.Tensor((m * n,), dtype="float32") = R.reshape(y, R.shape([m * n]))
    return z""",
    ),
    "module_cross_calls": (
        """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = cls.double(x)
        z = cls.double(y)
        return z

    @R.function(private=True)
    def double(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y
""",
        """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def double(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y: R.Tensor((4,), dtype="float32") = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.double(x)
        z: R.Tensor((4,), dtype="float32") = cls.double(y)
        return z""",
    ),
    "tuple_return_and_items": (
        """
@R.function
def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
    t = (x, y)
    a = t[0]
    b = R.add(a, t[1])
    return (b, t)
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32"))):
    t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = x, y
    a: R.Tensor((3,), dtype="float32") = t[0]
    gv2: R.Tensor((3,), dtype="float32") = t[1]
    b: R.Tensor((3,), dtype="float32") = R.add(a, gv2)
    return (b, t)""",
    ),
    "return_call": (
        """
@R.function
def main(x: R.Tensor((3,), "float32")):
    a = R.add(x, x)
    return R.multiply(a, R.add(a, a))
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    a: R.Tensor((3,), dtype="float32") = R.add(x, x)
    gv1: R.Tensor((3,), dtype="float32") = R.add(a, a)
    gv2: R.Tensor((3,), dtype="float32") = R.multiply(a, gv1)
    return gv2""",
    ),
    "local_function": (
        """
@R.function
def main(x: R.Tensor((3,), "float32")):
    @R.function
    def inner(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        z = R.add(R.multiply(y, y), y)
        return z

    a = R.add(x, x)
    w = inner(R.add(a, a))
    return w
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    # from tvm.script import relax as R
    
    @R.function
    def inner(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        gv: R.Tensor((3,), dtype="float32") = R.multiply(y, y)
        z: R.Tensor((3,), dtype="float32") = R.add(gv, y)
        return z

    a: R.Tensor((3,), dtype="float32") = R.add(x, x)
    gv2: R.Tensor((3,), dtype="float32") = R.add(a, a)
    w: R.Tensor((3,), dtype="float32") = inner(gv2)
    return w""",
    ),
    "if_nested_result": (
        """
@R.function
def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
    if c:
        y = R.add(R.multiply(x, x), x)
    else:
        y = R.multiply(x, R.add(x, x))
    z = R.add(y, R.add(y, y))
    return z
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):
    if c:
        gv: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
        y_then: R.Tensor((3,), dtype="float32") = R.add(gv, x)
        y: R.Tensor((3,), dtype="float32") = y_then
    else:
        gv2: R.Tensor((3,), dtype="float32") = R.add(x, x)
        y_else: R.Tensor((3,), dtype="float32") = R.multiply(x, gv2)
        y: R.Tensor((3,), dtype="float32") = y_else
    gv5: R.Tensor((3,), dtype="float32") = R.add(y, y)
    z: R.Tensor((3,), dtype="float32") = R.add(y, gv5)
    return z""",
    ),
    "source_document_after_gradient": (
        """
@I.ir_module
class After:
    @R.function
    def main(
        x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
    ) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            R.output(lv2)
        return lv2

    @R.function
    def main_adjoint(
        x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
    ) -> R.Tuple(
        R.Tensor((), dtype="float32"),
        R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
    ):
        with R.dataflow():
            # original bindings
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            # bindings w.r.t. intermediate variables
            lv2_adjoint: R.Tensor((), dtype="float32") = R.ones((), dtype="float32")
            lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                lv2_adjoint, (3, 3)
            )
            # bindings w.r.t. parameters
            x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            R.output(lv2, x_adjoint, y_adjoint)
        # return value: (orig_return_values, tuple(adjoints))
        return (lv2, (x_adjoint, y_adjoint))
""",
        """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main_adjoint(x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32"))):
        with R.dataflow():
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
            lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(lv2_adjoint, R.shape([3, 3]))
            x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            R.output(lv2, x_adjoint, y_adjoint)
        return (lv2, (x_adjoint, y_adjoint))

    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            R.output(lv2)
        return lv2""",
    ),
    "compound_signature_dims": (
        """
@R.function
def main(x: R.Tensor(("n * 2",), "float32"), y: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 4",), "float32"):
    n = T.int64()
    z = R.reshape(y, (n * 4,))
    return z
""",
        """\
# from typing import TypeVar
# from tvm.script import relax as R

n = TypeVar("n")
@R.function
def main(x: R.Tensor(("n * 2",), dtype="float32"), y: R.Tensor((n, 4), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
    z: R.Tensor((n * 4,), dtype="float32") = R.reshape(y, R.shape([n * 4]))
    return z""",
    ),
    "nested_tuple_unpacking": (
        """
@R.function
def main(t: R.Tuple(R.Tuple(R.Tensor((3,), "float32"), R.Object), R.Tensor((2,), "float32"))):
    (a, b), c = t
    return a
""",
        """\
# from tvm.script import relax as R

@R.function
def main(t: R.Tuple(R.Tuple(R.Tensor((3,), dtype="float32"), R.Any), R.Tensor((2,), dtype="float32"))) -> R.Tensor((3,), dtype="float32"):
    gv: R.Tuple(R.Tensor((3,), dtype="float32"), R.Any) = t[0]
    a: R.Tensor((3,), dtype="float32") = gv[0]
    b: R.Any = gv[1]
    c: R.Tensor((2,), dtype="float32") = t[1]
    return a""",
    ),
    "multi_output_dataflow": (
        """
@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
    with R.dataflow():
        a = R.add(x, y)
        b = R.multiply(a, y)
        c = R.sum(b, axis=[1], keepdims=False)
        R.output(a, c)
    return (a, c)
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2,), dtype="float32")):
    with R.dataflow():
        a: R.Tensor((2, 3), dtype="float32") = R.add(x, y)
        b: R.Tensor((2, 3), dtype="float32") = R.multiply(a, y)
        c: R.Tensor((2,), dtype="float32") = R.sum(b, axis=[1], keepdims=False)
        R.output(a, c)
    return (a, c)""",
    ),
    "match_cast_shape_and_prim": (
        """
@R.function
def main(s: R.Shape(ndim=2), p: R.Prim("int64"), x: R.Tensor(ndim=2, dtype="float32")):
    a = T.int64()
    b = T.int64()
    s2 = R.match_cast(s, R.Shape([a, b]))
    y = R.match_cast(x, R.Tensor((a, b), "float32"))
    z = R.reshape(y, R.shape([b, a]))
    return z
""",
        """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@R.function
def main(s: R.Shape(ndim=2), p: T.int64, x: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=2):
    a = T.int64()
    b = T.int64()
    s2: R.Shape([a, b]) = R.match_cast(s, R.Shape([a, b]))
    y: R.Tensor((a, b), dtype="float32") = R.match_cast(x, R.Tensor((a, b), dtype="float32"))
    z: R.Tensor((b, a), dtype="float32") = R.reshape(y, R.shape([b, a]))
    return z""",
    ),
    "packed_multi_ty_args": (
        """
@R.function(pure=False)
def main(x: R.Tensor((3,), "float32")):
    y = R.call_packed("f", x, R.prim_value(1), R.str("s"), ty_args=[R.Tensor((3,), "float32")])
    z = R.call_packed("g", y, ty_args=(R.Tuple(R.Tensor((3,), "float32"), R.Object),))
    return z
""",
        """\
# from tvm.script import relax as R

@R.function(pure=False)
def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Any):
    y: R.Tensor((3,), dtype="float32") = R.call_packed("f", x, 1, R.str("s"), ty_args=(R.Tensor((3,), dtype="float32"),))
    z: R.Tuple(R.Tensor((3,), dtype="float32"), R.Any) = R.call_packed("g", y, ty_args=(R.Tuple(R.Tensor((3,), dtype="float32"), R.Any),))
    return z""",
    ),
    "annotated_if_result": (
        """
@R.function
def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor(ndim=1, dtype="float32"):
    if c:
        y: R.Tensor(ndim=1, dtype="float32") = R.add(x, x)
    else:
        y: R.Tensor(ndim=1, dtype="float32") = R.multiply(x, x)
    return y
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor(dtype="float32", ndim=1):
    if c:
        y_then: R.Tensor(dtype="float32", ndim=1) = R.add(x, x)
        y: R.Tensor(dtype="float32", ndim=1) = y_then
    else:
        y_else: R.Tensor(dtype="float32", ndim=1) = R.multiply(x, x)
        y: R.Tensor(dtype="float32", ndim=1) = y_else
    return y""",
    ),
    "shape_arithmetic": (
        """
@R.function
def main(x: R.Tensor(("n", "m"), "float32")):
    n = T.int64()
    m = T.int64()
    y = R.reshape(x, (n * m,))
    z = R.reshape(y, R.shape([m, n]))
    w: R.Tensor((m * n,), "float32") = R.reshape(z, (2 * 3 * 0 + m * n,))
    return w
""",
        """\
# from typing import TypeVar
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@R.function
def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tensor(("m * n",), dtype="float32"):
    y: R.Tensor((n * m,), dtype="float32") = R.reshape(x, R.shape([n * m]))
    z: R.Tensor((m, n), dtype="float32") = R.reshape(y, R.shape([m, n]))
    w: R.Tensor((m * n,), dtype="float32") = R.reshape(z, R.shape([m * n]))
    return w""",
    ),
    "local_function_twice": (
        """
@R.function
def main(x: R.Tensor((3,), "float32")):
    @R.function
    def sq(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        z = R.multiply(y, y)
        return z

    a = sq(x)
    b = sq(a)
    return b
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
    # from tvm.script import relax as R
    
    @R.function
    def sq(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        z: R.Tensor((3,), dtype="float32") = R.multiply(y, y)
        return z

    a: R.Tensor((3,), dtype="float32") = sq(x)
    b: R.Tensor((3,), dtype="float32") = sq(a)
    return b""",
    ),
    "ops_with_attrs": (
        """
@R.function
def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 4), "float32")):
    a = R.matmul(x, y, out_dtype="float32")
    b = R.permute_dims(a)
    c = R.sum(b, axis=[0, 1], keepdims=True)
    d = R.ones(R.shape([2, 2]), "float16")
    e = R.zeros((2, 2), dtype="int32")
    f = R.broadcast_to(c, (4, 2, 2))
    return (f, d, e)
""",
        """\
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((4, 2, 2), dtype="float32"), R.Tensor((2, 2), dtype="float16"), R.Tensor((2, 2), dtype="int32")):
    a: R.Tensor((2, 4), dtype="float32") = R.matmul(x, y, out_dtype="float32")
    b: R.Tensor((4, 2), dtype="float32") = R.permute_dims(a, axes=None)
    c: R.Tensor((1, 1), dtype="float32") = R.sum(b, axis=[0, 1], keepdims=True)
    d: R.Tensor((2, 2), dtype="float16") = R.ones(R.shape([2, 2]), dtype="float16")
    e: R.Tensor((2, 2), dtype="int32") = R.zeros(R.shape([2, 2]), dtype="int32")
    f: R.Tensor((4, 2, 2), dtype="float32") = R.broadcast_to(c, R.shape([4, 2, 2]))
    return (f, d, e)""",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_apache_tvm_printing(name):
    program, expected = CASES[name]
    parsed = from_source(program)
    assert parsed.script() == expected
    again = from_source(expected)
    tvm.ir.assert_structural_equal(parsed, again)
    assert again.script() == expected
