"""The lossy tier: what a higher ``prune_ratio`` may take beyond the safe rules, cheapest information first.

Every whole word (words of alphabetic scripts — Latin, Cyrillic, Greek …; Chinese words by jieba segmentation)
that no protection covers and that is no safe-tier candidate gets an estimated loss: its surprisal from word
frequencies (:func:`information.word_surprisal`), halved when the same word occurred among the 40 words before
it (it is partly predictable from there).  ``Annotated.at_ratio(r, min_effectiveness=F)`` spends the safe tier
first, then these words in increasing loss per token while the effectiveness estimate stays ≥ F.

Never taken, at any floor: the most informative word of each clause and the only word of a one-word clause (so
no cut leaves punctuation alone, a list marker without its item, an empty emphasis or an empty turn), a word
that may carry a negation (未来, 不错, "not"), a question word (如何, "why"), the word right after a negation (不解释,
"not write") or after a subject pronoun (我希望, "I want"), a Chinese word right before 的/地/得 (a lone particle
would be left), a word that shares a token with its neighbours, the final turn
when it is the assistant's (the prefill the model continues), a line that opens with punctuation other than a
list marker, a heading mark or emphasis (";; comment", "> quote", "| cell"), a line that reads as code or a
formula (an assignment, a call, braces), a capitalised word but "I" (a name or a term), the first word of a
sentence, protected or directive text.

Assistant turns of the history are words like any others here: the lossy tier is what a caller asks for
beyond the safe rules (the default floor never takes it), and a history of long answers is where a chat's
tokens are.  The safe rules still never take an assistant's words as a repeat or as a function word.

Built on first use (the default floor, 1.0, never needs it), once per annotation.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .information import word_surprisal

if TYPE_CHECKING:
    from .engine import Annotated
from .view import _segments

__all__ = ["LossyTier", "lossy_tier", "NEARBY_WORDS"]

NEARBY_WORDS = 40
_CJK_CLASS = "\u3400-\u9fff\uf900-\ufaff"
# a Chinese run (cut into words by jieba), or a word of an alphabetic script (letters, inner apostrophes)
_WORD = re.compile(rf"[{_CJK_CLASS}]+|[^\W\d_{_CJK_CLASS}]+(?:['’][^\W\d_{_CJK_CLASS}]+)*")
# what ends a clause for this purpose: punctuation, line breaks, markup and quote marks
_OPENING_MARKS = frozenset("*_~`([{<\"'“‘「『《-/")
_CLOSING_MARKS = frozenset("*_~`)]}>\"'”’」』》-/")
_NEGATION_CHARS = re.compile(r"[不没未无非别勿莫否]")
_EN_NEGATIONS = frozenset({"not", "no", "never", "nor", "neither", "without", "cannot", "don't", "doesn't", "didn't",
                           "won't", "can't", "isn't", "aren't", "wasn't", "shouldn't", "mustn't", "nothing", "none"})
# a line opening with punctuation is left alone — but for a list marker, a heading mark or emphasis before prose
_MARKER = r"(?:[-*+•]|\d{1,3}[.)、]|#{1,6})"  # a list marker or a heading mark (before a space or a tab)
_PUNCT_LINE = re.compile(rf"[ \t]*(?!{_MARKER}[ \t]|\*\*?\w|__?\w)[^\w\s\u3400-\u9fff]")
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]")
# what ends a clause for this purpose: any mark that is not a letter, digit or space — punctuation, line
# breaks, markup, quote marks, arrows and operators ("核心→叠加态 + 并行": each part keeps a word)
_CLAUSE_BREAK = re.compile(r"[^\w\s]|[\n_]")
# a line that reads as code or a formula (an ASCII call or index, an assignment, "**2", a line that opens a
# block with "{" or ends a statement with ";", or closes one with "}"): left alone, even
# when no code finder took it as material ("print([x**2 for x in range(10)])" keeps its "x in")
_CODE_LIKE = re.compile(r"[A-Za-z0-9_][(\[]|[(\[]\\?[\[(]|\w\\?\*\\?\*\w|[{;][ \t]*$|^[ \t]*\}|[A-Za-z_]\w*[ \t]*=[^=]",
                        re.MULTILINE)
# question words: a question without them asks something else (or nothing)
_QUESTION_WORDS = frozenset({"如何", "怎么", "怎样", "怎么样", "什么", "为什么", "为何", "哪", "哪里", "哪儿", "哪个", "哪些",
                             "谁", "几", "多少", "是否", "吗", "呢", "how", "what", "why", "which", "who", "whom",
                             "whose", "when", "where", "whether"})
# personal pronouns as subjects: the word after one is usually the clause's verb
_SUBJECTS = frozenset({"我", "你", "您", "他", "她", "它", "我们", "你们", "您们", "他们", "她们", "它们", "咱们", "i",
                       "we", "you", "he", "she", "they"})
# structural particles that tie a word to what follows (的 a modifier, 地 a manner, 得 a degree)
_PARTICLES_AFTER = frozenset("的地得")
# "I" and its contractions are capitalised without being names
_PRONOUN_I = frozenset({"I", "I'm", "I'll", "I've", "I'd", "I’m", "I’ll", "I’ve", "I’d"})


class LossyTier(NamedTuple):
    """The lossy words in selection order — block by block, increasing loss per token within a block — as
    columns.  ``group_first``/``group_last`` are each word's display groups (inclusive), ``block`` its text
    block (see ``select.select_prefix_stable``)."""

    starts: np.ndarray
    ends: np.ndarray
    words: tuple[str, ...]
    group_first: np.ndarray
    group_last: np.ndarray
    cost: np.ndarray
    loss: np.ndarray
    block: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)


def lossy_tier(ann: Annotated) -> LossyTier:
    """The lossy words of an annotation (see the module docstring)."""
    view = ann.view
    text = view.text
    g_start, g_end = ann.g_start, ann.g_end
    free = (ann.g_prot == 0) & (ann.g_span < 0)
    if len(ann.tok_group):
        directive_groups = np.zeros(len(g_start), dtype=bool)
        directive_groups[ann.tok_group[ann.tok_directive]] = True
        free &= ~directive_groups
    g_tokens = np.bincount(ann.tok_group, minlength=len(g_start)) if len(ann.tok_group) else np.zeros(0, dtype=np.int64)
    rows: list[tuple[int, int, str, int, int, int, float, int]] = []
    last = len(view.blocks) - 1
    for bi, block in enumerate(view.blocks):
        if block.end <= block.start or (block.role == "assistant" and block.msg_pos == view.blocks[last].msg_pos):
            continue  # a final assistant turn is the prefill the model continues (material: protected anyway)
        recent: list[str] = []
        for cs, ce in _segments(text, block.start, block.end, _CLAUSE_BREAK):
            line_start = text.rfind("\n", 0, cs) + 1
            line_end = text.find("\n", ce)
            if _PUNCT_LINE.match(text, line_start) or _CODE_LIKE.search(text, line_start,
                                                                        len(text) if line_end < 0 else line_end):
                continue  # a line that opens with punctuation (";; comment", "> quote"): code-like, left alone
            # the words the safe tier may take do not count: they may go too
            words = [(m.start(), m.end(), _flag_of(m)) for m in _words(text, cs, ce)
                     if not _in_candidate(ann, m.start(), m.end())]
            clause_rows: list[tuple[int, int, str, int, int, int, float, int]] = []
            prev_key = ""
            for k_word, (ws, we, flag) in enumerate(words):
                word = text[ws:we]
                key = word.lower()
                after_key, prev_key = prev_key, key
                seen = key in recent
                recent.append(key)
                if len(recent) > NEARBY_WORDS:
                    recent.pop(0)
                before, after = text[ws - 1:ws], text[we:we + 1]
                alphabetic = not _CJK_RUN.match(word)
                if (alphabetic and (before.isalnum() or after.isalnum())) or (before.isdigit() and after.isdigit()):
                    continue  # part of a longer token ("9x9", "v2beta"): no whole word
                if text[max(0, ws - 2):ws].strip()[-1:].isdigit() or text[we:we + 2].strip()[:1].isdigit():
                    continue  # next to a number: a unit or a measure word ("4 cm", 第5页) goes with its number
                if before in _OPENING_MARKS or after in _CLOSING_MARKS:
                    continue  # next to an emphasis, bracket, quote mark or hyphen: "**Cost …**" keeps "Cost",
                    # "in-depth" keeps "in"
                if alphabetic and ((word[0].isupper() and word not in _PRONOUN_I) or _opens_sentence(text, ws)):
                    continue  # a capitalised word is a name or a term ("Directional Light"), and the first word of a
                    # sentence stays so that no sentence starts in lower case
                if _NEGATION_CHARS.search(word) or key in _EN_NEGATIONS:
                    continue  # 未来, 不错, "not": a word that may carry a negation is never weighed away
                if key in _QUESTION_WORDS or key in _NEVER:
                    continue  # 如何, "how": what a question asks; must/只/all/是/"to"/帮/根据: what an instruction
                    # hinges on (its modality, scope, copula, direction, who acts, on what basis)
                if flag in _PROPER_NOUNS or (flag is not None and _compound_part(words, k_word)):
                    continue  # a name (六里桥) or a part of a noun compound (青年|餐厅, 伪|代码, 干酪|鱼): another thing
                if _first_after_marker(text, ws):
                    continue  # "- 歌词…", "### 擅长…": the item's first word (its token holds the marker's space)
                if after_key in _EN_NEGATIONS or _NEGATION_CHARS.search(after_key) or after_key in _SUBJECTS:
                    continue  # what a negation negates ("do not write" / 不解释) and the verb after its subject
                    # (我希望您 / "I want you"): without them the clause says something else or nothing
                if not alphabetic and after in _PARTICLES_AFTER and text[we + 1:we + 2] != after:
                    continue  # "经验丰富的 Java 架构师": without 经验丰富 a lone 的 would open the clause (的 itself may go)
                a = int(np.searchsorted(g_end, ws, side="right"))
                b = int(np.searchsorted(g_start, we, side="left"))
                if b <= a or not free[a:b].all():
                    continue
                if text[g_start[a]:ws].strip() or g_end[b - 1] > we:
                    continue  # a token glues this word to a neighbour: it cannot go alone
                loss = word_surprisal(word) * (0.5 if seen else 1.0) * _weight(key, flag)
                clause_rows.append((ws, we, word, a, b - 1, int(g_tokens[a:b].sum()), loss, bi))
            if len(words) < 2 or not clause_rows:
                continue  # a one-word clause ("**Note:**", "- Yes") stays whole
            # a clause keeps its most informative word, so no cut leaves punctuation, a list marker or an
            # emphasis without a word, and no turn empty
            # (the protected words it may also keep — "and", "not", a number — do not carry a clause alone)
            anchor = max(range(len(clause_rows)), key=lambda k: clause_rows[k][6])
            rows.extend(r for k, r in enumerate(clause_rows) if k != anchor)
    if not rows:
        z = np.zeros(0, dtype=np.int64)
        return LossyTier(z, z, (), z, z, z, np.zeros(0), z)
    loss_a = np.array([r[6] for r in rows])
    cost = np.array([r[5] for r in rows], dtype=np.int64)
    starts = np.array([r[0] for r in rows], dtype=np.int64)
    block_a = np.array([r[7] for r in rows], dtype=np.int64)
    order = np.lexsort((starts, loss_a / np.maximum(cost, 1), block_a))
    return LossyTier(starts[order], np.array([r[1] for r in rows], dtype=np.int64)[order],
                     tuple(rows[i][2] for i in order),
                     np.array([r[3] for r in rows], dtype=np.int64)[order],
                     np.array([r[4] for r in rows], dtype=np.int64)[order],
                     cost[order], loss_a[order], block_a[order])


def _opens_sentence(text: str, ws: int) -> bool:
    """Whether only spaces stand between the word at ``ws`` and a line start or a sentence's end."""
    k = ws
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k == 0 or text[k - 1] in "\n.!?。！？:：" or text[k - 1] == "\x00"


def _in_candidate(ann: Annotated, s: int, e: int) -> bool:
    a = int(np.searchsorted(ann.g_end, s, side="right"))
    b = int(np.searchsorted(ann.g_start, e, side="left"))
    return bool((ann.g_span[a:b] >= 0).any())


def _words(text: str, start: int, end: int) -> Iterator[re.Match[str] | _Match]:
    """Word matches in [start, end): latin words as they are, Chinese runs cut into words by jieba."""
    for m in _WORD.finditer(text, start, end):
        if not _CJK_RUN.match(m.group(0)):
            yield m
            continue
        pos = m.start()
        for w, flag in _segment(m.group(0)):
            yield _Match(pos, pos + len(w), flag)
            pos += len(w)


class _Match(NamedTuple):
    s: int
    e: int
    flag: str | None = None  # jieba.posseg's part of speech

    def start(self) -> int:
        return self.s

    def end(self) -> int:
        return self.e


def _segment(run: str) -> list[tuple[str, str]]:
    """A Chinese run cut into (word, part of speech) by jieba.posseg (``lexicon.posseg``)."""
    from .lexicon import posseg
    return posseg(run)


# --- what a word is, for the lossy tier -----------------------------------------------------------------------

# never weighed away: modality and scope (must, only, all, 必须, 只, 都), copulas and auxiliaries, prepositions of
# direction and relation ("from German to Kurdish", "with tools"), who acts for whom (帮, 让, 给, 被), on what
# basis (根据, 按照); a clause without them says something else
_NEVER = frozenset("""
must should shall can could will would may might need needs ought only all each every any both either neither
always just also even is are was were be been being am do does did have has had to from into onto with without for
between than via per against toward towards across within until before after
必须 务必 一定 应该 应当 需要 要 只 只有 仅 仅仅 都 全 全部 所有 每 每个 各 任何 自己 附近 最 更 尽量 可以 能 能够 会 是 有
请 帮 帮助 让 给 被 把 将 替 为 向 对 跟 和 与 用 以 根据 按照 依据 通过 为了 关于 对于 除非 以便 以及 并且 或者 还是
""".split())
# jieba.posseg flags of names: a person, a place, an organisation, another proper noun
_PROPER_NOUNS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})
# English words that carry grammar rather than content (the rest weigh as content)
_EN_FUNCTION = frozenset("""
a an the this that these those of in on at by as it its it's they them their there here then so very really
quite too much many more most some such and or but if when while about up out over
""".split())
# jieba.posseg flags of content words (nouns, verbs, adjectives, distinguishing words, idioms, abbreviations,
# time and place words): their loss counts three times a function word's of the same frequency
_CONTENT_FLAGS = ("n", "v", "a", "b", "i", "l", "j", "t", "s", "z")
CONTENT_WEIGHT = 3.0


def _weight(key: str, flag: str | None) -> float:
    """How much a word's surprisal understates what pruning it loses: word frequencies know nothing of parts of
    speech, so a frequent verb or noun (写, 拒绝, "message", "structure") would go as early as 的 or "the".
    Content words count ``CONTENT_WEIGHT`` times (a Chinese word by its jieba.posseg flag, an English word unless
    it is a function word)."""
    if flag is None:
        return 1.0 if key in _EN_FUNCTION else CONTENT_WEIGHT
    return CONTENT_WEIGHT if flag.startswith(_CONTENT_FLAGS) else 1.0


def _compound_part(words: list[tuple[int, int, str | None]], k: int) -> bool:
    """Whether Chinese word ``k`` and a neighbour with no gap between them form a noun compound: a noun (or a
    modifier) right before a noun, or a noun right after one (青年餐厅, 伪代码, 小吊梨汤, 干酪鱼)."""
    ws, we, flag = words[k]
    if flag is None:
        return False
    if k + 1 < len(words):
        ns, _, nflag = words[k + 1]
        if ns == we and nflag is not None and nflag.startswith("n") and flag.startswith(("n", "a", "b", "j", "t", "z")):
            return True
    if k > 0:
        _, pe, pflag = words[k - 1]
        if pe == ws and pflag is not None and pflag.startswith(("n", "j")) and flag.startswith("n"):
            return True
    return False


_MARKER_BEFORE = re.compile(rf"[ \t]*{_MARKER}[ \t]+\Z")


def _first_after_marker(text: str, ws: int) -> bool:
    """Whether the word at ``ws`` is the first of a list item or heading line ("- 歌词", "### 擅长")."""
    line_start = text.rfind("\n", 0, ws) + 1
    return ws - line_start <= 12 and _MARKER_BEFORE.match(text[line_start:ws]) is not None


def _flag_of(m: re.Match[str] | _Match) -> str | None:
    return m.flag if isinstance(m, _Match) else None
