"""Loading the lexicon data files (``layerzero_viz/lexicons/*.txt``) and compiling them to matchers.

Lexicons are trusted data shipped with the package, so they compile with Python's ``re``; user-supplied
patterns never do (they go through RE2, see ``directives``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

__all__ = ["LEXICON_DIR", "entries", "phrase_regex", "word_regex"]

LEXICON_DIR = Path(__file__).with_name("lexicons")


@lru_cache(maxsize=None)
def entries(name: str) -> tuple[str, ...]:
    """Entries of ``lexicons/<name>.txt``: one per line, ``#`` comments and blank lines ignored.

    >>> "但是" in entries("connectives.zh")
    True
    """
    path = LEXICON_DIR / f"{name}.txt"
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return tuple(dict.fromkeys(out))


def _alternation(items: list[str]) -> str:
    # longest first: Python's alternation takes the first alternative that matches at a position
    return "|".join(re.escape(i) for i in sorted(set(items), key=lambda s: (-len(s), s)))


def phrase_regex(items: list[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """A regex finding any of ``items`` (Chinese: as substrings, longest first)."""
    items = [i for i in items if i]
    return re.compile(_alternation(items)) if items else None


def word_regex(items: list[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """A case-insensitive regex finding any of ``items`` on word boundaries, spaces flexible.

    Straight and curly apostrophes are interchangeable (``don't`` matches ``don’t``).
    """
    parts = []
    for item in sorted(set(i.lower() for i in items if i), key=lambda s: (-len(s), s)):
        words = [re.escape(w).replace("'", "['’]").replace("’", "['’]") for w in item.split()]
        parts.append(r"\s+".join(words))
    if not parts:
        return None
    return re.compile(r"(?<![\w'’])(?:" + "|".join(parts) + r")(?![\w'’])", re.IGNORECASE)
