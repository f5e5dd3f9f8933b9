"""AppTest setup shared by every app test: no layer-zero settings from the environment, a throwaway share store."""
from __future__ import annotations

import pytest

from layerzero_viz.directives import ENV_ENABLED, ENV_RATIO


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No layer-zero settings from the environment; short links go to a throwaway store."""
    monkeypatch.delenv(ENV_RATIO, raising=False)
    monkeypatch.delenv(ENV_ENABLED, raising=False)
    monkeypatch.setenv("LAYERZERO_SHARE_DB", str(tmp_path / "shares.db"))
