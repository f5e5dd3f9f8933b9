"""Pruning in front of Claude, client-side, on the Anthropic SDK's own interception point (its middleware).

    >>> import anthropic                                                          # doctest: +SKIP
    >>> from layerzero_viz.anthropic import layer_zero_middleware               # doctest: +SKIP
    >>> client = anthropic.Anthropic(middleware=[layer_zero_middleware(ratio=0.3, audit_log="audit.jsonl")])
    ...                                                                           # doctest: +SKIP
    >>> client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
    ...                        messages=[{"role": "user", "content": "您好，请问…"}])   # doctest: +SKIP

The middleware sees every HTTP attempt the SDK makes, so every path that sends a Messages request is pruned:
``messages.create`` (and ``stream=True``), ``messages.stream``, ``messages.parse``, ``beta.messages.*``,
``with_raw_response``, ``with_streaming_response``, clients made by ``copy()`` / ``with_options`` /
``with_middleware``, sync and async.  ``messages.count_tokens`` counts what ``create`` would send (the same
pruning); every other endpoint passes untouched.  The Anthropic API itself prunes nothing: this library does,
before the request leaves the process.

- **Off unless something switches it on.**  A ``<layer-zero/>`` directive on the first line of the system prompt,
  ``ANTHROPIC_EXPERIMENTAL_LAYER_ZERO`` / ``ANTHROPIC_LAYER_ZERO_PRUNE_RATIO``, an ``X-Anthropic-Layer-Zero``
  header (per request in ``extra_headers`` or in the client's ``default_headers``; read, never forwarded), or the
  caller (``enabled=True`` or a ``ratio``).  Precedence as in the engine: argument > environment > header >
  directive > 0.30.
- **Requests the API accepts, meaning the same.**  Only top-level text (the system prompt's, and user or
  assistant turns') is pruned; ``tool_use``, ``tool_result`` content, images, documents, thinking blocks and an
  assistant prefill (a last assistant turn) go out untouched; no text block is ever left empty (a system prompt
  that was only the directive leaves no ``system``); a block carrying ``cache_control`` is never removed.
- **Cache-friendly.**  The engine's selection is prefix-stable (``select.py``): a block's pruned form depends only
  on it and the blocks before it, so a chat resends its history byte for byte as before and prompt caching keeps
  working.  A request seen before (a retry, ``count_tokens`` then ``create``) is answered from a small cache.
- **Audit log** (:mod:`layerzero_viz.claude.audit`): a request record written and fsync'd before the request is
  sent (if it cannot be, :class:`~layerzero_viz.claude.audit.AuditLogError` and nothing is sent), an outcome
  record per attempt after it — for a stream when it ends — that never raises.
- **Metrics** (:mod:`layerzero_viz.claude.metrics`): requests seen, pruned, skipped, failed by kind, tokens pruned,
  the effectiveness estimate, audit failures.  An optional :class:`~layerzero_viz.claude.guard.RollbackGuard`
  lowers the ratio by 0.03 when effectiveness stays below 0.975.

If pruning itself fails (a malformed directive) the original request is sent *minus its directives* and the
audit record says why (``fail_open=False`` raises instead, before anything is sent).

``LayerZeroClient(client, …)`` / ``AsyncLayerZeroClient`` are conveniences: they return a real
``anthropic.Anthropic`` / ``AsyncAnthropic`` with the middleware installed; :func:`layer_zero_of` finds the
middleware on a client (its ``ratio``, ``metrics``, ``record_effectiveness``).
"""
from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import logging
import os
import re
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlsplit

from anthropic._middleware import Middleware

from .claude.audit import AuditLog, AuditLogError
from .claude.guard import RollbackGuard
from .claude.metrics import Metrics, metrics_for, serve_metrics
from .directives import ENV_ENABLED, ENV_RATIO, HEADER, LAYER_ZERO_RE, resolve_settings
from .engine import Config, annotate
from .errors import LayerZeroError
from .formats import conversation_from_json

if TYPE_CHECKING:
    import anthropic

__all__ = ["layer_zero_middleware", "LayerZeroMiddleware", "layer_zero_of", "LayerZeroClient",
           "AsyncLayerZeroClient", "RollbackGuard", "serve_metrics", "AUDIT_VERSION", "HEADER_NAME"]

AUDIT_VERSION = 3  # 3: one outcome record per HTTP attempt (``attempt``); 2: request + outcome; 1: one record
HEADER_NAME = "X-Anthropic-Layer-Zero"
log = logging.getLogger(__name__)

_MESSAGES_PATH = "/v1/messages"
_COUNT_PATH = "/v1/messages/count_tokens"
_HELPER_METHOD = "x-stainless-helper-method"  # the SDK's telemetry header: "stream" for messages.stream
_HELPER = "x-stainless-helper"                # … "messages.parse" for messages.parse
_LIST_TAG_RE = re.compile(r"<(protected_tokens|redundant_phrases)>(.*?)</\1>[ \t]*\n?", re.DOTALL)
_RESULT_CACHE = 128   # pruned requests kept (a retry, count_tokens then create, a regenerate)
_INFLIGHT = 1024      # calls whose next attempt (a retry) reuses the pruned body and the request record


@dataclass
class _Call:
    """One Messages call (all its attempts): what goes out and what the audit record says."""

    method: str
    body: Any                       # the JSON body every attempt sends
    record: dict[str, Any]
    t0: float
    t_sent: float = 0.0
    attempts: int = 0


@dataclass(frozen=True)
class _Pruned:
    """What pruning made of a request's ``system``/``messages`` (``part`` None: send them as they are)."""

    part: dict[str, Any] | None
    fields: dict[str, Any]          # for the audit record
    pruned: bool                    # text was removed (not only directives)
    tokens_pruned: int = 0
    effectiveness: float | None = None
    context_ms: float = 0.0


class LayerZeroMiddleware(Middleware):
    """Anthropic SDK middleware that prunes Messages requests; build it with :func:`layer_zero_middleware`.

    One instance serves sync and async clients and may be shared by many; its state (the audit log, metrics,
    the guard's ratio, a small cache of pruned requests) is thread-safe.
    """

    def __init__(self, *, enabled: bool | None = None, ratio: float | None = None, audit_log: Any = None,
                 registry: Any = None, guard: RollbackGuard | bool | None = None,
                 env: Mapping[str, str] | None = None, low_information: bool = True, fail_open: bool = True,
                 min_effectiveness: float = 1.0, secrets: tuple[str, ...] = ()) -> None:
        from .directives import check_ratio
        from .engine import check_min_effectiveness
        if ratio is not None:
            ratio = check_ratio(ratio, "layer_zero_middleware ratio")
        if enabled is not None and not isinstance(enabled, bool):
            raise TypeError(f"enabled must be True, False or None, not {enabled!r}")
        self.enabled = enabled
        self.ratio = ratio
        self.min_effectiveness = check_min_effectiveness(min_effectiveness)
        self.env = env
        self.low_information = low_information
        self.fail_open = fail_open
        self.metrics: Metrics = metrics_for(registry)
        self.guard: RollbackGuard | None = RollbackGuard() if guard is True else (guard or None)
        if isinstance(audit_log, AuditLog):
            self.audit: AuditLog | None = audit_log
        else:
            self.audit = AuditLog(audit_log) if audit_log else None
        if self.audit is not None:
            self.audit.add_secrets(secrets)
        self.last_ratio: float | None = ratio
        self._lock = threading.Lock()
        self._results: OrderedDict[tuple, _Pruned] = OrderedDict()
        self._inflight: OrderedDict[str, _Call] = OrderedDict()
        self._clients_seen: "weakref.WeakSet[Any]" = weakref.WeakSet()

    # ---- the SDK's entry points --------------------------------------------------------------------------
    def handle(self, request: Any, call_next: Any) -> Any:
        endpoint = _endpoint(request)
        if endpoint is None:
            return call_next(_untouched(request, call_next))
        call, out = self._begin(request, call_next, endpoint)
        if call is None:  # count_tokens: pruned, not audited
            return call_next(out)
        call.t_sent = time.perf_counter()
        try:
            response = call_next(out)
        except BaseException as exc:
            self._failed(call, exc)
            raise
        return self._finish(call, response)

    async def handle_async(self, request: Any, call_next: Any) -> Any:
        endpoint = _endpoint(request)
        if endpoint is None:
            return await call_next(_untouched(request, call_next))
        # pruning and the fsync'd request record run in a worker thread, off the event loop
        call, out = await asyncio.to_thread(self._begin, request, call_next, endpoint)
        if call is None:
            return await call_next(out)
        call.t_sent = time.perf_counter()
        try:
            response = await call_next(out)
        except BaseException as exc:
            self._failed(call, exc)
            raise
        return self._finish(call, response)

    # ---- public state ------------------------------------------------------------------------------------
    def record_effectiveness(self, value: float, *, source: str = "ab") -> None:
        """Publish a measured effectiveness ratio (e.g. an A/B group's) on the gauge and feed the guard."""
        self.metrics.effectiveness.labels(source=source).set(value)
        self._watch(value, source)

    # ---- before the request --------------------------------------------------------------------------------
    def _begin(self, request: Any, call_next: Any, endpoint: str) -> tuple[_Call | None, Any]:
        """(the call, the request to send); the call is None for count_tokens."""
        client = _client_behind(call_next)
        if client is not None and self.audit is not None and client not in self._clients_seen:
            self._clients_seen.add(client)
            self.audit.add_secrets(s for s in (getattr(client, "api_key", None), getattr(client, "auth_token", None))
                                   if isinstance(s, str))
        headers, header = _headers_without_ours(request, client)
        key = request.options.idempotency_key
        if endpoint == "messages" and request.retries_taken and key:
            with self._lock:
                call = self._inflight.get(key)
            if call is not None:  # a retry: the same pruned body, no second request record
                return call, request.copy(body=call.body, headers=headers)
        body = request.json
        if endpoint == "count_tokens":
            self.metrics.requests.labels(endpoint=endpoint).inc()
            try:
                pruned = self._prune(body, header)
            except LayerZeroError as exc:
                self.metrics.requests_failed.labels(kind="pruning").inc()
                if not self.fail_open:
                    raise
                log.warning("layer-zero pruning failed, counting the request unpruned minus its directives: %s", exc)
                pruned = _Pruned(_without_directives(body), {}, False)
            self._count(endpoint, pruned)
            send = body if pruned.part is None else _with_part(body, pruned.part)
            return None, request.copy(body=send, headers=headers)
        call = self._prepare(body, header, _method_of(request))
        if key:
            with self._lock:
                self._inflight[key] = call
                while len(self._inflight) > _INFLIGHT:
                    self._inflight.popitem(last=False)
        return call, request.copy(body=call.body, headers=headers)

    def _prepare(self, body: Any, header: str | None, method: str) -> _Call:
        t0 = time.perf_counter()
        self.metrics.requests.labels(endpoint="messages").inc()
        original = _json_copy(body) if self.audit is not None else None
        record: dict[str, Any] = {
            "version": AUDIT_VERSION, "event": "request", "call_id": uuid.uuid4().hex, "method": method,
            "time": _now(), "model": body.get("model"), "stream": bool(body.get("stream")),
            "original_request": original, "pruned_request": original, "layer_zero_header": header,
            "ratio": None, "ratio_source": None, "enabled": False, "enabled_source": None,
            "tokens": {}, "effectiveness_estimate": None, "timings_ms": {}, "warnings": [], "pruning_error": None,
        }
        send = body
        try:
            pruned = self._prune(body, header)
        except LayerZeroError as exc:
            self.metrics.requests_failed.labels(kind="pruning").inc()
            record["pruning_error"] = f"{type(exc).__name__}: {exc}"
            if not self.fail_open:
                record["timings_ms"]["prune_total"] = _ms(t0)
                self._write_after(record, "request")
                self._write_after(self._outcome(record, "not_sent", error=_error_of(exc)), "outcome")
                raise
            log.warning("layer-zero pruning failed, sending the request unpruned minus its directives: %s", exc)
            part = _without_directives(body)
            send = body if part is None else _with_part(body, part)
        else:
            record.update(pruned.fields)
            self._count("messages", pruned)
            if pruned.part is not None:
                send = _with_part(body, pruned.part)
            if pruned.effectiveness is not None and pruned.fields.get("enabled"):
                self.metrics.observe_call(tokens_pruned=pruned.tokens_pruned, effectiveness=pruned.effectiveness,
                                          context_ms=pruned.context_ms)
                self._watch(pruned.effectiveness, "estimate")
        if self.audit is not None and send is not body:
            record["pruned_request"] = _json_copy(send)
        record["timings_ms"]["prune_total"] = _ms(t0)
        self._write_ahead(record)  # on disk before anything is sent, or the call fails here
        return _Call(method, send, record, t0)

    def _count(self, endpoint: str, pruned: _Pruned) -> None:
        if pruned.pruned:
            self.metrics.requests_pruned.labels(endpoint=endpoint).inc()
        else:
            reason = "disabled" if not pruned.fields.get("enabled") else "unchanged"
            self.metrics.requests_skipped.labels(endpoint=endpoint, reason=reason).inc()

    def _prune(self, body: Any, header: str | None) -> _Pruned:
        """Prune ``body``'s ``system`` and ``messages`` (from the cache when this request was seen)."""
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            return _Pruned(None, {}, False)
        part = {k: body[k] for k in ("system", "messages") if k in body}
        env = os.environ if self.env is None else self.env
        if self.enabled is None and self.ratio is None and header is None and not _says_layer_zero(part, env):
            return _Pruned(None, {"enabled": False, "enabled_source": "default"}, False)  # nothing switched it on
        key = (_digest(part), header, self.enabled, self.ratio, self.min_effectiveness, self.low_information,
               env.get(ENV_ENABLED), env.get(ENV_RATIO))
        with self._lock:
            hit = self._results.get(key)
            if hit is not None:
                self._results.move_to_end(key)
        if hit is not None:
            return replace(hit, fields={**hit.fields, "cached": True})
        found = self._prune_fresh(part, header, env)
        with self._lock:
            self._results[key] = found
            while len(self._results) > _RESULT_CACHE:
                self._results.popitem(last=False)
        return found

    def _prune_fresh(self, part: dict[str, Any], header: str | None, env: Mapping[str, str]) -> _Pruned:
        conv = conversation_from_json(part, "anthropic", name="messages.create")
        if header is not None:
            conv = replace(conv, headers={HEADER: header})
        settings = resolve_settings(conv, ratio=self.ratio, enabled=self.enabled, env=env)
        # the engine's own default is on; the client's is off until something says otherwise
        switched_on = settings.enabled and (settings.enabled_source != "default" or settings.ratio_source != "default")
        if not switched_on and not settings.directive_spans:
            return _Pruned(None, {"enabled": False, "enabled_source": settings.enabled_source}, False)
        # every call resends the history: its blocks' token ids come from the cache after the first call
        ann = annotate(conv, Config(ratio=self.ratio, enabled=self.enabled if switched_on else False, env=env,
                                    low_information=self.low_information, block_cache=True,
                                    material_everywhere=False))
        result = ann.at_ratio(None, min_effectiveness=self.min_effectiveness)
        self.last_ratio = result.ratio
        fields: dict[str, Any] = {
            "ratio": result.ratio, "ratio_source": result.ratio_source, "enabled": switched_on,
            "enabled_source": settings.enabled_source, "effectiveness_estimate": result.effectiveness_estimate,
            "warnings": list(ann.warnings), "profile": settings.profile, "profile_rule": settings.profile_rule,
            "tokens": {"original_estimate": result.tokens_total, "pruned": result.tokens_pruned,
                       "pruned_estimate": result.tokens_total - result.tokens_pruned,
                       "directive": result.tokens_directive},
            "timings_ms": dict(result.timings_ms),
        }
        if result.tokens_pruned == 0 and result.tokens_directive == 0:
            return _Pruned(None, fields, False, 0, result.effectiveness_estimate,
                           result.timings_ms["context_preservation"])
        a = result.annotated
        texts = {a.conversation.messages[b.msg_pos].blocks[b.block].path: result.block_texts[k]
                 for k, b in enumerate(a.view.blocks)}
        rebuilt, notes = _rebuild(part, texts)
        fields["warnings"] += notes
        return _Pruned(rebuilt, fields, result.tokens_pruned > 0, result.tokens_pruned,
                       result.effectiveness_estimate, result.timings_ms["context_preservation"])

    # ---- after the request ---------------------------------------------------------------------------------
    def _finish(self, call: _Call, response: Any) -> Any:
        """Write the attempt's outcome (for a stream: when it ends); return ``response`` unchanged."""
        call.attempts += 1
        attempt = call.attempts
        http = getattr(response, "http_response", None)
        if http is None:  # an inner middleware answered with a value of its own
            self._write_after(self._outcome(call.record, "ok", attempt=attempt, error=None,
                                            note="answered by another middleware"), "outcome")
            return response
        request_id = http.headers.get("request-id")
        if http.status_code >= 400:
            self.metrics.requests_failed.labels(kind="api_status").inc()
            self._write_after(self._outcome(call.record, "error", attempt=attempt, request_id=request_id,
                                            error=_error_of_response(http), timings_ms={"api": _ms(call.t_sent)}),
                              "outcome")
            return response
        self._done(call)
        if _read(http) and not getattr(response, "_is_sse_stream", False):
            self._write_after(self._outcome(call.record, "ok", attempt=attempt, error=None, request_id=request_id,
                                            timings_ms={"api": _ms(call.t_sent)}, **_message_fields(http)),
                              "outcome")
            return response
        _watch_parse(self, call, response, attempt, request_id)
        return response

    def _failed(self, call: _Call, exc: BaseException) -> None:
        call.attempts += 1
        self.metrics.requests_failed.labels(kind="connection").inc()
        self._write_after(self._outcome(call.record, "error", attempt=call.attempts, error=_error_of(exc),
                                        request_id=getattr(exc, "request_id", None),
                                        timings_ms={"api": _ms(call.t_sent)}), "outcome")

    def _done(self, call: _Call) -> None:
        with self._lock:
            for key, value in list(self._inflight.items()):
                if value is call:
                    del self._inflight[key]
                    break

    def watch_stream(self, call: _Call, stream: Any, attempt: int, request_id: str | None) -> Any:
        """Make ``stream`` (an SDK ``Stream``/``AsyncStream``, type kept) write the outcome when it ends."""
        tracker = _StreamTracker(self, call, request_id, attempt)
        try:
            inner = stream._iterator
            is_async = hasattr(inner, "__anext__")
            gen = _aiterate(inner, tracker) if is_async else _iterate(inner, tracker)
            stream.__dict__["_iterator"] = gen
            ref, cls_close = weakref.ref(stream), type(stream).close
            if is_async:
                async def close() -> None:
                    await gen.aclose()
                    tracker.finish("closed")
                    s = ref()
                    if s is not None:
                        await cls_close(s)
            else:
                def close() -> None:  # type: ignore[misc]
                    gen.close()
                    tracker.finish("closed")
                    s = ref()
                    if s is not None:
                        cls_close(s)
            stream.close = close
            weakref.finalize(stream, tracker.finish, "abandoned")
        except Exception as exc:  # an SDK whose streams look different: say so rather than fail the call
            tracker.finish("unobserved", note=f"the stream could not be watched: {type(exc).__name__}: {exc}")
        return stream

    def _outcome(self, request: dict[str, Any], status: str, **fields: Any) -> dict[str, Any]:
        return {"version": AUDIT_VERSION, "event": "outcome", "call_id": request["call_id"], "time": _now(),
                "status": status, **fields}

    # ---- effectiveness and the guard ---------------------------------------------------------------------
    def _watch(self, value: float, source: str) -> None:
        if self.guard is None or self.last_ratio is None:
            return
        rollback = self.guard.observe(value, ratio=self.last_ratio)
        if rollback is None:
            return
        self.ratio = self.last_ratio = rollback.ratio_after
        log.warning("layer-zero rollback: effectiveness %.4f < %.3f over %d values (%s); prune ratio %.2f → %.2f",
                    rollback.window_mean, rollback.threshold, rollback.window, source, rollback.ratio_before,
                    rollback.ratio_after)
        self._write_after({"version": AUDIT_VERSION, "event": "rollback", "time": _now(),
                           "effectiveness_source": source, **rollback.__dict__}, "rollback")

    # ---- the audit log -------------------------------------------------------------------------------------
    def _write_ahead(self, record: dict[str, Any]) -> None:
        """The request record, before sending: if it cannot be written the call fails (nothing was sent)."""
        if self.audit is None:
            return
        try:
            self.audit.write(record)
        except Exception as exc:
            self.metrics.audit_failures.inc()
            self.metrics.requests_failed.labels(kind="audit").inc()
            raise AuditLogError(self.audit.path, "the request record", exc, "the request was not sent") from exc

    def _write_after(self, record: dict[str, Any], what: str) -> None:
        """A record after the fact (outcome, rollback): a failure is logged and counted, never raised."""
        if self.audit is None:
            return
        try:
            self.audit.write(record)
        except Exception as exc:
            self.metrics.audit_failures.inc()
            log.warning("layer-zero audit log %s: could not write the %s record of call %s (%s: %s); "
                        "the response is returned all the same", self.audit.path, what,
                        record.get("call_id", "-"), type(exc).__name__, exc)


def layer_zero_middleware(*, enabled: bool | None = None, ratio: float | None = None,
                          audit_log: str | os.PathLike[str] | AuditLog | None = None, registry: Any = None,
                          guard: RollbackGuard | bool | None = None, env: Mapping[str, str] | None = None,
                          low_information: bool = True, fail_open: bool = True,
                          min_effectiveness: float = 1.0) -> LayerZeroMiddleware:
    """Middleware for ``Anthropic(middleware=[…])``, ``AsyncAnthropic(middleware=[…])`` or ``client.with_middleware(…)``.

    ``enabled``/``ratio`` are the caller's settings (either switches pruning on; ``enabled=False`` keeps it off
    whatever else says); ``audit_log`` a JSONL path; ``registry`` a ``prometheus_client.CollectorRegistry``
    (default: the global one); ``guard`` True or a :class:`RollbackGuard`; ``env`` replaces ``os.environ`` for
    the layer-zero variables; ``min_effectiveness`` the floor of the lossy tier (1.0: only the safe rules);
    ``fail_open=False`` raises a pruning failure instead of sending the request unpruned.

    >>> import anthropic
    >>> client = anthropic.Anthropic(api_key="sk-ant-example", middleware=[layer_zero_middleware(ratio=0.3)])
    >>> layer_zero_of(client).ratio, isinstance(client, anthropic.Anthropic)
    (0.3, True)
    """
    return LayerZeroMiddleware(enabled=enabled, ratio=ratio, audit_log=audit_log, registry=registry, guard=guard,
                               env=env, low_information=low_information, fail_open=fail_open,
                               min_effectiveness=min_effectiveness)


def layer_zero_of(client: Any) -> LayerZeroMiddleware:
    """The :class:`LayerZeroMiddleware` installed on ``client`` (the first one); ``LookupError`` if none."""
    for entry in getattr(client, "middleware", ()):
        if isinstance(entry, LayerZeroMiddleware):
            return entry
    raise LookupError("no layer-zero middleware on this client: install layer_zero_middleware() or use "
                      "LayerZeroClient(…)")


def LayerZeroClient(client: "anthropic.Anthropic | None" = None, **settings: Any) -> "anthropic.Anthropic":  # noqa: N802
    """A real ``anthropic.Anthropic`` with :func:`layer_zero_middleware` installed (after ``client``'s own).

    ``client`` is an existing client (``client.with_middleware(…)``: a copy sharing its connection pool); without
    one, the keyword arguments :func:`layer_zero_middleware` does not take go to ``anthropic.Anthropic(…)``.
    """
    import anthropic
    return _install(anthropic.Anthropic, client, settings)


def AsyncLayerZeroClient(client: "anthropic.AsyncAnthropic | None" = None,  # noqa: N802
                         **settings: Any) -> "anthropic.AsyncAnthropic":
    """The same for ``anthropic.AsyncAnthropic``."""
    import anthropic
    return _install(anthropic.AsyncAnthropic, client, settings)


_MIDDLEWARE_ARGS = tuple(inspect.signature(layer_zero_middleware).parameters)


def _install(cls: Any, client: Any, settings: dict[str, Any]) -> Any:
    mine = {k: settings.pop(k) for k in list(settings) if k in _MIDDLEWARE_ARGS}
    middleware = layer_zero_middleware(**mine)
    if client is None:
        return cls(middleware=[middleware], **settings)
    if not isinstance(client, cls):
        raise TypeError(f"expected an {cls.__module__.split('.')[0]}.{cls.__name__}, not {type(client).__name__}")
    if settings:
        client = client.with_options(**settings)
    return client.with_middleware(middleware)


# ---- requests ------------------------------------------------------------------------------------------------
def _endpoint(request: Any) -> str | None:
    """"messages", "count_tokens" or None (anything else passes untouched)."""
    if request.method.lower() != "post":
        return None
    path = urlsplit(request.url).path.rstrip("/")
    if path.endswith(_COUNT_PATH):
        return "count_tokens"
    if path.endswith(_MESSAGES_PATH):
        return "messages"
    return None


def _method_of(request: Any) -> str:
    headers = {k.lower(): v for k, v in request.headers.items() if isinstance(v, str)}
    beta = "beta." if "beta=true" in (urlsplit(request.url).query or "") or \
        (isinstance(request.query_params, Mapping) and request.query_params.get("beta")) else ""
    if headers.get(_HELPER_METHOD) == "stream":
        return f"{beta}messages.stream"
    if "messages.parse" in headers.get(_HELPER, ""):
        return f"{beta}messages.parse"
    return f"{beta}messages.create"


def _client_behind(call_next: Any) -> Any:
    """The SDK client whose chain ``call_next`` belongs to (its default headers, its key), or None.

    The SDK builds the chain from closures over the client (``_build_middleware_chain``); the middleware API
    hands the client to nobody, so it is found there.  Nothing depends on finding it but reading an
    ``X-Anthropic-Layer-Zero`` set in ``default_headers`` (it is stripped from the wire either way).
    """
    from anthropic._base_client import BaseClient
    stack, steps = [call_next], 0
    while stack and steps < 64:
        fn = stack.pop()
        steps += 1
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, BaseClient):
                return value
            if inspect.isfunction(value):
                stack.append(value)
    return None


def _headers_without_ours(request: Any, client: Any) -> tuple[dict[str, Any], str | None]:
    """(the request's headers minus ``X-Anthropic-Layer-Zero``, which is omitted from the client's defaults
    too; the header's value, per request before default)."""
    from anthropic import omit
    found = None
    kept: dict[str, Any] = {}
    for name, value in dict(request.headers).items():
        if name.lower() == HEADER:
            if isinstance(value, str):
                found = value
        else:
            kept[name] = value
    if found is None and client is not None:
        for name, value in (getattr(client, "default_headers", None) or {}).items():
            if name.lower() == HEADER and isinstance(value, str):
                found = value
    kept[HEADER_NAME] = omit  # never forwarded, whichever layer set it
    return kept, found


def _untouched(request: Any, call_next: Any) -> Any:
    """Another endpoint's request as it is, but for an ``X-Anthropic-Layer-Zero`` header (never forwarded)."""
    client = _client_behind(call_next)
    defaults = getattr(client, "default_headers", None) or {}
    if not any(name.lower() == HEADER for name in (*dict(request.headers), *defaults)):
        return request
    return request.copy(headers=_headers_without_ours(request, client)[0])


def _says_layer_zero(part: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether anything but the caller could switch pruning on: the environment or a directive in the system."""
    if (env.get(ENV_ENABLED) or "").strip() or (env.get(ENV_RATIO) or "").strip():
        return True
    system = part.get("system")
    if isinstance(system, str):
        return "<layer-zero" in system.lower() or "<protected_tokens>" in system or "<redundant_phrases>" in system
    if isinstance(system, list):
        return any(isinstance(b, Mapping) and isinstance(b.get("text"), str) and
                   ("<layer-zero" in b["text"].lower() or "<protected_tokens>" in b["text"]
                    or "<redundant_phrases>" in b["text"]) for b in system)
    return False


def _with_part(body: Mapping[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in body.items() if k not in ("system", "messages")}
    out.update(part)
    return out


_DROP = object()


def _editable(part: Mapping[str, Any], path: tuple, prefill: int | None) -> bool:
    """Only top-level text may change: the system prompt's and user/assistant turns' text blocks."""
    if path[0] == "system":
        return len(path) == 1 or (len(path) == 3 and path[2] == "text")
    if path[0] != "messages" or len(path) not in (3, 5) or path[1] == prefill or path[2] != "content":
        return False
    if len(path) == 3:
        return True
    block = part["messages"][path[1]]["content"][path[3]]
    return isinstance(block, Mapping) and block.get("type") == "text" and path[4] == "text"


def _rebuild(part: dict[str, Any], texts: Mapping[tuple, str]) -> tuple[dict[str, Any] | None, list[str]]:
    """``part`` with the pruned ``texts`` written back where they may go (copy on write; the caller's request
    is never mutated); None when nothing changed.  A text pruned to nothing (only an engine directive) leaves
    its block, unless the block carries ``cache_control``."""
    messages = part.get("messages") or []
    prefill = len(messages) - 1 if messages and isinstance(messages[-1], Mapping) and \
        messages[-1].get("role") == "assistant" else None
    out: dict[str, Any] = dict(part)
    copied: set[int] = set()
    notes: list[str] = []
    changed = False
    for path, new in texts.items():
        old = _get(part, path)
        if new == old or not path or not _editable(part, path, prefill):
            continue
        if not new.strip():
            holder = _get(part, path[:-1]) if len(path) > 1 else None
            if path[0] != "system":
                notes.append(f"{_fmt(path)} would be left empty: sent as it was")
                continue
            if isinstance(holder, Mapping) and holder.get("cache_control") is not None:
                notes.append(f"{_fmt(path)} is only a directive but carries cache_control: sent as it was")
                continue
            new = _DROP
        _set(out, path[:-1] if new is _DROP and len(path) > 1 else path, new, copied)
        changed = True
    if not changed:
        return None, notes
    system = out.get("system")
    if system is _DROP:
        del out["system"]
    elif isinstance(system, list) and id(system) in copied:
        system[:] = [b for b in system if b is not _DROP]
        if not system:
            del out["system"]
    return out, notes


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _set(root: dict[str, Any], path: tuple, value: Any, copied: set[int]) -> None:
    node = root
    for key in path[:-1]:
        child = node[key]
        if id(child) not in copied:
            child = dict(child) if isinstance(child, Mapping) else list(child)
            copied.add(id(child))
            node[key] = child
        node = child
    node[path[-1]] = value


def _fmt(path: tuple) -> str:
    from .model import format_path
    return format_path(path)


def _without_directives(body: Any) -> dict[str, Any] | None:
    """``system``/``messages`` of ``body`` minus the engine's directives (``<layer-zero/>`` on the system
    prompt's first line, ``<protected_tokens>`` and ``<redundant_phrases>`` in it), when pruning failed."""
    if not isinstance(body, Mapping) or "system" not in body:
        return None
    system = body["system"]

    def strip(text: str, first: bool) -> str:
        if first:
            line_end = text.find("\n")
            first_line = text if line_end < 0 else text[:line_end]
            if LAYER_ZERO_RE.fullmatch(first_line.strip()):
                text = "" if line_end < 0 else text[line_end + 1:]
        return _LIST_TAG_RE.sub("", text)

    if isinstance(system, str):
        new: Any = strip(system, True)
        if new == system:
            return None
        part = {k: body[k] for k in ("system", "messages") if k in body}
        if new.strip():
            part["system"] = new
        else:
            del part["system"]
        return part
    if isinstance(system, list):
        blocks, changed, first = [], False, True
        for b in system:
            if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str):
                text = strip(b["text"], first)
                first = False
                if text != b["text"]:
                    changed = True
                    if not text.strip() and b.get("cache_control") is None:
                        continue
                    b = {**b, "text": text} if text.strip() else b
            blocks.append(b)
        if not changed:
            return None
        part = {k: body[k] for k in ("system", "messages") if k in body}
        if blocks:
            part["system"] = blocks
        else:
            del part["system"]
        return part
    return None


def _digest(part: Mapping[str, Any]) -> bytes:
    data = json.dumps(part, ensure_ascii=False, default=str, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=20).digest()


# ---- responses -----------------------------------------------------------------------------------------------
def _read(http: Any) -> bool:
    """Whether the httpx response's body is in memory already (a plain call; not with_streaming_response)."""
    try:
        http.content
    except Exception:  # httpx's ResponseNotRead
        return False
    return True


def _message_fields(http: Any) -> dict[str, Any]:
    try:
        data = json.loads(http.content)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    fields: dict[str, Any] = {"response_id": data.get("id"), "stop_reason": data.get("stop_reason")}
    usage = data.get("usage")
    if isinstance(usage, dict):
        fields["tokens"] = {k: usage[k] for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                                  "cache_read_input_tokens") if usage.get(k) is not None}
    if "input_tokens" in data and "id" not in data:  # count_tokens' shape (not audited today)
        fields["tokens"] = {"input_tokens": data["input_tokens"]}
    return fields


def _watch_parse(mw: LayerZeroMiddleware, call: _Call, response: Any, attempt: int, request_id: str | None) -> None:
    """A response whose body is still to come (a stream, with_streaming_response): the outcome is written when
    its ``parse()`` hands over a stream that then ends, or when it is parsed — or when it is collected unread."""
    state = {"done": False}

    def observed(parsed: Any) -> Any:
        if state["done"]:
            return parsed
        state["done"] = True
        if _is_stream(parsed):
            return mw.watch_stream(call, parsed, attempt, request_id)
        fields = _message_fields(response.http_response) if _read(response.http_response) else {}
        mw._write_after(mw._outcome(call.record, "ok", attempt=attempt, error=None, request_id=request_id,
                                    timings_ms={"api": _ms(call.t_sent)}, **fields), "outcome")
        return parsed

    def unread() -> None:
        if not state["done"]:
            state["done"] = True
            mw._write_after(mw._outcome(call.record, "ok", attempt=attempt, error=None, request_id=request_id,
                                        stream={"end": "unobserved", "note": "the response was never parsed"}),
                            "outcome")

    parse = response.parse
    if inspect.iscoroutinefunction(parse):
        async def aparse(**kwargs: Any) -> Any:
            return observed(await parse(**kwargs))
        response.parse = aparse
    else:
        def sparse(**kwargs: Any) -> Any:
            return observed(parse(**kwargs))
        response.parse = sparse
    weakref.finalize(response, unread)


class _StreamTracker:
    """What a stream said so far (message id, usage, stop reason); writes the outcome once, when it ends."""

    def __init__(self, mw: LayerZeroMiddleware, call: _Call, request_id: str | None, attempt: int) -> None:
        self.mw, self.call, self.request_id, self.attempt = mw, call, request_id, attempt
        self.response_id: str | None = None
        self.stop_reason: str | None = None
        self.tokens: dict[str, Any] = {}
        self.events = 0
        self.stopped = False
        self.done = False
        self._lock = threading.Lock()

    def observe(self, event: Any) -> None:
        self.events += 1
        kind = getattr(event, "type", None)
        if kind == "message_start":
            message = getattr(event, "message", None)
            self.response_id = getattr(message, "id", None)
            self.tokens.update(_usage(getattr(message, "usage", None)))
        elif kind == "message_delta":
            self.stop_reason = getattr(getattr(event, "delta", None), "stop_reason", None) or self.stop_reason
            self.tokens.update({k: v for k, v in _usage(getattr(event, "usage", None)).items() if v is not None})
        elif kind == "message_stop":
            self.stopped = True

    def finish(self, end: str, error: BaseException | None = None, note: str | None = None) -> None:
        with self._lock:
            if self.done:
                return
            self.done = True
        status = "error" if error is not None else "ok" if self.stopped else "incomplete"
        if end == "unobserved":
            status = "ok"
        if error is not None:
            self.mw.metrics.requests_failed.labels(kind="stream").inc()
        stream = {"end": end, "completed": self.stopped, "events": self.events}
        if note:
            stream["note"] = note
        fields: dict[str, Any] = {"response_id": self.response_id, "request_id": self.request_id,
                                  "stop_reason": self.stop_reason, "tokens": self.tokens, "attempt": self.attempt,
                                  "timings_ms": {"api": _ms(self.call.t_sent)}, "stream": stream,
                                  "error": _error_of(error) if error is not None else None}
        self.mw._write_after(self.mw._outcome(self.call.record, status, **fields), "outcome")


def _iterate(inner: Any, tracker: _StreamTracker) -> Any:
    end, error = "abandoned", None
    try:
        for event in inner:
            tracker.observe(event)
            yield event
        end = "completed" if tracker.stopped else "ended"
    except GeneratorExit:
        end = "closed"
        raise
    except BaseException as exc:
        end, error = "failed", exc
        raise
    finally:
        try:
            inner.close()
        except Exception:
            pass
        tracker.finish(end, error)


async def _aiterate(inner: Any, tracker: _StreamTracker) -> Any:
    end, error = "abandoned", None
    try:
        async for event in inner:
            tracker.observe(event)
            yield event
        end = "completed" if tracker.stopped else "ended"
    except GeneratorExit:
        end = "closed"
        raise
    except BaseException as exc:
        end, error = "failed", exc
        raise
    finally:
        try:
            await inner.aclose()
        except Exception:
            pass
        tracker.finish(end, error)


def _is_stream(response: Any) -> bool:
    import anthropic
    return isinstance(response, (anthropic.Stream, anthropic.AsyncStream))


def _usage(usage: Any) -> dict[str, Any]:
    if usage is None:
        return {}
    return {k: getattr(usage, k) for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                             "cache_read_input_tokens") if getattr(usage, k, None) is not None}


def _error_of(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc)[:2000], "status_code": getattr(exc, "status_code", None),
            "request_id": getattr(exc, "request_id", None)}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _json_copy(obj: Any) -> Any:
    """A deep copy as plain JSON data; SDK sentinels (``omit``, ``NOT_GIVEN``) are left out.

    Built directly (new dicts and lists, immutable JSON scalars shared) rather than through a JSON
    round trip: the copy is on the path of every call.  What JSON cannot hold becomes ``str(value)``,
    as ``json.dumps(default=str)`` would make it.
    """
    return _plain(obj)


_JSON_SCALARS = (str, int, float, bool, type(None))


def _plain(obj: Any) -> Any:
    t = type(obj)
    if t in _JSON_SCALARS:
        return obj
    if t is dict or isinstance(obj, Mapping):
        return {k if type(k) is str else _key(k): _plain(v) for k, v in obj.items() if not _is_sentinel(v)}
    if t is list or t is tuple or isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "model_dump"):
        return _plain(obj.model_dump(mode="json"))
    if isinstance(obj, _JSON_SCALARS):  # subclasses (an IntEnum, a str Enum): their JSON form
        return json.loads(json.dumps(obj))
    return str(obj)


def _key(k: Any) -> str:
    """A JSON object key as ``json.dumps`` writes it (True → "true", 1 → "1")."""
    if isinstance(k, (bool, int, float)) or k is None:
        return json.dumps(k)
    return str(k)


def _is_sentinel(value: Any) -> bool:
    return type(value).__name__ in ("NotGiven", "Omit")


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


_ERRORS_BY_STATUS = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
                     404: "NotFoundError", 409: "ConflictError", 413: "RequestTooLargeError",
                     422: "UnprocessableEntityError", 429: "RateLimitError", 529: "OverloadedError"}


def _error_of_response(http: Any) -> dict[str, Any]:
    """An error response as the SDK will raise it (its class name, the API's message)."""
    status = http.status_code
    message = f"HTTP {status}"
    if _read(http):
        try:
            data = json.loads(http.content)
            message = str(((data.get("error") or {}).get("message")) or message)[:2000]
        except (ValueError, AttributeError):
            pass
    kind = _ERRORS_BY_STATUS.get(status, "InternalServerError" if status >= 500 else "APIStatusError")
    return {"type": kind, "message": message, "status_code": status, "request_id": http.headers.get("request-id")}
