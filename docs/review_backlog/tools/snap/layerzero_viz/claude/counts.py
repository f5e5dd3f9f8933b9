"""Exact token counts from Claude next to the offline cl100k estimate.

With ``ANTHROPIC_API_KEY`` set (``ANTHROPIC_BASE_URL`` is honoured by the SDK), the original and the pruned
conversation are counted with ``client.messages.count_tokens``; each count is cached in SQLite per
(model, conversation hash), so showing the same conversation again makes no call.  Without a key nothing
leaves the machine and the figures say they are cl100k estimates.

>>> from layerzero_viz import annotate
>>> counts = TokenCounter(None).counts(annotate("Hello, could you please help me?", env={}).at_ratio(0.5))
>>> counts.source, counts.original is None
('cl100k estimate', True)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

from .request import pruned_request_of, request_of
from .store import Store, digest

__all__ = ["TokenCounts", "TokenCounter", "client_from_env", "has_api_key", "model_from_env",
           "ESTIMATE_LABEL", "EXACT_LABEL", "DEFAULT_MODEL", "ENV_MODEL"]

ESTIMATE_LABEL = "cl100k estimate"
EXACT_LABEL = "Claude count_tokens"
DEFAULT_MODEL = "claude-sonnet-4-6"
ENV_MODEL = "ANTHROPIC_MODEL"
_COUNT_KEYS = ("system", "messages", "tools", "tool_choice", "thinking")


def has_api_key(env: Mapping[str, str] | None = None) -> bool:
    """True when ``ANTHROPIC_API_KEY`` is set to something."""
    env = os.environ if env is None else env
    return bool(env.get("ANTHROPIC_API_KEY", "").strip())


def model_from_env(env: Mapping[str, str] | None = None) -> str:
    """The model to count with: ``$ANTHROPIC_MODEL`` or :data:`DEFAULT_MODEL`."""
    env = os.environ if env is None else env
    return env.get(ENV_MODEL, "").strip() or DEFAULT_MODEL


def client_from_env(env: Mapping[str, str] | None = None, **options: Any):
    """An ``anthropic.Anthropic`` built from ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``, or None without a key.

    ``options`` go to the constructor (``max_retries``, ``timeout`` …).
    """
    env = os.environ if env is None else env
    if not has_api_key(env):
        return None
    import anthropic

    base_url = env.get("ANTHROPIC_BASE_URL", "").strip() or None
    return anthropic.Anthropic(api_key=env["ANTHROPIC_API_KEY"].strip(), base_url=base_url, **options)


@dataclass(frozen=True)
class TokenCounts:
    """Tokens of the original and pruned conversation: exact (None offline) and the cl100k estimate.

    ``source`` is :data:`EXACT_LABEL` when the exact figures are there, else :data:`ESTIMATE_LABEL`;
    ``error`` says why an exact count failed (the estimate is still there).
    """

    original_estimate: int
    pruned_estimate: int
    original: int | None = None
    pruned: int | None = None
    model: str | None = None
    source: str = ESTIMATE_LABEL
    cached: bool = False
    error: str | None = None

    @property
    def exact(self) -> bool:
        return self.original is not None and self.pruned is not None

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "model": self.model, "original": self.original, "pruned": self.pruned,
                "original_estimate": self.original_estimate, "pruned_estimate": self.pruned_estimate,
                "estimate_label": ESTIMATE_LABEL, "cached": self.cached, "error": self.error}


class TokenCounter:
    """Counts requests with ``client.messages.count_tokens`` (None: offline), caching per (model, hash)."""

    def __init__(self, client: Any, *, model: str | None = None, store: Store | None = None) -> None:
        self.client = client
        self.model = model or model_from_env()
        self.store = store if store is not None or client is None else Store()
        self.calls = 0  # count_tokens calls actually made (cache misses)

    def count(self, request: Mapping[str, Any]) -> tuple[int, bool]:
        """(input tokens of ``request``, whether it came from the cache); needs a client."""
        if self.client is None:
            from .errors import NoAPIKeyError
            raise NoAPIKeyError("an exact token count")
        body = {k: request[k] for k in _COUNT_KEYS if k in request}
        key = digest({"model": self.model, "request": body})
        hit = self.store.get("count", key) if self.store is not None else None
        if hit is not None:
            return int(hit["input_tokens"]), True
        response = self.client.messages.count_tokens(model=self.model, **body)
        self.calls += 1
        if self.store is not None:
            self.store.put("count", key, {"input_tokens": response.input_tokens, "model": self.model})
        return int(response.input_tokens), False

    def counts(self, result: Any) -> TokenCounts:
        """Exact and estimated counts for a PruneResult; offline, or on an API error, only the estimate."""
        estimate = TokenCounts(original_estimate=result.tokens_total,
                               pruned_estimate=result.tokens_total - result.tokens_pruned)
        if self.client is None:
            return estimate
        import anthropic

        from ..errors import LayerZeroError
        try:
            original, hit_a = self.count(request_of(result.annotated.conversation))
            pruned, hit_b = self.count(pruned_request_of(result))
        except (anthropic.APIError, LayerZeroError) as exc:
            return TokenCounts(estimate.original_estimate, estimate.pruned_estimate, model=self.model,
                               error=f"{type(exc).__name__}: {exc}")
        return TokenCounts(estimate.original_estimate, estimate.pruned_estimate, original, pruned, self.model,
                           EXACT_LABEL, hit_a and hit_b)
