"""LZ150–LZ170: facts and rules that should travel as data — values without a pattern pack, business
rules in prose, user facts from early turns of a long chat."""
from __future__ import annotations

import json
import re
from typing import Iterator

from ...structure import elements, scan_tags
from ...view import sentences
from ..edits import Fix, xml_text
from ..findings import Finding, LintDoc, line_span

__all__ = ["check_values", "check_rules", "check_user_facts"]


_VALUE = re.compile(r"[¥$€£￥]\s?\d[\d,]*(?:\.\d+)?|\d+(?:\.\d+)?\s?[%％]|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+")
_GENERIC_PACK = (
    ("money", r"[¥￥$€£]\s?\d[\d,]*(?:\.\d+)?"),
    ("percent", r"\d+(?:\.\d+)?\s?[%％]"),
    ("thousands", r"\d{1,3}(?:,\d{3})+(?:\.\d+)?"),
    ("decimal", r"\d+\.\d+"),
)


def _kind(value: str) -> str:
    if value[0] in "¥$€£￥":
        return "money"
    if value.rstrip()[-1] in "%％":
        return "percent"
    return "thousands" if "," in value else "decimal"


def check_values(doc: LintDoc) -> Iterator[Finding]:
    if any("<protected_tokens>" in doc.text(b) for b in doc.view.blocks if b.role in ("system", "developer")):
        return
    found = []
    for b in doc.view.blocks:
        if b.role != "user":
            continue
        for m in _VALUE.finditer(doc.text(b)):
            s, e = b.start + m.start(), b.start + m.end()
            if not doc.skipped(s, e):
                found.append((s, e, m.group(0)))
    if not found:
        return
    if doc.profile is not None and doc.profile.protected_patterns:
        pack, source = doc.profile.protected_patterns, f"the {doc.profile.name} profile's pattern pack"
    else:
        kinds = {_kind(v) for _, _, v in found}
        pack, source = tuple(p for k, p in _GENERIC_PACK if k in kinds), "a pattern pack for the values seen"
    s, e, _ = found[0]
    examples = ", ".join(dict.fromkeys(v for _, _, v in found[:6]))
    body = json.dumps(list(pack), ensure_ascii=False)
    yield doc.finding(
        "LZ150", s, e,
        f"{len(found)} {'value' if len(found) == 1 else 'numbers, percentages or amounts'} in user messages "
        f"({examples}) and no <protected_tokens>: "
        "nothing states which values must survive pruning exactly",
        f"add {source} to the system prompt: <protected_tokens>{body}</protected_tokens>",
        Fix("Add <protected_tokens> with a pattern pack", protected_tokens=tuple(pack)))


# ---------------------------------------------------------------------------------------------- LZ160 rules


_RULE_ZH = re.compile(r"(?:如果|若|当|凡是?|一旦|只要)[^。！？\n]{0,40}?(?:用户|客户|顾客|来电人|市民|学生|患者|买家)"
                      r"[^。！？\n]{0,60}?(?:必须|一律|务必|应当|须|就要|要求|需)")
_RULE_EN = re.compile(r"\b(?:if|when|whenever)\s+(?:the\s+|a\s+)?(?:user|customer|client|caller|student|patient|buyer)s?\b"
                      r"[^.!?\n]{0,100}?\b(?:must|always|should|need\s+to|have\s+to|shall)\b", re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*(?:\d+[.、)）]|[-*•·]|[（(]\d+[）)])\s*")


def check_rules(doc: LintDoc) -> Iterator[Finding]:
    for b in doc.prompt:
        for s, e in sentences(doc.view, b):
            text = doc.view.text[s:e]
            if not (_RULE_ZH.search(text) or _RULE_EN.search(text)) or doc.skipped(s, e):
                continue
            rule = _LIST_MARKER.sub("", text).strip()
            ls, le = line_span(doc.view.text, s, e)
            fragment = f"<business_rule>{xml_text(rule)}</business_rule>"
            yield doc.finding(
                "LZ160", s, e,
                f"hard-coded business rule in the prompt: {rule[:60]!r} — prose rules are pruned like any other "
                "sentence and are hard to change per tenant or season",
                f"inject it as data: <context>{fragment}</context>",
                Fix("Move the rule into <context>", (doc.replace(ls, le, ""),), context=(fragment,)))


# ---------------------------------------------------------------------------------------------- LZ170 facts


LONG_CHAT_USER_TURNS = 3
# Facts about who the user is (status, membership, account) — not every sentence starting with 我/I.
_STATUS_ZH = re.compile(
    r"(?:我|本人)(?:是|已经是|现在是|属于)[^，,。！？?\n]{0,20}?(?:会员|客户|用户|学生|居民|员工|患者|VIP|vip|账户|卡|户)"
    r"|(?:我|本人)(?:有|持有|开了|办了|办理了|开通了)[^，,。！？?\n]{0,12}?(?:账户|卡|会员|保单|套餐)")
_STATUS_EN = re.compile(
    r"\b(?:I\s+am|I['’]m)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:member|customer|client|subscriber|user|student|resident|citizen|owner|holder|patient|employee|vip)\b"
    r"|\bI\s+have\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}(?:account|plan|membership|subscription|policy|card)\b"
    r"|\bmy\s+(?:account|plan|membership|subscription|status|tier|level|policy)(?:\s+type)?\s+is\b",
    re.IGNORECASE)
_CLAUSE_END = re.compile(r"[，,。！？!?；;\n]")
_QUESTION_TAIL = re.compile(r"(?:吗|吧|么|呢)\s*$")


def _context_text(doc: LintDoc) -> str:
    out = []
    for b in doc.prompt:
        seg = doc.text(b)
        out += [seg[el.inner_start:el.inner_end] for el in elements(scan_tags(seg)) if el.name == "context"]
    return "\n".join(out)


def check_user_facts(doc: LintDoc) -> Iterator[Finding]:
    users = [m for m in doc.conv.messages if m.role == "user"]
    if len(users) < LONG_CHAT_USER_TURNS:
        return
    last_user = users[-1].key
    context = _context_text(doc)
    seen = set()
    for b in doc.view.blocks:
        if b.role != "user" or b.message == last_user:
            continue
        seg = doc.text(b)
        for rx in (_STATUS_ZH, _STATUS_EN):
            for m in rx.finditer(seg):
                end = _CLAUSE_END.search(seg, m.end())
                stop = end.start() if end else len(seg)
                fact = seg[m.start():stop].strip()
                if (end is not None and end.group(0) in "？?") or _QUESTION_TAIL.search(fact):
                    continue  # a question about the status ("我是VIP客户吧？"), not a statement of it
                if fact in seen or xml_text(fact) in context:
                    continue
                seen.add(fact)
                fragment = f"<user_fact>{xml_text(fact)}</user_fact>"
                yield doc.finding(
                    "LZ170", b.start + m.start(), b.start + m.start() + len(fact),
                    f"{len(users)} user turns and an early one states {fact!r}: once early turns are pruned, "
                    "summarised or cut to fit, the fact is gone",
                    f"re-inject it with every request: <context>{fragment}</context>",
                    Fix("Re-inject the fact in <context>", context=(fragment,)))
