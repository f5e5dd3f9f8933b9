"""Domain profiles: how hard a kind of prompt may be pruned, what it must keep, and which rule said so.

This is the core half of profiles (what a profile does to :class:`~layerzero_viz.directives.Settings`); the
engine applies it, and the advisor (``layerzero_viz.advisor.profiles``) re-exports it for lint and the app.

A profile (finance, e-commerce, education, creative writing, legal, medical, government hotline …) has a
recommended ``ratio_range`` whose upper end is a ceiling, a pattern pack protected like
``<protected_tokens>``, and keyword rules "when these words appear, cap (or lock) the ratio at R".
Profiles are data: ``layerzero_viz/profiles/default.toml``, overridden profile by profile by a user file
(``path=`` or the ``LAYERZERO_PROFILES`` environment variable).

The engine calls :func:`apply_profile` when ``Config(profile=...)`` is set:

>>> from layerzero_viz import annotate, load_conversation
>>> conv = load_conversation("稳盈货币基金七日年化收益率4.2%，¥1,000.50存七天收益多少？")
>>> result = annotate(conv, env={}, profile="auto").at_ratio(0.5)
>>> result.ratio, result.ratio_source, result.annotated.settings.profile
(0.25, 'profile', 'finance')
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from .directives import MAX_RATIO, Settings, compile_pattern
from .errors import LayerZeroError
from .model import Conversation

__all__ = [
    "ENV_PROFILES", "DEFAULT_PROFILES_PATH", "AUTO", "ProfileError", "Rule", "Profile", "DomainGuess",
    "load_profiles", "get_profile", "detect_domain", "fired_rules", "limit_for", "apply_profile", "conversation_text",
]

ENV_PROFILES = "LAYERZERO_PROFILES"
DEFAULT_PROFILES_PATH = Path(__file__).resolve().parent / "profiles" / "default.toml"
AUTO = "auto"
# Domain detection needs this many distinct keywords of one profile before it names a domain.
MIN_DISTINCT_KEYWORDS = 2


class ProfileError(LayerZeroError, ValueError):
    """A profile file cannot be read or a profile is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Rule:
    """"When any of ``when`` appears, cap (``mode="cap"``) or lock (``mode="lock"``) the ratio at ``ratio``."""

    when: tuple[str, ...]
    ratio: float
    mode: str
    why: str = ""


@dataclass(frozen=True)
class Profile:
    """A domain: recommended ratio range (the high end is the ceiling), detection keywords, pattern pack, rules."""

    name: str
    title: str
    ratio_range: tuple[float, float]
    keywords: tuple[str, ...] = ()
    protected_patterns: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()

    @property
    def ceiling(self) -> float:
        return self.ratio_range[1]


@dataclass(frozen=True)
class DomainGuess:
    """The domain a conversation looks like: profile name, score and the keywords that matched."""

    name: str
    score: float
    keywords: tuple[str, ...]


# ---------------------------------------------------------------------------------------------- loading


def load_profiles(path: str | os.PathLike[str] | None = None,
                  env: Mapping[str, str] | None = None) -> dict[str, Profile]:
    """Every profile by name: the shipped defaults, each replaced by a same-named profile of the user's file.

    The user's file is ``path``, else ``$LAYERZERO_PROFILES`` (``env`` defaults to ``os.environ``), else none.

    >>> sorted(load_profiles(env={}))[:3]
    ['creative_writing', 'ecommerce', 'education']
    """
    env = os.environ if env is None else env
    profiles = dict(_load_file(str(DEFAULT_PROFILES_PATH), _mtime(DEFAULT_PROFILES_PATH)))
    user = path if path is not None else (env.get(ENV_PROFILES) or None)
    if user is not None:
        user_path = Path(user).expanduser().resolve()
        profiles.update(_load_file(str(user_path), _mtime(user_path)))
    return profiles


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0  # _load_file reports the missing file


@lru_cache(maxsize=16)
def _load_file(path: str, mtime: float) -> tuple[tuple[str, Profile], ...]:
    """The profiles of one file (cached until the file changes: ``mtime`` is part of the key)."""
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile file ({exc.strerror or exc}); "
                           f"check the path given by --profiles or {ENV_PROFILES}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML ({exc})") from None
    table = doc.get("profiles")
    if not isinstance(table, dict) or not table:
        raise ProfileError(f"{path}: expected one or more [profiles.<name>] tables")
    return tuple((name, _profile(name, body, f"{path}: [profiles.{name}]")) for name, body in table.items())


def _profile(name: str, body: Any, where: str) -> Profile:
    if not isinstance(body, dict):
        raise ProfileError(f"{where} must be a table")
    if name == AUTO:
        raise ProfileError(f"{where}: the name {AUTO!r} is reserved for domain detection")
    rng = body.get("ratio_range")
    if (not isinstance(rng, list) or len(rng) != 2 or not all(isinstance(v, (int, float)) for v in rng)
            or not 0 <= rng[0] <= rng[1] <= MAX_RATIO):
        raise ProfileError(f"{where}: ratio_range must be [low, high] with 0 ≤ low ≤ high ≤ {MAX_RATIO}, got {rng!r}")
    patterns = _strings(body.get("protected_patterns", []), f"{where} protected_patterns")
    for p in patterns:
        try:
            compile_pattern(p, f"{where} protected_patterns")
        except LayerZeroError as exc:
            raise ProfileError(str(exc)) from None
    rules = []
    for k, rule in enumerate(body.get("rules", [])):
        rules.append(_rule(rule, f"{where} rules[{k}]"))
    return Profile(name=name, title=str(body.get("title") or name), ratio_range=(float(rng[0]), float(rng[1])),
                   keywords=_strings(body.get("keywords", []), f"{where} keywords"),
                   protected_patterns=patterns, rules=tuple(rules))


def _rule(rule: Any, where: str) -> Rule:
    if not isinstance(rule, dict):
        raise ProfileError(f"{where} must be a table with when = [...] and cap = R or lock = R")
    modes = [m for m in ("cap", "lock") if m in rule]
    if len(modes) != 1:
        raise ProfileError(f"{where}: give exactly one of cap = R or lock = R")
    ratio = rule[modes[0]]
    if not isinstance(ratio, (int, float)) or not 0 <= ratio <= MAX_RATIO:
        raise ProfileError(f"{where}: {modes[0]} must be a number in [0, {MAX_RATIO}], got {ratio!r}")
    when = _strings(rule.get("when"), f"{where} when")
    if not when:
        raise ProfileError(f"{where}: when must list at least one keyword")
    return Rule(when=when, ratio=float(ratio), mode=modes[0], why=str(rule.get("why") or ""))


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ProfileError(f"{where} must be a list of non-empty strings")
    return tuple(value)


def get_profile(name: str, profiles: Mapping[str, Profile] | None = None) -> Profile:
    """The profile called ``name``; :class:`ProfileError` listing the known names otherwise."""
    profiles = load_profiles() if profiles is None else profiles
    try:
        return profiles[name]
    except KeyError:
        raise ProfileError(f"unknown profile {name!r}; use {AUTO!r} or one of: {', '.join(sorted(profiles))}") from None


# ---------------------------------------------------------------------------------------------- detection


def conversation_text(conv: Conversation) -> str:
    """Every text block of ``conv`` joined with newlines: what detection and keyword rules read."""
    return "\n".join(b.text for m in conv.messages for b in m.blocks if b.kind == "text")


@lru_cache(maxsize=512)
def _keyword_regex(keyword: str) -> re.Pattern[str]:
    # ASCII keywords as whole words in any case, plurals too ("funds", not "refunded"); Chinese ones as substrings
    if keyword.isascii():
        return re.compile(r"(?<![A-Za-z0-9])" + r"\s+".join(map(re.escape, keyword.split()))
                          + r"(?:e?s)?(?![A-Za-z0-9])", re.IGNORECASE)
    return re.compile(re.escape(keyword))


def _hits(text: str, keywords: tuple[str, ...]) -> dict[str, int]:
    out = {}
    for k in keywords:
        n = len(_keyword_regex(k).findall(text))
        if n:
            out[k] = n
    return out


# fenced code (``` or ~~~) and inline `code`: left out of the domain guess
_CODE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)|`[^`\n]+`", re.MULTILINE | re.DOTALL)


def detect_domain(conv_or_text: Conversation | str,
                  profiles: Mapping[str, Profile] | None = None) -> DomainGuess | None:
    """The profile whose keywords the text matches best, or None when no profile reaches 2 distinct keywords.

    Score: distinct keywords matched plus a little for repeats (log-damped), so one word said ten times
    does not outweigh five different domain words.  Words inside fenced or inline code do not count: a code review
    of ``refund(order)`` is not an e-commerce chat.

    >>> detect_domain("我的订单#12345还没发货，申请退款").name
    'ecommerce'
    >>> detect_domain("Hello there") is None
    True
    """
    import math

    profiles = load_profiles() if profiles is None else profiles
    text = conv_or_text if isinstance(conv_or_text, str) else conversation_text(conv_or_text)
    text = _CODE.sub(" ", text)  # identifiers in code (order.refund()) say what the code handles, not the chat's domain
    best: DomainGuess | None = None
    for name, prof in profiles.items():
        hits = _hits(text, prof.keywords)
        if len(hits) < MIN_DISTINCT_KEYWORDS:
            continue
        score = sum(1.0 + 0.25 * math.log(n) for n in hits.values())
        if best is None or score > best.score:
            best = DomainGuess(name, round(score, 3), tuple(sorted(hits, key=lambda k: (-hits[k], k))))
    return best


def fired_rules(profile: Profile, text: str) -> list[tuple[Rule, str]]:
    """The rules of ``profile`` whose keywords occur in ``text``, each with the keyword that fired it."""
    out = []
    for rule in profile.rules:
        hits = _hits(text, rule.when)
        if hits:
            out.append((rule, next(iter(hits))))  # the first keyword of the rule's list that occurs
    return out


def _resolve(profile: Any, conv: Conversation, profiles: Mapping[str, Profile] | None) -> Profile | None:
    if isinstance(profile, Profile):
        return profile
    if not isinstance(profile, str):
        raise ProfileError(f"profile must be a name, {AUTO!r} or a Profile, got {type(profile).__name__}")
    profiles = load_profiles() if profiles is None else profiles
    if profile == AUTO:
        guess = detect_domain(conv, profiles)
        return profiles[guess.name] if guess else None
    return get_profile(profile, profiles)


def limit_for(profile: Profile, text: str) -> tuple[float, str, str]:
    """The binding limit of ``profile`` on ``text``: (ratio, "cap" or "lock", the rule in words).

    The lowest of the ceiling and every fired rule wins; at equal ratio a lock beats a cap.

    >>> prof = get_profile("finance", load_profiles(env={}))
    >>> limit_for(prof, "七日年化收益率4.2%")[:2]
    (0.25, 'cap')
    """
    best = (profile.ceiling, "cap",
            f"{profile.name}: recommended prune_ratio {profile.ratio_range[0]:.2f}–{profile.ceiling:.2f}, "
            f"cap {profile.ceiling:.2f}")
    for rule, keyword in fired_rules(profile, text):
        if (rule.ratio, rule.mode != "lock") < (best[0], best[1] != "lock"):
            why = f" ({rule.why})" if rule.why else ""
            best = (rule.ratio, rule.mode, f"{profile.name}: {keyword!r} → {rule.mode} prune_ratio at {rule.ratio:.2f}{why}")
    return best


def apply_profile(settings: Settings, profile: Any, conv: Conversation, *,
                  profiles: Mapping[str, Profile] | None = None) -> Settings:
    """``settings`` under ``profile`` (a name, a :class:`Profile` or ``"auto"``): capped ratio, pattern pack added.

    The ceiling and every rule whose keywords occur are limits; the lowest wins and becomes ``ratio_cap``
    (``Annotated.at_ratio`` cuts any higher ratio to it, source ``"profile"``).  A lock also sets the ratio.
    ``profile_rule`` says in words which limit applies.  ``"auto"`` with no recognisable domain changes nothing.
    """
    prof = _resolve(profile, conv, profiles)
    if prof is None:
        return settings
    limit, mode, rule_text = limit_for(prof, conversation_text(conv))
    ratio, source = settings.ratio, settings.ratio_source
    if mode == "lock" or ratio > limit:
        ratio, source = limit, "profile"
    pack = tuple(p for p in prof.protected_patterns if p not in settings.protected_patterns)
    compiled = tuple(compile_pattern(p, f"profile {prof.name} protected_patterns") for p in pack)
    return replace(
        settings, ratio=ratio, ratio_source=source, ratio_cap=limit, profile=prof.name, profile_rule=rule_text,
        protected_patterns=settings.protected_patterns + pack, compiled_patterns=settings.compiled_patterns + compiled,
    )
