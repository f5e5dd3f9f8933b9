"""A/B effectiveness: does Claude answer the pruned prompt as it answers the original?

Every row (a conversation) runs in three groups:

- **A** unpruned — a second, independent reply to the original prompt: the noise floor of model and judge;
- **B** one global ratio for every row;
- **C** the ratio each row should get: the detected domain profile's limit (:func:`domain_limit`, from
  :mod:`layerzero_viz.profile`), else the row's own ``"ratio"`` field, else the global ratio — each outcome says which.

For each group the reply is judged against the reply to the original (see :mod:`.judge`). The group's
effectiveness ratio is equivalent / judged rows, reported with the input tokens Claude counted, cost and latency.

Rows run concurrently (``concurrency`` at a time); the SDK retries 429 and 5xx (``max_retries`` on the client);
every reply and verdict is cached in SQLite as soon as it arrives, so a rerun costs nothing and an interrupted
or failed run resumes where it stopped.
"""
from __future__ import annotations

import re
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ..directives import DEFAULT_RATIO, check_ratio
from ..engine import Config, annotate
from ..errors import InputError, LayerZeroError
from ..formats import iter_conversations
from ..model import Conversation
from ..profile import conversation_text, detect_domain, limit_for, load_profiles
from .judge import Verdict, judge_request, parse_verdict
from .request import last_user_text, pruned_request_of, request_of
from .store import Store, digest

__all__ = ["GROUPS", "GROUP_LABELS", "Row", "Prices", "Outcome", "GroupSummary", "ABReport", "ABRunner",
           "read_rows", "rows_of", "prices_for", "domain_limit", "LIST_PRICES"]

GROUPS = ("A", "B", "C")
GROUP_LABELS = {"A": "unpruned (second reply to the original)", "B": "global ratio", "C": "per-row ratio"}
# USD per million input / output tokens, list prices when written; pass Prices(...) for anything else.
LIST_PRICES: Mapping[str, tuple[float, float]] = {
    "claude-opus-4-6": (5.0, 25.0), "claude-sonnet-4-6": (3.0, 15.0),
    "claude-opus-4-5": (5.0, 25.0), "claude-sonnet-4-5": (3.0, 15.0), "claude-haiku-4-5": (1.0, 5.0),
    "claude-opus-4-1": (15.0, 75.0), "claude-opus-4-0": (15.0, 75.0), "claude-sonnet-4-0": (3.0, 15.0),
}
_DATE_SUFFIX = re.compile(r"-\d{8}$")


@dataclass(frozen=True)
class Row:
    """One conversation to test; ``ratio`` is its own ``"ratio"`` field (None when absent)."""

    id: str
    line: int
    conversation: Conversation
    ratio: float | None = None


@dataclass(frozen=True)
class Prices:
    """USD per million tokens; ``source`` says where the figures come from."""

    input_per_mtok: float
    output_per_mtok: float
    source: str = "given"

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


@dataclass(frozen=True)
class Outcome:
    """One row in one group: what was sent, what came back, and the verdict (or the error)."""

    row: str
    line: int
    group: str
    ratio: float
    ratio_source: str  # A: "unpruned"; B: "global"; C: "profile", "row" or "global"
    tokens_estimate: int  # cl100k tokens of the prompt sent
    tokens_pruned: int
    input_tokens: int | None = None  # as counted by Claude (usage.input_tokens)
    output_tokens: int | None = None
    latency_ms: float | None = None
    cost_usd: float | None = None
    equivalent: bool | None = None
    differences: str = ""
    error: str | None = None
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GroupSummary:
    """A group's totals: ``n`` judged rows (errors apart), ``effectiveness_ratio`` = equivalent / n."""

    group: str
    n: int
    equivalent: int
    effectiveness_ratio: float | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_ms: float | None  # mean per reply
    errors: int

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "group"} | {"label": GROUP_LABELS[self.group]}


@dataclass(frozen=True)
class ABReport:
    """Every outcome of a run plus how it was run; :meth:`summary` is the CLI's JSON."""

    outcomes: tuple[Outcome, ...]
    model: str
    judge_model: str
    ratio: float
    rows: int
    c_note: str
    calls: int = 0  # API calls made by this run (cache misses)
    cache_hits: int = 0
    prices: Prices | None = None

    @property
    def errors(self) -> int:
        return sum(o.error is not None for o in self.outcomes)

    def groups(self) -> dict[str, GroupSummary]:
        out = {}
        for g in GROUPS:
            mine = [o for o in self.outcomes if o.group == g]
            ok = [o for o in mine if o.error is None]
            equivalent = sum(bool(o.equivalent) for o in ok)
            costs = [o.cost_usd for o in ok]
            latencies = [o.latency_ms for o in ok if o.latency_ms is not None]
            out[g] = GroupSummary(
                group=g, n=len(ok), equivalent=equivalent,
                effectiveness_ratio=equivalent / len(ok) if ok else None,
                input_tokens=sum(o.input_tokens or 0 for o in ok), output_tokens=sum(o.output_tokens or 0 for o in ok),
                cost_usd=sum(costs) if ok and all(c is not None for c in costs) else None,  # type: ignore[arg-type]
                latency_ms=statistics.fmean(latencies) if latencies else None, errors=len(mine) - len(ok))
        return out

    def summary(self) -> dict[str, Any]:
        """``{"A": {...}, "B": {...}, "C": {...}, "run": {...}}``: one entry per group, then the run's settings."""
        out: dict[str, Any] = {g: s.to_dict() for g, s in self.groups().items()}
        c_sources: dict[str, int] = {}
        for o in self.outcomes:
            if o.group == "C":
                c_sources[o.ratio_source] = c_sources.get(o.ratio_source, 0) + 1
        out["run"] = {
            "model": self.model, "judge_model": self.judge_model, "ratio": self.ratio, "rows": self.rows,
            "errors": self.errors, "api_calls": self.calls, "cache_hits": self.cache_hits,
            "c_ratio_sources": c_sources, "c_ratio_note": self.c_note,
            "prices": asdict(self.prices) if self.prices else None,
        }
        return out

    def to_dict(self) -> dict[str, Any]:
        """The whole run (summary and outcomes), as saved by ``ab --out`` and loaded by the app."""
        return {"log_type": "layer_zero_ab", "version": 1, "summary": self.summary(),
                "outcomes": [o.to_dict() for o in self.outcomes]}

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "ABReport":
        """The report saved by :meth:`to_dict`; InputError when ``doc`` is not one."""
        if not isinstance(doc, Mapping) or doc.get("log_type") != "layer_zero_ab" or "outcomes" not in doc:
            raise InputError("not an A/B results file", location="results",
                             hint="save one with: python -m layerzero_viz ab RUNS.jsonl --out results.json")
        run = doc.get("summary", {}).get("run", {})
        prices = run.get("prices")
        try:
            outcomes = tuple(Outcome(**o) for o in doc["outcomes"])
        except TypeError as exc:
            raise InputError(f"an outcome has unexpected fields ({exc})", location="results.outcomes") from None
        return cls(outcomes=outcomes, model=run.get("model", ""), judge_model=run.get("judge_model", ""),
                   ratio=float(run.get("ratio", DEFAULT_RATIO)), rows=int(run.get("rows", 0)),
                   c_note=run.get("c_ratio_note", ""), calls=int(run.get("api_calls", 0)),
                   cache_hits=int(run.get("cache_hits", 0)), prices=Prices(**prices) if prices else None)


def read_rows(source: Any) -> list[Row]:
    """The rows of a JSONL file (or any input :func:`~layerzero_viz.iter_conversations` reads).

    A row may carry ``"id"`` and ``"ratio"`` next to its conversation fields.
    """
    rows = []
    for line, conv in iter_conversations(source):
        if isinstance(conv, InputError):
            raise conv
        raw = conv.raw if isinstance(conv.raw, dict) else {}
        ratio = raw.get("ratio")
        ratio = None if ratio is None else check_ratio(ratio, f"{conv.source_name}:{line}: field ratio")
        rows.append(Row(str(raw.get("id", f"line {line}")), line, conv, ratio))
    return rows


def rows_of(conv: Conversation, *, ratio: float | None = None) -> list[Row]:
    """A one-row run over a loaded conversation."""
    return [Row(conv.source_name, conv.jsonl_line or 1, conv, ratio)]


def prices_for(model: str) -> Prices | None:
    """List prices of ``model`` (dated ids included) from :data:`LIST_PRICES`, or None when unknown."""
    base = _DATE_SUFFIX.sub("", model)
    found = LIST_PRICES.get(base) or LIST_PRICES.get(base + "-0")
    return Prices(*found, source=f"list price of {base}") if found else None


def domain_limit(conv: Conversation) -> float | None:
    """The ratio the detected domain's profile allows (its ceiling, or a fired rule's cap); None: no domain."""
    catalogue = load_profiles()
    guess = detect_domain(conv, catalogue)
    if guess is None:
        return None
    return limit_for(catalogue[guess.name], conversation_text(conv))[0]


def _as_ratio(value: Any) -> float | None:
    """A recommendation as a ratio: a number, or an object/mapping with ``ratio`` (or ``max_ratio``)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return check_ratio(value, "profile recommendation")
    for name in ("ratio", "max_ratio", "recommended_ratio"):
        got = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
        if got is not None:
            return _as_ratio(got)
    return None


@dataclass
class _Call:
    text: str
    input_tokens: int
    output_tokens: int
    latency_ms: float
    id: str
    cached: bool = False


@dataclass
class _Counters:
    calls: int = 0
    hits: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, cached: bool) -> None:
        with self.lock:
            if cached:
                self.hits += 1
            else:
                self.calls += 1


class ABRunner:
    """Runs rows through groups A, B and C against ``client`` (an ``anthropic.Anthropic``).

    Retries are the client's (``anthropic.Anthropic(max_retries=…)`` or ``client.with_options``).
    """

    def __init__(self, client: Any, *, model: str, ratio: float = DEFAULT_RATIO, judge_model: str | None = None,
                 store: Store | None = None, concurrency: int = 4, max_tokens: int = 1024,
                 prices: Prices | None = None, structured_judge: bool = True,
                 recommender: Callable[[Conversation], Any] | None = domain_limit, low_information: bool = True) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        self.client = client
        self.model = model
        self.ratio = check_ratio(ratio, "ratio")
        self.judge_model = judge_model or model
        self.store = store if store is not None else Store()
        self.concurrency = concurrency
        self.max_tokens = max_tokens
        self.prices = prices if prices is not None else prices_for(model)
        self.structured_judge = structured_judge
        self.recommender = recommender
        self.low_information = low_information
        self._counters = _Counters()

    @property
    def c_note(self) -> str:
        if self.recommender is domain_limit:
            return ("C uses the detected domain profile's limit (ceiling or fired rule) where a "
                    "domain is detected, else the row's ratio, else the global ratio")
        if self.recommender is not None:
            name = getattr(self.recommender, "__qualname__", repr(self.recommender))
            return f"C uses the profile recommendation ({name}) where it gives one, else the row's ratio, else the global ratio"
        return "C uses each row's \"ratio\" field, else the global ratio"

    def run(self, rows: Iterable[Row], *, on_outcome: Callable[[Row, list[Outcome]], None] | None = None) -> ABReport:
        """Run every row; a row that fails is reported with its error, the others go on.

        ``on_outcome(row, outcomes)`` is called (in this thread) as each row finishes; an exception from it
        (e.g. KeyboardInterrupt) stops the run — calls in flight finish and are cached, the rest are cancelled.
        """
        rows = list(rows)
        self._counters = _Counters()
        done: dict[int, list[Outcome]] = {}
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="layerzero-ab") as pool:
            futures = {pool.submit(self._row, row): k for k, row in enumerate(rows)}
            try:
                for fut in as_completed(futures):
                    k = futures[fut]
                    done[k] = fut.result()
                    if on_outcome is not None:
                        on_outcome(rows[k], done[k])
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        outcomes = tuple(o for k in sorted(done) for o in done[k])
        return ABReport(outcomes, self.model, self.judge_model, self.ratio, len(rows), self.c_note,
                        self._counters.calls, self._counters.hits, self.prices)

    # ---- one row -------------------------------------------------------------------------------------
    def _row(self, row: Row) -> list[Outcome]:
        try:
            plans = self._plans(row)
        except LayerZeroError as exc:
            return [Outcome(row.id, row.line, g, 0.0, "", 0, 0, error=str(exc)) for g in GROUPS]
        original = plans[0][3]
        try:
            reference = self._reply(original, sample=0)
        except Exception as exc:  # noqa: BLE001 - any failure is this row's error, the run goes on
            why = f"reply to the original prompt failed: {_describe(exc)}"
            return [Outcome(row.id, row.line, g, r, src, est, pr, error=why) for g, r, src, _, _, est, pr in plans]
        task = last_user_text(original)
        out = []
        for group, ratio, source, request, sample, estimate, pruned in plans:
            base = dict(row=row.id, line=row.line, group=group, ratio=ratio, ratio_source=source,
                        tokens_estimate=estimate, tokens_pruned=pruned)
            try:
                call = self._reply(request, sample=sample)
                verdict, judged_from_cache = self._judge(task, reference.text, call.text)
            except Exception as exc:  # noqa: BLE001
                out.append(Outcome(**base, error=_describe(exc)))
                continue
            cost = self.prices.cost(call.input_tokens, call.output_tokens) if self.prices else None
            out.append(Outcome(**base, input_tokens=call.input_tokens, output_tokens=call.output_tokens,
                               latency_ms=call.latency_ms, cost_usd=cost, equivalent=verdict.equivalent,
                               differences=verdict.differences, cached=call.cached and judged_from_cache))
        return out

    def _plans(self, row: Row) -> list[tuple[str, float, str, dict, int, int, int]]:
        """(group, ratio, ratio source, request, reply sample, cl100k tokens sent, tokens pruned) per group."""
        ann = annotate(row.conversation, Config(enabled=True, env={}, low_information=self.low_information))
        original = request_of(row.conversation)
        b = ann.at_ratio(self.ratio)
        c_ratio, c_source = self._c_ratio(row)
        c = ann.at_ratio(c_ratio)
        return [
            ("A", 0.0, "unpruned", original, 1, ann.tokens_total, 0),
            ("B", b.ratio, "global" if b.ratio_source == "argument" else b.ratio_source, pruned_request_of(b), 0,
             b.tokens_total - b.tokens_pruned, b.tokens_pruned),
            ("C", c.ratio, c_source if c.ratio_source == "argument" else c.ratio_source, pruned_request_of(c), 0,
             c.tokens_total - c.tokens_pruned, c.tokens_pruned),
        ]

    def _c_ratio(self, row: Row) -> tuple[float, str]:
        if self.recommender is not None:
            try:
                recommended = _as_ratio(self.recommender(row.conversation))
            except LayerZeroError:
                recommended = None
            if recommended is not None:
                return recommended, "profile"
        if row.ratio is not None:
            return row.ratio, "row"
        return self.ratio, "global"

    # ---- calls, each cached as soon as it returns ------------------------------------------------
    def _reply(self, request: dict[str, Any], *, sample: int) -> _Call:
        body = {"model": self.model, "max_tokens": self.max_tokens, **request}
        key = digest({"body": body, "sample": sample})
        hit = self.store.get("reply", key)
        if hit is not None:
            self._counters.add(True)
            return _Call(**hit, cached=True)
        t0 = time.perf_counter()
        message = self.client.messages.create(**body)
        latency = (time.perf_counter() - t0) * 1000.0
        self._counters.add(False)
        call = _Call(text=_text_of(message), input_tokens=message.usage.input_tokens,
                     output_tokens=message.usage.output_tokens, latency_ms=latency, id=message.id)
        self.store.put("reply", key, {k: v for k, v in asdict(call).items() if k != "cached"})
        return call

    def _judge(self, task: str, reply_a: str, reply_b: str) -> tuple[Verdict, bool]:
        if reply_a.strip() == reply_b.strip():
            return Verdict(True, ""), True  # identical replies need no judge
        body = judge_request(task, reply_a, reply_b, model=self.judge_model, structured=self.structured_judge)
        key = digest(body)
        hit = self.store.get("judge", key)
        if hit is not None:
            self._counters.add(True)
            return Verdict(**hit), True
        verdict = parse_verdict(_text_of(self.client.messages.create(**body)))
        self._counters.add(False)
        self.store.put("judge", key, asdict(verdict))
        return verdict, False


def _text_of(message: Any) -> str:
    return "".join(getattr(b, "text", "") for b in message.content if getattr(b, "type", None) == "text")


def _describe(exc: BaseException) -> str:
    """One line that says what failed and what to do: rerun resumes from the cache."""
    import anthropic

    name = type(exc).__name__
    if isinstance(exc, anthropic.APITimeoutError):
        return f"Claude did not answer in time ({name}, after the SDK's retries); rerun to resume"
    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        detail = error.get("message") or exc.message
        return f"HTTP {exc.status_code} {error.get('type', name)}: {detail}; rerun to resume"
    if isinstance(exc, anthropic.APIConnectionError):
        return f"cannot reach Claude ({name}: {exc}); rerun to resume"
    return f"{name}: {exc}"
