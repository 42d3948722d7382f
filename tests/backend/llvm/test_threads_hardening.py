"""Issue 22, defect 3: the first compiles of a fresh process may run in several threads.

``load_default_rules`` marked the legalization rules loaded before their modules were
imported, so a second thread's ``LegalizeOps`` found no rule for ``relax.matmul``; backend
loading and the autoload had the same pattern. Each test runs a fresh child process (the
lazy loads happen once per process) in which 8 threads start at once.
"""

import subprocess
import sys
import textwrap

_CHILD = """
    import sys
    import threading

    import numpy as np

    import tvm
    from tvm import relax

    def make():
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
        w = relax.Var("w", relax.TensorStructInfo((8, 3), "float32"))
        with bb.function("main", [x, w]):
            with bb.dataflow():
                y = bb.emit(relax.op.matmul(x, w))
                z = bb.emit(relax.op.nn.softmax(relax.op.add(y, y)))
                out = bb.emit_output(z)
            bb.emit_func_output(out)
        return bb.get()

    mode = sys.argv[1]
    errors, results = [], []
    start = threading.Barrier(8)

    def work():
        try:
            mod = make()
            start.wait()
            if mode == "legalize":
                legal = relax.transform.LegalizeOps()(mod)
                results.append(len(legal.functions))
                return
            vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
            a = np.arange(32, dtype="float32").reshape(4, 8) / 32
            b = np.ones((8, 3), "float32")
            results.append(vm["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(b)).numpy())
        except Exception as err:  # reported by the parent
            errors.append(f"{type(err).__name__}: {err}")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(len(results), "results")
    for err in errors:
        print("ERROR", err[:400])
    if mode == "compile":
        for result in results:
            np.testing.assert_allclose(result, np.full((4, 3), 1 / 3, "float32"), rtol=1e-6)
"""


def _run(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD), mode],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_legalize_ops_from_8_threads_in_a_fresh_process():
    out = _run("legalize")
    assert "ERROR" not in out, out
    assert "8 results" in out


def test_compile_and_run_from_8_threads_in_a_fresh_process():
    out = _run("compile")
    assert "ERROR" not in out, out
    assert "8 results" in out
