"""Domain profiles as the advisor uses them: detection for lint and the app, limits for the domain check.

What a profile does to the engine's ``Settings`` (ratio cap, pattern pack, which rule fired) lives in the
core, :mod:`layerzero_viz.profile`, next to ``profiles/default.toml``; the engine applies it when
``Config(profile=...)`` is set.  This module is the advisor's view of it: the same names, re-exported.

>>> detect_domain("我的订单#12345还没发货，申请退款").name
'ecommerce'
"""
from __future__ import annotations

from ..profile import (
    AUTO, DEFAULT_PROFILES_PATH, ENV_PROFILES, DomainGuess, Profile, ProfileError, Rule, apply_profile,
    conversation_text, detect_domain, fired_rules, get_profile, limit_for, load_profiles,
)

__all__ = [
    "ENV_PROFILES", "DEFAULT_PROFILES_PATH", "AUTO", "ProfileError", "Rule", "Profile", "DomainGuess",
    "load_profiles", "get_profile", "detect_domain", "fired_rules", "limit_for", "apply_profile", "conversation_text",
]
