"""The text view every rule and protection reads: all text blocks joined into one string.

Global character offsets make cross-message rules (repeats, role restatements) simple.  Blocks are
joined with ``SEPARATOR`` — a newline, a NUL and a newline — which no lexicon or pattern crosses and no
token covers.
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple, Sequence

from . import native as _native
from .model import Conversation, MessageKey

__all__ = ["SEPARATOR", "BlockRef", "Interval", "Candidate", "Hits", "TextView", "sentences", "clauses", "normalize", "units", "fold",
           "slot_line", "EMOJI_CHARS"]

SEPARATOR = "\n\x00\n"

# sentence ends: CJK/ASCII terminators (full- and half-width), a period before space/end, line breaks
# (a period may close a quotation first: 'reply with "Anytime." Always …' ends a sentence after the quote)
_SENTENCE_END = re.compile(r"[。！？!?；;…]+[”’」』）)\"']?|\.[”’\"')]?(?=\s|$)|\n+")
# a wave dash ends a clause too ("你好～帮我…", "谢啦~"), but not a range ("1～3", "A〜Z") nor a path or an
# approximation ("~/bin", "~5"): a run of ～/〜 not between ASCII letters or digits, a run of "~" after a Han character,
# or after a latin letter and before a space ("Hi~ What's …")
_CLAUSE_END = re.compile(r"[，,、：:]|[。！？!?；;…]+|\.(?=\s|$)|\n+"
                         r"|(?<![0-9A-Za-z～〜])[～〜]+|[～〜]+(?![0-9A-Za-z～〜])|(?<=[\u3400-\u9fff])~+(?![0-9A-Za-z/~])"
                         r"|(?<=[A-Za-z])~+(?=[ \t])")
_UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[a-z0-9]+(?:['’][a-z]+)?")


class BlockRef(NamedTuple):
    """Where a text block sits: its message (position and key), role, block index and global char range.

    A named tuple: a conversation of many turns builds one per text block on every annotation.
    """

    msg_pos: int
    message: MessageKey
    role: str
    block: int
    start: int
    end: int


class Interval(NamedTuple):
    """A protected character range with its reason code and human detail.

    A named tuple, not a frozen dataclass: a long prompt has tens of thousands and tuples build ~4× faster.
    """

    start: int
    end: int
    reason: str
    detail: str


@dataclass(slots=True)
class Candidate:
    """A prune candidate: a char range, its reason, score, detail and what protections it may override.

    ``anchor`` is text that must contain every protected value the candidate would remove (a repeated
    constraint may go whole when its kept first copy carries the same numbers); ``residual`` is the share of
    its information that pruning loses (0 for an exact repeat), used by the effectiveness estimate.
    """

    start: int
    end: int
    reason: str
    score: float
    detail: str
    residual: float
    may_override: frozenset[str] = frozenset()
    anchor: str | None = None
    lock: tuple[int, int] | None = None  # a range that must not be pruned if this goes (the kept first copy)


def _NO_DETAIL(k: int) -> str:  # noqa: N802 - the detail function of hits that have none
    raise IndexError(k)


class Hits(NamedTuple):
    """What one rule found, as columns: hit ``k`` is [``starts[k]``, ``ends[k]``) with its score, residual,
    anchor and lock; ``detail(k)`` builds its detail when asked (most are never shown).  Every rule's ``find``
    returns one (``rules.RULES``).  Hits are resolved by (start, −end) within their class.

    ``residual`` and ``may_override`` are one value for every hit or one per hit (:meth:`of` keeps them per hit
    when candidates differ); ``anchors``/``locks`` are None when no hit has one.
    """

    reason: str
    starts: list[int]
    ends: list[int]
    scores: list[float]
    residual: float | list[float]        # one value for all hits, or one per hit
    may_override: frozenset[str] | list[frozenset[str]]  # one set for all hits, or one per hit
    detail: Callable[[int], str]
    anchors: Sequence[str | None] | None = None     # per hit (see Candidate.anchor)
    locks: Sequence[tuple[int, int] | None] | None = None  # per hit (see Candidate.lock)
    sentence_level: bool = False         # a lock taken by an earlier candidate stops these

    @classmethod
    def of(cls, reason: str, found: Sequence[Candidate], sentence_level: bool = False) -> "Hits":
        """The hits of ``found`` (candidates of one rule, all with this ``reason``), in their order."""
        if not found:  # most conversations: one tuple, no columns to build
            return cls(reason, [], [], [], 0.0, frozenset(), _NO_DETAIL, None, None, sentence_level)
        overrides = [c.may_override for c in found]
        anchors = [c.anchor for c in found]
        locks = [c.lock for c in found]
        details = [c.detail for c in found]
        return cls(reason, [c.start for c in found], [c.end for c in found], [c.score for c in found],
                   [c.residual for c in found],
                   overrides[0] if len(set(overrides)) == 1 else overrides if overrides else frozenset(),
                   details.__getitem__, anchors if any(a is not None for a in anchors) else None,
                   locks if any(lk is not None for lk in locks) else None, sentence_level)

    @property
    def columnar(self) -> bool:
        """Whether every hit shares one override set and, where anchors or locks are given, each hit has one —
        what the resolver's column path takes; other hits are resolved one candidate at a time."""
        return isinstance(self.may_override, frozenset) and (self.anchors is None or None not in self.anchors) \
            and (self.locks is None or None not in self.locks)

    def residuals_of(self, hits: list[int]) -> list[float]:
        """The residual of each of ``hits``."""
        if isinstance(self.residual, float):
            return [self.residual] * len(hits)
        return [self.residual[k] for k in hits]

    def override_of(self, k: int) -> frozenset[str]:
        return self.may_override if isinstance(self.may_override, frozenset) else self.may_override[k]

    def candidate(self, k: int, with_detail: bool = True) -> Candidate:
        return Candidate(self.starts[k], self.ends[k], self.reason, self.scores[k],
                         self.detail(k) if with_detail else "",
                         self.residuals_of([k])[0], self.override_of(k),
                         anchor=self.anchors[k] if self.anchors is not None else None,
                         lock=self.locks[k] if self.locks is not None else None)

    def candidates(self) -> list[Candidate]:
        """Every hit as a :class:`Candidate`, in the rule's own order."""
        return [self.candidate(k) for k in range(len(self.starts))]


@dataclass
class TextView:
    """All text blocks of a conversation as one string plus the block map."""

    text: str
    blocks: Sequence[BlockRef]
    block_starts: Sequence[int] = ()
    _hits: dict[str, list[tuple[int, int]]] | None = field(default=None, repr=False)
    _flat_hits: dict[str, Sequence[int]] | None = field(default=None, repr=False)
    _sentences: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)  # block start → flat sentences
    _packed: tuple[dict[str, int], tuple[int, ...], tuple[int, ...]] | None = field(default=None, repr=False)  # (slot of each name, all hits flat, offsets)

    @property
    def bounds(self) -> list[tuple[int, int]]:
        """(start, end) of each block (built when asked: a kept view holds no more objects than it needs)."""
        return [(b.start, b.end) for b in self.blocks]

    def units(self, start: int, end: int) -> list[str]:
        """``units(text[start:end])``."""
        return units(self.text[start:end])

    @property
    def lexicon_flat(self) -> dict[str, Sequence[int]]:
        """Lexicon hits over the whole text, one flat [start, end, …] list per lexicon (one scan, shared)."""
        if self._flat_hits is None:
            if self._packed is not None:
                self._flat_hits = {name: self.lexicon_of(name) for name in self._packed[0]}
            else:
                from .lexicon import scan_flat
                self._flat_hits = scan_flat(self.text)
        return self._flat_hits

    def lexicon_of(self, name: str) -> Sequence[int]:
        """One lexicon's hits, flat [start, end, …] (from the packed scan when there is one)."""
        if self._flat_hits is None and self._packed is not None:
            slot_of, flat, offsets = self._packed
            k = slot_of[name]
            return flat[offsets[k]:offsets[k + 1]]
        return self.lexicon_flat[name]

    def set_lexicon_packed(self, slot_of: dict[str, int], flat: tuple[int, ...], offsets: tuple[int, ...]) -> None:
        """Take lexicon hits already scanned (``_native.ScanJob``): all slots' flat hits back to back, slot
        ``k``'s at ``flat[offsets[k]:offsets[k + 1]]``.  Kept packed (two tuples, not one per lexicon: a kept
        annotation's view then costs the garbage collector less); :meth:`lexicon_of` slices."""
        self._packed = (slot_of, flat, offsets)
        self._flat_hits = None
        self._hits = None

    def set_sentences(self, per_block: Sequence[tuple[int, ...]]) -> None:
        """Take each block's sentences as already segmented (the scan job's, flat start, end, …), so that
        :func:`sentences` does not segment them again."""
        for block, flat in zip(self.blocks, per_block):
            self._sentences[block.start] = flat

    @property
    def lexicon_hits(self) -> dict[str, list[tuple[int, int]]]:
        """:attr:`lexicon_flat` as (start, end) pairs."""
        if self._hits is None:
            from .lexicon import as_pairs
            self._hits = as_pairs(self.lexicon_flat)
        return self._hits

    def lexicon_columns(self, names: Sequence[str]) -> tuple[list[int], list[int], list[int]]:
        """The hits of the lexicons ``names`` as columns: starts, ends, and each hit's source (its index in
        ``names``), lexicon by lexicon in that order."""
        starts: list[int] = []
        ends: list[int] = []
        sources: list[int] = []
        for k, name in enumerate(names):
            flat = self.lexicon_of(name)
            starts.extend(flat[0::2])
            ends.extend(flat[1::2])
            sources.extend([k] * (len(flat) // 2))
        return starts, ends, sources

    @classmethod
    def of(cls, conv: Conversation) -> "TextView":
        parts: list[str] = []
        refs: list[BlockRef] = []
        pos = 0
        for msg_pos, msg in enumerate(conv.messages):
            for block in msg.blocks:
                if block.kind != "text":
                    continue
                if parts:
                    parts.append(SEPARATOR)
                    pos += len(SEPARATOR)
                refs.append(BlockRef(msg_pos, msg.key, msg.role, block.index, pos, pos + len(block.text)))
                parts.append(block.text)
                pos += len(block.text)
        # tuples: a kept annotation's view costs the cyclic garbage collector nothing (see Protection.freeze)
        return cls("".join(parts), tuple(refs), tuple(b.start for b in refs))

    def block_index_at(self, pos: int) -> int:
        """Index in ``blocks`` of the block containing global char ``pos``."""
        return max(0, bisect.bisect_right(self.block_starts, pos) - 1)

    def block_at(self, pos: int) -> BlockRef:
        """The block containing global char ``pos``."""
        return self.blocks[self.block_index_at(pos)]

    def where(self, pos: int) -> str:
        """A reader's location for global char ``pos``: ``message 2 (user), chars 10``."""
        b = self.block_at(pos)
        blk = f" block {b.block}" if b.block else ""
        return f"message {b.message} ({b.role}){blk}, char {pos - b.start}"

    def blocks_of_roles(self, roles: tuple[str, ...]) -> list[BlockRef]:
        return [b for b in self.blocks if b.role in roles]

    def standing_blocks(self) -> list[BlockRef]:
        """The blocks that set up the conversation: the system prompt's, or with none the first block (a prompt
        pasted as the first turn)."""
        return self.blocks_of_roles(("system", "developer")) or list(self.blocks[:1])


def _segments(text: str, start: int, end: int, boundary: re.Pattern[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = start
    for m in boundary.finditer(text, start, end):
        seg_end = m.end() if m.group(0)[0] != "\n" else m.start()
        if seg_end > pos:
            out.append((pos, seg_end))
        pos = m.end()
    if pos < end:
        out.append((pos, end))
    # trim leading whitespace so a sentence starts at its first visible char
    trimmed = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        if s < e:
            trimmed.append((s, e))
    return trimmed


def sentences(view: TextView, block: BlockRef) -> list[tuple[int, int]]:
    """Sentence ranges (global offsets) of a block, each including its terminator (computed once per block).

    The view keeps them as one flat tuple per block (start, end, start, end, …): a kept annotation then holds
    one object per block instead of one per sentence, which the cyclic garbage collector would count.
    """
    flat = view._sentences.get(block.start)
    if flat is None:
        k = _native.native
        flat = view._sentences[block.start] = flat_pairs(
            k.segments(view.text, block.start, block.end, False) if k is not None
            else _segments(view.text, block.start, block.end, _SENTENCE_END))
    return list(zip(flat[0::2], flat[1::2]))


def flat_pairs(pairs: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """[(start, end), …] as one flat tuple (start, end, start, end, …): how the view keeps sentences."""
    return tuple(x for pair in pairs for x in pair)


def clauses(view: TextView, start: int, end: int, first: bool = False) -> list[tuple[int, int]]:
    """Clause ranges inside [start, end): split at ，,、：: as well as sentence ends; each keeps its punctuation.
    With ``first``, only the first clause (the kernel stops scanning there)."""
    k = _native.native
    if k is not None:
        segmented: list[tuple[int, int]] = k.segments(view.text, start, end, True, first)
        return segmented
    found = _segments(view.text, start, end, _CLAUSE_END)
    return found[:1] if first else found


def normalize(text: str) -> str:
    """NFKC (full/half width), lower case: the form repeats are compared in."""
    return unicodedata.normalize("NFKC", text).lower()


class _Fold(dict[int, str]):
    """Code point → its NFKC form in lower case, filled on first sight (a ``str.translate`` table)."""

    def __missing__(self, code: int) -> str:
        value = self[code] = unicodedata.normalize("NFKC", chr(code)).lower()
        return value


_FOLD = _Fold()


def fold(text: str) -> str:
    """``text`` with every character NFKC-normalised and lower-cased on its own (full width → ASCII).

    Per character, so the compiled kernels can fold the same way in one pass (``_native._fold_into``).

    >>> fold("ＡＢＣ１２３…ﬁ")
    'abc123...fi'
    """
    return text.translate(_FOLD)


def units(text: str) -> list[str]:
    """Comparison units of a text: single CJK characters and latin words/numbers, punctuation dropped.

    >>> units("回答请用中文, Please!")
    ['回', '答', '请', '用', '中', '文', 'please']
    """
    return _UNIT.findall(fold(text))


# the characters of an emoji (pictographs, symbols, the variation selector and the joiner of a sequence), as a regex class
EMOJI_CHARS = "[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\uFE0F\u200D]"

# a line that fills a labelled slot: "Front: Please sit down.", "背面：Please sit down.", "Greeting: Hello, thanks for …"
_SLOT_LINE = re.compile(r"[ \t]*(?:[-*•][ \t]*)?([^\s:：][^:：\n]{0,24})[:：][ \t]*(?=\S)")
# a label that names a text to be used as it is
_TEXT_LABEL = re.compile(r"(?i:(?:[\w'’-]+[ \t]+){0,3}(?:(?:greeting|sign-?off|signature|closing|opening|slogan|tagline|motto|"
                         r"catchphrase|goodbye|farewell|welcome|auto-?reply|out-of-office|headline|caption|front|back|quote|"
                         r"fallback|error|button|banner|tooltip|placeholder|notification|hold|voicemail|ivr|disclaimer|"
                         r"subject|footer|notice|sign|cta|title|toast|snackbar|alert|dialog|push|label|string|source|target|"
                         r"preheader|preview|alt)"
                         r"(?:[ \t]+(?:line|text|message|wording|copy|label|phrase|string|sentence))?"
                         # a source or target string by its language: "EN: Please verify your phone number."
                         r"|(?:en|zh|ja|ko|fr|de|es|it|pt|ru)(?:[-_][a-z]{2,4})?|english|chinese|japanese|korean|french|german|"
                         r"spanish|(?:option|version|choice|variant)[ \t]+\w{1,2}|[A-D]"
                         # (a bare "Message:", "Text:" or "Copy:" often heads an instruction: "Message: please be brief")
                         # (a text noun with a word before it: "SMS text", "Greeting text", "Push message", "Banner copy";
                         # a bare "Text:" or "Message:" often heads an instruction: "Message: please be brief")
                         r"|(?:[\w'’-]+[ \t]+){1,3}(?:wording|text|message|copy|phrase|line|string|title|subject|caption|"
                         r"description)|wording))"
                         r"|(?:\w{0,4})(?:座右铭|口号|标语|签名|个性签名|开场白|结束语|欢迎语|问候语|结语|落款|正面|背面|广告语|宣传语|"
                         r"横幅|横额|话术|提示语|原话|照用|照抄|原样使用|免责声明|标题|按钮|原文|译文|英文|中文|日文|主题|短信|招牌|文案|翻译)"
                         # (提示 and 文字 alone head instructions: "提示：请用中文回答")
                         r"|\w{1,4}(?:提示|文字|通知)")
# a note after a label that the value is to be used as it is: "Opening line (exact):", "(don't change it):", "（原样）："
_AS_IS_NOTE = re.compile(r"[ \t]*[(（][^()（）\n]{0,30}?(?:(?i:exact|verbatim|word\s+for\s+word|as\s+is|don'?t\s+change|do\s+not\s+"
                         r"change|unchanged)|原样|原文|不要改|别改|不改|不变)[^()（）\n]{0,10}[)）][ \t]*$")
# a label after a sentence on its line: "Write a card. Opening line (exact): Hi Grandma, …"
_LABEL_AFTER_SENTENCE = re.compile(r"(?:^[ \t]*(?:[-*•][ \t]*)?|[.!?。！？][ \t]+|[。！？])([^\s:：.!?。！？][^:：\n.!?。！？]{0,40})"
                                   r"[:：][ \t]*(?=\S)")


# a label that heads an instruction in a prompt written as labelled lines
_INSTRUCTION_LABEL = re.compile(r"(?i:(?:\w+[ \t]+)?(?:style|tone|role|rules?|constraints?|format|language|length|goal|task|"
                                r"instructions?|persona|audience|voice|output|requirements?))|语气|风格|角色|规则|要求|格式|语言|"
                                r"目标|任务|输出|长度|字数|受众")


def _as_is_label(label: str) -> bool:
    """Whether a label names a text to be used as it is ("Slogan", "Fallback message", "Opening line (exact)", "The
    bot's greeting (don't change it)", "座右铭")."""
    label = label.strip(" *_")
    note = _AS_IS_NOTE.search(label)
    if note is not None:
        return True
    return _TEXT_LABEL.fullmatch(label) is not None and _ASKS_IN_LABEL.search(label) is None


# a label that asks for the work ("翻译成英文：", "Translate into English:"): what follows says how, or is the text
_ASKS_IN_LABEL = re.compile(r"(?:翻译|翻)成|译成|译为|翻译为|(?:请|帮我|麻烦)(?:你|您)?(?:帮我)?(?:翻译|翻|译|改写|润色)|(?i:\btranslate\b)")


# a numbered item's marker before a label ("3. **User Action Advice:**"): no sentence end
_LIST_NUMBER = re.compile(r"^[ \t]*(?:\d{1,3}|[A-Za-z])[.)][ \t]+")
# a sentence that asks the assistant for something: it ends the value before it on its line ("Sign text: No parking.
# Please also make a matching flyer, thanks.")
# (not a sentence of the text itself: "Fallback message: Sorry, something went wrong. Please try again later.")
_REQUEST_OPENER = re.compile(r"[ \t\"'“”]*(?:(?i:(?:please[ \t]+(?:also[ \t]+)?|also[ \t]+|now[ \t]+|then[ \t]+|and[ \t]+)?"
                             r"(?:make|write|create|design|draft|add|translate|put|turn|generate|give|suggest|include|rewrite|"
                             r"format|extract|classify|summari[sz]e|check|fix|proofread|explain|analy[sz]e|answer|reply|respond|"
                             r"label|tag|parse|review|edit|correct|improve|shorten|polish|convert)\b|can\s+you|could\s+you|"
                             r"would\s+you|also\b|now\b|then\b)|请帮|麻烦|帮我|幫我|另外|然后|跟住)")


# a value that asks the assistant for something is an instruction under the label, not wording: "Title: please make
# it catchy.", "EN: please answer in English.", "Subject: Could you please help me …?", "标题：请帮我想一个…"
# (and a lower-case "please" opening it: "Caption: please add emojis" — wording opens with a capital: "Sign text: Please
# keep off the grass")
_ASKS_AT_VALUE = re.compile(r"(?i:please[ \t]+(?:make|write|help|answer|reply|respond|suggest|create|generate|come[ \t]+up|"
                            r"give|translate|draft|design|keep[ \t]+it|use)\b|(?:can|could|would)[ \t]+you\b)|please\b|请帮|请你|"
                            r"帮我|麻烦(?:你|您)?帮|请(?:用|回答|回复)")


_OPTION_LABEL = re.compile(r"(?i:(?:option|version|choice|variant)[ \t]+\w{1,2}|[A-D])")


def _asks_at_value(text: str, label: str, value_start: int) -> bool:
    """Whether the value at ``value_start`` asks the assistant for something (an option to compare never does: "B:
    Could you please kindly send it?" is the option)."""
    return (_ASKS_AT_VALUE.match(text, value_start) is not None or _OWN_ASK_AT_VALUE.match(text, value_start) is not None) \
        and not _OPTION_LABEL.fullmatch(label.strip(" *_"))


# the user's own account and question after a label ("Error: I messed up the config, could you please check it?")
_OWN_ASK_AT_VALUE = re.compile(r"(?i:(?:I|I'm|I've|I'd|my|we|we're|our)\b[^\n?]{0,120}?\b(?:could|can|would|will)\s+you\b[^\n]{0,80}?\?)")


def _request_after_value(text: str, value_start: int, pos: int) -> bool:
    """Whether a sentence of the line after the value's first one, at or before ``pos``, opens with a request:
    ``pos`` is then past the value."""
    for end in _SENTENCE_END.finditer(text, value_start, pos + 1):
        if text[end.end() - 1] == "\n":
            return False  # (the line ended: ``pos`` is on the next one)
        if end.end() <= pos + 1 and _REQUEST_OPENER.match(text, end.end()) is not None:
            return True  # ("Tagline: Please, just relax. Could you design a logo around it? Thanks so much!")
    return False


def slot_line(text: str, pos: int, as_is_only: bool = False) -> bool:
    """Whether ``pos`` lies on a "Label: value" line whose value fills a slot word for word: a line among others
    like it (a flashcard's Front/Back, a form's fields), or one whose label names a text to be used as it is
    ("Slogan: Please recycle, thank you!", "座右铭：请多指教，谢谢大家。"); with ``as_is_only``, only the latter."""
    ls = text.rfind("\n", 0, pos) + 1
    m = _SLOT_LINE.match(text, ls)
    label = _LIST_NUMBER.sub("", m.group(1)).strip(" *_") if m is not None else ""
    if m is None or not _as_is_label(label) and _SENTENCE_END.search(label):
        # a label after a sentence on the line, or a long one, naming a text to use as it is
        line_end = text.find("\n", pos)
        line = text[ls:len(text) if line_end < 0 else line_end]
        mid = None
        for found in _LABEL_AFTER_SENTENCE.finditer(line):  # (on the line alone: ^ is its start)
            if ls + found.start(1) > pos:
                break
            mid = found
        return mid is not None and _as_is_label(mid.group(1)) and not _request_after_value(text, ls + mid.end(), pos) \
            and not _asks_at_value(text, mid.group(1), ls + mid.end())
    if _as_is_label(label):
        return not _request_after_value(text, m.end(), pos) and not _asks_at_value(text, label, m.end())
    if as_is_only or _INSTRUCTION_LABEL.fullmatch(label) or _asks_at_value(text, label, m.end()):
        return False  # "Style: Please be concise, thanks.", "语气：请礼貌、耐心一些，谢谢。": an instruction, not a slot
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    stop = _SENTENCE_END.search(text, m.end(), line_end)
    if stop is not None and text[stop.end():line_end].strip():
        return False  # a value of several sentences ("**Role:** Scout. Thank you so much for your help!") is a section
    prev_start = text.rfind("\n", 0, max(ls - 1, 0)) + 1
    next_start = text.find("\n", ls) + 1
    return (ls > 0 and prev_start < ls and _SLOT_LINE.match(text, prev_start) is not None) or \
        (next_start > 0 and _SLOT_LINE.match(text, next_start) is not None)


# a prompt that sets up a role-play or a practice of lines: the turns after it are said in character
# (a practice of lines — "I am a trainee waiter practicing my service lines" — makes the user's turns material:
# material._PRACTICE_LINES)
_ROLE_PLAY_SETUP = re.compile(r"(?i:\brole-?play|\bin\s+character\b|\bpretend\s+(?:to\s+be|you(?:'re|\s+are))|\byou\s+(?:will\s+)?"
                              r"play\s+(?:a|an|the|my)\b|\bNPC\b|\blet'?s\s+play\s+(?:a\s+)?(?:game|pretend|make-believe)\b)"
                              r"|\b[Yy]ou\s+(?:will\s+)?play\s+[A-Z][a-z]*\b|角色扮演"
                              # (not 扮演 an expert to consult: "请扮演品牌创意大师", "扮演我的私人数学老师")
                              r"|扮演(?![^，。,\n]{0,15}?(?:大师|专家|导师|老师|顾问|分析师|设计师|史学家|助手|助理|教练|写手|律师|会计师|医生|工程师|程序员))")


def role_play_start(view: TextView) -> int:
    """Where the turns said in character start: after the system prompt (or, without one, the first turn) that sets up
    a role-play ("You play a customer. …", "请扮演相亲对象林先生，我来练习怎么聊天。"); the text's length when none does."""
    setup = view.standing_blocks() or view.blocks[:1]
    if setup and any(_ROLE_PLAY_SETUP.search(view.text, b.start, b.end) for b in setup):
        return setup[-1].end
    return len(view.text)


# a turn said in character acts as well as speaks: "*I kneel on the wet deck.* Please, Captain, …", "（推开门）"
_ACTING = re.compile(r"(?<![*\w])\*[^*\n]{3,80}\*(?!\*)|（[^）\n]{2,30}）|\([A-Za-z][^)\n]{2,60}\)(?=\s*[A-Z\"“])")


def acted_turns_from(view: TextView) -> list[tuple[int, int]]:
    """The (start, end) of the turns of a role-play (see :func:`role_play_start`) that act in character: whatever
    politeness or article is in them is the character's (a user who asks a persona for help speaks as themself)."""
    start = role_play_start(view)
    text = view.text
    return [(b.start, b.end) for b in view.blocks
            if b.start >= start and b.role == "user" and _ACTING.search(text, b.start, b.end)]
