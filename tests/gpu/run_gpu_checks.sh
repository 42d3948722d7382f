#!/usr/bin/env bash
# GPU checks of pytvm's CUDA path on an H100/H200 machine, in under 8 minutes.
#
#   bash tests/gpu/run_gpu_checks.sh            # from the repository root
#
# 1. installs the project from this tree into the machine's python3 (3.12), with the
#    apache-tvm-ffi cp312 wheel from wheels/ when it is there (no network needed:
#    pip install --no-index --find-links wheels/); falls back to PYTHONPATH=src;
# 2. runs the GPU-gated tests (pytest -m gpu: tests/gpu, tests/backend/cuda), among them the
#    TIRx Hopper GEMM against torch.matmul (tests/gpu/test_hopper_gemm_gpu.py, sm_90 only);
# 3. python -m tvm.examples.train_digits --target cuda (3 epochs);
# 4. python -m tvm.examples.hopper_gemm (4096^3, checked against NumPy; sm_90 only);
# 5. benchmarks/gpu_kernels.py: 4096^2 fp16 matmul, softmax and the Hopper GEMM against torch.
# Each step has its own timeout; the script goes on after a failing step and exits nonzero
# when any step failed. Set PY to use another interpreter, OUT to keep the logs there.
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-python3}
OUT=${OUT:-/tmp/pytvm_gpu_checks}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTVM_CACHE_DIR="$OUT/cache"
failed=()
start=$(date +%s)

step() {  # step NAME TIMEOUT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    echo "== $name (limit ${limit}s, at $(( $(date +%s) - start ))s)"
    set -o pipefail
    timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.log" || failed+=("$name")
    set +o pipefail
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 | head -3
command -v nvcc >/dev/null && nvcc --version | tail -2 || echo "nvcc: not found"
"$PY" --version

echo "== install"
if ls wheels/apache_tvm_ffi-*cp3*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --find-links wheels/ apache-tvm-ffi 2>&1 | tail -2
fi
if "$PY" -m pip install -q --no-index --no-deps --no-build-isolation . >"$OUT/install.log" 2>&1; then
    echo "installed pytvm from the tree"
else
    echo "pip install failed (see $OUT/install.log): using PYTHONPATH=src"
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
fi
"$PY" - <<'PY'
import importlib
for name in ("tvm_ffi", "llvmlite", "numpy", "cuda.bindings.driver", "torch", "sklearn"):
    try:
        module = importlib.import_module(name)
        print(f"{name}: {getattr(module, '__version__', 'ok')}")
    except Exception as err:  # noqa: BLE001 - a report, not a check
        print(f"{name}: MISSING ({err})")
import tvm
print("tvm:", tvm.__file__, "| cuda(0):", tvm.cuda(0).exist)
PY

step gpu_tests 240 "$PY" -m pytest -q -p no:cacheprovider -m gpu -x \
    tests/gpu tests/backend/cuda/test_runtime_module_gpu.py
step train_digits 120 "$PY" -m tvm.examples.train_digits --target cuda --epochs 3 --no-numpy \
    --quiet
step hopper_gemm 90 "$PY" -m tvm.examples.hopper_gemm
step gpu_kernels 150 "$PY" benchmarks/gpu_kernels.py

echo "== done in $(( $(date +%s) - start ))s; logs in $OUT"
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
echo "all GPU checks passed"
