"""The lossy tier: what a higher ``prune_ratio`` may take beyond the safe rules — grammar words a reader restores.

Only a closed class of words is ever taken, and only from the user's turns and the system prompt: the English
articles (a, an, the), the Chinese 的 between two nouns ("餐馆的电话" → "餐馆电话") and 地 between an adverbial
and a verb ("认真地检查" → "认真检查"), and the Chinese tone particles 啊 呀 嘛 哦 at the end of a clause.
Each such word that no protection covers and that is no safe-tier candidate gets an estimated loss — its
surprisal from word frequencies (:func:`information.word_surprisal`) — and
``Annotated.at_ratio(r, min_effectiveness=F)`` spends the safe tier first, then these words in increasing loss
per token while the effectiveness estimate stays ≥ F.

Why so few.  Two blind reviews of 80 real conversations at the 0.98 floor (``bench/quality.py`` prints the
reach) read every word an open tier took — every word not on a list of exceptions, content words weighed three
times their surprisal — and found 41 severe and about 290 moderate changes: content words ("This skill provides
methodology and best practices" → "This and for"), the parts of a name (北京中安宾馆 → 北京安宾馆), numerals
(七渡村 → 渡村), who acts (我希望你担任… → 希望担任…), relations and ranges ("set it in Xcode" → "set Xcode",
周一至周日 → 周一周日, 拒绝或拒绝回答 → 拒绝或回答), degree ("no question too complex" → "no question complex"),
and words the text handed over was made of.  Every such word carries what the sentence says; an article or a
modifier particle carries how it is said.

A second review of 40 more conversations found the rest of the open class's damage in the closed one: a 的
after a verb, an adjective or a pronoun holds a relative clause or a phrase together (类型定义的接口 → 定义接口,
即将举行的辩论 → 举行辩论, 很好的选择 → 很好选择), and an assistant turn — a few-shot demonstration, or the
model's own earlier answer — is what the model imitates: made telegraphic, it teaches telegraphic answers (and
a final one is the prefill it continues).  A third (48 more) found no fact lost, and these, now kept: a 的 after
a noun a verb governs (做烤乳猪的餐馆), an article that is part of the phrase or of the meaning ("a few", "one at
a time", "once a week", "in the last year", "the same", "the only"), a template slot ("- [Step 1: e.g., …]").

A seventh (80 more, at the 0.98 floor) found 70 % of the tier's words fine and, kept since: another language's
"a"/"an" (Spanish "volver a cantar", "a partir de", German "an die Kriterien": an article only on a line that
reads as English), "the" after a word it opens a clause or a phrase with ("that the test" → a demonstrative, "to
the query" → an infinitive, "to the point") or before the subject of a clause of its own ("a sentence the user can
use"), a 的 with a verb or a coordination anywhere before it in its clause (提供免费停车位的酒店: the part-of-speech
tags of the nearer words were often wrong; 用户和商家的需求), 啦 (了 is in it).

A ninth (40 more at the floor) found one severe change — a headline of a list to classify edited, now material —
and these, kept since: a 的 after a preposition in its clause (对这部电影的情感, 对于初为人父母的夫妇, 从软件工程师的
专业意见: the 的 closes the prepositional phrase; not after 把, 被, 将 or 在, whose object it is inside), 吧 (it makes a choice or a suggestion: 那就神武门吧), an article
opening a clause ("restrained, the look matches …": without it "look" reads as a command; an apposition after a
name may lose it, "You are Nova, the support assistant"), and every article
of a conversation whose task is grammar (a grammar checker's own prompt made ungrammatical).  An eleventh (36
more at the floor, 68 % fine, 91 % with the merely telegraphic) found example text no quote marks (material
since: an inline "例如：…", an example heading whose example is the next section, a ``${slot:default}``), a
的 whose removal welds a new word (偏咸的菜肴 → 咸菜) or that closes a quantity phrase (0.5小时的景点), and idioms
that hold their article ("in the end", "bridge the gap", "the larger picture"), all kept since.  A twelfth (24
more, 60 % fine, 97 % with the merely telegraphic) found, kept since: "a" before an -ing word ("is a breaking
API"), "the" before a numbered name ("the model 1/…"), "the following", "the right track", and an article between
no-break spaces (the cut left two).  A fifteenth (178 more, 0 severe, 2 moderate) found, kept since: "the" that
points at what was named before ("only perspectives of the mentioned personalities": without it, any mentioned;
"the above", "the given"), in a part of a set ("each of the five"), and after a question word ("What the primary
goal is"). A nineteenth (83 more at the floor) found, kept since: a 的 after an adverb of
aspect (主库已宕机的情况: jieba tags 宕机 a name), "greetings of the day", "do the needful"; a twentieth (71
more): "the one below", and any word inside a politeness phrase the safe tier keeps ("replace sorry for the
inconvenience with …": named, not said). Reviews 38 and 41 found, kept since: an English article in a Chinese
clause (a word named or an example: "英语里 a 和 the 有什么区别", "有人说 a is b"), "a and the", "take a look", and every
article of a learner's or a trainee's chat (the model corrects their errors: it must see them).

Never taken either: a word on a line that opens with punctuation other than a list marker, a heading mark or
emphasis (";; comment", "> quote", "| cell"), on a line that reads as code or a formula (an assignment, a call,
braces), next to a number, a quote mark, an emphasis or a bracket, a capitalised word or the first word of a
sentence (also once a safe-tier span before it goes), the first word of a list item, a word that shares a token
with its neighbours, protected or directive text.

Built on first use (the default floor, 1.0, never needs it), once per annotation.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .information import word_surprisal
from .rules.low_information import di_may_go

if TYPE_CHECKING:
    from .engine import Annotated
from .view import _segments, acted_turns_from, slot_line

__all__ = ["LossyTier", "lossy_tier"]

_CJK_CLASS = "\u3400-\u9fff\uf900-\ufaff"
# a Chinese run (cut into words by jieba), or a word of an alphabetic script (letters, inner apostrophes)
_WORD = re.compile(rf"[{_CJK_CLASS}]+|[^\W\d_{_CJK_CLASS}]+(?:['’][^\W\d_{_CJK_CLASS}]+)*")
# what ends a clause for this purpose: punctuation, line breaks, markup and quote marks
_OPENING_MARKS = frozenset("*_~`([{<\"'“‘「『《-/")
_CLOSING_MARKS = frozenset("*_~`)]}>\"'”’」』》-/")
# a line opening with punctuation is left alone — but for a list marker, a heading mark or emphasis before prose
_MARKER = r"(?:[-*+•]|\d{1,3}[.)、]|#{1,6})"  # a list marker or a heading mark (before a space or a tab)
_PUNCT_LINE = re.compile(rf"[ \t]*(?!{_MARKER}[ \t]|\*\*?\w|__?\w)[^\w\s\u3400-\u9fff]"
                         rf"|[ \t]*{_MARKER}[ \t]+[\[{{<(（【]")  # or a list item that is a template slot: "- [Step 1: …]"
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]")
# what ends a clause for this purpose: any mark that is not a letter, digit or space — punctuation, line
# breaks, markup, quote marks, arrows and operators ("核心→叠加态 + 并行": each part keeps a word)
_CLAUSE_BREAK = re.compile(r"[^\w\s]|[\n_]")
# a line that reads as code or a formula (an ASCII call or index, an assignment, "**2", a line that opens a
# block with "{" or ends a statement with ";", or closes one with "}"): left alone, even
# when no code finder took it as material ("print([x**2 for x in range(10)])" keeps its "x in")
_CODE_LIKE = re.compile(r"[A-Za-z0-9_][(\[]|[(\[]\\?[\[(]|\w\\?\*\\?\*\w|[{;][ \t]*$|^[ \t]*\}|[A-Za-z_]\w*[ \t]*=[^=]",
                        re.MULTILINE)
# the closed class (see the module docstring)
_ARTICLES = frozenset({"a", "an", "the"})
# the words a letter names an item after ("variant a", "option a", "plan a"), and what follows a letter, never an
# article's noun ("a has", "a or b")
_LETTER_LABELS = frozenset("""variant variants option options plan plans group groups arm arms case cases type section part
step item column row class grade vitamin team exhibit appendix model version phase tier level category sample choice
answer question figure table cluster region zone node site bucket""".split())
_NOT_AFTER_AN_ARTICLE = frozenset("""has have had is was are were and or vs versus wins won does did will can should must
may might would could shows showed gets got""".split())
# what a clause must hold for the tier to look at it (its words are segmented only then)
_CANDIDATE = re.compile(r"\b(?:a|an|the)\b|[的地啊呀嘛哦]")
# after "a"/"an" these say the opposite without it ("a few" some, "few" hardly any)
_QUANTITY_AFTER_A = frozenset({"few", "little", "bit", "lot", "couple", "half"})  # ("time and a half")
# "the last year" (the past twelve months) is not "last year"; "the only way", "the same", "the rest" …
_MEANING_AFTER_THE = frozenset({"last", "next", "past", "same", "other", "only", "rest", "most", "least", "latter",
                                "former", "following", "right", "wrong",
                                # a word named after it ("Don't use the word 'denominator'", "the letter x")
                                "word", "words", "term", "phrase", "letter", "symbol", "character"})
# a focus word or "there" before an article: the noun phrase is what it singles out or says exists
_FOCUS_BEFORE = frozenset({"just", "only", "even", "merely", "simply", "not", "there"})
# an article after these opens what the sentence says someone or something is ("You are a …", "act as a …", "I'm
# a …", "It's a …")
_COPULA = frozenset({"am", "are", "is", "was", "were", "be", "been", "being", "as", "become", "becomes", "became",
                     "m", "re", "s"})  # (an apostrophe breaks the clause: "It's a" is read as "s a")
# "the" + an adjective that names the people it describes ("the deceased", "the living", "the poor")
_ADJECTIVE_AS_NOUN = frozenset({"deceased", "living", "dead", "poor", "rich", "elderly", "young", "old", "sick",
                                "wounded", "injured", "unemployed", "homeless", "disabled", "accused", "bereaved",
                                "needy", "vulnerable", "blind", "deaf", "unknown", "impossible", "obvious",
                                "innocent", "guilty", "departed", "dying", "faithful", "brave", "weak", "strong"})
_SUPERLATIVE = frozenset({"best", "worst", "highest", "lowest", "largest", "smallest", "biggest", "greatest",
                          "fastest", "slowest", "latest", "newest", "oldest", "simplest", "hardest", "strongest",
                          "weakest", "nearest", "furthest", "farthest", "longest", "shortest", "cheapest", "deepest",
                          "finest", "clearest", "safest", "smartest", "richest", "poorest", "youngest"})
# "one at a time", "once a week", "twice a day": the article is part of the phrase
_PHRASE_BEFORE_A = frozenset({"at", "once", "twice", "per"})
# "25 dollars a night", "a day early", "a hundred": before a unit, "a" is "per" or "one"
_ONE_UNIT = frozenset({"night", "day", "week", "month", "year", "hour", "minute", "second", "time", "person", "head",
                       "piece", "pop", "dozen", "hundred", "thousand", "million", "billion", "mile", "kilometer",
                       "kilometre", "pound", "kilo", "meter", "metre", "liter", "litre", "gallon", "decade", "century"})
# nouns that mean one thing counted and another uncounted: "requires a space" (the character) is not "requires space"
# (room); "a light", "a paper", "a change", "a chance", "a room", "a glass", "a work"
_COUNT_SENSE = frozenset({"space", "room", "light", "paper", "glass", "change", "chance", "work", "iron", "fire", "time",
                          "business", "company", "experience", "hair", "language", "noise", "sound", "way"})
# idioms that hold their article ("in the end", "bridge the gap", "the bigger picture", "by the way", "for a while",
# "a force to be reckoned with", "make a difference", "greetings of the day", "do the needful")
_IDIOM_AFTER_THE = frozenset({"end", "gap", "picture", "way", "moment", "meantime", "fly", "hood", "loop", "box",
                              "board", "spotlight", "scroll", "bottom", "table", "long", "whole", "day", "needful", "one",
                              "hook", "line", "spot", "road", "go", "run", "house", "record", "dark", "point", "fence",
                              "books", "air", "top", "edge", "ground", "clock", "mark", "radar", "rails", "grid", "map",
                              "ball", "phone", "floor", "wheel", "mood", "dot", "news", "wild", "trick", "horizon"})
_IDIOM_ADJECTIVE_THE = frozenset({"big", "bigger", "larger", "broader", "wider"})
_IDIOM_AFTER_A = frozenset({"while", "force", "difference", "result", "row", "must", "whole", "look", "try", "go",
                            "chance", "favor", "favour", "hand", "break", "glance", "peek", "shot", "stab"})
# 的 between two nouns (餐馆的电话, 用户的问题) and 地 between an adverbial and a verb (认真地检查): after a verb, an
# adjective or a pronoun the 的 holds a relative clause or a phrase together (举行的辩论, 定义的接口, 很好的选择, 你的任务)
_MODIFIER_PARTICLES = {"的": ("uj", ("n",), ("n",)), "地": ("uv", ("a", "ad", "d", "z"), ("v",))}
# nouns that are adverbs without their 的 ("我基本的东西都懂" → "我基本东西都懂" reads "I basically know things")
_ADVERB_NOUNS = frozenset({"基本", "一般", "主要", "根本", "真正", "大概", "大部分", "全部", "部分", "个别", "普遍", "基础"})
_MODEL_ROLES = ("assistant", "model")
# a system prompt whose task is the language itself: its articles are what it is about
_GRAMMAR_TASK = re.compile(r"(?i:\b(?:grammar|grammatical|proofread\w*|spelling|punctuation|copy-?edit\w*|learners?|"
                           r"trainees?|conversation\s+partner|correct\s+(?:\w+\s+){0,2}?(?:errors|mistakes))\b)"
                           r"|语法|校对|病句|学员|纠正")
# a user turn about the language itself — its grammar words, a learner's sentences to check, an exercise: the
# floor leaves every grammar word of it and of the turns after it (not "correct the grammar of …": an instruction
# about a text to come, whose own articles are no subject)
# (not "write an article", "in the present tense", "maintain politeness", "fill in the blanks of the template": words of
# a prompt's own task)
_GRAMMAR_TALK = re.compile(r"(?i:\b(?:(?:definite|indefinite)\s+articles?|articles?\s+(?:\"|')?(?:a|an|the)\b|prepositions?|"
                           r"fill\s+in\s+the\s+blanks?\s+with|verb\s+tenses?|which\s+tense|"
                           r"is\s+(?:that|this|it)\s+(?:right|correct|grammatical)|correct\s+my\s+(?:english|grammar|sentences?|"
                           r"mistakes|errors|spelling|chinese)|check\s+my\s+(?:sentences?|"
                           r"english|grammar|essay|homework|answers?)|can\s+i\s+say|should\s+i\s+say|is\s+it\s+correct\s+to\s+say|"
                           r"(?:more|less|most|least)\s+polite|why\s+[\"“']|(?:\"|')?(?:a|an|the)(?:\"|')?\s+(?:vs\.?|or|and)\s+(?:\"|')?(?:a|an|the)\b)\b)"
                           r"|病句|改错|批改|填空|造句|的地得|量词|助词|介词|冠词|时态|(?:帮我|请)?改一改|对不对|对吗|作业|"
                           r"能不能说|可以说|更礼貌|礼貌分|礼貌程度|哪句(?:更)?礼貌|哪个(?:更)?礼貌")
# (not 啦: 了 is in it, 太好啦 → 太好 loses the change of state)
_TONE_PARTICLES = frozenset("啊呀嘛哦")
# "the" after these opens a clause or a phrase that reads otherwise without it: "that the test" (→ a
# demonstrative), "to the query" (→ an infinitive), "if the provided", "to the point"
_BEFORE_THE_KEEP = frozenset({"to", "that", "if", "when", "whether", "because", "than", "so", "as", "where", "while",
                              "unless", "until", "once", "since", "though", "although",
                              # an embedded question ("What the primary goal is", "how the offer works")
                              "what", "which", "who", "whom", "whose", "how", "why"})
# "each of the five", "one of the reasons": the article makes it a part of a set named before
_PARTITIVE = frozenset({"each", "all", "one", "none", "some", "any", "both", "either", "neither", "most", "many",
                        "few", "several", "half", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                        "ten"})
# "the mentioned personalities", "the above rules", "the given text": the article points at what was named before
_REFERENCE_AFTER_THE = frozenset({"above", "aforementioned", "given", "chosen", "written", "said", "previous",
                                  "preceding", "remaining", "original", "current", "respective", "corresponding",
                                  "entire", "first", "second", "third", "final", "initial", "below"})
# a word after "the …" that makes it the subject of a clause ("a sentence the user can use", "the file the script
# reads"): without the article the noun reads as part of the phrase before
_CLAUSE_VERB_AFTER = frozenset("""can could will would should must may might has have had is was are were does did
    wants needs gets uses reads writes sends says asks""".split())
# function words that tell an English line from a Spanish, Portuguese, German, French or Italian one (none of
# them an English word): "a"/"an" there are a preposition or a word of the language ("volver a cantar", "a
# partir de", "passo a passo", "Halte dich an die Kriterien")
_EN_FUNCTION = frozenset("""the and of to is are you your that this with for it be will should not or on from by can
    if what which when how we they my me was were have has in at""".split())
_FOREIGN_FUNCTION = frozenset("""de la el los las que y con por para una un del al es se su lo como más pero der das und
    ist nicht mit zu den dem ein eine auf für von ich sie wir os dos em um uma não com na le les des et est une pour dans
    pas du au il je vous nous che di per non sono""".split())
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÿ]+")
# a 的 before one of these nominalises ("有玩的吗", "好的呀"): without it the clause says something else
_SENTENCE_PARTICLES = frozenset("吗呢吧啊呀啦嘛哦了")


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
    view = ann.read_view  # Traditional Chinese read as Simplified; rows name the words as written
    text = view.text
    g_start, g_end = ann.g_start, ann.g_end
    free = (ann.g_prot == 0) & (ann.g_span < 0)
    if len(ann.tok_group):
        directive_groups = np.zeros(len(g_start), dtype=bool)
        directive_groups[ann.tok_group[ann.tok_directive]] = True
        free &= ~directive_groups
    g_tokens = np.bincount(ann.tok_group, minlength=len(g_start)) if len(ann.tok_group) else np.zeros(0, dtype=np.int64)
    rows: list[tuple[int, int, str, int, int, int, float, int]] = []
    system = view.standing_blocks()
    articles = not any(_GRAMMAR_TASK.search(text, b.start, b.end) for b in system)
    grammar_talk = False  # a user turn so far asks about the language itself: no grammar word of it goes after it
    # a politeness phrase the safe tier keeps is named or said as it stands ("replace sorry for the inconvenience
    # with …"): no word of it goes
    p_starts, p_ends, _ = view.lexicon_columns(_PHRASE_LEXICONS)
    phrases = sorted((a, b) for a, b in zip(p_starts, p_ends) if " " in text[a:b])
    phrase_starts = [a for a, _ in phrases]
    acted = acted_turns_from(view)  # a role-play's turns that act in character: lines and narration, written as they are
    for bi, block in enumerate(view.blocks):
        if block.role == "user" and not grammar_talk and _GRAMMAR_TALK.search(text, block.start, block.end):
            grammar_talk = True  # ("But what if I mean a specific coffee, like the coffee here?", "我们玩的很开心…请帮我改")
        if block.end <= block.start or block.role in _MODEL_ROLES or grammar_talk or (block.start, block.end) in acted:
            continue  # the model's own words: it imitates them (a final one is the prefill it continues)
        for cs, ce in _segments(text, block.start, block.end, _CLAUSE_BREAK):
            if not _CANDIDATE.search(text, cs, ce):
                continue  # no word of the closed class here: nothing to segment (most clauses)
            line_start = text.rfind("\n", 0, cs) + 1
            line_end = text.find("\n", ce)
            if slot_line(text, cs):
                continue  # a labelled slot's value goes into the slot as it is ("Note: Please ring the bell twice.")
            if _PUNCT_LINE.match(text, line_start) or _CODE_LIKE.search(text, line_start,
                                                                        len(text) if line_end < 0 else line_end):
                continue  # a line that opens with punctuation (";; comment", "> quote"): code-like, left alone
            # the words the safe tier may take do not count: they may go too
            words = [(m.start(), m.end(), _flag_of(m)) for m in _words(text, cs, ce)
                     if not _in_candidate(ann, m.start(), m.end())]
            english = None  # whether the clause's line reads as English (looked at once, for an article)
            clause_rows: list[tuple[int, int, str, int, int, int, float, int]] = []
            for k_word, (ws, we, flag) in enumerate(words):
                if not _takeable(text, words, k_word, ce):
                    continue  # a word of what the sentence says (the module docstring): never weighed away
                word = text[ws:we]
                if flag is None:  # an article
                    if not articles or k_word == 0 and not _after_a_name(text, cs):
                        continue  # a task about grammar, or the article opens a clause (", the look matches"),
                        # not an apposition ("You are Nova, the support assistant")
                    if english is None:
                        english = _reads_english(text, line_start, len(text) if line_end < 0 else line_end) \
                            and not _CJK_RUN.search(text, cs, ce)
                    if not english:
                        continue  # another language's "a" ("volver a cantar") or "an" ("an die Kriterien"), or
                        # English in a Chinese clause: a word named or an example ("英语里 a 和 the 有什么区别")
                elif word == "的" and _de_closes_a_phrase(text, ws):
                    continue  # a verb earlier in the clause: the 的 closes a relative clause (提供…停车位的酒店), or
                    # a coordination before it (用户和商家的需求: without 的 the scope narrows to 商家需求)
                before, after = text[ws - 1:ws], text[we:we + 1]
                if before.isalnum() and not _CJK_RUN.match(before) or after.isalnum() and not _CJK_RUN.match(after):
                    continue  # part of a longer token ("9x9", "v2beta"): no whole word
                if flag is None and ("\xa0" in (before, after) or before.isspace() and before not in " \t\n"):
                    continue  # between no-break spaces: the cut would leave two of them (reconstruction tidies " ")
                if text[max(0, ws - 2):ws].strip()[-1:].isdigit() or text[we:we + 2].strip()[:1].isdigit():
                    continue  # next to a number: "a 4 cm cut", 第5页的 go with their number
                if before in _OPENING_MARKS or after in _CLOSING_MARKS:
                    continue  # next to an emphasis, bracket, quote mark or hyphen ("**The …**", "in-the-loop")
                if word[0].isupper() or _opens_sentence(text, _before_candidates(ann, ws)):
                    continue  # no sentence is left starting in lower case (nor once a safe-tier span before the
                    # word goes: "As per my previous message, the left earcup …")
                if _first_after_marker(text, ws):
                    continue  # "- the …": the item's first word (its token holds the marker's space)
                k_phrase = bisect.bisect_right(phrase_starts, ws) - 1
                if k_phrase >= 0 and phrases[k_phrase][1] >= we:
                    continue  # inside a politeness phrase the safe tier keeps
                a = int(np.searchsorted(g_end, ws, side="right"))
                b = int(np.searchsorted(g_start, we, side="left"))
                if b <= a or not free[a:b].all():
                    continue
                if text[g_start[a]:ws].strip() or g_end[b - 1] > we:
                    continue  # a token glues this word to a neighbour: it cannot go alone
                loss = word_surprisal(word)
                clause_rows.append((ws, we, ann.view.text[ws:we], a, b - 1, int(g_tokens[a:b].sum()), loss, bi))
            if len(clause_rows) < len(words):  # (a clause of grammar words alone, "啊啊", stays whole)
                rows.extend(clause_rows)
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


_PHRASE_LEXICONS = ("filler.en", "filler.zh", "hedges.en", "hedges.zh")


# "You are Nova, …", "Act as the **Root Cause Architect**, …", "I am {name}, …": a name after a copula or "as"
_NAME_BEFORE_COMMA = re.compile(r"\b(?:am|are|is|as|called|named)[ \t]+(?:the[ \t]+)?(?:\*\*)?[\"“]?[A-Z{$][^,\n]{0,60}?,[ \t]*\Z")


def _after_a_name(text: str, cs: int) -> bool:
    """Whether the clause at ``cs`` follows a name that a copula or "as" introduces ("You are Nova, the support
    assistant"): an apposition, not a clause of its own ("Inside, the room smelled bad")."""
    return _NAME_BEFORE_COMMA.search(text, max(0, cs - 80), cs) is not None


def _opens_sentence(text: str, ws: int) -> bool:
    """Whether only spaces stand between the word at ``ws`` and a line start or a sentence's end."""
    k = ws
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k == 0 or text[k - 1] in "\n.!?。！？:：" or text[k - 1] == "\x00"


def _before_candidates(ann: Annotated, pos: int) -> int:
    """``pos`` moved back over spaces and over the safe-tier candidates right before it (what the text may read
    as once they are pruned)."""
    text = ann.read_view.text

    def candidate_start(at: int) -> int:  # where the candidate holding the character before ``at`` starts, or -1
        g = int(np.searchsorted(ann.g_end, at - 1, side="right"))
        return int(ann.g_start[g]) if g < len(ann.g_span) and ann.g_start[g] < at and ann.g_span[g] >= 0 else -1

    while pos > 0:
        k = pos
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        if k > 0 and text[k - 1] in ",，、":  # the comma a pruned span leaves behind goes with it
            j = k - 1
            while j > 0 and text[j - 1] in " \t":
                j -= 1
            if candidate_start(j) >= 0:
                k = j
        start = candidate_start(k) if k > 0 else -1
        if start < 0:
            return k
        pos = start
    return pos


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

def _takeable(text: str, words: list[tuple[int, int, str | None]], k: int, clause_end: int) -> bool:
    """Whether word ``k`` of a clause belongs to the closed class the tier may take: an article before a word
    ("a few" apart), 的/地 between two words (not a 的 before a sentence particle: "有玩的吗"), or a tone particle
    ending the clause."""
    ws, we, flag = words[k]
    word = text[ws:we]
    nxt = words[k + 1] if k + 1 < len(words) else None
    if flag is None:  # a word of an alphabetic script
        if word not in _ARTICLES or nxt is None:
            return False  # an article ending its clause is no article ("type a", "option a")
        following = text[nxt[0]:nxt[1]].lower()
        after_next = text[words[k + 2][0]:words[k + 2][1]].lower() if k + 2 < len(words) else ""
        if following in (_IDIOM_AFTER_THE if word == "the" else _IDIOM_AFTER_A) or (
                word == "the" and following in _IDIOM_ADJECTIVE_THE and after_next == "picture"):
            return False  # an idiom: "in the end", "bridge the gap", "for a while"
        if word != "the" and ((text[words[k - 1][0]:words[k - 1][1]].lower() in _LETTER_LABELS if k else False)
                              or following in _NOT_AFTER_AN_ARTICLE):
            return False  # "Variant a has conversion 3.12%", "plan a or plan b": a letter that names, no article
        if word != "the" and following.endswith("ing"):
            return False  # "is a breaking API", "a ticking time bomb": without it the -ing word reads as a verb
        if text[nxt[1]:nxt[1] + 3].lstrip(" \t")[:1].isdigit():
            return False  # "the model 1/…": without it, a name
        previous = text[words[k - 1][0]:words[k - 1][1]].lower() if k else ""
        if previous in ("and", "or") and k >= 2 and text[words[k - 2][0]:words[k - 2][1]].lower() in _ARTICLES:
            return False  # "How do a and the differ": the words named, no article
        head = following.replace("’", "'").split("'")[0]  # "the deceased's life": the word without its 's
        if previous in _FOCUS_BEFORE:
            return False  # "just the upgrade" (without it, "just upgrade" reads as an order), "is there a way"
        if previous in _COPULA:
            return False  # "You are a senior engineer", "act as a person", "It's a bug": the role or the
            # predicate the sentence is about reads as a fragment without it
        if text[nxt[0]].isupper():
            return False  # "the Deputation of Bizkaia", "the UI redesign", "a Python tracker": a name
        if word == "the" and (following in _SUPERLATIVE or following.endswith("iest")):
            return False  # "the best way", "the highest quality"
        if word == "the" and (head in _ADJECTIVE_AS_NOUN or head.endswith(("ed", "ing")) and (
                head != following or after_next in ("", "and", "or"))):
            return False  # "comforting the living", "the deceased's life": without it, an adjective
        if word == "the" and (following in _REFERENCE_AFTER_THE or following.endswith("ed")):
            return False  # "only perspectives of the mentioned personalities": without it, any that are mentioned
        if previous == "of" and k >= 2 and text[words[k - 2][0]:words[k - 2][1]].lower() in _PARTITIVE:
            return False  # "each of the five personalities", "none of a type" (of each type), "one of a kind"
        if word == "the":
            return following not in _MEANING_AFTER_THE and previous not in _BEFORE_THE_KEEP and (
                after_next not in _CLAUSE_VERB_AFTER)  # "a sentence the user can use": a clause of its own
        return following not in _QUANTITY_AFTER_A and previous not in _PHRASE_BEFORE_A and following not in _ONE_UNIT \
            and following not in _COUNT_SENSE
    if word in _MODIFIER_PARTICLES:
        own, before, after = _MODIFIER_PARTICLES[word]
        prev = words[k - 1] if k else None
        # (a verb before the noun makes it a relative clause: 可以做烤乳猪的餐馆, 提供吹风机的酒店)
        flag_before = words[k - 2][2] if k >= 2 else None
        verb_before = flag_before is not None and flag_before.startswith("v")
        return (flag == own and prev is not None and prev[1] == ws and nxt is not None and nxt[0] == we
                and prev[2] is not None and prev[2].startswith(before) and nxt[2] is not None
                and nxt[2].startswith(after) and text[we] not in _SENTENCE_PARTICLES
                and not (word == "的" and (verb_before or text[prev[0]:prev[1]] in _ADVERB_NOUNS))
                and (word != "地" or di_may_go(text, ws)))  # (the safe tier's own test: 更好地理解, 优雅地要 stay)
    return word in _TONE_PARTICLES and nxt is None and not _WORD.search(text, we, clause_end)


def _reads_english(text: str, line_start: int, line_end: int) -> bool:
    """Whether a line (its first 400 characters) holds more English function words than those of the
    neighbouring Latin-script languages, and at least one."""
    en = other = 0
    for m in _LATIN_WORD.finditer(text, line_start, min(line_end, line_start + 400)):
        w = m.group(0).lower()
        if w in _EN_FUNCTION:
            en += 1
        elif w in _FOREIGN_FUNCTION:
            other += 1
    return en > other


# what ends the zh clause before a 的: its punctuation, or a line break
_ZH_CLAUSE_ENDS = "，。；！？,;!?：:\n"


def _de_closes_a_phrase(text: str, ws: int) -> bool:
    """Whether a verb or a preposition (jieba.posseg) or a coordination (和, 与, 、 …) stands between the start of the
    clause and the 的 at ``ws``: the 的 then closes a relative clause, a prepositional or a coordinated phrase,
    whatever its nearer words are tagged."""
    lo = max(0, ws - 60)
    head = text[max(lo, max(text.rfind(ch, lo, ws) for ch in _ZH_CLAUSE_ENDS) + 1):ws]
    if not head:
        return False
    if any(c in head for c in "和与及或、跟同"):
        return True  # (checked here too: a coordinated phrase before a 的 reads as the 的's scope)
    if any(c.isdigit() for c in head):
        return True  # a quantity phrase (游玩时长0.3小时-0.5小时的景点): part-of-speech tags there are unreliable
    if _welds_a_word(text, ws):
        return True  # 偏咸的菜肴 → 偏咸菜肴 reads 咸菜 ("pickles")
    if len(head) >= 2 and text.startswith(head[-2:], ws + 1):
        return True  # 酒店的酒店设施 → 酒店酒店设施: the same word twice reads as a stutter
    if _parallel_de(text, ws):
        return True  # 一份完整的，有艺术，专业的建筑设计 / 以最快的速度，最专业的思维: one of a series of modifiers
    # a verb, or a preposition (对, 从) but for 把/被/将/在, or an adverb of aspect (已, 正在: 主库已宕机的情况 — the word
    # it qualifies is a predicate, whatever jieba tags it)
    return any(flag.startswith("v") or flag.startswith("p") and word not in _OBJECT_MARKERS or word in _ASPECT
               for word, flag in _segment(head))


def _parallel_de(text: str, ws: int) -> bool:
    """Whether the 的 at ``ws`` is in a series of modifiers: a clause of its sentence just before it (up to two back,
    after ，、；) or the next one is a short one with a 的 too — taking one of them breaks the series (一份完整的，有艺术，专业的…
    → 专业 attaches to the noun; 最快的速度，最专业思维)."""
    lo = max(0, ws - 60)
    start = max(text.rfind(ch, lo, ws) for ch in "。！？!?\n") + 1
    before = re.split(r"[，、；,;]", text[max(lo, start):ws])
    hi = min(len(text), ws + 40)
    ends = [k for k in (text.find(ch, ws, hi) for ch in "。！？!?\n") if k >= 0]
    after = re.split(r"[，、；,;]", text[ws + 1:min(ends) if ends else hi])
    return any(_modifier_clause(c) for c in before[-3:-1]) or len(after) > 1 and _modifier_clause(after[1])


def _modifier_clause(clause: str) -> bool:
    """A clause that ends with a 的 (…一份完整的，: its noun is the next item's) or a short one with a 的 (以最快的速度):
    an item of a series of modifiers, not a clause of its own."""
    clause = clause.strip()
    return clause.endswith("的") or "的" in clause and len(clause) <= 8


_ASPECT = frozenset({"已", "已经", "正在", "刚", "刚刚", "曾", "曾经", "将要", "即将", "仍", "仍然", "尚", "尚未", "未"})


# prepositions whose phrase a 的 inside it does not close (把下面的中文翻译 → 把下面中文翻译)
_OBJECT_MARKERS = frozenset({"把", "被", "将", "在"})


def _welds_a_word(text: str, ws: int) -> bool:
    """Whether taking the 的 at ``ws`` makes its neighbours a dictionary word of 2–4 characters across the cut."""
    from .lexicon import zh_word_aligned
    joined = text[max(0, ws - 3):ws] + text[ws + 1:ws + 4]
    p = min(3, ws)  # the cut in ``joined``
    return not zh_word_aligned(joined, p, p)


_MARKER_BEFORE = re.compile(rf"[ \t]*{_MARKER}[ \t]+\Z")


def _first_after_marker(text: str, ws: int) -> bool:
    """Whether the word at ``ws`` is the first of a list item or heading line ("- 歌词", "### 擅长")."""
    line_start = text.rfind("\n", 0, ws) + 1
    return ws - line_start <= 12 and _MARKER_BEFORE.match(text[line_start:ws]) is not None


def _flag_of(m: re.Match[str] | _Match) -> str | None:
    return m.flag if isinstance(m, _Match) else None
