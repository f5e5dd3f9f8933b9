"""Prometheus metrics of pruning in front of Claude, on any ``CollectorRegistry``.

- ``layer_zero_pruned_tokens_total`` (counter): tokens removed before ``messages.create``;
- ``layer_zero_effectiveness_ratio{source}`` (gauge): the latest effectiveness, ``source="estimate"`` from
  the engine per call or ``source="ab"`` from an A/B run;
- ``layer_zero_context_preservation_ms`` (histogram): time spent protecting ``<context>`` per call;
- ``layer_zero_audit_failures_total`` (counter): audit records that could not be written (a request record:
  the call failed before it was sent; an outcome record: the response was returned all the same);
- ``layer_zero_requests_total{endpoint}`` (counter): Messages requests the middleware saw (``endpoint`` =
  ``messages`` or ``count_tokens``; a retry is the same request);
- ``layer_zero_requests_pruned_total{endpoint}`` (counter): those sent with text pruned;
- ``layer_zero_requests_skipped_total{endpoint, reason}`` (counter): those sent without text pruned
  (``reason`` = ``disabled``: nothing switched pruning on; ``unchanged``: on, but nothing to take);
- ``layer_zero_requests_failed_total{kind}`` (counter): failures by kind — ``pruning`` (the engine refused the
  request: sent minus directives, or raised with ``fail_open=False``), ``audit`` (the request record could not
  be written: not sent), ``api_status`` (an attempt answered 4xx/5xx), ``connection`` (an attempt that got no
  response), ``stream`` (a stream that failed midway).

>>> from prometheus_client import CollectorRegistry
>>> registry = CollectorRegistry()
>>> m = metrics_for(registry)
>>> m.pruned_tokens.inc(12); m.effectiveness.labels(source="ab").set(0.98)
>>> registry.get_sample_value("layer_zero_pruned_tokens_total"), metrics_for(registry) is m
(12.0, True)
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server

__all__ = ["Metrics", "metrics_for", "serve_metrics", "EFFECTIVENESS_SOURCES"]

EFFECTIVENESS_SOURCES = ("estimate", "ab")
_BUCKETS_MS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 1000.0)
_LOCK = threading.Lock()
_BY_REGISTRY: "weakref.WeakKeyDictionary[CollectorRegistry, Metrics]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Metrics:
    """The metrics, registered once per registry."""

    pruned_tokens: Counter
    effectiveness: Gauge
    context_preservation: Histogram
    audit_failures: Counter
    requests: Counter
    requests_pruned: Counter
    requests_skipped: Counter
    requests_failed: Counter

    def observe_call(self, *, tokens_pruned: int, effectiveness: float, context_ms: float) -> None:
        """Record one pruned call."""
        self.pruned_tokens.inc(tokens_pruned)
        self.effectiveness.labels(source="estimate").set(effectiveness)
        self.context_preservation.observe(context_ms)


def metrics_for(registry: CollectorRegistry | None = None) -> Metrics:
    """The metrics registered on ``registry`` (default: prometheus_client's global one), created on first use."""
    registry = REGISTRY if registry is None else registry
    with _LOCK:
        found = _BY_REGISTRY.get(registry)
        if found is None:
            found = Metrics(
                Counter("layer_zero_pruned_tokens_total", "Tokens removed by layer-zero pruning before messages.create",
                        registry=registry),
                Gauge("layer_zero_effectiveness_ratio",
                      "Share of replies equivalent to the unpruned ones (ab) or the engine's estimate (estimate)",
                      ["source"], registry=registry),
                Histogram("layer_zero_context_preservation_ms", "Milliseconds spent protecting <context> per call",
                          buckets=_BUCKETS_MS, registry=registry),
                Counter("layer_zero_audit_failures_total",
                        "Audit log records that could not be written (request: call refused; outcome: reported)",
                        registry=registry),
                Counter("layer_zero_requests_total", "Messages requests seen by the layer-zero middleware",
                        ["endpoint"], registry=registry),
                Counter("layer_zero_requests_pruned_total", "Messages requests sent with text pruned",
                        ["endpoint"], registry=registry),
                Counter("layer_zero_requests_skipped_total",
                        "Messages requests sent without text pruned (disabled, or nothing to take)",
                        ["endpoint", "reason"], registry=registry),
                Counter("layer_zero_requests_failed_total",
                        "Failures by kind: pruning, audit, api_status, connection, stream",
                        ["kind"], registry=registry),
            )
            _BY_REGISTRY[registry] = found
        return found


def serve_metrics(port: int, *, addr: str = "127.0.0.1", registry: CollectorRegistry | None = None) -> Any:
    """Serve ``/metrics`` of ``registry`` on ``addr:port`` in a daemon thread; returns the server (``.shutdown()``).

    Pass ``addr="0.0.0.0"`` for a scraper on another host; ``port=0`` picks a free port (``server.server_port``).
    """
    metrics_for(registry)  # the metrics exist (at zero) before the first scrape
    server, _thread = start_http_server(port, addr=addr, registry=REGISTRY if registry is None else registry)
    return server
