"""How long ``import tvm`` takes, next to ``python -c pass`` and ``import numpy``.

Each command runs in a fresh interpreter several times; the median wall time is reported,
and the ratio of ``import tvm`` to ``import numpy`` (issue 23's goal: under 3x).
Run: ``python benchmarks/import_time.py [--runs N]``. Also timed: ``import tvm_ffi`` as it
runs inside ``import tvm`` (torch hidden, so as without torch installed), and ``import tvm``
followed by the first use of a compiler layer (``tvm.relax``), which imports all of them
(what a program that compiles pays once). With torch installed it also times ``import
torch``, ``import tvm_ffi`` letting it import torch, and ``import tvm`` with
``PYTVM_FFI_IMPORTS_TORCH=1`` (tvm_ffi imports torch).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": "pass",
    "import numpy": "import numpy",
    "tvm_ffi, no torch": "import sys; sys.modules['torch'] = None; import tvm_ffi",
    "import tvm": "import tvm",
    "tvm + layers": "import tvm; tvm.relax",
}
# With torch installed, tvm_ffi imports it unless tvm hides it (tvm/__init__.py): the cost
# that hiding saves, shown by opting back in.
TORCH_COMMANDS = {
    "import torch": "import torch",
    "import tvm_ffi": "import tvm_ffi",
    "tvm, ffi+torch": "import os; os.environ['PYTVM_FFI_IMPORTS_TORCH'] = '1'; import tvm",
}


def time_command(code: str, runs: int) -> list[float]:
    env = dict(os.environ)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    time_command("import tvm", 1)  # warm the file cache and bytecode
    commands = dict(COMMANDS)
    if importlib.util.find_spec("torch") is not None:
        commands.update(TORCH_COMMANDS)
    results = {name: time_command(code, args.runs) for name, code in commands.items()}
    base = statistics.median(results["python -c pass"])
    print(f"{'command':<18}{'median ms':>11}{'min ms':>9}{'max ms':>9}{'minus startup':>15}")
    for name, times in results.items():
        median = statistics.median(times)
        print(
            f"{name:<18}{median * 1e3:>11.1f}{min(times) * 1e3:>9.1f}{max(times) * 1e3:>9.1f}"
            f"{(median - base) * 1e3:>15.1f}"
        )
    ratio = statistics.median(results["import tvm"]) / statistics.median(results["import numpy"])
    print(f"import tvm / import numpy: {ratio:.2f}x (goal: under 3x)")
    print(f"({args.runs} runs each, {sys.executable})")


if __name__ == "__main__":
    main()
