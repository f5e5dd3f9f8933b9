"""The detector: what will go wrong when this conversation is pruned, and how to rewrite it so it will not.

``lint(conv)`` returns :class:`Finding` objects — a stable code (``LZ1xx``, documented in docs/LINT.md), a
severity, a message, where (message key and character span in ``Message.text``), a concrete suggested
rewrite and, where the rewrite is mechanical, a :class:`~layerzero_viz.advisor.edits.Fix` that
:func:`apply_fix` turns into the rewritten conversation.

>>> from layerzero_viz import load_conversation
>>> conv = load_conversation('{"system": "截至2024年10月1日的数据。", "messages": [{"role": "user", "content": "Summarise it."}]}')
>>> [f.code for f in lint(conv, profile=None)]
['LZ110']
>>> fixed = apply_fix(conv, lint(conv, profile=None)[0])
>>> fixed.messages[0].text
'截至<date_anchor/>的数据。\\n<context><date_anchor>2024-10-01</date_anchor></context>'
>>> lint(fixed, profile=None)
[]
"""
from __future__ import annotations

from typing import Any, Mapping

from ..errors import LayerZeroError
from ..model import Conversation
from . import edits
from .checks import CHECKERS
from .edits import FixError
from .findings import CHECKS, SEVERITIES, SEVERITY_RANK, Check, Finding, LintDoc, has_errors
from .profiles import AUTO, Profile, detect_domain, get_profile, load_profiles

__all__ = ["SEVERITIES", "Check", "CHECKS", "Finding", "lint", "apply_fix", "apply_all", "has_errors"]


def _profile_of(conv: Conversation, profile: Any, profiles: Mapping[str, Profile] | None) -> Profile | None:
    if profile is None or isinstance(profile, Profile):
        return profile
    profiles = load_profiles() if profiles is None else profiles
    if profile == AUTO:
        guess = detect_domain(conv, profiles)
        return profiles[guess.name] if guess else None
    return get_profile(profile, profiles)


def lint(conv: Conversation, *, profile: Any = AUTO, ratio: float | None = None,
         env: Mapping[str, str] | None = None, profiles: Mapping[str, Profile] | None = None,
         codes: tuple[str, ...] | None = None) -> list[Finding]:
    """Every finding for ``conv``, errors first, then in reading order.

    ``profile`` (a name, a Profile, ``"auto"`` or None) sets the domain for LZ150's pattern pack and LZ180's
    limit; ``ratio`` and ``env`` are read like ``annotate`` reads them (default: no environment).
    ``codes`` restricts the checks run.  A fix is offered only when it applies to this conversation.
    """
    doc = LintDoc(conv, ratio=ratio, env={} if env is None else env, profile=_profile_of(conv, profile, profiles))
    order = {(type(m.key), m.key): k for k, m in enumerate(conv.messages)}
    out: list[Finding] = []
    for check in CHECKERS:
        for f in check(doc):
            if codes is not None and f.code not in codes:
                continue
            if f.fix is not None:
                try:
                    edits.apply(conv, f.fix)
                except (FixError, LayerZeroError):
                    f = Finding(f.code, f.severity, f.message, f.message_key, f.start, f.end, f.suggestion, None,
                                f.excerpt)
            out.append(f)
    out.sort(key=lambda f: (SEVERITY_RANK[f.severity],
                            order.get((type(f.message_key), f.message_key), -1), f.start, f.code))
    return out


def apply_fix(conv: Conversation, finding: Finding) -> Conversation:
    """``conv`` rewritten by ``finding``'s mechanical fix, in the input's format.

    :class:`~layerzero_viz.advisor.edits.FixError` when the finding has no fix or ``conv`` changed since.
    """
    if finding.fix is None:
        raise FixError(f"{finding.code} has no mechanical fix; rewrite by hand: {finding.suggestion}")
    return edits.apply(conv, finding.fix)


def apply_all(conv: Conversation, *, max_rounds: int = 100, **lint_options: Any) -> tuple[Conversation, list[Finding]]:
    """``conv`` with every mechanical fix applied (one at a time, linting again after each) and the findings fixed."""
    applied: list[Finding] = []
    tried: set[tuple[str, str]] = set()
    for _ in range(max_rounds):
        todo = next((f for f in lint(conv, **lint_options)
                     if f.fix is not None and (f.code, f.excerpt + f.fix.label) not in tried), None)
        if todo is None:
            break
        tried.add((todo.code, todo.excerpt + todo.fix.label))
        conv = apply_fix(conv, todo)
        applied.append(todo)
    return conv, applied
