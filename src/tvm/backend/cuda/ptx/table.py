"""The ``T.ptx`` table seen from the CUDA backend (``tvm.backend.cuda.ptx.table``).

``TABLE`` maps an entry name (one PTX syntax shape: ``"cvt"``, ``"cvt_f16x2_f32"``...) to
its :class:`tvm.tirx.ptx.spec.Instr`, whose ``ptx_name`` is the mnemonic and whose
``cert_arch`` is the arch every spelling of the shape assembles for. :func:`tokens_for`
and :func:`mods` convert between named modifiers and the positional token tuple that
:func:`~tvm.backend.cuda.ptx.render.render_variant` takes; :func:`renderings` enumerates the
spellings of an entry.
"""

from __future__ import annotations

import itertools

from ....tirx.ptx.engine import required_arch_of, required_ptx_of
from ....tirx.ptx.table import ENTRIES, TABLE

__all__ = ["ENTRIES", "TABLE", "mods", "renderings", "tokens_for"]


def mods(entry, tokens) -> dict:
    """``{slot name: token}`` of a positional token tuple (``""`` for an empty slot)."""
    tokens = tuple(tokens)
    if len(tokens) != len(entry.slots):
        raise ValueError(f"{entry.key} has {len(entry.slots)} modifier slots, "
                         f"got {len(tokens)} tokens")
    return {slot.name: tok or "" for slot, tok in zip(entry.slots, tokens)}


def tokens_for(entry, **by_name) -> tuple:
    """The modifier tokens of ``entry`` in slot order, given by slot name.

    A slot not named is empty. ``ValueError`` for an unknown slot name, a token the slot
    does not offer, a required slot left empty, or a combination the entry's own rules
    reject (``.relu`` on ``cvt.rna.tf32.f32``).
    """
    names = [slot.name for slot in entry.slots]
    unknown = sorted(set(by_name) - set(names))
    if unknown:
        raise ValueError(f"{entry.key}: no modifier slot named {unknown}; slots: "
                         f"{', '.join(names)}")
    out = []
    for slot in entry.slots:
        token = by_name.get(slot.name, "") or ""
        if token and token not in slot.choices:
            raise ValueError(f"{entry.key}.{slot.name}: {token!r} is not one of "
                             f"{', '.join(slot.choices)}")
        if not token and not slot.optional:
            raise ValueError(f"{entry.key}.{slot.name} is required")
        out.append(token)
    out = tuple(out)
    if entry.check is not None:
        error = entry.check(mods(entry, out))
        if error:
            raise ValueError(f"{entry.key}: {error}")
    return out


def renderings(entry):
    """Every valid spelling of ``entry``: ``(tokens, arch, ptx_version)`` triples.

    ``tokens`` is the positional token tuple (``""`` for an empty optional slot); ``arch``
    and ``ptx_version`` are what that spelling needs. The walk is the product of the slots'
    choices filtered by the entry's rules, generated lazily (a wide entry such as ``ld`` has
    millions of spellings). Apache TVM's rows carry operand dtypes, predication, immediates
    and sink masks after the tokens; ours do not, since our C types follow the call's values.
    """
    axes = [(("",) if slot.optional else ()) + tuple(slot.choices) for slot in entry.slots]
    for tokens in itertools.product(*axes):
        mod_map = mods(entry, tokens)
        if entry.check is not None and entry.check(mod_map):
            continue
        yield tokens, required_arch_of(entry, mod_map), required_ptx_of(entry, mod_map)
