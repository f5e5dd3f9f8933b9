"""The compiled kernels (``_native``, built by Cython on install) or None when they are not built.

``LZ_NATIVE=0`` in the environment forces the pure-Python twins (the differential tests use
``native.use``; ``LZ_NATIVE=0 python bench/engine.py`` measures the twins).  ``make test`` installs the package, which builds the extension; the test
suite fails if it is missing there rather than silently measuring the slow path.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

# the extension has no type information: its functions are typed Any at this one boundary
_compiled: ModuleType | None
try:
    _compiled = importlib.import_module("._native", __package__)
except ImportError:  # a source checkout that was never installed: the Python twins still work
    _compiled = None

native: ModuleType | None = None if os.environ.get("LZ_NATIVE", "1") == "0" else _compiled
AVAILABLE = _compiled is not None


def use(enabled: bool) -> None:
    """Switch the engine between the compiled kernels and the Python twins (tests and benchmarks)."""
    global native
    native = _compiled if enabled else None
