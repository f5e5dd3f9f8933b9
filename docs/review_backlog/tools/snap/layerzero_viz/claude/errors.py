"""Errors of the Claude-in-the-loop tools, all under the library's ``LayerZeroError``.

    LayerZeroError
     └── ClaudeError               something about talking to Claude went wrong on purpose-checked ground
          ├── NoAPIKeyError        an exact count or A/B run needs ANTHROPIC_API_KEY and it is not set
          └── JudgeError           the judge's reply is not the JSON {"equivalent": bool, "differences": str}

Errors of the API itself (rate limits, timeouts, 5xx after the SDK's retries) stay the SDK's own
``anthropic.APIError`` subclasses, so callers' existing ``except`` clauses keep working.
"""
from __future__ import annotations

from ..errors import LayerZeroError

__all__ = ["ClaudeError", "NoAPIKeyError", "JudgeError"]


class ClaudeError(LayerZeroError):
    """Base class of this package's own errors."""


class NoAPIKeyError(ClaudeError):
    """ANTHROPIC_API_KEY is not set, and the operation cannot be done offline."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} needs Claude: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy or "
                         "gateway); without a key only the offline cl100k estimates are available")


class JudgeError(ClaudeError):
    """The judge answered something other than ``{"equivalent": true|false, "differences": "..."}``."""
