"""Candidate rules: each module offers one ``find(view, ctx) -> view.Hits``, what the rule found.

``RULES`` lists them in priority order — the order a budget is spent in.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..directives import Settings
from ..protect import Protection
from . import declared, derivable, filler, low_information, repeated

if TYPE_CHECKING:  # the scanner's twins live in the rule modules: scans imports them at run time
    from ..scans import Scans

__all__ = ["RuleContext", "RULES", "PRIORITY"]


@dataclass(frozen=True)
class RuleContext:
    settings: Settings
    protection: Protection
    scans: Scans  # what the scanners found (raw repeat pairs, <context> restatements …)
    low_information: bool = True
    directive_ranges: tuple[tuple[int, int], ...] = ()  # global ranges of engine directives: not content
    reuse: bool = False  # look up what a block's own text gives when that text was seen before (``reuse``)


RULES = (
    ("declared_redundant", declared.find),
    ("repeated_constraint", repeated.find),
    ("derivable_context", derivable.find),
    ("filler", filler.find),
    ("low_information", low_information.find),
)
PRIORITY = {name: rank for rank, (name, _) in enumerate(RULES)}
