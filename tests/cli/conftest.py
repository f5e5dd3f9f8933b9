import pytest


@pytest.fixture(autouse=True)
def _no_layer_zero_env(monkeypatch):
    """The environment must not change results: in-process calls see no ANTHROPIC_* variables."""
    import os

    for key in list(os.environ):
        if key.startswith("ANTHROPIC_"):
            monkeypatch.delenv(key)
