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
* zh degree adverbs (很 非常 …) not after a negation, before an adjective or verb; 一下 after a verb, before its
  object (never closing the clause); sentence-final 啊/呀/哦 after a Chinese character (not 啦/咯: 了 is in them); hesitation 这个，/那个， opening a clause.

Speed: this runs on every article and 的 of a conversation (tens of thousands per megabyte), so each hit is
decided with slicing and set look-ups, one word type per function (``_ZH_RULES`` dispatches a zh word); the
regular expressions stay the definition and decide what the cheap tests cannot (``_word_before``); jieba
look-ups are cached per context (``_tag_before``/``_tag_after``) and markup ranges once per line.
"""
from __future__ import annotations

import bisect
import re
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Callable, Optional

from ..lexicon import is_cjk
from ..view import Hits, TextView, slot_line
from . import filler

if TYPE_CHECKING:
    from . import RuleContext

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
# the intensified word that makes the intensifier part of an idiom ("very much", "really well", "the very end")
_EN_INTENSIFIED_KEEP = frozenset({"much", "many", "few", "little", "well", "least", "most", "same", "first", "last",
                                  "end", "own"})
# a negation just before the hit (within 12 characters): "not a single", "not very good"
_EN_NEGATION_BEFORE = re.compile(r"(?:\bnot|\bnever|\bno|n't|n’t|\bwithout|\bhardly|\bbarely)\s+$", re.IGNORECASE)
_EN_NEGATION_WORDS = frozenset({"not", "never", "no", "without", "hardly", "barely"})  # its whole-word forms
# the word just before the hit (within 20 characters), for _EN_BEFORE_ARTICLE_KEEP
_EN_PREV_WORD = re.compile(r"([A-Za-z]+)\s+$")
_ZH_NEGATION_BEFORE = re.compile(r"(?:不|没|别|未|无|勿|非)$")
_ZH_INTERJECTIONS = frozenset("嗯 呃 诶 哎 嘿 哟 哇 哈 哈哈 哈哈哈 嗯嗯 呵呵 嘿嘿 嘻嘻 哦哦 哎呀 哎哟 哇塞 嗯哼".split())
_ZH_FINAL_PARTICLES = frozenset("啊 呀 啦 哦 喔 噢 咯 嘞 呐 咧".split())
_ZH_FUSED_LE = frozenset({"啦", "咯"})  # 了 + a tone: they keep the change of state 了 marks
_ZH_DEGREE = frozenset("很 挺 蛮 颇 非常 极其 格外".split())
_ZH_HESITATION = frozenset({"这个", "那个"})
# what may follow 嗯 when it says yes: thanks or a go-ahead ("嗯，麻烦你了。", "嗯，谢谢。", "嗯，好的。")
_ZH_YES_AFTER = ("麻烦", "谢谢", "感谢", "多谢", "拜托", "好", "可以", "行", "是", "对", "要", "需要")
_ZH_ACKS = frozenset({"", "好", "好的", "好吧", "嗯", "行", "收到", "明白", "明白了", "知道了", "可以", "没问题", "对", "是的", "谢谢"})
_ZH_TAILS = frozenset({"来着", "罢了", "而已", "似的", "的话"})
# (not a bare 如 — 比如, 例如, 如何 — nor the 若 of 若干/般若)
_ZH_CONDITIONAL = re.compile(r"如果|要是|假如|假设|若是|倘若|万一|如若|(?<!般)若(?!干)")
_CLAUSE_PUNCT = "，,、；;：:"
_END_PUNCT = "。！？!?….\n"
_CLAUSE_BOUNDARY = _CLAUSE_PUNCT + _END_PUNCT + "\x00"
# emphasis, code, a link, a URL, quotes, a tag (the leading lookahead changes no match — every alternative
# starts with one of its characters — it only lets the search skip other characters quickly)
_MARKUP = re.compile(r"(?=[*_`\[\"“「<h])(?:"
                     r"\*\*[^*\n]+?\*\*|__[^_\n]+?__|(?<![*\w])\*[^*\s][^*\n]*?\*(?!\*)|`[^`\n]+`|\[[^\]\n]*\](?:\([^)\n]*\))?"
                     r"|https?://\S+|\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|<[^<>\n]*>)")
_LEAD_PUNCT = frozenset("，。、；：,;:!?！？)）")
# a line that needs no search: it does not open with _LEAD_PUNCT and holds none of the characters markup starts
# with (a bare link alone does not count)
_PLAIN_LINE = re.compile(r"(?!\s*[，。、；：,;:!?！？)）])[^*_`[\"“「<]*\Z")


Span = Optional[tuple[int, int]]  # what a hit proposes to remove, or None: the word stays


def find(view: TextView, ctx: RuleContext) -> Hits:
    """Every hit a context rule lets go.

    The zh lexicon's hits, then the en lexicon's (the order of ``view.lexicon_columns(_NAMES)``); a hit its
    context rule lets go is then dropped when it lies inside markup on its line (:func:`_line_markup`)."""
    text = view.text
    starts: list[int] = []
    ends: list[int] = []
    sources: list[int] = []
    scores: list[float] = []
    lines: dict[int, tuple[int, list[int]]] = {}  # line start → (line end or -1, markup ranges)
    ranges: list[int]
    line_start, line_end, ranges = 1, 0, []  # the line of the previous hit ([1, 0]: none yet)
    assistant = [x for b in view.blocks if b.role == "assistant" for x in (b.start, b.end)]  # flat, in order
    for src, name in enumerate(_NAMES if ctx.low_information else ()):
        decide = _DECIDE[src]
        flat = view.lexicon_of(name)
        for s, e in zip(flat[0::2], flat[1::2]):
            if assistant and _inside(assistant, s, e):
                continue  # the model's own words (an agent prompt's exemplar answers): never edited
            word = text[s:e]
            found = decide(text, s, e, word)
            if found is None:
                continue
            if not line_start <= s <= line_end:  # (hits come in text order: most share the previous hit's line)
                line_start = text.rfind("\n", 0, s) + 1
                known = lines.get(line_start)
                if known is None:
                    known = lines[line_start] = _line_markup(text, line_start, s, e)
                line_end, ranges = known
            if ranges and _inside(ranges, s, e):
                continue
            if slot_line(text, s, as_is_only=True):
                continue  # wording a label says to use as it is ("Fallback message: Oops, please refresh …")
            starts.append(found[0])
            ends.append(found[1])
            sources.append(src)
            # shorter, more frequent words carry less: prune them first
            scores.append(0.5 if e - s <= 1 or word.lower() in _ARTICLES else 0.4)
    return Hits("low_information", starts, ends, scores, 0.35, frozenset(),
                partial(_detail, text, starts, ends, sources))


def _zh(text: str, s: int, e: int, word: str) -> Span:
    rule = _ZH_RULES.get(word)
    return rule(text, s, e, word) if rule is not None else None


def _en(text: str, s: int, e: int, word: str) -> Span:
    # Articles and intensifiers are not safe: a blind review of real prompts found "the two" → "two",
    # "a very clearly expressed contribution" (the word that separates two rubric bands) → "clearly expressed",
    # and ungrammatical text throughout.  Only interjections go; the rest is the lossy tier's to weigh.
    if word.lower() in _EN_INTERJECTIONS:
        return _interjection(text, s, e)
    return None


def _detail(text: str, starts: list[int], ends: list[int], sources: list[int], k: int) -> str:
    """A hit's detail (a partial of this, not a closure: see ``filler.find``)."""
    return f"function word {text[starts[k]:ends[k]].strip(' ,，')!r} that carries nothing here (lexicon {_NAMES[sources[k]]})"


def _line_markup(text: str, ls: int, s: int, e: int) -> tuple[int, list[int]]:
    """(the line's end, or -1 when the hit [s, e) holds a newline, as the line is then more than one; the
    emphasis, code, links, tags and quotes on the line starting at ``ls`` as flat [start, end, …])."""
    le = text.find("\n", e)
    le = len(text) if le < 0 else le
    if _PLAIN_LINE.match(text, ls, le) is not None:
        flat = []  # the common case: nothing to search
    elif text[ls:le].lstrip()[:1] in _LEAD_PUNCT:
        flat = [ls, le]  # a line opening with punctuation (";; comment", continuation): left as is
    else:
        flat = [x for m in _MARKUP.finditer(text[ls:le]) for x in (ls + m.start(), ls + m.end())]
    return (le if text.find("\n", s, e) < 0 else -1), flat


def _inside(ranges: list[int], s: int, e: int) -> bool:
    """Whether [s, e) overlaps one of ``ranges`` (disjoint and in order: [start, end, start, end, …])."""
    k = bisect.bisect_right(ranges, s)
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
    return k == 0 or text[k - 1] in _CLAUSE_BOUNDARY


def _is_word_char(ch: str) -> bool:
    """A word character as the regular expressions' \\b sees it."""
    return ch.isalnum() or ch == "_"


def _word_before(text: str, s: int) -> tuple[bool, str]:
    """(whether a negation precedes ``s`` — ``_EN_NEGATION_BEFORE`` over the 12 characters before it —, the word
    before ``s`` in lower case — ``_EN_PREV_WORD`` over the 20 characters before it — or "").

    Both patterns end in spaces up to ``s``, so both depend only on the token before those spaces.  The common
    case, an ASCII window whose token is all letters, is read off directly: the word is that token, and it is a
    negation when it is one of the negation words, starts inside the 12 characters and is not glued to a word
    character before it (the \\b).  Anything else (non-ASCII text, "don't", "(not") asks the patterns."""
    if s > 1 and text[s - 1] == " ":
        last = text[s - 2]
        if last < "\x80" and not last.isalpha() and not last.isspace():
            return False, ""  # "…, the": punctuation before the space, no word
        # the most common case of all: " word " — one space, a word of ASCII letters, a space before it
        b = text.rfind(" ", max(0, s - 21), s - 1)
        if b >= 0:
            token = text[b + 1:s - 1]
            if token.isalpha() and token.isascii():
                word = token.lower()
                return word in _EN_NEGATION_WORDS and b + 1 >= s - 12, word
    window = text[max(0, s - 20):s]
    if window.isascii():
        body = window.rstrip()
        if len(body) == len(window) or not body or not body[-1].isalpha():
            return False, ""  # no space, or no letter before it: neither pattern can match
        token = body.rsplit(None, 1)[-1]
        if token.isalpha():
            word = token.lower()
            begin = s - len(window) + len(body) - len(token)
            negated = word in _EN_NEGATION_WORDS and begin >= s - 12 and (begin == 0 or not _is_word_char(text[begin - 1]))
            return negated, word
    negated = _EN_NEGATION_BEFORE.search(text, max(0, s - 12), s) is not None
    prev = _EN_PREV_WORD.search(window)
    return negated, prev.group(1).lower() if prev else ""


def _en_article(text: str, s: int, e: int, word: str) -> Span:
    """An article goes with its space before a lower-case common word in running prose."""
    if s > 0:
        before = text[s - 1]
        if before not in " \t(" or before == " " and s > 1 and text[s - 2] in "):":
            return None  # glued to what precedes it; "b) a dog", "answer: a dog": an option's words are its own
    m = _NEXT_WORD.match(text, e)
    if m is None:
        return None  # punctuation ("a)", "a.m."), a number, the end of the text
    nxt = m.group(1)
    if not nxt.islower() or nxt in _EN_AFTER_ARTICLE_KEEP:
        return None  # a name (The Hague), an idiom ("a few", "the same")
    end = m.end()
    if text[end:end + 1] == ")":
        return None  # a list option ("a dog)")
    if word[0].isupper() and not _clause_start(text, s):
        return None  # "Lord of The Rings" style capitals
    negated, before = _word_before(text, s)
    if negated or before in _EN_BEFORE_ARTICLE_KEEP:
        return None  # "not a single", "what a", "once a day", "plan a"
    return s, e + 1


def _en_intensifier(text: str, s: int, e: int, word: str) -> Span:
    """An intensifier before the word it strengthens, not after a negation ("not very good")."""
    k, nxt = _word_after(text, e)
    if k < 0 or not nxt.islower():
        return None
    if s > 0 and text[s - 1] not in " \t":
        return None
    if word[0].isupper() and not _clause_start(text, s):
        return None
    if nxt in _EN_INTENSIFIED_KEEP:
        return None
    if _word_before(text, s)[0]:
        return None
    return s, k


def _interjection(text: str, s: int, e: int) -> Span:
    """An interjection opening a clause goes with its comma ("Um, I …"); between commas with the first one; with
    no comma after it, it stays."""
    if s > 0 and text[s - 1].isalnum() or (e < len(text) and text[e].isalnum()):
        return None
    after = e
    if after < len(text) and text[after] in ",，":
        after += 1
        while after < len(text) and text[after] in " \t":
            after += 1
        # "I, um, think" → "I think" (a comma before it opens a clause too: both commas are its)
        b = s
        while b > 0 and text[b - 1] in " \t":
            b -= 1
        if b > 0 and text[b - 1] in ",，":
            return b - 1, e + 1
        if _clause_start(text, s):
            return s, after
        return None
    # without its comma it may be another language's word: German "um … zu" (in order to), the Portuguese
    # article "um" ("Um esboço típico …")
    return None


# --- zh: one function per kind of word (``_ZH_RULES``) ------------------------------------------------------

def _zh_interjection(text: str, s: int, e: int, word: str) -> Span:
    """嗯，/呃， opening a clause, with its comma — not when it is half of an acknowledgement."""
    if not _clause_start(text, s):
        return None
    after = text[e] if e < len(text) else ""
    if after in "，,":
        k = e + 1
        while k < len(text) and text[k] not in _ZH_SENTENCE_END:
            k += 1
        rest = text[e + 1:k].strip(" 。！？!?，,～~…")
        if rest in _ZH_ACKS or word in ("嗯", "嗯嗯") and rest.startswith(_ZH_YES_AFTER):
            return None  # "嗯嗯，好的。": the interjection is half of an acknowledgement, a turn of its own; "嗯，麻烦你了。"
            # answers "需要为您登记投诉吗？" yes (with its thanks gone, 嗯 is the answer)
        if text[e + 1:e + 2] in ("“", "‘", '"'):
            return None  # (one token holds "，“": with the quote kept, its comma would be left opening the turn)
        return s, e + 1
    return None  # a line that is only an interjection (it may be the whole answer), or one glued to a word


def _zh_hesitation(text: str, s: int, e: int, word: str) -> Span:
    """这个，/那个， opening a clause (a hesitation, not a demonstrative)."""
    after = text[e] if e < len(text) else ""
    return (s, e + 1) if _clause_start(text, s) and after in "，," else None


def _zh_final_particle(text: str, s: int, e: int, word: str) -> Span:
    """啊/呀/哦 closing a sentence or clause after a Chinese character — not 啦 or 咯, which fuse 了 with the tone
    (太好啦 → 太好 is ungrammatical; 我知道啦 "got it now" → 我知道 "I (already) know"); not in an interjection
    (这样啊，"oh, I see" → 这样，"like this"), nor as a question's only mark (门票多钱啊，: no ？ after it)."""
    if word in _ZH_FUSED_LE:
        return None
    before = text[s - 1] if s > 0 else ""
    after = text[e] if e < len(text) else ""
    if not (before and is_cjk(before) and after and after in "。！？!?，,～~…") or _ZH_NEGATION_BEFORE.search(before):
        return None
    lo = max(0, s - 40)
    clause = text[max(lo - 1, *(text.rfind(c, lo, s) for c in _ZH_CLAUSE_BREAKS)) + 1:s]
    if _ZH_INTERJECTION.fullmatch(clause.strip()):
        return None
    if after not in "？?" and _ZH_QUESTION_WORD.search(clause):
        return None
    if _ZH_THANKS_END.search(clause) and filler.sarcastic_thanks(text, s):
        return None  # "谢谢你啊，把我整个下载文件夹都删了": the particle is the sarcasm's
    return s, e


_ZH_THANKS_END = re.compile(r"(?:谢谢|感谢|多谢)[你您]?们?\Z")


# what opens the clause a final particle closes
_ZH_CLAUSE_BREAKS = "，。！？!?；;：:\n"
# a clause that is only an interjection with its particle ("这样啊", "原来是这样啊", "是吗啊")
_ZH_INTERJECTION = re.compile(r"(?:原来)?(?:是)?(?:这样|那样)(?:子)?|原来如此|是吗|是嘛|真的|天哪|我的天")
# a question word: with no question mark after the particle, the particle is what makes it a question
_ZH_QUESTION_WORD = re.compile(r"多少|多钱|哪|什么|啥|几[点个天号时家位]|谁|怎么|怎样|如何|有没有|是不是|能不能|可不可以|吗")


def _zh_degree(text: str, s: int, e: int, word: str) -> Span:
    """很/非常 … before an adjective or verb, not after a negation (不很) or 是."""
    before = text[s - 1] if s > 0 else ""
    after = text[e] if e < len(text) else ""
    if not after or not is_cjk(after) or _ZH_NEGATION_BEFORE.search(text[max(0, s - 2):s]) or before == "是":
        return None
    nxt = _flags_around(text, s, e)[1]
    if not nxt or nxt[0] not in "av":
        return None
    return s, e


def _zh_yixia(text: str, s: int, e: int, word: str) -> Span:
    """一下 after a verb and before what the verb acts on (查询一下订单 → 查询订单), not 一下子 or 一下午, and not
    closing its clause: the verb would be left bare (推荐一下。→ 推荐。 reads as a note, 把…也查一下 needs it)."""
    after = text[e] if e < len(text) else ""
    if not after or after in _CLAUSE_BOUNDARY or after in " \t～~…”\"」』）)" or after in "吧吗呢啊呀哦嘛啦":
        return None
    if not _flags_around(text, s, e)[0].startswith("v") or (is_cjk(after) and after in "子午就"):
        return None  # (一下就…: "at once" — "这个报错一下就出来了")
    if after in _NUMERALS:
        return None  # 算一下一次应该喂多少毫升: without 一下, 算一次 reads "calculate once"
    if text[max(0, s - 2):s] in _ZH_TELL and after not in "我你您他她":
        return None  # 请告诉一下它的电话: without 一下, 告诉它 reads as "tell it"
    if text[max(0, s - 2):s] in _ZH_REMIND and after == "我":
        return None  # 再提醒一下我青霉素过敏 ("let me remind you I am allergic"): without 一下, 提醒我 reads "remind me"
    if text[max(0, s - 2):s] in _ZH_MENTION:
        return None  # 顺便提一下我周日有事: without 一下, 提我 reads as "bring me up"; 说一下 is "mention", 说 "say"
    if text[s - 1:s] in _ZH_BRIEF:
        return None  # 先停一下服务: 一下 says "for a moment" (停服务 stops it)
    at = text.rfind("在", max(0, s - 3), s - 1)
    if at >= 0 and (at == 0 or text[at - 1] not in "现存所实自内外好"):
        return None  # 你在看一下…: without 一下, 在 reads as the progressive ("are you looking at")
    return s, e


_ZH_TELL = ("告诉", "通知", "提醒", "转告", "告知")
# verbs whose 一下 makes a statement of the user's own ("提醒一下我…", "强调一下我…", "补充一下我…")
_ZH_REMIND = ("提醒", "強調", "强调", "补充", "補充", "声明", "聲明", "交代")
# a verb of mentioning after 顺便/再: 一下 makes it "mention"
_ZH_MENTION = ("便提", "便说", "再提", "便讲", "便說", "便講")
_NUMERALS = "一二两三四五六七八九十百千万半几每0123456789０１２３４５６７８９"
# verbs whose 一下 is a duration: 停一下 (pause), 等一下, 歇一下, 缓一下 (the last character of the verb: 暂停一下, 休息一下)
_ZH_BRIEF = frozenset("停等歇缓息睡躺")


def _zh_dehua(text: str, s: int, e: int, word: str) -> Span:
    """的话 closing a conditional clause (如果…的话，): the conditional word in the same clause — elsewhere it is
    的 + the noun 话 ("words": 我不会有过多的话, 不要说多余的话)."""
    after = text[e] if e < len(text) else ""
    lo = _sentence_start(text, s)
    clause_start = max(lo, max(text.rfind(ch, lo, s) for ch in "，,；;：:") + 1)
    if not _ZH_CONDITIONAL.search(text, clause_start, s) or not after or after not in "，,。！？!?":
        return None
    return s, e


def _zh_tail(text: str, s: int, e: int, word: str) -> Span:
    """来着/罢了/而已/似的 closing a clause after a Chinese character."""
    before = text[s - 1] if s > 0 else ""
    after = text[e] if e < len(text) else ""
    return (s, e) if after and after in "。！？!?，," and before and is_cjk(before) else None


_DE_MODIFIER = frozenset({"r", "n", "nr", "ns", "nt", "nz", "a", "t"})    # pronoun, noun, adjective, time word
_DE_NOUN = frozenset({"n", "nr", "ns", "nt", "nz", "ng", "an"})
_DI_ADVERBIAL = frozenset({"ad", "a", "d", "z", "ag"})


def _zh_de(text: str, s: int, e: int, word: str) -> Span:
    """的 between a modifier and the noun it modifies (我的朋友), never in 是…的."""
    # (the side that is not a Chinese character has no tag: 的 closing a phrase — 不是他的。 — or touching
    # anything else stays; the noun after is the rarer condition, so it is looked up first)
    if _tag_after(text[e:e + 4]) not in _DE_NOUN or _tag_before(text[max(0, s - 4):s]) not in _DE_MODIFIER:
        return None
    if text.rfind("是", max(0, s - 200), s) >= 0 and _SHI_BEFORE.search(text, _sentence_start(text, s), s):
        return None  # 是…的 (no 是 within the 200 characters _sentence_start looks back: none in the sentence)
    return s, e


def _zh_di(text: str, s: int, e: int, word: str) -> Span:
    return (s, e) if di_may_go(text, s) else None


# words that, without their 地, take the verb after them as what they feel about or want: "X地做" is done in that
# manner, "X做" is "X to do it"
_DI_TAKES_A_VERB = ("不好意思", "好意思", "害怕", "怕", "担心", "喜欢", "讨厌", "习惯", "舍不得", "忍不住", "忍心", "情愿", "甘心",
                    "愿意", "乐意", "后悔", "害羞", "高兴", "开心", "敢", "急于")


def di_may_go(text: str, s: int) -> bool:
    """Whether the 地 at ``s`` stands between an adverbial and its verb of two characters or more (认真地回答), so
    that the phrase reads the same without it: not after 好, 难 or 易 (更好地记住 → 更好记住 reads "easier to
    remember": 好记, 难懂, 易读 are words of their own; 好好地 is an adverbial), nor before a one-character verb
    (优雅地要一杯热水 → 优雅要一杯热水 does not parse: the adjective needs its 地 there).  The lossy tier asks too."""
    if s > 0 and text[s - 1] in "好难易" and text[s - 2:s] != "好好":
        return False
    if text[max(0, s - 4):s].endswith(_DI_TAKES_A_VERB):
        return False  # (不好意思地提醒他 → 不好意思提醒他 reads "too embarrassed to remind him")
    verb, tag = _zh_word_after(text[s + 1:s + 5])
    return len(verb) >= 2 and tag.startswith("v") and _tag_before(text[max(0, s - 4):s]) in _DI_ADVERBIAL


# a zh word → its rule; the first group that lists a word decides it (的话 is a tail too, but a conditional one)
_ZH_RULES: dict[str, Callable[[str, int, int, str], Span]] = {}
# Not here, found unsafe by a blind review of real dialogues: 的 (it closes relative clauses — 能吃到黄桥烧饼的餐馆 →
# 能吃到黄桥烧饼餐馆 —, and jieba's tags cannot tell them from 我的朋友), degree words (很/挺: 那还挺高的呢 → 那还高的呢),
# tails (而已 means "only").
for _words, _rule in ((_ZH_INTERJECTIONS, _zh_interjection), (_ZH_HESITATION, _zh_hesitation),
                      (_ZH_FINAL_PARTICLES, _zh_final_particle), (("一下",), _zh_yixia),
                      (("的话",), _zh_dehua), (("地",), _zh_di)):
    for _w in _words:
        _ZH_RULES.setdefault(_w, _rule)
del _words, _rule, _w
_DECIDE = (_zh, _en)  # per lexicon of _NAMES



_ZH_SENTENCE_END = "。！？!?；;\n\x00"
_SHI_BEFORE = re.compile(r"是[^，。！？,.!?]*$")


def _sentence_start(text: str, s: int) -> int:
    """Where the sentence holding ``s`` starts: after the last sentence end within 200 characters before it."""
    lo = max(0, s - 200)
    return max(lo, max(text.rfind(ch, lo, s) for ch in _ZH_SENTENCE_END) + 1)


def _flags_around(text: str, s: int, e: int) -> tuple[str, str]:
    """(part of speech of the word before, of the word after) the hit [s, e), from jieba's dictionary and its
    part-of-speech table (``jieba.posseg``): the longest dictionary word ending at ``s`` and starting at ``e``
    within the clause (the scanner already checked that no dictionary word crosses the hit's edges).  A few
    dictionary look-ups, not a segmentation: ``jieba.posseg.cut`` per hit cost more than the whole engine.
    Each side depends only on the four characters next to the hit, so each is cached on them."""
    return _tag_before(text[max(0, s - 4):s]), _tag_after(text[e:e + 4])


_CJK_RUN = "[\u3400-\u9fff\uf900-\ufaff]+"  # the characters lexicon.is_cjk accepts
_CJK_HEAD = re.compile(_CJK_RUN)
_CJK_TAIL = re.compile(_CJK_RUN + r"\Z")


@lru_cache(maxsize=1 << 16)
def _tag_before(left: str) -> str:
    """The tag of the longest dictionary word (a single character at least) ending ``left``'s Chinese tail."""
    run = _CJK_TAIL.search(left)
    if run is None:
        return ""
    freq, tags = _tables()
    for n in range(len(left) - run.start(), 1, -1):
        if freq.get(left[-n:]):
            return tags.get(left[-n:], "x")
    return tags.get(left[-1], "x")


def _tag_after(right: str) -> str:
    """The tag of the longest dictionary word (a single character at least) opening ``right``'s Chinese head."""
    return _zh_word_after(right)[1]


@lru_cache(maxsize=1 << 16)
def _zh_word_after(right: str) -> tuple[str, str]:
    """(the longest dictionary word, a single character at least, opening ``right``'s Chinese head, its tag);
    ("", "") when ``right`` opens with no Chinese character."""
    run = _CJK_HEAD.match(right)
    if run is None:
        return "", ""
    freq, tags = _tables()
    for n in range(run.end(), 1, -1):
        if freq.get(right[:n]):
            return right[:n], tags.get(right[:n], "x")
    return right[0], tags.get(right[0], "x")


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, int], dict[str, str]]:
    """jieba's word frequencies and part-of-speech tags (loaded once, by ``lexicon.load_jieba`` and
    ``lexicon.word_tags``)."""
    from ..lexicon import load_jieba, word_tags
    return load_jieba().dt.FREQ, word_tags()  # (jieba.posseg.initialize() would read the word tags a second time)
