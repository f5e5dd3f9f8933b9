"""The project's hand-labeled quality set: load the cases, prune them, and score what survived.

A case is one conversation with spans that must survive pruning (``must_keep``) and spans that must go
(``must_prune``), written from the contract of issue 12 ("Pruning you can trust"), not from what the engine
does; ``fixtures/labeled/README.md`` describes the format.

>>> from layerzero_viz.labeled import Case, score
>>> case = Case(id="doc-en-01", lang="en", cls="debris", system=None,
...             messages=({"role": "user", "content": "Thanks! Is order #7 late?"},),
...             ratio=0.5, must_keep=(("0", "order #7"),), must_prune=(("0", "Thanks!"),), why="doc")
>>> class Stub:  # anything with annotate's shape: conversation -> .at_ratio(r).to_dict()
...     def at_ratio(self, r): return self
...     def to_dict(self): return {"messages": [{"message": 0, "pruned": "Is order #7 late?"}]}
>>> report = score([case], annotate_fn=lambda conversation: Stub())
>>> (report.total.kept, report.total.keep_total, report.total.removed, report.total.prune_total)
(1, 1, 1, 1)
"""
from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from .errors import InputError

__all__ = [
    "CLASSES", "DEFAULT_DIR", "LANGS", "Case", "Failure", "LabelError", "Report", "Tally", "default_paths",
    "load_cases", "prune_case", "score",
]

LANGS = ("zh", "en", "mixed")
CLASSES = ("polarity", "constraint", "material", "function_words", "debris", "empty", "declared", "find")
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "labeled"

Span = tuple[str, str]  # (message key, exact substring of that message's original text)
AnnotateFn = Callable[[Any], Any]  # annotate's shape: a Conversation -> an object with .at_ratio(r).to_dict()


class LabelError(InputError):
    """A labeled case is malformed; ``location`` is ``file:line`` and the message names the case id."""


@dataclass(frozen=True)
class Case:
    """One labeled conversation; message keys are ``"system"`` and ``"0"``, ``"1"``, … in order."""

    id: str
    lang: str
    cls: str
    system: str | None
    messages: tuple[Mapping[str, str], ...]
    ratio: float
    must_keep: tuple[Span, ...]
    must_prune: tuple[Span, ...]
    why: str

    def texts(self) -> dict[str, str]:
        """Each message key with its original text."""
        out = {"system": self.system} if self.system is not None else {}
        out.update({str(i): m["content"] for i, m in enumerate(self.messages)})
        return out

    def body(self) -> bytes:
        """The case as an Anthropic Messages request body (UTF-8 JSON)."""
        doc: dict[str, Any] = {"model": "claude-labeled", "max_tokens": 1024}
        if self.system is not None:
            doc["system"] = self.system
        doc["messages"] = [dict(m) for m in self.messages]
        return json.dumps(doc, ensure_ascii=False).encode()


@dataclass(frozen=True)
class Failure:
    """A label the pruning did not honour, with the pruned text around where the span is (or was)."""

    case: str
    message: str
    span: str
    kind: str  # "dropped" (a must_keep span lost), "survived" or "partial" (a must_prune span not fully gone)
    around: str


@dataclass
class Tally:
    """Counts for one slice of the set (a language, a class, or everything)."""

    kept: int = 0
    keep_total: int = 0
    removed: int = 0
    prune_total: int = 0
    cases: int = 0
    empty: int = 0  # messages pruned to empty or whitespace

    @property
    def keep_rate(self) -> float:
        """Share of must_keep spans retained (1.0 when there are none)."""
        return self.kept / self.keep_total if self.keep_total else 1.0

    @property
    def recall(self) -> float:
        """Share of must_prune spans removed (1.0 when there are none)."""
        return self.removed / self.prune_total if self.prune_total else 1.0


@dataclass
class Report:
    """The score of a set: totals, per language, per class, and every failure in case order."""

    total: Tally = field(default_factory=Tally)
    by_lang: dict[str, Tally] = field(default_factory=dict)
    by_class: dict[str, Tally] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    empty_turns: list[tuple[str, str]] = field(default_factory=list)  # (case id, message key)


def default_paths(folder: Path = DEFAULT_DIR) -> list[Path]:
    """The ``*.jsonl`` files of the labeled set, sorted."""
    return sorted(Path(folder).glob("*.jsonl"))


def load_cases(paths: Iterable[str | Path]) -> list[Case]:
    """Every case in ``paths`` (JSONL files), validated; raises :class:`LabelError` naming file:line and id."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in paths:
        path = Path(path)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as e:
                raise LabelError(f"not JSON: {e.msg}", location=where) from None
            case = _case(raw, where)
            if case.id in seen:
                raise LabelError(f"case {case.id!r}: duplicate id (first at {seen[case.id]})", location=where)
            seen[case.id] = where
            cases.append(case)
    return cases


def _case(raw: Any, where: str) -> Case:
    cid = raw.get("id", "?") if isinstance(raw, dict) else "?"

    def bad(msg: str) -> LabelError:
        return LabelError(f"case {cid!r}: {msg}", location=where)

    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise bad("a case is an object with a string id")
    if raw.get("lang") not in LANGS:
        raise bad(f"lang must be one of {', '.join(LANGS)}")
    if raw.get("class") not in CLASSES:
        raise bad(f"class must be one of {', '.join(CLASSES)}")
    messages = raw.get("messages")
    if not isinstance(messages, list) or not messages or not all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
            and m["content"] for m in messages):
        raise bad("messages must be a non-empty list of {role: user|assistant, content: non-empty string}")
    system = raw.get("system")
    if system is not None and not (isinstance(system, str) and system):
        raise bad("system, when given, is a non-empty string")
    ratio = raw.get("ratio", 0.5)
    if not isinstance(ratio, (int, float)) or not 0 <= ratio <= 0.95:
        raise bad("ratio must be a number in [0, 0.95]")
    case = Case(id=raw["id"], lang=raw["lang"], cls=raw["class"], system=system,
                messages=tuple({"role": m["role"], "content": m["content"]} for m in messages),
                ratio=float(ratio), must_keep=_spans(raw, "must_keep", bad), must_prune=_spans(raw, "must_prune", bad),
                why=str(raw.get("why", "")))
    if not case.why:
        raise bad("why is required: one line a reader can check")
    if not case.must_keep:
        raise bad("must_keep is required")
    texts = case.texts()
    for kind, spans in (("must_keep", case.must_keep), ("must_prune", case.must_prune)):
        for key, text in spans:
            if key not in texts:
                raise bad(f"{kind} names message {key!r}; this case has {', '.join(texts)}")
            if text not in texts[key]:
                raise bad(f"{kind} span {text!r} is not an exact substring of message {key!r}")
            if kind == "must_prune" and text != text.strip():
                raise bad(f"must_prune span {text!r} starts or ends with whitespace; label the words, not the gap")
    for (key, text), k in _counted(case.must_prune):
        if (key, text) in case.must_keep:
            raise bad(f"span {text!r} of message {key!r} is both must_keep and must_prune")
        if k > len(_labeled_starts(case, key, text, k)):
            raise bad(f"must_prune span {text!r} is labeled {k}x but occurs fewer times in message {key!r} "
                      "outside its must_keep spans")
    return case


def _labeled_starts(case: Case, key: str, span: str, k: int) -> list[int]:
    """Where the ``k`` labeled occurrences of a must_prune ``span`` start in message ``key``.

    A span may also occur inside a must_keep span ("请问" inside "申请问题", a phrase inside a quote); those
    occurrences are not the labeled ones.  Of the rest, the last ``k`` are: a repeat is pruned, its first copy kept.
    """
    text = case.texts()[key]
    guarded = [(s, s + len(t)) for kk, t in case.must_keep if kk == key for s in _starts(text, t)]
    free = [s for s in _starts(text, span) if not any(a < s + len(span) and s < b for a, b in guarded)]
    return free[-k:] if k else []


def _starts(text: str, span: str) -> list[int]:
    out, i = [], text.find(span)
    while i >= 0:
        out.append(i)
        i = text.find(span, i + 1)
    return out


def _spans(raw: dict, name: str, bad: Callable[[str], LabelError]) -> tuple[Span, ...]:
    spans = raw.get(name, [])
    if not isinstance(spans, list) or not all(
            isinstance(s, list) and len(s) == 2 and all(isinstance(x, str) and x for x in s) for s in spans):
        raise bad(f"{name} must be a list of [message key, span] string pairs")
    return tuple((k, t) for k, t in spans)


def prune_case(case: Case, annotate_fn: AnnotateFn | None = None) -> dict[str, str]:
    """The case pruned at its ratio: {message key: pruned text}.

    ``annotate_fn`` defaults to the engine's ``annotate`` with no environment; pass e.g.
    ``lambda conv: annotate(conv, env={}, low_information=False)`` to score other settings.
    """
    from . import annotate, load_conversation

    fn = annotate_fn or (lambda conv: annotate(conv, env={}))
    result = fn(load_conversation(case.body())).at_ratio(case.ratio).to_dict()
    return {str(m["message"]): m["pruned"] for m in result["messages"]}


def score(cases: Sequence[Case], *, annotate_fn: AnnotateFn | None = None) -> Report:
    """Prune every case (see :func:`prune_case`) and count what the labels expect.

    A must_keep span is retained when it still occurs in that message's pruned text, as often as before.
    A must_prune span labeled k times is removed when its text occurs at least k times fewer and no
    word or mark of its labeled occurrences survives (the last k outside the message's must_keep spans);
    leftovers of it (a stray "and", "信息！", an orphan list marker) count as "partial".
    """
    report = Report()
    for case in cases:
        pruned = prune_case(case, annotate_fn)
        texts = case.texts()
        slices = (report.total, report.by_lang.setdefault(case.lang, Tally()),
                  report.by_class.setdefault(case.cls, Tally()))
        for t in slices:
            t.cases += 1
        for key, text in texts.items():
            if text.strip() and not pruned.get(key, "").strip():
                report.empty_turns.append((case.id, key))
                for t in slices:
                    t.empty += 1
        for key, span in case.must_keep:
            ok = pruned.get(key, "").count(span) >= texts[key].count(span)
            for t in slices:
                t.kept += ok
                t.keep_total += 1
            if not ok:
                report.failures.append(Failure(case.id, key, span, "dropped",
                                               _around(texts[key], pruned.get(key, ""), span)))
        for (key, span), k in _counted(case.must_prune):
            kind = _prune_outcome(texts[key], pruned.get(key, ""), span, _labeled_starts(case, key, span, k))
            for t in slices:
                t.removed += (kind is None) * k
                t.prune_total += k
            if kind:
                report.failures.append(
                    Failure(case.id, key, span, kind, _around(texts[key], pruned.get(key, ""), span)))
    return report


def _counted(spans: Sequence[Span]) -> list[tuple[Span, int]]:
    """Each distinct span once with how often it is labeled, in label order."""
    return [(s, spans.count(s)) for i, s in enumerate(spans) if s not in spans[:i]]


def _prune_outcome(original: str, pruned: str, span: str, starts: list[int]) -> str | None:
    """None when the labeled occurrences (at ``starts``) of ``span`` are wholly gone, else "survived" or "partial"."""
    if pruned.count(span) > original.count(span) - len(starts):
        return "survived"
    cut = {j for s in starts for j in range(s, s + len(span))}
    return "partial" if _needs(original, pruned, cut) else None


# Marks that are debris when left without their words ("****", an orphan "- ", a stray quote).  Sentence
# punctuation and spacing are not compared: tidying may rewrite them.
_RESIDUE_MARKS = frozenset("*_~`#-•>\"'“”‘’「」『』«»")


def _residue(text: str, skip: Collection[int] = ()) -> str:
    return "".join(ch.lower() for i, ch in enumerate(text) if i not in skip and (ch.isalnum() or ch in _RESIDUE_MARKS))


def _needs(original: str, pruned: str, cut: set[int]) -> bool:
    """Whether ``pruned`` keeps some word or mark of ``original`` at the positions in ``cut``.

    Pruning deletes and tidying only touches punctuation and spacing, so the words and marks of ``pruned`` are
    a subsequence of those of ``original``; the cut is wholly gone when they still are without it.  (A
    character diff cannot tell: once "翻译成中文。只输出译文。" loses its second sentence, the "文。" left
    aligns as well with "译文。".)
    """
    full, rest, out = _residue(original), _residue(original, cut), _residue(pruned)
    if _is_subsequence(out, full):
        return not _is_subsequence(out, rest)
    # the pruned text is not a plain deletion (case or words rewritten): fall back to a diff's matched size
    return _matched(rest, out) < _matched(full, out)


def _matched(a: str, b: str) -> int:
    return sum(m.size for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


def _is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


def _around(original: str, pruned: str, span: str, width: int = 30) -> str:
    """The pruned text where ``span`` is or was: found by the text just before it in the original."""
    at = pruned.find(span)
    if at < 0:
        start = original.find(span)
        anchor = original[max(0, start - 12):start]
        at = pruned.find(anchor) + len(anchor) if anchor and anchor in pruned else -1
    if at < 0:
        return pruned[:2 * width + len(span)] + ("…" if len(pruned) > 2 * width + len(span) else "")
    lo, hi = max(0, at - width), min(len(pruned), at + len(span) + width)
    return ("…" if lo else "") + pruned[lo:hi] + ("…" if hi < len(pruned) else "")
