"""LZ180: a prune ratio above what the conversation's domain profile tolerates."""
from __future__ import annotations

from typing import Iterator

from ...directives import LAYER_ZERO_RE
from ..edits import Fix
from ..findings import Finding, LintDoc
from ...profile import limit_for
from .directives import canonical_directive

__all__ = ["check_ratio"]


def check_ratio(doc: LintDoc) -> Iterator[Finding]:
    if doc.profile is None or doc.settings is None:
        return
    settings = doc.settings
    limit, mode, rule = limit_for(doc.profile, "\n".join(doc.text(b) for b in doc.view.blocks))
    if settings.ratio <= limit:
        return
    directive = next((d for d in settings.directive_spans if d.kind == "layer-zero" and d.honoured), None)
    span = (None, None)
    tag = ""
    if directive is not None and settings.ratio_source == "directive":  # (else it does not set this ratio)
        b = next(x for x in doc.view.blocks if x.message == directive.message and x.block == directive.block)
        m = LAYER_ZERO_RE.match(doc.view.text, b.start + directive.start)
        if m:
            span, tag = (m.start(), m.end()), m.group(0)
    fixed = canonical_directive(tag or "<layer-zero/>", ratio=limit)
    if settings.ratio_source in ("directive", "default"):
        fix = Fix(f"Set prune_ratio to {limit:g}", directive=fixed)
        how = f"set it in the system prompt's first line: {fixed}"
    else:
        fix = None
        where = _SET_BY.get(settings.ratio_source, settings.ratio_source)
        how = f"lower it to {limit:g} or less where it is set: {where}"
    yield doc.finding(
        "LZ180", *span,
        f"prune_ratio {settings.ratio:g} (from {settings.ratio_source}) is above what this {doc.profile.name} "
        f"conversation tolerates — {rule}", how, fix)


# where a ratio that is not the directive's comes from (a UX review: "lower the argument setting" after a slider
# move told the app's user nothing)
_SET_BY = {"argument": "the caller's ratio (the app's slider, prune --ratio, Config(ratio=…))",
           "env": "the ANTHROPIC_LAYER_ZERO_PRUNE_RATIO environment variable",
           "header": "the X-Anthropic-Layer-Zero header",
           "profile": "the domain profile's cap"}
