"""The lint checks, one module per family; ``CHECKERS`` runs them in code order.

Each check is a function ``LintDoc -> Iterator[Finding]``; its codes are listed in ``findings.CHECKS`` and
documented in docs/LINT.md.  A new check is a function here plus its row in CHECKS, its section in the docs
and its positive and negative tests in zh and en (tests/advisor/test_lint.py).
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..findings import Finding, LintDoc
from . import context, directives, domain, prose, redundancy

__all__ = ["CHECKERS"]

CHECKERS: tuple[Callable[[LintDoc], Iterator[Finding]], ...] = (
    directives.check_directives,      # LZ101–LZ103
    directives.check_list_tags,       # LZ104, LZ105
    prose.check_dates,                # LZ110
    prose.check_id_formats,           # LZ120
    prose.check_regex_prose,          # LZ130
    prose.check_vague,                # LZ140
    context.check_values,             # LZ150
    context.check_rules,              # LZ160
    context.check_user_facts,         # LZ170
    domain.check_ratio,               # LZ180
    redundancy.check_duplicates,      # LZ190
    redundancy.check_fillers,         # LZ191
)
