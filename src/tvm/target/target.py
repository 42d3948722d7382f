"""``Target``: what to compile for (kind, keys, typed options, optional host target).

Accepted forms: a kind name (``"llvm"``), a tag (``"nvidia/nvidia-h100"``), a config dict
(``{"kind": "llvm", "mcpu": "skylake"}``) or its JSON text, and the command-line form
``"llvm -mcpu=skylake -num-cores=4"`` (TVM 0.27 dropped that last form; pytvm still reads
it). ``str(target)`` is the compact JSON that TVM 0.27 prints, and it parses back to an equal
target.
"""

from __future__ import annotations

import json
import threading
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Literal, Union, overload

from .kind import TargetKind, get_target_kind, host_triple, list_kinds
from .llvm_cpus import check_llvm_cpu
from .tag import get_tag_config

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Target"]

#: What the ``Target`` constructor (and ``tvm.compile``'s ``target=``) accepts: a kind or tag
#: name or command-line string, a config dict (or its JSON text), or a Target.
TargetLike = Union[str, dict[str, Any], "Target"]

_BOOL_TEXT = {"true": True, "1": True, "false": False, "0": False}


class _Context(threading.local):
    def __init__(self) -> None:
        self.stack: list[Target] = []


_CONTEXT = _Context()


class Target:
    """A compilation target.

    Parameters
    ----------
    target : str, dict or Target
        The target (see the module docstring for the accepted forms).
    host : str, dict or Target, optional
        The host target for device targets (``Target("cuda", host="llvm")``).

    Raises
    ------
    ValueError
        For an unknown kind (the message lists the valid kinds), an unknown option (lists the
        known options of that kind) or a value of the wrong type.

    Examples
    --------
    >>> from tvm.target import Target
    >>> t = Target("llvm -mcpu=skylake -num-cores=4")
    >>> t.kind.name, t.mcpu, t.attrs["num-cores"]
    ('llvm', 'skylake', 4)
    >>> with Target("c"):
    ...     Target.current().kind.name
    'c'
    """

    __slots__ = ("_attrs", "host", "keys", "kind", "tag")
    _attrs: MappingProxyType[str, Any]
    #: The host target of a device target, else None.
    host: Target | None
    #: Keys of the target (``("cpu",)``, ``("cuda", "gpu")``), used to pick schedules.
    keys: tuple[str, ...]
    #: The :class:`TargetKind` (``t.kind.name``: ``"llvm"``, ``"cuda"``, ...).
    kind: TargetKind
    #: The tag it was made from (``"nvidia/nvidia-h100"``), else ``""``.
    tag: str

    def __init__(self, target: TargetLike, host: TargetLike | None = None) -> None:
        config: dict[str, Any]
        if isinstance(target, Target):
            config = target.export()
        elif isinstance(target, dict):
            config = dict(target)
        elif isinstance(target, str):
            config = _parse_string(target)
        else:
            raise TypeError(f"Target expects a str, dict or Target, got {type(target).__name__}")
        if host is not None:
            config["host"] = host
        self._init_from_config(config, original=target)

    # --- construction -----------------------------------------------------------------------
    def _init_from_config(self, config: dict[str, Any], original: object) -> None:
        config = dict(config)
        if "kind" not in config:
            raise ValueError(f'Field "kind" is not found in target config {original!r}')
        kind = get_target_kind(_expect(config.pop("kind"), "str", "kind"))
        known = kind.options
        for name in config:
            if name not in known:
                raise ValueError(
                    f"Unknown config option '{name}' for target kind '{kind.name}'. Known "
                    f"options: {', '.join(repr(k) for k in known)}"
                )
        tag = _expect(config.pop("tag", ""), "str", "tag")
        keys = config.pop("keys", None)
        keys = kind.default_keys if keys is None else _expect(keys, "Array<str>", "keys")
        host = config.pop("host", None)
        if host is not None and not isinstance(host, Target):
            host = Target(host)
        attrs: dict[str, Any] = {}
        for name, value in config.items():
            attrs[name] = _expect(value, known[name], name)
        for name, value in kind.defaults.items():
            attrs.setdefault(name, value)
        if kind.name == "llvm" and (attrs.get("mcpu") or attrs.get("mattr")):
            # An unknown -mcpu makes LLVM end the process when it compiles (issue 22).
            check_llvm_cpu(attrs.get("mtriple") or host_triple(), attrs.get("mcpu", ""),
                           attrs.get("mattr", ()))
        # Declaration order keeps str() stable however the options were written.
        ordered = {name: attrs[name] for name in known if name in attrs}
        setter = object.__setattr__
        setter(self, "kind", kind)
        setter(self, "tag", tag)
        setter(self, "keys", tuple(keys))
        setter(self, "host", host)
        setter(self, "_attrs", MappingProxyType(ordered))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Target is immutable; build a new one (e.g. with_host)")

    # --- queries ---------------------------------------------------------------------------
    @property
    def attrs(self) -> MappingProxyType[str, Any]:
        """The options set on this target (including kind defaults), read-only."""
        return self._attrs

    def __getattr__(self, name: str) -> Any:
        attrs = object.__getattribute__(self, "_attrs")
        if name in attrs:
            return attrs[name]
        raise AttributeError(f"'Target' object has no attribute '{name}'")

    def get_target_device_type(self) -> int:
        """The DLPack device type this target compiles for (1 CPU, 2 CUDA, ...)."""
        return int(self._attrs.get("target_device_type", self.kind.default_device_type))

    def export(self) -> dict[str, Any]:
        """The target as a config dict (``Target(t.export())`` rebuilds it)."""
        config: dict[str, Any] = {"kind": self.kind.name, "tag": self.tag, "keys": self.keys}
        if self.host is not None:
            config["host"] = self.host.export()
        config.update(self._attrs)
        return config

    def with_host(self, host: TargetLike | None = None) -> Target:
        """This target with ``host`` as its host target."""
        return Target(self, host=host)

    # --- context ---------------------------------------------------------------------------
    def __enter__(self) -> Self:
        _CONTEXT.stack.append(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        _CONTEXT.stack.pop()

    @overload
    @staticmethod
    def current(allow_none: Literal[False]) -> Target: ...

    @overload
    @staticmethod
    def current(allow_none: bool = True) -> Target | None: ...

    @staticmethod
    def current(allow_none: bool = True) -> Target | None:
        """The innermost target of the ``with target:`` blocks, or None.

        Raises ``ValueError`` when there is none and ``allow_none`` is False.
        """
        if _CONTEXT.stack:
            return _CONTEXT.stack[-1]
        if not allow_none:
            raise ValueError("Target context required: use `with tvm.target.Target(...):`")
        return None

    @staticmethod
    def target_or_current(target: TargetLike | None) -> Target:
        """``Target(target)`` if given, else the current target (raises if neither)."""
        if target is None:
            return Target.current(allow_none=False)
        return target if isinstance(target, Target) else Target(target)

    @staticmethod
    def list_kinds() -> list[str]:
        """Names of every registered target kind."""
        return list_kinds()

    # --- text and comparison ----------------------------------------------------------------
    def __str__(self) -> str:
        return json.dumps(_jsonable(self.export()), separators=(",", ":"))

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        # Value equality (TVM compares handles); structural comparison of IR holding targets
        # relies on it.
        return isinstance(other, Target) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self) -> tuple[type[Target], tuple[dict[str, Any]]]:
        return (Target, (self.export(),))


def _jsonable(config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in config.items():
        out[name] = list(value) if isinstance(value, tuple) else value
        if isinstance(value, dict):
            out[name] = _jsonable(value)
    return out


def _expect(value: Any, type_name: str, option: str) -> Any:
    """Check (and normalize) an option value against its declared type."""
    if type_name == "str":
        ok = isinstance(value, str)
    elif type_name == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif type_name == "bool":
        ok = isinstance(value, bool) or (isinstance(value, int) and value in (0, 1))
        value = bool(value) if ok else value
    elif type_name == "Array<str>":
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    elif type_name == "Target":
        ok = True
    else:  # pragma: no cover - only kinds registered with a bad type name
        raise ValueError(f"Option '{option}' has an unknown declared type {type_name!r}")
    if not ok:
        raise ValueError(
            f"Option '{option}': expected type '{type_name}' but got '{type(value).__name__}'"
        )
    return value


def _parse_string(text: str) -> dict[str, Any]:
    """A target string (kind, tag, JSON or ``kind -opt=value ...``) as a config dict."""
    text = text.strip()
    if not text:
        raise ValueError("Target string is empty; expected a kind such as 'llvm'")
    if text.startswith("{"):
        try:
            config: dict[str, Any] = json.loads(text)
            return config
        except json.JSONDecodeError as err:
            raise ValueError(f"Cannot parse target JSON {text!r}: {err}") from err
    head, *tokens = text.split()
    tag_config = get_tag_config(head)
    if tag_config is not None:
        config = dict(tag_config)
    else:
        config = {"kind": head}
    kind = get_target_kind(config["kind"])
    for token in tokens:
        if not token.startswith("-"):
            raise ValueError(
                f"Cannot parse target string {text!r}: expected '-option=value', got {token!r}"
            )
        name, has_value, raw = token.lstrip("-").partition("=")
        if name not in kind.options or name in ("kind", "host"):
            options = [k for k in kind.options if k not in ("kind", "host")]
            raise ValueError(
                f"Unknown option '-{name}' for target kind '{kind.name}' in {text!r}. "
                f"Known options: {', '.join(options)}"
            )
        config[name] = _parse_cli_value(raw if has_value else "true", kind.options[name], name)
    return config


def _parse_cli_value(raw: str, type_name: str, option: str) -> int | bool | str | tuple[str, ...]:
    if type_name == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"Option '-{option}' expects an integer, got {raw!r}") from None
    if type_name == "bool":
        if raw.lower() not in _BOOL_TEXT:
            raise ValueError(f"Option '-{option}' expects true/false, got {raw!r}")
        return _BOOL_TEXT[raw.lower()]
    if type_name == "Array<str>":
        return tuple(part for part in raw.split(",") if part)
    return raw
