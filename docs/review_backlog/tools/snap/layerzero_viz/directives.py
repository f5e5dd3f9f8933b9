"""Where the settings come from: argument > environment > header > directive > default.

* ``<layer-zero enabled="true" prune_ratio="0.35"/>`` alone on the first line of the system prompt (of a
  plain-text prompt, which is the whole prompt, and whose lists count as the system prompt's too);
  anywhere else it is not honoured (a warning says so); alone on a later line of the system prompt it is still
  removed as an engine directive; inside a line of the system prompt, or in a user or assistant turn, it is text
  (quoted, say) and stays.
* ``ANTHROPIC_EXPERIMENTAL_LAYER_ZERO=true|false`` and ``ANTHROPIC_LAYER_ZERO_PRUNE_RATIO=0.32``.
* ``X-Anthropic-Layer-Zero: enabled;prune_ratio=0.32`` on a raw HTTP capture.
* ``<protected_tokens>[…regexes…]</protected_tokens>`` and ``<redundant_phrases>[…literals…]</redundant_phrases>``
  in any system block.  Regexes are compiled by RE2 (linear time, no backtracking).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Protocol

import re2

from .errors import DirectiveError, PatternError
from .model import Block, Conversation, Message, MessageKey

__all__ = [
    "DEFAULT_RATIO", "MAX_RATIO", "DirectiveSpan", "Settings", "resolve_settings", "check_ratio",
    "ENV_ENABLED", "ENV_RATIO", "HEADER", "compile_pattern", "parse_layer_zero_tag", "directive_message",
    "alone_on_its_line",
]

DEFAULT_RATIO = 0.30
MAX_RATIO = 0.95
ENV_ENABLED = "ANTHROPIC_EXPERIMENTAL_LAYER_ZERO"
ENV_RATIO = "ANTHROPIC_LAYER_ZERO_PRUNE_RATIO"
HEADER = "x-anthropic-layer-zero"

LAYER_ZERO_RE = re.compile(r"<layer-zero\b[^<>]*?/?>(?:\s*</layer-zero>)?", re.IGNORECASE)
_ATTR_RE = re.compile(r"""\s*([A-Za-z_][\w\-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_LIST_TAG_RE = re.compile(r"<(protected_tokens|redundant_phrases)>(.*?)</\1>", re.DOTALL)
_MAX_PATTERN_LEN = 1000


class PatternMatch(Protocol):
    """A match of a :class:`CompiledPattern` (what the engine reads of it)."""

    def start(self) -> int: ...

    def end(self) -> int: ...

    def span(self) -> tuple[int, int]: ...


class CompiledPattern(Protocol):
    """A ``<protected_tokens>`` pattern as RE2 compiles it (:func:`compile_pattern`; re2 ships no type
    information): what the engine calls on it."""

    def finditer(self, text: str) -> Iterator[PatternMatch]: ...


@dataclass(frozen=True)
class DirectiveSpan:
    """Characters of one text block that instruct the engine and leave the output."""

    message: MessageKey
    block: int
    start: int
    end: int
    kind: str  # "layer-zero", "protected_tokens" or "redundant_phrases"
    honoured: bool


@dataclass(frozen=True)
class Settings:
    """Effective settings, each with the place it came from."""

    enabled: bool
    enabled_source: str
    ratio: float
    ratio_source: str
    protected_patterns: tuple[str, ...] = ()
    redundant_phrases: tuple[str, ...] = ()
    directive_spans: tuple[DirectiveSpan, ...] = ()
    warnings: tuple[str, ...] = ()
    compiled_patterns: tuple[CompiledPattern, ...] = field(default=(), compare=False, repr=False)
    profile: str | None = None  # the domain profile applied (advisor.profiles), if any
    profile_rule: str | None = None  # which profile rule changed the settings, in words
    ratio_cap: float | None = None  # a profile's ceiling: every ratio above it, even an argument, is cut to it


def check_ratio(value: object, where: str) -> float:
    """Return ``value`` as a ratio in [0, 0.95] or raise DirectiveError naming ``where``."""
    try:
        ratio = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise DirectiveError(f"{where}: prune_ratio {value!r} is not a number (use e.g. 0.3)") from None
    if not (0.0 <= ratio <= MAX_RATIO) or ratio != ratio:
        raise DirectiveError(f"{where}: prune_ratio {value!r} is outside [0, {MAX_RATIO}] "
                             f"(use a value from 0 to {MAX_RATIO}, e.g. 0.35)")
    return ratio


def _parse_bool(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "on", "enabled"):
        return True
    if lowered in ("false", "0", "no", "off", "disabled"):
        return False
    raise DirectiveError(f"{where}: {value!r} is not true or false")


def parse_layer_zero_tag(tag: str) -> tuple[bool | None, float | None]:
    """``(enabled, prune_ratio)`` of one ``<layer-zero .../>`` tag (None where not given); DirectiveError if malformed."""
    inner = re.sub(r"^<layer-zero\b|/?>(?:\s*</layer-zero>)?$", "", tag.strip(), flags=re.IGNORECASE)
    pos, enabled, ratio = 0, None, None
    for m in _ATTR_RE.finditer(inner):
        if inner[pos:m.start()].strip():
            break
        pos = m.end()
        name, value = m.group(1).lower(), m.group(2) if m.group(2) is not None else m.group(3)
        if name == "enabled":
            enabled = _parse_bool(value, f"directive {tag}")
        elif name == "prune_ratio":
            ratio = check_ratio(value, f"directive {tag}")
        else:
            raise DirectiveError(f"directive {tag}: unknown attribute {name!r} (use enabled and prune_ratio)")
    if inner[pos:].strip():
        raise DirectiveError(
            f'malformed directive {tag}: expected <layer-zero enabled="true" prune_ratio="0.35"/>'
        )
    return enabled, ratio


def _parse_header(value: str) -> tuple[bool | None, float | None]:
    enabled, ratio = None, None
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        if "=" in part:
            name, _, raw = part.partition("=")
            if name.strip().lower() != "prune_ratio":
                raise DirectiveError(f"header X-Anthropic-Layer-Zero: {value!r}: unknown parameter {name.strip()!r}")
            ratio = check_ratio(raw.strip(), f"header X-Anthropic-Layer-Zero: {value!r}")
        else:
            enabled = _parse_bool(part, f"header X-Anthropic-Layer-Zero: {value!r}")
    return enabled, ratio


def compile_pattern(pattern: object, where: str) -> CompiledPattern:
    """``pattern`` compiled by RE2; PatternError naming ``where`` when it is empty, too long or unsupported."""
    if not isinstance(pattern, str) or not pattern:
        raise PatternError(f"{where}: pattern {pattern!r} must be a non-empty string")
    if len(pattern) > _MAX_PATTERN_LEN:
        raise PatternError(f"{where}: pattern {pattern[:40]!r}… is longer than {_MAX_PATTERN_LEN} characters")
    options = re2.Options()
    options.log_errors = False
    try:
        compiled: CompiledPattern = re2.compile(pattern, options)
        return compiled
    except Exception as exc:  # re2 raises its own error type
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(
            f"{where}: pattern {pattern!r} is invalid or unsupported by RE2 ({detail}); "
            "backreferences and lookaround are not allowed"
        ) from None


def _from_indent(text: str, start: int) -> int:
    """``start``, or the start of its line when only spaces and tabs stand before it there: an indented directive
    goes with its indent ("  <layer-zero …/>" had left "  <" — the indent and the "<" are one token)."""
    line_start = text.rfind("\n", 0, start) + 1
    return line_start if not text[line_start:start].strip(" \t") else start


def _json_list(body: str, tag: str, where: str) -> list[str]:
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise DirectiveError(
            f"{where}: <{tag}> must hold a JSON list of strings; {exc.msg} at column {exc.colno}: "
            f"{body.strip()[:80]!r}{_as_json_list(body, tag)}"
        ) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DirectiveError(f"{where}: <{tag}> must hold a JSON list of strings, got {body.strip()[:80]!r}"
                             f"{_as_json_list(body, tag)}")
    return value


def _as_json_list(body: str, tag: str) -> str:
    """The fix for a list written as prose ("P1, P2, hardware" or one item a line): the same items as a JSON list."""
    items = [item.strip(" \t\"'“”‘’「」-*•") for item in re.split(r"[,，、;；\n]", body)]
    items = [item for item in items if item]
    if not items or len(items) > 50:
        return ""
    escaped = " (patterns are RE2 regexes: escape . + * ? ( ) [ ] with a backslash)" if tag == "protected_tokens" else ""
    return f"; write it as {_short_json(items)}{escaped}"


def _short_json(items: list[str]) -> str:
    text = json.dumps(items, ensure_ascii=False)
    return text if len(text) <= 160 else text[:150] + " …]"


def directive_message(conv: Conversation) -> Message | None:
    """The message whose first line may hold the ``<layer-zero/>`` directive and whose engine lists count: the
    system prompt, or — a plain-text prompt being the whole prompt — its one message."""
    if conv.system is None and conv.format == "text" and conv.messages:
        return conv.messages[0]
    return conv.system


def resolve_settings(
    conv: Conversation,
    *,
    ratio: float | None = None,
    enabled: bool | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve the effective settings of ``conv`` by precedence argument > env > header > directive > default."""
    env = {} if env is None else env
    spans: list[DirectiveSpan] = []
    warnings: list[str] = []
    patterns: list[str] = []
    compiled: list[CompiledPattern] = []
    phrases: list[str] = []
    directive: tuple[bool | None, float | None] = (None, None)
    system = directive_message(conv)
    for msg in conv.messages:
        is_system = msg is system or msg.role in ("system", "developer")
        for block in msg.blocks:
            if block.kind != "text":
                continue
            if "<" not in block.text:  # every directive is a tag
                continue
            # where a bad directive or list is: the input's name too (a batch names many files)
            where_block = f"{conv.source_name}: message {msg.key} block {block.index}"
            for m in LAYER_ZERO_RE.finditer(block.text):
                first_line_end = block.text.find("\n")
                first_line = block.text if first_line_end < 0 else block.text[:first_line_end]
                honoured = (
                    msg is system and block is _first_text_block(msg) and m.start() == len(first_line) - len(first_line.lstrip())
                    and first_line.strip() == m.group(0).strip() and not spans_have_layer_zero(spans)
                )
                if honoured:
                    try:
                        directive = parse_layer_zero_tag(m.group(0))
                    except DirectiveError as exc:
                        raise DirectiveError(f"{where_block}, line 1: {exc}") from None
                else:
                    warnings.append(
                        f"{m.group(0)} in {where_block} is not honoured: the directive must stand alone on the "
                        "first line of the system prompt"
                    )
                alone = alone_on_its_line(block.text, m.start(), m.end())
                # in a user or assistant turn the tag is text someone wrote (quoted), kept as it is; so is one quoted
                # inside a line of the system prompt ("A valid directive looks like <layer-zero …/> and …", "Input:
                # <layer-zero …/>"): only a tag alone on its line is an engine directive there
                if is_system and (honoured or alone):
                    spans.append(DirectiveSpan(msg.key, block.index, _from_indent(block.text, m.start()),
                                               _eat_line_end(block.text, m.end()), "layer-zero", honoured))
            if not is_system:
                continue
            for m in _LIST_TAG_RE.finditer(block.text):
                tag = m.group(1)
                values = _json_list(m.group(2), tag, where_block)
                if tag == "protected_tokens":
                    for p in values:
                        compiled.append(compile_pattern(p, f"{where_block} <protected_tokens>"))
                        patterns.append(p)
                else:
                    phrases.extend(v for v in values if v.strip())
                spans.append(DirectiveSpan(msg.key, block.index, _from_indent(block.text, m.start()),
                                           _eat_line_end(block.text, m.end()), tag, True))

    header = {k.lower(): v for k, v in conv.headers.items()}.get(HEADER)
    from_header = _parse_header(header) if header is not None else (None, None)
    from_env: tuple[bool | None, float | None] = (
        _parse_bool(env[ENV_ENABLED], f"environment {ENV_ENABLED}") if env.get(ENV_ENABLED, "").strip() else None,
        check_ratio(env[ENV_RATIO], f"environment {ENV_RATIO}") if env.get(ENV_RATIO, "").strip() else None,
    )
    if ratio is not None:
        ratio = check_ratio(ratio, "argument ratio")
    layers = [("argument", (enabled, ratio)), ("env", from_env), ("header", from_header), ("directive", directive)]
    eff_enabled, enabled_source = next(((v[0], s) for s, v in layers if v[0] is not None), (True, "default"))
    eff_ratio, ratio_source = next(((v[1], s) for s, v in layers if v[1] is not None), (DEFAULT_RATIO, "default"))
    return Settings(
        enabled=eff_enabled, enabled_source=enabled_source, ratio=eff_ratio, ratio_source=ratio_source,
        protected_patterns=tuple(patterns), redundant_phrases=tuple(dict.fromkeys(phrases)),
        directive_spans=tuple(spans), warnings=tuple(warnings), compiled_patterns=tuple(compiled),
    )


def alone_on_its_line(text: str, start: int, end: int) -> bool:
    """Whether the tag at [start, end) of ``text`` stands alone on its line (blanks aside): a directive, where a tag
    inside a line is text quoted in it ("A valid directive looks like <layer-zero …/> and …")."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return not text[line_start:start].strip() and not text[end:len(text) if line_end < 0 else line_end].strip()


def spans_have_layer_zero(spans: list[DirectiveSpan]) -> bool:
    return any(s.kind == "layer-zero" for s in spans)


def _first_text_block(msg: Message) -> Block | None:
    return next((b for b in msg.blocks if b.kind == "text"), None)


def _eat_line_end(text: str, end: int) -> int:
    """Extend a directive span over trailing spaces and one newline so no empty line is left."""
    j = end
    while j < len(text) and text[j] in " \t":
        j += 1
    if j < len(text) and text[j] == "\n":
        return j + 1
    return end
