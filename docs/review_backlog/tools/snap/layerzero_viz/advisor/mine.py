"""History mining: which phrases in real user traffic are redundant, ranked by what declaring them saves.

Stream a history of user messages (JSONL, CSV or plain lines; millions of lines are fine), count word
n-grams per message (Chinese segmented with jieba, English by words; n-grams never cross punctuation or
numbers), and rank them by document frequency, the tokens they cost across the history and how often they
frame a clause (stand at its start or end) — where greetings, politeness and throat-clearing live.

Memory stays flat as the file grows: the phrase table holds at most ``2 × capacity`` entries; when full it
drops the rarest (a batch variant of the Misra–Gries "frequent items" summary), so every phrase whose
document frequency exceeds the reported ``error_bound`` is counted, undercounted by at most that much.
Example messages are not kept while counting: they are found by reading the start of the history again.

>>> import io
>>> items = ["订单", "物流", "发票", "退款", "地址", "优惠券"]
>>> lines = ['{"text": "您好，麻烦您帮我看看%s，谢谢！"}' % items[k % 6] for k in range(30)]
>>> result = mine(io.BytesIO("\\n".join(lines).encode()), top=3, progress=False)
>>> [(p.phrase, p.documents) for p in result.phrases]
[('麻烦您帮我看看', 30), ('谢谢', 30), ('您好', 30)]
>>> result.block()
'<redundant_phrases>["麻烦您帮我看看", "谢谢", "您好"]</redundant_phrases>'
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

import numpy as np

from ..errors import InputError
from ..formats import messages_from_json
from ..lexicon import entries, load_jieba, scan
from ..tokens import encoding

_jieba = load_jieba  # bench/mine.py warms jieba up under this name

__all__ = ["Phrase", "MiningResult", "mine", "iter_history", "redundant_phrases_block", "HISTORY_FORMATS"]

HISTORY_FORMATS = ("auto", "jsonl", "csv", "lines")
TEXT_FIELDS = ("text", "content", "message", "query", "prompt", "question", "input", "user", "value", "utterance")
DEFAULT_TOP = 50
DEFAULT_CAPACITY = 50_000
MAX_WORDS = {"zh": 6, "en": 6}
EXAMPLES = 3
_HINT_SKIP = "fix or remove the line, or pass --skip-bad-lines (skip_bad_lines=True) to skip and count bad lines"


@dataclass(frozen=True)
class Phrase:
    """One candidate redundant phrase and what it costs across the history.

    ``documents``: messages containing it; ``tokens``: cl100k tokens of one use; ``tokens_total``: all its
    uses; ``saving``: estimated tokens saved by declaring it (its uses, weighted by how likely the
    engine removes them: a clause-framing phrase almost always goes); ``edge_share``: share of uses at
    the start or end of a clause; ``idf``: log(messages / documents).
    """

    phrase: str
    documents: int
    occurrences: int
    tokens: int
    tokens_total: int
    saving: int
    idf: float
    edge_share: float
    score: float
    lexicon: bool
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class MiningResult:
    """The ranked phrases plus what was read: lines, messages, history tokens, bad lines skipped."""

    source: str
    lines: int
    messages: int
    tokens: int
    skipped: int
    phrases: tuple[Phrase, ...]
    error_bound: int
    capacity: int
    skipped_lines: tuple[int, ...] = field(default=())

    def block(self, phrases: Iterable[str] | None = None) -> str:
        """The ``<redundant_phrases>[…]</redundant_phrases>`` block (all ranked phrases unless given)."""
        return redundant_phrases_block(p.phrase for p in self.phrases) if phrases is None \
            else redundant_phrases_block(phrases)

    @property
    def saving(self) -> int:
        return sum(p.saving for p in self.phrases)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["phrases"] = [asdict(p) | {"examples": list(p.examples)} for p in self.phrases]
        out["skipped_lines"] = list(self.skipped_lines[:100])
        out["redundant_phrases"] = self.block()
        return out


def redundant_phrases_block(phrases: Iterable[str]) -> str:
    """``<redundant_phrases>["请问", "麻烦"]</redundant_phrases>`` for the system prompt (JSON, UTF-8 kept).

    >>> redundant_phrases_block(["请问", "could you please"])
    '<redundant_phrases>["请问", "could you please"]</redundant_phrases>'
    """
    return f"<redundant_phrases>{json.dumps(list(dict.fromkeys(phrases)), ensure_ascii=False)}</redundant_phrases>"


# ---------------------------------------------------------------------------------------------- reading


def _open(source: Any) -> tuple[IO[bytes], str, int | None, bool]:
    """(binary stream, display name, size in bytes or None, whether we opened it and must close it)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read the history ({exc.strerror or exc})", location=str(path)) from None
        return fh, path.name, path.stat().st_size, True
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return io.BytesIO(data), "<history>", len(data), True
    name = getattr(source, "name", "<history>")
    size = None
    try:
        pos = source.tell()
        size = source.seek(0, io.SEEK_END) - pos
        source.seek(pos)
    except (AttributeError, OSError, ValueError):
        pass
    return source, os.path.basename(str(name)), size, False


def _sniff_format(name: str, head: bytes) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return "jsonl" if first in (b"{", b'"', b"[") else "lines"


def _texts_of(obj: Any) -> list[str] | None:
    """The user messages in one JSONL record, or None when it has none we can find.

    A whole conversation (``messages``, ``conversations`` or a bare list of messages) is read by
    :func:`layerzero_viz.formats.messages_from_json`, so its shapes are the ones every command reads;
    InputError when it is malformed.
    """
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, list):  # a bare list of chat messages
        return _user_texts(obj, "openai")
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("messages"), list):
        return _user_texts(obj, "auto")  # Anthropic or OpenAI, told apart as formats does
    if isinstance(obj.get("conversations"), list):
        return _user_texts(obj, "sharegpt")
    role = obj.get("role") or obj.get("from")
    if role is not None and str(role).lower() not in ("user", "human"):
        return []  # another role's message: not user traffic, not an error
    for key in TEXT_FIELDS:
        value = obj.get(key)
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            parts = [b.get("text") for b in value if isinstance(b, dict) and isinstance(b.get("text"), str)]
            if parts:
                return ["\n".join(parts)]
    return None


def _user_texts(doc: Any, fmt: str) -> list[str]:
    """The user turns of a conversation, each its own text blocks joined by newlines (tool results left out)."""
    out = []
    for m in messages_from_json(doc, fmt, name=""):
        if m.role != "user":
            continue
        parts = [b.text for b in m.blocks if b.kind == "text" and b.type == "text"]
        if parts:
            out.append("\n".join(parts))
    return out


class _Reader:
    """Records of a history as ``(line, [texts])``; malformed lines raise or are counted."""

    def __init__(self, source: Any, *, format: str, column: str | int | None, skip_bad_lines: bool,
                 name: str | None) -> None:
        if format not in HISTORY_FORMATS:
            raise InputError(f"unknown history format {format!r}", location="format",
                             hint=f"use one of: {', '.join(HISTORY_FORMATS)}")
        self.source = source
        self.stream, self.name, self.size, self._own = _open(source)
        self.name = name or self.name
        self.format = format
        self.column = column
        self.skip_bad_lines = skip_bad_lines
        self.skipped: list[int] = []
        self.skipped_count = 0
        self.lines = 0
        self.bytes_read = 0

    def close(self) -> None:
        if self._own:
            self.stream.close()

    def _bad(self, line: int, message: str) -> None:
        if not self.skip_bad_lines:
            raise InputError(message, location=f"{self.name}:{line}", hint=_HINT_SKIP)
        self.skipped_count += 1
        if len(self.skipped) < 1000:
            self.skipped.append(line)

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        fmt = self.format if self.format != "auto" else _sniff_format(self.name, self._head())
        if fmt == "csv":
            yield from self._csv()
        else:
            yield from self._lines(fmt)

    def _head(self) -> bytes:
        """The first bytes of the stream, left unread (for format sniffing)."""
        if hasattr(self.stream, "peek"):
            return self.stream.peek(4096)[:4096]
        try:
            pos = self.stream.tell()
            head = self.stream.read(4096)
            self.stream.seek(pos)
            return head
        except (OSError, ValueError, AttributeError):
            return b""

    def _lines(self, fmt: str) -> Iterator[tuple[int, list[str]]]:
        for number, raw in enumerate(self.stream, 1):
            self.lines = number
            self.bytes_read += len(raw)
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                self._bad(number, f"not valid UTF-8 at byte {exc.start}")
                continue
            if not line.strip():
                continue
            if fmt == "lines":
                yield number, [line]
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                self._bad(number, f"not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            except RecursionError:
                self._bad(number, "JSON nested too deeply")
                continue
            try:
                texts = _texts_of(obj)
            except InputError as exc:
                where = exc.location.removeprefix(": ")
                self._bad(number, f"not a readable conversation ({where}: {exc.message})")
                continue
            if texts is None:
                self._bad(number, f"no user message found (expected a string, an object with one of "
                                  f"{', '.join(TEXT_FIELDS[:5])}…, or a conversation with \"messages\")")
                continue
            yield number, texts

    def _csv(self) -> Iterator[tuple[int, list[str]]]:
        # a decoding error cannot be skipped row by row here: with skip_bad_lines bad bytes become U+FFFD
        text = io.TextIOWrapper(self.stream, encoding="utf-8-sig", newline="",
                                errors="replace" if self.skip_bad_lines else "strict")
        delimiter = "\t" if self.name.lower().endswith(".tsv") else ","
        reader = csv.reader(text, delimiter=delimiter, strict=True)
        try:
            try:
                header = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InputError(f"not valid CSV ({exc})", location=f"{self.name}:{reader.line_num}") from None
            index = self._csv_column(header)
            last = reader.line_num
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except (csv.Error, UnicodeDecodeError) as exc:
                    self._bad(reader.line_num or last + 1, f"not valid CSV ({exc})")
                    last = reader.line_num
                    continue
                self.lines = reader.line_num
                self.bytes_read = text.buffer.tell() if text.buffer.seekable() else self.bytes_read
                last = reader.line_num
                if not row or not any(cell.strip() for cell in row):
                    continue
                if index >= len(row):
                    self._bad(reader.line_num, f"the row has {len(row)} fields, the text column is field {index + 1}")
                    continue
                yield reader.line_num, [row[index]]
        finally:
            text.detach()

    def _csv_column(self, header: list[str]) -> int:
        names = [h.strip().lower() for h in header]
        if isinstance(self.column, int) or (isinstance(self.column, str) and self.column.isdigit()):
            index = int(self.column)
            if not 0 <= index < len(header):
                raise InputError(f"column {index} does not exist (the header has {len(header)})",
                                 location=f"{self.name}:1")
            return index
        if self.column is not None:
            if self.column.strip().lower() in names:
                return names.index(self.column.strip().lower())
            raise InputError(f"no column named {self.column!r}; the header is {header!r}", location=f"{self.name}:1")
        for wanted in TEXT_FIELDS:
            if wanted in names:
                return names.index(wanted)
        raise InputError(f"cannot tell which column holds the messages; the header is {header!r}",
                         location=f"{self.name}:1", hint="name it with --column NAME (or column=)")


def iter_history(source: Any, *, format: str = "auto", column: str | int | None = None,
                 skip_bad_lines: bool = False, name: str | None = None) -> Iterator[tuple[int, str]]:
    """``(line, user message)`` for every user message of a history file, streamed.

    JSONL lines may be a string, an object with a text field (``text``, ``content``, ``message`` …; other
    roles are skipped) or a whole conversation (its user turns).  CSV needs a header naming the column.

    >>> list(iter_history(io.BytesIO(b'"a"\\n{"text": "b"}\\n{"role": "assistant", "content": "c"}')))
    [(1, 'a'), (2, 'b')]
    """
    reader = _Reader(source, format=format, column=column, skip_bad_lines=skip_bad_lines, name=name)
    try:
        for line, texts in reader:
            for text in texts:
                yield line, text
    finally:
        reader.close()


# ---------------------------------------------------------------------------------------------- words


_CLAUSE_SPLIT = re.compile(r"[，,。.!！?？;；:：、…\n\r\t()（）\[\]【】{}<>《》\"“”'‘’「」『』|/\\~～—-]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_EN_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|\S")

# A run: words of one script with nothing between them but spaces, and whether it starts/ends its clause.
Run = tuple[tuple[str, ...], bool, bool]


def _close(runs: list[Run], cur: list[str], at_start: bool) -> None:
    if cur:
        runs.append((tuple(cur), at_start, False))


def _runs(words: Iterable[tuple[str, str]]) -> list[Run]:
    """Same-script runs from ``(word, kind)`` pairs (kind "zh", "en" or "" for anything that breaks a run)."""
    runs: list[Run] = []
    cur: list[str] = []
    script, at_start, first = "", True, True
    for w, kind in words:
        if kind == "space":
            continue
        if kind != script or not kind:
            _close(runs, cur, at_start)
            cur, at_start = [], first and bool(kind)
        script = kind
        if kind:
            cur.append(w)
        first = False
    if cur:
        runs.append((tuple(cur), at_start, True))
    return runs


def _ascii_words(clause: str) -> Iterator[tuple[str, str]]:
    for w in _EN_WORD.findall(clause):
        yield (w.lower().replace("’", "'"), "en") if w[0].isalpha() else (w, "")


def _mixed_words(clause: str) -> Iterator[tuple[str, str]]:
    for w in load_jieba().cut(clause, HMM=False):
        if _CJK.search(w):
            yield w, "zh" if all(_CJK.match(ch) for ch in w) else ""
        elif w.isascii() and w.replace("'", "").isalpha():
            yield w.lower(), "en"
        elif w.isspace():
            yield w, "space"
        else:
            yield w, ""


class _ClauseCache:
    """Segmentations of recent clauses: greetings and closings recur, so jieba runs once for each."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self.data: dict[str, list[Run]] = {}

    def runs(self, clause: str) -> list[Run]:
        got = self.data.get(clause)
        if got is None:
            got = _runs(_ascii_words(clause) if clause.isascii() else _mixed_words(clause))
            if len(self.data) >= self.size:
                self.data.clear()  # bounded: start over rather than grow
            self.data[clause] = got
        return got


def _grams(text: str, cache: _ClauseCache) -> tuple[list[str], list[str]]:
    """Every word n-gram of one message, and those standing at the start or end of their clause."""
    grams: list[str] = []
    edges: list[str] = []
    for clause in _CLAUSE_SPLIT.split(text):
        if not clause or clause.isspace():
            continue
        for run, at_start, at_end in cache.runs(clause):
            n = len(run)
            sep = " " if run[0].isascii() else ""
            limit = min(MAX_WORDS["en" if sep else "zh"], n)
            grams += [sep.join(run[i:i + k]) for k in range(1, limit + 1) for i in range(n - k + 1)]
            if at_start:
                edges += [sep.join(run[:k]) for k in range(1, limit + 1)]
            if at_end:
                edges += [sep.join(run[n - k:]) for k in range(1, limit + 1) if not (at_start and k == n)]
    return grams, edges


# ---------------------------------------------------------------------------------------------- counting


class _PhraseTable:
    """Documents, uses and clause-edge uses per phrase, in at most ``2 × capacity`` phrases.

    Counting goes through ``Counter.update``, which runs in C: a message's n-grams cost a few
    microseconds, not a Python loop over each.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.documents: Counter[str] = Counter()
        self.uses: Counter[str] = Counter()
        self.edges: Counter[str] = Counter()
        self.error_bound = 0

    def add(self, grams: list[str], edges: list[str]) -> None:
        self.uses.update(grams)
        self.edges.update(edges)
        self.documents.update(set(grams))
        if len(self.documents) > 2 * self.capacity:
            self._prune()

    def _prune(self) -> None:
        """Keep the ``capacity`` most frequent; everything at or below the cut goes and raises the error bound."""
        counts = np.fromiter(self.documents.values(), dtype=np.int64, count=len(self.documents))
        k = len(counts) - self.capacity - 1
        cut = int(np.partition(counts, k)[k])
        self.documents = Counter({p: n for p, n in self.documents.items() if n > cut})
        self.uses = Counter({p: self.uses[p] for p in self.documents})
        self.edges = Counter({p: self.edges[p] for p in self.documents if p in self.edges})
        self.error_bound = max(self.error_bound, cut)


@lru_cache(maxsize=1)
def _low_information() -> frozenset[str]:
    return frozenset(w.lower() for name in ("low_information.zh", "low_information.en") for w in entries(name))


def _acceptable(phrase: str) -> tuple[bool, bool]:
    """(may be declared redundant, is a known filler/hedge) for one phrase.

    Never suggested: single characters and function words (a declared phrase is matched as a substring),
    Chinese phrases that begin or end with a particle (的保修期, 退货吗), and anything holding a negation
    or a connective (they carry the logic).
    """
    low = _low_information()
    if phrase.isascii():
        if " " not in phrase and (len(phrase) < 3 or phrase in low):
            return False, False
    elif len(phrase) < 2 or phrase in low or phrase[0] in low or phrase[-1] in low:
        return False, False
    hits = scan(phrase)
    if any(hits[k] for k in ("negations.zh", "negations.en", "connectives.zh", "connectives.en", "number_words")):
        return False, False
    known = any(s == 0 and e == len(phrase) for k in ("filler.zh", "filler.en", "hedges.zh", "hedges.en")
                for s, e in hits[k])
    # a phrase that opens with a known filler ("非常感谢您的耐心解答") is a thanks/politeness frame as a whole
    opens_with_filler = any(s == 0 for k in ("filler.zh", "filler.en", "hedges.zh", "hedges.en") for s, _ in hits[k])
    if not known and not opens_with_filler and _content_words(phrase):
        return False, False
    return True, known


_CONTENT_TAGS = ("n", "s", "f", "vn", "eng", "t")  # nouns (n, nr, ns, nt, nz …), places, directions, times


@lru_cache(maxsize=1)
def _word_tags() -> dict[str, str]:
    import jieba.posseg

    return jieba.posseg.dt.word_tag_tab


def _content_words(phrase: str) -> bool:
    """True when the phrase names things rather than framing a request: 酒店, 推荐一家餐馆, "hotel".

    Frequent content words are the *topic* of a history, not redundancy: declaring them would prune facts.
    English has no tagger here, so a single English word is only suggested when a lexicon lists it; a single
    Chinese word or anything asking a question (是多少, 在哪, "what") neither.
    """
    if phrase.isascii():
        words = phrase.lower().split()
        # without a tagger, an English phrase qualifies only when every word frames a request
        return len(words) < 2 or not all(w in _frame_words_en() for w in words)
    tags = _word_tags()
    words = [w for w in load_jieba().cut(phrase, HMM=False) if w.strip()]
    # a lone word (推荐), a question word (是多少, 在哪), a noun, or a verb that is the request (推荐) itself
    return (len(words) < 2 or any(q in phrase for q in _QUESTION_WORDS_ZH)
            or any(tags.get(w, "").startswith(_CONTENT_TAGS) for w in words)
            or any(tags.get(w, "").startswith("v") and w not in _FRAME_VERBS_ZH for w in words))


_FRAME_VERBS_ZH = frozenset({"帮", "帮忙", "想", "请", "告诉", "麻烦", "看", "看看", "问", "问问", "咨询", "知道",
                             "希望", "打扰", "劳驾", "辛苦", "感谢", "谢谢", "请问", "是", "有", "要", "能", "可以"})
_FRAME_WORDS_EN = {
    "i", "you", "me", "my", "your", "we", "us", "it", "want", "would", "like", "could", "can", "will", "please",
    "to", "help", "is", "are", "be", "the", "a", "an", "task", "first", "request", "tell", "let", "know", "as",
    "act", "just", "so", "much", "thanks", "thank", "kindly", "wondering", "if", "was", "am", "hope", "this",
    "that", "for", "of", "in", "with", "do", "me", "here", "there", "hi", "hello", "hey", "dear", "again",
}


@lru_cache(maxsize=1)
def _frame_words_en() -> frozenset[str]:
    from ..lexicon import entries

    words = set(_FRAME_WORDS_EN)
    for name in ("filler.en", "hedges.en", "low_information.en"):
        for item in entries(name):
            words.update(item.lower().split())
    return frozenset(words)


_QUESTION_WORDS_ZH = ("什么", "哪", "多少", "几", "怎么", "怎样", "为什么", "如何", "谁", "是否", "吗", "呢")
_QUESTION_WORDS_EN = frozenset({"what", "which", "where", "when", "who", "whom", "whose", "why", "how"})


def _tokens_of(phrase: str) -> int:
    # mid-sentence form: English words follow a space, which cl100k folds into the word's token
    return len(encoding().encode_ordinary(" " + phrase if phrase.isascii() else phrase))


def _units(phrase: str) -> list[str]:
    return phrase.split() if phrase.isascii() else list(phrase)


def _overlap(a: str, b: str) -> bool:
    """True when one phrase contains the other or they overlap end to start ("麻烦您帮我" / "我查一下")."""
    ua, ub = _units(a), _units(b)
    if a.isascii() != b.isascii():
        return False
    la, lb = len(ua), len(ub)
    if any(ua[i:i + lb] == ub for i in range(la - lb + 1)) or any(ub[i:i + la] == ua for i in range(lb - la + 1)):
        return True
    return any(ua[-j:] == ub[:j] or ub[-j:] == ua[:j] for j in range(1, min(la, lb)))


def _shadowed(phrase: str, documents: int, kept: list[Phrase]) -> bool:
    """True when a better-ranked phrase overlaps ``phrase`` and occurs in most of its messages.

    Every n-gram of a fixed clause has the same frequency; only the best-ranked one is worth declaring.
    """
    return any(k.documents >= 0.8 * documents and _overlap(phrase, k.phrase) for k in kept)


def _rank(table: _PhraseTable, messages: int, top: int, min_documents: int) -> list[Phrase]:
    """The best ``top`` phrases: estimated saving (uses × tokens × framing prior), known fillers first."""
    scored = []
    for phrase, documents in table.documents.items():
        if documents < min_documents:
            continue
        uses = table.uses[phrase]
        tokens = _tokens_of(phrase)
        edge_share = min(1.0, table.edges.get(phrase, 0) / uses)
        # a rough prior that the engine really removes a declared use: clause-framing phrases nearly always go
        weight = 0.3 + 0.7 * edge_share
        scored.append((uses * tokens * weight, phrase, documents, uses, tokens, edge_share))
    scored.sort(key=lambda r: (-r[0], r[1]))
    kept: list[Phrase] = []
    for score, phrase, documents, uses, tokens, edge_share in scored:
        if len(kept) >= top:
            break
        ok, known = _acceptable(phrase)
        if not ok or _shadowed(phrase, documents, kept):
            continue
        kept.append(Phrase(
            phrase=phrase, documents=documents, occurrences=uses, tokens=tokens, tokens_total=uses * tokens,
            saving=int(round(uses * tokens * (1.0 if known else 0.3 + 0.7 * edge_share))),
            idf=round(math.log(messages / documents), 4), edge_share=round(edge_share, 4),
            score=round(score * (1.5 if known else 1.0), 2), lexicon=known,
        ))
    return sorted(kept, key=lambda p: (-p.score, p.phrase))


def _progress(total: int | None, enabled: bool | None, name: str):
    enabled = sys.stderr.isatty() if enabled is None else enabled
    if not enabled:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=f"mining {name}",
                file=sys.stderr, leave=False, mininterval=0.5)


def mine(source: Any, *, top: int = DEFAULT_TOP, format: str = "auto", column: str | int | None = None,
         skip_bad_lines: bool = False, capacity: int = DEFAULT_CAPACITY, min_documents: int | None = None,
         progress: bool | None = None, name: str | None = None) -> MiningResult:
    """Rank the redundant phrases of a history (a path, bytes or a binary stream) and return the top ``top``.

    A malformed line raises :class:`~layerzero_viz.errors.InputError` at ``file:line`` unless
    ``skip_bad_lines`` (then they are counted in ``skipped``).  ``progress`` (default: stderr is a
    terminal) draws a tqdm bar on stderr.  ``min_documents`` defaults to 3 or 0.1% of the messages.
    """
    if top < 1:
        raise InputError(f"top must be at least 1, got {top}", location="top")
    reader = _Reader(source, format=format, column=column, skip_bad_lines=skip_bad_lines, name=name)
    table = _PhraseTable(max(capacity, top * 4))
    cache = _ClauseCache()
    encode = encoding().encode_ordinary
    bar = _progress(reader.size, progress, reader.name)
    messages = history_tokens = 0
    try:
        done = 0
        for _, texts in reader:
            for text in texts:
                messages += 1
                history_tokens += len(encode(text))
                table.add(*_grams(text, cache))
            if bar is not None and reader.bytes_read - done >= 1 << 20:
                bar.update(reader.bytes_read - done)
                done = reader.bytes_read
    finally:
        if bar is not None:
            bar.close()
        reader.close()
    if min_documents is None:
        min_documents = max(3, messages // 1000)
    ranked = _rank(table, max(messages, 1), top, min_documents)
    examples = _examples(source, [p.phrase for p in ranked], format=format, column=column, name=name)
    phrases = tuple(replace(p, examples=examples.get(p.phrase, ())) for p in ranked)
    return MiningResult(source=reader.name, lines=reader.lines, messages=messages, tokens=history_tokens,
                        skipped=reader.skipped_count, phrases=phrases, error_bound=table.error_bound,
                        capacity=table.capacity, skipped_lines=tuple(reader.skipped))


def _examples(source: Any, phrases: list[str], *, format: str, column: Any, name: str | None,
              scan_limit: int = 200_000) -> dict[str, tuple[str, ...]]:
    """Up to three messages containing each phrase, read again from the start (a stream that cannot rewind: none).

    Stops once every phrase has its examples or after ``scan_limit`` messages.
    """
    if not phrases:
        return {}
    if not isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        try:
            source.seek(0)
        except (AttributeError, OSError, ValueError):
            return {}
    matchers = {p: _phrase_matcher(p) for p in phrases}
    out: dict[str, list[str]] = {p: [] for p in phrases}
    missing = set(phrases)
    for k, (_, text) in enumerate(iter_history(source, format=format, column=column, skip_bad_lines=True,
                                               name=name)):
        if k >= scan_limit or not missing:
            break
        for p in list(missing):
            if matchers[p](text):
                out[p].append(text if len(text) <= 200 else text[:199] + "…")
                if len(out[p]) >= EXAMPLES:
                    missing.discard(p)
    return {p: tuple(v) for p, v in out.items() if v}


def _phrase_matcher(phrase: str):
    if not phrase.isascii():
        return lambda text: phrase in text
    rx = re.compile(r"(?<![A-Za-z])" + r"\s+".join(re.escape(w) for w in phrase.split()).replace("'", "['’]")
                    + r"(?![A-Za-z])", re.IGNORECASE)
    return lambda text: rx.search(text) is not None
