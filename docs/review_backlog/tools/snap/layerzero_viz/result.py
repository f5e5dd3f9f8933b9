"""``PruneResult``: the decisions at one ratio, the pruned conversation, metrics and the JSON contract."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import cached_property
from json.encoder import encode_basestring
from typing import IO, TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

if TYPE_CHECKING:
    from .engine import Annotated

__all__ = ["PruneResult", "MessageResult", "RESULT_VERSION", "reconstruct"]

RESULT_VERSION = 2  # 2: metrics name the estimate by its seed metric, layer_zero_effectiveness_ratio
#: the keys of a record of the ``tokens`` list, in the contract's order
TOKEN_KEYS = ("message", "block", "i", "id", "text", "start", "end", "decision", "reason", "detail", "score", "tier",
              "loss")
_CLAUSE_PUNCT = "，,、；;：:"
_END_PUNCT = "。.!！?？"
_OPENERS = "（(“\"「『《"
_FULL_WIDTH_PUNCT = "。！？，、；："


def _objects(values: Sequence[Any]) -> np.ndarray:
    """``values`` as a 1-d numpy array of Python objects (a table to gather from by index)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


_TIERS = _objects([None, "safe", "lossy"])  # PruneResult._tier_and_loss's codes
# JSON text the token records share: a decision by ``PruneResult.token_prune``, a tier by its code, the keys
# between a token's text and its offsets
_DECISIONS = ('"keep"', '"prune"')
_TIERS_JSON = ("null", '"safe"', '"lossy"')
_START, _END = [', "start": '], [', "end": ']


@dataclass(frozen=True)
class _TokenLabels:
    """Per token, indices into tables: ``reasons[reason[t]]``, ``details[detail[t]]``; and ``score``, ``span``."""

    reason: np.ndarray
    detail: np.ndarray
    reasons: np.ndarray
    details: np.ndarray
    score: np.ndarray
    span: np.ndarray


@dataclass(frozen=True)
class MessageResult:
    """One message before and after: text blocks joined with a blank line."""

    message: Any
    role: str
    original: str
    pruned: str
    tokens_before: int
    tokens_after: int


# the token table's columns (``PruneResult.token_table``), as an empty table has them too
_TOKEN_TABLE_DTYPES = {"message": "object", "role": "object", "block": "int64", "i": "int64", "id": "int64",
                       "text": "object", "start": "int64", "end": "int64", "decision": "object", "reason": "object",
                       "detail": "object", "score": "float64", "tier": "object", "loss": "float64", "span": "int64",
                       "group": "int64"}


class PruneResult:
    """Decisions for every token at ``ratio``; outputs are built lazily on first access."""

    def __init__(self, annotated: Annotated, ratio: float, ratio_source: str, chosen: np.ndarray, select_ms: float, *,
                 min_effectiveness: float = 1.0, lossy_chosen: np.ndarray | None = None) -> None:
        self.annotated = annotated
        self.ratio = ratio
        self.ratio_source = ratio_source
        self.chosen = chosen
        self.min_effectiveness = min_effectiveness
        # which words of ``annotated.lossy`` go (an empty mask: the lossy tier was not consulted)
        self.lossy_chosen = lossy_chosen if lossy_chosen is not None else np.zeros(0, dtype=bool)
        a = annotated
        self.tokens_total = a.tokens_total
        self.tokens_directive = a.tokens_directive
        self.tokens_safe = int(a.span_cost[chosen].sum()) if len(chosen) else 0
        self.tokens_lossy = int(a.lossy.cost[self.lossy_chosen].sum()) if self.lossy_chosen.any() else 0
        self.tokens_pruned = self.tokens_safe + self.tokens_lossy
        loss = float(a.span_loss[chosen].sum()) if len(chosen) else 0.0
        if self.tokens_lossy:
            loss += float(a.lossy.loss[self.lossy_chosen].sum())
        self.effectiveness_estimate = 1.0 - loss / a.info_total if a.info_total > 0 else 1.0
        self._select_ms = select_ms
        self._reconstruct_ms: float | None = None

    @property
    def safe_frontier(self) -> float:
        """The largest ratio that prunes only safe-tier tokens (see ``Annotated.safe_frontier``)."""
        return self.annotated.safe_frontier

    @cached_property
    def stopped_by(self) -> str:
        """What ended selection: ``ratio`` (the budget is spent), ``floor`` (the effectiveness floor kept the
        lossy tier from taking more; under the lossless default, whenever budget is left), or ``candidates``
        (below a floor of 1: nothing left that either tier may take)."""
        a = self.annotated
        if not a.settings.enabled:
            return "candidates"
        if len(self.chosen) and not self.chosen.all():
            return "ratio"  # a safe-tier span does not fit the budget yet
        from .select import NEVER
        if self.min_effectiveness >= 1.0:
            # lossless: budget left over is the floor's doing (the lossy tier is not built just to say so: it
            # costs a segmentation of the whole conversation, and the default path never needs it)
            return "ratio" if self.budget <= self.tokens_pruned else "floor"
        _, word_entry = a.entry_points(self.min_effectiveness)
        waiting = word_entry[~self.lossy_chosen] if len(self.lossy_chosen) else word_entry
        if not len(waiting):
            return "candidates"
        # a word that a higher ratio would take: the budget stops it; one that no ratio takes: the floor
        return "ratio" if (waiting < NEVER).any() else "floor"

    # ---- per-token decisions -------------------------------------------------------------------
    @cached_property
    def token_prune(self) -> np.ndarray:
        """Boolean per token: removed from the output (pruned tokens and engine directives)."""
        a = self.annotated
        tok_span = a.g_span[a.tok_group] if len(a.tok_group) else np.zeros(0, dtype=np.int64)
        pruned = np.zeros(len(tok_span), dtype=bool)
        has = tok_span >= 0
        pruned[has] = self.chosen[tok_span[has]]
        if self.tokens_lossy:
            pruned |= self._lossy_groups[a.tok_group]
        if not a.config.keep_directives:
            pruned |= a.tok_directive
        return pruned

    @cached_property
    def _lossy_word_of_group(self) -> np.ndarray:
        """Per display group: the index (in selection order) of the lossy word it belongs to, else -1."""
        a = self.annotated
        out = np.full(len(a.g_start), -1, dtype=np.int64)
        lossy = a.lossy
        for k in np.flatnonzero(self.lossy_chosen).tolist():
            out[lossy.group_first[k]:lossy.group_last[k] + 1] = k
        return out

    @property
    def _lossy_groups(self) -> np.ndarray:
        return self._lossy_word_of_group >= 0

    @cached_property
    def _labels(self) -> _TokenLabels:
        """Per token: its reason and detail as indices into tables, its score and span.

        Built per group and span, then gathered per token: a detail is one string shared by every token of its
        span or protection, formatted once (a long prompt has hundreds of thousands of tokens and far fewer
        details).
        """
        from .protect import PRECEDENCE

        a = self.annotated
        reasons: list[str] = ["content", *PRECEDENCE]  # a group's protection code indexes this directly
        details: list[str] = ["ordinary content"]
        reason_code = {r: k for k, r in enumerate(reasons)}
        detail_code: dict[str, int] = {}

        def code_of(table: list[str], codes: dict[str, int], text: str) -> int:
            k = codes.get(text)
            if k is None:
                k = codes[text] = len(table)
                table.append(text)
            return k

        # per group: protection / veto first, spans override them, then the lossy tier
        g_reason = a.g_prot.astype(np.int64)
        g_detail = np.zeros(len(a.g_start), dtype=np.int64)
        protected = np.flatnonzero(a.g_prot)
        if len(protected):
            used, which = np.unique(a.g_prot_iv[protected], return_inverse=True)
            g_detail[protected] = len(details) + which
            details += [a.protection.detail(int(k)) for k in used.tolist()]
        for g, text in a.g_veto.items():
            if not a.g_prot[g]:
                g_detail[g] = code_of(details, detail_code, text)
        g_score = np.zeros(len(a.g_start))
        in_span = a.g_span >= 0
        if in_span.any():
            spans = a.spans
            sid = a.g_span[in_span]
            over = f" but the budget of {self.budget} tokens was spent"
            over_budget = code_of(reasons, reason_code, "over_budget")
            s_reason = np.array([code_of(reasons, reason_code, r) for r in spans.reasons], dtype=np.int64)
            s_reason[~self.chosen] = over_budget
            s_detail = np.arange(len(details), len(details) + len(spans), dtype=np.int64)
            details += [spans.detail(k) if c else f"would be {spans.reasons[k]} ({spans.detail(k)}){over}"
                        for k, c in enumerate(self.chosen.tolist())]
            g_reason[in_span] = s_reason[sid]
            g_detail[in_span] = s_detail[sid]
            g_score[in_span] = np.asarray(spans.scores, dtype=np.float64)[sid]
        if self.tokens_lossy:
            lossy = a.lossy
            word_of = self._lossy_word_of_group
            in_word = word_of >= 0
            chosen = np.flatnonzero(self.lossy_chosen)
            first = len(details)
            details += [f"lossy tier: {lossy.words[k]!r} ≈ {lossy.loss[k]:.1f} bits of estimated information "
                        f"(word frequencies), taken while the estimate stays ≥ {self.min_effectiveness:g}"
                        for k in chosen.tolist()]
            g_reason[in_word] = code_of(reasons, reason_code, "lossy")
            g_detail[in_word] = first + np.searchsorted(chosen, word_of[in_word])
        # per token
        reason = g_reason[a.tok_group]
        detail = g_detail[a.tok_group]
        if not a.settings.enabled:
            reason[:] = code_of(reasons, reason_code, "disabled")
            detail[:] = code_of(details, detail_code, f"layer-zero disabled by {a.settings.enabled_source}")
        reason[a.tok_directive] = code_of(reasons, reason_code, "directive")
        detail[a.tok_directive] = code_of(details, detail_code, "engine directive: instructs the pruner, not the model")
        score = np.where(a.tok_directive, 0.0, g_score[a.tok_group])
        span = np.where(a.tok_directive, -1, a.g_span[a.tok_group])
        return _TokenLabels(reason, detail, _objects(reasons), _objects(details), score, span)

    @cached_property
    def _token_columns(self) -> tuple[list[str], list[str], list[float], list[int]]:
        """(reason, detail, score, span) per token."""
        if not len(self.annotated.tok_ids):
            return [], [], [], []
        lab = self._labels
        return (lab.reasons[lab.reason].tolist(), lab.details[lab.detail].tolist(), lab.score.tolist(),
                lab.span.tolist())

    def token_reasons(self) -> tuple[list[str], list[str], list[float], list[int]]:
        """(reason, detail, score, span) per token."""
        return self._token_columns

    @property
    def budget(self) -> int:
        from .select import budget_for
        return budget_for(self.ratio, self.tokens_total)

    # ---- reconstruction --------------------------------------------------------------------------
    def _cuts(self) -> list[tuple[list[tuple[int, int]], list[tuple[int, int]]] | None]:
        """Per text block, None when nothing of it goes, else the (removed, protected) ranges reconstruction
        gets (block offsets)."""
        a = self.annotated
        text = a.view.text
        blocks = a.view.blocks
        removed_by_block = _ranges_by_block(self.token_prune, a.tok_block, a.tok_start, a.tok_end, len(blocks))
        if not any(removed_by_block):
            return [None] * len(blocks)
        g_prot = np.flatnonzero(a.g_prot)
        g_block = np.searchsorted(np.asarray(a.view.block_starts, dtype=np.int64), a.g_start[g_prot], "right") - 1
        protected_by_block = _ranges_by_block(np.ones(len(g_prot), dtype=bool), g_block,
                                              a.g_start[g_prot], a.g_end[g_prot], len(blocks))
        return [([(s - b.start, e - b.start) for s, e in removed_by_block[k]],
                 [_trimmed(text, s, e, b.start) for s, e in protected_by_block[k]]) if removed_by_block[k] else None
                for k, b in enumerate(blocks)]

    @cached_property
    def block_texts(self) -> list[str]:
        """Pruned text of every text block, in view order."""
        t0 = time.perf_counter()
        a = self.annotated
        text = a.view.text
        out = []
        for b, cut in zip(a.view.blocks, self._cuts()):
            block_text = text[b.start:b.end]
            out.append(block_text if cut is None else reconstruct(block_text, *cut))
        self._reconstruct_ms = (time.perf_counter() - t0) * 1000.0
        return out

    @cached_property
    def messages(self) -> list[MessageResult]:
        a = self.annotated
        texts = self.block_texts
        by_msg: dict[int, list[int]] = {}
        for k, b in enumerate(a.view.blocks):
            by_msg.setdefault(b.msg_pos, []).append(k)
        # (a conversation of empty texts has blocks but no tokens)
        counts_before = np.bincount(a.tok_block[~a.tok_directive].astype(np.int64), minlength=len(a.view.blocks))
        counts_after = np.bincount(a.tok_block[~self.token_prune].astype(np.int64), minlength=len(a.view.blocks))
        out = []
        for pos, msg in enumerate(a.conversation.messages):
            ks = by_msg.get(pos, [])
            out.append(MessageResult(
                message=msg.key, role=msg.role, original=msg.text,
                pruned="\n\n".join(texts[k] for k in ks if texts[k].strip() or len(ks) == 1),
                tokens_before=int(sum(counts_before[k] for k in ks)),
                tokens_after=int(sum(counts_after[k] for k in ks)),
            ))
        return out

    @cached_property
    def output(self) -> Any:
        """The pruned conversation in the input's own schema (a JSON-able object; a str for plain text)."""
        from .formats import dump_conversation, without_emptied_blocks
        a = self.annotated
        texts = {}
        emptied = []
        for k, b in enumerate(a.view.blocks):
            block = a.conversation.messages[b.msg_pos].blocks[b.block]
            texts[block.path] = self.block_texts[k]
            if not texts[block.path].strip() and block.text.strip():
                emptied.append(block.path)  # only an engine directive can empty a block (guards.py)
        doc = dump_conversation(a.conversation, texts)
        return without_emptied_blocks(doc, emptied) if emptied and a.conversation.format != "text" else doc

    def dump(self) -> str:
        """The pruned conversation serialised in the input's own format (JSON, JSONL line, HTTP, text)."""
        from .formats import dump_text
        return dump_text(self.annotated.conversation, self.output)

    # ---- metrics and the JSON contract ----------------------------------------------------------
    @property
    def pruned_fraction(self) -> float:
        return self.tokens_pruned / self.tokens_total if self.tokens_total else 0.0

    @property
    def timings_ms(self) -> dict[str, float]:
        _ = self.block_texts  # reconstruct is part of the result's timings
        t = self.annotated.timings_ms
        return {
            "parse": t["parse"], "tokenize": t["tokenize"], "detect": t["detect"], "protect": t["protect"],
            "resolve": t["resolve"],
            "select": self._select_ms, "reconstruct": self._reconstruct_ms or 0.0,
            "context_preservation": t["context_preservation"],
        }

    @property
    def metrics(self) -> dict[str, float]:
        return {
            "layer_zero_pruned_tokens_total": self.tokens_pruned,
            "pruned_fraction": self.pruned_fraction,
            # the seed's metric, as Prometheus exposes it (``layer_zero_effectiveness_ratio{source="estimate"}``):
            # a pruning result only ever knows the estimate
            "layer_zero_effectiveness_ratio": self.effectiveness_estimate,
            "layer_zero_context_preservation_ms": self.annotated.timings_ms["context_preservation"],
        }

    @cached_property
    def _records(self) -> list[dict[str, Any]]:
        a = self.annotated
        reasons, details, scores, span_ids = self._token_columns
        text = a.view.text
        blocks = a.view.blocks
        block_start = np.array([b.start for b in blocks], dtype=np.int64)[a.tok_block] if blocks else a.tok_block
        keys = [(b.message, b.role, b.block) for b in blocks]
        starts, ends = a.tok_start.tolist(), a.tok_end.tolist()
        decisions = np.where(self.token_prune, "prune", "keep").tolist()
        tiers, losses = self._tiers_and_losses
        return [
            {"message": k[0], "role": k[1], "block": k[2], "i": i, "id": tid, "text": text[s:e], "start": s - bs,
             "end": e - bs, "decision": d, "reason": r, "detail": det, "score": sc, "tier": tier, "loss": loss,
             "span": sp, "group": g}
            for k, i, tid, s, e, bs, d, r, det, sc, tier, loss, sp, g in zip(
                (keys[b] for b in a.tok_block.tolist()), a.tok_i.tolist(), a.tok_ids.tolist(), starts, ends,
                block_start.tolist(), decisions, reasons, details, scores, tiers, losses, span_ids,
                a.tok_group.tolist())
        ]

    @cached_property
    def _tier_and_loss(self) -> tuple[np.ndarray, np.ndarray]:
        """Per token: the tier that prunes it (a code: 0 none, 1 ``safe``, 2 ``lossy``; see ``_TIERS``) and the
        estimated information its pruning loses, in bits rounded to 3 places (the token's share of its span's or
        its word's loss; 0 when it is kept)."""
        from .information import token_information

        a = self.annotated
        n = len(a.tok_ids)
        tier = np.zeros(n, dtype=np.int8)
        loss = np.zeros(n)
        if not n:
            return tier, loss
        tok_span = a.g_span[a.tok_group]
        safe = tok_span >= 0
        safe[safe] = self.chosen[tok_span[safe]]
        safe &= ~a.tok_directive
        if safe.any():
            residual = np.asarray(a.spans.residuals, dtype=np.float64)
            loss[safe] = token_information()[a.tok_ids[safe]] * residual[tok_span[safe]]
            tier[safe] = 1
        if self.tokens_lossy:
            word = self._lossy_word_of_group[a.tok_group]
            lossy = word >= 0
            lossy_words = a.lossy
            loss[lossy] = lossy_words.loss[word[lossy]] / np.maximum(lossy_words.cost[word[lossy]], 1)
            tier[lossy] = 2
        return tier, np.round(loss, 3)

    @cached_property
    def _tiers_and_losses(self) -> tuple[list[str | None], list[float]]:
        """Per token: the tier that prunes it (``safe``, ``lossy`` or None) and the estimated information its
        pruning loses, in bits (the token's share of its span's or its word's loss; 0 when it is kept)."""
        tier, loss = self._tier_and_loss
        return _TIERS[tier].tolist(), loss.tolist()

    def token_records(self) -> list[dict[str, Any]]:
        """One dict per token, as in the CLI's ``tokens`` list (plus ``role``, ``span``, ``group``)."""
        return [dict(r) for r in self._records]

    def token_table(self) -> Any:
        """The tokens as a pandas DataFrame (columns as :meth:`token_records`), built column by column (the app
        redraws it on every slider move: from records it cost 135–275 ms on a 20k-token conversation)."""
        import pandas as pd

        a = self.annotated
        reasons, details, scores, span_ids = self._token_columns
        tiers, losses = self._tiers_and_losses
        text = a.view.text
        blocks = a.view.blocks
        blk = a.tok_block
        n = len(a.tok_ids)
        if not n:  # (no text at all — an image-only request: the same columns, no rows)
            return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _TOKEN_TABLE_DTYPES.items()})
        messages = np.array([b.message for b in blocks], dtype=object)[blk]
        roles = np.array([b.role for b in blocks], dtype=object)[blk]
        block_index = np.array([b.block for b in blocks], dtype=np.int64)[blk]
        base = np.array([b.start for b in blocks], dtype=np.int64)[blk]
        starts, ends = a.tok_start.tolist(), a.tok_end.tolist()
        return pd.DataFrame({
            "message": messages if any(isinstance(blocks[k].message, str) for k in np.unique(blk).tolist())
            else messages.astype(np.int64),
            "role": roles, "block": block_index, "i": a.tok_i.astype(np.int64, copy=False),
            "id": a.tok_ids.astype(np.int64, copy=False), "text": [text[s:e] for s, e in zip(starts, ends)],
            "start": a.tok_start - base, "end": a.tok_end - base,
            "decision": np.where(self.token_prune, "prune", "keep").astype(object),
            "reason": reasons, "detail": details, "score": np.asarray(scores, dtype=np.float64),
            "tier": tiers, "loss": np.asarray(losses, dtype=np.float64),
            "span": np.asarray(span_ids, dtype=np.int64), "group": a.tok_group.astype(np.int64, copy=False),
        })

    def deleted_spans(self) -> list[dict[str, Any]]:
        """Every contiguous run of removed text: message, block, start, end (block offsets), text, reason, detail.

        Exactly the characters the pruned text lacks: a pruned token's character that reconstruction keeps (the
        comma of "，请" between two kept clauses) is not listed, and whitespace or punctuation that it tidies
        away at a cut is, with the reason ``tidy``."""
        a = self.annotated
        text = a.view.text
        records = self._records
        out: list[dict[str, Any]] = []
        for k, (b, cut) in enumerate(zip(a.view.blocks, self._cuts())):
            if cut is None:
                continue
            block_text = text[b.start:b.end]
            owner = [-1] * len(block_text)  # the pruned token record each character belongs to
            first, end = np.searchsorted(a.tok_block, (k, k + 1))  # the block's records (tokens in block order)
            for r in range(int(first), int(end)):
                if records[r]["decision"] == "prune":
                    for c in range(records[r]["start"], records[r]["end"]):
                        owner[c] = r
            gone = [True] * len(block_text)
            for s, e in kept_ranges(block_text, *cut):
                gone[s:e] = [False] * (e - s)
            last: dict[str, Any] | None = None
            for c, went in enumerate(gone):
                if not went:
                    last = None
                    continue
                o = owner[c]
                reason, detail = (records[o]["reason"], records[o]["detail"]) if o >= 0 else ("tidy", TIDY_DETAIL)
                if last is not None and last["end"] == c and last["reason"] == reason and last["detail"] == detail:
                    last["end"] = c + 1
                    last["text"] += block_text[c]
                else:
                    last = {"message": b.message, "role": b.role, "block": b.block, "start": c, "end": c + 1,
                            "text": block_text[c], "reason": reason, "detail": detail}
                    out.append(last)
        return out

    def _contract(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The JSON object's members before ``tokens`` and after it, in the contract's order."""
        a = self.annotated
        before = {
            "version": RESULT_VERSION,
            "ratio": self.ratio,
            "ratio_source": self.ratio_source,
            "enabled": a.settings.enabled,
            "enabled_source": a.settings.enabled_source,
            "tokens_total": self.tokens_total,
            "tokens_pruned": self.tokens_pruned,
            "tokens_directive": self.tokens_directive,
            "min_effectiveness": self.min_effectiveness,
            "tokens_safe": self.tokens_safe,
            "tokens_lossy": self.tokens_lossy,
            "safe_frontier": self.safe_frontier,
            "stopped_by": self.stopped_by,
            "warnings": list(a.warnings),
            "profile": a.settings.profile,
            "profile_rule": a.settings.profile_rule,
            "output": self.output,
            "messages": [{"message": m.message, "role": m.role, "original": m.original, "pruned": m.pruned}
                         for m in self.messages],
        }
        return before, {"timings_ms": self.timings_ms, "metrics": self.metrics}

    def to_dict(self, *, tokens: bool = True) -> dict[str, Any]:
        """The CLI's JSON object (version 1); ``tokens=False`` leaves the per-token list empty."""
        before, after = self._contract()
        records = [{k: r[k] for k in TOKEN_KEYS} for r in self._records] if tokens else []
        return {**before, "tokens": records, **after}

    def write_json(self, fh: IO[str], *, tokens: bool = True, chunk: int = 1024) -> None:
        """Write ``json.dumps(self.to_dict(tokens=tokens), ensure_ascii=False)`` to the text stream ``fh``, the
        same text, without building it: the token list goes out ``chunk`` records at a time, and no record is
        ever a dict (a 1 MB message has ≈ 260,000 tokens; as dicts and one string they held ≈ 1 GB).

        Everything that can fail is computed before the first write.
        """
        before, after = self._contract()
        records = self._token_json(chunk) if tokens else iter(())
        fh.write(_dumps(before)[:-1] + ', "tokens": [')
        for part in records:
            fh.write(part)
        fh.write("], " + _dumps(after)[1:])

    def _token_json(self, chunk: int) -> Iterator[str]:
        """The records of ``to_dict()["tokens"]`` as JSON text, separated by ", " without the list's brackets,
        ``chunk`` records per piece; the tables are built now, the pieces when iterated.

        A record is ten strings joined once per chunk, four of them from tables:
          - ``{"message": …, "block": …, "i": `` — one per block;
          - ``, "id": …, "text": `` — one per distinct id;
          - ``, "decision": …, "reason": …, "detail": …, "score": …, "tier": …, "loss": `` — one per distinct
            combination, shared by the tokens of a span, a protection or a reason;
          - the loss and the closing brace (with the ", " before the next record) — one per distinct value;
        the others are ``i``, the text, ``start`` and ``end`` with their keys.  Chunks of about a thousand
        records measured fastest (the joined text stays in the processor's cache for the UTF-8 encoding).
        """
        a = self.annotated
        n = len(a.tok_ids)
        if not n:
            return iter(())
        blocks = a.view.blocks
        heads = _objects([f'{{"message": {_dumps(b.message)}, "block": {_dumps(b.block)}, "i": ' for b in blocks])
        block_start = np.array([b.start for b in blocks], dtype=np.int64)
        id_parts = _table(a.tok_ids, lambda k, _: f', "id": {k}, "text": ')
        tails, tail_of = self._shared_json()
        # a loss is rounded to thousandths: one string per value, by its value in thousandths (json writes a float
        # as its repr)
        _, loss = self._tier_and_loss
        loss_of = np.rint(loss * 1000).astype(np.int64)
        loss_parts = _table(loss_of, lambda _, t: f"{float(loss[t])!r}}}, ")
        last_loss = f"{float(loss[-1])!r}}}"
        return self._token_json_pieces(chunk, heads, block_start, id_parts, a.tok_ids, tails, tail_of, loss_parts,
                                       loss_of, last_loss)

    def _token_json_pieces(self, chunk: int, heads: np.ndarray, block_start: np.ndarray, id_parts: np.ndarray,
                           id_of: np.ndarray, tails: np.ndarray, tail_of: np.ndarray, loss_parts: np.ndarray,
                           loss_of: np.ndarray, last_loss: str) -> Iterator[str]:
        a = self.annotated
        text = a.view.text
        n = len(a.tok_ids)
        from . import native
        if native.native is not None:  # the kernel writes the same text (tests/engine/test_json_output.py)
            tables = (heads.tolist(), id_parts.tolist(), tails.tolist(), loss_parts.tolist())
            cols = [np.ascontiguousarray(x, dtype=np.int64) for x in
                    (a.tok_start, a.tok_end, a.tok_block, a.tok_i, id_of, tail_of, loss_of)]
            bases = np.ascontiguousarray(block_start, dtype=np.int64)
            for c0 in range(0, n, chunk):
                yield native.native.token_records(text, *cols, *tables, bases, c0, min(n, c0 + chunk), last_loss)
            return
        width = 10
        for c0 in range(0, n, chunk):
            c1 = min(n, c0 + chunk)
            block = a.tok_block[c0:c1]
            start, end = a.tok_start[c0:c1], a.tok_end[c0:c1]
            base = block_start[block]
            starts = list(map(str, (start - base).tolist()))
            # tokens partition a block's text: a token ends where the next one starts, so its end is written
            # with the next token's start string, except at the last token and where a block ends
            ends = starts[1:]
            ends.append(str(int(end[-1] - base[-1])))
            for k in np.flatnonzero(end[:-1] != start[1:]).tolist():
                ends[k] = str(int(end[k] - base[k]))
            pieces: list[Any] = [None] * ((c1 - c0) * width)
            pieces[0::width] = heads[block].tolist()
            pieces[1::width] = map(str, a.tok_i[c0:c1].tolist())
            pieces[2::width] = id_parts[id_of[c0:c1]].tolist()
            pieces[3::width] = [encode_basestring(text[s:e]) for s, e in zip(start.tolist(), end.tolist())]
            pieces[4::width] = _START * (c1 - c0)
            pieces[5::width] = starts
            pieces[6::width] = _END * (c1 - c0)
            pieces[7::width] = ends
            pieces[8::width] = tails[tail_of[c0:c1]].tolist()
            pieces[9::width] = loss_parts[loss_of[c0:c1]].tolist()
            if c1 == n:
                pieces[-1] = last_loss
            yield "".join(pieces)

    def _shared_json(self) -> tuple[np.ndarray, np.ndarray]:
        """(texts, index per token): the part of each token's record from ``decision`` to ``"loss": `` — the
        same for every token of a span, protection or veto, so written once per distinct combination."""
        a = self.annotated
        lab = self._labels
        tier, _ = self._tier_and_loss
        decision = self.token_prune
        n_details, n_spans = len(lab.details), len(a.spans) + 1
        # one integer per combination (mixed radix; < 2**63 for any input the size limit allows)
        key = (((lab.reason * n_details + lab.detail) * 2 + decision) * 3 + tier) * n_spans + (lab.span + 1)
        keys, tail_of = np.unique(key, return_inverse=True)
        span, rest = np.divmod(keys, n_spans)[::-1]
        tier_k, rest = np.divmod(rest, 3)[::-1]
        decision_k, rest = np.divmod(rest, 2)[::-1]
        reason_k, detail_k = np.divmod(rest, n_details)
        scores = np.asarray(a.spans.scores, dtype=np.float64)
        reasons = [encode_basestring(r) for r in lab.reasons]
        details = lab.details
        tails = [f', "decision": {_DECISIONS[d]}, "reason": {reasons[r]}, "detail": {encode_basestring(details[k])}, '
                 f'"score": {float(scores[s - 1]) if s else 0.0!r}, "tier": {_TIERS_JSON[t]}, "loss": '
                 for r, k, d, t, s in zip(reason_k.tolist(), detail_k.tolist(), decision_k.tolist(), tier_k.tolist(),
                                          span.tolist())]
        return _objects(tails), tail_of


def _table(keys: np.ndarray, text_of: Callable[[int, int], str]) -> np.ndarray:
    """A table to gather from by ``keys`` (non-negative integers): at each key ``k`` present, ``text_of(k, t)``
    where ``keys[t] == k``.  Indexed directly, no sort (keys are token ids, or losses in thousandths of a bit)."""
    table = np.empty(int(keys.max()) + 1 if len(keys) else 0, dtype=object)
    where = np.full(len(table), -1, dtype=np.int64)
    where[keys] = np.arange(len(keys))
    for k, t in zip(np.flatnonzero(where >= 0).tolist(), where[where >= 0].tolist()):
        table[k] = text_of(k, t)
    return table


def _dumps(value: Any) -> str:
    """``value`` as the JSON result writes it (``ensure_ascii=False``, default separators)."""
    return json.dumps(value, ensure_ascii=False)


def _trimmed(text: str, s: int, e: int, base: int) -> tuple[int, int]:
    """A protected range without the whitespace at its edges (a token's leading space protects no fact), in
    block offsets."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s - base, e - base


def _ranges_by_block(mask: np.ndarray, block: np.ndarray, start: np.ndarray, end: np.ndarray,
                     n_blocks: int) -> list[list[tuple[int, int]]]:
    """Per block, the (start, end) ranges of the selected items, adjacent ones merged (in order)."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(n_blocks)]
    idx = np.flatnonzero(mask)
    if not len(idx):
        return out
    b, s, e = block[idx], start[idx], end[idx]
    # a range starts where the item does not continue the previous one (another block, or a gap)
    first = np.ones(len(idx), dtype=bool)
    first[1:] = (b[1:] != b[:-1]) | (s[1:] != e[:-1])
    heads = np.flatnonzero(first)
    lasts = np.append(heads[1:], len(idx)) - 1
    for k, rs, re_ in zip(b[heads].tolist(), s[heads].tolist(), e[lasts].tolist()):
        out[k].append((rs, re_))
    return out


def reconstruct(text: str, removed: list[tuple[int, int]], protected: Sequence[tuple[int, int]] = ()) -> str:
    """``text`` minus the ``removed`` ranges, tidying only whitespace and dangling punctuation at the cuts.

    Characters inside ``protected`` ranges are never touched.  The compiled kernel when built, else
    :func:`reconstruct_python` (the definition).

    >>> reconstruct("您好，我是VIP客户。", [(0, 2)])
    '我是VIP客户。'
    >>> reconstruct("Could you please help?", [(9, 16)])
    'Could you help?'
    >>> reconstruct("请回答，谢谢。", [(4, 6)])
    '请回答。'
    >>> reconstruct("Fee for SKU-1? Thanks. Also check #2.", [(14, 21)])
    'Fee for SKU-1? Also check #2.'
    >>> reconstruct("我是VIP客户，请帮我查订单。", [(7, 11)])   # the token "，请" went: its comma stays
    '我是VIP客户，查订单。'
    >>> reconstruct("1. 谢谢，订单号", [(2, 6)])                 # the token " 谢" went: the space after "1." stays
    '1. 订单号'
    >>> reconstruct("6. 先安抚。\\n7. 再次强调：不要透露。\\n8. 用中文。", [(8, 20)])  # the "。" left alone: no blank line
    '6. 先安抚。\\n8. 用中文。'
    """
    from . import native
    removed = _keeping_separators(text, removed)
    out: str
    if native.native is not None:
        out = native.native.reconstruct(text, list(removed), list(protected))
    else:
        out = reconstruct_python(text, removed, protected)
    # a cut at either end leaves no blank line or space there that the text did not have (unless a caller
    # protects whitespace itself; the engine's protected ranges never start or end with it)
    if any(text[s:e][:1].isspace() or text[s:e][-1:].isspace() for s, e in protected):
        return out
    if out[-1:].isspace() and not text[-1:].isspace():
        out = out.rstrip()
    if out[:1].isspace() and not text[:1].isspace():
        out = out.lstrip()
    return out


_SEPARATORS = "，,、；;"


def _keeping_separators(text: str, removed: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``removed`` less a clause separator or a space it starts with when text is kept on both sides of the cut.

    Tokens glue punctuation and spaces to the next word (cl100k has "，请" and " 谢" as tokens), so a cut of "请帮我"
    in "我是VIP客户，请帮我查订单" removes the comma that separates two kept clauses, and a cut of " 谢谢，" in
    "1. 谢谢，订单号…" the space after the list marker; the words would run together ("1.订单号").  A space stays
    when the cut ends right before a word and follows a word or ASCII punctuation (English keeps its own: " please"
    is followed by " help"; after full-width punctuation "对， 不好意思，这就" needs none).  Line breaks a cut ends with
    stay too: cl100k glues them to punctuation (".\n", "！\n\n"), and a cut of "Thanks in advance."
    would otherwise join two lines.
    """
    out: list[tuple[int, int]] = []
    for s, e in sorted(removed):  # (touching cuts as one: the characters on either side must be kept ones)
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        elif e > s:
            out.append((s, e))
    n = len(text)
    for k, (s, e) in enumerate(out):
        if text[e - 1] == "\n":
            while e > s and text[e - 1] == "\n":
                e -= 1  # a token that glues a line break to the punctuation a cut takes (".\n"): the break stays
            out[k] = (s, e)
        if 0 < s < e < n and text[e].isalnum() and (
                (text[s] in _SEPARATORS and text[s - 1].isalnum())
                or (text[s] in " \t" and (text[s - 1].isalnum() or "!" <= text[s - 1] <= "~"))):
            out[k] = (s + 1, e)
    return out


TIDY_DETAIL = "whitespace or punctuation a cut next to it left dangling, tidied away"


def kept_ranges(text: str, removed: list[tuple[int, int]],
                protected: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The ranges of ``text`` that :func:`reconstruct` keeps, in order: joined, they are its result (the
    Python definition, whichever implementation reconstructs)."""
    removed = _keeping_separators(text, removed)
    out = [(a, b) for a, b in _kept_pieces(text, removed, protected) if b > a]
    if any(text[s:e][:1].isspace() or text[s:e][-1:].isspace() for s, e in protected):
        return out
    if not text[-1:].isspace():  # (as reconstruct: no trailing whitespace the text did not end with)
        while out and text[out[-1][1] - 1].isspace():
            a, b = out[-1]
            while b > a and text[b - 1].isspace():
                b -= 1
            out[-1:] = [(a, b)] if b > a else []
    if not text[:1].isspace():
        while out and text[out[0][0]].isspace():
            a, b = out[0]
            while a < b and text[a].isspace():
                a += 1
            out[:1] = [(a, b)] if b > a else []
    return out


def reconstruct_python(text: str, removed: list[tuple[int, int]],
                       protected: Sequence[tuple[int, int]] = ()) -> str:
    """:func:`reconstruct` in Python."""
    return _joined(text, _kept_pieces(text, removed, protected))


def _kept_pieces(text: str, removed: list[tuple[int, int]], protected: Sequence[tuple[int, int]]) -> list[list[int]]:
    """The pieces of ``text`` :func:`reconstruct_python` joins."""
    free = bytearray(b"\x01") * (len(text) + 1)
    for s, e in protected:
        if e > s:
            free[s:e] = bytes(e - s)
    pieces: list[list[int]] = []
    pos = 0
    for s, e in sorted(removed):
        if s > pos:
            pieces.append([pos, s])
        pos = max(pos, e)
    cut_at_end = pos >= len(text) and bool(removed)
    if pos < len(text):
        pieces.append([pos, len(text)])
    out: list[list[int]] = []
    for s, e in pieces:
        if s > 0:  # a cut precedes this piece
            tail = _tail(text, out)
            # (no space stays at a cut's far side after a line start, a space or full-width punctuation:
            # "我想订票。Thanks! 明天" → "我想订票。明天")
            blank_tail = tail in ("", "\n", " ", "\t") or tail in _FULL_WIDTH_PUNCT
            if blank_tail:
                while s < e and text[s] in " \t" and free[s]:
                    s += 1
            if tail in ("", "\n"):
                s = _without_lead_newlines(text, out, s, e, tail, free)
            visible = _tail(text, out, skip=" \t")
            # punctuation left dangling: "，" or "。" right after a line start or another mark
            dangling = s
            while s < e and free[s] and (
                    (text[s] in _CLAUSE_PUNCT and (visible in ("", "\n") or visible in _CLAUSE_PUNCT + _END_PUNCT + _OPENERS))
                    or (text[s] in _END_PUNCT and (visible in ("", "\n") or visible in _END_PUNCT))):
                s += 1
                while s < e and text[s] in " \t" and free[s] and blank_tail:
                    s += 1
            if s > dangling and tail in ("", "\n"):
                # the line the cut emptied ("7. 再次强调：…" cut, its "。" left alone on the line): no blank line stays
                s = _without_lead_newlines(text, out, s, e, tail, free)
            if out and s < e and text[s] in _END_PUNCT + _CLAUSE_PUNCT:
                _drop_trailing_clause_punct(text, out, free)
        if s < e:
            out.append([s, e])
    if cut_at_end and out:
        _drop_trailing_clause_punct(text, out, free)
    return out


def _without_lead_newlines(text: str, out: list[list[int]], s: int, e: int, tail: str, free: bytearray) -> int:
    """``s`` past the newlines a piece after a cut starts with, as many as the kept text already ends with (all of
    them at the start of the text): a cut never leaves a blank line the text did not have."""
    lead = 0
    while s + lead < e and text[s + lead] == "\n":
        lead += 1
    trail = 0 if tail == "" else _trailing_newlines(text, out)
    drop = lead if tail == "" else min(lead, trail)
    while drop and free[s]:
        s, drop = s + 1, drop - 1
    return s


def _trailing_newlines(text: str, out: list[list[int]]) -> int:
    """How many newlines end the text kept so far (``_joined(text, out)``)."""
    count = 0
    for a, b in reversed(out):
        k = b
        while k > a and text[k - 1] == "\n":
            k -= 1
        count += b - k
        if k > a:
            break
    return count


def _joined(text: str, out: list[list[int]]) -> str:
    return "".join(text[a:b] for a, b in out)


def _tail(text: str, out: list[list[int]], skip: str = "") -> str:
    """The last character kept so far (ignoring ``skip`` characters); "" at the start of the text.

    Reads backwards from the last piece's end without copying pieces (they can be long).
    """
    for a, b in reversed(out):
        k = b
        while k > a and text[k - 1] in skip:
            k -= 1
        if k > a:
            return text[k - 1]
    return ""


def _drop_trailing_clause_punct(text: str, out: list[list[int]], free: bytearray) -> None:
    last = out[-1]
    e = last[1]
    while e > last[0] and text[e - 1] in " \t" and free[e - 1]:
        e -= 1
    if e > last[0] and text[e - 1] in _CLAUSE_PUNCT and free[e - 1]:
        e -= 1
    last[1] = e
