"""LZ101–LZ105: engine directives that are misplaced, malformed or out of range, and engine lists
the engine refuses or never reads."""
from __future__ import annotations

import ast
import json
import re
from typing import Iterator

from ...directives import (LAYER_ZERO_RE, MAX_RATIO, alone_on_its_line, compile_pattern, directive_message,
                           parse_layer_zero_tag)
from ...errors import LayerZeroError
from ..edits import Fix
from ..findings import Finding, LIST_TAG_RE, LintDoc, line_span

__all__ = ["check_directives", "check_list_tags", "canonical_directive"]


_NEAR_MISS = re.compile(r"<\s*layer[\s_\-]*zero\b[^<>]*>|<\s*layerzero\b[^<>]*>", re.IGNORECASE)
_ATTR_VALUE = r"""{}\s*=\s*["']?\s*([^"'\s/>]*)"""


def canonical_directive(tag: str, *, ratio: float | None = None) -> str:
    """A well-formed directive carrying what ``tag`` meant (ratio clamped to [0, 0.95], or ``ratio``)."""
    enabled = "true"
    m = re.search(_ATTR_VALUE.format("enabled"), tag, re.IGNORECASE)
    if m and m.group(1).strip().lower() in ("false", "0", "no", "off", "disabled"):
        enabled = "false"
    if ratio is None:
        m = re.search(_ATTR_VALUE.format(r"prune[_\-]?ratio"), tag, re.IGNORECASE)
        try:
            ratio = float(m.group(1)) if m else None
        except ValueError:
            ratio = None
    if ratio is None or ratio != ratio:
        return f'<layer-zero enabled="{enabled}"/>'
    ratio = min(max(ratio, 0.0), MAX_RATIO)
    return f'<layer-zero enabled="{enabled}" prune_ratio="{ratio:g}"/>'


def _out_of_range(tag: str) -> float | None:
    m = re.search(_ATTR_VALUE.format("prune_ratio"), tag)
    try:
        value = float(m.group(1)) if m else None
    except ValueError:
        return None
    return value if value is not None and not 0.0 <= value <= MAX_RATIO else None


def check_directives(doc: LintDoc) -> Iterator[Finding]:
    view, conv = doc.view, doc.conv
    seen_any = False
    honoured_exists = False
    system = directive_message(conv)  # the engine's own rule (a plain-text prompt is its own system prompt)
    for b in view.blocks:
        seg = doc.text(b)
        first_text = system is not None and b.msg_pos == 0 and b is next(
            (x for x in view.blocks if x.msg_pos == 0), None)
        known = list(LAYER_ZERO_RE.finditer(seg))
        for m in known:
            tag = m.group(0)
            s, e = b.start + m.start(), b.start + m.end()
            first_line = seg.split("\n", 1)[0]
            honoured = (first_text and not seen_any and first_line.strip() == tag.strip()
                        and m.start() == len(first_line) - len(first_line.lstrip()))
            seen_any = True
            try:
                parse_layer_zero_tag(tag)
                ok = True
            except LayerZeroError as exc:
                ok, problem = False, str(exc)
            if not ok:
                bad = _out_of_range(tag)
                fixed = canonical_directive(tag)
                if bad is not None:
                    yield doc.finding("LZ103", s, e, f"{tag} asks for prune_ratio {bad:g}, outside [0, {MAX_RATIO}]: "
                                      "the request is rejected", f"use {fixed}",
                                      Fix(f"Clamp the ratio: {fixed}", (doc.replace(s, e, fixed),)))
                else:
                    yield doc.finding("LZ102", s, e, f"malformed directive: {problem}", f"use {fixed}",
                                      Fix(f"Rewrite as {fixed}", (doc.replace(s, e, fixed),)))
            if honoured:
                honoured_exists = True
                continue
            ls, le = line_span(view.text, s, e)
            if not alone_on_its_line(seg, m.start(), m.end()):
                continue  # a tag quoted inside a line ("A valid directive looks like <layer-zero …/> and …") is text
            if honoured_exists:
                yield doc.finding("LZ101", s, e, f"a second directive {tag} in {doc.where(s)} is ignored: only the "
                                  "one on the first line of the system prompt counts", "delete it",
                                  Fix("Delete the ignored directive", (doc.replace(ls, le, ""),)))
            else:
                fixed = canonical_directive(tag)
                yield doc.finding("LZ101", s, e, f"{tag} in {doc.where(s)} is not honoured: the directive must stand "
                                  "alone on the first line of the system prompt", f"move it there: {fixed}",
                                  Fix("Move the directive to the first line of the system prompt",
                                      (doc.replace(ls, le, ""),), directive=fixed))
        for m in _NEAR_MISS.finditer(seg):
            if any(k.start() <= m.start() < k.end() for k in known):
                continue
            s, e = b.start + m.start(), b.start + m.end()
            fixed = canonical_directive(m.group(0))
            yield doc.finding("LZ102", s, e, f"{m.group(0)!r} is not a <layer-zero/> directive the engine reads: "
                              "it is ignored and sent to the model as text", f"write {fixed}",
                              Fix(f"Rewrite as {fixed}", (doc.replace(s, e, fixed),)))


def _list_values(body: str) -> tuple[list[str] | None, str]:
    """The strings of a list tag's body and "", or None and why not (a Python-style list is recovered)."""
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        try:
            value = ast.literal_eval(body.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None, f"not JSON ({exc.msg} at column {exc.colno})"
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value), "quoted the Python way, not as JSON"
        return None, f"not JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None, "not a list of strings"
    return value, ""


def check_list_tags(doc: LintDoc) -> Iterator[Finding]:
    prompt = directive_message(doc.conv)
    for b in doc.view.blocks:
        seg = doc.text(b)
        in_system = b.role in ("system", "developer") or (
            prompt is not None and doc.conv.messages[b.msg_pos] is prompt)
        for m in LIST_TAG_RE.finditer(seg):
            tag = m.group(1)
            s, e = b.start + m.start(), b.start + m.end()
            values, problem = _list_values(m.group(2))
            if values is not None and problem:
                body = json.dumps(values, ensure_ascii=False)
                yield doc.finding("LZ104", s, e, f"<{tag}> is {problem}: the engine refuses it",
                                  f"write <{tag}>{body}</{tag}>",
                                  Fix(f"Rewrite <{tag}> as JSON", (doc.replace(b.start + m.start(2), b.start + m.end(2),
                                                                                body),)))
                continue
            if values is None:
                yield doc.finding("LZ104", s, e, f"<{tag}> is {problem}: the engine refuses it",
                                  f'write a JSON list of strings: <{tag}>["…", "…"]</{tag}>')
                continue
            if tag == "protected_tokens":
                bad = []
                for p in values:
                    try:
                        compile_pattern(p, "pattern")
                    except LayerZeroError:
                        bad.append(p)
                if bad:
                    yield doc.finding("LZ104", s, e, f"<protected_tokens> patterns {bad!r} are invalid or not "
                                      "supported by RE2 (no lookaround, no backreferences)",
                                      "rewrite them without lookaround or backreferences, e.g. "
                                      r"'(?<=¥)\d+' → '¥\d+'")
                    continue
            if not in_system:
                ls, le = line_span(doc.view.text, s, e)
                yield doc.finding("LZ105", s, e, f"<{tag}> in {doc.where(s)} is not read: engine lists count only in "
                                  "the system prompt, so it goes to the model as text",
                                  f"move <{tag}> into the system prompt",
                                  Fix(f"Move <{tag}> into the system prompt", (doc.replace(ls, le, ""),),
                                      **{tag: tuple(values)}))
