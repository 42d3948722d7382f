"""Every spelling class of the T.ptx table assembles with ptxas, on sm_90a and sm_100a.

For each table entry the batch takes all its spellings when there are few, else a covering
set in which every token of every slot appears at least once (ptxas_batch.py next to this
file), keeps those the arch has (:func:`tvm.tirx.ptx.spec.arch_satisfies`) and renders them
with ``render_variant``. One nvcc call per arch assembles them all. The full enumeration
(about 9,000 helpers, several minutes) ran clean with ptxas 13.0 when the rules in
``tvm.tirx.ptx.rules`` were written.
"""

import importlib.util
from pathlib import Path

import pytest

from tvm.tirx.ptx import ENTRIES


def _batch():
    path = Path(__file__).with_name("ptxas_batch.py")  # by path: --import-mode=importlib
    spec = importlib.util.spec_from_file_location("ptx_ptxas_batch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


batch = _batch()
pytestmark = pytest.mark.skipif(not batch.have_nvcc(), reason="needs nvcc")

# Shapes whose every spelling needs a PTX ISA newer than the installed nvcc writes (9.0).
_NEWER = {"cvt_bf16x2_f4x2", "cvt_bf16x2_f6x2", "cvt_bf16x2_f8x2", "cvt_bf16x2_s2f6x2",
          "cvt_f4x2_fp16x2", "cvt_f6x2_fp16x2", "cvt_s2f6x2_bf16x2", "cvt_s2f6x2_f32"}


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_table_assembles(arch):
    sources, skipped = batch.helpers_for(arch, ENTRIES)
    assert len(sources) > 300
    error = batch.assemble(sources, arch)
    assert error == "", error[:4000]
    if arch == "sm_100a":
        assert skipped >= _NEWER  # left out, and only for their PTX version


def test_covering_set_has_every_token():
    entry = next(e for e in ENTRIES if e.key == "ld")
    spelled = batch.spellings(entry)
    for i, slot in enumerate(entry.slots):
        assert {tokens[i] for tokens in spelled} >= set(slot.choices), slot.name
