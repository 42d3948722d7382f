"""``relax.VirtualMachine``: runs the functions of a :class:`relax.Executable`.

``vm["main"]`` is the generated Python function itself (no wrapper), so a call costs its
parameter checks plus one Python call per kernel. Arguments are ``tvm.runtime.Tensor``s or
NumPy arrays; results are ``tvm.runtime.Tensor``s (tuples of them for tuple results, tuples of
ints for shapes, Python numbers for ``R.Prim`` values).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import tvm_ffi

from .builtins import BUILTINS, builtin_ident, invoke_closure, shape_of
from .device_memory import DeviceMemory
from .executable import Executable

if TYPE_CHECKING:
    from ...runtime.module import BenchmarkResult
    from ...runtime.tensor import Tensor

__all__ = ["ProfileReport", "VMInstrumentReturnKind", "VirtualMachine"]


class VMInstrumentReturnKind(IntEnum):
    """What an instrument (``VirtualMachine.set_instrument``) returns before a kernel call."""

    NO_OP = 0
    SKIP_RUN = 1


def _ret(value: Any) -> Any:
    """Function results as runtime tensors (NumPy arrays are wrapped without a copy)."""
    if type(value) is np.ndarray:
        return _wrap(value)
    if type(value) is tuple:
        return tuple(_ret(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _wrap(array: np.ndarray) -> Tensor:
    if array.dtype.kind in "biuf":
        return cast("Tensor", tvm_ffi.from_dlpack(array))
    from ...runtime.tensor import tensor  # ml_dtypes (bfloat16, float8) go through pytvm's exporter

    return tensor(array)


def _empty_tensor(shape: Sequence[int], dtype: Any) -> Tensor:
    from ...runtime.tensor import empty

    return empty(shape, dtype)


def _view(x: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``R.reshape`` at run time: a NumPy view of ``x``'s memory with ``shape`` (no copy for
    the compact tensors kernels produce; kernels take NumPy arrays as they are)."""
    if type(x) is np.ndarray:
        return x.reshape(shape)
    return np.from_dlpack(x).reshape(shape)


def _as_tensor(value: Any) -> Any:
    if type(value) is np.ndarray:
        from ...runtime.tensor import tensor

        return tensor(value)
    return value


def _truth(cond: Any) -> bool:
    if hasattr(cond, "shape"):
        return bool(np.asarray(cond))
    return bool(cond)


#: The VM builtins under the names the generated code uses for them.
_BUILTIN_NS = {builtin_ident(name): fn for name, fn in BUILTINS.items()}


def _packed(name: str) -> Callable[..., Any]:
    builtin = BUILTINS.get(name)
    if builtin is not None:
        return cast("Callable[..., Any]", builtin)
    from ...ffi.registry import get_global_func  # lazy: the registry only for packed calls

    func = get_global_func(name, allow_missing=True)
    if func is None:
        raise ValueError(f"VirtualMachine: packed function {name!r} is not registered")
    packed: Callable[..., Any] = func
    return packed


def _print(fmt: str, *values: Any) -> None:
    shown = [np.asarray(v) if hasattr(v, "shape") else v for v in values]
    print(fmt.format(*shown) if fmt else " ".join(str(v) for v in shown))


class VirtualMachine:
    """Runs Relax functions compiled by :func:`tvm.relax.build`.

    Parameters
    ----------
    rt_mod : relax.Executable or tvm.runtime.Module
        An executable, or a library written by ``Executable.export_library`` and loaded with
        ``tvm.runtime.load_module``.
    device : Device or list of Device
        Where to run: the CPU, or one device with a backend (``tvm.cuda()``), where the VM
        allocates its tensors and copies constants and host arguments (see
        ``tvm.relax.vm.device_memory``).
    memory_cfg : str, optional
        Accepted for TVM compatibility (``"naive"``/``"pooled"``); memory is always planned
        statically where shapes are static and taken from NumPy otherwise.
    profile : bool
        Also prepare the profiling variant used by :meth:`profile`.

    Examples
    --------
    >>> import numpy as np, tvm
    >>> from tvm import relax, topi
    >>> bb = relax.BlockBuilder()
    >>> x = relax.Var("x", relax.TensorType([3], "float32"))
    >>> with bb.function("main", [x]):
    ...     bb.emit_func_output(bb.emit_te(topi.add, x, x))
    I.GlobalVar("main")
    >>> vm = relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())
    >>> vm["main"](np.arange(3, dtype="float32")).numpy().tolist()
    [0.0, 2.0, 4.0]
    """

    def __init__(self, rt_mod: Executable | Any, device: Any = None,
                 memory_cfg: str | None = None, profile: bool = False) -> None:
        if not isinstance(rt_mod, Executable):
            rt_mod = Executable.from_library(rt_mod)
        if memory_cfg not in (None, "naive", "pooled"):
            raise ValueError(
                f"VirtualMachine: memory_cfg must be 'naive' or 'pooled', got {memory_cfg!r}"
            )
        devices = device if isinstance(device, (list, tuple)) else [device]
        accel = [dev for dev in devices if dev is not None and _device_type(dev) != 1]
        if len(accel) > 1:
            raise ValueError(
                f"VirtualMachine: one non-CPU device at a time is supported, got {accel}"
            )
        built_for: Any = getattr(rt_mod, "target", None)
        run_on = accel[0] if accel else next((d for d in devices if d is not None), None)
        if run_on is not None and hasattr(built_for, "get_target_device_type") \
                and int(built_for.get_target_device_type()) != _device_type(run_on):
            raise ValueError(
                f"VirtualMachine: the executable was built for target "
                f"'{built_for.kind.name}', whose kernels do not run on {run_on}; build "
                "it for that device (relax.build(mod, target=...) with the device's kind)"
            )
        # A VM on a device allocates there (device_memory.py); the CPU path is unchanged.
        self._memory = DeviceMemory(accel[0]) if accel else None
        self.module = rt_mod
        self.device = accel[0] if accel else devices[0]
        self._funcs: dict[str, Callable[..., Any]] = {}
        self._profiled: dict[str, Callable[..., Any]] = {}
        self._inputs: dict[str, tuple[Any, ...]] = {}
        self._outputs: dict[str, Any] = {}
        self._records: list[tuple[str, float]] | None = None
        self._instrument: Callable[..., Any] | None = None
        self._link(self._funcs, profile=False)

    # --- linking: generated source -> Python functions ---------------------------------------
    def _link(self, table: dict[str, Callable[..., Any]], profile: bool) -> None:
        exe = self.module
        for name, codes in list(exe._codes.items()):
            code = exe._profile_code(name) if profile else codes[0]
            ns = dict(code.namespace)
            for key, kernel in ns.pop("__kernels__", {}).items():
                ns[key] = self._instrumented(kernel, self._kernel(kernel))
            memory = self._memory
            mem = _planned_buffers(code) if memory is None else memory.planned_buffers(code)
            ns.update(_BUILTIN_NS)
            ns.update(
                # Per-call outputs (not planned) stay NumPy's: an aligned allocation is a
                # Python call per output (the digits MLP's step: 0.22 ms instead of 0.13).
                _funcs=table, _mem=mem, _empty=np.empty, _ret=_ret, _truth=_truth,
                _shape_of=shape_of, _packed=_packed, _print=_print, _prof=self._prof_call,
                _empty_tensor=_empty_tensor, _as_tensor=_as_tensor, _ndarray=np.ndarray,
                _view=_view,
            )
            if memory is not None:
                ns.update(memory.constants(ns))
                ns.update(_empty=memory.empty, _empty_tensor=memory.empty_named,
                          _view=memory.reshape_view)
                ns[builtin_ident("vm.builtin.alloc_storage")] = memory.alloc_storage
                ns[builtin_ident("vm.builtin.alloc_tensor")] = memory.alloc_tensor
                ns[builtin_ident("memory.alloc_storage")] = memory.memory_alloc_storage
            exec(compile(code.source, f"<relax.vm {name}>", "exec"), ns)  # noqa: S102
            func = _find_function(ns, code)
            table[name] = func if memory is None else memory.wrap_function(func)

    def _kernel(self, name: str) -> Callable[..., Any]:
        lib = self.module.lib
        if lib is None:
            raise ValueError(f"VirtualMachine: kernel {name} is missing (no compiled library)")
        try:
            kernel: Callable[..., Any] = lib.get_function(name, query_imports=True)
            return kernel
        except Exception as err:
            raise ValueError(f"VirtualMachine: the library has no kernel {name!r}") from err

    def _instrumented(self, name: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        """``kernel`` wrapped with the instrument of :meth:`set_instrument` (if any)."""
        instrument = self._instrument
        if instrument is None:
            return kernel

        def call(*args: Any) -> Any:
            if instrument(kernel, name, True, None, *args) == VMInstrumentReturnKind.SKIP_RUN:
                return None
            ret = kernel(*args)
            instrument(kernel, name, False, ret, *args)
            return ret

        return call

    def set_instrument(self, instrument: Callable[..., Any] | None) -> None:
        """Call ``instrument(func, name, before_run, ret_val, *args)`` around every kernel call.

        Before the call ``before_run`` is True and ``ret_val`` None; returning
        ``VMInstrumentReturnKind.SKIP_RUN`` then skips the kernel (and the call after it).
        Packed functions and VM builtins are not instrumented. ``None`` removes the instrument.
        """
        if instrument is not None and not callable(instrument):
            raise TypeError(
                f"VirtualMachine.set_instrument: expected a callable, got "
                f"{type(instrument).__name__}"
            )
        self._instrument = instrument
        self._link(self._funcs, profile=False)

    # --- calling -----------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Callable[..., Any]:
        """The callable of function ``name``: ``vm["main"](*args)``."""
        try:
            return self._funcs[name]
        except KeyError:
            raise ValueError(
                f"VirtualMachine: no function {name!r}; available: {sorted(self._funcs)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._funcs

    def get_function(self, name: str) -> Callable[..., Any]:
        """The callable of function ``name`` (same as ``vm[name]``)."""
        return self[name]

    def invoke_closure(self, closure: Any, *args: Any) -> Any:
        """Call a closure (or function value) returned by a function with ``args``."""
        return invoke_closure(closure, *args)

    def set_input(self, func_name: str, *args: Any, **kwargs: Any) -> None:
        """Store the arguments of ``func_name`` for :meth:`invoke_stateful`."""
        self[func_name]  # raises ValueError for an unknown function
        if kwargs:
            names = _param_names(self.module, func_name)
            merged = list(args) + [None] * (len(names) - len(args))
            for key, value in kwargs.items():
                if key not in names:
                    raise ValueError(
                        f"VirtualMachine.set_input: {func_name} has no parameter {key!r}; "
                        f"parameters: {names}"
                    )
                merged[names.index(key)] = value
            args = tuple(merged)
        self._inputs[func_name] = tuple(args)

    def save_function(self, func_name: str, saved_name: str, *args: Any,
                      include_return: bool = True, **kwargs: Any) -> None:
        """Save ``func_name`` bound to ``args`` as a no-argument function ``vm[saved_name]``.

        The arguments are converted once, so calling the saved function repeats exactly the
        same call (useful for timing). ``kwargs`` name parameters; with ``include_return=False``
        the saved function returns None. A saved name may replace an earlier saved function,
        not a function of the executable.
        """
        func = self[func_name]
        if saved_name in self.module._codes:
            raise ValueError(
                f"VirtualMachine.save_function: {saved_name!r} is a function of the executable "
                "and cannot be overridden"
            )
        if kwargs:
            names = _param_names(self.module, func_name)
            merged = list(args) + [None] * (len(names) - len(args))
            for key, value in kwargs.items():
                if key not in names:
                    raise ValueError(
                        f"VirtualMachine.save_function: {func_name} has no parameter {key!r}; "
                        f"parameters: {names}"
                    )
                merged[names.index(key)] = value
            args = tuple(merged)
        bound = tuple(_as_tensor(a) if isinstance(a, np.ndarray) else a for a in args)

        def saved() -> Any:
            result = func(*bound)
            return result if include_return else None

        self._funcs[saved_name] = saved

    def invoke_stateful(self, func_name: str) -> None:
        """Run ``func_name`` on the inputs given by :meth:`set_input`; keep the outputs."""
        if func_name not in self._inputs:
            raise ValueError(
                f"VirtualMachine.invoke_stateful: call set_input({func_name!r}, ...) first"
            )
        self._outputs[func_name] = self[func_name](*self._inputs[func_name])

    def get_outputs(self, func_name: str) -> Any:
        """The outputs of the last :meth:`invoke_stateful` of ``func_name``."""
        if func_name not in self._outputs:
            raise ValueError(
                f"VirtualMachine.get_outputs: {func_name} has not been run with invoke_stateful"
            )
        return self._outputs[func_name]

    def time_evaluator(self, func_name: str, dev: Any = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, cooldown_interval_ms: float = 0,
                       repeats_to_cooldown: int = 1, f_preproc: str = ""
                       ) -> Callable[..., BenchmarkResult]:
        """Return ``f(*args) -> BenchmarkResult`` timing ``func_name``.

        With no arguments, ``f()`` uses the inputs stored by :meth:`set_input`.
        ``func_name="invoke_stateful"`` times :meth:`invoke_stateful`: ``f("main")`` runs
        ``main`` on its stored inputs (as TVM's VM module function of that name).
        """
        from ...runtime.module import BenchmarkResult

        if number < 1 or repeat < 1:
            raise ValueError(
                f"time_evaluator needs number >= 1 and repeat >= 1, got {number}, {repeat}"
            )
        if f_preproc:
            raise ValueError(f"time_evaluator: f_preproc={f_preproc!r} is not supported")
        func = self.invoke_stateful if func_name == "invoke_stateful" else self[func_name]

        def evaluator(*args: Any) -> BenchmarkResult:
            if not args and func_name != "invoke_stateful":
                args = self._inputs.get(func_name, ())
            func(*args)  # warm up
            results: list[float] = []
            count = number
            for index in range(repeat):
                if index and cooldown_interval_ms and index % repeats_to_cooldown == 0:
                    time.sleep(cooldown_interval_ms / 1e3)
                while True:
                    start = time.perf_counter()
                    for _ in range(count):
                        func(*args)
                    elapsed = time.perf_counter() - start
                    if min_repeat_ms <= 0 or elapsed * 1e3 >= min_repeat_ms:
                        break
                    count = max(count * 2, int(count * min_repeat_ms / max(elapsed * 1e3, 1e-6)))
                results.append(elapsed / count)
            report: BenchmarkResult = BenchmarkResult(results)
            return report

        return evaluator

    # --- profiling -----------------------------------------------------------------------------
    def _prof_call(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        start = time.perf_counter()
        result = fn(*args)
        # Only profile() links _prof_call in, and it sets _records to a list first.
        cast("list[tuple[str, float]]", self._records).append((name, time.perf_counter() - start))
        return result

    def profile(self, func_name: str, *args: Any) -> ProfileReport:
        """Run ``func_name`` once and report the time of every kernel call.

        Returns
        -------
        ProfileReport
            ``str(report)`` is a table (kernel, calls, total and mean microseconds, percent);
            ``report.calls`` lists ``(kernel, seconds)`` in call order.
        """
        if not self._profiled:
            self._link(self._profiled, profile=True)
        if func_name not in self._profiled:
            raise ValueError(f"VirtualMachine.profile: no function {func_name!r}")
        if not args:
            args = self._inputs.get(func_name, ())
        # One warm-up call: first-call costs (page faults, thread-pool start) are not kernels'.
        self._records = []
        self._profiled[func_name](*args)
        self._records = []
        start = time.perf_counter()
        self._profiled[func_name](*args)
        total = time.perf_counter() - start
        records, self._records = self._records or [], None
        return ProfileReport(func_name, records, total)


def _planned_buffers(code: Any) -> dict[Any, Tensor]:
    """The planned slots of a function: views into its shared storages (made once per VM)."""
    from ...runtime.tensor import aligned_host_empty  # 64-byte aligned, as TVM's allocator

    storage_of = getattr(code, "storage_of", None) or {}
    storages = [aligned_host_empty((max(n, 1),), np.uint8)
                for n in getattr(code, "storage_sizes", ())]
    mem: dict[Any, Tensor] = {}
    for slot, shape, dtype in code.planned:
        index = storage_of.get(slot)
        if index is None:
            mem[slot] = _wrap(aligned_host_empty(shape, dtype))
            continue
        count = 1
        for d in shape:
            count *= d
        view = storages[index][: count * dtype.itemsize].view(dtype).reshape(shape)
        mem[slot] = _wrap(view)
    return mem


def _device_type(dev: Any) -> int:
    get = getattr(dev, "dlpack_device_type", None)
    return int(get()) if callable(get) else int(getattr(dev, "device_type", 1))


def _find_function(ns: dict[str, Any], code: Any) -> Callable[..., Any]:
    from .codegen import _ident

    func: Callable[..., Any] = ns[_ident(code.name)]
    return func


def _param_names(exe: Executable, func_name: str) -> list[str]:
    mod = exe.mod
    if mod is not None and func_name in [g.name_hint for g in mod.get_global_vars()]:
        return [p.name_hint for p in mod[func_name].params]
    codes = exe._codes.get(func_name)
    names = getattr(codes[0], "param_names", None) if codes else None
    if not names and codes:
        raise ValueError(
            f"VirtualMachine: keyword arguments of {func_name} need its parameter names, which "
            "this executable (written by an older pytvm) does not record"
        )
    return list(names or [])


class ProfileReport:
    """Per-kernel times of one profiled call (``str()`` gives a table)."""

    def __init__(self, func_name: str, calls: list[tuple[str, float]], total: float) -> None:
        self.func_name = func_name
        self.calls = calls
        self.total = total

    def table(self) -> str:
        """The report as a text table, slowest kernel first."""
        agg: dict[str, tuple[int, float]] = {}
        for name, seconds in self.calls:
            count, acc = agg.get(name, (0, 0.0))
            agg[name] = (count + 1, acc + seconds)
        rows = sorted(agg.items(), key=lambda kv: -kv[1][1])
        width = max([len("Name")] + [len(n) for n in agg])
        header = f"{'Name':<{width}}  {'Calls':>5}  {'Total (us)':>11}  {'Mean (us)':>10}  "
        lines = [header + f"{'Percent':>7}"]
        for name, (count, acc) in rows:
            pct = 100.0 * acc / self.total if self.total else 0.0
            lines.append(
                f"{name:<{width}}  {count:>5}  {acc * 1e6:>11.2f}  {acc / count * 1e6:>10.2f}  "
                f"{pct:>6.1f}%"
            )
        kernel_time = sum(s for _, s in self.calls)
        lines.append(f"{'Total':<{width}}  {len(self.calls):>5}  {self.total * 1e6:>11.2f}")
        lines.append(
            f"(function {self.func_name}: {kernel_time * 1e6:.2f} us in kernels, "
            f"{(self.total - kernel_time) * 1e6:.2f} us elsewhere)"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"ProfileReport({self.func_name!r}, {len(self.calls)} calls)"
