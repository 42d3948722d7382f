"""``import tvm`` does not import PyTorch, and torch tensors still cross without copies."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")


def _run(code, tmp_path, **env_extra):
    """Run ``code`` as a script file (TVMScript needs its source) in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if k != "PYTVM_FFI_IMPORTS_TORCH"}
    env.update(env_extra)
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(code))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, encoding="utf-8", errors="replace",
                          env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()


def test_import_tvm_leaves_torch_unimported(tmp_path):
    assert _run("import sys, tvm; print('torch' in sys.modules)", tmp_path) == ["False"]


def test_torch_imported_first_is_kept_and_the_setting_opts_back_in(tmp_path):
    assert _run("import torch, sys, tvm; print(sys.modules['torch'] is torch)", tmp_path) == [
        "True"]
    assert _run("import sys, tvm; print('torch' in sys.modules)", tmp_path,
                PYTVM_FFI_IMPORTS_TORCH="1") == ["True"]


def test_torch_imported_after_tvm_shares_memory_with_compiled_functions(tmp_path):
    out = _run("""
        import numpy as np
        import tvm
        from tvm import relax
        from tvm.script import relax as R

        @tvm.script.ir_module
        class Mod:
            @R.function
            def main(x: R.Tensor((5,), "float32"), y: R.Tensor((5,), "float32")):
                return R.add(x, y)

        vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
        import torch  # after tvm: tvm_ffi was imported with torch hidden

        a = torch.arange(5, dtype=torch.float32)
        b = torch.full((5,), 0.5)
        shared = tvm.runtime.from_dlpack(a)
        print(np.from_dlpack(shared).ctypes.data == a.data_ptr())
        result = vm["main"](a, b)  # torch tensors straight in
        back = torch.from_dlpack(result)
        print(back.tolist())
        print(back.data_ptr() == np.from_dlpack(result).ctypes.data)
    """, tmp_path)
    assert out == ["True", "[0.5, 1.5, 2.5, 3.5, 4.5]", "True"]
