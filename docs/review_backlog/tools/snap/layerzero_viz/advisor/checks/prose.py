"""LZ110–LZ140: things stated in prose that belong in structure — absolute dates, ID formats, regexes
the output is parsed with, vague instructions."""
from __future__ import annotations

import json
import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from ...lexicon import load_jieba
from ...structure import elements, scan_tags
from ..edits import Fix
from ..findings import CJK, Finding, LintDoc

__all__ = ["check_dates", "check_id_formats", "check_regex_prose", "check_vague"]


_MONTHS = {m: k for k, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"), 1)}
_MONTHS.update({m[:3]: k for m, k in list(_MONTHS.items())})
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], tuple[str, str, str]], ...] = (
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), ("y", "m", "d")),
    (re.compile(r"(?<![\d.\-/])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d\-/]|\.\d)"), ("y", "m", "d")),
    (re.compile(r"\b" + _MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", re.IGNORECASE), ("mn", "d", "y")),
    (re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH_RE + r"\.?,?\s+(\d{4})\b", re.IGNORECASE), ("d", "mn", "y")),
)
_ANCHOR_RE = re.compile(r"<(date_anchor(?:_\d+)?)>\s*([^<]*?)\s*</\1>")


def _iso(m: re.Match[str], order: tuple[str, str, str]) -> str | None:
    parts = dict(zip(order, m.groups()))
    month = _MONTHS.get(parts["mn"].lower().rstrip(".")[:3]) if "mn" in parts else int(parts["m"])
    day, year = int(parts["d"]), int(parts["y"])
    if not (month and 1 <= month <= 12 and 1 <= day <= 31 and 1900 <= year <= 2200):
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def check_dates(doc: LintDoc) -> Iterator[Finding]:
    anchors: dict[str, str] = {}  # iso date → anchor tag name, from <context> and from earlier findings
    for b in doc.prompt:
        for m in _ANCHOR_RE.finditer(doc.text(b)):
            anchors.setdefault(m.group(2), m.group(1))
    hits = []
    for b in doc.prompt:
        seg = doc.text(b)
        for rx, order in _DATE_PATTERNS:
            for m in rx.finditer(seg):
                s, e = b.start + m.start(), b.start + m.end()
                iso = _iso(m, order)
                if iso and not doc.skipped(s, e):
                    hits.append((s, e, iso, doc.zh(b)))
    taken = set(anchors.values())
    for s, e, iso, zh in sorted(hits):
        if iso not in anchors:  # one anchor per distinct date: date_anchor, date_anchor_2, …
            anchors[iso] = next(n for n in ("date_anchor", *(f"date_anchor_{k}" for k in range(2, 100)))
                                if n not in taken)
            taken.add(anchors[iso])
        name = anchors[iso]
        text = doc.view.text[s:e]
        ref = f"<{name}/>"
        yield doc.finding(
            "LZ110", s, e,
            f"absolute date {text!r} in the prompt: it goes stale with every copy of the prompt and sits in prose "
            "the pruner may cut around",
            f"refer to {ref} and state the date once: <context><{name}>{iso}</{name}></context>",
            Fix(f"Anchor {text} in <context><{name}>", (doc.replace(s, e, ref),),
                context=(f"<{name}>{iso}</{name}>",)))


# ---------------------------------------------------------------------------------------------- LZ120, LZ130


_ID_FORMAT = re.compile(
    r"(?:格式(?:为|是|如|应为|必须是|须为|：|:)|形如|样式为|编号规则为|"
    r"(?i:\bformat(?:ted)?\s*(?:is|as|like|of|:)?|\bin\s+the\s+form(?:\s+of)?|\bof\s+the\s+form|\blooks?\s+like))"
    r"\s*[“\"'「`]?"
    r"(?P<prefix>[A-Z]{2,8})(?P<sep>[-_#/]?)(?P<body>[Xx#N9*0-9]{2,16})(?![A-Za-z0-9])"
    r"[”\"'」`]?"
)
_REGEX_TOKEN = re.compile(r"[^\s，。；、！？：“”「」（）,;!?]+")
_REGEXISH = re.compile(r"\[[^\]\s]{1,24}\](?:[+*?]|\{\d+(?:,\d*)?\})|\\[dDwWsS][+*?{]?|\(\?[:=!]|\[\^")
_LABEL = re.compile(r"(\w+)\s*[：:]\s*$")


def _placeholder_regex(prefix: str, sep: str, body: str) -> str:
    if body.isdigit():
        tail = r"\d+"
    elif set(body) <= set("9#N0123456789"):
        tail = r"\d+"
    else:
        tail = "[0-9A-Z]+"
    return "^" + re.escape(prefix + sep).replace("\\-", "-") + tail + "$"


def _label_before(seg: str, pos: int) -> tuple[int, str] | None:
    """The word a regex is introduced by ("结论：[A-Z]+" → 结论, "Answer: \\d+" → Answer) and where it starts."""
    m = _LABEL.search(seg, max(0, pos - 30), pos)
    if m is None:
        return None
    run = m.group(1)
    if CJK.search(run):  # the last jieba word of the run: "最后一行写结论" → "结论"
        run = load_jieba().lcut(run, HMM=False)[-1]
    return m.end(1) - len(run), run


def _output_format_text(doc: LintDoc) -> str:
    out = []
    for b in doc.prompt:
        seg = doc.text(b)
        for el in elements(scan_tags(seg)):
            if el.name == "output_format":
                out.append(seg[el.inner_start:el.inner_end])
    return "\n".join(out)


def _schema_fix_possible(doc: LintDoc) -> bool:
    current = _output_format_text(doc)
    if not current.strip():
        return True
    try:
        schema = json.loads(current)
    except json.JSONDecodeError:
        return False
    return isinstance(schema, dict) and isinstance(schema.get("properties", {}), dict)


def _schema_finding(doc: LintDoc, code: str, s: int, e: int, *, ref: str, name: str, schema: dict,
                    message: str, advice: str) -> Finding:
    """A finding whose fix points the prose at ``<output_format>`` and declares ``name`` with ``schema`` there."""
    prop = json.dumps(schema, ensure_ascii=False)
    fix = Fix(f"Declare {name!r} in the <output_format> schema", (doc.replace(s, e, ref),),
              schema=((name, prop),)) if _schema_fix_possible(doc) else None
    example = f'<output_format>{{"type": "object", "properties": {{"{name}": {prop}}}}}</output_format>'
    return doc.finding(code, s, e, message, f"{advice}: {example}", fix)


def check_id_formats(doc: LintDoc) -> Iterator[Finding]:
    declared = _output_format_text(doc)
    for b in doc.prompt:
        seg = doc.text(b)
        for m in _ID_FORMAT.finditer(seg):
            s, e = b.start + m.start(), b.start + m.end()
            prefix, sep, body = m.group("prefix"), m.group("sep"), m.group("body")
            if doc.skipped(s, e) or (prefix + sep) in declared:
                continue
            schema = {"type": "string", "pattern": _placeholder_regex(prefix, sep, body),
                      "description": m.group(0).strip()}
            yield _schema_finding(
                doc, "LZ120", s, e, ref="见<output_format>" if doc.zh(b) else "as in <output_format>",
                name=prefix.lower(), schema=schema, advice="declare it",
                message=f"the ID format {prefix}{sep}{body} is stated in prose: the pruner may cut the sentence "
                        "around it and the model may drop or change the prefix")


def check_regex_prose(doc: LintDoc) -> Iterator[Finding]:
    for b in doc.prompt:
        seg = doc.text(b)
        for m in _REGEX_TOKEN.finditer(seg):
            token = m.group(0)
            if not _REGEXISH.search(token):
                continue
            s, e = b.start + m.start(), b.start + m.end()
            if doc.skipped(s, e):
                continue
            label = _label_before(seg, m.start())
            ls = b.start + label[0] if label else s
            name = label[1] if label else "answer"
            pattern = token if token.startswith("^") else "^" + token
            pattern = pattern if pattern.endswith("$") else pattern + "$"
            zh = doc.zh(b)
            ref = (f"{name}（见<output_format>）" if zh else f"{name} (see <output_format>)") if label else \
                ("见<output_format>" if zh else "as in <output_format>")
            yield _schema_finding(
                doc, "LZ130", ls, e, ref=ref, name=name, schema={"type": "string", "pattern": pattern},
                advice="ask for JSON instead",
                message=f"output parsed downstream by the regex {token!r} stated in prose: pruning the words around "
                        "it or a small drift in the model's wording breaks the parser")


# ---------------------------------------------------------------------------------------------- LZ140 vague


@lru_cache(maxsize=1)
def _vague_table() -> tuple[tuple[re.Pattern[str], str], ...]:
    data = tomllib.loads((Path(__file__).resolve().parent.parent / "rewrites.toml").read_text(encoding="utf-8"))
    out = []
    for row in data.get("vague", []):
        alts = []
        for phrase in sorted(row["phrases"], key=len, reverse=True):
            body = r"\s+".join(re.escape(w) for w in phrase.split()).replace("'", "['’]")
            alts.append(r"(?:please\s+)?\b" + body + r"\b" if phrase.isascii() else "请?" + body)
        out.append((re.compile("|".join(alts), re.IGNORECASE), row["tags"]))
    return tuple(out)


def check_vague(doc: LintDoc) -> Iterator[Finding]:
    for b in doc.prompt:
        seg = doc.text(b)
        for rx, tags in _vague_table():
            for m in rx.finditer(seg):
                s, e = b.start + m.start(), b.start + m.end()
                if doc.skipped(s, e):
                    continue
                yield doc.finding(
                    "LZ140", s, e,
                    f"vague instruction {m.group(0)!r}: it is made of words the pruner removes first, and the model "
                    "has to guess what it means",
                    f"say it as structured tags: {tags}",
                    Fix(f"Replace with {tags}", (doc.replace(s, e, tags),)))
