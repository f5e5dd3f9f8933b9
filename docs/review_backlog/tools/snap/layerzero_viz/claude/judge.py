"""The judge: does a reply to the pruned prompt say the same as the reply to the original?

The judge is Claude itself, asked for structured JSON ``{"equivalent": bool, "differences": str}``
(with ``output_config`` JSON schema when ``structured``; the prompt asks for the same JSON either way).

>>> parse_verdict('{"equivalent": false, "differences": "the rate 4.2% is missing"}')
Verdict(equivalent=False, differences='the rate 4.2% is missing')
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import JudgeError

__all__ = ["Verdict", "judge_request", "parse_verdict", "JUDGE_SCHEMA", "JUDGE_SYSTEM"]

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"equivalent": {"type": "boolean"}, "differences": {"type": "string"}},
    "required": ["equivalent", "differences"],
    "additionalProperties": False,
}
JUDGE_SYSTEM = (
    "You judge whether two replies to the same request are equivalent for the person who asked. "
    "Equivalent means the same facts, numbers, identifiers, decisions, constraints honoured, language and "
    "output format; wording, order and politeness may differ. Reply with JSON only: "
    '{"equivalent": true or false, "differences": "what differs that matters, or an empty string"}.'
)
_MAX_TASK_CHARS = 6000
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Verdict:
    equivalent: bool
    differences: str


def judge_request(task: str, reply_a: str, reply_b: str, *, model: str, structured: bool = True) -> dict[str, Any]:
    """The ``messages.create`` arguments asking ``model`` to compare ``reply_a`` (original) and ``reply_b``."""
    if len(task) > _MAX_TASK_CHARS:
        task = task[:_MAX_TASK_CHARS] + " […]"
    user = (f"<request>\n{task}\n</request>\n<reply_a>\n{reply_a}\n</reply_a>\n<reply_b>\n{reply_b}\n</reply_b>\n"
            "Are reply_a and reply_b equivalent answers to the request?")
    body: dict[str, Any] = {"model": model, "max_tokens": 512, "system": JUDGE_SYSTEM,
                            "messages": [{"role": "user", "content": user}]}
    if structured:
        body["output_config"] = {"format": {"type": "json_schema", "schema": JUDGE_SCHEMA}}
    return body


def parse_verdict(text: str) -> Verdict:
    """The verdict in the judge's reply text; JudgeError when it is not the expected JSON."""
    candidates = [text.strip()]
    if m := _OBJECT.search(text):
        candidates.append(m.group(0))
    for candidate in candidates:
        try:
            doc = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("equivalent"), bool):
            differences = doc.get("differences", "")
            return Verdict(doc["equivalent"], differences if isinstance(differences, str) else json.dumps(differences))
    raise JudgeError(f'the judge did not answer {{"equivalent": bool, "differences": str}}: {text[:200]!r}')
