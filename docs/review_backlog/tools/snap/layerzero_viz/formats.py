"""Load conversations in the formats people paste, and dump pruned ones back in the same format.

Formats (``Conversation.format``):

- ``anthropic``: a Messages API request ``{"system"?, "messages": [...], ...}``
- ``openai``: a Chat Completions request ``{"messages": [...], ...}`` or a bare list of messages
- ``sharegpt``: ``{"conversations": [{"from": "human", "value": "..."}, ...]}``
- ``http``: a raw request capture (request line, headers, blank line) whose JSON body is one of the above
- ``text``: anything that does not look like JSON or HTTP, read as one user message

``jsonl`` is a container, not a conversation format: each non-blank line is loaded as its own
conversation (with its own detected format) and gets ``jsonl_line``/``jsonl_lines``.

Every text block keeps the JSON path of its string inside ``Conversation.raw``, so dumping does not
care about the format: copy ``raw``, write each pruned text back at its path, serialise like the input.

Whatever is wrong with the input raises :class:`~layerzero_viz.errors.InputError`; its ``location`` says
where (``chat.json:3:14`` for bad JSON, ``chat.json: messages[3].content[1].text`` for a wrong shape,
``batch.jsonl:7: messages[0].role`` inside a JSONL line) and its ``hint`` how to fix it.
"""
from __future__ import annotations

import itertools
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Mapping, NoReturn, Union

from .errors import InputError
from .model import Block, Conversation, Message, PathPart, format_path

__all__ = ["without_emptied_blocks", 
    "FORMATS",
    "DEFAULT_MAX_BYTES",
    "Headers",
    "load_conversation",
    "iter_conversations",
    "detect_format",
    "messages_from_json",
    "dump_conversation",
    "dump_text",
]

FORMATS = ("anthropic", "openai", "sharegpt", "jsonl", "http", "text")
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

Source = Union[str, bytes, bytearray, memoryview, os.PathLike[str]]
JsonPath = tuple[PathPart, ...]
# A block before it is numbered within its message: (kind, text, path, type).
_Piece = tuple[str, str, JsonPath, str]

_BOM = "\ufeff"
_UTF8_BOM = b"\xef\xbb\xbf"
_REQUEST_LINE = re.compile(
    r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +(\S+) +HTTP/\d(?:\.\d)?[ \t]*\r?(?:\n|\Z)"
)
_ANTHROPIC_ROLES = {"user": "user", "assistant": "assistant"}
_OPENAI_ROLES = {r: r for r in ("system", "developer", "user", "assistant", "tool", "function")}
_SHAREGPT_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "chatgpt": "assistant",
    "bing": "assistant",
    "bard": "assistant",
    "model": "assistant",
    "function_call": "assistant",
    "observation": "tool",
    "tool": "tool",
}
# Markers that settle whether a {"messages": [...]} document is Anthropic or OpenAI (see _classify).
_ANTHROPIC_ONLY_BLOCKS = (
    "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use", "search_result",
)
_OPENAI_ONLY_ROLES = ("system", "developer", "tool", "function")
_OPENAI_ONLY_PARTS = ("image_url", "input_audio", "file", "refusal")
_SHAPES_HINT = (
    'expected an Anthropic or OpenAI request {"messages": [...]}, a list of OpenAI messages, '
    'or ShareGPT {"conversations": [...]}'
)


class Headers(Mapping[str, str]):
    """HTTP headers in capture order: names keep their case for dumping, lookups ignore case.

    >>> h = Headers([("Content-Type", "application/json")])
    >>> h["content-type"], list(h)
    ('application/json', ['Content-Type'])
    """

    def __init__(self, items: Iterable[tuple[str, str]] = ()) -> None:
        self._items: dict[str, tuple[str, str]] = {}
        for name, value in items:
            previous = self._items.get(name.lower())
            # A repeated header joins the first one's value with a comma, as HTTP defines.
            self._items[name.lower()] = (previous[0], f"{previous[1]}, {value}") if previous else (name, value)

    def __getitem__(self, key: str) -> str:
        if not isinstance(key, str):
            raise KeyError(key)
        return self._items[key.lower()][1]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({list(self.items())!r})"


# ---------------------------------------------------------------------------------------------- public API


def load_conversation(
    source: Source,
    format: str = "auto",
    *,
    line: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
) -> Conversation:
    """The conversation in ``source`` (a file path, bytes or text), read in ``format`` or the detected one.

    A ``Path`` is always a file; a ``str`` is a file when it names an existing file, else it is the content.
    For JSONL input ``line`` (1-based, blank lines counted, default 1) picks the conversation. ``name``
    replaces the file name (or ``"<input>"``) in error locations. Inputs over ``max_bytes`` are refused
    before they are read.

    >>> conv = load_conversation('{"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]}')
    >>> conv.format, [(m.key, m.role, m.text) for m in conv.messages]
    ('anthropic', [('system', 'system', 'Be brief.'), (0, 'user', 'Hi')])
    >>> conv.messages[1].blocks[0].path
    ('messages', 0, 'content')
    """
    _check_format_name(format)
    text, display = _read_whole(source, max_bytes=max_bytes, name=name)
    fmt, doc = _sniff(text, format, display)
    if fmt == "jsonl":
        return _select_jsonl_line(text, 1 if line is None else line, display)
    if _record_list(doc):  # a JSON array of conversations (a ShareGPT dataset): ``line`` picks the record
        return _select_record(doc, 1 if line is None else line, display)
    if line not in (None, 1):
        raise InputError(
            f"line={line!r} was given but the input is {fmt}, not JSONL",
            location=display,
            hint="leave out line=, or pass format='jsonl' if each line is a conversation",
        )
    return _whole_conversation(fmt, doc, text, display)


def conversation_from_json(doc: Any, format: str = "auto", *, name: str = "<input>") -> Conversation:
    """The conversation in already-parsed JSON data (a request body as plain dicts and lists).

    The same reading as :func:`load_conversation` without serialising and parsing again: the pruning
    client holds the request as data.  ``format``: "anthropic", "openai", "sharegpt" or "auto".

    >>> conversation_from_json({"messages": [{"role": "user", "content": "Hi"}]}).format
    'anthropic'
    """
    _check_format_name(format)
    fmt = _classify(doc) if format == "auto" else format
    if fmt not in _READERS:
        raise InputError(f"format {fmt!r} is not a JSON conversation format", location=name,
                         hint="pass anthropic, openai or sharegpt, or use load_conversation for text")
    return Conversation(format=fmt, messages=_read_messages(fmt, doc, name), raw=doc, source_name=name)


def messages_from_json(doc: Any, format: str = "auto", *, name: str = "<input>") -> tuple[Message, ...]:
    """The messages of already-parsed chat JSON, read as :func:`conversation_from_json` reads them, except that
    a conversation with no message (or only an empty system prompt) is no error: history mining reads records
    that may hold no user turn at all.

    >>> [(m.role, m.text) for m in messages_from_json({"conversations": [{"from": "human", "value": "Hi"}]})]
    [('user', 'Hi')]
    >>> messages_from_json({"messages": []})
    ()
    """
    _check_format_name(format)
    fmt = _classify(doc) if format == "auto" else format
    if fmt not in _READERS:
        raise InputError(f"format {fmt!r} is not a JSON conversation format", location=name,
                         hint="pass anthropic, openai or sharegpt")
    messages = _READERS[fmt](doc, name)
    for m in messages:
        _check_unicode(m.blocks, name)
    return messages


def iter_conversations(
    source: Source,
    format: str = "auto",
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    name: str | None = None,
) -> Iterator[tuple[int, Conversation | InputError]]:
    """``(line, conversation or InputError)`` for every non-blank JSONL line; ``(1, …)`` once for other input.

    Errors in one conversation are yielded so batch tools can count them; errors that stop reading
    altogether (unknown format, missing or unreadable file, input over ``max_bytes``) are raised.
    A JSONL *file* is streamed line by line, so its size is unbounded and ``max_bytes`` limits each line.
    It is streamed when ``format="jsonl"`` or when its first non-blank line is a complete JSON object and
    the next non-blank line also starts with ``{``; anything else is read whole and detected as usual.

    >>> [(n, c.messages[0].text) for n, c in iter_conversations(b'{"messages": [{"role": "user", "content": "a"}]}')]
    [(1, 'a')]
    """
    _check_format_name(format)
    return _iter_conversations(source, format, max_bytes=max_bytes, name=name)


def detect_format(text: str) -> str:
    """The format ``text`` is in: ``anthropic``, ``openai``, ``sharegpt``, ``jsonl``, ``http`` or ``text``.

    Rules, first match wins:

    - a request line (``POST /v1/messages HTTP/1.1``) at the start → ``http``;
    - text not starting with ``{`` or ``[`` → ``text``, unless it is one JSON value that is no container
      (``null``, ``true``, ``42``, ``"…"``: what a JSON tool prints when it found nothing), an InputError;
    - JSON that parses: a list → ``openai`` (a list of whole conversations, a ShareGPT dataset, is then read record
      by record by :func:`load_conversation`, each record in its own format); an object with ``conversations`` and no ``messages`` →
      ``sharegpt``; an object with a top-level ``system`` or an Anthropic-only block (``tool_use``,
      ``tool_result``, ``thinking``, ``document``, ``image`` with a ``source`` …) → ``anthropic``; a message
      with role ``system``/``developer``/``tool``/``function``, ``tool_calls``, or an OpenAI-only part
      (``image_url``, ``input_audio``, ``file``, ``refusal``) → ``openai``; anything else → ``anthropic``;
    - JSON that does not parse as one document but has two or more non-blank lines, each starting with
      ``{`` → ``jsonl``.

    Empty text, and JSON-looking text that is none of these, raise :class:`InputError` (the latter at its
    ``line:column``).

    >>> detect_format('[{"role": "system", "content": "Be brief."}]'), detect_format("Hello")
    ('openai', 'text')
    """
    return _sniff(_strip_bom(text), "auto", "<input>")[0]


def dump_conversation(conv: Conversation, texts: Mapping[JsonPath, str] | None = None) -> Any:
    """A copy of the loaded document with each text block's string replaced by ``texts[block.path]``.

    Keys of ``texts`` must be paths of text blocks of ``conv``; blocks not in ``texts`` keep their text.
    For ``text`` input the result is the string, for ``http`` the JSON body (see :func:`dump_text`).

    >>> conv = load_conversation('{"messages": [{"role": "user", "content": "Hi there"}]}')
    >>> dump_conversation(conv, {("messages", 0, "content"): "Hi"})
    {'messages': [{'role': 'user', 'content': 'Hi'}]}
    """
    replacements = {tuple(path): text for path, text in (texts or {}).items()}
    unknown = replacements.keys() - {b.path for m in conv.messages for b in m.blocks if b.kind == "text"}
    if unknown:
        paths = ", ".join(sorted(format_path(p) for p in unknown))
        raise ValueError(f"not the path of a text block of this conversation: {paths}")
    doc = _copy_json(conv.raw)
    for path, text in replacements.items():
        doc = _set_at(doc, path, text)
    return doc


def without_emptied_blocks(doc: Any, emptied: list[JsonPath]) -> Any:
    """``doc`` without the text blocks at ``emptied`` (text that pruning left empty: an engine directive that was
    all of its block).  The Messages API rejects an empty text block, so such a block leaves its content list,
    a system prompt string leaves the request (``system`` removed), and a system message leaves ``messages``.

    >>> without_emptied_blocks({"system": "", "messages": []}, [("system",)])
    {'messages': []}
    """
    drops: dict[JsonPath, list[int]] = {}
    for path in emptied:
        path = tuple(path)
        if len(path) >= 2 and path[-1] == "text" and isinstance(path[-2], int):
            drops.setdefault(path[:-2], []).append(path[-2])     # a block of a content list
        elif path == ("system",) and isinstance(doc, dict):
            doc.pop("system", None)
        elif len(path) == 3 and isinstance(path[1], int) and path[2] in ("content", "value"):
            drops.setdefault(path[:1], []).append(path[1])       # a whole system message's string
    for parent_path, indexes in drops.items():
        parent = doc
        for part in parent_path:
            parent = parent[part]
        for i in sorted(set(indexes), reverse=True):
            del parent[i]
        if not parent and parent_path == ("system",) and isinstance(doc, dict):
            doc.pop("system", None)  # a system prompt that was only directives
    return doc


def dump_text(conv: Conversation, obj: Any) -> str:
    """``obj`` (from :func:`dump_conversation`) written out the way ``conv``'s input was, without a final newline.

    JSON documents come back indented, a JSONL line as one line, an HTTP capture with its request line and
    headers (``Content-Length`` recomputed), plain text as it is.

    >>> conv = load_conversation('{"messages": [{"role": "user", "content": "Hi"}]}')
    >>> print(dump_text(conv, dump_conversation(conv)))
    {
      "messages": [
        {
          "role": "user",
          "content": "Hi"
        }
      ]
    }
    """
    if conv.format == "text":
        text: str = obj  # dump_conversation gives a text conversation back as its text
        return text
    if conv.jsonl_line is not None:
        return json.dumps(obj, ensure_ascii=False)
    body = json.dumps(obj, ensure_ascii=False, indent=2)
    if conv.format == "http":
        return _http_text(conv, body)
    return body


# ------------------------------------------------------------------------------------------ reading bytes


def _check_format_name(format: str) -> None:
    """Nothing, or InputError when ``format`` is not one this module reads."""
    if format != "auto" and format not in FORMATS:
        raise InputError(
            f"unknown format {format!r}",
            location="format",
            hint=f"use one of: auto, {', '.join(FORMATS)}",
        )


def _file_path(source: Source) -> Path | None:
    """The file ``source`` names, or None when it is content (bytes, or a str that names no file)."""
    if isinstance(source, os.PathLike):
        return Path(source)
    # A pasted conversation is never mistaken for a path: paths have no newline and are short.
    if isinstance(source, str) and source and "\n" not in source and len(source) < 4096:
        try:
            if os.path.isfile(source):
                return Path(source)
        except (OSError, ValueError):
            pass
    return None


def _read_whole(source: Source, *, max_bytes: int, name: str | None) -> tuple[str, str]:
    """The text of ``source`` (decoded, BOM removed) and the name to show in error locations."""
    path = _file_path(source)
    if path is not None:
        display = name or path.name
        with _opened(path, name) as f:
            _check_size(os.fstat(f.fileno()).st_size, max_bytes, display)
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:  # a file that grew after stat, or a device that reports no size
            _check_size(None, max_bytes, display)
        return _decode(data, display), display
    display = name or "<input>"
    if isinstance(source, str):
        # A character is at most 4 UTF-8 bytes: short text needs no encoding to be measured.
        if len(source) * 4 > max_bytes:
            _check_size(len(source.encode("utf-8", "surrogatepass")), max_bytes, display)
        return _strip_bom(source), display
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_size(len(data), max_bytes, display)
        return _decode(data, display), display
    raise TypeError(f"source must be a path, str or bytes, not {type(source).__name__}")


@contextmanager
def _opened(path: Path, name: str | None) -> Iterator[IO[bytes]]:
    """``path`` open for binary reading; an OSError while opening or reading it becomes InputError."""
    try:
        with path.open("rb") as f:
            yield f
    except OSError as err:
        raise _file_error(err, path, name) from None


def _file_error(err: OSError, path: Path, name: str | None) -> InputError:
    """The InputError for a file that cannot be opened or read."""
    where = name or str(path)
    if isinstance(err, FileNotFoundError):
        return InputError("file not found", location=where, hint="check the path and the working directory")
    if isinstance(err, IsADirectoryError):
        return InputError("is a directory, not a file", location=where, hint="pass the path of a conversation file")
    return InputError(f"cannot read the file: {err.strerror or err}", location=where, hint="check its permissions")


def _check_size(size: int | None, max_bytes: int, name: str) -> None:
    """Nothing, or InputError when the input is over the limit (``size`` None: over it, size unknown)."""
    if size is None or size > max_bytes:
        measured = "" if size is None else f" ({size:,} bytes)"
        raise InputError(
            f"input is larger than the limit of {max_bytes:,} bytes{measured}",
            location=name,
            hint="pass a larger max_bytes= if you trust this input; iter_conversations streams JSONL of any size",
        )


def _decode(data: bytes, name: str, *, offset: int = 0) -> str:
    """``data`` decoded as UTF-8 without its BOM; InputError naming the byte offset of the first bad byte.

    ``offset`` is where ``data`` starts in the file, so a JSONL line reports a file offset.
    """
    bom = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as err:
        at = offset + bom + err.start
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        raise InputError(
            f"not valid UTF-8: byte 0x{data[bom + err.start]:02x} cannot be decoded",
            location=f"{name}: byte {at}",
            hint="this looks like UTF-16; save it as UTF-8" if utf16 else "save the file as UTF-8",
        ) from None


def _strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark."""
    return text[1:] if text.startswith(_BOM) else text


# -------------------------------------------------------------------------------------- detecting formats


def _sniff(text: str, format: str, name: str) -> tuple[str, Any]:
    """The format to read ``text`` as and, for the JSON formats, the parsed document (else None)."""
    if not text.strip():
        raise InputError("the input is empty", location=name, hint="paste or load a conversation")
    if format in ("text", "http", "jsonl"):
        return format, None
    if format == "auto":
        start = text.lstrip()
        if _REQUEST_LINE.match(start):
            return "http", None
        if not start.startswith(("{", "[")):
            _no_json_scalar(start.rstrip(), name)
            return "text", None
    try:
        doc = _parse_json(text, name)
    except InputError:
        if format == "auto" and _looks_like_jsonl(text):
            return "jsonl", None
        raise
    return (_classify(doc) if format == "auto" else format), doc


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


def _no_json_scalar(text: str, name: str) -> None:
    """InputError when ``text`` (stripped) is one JSON value that is not a container — ``null``, ``true``, a
    number, a quoted string: what a JSON tool printed when it found no conversation, not a prompt to prune."""
    if text in ("null", "true", "false") or _JSON_NUMBER.fullmatch(text):
        what = f"the JSON value {text[:40]}"
    elif len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            json.loads(text)
        except ValueError:
            return  # a prompt that only starts and ends with a quote mark
        what = "one JSON string"
    else:
        return
    raise InputError(f"the input is {what}, not a conversation", location=name,
                     hint='load a request {"messages": [...]}, a list of messages or ShareGPT {"conversations": '
                          '[...]}; for a plain-text prompt, its text without JSON quotes')


def _looks_like_jsonl(text: str) -> bool:
    """True when ``text`` has two or more non-blank lines and each starts with ``{``."""
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) >= 2 and all(line.startswith("{") for line in lines)


def _classify(doc: Any) -> str:
    """The JSON format ``doc`` is written in; its shape is checked only when it is read."""
    if isinstance(doc, list):
        return "openai"
    if not isinstance(doc, dict):
        return "anthropic"  # whose reader says what is wrong
    if "messages" not in doc and "conversations" in doc:
        return "sharegpt"
    messages = doc.get("messages")
    anthropic, openai = _dialect_markers(messages if isinstance(messages, list) else [])
    if "system" in doc or anthropic:
        return "anthropic"
    return "openai" if openai else "anthropic"


def _dialect_markers(messages: list[Any]) -> tuple[bool, bool]:
    """Whether ``messages`` use something only Anthropic has, and something only OpenAI has."""
    anthropic = openai = False
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        openai |= (isinstance(role, str) and role in _OPENAI_ONLY_ROLES) or "tool_calls" in message
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            kind = block.get("type") if isinstance(block, dict) else None
            if not isinstance(kind, str):
                continue
            anthropic |= kind in _ANTHROPIC_ONLY_BLOCKS or (kind == "image" and "source" in block)
            openai |= kind in _OPENAI_ONLY_PARTS
    return anthropic, openai


def _parse_json(text: str, name: str, *, first_line: int = 1) -> Any:
    """The JSON value in ``text``; InputError at ``name:line:column`` (``text`` starts at ``first_line``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"invalid JSON: {err.msg}",
            location=f"{name}:{err.lineno + first_line - 1}:{err.colno}",
            hint="look for a missing comma, quote or bracket at or just before this point",
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", location=name, hint="flatten the document") from None
    except ValueError as err:  # e.g. an integer with more digits than Python converts
        raise InputError(f"invalid JSON: {err}", location=name, hint="fix the value named above") from None


# --------------------------------------------------------------------------------- whole documents, JSONL


def _whole_conversation(fmt: str, doc: Any, text: str, name: str) -> Conversation:
    """The one conversation in ``text`` (format ``fmt``, parsed JSON ``doc`` when it is a JSON format)."""
    if fmt == "text":
        block = Block(index=0, kind="text", text=text, path=())
        _check_unicode((block,), name)
        return Conversation(format="text", messages=(Message(0, "user", (block,)),), raw=text, source_name=name)
    if fmt == "http":
        return _http_conversation(text, name)
    return conversation_from_json(doc, fmt, name=name)


def _jsonl_lines(text: str) -> list[str]:
    """The lines of ``text`` split on newlines only (``\\u2028`` may sit raw inside a JSON string)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return lines[:-1] if lines[-1] == "" else lines


def _select_jsonl_line(text: str, line: int, name: str) -> Conversation:
    """The conversation on JSONL line ``line``; InputError when the line is out of range or blank."""
    lines = _jsonl_lines(text)
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= len(lines):
        raise InputError(
            f"line {line!r} is out of range: the input has {len(lines)} lines",
            location=name,
            hint=f"pick a line from 1 to {len(lines)}",
        )
    if not lines[line - 1].strip():
        raise InputError(f"line {line} is blank", location=f"{name}:{line}", hint="pick a non-blank line")
    return _jsonl_conversation(lines[line - 1], line, len(lines), name)


def _jsonl_conversation(text: str, line: int, total: int, name: str) -> Conversation:
    """The conversation on one JSONL line, in whatever format that line is written."""
    doc = _parse_json(text, name, first_line=line)
    fmt = _classify(doc)
    return Conversation(
        format=fmt,
        messages=_read_messages(fmt, doc, f"{name}:{line}"),
        raw=doc,
        source_name=name,
        jsonl_line=line,
        jsonl_lines=total,
    )


def _iter_conversations(
    source: Source, format: str, *, max_bytes: int, name: str | None
) -> Iterator[tuple[int, Conversation | InputError]]:
    """The generator behind :func:`iter_conversations`, once ``format`` is known to be valid."""
    path = _file_path(source)
    if path is not None and (format == "jsonl" or (format == "auto" and _head_is_jsonl(path, max_bytes, name))):
        yield from _iter_jsonl_file(path, max_bytes=max_bytes, name=name)
        return
    text, display = _read_whole(source, max_bytes=max_bytes, name=name)
    try:
        fmt, doc = _sniff(text, format, display)
    except InputError as err:
        yield 1, err
        return
    if fmt == "jsonl":
        lines = _jsonl_lines(text)
        for number, line in enumerate(lines, 1):
            if line.strip():
                yield number, _attempt(_jsonl_conversation, line, number, len(lines), display)
    elif _record_list(doc):
        for number, record in enumerate(doc, 1):
            yield number, _attempt(_record_conversation, record, number, len(doc), display)
    else:
        yield 1, _attempt(_whole_conversation, fmt, doc, text, display)


def _attempt(read: Callable[..., Conversation], *args: Any) -> Conversation | InputError:
    """``read(*args)``, or the InputError it raised."""
    try:
        return read(*args)
    except InputError as err:
        return err


def _head_is_jsonl(path: Path, max_bytes: int, name: str | None) -> bool:
    """True when the file's first non-blank line is a whole JSON object and the next starts with ``{``."""
    head: list[bytes] = []
    with _opened(path, name) as f:
        while len(head) < 2 and (raw := f.readline(max_bytes + 1)):
            if raw.strip():
                head.append(raw.removeprefix(_UTF8_BOM) if not head else raw)
    if len(head) < 2 or not all(raw.startswith(b"{") for raw in head):
        return False
    try:
        json.loads(head[0])
    except (ValueError, RecursionError):
        return False
    return True


def _iter_jsonl_file(
    path: Path, *, max_bytes: int, name: str | None
) -> Iterator[tuple[int, Conversation | InputError]]:
    """``(line, conversation or InputError)`` for every non-blank line of a JSONL file, in bounded memory."""
    display = name or path.name
    total = _count_lines(path, name)
    with _opened(path, name) as f:
        for number in itertools.count(1):
            start = f.tell()
            raw = f.readline(max_bytes + 1)
            if not raw:
                return
            if len(raw) > max_bytes and not raw.endswith(b"\n"):
                _skip_rest_of_line(f)
                yield number, InputError(
                    f"line is longer than the limit of {max_bytes:,} bytes",
                    location=f"{display}:{number}",
                    hint="pass a larger max_bytes= if you trust this input",
                )
                continue
            try:
                line = _decode(raw, display, offset=start).removesuffix("\n").removesuffix("\r")
            except InputError as err:
                yield number, err
                continue
            if line.strip():
                yield number, _attempt(_jsonl_conversation, line, number, total, display)


def _skip_rest_of_line(f: IO[bytes]) -> None:
    """Move ``f`` to the start of the next line, reading in bounded chunks."""
    while (chunk := f.readline(1 << 20)) and not chunk.endswith(b"\n"):
        pass


def _count_lines(path: Path, name: str | None) -> int:
    """How many lines the file has (a last line without a newline counts)."""
    count = 0
    last = b"\n"
    with _opened(path, name) as f:
        while chunk := f.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


# ------------------------------------------------------------------------------------------------- HTTP


def _http_conversation(text: str, name: str) -> Conversation:
    """The conversation in a raw HTTP request capture; InputError for a bad request line, header or body."""
    lead = len(text) - len(text.lstrip())
    request = _REQUEST_LINE.match(text, lead)
    if request is None:
        raise InputError(
            "not an HTTP request",
            location=f"{name}:{_line_number(text, lead)}:1",
            hint="the first line must look like 'POST /v1/messages HTTP/1.1'",
        )
    headers, body_start = _read_headers(text, request.end(), name)
    body_line = _line_number(text, body_start)
    if not text[body_start:].strip():
        raise InputError(
            "the HTTP request has no body",
            location=f"{name}:{body_line}",
            hint="put the JSON body after the headers and one blank line",
        )
    doc = _parse_json(text[body_start:], name, first_line=body_line)
    fmt = _endpoint_format(request.group(1)) or _classify(doc)
    return Conversation(
        format="http",
        messages=_read_messages(fmt, doc, name),
        raw=doc,
        headers=headers,
        source_name=name,
        http_request_line=request.group(0).strip(),
    )


def _read_headers(text: str, start: int, name: str) -> tuple[Headers, int]:
    """The headers from ``start`` up to the first blank line, and where the body begins after it."""
    items: list[tuple[str, str]] = []
    pos = start
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end].removesuffix("\r")
        if not line.strip():
            return Headers(items), end + 1
        if line[0] in " \t" and items:  # an obsolete folded continuation of the previous header
            items[-1] = (items[-1][0], f"{items[-1][1]} {line.strip()}")
        else:
            key, colon, value = line.partition(":")
            if not colon or not key.strip():
                raise InputError(
                    f"malformed header line {line[:60]!r}",
                    location=f"{name}:{_line_number(text, pos)}",
                    hint="headers look like 'Name: value'; end them with one blank line before the body",
                )
            items.append((key.strip(), value.strip()))
        pos = end + 1
    return Headers(items), len(text)


def _line_number(text: str, pos: int) -> int:
    """The 1-based line of ``text`` that position ``pos`` is on."""
    return text.count("\n", 0, pos) + 1


def _endpoint_format(target: str) -> str | None:
    """The body format the request target implies (``/v1/messages`` → anthropic), or None."""
    path = target.split("?", 1)[0].rstrip("/")
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith(("/messages", "/messages/count_tokens")):
        return "anthropic"
    return None


def _http_text(conv: Conversation, body: str) -> str:
    """The HTTP capture of ``conv`` with ``body``, CRLF line ends and ``Content-Length`` recomputed."""
    length = str(len(body.encode("utf-8", "surrogatepass")))
    lines = [conv.http_request_line]
    lines += [f"{key}: {length if key.lower() == 'content-length' else value}" for key, value in conv.headers.items()]
    if "content-length" not in (key.lower() for key in conv.headers):
        lines.append(f"Content-Length: {length}")
    return "\r\n".join(lines) + "\r\n\r\n" + body


# -------------------------------------------------------------------------------------- message shapes


def _read_messages(fmt: str, doc: Any, where: str) -> tuple[Message, ...]:
    """The messages of ``doc`` read as ``fmt``; InputError at the JSON path of the first thing wrong.

    ``where`` prefixes locations: the source name, plus ``:line`` inside JSONL.
    """
    _no_record_list(doc, where)
    messages = _READERS[fmt](doc, where)
    for m in messages:
        _check_unicode(m.blocks, where)
    instructions_only = ("system", "developer")
    if all(m.role in instructions_only and not any(b.kind == "opaque" or b.text for b in m.blocks) for m in messages):
        raise InputError(
            "the conversation is empty: no messages and no system prompt",
            location=where,
            hint="add at least one message",
        )
    return messages


def _check_unicode(blocks: tuple[Block, ...], where: str) -> None:
    """InputError for a lone surrogate: JSON can write one (``"\\ud800"``) but it is no character."""
    for b in blocks:
        if b.kind != "text" or b.text.isascii():
            continue
        try:
            b.text.encode("utf-8")
        except UnicodeEncodeError as exc:
            _fail(where, b.path, f"the text holds a lone surrogate {b.text[exc.start]!r} at character {exc.start}, "
                  "which is not valid Unicode",
                  "remove it, or write the whole surrogate pair (\\ud83d\\ude00 is one emoji)")


def _read_anthropic(doc: Any, where: str) -> tuple[Message, ...]:
    """The messages of an Anthropic request: the top-level ``system`` first, then ``messages``."""
    items = _message_list(doc, "messages", where)
    messages = []
    if doc.get("system") is not None:
        pieces = _content_pieces(doc["system"], ("system",), where, tool_results=True)
        messages.append(Message("system", "system", _number(pieces)))
    for i, item in enumerate(items):
        path = ("messages", i)
        role = _role(item, "role", path, _ANTHROPIC_ROLES, where)
        if "content" not in item:
            _fail(where, path + ("content",), "content is missing", 'add "content": "..." or a list of blocks')
        pieces = _content_pieces(item["content"], path + ("content",), where, tool_results=True)
        messages.append(Message(i, role, _number(pieces)))
    return tuple(messages)


def _read_openai(doc: Any, where: str) -> tuple[Message, ...]:
    """The messages of an OpenAI request or bare message list, in order (a system message is one of them)."""
    items, base = (doc, ()) if isinstance(doc, list) else (_message_list(doc, "messages", where), ("messages",))
    if isinstance(doc, dict) and doc.get("system") is not None:
        # read as OpenAI, a top-level system prompt would be dropped without a word (and OpenAI rejects the field)
        _fail(where, ("system",), 'a top-level "system" is not part of an OpenAI request: this reads as an '
              "Anthropic request", 'choose the anthropic format or auto, or move it into messages as '
              '{"role": "system", "content": "..."}')
    messages = []
    for i, item in enumerate(items):
        path = (*base, i)
        role = _role(item, "role", path, _OPENAI_ROLES, where)
        content = item.get("content")
        if content is None and role == "assistant":  # a reply that only calls tools
            pieces: list[_Piece] = []
        else:
            pieces = _content_pieces(content, path + ("content",), where, tool_results=False)
        calls = item.get("tool_calls")
        if role == "assistant" and isinstance(calls, list):  # passed through untouched, shown as such
            pieces += [("opaque", "", path + ("tool_calls", k), "tool_call") for k in range(len(calls))]
        messages.append(Message(i, role, _number(pieces)))
    return tuple(messages)


def _read_sharegpt(doc: Any, where: str) -> tuple[Message, ...]:
    """The turns of a ShareGPT record, ``from`` mapped to roles (human → user, gpt → assistant)."""
    messages = []
    for i, item in enumerate(_message_list(doc, "conversations", where)):
        path = ("conversations", i)
        role = _role(item, "from", path, _SHAREGPT_ROLES, where)
        value = item.get("value")
        if not isinstance(value, str):
            _fail(where, path + ("value",), f"value must be a string, got {_json_type(value)}", 'write "value": "..."')
        messages.append(Message(i, role, (Block(0, "text", value, path + ("value",)),)))
    return tuple(messages)


_READERS: dict[str, Callable[[Any, str], tuple[Message, ...]]] = {
    "anthropic": _read_anthropic,
    "openai": _read_openai,
    "sharegpt": _read_sharegpt,
}


def _content_pieces(
    content: Any, path: JsonPath, where: str, *, tool_results: bool, text_type: str = "text"
) -> list[_Piece]:
    """The blocks of a message's content: a string, or a list of typed blocks.

    ``{"type": "text"}`` blocks are text; with ``tool_results`` a ``tool_result`` block contributes its own
    content (text typed ``"tool_result"``); every other block is opaque.
    """
    if isinstance(content, str):
        return [("text", content, path, text_type)]
    if not isinstance(content, list):
        _fail(
            where, path, f"content must be a string or a list of blocks, got {_json_type(content)}",
            'write "content": "..." or "content": [{"type": "text", "text": "..."}]',
        )
    pieces: list[_Piece] = []
    for j, block in enumerate(content):
        block_path = path + (j,)
        kind = _block_type(block, block_path, where)
        if kind == "text":
            pieces.append(("text", _block_text(block, block_path, where), block_path + ("text",), text_type))
        elif kind == "tool_result" and tool_results:
            pieces.extend(_tool_result_pieces(block, block_path, where))
        else:
            pieces.append(("opaque", "", block_path, kind))
    return pieces


def _tool_result_pieces(block: dict[str, Any], path: JsonPath, where: str) -> list[_Piece]:
    """The text of a ``tool_result`` block (its ``content``), or one opaque block when it has none."""
    content = block.get("content")
    if content is None or content == []:
        return [("opaque", "", path, "tool_result")]
    return _content_pieces(content, path + ("content",), where, tool_results=False, text_type="tool_result")


def _number(pieces: list[_Piece]) -> tuple[Block, ...]:
    """The blocks of one message, indexed in order."""
    return tuple(Block(i, kind, text, path, type_) for i, (kind, text, path, type_) in enumerate(pieces))


def _record_list(doc: Any) -> bool:
    """Whether ``doc`` is a JSON array of whole conversations (``[{"conversations": …}, …]`` or requests with
    ``messages``), not one conversation's message list."""
    return isinstance(doc, list) and bool(doc) and all(map(_is_record, doc))


def _is_record(item: Any) -> bool:
    """Whether ``item`` is a whole conversation (ShareGPT ``conversations`` or a request's ``messages``), not a
    message."""
    return isinstance(item, dict) and "role" not in item and ("conversations" in item or "messages" in item)


def _select_record(doc: list[Any], line: int, name: str) -> Conversation:
    """Record ``line`` (1-based) of a JSON array of conversations, numbered like a JSONL file's lines."""
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= len(doc):
        raise InputError(f"record {line!r} is out of range: the input is a JSON array of {len(doc)} conversations",
                         location=name, hint=f"pick a record from 1 to {len(doc)}")
    return _record_conversation(doc[line - 1], line, len(doc), name)


def _record_conversation(record: Any, line: int, total: int, name: str) -> Conversation:
    """Record ``line`` of ``total`` of a JSON array of conversations, in whatever format it is written."""
    fmt = _classify(record)
    return Conversation(format=fmt, messages=_read_messages(fmt, record, f"{name}: [{line - 1}]"), raw=record,
                        source_name=name, jsonl_line=line, jsonl_lines=total)


def _no_record_list(doc: Any, where: str) -> None:
    """InputError for a JSON array of whole conversations (a ShareGPT dataset: ``[{"conversations": …}, …]``),
    which is no one conversation: it said "[0].role is missing" and pointed the wrong way."""
    if not isinstance(doc, list) or not doc or not _is_record(doc[0]):
        return
    raise InputError(
        f"the input is a JSON array of {len(doc):,} conversations (records like [0] with "
        f'"{"conversations" if "conversations" in doc[0] else "messages"}"), not one conversation',
        location=where,
        hint="a request or a log line holds one conversation: to batch the array, write one record per line as "
             "JSONL (jq -c '.[]' data.json > data.jsonl); prune, the app and load_conversation read it record by "
             "record (--line N)")


def _message_list(doc: Any, key: str, where: str) -> list[Any]:
    """``doc[key]``, which must be a list; InputError when ``doc`` is no object or the list is missing."""
    _expect_object(doc, (), where)
    if key not in doc:
        _fail(where, (key,), f'"{key}" is missing', _SHAPES_HINT)
    if not isinstance(doc[key], list):
        _fail(where, (key,), f'"{key}" must be a list, got {_json_type(doc[key])}', _SHAPES_HINT)
    found: list[Any] = doc[key]
    return found


def _role(item: Any, field: str, path: JsonPath, roles: Mapping[str, str], where: str) -> str:
    """The role of the message ``item`` (``roles`` maps what inputs write to our role names)."""
    _expect_object(item, path, where)
    value = item.get(field)
    allowed = ", ".join(roles)
    if value is None:
        _fail(where, path + (field,), f'"{field}" is missing', f"use one of: {allowed}")
    if not isinstance(value, str):
        _fail(where, path + (field,), f'"{field}" must be a string, got {_json_type(value)}', f"use one of: {allowed}")
    if value not in roles:
        _fail(where, path + (field,), f"unknown role {value[:40]!r}", f"use one of: {allowed}")
    return roles[value]


def _block_type(block: Any, path: JsonPath, where: str) -> str:
    """The ``type`` of a content block, which must be an object with a string ``type``."""
    _expect_object(block, path, where)
    kind = block.get("type")
    if not isinstance(kind, str):
        _fail(where, path + ("type",), 'content block has no string "type"', 'give each block a "type", e.g. "text"')
    return kind


def _block_text(block: dict[str, Any], path: JsonPath, where: str) -> str:
    """The ``text`` of a text block, which must be a string."""
    text = block.get("text")
    if not isinstance(text, str):
        _fail(where, path + ("text",), f"text must be a string, got {_json_type(text)}", 'write "text": "..."')
    return text


def _expect_object(value: Any, path: JsonPath, where: str) -> None:
    """Nothing, or InputError when ``value`` is not a JSON object."""
    if not isinstance(value, dict):
        _fail(where, path, f"expected a JSON object, got {_json_type(value)}", _SHAPES_HINT)


def _fail(where: str, path: JsonPath, message: str, hint: str) -> NoReturn:
    """Raise the InputError for a wrong shape at ``path``."""
    raise InputError(message, location=f"{where}: {format_path(path)}", hint=hint)


def _json_type(value: Any) -> str:
    """The JSON name of ``value``'s type, as users know it from the document."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    names: dict[type[Any], str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


# ------------------------------------------------------------------------------------------------ dumping


def _copy_json(value: Any) -> Any:
    """A deep copy of a JSON value, made without recursion (documents may nest near json's own limit)."""
    if not isinstance(value, (dict, list)):
        return value
    root = type(value)(value)
    stack = [root]
    while stack:
        node = stack.pop()
        for key, child in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(child, (dict, list)):
                node[key] = type(child)(child)
                stack.append(node[key])
    return root


def _set_at(doc: Any, path: JsonPath, value: str) -> Any:
    """``doc`` with ``value`` written at ``path`` (the value itself when the path is empty)."""
    if not path:
        return value
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return doc
