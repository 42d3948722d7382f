"""A tour of what pytvm does today: ``python -m tvm.examples.demo``.

It exercises the foundation (declared IR nodes and structural equality, the global function
registry and native error kinds, tensors shared with NumPy through DLPack, targets, backend
loading). Each section prints what it did; the script exits non-zero if any check fails.
Other components add their sections here as they land (TVMScript, Relax, compilation).
"""

from __future__ import annotations

import sys

import numpy as np


def _section(title: str) -> None:
    print(f"\n== {title} ==")


def _check(condition: bool, what: str) -> None:
    print(f"  [{'ok' if condition else 'FAILED'}] {what}")
    if not condition:
        raise SystemExit(f"demo check failed: {what}")


def demo_object_model() -> None:
    """Declared nodes, alpha-equivalent structural equality, first mismatch, replace()."""
    from tvm.ffi import DEF, IGNORE, Node, field, get_first_structural_mismatch
    from tvm.ir import assert_structural_equal, structural_equal, structural_hash

    class Expr(Node, type_key="demo.Expr"):
        pass

    class Var(Expr, type_key="demo.Var"):
        _sequal_kind = "var"
        name: str = field(default="v", role=IGNORE)

    class Add(Expr, type_key="demo.Add"):
        a: Expr
        b: Expr

    class Lambda(Expr, type_key="demo.Lambda"):
        params: tuple = field(role=DEF)
        body: Expr

    _section("object model")
    x, y = Var("x"), Var("y")
    a, b = Var("a"), Var("b")
    f = Lambda((x, y), Add(x, y))
    g = Lambda((a, b), Add(a, b))
    h = Lambda((a, b), Add(b, a))
    print(f"  f = {f!r}")
    _check(structural_equal(f, g), "lambda x, y: x + y  ==  lambda a, b: a + b (alpha-equivalent)")
    _check(structural_hash(f) == structural_hash(g), "equal trees hash alike")
    _check(not structural_equal(f, h), "lambda x, y: x + y  !=  lambda a, b: b + a")
    lhs_path, rhs_path = get_first_structural_mismatch(f, h)
    print(f"  first mismatch: lhs at {lhs_path}, rhs at {rhs_path}")
    _check(str(lhs_path) == "<root>.body.a", "mismatch path points at the first operand")
    try:
        assert_structural_equal(f, h)
    except ValueError as err:
        print("  assert_structural_equal says: " + str(err).splitlines()[0])
    _check(f.replace(body=f.body) is f, "replace() with nothing changed returns the same node")


def demo_registry_and_errors() -> None:
    """Global functions through tvm_ffi, and error kinds that survive the FFI boundary."""
    import tvm
    from tvm.ffi import get_global_func, register_func, remove_global_func

    _section("global functions and error kinds")

    @register_func("demo.square", override=True)
    def square(value):
        return value * value

    def fail(msg):
        raise tvm.error.InternalError(msg)

    register_func("demo.fail", fail, override=True)
    try:
        _check(get_global_func("demo.square")(12) == 144, "demo.square(12) == 144 via tvm_ffi")
        try:
            get_global_func("demo.fail")("raised in Python, called through tvm_ffi")
        except tvm.error.InternalError as err:
            print(f"  caught tvm.error.InternalError: {err}")
            _check(isinstance(err, RuntimeError), "error kinds are RuntimeErrors")
        else:
            _check(False, "demo.fail raised tvm.error.InternalError")
    finally:
        remove_global_func("demo.square")
        remove_global_func("demo.fail")


def demo_tensors() -> None:
    """Tensors on the CPU, shared with NumPy (and PyTorch when installed) through DLPack."""
    import tvm_ffi

    import tvm

    _section("tensors and DLPack")
    data = np.arange(6, dtype="float32").reshape(2, 3)
    t = tvm.runtime.tensor(data, tvm.cpu())
    print(f"  {t!r}".replace("\n", "\n  "))
    _check(t.shape == (2, 3) and t.dtype == "float32", "shape and dtype")
    shared = tvm_ffi.from_dlpack(data)
    data[0, 0] = 42.0
    _check(np.from_dlpack(shared)[0, 0] == 42.0, "from_dlpack(numpy) shares memory (zero copy)")
    import ml_dtypes

    bf16 = tvm.runtime.tensor(np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16))
    _check(bf16.dtype == "bfloat16" and bf16.numpy()[0] == 1.5, "bfloat16 tensors round-trip")
    try:
        import torch
    except ImportError:
        print("  (torch not installed: skipping the PyTorch DLPack check)")
    else:
        tt = torch.ones(3)
        _check(tvm_ffi.from_dlpack(tt).data_ptr() == tt.data_ptr(), "torch tensors shared")


def demo_targets_and_backends() -> None:
    """Target parsing and the backend loader."""
    import tvm
    from tvm.target import Target

    _section("targets and backends")
    for text in ["llvm -mcpu=skylake -num-cores=4", "cuda -arch=sm_90a", "nvidia/nvidia-h100"]:
        target = Target(text)
        print(f"  Target({text!r}) -> kind={target.kind.name}, keys={list(target.keys)}")
    with Target("llvm") as target:
        _check(Target.current() is target, "`with target:` sets Target.current()")
    loaded = [name for name in ("cuda", "metal", "rocm") if tvm.backend.is_loaded(name)]
    print(f"  built-in backends loaded: {loaded or 'none (TVM_DEVICE_BACKEND_AUTOLOAD=0?)'}")


def main() -> int:
    """Run every part of the demo (object model, registry and errors, tensors, targets),
    printing what each checks.

    Returns
    -------
    int
        0 when every check passed (a failed check exits with ``SystemExit``).
    """
    import tvm

    print(f"pytvm {tvm.__version__} (TVM 0.27 Python API)")
    demo_object_model()
    demo_registry_and_errors()
    demo_tensors()
    demo_targets_and_backends()
    print("\nAll demo checks passed.")
    print(
        "Not there yet in this demo: TVMScript parsing of whole programs, Relax gradients and "
        "compiled execution (see README.md, 'Status')."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
