"""Fixtures: a fake Anthropic server per test, real SDK clients pointed at it, no settings from the environment."""
from __future__ import annotations

import anthropic
import pytest
from prometheus_client import CollectorRegistry

from layerzero_viz.directives import ENV_ENABLED, ENV_RATIO

from .fake_anthropic import FakeAnthropic

API_KEY = "sk-ant-test-0123456789-SECRET-do-not-log"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    for name in (ENV_ENABLED, ENV_RATIO, "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "ANTHROPIC_MODEL", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LAYERZERO_CACHE", str(tmp_path / "cache.db"))
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic-config"))  # no profile from $HOME


@pytest.fixture
def server():
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def make_client(server):
    """``make_client(max_retries=…, timeout=…)``: a real ``anthropic.Anthropic`` talking to the fake."""
    clients = []

    def make(**options) -> anthropic.Anthropic:
        options.setdefault("max_retries", 2)
        options.setdefault("timeout", 10.0)
        client = anthropic.Anthropic(api_key=API_KEY, base_url=server.url, **options)
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.close()


@pytest.fixture
def registry():
    return CollectorRegistry()
