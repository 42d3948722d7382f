"""Project-wide pytest configuration."""

pytest_plugins = ["tvm.testing.plugin"]
