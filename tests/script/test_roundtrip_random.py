"""Round trips over random modules: random chains of ops over random (symbolic) shapes.

Modules are built with ``relax.BlockBuilder``, printed, parsed back, compared structurally,
and printed again (the text must not change).
"""

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tirx
from tvm.script import from_source

#: Elementwise unary ops used when the op library provides them (``R`` follows it).
_UNARY = [
    name for name in ("exp", "negative", "abs", "tanh", "sigmoid", "sqrt", "square")
    if hasattr(relax.op, name)
]
if hasattr(relax.op, "nn") and hasattr(relax.op.nn, "relu"):
    _UNARY.append("nn.relu")


def _unary(name):
    fn = relax.op
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


def _dims(ty):
    return [d.value if isinstance(d, tirx.IntImm) else d for d in ty.shape.values]


def _static(dims):
    return all(isinstance(d, int) for d in dims)


@st.composite
def programs(draw):
    """A list of ``(op, choice)`` steps plus the parameter shapes."""
    symbolic = draw(st.booleans())
    rank = draw(st.integers(1, 3))
    dims = [draw(st.integers(1, 4)) for _ in range(rank)]
    steps = draw(st.lists(st.tuples(st.sampled_from(
        ["add", "multiply", "sum", "permute", "reshape", "broadcast", "matmul", "ones", "unary",
         "if", "match_cast"]
    ), st.integers(0, 1000)), min_size=1, max_size=8))
    use_dataflow = draw(st.booleans())
    helper = draw(st.sampled_from([None, "private", "public"]))
    return symbolic, dims, steps, use_dataflow, helper


def _apply(bb, pool, op, choice, cond=None):
    """Emit one step over a value of ``pool``; returns the new variable or None."""
    x = pool[choice % len(pool)]
    ty = x.ty
    dims = _dims(ty)
    if op in ("add", "multiply"):
        same = [v for v in pool if tvm.ir.structural_equal(v.ty, ty)]
        y = same[choice % len(same)]
        return bb.emit(getattr(relax.op, op)(x, y))
    if op == "sum" and dims:
        axis = choice % len(dims)
        return bb.emit(relax.op.sum(x, axis=[axis], keepdims=bool(choice % 2)))
    if op == "permute" and len(dims) >= 2:
        axes = list(range(len(dims)))
        axes = axes[choice % len(axes):] + axes[: choice % len(axes)]
        return bb.emit(relax.op.permute_dims(x, axes=axes))
    if op == "reshape" and _static(dims):
        return bb.emit(relax.op.reshape(x, (math.prod(dims),)))
    if op == "broadcast" and _static(dims):
        return bb.emit(relax.op.broadcast_to(x, relax.ShapeExpr([2] + dims)))
    if op == "matmul" and len(dims) == 2:
        xt = bb.emit(relax.op.permute_dims(x, axes=[1, 0]))
        return bb.emit(relax.op.matmul(x, xt))
    if op == "unary" and _UNARY:
        return bb.emit(_unary(_UNARY[choice % len(_UNARY)])(x))
    if op == "if" and cond is not None:
        # Branch bodies are plain expressions; normalization makes them SeqExprs.
        return bb.emit(relax.If(cond, relax.op.multiply(x, x), x))
    if op == "match_cast":
        # A fresh symbolic first dimension, defined by the match_cast itself.
        fresh = [tirx.Var(f"m{choice}", "int64")] + dims[1:]
        return bb.match_cast(x, relax.TensorType(fresh, "float32"))
    if op == "ones" and _static(dims):
        return bb.emit(relax.op.ones(relax.ShapeExpr(dims), "float32"))
    return None


def _add_helper(bb, ty, private):
    """A second module function ``helper(a) = a * a`` (called from ``main``)."""
    a = relax.Var("a", ty)
    with bb.function("helper", [a], attrs={"k": 1}, private=private):
        out = bb.emit(relax.op.multiply(a, a))
        bb.emit_func_output(out)
    return bb.get().get_global_var("helper")


def _build(symbolic, dims, steps, use_dataflow, helper=None):
    shape = list(dims)
    if symbolic:
        shape[0] = tirx.Var("n", "int64")
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    cond = relax.Var("c", relax.TensorType((), "bool"))
    bb = relax.BlockBuilder()
    gvar = None
    if helper is not None:
        gvar = _add_helper(bb, relax.TensorType(list(dims), "float32"), helper == "private")
    with bb.function("main", [x, cond]):
        pool = [x]
        if gvar is not None and not symbolic:
            pool.append(bb.emit(relax.Call(gvar, [x])))
        if use_dataflow:
            with bb.dataflow():
                for op, choice in steps:
                    out = _apply(bb, pool, op, choice)
                    if out is not None:
                        pool.append(out)
                result = bb.emit_output(pool[-1])
        else:
            for op, choice in steps:
                out = _apply(bb, pool, op, choice, cond)
                if out is not None:
                    pool.append(out)
            result = pool[-1]
        bb.emit_func_output(result)
    return bb.get()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_module_roundtrip(program):
    mod = _build(*program)
    text = mod.script()
    again = from_source(text)
    tvm.ir.assert_structural_equal(mod, again)
    assert again.script() == text
