"""``Buffer.rearrange``: an einops-style pattern over a buffer's own memory.

``A.rearrange("(o i) t -> o t i", o=2)`` is three views of the same bytes, each one the
existing view method: ``view`` splitting the left-hand groups into axes, ``permute`` into the
right-hand order, ``view`` merging the right-hand groups. Each step is skipped when it
changes nothing, and each step that is taken is a declared view (as in Apache TVM 0.27,
whose printed form shows the intermediate views too). The layout machinery is the one of
those methods: a swizzled buffer keeps its swizzle, a TMEM buffer its ``allocated_addr``.

Axis names are any Python identifiers (``self`` and ``pattern`` included); a bare integer
is an anonymous axis of that size. Each left-hand group may leave one axis size unknown
(inferred from the dimension); the others come from ``**sizes`` or are literals.
"""

from __future__ import annotations

import re
from numbers import Integral

from .expr import IntImm

__all__ = ["rearrange"]

_TOKEN = re.compile(r"\(|\)|[A-Za-z_][A-Za-z_0-9]*|\d+|\S")


def _parse_side(text, side, pattern):
    """``"(a b) c 2"`` -> ``[["a", "b"], ["c"], [2]]``."""
    groups, current = [], None
    for tok in _TOKEN.findall(text):
        if tok == "(":
            if current is not None:
                raise ValueError(f"Buffer.rearrange: nested parentheses in the {side} of "
                                 f"{pattern!r}")
            current = []
        elif tok == ")":
            if current is None:
                raise ValueError(f"Buffer.rearrange: unbalanced ')' in the {side} of "
                                 f"{pattern!r}")
            groups.append(current)
            current = None
        elif tok.isdigit() or tok[0].isalpha() or tok[0] == "_":
            atom = int(tok) if tok.isdigit() else tok
            if current is None:
                groups.append([atom])
            else:
                current.append(atom)
        else:
            raise ValueError(f"Buffer.rearrange: unexpected {tok!r} in the {side} of "
                             f"{pattern!r} (axes are names or integers, groups in '(...)')")
    if current is not None:
        raise ValueError(f"Buffer.rearrange: unbalanced '(' in the {side} of {pattern!r}")
    return groups


def _const(value):
    if isinstance(value, IntImm):
        return int(value.value)
    if isinstance(value, Integral) and not isinstance(value, bool):
        return int(value)
    return None


def _label(atoms):
    """Unique keys for the atoms of one side: names as they are, the k-th literal ``n`` as
    ``(n, k)`` so that equal literals pair up in order between the sides."""
    seen, keys = {}, []
    for atom in atoms:
        if isinstance(atom, int):
            k = seen.get(atom, 0)
            seen[atom] = k + 1
            keys.append((atom, k))
        else:
            keys.append(atom)
    return keys


def rearrange(buf, pattern, sizes):
    """``buf.rearrange(pattern, **sizes)`` (``sizes`` a dict); see the module docstring."""
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"Buffer.rearrange of {buf.name}: the pattern must be one "
                         f"'lhs -> rhs' string, got {pattern!r}")
    lhs_text, rhs_text = pattern.split("->")
    lhs = _parse_side(lhs_text, "left-hand side", pattern)
    rhs = _parse_side(rhs_text, "right-hand side", pattern)
    if len(lhs) != len(buf.shape):
        raise ValueError(f"Buffer.rearrange of {buf.name}: the left-hand side of {pattern!r} "
                         f"names {len(lhs)} dims, the buffer has {len(buf.shape)}")
    lhs_atoms = [a for g in lhs for a in g]
    rhs_atoms = [a for g in rhs for a in g]
    lhs_keys, rhs_keys = _label(lhs_atoms), _label(rhs_atoms)
    for keys, side in ((lhs_keys, "left"), (rhs_keys, "right")):
        names = [k for k in keys if isinstance(k, str)]
        if len(set(names)) != len(names):
            raise ValueError(f"Buffer.rearrange of {buf.name}: an axis is repeated on the "
                             f"{side}-hand side of {pattern!r}")
    if sorted(map(str, lhs_keys)) != sorted(map(str, rhs_keys)):
        raise ValueError(f"Buffer.rearrange of {buf.name}: both sides of {pattern!r} must "
                         "name the same axes (and the same integer axes)")
    unused = set(sizes) - {a for a in lhs_atoms if isinstance(a, str)}
    if unused:
        raise ValueError(f"Buffer.rearrange of {buf.name}: sizes given for axes not in "
                         f"{pattern!r}: {sorted(unused)}")

    # Sizes of the left-hand atoms, one unknown per group inferred from its dimension.
    extent = {}
    for dim, (group, keys) in enumerate(_groups_with_keys(lhs, lhs_keys)):
        dim_size = buf.shape[dim]
        known, unknown = 1, []
        for atom, key in zip(group, keys):
            size = atom if isinstance(atom, int) else sizes.get(atom)
            if size is None:
                unknown.append(key)
                continue
            size = _const(size)
            if size is None or size <= 0:
                raise ValueError(f"Buffer.rearrange of {buf.name}: the size of axis {atom!r} "
                                 "must be a positive integer")
            extent[key] = size
            known *= size
        if len(unknown) > 1:
            raise ValueError(f"Buffer.rearrange of {buf.name}: dim {dim} leaves "
                             f"{len(unknown)} axis sizes unknown ({unknown}); give all but "
                             "one of them")
        total = _const(dim_size)
        if unknown:
            if len(group) == 1:
                extent[unknown[0]] = dim_size  # a dim passed through whole (may be symbolic)
                continue
            if total is None or total % known:
                raise ValueError(f"Buffer.rearrange of {buf.name}: dim {dim} of extent "
                                 f"{dim_size} is not a multiple of {known}")
            extent[unknown[0]] = total // known
        elif total is not None and total != known:
            raise ValueError(f"Buffer.rearrange of {buf.name}: dim {dim} has extent {total}, "
                             f"the axes {group} multiply to {known}")

    view = buf
    split_shape = [extent[k] for k in lhs_keys]
    if len(split_shape) != len(buf.shape) or any(
            _const(a) != _const(b) or _const(a) is None and a is not b
            for a, b in zip(split_shape, buf.shape)):
        view = view.view(*split_shape)
    perm = [lhs_keys.index(k) for k in rhs_keys]
    if perm != list(range(len(perm))):
        view = view.permute(*perm)
    merged = []
    for group, keys in _groups_with_keys(rhs, rhs_keys):
        size = 1
        for key in keys:
            size = size * extent[key]
        merged.append(size)
    if len(merged) != len(view.shape) or any(
            _const(a) != _const(b) or _const(a) is None and a is not b
            for a, b in zip(merged, view.shape)):
        view = view.view(*merged)
    return view


def _groups_with_keys(groups, keys):
    out, pos = [], 0
    for group in groups:
        out.append((group, keys[pos:pos + len(group)]))
        pos += len(group)
    return out
