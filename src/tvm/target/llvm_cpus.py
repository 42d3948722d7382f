"""LLVM's CPU and feature names, for checking ``-mcpu``/``-mattr`` before LLVM sees them.

LLVM does not reject an unknown CPU name: it prints "'skylak' is not a recognized processor
for this target (ignoring processor)" and builds a subtarget with no features, which on
x86-64 ends the process ("LLVM ERROR: 64-bit code requested on a subtarget that doesn't
support it!"). A known name can end it too ('i686', a 32-bit CPU, on an x86-64 triple).
:func:`check_llvm_cpu` raises a ``ValueError`` instead, naming the closest valid names.

Both checks run in a child process (:data:`_CHILD`), once per process and ``(triple, cpu,
features)``, about 0.1 s of CPU: a target machine created with the CPU name ``help`` prints
LLVM's lists ("Available CPUs for this target: ...") to the standard error stream (only
once per process, hence a fresh one); the child captures and returns them, then builds the
subtarget and generates a tiny function, which is where LLVM would end the process.
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
import threading

__all__ = ["check_llvm_cpu", "llvm_cpu_names", "llvm_feature_names"]

_LOCK = threading.Lock()
_NAMES: dict = {}  # triple -> (frozenset of CPU names, frozenset of feature names) or None
_PROBED: dict = {}  # (triple, cpu, features) -> error text, "" when LLVM generated code

_CHILD = r"""
import json, os, re, sys, tempfile
import llvmlite.binding as llvm
llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
triple, cpu, features = sys.argv[1:4]
try:
    target = llvm.Target.from_triple(triple)
except RuntimeError:
    print(json.dumps(None), flush=True)
    sys.exit(0)
with tempfile.TemporaryFile() as capture:
    saved = os.dup(2)
    os.dup2(capture.fileno(), 2)
    target.create_target_machine(cpu="help")
    os.dup2(saved, 2)
    capture.seek(0)
    text = capture.read().decode("utf-8", "replace")
names = {"cpus": [], "features": []}
section = None
for line in text.splitlines():
    if line.startswith("Available CPUs"):
        section = names["cpus"]
    elif line.startswith("Available features"):
        section = names["features"]
    elif section is not None and re.match(r"^  \S+\s+- ", line):
        section.append(line.split()[0])
print(json.dumps(names), flush=True)
wanted = [f.lstrip("+-") for f in features.split(",") if f]
if (cpu and cpu not in names["cpus"]) or any(f not in names["features"] for f in wanted):
    sys.exit(0)  # the parent reports the unknown name
tm = target.create_target_machine(cpu=cpu, features=features)
mod = llvm.parse_assembly("define i32 @f(i32 %a) {\n  %b = add i32 %a, 1\n  ret i32 %b\n}\n")
mod.triple = triple
tm.emit_object(mod)
print("codegen ok", flush=True)
"""


def _run_child(triple: str, cpu: str, features: str) -> None:
    """Fill :data:`_NAMES` for ``triple`` and :data:`_PROBED` for the options (lock held)."""
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, triple, cpu, features],
                              capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.SubprocessError):
        done = None
    lines = done.stdout.splitlines() if done is not None else []
    try:
        names = json.loads(lines[0]) if lines else None
    except ValueError:
        names = None
    if names is None or not names["cpus"]:
        # No such target in this LLVM, or no child could run: nothing to check against.
        _NAMES.setdefault(triple, None)
        _PROBED[(triple, cpu, features)] = ""
        return
    _NAMES[triple] = (frozenset(names["cpus"]), frozenset(names["features"]))
    if done.returncode == 0:
        _PROBED[(triple, cpu, features)] = ""
        return
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    fatal = [line for line in errors if "LLVM ERROR" in line]
    _PROBED[(triple, cpu, features)] = (fatal or errors or
                                        [f"exit status {done.returncode}"])[-1 if not fatal else 0]


def _target_names(triple: str):
    """``(cpus, features)`` LLVM knows for ``triple``; None when LLVM lacks the target."""
    with _LOCK:
        if triple not in _NAMES:
            _run_child(triple, "", "")
        return _NAMES[triple]


def llvm_cpu_names(triple: str) -> frozenset | None:
    """The ``-mcpu`` names LLVM accepts for ``triple`` (None: LLVM lacks that target)."""
    names = _target_names(triple)
    return None if names is None else names[0]


def llvm_feature_names(triple: str) -> frozenset | None:
    """The ``-mattr`` feature names (without ``+``/``-``) LLVM knows for ``triple``."""
    names = _target_names(triple)
    return None if names is None else names[1]


def _suggest(name: str, valid) -> str:
    close = difflib.get_close_matches(name, sorted(valid), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if len(valid) > 40:
        return f"none is close among its {len(valid)} names"
    return f"valid names: {', '.join(sorted(valid))}"


def check_llvm_cpu(triple: str, cpu: str = "", features=()) -> None:
    """Raise ``ValueError`` unless LLVM knows ``cpu`` and every feature for ``triple`` and can
    generate code for them (where it would end the process instead).

    ``features``: ``-mattr`` entries such as ``"+avx2"`` or ``"-fma"`` (a comma-separated
    string or a sequence). An empty ``cpu`` means the host CPU. Nothing is checked for a
    triple whose target this LLVM was built without, or when no child process can run.
    """
    if isinstance(features, str):
        features = features.split(",")
    features = ",".join(entry.strip() for entry in features if entry.strip())
    key = (triple, cpu, features)
    with _LOCK:
        if key not in _PROBED:
            _run_child(triple, cpu, features)
        names, error = _NAMES.get(triple), _PROBED[key]
    if names is None:
        return
    cpus, known_features = names
    if cpu and cpu not in cpus:
        raise ValueError(
            f"-mcpu={cpu!r} is not a CPU LLVM knows for target triple '{triple}': "
            f"{_suggest(cpu, cpus)} (all names: tvm.target.llvm_cpus.llvm_cpu_names)"
        )
    for entry in features.split(",") if features else ():
        name = entry.lstrip("+-")
        if name not in known_features:
            raise ValueError(
                f"-mattr entry {entry!r} is not a feature LLVM knows for target triple "
                f"'{triple}': {_suggest(name, known_features)} (all names: "
                "tvm.target.llvm_cpus.llvm_feature_names)"
            )
    if error:
        raise ValueError(
            f"LLVM cannot generate code for -mcpu={cpu!r} -mattr={features!r} on target "
            f"triple '{triple}' (a compile would end the process): {error}"
        )
