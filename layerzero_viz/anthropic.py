"""``LayerZeroClient``: prune ``system`` and ``messages`` with the engine, then call the real Anthropic SDK.

    >>> import anthropic                                               # doctest: +SKIP
    >>> from layerzero_viz.anthropic import LayerZeroClient           # doctest: +SKIP
    >>> client = LayerZeroClient(anthropic.Anthropic(), ratio=0.3, audit_log="audit.jsonl")  # doctest: +SKIP
    >>> message = client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
    ...                                  messages=[{"role": "user", "content": "您好，请问…"}])  # doctest: +SKIP

``create`` returns the SDK's own ``Message`` and raises the SDK's own errors.  Settings follow the engine's
precedence: the ``ratio`` argument > ``ANTHROPIC_LAYER_ZERO_PRUNE_RATIO`` / ``ANTHROPIC_EXPERIMENTAL_LAYER_ZERO``
> an ``X-Anthropic-Layer-Zero`` entry in ``extra_headers`` (consumed, not forwarded) > a ``<layer-zero/>``
directive > the default.  Every call writes an audit request record *before* the request is sent (if it cannot
be written, :class:`~layerzero_viz.claude.audit.AuditLogError` and nothing is sent) and an outcome record after it
— when a stream completes or fails, for ``create(stream=True)`` and ``stream`` — that never raises (a warning and
``layer_zero_audit_failures_total`` instead; see :mod:`layerzero_viz.claude.audit`), and updates the Prometheus
metrics (:mod:`layerzero_viz.claude.metrics`).  An optional :class:`~layerzero_viz.claude.guard.RollbackGuard`
lowers the ratio by 0.03 when effectiveness stays below 0.975.

If pruning itself fails (a malformed directive, an odd request shape) the original request is sent unchanged
and the audit record says why (``fail_open=False`` raises instead).  ``count_tokens`` and every other attribute
pass through to the wrapped client untouched.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Mapping

from .claude.audit import AuditLog, AuditLogError
from .claude.guard import RollbackGuard
from .claude.metrics import Metrics, metrics_for, serve_metrics
from .claude.request import sendable
from .directives import HEADER
from .engine import Config, annotate
from .errors import LayerZeroError
from .formats import conversation_from_json

__all__ = ["LayerZeroClient", "AsyncLayerZeroClient", "RollbackGuard", "serve_metrics", "AUDIT_VERSION"]

AUDIT_VERSION = 2  # 2: a "request" record written ahead and an "outcome" record after (1: one "call" record)
log = logging.getLogger(__name__)
# Keyword arguments of messages.create that are SDK options, not part of the request body.
_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")


@dataclass
class _Call:
    """One call in flight: what came in, what goes out, and what the record will say."""

    method: str
    send: dict[str, Any]
    record: dict[str, Any]
    t0: float
    t_sent: float = 0.0
    observed: dict[str, Any] = field(default_factory=dict)


class _Core:
    """What the sync and async clients share: pruning, the audit log, metrics and the guard."""

    def __init__(self, *, ratio: float | None, audit_log: Any, registry: Any, guard: Any,
                 env: Mapping[str, str] | None, low_information: bool, fail_open: bool, secrets: list[str],
                 min_effectiveness: float = 1.0) -> None:
        if ratio is not None:
            from .directives import check_ratio
            ratio = check_ratio(ratio, "LayerZeroClient ratio")
        from .engine import check_min_effectiveness
        self.min_effectiveness = check_min_effectiveness(min_effectiveness)
        self.ratio = ratio
        self.env = env
        self.low_information = low_information
        self.fail_open = fail_open
        self.metrics: Metrics = metrics_for(registry)
        self.guard: RollbackGuard | None = RollbackGuard() if guard is True else (guard or None)
        if isinstance(audit_log, AuditLog):
            audit_log.add_secrets(secrets)
            self.audit: AuditLog | None = audit_log
        else:
            self.audit = AuditLog(audit_log, secrets=secrets) if audit_log else None
        self.last_ratio: float | None = ratio

    # ---- before the call -----------------------------------------------------------------------------
    def prepare(self, kwargs: dict[str, Any], method: str) -> _Call:
        t0 = time.perf_counter()
        options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
        body = {k: v for k, v in kwargs.items() if k not in _OPTIONS}
        header = _take_header(options)
        original = _json_copy(body)
        record: dict[str, Any] = {
            "version": AUDIT_VERSION, "event": "request", "call_id": uuid.uuid4().hex, "method": method,
            "time": _now(), "model": original.get("model"), "stream": bool(original.get("stream")) or
            method.endswith(".stream"),
            "original_request": original, "pruned_request": original, "layer_zero_header": header,
            "ratio": None, "ratio_source": None, "enabled": False, "enabled_source": None,
            "tokens": {}, "effectiveness_estimate": None, "timings_ms": {}, "warnings": [], "pruning_error": None,
        }
        send = body
        if "messages" in body:
            try:  # (no GC pause: a library call leaves the process's collector alone; it measured no faster)
                send = self._prune(body, original, header, record)
            except LayerZeroError as exc:
                record["pruning_error"] = f"{type(exc).__name__}: {exc}"
                log.warning("layer-zero pruning failed, sending the request unpruned: %s", exc)
                if not self.fail_open:
                    record["timings_ms"]["prune_total"] = _ms(t0)
                    self._write_after(record, "request")
                    self._write_after(self._outcome(record, "not_sent", error=_error_of(exc)), "outcome")
                    raise
        record["timings_ms"]["prune_total"] = _ms(t0)
        call = _Call(method, {**send, **options}, record, t0)
        self._write_ahead(record)  # on disk before anything is sent, or the call fails here
        call.t_sent = time.perf_counter()
        return call

    def _prune(self, body: dict[str, Any], original: dict[str, Any], header: str | None,
               record: dict[str, Any]) -> dict[str, Any]:
        part = {k: original[k] for k in ("system", "messages") if k in original}
        conv = conversation_from_json(part, "anthropic", name="messages.create")
        if header is not None:
            conv = replace(conv, headers={HEADER: header})
        # every call resends the history: its blocks' token ids come from the cache after the first call
        ann = annotate(conv, Config(ratio=self.ratio, env=self.env, low_information=self.low_information,
                                    token_cache=True))
        result = ann.at_ratio(None, min_effectiveness=self.min_effectiveness)
        settings = ann.settings
        changed = result.tokens_pruned > 0 or result.tokens_directive > 0
        send = {**body, **sendable({k: result.output[k] for k in part})} if changed else body
        record.update(
            pruned_request=_json_copy(send) if changed else original,
            ratio=result.ratio, ratio_source=result.ratio_source, enabled=settings.enabled,
            enabled_source=settings.enabled_source, effectiveness_estimate=result.effectiveness_estimate,
            warnings=list(ann.warnings), profile=settings.profile, profile_rule=settings.profile_rule,
            tokens={"original_estimate": result.tokens_total, "pruned": result.tokens_pruned,
                    "pruned_estimate": result.tokens_total - result.tokens_pruned,
                    "directive": result.tokens_directive},
        )
        record["timings_ms"].update(result.timings_ms)
        self.last_ratio = result.ratio
        self.metrics.observe_call(tokens_pruned=result.tokens_pruned, effectiveness=result.effectiveness_estimate,
                                  context_ms=result.timings_ms["context_preservation"])
        self._watch(result.effectiveness_estimate, "estimate")
        return send

    # ---- after the call ------------------------------------------------------------------------------
    def succeeded(self, call: _Call, response: Any) -> Any:
        """Write the outcome of a ``Message``, or watch a ``Stream`` and write it when it ends; ``response``."""
        if _is_stream(response):
            return self.watch_stream(call, response)
        usage = getattr(response, "usage", None)
        self._write_after(self._outcome(
            call.record, "ok", response_id=getattr(response, "id", None),
            request_id=getattr(response, "_request_id", None), stop_reason=getattr(response, "stop_reason", None),
            tokens=_usage(usage), timings_ms={"api": _ms(call.t_sent)}), "outcome")
        return response

    def failed(self, call: _Call, exc: BaseException, **extra: Any) -> None:
        self._write_after(self._outcome(call.record, "error", error=_error_of(exc),
                                        request_id=getattr(exc, "request_id", None),
                                        timings_ms={"api": _ms(call.t_sent)}, **extra), "outcome")

    def watch_stream(self, call: _Call, stream: Any) -> Any:
        """Make ``stream`` (an SDK ``Stream``/``AsyncStream``, type kept) write the outcome when it ends."""
        headers = getattr(getattr(stream, "response", None), "headers", None) or {}
        tracker = _StreamTracker(self, call, headers.get("request-id"))
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

    # ---- effectiveness and the guard -----------------------------------------------------------------
    def record_effectiveness(self, value: float, source: str) -> None:
        self.metrics.effectiveness.labels(source=source).set(value)
        self._watch(value, source)

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

    # ---- the audit log -------------------------------------------------------------------------------
    def _write_ahead(self, record: dict[str, Any]) -> None:
        """The request record, before sending: if it cannot be written the call fails (nothing was sent)."""
        if self.audit is None:
            return
        try:
            self.audit.write(record)
        except Exception as exc:
            self.metrics.audit_failures.inc()
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


class _Messages:
    """``client.messages`` with pruning in ``create`` and ``stream``; the rest passes through."""

    def __init__(self, core: _Core, messages: Any) -> None:
        self._core = core
        self._messages = messages

    def create(self, **kwargs: Any) -> Any:
        """Prune ``system`` and ``messages``, call the SDK's ``messages.create``, return its ``Message``."""
        return self._call("create", kwargs)

    def stream(self, **kwargs: Any) -> Any:
        """Prune, then the SDK's ``messages.stream`` (its context manager); the record has no response id."""
        return self._call("stream", kwargs)

    def _call(self, method: str, kwargs: dict[str, Any]) -> Any:
        call = self._core.prepare(kwargs, f"messages.{method}")
        try:
            response = getattr(self._messages, method)(**call.send)
        except BaseException as exc:
            self._core.failed(call, exc)
            raise
        if method == "stream":  # a manager: the request goes out on entering it
            return _watch_manager(self._core, call, response)
        return self._core.succeeded(call, response)

    def count_tokens(self, **kwargs: Any) -> Any:
        """The SDK's ``messages.count_tokens``, unchanged."""
        return self._messages.count_tokens(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)


class _AsyncMessages(_Messages):
    async def create(self, **kwargs: Any) -> Any:  # type: ignore[override]
        """Prune (in a worker thread, off the event loop), then ``await`` the SDK's ``messages.create``."""
        call = await asyncio.to_thread(self._core.prepare, kwargs, "messages.create")
        try:
            response = await self._messages.create(**call.send)
        except BaseException as exc:
            self._core.failed(call, exc)
            raise
        return self._core.succeeded(call, response)

    async def count_tokens(self, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self._messages.count_tokens(**kwargs)


class LayerZeroClient:
    """A drop-in wrapper of ``anthropic.Anthropic`` whose ``messages.create`` prunes first.

    ``ratio`` is the explicit prune ratio (None: env, header, directive or default decide); ``audit_log`` a
    JSONL path; ``registry`` a ``prometheus_client.CollectorRegistry`` (default: the global one); ``guard``
    True or a :class:`RollbackGuard` to enable the rollback policy; ``env`` replaces ``os.environ`` for the
    layer-zero variables; ``min_effectiveness`` the floor that bounds the lossy tier (1.0, the default, sends only
    what the safe rules take).
    """

    _messages_class = _Messages

    def __init__(self, client: Any, *, ratio: float | None = None, audit_log: str | os.PathLike[str] | None = None,
                 registry: Any = None, guard: RollbackGuard | bool | None = None,
                 env: Mapping[str, str] | None = None, low_information: bool = True, fail_open: bool = True,
                 min_effectiveness: float = 1.0) -> None:
        secrets = [s for s in (getattr(client, "api_key", None), getattr(client, "auth_token", None))
                   if isinstance(s, str)]
        self._client = client
        self._core = _Core(ratio=ratio, audit_log=audit_log, registry=registry, guard=guard, env=env,
                           low_information=low_information, fail_open=fail_open, secrets=secrets,
                           min_effectiveness=min_effectiveness)
        self.messages = self._messages_class(self._core, client.messages)

    @property
    def ratio(self) -> float | None:
        """The explicit ratio in force (lowered by the guard after a rollback); None: settings decide."""
        return self._core.ratio

    @property
    def metrics(self) -> Metrics:
        return self._core.metrics

    def record_effectiveness(self, value: float, *, source: str = "ab") -> None:
        """Publish a measured effectiveness ratio (e.g. an A/B group's) on the gauge and feed the guard."""
        self._core.record_effectiveness(value, source)

    def with_options(self, **options: Any) -> "LayerZeroClient":
        """The SDK's ``with_options`` (retries, timeout …), still pruning, sharing the audit log and metrics."""
        clone = object.__new__(type(self))
        clone._client = self._client.with_options(**options)
        clone._core = self._core
        clone.messages = self._messages_class(self._core, clone._client.messages)
        return clone

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class AsyncLayerZeroClient(LayerZeroClient):
    """The same for ``anthropic.AsyncAnthropic``: ``await client.messages.create(**kwargs)``."""

    _messages_class = _AsyncMessages


class _StreamTracker:
    """What a stream said so far (message id, usage, stop reason); writes the outcome once, when it ends."""

    def __init__(self, core: _Core, call: _Call, request_id: str | None) -> None:
        self.core, self.call, self.request_id = core, call, request_id
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
        stream = {"end": end, "completed": self.stopped, "events": self.events}
        if note:
            stream["note"] = note
        fields: dict[str, Any] = {"response_id": self.response_id, "request_id": self.request_id,
                                  "stop_reason": self.stop_reason, "tokens": self.tokens,
                                  "timings_ms": {"api": _ms(self.call.t_sent)}, "stream": stream}
        if error is not None:
            fields["error"] = _error_of(error)
        self.core._write_after(self.core._outcome(self.call.record, status, **fields), "outcome")


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


def _watch_manager(core: _Core, call: _Call, manager: Any) -> Any:
    """``messages.stream``'s manager (type kept): a failed request or the stream's end writes the outcome."""
    for name in ("_MessageStreamManager__api_request", "_AsyncMessageStreamManager__api_request"):
        api_request = manager.__dict__.get(name)
        if api_request is None:
            continue
        if callable(api_request):
            def request() -> Any:
                call.t_sent = time.perf_counter()
                try:
                    raw = api_request()
                except BaseException as exc:
                    core.failed(call, exc)
                    raise
                return core.watch_stream(call, raw)
            manager.__dict__[name] = request
        else:  # the async manager holds an awaitable
            async def arequest() -> Any:
                call.t_sent = time.perf_counter()
                try:
                    raw = await api_request
                except BaseException as exc:
                    core.failed(call, exc)
                    raise
                return core.watch_stream(call, raw)
            manager.__dict__[name] = arequest()
        return manager
    core._write_after(core._outcome(call.record, "ok", stream={"end": "unobserved", "note": "unknown manager"}),
                      "outcome")
    return manager


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


def _take_header(options: dict[str, Any]) -> str | None:
    """The ``X-Anthropic-Layer-Zero`` value from ``extra_headers``, removed there (it instructs the pruner)."""
    headers = options.get("extra_headers")
    if not headers:
        return None
    found = None
    kept = {}
    for name, value in dict(headers).items():
        if name.lower() == HEADER:
            found = str(value)
        else:
            kept[name] = value
    options["extra_headers"] = kept
    return found


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
