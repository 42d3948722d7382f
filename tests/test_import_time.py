"""``import tvm`` imports the compiler layers on first use (issue 23). Nothing here is timed
(``benchmarks/import_time.py`` measures); each case runs in a fresh interpreter."""

import subprocess
import sys
import textwrap


def _child(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          encoding="utf-8", errors="replace", timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_import_tvm_imports_no_compiler_layer():
    out = _child("""
        import sys
        import tvm
        layers = sorted({m.split(".")[1] for m in sys.modules if m.startswith("tvm.")})
        print(" ".join(layers))
        print("llvmlite" in sys.modules, "torch" in sys.modules)
    """).split("\n")
    loaded = set(out[0].split())
    for layer in ("ir", "target", "arith", "tirx", "s_tir", "te", "topi", "relax", "script",
                  "driver"):
        assert layer not in loaded, out[0]
    assert {"runtime", "backend", "error"} <= loaded
    assert out[1] == "False False"


def test_first_use_of_any_layer_imports_them_all():
    out = _child("""
        import sys
        import tvm
        mod = tvm.IRModule()  # a re-exported name
        print(all(f"tvm.{name}" in sys.modules for name in
                  ("ir", "target", "arith", "tirx", "s_tir", "te", "topi", "relax", "script",
                   "driver")))
        print(tvm.compile.__module__, tvm.build.__module__, tvm.transform.__name__)
        print(tvm.relax.op.add.__name__, tvm.tirx.PrimFunc.__name__, tvm.script.tirx.__name__)
        print(tvm.ir.Op.get("relax.add").name)  # relax ops registered
        print("relax" in dir(tvm), "compile" in dir(tvm))
    """).split("\n")
    assert out[0] == "True"
    assert out[1] == "tvm.driver.build_module tvm.driver.build_module tvm.ir.transform"
    assert out[2] == "add PrimFunc tvm.script.parser.tirx"
    assert out[3] == "relax.add"
    assert out[4] == "True True"


def test_backends_bind_under_tirx_when_it_is_imported_later():
    out = _child("""
        import tvm
        import tvm.tirx  # an import statement, not an attribute of tvm
        from tvm.tirx.compilation_pipeline import get_tir_pipeline
        print(tvm.tirx.cuda.__name__, tvm.tirx.trn.__name__)
        print(get_tir_pipeline("cuda").__module__)
        import tvm.tirx.trn.transform
        print(tvm.tirx.trn.transform.__name__)
    """).split("\n")
    assert out[0] == "tvm.backend.cuda tvm.backend.trn"
    assert out[1] == "tvm.backend.cuda"
    assert out[2] == "tvm.backend.trn.transform"


def test_first_use_from_several_threads():
    out = _child("""
        import threading
        import tvm

        start, seen, errors = threading.Barrier(8), [], []

        def work():
            start.wait()
            try:
                seen.append(tvm.relax.op.nn.softmax.__name__ + tvm.compile.__name__)
            except Exception as err:
                errors.append(repr(err))

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len(seen), errors)
    """)
    assert out.strip() == "8 []"


def test_unknown_attribute_is_an_attribute_error():
    out = _child("""
        import tvm
        try:
            tvm.no_such_thing
        except AttributeError as err:
            print(err)
    """)
    assert out.strip() == "module 'tvm' has no attribute 'no_such_thing'"
