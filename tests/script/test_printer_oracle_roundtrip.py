"""Apache TVM 0.27's printed text for Relax modules, parsed by our parser and printed again.

The expected texts were produced by Apache TVM 0.27 (format facts). Parsing one with our
parser and printing it with our printer must give it back byte for byte.
"""

import pytest

from tvm.script import from_source

CONSTRUCTS = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):
        t1: R.Tuple(R.Tensor((3,), dtype="float32")) = (x,)
        a: R.Tensor((3,), dtype="float32") = R.add(x, x)
        if c:
            b: R.Tensor((3,), dtype="float32") = R.add(x, x)
            r: R.Tensor((3,), dtype="float32") = b
        else:
            r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
            r: R.Tensor((3,), dtype="float32") = r_else
        e = R.call_dps_packed("ext", (x,), out_ty=R.Tensor((3,), dtype="float32"))
        k: R.Tensor((), dtype="float32") = R.const(0.10000000149011612, "float32")
        k2: R.Tensor((), dtype="int32") = R.const(-2, "int32")
        k3: R.Tensor((), dtype="bool") = R.const(True, "bool")
        w: R.Tensor((3,), dtype="float32") = R.permute_dims(x, axes=None)
        q: R.Tensor((3, 1), dtype="float32") = R.reshape(x, R.shape([3, 1]))
        zz: R.Tensor((2, 2), dtype="float16") = R.zeros(R.shape([2, 2]), dtype="float16")
        gv13: R.Tensor((1, 3), dtype="float32") = R.permute_dims(q, axes=[1, 0])
        mm: R.Tensor((3, 3), dtype="float32") = R.matmul(q, gv13, out_dtype="float32")
        return r"""

SIGNATURES_AND_ATTRS = """\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"attr": 10})
    @R.function
    def f(x: R.Tensor((5, 4), dtype="float32"), y: R.Tensor((5, 4), dtype="float32")) -> R.Tensor((5, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((5, 4), dtype="float32") = R.add(x, y)
            lv_1: R.Tensor((5, 4), dtype="float32") = R.multiply(lv, lv)
            z: R.Tensor((), dtype="float32") = R.const(1.0, "float32")
            t: R.Tuple(R.Tensor((5, 4), dtype="float32"), R.Tensor((), dtype="float32")) = lv_1, z
            g: R.Tensor((5, 4), dtype="float32") = t[0]
            s: R.Shape([5, 4]) = R.shape([5, 4])
            p: T.int64 = 3
            st: I.StringType() = R.str("hi")
            dt: R.Any = R.dtype("float32")
            R.output(lv_1, g)
        return lv_1

    @R.function(pure=False, private=True)
    def g(x: R.Tensor(dtype="float32", ndim=2), o: R.Any, s: R.Shape([2, 3]), p: T.int64, t: R.Tuple(R.Tensor, R.Tensor((2,), dtype="int32")), cb: R.Callable((R.Tensor((3,), dtype="float32"),), R.Tensor((3,), dtype="float32"), True)) -> R.Tensor(dtype="float32", ndim=2):
        R.func_attr({"num_input": 1})
        m = T.int64()
        k = T.int64()
        cls = Module
        a: R.Tensor((2, 3), dtype="float32") = R.call_packed("foo", x, ty_args=(R.Tensor((2, 3), dtype="float32"),))
        b: R.Tensor((m, k), dtype="float32") = R.match_cast(x, R.Tensor((m, k), dtype="float32"))
        c: R.Tensor(dtype="float32", ndim=2) = R.sum(x, axis=[0], keepdims=True)
        e: R.Tensor((5, 4), dtype="float32") = cls.f(x, x)
        return b"""

BLOCKS_AND_TUPLES = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((3, 2), dtype="float32")) -> R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tuple(R.Tensor((2, 3), dtype="float32"))):
        with R.dataflow():
            a: R.Tensor((2, 2), dtype="float32") = R.matmul(x, y, out_dtype=None)
            b: R.Tensor((2, 2), dtype="float32") = R.add(a, R.const(2.5, "float32"))
            c: R.Tensor((2, 2), dtype="float32") = R.match_cast(b, R.Tensor((2, 2), dtype="float32"))
            d: R.Tensor((), dtype="float32") = R.sum(c, axis=[0, 1], keepdims=False)
            R.output(c, d)
        t: R.Tuple(R.Tuple(R.Tensor((2, 3), dtype="float32"))) = ((x,),)
        u: R.Tuple(R.Tensor((2, 3), dtype="float32")) = t[0]
        v: R.Tensor((2, 3), dtype="float32") = u[0]
        w: R.Tensor((3, 2), dtype="float32") = R.permute_dims(v, axes=[1, 0])
        with R.dataflow():
            z: R.Tensor((2, 2), dtype="float32") = R.multiply(c, c)
            r: R.Tuple(R.Tensor((2, 2), dtype="float32"), R.Tuple(R.Tensor((2, 3), dtype="float32"))) = z, (v,)
            R.output(r)
        return r"""

PRIVATE_IF_AND_CREATION = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((4,), dtype="int32")) -> R.Tensor((4,), dtype="int32"):
        y: R.Tensor((4,), dtype="int32") = R.add(x, R.const(1, "int32"))
        return y

    @R.function
    def main(x: R.Tensor((4,), dtype="int32"), flag: R.Tensor((), dtype="bool")) -> R.Tensor((4,), dtype="int32"):
        cls = Module
        if flag:
            a: R.Tensor((4,), dtype="int32") = cls.helper(x)
            r_then: R.Tensor((4,), dtype="int32") = R.multiply(a, a)
            r: R.Tensor((4,), dtype="int32") = r_then
        else:
            r: R.Tensor((4,), dtype="int32") = x
        s: R.Tensor((4,), dtype="int32") = R.ones(R.shape([4]), dtype="int32")
        q: R.Tensor((2, 2), dtype="float32") = R.zeros(R.shape([2, 2]), dtype="float32")
        return r"""


@pytest.mark.parametrize(
    "text",
    [CONSTRUCTS, SIGNATURES_AND_ATTRS, BLOCKS_AND_TUPLES, PRIVATE_IF_AND_CREATION],
    ids=["constructs", "signatures", "blocks", "private"],
)
def test_tvm_text_reprints_identically(text):
    assert from_source(text).script() == text


NESTED = """\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):
        # from tvm.script import relax as R
        
        @R.function
        def inner(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            z: R.Tensor((3,), dtype="float32") = R.add(y, y)
            return z

        a: R.Tensor((3,), dtype="float32") = inner(x)
        if c:
            b: R.Tensor((3,), dtype="float32") = R.add(x, x)
            r: R.Tensor((3,), dtype="float32") = b
        else:
            r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)
            r: R.Tensor((3,), dtype="float32") = r_else
        return r

    @R.function
    def g(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        return x"""


def test_root_underline_skips_comments_and_blank_lines():
    from tvm_ffi.access_path import AccessPath

    text = from_source(NESTED).script(
        path_to_underline=[AccessPath.root()], print_line_numbers=True
    )
    assert text == 'Access path: <root>\n\n 1 # from tvm.script import ir as I\n 2 # from tvm.script import relax as R\n 3 \n 4 @I.ir_module\n   ^^^^^^^^^^^^\n 5 class Module:\n   ^^^^^^^^^^^^^\n 6     @R.function\n       ^^^^^^^^^^^\n 7     def f(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((3,), dtype="float32"):\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n 8         # from tvm.script import relax as R\n 9         \n10         @R.function\n           ^^^^^^^^^^^\n11         def inner(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n12             z: R.Tensor((3,), dtype="float32") = R.add(y, y)\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n13             return z\n\n               ^^^^^^^^\n14         a: R.Tensor((3,), dtype="float32") = inner(x)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n15         if c:\n           ^^^^^\n16             b: R.Tensor((3,), dtype="float32") = R.add(x, x)\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n17             r: R.Tensor((3,), dtype="float32") = b\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n18         else:\n           ^^^^^\n19             r_else: R.Tensor((3,), dtype="float32") = R.multiply(x, x)\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n20             r: R.Tensor((3,), dtype="float32") = r_else\n               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n21         return r\n\n           ^^^^^^^^\n22     @R.function\n       ^^^^^^^^^^^\n23     def g(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n24         return x\n           ^^^^^^^^'
