"""irtext: llvmlite.ir's builder interface with llvmlite's exact text, and LLVM accepts it.

Every test builds the same function twice, once with ``llvmlite.ir`` and once with
``tvm.backend.llvm.irtext``, from one recipe, and compares the printed modules byte for byte.
"""

import pytest

pytest.importorskip("llvmlite")

from llvmlite import ir as ll

from tvm.backend.llvm import irtext
from tvm.backend.llvm.target_machine import parse_ir


def _build(lib, recipe, arg_types=None, ret=None):
    i32 = lib.IntType(32)
    module = lib.Module("m")
    fn = lib.Function(module, lib.FunctionType(ret or i32, arg_types or [i32, i32]), "f")
    builder = lib.IRBuilder(fn.append_basic_block("entry"))
    recipe(lib, module, fn, builder)
    return str(module)


def _same(recipe, **kwargs):
    ours = _build(irtext, recipe, **kwargs)
    assert ours == _build(ll, recipe, **kwargs)
    parse_ir(ours, "m")  # and it is valid LLVM IR
    return ours


def test_arithmetic_compares_and_casts():
    def recipe(ir, module, fn, b):
        x, y = fn.args
        x.name = "x"
        s = b.add(x, y, name="sum")
        p = b.mul(s, ir.Constant(ir.IntType(32), 3))
        q = b.sdiv(b.sub(p, y), ir.Constant(ir.IntType(32), 7), name="sum")  # name taken: sum.1
        f = b.sitofp(q, ir.FloatType())
        g = b.fmul(f, ir.Constant(ir.FloatType(), 0.5), flags=("reassoc", "contract"))
        neg = b.fneg(g)
        cmp = b.fcmp_ordered("<", neg, ir.Constant(ir.FloatType(), 0.0), flags=("nnan",))
        icmp = b.icmp_unsigned(">=", q, x)
        both = b.and_(cmp, b.not_(icmp))
        wide = b.zext(both, ir.IntType(64))
        same = b.sext(x, ir.IntType(32))  # no-op cast returns the value itself
        assert same is x
        b.ret(b.select(both, b.trunc(wide, ir.IntType(32)), b.neg(x)))

    text = _same(recipe)
    assert '%"sum.1" = sdiv i32' in text
    assert "fmul reassoc contract float" in text


def test_memory_gep_phi_branches_and_metadata():
    def recipe(ir, module, fn, b):
        i32, i64, f32 = ir.IntType(32), ir.IntType(64), ir.FloatType()
        n, _ = fn.args
        buf = b.alloca(f32, size=ir.Constant(i64, 16), name="buf")
        buf.align = 64
        loop = fn.append_basic_block("loop")
        done = fn.append_basic_block("a block")  # needs quoting in its label
        entry = b.block
        b.branch(loop)
        b.position_at_end(loop)
        i = b.phi(i32, name="i")
        i.add_incoming(ir.Constant(i32, 0), entry)
        ptr = b.gep(buf, [b.sext(i, i64)], source_etype=f32)
        b.store(b.sitofp(i, f32), ptr, align=4)
        v = b.load(ptr, typ=f32, align=4)
        b.store_atomic(b.fptosi(v, i32), b.alloca(i32), "seq_cst", 4)
        nxt = b.add(i, ir.Constant(i32, 1), name="i.next")
        i.add_incoming(nxt, loop)
        br = b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
        hint = module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")])
        br.set_metadata("llvm.loop", hint)
        b.position_at_end(done)
        with b.if_then(b.icmp_signed("==", n, ir.Constant(i32, 0)), likely=False):
            b.ret(ir.Constant(i32, 1))
        b.ret(ir.Constant(i32, 0))

    text = _same(recipe)
    assert '"a block":' in text and "!prof" in text and "!llvm.loop" in text


def test_calls_vectors_and_insertion_points():
    def recipe(ir, module, fn, b):
        i32, f32, ptr = ir.IntType(32), ir.FloatType(), ir.PointerType()
        v4 = ir.VectorType(f32, 4)
        fabs = ir.Function(module, ir.FunctionType(v4, [v4]), "llvm.fabs.v4f32")
        printf = ir.Function(module, ir.FunctionType(i32, [ptr], var_arg=True), "printf")
        x, y = fn.args
        undef = ir.Constant(v4, ir.Undefined)
        vec = b.insert_element(undef, b.sitofp(x, f32), ir.Constant(i32, 0))
        splat = b.shuffle_vector(vec, undef, ir.Constant(ir.VectorType(i32, 4), [0] * 4))
        absval = b.call(fabs, [splat], name="abs")
        lane = b.extract_element(absval, ir.Constant(i32, 2))
        b.call(printf, [ir.Constant(ptr, None), lane])
        first = b.block.instructions[0]
        b.position_before(first)  # an instruction inserted at the top of the block
        b.add(x, y, name="early")
        b.position_at_end(b.block)
        b.ret(b.fptosi(lane, i32))

    text = _same(recipe)
    assert text.index('%"early"') < text.index("insertelement")
    assert "call i32 (ptr, ...) @\"printf\"" in text


def test_if_else_and_unreachable():
    def recipe(ir, module, fn, b):
        x, y = fn.args
        with b.if_else(b.icmp_signed(">", x, y), likely=True) as (then, otherwise):
            with then:
                bigger = b.sub(x, y, name="diff")
            with otherwise:
                smaller = b.sub(y, x, name="diff")
        merged = b.phi(ir.IntType(32), name="d")
        merged.add_incoming(bigger, bigger.parent)
        merged.add_incoming(smaller, smaller.parent)
        with b.if_then(b.icmp_signed("<", merged, ir.Constant(ir.IntType(32), 0))):
            b.unreachable()
        b.ret(merged)

    text = _same(recipe)
    assert "entry.else:" in text and "unreachable" in text


def test_typed_pointer_gep_and_atomics():
    def recipe(ir, module, fn, b):
        i32 = ir.IntType(32)
        arr = b.alloca(ir.ArrayType(i32, 8), name="arr")
        elem = b.gep(arr, [ir.Constant(i32, 0), fn.args[0]], inbounds=True)
        b.atomic_rmw("add", elem, ir.Constant(i32, 1), "seq_cst")
        b.ret(b.load_atomic(elem, "acquire", 4))

    _same(recipe)


def test_errors_are_raised_like_llvmlite():
    module = irtext.Module("m")
    i32, i64 = irtext.IntType(32), irtext.IntType(64)
    fn = irtext.Function(module, irtext.FunctionType(i32, [i32, i64]), "f")
    b = irtext.IRBuilder(fn.append_basic_block())
    x, y = fn.args
    with pytest.raises(ValueError, match="same type"):
        b.add(x, y)
    with pytest.raises(TypeError, match="not a pointer"):
        b.load(x, typ=i32)
    with pytest.raises(ValueError, match="invalid comparison"):
        b.icmp_signed("<>", x, x)
    with pytest.raises(TypeError, match="arg mismatch"):
        b.call(fn, [y, y])
    with pytest.raises(TypeError, match="takes 2 arguments"):
        b.call(fn, [x])
    b.ret(x)
    with pytest.raises(ValueError, match="already has a terminator"):
        b.ret(x)


def test_llvmlite_instructions_mix_with_irtext_blocks():
    """A llvmlite builder may append to an irtext function (tests and users do)."""
    module = irtext.Module("m")
    i32 = irtext.IntType(32)
    fn = irtext.Function(module, irtext.FunctionType(i32, [i32]), "f")
    ours = irtext.IRBuilder(fn.append_basic_block("entry"))
    doubled = ours.add(fn.args[0], fn.args[0])
    theirs = ll.IRBuilder(ours.block)
    theirs.ret(theirs.mul(doubled, ll.Constant(i32, 3)))
    text = str(module)
    assert f"mul i32 {doubled.get_reference()}, 3" in text
    parse_ir(text, "m")


def test_installed_llvmlite_is_a_tested_version():
    """irtext subclasses llvmlite's private classes: only tested versions are supported."""
    import llvmlite

    from tvm.backend.llvm import irtext

    message = irtext.untested_llvmlite(llvmlite.__version__)
    assert message is None, message
    other = irtext.untested_llvmlite("0.52.0")
    assert "llvmlite 0.52.0 is not a version" in other and "pip install" in other


def test_missing_llvmlite_names_the_install(tmp_path):
    """A venv that lost llvmlite: compiling says what to install, not a bare ImportError."""
    import os
    import subprocess
    import sys

    fake = tmp_path / "llvmlite"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ImportError("No module named llvmlite")\n')
    code = "import tvm.backend.llvm.irtext\n"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 1
    assert "the LLVM backend (CPU code generation) needs llvmlite" in proc.stderr
    assert "pip install 'llvmlite>=0.49,<0.51'" in proc.stderr
