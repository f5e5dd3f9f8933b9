"""Candidate rules: each module offers one ``find(view, ctx) -> view.Hits``, what the rule found.

``RULES`` lists them in priority order — the order a budget is spent in.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..directives import Settings
from ..protect import Protection
from . import declared, derivable, filler, low_information, repeated

__all__ = ["RuleContext", "RULES", "PRIORITY"]


@dataclass(frozen=True)
class RuleContext:
    settings: Settings
    protection: Protection
    low_information: bool = True
    directive_ranges: tuple[tuple[int, int], ...] = ()  # global ranges of engine directives: not content
    prescan: dict | None = None  # the compiled scanners' results when the engine ran them (_native.ScanJob)


RULES = (
    ("declared_redundant", declared.find),
    ("repeated_constraint", repeated.find),
    ("derivable_context", derivable.find),
    ("filler", filler.find),
    ("low_information", low_information.find),
)
PRIORITY = {name: rank for rank, (name, _) in enumerate(RULES)}
