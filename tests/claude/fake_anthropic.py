"""A local stand-in for the Anthropic Messages API, driven through the real SDK via ``base_url``.

``POST /v1/messages`` answers with the real ``Message`` shape; a plain request gets ``"echo: <last user
text>"`` (so a reply changes exactly when pruning changed the last user turn), a judge request (one holding
``<reply_a>``/``<reply_b>``) gets ``{"equivalent": a == b, "differences": …}``.  ``POST
/v1/messages/count_tokens`` answers ``{"input_tokens": N}`` with N derived from the request.  Like the real
API it refuses a request without credentials (401), a missing model or max_tokens and empty text (400).

Failures are scripted per path: ``fail("/v1/messages", 429, 500, ("slow", 2.0))`` makes the next three
requests to that path a rate limit (with ``retry-after-ms``), a server error, and a 2 s stall; ``down_after(n)``
makes every ``/v1/messages`` request after the n-th successful one a 500 (a server that dies mid-run).
Every request is recorded in ``hits`` as ``(path, status, body, headers)``.  A request with ``"stream": true`` is
answered with the Messages API's server-sent events (``message_start`` … ``message_stop``); ``break_stream = True``
sends an ``error`` event after the first text delta instead of the rest.  ``on_request(path, body)``, when set, is
called as a request arrives, before it is answered (to look at what the client did before sending it).

Like the API it refuses (400) empty text blocks anywhere (system, turns, inside a ``tool_result``) and unpaired
tool blocks (a ``tool_use`` not answered by a ``tool_result`` in the next user turn, a ``tool_result`` whose
``tool_use_id`` is not a ``tool_use`` of the assistant turn just before).  It keeps a **prompt cache** per model:
the request is a sequence of blocks (tools, system blocks, then each turn's content blocks, role included,
``cache_control`` left out of the key); a block carrying ``cache_control`` is a breakpoint, and the prefix up to
it is written to the cache; a request reads the longest cached prefix that ends at a block boundary at most 20
blocks before one of its breakpoints.  ``usage`` then says ``cache_read_input_tokens`` (the prefix's tokens),
``cache_creation_input_tokens`` (what the longest breakpoint adds beyond it) and ``input_tokens`` (the rest), the
three summing to :func:`fake_token_count` of the request; a request without breakpoints reads nothing.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MESSAGES = "/v1/messages"
COUNT = "/v1/messages/count_tokens"
_REPLY_A = re.compile(r"<reply_a>\n(.*?)\n</reply_a>", re.DOTALL)
_REPLY_B = re.compile(r"<reply_b>\n(.*?)\n</reply_b>", re.DOTALL)


def fake_token_count(body: dict[str, Any]) -> int:
    """A deterministic stand-in for Claude's tokenizer: one token per 4 bytes of system + messages + tools."""
    part = {k: body[k] for k in ("system", "messages", "tools") if k in body}
    return 3 + len(json.dumps(part, ensure_ascii=False, sort_keys=True).encode("utf-8")) // 4


LOOKBACK = 20  # block boundaries checked before each breakpoint, as the API does


def _units(body: dict[str, Any]) -> list[tuple[bytes, bool]]:
    """The request as cacheable blocks in order: (canonical bytes without cache_control, is a breakpoint)."""
    units: list[tuple[bytes, bool]] = []

    def add(where: str, block: Any) -> None:
        mark = isinstance(block, dict) and block.get("cache_control") is not None
        plain = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
        units.append((json.dumps([where, plain], ensure_ascii=False, sort_keys=True).encode("utf-8"), mark))

    for tool in body.get("tools") or []:
        add("tool", tool)
    system = body.get("system")
    for block in ([system] if isinstance(system, str) else system or []):
        add("system", block)
    for m in body.get("messages") or []:
        content = m.get("content")
        for block in ([content] if isinstance(content, str) else content or []):
            add(m.get("role", ""), block)
    return units


class PromptCache:
    """Prefix hashes of block sequences → their token count; see the module docstring."""

    def __init__(self) -> None:
        self._entries: dict[bytes, int] = {}
        self._lock = threading.Lock()

    def use(self, body: dict[str, Any]) -> tuple[int, int]:
        """(tokens read from the cache, tokens written to it) for ``body``; writes its breakpoints' prefixes."""
        units = _units(body)
        digests, tokens = [], []
        h = hashlib.sha256(str(body.get("model")).encode())
        total = 0
        for data, _ in units:
            h.update(len(data).to_bytes(8, "big") + data)
            digests.append(h.copy().digest())
            total += len(data) // 4
            tokens.append(total)
        marks = [i for i, (_, mark) in enumerate(units) if mark]
        if not marks:
            return 0, 0
        with self._lock:
            read = 0
            for i in marks:
                for j in range(i, max(-1, i - LOOKBACK - 1), -1):
                    if digests[j] in self._entries:
                        read = max(read, self._entries[digests[j]])
                        break
            for i in marks:
                self._entries[digests[i]] = tokens[i]
        return read, max(0, tokens[marks[-1]] - read)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


class FakeAnthropic:
    """The server; ``with FakeAnthropic() as server: anthropic.Anthropic(base_url=server.url, …)``."""

    def __init__(self) -> None:
        self.hits: list[tuple[str, int, dict[str, Any], dict[str, str]]] = []
        self._script: dict[str, deque] = defaultdict(deque)
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._ok_messages = 0
        self._down_after: int | None = None
        self.judge_equivalent: bool | None = None  # force the judge's verdict (None: compare the replies)
        self.break_stream = False
        self.on_request = None
        self.cache = PromptCache()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-anthropic", daemon=True)

    # ---- control ---------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeAnthropic":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()  # wake stalled handlers
        if self._thread.is_alive():
            # shutdown() waits for serve_forever to return: with its thread gone (once seen in a full local run,
            # no thread named fake-anthropic left) it would wait for ever
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeAnthropic":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def fail(self, path: str, *failures: Any) -> None:
        """Script the next requests to ``path``: 429, 500 (or any status), or ("slow", seconds)."""
        with self._lock:
            self._script[path].extend(failures)

    def down_after(self, n: int | None) -> None:
        """Every /v1/messages request after ``n`` more successful ones answers 500 (None: healthy again)."""
        with self._lock:
            self._down_after = None if n is None else self._ok_messages + n

    def count(self, path: str | None = None, status: int | None = None) -> int:
        """How many requests were served (to ``path``, with ``status``)."""
        with self._lock:
            return sum((path is None or p == path) and (status is None or s == status) for p, s, _, _ in self.hits)

    # ---- the API ---------------------------------------------------------------------------------------
    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                headers = {k.lower(): v for k, v in self.headers.items()}
                path = self.path.split("?")[0]
                if fake.on_request is not None:
                    fake.on_request(path, body)
                status, payload, extra = fake._respond(path, body, headers)
                with fake._lock:
                    fake.hits.append((path, status, body, headers))
                if status == 200 and path == MESSAGES and body.get("stream"):
                    return self._stream(payload)
                data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("request-id", f"req_fake_{len(fake.hits)}")
                    for k, v in extra.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def _stream(self, message: dict[str, Any]) -> None:
                text = message["content"][0]["text"]
                start = {**message, "content": [], "stop_reason": None,
                         "usage": {**message["usage"], "output_tokens": 1}}
                events = [("message_start", {"type": "message_start", "message": start}),
                          ("content_block_start", {"type": "content_block_start", "index": 0,
                                                   "content_block": {"type": "text", "text": ""}}),
                          ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": text}})]
                if fake.break_stream:
                    events.append(("error", {"type": "error", "error": {"type": "overloaded_error",
                                                                        "message": "Overloaded"}}))
                else:
                    events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                               ("message_delta", {"type": "message_delta",
                                                  "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                                  "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
                               ("message_stop", {"type": "message_stop"})]
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("request-id", f"req_fake_{len(fake.hits)}")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for name, data in events:
                        self.wfile.write(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
                                         .encode("utf-8"))
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

    def _respond(self, path: str, body: dict[str, Any], headers: dict[str, str]):
        with self._lock:
            scripted = self._script[path].popleft() if self._script[path] else None
            down = path == MESSAGES and self._down_after is not None and self._ok_messages >= self._down_after
        if isinstance(scripted, tuple) and scripted[0] == "slow":
            self._released.wait(scripted[1])
        elif scripted == 429:
            return 429, _error("rate_limit_error", "Number of request tokens has exceeded your rate limit"), \
                {"retry-after": "0", "retry-after-ms": "5"}
        elif isinstance(scripted, int):
            return scripted, _error("api_error", "Internal server error"), {"retry-after-ms": "5"}
        if down:
            return 500, _error("api_error", "Internal server error (the fake is down)"), {"retry-after-ms": "5"}
        if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
            return 401, _error("authentication_error", "an x-api-key or Authorization: Bearer header is required"), {}
        problem = _invalid(body, count=path == COUNT)
        if problem:
            return 400, _error("invalid_request_error", problem), {}
        if path == COUNT:
            return 200, {"input_tokens": fake_token_count(body)}, {}
        if path != MESSAGES:
            return 404, _error("not_found_error", f"no route {path}"), {}
        text = self._judge(body) or f"echo: {_text(body['messages'][-1].get('content'))}"
        with self._lock:
            self._ok_messages += 1
            n = self._ok_messages
        read, written = self.cache.use(body)
        total = fake_token_count(body)
        usage = {"input_tokens": total - read - written, "output_tokens": max(1, len(text) // 4)}
        if read or written:
            usage.update(cache_read_input_tokens=read, cache_creation_input_tokens=written)
        return 200, {
            "id": f"msg_fake_{n:04d}", "type": "message", "role": "assistant", "model": body["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": usage,
        }, {}

    def _judge(self, body: dict[str, Any]) -> str | None:
        user = _text(body["messages"][-1].get("content"))
        a, b = _REPLY_A.search(user), _REPLY_B.search(user)
        if not (a and b):
            return None
        same = a.group(1).strip() == b.group(1).strip() if self.judge_equivalent is None else self.judge_equivalent
        return json.dumps({"equivalent": same, "differences": "" if same else "reply_b lost part of the request"})


def _invalid(body: dict[str, Any], *, count: bool) -> str | None:
    if not body.get("model"):
        return "model: Field required"
    if not count and "max_tokens" not in body:
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    system = body.get("system")
    if isinstance(system, list):
        for j, block in enumerate(system):
            if block.get("type") == "text" and not block.get("text"):
                return f"system.{j}.text: text content blocks must be non-empty"
    for i, m in enumerate(messages):
        content = m.get("content")
        if isinstance(content, str) and not content:
            return f"messages.{i}.content: text content blocks must be non-empty"
        if isinstance(content, list):
            if not content:
                return f"messages.{i}.content: at least one content block is required"
            for j, block in enumerate(content):
                if block.get("type") == "text" and not block.get("text"):
                    return f"messages.{i}.content.{j}.text: text content blocks must be non-empty"
                inner = block.get("content") if block.get("type") == "tool_result" else None
                for k, part in enumerate(inner if isinstance(inner, list) else []):
                    if part.get("type") == "text" and not part.get("text"):
                        return f"messages.{i}.content.{j}.content.{k}.text: text content blocks must be non-empty"
    return _unpaired(messages)


def _blocks(m: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = m.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


def _unpaired(messages: list[dict[str, Any]]) -> str | None:
    """The API's rule: every tool_use is answered in the next turn, every tool_result answers the turn before."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            asked = {b.get("id") for b in _blocks(m, "tool_use")}
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            answered = {b.get("tool_use_id") for b in _blocks(nxt, "tool_result")} if nxt else set()
            if asked and nxt is not None and not asked <= answered:
                return (f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                        f"after: {', '.join(sorted(map(str, asked - answered)))}")
        else:
            before = messages[i - 1] if i else None
            asked = {b.get("id") for b in _blocks(before, "tool_use")} if before and \
                before.get("role") == "assistant" else set()
            for j, b in enumerate(_blocks(m, "tool_result")):
                if b.get("tool_use_id") not in asked:
                    return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                            f"{b.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                            "`tool_use` block in the previous message.")
    return None


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
