"""Project-wide pytest configuration."""

import pytest

pytest_plugins = ["tvm.testing.plugin"]


def pytest_configure(config):
    for name in ("before", "after"):
        config.addinivalue_line(
            "markers",
            f"skip_well_formed_check_{name}_transform: do not check relax well-formedness "
            f"{name} each pass in this test",
        )


@pytest.fixture(autouse=True)
def apply_instrument_well_formed(request):
    """Check ``relax.analysis.well_formed`` around every pass run in the default PassContext."""
    if request.node.get_closest_marker("skip_well_formed_check_after_transform"):
        yield
        return
    # Lazy: a test of a lower layer should not pay for importing relax when it runs no pass.
    import tvm
    from tvm.relax.ir.instrument import WellFormedInstrument

    before = not request.node.get_closest_marker("skip_well_formed_check_before_transform")
    context = tvm.transform.PassContext.current()
    previous = context.instruments
    context.override_instruments(
        [*previous, WellFormedInstrument(validate_before_transform=before)]
    )
    try:
        yield
    finally:
        context.override_instruments(previous)
