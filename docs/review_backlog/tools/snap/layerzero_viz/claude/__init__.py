"""Claude in the loop: exact token counts, A/B effectiveness, and the pieces of the pruning client.

    counts.py    TokenCounter: count_tokens for original and pruned, cached per (model, conversation hash)
    ab.py        ABRunner: groups A (unpruned) / B (global ratio) / C (per-row ratio), judged by Claude
    judge.py     the judge prompt and its JSON verdict
    request.py   conversations (any input format) as Messages API requests
    store.py     the SQLite cache (.layerzero/cache.db) that makes reruns free and runs resumable
    audit.py     the JSONL audit log of LayerZeroClient (flushed and fsync'd per record, secrets redacted)
    metrics.py   the Prometheus metrics and serve_metrics
    guard.py     the rollback policy (effectiveness < 0.975 over a window → ratio − 0.03)
    errors.py    ClaudeError ▸ NoAPIKeyError · JudgeError

The client itself is ``layerzero_viz.anthropic.LayerZeroClient``.  Nothing here calls the network unless
given a client, and ``client_from_env`` gives one only when ``ANTHROPIC_API_KEY`` is set.
"""
# This is the public API of layerzero_viz.claude.
from .ab import GROUPS, ABReport, ABRunner, GroupSummary, Outcome, Prices, Row, read_rows, rows_of
from .audit import AuditLog, AuditLogError, read_audit
from .counts import ESTIMATE_LABEL, EXACT_LABEL, TokenCounter, TokenCounts, client_from_env, has_api_key
from .errors import ClaudeError, JudgeError, NoAPIKeyError
from .guard import Rollback, RollbackGuard
from .metrics import Metrics, metrics_for, serve_metrics
from .request import pruned_request_of, request_of
from .store import Store

__all__ = [
    "ABReport", "ABRunner", "AuditLog", "AuditLogError", "ClaudeError", "ESTIMATE_LABEL", "EXACT_LABEL", "GROUPS", "GroupSummary",
    "JudgeError", "Metrics", "NoAPIKeyError", "Outcome", "Prices", "Rollback", "RollbackGuard", "Row", "Store",
    "TokenCounter", "TokenCounts", "client_from_env", "has_api_key", "metrics_for", "pruned_request_of",
    "read_audit", "read_rows", "request_of", "rows_of", "serve_metrics",
]
