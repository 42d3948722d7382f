"""Relax programs printed as Apache TVM 0.27 prints them (and parsed back).

Each case is a realistic Relax program (an MLP, a conv net, reductions, tuples, symbolic
shapes with match_cast, if/else, several functions, packed calls...). ``EXPECTED`` holds the
text TVM 0.27 prints after parsing the same source; our parser and printer must produce it
exactly, and parsing that text again must give a structurally equal module.
"""

import pytest

import tvm
from tvm.script import from_source

SOURCES = {}
EXPECTED = {}

SOURCES['mlp'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w1: R.Tensor((784, 128), "float32"), b1: R.Tensor((128,), "float32"), w2: R.Tensor((128, 10), "float32"), b2: R.Tensor((10,), "float32")):
        with R.dataflow():
            h = R.matmul(x, w1)
            h1 = R.add(h, b1)
            h2 = R.nn.relu(h1)
            o = R.matmul(h2, w2)
            o1 = R.add(o, b2)
            out = R.nn.softmax(o1, axis=-1)
            R.output(out)
        return out
'''

EXPECTED['mlp'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), dtype="float32"), w1: R.Tensor((784, 128), dtype="float32"), b1: R.Tensor((128,), dtype="float32"), w2: R.Tensor((128, 10), dtype="float32"), b2: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            h: R.Tensor((1, 128), dtype="float32") = R.matmul(x, w1, out_dtype=None)
            h1: R.Tensor((1, 128), dtype="float32") = R.add(h, b1)
            h2: R.Tensor((1, 128), dtype="float32") = R.nn.relu(h1)
            o: R.Tensor((1, 10), dtype="float32") = R.matmul(h2, w2, out_dtype=None)
            o1: R.Tensor((1, 10), dtype="float32") = R.add(o, b2)
            out: R.Tensor((1, 10), dtype="float32") = R.nn.softmax(o1, axis=-1)
            R.output(out)
        return out'''

SOURCES['convnet'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 32, 32), "float32"), w: R.Tensor((16, 3, 3, 3), "float32"), g: R.Tensor((16,), "float32"), b: R.Tensor((16,), "float32"), m: R.Tensor((16,), "float32"), v: R.Tensor((16,), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1])
            bn = R.nn.batch_norm(c, g, b, m, v, axis=1)
            y = bn[0]
            r = R.nn.relu(y)
            p = R.nn.max_pool2d(r, pool_size=[2, 2], strides=[2, 2])
            a = R.nn.adaptive_avg_pool2d(p, output_size=[1, 1])
            f = R.reshape(a, [1, 16])
            R.output(f)
        return f
'''

EXPECTED['convnet'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 32, 32), dtype="float32"), w: R.Tensor((16, 3, 3, 3), dtype="float32"), g: R.Tensor((16,), dtype="float32"), b: R.Tensor((16,), dtype="float32"), m: R.Tensor((16,), dtype="float32"), v: R.Tensor((16,), dtype="float32")) -> R.Tensor((1, 16), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype=None)
            bn: R.Tuple(R.Tensor((1, 16, 32, 32), dtype="float32"), R.Tensor((16,), dtype="float32"), R.Tensor((16,), dtype="float32")) = R.nn.batch_norm(c, g, b, m, v, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=True)
            y: R.Tensor((1, 16, 32, 32), dtype="float32") = bn[0]
            r: R.Tensor((1, 16, 32, 32), dtype="float32") = R.nn.relu(y)
            p: R.Tensor((1, 16, 16, 16), dtype="float32") = R.nn.max_pool2d(r, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            a: R.Tensor((1, 16, 1, 1), dtype="float32") = R.nn.adaptive_avg_pool2d(p, output_size=[1, 1], layout="NCHW", out_layout="NCHW")
            f: R.Tensor((1, 16), dtype="float32") = R.reshape(a, R.shape([1, 16]))
            R.output(f)
        return f'''

SOURCES['reductions'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8, 16), "float32")):
        with R.dataflow():
            s = R.sum(x, axis=[1], keepdims=True)
            m = R.mean(x, axis=[0, 2])
            mx = R.max(x)
            mn = R.min(x, axis=-1)
            p = R.prod(x, axis=[2])
            v = R.variance(x, axis=[1])
            am = R.argmax(x, axis=1)
            R.output(s, m, mx, mn, p, v, am)
        return (s, m, mx, mn, p, v, am)
'''

EXPECTED['reductions'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8, 16), dtype="float32")) -> R.Tuple(R.Tensor((4, 1, 16), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((), dtype="float32"), R.Tensor((4, 8), dtype="float32"), R.Tensor((4, 8), dtype="float32"), R.Tensor((4, 16), dtype="float32"), R.Tensor((4, 16), dtype="int64")):
        with R.dataflow():
            s: R.Tensor((4, 1, 16), dtype="float32") = R.sum(x, axis=[1], keepdims=True)
            m: R.Tensor((8,), dtype="float32") = R.mean(x, axis=[0, 2], keepdims=False)
            mx: R.Tensor((), dtype="float32") = R.max(x, axis=None, keepdims=False)
            mn: R.Tensor((4, 8), dtype="float32") = R.min(x, axis=[-1], keepdims=False)
            p: R.Tensor((4, 8), dtype="float32") = R.prod(x, axis=[2], keepdims=False)
            v: R.Tensor((4, 16), dtype="float32") = R.variance(x, axis=[1], keepdims=False)
            am: R.Tensor((4, 16), dtype="int64") = R.argmax(x, axis=1, keepdims=False)
            R.output(s, m, mx, mn, p, v, am)
        return (s, m, mx, mn, p, v, am)'''

SOURCES['tuples'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        t = (x, y)
        a = t[0]
        b = t[1]
        c = R.add(a, b)
        nested = ((x, y), c)
        d = nested[0][1]
        e = R.split(c, indices_or_sections=3, axis=1)
        f = e[2]
        return (nested, d, f)
'''

EXPECTED['tuples'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tuple(R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")), R.Tensor((2, 3), dtype="float32")), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 1), dtype="float32")):
        t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = x, y
        a: R.Tensor((2, 3), dtype="float32") = t[0]
        b: R.Tensor((2, 3), dtype="float32") = t[1]
        c: R.Tensor((2, 3), dtype="float32") = R.add(a, b)
        nested: R.Tuple(R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")), R.Tensor((2, 3), dtype="float32")) = (x, y), c
        gv5: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = nested[0]
        d: R.Tensor((2, 3), dtype="float32") = gv5[1]
        e: R.Tuple(R.Tensor((2, 1), dtype="float32"), R.Tensor((2, 1), dtype="float32"), R.Tensor((2, 1), dtype="float32")) = R.split(c, indices_or_sections=3, axis=1)
        f: R.Tensor((2, 1), dtype="float32") = e[2]
        return (nested, d, f)'''

SOURCES['match_cast_symbolic'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32"), y: R.Tensor(ndim=2, dtype="float32")):
        n = T.int64()
        m = T.int64()
        k = T.int64()
        z = R.match_cast(y, R.Tensor((m, k), "float32"))
        w = R.matmul(x, z)
        s = R.shape([n, k])
        r = R.reshape(w, R.shape([n * k]))
        return r
'''

EXPECTED['match_cast_symbolic'] = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32"), y: R.Tensor(dtype="float32", ndim=2)) -> R.Tensor(dtype="float32", ndim=1):
        k = T.int64()
        z: R.Tensor((m, k), dtype="float32") = R.match_cast(y, R.Tensor((m, k), dtype="float32"))
        w: R.Tensor((n, k), dtype="float32") = R.matmul(x, z, out_dtype=None)
        s: R.Shape([n, k]) = R.shape([n, k])
        r: R.Tensor((n * k,), dtype="float32") = R.reshape(w, R.shape([n * k]))
        return r'''

SOURCES['if_else'] = '''
@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")):
        if cond:
            y = R.add(x, x)
            z = R.multiply(y, y)
        else:
            y = R.subtract(x, x)
            z = R.exp(y)
        return z
'''

EXPECTED['if_else'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(cond: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        if cond:
            y: R.Tensor((3,), dtype="float32") = R.add(x, x)
            z_then: R.Tensor((3,), dtype="float32") = R.multiply(y, y)
            z: R.Tensor((3,), dtype="float32") = z_then
        else:
            y: R.Tensor((3,), dtype="float32") = R.subtract(x, x)
            z_else: R.Tensor((3,), dtype="float32") = R.exp(y)
            z: R.Tensor((3,), dtype="float32") = z_else
        return z'''

SOURCES['multi_func'] = '''
@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.sigmoid(x)
        return y

    @R.function(private=True)
    def priv(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.tanh(x)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        a = cls.helper(x)
        b = cls.priv(a)
        return b
'''

EXPECTED['multi_func'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        y: R.Tensor((4,), dtype="float32") = R.sigmoid(x)
        return y

    @R.function(private=True)
    def priv(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        gv: R.Tensor((4,), dtype="float32") = R.tanh(x)
        return gv

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        a: R.Tensor((4,), dtype="float32") = cls.helper(x)
        b: R.Tensor((4,), dtype="float32") = cls.priv(a)
        return b'''

SOURCES['call_tir'] = '''
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
            R.output(y)
        return y
'''

EXPECTED['call_tir'] = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), dtype="float32"))
            R.output(y)
        return y'''

SOURCES['attention'] = '''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 8, 64), "float16"), k: R.Tensor((1, 8, 64), "float16"), v: R.Tensor((1, 8, 64), "float16")):
        with R.dataflow():
            kt = R.permute_dims(k, [0, 2, 1])
            s = R.matmul(q, kt)
            sc = R.multiply(s, R.const(0.125, "float16"))
            p = R.nn.softmax(sc, axis=-1)
            o = R.matmul(p, v)
            R.output(o)
        return o
'''

EXPECTED['attention'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 8, 64), dtype="float16"), k: R.Tensor((1, 8, 64), dtype="float16"), v: R.Tensor((1, 8, 64), dtype="float16")) -> R.Tensor((1, 8, 64), dtype="float16"):
        with R.dataflow():
            kt: R.Tensor((1, 64, 8), dtype="float16") = R.permute_dims(k, axes=[0, 2, 1])
            s: R.Tensor((1, 8, 8), dtype="float16") = R.matmul(q, kt, out_dtype=None)
            sc: R.Tensor((1, 8, 8), dtype="float16") = R.multiply(s, R.const(0.125, "float16"))
            p: R.Tensor((1, 8, 8), dtype="float16") = R.nn.softmax(sc, axis=-1)
            o: R.Tensor((1, 8, 64), dtype="float16") = R.matmul(p, v, out_dtype=None)
            R.output(o)
        return o'''

SOURCES['layer_norm'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16, 32), "float32"), g: R.Tensor((32,), "float32"), b: R.Tensor((32,), "float32")):
        with R.dataflow():
            y = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5)
            z = R.nn.gelu(y)
            w = R.nn.dropout(z, rate=0.1)
            o = w[0]
            R.output(o)
        return o
'''

EXPECTED['layer_norm'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 16, 32), dtype="float32"), g: R.Tensor((32,), dtype="float32"), b: R.Tensor((32,), dtype="float32")) -> R.Tensor((2, 16, 32), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((2, 16, 32), dtype="float32") = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1.0000000000000001e-05, center=True, scale=True)
            z: R.Tensor((2, 16, 32), dtype="float32") = R.nn.gelu(y)
            w: R.Tuple(R.Tensor((2, 16, 32), dtype="float32"), R.Tensor((2, 16, 32), dtype="float32")) = R.nn.dropout(z, rate=0.10000000000000001)
            o: R.Tensor((2, 16, 32), dtype="float32") = w[0]
            R.output(o)
        return o'''

SOURCES['shape_ops'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        with R.dataflow():
            a = R.expand_dims(x, axis=[0])
            b = R.squeeze(a, axis=[0])
            c = R.concat([x, x], axis=1)
            d = R.flatten(c)
            e = R.broadcast_to(R.const(1.0, "float32"), R.shape([2, 3, 4]))
            f = R.strided_slice(x, axes=[1], begin=[0], end=[2])
            g = R.astype(f, "float16")
            h = R.take(x, R.const([0, 1], "int64"), axis=2)
            R.output(d, e, g, h)
        return (d, e, g, h)
'''

EXPECTED['shape_ops'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((48,), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 2, 4), dtype="float16"), R.Tensor((2, 3, 2), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((1, 2, 3, 4), dtype="float32") = R.expand_dims(x, axis=[0])
            b: R.Tensor((2, 3, 4), dtype="float32") = R.squeeze(a, axis=[0])
            c: R.Tensor((2, 6, 4), dtype="float32") = R.concat((x, x), axis=1)
            d: R.Tensor((48,), dtype="float32") = R.flatten(c)
            e: R.Tensor((2, 3, 4), dtype="float32") = R.broadcast_to(R.const(1.0, "float32"), R.shape([2, 3, 4]))
            f: R.Tensor((2, 2, 4), dtype="float32") = R.strided_slice(x, (1,), (0,), (2,), assume_inbound=False)
            g: R.Tensor((2, 2, 4), dtype="float16") = R.astype(f, dtype="float16")
            h: R.Tensor((2, 3, 2), dtype="float32") = R.take(x, metadata["ir.GenericConst"][0], axis=2, mode="fast")
            R.output(d, e, g, h)
        return (d, e, g, h)

# Metadata omitted. Use show_meta=True in script() method to show it.'''

SOURCES['prim_values'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Prim("int64")):
        n = T.int64()
        a = R.prim_value(T.int64(3))
        sh = R.shape_of(x)
        b = R.prim_value(n)
        return (a, sh, b, s)
'''

EXPECTED['prim_values'] = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32"), s: T.int64) -> R.Tuple(T.int64, R.Shape([n]), T.int64, T.int64):
        a: T.int64 = 3
        sh: R.Shape([n]) = R.shape_of(x)
        b: T.int64 = n
        return (a, sh, b, s)'''

SOURCES['impure_packed'] = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        R.print(x, format="value: {}")
        y = R.call_packed("test.vm.identity", x, R.prim_value(1), "s", ty_args=R.Tensor((3,), "float32"))
        z = R.call_pure_packed("test.pure", y, ty_args=R.Tensor((3,), "float32"))
        R.assert_op(R.const(True, "bool"), x, format="failed: {}")
        return z
'''

EXPECTED['impure_packed'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.print(x, format=R.str("value: {}"))
        y: R.Tensor((3,), dtype="float32") = R.call_packed("test.vm.identity", x, 1, R.str("s"), ty_args=(R.Tensor((3,), dtype="float32"),))
        z: R.Tensor((3,), dtype="float32") = R.call_pure_packed("test.pure", y, ty_args=(R.Tensor((3,), dtype="float32"),))
        R.assert_op(R.const(True, "bool"), x, format=R.str("failed: {}"))
        return z'''

SOURCES['nested_func'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        @R.function
        def inner(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            z = R.add(y, y)
            return z
        a = inner(x)
        return a
'''

EXPECTED['nested_func'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        # from tvm.script import relax as R
        
        @R.function
        def inner(y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            z: R.Tensor((3,), dtype="float32") = R.add(y, y)
            return z

        a: R.Tensor((3,), dtype="float32") = inner(x)
        return a'''

SOURCES['func_attrs'] = '''
@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib"})
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        R.func_attr({"num_input": 1, "relax.force_pure": True})
        y = R.nn.relu(x)
        return y
'''

EXPECTED['func_attrs'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_attrs({"system_lib_prefix": "lib"})
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"num_input": 1, "relax.force_pure": True})
        y: R.Tensor((3,), dtype="float32") = R.nn.relu(x)
        return y'''

SOURCES['dyn_shapes'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("b", 128), "float32"), w: R.Tensor((128, "h"), "float32")) -> R.Tensor(("b", "h"), "float32"):
        b = T.int64()
        h = T.int64()
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.reshape(y, R.shape([b * h]))
            u = R.reshape(z, R.shape([b, h]))
            R.output(u)
        return u
'''

EXPECTED['dyn_shapes'] = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

b = TypeVar("b")
h = TypeVar("h")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((b, 128), dtype="float32"), w: R.Tensor((128, h), dtype="float32")) -> R.Tensor((b, h), dtype="float32"):
        with R.dataflow():
            y: R.Tensor((b, h), dtype="float32") = R.matmul(x, w, out_dtype=None)
            z: R.Tensor((b * h,), dtype="float32") = R.reshape(y, R.shape([b * h]))
            u: R.Tensor((b, h), dtype="float32") = R.reshape(z, R.shape([b, h]))
            R.output(u)
        return u'''

SOURCES['comparisons'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.greater(x, y)
            b = R.where(a, x, y)
            c = R.clip(b, 0.0, 6.0)
            d = R.logical_not(a)
            e = R.maximum(x, y)
            f = R.power(e, R.const(2.0, "float32"))
            R.output(c, d, f)
        return (c, d, f)
'''

EXPECTED['comparisons'] = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="bool"), R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            a: R.Tensor((4,), dtype="bool") = R.greater(x, y)
            b: R.Tensor((4,), dtype="float32") = R.where(a, x, y)
            c: R.Tensor((4,), dtype="float32") = R.clip(b, T.float64(0.0), T.float64(6.0))
            d: R.Tensor((4,), dtype="bool") = R.logical_not(a)
            e: R.Tensor((4,), dtype="float32") = R.maximum(x, y)
            f: R.Tensor((4,), dtype="float32") = R.power(e, R.const(2.0, "float32"))
            R.output(c, d, f)
        return (c, d, f)'''

SOURCES['unknown_types'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32"), y: R.Tensor(ndim=3), o: R.Object, s: R.Shape(ndim=2), t: R.Tuple(R.Tensor, R.Object)):
        a = R.add(x, x)
        b = t[1]
        return (a, y, b, s)
'''

EXPECTED['unknown_types'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32"), y: R.Tensor(ndim=3), o: R.Any, s: R.Shape(ndim=2), t: R.Tuple(R.Tensor, R.Any)) -> R.Tuple(R.Tensor(dtype="float32"), R.Tensor(ndim=3), R.Any, R.Shape(ndim=2)):
        a: R.Tensor(dtype="float32") = R.add(x, x)
        b: R.Any = t[1]
        return (a, y, b, s)'''

SOURCES['image_ops'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32")):
        with R.dataflow():
            a = R.tile(x, [1, 1, 2, 2])
            b = R.nn.avg_pool2d(a, pool_size=[2, 2], strides=[2, 2])
            c = R.nn.pad(b, pad_width=[0, 0, 0, 0, 1, 1, 1, 1])
            d = R.cumsum(c, axis=3)
            R.output(d)
        return d
'''

EXPECTED['image_ops'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32")) -> R.Tensor((1, 3, 10, 10), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((1, 3, 16, 16), dtype="float32") = R.tile(x, repeats=[1, 1, 2, 2])
            b: R.Tensor((1, 3, 8, 8), dtype="float32") = R.nn.avg_pool2d(a, pool_size=[2, 2], strides=[2, 2], dilation=[1, 1], padding=[0, 0, 0, 0], ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout="NCHW")
            c: R.Tensor((1, 3, 10, 10), dtype="float32") = R.nn.pad(b, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_value=0.0, pad_mode="constant")
            d: R.Tensor((1, 3, 10, 10), dtype="float32") = R.cumsum(c, axis=3, dtype=None, exclusive=False)
            R.output(d)
        return d'''

SOURCES['callable_param'] = '''
@I.ir_module
class Module:
    @R.function
    def main(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), x: R.Tensor((3,), "float32")):
        y = f(x)
        z = R.call_pure_packed("my.extern", y, ty_args=R.Tensor((3,), "float32"))
        return z
'''

EXPECTED['callable_param'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(f: R.Callable((R.Tensor((3,), dtype="float32"),), R.Tensor((3,), dtype="float32"), True), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        y: R.Tensor((3,), dtype="float32") = f(x)
        z: R.Tensor((3,), dtype="float32") = R.call_pure_packed("my.extern", y, ty_args=(R.Tensor((3,), dtype="float32"),))
        return z'''

SOURCES['create'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.full((2, 3), R.const(1.5, "float32"), "float32")
        b = R.zeros((2, 3), "int32")
        c = R.ones_like(x)
        d = R.arange(0, 10, 2, dtype="int64")
        e = R.tril(x, 1)
        f = R.full_like(x, R.const(2.0, "float32"))
        g = R.eye(3, dtype="float32")
        return (a, b, c, d, e, f, g)
'''

EXPECTED['create'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((5,), dtype="int64"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((3, 3), dtype="float32")):
        a: R.Tensor((2, 3), dtype="float32") = R.full(R.shape([2, 3]), R.const(1.5, "float32"), dtype="float32")
        b: R.Tensor((2, 3), dtype="int32") = R.zeros(R.shape([2, 3]), dtype="int32")
        c: R.Tensor((2, 3, 4), dtype="float32") = R.ones_like(x, dtype=None)
        d: R.Tensor((5,), dtype="int64") = R.arange(0, 10, 2, dtype="int64")
        e: R.Tensor((2, 3, 4), dtype="float32") = R.tril(x, 1)
        f: R.Tensor((2, 3, 4), dtype="float32") = R.full_like(x, R.const(2.0, "float32"), dtype=None)
        g: R.Tensor((3, 3), dtype="float32") = R.eye(3, 3, 0, dtype="float32")
        return (a, b, c, d, e, f, g)'''

SOURCES['sort_search'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.sort(x, axis=1, descending=True)
        b = R.argsort(x, axis=-1)
        c = R.topk(x, k=2, axis=-1)
        d = R.argmin(x, axis=0, keepdims=True)
        e = R.cumprod(x, axis=2)
        return (a, b, c, d, e)
'''

EXPECTED['sort_search'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="int32"), R.Tuple(R.Tensor((2, 3, 2), dtype="float32"), R.Tensor((2, 3, 2), dtype="int32")), R.Tensor((1, 3, 4), dtype="int64"), R.Tensor((2, 3, 4), dtype="float32")):
        a: R.Tensor((2, 3, 4), dtype="float32") = R.sort(x, axis=1, descending=True)
        b: R.Tensor((2, 3, 4), dtype="int32") = R.argsort(x, axis=-1, descending=False, dtype="int32")
        c: R.Tuple(R.Tensor((2, 3, 2), dtype="float32"), R.Tensor((2, 3, 2), dtype="int32")) = R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int32")
        d: R.Tensor((1, 3, 4), dtype="int64") = R.argmin(x, axis=0, keepdims=True)
        e: R.Tensor((2, 3, 4), dtype="float32") = R.cumprod(x, axis=2, dtype=None, exclusive=False)
        return (a, b, c, d, e)'''

SOURCES['nn_more'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.nn.log_softmax(x, axis=-1)
        b = R.nn.silu(x)
        c = R.nn.gelu_tanh(x)
        d = R.nn.leakyrelu(x, alpha=0.1)
        e = R.nn.rms_norm(x, R.const([1.0, 1.0, 1.0, 1.0], "float32"), axes=[-1])
        f = R.nn.conv1d(x, R.ones((5, 3, 3), "float32"), padding=[1, 1])
        return (a, b, c, d, e, f)
'''

EXPECTED['nn_more'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 5, 4), dtype="float32")):
        a: R.Tensor((2, 3, 4), dtype="float32") = R.nn.log_softmax(x, axis=-1)
        b: R.Tensor((2, 3, 4), dtype="float32") = R.nn.silu(x)
        c: R.Tensor((2, 3, 4), dtype="float32") = R.nn.gelu_tanh(x)
        d: R.Tensor((2, 3, 4), dtype="float32") = R.nn.leakyrelu(x, alpha=0.10000000000000001)
        e: R.Tensor((2, 3, 4), dtype="float32") = R.nn.rms_norm(x, metadata["ir.GenericConst"][0], axes=[-1], epsilon=1.0000000000000001e-05)
        gv5: R.Tensor((5, 3, 3), dtype="float32") = R.ones(R.shape([5, 3, 3]), dtype="float32")
        f: R.Tensor((2, 5, 4), dtype="float32") = R.nn.conv1d(x, gv5, strides=[1], padding=[1, 1], dilation=[1], groups=1, data_layout="NCW", kernel_layout="OIW", out_layout="NCW", out_dtype=None)
        return (a, b, c, d, e, f)

# Metadata omitted. Use show_meta=True in script() method to show it.'''

SOURCES['index_ops'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.gather_elements(x, R.zeros((2, 3, 4), "int64"), axis=1)
        b = R.scatter_elements(x, R.zeros((2, 3, 4), "int64"), x, axis=1)
        c = R.dynamic_strided_slice(x, R.const([0, 0, 0], "int64"), R.const([1, 2, 3], "int64"), R.const([1, 1, 1], "int64"))
        d = R.one_hot(R.zeros((4,), "int32"), R.prim_value(T.float32(1)), R.prim_value(T.float32(0)), 5)
        return (a, b, c, d)
'''

EXPECTED['index_ops'] = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor(dtype="float32", ndim=3), R.Tensor((4, 5), dtype="float32")):
        gv: R.Tensor((2, 3, 4), dtype="int64") = R.zeros(R.shape([2, 3, 4]), dtype="int64")
        a: R.Tensor((2, 3, 4), dtype="float32") = R.gather_elements(x, gv, axis=1)
        gv2: R.Tensor((2, 3, 4), dtype="int64") = R.zeros(R.shape([2, 3, 4]), dtype="int64")
        b: R.Tensor((2, 3, 4), dtype="float32") = R.scatter_elements(x, gv2, x, axis=1, reduction="update")
        c: R.Tensor(dtype="float32", ndim=3) = R.dynamic_strided_slice(x, metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1], metadata["ir.GenericConst"][2])
        gv5: R.Tensor((4,), dtype="int32") = R.zeros(R.shape([4]), dtype="int32")
        d: R.Tensor((4, 5), dtype="float32") = R.one_hot(gv5, T.float32(1.0), T.float32(0.0), depth=5, axis=-1)
        return (a, b, c, d)

# Metadata omitted. Use show_meta=True in script() method to show it.'''

SOURCES['manip_more'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        b = R.flip(x, axis=1)
        c = R.repeat(x, 2, axis=1)
        d = R.collapse_sum_to(x, R.shape([3, 4]))
        e = R.einsum((x, x), "ijk,ijk->ij")
        f = R.stack([x, x], axis=0)
        g = R.split(x, indices_or_sections=[1, 2], axis=1)
        return (b, c, d, e, f, g)
'''

EXPECTED['manip_more'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 6, 4), dtype="float32"), R.Tensor((3, 4), dtype="float32"), R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 2, 3, 4), dtype="float32"), R.Tuple(R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32"))):
        b: R.Tensor((2, 3, 4), dtype="float32") = R.flip(x, axis=1)
        c: R.Tensor((2, 6, 4), dtype="float32") = R.repeat(x, repeats=2, axis=1)
        d: R.Tensor((3, 4), dtype="float32") = R.collapse_sum_to(x, R.shape([3, 4]))
        e: R.Tensor((2, 3), dtype="float32") = R.einsum((x, x), subscripts="ijk,ijk->ij")
        f: R.Tensor((2, 2, 3, 4), dtype="float32") = R.stack((x, x), axis=0)
        g: R.Tuple(R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32"), R.Tensor((2, 1, 4), dtype="float32")) = R.split(x, indices_or_sections=[1, 2], axis=1)
        return (b, c, d, e, f, g)'''

SOURCES['dtype_ops'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.astype(x, "int8")
        b = R.wrap_param(x, "float16")
        c = R.isnan(x)
        d = R.round(x)
        e = R.bitwise_and(R.astype(x, "int32"), R.astype(x, "int32"))
        f = R.floor_divide(x, x)
        return (a, b, c, d, e, f)
'''

EXPECTED['dtype_ops'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="int8"), R.Tensor((2, 3, 4), dtype="float16"), R.Tensor((2, 3, 4), dtype="bool"), R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="int32"), R.Tensor((2, 3, 4), dtype="float32")):
        a: R.Tensor((2, 3, 4), dtype="int8") = R.astype(x, dtype="int8")
        b: R.Tensor((2, 3, 4), dtype="float16") = R.wrap_param(x, dtype="float16")
        c: R.Tensor((2, 3, 4), dtype="bool") = R.isnan(x)
        d: R.Tensor((2, 3, 4), dtype="float32") = R.round(x)
        gv4: R.Tensor((2, 3, 4), dtype="int32") = R.astype(x, dtype="int32")
        gv5: R.Tensor((2, 3, 4), dtype="int32") = R.astype(x, dtype="int32")
        e: R.Tensor((2, 3, 4), dtype="int32") = R.bitwise_and(gv4, gv5)
        f: R.Tensor((2, 3, 4), dtype="float32") = R.floor_divide(x, x)
        return (a, b, c, d, e, f)'''

SOURCES['closures'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = R.make_closure(Module.lifted, (x,))
        y = R.invoke_pure_closure(c, (x,), ty_args=R.Tensor((3,), "float32"))
        return y

    @R.function
    def lifted(a: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return R.add(a, b)
'''

EXPECTED['closures'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def lifted(a: R.Tensor((3,), dtype="float32"), b: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        gv: R.Tensor((3,), dtype="float32") = R.add(a, b)
        return gv

    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        c: R.Any = R.make_closure(cls.lifted, (x,))
        y: R.Tensor((3,), dtype="float32") = R.invoke_pure_closure(c, (x,), ty_args=(R.Tensor((3,), dtype="float32"),))
        return y'''

SOURCES['call_dps'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.call_dps_packed("my_kernel", (x,), out_ty=R.Tensor((3,), "float32"))
        z = R.call_dps_packed("my_kernel2", (x, y), out_ty=[R.Tensor((3,), "float32"), R.Tensor((3,), "int32")])
        return z
'''

EXPECTED['call_dps'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int32")):
        y = R.call_dps_packed("my_kernel", (x,), out_ty=R.Tensor((3,), dtype="float32"))
        z = R.call_dps_packed("my_kernel2", (x, y), out_ty=[R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="int32")])
        return z'''

SOURCES['shape_funcs'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        s = R.shape([n + 1, m * 2])
        t = R.tensor_to_shape(R.const([1, 2], "int64"))
        u = R.shape_to_tensor(s)
        v = R.reshape(x, R.shape([m, n]))
        return (s, t, u, v)
'''

EXPECTED['shape_funcs'] = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tuple(R.Shape(["n + 1", "m * 2"]), R.Shape(ndim=2), R.Tensor((2,), dtype="int64"), R.Tensor((m, n), dtype="float32")):
        s: R.Shape([n + 1, m * 2]) = R.shape([n + 1, m * 2])
        t: R.Shape(ndim=2) = R.tensor_to_shape(metadata["ir.GenericConst"][0])
        u: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(s)
        v: R.Tensor((m, n), dtype="float32") = R.reshape(x, R.shape([m, n]))
        return (s, t, u, v)

# Metadata omitted. Use show_meta=True in script() method to show it.'''

SOURCES['nested_if_dataflow'] = '''
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), d: R.Tensor((), "bool"), x: R.Tensor((3,), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            R.output(a)
        if c:
            if d:
                y = R.multiply(a, a)
            else:
                y = R.subtract(a, a)
        else:
            y = a
        return y
'''

EXPECTED['nested_if_dataflow'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), dtype="bool"), d: R.Tensor((), dtype="bool"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((3,), dtype="float32") = R.add(x, x)
            R.output(a)
        if c:
            if d:
                y_then_1: R.Tensor((3,), dtype="float32") = R.multiply(a, a)
                y_then: R.Tensor((3,), dtype="float32") = y_then_1
            else:
                y_else: R.Tensor((3,), dtype="float32") = R.subtract(a, a)
                y_then: R.Tensor((3,), dtype="float32") = y_else
            y: R.Tensor((3,), dtype="float32") = y_then
        else:
            y: R.Tensor((3,), dtype="float32") = a
        return y'''

SOURCES['func_private_attrs'] = '''
@I.ir_module
class Module:
    @R.function(private=True, pure=False)
    def helper(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        R.func_attr({"relax.force_pure": False, "custom": "v", "n": 3})
        R.print(x, format="{}")
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        y = Module.helper(x)
        return y
'''

EXPECTED['func_private_attrs'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False, private=True)
    def helper(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"custom": "v", "n": 3, "relax.force_pure": False})
        R.print(x, format=R.str("{}"))
        return x

    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        y: R.Tensor((3,), dtype="float32") = cls.helper(x)
        return y'''

SOURCES['grad_ops'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32")):
        a = R.grad.no_grad(x)
        b = R.grad.start_checkpoint(x)
        c = R.grad.end_checkpoint(b)
        return (a, c)
'''

EXPECTED['grad_ops'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 3, 4), dtype="float32")):
        a: R.Tensor((2, 3, 4), dtype="float32") = R.grad.no_grad(x)
        b: R.Tensor((2, 3, 4), dtype="float32") = R.grad.start_checkpoint(x)
        c: R.Tensor((2, 3, 4), dtype="float32") = R.grad.end_checkpoint(b)
        return (a, c)'''

SOURCES['strings_attrs'] = r'''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        R.func_attr({"a": [1, 2, 3], "b": {"k": "v"}, "c": 1.5, "d": True, "e": "s\"q"})
        s = R.str("line\nbreak \"quoted\"")
        return (x, s)
'''

EXPECTED['strings_attrs'] = r'''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), I.StringType()):
        R.func_attr({"a": [1, 2, 3], "b": {"k": "v"}, "c": 1.5, "d": True, "e": "s\"q"})
        s: I.StringType() = R.str("line\nbreak \"quoted\"")
        return (x, s)'''

SOURCES['dataflow_match_cast'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            y = R.match_cast(x, R.Tensor((n, m), "float32"))
            z = R.add(y, y)
            w = R.sum(z, axis=[1])
            R.output(w, z)
        return (w, z)
'''

EXPECTED['dataflow_match_cast'] = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2)) -> R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="float32", ndim=2)):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            y: R.Tensor((n, m), dtype="float32") = R.match_cast(x, R.Tensor((n, m), dtype="float32"))
            z: R.Tensor((n, m), dtype="float32") = R.add(y, y)
            w: R.Tensor((n,), dtype="float32") = R.sum(z, axis=[1], keepdims=False)
            R.output(z, w)
        return (w, z)'''

SOURCES['symbolic_exprs'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n * m",), "float32"):
        n = T.int64()
        m = T.int64()
        y = R.reshape(x, R.shape([n * m]))
        return y
'''

EXPECTED['symbolic_exprs'] = '''\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, m), dtype="float32")) -> R.Tensor(("n * m",), dtype="float32"):
        y: R.Tensor((n * m,), dtype="float32") = R.reshape(x, R.shape([n * m]))
        return y'''

SOURCES['attention_op'] = '''
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), "float16"), k: R.Tensor((1, 4, 2, 8), "float16"), v: R.Tensor((1, 4, 2, 8), "float16")):
        o = R.nn.attention(q, k, v, causal_mask="TopLeft")
        return o
'''

EXPECTED['attention_op'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), dtype="float16"), k: R.Tensor((1, 4, 2, 8), dtype="float16"), v: R.Tensor((1, 4, 2, 8), dtype="float16")) -> R.Tensor((1, 4, 2, 8), dtype="float16"):
        o: R.Tensor((1, 4, 2, 8), dtype="float16") = R.nn.attention(q, k, v, scale=None, causal_mask="TopLeft", window_size=None)
        return o'''

SOURCES['scalar_consts'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        a = R.const(1e-5, "float32")
        b = R.const(-3, "int64")
        c = R.const(0.1, "float64")
        d = R.const(False, "bool")
        e = R.const(65504.0, "float16")
        f = R.add(x, a)
        return (a, b, c, d, e, f)
'''

EXPECTED['scalar_consts'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="int64"), R.Tensor((), dtype="float64"), R.Tensor((), dtype="bool"), R.Tensor((), dtype="float16"), R.Tensor((3,), dtype="float32")):
        a: R.Tensor((), dtype="float32") = R.const(9.9999997473787516e-06, "float32")
        b: R.Tensor((), dtype="int64") = R.const(-3, "int64")
        c: R.Tensor((), dtype="float64") = R.const(0.10000000000000001, "float64")
        d: R.Tensor((), dtype="bool") = R.const(False, "bool")
        e: R.Tensor((), dtype="float16") = R.const(65504.0, "float16")
        f: R.Tensor((3,), dtype="float32") = R.add(x, a)
        return (a, b, c, d, e, f)'''

SOURCES['shadow_names'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.add(x, x)
        y = R.multiply(y, y)
        y = R.exp(y)
        with R.dataflow():
            lv = R.add(y, y)
            lv1 = R.add(lv, lv)
            gv = R.add(lv1, lv1)
            R.output(gv)
        return gv
'''

EXPECTED['shadow_names'] = '''\
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        y: R.Tensor((3,), dtype="float32") = R.add(x, x)
        y_1: R.Tensor((3,), dtype="float32") = R.multiply(y, y)
        y_2: R.Tensor((3,), dtype="float32") = R.exp(y_1)
        with R.dataflow():
            lv: R.Tensor((3,), dtype="float32") = R.add(y_2, y_2)
            lv1: R.Tensor((3,), dtype="float32") = R.add(lv, lv)
            gv: R.Tensor((3,), dtype="float32") = R.add(lv1, lv1)
            R.output(gv)
        return gv'''

SOURCES['return_nested'] = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        return ((x, (x,)), R.shape([1, 2]), R.prim_value(T.float32(1.5)))
'''

EXPECTED['return_nested'] = '''\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tuple(R.Tensor((3,), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"))), R.Shape([1, 2]), T.float32):
        return ((x, (x,)), R.shape([1, 2]), T.float32(1.5))'''


@pytest.mark.parametrize("name", list(SOURCES))
def test_printed_like_tvm(name):
    assert from_source(SOURCES[name]).script() == EXPECTED[name]


# TVM's text drops known scalar values from R.Prim types (``T.int64``, not
# ``R.Prim(value=3)``): reading it back gives the same text, not the same module.
_LOSSY = {"prim_values", "return_nested"}


@pytest.mark.parametrize("name", list(SOURCES))
def test_tvm_text_parses_back(name):
    mod = from_source(SOURCES[name])
    text = EXPECTED[name]
    if "metadata[" in text:
        # The constants are in the metadata section, printed only with show_meta=True.
        text = mod.script(show_meta=True)
    again = from_source(text)
    if name not in _LOSSY:
        tvm.ir.assert_structural_equal(mod, again)
    assert again.script() == EXPECTED[name]
