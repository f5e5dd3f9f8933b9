"""How much information a word carries: surprisal from word frequencies (wordfreq, zh and en), in bits.

Two uses:

* :func:`token_information` — bits per cl100k token id, for the *effectiveness estimate*: each token's own text
  (stripped, lower-cased) looked up in wordfreq's frequency lists; ``-log2(frequency)`` when it is a word there,
  a small value for whitespace and punctuation, a high one for a piece that is no word (a rare word's
  fragment carries much).  Computed once from wordfreq and shipped as ``data/token_information.npy`` (the
  tests rebuild it and compare), so the default path needs no word lists at run time.
* :func:`word_surprisal` — bits of one whole word (zh words by jieba segmentation), for the lossy tier: the
  cost of pruning that word.

Frequencies are a model of *how predictable* a word is in general text, not of what it means here: a
frequent word can still be the point of a sentence.  That is why the lossy tier is off by default
(``min_effectiveness=1.0``) and why every number it gives is labelled an estimate.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["token_information", "build_token_information", "word_surprisal", "WHITESPACE_BITS",
           "PUNCTUATION_BITS", "UNKNOWN_BITS", "MAX_BITS"]

_DATA = Path(__file__).with_name("data") / "token_information.npy"
WHITESPACE_BITS = 0.25   # a space or newline says almost nothing
PUNCTUATION_BITS = 1.0   # structure, little content
UNKNOWN_BITS = 18.0      # not a word in either list: a name, a code, a rare word's piece
_FLOOR_FREQUENCY = 1e-9  # wordfreq's lists stop near here; a word below it counts as this rare
_LATIN_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


@lru_cache(maxsize=2)
def _frequencies(lang: str) -> dict[str, float]:
    import wordfreq
    return wordfreq.get_frequency_dict(lang)


def load_frequencies() -> None:
    """Read wordfreq's zh and en lists (≈0.3 s, once per process): ``at_ratio`` does it before its clock starts
    when a floor below 1 needs the lossy tier, so its selection timing measures building the tier, not loading."""
    _frequencies("zh")
    _frequencies("en")


def _bits(frequency: float) -> float:
    return -math.log2(max(frequency, _FLOOR_FREQUENCY))


def word_surprisal(word: str) -> float:
    """Bits of ``word`` (a latin word, a number or a Chinese word) by its frequency in general text.

    >>> round(word_surprisal("the"), 1) < round(word_surprisal("photosynthesis"), 1)
    True
    """
    w = word.strip().lower()
    if not w:
        return WHITESPACE_BITS
    if _CJK.fullmatch(w):
        f = _frequencies("zh").get(w)
        if f is None and len(w) > 1:  # not in the list as a word: its characters, each at least this rare
            return min(MAX_BITS * len(w), sum(word_surprisal(ch) for ch in w))
        return _bits(f) if f is not None else UNKNOWN_BITS
    f = _frequencies("en").get(w)
    if f is not None:
        return _bits(f)
    if not any(ch.isalnum() for ch in w):
        return PUNCTUATION_BITS
    return UNKNOWN_BITS


@lru_cache(maxsize=1)
def token_information() -> np.ndarray:
    """Bits per cl100k token id (the shipped table; built from wordfreq when it is missing)."""
    if _DATA.exists():
        table: np.ndarray = np.load(_DATA).astype(np.float64)
        return table
    return build_token_information()


def build_token_information() -> np.ndarray:
    """The table :func:`token_information` ships, computed from wordfreq (≈ 1 s)."""
    from .tokens import encoding

    enc = encoding()
    out = np.empty(enc.n_vocab, dtype=np.float64)
    for t in range(enc.n_vocab):
        try:
            raw = enc.decode_single_token_bytes(t)
        except KeyError:  # an id with no token
            out[t] = UNKNOWN_BITS
            continue
        text = raw.decode("utf-8", errors="ignore")
        stripped = text.strip().lower()
        if not text:
            # only pieces of characters (a CJK character split over tokens): the piece holding a character's
            # lead byte carries it, a continuation nothing (it is shown with the piece before it)
            out[t] = _FRAGMENT_BITS * sum(1 for b in raw if b >= 0xC0)
        elif not stripped:
            out[t] = WHITESPACE_BITS
        elif _LATIN_WORD.fullmatch(stripped) or _CJK.fullmatch(stripped):
            out[t] = word_surprisal(stripped)
        elif not any(ch.isalnum() for ch in stripped):
            out[t] = PUNCTUATION_BITS
        else:
            out[t] = UNKNOWN_BITS
    return np.minimum(out, MAX_BITS)


_FRAGMENT_BITS = 12.0  # a Chinese character that cl100k splits is a less common one: ≈ 1 in 4,000
MAX_BITS = 30.0        # a token of several rare characters counts as one very rare word, not their sum