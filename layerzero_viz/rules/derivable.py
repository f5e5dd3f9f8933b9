"""derivable_context: text that restates what the conversation has already established.

* the role the system prompt sets, also in other words: the later role phrase need only be a sub-phrase of the
  role with the same head noun ("你是一名初中物理老师" → "作为一名物理老师，…"; "You are a certified tax advisor" →
  "As your tax advisor, …"), across zh/en for common role words ("You are a physics teacher" → "作为物理老师，");
  not where a user describes themself ("作为一名老师，我…");
* a reply language already required ("请用中文回答" when the system prompt says so);
* a sentence that only restates a fact already given in ``<context>``.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..reuse import reused
from ..view import BlockRef, Candidate, Hits, TextView, clauses, sentences, units
from .repeated import (HANGS_ON_IT, INSTRUCTION_ROLES, NEXT_STEP, Lifts, heading_over, languages_named, left_alone,
                       reply_broke_it, scope_of)

if TYPE_CHECKING:
    from . import RuleContext

_ROLE_ZH = re.compile(r"你(?:现在)?是(?:一名|一位|一个|一款|个|名|位)?([\u4e00-\u9fffA-Za-z]{2,12}?)(?=[，。,.！!；;、\n]|$)")
# Case-insensitive throughout, except that each pattern opens with its first letters as a case-sensitive class
# and the word boundary as a lookbehind: the regex engine then skips ahead to those letters instead of trying a
# case-folded match at every position (≈ 3× faster on long prompts).  The same matches: no character outside
# ASCII matches y, a, r or w ignoring case, for s the class lists the one that does (ſ, U+017F), and before a
# letter ``\b`` is "no word character just before"; tests/engine/test_rules.py holds them to the plain forms.
_ROLE_EN = re.compile(
    r"[yYaA](?<!\w[yYaA])(?:(?<=[yY])(?i:ou are|ou're)|(?<=[aA])(?i:ct as))"
    r"(?i:\s+(?:an?|the)\s+([A-Za-z][A-Za-z\- ]{1,40}?)(?=[.,;:!\n]|\s+(?:who|that|with|and|for|in|at|on|from)\b|$))"
)
_LANG_ZH = r"(?:简体中文|繁体中文|中文|汉语|英文|英语|日语|韩语|简体字?|繁体字?)"
# (the languages as one group: "用中文和英文回答", "Respond in English and Chinese" require both, not either)
_LANG_REQ_ZH = re.compile(r"(?:用|使用|以)(" + _LANG_ZH + r"(?:(?:和|与|及|或|、|/)" + _LANG_ZH + r")*)(?:来)?"
                          r"(?:回答|回复|作答|输出|答复|交流)")
# the verb first: "回答一律使用繁体中文", "回复请用英文"
_LANG_REQ_ZH_AFTER = re.compile(r"(?:回答|回复|作答|输出|答复)(?:时|内容)?(?:一律|统一|都|请|必须|务必|始终|总是)*(?:用|使用|以)("
                                + _LANG_ZH + r"(?:(?:和|与|及|或|、|/)" + _LANG_ZH + r")*)(?![\u3400-\u9fff])")
_LANG_EN = r"(?:english|chinese|simplified chinese|french|german|japanese|spanish|korean)"
_LANG_REQ_EN = re.compile(r"[rRaAwWsS\u017f](?<!\w[rRaAwWsS\u017f])(?:(?<=[rR])(?i:espond|eply)|(?<=[aA])(?i:nswer)"
                          r"|(?<=[wW])(?i:rite)|(?<=[sS\u017f])(?i:peak))(?i:(?:\s+only)?\s+in\s+(" + _LANG_EN +
                          r"(?:\s*(?:,|and|or|&|/)\s*(?:in\s+)?" + _LANG_EN + r")*)\b)")
_LANG_REQS = (_LANG_REQ_ZH, _LANG_REQ_ZH_AFTER, _LANG_REQ_EN)
_ONE_LANG = re.compile(r"(?i:simplified chinese|english|chinese|french|german|japanese|spanish|korean)|" + _LANG_ZH)
# what a restated language requirement's clause may hold besides it: asking and insisting words, nothing that changes
# the requirement ("Do not respond in English this time", "只有摘要部分用中文回答", "Earlier I told you to respond in English")
_LANG_CLAUSE_REST = re.compile(r"(?:(?i:please|always|also|kindly|again|remember(?:\s+to)?|make\s+sure\s+to)|请|记得|记住|务必|"
                               r"一定要?|要|也|始终|都|必须|总是|一律|统一|[喔哦哈啊呀吧嘛啦]|[\s,，.。!！:：;；*_~～])*")
_LANG_CANON = {"简体中文": "中文", "汉语": "中文", "英语": "英文", "simplified chinese": "chinese"}
# "as" / "作为" frame the role phrase: the connective goes with it
_FRAME_OVERRIDE = frozenset({"protected_connective"})
# <protected_tokens> matches and quotes are never taken (declared protections and material are absolute)
_VALUE_PROTECTIONS = frozenset({"protected_number", "protected_identifier"})


def _lang(names: str) -> frozenset[str]:
    """The languages a requirement names, canonical ("英语和中文" → {英文, 中文})."""
    return frozenset(_LANG_CANON.get(n, n) for n in (m.group(0).lower() for m in _ONE_LANG.finditer(names)))


def find(view: TextView, ctx: RuleContext) -> Hits:
    """Restatements of what the model already has: the system prompt's role and reply language restated in a
    later turn, a ``<context>`` fact restated outside it."""
    return Hits.of("derivable_context", _found(view, ctx), sentence_level=True)


def _found(view: TextView, ctx: RuleContext) -> list[Candidate]:
    text = view.text
    out: list[Candidate] = []
    system_blocks = view.blocks_of_roles(("system", "developer"))
    roles: list[tuple[str, int, int]] = []
    langs: dict[frozenset[str], tuple[int, int]] = {}
    for b in system_blocks:
        for rx in (_ROLE_ZH, _ROLE_EN):
            for m in rx.finditer(text, b.start, b.end):
                role = m.group(1).strip()
                if len(role) >= 2:
                    roles.append((role, m.start(), m.end()))
        for rx in _LANG_REQS:
            for m in rx.finditer(text, b.start, b.end):
                # only a requirement said without condition, scope or negation requires the language ("只有当用户要求时，
                # 才用英文回答", "Only respond in English to questions about the API" leave a user's request to ask)
                # nor one under a heading that scopes it ("## Emails⏎Reply in Spanish.", "【教师版】⏎请用中文回答。")
                # nor one a scope opens or a label line above it names ("晚上6点以后，回复用英文。", "周末：⏎- 用英文回复。")
                if (clause := _clause_around(view, m.start(), m.end(), b)) is not None \
                        and heading_over(text, b.start, m.start()) is None and scope_of(text, b.start, clause[0]) is None:
                    langs.setdefault(_lang(m.group(1)), (m.start(), m.end()))

    if roles:
        out.extend(_role_restatements(view, roles, ctx.reuse))

    lifts = Lifts(view)
    latest: frozenset[str] | None = None  # the languages the latest requirement named (a user's, or a standing one)
    user_languages: list[tuple[int, frozenset[str]]] | None = None  # each user turn's start and the languages it names
    for b in view.blocks if langs else ():  # nothing to restate when no language is required
        found = sorted((m for rx in _LANG_REQS for m in rx.finditer(text, b.start, b.end)),
                       key=lambda m: m.start())
        for m in found:
            said, before = _lang(m.group(1)), latest
            clause = _clause_around(view, m.start(), m.end(), b)
            if b.role == "user" or b.role in INSTRUCTION_ROLES and clause is not None:
                latest = said
            first = langs.get(said)
            if first is None or m.start() <= first[0] or clause is None:
                continue
            if b.role == "user" and lifts.between(first[1], b.start):
                continue  # "From now on you may answer in Spanish" … "Always answer in English.": put back
            if b.role == "user" and before is not None and before != said:
                continue  # "请用繁体中文回答。" in between: "请用简体中文回答。" puts the first requirement back
            if user_languages is None:
                user_languages = [(u.start, languages_named(text, u.start, u.end)) for u in view.blocks if u.role == "user"]
            if b.role == "user" and _other_language_asked(user_languages, first[1], b.start, m.group(1)):
                continue  # "Réponds en français, s'il te plaît." in between: "Reply in English." puts it back
            k = view.block_index_at(b.start)
            if b.role == "user" and k > 0 and view.blocks[k - 1].role == "assistant" \
                    and reply_broke_it(text, m.start(), m.end(), view.blocks[k - 1]):
                continue  # "请用中文回答。" right after an English reply: it asks for that reply again
            s, e = clause
            out.append(Candidate(s, e, "derivable_context", 0.85,
                                 f"the reply language is already required at {view.where(first[0])}: "
                                 f"{text[first[0]:first[1]]!r}", 0.05, lock=first))

    out.extend(_context_restatements(view, ctx))
    return out


def _other_language_asked(named: list[tuple[int, frozenset[str]]], after: int, before: int, names: str) -> bool:
    """Whether a user turn starting in [after, before) names a language other than ``names`` (``named``: each user
    turn's start and the languages it names, in text order)."""
    said = languages_named(names)
    k = bisect.bisect_left(named, (after,))
    while k < len(named) and named[k][0] < before:
        if named[k][1] - said:
            return True
        k += 1
    return False


def _clause_around(view: TextView, s: int, e: int, block: BlockRef) -> tuple[int, int] | None:
    """The clause that restates the language requirement at [s, e), or None when it may not go: its clause says more
    than the requirement (a negation, a scope, a report of it: "Do not respond in English this time"), or the rest of
    its sentence would be left alone ("用中文回答，除非问题涉及代码。"; "查询订单状态，请用中文回答。" may lose its clause)."""
    text = view.text
    for cs, ce in clauses(view, block.start, block.end):
        if cs <= s and e <= ce:
            if not (_LANG_CLAUSE_REST.fullmatch(text, cs, s) and _LANG_CLAUSE_REST.fullmatch(text, e, ce)):
                return None
            sent = next(((a, b) for a, b in sentences(view, block) if a <= cs and ce <= b), (cs, ce))
            if text[sent[0]:cs].rstrip().endswith((":", "：")):
                return None  # a label's content ("Question line: Reply in Spanish.", "第一段:请用中文回答。"): a slot
                # of what is asked for, and the label would be left alone
            if NEXT_STEP.match(text, sent[1], block.end):
                return None  # "Respond in English. Then, below that, respond in German too": the next step builds on it
            if left_alone(text, sent, cs, ce, rules_only=False):
                return None
            if ce < sent[1] and _LANG_CLAUSE_REST.fullmatch(text, ce, sent[1]):
                ce = sent[1]  # "Always reply in Spanish, please.": the clause's "please" goes with it
            return cs, ce
    return None


def _context_restatements(view: TextView, ctx: RuleContext) -> list[Candidate]:
    facts = ctx.protection.context_facts
    if not facts:
        return []
    out = []
    text = view.text
    fact_units: dict[int, frozenset[str]] = {}
    for cs, ce, f in ctx.scans.context:  # the compiled repeat scan's, or context_restatements_python's
        cstart, tag, value = facts[f]
        known = fact_units.get(f)
        if known is None:
            known = fact_units[f] = frozenset(units(value))
        if any(u not in known for u in units(text[cs:ce])):
            continue  # a word the fact does not hold ("on weekends" for "on weekdays", 三楼 for 二楼): it says more
        if HANGS_ON_IT.match(text, ce):
            continue  # "… a $500 deposit. Unless the dog is a service animal, right?": the next sentence hangs on it
        out.append(Candidate(cs, ce, "derivable_context", 0.8,
                             f"already in <context><{tag}> at {view.where(cstart)}: {value[:60]!r}",
                             0.05, _VALUE_PROTECTIONS, anchor=value))
    return out



def context_restatements_python(view: TextView, facts: Sequence[tuple[int, str, str]],
                                ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(sentence start, end, fact index) of every sentence outside the ``<context>`` ``ranges`` that restates
    one of its ``facts`` (start, tag, value): the definition the compiled repeat scan's context matches and
    ``_native.context_restatements`` are tested against."""
    text = view.text
    fact_grams = []
    for f, (_, _, value) in enumerate(facts):
        us = units(value)
        if len(us) >= 2:
            fact_grams.append((f, frozenset(zip(us, us[1:])) | frozenset(us)))
    out: list[tuple[int, int, int]] = []
    for b in view.blocks:
        # whole sentences only: a clause ("…, up to $600") qualifies the sentence it sits in
        for cs, ce in sentences(view, b):
            if any(rs <= cs < re_ for rs, re_ in ranges):
                continue
            us = units(text[cs:ce])
            if len(us) < 4:
                continue
            grams = frozenset(zip(us, us[1:]))
            for f, fg in fact_grams:
                if len(grams & fg) / len(grams) >= 0.9:
                    out.append((cs, ce, f))
                    break
    return out


# a role phrase restated: "作为/身为(一名)…，", "你是(一名)…，", "As a/your …,", "You are a …,"
_FRAME_ZH = re.compile(r"(?:作为|身为)(?:一名|一位|一个|个|名|位|你的|您的)?([\u4e00-\u9fffA-Za-z]{2,12}?)(?:的话)?[，,]"
                       r"|你(?:现在)?是(?:一名|一位|一个|个|名|位)?([\u4e00-\u9fff]{2,12}?)[，,。！!]")
# (the first-letter form of _ROLE_EN: the plain ``\b(?:as\s+…|(?:you are|you're)\s+…)`` with re.IGNORECASE
# was tried at every position of the text after the role — a fifth of a chat turn's annotation)
_FRAME_EN = re.compile(r"[aAyY](?<!\w[aAyY])(?:(?<=[aA])(?i:s)|(?<=[yY])(?i:ou are|ou're))"
                       r"(?i:\s+(?:an?|the|my|your)\s+([a-z][a-z\- ]{1,40}?)\s*[,.])")
_ROLE_WORDS = {
    "customer service": "客服", "middle school": "初中", "high school": "高中", "teacher": "老师", "physics": "物理",
    "math": "数学", "mathematics": "数学", "chemistry": "化学", "biology": "生物", "history": "历史",
    "english": "英语", "tax": "税务", "advisor": "顾问", "adviser": "顾问", "consultant": "顾问", "assistant": "助手",
    "doctor": "医生", "lawyer": "律师", "translator": "翻译", "programmer": "程序员", "engineer": "工程师",
    "editor": "编辑", "writer": "作家", "expert": "专家", "analyst": "分析师", "financial": "财务", "finance": "金融",
    "legal": "法律", "marketing": "营销", "sales": "销售", "coach": "教练", "interviewer": "面试官",
    "manager": "经理", "designer": "设计师", "data": "数据", "senior": "资深", "professional": "专业",
}
_ZH_SYNONYMS = (("教师", "老师"), ("助理", "助手"))
_FIRST_PERSON = re.compile(r"\s*(?:我|本人|咱|I\b|I'm|I’m|my\b|we\b|our\b)", re.IGNORECASE)
_CLAUSE_START = frozenset("。！？!?.;；\n，,：:、") | {"\x00"}


def _role_tokens(role: str) -> list[str]:
    """A role phrase as tokens to compare across languages: CJK characters (English role words written in
    Chinese first) and the English words that have no Chinese form here."""
    role = role.strip().lower()
    for a, b in _ZH_SYNONYMS:
        role = role.replace(a, b)
    for en in ("customer service", "middle school", "high school"):
        role = role.replace(en, _ROLE_WORDS[en])
    out: list[str] = []
    for part in re.findall(r"[a-z][a-z\-]*|[\u4e00-\u9fff]", role):
        zh = _ROLE_WORDS.get(part)
        out.extend(zh if zh else [part])
    return out


def _same_role(later: list[str], first: list[str]) -> bool:
    """``later`` names ``first``'s role: a sub-phrase (in order) with the same head noun (its last English word
    or last two characters)."""
    if not later or not first:
        return False
    head = 1 if len(first[-1]) > 1 else 2
    if len(later) < head or later[-head:] != first[-head:]:
        return False
    it = iter(first)
    return all(t in it for t in later)


_FRAMES = (_FRAME_ZH, _FRAME_EN)


def _frames(text: str, s: int, e: int) -> list[tuple[int, int, int, str]]:
    """The role frames in [s, e) of one block: (pattern index in ``_FRAMES``, start, end, role phrase)."""
    out = []
    for k, rx in enumerate(_FRAMES):
        for m in rx.finditer(text, s, e):
            # (a match always has its role group: with none, lastindex is None and group 1 is None too)
            phrase = m.group(1) if m.group(1) is not None else m.group(m.lastindex or 1)
            if phrase is not None:
                out.append((k, m.start(), m.end(), phrase))
    return out


def _block_frames(seg: str) -> tuple[tuple[int, int, int, str], ...]:
    return tuple(_frames(seg, 0, len(seg)))


def _frames_after(view: TextView, first_end: int, reuse: bool) -> list[tuple[int, int, int, str, BlockRef]]:
    """The role frames of the text from ``first_end`` on, Chinese then English, with their block: found block by block
    (no frame crosses the separator between two blocks, none looks before its block), whole blocks looked up by their
    text with ``reuse``."""
    text = view.text
    found: list[tuple[int, int, int, str, BlockRef]] = []
    for b in view.blocks:
        if b.end <= first_end:
            continue
        if reuse and b.start >= first_end:
            found.extend((k, b.start + s, b.start + e, phrase, b) for k, s, e, phrase in reused(_block_frames, text[b.start:b.end]))
        else:
            found.extend((k, s, e, phrase, b) for k, s, e, phrase in _frames(text, max(b.start, first_end), b.end))
    found.sort(key=lambda f: f[0])  # (stable: in text order within each pattern)
    return found


def _role_restatements(view: TextView, roles: list[tuple[str, int, int]], reuse: bool = False) -> list[Candidate]:
    text = view.text
    wanted = [(_role_tokens(role), rs, re_) for role, rs, re_ in roles]
    first_end = min(re_ for _, _, re_ in roles)
    out: list[Candidate] = []
    for _, m_start, m_end, phrase, block in _frames_after(view, first_end, reuse):
        k = m_start - 1
        while k >= block.start and text[k] in " \t*_":
            k -= 1
        if k >= block.start and text[k] not in _CLAUSE_START:
            continue  # a frame opens its sentence or clause ("Treat me as a teacher," is not one)
        if block.role not in ("assistant", "model") and _FIRST_PERSON.match(text, m_end):
            continue  # "作为一名老师，我…": the user says who they are
        tokens = _role_tokens(phrase)
        for role_tokens, rs, re_ in wanted:
            if m_start < re_ or not _same_role(tokens, role_tokens):
                continue
            out.append(Candidate(m_start, m_end, "derivable_context", 0.9,
                                 f"restates the role set at {view.where(rs)}: {text[rs:re_]!r}", 0.05,
                                 _FRAME_OVERRIDE, lock=(rs, re_)))
            break
    return out
