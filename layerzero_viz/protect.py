"""Protections: character ranges that are never pruned, each with a keep reason and a detail.

Order in ``PRECEDENCE`` decides which reason a token shows when several protections cover it.
Structural protections (XML, schema, context, material, code) and ``<protected_tokens>`` matches can never be
overridden, repeats included; the other value protections (numbers, identifiers, negations, connectives) only
by a repeat whose kept first copy carries the same values (see ``rules.repeated``).

``protected_material`` covers what the conversation hands over to be processed rather than to instruct —
quoted text, text after "Translate:", code, few-shot exemplars, exam items, tables, JSON, tool results, an
assistant prefill, and the content of the ``VERBATIM_ELEMENTS`` (see ``material``).  Its ranges are found
with the structure (:func:`xml_protections`), so they are known before any rule runs:
``Protection.material_ranges``.
"""
from __future__ import annotations

import bisect

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .material import Material, MaterialFinds, largest_first
from .script import as_written
from .structure import context_facts, elements, scan_tags
from .view import Interval, TextView, clauses

if TYPE_CHECKING:
    from .directives import CompiledPattern
    from .model import Conversation, MessageKey
    from .scans import Scans

__all__ = ["add_material", "material_finds", "PRECEDENCE", "STRUCTURAL", "VERBATIM_ELEMENTS", "Protection", "find_protections", "xml_protections"]

PRECEDENCE = (
    "protected_xml", "protected_schema", "protected_context", "protected_material", "protected_code",
    "protected_pattern", "protected_identifier", "protected_number", "protected_quote", "protected_user_fact",
    "protected_negation", "protected_connective",
)
STRUCTURAL = frozenset({"protected_xml", "protected_schema", "protected_context", "protected_material",
                        "protected_code"})

# elements whose content is material for the model to work on (an essay to grade, a document to summarise)
VERBATIM_ELEMENTS = frozenset({
    "essay", "document", "documents", "quote", "example", "examples", "input", "text", "article", "source",
    "transcript", "data", "json", "yaml", "sql", "code", "snippet", "email", "letter", "passage", "excerpt",
    "contract", "clause", "clauses", "agreement", "policy", "terms", "report", "notes", "minutes", "log", "logs",
    "review", "reviews", "message", "messages", "comment", "comments", "ticket", "poem", "story", "draft", "original",
    "conversation", "dialogue", "chat", "diff", "record", "records", "abstract", "paper", "content",
    # texts to be used as they are: a template, a script, a sample or a canned reply
    "template", "templates", "script", "sample", "samples", "reply", "replies", "response", "responses", "answer",
    "output", "translation", "greeting", "signature", "macro", "macros", "boilerplate", "wording", "faq",
    "回复", "回答", "模板", "话术", "原文", "示例", "范文", "邮件", "文章", "文本", "例子", "样例", "范例", "译文", "草稿",
})
# and any element named for one of them with a qualifier: <source_text>, <customer-email>, <retrieved_documents>
_VERBATIM_SUFFIX = re.compile(r"[_-](?:" + "|".join(sorted(VERBATIM_ELEMENTS - {"input", "original"})) + r")\Z")


# a Chinese name that ends with a text noun: <用户消息>, <客户留言>, <示例输出>, <评论>
_VERBATIM_ZH_SUFFIX = re.compile(r"(?:消息|输入|留言|评论|评价|范本|输出|文本|内容|原文|译文|回复|回答|邮件|模板|话术|示例|例子|样例|范例|范文|"
                                 r"对话|文章|草稿|记录|日志|笔记|合同|报告|反馈|投诉|短信|帖子|代码|正文|描述|文案|简介|摘要|段落|故事|诗|歌词|台词|剧本|稿)\Z")


def _verbatim_element(name: str) -> bool:
    name = name.lower()
    return name in VERBATIM_ELEMENTS or _VERBATIM_SUFFIX.search(name) is not None \
        or not name.isascii() and _VERBATIM_ZH_SUFFIX.search(name) is not None


_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)
_QUOTE = re.compile(r"“[^“”\n]{1,200}”|「[^「」\n]{1,200}」|『[^『』\n]{1,200}』|《[^《》\n]{1,100}》|\"[^\"\n]{1,200}\"")
# identifiers kept whole; each pattern has a cheap substring guard so texts without one skip the scan
_IDENTIFIERS = (
    ("://", re.compile(r"https?://[^\s<>\"'，。）)]+", re.ASCII)),                                   # URLs
    ("@", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.ASCII)),                                  # e-mail
    ("/", re.compile(r"(?<![\w/:])(?:~|\.{1,2})?/(?:[\w.\-]+/)*[\w.\-]+", re.ASCII)),               # POSIX paths
    (":\\", re.compile(r"[A-Za-z]:\\(?:[\w.\-]+\\?)+", re.ASCII)),                                 # Windows paths
    ("#", re.compile(r"#\d[\w-]*", re.ASCII)),                                                    # #12345
    ("", re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]?\d[\w-]*", re.ASCII)),          # SKU-12345, v2
    ("_", re.compile(r"\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b", re.ASCII)),                            # snake_case names
    ("{", re.compile(r"\{\{?\s*[\w.]+\s*\}?\}")),                                        # {placeholder}
    ("[", re.compile(r"\[[A-Z_]{2,}\]", re.ASCII)),                                                # [PLACEHOLDER]
)
_NUMBER = re.compile(
    r"[¥$€£￥]\s?\d[\d,，]*(?:\.\d+)?(?:[万亿千百kKmMbB])?"
    r"|\d+(?:[.,:/\-]\d+)*(?:\s?%|％|‰|[年月日号时点分秒天周岁元块万亿倍个位次条件项级]|[a-zA-Z]{1,3}\b)?"
    # Chinese numerals with a measure word; 一个/十分/一点 are articles and adverbs, not numbers
    r"|[零〇一二两三四五六七八九十百千万亿半]+(?:[年日号天周岁元块倍位次条件项级成折]|个月|个工作日|小时|分钟|秒钟|月份?"
    r"|分之[零〇一二两三四五六七八九十百千]+)"
)
_USER_FACT_ZH = re.compile(
    r"(?:我|本人)(?:们)?(?:是|有|在|住在|姓|叫|今年|已经|刚刚|刚|的|买了|购买了|办理了|办了|开了|绑定了|持有|目前|现在是|属于)"
)
_USER_FACT_EN = re.compile(
    r"\b(?:I\s+am|I['’]m|I\s+have|I['’]ve|I\s+own|I\s+live|I\s+work|I\s+bought|I\s+ordered|I\s+paid|I\s+was\s+born"
    r"|I\s+use|I\s+run|my\s+(?:name|account|order|email|phone|address|plan|membership|subscription|id|number|"
    r"company|team|budget|age|salary|income|policy|card|car|house|flight|booking|reservation|level|status|tier))\b"
    r"(?!\s+(?:wondering|hoping|writing|looking|asking|just|sorry|afraid|glad|happy|curious|trying))",
    re.IGNORECASE | re.ASCII,
)


class Protection:
    """The protected ranges of a conversation (global offsets), as columns, and the ``<context>`` timing.

    Range ``k`` is ``starts[k]:ends[k]`` with reason ``PRECEDENCE[codes[k]]``; its human detail is built
    only when asked for (:meth:`detail`): a long prompt has tens of thousands of ranges and most details
    are never shown.
    """

    __slots__ = ("text", "starts", "ends", "codes", "kinds", "_kinds", "_kind_ids", "context_ms", "context_facts",
                 "context_ranges", "material", "_intervals", "written")

    # the columns are lists while ranges are added and tuples once frozen (:meth:`freeze`): readers see sequences
    starts: Sequence[int]
    ends: Sequence[int]
    codes: Sequence[int]
    kinds: Sequence[int]
    _kinds: Sequence[tuple[str, str, int]]
    context_facts: Sequence[tuple[int, str, str]]
    context_ranges: Sequence[tuple[int, int]]
    material: Sequence[Material]

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = []
        self.ends = []
        self.codes = []
        self.kinds = []
        self._kinds = []  # (prefix, suffix, value limit; -1: no value)
        self._kind_ids: dict[tuple[str, str, int], int] = {}
        self.context_ms = 0.0
        self.context_facts = []  # (global start of the <context>, tag, text)
        self.context_ranges = []
        self.material = []  # material.Material ranges (start, end, kind, detail), largest first
        self._intervals: list[Interval] | None = None
        self.written: str | None = None  # the text as written, where the rules read another (script.as_written)

    def _kind(self, prefix: str, suffix: str = "", limit: int = -1) -> int:
        key = (prefix, suffix, limit)
        k = self._kind_ids.get(key)
        if k is None:
            k = self._kind_ids[key] = len(self._kinds)
            cast("list[tuple[str, str, int]]", self._kinds).append(key)
        return k

    def add(self, start: int, end: int, reason: str, detail: str) -> None:
        """One range with a fixed detail."""
        cast("list[int]", self.starts).append(start)
        cast("list[int]", self.ends).append(end)
        cast("list[int]", self.codes).append(_CODE_OF[reason])
        cast("list[int]", self.kinds).append(self._kind(detail))

    def extend(self, flat: Sequence[int], reason: str, prefix: str, suffix: str = "", limit: int = 60) -> None:
        """Ranges from a flat [start, end, …] list; detail = prefix + repr(matched text[:limit]) + suffix."""
        if not flat:
            return
        m = len(flat) // 2
        cast("list[int]", self.starts).extend(flat[0::2])
        cast("list[int]", self.ends).extend(flat[1::2])
        cast("list[int]", self.codes).extend([_CODE_OF[reason]] * m)
        cast("list[int]", self.kinds).extend([self._kind(prefix, suffix, limit)] * m)

    def __len__(self) -> int:
        return len(self.starts)

    def copy(self) -> "Protection":
        """An unfrozen copy: ranges added to it leave this one as it is."""
        out = Protection(self.text)
        out.starts, out.ends, out.codes, out.kinds = list(self.starts), list(self.ends), list(self.codes), list(self.kinds)
        out._kinds, out._kind_ids = list(self._kinds), dict(self._kind_ids)
        out.context_ms = self.context_ms
        out.context_facts, out.context_ranges = list(self.context_facts), list(self.context_ranges)
        out.material, out.written = list(self.material), self.written
        return out

    def freeze(self) -> "Protection":
        """Columns as tuples once every range is in: an annotation is often kept (the app's session, a batch's
        results), and lists of numbers cost the cyclic garbage collector a visit on every pass, tuples none."""
        self.starts, self.ends, self.codes, self.kinds = (tuple(self.starts), tuple(self.ends), tuple(self.codes),
                                                          tuple(self.kinds))
        self._kinds = tuple(self._kinds)
        self.context_facts, self.context_ranges = tuple(self.context_facts), tuple(self.context_ranges)
        self.material = tuple(self.material)
        return self

    @property
    def material_ranges(self) -> list[tuple[int, int]]:
        """(start, end) of every material range, in text order (for rules that must not read material as
        instructions, e.g. as the first copy of a repeat)."""
        return sorted((m.start, m.end) for m in self.material)

    def in_material(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps material."""
        return any(m.start < end and start < m.end for m in self.material)

    def reason(self, k: int) -> str:
        return PRECEDENCE[self.codes[k]]

    def detail(self, k: int) -> str:
        prefix, suffix, limit = self._kinds[self.kinds[k]]
        if limit < 0:
            out = prefix
        else:
            value = self.text[self.starts[k]:self.ends[k]]
            out = f"{prefix}{(value[:limit] if limit else value)!r}{suffix}"
        return out if self.written is None else as_written(out, self.text, self.written, self.starts[k])

    @property
    def intervals(self) -> list[Interval]:
        """Every range as an :class:`Interval` (built once, for readers that want objects)."""
        if self._intervals is None:
            self._intervals = [Interval(self.starts[k], self.ends[k], self.reason(k), self.detail(k))
                               for k in range(len(self.starts))]
        return self._intervals


_CODE_OF = {name: k for k, name in enumerate(PRECEDENCE)}
_LEXICON_PROTECTIONS = (
    ("negations.zh", "protected_negation", "negation ", " carries the logic"),
    ("negations.en", "protected_negation", "negation ", " carries the logic"),
    ("connectives.zh", "protected_connective", "connective ", " carries the logic"),
    ("connectives.en", "protected_connective", "connective ", " carries the logic"),
    ("number_words", "protected_number", "number word ", ""),
)
_USER_FACT = "a fact the user states about themself: "


def identifier_guards(text: str) -> tuple[bool, ...]:
    """Which identifier scanners can match at all (each needs its substring somewhere in the text)."""
    return tuple(map(text.__contains__, _GUARDS))


_GUARDS = tuple(guard for guard, _ in _IDENTIFIERS)


def xml_protections(view: TextView, conversation: Conversation | None = None, *, material: bool = True) -> Protection:
    """A :class:`Protection` holding the structural ranges only: XML markup, ``<output_format>``, material
    (``VERBATIM_ELEMENTS`` and what ``material.find_material`` finds) and ``<context>`` (with its facts and
    timing) — what the repeat scan must know beforehand.

    ``conversation``: the :class:`~layerzero_viz.model.Conversation` the view was built from, when known —
    it tells which text blocks are ``tool_result`` content and which role the final message has.  With
    ``material=False`` the material scan is left to a later :func:`add_material` call (the engine runs it
    while the compiled scanners and the tokenizer work on another thread).
    """
    text = view.text
    out = Protection(text)
    add = out.add
    elements_material = cast("list[Material]", out.material)
    out_context_ranges = cast("list[tuple[int, int]]", out.context_ranges)
    out_context_facts = cast("list[tuple[int, str, str]]", out.context_facts)
    for b in view.blocks:
        if text.find("<", b.start, b.end) < 0:
            continue  # no tag, no element: nothing to cut out
        seg = text[b.start:b.end]
        tags = scan_tags(seg)
        for t in tags:
            add(b.start + t.start, b.start + t.end, "protected_xml", f"XML markup <{'/' if t.closing else ''}{t.name}>")
        if not tags:
            continue
        has_context = any(t.name == "context" for t in tags)
        t0 = time.perf_counter() if has_context else 0.0
        for el in elements(tags):
            if el.name == "output_format":
                add(b.start + el.outer_start, b.start + el.outer_end, "protected_schema",
                    "inside <output_format>: the output schema is kept verbatim")
            elif _verbatim_element(el.name):
                if el.inner_end > el.inner_start:
                    elements_material.append(Material(b.start + el.inner_start, b.start + el.inner_end, "element",
                                             f"kept: inside <{el.name}>, material given to the model to work on"))
            elif el.name == "context":
                add(b.start + el.outer_start, b.start + el.outer_end, "protected_context",
                    "inside <context>: supplied facts are kept verbatim")
                out_context_ranges.append((b.start + el.outer_start, b.start + el.outer_end))
                for tag, value in context_facts(seg[el.inner_start:el.inner_end]):
                    out_context_facts.append((b.start + el.outer_start, tag, value))
        if has_context:
            out.context_ms += (time.perf_counter() - t0) * 1000.0
    if material:
        add_material(out, view, conversation)
    return out


def material_finds(view: TextView, conversation: Conversation | None = None, reuse: bool = False) -> MaterialFinds:
    """What ``material.find_material`` finds in ``view``, each block's own material found when asked for
    (``reuse``: see ``find_material``)."""
    block_types, last_role = _block_types(conversation)
    return MaterialFinds(view, block_types, last_role, reuse)


def add_material(out: Protection, view: TextView, conversation: Conversation | None = None, reuse: bool = False, *,
                 found: list[Material] | None = None) -> None:
    """Add to ``out`` the material ranges ``material.find_material`` finds (or ``found``, what
    :class:`~layerzero_viz.material.MaterialFinds` gave), with the material elements' contents already in
    ``out.material`` (``reuse``: see ``find_material``)."""
    if found is None:
        found = material_finds(view, conversation, reuse).found()
    material = found + list(out.material)
    # largest first: within one code a later range decides a token's detail, so a quote inside a
    # handed-over letter shows its own
    material.sort(key=largest_first)
    out.material = material
    for m in material:
        out.add(m.start, m.end, "protected_material", m.detail)


def _block_types(conversation: Conversation | None) -> tuple[dict[tuple[MessageKey, int], str], str | None]:
    """(message key, block index) → block type of the non-plain text blocks, and the final message's role."""
    if conversation is None:
        return {}, None
    types = {(msg.key, blk.index): blk.type for msg in conversation.messages for blk in msg.blocks
             if blk.kind == "text" and blk.type != "text"}
    last_role = conversation.messages[-1].role if conversation.messages else None
    return types, last_role


def _within_blocks(text: str, flat: Sequence[int]) -> Sequence[int]:
    """``flat`` [start, end, …] with each range cut where its block ends: a fence a block opens and never closes
    ("Put each migration in fenced ```sql blocks.") is code to that block's end, not through the turns after it."""
    if not flat or "\x00" not in text:
        return flat
    out = list(flat)
    for k in range(0, len(out), 2):
        cut = text.find("\n\x00", out[k], out[k + 1])
        if cut >= 0:
            out[k + 1] = cut
    return out


def find_protections(view: TextView, scans: Scans, structure: Protection, patterns: Sequence[CompiledPattern] = (),
                     pattern_sources: tuple[str, ...] = (), pattern_text: str | None = None) -> Protection:
    """Every protected range of the conversation (global offsets), with the ``<context>`` timing: added to
    ``structure`` (what :func:`xml_protections` gave) from ``scans`` (``scans.Scans`` of this view) and the
    ``<protected_tokens>`` ``patterns``."""
    text = view.text
    out = structure
    out.extend(_within_blocks(text, scans.code), "protected_code", "code is kept verbatim: ")
    out.extend(scans.quotes, "protected_quote", "quoted text is kept verbatim: ")
    out.extend(scans.numbers, "protected_number", "number, amount, date or measure: ")
    for flat in scans.identifiers:
        if flat:
            out.extend(flat, "protected_identifier", "identifier kept whole: ")

    for rx, source in zip(patterns, pattern_sources):
        flat = [x for mt in rx.finditer(text if pattern_text is None else pattern_text) if mt.end() > mt.start()
                for x in mt.span()]
        if flat:
            out.extend(flat, "protected_pattern", f"matches <protected_tokens> pattern {source!r}", limit=-1)
            # the detail names the pattern, not the match

    for name, reason, prefix, suffix in _LEXICON_PROTECTIONS:
        flat = view.lexicon_of(name)
        if flat:
            out.extend(flat, reason, prefix, suffix, limit=0)

    found = scans.user_facts
    filler = None  # the filler phrases' spans, sorted (looked up once, at the first fact)
    for k in range(0, len(found), 2):
        s = found[k]
        if _OPINION_FRAME.match(text, found[k + 1]) or _OPINION_LEAD.search(text, max(0, s - 2), s):
            continue  # "根据我的理解，…" frames an opinion: it states no fact about the user
        e = _clause_end(view, s, view.block_at(s).end)
        while e > s and (text[e - 1] in _TRAILING_PUNCT or text[e - 1].isspace()):
            e -= 1  # the fact's words, not the comma after them: a cut beside it may need to take that comma
        if filler is None:
            filler = sorted(pair for name in ("filler.en", "filler.zh")
                            for pair in zip(view.lexicon_of(name)[::2], view.lexicon_of(name)[1::2]))
        j = bisect.bisect_right(filler, (s, len(text))) - 1
        if j >= 0 and filler[j][1] >= e:
            continue  # "I'm so sorry if this is a silly question": a politeness phrase whole, no fact
        out.extend([s, e], "protected_user_fact", _USER_FACT)
    return out.freeze()


_TRAILING_PUNCT = "，,、；;：:。.！!？?"
_OPINION_FRAME = re.compile(r"理解|看法|观点|意见|感觉|印象|猜测")
_OPINION_LEAD = re.compile(r"(?:根据|按照|依|据|在)\Z")


USER_ROLES = ("user",)  # formats.py maps every source's user role (sharegpt's "human") to "user"


def _flat(rx: re.Pattern[str], text: str) -> list[int]:
    """``rx.finditer`` spans as a flat [start, end, …] list (the form the native scanners return)."""
    return [x for mt in rx.finditer(text) for x in mt.span()]


def user_facts_python(text: str, start: int, end: int) -> list[int]:
    """User-fact phrase spans in [start, end): the Chinese pattern's, then the English one's (flat)."""
    return [x for rx in (_USER_FACT_ZH, _USER_FACT_EN) for mt in rx.finditer(text, start, end) for x in mt.span()]


def python_scanners(text: str, wanted: Sequence[bool] | None = None,
                    user_ranges: Sequence[tuple[int, int]] | None = None) -> dict[str, Any]:
    """What each native scanner returns for ``text``, computed with the regexes (the definition): the
    identifier patterns ``wanted`` (all when None; None in place of one not wanted), user facts within
    ``user_ranges`` (the whole text when None)."""
    wanted = (True,) * len(_IDENTIFIERS) if wanted is None else wanted
    user_ranges = [(0, len(text))] if user_ranges is None else user_ranges
    return {
        "numbers": _flat(_NUMBER, text),
        "quotes": _flat(_QUOTE, text),
        "code": _flat(_CODE, text),
        "identifiers": [_flat(rx, text) if want else None for (_, rx), want in zip(_IDENTIFIERS, wanted)],
        "user_facts": [x for s, e in user_ranges for x in user_facts_python(text, s, e)],
    }


def _clause_end(view: TextView, start: int, limit: int) -> int:
    """Where the clause starting at ``start`` ends (``limit`` when none does before it)."""
    parts = clauses(view, start, limit, first=True)
    return parts[0][1] if parts else limit
