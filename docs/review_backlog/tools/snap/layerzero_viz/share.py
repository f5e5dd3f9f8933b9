"""Debug links: the app's state packed into a URL, or into a local SQLite store when it is too long.

A link token is ``base64url(zlib(canonical JSON of {"v": 1, "state": {...}}))`` without padding.  Decoding
trusts nothing: it bounds the token's length and the decompressed size (so a zip bomb cannot exhaust memory),
checks the version and the shape of every known field, drops unknown fields, and reports every problem as a
:class:`~layerzero_viz.errors.ShareLinkError` whose message says what is wrong and what to do.

Secrets never go into a link: :func:`encode_state` drops fields named like credentials (``api_key``,
``headers``, ``env``, ``token``, ``secret``, ``password``, ``authorization``, ``cookie``) and redacts, in every
string, API keys shaped like ``sk-ant-…`` / ``sk-…`` and the values of ``x-api-key``, ``authorization``,
``cookie`` … header lines of a raw HTTP capture (and the same names as JSON keys).  A redacted conversation
still prunes the same way apart from the redacted value.

>>> token = encode_state({"page": "heatmap", "ratio": 0.3, "conversation": "x-api-key: sk-ant-abc123DEF456"})
>>> decode_state(token)["conversation"]
'x-api-key: [REDACTED]'
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import os
import re
import sqlite3
import time
import zlib
from contextlib import closing
from pathlib import Path
from typing import Any, Callable, Mapping

from .errors import ShareLinkError

__all__ = [
    "SHARE_VERSION",
    "STATE_FIELDS",
    "MAX_TOKEN_CHARS",
    "MAX_DECOMPRESSED_BYTES",
    "DEFAULT_SHARE_DB",
    "encode_state",
    "decode_state",
    "redact_secrets",
    "ShareStore",
    "make_link",
    "resolve_query",
]

SHARE_VERSION = 1
MAX_TOKEN_CHARS = 64 * 1024
MAX_DECOMPRESSED_BYTES = 25 * 1024 * 1024
DEFAULT_SHARE_DB = ".layerzero/shares.db"
_ENV_SHARE_DB = "LAYERZERO_SHARE_DB"
_MAX_RATIO = 0.95

_AGAIN = "Copy the whole link again, or ask whoever sent it for a new one."

# ---------------------------------------------------------------------------------------------- secrets

# A name part (between _ - . or spaces) that marks a credential: "api_key", "auth_token", "env" but not "max_tokens".
_SECRET_KEY = re.compile(
    r"(?:^|[_\-. ])(?:api[_\-]?key|apikey|headers?|env|environ|token|secret|passw(?:or)?d|auth|"
    r"authori[sz]ation|cookie|credentials?)(?:$|[_\-. ])",
    re.IGNORECASE,
)
_SECRET_HEADERS = r"x-api-key|api-key|anthropic-api-key|authorization|proxy-authorization|cookie|set-cookie"
_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    # An HTTP header line: keep the name so the capture still parses, drop the value.
    (re.compile(rf"^([ \t]*(?:{_SECRET_HEADERS})[ \t]*:)[^\r\n]*", re.IGNORECASE | re.MULTILINE), r"\1 [REDACTED]"),
    # The same header as a JSON key ("x-api-key": "…").
    (re.compile(rf'("(?:{_SECRET_HEADERS})"\s*:\s*)"(?:[^"\\]|\\.)*"', re.IGNORECASE), r'\1"[REDACTED]"'),
    (re.compile(r"sk-ant-[A-Za-z0-9_-]{10,}"), "[REDACTED]"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"), "[REDACTED]"),
)


def redact_secrets(text: str) -> str:
    """``text`` with API keys and credential header values replaced by ``[REDACTED]``.

    >>> redact_secrets("Authorization: Bearer abc\\nhello sk-ant-api03-0123456789")
    'Authorization: [REDACTED]\\nhello [REDACTED]'
    """
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


# ---------------------------------------------------------------------------------------------- schema


def _preview(value: Any) -> str:
    if isinstance(value, (dict, list)):  # never repr a container: it may be huge or deeply nested
        return f"{'an object' if isinstance(value, dict) else 'a list'}"
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _fail(field: str, expected: str, value: Any) -> ShareLinkError:
    shown = _preview(value)
    return ShareLinkError(
        f"This debug link has an invalid '{field}': expected {expected}, got {shown}. "
        f"The link was probably edited by hand; create a new link from the app."
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _fail(field, "text", value)
    return value


def _optional_str(field: str, value: Any) -> str | None:
    return None if value is None else _str(field, value)


def _bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _fail(field, "true or false", value)
    return value


def _line(field: str, value: Any) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or value < 0:
        raise _fail(field, "a line number (0 or more) or null", value)
    return value


def _ratio(field: str, value: Any) -> float | None:
    if value is None:
        return None
    # The range test also refuses NaN and ±inf; it compares before converting, so a huge int cannot overflow.
    if not (_is_int(value) or isinstance(value, float)) or not 0 <= value <= _MAX_RATIO:
        raise _fail(field, f"a number between 0 and {_MAX_RATIO} or null", value)
    return float(value)


def _message(field: str, value: Any) -> str | int | None:
    if value is None or isinstance(value, str):
        return value
    if _is_int(value) and value >= 0:
        return value
    raise _fail(field, "a message key ('system' or an index from 0) or null", value)


def _simple(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, bool, int))


def _view(field: str, value: Any) -> dict[str, Any]:
    """Page-specific extras: simple values (text, number, true/false, null, or lists of them) under text keys."""
    if not isinstance(value, dict):
        raise _fail(field, "an object of page settings", value)
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str) or _SECRET_KEY.search(key):
            continue
        if _simple(item):
            out[key] = item
        elif isinstance(item, list) and all(_simple(x) for x in item):
            out[key] = list(item)
    return out


STATE_FIELDS: Mapping[str, Callable[[str, Any], Any]] = {
    "page": _str,
    "conversation": _str,
    "format": _str,
    "line": _line,
    "ratio": _ratio,
    "low_information": _bool,
    "show_whitespace": _bool,
    "message": _message,
    "profile": _optional_str,
    "view": _view,
}
"""The fields a link may carry and the check each must pass; any other field is dropped."""


def _clean_state(state: Any) -> dict[str, Any]:
    if not isinstance(state, dict):
        raise ShareLinkError(
            f"This debug link holds no app state (found {type(state).__name__} instead of an object). {_AGAIN}"
        )
    return {name: check(name, state[name]) for name, check in STATE_FIELDS.items() if name in state}


# ---------------------------------------------------------------------------------------------- encoding


def _redact_values(state: dict[str, Any]) -> dict[str, Any]:
    def redact(value: Any) -> Any:
        if isinstance(value, str):
            return redact_secrets(value)
        if isinstance(value, list):
            return [redact(v) for v in value]
        if isinstance(value, dict):
            return {k: redact(v) for k, v in value.items()}
        return value

    return {k: redact(v) for k, v in state.items()}


def _compress_state(state: Mapping[str, Any]) -> bytes:
    """The canonical compressed payload of ``state`` after dropping unknown fields and redacting secrets."""
    clean = _redact_values(_clean_state(dict(state)))
    document = {"v": SHARE_VERSION, "state": clean}
    try:
        data = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (e.g. from a cut emoji): JSON's \u escapes carry it losslessly
        data = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return zlib.compress(data, 9)


def encode_state(state: Mapping[str, Any]) -> str:
    """A URL-safe token for ``state`` (base64url, no padding); unknown fields dropped, secrets redacted.

    Raises :class:`ShareLinkError` when a known field has the wrong type (say ``ratio`` outside 0..0.95).
    """
    return base64.urlsafe_b64encode(_compress_state(state)).rstrip(b"=").decode("ascii")


def _inflate(payload: bytes, max_bytes: int) -> bytes:
    """Decompress at most ``max_bytes`` bytes; a larger or damaged stream is refused without inflating it all."""
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(payload, max_bytes + 1)
    except zlib.error:
        raise ShareLinkError(f"This debug link is damaged (its data does not decompress). {_AGAIN}") from None
    if len(data) > max_bytes or inflater.unconsumed_tail:
        limit = f"{max_bytes / 2**20:g} MB" if max_bytes >= 2**20 else f"{max_bytes:,} bytes"
        raise ShareLinkError(
            f"This debug link unpacks to more than {limit}, the most the app accepts. "
            "Share a smaller conversation, or the conversation file itself."
        )
    if not inflater.eof:
        raise ShareLinkError(f"This debug link is cut short (its data ends too early). {_AGAIN}")
    if inflater.unused_data:
        raise ShareLinkError(f"This debug link is damaged (extra data after its end). {_AGAIN}")
    return data


def _decode_payload(payload: bytes, max_decompressed: int) -> dict[str, Any]:
    data = _inflate(payload, max_decompressed)
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ShareLinkError(f"This debug link is damaged (its contents are not valid JSON). {_AGAIN}") from None
    if not isinstance(document, dict) or "v" not in document:
        raise ShareLinkError(f"This is not a layerzero-viz debug link (no version field). {_AGAIN}")
    version = document["v"]
    if version != SHARE_VERSION or not _is_int(version):
        raise ShareLinkError(
            f"This debug link has format version {_preview(version)}, but this app reads version "
            f"{SHARE_VERSION} only. Open it with the layerzero-viz version that created it, or create a new link."
        )
    if "state" not in document:
        raise ShareLinkError(f"This debug link holds no app state. {_AGAIN}")
    return _clean_state(document["state"])


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_-]*")


def decode_state(
    token: str,
    *,
    max_chars: int = MAX_TOKEN_CHARS,
    max_decompressed: int = MAX_DECOMPRESSED_BYTES,
) -> dict[str, Any]:
    """The app state inside a link token: only known fields, each checked.

    Raises :class:`ShareLinkError` (and nothing else) for any input that is not a valid version-1 token
    of at most ``max_chars`` characters unpacking to at most ``max_decompressed`` bytes.
    """
    if not isinstance(token, str):
        raise ShareLinkError(f"A debug link token must be text, not {type(token).__name__}.")
    token = token.strip().rstrip("=")
    if not token:
        raise ShareLinkError(f"This debug link is empty. {_AGAIN}")
    if len(token) > max_chars:
        raise ShareLinkError(
            f"This debug link is {len(token):,} characters long; the most accepted is {max_chars:,}. "
            "Long states are saved on the server instead: create the link again with a share store."
        )
    if not _TOKEN_CHARS.fullmatch(token):
        bad = next(ch for ch in token if not _TOKEN_CHARS.fullmatch(ch))
        raise ShareLinkError(
            f"This debug link contains {bad!r}, which cannot appear in one; it was probably altered "
            f"when copied. {_AGAIN}"
        )
    try:
        payload = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise ShareLinkError(f"This debug link is damaged (its length is impossible). {_AGAIN}") from None
    return _decode_payload(payload, max_decompressed)


# ---------------------------------------------------------------------------------------------- store

_SHARE_ID = re.compile(r"[0-9a-f]{16}")


class ShareStore:
    """Short links: states kept in a local SQLite file, addressed by the first 16 hex digits of their sha256.

    The file is ``path``, else ``$LAYERZERO_SHARE_DB``, else ``.layerzero/shares.db``; its folder is created.
    Each call opens its own connection, so one store may be used from Streamlit's script threads.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_decompressed: int = MAX_DECOMPRESSED_BYTES):
        self.path = Path(path or os.environ.get(_ENV_SHARE_DB) or DEFAULT_SHARE_DB)
        self.max_decompressed = max_decompressed
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS shares (id TEXT PRIMARY KEY, payload BLOB, created REAL)")
        except (OSError, sqlite3.Error) as exc:
            raise self._unusable(exc) from None

    def _connect(self) -> closing[sqlite3.Connection]:
        return closing(sqlite3.connect(self.path, timeout=10))

    def _unusable(self, exc: Exception) -> ShareLinkError:
        return ShareLinkError(
            f"The share store {str(self.path)!r} cannot be used ({exc}). "
            f"Check the file and folder permissions, or point {_ENV_SHARE_DB} at a writable file."
        )

    def put(self, state: Mapping[str, Any]) -> str:
        """Save ``state`` (cleaned and redacted as by :func:`encode_state`) and return its 16-hex id; idempotent."""
        payload = _compress_state(state)
        share_id = hashlib.sha256(payload).hexdigest()[:16]
        try:
            with self._connect() as db, db:
                db.execute(
                    "INSERT OR IGNORE INTO shares (id, payload, created) VALUES (?, ?, ?)",
                    (share_id, payload, time.time()),
                )
        except sqlite3.Error as exc:
            raise self._unusable(exc) from None
        return share_id

    def get(self, share_id: str) -> dict[str, Any]:
        """The state saved under ``share_id``; :class:`ShareLinkError` if the id is malformed or unknown here."""
        if not isinstance(share_id, str) or not _SHARE_ID.fullmatch(share_id.strip()):
            raise ShareLinkError(
                f"{str(share_id)[:40]!r} is not a share id (16 lowercase hex digits, like 3f9a0c1b2d4e5f60). "
                f"{_AGAIN}"
            )
        share_id = share_id.strip()
        try:
            with self._connect() as db:
                row = db.execute("SELECT payload FROM shares WHERE id = ?", (share_id,)).fetchone()
        except sqlite3.Error as exc:
            raise self._unusable(exc) from None
        if row is None:
            raise ShareLinkError(
                f"Unknown share id {share_id}: this server has no state saved under it; it may have been created "
                "on another machine. Ask for a link that carries the state itself (?s=…), or for the conversation "
                "file."
            )
        return _decode_payload(bytes(row[0]), self.max_decompressed)


# ---------------------------------------------------------------------------------------------- links


def make_link(
    state: Mapping[str, Any],
    *,
    base_url: str = "",
    page: str = "heatmap",
    store: ShareStore | None = None,
    max_url: int = 8192,
) -> str:
    """``{base_url}/{page}?s=<token>`` when that fits in ``max_url`` characters, else ``…?share=<id>`` via ``store``.

    Without a ``store`` a long state goes to the default :class:`ShareStore`.
    """
    prefix = f"{base_url.rstrip('/')}/{page.strip('/')}"
    url = f"{prefix}?s={encode_state(state)}"
    if len(url) <= max_url:
        return url
    share_id = (store if store is not None else ShareStore()).put(state)
    return f"{prefix}?share={share_id}"


def _param(params: Mapping[str, Any], name: str) -> str | None:
    value = params.get(name)
    if isinstance(value, (list, tuple)):  # parse_qs-style mappings: the last value wins, as in st.query_params
        value = value[-1] if value else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise ShareLinkError(f"The link parameter {name!r} must be text. {_AGAIN}")
    return value


def resolve_query(params: Mapping[str, Any], store: ShareStore | None = None) -> dict[str, Any] | None:
    """The state a page's query parameters point to (``s=`` token, else ``share=`` id); None when neither is there."""
    token = _param(params, "s")
    if token is not None:
        return decode_state(token)
    share_id = _param(params, "share")
    if share_id is not None:
        return (store if store is not None else ShareStore()).get(share_id)
    return None
