"""The advisor: predict what pruning will break and how to rewrite it (lint), mine real traffic for
redundant phrases (mine), and apply domain profiles to the engine (profiles).

>>> from layerzero_viz import load_conversation
>>> from layerzero_viz.advisor import lint
>>> [f.code for f in lint(load_conversation('{"messages": [{"role": "user", "content": "¥1,000.50存七天有多少收益？"}]}'))]
['LZ150']
"""
# This is the public API of layerzero_viz.advisor.
from .edits import Fix, FixError, Replace
from .lint import CHECKS, Check, Finding, apply_all, apply_fix, has_errors, lint
from .mine import MiningResult, Phrase, iter_history, mine, redundant_phrases_block
from .profiles import (
    DomainGuess, Profile, ProfileError, Rule, apply_profile, detect_domain, get_profile, load_profiles,
)

__all__ = [
    "CHECKS", "Check", "DomainGuess", "Finding", "Fix", "FixError", "MiningResult", "Phrase", "Profile",
    "ProfileError", "Replace", "Rule", "apply_all", "apply_fix", "apply_profile", "detect_domain", "get_profile",
    "has_errors", "iter_history", "lint", "load_profiles", "mine", "redundant_phrases_block",
]
