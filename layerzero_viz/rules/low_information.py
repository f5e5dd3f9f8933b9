"""low_information: function words whose removal cannot change meaning; lowest priority, optional.

The lexicon (``low_information``) lists the words; a hit is a candidate only where a context rule can argue
that taking it changes nothing (anything else stays — a function word that carries meaning is content):

* en articles (a, an, the) before a lower-case common word in running prose: not after a negation ("not a
  single"), not in a name or title (The Hague, Lord of the Rings), not before a number ("a 3.5 mm jack") or a
  word that makes an idiom ("a few", "a little", "a lot", "the same", "once a day", "by the way"), not opening a
  list item ("a)", "a."), not inside emphasis, code, a link or quotes;
* en intensifiers (very, really, extremely …) before a word, not after a negation ("not very good") and not as
  an answer ("Really?");
* interjections (um, uh, hmm, 嗯, 呃 …) opening a clause, with their comma, or standing between commas;
* zh 的 only between a modifier (pronoun, noun, adjective, time word) and the noun it modifies (我的朋友 →
  我朋友; never 他写的书, never 不是他的, never 是…的), 地 only between an adverbial and its verb (认真地回答),
  decided with jieba's dictionary and part-of-speech table (jieba.posseg) for the words on either side;
* zh degree adverbs (很 非常 …) not after a negation, before an adjective or verb; 一下 after a verb;
  sentence-final 啊/呀/啦/哦 after a Chinese character; hesitation 这个，/那个， opening a clause.
"""
from __future__ import annotations

import bisect
import re
from functools import lru_cache, partial

from ..view import Bulk, Candidate, TextView

_ARTICLES = frozenset({"a", "an", "the"})
_NAMES = ("low_information.zh", "low_information.en")

_EN_INTERJECTIONS = frozenset("""um umm uh uhm erm hmm mmm ahh ooh aha wow gosh geez whoa haha hahaha heh oops ugh meh
    ahem phew""".split())
# the word before an article that makes it meaningful ("not a single", "what a", "once a day", "plan a")
_EN_BEFORE_ARTICLE_KEEP = frozenset("""not no never without nor what such quite rather half many once twice times per
    have has had having
    plan type class option grade vitamin section part step group exhibit appendix item choice answer level tier model
    size version column row point side team phase category""".split())
# the word after an article that makes an idiom or changes the meaning without it
_EN_AFTER_ARTICLE_KEEP = frozenset("""lot lots few little bit while couple number same other others former latter most
    least more less very only whole total majority minority great good deal day week month year hour minute second
    time times way moment meantime row result sense kind sort variety end beginning rest matter one ones first last
    next best worst case fact point following above below said""".split())
_EN_NEGATION_BEFORE = re.compile(r"(?:\bnot|\bnever|\bno|n't|n’t|\bwithout|\bhardly|\bbarely)\s+$", re.IGNORECASE)
_ZH_NEGATION_BEFORE = re.compile(r"(?:不|没|别|未|无|勿|非)$")
_ZH_INTERJECTIONS = frozenset("嗯 呃 诶 哎 嘿 哟 哇 哈 哈哈 哈哈哈 嗯嗯 呵呵 嘿嘿 嘻嘻 哦哦 哎呀 哎哟 哇塞 嗯哼".split())
_ZH_FINAL_PARTICLES = frozenset("啊 呀 啦 哦 喔 噢 咯 嘞 呐 咧".split())
_ZH_DEGREE = frozenset("很 挺 蛮 颇 非常 极其 格外".split())
_ZH_HESITATION = frozenset({"这个", "那个"})
_ZH_ACKS = frozenset({"", "好", "好的", "好吧", "嗯", "行", "收到", "明白", "明白了", "知道了", "可以", "没问题", "对", "是的", "谢谢"})
_ZH_TAILS = frozenset({"来着", "罢了", "而已", "似的", "的话"})
_ZH_CONDITIONAL = re.compile(r"如果|要是|假如|假设|若是|倘若|万一|如|若")
_CLAUSE_PUNCT = "，,、；;：:"
_END_PUNCT = "。！？!?….\n"
_MARKUP = re.compile(r"\*\*[^*\n]+?\*\*|__[^_\n]+?__|(?<![*\w])\*[^*\s][^*\n]*?\*(?!\*)|`[^`\n]+`|\[[^\]\n]*\](?:\([^)\n]*\))?"
                     r"|https?://\S+|\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|<[^<>\n]*>")
_MARKUP_CHARS = frozenset("*_`[\"“「<")
_LEAD_PUNCT = frozenset("，。、；：,;:!?！？)）")


def find(view: TextView, ctx) -> list[Candidate]:
    return find_bulk(view, ctx).candidates()


def find_bulk(view: TextView, ctx) -> Bulk:
    """Every hit a context rule lets go, as one :class:`Bulk` (the engine's path; :func:`find` lists them)."""
    text = view.text
    h_starts, h_ends, h_sources = view.lexicon_columns(_NAMES if ctx.low_information else ())
    starts: list[int] = []
    ends: list[int] = []
    sources: list[int] = []
    scores: list[float] = []
    lines: dict[int, list[tuple[int, int]]] = {}
    posseg: dict[int, list] = {}
    for s, e, src in zip(h_starts, h_ends, h_sources):
        word = text[s:e]
        if src == 1:
            found = _en(text, s, e, word)
        else:
            found = _zh(text, s, e, word, posseg)
        if found is None or _in_markup(text, s, e, lines):
            continue
        starts.append(found[0])
        ends.append(found[1])
        sources.append(src)
        # shorter, more frequent words carry less: prune them first
        scores.append(0.5 if e - s <= 1 or word.lower() in _ARTICLES else 0.4)
    return Bulk("low_information", starts, ends, scores, 0.35, frozenset(),
                partial(_detail, text, starts, ends, sources))


def _detail(text: str, starts: list[int], ends: list[int], sources: list[int], k: int) -> str:
    """A hit's detail (a partial of this, not a closure: see ``filler.find_bulk``)."""
    return f"function word {text[starts[k]:ends[k]].strip(' ,，')!r} that carries nothing here (lexicon {_NAMES[sources[k]]})"


def _in_markup(text: str, s: int, e: int, lines: dict) -> bool:
    """Inside emphasis, code, a link, a tag or quotes on its line (ranges found once per line)."""
    ls = text.rfind("\n", 0, s) + 1
    ranges = lines.get(ls)
    if ranges is None:
        le = text.find("\n", e)
        le = len(text) if le < 0 else le
        line = text[ls:le]
        if line.lstrip()[:1] in _LEAD_PUNCT:
            flat = [ls, le]  # a line opening with punctuation (";; comment", continuation): left as is
        elif _MARKUP_CHARS.isdisjoint(line):
            flat = []
        else:
            flat = [x for m in _MARKUP.finditer(line) for x in (ls + m.start(), ls + m.end())]
        ranges = lines[ls] = flat
    if not ranges:
        return False
    k = bisect.bisect_right(ranges, s)  # ranges are disjoint and in order: [start, end, start, end, …]
    if k % 2:
        return True  # s falls inside a range
    return k < len(ranges) and ranges[k] < e


_NEXT_WORD = re.compile(r" ([A-Za-z][A-Za-z'’-]*)")


def _word_after(text: str, e: int) -> tuple[int, str]:
    """(start, word) of the next word after one space at ``e``; (-1, "") when no plain word follows."""
    m = _NEXT_WORD.match(text, e)
    return (e + 1, m.group(1)) if m else (-1, "")


def _clause_start(text: str, s: int) -> bool:
    k = s
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k == 0 or text[k - 1] in _CLAUSE_PUNCT + _END_PUNCT + "\x00"


def _en(text: str, s: int, e: int, word: str):
    w = word.lower()
    if w in _ARTICLES:
        if s > 0 and text[s - 1] not in " \t(" or text[max(0, s - 2):s] in (") ", ": "):
            return None  # "b) a dog": an option's words are its own
        k, nxt = _word_after(text, e)
        if k < 0 or not nxt.islower() or nxt in _EN_AFTER_ARTICLE_KEEP:
            return None  # a name (The Hague), a number, an idiom, punctuation ("a)", "a.m.")
        end_n = k + len(nxt)
        if end_n < len(text) and text[end_n] in ")":
            return None
        if word[0].isupper() and not _clause_start(text, s):
            return None  # "Lord of The Rings" style capitals
        if _EN_NEGATION_BEFORE.search(text, max(0, s - 12), s):
            return None
        prev = re.search(r"([A-Za-z]+)\s+$", text[max(0, s - 20):s])
        if prev and prev.group(1).lower() in _EN_BEFORE_ARTICLE_KEEP:
            return None
        return s, k
    if w in _EN_INTERJECTIONS:
        return _interjection(text, s, e)
    # an intensifier before the word it strengthens, not after a negation
    k, nxt = _word_after(text, e)
    if k < 0 or not nxt.islower() or _EN_NEGATION_BEFORE.search(text, max(0, s - 12), s):
        return None
    if s > 0 and text[s - 1] not in " \t":
        return None
    if word[0].isupper() and not _clause_start(text, s):
        return None
    if nxt in ("much", "many", "few", "little", "well", "least", "most", "same", "first", "last", "end", "own"):
        return None
    return s, k


def _interjection(text: str, s: int, e: int):
    """An interjection opening a clause goes with its comma ("Um, I …"); between commas with the first one."""
    if s > 0 and text[s - 1].isalnum() or (e < len(text) and text[e].isalnum()):
        return None
    after = e
    if after < len(text) and text[after] in ",，":
        after += 1
        while after < len(text) and text[after] in " \t":
            after += 1
        if _clause_start(text, s):
            return s, after
        # "I, um, think" → "I think"
        b = s
        while b > 0 and text[b - 1] in " \t":
            b -= 1
        if b > 0 and text[b - 1] in ",，":
            return b - 1, e + 1
        return None
    if _clause_start(text, s) and after < len(text) and text[after] in " \t":
        while after < len(text) and text[after] in " \t":
            after += 1
        return s, after
    return None


def _zh(text: str, s: int, e: int, word: str, posseg: dict):
    before = text[s - 1] if s > 0 else ""
    after = text[e] if e < len(text) else ""
    if word in _ZH_INTERJECTIONS:
        if not _clause_start(text, s):
            return None
        if after in "，,":
            k = e + 1
            while k < len(text) and text[k] not in _ZH_SENTENCE_END:
                k += 1
            if text[e + 1:k].strip(" 。！？!?，,～~…") in _ZH_ACKS:
                return None  # "嗯嗯，好的。": the interjection is half of an acknowledgement, a turn of its own
            return s, e + 1
        if after in "。！!…~～" and (e + 1 >= len(text) or text[e + 1] in "\n\x00"):
            return None  # a line that is only an interjection: leave it (it may be the whole answer)
        return None
    if word in _ZH_HESITATION:
        return (s, e + 1) if _clause_start(text, s) and after in "，," else None
    if word in _ZH_FINAL_PARTICLES:
        if before and _is_cjk(before) and after and after in "。！？!?，,～~…" and not _ZH_NEGATION_BEFORE.search(before):
            return s, e
        return None
    if word in _ZH_DEGREE:
        if not after or not _is_cjk(after) or _ZH_NEGATION_BEFORE.search(text[max(0, s - 2):s]) or before == "是":
            return None
        flags = _flags_around(text, s, e, posseg)
        if flags is None or not flags[1] or flags[1][0] not in "av":
            return None
        return s, e
    if word == "一下":
        flags = _flags_around(text, s, e, posseg)
        if flags is None or not flags[0].startswith("v") or (after and _is_cjk(after) and after in "子午"):
            return None
        return s, e
    if word == "的话":
        ss = _sentence_start(text, s)
        if not _ZH_CONDITIONAL.search(text, ss, s) or not after or after not in "，,。！？!?":
            return None
        return s, e
    if word in _ZH_TAILS:
        return (s, e) if after and after in "。！？!?，," and before and _is_cjk(before) else None
    if word == "的":
        if not after or not _is_cjk(after) or not before or not _is_cjk(before):
            return None  # 的 closing a phrase (不是他的。) or touching anything else stays
        flags = _flags_around(text, s, e, posseg)
        if flags is None:
            return None
        prev, nxt = flags
        if prev in ("r", "n", "nr", "ns", "nt", "nz", "a", "t") and nxt in ("n", "nr", "ns", "nt", "nz", "ng", "an") \
                and not _SHI_BEFORE.search(text, _sentence_start(text, s), s):
            return s, e
        return None
    if word == "地":
        flags = _flags_around(text, s, e, posseg)
        if flags is None:
            return None
        prev, nxt = flags
        if prev in ("ad", "a", "d", "z", "ag") and nxt.startswith("v"):
            return s, e
        return None
    return None


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


_ZH_SENTENCE_END = "。！？!?；;\n\x00"
_SHI_BEFORE = re.compile(r"是[^，。！？,.!?]*$")


def _sentence_start(text: str, s: int) -> int:
    k = s
    lo = max(0, s - 200)
    while k > lo and text[k - 1] not in _ZH_SENTENCE_END:
        k -= 1
    return k


def _flags_around(text: str, s: int, e: int, cache: dict):
    """(part of speech of the word before, of the word after) the hit [s, e), from jieba's dictionary and its
    part-of-speech table (``jieba.posseg``): the longest dictionary word ending at ``s`` and starting at ``e``
    within the clause (the scanner already checked that no dictionary word crosses the hit's edges).  A few
    dictionary look-ups, not a segmentation: ``jieba.posseg.cut`` per hit cost more than the whole engine."""
    freq, tags = _tables()
    prev = ""
    n = 0
    while n < 4 and s - n - 1 >= 0 and _is_cjk(text[s - n - 1]):
        n += 1
    while n:
        w = text[s - n:s]
        if n == 1 or freq.get(w):
            prev = tags.get(w, "x")
            break
        n -= 1
    nxt = ""
    n = 0
    while n < 4 and e + n < len(text) and _is_cjk(text[e + n]):
        n += 1
    while n:
        w = text[e:e + n]
        if n == 1 or freq.get(w):
            nxt = tags.get(w, "x")
            break
        n -= 1
    return prev, nxt


@lru_cache(maxsize=1)
def _tables():
    """jieba's word frequencies and part-of-speech tags (loaded once, through ``lexicon._jieba``)."""
    from ..lexicon import _jieba
    jieba = _jieba()
    import jieba.posseg as pseg
    pseg.initialize() if hasattr(pseg, "initialize") else None
    return jieba.dt.FREQ, pseg.dt.word_tag_tab
