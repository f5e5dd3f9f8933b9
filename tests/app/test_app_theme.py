"""The app's Streamlit configuration: a theme that follows the system, and the settings that keep it local."""
from __future__ import annotations

import tomllib

from apptools import ROOT

CONFIG = ROOT / ".streamlit" / "config.toml"


def test_theme_defines_light_and_dark_so_streamlit_follows_the_system():
    theme = tomllib.loads(CONFIG.read_text())["theme"]
    # A bare [theme] option makes Streamlit 1.67 build one "Custom Theme" that ignores prefers-color-scheme.
    assert set(theme) == {"light", "dark"}, theme
    assert theme["light"].get("primaryColor") and theme["dark"].get("primaryColor")


def test_config_keeps_the_server_local_and_quiet():
    config = tomllib.loads(CONFIG.read_text())
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["address"] == "127.0.0.1" and config["server"]["headless"] is True
