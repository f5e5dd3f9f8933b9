"""XML-ish structure inside prompt text: tags, elements, ``<context>`` facts and ``<output_format>``.

Prompts are text with tags in them, not XML documents, so tag positions come from a scanner that
keeps character offsets; element *contents* that we need as data (the facts inside ``<context>``) are
parsed with lxml using a parser that never resolves entities, never loads a DTD and never touches the
network.  A billion-laughs or external-entity payload is therefore just text.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from lxml import etree

__all__ = ["Tag", "Element", "scan_tags", "elements", "safe_parser", "context_facts", "bundled_documents"]

TAG_RE = re.compile(r"<(/?)([A-Za-z_\u4e00-\u9fff][\w.\-:]*)((?:\s+[^<>]*?)?)\s*(/?)>")  # (a Chinese name too: <回复>)
# markup declarations: <?xml …?>, <!DOCTYPE …, <!ENTITY …>, <!-- … -->, <![CDATA[ … ]]>
DECL_RE = re.compile(r"<\?[^<>]{0,500}?\?>|<!--.{0,2000}?-->|<!\[CDATA\[|\]\]>|<![A-Za-z][^<>\[]{0,500}(?:\[|>)|\]\s*>", re.DOTALL)


class Tag(NamedTuple):
    """A tag-looking markup at ``start:end`` (named tuples: a long prompt has thousands, built on every
    annotation)."""

    start: int
    end: int
    name: str
    closing: bool
    self_closing: bool


class Element(NamedTuple):
    """A matched ``<name>…</name>`` pair: ``outer`` covers both tags, ``inner`` the content between."""

    name: str
    outer_start: int
    inner_start: int
    inner_end: int
    outer_end: int


def scan_tags(text: str) -> list[Tag]:
    """Every tag-looking markup in ``text``, in order (declarations as self-closing tags named "!")."""
    if "<" not in text:
        return []
    tags = [Tag(m.start(), m.end(), m.group(2), bool(m.group(1)), bool(m.group(4))) for m in TAG_RE.finditer(text)]
    if "<!" in text or "<?" in text:
        tags += [Tag(m.start(), m.end(), "!", False, True) for m in DECL_RE.finditer(text)]
        tags.sort(key=lambda t: t.start)
    return tags


def elements(tags: list[Tag]) -> list[Element]:
    """Pair opening and closing tags (innermost first is fine); unmatched tags form no element."""
    stack: list[Tag] = []
    out: list[Element] = []
    for tag in tags:
        if tag.self_closing:
            continue
        if not tag.closing:
            stack.append(tag)
            continue
        for k in range(len(stack) - 1, -1, -1):
            if stack[k].name == tag.name:
                opener = stack[k]
                del stack[k:]
                out.append(Element(tag.name, opener.start, opener.end, tag.start, tag.end))
                break
    return out


def safe_parser() -> etree.XMLParser:
    """An lxml parser that cannot expand entities, load DTDs or reach the network."""
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, recover=True, remove_comments=True,
    )


def context_facts(inner_text: str) -> list[tuple[str, str]]:
    """``(tag, text)`` for every leaf element inside a ``<context>``; the whole text if it has none.

    >>> context_facts("<service_area>上海市浦东新区</service_area>")
    [('service_area', '上海市浦东新区')]
    """
    try:
        root = etree.fromstring(f"<context>{inner_text}</context>".encode("utf-8"), safe_parser())
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        return [("context", inner_text.strip())] if inner_text.strip() else []
    facts = [(str(el.tag), (el.text or "").strip()) for el in root.iter() if isinstance(el.tag, str)
             and el is not root and len(el) == 0 and (el.text or "").strip()]
    if not facts and (root.text or "").strip():
        facts = [("context", root.text.strip())]
    return facts


# where a file of a bundle starts: a skill bundle's "\x1fFILE:path\x1e" (prompts.chat), or a line that is only a
# file name between rules ("===== src/app.py =====", "--- FILE: notes.md ---") or after a label ("File: a.md",
# "文件：说明.md")
_FILE_CTRL = re.compile(r"\x1fFILE:([^\x1e\n]{1,300})\x1e")
_FILE_LINE = (r"[ \t]*+(?:[=\-#]{3,}+[ \t]*+(?:(?i:file)[ \t]*:[ \t]*)?([\w./\\-]+\.\w{1,10})[ \t]*+[=\-#]{3,}+"
              r"|(?:#{1,6}[ \t]+)?(?:(?i:file)|文件)[ \t]*[:：][ \t]*([\w./\\-]+\.\w{1,10}))[ \t]*+(?=\n|\Z)")
_FILE_LINE_FIRST = re.compile(_FILE_LINE)
_FILE_LINE_NEXT = re.compile("\n" + _FILE_LINE)  # a literal newline first: the search skips from line to line


def bundled_documents(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    r"""The files of a bundle in ``text[start:end]`` — several documents pasted into one turn, each under a
    file marker — as ``(start, end, name)``, the text before the first marker included as ``""``; ``[]`` when
    the range holds fewer than two markers (one text, not a bundle).

    Each file of a bundle stands on its own (a skill's README and its per-language references each state their
    rules for a reader who loads that file alone), so what one file says again is not a repeat of another.

    >>> bundled_documents("intro\x1fFILE:a.md\x1e\nx\x1fFILE:b.md\x1e\ny", 0, 31)
    [(0, 5, ''), (5, 18, 'a.md'), (18, 31, 'b.md')]
    """
    seg = text[start:end]
    marks = [(m.start(), m.group(1)) for m in _FILE_CTRL.finditer(text, start, end)] if "\x1f" in seg else []
    if "===" in seg or "---" in seg or "###" in seg or "ile" in seg or "ILE" in seg or "文件" in seg:
        first = _FILE_LINE_FIRST.match(text, start, end)
        if first is not None:
            marks.append((start, first.group(1) or first.group(2)))
        marks += [(m.start() + 1, m.group(1) or m.group(2)) for m in _FILE_LINE_NEXT.finditer(text, start, end)]
        marks.sort()
    if len(marks) < 2:
        return []
    out = [(start, marks[0][0], "")] if marks[0][0] > start else []
    for k, (at, name) in enumerate(marks):
        stop = marks[k + 1][0] if k + 1 < len(marks) else end
        out.append((at, stop, name))
    return out
