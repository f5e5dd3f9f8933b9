"""filler: politeness, greetings, thanks, closers and hedges (lexicons ``filler`` and ``hedges``, zh and en).

A lexicon hit is only a lead.  What the rule proposes is decided sentence by sentence, so that a cut never
leaves debris and never changes what is asked:

* a sentence that is only filler (thanks, greeting, closer, with at most a short complement: "Thank you for the
  information.", "谢谢你的信息！", "Happy to help with anything else!") goes whole, with its punctuation and the
  space after it;
* a clause that is only filler goes with its comma: opening a sentence ("您好，", "Hi there, ", "根据我的理解，"),
  in the middle ("…, thanks, …") or closing it (", please." → the preceding comma goes, the full stop stays);
  a "but"/"and" that would be left stray at the start of the next clause goes along;
* inside a content clause only a frame is taken: a request or hedge frame opening the clause ("Could you please
  kindly ", "I think ", "请问" opening a question, "麻烦您" before a verb, "能不能" before a request verb) or a
  bare "please"/"kindly" anywhere, and only where what remains starts with a word that can open a sentence;
* a conditional closer ("If you have any other questions, …", "如果您还有其他问题，…") goes only with its whole
  sentence; nothing is proposed that would remove a negation word.

Chinese frames are decided by jieba's segmentation (``lexicon.zh_word_aligned`` already drops 请问 in 申请问题;
麻烦 must open a clause and be followed by a verb or 您/你: 遇到麻烦 is content; 请帮我 before a noun and a verb is
no frame: 请帮我妈妈订票).

Where politeness is what the conversation is about, it is no filler: a prompt that grades or sorts politeness, a
dialogue set up to practise a language (that language's greetings and thanks are the practice), greetings the
system prompt reacts to or asks the assistant for ("Start with a friendly greeting"), phrases it names or quotes.
"""
from __future__ import annotations

import bisect
import re
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Sequence

from ..lexicon import is_cjk
from ..view import (EMOJI_CHARS, BlockRef, Hits, TextView, acted_turns_from, clauses, role_play_start, sentences,
                    slot_line)

if TYPE_CHECKING:
    from . import RuleContext

_Hit = tuple[int, int, int]  # a lexicon hit: (start, end, lexicon number)
_Run = list[Any]  # hits separated only by spaces: [start, end, [hit, …]] (start and end widen as hits join)
_Clause = tuple[int, int, int, int, list[_Run], bool]  # (start, end, body start, body end, its runs, all filler)

# a curated filler phrase may contain a negation or connective word ("if you don't mind", "如果可以的话");
# a whole filler clause may take a stray "but"/"and" (a connective) along
_OVERRIDE = frozenset({"protected_negation", "protected_connective"})
# "as an AI model" is filler in a reply, but a role in "act as an AI model"
_ROLE_VERB = re.compile(r"\b(?:act|acting|acts|serve|serving|serves|work|working|be|being|pose|posing|behave|behaving)\s+$",
                        re.IGNORECASE)
_KINDS = (("filler", 0.9, "politeness/filler"), ("hedges", 0.7, "hedge"))
_LEXICONS = tuple((kind, score, label, lang) for kind, score, label in _KINDS for lang in ("zh", "en"))
_LEXICON_NAMES = tuple(f"{kind}.{lang}" for kind, _, _, lang in _LEXICONS)

# --- what a hit may do -------------------------------------------------------------------------------------
# (the lexicon's phrases, normalised: lower case, single spaces, straight apostrophes)
_EN_WORD_FRAMES = frozenset({"please", "pls", "plz", "kindly", "pretty please", "please kindly"})
_EN_OPENERS = re.compile(r"(?:could|would|can) you (?:please|kindly)|would you be so kind as to|"
                         r"i(?: was|'m)? wonder(?:ing)? if you (?:could|would)|"
                         r"(?:i would|i'd|it would be)(?: really)? (?:appreciate it|be grateful|great|wonderful) if you could")
_EN_SENTENCE_ONLY = re.compile(r"if (?:you have|you need|there)\b|(?:i )?hope you can help\b")
# a request frame that asks ("could you …"), its politeness words, and a softener after a frame
_EN_ASKS = re.compile(r"(?i:could|would|can)\s+you\b")
_EN_INNER_POLITE = re.compile(r"(?i:please|kindly)(?:\s+(?i:please|kindly))*\s+")
_EN_SOFTENER = re.compile(r"(?i:possibly|perhaps|maybe)\s+(?=[a-z])")
_CLOSERS = " \t\n\"'”’」』）)*_"
_ZH_ASK_FRAMES = re.compile(r"^(?:我?还?想?请问(?:一下)?|我?还?想问一下|快(?:速)?问一下|想问个问题|顺便问一下|再问一个问题|最后一个问题|我?还?想咨询一下|我?想?请教一下|冒昧(?:地)?问一下|冒昧请问|"
                            r"麻烦问一?下)$")
_ZH_REQUEST_FRAMES = re.compile(r"^(?:麻烦.*|劳驾.*|劳烦.*|烦请|烦劳|有劳.*|能不能.*|可不可以.*|能否帮我|可以帮我|请帮我|请帮忙|"
                                r"请您帮我|请你帮我|请您帮忙|请你帮忙|我想请您|想麻烦.*|希望您能|希望你能|还请您|"
                                r"还望您|万望|恳请.*|拜托你|拜托您|拜托你们|唔该帮我|唔该你帮我)$")
_ZH_SENTENCE_ONLY = re.compile(r"^如(?:果|有)(?!可以|方便|不麻烦)")
# a zh request frame that asks (能不能/可不可以/可以帮我/能否): "可以帮我查一下吗" → "查一下吗" is broken
_ZH_QUESTION_REQUEST = re.compile(r"^(?:能不能|可不可以|可以帮我|能否)")
_ZH_REQUEST_VERB = re.compile(r"^(?:帮|给|告诉|为|替|把|麻烦|请|推荐|解释|介绍|说明|讲|列|写|翻译|总结|分析|提供|再|查|看|检查)")
_ZH_QUESTION = re.compile(r"[？?]|吗|呢|什么|怎么|怎样|如何|多少|哪|几|是否|能否|可否|为什么|为何|是不是|有没有|能不能|可不可以")

# words a frame may not leave opening the sentence: "I think so." → "so.", "I believe in" → "in"
_EN_BAD_START = frozenset("""so not no in on at to for of with about that than as too either neither yes
    and but or nor yet because if when while is are was were am be been do does did has have had""".split())
_EN_THAT_AFTER = re.compile(r"that\s+(?=[A-Za-z])", re.IGNORECASE)
# words that open a clause of its own after a hedge without a comma ("Honestly I don't know", "Frankly the plan is …"): an
# -ly hedge before any other word modifies that word ("honestly state that …")
_EN_CLAUSE_OPENERS = frozenset("""i i'm i've i'd you you're we we're they they're he she it it's this that these those
    there there's the a an my our your his her their its what who how why""".split())
# connectives the cut of a leading filler clause takes along ("Thanks, but …", "谢谢，但是…"); others stop it
# (Cantonese 但係/可係 whole: "唔該晒，但係你計錯咗" must not leave 係 — "yes" — to open the correction)
_TAKE_ALONG = re.compile(r"(?:and|but)\b\s*|(?:但是|但係|不过|不過|可是|可係|而且|但(?![係系]))", re.IGNORECASE)
_STOP_NEXT = re.compile(r"(?:so|or|because|therefore|then|yet|nor|hence|thus|since)\b|(?:所以|因此|因为|然后|或者|那么|于是)",
                        re.IGNORECASE)

# what may stand beside a thanks/greeting/closer in a clause that is still only filler
_EN_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|\d+")
_EN_COMPLEMENT_START = frozenset("""for with again in so very a all everyone everybody guys team folks too as anytime
    ahead though and also""".split())
_EN_COMPLEMENT_STOP = frozenset("""that which who whom whose where when while because if unless although though but
    so or not no never without nor cannot can't won't don't doesn't didn't isn't aren't shouldn't must should
    please""".split())
# what "and" may add to a thanks or a greeting and still only be polite: a wish or a regard
_EN_WELL_WISH = frozenset("""have a an great nice good lovely wonderful fantastic day days weekend week evening night morning
    afternoon holiday holidays happy merry christmas new year regards best kind warm wishes take care enjoy cheers all the
    your rest of god bless see you soon talk later safe travels stay well""".split())
# (and acknowledgements: a turn that is only "Ok, thanks." is all filler, which the engine keeps whole)
_EN_CONNECTOR_RESIDUE = frozenset({"and", "but", "so", "also", "oh", "ok", "okay", "well", "again", "once", "really", "very",
                                   "much", "so much", "all", "everyone", "great", "perfect", "alright", "cool", "awesome",
                                   "got it", "that's great", "that's perfect", "that's helpful", "that helps",
                                   "that's awesome", "that's very helpful", "this is great", "this helps"})
_ZH_PARTICLES = "啊呀啦哦喔噢嘛哈咯呢吧"
# (帮忙 and 帮助 only: "你好呀帮我写个请假条" is a greeting before the request, never one clause of filler)
_ZH_COMPLEMENT_START = ("的", "大家", "各位", "你们", "您", "你", "老师", "亲", "帮忙", "帮助", "耐心", "解答", "回复", "分享",
                        "提醒", "一直", "了", "啦", "啊", "呀")
# the same for Chinese: what may follow 谢谢(你|您|大家)的 — 帮助, 耐心, 回复 — not 行程安排 or 报价单
_ZH_GENERIC_FOR = frozenset({"帮助", "帮忙", "耐心", "解答", "回复", "回答", "分享", "提醒", "信息", "时间", "支持", "理解", "建议",
                             "配合", "关注", "指导", "指点", "讲解", "解释", "热心", "辛苦", "付出", "关心", "照顾", "鼓励", "信任",
                             "包容", "反馈", "意见", "点拨", "答复", "夸奖", "肯定", "开导", "描述", "推荐", "解惑", "答疑", "指教",
                             "赐教", "体谅", "谅解", "陪伴", "倾听", "好意", "祝福", "分析", "介绍", "帮助和支持", "服务"})
_ZH_CONNECTOR_RESIDUE = frozenset({"但是", "不过", "可是", "而且", "但", "还有", "另外", "那", "那么", "好的", "好", "嗯", "哦", "啊",
                                   "嗯嗯", "好嘞", "收到", "明白了", "知道了"})
# the negation words a reader (and ../shared/tools/invariants.py) counts: a cut never takes one
_NEGATION = re.compile(r"\b(?:not|no|never|don't|dont|don’t|without|cannot|can't|can’t|won't|won’t|shouldn't|mustn't|"
                       r"nor|neither)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_BULLET = re.compile(r"[ \t]*[-*•][ \t]+")
_NUMBERED = re.compile(r"[ \t]*(?:\d+[.)、]|[A-Za-z][.)]|\([A-Za-z0-9]\))")
# a list item's marker with the space after it, opening a sentence
_ITEM_MARK = re.compile(r"[ \t]*(?:[-*+•·]|\d{1,3}[.)、]|[A-Za-z][.)]|\([A-Za-z0-9]\))[ \t]+")
_SOFT_END = "，,、：:；;～〜~"  # (a wave dash ends a clause: view._CLAUSE_END)
_TERMINATORS = "。！？!?…；;.\n"
_SPACE = " \t"


def _negated(text: str, s: int, e: int, zh_neg: list[int]) -> bool:
    """Whether [s, e) holds a negation word: en by pattern (a filler phrase's "don't" counts too), zh by the
    scanner's negation hits (``zh_neg``, flat [start, end, …]; 能不能 and 不好意思 are not negations)."""
    if _NEGATION.search(text, s, e):
        return True
    k = bisect.bisect_left(zh_neg, s)
    if k % 2:
        k -= 1  # landed on an end: the hit starting before s may still reach into the range
    return k < len(zh_neg) and zh_neg[k] < e and zh_neg[k + 1] > s


# who says the quoted words: the user, not the agent ("If the customer writes 'please hurry'", "用户说“麻烦快点”")
_USER_WRITES = re.compile(r"(?i:\b(?:user|customer|client|caller|driver|visitor|guest|patient|they|he|she)s?\s+(?:writes|says|"
                          r"types|sends|replies|asks|texts|messages)\b)|(?:用户|客户|顾客|对方|客人)(?:说|写|发|回复|输入)")


def _user_quoted(text: str, quotes: Sequence[int], s: int, e: int) -> bool:
    """Whether [s, e) lies inside a quotation (``quotes``: [start, end, …], sorted) of what the user says."""
    k = bisect.bisect_right(quotes, s)
    if k % 2 == 0 or quotes[k] < e:
        return False
    q = quotes[k - 1]
    return _USER_WRITES.search(text, max(text.rfind("\n", 0, q) + 1, q - 60), q) is not None


def _norm(phrase: str) -> str:
    return " ".join(phrase.lower().replace("’", "'").split())



# a standing prompt or a user turn whose subject is politeness itself ("Classify politeness as POLITE or RUDE", "React
# to how politely the traveler treats you", "判断消息是否礼貌", "Sort these politeness markers", "把客套话删掉"): every
# courtesy in the conversation is what it judges, reacts to or works on
_POLITENESS_TOPIC = re.compile(
    r"(?i:\bpoliteness\b|\bhow\s+(?:polite|rude|courteous|impolite)(?:ly)?\b|\b(?:polite|courteous)(?:ly)?\s+or\s+"
    r"(?:rude|impolite|not)|\b(?:rude|impolite)(?:ly)?\s+or\s+(?:polite|courteous)|\bcourtesy\s+(?:level|score))"
    r"|(?i:\bpleasantries\b)|是否礼貌|礼貌程度|礼貌与否|有没有礼貌|礼不礼貌|礼貌(?:还是|或|或者)(?:不礼貌|粗鲁|无礼)|[\"“]礼貌[\"”]"
    r"|客套话|客气话"
    # a persona that judges manners ("You are a strict etiquette teacher. You reward students who are polite", "学生有礼貌就表扬")
    r"|(?i:\betiquette\b|\b(?:reward|praise|scold|punish|judge|grade|score|rate)s?\b[^.!?\n]{0,40}?\b(?:polite|rude|impolite|manners)\b)"
    r"|礼仪|有礼貌就|没礼貌就|不礼貌就")
_POLITENESS_WORDS = ("olite", "OLITE", "rude", "RUDE", "ourte", "leasantr", "礼貌", "客套", "客气话", "tiquette", "礼仪")


# a conversation set up to practise a language: its greetings and thanks are the practice ("an A1 Level English
# Conversation Partner Bot … Start conversations with simple greetings", "你扮演银行柜员，帮助用户练习中文口语")
# languages by their English names: those of the lexicons, and others (a chat practising one of those uses ours as its
# own words)
_OUR_LANGUAGES_EN = "English|Chinese|Mandarin"
_OTHER_LANGUAGES_EN = ("Spanish|French|German|Japanese|Korean|Italian|Portuguese|Russian|Turkish|Arabic|Hindi|Dutch|Swedish|"
                       "Polish|Vietnamese|Thai|Indonesian|Greek|Hebrew")
_LANGUAGE_PRACTICE = re.compile(
    r"(?i:\b(?:practi[cs]e|practi[cs]ing|learn|learning|learners?|beginners?)\b[^.!?\n]{0,40}?\b(?:"
    + _OUR_LANGUAGES_EN + "|" + _OTHER_LANGUAGES_EN + r"|language|speaking)\b|"
    r"\b(?:conversation|language|speaking)\s+(?:partner|practi[cs]e|tutor|exchange)\b)"
    r"|练习(?:说)?(?:中文|汉语|普通话|英语|英文|口语|日语|韩语|法语|德语|西班牙语)|口语(?:练习|陪练|对话练习)|语言(?:陪练|交换|学习伙伴)|陪练")


_PRACTISED = (("en", re.compile(r"(?i:\bEnglish\b)|英语|英文")), ("zh", re.compile(r"(?i:\b(?:Chinese|Mandarin)\b)|中文|汉语|普通话")))


_OTHER_LANGUAGE = re.compile(r"(?i:\b(?:" + _OTHER_LANGUAGES_EN + r")\b)|日语|韩语|法语|德语|西班牙语|俄语|意大利语")


def _practised_languages(text: str, standing: list[BlockRef]) -> frozenset[str]:
    """The languages (of the lexicons: "en", "zh") a standing prompt sets the dialogue up to practise — both when it
    names neither ("You are a language exchange partner"); none when it sets up no practice."""
    for b in standing:
        if _LANGUAGE_PRACTICE.search(text, b.start, b.end):
            named = frozenset(lang for lang, rx in _PRACTISED if rx.search(text, b.start, b.end))
            if named or _OTHER_LANGUAGE.search(text, b.start, b.end):
                return named  # ("I am new to Turkish": an English "Hi" is no practice)
            return frozenset(("en", "zh"))
    return frozenset()


def _politeness_is_the_subject(text: str, blocks: list[BlockRef]) -> bool:
    """Whether the standing prompt or a user turn makes politeness its subject (a turn that sorts "politeness
    markers" or asks to strip "客套话" works on them)."""
    return any(any(w in text[b.start:b.end] for w in _POLITENESS_WORDS) and _POLITENESS_TOPIC.search(text, b.start, b.end)
               for b in blocks)


def find(view: TextView, ctx: RuleContext) -> Hits:
    """Filler: whole sentences, whole clauses and frames (see the module doc)."""
    text = view.text
    if not any(view.lexicon_of(name) for name in _LEXICON_NAMES):
        return Hits("filler", [], [], [], 0.05, _OVERRIDE, partial(_detail, text, [], [], [], []))  # most views
    standing = view.standing_blocks()
    if _politeness_is_the_subject(text, standing + [b for b in view.blocks if b.role == "user"]):
        return Hits("filler", [], [], [], 0.05, _OVERRIDE, partial(_detail, text, [], [], [], []))
    practised = _practised_languages(text, standing)
    h_starts, h_ends, h_sources = view.lexicon_columns(_LEXICON_NAMES)
    quotes = ctx.scans.quotes
    keyed: set[str] = set()  # the phrases the standing prompt names ("If the customer writes 'please hurry', …")
    scripted: set[str] = set()  # those it gives the assistant to say ("开场白统一说：“您好，…”"): kept in its replies only

    def in_standing(pos: int) -> bool:
        return any(b.start <= pos < b.end for b in standing)

    hits = []
    for s, e, src in sorted(zip(h_starts, h_ends, h_sources)):
        if _not_filler_en(text, s, e) if _LEXICONS[src][3] == "en" else _not_filler_zh(text, s, e):
            continue
        if _LEXICONS[src][3] == "zh" and text.startswith("的", e) and text[e - 1] in "您你我" and "请" in text[s:e]:
            continue  # "我想请您的建议：…": 您的建议 is the object, not a frame's end (cut, "的建议：" is left)
        if _LEXICONS[src][3] == "zh" and text.endswith("我", s, e) and _POSSESSED.match(text, e):
            # "请帮我导师的博士生改一下摘要": the 我 is whose advisor — the frame's 帮我 is "help my …" and stays
            e = e - 2 if text.endswith("帮我", s, e) else s
            if e <= s:
                continue
        if _LEXICONS[src][3] in practised and not in_standing(s):
            continue  # a language practised in the dialogue: its greetings and thanks are the practice
        named = _mentioned(text, s, e)
        if (named or _user_quoted(text, quotes, s, e)) and in_standing(s):
            (scripted if _assistants_line(text, s) else keyed).add(_norm(text[s:e]))
        if not named:
            hits.append((s, e, src))
    if keyed or scripted:
        # said in a later turn, a phrase the prompt names is what it reacts to ("please hurry", "says please"); one it
        # gives the assistant to say is the script in a reply, and a user's greeting still in a user's turn
        hits = [h for h in hits if in_standing(h[0]) or _norm(text[h[0]:h[1]]) not in keyed
                and (_norm(text[h[0]:h[1]]) not in scripted or view.block_at(h[0]).role == "user")]
    if hits:
        hits = _without_greetings_in_character(view, hits)
    starts: list[int] = []
    ends: list[int] = []
    scores: list[float] = []
    kinds: list[str] = []
    phrases: list[str] = []
    zh_neg = list(view.lexicon_of("negations.zh")) if not text.isascii() else []
    # a block's sentences, listed once: view.sentences builds a new list per call (a long system prompt has
    # thousands), and many hits share a block
    block_sentences: dict[int, list[tuple[int, int]]] = {}
    k = 0
    while k < len(hits):
        s0 = hits[k][0]
        block = view.block_at(s0)
        sents = block_sentences.get(block.start)
        if sents is None:
            sents = block_sentences[block.start] = sentences(view, block)
        j = bisect.bisect_right(sents, (s0, float("inf"))) - 1
        if j < 0 or sents[j][1] <= s0:
            k += 1
            continue
        ss, se = sents[j]
        group: list[_Hit] = []
        while k < len(hits) and hits[k][0] < se:
            if hits[k][1] <= se:
                group.append(hits[k])
            k += 1
        found: list[tuple[int, int, str, int]] = []
        for a, b in _quote_split(text, ss, se):
            part = [h for h in group if a <= h[0] and h[1] <= b]
            if part:
                found.extend(_sentence_candidates(view, text, a, b, block.end, part, zh_neg))
        if (run := _PLEASE_RUN.search(text, ss, se)) is not None and not _mentioned(text, run.start(), run.start(1)):
            # (not words named: "the chorus is just please, please, please")
            # "Please, please, please make sure …": the repeats go with their commas, one "Please" stays (cut one by
            # one, "Please, make sure" was left)
            a1, b1 = run.span(1)
            please = next((h[2] for h in group if a1 <= h[0] < b1), None)
            if please is not None and not any(f[0] < a1 and f[1] > b1 for f in found):
                found = [f for f in found if f[1] <= a1 or f[0] >= b1] + [(a1, b1, "frame", please)]
        for start, end, kind, src in found:
            colon = end
            while colon > start + 1 and text[colon - 1] in " \t":
                colon -= 1
            line_end = text.find("\n", colon)
            before = start  # (not ``k``: the loop's place in ``hits``)
            while before > 0 and text[before - 1] in " \t":
                before -= 1
            if text[colon - 1] in ":：" and text[colon:len(text) if line_end < 0 else line_end].strip() \
                    and before > 0 and text[before - 1] in ",，" \
                    and not _QUESTION_LEAD.fullmatch(text, start, colon - 1):
                # the colon introduces what follows ("Translate this, thanks: Please wait."): it stays, and the comma
                # before the clause goes in its place (a clause opening the sentence keeps its colon with it: "Quick
                # question:" goes whole, or not at all)
                start, end = before - 1, colon - 1
            starts.append(start)
            ends.append(_past_emoticon(text, end))
            scores.append(_LEXICONS[src][1])
            kinds.append(kind)
            phrases.append(f"{_LEXICONS[src][2]} ({_LEXICONS[src][0]}.{_LEXICONS[src][3]})")
    # the detail function is a partial, not a closure: a kept annotation holds it, and a closure's cells are
    # objects the cyclic garbage collector visits
    return Hits("filler", starts, ends, scores, 0.05, _OVERRIDE, partial(_detail, text, starts, ends, kinds, phrases))


# a lead-in that announces the question after its colon: the colon is its own, and goes with it ("Sorry, one more question:
# is it rude …" → "Sorry, is it rude …", "你已经帮了我很多了，最后一个问题：Docker…" → "你已经帮了我很多了，Docker…"; after a thanks the
# colon is the clause's before: "Translate this, thanks: Please wait.")
_QUESTION_LEAD = re.compile(r"(?:(?i:but|and)\s+|但是?|不过|可是)?(?:(?i:(?:one|a|just\s+one)\s+(?:more|last|quick|small|final)\s+question|(?:quick|last|final|another)\s+"
                            r"question)|(?:最后|还有|再|另外)(?:一个|个)?(?:小)?问题|再问(?:一下|一个|个)(?:问题)?|顺便问一下)")


# a system prompt that says what to do when the user greets ("当我向你打招呼时，…", "When the user says hello, …"):
# a greeting in a turn is then the trigger, not filler
_GREETING_TRIGGER = re.compile(r"打招呼|向你问好|跟你问好|和你问好|问候你|(?i:\bgreets?\s+(?:you|the\s+assistant)\b|"
                               r"\b(?:when|if|once)\s+(?:I|the\s+user|users?|someone)\s+(?:greets?|says?\s+(?:hello|hi|hey))\b)")
_GREETING = re.compile(r"(?:[您你]好|大家好|早上好|上午好|中午好|下午好|晚上好|嗨|哈喽|(?i:hi|hello|hey|hey there|hi there|"
                       r"good\s+(?:morning|afternoon|evening)))[呀啊哦！!，,。.\s]*")


# a turn that sets up a role-play: a greeting in it is said in character ("Now I'm going to pretend you're calling me
# … Hello, what did you call for?")
_ROLE_PLAY = re.compile(r"(?i:\bpretend|\brole-?play|\bin\s+character\b)|扮演|假装|角色扮演")
# a thanks, and a system prompt that says what to do when the user thanks ("If the driver says thanks, reply only
# with 'Anytime.'", "如果用户说谢谢，只回复“不客气”", "当用户道谢时"): a thanks in a turn is then the trigger
_THANKS = re.compile(r"(?i:thanks|thank\s+you|thx)|谢谢|感谢|多谢")
_THANKS_TRIGGER = re.compile(r"道谢|致谢|(?i:\bthanks\s+(?:you|the\s+assistant)\b|\bexpress(?:es)?\s+(?:thanks|gratitude)\b)")


def _thanks_keyed(view: TextView) -> bool:
    """Whether the system prompt (the first turn without one) makes a user's thanks a trigger."""
    text = view.text
    for b in view.standing_blocks():
        if _THANKS_TRIGGER.search(text, b.start, b.end):
            return True
        if any(_said_about(text, m.start()) and _said_on_a_condition(text, max(b.start, m.start() - 200), m.start())
               for m in _THANKS.finditer(text, b.start, b.end)):
            return True  # ("If the driver says thanks, …"; not "Do not say "thank you" in your replies", nor "Just say
            # thanks for the support." asking for a message, nor 'I want it to say "thank you so much …"')
    return False


# who says a phrase a prompt names, when it is a user's: "If the customer says thanks", "如果用户说谢谢"
_USER_SUBJECT = re.compile(r"(?i:\b(?:user|users|customer|customers|client|clients|caller|callers|driver|drivers|guest|guests|"
                           r"patient|patients|student|students|buyer|buyers|visitor|visitors|they|someone|anyone|people|"
                           r"he|she|I|we)\b)|用户|客户|顾客|对方|学生|患者|病人|客人|买家|访客|他|她|有人|我")
# … saying it, on a condition: "If the customer says thanks", "当用户说谢谢时" (not "Should I say please and thank you?",
# "帮我写…，就说谢谢大家的支持")
_CONDITION = re.compile(r"(?i:\b(?:if|when|whenever|once|after|each\s+time|every\s+time)\b)|如果|若|当|要是|假如|每次|一旦")
# … saying it: "If the customer says thanks", "when a user writes thank you", "如果用户说谢谢"
_USER_SAYS = re.compile(r"(?:" + _USER_SUBJECT.pattern + r")(?:(?i:\s+(?:\w+\s+){0,2}?(?:says?|said|writes?|wrote|types?|typed|sends?|"
                        r"replies|replied|responds?)\b)|[\u4e00-\u9fff]{0,3}?(?:说|写|发|回复|回))")


def _said_on_a_condition(text: str, a: int, s: int) -> bool:
    """Whether the sentence up to the thanks at ``s`` (``a`` at the earliest; a line break ends a sentence too) has a user
    say it on a condition ("If the customer says thanks, …")."""
    k = max(text.rfind(c, a, s) for c in ".!?。！？\n")
    start = a if k < 0 else k + 1
    return _USER_SAYS.search(text, start, s) is not None and _CONDITION.search(text, start, s) is not None


def _hit_starts_in(hits: list[_Hit], a: int, b: int) -> bool:
    """Whether a hit of ``hits`` (sorted) starts in [a, b)."""
    k = bisect.bisect_left(hits, (a,))
    return k < len(hits) and hits[k][0] < b


def _without_greetings_in_character(view: TextView, hits: list[_Hit]) -> list[_Hit]:
    """``hits`` without the greetings and thanks of the dialogue's turns that are not filler: all greetings where the
    system prompt (the first turn without one) says what to do when the user greets — the greeting is its trigger
    —, all thanks where it says what to do when the user thanks, the greetings of a turn that sets up a
    role-play, and every greeting, thanks, apology or please said in a role-play's turns (in character: "您好！欢迎光临。"
    from a trainee waiter, the persona's "啊……你好，不好意思，我是林远。", "Please, Captain, please take me with you.")."""
    text = view.text
    scripted = None  # looked at once, at the first greeting in a turn
    greets = None  # whether the system prompt tells the assistant to greet (its replies' greetings are then asked for)
    thanked = None  # and at the first thanks in a turn
    in_character = None  # where a role-play's turns start (looked at once)
    out = []
    acted = None  # the role-play's turns that act in character (looked at once)
    for h in hits:
        if _role(text, *h) in ("owner", "only"):
            if in_character is None:
                in_character = role_play_start(view)
            if h[0] >= in_character:
                continue
        else:  # (a please said while acting is the character's: "*I kneel on the wet deck.* Please, Captain, please take me")
            if acted is None:
                acted = acted_turns_from(view)
            if acted and any(a <= h[0] < b for a, b in acted):
                continue
        if _THANKS.match(text, h[0]) and view.block_at(h[0]).role not in ("system", "developer"):
            if thanked is None:
                thanked = _thanks_keyed(view)
            if thanked:
                continue
            block = view.block_at(h[0])
            if block.role in ("assistant", "model") and not _SENTENCE_END_IN.search(text, block.start, h[0]):
                if greets is None:
                    greets = _greeting_asked(view)
                if greets:
                    continue  # 'Start each reply with "Hi, thanks for reaching out!"': the reply's opening thanks
            if _THANKED_NAME.match(text, h[1], view.block_at(h[0]).end) or _NAME_WITH_TITLE.match(text, h[1]):
                continue  # "Thank you, Priya." / "Thank you Dr. Nwosu, …": without the thanks a bare name is left
        if _GREETING.fullmatch(text, h[0], h[1]):
            block = view.block_at(h[0])
            if block.role not in ("system", "developer"):
                if scripted is None:
                    scripted = any(_GREETING_TRIGGER.search(text, b.start, b.end) for b in view.standing_blocks())
                if scripted or _ROLE_PLAY.search(text, block.start, block.end):
                    continue
                if block.role in ("assistant", "model") and _SELF_INTRO.match(text, h[1], block.end):
                    continue  # "Hello, this is Sydney.": the agent introducing itself, in its own voice
                if block.role in ("assistant", "model"):
                    if greets is None:
                        greets = _greeting_asked(view)
                    if greets:
                        continue  # "Start with a friendly greeting": the reply's "Hey!" is what the prompt asks
            voc = _BARE_VOCATIVE.match(text, h[1], view.block_at(h[0]).end)
            if voc is not None and not _hit_starts_in(hits, h[1], voc.end()):
                continue  # "你好，旅行者。": without the greeting a bare form of address is left (not "你好，打扰一下。":
                # what follows is politeness too)
        out.append(h)
    return out


# a system prompt that tells the assistant to greet ("Greet and Establish Connection: Start with a friendly greeting",
# "先向用户问好", "以问候开头")
_GREET_ASKED = re.compile(r"(?i:\b(?:start|begin|open)(?:s|ing)?\s+(?:\w+\s+){0,3}?with\s+(?:a\s+|an\s+)?(?:\w+\s+){0,2}?"
                          r"(?:greeting|hello|salutation)s?\b|\bgreet\s+(?:the\s+|every\s+|each\s+|all\s+|any\s+)?(?:user|customer|client|guest|visitor|"
                          r"caller|them|people|everyone)s?\b|\bgreet\s+and\b|\bgreeting\s+first\b|"
                          # words to open with that greet or thank: 'Start each reply with "Hi, thanks for reaching out!"'
                          r"\b(?:start|begin|open)(?:s|ing)?\s+(?:\w+\s+){0,3}?with\s+[\"“'‘][^\"”\n]{0,20}?\b(?:hi|hello|hey|"
                          r"thanks|thank\s+you|welcome|dear|good\s+(?:morning|afternoon|evening))\b)"
                          r"|(?:先|首先|开头|开场)[^。！？\n]{0,6}?(?:问候|问好|打招呼)|以问候(?:语)?(?:开头|开场|开始)|向用户问好"
                          r"|(?:开头|开场白?|第一句)[^。！？\n“\"]{0,8}?[“\"「][^”\"」\n]{0,12}?(?:您好|你好|大家好|欢迎|感谢|谢谢)")


def _greeting_asked(view: TextView) -> bool:
    """Whether the system prompt tells the assistant to greet (or to open with words that greet or thank)."""
    return any(_GREET_ASKED.search(view.text, b.start, b.end) for b in view.blocks_of_roles(("system", "developer")))


# what follows a greeting in an agent's own introduction
_SELF_INTRO = re.compile(r"[，,!！ \t]*(?:我是|我叫|这里是|(?i:my\s+name\s+is)\b|"
                         r"(?:[Tt]his\s+is|I\s+am|I['’]m)\s+(?:[A-Z]|your\b|an?\s+AI\b))")
# the name a thanks is said to, ending its sentence ("Thank you, Priya.", "谢谢，小王！"): not another thanks ("Thanks,
# 谢谢！"), nor the next sentence ("Thanks! Now Carol.")
# (a name: ending its sentence, its line, or before a dash or a comma — "Thanks, Daniel", "Thanks, Daniel — much
# appreciated!", "Thanks, Daniel, for the notes." —, not the assistant's: "Thanks, Claude!" thanks the one asked)
_THANKED_NAME = re.compile(r"[,，]?[ \t]*(?:(?!(?:Claude|ChatGPT|GPT|Gemini|Copilot|Assistant|AI|Bot)\b)[A-Z][A-Za-z-]*"
                           r"(?:[ \t][A-Z][A-Za-z-]*)?(?:[.!](?:[ \t\n]|\Z)|[ \t]*(?=\n|\Z)|(?=[ \t]*[—–]|,))|"
                           r"(?!" + "|".join((*_ZH_COMPLEMENT_START, *sorted(_ZH_GENERIC_FOR))) + r")"
                           # (谢谢大家！ 谢谢老师！ 谢谢你啊！ 谢谢指点！: its complement)
                           r"[^\W\d_a-zA-Z我你您他她它们请想要是有在吗呢吧了的去找帮谢感多辛麻啊呀啦哦喔噢嘛哈咯]{1,4}[。！])")
# a title before a name, whose full stop is no sentence end ("Thank you Dr. Nwosu, I'll bring …")
_NAME_WITH_TITLE = re.compile(r"[ \t,]*(?:Dr|Mr|Mrs|Ms|Prof|Sr|Jr|Capt|Rev|St)\.[ \t]+[A-Z]")
# a short form of address that ends its sentence ("旅行者。", "纳西妲！", "Jordan."): a name or a title, not a
# clause ("我想去吃饭。")
_BARE_VOCATIVE = re.compile(r"[，, \t]*(?:[^\W\d_a-zA-Z我你您他她它们请想要是有在吗呢吧了的去找帮]{1,4}[。！]|"
                            r"[A-Z][A-Za-z0-9-]*(?:[ \t][A-Z][A-Za-z0-9-]*)?(?:[.!](?:[ \t\n]|\Z)|[。！]))")


# "please" as a verb: "to please stakeholders", "hard to please", "will please them"
_PLEASE_VERB_BEFORE = re.compile(r"(?i:\b(?:to|will|would|can|could|must|might|may|trying|tried|hard|easy|eager|never|always)\s+"
                                 r"|['’]ll\s+)$")  # ("a toast that'll please the in-laws")
# … or before whom it pleases: "How can I please my mother-in-law?", "nothing I do pleases him" ("please him")
_PLEASE_VERB_OBJECT = re.compile(r"[ \t]+(?i:my|his|her|their|our|him|them|us|everyone|everybody|both|a|an|the|every|each|any|"
                                 r"(?:customers?|clients?|people|readers?|users?|investors?|fans?|audiences?|viewers?|guests?|"
                                 r"parents?|bosses?|critics?|judges?)(?![\w-]))\b")  # ("How do I please a customer who …")
# a word in title case after the hit on its line: "Thank You Note", "I Think I Need a Lawyer" (a title, not filler)
_TITLE_AFTER = re.compile(r"[ \t]+[A-Z][a-z]*\b")
_DECLINE_BEFORE = re.compile(r"(?i:\bno[ \t]*,?[ \t]*)\Z")
_ZH_DECLINE_BEFORE = re.compile(r"(?:不用了?|不了|不必了?|算了|不需要了?)[，,]?[ \t]*\Z")
_FOR_NOTHING = re.compile(r"(?i:\s+for\s+nothing\b)")
# a message to pass on, right before its "please": "Tell him please …", "ask the landlord to please …"
_RELAYED = re.compile(r"(?i:\b(?:tell|ask|remind|text|email|message)\s+(?:him|her|them|the\s+\w+|my\s+\w+)\s+(?:to\s+)?)\Z")
# "kindly" after a word of its clause that is no request frame ("Treat new on-call hires kindly"); a softener opens its
# request ("Kindly check", "Please kindly check", "I kindly ask", "could you kindly")
_KINDLY_MANNER = re.compile(r"(?i:\b(?!(?:please|you|i|we|to|and|or|but|so|then|also|would|could|can|will|must|should)\b)"
                            r"[a-z'’-]+)[ \t]+$")
# "as you please", "do whatever they please": the verb
_AS_YOU_PLEASE = re.compile(r"(?i:\b(?:as|if|whatever|whenever|wherever|what|however|whichever|anything|anywhere|"
                            r"any(?:\s+[a-z]+){1,2})\s+(?:you|they|we|he|she|I|one)\s+)$")  # ("any color they please")


# a line that opens with a word or two and "please" before a colon asks for what the words name ("Spanish please:", "In
# French please:", "Summary please:"): without "please" the line only labels the text after it (not a verb's request:
# "Fix the typo please:" → "Fix the typo:" still asks)
_ASKED_LABEL = re.compile(r"(?:^|\n)[ \t]*(?!(?i:fix|translate|summari[sz]e|rewrite|check|make|write|explain|help|show|give|list|"
                          r"tell|find|add|remove|convert|correct|proofread|edit|review|reply|answer|send|draft|polish|shorten|"
                          r"improve|format|sort|compare|describe|create|generate|clean|update|change|turn)\b)"
                          r"(?:[A-Za-z][\w'’-]*,?[ \t]+){1,2}$")
_LABEL_COLON = re.compile(r"[ \t]*[:：]")


def _not_filler_en(text: str, s: int, e: int) -> bool:
    """Whether an English lexicon hit is the words of something else: "as …" after a role verb ("act as an AI
    model": a role), "hi" beside a hyphen or in capitals ("Hi-Fi", "Honolulu, HI"), "thanks … for nothing"
    (sarcasm), "kindly" as a manner ("treat them kindly"), "as you please", "greetings" after other words of its
    sentence (a noun: "Preserve tone, greetings and sign-offs"), and (from a review of the lossless
    default) "please" as a verb or before the name it addresses ("fill this in please Perplexity") or a capital
    "Please" with no sentence break before it (the only mark of one: "{preference} Please design …"), or a phrase in
    title case inside a title ("Subject: Thank You Note", "PROMPT NAME: I Think I Need a Lawyer")."""
    if text[s] in "aA" and text[s:s + 3].lower() == "as " and _ROLE_VERB.search(text, max(0, s - 12), s):
        return True
    if text[s - 1:s] in ("-", "_", "/", ".", "$", "@") and s > 0 or text[e:e + 1] in ("_", "/", "="):
        return True  # part of a flag, an identifier or a path: "--please", "thanks_page", "/thanks", "$please"
    phrase = text[s:e]
    if len(phrase) == 2 and phrase.lower() == "hi":
        # "Hi-Fi", "hi-res", "Honolulu, HI 96815": a word or a state, not a greeting
        return phrase == "HI" or text[s - 1:s] == "-" or text[e:e + 1] == "-"
    low = phrase.lower()
    if low == "greetings":
        # a greeting only opening its sentence ("Greetings!", "Greetings, traveler"); after other words it is the noun
        # ("Preserve tone, greetings and sign-offs.")
        before = text[max(0, s - 40):s].rstrip(" \t*_>#-")
        return bool(before) and before[-1] not in ".!?\n。！？"
    if low.startswith(("thank", "thx")) and _FOR_NOTHING.match(text, e):
        return True  # "Thanks a lot for nothing.": sarcasm, the complaint itself
    if low.startswith(("thank", "thx")) and _DECLINE_BEFORE.search(text, max(0, s - 8), s):
        return True  # "No, thanks! Just run the tests.": a polite decline ("No!" would refuse rudely)
    if low == "kindly" and _KINDLY_MANNER.search(text, max(0, s - 40), s):
        return True  # "Treat new hires kindly", "responded kindly": how something is done, not a request's softener
    if low == "please":
        if _PLEASE_VERB_BEFORE.search(text, max(0, s - 12), s) or _AS_YOU_PLEASE.search(text, max(0, s - 20), s) \
                or _PLEASE_VERB_OBJECT.match(text, e):
            return True
        if _RELAYED.search(text, max(0, s - 30), s):
            return True  # "Tell him please fix the heater": the words of the message to pass on
        if _ASKED_LABEL.search(text, max(0, s - 30), s) and _LABEL_COLON.match(text, e):
            return True  # "Spanish please: The meeting …": the request itself ("Spanish:" would only label the text)
        before = text[max(0, s - 40):s].rstrip(" \t")
        if phrase[0] == "P" and before and before[-1] not in ".!?:;,\n。！？：；，、":
            return True  # "… {supplements_preference} Please design …": its capital is the only sentence break
        after = _TITLE_AFTER.match(text, e)
        if after is not None and text[max(0, s - 2):s].strip() not in ("", ".", "!", "?", ":"):
            return True  # mid-sentence "please" before a capitalised word: a name it addresses, or a title
    words = phrase.split()
    return len(words) >= 2 and all(w[:1].isupper() for w in words) and _TITLE_AFTER.match(text, e) is not None


# the rest of an emoticon a cut ending at its ":" or ";" would leave: "Hope you're having a great day :)" → ")"
_EMOTICON_REST = re.compile(r"-?[)(DPp3\]\[/|*]+(?![\w)(])")


def _past_emoticon(text: str, end: int) -> int:
    if end and text[end - 1] in ":;=":
        m = _EMOTICON_REST.match(text, end)
        if m is not None:
            return m.end()
    return end


# a thanks followed by what went wrong is sarcasm, the complaint itself: "谢谢你啊，把我整个下载文件夹都删了。", "真是谢谢你了，
# 文件全没了"
_SARCASM_ZH = re.compile(r"[你您]?(?:们)?[啊呀了哈]+[，,！!]?[^。！？\n]{0,20}?(?:删|丢|坏|毁|砸|害|弄没|没了|不见|崩|挂了|烂|骗|坑|"
                         r"搞错|弄错|白白|浪费|耽误|扣了|多收|少了)")


def sarcastic_thanks(text: str, e: int) -> bool:
    """Whether the thanks that ends at ``e`` is followed by what went wrong (sarcasm: "谢谢你啊，…都删了")."""
    return _SARCASM_ZH.match(text, e) is not None


# a question of whether something is possible, which a following 如果可以(的话) answers (not a request: 能不能帮我)
_ASKED_IF_POSSIBLE = re.compile(r"(?:可不可以|可以不可以|是否可以|是否能|能否|可否|能不能)(?!帮|麻烦|请|给我|告诉)")


# the condition clause before a stock main clause ("…，请随时告诉我"), and the stock conditions that go with it
_OWN_CONDITION = re.compile(r"(?:^|[。！？!?\n；;])[ \t]*((?:如果|如有|若有|若|要是|倘若|假如)[^。！？!?\n；;，,]{1,30})\Z")
_STOCK_CONDITION = re.compile(r"(?:如果|如有|若有|若|要是|倘若|假如)(?:您|你)?(?:还|对[^，,]{0,8})?(?:有|存在)?(?:任何|其他|其它|什么)?"
                              r"(?:问题|疑问|疑惑|需要|需求|不清楚的地方|不明白的地方)")


# what 不好意思 is too embarrassed to do, right after it: "不好意思拒绝", "不好意思开口", "不好意思直接说"
_EMBARRASSED_TO = re.compile(r"(?:再|直接|当面|跟他|跟她|跟你|跟领导|跟老板)?(?:拒绝|开口|说出口|提|催|推辞|回绝|张口|收下)")


# the office or person an ask frame names right after it, before a comma ("我想问一下社区，", "我想咨询一下街道，")
_ASKED_WHOM = re.compile(r"[\u4e00-\u9fff]{1,10}?[，,]")
# a clause that only greets, thanks or apologises ("你好", "老师您好", "不好意思")
_ZH_GREETING_ONLY = re.compile(r"(?:(?i:hi|hello|hey)|你好|您好|嗨|哈喽|亲|老师|在吗|不好意思|打扰了|打扰一下|抱歉|麻烦了|谢谢|"
                               r"[\u4e00-\u9fff]{1,3}(?:老师|医生|经理|总)(?:您好|你好|好)?)+[啊呀！!，,～~ \t]*")


# a thanks to be said, right after its verb: "感谢一下", "感谢一下顾客", "谢一句"
_THANK_THEM = re.compile(r"一下|一句|一番")


def _not_filler_zh(text: str, s: int, e: int) -> bool:
    """Whether a Chinese lexicon hit is part of a word: 嗨 before a letter or a CJK character (嗨皮, 嗨翻天) — or a
    sarcastic thanks before what went wrong ("谢谢你啊，把我整个下载文件夹都删了"), or the thanks of a polite decline
    ("不用了，谢谢！": "不用了！" refuses curtly)."""
    if text[s] in "谢感多" and (sarcastic_thanks(text, e) or _ZH_DECLINE_BEFORE.search(text, max(0, s - 6), s)):
        return True
    if text[s] in "谢感" and _THANK_THEM.match(text, e) and _MESSAGE_REQUEST.search(text, max(0, s - 80, text.rfind("\x00", 0, s)), s):
        return True  # "帮我写个回复，感谢一下，再说一下…": what the reply is to do (thank them), not the user's thanks
    if text.startswith(("顺便", "順便"), s) and _MESSAGE_REQUEST.search(text, max(0, s - 80, text.rfind("\x00", 0, s)), s):
        return True  # "帮我写一条短信，感谢张师傅…，顺便问一下维修费怎么付": what the message is to ask or say too
    if (text.startswith("如果可以", s) or text.startswith("可以的话", s)) and _ASKED_IF_POSSIBLE.search(text, max(0, s - 80, text.rfind("\x00", 0, s)), s):
        return True  # "…可不可以从公网访问。如果可以的话，顺便看下 8443": the condition is the answer to that question
    if text.startswith(("我想问一下", "我想咨询一下", "想问一下", "想咨询一下"), s) and _ASKED_WHOM.match(text, e):
        return True  # "我想问一下社区，能不能…": whom the user means to ask (cut, "社区，…" reads as addressing it)
    if s > 0 and text[s - 1] in "，,、" and text.startswith(("如果可以", "可以的话", "如果方便", "方便的话"), s):
        # "写一条朋友圈文案，如果可以的话，带上门店地址": after a clause of the request, the condition of what follows (an
        # optional item made required without it); opening the request, or after a greeting, it only softens it
        ls = max(text.rfind(c, 0, s - 1) for c in "。！？!?\n\x00") + 1
        before = text[ls:s - 1].strip()
        if len(before) >= 3 and not _ZH_GREETING_ONLY.fullmatch(before):
            return True
    if s > 0 and text[s - 1] in "，," and text.startswith(("请随时", "随时", "欢迎随时"), s):
        # "如有任何需要补充的材料，请随时告诉我。": a condition of its own needs its main clause (a stock one — "如有任何问题，
        # 请随时告诉我" — goes whole)
        m = _OWN_CONDITION.search(text, max(0, s - 40), s - 1)
        if m is not None and not _STOCK_CONDITION.fullmatch(m.group(1)):
            return True
    if text.startswith("最后一个问题", s) and _QUESTIONS_COUNTED.search(text, max(0, s - 200, text.rfind("\x00", 0, s)), s):
        return True  # an item of the turn's own list ("第一个问题：…第二个问题：…最后一个问题：…"), or the last of someone's
        # questions ("审计提了几个问题，最后一个问题：为什么…")
    if _opens_its_turn(text, s) and _ABOUT_THE_WORDS_ZH.match(text, e):
        return True  # "谢谢，不用了——这句话怎么说…", "麻烦你了，这是…的习惯说法吗？", "别客气，帮我翻译成英文": the words asked about
    if text.startswith("不好意思", s) and _EMBARRASSED_TO.match(text, e):
        return True  # "但是不好意思拒绝": too embarrassed to refuse — why the user asks, not an apology
    if text[s] in "不抱对" and _CORRECTION_AFTER.match(text, e):
        return True  # "我住1502，不好意思，是1205": the mark of a correction, which says what the number replaces
    return e - s == 1 and text[s] == "嗨" and e < len(text) and (text[e].isalnum() or is_cjk(text[e]))


# whom a frame's 我 possesses, right after it: "帮我导师的博士生…", "麻烦你帮我妈妈订票" (it is the beneficiary's possessor)
_POSSESSED = re.compile(r"们?(?:导师|老师|老板|领导|上司|同事|朋友|妈妈|爸爸|父母|家人|孩子|儿子|女儿|老婆|老公|男朋友|女朋友|室友|同学|学生|"
                        r"客户|公司|团队|部门|学校|实验室|课题组|组里"
                        # one character: "帮我妈写…", "帮我爸…", "帮我姐翻译…", "帮我司起草…" (我司, our company)
                        r"|[妈爸姐哥弟妹爷奶姥舅叔姨婶嫂司厂校院]|方(?![便法案面式向]))")
# what a turn asks about the words that open it (after them, past their punctuation): "这句话怎么说…", "这是…说法吗",
# "帮我翻译成英文", "用英文怎么说", "是什么意思"
_ABOUT_THE_WORDS_ZH = re.compile(r"[^。！!？?\n]{0,10}?(?:——|—|–|-|[，,、])[ \t]*(?:这句话?|这是|这个(?:说法|词|表达)|这么说|这样说|"
                                 r"(?:请|麻烦)?(?:帮我)?(?:翻译|翻成|译成)|用[\u4e00-\u9fff]{1,3}怎么说|怎么(?:说|翻译|回)|是什么意思|什么意思)")


def _opens_its_turn(text: str, s: int) -> bool:
    """Whether only spaces stand between the start of ``s``'s block (the separator's NUL, or the text's start) and it."""
    k = s - 1
    while k >= 0 and text[k] in " \t\n":
        k -= 1
    return k < 0 or text[k] == "\x00"


_QUESTIONS_COUNTED = re.compile(r"第[一二三四五六七八九十\d]+个问题|[几两三四五六七八九十\d]+个问题")
# what a correction says after its apology ("不好意思，是1205", "抱歉，说错了，应该是周三")
_CORRECTION_AFTER = re.compile(r"[了啊呀哈]?[ \t]*[，,][ \t]*(?:是|应该是|应是)(?!说)")  # ("不好意思，我是说…" says it without it)


# a request for a message to someone ("帮我写一条短信", "帮我回复领导的消息", "给房东发个微信"): a 顺便问一下 in it is for the message
# (its words as written: a Traditional turn reads 寫一則訊息)
_MESSAGE_REQUEST = re.compile(r"(?:写|寫|回复|回覆|回|发|發|起草)(?:一|个|個|条|條|封|段|份|下|则|則)*(?:[\u4e00-\u9fff]{1,4}的)?"
                              r"(?:短信|簡訊|简讯|微信|消息|訊息|讯息|邮件|郵件|信|回复|回覆|通知|留言|私信|便条|便條|贺卡|賀卡|卡片)"
                              r"|(?:给|給|跟|向)[^，。！？\n]{1,10}?(?:写|寫|发|發|回)")


# what introduces words that are named rather than said: "No filler phrases like: certainly, great question, …",
# "greetings such as hello", "e.g.", 例如, "套话：…"
_MENTION_CUE = re.compile(
    r"(?i:\b(?:phrases?|words?|expressions?|openers?|openings?|greetings?|fillers?|sign-?offs?|closings?|terms?|"
    r"platitudes?|pleasantries)\s+(?:like|such\s+as)\b|\bthe\s+(?:word|phrase|term)s?\s+$|\b(?:like|including)\s*[:：]|"
    r"\b(?:such\s+as|e\.g\.|i\.e\.|"
    r"for\s+example|for\s+instance)(?!\w))"
    r"|例如|比如|诸如|譬如|(?:词|短语|用语|说法|套话|客套话|口头禅|开场白)[^。！？\n]{0,6}?[：:]")
_SENTENCE_END_IN = re.compile(r"[!?。！？]|\.(?=\s)")
# a substring every _MENTION_CUE match holds (lower case): a cheap test before it
_MENTION_HINT = re.compile(r"like|such|e\.g|i\.e|example|instance|includ|word|phrase|term|例如|比如|诸如|譬如|词|短语|用语|说法|套话|口头禅|开场白")


# a verb whose object is the words to say ("Never say please …", "reply with thanks", "如果用户说谢谢"), unless the
# speaker says them now ("I just wanted to say thank you", "我想说谢谢")
_SAY_CUE = re.compile(
    r"(?i:(?:\b(?:say|says|said|saying|use|uses|using|write|writes|type|types|add|adds|include|includes|"
    # words handled as data: "do not trim greetings, thanks, apologies or emojis"
    r"trim|trims|remove|removes|strip|strips|delete|deletes|drop|drops|preserve|preserves|count|counts|detect|detects|"
    r"flag|flags|ignore|ignores|exclude|excludes|filter|filters|ban|bans|banned|forbid|forbids|avoid|avoids|allow|allows)\b"
    r"|\b(?:reply|replies|replying|respond|responds|responding|answer|answers|start|starts|begin|begins|end|ends|"
    r"open|opens|close|closes)\s+with\b|\bfill\s+in(?:\s+the\s+blanks?)?\s+with\b|\bchoose\s+(?:from|between)\b|"
    r"\bpick\s+(?:from|one\s+of)\b|\bleave\s+out\b|\bomit\b|\bskip\b|\b(?:complete|fill\s+in)\s+with\b)(?:\s+(?:the|a)?\s*(?:words?|phrases?|greetings?))?)[ \t]*[\"'“‘「]?"
    r"|(?:说|回复|回答|写上|加上|使用)[“\"'「]?")
# a substring every _SAY_CUE match holds (lower case): a cheap test before it
_SAY_HINT = re.compile(r"say|said|us[ei]|writ|wrot|typ|add|includ|with|trim|remov|strip|delet|drop|preserv|count|detect|flag|leave|omit|skip|"
                       r"choose|pick|ban|forbid|avoid|allow|"
                       r"ignor|exclud|filter|说|回复|回答|写上|加上|使用|统一|一律|开头|结尾|开场|结束")
# a verb whose object is a whole script, to the end of its sentence ("开头统一用 您好，很高兴为您服务。", "Always start with:
# Hi, thanks for reaching out to Acme."): each politeness phrase in it is the script's
_SCRIPT_CUE = re.compile(r"(?:开头|结尾|开场|结束|开场白|结束语)(?:时|的时候)?(?:统一|一律|都|请|要|必须)?(?:用|说|使用|是|为)|(?:统一|一律)(?:用|使用|说)"
                         r"|以[^。！？\n]{0,12}?(?:开头|结尾)|(?i:\b(?:start|begin|end|open|close|finish|sign(?:\s+off)?)s?\b[^.!?\n]{0,30}?"
                         r"\bwith\b)")
_SAID_NOW = re.compile(r"(?i:\b(?:I|we)\s+(?:just\s+|really\s+|also\s+)?(?:want(?:ed)?|would\s+like|'d\s+like|have)\s+to\s+"
                       # (not a question about the words: "Should I say please in emails?")
                       r"|\blet\s+me\s+|(?<!should )(?<!would )(?<!could )(?<!shall )(?<!must )(?<!do )(?<!can )(?<!may )"
                       r"\bI\s+(?:just\s+)?)$|(?:我|我们)(?:只是|就是|真的|也)?(?:想|要|得|必须)?$")
# the words between a say-verb and a later item of the same list of words ("say please and thank you", "say hello,
# thanks or sorry"): one word each ("Reply with the translation only, please" is no list)
_SAID_LIST = re.compile(r"(?:[ \t]*(?:,|、|/)[ \t]*)?(?:(?:(?i:thank[ \t]+you|excuse[ \t]+me|good[ \t]+(?:morning|night|bye))|[\w'’-]+)"
                        r"[\"'”’」]?[ \t]*"
                        r"(?:,[ \t]*(?:and|or)\b|,|、|/|\band\b|\bor\b|和|或)[ \t]*[\"'“‘「]?){0,4}")
# an item of a list of labels or words after a colon ("Allowed labels: hello, thanks, please-help, sorry, other.",
# "意图：问候、感谢、投诉、其他"): three or more short items between list separators (a Chinese "，" separates clauses,
# not items: "好的，谢谢，没有问题了" is no list)
_LIST_SEP = re.compile(r"[ \t]*(?:,|、|/|;|；|\bor\b|\band\b|或|和)[ \t]*")
_ITEM_MAX_WORDS = 3


# a thanks that closes its sentence ("…, thanks." / "…, thank you!"), not an item of a list of words
_TRAILING_THANKS = re.compile(r"(?i:thanks|thank\s+you|thx|ty)(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?[ \t]*(?:[.!。！]+|$)",
                              re.MULTILINE)


_POLITE_ITEM = re.compile(r"(?i:\b(?:hello|hi|hey|please|sorry|thanks|thank\s+you|cheers|greetings|apologies|regards|"
                          r"welcome|goodbye|bye)\W*$)|(?:您好|你好|谢谢|请|抱歉|对不起|不好意思)\W*$")


def _said_about(text: str, s: int) -> bool:
    """Whether the hit at ``s`` is the object of a say-verb (possibly a later item of its list), not said now."""
    ls = max(text.rfind("\n", 0, s) + 1, s - 80)
    if not _SAY_HINT.search(text[ls:s].lower()):  # (most hits: no say-verb before them; the full search costs more)
        return False
    for cue in reversed(list(_SAY_CUE.finditer(text, ls, s))):
        between = _SAID_LIST.match(text, cue.end(), s)
        if between is not None and between.end() == s:
            items = between.group(0).strip(" \t,、/\"'“‘「”’」")
            if items and _TRAILING_THANKS.match(text, s) and not _POLITE_ITEM.search(items):
                # "Please don't use emojis, thanks.": the last words of the sentence, after a comma only (but "Never
                # say hello, thanks." lists two words)
                return False
            return _SAID_NOW.search(text, max(ls, cue.start() - 30), cue.start()) is None
    script = None
    for script in _SCRIPT_CUE.finditer(text, ls, s):
        pass
    return script is not None and not _SENTENCE_END_IN.search(text, script.end(), s)


# what the assistant is given to say: a script ("开场白统一说", "Always start with"), or the words to reply with ("reply
# with 'Anytime.'", "只回复“不客气”") — not what a user says ("If the customer says thanks", "如果用户说谢谢")
_ASSISTANTS_CUE = re.compile(r"(?i:\b(?:reply|replies|respond|responds|answer|answers)\s+(?:only\s+)?with\b)|回复|回答")


def _assistants_line(text: str, s: int) -> bool:
    """Whether the phrase at ``s``, named by the standing prompt, is a line it gives the assistant to say: the last
    script or reply cue of its sentence before it."""
    ls = max(text.rfind("\n", 0, s) + 1, s - 80)
    cue = None
    for cue in _SCRIPT_CUE.finditer(text, ls, s):
        pass
    for m in _ASSISTANTS_CUE.finditer(text, cue.end() if cue is not None else ls, s):
        cue = m
    return cue is not None and not _SENTENCE_END_IN.search(text, cue.end(), s)


def _list_item(text: str, s: int, e: int) -> bool:
    """Whether the hit [s, e) is one whole item of a list of at least three short items after a colon on its line
    ("Allowed labels: hello, thanks, please-help, sorry, other."; "一级意图：问候、感谢、投诉、其他")."""
    ls = text.rfind("\n", 0, s) + 1
    le = text.find("\n", e)
    le = len(text) if le < 0 else le
    colon = max(text.rfind(":", ls, s), text.rfind("：", ls, s))
    if colon < 0:
        return False
    start = colon + 1
    end = le
    for stop in (".", "。", "!", "！", "?", "？"):
        k = text.find(stop, e, le)
        if k >= 0 and (stop != "." or k + 1 >= le or text[k + 1] in " \t"):
            end = min(end, k)
    items = [t.strip(" \t\"'“”‘’「」*_`()（）") for t in _LIST_SEP.split(text[start:end])]
    if len(items) < 3 or not all(items):
        return False
    hit = text[s:e].strip(" \t,，、")
    if hit not in items:
        return False
    return all(len(t.split()) <= _ITEM_MAX_WORDS and (t.isascii() or len(t) <= 6) for t in items)


# a phrase asked about: "麻烦你了用英语怎么说？", "谢谢用日语怎么说？早上好呢？", "How do you say 'thank you' in Korean?",
# "What does 'cheers' mean?"
_LANGUAGE_NAME = r"(?:英语|英文|日语|日文|韩语|韩文|法语|德语|西班牙语|俄语|中文|汉语|粤语)"
_ASKED_AFTER = re.compile(r"[ \t]*[\"'”’」]?[ \t]*(?:这句话?|这个词)?[ \t]*(?:(?:用|在)?" + _LANGUAGE_NAME + r"(?:里|中)?)?[ \t]*(?:又|还|该|应该|要)?"
                          r"(?:怎么说|怎么讲|如何说|如何表达|怎么表达|怎么翻译|怎么写|是什么意思|什么意思)"
                          r"|[ \t]*[\"'”’」]?[ \t]*呢[？?]"
                          r"|(?i:[ \t]*[\"'”’]?[ \t]*(?:in\s+(?:English|Chinese|Japanese|Korean|French|German|Spanish|Italian|"
                          r"Russian|Portuguese)\s*\?|mean\s*\?))")
_ASKED_BEFORE = re.compile(r"(?i:\bhow\s+(?:do|would|can|should)\s+(?:you|I|we)\s+(?:say|write|translate)|\bwhat\s+does|"
                           r"\bwhat(?:'s|\s+is)\s+the\s+(?:meaning|origin)\s+of)[ \t]*[\"'“‘]?[ \t]*\Z")


def _asked_about(text: str, s: int, e: int) -> bool:
    """Whether the hit [s, e) is the phrase a question asks about ("…用英语怎么说？", "How do you say 'thanks' in …?"),
    or, after such a question, the next phrase asked the same way ("早上好呢？")."""
    if _ASKED_AFTER.match(text, e) is not None:
        if not text[e:e + 8].lstrip(" \t\"'”’」").startswith("呢"):
            return True
        # "…呢？" asks "and this one?" only after a question about a phrase
        return any(w in text[max(0, s - 60):s] for w in ("怎么说", "怎么讲", "怎么翻译", "什么意思", "如何表达"))
    if _ASKED_BEFORE.search(text, max(0, s - 40), s) is not None:
        return True
    # the next phrase asked the same way, elliptically: "How do you say thank you in Japanese? Also good morning."
    return _ALSO_BEFORE.search(text, max(0, s - 16), s) is not None \
        and _ASKED_EARLIER.search(text, max(0, s - 200, text.rfind("\x00", 0, s)), s) is not None


_ALSO_BEFORE = re.compile(r"(?i:\b(?:also|and|plus|what\s+about|how\s+about)\s*[,:]?\s*)\Z|(?:还有|以及|另外)\s*[，,]?\s*\Z")
_ASKED_EARLIER = re.compile(r"(?i:\bhow\s+(?:do|would|can|should)\s+(?:you|I|we)\s+(?:say|write|translate)\b|\bin\s+(?:"
                            + _OUR_LANGUAGES_EN + "|" + _OTHER_LANGUAGES_EN + r")\s*\?)|怎么说|怎么讲|如何说|怎么表达|怎么翻译")


# a word talked about: the object of keep/remove/drop ("keep please in that sentence"), or named as a word after it
# an item numbered inside a line, with the next item after it ("1. please 2. thanks")
_NUMBERED_BEFORE = re.compile(r"(?<=[^\n\s])[ \t]+\d{1,2}[.)][ \t]*\Z")
_NEXT_NUMBERED = re.compile(r"[ \t]+\d{1,2}[.)][ \t]")
_KEEP_THE_WORD = re.compile(r"(?i:\b(?:keep|remove|delete|drop|cut|add|omit|avoid\s+using|the\s+word|the\s+phrase|spell|"
                            r"pronounce|define|"
                            r"(?:the\s+)?same\s+as|versus|vs\.?|the\s+(?:polite|formal|informal|usual|normal|english|chinese))"
                            r"\s+(?:the\s+|an?\s+)?[\"'“‘]?)\Z"
                            # ("gracias is thanks and por favor is please", "Bitte means please", "the chorus is just please,
                            # please, please")
                            r"|(?i:\b(?:means|is|=|translates\s+(?:to|as))\s+(?:just\s+|only\s+|simply\s+)?[\"'“‘]?)\Z"
                            # ("the difference between please and kindly", "Rewrite this without please:", "every please")
                            r"|(?i:\b(?:between|without(?:\s+(?:any|saying|using))?|every|each)\s+[\"'“‘]?)\Z"
                            r"|(?i:\bbetween\s+[\"'“‘]?[a-z]+(?:\s+[a-z]+)?[\"'”’]?\s+(?:and|or)\s+[\"'“‘]?)\Z"
                            # ("Teach my kid to say thank you and please")
                            r"|(?i:\bsay\s+(?:thank\s+you|thanks|sorry|hello|hi|please)\s*(?:,|and|or)\s+)\Z"
                            # ("Avoid sorry and please in toasts")
                            r"|(?i:\bavoid\s+(?:(?:sorry|thanks|thank\s+you|hi|hello|hey|apologies|kindly|just|please)"
                            r"[\"'”’]?\s*(?:,\s*|\s+(?:and|or)\s+))*[\"'“‘]?)\Z"
                            # ("I aliased please to sudo", "a command called please")
                            r"|(?i:\b(?:alias(?:ed)?|command|called|named|function|script|binary)\s+)\Z"
                            r"|(?:保留|删掉|删除|去掉|加上|不要用|用了|这个词|这个字|单词|保留成|保留为|翻成|译成|译为|翻译成|翻译为|"
                            r"写成|对应)\s*[\"'“‘「]?\Z")
_THE_WORD_AFTER = re.compile(r"[\"'”’」]?\s*(?:(?i:(?:and|or|vs\.?)\s+(?:thank\s+you|thanks|sorry)\s+(?:makes?|are|is|sounds?|feels?|"
                             r"matters?|helps?|works?|to\s+(?:chatgpt|ai|an?\s+(?:ai|bot|chatbot|assistant)|the\s+(?:ai|bot|"
                             r"model|assistant)|claude))\b|in\s+(?:that|this|the|my|your)\s+(?:sentence|line|e-?mail|message|text|"
                             r"draft|letter|reply|note|version|post|paragraph)\b|"
                             r"(?:is|sounds|feels)\s+(?:too|more|less|a\s+bit)\b)|这个字|這個字|这个词|这个单词|一词|二字|这两个字"
                             r"|\s*(?:和|与|跟|或|还有)\s*[A-Za-z]"  # ("please 和 thank you 在日文里怎么说？")
                             r"|(?:和|与|跟)[^。！？\n]{1,8}?(?:有什么|有啥|的)?(?:区别|不同|差别|异同))")  # ("请问和请教有什么区别？")


# "please" named as a command, an alias or a target nearby: then every "please" there is that name
_PLEASE_AS_OBJECT = re.compile(r"(?i:\b(?:make|let|run|running|ran|call|calls|invoke|tell|ask|to|the|our|my|your|type|typed|use|"
                               r"using|with|for|of|named|called|alias|aliased|sudo|and)\s+[`'\"]?)\Z")
_PLEASE_NAMED = re.compile(r"(?i:\balias(?:ed)?\s+please\b|`please`|\b(?:named|called|dubbed)\s+(?:(?:my|our|the|it|him|her|them)\s+"
                           r"(?:[a-z]+\s+){0,2})?please\b|\b(?:command|target|function|script|alias|binary|program|tool|cli|"
                           r"task|recipe)\s+(?:called|named)\s+please\b|\bplease\s+(?:is|was)\s+(?:an?\s+|my\s+|our\s+)?"
                           r"(?:alias|command|target|script)\b)|别名(?:叫|是|为)\s*please|(?:叫|名为)\s*please\s*的(?:命令|别名|脚本|目标)")


def _first_of_run(text: str, s: int, e: int) -> int:
    """Where the first of a run of the same word with commas ("please, please, please") starts, for the one at [s, e)."""
    word = text[s:e].lower()
    while True:
        k = s
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if k == 0 or text[k - 1] != ",":
            return s
        k -= 1
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if k < len(word) or text[k - len(word):k].lower() != word:
            return s
        s = k - len(word)


def _mentioned(text: str, s: int, e: int) -> bool:
    """Whether a filler hit is a phrase named rather than said: after a cue that lists words (``_MENTION_CUE``)
    in the same sentence, an item of a bracketed list ("(certainly, absolutely, great question, etc.)") —
    a list of banned phrases loses a ban when one of them goes —, the object of a say-verb ("Never say please when
    …", "If the driver says thanks, …") or one item of a list of short labels ("intent: greeting, thanks,
    complaint, other")."""
    ls = max(text.rfind("\n", 0, s) + 1, s - 200)
    window = text[ls:s]
    cue = None
    if _MENTION_HINT.search(window.lower()):  # (most hits: no cue before them; the full search costs more)
        for cue in _MENTION_CUE.finditer(window):
            pass
    if cue is not None and not _SENTENCE_END_IN.search(window, cue.end()):
        return True
    if _said_about(text, s) or _list_item(text, s, e) or _asked_about(text, s, e):
        return True
    if text[s:e].lower() == "please" and _PLEASE_NAMED.search(text, max(0, s - 600), min(len(text), e + 400)) \
            and (_PLEASE_AS_OBJECT.search(text, max(0, s - 16), s) or _PLEASE_NAMED.search(text, max(0, s - 40), e)):
        return True  # "a command called please … make please accept …": the name, where a name goes (after "make",
        # "run", "to", "the" …); "Please make please reply" keeps its first, polite please out
    if _KEEP_THE_WORD.search(text, max(0, s - 24), s) or _THE_WORD_AFTER.match(text, e):
        return True  # "I want to keep please in that sentence", "我想保留 please 這個字": a word talked about
    first = _first_of_run(text, s, e)
    if first != s and _mentioned(text, first, first + e - s):
        return True  # the same word again, after one named: "the chorus is just please, please, please"
    if text[s - 1:s] == "、" or text[e:e + 1] == "、" or _NUMBERED_BEFORE.search(text, max(0, s - 6), s) \
            and _NEXT_NUMBERED.match(text, e):
        return True  # an item of an enumeration: "我只知道请、谢谢、对不起。", "Answer key: 1. please 2. thanks"
    if text[s:e].isascii() and _CJK_CHAR.match(text[s - 2:s].strip()[-1:] or "a") \
            and _CJK_CHAR.match(text[e:e + 2].strip()[:1] or "a"):
        return True  # an English word set in a Chinese sentence: "英语的 please 放在句首和句尾有区别吗？"
    for opener, closer in (("(", ")"), ("（", "）")):
        o = window.rfind(opener)
        if o >= 0 and closer not in window[o:]:
            c = text.find(closer, e, e + 200)
            inner = window[o + 1:] + text[s:c] if c >= 0 else ""
            if inner.count(",") + inner.count("，") + inner.count("、") >= 2:
                return True
    return False


def _detail(text: str, starts: list[int], ends: list[int], kinds: list[str], phrases: list[str], k: int) -> str:
    return f"{kinds[k]} {text[starts[k]:ends[k]].strip()!r}: {phrases[k]}"


# --- one sentence ----------------------------------------------------------------------------------------------

def _runs(text: str, group: list[_Hit]) -> list[_Run]:
    """Hits merged into runs: neighbours separated only by spaces form one run [start, end, [hits]]."""
    runs: list[_Run] = []
    for s, e, src in group:
        if runs and s >= runs[-1][1] and not text[runs[-1][1]:s].strip():
            runs[-1][1] = max(runs[-1][1], e)
            runs[-1][2].append((s, e, src))
        elif runs and s < runs[-1][1]:
            continue  # overlapping hits of two lexicons: the first (longest at that position) stands
        else:
            runs.append([s, e, [(s, e, src)]])
    return runs


def _role(text: str, s: int, e: int, src: int) -> str:
    """What a hit may do: 'word' (please), 'opener' (a request frame), 'ask' (请问), 'hedge', 'stance' (a hedge
    saying how sure the speaker is: see _EN_STANCE), 'only' (goes only
    with its whole sentence), 'owner' (thanks, greeting, closer: may own a short complement)."""
    return _phrase_role(text[s:e], src)


@lru_cache(maxsize=4096)
def _phrase_role(phrase: str, src: int) -> str:
    """:func:`_role` of a phrase of lexicon ``src`` (it depends on nothing else: remembered)."""
    kind, _, _, lang = _LEXICONS[src]
    if lang == "en":
        p = _norm(phrase)
        if p in _EN_WORD_FRAMES:
            return "word"
        if _EN_SENTENCE_ONLY.match(p):
            return "only"
        if _EN_OPENERS.fullmatch(p):
            return "opener"
        if kind == "hedges":
            return "stance" if p in _EN_STANCE else "hedge"
        return "owner"
    if _ZH_ASK_FRAMES.match(phrase):
        return "ask"
    if _ZH_SENTENCE_ONLY.match(phrase):
        return "only"
    if _ZH_REQUEST_FRAMES.match(phrase):
        return "opener"
    if kind == "hedges":
        return "stance" if phrase in _ZH_STANCE else "hedge"
    return "owner"


# hedges that say how sure the speaker is, or whose view it is ("I think", "as far as I know", 我觉得, 据我所知):
# taken away, an opinion or a guess reads as a fact ("I feel like my body is giving up", 我觉得这个地方有点远).
# They go only where the sentence keeps the doubt (it asks: "根据我的理解，意外险不赔付猝死，对吗？") or where what
# follows asks the model to act ("I think you should …", 我觉得你可以…); the other hedges ("to be honest",
# "needless to say", 说实话, 总的来说) are manner, not stance
_EN_STANCE = frozenset(p.strip() for p in """
    i think|i believe|i feel like|i feel that|i guess|i suppose|i reckon|i would say|i'd say|
    i'd argue that|i would argue that|i'd guess|my guess is that|my sense is that|my feeling is that|in my opinion|
    in my humble opinion|in my personal opinion|in my view|in my experience|my opinion is that|from my perspective|
    from my point of view|from where i stand|if you ask me|i'm pretty sure|i'm pretty sure that|i'm fairly sure|
    i'm fairly certain|it seems to me that|it seems to me|it appears to me that|as far as i know|as far as i can tell|
    as far as i'm concerned|to my knowledge|to the best of my knowledge|if i'm not mistaken|if i remember correctly|
    if i recall correctly|my understanding is that|based on my understanding|from my understanding|as i understand it|
    imho|imo|iirc|afaik""".split("|"))
_ZH_STANCE = frozenset("""我觉得 我觉得吧 我感觉 我感觉吧 我认为 我个人认为 我个人觉得 我个人感觉 我个人的看法是 我个人的观点是
    我个人的意见是 我的看法是 我的观点是 个人认为 个人觉得 个人感觉 个人看来 在我看来 依我看 依我看来 依我之见 以我之见 就我看来
    以我来看 要我说 依我说 照我说 从我的角度来看 私以为 窃以为 愚以为 鄙人认为 本人认为 笔者认为 我猜 我估计 我倾向于认为 根据我的理解
    按我的理解 按照我的理解 我的理解是 就我的理解 据我理解 据我所知 据我了解 就我所知 根据我的经验 以我的经验 凭我的经验
    从我的经验来看 就我的经验而言""".split())
# what follows a stance hedge when it frames a request to the model, not a claim
# ("you will"/"you would" is a prediction, not a request: "I think you will get a more accurate answer")
_EN_REQUEST_AFTER = re.compile(r"(?:that\s+)?(?:you|we)\s+(?:should|could|can|might\s+want|may\s+want|must|need|ought|"
                               r"have to|had better|'d better)\b|(?:it\s+)?(?:would|might)\s+be\s+(?:better|best|good|"
                               r"great|helpful|nice)\b", re.IGNORECASE)
_ZH_REQUEST_AFTER = re.compile(r"[你您](?:们)?(?:可以|应该|需要|最好|能|要|不妨|得|该|帮|给|先|再)|(?:可以|最好|不妨)")


# a question asking whether what precedes it is right
_CONFIRM_TAG = re.compile(r"(?:对吗|是吗|对不对|是不是|没错吧|对吧|是这样吗|(?i:\bright|\bcorrect|isn't it|is that so|am i right))"
                          r"[ \t]*[?？]$")


def _stance_may_go(text: str, rest_start: int, se: int) -> bool:
    """Whether a stance hedge before ``text[rest_start:se]`` (the rest of its sentence) may go: the sentence
    asks whether the claim is right, or the rest asks the model to act."""
    tail = text[rest_start:se + 1].rstrip(" \t\n\"'”’」』）)*_")  # (a sentence's end may stop before its "?")
    if tail.endswith(("?", "？")) and (_CONFIRM_TAG.search(tail) or not any(c in tail for c in ",，;；")):
        return True  # the claim itself is asked about
    return bool(_EN_REQUEST_AFTER.match(text, rest_start) or _ZH_REQUEST_AFTER.match(text, rest_start))


def _body(text: str, cs: int, ce: int) -> tuple[int, int]:
    """A clause without its closing punctuation and surrounding spaces."""
    while ce > cs and (text[ce - 1] in _SOFT_END or text[ce - 1] in _TERMINATORS or text[ce - 1] in "”’」』）)\"' \t"):
        ce -= 1
    while cs < ce and text[cs] in _SPACE:
        cs += 1
    return cs, ce


def _residue(text: str, bs: int, be: int, runs: list[_Run]) -> list[tuple[int, int]]:
    """The pieces of [bs, be) outside the runs, with visible text."""
    out = []
    pos = bs
    for rs, re_, _ in runs:
        if rs > pos and _EMOJI.sub("", text[pos:rs]).strip(" \t,，、:：;；!！?？.。…-—~～*_"):
            out.append((pos, rs))
        pos = max(pos, re_)
    if be > pos and _EMOJI.sub("", text[pos:be]).strip(" \t,，、:：;；!！?？.。…-—~～*_"):
        out.append((pos, be))
    return out


# an acknowledgement that answers the question the turn before asked ("Would you like insurance for $12?" — "OK,
# thanks."): it says yes, and stays when its thanks goes
_ACK_EN = frozenset({"ok", "okay", "alright", "sure", "yes", "yeah", "yep", "fine", "great", "perfect", "got it", "sounds good"})
_ACK_ZH = frozenset({"好的", "好", "嗯", "嗯嗯", "行", "可以", "没问题", "收到", "是的", "对", "好嘞", "明白了", "知道了"})


def _answers_a_question(view: TextView, text: str, ss: int, se: int, info: list[_Clause]) -> bool:
    """Whether the sentence [ss, se) opens a user turn right after an assistant turn that ends with a question, and one
    of its clauses is an acknowledgement alone ("OK, thanks." / "好的，谢谢。" after "…要加购12元的意外险吗？")."""
    bi = view.block_index_at(ss)
    if bi <= 0:
        return False
    block, prev = view.blocks[bi], view.blocks[bi - 1]
    if block.role != "user" or prev.role != "assistant" or text[block.start:ss].strip():
        return False
    tail = text[max(prev.start, prev.end - 120):prev.end].rstrip(" \t\n*_\"'”」)）")
    if not (tail.endswith(("?", "？")) or tail.endswith("吗")):
        return False
    for _, _, bs, be, inside, _ in info:
        # the acknowledgement alone, or before its thanks ("好的谢谢！", "Ok thanks.")
        p = text[bs:inside[0][0] if inside else be].strip(" \t,，、:：;；!！.。~～")
        if _is_ack(p):
            return True
    return False


def _is_ack(p: str) -> bool:
    return bool(p) and (_norm(p) in _ACK_EN if p.isascii() else p in _ACK_ZH)


# what a greeting or a thanks may carry and still say nothing: emoji and emoticons ("Hello :)", "Hey hey 👋",
# "谢啦(*^▽^*)"); the same emoji in a sentence with content stays with it
_EMOJI = re.compile("(?:" + EMOJI_CHARS + "|"
                    r"(?<![\w:])[:;=][-'^]?[)(DPp3]+(?![\w(])|\^_*\^|"
                    r"\([^()\n\w\u3400-\u9fff]{1,10}(?:\)|\Z)|[(（][^()（）\n\w\u3400-\u9fff]{1,4}[\w▽ω∀д◡][^()（）\n\w\u3400-\u9fff]{1,4}[)）])+")


def _ends_with_emoji(text: str, bs: int, be: int) -> bool:
    """Whether the clause body [bs, be) ends with an emoji or an emoticon."""
    last = None
    for last in _EMOJI.finditer(text, max(bs, be - 24), be):
        pass
    return last is not None and last.end() == be and last.start() > bs


# a greeting right before an emoji: nothing after the emoji is what it greets for ("你好👋 秘鲁的首都是哪里？")
_GREETING_BEFORE = re.compile(r"(?:(?i:\b(?:hi+|hey+|hello+|hiya|yo|howdy|morning))|你好|您好|哈喽|哈啰|嗨|早上好|早安|晚上好|下午好|"
                              r"大家好|在吗)[呀啊哇~～!！]*\Z")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
# what a thanks goes on with after an emoji: whom or what it thanks for ("Thanks 🙏 for the plan", "感谢🙏您对我们的支持")
_THANKS_GOES_ON = re.compile(r"(?i:for|so|a|again|to|you|ya|u|in|very|much|anyway|though|and|but|from|everyone|all|guys|"
                             r"team|folks|heaps|loads|tons|everybody|man|mate)\b")
_THANKED_FIRST = "您你大各老亲的对为给这那"


def _split_at_emoji(text: str, ss: int, se: int, cls: list[tuple[int, int]], runs: list[_Run]) -> list[tuple[int, int]]:
    """The sentence's clauses, an emoji or emoticon ending one where a greeting or a thanks stands on its side of it
    ("hiii 😊 how long …", "Hello :) what time …", "我不吃牛肉🥦 谢谢～"): a clause break without a comma.  Not before
    what goes on from it ("Thanks 🙏 for the detailed plan", "感谢🙏 您对我们的支持"), and no break inside an emoticon."""
    marks = [m.span() for m in _EMOJI.finditer(text, ss, se)]
    if not marks:
        return cls
    ends = [ce for _, ce in cls[:-1] if not any(a < ce < b for a, b in marks)]
    run_starts = {r[0] for r in runs}
    run_ends = {r[1] for r in runs}
    for a, b in marks:
        k = b
        while k < se and text[k] in _SPACE:
            k += 1
        if k >= se:
            continue
        j = a
        while j > ss and text[j - 1] in _SPACE:
            j -= 1
        after_filler = j in run_ends  # "hiii 😊 …": the greeting before the emoji
        before_filler = k in run_starts and _closes_sentence(text, k, se, runs)  # "… 🥦 谢谢～", "…🥦谢谢～"
        greeting = after_filler and _GREETING_BEFORE.search(text, max(ss, j - 12), j) is not None
        if k == b and not before_filler and not (after_filler and _CJK_CHAR.match(text, k) and text[k] not in _THANKED_FIRST
                                                 or greeting):
            continue  # glued to the next word: a break only after a greeting ("Hi👋I'm", "你好😊我…") or a Chinese
            # thanks before what is no object of it ("谢谢🙏我还有一个问题", not "感谢🙏您对我们的支持")
        if (after_filler and (text[k].isupper() or _ASKS.match(text, k) or _REQUESTS.match(text, k)
                              or greeting and (_CJK_CHAR.match(text, k) or text[k].isalpha())
                              or _CJK_CHAR.match(text, k) and text[k] not in _THANKED_FIRST
                              or text[k].isascii() and text[k].isalpha() and not _THANKS_GOES_ON.match(text, k))) \
                or before_filler:
            ends.append(b)  # ("hey 😄 i'm allergic …", "thanks 😊 one more question: …"; not "Thanks 🙏 for the plan")
    ends = sorted(set(ends))
    out: list[tuple[int, int]] = []
    pos = cls[0][0]
    for e in [*ends, cls[-1][1]]:
        s = pos
        while s < e and text[s].isspace():
            s += 1
        if s < e:
            out.append((s, e))
        pos = e
    return out or cls


def _closes_sentence(text: str, k: int, se: int, runs: list[_Run]) -> bool:
    """Whether the filler run at ``k`` is all that is left of the sentence (its closing thanks)."""
    run = next(r for r in runs if r[0] == k)
    return not text[run[1]:se].strip(" \t" + _SOFT_END + _TERMINATORS + "~～")


def _is_connector_residue(piece: str) -> bool:
    p = _EMOJI.sub("", piece).strip(" \t,，、:：;；!！?？.。…-—~～*_")
    if not p:
        return True
    if p.isascii():
        return _norm(p) in _EN_CONNECTOR_RESIDUE
    return p in _ZH_CONNECTOR_RESIDUE or all(ch in _ZH_PARTICLES for ch in p)


# what a thanks or an apology may be *for* and still say nothing: help, time, a reply, reaching out — not a visit on
# Monday, the recipe the next sentence changes, keeping something confidential ("Thanks for seeing me on Monday, Dr
# Lee.", "Thanks in advance for keeping this confidential.", "Thank you for sending the contract. … clause 4 …")
_EN_GENERIC_FOR = frozenset("""the your all this that these those it such a an so very much my our any everything
    quick fast prompt speedy swift timely kind great detailed helpful clear thorough thoughtful wonderful amazing
    excellent awesome nice good fantastic useful lovely invaluable continued ongoing patient long late short lengthy
    help time patience reply replies response responses answer answers info information support assistance
    understanding explanation explanations advice input feedback suggestion suggestions tip tips clarification
    update updates insight insights guidance effort efforts consideration attention cooperation kindness service
    question questions message note inquiry email delay wait trouble inconvenience confusion bother
    reaching out contacting getting back to me us helping listening asking explaining sharing looking into
    bothering troubling expertise details detail description recommendation recommendations encouragement
    reassurance words compliment compliments praise you so far playing watching reading visiting coming
    joining choosing shopping calling waiting writing anything else today tonight earlier before yesterday last
    again""".split())
_ZH_THANKED = re.compile(r"(?:你们|您们|你|您|大家|各位|老师|亲)?的?(?:(?:细心|详细|认真|耐心|热情|及时|宝贵|用心|专业|贴心|周到|热心)的?)*")


def _is_complement(piece: str) -> bool:
    """A short complement a thanks/greeting/closer may own: "for the quick reply", "in advance", "的信息", "大家"."""
    p = piece.strip(" \t,，、:：;；!！?？.。…~～")
    if not p or _DIGIT.search(p) or _NEGATION.search(p) or re.search("不|没|别|未|无|勿", p):
        return False
    if p.isascii():
        words = _EN_WORD.findall(p)
        low = [w.lower() for w in words]
        if len(low) >= 3 and low[-1] in ("that", "this") and low[-2].endswith("ing"):
            low = low[:-1]  # "Thanks for sharing that!": what it points at, no relative clause
        if not low or len(low) > 6 or set(low) & _EN_COMPLEMENT_STOP:
            return False
        prep = next((w for w in low if w in ("for", "with")), None)
        if prep is not None and not all(w in _EN_GENERIC_FOR for w in low[low.index(prep) + 1:]):
            return False  # thanked or sorry for something the conversation may need ("Hope all's good with the deploy?")
        if low[0] == "and" and not all(w in _EN_WELL_WISH for w in low[1:]):
            return False  # "thanks and have a great weekend" wishes; "thanks and now the readiness probe fails" reports
        if low[0] in _EN_COMPLEMENT_START:
            return True
        return len(words) <= 2 and all(w[0].isupper() for w in words)  # a name: "Hi Jordan,"
    if any(ch.isascii() and ch.isalnum() for ch in p) or len(p) > 8:
        return False
    p = p.rstrip(_ZH_PARTICLES)
    if "的" in p:  # 谢谢你的行程安排: only a generic object (谢谢你的耐心, 谢谢大家的支持)
        obj = p[_ZH_THANKED.match(p).end():]  # type: ignore[union-attr]
        return all(not part or part in _ZH_GENERIC_FOR for part in re.split("[和与及、]", obj))
    return not p or p.startswith(_ZH_COMPLEMENT_START) or len(p) <= 2


# a clause that only addresses someone: "Dear AI", "Hi Dr. Lee", "王老师", "亲", "张总"
_VOCATIVE = re.compile(r"[ \t]*(?:(?:(?i:dear|hi|hello|hey)[ \t]+)?(?:AI|ChatGPT|Claude|(?i:assistant|sir|madam)|"
                       r"(?:Dr|Mr|Mrs|Ms|Prof)\.?[ \t]+[A-Z][a-z]+)|(?i:dear)[ \t]+[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?"
                       r"|[\u4e00-\u9fff]{0,3}?(?:老师|同学|总|经理|医生|大夫|师傅|老板|亲|宝贝|先生|女士|教授|主任|领导|律师))[ \t]*")


# a bare apology, beside filler in a sentence that says nothing else: "Sorry, one more question!" goes whole (not "Sorry!");
# it is no filler clause of its own ("Sorry, I meant Tuesday.")
_BARE_SORRY = re.compile(r"[ \t]*(?:(?i:(?:so\s+|very\s+)?sorry|oops)|抱歉|不好意思|对不起)[ \t]*")


def _clause_is_filler(text: str, bs: int, be: int, runs: list[_Run]) -> bool:
    """True when the clause body [bs, be) says nothing but its filler runs (and a short complement); a clause
    without filler is 'filler' here only when it is an acknowledgement ("Ok,", "好的，")."""
    if not runs:  # (an address beside the filler clause goes with it: "Dear AI, sorry to trouble you.", "王老师，不好意思打扰了。")
        return bs < be and (_is_connector_residue(text[bs:be]) or _VOCATIVE.fullmatch(text, bs, be) is not None)
    residue = _residue(text, bs, be, runs)
    if all(_is_connector_residue(text[a:b]) for a, b in residue):
        return True
    # a thanks/greeting/closer opening the clause may own what follows it: "Thank you for the quick reply"
    first = runs[0]
    lead = [(a, b) for a, b in residue if b <= first[0]]
    if not all(_is_connector_residue(text[a:b]) for a, b in lead):
        return False
    if _role(text, *first[2][-1]) not in ("owner", "only"):
        return False
    tail_start = first[1]
    rest = [(a, b) for a, b in residue if a >= tail_start]
    if not rest:
        return True
    return _is_complement(text[rest[0][0]:be]) and all(r[2] and _role(text, *r[2][-1]) in ("owner", "only")
                                                       for r in runs[1:])


# a mark that joins an opening sentence to what follows on its line ("Thanks! -> next question: …"): cut with the sentence
_LEAD_MARK = re.compile(r"(?:-{1,2}>|→|=>|⇒|——|—|–|-{1,2})(?=[ \t]*\S)")
# … a single "-" only when no list goes on below it ("谢谢！- 苹果⏎- 香蕉" opens a list)
_LIST_BELOW = re.compile(r"\n[ \t]*[-*•][ \t]")


def _sentence_candidates(view: TextView, text: str, ss: int, se: int, block_end: int, group: list[_Hit],
                         zh_neg: list[int]) -> list[tuple[int, int, str, int]]:
    """(start, end, kind, source) for the filler of one sentence [ss, se)."""
    runs = _runs(text, group)
    if not runs or slot_line(text, ss):
        return []  # (a labelled slot's value is what goes into the slot: "Greeting: Hello, thanks for calling Acme!")
    # a numbered item's marker is content ("1." "a)"); a bullet may go with a whole item
    numbered = _NUMBERED.match(text, ss) is not None and not text[text.rfind("\n", 0, ss) + 1:ss].strip()
    cls = clauses(view, ss, se)
    if len(cls) > 1 and any(not any(cs <= r[0] and r[1] <= ce for cs, ce in cls) for r in runs):
        # a phrase across a comma ("Thank you so, so much") joins the clauses it spans
        merged: list[tuple[int, int]] = []
        for cs, ce in cls:
            if merged and any(r[0] < merged[-1][1] < r[1] for r in runs):
                merged[-1] = (merged[-1][0], ce)
            else:
                merged.append((cs, ce))
        cls = merged
    cls = _split_at_emoji(text, ss, se, cls, runs)
    info: list[_Clause] = []
    for cs, ce in cls:
        bs, be = _body(text, cs, ce)
        inside = [r for r in runs if r[0] >= cs and r[1] <= ce]
        info.append((cs, ce, bs, be, inside, _clause_is_filler(text, bs, be, inside)))
    out: list[tuple[int, int, str, int]] = []
    src0 = runs[0][2][0][2]
    roles_here = {_role(text, *h) for r in runs for h in r[2]}
    sentence_only = "only" in roles_here
    if all(f or not inside and _BARE_SORRY.fullmatch(text, bs, be) for _, _, bs, be, inside, f in info) and not numbered \
            and not _negated(text, ss, se, zh_neg) \
            and not _answers_a_question(view, text, ss, se, info):
        if "stance" in roles_here or roles_here == {"hedge"}:
            # "I guess." / "我觉得吧。": the speaker's answer, however unsure; "说实话嘛" alone: a hedge that frames
            # nothing is the request itself ("come on, tell the truth")
            return []
        if text[ss:se + 1].rstrip(" \t\n*_").endswith((":", "：")) and not _one_question_after(text, se, block_end):
            return []  # "晚安：" over a list of good-night lines: a label, not a greeting (but "Hi, quick question:⏎⏎What
            # is …?" opens the one question after it)
        if _quote_open(text, ss, se):
            q = text.rfind('"', ss, se) + 1
            while q < se and text[q] in _SPACE:
                q += 1
            rest = [h for h in group if h[0] >= q]
            if q >= se or len(rest) == len(group) or not rest:
                return []
            return _sentence_candidates(view, text, q, se, block_end, rest, zh_neg)
        end = se
        for mark in ("**", "__"):
            if text.startswith(mark, ss) and text.startswith(mark, se) and text.count(mark, ss, se) == 1:
                end = se + 2  # "**Thank you!**": the closing marker goes with it
        while end < block_end and text[end] in _SPACE:
            end += 1
        m = _EMOJI.match(text, end, block_end)
        if m and (m.end() == block_end or text[m.end()] in _SPACE + "\n"):
            end = m.end()  # "Hello!! 😊 Can you …": the greeting's emoji goes with it, not left to open the request
            while end < block_end and text[end] in _SPACE:
                end += 1
        opens_line = not text[text.rfind("\n", 0, ss) + 1:ss].strip()
        if (m := _LEAD_MARK.match(text, end, block_end)) is not None and opens_line \
                and not (m.group(0) == "-" and _LIST_BELOW.search(text, m.end(), block_end)):
            end = m.end()  # "Thanks! - one more thing, …", "谢谢！——再帮我改短一点": the mark after it goes with it
        start = ss
        bullet = _BULLET.match(text, ss)
        if bullet and opens_line:
            line_end = text.find("\n", se)
            if text[se:line_end if line_end >= 0 else block_end].strip():
                start = bullet.end()  # more follows on the line: the bullet stays with it
        return [(start, end, "whole filler sentence", src0)]
    if sentence_only:
        return []
    # inside an assistant turn no frame is cut out of a content clause: its words are the model's own (in an
    # agent prompt, the exemplar answers it will imitate: "Sure, please share the snippet." keeps its "please")
    frames = view.block_at(ss).role != "assistant"
    n = len(info)
    for i, (cs, ce, bs, be, inside, filler) in enumerate(info):
        if not inside:
            continue
        if filler:
            if i > 0 and not info[i - 1][5] and i < n - 1 and _CONDITION_CLAUSE.match(text, info[i - 1][2]):
                continue  # ("If anything is unclear, feel free to ask, otherwise just send it": the condition's half)
            if i > 0 and i == n - 1 and all(not f for *_, f in info[:i]) and _CONDITION_CLAUSE.match(text, info[0][2]):
                # the close that a condition opens ("If anything is unclear, feel free to ask!", "如果还有任何疑问，欢迎随时
                # 联系"): no half of it stays — the assistant's goes whole, the user's permission stays whole
                if not frames:
                    out.append((ss, se, "whole filler sentence", inside[0][2][0][2]))
                continue
            cand = _filler_clause(text, info, i, n, se, zh_neg)
            if cand is not None:
                out.append((*cand, "filler clause", inside[0][2][0][2]))
            continue
        for r in inside if frames else ():
            cand = _frame(view, text, r, bs, be, ss, se, zh_neg)
            if cand is not None and not (cand[0] > 0 and text[cand[0] - 1] in "*_~`") and text[cand[1]:cand[1] + 1] not in ("*", "_", "~", "`"):
                out.append((*cand, "frame", r[2][-1][2]))
    return out


_QUOTE_END = re.compile(r"[.!?。！？][\"”’'」』]\s+")
# a condition that opens a sentence: "If anything is unclear,", "Should you have questions,", "如果还有疑问，", "有任何问题，"
_CONDITION_CLAUSE = re.compile(r"[ \t]*(?:(?i:if|should\s+you|in\s+case|whenever)\b|如果|若|假如|要是|如有|有任何|有什么)")


def _quote_split(text: str, ss: int, se: int) -> list[tuple[int, int]]:
    """A sentence split after a quotation that ends one (`She said "thank you." Thanks!`): the view's sentences
    end at a terminator before a space, not at one inside closing quotes."""
    out = []
    a = ss
    for m in _QUOTE_END.finditer(text, ss, se):
        b = m.end()
        while b > a and text[b - 1] in _SPACE:
            b -= 1
        out.append((a, b))
        a = m.end()
    if a < se:
        out.append((a, se))
    return out


def _quote_open(text: str, s: int, e: int) -> bool:
    """An odd number of straight double quotes: the sentence is part of a quotation."""
    return text.count('"', s, e) % 2 == 1


def _one_question_after(text: str, se: int, block_end: int) -> bool:
    """Whether what follows the colon at or after ``se`` to the block's end is one line asking a question."""
    rest = text[se:block_end].lstrip(" \t\n*_:：")
    return bool(rest) and "\n" not in rest.rstrip() and rest.rstrip().endswith(("?", "？"))


def _filler_to_colon(text: str, info: list[_Clause]) -> int | None:
    """The index of the first clause of a sentence that closes with a colon when it and every clause before it are
    filler and content follows ("Hi, quick question: …"), or None."""
    for j, (_, ce, _, be, _, filler) in enumerate(info[:-1]):
        if not filler:
            return None
        if text[be:ce].strip()[:1] in (":", "："):
            return j if j > 0 else None
    return None


# a clause that is a question's frame cut off by a comma: "Could you, please, make it …" ("Hmm, please, don't …" keeps its
# comma after the interjection)
_ASKS_YOU_END = re.compile(r"(?i:\b(?:can|could|would|will)\s+you)[ \t]*\Z")


def _filler_clause(text: str, info: list[_Clause], i: int, n: int, se: int,
                   zh_neg: list[int]) -> tuple[int, int] | None:
    """The range that removes filler clause ``i`` of a sentence whose other clauses are content, or None."""
    cs, ce, bs, be, inside, _ = info[i]
    if _negated(text, bs, be, zh_neg):
        return None
    if n == 1 and _is_ack(text[bs:inside[0][0]].strip(" \t,，、")) \
            and not text[inside[-1][1]:be].strip(" \t,，、:：;；!！.。~～"):
        # the acknowledgement that answers a question keeps, its thanks goes: "好的谢谢！" → "好的！", "Ok thanks." → "Ok."
        a = inside[0][0]
        while a > bs and text[a - 1] in _SPACE:
            a -= 1
        return a, inside[-1][1]
    roles = {_role(text, *h) for r in inside for h in r[2]}
    closing = text[be:ce]
    if i < n - 1 and "opener" in roles and _EN_ASKS.search(text, bs, be):
        return None  # "but could you please, if it's not too much trouble, maybe help me …": the question's frame, its verb after
    if ("hedge" in roles or "stance" in roles) and closing.strip()[:1] in (":", "：") \
            and not _EMOJI.match(text, be + len(closing) - len(closing.lstrip())):
        return None  # "我想说的是：下雨的时候不去": a hedge that introduces what follows it, the colon its sign (not ":)")
    if "stance" in roles and (i == n - 1 or not _stance_may_go(text, info[i + 1][0], se)):
        return None  # "In my opinion, X is better" / "X, I think.": the claim would lose whose view it is
    if i < n - 1:
        # opening or middle clause: it goes with its comma (or its emoji: "hiii 😊 how long …") and the spaces after it
        if (not closing.strip() or closing.strip()[0] not in _SOFT_END) and not _ends_with_emoji(text, bs, be):
            return None
        if i > 0 and ("hedge" in roles or "stance" in roles):
            return None  # "This is, I think, the best": a parenthetical hedge would leave a stray comma
        if i > 0 and roles == {"word"} and text[info[i - 1][3]:cs].strip() in (",", "，") \
                and closing.strip()[:1] in (",", "，") and _ASKS_YOU_END.search(text, info[i - 1][2], info[i - 1][3]):
            # "Could you, please, make it 5 options?": the word and both its commas go, one space stays
            start, end = info[i - 1][3], info[i + 1][0]
            if text[start] == "，":
                return start, end
            return (start, end - 1) if text[end - 1] in _SPACE else None
        if i > 0 and not info[i - 1][5] and all(info[j][5] for j in range(i + 1, n)) \
                and text[info[i - 1][3]:cs].strip()[:1] in ("，", ",", "、"):
            # a middle clause the sentence's closing filler follows goes with the comma before it, as the closing one does:
            # "太好了，谢谢谢谢，辛苦啦～" → "太好了～" when both go (not "太好了，～"), "太好了，辛苦啦～" when it goes alone
            return info[i - 1][3], be
        end = info[i + 1][0]
        while end < se and text[end] in _SPACE:
            end += 1
        m = _TAKE_ALONG.match(text, end)
        if m and all(info[j][5] for j in range(i)):
            # (after an address or a greeting too: "Dear AI, thanks for the suggestion, but I'd rather …" → "Dear AI, I'd
            # rather …", "Hey, sorry to bother you, but can you …" → "Hey, can you …")
            end = m.end()
            while end < se and text[end] in _SPACE:
                end += 1
        elif _STOP_NEXT.match(text, end):
            return None
        rest = text[end:se].strip(" \t" + _SOFT_END + _TERMINATORS)
        if not rest:
            return None
        if i == 0 and n == 2 and _only_an_address(rest, text[se - 1:se + 1]):
            return None  # "Thank you for your cooperation, respected chatbot!": the address alone would be left
        if i == 0 and (m := _ITEM_MARK.match(text, cs, ce)):
            cs = m.end()  # "- Thanks again, I love it!": the item keeps its marker ("I love it!" had lost it)
        j = _filler_to_colon(text, info)
        if j is not None and i <= j:
            # "Hi, quick question: What did I …": the opening clauses up to a colon go together, or none does ("Hi: what
            # did I …" was left when the greeting had to stay)
            return (info[0][0], end) if i == j else None
        return cs, end
    # the closing clause: the comma before it goes, the clause's own terminator stays
    prev_cs, prev_ce, prev_bs, prev_be = info[i - 1][:4]
    sep = text[prev_be:prev_ce]
    term = text[be:ce].rstrip(" \t")
    if not sep.strip() and _ends_with_emoji(text, prev_bs, prev_be):
        return prev_be, be + len(term)  # "我不吃牛肉🥦 谢谢～": the emoji ends what comes before; the thanks goes whole
    if not sep.strip() or sep.strip()[0] not in "，,、":
        return None
    if term and all(c in "!！~～" for c in term):
        k = ce
        while k < len(text) and text[k] in _SPACE:
            k += 1
        asks = _ASKS.match(text, info[0][2]) or _ZH_ASKS.search(text, info[0][0], info[i - 1][1])
        if (k >= len(text) or text[k] == "\n") and (asks or _REQUESTS.match(text, info[0][2])):
            # a request's or a question's closing thanks takes its own "!" at the line's end ("帮我写个 SQL 吧，谢谢！" →
            # "帮我写个 SQL 吧", not "…吧！", which shouts; "Can you check the config below, thanks!" would end a question
            # in "!"); any other sentence keeps it as its end ("太棒了，非常感谢！" → "太棒了！", review 43)
            return prev_be, be + len(term)
        if asks:
            return None  # "…有没有写错，谢谢！接下来…": a question would end in "!"
    return prev_be, be


# "please" said again after commas, before the words it asks ("Please, please, please make sure …")
_PLEASE_RUN = re.compile(r"(?i:\b(?:please|pls))((?i:[ \t]*,[ \t]*(?:please|pls)\b)+)(?=[ \t]*,?[ \t]*\w)")
# a sentence that asks for something: "Please fix …", "Write …", "帮我…", "请给我推荐…", "找一个…", "我想去…"
_REQUESTS = re.compile(r"(?i:(?:please|pls|kindly|help|fix|write|make|give|send|show|tell|check|explain|create|generate|add|"
                       r"remove|update|review|translate|summari[sz]e|list|find|book|draft|rewrite|sort|let\s+me\s+know|"
                       r"i\s+(?:want|need|would\s+like|'d\s+like))\b)"
                       r"|" + _ZH_REQUEST_VERB.pattern.removeprefix("^") + r"|我想|我要|想要|需要|找|订|预订|安排|发|改|按|生成|比较|计算")
_ZH_ASKS = re.compile(r"吗|么|有没有|是不是|能不能|可不可以|会不会|对不对|要不要|为什么|怎么|什么|哪|多少")
# a sentence that asks (its terminator may be the closing thanks' "!")
_ASKS = re.compile(r"(?i:(?:can|could|would|will|do|does|did|is|are|was|were|should|shall|may|have|has|what|why|how|"
                   r"when|where|which|who)\b)")


# the hedges that mark a correction of what the sentence said before them
_ZH_CORRECTION = ("其实", "实际上", "事实上")


def _frame(view: TextView, text: str, run: _Run, bs: int, be: int, ss: int, se: int,
           zh_neg: list[int]) -> tuple[int, int] | None:
    """The range of a frame inside a content clause, or None when taking it could leave debris."""
    rs, re_, hits = run
    roles = [_role(text, *h) for h in hits]
    if _negated(text, rs, re_, zh_neg) or slot_line(text, rs):
        return None
    if text.startswith(_ZH_CORRECTION, rs) and text[ss:rs].strip():
        return None  # "我刚刚说我不过敏，其实我有过敏": after what it corrects, 其实 says which is true
    if all(r == "word" for r in roles):
        # "please"/"kindly" anywhere: with the space after it, or before it at the clause's end
        if re_ < be:
            end = re_
            while end < be and text[end] in _SPACE:
                end += 1
            if end == re_ or not text[end].isalnum():
                return None
            if rs == bs and text[end:be].split(None, 1)[0].lower().strip(",.") in _EN_BAD_START - {"be"}:
                return None  # (an imperative "be" may follow: "Style: Please be concise." → "Style: be concise.")
            if rs > 0 and text[rs - 1] in "([（【":
                return None  # "(please specify)": the space after it belongs to the next token, "( specify)" would stay
            return rs, end
        start = rs
        while start > bs and text[start - 1] in _SPACE:
            start -= 1
        if start == rs or start == bs or not text[start - 1].isalnum():
            return None
        return start, re_
    # a frame opening the clause (after a connective word at most: "But I think …")
    lead = text[bs:rs]
    if lead.strip() and not _is_connector_residue(lead):
        return None
    last = roles[-1]
    if last in ("owner", "only") or any(r in ("owner", "only") for r in roles):
        return None  # thanks or greetings inside a content clause ("I want to thank you for …") stay
    end = re_
    rest_start = end
    while rest_start < be and text[rest_start] in _SPACE:
        rest_start += 1
    rest = text[rest_start:be]
    if not rest:
        return None
    lang = _LEXICONS[hits[-1][2]][3]
    if lang == "en":
        if rest_start == end:
            return None  # glued to the next word
        if last == "stance" and not _stance_may_go(text, rest_start, se):
            return None
        if last == "hedge" and text[re_ - 2:re_].lower() == "ly" and text[re_:rest_start].strip() == "" \
                and rest.split(None, 1)[0].lower() not in _EN_CLAUSE_OPENERS:
            return None  # "honestly state that you cannot …": an adverb of the verb after it, not a hedge on the clause
        if last in ("hedge", "stance"):
            m = _EN_THAT_AFTER.match(text, rest_start)
            if m:
                rest_start = m.end()
                rest = text[rest_start:be]
        words = rest.split()
        if len(words) < 2 and "opener" in roles and text[rest_start:se].rstrip().endswith((":", "：")):
            # "Could you please translate:" — the frame stays with its one verb; the politeness inside it goes
            inner = _EN_INNER_POLITE.search(text, rs, rest_start)
            return (inner.start(), inner.end()) if inner is not None else None
        if len(words) >= 1 and words[0][0].isalpha() and "opener" in roles and _EN_ASKS.match(text, rs) \
                and text[rest_start:se + 1].rstrip(_CLOSERS).endswith("?"):
            # "Also, could you please kindly tell me when …?": without "could you" a command would end in a
            # question mark; only the politeness words inside the frame go ("Also, could you tell me when …?", "Could you
            # do the mapping?": "could you" stays, so any verb may follow)
            inner = _EN_INNER_POLITE.search(text, rs, rest_start)
            return (inner.start(), inner.end()) if inner is not None else None
        if len(words) < 2 or not words[0][0].isalpha() or words[0].lower().strip(",.;:") in _EN_BAD_START:
            return None
        softener = _EN_SOFTENER.match(text, rest_start)
        if softener is not None and "opener" in roles:
            rest_start = softener.end()  # "… if you could possibly help me": the softener goes with the frame
        return rs, rest_start
    # zh
    if not is_cjk(rest[0]) and not rest[0].isalnum():
        return None
    last_phrase = text[hits[-1][0]:hits[-1][1]]
    if last == "ask":
        if not _ZH_QUESTION.search(text, rest_start, se):
            return None
        return rs, rest_start
    if last == "opener":
        if _ZH_QUESTION_REQUEST.match(last_phrase) and ("吗" in text[rest_start:se]
                                                        or text[rest_start:se + 1].rstrip().endswith(("？", "?"))):
            return None  # 能否帮我查一下订单？ asks: without the frame a command would end in a question mark
        if last_phrase.endswith("帮我") and _ZH_LEARNER_VERB.match(rest):
            return None  # 请帮我记忆单词 / 了解历史: the user learns; without 帮我 the model is told to
        if "帮" in last_phrase and _no_verb_after(rest):
            return None  # 请帮我一个…的景点 (找 left out): 帮 is the request's only verb
        if last_phrase.endswith("我") and _noun_then_verb(rest):
            return None  # 请帮我妈妈订一张票: 我 is "my" (我妈妈), and without it the request is about someone else
        if "帮" in last_phrase and _ZH_FIRST_PERSON_PLAN.search(text, ss, rs):
            return None  # 我想写一篇文章，请帮我用…编写: without 请帮我 the next step reads as the user's own
        if last_phrase in ("麻烦", "能不能"):
            if not _zh_frame_ok(text, hits[-1][0], hits[-1][1], rest_start, be):
                return None
        look = _ZH_LOOK_OPENER.match(text, rest_start, se)
        if look is not None and "帮" in last_phrase:
            return rs, look.end()  # 麻烦您帮我看一下，医生说…: "take a look," goes with the frame, not left to open the turn
        if _bare_verb_left(rest):
            return None
        return rs, rest_start
    if last in ("hedge", "stance"):
        if _bare_verb_left(rest) or last == "stance" and not _stance_may_go(text, rest_start, se):
            return None
        if last_phrase in ("其实", "其實", "实际上", "實際上") and _ZH_AMOUNT.search(text, rest_start, se):
            return None  # "盐就放1勺，别多放。其实半勺就够了。": 其实 says this amount replaces the one before
        return rs, rest_start
    return None


# "take a look," after a frame, before what to look at in the same sentence ("麻烦帮我看看，我爸血钾5.9，…")
_ZH_LOOK_OPENER = re.compile(r"(?:看一下|看下|看看|瞧瞧|瞧一下)[，,][ \t]*(?=[^\s，,。！？!?：:])"
                             r"(?!(?:不胜感激|感激|谢谢|谢啦|感谢|多谢|辛苦|拜托|麻烦了)[^，,]*\Z)")
# an amount in a sentence ("半勺", "2 个", "三天"): after 其实 it corrects one said before
_ZH_AMOUNT = re.compile(r"[0-9０-９]|[一二两三四五六七八九十百千万半几][\u4e00-\u9fff]?(?:勺|克|个|天|次|杯|碗|块|元|斤|分钟|小时|周|份|片|粒|毫升|升)")
# a clause before the frame in which the user says what they plan to do themself
_ZH_FIRST_PERSON_PLAN = re.compile(r"我(?:想|要|得|打算|准备|需要|计划|希望)")
# verbs whose doer is the one who learns or changes (请帮我记忆… is "help me memorise", 记忆… alone "memorise")
_ZH_LEARNER_VERB = re.compile(r"记忆|背诵|背下|背会|学习|学会|学好|了解|理解|掌握|练习|复习|提高|提升|改善|克服|养成|减肥|入门|适应|"
                              r"放松|熟悉|认识|弄懂|搞懂|弄清|搞清|看懂|听懂|读懂")


_NOT_AN_ADDRESS_EN = frozenset("i i'm im we we're you you're it it's that that's this is are am was were be do does "
                               "did have has all done".split())


def _only_an_address(rest: str, end: str) -> bool:
    """Whether what follows a thanks or greeting in an exclamation is only whom it addresses ("respected chatbot!",
    "John!", "小王！"), not a clause ("I'm lost.", "收到了！")."""
    if "!" not in end and "！" not in end:
        return False
    if rest.isascii():
        words = rest.lower().replace("’", "'").split()
        return len(words) <= 3 and not any(w in _NOT_AN_ADDRESS_EN for w in words)
    return len(rest) <= 4 and not any(c in rest for c in "了吗呢吧是有在要会能")


def _noun_then_verb(rest: str) -> bool:
    """Whether what follows a frame ending in 我 opens with a noun and then a verb (jieba.posseg): 我妈妈订…, 我同事预订…
    — 我 owns the noun, the one the request is for ("总结这篇", "规划一下" are tagged nouns too, but no verb follows)."""
    tokens = _posseg(rest[:12])
    return len(tokens) > 1 and len(tokens[0][0]) >= 2 and tokens[0][1] in ("n", "nr", "nrfg", "nz") \
        and tokens[1][1][:1] in ("v", "z", "d")  # (jieba tags 选 in 女儿选 "zg", 也 in 妈妈也订 "d")


def _no_verb_after(rest: str) -> bool:
    """Whether what follows a 帮我 frame opens with a numeral, measure word or pronoun (jieba.posseg), not a verb:
    the frame's 帮 is then the only verb of the request."""
    tokens = _posseg(rest[:12])
    return bool(tokens) and tokens[0][1][:1] in ("m", "q", "r") and tokens[0][0] not in ("我", "我们")


def _bare_verb_left(rest: str) -> bool:
    """Whether taking a zh frame would leave its clause a bare word (请帮忙推荐。→ 推荐。 reads as a note, not a
    request); a reduplicated verb (看看, 查查) is already softened and stands alone."""
    rest = _ZH_TAG_QUESTION.sub("", rest)  # "看一下可以吗" is "看" asked about: 麻烦你帮我 stays with it
    return len(rest) < 2 or len(rest) == 2 and rest[0] != rest[1]


# a tag that asks whether the request is all right, and a 一下 that softens its verb
_ZH_TAG_QUESTION = re.compile(r"(?:一下)?[，,]?(?:可以吗|好吗|行吗|可以不|好不好|行不行)[？?！!。.]*\Z")


def _zh_frame_ok(text: str, s: int, e: int, rest_start: int, be: int) -> bool:
    """麻烦/能不能 is a politeness frame, not content: 麻烦 before 您/你/帮/a verb (jieba.posseg), 能不能 before a
    request verb (能不能帮我…, 能不能告诉我… — not 能不能退款, which asks whether)."""
    word = text[s:e]
    rest = text[rest_start:be]
    if word == "能不能":
        return bool(_ZH_REQUEST_VERB.match(rest))
    if rest.startswith(("您", "你", "帮", "请")):
        return True
    tokens = _posseg(text[s:be])
    if len(tokens) < 2 or tokens[0][0] != "麻烦":
        return False
    return tokens[1][1].startswith("v") and tokens[1][0] not in ("是", "的")


_POSSEG_CACHE: dict[str, list[tuple[str, str]]] = {}


def _posseg(sentence: str) -> list[tuple[str, str]]:
    """jieba.posseg of a short text, remembered (frames are few; the cache is bounded)."""
    found = _POSSEG_CACHE.get(sentence)
    if found is None:
        from ..lexicon import posseg
        found = posseg(sentence)
        if len(_POSSEG_CACHE) > 4096:
            _POSSEG_CACHE.clear()
        _POSSEG_CACHE[sentence] = found
    return found
