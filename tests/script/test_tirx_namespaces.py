"""The TIRx script namespaces of spec D.1: ``tvm.script.tirx``, ``tvm.tirx.script``, ``Tx``."""

import importlib

import pytest

import tvm


def test_every_spelling_is_the_same_module():
    from tvm.script import tirx as T
    from tvm.script.parser import tirx as T_parser

    assert T is T_parser
    assert importlib.import_module("tvm.script.tirx") is T
    assert importlib.import_module("tvm.tirx.script") is T
    assert importlib.import_module("tvm.tirx.script.parser") is T
    builder = importlib.import_module("tvm.script.ir_builder.tirx")
    assert importlib.import_module("tvm.tirx.script.builder") is builder
    assert tvm.tirx.script.builder is builder
    assert importlib.import_module("tvm.tirx.script.builder.frame") is builder.frame
    assert "tirx" in tvm.script.registered_dialects()


def test_tile_namespace_spellings():
    from tvm.script.tirx import tile as Tx
    from tvm.tirx.script import tile as Tx2

    assert Tx is Tx2 is importlib.import_module("tvm.tirx.script.tile")
    assert Tx.gemm_async is Tx2.gemm_async
    assert Tx.wg.gemm_async.__name__ == "gemm_async"


def test_builder_patch_reaches_the_parser():
    from unittest.mock import patch

    source = (
        "from tvm.script import tirx as T\n@T.prim_func\n"
        'def f(A: T.Buffer((4,), "float32")):\n    A[0] = T.float32(1)\n'
    )
    bomb = patch("tvm.tirx.script.builder.buffer_store", side_effect=ValueError("boom"))
    with bomb, pytest.raises(tvm.error.DiagnosticError, match="boom"):
        tvm.script.from_source(source)


def test_unknown_tirx_attribute():
    with pytest.raises(AttributeError, match="has no attribute 'scripts'"):
        tvm.tirx.scripts  # noqa: B018
