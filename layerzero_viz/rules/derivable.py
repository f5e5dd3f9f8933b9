"""derivable_context: text that restates what the conversation has already established.

* the role the system prompt sets ("你是一名税务顾问" → a later "作为税务顾问，…"; "You are a tax advisor" →
  "As a tax advisor, …");
* a reply language already required ("请用中文回答" when the system prompt says so);
* a sentence that only restates a fact already given in ``<context>``.
"""
from __future__ import annotations

import re

from .. import native as _native
from ..view import Candidate, TextView, clauses, sentences, units

_ROLE_ZH = re.compile(r"你(?:现在)?是(?:一名|一位|一个|一款|个|名|位)?([\u4e00-\u9fffA-Za-z]{2,12}?)(?=[，。,.！!；;、\n]|$)")
# Case-insensitive throughout, except that each pattern opens with its first letters as a case-sensitive class
# and the word boundary as a lookbehind: the regex engine then skips ahead to those letters instead of trying a
# case-folded match at every position (≈ 3× faster on long prompts).  The same matches: no character outside
# ASCII matches y, a, r or w ignoring case, for s the class lists the one that does (ſ, U+017F), and before a
# letter ``\b`` is "no word character just before"; tests/engine/test_rules.py holds them to the plain forms.
_ROLE_EN = re.compile(
    r"[yYaA](?<!\w[yYaA])(?:(?<=[yY])(?i:ou are|ou're)|(?<=[aA])(?i:ct as))"
    r"(?i:\s+(?:an?|the)\s+([A-Za-z][A-Za-z\- ]{1,40}?)(?=[.,;:!\n]|\s+(?:who|that|with|and|for|in)\b|$))"
)
_LANG_ZH = r"(?:简体中文|繁体中文|中文|汉语|英文|英语|日语|韩语)"
_LANG_REQ_ZH = re.compile(r"(?:用|使用|以)(" + _LANG_ZH + r")(?:来)?(?:回答|回复|作答|输出|答复|交流)")
_LANG_EN = r"(english|chinese|simplified chinese|french|german|japanese|spanish|korean)"
_LANG_REQ_EN = re.compile(r"[rRaAwWsS\u017f](?<!\w[rRaAwWsS\u017f])(?:(?<=[rR])(?i:espond|eply)|(?<=[aA])(?i:nswer)"
                          r"|(?<=[wW])(?i:rite)|(?<=[sS\u017f])(?i:peak))(?i:(?:\s+only)?\s+in\s+" + _LANG_EN + r"\b)")
_LANG_CANON = {"简体中文": "中文", "汉语": "中文", "英语": "英文", "simplified chinese": "chinese"}
# "as" / "作为" frame the role phrase: the connective goes with it
_FRAME_OVERRIDE = frozenset({"protected_connective"})
_VALUE_PROTECTIONS = frozenset({"protected_number", "protected_identifier", "protected_pattern", "protected_quote"})


def _lang(name: str) -> str:
    name = name.lower()
    return _LANG_CANON.get(name, name)


def find(view: TextView, ctx) -> list[Candidate]:
    text = view.text
    out: list[Candidate] = []
    system_blocks = view.blocks_of_roles(("system", "developer"))
    roles: list[tuple[str, int, int]] = []
    langs: dict[str, tuple[int, int]] = {}
    for b in system_blocks:
        for rx in (_ROLE_ZH, _ROLE_EN):
            for m in rx.finditer(text, b.start, b.end):
                role = m.group(1).strip()
                if len(role) >= 2:
                    roles.append((role, m.start(), m.end()))
        for rx in (_LANG_REQ_ZH, _LANG_REQ_EN):
            for m in rx.finditer(text, b.start, b.end):
                langs.setdefault(_lang(m.group(1)), (m.start(), m.end()))

    for role, rs, re_ in roles:
        esc = re.escape(role)
        if not re.compile(esc, re.IGNORECASE).search(text, re_):
            continue  # every restatement contains the role itself: one literal scan rules them all out
        phrase = re.compile(
            r"(?:作为|身为)(?:一名|一位|一个|个|名)?" + esc + r"(?:的话)?[，,]?"
            r"|你(?:现在)?是(?:一名|一位|一个|个|名)?" + esc + r"[，,。.]?"
            r"|\bas\s+(?:an?|the|my)\s+" + esc + r"\s*,?"
            r"|\b(?:you are|you're)\s+(?:an?|the|my)\s+" + esc + r"\s*[,.]?",
            re.IGNORECASE,
        )
        for m in phrase.finditer(text, re_):
            if view.block_at(m.start()).role in ("system", "developer") and m.start() < re_:
                continue
            out.append(Candidate(m.start(), m.end(), "derivable_context", 0.9,
                                 f"restates the role set at {view.where(rs)}: {text[rs:re_]!r}", 0.05,
                                 _FRAME_OVERRIDE, lock=(rs, re_)))

    for b in view.blocks if langs else ():  # nothing to restate when no language is required
        for rx in (_LANG_REQ_ZH, _LANG_REQ_EN):
            for m in rx.finditer(text, b.start, b.end):
                first = langs.get(_lang(m.group(1)))
                if first is None or m.start() <= first[0]:
                    continue
                s, e = _clause_around(view, m.start(), m.end(), b)
                out.append(Candidate(s, e, "derivable_context", 0.85,
                                     f"the reply language is already required at {view.where(first[0])}: "
                                     f"{text[first[0]:first[1]]!r}", 0.05, lock=first))

    out.extend(_context_restatements(view, ctx))
    return out


def _clause_around(view: TextView, s: int, e: int, block) -> tuple[int, int]:
    for cs, ce in clauses(view, block.start, block.end):
        if cs <= s and e <= ce:
            # only the clause when nothing else of substance is in it
            rest = units(view.text[cs:s] + view.text[e:ce])
            if len(rest) <= 2:
                return cs, ce
            return s, e
    return s, e


def _context_restatements(view: TextView, ctx) -> list[Candidate]:
    facts = ctx.protection.context_facts
    if not facts:
        return []
    found = ctx.prescan.get("context") if ctx.prescan else None  # the engine's repeat scan looked already
    if found is None:
        kernel = _native.native
        if kernel is None:
            return _context_restatements_python(view, ctx)
        listed = [(cs, ce) for b in view.blocks for cs, ce in sentences(view, b)]
        found = [(*listed[k], f) for k, f in kernel.context_restatements(
            view.text, listed, ctx.protection.context_ranges, [v for _, _, v in facts])]
    out = []
    for cs, ce, f in found:
        cstart, tag, value = facts[f]
        out.append(Candidate(cs, ce, "derivable_context", 0.8,
                             f"already in <context><{tag}> at {view.where(cstart)}: {value[:60]!r}",
                             0.05, _VALUE_PROTECTIONS, anchor=value))
    return out


def _context_restatements_python(view: TextView, ctx) -> list[Candidate]:
    """The definition ``_native.context_restatements`` is tested against."""
    facts = ctx.protection.context_facts
    text = view.text
    fact_grams = []
    for cstart, tag, value in facts:
        us = units(value)
        if len(us) >= 2:
            fact_grams.append((cstart, tag, value, frozenset(zip(us, us[1:])) | frozenset(us)))
    out = []
    ranges = ctx.protection.context_ranges
    for b in view.blocks:
        # whole sentences only: a clause ("…, up to $600") qualifies the sentence it sits in
        for cs, ce in sentences(view, b):
            if any(rs <= cs < re_ for rs, re_ in ranges):
                continue
            us = units(text[cs:ce])
            if len(us) < 4:
                continue
            grams = frozenset(zip(us, us[1:]))
            for cstart, tag, value, fg in fact_grams:
                if len(grams & fg) / len(grams) >= 0.9:
                    out.append(Candidate(cs, ce, "derivable_context", 0.8,
                                         f"already in <context><{tag}> at {view.where(cstart)}: {value[:60]!r}",
                                         0.05, _VALUE_PROTECTIONS, anchor=value))
                    break
    return out
