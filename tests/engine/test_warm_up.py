"""Stage timings measure work, not loading: everything an annotation loads once per process is loaded by
``lexicon.warm_up``, before ``annotate`` starts its clock."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: after warm_up has run (annotate calls it before timing anything), record every
# module imported and every kernel table prepared while the stages run, over zh and en fixtures.
_PROBE = r"""
import importlib.abc, json, sys
from layerzero_viz import engine, load_conversation, native

state = {"warm": False, "late": [], "fold_before": native.native is None}


class Recorder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if state["warm"]:
            state["late"].append(name)
        return None


sys.meta_path.insert(0, Recorder())
original = engine.warm_up


def warm_then_watch():
    original()
    state["warm"] = True


engine.warm_up = warm_then_watch
if native.native is not None:  # the fold table (filled on its first call, a no-op after): filled by warm_up
    kernel, prepare = native.native, native.native.prepare_fold

    class Watched:
        def __getattr__(self, name):
            return getattr(kernel, name)

        def prepare_fold(self):
            if not state["warm"]:
                state["fold_before"] = True
            prepare()

    native.native = Watched()
for name in sys.argv[1:]:
    engine.annotate(load_conversation(name), env={})
print(json.dumps([state["late"], state["fold_before"]]))
"""


def test_first_annotation_loads_nothing_inside_its_stages() -> None:
    fixtures = [str(ROOT / "fixtures" / f) for f in ("finance_qa.zh.json", "plain_prompt.zh.txt",
                                                     "support_chat.en.json", "ecommerce_support.zh.json")]
    done = subprocess.run([sys.executable, "-c", _PROBE, *fixtures], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    late, fold_before = json.loads(done.stdout.strip().splitlines()[-1])
    # (jieba.posseg's word tags took ≈0.3 s of the first zh prompt's detect stage; the fold table ≈30 ms of
    # its protect stage)
    assert late == [], f"loaded while the stages were timed: {late}"
    assert fold_before, "the kernels' fold table was first filled inside a stage"
