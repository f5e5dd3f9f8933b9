"""Material: what a conversation hands over to be *processed*, not to instruct — kept verbatim.

A prompt mixes two things: instructions to the model ("Translate the following into French:", "Reply
"yes" or "no".") and the material those instructions work on (the letter to translate, the quoted
sentence, the code to review, the few-shot exemplars, the exam question and its options, a table, a JSON
object, a tool's output, the assistant turn the model is to continue).  Pruning may tidy the instructions;
it must never edit the material: a "filler" word inside a quoted letter is part of the letter, and an
exemplar's "Of course" is the exemplar's answer.

:func:`find_material` returns every material range of a :class:`~layerzero_viz.view.TextView` with its
kind and a detail a person can check ("kept: quoted text “Dear Sir…”", "kept: exam item option (B)").
``protect`` turns them into ``protected_material`` protections, which no rule overrides (repeats included).

Every finder works inside one text block (material never crosses a block; what one block says of another — a
system prompt's quoted words, a request for the next reply — only picks whole ranges of later blocks), is a linear scan (regexes with
no nested unbounded repetition, each behind a cheap substring guard), and errs towards *small* ranges:
an instruction sentence that merely contains a short quoted word keeps its words prunable around the quote.

Kinds (``Material.kind``):

``prefill``      the final message of the conversation when it is an assistant turn (the model continues it)
``processed_turn`` every user and assistant turn after a system prompt (or, with none, a first turn) that says the
                 user's turns are text to process — "The user will provide you with a body of English text …
                 review …", "用户会输入一段文本 … 润色": a grammar corrector's or translator's dialogue is its input
                 and its output, and an article or a "Thank you" in it is part of what is corrected or translated
``tool_result``  text of a ``tool_result`` block, or of a ``tool``/``function`` role message
``code``         fenced blocks (```…``` or ~~~…~~~), indented 4-space code blocks, `inline` code
``quote``        “…” 「…」 『…』 «…» ‘…’ of any length, across lines; "…" on a line (or opening a line and
                 closing a later one); '…' of two words or more; and where a later turn says them, the words a system
                 prompt quotes ("最后一句必须以“总体来说，”开头": an exemplar reply's 总体来说，), or a line of its
                 template filled in ("Hi {first_name}, thanks for reaching out!" → "Hi Alex, thanks for reaching out!")
``introduced``   the text after an introducer that hands it over ("Translate:", "this letter:", "以下文章：",
                 "原文：", "Text:", "Reply to grade:", "(Full Text to be Integrated):", "请回答这样一个对话：") up to the end of the block — less
                 a trailing instruction paragraph, and stopping before the next introducer or task instruction
                 paragraph; and the text between marker lines ("-↓-Edit Your Letter Here-↓-" … a row of ↑, "=====
                 Paste your essay here =====" … a rule line or the block's end); the words after a say-verb and a
                 colon ("Say: Hello, thank you for calling …", "说：…", "内容是：…", "Body: …", "the message should be:
                 …"); the paragraph after a line that points at a text to pass on exactly ("Send this SMS exactly:",
                 "请原样发送下面这条短信："); the list after a line that hands over questions to ask as written ("Ask me the
                 following questions in order:"); a template to fill in; a turn an earlier one announced ("I'll paste an
                 email next."); an assistant reply that delivers a text the turn before asked to write or change (or a
                 new version of one: "Make the email above more formal.", "Add that …"), or that the next turn asks to
                 work on; the unquoted words an edit request replaces and puts in ("Change Enjoy the croissant! to …");
                 a transcript of speaker lines ("PRIYA: Hi everyone, …"); a section headed as a macro, template or
                 script after a sentence that forbids changing them ("=== MACRO A ===", "=== 话术B ==="); and the value
                 of a field the system prompt says to copy verbatim ("Notes: …" after "Copy `notes` verbatim")
``few_shot``     exemplar lines: Q:/A:, 问：/答：, 输入：/输出：, Input:/Output:, User:/Assistant: … (a label only
                 counts when its partner label is in the same block), and Example:/示例： lines; a section under a
                 heading naming an example or a template ("### 交互示例", "## Recruiter Email Template", "## 学习的案例"),
                 and the list after a line announcing examples ("下面是翻译腔的例子：", "例如：", "Examples of guest
                 messages and your replies:"); lines under any two labels that alternate twice ("Message: …⏎Label:
                 POLITE"), and the field before an empty label a turn ends with ("消息：…⏎标签：")
``exam_item``    options (A)/(B), A./B., 1)/2), a./b. (two or more in sequence, after a question) and the
                 question they answer
``table``        a markdown table (a header row, a |---| separator row and the rows after it); CSV or TSV rows (a header
                 of short fields and at least two records with as many commas or tabs)
``json``         a JSON object or array (it parses, or it has "key": pairs)
(``code`` also covers YAML front matter opening a block or a file of a bundle: "---\nname: …\ndescription: …\n---",
unfenced YAML, a Python def with its body, a commit log and a stack trace or logcat paragraph)

Which verbs ask for work on a text is one table (``_EDIT``, ``_CONDENSE``, ``_LABEL`` … below): each detector takes
the kinds it needs, so a verb added to a kind reaches every detector that takes it.
"""
from __future__ import annotations

import json
import re
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from .reuse import found_in, reused

if TYPE_CHECKING:
    from .model import MessageKey
    from .view import BlockRef, TextView

__all__ = ["Material", "MaterialFinds", "KINDS", "find_material", "block_material", "largest_first"]

KINDS = ("prefill", "processed_turn", "tool_result", "code", "quote", "introduced", "few_shot", "exam_item", "table", "json")


class Material(NamedTuple):
    """A material range (global offsets into the view's text), its kind and the detail shown for it."""

    start: int
    end: int
    kind: str
    detail: str


def _line_matches(rx: re.Pattern[str], text: str, s: int, e: int) -> list[tuple[int, int, re.Match[str]]]:
    """(line start, end, match) of ``rx`` — a pattern that starts by matching a newline — at the lines of
    [s, e).  A literal first character lets the regex engine jump from newline to newline instead of trying
    every position (a ``^`` in MULTILINE mode is tried at every character).

    These patterns take a line's indentation possessively (``[ \t]*+``) where what follows can never be a
    space or tab: giving spaces back could only fail again, and on most lines the pattern fails — at half
    the cost when it need not try every shorter indentation first."""
    if s > 0:  # every block but the first follows the separator's newline
        return [(m.start() + 1, m.end(), m) for m in rx.finditer(text, s - 1, e)]
    return [(m.start(), m.end() - 1, m) for m in rx.finditer("\n" + text[:e])]


def _short(value: str, limit: int = 40) -> str:
    """``value`` on one line, cut to ``limit`` characters with an ellipsis."""
    if len(value) <= limit and value.isprintable() and "  " not in value and value[:1] != " " != value[-1:]:
        return value  # most quotes: short, and the only blank in a printable string is a single inner space
    short = " ".join(value[:limit + 40].split())  # a quoted prompt may be long: look at its start only
    return short if len(short) <= limit and len(value) <= limit + 40 else short[:limit - 1] + "…"


# ---------------------------------------------------------------------------------------------- code

# fenced code: ``` … ``` anywhere (an unclosed fence runs to the end of the block), ~~~ fences on their own
# lines; inline `code` on one line
# (up to the first ``` or the end: taken possessively, not lazily, which tried the closing fence after every
# character)
_FENCE = re.compile(r"```[^`]*+(?:`(?!``)[^`]*+)*+(?:```|\Z)")
_TILDE_FENCE = re.compile(r"^[ \t]*~~~.*?(?:^[ \t]*~~~[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# an indented code block: lines indented by 4 spaces or a tab, after a blank line (or the block start)
# what tells code from indented prose: braces, semicolons, assignments, calls, comments, keywords
_CODE_HINT = re.compile(r"[{};=<>]|[A-Za-z0-9_]\(|^[ \t]*(?://|\$ )|\b(?:def|class|return|import|function|var|let|const|"
                        r"SELECT|FROM|WHERE|print|echo|if|for|while)\b", re.MULTILINE)
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d+[.)、]|[A-Za-z][.)])[ \t]")


def _code(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    # single characters first: searching for a longer string costs ten times as much as for one character
    if "~" in seg and "~~~" in seg:
        for m in _TILDE_FENCE.finditer(text, s, e):
            yield m.start(), m.end(), "code", "kept: code (fenced block)"
    if "`" in seg:
        for m in _FENCE.finditer(text, s, e):
            yield m.start(), m.end(), "code", "kept: code (fenced block)"
        for m in _INLINE_CODE.finditer(text, s, e):
            yield m.start(), m.end(), "code", f"kept: inline code {_short(m.group(0))}"
    if "\n    " in seg or "\t" in seg and "\n\t" in seg or seg.startswith(("    ", "\t")):
        yield from _indented_code(text, s, e)
    if _line_ends_with_brace_or_semicolon(seg, 3):
        yield from _bare_code(text, s, e)


def _line_ends_with_brace_or_semicolon(seg: str, times: int) -> bool:
    """Whether at least ``times`` lines of ``seg`` end with ; { or } (a count of ";\n", "{\n", "}\n"),
    counting a mark only when the character is there and stopping once there are enough."""
    n = 0
    for end in (";\n", "{\n", "}\n"):
        if end[0] in seg:
            n += seg.count(end)
            if n >= times:
                return True
    return False


# a line that reads as code (unfenced code pasted into a prompt): it opens or closes a brace, ends a
# statement, or starts with a comment or a declaration keyword; list items and headings never do.
# Possessive where backtracking could only fail again: an indentation given back starts no keyword, and
# the last of ;{(,)]> on the line (">" only in "=>") is the only one that can end it — walking back over a
# line character by character for it was most of the time of the code finder
_CODE_LINE = re.compile(
    r"\n(?![ \t]*+(?:[-*+•>#]|\d++[.)、])[ \t])[ \t]*+(?:"
    r"(?://|/\*|\*/|#include|import\s|from\s+\S+\s+import|def\s|class\s|return\b|const\s|let\s|var\s|"
    r"function\b|async\s|await\s|public\s|private\s|if\s*\(|for\s*\(|while\s*\(|[}\])]+)[^\n]*"
    r"|(?:[^\n;{(\[,)\]>]*+[;{(\[,)\]>])++(?<![^=]>)[ \t]*)$",
    re.MULTILINE,
)
_MIN_CODE_LINES = 4


def _bare_code(text: str, s: int, e: int) -> Iterable[tuple[int, int, str, str]]:
    """Runs of at least four code lines in a row (blank lines between are fine) that hold a brace, a
    semicolon or an assignment: code pasted without a fence."""
    run_start = run_end = -1
    count = 0
    for a, b, _ in _line_matches(_CODE_LINE, text, s, e):
        if run_end >= 0 and not text[run_end:a].strip():
            run_end, count = b, count + 1
            continue
        if count >= _MIN_CODE_LINES and _CODE_HINT.search(text, run_start, run_end):
            yield run_start, run_end, "code", "kept: code (unfenced)"
        run_start, run_end, count = a, b, 1
    if count >= _MIN_CODE_LINES and _CODE_HINT.search(text, run_start, run_end):
        yield run_start, run_end, "code", "kept: code (unfenced)"


# code a user pastes without a fence that the line finder above misses: a Python def/class and its indented body,
# YAML (key: lines at two or more depths, one of them opening a mapping), a commit log (hash + subject lines), and a
# stack trace or logcat paragraph (one "at x.y(File.java:56)", 'File "…", line N', "Traceback (…)" or "E/Tag:" line)
_PY_HEAD = re.compile(r"^([ \t]*)(?:async[ \t]+)?(?:def|class)[ \t]+\w+[^\n]*:[ \t]*$", re.MULTILINE)
_YAML_LINE = re.compile(r"[ \t]*(?:-[ \t]+)?(?:[\w.\-\"']+[ \t]*:(?:[ \t]+[^\n]*)?|#[^\n]*|-[ \t]+[^\n]+)")
_YAML_KEY = re.compile(r"[ \t]*(?:-[ \t]+)?[\w.\-\"']+[ \t]*:")
# (a YAML mapping opened on an indented line: looked for only when a line ends with a colon)
_YAML_HINT = re.compile(r"\n[ \t]+(?:-[ \t]+)?[a-z_][\w.-]*:[ \t]*\n")
_TRACE_HINTS = ("\tat ", "    at ", "File \"", "Traceback", "\nE/", "\nW/", "\nF/")
_COMMIT_LINE = re.compile(r"^[0-9a-f]{7,40}[ \t]+\S[^\n]*$", re.MULTILINE)
_TRACE_LINE = re.compile(r"^(?:[ \t]+at[ \t]+[\w.$<>]+\([^()\n]*\)[ \t]*|[ \t]*File \"[^\"\n]+\", line \d+[^\n]*|"
                         r"Traceback \(most recent call last\):|[VDIWEF]/[\w.$-]+(?:\([ \t]*\d+\))?:[^\n]*)$", re.MULTILINE)


def _pasted_structures(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    out: list[tuple[int, int, str, str]] = []
    # (each structure behind a substring test of its own: most blocks have none of them)
    hints = {"py"} if ("def " in seg or "class " in seg) and _PY_HEAD.search(seg) else set()
    if ":\n" in seg and _YAML_HINT.search(seg):
        hints.add("yaml")
    if "commit" in seg or "Commit" in seg or "git " in seg:
        hints.add("commit")
    if any(h in seg for h in _TRACE_HINTS):
        hints.add("trace")
    for m in _PY_HEAD.finditer(text, s, e) if "py" in hints else ():
        indent = len(m.group(1).expandtabs(4))
        end, body, pos = m.end(), 0, m.end() + 1
        while pos < e:
            le = text.find("\n", pos, e)
            le = e if le < 0 else le
            line = text[pos:le]
            if line.strip():
                if len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) <= indent:
                    break
                end, body = le, body + 1
            pos = le + 1
        if body >= 2:
            out.append((m.start(), end, "code", "kept: code (unfenced Python)"))
    # YAML: a run of key/list/comment lines at two depths or more, one of them opening a mapping ("spec:")
    pos, run = (s, []) if "yaml" in hints else (e + 1, [])
    while pos <= e:
        le = text.find("\n", pos, e)
        le = e if le < 0 else le
        if _YAML_LINE.fullmatch(text, pos, le) and text[pos:le].strip():
            run.append((pos, le))
        else:
            out.extend(_yaml_run(text, run))
            run = []
        pos = le + 1
    out.extend(_yaml_run(text, run))
    commits = [m.span() for m in _COMMIT_LINE.finditer(text, s, e)] if "commit" in hints else []
    if len(commits) >= 2:
        out.append((commits[0][0], commits[-1][1], "code", "kept: a commit log"))
    # (log lines: _log_lines)
    done = s  # (the paragraph of a trace line is found once, not once per line of the trace)
    for m in _TRACE_LINE.finditer(text, s, e) if "trace" in hints else ():
        if m.start() < done:
            continue
        para = text.rfind("\n\n", s, m.start())
        stop = _BLANK_LINE.search(text, m.end(), e)
        done = stop.start() if stop is not None else e
        a = para + 2 if para >= 0 else s
        nl = text.find("\n", a, m.start())
        if nl > 0 and text[a:nl].rstrip(" \t*").endswith((":", "：")):
            a = nl + 1  # (the user's line that introduces it: "Please check this Java stack trace for me, thanks:")
        a, b = _stripped(text, a, done)
        out.append((a, b, "code", "kept: a stack trace or log"))
    if seg.count(",") >= 3 and seg.count("\n") >= 2:
        out.extend(_csv_runs(text, s, e))
    return out


_CSV_NAMES = re.compile(r"[\w\u4e00-\u9fff-]{1,20},[\w\u4e00-\u9fff-]{1,20}")


def _csv_runs(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """Runs of at least three lines with the same number (two or more) of commas or tabs, the first a header of short
    fields: a CSV or TSV export ("response_id,store,comment,nps⏎R-9001,Leeds,Thanks so much!,10"), whose cells are
    data."""
    out: list[tuple[int, int, str, str]] = []
    run: list[tuple[int, int]] = []
    width = -1

    def close() -> None:
        if len(run) >= 3:
            head = text[run[0][0]:run[0][1]]
            if all(0 < len(f.strip()) <= 40 for f in head.split("\t" if "\t" in head.strip() else ",")):
                out.append((run[0][0], run[-1][1], "table", "kept: CSV rows (a header and its records)"))

    pos = s
    while pos < e:
        le = text.find("\n", pos, e)
        le = e if le < 0 else le
        line = text[pos:le]
        n = line.count("\t" if "\t" in line.strip() else ",")
        if n == 1 and not run and not _CSV_NAMES.fullmatch(line.strip()):
            n = 0  # (one comma: only under a header of two short names, "编号,留言", "id,text")
        if n >= 1 and (n == width or not run):
            run.append((pos, le))
            width = n
        else:
            close()
            run, width = ([(pos, le)], n) if n >= 2 or n == 1 and _CSV_NAMES.fullmatch(line.strip()) else ([], -1)
        pos = le + 1
    close()
    return out


def _yaml_run(text: str, run: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
    if len(run) < 4:
        return []
    depths = {len(text[a:b]) - len(text[a:b].lstrip(" \t")) for a, b in run}
    keys = [(a, b) for a, b in run if _YAML_KEY.match(text, a, b)]
    opens = any(not text[a:b].split(":", 1)[1].strip() for a, b in keys if ":" in text[a:b])
    # (config keys are lower case: "spec", "containers", "image"; a markdown list's labels are words, "- Style: …")
    lower = sum(1 for a, b in keys if text[a:b].lstrip(" \t-\"'")[:1].islower())
    if len(depths) < 2 or len(keys) < 3 or not opens or 2 * lower < len(keys):
        return []
    return [(run[0][0], run[-1][1], "code", "kept: YAML (unfenced)")]


_INDENT_AFTER_BLANK = re.compile(r"\n[ \t]*+\n(?= {4}|\t)")


def _indented_code(text: str, s: int, e: int) -> Iterable[tuple[int, int, str, str]]:
    """Runs of lines indented by 4 spaces or a tab that follow a blank line (an indented code block cannot
    interrupt a paragraph) and read as code, unless they continue or nest a list."""
    starts = [m.end() for m in _INDENT_AFTER_BLANK.finditer(text, s, e)]
    if text.startswith(("    ", "\t"), s):
        starts.insert(0, s)
    done = s
    for a in starts:
        if a < done:
            continue
        first_end = text.find("\n", a, e)
        first_end = e if first_end < 0 else first_end
        if _LIST_ITEM.match(text, a, first_end) or _previous_line_is_list_item(text, s, a):
            continue  # a nested list item or a list item's continuation, not code
        end = pos = first_end
        while pos < e:  # the run: indented lines, blank lines between them
            nl = text.find("\n", pos + 1, e)
            line_end = e if nl < 0 else nl
            if text.startswith(("    ", "\t"), pos + 1):
                end = line_end
            elif text[pos + 1:line_end].strip():
                break
            pos = line_end
        done = end
        if _CODE_HINT.search(text, a, end):  # indented prose is no code
            yield a, end, "code", "kept: code (indented block)"


def _previous_line_is_list_item(text: str, s: int, a: int) -> bool:
    """The last non-blank line before ``a`` (within 2,000 characters) is a list item."""
    k = a - 1
    floor = max(s, a - 2000)
    while k > floor:
        line_start = max(text.rfind("\n", floor, k) + 1, floor)
        if text[line_start:k].strip():
            return bool(_LIST_ITEM.match(text, line_start, k))
        k = line_start - 1
    return False


# -------------------------------------------------------------------------------------------- quotes

# paired marks, any length, across lines (inside one block); the first closing mark ends the quote
_PAIRED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|«[^»]*»|‘(?:[^‘’]|’(?=[A-Za-z]))*’(?![A-Za-z])")
# straight double quotes paired on a line, left to right; a mark left alone
_STRAIGHT_MARK = re.compile(r'"[^"\n]+"|"')
# '…' of two words or more: the opening mark not after a letter (don't, users'), the closing one not before
# a letter; apostrophes between letters may occur inside ('I'm sure it's fine').  The quoted text is taken
# possessively: it can only close at the first apostrophe that is not between letters (one between letters
# never closes), so there is nothing to give back — and no closing mark to try after every character
# (Chinese may follow it; an apostrophe inside is between Latin letters or digits: "'你好，不客气'只改标点" closes after 气)
_SINGLE = re.compile(r"'(?=[^\s'])((?:[^'\n]|(?<=[A-Za-z0-9])'(?=[A-Za-z0-9])){1,300}+)(?<=\S)'(?![A-Za-z0-9_'])")
_OPENER_BEFORE = " \t\n(（[【:：,，;；—-"
_HAN = re.compile(r"[\u3400-\u9fff]")


def _quotes(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if "“" in seg or "「" in seg or "『" in seg or "«" in seg or "‘" in seg:
        for m in _PAIRED.finditer(text, s, e):
            if m.end() - m.start() > 2:
                yield m.start(), m.end(), "quote", f"kept: quoted text {_short(m.group(0))}"
    if '"' in seg:
        yield from _straight_quotes(text, s, e)
    if "'" in seg:
        for m in _SINGLE.finditer(text, s, e):
            before = text[m.start() - 1] if m.start() > s else " "
            if before.isascii() and before.isalnum() or before in "_'":
                continue  # an apostrophe (don't, users'), not an opening mark
            if " " in m.group(1) or "\t" in m.group(1) or len(m.group(1)) >= 2 and _HAN.search(m.group(1)):
                # (two words or more, or Chinese: "should I write '收到，谢谢王总'?", "print('任务已成功地完成')")
                yield m.start(), m.end(), "quote", f"kept: quoted text {_short(m.group(0))}"


def _straight_quotes(text: str, s: int, e: int) -> Iterable[tuple[int, int, str, str]]:
    """"…" pairs on each line, left to right; a quote left open at the end of a line (an opening mark: after
    a space or a colon, before a letter) runs to the first mark of a later line when that one closes it (a
    quoted letter).

    One regex pairs the marks of a line left to right ("" is no quote: its second mark may open one) and
    leaves the rest alone; a lone mark is the last of its line unless another follows it at once.  Only
    such a mark that opens a quote (rare) needs looking further: the next mark closes it or not, and the
    pairing goes on from there."""
    pos = s
    while True:
        open_at = -1
        for m in _STRAIGHT_MARK.finditer(text, pos, e):
            a, b = m.span()
            if b - a > 1:
                yield a, b, "quote", f"kept: quoted text {_short(m.group(0))}"
            elif (b < e and not text[b].isspace() and text[b] != '"'
                  and (a == s or text[a - 1] in _OPENER_BEFORE)) or _opens_its_line(text, a, b, s, e):
                open_at = a  # the last mark of its line opens a quote
                break
        if open_at < 0:
            return  # a quote still open at the end of the block is no quote (an inch mark, a stray mark)
        close = text.find('"', open_at + 1, e)  # the first mark of a later line
        if close < 0:
            return
        if not text[close - 1].isspace():  # a closing mark (not after a space or at a line start) ends it
            yield open_at, close + 1, "quote", f"kept: inside the quoted text {_short(text[open_at:close + 1])}"
            pos = close + 1
        else:
            pos = close  # it opens a quote of its own: the one left open was no quote


def _opens_its_line(text: str, a: int, b: int, s: int, e: int) -> bool:
    """A lone mark at the start of a line before spaces and then text ('" 让我为您分析：' under "示例回答："): it
    opens a quoted passage however it is spaced."""
    if not (a == s or text[a - 1] == "\n") or b >= e or text[b] not in " \t":
        return False
    k = b
    while k < e and text[k] in " \t":
        k += 1
    return k < e and text[k] not in '\n"'


# ------------------------------------------------------------------------------------ the verbs of work on a text

# One vocabulary of the verbs a prompt uses for work on a text, by what the work does to it; every detector below takes
# the kinds it needs from here (named in its comment), so a verb added to a kind reaches all of them.  An English verb
# is its word (regex) and its stem (the detectors that accept any form: "translat" → translates, translation).
class _Verbs(NamedTuple):
    en: tuple[tuple[str, str], ...] = ()  # (word, stem)
    zh: tuple[str, ...] = ()


# makes a new version of the text, whose words then matter: translate it, rewrite it, 润色, 改成…
_EDIT = _Verbs(
    (("translate", "translat"), ("proofread", "proofread"), ("rewrite", "rewrit"), ("rephrase", "rephras"),
     ("paraphrase", "paraphras"), ("reword", "reword"), ("polish", "polish"), ("correct", "correct"), ("edit", "edit"),
     ("tighten", "tighten"), ("shorten", "shorten"), ("continue", "continu"), ("finish", "finish"),
     ("complete", "complet"), ("localize", "locali[sz]"), ("localise", "locali[sz]")),
    ("翻译", "翻成", "译成", "润色", "校对", "改写", "纠错", "纠正", "修正", "改成", "改为", "改得", "换成", "重写", "改述", "仿写",
     "扩写", "续写", "缩写", "缩短", "精简", "压缩", "降重", "重新撰写", "重新创作", "改一下", "改改", "删掉", "删除", "去掉", "删去", "改语病",
     "改错", "翻一下", "本地化",
     # (asked in Japanese or Korean: "日本語に訳してください", "以下の英文を日本語に翻訳してください", "한국어로 번역해 주세요")
     "に訳して", "に翻訳して", "翻訳してください", "로 번역해", "번역해 주세요", "번역해주세요"))
# sums it up, tidies it or makes it plainer
_CONDENSE = _Verbs((("condense", "condens"), ("summari[sz]e", "summari[sz]"), ("simplify", "simplif"), ("cut", "cut"),
                    ("trim", "trim")),
                   ("总结", "概括", "提炼", "整理"))
# puts it in another form: "render it in Japanese" — only in what a system prompt declares it does with every turn,
# never as a request's verb (a code paragraph's render() or convert() asks for nothing)
_RECAST = _Verbs((("revise", "revis"), ("render", "render"), ("refine", "refin"), ("convert", "convert")),
                 ("转换", "转写"))
# labels or scores it: its words are the data
_LABEL = _Verbs(
    (("label", "label"), ("classify", "classif"), ("categori[sz]e", "categori"), ("tag", "tag"), ("grade", "grad"),
     ("score", "scor"), ("extract", "extract")),
    ("分类", "标注", "打个?分", "评个?分", "打标签", "归类", "抽取", "提取"))
# comments on it as a piece of writing
_CRITIQUE = _Verbs((("critique", "critiqu"),), ("批改", "点评", "赏析", "鉴赏", "品读", "解读", "评价一?下"))
# looks it over ("review" and "rate" are also what a code reviewer or a rate limit do: not a transformation)
_REVIEW = _Verbs((("review", "review"), ("evaluate", "evaluat"), ("rate", "rate"), ("audit", "audit"),
                  (r"look\s+over", r"look\s+over"), (r"go\s+over", r"go\s+over")),
                 ("看看", "看一?下", "质检", "审核", "审阅", "评审", "审查", "评估", "审校", "审一下",
                  # (code-switched and Cantonese: "帮我check一下这个email：", "帮我睇下呢个email")
                  "check一?下", "睇一?下", "睇睇"))
# reads it for what it says
_FIND = _Verbs((("analy[sz]e", "analy[sz]"), ("identify", "identif"), ("detect", "detect")))
# answers about it (判断, 分析: "判断请求类型" in a system prompt's steps declares no text to process)
_ANSWER = _Verbs((("explain", "explain"), ("interpret", "interpret"), ("assess", "assess"), ("mark", "mark"),
                  ("answer", "answer"), ("draft", "draft")),
                 ("判断", "识别", "分析", "解释"))
# helps with it (a chat's "fix this", "check my code", "帮我检查" answer a question as often as they hand a text over)
# ("reply in formal English to this email": how to reply may come between the verb and its "to")
_HELP = _Verbs((("fix", "fix"), ("improve", "improv"), ("check", "check"),
                (r"reply(?:\s+(?:in|with)\s+[^.!?\n:]{1,30}?)?\s+to", "repl[yi]"),
                (r"respond(?:\s+(?:in|with)\s+[^.!?\n:]{1,30}?)?\s+to", "respond")),
               ("修改", "检查", "回复", "回信", "回(?=[这那])", "优化", "改进", "扩展"))
# puts its items in order ("Sort these politeness markers by frequency")
_ORDER = _Verbs((("sort", "sort"), ("rank", "rank"), ("alphabeti[sz]e", "alphabeti"), ("reorder", "reorder")),
                ("排序", "排个序"))
# a request to work on a text ("Please check this changelog", "翻译下面的邮件")
_ANY_WORK = (_EDIT, _CONDENSE, _LABEL, _CRITIQUE, _REVIEW, _FIND, _ANSWER, _HELP, _ORDER)
# what a classifier's system prompt sorts each text by ("把用户的话分成四类", "判断每条评论的情感")
_SORTING_ZH = ("分成", "情感", "情绪", "意图", "正面", "负面", "中性")


def _pick(kinds: tuple[_Verbs, ...], without: tuple[str, ...]) -> tuple[list[tuple[str, str]], list[str]]:
    en = [v for k in kinds for v in k.en if v[0] not in without]
    return en, [w for k in kinds for w in k.zh if w not in without]


def _en_words(*kinds: _Verbs, without: tuple[str, ...] = ()) -> str:
    """The English verbs of ``kinds`` as words, one alternation (``\\b…\\b`` is the caller's)."""
    return "(?:" + "|".join(word for word, _ in _pick(kinds, without)[0]) + ")"


def _en_stems(*kinds: _Verbs, without: tuple[str, ...] = ()) -> str:
    """The English verbs of ``kinds`` as stems, one alternation."""
    return "(?:" + "|".join(stem for _, stem in _pick(kinds, without)[0]) + ")"


def _zh_words(*kinds: _Verbs, without: tuple[str, ...] = (), extra: tuple[str, ...] = ()) -> str:
    """The Chinese verbs of ``kinds`` (and ``extra``), one alternation."""
    return "(?:" + "|".join(_pick(kinds, without)[1] + list(extra)) + ")"


# ------------------------------------------------------------------------------------ introduced text

_COLON = r"[ \t]*(?:\*\*)?[ \t]*[:：]"
# nouns that name a text handed over (not "description", "rules", "steps": those head instructions)
_TEXT_NOUN_EN = (r"(?:text|texts|passage|paragraphs?|sentences?|article|essay|letter|e-?mail|message|document|"
                 r"poem|story|transcript|excerpt|lyrics|speech|draft|paper|abstract|question|questions|"
                 r"problem|snippet|code|review|reviews|dialogue|conversation|content|words|phrase|"
                 # (a job seeker's papers: "Here is the JD:", "Here are my resume bullets:")
                 r"jd|job\s+(?:description|posting|ad)|offer(?:\s+letter)?|resume|cv|bullets?|bio|cover\s+letter)")
# a label alone on a line start: "Text:", "Passage:", "Original letter:"
_LABEL_NOUN_EN = (r"(?:text|passage|paragraphs?|sentences?|article|essay|letter|document|poem|story|transcript|"
                  r"excerpt|lyrics|speech|draft|abstract|template|auto-?reply(?:[ \t]+text)?|canned[ \t]+reply|"
                  r"(?:greeting|phone|call|sales|opening|closing)[ \t]+script)")
# verbs whose object is a text: "Translate:", "Summarize the following article:" (not "Edit:", which opens a post's
# correction)
_VERB_EN = _en_words(_EDIT, _CONDENSE, without=("edit",))
# (a language named, or its code: "into French", "to zh-Hans", "into pt-BR")
_LANG_EN = r"(?:into|to|in)[ \t]+(?:[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?|[a-z]{2}(?:[-_][A-Za-z]{2,4})?)"
_INTRO_EN = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)(?:[-*>#]+[ \t]*)?(?:\*\*)?"
    r"(?i:(?:sorry|oops|my\s+bad|ok(?:ay)?|sure|right)[ \t]*[,—–-][ \t]*)?"  # ("Sorry, here it is: …")
    r"(?:"
    rf"(?i:please[ \t]+)?(?i:{_VERB_EN})(?i:[ \t]+(?:the[ \t]+following|the|this|these|it|my))?"
    r"(?i:[ \t]+(?:word[ \t]+(?:by|for)[ \t]+word|literally|verbatim|exactly|again))?"
    rf"(?:[ \t]+(?i:{_TEXT_NOUN_EN}))?(?i:[ \t]+below)?(?:[ \t]+{_LANG_EN})?(?i:[ \t]+for[ \t]+me)?"  # Translate …:
    rf"|(?i:(?:(?:please[ \t]+)?(?:[a-z']+[ \t]+){{0,5}}?)?(?:the[ \t]+following|this|these|here[ \t]+is|"
    rf"here's|here[ \t]+are|below[ \t]+is)(?:[ \t]+(?:my|the|a|an|[a-z-]+)){{0,2}}?[ \t]+{_TEXT_NOUN_EN}"
    r"(?:[ \t]+below)?)"                                                                       # this letter:
    rf"|(?<![^\n])(?i:(?:input|original|source|sample|given|user(?:'s)?)[ \t]+)?(?i:{_LABEL_NOUN_EN})"  # Text:
    rf"|(?i:my[ \t]+first[ \t]+(?:[a-z]+[ \t]+)?(?:{_TEXT_NOUN_EN}|sentence|request|command|prompt)[ \t]+is)"
    # the user's own words offered for comment ("I usually write:", "Here it is:", "I need feedback on my headline:")
    r"|(?i:I[ \t]+(?:usually|always|normally|often|currently|would|might)?[ \t]*(?:write|say|use|put|wrote|said)"
    r"|here[ \t]+it[ \t]+is|here[ \t]+they[ \t]+are|here[ \t]+you[ \t]+go"
    r"|(?:[a-z']+[ \t]+){0,4}?(?:feedback|thoughts|opinions?|comments?)[ \t]+(?:on|about|for)[ \t]+(?:my|the|this|our)[ \t]+"
    r"[^:\n.!?]{1,40})"
    # a learner's answers to check ("My answers to the exercise: 1. please 2. thank you")
    r"|(?i:(?:here\s+are\s+)?my[ \t]+(?:answers?|attempts?|sentences?|homework)(?:[ \t]+(?:to|for)[ \t]+[^:\n.!?]{1,30})?"
    r"(?:[ \t]+(?:is|are))?|(?:(?<![^\n])|(?<=[.!?][ \t]))(?:answers?|original|source(?:[ \t]+text)?))"
    # a question about the words of a text: "Count how many times 'please' appears in:", "Find all the verbs in:"
    # ("Which words are polite in:", "Classify the sentiment of:", "Can you please count how many times 'thanks' appears in:";
    # not "You are an expert with deep experience in:", which heads a list of the prompt's own)
    r"|(?i:(?:[a-z']+[ \t]+){0,4}?(?:count|find|list|highlight|underline|mark|how[ \t]+many|which|what|spot|identify|"
    r"classify|detect|extract|analy[sz]e|correct|rate|score|grade|label|tag)\b[^\n:：.!?]{0,60}?[ \t](?:in|of|from)"
    r"(?:[ \t]+(?:this|the[ \t]+following|my)(?:[ \t]+[a-z]+)?)?)"
    r"|(?<![^\n])[^\n]{0,60}?\((?i:(?:full|exact|verbatim|complete|original)[ \t]+(?:text|wording)\b)[^()\n]{0,40}\)"
    r"(?:[ \t]*\*\*(?=[ \t]*[:：]))?"  # "- **Content (Full Text to be Integrated):**"
    r")" + _COLON,
    re.MULTILINE,
)
_ZH_DEM = r"(?:以下|下面|如下|下列|下文|这篇|这段|这封|这首|这份|这句|这几句|这则|这样)"
_ZH_NOUN = (r"(?:文章|段落|一段话|段话|话|文字|内容|文本|句子|一句话|邮件|信件|信|诗歌?|歌词|代码|材料|简历|"
            r"故事|对话|评论|新闻|报告|论文|作文|短文|原文|题目|问题|英文|中文|文案|稿子|演讲稿|摘要|片段)")
# (not 改成, 改为, 改得, 换成: what follows them is the result asked for, "请改成：更正式的语气")
_ZH_VERB = _zh_words(_EDIT, _CONDENSE, _CRITIQUE, without=("改成", "改为", "改得", "换成"))
_INTRO_ZH = re.compile(
    r"(?:^|(?<=[。！？!?；;，,]))[ \t]*(?:[-*>#]+[ \t]*)?(?:\*\*)?"
    r"(?:"
    rf"(?:(?:请|请你|请您|麻烦|帮我|请帮我|麻烦你|帮忙){_ZH_VERB}|翻译)(?:一下)?"                    # 请润色：, 翻译：
    rf"(?:(?:成|为)[\u4e00-\u9fffA-Za-z]{{1,4}})?(?:{_ZH_DEM}(?:的|这|一)?[段篇封首句份个]?{_ZH_NOUN})?"
    rf"|{_ZH_VERB}(?:一下)?(?:(?:成|为)[\u4e00-\u9fffA-Za-z]{{1,4}})?{_ZH_DEM}(?:的|这|一)?[段篇封首句份个]?{_ZH_NOUN}"
    rf"|[\u4e00-\u9fff]{{0,8}}?{_ZH_DEM}(?:是|的|这|一)?[段篇封首句份个]?(?:我的)?[小短长新旧]?{_ZH_NOUN}(?:是|如下)?"  # 以下文章：
    rf"|{_ZH_DEM}(?:是|为)?[^。！？：:\n]{{0,10}}?(?:案例|范例|范文)"  # 以下是你学习的案例：
    r"|[\u4e00-\u9fff]{0,8}?这个(?:句子|病句|段落)"  # 请改这个句子：
    r"|(?:请|请你|帮我|麻烦)?(?:判断|分析|识别|标注|归类|分类)[^。！？\n：:]{0,8}?(?:情感|情绪|倾向|类别|意图|态度|语气)"
    r"[^。！？\n：:]{0,4}|(?:情感|情绪|意图|语气)(?:分类|分析|判断|倾向|标注)"  # 判断情感倾向：, 请分析语气：, 情感分类：
    r"|(?:请|帮我|麻烦)?(?:把|将)[^。！？\n：:]{1,20}?(?:翻译|翻|译|改|换)(?:成|为)[^。！？\n：:]{1,20}"  # 请把“麻烦”翻译成 excuse me：
    rf"|(?:(?<![^\n])|(?<=[，,。！？!?]))(?:待翻译的?|待处理的?|输入的?|给定的?|我的|我写的)?(?:原文|译文|文本|文章|正文|段落|材料|句子|原句|题目|短文|作文|对话|"
    r"答案|回答|作业|练习)(?:是)?"  # 原文：, 我的答案是：
    rf"|(?:(?<![^\n])|(?<=[。！？!?]))(?:(?:回复|短信|邮件|通知)?模板|话术|自动回复|短信内容|邮件内容|文案)"  # 你好！回复模板：
    rf"|(?:(?<![^\n])|(?<=[。！？!?][ \t])|(?<=[。！？!?]))(?:下一句|下一个句子|这一句|例句|原句)"  # 下一句：She have a cat.
    rf"|(?:我的)?第[一二三四五六七八九十\d]+(?:个|句|条|段|篇|道)?(?:{_ZH_NOUN}|请求|句话)是"         # 第一个问题是：
    r")" + _COLON,
    re.MULTILINE,
)
# an editing request on a text it points at: "Make this warmer:", "Turn it into a haiku:", "把这段改得更正式：",
# "对下面这段客服对话打分：" — the object is the text that follows (tried at a colon the introducers above missed)
_INTRO_EDIT = re.compile(
    r"(?:^|(?<=[.!?。！？；;，,]))[ \t]*(?:[-*>#]+[ \t]*)?(?:\*\*)?(?:"
    r"(?i:(?:please[ \t]+)?(?:make|turn|get|improve|fix|edit|shorten|simplify|grade|score|rate|review|critique|check)"
    r"[ \t]+(?:this|it|these|the[ \t]+following)(?:[ \t]+[a-z-]+){0,4})"
    r"|(?:请|请你|帮我|麻烦)?(?:把|将|对|给)(?:以下|下面|下列|下文|这)(?:这)?[段篇封首句份个条]?[\u4e00-\u9fffA-Za-z]{0,12}?"
    r")" + _COLON,
    re.MULTILINE,
)
# a paragraph that instructs (it ends the handed-over text when it follows it)
_INSTRUCTION_PARA = re.compile(
    r"[ \t]*(?:[-*>#]+[ \t]*)?(?:\*\*)?(?:"
    r"(?i:please|pls|make sure|ensure|do not|don't|never|always|only|note|remember|keep|use|write|return|output|"
    r"respond|reply|answer|give|provide|list|explain|translate|summari[sz]e|format|avoid|be|also|then|finally|draft|compose|"
    r"your (?:task|answer|response|output|job)|the (?:output|answer|response)|requirements?|instructions?|"
    r"rules?|constraints?|now)\b"
    r"|请|要求|注意|务必|不要|需要|只需|只要|只|输出|回答|返回|翻译成|并且|然后|另外|最后|记住|确保|必须|你的任务|你需要|格式|规则|限制"
    r"|再强调|再次强调|强调一下)"
)
_TASK_WORDS = re.compile(
    r"(?i:translat|summar|answer|respon|reply|output|format|words|sentences|bullet|language|english|chinese|"
    r"tone|style|json|markdown|classif|sentiment|label)|翻译|总结|回答|输出|格式|字数|字以内|\d+\s*字|语言|中文|英文|风格|语气|要求"
    r"|分类|情感"
)
_PARA_BREAK = re.compile(r"\n[ \t]*\n\s*")


def _introduced(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if ":" not in seg and "：" not in seg:
        return
    found = _introducers(text, s, e)
    intro_starts = [m.start() for m in found]
    last_end = s
    for k, m in enumerate(found):
        if m.end() <= last_end:
            continue  # inside the text handed over by an earlier introducer
        if _OWN_WORDS.search(m.group(0)):
            continue  # "Here's my problem:", "下面是我的问题：": the user's own question follows, not a text to work on
        a = m.end()
        if text.startswith("**", a):  # "**Content (Full Text):**": the label's closing emphasis
            a += 2
        while a < e and text[a] in " \t\n":
            a += 1
        a = _past_own_words(text, m.end(), a, e)
        if a >= e or text[a] in "\"“「『«'‘`":
            continue  # nothing after it, or a quote or code: that finder keeps it (and only it)
        b = _handed_text_end(text, a, e, next((p for p in intro_starts[k + 1:] if p > a), None))
        if b <= a:
            continue
        label = _short(m.group(0).strip(" \t\n*#->"), 50)
        found_range = (a, b, "introduced", f"kept: the text handed over after {label!r}")
        last_end = b
        yield found_range


_OWN_WORDS = re.compile(r"(?i:\bhere(?:'s|\s+is|\s+are)\s+my\s+(?:problem|question|questions|issue)\b)|(?:下面|以下)(?:是|就是)?我的问题")


_THANKS_TO_HELPER = re.compile(r"\s*(?:(?i:(?:thank\s+you|thanks)\b[^\n]{0,30}?\b(?:for\s+(?:your|the)\s+help|in\s+advance|again)\b"
                               r"|tia\b|any\s+help\s+(?:is\s+|would\s+be\s+)?(?:much\s+|greatly\s+|really\s+)?appreciated\b"
                               r"|(?:i\s+|i'd\s+|would\s+)?appreciate\s+any\s+help\b"
                               r"|[^\n]{0,40}?\bI\s+(?:really\s+|truly\s+|so\s+|greatly\s+)?appreciate\s+(?:it|your\s+help)\b)"
                               r"|(?:麻烦您了|麻烦你了|麻烦了|辛苦您了|辛苦你了|先谢谢|先谢了|提前感谢|提前谢谢|谢谢啦|谢谢谢谢|辛苦辛苦|辛苦啦|万分感谢|感激不尽|"
                               r"真的非常感激))[^\n]{0,60}\s*\Z")


def _letters_closing(text: str, a: int, p: int, pe: int) -> bool:
    """Whether the last paragraph [p, pe), a thanks in advance or again, closes a letter that opens at ``a`` with a
    salutation on its own line ("Hi Tom,⏎⏎…⏎⏎Thanks in advance!"): the letter's own closing, not the user's thanks
    (one that thanks for help is the user's: "Thanks in advance for your help!")."""
    m = _SALUTATION.match(text, a, min(pe, a + _SALUTATION_WITHIN))
    return m is not None and m.group("zh") is None and text[m.end():m.end() + 1] in ("\n", "") \
        and text[p:pe].isascii() and "help" not in text[p:pe].lower()


def _handed_text_end(text: str, a: int, e: int, nxt: int | None) -> int:
    """Where the text handed over from ``a`` (after an introducer) ends: its paragraphs up to the next introducer
    (at ``nxt``) or a task instruction, without a trailing instruction paragraph or task sentences."""
    stop = e
    paras = [a]
    for br in _PARA_BREAK.finditer(text, a, e):
        paras.append(br.end())
    ends = []
    for i, p in enumerate(paras):
        pe = paras[i + 1] if i + 1 < len(paras) else e
        if i and (nxt is not None and p <= nxt < pe or _is_task_instruction(text, p, pe)
                  or i == len(paras) - 1 and (_asks_for_the_reply(text, p, pe) or _asks_about_it(text, p, pe))):
            # (the last paragraph only: "Help me reply.", "Is it too short? Could you suggest a longer version?")
            stop = p
            break
        ends.append((p, pe))
    # a trailing instruction paragraph is the instruction, not part of the text; a closing thanks to the one who helps
    # is the user's ("Thank you so much for your help, I really appreciate it!", "麻烦您了，非常感谢！")
    while len(ends) > 1 and (_trailing_instruction(text, ends[-1][0], ends[-1][1])
                             or _THANKS_TO_HELPER.match(text, ends[-1][0], ends[-1][1])
                             and not _letters_closing(text, a, *ends[-1])
                             or _thanks_by_the_title_greeted(text, a, *ends[-1])
                             or _thanks_in_another_script(text, ends[-2][0], *ends[-1])
                             or _thanks_only(text, *_stripped(text, *ends[-1]))
                             and (_stripped(text, *ends[-2])[1] > 0 and text[_stripped(text, *ends[-2])[1] - 1] in _CLOSING_QUOTES
                                  or text.startswith("```", _stripped(text, *ends[-2])[1] - 3)
                                  or (_NOT_A_LETTER.search(text, max(0, a - _NAMED_WITHIN), a) is not None
                                      or _PRINTED_INTRO.search(text, max(text.rfind("\n", 0, max(a - 1, 0)) + 1,
                                                                         a - _NAMED_WITHIN), a) is not None)
                                  and _SALUTATION.search(text, a, min(ends[-2][1], a + _SALUTATION_WITHIN)) is None)):
        # (a bare "Thanks!" after a quotation, or after a text the request calls a dialogue, a poem or a paragraph, is the
        # user's: '"Thank you for considering my application."⏎⏎Thanks!', "Continue this dialogue:⏎⏎ANNA: …⏎BEN: Out.⏎⏎
        # Thanks so much!"; after a letter or a message it may be its own closing line — "张阿姨，…吗？⏎⏎谢谢您！",
        # "各位同事：⏎⏎下週一放假。⏎⏎謝謝！" — and stays)
        ends.pop()
    b = ends[-1][1] if ends else stop
    b = min(b, stop)
    if nxt is not None and a < nxt < b:  # (the next introducer on a later line of the same paragraph: "Version A: …⏎Version
        # B: …")
        b = nxt
    while b > a and text[b - 1].isspace():
        b -= 1
    if "\n" not in text[a:b] and _PRINTED_INTRO.search(text, max(text.rfind("\n", 0, a) + 1, a - _NAMED_WITHIN), a):
        k = _SENTENCE_BEFORE.search(text, a, b)  # ("I ran it and got: You have an error in …. Thanks!": the user's thanks)
        if k is not None and _thanks_only(text, k.end(), b):
            b = _stripped(text, a, k.end())[1]
    last = text.rfind("\n", a, b) + 1
    if last > a and _thanks_only(text, last, b) \
            and _NOT_A_LETTER.search(text, max(0, a - _NAMED_WITHIN), a):
        b = _stripped(text, a, last)[1]  # ("…⏎[警告] 磁盘空间不足⏎麻烦你了。" after "看一下这个日志": the user's thanks)
    if _STUDIED_TEXT.search(text, max(0, a - _NAMED_WITHIN), a):
        return b  # (a prompt or a model's reply ends in instructions and thanks of its own: "… Please answer politely. Thank you.")
    return _before_thanks_after_quote(text, a, _without_trailing_task_sentences(text, a, b))


# a text handed over to be studied as it is: a prompt, a model's reply ("Here's my prompt, …:", "下面的提示词…：", "Here's the
# model's reply, count …:")
_STUDIED_TEXT = re.compile(r"(?i:\bprompt\b|\b(?:model|assistant|bot|llm|gpt|claude|ai)(?:'s)?\s+(?:reply|response|answer|output)\b)"
                           r"|提示词|模型的?(?:回复|回答|输出)")


# what a program printed, by the words that introduce it ("I ran it and got:", "报错了：")
_PRINTED_INTRO = re.compile(r"(?i:\b(?:got|getting|errors?|logs?|output|traces?|traceback|exception|returns?|returned|prints?|printed|"
                            r"shows?|showed|throws?|threw|fails?\s+with|failed\s+with|console|displays?|displayed)\b)"
                            r"|报错|出错|错误|日志|返回")
# a line that only thanks the one who helps ("麻烦你了。", "Thanks for your help!"): not a lyric's "谢谢谢谢，今夜不寂寥"
_HELPER_THANKS_LINE = re.compile(r"[ \t]*(?:麻烦(?:你|您)?了|辛苦(?:你|您)?了|先谢谢了?|谢谢啦|多谢了?|感谢感谢|(?i:thanks?(?:\s+you)?\s+"
                                 r"(?:for\s+(?:your|the)\s+help|in\s+advance)|tia|any\s+help\s+(?:is\s+)?(?:much\s+|greatly\s+|really\s+)?"
                                 r"appreciated(?:[ \t]*[,!.][ \t]*thanks?(?:\s+you)?)?))[ \t]*[.!。！~～]*[ \t]*")


# a thanks to the one asked by the title the user greeted them with ("老师好！这是我写的短文，请帮我改一改：⏎⏎…⏎⏎谢谢老师！")
_THANKS_BY_TITLE = re.compile(r"[ \t]*(?:谢谢|感谢|多谢)(老师|医生|大夫|律师|师傅|专家)(?:了|啦)?[ \t]*[!！。.~～]*[ \t]*")


def _thanks_by_the_title_greeted(text: str, a: int, p: int, pe: int) -> bool:
    """Whether the paragraph [p, pe) after a text handed over from ``a`` only thanks the one the user greeted by the
    same title before it (the user's, not the text's closing line)."""
    t = _THANKS_BY_TITLE.fullmatch(text, *_stripped(text, p, pe))
    return t is not None and re.search(t.group(1) + "(?:您|你)?好", text[max(0, a - _NAMED_WITHIN):a]) is not None


def _thanks_in_another_script(text: str, a: int, p: int, pe: int) -> bool:
    """Whether the paragraph [p, pe) only thanks, in another script than the paragraph [a, p) before it (the user's
    "谢谢！" under an English text to translate, "Thanks!" under a Chinese one)."""
    pa, pb = _stripped(text, p, pe)
    if not _thanks_only(text, pa, pb):
        return False
    cjk, latin = _script_counts(text[a:p])
    thanks_cjk = _script_counts(text[pa:pb])[0] > 0
    return latin > 4 * cjk if thanks_cjk else cjk > 4 * latin


def _script_counts(words: str) -> tuple[int, int]:
    """How many Chinese characters and how many Latin letters ``words`` hold."""
    return sum("\u4e00" <= ch <= "\u9fff" for ch in words), sum(ch.isascii() and ch.isalpha() for ch in words)


def _trailing_instruction(text: str, p: int, pe: int) -> bool:
    """Whether the paragraph [p, pe) after a handed-over text instructs about the work ("Please keep it under 100 words.",
    "Note: formal tone.") — a bare please or 请 opens the text's own requests as often ("请多关照，谢谢！", "Please share
    this with your team.")."""
    if _ASKS_MORE_WORK.match(text, p, pe):
        return True
    m = _INSTRUCTION_PARA.match(text, p, pe)
    if m is None:
        return False
    if _is_task_instruction(text, p, pe) or _SAYS_HOW.match(text, p, pe):
        return True
    return text[p:m.end()].strip(" \t*#->").lower() not in ("please", "pls", "请")


# … or asks for more of the work ("Could you please also make it friendlier? Thanks!", "麻烦保留人名不变，谢谢！")
_ASKS_MORE_WORK = re.compile(r"[ \t]*(?:(?i:(?:could|can|would)\s+you\s+(?:please\s+)?also\s+(?:make|keep|add|remove|use|change|"
                             r"turn|translate|shorten|rewrite|format)|please\s+also)\b|"
                             # ("Make it friendlier. Thanks!", "Make it more formal.")
                             r"(?i:(?:please\s+)?make\s+(?:it|this|them)\s+(?:a\s+(?:bit|little)\s+|much\s+|slightly\s+)?"
                             r"(?:more\s+[a-z]+|less\s+[a-z]+|[a-z]{2,}er)\b)|(?:麻烦|麻煩|请|請)(?:你|您)?(?:也|也帮我|也幫我)?"
                             r"(?:保留|不要改|别改|只翻译|只改|把语气|把語氣))")


def _before_thanks_after_quote(text: str, a: int, b: int) -> int:
    """``b`` moved back before a closing thanks that follows a quotation ('Summarise this clause? "…" Thank you!'): the
    user's thanks, not the text's own (a letter's closing thanks, inside the text, stays)."""
    k = _SENTENCE_BEFORE.search(text, a, b)
    if k is None:
        return b
    t = k.end()
    while t < b and text[t] in _CLOSING_QUOTES:
        t += 1
    if t == k.end() and text[k.start()] not in _CLOSING_QUOTES or not _CLOSING_THANKS.fullmatch(text, t, b):
        return b
    return _stripped(text, a, t)[1]


# the end of the sentence (or line) before the last one in a range
_SENTENCE_BEFORE = re.compile(r"[.!?。！？\n](?=[\s\"”’」』]*[^\s.!?。！？\"”’」』][^.!?。！？\n]*[.!?。！？]?[\"”’」』]*\s*\Z)")


# a sentence that speaks to the text's own readers, about the text itself: the text's, not a task ("Please confirm your
# attendance by replying to this email no later than Friday.", "请回复本邮件确认。")
_TO_ITS_READERS = re.compile(r"(?i:\bthis[ \t]+(?:e-?mail|message|letter|notice|memo|invitation)\b|\breplying[ \t]+to\b)|本邮件|此邮件|"
                             r"本通知|本消息|此消息")


def _without_trailing_task_sentences(text: str, a: int, b: int) -> int:
    """``b`` moved back past the sentences that end the handed-over text by instructing about the task ("…来坐坐。
    不要超过100字。", "… this month. Do not exceed 80 words."): they are the author's instruction, not the text."""
    end, pending = b, None  # a thanks after the instruction goes with it ("… Please classify it. Thanks in advance!")
    while b > a:
        m = _SENTENCE_BEFORE.search(text, a, b)
        if m is None:
            break
        k = m.end()
        while k < b and text[k] in " \t\n\"”’」』":
            k += 1
        if (_is_task_instruction(text, k, b) and not _TO_ITS_READERS.search(text, k, b)
                or b == end and text[k - 1:k] == "\n" and _asks_for_the_reply(text, k, b)):
            b, pending = m.end(), None  # (a last line of its own may ask for the reply: "⏎请帮我写一个回复，谢谢。")
            continue
        if b == end and _CLOSING_THANKS.fullmatch(text, k, b):
            pending, b = b, m.end()  # (only if an instruction comes before it)
            continue
        break
    return pending if pending is not None else b


_CLOSING_QUOTES = "\"”’」』"
# a closing thanks (a sentence of its own): "Thanks in advance!", "谢谢！"
_CLOSING_THANKS = re.compile(r"[ \t]*(?:(?i:thanks?(?:\s+you)?(?:\s+(?:so|very)\s+much|\s+a\s+lot)?(?:\s+in\s+advance)?|thx|cheers|ty)"
                             r"|(?:提前)?谢谢(?:你|您)?(?:啦|了)?|多谢|(?:提前)?感谢)[ \t]*[.!！。~～]*[ \t]*")


def _thanks_only(text: str, a: int, b: int) -> bool:
    """Whether [a, b) is only a thanks, a closing one or one to the helper ("Thanks in advance!", "谢谢！", "麻烦你了")."""
    return (_CLOSING_THANKS.fullmatch(text, a, b) or _HELPER_THANKS_LINE.fullmatch(text, a, b)) is not None


def _introducers(text: str, s: int, e: int) -> list[re.Match[str]]:
    """Introducer matches in [s, e), in order.  Each colon is looked at on its own, with the clause before it
    on its line (at most 160 characters): a scan from the colons, not a regex tried at every position."""
    found: list[re.Match[str]] = []
    for colon, colons in ((":", _COLON_AFTER_WORD), ("：", _FULL_COLON_AFTER_WORD)):
        for cm in colons.finditer(text, s, e):
            c = cm.start()
            k = c - 1
            while k >= s and text[k] in " \t*":
                k -= 1
            if k < s:
                continue
            # the window: the clause before the colon on its line, at most 160 (40) characters
            ws = max(s, c - (160 if colon == ":" else 40))
            nl = text.rfind("\n", ws, c)
            if nl >= 0:
                ws = nl + 1
            m = None
            if text[k] in _ZH_LAST or colon == ":" and (text[k] == ")" or _may_end_introducer(text, k, ws)) \
                    or colon == "：" and _ZH_INTRO_HINT.search(text, ws, c) is not None:
                for rx in (_INTRO_EN, _INTRO_ZH) if colon == ":" else (_INTRO_ZH,):
                    m = rx.search(text, ws, c + 1)
                    if m is not None and m.end() == c + 1:
                        break
                    m = None
            if m is None and _may_end_edit_request(text, k, ws):
                m = _INTRO_EDIT.search(text, ws, c + 1)
                m = m if m is not None and m.end() == c + 1 else None
            if m is not None:
                found.append(m)
    found.sort(key=lambda m: m.start())
    return found


# the colons an introducer may end at: every introducer (English, Chinese or an editing request) ends with
# an ascii letter, a CJK character, "-", a letter (?i:[a-z]) also matches (İ ı ſ K) or the ")" of "(Full Text)",
# and only spaces, tabs and ** come between it and the colon — a third of the colons (times, URLs, "key": pairs)
# are none of them
_WORD_END = "A-Za-z\u4e00-\u9fff\\-\u0130\u0131\u017f\u212a)"
_COLON_AFTER_WORD = re.compile(rf":(?<=[{_WORD_END} \t*]:)")
_FULL_COLON_AFTER_WORD = re.compile(rf"：(?<=[{_WORD_END} \t*]：)")


def _may_end_introducer(text: str, k: int, ws: int) -> bool:
    """Whether the latin word ending at ``k`` (inclusive) can end an English introducer: one of its last
    words, or a capitalised word that names a language after into/to/in ("… into French:").

    A cheap test that runs before the introducer regexes (most colons follow a heading such as "Rules:" or
    "Output:", which no introducer ends with).  It never turns away a colon one of them matches at: every
    introducer ends with a letter; if that is not a word of ``_EN_LAST``, "the" ("TRANSLATE THE:") or a
    language after into/to/in inside the window [ws, k], neither regex can end there (a Chinese introducer
    ending in latin letters has 成/为 in the same word, which is then no ascii word)."""
    if not ("a" <= text[k] <= "z" or "A" <= text[k] <= "Z"):
        return False  # every introducer ends with a letter
    tail = text[max(0, k - 19):k + 1].rsplit(None, 1)[-1]
    word = tail.lstrip("\"'(*[#>-")
    if not word or not word.isascii():
        return False
    low = word.lower()
    if low in _EN_LAST or _MY_ANSWERS.search(text, ws, k + 1):
        return True
    if not word[0].isupper() and not _LANGUAGE_CODE.fullmatch(word):
        return False
    if low == "the":
        return True
    # a language after into/to/in: "in" or "to" must be in the window before the regex is worth running
    return (text.find("in", ws, k) >= 0 or text.find("to", ws, k) >= 0) \
        and _LANGUAGE_END.search(text, ws, k + 1) is not None


_MY_ANSWERS = re.compile(r"(?i:\bmy[ \t]+(?:answers?|attempts?|sentences?|homework)\b|\b(?:feedback|thoughts|opinions?|comments?)"
                         r"[ \t]+(?:on|about|for)[ \t]+(?:my|the|this|our)\b)")
_LANGUAGE_CODE = re.compile(r"[a-z]{2}(?:[-_][A-Za-z]{2,4})?")
# the words an introducer can end with (a cheap test before its regex runs)
_EN_LAST = frozenset((
    "write say use put wrote said is are go answer answers original source "
    "text texts passage paragraph paragraphs sentence sentences article essay letter email e-mail message document "
    "poem story transcript excerpt lyrics speech draft paper abstract question questions problem snippet code review "
    "reviews dialogue conversation content words phrase translate proofread summarize summarise paraphrase rewrite "
    "rephrase polish correct below following this these it me is my template reply autoreply auto-reply script "
    "jd description posting ad offer resume cv bullet bullets bio"
).split()) | {"request", "command", "prompt", "in", "from", "of", "word", "literally", "verbatim", "exactly", "again"}
# what a Chinese introducer that may end in any character holds: "请把“麻烦”翻译成 excuse me：", "判断情感倾向："
_ZH_INTRO_HINT = re.compile(r"(?:翻译|翻|译|改|换)(?:成|为)|判断|分析|识别|标注|归类|分类|倾向")
_ZH_LAST = frozenset("章落话字容本句件信诗歌码料历事评闻告文目题案子要段译色对写括错改简下是板复术例")
# "… into French" ending where the introducer's colon follows
_LANGUAGE_END = re.compile(_LANG_EN + r"\Z")


# the characters an ``_INTRO_EDIT`` request can end with besides ascii letters: "-" and the letters its
# case-insensitive [a-z] also matches (İ ı ſ K)
_EDIT_EN_END = frozenset("-\u0130\u0131\u017f\u212a")
_EDIT_ZH_VERBS = frozenset("把将对给")
_EDIT_PRONOUNS = frozenset(("this", "it", "these", "following"))


def _may_end_edit_request(text: str, k: int, ws: int) -> bool:
    """Whether an ``_INTRO_EDIT`` match in [ws, k] can end at ``k`` (the last character before the colon).

    A necessary condition, tested before the regex (it runs at most colons, and most are headings):
    its Chinese form ends at most 17 characters after 把/将/对/给 ("把以下这段" + up to 12 characters) with a
    CJK character or an ascii letter; its English form ends with "this"/"it"/"these"/"(the) following" or
    one of the up to four words after it — one of the last five words, each a whole word (words are
    separated by spaces; a word that is not ascii may case-fold to one, and is let through)."""
    ch = text[k]
    latin = ch.isascii() and ch.isalpha()
    if not (latin or ch in _EDIT_EN_END or "\u4e00" <= ch <= "\u9fff"):
        return False
    tail = text[ws:k + 1]
    if tail.isascii():  # most colons: no 把/将/对/给 — and most lines have no pronoun at all
        low = tail.lower()
        if "it" not in low and "this" not in low and "these" not in low and "following" not in low:
            return False
    elif (latin or "\u4e00" <= ch <= "\u9fff") and not _EDIT_ZH_VERBS.isdisjoint(text[max(ws, k - 17):k]):
        return True
    if not (latin or ch in _EDIT_EN_END):
        return False
    for word in tail.rsplit(None, 5)[-5:]:
        if word.lower() in _EDIT_PRONOUNS or not word.isascii():
            return True
    return False


def _is_task_instruction(text: str, p: int, pe: int) -> bool:
    """A short paragraph that opens like an instruction and speaks about the task (its output, language,
    format), or asks for the reply to a message handed over: it ends the text handed over before it."""
    return pe - p <= 400 and bool(_INSTRUCTION_PARA.match(text, p, pe)) and bool(_TASK_WORDS.search(text, p, pe))


def _asks_for_the_reply(text: str, p: int, pe: int) -> bool:
    """Whether [p, pe) is a short request for the reply to what was handed over ("Help me reply, please. Thanks!",
    "What should I say?", "请帮我写一个回复，谢谢。", "怎么回复？") — a sentence of the text itself only asks for one in so
    many words ("麻烦尽快回复" asks the reader, not the model)."""
    a, b = _stripped(text, p, pe)
    if not 0 < b - a <= 150:
        return False
    # (the request may follow a sentence or two: "Is this a scam? How should I …", "I got this from a recruiter. Help me
    # reply that …"; the request itself is short)
    starts = [a] + [k.end() for k in _SENTENCE_STOP.finditer(text, a, min(b, a + 50))]
    for k in starts[:3]:
        while k < b and text[k] in " \t":
            k += 1
        if b - k > 100:
            continue
        m = _REPLY_ASK.match(text, k, b)
        if m is not None and _REPLY_ASK_REST.fullmatch(text, m.end(), b) is not None \
                and not _BARE_REPLY.fullmatch(m.group(0).strip()):
            return True
    return False


def _asks_about_it(text: str, p: int, pe: int) -> bool:
    """Whether [p, pe), a short last paragraph after a handed-over text, asks the model about that text ("Is it too
    short? Could you please suggest a longer version? Thanks!", "OK?", "那第3点还要回复吗？", "这样写可以吗？")."""
    a, b = _stripped(text, p, pe)
    return 0 < b - a <= 120 and ("?" in text[a:b] or "？" in text[a:b]) and "您" not in text[a:b] \
        and _ABOUT_IT.match(text, a, b) is not None


_ABOUT_IT = re.compile(r"(?i:(?:is|does|was)\s+(?:it|this|that|these|those|my\s+[a-z]+|the\s+[a-z]+)\s+(?:[a-z]+\s+)?(?:too|ok|"
                       r"okay|fine|good|right|correct|clear|polite|rude|formal|casual|professional|appropriate|better|enough|"
                       r"natural|sound|read|look|legal|enforceable|valid|allowed|lawful|fair|binding|reasonable)\b|"
                       r"(?:ok|okay|thoughts|better)\s*\?|what\s+does\s+(?:he|she|they|it|this|that)\s+mean|"
                       # whether what a notice or a clause says may stand: "Can they do that without 48 hours' notice?"
                       r"can\s+(?:they|he|she|my\s+[a-z]+|the\s+[a-z]+)\s+(?:really\s+|legally\s+|actually\s+)?(?:do|ask|require|make|"
                       r"charge|deduct|fire|withhold)\b)"
                       r"|[^。！？!?\n您]{0,20}?(?:合法|合理|合规|有效|违法|违规|公平|靠谱|合适|妥当|得体)(?:吗|么|不)"
                       r"|(?:这样|这么)(?:写|说|回|发|改)?(?:可以|行|合适|得体|妥当|对|好)(?:吗|不|么|嘛)"
                       r"|[^。！？!?\n您]{0,12}?(?:行不行|可不可以|怎么样|什么意思|是不是|要不要|还要[^。！？!?\n您]{0,10}?吗)")


# a bare "Please reply" a message asks its reader ("Please reply ASAP, thank you!"), not the user the model
_BARE_REPLY = re.compile(r"(?i:(?:please\s+)?(?:reply|respond|answer))|(?:请|麻烦|麻煩)?(?:你|您)?(?:回复|回覆|答复|回一下|回覆一下|回下)")


_REPLY_ASK = re.compile(
    r"(?i:(?:please\s+)?(?:(?:help\s+me|can\s+you|could\s+you|would\s+you)(?:\s+please)?(?:\s+help\s+me)?\s+)?"
    r"(?:(?:politely|nicely|kindly|gently|firmly|briefly)\s+)?(?:reply\s+in\s+[A-Z]?[a-z]+|reply|respond|answer|write\s+(?:a\s+|an\s+)?(?:reply|response|answer)|"
    r"draft\s+(?:a\s+)?(?:reply|response)|say\s+(?:no|yes)\b|decline|write\s+back)\b"
    r"|(?:what|how)\s+(?:should|do|can|would)\s+I\s+(?:say|reply|respond|answer|write\s+back)\b"
    r"|(?:any\s+)?(?:suggestions?|ideas?|tips?)\s+(?:for|on)\s+(?:a|the|my)\s+(?:reply|response|answer)\b)"
    r"|(?:(?:请|麻烦|麻煩)(?:你|您)?)?(?:帮我|帮忙|幫我|幫忙)?(?:用[\u4e00-\u9fff]{1,3})?(?:看看|想想|想一下)?(?:我)?(?:要|该|應該|应该)?(?:怎么|如何|怎麼)?(?:写|拟|想|寫|擬)?(?:一)?"
    r"[个条封段個條句]?(?:回复|回信|答复|回覆|回一下|回覆一下|回下|婉拒|回绝|回絕|拒绝|拒絕)"
    r"|(?:帮我|幫我)?(?:想一下|想想)?(?:我)?(?:要|该|應該|应该)?(?:怎么|如何|怎麼)(?:回|回复|答复|回覆)(?:比较|比較|才|更)?(?:得体|得體|好|合适|合適)?")
# a short sentence or two after it: how to reply, and thanks ("Help me say no nicely.", "我要怎麼回？幫我寫一下。")
_REPLY_ASK_REST = re.compile(r"(?:[^.!?。！？\n]{0,40}[.!?。！？:：]*\s*){0,2}(?:(?:(?i:thanks?(?:\s+you)?(?:\s+so\s+much)?)|谢谢|謝謝)[.!。！]*)?\s*")


# ------------------------------------------------------------------------------------------- few-shot

_SHOT_LABEL = re.compile(
    r"\n[ \t]*+(?:[-*>][ \t]*+)?(?:\*\*)?(?=[QAIOUHBCES问答输用助客示例范样])"  # fails most lines at once
    r"(Q|A|Question|Answer|问|答|输入|输出|Input|Output|User|Assistant|Human|AI|Bot|用户|助手|客户|客服|"
    r"Customer|Agent|Example|示例|例子|范例|样例|Sample)"
    r"(?:[ \t]*\d+)?(?:\*\*)?[ \t]*[:：]",
    re.MULTILINE,
)
_PARTNERS = {
    "Q": ("A",), "A": ("Q",), "Question": ("Answer",), "Answer": ("Question",), "问": ("答",), "答": ("问",),
    "输入": ("输出",), "输出": ("输入",), "Input": ("Output",), "Output": ("Input",),
    "User": ("Assistant", "AI", "Bot"), "Human": ("Assistant", "AI", "Bot"),
    "Assistant": ("User", "Human"), "AI": ("User", "Human"), "Bot": ("User", "Human"),
    "用户": ("助手", "客服"), "助手": ("用户",), "客户": ("客服",), "客服": ("客户", "用户"),
    "Customer": ("Agent",), "Agent": ("Customer",),
}
_Label = NamedTuple("_Label", [("start", int), ("end", int), ("name", str)])
_SINGLE_SHOT = frozenset({"Example", "示例", "例子", "范例", "样例", "Sample"})
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _few_shot(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if ":" not in seg and "：" not in seg:
        return
    labels = [_Label(a, b, m.group(1)) for a, b, m in _line_matches(_SHOT_LABEL, text, s, e)]
    if not labels:
        return
    names = {m.name for m in labels}
    pairs = {n for n in names if any(p in names for p in _PARTNERS.get(n, ()))}
    for k, m in enumerate(labels):
        name = m.name
        if name not in pairs and name not in _SINGLE_SHOT:
            continue
        nxt = labels[k + 1].start if k + 1 < len(labels) else e
        content = m.end
        while content < nxt and text[content] in " \t":
            content += 1
        if content < nxt and text[content] == "\n" and name in _SINGLE_SHOT:
            content += 1  # "Example:" alone on its line: the exemplar is the paragraph after it
        br = _BLANK_LINE.search(text, content, nxt)
        end = br.start() if br else nxt
        while end > m.start and text[end - 1].isspace():
            end -= 1
        if end <= m.end and name not in pairs:
            continue
        if name in pairs:
            partner = next(p for p in _PARTNERS[name] if p in names)
            first, second = (name, partner) if _pair_order(name) else (partner, name)
            detail = f"kept: few-shot exemplar ({first}:/{second}:)"
        else:
            detail = f"kept: few-shot exemplar ({name}:)"
        yield m.start, max(end, m.end), "few_shot", detail


def _pair_order(name: str) -> bool:
    """Whether ``name`` is the first label of its pair (Q before A)."""
    return name in ("Q", "Question", "问", "输入", "Input", "User", "Human", "用户", "客户", "Customer")


# ------------------------------------------------------------------------------------------ exam items

_OPTION_LINE = re.compile(
    r"\n[ \t]*+(?=[(（A-Ha-h1-9])(?:\(([A-Ha-h1-9])\)|（([A-Ha-h1-9])）|([A-H])[.．、:：)）]|([a-h])[.)）]|([1-9])[)）])[ \t]*+(?=\S)"
    r"[^\n]*",
    re.MULTILINE,
)
# the second option's label, after a space, a newline or an open parenthesis (the label first: the regex
# engine skips to a B/b/2 instead of trying the pattern at every character)
_SECOND_OPTION = re.compile(r"[Bb2](?<=[\n \t(（][Bb2])[.．、:：)）]")
# (each branch starts with a character, not a look-behind, so that the regex engine skips to the next "(",
# "（" or "A" instead of trying the pattern at every position)
_INLINE_OPTIONS = re.compile(r"(?:\(A\)|（A）)[^\n]{1,200}?(?:\(B\)|（B）)|A(?<![\w.]A)[.．、][ \t]*\S[^\n]{0,120}?"
                             r"[ \t；;，,]B[.．、][ \t]*\S[^\n]{0,120}?[ \t；;，,]C[.．、]")
# "(B)", "（B）", "B.", "B．", "B、": what the inline options need (one search for "B" instead of five)
_INLINE_B = re.compile(r"B(?:(?<=\(B)\)|(?<=（B)）|[.．、])")
_STEM = re.compile(r"[?？][ \t]*$|_{2,}|（[ \t　]*）|\([ \t]*\)|(?i:\bwhich\b|\bchoose\b|\bselect\b|\bcorrect\b)"
                   r"|哪|下列|以下哪|选出|选择|正确的是|错误的是")


def _exam_items(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if "\n" in seg and _SECOND_OPTION.search(seg):  # a second option on a line of its own somewhere
        yield from _option_lines(text, s, e)
    if "A" in seg and _INLINE_B.search(seg):  # options on one line: "A. …；B. …；C. …"
        for m in _INLINE_OPTIONS.finditer(text, s, e):
            line_start = _line_start(text, s, m.start())
            line_end = text.find("\n", m.end(), e)
            line_end = e if line_end < 0 else line_end
            yield line_start, line_end, "exam_item", "kept: exam item with its options"


def _option_lines(text: str, s: int, e: int) -> Iterable[tuple[int, int, str, str]]:
    opts = []
    for a, b, m in _line_matches(_OPTION_LINE, text, s, e):
        opts.append((a, b, next(g for g in m.groups() if g)))
    # runs of options labelled in sequence (A, B, C … / a, b … / 1, 2 …), each on the line after the last
    k = 0
    while k < len(opts):
        run = [opts[k]]
        j = k + 1
        while j < len(opts) and _next_label(run[-1][2]) == opts[j][2] \
                and not text[run[-1][1]:opts[j][0]].strip():
            run.append(opts[j])
            j += 1
        k = j if len(run) > 1 else k + 1
        if len(run) < 2 or run[0][2] not in "Aa1":
            continue
        stem_start, stem = _stem(text, s, run[0][0])
        letters = run[0][2] == "A" and len(run) >= 3 and all(b - a <= 150 for a, b, _ in run)
        if not (letters or (stem and _STEM.search(stem))):
            continue
        if stem_start < run[0][0] and stem.strip():
            yield stem_start, run[0][0] - 1, "exam_item", "kept: exam item question"
        for a, b, label in run:
            yield a, b, "exam_item", f"kept: exam item option ({label})"


# a line that asks to compare, rate or rank the items listed under it ("Which is more polite?", "Please rank these
# English requests by politeness:", "请给下面的句子打礼貌分（1—5分）：") — its items are texts, bullets or numbers alike
_COMPARE_CUE = re.compile(r"(?i:\b(?:which|rank|rate|score|compare|sort|order|grade|more|most|less|least|better|best|worse|"
                          r"differences?|difference\s+between)\b)|哪个|哪句|哪一个|哪种|打[\u4e00-\u9fff]{0,3}分|评分|排序|比较|更|最|区别")
# a last line that asks which of the lines above it is better ("Thanks so much for your patience!⏎Thank you for waiting!⏎
# Which is better for a loading screen?", "…⏎哪个更好？")
_WHICH_ABOVE = re.compile(r"[ \t]*(?i:(?:so\s+|ok(?:ay)?,?\s+)?which\s+(?:one\s+)?(?:is|sounds|reads|works|looks|feels)\s+"
                          r"(?:better|best|more\s+\w+|nicer|friendlier|clearer)\b[^\n]{0,60}\?)"
                          r"|[^\n]{0,12}?(?:哪个|哪句|哪一个|哪条|哪种)(?:更|比较|最)?[^\n]{0,20}?[？?]")


_LINE = re.compile(r"[^\n]+")
_LATIN_THEN_CJK = re.compile(r"[A-Za-z0-9)\"'][.!?][ \t]*(?=[\u4e00-\u9fff])")
# a last line that asks about the words above it ("这句话太客气了吗？", "Does this sound too pushy?")
_ABOUT_ABOVE = re.compile(r"[ \t]*(?:这句话|这句|这段话|这段|这条|这个说法|这样说|这么说)[^\n]{0,20}?[吗？?][ \t]*"
                          r"|(?i:[ \t]*(?:is|does|would)\s+(?:this|that)(?:\s+(?:sentence|line|message|text|wording|phrase))?\s+"
                          r"(?:too|sound|come\s+across|seem|read|look|okay|ok|fine|rude|polite)\b[^\n]{0,40}\?[ \t]*)")


def _candidates_above(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The lines above a turn's last line that asks which of them is better, each a text to compare as written; or,
    under a last line that asks about them ("这句话太客气了吗？"), the words above it as one text."""
    last = text.rfind("\n", s, e)
    about = _ABOUT_ABOVE.fullmatch(text, last + 1, e) if last >= 0 else None
    if about is not None:  # "您好，麻烦您尽快回复，谢谢！⏎这句话太客气了吗？": the words asked about, as written
        a, b = _stripped(text, s, last)
        return [(a, b, "introduced", f"kept: the words the last line asks about ({_short(about.group(0).strip(), 30)!r})")] \
            if 0 < b - a <= 400 else []
    which = _WHICH_ABOVE.match(text, last + 1, e) if last >= 0 else None
    if which is None or which.end() < e and not _CLOSING_THANKS.fullmatch(text, which.end(), e):
        return []  # (the last line asks only that, maybe with thanks: "Which is better …? Thanks!")
    lines = [(a, b) for a, b in (_stripped(text, m.start(), m.end()) for m in _LINE.finditer(text, s, last)) if b > a]
    while lines and _GREETING_LINE.fullmatch(text, *lines[0]):
        lines.pop(0)  # (the user's own "Hi!" above them)
    if not 2 <= len(lines) <= 8 or any(b - a > 200 for a, b in lines):
        return []
    return [(a, b, "exam_item", "kept: a candidate the last line asks to compare") for a, b in lines]


# an exercise's blank to fill ("— Could you please open the window? — ________.", "xiè xie（ ）"), and the dialogue or
# option lines next to it ("— Thanks so much!⏎— ______⏎A. You're welcome B. Me too")
_BLANK = re.compile(r"(?<!\w)_{3,}(?!\w)|（[ \t　]+）|\([ \t]+\)")
_BESIDE_A_BLANK = re.compile(r"[ \t]*(?:[—–]|-{1,2}(?=[ \t]))[ \t]*\S|[ \t]*[A-D][.．、)][ \t]*\S")


def _exercise_lines(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The lines of an exercise in a user turn: each line with a blank to fill, and the dialogue or option lines
    beside one — what the student answers, as written (the user's "谢谢老师" under it is theirs)."""
    if _BLANK.search(text, s, e) is None:
        return []
    lines = [_stripped(text, m.start(), m.end()) for m in _LINE.finditer(text, s, e)]
    # (not a rule line of underscores alone)
    blank = [_BLANK.search(text, a, b) is not None and bool(text[a:b].strip("_ \t")) for a, b in lines]
    out = []
    for i, (a, b) in enumerate(lines):
        if b > a and (blank[i] or any(blank[j] for j in (i - 1, i + 1) if 0 <= j < len(lines))
                      and _BESIDE_A_BLANK.match(text, a, b)):
            out.append((a, b, "exam_item", "kept: a line of an exercise (a blank to fill, its dialogue or options)"))
    return out


# or to count or sort them by what they say ("Count the positive ones.", "问卷回答，统计一下正面的有几条：")
_TALLY_CUE = re.compile(r"(?i:\b(?:count|how\s+many|classify|categori[sz]e|label|tag)\b[^\n]{0,40}?\b(?:positive|negative|neutral|"
                        r"ones|replies|reviews|comments|answers|responses|messages)\b)"
                        r"|(?:统计|数一数|数一下|数数|分类|标注)[^\n]{0,20}?(?:正面|负面|中性|几条|多少条|情感)"
                        # or to check their length ("Check length (max 40 chars):", "这两条推送有没有超过 20 个字：")
                        r"|(?i:\b(?:check|count)\s+(?:the\s+)?(?:length|characters|chars)\b|\bmax(?:imum)?\s+\d+\s+(?:chars?|characters)\b"
                        r"|\btoo\s+long\b|\b(?:under|within|over)\s+\d+\s+(?:chars?|characters)\b)|字数|超过\s*\d+\s*个?字|多少个?字|几个字|太长")
# or to pick from them, on a short line ending in a colon or a question mark ("Name options for my shop, pick 2:",
# "候选：", "选一个口号：")
_PICK_CUE = re.compile(r"(?i:\b(?:options|candidates|shortlist)[ \t]*[:：][ \t]*$|\b(?:pick|choose|select)\s+(?:one|two|three|\d|"
                       r"the\s+best|a\s+name|from|between|among|your\s+favou?rite)\b|\bwhich\s+one\b)"
                       r"|候选|备选|选(?:一|两|二|三|几)个|挑(?:一|两|几)个|选哪")
_PICK_LINE_MAX = 100
_COMPARED_ITEM = re.compile(r"[ \t]*(?:[-*•]|\d{1,2}[.)、．]|[A-Da-d][.)、．]|\(?[A-Da-d1-9]\)|[（(][A-Da-d1-9][）)]|[A-Da-d]）|#\d{1,2}:)"
                            r"[ \t]+(\S[^\n]*)")
# a request to merge or combine the items under it ("Merge these two drafts into one email.", "请帮我把下面两条通知合并成一条：")
_MERGE_CUE = re.compile(r"(?i:\b(?:merge|combine)\s+(?:these|them|the\s+following|both|the\s+two|all)\b)|合并成|合并为|整合成")
# a rule line between items ("---")
_ITEM_RULE = re.compile(r"[ \t]*(?:-{3,}|—{2,}|_{3,}|\*{3,}|={3,})[ \t]*$", re.MULTILINE)


# a request to label, classify or grade the texts under it, or to do a task for each of them: "Label the toxicity of these
# comments (0/1).", "I'm building an intent classifier. Here are few-shot examples:", "For each review, extract the
# product.", "每行给个情感标签：", "请判断以下评论是否有攻击性："
_LABEL_TASK = re.compile(
    r"(?i:\b(?:classify|categori[sz]e|label|tag|annotate|grade|score|rate|judge|detect|identify|mark)\b[^\n]{0,60}?"
    r"\b(?:sentiment|intents?|toxicity|toxic|emotions?|politeness|polite|tone|categor(?:y|ies)|topics?|spam|offensive|"
    r"class(?:es)?|labels?)\b"
    r"|\b(?:sentiment|intent|toxicity|emotion|politeness|spam|topic)[ \t]+(?:labels?|class(?:es)?|classifier|classification|"
    r"tags?|analysis|detection|dataset|eval)\b"
    r"|\bfor[ \t]+(?:each|every)[ \t]+(?:review|comment|message|e-?mail|tweet|post|item|row|line|sentence|text|response|answer|"
    r"utterance|query|ticket)\b|\b(?:tag|label|classify|categori[sz]e)[ \t]+(?:each|every|them|these)\b)"
    r"|(?:只|仅)(?:回复|输出|返回|回答|给出?)(?:一个)?(?:类别|标签|分类|情感|意图)"
    r"|(?:情感|意图|情绪|礼貌|攻击性|毒性|意向)(?:标签|倾向|分类|类别|程度|判断|分析)|标注|打标签|打标|"
    r"每(?:条|行|句|个)(?:评论|评价|留言|消息|句子|邮件|回复|文本)?(?:给|打|标|判断|分类)"
    # (canned replies to sort or tabulate: "把客服快捷短语整理成表格：")
    r"|快捷短语|快捷回复|常用语|回复模板"
    # (a count of who answered what: "统计接龙人数：", "统计谁选A谁选B：", "按班级分组：", "Please help me count the RSVPs.")
    r"|统计(?:一下)?(?:接龙|人数|谁|回复|名单|投票|报名|票数|选项|各)|接龙|数一数|数一下|清点|按[^，。\n：:]{1,6}分组|(?i:\bcount\s+(?:the\s+|up\s+the\s+)?(?:rsvps?|responses|replies|votes|"
    r"answers|sign-?ups|names|yes(?:es)?)\b|\btally\b)")


_LABEL_TASK_WITHIN = 200  # characters: the request to label opens the turn
_SENTENCE_END_STOP = re.compile(r"[.!?](?=\s|$)|[。！？]")


def _labeled_items(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The lines under a request to label, classify or grade them (``_LABEL_TASK``): each is a datum, every word of it
    counts ("please, just please stop posting" labelled for toxicity is not "just stop posting"), up to the user's own
    closing paragraph."""
    cue = _LABEL_TASK.search(text, s, min(e, s + _LABEL_TASK_WITHIN))
    if cue is None or _ROLE_SETUP.match(text, s, e):
        return []  # (the request opens the turn; a long prompt that sets up a role and mentions intents is no data)
    out = []
    le = _line_end(text, cue.end(), e)
    colon = min((k for k in (text.find(":", cue.end(), le), text.find("：", cue.end(), le)) if k >= 0), default=-1)
    if colon >= 0:  # (items listed on the line: "For the toxicity eval, the following items are all positive examples:
        # thanks a lot, thank you so much, many thanks. Add three more …")
        stop = _SENTENCE_END_STOP.search(text, colon + 1, le)
        ia, ib = _stripped(text, colon + 1, le if stop is None else stop.end())
        if ib > ia:
            out.append((ia, ib, "exam_item", f"kept: the items listed after {_short(text[cue.start():colon].strip(), 40)!r}"))
    a = text.find("\n", cue.end(), e)
    ls = text.rfind("\n", s, cue.start()) + 1 or s  # (the cue's line)
    if a < 0 or a - ls > _REQUEST_LINE_MAX * 2:
        return out
    b = _handed_text_end(text, a + 1, e, None)
    label = _short(text[ls:a].strip(), 40)
    for m in _LINE.finditer(text, a + 1, b):
        la, lb = _stripped(text, m.start(), m.end())
        if _RULES_HEADING.fullmatch(text, la, lb):
            break  # ("Do sentiment analysis on what I send.⏎Rules:⏎- please be brief": the user's own rules follow)
        if lb > la and not _is_task_instruction(text, la, lb):
            out.append((la, lb, "exam_item", f"kept: an item to label or classify, as written (under {label!r})"))
    return out


# a heading of the user's own rules or notes: "Rules:", "Requirements:", "规则：", "要求："
_RULES_HEADING = re.compile(r"[ \t*#]*(?:(?i:rules?|instructions?|requirements?|guidelines?|constraints?|notes?|format|steps?|"
                            r"output(?:[ \t]+format)?)|规则|要求|注意(?:事项)?|说明|格式|步骤|输出格式)[ \t*]*[:：]?[ \t*]*")


# rows of data whose fields a " | " separates, two or more in a row, not a Markdown table's ("请不要再给我打电话了。 | 负面⏎
# 不好意思，打错了。 | 中性"): each is a record, as written
_PIPE_ROW = re.compile(r"^[ \t]*[^|\n]*\S[ \t]+\|[ \t]+\S[^\n]*$", re.MULTILINE)


def _pipe_rows(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if " | " not in seg:
        return []
    out: list[tuple[int, int, str, str]] = []
    run: list[tuple[int, int]] = []
    for m in _PIPE_ROW.finditer(text, s, e):
        if run and text[run[-1][1]:m.start()].strip("\n") or run and text.count("\n", run[-1][1], m.start()) > 1:
            run = []  # (a run is lines in a row)
        run.append(_stripped(text, m.start(), m.end()))
        if len(run) == 2:
            out.append((*run[0], "code", "kept: a row of data, its fields split by |"))
        if len(run) >= 2:
            out.append((*run[-1], "code", "kept: a row of data, its fields split by |"))
    return out


def _items_under(text: str, k: int, e: int) -> list[tuple[int, int]]:
    """The items from ``k`` on, under a line that asks to compare or merge them: marked lines ("- …", "1) …", "(c) …",
    "#1: …"), each with the unmarked lines that go on with it, blank lines between them allowed — or, with no marks,
    paragraphs set apart by blank lines or "---" rules (two or more, each short), up to a last line that asks something."""
    items: list[tuple[int, int]] = []
    while k < e and text[k] in " \t\n":
        k += 1
    while k < e:
        m = _COMPARED_ITEM.match(text, k, e)
        if m is None:
            break
        a, b = m.span(1)
        nk = b
        opens = text[a:b].rstrip()[-1:] in (",", "，", ":", "：")
        while nk < e and opens:
            # (its unmarked lines, after a first line that opens a message: "1. Hi Sam,⏎please send me the Q3 numbers.⏎
            # Thanks!" — not "3. Omelette⏎Only output the sorted list.")
            ls = nk + 1
            le = _line_end(text, ls, e)
            if ls >= e or not text[ls:le].strip() or _COMPARED_ITEM.match(text, ls, e) or text[ls:le].rstrip()[-1:] in ("?", "？"):
                break
            b, nk = le, le
        items.append((a, _stripped(text, a, b)[1]))
        k = nk + 1
        while k < e and text[k] in " \t\n":
            k += 1
    if items:
        return items if len(items) >= 2 else []
    # (no marks: short paragraphs between blank lines or rule lines)
    chunks = []
    pos = k
    for sep in re.finditer(r"\n[ \t]*\n|^[ \t]*(?:-{3,}|—{2,}|_{3,}|\*{3,}|={3,})[ \t]*$", text[k:e], re.MULTILINE):
        chunks.append((pos, k + sep.start()))
        pos = k + sep.end()
    chunks.append((pos, e))
    paras = [(a, b) for a, b in (_stripped(text, a, b) for a, b in chunks) if b > a and not _ITEM_RULE.fullmatch(text, a, b)]
    if paras and text[paras[-1][0]:paras[-1][1]].rstrip()[-1:] in ("?", "？") and "\n" not in text[paras[-1][0]:paras[-1][1]]:
        paras = paras[:-1]  # (a last question is the user's own: "Which one is warmer?")
    if len(paras) >= 2 and all(b - a <= _ITEM_MAX and "\n" not in text[a:b] for a, b in paras):
        return paras
    return []


_ITEM_MAX = 200  # characters of an unmarked item


def _compared_items(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    """The items listed under a line that asks to compare, rate, rank, count, classify or pick from them: each is a
    text whose every word counts ("- Sit down.⏎- Please sit down." — the second is no repeat of the first)."""
    if "\n" not in seg:
        return
    # (or the question last, under marked items that fill the turn: "1. Hi Sam,⏎please send …⏎Thanks!⏎⏎2. Sam — Q3
    # numbers by Friday please.⏎⏎Which one is less bossy?")
    last = _stripped(text, s, e)
    ql = text.rfind("\n", last[0], last[1]) + 1
    if ql > last[0] and _COMPARED_ITEM.match(text, last[0], e) and text[ql:last[1]].rstrip()[-1:] in ("?", "？") \
            and _COMPARE_CUE.search(text, ql, last[1]):
        items = _items_under(text, last[0], ql)
        if items and not text[items[-1][1]:ql].strip():
            cue = _short(text[ql:last[1]].strip(), 40)
            for a, b in items:
                yield a, b, "exam_item", f"kept: an item to compare or rate (over {cue!r})"
            return
    pos = s
    while pos < e:
        le = text.find("\n", pos, e)
        if le < 0:
            return
        line = text[pos:le].rstrip()
        if line[-1:] in ("?", "？", ":", "：") and (_COMPARE_CUE.search(line) or _TALLY_CUE.search(line) or _MERGE_CUE.search(line)
                                                  or len(line) <= _PICK_LINE_MAX and _PICK_CUE.search(line)) \
                or line[-1:] in (".", "。") and (_TALLY_CUE.search(line) or _MERGE_CUE.search(line)):
            if pos == s:  # (a question that opens the turn: the rest is its items, marked or set apart)
                items = _items_under(text, le + 1, e)
                k = items[-1][1] if items else le + 1
            else:  # (deeper in a turn, only marked lines right under it: a prompt's own lists go on)
                items, k = [], le + 1
                while k < e and (m := _COMPARED_ITEM.match(text, k, e)) is not None:
                    items.append(m.span(1))
                    nk = text.find("\n", k, e)
                    k = e if nk < 0 else nk + 1
            if len(items) >= 2:
                cue = _short(line.strip(), 40)
                for a, b in items:
                    yield a, b, "exam_item", f"kept: an item to compare or rate (under {cue!r})"
            pos = k if items else le + 1
            continue
        pos = le + 1


# a question that asks which of the options after it is more or less something, on their line ("Which is more polite
# in Chinese: 请问 or 麻烦问一下?", "Which sounds more natural? Please could you help me. / Could you please help me.",
# "哪句更自然？A. … B. …")
_WHICH_MORE = re.compile(r"(?i:\bwhich\b[^\n?？:：]{0,60}?\b(?:more|most|less|least|better|best|worse)\b[^\n?？:：]{0,40}?[?:])"
                         r"|哪(?:句|个|一个|种)[^\n？?：:]{0,10}?(?:更|最)[^\n？?：:]{0,10}?[？?：:]"
                         # ("店铺自动回复用哪个好：亲，在的哦 / 您好，请问有什么可以帮您 / 谢谢光临")
                         r"|哪(?:句|个|一个|种)(?:比较|更|最)?(?:好|合适|得体|自然|礼貌|好听)[^\n？?：:]{0,6}?[：:]")
# the options inside a which-is-better question, after its comma: "Which is better for the IVR greeting, please hold or
# thanks for waiting?"
_WHICH_INLINE = re.compile(r"(?i:\bwhich\b[^\n?,]{0,60}?\b(?:more|most|less|least|better|best|worse)\b[^\n?,]{0,40}?,[ \t]*"
                           r"([^\n?]{1,80}?[ \t]or[ \t][^\n?]{1,80}?)\?)")


# what options after a question mark look like: labelled (A. …), or set against each other (" / ", " or ", 还是)
_OPTIONS_AFTER = re.compile(r"[ \t]*(?:(?:\(?[A-Da-d1-4][.)）、．:：]|（[A-Da-d1-4]）)[ \t]*\S|[^\n]{1,80}?(?:[ \t]/[ \t]|[ \t]or[ \t]|"
                            r"[ \t](?:Or|OR)[:,]?[ \t]|还是))")


def _compared_inline(text: str, s: int, e: int) -> Iterable[tuple[int, int, str, str]]:
    """The options after a which-is-more question on its line: each word of them counts."""
    seg = text[s:e]
    if "hich" not in seg and "哪" not in seg:
        return
    for m in _WHICH_MORE.finditer(text, s, e):
        le = text.find("\n", m.end(), e)
        le = e if le < 0 else le
        if m.group(0)[-1] in ":：":  # (the options end with the question's mark: "…: 请问 or 麻烦问一下? Thanks!")
            q = max(text.rfind("?", m.end(), le), text.rfind("？", m.end(), le))
            le = q + 1 if q >= 0 else le
        elif not _OPTIONS_AFTER.match(text, m.end(), le):
            continue  # after a question mark, only options: "哪个更划算？另外，客服电话是多少？" asks on
        a, z = _stripped(text, m.end(), le)
        if z > a:
            yield a, z, "exam_item", f"kept: the options a question compares ({_short(m.group(0).strip(), 40)!r})"
    for m in _WHICH_INLINE.finditer(text, s, e):
        yield m.start(1), m.end(1), "exam_item", f"kept: the options a question compares ({_short(m.group(0), 40)!r})"


def _line_start(text: str, s: int, at: int) -> int:
    """Where the line holding ``at`` starts, no earlier than ``s`` (the block's start)."""
    return text.rfind("\n", s, at) + 1 or s


def _line_end(text: str, pos: int, e: int) -> int:
    """The end of the line holding ``pos`` (``e`` at most)."""
    le = text.find("\n", pos, e)
    return e if le < 0 else le


def _next_label(label: str) -> str:
    return chr(ord(label) + 1)


def _stem(text: str, s: int, at: int) -> tuple[int, str]:
    """The question before the options at ``at``: the lines of its paragraph right above them (at most 4),
    up to the line that asks (a question mark, a blank to fill, "which"/"下列") and never above a line that
    hands the item over (ends with a colon) or the options of the item above."""
    start = at
    lines = 0
    while start > s and lines < 4:
        prev_end = start - 1
        if prev_end < s or text[prev_end] != "\n":
            break
        prev_start = _line_start(text, s, prev_end)
        line = text[prev_start:prev_end]
        if not line.strip() or line.rstrip().endswith((":", "：")) and lines or _OPTION_LINE.match("\n" + line):
            break  # a blank line, the line handing the items over, or the options of the item above
        start = prev_start
        lines += 1
        if line.rstrip().endswith((":", "：")) or _STEM.search(line):
            break  # the question itself is in: what is above it is the instruction handing it over
    return start, text[start:max(start, at - 1)]


# -------------------------------------------------------------------------------------------- tables

_TABLE_SEPARATOR = re.compile(r"\n[ \t]*+\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)+\|?[ \t]*$", re.MULTILINE)


# YAML front matter opening a block or a file of a bundle ("---\nname: …\ndescription: …\n---"): a skill's
# description is read by the harness that decides when to load it, verbatim
_FRONT_MATTER = re.compile(r"(?:\A|(?<=\x1e\n))---[ \t]*\n[A-Za-z_][\w-]*[ \t]*:[^\n]{0,2000}?(?:\n[^\n]{0,2000}?){0,60}?\n---[ \t]*(?=\n|\Z)")


def _front_matter(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if "---" not in seg:
        return []
    starts = [0] if seg.startswith("---") else []
    if "\x1e" in seg:  # the files of a bundle: "\x1fFILE:SKILL.md\x1e\n---\n…"
        k = seg.find("\x1e\n---")
        while k >= 0:
            starts.append(k + 2)
            k = seg.find("\x1e\n---", k + 1)
    out = []
    for k in starts:
        m = _FRONT_MATTER.match(seg, k)
        if m is not None:
            out.append((s + m.start(), s + m.end(), "code", "kept: YAML front matter"))
    return out


def _tables(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if "|" not in seg or "--" not in seg:
        return
    for sep_start, sep_end in _separator_lines(text, s, e):
        head_end = sep_start - 1
        if head_end <= s or "|" not in text[text.rfind("\n", s, head_end) + 1:head_end]:
            continue
        start = _line_start(text, s, head_end)
        end = sep_end
        while end < e:
            nl = text.find("\n", end + 1, e)
            line_end = e if nl < 0 else nl
            if "|" not in text[end + 1:line_end] or not text[end + 1:line_end].strip():
                break
            end = line_end
        yield start, end, "table", "kept: markdown table"


def _separator_lines(text: str, s: int, e: int) -> Iterable[tuple[int, int]]:
    """(start, end) of the |---| separator lines of [s, e) below its first line (a separator on the first
    line has no header row above it).  Only a line holding "--" can be one: the regex is tried at those
    lines, not at every line of the block."""
    p = text.find("--", s, e)
    while p >= 0:
        nl = text.rfind("\n", s, p)
        if nl >= 0:
            m = _TABLE_SEPARATOR.match(text, nl, e)
            if m is not None:
                yield nl + 1, m.end()
        line_end = text.find("\n", p, e)
        if line_end < 0:
            return
        p = text.find("--", line_end, e)


# ---------------------------------------------------------------------------------------------- JSON

_BRACKET = re.compile(r"[{}\[\]]")
# '":', '" :', '["', '[{', '[ "' (one search instead of five)
_JSON_HINT = re.compile(r'"[ ]?:|\[(?:[{"]| ")')
_JSON_KEY = re.compile(r'"[^"\n]{1,80}"\s*:')


def _json(text: str, s: int, e: int, seg: str) -> Iterable[tuple[int, int, str, str]]:
    if not ("{" in seg and "}" in seg or "[" in seg and "]" in seg):
        return  # no bracket pair: no object or array to find
    if '"' not in seg and "[" not in seg:
        return  # what the guard below looks for needs one of these: skip its six searches
    if _JSON_HINT.search(seg) is None and not ("[\n" in seg and ('"' in seg or "{" in seg)):
        return  # no "key": pair and no array of strings or objects
    # one pass pairs brackets ({} and []); outermost pairs first
    pairs = []
    stack: list[int] = []  # where the open brackets are
    for m in _BRACKET.finditer(seg):
        p = m.start()
        c = seg[p]
        if c == "{" or c == "[":
            stack.append(p)
        else:
            want = "{" if c == "}" else "["
            while stack and seg[stack[-1]] != want:
                stack.pop()  # an unmatched opener inside: dropped
            if stack:
                pairs.append((stack.pop(), p + 1))
    pairs.sort()  # by start (a bracket opens one pair at most): an outer pair before the pairs inside it
    covered = -1
    for a, b in pairs:
        if a < covered:
            continue
        if seg[a] == "{":  # an object needs a "key": pair (searched in place, not in a copy)
            ok = _JSON_KEY.search(seg, a, b) is not None
        else:
            body = seg[a:b]
            ok = _parses(body) and ("{" in body or '"' in body or "," in body)
        if ok:
            covered = b
            kind = "object" if seg[a] == "{" else "array"
            yield s + a, s + b, "json", f"kept: JSON {kind}"


def _parses(body: str) -> bool:
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------- marked and headed text

# a line that marks where the user's own text goes: a rule of arrows ("-↓-↓-↓-Edit Your Letter Here-↓-↓-"), or
# a rule of dashes, equals signs or hashes around "… here" / "在此…" ("===== Paste your essay here =====")
# (quantifiers possessive: a long row of dashes is never tried again at each of its lengths)
_ARROWS_DOWN = re.compile(r"[↓⬇▼](?:[^\n↓⬇▼]{0,3}+[↓⬇▼]){2}")
_ARROWS_UP = re.compile(r"[↑⬆▲](?:[^\n↑⬆▲]{0,3}+[↑⬆▲]){2}")
_RULE_HERE = re.compile(r"[ \t]*+[-=#*_~]{3,}+[ \t]*+(?:(?i:(?:edit|paste|insert|enter|put|type|write|place|add)\b[^\n]{0,40}?"
                        r"\bhere)|在此[^\n]{0,10}?|在这里[^\n]{0,10}?|(?:以下|下方)为?[^\n]{0,10}?)[ \t]*+[-=#*_~]{3,}+[ \t]*+$")
_RULE_LINE = re.compile(r"[ \t]*+[-=#*_~↑⬆▲]{3,}+[ \t]*+$")
_ARROW_LINE = re.compile(r"\n[^\n↓⬇▼]*+[↓⬇▼]")
_RULE_START = re.compile(r"\n[ \t]*+[-=#*_~]{3}")


def _stripped(text: str, a: int, b: int) -> tuple[int, int]:
    """[a, b) without the whitespace at either end."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _marked(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The text between a marker line ("-↓-Edit Your Letter Here-↓-", "=== paste here ===") and the next rule
    line (a row of ↑ or of dashes) or the end of the block."""
    arrows = "↓" in seg or "⬇" in seg or "▼" in seg
    rules = ("---" in seg or "===" in seg or "###" in seg or "***" in seg or "___" in seg or "~~~" in seg) and (
        "ere" in seg or "ERE" in seg or "在此" in seg or "在这里" in seg or "以下" in seg or "下方" in seg)
    out: list[tuple[int, int, str, str]] = []
    if not arrows and not rules:
        return out
    # the candidate lines: those holding an arrow, and those opening with a rule (a literal newline first: the
    # regex skips from newline to newline)
    starts: set[int] = set()
    if arrows:
        starts.update(a for a, _, _ in _line_matches(_ARROW_LINE, text, s, e))
    if rules:
        starts.update(a for a, _, _ in _line_matches(_RULE_START, text, s, e))
    pos = s
    for line_start in sorted(starts):
        if line_start < pos:
            continue
        opener_end = text.find("\n", line_start, e)
        if opener_end < 0:
            return out
        if not (_ARROWS_DOWN.search(text, line_start, opener_end) or _RULE_HERE.match(text, line_start, opener_end)):
            continue
        a, b = opener_end + 1, e
        k = a
        while k < e:  # the closing rule: a row of ↑ or a line of rule characters
            nl = text.find("\n", k, e)
            line_end = e if nl < 0 else nl
            if _ARROWS_UP.search(text, k, line_end) or _RULE_LINE.match(text, k, line_end):
                b = k
                break
            k = line_end + 1
        close = text.find("\n", b, e) if b < e else e
        pos = e if close < 0 else close + 1
        a, b = _stripped(text, a, b)
        if b > a:
            label = _short(text[line_start:opener_end].strip(" \t-=#*_~↓⬇▼"), 50)
            out.append((a, b, "introduced", f"kept: the text marked {label!r}"))
    return out


# a heading that names what follows as an example: "### 交互示例", "## Examples", "## Sample response"
_EXAMPLE_HEADING = re.compile(
    r"\n[ \t]{0,3}(#{1,6})[ \t]+[^\n]*?(?:示例|范例|样例|例子|举例|示范|案例|模板|模版|范文|(?i:\bexamples?\b|\bsamples?\b|"
    r"\bdemonstrations?\b|\btemplates?\b))[^\n]*")
# a line that ends by announcing examples ("下面是翻译腔的例子：", "Here are some examples:"): the list under it
_EXAMPLE_INTRO = re.compile(r"[^\n]{0,40}?(?:例子|示例|范例|例句|样例|示范|案例|例如|比如|举例|(?i:\bexamples?|\bsamples?))"
                            r"(?:对话|对白|(?i:[ \t]+(?:dialogues?|conversations?|chats?|exchanges?)))?"
                            r"(?i:[ \t]+(?:of|for)[ \t]+[^\n:：]{1,50}?)?[ \t]*(?:如下)?"
                            r"[ \t]*(?:\*\*)?[:：][ \t]*(?:\*\*)?\Z")
_LINE_END_COLON = re.compile(r"[:：][ \t]*(?:\*\*)?[ \t]*(?=\n)")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)、．]|[（(]\d{1,3}[)）])")
# a list line, or a turn of an example dialogue ("用户：…", "小智：…", "User: …")
_EXAMPLE_LINE = re.compile(rf"{_LIST_LINE.pattern}|[ \t]*[^\s:：]{{1,12}}[:：]")
_HEADING = re.compile(r"\n[ \t]{0,3}(#{1,6})[ \t]")


def _section_end(text: str, b: int, e: int, level: int) -> int:
    """Where the section whose heading of ``level`` ends at ``b`` ends: the next heading of the same or a higher
    level (its subsections are part of it), or ``e``."""
    for ha, _, h in _line_matches(_HEADING, text, b, e):
        if len(h.group(1)) <= level:
            return ha
    return e


# a section that holds the agent's opening line ("## Initialization\n- 您好，我是…"): said as written
_OPENING_HEADING = re.compile(r"\n[ \t]{0,3}(#{1,6})[ \t]+(?:\*\*)?(?:Initiali[sz]ation|初始化|开场白|Opening(?: [Ll]ine)?|"
                              r"Greetings?)\b[^\n]*")
_GREETING = r"(?:你好|您好|大家好|嗨|哈喽|欢迎|(?i:hi|hello|hey|greetings|welcome)\b)"
_GREETING_START = re.compile(rf"[ \t]*(?:[-*>][ \t]*)?{_GREETING}")


def _opening_lines(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The section under an Initialization/开场白 heading when it opens with a greeting: the line the agent says
    (a section that instructs — "As a <Role>, greet the user" — opens otherwise)."""
    if "#" not in seg or not ("nitiali" in seg or "初始化" in seg or "开场白" in seg or "Opening" in seg
                              or "Greeting" in seg):
        return []
    out: list[tuple[int, int, str, str]] = []
    for a, b, m in _line_matches(_OPENING_HEADING, text, s, e):
        content, end = _stripped(text, b, _section_end(text, b, e, len(m.group(1))))
        if end > content and _GREETING_START.match(text, content):
            heading = _short(text[a:b].strip(" \t#*"), 50)
            out.append((content, end, "few_shot", f"kept: the opening line under {heading!r}, said as written"))
    return out


_STYLE_LABEL = (r"(?i:(?:always[ \t]+)?(?:reply|respond|answer|write)[ \t]+(?:in[ \t]+this[ \t]+(?:style|way|tone)|like[ \t]+this))"
                r"|(?:回复|回答|话术)?风格参考|(?:请)?参考(?:以下|下面|如下)(?:的)?(?:回复|回答|示例|话术|风格)"
                r"|(?:请)?(?:按|照|仿照)(?:这个|以下|下面)(?:风格|样子|格式)(?:回复|回答)")
_STYLE_HINTS = ("this style", "this way", "this tone", "like this", "风格参考", "参考以下", "参考下面", "参考如下", "这个风格",
                "以下风格", "下面风格", "这个样子")
# a line that is only a label naming what follows an example ("EX:", "Example:", "输出示例：")
_EXAMPLE_LABEL_LINE = re.compile(r"^[ \t]*(?:\*\*)?(?:EX|Ex|E\.g\.|(?i:(?:examples?|samples?)(?:[ \t]+(?:output|reply|replies|"
                                 r"response|responses|answer|answers|message|messages|e-?mail))?)|"
                                 # ("参考回复示例：", "示例话术：")
                                 r"(?:参考)?(?:回复|回答|话术|对话|输出)?(?:示例|例子|范例|样例)(?:回复|回答|话术|输出)?)"
                                 r"(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?[ \t]*\n"
                                 # a bracketed label alone on its line: "【示例】", "[Example]"
                                 r"|^[ \t]*(?:【(?:示例|例子|范例|样例|对话示例|示例对话|参考示例)】|\[(?i:examples?|sample)\])[ \t]*\n"
                                 # a reply to model others on, after the sentence before it: "Reply in this style:",
                                 # "Always answer like this:", "回复风格参考：", "请参考以下回复："
                                 r"|(?:^|(?<=[.。!！?？]))[ \t]*(?:\*\*)?(?:" + _STYLE_LABEL + r")(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?[ \t]*\n",
                                 re.MULTILINE)
# … on the same line as its label: the rest of the line
_STYLE_SAME_LINE = re.compile(r"(?:^|(?<=[.。!！?？]))[ \t]*(?:\*\*)?(?:" + _STYLE_LABEL + r")(?:\*\*)?[ \t]*[:：][ \t]*([^\s*][^\n]*)",
                              re.MULTILINE)
_SECTION_BREAK = re.compile(r"\n[ \t]{0,3}#{1,6}[ \t]|\n[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,})[ \t]*(?=\n|\Z)")


def _labelled_examples(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """What follows a line that is only an example label, up to the next heading or rule line or the block's
    end (lobehub 280: "EX:" over a sample post)."""
    out: list[tuple[int, int, str, str]] = []
    for m in _STYLE_SAME_LINE.finditer(text, s, e):  # ("Reply in this style: Thanks for your message, please hold on.")
        content, end = _stripped(text, m.start(1), m.end(1))
        if end > content:
            out.append((content, end, "few_shot", f"kept: the example after {_short(m.group(0)[:m.start(1) - m.start()].strip(), 30)!r}"))
    for m in _EXAMPLE_LABEL_LINE.finditer(text, s, e):
        brk = _SECTION_BREAK.search(text, m.end() - 1, e)
        stop = brk.start() if brk else e
        # (a reminder after a blank line is the prompt's own rule again: "Remember: respond with JSON only.")
        blank = text.find("\n\n", m.end(), stop)
        while blank >= 0:
            nxt = blank + 2
            while nxt < stop and text[nxt] in " \t\n":
                nxt += 1
            if nxt < stop and _RULE_AFTER.match(text, nxt):
                stop = blank
                break
            blank = text.find("\n\n", nxt, stop)
        content, end = _stripped(text, m.end(), stop)
        if end > content:
            label = _short(text[m.start():m.end()].strip(" \t\n*"), 30)
            out.append((content, end, "few_shot", f"kept: the example under {label!r}"))
    return out


_RULE_AFTER = re.compile(r"[ \t]*(?:\*\*)?(?:(?i:remember|note|important|reminder|always|never|do\s+not|don't)\b|记住|注意|"
                         r"切记|重要|务必|不要)")
_SECTION_LABEL = re.compile(r"[ \t]*(?:\*\*)?[^\n:：]{1,30}(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?[ \t]*(?:\n|\Z)")


def _example_sections(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The section under a markdown heading that names it an example or a template, up to the next heading of
    the same or a higher level (its subsections are part of it) or the end of the block; and the list after a
    line announcing examples ("下面是翻译腔的例子：")."""
    # what both need: a word naming an example or a template (substring tests: most blocks have none)
    if not ("例" in seg or "ampl" in seg or "emplat" in seg or "模" in seg or "示范" in seg or "范文" in seg
            or "AMPL" in seg or "EMPLAT" in seg or "emonstrat" in seg or "EX:" in seg or "Ex:" in seg or "E.g." in seg
            or any(h in seg for h in _STYLE_HINTS)):
        return []
    out: list[tuple[int, int, str, str]] = []
    for a, b, m in _line_matches(_EXAMPLE_HEADING, text, s, e) if "#" in seg else ():
        level = len(m.group(1))
        content, end = _stripped(text, b, _section_end(text, b, e, level))
        if end <= content and content < e and text[content] == "#":
            # nothing under the heading before a heading of its level: the example is that section, a heading of
            # its own ("## 输出示例\n## 宫保鸡丁\n### 食材…": the output it shows starts with an h2)
            nl = text.find("\n", content, e)
            end = _section_end(text, e if nl < 0 else nl, e, level)
            content, end = _stripped(text, content, end)
        if end > content:
            heading = _short(text[a:b].strip(" \t#"), 50)
            out.append((content, end, "few_shot", f"kept: the example under the heading {heading!r}"))
    if ":" not in seg and "：" not in seg:
        return out
    out.extend(_labelled_examples(text, s, e))
    for colon in _LINE_END_COLON.finditer(text, s, e):
        a = _line_start(text, s, colon.start())
        b = colon.end()
        if b >= e or colon.start() - a > 60 or not _EXAMPLE_INTRO.match(text, a, b):
            continue
        # the list after it (blank lines before it skipped): its lines up to a blank line that no further list
        # line follows, or a heading (a label alone on its line after a blank one opens the next section: "Rules:"; a
        # reminder is the prompt's own rule: "Remember: respond with JSON only.")
        content = b + 1
        while content < e and text[content] == "\n":
            content += 1
        end = _run_of_lines(text, content, e, lambda nxt: bool(
            _EXAMPLE_LINE.match(text, nxt) and not _SECTION_LABEL.match(text, nxt) and not _RULE_AFTER.match(text, nxt)))
        if end > content and _EXAMPLE_LINE.match(text, content):
            label = _short(text[a:b].strip(" \t*#"), 50)
            out.append((content, end, "few_shot", f"kept: the examples after {label!r}"))
    return out


# a sentence that announces the items that follow as data ("以下是几篇报道的标题，请…归类。1. …；2. …", "Here are
# five headlines: …"): the numbered items after it are what the task works on
_ANNOUNCED_DATA = re.compile(
    r"(?:以下|下面|下列|如下)(?:是|为|有|的|给出的?|列出的?)?[^。！？，,：:；;\n]{0,12}(?:标题|句子|文本|文字|段落|评论|文章|新闻|报道|单词|词语|"
    r"短语|数据|对话|邮件|留言|语句|名称|条目|选项|词汇)"
    r"|(?i:\b(?:here\s+are|below\s+are|the\s+following\s+are|following\s+are)\b)[^.!?\n]{0,30}?"
    r"\b(?i:headlines|titles|sentences|texts|reviews|comments|paragraphs|passages|tweets|posts|messages|e-?mails|"
    r"words|phrases|items|names|statements|questions|records|entries|options)\b")
# a numbered item's marker: "1. ", "1、", "（1）", "(1)"
_ITEM_MARK = re.compile(r"(?<![\d.])(?:\d{1,3}[.、．)](?!\d)|[（(]\d{1,3}[)）])")


def _announced_items(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The numbered items after a sentence announcing them as data, from the first item to the end of the
    block (there must be a second item)."""
    if not ("以下" in seg or "下面" in seg or "下列" in seg or "如下" in seg or "ere are" in seg
            or "ollowing" in seg or "ERE ARE" in seg or "elow are" in seg):
        return []
    m = _ANNOUNCED_DATA.search(text, s, e)
    if m is None:
        return []
    first = _ITEM_MARK.search(text, m.end(), e)
    if first is None or _ITEM_MARK.search(text, first.end(), e) is None:
        return []
    a, b = _stripped(text, first.start(), e)
    return [(a, b, "introduced", f"kept: the items announced by {_short(m.group(0), 40)!r}")] if b > a else []


# a line (after a list marker) that opens with a greeting, thanks or apology said as a sentence of its own ("Hi! How
# can I help you today?", "- 你好！ → greeting", "Thanks for reaching out! We'll …"): in the lines a colon hands over,
# the lines are data — replies to rewrite, utterances to label, test inputs —, not the user's own politeness
_COURTESY_OPEN = (rf"[ \t]*(?:(?:[-*+•>]|\d{{1,3}}[.)、．])[ \t]*)?(?:{_GREETING}|(?i:thanks|thank\s+you|thx|sorry)\b|"
                  r"谢谢|感谢|多谢|不好意思|抱歉)")
_COURTESY_LINE = re.compile(_COURTESY_OPEN + r"[^\n.!?。！？~～]{0,30}?(?:[.!?。！？~～]|[ \t]*(?=\n|\Z))")
# … and a line that is nothing else ("Hi!", "- 谢谢！", "Thanks for reaching out!")
_COURTESY_ALONE = re.compile(_COURTESY_OPEN + r"[^\n.!?。！？~～，,]{0,20}?[.!?。！？~～]*[ \t]*(?=\n|\Z)")
_DATA_LEAD = re.compile(r"(?i:\b(?:replies|responses|messages|utterances|transcripts?|inputs|examples|samples|phrases|"
                        r"sentences|lines|templates|macros|test\s+(?:set|cases?|data)|dataset|labell?ing|label|classify|"
                        r"annotate|tag)\b)|话术|消息|例句|句子|每句话?|语料|样本|测试集|数据集|用例|记录|回复语|模板|标注|分类|打标|标记|意图")
_COURTESY_HINTS = ("你好", "您好", "嗨", "哈喽", "欢迎", "谢谢", "感谢", "多谢", "不好意思", "抱歉", "hi", "Hi", "HI", "ello", "ELLO",
                   "ey", "EY", "reetings", "elcome", "hank", "HANK", "hx", "orry", "ORRY")


def _courtesy_items(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The lines after a line ending with a colon (to a blank line) when one of them but the last opens with a
    greeting, thanks or apology of its own: handed-over data."""
    if not any(h in seg for h in _COURTESY_HINTS):
        return []
    out: list[tuple[int, int, str, str]] = []
    for cm in _LINE_END_COLON.finditer(text, s, e):
        first = cm.end() + 1
        stop = _BLANK_LINE.search(text, first, e)
        run_end = e if stop is None else stop.start()
        k, lines = first, []
        while k < run_end:
            le = _line_end(text, k, run_end)
            lines.append(k)
            k = le + 1
        if len(lines) < 2 or not any(_COURTESY_LINE.match(text, ls) for ls in lines[:-1]):
            continue
        ls = _line_start(text, s, cm.start())
        # data when the line before names it ("The canned replies … are:", "测试集：", "for labeling:", "给每句话标注意图")
        # or two lines are a courtesy alone ("Hi!", "谢谢！"); not the user's own list ("有两个问题：⏎1. 谢谢，订单…")
        if _DATA_LEAD.search(text, ls, cm.start()) or sum(1 for k in lines if _COURTESY_ALONE.match(text, k)) >= 2:
            if _LIST_LINE.match(text, first):  # a list: to its last item (an instruction may follow it unmarked)
                run_end = _line_end(text, next(k for k in reversed(lines) if _LIST_LINE.match(text, k)), run_end)
            a, b = _stripped(text, first, run_end)
            if b > a:
                out.append((a, b, "introduced", f"kept: the lines handed over after "
                                                f"{_short(text[ls:cm.start() + 1].strip(), 40)!r} (a greeting or thanks "
                                                f"in them is data)"))
    return out


# a line that ends with a colon and names the kind of text below it, with the writer's own or a determiner before the
# noun ("Continue my screenplay:", "Here is my thank-you card draft, check the tone:", "Lyrics for my song, check the
# rhyme:", "改正悼词的语病：", "歌词帮我看看押韵："): the lines below are that text
_NAMED_NOUNS_EN = (r"(?:screenplay|script|scene|lyrics|song|poem|verse|haiku|limerick|sonnet|card|draft|toast|eulogy|vows|speech|"
                   r"faq\s+answer|fallback|"
                   r"monologue|story|chapter|essay|letter|e-?mail|caption|tweet|post|bio|invitation|announcement|"
                   r"cover\s+letter|play|dialogue|(?:self-)?introduction)s?\b")
_NAMED_TEXT = re.compile(
    r"(?i:(?:^|\b(?:my|our|his|her|their|the|this|these|a|an|last\s+(?:year|month|week)'s|(?:yester|to)day's)\s+(?:[\w'-]+\s+){0,2}?)"
    + _NAMED_NOUNS_EN +
    # (or a line that opens with the piece's name, a word or two before it, then a comma: "Status page draft, fix typos
    # only, don't rephrase:")
    r"|^(?:[\w'-]+[ \t]+){1,2}?(?:" + _NAMED_NOUNS_EN + r"|(?:message|review|comment|reply|text)s?\b)(?=[ \t]*[,(—–])"
    # (a prompt only the user's own or one below: a system prompt's "Then, rewrite the prompt into …:" is its task)
    r"|\b(?:my|our|this)\s+(?:[\w'-]+\s+){0,2}?(?:system\s+)?prompts?\b|\bthe\s+(?:system\s+)?prompt\s+below\b)"
    r"|自我介绍|悼词|贺卡|歌词|剧本|台词|贺词|祝酒词|致辞|发言稿|演讲稿|卡片|誓词|情书|小说|散文|草稿|初稿|作文|日记|求职信|感谢信|请柬|邀请函|"
    r"朋友圈文案|祝福语|提示词|(?:prompt|回复|消息|邮件|通知)模板|邮件|译文|(?:中文|英文|日文|韩文)版|翻译稿", re.MULTILINE)
# … written by the user ("my", "our", "here is") or to be worked on ("check", "continue", "改正", "帮我看看")
_WORK_ON_NAMED = re.compile(r"(?i:\b(?:my|our|here\s+is|here's|check|continue|finish|fix|correct|edit|improve|proofread|"
                            r"rewrite|polish|translate|review|shorten|tighten|critique|rate|reuse|update|adapt|refresh|pasted|forwarded|"
                            r"received|copied)\b)"
                            r"|帮我|改正|修改|检查|润色|续写|翻译|校对|看看|看一下|改一下|优化|点评|评价|我的|我写的|只改|不要删减|不要改")
_ABOUT_A_TEXT = re.compile(r"[ \t]*(?:[-*#>]+[ \t]*)?(?:\*\*)?(?:(?i:for|about|regarding|re|on|in)\b|关于|对于|针对|在)")
_NAMED_TEXT_HINTS = ("creenplay", "cript", "cene", "yrics", "ong", "oem", "erse", "aiku", "imerick", "onnet", "ard",
                     "raft", "oast", "ulogy", "ows", "peech", "onologue", "tory", "hapter", "ssay", "etter", "mail",
                     "aption", "weet", "ost", "bio", "nvitation", "nnouncement", "lay", "ialogue", "ntroduction", "自我介绍", "悼词", "贺卡", "歌词", "剧本", "台词", "贺词",
                     "祝酒词", "致辞", "发言稿", "演讲稿", "卡片", "誓词", "情书", "小说", "散文", "草稿", "初稿", "作文", "日记",
                     "求职信", "感谢信", "请柬", "邀请函", "文案", "祝福语", "模板", "rompt", "提示词", "邮件", "译文", "文版", "翻译稿",
                     "essage", "eview", "omment", "eply", "ext", "FAQ", "faq", "allback")


def _names_a_text(text: str, ls: int, c: int) -> bool:
    """Whether the line [ls, c) before a colon names a text (``_NAMED_TEXT``) the user wrote or wants worked on
    (``_WORK_ON_NAMED``), within 120 characters."""
    return c - ls <= 120 and _NAMED_TEXT.search(text, ls, c) is not None and _WORK_ON_NAMED.search(text, ls, c) is not None


def _named_texts(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The text below a line that ends with a colon and names it (``_NAMED_TEXT``), to where
    :func:`_handed_text_end` ends it."""
    if not any(h in seg for h in _NAMED_TEXT_HINTS):
        return []
    out: list[tuple[int, int, str, str]] = []
    for cm in _LINE_END_COLON.finditer(text, s, e):
        ls = _line_start(text, s, cm.start())
        if not _names_a_text(text, ls, cm.start()) \
                or _ABOUT_A_TEXT.match(text, ls) or _NOT_A_SCRIPT.search(_KEEPS_ITS_FORM.sub("", text[ls:cm.start()])):
            continue  # (not "For the recap email:" nor "Rules for my essay:": what to do with it follows; nor a
            # system prompt's "The evaluation script generates a report including:")
        a = cm.end()
        while a < e and text[a] in " \t\n":
            a += 1
        b = _handed_text_end(text, a, e, None) if a < e else a
        if b > a:
            out.append((a, b, "introduced", f"kept: the text named by {_short(text[ls:cm.start() + 1].strip(), 50)!r}"))
    if any(w in seg for w in _VERBATIM_WORDS):
        # … or on the colon's line, where the line says to keep its words ("帮我改一下我的自我介绍，不要改动任何一个字的意思：大家好，…",
        # "这是我的求职信开头，一个字都别改，只帮我检查标点：您好，…")
        for cm in _COLONS.finditer(text, s, e):
            ls = _line_start(text, s, cm.start())
            le = _line_end(text, cm.end(), e)
            if text[cm.end():le].strip() and _names_a_text(text, ls, cm.start()) \
                    and _VERBATIM_LINE.search(text, ls, cm.start()):
                a, b = _stripped(text, cm.end(), le)
                out.append((a, b, "introduced", f"kept: the text named by {_short(text[ls:cm.start() + 1].strip(), 50)!r}"))
    return out


# a question that hands over what follows it: "Can you create a prompt from this description? A serene lake …",
# "能把下面这段话翻译成英文吗？…"
_HANDED_BY_QUESTION = re.compile(
    r"(?:\b(?:from|for|into|using|based\s+on)\s+(?:this|these|the\s+following|the\s+below)\s+"
    r"(?:descriptions?|texts?|paragraphs?|passages?|prompts?|sentences?|stor(?:y|ies)|poems?|essays?|e-?mails?|"
    r"messages?|reviews?|code|snippets?|articles?|content|lyrics|drafts?)\s*"
    r"|(?:下面|以下)[^。！？\n]{0,20}?)\Z", re.IGNORECASE)


def _handed_by_question(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The text after a question that hands it over ("… from this description? <the description>"), to the end
    of the block.  (Read back from each question mark: most blocks have few.)"""
    for mark in "?？":
        q = text.find(mark, s, e)
        while q >= 0:
            m = _HANDED_BY_QUESTION.search(text, max(s, q - 80), q)
            if m is not None:
                a, b = _stripped(text, q + 1, e)
                b = _before_thanks_after_quote(text, a, b)  # ('Summarise this clause? "…" Thank you!')
                if b > a:
                    return [(a, b, "introduced", f"kept: the text handed over by {_short(text[m.start():q + 1], 40)!r}")]
            q = text.find(mark, q + 1, e)
    return []


# an example given on the line that asks for it: "例如：Close-up photography, …", "e.g.: …", "For example: …"
_INLINE_EXAMPLE_ZH = re.compile(r"(?:例如|比如|举例|示例|范例|例子)[ \t]*[:：]")
# (found by their tails: "xample:", ".g.:", "nstance:" — a regex that ignores case or starts with "e" tries almost
# every position of an English text; the head is checked after)
_INLINE_EXAMPLE_EN = re.compile(r"(?:xample|XAMPLE|\.[gG]\.|nstance|NSTANCE)[ \t]*[:：]")


def _en_example_cue(text: str, m: re.Match[str]) -> int:
    """Where the example cue a match of ``_INLINE_EXAMPLE_EN`` ends starts ("example", "e.g.", "for instance"),
    or -1 when it ends none."""
    a = m.start()
    if text[a] in "xX" or text[a] == ".":
        return a - 1 if a > 0 and text[a - 1] in "eE" and (a < 2 or not text[a - 2].isalnum()) else -1
    return a - 5 if a >= 5 and text[a - 1] in "iI" and text[a - 5:a - 1].lower() == "for " else -1


# a template slot with its default text: "${scene:the night sky over a city}", "{{tone: warm}}"
_SLOT_DEFAULT = re.compile(r"\$\{[\w.-]{1,40}:[^{}\n]{1,400}\}|\{\{[\w.-]{1,40}:[^{}\n]{1,400}\}\}")


# a sentence after an inline example that asks for the work: its request, not the example's
_ASK_AFTER_EXAMPLE = re.compile(r"[.!。！](?=\s*(?:(?i:(?:could|can|would|will)\s+you\b|please\b|help\s+me\b)|请|麻烦|帮我|能不能|可以帮))")


def _inline_examples(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The rest of a line after an example cue and its colon ("例如：Close-up photography, …"), and a template
    slot's default text."""
    out: list[tuple[int, int, str, str]] = []
    if "${" in seg or "{{" in seg:
        for m in _SLOT_DEFAULT.finditer(text, s, e):
            out.append((m.start(), m.end(), "introduced", f"kept: a template slot with its default, {_short(m.group(0), 40)!r}"))
    cues = []
    if "例" in seg or "比如" in seg:  # (a literal first character: the regex engine skips to it)
        cues.append(_INLINE_EXAMPLE_ZH)
    if "e.g." in seg or "xample" in seg or "nstance" in seg or "E.g." in seg or "XAMPLE" in seg or "NSTANCE" in seg:
        cues.append(_INLINE_EXAMPLE_EN)
    for rx in cues:
        for m in rx.finditer(text, s, e):
            head = _en_example_cue(text, m) if rx is _INLINE_EXAMPLE_EN else m.start()
            if head < 0:
                continue
            nl = text.find("\n", m.end(), e)
            a, b = _stripped(text, m.end(), e if nl < 0 else nl)
            ask = _ASK_AFTER_EXAMPLE.search(text, a, b)  # ("Example: … should be 9. Could you please write …?": the request)
            if ask is not None:
                b = _stripped(text, a, ask.start() + 1)[1]
            if b > a:
                out.append((a, b, "few_shot", f"kept: the example after {_short(text[head:m.end()].strip(), 20)!r}"))
    return out


# a template's placeholder ("{{name}}", "${ticket_id}"), and the line that hands a template over to fill in ("Fill in this
# template exactly; do not change the fixed wording:", "根据下面的模板生成短信，…只替换占位符：")
_PLACEHOLDER = re.compile(r"\{\{[^{}\n]{1,40}\}\}|\$\{[^{}\n]{1,40}\}|(?<![{$])\{[A-Za-z_\u4e00-\u9fff][\w.\u4e00-\u9fff-]{0,30}\}(?!\})"
                          r"|【[^【】\n]{1,20}】|\[[A-Za-z\u4e00-\u9fff][\w \u4e00-\u9fff]{0,20}\](?!\()")
_TEMPLATE_WORD = re.compile(r"(?i:\b(?:this|the\s+following|below)\s+template\b|\bfill\s+in\b|placeholders?|"
                            r"fixed\s+wording)|(?:下面|以下|如下|这个)的?模[板版]|模[板版]如下|占位符|固定文字|固定的文字"
                            # a label line: "Template:", "模板："
                            r"|(?<![^\n])[ \t]*(?:\*\*)?(?i:template|模[板版])(?:\*\*)?(?=[ \t]*[:：])")
_LINE_ENDS_WITH_COLON = re.compile(r"[^\n]*[:：][ \t]*(?:\n|\Z)")


_TEMPLATE_TAIL = 120  # characters of a paragraph after the last placeholder's that is still the template's (a sign-off)


_INLINE_COLON = re.compile(r"[^\n:：.。]{0,20}?[:：][ \t]*(?=\S)")


def _templates(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """A template handed over to fill in: after a line that calls it one and ends with a colon, between the rule
    lines ("---") that open it, or else to the end of the paragraph of its last placeholder.  (A prompt that only
    holds ${variables} is instructions, not a text to reproduce.)"""
    if ("emplat" not in seg and "EMPLAT" not in seg and "laceholder" not in seg and "ording" not in seg and "模板" not in seg
            and "模版" not in seg and "占位符" not in seg and "固定" not in seg) or not ("{" in seg or "【" in seg or "[" in seg) \
            or _PLACEHOLDER.search(seg) is None:
        return []
    out: list[tuple[int, int, str, str]] = []
    line = -1
    for word in _TEMPLATE_WORD.finditer(text, s, e):
        ls = text.rfind("\n", s, word.start()) + 1 or s
        intro = _LINE_ENDS_WITH_COLON.match(text, word.end(), e) if ls != line else None
        line = ls
        if intro is None:
            inline = _INLINE_COLON.match(text, word.end(), e)  # "Reply using this template: Dear {name}, …": its line
            if inline is not None:
                a, b = _stripped(text, inline.end(), _line_end(text, inline.end(), e))
                if _PLACEHOLDER.search(text, a, b):
                    out.append((a, b, "introduced", f"kept: the template after {_short(text[ls:inline.end()].strip(), 40)!r}"))
            continue
        a = intro.end()
        while a < e and text[a] in " \t\n":
            a += 1
        rule = _FENCE_RULE.match(text, a, e)
        if rule is not None:
            close = _FENCE_RULE.search(text, rule.end(), e)
            b = close.start() if close is not None else e
            a = rule.end()
        else:
            marks = [m.start() for m in _PLACEHOLDER.finditer(text, a, e)]
            if not marks:
                continue
            nxt = _PARA_BREAK.search(text, marks[-1], e)
            b = nxt.start() if nxt is not None else e
            # and the short paragraphs after it that are no instruction: its sign-off ("Thanks again,⏎The Team")
            while nxt is not None:
                after = _PARA_BREAK.search(text, nxt.end(), e)
                q = after.start() if after is not None else e
                if q - nxt.end() > _TEMPLATE_TAIL or _INSTRUCTION_PARA.match(text, nxt.end(), q) \
                        or _SECTION_BREAK.match(text, nxt.start(), q):
                    break
                b, nxt = q, after
        if _PLACEHOLDER.search(text, a, b):
            a, b = _stripped(text, a, b)
            label = _short(text[ls:intro.end()].strip(), 40)
            out.append((a, b, "introduced", f"kept: the template handed over by {label!r}"))
    return out


# --------------------------------------------------------------------------------------------- blocks

# a block that ends with an empty label for the model to fill, after a labelled field: "Message: Where is my
# order?⏎Label:", "消息：您好，麻烦帮我查一下订单，谢谢！⏎标签：" — the field is the item asked about
_SLOT_END = re.compile(r"\n[ \t]*(?:\*\*)?[^\n:：.!?。！？]{1,24}?(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?\s*\Z")
_FIELD_LINE = re.compile(r"^[ \t]*(?:\*\*)?[^\n:：.!?。！？*]{1,24}?(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?[ \t]*(?=[^\s*])", re.MULTILINE)


def _completion_slot(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if seg.rstrip(" \t\n*")[-1:] not in (":", "："):
        return []  # (most blocks: no empty label at their end)
    slot = _SLOT_END.search(seg)
    if slot is None:
        return []
    field = None
    for field in _FIELD_LINE.finditer(seg, 0, slot.start()):
        pass  # the last labelled line before the slot
    if field is None:
        return []
    if _BLANK_LINE.search(seg, field.end(), slot.start() + 1):
        return []  # (the field and the slot in one paragraph: not a prompt's last section before a heading to fill)
    a, b = _stripped(text, s + field.end(), s + slot.start())
    label = seg[slot.start():].strip(" \t\n*:：")
    return [(a, b, "few_shot", f"kept: the item the empty label {label!r} asks about")] if b > a else []


# exemplars under any pair of labels that alternate at least twice, the second with a short value (a label, a score):
# "Message: Thanks so much, you're a lifesaver!⏎Label: POLITE⏎⏎Message: Hurry up.⏎Label: RUDE", "Review: …⏎Sentiment:
# positive", "评论：…⏎情感：正面" (not "Role: …⏎Goal: Find the freshest data point …": a prompt's sections)
_LABEL_LINE = re.compile(r"^[ \t]*(?:[-*>][ \t]*)?(?:\*\*)?([A-Za-z][A-Za-z _-]{0,20}?|[\u4e00-\u9fff]{1,6})(?:\*\*)?[ \t]*[:：]"
                         r"[ \t]*(?:\*\*)?[ \t]*(\S[^\n]*)$", re.MULTILINE)


def _label_pairs(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if seg.count(":") + seg.count("：") < 4:
        return []
    lines = list(_LABEL_LINE.finditer(text, s, e))
    pairs: dict[tuple[str, str], list[tuple[re.Match[str], re.Match[str]]]] = {}
    for m, n in zip(lines, lines[1:]):
        first, second = m.group(1).strip().lower(), n.group(1).strip().lower()
        value = n.group(2).strip(" *")
        if first != second and text.count("\n", m.end(), n.start()) == 1 and len(value) <= 30 and value.count(" ") < 4:
            pairs.setdefault((first, second), []).append((m, n))
    out: list[tuple[int, int, str, str]] = []
    for (first, second), found in pairs.items():
        if len(found) >= 2:
            for m, n in found:
                why = f"kept: an exemplar under the labels {m.group(1).strip()!r} / {n.group(1).strip()!r}"
                out.extend((x.start(2), x.end(2), "few_shot", why) for x in (m, n))
    return out


# a transcript or chat log pasted in a turn: lines of speakers ("PRIYA: Hi everyone, thanks for joining.", "小王（客服）：您好，…"),
# at least three, of two speakers or more, one of them speaking again (a prompt's fields — "Role: …⏎Goal: …" — do not
# come back)
_SPEAKER_LINE = re.compile(r"^[ \t]*(?:\*\*)?((?:My|Our)[ \t][a-z]+|[A-Z][A-Za-z.'-]*(?:[ \t][A-Z][A-Za-z.'-]*)?|[\u4e00-\u9fff]{1,5})"
                           r"(?:[ \t]*[（(][^）)\n]{1,10}[）)])?(?:\*\*)?[ \t]*[:：][ \t]*\S[^\n]*$", re.MULTILINE)


# an email pasted with its headers ("From: anna@corp.com⏎Subject: March close⏎⏎Hi team, …")
_EMAIL_HEADERS = re.compile(r"^[ \t]*(?:From|发件人)[ \t]*[:：][^\n]*\n(?:[ \t]*(?:To|Cc|Bcc|Date|Sent|Reply-To|收件人|抄送|时间|日期)"
                            r"[ \t]*[:：][^\n]*\n)*[ \t]*(?:Subject|主题)[ \t]*[:：][^\n]*", re.MULTILINE)


_FROM_LINE = re.compile(r"^[ \t]*(?:From|发件人)[ \t]*[:：][ \t]*[^\n:：]{1,60}$", re.MULTILINE)


def _headed_email(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """An email pasted with its From: and Subject: headers: the headers and the paragraphs of its body, to the first
    paragraph that asks the assistant something ("Can you turn this into a checklist?")."""
    if text.find("From", s, e) < 0 and text.find("发件人", s, e) < 0:
        return []
    m = _EMAIL_HEADERS.search(text, s, e)
    if m is None:
        # (a thread of messages each under a bare "From: Anna" line: from the first to the last one's body)
        heads = list(_FROM_LINE.finditer(text, s, e))
        if len(heads) < 2:
            return []
        m = heads[-1]
        first = heads[0].start()
    else:
        first = m.start()
    b = m.end()
    body = False  # (its first paragraph is the email's, whatever it says)
    while b < e:
        pa, pb = _paragraph_after(text, b, e)
        if pb <= pa or body and (_OWN_REQUEST_LINE.match(text, pa, pb) or text[pb - 1] in "?？" and pb - pa <= 120):
            break  # (the user's own question under it)
        body = True
        b = pb
    a = _stripped(text, first, b)[0]
    return [(a, b, "introduced", "kept: an email pasted with its headers (From:, Subject:)")]


# speakers named by their role: two lines of them are a transcript ("HOST: So, um, welcome …⏎GUEST: Um, thanks. …")
_SPEAKER_ROLES = frozenset({"host", "guest", "interviewer", "interviewee", "agent", "customer", "caller", "operator",
                            "doctor", "patient", "teacher", "student", "reporter", "witness", "judge", "counsel", "q", "a",
                            "主持人", "嘉宾", "记者", "受访者", "坐席", "客服", "客户", "医生", "患者", "老师", "学生", "审判长",
                            "被告", "原告", "证人", "问", "答"})


# … or one line of a named speaker in a turn about what was said ("Quote for the lede. Gomez: Honestly, thank you all."),
# not a label of the prompt's own ("Note: …", "Tone: …")
_ABOUT_WORDS_SAID = re.compile(r"(?i:\b(?:quote|quotes|quoted|interview|interviews|interviewed|transcript|lede|said|says|"
                               r"remarks|testimony|attribution)\b)|引语|引述|采访|原话|发言|讲话")
_ONE_SPEAKER_TURN = 600  # characters: a short turn about a quote (a long prompt's "Objective: …" lines are its own)
_NOT_A_SPEAKER = frozenset(("note", "notes", "task", "context", "rules", "rule", "output", "input", "example", "format",
                            "question", "answer", "goal", "role", "summary", "update", "reminder", "important", "warning",
                            "tip", "step", "requirement", "requirements", "constraints", "style", "tone", "length",
                            "language", "audience", "subject", "title", "topic", "deadline", "budget", "date", "time",
                            "location", "status", "priority", "quote", "lede", "headline", "source", "sources", "ps",
                            "edit", "fix", "todo", "q", "a", "re", "fyi", "draft", "text", "original", "translation",
                            "version", "name", "author", "model", "temperature", "id", "url", "email", "phone", "address",
                            "price", "size", "color", "type", "level", "mode", "category", "tags", "owner", "assignee", "due",
                            "created", "updated", "user", "assistant", "system", "prompt", "response", "result", "error",
                            "observation", "thought", "action", "tool", "final answer", "reasoning", "plan", "feedback",
                            "issue", "problem", "solution", "hint", "instructions", "instruction", "description"))


def _transcript(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The speaker lines of a transcript pasted in a turn (see ``_SPEAKER_LINE``), as one range."""
    out: list[tuple[int, int, str, str]] = []
    run: list[re.Match[str]] = []
    for m in [*_SPEAKER_LINE.finditer(text, s, e), None]:
        if m is not None and run and not text[run[-1].end():m.start()].strip():
            run.append(m)  # (the next line, blank lines between allowed)
            continue
        names = [x.group(1) for x in run]
        # (or two lines, one of them the user's own: "My sister: Hi! Sorry to bug you, …⏎Me: I'm at work till 7.")
        if len(set(names)) >= 2 and (len(run) >= 3 and len(set(names)) < len(names)
                                     or any(n in ("Me", "我") for n in names)
                                     or all(n.lower() in _SPEAKER_ROLES for n in names)) \
                or len(run) == 1 and e - s <= _ONE_SPEAKER_TURN and _named_speaker(names[0]) \
                and (_ABOUT_WORDS_SAID.search(text, s, e) is not None or _asked_about_below(text, s, e, run[0])):
            out.append((run[0].start(), run[-1].end(), "introduced",
                        f"kept: a transcript of {len(set(names))} speakers ({', '.join(dict.fromkeys(names))[:40]})"))
        run = [m] if m is not None else []
    if not out and e - s <= _ONE_SPEAKER_TURN and _ABOUT_WORDS_SAID.search(text, s, e) is not None:
        # (a speaker's line after the request's sentence: "Quote for the lede. Gomez: Honestly, thank you all. …")
        m = _SPEAKER_AFTER_SENTENCE.search(text, s, e)
        if m is not None and _named_speaker(m.group(1)):
            out.append((m.start(1), _line_end(text, m.end(), e), "introduced", f"kept: what {m.group(1)} said"))
    return [(_stripped(text, a, b)[0], b, k, d) for a, b, k, d in out]


def _named_speaker(name: str) -> bool:
    """Whether a line's label names a speaker ("Gomez", "CEO", "王老师"), not a field of the prompt ("Note", "要求")."""
    if name.isascii():
        return name[:1].isupper() and name.lower() not in _NOT_A_SPEAKER
    return name not in _NOT_A_SPEAKER_ZH


_NOT_A_SPEAKER_ZH = frozenset(("要求", "注意", "任务", "背景", "格式", "输出", "输入", "示例", "例子", "问题", "答案", "目标", "角色",
                               "说明", "备注", "主题", "标题", "时间", "地点", "语气", "风格", "字数", "长度", "语言", "内容", "原文",
                               "译文", "翻译", "提示", "规则", "步骤", "结果", "总结", "摘要", "关键词", "场景", "对象", "受众"))


def _asked_about_below(text: str, s: int, e: int, line: re.Match[str]) -> bool:
    """Whether a speaker's line opens the turn [s, e) and the line under it asks about it or for work on it ("CEO: Sorry
    for the delay, …⏎Translate to French.", "王老师：请同学们安静，谢谢配合。⏎帮我翻译成英文。", "…⏎What tone is this?")."""
    if text[s:line.start()].strip() or len(_WORDS_OF.findall(text, line.start(), line.end())) < 3:
        return False  # (a field's value is no one's words: "Version: 1.5")
    a = _stripped(text, line.end(), e)[0]
    b = _line_end(text, a, e)
    if a >= b or _line_end(text, b + 1, e) < e and text[b + 1:e].strip():
        return False  # (one line under it, ending the turn)
    return text[a:b].rstrip()[-1:] in ("?", "？") or _TASK_VERB.search(text, a, b) is not None


_WORDS_OF = re.compile(r"[A-Za-z]+|[\u4e00-\u9fff]")


_SPEAKER_AFTER_SENTENCE = re.compile(r"(?<=[.!?])[ \t]+([A-Z][A-Za-z'-]+(?:[ \t][A-Z][A-Za-z'-]+)?)"
                                     r"(?:,[ \t][^:\n.!?]{1,40})?[ \t]*:[ \t]*(?=\S)")  # ("Mayor Li, at the ribbon cutting: …")


# a header line of a chat export or a diarized transcript: a name and a time alone on their line, over the message lines
# ("张伟 09:15", "Sarah 2:14 PM", "发言人1 00:02:10", "SPEAKER_00 [00:01:12]", "[10:02] Ana", "Kevin — Today at 10:02")
_CLOCK = (r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}[ \t]+|\d{1,2}/\d{1,2}(?:/\d{2,4})?,?[ \t]+|(?:Today|Yesterday|今天|昨天)"
          r"(?:[ \t]+at)?[ \t]*)?\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?(?:[ \t]*[AaPp]\.?[Mm]\.?)?")
_SPEAKER = r"[^\s:：\[\]()（）*][^\n:：\[\]]{0,23}?"
_HEADER_LINE = re.compile(rf"^[ \t]*(?:\*\*)?(?:{_SPEAKER}[ \t]*(?:[—–-][ \t]*)?[\[(（]?{_CLOCK}[\])）]?|[\[(（]?{_CLOCK}[\])）]?"
                          rf"[ \t]+{_SPEAKER})(?:\*\*)?[ \t]*$", re.MULTILINE)
_CHAT_GAP = 1500  # characters of messages under one header, at most
_CLOCK_HINT = re.compile(r"\d:\d\d")
_HEADER_MAX = 64  # characters of a header line


def _chat_exports(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """A chat export or a transcript whose speakers head their messages on lines of their own, a name and a time
    (``_HEADER_LINE``): from the first header to the end of the last message (its paragraph), when at least two headers
    each stand over a message."""
    heads = []
    line = -1
    for t in _CLOCK_HINT.finditer(text, s, e):  # (a header holds a time: looked for from the times, on short lines)
        ls = _line_start(text, s, t.start())
        le = _line_end(text, t.end(), e)
        if ls == line or le - ls > _HEADER_MAX:
            continue
        line = ls
        m = _HEADER_LINE.match(text, ls, le)
        if m is not None and m.end() == le and (nle := _line_end(text, le + 1, e)) > le + 1 and text[le + 1:nle].strip():
            heads.append(m)
    out: list[tuple[int, int, str, str]] = []
    run: list[re.Match[str]] = []
    for m in [*heads, None]:
        if m is not None and run and m.start() - run[-1].end() <= _CHAT_GAP:
            run.append(m)
            continue
        if len(run) >= 2:
            br = _PARA_BREAK.search(text, run[-1].end() + 1, e)
            b = _stripped(text, run[-1].end(), e if br is None else br.start())[1]
            out.append((run[0].start(), b, "introduced", f"kept: a chat log or transcript of {len(run)} messages under "
                                                         f"speaker and time lines ({_short(run[0].group(0).strip(), 24)!r}, …)"))
        run = [m] if m is not None else []
    if "<" in seg or "‹" in seg or "《" in seg:  # (an IRC-style log: "<mod_kate> please be nice", "<房管> …，谢谢")
        lines = list(_NICK_LINE.finditer(text, s, e))
        k = 0
        while k < len(lines):
            j = k
            while j + 1 < len(lines) and not text[lines[j].end():lines[j + 1].start()].strip():
                j += 1
            if j > k:
                out.append((lines[k].start(), lines[j].end(), "introduced",
                            f"kept: a chat log of {j - k + 1} lines (<nick> message)"))
            k = j + 1
    return [(_stripped(text, a, b)[0], b, k, d) for a, b, k, d in out]


_NICK_LINE = re.compile(r"^[ \t]*(?:\[[\d:]{4,8}\][ \t]*)?[<‹《][^<>‹›《》\s]{1,24}[>›》][ \t]+\S[^\n]*$", re.MULTILINE)


# the words to say, after a say-verb and a colon, to the end of the line ("1. Say: Hello, thank you for calling Orbit
# Telecom. My name is {agent}.", "如果客户情绪激动，说：非常抱歉给您带来困扰，感谢您的耐心。", "End with: Have a great day!"),
# and a text's field ("内容是：明天9点开会，谢谢配合。", "… - Body: Hi Dana, thanks for the draft! …")
_SAY_BEFORE = re.compile(r"(?:(?i:\b(?:"
                         # what a bot is told to send, its format or its canned replies: "When closing a ticket, send:",
                         # "Respond in this format:", "Reply template (use for every answer):"
                         r"send(?:\s+(?:this|exactly|verbatim|the\s+following))?|just\s+(?:write|say|put)|"
                         # ("Write a voicemail greeting saying:", "a note that says:")
                         r"saying|(?:that|which)\s+(?:says|reads)|write\s+(?:inside|on\s+(?:it|the\s+(?:card|front|back|cake|sign)))|"
                         # "Sign-off to use:", "Greeting I want you to use:"
                         r"(?:sign-?off|greeting|opening(?:\s+line)?|closing(?:\s+line)?|signature|tagline|disclaimer|slogan|"
                         r"catchphrase)s?\s+(?:to\s+use|(?:I|we)\s+(?:want|need|'d\s+like)(?:\s+you)?\s+to\s+use|(?:I|we)\s+use)|(?:respond|reply|answer|write)\s+(?:in|with|using)\s+"
                         r"(?:this|the\s+following)\s+(?:format|template|structure)|(?:reply|response|message|e-?mail|greeting|"
                         r"closing|canned)\s+(?:templates?|replies|responses)(?:\s*\([^)\n]{0,40}\))?|"
                         # a saved text of the team's: "Canned response we use:", "Macro we use:", "Template for the delay
                         # notice (Chinese customers):", "Voicemail script:"
                         r"(?:(?:canned|saved|stock)\s+(?:responses?|repl(?:y|ies)|messages?|answers?)|macros?)"
                         r"(?:\s+(?:we|I)\s+(?:use|send|have))?|"
                         r"templates?(?:\s+for\s+(?:(?:the|a|an|our|my|this|each|every)\s+)?(?:[\w-]+\s+){0,3}[\w-]+)?"
                         r"(?:\s*\([^)\n]{0,40}\))?|"
                         r"(?:voicemail|phone|call|cold[- ]call|sales|ivr|on-hold)\s+(?:scripts?|greetings?)|"
                         # ("The greeting script:", "Current version:", "Fallback message:")
                         r"(?:greeting|closing|welcome|fallback|opening|goodbye|error)\s+(?:scripts?|messages?|replies|reply|texts?)|"
                         r"(?:current|existing|old|original)\s+(?:version|text|wording|copy|draft|message|reply|greeting|fallback)|"
                         # ("Snippet we paste into tickets:")
                         r"(?:snippet|boilerplate|blurb|text|reply|message|paragraph)s?\s+(?:we|I)\s+(?:always\s+)?(?:paste|use|send|copy)"
                         r"(?:\s+(?:into|in|to|for|on)\s+(?:our\s+|the\s+|every\s+|each\s+)?[a-z]+(?:\s+[a-z]+)?)?|"
                         # a public text asked for, with its words on the line: "Write an SMS to customers: Please note …"
                         r"(?:write|draft|compose|make|create|prepare)\s+(?:an?|the|one|our|my)\s+(?:[a-z-]+\s+)?(?:sms|text\s+message|"
                         r"notice|sign|banner|announcement|push\s+notification|notification|policy|post|message|e-?mail|note|memo|"
                         r"dm|update|caption|tweet|card|comment|reply)(?:\s+(?:to|for)\s+(?:the\s+|our\s+|an?\s+|"
                         r"all\s+|my\s+)?[a-z]+(?:\s+[a-z]+)?)?|"
                         # ("Please write this as an SMS for customers:")
                         r"write\s+(?:this|it)\s+(?:up\s+)?as\s+(?:an?\s+)?(?:sms|text|message|notice|e-?mail|tweet|post)"
                         r"(?:\s+(?:to|for)\s+[a-z]+)?(?:\s*,\s*(?:thanks|thank\s+you|please))?|"
                         # ("Things I want to say to Mom before the surgery:")
                         # ("What I'd like to say at the wedding toast:", "Things to tell the new hire:")
                         r"(?:things|words|what|stuff)\s+I(?:\s+(?:want|need|wish|would\s+like)|['’]d\s+like)\s+to\s+(?:say|tell)\b[^:\n]{0,40}|"
                         r"(?:things|words|stuff|points)\s+to\s+(?:say|tell|pass\s+on)\b[^:\n]{0,40}|"
                         r"(?:say|reply|respond|answer|(?:(?<=[.!?][ \t])|(?<=\n)|(?<=\A))(?:write|mention))(?:\s+(?:exactly|verbatim|only|just|first|always|"
                         r"instead|immediately|once))?(?:\s+with)?"
                         r"(?:\s+(?:exactly|verbatim|only|just))?|"
                         r"(?:start|begin|open|end|close|finish|sign\s+off)\s+with|(?:message\s+|e-?mail\s+)?body|"
                         # "Greet every user with:", "Always end every reply with this exact line:"
                         r"sign(?:\s+(?:every|each|all|your|the))?(?:\s+(?:e-?mails?|messages?|letters?|replies|reply|notes?))?\s+with|"
                         r"(?:add|append|include)\s+(?:this|one|a|the\s+following)\s+(?:line|sentence)|"
                         r"greet(?:\s+(?:every|each|all|the|new))?(?:\s+(?:users?|customers?|visitors?|callers?|guests?|"
                         r"patients?|clients?))?\s+with|(?:this|the\s+following)\s+(?:exact\s+)?(?:line|sentence|wording|phrase|"
                         r"words|text)|"
                         r"(?:word\s+for\s+word|verbatim|exactly)\)?|"
                         # the words dictated for a text to write: "the message should be:", "it should read:"
                         r"(?:message|text|note|card|e-?mail|content|wording|it|caption|subject(?:\s+line)?)\s+should\s+"
                         r"(?:be|say|read)|"
                         # a fixed part of every reply: "Every reply must end with this sign-off:"
                         r"(?:this|the\s+following|the|a)\s+(?:sign-?off|greeting|opening(?:\s+line)?|closing(?:\s+line)?|"
                         r"signature|tagline|disclaimer)|"
                         # a reply's prescribed part: "The first sentence must be:", "Every reply should start with:"
                         # ("The first line of the speech must be:", "Opening line for every conversation:")
                         r"(?:opening|closing|first|last)\s+(?:line|sentence|message)\s+(?:for|of|in|to)\s+(?:every|each|all|"
                         r"the|a|any|new)\s+[a-z-]+|"
                         r"(?:sentence|line|words?|reply|response|answer|greeting)(?:\s+of\s+(?:the|my|your|our|this|every|each)"
                         r"\s+[a-z-]+)?\s+(?:(?:must|should|has\s+to|needs\s+to)\s+"
                         r"(?:always\s+)?(?:be|say|read|(?:start|begin|open|end|close)\s+with)|is\s+always|will\s+always\s+be)))"
                         r"|(?i:\b(?:lines?|catchphrases?|phrases?|sayings?)\s+(?:often\s+|usually\s+|always\s+|might\s+|may\s+)?"
                         r"include|\bcatchphrases?)"
                         r"|说|回复|回答|答复|开头用|结尾用|开场白|结束语|欢迎语|问候语|兜底话术|兜底回复|口头禅|口头语|常说|发送|话术|模板|"
                         r"(?:回复|回答|答复|客服|固定)(?:格式|范例)|"
                         # ("写一个跟进消息发到群里：感谢大家今天参会，…")
                         r"(?:写|拟|起草|编|做|制作)一?(?:个|条|份|张|封|则|段)?[\u4e00-\u9fff]{0,8}?(?:消息|通知|短信|公告|告示|标语|请假条|便条|"
                         r"留言|文案|祝福语?|贺卡|感谢信|朋友圈|动态|说明|须知|广播稿?|导游词|解说词|讲解词|欢迎词|致辞|主持词|串词|"
                         r"发言稿|讲话稿|演讲稿|祝酒词|播报|温馨提示|提示|(?<=段)话)"
                         # ("帮我写一段话贴在楼道：请勿在楼道内吸烟，…，谢谢合作！")
                         r"(?:(?:发?(?:到|给)|(?:贴|挂|放)(?:在|到))[\u4e00-\u9fff]{1,6})?|"
                         # ("帮我给客户回一条：好的，谢谢您的反馈，…")
                         r"(?:给|跟|向)[\u4e00-\u9fff]{1,6}?(?:回|发)一?(?:条|句)(?:消息|微信|短信)?|(?:语音|电话|留言|销售|外呼|客服|直播)(?:留言)?脚本|"
                         # the words of a sign or a card dictated ("提示牌，主句是：请自己洗杯子，谢谢。")
                         r"(?:主句|原句|标语|口号|提示语|台词|祝福语|广告语|消息|模板|文案|提示|通知|话术|回复|弹窗|按钮)(?:要|就|必须|应该|应当)?(?:是|为|写)|内容(?:大意|大概|大致|主要)?(?:是|为|如下)|(?:大概|大致|主要)?意思(?:是|为)|大意(?:是|为)|正文(?:是|为)|原话(?:是)?|写上"
                         r"|(?:开场白|结束语|结尾语?|开头语?|问候语|签名|落款|第一句话?|最后一句话?|首句|末句|第一段|最后一段|"
                         r"开头一句话?|结尾一句话?)(?:请|固定|统一|一律|必须|一定要|要|应该|应当|应|都|需要|总是|永远){0,3}"
                         r"(?:为|是|用|说|写|加上|加|附上)"
                         r"|(?:加上|附上|带上|写上|说)(?:这句话|这句|下面这句话?|以下这句话?)|(?:加|补|附|写|添)(?:上)?一句(?:话)?"
                         # "每条回复都用这句开头：", "以下面这句结尾："
                         r"|(?:用|以)(?:这句|下面这句|以下这句|这段|这一句)(?:话)?(?:开头|结尾|结束|开场|收尾)"
                         # the words to put in another language: "外卖备注怎么写英文：不要辣，谢谢！", "英文怎么说："
                         # a sentence-opening 写： ("写：请勿吸烟，谢谢合作！")
                         r"|(?:(?<=[。！？!?\n])|(?<=\A))[ \t]*(?:请|帮我)?写"
                         r"|(?:英文|英语|中文|日文|日语|韩语|韩文|法语|德语|西班牙语)怎么(?:写|说)"
                         # ("内容写：", "告示内容：", "帮我回复贡献者：感谢 PR，…")
                         r"|内容(?:就)?(?:写|是|为)|(?:告示|通知|公告|标语|牌子|卡片|短信|消息|纸条|横幅)(?:的)?内容"
                         # ("给志愿者的卡片写：", "横幅上写：")
                         r"|(?:卡片|贺卡|牌子|横幅|条幅|蛋糕|红包|锦旗|便签|纸条)(?:上|里)?(?:就)?写"
                         # ("手术前我想对妈妈说的话：")
                         r"|(?:想|要)(?:在|对|跟|和)[\u4e00-\u9fff]{1,6}?说的话|转告[\u4e00-\u9fff]{1,6}"
                         r"|(?:回复|回)(?:一下)?(?:客户|顾客|买家|用户|贡献者|维护者|房东|租客|老板|同事|老师|家长|评论|留言)"
                         r"|怎么(?:写|说)成?(?:英文|英语|中文|日文|日语|韩语|韩文|法语|德语|西班牙语))"
                         r"[ \t]*(?:\*\*)?[ \t]*\Z")
# a line that points at what follows it to be passed on as written ("Send this SMS exactly, filling in {time}:",
# "请原样发送下面这条短信，只替换{时间}：") — not the rules or the format to follow exactly, nor "Offer exactly 7 categories:"
_VERBATIM_LINE = re.compile(r"(?i:\bexactly\b|\bverbatim\b|\bword\s+for\s+word\b|\bas\s+written\b|"
                            r"\b(?:don'?t|do\s+not)\s+change\s+(?:a|any)\s+(?:single\s+)?words?\b)|原样|一字不改|原封不动|一个字都不"
                            r"|一个字都别|一字都别|不要改动任何一个字|不要改任何字"
                            r"|逐字|一字不差|不得增删|不要增删|照读|照念")
_SCRIPT_POINTER = re.compile(r"(?i:\b(?:this|these|the\s+following|below|my\s+[a-z]+)\b)|下面|以下|如下|这条|这段|这个|这句|这份|我的")
# the form of the text below to be kept as it is ("要保留原样的格式：", "keep the format as is:"): no rules of a format follow
_KEEPS_ITS_FORM = re.compile(r"(?:保留|保持|按照?|照)(?:原样|原来|原有|原)的?(?:格式|结构)|(?:格式|结构)(?:保持|保留)?(?:原样|不变)|"
                             r"(?i:\bkeep(?:ing)?\s+(?:the|its|this|my)\s+(?:format|structure)(?:\s+(?:as\s+is|exactly|unchanged))?)")
_NOT_A_SCRIPT = re.compile(r"(?i:\b(?:rules?|instructions?|steps?|guidelines?|format|schema|requirements?|criteria|structure)\b)"
                           r"|规则|要求|步骤|格式|结构")


# a prescribed part of every text, whose words may stand on the lines under it ("结尾统一加：⏎谢谢！⏎Acme客服团队", "End every
# reply with:⏎Best,⏎Acme"): not a bare "respond:" over instructions
_PRESCRIBED_PART = re.compile(r"(?i:\bwith\s*$)|(?:加上|加|附上|写上)\s*$|结尾|开头|签名|落款|结束语|开场白")


# where _scripts looks: a colon after the last letter of a say-verb or a field (say, reply, respond, answer, with,
# body, be, sign-off, greeting, 说, 回复, 回答, 开头用, 开场白, 内容是 …: a character class before a colon is one fast search; "The content is:"
# is not looked for, only "内容是：")
_SCRIPT_COLON = re.compile(r"[yYdDrRhHmMeEsStTgG)说复答用白语是为下话上句写加头尾束场禅送术板式例本息知信告语里条案福卡圈态明播词稿辞师文道示nN容者户家客东论言姆工pP我][ \t*]{0,4}[:：]")
# a request to the model for the work, after the words a line gives: "…谢谢。帮我改短一点", "…！请帮我写个发送的脚本。"
_WORK_ASKED_AFTER = re.compile(r"(?<=[。！？!?])[ \t]*(?=(?:请|麻烦)?(?:你|您)?(?:再)?帮我(?:写|改|翻|译|生成|做|润色|缩短|精简|把|优化)"
                               r"|然后(?:帮我|写|改))")
# … or with the user's request for work on them ("Macro we use:⏎Thanks for your patience! …⏎Make it friendlier. Thanks!")
_WORK_ON_IT_LINE = re.compile(r"^[ \t]*(?:(?i:(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:make|translate|rewrite|shorten|"
                              r"polish|fix|improve|edit|turn|adapt|tweak|proofread|check|review|critique|evaluate|rate|explain|"
                              r"optimi[sz]e)\s+(?:it|this|that|them|these)\b)|"
                              r"(?:请|麻烦)?(?:你|您)?帮我(?:把|改|翻|译|润色|缩短|精简|优化|检查|看看)|把(?:它|这(?:个|段|条|句)?)(?:改|翻|译))",
                              re.MULTILINE)
_SAY_LINE_MAX = 50  # characters of a line that says what to say, with the words on the lines under it
# the kinds of say-lines whose words may stand a blank line below: a script or a version of one named
_SCRIPT_ALONE = re.compile(r"(?i:\b(?:scripts?|version|fallback|wording|copy|greeting|messages?|replies|reply)\s*$)|欢迎语|结束语|兜底|话术|问候语")
_SAID_LINE_MAX = 200  # characters of the first line of those words
# a line under such words that goes on with the instructions ("每次回复先说：⏎您好！⏎然后再回答问题。")
_THEN_LINE = re.compile(r"^[ \t]*(?:然后|再|否则|接着|之后|其他|其余|其它|(?i:then|otherwise|after\s+that|and\s+then|else)\b)",
                        re.MULTILINE)
# and the longer fields, looked for only in a block that holds one ("the message should be:", "this sign-off:")
_SCRIPT_FIELD_COLON = re.compile(r"(?i:\bbe|(?:line|sentence|message)\s+(?:for|of|in|to)\s+(?:every|each|all|the|a|any|new)\s+"
                                 r"[a-z-]+|sign-?off|greeting|opening(?:\s+line)?|closing(?:\s+line)?|tagline|signature|"
                                 r"disclaimer|always|(?:this|following|one|a)\s+(?:exact\s+)?(?:line|sentence|wording|phrase|words|"
                                 r"text))[ \t*]{0,4}[:：]")
_SCRIPT_FIELD_HINTS = ("be:", "be :", "ine for ", "ine of ", "ence for ", "age for ", "ff:", "eeting:", "ening:", "osing:",
                       "ine:", "ture:", "laimer:", "always:", "ence:", "ording:", "rase:", "ords:", "ext:")
_VERBATIM_WORDS = ("xactly", "XACTLY", "erbatim", "ord for word", "s written", "change any word", "change a word",
                   "change a single word", "一个字都别", "一字都别", "不要改动任何", "不要改任何字", "原样", "一字", "原封不动", "一个字都不", "逐字", "不得增删",
                   "不要增删", "照读", "照念")


def _paragraph_after(text: str, le: int, e: int) -> tuple[int, int]:
    """The paragraph that starts after the line ending at ``le`` (blank lines before it skipped), stripped."""
    first = le
    while first < e and text[first].isspace():
        first += 1
    stop = _BLANK_LINE.search(text, first, e)
    return _stripped(text, first, e if stop is None else stop.start())


# a line that hands the model a questionnaire to put to the user as written ("Ask me the following questions in order, …:",
# "请依次问我下面这些问题：")
_ASK_THESE = re.compile(r"(?i:\bask\b[^:\n]{0,40}?\b(?:the\s+following|these|this|below)\s+(?:\w+\s+)?questions?\b[^:\n]{0,80}?)"
                        r"|(?:依次|逐一|按顺序|一个一个地?)?(?:问|询问|提问)[^：:\n]{0,10}?(?:以下|下面|下列|这些|这几个)[^：:\n]{0,8}?问题"
                        r"[^：:\n]{0,30}?")
_ASK_HINTS = ("question", "Question", "问题")


def _list_after(text: str, le: int, e: int) -> tuple[int, int]:
    """The list that starts after the line ending at ``le``: its lines up to a blank line that no further list line
    (an item, or a line indented under one) follows, or a heading; stripped (empty when no list line comes first)."""
    first = le
    while first < e and text[first] in " \t\n":
        first += 1
    content = text.rfind("\n", le, first) + 1 or le  # (the line's start: an item may be indented)
    if content >= e or not _LIST_LINE.match(text, content):
        return e, e

    def continues(nxt: int) -> bool:  # (an item, or a line indented under one)
        ls = text.rfind("\n", content, nxt) + 1 or content
        return bool(_LIST_LINE.match(text, ls) or text[ls] in " \t")
    return _stripped(text, content, _run_of_lines(text, content, e, continues))


def _run_of_lines(text: str, k: int, e: int, continues: Callable[[int], bool]) -> int:
    """Where the lines from ``k`` end: before a heading, or at a blank line after which ``continues`` (given the next
    non-blank position) is false."""
    end = k
    while k < e:
        nl = text.find("\n", k, e)
        line_end = e if nl < 0 else nl
        line = text[k:line_end]
        if line.lstrip().startswith("#"):
            break
        if not line.strip():
            nxt = k
            while nxt < e and text[nxt] in " \t\n":
                nxt += 1
            if nxt >= e or not continues(nxt):
                break
        else:
            end = line_end
        k = line_end + 1
    return end


def _scripts(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    out = []
    if any(h in seg for h in _ASK_HINTS):
        for cm in _LINE_END_COLON.finditer(text, s, e):
            ls = _line_start(text, s, cm.start())
            if _ASK_THESE.search(text, ls, cm.start()):
                a, b = _list_after(text, cm.end(), e)
                if b > a:
                    out.append((a, b, "introduced", f"kept: the questions to ask as written after "
                                                    f"{_short(text[ls:cm.start() + 1].strip(), 50)!r}"))
    verbatim = any(w in seg for w in _VERBATIM_WORDS)
    colons = ([m.start() for m in _COLONS.finditer(text, s, e)] if verbatim
              else [s + m.end() - 1 for m in _SCRIPT_COLON.finditer(seg)])
    if not verbatim and any(h in seg for h in _SCRIPT_FIELD_HINTS):
        colons = sorted({*colons, *(s + m.end() - 1 for m in _SCRIPT_FIELD_COLON.finditer(seg))})
    for c in colons:
        ls = text.rfind("\n", s, c) + 1 or s
        le = text.find("\n", c, e)
        le = e if le < 0 else le
        say = _SAY_BEFORE.search(text, max(ls, c - (64 if text[c - 1] in ")）" else 48)), c)  # (longer with a parenthesis)
        if say is not None:
            # the rest of its line, or the lines under it ("结尾统一加：⏎谢谢！⏎Acme客服团队", "When closing a ticket,
            # send:⏎Thanks for your patience!⏎…"), up to a line that goes on with the instructions
            if text[c + 1:le].strip():
                a, b = _stripped(text, c + 1, le)
                after = _WORK_ASKED_AFTER.search(text, a, b)
                if after is not None:  # (up to a request for the work after the words: "消息应该是：您好，…谢谢！请帮我写个
                    # 发送的脚本。" — a request in them is theirs: "Body: Hi Dana, … Could you add the Q3 slide?")
                    b = _stripped(text, a, after.start())[1]
            elif _PRESCRIBED_PART.search(say.group(0)) or _passes_on_what_follows(text, ls, c) \
                    or _SCRIPT_ALONE.search(say.group(0)) and c - _sentence_start(text, ls, say.start()) <= _SAY_LINE_MAX:
                # (or a script or a version named alone on its line, a blank line before its words: "Update the fallback.
                # Current version:⏎⏎Sorry, I didn't get that. …")
                a, b = _paragraph_after(text, le, e)
            elif c - _sentence_start(text, ls, say.start()) <= _SAY_LINE_MAX and say.group(0).strip().lower() != "answer" \
                    and (nxt := _line_end(text, le + 1, e)) - le - 1 <= _SAID_LINE_MAX and text[le + 1:nxt].strip():
                # (a short line right under a short one: "每次回复先说：⏎您好！", "如果客户说“谢谢”，回复：⏎不客气！" — not a
                # paragraph of instructions under "… and how you should respond:")
                a, b = _paragraph_after(text, le, e)
                then = _THEN_LINE.search(text, a, b)
                if then is not None and then.start() > a:
                    b = _stripped(text, a, then.start())[1]
                then = _WORK_ON_IT_LINE.search(text, a, b)
                if then is not None and then.start() > a:  # ("Macro we use:⏎Thanks for your patience! …⏎Make it friendlier.")
                    b = _stripped(text, a, then.start())[1]
            else:
                a = b = c
            if b > a and text[a] not in "\"“「『'‘":  # (a quotation is the quote finder's: "用户说：“…”，请问…")
                out.append((a, b, "introduced", f"kept: the words given after {_short(text[say.start():c + 1], 30)!r}"))
        elif not text[c + 1:le].strip() and _passes_on_what_follows(text, ls, c):
            a, b = _paragraph_after(text, le, e)
            if b > a:
                out.append((a, b, "introduced",
                            f"kept: the text to pass on as written after {_short(text[ls:c + 1].strip(), 50)!r}"))
    if any(h in seg for h in _SIGN_HINTS):
        for m in _SIGN_LINE.finditer(text, s, e):
            le = _line_end(text, m.end(), e)
            # (its words on its line, or under it: "Print this sign for me:⏎Sorry, we're closed today. Thanks …")
            a, b = _stripped(text, m.end(), le) if text[m.end():le].strip() else \
                _stripped(text, le, _handed_text_end(text, le + 1, e, None))
            if b > a:
                out.append((a, b, "introduced", f"kept: the words of the sign or notice asked for "
                                                f"({_short(m.group(0).strip(), 40)!r})"))
    return out


# a sign or a notice asked for with its words after a colon on its line, whatever ends the line's request ("Make a door
# sign for dock 3: Please do not block the dock. Thank you!", "帮我做个3号门的提示牌：请随手关门，谢谢！")
# (the verbs and nouns of a sign asked for, shared with _A_TEXT_MADE, which also takes cards, SMS and notices)
_MAKE_EN = "make|write|draft|create|design|print|prepare"
_MAKE_ZH = "写|做|制作|打印|设计|张贴|贴|挂"
_SIGN_EN = ("sign", "notice", "poster", "banner", "label", "placard", "sticker")
_SIGN_ZH = ("门牌", "牌子", "提示牌", "告示", "标牌", "海报", "横幅", "标语", "贴纸", "标签")
_SIGN_LINE = re.compile(rf"^[ \t]*(?i:(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:{_MAKE_EN})\b"
                        rf"[^:：\n.!?]{{0,40}}?\b(?:{'|'.join(_SIGN_EN)})s?\b)[^:：\n.!?]{{0,30}}[:：][ \t]*(?=\S|\n[ \t]*\S)"
                        rf"|^[ \t]*[^：:\n。！？，,]{{0,6}}?(?:请|麻烦)?(?:你)?(?:帮我)?(?:{_MAKE_ZH})[^：:\n。！？]{{0,8}}?(?:{'|'.join(_SIGN_ZH)})"
                        rf"[^：:\n。！？]{{0,10}}[：:][ \t]*(?=\S)"
                        # … or named by the sign alone, with whose or where it is: "Sign for the break room: …", "Sign text for
                        # dock 3: …", "Poster wording:"
                        rf"|^[ \t]*(?i:(?:(?:the|a|our|my)\s+)?(?:[a-z-]+\s+)?(?:sign|notice|poster|banner|placard|sticker)s?"
                        rf"(?:\s+(?:text|wording|words|copy))?(?<=text|ding|ords|copy)|(?:(?:the|a|our|my)\s+)?(?:[a-z-]+\s+)?"
                        rf"(?:sign|notice|poster|banner|placard|sticker)s?(?:\s+(?:text|wording|words|copy))?\s+(?:for|on|at|in)\s+"
                        rf"[^:：\n.!?]{{1,30}})[ \t]*[:：][ \t]*(?=\S)", re.MULTILINE)
_SIGN_HINTS = (*_SIGN_EN, "Sign", "Notice", *_SIGN_ZH)


def _sentence_start(text: str, ls: int, k: int) -> int:
    """Where the sentence holding ``k`` starts on the line that starts at ``ls`` ("You are a support agent. When closing
    a ticket, send:" — the short line is its last sentence)."""
    stop = max(text.rfind(c, ls, k) for c in ".!?。！？")
    return ls if stop < 0 else stop + 1


def _passes_on_what_follows(text: str, ls: int, c: int) -> bool:
    """Whether the line [ls, c) before a colon says to pass what follows on as written ("Use this reply template
    exactly:", "下面这段原样发给客户：")."""
    return _VERBATIM_LINE.search(text, ls, c) is not None and _SCRIPT_POINTER.search(text, ls, c) is not None \
        and _NOT_A_SCRIPT.search(text, ls, c) is None


# the text after a colon whose line points at it as the object of the question ("How many times does the word please
# appear in this sentence: Please, please, …", "请问下面这句话里“谢谢”出现了几次：…", "请从这条消息里提取：…"): the rest of the
# line, or the paragraph after it
_POINTED_COLON = re.compile(r"(?i:\b(?:this|the\s+following)\s+(?:sentence|text|paragraph|passage|message|e-?mail|line|phrase|"
                            r"quote|review|comment|note|post)s?\b)[^:：\n]{0,40}?[:：]"
                            r"|(?:下面|以下|这)这?(?:句话|段话|段文字|句子|段落|条消息|条评论|封邮件|条短信)[^：:\n]{0,24}?[:：]")
_POINTED_HINTS = ("this ", "This ", "following", "句话", "段话", "段文字", "句子", "段落", "条消息", "条评论", "封邮件", "条短信")
# a follow-up turn that brings the next item: "那这条呢？说实话，还不错。", "And this one? Thanks so much, love it!"
_THIS_ONE = re.compile(r"[ \t]*(?:那|那么)?(?:这条|这个|这句|这段|这篇|下一条)呢[？?]|(?i:[ \t]*(?:and|what\s+about|how\s+about)\s+"
                       r"this\s+one\s*[?:])"
                       # … or names it with a colon, after the user's thanks and a rule for it: "Next: Please confirm …",
                       # "Now this one, again don't translate product names: …", "谢谢。再来一句：⏎…", "还有这句：…"
                       r"|[ \t]*(?:(?:谢谢|谢啦|好的|很好|不错|可以)[！!。.，,~～]*[ \t]*)?(?:还有|再来|然后|接下来|下面|下一)"
                       r"(?:这|一|下一)?(?:句|条|段|个|篇)(?:话)?(?:(?:[，,][^：:\n]{0,30}?)?[：:]|[。！!]?[ \t]*(?=\n))"
                       r"|(?i:[ \t]*(?:(?:thanks|thank\s+you|great|ok|okay|perfect|nice)[!.,]*[ \t]+)?(?:(?P<next>next)(?:\s+one)?|now\s+(?:this|these)"
                       r"(?:\s+ones?)?|and\s+this(?:\s+one)?|another\s+one)(?:,[^:\n]{0,60}?)?[ \t]*:)"
                       # … or alone on its line, the text under it: "Now this one.⏎⏎不好意思，…"
                       r"|(?i:[ \t]*(?:(?:thanks|thank\s+you|great|ok|okay|perfect|nice)[!.,]*[ \t]+)?(?:next\s+one|now\s+(?:this|these)"
                       r"(?:\s+ones?)?|and\s+this\s+one|another\s+one)[ \t]*[.!]?[ \t]*(?=\n))")


# the next text named after the user's own sentences: "Thank you. Do not include explanations. Next: Thanks, but …", "谢谢。
# 不要解释。下一条：…"
_NEXT_MID = re.compile(r"(?<=[.!?。！？])[ \t]*(?:(?i:next(?:[ \t]+one)?)|下一(?:条|个|句|封))[ \t]*[:：][ \t]*(?=\S)")


def _pointed_texts(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    out: list[tuple[int, int, str, str]] = []
    m = _THIS_ONE.match(seg)
    if m is None and ("ext" in seg or "下一" in seg) and (mid := _NEXT_MID.search(text, s, e)) is not None:
        a, b = _stripped(text, mid.end(), e)
        if b > a and "?" not in text[a:b] and "？" not in text[a:b]:
            out.append((a, b, "introduced", f"kept: the next item after {_short(mid.group(0).strip(), 20)!r}"))
    if m is not None:
        a, b = _stripped(text, s + m.end(), e)
        if m.group("next") and m.group(0).rstrip().lower().endswith("next:") and ("?" in text[a:b] or "？" in text[a:b]):
            b = a  # (a bare "Next:" before a question asks it: "Next: what is EPaxos? Keep answers under 50 words.")
        if b > a:
            out.append((a, b, "introduced", f"kept: the next item after {_short(m.group(0).strip(), 20)!r}"))
    if not any(h in seg for h in _POINTED_HINTS):
        return out
    for m in _POINTED_COLON.finditer(text, s, e):
        le = text.find("\n", m.end(), e)
        le = e if le < 0 else le
        a, b = _stripped(text, m.end(), le) if text[m.end():le].strip() else _paragraph_after(text, le, e)
        if b > a and a < le and _past_own_words(text, m.end(), a, e) > le:
            a, b = _paragraph_after(text, le, e)  # ("Rewrite this email: could you make it friendlier?⏎⏎John, …")
        if b > a:
            b = _quotation_end(text, a, b)
            out.append((a, b, "introduced", f"kept: the text pointed at by {_short(text[m.start():m.end()], 40)!r}"))
    return out


_QUOTE_CLOSE = {'"': '"', "“": "”", "「": "」", "『": "』"}


def _quotation_end(text: str, a: int, b: int) -> int:
    """``b``, or the end of the quotation the text [a, b) opens with when all after it is a closing thanks — the user's
    ('"We thank the reviewers." 谢谢！', '"Bonjour." Thanks!')."""
    close = _QUOTE_CLOSE.get(text[a])
    q = text.find(close, a + 1, b) if close else -1
    if q < 0:
        return b
    rs, re_ = _stripped(text, q + 1, b)
    if re_ > rs and _thanks_only(text, rs, re_):
        return q + 1
    return b


# a prompt's fixed texts: sections headed as macros, templates or scripts ("=== MACRO A: Password reset ===", "=== 话术B：配送超时
# ===") after a sentence that forbids changing them ("You must not change the macro wording", "不得改动话术原文")
_FIXED_DECL = re.compile(r"(?i:\b(?:must\s+not|do\s+not|don'?t|never|cannot|can'?t|may\s+not)\s+(?:change|alter|modify|edit|"
                         r"rephrase|reword|paraphrase)\s+(?:the\s+|any\s+|a\s+|their\s+)?(?:[\w-]+\s+){0,2}?(?:wording|text|"
                         r"macros?|templates?|scripts?|words?)\b|\bverbatim\b|\bword\s+for\s+word\b|\bexactly\s+as\s+written\b)"
                         r"|不得(?:改动|修改|更改|改变|删改|改写)|不要(?:改动|修改|更改|改写)|不能(?:改动|修改|改写)|禁止(?:改动|修改|改写|更改)"
                         r"|一字不改|原样使用|逐字|(?i:\bnever\s+reword\b|\bexactly\s+as\s+written\b)")
# (what every declaration holds, looked for in the block before the regex: most blocks have none)
_FIXED_HINTS = ("not change", "n't change", "not alter", "n't alter", "not modify", "n't modify", "not edit", "n't edit",
                "not rephrase", "n't rephrase", "not reword", "n't reword", "never reword", "ever change", "ever alter",
                "erbatim", "ord for word", "xactly as written", "不得改", "不得修", "不得更", "不得删", "不要改", "不要修",
                "不要更", "不能改", "不能修", "禁止改", "禁止修", "禁止更", "一字不改", "原样使用", "逐字")
_FIXED_HEADING = re.compile(r"^[ \t]*(?:={2,}|-{2,}|#{1,6}|【|\[|\*\*)[^\n]*(?:(?i:macro|template|script|canned|snippet)|话术|模板|"
                            r"标准回复|脚本|范文)[^\n]*$", re.MULTILINE)


_FIXED_NOUN = re.compile(r"(?i:\b(?:canned\s+(?:replies|responses|messages)|macros?|templates?|scripts?|fixed\s+(?:phrases|replies)|"
                         r"standard\s+(?:replies|responses|phrases))\b)|话术|模板|标准回复|固定回复")
# a labelled line of fixed text: "Greeting: Hi there! Thanks for contacting Acme Support."
_FIXED_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]*)?[^\n:：]{1,30}[:：][ \t]*(\S[^\n]*)$", re.MULTILINE)

# a log line: it opens with a timestamp or a level in capitals ("WARN user-svc please rotate credentials: key age 91d",
# "2024-05-01 12:00:03 [ERROR] …", "[INFO] …")
# (syslog's "Mar  1 12:00:01 web01 sshd[1234]: …", a tool's "npm ERR! …", "[ERROR] …", "INFO:     Started …"); a level
# and one space or a colon ("WARN user-svc …", "INFO: …") is a log line only among others (a user writes "INFO: the
# server is in Frankfurt." or "ERROR handling question: …" too)
_PRINTED_LINE = re.compile(r"^[ \t]*(?:(?P<sure>\[?\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d\b|"
                           r"\[?(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+)?"
                           r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+\d{1,2}[ \t]+\d\d:\d\d:\d\d\b|"
                           # glog's "E1102 10:15:32.123456  1234 server.cc:42] …", Python logging's "WARNING:root:…",
                           # a level in Chinese: "[错误] …"
                           r"[IWEF]\d{4}[ \t]+\d\d:\d\d:\d\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:|"
                           # a linter's or compiler's line: eslint's "14:7  error  'x' is assigned a value but never used",
                           # its "✖ 1 problem (1 error, 0 warnings)", tsc's "src/a.ts(3,5): error TS2322: …"
                           r"\d+:\d+[ \t]+(?:error|warning)[ \t]|✖[ \t]+\d+[ \t]+problems?\b|[\w./-]+\(\d+,\d+\):[ \t]+(?:error|warning)[ \t]|"
                           # pytest's "FAILED tests/test_api.py::test_login - AssertionError: please provide a password"
                           r"(?:FAILED|ERROR)[ \t]+[\w./-]+::[\w\[\].:-]+|"
                           r"\[?\d{4}[-/]\d\d[-/]\d\d\]?[ \t]+\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b|"
                           r"\[(?:错误|警告|信息|调试|严重|致命)\]|"
                           r"(?:npm|yarn|pnpm)[ \t]+(?:ERR!|WARN|notice)|\[(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|"
                           r"CRIT|CRITICAL|SEVERE|PANIC)\]|(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRIT|CRITICAL|"
                           r"SEVERE|PANIC):?(?:[ \t]{2,}|\t|[ \t]*[|][ \t]*|[ \t]+-[ \t]+))"
                           r"|(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRIT|CRITICAL|SEVERE|PANIC):?[ \t])"
                           r"[^\n]*", re.MULTILINE)
_LOG_HINTS = ("TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "ERR", "FATAL", "CRIT", "SEVERE", "PANIC", ":", "[错误]", "[警告]",
              "[信息]", "[调试]", "[严重]", "[致命]")


def _log_lines(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """Pasted log lines (a run of them, as one range): a log is quoted, never reworded — "please rotate credentials" in
    it is what the service printed."""
    if not any(h in seg for h in _LOG_HINTS):
        return []
    runs: list[list[Any]] = []  # [start, end, lines, lines without a bare "LEVEL:"]
    for m in _PRINTED_LINE.finditer(text, s, e):
        a, b = _stripped(text, m.start(), m.end())
        if b <= a:
            continue
        sure = m.group("sure") is not None
        if runs and not text[runs[-1][1]:a].strip():
            runs[-1][1] = b
            runs[-1][2] += 1
            runs[-1][3] += sure
        else:
            runs.append([a, b, 1, int(sure)])
    return [(a, b, "quote", "kept: pasted log lines (as the program printed them)") for a, b, n, sure in runs
            if n >= 2 or sure or _OUTPUT_HEADING.fullmatch(text, _line_start(text, s, max(s, a - 1)), max(s, a - 1))]


# a line alone that heads what a program printed ("Output:⏎WARNING: please upgrade pip"): a single level line under it
# is a log line too
_OUTPUT_HEADING = re.compile(r"[ \t]*(?i:(?:terminal|console|command|program|script)?[ \t]*(?:output|logs?)|terminal|console|stdout|stderr)"
                             r"[ \t]*[:：][ \t]*|[ \t]*(?:输出|日志|终端输出|控制台输出)[ \t]*[:：][ \t]*")


def _fixed_texts(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if not any(h in seg for h in _FIXED_HINTS):
        return []
    decl = _FIXED_DECL.search(text, s, e)
    while decl is not None and not _FIXED_NOUN.search(text, _line_start(text, s, decl.start()), _line_end(text, decl.end(), e)):
        decl = _FIXED_DECL.search(text, decl.end(), e)  # ("Keep file names exactly as written" fixes no script)
    if decl is None:
        return []
    line = _line_start(text, s, decl.start())
    heads = list(_FIXED_HEADING.finditer(text, line, e))  # (the declaration may stand in the heading: "## 固定话术（禁止改写）")
    out = []
    if not heads and _FIXED_NOUN.search(text, line, decl.end() + 40):
        # "Use the following canned replies exactly as written:⏎Greeting: Hi there! …⏎Closing: …": each labelled line
        for m in _FIXED_LINE.finditer(text, decl.end(), e):
            out.append((m.start(1), m.end(1), "introduced", f"kept: a fixed text the prompt says not to change "
                                                            f"({_short(text[m.start():m.start(1)].strip(' :：-*'), 30)!r})"))
    for k, h in enumerate(heads):
        stop = heads[k + 1].start() if k + 1 < len(heads) else e
        nxt = _HEADING.search(text, h.end(), stop)  # (a markdown heading of another kind ends it)
        a, b = _stripped(text, h.end(), nxt.start() if nxt is not None else stop)
        if b > a:
            out.append((a, b, "introduced", f"kept: a fixed text the prompt says not to change "
                                            f"({_short(h.group(0).strip(' =-#*[]【】'), 30)!r})"))
    return out


# the words an edit request replaces and the words it puts instead, unquoted ("Change Enjoy the croissant! to Have a
# bite of heaven! and keep the rest.", "把祝大家假期愉快改成好好休息，其他不变"; not the noun: "This change adds caching to
# the search API.")
_CHANGE_TO = re.compile(r"(?i:(?<!this )(?<!the )(?<!that )(?<! a )(?<!my )(?<!our )(?<!one )\b(?:change|replace|swap)\s+(?!it\b|that\b|this\b)(?P<old>[^\n\"“”]{2,80}?)\s+(?:to|with|into)\s+"
                        r"(?P<new>[^\n\"“”?]{2,80}?)(?=\s+and\s+(?:keep|leave|don't|do\s+not)\b|[.;!?]?\s*$|\s*\n|[.;!?]\s))"
                        r"|把(?P<old_zh>[^\n“”「」，,。]{2,40}?)(?:改成|换成|改为|替换成|替换为)(?P<new_zh>[^\n“”「」，,。；;]{1,40}?)"
                        r"(?=[，,。；;]|$)")
_CHANGE_HINTS = ("hange", "eplace", "wap", "改成", "换成", "改为", "替换")
# the words put in up to a keep-the-rest clause, punctuation and all: "把开头改成 尊敬的客户，您好！ 其他不变：…"
_CHANGE_KEEP_REST = re.compile(r"(?:改成|换成|改为|替换成|替换为)[ \t]*(?P<new>[^\n“”「」]{1,40}?)[ \t]*[，,]?[ \t]*"
                               r"(?=(?:其他|其余|其它|别的|剩下的)(?:部分|内容|地方)?(?:都|的)?(?:不变|不动|保持|别动|照旧))")


def _replacements(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if not any(h in seg for h in _CHANGE_HINTS):
        return []
    out = []
    for m in _CHANGE_TO.finditer(text, s, e):
        for g in ("old", "new", "old_zh", "new_zh"):
            if m.group(g) is not None:
                a, b = _stripped(text, m.start(g), m.end(g))
                if b > a:
                    out.append((a, b, "introduced", f"kept: the words an edit request {'replaces' if 'old' in g else 'puts in'}"
                                                    f" ({_short(text[a:b], 30)!r})"))
    for m in _CHANGE_KEEP_REST.finditer(text, s, e):
        a, b = _stripped(text, m.start("new"), m.end("new"))
        if b > a:
            out.append((a, b, "introduced", f"kept: the words an edit request puts in ({_short(text[a:b], 30)!r})"))
    return out


# each finder gets the block as (text, s, e) and its text sliced once, ``seg`` (= text[s:e]), for its guards
# a comment line of code pasted without a fence, known by a code line next to it: "% Please keep the caption above the
# table, thanks!" between \\begin{table} and \\caption{…}, "# Sorry, this is slow, thanks for waiting" above
# "m <- lmer(…)", "-- 麻烦不要在白天执行，谢谢" above "DELETE FROM logs …" (a "# " line between prose lines is a heading)
_COMMENT_LINE = re.compile(r"^[ \t]*(?:%|#(?!#)|//|--(?=[ \t]))[^\n]*$", re.MULTILINE)
_CODE_NEIGHBOUR = re.compile(r"[ \t]*(?:\\[A-Za-z]+\*?[\[{]|\\(?:item|hline|maketitle|centering|newpage)\b|[A-Za-z_][\w.$]*\(|"
                             r"[A-Za-z_][\w.$\[\]]*[ \t]*(?:<-|=|\+=|:=)[ \t]*\S|(?:import|from|library|require|using|#include)\b|[}\])]"
                             r"|(?:SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|TRUNCATE|WITH|BEGIN|COMMIT)[ \t]"
                             # a definition: "func legacyHandler() {}", "def legacy(): pass", "public static void main("
                             r"|(?:func|def|function|fn|class|struct|interface|public|private|protected|static|const|let|var|"
                             r"pub|async[ \t]+def|export)[ \t]+[A-Za-z_][\w.$]*[ \t]*[({<:=]"
                             # a config file's line: a path or glob of .gitignore ("node_modules/", ".env", "*.log"), a
                             # crontab entry ("0 3 * * * /opt/backup.sh")
                             r"|!?(?:\.[\w.-]+|[\w.-]*[/*][\w./*-]*)[ \t]*$|(?:[\d*/,-]+[ \t]+){5}\S|@(?:reboot|daily|hourly|weekly|"
                             r"monthly|yearly)\b)")


def _comment_lines(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if "%" not in seg and "#" not in seg and "//" not in seg and "--" not in seg:
        return []
    out = []
    for m in _COMMENT_LINE.finditer(text, s, e):
        a, b = m.span()
        prev_end = text.rfind("\n", s, a)
        prev = text[text.rfind("\n", s, prev_end) + 1 if prev_end > s else s:prev_end] if prev_end >= s else ""
        nxt_end = text.find("\n", b + 1, e)
        nxt = text[b + 1:nxt_end if nxt_end >= 0 else e] if b < e else ""
        if any(line.strip() and _CODE_NEIGHBOUR.match(line) and not _COMMENT_LINE.match(line) for line in (prev, nxt)):
            out.append((*_stripped(text, a, b), "code", "kept: a comment line of code pasted without a fence"))
    return out


# a setting's value written inline, unquoted: "Our .env has GREETING=Hello, thanks for visiting! and dotenv cuts it …" —
# to the end of its sentence or line (a name in capitals, as environment variables and .env keys are written)
_ENV_ASSIGNMENT = re.compile(r"(?<![\w$.-])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*=(?=[^\s=])")
_VALUE_END = re.compile(r"[.!?。！？](?=[ \t]|$)|[ \t]*$", re.MULTILINE)


def _env_values(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if "=" not in seg:
        return []
    out = []
    found = [m for m in _ENV_ASSIGNMENT.finditer(text, s, e) if len(m.group(0)) >= 4]  # ("X=1": a formula)
    for k, m in enumerate(found):
        end = _VALUE_END.search(text, m.end(), e)
        b = e if end is None else end.end()
        if k + 1 < len(found) and found[k + 1].start() < b:  # ("API_KEY=abc123 and GREETING=…": up to the next name)
            b = m.end() + len(text[m.end():found[k + 1].start()].split(None, 1)[0].rstrip(",;，；"))
        if b > m.end():
            out.append((m.end(), b, "code", f"kept: the value of {m.group(0)[:-1]}, as written"))
    return out


# a chat bot's command and the reply it posts, one per line ("!hug -> $(user) hugs $(touser), please be gentle", "!discord:
# Join us at …, thanks!", "!签到 => 签到成功，谢谢支持"): the reply is the bot's text, as written
_BOT_COMMAND = re.compile(r"^[ \t]*[-*•]?[ \t]*!\w[\w-]{0,30}[ \t]*(?:->|=>|→|:|=|—|–)[ \t]*(?=\S)", re.MULTILINE)


def _bot_commands(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if "!" not in seg:
        return []
    out = []
    for m in _BOT_COMMAND.finditer(text, s, e):
        a, b = _stripped(text, m.end(), _line_end(text, m.end(), e))
        if b > a:
            out.append((a, b, "code", f"kept: the reply of the bot command {m.group(0).strip(' -*•:=>→—–')!r}, as written"))
    return out


# a shell session pasted without a fence: a prompt line ("$ git log --oneline", "PS C:\\app> npm test",
# "user@host:~/app$ make") and what the command printed, to a blank line — the commit subjects, file names and messages in
# it are the program's ("a1b2c3 please work")
_SHELL_SESSION = re.compile(r"^[ \t]*(?:\$|❯|PS[ \t]?[A-Za-z]:[^\n>]{0,80}>|[\w.-]+@[\w.-]+:[^\n$#]{0,80}[$#])[ \t]+[A-Za-z./~_-][^\n]*"
                            r"(?:\n(?![ \t]*\n)[^\n]*)*", re.MULTILINE)


# the user's own line right under a program's output: a question or a request ("How do I fix this? Thanks!", "Hi! Can you
# please help me?", "为什么报错？")
_OWN_LINE_UNDER_OUTPUT = re.compile(r"[ \t]*(?:(?i:(?:(?:hi|hello|hey|thanks|ok|so)[!,.]*[ \t]+)?(?:how|why|what|can|could|would|is|"
                                    r"does|do|should|any|please|help|explain)\b[^\n]*[?？!.])|为什么|怎么|如何|请问|帮我|麻烦|这是)")


def _shell_sessions(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if "$" not in seg and "❯" not in seg and "PS" not in seg:
        return []
    out = []
    for m in _SHELL_SESSION.finditer(text, s, e):
        a, b = _stripped(text, m.start(), m.end())
        while (k := text.rfind("\n", a, b)) > a and text.find("\n", a, k) >= 0 and (
                _users_own_line(text, k + 1, b) or _OWN_LINE_UNDER_OUTPUT.match(text, k + 1, b)):
            b = _stripped(text, a, k)[1]  # (not the user's question right under the output: "…⏎How do I fix this? Thanks!")
        if "\n" in text[a:b]:  # (a command and its output; a lone "$ npm test" line is a command named)
            out.append((a, b, "quote", "kept: a shell session pasted (a command and what it printed)"))
    return out


# a YAML or locale file pasted without a fence: two lines or more of "key:" / "key: value", one of them indented
# ("signup:⏎  verify: 麻烦验证一下邮箱。") — its values are the file's strings
_YAML_RUN = re.compile(r"(?:^[ \t]*[A-Za-z_][\w.-]*[ \t]*:(?:[ \t]+[^\n]*)?[ \t]*(?:\n|\Z)){2,}", re.MULTILINE)
_YAML_NESTED = re.compile(r"^[ \t]+[A-Za-z_][\w.-]*[ \t]*:[ \t]+\S", re.MULTILINE)


def _yaml_runs(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    out = []
    for m in _YAML_RUN.finditer(text, s, e):
        if _YAML_NESTED.search(text, m.start(), m.end()):
            a, b = _stripped(text, m.start(), m.end())
            out.append((a, b, "code", "kept: a YAML or locale file's lines (key: value), pasted without a fence"))
    return out


# a subtitle file's cues (SRT, WebVTT): an optional number line, a "00:00:01,000 --> 00:00:03,000" line, then the cue's
# text lines to a blank line — the text is the product, whatever the request does with the file ("Thank you so much!")
_CUE = re.compile(r"^[ \t]*(?:\d+[ \t]*\n[ \t]*)?(?:\d{1,2}:)?\d{1,2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*(?:\d{1,2}:)?\d{1,2}:\d{2}[,.]\d{1,3}"
                  r"[^\n]*\n(?:[ \t]*\S[^\n]*(?:\n|\Z))+", re.MULTILINE)


def _subtitle_cues(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The cues of a subtitle file pasted in the block, each kept as written."""
    if "-->" not in seg:
        return []
    out = []
    for m in _CUE.finditer(text, s, e):
        a, b = _stripped(text, m.start(), min(m.end(), e))
        if b > a:
            out.append((a, b, "quote", "kept: a subtitle cue, its timing and its text as written"))
    return out


# a line of a bilingual list: two sides in two scripts set apart by an arrow, a dash, "=" or "|" ("Thank you! → 谢谢！",
# "谢谢合作 — Thank you for your cooperation"), or two language labels ("中：谢谢大家。 英：Thank you, everyone."); two or more
# in a block are a glossary or a set of pairs to check, each kept as written
_PAIR_LINE = re.compile(r"^[ \t]*(?:\d{1,3}[.)、．][ \t]*)?(?:(?:中|英|中文|英文|原文|译文|ZH|EN|zh|en|CN)[ \t]*[:：][^\n]*?[ \t]"
                        r"(?:中|英|中文|英文|原文|译文|ZH|EN|zh|en|CN)[ \t]*[:：][^\n]*|[^\n]*?\S[ \t]*(?:→|->|=>|—|–|=|\|)[ \t]*\S[^\n]*)$",
                        re.MULTILINE)
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# a script line under a bracketed tag: "[014] JOHN: Thank you. …", "[NPC_Innkeeper]: Thanks for staying, {name}!"
_TAGGED_LINE = re.compile(r"^[ \t]*\[[^\]\n]{1,30}\](?:[ \t]*[A-Z][A-Za-z .'-]{0,20})?[ \t]*:[ \t]*\S[^\n]*$", re.MULTILINE)


def _translation_pairs(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The lines of a bilingual list (two or more) and the lines of a tagged script, each kept as written."""
    out = []
    if any(m in seg for m in ("→", "->", "=>", "—", "–", "=", "|", ":", "：")) and _HAN.search(seg) and _LATIN_WORD.search(seg):
        pairs = [m for m in _PAIR_LINE.finditer(text, s, e)
                 if _HAN.search(m.group(0)) and _LATIN_WORD.search(m.group(0))]
        if len(pairs) >= 2:
            out += [(a, b, "quote", "kept: a line of a bilingual list, as written")
                    for m in pairs for a, b in [_stripped(text, m.start(), m.end())] if b > a]
    if "[" in seg:
        tagged = list(_TAGGED_LINE.finditer(text, s, e))
        if len(tagged) >= 1:
            out += [(a, b, "quote", "kept: a script line under its tag, as written")
                    for m in tagged for a, b in [_stripped(text, m.start(), m.end())] if b > a]
    return out


_FINDERS = (_code, _quotes, _introduced, _few_shot, _exam_items, _tables, _json, _marked, _example_sections,
            _announced_items, _opening_lines, _inline_examples, _handed_by_question, _front_matter, _templates,
            _completion_slot, _label_pairs, _scripts, _pasted_structures, _pointed_texts, _fixed_texts, _courtesy_items, _named_texts,
            _log_lines, _comment_lines, _env_values, _shell_sessions, _yaml_runs, _chat_exports, _bot_commands, _pipe_rows,
            _subtitle_cues, _translation_pairs)
# every finder but those of _NO_MARK_FINDERS needs one of these marks in the block (a backtick or tilde for a fence, 4
# spaces or a tab for indented code, ;{} for bare code, a quotation mark, a colon for introduced text and
# few-shot, | for a table, " or [ for JSON): most chat turns have none, and skip six finders at once
_MARK_CHARS = ":：\"'“「『«‘`~|[;{}\t"
# (the exam items' options are labelled with letters and periods, found everywhere; marker lines and headings are
# rows of arrows, dashes or hashes)
_NO_MARK_FINDERS = (_exam_items, _marked, _example_sections, _announced_items, _opening_lines, _handed_by_question,
                    _pointed_texts, _fixed_texts, _log_lines, _comment_lines, _env_values, _shell_sessions, _chat_exports,
                    _bot_commands)
# directives instruct the engine, not the model: nothing inside them is material
_DIRECTIVE = re.compile(r"<(protected_tokens|redundant_phrases)>.*?</\1>|<layer-zero\b[^<>]*>", re.DOTALL)


def _has_mark(seg: str) -> bool:
    """Whether ``seg`` holds one of the marks of ``_MARK_CHARS`` or 4 spaces in a row (one fast search per
    character is cheaper than a regex over a character class)."""
    for c in _MARK_CHARS:
        if c in seg:
            return True
    return "    " in seg


def block_material(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The material ranges of ``text[s:e]`` (one text block) found by its content: code, quotes, introduced
    text, few-shot exemplars, exam items, tables, JSON (global offsets; may overlap)."""
    seg = text[s:e]
    finders = _FINDERS if _has_mark(seg) else _NO_MARK_FINDERS
    found = [r for finder in finders for r in finder(text, s, e, seg) if r[1] > r[0]]
    if len(found) > 1:  # (one range found twice is listed once, with the first finder's detail)
        first: dict[tuple[int, int], tuple[int, int, str, str]] = {}
        for r in found:
            first.setdefault((r[0], r[1]), r)
        found = list(first.values())
    if found and "<" in seg:
        skip = [m.span() for m in _DIRECTIVE.finditer(text, s, e)]
        if skip:
            found = [r for r in found if not any(a <= r[0] < b or a < r[1] <= b for a, b in skip)]
    return found


# --------------------------------------------------------------------------- text a user hands over with a task

# who sends the messages a turn reports ("My landlord wrote:", "房东发来：")
_SENDERS_EN = (r"recruiter|customer|client|landlord|tenant|boss|manager|colleague|coworker|co-worker|friend|mom|mum|dad|"
               r"teacher|parent|neighbou?r|buyer|seller|hr|candidate|guest|patient|doctor|nurse|pharmacist|pharmacy|"
               r"clinic|hospital|dentist|vet|school|principal|bank|insurer|lawyer|attorney|agent|agency|court|vendor|"
               r"supplier|contractor|partner|wife|husband|girlfriend|boyfriend|sister|brother|son|daughter|team|"
               r"professor|student|interviewer|company|employer|airline|hotel|host|coach|trainer|tutor|mentor|instructor|"
               r"supervisor|advisor|adviser|counselor|counsellor|examiner|grader|reporter|journalist|ta|dean|registrar|"
               r"roommate|housemate|classmate|teammate|cousin|aunt|uncle|grandma|grandpa|editor|publisher|officer|clerk|"
               r"official|embassy|consulate|receptionist|cashier|inspector|caseworker|case\s+worker|property\s+manager|super|"
               r"reviewer|maintainer|contributor|co-?author|pilot|captain|announcer|driver|conductor")
_SENDERS_ZH = (r"老板|领导|上司|客户|同事|朋友|老师|家长|房东|房客|租客|对方|买家|卖家|邻居|妈妈|爸爸|老婆|老公|女朋友|男朋友|HR|人事|猎头|中介|面试官|"
               r"导师|班主任|辅导员|快递员|外卖员|物业|客服|师傅|医生|主管|经理|教练|审稿人|编辑|候选人|求职者|应聘者|记者|网友|粉丝|"
               r"孩子|儿子|女儿|同学|银行|维护者|贡献者|开发者|作者|reviewer|Reviewer|我爸|我妈|婆婆|公公|奶奶|爷爷|外婆|外公|姥姥|姥爷|"
               r"保姆|护工|阿姨|叔叔|舅舅|姑姑|亲戚|乘客|司机|骑手|车主|顾客|客人|商家|店家|他|她")

# a line of a user's turn that asks for work on the text after its colon: "Translate to Spanish, keep it short for a
# push notification:", "Label this opener: Sorry to bother you again, …", "Now this one:", "Write release notes from
# these points:", "帮我润色一下这段，语气正式一点：" (the introducers above need the text named: "Translate this
# letter:")
_TASK_VERB_EN = _en_words(*_ANY_WORK)
_TASK_VERB_ZH = _zh_words(*_ANY_WORK)
# the words to print, use or say, dictated (on the intro's line they end with it, or at a request after them):
# "小票底部印这句，就用：谢谢惠顾，欢迎再来！", "海报上就一句话：…", "弹窗文案就写：…", "牌子上面写：谢谢光临，…", "Start the email
# with:", "Sign off with:", "Add a CTA at the end:", "The banner should read:", "Change the alert annotation to:", "状态页要写成：",
# "summary改成："
_DICTATED = (
    r"(?:[^：:\n]{0,20}?(?:就|只|上面|上边|底部|顶部|背面|正面)(?:写|印|用|放|贴|打)(?:上|着)?(?:这句|这一句|一句|这几个字)?"
    r"(?:话)?"
    r"|[^：:\n]{0,20}?(?:就|只有|只)(?:一句话|这一句|这句话?)"
    r"|(?i:[^:：\n]{0,40}?\b(?:start|begin|open|end|close|finish|sign[ \t]+off|wrap[ \t]+up)\b[^:：\n.?!]{0,30}?\bwith)"
    r"|(?i:[^:：\n]{0,40}?\b(?:add|put|include|insert|append)\b[^:：\n.?!]{0,40}?\b(?:at|to)[ \t]+the[ \t]+(?:very[ \t]+)?"
    r"(?:end|bottom|top|start|beginning)\b(?:[ \t]+of[ \t]+[^:：\n]{1,30}?)?)"
    r"|(?i:[^:：\n]{0,60}?\b(?:should|must|will|shall|to|would|needs?[ \t]+to)[ \t]+(?:read|say)\b)"
    r"|(?i:[^:：\n]{0,20}?\b(?:change|update|set|rename|reword|edit)\b[^:：\n.?!]{1,60}?\bto)"
    r"|[^：:\n]{0,30}?(?:写成|改成|换成|改为|写为|更新成|更新为|替换成|替换为|设成|设为)"
    r"|[^：:\n]{0,20}?(?:注明|写明|标明|注上|附上|加上)"
    # lines given as examples or as the one there is: "Example lines:", "Current tip:", "first line:", "greeting lines …,
    # like:", "She's apologizing:", "示例台词：", "他说话是这样的：", "副歌是这样的："
    r"|(?i:[^:：\n]{0,60}?\b(?:example|sample)[ \t]+(?:lines?|dialogues?|quotes?|phrases?|greetings?|tips?|replies|responses)\b)"
    r"|(?i:[^:：\n]{0,60}?\b(?:current|old|existing|first|last|opening|closing)[ \t]+(?:line|tip|lyric|verse|chorus|hook|slogan|"
    r"tagline|sentence)s?\b)"
    r"|(?i:[^:：\n]{0,60}?\b(?:lines?|greetings?|phrases?|examples?)\b[^:：\n.?!]{0,30}?\b(?:like|such[ \t]+as))"
    r"|(?i:[^:：\n]{0,60}?\b(?:she|he|they|my[ \t]+character|the[ \t]+(?:npc|character|villain|hero|narrator|innkeeper|king|queen))"
    r"(?:'s|’s|[ \t]+is|[ \t]+are)[ \t]+[a-z]+ing)"
    r"|[^：:\n]{0,20}?(?:示例台词|台词|口头禅|例句|副歌|主歌|歌词|第一句|开头一句|最后一句|提示语)(?:是)?"
    r"|[^：:\n]{0,20}?(?:是|就是|大概是)这样的?"
    # words to send or to put somewhere: "Put this in the special requests box:", "Email the hotel the following:",
    # "Message the host on Airbnb:", "帮我给司机留言：", "帮我发给导游：", "在备注栏填上："
    r"|(?i:[^:：\n]{0,30}?\b(?:put|paste|enter|type|write|add|fill[ \t]+in)[ \t]+(?:this|the[ \t]+following|these[ \t]+words)[ \t]+"
    r"(?:in|into|on)\b[^:：\n]{0,40}?)"
    r"|(?i:[^:：\n]{0,30}?\b(?:text|message|e-?mail|dm|ping|send)[ \t]+(?:the|my|our)[ \t]+[\w-]+(?:[ \t]+[\w-]+)?"
    r"(?:[ \t]+(?:on|via|in|through)[ \t]+[\w-]+)?(?:[ \t]+(?:the[ \t]+following|this))?)"
    r"|[^：:\n]{0,10}?(?:给|跟|向)[\u4e00-\u9fff]{1,6}?(?:留言|留个言|留句话|发消息|发个消息|发条消息)"
    r"|[^：:\n]{0,10}?(?:发给|转给|转发给|留给|带给)[\u4e00-\u9fff]{1,6}"
    r"|[^：:\n]{0,20}?(?:备注|栏|框|留言板|输入框)[^：:\n]{0,6}?(?:填上|填写|填|写上|写)"
    r"|(?i:[^:：\n]{0,20}?\b(?:add|leave|put|write|include)[ \t]+(?:a|an|this|the)?[ \t]*(?:note|comment|message|instructions?|"
    r"remark)s?[ \t]+(?:to|on|in|for|with)\b[^:：\n]{0,30}?)"
    r"|(?i:[^:：\n]{0,20}?\bwrite[ \t]+(?:in|into|on)[ \t]+(?:the|my|our)[ \t]+[^:：\n]{1,30}?)"
    r"|(?i:[^:：\n]{0,40}?\b(?:catchphrases?|(?:signature|stock)[ \t]+lines))"
    r"|[^：:\n]{0,10}?(?:台词|口头禅|歌词|例句)(?:参考|示例|如下|举例))"
)
_TASK_INTRO = re.compile(
    r"[ \t]*(?:[-*>]+[ \t]*)?(?:\*\*)?"
    r"(?:"
    r"(?i:(?:ok|okay|now|next|also|and|then|great|thanks)[ \t]*[,!.]?[ \t]+)?"
    r"(?:"
    # the verb's object is the text that follows: "this", "it", "the following", "my …", or a language to put it in
    r"(?i:(?:(?:can|could|would|will)[ \t]+you[ \t]+(?:please[ \t]+)?|(?:please|pls|plz)[ \t]+)?(?:help[ \t]+me[ \t]+)?"
    r"(?:(?:just|only|simply)[ \t]+)?"
    rf"(?:{_TASK_VERB_EN}|make|turn|send|post|publish|forward|share|announce|soften|vary|tone\s+down|firm\s+up|warm\s+up)\b"
    r"[^:：\n.!?]{0,60}?"
    r"(?:\b(?:this|these|it|the[ \t]+following|following|below|my|each|every|all|both|(?:in)?to[ \t]+(?-i:[A-Z])[a-z]+|这个|这段|这篇|这些|这份|这条|下面的?|以下的?)\b[^:：\n.!?]{0,60}?"
    # ("Make the caption less formal — drop the please …, they sound stiff: …")
    r"|\bthe[ \t]+(?:caption|post|tweet|message|text|reply|copy|draft|e-?mail|bio|sentence|paragraph|notice|sign|announcement|"
    r"headline)\b[^:：\n.!?]{0,90}?))"
    r"|(?i:(?:this|that|another|the[ \t]+next)[ \t]+one)"
    # where to post it: "Announce in #general:", "Post to #random:"
    r"|(?i:(?:announce|post|send|share)[ \t]+(?:(?:it|this)[ \t]+)?(?:in|to|on)[ \t]+(?:the[ \t]+)?#?[\w-]+)"
    # words to pass on: "Reply to Tom saying:", "Text my landlord this:"
    r"|(?i:(?:reply|respond|write[ \t]+back|text|message|e-?mail|tell|dm|ping|answer)\b[^:：\n.!?]{0,40}?\b(?:saying|that[ \t]+says|this))"
    # a text to write in another language: "用英文写：你好，…"
    r"|[ \t]*(?:请|麻烦|帮我)*用(?:英文|英语|中文|日语|日文|法语|德语|西班牙语|韩语|粤语)(?:写|说|回复?|表达)"
    # the language wanted, with a please: "Spanish please:"
    r"|(?i:(?:in(?:to)?[ \t]+)?(?:spanish|french|german|italian|portuguese|japanese|korean|chinese|english|russian|arabic|dutch|"
    r"vietnamese|thai)[ \t]*,?[ \t]*please)"
    # a language to put the strings into, alone: "Into Japanese:", "And now into zh-TW:", "那翻成日语呢："
    r"|(?i:(?:and[ \t]+|now[ \t]+|then[ \t]+)*(?:in)?to[ \t]+(?:(?-i:[A-Z])[a-z]+|[a-z]{2}-[A-Za-z]{2,4}))"
    r"|[^：:\n]{0,10}?(?:翻成|译成|翻译成|翻译为|译为)[\u4e00-\u9fff]{1,3}?[文语][^：:\n]{0,6}?"
    # how to change it, opening the turn: "改得更亲切一点：", "写得正式些："
    r"|[ \t]*(?:请|麻烦|帮我)*(?:改得?|写得|翻得|说得)[^：:\n]{1,12}?"
    # ("改口语：", "改成正式一点：", "自动回复设置成：")
    r"|[ \t]*(?:请|麻烦|帮我)*改(?:成|为)?(?:口语|书面语|正式|简体|繁体|文言文|白话|英文|中文)(?:一点|一些|化)?"
    r"|[^：:\n]{0,10}?(?:自动回复|个性签名|签名|状态|群公告|公告|欢迎语)(?:设置|设|改|换)(?:成|为)"
    # reported words: "The customer wrote:", "Their second message was just:", "Here's what my landlord wrote, help me
    # reply that I agree:"
    r"|(?i:(?:here(?:'s|’s|[ \t]+is)|this[ \t]+is)[ \t]+what[ \t]+I(?:(?:'m|’m|[ \t]+am)[ \t]+(?:(?:going[ \t]+to|gonna|about[ \t]+to)[ \t]+"
    r"(?:send|say|post|write|reply|read)|sending|saying|posting|writing|replying|texting|e-?mailing|messaging|telling|reading)|"
    r"(?:'ll|’ll|[ \t]+will)[ \t]+(?:send|say|post|write|reply|read))(?:[ \t]+[^:：\n.!?]{1,40}?)?|I(?:'m|’m|[ \t]+am)[ \t]+(?:replying|responding|sending|saying|writing[ \t]+back|going[ \t]+"
    r"to[ \t]+(?:reply|say|send))(?:[ \t]+with)?(?:[ \t]+(?:this|it|the[ \t]+following))?(?:[ \t]+to[ \t]+[^:：\n.!?]{1,30}?)?|I[ \t]+(?:want|plan|intend)[ \t]+to[ \t]+(?:reply|say|send|post)(?:[ \t]+(?:with|this|the[ \t]+following))?)"
    # a message the user gets: "This is the auto-reply I get from their support:", "这是我每次打电话听到的："
    r"|(?i:(?:this[ \t]+is|here'?s)[ \t]+(?:the|an?)[ \t]+(?:auto-?reply|out-of-office|message|e-?mail|text|recording|voicemail|"
    r"notice|reply)[ \t]+(?:I|we)[ \t]+(?:always[ \t]+)?(?:get|got|received|hear|heard)\b[^:：\n]{0,40}?)"
    r"|[^：:\n]{0,16}?(?:是)?(?:我|我们)[^：:\n，,。]{0,8}?(?:收到|接到|听到|看到)的"
    # a message someone received: "My grandpa got a voicemail:"
    r"|(?i:[^:：\n]{0,30}?\b(?:got|received|left)[ \t]+(?:a|this|the|an)[ \t]+(?:voicemail|text|message|letter|e-?mail|note|dm)"
    r"(?:[ \t]+(?:from|on|in|under|at)[ \t]+[^:：\n.!?]{1,30}?)?)"
    # a text said to be off, with its words after the colon: "The thank-you reply is too long: Thank you so much …"
    r"|(?i:[^:：\n]{0,40}?\b(?:reply|message|greeting|text|answer|line|copy|script)[ \t]+(?:is|sounds|feels|seems)[ \t]+too[ \t]+[a-z]+)"
    # the user's own reply named: "My reply to Reviewer 1 comment 3 is:"
    r"|(?i:(?:my|our)[ \t]+(?:draft[ \t]+)?(?:reply|response|answer|rebuttal)\b[^:：\n.!?]{0,40}?[ \t]+is)"
    # the user's own draft as it stands: "Here's what I have so far:", "Have a look:", "I changed it a bit:", "这是我现在的
    # 版本：", "我改了一下，你看看行不行："
    r"|(?i:(?:here(?:'s|’s|[ \t]+is)[ \t]+)?what[ \t]+I(?:'ve|’ve|[ \t]+have)?[ \t]+(?:have|got|came[ \t]+up[ \t]+with)"
    r"(?:[ \t]+so[ \t]+far)?|(?:have|take)[ \t]+a[ \t]+look|I[ \t]+(?:changed|edited|revised|tweaked|updated|reworked|rewrote)"
    r"[ \t]+it(?:[ \t]+a[ \t]+(?:bit|little))?(?:[ \t]+more)?)"
    r"|这是我(?:现在|目前|最新|修改后|改过|改好)的(?:版本|稿子|草稿|稿)|我(?:又)?改了(?:一下|一版|一点)(?:[，,][^：:\n]{0,12}?)?"
    # an example of the text wanted, or the words a status or an auto-reply is set to, or a story to go on with:
    # "Something like:", "Set my Slack status to:", "Keep writing:"
    r"|(?i:[^:：\n]{0,60}?\b(?:something|anything)[ \t]+(?:like|along[ \t]+the[ \t]+lines[ \t]+of)(?:[ \t]+this)?)"
    r"|(?i:[^:：\n]{0,40}?\bset[ \t]+(?:my|our|the)[ \t]+[^:：\n.!?]{1,30}?[ \t]+to)"
    r"|(?i:(?:keep|continue|carry[ \t]+on)[ \t]+(?:writing|the[ \t]+story|going)|continue)"
    r"|(?i:[^:：\n]{0,60}?\b(?:wrote|writes|said|says|reads|replied|posted|texted|messaged|e-?mailed|forwarded|got|getting|seeing|sent|sends|"
    r"hear|heard|prints?|printed|shows?|showed|"
    r"left|commented(?:[ \t]+on[ \t]+(?:my|our|the|a)[ \t]+[\w-]+)?|"
    r"throws?|threw|returns|returned|displays?|displayed|fails?[ \t]+with|failed[ \t]+with|(?:message|email|e-mail|review|"
    r"comment|reply|text|note|post|answer|output|error|log|line|sentence|greeting|tagline|slogan|headline|title|caption|"
    r"copy|string|opener|closing[ \t]+line|opening[ \t]+line|sign-?off|status|bio|template|script|"
    r"subject(?:[ \t]+line)?)[ \t]+(?:was|is|reads|read|said|says)(?:[ \t]+(?:just|only|simply))?)"
    # ("I texted my landlord:", "I emailed HR:": whom, before what was sent)
    r"(?:[ \t]+(?:(?:my|our|his|her|their)[ \t]+[a-z]+(?:[ \t]+[a-z]+)?|(?-i:[A-Z][A-Za-z]{1,20})))?"
    # ("I wrote this:", "Tom sent me this:", "It prints this and then exits:")
    r"(?:[ \t]+(?:(?:me|us)[ \t]+)?(?:this|the[ \t]+following|back)(?:[ \t]+(?:feedback|comment|review|message|e-?mail|note|"
    r"reply|text|dm|post|question|request|inquiry|complaint|remittance|invoice|statement|notice|sms|letter|document|"
    r"report|quote|receipt))?(?:[ \t]+and(?:[ \t]+then)?[ \t]+[a-z]+)?"
    # ("We keep getting this in prod:", "Got this from a client:", "My coworker wrote this in the group card:")
    r"(?:[ \t]+(?:in|on|from|at)[ \t]+(?:(?:the|a|an|my|our)[ \t]+)?[\w./-]+(?:[ \t]+[\w./-]+)?)?|[ \t]+(?:me|us))?"
    # ("Your colleague wrote this to me yesterday:")
    r"(?:[ \t]+(?:to|for)[ \t]+(?:me|us|him|her|them|(?:my|our|the|a|his|her|their)[ \t]+[a-z]+(?:[ \t]+[a-z]+)?))?"
    r"(?:[ \t]+(?:yesterday|today|earlier|this[ \t]+morning|last[ \t]+(?:week|night|time)))?"
    r"(?:[ \t]*(?:[,;—–-]|[ \t]and\b|[ \t]but\b)[^:：\n]{0,80}?)?)"
    # its wording to keep: "Reformat as a list, keep the wording:", "整理成列表，不要改字：", "把下面的内容排版一下，文字不要动："
    r"|(?i:[^:：\n]{0,60}?\b(?:keep[ \t]+(?:the|its|my)[ \t]+wording|(?:don'?t|do[ \t]+not)[ \t]+change[ \t]+(?:the|its|my)[ \t]+wording|"
    r"(?:don'?t|do[ \t]+not)[ \t]+(?:remove|change|cut|touch|drop|edit)[ \t]+(?:it|this|that|them|those|anything)|"
    r"wording[ \t]+unchanged)\b[^:：\n]{0,20}?)"
    r"|[^：:\n]{0,30}?(?:不要改字|不改字|字不要改|别改字|文字不要动|不要动文字|措辞不要改)[^：:\n]{0,10}?"
    # said to pass on as written: "Send this to #eng-all, word for word:", "Post it verbatim:"
    r"|(?i:[^:：\n]{0,80}?\b(?:verbatim|word[ \t]+for[ \t]+word|as[ \t]+is|exactly[ \t]+(?:as[ \t]+(?:written|it[ \t]+is)|this|"
    r"like[ \t]+(?:this|so))|this[ \t]+exact[ \t]+(?:[a-z-]+[ \t]+)?(?:opening|wording|text|greeting|line|sentence|phrase|"
    r"sign-?off|closing|footer|signature|disclaimer|header|tagline|slogan|caption|notice|message|copy|paragraph|template|bio))\b"
    r"[^:：\n]{0,40}?)"
    # or prescribed in so many words: "开头必须这样写：", "结尾要这么说："
    r"|[^：:\n]{0,40}?(?:(?:这样|这么|如下)(?:写|说|开头|结尾|回复|回答|回)|(?:写|改|换)成(?:这样|这个样子))[^：:\n]{0,10}?"
    r"|[^：:\n]{0,30}?(?:格式|模板|内容|原文)(?:如下|是这样的?)[^：:\n]{0,12}?"
    # a text named first, then the work on it: "感恩日记，帮我排一下版：", "冰箱便利贴，帮我写可爱一点：", "群里的提醒，帮我理顺一下："
    r"|[ \t]*[\u4e00-\u9fff]{0,6}?(?:日记|备忘录?|便利贴|便签|提醒|留言|纸条|贺卡|卡片|祝福语?|短信|消息|微信|朋友圈|文案|通知|公告)"
    r"[，,][^：:\n]{0,20}?"
    # words to read aloud or chant: "我们做法事时要念的回向：", "这是牧师要念的道歉：", "这是我们诵经结束时念的："
    r"|[^：:\n]{0,24}?(?:要念|要读|要唱|要诵|念的|读的|唱的|诵的|宣读的)[^：:\n]{0,10}?"
    # how to change it, after what it is: "请帮我把这段道歉写得更诚恳一点："
    r"|[ \t]*(?:请|麻烦)?(?:你)?(?:帮我)?把(?:这|下面|以下)[^：:\n]{0,10}?(?:改得|写得|翻得|说得|改成|写成|翻成)[^：:\n]{0,12}?"
    # more of the same work: "谢谢！继续，一条都不要漏："
    r"|[ \t]*继续[^：:\n。！？]{0,20}?"
    # a UI string after what to do with it: "What's the French for: Please wait", "Shorten to 15 chars: Please check …",
    # "Change this label to title case: please select a file"
    r"|(?i:[ \t]*what(?:'s|[ \t]+is)[ \t]+the[ \t]+[a-z]+(?:[ \t]+(?:word|phrase|translation|version))?[ \t]+for"
    r"|[ \t]*(?:and|now|also|then)[ \t]+for"
    r"|[ \t]*(?:please[ \t]+)?(?:shorten|trim|cut|truncate|condense|abbreviate)(?:[ \t]+(?:it|this|the[ \t]+[a-z]+))?[ \t]+to[ \t]+"
    r"(?:under[ \t]+|at[ \t]+most[ \t]+)?\d+[ \t]*(?:chars?|characters|words|letters)?"
    r"|[ \t]*(?:please[ \t]+)?(?:change|convert|put|turn|make)[ \t]+(?:this|it|the[ \t]+following)(?:[ \t]+[a-z-]+)?[ \t]+(?:to|into|in)[ \t]+"
    r"(?:title|sentence|upper|lower)[ \t-]?case)"
    # ("Ok, final version, just fix punctuation: hey jamie …")
    # ("Soften: Stop talking. Thank you.", "Please soften:", "Vary these two comments:")
    r"|(?i:[ \t]*(?:please[ \t]+)?(?:soften|vary|tone[ \t]+down|firm[ \t]+up|warm[ \t]+up)(?:[ \t]+(?:this|it|these|them|these[ \t]+"
    r"(?:two|three|\d+)[ \t]+[a-z]+|the[ \t]+[a-z]+))?)"
    # ("Use this version instead and just fix typos: Hi! Im outside, …")
    r"|(?i:[ \t]*(?:[^:：\n]{0,50}?(?:\band|,)[ \t]+)?(?:just[ \t]+|only[ \t]+)?(?:fix|correct|check)[ \t]+(?:the[ \t]+)?"
    r"(?:punctuation|spelling|grammar|typos|capitali[sz]ation)(?:[ \t]+only)?)"
    # a format given in its words: "Please write a reminder in this format: Hi {name}, … Thanks!"
    r"|(?i:[^:：\n]{0,60}?\b(?:in|using|use|with|follow)[ \t]+(?:this|the[ \t]+following|my|our)[ \t]+(?:exact[ \t]+)?"
    r"(?:format|template|wording)\b[^:：\n]{0,20}?)"
    # ("表白文案帮我看看：")
    r"|[^：:\n]{0,10}?(?:文案|草稿|消息|短信|邮件|回复|稿子|评语|批语|作文|通知|公告)帮我(?:看看|看一下|改改|改一下|润色|缩短|精简|改|翻译)"
    # a count of texts named: "两条评语：", "这三段文案："
    r"|[^：:\n]{0,6}?(?:这|两|二|三|四|五|几|\d+)(?:条|段|句|份|篇|封)[\u4e00-\u9fff]{0,4}?(?:评语|评论|留言|回复|文案|邮件|消息|通知|短信|批语)"
    # words to check for their tone or grammar: "帮我看看语气：…", "麻烦帮我看看语法：我写的是 …"
    # ("这是什么意思：Sorry for the late reply, …")
    r"|[ \t]*(?:请问)?(?:这|这句话?|这段话?|下面的?)(?:是|又是)?(?:什么|啥)意思(?:啊|呀|呢)?"
    r"|[ \t]*(?:请|麻烦)?(?:你)?(?:帮我)?(?:看看|看一下|检查一下|检查|查查|改一下|改改|纠正一下|修改一下|改正一下)(?:这段|这句|下面)?(?:的)?"
    r"(?:语气|措辞|用词|语法|标点|有没有语病)"
    # a message to pass on, to whom: "Tell Jen: sorry, I can't make it tonight, please save me a seat."
    r"|(?i:[ \t]*(?:please[ \t]+)?(?:tell|remind|text|message|e-?mail|dm|ping)[ \t]+(?:(?:my|our|the)[ \t]+[a-z]+(?:[ \t]+[a-z]+)?|"
    r"(?-i:[A-Z][a-z]+)))"
    # a message received: "收到这条私信，不知道怎么回：", "看到一条评论："
    r"|[^：:\n]{0,8}?(?:收到|收到了|接到|看到)(?:一条|这条|这封|这个|一封|这段|一段)[\u4e00-\u9fff]{0,6}?(?:私信|消息|邮件|评论|留言|短信|微信|"
    r"回复)[^：:\n]{0,20}?"
    # words to take out of the text after the colon: "Remove the word 'please' from this:", "去掉客套话："
    r"|(?i:(?:please[ \t]+)?(?:remove|delete|drop|cut|take[ \t]+out|strip)\b[^:：\n.!?]{0,60}?\b(?:from|in)[ \t]+(?:this|these|it|"
    r"the[ \t]+following|my[ \t]+[a-z]+)\b[^:：\n.!?]{0,20}?)"
    r"|[ \t]*(?:请|麻烦|帮我)*(?:去掉|删掉|删除|去除)[^：:\n]{0,12}?"
    # words named to take out or change, then the text: "这条文案太客气了，把“麻烦大家”和结尾的“谢谢”去掉："
    r"|[^：:\n]{0,60}?把[^：:\n]{1,40}?(?:去掉|删掉|删除|删了|去了|换成[^：:\n]{1,20}?|改成[^：:\n]{1,20}?)"
    # a text to post or print as it is: "把这个贴到4号线的看板上：", "打印这个告示放食堂：", "下面这段是贴在设备上的，别改："
    r"|[^：:\n]{0,30}?(?:这个|这段|这条|这份|这张|下面|以下|如下)[^：:\n]{0,20}?(?:张贴|贴(?:到|在|上)|打印|挂(?:到|在)|公布|印(?:出|成)|"
    r"别改|不要改|不能改|勿删|请勿删减|不要删)[^：:\n]{0,20}?"
    r"|[^：:\n]{0,12}?(?:张贴|贴(?:到|在|上)?|打印|挂)(?:一下)?(?:这个|这段|这条|这份|这张)[^：:\n]{0,20}?"
    # an example of it ("类似这样：", "模板大概是这样："), the words the user means to send ("我准备发这个：", "我朋友圈想发这句："),
    # a story to go on with ("继续写："), a message's words dictated ("帮我给老师写条消息：老师好，…")
    r"|[^：:\n]{0,30}?(?:类似|像|大概是|大致是|差不多是|就像)这样(?:的)?"
    r"|[^：:\n]{0,16}?(?:准备|打算|想|要|正要)(?:发|回|说|贴|发布|发出)(?:这个|这句|这条|这段|这些|这么一句|的是)(?:话)?"
    # ("我要回：好的，周四见。请翻译成英文。")
    r"|[^：:\n]{0,6}?(?:我|我们)(?:就)?(?:要|想|打算|准备)(?:回复?|说|发)(?:给[\u4e00-\u9fff]{1,4})?(?:他|她|对方|客户|一句)?"
    r"|[^：:\n]{0,6}?(?:我|我们)(?:要|想|打算|准备|就)?(?:给|跟|向)[\u4e00-\u9fff]{1,6}?(?:发|回|说|写)(?:了)?"
    r"|[ \t]*(?:请|麻烦|帮我)*(?:继续写|接着写|续写|往下写)[^：:\n]{0,10}?"
    r"|[^：:\n]{0,16}?写(?:一)?(?:条|封|段|句|个|张)(?:给[^：:\n]{1,8}?的)?(?:消息|短信|邮件|微信|留言|通知|公告|祝福|贺卡|纸条|小纸条|便条|条子|卡片)"
    r"[^：:\n]{0,8}?"
    # the text named by what is to be done with it: "Reply to grade:", "Text to translate (keep the tone):"
    # (not the speaker's own recap: "So to summarise: no refund, …", "Just to check:")
    rf"|(?i:(?!(?:so|now|well|and|ok|okay|just|briefly|quickly|then)[ \t]+to\b)"
    rf"(?:the[ \t]+)?[a-z][a-z'-]*(?:[ \t]+[a-z][a-z'-]*){{0,3}}[ \t]+to[ \t]+{_TASK_VERB_EN}\b(?:[ \t]*\([^()\n]{{0,60}}\))?)"
    r"|(?P<source>(?i:[^:：\n]{0,80}?\b(?:from|based[ \t]+on|using)[ \t]+(?:these|the[ \t]+following|this|my)[ \t]+"
    r"(?:points|notes|bullets|facts|details|items|data|list|draft|outline|transcript)))"
    r")"
    rf"|[^：:\n]{{0,30}}?{_TASK_VERB_ZH}[^：:\n]{{0,30}}?(?:这段|这篇|这封|这句|这份|这条|这则|这个|这几条|这批|这些|这首|下面|以下|如下|它|成[\u4e00-\u9fff]{{1,3}}[文语])[^：:\n]{{0,30}}?"
    # whom to answer, named: "帮我回一下这个供应商：⏎⏎您好，…⏎⏎告诉他可以分批。"
    r"|[ \t]*(?:请|麻烦)?(?:你)?(?:帮我)?回(?:复)?(?:一下)?(?:这个|这位|这条|这封|这家)?(?:供应商|客户|买家|卖家|顾客|用户|同事|老板|房东|"
    r"租客|工厂|厂家|经销商)[^：:\n]{0,8}?"
    # someone's words named before the request: "这是顾客在美团上的原话，你帮我看看他想表达什么："
    r"|[^：:\n]{0,12}?(?:" + _SENDERS_ZH + r"|用户|顾客|网友|买家)[^：:\n，,。]{0,10}?(?:的?(?:原话|原文|留言|评价|评论|差评|好评|小?纸条|便条|"
    r"作文|日记|信|邮件|消息)|写的|发的|说的)(?:[，,]|——|—)[^：:\n]{0,24}?"
    # ("这条微信消息是我收到的：")
    r"|[^：:\n]{0,16}?是(?:我|我们)(?:收到|接到)的"
    # the text pointed at before the request: "下面是我的求职信草稿，麻烦只改语病，尽量保留我的措辞："
    rf"|[^：:\n]{{0,6}}?(?:下面|以下)(?:是|为)?[^：:\n]{{0,40}}?{_TASK_VERB_ZH}[^：:\n]{{0,30}}?"
    # a bare request to work on what follows: "帮我润色一下 thanks:", "麻烦你帮我翻译：" (a request form before the verb)
    rf"|[^：:\n]{{0,10}}?{_TASK_VERB_ZH}一下[^：:\n]{{0,12}}?"
    # the verb alone as the label of what follows, opening the turn: "分类：谢谢你们，快递三天就到了", "Translate: Thank you
    # so much!" (not "4. Update: Add only the missing commands" in a list of steps)
    rf"|(?P<bare>[ \t]*(?:{_TASK_VERB_ZH}|(?i:(?:please[ \t]+|pls[ \t]+|plz[ \t]+)?(?:{_TASK_VERB_EN}|make[ \t]+(?:it[ \t]+|this[ \t]+)?"
    r"(?:shorter|friendlier|nicer|warmer|clearer|simpler|kinder|softer|longer|better|politer|punchier|tighter)))))"
    # … or what is wrong with it, asked: "Is there anything wrong with: Hello, I hope you are doing well."
    r"|[ \t]*(?i:is\s+there\s+anything\s+wrong\s+with|what'?s\s+wrong\s+with|anything\s+wrong\s+with|"
    r"is\s+(?:this|it)\s+(?:correct|right|natural|ok|okay|grammatical))"
    # … or the check asked for, named: "Grammar check: We kindly ask …", "Tone check:", 语法检查：
    r"|[ \t]*(?i:(?:grammar|tone|spelling|spell|punctuation|typo|wording|style)[ \t]+check|check[ \t]+(?:the[ \t]+)?(?:grammar|tone|"
    r"spelling|wording|punctuation))|[ \t]*(?:语法|语气|错别字|标点|措辞)检查"
    rf"|[ \t]*(?:请|麻烦|帮我|帮忙|请你|请您|麻烦你|麻烦您)(?:你|您)?(?:帮我|帮忙)?(?:把它)?{_TASK_VERB_ZH}(?:成[\u4e00-\u9fff]{{1,3}}[文语])?"
    # reported words: "房东刚给我发微信：", "客户回了一封邮件："
    r"|[^：:\n]{0,12}?(?:" + _SENDERS_ZH + r")(?:刚|刚刚|刚才|又|今天|昨天)?"
    r"(?:(?:给我|跟我|给我们)?(?:发|回|留|写)(?:了)?(?:一条|一封|一段)?(?:微信|短信|消息|邮件|信息|留言|私信)(?:说|如下)?"
    r"|(?:给我|给我们)?(?:发来|发过来|回过来|传来)(?:了)?(?:一条|一封|一段)?(?:的)?(?:英文|中文|英语|日文)?(?:微信|短信|消息|邮件|信息|留言|私信)?(?:说|如下)?)"
    # (what someone posted or wrote, whoever: "客户最后回了：", "说明书上写：", "老师在家长群里发了：", "群公告写着：")
    r"|[^：:\n]{0,16}?(?:发了|回了|写了|写着|上写|写道|回复了|贴了|发的是|回的是)(?:一句|一条|一段|这个|这些|句|条)?"
    # a zh rewrite asked right before the colon: "不用“谢谢”改写：…", "同样改写：…"
    r"|[^：:\n]{0,20}?(?:改写|重写|润色|翻译|翻成[\u4e00-\u9fff]{1,3}|译成[\u4e00-\u9fff]{1,3})(?=[ \t]*[：:])"
    # a translation asked in Korean or Japanese: "다음 중국어를 한국어로 번역해 주세요:", "日本語に訳してください："
    r"|[^：:\n]{0,30}?(?:로[ \t]?번역해|に訳して|に翻訳して)[^：:\n]{0,12}?"
    # what someone said, reported by a reporter: "受访者表示：", "市长李明表示：", "发言人回应称："
    r"|[^：:\n]{1,16}?(?:表示|称|说道|指出|坦言|回应|强调|透露|感慨|直言)"
    # ("我把韩国客户的话用中文转述一下：…")
    r"|[^：:\n]{0,20}?(?:的话|原话)[^：:\n]{0,12}?(?:转述|复述)(?:一下)?"
    # a student's answer to check: "我写的是：谢谢、对不起。对吗？", "孩子的答案是：…"; a role-play's first line: "I'll start: …"
    r"|[^：:\n]{0,16}?(?:写|填|答|选|说|造)的(?:句子?|答案)?(?:是)?|[^：:\n]{0,8}?的答案(?:是)?"
    # the sentence pointed at: "帮我改这句：…", "看看这段："
    r"|[^：:\n]{0,10}?(?:改|看|查|检查|批改|润|翻)(?:一下|下)?(?:这句|这段|这篇|这封|这条)(?:话)?"
    r"|(?i:[^:：\n]{0,80}?\bI(?:'ll|’ll|[ \t]+will)[ \t]+(?:start|begin|go[ \t]+first))"
    # a reply to write for each text listed: "每条帮我写个回复："; the user's own new version: "我改了一下：…这样好吗？"
    r"|[^：:\n]{0,6}?每(?:一)?(?:条|封|个|篇)[^：:\n]{0,20}?(?:写|回|起草)[^：:\n]{0,10}?"
    r"|[^：:\n]{0,6}?(?:我|我们)(?:自己)?(?:改|写|拟|翻|重写)了(?:一下|一版|一个|一句|一段)?"
    # (a reply received: "上一个客服回复我：", "你們客服上次回覆我：", "这是我收到的短信：")
    r"|[^：:\n]{0,12}?(?:客服|商家|卖家|店家|平台|官方|对方|他们|她们|他|她)[^：:\n]{0,6}?(?:回复|答复|回)(?:了)?(?:我|给我|我们)(?:的|说)?"
    r"|[^：:\n]{0,6}?(?:这是|以下是|下面是)?(?:我|我们)(?:刚|刚刚|今天|昨天)?收到的[\u4e00-\u9fff]{1,6}"
    # an error the user got: "我写 SELECT … 报错了：You have an error in …"
    r"|[^：:\n]{0,60}?(?:报错|报了错|出错|错误提示|错误信息)(?:了)?(?:说|如下)?"
    r"|[^：:\n]{0,6}?(?:我|我们)?(?:刚|刚刚|今天|昨天)?收到(?:了)?(?:一封|一条|一段|一则|封|条)?[\u4e00-\u9fff]{0,6}?(?:邮件|短信|消息|微信|信|留言|私信|通知)"
    r"|[^：:\n]{0,20}?(?:发|回|说|留|写)了(?:一句|一条|一段|一封|一篇|这么一句|这样一句|这句|这条|这段)(?:话|微信|短信|消息|邮件|信息|留言|私信)?"
    r"(?:[^：:\n]{0,40}?(?:帮我|麻烦|请)[^：:\n]{0,30}?)?"  # ("我写了一段给客户的道歉信，帮我看看有没有问题，不要大改：")
    # said to pass on as written: "状态页公告，直接按这个发：", "原样转发："
    r"|[^：:\n]{0,30}?(?:原样|原封不动|一字不改|一字不差|一个字都不要?改|照发|照着发|直接(?:按这个)?发|按这个发|逐字|照读|照念)[^：:\n]{0,20}?"
    # the text pointed at before the verb: "帮我把下面这份通知改得更正式一点，意思不要变："
    rf"|[^：:\n]{{0,20}}?(?:把|将|对|给)(?:下面|以下|下列|这)[^：:\n]{{0,20}}?(?:改|换|替换|{_TASK_VERB_ZH})[^：:\n]{{0,30}}?"
    # the words to send back, dictated: "帮我回复他：Sure, thanks for asking!", "跟客户说：…", "Reply to him: …", "Tell her:"
    r"|[^：:\n]{0,10}?(?:回复|回|转告|告诉|跟|对|和)(?:他|她|他们|她们|对方|客户|老板|同事|大家|群里|[\u4e00-\u9fff]{0,4}群|老师|领导|"
    r"患者|病人|家长|顾客|学生|用户|买家|房东)(?:说)?(?:一句|一下|两句|几句)?"
    # ("帮我给前台回个消息：麻烦您转告…")
    r"|[^：:\n]{0,6}?给[\u4e00-\u9fff]{1,8}?(?:回|发|写)(?:个|一个|一条|条|一封|封)(?:消息|短信|微信|邮件|信息|回复|通知)"
    # ("帮我回一句：谢谢，…", "回个消息给面试官：…", "帮我发一句给候选人：…", "这是我想发的：…")
    r"|[ \t]*(?:请|麻烦)?(?:你)?(?:帮我)?(?:在?群里)?(?:回|回复|发|说)(?:一句|两句|几句|个消息|条消息|一条消息)"
    r"(?:给[\u4e00-\u9fff]{1,8}?)?(?:说)?"
    r"|(?:这是|以下是|下面是)我(?:想|要|准备|打算)(?:发|回|说|写)(?:给[\u4e00-\u9fff]{1,8}?)?的"
    # what someone wrote or sent, pasted on the next line: "老师发的：⏎请家长签字…", "医生写的医嘱：⏎1. …"
    r"|[^：:\n]{0,12}?(?:" + _SENDERS_ZH + r"|诊所|医院|学校|物业|公司|班级|幼儿园)(?:群里|群|里|在群里)?(?:写|发|开|回|留)的"
    r"[\u4e00-\u9fff]{0,4}(?:[，,][^：:\n]{0,20}?)?"  # ("学校群里发的：", "这是物业发的，什么意思：")
    # the words to print, use or say, dictated
    r"|(?:" + _DICTATED + r")"
    # what someone said, named, then a question or a request about it: "同事的评论如下，帮我回一下：", "老板的原话如下："
    r"|[^：:\n]{0,16}?的?(?:评论|留言|回复|意见|原话|批注|评语|消息|邮件)(?:如下|是这样的?)(?:[，,][^：:\n]{0,30}?)?"
    # a message named as "this …" on a line that ends with a colon: "Make this family chat message shorter but keep the
    # thank-yous, they matter to my mom: Hi all, …"
    r"|(?i:[^:：\n]{0,40}?\bthis[ \t]+(?:[a-z-]+[ \t]+){0,3}?(?:message|e-?mail|text|note|post|letter|reply|draft|announcement|"
    r"invitation|card)\b[^:：\n]{0,80}?)"
    # the work, then the rest left alone: "改错别字，别的不要动："
    rf"|[ \t]*(?:请|麻烦|帮我)*(?:{_TASK_VERB_ZH})[^：:\n]{{0,12}}?[，,][^：:\n]{{0,12}}?(?:别的|其他|其余|其它)(?:地方|部分|内容)?(?:都)?"
    r"(?:不要|别|不用|不)(?:动|改|变)"
    # someone's message named below: "下面是客户的第二封邮件，帮我再回一封，谢谢："
    r"|[^：:\n]{0,6}?(?:这是|以下是|下面是)[^：:\n，,]{0,16}?的[^：:\n，,]{0,6}?(?:邮件|消息|短信|微信|留言|来信|回复|通知|评论|私信|信|"
    r"模板|文档|文案|稿子|说明)"
    r"(?:[，,][^：:\n]{0,30}?)?"
    # a message someone sent, named, then what to do with it: "这是诊所发来的短信，帮我看看是什么意思：⏎…", "房东发来这条，帮我看看
    # 啥意思：", "This is the message from the clinic, what does it mean:"
    r"|[^：:\n]{0,16}?(?:发来|寄来|发过来|传来|转来|回过来)(?:的[\u4e00-\u9fff]{0,4}?(?:短信|邮件|消息|微信|通知|信息|留言|私信|信|"
    r"公告|回复)|这(?:条|段|封|个|些|几句)(?:话|消息|短信|微信|邮件)?)(?:[，,][^：:\n]{0,30}?)?"
    r"|(?i:[^:：\n]{0,20}?\b(?:this|here)[ \t]+is[ \t]+(?:the|a|an)[ \t]+(?:[a-z-]+[ \t]+)?(?:message|text|sms|e-?mail|letter|notice|"
    r"note|reply|voicemail)[ \t]+(?:from|i[ \t]+got|they[ \t]+sent)\b[^:：\n]{0,80}?)"
    # the text a question is about, named before it: "Count how many times 'thanks' appears:", "Is please needed in:"
    r"|(?i:count\b[^:：\n]{0,60}?|[^:：\n]{0,60}?\b(?:needed|necessary|required|correct|ok|okay|rude|polite|natural|"
    r"grammatical)[ \t]+in)"
    r"|[ \t]*(?:请|麻烦|帮我)*(?:转告|告诉|通知)[^：:\n，,。]{1,8}"  # ("告诉值班同学：麻烦今晚盯一下…": the words to pass on)
    r"|(?i:[^:：\n]{0,20}?\b(?:reply|respond|write\s+back|say|(?:tell|text|message|email|dm|ping)\s+(?:him|her|them)|"
    r"tell\s+(?:the|my|our)\s+[\w-]+(?:\s+[\w-]+)?|write\s+(?=to\s))"
    r"(?:\s*to\s+(?:him|her|them|the\s+\w+|my\s+\w+|(?-i:[A-Z][a-z]+)))?"
    r"(?:\s+for\s+me)?(?:\s+with)?)"
    # a note or a message dictated: "Write a note to the nurse: Please don't …", "Write this as a text to Dr. Patel's office: …"
    r"|(?i:[^:：\n]{0,20}?\bwrite\s+(?:a|an|this\s+as\s+an?)\s+(?:quick\s+|short\s+)?(?:note|text|message|e-?mail|reply|letter|"
    r"card)\s+(?:to|for)\b[^:：\n]{1,40}?)"
    # a template to fill in: "Fill in this template for Jun (start date May 6):"
    r"|(?i:fill\s+(?:in|out)\s+(?:this|the|my|our)\s+(?:template|form|placeholders?)\b[^:：\n]{0,80}?)"
    # a log or an error to look at: "帮我看下日志：", "分析一下这个报错："
    r"|[ \t]*(?:请|麻烦|帮我|帮忙)*(?:看|查|分析|排查|解释)(?:一下|下)?(?:这个|这段|这些|这条)?(?:日志|报错|错误信息|输出|堆栈|错误)"
    # words to say in a group chat: "在群里说一声：", "往家长群里发："
    r"|[^：:\n]{0,6}?(?:在|到|往)[^：:\n]{0,6}?群里?(?:说|发|讲|通知)(?:一声|一下|一句|一条|条|个)?"
    # a voice message put into words: "转文字如下：", "文字版："
    r"|[^：:\n]{0,30}?(?:转文字|转成文字|转写|文字版|语音转文字)(?:如下|是)?"
    # a text given as the model of a new one, its tone and wording the point: "Here's our newsletter from January, write
    # February's in the same tone:", "Here's the email I sent last week, write a new one asking about …:",
    # "这是我去年写给房东的续租邮件，帮我照这个语气写一个今年的："
    r"|(?i:[^:：\n]{0,100}?\b(?:(?:in|with|using|keep(?:ing)?)[ \t]+the[ \t]+same[ \t]+(?:tone|style|voice|format|structure|"
    r"spirit|wording)|(?:same|similar)[ \t]+(?:tone|style|voice)[ \t]+as|modell?ed[ \t]+on|like[ \t]+this[ \t]+one)\b[^:：\n]{0,60}?)"
    r"|(?i:here(?:'s|’s|[ \t]+is)[ \t]+(?:the|my|our|an?)[ \t]+(?:[a-z'’-]+[ \t]+){0,2}?(?:e-?mail|letter|message|note|newsletter|"
    r"post|announcement|memo|speech|toast|bio|reply|invitation|notice|text|out-of-office|note|invite|paragraph|essay|"
    r"conclusion|introduction|intro|answer|sentence|draft|story|poem|summary|abstract|statement|response|paper|report|"
    r"lyrics|lyric|chorus|verse|hook|bridge|song|rap|script|dm|sms|voicemail|comment|review|issue|ticket|bug[ \t]+report|pull[ \t]+request|pr|commit[ \t]+message|"
    r"changelog|release[ \t]+notes|tweet|caption)\b[^:：\n]{0,120}?)"
    r"|(?i:here(?:'s|’s|[ \t]+is)[ \t]+(?:v|version[ \t]*|draft[ \t]*)\d+\b[^:：\n]{0,60}?)"
    r"|(?i:(?:here(?:'s|’s|[ \t]+is)|this[ \t]+is)[ \t]+(?:my[ \t]+)?(?:first|second|third|new|latest|current|revised|rough)[ \t]+"
    r"(?:version|draft|attempt|try|take|cut)\b[^:：\n]{0,60}?)"
    r"|[^：:\n]{0,6}?(?:这是|以下是|下面是)?(?:我的|我写的)?第[一二三四五\d]+版[^：:\n]{0,10}?"
    r"|[^：:\n]{0,40}?(?:照|按|按照|仿照|模仿|参照|参考|学)着?(?:这个|这封|这篇|这段|这种|这条|上面的?|下面的?|它的?|原来的?)(?:语气|"
    r"风格|口吻|格式|写法|文风|调子|样子|感觉)[^：:\n]{0,60}?"
    r"|[^：:\n]{0,6}?这是我[^：:\n]{0,30}?(?:写|发)给[^：:\n]{0,80}?"
    # the words of a message to set up or send, after the request: "Set my out-of-office for medical leave. Message:",
    # "帮我设置自动回复，内容："
    r"|(?i:[^:：\n]{0,80}?\b(?:set(?:[ \t]+up)?|send|post|publish|schedule|turn[ \t]+on|update)\b[^:：\n]{0,60}?[.,;][ \t]*"
    r"(?:the[ \t]+)?(?:message|text|content|body|wording|reply|note))"
    r"|[^：:\n]{0,30}?(?:设置|设|发|发送|群发|发布|贴|回复)[^：:\n]{0,20}?[，,][ \t]*(?:内容|正文|文案)"
    # the user's own draft, named: "我起草的离职申请，帮我检查有没有法律风险：", "我写的邮件，帮我看看："
    r"|[^：:\n]{0,6}?(?:我|我们)(?:刚|刚刚|自己)?(?:起草|草拟|拟|写|准备)(?:好)?的[\u4e00-\u9fff]{1,8}[，,][^：:\n]{0,40}?"
    r"|[^：:\n]{0,10}?(?:仿照|模仿|参照|参考)(?:下面|上面|以下)?(?:这段|这篇|这封|这个|这条|的)[^：:\n]{0,60}?"
    r"|(?i:[^:：\n]{0,80}?\bas\s+(?:a|the|my)\s+(?:template|model|example|sample|reference)\b[^:：\n]{0,80}?)"
    # a short request in two languages: "Can you 翻译 this:", "帮我 translate 成中文：", "帮我 rewrite 一下:", "Please 校对:",
    # "Help translate:", "What's the English for this:", "这句英文对不对："
    r"|(?=[^:：\n]{0,30}[:：])(?=[^:：\n]{0,30}?[\u4e00-\u9fff])(?=[^:：\n]{0,30}?[A-Za-z])"
    r"[^:：\n]{0,14}?(?:翻译|翻成|译成|校对|润色|改写|总结|检查|自然吗|地道吗|通顺吗|对吗|(?i:translate|proofread|rewrite|summari[sz]e|"
    r"polish|check))[^:：\n]{0,16}?"
    r"|(?i:[ \t]*(?:please[ \t]+)?help[ \t]+(?:me[ \t]+)?translate(?:[ \t]+(?:this|it))?)"
    r"|(?i:[ \t]*what(?:'s|[ \t]+is)[ \t]+the[ \t]+[a-z]+[ \t]+for[ \t]+(?:this|it|these|that))"
    r"|[ \t]*(?:这句|这段|这个)(?:英文|中文|英语|日文|话)?(?:对不对|对吗|通顺吗|有没有问题|有语病吗|地道吗)"
    r")(?:[ \t]*[,，]?[ \t]*(?:(?i:please|pls|thanks|thank[ \t]+you|thx)|谢谢|麻烦了|多谢|辛苦了))?(?:\*\*)?[ \t]*[:：]"
)
# what a line must hold before _TASK_INTRO is tried at its colon (most colons head "Rules:", a time or a key)
# (searched in the lower-cased words before the colon: a case-insensitive search costs twice as much)
_TASK_CUE = re.compile(rf"\b{_TASK_VERB_EN}\b|\bdo the same\b|\bsoften\b|\bvary\b|\btone down\b|\bfirm up\b|\bwarm up\b|评语|批语|번역|訳して|\btidy\b|\bclean\s+up\b|\bmake\b|\bturn\b|\bsend\b|\bpost\b|\bpublish\b|\bforward\b|\bshare\b|"
                       r"\bannounce\b|\bverbatim\b|\bword for word\b|\bas is\b|\bexactly as\b|\bexactly this\b|\bexactly like\b|"
                       r"\bthis exact\b|\binto\b|\bwith\b|注明|写明|标明|注上|附上|加上|转文字|转写|文字版|\blook over\b|\bgo over\b|\bleft\b|\bcommented\b|\bnote\b|\bcatchphrase|\bversion\b|\bdraft\b|第[一二三四五\d]+版|\bpaste\b|\benter\b|\btype\b|\bfollowing\b|\bping\b|留言|发给|转给|留给|带给|备注|填|\bexamples?\b|\bsample\b|\bcurrent\b|\blast\b|\bopening\b|\bclosing\b|\bsuch as\b|\bshe\b|\bhe\b|\bthey\b|\bcharacter\b|\bnpc\b|台词|口头禅|例句|副歌|主歌|歌词|第一句|开头一句|最后一句|提示语|\bread\b|\bchange\b|\bupdate\b|\brename\b|\breword\b|\bedit\b|写成|改成|换成|改为|写为|更新|替换|设成|设为|\badd\b|\bput\b|\binclude\b|\binsert\b|\bappend\b|就|只|上面|上边|底部|顶部|背面|正面|\bto [a-z]{2}-[a-z]{2,4}\b|\blike\b|\balong the lines\b|\bset\b|\bkeep\b|"
                       r"\bcontinue\b|\bcarry on\b|\bemailed\b|\be-mailed\b|\bforwarded\b|继续写|接着写|往下写|"
                       r"准备|打算|想发|要发|要回|想回|要说|想说|回|群里|表示|称|说道|指出|坦言|强调|透露|感慨|直言|转述|复述|说一声|\bfill\b|设置成|设成|设为|发给|给[\u4e00-\u9fff]{1,6}?(?:发|回)|写个|写张|写条|写封|写段|写句|写一|通知|替换|"
                       r"这样|这么|如下|原样|原封不动|一字不改|一字不差|一个字都不|照发|照着发|逐字|照读|照念|意思|对不对|对吗|通顺吗|地道吗|"
                       r"\bfor this\b|\bfor it\b|\bcheck grammar\b|\bsummari[sz]e\b|"
                       r"按这个发|直接发|\bwording\b|改字|文字不要动|不要动文字|\bfor$|\bpunctuation\b|\bspelling\b|\bgrammar\b|\btypos\b|帮我看看|\bcase$|\bchars?$|\bcharacters$|\bwords$|\btell\b|\bremind\b|\btext\b|\bmessage\b|\bdm\b|日记|备忘|便利贴|便签|提醒，|留言，|纸条|贺卡|卡片|祝福|短信，|消息，|微信，|朋友圈|文案|通知，|公告，|继续|要念|要读|要唱|要诵|念的|读的|唱的|诵的|写得|改得|\bremove\b|\bdelete\b|\bdrop\b|\bstrip\b|\btake out\b|去除|收到这|接到|看到这|看到一|去掉|删掉|删除|张贴|贴到|贴在|贴上|打印|挂到|挂在|公布|别改|不要改|不能改|勿删|删减|翻成|译成|回复我|回复了我|回我|收到的|收到了|收到一|发来|发过来|回过来|传来|发了|回了|写了|写着|"
                       r"上写|写道|贴了|发的是|回的是|提取|抽取|找出|识别|分类|标注|翻译|改写|润色|润饰|校对|重写|纠错|纠正|改正|订正|"
                       r"修改|修正|摘要|tl;?dr|报错|报了错|出错|错误提示|错误信息|\bgot\b|\bsent\b|\bprint|\bshow|\bthr[eo]w|\boutput|\breturn|\bdisplay|\bfail|\bone\b|\bfrom\b|\bbased\b|\busing\b|\bwr[io]tes?\b|\bsa(?:id|ys)\b|"
                       r"\breplied\b|\bposted\b|\btexted\b|\bmessaged\b|\b(?:was|is|reads?)\b|\breplying\b|\bresponding\b|"
                       r"\bsaying\b|\bgetting\b|\bseeing\b|\bsending\b|\bwrong\b|\breceived\b|\b(?:is|sounds|feels|seems) too\b|\bsends\b|\bhear\b|\bheard\b|原话|原文|纸条|便条|收到的|接到的|写的|\bnatural\b|\bgrammatical\b|\bwhat i have\b|\bhave so far\b|\bwhat i've\b|\bgot\b|\bcame up\b|\ba look\b|\bchanged\b|\bedited\b|\brevised\b|\btweaked\b|\bupdated\b|\breworked\b|\brewrote\b|版本|稿|每条|每一条|每封|改了|写了|翻了|拟了|的是|答案|造的|这句|这段|\bstart\b|"
                       r"写的|发的|开的|留的|用(?:英|中|日|法|德|西班牙|韩|粤)[文语]|"
                       r"\bbegin\b|\bfirst\b|\bcount\b|\bneeded\b|\bnecessary\b|\brequired\b|\bcorrect\b|\bok\b|\bokay\b|"
                       r"\brude\b|\bpolite\b|\bnatural\b|\bgrammatical\b|\b(?:spanish|french|german|italian|portuguese|japanese|korean|chinese|english|russian|"
                       r"arabic|dutch|vietnamese|thai)\b"
                       r"|\btone\b|\bstyle\b|\bvoice\b|\bformat\b|\bstructure\b|\bspirit\b|\bwording\b|\bmodell?ed\b|"
                       r"\bhere(?:'s|’s| is)\b|语气|风格|口吻|格式|写法|文风|调子|样子|感觉|这是我|\breply\b|\brespond\b|"
                       r"\bsay\b|\btell\b|\bback\b|\btext\b|\bmessage\b|\bemail\b|\bdm\b|\bping\b|\btemplate\b|\bmodel\b|"
                       r"\bexample\b|\bsample\b|回复|回他|回她|告诉|转告|跟他|跟她|跟客户|对他|对她|说|仿照|模仿|参照|参考"
                       rf"|{_TASK_VERB_ZH}|改|微信|短信|消息|邮件|信息|留言|私信|一句|一条|一段|一封")
_CUE_WINDOW = 160  # characters before a colon: every intro's verb, "one" or "from" stands within them
# a turn asks for its work before the text it hands over, in its first lines: a colon further on heads a section of a
# long prompt ("Check for:", "Output:"), not the text of a request
_INTRO_WITHIN = 600
_COLONS = re.compile(r"[:：]")
_SENTENCE_STOP = re.compile(r"[.!?。！？][ \t]*")


def _may_open_bare(before: str) -> bool:
    """Whether a verb alone may label the text after it ("分类：…") with ``before`` ahead of it in its turn: nothing, or
    on the same line a short exclamation or question ("麻烦了！分类：…"; not "4. Update: …" in a list of steps), a short
    Chinese sentence of how to do it ("不用谢谢用户，直接说结果就行。改写：…"), or a sentence with a quotation ending it
    ('Replace it with: "Avoid passive voice." Rewrite: The report was …')."""
    before = before.strip()
    return not before or "\n" not in before and (len(before) <= 20 and before[-1] in "！？!?"
                                                 or len(before) <= 60 and before[-1] in "。" and not _LIST_ITEM.match(before)
                                                 or before[-1] in "\"”」』" and before.rstrip("\"”」』")[-1:] in ".!?。！？")


def _task_intros(text: str, s: int, e: int) -> list[re.Match[str]]:
    """The ``_TASK_INTRO`` lines of the first ``_INTRO_WITHIN`` characters of [s, e), in order: tried at the first
    colon of each line when a word ends before it (every intro does; a JSON key, a time or a URL does not), from the
    line's start or a sentence end on it (at most ``_CUE_WINDOW`` characters back), when the words before it hold a
    cue."""
    out: list[re.Match[str]] = []
    line = prev = -1
    for cm in _COLONS.finditer(text, s, min(e, s + _INTRO_WITHIN)):
        c = cm.start()
        ls = text.rfind("\n", s, c) + 1 or s
        if ls == line:
            # a line's later colon only after a sentence that ends after the one before ('…, quoted: "Never use passive
            # voice." Rewrite: The report was written by the team.'), from there
            later = [m.end() for m in _SENTENCE_STOP.finditer(text, prev + 1, c)]
            prev = c
            if not later:
                continue
            ls = later[-1]
            while ls < c and text[ls] in "\"'”’」』)） \t":
                ls += 1
        else:
            line, prev = ls, c
        k = c - 1
        while k >= ls and text[k] in " \t*":
            k -= 1
        if k < ls or not (text[k].isalpha() or text[k] in ")）”」』\"'"  # (a quoted word: 把…“麻烦”换成“烦请”：)
                          or text[k].isdigit() and not text[c + 1:_line_end(text, c + 1, e)].strip(" \t")):
            continue  # (a digit ends an intro only at its line's end: "…我想还价到5300：⏎⏎李先生您好", not "10:30")
        ws = max(ls, c - _CUE_WINDOW)
        if not _TASK_CUE.search(text[ws:c].lower()):
            continue
        starts = ([ls] if ws == ls else []) + [m.end() for m in _SENTENCE_STOP.finditer(text, ws, c)]
        # (or the last clause before it: "Here's the style guide I'm giving to my team, proofread it:")
        clause_starts = [m.end() for m in _CLAUSE_STOP.finditer(text, max(ws, c - _CLAUSE_BACK), c)]
        starts += clause_starts
        # a line that asks for the work and ends at the colon, before a blank line and the text ("Extract the name:⏎⏎Amira
        # Haddad⏎…"): whatever it names, what follows is what the work is done on
        blank = _BLANK_AFTER.match(text, c + 1, e) is not None
        sentence_starts = len(starts) - len(clause_starts)
        for i, p in enumerate(starts):
            m = _TASK_INTRO.match(text, p, c + 1)
            if (m is None or m.end() != c + 1) and i < sentence_starts:
                # (from the line's start or a sentence's: "Thank you for your help earlier. Extract the name:⏎⏎…"); on the
                # same line only after a verb that takes the words as they are ("Extract the name: Hi, I'm John …",
                # "幫我改寫得更正式：嗨，…")
                m = (_VERB_LINE if blank else _SAME_LINE_VERB).match(text, p, c + 1)
                if (m is not None and not blank and _SAYS_HOW.match(text, c + 1, e)
                        and not _BLANK_AFTER.match(text, _line_end(text, c + 1, e), e)):
                    m = None  # "Rewrite the intro: please keep it under 50 words": how to do it, not the words (with
                    # a paragraph after it, that is the text: _task_material starts there)
            if m is not None and m.end() == c + 1:
                out.append(m)
                break
    return out


_CLAUSE_STOP = re.compile(r"[,，][ \t]*")
# what follows a work verb's colon when it says how to do the work rather than giving the words
# (a please opens it only before a verb of the work: "Please, me and him …", "Please just kindly make sure that you …" are
# the text)
_SAYS_HOW = re.compile(r"[ \t]*(?:(?i:(?:please|kindly)[ \t]+(?=(?:keep|make[ \t]+(?:it|them|sure[ \t]+(?:it|the))|use|don'?t|do[ \t]+not|"
                       r"avoid|focus|add|remove|include|answer|reply|respond|only|be|write|return|output|translate|no|just[ \t]+"
                       r"(?:fix|change|correct|edit|keep))\b)|keep|make|use|don'?t|do\s+not|try|add|remove|include|avoid|focus|"
                       r"it\s+should|it\s+must|in\s+(?:a|an|the)\s+\w+\s+(?:tone|style|way))\b"
                       # (a zh text opens with 请 as often: only a request about the manner)
                       r"|(?:麻烦|请)(?:你|您)?(?:用|保持|注意|不要|别|尽量|只)|(?:用|保持|尽量|不要|别|只)[^\n，。：]{0,12}?(?:语气|风格|口吻|格式|字数|译文|翻译))")
# the user's own words after a request line's colon, before a blank line and the text: how to do the work, or a question
# about it ("Fix the bug: I think it's in the loop, could you check?⏎⏎for i in …")
_OWN_ASK = re.compile(r"(?i:\b(?:could|can|would|will)\s+you\b|\bI\s+(?:think|guess|want|need|would\s+like)\b)|能不能|可以吗|帮我看看")


_POLITE_OUTPUT = re.compile(r"(?i:\bplease\b)|请")
# a message named by its sender ("Message from Sarah:", "Text from my landlord:"; the record pattern of _REPORTED takes
# "message from …" before the received one does)
_FROM_SOMEONE = re.compile(r"[ \t]*(?:\*\*)?(?i:message|text|e-?mail|dm|voicemail|letter|reply)[ \t]+from\b")
# a line that asks the assistant for something, after a message passed on ("帮我写个回复…", "How do I answer?")
# … or asking for it further on its line ("Thanks! Please draft an answer: Q3.", "不要用表格。帮我回一下，说不行。")
_ASKS_REPLY_IN_LINE = re.compile(r"(?i:\b(?:draft|write|prepare)\s+(?:an?\s+)?(?:answer|reply|response)\b|\bhelp\s+me\s+(?:reply|respond)\b)"
                                 r"|帮我(?:回|拟|写)|回一下|拟个回答|拟一个回答|怎么回")
# a line asking for the answer to what is above it: "Draft an answer.", "帮我拟一个回答", "请帮我回复"
_DRAFT_LINE = re.compile(r"[ \t]*(?:(?i:(?:please\s+)?(?:draft|write|prepare)\s+(?:an?\s+)?(?:answer|reply|response|statement)\b)|"
                         r"(?:请|麻烦)?(?:你)?(?:帮我)?(?:拟|写|起草)(?:一个|一份|一段|个)?(?:回答|回复|答复|声明))")
_OWN_REQUEST_LINE = re.compile(r"[ \t]*(?:(?:请|麻烦)?(?:你)?(?:帮我|帮忙|帮)|我(?:该|应该|要)?怎么|怎么回|如何回"
                               r"|(?i:(?:can|could|would)\s+you\b|help\s+me\b|please\s+help\b|how\s+(?:do|should|can)\s+I\b|"
                               r"what\s+should\s+I\b|draft\s+a\b|write\s+a\b))")


# a line in the user's own voice that asks the model something: "I cloned the repo and ran npm start. Could you please help
# me fix this? Thanks!", "我现在很焦虑，该怎么安排这一周？谢谢！"
_OWN_VOICE = re.compile(r"[ \t]*(?:我|(?i:I\b|I'm\b|I've\b|my\b|we\b))")
_ASKS_THE_MODEL = re.compile(r"(?i:\b(?:can|could|would)\s+you\b|\bhelp\s+me\b|\bhow\s+(?:do|should|can)\s+I\b|"
                             r"\bwhat\s+should\s+I\b|\bany\s+(?:idea|ideas|tips|advice)\b)|帮我|怎么办|该怎么|如何|能不能帮")


# a question about the message above: "这是录用了吗？谢谢！", "这算拒绝吗？"
_ABOUT_THE_MESSAGE_ZH = re.compile(r"[ \t]*(?:这|那)(?:是|算|样|个|句|条|话)[^。！？\n]{0,12}?(?:吗|么|吧|呢)[？?]")


def _own_asking_line(text: str, a: int, e: int) -> bool:
    """Whether the line at ``a`` is the user's own, asking the model (after a message or an output on a label's line)."""
    le = _line_end(text, a, e)
    return _OWN_VOICE.match(text, a, le) is not None and _ASKS_THE_MODEL.search(text, a, le) is not None \
        or _asks_about_it(text, a, le) or _ABOUT_THE_MESSAGE_ZH.match(text, a, le) is not None


def _past_own_words(text: str, c: int, a: int, e: int) -> int:
    """Where the text handed over after an introducer's colon (at ``c``; ``a``: the first character after it) starts:
    past the rest of the colon's line when that says how to do the work or asks about it and a blank line and the text
    follow ("Translate into French: please answer only with the translation.⏎⏎The meeting is at noon.")."""
    if "\n" in text[c:a]:
        return a
    le = _line_end(text, a, e)
    if not (_SAYS_HOW.match(text, a, le) or _OWN_ASK.search(text, a, le)) or not _BLANK_AFTER.match(text, le, e):
        return a
    while le < e and text[le] in " \t\n":
        le += 1
    return le
_CLAUSE_BACK = 40
_BLANK_AFTER = re.compile(r"[ \t]*\n[ \t]*\n[ \t]*\S")
_ZH_TAKES_WORDS = (r"(?:请|麻烦|帮我|帮忙|给我)*(?:提取|抽取|找出|识别|分类|标注|翻译|改写|润色|润饰|校对|重写|纠错|纠正|改正|订正|摘要|"
                   r"修改|修正|改成|翻成|译成|压缩|缩短|精简|缩写|扩写|改短|删减|(?:只|仅)(?:修|改|调|调整)(?:一下)?(?:格式|排版|标点)|(?:只|仅)?挑错(?:别)?字|(?:只|仅)改错(?:别)?字|"
                   r"(?:看看|看一下|检查一下|检查|查查|查一下|找找|找一下)(?:有没有|是否有|有无|里面的?|一下)?(?:错别字|错字|语病|病句|"
                   r"标点错误))")


def _verb_line(verbs_en: str, words: int, lead: str = "") -> re.Pattern[str]:
    """A request line up to its colon: an English verb of ``verbs_en`` (after a polite ask, and ``lead``), then at most
    ``words`` characters, or a zh verb that takes the words after it (``_ZH_TAKES_WORDS``)."""
    return re.compile(rf"[ \t]*(?:[-*>]+[ \t]*)?(?:\*\*)?(?P<bare>(?!))?(?P<source>(?!))?"
                      rf"(?:(?i:{lead}(?:(?:can|could|would|will)[ \t]+you[ \t]+(?:please[ \t]+)?|please[ \t]+)?{verbs_en}\b"
                      rf"[^:：\n.!?]{{0,{words}}}?)|{_ZH_TAKES_WORDS}[^:：\n。！？]{{0,16}}?)(?:\*\*)?[ \t]*[:：]")


# what may open a request line before its verb ("Now do the same for:", "OK, translate:")
_REQUEST_LEAD = r"(?:(?:ok|okay|now|next|also|and|then)[ \t]*[,!.]?[ \t]+)?"
_VERB_LINE = _verb_line(r"(?:" + _TASK_VERB_EN + r"|clean[ \t]+up|tidy[ \t]+up)", 90, _REQUEST_LEAD)
# a verb whose object is the words after its colon on the same line: extraction, labels, translation
_SAME_LINE_VERB = _verb_line(r"(?:extract|pull[ \t]+out|classify|categori[sz]e|label|tag|identify|detect|translate|fix|tl;?dr|"
                             r"correct|proofread|edit|rewrite|rephrase|paraphrase|polish|reword|tidy[ \t]+up|clean[ \t]+up|"
                             # ("Check the grammar: Please kindly return …")
                             r"check(?=[ \t]+(?:the[ \t]+|my[ \t]+)?(?:grammar|spelling|punctuation|english|typos)\b)|"
                             r"do[ \t]+the[ \t]+same)", 40, _REQUEST_LEAD)  # ("Now do the same for: Rep. Moore admitted …")


_LIST_NEXT = re.compile(r"[ \t]*\n\s*(?:[-*•+]|\d{1,2}[.)、])[ \t]")
# an intro that names the items of the list after it as texts ("Classify the sentiment of each review:", "Answer these
# questions:", "给下面的评论打分："): the list is what the task works on, not its checklist
_ITEM_NOUNS = re.compile(r"(?i:\b(?:reviews?|comments?|messages?|sentences?|headlines?|tweets?|posts?|e-?mails?|tickets?|"
                         r"titles?|phrases?|questions?|utterances?|texts?|quotes?|replies|responses?|answers?|"
                         r"paragraphs?|openers?|lines?|strings?|translations?|notes?)\b)|评论|评价|留言|消息|句子|标题|问题|文本|回复|回答|段落"
                         r"|译文|机翻|文案|推送|字符串|词条|医嘱|处方|通知|短信|邮件")
# a request to translate: the list under it is what to translate ("Release notes, translate to Chinese:⏎- Fixed login …")
_TRANSLATES = re.compile(r"(?i:\btranslat|\blocali[sz]|\binto\s+(?-i:[A-Z])[a-z]+)|翻译|翻成|译成|本地化")
# what the colon of such a line may not head: a list of the steps or rules of the task itself
_TASK_NOT_TEXT = re.compile(r"(?i:as[ \t]+follows|following[ \t]+(?:steps|rules|guidelines|format|instructions|"
                            r"criteria|requirements)|(?:steps|rules|guidelines|format|instructions|criteria|"
                            r"requirements)[ \t]*(?:\*\*)?[ \t]*$)|(?:如下要求|以下要求|要求|步骤|规则|(?<![修改调整])格式)[ \t]*$")
# … but not how a text is to be sent: "Send this to the team in a nicer format: hi all, …"
# … but a text named before it is: "Here is the notice from my landlord, reads as follows:"
_TEXT_AS_FOLLOWS = re.compile(r"(?i:\b(?:notice|letter|e-?mail|message|text|clause|contract|policy|announcement|memo|post|"
                              r"reply|review|comment|sms)\b[^:：\n]{0,40}?\bas[ \t]+follows)")
_IN_A_FORMAT = re.compile(r"(?i:\bin[ \t]+(?:a|an|the)[ \t]+(?:[a-z-]+[ \t]+){0,2}format[ \t]*$)")
# who sends a user the words they paste (for the labels below)
# labels that report whose words or what record follows (material with no verb in the turn): "Ticket #4411 from
# customer:", "Invoice:", "Standup notes:", "输入：", "会议记录：", "这是我的翻译作业："
# the pieces of writing a user drafts and names ("Closing prayer draft —", "Voicemail greeting draft:", "Wedding toast draft —")
_PIECES_EN = (r"prayer|grace|vows?|toast|speech|eulogy|greeting|blessing|message|note|caption|announcement|poem|letter|card|"
              r"script|text|reading|e-?mail|post|intro|outro|flyer|bio|pitch|newsletter|invitation|invite|tagline|slogan|blurb")
_REPORTED = (
    r"(?i:(?:new\s+)?(?:ticket|e-?mail|message|review|complaint)\b[^:：\n]{0,20}?\bfrom\s+[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|[^：:\n]{0,8}?有(?:一)?条(?:新的?)?(?:评论|评价|留言|差评|好评|投诉)"
    r"|(?i:(?:[a-z]{1,10}[ \t]+)?(?:ticket|e-?mail|message|review|complaint|feedback|comment|note)\b[^:：\n]{0,30}?\bfrom\s+"
    r"(?:a\s+|the\s+|our\s+|my\s+)?(?:customer|client|user|guest|patient|buyer|tenant|landlord|boss|"
    r"manager|colleague|hr|school|teacher|bank|recruiter|support|team|company|university|professor|neighbou?r|teammate|reviewer|"
    r"coworker|co-worker|maintainer|lead)s?)"
    # a document or record the label names, or the user's own piece of work
    r"|(?i:(?:(?:our|my|the|this)[ \t]+)?(?:macro|canned[ \t]+(?:reply|response)|saved[ \t]+reply))"  # ("Our macro:⏎Hi {name}, …")
    # a translation given, to be checked: "中文翻译：⏎谢谢", "英文译文："
    r"|(?:中文|英文|英语|日语|日文|韩语|韩文|法语|德语|西班牙语)(?:翻译|译文)"
    # texts compared or studied by a prompt engineer: "Output 1:", "Version B:", 输出1：, 版本A：, "Prompt:", "The model's reply:"
    r"|(?P<compared>(?i:(?:model[ \t]+|assistant[ \t]+)?(?:output|response|answer|completion|reply|generation|version|variant|"
    r"prompt)[ \t]*#?(?:[A-D]|\d{1,2})(?![\w.]))|(?:输出|回答|回复|结果|版本|方案|提示词)[ \t]*(?:[A-D]|\d{1,2}|[一二三四])(?![\w.]))"
    # ("This is the system prompt I'm testing:", "Prompt I'm using:", "这是我写的prompt：")
    r"|(?P<prompt_named>(?i:(?:this[ \t]+is[ \t]+|here(?:'s|[ \t]+is)[ \t]+)?(?:(?:the|my|our|a)[ \t]+)?(?:system[ \t]+)?prompt[ \t]+"
    r"(?:(?:that[ \t]+)?(?:I'm|I[ \t]+am|we're|we[ \t]+are|I|we)[ \t]+(?:currently[ \t]+)?(?:using|testing|trying|running|use|have|wrote))|"
    r"(?:this[ \t]+is[ \t]+|here(?:'s|[ \t]+is)[ \t]+)(?:(?:the|my|our)[ \t]+)(?:current[ \t]+|new[ \t]+|old[ \t]+)?(?:system[ \t]+)?prompt)"
    r"|(?:这是|下面是|以下是)?我(?:写|改|用)的(?:系统)?(?:prompt|提示词)|(?:下面|以下)的?(?:这个|这段)?(?:系统)?(?:prompt|提示词)"
    r"[^：:\n]{0,12}?)"
    r"|(?P<prompt>(?i:(?:(?:my|our|the|this|system|original|current|new|old)[ \t]+)+prompt|prompt)"
    r"|(?:我的|这个|原来的|现在的|新的|旧的|改过的|改后的)?(?:系统)?提示词)"
    r"|(?i:(?:the[ \t]+)?(?:model|assistant|bot|llm|ai|gpt|claude|chatbot)(?:'s)?[ \t]+(?:reply|response|answer|output))"
    # what a moderator is shown: "Reported post:", "Flagged comment (from @kai):", 被举报的帖子：, 用户@小鱼 评论：
    r"|(?P<moderated>(?i:(?:(?:the|this)[ \t]+)?(?:reported|flagged)[ \t]+(?:post|comment|message|dm|reply|review|tweet|thread)s?)"
    r"|被(?:举报|舉報|投诉|投訴)的?(?:帖子|评论|評論|内容|內容|消息|留言|私信|回复|回覆)"
    r"|(?:用户|用戶|网友|網友)?[ \t]*@[^\s：:@]{1,16}[ \t]*(?:的)?(?:评论|評論|留言|回复|回覆|私信|发帖|發帖|说|說))"
    r"|(?i:invoice|receipt|r[eé]sum[eé]|cv|transcript|(?:meeting|standup|stand-up|call|interview)[ \t]+"
    r"(?:notes|minutes|transcript)|minutes|(?:[a-z][\w.-]{0,20}[ \t]+)?(?:error[ \t]+|access[ \t]+)?logs?|stack[ \t]*trace|"
    r"traceback|(?P<input>input)|"
    # a record about someone or something: "Note for patient #A-55102 (outpatient):", "Incident report from site 4:"
    r"(?:(?:clinical|physician|doctor'?s|progress|visit|case|incident|discharge)[ \t]+)?(?:note|notes|memo|record|report|"
    r"chart|summary|feedback|comment|message|review|reply|response|complaint)[ \t]+(?:for|from|of|on|about)[ \t]+"
    r"[^:：\n]{1,40}?)"
    # what an agent observed, a tool or a search returned: "Observation (page text):", "Tool output:", "搜索结果："
    # what a program printed, as a label alone on its line ("Expected:⏎Hello, please sign in", "输出：⏎请稍后"): a bare
    # "Output: JSON only" on one line is an instruction as often
    # (not a bare "Output:" or 输出：, which head the format wanted as often: "Rules:⏎Answer briefly.⏎Output:⏎One line.")
    r"|(?P<printed>(?i:expected|got|actual|error[ \t]+message|console(?:[ \t]+output)?|stdout|stderr)|输出结果|错误信息"
    r"|(?:程序|控制台|终端|命令行|脚本)的?输出|运行结果|打印结果|(?:监控)?(?:告警|报警|警报)(?:内容|信息|原文|详情)?"
    # (what a program or a bot printed or replied, named: "控制台打印：", "发布机器人回复：", "页面提示：")
    r"|(?P<printed_named>[\u4e00-\u9fffA-Za-z]{0,6}?[ \t]?(?:程序|控制台|终端|命令行|脚本|页面|屏幕|系统|界面|机器人|软件|网页|网站|"
    r"小程序|客户端|(?i:bot|app))的?"
    r"(?:打印|显示|提示|返回|回复|报错)(?:了)?(?:的是|的内容是)?)"
    # the words a piece of UI shows, named: "Toast copy:", "Error shown to users:", "toast 文案：", "按钮上的字是："
    r"|(?P<ui>(?i:(?:(?:the|our|my)[ \t]+)?(?:error|toast|banner|button|tooltip|placeholder|popup|pop-up|modal|snackbar|"
    r"empty[- ]state|ui|onboarding|404|confirmation)(?:[ \t]+(?:message|text|copy|string|label|page))?"
    r"(?:[ \t]+(?:shown|displayed)(?:[ \t]+to[ \t]+(?:users|customers|people|visitors))?|[ \t]+(?:that[ \t]+)?users[ \t]+see)"
    r"|(?:toast|banner|button|tooltip|placeholder|popup|pop-up|modal|snackbar|empty[- ]state|ui|onboarding)[ \t]+"
    r"(?:copy|text|string|label))"
    r"|(?i:toast|banner|button|tooltip|popup)?[ \t]?(?:按钮|弹窗|提示框|页面|界面|空状态|占位符|输入框)?[ \t]?(?:上的|里的|的)?"
    r"(?<=[A-Za-z \t钮窗框面态符上里的])(?:文案|文字|字|提示语|文本)(?:是)?))"
    r"|(?P<agent>(?i:observation|(?:tool|command|function|api|query|search|expected|actual|linter|lint|compiler|build|test|"
    r"program|script|server|terminal|shell|cli|eslint|pylint|mypy|tsc|gcc|npm|pip|docker|kubectl|git)[ \t]+"
    r"(?:output|result|results|response|says)|"
    r"search[ \t]+hits|page[ \t]+(?:text|content)|retrieved[ \t]+(?:documents?|passages?|context|chunks?))"
    r"|观察(?:结果)?|工具(?:输出|返回|结果)|搜[索寻]结果|检索结果|页面(?:内容|文本)|接口(?:返回|响应|输出)|返回(?:结果|值)|(?:预期|期望|实际)(?:输出|结果|返回))"
    r"|(?P<input_zh>输入)|发票|收据|简历|日志|报错(?:信息)?|(?:会议|聊天|对话|通话|弹幕|群聊|直播间?|评论区)(?:记录|纪要)"
    # a message's own parts, or a piece to look at: "邮件标题：", "群公告：", "朋友圈：", "Student:", "学生的答案：", "我的邮件
    # 签名：", "My signature:", "Message:" (what a message to set up or send says)
    r"|(?P<subject>邮件(?:标题|主题))|群公告|朋友圈|(?i:student(?:'s)?(?:[ \t]+answer)?|my[ \t]+answer)|学生(?:的)?(?:回答|答案)"
    r"|(?i:(?:my|our)[ \t]+(?:e-?mail[ \t]+)?signature|"
    r"(?:auto-?reply|out-of-office|away|sms|text|push|notification)[ \t]+message)|(?P<message>Message|Ticket|Customer|SMS)"
    r"|我的[\u4e00-\u9fff]{0,4}?(?:签名|草稿|回复|开场白|自我介绍|简介)|[\u4e00-\u9fff]{1,8}?(?:草稿|初稿|修改稿|修订稿|定稿|终稿|送审稿|征求意见稿)"
    r"|[\u4e00-\u9fff]{0,8}?(?:话术|标准回复|统一回复|开场白)(?:是|为)"
    # a message received, named by whose it is or who said it: "Recruiter message:", "Her message:", "My landlord's
    # email:", "My doctor's message in the app:", "Message from Sarah:", "She wrote:", "The nurse told me:", "My manager
    # wrote in Slack:", "Review 2:", 老板的微信：, 客户发的消息：, 客户说：, 评论2：
    r"|(?P<received>(?i:(?:(?:(?:my|our|the|a|an)[ \t]+)?[a-z][\w-]*(?:'s|’s|s')|his|her|their|my|our|" + _SENDERS_EN + r")"
    r"[ \t]+(?:(?:last|latest|first|new|recent|voice-to-text|voice|long|whole)[ \t]+)?"
    r"(?:message|text|e-?mail|dm|reply|response|note|letter|voicemail|review|comment|instructions|feedback|remarks|"
    r"questions?|inquiry|enquiry|post)(?:[ \t]+to[ \t]+(?:me|us))?"
    r"|(?:[a-z][\w-]*[ \t]+)?(?:message|text|e-?mail|dm|reply|note|letter|voicemail)[ \t]+from[ \t]+[^:：\n]{1,30}?"
    # ("The reviewer's exact words:")
    r"|(?:(?:(?:my|our|the|a|an)[ \t]+)?[a-z][\w-]*(?:'s|’s|s')|his|her|their)[ \t]+(?:exact[ \t]+|own[ \t]+)?(?:words|wording)"
    r"|(?:here'?s[ \t]+what[ \t]+)?(?:(?:(?:my|our|the|a|an)[ \t]+)?(?:" + _SENDERS_EN + r"|user|kid|child)|he|she|they)[ \t]+"
    r"(?:(?:just|also|then|literally|actually|even|only|specifically|clearly|already|finally|always|usually|often)[ \t]+)?"
    r"(?:says|said|wrote(?:[ \t]+back)?|writes|texted|emailed|messaged|replied|responded|asked|asks|told|sent|posted|"
    r"commented|shared|tweeted|left)"
    r"(?:[ \t]+(?:me|us|him|her|them))?"
    # ("My mom always says this when we leave:")
    r"(?:[ \t]+this[ \t]+when[ \t]+[^:：\n.!?]{1,30}?)?"
    # ("The teacher sent this to parents:", "Reviewer left this on line 42:", "what the teacher wrote at the bottom of the
    # test:")
    r"(?:[ \t]+this)?(?:[ \t]+to[ \t]+(?:all[ \t]+)?(?:the[ \t]+)?[a-z]+)?"
    r"(?:[ \t]+(?:at|on|under)[ \t]+(?:the[ \t]+)?(?:bottom|top|end|line)(?:[ \t]+of[ \t]+(?:the|my|a)[ \t]+[a-z]+|[ \t]+\d+)?)?"
    # "From the customer:", "From my landlord:"
    r"|from[ \t]+(?:the|a|my|our)[ \t]+(?:" + _SENDERS_EN + r")"
    r"|(?:review|reviewer|comment|message|e-?mail|text|post|tweet|reply|answer|response|customer|user|buyer|guest|client)[ \t]*#?\d{1,3}"
    # ("Policy 3.4: Please note: …")
    r"|(?:policy|section|article|clause|rule)[ \t]*\d+(?:\.\d+)*"
    # the texts of a batch, one after another: "First review: Loved the latte, thank you!", "Next one:", "Review:"
    r"|(?:(?:first|next|second|third|last|another|new)[ \t]+)?(?:customer[ \t]+)?review|(?:first|next|second|third|last)[ \t]+one)"
    r"(?i:[ \t]+(?:in|on|via|over|through|by)[ \t]+(?:(?:the|a|my|our|his|her|their)[ \t]+)?[a-z]+(?:[ \t]+(?:app|portal|chat))?)?"
    r"|(?:(?![你您])[\u4e00-\u9fff]{1,6}?的|[A-Za-z]{2,12}的|[\u4e00-\u9fff]{0,4}?(?:" + _SENDERS_ZH + r"))(?:刚)?(?:发来的|发来|发的|回的)?"
    r"(?:微信|短信|消息|邮件|留言|私信|来信|回复|评论)"
    # ("邮件1：", "1. 邮件（来自财务）：")
    r"|(?:邮件|消息|短信|评论|回复|留言|工单)[ \t]*\d{1,3}|(?:邮件|短信|微信|消息|通知)(?=[ \t]*[（(])"
    # ("我爸口述的：", "我转成文字了：")
    r"|(?:" + _SENDERS_ZH + r")口述的?|[^：:\n]{0,12}?(?:转成文字了?|语音转文字|转写的?)"
    # ("转来候选人的话：", "这是记者的问题：", "用户私信：")
    r"|(?:这是|以下是|下面是|[^：:\n，。]{0,8}?(?:转来|转发了?|发来|转给我))?(?:" + _SENDERS_ZH + r"|用户)的?(?:原话|话|问题|提问)"
    r"|(?:用户|观众|粉丝|网友|打赏|礼物|醒目|直播间|(?i:sc)|客户|顾客|买家|品牌方?|商家|博主)?(?:发来的|发的)?(?:私信|留言|评论)"
    # (not the user's own comment on the last answer: "评论：我觉得你上一个回答太长了，谢谢")
    r"(?![ \t]*[:：][^\n]{0,20}?你(?:上一?个|刚才|之前|的)(?:回答|回复))"
    r"|(?:[\u4e00-\u9fff]{0,4}?群里)?(?:" + _SENDERS_ZH + r"|用户|有人)(?:刚|刚刚|刚才|又|今天|昨天)?(?:[ \t]*在[^：:\n，,。]{1,12}?)?"
    r"(?:批注|评语|批语|评论)?(?:说|问|写道|写|回复说|回我说|回复我|回我|私信我|私聊我|微信我|发来|给我留言|留言|"
    r"回信(?:就|只有)?(?:一句|一段)?(?:话)?|在?群里发了?|发(?:给)?我|给我发了?|发了?)|(?:评论|留言)\d{1,3})"
    # the original words of a message or alert, whatever it is called: "PagerDuty 原文：", "告警原文："
    r"|[\u4e00-\u9fffA-Za-z\d#_-]{0,16}[ \t]?(?:原文|原话)"
    r"|(?:这是|以下是|下面是)(?:我|我们|我儿子|我女儿|孩子|学生)(?:写|改|编|作)?的[\u4e00-\u9fff]{0,6}?(?:作业|作文|翻译|答案|文章|简历|模板|文案|通知|"
    r"公告|话术|欢迎语|诗|诗歌|歌词|小说|故事|剧本|散文|台词|章节|"
    r"代码|稿子|论文|草稿|邮件|回答|作品|日记|周记)"
    # the user's own piece or one they hold, named: "My tweet:", "Verse 2 draft:", "My manager's template:", "Policy
    # excerpt:", "Gift message for order 5521:", "买家备注："
    r"|(?i:(?:(?:my|our)[ \t]+(?:[a-z][\w-]*(?:'s|’s|s')[ \t]+)?|(?:the[ \t]+)?[a-z][\w-]*(?:'s|’s|s')[ \t]+)(?:[a-z-]+[ \t]+){0,2}?(?:tweet|post|caption|bio|draft|template|"
    r"status|opener|toast|speech|announcement|notice|ad|listing|description|script|version)"
    # ("My note for the babysitter:")
    r"|(?:my|our)[ \t]+(?:[a-z-]+[ \t]+)?(?:note|message|letter|card|memo|reminder|text)[ \t]+(?:for|to)[ \t]+"
    r"(?:(?:the|my|our)[ \t]+)?[a-z]+(?:[ \t]+[a-z]+)?"
    # a statement to work on: "Statement: We apologise for …", "Press release:", "声明：…", "致歉声明："
    r"|(?:the[ \t]+)?(?:(?:media|press|holding|public)[ \t]+)?(?:statement|press[ \t]+release))"
    r"|(?:致歉|道歉|官方|媒体)?声明|新闻稿|通稿|回应口径"
    r"|(?i:(?:verse|chorus|stanza|section|paragraph|intro|outro|bridge)[ \t]*\d{0,2}[ \t]+draft|"
    r"(?:policy|contract|article|handbook|terms)[ \t]+excerpt|excerpt|"
    # a piece of writing by its kind, alone on the label's line: "Scene:⏎⏎MARIA⏎Hi!", "Lyrics:⏎…", "Chapter 4 draft:⏎…"
    r"(?:scene|poem|lyrics|screenplay|dialogue|(?:chapter|act|episode|part)[ \t]*\d{1,3}(?:[ \t]+draft)?)(?=[ \t]*(?:\*\*)?[ \t]*:[ \t]*\n)|"
    r"(?:gift|card|engraving|greeting|donation|tip|super[ \t]?chat|cheer)[ \t]+(?:message|text|note)(?:[ \t]+for[ \t]+[^:：\n]{1,30}?)?|engrave|inscription)"
    r"|(?:买家|卖家|客户|用户|订单)备注|贺卡(?:内容|文字)"
    r"|(?:场景|剧本|诗|歌词|台词|第[一二三四五六七八九十\d]+[章幕场])(?=[ \t]*(?:\*\*)?[ \t]*[:：][ \t]*\n)"
    # a sentence of a document, quoted by where it stands: "合同里有一句：…", "协议中写着这么一段："
    r"|(?:合同|协议|条款|规定|文件|邮件|通知|信|文章|书|论文|报告)(?:里|中|上)(?:有|写了?|规定了?|写着)?(?:这么|这样)?(?:一句|一条|一段)(?:话)?"
    # a notice or a rule someone issued, named: "公司通知：", "物业的通知如下：", "以下是我们公司考勤制度的一段：", "The notice
    # reads as follows:"
    r"|[\u4e00-\u9fff]{0,8}?(?:通知|公告|告示|公示|规定|制度|条款|守则|须知)"
    r"|(?:以下是|下面是|这是)[^：:\n]{0,20}?的(?:一段|一部分|节选|原文|摘录|一条|其中一条)"
    r"|(?i:(?:the|my|our|their|this|his|her)[ \t]+(?:[a-z-]+[ \t]+){0,3}?(?:notice|letter|e-?mail|policy|clause|contract|"
    r"lease|message|memo|announcement|sign|section|paragraph|rule)[ \t]+(?:reads|says|states)(?:[ \t]+as[ \t]+follows)?)"
    r"|(?i:here(?:'s|\s+is|\s+are)\s+(?:my|our|his|her|the)\s+(?:[a-z-]+\s+)?(?:sql|query|script|config|stack\s+trace|traceback|"
    r"output|logs?|homework|assignment|answers?|"
    r"translation|essay|work|draft|letter|cover\s+letter|resume|code|opening|intro|introduction|pitch|speech|toast|script|"
    r"greeting|reply|response|message|e-?mail|bio|post|paragraph|sentence|answer|clause|provision|contract|agreement|lease|"
    r"nda|statute|article|terms)(?:,[ \t]+[^:：\n.!?]{1,60}?)?)"  # ("Here's the clause, unquoted because it came from a PDF:")
    # what a translation grader is shown: "Source (zh):", "Candidate:", "Reference:"; a corpus row by its number: "第59行："
    r"|(?P<graded>(?i:source[ \t]*\([a-z]{2,3}(?:-[a-z]{2,4})?\)|candidate(?:[ \t]+translation)?|reference[ \t]+translation|"
    r"hypothesis|mt[ \t]+output|system[ \t]+output)|第[\d一二三四五六七八九十百]{1,5}(?:行|条|句))"
    # rules of a team or a place, to be made into a poster or a sign: "Our team rules are:", "The pool rules are:"
    r"|(?i:(?:our|my|the)[ \t]+(?:team|club|house|class|classroom|school|office|gym|pool|league|family)[ \t]+"
    r"(?:rules|guidelines|motto|values|policy)[ \t]+(?:are|is))"
    r"|我们的?(?:团队|宿舍|班级|俱乐部|公司|办公室|家庭|球队)(?:规则|守则|公约|规定)(?:是|如下)"
    # what the user sent, or someone sent them: "这是我发的：", "女朋友发来一段话："
    r"|(?:这是|以下是|下面是)我(?:发|写|回)的|[\u4e00-\u9fff]{1,6}?(?:发来|发了|回了|说了)(?:一段话|一句话|一条消息|一段|这个|这些|一条)"
    # a message, a note or a card named by whom it is for: "Text to Jen, fix typos only:", "Reminder for Dad (he's 78, keep it
    # simple):", "Note to self:", "给我爸的提醒（…）：", "日记：", "备忘录里给自己的话："
    r"|(?i:(?:text|message|note|reminder|card|e-?mail|dm|letter)[ \t]+(?:to|for)[ \t]+(?:[a-z][\w'’-]*[ \t]*){1,3}"
    r"(?:\([^)\n]{0,60}\))?(?:,[^:：\n]{0,40})?)"
    r"|给[\u4e00-\u9fff]{1,6}?的(?:提醒|留言|消息|短信|微信|信|卡片|贺卡|纸条|便条|话)(?:（[^）\n]{0,30}）)?"
    r"|(?:[\u4e00-\u9fff]{0,4}?日记|备忘(?:录)?(?:里)?(?:给自己的话)?|给自己的话|便利贴|便签)"
    # a piece to be said, named as a draft or by its occasion: "Voicemail greeting draft:", "My vows:", "Speech for my
    # sister's wedding (read aloud):"
    r"|(?i:(?:[a-z-]+[ \t]+){0,3}?(?:" + _PIECES_EN + r")(?:[ \t]+[a-z-]+){0,3}?,?[ \t]+draft(?:[ \t]*\([^)\n]{0,30}\))?"
    r"|(?:my|our|his|her|their)[ \t]+(?:wedding[ \t]+)?vows"
    r"|(?:speech|toast|eulogy|vows|prayer|blessing|reading|grace)[ \t]+(?:for|at)[ \t]+[^:：\n]{1,40}?(?:[ \t]*\([^)\n]{0,30}\))?)"
    # words to be said at an occasion: "My closing words for the memorial:", "Our officiant's final words:"
    r"|(?i:(?:my|our|his|her|their|the)[ \t]+(?:[a-z][\w-]*(?:'s|’s|s')[ \t]+)?(?:closing|opening|final|last|parting|welcoming)[ \t]+"
    r"(?:words|lines|blessing|prayer|toast|remarks)(?:[ \t]+(?:for|at)[ \t]+[^:：\n]{1,30}?)?)"
    # a clause or an article by its number: "Clause 14: Either party may …", "Art. 5:", "§ 3(b):"
    r"|(?i:(?:clause|article|art\.|§)[ \t]*\d{1,3}(?:\.\d{1,3})*(?:[ \t]*\([a-z0-9]{1,3}\))?)"
)
# a label at a line start before the text it names, on the same line ("Paragraph 2: In my last job …"), or before the
# lines of a record ("会议记录（3月21日）：") — when the request names the same thing ("polish the second paragraph")
_TEXT_LABEL = re.compile(r"[ \t]*(?:\*\*)?((?i:paragraph|draft|email|e-mail|letter|sentence|phrase)(?=[ \t]*\d{0,2}(?:\*\*)?"
                         r"[ \t]*:[ \t]*\S)(?:[ \t]*\d{1,2})?|第[一二三四五六七八九十\d]+段|(?:会议|聊天|对话|通话|访谈|弹幕|群聊|直播间?)?记录|邮件|草稿"
                         r"|(?P<self>[\u4e00-\u9fff\d#]{0,8}?(?:内容|原文|正文|评论|评价|留言|反馈|作文|文章|文本)|Text(?:[ \t]+below)?|The[ \t]+text"
                         # (a line to translate, a subtitle, a caption: "Subtitle: Sorry, thanks for waiting.⏎Translate to
                         # German.", "字幕：…⏎帮我翻成英文")
                         # (not a field of a record: "line: 42-58")
                         r"|(?P<opening>(?i:line|subtitle|caption|dialogue)(?=[ \t]*\d{0,2}(?:\*\*)?[ \t]*:[ \t]*[^\s\d])(?:[ \t]*\d{1,2})?"
                         r"|字幕|台词)"
                         r"|(?i:(?:customer|client|original)(?:'s)?[ \t]+(?:message|e-?mail|complaint|"
                         r"review|comment|ticket|feedback|reply|post|text)|complaint)"
                         r"))"
                         r"(?:[ \t]*[（(][^）)\n]{0,40}[）)])?(?:\*\*)?[ \t]*[:：]")
# (tried first: "会议记录：" is a record whatever the turn asks, not a label the request must name)
_REPORTED_LABEL = re.compile(r"[ \t]*(?:\*\*)?((?P<self>(?P<reported>" + _REPORTED + r")))"
                             r"(?:[ \t]*[（(][^）)\n]{0,40}[）)])?(?:\*\*)?[ \t]*(?:如下|如下所示)?[:：]")
_TASK_VERB = re.compile(rf"(?i:\b{_TASK_VERB_EN}\b|\b(?:turn|make|convert|transform)\s+(?:this|these|it|them|that|those|the|my)"
                        rf"(?:\s+[a-z-]+){{0,6}}\s+(?:into|sound|look|read|feel)\b"
                        # ("Make this reply more sincere, please.⏎⏎Sorry for the inconvenience. …")
                        rf"|\bmake\s+(?:this|it|my|the)(?:\s+[a-z-]+){{0,2}}\s+(?:more|less)\s+[a-z-]+"
                        # ("Make this friendlier!", "pls make shorter:")
                        rf"|\bmake(?:\s+(?:this|it|my|the)(?:\s+[a-z-]+){{0,2}})?\s+(?:friendlier|shorter|nicer|warmer|clearer|simpler|"
                        rf"kinder|softer|longer|better|politer|punchier|tighter)\b)"
                        # (改短 / 改得更…: "把这条短信改短一点。")
                        rf"|{_TASK_VERB_ZH}|改(?:短|长|简单|简洁|正式|礼貌|客气|亲切|通顺)")
# a short paragraph that asks for the work on the rest of the turn ("Could you please explain this clause in plain
# English?", "here is my essay, please grade it honestly", "帮我整理成待办清单，按负责人列"): what it points at, or a
# request form opening it ("can you summarize …", "帮我整理…")
_REQUEST_POINTER = re.compile(r"(?i:\b(?:this|these|it|the\s+following|below|above|my\s+[a-z]+|the\s+(?:essay|e-?mail|"
                              r"clause|message|text|review|log|letter|passage|paragraph|article|story|poem|code|error|"
                              r"document|draft|transcript|chat|thread|contract|notes?)s?)\b)"
                              r"|下面|以下|如下|上面|以上|这段|这篇|这封|这首|这则|这句|这几句|这条|这份|这几条|这些|这个|这批|它|原文|内容"
                              r"|呢个|呢封|呢段|呢篇|呢条"  # (Cantonese: "帮我睇下呢个email有冇错字")
                              r"|次の|以下の|下記の|この(?:文|メール|文章)|다음|아래"  # (Japanese, Korean: "次の文を…", "다음 중국어를…")
                              # the text named as what "this" is: "这是发到群里的通知，帮我检查下错别字"
                              r"|(?:这是|这就是)[^，,。\n]{0,16}?(?:通知|公告|邮件|文案|消息|草稿|回复|稿子|文章|简历|说明|描述|提示词|"
                              r"评论|留言|段落|声明|信)(?=[，,。：:])"
                              # the text named as the verb's object: "把会议纪要整理成待办"
                              r"|(?:把|将)[\u4e00-\u9fff]{0,4}?(?:纪要|记录|笔记|邮件|文章|评论|日志|报告|合同|通知|对话|稿子|文案|诗)")
_REQUEST_FORM = re.compile(rf"[ \t]*(?:(?i:(?:hi|hello|hey|ok|okay)\b[^.!?\n]{{0,30}}?[,.!]\s*)?(?i:(?:please|pls|can|could|"
                           rf"would|will)\s+(?:you\s+)?(?:please\s+)?)?(?i:{_TASK_VERB_EN})\b"
                           rf"|(?:请|请你|请您|麻烦|帮我|帮忙|麻烦你|麻烦您)?(?:帮我|帮忙)?(?:把|将)?(?:{_TASK_VERB_ZH}))")
_FENCE_MARKS = ("---", "——", "___", "***", "===", "<<<", ">>>", '"""', "'''")
_LABEL_WORDS = ("差评", "好评", "投诉", "告警", "报警", "警报", "字", "文本", "hown", "isplayed", " see", "opy", "tring", "abel", "aragraph", "raft", "mail", "etter", "entence", "ine", "ubtitle", "aption", "hrase", "ialogue", "uestion", "acro", "anned", "aved reply", "nstructions", "emarks", "字幕", "台词", "段", "记录", "邮件", "草稿", "内容", "原文", "正文", "评论", "作文",
                "文章", "文本", "评价", "留言", "反馈", "ext", "ustomer", "lient", "riginal", "omplaint", "icket",
                "nvoice", "eceipt", "esume", "inutes", "ote", "eport", "eedback", "nput", "ranscript", "og", "race", "输入", "发票", "收据",
                "简历", "日志", "报错", "纪要", "我的", "ere", "bservation", "utput", "esult", "esponse", "hits", "age t",
                "age c", "etrieved", "观察", "工具", "搜索结果", "搜寻结果", "检索结果", "页面", "接口", "返回", "预期", "期望", "实际",
                "xpected", "Got", "got", "UTPUT", "rror", "onsole", "stdout", "stderr", "输出", "错误信息", "ctual",
                "essage", "eply", "esponse", "etter", "oicemail", "eview", "omment", "says", "said", "rote", "rites",
                "exted", "mailed", "eplied", "sponded", "sked", "sks", "told", "sent", "DM", "运行结果", "微信",
                "短信", "消息", "留言", "私信", "来信", "回复", "说", "问", "写道", "的话", "原话", "问题", "提问", "模板", "文案", "话术", "欢迎语", "公告", "通知",
                "tudent", "学生", "打印", "显示", "提示", "weet", "tatus", "pener", "emplate", "xcerpt", "备注", "贺卡", "oast",
                "peech", "nnouncement", "otice", "isting", "escription", "cript", "ersion", "aption", "post", "bio",
                "原话", "发来", "发：", "发了：", "发我", "给我发", "写：", "tatement", "elease", "声明", "新闻稿", "通稿", "口径", "irst one", "ext one", "olicy ", "ection ", "icket", "口述", "转成文字", "文字了", "私信我", "私聊我", "回信", "ords", "ngrave", "nscription", "话术", "标准回复", "统一回复", "被举报", "被舉報", "被投诉",
                "被投訴", "eported", "lagged", "@", "rompt", "提示词", "prompt", "翻译", "译文", "版本", "方案", "输出", "回答", "结果",
                "cene", "oem", "yrics", "creenplay", "hapter", "ct", "pisode", "art", "场景", "剧本", "诗", "歌词", "章：", "章:", "幕：", "幕:",
                "场：", "场:", "lause", "rticle", "rt.", "§", "一句", "一条", "一段", "稿：", "稿:", "ource", "andidate", "eference",
                "ypothesis", "行：", "条：", "句：", "eminder", "raft", "ows", "peech", "rayer", "race", "我发的", "我写的", "我回的", "ules are", "olicy is", "otto is", "规则是", "守则是", "公约是", "发来", "发了", "回了", "说了", "日记", "备忘", "给自己", "便利贴", "便签", "的提醒")
# a rule line that fences the text a turn hands over ("---", "———", "***", "===")
_FENCE_RULE = re.compile(r"^[ \t]*(?:-{3,}|—{2,}|_{3,}|\*{3,}|={3,}|<{3,}|>{3,}|\"{3}|'{3})[ \t]*$", re.MULTILINE)
# a paragraph after the text that says what it was: "——以上是我要发给老师的邮件，请帮我看看语气", "That's the email."
_TRAILING_REFERENCE = re.compile(
    # a last line that asks for work on the text above it by name: "把这条快捷回复翻译成英文", "帮我优化这个脚本", "Tighten up this
    # script."
    r"^[ \t]*(?:(?:请|麻烦)?(?:你)?(?:帮我)?把(?:这(?:条|段|个|篇|封)|上面的?|以上的?)[^。！？\n]{0,10}?(?:翻译|翻|译|改写|润色|优化|缩短|精简|整理)"
    r"|(?:请|麻烦)?(?:你)?(?:帮我)?(?:优化|改|润色|缩短|精简|翻译)(?:一下)?(?:这个|这段|这条|上面的?)[^。！？\n]{0,6}?(?:脚本|话术|文案|稿子|回复|内容)"
    r"|(?i:(?:please\s+)?(?:tighten(?:\s+up)?|polish|shorten|improve|rewrite|translate|edit|fix)\s+(?:up\s+)?(?:this|that|the\s+above)\s+"
    r"(?:script|copy|text|message|reply|post|caption|draft|speech|toast)\b"
    # ("…⏎⏎Make this more formal please.")
    r"|(?:(?:can|could)\s+you\s+)?(?:please\s+)?(?:make|rewrite|reword)\s+(?:this|that|the\s+above)\s+(?:more|less|sound|a\s+bit|"
    r"a\s+little|shorter|longer|friendlier|warmer|nicer|clearer)\b))[^\n]{0,40}$"
    r"|"
    r"^[ \t]*(?:[-—_*=^]+[ \t]*)?(?:(?:以上|上面)(?:是|为|就是|这)[^。！？\n]{0,20}?(?:邮件|信|文章|内容|文字|段落|稿|简历|作文|文案|回复|"
    r"消息|通知|发言|材料)|(?i:(?:that's|that\s+is|this\s+is|the\s+above\s+is|above\s+is)\s+(?:my|the|our)\s+"
    r"(?:draft|email|e-mail|letter|message|text|post|reply|note|announcement|push|notification|toast|copy|string|banner|"
    r"popup|pop-up|tweet|caption)\b)"
    # "——以上翻成英文", "上面这段润色一下"
    r"|(?:以上|上面)(?:的|这段|这些|这几句)?(?:内容|文字)?[^。！？\n]{0,6}?(?:翻成|翻译成|译成|翻译为|翻译|改成|润色|校对)"
    # a line that points up at it: "^ how do I make this sound less like a template", "↑ 帮我看看"
    r"|(?:\^|↑)[ \t]*(?=[A-Za-z\u4e00-\u9fff])"
    # whose it was, after it: "这是物业发的，我想问…", "This was posted in my building.", "My landlord sent this."
    r"|(?:(?:这|上面|以上)(?:个|条)?(?:是|就是)[^，,。！？\n]{0,10}?)?(?:" + _SENDERS_ZH + r"|群里|楼道|门口|电梯里?|物业|班主任|学校|公司)"
    r"(?:在群里|群里)?[^，,。！？\n]{0,6}?(?:发|贴|写|寄|留|给|转)(?:来|出|过来|给我|发给我)?的"
    # (or that the user wrote it, for someone: "这是我要发给老师的，这样写可以吗？", "我写的，帮我看看语气", "是诈骗吗？")
    r"|(?:这|上面|以上)?(?:是|就是)?我(?:自己)?(?:要|准备|打算|想)?(?:发给|写给|回给)[^，,。！？\n]{1,10}?的|(?:这是)?我(?:自己)?写的"
    r"|是(?:诈骗|骗子|骗局|真的|钓鱼)(?:吗|么|嘛)"
    r"|(?i:this[ \t]+(?:was|got)[ \t]+(?:posted|put[ \t]+up|taped|stuck|left|slipped|sent|pinned)\b"
    r"|(?:my|our|the)[ \t]+(?:" + _SENDERS_EN + r")[ \t]+(?:just[ \t]+)?(?:sent|posted|wrote|left|texted|e-?mailed|forwarded)"
    r"[ \t]+(?:me[ \t]+|us[ \t]+)?(?:this|that)\b"
    # ("From my HOA. Can they do that?", "Got this from an unknown number. Scam?", "Left on my door.", "I wrote this to my
    # manager. Too pushy?")
    r"|(?:(?:this|it)(?:'s|[ \t]+is|[ \t]+was|[ \t]+came)[ \t]+)?from[ \t]+(?:my|our|the|a|an)[ \t]+[a-z]+(?:[ \t]+[a-z]+)?\b"
    r"(?=[ \t]*[.!,?])"
    r"|(?:I[ \t]+)?got[ \t]+(?:this|it)[ \t]+(?:from|on|in)[ \t]+(?:my|our|the|a|an)\b"
    r"|(?:left|posted|taped|stuck|slipped|put)[ \t]+(?:on|under|in|at|through)[ \t]+(?:my|our|the)\b"
    r"|I[ \t]+(?:wrote|drafted|typed)[ \t]+(?:this|it)\b"
    r"|(?:I[ \t]+)?(?:just[ \t]+)?(?:got|received)[ \t]+this(?:[ \t]+(?:e-?mail|text|message|letter|sms|dm|note|voicemail))?\b"
    r"|(?:my|our)[ \t]+[a-z]+[ \t]+(?:got|received)[ \t]+(?:this|it)\b"
    # ("Is this legit?", "Is this email legit?" on the line after the text)
    r"|(?:is|was)[ \t]+(?:this|it)(?:[ \t]+(?:e-?mail|text|message|sms|letter|call|link))?[ \t]+(?:legit|legitimate|real|a[ \t]+scam|"
    r"genuine|safe|phishing)\b)"
    r"|这(?:是|个是|条是)?(?:诈骗|骗子|骗局|真的|钓鱼)(?:吗|么)|[\u4e00-\u9fff]{1,4}?收到的(?:短信|邮件|消息|信息|微信)?"
    # ("收到这条短信，…", "刚收到的邮件", "快递公司发来的")
    r"|(?:我)?(?:刚|刚刚)?收到(?:的)?(?:这条|这封|一条|一封)?[\u4e00-\u9fff]{0,4}?(?:短信|邮件|消息|信息|微信|私信|通知)"
    r"|[\u4e00-\u9fff]{1,8}?发来的"
    # a paragraph that asks about the words of a short one above it: "感谢配合⏎⏎这四个字放在通知结尾合适吗？", "Thanks!⏎⏎My
    # landlord replied with just that one word. …"
    r"|(?<=\n\n)(?P<words>[^\n]{0,30}?(?:这|这[一二两三四五六七八九十几\d]+)个?(?:字|词)|这句话?(?=[^\n]{0,20}?[吗么嘛？?])"
    r"|(?i:[^\n]{0,80}?\b(?:that|this|those|these)[ \t]+(?:one[ \t]+|two[ \t]+|three[ \t]+|single[ \t]+)?(?:word|words|phrase)\b"
    r"|[^\n]{0,60}?\b(?:replied|answered|responded|wrote|texted|said)\s+(?:back\s+)?(?:with\s+)?(?:just|only)\s+(?:this|that)\b))"
    # whose note it was, opening the paragraph after it: "邻居贴在我车上的，我该怎么回？"
    r"|(?<=\n\n)(?:" + _SENDERS_ZH + r")(?:贴|发|写|留|塞|放)(?:在|到|给)?[^，,。！？\n]{0,8}?的(?=[，,。！？])"
    # a paragraph that asks about the text above it, alone after a blank line: "这样写可以吗？", "审稿人这样说，我们该怎么办？"
    r"|(?<=\n\n)(?:(?:这样|这么)(?:写|说|回|改)(?:可以|行|合适|好|得体|妥当|对)(?:吗|不|么|嘛)|[\u4e00-\u9fff]{1,6}?(?:这样|这么)说[，,。？?])"
    # … and the turn's last line, in Chinese or English: "太客气了吗？", "Too blunt?", "Is this status page text OK to
    # publish?", "Can you make this Slack message shorter?", "Should the status page end with that line or is it too cliché?"
    r"|(?:(?<=\n\n)(?:(?:这样|这么)(?:写|说|回|改|开头|结尾|发|回复|措辞)?[^。！？\n]{0,10}?(?:可以|行|合适|好|得体|妥当|对|生硬|正式|"
    r"礼貌|客气|自然|通顺|奇怪|太[\u4e00-\u9fff]{1,3})[^。！？\n]{0,6}?[吗么嘛？?]"
    r"|太[\u4e00-\u9fff]{1,3}了?(?:吗|么|嘛|不)?[？?]"
    # ("…谢谢！⏎⏎这是真的吗", "是骗子吗", "Is this legit or a scam")
    r"|[^\n]{0,40}?(?:真的|骗子|诈骗|骗局|钓鱼|正规|官方的|靠谱|可信|什么意思|啥意思)[^\n]{0,24}?(?:吗|么|嘛|[？?])[^\n]{0,20}?"
    r"|(?i:[^\n]{0,30}?\b(?:legit|legitimate|a[ \t]+scam|phishing|genuine|real[ \t]+or)\b[^\n]{0,40}?)"
    r"|(?i:(?:is|are|does|do)[ \t]+['\"“‘][^\n]{1,60}?['\"”’][^\n]{0,60}?\?)"
    r"|(?i:too[ \t]+[a-z-]+(?:[ \t]+or[ \t]+[a-z-]+)?[ \t]*\?"
    r"|(?:is|does|would|will|should)[ \t]+(?:this|that|the[ \t]+above)\b[^\n]{0,60}?\?"
    r"|(?:can|could|would|will)[ \t]+you[ \t]+(?:please[ \t]+)?[a-z]+[ \t]+(?:this|that|the[ \t]+above)\b[^\n]{0,60}?\?"
    r"|[^\n]{0,60}?\b(?:this|that|the[ \t]+above)[ \t]+(?:line|sentence|phrase|wording|paragraph|message|draft|text|reply|copy|"
    r"post|note|update|announcement|e-?mail)\b[^\n]{0,60}?\?))"
    # … or a line right after the lines it names: "Thanks for everything⏎Sorry for the mess⏎Do these two lines rhyme?",
    # "…⏎这两句押韵吗？"
    r"|(?<=\n)(?:(?i:(?:do|does|is|are|would|will|can)[ \t]+(?:these|those|the[ \t]+above)[ \t]+(?:[\w-]+[ \t]+)?(?:lines|"
    r"sentences|verses|words|lyrics|phrases)\b[^\n]{0,40}?\?)"
    r"|(?:这|上面|以上|前面)(?:两|几|三|四)(?:句|行)(?:话|歌词)?[^。！？\n]{0,12}?[吗么嘛？?]))"
    r"(?=[ \t]*(?:(?i:thanks|thank[ \t]+you|thx|ty|cheers)\b[^\n?]{0,30}|(?:谢谢|多谢|感谢|谢啦|谢了)[^\n？?]{0,8})?\s*\Z))",
    re.MULTILINE)


_WORDS_ASKED_MAX = 60  # characters of the words a paragraph after them asks about ("这四个字", "that one word")
# what a one-line turn holds when _INLINE_REFERENCE or _ASKED_AFTER may name its text: a cheap test before them
_REFERENCE_HINTS = ("—", "–", "--", "成一", "写成", "整理成", "<-", "←", "what I", "这样", "这么", "怎么", "翻", "译成", "ou put",
                    "ou translate", "ou say", "hat's", "hose ", "这是", "这就是", "这句", "I say", "I start", "I end", "I open",
                    "I close", "I begin", "I sign", "I write", "I use", "I always", " say ", "this.", "this?", "this!", "that.",
                    "legit", "scam", "real?", "genuine", "phishing", "spam", "rom my", "rom our", "rom the", "rom a", "got this", "合法", "发的", "贴的", "写的", "寄的", "留的", "给的", "转的", "来的",
                    "出的", "给我的", "真的", "骗", "靠谱", "正规", "官方")


# a one-line turn that ends with the work to do on the words before it, set off by a dash or an arrow: "Hi, thanks for
# waiting! Your car is ready. - make this more formal", "…Sorry! -- this is what I want to send, fix the grammar",
# "您好，…谢谢！——帮我改得更正式一点", "…我们周五前答复 <- 这句话帮我改得正式点", "您好，感谢您的投递 —— 这个自动回复会不会太短？"
_WORK_AFTER_TEXT = re.compile(
    r"(?:[ \t]+(?:<-{1,2}|←|-{1,2}>?|—|–|=>|⇒|→)[ \t]+|[ \t]*(?:——|—{1,2}|<-{1,2}|←|-{1,2}>|=>|⇒|→)[ \t]*)"
    r"(?:(?i:(?:(?:this|that)(?:'s|\s+is)\s+what\s+I\s+(?:want|need|plan|'m\s+going)\s+to\s+(?:send|say|post|write)\s*[,.;]?\s*)?"
    r"(?:(?:can|could)\s+you\s+)?(?:please\s+)?(?:(?:make|rewrite|polish|shorten|check|improve|edit|reword|rephrase|tighten|"
    r"soften|simplify|translate)\s+(?:this|it|that|the\s+above)\b|(?:fix|correct|check)\s+(?:the\s+|my\s+)?(?:grammar|spelling|"
    r"typos|punctuation|english|wording)\b|translate\s+(?:in)?to\b|proofread\b|polish\b"
    # ("… - is this too short?", "… -- is this auto-reply too short?")
    r"|(?:is|does|would|will|should|can|could)\s+(?:this|it|that)\b[^\n?]{0,60}\?|too\s+[a-z-]+(?:\s+or\s+[a-z-]+)?\s*\?))"
    r"|(?:这句话?|这段话?|这条[\u4e00-\u9fff]{0,4}?|这个[\u4e00-\u9fff]{0,6}?)?(?:请|麻烦)?(?:你)?(?:帮我)?"
    r"(?:改|翻译|翻成|译成|润色|优化|缩短|精简|看看|检查|校对)"
    r"|这(?:个|条|句|段)[\u4e00-\u9fff]{0,8}?(?:会不会|是不是|太|够不够|合适|可以|行不行)(?=[^\n]{0,16}?[吗么？?])"
    # ("…谢谢！——这样写客户会不会觉得不舒服？", "…。=> 这句话有语病吗？", "——这样跟财务说可以吗")
    r"|(?:这样|这么)(?:写|说|回|发)?[\u4e00-\u9fff]{0,10}?(?:会不会|是不是|可以|行不行|合适|好不好|妥当|得体|太)(?=[^\n]{0,20}?[吗么？?])"
    r"|这(?:个|条|句|段)(?:话)?[\u4e00-\u9fff，,]{0,14}?(?:吗|么)(?=[？?]?[ \t]*\Z))"
    r"[^\n]{0,60}\Z")
_WORK_AFTER_MIN = 8  # characters of text before it
# … not the user's own lead-in: "Please help me with this - fix the grammar", "Hi! Quick question -- can you make this …"
_OWN_LEAD_IN_MAX = 30  # columns (a Chinese character is two): a longer text before the mark is the text, whatever it asks
# ("你好，麻烦帮我开一张发票，…"; not "Please help me with this", "不好意思，帮我看看")


def _width(text: str, a: int, b: int) -> int:
    """The columns [a, b) takes: a CJK character two, any other one."""
    return (b - a) + len(_CJK_CHARS.findall(text, a, b))


_CJK_CHARS = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
_OWN_LEAD_IN = re.compile(r"(?i:\b(?:help|assist)\s+me\b|\bquick\s+question\b|\bone\s+more\s+thing\b|\bi\s+need\s+(?:help|you)\b)"
                          r"|帮帮?我|请教|问一下|问个问题")


# … or on the text's own line, after it: "您好，…请查收。——这是我准备发给客户的，帮我看看。", "Hi Sam, … <- that's what I'm about
# to send. Too stiff?"
_INLINE_REFERENCE = re.compile(
    # whose the text on the line before it was, or whether it is real, as the turn's last sentence: "…by Friday. Thanks! My
    # landlord sent this.", "…Thank you. Is this legit?", "…谢谢配合！这是物业发的", "…谢谢～ 这个是我妈转给我的，靠谱吗？"
    r"(?<=[.!?。！？～~])[ \t]*(?=[^\n]{0,60}\Z)(?:"
    r"(?:这(?:个|条)?(?:是|就是)[^，,。！？\n]{0,10}?)?(?:" + _SENDERS_ZH + r"|群里|楼道|门口|电梯里?)[^，,。！？\n]{0,6}?"
    r"(?:发|贴|写|寄|留|给|转)(?:来|出|过来|给我|发给我|给)?的"
    r"|(?i:this[ \t]+(?:was|got)[ \t]+(?:posted|put[ \t]+up|taped|stuck|left|slipped|sent|pinned|forwarded)\b"
    r"|(?:my|our|the)[ \t]+(?:" + _SENDERS_EN + r")[ \t]+(?:just[ \t]+)?(?:sent|posted|wrote|left|texted|e-?mailed|forwarded)"
    r"[ \t]+(?:me[ \t]+|us[ \t]+)?(?:this|that)\b"
    r"|(?:is|was)[ \t]+(?:this|it|that)[ \t]+(?:legit|legitimate|a[ \t]+scam|real|genuine|phishing|spam)\b[^\n]{0,30}?\?"
    # ("From my HOA.", "This is from my landlord, can he do that?", "Got this from an unknown number.")
    r"|(?:(?:this|it)(?:'s|[ \t]+is|[ \t]+was|[ \t]+came)[ \t]+)?from[ \t]+(?:my|our|the|a|an)[ \t]+[a-z]+(?:[ \t]+[a-z]+)?\b"
    r"(?=[ \t]*[.!,?])"
    r"|(?:I[ \t]+)?got[ \t]+(?:this|it)[ \t]+(?:from|on|in)[ \t]+(?:my|our|the|a|an)\b)"
    r"|(?:这|这个|这条)?(?:是)?(?:真的|骗子|诈骗|骗局|正规的?|官方的?|靠谱|合法)(?:吗|么|嘛)[？?]?)|"
    # words named by the sentence after them: "Thanks for everything. Those were the last words my grandpa said to me.",
    # "Thanks so much! That's how I end every email, …", "谢谢你。这是我爸最后跟我说的话。"
    r"(?<=[.!?。！？])[ \t]*(?i:(?:that|those|these|this)(?:'s|\s+(?:was|were|is|are))\s+(?:what|how|the\s+(?:last\s+|exact\s+|only\s+)?"
    r"words?)\b"
    # ("That's my usual sign-off with clients.", "I say this to every cashier.", "I start almost every message like that.")
    r"|(?:that'?s|this\s+is)\s+(?:my|our|his|her)\s+(?:usual\s+|standard\s+|go-to\s+|default\s+)?(?:sign-?off|opener|greeting|"
    r"closing|line|phrase|catchphrase)\b|I\s+(?:always\s+)?(?:say|write|use)\s+(?:this|that|it)\s+(?:to|with|in|when|at)\b"
    r"|I\s+(?:always\s+)?(?:start|end|open|close|begin|sign\s+off)\s+(?:almost\s+)?(?:every|each|all|most)\s+(?:[a-z]+\s+){1,2}?"
    r"(?:like|with)\s+(?:that|this|it)\b"
    # ("Please and thank you! My kids have to say that at dinner.")
    r"|(?:[\w']+\s+){0,3}?(?:have|has|had)\s+to\s+say\s+(?:that|this|it)\b)"
    # ("不好意思打扰一下！我每次问老师问题都这样开头。", "…都是这么结尾的")
    r"|(?<=[。！？!?])[^。！？\n]{0,20}?(?:都|总是|每次)(?:是)?(?:这样|这么)(?:开头|结尾|说|写)"
    r"|(?<=[。！？!?])[ \t]*这(?:是|就是)[^。！？\n]{0,12}?(?:说的话|的原话|说过的话|最后的话|最后一句话|口头禅|开头和结尾|开头|结尾)"
    r"|(?<=[。！？!?])[ \t]*这句话?(?=[^。！？\n]{0,20}?(?:都有|都用|常用|老是|总是|每次))|"
    r"(?:——|—|<-|<--|←)[ \t]*(?:这是|这就是|以上是|上面是)[^，,。！？\n]{0,4}?我?(?:准备|打算|要|想)?(?:发|回|回复)给[^，,。！？\n]{1,8}?的"
    r"|(?:(?:<-|<--|←|—|–)[ \t]*|(?<=[.!?])[ \t]+)(?i:that'?s|this\s+is)\s+what\s+I(?:'m|\s+am)\s+(?:about|going|planning)\s+to\s+"
    r"(?:send|post|say|reply|text|e-?mail)\b"
    # … or words the user gives to be used: "Thank you, thank you, thank you — that's how I feel, use that."
    r"|(?:—|–)[ \t]*(?i:(?:that'?s|this\s+is)\s+(?:how\s+I\s+feel|exactly\s+how\s+I\s+feel|the\s+(?:vibe|tone|feeling)\s+I\s+want)"
    r"[ \t]*[,.;]?[ \t]*(?:(?:please\s+)?use\s+(?:that|those\s+words|it|this)\b)?|(?:please\s+)?use\s+(?:that|those\s+(?:words|lines?)|"
    r"that\s+(?:line|phrase)|it)\s+(?:exactly|as\s+is|word\s+for\s+word|verbatim)\b)"
    r"|(?:——|—)[ \t]*(?:就是这个意思|就是这种感觉|就用这句|就用这个|原话用上|这就是我的心里话|这是我的心里话|这就是我想说的)"
    r"|(?:—|–|--)[ \t]*(?i:(?:(?:that'?s|this\s+is)\s+(?:the|my|our)\s+[a-z-]+(?:\s+[a-z-]+)?\s*[,;]?\s*)?(?:please\s+)?"
    r"(?:keep|use)\s+(?:it|that|this|those)\s+(?:word\s+for\s+word|verbatim|exactly(?:\s+as\s+(?:it\s+is|written))?|"
    r"as\s+(?:it\s+is|is|written)))"
    r"|(?:——|—)[ \t]*(?:这是|这句是|这就是)?[\u4e00-\u9fff]{0,4}?[，,]?[ \t]*(?:请|要)?(?:一字不改|原样保留|逐字保留|原封不动|"
    r"一个字都(?:别|不要)改)")
# … or, in a one-line turn, a question about it: "谢谢谢谢，辛苦啦 这样回复领导合适吗？"
_ASKED_AFTER = re.compile(r"(?<=[^\s])[ \t]*(?:这样|这么)(?:回复|回|说|写|发)[^。！？\n]{0,8}?(?:可以|行|合适|好|得体|妥当|对|礼貌|"
                          r"自然)(?:吗|不|么|嘛)?[？?]"
                          # … or asks to put it in another form: "…，谢谢。请帮我写成一则简讯。"
                          r"|(?<=[。！？!?])[ \t]*(?:请|麻烦)?(?:你|您)?(?:帮我)?(?:把(?:它|这|上面的?))?(?:写成|改写成|整理成|转成|变成|改成)"
                          r"(?:一[则条封段篇个])?(?:简讯|短信|消息|邮件|微信|通知|私信)[。！!.]?[ \t]*"
                          # … or how to put it in another language: "不好意思，我今天不能去了。这句英文怎么说？", "不好意思，打扰了
                          # 翻译成英文", "Sorry to bother you, but could you help me? — translate this to Chinese"
                          r"|(?<=[。！？!?])[ \t]*(?:这句话?|这段话?|这个)(?:用)?(?:英文|英语|中文|日文|日语|韩语|法语)?(?:该|要)?"
                          r"怎么(?:说|讲|写|翻译?)[？?][ \t]*"
                          r"|(?:(?<=[。！？!?])|(?<=[^\s])[ \t]+)(?:请|麻烦)?(?:帮我)?(?:翻译|翻成|译成)(?:一下)?成?"
                          r"(?:英文|英语|中文|日文|日语|韩语|法语)[。！!.]?[ \t]*"
                          r"|[ \t]+(?:—|–|--)[ \t]*(?i:(?:please\s+)?translate\s+(?:this|that|it)\s+(?:in)?to\s+[a-z]+)[.!]?[ \t]*"
                          # ("Please accept our apologies for the delay. … Can you put this in Chinese?")
                          r"|(?<=[.!?])[ \t]+(?i:(?:can|could|would)\s+you\s+(?:please\s+)?(?:put|translate|say)\s+(?:this|that|it)\s+"
                          r"(?:in|into)\s+[a-z]+\s*\?)[ \t]*")


# a request after the words a line dictates, on that line: "… Then write the body.", "…！麻烦帮我写个年会致辞"
_REQUEST_AFTER = re.compile(r"(?<=[.!?。！？])[ \t]*(?=(?i:then|now|next|also|and\s+then|after\s+that|could\s+you|can\s+you|"
                            r"would\s+you|write|draft|translate)\b|帮我|麻烦(?:你|您)?帮|请你|请帮|然后|接着|另外|再帮|再写|写个|写一|"
                            r"用[\u4e00-\u9fff]{1,4}(?:语|文)写)")


# where the words after a same-line work verb end: a sentence in the user's voice again ("Actually, …", "And again, …")
_OWN_AFTER_WORDS = re.compile(r"(?<=[.!?。！？])[ \t]*(?=(?i:actually|and\s+again|again|also|but\s+please|please\s+(?:keep|make|don'?t|"
                              r"do\s+not|use|remember|note|avoid))\b)")
_DICTATED_INTRO = re.compile(r"(?:" + _DICTATED + r"|(?i:\bthis[ \t]+exact[ \t]+[^:：\n]{1,40}?))"
                             r"(?:[ \t]*[,，]?[ \t]*(?:(?i:please|pls|thanks|thank[ \t]+you|thx)|谢谢|麻烦了|多谢|辛苦了))?"
                             r"(?:\*\*)?[ \t]*[:：]\Z")


def _dictated(text: str, a: int, b: int) -> bool:
    """Whether the intro [a, b) ends by dictating words (``_DICTATED``, "this exact footer:")."""
    return _DICTATED_INTRO.search(text, a, b) is not None  # (``\Z``: ending at ``b``)


# lines listed under a label that starts them on its own line ("示例台词：谢谢老板！⏎不好意思，借过一下。⏎帮我再写五句。"): the
# lines after it are more of them, up to a request line or a blank one
_LISTED = re.compile(r"(?i:\b(?:example|sample)s?\b|\blines\b|\blyrics?\b|\bcatchphrases?\b)|示例|台词|口头禅|例句|副歌|主歌|歌词")
_REQUEST_LINE = re.compile(r"[ \t]*(?:(?i:then|now|next|also|please|could\s+you|can\s+you|would\s+you|write|draft|make|translate|"
                           r"give|create|add|use)\b|帮我|麻烦(?:你|您)?帮|请(?:你|您)?(?:帮|再|写|用)|再写|再来|写|用这些|用上面|然后|"
                           r"接着|另外)")


def _listed_lines_end(text: str, m: re.Match[str], le: int, e: int) -> int:
    """Where the dictated words after the intro ``m`` end, their first line ending at ``le``: that line, or for lines
    listed (``_LISTED``) the lines after it up to a blank line, a request line or a thanks."""
    if not _LISTED.search(m.group(0)):
        return le
    k = le
    while k < e and text[k] == "\n":
        nl = k + 1
        nle = _line_end(text, nl, e)
        if not text[nl:nle].strip() or _REQUEST_LINE.match(text, nl, nle) or _thanks_only(text, nl, nle):
            break
        k = nle
    return k


def _asked_after(text: str, s: int, e: int) -> re.Match[str] | None:
    """``_ASKED_AFTER`` ending the turn [s, e) (before it, the text it asks about)."""
    m = _ASKED_AFTER.search(text, s, e)
    return m if m is not None and not text[m.end():e].strip() else None
_LABEL_STRIP = " \t\n*#->"
_LABEL_REACH = 24  # characters from a label's start to its word ("My landlord's email:", "The clinic emailed:")
_LABEL_COLON_REACH = 64  # … and from its word to its colon ("Reported post (from @kai, 3 days ago):")


# a field of a form on the next line ("Caption: please add emojis⏎Photo: a sunset"): the label above is a field too, whose
# value asks the model
_NEXT_FIELD = re.compile(r"[ \t]*[A-Za-z\u4e00-\u9fff][\w \u4e00-\u9fff-]{0,20}[:：]")


def _text_labels(text: str, s: int, e: int) -> list[re.Match[str]]:
    """The ``_TEXT_LABEL`` matches of [s, e), in order: tried only at the starts of the lines that hold a label word
    (a multi-line regex tried at every line of a long prompt costs more)."""
    found: dict[int, re.Match[str]] = {}
    for word in _LABEL_WORDS:
        k = text.find(word, s, e)
        while k >= 0:
            if text.find(":", k, min(e, k + _LABEL_COLON_REACH)) < 0 and text.find("：", k, min(e, k + _LABEL_COLON_REACH)) < 0:
                k = text.find(word, k + 1, e)  # (every label ends with its colon, near its word)
                continue
            # (looked for only within reach: a line start further back opens no label here, and a search back to it
            # from every hit on a long line is quadratic)
            lo = max(s, k - _LABEL_REACH - 1)
            nl = text.rfind("\n", lo, k)
            ls = nl + 1 if nl >= 0 else s if lo == s else -1  # (-1: its line starts out of reach)
            # (a label opens its line, or a sentence on it: "**Paragraph 2**:", "会议记录（…）：", "您好！用户投诉原文：")
            near = max(ls, k - _LABEL_REACH)
            stop = max(text.rfind(c, near, k) for c in "。！？!?.，—")  # (or a Chinese clause: "…已发货，买家备注：…"; or
            # after a dash: "Next — Reviewer 2: Please clarify …")
            ls = stop + 1 if stop >= 0 else ls
            while 0 <= ls < k and text[ls] in " \t":
                ls += 1
            if ls >= 0 and ls not in found and k - ls <= _LABEL_REACH:
                m = _REPORTED_LABEL.match(text, ls, e) or _TEXT_LABEL.match(text, ls, e)
                if m is not None:
                    found[ls] = m
            k = text.find(word, k + 1, e)
    return [found[k] for k in sorted(found)]


def _reports(m: re.Match[str], s: int) -> bool:
    """Whether the label ``m`` reports whose words or what record follows ("Ticket from customer:", "会议记录：") — an
    "Input:" / "输入：" label only opening the turn (further on, a prompt's section on its input format)."""
    if m.group("compared") and m.string[m.end():m.end() + 80].lstrip()[:1] in ("[", "{", "<", "$"):
        return False  # ("Version A (older snapshot): [paste the older snapshot here]": a template's placeholder)
    if m.group("prompt"):  # (a prompt labelled on the line of the user's question about it: "Why does my model …?
        # Prompt:⏎⏎…"; opening a turn or a line, "System Prompt: …", "Prompt: A close-up shot …" is the prompt itself)
        return m.string[m.string.rfind("\n", s, m.start()) + 1:m.start()].rstrip()[-1:] in ("?", "？")
    return not (m.group("input") or m.group("input_zh")) or not m.string[s:m.start()].strip()


def _label_named(text: str, s: int, e: int, m: re.Match[str]) -> bool:
    """Whether the rest of the block [s, e), outside the label ``m``, names what it labels, near a verb of
    processing ("polish just the second paragraph" for "Paragraph 2:", "把下面的会议记录整理成纪要" for "会议记录：")."""
    word = m.group(1).lower().rstrip("0123456789 \t")
    word = "段" if word.startswith("第") else word
    for a, b in ((s, m.start()), (m.end(), e)):
        for found in re.finditer(re.escape(word), text[a:b], re.IGNORECASE):
            k = a + found.start()
            if _TASK_VERB.search(text, max(a, k - 40), min(b, k + 40)):
                return True
    return False


_REQUEST_MAX = 400  # characters: a request beside the text it hands over is a few sentences, not a prompt's section


# a first line that asks about the text under it: "Is my tone too weak here?⏎Hi, sorry to bother you, but …", "Is this
# letter OK to send?⏎…", "Any issues with this before I submit?⏎…", "语气会不会太软了？⏎…", "这样写可以吗？⏎…"
# (whether it is fit to send, or how it sounds: not "请问这段代码为什么报错？⏎```…```", which asks about code)
_LEADING_QUESTION = re.compile(
    r"[ \t]*(?:(?i:(?:how|is|are|does|do|would|will|should|can|could|any)\b[^\n?]{0,60}?\b(?:this|these|here|my[ \t]+(?:tone|draft|"
    r"letter|e-?mail|message|answers?|text|reply|note|wording))\b[^\n?]{0,40}?\b(?:ok|okay|fine|good|right|correct|clear|polite|"
    r"rude|formal|casual|weak|strong|harsh|blunt|pushy|too[ \t]+[a-z]+|issues?|problems?|mistakes?|sound|send|submit|publish|"
    r"post|appropriate|professional)\b[^\n?]{0,30}?\?)"
    r"|[^。！？?\n]{0,12}?(?:(?:这样|这么)(?:写|说|回|改|发)?[^。！？?\n]{0,8}?(?:可以|行|合适|好|妥当|得体|对|通顺|自然)|"
    r"(?:语气|口气|措辞)[^。！？?\n]{0,12}?)(?:吗|么|嘛|不)?[^。！？?\n]{0,4}?[？?]"
    # … or that hands it over without a colon: "改错别字，别的不要动，拜托了！", "Please text my landlord the following, thanks!"
    r"|[^\n]{0,30}?(?:别的|其他|其余|其它)(?:地方|部分|内容)?(?:都)?(?:不要|别|不用|不)(?:动|改|变)"
    r"|(?i:[^\n]{0,60}?\bthe[ \t]+following\b))[^\n]{0,60}\n")


def _leading_question_payload(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The text under a first line that asks about it (``_LEADING_QUESTION``): the rest of the turn."""
    m = _LEADING_QUESTION.match(text, _hello_end(text, s, e), e)  # (after a greeting: "你好！这样写可以吗？")
    if m is None:
        return []
    a, b = _stripped(text, m.end(), e)
    if b <= a or _PARA_BREAK.search(text, a, b):
        return []  # (one paragraph under it: more is a prompt of sections, not one text asked about)
    return [(a, b, "introduced", f"kept: the text the first line asks about ({_short(m.group(0).strip(), 40)!r})")]


# a bare request in Japanese or Korean to translate what follows ("日本語に訳してください。", "한국어로 번역해 주세요.")
_JA_KO_WORK = re.compile(r"[^\n。.]{0,20}?(?:に訳して|に翻訳して)(?:ください|下さい|くれ|もらえますか|いただけますか)?[。.!！?？]?[ \t]*"
                         r"|[^\n.]{0,20}?로[ \t]?번역해[ \t]?(?:주세요|줘|주십시오|주시겠어요)[.!?]?[ \t]*")


def _request_payload(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """A turn of a short request paragraph and the text it works on, in the paragraphs after it (when it opens the
    turn) or before it (when it closes the turn): the text, as handed over.  A paragraph that sets up a role ("You
    are …", "Act as …", "# Role") opens a prompt, not a request."""
    s = _past_greeting(text, s, e)
    line_end = _line_end(text, s, e)
    colon = min((k for k in (text.find(":", s, line_end), text.find("：", s, line_end)) if k >= 0), default=-1)
    if colon > s and _asks_for_the_reply(text, _last_clause(text, s, colon), colon + 1) \
            and not _REPLY_TO_SOMEONE.search(text, s, colon + 1):
        # a line that asks for the reply to the message after its colon: under it ("帮我婉拒：⏎谢谢你上次帮忙！…",
        # "同事发来一条消息，帮我回一下：⏎⏎…") or on it, to its paragraph's end ("My sister's text, help me reply kindly: …")
        pa = _stripped(text, colon + 1, e)[0]
        pb = _handed_text_end(text, pa, e, None)
        if pa < line_end and (br := _PARA_BREAK.search(text, pa, pb)) is not None:
            pb = _stripped(text, pa, br.start())[1]
        if pb > pa and not _CLOSING_THANKS.fullmatch(text, pa, pb):
            return [(pa, pb, "introduced", f"kept: the message the request before it asks to reply to "
                                           f"({_short(text[s:colon].strip(), 40)!r})")]
    if colon > s and _REPLY_TO_PERSON.search(text, s, colon + 1):
        # the words after "Reply to buyer:" on its line — their message, or what to tell them: theirs either way, not
        # the user's to the assistant ("Reply to buyer: Hi, is this still available? … thanks. -- It's out of stock")
        sep = _WORDS_END.search(text, colon + 1, line_end)
        pa, pb = _stripped(text, colon + 1, line_end if sep is None else sep.start())
        stops = [m.end() for m in _SENTENCE_STOP.finditer(text, pa, pb) if m.end() < pb]
        last_line = not text[line_end:e].strip()  # (with more of the user's after them, a thanks on their line is theirs)
        if stops and last_line and _CLOSING_THANKS.fullmatch(text, _stripped(text, stops[-1], pb)[0], pb):
            pb = stops[-1]  # (a thanks of its own after them is the user's: "回覆客人：我們沒有提供退款服務。謝謝！")
        elif sep is None and last_line and (tail := _TRAILING_THANKS.search(text, pa, pb)) is not None:
            pb = tail.start()  # (… or a thanks that closes the turn: "回覆客人：…也別承諾任何補償，謝謝！")
        if pb > pa:
            return [(pa, pb, "introduced", f"kept: the words after {_short(text[s:colon + 1].strip(), 40)!r}: the message "
                                           f"or what to tell them")]
    first = _PARA_BREAK.search(text, s, e)
    if first is None or _ROLE_SETUP.match(text, s, e):
        return []  # (one paragraph, or a prompt that sets up a role: its paragraphs are instructions)
    last = first
    for last in _PARA_BREAK.finditer(text, first.end(), e):
        pass
    if _asks_for_the_reply(text, s, first.start()) or _BELOW_THEN_REPLY.fullmatch(text, s, _stripped(text, s, first.start())[1]):
        # the request for the reply first, then the message ("Help me say no nicely.⏎⏎Hey! Could you please help me move
        # on Saturday? Thanks!!", "幫我婉拒：⏎⏎你好，請問…")
        pa = _stripped(text, first.end(), e)[0]
        pb = _handed_text_end(text, pa, e, None)
        if pb > pa and not _CLOSING_THANKS.fullmatch(text, pa, pb):  # (not the user's bare "Thanks!" after it)
            return [(pa, pb, "introduced", f"kept: the message the request before it asks to reply to "
                                           f"({_short(text[s:first.start()].strip(), 40)!r})")]
    if _asks_for_the_reply(text, last.end(), e):
        # a message, then a request for the reply to it ("…Please reply ASAP, thank you!⏎⏎Help me reply, please.",
        # "…麻烦尽快回复，谢谢！⏎⏎怎么回复？"): all before it is the message, its own questions and thanks included
        pa, pb = _stripped(text, s, last.start())
        while pb > pa and (brk := _PARA_BREAK.search(text, pa, pb)) is not None and (
                _GREETING_LINE.match(text, pa, pb)
                or _THANKS_TO_HELPER.match(text, _hello_end(text, pa, brk.start()), brk.start())
                or text[pa:brk.start()].rstrip(" \t*").endswith((":", "："))):
            # (not the user's own "Hi!" or "Hi, thanks for the help last time!" above it, nor the line that introduces
            # it: "Now I got this from a customer:")
            pa = _stripped(text, brk.end(), pb)[0]
        said = _REPORTED_SENTENCE.match(text, pa, pb) or next(
            (r for stop in _SENTENCE_STOP.finditer(text, pa, min(pb, pa + _OPENING_REACH))
             if (r := _REPORTED_SENTENCE.match(text, stop.end(), pb)) is not None), None)
        if said is not None:  # ("Hi there! Hope you're well. Got this text from a customer. Hello, …": from "Hello")
            pa = _stripped(text, said.end(), pb)[0]
        if pb > pa:
            return [(pa, pb, "introduced", f"kept: the message the request after it asks to reply to "
                                           f"({_short(text[last.end():e].strip(), 40)!r})")]
    for a, b, pa, pb in ((s, first.start(), first.end(), e), (last.end(), e, s, last.start())):
        a, b = _stripped(text, a, b)
        k = _SENTENCE_BEFORE.search(text, a, b)
        if k is not None and _thanks_only(text, *_stripped(text, k.end(), b)):
            b = _stripped(text, a, k.end())[1]  # (the request without its closing thanks: "What does this error mean? Thanks
            # in advance.⏎⏎ERROR: …")
        if b - a > _REQUEST_MAX or _ROLE_SETUP.match(text, a, b):
            continue
        # (a request before the text points at it: "explain this clause", "here is my essay", or asks about it: "What
        # should I do about this alert?"; one after it may only ask, "帮我整理成待办清单", when what it leaves before is
        # no long prompt)
        pointed = _REQUEST_POINTER.search(text, a, b) is not None
        # (a question that points at a text by its name may go on after its "?": "Can you help me understand this
        # email? 我看不太懂，谢谢！")
        asks = text[a:b].rstrip(" *")[-1:] in ("?", "？") or (("?" in text[a:b] or "？" in text[a:b])
                                                             and _TEXT_POINTER.search(text, a, b) is not None)
        tone = a != s and _TONE_QUESTION.match(text, a, b) is not None  # "Draft v2: …⏎⏎Is this too informal for a VP?"
        # (or it is a bare request line that opens the turn: "Extract the dates⏎⏎…", "请翻译成英文⏎⏎…", "摘要：⏎⏎…")
        bare = a == s and (_bare_work_line(text, a, b, period=True) or _bare_work_then_rules(text, a, b)
                           or _JA_KO_WORK.fullmatch(text, a, b) is not None)
        pointed = pointed or bare
        if not (_TASK_VERB.search(text, a, b) or pointed and a == s and (asks or bare or _ANNOUNCES_TEXT.search(text, a, b))
                or tone):
            continue
        if a != s and not (_WORKS_ON_WORDS.search(text, a, b) or tone):
            continue  # after the user's own account, "Can you help me fix it?" asks about the problem, not the words
        if not pointed and (a == s or not _REQUEST_FORM.match(text, a, b) or pb - pa > _UNPOINTED_MAX):
            continue
        pa, pb = _stripped(text, pa, pb)
        if a == s or text[s:a].isspace():  # (the request opens the turn: the text ends where instructions start)
            pb = _handed_text_end(text, pa, e, None)
        else:
            own = _OWN_INTRO_LINE.match(text, pa, pb)
            if own is not None:  # (the user's own words that introduce the text: "大佬好，请教一个问题，谢谢！…日志如下：")
                pa = _stripped(text, own.end(), pb)[0]
        if _is_task_instruction(text, pa, pb) and _TEXT_POINTER.search(text, a, b) is None:
            continue  # what is left beside the request is another instruction ("请用正式的语气，不要超过五十个字。"), unless
            # the request names it as a text ("Is this line from our style guide grammatical?")
        if pb > pa and not _CLOSING_THANKS.fullmatch(text, pa, pb):  # (a bare "Thanks!" after the request is the user's)
            return [(pa, pb, "introduced", f"kept: the text handed over with the request {_short(text[a:b], 50)!r}")]
    return _middle_request_payload(text, s, e, first.end(), last.start())


# the user's line after versions compared on their labels' lines: a question about them, or a note
_WHICH_LINE = re.compile(r"[ \t]*(?:(?i:(?:which|what|compare|pick|choose|rank|rate|score|evaluate|judge|is|are|does|do|should|"
                         r"note|p\.?s\.?)\b)|哪|比较|对比|选|评价|评分|打分|这两|两个|以上|备注|注[：:])")


# a reply to someone named before the colon: what follows is what to tell them ("麻烦帮我回复客人：我们没有…", "Reply to
# him: …"), not the message they sent
_REPLY_TO_SOMEONE = re.compile(r"(?:回复|回覆|答复|回)(?:给)?(?!一下|下|信)[\u4e00-\u9fff]{1,5}[ \t]*[:：]$"
                               r"|(?i:\b(?:reply|respond|write\s+back)\s+to\s+(?!this\b|these\b|it\b|the\s+following\b)"
                               r"\w+(?:\s+\w+)?\s*:$)")


# a request paragraph that says whose message is below, and what to do with it: "Buyer message below, reply, never promise
# a refund.", "Customer's reply below. Is she asking for a refund or a replacement?"
_BELOW_THEN_REPLY = re.compile(r"[ \t]*(?i:(?:the\s+|a\s+|my\s+|our\s+)?(?:" + _SENDERS_EN + r")(?:'s)?\s+(?:message|e-?mail|text|"
                               r"review|question|note|dm|reply|complaint)s?\s+(?:is\s+|are\s+)?below[ \t]*[,.;:—-][ \t]*)"
                               r"[^\n]{0,160}")  # (what to do with it: "reply", "Is she asking for a refund or …?")
# … one that names whom: "Reply to buyer:", "回复客人："
_REPLY_TO_PERSON = re.compile(r"(?:回复|回覆|答复|回)(?:给)?(?:一下)?(?:这位|那位|该|此)?(?:" + _SENDERS_ZH + r"|客人|顾客|用户|买家|卖家|他们|她们|大家)[ \t]*[:：]$"
                              r"|(?i:\b(?:reply|respond|write\s+back)\s+to\s+(?:(?:the|my|our|a|this)\s+)?(?:" + _SENDERS_EN
                              + r"|him|her|them|user|shopper)\s*:$)")
_TRAILING_THANKS = re.compile(r"[，,][ \t]*(?:谢谢|謝謝|多谢|多謝|感谢|感謝|(?i:thanks|thank\s+you))[^，,。.!！?？\n]{0,8}[!！.。~～]*[ \t]*\Z")
# where words given on a line end and the user's own note starts: " -- ", " — "
_WORDS_END = re.compile(r"[ \t]+(?:--?|—|–)[ \t]+")


def _last_clause(text: str, a: int, b: int) -> int:
    """Where the last clause of the line [a, b) starts: after its last comma ("同事发来一条消息，帮我回一下：")."""
    return max(a, *(text.rfind(c, a, b) + 1 for c in ",，"))


# the words that greet, opening a line ("Hi, …", "你好！…"): one list for the finders below
_HELLO_EN = r"hi|hello|hey"
_HELLO_ZH = r"你好|您好|嗨"
# a request line that is only the work to do on what follows it, without pointing at it
_BARE_WORK_LINE = re.compile(rf"[ \t]*(?:(?i:{_HELLO_EN})[!,.]?\s*|(?:{_HELLO_ZH})[！!，,]?\s*)?(?:\*\*)?(?:(?i:(?:please[ \t]+)?(?:only[ \t]+|just[ \t]+)?(?:extract|pull[ \t]+out|classify|categori[sz]e|label|tag|"
                             r"translate|proofread|rewrite|rephrase|paraphrase|polish|reword|summari[sz]e|correct|edit|fix|"
                             r"shorten|condense|simplify|soften|formali[sz]e|find|count|make[ \t]+it|"
                             r"help[ \t]+me[ \t]+(?:reply|respond)(?:[ \t]+to)?|reply[ \t]+to)\b"
                             r"[^\n.!?:：]{0,50}|tl;?dr(?:[ \t]+(?:this|it|(?:the[ \t]+)?following))?)"
                             rf"|(?:{_ZH_TAKES_WORDS}|(?:请|麻烦|帮我)*(?:总结|概括|摘要|回复|回覆|回一下))[^\n。！？:：]{{0,20}})"
                             r"(?:[,，][ \t]*(?:(?i:thanks|thank[ \t]+you)|谢谢))?(?:\*\*)?[ \t]*[:：!！]?(?:\*\*)?[ \t]*")
# a line or paragraph that only greets, before the request: "Hi!", "Good morning!", "你好！"
_GREETING_LINE = re.compile(rf"[ \t]*(?:(?i:{_HELLO_EN}|good\s+(?:morning|afternoon|evening)|greetings)(?:\s+there)?|{_HELLO_ZH}|早上好|下午好|"
                            r"晚上好|大家好)[ \t]*[!！,，.。~～]*[ \t]*(?=\n|\Z)")


# a greeting word before the rest of a line ("Hi, thanks for the help last time!"): always matches, maybe empty
_OPENING_HELLO = re.compile(rf"[ \t]*(?:(?i:{_HELLO_EN})(?:\s+there)?[ \t]*[,!.]?[ \t]*|(?:{_HELLO_ZH})[ \t]*[，,！!]?)?")


def _hello_end(text: str, a: int, b: int) -> int:
    """Where [a, b) goes on after a greeting word that opens it (``a`` when none does)."""
    m = _OPENING_HELLO.match(text, a, b)
    return a if m is None else m.end()


def _bare_work_line(text: str, a: int, b: int, period: bool = False) -> bool:
    """Whether [a, b) is a bare request line (``_BARE_WORK_LINE``) that heads a text, not the steps of the task
    ("Summarize the article as follows:") nor a whole sentence ("Summarise the report." over a list of rules) —
    unless ``period`` (a line or paragraph of its own: "Translate to English.⏎⏎Thanks, please sit.", "润色。⏎非常感谢…")."""
    if period and b > a and text[b - 1] in ".。":
        b -= 1
    return _BARE_WORK_LINE.fullmatch(text, a, b) is not None and _TASK_NOT_TEXT.search(text, a, b) is None


def _bare_work_then_rules(text: str, a: int, b: int) -> bool:
    """Whether the paragraph [a, b) is a bare request sentence and a few short rules for it ("Translate to German.
    Please keep the emoji.", "润色一下。保留原意。"), asking nothing."""
    stop = _SENTENCE_STOP.search(text, a, b)
    if stop is None or stop.end() >= b or text[stop.start()] not in ".。" or b - stop.end() > _RULES_AFTER_MAX:
        return False
    return "?" not in text[stop.end():b] and "？" not in text[stop.end():b] and "\n" not in text[a:b] \
        and _bare_work_line(text, a, stop.start() + 1, period=True)


_RULES_AFTER_MAX = 120  # characters of rules after a bare request sentence, in its paragraph


def _past_greeting(text: str, s: int, e: int) -> int:
    """``s`` moved past a line that only greets ("Hi!⏎⏎Translate to French⏎⏎…"): the request opens after it."""
    g = _GREETING_LINE.match(text, s, e) or _CLOSING_THANKS.match(text, s, e)
    if g is None or g.end() >= e or g.end() == s or text[g.end()] != "\n":
        return s  # (a line that only greets or only thanks: "Hi!", "Thanks so much.", "谢谢你！")
    k = g.end()
    while k < e and text[k] in " \t\n":
        k += 1
    return k


# the opening line of a turn that introduces what it pastes: "线上服务偶发报错，日志如下：", "Here's the log:"
_OWN_INTRO_LINE = re.compile(r"[^\n]{0,160}?(?:如下|以下|下面|(?i:\bbelow|\bthe\s+following|\bhere(?:'s|\s+is|\s+are)\b))"
                             r"[^\n]{0,20}?[:：][ \t]*\n")
_MIDDLE_REQUEST_MAX = 160  # characters: "Please translate this paragraph and the next one into Spanish."
# a request that points both ways: "上面这段…下面这段也一起", "the paragraph above and the one below"
_BOTH_WAYS = re.compile(r"(?:上面|以上|前面)[^\n]{0,30}?(?:下面|以下|后面)|(?i:\b(?:above|previous)\b[^\n]{0,40}?\b(?:below|next)\b)")


def _middle_request_payload(text: str, s: int, e: int, lo: int, hi: int) -> list[tuple[int, int, str, str]]:
    """The paragraphs around a short request paragraph between them that works on their words ("Dear guests, …⏎⏎
    Please translate this paragraph and the next one into Spanish.⏎⏎Breakfast ends at 10 am. …")."""
    # (lo: where the second paragraph starts; hi: where the last one's break starts)
    a = lo
    for nxt in _PARA_BREAK.finditer(text, lo, e):
        if nxt.start() > hi:
            break
        ra, rb = _stripped(text, a, nxt.start())
        if 0 < rb - ra <= _MIDDLE_REQUEST_MAX and _WORKS_ON_WORDS.search(text, ra, rb) and (
                _REQUEST_FORM.match(text, ra, rb) and _REQUEST_POINTER.search(text, ra, rb) or _BOTH_WAYS.search(text, ra, rb)):
            why = f"kept: the text handed over around the request {_short(text[ra:rb], 50)!r}"
            return [(x, y, "introduced", why) for x, y in (_stripped(text, s, ra), _stripped(text, rb, e)) if y > x]
        a = nxt.end()
    return []


# a short turn that asks for work on the reply before it as a whole
_EVERYTHING_ELSE = re.compile(r"(?i:\beverything\s+else\b|\ball\s+else\b|\bthe\s+rest\b)|其他|其余|其它")
# a short turn that asks for a change to a text delivered before: "Add that the office will also be closed …", "再加上1月2日…"
_ADDS_TO_IT = re.compile(r"\s*(?i:(?:also\s+|and\s+|please\s+|now\s+)?(?:add|include|mention|remove|delete|drop|replace|change|swap|"
                         r"insert|move|rename|cut)\b)|\s*(?:再|也|请|帮我|麻烦)?(?:加上|加一句|加个|添加|补充|补上|删掉|删除|去掉|"
                         r"改成|换成|写上|把)")
_ADDS_MAX = 200
_BACK_VERB = re.compile(rf"(?i:\b(?:{_TASK_VERB_EN}|change|replace|keep|send|make)\b)|{_TASK_VERB_ZH}|替换")
_BACK_POINTER = re.compile(r"(?i:\b(?:it|that|this|the\s+(?:draft|reply|e-?mail|message|letter|text|above|post|note|"
                           r"announcement|version|answer))\b)|上面|以上|这条|这段|这封|这篇|全文|其他别动|其他不要动|其余不变")
# a turn that opens with "再短一点" asks for the last reply again, shorter (unless it hands over a text of its own:
# "再口语化一点：“…”")
_AGAIN_ZH = re.compile(r"\s*(?:(?:谢谢|谢啦|好的|嗯|行|可以|不错)[！!，,。~～]*\s*)?(?:麻烦|请)?(?:再|更)")
_BACK_MAX = 160  # characters: "Translate it to German, keep everything."


# a short turn asking for the last reply again, changed: "麻烦再改得正式一点", "翻得更自然些", "Make it more formal."
_REVISION = re.compile(r"(?:再|重新)(?:改|翻|润色|写)|换一(?:版|个|种)|重写|再来一(?:版|个|条)|(?i:\bredo\b|\btry\s+again\b|\banother\s+"
                       r"(?:version|one|take|draft)\b|\brewrite\s+it\b)|语气[\u4e00-\u9fff]{1,4}?(?:一点|一些)|(?:简短|简洁|精简|正式|随意|口语化?|热情|客气|礼貌|温和|强硬|委婉)一(?:点|些)"
                       # a part taken out, or an earlier version back: "第二段删掉", "删掉最后一句", "还是用第一版", "Go back to the
                       # first version.", "Drop the second paragraph."
                       r"|第[一二三四五六七八九十\d]+(?:段|句|行|条|点)(?:删掉|去掉|删了|删除|不要了?)|(?:删掉|去掉|删除)(?:第[一二三四五六七八九十\d]+|最后一|第一)(?:段|句|行|条|点)"
                       r"|(?:还是)?用(?:回)?(?:第[一二三四五\d]|上一|之前的?|原来的?|最初的?)(?:版|个版本|稿)"
                       r"|(?i:\b(?:go\s+back\s+to|use|revert\s+to|bring\s+back)\s+(?:the\s+)?(?:first|second|previous|original|earlier|last|old)\s+"
                       r"(?:version|one|draft)\b|\b(?:drop|remove|cut|delete)\s+the\s+(?:first|second|third|last|final)\s+(?:paragraph|line|"
                       r"sentence)\b)|(?:还是)?要(?:更)?(?:简洁|简短|短一点|正式一点|正式|口语化|热情一点)|(?:改|翻|译|写)得(?:更|再)?[\u4e00-\u9fff]{1,4}?(?:一点|一些|点|些)"
                       r"|语气(?:再|更)|(?:再|更)(?:客气|礼貌|委婉|正式|随意|口语化|简短|简洁|热情|友好|专业|亲切|强硬|硬|温和|严厉|坚决)"
                       r"|(?i:\b(?:make|translate|rewrite|say|write)\s+it\s+(?:again|more|less|shorter|longer|simpler)\b)"
                       # ("Even shorter.", "Good. Shorter. Keep all three rules.", "Warmer!")
                       r"|(?i:(?<![\w,;'’])(?:now\s+)?(?:even\s+|much\s+|a\s+bit\s+|slightly\s+|way\s+)?(?:shorter|longer|simpler|warmer|"
                       r"friendlier|punchier|tighter|firmer|softer|gentler|stronger|politer|nicer|kinder|clearer|"
                       r"more\s+(?:formal|casual|polite|direct)|less\s+(?:formal|stiff|casual|wordy))"
                       r"(?=[.!]|\s*$))")
_REVISION_MAX = 40
_REVISION_ALONE_MAX = 32  # characters: a turn that is only the change


def _asks_for_a_revision(text: str, s: int, e: int) -> bool:
    a, b = _stripped(text, s, e)
    return 0 < b - a <= _REVISION_MAX and _REVISION.search(text, a, b) is not None


def _works_on_the_last_reply(text: str, s: int, e: int, reuse: bool = False) -> bool:
    """Whether the user turn [s, e) is a short request that works on the reply before it as a whole: a verb of
    processing and a pointer back, with a verb that makes a new version of it ("Translate it to German") or "keep
    everything" / "其他别动" / "全文" ("Can you explain that?" asks about the reply, and its words may go)."""
    a, b = _stripped(text, s, e)
    if not 0 < b - a <= _BACK_MAX:
        return False
    return reused(_works_on_a_reply, text[a:b], reuse=reuse)


def _works_on_a_reply(turn: str) -> bool:
    again = (_AGAIN_ZH.match(turn) is not None or len(turn) <= 16 and _COMPARATIVE.search(turn) is not None) \
        and not any(c in turn for c in ":：\"“「")  # ("语气再正式一点。": the last reply again, more formal)
    keep_all = _KEEP_ALL.search(turn) is not None and _BACK_VERB.search(turn) is not None
    # ("Change "Enjoy the breaks!" to "Have a good rest!" and keep everything else exactly the same": what else there
    # is, is the reply)
    return bool((again or _BACK_POINTER.search(turn)) and (_BACK_EDIT.search(turn) or keep_all)
                or keep_all and _EVERYTHING_ELSE.search(turn) or _REVISE_REQUEST.search(turn, 0, 80)
                or _SAME_ELSE.search(turn) or _TRANSLATE_BARE.fullmatch(turn))


# the whole turn a translation asked for, right after a reply: the reply is the text ("翻译成英文。", "Translate into Spanish.")
_TRANSLATE_BARE = re.compile(r"(?:请|麻烦)?(?:你)?(?:帮我)?(?:再)?(?:翻译|翻|译)(?:成|为)[\u4e00-\u9fff]{1,4}?[文语](?:吧)?[。！!.]?"
                             r"|(?i:(?:please\s+)?(?:now\s+)?translate\s+(?:in)?to\s+[a-z]+(?:\s+please)?[.!]?)")


# a verb that makes a new version of the text (its words then matter): translate it, rewrite it, 改成…, make it shorter,
# 再短一点
_COMPARATIVE_ZH = r"(?:再|更)(?:短|长|简短|简洁|精简|精炼|正式|随意|口语化|礼貌|委婉|活泼|专业|友好|热情)一?(?:点|些)"
_COMPARATIVE = re.compile(_COMPARATIVE_ZH)
_BACK_EDIT = re.compile(rf"(?i:\b{_en_words(_EDIT)}\b|\bmake\s+(?:it|this|that|(?:the|this|that|your)\s+[a-z]+(?:\s+above)?)\s+"
                        rf"(?:[a-z]+er|more|less|a\s+(?:bit|little)|"
                        rf"slightly|much)\b)|{_zh_words(_EDIT)}|{_COMPARATIVE_ZH}")
_KEEP_ALL = re.compile(r"(?i:\bkeep\s+(?:everything|all|the\s+rest|it\s+(?:all|as\s+is))|\bword\s+for\s+word|\bverbatim|"
                       r"\b(?:don'?t|do\s+not)\s+change\s+(?:anything|the\s+rest)|\bunchanged\b|"
                       r"\bas\s+is\b|\bnothing\s+else|\bfull\s+text|\bwhole\s+(?:text|thing|reply)|"
                       r"\bexactly\s+as\s+(?:it\s+is|they\s+are|written))|其他别动|其他不要动|其余不变|"
                       r"其他不变|给我全文|完整|原样|一字不改|保持不变|不要改动?")
# the rest said to stay as it was, with a change asked for: "再加10斤牛腩，其他一样。", "Add Friday; everything else the same."
_SAME_ELSE = re.compile(r"(?:其他|其余|其它|别的)(?:内容|部分|地方)?(?:的)?(?:都)?(?:一样|照旧|不变|同上|不要改|别改|不用改|不要动|别动)"
                        r"|不要改(?:动)?其他(?:内容|部分|地方)?|直接发给(?:他|她|对方|客户|[\u4e00-\u9fff]{1,4})|就(?:这么|这样)发"
                        r"|(?i:\b(?:everything|all)\s+else\s+"
                        r"(?:(?:stays?|is|remains?)\s+)?(?:the\s+same|as\s+(?:is|before)|unchanged))")


# the rules a bare request's line goes on with after a comma ("翻译成英文，要求：不要用缩写。")
_RULES_CLAUSE = re.compile(r"[，,][ \t]*(?=要求[：:]|注意[：:]|不要|别|保留|保持|不用)")
_REQUEST_LINE_MAX = 80  # characters: "判断这条评价的情感倾向（正面/负面/中性）"


# a request for a new text from a record it points at: "Write a follow-up email based on this call log.", "根据下面的会议记录写…"
_BASED_ON_SOURCE = re.compile(r"(?i:\b(?:based\s+on|from|using|out\s+of)\s+(?:this|these|the\s+following|the\s+below|my)\s+"
                              r"(?:[a-z-]+\s+)?(?:log|notes|transcript|minutes|thread|chat|conversation|e-?mails?|messages?|"
                              r"report|recording)\b)|根据(?:这|以下|下面)(?:段|份|条|个|些)?[^。！？\n]{0,8}?(?:记录|纪要|聊天|对话|邮件|消息|笔记|录音)")


# an opening paragraph that announces the text after it: "Here is last year's card. Reuse it …", "I'll paste my draft
# below, then tell you what to change.", "下面是去年的贺卡，照着改一下"
_ANNOUNCES_TEXT = re.compile(r"(?i:\b(?:here\s+is|here's|here\s+are|below\s+is|i'll\s+paste|i\s+will\s+paste|i'm\s+pasting|"
                             r"pasting)\b)|以下是|下面是|我贴一下|我把[^。！？\n]{0,10}?贴(?:在)?(?:下面|上来)")


# a first line that announces a piece of writing by its name, with what to do on it or a question about it: "Here's chapter
# 12, look at the pacing.", "Here are my song lyrics, can you suggest a bridge?", "这是第二章，只挑错字。", "这是我写的小说开头，你
# 觉得怎么样？", "这是第二版，有什么问题吗？" — the lines under it are that piece (not a bundle of rules or files "to review")
_ANNOUNCED_WORK = re.compile(
    r"[ \t]*(?i:(?:here(?:'s|\s+is|\s+are)|this\s+is|these\s+are)\s+(?:(?:my|our|the|a|his|her|their)\s+)?(?:[a-z-]+\s+){0,2}?"
    r"(?:chapters?|scenes?|poems?|lyrics|songs?|stor(?:y|ies)|drafts?|essays?|letters?|speech|script|verses?|stanzas?|chorus|"
    r"prologue|epilogue|excerpt|passage|toast|eulogy|manuscript|screenplay|v\d{1,2}|version\s+\d{1,2})\b(?:\s*\d{1,3})?"
    r"(?:\s+(?:draft|again|now))?\s*[,—–-]\s*)"
    r"|[ \t]*(?:[^。！？\n]{0,20}?[，,][ \t]*)?这是(?:我(?:写|改)?的|我们的|新的?|改过的|修改后的|最新的?)?[\u4e00-\u9fff]{0,10}?(?:第[一二三四五六七八九十\d]+[章节幕场集回版稿]|"
    r"诗|歌词|小说|故事|剧本|稿子?|文章|作文|开头|结尾|台词|散文|章节|初稿|草稿|[新二三四五终]版|文案|通知|公告|致辞|发言稿|摘要|"
    r"简历|邮件|报告|告示|须知|标语|海报|说明书?|祷文|祷告|祷词|经文|誓词|悼词|祭文|主持词|祝酒词|回向文?|致歉词|道歉信?|话术|脚本|"
    r"开场白|快捷回复|直播稿)"
    r"[\u4e00-\u9fff]{0,2}?[，,：:][ \t]*")


# a first line that points below at a text to post or keep as it is: "注意：以下内容要张贴，请勿删减。", "The text below goes on
# the door as is."
_POSTED_AS_IS = re.compile(r"(?:以下|下面|如下)[^。！？\n]{0,12}?(?:张贴|贴出|公布|发布|打印|原样|别改|不要改|勿删|请勿删减|不要删)"
                           r"|(?i:\b(?:below|following)\b[^.!?\n]{0,40}?\b(?:as[ \t]+is|verbatim|word[ \t]+for[ \t]+word|"
                           r"(?:don'?t|do[ \t]+not)[ \t]+(?:change|edit|shorten))\b)")


# a piece named on a line of its own, a dash after it: "Closing prayer draft —⏎⏎Lord, thank you …"
_DASH_LABEL = re.compile(r"[ \t]*(?i:(?:(?:my|our|the|a|her|his)[ \t]+)?(?:[a-z-]+[ \t]+){0,3}?(?:" + _PIECES_EN + r"|draft)"
                         r"(?:[ \t]+draft)?)[ \t]*[—–-]+[ \t]*")


# a first line that asks about a text received, under it: "Our bank sent this SMS, is it legit?", "客户在微信上发了这个，我该怎么
# 回？", "这条银行短信是真的吗？"
_RECEIVED_ASK = re.compile(r"(?i:\b(?:sent|got|received|forwarded|texted|e-?mailed)\s+(?:me\s+|us\s+)?this\b|\bthis\s+(?:sms|text|message|"
                           r"e-?mail|dm|letter|notice|voicemail|reply)\b)"
                           r"|(?:发了|发来|收到|转来|回了)(?:这个|这条|这封|一条|一封)|这(?:条|封|个)[^？?\n]{0,12}?(?:短信|消息|邮件|微信|通知|私信|留言)")


# a first line that says only how to change what follows: "Make this firmer", "帮我改得强硬一点", "改得友好一点"
_CHANGE_IT_LINE = re.compile(r"(?:请|麻烦)?(?:你)?(?:帮我)?(?:把它|把这个)?(?:改|写|说|弄)得(?:更|再)?[\u4e00-\u9fff]{1,6}?(?:一点|一些|点|些)?[。！!]?"
                             r"|(?i:(?:please\s+)?(?:make|rewrite)\s+(?:this|it)\s+(?:more\s+|less\s+|a\s+bit\s+|a\s+little\s+|sound\s+)?"
                             r"[a-z]+(?:\s+please)?[.!]?)")


def _request_line_payload(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The lines after a turn's first line when that line is a short request that points at a text, with no colon
    ("判断这条评价的情感倾向（正面/负面/中性）⏎谢谢你们的服务，不过…", "帮我把这段话改得礼貌一点⏎老板，谢谢你的提醒，…")."""
    s = _past_greeting(text, s, e)
    nl = text.find("\n", s, e)
    if nl < 0:
        return []
    a, b = _stripped(text, s, nl)
    # (also a bare request with a few rules for it on its line: "Translate into English. Don't translate literally.",
    # "翻译成英文，要求：不要用缩写。")
    bare = _bare_work_line(text, a, b, period=True) or _bare_work_then_rules(text, a, b) or (
        (rule := _RULES_CLAUSE.search(text, a, b)) is not None and _bare_work_line(text, a, rule.start())) \
        or _JA_KO_WORK.fullmatch(text, a, b) is not None  # ("日本語に訳してください。⏎谢谢你的帮助，麻烦你了。")
    announced = _ANNOUNCED_WORK.match(text, a, b) is not None
    if not 0 < b - a <= _REQUEST_LINE_MAX or text[b - 1] in ":：" and not (bare or announced) or not (
            _requests_work_on(text, a, b) or text[a:b].endswith(("如下", "如下所示", "below", "Below")) or bare
            or _BASED_ON_SOURCE.search(text, a, b)
            or _ANNOUNCES_TEXT.match(text, a, b) and text[b - 1] in "?？" or announced
            or _POSTED_AS_IS.search(text, a, b) or _DASH_LABEL.fullmatch(text, a, b)
            or text[b - 1] in "?？" and _RECEIVED_ASK.search(text, a, b) or _CHANGE_IT_LINE.fullmatch(text, a, b)):
        # ("Fix the grammar⏎Hi, could you …", "翻译一下⏎请把发票发给我", "Here's v2, what changed?⏎…")
        return []
    pa, pb = _stripped(text, nl, _handed_text_end(text, nl, e, None))
    if pb <= pa or _is_task_instruction(text, pa, pb) or _CLOSING_THANKS.fullmatch(text, pa, pb):
        return []  # (an instruction, or the user's bare "Thanks!")
    if text[b - 1] in ".。" and _LIST_ITEM.match(text, pa, pb):
        return []  # (a whole sentence over a list: "Summarise the report.⏎- Always cite the page.⏎- …" — its rules)
    if text[pa] in "\"“「『":
        return []  # (a quotation: the quote finder keeps it, and only it — 'Proofread:⏎"Dear Mr. Kim, …"⏎Only fix errors.')
    return [(pa, pb, "introduced", f"kept: the text handed over under the request {_short(text[a:b], 50)!r}")]


# a turn's opening sentence that hands over what follows it in its paragraph, without a colon: a verbatim cue ("The
# agent must say this word for word. Hello, …", "…, exactly as it is. Hi! …") or a question about the tone of what
# follows ("Is this too pushy? Hi Tom, …", "Is the tone OK for a first message to a recruiter?⏎⏎Hi Bob, …")
_VERBATIM_SENTENCE = re.compile(r"[^.!?。！？\n]{0,120}?(?:(?i:\b(?:word\s+for\s+word|verbatim|exactly\s+as\s+(?:it\s+is|written)|"
                                r"as\s+is)\b)|原样|一字不改|原封不动)[^.!?。！？\n]{0,40}?[.。!！]")
# a sentence asking for a translation, then on its line the text: in the other script after an English request
# ("Translate to English. 不好意思，…"), in any script after a Chinese one, which names the language to put it into
# ("翻译成英文。麻烦您周五前回复，谢谢！", "我们App的客服机器人提示词，翻译成英文。回答不要超过三句话。", "英译中。Thanks so much!")
_TRANSLATE_SENTENCE = re.compile(r"(?i:(?:please[ \t]+)?translate(?:[ \t]+(?:this|it))?(?:[ \t]+(?:in)?to[ \t]+[a-z]+)?[ \t]*[.!:][ \t]*)"
                                 r"(?=[\u4e00-\u9fff])|(?:[^。！？\n]{0,24}?[，,][ \t]*)?(?:(?:请|麻烦)?(?:帮我)?(?:翻译|翻|译)(?:成|为)"
                                 r"[\u4e00-\u9fff]{1,4}?(?:文|语)|[英中汉日韩法德]译[英中汉日韩法德])[。！：:][ \t]*(?=\S)")
_TONE_QUESTION = re.compile(r"(?i:[^.!?\n]{0,20}?\bthe\s+tone\b[^.!?\n]{0,80}?\?)"
                            r"|(?i:[^.!?\n]{0,20}?\b(?:what|which)\s+tone\b[^.!?\n—–]{0,40}?[—–:])"
                            r"|(?i:[^.!?\n]{0,20}?\b(?:this|my\s+(?:message|email|reply|note|text|draft))\b[^.!?\n]{0,50}?"
                            r"\b(?:pushy|rude|polite|formal|informal|professional|friendly|appropriate|tone|sound|blunt|harsh|"
                            r"curt|cold|casual|aggressive|natural|correct|grammatical|idiomatic|fluent|come\s+across)\b"
                            r"[^.!?:\n]{0,50}?[?:])|[^。！？\n]{0,20}?(?:这段|这条|这封|这样)[^。！？\n]{0,20}?"
                            r"(?:语气|礼貌|正式|客气|生硬|合适|得体)[^。！？\n]{0,20}?[吗？?]+"
                            # "这个推送的语气可以吗？", "这个弹窗文案怎么样？", "Friendlier version of this error?"
                            r"|[^。！？\n]{0,10}?(?:这个|这段|这条|这句|这版|这篇)[^。！？\n]{0,8}?(?:文案|推送|弹窗|提示|通知|标题|按钮|"
                            r"短信|文字|话术|措辞|语气)[^。！？\n]{0,10}?(?:怎么样|如何|可以吗|行吗|好吗|合适吗|妥吗|自然吗)[？?]"
                            r"|(?i:[^.!?\n]{0,20}?\b(?:[a-z]+er|more\s+[a-z]+)\s+version\s+of\s+(?:this|the\s+following)\b[^.!?\n]{0,30}?[?:])")


# an opening sentence that names the text after it on its line: a question about it ("Is this reply too apologetic?
# Hi Jenna, …", "这条评价是好评还是差评？谢谢卖家，…") or a request to work on it ("Shorten this alert text. Hi team, …");
# and, opening the turn, a bare request ("润色。感谢您…", "TL;DR. Hi team, …", "Translate to Spanish. Please don't …")
_NAMED_TEXT_SENTENCE = re.compile(
    r"(?i:(?:is|does|would|will|can|could|should)\s+(?:this|my)\s+(?:[a-z-]+\s+){0,2}?(?:e-?mail|letter|message|text|reply|"
    r"response|review|comment|note|post|tweet|caption|draft|alert|notification|announcement|opener|greeting|sentence|"
    r"paragraph|copy|customer|client|donation|superchat|script|pitch)\b[^.!?\n]{0,60}?\?[ \t]+)"
    # an item asked about, on the question's line: "Which intent is this? Hi, I'd like …", "这个客户生气了吗？不好意思，…"
    r"|(?i:(?:which|what)\s+(?:intent|sentiment|label|category|tone|emotion|class|topic)(?:\s+(?:is|does|would)\s+(?:this|it)\b"
    r"[^.!?\n]{0,30}?)?\?[ \t]+)"
    r"|这(?:个|位|条|封|句)(?:客户|用户|顾客|买家|评论|消息|留言|邮件|评价|回复)[^。！？\n]{0,12}?(?:吗|么|呢|没有|不)[？?][ \t]*"
    r"|(?:这条|这句)[^。！？\n]{0,8}?(?:是什么|属于|算)(?:什么)?(?:意图|情感|类别|标签)[^。！？\n]{0,6}?[？?][ \t]*"
    # "Can you make this text shorter? Thanks for everything …"
    r"|(?i:(?:can|could|would)\s+you\s+(?:please\s+)?(?:make|get)\s+(?:this|my)\s+(?:[a-z-]+\s+){0,2}?(?:text|message|e-?mail|note|"
    r"reply|post|caption|card|letter|draft)\b[^.!?\n]{0,40}?\?[ \t]+)"
    # "Here's what I want to text my landlord, can you make it sound better? Hi Tom! …"
    r"|(?i:here(?:'s|[ \t]+is)[ \t]+what[ \t]+I[ \t]+(?:want|plan|'m[ \t]+going|am[ \t]+going|need)[ \t]+to[ \t]+(?:text|send|say|write|"
    r"post|tell|e-?mail)\b[^.!?\n]{0,60}?[?.:][ \t]+)"
    # "Here's the reply I drafted to a complaint, can you tighten it? Hi Sam, …"
    r"|(?i:here(?:'s|[ \t]+is)[ \t]+(?:the|my|our|a)[ \t]+(?:[a-z-]+[ \t]+){0,2}?(?:reply|response|message|e-?mail|caption|post|draft|"
    r"text|note|bio|tweet|comment|letter|dm|script|pitch|announcement)\b[^.!?\n]{0,60}?\?[ \t]+)"
    # "Voicemail script I'm using, is it too long? Hi Beth, …", "My cold email, does it sound pushy? Hey Sam, …"
    r"|(?i:(?:here'?s[ \t]+|this[ \t]+is[ \t]+)?(?:(?:my|our|the|a)[ \t]+)?(?:[a-z-]+[ \t]+){0,2}?(?:script|e-?mail|message|text|"
    r"note|pitch|post|caption|draft|greeting|intro|opener|bio|tweet|reply|blurb|toast|speech)(?:[ \t]+(?:I|we)(?:'m|[ \t]+am|'re|"
    r"[ \t]+are)?[ \t]+(?:using|sending|wrote|drafted|have|planning[ \t]+to[ \t]+(?:use|send)))?[ \t]*[,—–][ \t]*"
    r"(?:is|does|would|will|should|can|could)[ \t]+(?:it|this|that)\b[^.!?\n]{0,60}?\?[ \t]+)"
    rf"|(?i:(?:please\s+)?(?:{_TASK_VERB_EN}|shorten|make)\s+(?:this|the\s+following)\b(?![ \t]+(?:dear|hi|hello|hey)\b)"
    r"[^.!?:\n]{0,60}?\.[ \t]+)"  # (not "polish this Dear Professor Adams, …": the text opens at its salutation)
    # "Can you proofread this RSVP card? Please RSVP by …", "Check the tone of this line from our invite. We kindly …"
    rf"|(?i:(?P<piece>(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:{_TASK_VERB_EN})|what\s+do\s+you\s+think\s+(?:of|about))"
    r"\s+(?:this|my|our)\s+(?:[a-z-]+\s+){0,2}?"
    r"(?:" + _PIECES_EN + r"|line|sentence|notice|sign|rsvp|paragraph|wording)s?\b[^.!?\n]{0,40}?\?[ \t]+)"
    r"|(?:please\s+)?(?:check|proofread|review|fix|polish|improve)\s+(?:the\s+)?(?:tone|grammar|wording|spelling|punctuation)\s+"
    r"(?:of|in)\s+(?:this|my|our)\b[^.!?:\n]{0,60}?\.[ \t]+)"
    # "帮我看看这句话。请各位来宾于11点前入席，谢谢配合。"
    r"|(?:请|麻烦)?(?:你)?(?:帮我)?(?:看看|看一下|检查一下|改改|改一下)(?:这句话|这段话|这句|这段|这条)[。！][ \t]*"
    # "How do you say this in Spanish? Thank you so much for everything!", "这句用英语怎么说？谢谢您的耐心等待。"
    r"|(?i:how\s+(?:do\s+(?:you|I)|would\s+you|to)\s+say\s+this\s+in\s+[a-z]+\s*\?[ \t]+)"
    r"|(?:这句|这个|这段)(?:话)?用(?:英语|英文|中文|日语|日文|韩语|法语|德语|西班牙语)(?:该)?怎么(?:说|讲|写)[？?][ \t]*"
    # "Can you check the grammar? I am writing to kindly remind you …"
    r"|(?i:(?:can|could|would)\s+you\s+(?:please\s+)?(?:check|fix|correct|proofread|improve)\s+(?:the\s+|my\s+)?"
    r"(?:grammar|spelling|punctuation|wording|english|chinese|japanese|french|spanish|german|korean)\b[^.!?\n]{0,30}?\?[ \t]+)"
    r"|(?:这条|这段|这封|这句|这个|这则)[\u4e00-\u9fff]{0,2}?(?:回复|评价|评论|消息|短信|邮件|留言|文案|通知|公告|话术|开场白)"
    r"[^。！？\n]{0,20}?[？?][ \t]*"

    # what a text means, asked in English before it (on its line or the line above): "What does this mean? 不好意思，今天不
    #营业。", "What does this mean? Thank you for reaching out, please allow …", "My neighbor left this note, what does it
    # say? 你好，…"; "Can you translate? 谢谢，不用了。" (in Chinese)
    r"|(?i:(?:[^.!?\n]{0,80}?[,;—–][ \t]*)?(?:what\s+(?:does|do|did)\s+(?:this|it|that|these|they|he|she)\b[^.!?\n]{0,50}?"
    r"\b(?:mean|say)\s*\?(?:[ \t]+|[ \t]*\n[ \t]*)"
    r"|(?:can|could|would)\s+you\s+(?:please\s+)?translate(?:\s+(?:this|it))?(?:\s+(?:in)?to\s+[a-z]+)?(?:\s+for\s+me)?\s*\?[ \t]+"
    r"(?=[\u4e00-\u9fff])))"
    # … or in Chinese: "这是什么意思？不好意思，今天不营业。", "这句话对吗？不好意思，…", "这句话哪里不对？…"
    r"|(?:请问)?(?:这|这句话?|这段话?|这条|这个)(?:是|又是)?(?:什么|啥)意思(?:啊|呀|呢)?[？?][ \t]*"
    # whether it is real, asked before it: "Is this legit? Hi, please verify your account …", "这是真的吗？亲，…"
    r"|(?i:(?:is|was)\s+(?:this|it)\s+(?:legit|legitimate|a\s+scam|real|genuine|phishing|spam)\b[^.!?\n]{0,30}?\?[ \t]+)"
    r"|(?:这|这个|这条)(?:是)?(?:真的|骗子|诈骗|骗局|正规的?|官方的?|靠谱)(?:吗|么|嘛)[？?][ \t]*"
    r"|(?:请问)?(?:这句话?|这段话?|这样说|这么说)(?:对吗|对不对|通顺吗|自然吗|地道吗|有问题吗|有没有问题|有没有错|哪里不对|哪里错了|"
    r"有语病吗|礼貌吗)(?:啊|呀|呢)?[？?][ \t]*"
    # (the next one asked about the same way: "那这句呢？不好意思，请问可以拼桌吗？")
    r"|(?:那|还有)?(?:这句|这段|这条|这一句)(?:话)?呢[？?][ \t]*"
    # "Natural? Sorry to bother you again.", "Is this natural? …", "What do you think of this opening line for my cover
    # letter? Hello, …"
    r"|(?i:(?:is\s+(?:this|it)\s+|does\s+(?:this|it)\s+sound\s+)?(?:natural|correct|grammatical|idiomatic|polite|rude)"
    r"(?:\s+english)?\s*\?[ \t]+)"
    r"(?=[^ \t\n])")
# (only opening the turn: "1. 请总结。2. 请翻译。" lists tasks)
_BARE_WORK_SENTENCE = re.compile(rf"(?:(?:请|麻烦)?(?:帮我)?{_TASK_VERB_ZH}(?:一下)?[。！][ \t]*"
                                 r"|(?i:tl;?dr|proofread|polish|(?P<edit>simplify|shorten|condense|rewrite|rephrase|paraphrase|reword|"
                                 r"summari[sz]e|soften|formali[sz]e)|fix\s+the\s+(?:grammar|typos|spelling)|translate\s+(?:in)?to\s+"
                                 r"[a-z]+"
                                 # "Check the grammar of my sentence. I'm sorry for reply late, …"
                                 r"|(?:please\s+)?(?:check|fix|correct|proofread)\s+(?:the\s+(?:grammar|spelling|english|wording)\s+"
                                 r"(?:of|in)\s+)?(?:my|this)\s+(?:sentence|line|paragraph|message|reply|answer|translation)s?)"
                                 r"[.!][ \t]+)(?=[^ \t\n])"
                                 # (or no stop at all, the text opening with its salutation: "polish this Dear Professor
                                 # Adams, sorry to bother you. …", "帮我润色一下 王老师您好，不好意思打扰您，…")
                                 r"|(?i:(?:please\s+)?(?:proofread|polish|edit|fix|check|correct|improve|rewrite|shorten|"
                                 r"translate|reword|rephrase)\s+this(?:\s+(?:for\s+me|e-?mail|message|note|text|draft))?"
                                 # ("Polish this, thanks! Dear Ms. Park, …": the user's thanks, then the text)
                                 r"(?:,?[ \t]*(?:thanks|thank[ \t]+you|thx|please|pls)[!.]?)?[ \t]+)"
                                 r"(?=(?i:dear|hi|hello|hey|good\s+(?:morning|afternoon|evening))\b)"
                                 rf"|(?:请|麻烦)?(?:帮我)?{_TASK_VERB_ZH}(?:一下)?[ \t]+"
                                 r"(?=(?:尊敬的|亲爱的)|[\u4e00-\u9fff]{0,6}?(?:您好|你好))"
                                 r"|(?:请|麻烦)?(?:帮我)?(?:翻译|翻成|译成)(?:一下)?(?:成?(?:英文|英语|中文|日文|日语))?[ \t]+(?=[^ \t\n])"
                                 # (or a dash or an arrow between the request and its text: "fix grammar - sorry for late
                                 # rent, …", "make it polite → hi, sorry to bother you, …", "帮我改得正式一点——不好意思，…")
                                 r"|(?i:(?:please\s+)?(?:fix|check|correct|proofread|polish|rewrite|reword|rephrase|shorten|"
                                 r"translate|make|improve|edit|tidy)\b[^.!?:\n—–→>\-]{0,50}?)[ \t]*(?:[ \t]-|—|–|→|->|=>)[ \t]*(?=\S)"
                                 rf"|(?:请|麻烦)?(?:帮我)?(?:{_TASK_VERB_ZH}|改得|写得)[^。！？：:\n—]{{0,12}}?[ \t]*(?:——|—|→|->)[ \t]*(?=\S)"
                                 # (or a translation asked, then the words in the other script: "translate to english 非常抱歉，…")
                                 r"|(?i:(?:please\s+)?translate\s+(?:(?:this|it)\s+)?(?:in)?to\s+[a-z]+)[ \t]+(?=[\u4e00-\u9fff])")


_VERBATIM_HINT = re.compile(r"(?i:word\s+for\s+word|verbatim|exactly\s+as|as\s+is)|原样|一字不改|原封不动")


# reported words that open a turn, with a full stop ("Our customer wrote this. Hello, …"), and a label with one
# ("原文。尊敬的王老师，…")
_REPORTED_SENTENCE = re.compile(r"(?i:(?:our|the|my|a|this)?\s*(?:" + _SENDERS_EN + r"|user|mother|father|he|she|they|someone|"
                                r"co-?author|reviewer)\s+"
                                r"(?:just\s+|already\s+|also\s+)?"
                                r"(?:wrote|said|sent|texted|e-?mailed|posted|replied|messaged|forwarded)\s+(?:me\s+|us\s+)?"
                                # ("My co-author wrote this to the editor and I think it's too informal.")
                                r"(?:this|the\s+following)(?:\s+(?:to|for)\s+(?:the|my|our|a|an)\s+[a-z-]+)?"
                                r"(?:\s*,?\s+(?:and|but)\s+[^.!?\n]{1,60})?\s*[.。]"
                                # ("Here is what I wrote to the reviewer.")
                                r"|here(?:'s|’s|\s+is)\s+what\s+(?:I|we)\s+(?:wrote|sent|drafted|have)(?:\s+(?:to|for)\s+(?:the|my|our|a|an)\s+"
                                r"[a-z-]+(?:\s+[a-z-]+)?)?\s*[.。]|(?:got|received|here'?s|here\s+is)\s+(?:this|a|the)\s+(?:text|message|"
                                r"e-?mail|note|reply|comment|review|voicemail|dm)\s+(?:I\s+got\s+)?from\s+(?:(?:my|our|the|a|an)\s+)?"
                                r"[a-z]+(?:\s+[a-z]+)?\s*(?:[.:。]|,[^.?!\n]{0,40}?\?)|(?:my|our|the)\s+(?:[a-z-]+\s+){0,2}?(?:paragraph|essay|conclusion|"
                                r"introduction|intro|answer|draft|story|poem|summary|abstract|statement|e-?mail|letter|"
                                r"message|text|sentence|response|cover\s+letter|template|reply|script|prompt|bio|post|"
                                r"announcement|notice|invitation|note)\s+is\s+below\s*[.:。])"
                                r"|(?:原文|原话|内容|正文|全文)[。.]"
                                # ("这是我写给编辑的邮件。")
                                r"|(?:这是|以下是|下面是)(?:我|我们)(?:写|发|回)给[\u4e00-\u9fff]{1,8}?的(?:邮件|信|消息|回复|留言|短信|微信)[。.]"
                                # what someone said, asked about before it: "review 里有人这么说，什么意思？⏎⏎…"
                                r"|[^。！？\n]{0,20}?(?:这么|这样)(?:说|写|回复?|评论|留言)(?:的|了)?[，,][^。！？\n]{0,16}?[？?]"
                                r"(?:[^。！？\n]{0,12}(?=\n))?"
                                # a question that asks for work on what follows: "Can you translate this into German for me?"
                                rf"|(?i:(?:can|could|would|will)\s+you\s+(?:please\s+)?{_TASK_VERB_EN}\s+(?:this|these|the\s+following|"
                                r"my\s+(?:[a-z]+\s+){0,2}?(?:e-?mail|letter|message|essay|draft|paragraph|text|note|reply|"
                                r"cover\s+letter|statement))"
                                r"\b[^?.!\n]{0,60}\?)"
                                # or how to answer it: "How should I respond to this message?", "这条消息怎么回？"
                                r"|(?i:(?:how|what)\s+(?:should|do|would|could|can)\s+I\s+(?:reply|respond|answer|say)\b[^?.!\n]{0,40}?"
                                r"\b(?:this|these|the\s+following)\b[^?.!\n]{0,30}\?)"
                                r"|(?:这条|这封|这则|这段)[^。！？\n]{0,10}?(?:怎么|如何|该怎么)(?:回|回复)[^。！？\n]{0,6}?[？?]"
                                # or what a sentence it names means: "这句英文什么意思？Thanks a lot, please bear with us."
                                r"|(?:这句|这段|这条|这个)(?:英文|英语|中文|日语|日文|话|句子)?[^。！？\n]{0,10}?(?:什么意思|啥意思|"
                                r"怎么理解|怎么翻译|对吗|通顺吗|地道吗|礼貌吗)[？?]"
                                # or a question about a notice or message it names: "这是物业的通知，合理吗？"
                                r"|(?:这是|以下是|下面是)[^。！？\n]{0,12}?(?:通知|消息|邮件|短信|公告|留言|来信|回复|合同条款|条款)"
                                r"[，,][^。！？\n]{0,20}?[？?]")


# a question and the answer given to it, in one line ("Q: Why should we hire you? A: …", "问：…？答：…"), and the sentence
# after the answer that asks about it ("How was my answer?", "请点评。")
_QA_ANSWER = re.compile(r"(?:(?<![^\s])(?i:Q)[ \t]*[:：][^\n]{1,300}?(?<![^\s?？.。])(?i:A)[ \t]*[:：]|问[ \t]*[:：][^\n]{1,300}?答[ \t]*[:：])[ \t]*")
_ABOUT_THE_ANSWER = re.compile(r"(?<=[.!?。！？])[ \t]*(?=(?i:how\s+(?:was|is|did|would)|what\s+do\s+you\s+think|is\s+(?:it|this|that|my)|"
                               r"any\s+(?:feedback|tips)|please\s+(?:critique|review|rate|give)|can\s+you|could\s+you|rate\s+it)\b|"
                               r"请点评|请评价|你觉得|这样回答|帮我看看|点评一下|怎么样)")


_OPENING_REACH = 160  # characters: the greeting and small talk before reported words
# what says more of the task after a bare request sentence ("Rewrite. Make it shorter.", "润色。控制在100字以内。")
_MORE_OF_THE_TASK = re.compile(r"[ \t]*(?i:make|keep|add|remove|cut|change|use|don't|do\s+not|no\s+more|less|more|shorter|"
                               r"longer|in\s+\d+|under\s+\d+|max(?:imum)?|at\s+most)\b|[ \t]*(?:改|保留|不要|别|控制在|字数|限)")
# an opening sentence that says the user is about to send what follows and asks about it: "我准备这么回客户，你看行不行。…",
# "I'm going to post this in #general, any tweaks? Hi all! …"
_PREVIEW_SENTENCE = re.compile(
    # "请柬最后一句这样写行吗？恭候您的光临，谢谢！", "这样回复老师可以吗？好的，谢谢老师，辛苦了！"
    r"[^。！？\n]{0,12}?(?:这么|这样)(?:写|说|回|回复)[\u4e00-\u9fff]{0,4}?(?:行|可以|合适|好|得体)(?:吗|不|么)[？?][ \t]*|"
    r"[^。！？\n]{0,12}?(?:我|准备|打算|想|要|就)(?:这么|这样)(?:回|回复|写|说|发|回答|答复)[^。！？\n]{0,16}?[，,]?[^。！？\n]{0,10}?"
    r"(?:行不行|可不可以|可以吗|行吗|好吗|怎么样|合适吗|妥吗|看看|如何)[。？?！!][ \t]*"
    # (the text after the frame's comma or colon: "我想这样回客户，感谢您的耐心等待，…。可以吗", "我准备给客户发这个：您好，…")
    r"|[^。！？\n]{0,6}?(?:准备|打算|想|要|就)(?:这么|这样)(?:回|回复|写|说|发)[^，,。！？：:\n]{0,8}?[，,：:][ \t]*"
    r"|我?(?:想|要|准备|打算)(?:发|传|回|回复|寄)给[\u4e00-\u9fff]{1,6}?[：:][ \t]*"  # ("我想传给房东：你好，…")
    r"|[^。！？\n]{0,6}?(?:准备|打算|想|要)[^，,。！？：:\n]{0,8}?(?:发|回|回复)(?:这个|这段|这条|这句|如下)"
    r"(?:[，,][^，,。！？：:\n]{0,8}?)?[ \t]*[：:][ \t]*"
    # "这个开头怎么样：尊敬的王总，…"
    r"|[ \t]*(?:这个|这段|这句|这条|这版)(?:开头|结尾|开场白|文案|标题|回复|草稿|通知|消息)?(?:怎么样|如何|行吗|可以吗|好吗)[：:？?][ \t]*"
    # "Feedback on this? Hi Tom, …", "Quick check before I hit send — Hi Sam, …"
    r"|(?i:[ \t]*(?:any\s+)?(?:feedback|thoughts)\s+on\s+this\s*[?:]|[ \t]*quick\s+check\s+before\s+I\s+(?:hit\s+)?send\s*[—–:-])[ \t]+"
    # "I'm planning to reply with Hi there, thank you for waiting, …"
    r"|(?i:[^.!?\n]{0,30}?\b(?:going\s+to|about\s+to|planning\s+to|plan\s+to|want\s+to|gonna)\s+(?:reply|respond|answer|"
    r"write\s+back)\s+with[ \t]+(?!(?:a|an|the|something|some|my|our|this|that)\b))"
    r"|(?i:[^.!?\n]{0,30}?\b(?:going\s+to|about\s+to|planning\s+to|plan\s+to|want\s+to|gonna)\s+(?:post|send|reply\s+with|"
    r"text|e-?mail|share|publish|put\s+up)\s+this\b[^.!?:\n]{0,50}?[?:][ \t]+)(?=[^ \t\n])")


# a draft named at a turn's start, a dash after it and its words on the line: "Closing prayer draft — Thank you, Lord, …",
# "Grace before dinner, draft — …", "要念的悼词草稿——谢谢大家今天来…", "祝酒词草稿——谢谢各位赏光！…"
_DRAFT_DASH = re.compile(r"[ \t]*(?:(?i:(?:(?:my|our|the|a)[ \t]+)?(?:[a-z-]+[ \t]+){0,4}?(?:" + _PIECES_EN + r")(?:[ \t]+[a-z-]+){0,3}?"
                         r",?[ \t]+draft)|[^。！？\n—]{0,12}?(?:草稿|初稿))[ \t]*(?:——|—|–)[ \t]*(?=\S)")


def _is_cjk(words: str) -> bool:
    """Whether ``words`` hold more Chinese characters than Latin letters."""
    han, latin = _script_counts(words)
    return han > latin


def _names_its_piece(text: str, a: int, e: int) -> bool:
    """Whether the sentence at ``a`` asks for work on a piece it names ("Can you proofread this RSVP card?"): what
    follows is that piece, however it opens ("Please RSVP by April 20.")."""
    m = _NAMED_TEXT_SENTENCE.match(text, a, e)
    return m is not None and m.group("piece") is not None


def _opening_sentence_payload(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """What follows a turn's opening sentence that hands it over without a colon (``_VERBATIM_SENTENCE``,
    ``_TONE_QUESTION``, ``_REPORTED_SENTENCE``, ``_TRANSLATE_SENTENCE``, ``_NAMED_TEXT_SENTENCE``, ``_BARE_WORK_SENTENCE``),
    to the end of its paragraph (the next paragraph may ask something else), without an instruction that closes it."""
    a = s
    while a < e and text[a] in " \t\n":
        a += 1
    m = _DRAFT_DASH.match(text, a, e) or _VERBATIM_SENTENCE.match(text, a, e) or _TONE_QUESTION.match(text, a, e) \
        or _REPORTED_SENTENCE.match(text, a, e) \
        or _TRANSLATE_SENTENCE.match(text, a, e) or _NAMED_TEXT_SENTENCE.match(text, a, e) \
        or _BARE_WORK_SENTENCE.match(text, a, e) or _PREVIEW_SENTENCE.match(text, a, e)
    if m is None:  # (reported words may follow a greeting: "Hi there! Hope you're well. Got this text from a customer. …")
        for stop in _SENTENCE_STOP.finditer(text, a, min(e, a + _OPENING_REACH)):
            # (or a question about it: "您好！这个弹窗文案怎么样？⏎…")
            m = _REPORTED_SENTENCE.match(text, stop.end(), e) or _TONE_QUESTION.match(text, stop.end(), e) \
                or _NAMED_TEXT_SENTENCE.match(text, stop.end(), e) or _PREVIEW_SENTENCE.match(text, stop.end(), e) \
                or _TRANSLATE_SENTENCE.match(text, stop.end(), e)  # ("谢谢！翻译成英文。请问可以刷卡吗？")
            if m is not None:
                break
    if m is None:
        return []
    pa = m.end()
    thanks = _CLOSING_THANKS.match(text, pa, e)  # ("Can you explain this log? Thanks!⏎<the log>": the user's thanks)
    if thanks is not None and thanks.end() > pa and text.startswith("\n", thanks.end()):
        pa = thanks.end()
    while pa < e and text[pa] in " \t\n":
        pa += 1
    brk = _PARA_BREAK.search(text, pa, e)
    # (to the paragraph's end, without the instruction that may close it: "…⏎Draft a reply for our support team.")
    pa, pb = _stripped(text, pa, min(brk.start() if brk is not None else e, _handed_text_end(text, pa, e, None)))
    # (what a colon opens is the text asked about: "Is this too blunt: please reply by Friday, thanks."; a translation
    # request that names what it hands over hands over instructions too: "客服机器人提示词，翻译成英文。回答不要超过三句话。")
    named = m.re is _TRANSLATE_SENTENCE and ("，" in m.group(0) or "," in m.group(0))
    # (words in the other script than the question's are what it asks about, whatever they say: "这是什么意思？Thanks!",
    # "What does this mean? 谢谢")
    crossed = pb > pa and _is_cjk(m.group(0)) != _is_cjk(text[pa:pb])
    if m.group(0).rstrip().endswith(("?", "？")) and m.re is not _TRANSLATE_SENTENCE and not crossed \
            and m.re is not _PREVIEW_SENTENCE and _CLOSING_THANKS.fullmatch(text, pa, pb):
        return []  # ("这个顺序对吗？谢谢！": the thanks after the question is the user's; "Translate to English. 谢谢！" hands
        # the thanks over)
    if m.re is _BARE_WORK_SENTENCE and m.group("edit") and (_CLOSING_THANKS.fullmatch(text, pa, pb)
                                                            or _INSTRUCTION_PARA.match(text, pa, pb)
                                                            or _MORE_OF_THE_TASK.match(text, pa, pb)):
        return []  # after "Rewrite.", "Make it shorter, thanks!" says more of the task and "Thanks!" is the user's own
    if pb <= pa or _is_task_instruction(text, pa, pb) and not (m.group(0).rstrip().endswith((":", "：")) or named
                                                                or m.re is _TONE_QUESTION or m.re is _PREVIEW_SENTENCE
                                                                or _names_its_piece(text, m.start(), e) or crossed):
        # (after a question about a text's tone, or a frame that says it is about to be sent, what follows is that text
        # however it opens: "Can you make this sound less desperate? Please, please reply, thanks.")
        return []
    return [(pa, pb, "introduced", f"kept: the text handed over by {_short(m.group(0).strip(), 50)!r}")]


def _requests_work_on(text: str, s: int, e: int) -> bool:
    """Whether [s, e) is a short request that points at a text ("Please check this changelog …", "翻译下面的邮件")."""
    a, b = _stripped(text, s, e)
    return 0 < b - a <= _REQUEST_MAX and _TASK_VERB.search(text, a, b) is not None \
        and _REQUEST_POINTER.search(text, a, b) is not None and not _ROLE_SETUP.match(text, a, b)


# a request that works on the words of a text (after it: "here is my essay, please grade it", "帮我整理成待办清单")
_WORKS_ON_WORDS = re.compile(rf"(?i:\b{_en_stems(_EDIT, _CONDENSE, _LABEL, _CRITIQUE, _REVIEW)}\w*)"
                             rf"|{_zh_words(_EDIT, _CONDENSE, _LABEL, _CRITIQUE, _REVIEW, extra=('修改',))}")


_TEXT_POINTER = re.compile(r"(?i:\b(?:this|these|the\s+following|(?:my|our)(?:\s+[a-z][\w-]*)?)\s+(?:e-?mail|letter|message|text|"
                           r"paragraph|passage|poem|line|sentence|phrase|wording|quote|description|announcement|notice|draft|entry|entries|"
                           r"changelog|summary|bio|caption|readme|notes|"
                           r"review|comment|article|note|post|reply|contract|clause|document|chat|thread|transcript)s?\b)"
                           r"|这段|这篇|这封|这首|这份")
# a line of a chat log with its time: "[10:02] Alice: hey, …", "10:02 Bob: sure"
_LOG_LINE = re.compile(r"^[ \t]*\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]+[^:：\n]{1,30}[:：][ \t]", re.MULTILINE)


def _chat_log(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The lines of a timed chat log a user pastes (two lines or more in a row), quoted as they were written."""
    lines = list(_LOG_LINE.finditer(text, s, e))
    if len(lines) < 2:
        return []
    a = lines[0].start()
    end = text.find("\n", lines[-1].start(), e)
    a, b = _stripped(text, a, e if end < 0 else end)
    return [(a, b, "introduced", "kept: a chat log the turn quotes")] if b > a else []


_UNPOINTED_MAX = 3000  # characters of text before a request that does not point at it
_REFERENCE_TAIL = 400  # characters at a turn's end where "以上是我要发给老师的邮件" may stand
_ROLE_SETUP = re.compile(r"[ \t>*_]*(?:#|-{3}|(?i:you\s+are|you're|act\s+as|acting\s+as|i\s+want\s+you\s+to|your\s+"
                         r"(?:task|job|role|goal|mission)|as\s+an?\s|imagine|pretend|role\b|system\b)|你是|你现在是|你将|"
                         r"扮演|作为|假设你|请你扮演|我希望你|我想让你)")


# an agent label a person may write of their own observation too ("Observation: the page loads slowly …"); what a
# tool, a command or a search returned is never the user's own words ("Tool output: Please retry later.", "搜索结果：…")
_OBSERVED = re.compile(r"(?i:observation)|观察")
# the step a tool's observation answers, in the turn before: "Action: weather[Paris]", "Action Input: …"
_ACTION_LINE = re.compile(r"^[ \t]*(?:\*\*)?(?:Action(?:[ \t]+Input)?|行动|动作)(?:\*\*)?[ \t]*[:：]", re.MULTILINE)


def _action_before(text: str, s: int) -> bool:
    """Whether an agent's action step (a ReAct "Action:" line) ends the turn before the block at ``s`` (in its last
    paragraph): an observation that opens the block is what the action returned.  The one thing a block's own
    material reads outside the block (``find_material`` passes it in, and the block cache keys on it)."""
    before = text.rfind("\n\n", 0, max(s - 2, 0))
    return _ACTION_LINE.search(text, max(before, s - 1500, 0), s) is not None


# what printed a printed label's text, named: "Console output: Please enter your password: …" on its own line is what the
# console printed (a bare "Output: JSON only, please" is what is wanted)
_NAMED_PRINTER = re.compile(r"(?i:console|stdout|stderr|error[ \t]+message)")


def _after_an_action(text: str, s: int, label: int, acted: bool) -> bool:
    """Whether an agent's action step comes before the "Observation:" at ``label`` in the block at ``s``, or ends the
    turn before it (``acted``, see ``_action_before``): the observation is what the action returned."""
    return acted or _ACTION_LINE.search(text, s, label) is not None


def _task_material(text: str, s: int, e: int, payload: bool = True,
                   acted: bool = False) -> list[tuple[int, int, str, str]]:
    """The text a user's turn [s, e) hands over with its task, without quotes: after a line that asks for the work
    ("Translate to Spanish, keep it short for a push notification:", "Label this opener: …", "Now this one:"), under
    a label ("Paragraph 2: …"), between rule lines ("---") beside the request, and before a paragraph that says
    what it was ("——以上是我要发给老师的邮件，…")."""
    out: list[tuple[int, int, str, str]] = []
    colon = text.find(":", s, e) >= 0 or text.find("：", s, e) >= 0
    if not colon and text.find("\n", s, e) < 0:
        # one line without a colon (most chat turns): no intro, label, rule line, paragraph or reference; an opening
        # sentence may still hand the rest over ("…, exactly as it is. Hi! Thanks so much for your email. …")
        seg = text[s:e]
        if payload and any(h in seg for h in _REFERENCE_HINTS) \
                and (ref := _INLINE_REFERENCE.search(text, s, e) or _asked_after(text, s, e)) is not None \
                and ref.start() > s:
            a, b = _stripped(text, s, ref.start())
            if _CLOSING_THANKS.fullmatch(text, a, b) and _TRANSLATES.search(ref.group(0)):
                return out  # ("谢谢！翻译成英文。" after a reply: the thanks is the user's, the reply is what to translate)
            return [(a, b, "introduced", f"kept: the text that {_short(ref.group(0).strip(' -—<←'), 40)!r} says it hands over")]
        if payload and ("-" in seg or "—" in seg or "←" in seg or "→" in seg or "=>" in seg or "⇒" in seg) \
                and (work := _WORK_AFTER_TEXT.search(text, s, e)) is not None:
            a, b = _stripped(text, s, work.start())
            # (a question about the words before it — "这样跟财务说可以吗", "is this ok to send?" — asks about them whatever
            # they ask: "你好，麻烦帮我开一张发票，…"; a request after them may follow the user's own)
            asks_about = work.group(0).rstrip()[-1:] in "?？吗么"
            if b - a >= _WORK_AFTER_MIN and not (_CLOSING_THANKS.fullmatch(text, a, b)
                                                 or not asks_about and (_is_task_instruction(text, a, b)
                                                                        or _WRITE_A_TEXT.search(text, a, b))
                                                 or _width(text, a, b) <= _OWN_LEAD_IN_MAX and _OWN_LEAD_IN.search(text, a, b)):
                return [(a, b, "introduced", f"kept: the text the work after it is on "
                                             f"({_short(work.group(0).strip(' -—<←'), 40)!r})")]
        if payload and ("?" in seg or "？" in seg or "—" in seg or _VERBATIM_HINT.search(seg)
                        or any(w in seg for w in ("ranslate", "翻译", "翻成", "译成", "译中", "译英", "译汉", "elow"))
                        or _NAMED_TEXT_SENTENCE.match(seg.lstrip()) or _BARE_WORK_SENTENCE.match(seg.lstrip())
                        or _PREVIEW_SENTENCE.match(seg.lstrip())):
            return _opening_sentence_payload(text, s, e)
        return out
    if colon:
        # (a list after "Check these common spots:" is a checklist of the task; after "from these points:", its
        # source)
        intros = [m for m in _task_intros(text, s, e)
                  if not (m.group("bare") and not _may_open_bare(text[s:m.start()]))
                  and not (_TASK_NOT_TEXT.search(text, m.start(), m.end() - 1)
                           and not _IN_A_FORMAT.search(text, m.start(), m.end() - 1)
                           and not _TEXT_AS_FOLLOWS.search(text, m.start(), m.end() - 1)
                           and not _dictated(text, m.start(), m.end()))
                  and (m.group("source") or not _LIST_NEXT.match(text, m.end())
                       or _ITEM_NOUNS.search(text, m.start(), m.end()) or _TRANSLATES.search(text, m.start(), m.end())
                       or _VERBATIM_LINE.search(text, m.start(), m.end()))]  # ("开场白（请逐字使用）：" over its lines)
        labels = [m for m in _text_labels(text, s, e)
                  if (_reports(m, s) if m.re is _REPORTED_LABEL
                      else m.group("self") and (_TASK_VERB.search(text, s, e) or m.group("opening") and not text[s:m.start()].strip()
                                                or _A_TEXT_MADE.search(text, s, m.start()))
                      and not (m.group("opening") and _NEXT_FIELD.match(text, _line_end(text, m.end(), e) + 1, e))
                      or _label_named(text, s, e, m))]
        found = sorted(intros + labels, key=lambda m: m.start())
        starts = [m.start() for m in found]
        for k, m in enumerate(found):
            a = m.end()
            while a < e and text[a] in " \t\n":
                a += 1
            if a < e and text[a] in "\"“「『«'‘`":
                continue  # a quote or code: that finder keeps it (and only it)
            received = m.re is _REPORTED_LABEL and (m.group("received") is not None or _FROM_SOMEONE.match(m.group(0)))
            if not received and not (m.re is _TEXT_LABEL and m.group("opening")):
                # (on a received message's line, its sender's words: "Message from Sarah: could you …?"; on an opening
                # "Line:", the line's words: "Line: Please don't go.⏎⏎Please translate it …")
                a = _past_own_words(text, m.end(), a, e)
            # (what a program printed, named in Chinese, may stand on the label's line: "程序输出：请输入用户名，谢谢使用")
            printed_zh = m.re is _REPORTED_LABEL and m.group("printed") is not None and not m.group("printed").isascii()
            printed_named_en = m.re is _REPORTED_LABEL and m.group("printed") is not None \
                and (_NAMED_PRINTER.match(m.group("printed")) is not None or m.group("ui") is not None)
            if m.re is _REPORTED_LABEL and (m.group("printed") is not None and not printed_zh and not printed_named_en
                                            or m.group("message") is not None) \
                    and "\n" not in text[m.end():a]:
                continue  # "Output: JSON only, please": on its line, what is wanted, not what was printed; "Message: could
                # you tell me …?" the user's own (a bare "Message:" heads a message's text only alone on its line)
            agent = m.re is _REPORTED_LABEL and m.group("agent") is not None
            printed_intro = _PRINTED_INTRO.search(m.group(0)) is not None
            if (agent and a < e and "\n" not in text[m.end():a] and text[a].isalpha()
                    and _OBSERVED.match(m.group("agent")) and not _after_an_action(text, s, m.start(), acted)):
                continue  # "Observation: the page loads slowly on mobile. Could you …": the user's own note
            b = _handed_text_end(text, a, e, next((p for p in starts[k + 1:] if p > a), None)) if a < e else a
            if m.re is _REPORTED_LABEL and m.group("message") is not None and m.group("message") != "Message" \
                    and (br := _PARA_BREAK.search(text, a, b)) is not None:
                b = _stripped(text, a, br.start())[1]  # ("Ticket:⏎…⏎⏎What should I do first? Thanks!": one paragraph)
            if agent:  # what a tool returned is one paragraph ("Observation:⏎…⏎⏎Could you please write …?"), or the
                # rest of its label's line ("Tool output: Please retry.⏎Please explain, thanks.")
                br = _PARA_BREAK.search(text, a, b)
                b = b if br is None else _stripped(text, a, br.start())[1]
                if "\n" not in text[m.end():a]:
                    b = min(b, _line_end(text, a, e))
            elif (m.re is _REPORTED_LABEL and m.group("printed") is not None or printed_intro
                  or "\n" not in text[m.end():a] and (m.re is _SAME_LINE_VERB
                                                      or m.re is _REPORTED_LABEL and m.group("received") is not None
                                                      # (not a message whose greeting alone is on the label's line:
                                                      # "Her message: Hey,⏎⏎Thanks so much!")
                                                      and text[a:_line_end(text, a, e)].rstrip()[-1:] not in (",", "，"))):
                # what a program printed, or the words on a same-line label ("TL;DR: …", "The console shows: …"), is
                # one paragraph: the next is the user's again ("…⏎⏎How to fix? Thanks!")
                if printed_intro and "\n" not in text[m.end():a] and _POLITE_OUTPUT.search(text, a, b):
                    # (its line, when what it printed is polite itself: "It prints this and then exits: Please set
                    # DATABASE_URL. Thank you."; after an error, "Thanks!" is the user's)
                    b = max(b, _stripped(text, a, _line_end(text, a, e))[1])
                br = _PARA_BREAK.search(text, a, b)
                b = b if br is None else _stripped(text, a, br.start())[1]
            if (m.re is _REPORTED_LABEL and (m.group("subject") is not None or printed_zh or m.group("ui") is not None)
                    or m.re is _TEXT_LABEL and m.group("opening") is not None) and "\n" not in text[m.end():a]:
                b = min(b, _line_end(text, a, e))
                if m.re is _REPORTED_LABEL and m.group("ui") is not None \
                        and (about := _ABOUT_THE_ANSWER.search(text, a, b)) is not None:
                    b = _stripped(text, a, about.start())[1]  # ("Button label: Please click here. Can you make …?")  # (a subject is its line: "邮件主题：…⏎请帮我写邮件正文。"; so is what a
                # program printed on its label's line: "控制台打印：Please wait…⏎然后就不动了。")
            elif "\n" not in text[m.end():a] and b > (le := _line_end(text, a, e)) \
                    and (received and (_OWN_REQUEST_LINE.match(text, le + 1, e)
                                  or _ASKS_REPLY_IN_LINE.search(text, le + 1, _line_end(text, le + 1, e)))
                         or _own_asking_line(text, le + 1, e)
                         # (versions compared, one a line, then the user's question: "Version B: …⏎Which converts better?
                         # Thanks!", "版本B：感谢！⏎哪个更正式？谢谢！")
                         or m.re is _REPORTED_LABEL and m.group("compared") is not None and _WHICH_LINE.match(text, le + 1, e)):
                b = le  # (the user's request on the next line is theirs: "客户说：请尽快报价，谢谢！⏎帮我写个回复…", "Console
                # output: Error: ENOENT …⏎I cloned the repo and ran npm start. Could you please help me fix this?")
            if m.re is _REPORTED_LABEL and (received or m.group("moderated") or m.group("compared") or m.group("prompt")
                                            or m.group("prompt_named")) \
                    and "\n" in text[m.end():a] and b > a:
                # a message under its label ends before the user's own line under it ("Reporter's question:⏎Could you
                # please confirm …? Thanks.⏎Draft an answer. Do not admit liability.")
                k = _line_end(text, a, b)
                while k < b:
                    if _OWN_REQUEST_LINE.match(text, k + 1, b) or _OWN_LINE_UNDER_OUTPUT.match(text, k + 1, b) \
                            or _WORK_ON_IT_LINE.match(text, k + 1, b) \
                            or _own_asking_line(text, k + 1, b) or _DRAFT_LINE.match(text, k + 1, b):
                        b = _stripped(text, a, k)[1]
                        break
                    k = _line_end(text, k + 1, b)
            if m.re is _SAME_LINE_VERB and "\n" not in text[m.end():a] \
                    and (own := _OWN_AFTER_WORDS.search(text, a, b)) is not None and own.start() > a:
                b = _stripped(text, a, own.start())[1]  # ("Rewrite without …: Critics slammed the plan. Actually, please
                # keep it if it is inside a direct quote. Thanks!": the user's own again)
            if m.re is _TASK_INTRO and "\n" not in text[m.end():a] and _dictated(text, m.start(), m.end()):
                # words dictated on the intro's line are that line, up to a request after them ("Set the subject to:
                # Thanks for your order! Then write the body, please.", "结尾就写：谢谢大家，辛苦了！麻烦帮我写个年会致辞")
                b = min(b, _listed_lines_end(text, m, _line_end(text, a, e), e))
                after = _REQUEST_AFTER.search(text, a, b)
                if after is not None:
                    b = _stripped(text, a, after.start())[1]
            if a < b and "\n" not in text[m.end():a] and text[a].isascii() and text[a].isalpha():
                # an English text on a Chinese request's line ends where Chinese starts after a sentence: "帮我改这句：I has
                # been to Beijing twice. 每次最多指出3处错误。" (the rest is the user's)
                back = _LATIN_THEN_CJK.search(text, a, _line_end(text, a, b))
                if back is not None:
                    b = back.start() + 2
            if b > a:
                label = _short(m.group(0).strip(_LABEL_STRIP), 50)
                out.append((a, b, "introduced", f"kept: the text handed over after {label!r}"))
                if k == 0 and _BOTH_WAYS.search(text, m.start(), m.end()):  # "请把上面这段翻译成英文，下面这段也一起翻译："
                    pa, pb = _stripped(text, s, m.start())
                    if pb > pa:
                        out.append((pa, pb, "introduced", f"kept: the text handed over before {label!r}"))
    rules = list(_FENCE_RULE.finditer(text, s, e)) if any(text.find(r, s, e) >= 0 for r in _FENCE_MARKS) else []
    # (one fenced text beside a short request; a prompt of many "---" sections, or one that sets up a role, is no
    # text handed over)
    if 0 < len(rules) <= 2 and not _ROLE_SETUP.match(text, s, e):
        bounds = [s, *(x for m in rules for x in (m.start(), m.end())), e]
        parts = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
        asks = [b - a <= _REQUEST_MAX and bool(_TASK_VERB.search(text, a, b) and _REQUEST_POINTER.search(text, a, b))
                for a, b in parts]
        head = _stripped(text, *parts[0])
        if len(parts) == 3 and head[1] > head[0] and text[head[1] - 1] in ":：" and head[1] - head[0] <= _REQUEST_MAX:
            # a line that introduces the block between the rule lines: that block is the text ("Here is the style guide I
            # send to freelancers:⏎---⏎Answer in English. …⏎---⏎Is it clear?"), whatever its sentences ask
            a, b = _stripped(text, *parts[1])
            if b > a:
                out.append((a, b, "introduced", f"kept: the text between rule lines (---) after "
                                                f"{_short(text[head[0]:head[1]], 40)!r}"))
        elif sum(asks) == 1:
            for (a, b), ask in zip(parts, asks):
                a, b = _stripped(text, a, b)
                if not ask and b > a:
                    out.append((a, b, "introduced", "kept: the text handed over between rule lines (---), beside the "
                                                   "request that works on it"))
    if not out and colon:
        out.extend(_chat_log(text, s, e))
    for qa in _QA_ANSWER.finditer(text, s, e):  # a practice answer after its question: "Q: Why …? A: Honestly, I …"
        line_end = text.find("\n", qa.end(), e)
        end = e if line_end < 0 else line_end
        about = _ABOUT_THE_ANSWER.search(text, qa.end(), end)
        a, b = _stripped(text, qa.end(), end if about is None else about.start())
        if b > a:
            out.append((a, b, "introduced", "kept: an answer given after its question (Q: … A: …), to be looked at as it is"))
    if payload and not out:  # (a turn whose text a finder, a label or a rule line hands over has said so already)
        # (a request paragraph before the text it points at comes first: "Hey, could you make this email sound less
        # stiff? Thanks a lot!⏎⏎Dear Team, …" hands over the email, not the rest of its own paragraph)
        # (a draft named at the turn's start, with a dash, is the text whatever follows it: "Closing prayer draft — …⏎⏎Can
        # you make it warmer?")
        out.extend((_opening_sentence_payload(text, s, e) if _DRAFT_DASH.match(text, s, e) else [])
                   or _leading_question_payload(text, s, e) or _request_payload(text, s, e)
                   or _opening_sentence_payload(text, s, e) or _request_line_payload(text, s, e))
    # (the paragraph that says what the text was ends the turn: looked for in its last characters)
    tail = max(s, e - _REFERENCE_TAIL)
    tail = text.rfind("\n", s, tail) + 1 or s
    ref = _TRAILING_REFERENCE.search(text, tail, e) or _INLINE_REFERENCE.search(text, s, e)
    if ref is not None and ref.start() > s:
        a, b = _stripped(text, s, ref.start())
        if any(a < fa < b <= fb and text[a:fa].rstrip().endswith((":", "：")) for fa, fb, *_ in out):
            b = a  # (what the label or intro before it handed over ends there already: "Hey! Here's the DM:⏎…⏎Is this a scam?")
        if b > a and not (ref.re is _TRAILING_REFERENCE and ref.group("words") is not None
                          and (b - a > _WORDS_ASKED_MAX or "\n" in text[a:b] or _TASK_VERB.search(text, a, b)
                               or _is_task_instruction(text, a, b) or _WRITE_A_TEXT.search(text, a, b))):
            # (words asked about are a short line, no request: not the user's own "Write a story. Thanks!" before "Use
            # this phrase as the title.")
            out.append((a, b, "introduced", f"kept: the text that {_short(ref.group(0).strip(' -—_*='), 40)!r} "
                                            "says it hands over"))
    return out


# a turn the user says in character ("(in character as the bard) Thank you, thank you!", "（以吟游诗人的身份）谢谢大家！"), and
# words reported as said to someone ("我跟守卫说，劳驾让一让，谢谢了，我赶时间。"): their politeness is what is said
_IN_CHARACTER = re.compile(r"[ \t]*(?:\((?i:in[ \t]+character|IC)\b[^)\n]{0,40}\)|（(?:以|作为)[^）\n]{1,16}?(?:的身份|身份)?）|"
                           r"\[(?i:in[ \t]+character|IC)\b[^\]\n]{0,40}\])[ \t]*")
# a turn that steps out of a role-play ("(OOC: …)", "Now out of character: …", "Thanks, that was fun! Now explain …",
# 不玩了。): the user's own words again
_OUT_OF_CHARACTER = re.compile(r"(?i:\bOOC\b|\bout[ \t]+of[ \t]+character\b|\bbreak(?:ing)?[ \t]+character\b|"
                               r"\b(?:stop|end|pause)[ \t]+(?:the[ \t]+)?(?:rp|role-?play)\b|\bthat[ \t]+was[ \t]+fun\b)"
                               r"|不玩了|出戏|跳出角色|结束角色扮演|角色扮演结束|先暂停")
# the user's own first line in a practice or a role-play they open: "I start: Hello, could I please have a table for two?",
# "我先来：Excuse me, could you please tell me …? Thank you!" (to its line's end)
_MY_LINE = re.compile(r"(?i:\bI(?:'ll|\s+will)?\s+(?:start|go\s+first|begin)|\bhere'?s\s+my\s+(?:first\s+|opening\s+)?line|"
                      r"\bmy\s+(?:first\s+|opening\s+)line(?:\s+is)?)[ \t]*:[ \t]*|(?:我先来|我先说|我先开始|我的第一句(?:是)?)[ \t]*[：:][ \t]*")
_SAID_TO_ZH = re.compile(r"(?:我|他|她|我们)(?:跟|对|和|向)(?![你您])[\u4e00-\u9fff]{1,6}?(?:说|讲|喊|道)[，,：:][ \t]*")
_SAID_END = re.compile(r"[。！？!?\n]")


def _in_character(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """What a user turn [s, e) says in character, or reports said to someone (see ``_IN_CHARACTER``, ``_SAID_TO_ZH``)."""
    out = []
    m = _IN_CHARACTER.match(text, s, e) if seg.lstrip()[:1] in "(（[" else None
    if m is not None:
        end = e  # (up to an out-of-character part: "[IC] Sorry! Please don't shoot! [OOC] thanks, can you …")
        ooc = _OUT_OF_CHARACTER.search(text, m.end(), e)
        if ooc is not None:
            end = ooc.start()
            while end > m.end() and text[end - 1] in " \t[(（":
                end -= 1
        a, b = _stripped(text, m.end(), end)
        if b > a:
            out.append((a, b, "introduced", f"kept: said in character ({_short(m.group(0).strip(), 40)!r})"))
    if "先" in seg or "start" in seg or "line" in seg or "go first" in seg or "begin" in seg or "第一句" in seg:
        for m in _MY_LINE.finditer(text, s, e):
            le = _line_end(text, m.end(), e)
            if not text[m.end():le].strip() and le < e:  # (or the line under it: "我先来：⏎您好，…")
                le = _line_end(text, le + 1, e)
            a, b = _stripped(text, m.end(), le)
            if b > a:
                out.append((a, b, "introduced", f"kept: the user's own line in the practice ({_short(m.group(0).strip(), 30)!r})"))
    if "说" in seg or "讲" in seg or "喊" in seg or "道" in seg:
        for m in _SAID_TO_ZH.finditer(text, s, e):
            stop = _SAID_END.search(text, m.end(), e)
            a, b = _stripped(text, m.end(), e if stop is None else stop.end())
            if b > a:
                out.append((a, b, "introduced", f"kept: the words said to someone ({_short(m.group(0).strip(), 40)!r})"))
    return out


# the words a text is to say, given without a colon: "They want it to say please don't leave, we'll miss you, thank you
# for everything.", "it should say thank you for downloading, please enable notifications, and …" — to the sentence's end
_TO_SAY = re.compile(r"(?i:\b(?:wants?|wanted|would[ \t]+like|needs?)[ \t]+(?:it|this|the[ \t]+(?:card|message|note|text|sign|banner|"
                     r"popup|toast|email|caption))[ \t]+to[ \t]+(?:say|read)|\b(?:it|this|the[ \t]+(?:card|message|note|text|sign|"
                     r"banner|popup|toast|email|caption))[ \t]+(?:should|must|will|has[ \t]+to|needs[ \t]+to)[ \t]+(?:say|read)"
                     # "Write a text to my neighbor that says thanks for … and please knock next time."
                     r"|\b(?:a|an|the)[ \t]+(?:text|message|note|card|e-?mail|reply|sign)[ \t]+(?:to[ \t]+[^.!?\n]{1,30}?[ \t]+)?"
                     r"(?:that|which)[ \t]+(?:says|reads))[ \t]+"
                     r"(?=[A-Za-z\"“'‘])")
# words dictated inline: "Text my landlord saying sorry, …, thanks for understanding." (looked for only in a block that
# holds "saying")
_SAYING = re.compile(r"(?i:\b(?:write|text|post|reply|respond|e-?mail|message|send|dm|ping|answer|note|sign|card|greeting|"
                     r"out-of-office|voicemail|caption|announcement|notice|tweet|slack|comment|sms)\b[^.!?\n:]{0,60}?\bsaying)"
                     r"(?![ \t]*:)[ \t]+(?=[A-Za-z\"“'‘])")
# … "Tell my landlord the rent will be late, thanks for understanding.", "Let the team know the standup is moved, thanks
# everyone." (not "Tell me …", "Let me know …"), at a sentence's start
_TELL_THEM = re.compile(r"(?:^|(?<=[.!?])[ \t]+)(?i:(?:please[ \t]+)?(?:(?:can|could)[ \t]+you[ \t]+)?"
                        r"(?:tell|remind|inform|notify)[ \t]+(?!(?:me|us|you|him|her|them)\b)(?:(?:my|our|the|his|her|their|all)[ \t]+)?"
                        r"[a-z]+(?:[ \t]+(?:team|group|channel|guests?|staff|class))?(?:[ \t]+that)?"
                        r"|(?:please[ \t]+)?let[ \t]+(?!(?:me|us)\b)(?:(?:my|our|the|his|her|their|all)[ \t]+)?"
                        r"[a-z]+[ \t]+know(?:[ \t]+that)?)[ \t]+(?=[A-Za-z\"“'‘])", re.MULTILINE)
_SAY_END = re.compile(r"[.!?](?=\s|$)|\n")
# … in Chinese: a message asked for, then what it is to say after 说 (to the sentence's end): "帮我写条消息给房东，说这个月房租
# 晚3天交，15号前一定交上，不好意思。", "发微信告诉他说我明天请假" (not 说一下 / 说明 / 说清楚, which ask about the content)
_TO_SAY_ZH = re.compile(r"(?:(?:写|发|回|编|拟)一?(?:条|封|个|段|句)?[\u4e00-\u9fff]{0,6}?(?:消息|短信|微信|邮件|信息|通知|留言|便条|纸条|"
                        r"回复)(?:给[\u4e00-\u9fffA-Za-z]{1,10}?)?[，,]?[ \t]*(?:跟|告诉|对|和)?(?:他|她|他们|她们|对方|[\u4e00-\u9fff]{1,4}?)?"
                        r"说(?![一下明清说])"
                        # ("帮我回客户说货已经发了，感谢耐心等待。", "帮我在群里说一声明天团建取消了，不好意思大家。", "告诉同事周五之前交报告，
                        # 谢谢大家。" — not 告诉我 / 提醒我)
                        r"|(?:回|回复|跟|对|向)(?:" + _SENDERS_ZH + r"|大家|他们|她们|教授|辅导员|班主任|快递小哥|保安|室友|同学)"
                        r"说(?:一下|一声)?(?![明清说])"
                        r"|(?:在|到)[\u4e00-\u9fff]{0,6}?群里?(?:说|发|通知)一(?:声|下)"
                        r"|(?:告诉|通知|提醒|转告)(?:一下)?(?=(?:同事|大家|客户|顾客|买家|房东|房客|老板|领导|全员|全体|员工|学生|家长|他|她|"
                        r"他们|她们|对方|[\u4e00-\u9fff]{1,3}?(?:们|总|经理|老师|主管|部)))"
                        r")[ \t]*[，,]?[ \t]*(?=[^\s：:，,])")
_SAY_END_ZH = re.compile(r"[。！？!?]|\n")
_TELL_HINTS = ("ell ", " know", "emind", "otify", "nform")
_SAY_HINTS_ZH = ("说", "告诉", "通知", "提醒", "转告")


def _words_to_say(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The words a user turn [s, e) says a text is to say, without a colon (``_TO_SAY``)."""
    out = []
    for rx, end_rx, hints in ((_TO_SAY, _SAY_END, (" say", " read")), (_SAYING, _SAY_END, ("saying",)),
                              (_TELL_THEM, _SAY_END, _TELL_HINTS), (_TO_SAY_ZH, _SAY_END_ZH, _SAY_HINTS_ZH)):
        if not any(h in seg for h in hints):
            continue
        for m in rx.finditer(text, s, e):
            stop = end_rx.search(text, m.end(), e)
            a, b = _stripped(text, m.end(), e if stop is None else stop.end())
            if b > a:
                out.append((a, b, "introduced", f"kept: the words a text is to say ({_short(m.group(0).strip(), 40)!r})"))
    return out


# strings named as such and listed after a comma, in sentence case: "The PM gave me two button labels, Please try again
# and Thanks for your feedback, translate both to Japanese." — up to the request after them, or the sentence's end
_NAMED_STRINGS = re.compile(r"(?i:\b(?:(?:button|menu|ui|error|toast|popup|banner)[ \t]+)?(?:labels?|strings?|captions?|"
                            r"titles?|headlines?|slogans?|taglines?|texts?|messages?))[ \t]*,[ \t]+(?=[A-Z][a-z])")
_NAMED_STRINGS_END = re.compile(r"[ \t]*,[ \t]+(?i:translate|rewrite|shorten|improve|fix|make|turn|check|localise|localize|"
                                r"polish|edit|proofread)\b|[.!?](?=\s|$)|\n")


def _named_strings(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The strings a user turn [s, e) names and lists after a comma (``_NAMED_STRINGS``), up to the request on them."""
    if "," not in seg:
        return []
    out = []
    for m in _NAMED_STRINGS.finditer(text, s, e):
        stop = _NAMED_STRINGS_END.search(text, m.end(), e)
        if stop is None or stop.group(0).strip(" \t") in (".", "!", "?", ""):
            continue  # (only before the request that works on them: "…, translate both to Japanese.")
        a, b = _stripped(text, m.end(), stop.start())
        if b > a:
            out.append((a, b, "introduced", f"kept: the strings named as {_short(m.group(0).strip(' ,'), 30)!r}, listed "
                                            "before the request on them"))
    return out


# a text before and after a change, labelled on one line: "Before: Please wait... After: Loading…", "Current: Hello! Thanks
# for visiting. New: Welcome back!"; or the current text alone, before the request on it ("Welcome email subject is
# currently: Hi there! Thanks for joining. Make it shorter.")
_BEFORE_LABEL = re.compile(r"(?:(?i:\b(?:before|current(?:ly)?|old|original|existing|was))|旧版|原来|原文|原句|修改前|改前|老版)"
                           r"[ \t]*[:：][ \t]*(?=\S)")
_AFTER_LABEL = re.compile(r"(?:[ \t]+|(?<=[。！？.!?]))(?:(?i:after|new|now|should[ \t]+be|change(?:d)?[ \t]+to|becomes?|updated)|"
                          r"新版|修改后|改后|改成|改为)[ \t]*[:：][ \t]*(?=\S)")
# … the after-label opening a line of its own, a little below
_AFTER_LINE = re.compile(r"^[ \t]*(?:(?i:after|new|should[ \t]+be|changed?[ \t]+to|updated)|新版|修改后|改后|改成|改为)[ \t]*[:：][ \t]*(?=\S)",
                         re.MULTILINE)
_AFTER_LINE_REACH = 200  # characters
# where the text after "After:" ends: before a question or request about the two ("… Which is better? Thanks!")
_AFTER_TEXT_END = re.compile(r"(?<=[.!?。！？])[ \t]*(?=(?i:which|what|is|does|do|can|could|would|should|please|thanks|thank|make|"
                             r"rewrite|how|why|any)\b|哪个|哪一个|你觉得|帮我|请问|麻烦|谢谢|是不是|有没有)")
_REQUEST_ON_IT = re.compile(r"(?<=[.!?])[ \t]+(?i:make|rewrite|shorten|change|fix|translate|improve|update|replace|can[ \t]+you|"
                            r"could[ \t]+you|please)\b")


def _before_after(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if ":" not in seg and "：" not in seg:
        return []
    out = []
    for m in _BEFORE_LABEL.finditer(text, s, e):
        le = _line_end(text, m.end(), e)
        after = _AFTER_LABEL.search(text, m.end(), le)
        below = None if after is not None else _AFTER_LINE.search(text, le, min(e, le + _AFTER_LINE_REACH))
        if below is not None and m.start() == _line_start(text, s, m.start()):
            # on lines of their own: "Before: Please review the file.⏎⏎After: Review the file.⏎⏎Is After too curt?"
            ble = _line_end(text, below.end(), e)
            for a, b in ((m.end(), le), (below.end(), ble)):
                a, b = _stripped(text, a, b)
                if b > a:
                    out.append((a, b, "introduced", f"kept: a text before or after a change ({_short(m.group(0).strip(), 20)!r})"))
        elif after is not None:
            stop = _AFTER_TEXT_END.search(text, after.end(), le)
            for a, b in ((m.end(), after.start()), (after.end(), le if stop is None else stop.start())):
                a, b = _stripped(text, a, b)
                if b > a:
                    out.append((a, b, "introduced", f"kept: a text before or after a change ({_short(m.group(0).strip(), 20)!r})"))
        elif m.group(0).lower().startswith("currently") and (req := _REQUEST_ON_IT.search(text, m.end(), le)) is not None:
            a, b = _stripped(text, m.end(), req.start())
            if b > a:
                out.append((a, b, "introduced", "kept: the current text, before the request on it"))
    return out


# data values a user lists, by a label: "Sample rows:⏎1001,Thanks so much!⏎…", "The feedback column contains only these
# strings:⏎…", "The categories are Refund, Thank you card, Please advise.", "Status values in col B are: Thanks, …",
# "备注列的取值有：谢谢惠顾, 请回电, N/A。" — cells of data, whatever they say
_DATA_LABEL = re.compile(
    r"(?i:\b(?:(?:sample|example)\s+)?rows(?:\s+look\s+like(?:\s+this)?)?[ \t]*:|\b(?:these|the\s+following)\s+(?:strings|values|rows|"
    r"entries|categories|labels|statuses)[ \t]*:|\b(?:values|categories|statuses|labels|options|entries)\b[^:.\n]{0,30}?\b(?:are|include)"
    r"(?:[ \t]*:)?)[ \t]*"
    r"|(?:取值|值|类别|分类|选项|状态)(?:有|为|是|包括)[：:]?[ \t]*|(?:数据|样例|示例)行?(?:如下|长这样)?[：:][ \t]*")
_DATA_VALUES_END = re.compile(r"[.!?](?=[ \t]+[A-Z])|。|\n")
_DATA_REQUEST_LINE = re.compile(r"[ \t]*(?:(?i:read|write|count|give|make|find|show|how|what|which|why|can|could|please|"
                                r"i\s+want|i\s+need|help|use|load|parse|group|sum|filter)\b|统计|帮我|请|怎么|如何|计算|筛选)")


def _data_values(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    if not any(h in seg for h in ("ows", "alues", "ategories", "trings", "tatuses", "abels", "ptions", "ntries", "取值",
                                   "类别", "分类", "选项", "状态", "数据", "样例", "示例")):
        return []
    out = []
    for m in _DATA_LABEL.finditer(text, s, e):
        le = _line_end(text, m.end(), e)
        if text[m.end():le].strip():
            stop = _DATA_VALUES_END.search(text, m.end(), le)
            a, b = _stripped(text, m.end(), le if stop is None else stop.start())
            items = re.split(r"[,，、]", text[a:b])
            if len(items) < 3 or any(len(i.split()) > 5 or len(i.strip()) > 30 for i in items):
                continue  # (values are short items, three or more: not "options include a real estate agent, or …")
        else:
            a = b = le + 1
            while b < e:
                nle = _line_end(text, b, e)
                if not text[b:nle].strip() or _DATA_REQUEST_LINE.match(text, b, nle) and text[b:nle].rstrip()[-1:] in ".?。？!！":
                    break
                b = nle + 1
            a, b = _stripped(text, a, min(b, e))
            if text.count("\n", a, b) < 1 or any(len(line) > 80 for line in text[a:b].split("\n")):
                continue  # (rows are two short lines or more)
        if b > a:
            out.append((a, b, "quote", f"kept: data values listed after {_short(m.group(0).strip(), 30)!r}"))
    return out


TOOL_ROLES = ("tool", "function")


# a (start, end, kind, detail) tuple as a Material (Material._make and Material() are Python functions)
_as_material = partial(tuple.__new__, Material)


def largest_first(m: Material) -> tuple[int, int]:
    """The sort key that puts larger ranges first, then earlier ones (a smaller range inside a larger one then
    decides a token's detail)."""
    return m[0] - m[1], m[0]


# a turn that declares the user's turns to be text to process: who hands it over, what, and (anywhere in the same
# block) what is done with it
_TEXT_NOUN = (r"(?:texts?|sentences?|paragraphs?|essays?|passages?|articles?|content|code|snippets?|messages?|drafts?|"
              r"e-?mails?|words?|phrases?|documents?|writing|copy|stor(?:y|ies)|poems?|transcripts?|lyrics|letters?|"
              r"reviews?|comments?|tickets?|feedback)")
_HAND_OVER = r"(?:provide|give|send|type|paste|share|write|submit|input|enter|present|supply)"
_HANDED_EN = re.compile(
    rf"\b(?:(?i:the user|users?)|I)\s+(?i:will|would|may|might|can|shall)\s+(?:\w+\s+){{0,2}}?(?i:{_HAND_OVER})\b"
    rf"[^.!?\n]{{0,60}}?\b(?i:{_TEXT_NOUN})\b"
    rf"|\b(?i:the user|users?)\s+(?i:{_HAND_OVER})s\b[^.!?\n]{{0,60}}?\b(?i:{_TEXT_NOUN})\b"
    rf"|\b(?i:when|whenever|once|if)\s+(?:(?i:the user|users?)|I)\s+(?i:{_HAND_OVER})s?\b[^.!?\n]{{0,60}}?\b"
    rf"(?i:{_TEXT_NOUN})\b"
    # "Classify each user utterance into one intent", "You label chat openers": each turn is an item to label
    # "Translate every user message into Chinese", "You rewrite messages in a formal register", "Reply to each incoming
    # email": each turn is the text to work on
    rf"|\b(?i:classify|label|categori[sz]e|tag)\s+(?i:each|every|all|the|incoming)?\s*(?:[a-z-]+\s+){{0,4}}?"
    r"(?i:utterances?|messages?|inputs?|queries|query|texts?|sentences?|requests?|openers?|tickets?|reviews?|comments?)\b"
    # (a verb that edits a text: only with the user's or each incoming text as its object — "rephrase the human
    # message in its own words", "rephrase sentences for better understanding" are the agent's own manner)
    r"|\b(?i:(?:translate|rewrite|rephrase|paraphrase|proofread|correct|summari[sz]e)\s+(?:(?:each|every|all)\s+"
    r"(?:of\s+the\s+)?(?:user'?s?\s+|incoming\s+|customer\s+)?|(?:the\s+)?(?:user'?s?|incoming|customer)\s+)"
    r"(?:messages?|inputs?|texts?|sentences?|e-?mails?|reviews?|comments?)\b)"
    r"|\b(?i:you\s+(?:translate|rewrite|rephrase|paraphrase|proofread|correct|summari[sz]e)\s+(?:messages|texts|"
    r"sentences|e-?mails|reviews|comments)\b)"
    # "Whatever the user says, render it in Japanese", "Proofread whatever the user sends", "For each message below,
    # output exactly one intent label"
    r"|\b(?i:whatever\s+(?:the\s+user|users?|I|they|you\s+get)\s*(?:says?|sends?|writes?|types?|pastes?|gives?|"
    r"receive)?|for\s+(?:each|every)\s+(?:user\s+)?(?:message|utterance|input|text|sentence|review|comment|ticket))\b"
    # (a reply to each incoming text, not "Respond to user messages politely": the turns a chat answers)
    r"|\b(?i:(?:reply|respond)\s+to\s+(?:each|every|(?:all\s+)?incoming)\s+(?:[a-z-]+\s+){0,2}?"
    r"(?:e-?mails?|tickets?|reviews?|comments?|messages?))\b"
    # "… a commit message based on the following diff": what the turns after it bring is the input
    rf"|\b(?i:based on|from)\s+(?i:the\s+(?:following|given|provided)|these|this)\s+"
    rf"(?i:diffs?|changes?|commits?|descriptions?|inputs?|notes?)\b"
    # "You will receive a customer review; extract …"
    rf"|\b(?i:you\s+(?:will|'ll|are\s+going\s+to)\s+(?:receive|get|be\s+given|be\s+shown|see))\b[^.!?\n]{{0,40}}?\b"
    rf"(?i:reviews?|comments?|tickets?|utterances?|texts?|sentences?|paragraphs?|essays?|articles?|e-?mails?|"
    rf"transcripts?|drafts?|letters?|posts?)\b")
# the verbs of processing a text, anywhere in the block ("The user will provide a paragraph. … Improve its flow.")
_PROCESSING = (_EDIT, _CONDENSE, _RECAST, _LABEL, _CRITIQUE, _REVIEW, _FIND, _HELP)
_PROCESS_EN = re.compile(rf"\b(?i:{_en_stems(*_PROCESSING)}|format)")
# what users bring to any chat ("Users will paste code snippets", "You will receive messages from customers",
# "你将收到用户发来的消息", "用户可能会发给你一段代码"): handed over as a text to process only with a verb that transforms or
# labels it in the same sentence or the next ("review", "check", "help them fix" answer a chat)
_CHAT_NOUN = re.compile(r"(?i:\b(?:messages?|content|code|snippets?|documents?|questions?|inputs?)\b)|消息|内容|代码|问题|信息")
# (not "edit": an "editor", an "edition")
_TRANSFORM_EN = re.compile(rf"\b(?i:{_en_stems(_EDIT, _CONDENSE, _RECAST, _LABEL, _CRITIQUE, without=('edit',))})")
_TRANSFORM_ZH = re.compile(_zh_words(_EDIT, _CONDENSE, _RECAST, _LABEL, _CRITIQUE, extra=_SORTING_ZH))
_HANDED_ZH = re.compile(r"(?:用户|我)(?:会|将|将会|可能会|每次)?(?:给你|向你|为你|发给你|提供给你)?(?:提供|发送|输入|发|给出|粘贴|给)"
                        r"你?[^。！？\n]{0,20}?(?:文本|文字|句子|段落|文章|内容|代码|英文|中文|一段话|语句|稿件|作文|文案|单词|词语|"
                        r"短语|评论|评价|留言|反馈|工单)|输入的?(?:内容|文本|文字|句子|段落|提示词|提示语|prompt)"  # "如果输入内容为中文，…翻译成日文"
                        # "请直接粘贴需要重写的段落": the agent asks for the text it will work on
                        r"|(?:请|直接|请直接)粘贴[^。！？\n]{0,12}?(?:文本|文字|段落|内容|文章|稿件|作文|文案)"
                        # "把用户的话分成以下四类之一": each turn is an item to classify
                        r"|(?:把|将|对)用户(?:的|说的|发来的)?(?:每一?条|每句|每个|所有)?(?:话|输入|消息|问题|句子|发言)[^。！？\n]{0,10}?"
                        r"(?:分成|分为|归为|归类|分类|标注|翻译|改写|润色|回复)"
                        # "我说的每一句话你都直接译成英文"
                        r"|我(?:说|发|输入|写|给你)的(?:每一?句话?|每一?段话?|每一?条消息|所有内容|话)"
                        # "判断每条评论的情感"
                        r"|每一?(?:条|句|段|封)(?:用户的?)?(?:评论|评价|留言|消息|句子|文本|反馈|邮件)"
                        # "对下面每条评论判断情感", "你会收到一条用户评价，请抽取…": each turn is an item to process
                        r"|(?:对|给|把|将)(?:下面|以下|下列)的?(?:每条|每一条|每句|每个|所有|这些)?(?:评论|评价|留言|消息|句子|文本|反馈|标题)"
                        r"|(?:你|您)(?:会|将|将会)(?:收到|看到|得到)[^。！？\n]{0,10}?(?:评论|评价|留言|消息|句子|文本|反馈|文章|邮件)"
                        # "你是评论情感分类器": a machine named for what it does to each text (an assistant — "工单分类助手" —
                        # may also be told what to do)
                        r"|(?:评论|评价|留言|情感|情绪|文本|句子|意图|消息|工单|邮件)[^。！？\n，,]{0,6}?(?:分类器|分类模型|标注器|"
                        r"打分器|分析器|翻译器|翻译机)")
_PROCESS_ZH = re.compile(_zh_words(*_PROCESSING, extra=_SORTING_ZH))


# a short system prompt that is one task on the text each turn brings: "Summarize the document in English in 2
# sentences.", "Translate the user's text into French.", "将用户的文本翻译成英文。" (a longer prompt names a document it may
# also be given: only a prompt of at most _ONE_TASK_MAX characters is its task alone)
_ON_TEXT_VERBS = (_EDIT, _CONDENSE, _RECAST, _LABEL, _CRITIQUE)
_THE_TEXT_EN = (r"(?:document|text|e-?mail|article|passage|review|notice|letter|transcript|paragraph|report|contract|"
                r"message|essay|story|poem|input)s?")
_THE_TEXT_ZH = r"(?:文档|文本|文章|邮件|通知|段落|报告|合同|评论|消息|作文|稿件|内容|短文|公告)"
_ONE_TASK = re.compile(
    rf"(?i:\b{_en_words(*_ON_TEXT_VERBS)}\b[^.!?\n]{{0,30}}?\b(?:the|this|each|every|any)\s+(?:(?:user'?s?|given|"
    rf"following|provided|incoming|pasted|customer'?s?)\s+)?{_THE_TEXT_EN}\b)"
    rf"|{_zh_words(*_ON_TEXT_VERBS)}(?:一下)?(?:这篇|这段|该|此|用户的?|给定的?|收到的?|每一?[篇条段封])?{_THE_TEXT_ZH}"
    rf"|(?:将|把|对)(?:用户的?|给定的?|收到的?|每一?[篇条段封])?{_THE_TEXT_ZH}(?:的?全文)?{_zh_words(*_ON_TEXT_VERBS)}")
_ONE_TASK_MAX = 300


# a system prompt that asks for a label only: the user's turns are the texts labelled
_LABEL_ONLY = re.compile(r"(?i:\b(?:only|just)\s+(?:output|return|respond\s+with|reply\s+with|answer\s+with|give)\s+(?:the\s+|a\s+|one\s+)?"
                         r"(?:label|category|class|sentiment|intent|tag)s?\b|\b(?:output|return|respond\s+with|reply\s+with)\s+"
                         r"(?:only\s+)?(?:the\s+|a\s+|one\s+)?(?:label|category|class|sentiment|intent|tag)s?\s+only\b)"
                         r"|只(?:输出|返回|回复|回答|给出?)(?:一个)?(?:标签|类别|分类|情感|意图)"
                         # (or edits every turn: "You are a copy editor for app strings.", "你是界面文案校对。")
                         r"|(?i:\byou\s+are\s+(?:a|an)\s+(?:[a-z-]+\s+){0,3}?(?:copy\s*editor|proofreader|copyeditor)\b)"
                         r"|你是[^。\n]{0,10}?(?:文案|文字|字幕)?(?:校对|审校)(?:员|助手)?"
                         # (or translates every turn: "You are a translation assistant. Translate faithfully", "你是一个专业的
                         # 中英翻译助手。只输出译文")
                         # (a role alone — "You are a translator." — says nothing of what the turns are)
                         r"|(?i:\byou\s+are\s+(?:a|an)\s+(?:[a-z-]+\s+){0,3}?(?:translator|translation\s+(?:assistant|engine|tool|bot))\b"
                         r"(?=[^\n]{0,80}?\btranslat)"
                         r"|\b(?:only\s+(?:output|return|give)|output\s+only|reply\s+only\s+with|respond\s+only\s+with)\s+(?:the\s+|a\s+)?"
                         r"translations?\b)"
                         r"|(?i:\btranslate\s+(?:everything|every\s+message|each\s+message|all\s+(?:the\s+)?messages|whatever|anything)\s+"
                         r"(?:the\s+user|users?|I)\s+(?:writes?|says?|sends?|types?|pastes?)\b)"
                         r"|你是[^。\n]{0,12}?翻译(?:助手|官|员|家|引擎|工具|机器人|专家)"
                         r"(?=[^\n]{0,40}?(?:翻译|译文|译成|翻成|[中英日韩法德俄西]译[中英日韩法德俄西]|忠实原文|忠于原文))"
                         # ("You translate Chinese to English faithfully.")
                         r"|\b[Yy]ou\s+translate\s+(?:from\s+)?[A-Z][a-z]+\s+(?:in)?to\s+[A-Z][a-z]+\b"
                         r"|只(?:输出|返回|给出?)(?:翻译后的文本|译文|翻译结果)")


def _declares_processing(text: str, s: int, e: int, system: bool = True) -> re.Match[str] | None:
    """The phrase of [s, e) that says the user's turns are text to process, with a verb of processing in the block —
    or, for what any chat brings (messages, code, questions: ``_CHAT_NOUN``), a verb that transforms or labels it in
    the same sentence or the next ("把用户的每一条消息翻译成英文") —, or None."""
    for handed, process, transform in ((_HANDED_EN, _PROCESS_EN, _TRANSFORM_EN), (_HANDED_ZH, _PROCESS_ZH, _TRANSFORM_ZH)):
        processed = None  # (whether the block holds a verb of processing: looked at once)
        for m in handed.finditer(text, s, e):
            if not _CHAT_NOUN.search(m.group(0)):
                if processed is None:
                    processed = process.search(text, s, e) is not None
                if processed:
                    return m
                continue
            a = max(s, max(text.rfind(c, s, m.start()) for c in ".!?。！？\n") + 1)
            b = m.end()
            for _ in range(2):  # to the end of this sentence, then of the next
                stop = _SENTENCE_OR_LINE_END.search(text, b, min(e, b + 300))
                b = stop.end() if stop is not None else min(e, b + 300)
            if transform.search(text, a, b):
                return m
    if system and (label_only := _LABEL_ONLY.search(text, s, e) or _REPLIES_TO_EACH.search(text, s, e)) is not None:
        return label_only  # a classifier's prompt: "只输出标签：正面、负面、中性。" — each user turn is a text to label (or to
        # reply to: "You reply to customer reviews for a bakery.")
    # (a first user turn "Summarize the report." asks for one piece of work: the turns after it are a chat)
    return _ONE_TASK.search(text, s, e) if system and e - s <= _ONE_TASK_MAX else None



# a prompt that sets up a practice of lines: the turns after it are the lines practised, said as they stand ("I am a
# trainee waiter practicing my service lines.", "我是服务员学员，正在练习服务用语。", "我来练习怎么聊天")
_PRACTICE_LINES = re.compile(r"(?i:\btrainees?\b|\bpractic(?:e|ing)\s+(?:my\s+|our\s+)?(?:service\s+|sales\s+)?"
                             r"(?:lines|script|dialogue|conversation|small\s+talk|speaking)\b)"
                             r"|(?i:\blet'?s\s+practi[cs]e\b|\bpractice\s+(?:a|an|the|my)\s+[a-z-]+(?:\s+[a-z-]+)?\s+with\s+me\b"
                             r"|\bpractice\s+mode\b|\bmock\s+(?:[a-z-]+\s+){0,2}?(?:chat|call|interview|conversation|meeting|negotiation)\b)"
                             r"|(?:我们|咱们)?来练习(?:一下)?[\u4e00-\u9fff]{0,6}?(?:[。，,！!]|$)"
                             r"|(?:我们|咱们|陪我|帮我|跟我)练习(?:一下)?[\u4e00-\u9fff]{0,8}?(?:[。，,！!吧]|$)|学员|模拟面试|练习(?:怎么|如何)?(?:聊天|对话|口语|服务用语|用语|话术|台词|接待|相亲|应对)"
                             # a role-play the user sets up: their turns are their character's lines ("Let's RP. You're
                             # the tavern keeper." → "*sits down* An ale, please.")
                             r"|(?i:\blet'?s\s+(?:do\s+(?:a|an|some)\s+)?(?:rp|role-?play)\b|\b(?:we(?:'re|\s+are)|i(?:'m|\s+am))\s+"
                             r"role-?playing\b)|(?:我们)?来(?:玩)?(?:角色扮演|跑团)")
_SENTENCE_OR_LINE_END = re.compile(r"[.!?。！？](?=\s|$)|[。！？]|\n")


# a system prompt's line that greets and introduces itself in the first person ("您好，我是 Joi，您的私人旅行助理，请问有什么
# 可以帮您？", "Hi, I'm Max, your study buddy!"), also after the colon that introduces it ("… something like this: Hi, I'm
# your community manager agent, …"): the agent's own line — a system prompt speaks of the agent otherwise
_AGENT_LINE = re.compile(rf"(?:^[ \t]*(?:[-*>][ \t]*)?|(?<=[。！？!?.:：])[ \t]*){_GREETING}"
                         r"[^\n]{0,12}?(?:我是|我叫|(?i:\bI am\b|\bI['’]m\b|\bthis is\b|\bmy name is\b))[^\n]*", re.MULTILINE)


def _agent_lines(text: str, s: int, e: int) -> list[Material]:
    """The lines of a system block in which the agent greets and introduces itself, from the greeting on (it may
    follow a sentence of the script: "作为一名专家教练，我将…进行对话。您好，我是您的专家教练，…"): said as written."""
    seg = text[s:e]
    if "我" not in seg and "I" not in seg and "is" not in seg:
        return []
    return [Material(m.start(), m.end(), "few_shot", "kept: the agent's own greeting line, said as written")
            for m in _AGENT_LINE.finditer(text, s, e)]


# a turn that says the next one brings the text to work on: "I'll paste an email next. Translate it into German.",
# "我下一条消息发一封邮件，翻译成英文。" (with a verb of work in the same turn)
_NEXT_TEXT = re.compile(
    r"(?i:\b(?:I'?ll|I\s+will|I'm\s+going\s+to|I\s+am\s+going\s+to|let\s+me)\s+(?:now\s+)?(?:paste|send|share|give\s+you|"
    r"forward|copy|post|drop)\b[^.!?\n]{0,60}?\b(?:next|in\s+(?:my|the)\s+next\s+message|in\s+a\s+(?:moment|sec(?:ond)?)|"
    r"after\s+this)\b|\b(?:my|the)\s+next\s+message\s+(?:will\s+be|is|contains|has)\b)"
    r"|(?:下一条|下条|接下来|待会儿?|等下|等一下|稍后)(?:消息|信息)?我?(?:会|将|要)?(?:发|贴|粘贴|给你|发给你|发送)")
_ANNOUNCE_HINT = ("next", "Next", "NEXT", "moment", "sec", "after this", "下一条", "下条", "接下来", "待会", "等下", "等一下", "稍后")
_ANNOUNCE_MAX = 300  # characters: an announcement is a short turn


# a turn that asks for a text to be written ("Draft a short email to the team", "写一封给王老师的感谢信", "写一句给客户的春节问候"):
# the reply is that text, its greeting and sign-off included
# a turn that keeps a part of the reply before it by name: "Keep the opening.", "Keep the greeting and the first line.",
# "保留第一句。", "开头不要动"
_KEEPS_A_PART = re.compile(r"[ \t]*(?:(?i:(?:please\s+)?keep\s+(?:the|your|that|its)\s+(?:(?:first|last|second|opening|closing)\s+)?"
                           r"(?:opening|greeting|intro|introduction|line|lines|sentence|sentences|paragraph|ending|closing|title|"
                           r"hook|joke|part)\b)|(?:保留|留着|别动|不要动)(?:第[一二三四五六七八九十\d]+|最后一|开头|開頭|结尾|結尾)"
                           r"|(?:开头|開頭|结尾|結尾|第一句|问候语|問候語)(?:不要动|别动|不要改|别改|保留)"
                           # or picks one of the versions it offered: "第 2 条不错。", "Option 2 is good.", "I like the second one."
                           r"|第\s*[一二三四五六七八九十\d]+\s*(?:条|个|句|版|种)\s*(?:不错|可以|挺好|很好|就行|最好|好)"
                           r"|(?i:(?:option|number|version|#)\s*\d+\s+(?:is|looks|sounds|works|reads)\s+(?:good|great|fine|best|perfect)"
                           r"|I\s+like\s+(?:the\s+)?(?:first|second|third|last|\d+(?:st|nd|rd|th))\s+one))")
_WRITE_A_TEXT = re.compile(
    r"(?i:\b(?:write|draft|compose|prepare|create|redo|give\s+me|come\s+up\s+with|(?:I|we)\s+(?:need|want|'d\s+like|would\s+like)\s+(?:a|an))\b[^.!?\n]{0,40}?"
    r"\b(?:e-?mail|letter|note|message|reply|response|toast|opening|page|chapter|scene|story|monologue|"
    r"speech|post|notice|announcement|invitation|memo|card|greeting|sms|text|caption|bio|tweet|script|welcome|intro|"
    r"introduction|newsletter|apology|blurb|paragraph|statement|reminder|request|complaint|proposal|thank-you|"
    r"condolence|resignation|recommendation|reference|update|description|summary|report|invite|flyer|poem|slogan|tagline|"
    r"headline|pitch|out-of-office|toast|dm|direct\s+message|wechat|whatsapp|slack|goodbye|farewell|eulogy|obituary|"
    r"testimonial|shout-?out|cover\s+letter|verse|chorus|song|lyrics?|rap|haiku|limerick|sonnet|jingle|dialogue|"
    # sales outreach: "Write a voicemail for a prospect", "Give me a closing line for a discovery call", "write 3 LinkedIn
    # follow-ups"
    r"voicemail|follow-?up|inmail|(?:closing|opening|intro|subject)\s+line|connection\s+request|sign|poster|placard|banner|"
    r"flyer|menu|label|macro|canned\s+(?:reply|response)|saved\s+reply|auto-?reply|quick\s+reply|inquiry|enquiry|rsvp|"
    r"dispute|appeal|comment|counter-?offer|quotation|quote|template|rejection|offer\s+letter|job\s+(?:post|ad|description)|"
    r"acceptance|confirmation|onboarding\s+note|policy\s+reminder)s?\b|"
    r"\b(?:make|write|draft|do)\s+(?:one|another(?:\s+one)?)\s+for\b|"  # ("Make one for a cold lead.")
    # a piece asked for by its name alone: "Rap verse, no swearing.", "Another verse, same flow."
    r"^\s*(?:(?:a|an|another|one\s+more|new|next)\s+)?(?:[a-z-]+\s+)?(?:verse|chorus|poem|haiku|limerick|sonnet|song|rap|"
    r"lyrics|story|cover\s+letter|acknowledge?ments|response\s+to\s+(?:the\s+)?(?:reviewer|editor)s?|rebuttal|abstract|"
    r"toast|speech|eulogy|invitation|template|(?:out-of-office|ooo|away|welcome|farewell|birthday|thank-you)\s+(?:message|note|reply|card|e-?mail)|"
    r"auto-?reply)\b"
    r"(?!\s+(?:is|was|are|has)\b)|"
    # ("Late payment email. $2,200, invoice #9, due May 1.", "Welcome email:")
    r"^\s*(?!(?:this|that|my|the|your|his|her|our|their|an?)\b)(?:[a-z-]+\s+){1,2}(?:e-?mail|message|reminder|notice|letter)\s*[.:,]|"
    r"\b(?:write|draft)\b[^.!?\n]{0,60}?\b(?:in\s+the\s+same\s+(?:tone|style|voice)|a\s+new\s+one|another\s+one)\b|"
    r"\bwrite\s+(?:one|another)\b|"
    r"\b(?:reply|respond|answer)\s+to\s+(?:this|the|her|his|their|my|an?)\s+(?:e-?mail|message|letter|note|text|review|comment)s?\b|"
    r"^\s*(?:please\s+)?(?:reply|respond)\s+to\s+(?:this|it|them)\b|"  # ("Reply to this. Do not promise a delivery date.")
    # a message to someone ("Reply to the customer.", "Reply to the customer who asked about a refund.", "Text my boss that
    # the meeting moves to 3pm Thursday.", "Email Tom about the delay.")
    r"\b(?:reply|respond|write\s+back)\s+to\s+(?:the\s+|this\s+|that\s+|my\s+|our\s+|an?\s+)?(?:customer|client|guest|buyer|"
    r"seller|tenant|landlord|boss|manager|colleague|co-?worker|recruiter|candidate|student|parent|teacher|reviewer|vendor|"
    r"supplier|neighbou?r|(?-i:[A-Z][a-z]+)(?!\s+(?:said|says|wrote|writes)))s?\b|"
    r"\b(?:text|message|e-?mail|dm|ping|write\s+to)\s+(?:(?:my|our|the|his|her|their)\s+[a-z]+(?:\s+[a-z]+)?|(?-i:[A-Z][a-z]+))"
    r"\s+(?:that|about|saying|to\s+(?:say|tell|let|ask|remind|confirm))\b|"
    r"\b(?:slack|teams|e-?mail|sms|whatsapp|wechat|linkedin)\s+(?:message|note|post|dm)?\s*to\s+(?:the\s+|my\s+|our\s+|#)?[\w-]+|"
    r"\b(?:make|write|do|give\s+me)\s+(?:a|another|one)\s+(?:[a-z-]+\s+)?(?:version|one|variant)\s+for\b|\bone\s+more\s+for\b|"
    r"\b(?:make|write|do|give\s+me)\s+(?:a|an|another)\s+(?:[a-z-]+\s+){0,2}(?:version|variant)\b|"
    r"^\s*(?:please\s+)?(?:tell|text|message|remind)\s+(?-i:[A-Z][a-z]+)\s*:)"
    # ("回复一位捐赠人，她问…", "回复志愿者小王，他问…")
    r"|^\s*(?:请|麻烦)?(?:你)?(?:帮我)?回复(?:一下)?(?:一位|一个|这位|那位)?[\u4e00-\u9fff]{0,4}?(?:捐赠人|捐款人|志愿者|客户|顾客|"
    r"买家|用户|粉丝|家长|学员|会员|读者|听众|网友|记者|候选人|房东|租客)"
    r"|^\s*(?:请|麻烦)?(?:你)?帮我回复(?:一下)?(?:客户|买家|用户|顾客|订单|这条评价|这条评论|这条留言|这个评价)"  # ("帮我回复订单 881。": the reply is a text)
    r"|^\s*给[\u4e00-\u9fff]{1,6}?的(?:回复|回信|邮件|信|致谢|投稿信)[，,。]"  # ("给审稿人的回复，关于图2。")
    r"|^\s*[\u4e00-\u9fff]{1,6}?(?:消息|短信|邮件|提醒)[：:]"  # ("催款消息：金额4,200元，原定10月10日。")
    # a piece named alone: "请假条", "婚礼致辞，给我哥。"
    r"|^\s*[\u4e00-\u9fff]{0,6}?(?:致辞|请假条|假条|贺词|祝酒词|发言稿|演讲稿|邀请函|请柬|贺卡|感谢信|道歉信|检讨书|自我介绍|开场白)"
    r"(?:[，,][^。！？\n]{0,12})?[。！]?\s*$"
    r"|(?:写|寫|起草|拟|擬|撰写|撰寫|编|編)[^。！？\n]{0,14}?(?:邮件|郵件|信|通知|短信|簡訊|訊息|文案|发言|發言|致辞|致詞|祝福|问候|"
    r"問候|贺词|賀詞|公告|邀请函|消息|回复|回覆|开场|開場|结尾|結尾|主持詞|故事|第[一二三四五六七八九十\d]+[页頁章段]|"
    r"演讲稿|朋友圈|贺卡|感谢|道歉|欢迎词|介绍|简介|说明|帖子|留言|话术|主持词|祝酒词|请假条|假条|便条|申请|请示|报告|"
    r"总结|检讨|启事|声明|简历|评语|回帖|歌词|副歌|主歌|诗|歌|台词|对白|剧本|邀请|邀约|拒信|录用|offer|JD|致歉信|感谢信|脚本|开场白|结束语|倡议书|倡议|"
    r"告示|标语|提示牌|提示语|牌子|海报|广播|导游词|解说词|讲解词|串词|播报|宏|快捷回复|自动回复|客服模板|回复模板|通报|喜帖|请柬|答谢词|版本|模板|须知|注意事项|提醒)"
    r"|(?:照|按|按照|仿照|模仿|参照)着?(?:这个|这封|这篇|这种|上面的?)(?:语气|风格|口吻|格式|写法|文风)[^。！？\n]{0,6}?写"
    r"|(?:写|起草|拟)(?:一|个|一个|两|几)?(?:段|封|篇|条|份|则|句)"
    # a message to someone ("帮我给张总发条微信，说…", "给老师发一条教师节祝福", "帮我回复闲鱼买家：…", "帮我催一下款")
    r"|(?:给|跟|向)[^。！？\n，,]{1,10}?(?:发|回|写)(?:一)?(?:条|封|个|段|句)?[^。！？\n，,：:]{0,6}?(?:微信|消息|短信|邮件|信息|"
    r"通知|留言|私信|祝福|问候)"
    # ("给买家回复：发货要3天。")
    r"|(?:给|跟|向)(?:这位|这个|那位)?(?:买家|卖家|客户|顾客|用户|房东|租客|对方|粉丝|家长|学员)(?:回复|回个话|回一下|回)[：:，,]"
    r"|帮我回复(?:一下)?[^。！？\n，,：:]{0,4}?(?:客户|顾客|买家|卖家|房东|房客|租客|老板|领导|同事|朋友|对方|他|她|老师|家长|"
    r"[\u4e00-\u9fff]总|这(?:条|封|则|个)(?:举报|投诉|评论|留言|私信|消息|邮件|差评))|帮我催(?:一下|下)?(?:款|账|帐|付款|回款|房租|租金)|帮我回(?:复|一下)?[，,：:]"
    r"|通知(?:大家|各位|全员|全体|同事们?|家长们?)[：:]"
    r"|(?:回复|话术|文案|消息|通知|邮件|短语)[^。！？\n]{0,6}?帮我写")
# a sign, a notice or a card asked for before a label of its words ("Make a door sign for the warehouse. Text: …",
# "帮我写个门牌，内容：请勿在此停车，谢谢！")
_A_TEXT_MADE = re.compile(rf"(?i:\b(?:{_MAKE_EN})\b[^.!?\n]{{0,30}}?\b(?:{'|'.join(_SIGN_EN)}|card|flyer|sms|text\s+message|"
                          rf"announcement)s?\b)"
                          rf"|(?:{_MAKE_ZH}|拟)[^。！？\n]{{0,8}}?(?:{'|'.join(_SIGN_ZH)}|卡片|贺卡|通知|短信|公告)")
# words to send back to a message the turn reports ("My boss wrote: … What should I reply?", "闺蜜发来感谢，帮我想句回复"):
# asked only where the turn reports a message ("How should I respond to criticism in general?" asks for advice)
_SEND_BACK = re.compile(
    r"(?i:\b(?:what|how)\s+(?:should|do|can|could|would|shall)\s+I\s+(?:reply|respond|answer|write|say|"
    r"word\s+(?:it|this|my\s+(?:reply|answer|response)))\b|\bhelp\s+me\s+(?:reply|respond|answer|write\s+back)\b|"
    r"\breply\s+for\s+me\b|\b(?:a\s+)?good\s+(?:reply|response|answer)\s+to\b|\bwhat(?:'s|\s+is)\s+a\s+good\s+(?:reply|response)\b)"
    r"|(?:该|要|应该|我)怎么回(?:复|信|答|应)?|怎么回(?:复)?(?:比较|才|更)?(?:好|合适|得体)|如何回复|回复(?:该|要|应该)?怎么写"
    r"|回(?:他|她|对方|客户)(?:什么|啥)|帮我(?:想|写|拟)(?:个|一个|一下|一条|一段|几句|句|一句)?(?:回复|回信|回答|怎么回)"
    r"|帮我回(?:复)?(?:一下|他|她|一句)")
_REPORTS_A_MESSAGE = re.compile(
    r"(?i:\b(?:wrote|writes|said|says|sent|texted|messaged|emailed|asked|asks|replied|invited|posted|commented|wants|told|"
    r"DMed|pinged|got\s+(?:this|a|an)|customer|client|boss|manager|colleague|landlord|tenant|friend|recruiter)\b)"
    r"|[\"“”「:：]|说|发来|发了|问我|留言|私信|来信|邀请|回复我|找我|客户|顾客|买家|房东|老板|领导|同事|朋友|对方")
# advice on replying in general asks for no words to send ("一般客户投诉该如何回复？有什么原则？")
_IN_GENERAL = re.compile(r"(?i:\b(?:in\s+general|generally|tips|principles?|best\s+practices?)\b)|一般|通常|原则|技巧|方法论")
def _reports_a_customer(text: str, blocks: Sequence[BlockRef], k: int, reuse: bool = False) -> bool:
    """Whether user turn ``k`` reports what a customer asked or said — or answers the assistant's question about such a
    turn just before ("The customer wrote in about a broken mug." / "What's the order number?" / "4471.")."""
    b = blocks[k]
    if found_in(_CUSTOMER_ASKED, text, b.start, b.end, reuse):
        return True
    return k >= 2 and b.end - b.start <= _SHORT_ANSWER and blocks[k - 1].role == "assistant" \
        and text[blocks[k - 1].start:blocks[k - 1].end].rstrip().endswith(("?", "？")) and blocks[k - 2].role == "user" \
        and found_in(_CUSTOMER_ASKED, text, blocks[k - 2].start, blocks[k - 2].end, reuse)


_SHORT_ANSWER = 40  # characters: an answer to the assistant's question ("4471.", "订单号是 8812。")
# a turn that reports what a customer asks (the reply to send them is then what the model writes) …
_CUSTOMER_ASKED = re.compile(r"(?:客户|顾客|买家|客人|用户|家长|租客)[A-Za-z\d]{0,2}(?:又|还|上周|昨天|今天|刚才|刚)?(?:问|说|想知道|咨询|留言问|反馈|投诉)"
                             r"|客户问题[：:]|(?i:\b(?:customer|client|guest|buyer|tenant)s?\s+(?:asks?|asked|wants\s+to\s+know|is\s+asking|"
                             r"wrote|writes|says|complained|complains)\b|\bcustomer\s+(?:question|message|email|complaint)\s*:)")
# … and a reply that addresses them: "您好，…", "亲，…", "Hi there, …", "Dear Ms Li, …"
_TO_THE_CUSTOMER = re.compile(r"\s*(?:您好|你好|亲[，,！!]|尊敬的|亲爱的|感谢您|非常抱歉|(?i:hi|hello|hey|dear)\b|"
                              r"(?i:thank\s+you\s+(?:so\s+much\s+)?for|thanks\s+(?:so\s+much\s+)?for|we(?:'re|\s+are)\s+(?:so\s+)?sorry)\b)")
# an intro line that opens a reply before the text it delivers ("Sure! Here's a draft:", "好的，以下是修改后的版本：")
_REPLY_INTRO = re.compile(r"[^\n]{0,80}?[:：][ \t]*\n")


def _deliverables(view: TextView, reuse: bool = False) -> dict[int, str]:
    """The assistant replies that deliver a text the user turn before asked for — written ("Draft a short email") or
    made anew from a text it handed over ("Polish my cover letter:", "Translate into Chinese:") — (position → detail)."""
    text = view.text
    out: dict[int, str] = {}
    blocks = view.blocks
    last: BlockRef | None = None  # the last reply found to deliver a text
    standing: str | None = None  # a task set for each text to come ("I'll paste reviews; for each, write a reply.")
    for b in blocks:  # (or by the system prompt: "You reply to customer reviews for a coffee shop.")
        if b.role in ("system", "developer") and (m := _REPLIES_TO_EACH.search(text, b.start, b.end)) is not None:
            standing = f"kept: a reply to the task the system prompt sets for each text ({_short(m.group(0), 40)!r})"
            break
    for k, b in enumerate(blocks):
        if b.msg_pos in out:
            last = b
        if b.role == "user" and standing is None and found_in(_FOR_EACH_TEXT, text, b.start, b.end, reuse):
            standing = f"kept: a reply to the task set for each text ({_short(text[b.start:b.end].strip(), 40)!r})"
            if _FIRST_ITEM.search(text, b.start, b.end) is None:
                continue  # (a turn that hands the first text over too — "… First one: …" — is answered by a reply)
        if b.role == "user" and k > 0 and blocks[k - 1].role == "assistant" and blocks[k - 1].msg_pos not in out \
                and found_in(_KEEPS_A_PART, text, b.start, b.end, reuse, at_start=True):
            # "Keep the opening.", "保留第一句。": the reply before is a text in the works, its parts named
            out[blocks[k - 1].msg_pos] = f"kept: the text the turn after keeps part of ({_short(text[b.start:b.end].strip(), 40)!r})"
            last = blocks[k - 1]
        if b.role == "user" and k > 0 and blocks[k - 1].role == "assistant" and blocks[k - 1].msg_pos not in out \
                and _edits_the_reply(text, b, blocks[k - 1]):
            # '把“谢谢配合”去掉。', "Make it 10 PM." after "Here's the notice:⏎⏎…": the reply before is a text in the works
            out[blocks[k - 1].msg_pos] = f"kept: the text the turn after edits ({_short(text[b.start:b.end].strip(), 40)!r})"
            last = blocks[k - 1]
        if b.role != "user" or k + 1 >= len(blocks):
            continue
        nxt = blocks[k + 1]
        if nxt.role != "assistant" or nxt.msg_pos == b.msg_pos:
            continue
        asked = reused(_asks_for_a_text, text[b.start:b.end], reuse=reuse)
        if standing is not None and asked is None:
            out[nxt.msg_pos] = standing  # (each reply after a text handed over for it is one)
        elif asked is not None and not _no_text_in(text, nxt.start, nxt.end):
            out[nxt.msg_pos] = f"kept: the text the turn before asked for ({_short(asked, 40)!r})"
        elif _reports_a_customer(text, blocks, k, reuse) and _TO_THE_CUSTOMER.match(text, nxt.start, nxt.end) \
                and not _ADVICE.search(text, nxt.start, nxt.end):
            # "客户问能不能货到付款，我们不支持。" answered with "您好，非常抱歉，我们目前暂不支持…": the reply to send
            out[nxt.msg_pos] = f"kept: the reply to the question the turn before reports ({_short(text[b.start:b.end].strip(), 40)!r})"
        elif k > 0 and blocks[k - 1].role == "assistant" and (_works_on_the_last_reply(text, b.start, b.end, reuse) or (
                blocks[k - 1].msg_pos in out and (_asks_for_a_revision(text, b.start, b.end)
                                                  or b.end - b.start <= _ADDS_MAX and _ADDS_TO_IT.match(text, b.start, b.end)))):
            # a new version of a text delivered before ("Make the email above more formal.", "把上面的邮件改得更正式一些")
            out[nxt.msg_pos] = f"kept: the new version the turn before asked for ({_short(text[b.start:b.end], 40)!r})"
        elif _VERSION_INTRO.match(text, nxt.start, nxt.end) is not None:
            out[nxt.msg_pos] = "kept: the new version the reply names and delivers"
        elif b.end - b.start <= _REVISION_ALONE_MAX and _asks_for_a_revision(text, b.start, b.end):
            # a turn that is only a change to a text in the works ("Shorter.", "Make it warmer.", "第二段删掉", "还是用第一版"):
            # the reply is that text's new version
            out[nxt.msg_pos] = f"kept: the new version the turn before asked for ({_short(text[b.start:b.end], 40)!r})"
        elif nxt.msg_pos not in out:
            # a reply that is another version of a text in the works — the last text delivered, or the text the turn
            # before handed over — whatever the turn asked ("Make it Tuesday." / "她是周二入职。" after a draft; "帮我看看
            # 这封道歉信有没有问题，不要大改：…" answered with the letter, one word changed)
            for earlier in (last, b):
                if earlier is not None and _is_a_version(text, earlier, nxt, reuse):
                    out[nxt.msg_pos] = f"kept: a new version of the text in message {earlier.message}"
                    break
    return out


# words a turn quotes ('把“谢谢配合”去掉。', 'Drop "thanks for your cooperation".')
_QUOTED_WORDS = re.compile(r"[“\"「『‘']([^”\"」』’'\n]{2,40})[”\"」』’']")
# a reply that opens by naming the piece it delivers: "Here's the notice:", "Here is a draft of the email:", "以下是通知："
_PIECE_INTRO = re.compile(r"[ \t]*(?:(?i:here(?:'s|’s|\s+is)\s+(?:the|a|an|your)\s+(?:[a-z-]+\s+){0,2}?(?:" + _PIECES_EN
                          + r"|notice|draft|reply|response|sign|memo)s?\b[^:\n]{0,30}:)"
                          r"|(?:以下是|下面是|这是)[^：:\n]{0,8}?(?:通知|草稿|回复|消息|邮件|告示|公告|文案|话术|短信)[：:])[ \t]*\n")
# a change of words, anywhere in the turn: "别写“…”", "Don't say \"…\"", "remove \"…\""
_EDIT_WORDS = re.compile(r"别写|不要写|别说|不要说|去掉|删掉|删除|改成|换成|改为|(?i:\b(?:don'?t\s+(?:say|write|mention)|remove|drop|delete|"
                         r"change|replace|swap)\b)")
# an item of the reply made again: "第2条再真诚一点。", "第二条改短一点"
_ITEM_AGAIN = re.compile(r"[ \t]*第\s*[一二三四五六七八九十\d]+\s*(?:条|个|句|段|版)\s*(?:再|改|换|写得|重写|重新)")
# a reply that opens by naming the new version it delivers: "Here's a friendlier version:", "新的欢迎语：", "修改后的版本："
_VERSION_INTRO = re.compile(r"[ \t]*(?:(?i:sure|of\s+course|okay|ok|certainly|absolutely|got\s+it)[!,.]?[ \t]+|(?:好的|当然|没问题)[！，,。]?[ \t]*)?"
                            r"(?:(?i:here(?:'s|’s|\s+is)\s+(?:a|an|the|your)\s+(?:[a-z-]+\s+){0,2}?(?:version|rewrite|revision)\b"
                            r"[^:\n]{0,30}:)|(?:新的|修改后的|改好的|优化后的|改写后的)[\u4e00-\u9fff]{0,6}?[：:])[ \t]*\n")
# … and a short change asked of it: "Make it 10 PM.", "Change the date to June 2."
_MAKE_IT = re.compile(r"\s*(?i:(?:now\s+|please\s+|ok(?:ay)?,?\s+)?(?:make|change|set)\s+(?:it|that|the\s+[a-z]+)\b)")


def _edits_the_reply(text: str, turn: BlockRef, reply: BlockRef) -> bool:
    """Whether the short user turn asks to change words it quotes from the reply before it, or makes a short change to
    a reply that named the piece it delivers: that reply is a text in the works."""
    a, b = _stripped(text, turn.start, turn.end)
    if not 0 < b - a <= _ADDS_MAX:
        return False
    if (_ADDS_TO_IT.match(text, a, b) is not None or _EDIT_WORDS.search(text, a, b) is not None) and any(
            q.group(1) in text[reply.start:reply.end] for q in _QUOTED_WORDS.finditer(text, a, b)):
        return True  # ('把“谢谢配合”去掉。', '挺好的，但是别写“参加英语培训”。')
    if _ITEM_AGAIN.match(text, a, b) is not None:
        return True  # ("第2条再真诚一点。": an item of the reply, made again)
    return (_MAKE_IT.match(text, a, b) is not None or _ADDS_TO_IT.match(text, a, b) is not None) \
        and _PIECE_INTRO.match(text, reply.start, reply.end) is not None


# a task set for each text the user will hand over: "I'll paste customer reviews; for each, write a short reply.", "每条评论
# 帮我写一个回复"
_FOR_EACH_TEXT = re.compile(r"(?i:\b(?:reply|respond)\s+to\s+(?:these|the\s+following|each\s+of\s+these)\s+(?:[a-z]+\s+)?(?:reviews|comments|"
                            r"messages|e-?mails|tickets)\b|"
                            r"\b(?:keep|make)\s+(?:every|each)\s+(?:reply|response)\b[^.?!\n]{0,40}?[.!]\s+(?:first|here'?s\s+the\s+first)"
                            r"(?:\s+one|\s+review|\s+message|\s+comment)?\s*:|"
                            r"\bfor\s+(?:each|every)(?:\s+one|\s+of\s+them|\s+[a-z]+)?\b[^.?!\n]{0,40}?\b(?:write|draft|"
                            r"reply|respond|answer)\b|\b(?:write|draft)\b[^.?!\n]{0,30}?\b(?:reply|response|answer)\s+(?:to|for)\s+"
                            r"(?:each|every)\b)|每(?:一)?(?:条|封|个|篇)[^。！？\n]{0,20}?(?:写|回|起草)")
# a system prompt whose task is a reply to each text the user brings
_REPLIES_TO_EACH = re.compile(r"(?i:\byou\s+(?:reply|respond|write\s+(?:replies|responses))\s+to\s+(?:[a-z-]+\s+){0,2}?"
                              r"(?:reviews|comments|messages|e-?mails|tickets|complaints)\b"
                              # ("You write replies for an eBay seller.", "You draft replies to buyers")
                              r"|\byou\s+(?:write|draft)\s+(?:replies|responses|messages)\s+(?:for|to)\s+(?:an?\s+|the\s+|our\s+)?"
                              r"(?:[a-z-]+\s+){0,2}?(?:sellers?|shops?|stores?|buyers?|customers?|clients?|guests?|tenants?|patients?)\b)"
                              r"|(?:你|您)(?:[^。\n]{0,10}?(?:负责|的任务是))?回复[\u4e00-\u9fff]{0,10}?(?:评价|评论|留言|差评)")
_FIRST_ITEM = re.compile(r"(?i:\b(?:first|here'?s\s+the\s+first)(?:\s+one|\s+review|\s+message|\s+comment)?\s*:)|第一条[：:]")
_VERSION_MIN = 40  # characters: a reply shorter than this is an answer, not a text
_VERSION_SIMILAR = 0.6  # the share of character 4-grams two versions of one text have in common (Dice)
_VERSION_READ = 4000  # characters compared at most


def _is_a_version(text: str, earlier: BlockRef, reply: BlockRef, reuse: bool = False) -> bool:
    """Whether the reply block is another version of the text in ``earlier`` — a reply, or what a user's turn hands
    over below its first line (an answer that echoes a one-line question is none) —: of a like length, and the same
    runs of characters for the most part (the Dice coefficient of their character 4-grams: linear, where difflib's
    ratio took a third of a second on two 4,000-character texts)."""
    start = earlier.start
    if earlier.role == "user":
        start = text.find("\n", earlier.start, earlier.end) + 1
        if start <= 0:
            return False
    a = text[start:earlier.end]
    r = text[_after_reply_intro(text, reply.start, reply.end):reply.end]
    if len(r) < _VERSION_MIN or not 0.5 <= len(r) / max(1, len(a)) <= 2.0:
        return False
    a, r = a[:_VERSION_READ], r[:_VERSION_READ]  # (two versions of a long text differ as much in their openings)
    ga, gr = reused(_grams, a, reuse=reuse), reused(_grams, r, reuse=reuse)
    return 2 * len(ga & gr) >= _VERSION_SIMILAR * (len(ga) + len(gr))


def _grams(s: str) -> frozenset[str]:
    s = " ".join(s.split())
    return frozenset(s[k:k + 4] for k in range(len(s) - 3))


_ASK_WITHIN = 600  # characters: a long turn asks for its text in its first or its last lines


def _asks_for_a_text(turn: str) -> str | None:
    """What in a user turn asks for a text to be written or made anew ("Draft a short email", "Polish my cover
    letter:"), or None."""
    if len(turn) > 2 * _ASK_WITHIN:  # (not in the middle of a pasted document)
        return _asks_for_a_text(turn[:_ASK_WITHIN]) or _asks_for_a_text(turn[-_ASK_WITHIN:])
    if _HOW_OR_WHETHER.search(turn):
        return None  # "How do I reply to a comment on a GitHub PR?", "我该不该回复客户这封邮件？": no text to write
    m = _WRITE_A_TEXT.search(turn) or _EDIT_REQUEST.search(turn, 0, 200) or _REVISE_REQUEST.search(turn, 0, 200) \
        or _EDIT_WHAT_CAME.match(turn, turn.rstrip().rfind("\n") + 1) or (
        _SEND_BACK.search(turn) if _REPORTS_A_MESSAGE.search(turn) and not _IN_GENERAL.search(turn) else None)
    return None if m is None else m.group(0)


# a turn that asks how one replies to a kind of message, or whether to reply at all: no text is asked for
_HOW_OR_WHETHER = re.compile(r"(?i:\bhow\s+(?:do|can|should)\s+(?:I|you|we|one)\s+(?:reply|respond)\s+to\s+(?:a|an|any)\b|"
                             r"\bshould\s+I\s+(?:even\s+)?(?:reply|respond|answer|write\s+back)\b|\bwhether\s+to\s+(?:reply|respond)\b)"
                             r"|该不该回|要不要回|是否(?:需要|要|该|应该)?回")
# a reply that gives no text: a short question back ("您跟张总平时说话比较正式吗？") or advice about the reply ("我建议您先确认
# …，再让客户拍照。"), not addressed to the one it is for
_ADVICE = re.compile(r"我建议|建议您|建议你|建议先|(?i:\bI\s+(?:would\s+|'d\s+)?(?:suggest|recommend)\b|\byou\s+(?:could|can|might|should)"
                     r"\s+(?:first|try|start)\b)")


# a question back about how to write the text asked for: "您跟张总平时说话比较正式吗？", "Would you like it formal or casual?"
_HOW_TO_WRITE_IT = re.compile(r"(?i:\b(?:would\s+you\s+like|do\s+you\s+want|should\s+I|what\s+tone|which\s+(?:tone|version|one)|"
                              r"how\s+(?:formal|long|casual)|formal\s+or\s+casual)\b)|您希望|你希望|您想|你想|您跟|你跟|要不要我|"
                              r"需要我|是否需要|语气|正式")
# … and advice that speaks of the one the text is for in the third person: "…再让客户拍照", "ask the customer for a photo"
_THIRD_PERSON = re.compile(r"(?i:\bthe\s+(?:customer|client|recipient|landlord|tenant|manager|boss|guest|buyer)\b|\b(?:him|them)\b)"
                           r"|客户|对方|顾客|买家|他|她")


def _no_text_in(text: str, s: int, e: int) -> bool:
    """Whether the reply [s, e) after a request for a text holds none (a question back, or advice)."""
    a = _after_reply_intro(text, s, e)
    body = text[a:e].strip()
    if _TO_THE_CUSTOMER.match(body) or a > s:
        return False  # ("Here's a draft:⏎…", "您好，…": a text)
    if len(body) <= 120 and body.endswith(("?", "？")) and _HOW_TO_WRITE_IT.search(body):
        return True  # (a question to the user about the text: "您跟张总平时说话比较正式吗？"; "… any chance someone can look at it
        # this week?" is a text)
    return _ADVICE.search(body) is not None and _THIRD_PERSON.search(body) is not None and "\n\n" not in body


# a change asked of the text the last reply wrote, which the next reply writes anew ("Start with "Dear colleagues"
# instead.", "Add a raffle segment.", "开头不要叫“家人们”，改成“各位同事”。", "再加一个抽奖环节。")
_REVISE_REQUEST = re.compile(
    r"(?i:\b(?:start|begin|open|end|close|finish)\s+(?:it\s+)?with\b[^.!?\n]{0,60}?\binstead\b|"
    r"^\s*(?:(?:thanks|thank\s+you|great|nice|ok(?:ay)?|perfect|cool)[!.,]*\s+)?(?:now\s+|also\s+|and\s+|please\s+)*"
    r"(?:add|insert|include)\s+(?:a|an|one|another|the)\s+(?:[a-z-]+\s+)?(?:segment|section|"
    r"paragraph|line|sentence|part|joke|story|anecdote|quote|example|bit|verse|toast)\b)"
    r"|(?:开头|结尾|开场|称呼)[^。！？\n]{0,20}?(?:改成|换成|改为)|^\s*(?:再|也)?加(?:一个|一段|一句|个|段|句)[\u4e00-\u9fff]{1,8}?(?:环节|部分|段落|内容)")


# a request to make a new version of a text it hands over ("Polish my cover letter:", "Translate into Chinese:", "把这些界面
# 文案翻成英文：") — in a turn's first line
_EDIT_REQUEST = re.compile(rf"(?i:\b{_en_words(_EDIT)}\b|\bmake\s+(?:this|it|the\s+[a-z]+)\s+(?:sound|look|read)\b)[^\n]{{0,60}}?"
                           rf"(?:[:：]|\n)|{_zh_words(_EDIT)}[^\n]{{0,30}}?(?:[:：]|\n)")


# … or, on a turn's last line, to make one of what the lines before handed over ("The canned replies … are:⏎1. …⏎
# Rewrite them to sound friendlier.")
_EDIT_WHAT_CAME = re.compile(rf"[ \t]*(?i:(?:please\s+)?\b{_en_words(_EDIT)}\b\s+(?:them|these|those|it|this|the\s+[a-z-]+))\b"
                             rf"|[ \t]*(?:请|帮我|麻烦)?(?:把|将)?(?:它们|这些|它|这几[条句个段])?{_zh_words(_EDIT)}")


# the reply's own closing paragraph after the text it delivers: "Hope this helps! Let me know if you'd like any changes.",
# "希望对您有帮助，如需修改请告诉我。"
_REPLY_OUTRO = re.compile(r"[ \t]*(?:(?i:hope\s+(?:this|that|it)\s+helps|let\s+me\s+know|feel\s+free|happy\s+to\s+(?:adjust|tweak|"
                          r"change|help)|if\s+you(?:'d)?\s+(?:like|want|need)|want\s+me\s+to)|希望(?:对您|对你|能)|如需|如果需要|需要的话|"
                          r"有需要|要不要我)")


# a piece's own sign-off, with no intro line before the piece: "Hope you enjoy it! Let me know if you want changes.", 希望你喜欢！
_PIECE_OUTRO = re.compile(r"[ \t]*(?:(?i:hope\s+you\s+(?:enjoy|like|love)\b)|希望(?:你|您)(?:会)?喜欢)")


def _before_reply_outro(text: str, a: int, e: int, outro: re.Pattern[str]) -> int:
    """Where the text a reply delivers (after its intro line, if any) ends: before a last paragraph that is the reply's
    own ``outro`` (``_REPLY_OUTRO`` after an intro line; with none, only ``_PIECE_OUTRO``)."""
    last = None
    for last in _PARA_BREAK.finditer(text, a, e):
        pass
    if last is None or not outro.match(text, last.end(), e) or e - last.end() > 200:
        return e
    return _stripped(text, a, last.start())[1]


def _after_reply_intro(text: str, s: int, e: int) -> int:
    """Where the delivered text of the reply [s, e) starts: after a short first line that ends with a colon."""
    m = _REPLY_INTRO.match(text, s, e)
    if m is None:
        return s
    a = m.end()
    while a < e and text[a] in " \t\n":
        a += 1
    return a


# a reply that only says yes ("承知いたしました。", "好的。", "Sure!", "알겠습니다.")
_ACKNOWLEDGES = re.compile(r"\s*(?:(?i:ok(?:ay)?|sure|got\s+it|of\s+course|certainly|will\s+do|understood)|好的?|没问题|收到|明白|可以|"
                           r"了解(?:しました|です)?|承知(?:いた)?しました|かしこまりました|わかりました|알겠습니다|네)[\s!.,。！～~]*")
# a turn that sets a translation for every text to come ("From now on, translate everything I send into Japanese.", "之后我发的都
# 翻译成韩语") …
_TRANSLATES_FROM_NOW = re.compile(r"(?i:\b(?:from\s+now\s+on|going\s+forward)\b[^.!?\n]{0,30}?\btranslate\b|\btranslate\s+"
                                  r"(?:everything|anything|whatever|all(?:\s+the\s+\w+)?|each\s+\w+|every\s+\w+)\s+(?:that\s+)?I\s+"
                                  r"(?:send|paste|write|give|type))|(?:之后|以后|接下来|下面)我?(?:发|给)(?:的|你的)[^。！？\n]{0,6}?"
                                  r"(?:都|全部)?(?:翻译|翻|译)(?:成|为)")
# … or a labelling task for texts sent one at a time: "I'll paste customer emails one at a time; tag each with intent.",
# "我会一条一条发客户邮件，你给每条打意图标签"
_SENDS_ONE_BY_ONE = re.compile(r"(?i:\b(?:i'll|i\s+will|i'm\s+going\s+to|i'm\s+gonna)\s+(?:paste|send|give\s+you|share|post)\b"
                               r"[^.!?\n]{0,60}?\b(?:one\s+at\s+a\s+time|one\s+by\s+one|each\s+in\s+its\s+own\s+message)\b)"
                               r"|一(?:条|个|封|句)一(?:条|个|封|句)(?:地)?(?:发|贴|给)|逐条(?:发|贴|给)|每次(?:发|给你|贴)一(?:条|个|封|句)"
                               # "I'll answer in Chinese and you correct me."
                               r"|(?i:\bI(?:'ll|\s+will)\s+(?:answer|reply|respond|write)\b[^.!?\n]{0,30}?\band\s+you\s+correct\s+me\b)"
                               r"|我(?:来)?(?:回答|答|说|写)[^。！？\n]{0,10}?你(?:来)?(?:纠正|改)")
# … to be checked or corrected each: "你告诉我对不对", "tell me if it's natural", "correct each one"
_CHECK_EACH = re.compile(r"告诉我(?:对不对|对吗|哪里不(?:对|自然)|自不自然|自然吗|有没有(?:错|问题)|通不通顺)|帮我(?:改|纠正|检查|看看)|纠正我"
                         r"|(?i:\btell\s+me\s+(?:if|whether)\s+(?:it'?s|they'?re|each\s+is)\s+(?:correct|natural|right|ok|okay|polite)"
                         r"|\bcorrect\s+(?:it|them|me|each)\b|\bcheck\s+(?:it|them|each)\b)")
# … and one that ends it
_STOPS_STANDING = re.compile(r"(?i:\b(?:stop|no\s+more|don'?t)\s+translat|\bnever\s*mind\b)|不用(?:再)?翻译|别翻译|停止翻译|不要再?翻译")


def _announced_turns(view: TextView, reuse: bool = False) -> dict[int, str]:
    """The user messages an earlier user turn announced as the text it asks to work on (message position → detail)."""
    text = view.text
    out: dict[int, str] = {}
    pending: tuple[int, str] | None = None
    requested: tuple[int, str] | None = None  # a user turn that asks for work on a text it does not hold
    names_a_text = False  # … and names the text ("Can you check a message?"): a go-ahead then asks for it
    standing: str | None = None  # a translation asked for every text to come
    for b in view.blocks:
        if b.role == "assistant":
            # the reply asks for the text ("Of course — please paste the email.", "好的，请把信的内容发给我。"): the next
            # user turn is that text
            if requested is not None and b.msg_pos > requested[0] and (
                    reused(_asks_to_paste, text[b.start:b.end], names_a_text, reuse=reuse)
                    # (or only says yes to a request that waits for its text: "翻译成日语" / "承知いたしました。")
                    or names_a_text and _ACKNOWLEDGES.fullmatch(text, b.start, b.end) is not None):
                pending, requested = requested, None
            continue
        if b.role != "user":
            continue
        if standing is not None:
            if _STOPS_STANDING.search(text, b.start, b.end):
                standing = None
            else:
                # ("From now on, translate everything I send into Japanese." — each turn after it is a text; one that
                # says where its text starts, "Thank you. Next: …", hands over what follows that: _pointed_texts)
                pending = None
                if _NEXT_MID.search(text, b.start, b.end) is None:
                    out[b.msg_pos] = standing
                continue
        if _TRANSLATES_FROM_NOW.search(text, b.start, b.end) or (_SENDS_ONE_BY_ONE.search(text, b.start, b.end)
                                                                 and (_LABEL_TASK.search(text, b.start, b.end)
                                                                      or _CHECK_EACH.search(text, b.start, b.end))):
            standing = f"kept: a text sent after {_short(text[b.start:b.end].strip(), 40)!r}"
        if pending is not None and b.msg_pos > pending[0]:
            if not (_CHANGED_MIND.match(text, b.start, b.end) or _quotes_its_text(text, b.start, b.end)
                    or _pasted_in_fences(text, b.start, b.end)):
                # (not "算了，不用回了。麻烦你帮我…": something else instead; nor a turn that quotes or fences its text and
                # asks around it: the quote or the code is the text, kept as such)
                out[b.msg_pos] = pending[1]  # (the whole message: find_material reads it by position)
            pending = None
            continue
        if b.msg_pos in out:
            continue
        requested = None
        if b.end - b.start <= _ANNOUNCE_MAX and any(h in text[b.start:b.end] for h in _ANNOUNCE_HINT):
            m = _NEXT_TEXT.search(text, b.start, b.end)
            if m is not None and _TASK_VERB.search(text, b.start, b.end):
                pending = (b.msg_pos, f"kept: the text the turn before announced ({_short(m.group(0), 40)!r})")
        if pending is None and b.end - b.start <= _ANNOUNCE_MAX and (
                reused(_requests_work, text[b.start:b.end], reuse=reuse)):
            requested = (b.msg_pos, f"kept: the text asked for by {_short(text[b.start:b.end].strip(), 40)!r} and "
                                    "the reply that asked for it")
            names_a_text = (found_in(_TEXT_NAMED, text, b.start, b.end, reuse)
                or _AWAITS_TEXT.search(text[b.start:b.end]) is not None  # (its \A: the turn's start)
                or _ANNOUNCED_WORK.match(text, b.start, b.end) is not None)  # ("Here's chapter 1, find typos.")
        if pending is None and requested is None and b.end - b.start <= _ANNOUNCE_MAX \
                and reused(_only_a_label, text[b.start:b.end], reuse=reuse):
            # a turn that is only the label of a message it has not pasted yet ("The customer wrote:", "客户说："): after
            # a reply that asks for it, the next turn is that message
            requested = (b.msg_pos, f"kept: the message {_short(text[b.start:b.end].strip(), 40)!r} announced, pasted "
                                    "after the reply asked for it")
            names_a_text = True
    return out


# a request that waits for its text: it ends with a colon or with "this", or only names a language to translate into
# ("Translate this into Chinese:", "Can you fix this?", "翻译成英文"): a go-ahead then asks for that text
_AWAITS_TEXT = re.compile(r"[:：][ \t]*\Z|(?:(?i:\b(?:this|these|the\s+following))|这(?:个|句|段|篇|封|条|几句)|下面(?:这段|的)?)"
                          r"[ \t]*[?？.。!！]?[ \t]*\Z"
                          r"|\A[ \t]*(?:请|麻烦你?)?(?:帮我)?(?:翻译|翻|译)(?:成|为)[\u4e00-\u9fff]{1,4}[ \t]*[。.！!]?[ \t]*\Z"
                          # ("Translate into Korean please", "Proofread this for me", "翻译一下", "帮我润色一下")
                          r"|\A[ \t]*(?i:(?:(?:please|can\s+you|could\s+you)\s+)?(?:translate|proofread|polish|edit|check)"
                          r"(?:\s+(?:this|it|something))?(?:\s+(?:in)?to\s+[a-z]+)?(?:\s*,?\s*(?:please|for\s+me))?)[ \t]*[.!?]?[ \t]*\Z"
                          r"|\A[ \t]*(?:请|麻烦你?)?(?:帮我)?(?:翻译|润色|校对|改)一下[ \t]*[。.！!]?[ \t]*\Z")


# a request whose reply is its text made anew: translated, rewritten, polished
_MAKES_ANEW = re.compile(r"(?i:\b(?:translate|rewrite|polish|proofread|paraphrase|rephrase|reword|shorten|locali[sz]e)\b)"
                         r"|翻译|翻成|译成|翻一下|润色|改写|校对|精简|缩写|改成")


def _only_a_label(turn: str) -> bool:
    """Whether a turn is only the label of a message it does not hold ("The customer wrote:", "客户说：")."""
    lab = _REPORTED_LABEL.match(turn)
    return lab is not None and not turn[lab.end():].strip()


# a text a request names ("Can you check a message?", "帮我看看这条消息", "幫我睇下呢段嘢"), not a task ("443 端口可不可以访问")
_TEXT_NAMED = re.compile(r"(?i:(?<![A-Za-z])(?:message|e-?mail|letter|text|paragraph|draft|note|essay|bio|speech|post|reply|"
                         r"caption|document|doc|article|passage|script|copy|review|announcement|toast|cover\s+letter|complaint|tweet|poem|"
                         r"description|headline|tagline|slogan|story|lyrics|statement|resume|cv|proposal|pitch|memo|"
                         r"newsletter|blurb|invitation|invite|card|eulogy|summary|abstract|sentence)s?(?![A-Za-z]))"
                         r"|消息|邮件|信|文章|文字|段话|一段|这段|呢段|稿|内容|短信|简历|作文|文案|嘢|留言|评论|通知|发言|投诉|帖子")


_GO_AHEAD_MAX = 40  # characters: a reply this short that asks nothing is a go-ahead ("Sure.", "Fire away!", "你说")


def _asks_to_paste(reply: str, names_a_text: bool = True) -> bool:
    """Whether an assistant reply asks for the text to work on (see ``_ASKS_TO_PASTE``), or, right after a request that
    names a text it does not hold (``names_a_text``), says go ahead in a few words and asks nothing else ("Okay,
    shoot.", "Ready when you are!", "好的，请讲。", "你说"): it cannot have done the work without the text (a reply that
    quotes something delivered it: "可以说：“我真的很抱歉。”")."""
    if _ASKS_TO_PASTE.search(reply) is not None:
        return True
    r = reply.strip()
    return names_a_text and len(r) <= _GO_AHEAD_MAX and not any(c in r for c in "?？0123456789\n“「\"") \
        and _GO_AHEAD.match(r) is not None


# what a go-ahead opens with (a short reply that delivered something — "- Revenue up 12%", "组长您好，…" — does not)
_GO_AHEAD = re.compile(r"[\s\W]*(?:(?i:(?<![A-Za-z])(?:sure|ok|okay|alright|go\s+ahead|shoot|fire\s+away|ready|lay\s+it\s+on\s+me|send|paste|share|"
                       r"let's\s+(?:see|hear)|let\s+me\s+see|of\s+course|absolutely|happy\s+to|glad\s+to|no\s+problem|yes|yep|"
                       r"you\s+bet|certainly|go\s+on|i'm\s+listening|listening)(?![A-Za-z]))|好的|好呀|好啊|好|可以|行|没问题|你说|你讲|请讲|请说|"
                       r"发吧|来吧|讲吧|说吧|发嚟|收到|请发|发来|贴)")


def _requests_work(turn: str) -> bool:
    """Whether a one-line user turn asks for work on a text ("帮我回这封信：", "Can you help me reply to an email?")."""
    return "\n" not in turn.strip() and bool(_TASK_VERB.search(turn) or _SEND_BACK.search(turn) or _WORK_ON_A_TEXT.search(turn)
                                             or _TEXT_NAMED.search(turn) or _ANNOUNCED_WORK.match(turn))


# a turn that says something else instead of the text asked for
_CHANGED_MIND = re.compile(r"\s*(?:(?:不好意思|唔好意思|抱歉|对不起)[，,!！.。\s]*)?(?:(?i:(?:hi|hey|hello|hmm+|um+|uh+|oh|wait)"
                           r"[!,.]?\s*)?(?i:never\s*mind|actually|sorry[!,.]?\s*(?=never\s*mind|actually|forget|scratch|instead|wait|hold\s+on|I\s+changed|(?:could|can|would)\s+you|"
                           r"how|what|why|which|do\s+I|should\s+I|is\s+it|first)|"
                           r"forget\s+(?:it|that|about\s+it)|scratch\s+that|hold\s+on|"
                           r"on\s+second\s+thought|instead|change\s+of\s+plans?|wait\b[^.!?\n]{0,12}?\bbefore\s+that)\b|"
                           r"(?i:oh\s+wait)\b|算了|"
                           r"不用了|不用回|唔使|我?(?:改主意|改变主意|改咗主意)|换个|先不|(?:等一下|等等|等一等)[，,]?[^。！？\n]{0,6}?先|我?想?先问(?:下|一下|个|一个))")
# a short request to work on a text it does not hold yet ("帮我改个发言稿", "幫我改講稿"): the reply asks for the text
_WORK_ON_A_TEXT = re.compile(r"(?i:(?<![A-Za-z])(?:edit|proofread|fix|check|review|translate|reply|respond|write\s+back|rewrite|polish|improve|"
                             r"summari[sz]e|tidy|shorten|tighten|clean\s+up)(?![A-Za-z])|\bhelp\s+(?:me\s+)?with\s+(?:an?|my|this|the)\s+"
                             r"(?:e-?mail|message|letter|text|draft|essay|bio|speech|post|reply|cover\s+letter)\b|\b(?:send|write)\s+(?:a|an|my)\s+"
                             r"(?:note|message|e-?mail|letter|text|reply)\b)|改|润色|翻译|回复|回信|校对|检查|总结|看看|看一下|看下|睇下|睇睇|睇吓")
# a reply that asks for the text to work on: "Please paste the email.", "Could you share the message?", "请把信的内容发给我"
_ASKS_TO_PASTE = re.compile(
    r"(?i:\b(?:paste|share|send|forward|provide|copy|post|drop|show|give\s+me|pasting|sharing|sending|posting|forwarding)\b"
    r"[^.!?\n]{0,40}?\b(?:e-?mail|message|"
    r"letter|text|draft|essay|paragraph|note|review|comment|it|them|content|original|bio|version|copy|document|doc|script|"
    r"speech|post|caption|what\s+you(?:'ve|\s+have)?\s+(?:got|have|wrote|written))s?\b"
    r"|\bwhat(?:'s|\s+is)\s+the\s+(?:text|message|e-?mail|letter|draft|wording)\b|\bwhat(?:'s|\s+is)\s+it\s+now\b"
    # (what the text says or holds: "what would you like translated?", "What does it say?", "what did the customer
    # write?", "What do you have?", "which message?")
    r"|\bwhat\s+would\s+you\s+like\s+(?:me\s+to\s+)?(?:proofread|edit|translate|check|review|polish|rewrite|reply\s+to|"
    r"tidy|shorten|fix|improve)(?:ed|d)?\b"
    r"|\bwhat\s+(?:did|does|do)\s+(?:she|he|they|it|you|your\s+\w+|the\s+\w+)\s+(?:send|write|say|have)s?\b"
    # (not a choice between things named: "Which one — the email or the text message?")
    r"|\bwhat\s+have\s+you\s+got\b|\bwhich\s+(?:one|message|e-?mail|letter|text|draft|document|paragraph)\b(?![^?\n]*\bor\b)"
    r"|\bdo\s+you\s+have\s+(?:a|the|it|one|your)?\s*(?:draft|text|copy|version|message|e-?mail|letter|it)\b"
    r"|\b(?:let\s+me\s+(?:see|have\s+a\s+look\s+at|take\s+a\s+look\s+at)\s+(?:it|them|the\s+\w+)|go\s+ahead\s+and\s+"
    r"(?:send|paste|share|post|drop)|I(?:'m|\s+am)\s+ready\s+when\s+you\s+are)\b)"
    r"|(?:发给我|发过来|发来|发我|贴过来|贴进来|贴出来|贴出|贴给我|贴上来|贴上|粘贴|发一下|你要改什么|要改的(?:内容|是什么)|原文是什么|"
    # (请发原文, 内容是什么？, 邮件内容是？, 客户说了什么？, 发嚟睇睇)
    r"(?:发|贴|给我)(?:一下)?(?:原文|全文|正文|内容)|(?:原文|全文|正文|内容)(?:是什么|是啥|是[？?]|呢[？?])|"
    r"(?:说|写|讲|发)了(?:些)?(?:什么|啥)|写的(?:是)?什么|(?:是)?怎么(?:说|写|讲)的|发嚟|贴嚟|睇睇|(?:给|让)我看看|(?:请|麻烦)?提供(?:一下)?(?:内容|原文|全文)|"
    # (请提供要翻译的内容, 请发送您需要润色的文字)
    r"(?:提供|发送|发|贴|给我)(?:一下)?(?:您|你)?(?:要|需要|想要?)[\u4e00-\u9fff]{1,4}的(?:内容|文字|文本|原文|句子|段落|文章|邮件|消息)|"
    r"(?i:message|e-?mail|text|draft|letter)\s*(?:是什么|是啥|呢[？?]))"
    r"|(?:把|将)[^。！？\n]{0,10}?(?:内容|原文|信|邮件|消息|短信|文章|全文|文本|段落)[^。！？\n]{0,6}?(?:发|贴|给|提供)")


def find_material(view: TextView, block_types: Mapping[tuple[MessageKey, int], str] | None = None,
                  last_role: str | None = None, reuse: bool = False) -> list[Material]:
    """Every material range of ``view`` with its kind and detail, largest first (so that a smaller range
    inside a larger one — a quote inside a handed-over letter — shows its own detail).

    ``block_types``: (message key, block index) → the block's type (``"tool_result"`` for a tool's output),
    when the caller knows them (the view itself keeps roles, not block types); a :class:`BlockRef` with a
    ``type`` field is read directly.  ``last_role``: the role of the conversation's final message (None:
    the role of the message holding the last text block).  ``reuse``: look up what a block's own text gave when
    that text was seen before (the same finds, from a bounded cache).
    """
    return MaterialFinds(view, block_types, last_role, reuse).found()


class MaterialFinds:
    """What :func:`find_material` finds, block by block, each block looked at when first asked for
    (:meth:`found`): marked whole by the turns around it (a prefill, a tool result, a text handed over or announced,
    a draft the next turn works on, a processed turn, a reply that delivers the text asked for), or holding
    material by its own text alone (:func:`_own_material`); and the quotes a later draft echoes, found with the
    first block looked at.  What the turns mark together is worked out once, when a block first needs it.

    The engine asks for the blocks where a rule proposes a cut (``Config(material_everywhere=False)``): a range
    of material in a block without any candidate changes no decision.
    """

    def __init__(self, view: TextView, block_types: Mapping[tuple[MessageKey, int], str] | None = None,
                 last_role: str | None = None, reuse: bool = False) -> None:
        self._text = view.text
        self._view = view
        self._reuse = reuse
        self._block_types = block_types or {}
        blocks = self._blocks = view.blocks
        self._of: dict[int, list[Material]] = {}  # block index → its finds (of the blocks looked at)
        self._seen: dict[tuple[str, str, bool], tuple[int, list[Material]]] = {}  # own material by text: (start, finds)
        self.pending: set[int] = {k for k, b in enumerate(blocks) if b.end > b.start}  # the blocks not looked at
        last = blocks[-1] if blocks else None
        self._prefill = last.msg_pos if last is not None and (last_role or last.role) == "assistant" \
            and last.role == "assistant" else None

    @cached_property
    def _processed_after(self) -> tuple[int | None, str]:
        """The message that declares the dialogue text to process — the system prompt, or with none the first
        turn — and how it says so ((None, "") when none does)."""
        text, blocks = self._text, self._blocks
        system = self._view.blocks_of_roles(("system", "developer"))
        for b in system or blocks[:1]:
            m = _declares_processing(text, b.start, b.end, bool(system)) or _PRACTICE_LINES.search(text, b.start, b.end)
            if m is not None:
                where = "the system prompt" if system else f"message {b.message}"
                return b.msg_pos, f"{where}: {_short(m.group(0), 60)!r}"
        first_user = next((b for b in blocks if b.role == "user"), None)
        if system and first_user is not None \
                and (m := _PRACTICE_LINES.search(text, first_user.start, first_user.end)) is not None:
            # (a practice the user sets up in the first turn, under any system prompt: "我们来练习点餐。你是服务员。")
            return first_user.msg_pos, f"message {first_user.message}: {_short(m.group(0), 60)!r}"
        return None, ""

    @cached_property
    def _echoed(self) -> list[Material]:
        """The quotes a later draft echoes of words the system prompt or a user turn requires verbatim (a user turn
        that quotes words to say verbatim requires them too: "Here's our required greeting, which staff must say
        verbatim: "Good morning, …"" — a later draft says them), and the fields the system prompt fixes."""
        text, blocks, reuse = self._text, self._blocks, self._reuse
        system = self._view.blocks_of_roles(("system", "developer"))
        requiring = system + [b for b in blocks if b.role == "user" and found_in(_VERBATIM_LINE, text, b.start, b.end, reuse)]
        out = _echoed_quotes(text, requiring, blocks) if requiring else []
        if system:
            out.extend(_verbatim_fields(text, system, blocks))
        return out

    def found(self, blocks: Iterable[int] | None = None) -> list[Material]:
        """The finds, largest first (so that a smaller range inside a larger one — a quote inside a handed-over
        letter — shows its own detail): the echoed quotes and the finds of ``blocks`` (None: every block)."""
        self._look(self.pending if blocks is None else blocks)
        if not self._of:
            return []  # (echoed quotes lie in blocks too: none looked at, none asked for)
        out = [m for k in sorted(self._of) for m in self._of[k]] + self._echoed
        out.sort(key=largest_first)
        return out

    def _look(self, blocks: Iterable[int]) -> None:
        for k in sorted(self.pending.intersection(blocks)):
            self._of[k] = self._block(k)
            self.pending.discard(k)

    @cached_property
    def _announced(self) -> dict[int, str]:
        """The user messages an earlier turn announced as the text to work on."""
        return _announced_turns(self._view, self._reuse)

    @cached_property
    def _delivered(self) -> dict[int, str]:
        """The assistant replies that are the text a user turn asked to write or change."""
        text, blocks = self._text, self._blocks
        delivered = _deliverables(self._view, self._reuse)
        announced = self._announced
        requests = {b.msg_pos: b for b in blocks if b.role == "user"}
        for b in blocks:  # the reply to a text sent after the reply that asked for it, to translate or rewrite it,
            # is that text made anew: "麻烦您帮我看一下，谢谢！" → "Could you please take a look for me? Thank you!"
            if b.role == "assistant" and b.msg_pos - 1 in announced \
                    and (req := requests.get(b.msg_pos - 3)) is not None and _MAKES_ANEW.search(text, req.start, req.end):
                delivered.setdefault(b.msg_pos, "kept: the text pasted the turn before, made anew (translated, rewritten)")
        return delivered

    @cached_property
    def _turn_marks(self) -> tuple[set[int], set[int], dict[int, int]]:
        """(drafts, revisions, handing): the assistant messages the next user turn works on; the user messages that
        ask for the last reply again, changed (instructions); user message → the start of the request block that
        hands its later blocks over."""
        text, blocks = self._text, self._blocks
        drafts: set[int] = set()
        revisions: set[int] = set()
        handing: dict[int, int] = {}
        for k in range(1, len(blocks)):
            prev, b = blocks[k - 1], blocks[k]
            if b.role != "user":
                continue
            if b.msg_pos != prev.msg_pos:
                # an assistant turn the next user turn asks to work on as a whole ("Translate it to German, keep
                # everything.", "把“病假”改成“事假”，其他别动，给我全文"): the draft is the text.  (This looks one turn
                # ahead, yet the pruned history stays prefix-stable: a reply is first sent with the turn after it,
                # and when it is last it is a prefill, whole too)
                if prev.role == "assistant" and _works_on_the_last_reply(text, b.start, b.end, self._reuse):
                    drafts.add(prev.msg_pos)
                    revisions.add(b.msg_pos)
                elif prev.role == "assistant" and self._processed_after[0] is not None \
                        and _asks_for_a_revision(text, b.start, b.end):
                    revisions.add(b.msg_pos)
            elif (k == 1 or blocks[k - 2].msg_pos != prev.msg_pos) and (
                    _requests_work_on(text, prev.start, prev.end)
                    or prev.end - prev.start <= 40 and _WORKS_ON_WORDS.search(text, prev.start, prev.end)):
                # a user message whose first text block is a short request that points at what follows ("Please
                # check this changelog for missing breaking changes.", "Can you proofread?" + the text in a block of
                # its own): its later blocks are the text
                handing[prev.msg_pos] = prev.start
        return drafts, revisions, handing

    def _block(self, k: int) -> list[Material]:
        """The finds of block ``k``."""
        text, b = self._text, self._blocks[k]
        btype = getattr(b, "type", None) or self._block_types.get((b.message, b.block), "text")
        if b.msg_pos == self._prefill:
            return [Material(b.start, b.end, "prefill", "kept: assistant prefill (final assistant turn)")]
        drafts, revisions, handing = self._turn_marks
        if b.msg_pos in drafts:
            return [Material(b.start, b.end, "introduced", "kept: the reply the next turn asks to work on as a whole")]
        if b.role == "user" and b.msg_pos in (announced := self._announced):
            return [Material(b.start, b.end, "introduced", announced[b.msg_pos])]
        if btype == "tool_result" or b.role in TOOL_ROLES:
            return [Material(b.start, b.end, "tool_result", f"kept: tool result (message {b.message})")]
        processed_after, declared = self._processed_after
        if processed_after is not None and b.msg_pos > processed_after \
                and b.role in ("user", "assistant") and b.msg_pos not in revisions \
                and not (b.role == "user" and (_own_intro(text, b.start, b.end) or _pasted_in_fences(text, b.start, b.end)
                                               or _quotes_its_text(text, b.start, b.end)
                                               or _OUT_OF_CHARACTER.search(text, b.start, b.end))):
            # ("谢谢！麻烦再改得正式一点。" in a translator's chat asks, it is no text; a turn that says where its text
            # starts — "你好，谢谢你！麻烦你帮我翻译：明天见。" — hands over what follows its intro)
            return [Material(b.start, b.end, "processed_turn",
                             f"kept: a turn of the text this conversation processes ({declared})")]
        if b.role == "assistant" and b.msg_pos in (delivered := self._delivered):
            a = _after_reply_intro(text, b.start, b.end)
            z = _before_reply_outro(text, a, b.end, _REPLY_OUTRO if a > b.start else _PIECE_OUTRO)
            out = [Material(a, z, "introduced", delivered[b.msg_pos])] if a < z else []
            if a > b.start:
                out.extend(map(_as_material, block_material(text, b.start, a)))
            return out
        if b.role == "user" and b.msg_pos in handing and handing[b.msg_pos] != b.start:
            return [Material(b.start, b.end, "introduced", f"kept: the text handed over with the request "
                             f"{_short(text[handing[b.msg_pos]:], 50)!r} of the block before")]
        acted = b.role == "user" and found_in(_OBSERVED, text, b.start, b.end, self._reuse) \
            and _action_before(text, b.start)
        if self._reuse:
            return [Material(a + b.start, z + b.start, kind, detail)
                    for a, z, kind, detail in reused(_own_material_of, text[b.start:b.end], b.role, acted)]
        # (a text said again in this conversation — a pasted log, a repeated boilerplate turn — holds the same
        # material: found once, shifted)
        key = (text[b.start:b.end], b.role, acted)
        seen = self._seen.get(key)
        if seen is not None:
            at, found = seen
            return [m._replace(start=m.start - at + b.start, end=m.end - at + b.start) for m in found]
        found = _own_material(text, b.start, b.end, b.role, acted)
        self._seen[key] = (b.start, found)
        return found


_BLOCKQUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?\S[^\n]*(?:\n[ \t]{0,3}>[^\n]*)*", re.MULTILINE)


# a letter or message by its form — a salutation that opens a line and a sign-off with a name that closes one: "Hi Dave,
# thanks for the heads-up! 9am works. Cheers, Jo", "Dear Grandma, … Love, Ella", "李老师您好：⏎…⏎⏎学生 赵一帆"
_SALUTATION = re.compile(
    # (an English one names whom it greets, or stands alone on its line: "Hey, could you …" greets the assistant)
    r"^[ \t]*(?:(?:Hi|Hello|Hey|Dear|Good\s+(?:morning|afternoon|evening))(?:(?:[ \t]+(?:[A-Z][\w.'’-]*|everyone|all|team|"
    r"there|folks|guys))+[ \t]*[,!:—-]|[ \t]*[,!:—-]?[ \t]*(?=\n))"
    # ("Dear colleagues,", "Dear valued customers,")
    r"|^[ \t]*Dear(?:[ \t]+[\w.'’-]+){1,4}[ \t]*[,:!]"
    r"|(?P<zh>(?:尊敬的|亲爱的)[^\n，,：:！!。]{1,12}|[^\n，,：:！!。\s]{1,8}(?:您好|你好)|大家好|各位[^\n，,：:！!。\s]{1,6}好|"
    r"[^\n，,：:！!。\s]{1,6}们好|(?:各位|全体)[^\n，,：:！!。\s]{1,6}(?=[：:][ \t]*\n))[ \t]*[，,：:！!])", re.MULTILINE)
_SIGN_OFF = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)[ \t]*(?:Best(?:[ \t]+(?:regards|wishes))?|Kind[ \t]+regards|Warm(?:est)?[ \t]+regards|Regards|Cheers|"
    r"(?:Thanks(?:[ \t]+again|[ \t]+so[ \t]+much)?|Thank[ \t]+you)(?:[ \t]+for[ \t]+[^\n.!?]{1,40})?|Many[ \t]+thanks|Love|Sincerely|"
    r"Yours(?:[ \t]+(?:truly|sincerely))?|"
    r"All[ \t]+the[ \t]+best|Talk[ \t]+soon|Take[ \t]+care|Hugs)[ \t]*[,!.]?[ \t]*\n?[ \t]*\n?[ \t]*(?:[-—–][ \t]*)?"
    r"(?:the[ \t]+)?[A-Z][\w.'’-]*(?:[ \t]+[A-Z][\w.'’-]*){0,3}[ \t]*[.!]?[ \t]*$", re.MULTILINE)
# the signature line of a Chinese letter: a short line without sentence punctuation after a blank line ("张敏", "小吴",
# "宜居家具客服部"), after a closing line or not ("此致", "谢谢！")
_SIGNATURE_ZH = re.compile(r"(?:\n[ \t]*\n|(?<=[。！!])[ \t]*\n)(?P<closing>[ \t]*(?:祝好|此致|敬礼|顺祝[^\n]{0,8}|祝[^\n]{1,10}|"
                           r"(?:谢谢|多谢|感谢|非常感谢)(?:您|你|大家|各位|了)?"
                           r"(?:[^\n。！？!?]{0,10}?(?:配合|支持|理解|关注|参与))?)[！!。]?[ \t]*\n(?:[ \t]*\n)?)?"
                           r"[ \t]*[^\n。！？!?，,：:；;“”\"]{1,16}?[ \t]*(?=\n|\Z)")
# a salutation that names someone other than the assistant ("Hi Tom,", "Dear Hiring Manager,", "李经理您好，", "刘老师您好，"): a
# turn that opens with it and is signed is a letter to them, whatever the turn asks (not "Hi Claude,", "AI你好", "老师您好"
# without a name — a tutor is called 老师 —, "Hi there,")
_GREETS_SOMEONE = re.compile(r"(?i:(?:hi|hello|hey|dear)[ \t]+(?!(?:claude|chatgpt|gpt|ai|assistant|bot|there|everyone|all|team|"
                             r"folks|guys)\b)[A-Z][\w.'’-]*)|^[ \t]*(?!(?:AI|ai|助手|小助手|机器人|老师|同学)(?:您好|你好))"
                             r"[^\n，,：:！!。\s]{2,8}(?:您好|你好)|^[ \t]*(?:尊敬的|亲爱的)(?!(?:AI|ai|助手|小助手|机器人|ChatGPT|Claude))|"
                             r"^[ \t]*各位[^\n，,：:！!。\s]{1,6}好|^[ \t]*[^\n，,：:！!。\s]{1,6}们好")
_LETTER_WITHIN = 400  # characters: a letter's salutation opens the block or follows a short request before it
_SALUTATION_WITHIN = 80  # characters: a handed-over letter's salutation opens it
# what a request calls a text that is no letter (whose closing thanks is then the user's), in the characters before it
_NOT_A_LETTER = re.compile(r"(?i:\b(?:dialogues?|conversations?|poems?|verses?|lyrics|songs?|stor(?:y|ies)|paragraphs?|"
                           r"sentences?|essays?|abstracts?|scripts?|code|snippets?|lists?|haikus?|villanelles?|sonnets?|"
                           r"limericks?|outlines?|captions?|headlines?|slogans?|taglines?|bios?|summar(?:y|ies)|"
                           r"quer(?:y|ies)|sql|regex(?:es)?|formulas?|functions?|json|yaml|tables?|errors?|logs?|"
                           r"(?:stack\s*)?traces?|tracebacks?|outputs?|exceptions?)\b)"
                           r"|对话|诗|歌词|故事|段落|句子|作文|代码|列表|大纲|文案|标题|口号|简介|摘要|这段话|这句话|这段文字|这几句|公式|函数|表格"
                           r"|日志|报错|错误|输出")
_NAMED_WITHIN = 160


def _letters(text: str, s: int, e: int, role: str) -> list[tuple[int, int, str, str]]:
    """A letter or message in the block [s, e) known by its form: from a salutation (in its first characters) to the
    sign-off and name that end it — in a user's turn, after something else (a turn that opens "Hi Claude, …" and is
    signed is the user's own message to the assistant)."""
    sal = _SALUTATION.search(text, s, min(e, s + _LETTER_WITHIN))
    if sal is None or role == "user" and not text[s:sal.start()].strip() and not _GREETS_SOMEONE.search(sal.group(0)):
        return []  # (a turn that opens greeting the assistant — "Hi Claude,", "你好，", "老师您好，" — is the user's own)
    if sal.group("zh"):
        # (a Chinese salutation has a line of its own: "李老师您好：⏎"; one that opens a line of the letter — "李经理您好，对账单
        # 请查收。" — needs a closing line above the name: "谢谢！⏎小王")
        inline = not text[sal.end():sal.end() + 2].strip(" \t").startswith("\n")
        end = None
        for end in _SIGNATURE_ZH.finditer(text, sal.end(), e):
            pass
        if inline and (end is None or end.group("closing") is None):
            return []
    else:
        end = None
        for end in _SIGN_OFF.finditer(text, sal.end(), e):
            pass
    if end is None:
        return []
    a, z = _stripped(text, sal.start(), end.end())
    return [(a, z, "introduced", f"kept: a letter or message, from its salutation to its sign-off "
                                 f"({_short(text[a:z], 40)!r})")]


# the subject line that opens an email a reply drafts ("Subject: We're moving to Teams on July 1", "**主题：**系统维护通知"),
# in its first lines
_SUBJECT_LINE = re.compile(r"^[ \t]*(?:\*\*)?(?:(?i:subject(?:[ \t]+line)?)|主题|邮件主题)(?:\*\*)?[ \t]*[:：]", re.MULTILINE)
_SUBJECT_WITHIN = 200  # characters from the reply's start


def _drafted_email(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The email an assistant reply drafts, from its Subject: line near the start to the reply's end, without a
    closing paragraph of the reply's own ("Let me know if you'd like changes.")."""
    m = _SUBJECT_LINE.search(text, s, min(e, s + _SUBJECT_WITHIN))
    if m is None:
        return []
    a, b = _stripped(text, m.start(), _before_reply_outro(text, m.start(), e, _REPLY_OUTRO))
    return [(a, b, "introduced", "kept: an email the reply drafts, from its Subject: line")] if b > a else []


# the wording of a message given in brackets after its name: "到期前3天发温馨提醒（麻烦客户留意付款日期，谢谢）" (not English: "a
# message (e.g., approached the table, …)" describes it)
_BRACKETED_WORDING = re.compile(r"(?:提醒|通知|短信|消息|话术|回复|告示|提示|留言|邮件|私信|微信)[ \t]*[（(]([^（）()\n]{4,120})[）)]")


def _worded_in_brackets(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The wording of a message a user turn gives in brackets right after naming it (a politeness word in it is the
    message's)."""
    if "（" not in seg and "(" not in seg:
        return []
    return [(m.start(1), m.end(1), "quote", "kept: the wording of a message, given in brackets after its name")
            for m in _BRACKETED_WORDING.finditer(text, s, e)]


# lines marked right or wrong ("请 √⏎谢谢 √⏎对不起 ×"): a graded list, each item as written
_MARKED_LINES = re.compile(r"(?:^[ \t]*(?:[√×✓✗✔✘][ \t]*[^\n√×✓✗✔✘]{1,60}?|[^\n√×✓✗✔✘]{1,30}?[ \t]*[√×✓✗✔✘])[ \t]*(?:\n|\Z)){2,}",
                           re.MULTILINE)


def _marked_lines(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """Two or more lines in a row, each marked right or wrong: graded items, kept as written."""
    if not any(c in seg for c in "√×✓✗✔✘"):
        return []
    return [(a, b, "quote", "kept: items marked right or wrong, as written")
            for m in _MARKED_LINES.finditer(text, s, e) for a, b in [_stripped(text, m.start(), m.end())] if b > a]


# the field labels of a form the user pastes to fill in: two or more lines in a row, each ending with its colon ("Full
# name (as in passport):⏎Have you ever been refused a visa? (Yes/No):", "姓名：⏎护照号码：")
_FORM_FIELDS = re.compile(r"(?:^[ \t]*[^\n:：*#>-][^\n:：]{1,60}[:：][ \t]*(?:\n|\Z)){2,}", re.MULTILINE)
# … in a turn that asks to fill it in
_FILL_A_FORM = re.compile(r"(?i:\bfill(?:ing)?\s+(?:in|out)\b|\bcomplete\s+(?:this|the|my)\s+(?:[a-z-]+\s+)?form\b)|填写|帮我填|填一下|填表")


def _form_fields(text: str, s: int, e: int, seg: str) -> list[tuple[int, int, str, str]]:
    """The field labels of a form a user turn asks to fill in: as written."""
    if "ill" not in seg and "form" not in seg and "填" not in seg or _FILL_A_FORM.search(seg) is None:
        return []
    out = []
    for m in _FORM_FIELDS.finditer(text, s, e):
        a, b = _stripped(text, m.start(), m.end())
        if b > a:
            out.append((a, b, "quote", "kept: the field labels of a form to fill in, as written"))
    return out


def _own_material(text: str, s: int, e: int, role: str, acted: bool = False) -> list[Material]:
    """The material a block [s, e) of ``role`` holds by its own text alone (what ``find_material`` finds in a block
    no other turn marks as a whole): it depends on the block's text and role only, and on ``acted`` (an agent's
    action ends the turn before: ``_action_before``)."""
    found = block_material(text, s, e)
    if role in ("user", "assistant"):  # (a draft, a letter handed over)
        found.extend(r for r in _letters(text, s, e, role) if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
    if role == "user":  # (a transcript pasted in a turn; the words an edit request replaces and puts in)
        seg = text[s:e]
        extra = _transcript(text, s, e) + _headed_email(text, s, e) + _sender_line(text, s, e) \
            if ":" in seg or "：" in seg else []
        if any(h in seg for h in _REPORTED_INLINE_ZH) or any(h in seg.lower() for h in _REPORTED_INLINE_EN):
            extra += _reported_inline(text, s, e)
        extra += [*_compared_items(text, s, e, seg), *_labeled_items(text, s, e, seg), *_compared_inline(text, s, e), *_candidates_above(text, s, e),
                  *_exercise_lines(text, s, e), *_in_character(text, s, e, seg), *_words_to_say(text, s, e, seg),
                  *_named_strings(text, s, e, seg), *_before_after(text, s, e, seg), *_data_values(text, s, e, seg),
                  *_form_fields(text, s, e, seg), *_worded_in_brackets(text, s, e, seg), *_marked_lines(text, s, e, seg)]
        if ">" in seg:  # (a message quoted with "> " lines: "帮我回这条 Slack 消息：⏎> Could you please check …? Thanks!")
            extra += [(m.start(), m.end(), "quote", "kept: quoted lines (> …)") for m in _BLOCKQUOTE.finditer(text, s, e)]
        found.extend(r for r in extra if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
        # (what the introducers found already is not listed twice; a quote or code inside a text hands nothing over)
        handed = any(r[2] == "introduced" for r in found)
        if handed and _ANNOUNCED_WORK.match(text, s, e):  # (a piece announced by name is whole, whatever labels it has
            # inside: "Here are my song lyrics, …?⏎⏎Verse 1:⏎…⏎⏎Chorus:⏎…")
            found.extend(r for r in _request_line_payload(text, s, e) if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
        found.extend(r for r in _task_material(text, s, e, payload=not handed, acted=acted)
                     if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
        # (the words an edit request replaces hand no text over: "I'll paste my draft below …⏎⏎Good evening. …⏎⏎Change 1992
        # to 1993." — the draft is still the text before them)
        found.extend(r for r in _replacements(text, s, e, seg) if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
    if role == "assistant":  # (an email the reply drafts, from its Subject: line)
        found.extend(r for r in _drafted_email(text, s, e) if not any(a <= r[0] and r[1] <= z for a, z, _, _ in found))
    out = list(map(_as_material, found))
    if role in ("system", "developer"):  # (a line under an Initialization heading is found there already)
        out.extend(m for m in _agent_lines(text, s, e) if not any(a <= m.start and m.end <= z for a, z, _, _ in found))
    return out


# a turn that opens with whose words follow, on the label's line: "快递员：你好，你的快递放在菜鸟驿站了，…，谢谢！", "老板：
# 辛苦了，…⏎我该回什么？", "Landlord: Hi, sorry to bother you. …⏎How do I reply in Chinese …?" — that line is their message
_SENDER_LABEL = re.compile(r"[ \t]*(?:\*\*)?((?i:(?:my[ \t]+|our[ \t]+|the[ \t]+)?(?:" + _SENDERS_EN + r"))|" + _SENDERS_ZH + r")"
                           r"(?:\*\*)?[ \t]*[:：](?:\*\*)?[ \t]*(?=[^\s*])")


_SENDER_AFTER = 200  # characters of request lines before a sender's label


def _sender_line(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    """The message after a sender's label that opens a user turn ("Landlord: …", "老板：…"): their words, from the label's
    line to a blank line, or to the turn's last line when that is the user's own question or request ("How should I
    reply?", "我该怎么回？", "帮我写个回复。")."""
    m = _SENDER_LABEL.match(text, s, e)
    k, lines = s, 0
    while m is None and lines < 2:  # (or a line or two of the user's request before it: "Draft a reply. Don't promise a
        # refund.⏎Buyer: Thanks for the quick shipping! …")
        nl = text.find("\n", k, min(e, s + _SENDER_AFTER))
        if nl < 0 or not text[k:nl].strip():
            return []
        k, lines = nl + 1, lines + 1
        m = _SENDER_LABEL.match(text, k, e)
    if m is None:
        return []
    brk = _PARA_BREAK.search(text, m.end(), e)
    z = brk.start() if brk is not None else e
    last = text.rfind("\n", m.end(), z)
    if brk is None and last > 0 and _users_own_line(text, last + 1, z):
        z = last
    a, z = _stripped(text, m.end(), z)
    return [(a, z, "introduced", f"kept: the words of {m.group(1)!r}, quoted after the label that opens the turn")] if z > a else []


# a message reported without a colon, in the turn's sentence, before the user asks how to answer it: "客户说你好，麻烦问一下发票
# 什么时候能开出来，谢谢。帮我回复说周三开好。", "My boss just slacked me hey can you please jump on a call at 3, thanks so much! —
# how do I say I'm busy until 3:30?"
_REPORTED_INLINE = re.compile(
    r"(?:(?<=[。！？!?\n])|^)[ \t]*(?:我的?)?(?:" + _SENDERS_ZH + r")(?:刚|刚刚|刚才|又|今天|昨天|突然)?(?:跟我|给我|对我)?"
    r"(?:在?(?:微信|群|电话|邮件)(?:上|里))?(?:说|问|发(?:消息|微信|短信)?(?:来)?说|回复说|留言说|回复(?=[，,]))(?![：:明白话了过])[，,]?"
    r"|(?i:(?:(?<=[.!?\n])|^)[ \t]*(?:(?:my|our|the)[ \t]+)(?:" + _SENDERS_EN + r")[ \t]+(?:just[ \t]+|also[ \t]+)?"
    r"(?:slacked|texted|messaged|e-?mailed|dm'?d|pinged|wrote)(?:[ \t]+(?:me|us))?,?[ \t]+"
    r"(?!this\b|these\b|that\b|the[ \t]+following\b|back\b|me\b|us\b))(?![:\"“'‘])"
    # what a program printed, named: "the CLI printed Error: please log in first, thanks — what do I run next?"
    r"|(?P<printed>(?i:\b(?:the|my|our)[ \t]+(?:cli|console|terminal|server|program|script|build|compiler|command|installer)[ \t]+"
    r"(?:printed|says|said|showed|returned|spat[ \t]+out|threw|displayed)[ \t]+)(?=[A-Z\"'“‘\[]))",
    re.MULTILINE)
# where such a message ends: its first sentence's end, or a dash before the user's question
_REPORTED_INLINE_END = re.compile(r"[。！？]|[.!?](?=[ \t]|$)|[ \t]+[—–][ \t]*|[ \t]+--?[ \t]+|(?i:,[ \t]+(?:and|but|so)[ \t]+(?:I|we)\b)",
                                  re.MULTILINE)
_REPORTED_INLINE_MAX = 300  # characters
# … or, English, a message that opens like one ("hey, thanks for today, please take Friday off."): no question needed
_OPENS_A_MESSAGE = re.compile(r"[ \t]*(?i:hey|hi|hello|dear|yo|please|pls|thanks|thank\s+you|can\s+you|could\s+you|sorry)\b")
# … and what the user asks after it: the reply ("帮我回复", "怎么回", "how do I say", "what should I reply")
_HOW_TO_ANSWER = re.compile(r"(?i:\bhow\s+(?:do|should|can|could)\s+I\s+(?:say|reply|respond|answer|tell|decline|word)|"
                            r"\bwhat\s+(?:do|should|can)\s+I\s+(?:say|reply|answer|tell)|\b(?:help\s+me\s+)?(?:reply|respond)\b|"
                            r"\b(?:should|do|must)\s+I\s+(?:need\s+to\s+)?(?:answer|write\s+back)\b)"
                            r"|回复|回覆|怎么回|如何回|回他|回她|回一下|怎么说|怎么答|要回吗|要不要回|这是[^。！？\n]{0,8}?吗|这算|什么意思|啥意思")


# what every _REPORTED_INLINE match holds (the English ones in lower case): a cheap test before it
_REPORTED_INLINE_ZH = ("说", "问", "回复")
_REPORTED_INLINE_EN = ("ed", "'d", "dmd", "wrote", "says", "said", "spat", "threw")


def _reported_inline(text: str, s: int, e: int) -> list[tuple[int, int, str, str]]:
    out: list[tuple[int, int, str, str]] = []
    for m in _REPORTED_INLINE.finditer(text, s, e):
        if m.start() < s:
            continue
        end = _REPORTED_INLINE_END.search(text, m.end(), e)
        if end is None:
            continue
        b = end.end() if end.group(0).strip() in ("。", "！", "？", ".", "!", "?") else end.start()
        if b - m.end() > _REPORTED_INLINE_MAX:
            continue  # (a message said in passing is a sentence or two)
        if m.group("printed") is None and _HOW_TO_ANSWER.search(text, b, min(e, b + 120)) is None \
                and not (m.group(0).isascii() and _OPENS_A_MESSAGE.match(text, m.end(), e)):
            continue  # (only when the turn then asks how to answer it: "老板说明天开会" is the user's account)
        a, b = _stripped(text, m.end(), b)
        if b > a:
            out.append((a, b, "introduced", f"kept: the words of a message the turn reports "
                                            f"({_short(m.group(0).strip(), 30)!r}), before asking how to answer it"))
    return out


def _users_own_line(text: str, a: int, b: int) -> bool:
    """Whether the line [a, b), after a message the turn quotes, is the user's question or request about it."""
    line = text[a:b].strip()
    return bool(line) and (line.endswith(("?", "？")) or _asks_for_the_reply(text, a, b) or _TASK_VERB.match(line) is not None
                           or _REQUEST_FORM.match(line) is not None)


def _own_material_of(seg: str, role: str, acted: bool) -> tuple[Material, ...]:
    return tuple(_own_material(seg, 0, len(seg), role, acted))


# a field the system prompt says to copy as written ("Copy `notes` verbatim from the invoice notes section", "`comment`
# must be copied exactly", "备注字段原样保留")
_VERBATIM_FIELD = re.compile(r"(?i:\bcopy\s+(?:the\s+)?[`\"']?([a-z][\w -]{0,20}?)[`\"']?\s+(?:field\s+|section\s+)?(?:verbatim|"
                             r"exactly|word\s+for\s+word|as[- ]is)\b|[`\"']([a-z][\w -]{0,20}?)[`\"']\s+(?:field\s+)?must\s+be\s+"
                             r"copied\s+(?:exactly|verbatim|word\s+for\s+word|as[- ]is)\b)"
                             r"|[“\"「]?([\u4e00-\u9fff]{1,8}?)[”\"」]?(?:字段|一栏|部分)?(?:须|必须|要|请)?(?:原样|原文|逐字|一字不改地?)(?:复制|照抄|保留|抄录)")


_VERBATIM_FIELD_HINTS = ("opy", "opie", "OPY", "原样", "原文", "逐字", "一字不改")


def _verbatim_fields(text: str, system: Sequence[BlockRef], blocks: Sequence[BlockRef]) -> list[Material]:
    """In the turns after the system prompt, the value of each field it says to copy as written ("Notes: Thank you for
    your business! …" after "Copy `notes` verbatim"): to the end of its paragraph."""
    names = {next(g for g in m.groups() if g).strip().lower() for b in system
             if any(h in text[b.start:b.end] for h in _VERBATIM_FIELD_HINTS)
             for m in _VERBATIM_FIELD.finditer(text, b.start, b.end)}
    if not names:
        return []
    label = re.compile(r"^[ \t]*(?:[-*][ \t]*)?(?:\*\*)?(?i:" + "|".join(map(re.escape, sorted(names))) +
                       r")(?:\*\*)?[ \t]*[:：][ \t]*", re.MULTILINE)
    out: list[Material] = []
    for b in blocks:
        if b.start < system[-1].end or b.role not in ("user", "assistant"):
            continue
        for m in label.finditer(text, b.start, b.end):
            stop = _BLANK_LINE.search(text, m.end(), b.end)
            a, z = _stripped(text, m.end(), stop.start() if stop is not None else b.end)
            if z > a:
                out.append(Material(a, z, "introduced", f"kept: the {m.group(0).strip(' :：*-')!r} field the system "
                                                        "prompt says to copy as written"))
    return out


_FENCED_PROSE_MAX = 300  # characters of the user's own words around a fenced paste


def _pasted_in_fences(text: str, s: int, e: int) -> bool:
    """Whether the turn [s, e) is the user's words around what it pastes in code fences, with no prose between two
    fences ("Hi!! getting this in my Rust project, any idea? thx!⏎```⏎error[E0502]: …⏎```"): the fences are the text the
    conversation processes (kept as code), the words around them the user's own."""
    if "```" not in text[s:e]:
        return False
    fences = [m.span() for m in _FENCE.finditer(text, s, e)]
    if not fences or any(text[a:b].strip() for (_, a), (b, _) in zip(fences, fences[1:])):
        return False
    return len(text[s:fences[0][0]].strip()) + len(text[fences[-1][1]:e].strip()) <= _FENCED_PROSE_MAX


_QUOTED_TEXT_MIN = 12  # characters: a quote that is the text a turn hands over, not a word it names


def _quotes_its_text(text: str, s: int, e: int) -> bool:
    """Whether the turn [s, e) quotes the text it hands over and asks for the work outside the quote ('Could you
    please classify this ticket for me? "Hi, I can't log in since yesterday." Thanks!'): the quote is the text (kept
    as a quote), the words around it the user's own."""
    seg = text[s:e]
    spans = [m.span() for m in _PAIRED.finditer(text, s, e)] if "“" in seg or "「" in seg else []
    if '"' in seg:
        spans.extend((a, z) for a, z, _, _ in _straight_quotes(text, s, e))
    spans = sorted(sp for sp in spans if sp[1] - sp[0] >= _QUOTED_TEXT_MIN)
    if not spans:
        return False
    outside, pos = [], s
    for a, z in spans:
        outside.append(text[pos:a])
        pos = max(pos, z)
    outside.append(text[pos:e])
    words = " ".join(outside)
    return bool(_TASK_VERB.search(words) or _WORK_ON_A_TEXT.search(words))


def _own_intro(text: str, s: int, e: int) -> bool:
    """Whether the turn [s, e) opens with a line that introduces its text ("麻烦你帮我翻译：…", "Translate this:"), within
    its first 80 characters, or with a first line that is a short request pointing at it ("对下面这句分类。按示例格式输出。⏎
    输入：…")."""
    if any(m.start() - s <= 80 for m in _task_intros(text, s, min(e, s + 120))):
        return True
    nl = text.find("\n", s, e)
    return nl > 0 and _requests_work_on(text, s, nl)


# a negation just before a quoted phrase: the prompt forbids it ("不要使用“亲亲”", "never say \"please\"", "avoid 'Dear
# Sir'")
_FORBIDDEN_BEFORE = re.compile(r"(?:不要|不得|不能|别|禁止|勿|避免|不许|(?i:\b(?:never|don'?t|do\s+not|avoid|no|without|not)\b))"
                               r"[^。！？.!?\n“\"「]{0,14}$")
_ECHO_MAX = 100  # characters: a phrase or a short reply the system prompt requires ("您的第一条消息只会是“嗨，我可以”"), not a passage
# a placeholder of a template line: {first_name}, {{name}}, [Name], 【姓名】
_SLOT = re.compile(r"\{\{?[A-Za-z_\u4e00-\u9fff][\w \u4e00-\u9fff]{0,30}\}\}?|\[[A-Z\u4e00-\u9fff][\w \u4e00-\u9fff]{0,30}\]"
                   r"|【[^】\n]{1,20}】")
_TEMPLATES_MAX = 20


def _template_lines(text: str, system: Sequence[BlockRef]) -> list[tuple[re.Pattern[str], str]]:
    """The system prompt's lines that hold a placeholder, as patterns of the line filled in (each placeholder any
    1–40 characters on the line), for lines with at least 6 characters of their own."""
    out: list[tuple[re.Pattern[str], str]] = []
    for b in system:
        seg = text[b.start:b.end]
        if "{" not in seg and "[" not in seg and "【" not in seg:
            continue
        for line in seg.split("\n"):
            first_slot = _SLOT.search(line)
            if first_slot is not None:  # (from after the intro that names it: "Reply using this template: Dear {name}, …")
                intro = max(line.rfind(":", 0, first_slot.start()), line.rfind("：", 0, first_slot.start()))
                line = line[intro + 1:]
            parts = _SLOT.split(line.strip(" \t-*>"))
            if len(parts) < 2 or sum(len(p.strip()) for p in parts) < 6:
                continue
            out.append((re.compile(r"[^\n]{1,40}?".join(map(re.escape, parts))), line.strip()))
            if len(out) >= _TEMPLATES_MAX:
                return out
    return out


def _echoed_quotes(text: str, system: Sequence[BlockRef], blocks: Sequence[BlockRef]) -> list[Material]:
    """The words a system prompt quotes ("最后一句必须以“总体来说，”开头", 'your first message will only be "Hi, I can"')
    where a later turn says them: what the prompt requires there, not filler."""
    quoted: set[str] = set()
    for b in system:
        seg = text[b.start:b.end]
        found: list[tuple[int, int]] = []
        if "“" in seg or "「" in seg or "『" in seg:
            found.extend(m.span() for m in _PAIRED.finditer(text, b.start, b.end))
        if '"' in seg:
            found.extend((a, z) for a, z, _, _ in _straight_quotes(text, b.start, b.end))
        if "'" in seg:  # ("Reply with exactly: 'The issue is resolved. Sorry for the inconvenience.'")
            found.extend((a, z) for a, z, _, _ in _quotes(text, b.start, b.end, "'"))
        # (the phrases a <redundant_phrases> directive lists are the engine's to prune, not the model's to say; a
        # phrase the prompt forbids — 不要使用“亲亲”, Never say "please" — is no phrase it requires)
        skip = [m.span() for m in _DIRECTIVE.finditer(text, b.start, b.end)] if found and "<" in seg else []
        quoted.update(text[a + 1:z - 1] for a, z in found if not any(x <= a < y for x, y in skip)
                      and not _FORBIDDEN_BEFORE.search(text, max(b.start, a - 24), a))
        # (and the words a line gives to say: "每次回复的结尾统一为：祝好，感谢您的耐心！")
        quoted.update(text[a:z] for a, z, _, _ in _scripts(text, b.start, b.end, seg) if z - a <= _ECHO_MAX)
    quoted = {q for q in quoted if 2 <= len(q.strip()) <= _ECHO_MAX and any(c.isalpha() for c in q)}
    templates = _template_lines(text, system)
    if not quoted and not templates:
        return []
    out: list[Material] = []
    last_system = system[-1].end
    for b in blocks:
        if b.start < last_system or b.end <= b.start:
            continue
        for rx, line in templates:  # "Hi {first_name}, thanks for reaching out!" filled in: "Hi Alex, thanks for …"
            out.extend(Material(m.start(), m.end(), "quote", f"kept: a line of the system prompt's template "
                                                              f"({_short(line, 40)!r}), filled in")
                       for m in rx.finditer(text, b.start, b.end))
        for q in quoted:
            k = text.find(q, b.start, b.end)
            while k >= 0:
                out.append(Material(k, k + len(q), "quote",
                                    f"kept: the words the system prompt quotes ({_short(q, 30)!r})"))
                k = text.find(q, k + len(q), b.end)
    return out


# what the cross-turn finders ask of one whole block (``found_in``): each pattern gives the same answer on the block's
# text alone as on the view at its offsets (none looks before its start — there a view has the "\n" that ends the
# separator — nor anchors at a string's start; tests/engine/test_material.py holds them to it)
_BLOCK_PATTERNS = (_CUSTOMER_ASKED, _FOR_EACH_TEXT, _KEEPS_A_PART, _TEXT_NAMED, _REPORTED_LABEL, _OBSERVED, _VERBATIM_LINE)
