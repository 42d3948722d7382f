"""``relax.transform.ConvertToDataflow``: runs of pure bindings become dataflow blocks.

The Expected modules are what Apache TVM 0.27 prints for the same inputs.
"""

from __future__ import annotations

import pytest

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def test_runs_around_an_if_and_inside_branches():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
            a = R.exp(x)
            b = R.multiply(a, x)
            if c:
                d = R.add(b, a)
                e = R.exp(d)
                r = e
            else:
                r = b
            f = R.sum(r)
            g = R.add(f, f)
            return g

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
            with R.dataflow():
                a = R.exp(x)
                b = R.multiply(a, x)
                R.output(a, b)
            if c:
                with R.dataflow():
                    d = R.add(b, a)
                    e = R.exp(d)
                    R.output(e)
                r = e
            else:
                r = b
            with R.dataflow():
                f = R.sum(r)
                g = R.add(f, f)
                R.output(g)
            return g

    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Expected)


def test_impure_call_splits_runs_and_min_size():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            a = R.exp(x)
            R.print(format="hi")
            b = R.exp(a)
            c = R.exp(b)
            return c

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            a = R.exp(x)
            R.print(format="hi")
            with R.dataflow():
                b = R.exp(a)
                c = R.exp(b)
                R.output(c)
            return c

    assert_structural_equal(relax.transform.ConvertToDataflow()(Before), Expected)
    # With min_size=3 no run is long enough: nothing changes.
    assert_structural_equal(relax.transform.ConvertToDataflow(min_size=3)(Before), Before)


def test_bad_min_size():
    with pytest.raises(ValueError, match="min_size must be a positive int"):
        relax.transform.ConvertToDataflow(min_size=0)
