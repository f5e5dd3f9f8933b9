"""Loading the lexicon data files (``layerzero_viz/lexicons/*.txt``) and compiling them to matchers.

Lexicons are trusted data shipped with the package, so they compile with Python's ``re``; user-supplied
patterns never do (they go through RE2, see ``directives``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

__all__ = ["LEXICON_DIR", "EN_LEXICONS", "ZH_LEXICONS", "entries", "phrase_regex", "word_regex", "scan", "scan_flat",
           "as_pairs", "load_jieba", "posseg"]

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


def _trie_pattern(items: list[list[str]]) -> str:
    """A regex for ``items`` (each a list of regex atoms) shaped as a prefix tree.

    Python's ``re`` tries every alternative at every position; a trie lets it reject a position after
    one character, which makes lexicons of hundreds of phrases ~50x faster.  Longer matches are tried
    first (greedy optional tails), so the result is leftmost-longest.
    """
    trie: dict[str, Any] = {}  # atom → subtree ("" marks an item's end)
    for atoms in items:
        node = trie
        for atom in atoms:
            node = node.setdefault(atom, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        end = "" in node
        branches = [atom + emit(child) for atom, child in sorted(node.items(), key=lambda kv: kv[0]) if atom]
        if not branches:
            return ""
        body = "(?:" + "|".join(branches) + ")"
        return body + "?" if end else body

    return emit(trie)


def phrase_regex(items: list[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """A regex finding any of ``items`` as substrings, longest first (the form used for Chinese).

    >>> phrase_regex(["请问", "请问一下", "麻烦"]).findall("请问一下，麻烦你")
    ['请问一下', '麻烦']
    """
    items = sorted({i for i in items if i})
    if not items:
        return None
    return re.compile(_trie_pattern([[re.escape(ch) for ch in item] for item in items]))


def word_regex(items: list[str] | tuple[str, ...]) -> re.Pattern[str] | None:
    """A case-insensitive regex finding any of ``items`` on word boundaries, spaces flexible.

    Straight and curly apostrophes are interchangeable (``don't`` matches ``don’t``).

    >>> word_regex(["thank you", "thank you so much", "don't"]).findall("Thank  you so much, I don’t")
    ['Thank  you so much', 'don’t']
    """
    atoms_list = []
    for item in sorted({i.lower() for i in items if i}):
        atoms: list[str] = []
        for k, word in enumerate(item.split()):
            if k:
                atoms.append(r"\s+")
            atoms.extend("['’]" if ch in "'’" else re.escape(ch) for ch in word)
        atoms_list.append(atoms)
    if not atoms_list:
        return None
    # the boundary check comes after the first character so the trie can reject a position at once
    # ASCII word boundaries: in "查一下please" the English word still starts at "p"
    return re.compile(r"\b(?:" + _trie_pattern(atoms_list) + r")(?![\w'’])", re.IGNORECASE | re.ASCII)


# Lexicons scanned in one pass over the text (see ``scan``).
EN_LEXICONS = ("filler.en", "hedges.en", "negations.en", "connectives.en", "low_information.en")
ZH_LEXICONS = ("filler.zh", "hedges.zh", "connectives.zh", "low_information.zh")
# zh lexicons whose words hide inside longer non-matching words: the exception words are matched too and dropped
_ZH_WITH_EXCEPTIONS = {"negations.zh": "negation_exceptions.zh", "low_information.zh": "low_information_exceptions.zh"}


def _norm_en(phrase: str) -> str:
    return " ".join(phrase.lower().replace("’", "'").split())


@lru_cache(maxsize=1)
def _en_scanner() -> tuple[re.Pattern[str] | None, dict[str, tuple[str, ...]]]:
    owners: dict[str, list[str]] = {}
    for name in EN_LEXICONS + ("number_words",):
        for item in entries(name):
            if item.isascii() or "’" in item:
                owners.setdefault(_norm_en(item), []).append(name)
    rx = word_regex(list(owners))
    return rx, {k: tuple(v) for k, v in owners.items()}


@lru_cache(maxsize=1)
def _zh_scanners() -> list[tuple[str, re.Pattern[str], frozenset[str]]]:
    out = []
    for name in ZH_LEXICONS + ("negations.zh",):
        words = frozenset(entries(name))
        extra = entries(_ZH_WITH_EXCEPTIONS[name]) if name in _ZH_WITH_EXCEPTIONS else ()
        rx = phrase_regex(list(words) + list(extra))
        if rx is not None:
            out.append((name, rx, words))
    return out


# zh lexicons whose hits must also be whole words by jieba's segmentation (请问 is not in 申请问题)
_ZH_WORD_ALIGNED = frozenset({"filler.zh", "hedges.zh", "low_information.zh"})


@lru_cache(maxsize=1)
def load_jieba() -> Any:
    """The jieba module, initialised once (its prefix-dictionary cache in the user's cache folder)."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    if not jieba.dt.initialized:
        # jieba caches its prefix dictionary in the shared temp folder by default (/tmp/jieba.cache): another
        # user's file there is unreadable or unreplaceable (a traceback), or could be planted.  Ours goes to
        # the user's cache folder, under a name tied to jieba's version.
        import tempfile

        folder = _cache_dir() or tempfile.mkdtemp(prefix="layerzero-viz-cache-")  # private, this process only
        jieba.dt.tmp_dir = str(folder)
        jieba.dt.cache_file = f"jieba-{getattr(jieba, '__version__', 'x')}.cache"
        jieba.default_logger.addFilter(_no_cache_dump_traceback)
    jieba.initialize()
    return jieba


_jieba = load_jieba  # the name the core's modules use


@lru_cache(maxsize=1)
def _posseg_tagger() -> Any:
    """jieba.posseg's tagger over the loaded dictionary (reading its word tags takes ≈0.4 s, once)."""
    load_jieba()
    import jieba.posseg

    return jieba.posseg.dt


def word_tags() -> dict[str, str]:
    """jieba's part-of-speech tag of every dictionary word (read once, with the tagger)."""
    tags: dict[str, str] = _posseg_tagger().word_tag_tab
    return tags


def posseg(text: str) -> list[tuple[str, str]]:
    """``text`` cut into (word, part-of-speech flag) by jieba.posseg, from its dictionary only (no HMM guesses
    of unknown words: the same cut whatever surrounds the text)."""
    return [(pair.word, pair.flag) for pair in _posseg_tagger().cut(text, HMM=False)]


def _cache_dir() -> Path | None:
    """``$XDG_CACHE_HOME/layerzero-viz`` (default ``~/.cache/layerzero-viz``), created private (0700); None when
    it cannot be written."""
    import os

    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        folder = root / "layerzero-viz"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    except (OSError, RuntimeError, KeyError):
        pass
    return None


def _no_cache_dump_traceback(record: logging.LogRecord) -> bool:
    """A cache that cannot be written is not worth a traceback: the dictionary was loaded all the same."""
    return not record.getMessage().startswith("Dump cache file failed")


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK ideograph (the unified block, extension A and the compatibility block)."""
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def zh_word_aligned(text: str, start: int, end: int) -> bool:
    """True when no word of jieba's dictionary crosses the start or the end of [start, end).

    A hit is a whole word only if no dictionary word glues it to its neighbours: 请问 is not in
    申请问题 (申请 crosses its start), 其实 is not in 及其实施.  Checking the 2–4 character words across each
    boundary is ~50× cheaper than segmenting a window, and errs only on the safe side (keeps more).

    >>> zh_word_aligned("及其实施条例", 1, 3), zh_word_aligned("您好，请问七日", 3, 5)
    (False, True)
    """
    freq = _jieba().dt.FREQ
    n = len(text)
    for p in (start, end):
        if p <= 0 or p >= n or not (is_cjk(text[p - 1]) and is_cjk(text[p])):
            continue
        for i in range(max(0, p - 3), p):
            for j in range(p + 1, min(n, i + 4) + 1):
                if freq.get(text[i:j]):
                    return False
    return True


_SLOTS = EN_LEXICONS + ZH_LEXICONS + ("negations.zh", "number_words")


@lru_cache(maxsize=1)
def _native_lexicons() -> Any:
    """The same lexicons as tries in the compiled kernel (built once per process), or None."""
    from . import native
    if native._compiled is None:
        return None
    slot = {name: k for k, name in enumerate(_SLOTS)}
    _, owners = _en_scanner()
    en = [(phrase, [slot[n] for n in names]) for phrase, names in owners.items()]
    zh = []
    for name, _, words in _zh_scanners():
        extra = entries(_ZH_WITH_EXCEPTIONS[name]) if name in _ZH_WITH_EXCEPTIONS else ()
        items = [(w, True) for w in sorted(words)] + [(w, False) for w in extra if w not in words]
        zh.append((slot[name], name in _ZH_WORD_ALIGNED, items))
    freq = _jieba().dt.FREQ
    dict_words = [w for w, f in freq.items() if f and 2 <= len(w) <= 4]
    return native._compiled.Lexicons(len(_SLOTS), en, zh, dict_words)


def scan(text: str) -> dict[str, list[tuple[int, int]]]:
    """Every lexicon hit in ``text``: lexicon name → [(start, end)], names like ``"filler.en"``.

    The compiled tries when built (``_native.Lexicons``), else :func:`scan_python` — the definition.
    """
    return as_pairs(scan_flat(text))


def as_pairs(flat_hits: Mapping[str, Sequence[int]]) -> dict[str, list[tuple[int, int]]]:
    """Flat [start, end, …] hit lists as (start, end) pairs, lexicon by lexicon."""
    return {name: list(zip(flat[0::2], flat[1::2])) for name, flat in flat_hits.items()}


def scan_flat(text: str) -> dict[str, Sequence[int]]:
    """:func:`scan` with each lexicon's hits as one flat list [start0, end0, start1, end1, …]."""
    from . import native
    if native.native is not None:
        return dict(zip(_SLOTS, _native_lexicons().scan(text, not text.isascii())))
    return {name: [x for pair in hits for x in pair] for name, hits in scan_python(text).items()}


def scan_python(text: str) -> dict[str, list[tuple[int, int]]]:
    """Every lexicon hit in ``text``: lexicon name → [(start, end)], names like ``"filler.en"``.

    English lexicons share one leftmost-longest pass (a phrase belongs to every lexicon listing it);
    each Chinese lexicon is one substring pass.  Exception words (非常 is not a negation, 目的 holds no
    low-information 的) are matched and dropped.

    >>> hits = scan("Thank you so much, but 非常感谢")
    >>> hits["filler.en"], hits["connectives.en"]
    ([(0, 17)], [(19, 22)])
    """
    hits: dict[str, list[tuple[int, int]]] = {n: [] for n in _SLOTS}
    rx, owners = _en_scanner()
    if rx is not None:
        for m in rx.finditer(text):
            word = m.group(0)
            if len(word) == 1 and not word.islower():
                continue  # single letters only in lower case: "a" is an article, "A" a unit or a name
            for name in owners.get(_norm_en(word), ()):
                hits[name].append((m.start(), m.end()))
    if not text.isascii():
        for name, zrx, words in _zh_scanners():
            lst = hits[name]
            aligned = name in _ZH_WORD_ALIGNED
            for m in zrx.finditer(text):
                if m.group(0) in words and (not aligned or zh_word_aligned(text, m.start(), m.end())):
                    lst.append((m.start(), m.end()))
    return hits


def warm_up() -> None:
    """Load what any annotation may need, once per process (≈1.5 s) and outside any timing: every matcher,
    jieba's dictionary and its part-of-speech tags (the zh frame rules read them), the kernels' lexicon tries
    and fold table.  Without the tags and the fold table here, the first annotation's detect and protect
    timings counted ≈0.3 s of loading (a 1,099-token prompt showed 306 ms of detection in the app)."""
    from . import native
    from .script import load_converter

    load_converter()
    _en_scanner()
    _zh_scanners()
    _jieba()
    _posseg_tagger()
    _native_lexicons()
    if native.native is not None:
        native.native.prepare_fold()
