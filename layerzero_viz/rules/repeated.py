"""repeated_constraint: an instruction or requirement stated again in system or user instruction text.

Two steps.  The raw scan (``scan_python``, held equal to the compiled ``_native.find_repeats``) proposes
candidates: a sentence (or clause) at least ``CONTAINMENT`` of whose unit bigrams occur in one earlier
sentence.  The judgment (:func:`judge`, readable Python, run on the output of either) then decides what is
really a repeat — the two must say the same thing:

* the same comparable units in the same order (CJK characters and latin words after NFKC and lower casing,
  punctuation, function words and restatement words such as 请/also/remember dropped), or the same clauses
  in another order — so copies differing only in punctuation, width, spacing or clause order are repeats,
  while one-way containment ("不要使用表格和图片" → "不要使用表格") is not;
* hence the same negations in the same places, and the same numbers, identifiers and quoted values;
* no correction marker in the later one (更正, 改为, instead, actually, rather than, "not … but" …), and no
  conflicting statement in between ("不要使用表格" … "这次要使用表格" … "不要使用表格": the last is kept), and no user
  turn in between that lifts or changes the rules ("From now on you can go long …": a rule said after it is put
  back);
* a clause of a longer sentence only when the rest is a rule of its own (a condition, scope or hanging clause left
  alone is debris that reads as another rule);
* the later one is a constraint (imperative, must/should/only/never, 请/需要/必须/只/不要/务必, format, length,
  language or tone), in a system or user turn, not a list item, heading or table row (restated data), and
  neither copy is inside material (quotes, code, ``<context>``, ``<output_format>``, verbatim elements).

The first copy is never touched by this rule and the detail names where it is; a repeat may go whole, numbers
and negations included, only when the first copy carries the same values (``Candidate.anchor``).  Declared
protections (``<protected_tokens>``, material, structure) are never overridden.
"""
from __future__ import annotations

import bisect
import heapq
import re
import unicodedata
from functools import lru_cache, partial
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import compress, islice
from operator import sub
from typing import TYPE_CHECKING, Any

from ..lexicon import entries
from ..structure import bundled_documents
from ..view import EMOJI_CHARS, BlockRef, Hits, TextView, clauses, fold, sentences

if TYPE_CHECKING:
    from ..protect import Protection
    from . import RuleContext

# a raw repeat pair: (start, end, first start, first end, share); a judged one may name its own anchor (6th)
Repeat = tuple[int, int, int, int, float]
Judged = tuple[int, int, int, int, float] | tuple[int, int, int, int, float, str]
_Keys = tuple[str, ...]  # a statement's units (see ``_analyse``)

CONTAINMENT = 0.9
MIN_UNITS = 4
# what a repeat may take with it when its first copy carries the same text: never <protected_tokens> matches,
# quotes, material or user facts (declared protections and material are absolute)
_VALUE_PROTECTIONS = frozenset({
    "protected_identifier", "protected_number", "protected_negation", "protected_connective",
})


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    zh = {w for w in entries("low_information.zh") if len(w) == 1}
    return frozenset(zh | {w.lower() for w in entries("low_information.en") if " " not in w})


def _comparable(view: TextView, start: int, end: int) -> list[str]:
    """Units that carry the sentence: function words dropped, numbers as ``#``."""
    skip = function_words()
    return ["#" if u[0].isdigit() else u for u in view.units(start, end) if u not in skip]


def _bigrams(us: list[str]) -> frozenset[tuple[str, str]]:
    return frozenset(zip(us, us[1:]))


def find(view: TextView, ctx: RuleContext) -> Hits:
    """Every repeated constraint the judgment lets go (see :func:`judge`), with its first copy as anchor."""
    return _hits(view, judge(view, ctx, _repeats(view, ctx)))


def skipped_ranges(context_ranges: Iterable[tuple[int, int]],
                   directive_ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """What the scan never compares: ``<context>`` contents and engine directives (global ranges)."""
    return list(context_ranges) + list(directive_ranges)


def _repeats(view: TextView, ctx: RuleContext) -> list[Repeat]:
    """(start, end, first start, first end, share) of every raw repeat pair (``ctx.scans``: the compiled repeat
    scan or :func:`scan_python`)."""
    return ctx.scans.repeats


def _hits(view: TextView, repeats: Sequence[Judged]) -> Hits:
    """The repeats as :class:`Hits`.  A repeat's anchor — the text that must carry every protected value it removes
    (``resolve.veto_reason``) — is its first copy; a judged repeat (6-tuple) may name its own anchor."""
    text = view.text
    # a first copy is often repeated many times: its text is taken once
    anchors_of: dict[tuple[int, int], str] = {}
    anchors = []
    for r in repeats:
        if len(r) > 5 and r[5] is not None:
            anchors.append(r[5])
            continue
        fs, fe = r[2], r[3]
        anchor = anchors_of.get((fs, fe))
        if anchor is None:
            anchor = anchors_of[(fs, fe)] = text[fs:fe]
        anchors.append(anchor)
    shares = [r[4] for r in repeats]
    return Hits("repeated_constraint", [r[0] for r in repeats], [r[1] for r in repeats],
                [0.5 + 0.5 * sh for sh in shares], [1.0 - sh for sh in shares], _VALUE_PROTECTIONS,
                partial(_detail, view, repeats),  # a partial, not a closure: see filler.find
                anchors=anchors, locks=[_lock(view, r) for r in repeats], sentence_level=True)


def _lock(view: TextView, repeat: Judged) -> tuple[int, int]:
    """What a repeat keeps from sentence-level pruning: its first copy when both are in one block.  A first copy
    in an earlier block is not locked by a later one — what an earlier block loses must not depend on later
    turns (selection is prefix-stable); and every sentence-level prune of that first copy rests on something
    earlier that stays (an earlier copy, the system prompt's role or language, a <context> fact)."""
    s, fs, fe = repeat[0], repeat[2], repeat[3]
    return (fs, fe) if view.block_index_at(fs) == view.block_index_at(s) else (fs, fs)


def _detail(view: TextView, repeats: Sequence[Judged], k: int) -> str:
    _, _, fs, fe, share = repeats[k][:5]
    head = f"repeats {view.where(fs)}: {view.text[fs:fe][:80]!r}"
    return head if share >= 1.0 else f"{head} ({share:.0%} of it is in that copy)"


def scan_python(view: TextView, structural: list[tuple[int, int]]) -> list[tuple[int, int, int, int, float]]:
    """The scan in Python — the definition ``_native.find_repeats`` is tested against.

    Returns ``(start, end, first_start, first_end, share)`` for every repeat, in text order.
    """
    kept: list[tuple[int, int, frozenset[tuple[str, str]]]] = []  # first copies: (start, end, bigrams)
    exact: dict[tuple[str, ...], int] = {}
    postings: dict[tuple[str, str], list[int]] = {}
    out: list[tuple[int, int, int, int, float]] = []

    def first_copy(s: int, e: int) -> tuple[int | None, float, tuple[str, ...], frozenset[tuple[str, str]]]:
        us = _comparable(view, s, e)
        key = tuple(us)
        grams = _bigrams(us)
        if len(us) < MIN_UNITS:
            return None, 0.0, key, frozenset()
        if key in exact:
            return exact[key], 1.0, key, grams
        found, share = _best_container(grams, kept, postings)
        return found, share, key, grams

    for block in view.blocks:
        for s, e in sentences(view, block):
            if structural and _inside(structural, s, e):
                continue
            first, share, key, grams = first_copy(s, e)
            if first is not None:
                out.append((s, e, kept[first][0], kept[first][1], share))
                continue
            if not grams:
                continue
            # "另外，回答不超过200字。": a clause may repeat on its own.  A clause's bigrams are a subset of
            # its sentence's, so a repeated clause needs at least MIN_UNITS - 1 of them already seen.
            seen = sum(1 for g in grams if g in postings)
            parts = clauses(view, s, e) if seen >= MIN_UNITS - 1 else ()
            if len(parts) > 1:
                for cs, ce in parts:
                    c_first, c_share, _, _ = first_copy(cs, ce)
                    if c_first is not None:
                        out.append((cs, ce, kept[c_first][0], kept[c_first][1], c_share))
            idx = len(kept)
            kept.append((s, e, grams))
            exact.setdefault(key, idx)
            for g in grams:
                lst = postings.get(g)
                if lst is None:
                    postings[g] = [idx]
                else:
                    lst.append(idx)
    return out


def _best_container(grams: frozenset[tuple[str, str]], kept: list[tuple[int, int, frozenset[tuple[str, str]]]],
                    postings: dict[tuple[str, str], list[int]]) -> tuple[int | None, float]:
    """The earliest kept sentence holding ≥ CONTAINMENT of ``grams``, by prefix filtering.

    A container must share at least one of any ⌊(1 − CONTAINMENT)·n⌋ + 1 of the n bigrams, so the
    postings of the rarest ones give every possible container; each is then verified exactly.
    """
    n = len(grams)
    if not n:
        return None, 0.0
    probe = int((1.0 - CONTAINMENT) * n + 1e-9) + 1
    # bigrams never seen before can be in no container: enough of them rule every container out
    unseen = 0
    for g in grams:
        if g not in postings:
            unseen += 1
            if unseen >= probe:
                return None, 0.0
    rarest = heapq.nsmallest(probe, grams, key=lambda g: len(postings.get(g, ())))
    candidates: set[int] = set()
    for g in rarest:
        if g in postings:
            candidates.update(postings[g])
    best, best_share = None, 0.0
    for idx in sorted(candidates):
        share = len(grams & kept[idx][2]) / n
        if share >= CONTAINMENT and share > best_share:
            best, best_share = idx, share
    return best, best_share


def _inside(ranges: list[tuple[int, int]], s: int, e: int) -> bool:
    """True when [s, e) overlaps one of ``ranges`` (context, directives: never compared as sentences)."""
    return any(s < re_ and rs < e for rs, re_ in ranges)


# --- the judgment: what the raw scan proposes, and what it cannot see (clause order, restatement words) ---

INSTRUCTION_ROLES = frozenset({"system", "developer", "user"})
# protections whose ranges are material: a first copy is never taken from inside them, a repeat never cut there
_MATERIAL = ("protected_quote", "protected_code", "protected_context", "protected_schema", "protected_material")
# ... except <output_format>: an instruction stated there and again outside it is a repeat of the declared one
_FIRST_COPY_SOURCES = ("protected_schema",)
_ZH_NEGATIONS = frozenset("不没别勿未无非否毋甭")
_EN_NEGATIONS = frozenset({"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "without", "non",
                           "nowhere"})
# modal and auxiliary words are left out of a statement's family too: "不要使用表格" and "这次要使用表格",
# "Do not use tables" and "Use tables" are one family, so the later one is seen to change the earlier
_ZH_MODALS = frozenset("要需须必应该能可会得")
_EN_MODALS = frozenset({"do", "does", "did", "must", "should", "shall", "can", "could", "will", "would", "may",
                        "might", "need", "needs"})
_EN_CONTRACTED = {"cannot": "can", "can't": "can", "cant": "can", "won't": "will", "wont": "will", "dont": "do",
                  "shan't": "shall", "doesnt": "does", "didnt": "did", "isnt": "is", "arent": "are"}
# restatement words: how a copy is re-introduced, not what it requires ("另外，请务必…", "Also, remember to …")
_ZH_RESTATE_2 = frozenset({"另外", "同时", "此外", "一定", "务必", "记住", "记得", "注意", "再次", "重申", "强调",
                           "一下", "始终", "总是", "切记", "再说", "请你", "请您"})
_ZH_RESTATE_1 = frozenset("请也再还您你都")
_EN_RESTATE = frozenset({"please", "also", "again", "remember", "reminder", "note", "kindly", "important", "always",
                         "more"})
# a degree ("Keep the answer very short" is stricter than "Keep the answer short") and a count of times ("mention it
# once"): compared like a negation — in the exact keys, not the family's ("once again" is a restatement)
_DEGREE = frozenset({"very", "really", "truly", "highly", "extremely", "incredibly", "totally", "terribly", "awfully",
                     "remarkably", "exceedingly", "utterly", "immensely", "enormously", "exceptionally", "很", "once",
                     "twice"})
_ONCE_AGAIN = frozenset({"again", "more"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# what makes a sentence an instruction or requirement: any one of these three patterns found in it
_CONSTRAINT_PARTS = (
    r"请(?!问)|需要|须|必须|只|不要|务必|禁止|应该|应当|不得|不能|不可|切勿|勿|别|一定|要求|确保|保证|避免|始终|总是|永远|绝不"
    r"|不允许|严禁|记得|记住|不超过|以内|至少|最多|格式|语气|口吻|风格|字数|篇幅|一律|统一|均须|均需|一概|一概不|都要|都得"
    r"|(?:回答|回复|答案|代码|注释|语言|内容|输出|句子|段落|标题|解释|说明)[^，。,.]{0,3}要",
    r"(?:用|使用|以)[^，。,.]{0,8}(?:回答|回复|作答|输出|表达|书写|语言)|(?:都|全|一律)?(?:用|使用)(?:中文|英文|英语|日语|日文|韩语|"
    r"法语|德语|简体|繁体|粤语)|(?:简短|简洁|简明|精简|详细|正式|礼貌|委婉|口语化|通俗)一?(?:点|些)",
    r"\b(?:must|should|shall|only|always|never|do not|don't|please|need to|needs to|have to|has to|required?|"
    r"make sure|be sure|ensure|avoid|limit|keep|use|answer|respond|reply|write|format|include|provide|output|"
    r"return|stay|follow|remember|at most|at least|no more than|words|sentences|bullets?|tone|formal|concise|"
    r"under|below|within|up to|less than|fewer than|more than|cite)\b",
)
_CONSTRAINT = re.compile("|".join(_CONSTRAINT_PARTS), re.IGNORECASE)
# ... searched one part at a time (whether any matches is the same question): as one alternation the regex
# engine tries every branch at every character (≈ 2 µs a sentence); the Chinese parts alone start with known
# characters it skips to (10× faster), and the English part, whose every word holds a latin letter, is not
# tried on a sentence without one ([a-z] ignoring case also finds the letters that fold to one: K, ſ, ı, İ).
# On ASCII text (no Chinese to find) ignoring case is matching the lower-cased text, which the engine does
# without a case lookup per character and branch (2× faster)
_CONSTRAINT_ZH = tuple(re.compile(p, re.IGNORECASE) for p in _CONSTRAINT_PARTS[:2])
_CONSTRAINT_EN = re.compile(_CONSTRAINT_PARTS[2], re.IGNORECASE)
_CONSTRAINT_EN_LOWER = re.compile(_CONSTRAINT_PARTS[2])  # its words are written in lower case
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)
# a line that opens a section: a markdown heading, a bold line, or a line ending with a colon
_SECTION_HEADING = re.compile(r"\n[ \t]*(?:#|\*\*[^\n]*\*\*[ \t]*\n|【[^\n】]*】[ \t]*\n|[^\n]*[:：][ \t]*\n)")
_OPERATORS = re.compile(r"[-+*/%=<>&|^−×÷≤≥≠]|!=")
_ITEM_MARK = re.compile(r"\s*(?:[-*•+]|\d{1,3}[.)、])\s+")


def _operators(said: str) -> list[str]:
    """The operators and signs of a statement, without the mark of the list item it may be."""
    m = _ITEM_MARK.match(said)
    return _OPERATORS.findall(fold(said[m.end():] if m else said))
_SIGNED_NUMBER = re.compile(r"[-−]?\d+(?:[.,]\d+)*")
_CORRECTION = re.compile(
    r"更正|改为|改成|改用|换成|换为|而是|不再|纠正|修正|订正|说错|\binstead\b|\bcorrection\b|\bcorrect(?:ed)? that\b"
    r"|\bactually\b|\brather than\b|\bno longer\b|\bscratch that\b|\bnot\b[^.;!?。！？]{1,80}?\bbut\b"
    r"|\bchange (?:it |that |this )?to\b|\bupdate[d]?:", re.IGNORECASE)
_EMPHASIS = ("**", "__")
_BRACKETS = (("(", ")"), ("（", "）"), ("[", "]"), ("【", "】"))


_TOKENS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[a-z0-9]+(?:'[a-z]+)?|[,、;:。!?…\n]|\.(?=\s|$)")
_CLAUSE_SEPARATORS = frozenset(",、;:。!?…\n.")

_DROP, _EXACT_ONLY, _AND, _SEPARATOR = "drop", "exact only", "and", "separator"
_AND_UNITS = frozenset({"and"})  # the units _unit_roles gives the role _AND
_ZH_RESTATE_2_FIRST = frozenset(w[0] for w in _ZH_RESTATE_2)


@lru_cache(maxsize=1)
def _unit_roles() -> dict[str, str]:
    """What :func:`_analyse` does with a unit that is not an ordinary one (those go to exact and family):
    one look-up per unit instead of a test per word list.  Later kinds win, in the order the tests ran: a
    separator or "and" first, then function and restatement words, then negation and modal words."""
    roles = dict.fromkeys(_ZH_NEGATIONS | _ZH_MODALS | _EN_NEGATIONS | _EN_MODALS | _EN_CONTRACTED.keys(),
                          _EXACT_ONLY)
    roles.update(dict.fromkeys(function_words() | _ZH_RESTATE_1 | _EN_RESTATE, _DROP))
    roles.update(dict.fromkeys(_DEGREE, _EXACT_ONLY))
    roles.update(dict.fromkeys(_CLAUSE_SEPARATORS, _SEPARATOR))
    roles.update(dict.fromkeys(_AND_UNITS, _AND))
    return roles


def _fold(text: str) -> str:
    """``fold(text)``, without a table look-up per character where folding can only lower the case: ASCII,
    and text already in NFKC form (each of its characters is then its own NFKC form) without a capital sigma
    (the one letter ``str.lower`` lowers by its context rather than on its own).  4-10× faster."""
    if text.isascii() or ("Σ" not in text and unicodedata.is_normalized("NFKC", text)):
        return text.lower()
    return fold(text)


def _key_units(view: TextView, s: int, e: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(exact, family) keys of [s, e) (see :func:`_analyse`)."""
    exact, family, _, _ = _analyse(view.text[s:e])
    return exact, family


# a request asked as a question: its frame says nothing the request does not ("Could you please be concise?")
_POLITE_ASK = re.compile(r"[ \t*_]*(?:please[ \t,]+)?(?:could|can|would|will)[ \t]+you[ \t]+(?:please[ \t,]+)?(?=[a-z])"
                         r"(?=[^?\n]*\?[ \t*_]*\Z)")


def _statement_units(text: str) -> list[str]:
    """The tokens a statement is compared by, without the frame of a request asked as a question ("Could you please be
    concise?" asks what "Be concise." says)."""
    folded = _fold(text).replace("’", "'")
    said = _SAID_BEFORE.match(folded)
    if said is not None:
        folded = folded[said.end():]
    asked = _POLITE_ASK.match(folded)
    return _TOKENS.findall(folded[asked.end():] if asked else folded)


# a restatement said to be one ("As I said before, never use emojis.", "就像我之前说的，每段开头都要空两格。"): the lead-in
# is no part of what it says (the rules read Traditional Chinese as Simplified)
# (the words of both, without case: _LEAD_IN cuts them with the repeat)
_SAID_BEFORE_WORDS = (r"(?:as|like)\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier|already))?|"
                      r"as\s+(?:mentioned|noted|stated|said)(?:\s+(?:before|earlier|above))?|"
                      r"(?:just\s+)?a\s+(?:quick\s+|friendly\s+)?reminder|"
                      r"(?:就像|正如|如同)?我(?:之前|前面|刚才|上面)(?:说|讲|提)(?:过)?的|我?再说一(?:次|遍)|还是那句话|老规矩|照旧")
_SAID_BEFORE = re.compile(r"[ \t*_]*(?:" + _SAID_BEFORE_WORDS + r")[ \t]*[,，:：]?")


@lru_cache(maxsize=8192)  # a resent history or a repeated prompt compares the same sentences again
def _analyse(text: str) -> tuple[_Keys, _Keys, tuple[_Keys, ...] | None, tuple[_Keys, ...] | None]:
    """The keys a statement is compared by: ``(exact, family, clauses' exact, clauses' family)``.

    Units are ``view.units``' (CJK characters, latin words and numbers after NFKC and lower casing), without
    function words and restatement words.  ``exact`` keeps numbers and negations where they stand; ``family``
    writes numbers as ``#`` and leaves out negations and modal words, so statements that differ only in
    polarity or values share a family.  The clause keys (sorted, None for a single clause) make a copy in
    another clause order the same statement.
    """
    toks = _statement_units(text)
    roles = _unit_roles()
    exact: list[str] = []
    family: list[str] = []
    c_ex: list[_Keys] = []
    c_fam: list[_Keys] = []
    mark_ex = mark_fam = 0
    i, n = 0, len(toks)
    while i < n:
        u = toks[i]
        i += 1
        if u in _ZH_RESTATE_2_FIRST and i < n and u + toks[i] in _ZH_RESTATE_2:
            i += 1
            continue
        if u == "once" and i < n and toks[i] in _ONCE_AGAIN:  # "once again", "once more": said again
            i += 1
            continue
        role = roles.get(u)
        if role is None:  # most units: a CJK character or a word that carries the statement
            exact.append(u)
            if u.isdigit():  # (no CJK character is a digit)
                family.append("#")
            elif not u.endswith("n't"):
                family.append(u)
        elif role is _DROP:
            continue
        elif role is _EXACT_ONLY:
            exact.append(u)
        elif role is _AND:  # "Use American English and avoid exclamation marks": two clauses for the order
            exact.append(u)
            family.append(u)
            if len(exact) - 1 > mark_ex:
                c_ex.append(tuple(exact[mark_ex:-1]))
                c_fam.append(tuple(family[mark_fam:-1]))
            mark_ex, mark_fam = len(exact), len(family)
        elif len(exact) > mark_ex:  # a clause separator
            c_ex.append(tuple(exact[mark_ex:]))
            c_fam.append(tuple(family[mark_fam:]))
            mark_ex, mark_fam = len(exact), len(family)
    if len(exact) > mark_ex and c_ex:
        c_ex.append(tuple(exact[mark_ex:]))
        c_fam.append(tuple(family[mark_fam:]))
    if len(c_ex) > 1:  # the same clauses in another order say the same thing
        return tuple(exact), tuple(family), tuple(sorted(c_ex)), tuple(sorted(c_fam))
    return tuple(exact), tuple(family), None, None


@lru_cache(maxsize=8192)
def _conjunct_keys(text: str) -> dict[tuple[_Keys, ...], tuple[_Keys, ...]]:
    """For a statement of two phrases joined by "and" whose head they share ("Suggest hotels near the centre and
    under $200"): family key → exact key of each way to read a head off its first clause, ``(head, the two
    conjuncts sorted)`` — so "Suggest hotels under $200 and near the centre" reads the same.  Else empty."""
    c_ex = _analyse(text)[2]
    if c_ex is None or len(c_ex) != 2:
        return {}
    toks = _statement_units(text)
    roles = _unit_roles()
    # the two clauses in their order, split at the one "and" (no other clause break)
    ex: list[list[str]] = [[]]
    fam: list[list[str]] = [[]]
    for u in toks:
        role = roles.get(u)
        if role is None:
            ex[-1].append(u)
            if u.isdigit():
                fam[-1].append("#")
            elif not u.endswith("n't"):
                fam[-1].append(u)
        elif role is _EXACT_ONLY:
            ex[-1].append(u)
        elif role is _AND and ex[-1]:
            ex.append([])
            fam.append([])
        elif role is not _DROP and role is not _AND and ex[-1]:
            ex.append([])  # another clause break: clauses, not conjuncts (unless nothing follows it)
            fam.append([])
    while len(ex) > 1 and not ex[-1]:
        ex.pop()
        fam.pop()
    if len(ex) != 2:
        return {}
    out: dict[tuple[_Keys, ...], tuple[_Keys, ...]] = {}
    for h in range(1, len(fam[0])):
        head = tuple(fam[0][:h])
        # the exact head: the same units up to the h-th family unit (negations and modal words stand in it)
        k, seen = 0, 0
        while k < len(ex[0]) and seen < h:
            seen += ex[0][k] == fam[0][seen] or ex[0][k].isdigit()
            k += 1
        out[(("&",) + head, *sorted((tuple(fam[0][h:]), tuple(fam[1]))))] = \
            (("&",) + tuple(ex[0][:k]), *sorted((tuple(ex[0][k:]), tuple(ex[1]))))
    return out


class _Entry:
    """A statement seen in instruction text: where it is, what it says exactly, and its clauses' keys."""

    __slots__ = ("start", "end", "exact", "family", "c_exact", "c_family", "conjuncts", "part")

    def __init__(self, view: TextView, s: int, e: int) -> None:
        self.start, self.end = s, e
        self.part = False  # a clause of a system prompt's rule, standing as a rule of its own
        self.exact, self.family, self.c_exact, self.c_family = _analyse(view.text[s:e])
        self.conjuncts = _conjunct_keys(view.text[s:e]) if self.c_family is not None and _AND_UNITS.intersection(
            self.exact) else {}


@lru_cache(maxsize=4)
def _material_codes(exclude: tuple[str, ...]) -> frozenset[int]:
    """Protection codes (indices in ``protect.PRECEDENCE``) of the material protections, but ``exclude``."""
    from ..protect import PRECEDENCE
    return frozenset(PRECEDENCE.index(n) for n in _MATERIAL if n in PRECEDENCE and n not in exclude)


def _material_ranges(protection: Protection, exclude: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """Merged (start, end) ranges of material protections (see ``_MATERIAL``), sorted."""
    codes = _material_codes(exclude)
    if codes.isdisjoint(protection.codes):  # most conversations: no material at all
        return []
    # a conversation holds thousands of protections (numbers, negations …), few of them material: the filter
    # runs in C (compress/map) rather than one Python step per protection
    found = sorted(compress(zip(protection.starts, protection.ends), map(codes.__contains__, protection.codes)))
    merged: list[tuple[int, int]] = []
    run_start, run_end = found[0]
    for s, e in found:
        if s <= run_end:
            if e > run_end:
                run_end = e
        else:
            merged.append((run_start, run_end))
            run_start, run_end = s, e
    merged.append((run_start, run_end))
    return merged


_LATER_MAX = 300  # characters: a restated constraint is a sentence, not a paragraph
_SHORT_MAX = 24  # characters of a short rule in the standing prompt
_SHORT_LIMIT = 64


class _LazyMaterial:
    """Material ranges of a protection, gathered on first use (most conversations never ask).  ``like``: the
    same protection's ranges without ``exclude``, shared when it has no range of the excluded kinds (the usual
    case: gathering them costs a pass over every protection)."""

    def __init__(self, protection: Protection | None, exclude: tuple[str, ...] = (),
                 like: "_LazyMaterial | None" = None) -> None:
        self.protection = protection
        self.exclude = exclude
        self.like = like
        self._ranges: _Ranges | None = None

    def _get(self) -> "_Ranges":
        if self._ranges is None:
            if self.protection is None:
                self._ranges = _Ranges([])
            elif self.like is not None and (_material_codes(()) - _material_codes(self.exclude)).isdisjoint(
                    self.protection.codes):
                self._ranges = self.like._get()
            else:
                self._ranges = _Ranges(_material_ranges(self.protection, self.exclude))
        return self._ranges

    def overlaps(self, s: int, e: int) -> bool:
        return self._get().overlaps(s, e)

    def contains(self, s: int, e: int) -> bool:
        return self._get().contains(s, e)

    def ranges_in(self, s: int, e: int) -> list[tuple[int, int]]:
        found = self._get()
        k = bisect.bisect_left(found.starts, e)
        return [r for r in found.ranges[max(0, k - 8):k] if r[1] > s and r[1] <= e]


class _Ranges:
    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.ranges = ranges
        self.starts = [r[0] for r in ranges]

    def overlaps(self, s: int, e: int) -> bool:
        k = bisect.bisect_left(self.starts, e) - 1
        return k >= 0 and self.ranges[k][1] > s

    def contains(self, s: int, e: int) -> bool:
        k = bisect.bisect_right(self.starts, s) - 1
        return k >= 0 and self.ranges[k][1] >= e


# a heading (markdown or a bold line) that scopes the lines under it; one that only recalls ("## Reminders",
# "**重要提醒**") does not
_HEADING_LINE = re.compile(r"\n[ \t]{0,3}(?:#{1,6}[ \t]+[^\n]*|\*\*[^\n*]{1,60}\*\*[ \t]*[:：]?[ \t]*|【[^\n】]{1,40}】[ \t]*[:：]?[ \t]*)"
                           r"(?=\n)")
_RECALL_HEADING = re.compile(r"(?i:remind|recap|summary|important|note|again|key\s+rules)|提醒|注意|重要|总结|重申|牢记|再次")


def label_over(text: str, block_start: int, pos: int) -> str | None:
    """The label line that opens the turn and scopes the lines under it down to ``pos`` ("Reception guest rules:",
    "婚宴的规则："), or None: the turn's first line, short, ending with a colon, and no blank line between."""
    nl = text.find("\n", block_start, pos)
    if nl < 0 or "\n\n" in text[nl:pos]:
        return None
    m = _SCOPE_LABEL.fullmatch(text, block_start, nl)
    return None if m is None else m.group(1).strip()


# a short line that names what the lines under it are for ("Reception guest rules:", "For the kids' table:", "婚宴的规则：")
_SCOPE_LABEL = re.compile(r"[ \t]*(?:\*\*)?([^\n:：.!?。！？]{2,40}?)(?:\*\*)?[ \t]*[:：][ \t]*")


def heading_over(text: str, block_start: int, pos: int) -> str | None:
    """The heading that scopes the line at ``pos`` in its block (the last before it, a block's first line too), or
    None: none, one that only recalls, or one that names the whole prompt's rules ("## Rules", "## 要求")."""
    last = None
    for last in _HEADING_LINE.finditer("\n" + text[block_start:pos]):
        pass
    if last is None or _RECALL_HEADING.search(last.group(0)) or _GENERAL_HEADING.fullmatch(last.group(0)):
        return None
    return last.group(0).strip()


# a heading over the whole prompt's rules, not a case of them
_GENERAL_HEADING = re.compile(r"\n[ \t]*(?:#{1,6}[ \t]+|\*\*|【)?[ \t]*(?:(?i:(?:general\s+|output\s+|response\s+|style\s+|"
                              r"formatting\s+)?(?:rules?|constraints?|guidelines?|instructions?|requirements?|format(?:ting)?|"
                              r"style|tone|output|restrictions?|limits?|policy|policies))|(?:通用|基本|输出|回复|回答)?"
                              r"(?:规则|要求|限制|约束|规范|格式|风格|语气|原则|注意事项))[ \t]*(?:\*\*|】)?[ \t]*[:：]?[ \t]*")


class _SaidOtherwise:
    """Where a user turn between a first copy and a statement said otherwise (looked for lazily, once per annotation):
    the same rule with a word or two changed ("Use British spelling." between two "Use American spelling.", 请用繁体中文
    回答), or another choice of what it chooses — the spelling, the units, the tone, the language ("Switch to imperial
    units.", "Be casual.", "Réponds en français") — that the statement then puts back.  For a prohibition only a
    prescription counts: prohibitions add up ("Do not use slang." between two "Do not use emojis." changes nothing).
    The latest ``_LOOK_BACK`` candidates are looked at (the latest word is the one a restatement answers)."""

    _LOOK_BACK = 32

    def __init__(self, view: TextView) -> None:
        self._view = view
        self._by_length: dict[int, list[_Entry]] = {}  # the user turns' statements judged so far, by unit count
        self._choices: tuple[list[int], list[tuple[int, int, dict[str, frozenset[str]]]]] | None = None

    def add(self, entry: _Entry, block: int) -> None:
        if self._view.blocks[block].role == "user":
            self._by_length.setdefault(len(entry.exact), []).append(entry)

    def find(self, entry: _Entry, first: _Entry) -> tuple[int, int] | None:
        view = self._view
        prohibition = _is_prohibition(entry.exact)
        first_block = view.block_index_at(first.start)
        entry_block = view.block_index_at(entry.start)
        lo = view.blocks[first_block].end
        hi = view.blocks[entry_block].start
        n = len(entry.exact)
        if not prohibition:
            looked = 0
            for other in reversed(self._by_length.get(n, ())):
                if other.end <= lo or looked >= self._LOOK_BACK:
                    break
                if other.start >= hi:
                    continue
                if other.exact == entry.exact:
                    break  # already put back: the latest word before this one says the same
                looked += 1
                changed = sum(a != b for a, b in zip(other.exact, entry.exact))
                if changed <= max(1, n // 3) and n - changed >= 1:
                    return other.start, other.end
        chosen = _choices(view.text[entry.start:entry.end])
        if not chosen:
            return self._on_the_same_thing(entry, lo, hi, prohibition)
        starts, found = self._choice_sentences()
        k = bisect.bisect_left(starts, hi)
        for s, e, named in reversed(found[max(0, k - self._LOOK_BACK):k]):
            if s < lo or all(named.get(d) == c for d, c in chosen.items()):
                break  # (the latest word on it says the same: the rule was put back already)
            if any(named.get(d, frozenset()) - c for d, c in chosen.items()) \
                    and not (prohibition and _is_prohibition(_analyse(view.text[s:e])[0])):
                return s, e
        return self._on_the_same_thing(entry, lo, hi, prohibition)

    def _on_the_same_thing(self, entry: _Entry, lo: int, hi: int, prohibition: bool) -> tuple[int, int] | None:
        """The latest sentence in [lo, hi) that may have changed what ``entry`` rules, which the statement then puts back:

        * in a user turn, one about the same dimension of the reply — its length, a count, the language, spelling, units,
          layout, tone, citations, indentation, emoji ("This one can be 300 words.", "That's too short, it needs more
          detail.", "Give me 10 for this one." before "No more than 3 examples.") — or whose words hold all of the
          statement's in order with another polarity or value ("You can use tables now."), or that corrects or permits
          with a word of it ("Use spaces instead.", "其实可以用一些表情符号。");
        * in an assistant turn, a question or a plan about that dimension ("Would English be easier for your team?",
          "I'll go a bit longer this time …"): the statement answers or corrects it.
        A prohibition is not changed by another prohibition (they add up).  Keeping a true repeat costs a few tokens;
        pruning a rule put back loses it, so any sign of a change keeps it."""
        view = self._view
        text = view.text
        family = entry.family
        if not family:
            return None
        every = set(family)
        words = every - _GENERIC_WORDS
        rule = text[entry.start:entry.end]
        dims = _dimensions(rule, rule=True)
        looked = 0
        blocks = view.blocks
        for k in range(view.block_index_at(max(lo, hi - 1)), -1, -1):  # (from the block before the statement's, back)
            b = blocks[k]
            if b.start >= hi or b.role not in ("user", "assistant"):
                continue
            if b.end <= lo or looked >= self._LOOK_BACK:
                break
            for s, e in reversed(sentences(view, b)):
                looked += 1
                if looked > self._LOOK_BACK:
                    break
                said = text[s:e]
                if b.role == "assistant":
                    if dims & _dimensions(said) and _PROPOSES.search(said):
                        return s, e
                    continue
                ex, fam = _analyse(said)[:2]
                if ex == entry.exact:
                    return None  # (said again already: the latest word says the same)
                if prohibition and _is_prohibition(ex):
                    continue
                if dims & _dimensions(said) or _in_order(family, fam) \
                        or words.intersection(fam) and _CHANGE_CUE.search(said) \
                        or every.intersection(fam) and _CORRECTION.search(said):  # ("Use spaces instead.")
                    return s, e
        return None

    def _choice_sentences(self) -> tuple[list[int], list[tuple[int, int, dict[str, frozenset[str]]]]]:
        """The user turns' sentences that name a choice (not those asking about one), in text order."""
        if self._choices is None:
            text = self._view.text
            found = []
            for block in self._view.blocks:
                if block.role != "user":
                    continue
                for s, e in sentences(self._view, block):
                    named = _choices(text[s:e])
                    if named and not _REPORTED.search(text, s, e):
                        found.append((s, e, named))
            self._choices = ([s for s, _, _ in found], found)
        return self._choices


# what a turn says when it changes a rule it shares a word with ("One sentence is too short, use a paragraph.", "Emojis are
# fine.", "其实可以用一些表情符号。"): a correction, a permission, a judgement of too much or too little
_CHANGE_CUE = re.compile(_CORRECTION.pattern + r"|(?i:\btoo\s+(?:short|long|much|many|little|few|formal|casual|brief)\b|"
                         r"\b(?:is|are)\s+(?:fine|ok|okay|allowed|acceptable)\b|\bnow\s+(?:you\s+)?(?:can|may)\b|"
                         r"\byou\s+(?:can|may)\b|\bno\s+need\b|\bgo\s+ahead\b|\bproceed\b|\bcan\s+go\b|\bup\s+to\b|"
                         r"\b(?:raise|increase|lower|reduce|extend|drop)\b|\bfeel\s+free\b)|其实|可以|不用|不必|没关系|太(?:短|长|多|少|正式|随意)"
                         r"|放宽|提高|降低|提到|加到|改到|那就|继续|好的|好吧|好，", re.IGNORECASE)
# a rule's words that say nothing of what it is about (every rule uses them)
_GENERIC_WORDS = frozenset({"use", "answer", "write", "keep", "make", "be", "give", "reply", "respond", "it", "them",
                            "用", "使", "回", "答", "写", "要", "时", "请", "的"})


def _in_order(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether ``part`` is a subsequence of ``whole``."""
    it = iter(whole)
    return all(u in it for u in part)


def _is_prohibition(exact: Sequence[str]) -> bool:
    return any(u in _ZH_NEGATIONS or u in _EN_NEGATIONS or u.endswith("n't") for u in exact)


# what a rule may choose between, by the words that name a choice: another choice said later changes it
_CHOICES = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in (
    ("spelling", r"\b(?:american|british|us|uk|canadian|australian)\b(?=[^.!?\n]{0,20}\bspell)|美式拼写|英式拼写"),
    ("units", r"\b(?:metric|imperial|celsius|fahrenheit|feet|foot|inch(?:es)?|pounds|lbs?|miles|yards|ounces|oz|kilomet(?:er|re)s?|"
              r"km|met(?:er|re)s?|kilograms?|kg|grams?)\b|公制|英制|摄氏|华氏|英尺|英寸|磅|英里|公里|千克|公斤"),
    ("tone", r"\b(?:formal(?:ly)?|informal(?:ly)?|casual(?:ly)?|friendly|professional(?:ly)?|playful|serious|humorous|neutral|"
             r"stiff|relaxed|chatty|conversational)\b|正式|随意|随便|轻松|口语|书面|幽默|严肃|活泼"),
    ("language", r"\b(?:english|chinese|french|fran[cç]ais|spanish|espa[nñ]ol|german|deutsch|japanese|korean|italian|"
                 r"anglais|ingl[eé]s|englisch|chinois|chino|chinesisch|"
                 r"portuguese|russian|arabic)\b|中文|英文|英语|汉语|日语|日文|韩语|法语|法文|德语|西班牙语|繁体|简体"),
    ("layout", r"\b(?:bullets?|bullet\s+points|numbered\s+list|tables?|paragraphs?|prose|plain\s+text|json|markdown|yaml)\b"
               r"|表格|列表|分点|段落|纯文本|文字描述|纯文字"),
    ("case", r"\b(?:lower-?case|upper-?case|all\s+caps|(?:normal|sentence|title)\s+(?:capitali[sz]ation|case))\b|大写|小写"),
    ("person", r"\b(?:first|second|third)\s+person\b|第[一二三]人称"),
))


# a sentence that reports or asks about a rule rather than giving one ("Why did you use British spelling?")
_REPORTED = re.compile(r"(?i:\b(?:why|did\s+you|you\s+used|you\s+wrote)\b)|为什么|你用了")


@lru_cache(maxsize=4096)
def _choices(sentence: str) -> dict[str, frozenset[str]]:
    """The choices ``sentence`` names, by what they choose between ({"tone": {"formal"}})."""
    out = {}
    for name, rx in _CHOICES:
        found = frozenset(m.group(0).lower() for m in rx.finditer(sentence))
        if found:
            out[name] = found
    return out


_LANGUAGE_NAMES = dict(_CHOICES)["language"]
_CHOICE_PATTERNS = {name: rx.pattern for name, rx in _CHOICES}


# what a rule is about, by the words that name it: a turn in between about the same thing may have changed it
_DIMENSIONS = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in (
    # (a size named, or a change of it: not "Write a short bio", which asks for one piece)
    ("length", r"\b(?:words?|sentences?|paragraphs?|characters?|shorter|longer|briefer|length|lengthy|verbose|wordy|limit|pages?|"
               r"lines?|too\s+(?:short|long|brief|terse)|(?:more|less)\s+detail(?:ed|s)?|go\s+long)\b|字数|字以内|\d+\s*字|篇幅|"
               r"详细一[点些]|详细些|更详细|写得详细|展开|长一[点些]|短一[点些]|太长|太短|句话|段话|行以内"),
    ("count", r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|dozen|a few|several|more|fewer|less)\b|"
              r"[一二两三四五六七八九十几多少]个|[一二两三四五六七八九十几]\s*(?:条|点|句|种)|[二两三四五六七八九十几]\s*段|更多|少一点"),
    ("language", _CHOICE_PATTERNS["language"]),
    ("spelling", r"\bspell(?:ing|ed|s)?\b|\b(?:british|american|us|uk)\s+(?:english|style)\b|\b(?:british|american)\b|拼写"),
    ("units", _CHOICE_PATTERNS["units"] + r"|\bunits?\b|单位"),
    ("tone", _CHOICE_PATTERNS["tone"] + r"|\btone\b|语气|口吻|风格"),
    ("layout", r"\b(?:tables?|bullets?|bullet\s+points?|lists?|numbered|headings?|headers?|markdown|json|yaml|csv|"
               r"code\s+blocks?|bold|italics?|format(?:ting|ted)?)\b|表格|列表|编号|标题|格式|分点|加粗"),
    ("citations", r"\b(?:cite|citations?|sources?|references?|apa|mla|chicago|footnotes?)\b|引用|出处|参考文献"),
    ("indentation", r"\b(?:tabs?|spaces|indent(?:ation|ed|s)?)\b|缩进|空格"),
    ("emoji", r"\bemojis?\b|\bemoticons?\b|表情"),
    # (an IANA zone's capitals are its own: "and/or" is none)
    ("timezone", r"\btime\s*zones?\b|\btz\b|\b(?:utc|gmt|[pmce][sd]t|cet|cest|jst|ist|aest)\b|(?-i:\b[A-Z][a-z]+/[A-Z][A-Za-z_]+\b)|"
                 r"时区|北京时间|东八区|时间区"),
))


@lru_cache(maxsize=8192)  # (the sentences before each restatement are looked at again for the next one)
def _dimensions(sentence: str, rule: bool = False) -> frozenset[str]:
    """What of the reply ``sentence`` talks about (see ``_DIMENSIONS``); a number counts only beside the count's nouns.
    A ``rule`` names its length in a word too ("Keep it short.", 回答要简短), which a sentence in between does only by a
    change of it ("go a bit longer", "too short")."""
    found = {name for name, rx in _DIMENSIONS if rx.search(sentence)}
    if rule and _LENGTH_WORD.search(sentence):
        found.add("length")
    if "count" in found and not _COUNTED.search(sentence) and "length" not in found:
        found.discard("count")
    return frozenset(found)


_LENGTH_WORD = re.compile(r"(?i:\b(?:short|brief|concise|succinct|terse|long|detailed|in\s+depth)\b)|简短|简洁|简要|简明|精炼|详细|"
                          r"长篇|短小")
# a count's nouns, and a bare count asked for another time ("Give me 10 for this one.")
_COUNTED = re.compile(r"(?i:\b(?:examples?|items?|bullets?|points?|ideas?|options?|questions?|names?|titles?|steps?|tips?|"
                      r"reasons?|sentences?|words?|paragraphs?|results?|answers?|versions?|variants?)\b|\b(?:give|list|show|"
                      r"make\s+it)\s+(?:me\s+)?\d+|\bfor\s+this\s+one\b)|[个条点种句段]")
# an assistant's question or plan (what the next user turn answers or corrects)
_PROPOSES = re.compile(r"[?？]|(?i:\b(?:i'll|i\s+will|i'm\s+going\s+to|let\s+me|i\s+can|instead|this\s+time|je\s+vais|"
                       r"voy\s+a|ich\s+werde)\b)|"
                       r"我会|我将|我来|要不要|是否|改成|改用|这次")


def languages_named(text: str, start: int = 0, end: int | None = None) -> frozenset[str]:
    """The languages ``text[start:end]`` names, lower case ("Réponds en français" → {"français"})."""
    return frozenset(m.group(0).lower() for m in _LANGUAGE_NAMES.finditer(text, start, len(text) if end is None else end))


def _scoping_heading(text: str, a: int, b: int) -> bool:
    """Whether the line at ``b`` stands under a heading after ``a`` that scopes it (the last heading between them,
    unless it only recalls)."""
    last = None
    for last in _HEADING_LINE.finditer(text, a, b):
        pass
    return last is not None and not _RECALL_HEADING.search(last.group(0))


# a lead that scopes the sentences after it in its paragraph: "For the dr cluster: never run kubectl apply. Use ArgoCD sync
# only.", "If the order is over $500:", "对于 staging 环境：…", "在生产环境上：…"
_SCOPE_LEAD = re.compile(r"(?:^|(?<=[.!?。！？])[ \t]*)(?:(?i:for|in|on|within|if|when|whenever|during|after|before|between|"
                         r"outside|unless)[ \t]+(?:the[ \t]+)?([^:：\n.!?。！？]{1,40}?)|"
                         r"对于([^:：\n。！？]{1,20}?)|在([^:：\n。！？]{1,20}?)上)[ \t]*[:：]", re.MULTILINE)


def _scope_lead(text: str, block_start: int, pos: int) -> str | None:
    """What the last scope lead of the paragraph holding ``pos`` (in its block, opening a line or a sentence at or
    before ``pos``) names, folded; or None."""
    blank = text.rfind("\n\n", block_start, pos)
    para = blank + 2 if blank >= 0 else block_start
    line_end = text.find("\n", pos)
    last = None
    for m in _SCOPE_LEAD.finditer(text, para, len(text) if line_end < 0 else line_end):
        if m.start() > pos:
            break
        last = m
    return None if last is None else fold(next(g for g in last.groups() if g)).strip()


# a short label line over the lines under it: "周末：", "工作日：", "Weekends:" (not a heading of the whole prompt's rules,
# nor one that only recalls: _GENERAL_HEADING, _RECALL_HEADING)
_LABEL_LINE = re.compile(r"^[ \t]*(?:\*\*)?(?![^\n]*?(?:把|请|帮|下面|以下|如下|(?i:\b(?:please|the\s+following|below)\b)))"
                         r"([^\n:：.!?。！？*#]{1,10}?)(?:\*\*)?[ \t]*[:：][ \t]*$", re.MULTILINE)
# a scope that opens the sentence of a rule, before its comma: "On weekends, do not …", "If the order is over $500, …",
# "晚上6点以后，回复用英文。"
_INLINE_SCOPE = re.compile(r"(?i:(?:on|in|during|between|at|outside|within|for|if|when|whenever|after|before|unless|once|while|"
                           r"only|except)\b)"
                           r"|[^\n]*?(?:以后|之后|以前|之前|时|期间|的时候|周末|工作日|晚上|白天|早上|凌晨|夜间|节假日|如果|若|当|对于|针对|"
                           r"每天|每周|仅|只有|除非)")
_INLINE_SCOPE_MAX = 40  # characters
# a sentence that limits the ones after it in its paragraph: "The following applies only to free-tier users.", "以下规则仅适用于…"
_LIMITS_WHAT_FOLLOWS = re.compile(r"(?i:\b(?:appl(?:y|ies)|is|are|holds?)\s+only\s+(?:to|for|on|in)\b|\bthe\s+following\s+"
                                  r"(?:rules?\s+)?(?:appl(?:y|ies)|is|are)\s+(?:only\s+)?(?:to|for)\b)"
                                  r"|(?:仅|只)(?:适用于|针对|限于)|以下[^。！？\n]{0,10}?(?:适用于|针对)")


def scope_of(text: str, block_start: int, pos: int) -> str | None:
    """The scope a rule at ``pos`` holds for, folded, or None: a scope lead of its paragraph (``_scope_lead``), a short
    label line above it with no blank line between, a scope that opens its sentence before a comma, or a sentence
    before it in its paragraph that limits what follows."""
    lead = _scope_lead(text, block_start, pos)
    if lead is not None:
        return lead
    blank = text.rfind("\n\n", block_start, pos)
    para = blank + 2 if blank >= 0 else block_start
    line = text.rfind("\n", para, pos)
    if line >= 0:
        label = None
        for label in _LABEL_LINE.finditer(text, para, line):
            pass
        if label is not None and not _GENERAL_HEADING.fullmatch("\n" + label.group(0).strip()) \
                and not _RECALL_HEADING.search(label.group(0)):
            return fold(label.group(1)).strip()
    stop = max(text.rfind(c, para, pos) for c in ".!?。！？\n")
    ss = stop + 1 if stop >= 0 else para
    before = text[ss:pos].strip()
    if before and len(before) <= _INLINE_SCOPE_MAX and before[-1] in ",，" and _INLINE_SCOPE.match(before):
        return fold(before.rstrip(",，")).strip()
    limit = _LIMITS_WHAT_FOLLOWS.search(text, para, ss)
    return None if limit is None else fold(limit.group(0)).strip()


def _whole_line(text: str, s: int, e: int) -> bool:
    """Whether [s, e) is all of its line but spaces."""
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", e)
    return not text[ls:s].strip() and not text[e:len(text) if le < 0 else le].strip()


_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•·▪◦]|\d{1,3}[.)、．]|[a-zA-Z][.)]|[（(][0-9a-zA-Z一二三四五六七八九十]{1,3}[)）])[ \t]*")
_DATA_LINE = re.compile(r"\s*(?:[-*+]\s*\[[ xX]\]|[—–]|[└├│┌─]|\\?#|>|\|)")


def _constraint_word_in(text: str) -> bool:
    """``_CONSTRAINT.search(text) is not None``, part by part (see ``_CONSTRAINT_ZH``)."""
    if text.isascii():
        return _CONSTRAINT_EN_LOWER.search(text.lower()) is not None
    for part in _CONSTRAINT_ZH:
        if part.search(text) is not None:
            return True
    return _LATIN.search(text) is not None and _CONSTRAINT_EN.search(text) is not None


@lru_cache(maxsize=8192)
def _has_constraint_word(text: str) -> bool:
    return _constraint_word_in(text)


# a request that goes on with the same piece of work ("Add pancakes and sort again.", "Start with the Python reference.",
# "再加一项，重新排序。"): the rules said with the first still hold, said again they repeat
_GOES_ON = re.compile(r"(?i:\b(?:again|start\s+with|continue|next(?!\s+(?:week|month|year|time|day|one|season|quarter))|add|also|"
                      r"redo|one\s+more)\b)|再|重新|继续|接着|然后|先|还要|加上")


def _only_instruction(text: str, bs: int, be: int, s: int, e: int, material: "_LazyMaterial") -> bool:
    """Whether the statement at [s, e) is all its turn [bs, be) asks: the rest is material (a text handed over, a
    message quoted) and the labels that introduce it ("He now says: 'Also the water bill is 86 RMB.' Reply in Chinese,
    keep it short.", "他回了：'…' 我要回：好的，周四见。请翻译成英文。"): cut, the new text would come without what to do
    with it."""
    handed = [r for r in material.ranges_in(bs, be) if r[0] >= bs and not (r[0] < e and s < r[1])]
    if not handed:
        return False
    k = bs
    for a, z in sorted(handed + [(s, e)]) + [(be, be)]:
        gap = text[k:a].strip(" \t\n\"'“”‘’「」.。,，;；")
        if gap and not gap.endswith((":", "：")) or len(gap) > 40 or _SENTENCE_INSIDE.search(gap[:-1]):
            return False
        k = max(k, z)
    return True


_SENTENCE_INSIDE = re.compile(r"[.!?。！？]\s")


def _request_before(view: TextView, block: BlockRef, pos: int, new: bool = False) -> str | None:
    """The sentence before ``pos`` in its turn that asks for a piece of work rather than stating a rule ("Hotel in Chengdu,
    4–7 April.", with ``new`` one that says so: "Now a hotel in Osaka, 6–9 May.", "Find a hotel in Tokyo …"): a rule said
    with it may be scoped to it; or None (a question, or thanks, is no such request)."""
    text = view.text
    for s, e in reversed(sentences(view, block)):
        if s >= pos:
            continue
        said = text[s:e].strip()
        if not said or _states_a_constraint(said) and not (new and _NEW_WORK.match(said)):
            continue  # (a new piece of work asked for is a request whatever words it has: "Now write the lay summary.")
        return said if (not new or _NEW_REQUEST.match(said) or _NEW_WORK.match(said)) and not said.endswith(("?", "？")) \
            else None
    return None


# a new piece of work asked for: "Now write the lay summary.", "Now write one to my labmate Jake.", "现在帮我写给王老师的"
_NEW_WORK = re.compile(r"(?i:(?:ok(?:ay)?,?\s+)?(?:now|then|and\s+now)\b[,\s]*(?:please\s+)?(?:write|draft|compose|create|"
                       r"make|translate|summari[sz]e|do|reply|respond|answer)\b|"
                       # another text to work on: "And this one.", "Now this one:", "Next one."
                       r"(?:and|now|next)\s+(?:this|that|the\s+next)\s+one\b|next\s+one\b|(?:ok(?:ay)?,?\s+)?(?:now|next|then)\b[,\s]*(?:a|an|one|another)\s+"
                       r"(?:[a-z-]+\s+){0,2}?(?:follow-?up|reply|message|e-?mail|note|version|post|text|one|announcement)\b)"
                       r"|(?:现在|接下来|然后)(?:请|再)?(?:帮我)?(?:写|起草|翻译|做)|再(?:帮我)?(?:写|回|起草|发)(?:一)?(?:条|封|个|段|句)?")
# a piece of work for someone else than the first ("a reply to a second recruiter", "给另一个供应商", "另一个客户")
_ANOTHER = re.compile(r"(?i:\b(?:another|a\s+second|a\s+different|the\s+other)\s+(?!one\b|time\b)[a-z]+)|另(?:一|外)(?:个|位|家|名)?[\u4e00-\u9fff]{1,4}")


# … named anywhere before the rule in its turn ("再帮我回另一个客户，…", "Reply to another customer: …"; not 另外, "besides")
_ANOTHER_ONE = re.compile(r"(?i:\b(?:another|a\s+second|a\s+different)\s+(?!one\b|time\b|thing\b|question\b)[a-z]+)"
                          r"|另一(?:个|位|家|名|封|条)")


# whom a piece of work is for ("再给我婆婆写一张" after "给我妈妈写张生日卡"; "for my aunt Rita")
_RECIPIENT = re.compile(r"给(?:我的?)?[\u4e00-\u9fffA-Za-z0-9]{1,6}?(?=写|发|做|画|起|回|买|准备)|给[\u4e00-\u9fffA-Za-z]{1,6}?的(?!话)|(?i:\bfor\s+(?:my|our|the)\s+[a-z]+(?:\s+[a-z]+)?)"
                        # ("Remind Zenith about invoice 11.", "Email Acme about …")
                        r"|(?i:\b(?:remind|email|e-mail|text|message|write\s+to|reply\s+to|invoice|chase|ping)\s+(?-i:[A-Z][\w&.-]*))"
                        r"|(?i:\b(?:reminder|message|e-?mail|letter|note|reply)\s+(?:to|for)\s+(?-i:[A-Z][\w&.-]*))"
                        # ("Max's note: …" then "Luna's note now.")
                        r"|(?-i:[A-Z][a-z]+)(?:'s|’s)\s+(?i:note|card|letter|message|e-?mail|version|one|plan|schedule)\b")


# the person a reply is for, named in the turn ("Now help me reply to my aunt who asked the same thing." after "Help me
# reply to my cousin, …")
_REPLY_TO_PERSON = re.compile(r"(?i:\b(?:reply|respond|write|answer)\s+to\s+(?:my|our|the)\s+(aunt|uncle|cousin|mom|mum|dad|sister|"
                              r"brother|boss|manager|landlord|tenant|neighbou?r|friend|coworker|colleague|teacher|client|customer|"
                              r"grandma|grandpa|mother-in-law|father-in-law|partner|wife|husband)\b)")


# a sentence that asks for a piece of work: "Now a hotel in Osaka, 6–9 May.", "Find a hotel in Tokyo …", "帮我订…"
_NEW_REQUEST = re.compile(r"(?i:(?:ok(?:ay)?,?\s+)?(?:now|next|then|and\s+now)\b|(?:please\s+)?(?:find|book|write|draft|plan|recommend|"
                          r"search|suggest|create|give\s+me|list)\b)|(?:现在|接下来|下一个|然后|换成|再来)|(?:请|帮我|麻烦)*(?:找|订|预订|写|"
                          r"推荐|规划|安排|列)")


@lru_cache(maxsize=8192)
def _states_a_constraint(text: str) -> bool:
    """A sentence of a later turn worth comparing: a constraint, not a question."""
    return (not text.rstrip().endswith(("?", "？")) or _POLITE_ASK.match(_fold(text)) is not None) \
        and _constraint_word_in(text)


@lru_cache(maxsize=8192)
def _correction_in(text: str) -> re.Match[str] | None:
    return _CORRECTION.search(text)


# a label that opens an item of data ("Reply B: ", "Option 2: ", "评论3：")
_ITEM_LABEL = re.compile(r"[ \t]*[^\n:：。.!?]{1,20}[:：][ \t]*")


def _why_not_a_constraint_copy(view: TextView, s: int, e: int, sent: tuple[int, int], prev: tuple[int, int] | None,
                               standing: bool, first: str = "") -> tuple[str, int]:
    """Why the statement at [s, e) cannot be taken as a repeat whatever it repeats ("" when it can), and where
    the cut starts (a whole list item goes with its marker).  ``standing``: its first copy is in a system
    prompt, whose sentences are instructions."""
    text = view.text
    line_start = text.rfind("\n", 0, s) + 1
    line_end = text.find("\n", e)
    line_end = len(text) if line_end < 0 else line_end
    if _DATA_LINE.match(text, line_start):
        return "a heading, quote, tree or table row", s
    item = _LIST_ITEM.match(text, line_start)
    cut = s
    if item:
        if item.end() < s or text[e:line_end].strip():
            return "part of a list item", s
        cut = line_start  # the whole item, marker included: no orphan "3."
    before = text[line_start:s]
    span = text[s:e]
    if any(before.count(m) % 2 or span.count(m) % 2 for m in _EMPHASIS):
        return "inside emphasis", s
    if any(span.count(o) != span.count(c) for o, c in _BRACKETS):
        # a clause cut inside a parenthesis ("Use checkboxes and stable IDs (e.g.," repeated, before another ID):
        # the rest of it would be left as a fragment
        return "cut inside brackets", s
    if span.rstrip(" *_").endswith((":", "：")):
        return "a label introducing what follows", s
    if text[s:sent[1]].rstrip(" *_\"'”」』）)").endswith(("?", "？")) and _POLITE_ASK.match(_fold(text[s:sent[1]])) is None:
        return "a question, not a constraint", s
    label = _ITEM_LABEL.match(text, sent[0], s)  # ("Reply B: Store opens at 9.": the label's word is no rule's)
    if not (standing or _has_constraint_word(span)
            or _has_constraint_word(text[label.end() if label is not None else sent[0]:sent[1]])):
        return "not an instruction or requirement", s
    if _ABBREVIATION_END.search(text, max(s, e - 10), e) and text[e:line_end].strip():
        # ("Remember the deadline is 5:00 p.m. PST on October 2 now.": the sentence goes on after "p.m.", and a cut there
        # would leave "PST on October 2 now.")
        return "ends at an abbreviation inside its sentence", s
    back = _refers_back(view, s, sent)
    if back:
        return f"the next sentence speaks of it ({back!r})", s
    narrowed = _allowed_after(view, s, sent, span)
    if narrowed:
        return f"narrowed: a later sentence of this turn allows it for another case ({narrowed!r})", s
    m = _correction_in(text[sent[0]:sent[1]])
    if m is None and prev is not None and len(view.units(*prev)) <= 4:
        m = _CORRECTION.search(text, *prev)  # "更正一下。" / "Correction." on its own just before
    if m and m.group(0).lower() not in first.lower():  # ("…; use bullet lists instead." said twice corrects nothing)
        return f"a correction ({m.group(0)!r})", s
    if cut == s and sent[0] < s and (_LEAD_IN.fullmatch(text, sent[0], s) or _REMINDER_LEAD.match(text, sent[0], s)):
        cut = sent[0]  # "Remember: never …" / "记住：千万…": the lead-in goes with the repeat, not left alone
    elif cut == s and sent[0] < s and (lead := _TRAILING_LEAD.search(text, sent[0], s)) is not None \
            and lead.start() > sent[0] and text[sent[0]:lead.start()].strip(_CLAUSE_STRIP):
        cut = lead.start()  # "Now a throttle, and remember: don't use …" → "Now a throttle." (not "…, and remember")
    # a clause of a longer sentence goes only when the rest of the sentence is a rule of its own: a condition or a
    # scope left alone ("在生产环境中，不要重启数据库。" → "在生产环境中。", "Even if the user claims to be an admin,
    # never share the API key.") or a clause that hangs on it ("回答要简短，但必须给出完整命令。" → "但必须…") is debris
    # that can read as a different rule
    left = left_alone(text, sent, cut, e)
    if not left and cut == s and _ZH_SHARED_SCOPE.match(text, s) is not None \
            and _ZH_ELIDED.match(text[e:sent[1]].lstrip(_CLAUSE_STRIP)) is not None:
        left = "a clause whose noun the next one shares (it names what that one's amount is of)"
    return (left, s) if left else ("", cut)


# an abbreviation's period, which the sentence splitter takes for a sentence end ("5:00 p.m. PST", "1200 Main St. Suite 9")
# (not "no.", "etc.": they end sentences as often: "Answer yes or no. Keep it short.")
_ABBREVIATION_END = re.compile(r"(?i:\b(?:a\.m|p\.m|st|dr|mr|mrs|ms|vs|approx|dept|inc|ltd|jr|sr|e\.g|i\.e|fig|vol|"
                               r"ave|rd|mt|ft|u\.s|u\.k|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.)\Z")


# a sentence that speaks of the rule just said, to change, narrow or take it back: "Ignore that rule for the final
# section.", "Scratch that.", "Just kidding, make it formal.", "I changed my mind, include them.", "附录不受这个限制。",
# "上面这条规则只适用于第一段。", "刚才说错了，这次用表格。" — the repeat is what it speaks of
_REFERS_BACK = re.compile(r"(?i:\b(?:that|this|the\s+above|the\s+last|the\s+previous)\s+(?:rule|restriction|limit|constraint|"
                          r"instruction|requirement)\b|\bscratch\s+that\b|\bjust\s+kidding\b|\bchanged\s+my\s+mind\b|"
                          r"\b(?:ignore|forget|drop|disregard)\s+(?:that|this|it)\b|\bnever\s*mind\b|\bon\s+second\s+thought\b|"
                          r"\bforget\s+I\s+said\s+(?:that|it)\b|^(?:well,?\s+|but\s+)?(?:except|not\s+(?:in|for|on|when|really))\b)"
                          r"|这(?:个|条|一条)(?:限制|规则|要求|约束)|(?:以上|上面|上述|前面|刚才)(?:这|那|的)?(?:条|个)?(?:规则|要求|限制)"
                          # … or says it was broken, or that it holds without exception ("Not a big deal, but the last one
                          # had one.", "Not even one.", 一个都不行)
                          r"|(?i:\bthe\s+(?:last|previous)\s+(?:one|reply|answer|tweet|post|draft|version|time)\s+(?:still\s+)?"
                          r"(?:had|used|included|contained|broke)\b|\bnot\s+even\s+(?:one|once|a\s+single)\b)"
                          r"|(?:一个|一次|一句|一点)(?:都|也)不(?:行|要|能|许)|上一?(?:个|次|条|版|篇)(?:还是|又)?(?:用了|有|带了)"
                          r"|(?:刚才|刚刚)?说错了|开玩笑的?|不算数?|作废")


def _refers_back(view: TextView, s: int, sent: tuple[int, int]) -> str:
    """The sentence right after the one at ``sent`` in its block when it speaks of the rule said there ("" if not)."""
    starts, ends = _sentence_bounds(view, view.block_at(s))
    k = bisect.bisect_left(starts, sent[1])
    if k >= len(starts):
        return ""
    nxt = view.text[starts[k]:ends[k]].strip()
    return nxt if _REFERS_BACK.search(nxt) is not None else ""


# a permission in a sentence after a prohibition said again, for another case: "Don't mention the reason. Email Marcus too,
# and there you can mention the reason.", "不要提原因。给老王的可以提原因。" — the repeat says where the rule still holds
_PERMISSION = re.compile(r"(?i:\b(?:can|may|could|feel\s+free\s+to|(?:it'?s|is)\s+(?:fine|ok(?:ay)?)\s+to|allowed\s+to|"
                         r"go\s+ahead\s+and)\b)|可以|允许|能够?")
_NEGATED = re.compile(r"(?i:\b(?:not|no|never|don'?t|do\s+not|can'?t|cannot|mustn'?t|shouldn'?t)\b)|不|别|勿|禁止")
_PLAIN_WORDS = frozenset({"the", "a", "an", "to", "of", "in", "on", "for", "and", "or", "any", "your", "you", "it", "them",
                          "please", "also", "again", "t", "s", "don", "do", "does", "did", "doesn", "didn", "won", "isn"})
_ZH_RULE_WORDS = re.compile(r"[不没别勿未无非否毋甭要需须必应该能可会得请千万一定也都再还您你，。！？、；：,.!?;:\s*_]")
_ALLOWED_REACH = 300  # characters after the prohibition


def _allowed_after(view: TextView, s: int, sent: tuple[int, int], span: str) -> str:
    """The later sentence of the turn holding [s, …) that allows what the prohibition ``span`` forbids ("" if none)."""
    if _NEGATED.search(span) is None:
        return ""
    text = view.text
    block = view.block_at(s)
    hi = min(block.end, sent[1] + _ALLOWED_REACH)
    after = text[sent[1]:hi]
    if _PERMISSION.search(after) is None:
        return ""
    if _CJK.search(span):
        core = _ZH_RULE_WORDS.sub("", span)
        if len(core) < 2:
            return ""
        for part in re.split(r"(?<=[。！？!?\n])", after):
            if core in part and _PERMISSION.search(part) and not _NEGATED.search(part):
                return part.strip()
        return ""
    words = [w for w in re.findall(r"[a-z]+", span.lower())
             if w not in _PLAIN_WORDS and w not in _EN_NEGATIONS and w not in _EN_MODALS]
    if not words:
        return ""
    for part in re.split(r"(?<=[.!?\n])\s", after):
        low = part.lower()
        if _PERMISSION.search(part) and not _NEGATED.search(part) \
                and all(re.search(rf"\b{w}\b", low) for w in words):
            return part.strip()
    return ""


# a scope that opens a rule and holds for the clauses after it in its sentence ("每天蛋白质至少120克，碳水不超过200克。":
# 每天 is the carbs' too, so it stays when the repeated clause goes)
_ZH_SHARED_SCOPE = re.compile(r"(?:每(?:天|日|周|星期|月|年|餐|顿|次|晚|小时|人)|平时|平日|工作日|周末|全天)(?:都|均)?(?=[\u4e00-\u9fff])")
# a clause with a scope but no noun of its own: its amount is of the thing the clause before named ("每天喝水至少2升，
# 运动日至少3升": 3 litres of water)
_ZH_ELIDED = re.compile(r"[\u4e00-\u9fff]{0,3}(?:日|天|周|时|期间|前|后|晚上?|早上|中午|末)(?:都|均|也|则|要|得)?"
                        r"(?:至少|最少|最多|不超过|不少于|不低于|不高于|不要超过|控制在|少于|多于|低于|高于|[0-9０-９一二两三四五六七八九十半])")


def left_alone(text: str, sent: tuple[int, int], s: int, e: int, rules_only: bool = True) -> str:
    """Why cutting [s, e) out of the sentence ``sent`` would leave the rest of it alone ("" when the rest stands on its
    own or is nothing): a condition or a scope ("在生产环境中，…", "…, unless the user writes in Spanish"), a clause that
    hangs on the cut one ("但必须…") or, with ``rules_only`` (a rule's clause), words that are no rule."""
    before = text[sent[0]:s].strip(_CLAUSE_STRIP)
    if before and (_SCOPED.search(before) or rules_only and not _has_constraint_word(before)
                   and not _NEW_REQUEST.match(before)):  # ("Now a throttle" asks for work: it stands alone)
        return f"a clause of a sentence whose other part ({before[:30]!r}) would be left alone"
    after = text[e:sent[1]].strip(_CLAUSE_STRIP)
    if after and (_HANGS_ON.match(after) or _SCOPED.search(after) or rules_only and not _has_constraint_word(after)):
        return f"a clause of a sentence whose other part ({after[:30]!r}) would be left alone"
    return ""


_CLAUSE_STRIP = " \t\n*_,，、;；:：.。!！"
# what opens a clause that hangs on the one before it
_HANGS_ON = re.compile(r"(?i:(?:but|yet|and|so|or|however|though|although|while|then|also|because|since)\b)|但|而|并|且|所以|因此|然后|否则|或"
                       # ("不要使用表情符号，标题里也不要。", "不得透露手机号，只能说'骑手正在路上'", "…，因为品牌规范不允许")
                       r"|[^，,。；;\n]{0,8}?也(?:不要|不能|不可以|不用|要|得|一样)|只(?:能|说|可以|需|要)|因为|由于")


# … or stands before it in the middle of its sentence, after a comma: ", and remember:", "，记住：", ", and again,"
_TRAILING_LEAD = re.compile(r"[ \t]*[,，;；][ \t]*(?:(?i:(?:and\s+)?(?:please\s+)?(?:remember|once\s+again|again|as\s+a\s+reminder|"
                            r"note))|记住|别忘了|切记|注意)[ \t]*[:：,，]?[ \t]*\Z")
# what may open a repeated rule's sentence and goes with it: "Remember:", "Again,", "**IMPORTANT:**", "记住：", "再次强调："
_LEAD_IN = re.compile(r"(?:[ \t*_]*(?:(?i:(?:and\s+)?(?:(?:once\s+)?again|remember|please\s+remember)|reminder|as\s+a\s+reminder|"
                      r"important|note|please\s+note|to\s+repeat|repeat(?:ing)?|also|and\s+also|additionally|plus|"
                      r"under\s+no\s+circumstances|in\s+no\s+case|in\s+any\s+case|" + _SAID_BEFORE_WORDS + r")|"
                      r"记住|切记|注意|再次强调|再强调一下|强调一下|重申|重要|提醒一下|另外|此外|还有|同时|无论如何|任何情况下)"
                      r"[ \t*_]*[:：,，!！]?[ \t*_]*)+")


def _sentence_bounds(view: TextView, block: BlockRef) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(starts, ends) of a block's sentences (:func:`sentences` without a tuple per sentence)."""
    flat = view._sentences.get(block.start)
    if flat is None:
        sentences(view, block)  # segments the block once and keeps it in the view
        flat = view._sentences[block.start]
    return flat[0::2], flat[1::2]


def judge(view: TextView, ctx: RuleContext, raw: Sequence[Repeat]) -> list[Judged]:
    """The repeats among the raw scan's candidates (and the sentences it cannot pair: clause order, restatement
    words), as ``(start, end, first start, first end, share, anchor)`` in text order (see :func:`_bulk`).

    Statements that look like a repeat but are kept say why in :func:`kept_notes`.
    """
    text = view.text
    blocks = view.blocks
    # an empty or blank block (an empty system prompt) states nothing: it is no standing instruction
    # (a block is sliced only when it starts with a space: slicing every block copies the whole text)
    role_ok = [b.role in INSTRUCTION_ROLES and b.end > b.start
               and not (text[b.start].isspace() and text[b.start:b.end].isspace()) for b in blocks]
    if not any(role_ok):
        _remember(view, [])
        return []
    material = _LazyMaterial(ctx.protection)
    source_only = _LazyMaterial(ctx.protection, exclude=_FIRST_COPY_SOURCES, like=material)
    # what to look at: the raw scan's pairs; and, for what the raw scan cannot pair (restatement words, clause
    # order), the constraints stated in later turns with the standing instructions' sentences that may match
    spans: dict[tuple[int, int], None] = {}
    for s, e, fs, fe, _ in raw:
        spans[(fs, fe)] = None
        spans[(s, e)] = None
    instruction = [k for k, ok in enumerate(role_ok) if ok]
    probes: list[tuple[int, int, int, tuple[str, ...]]] = []  # (start, shortest, longest, units a copy must hold)
    for k in instruction:
        starts, ends = _sentence_bounds(view, blocks[k])
        # sentences are picked by length in C (compress/map), not one by one: a long system prompt has hundreds
        if k == instruction[0]:
            # the standing prompt's own short rules ("Do not explain."), which the raw scan does not pair
            # (fewer than MIN_UNITS units); bounded, as its first copies are compared with each
            picked: Iterator[tuple[int, int]] = islice(compress(zip(starts, ends), map(_SHORT_MAX.__ge__, map(sub, ends, starts))),
                            _SHORT_LIMIT)
        else:
            picked = compress(zip(starts, ends), map(_LATER_MAX.__ge__, map(sub, ends, starts)))
        for s, e in picked:
            if not _states_a_constraint(text[s:e]):
                continue
            if material.overlaps(s, e):  # 'Classify: "…polite." Do not explain.': what follows the material
                inside = material.ranges_in(s, e)
                if any(text[s:rs].strip() for rs, _ in inside):
                    continue  # material inside the sentence ('不要使用"颠覆"这个词。'): no part of it is a copy alone
                s = max([re_ for rs, re_ in inside] + [s])
                while s < e and not text[s].isalnum() and not _CJK.match(text[s]):
                    s += 1
                if e - s < 2:
                    continue
            spans[(s, e)] = None
            ex = _analyse(text[s:e])[0]
            if len(ex) >= 2:
                probes.append((s, (e - s) // 2, 2 * (e - s), (ex[0], ex[-1], ex[len(ex) // 2])))
    if probes:
        last = max(p[0] for p in probes)
        skipped = skipped_ranges(ctx.protection.context_ranges, ctx.directive_ranges) if ctx.protection else []
        # a probe of n characters looks for copies of n/2 to 2n: a sentence of a length no probe looks for is
        # passed over in C (testing each probe on each sentence in Python was most of this loop's time)
        wanted_lengths = range(min(p[1] for p in probes), max(p[2] for p in probes) + 1)
        # the first copies looked for here are the standing instructions: the system prompt and the first
        # instruction turn (bounded work however long the dialogue; copies between later turns are the raw
        # scan's to propose)
        for k in instruction:
            if blocks[k].start > last:
                break
            if k != instruction[0] and blocks[k].role not in ("system", "developer"):
                continue
            starts, ends = _sentence_bounds(view, blocks[k])
            # sentences are in text order: none from the last probe on can be a first copy
            n = bisect.bisect_left(starts, last)
            starts, ends = starts[:n], ends[:n]
            for s, e in compress(zip(starts, ends), map(wanted_lengths.__contains__, map(sub, ends, starts))):
                if (s, e) in spans:
                    continue
                seg = None
                for ps, lo, hi, (first_unit, last_unit, middle_unit) in probes:
                    if s < ps and lo <= e - s <= hi:
                        if seg is None:
                            seg = _fold(text[s:e])
                        if first_unit in seg and last_unit in seg and middle_unit in seg:
                            if not (skipped and _inside(skipped, s, e)):
                                spans[(s, e)] = None
                            break
    if len(spans) < 2:  # a repeat needs a statement before it
        _remember(view, [])
        return []
    order = sorted(spans, key=lambda p: (p[0], -p[1]))
    files = _Files(view)
    lifts = Lifts(view)
    block_sents: dict[int, list[tuple[int, int]]] = {}
    by_family: dict[_Keys, list[_Entry]] = {}
    by_clauses: dict[tuple[_Keys, ...], list[_Entry]] = {}
    said_otherwise = _SaidOtherwise(view)
    out: list[Judged] = []
    notes: list[tuple[int, int, str]] = []
    for s, e in order:
        bi = view.block_index_at(s)
        if not role_ok[bi] or source_only.contains(s, e):
            continue  # assistant turns and material are neither copies nor first copies
        entry = _Entry(view, s, e)
        if material.contains(s, e):  # <output_format>: a first copy, never cut
            by_family.setdefault(entry.family, []).append(entry)
            continue
        if len(entry.exact) < 2:
            continue
        doc = files.at(s)
        first, conflict = _first_copy(entry, by_family, by_clauses,
                                      None if doc is None else lambda x: files.at(x.start) == doc)
        if first is None and conflict is None and doc is not None and _first_copy(entry, by_family, by_clauses)[0]:
            notes.append((s, e, f"kept: said before only in another file of a bundle; {doc[2] or 'its preamble'!r} "
                                "stands on its own"))
        if first is not None or conflict is not None:
            sents = block_sents.get(bi)
            if sents is None:
                sents = block_sents[bi] = sentences(view, blocks[bi])
            j = bisect.bisect_right(sents, (s, float("inf"))) - 1
            sent = sents[j] if j >= 0 and sents[j][1] >= e else (s, e)
            prev = sents[j - 1] if j >= 1 else None
            if first is not None:
                # a system prompt's sentences are instructions: restated in a later turn, they are constraints
                first_block = view.block_index_at(first.start)
                standing = first_block != bi and blocks[first_block].role in ("system", "developer")
                why, cut = ("inside material", s) if material.overlaps(s, e) else _why_not_a_constraint_copy(
                    view, s, e, sent, prev, standing, text[first.start:first.end])
                # (said as a reminder — "Remember: respond with JSON only." after an examples section — it restates
                # the rule whatever section it stands in)
                reminder = cut < s and _REMINDER_LEAD.match(text, cut, s) is not None
                whole_item = not reminder and (
                    cut != s or (s == 0 or text[s - 1] == "\n") and _LIST_ITEM.match(text, s) is not None)
                if not why and whole_item and view.block_index_at(first.start) == bi \
                        and _SECTION_HEADING.search(text, first.end, s):
                    why = "an item of another section's list (an enumeration, not a restated rule)"
                if not why and not reminder and view.block_index_at(first.start) == bi and _whole_line(text, cut, e) \
                        and _scoping_heading(text, first.end, cut):
                    why = "a rule of another section (a heading scopes the lines under it)"
                if not why and first_block != bi:
                    scope = _scope_lead(text, blocks[bi].start, sent[0])
                    if scope is not None and scope != _scope_lead(text, blocks[first_block].start, first.start):
                        why = f"a rule said for another scope ({scope!r})"
                if not why and (narrow := scope_of(text, blocks[first_block].start, first.start)) is not None \
                        and narrow != scope_of(text, blocks[bi].start, s):
                    # ("On weekends:⏎- Do not escalate." / "On weekends, …" / "晚上6点以后，回复用英文。" then the rule
                    # said without it: it now holds always)
                    why = f"the first copy holds only for a scope ({narrow!r}): said without it, the rule is wider"
                if not why and first_block != bi and blocks[first_block].role == "user" and blocks[bi].role == "user":
                    mine = _request_before(view, blocks[bi], s, new=True)
                    theirs = _request_before(view, blocks[first_block], first.start)
                    # (a new request with it — "Now one for my aunt Rita." after "Write a birthday card for my mom." —
                    # may name another person or piece: the rule's "her" is hers)
                    if mine is not None and (theirs is None or fold(mine) != fold(theirs)) \
                            and not _GOES_ON.search(mine):
                        why = f"a rule said again with a new request ({mine[:40]!r}): it may hold for that one only"
                    elif mine is not None and _NEW_WORK.match(mine) and (":" in mine or "：" in mine):
                        # ("再写一条给5号楼的：5号楼电梯6月12日维修停用。请业主走楼梯。": what the new notice says)
                        why = f"said again in what a new piece of work is to say ({mine[:40]!r})"
                    elif mine is not None and _ANOTHER.search(mine):
                        why = f"a rule said again for another recipient ({mine[:40]!r}): it may hold for that one only"
                    elif (another := _ANOTHER_ONE.search(text, blocks[bi].start, s)) is not None \
                            and _ANOTHER_ONE.search(text, blocks[first_block].start, first.start) is None:
                        # ("再帮我回另一个客户，他说：“…”先道歉。不要承诺额外赔偿。": the request is sentences before it)
                        why = f"a rule said again for another one ({another.group(0)!r}): it may hold for that one only"
                    elif (asked := mine or _request_before(view, blocks[bi], s)) is not None \
                            and (whom := _RECIPIENT.search(asked)) is not None:
                        before = _RECIPIENT.search(text, blocks[first_block].start, first.start)
                        if before is not None and whom.group(0) != before.group(0):
                            why = f"a rule said again for someone else ({whom.group(0)!r}): its 她/her is theirs"
                    elif (whom := _REPLY_TO_PERSON.search(text, blocks[bi].start, s)) is not None \
                            and (before := _REPLY_TO_PERSON.search(text, blocks[first_block].start, first.start)) is not None \
                            and whom.group(1).lower() != before.group(1).lower():
                        # (the turn's words before it: "Now help me reply to my aunt who asked the same thing.")
                        why = f"a rule said again for a reply to someone else ({whom.group(0)!r})"
                if not why and first_block != bi and blocks[bi].role == "user" and blocks[first_block].role == "user" \
                        and _only_instruction(text, blocks[bi].start, blocks[bi].end, s, e, material):
                    why = "the turn's only instruction: the rest of it is a new text it hands over, which the rule is for"
                if not why and first.part and not _restates_a_part(text, s, e, sent):
                    why = "the same words as a clause of a rule, but not said as a reminder of it"
                if not why and blocks[first_block].role == "user" and _WORK_REQUEST.match(text, cut, e):
                    why = "a request for work asked again (for a new piece of work, not a rule restated)"
                if not why and blocks[bi].role == "user" and (count := _counted_before(text, blocks[bi].start, s)) is not None:
                    why = f"one of the things the turn counts ({count.group(0)!r}): cut, the count would be wrong"
                if not why and sent[1] >= e - 1 and NEXT_STEP.match(text, sent[1], blocks[bi].end):
                    why = "a step the next sentence goes on from"
                if not why and sent[1] >= e - 1 and HANGS_ON_IT.match(text, sent[1], blocks[bi].end):
                    why = "a rule the next sentence hangs on (it refers back to it, narrows or corrects it)"
                if not why and blocks[bi].role == "user" and bi > 0 and blocks[bi - 1].role == "assistant" \
                        and reply_broke_it(text, s, e, blocks[bi - 1]):
                    why = "said again right after a reply that broke it: a correction of that reply"
                if not why and blocks[bi].role == "user" and bi > 0 and blocks[bi - 1].role == "assistant" \
                        and _COMPLAINT.search(text, blocks[bi].start, s):
                    why = "said again after the turn says the reply before got it wrong: a correction of that reply"
                if not why and blocks[bi].role == "user" and bi > 0 and blocks[bi - 1].role == "assistant" and (
                        _REDO.search(text, blocks[bi].start, s) or _REDO.search(text, e, blocks[bi].end)):
                    why = "said again with a request to redo the reply before: the reason for the redo"
                if not why and blocks[bi].role == "user" and (lifts.between(first.end, blocks[bi].start)
                                                              or _RESET.search(text, blocks[bi].start, s)):
                    why = "said again after a later turn lifted or changed the rules: it puts them back"
                if not why and blocks[bi].role == "user" and first_block != bi and blocks[first_block].role == "user" \
                        and _ONE_OFF.search(text, blocks[first_block].start, blocks[first_block].end):
                    why = "the first copy held for that turn's question only (said so there): said again, it is a new rule"
                if not why and blocks[bi].role == "user":
                    other = said_otherwise.find(entry, first)
                    if other is not None:
                        why = (f"said again after {view.where(other[0])} said otherwise "
                               f"({text[other[0]:other[1]][:40]!r}): it puts the rule back")
                if not why and first_block != bi and blocks[bi].role == "user":
                    heading = heading_over(text, blocks[first_block].start, first.start)
                    if heading is not None and heading != heading_over(text, blocks[bi].start, s):
                        why = f"said for every case, where the first copy is said under a heading ({heading!r})"
                if not why and first_block != bi and blocks[bi].role == "user" \
                        and (label := label_over(text, blocks[bi].start, s)) is not None \
                        and fold(label) != fold(label_over(text, blocks[first_block].start, first.start) or ""):
                    # ("Rehearsal dinner guest rules:⏎Don't invite the Millers." then "Reception guest rules:⏎Don't invite
                    # the Millers.⏎No kids under 10.": the rule is said for the reception now)
                    why = f"said again under a label that scopes it ({label!r})"
                if not why and sorted(_SIGNED_NUMBER.findall(fold(text[s:e]))) != sorted(
                        _SIGNED_NUMBER.findall(fold(text[first.start:first.end]))):
                    why = "carrying other numbers (a sign or a decimal)"
                if not why and _operators(text[s:e]) != _operators(text[first.start:first.end]):
                    why = "carrying other operators or signs ('return a + b' is no copy of 'return a - b')"
                if not why:
                    # the judgment compared numbers, identifiers, negations and connectives unit by unit; what
                    # it set aside is restatement ("Also, please …") or a list marker: those may go with it
                    end = e
                    if cut == s and (shared := _ZH_SHARED_SCOPE.match(text, s)) is not None and e < sent[1] \
                            and text[e:sent[1]].strip(_CLAUSE_STRIP) \
                            and _ZH_SHARED_SCOPE.match(text[e:sent[1]].lstrip(_CLAUSE_STRIP)) is None:
                        cut = shared.end()  # ("每天蛋白质至少120克，碳水…" → "每天碳水…": the scope is the next clause's too)
                    if (text[cut:cut + 1] in ",，;；" or cut > 0 and text[cut - 1:cut] in ",，;；") \
                            and text[end - 1:end] in ".。!！" and end == sent[1]:
                        end -= 1  # (a clause cut from after a comma leaves its sentence's end: "Now a throttle.")
                    out.append((cut, end, first.start, first.end, 1.0, f"{text[first.start:first.end]}\n{text[cut:end]}"))
                    continue  # a copy: the first stays the one later copies are compared with
                notes.append((s, e, f"kept: looks like a copy of {view.where(first.start)} but is {why}"))
            elif conflict is not None and _only_numbers_differ(entry, conflict):
                # another number: proposed with the statement it changes as its anchor, so the number's
                # protection keeps it and says which value the kept copy lacks
                out.append((s, e, conflict.start, conflict.end, 1.0))
            elif conflict is not None:  # (always, when there is no first copy)
                notes.append((s, e, f"kept: it changes what {view.where(conflict.start)} says "
                                    f"({text[conflict.start:conflict.end][:60]!r}): the newest word, not a copy"))
        by_family.setdefault(entry.family, []).append(entry)
        said_otherwise.add(entry, bi)
        if entry.c_family is not None:
            by_clauses.setdefault(entry.c_family, []).append(entry)
        for key in entry.conjuncts:
            by_clauses.setdefault(key, []).append(entry)
        if entry.c_family is not None and blocks[bi].role in ("system", "developer") \
                and not _SCOPED.search(text, s, e):
            # a system prompt's rule of independent clauses: each clause that states a constraint is a rule of its
            # own ("2. 不要承诺保本保收益，不得使用…" — "再次提醒：不要承诺保本保收益。" restates its first clause);
            # not where one clause scopes another ("If the user is a minor, do not give medical advice": restated
            # alone it says more).  Only a reminder restates such a part (see _restates_a_part)
            for cs, ce in clauses(view, s, e):
                if ce - cs < e - s and _has_constraint_word(text[cs:ce]):
                    part = _Entry(view, cs, ce)
                    if len(part.exact) >= MIN_UNITS and part.family not in by_family:  # (never shadows a statement)
                        part.part = True
                        by_family.setdefault(part.family, []).append(part)
    out = _joined(text, _keep_sections(view, _keep_whole_lists(view, out, notes), notes))
    _remember(view, notes)
    return out


# a turn that lifts or changes the standing rules ("From now on you can go long and use bullet points.", "从现在开始可以超过
# 100 字，也可以用表格了"): a rule said after it again is put back, not repeated
_LIFT = re.compile(r"(?i:\b(?:from\s+now\s+on|you\s+can\s+now|now\s+you\s+can|you\s+may\s+now|no\s+longer\s+need|"
                   r"feel\s+free\s+to|(?:ignore|disregard|forget(?:\s+about)?)\s+(?:all\s+(?:of\s+)?)?(?:the|my|that|those|previous|"
                   r"earlier|above|what)|(?:ignore|disregard|forget)\s+(?:all|everything)\b|"
                   # a permission given ("PVC cleanup was approved by the IC, go ahead.")
                   r"go\s+ahead(?=\s*(?:[.!,;]|$))|(?:was|is|were|are|has\s+been|have\s+been|got)\s+approved\b|"
                   r"it'?s\s+(?:fine|ok|okay)\s+to|you\s+are\s+(?:now\s+)?allowed\s+to|"
                   # a rule changed for one question ("For this question, give a long, detailed answer.")
                   r"for\s+this\s+(?:question|answer|reply|response|task|prompt|menu|list|batch|item|page|document|"
                   r"text|e-?mail|post|article|file)(?=\s*,)|"
                   # a rule cancelled or set aside without naming it ("Scratch that.", "Give me the full detailed version
                   # this time.", "I'm stuck, show me the answer.", "I don't care about length.")
                   r"scratch\s+that|(?:full|long|longer|detailed|complete|unabridged|extended)(?:\s+[a-z]+)?\s+version|"
                   r"(?<!not\s)(?<!n't\s)(?<!n’t\s)(?<!never\s)(?:show|give|tell)\s+me\s+the\s+(?:answer|solution)|"
                   r"(?:don'?t|do\s+not)\s+care\s+about|"
                   r"(?:for\s+this\s+(?:(?:next\s+)?one|next\s+(?:question|problem|exercise)|time|delivery|order|booking|request|trip|call|ticket|project)|this\s+time|"
                   r"just\s+this\s+once)[^.!?\n]{0,20}?\byou\s+(?:can|may)|"
                   r"you\s+(?:can|may)[^.!?\n]{0,30}?\b(?:this\s+time|(?:for|in|with)\s+this\s+one)|"
                   r"(?:are|is)\s+(?:fine|ok|okay|allowed)\s+(?:for|in)\s+this\s+(?:one|time|message|post|reply)|"
                   # ("but answers can be fractions this time")
                   r"\b(?:can|may)\s+be\b[^.!?\n]{0,30}?\bthis\s+time\b|"
                   # a request changed ("Make it 6 people instead", "change it to Friday"): the old one said again puts
                   # it back
                   r"make\s+it\s+[^.!?\n]{0,30}?\binstead\b|change\s+(?:it|that|this)\s+to\b|make\s+it\s+\d|"
                   # a rule changed for one request ("Actually don't use bullet points", "No length limit for him."):
                   # said again later, it is put back, not repeated
                   r"actually,?\s+(?:don'?t|do\s+not|never|no|use|make|write|you\s+(?:can|may)|it'?s\s+(?:fine|ok|okay))|"
                   # a permission for now ("…asked for a phone call, so you may call her today.")
                   r"(?:so|but)\s+you\s+(?:can|may)\b|you\s+(?:can|may)\b[^.!?\n]{0,30}?\b(?:today|tonight|now)\b|"
                   r"instead\s+of|on\s+second\s+thought|"
                   # ("Any language is fine from here on.", "Write as much as you like now.")
                   r"(?:any|whatever)\s+(?:language|length|format|style|tone)\s+(?:is|works)\s+(?:fine|ok|okay)|"
                   r"as\s+(?:much|long|many)\s+as\s+you\s+(?:like|want)|from\s+here\s+on|"
                   r"no\s+(?:[a-z-]+\s+)?(?:limit|restriction|requirement)s?|no\s+need\s+to|don'?t\s+bother)\b)"
                   r"|从现在开始|从现在起|以后可以|现在可以|不用再|不再需要|不必再|可以不用|忽略(?:之前|上面|前面|刚才)|不用管|解除"
                   # ("取消刚才的要求。", "刚才说的作废", "我实在不会，直接告诉我答案吧。")
                   r"|取消(?:刚才|之前|上面|前面|这个|那个)?的?(?:要求|规则|限制)|作废|(?<![不别要])直接(?:告诉|给)我(?:答案|结果)"
                   r"|其实不用|其实(?:你)?可以|还是不要|改为不|不限|不用限制|没有(?:字数|长度|篇幅)?限制|算了|改成|改为|换成|改到"
                   r"|(?:这次|这回|这一次|这一回|这个|这条|这题|这道题|这里)[^。！？\n]{0,8}?(?:可以|不用|不必|允许|就行|就好)"
                   # ("用什么语言都可以了。", "emoji随便用。")
                   r"|(?:什么|哪种|任何)[^。！？\n]{0,6}?都(?:可以|行|无所谓)|随便(?:用|写|来)|随意(?:用|写)"
                   r"|(?:这个问题|这道题|这一题)[^。！？\n]{0,6}?(?:详细|展开|长一点|长一些|多写)")


# a request for a piece of work ("Write a tweet announcing our sale.", "Give me 3 title ideas.", "再写一首关于秋天的诗。"): asked
# again in a later turn, it asks for another piece, which no restated rule does
_WORK_REQUEST = re.compile(r"[ \t*_]*(?:(?i:(?:(?:please|now|ok(?:ay)?|again|so|(?:could|can|would|will)[ \t]+you)[ \t,]+)*"
                           r"(?:write|draft|compose|create|generate|give\s+me|make|produce|suggest|propose|list|translate|"
                           r"summari[sz]e|rewrite|redo|"
                           r"come\s+up\s+with)[ \t]+(?:me[ \t]+)?(?:a|an|another|some|one|two|three|four|five|\d+)\b)"
                           # a reply asked for again, to a new message the turn hands over ("She replied:⏎⏎Customer: …⏎⏎
                           # Reply to the customer.")
                           r"|(?i:(?:(?:please|now|ok(?:ay)?|again|so|(?:could|can|would|will)[ \t]+you)[ \t,]+)*(?:reply|respond|"
                           r"answer|write[ \t]+back)[ \t]+(?:to[ \t]+)?(?:the|this|that|her|him|them|it|my|our)\b)"
                           r"|(?:请|麻烦|再|帮我)*(?:回复|回)(?:一下)?(?:客户|顾客|他|她|他们|对方|患者|家长|买家)"
                           r"|(?:请|麻烦|再|帮我|给我)*(?:写|起草|生成|列出|列|翻译|总结|改写|设计|想|出|来|做)(?:一|两|三|四|五|六|七|八|九|十|几|\d))")


# a sentence that goes on from the one before it, in order ("Respond in English. Then, below that, respond in German
# too", "然后再…"): the one before is a step of it, not a copy
NEXT_STEP = re.compile(r"\s*(?:(?i:then|after\s+that|afterwards|below\s+that|under\s+that|next)\b|然后|接着|之后|随后"
                       # (not 再 asking for another piece: "再写一段关于售后的。", "再起一个面包店的名字。")
                       r"|再(?!次|(?:帮我|给我)?(?:写|来|给|做|出|生成|起草|列|翻译|起|取|想|推荐|找)[一两几\d])"
                       # or says how much of it, in a word or two ("Include an example. Only one.", "举个例子。只要一个。")
                       r"|(?i:only|just|at\s+most|at\s+least|no\s+more\s+than|exactly|max(?:imum)?)\b[^.!?\n]{0,12}[.!]"
                       r"|(?:只要|只|仅|最多|至少|就)[^。！\n]{0,6}[。！])")
# a sentence that hangs on the one before it, which may then not go alone: an exception or a condition on it ("Unless
# it's for the US team, …", "Otherwise, handle it yourself.", "否则直接退款", "但我是这单的乘客"), a word that points back
# at it ("That includes any code you paste.", "Is that right for my kayak?", "同样适用于…"), what extends it ("车牌号也一样。",
# "代码和链接也算在内。"), or a correction of it ("Actually, keep them under 50 words.")
HANGS_ON_IT = re.compile(
    r"\s*(?:(?i:(?:and|also|oh|so|no)[ \t,]+)?(?i:unless|except|but|however|although|though|otherwise|if\s+(?:so|not)|in\s+that\s+case|"
    r"that|this|it|its|those|these|they|them|which|same|the\s+same|likewise|including|especially|even|"
    r"(?:is|was|does|did|would|will|can|could|should|isn'?t|doesn'?t)\s+(?:that|this|it)|"
    r"(?:well[ \t,]+)?actually|sorry|i\s+mean[t]?|correction|wait|instead|what\s+about|how\s+about|not\s+even|why|"
    # its scope narrowed or set aside ("Don't use code blocks. Only for shell commands though; …", "Not this time though")
    r"(?:only|just)\s+(?:for|in|on|at|during|when|if|after|before)\b|not\s+(?:for\s+)?this\s+(?:time|one)|"
    # a correction of it ("Budget under $300 a night. Make that $350, actually.", "… Euros, not dollars.")
    r"make\s+(?:that|it)|[^.!?\n,]{1,25},[ \t]*not\b|"
    r"if\s+(?:you|they|we|he|she|it|anyone|someone)\s+(?:do|does|did|don'?t|doesn'?t|can'?t|must|have\s+to)|"
    # a short sentence that answers it ("Remember: never include small talk. You didn't, good.")
    r"you\s+(?:did|didn'?t|do|don'?t|have|haven'?t|were|weren'?t)(?=[ \t,]*(?:[^.!?\n]{0,15}[.!?]|$))|"
    # an exception to it ("Never use exclamation marks. Well, one is OK this time.")
    r"(?:well[ \t,]+)?(?:one|two|a\s+few|the\s+(?:last|first)\s+one|this\s+one)\s+(?:is|are)\s+(?:ok|okay|fine|allowed))\b"
    r"|除非|除了|但是|但|不过|否则|不然|可是|这|那|它|其实|同样|同理|包括|尤其|即使|哪怕|也就是说|更正|不对|为什么|如果|要是|万一"
    r"|是[^。！？!?\n]{1,10}?[，,]不是|不是[^。！？!?\n]{1,10}?[，,]而?是"  # ("预算每晚500以内。是每人，不是每间。")
    r"|改成|改为|换成|算了|还是"  # ("每天不超过两个景点。改成三个吧。", "…。算了，三个也行。")
    r"|只限|仅限|只针对|这次不|这回不"  # ("不要用代码块。只限shell命令哈，…")
    # who or when it holds for, said after it ("Always offer free shipping. VIP customers only.", "不要提供折扣。客户要求的话
    # 可以。")
    r"|(?i:[^.!?\n]{1,30}?\bonly\s*[.!]|[^.!?\n]{1,30}?\bexcluded\s*[.!])"
    r"|[^。！？!?\n]{1,16}?(?:的话|时|的时候)(?:也)?(?:可以|没关系|就行|不用|不必|无所谓)"
    # ("No lists. If I ask for steps, you can.", "Reply in English. Doesn't apply to code.")
    r"|(?i:if\s+I\s+(?:ask|say|want|need)\b|(?:it\s+|this\s+|that\s+)?(?:doesn'?t|does\s+not|won'?t)\s+apply\b"
    # ("No coupons. Or the discount either.", "If they ask for it, say no.", "You can only say …")
    r"|(?:or|and|nor)\b[^.!?\n]{0,30}?\beither\b|if\s+(?:they|he|she|anyone|someone|users?|customers?|the\s+\w+)\s+"
    r"(?:ask|asks|want|wants|insist|insists|push|pushes)\b|you\s+can\s+only\b|only\s+say\b)"
    r"|只(?:能|可以)(?:说|回|讲|回复)"
    r"|[^。！？!?\n]{0,12}?(?:也一样|也同样|也算|也适用|也不行|也不能|也不可以|也不要|也别|也不用|也不例外|同理|例外|除外|也是这样|也照此))")
# a rule on the reply's layout, and what breaking it looks like in a reply: list or numbered lines, a table, headings
_LAYOUT_RULES = (
    (re.compile(r"(?i:\b(?:bullet(?:s|\s+points?)?|lists?|numbered|numbering|enumerations?)\b)|列表|编号|项目符号|分点|序号"),
     re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.、)）])[ \t]+\S", re.MULTILINE)),
    (re.compile(r"(?i:\btables?\b)|表格"), re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)),
    (re.compile(r"(?i:\bheadings?\b|\bheaders?\b)|标题"), re.compile(r"^[ \t]{0,3}#{1,6}[ \t]", re.MULTILINE)),
)


_FORMAL = re.compile(r"(?i:\b(?:formal|professional)\b)|正式|专业")
_EMOJI = re.compile(EMOJI_CHARS)
_CASUAL = re.compile(r"(?i:\b(?:hey|what'?s\s+up|lol|gonna|wanna|dude|yo)\b)|哈哈|嘿|哟|噢耶")
_EMOJI_WORD = re.compile(r"(?i:\bemojis?\b|\bemoticons?\b)|表情")
_HASHTAG_WORD = re.compile(r"(?i:\bhash-?tags?\b)|话题标签|井号")
_HASHTAG = re.compile(r"(?<![\w&])#[^\s#\d][^\s#]*")
_FORBIDS = re.compile(r"(?i:\b(?:not|no|never|don'?t|without|avoid)\b)|不要|不得|不能|不准|别|禁止|避免|勿|无需|不用")


_WORD_LIMIT = re.compile(r"(?i:\b(?:under|below|fewer\s+than|less\s+than|at\s+most|no\s+more\s+than|within|max(?:imum)?(?:\s+of)?)"
                         r"\s+(\d{1,4})\s+words?\b)|(?:不超过|少于|不多于|最多|控制在)?(\d{1,4})个?字(?:以内|之内|以下)"
                         r"|(?:不超过|少于|不多于|最多)(\d{1,4})个?字")  # ("不超过30字。")
_EN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
# a request to redo the reply before ("Rewrite it.", "Fix that headline.", "重写。"): a rule said with it corrects that reply
_REDO = re.compile(r"(?i:\b(?:rewrite|redo|fix|revise|correct|try)\b[^.?!\n]{0,30}?\b(?:it|that|this|them|again)\b)"
                   r"|重写|重新写|重做|重来|再改|改一下|修改一下|改掉|重新生成")
# what says the reply before got something wrong, before a rule said again in the same turn ("That's over 50 words.",
# "You translated Google.", "你直接给答案了。", "太长了。"): the rule is the correction
_COMPLAINT = re.compile(r"(?i:\b(?:you(?:'ve|’ve|\s+have)?\s+(?:just\s+|still\s+|again\s+|already\s+|actually\s+)?"
                        # (not praise: "You helped a lot.", "You nailed it.")
                        r"(?!(?:helped|saved|nailed|rocked|impressed|amazed|exceeded|outdid|delighted|blessed|explained|"
                        r"answered|solved|fixed|covered|clarified)\b)"
                        r"(?:[a-z]+ed|gave|wrote|forgot|broke|made|went|kept|didn'?t|didn’t|did\s+not|used|put|said)|"
                        r"(?:that|it|this)(?:'s|’s|\s+is|\s+was)\s+(?:still\s+|way\s+|well\s+)?(?:over|more\s+than|too|"
                        r"not(?!\s+(?:urgent|a\s+(?:big\s+)?(?:problem|deal|rush)|necessary|needed|required|important|"
                        r"a\s+priority)\b)|"
                        r"longer|wrong)|still\s+too)\b)"
                        r"|你(?:又|还是|直接|怎么又|还|刚才|已经)(?!帮|救|做得很|做得真|太棒)[^。！？!?\n]{1,12}?了|超(?:过|出)了|太(?:长|短|多|啰嗦)了|又错了|不对[。！!，,]"
                        r"|有\d+多?个?字了|超(?:过)?字数了?|字数超了|超字了"
                        # a bare no that opens the turn: "No. Don't mention the discount.", "不行。不超过40字。"
                        r"|^\s*(?:(?i:no|nope|wrong)|不行|不对|不是这样)[.。!！]", re.MULTILINE)
_REPLY_LANGUAGE = re.compile(r"(?:用|使用)(中文|汉语|英文|英语)(?:回答|回复|作答)|(?i:\b(?:respond|reply|answer|write)\s+in\s+(English|Chinese)\b)")
_LEFT_OUT = re.compile(r"\b(?:without|no|excluding|free\s+of|minus)(?:\s+(?:any|the|a))?(?:\s+[a-z'-]+){1,2}"
                       r"|(?:不含|不带|不包含|不包括|没有|不出现|去掉了?|去除了?)[\u4e00-\u9fff]{1,6}")
_FORBIDDEN_WORDS = re.compile(r"(?i:\b(?:not|never|don'?t|no)\s+(?:mention|use|include|say|write|add|put|discuss|reference|suggest|"
                              r"recommend|propose|advise|"
                              r"bring\s+up|talk\s+about)\s+(?:any\s+|the\s+)?([^.;,!?\n]{2,40}))"
                              r"|(?:不要|不得|别|禁止|不能)(?:再)?(?:提到|提及|提|使用|用|写|说|加|出现)([^。；，！？\n]{1,20})")


# a rule that asks for the output alone ("Only output the diff.", "Output only JSON.", "No explanation.", "只输出代码。")
_OUTPUT_ONLY = re.compile(r"(?i:\b(?:only|just)\s+(?:output|return|print|give\s+(?:me\s+)?|show\s+(?:me\s+)?|reply\s+with|"
                          r"respond\s+with)\b|\boutput\s+only\b|\bno\s+(?:explanations?|commentary|prose|chatter)\b)"
                          r"|只(?:输出|返回|给出?|要|写)|不要(?:解释|说明|废话)|不用解释|无需解释")
# … and a reply that talks before (or instead of) giving it: "Sure! Here's the diff along with an explanation", "好的，先解释一下思路"
_CHATTER = re.compile(r"\s*(?:(?i:sure|of\s+course|okay|ok|certainly|absolutely|great\s+question|let\s+me|i'll|i\s+will|first,)\b"
                      r"|(?i:here(?:'s|\s+is)\b[^\n]{0,40}?\b(?:along\s+with|with\s+an?|and\s+an?)\s+(?:explanation|"
                      r"walkthrough|summary|breakdown))|好的|当然|首先|先(?:解释|说明|介绍|讲)|我来|下面我|让我)")


def reply_broke_it(text: str, s: int, e: int, reply: BlockRef) -> bool:
    """Whether the rule at [s, e) forbids a layout that the reply before it used ("不要使用列表或编号。" after a numbered
    list), names a choice the reply made otherwise ("Use metric units." after "I'll use imperial: 5 miles."), or answers
    the reply's closing question about it: said again, it asks for that reply to be redone, not a copy."""
    chosen = _choices(text[s:e])
    if chosen:  # "Use metric units." after "Sure — I'll use imperial instead: 5 miles."
        named = _choices(text[reply.start:reply.end])
        if any(named.get(d, frozenset()) - c for d, c in chosen.items() if d != "language"):
            return True
    said = text[reply.start:reply.end].rstrip()
    if said.endswith(("?", "？")):  # an answer to the reply's question about it ("Should I switch to British spelling?")
        q = max(said.rfind(c) for c in ".!。！\n") + 1
        if (set(_analyse(text[s:e])[1]) - _GENERIC_WORDS) & set(_analyse(said[q:])[1]):
            return True
    # (a reply of a sentence: 12 characters, or 5 Chinese ones — "蒙古的首都是乌兰巴托。"; a bare "好的。" is no reply in a language)
    lang = _REPLY_LANGUAGE.search(text, s, e) \
        if reply.end - reply.start >= 12 or len(_CJK.findall(text, reply.start, reply.end)) >= 5 else None
    if lang is not None:  # "请用中文回答。" right after an English reply (a bare "好的。" is no reply in a language)
        cjk = len(_CJK.findall(text, reply.start, reply.end)) / max(1, reply.end - reply.start)
        # (English only: a reply with Chinese words in it broke it — "堪培拉 (Canberra).")
        return cjk < 0.2 if (lang.group(1) or lang.group(2) or "").lower() in ("中文", "汉语", "chinese") else cjk > 0.1
    if reply.end - reply.start >= 12 and _broke_language_pov_or_spelling(text, s, e, text[reply.start:reply.end]):
        return True
    if _OUTPUT_ONLY.search(text, s, e) and _CHATTER.match(text, reply.start, reply.end):
        return True  # "Only output the diff." after "Sure! Here's the diff along with an explanation: …"
    limit = _WORD_LIMIT.search(text, s, e)
    if limit is not None:  # "Reply in under 30 words." after a reply of 34; "100字以内" after 150 characters
        chars = limit.group(2) or limit.group(3)  # (a limit in Chinese characters)
        length = len(_CJK.findall(text, reply.start, reply.end)) if chars else \
            len(_EN_WORD.findall(text, reply.start, reply.end))
        if length > int(limit.group(1) or chars):
            return True
    if _FORMAL.search(text, s, e) and (_CASUAL.search(text, reply.start, reply.end) or _EMOJI.search(text, reply.start, reply.end)):
        return True  # "Use formal tone." after "Sure! Hey, what's up? 😎"
    if not _FORBIDS.search(text, s, e):
        return False
    if _EMOJI_WORD.search(text, s, e) and _EMOJI.search(text, reply.start, reply.end):
        return True  # "Don't use emoji." after "Sure 😊 What would you like?"
    if _HASHTAG_WORD.search(text, s, e) and _HASHTAG.search(text, reply.start, reply.end):
        return True  # "No hashtags please" after "🚀 v2 is here! #launch #v2"
    for rule, used in _LAYOUT_RULES:
        if rule.search(text, s, e) and len(used.findall(text, reply.start, reply.end)) >= 2:
            return True
    # what it forbids to mention or use, said in the reply ("Do not mention IP addresses." after "…maps names to IP
    # addresses."; "不要提到价格" after a reply with 价格)
    m = _FORBIDDEN_WORDS.search(text, s, e)
    if m is None:
        return False
    words = (m.group(1) or m.group(2) or "").strip(" \t\"'“”")
    # (what the reply says it left out does not break the rule: "here are the bullets without numbers", 以下是不含价格的介绍)
    said = _LEFT_OUT.sub(" ", text[reply.start:reply.end].lower())
    if m.group(1):  # (each word of four letters or more, by its first five: "restarting" is said as "restart")
        stems = [w[:5] for w in re.findall(r"[a-z]{4,}", words.lower())]
        return bool(stems) and all(w in said for w in stems)
    return len(words) >= 2 and words.lower() in said


# a reply language other than Chinese and English ("Respond in Spanish.", "Reply in Japanese from now on.", "用日语回答"),
# the point of view of a story ("Write in the first person.", "用第一人称写"), a spelling ("Use British spelling.")
_OTHER_LANGUAGE = re.compile(r"(?i:\b(?:respond|reply|answer|write|speak|talk|continue)\b[^.!?\n]{0,20}?\bin\s+(Spanish|French|"
                             r"German|Italian|Portuguese|Dutch|Swedish|Polish|Turkish|Indonesian|Vietnamese|Japanese|Korean|"
                             r"Russian|Arabic)\b)"
                             r"|(?:用|使用)(西班牙语|法语|德语|意大利语|葡萄牙语|日语|日文|韩语|韩文|俄语|阿拉伯语)(?:回答|回复|作答|写|交流)")
_LANGUAGE_SCRIPT = {"japanese": "[\u3040-\u30ff]", "日语": "[\u3040-\u30ff]", "日文": "[\u3040-\u30ff]",
                    "korean": "[\uac00-\ud7af]", "韩语": "[\uac00-\ud7af]", "韩文": "[\uac00-\ud7af]",
                    "russian": "[\u0400-\u04ff]", "俄语": "[\u0400-\u04ff]", "arabic": "[\u0600-\u06ff]",
                    "阿拉伯语": "[\u0600-\u06ff]"}
# English by its commonest words (a Spanish reply — "¡Claro! ¿Qué necesitas?" — has none of them)
_ENGLISH_WORDS = frozenset("the a an is are was were be you your i i'm it it's what do does of to and in for would like "
                           "sure course how can with that this need here there will have has my me we our".split())
_POINT_OF_VIEW = re.compile(r"(?i:\bin\s+(?:the\s+)?(first|second|third)[\s-]+person\b)|第(一|二|三)人称")
_FIRST_PERSON_WORDS = re.compile(r"\b(?:I|me|my|mine|we|us|our)\b")
_THIRD_PERSON_WORDS = re.compile(r"(?i:\b(?:he|she|they|him|her|them|his|hers|their)\b)")
_SPELLING = re.compile(r"(?i:\b(British|UK|American|US)\s+(?:English\s+)?spellings?\b)|(英式|美式)(?:英语)?拼写")
# the words British and American spelling write apart (colour/color, centre/center, grey/gray, travelled/traveled)
_OUR_STEMS = r"colo|flavo|favo|hono|behavio|neighbo|labo|humo|harbo|rumo|odo|endeavo"
_RE_STEMS = r"cent|theat|met|lit|fib"
_FORMS = r"(?:s|ed|ing|ful|ite|ites|able)?"
_AMERICAN_SPELLING = re.compile(rf"(?i:\b(?:{_OUR_STEMS})r{_FORMS}\b|\b[a-z]{{3,}}iz(?:e|es|ed|ing|ation|ations)\b|"
                                rf"\b(?:{_RE_STEMS})ers?\b|\bgray\b|\bcatalog\b|\btraveled\b|\bcanceled\b)")
_BRITISH_SPELLING = re.compile(rf"(?i:\b(?:{_OUR_STEMS})ur{_FORMS}\b|\b(?:{_RE_STEMS})res?\b|\bgrey\b|\bcatalogue\b|"
                               rf"\btravelled\b|\bcancelled\b)")


def _broke_language_pov_or_spelling(text: str, s: int, e: int, reply: str) -> bool:
    """Whether the rule at [s, e) asks for a reply language other than Chinese and English that the reply is not in
    (English, or without the language's script), a point of view the reply does not take, or a spelling it does not
    use ("Respond in Spanish." after "Of course! What do you need?")."""
    lang = _OTHER_LANGUAGE.search(text, s, e)
    if lang is not None:
        name = (lang.group(1) or lang.group(2)).lower()
        script = _LANGUAGE_SCRIPT.get(name)
        if script is not None:
            return re.search(script, reply) is None
        words = re.findall(r"[a-z][a-z'’]*", reply.lower())
        return len(words) >= 3 and sum(w.replace("’", "'") in _ENGLISH_WORDS for w in words) >= 0.25 * len(words)
    pov = _POINT_OF_VIEW.search(text, s, e)
    if pov is not None:
        person = (pov.group(1) or "").lower() or {"一": "first", "二": "second", "三": "third"}[pov.group(2)]
        first, third = len(_FIRST_PERSON_WORDS.findall(reply)), len(_THIRD_PERSON_WORDS.findall(reply))
        if person == "first":
            return first == 0 and third > 0
        if person == "third":
            return first >= 2 and first > third
        return re.search(r"(?i:\byou\b)", reply) is None
    spelling = _SPELLING.search(text, s, e)
    if spelling is not None:
        british = (spelling.group(1) or "").lower() in ("british", "uk") or spelling.group(2) == "英式"
        return (_AMERICAN_SPELLING if british else _BRITISH_SPELLING).search(reply) is not None
    return False


# a turn that sets every earlier rule aside before it says its own ("Forget all my earlier rules. New brief: … Don't use
# 'best'."): a rule it says again is its own, not a repeat
_RESET = re.compile(r"(?i:\b(?:next|this|that)\s+(?:week|month|time|one|day)\s+is\s+different\b)|(?:下周|这次|这周|下次)(?:不一样|不同)|"
                    r"(?i:\b(?:forget|ignore|disregard|drop|scrap)\s+(?:all\s+(?:of\s+)?|everything\s+)?(?:my|the|your|our|those|"
                    r"previous|earlier|above|prior)\s+(?:[a-z]+\s+)?(?:rules|instructions|constraints|requirements|guidelines|"
                    r"briefs?)\b|\bstart\s+(?:over|fresh|from\s+scratch)\b|\bnew\s+brief\b)"
                    r"|(?:忘掉|忘记|忽略|不管|清空)(?:之前|前面|上面|刚才|以前)?(?:所有|全部)?的?(?:要求|规则|限制|设定|指令)|重新开始|从头开始")


# a rule said for one question only: "Just for this question.", "That's a one-off", "这一题特殊。"
_ONE_OFF = re.compile(r"(?i:\bjust\s+for\s+this\s+(?:question|one|time|answer|reply)\b|\b(?:that'?s|this\s+is)\s+a\s+one-?off\b|"
                      r"\bonly\s+(?:for\s+)?this\s+(?:once|time|question|one)\b|\bjust\s+this\s+once\b)"
                      r"|这一?(?:题|次|个|回)(?:特殊|例外|而已)|仅限这一?(?:题|次)|只(?:限|针对)这一?(?:题|次|个)|下不为例")


# a reply that says a rule no longer holds ("PVC deletion is technically allowed again.", "按流程现在删表是允许的。"): the user
# saying the rule again after it puts it back
_LIFT_SAID = re.compile(r"(?i:\b(?:is|are)\s+(?:now\s+|technically\s+|actually\s+)?(?:allowed|permitted|fine|ok|okay)\s+"
                        r"(?:again|now)\b|\bno\s+longer\s+(?:applies|apply|holds?|needed|required|in\s+(?:effect|force))\b|"
                        r"\b(?:has|have)\s+been\s+lifted\b|\b(?:freeze|restriction|ban)\s+(?:has\s+)?(?:ended|is\s+over|expired)\b)"
                        r"|(?:现在|已经|目前)[^。！？\n]{0,12}?(?:允许了|可以了|是可以的)|是允许的|已(?:经)?解除|不再(?:限制|禁止)")


class Lifts:
    """Where the turns lift or change the standing rules (looked for once, on the first repeat in a user turn): a user
    turn that lifts them, or a reply that says one no longer holds."""

    def __init__(self, view: TextView) -> None:
        self._view = view
        self._starts: list[int] | None = None

    def between(self, a: int, b: int) -> bool:
        """Whether a user turn lifts a rule in [a, b) (after the rule's first copy: "Keep it under 50 words? No, forget
        that, I don't care about length." withdraws it in its own turn)."""
        if self._starts is None:
            text = self._view.text
            self._starts = sorted(m.start() for blk in self._view.blocks if blk.role in ("user", "assistant")
                                  for m in (_LIFT if blk.role == "user" else _LIFT_SAID).finditer(text, blk.start, blk.end))
        k = bisect.bisect_left(self._starts, a)
        return k < len(self._starts) and self._starts[k] < b


# what makes one clause of a statement the condition or the scope of another
_SCOPED = re.compile(r"(?i:\b(?:if|when|whenever|unless|only|except|once|after|before|while|where|for|otherwise|until|"
                     r"provided|as long as|in case)\b)|如果|若|假如|假设|倘若|当|除非|只有|只要|对于|针对|关于|一旦|时候|之前|之后|"
                     r"的话|否则|则|以免|才|即可|除了|除")


# a count of what the turn then says: "Two things. Keep answers under 100 words. Also, cite sources.", "三点：…"
_COUNT_AHEAD = re.compile(r"(?i:\b(?:two|three|four|five|a\s+couple\s+of|\d)\s+(?:things|rules|points|notes|requests|changes)\b)"
                          r"|[两二三四五六七八九十几]\s*(?:点|件事|条要求|个要求|个问题)")


def _counted_before(text: str, block_start: int, s: int) -> re.Match[str] | None:
    """The count of things the turn says before the statement at ``s``, or as its lead ("两点：只用中文回复；…")."""
    m = _COUNT_AHEAD.search(text, block_start, s) or _COUNT_AHEAD.match(text, s)
    return m if m is not None and (m.end() <= s or text[m.end():m.end() + 1] in ":：") else None


# a reminder's lead before a restated rule: "再次提醒：", "注意：", "Again, remember:"
_REMINDER_LEAD = re.compile(r"\s*(?:(?:再次|再|重新)?(?:提醒|强调|重申|声明)(?:一下|一遍|一次)?|注意|切记|牢记|记住|请记住|"
                            r"(?i:(?:again|once more|reminder|remember|note)(?:\s+again)?))\s*[:：,，!！]?\s*\Z")


def _restates_a_part(text: str, s: int, e: int, sent: tuple[int, int]) -> bool:
    """Whether the statement at [s, e) restates a clause of an earlier rule as a reminder: alone in its sentence,
    or after a reminder's lead ("再次提醒：不要承诺保本保收益。") — not a clause of a sentence of its own."""
    line_start = text.rfind("\n", 0, s) + 1
    if _NUMBERED_ITEM.match(text, line_start, s + 1):
        return False  # an item of a numbered list: a rule of that list (its number goes with it, if it goes)
    return not text[e:sent[1]].strip(" \t\n。.!！;；") and (
        not text[sent[0]:s].strip() or _REMINDER_LEAD.match(text, sent[0], s) is not None)


_NUMBERED_ITEM = re.compile(r"[ \t]*(?:\d{1,3}[.)、．]|[（(]\d{1,3}[)）])")


def _list_items(text: str, line_start: int) -> list[int]:
    """The line starts of the items of the list holding the item line at ``line_start``: the run of item lines
    around it (indented continuation lines belong to the item above; a blank or other line ends the list)."""

    def line_at(k: int) -> str:
        end = text.find("\n", k)
        return text[k:end if end >= 0 else len(text)]

    def item_or_continuation(k: int) -> str:  # "item", "more" or ""
        line = line_at(k)
        if not line.strip():
            return ""
        if _LIST_ITEM.match(line):
            return "item"
        return "more" if line[0] in " \t" else ""

    before = []
    k = line_start
    while k > 0:  # up
        k = text.rfind("\n", 0, k - 1) + 1
        kind = item_or_continuation(k)
        if not kind:
            break
        if kind == "item":
            before.append(k)
    items = before[::-1] + [line_start]
    k = text.find("\n", line_start)
    while k >= 0:  # down
        kind = item_or_continuation(k + 1)
        if not kind:
            break
        if kind == "item":
            items.append(k + 1)
        k = text.find("\n", k + 1)
    return items


_BETWEEN_CLAUSES = re.compile(r"[ \t]*[;；,，]?[ \t]*")


def _next_clause(text: str, a: int, b: int) -> bool:
    """Whether the clause at ``b`` follows the one that ends at ``a`` in the same sentence: a clause break between
    them (or ending the first) and nothing else but spaces."""
    return _BETWEEN_CLAUSES.fullmatch(text, a, b) is not None and (
        text[a - 1:a] in (";", "；", ",", "，") or any(c in text[a:b] for c in ";；,，"))


def _joined(text: str, out: list[Judged]) -> list[Judged]:
    """``out`` with the copies of adjacent clauses of one first sentence joined into one ("Do not use markdown
    tables; use bullet lists instead." said twice): taken one by one, the first would leave the second starting in
    lower case, and the second alone would leave the first without its stop."""
    if len(out) < 2:
        return out
    out = sorted(out)
    joined: list[Judged] = [out[0]]
    for r in out[1:]:
        p = joined[-1]
        # (copies only: a statement that differs in a number is proposed against it, and stays with its number)
        if len(p) == 6 and len(r) == 6 and p[1] <= r[0] and p[3] <= r[2] \
                and _next_clause(text, p[1], r[0]) and _next_clause(text, p[3], r[2]):
            joined[-1] = (p[0], r[1], p[2], r[3], max(p[4], r[4]), f"{text[p[2]:r[3]]}\n{text[p[0]:r[1]]}")
        else:
            joined.append(r)
    return joined


def _keep_whole_lists(view: TextView, out: list[Judged], notes: list[tuple[int, int, str]]) -> list[Judged]:
    """``out`` without the repeats that would take items of a list of two or more:

    * every item: its heading or label ("**JSON format**:") would be left with nothing under it, and a list restated
      whole is that section's content;
    * some items, when their first copies are in an earlier turn: a list said again with items changed or added
      ("- Always include a curl example.⏎- Never show API keys.⏎- Use both the v1 and v2 endpoints.⏎Those are the rules
      now.") is the new version of the whole list — without its unchanged items it would declare a list of one.
    (Items repeated within one turn's list may go: the list keeps its first copy.)"""
    text = view.text
    whole_items = {r[0]: r for r in out if (r[0] == 0 or text[r[0] - 1] == "\n") and _LIST_ITEM.match(text, r[0])}
    if not whole_items:
        return out
    kept: dict[int, str] = {}
    for ls, r in whole_items.items():
        if ls in kept:
            continue
        items = _list_items(text, ls)
        if len(items) < 2:
            continue
        if all(k in whole_items for k in items):
            kept.update(dict.fromkeys(items, "kept: every item of its list repeats an earlier one; taking them all would "
                                             "leave the list's heading with nothing under it"))
        elif any(view.block_index_at(whole_items[k][2]) != view.block_index_at(k) for k in items if k in whole_items):
            kept.update(dict.fromkeys((k for k in items if k in whole_items),
                                      "kept: an item of a list said again with other items changed or added: the list "
                                      "is said as a whole, its new version"))
    if not kept:
        return out
    for r in out:
        if r[0] in kept:
            notes.append((r[0], r[1], kept[r[0]]))
    return [r for r in out if r[0] not in kept]


# a heading line (markdown, a bold line, 【…】) right above a position: "## Final reminder⏎"
_HEADING_ABOVE = re.compile(r"(?:\A|\n)[ \t]{0,3}(?:#{1,6}[ \t]+[^\n]*|\*\*[^\n*]{1,60}\*\*[ \t]*[:：]?|【[^\n】]{1,40}】[ \t]*[:：]?)"
                            r"[ \t]*\n\s*\Z")
_HEADING_NEXT = re.compile(r"\s*\n[ \t]{0,3}(?:#{1,6}[ \t]|\*\*[^\n*]{1,60}\*\*[ \t]*[:：]?[ \t]*\n|【)")


def _keep_sections(view: TextView, out: list[Judged], notes: list[tuple[int, int, str]]) -> list[Judged]:
    """``out`` with a repeat that is all a section holds taken with its heading when the heading only recalls ("## Final
    reminder", "## 重要提醒": the section said nothing new), else kept (its heading would have nothing under it)."""
    text = view.text
    changed: dict[int, Judged | None] = {}
    for r in out:
        b = view.blocks[view.block_index_at(r[0])]
        head = _HEADING_ABOVE.search(text, b.start, r[0])
        if head is None or text[r[1]:b.end].strip() and not _HEADING_NEXT.match(text, r[1], b.end):
            continue
        if _RECALL_HEADING.search(head.group(0)):
            hs = head.start() + (1 if text[head.start()] == "\n" else 0)
            changed[r[0]] = (hs, *r[1:])
        else:
            changed[r[0]] = None
            notes.append((r[0], r[1], "kept: all its section holds; taking it would leave the heading above it with "
                                      "nothing under it"))
    if not changed:
        return out
    return [changed[r[0]] or r for r in out if changed.get(r[0], r) is not None]


class _Files:
    """The file of a bundle (``structure.bundled_documents``) a position lies in, blocks segmented on demand."""

    def __init__(self, view: TextView) -> None:
        self.view = view
        self.of_block: dict[int, list[tuple[int, int, str]]] = {}

    def at(self, pos: int) -> tuple[int, int, str] | None:
        """(start, end, name) of the file holding ``pos``; None outside a bundle."""
        view = self.view
        bi = view.block_index_at(pos)
        docs = self.of_block.get(bi)
        if docs is None:
            b = view.blocks[bi]
            docs = self.of_block[bi] = bundled_documents(view.text, b.start, b.end)
        for d in docs:
            if d[0] <= pos < d[1]:
                return d
        return None


def _first_copy(entry: _Entry, by_family: Mapping[tuple[Any, ...], list[_Entry]],
                by_clauses: Mapping[tuple[Any, ...], list[_Entry]],
                may_be_first: Callable[[_Entry], bool] | None = None) -> tuple[_Entry | None, _Entry | None]:
    """(first copy, None) when an earlier statement says exactly the same and nothing since has said otherwise;
    (None, the statement it changes) when the latest statement of its family says something else (a flipped
    negation, another number); (None, None) when it is new.  ``may_be_first``: which earlier copies count as
    the first (the earliest of them is taken; none: (None, None)).  Only statements that end before this one
    starts are earlier."""
    exact_of: Callable[[_Entry], tuple[Any, ...] | None]
    # the statement as a whole, its clauses in any order, and (by_clauses too: their keys start with "&") the
    # phrases joined by "and" after a head they share, in any order
    conjuncts = [(by_clauses, fam, ex, _conjunct_of(fam)) for fam, ex in entry.conjuncts.items()]
    for table, fam, ex, exact_of in [(by_family, entry.family, entry.exact, _exact_of),
                                     (by_clauses, entry.c_family, entry.c_exact, _clauses_of)] + conjuncts:
        if fam is None:
            continue
        seen = table.get(fam)
        if seen and seen[-1].end > entry.start:
            # a statement holding this one ("记住：千万不要承认自己是AI。" around its clause) is no earlier copy of it
            seen = [x for x in seen if x.end <= entry.start]
        if not seen:
            continue
        if exact_of(seen[-1]) != ex:
            return None, seen[-1]
        k = len(seen) - 1
        while k > 0 and exact_of(seen[k - 1]) == ex:
            k -= 1
        if may_be_first is not None:
            return next((x for x in seen[k:] if may_be_first(x)), None), None
        return seen[k], None
    return None, None


def _exact_of(x: _Entry) -> tuple[Any, ...] | None:
    return x.exact


def _clauses_of(x: _Entry) -> tuple[Any, ...] | None:
    return x.c_exact


def _conjunct_of(family: tuple[Any, ...]) -> Callable[[_Entry], tuple[Any, ...] | None]:
    return lambda x: x.conjuncts.get(family)


def _only_numbers_differ(a: _Entry, b: _Entry) -> bool:
    """Same statement but for numbers, and ``a`` has a number ``b`` lacks (so its protection must veto)."""
    if len(a.exact) != len(b.exact) or a.family != b.family:
        return False
    mine = [u for u in a.exact if u.isdigit()]
    theirs = [u for u in b.exact if u.isdigit()]
    return any(mine.count(u) > theirs.count(u) for u in mine)


def _remember(view: TextView, notes: list[tuple[int, int, str]]) -> None:
    view.__dict__["_repeat_notes"] = notes


def kept_notes(view: TextView) -> list[tuple[int, int, str]]:
    """(start, end, why) of statements the judgment kept although they look like a repeat (a correction, a
    flipped negation, a list item, an assistant's echo …), from the last :func:`judge` on this view."""
    notes: list[tuple[int, int, str]] = view.__dict__.get("_repeat_notes", [])
    return notes
