"""The compiled kernels (layerzero_viz/_native.pyx) against their Python twins, which define them.

Every kernel must give exactly what its twin gives: on the bundled corpus sample (real zh/en prompts and
dialogues), on hand-picked traps, and on Hypothesis text drawn from an alphabet of the characters the
scanners care about.  A whole annotation with and without the kernels must match token for token.
"""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from layerzero_viz import annotate, iter_conversations, lexicon, native, protect
from layerzero_viz.rules import repeated
from layerzero_viz.view import _CLAUSE_END, _SENTENCE_END, TextView, _segments, fold, units

K = native._compiled
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "corpus" / "sample.jsonl"

# characters every scanner branches on, plus ordinary text around them
ALPHABET = list("aAbBcCdkKmMIiyY019_-./:\\~@#{}[]%％‰$¥€'’\"`“”「」<>，。、：；！？!?;…\n\t \x00\u3000") + list(
    "一二三十百千万亿半零〇个月工作日小时分钟秒之份年号元我本人们是有在住刚的买了请问谢您非常不但是然而其实施及申请题实")
WORDS = ["I am ", "I'm ", "i’ve ", "my name ", "My order ", "I was born ", "I am wondering", "I have just", "my card",
         "my cards", "SKU-12345", "v2", "ab--1", "a-_1", "foo_bar", "foo__bar", "_x_y", "a@b.com", "x@y@z.com",
         "a@b.", "~/x/y/", "../a", "./", "C:\\a\\\\b", "http://x.y/z)", "https://", "#12-ab", "{{ name }}", "{x}}",
         "{ {x}}", "“引用”", "「a」」", "《书名》", '"q"', '""', '"a\nb"', "《《x》", "[USER_NAME]", "[A]", "$ 5", "$5,000.50万", "¥ 12", "5 %", "5%", "5kg", "5kg重", "5abcd", "1.2.3.",
         "三个月", "十个工作日", "三十分之一", "三分钟", "五月份", "七日年化收益率4.2%", "thank you so much",
         "Thank  you", "don't", "e.g. ", "A ", "a ", "please", "非常感谢", "请问", "申请问题", "及其实施", "但是", "不要",
         "其实", "目的", "的", "我是VIP", "本人们已经", "我们刚刚", "\n\x00\n", "```", "``", "`x`", "```py\nx = 1\n```",
         "`a\nb`", "````"]
text_st = st.lists(st.one_of(st.sampled_from(ALPHABET), st.sampled_from(WORDS)), max_size=60).map("".join)
CHECKS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sample_texts():
    return [TextView.of(conv).text for _, conv in iter_conversations(SAMPLE)]


def test_kernels_are_built():
    # make test installs the package, which compiles the kernels: a missing build must not pass quietly
    assert native.AVAILABLE, "layerzero_viz._native is not built: run `pip install -e .` (make test does)"


def _python_scans(text):
    out = protect.python_scanners(text)
    out["lexicons"] = lexicon.scan_python(text)
    out["sentences"] = _segments(text, 0, len(text), _SENTENCE_END)
    out["clauses"] = _segments(text, 0, len(text), _CLAUSE_END)
    out["first_clause"] = out["clauses"][:1]
    out["first_sentence"] = out["sentences"][:1]
    return out


def _native_scans(text):
    return {
        "numbers": K.scan_numbers(text),
        "quotes": K.scan_quotes(text),
        "code": K.scan_code(text),
        "identifiers": K.scan_identifiers(text, (True,) * len(protect._IDENTIFIERS)),
        "user_facts": K.scan_user_facts(text, 0, len(text)),
        "lexicons": lexicon.scan(text),
        "sentences": K.segments(text, 0, len(text), False),
        "clauses": K.segments(text, 0, len(text), True),
        "first_clause": K.segments(text, 0, len(text), True, True),
        "first_sentence": K.segments(text, 0, len(text), False, True),
    }


def _repeats(text, kernel):
    view = TextView(text, [])
    from layerzero_viz.view import BlockRef
    view.blocks = [BlockRef(0, 0, "user", 0, 0, len(text))]
    view.block_starts = [0]
    if kernel:
        return K.find_repeats(text, [(0, len(text))], [], repeated.function_words(), repeated.MIN_UNITS,
                              repeated.CONTAINMENT)[1]
    return repeated.scan_python(view, [])


@pytest.mark.parametrize("text", [
    "请不要超过200字。另外，回答不超过200字。请不要超过200字！", "Always answer in English. Always answer in English.",
    "I am a VIP. my name is Li; I am wondering", "订单SKU-12345与sku_12_a，联系a.b+c@x-y.com或~/a/b/。",
    "收益率4.2%，三个月，十个工作日，三十分之一，$ 1,000.5万", "非常感谢！请问申请问题及其实施…", "ＡＢＣ１２３ ﬁne …… ①",
])
def test_traps_agree(text):
    assert _native_scans(text) == _python_scans(text)
    assert _repeats(text, True) == _repeats(text, False)


@CHECKS
@given(text_st)
def test_generated_text_agrees(text):
    assert _native_scans(text) == _python_scans(text)


@CHECKS
@given(st.lists(st.sampled_from(WORDS + ["。", "，", ". ", "\n", "回答不超过200字", "Always answer in English"]),
                max_size=80).map("".join))
def test_generated_repeats_agree(text):
    assert _repeats(text, True) == _repeats(text, False)


def test_corpus_sample_agrees():
    texts = _sample_texts()
    assert len(texts) >= 40
    for text in texts:
        assert _native_scans(text) == _python_scans(text)


def test_fold_is_per_character_nfkc_lower_case():
    import unicodedata
    text = "ＡＢＣ１２３ ﬁne …… ① Ⅻ ㎏ 福 Σ"
    assert fold(text) == "".join(unicodedata.normalize("NFKC", ch).lower() for ch in text)
    assert units(text)[:4] == ["abc123", "fine", "1", "xii"]


def test_annotation_is_identical_with_and_without_kernels():
    convs = [conv for _, conv in iter_conversations(SAMPLE)]
    convs.append(json.dumps({"system": "你是一名税务顾问。回答不超过200字。", "messages": [
        {"role": "user", "content": "我是VIP客户，SKU-12345。作为税务顾问，回答不超过200字。请问七日年化收益率4.2%？"}]},
        ensure_ascii=False))
    # vetoes: a repeat carrying a number its first copy lacks, and one whose copy carries it
    convs.append(json.dumps({"system": "回答不超过200字，使用正式语气。", "messages": [
        {"role": "user", "content": "回答不超过300字，使用正式语气。回答不超过200字，使用正式语气。"},
        {"role": "user", "content": "Never share the SKU-1 code. Please never share the SKU-2 code."}]},
        ensure_ascii=False))
    for conv in convs:
        native.use(True)
        with_kernels = annotate(conv, env={}).at_ratio(0.5).to_dict()
        native.use(False)
        try:
            without = annotate(conv, env={}).at_ratio(0.5).to_dict()
        finally:
            native.use(True)
        assert with_kernels["tokens"]
        for d in (with_kernels, without):
            d.pop("timings_ms")
            d["metrics"].pop("layer_zero_context_preservation_ms")
        assert with_kernels == without


def _annotated_both_ways(source):
    native.use(True)
    try:
        with_kernels = annotate(source, env={}).at_ratio(0.6).to_dict()
        native.use(False)
        without = annotate(source, env={}).at_ratio(0.6).to_dict()
    finally:
        native.use(True)
    for d in (with_kernels, without):
        d.pop("timings_ms")
        d["metrics"].pop("layer_zero_context_preservation_ms")
    return with_kernels, without


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.one_of(st.sampled_from(ALPHABET + ["😀", "𠀀", "é", "ﬁ", "①"]), st.sampled_from(WORDS)),
                         max_size=40).map("".join), min_size=1, max_size=4))
def test_generated_conversations_annotate_identically(turns):
    source = json.dumps({"system": "你是一名税务顾问。回答不超过200字。Always answer in English.",
                         "messages": [{"role": "user" if k % 2 == 0 else "assistant", "content": t}
                                      for k, t in enumerate(turns)]}, ensure_ascii=False)
    with_kernels, without = _annotated_both_ways(source)
    assert with_kernels == without


@st.composite
def _cuts(draw):
    text = draw(st.lists(st.sampled_from(ALPHABET + [" ", "  ", "\n\n", "，", "。", "、", "（", "《"]),
                         max_size=50).map("".join))
    n = len(text)
    ranges = st.tuples(st.integers(0, n), st.integers(0, n)).map(lambda p: (min(p), max(p)))
    return text, draw(st.lists(ranges, max_size=8)), draw(st.lists(ranges, max_size=4))


@CHECKS
@given(_cuts())
def test_reconstruct_agrees(case):
    from layerzero_viz.result import reconstruct_python
    text, removed, protected = case
    assert K.reconstruct(text, list(removed), list(protected)) == reconstruct_python(text, removed, protected)


@CHECKS
@given(_cuts())
def test_kept_ranges_are_what_reconstruct_keeps(case):
    # deleted_spans lists the complement of these ranges: they must join to the compiled result
    from layerzero_viz.result import kept_ranges, reconstruct
    text, removed, protected = case
    kept = kept_ranges(text, removed, protected)
    assert all(a < b for a, b in kept) and all(b1 <= a2 for (_, b1), (a2, _) in zip(kept, kept[1:]))
    assert "".join(text[a:b] for a, b in kept) == reconstruct(text, removed, protected)


def _plain_dict(result):
    d = result.to_dict()
    d.pop("timings_ms")
    d["metrics"].pop("layer_zero_context_preservation_ms")
    return d


def test_block_cache_reuses_a_blocks_own_material_never_what_its_neighbours_made_of_it():
    from layerzero_viz import engine, material, reuse
    reply = "Thanks so much for your patience. I'm sorry for the delay. The contract is attached."
    asked = {"messages": [{"role": "user", "content": "Draft a short email to Sam: the contract is attached."},
                          {"role": "assistant", "content": reply},
                          {"role": "user", "content": "Thanks so much! Also, what time is it in Oslo?"}]}
    # the same reply after a turn that asks for no text: it is no draft here, its politeness may go
    unasked = {"messages": [{"role": "user", "content": "Thanks! What's the weather like in Oslo?"},
                            {"role": "assistant", "content": reply}, asked["messages"][2]]}
    reuse.CACHES.clear()
    for doc in (asked, unasked, asked, unasked):
        source = json.dumps(doc, ensure_ascii=False)
        cached = annotate(source, engine.Config(env={}, block_cache=True)).at_ratio(0.95)
        plain = annotate(source, env={}).at_ratio(0.95)
        assert _plain_dict(cached) == _plain_dict(plain)
    own = reuse.CACHES[material._own_material_of].cache_info()
    assert own.currsize == 4 and own.hits == 6  # (four block texts: a reply asked for is read as a whole)
    assert annotate(json.dumps(asked), env={}).at_ratio(0.95).messages[1].pruned == reply
    assert "Thanks so much for your patience" not in annotate(json.dumps(unasked), env={}).at_ratio(0.95).messages[1].pruned


def test_block_cache_prunes_every_labeled_case_as_the_debugger_does():
    # the client (block_cache=True) must send what the app and the CLI show: a block's cached material may depend on
    # nothing outside its own text but what the cache keys on (an "Observation:" after the turn before ends with an
    # agent's "Action:" line is what the tool returned — material-en-83 — wherever that block's text was seen first)
    from layerzero_viz import engine, labeled, reuse
    reuse.CACHES.clear()
    cases = labeled.load_cases(labeled.default_paths())
    assert len(cases) > 400
    cached_fn = lambda conv: annotate(conv, engine.Config(env={}, block_cache=True))  # noqa: E731
    for case in cases:
        assert labeled.prune_case(case, cached_fn) == labeled.prune_case(case), case.id
    observed = "Observation: Please note it is just 12°C, kindly bring a jacket, thanks."
    case = next(c for c in cases if c.id == "material-en-83")
    assert observed in labeled.prune_case(case, cached_fn)["2"]
    # the same block after a turn with no action: the user's own note, its politeness may go — from the cache too
    plain = labeled.Case(**{**case.__dict__, "messages": (case.messages[0], {"role": "assistant", "content": "Sure."},
                                                          case.messages[2])})
    assert labeled.prune_case(plain, cached_fn) == labeled.prune_case(plain)
    assert observed not in labeled.prune_case(plain)["2"]


def test_block_cache_keeps_no_block_above_its_size_bound(monkeypatch):
    from layerzero_viz import engine, material, reuse
    monkeypatch.setattr(reuse, "MAX_CHARS", 40)
    reuse.CACHES.clear()
    doc = {"messages": [{"role": "user", "content": "Short turn."},
                        {"role": "assistant", "content": "A reply far longer than forty characters, not kept."}]}
    annotate(json.dumps(doc), engine.Config(env={}, block_cache=True))
    assert reuse.CACHES[material._own_material_of].cache_info().currsize == 1


def test_token_cache_gives_the_same_annotation_and_is_bounded():
    from layerzero_viz import engine
    source = json.dumps({"system": "你是一名税务顾问。回答不超过200字。" * 3, "messages": [
        {"role": "user", "content": "我是VIP客户，SKU-12345。请问七日年化收益率4.2%？Please answer briefly."}]},
        ensure_ascii=False)
    engine._TOKEN_CACHE.clear()
    cold = annotate(source, engine.Config(env={}, block_cache=True)).at_ratio(0.4).to_dict()
    warm = annotate(source, engine.Config(env={}, block_cache=True)).at_ratio(0.4).to_dict()
    plain = annotate(source, env={}).at_ratio(0.4).to_dict()
    for d in (cold, warm, plain):
        d.pop("timings_ms")
        d["metrics"].pop("layer_zero_context_preservation_ms")
    assert cold == warm == plain
    assert len(engine._TOKEN_CACHE._ids) == 2  # both blocks are long enough to keep
    cache = engine._TokenCache()
    cache.MAX_BYTES = 128  # a block may take at most a quarter of it
    for k in range(10):
        cache.put(f"block number {k} " * 4, bytes(32))
    cache.put("a block too large to keep " * 4, bytes(64))
    cache.put("short", bytes(4))
    assert cache._bytes <= 128 and len(cache._ids) == 4 and "block number 9 " * 4 in cache._ids
    assert cache.get("block number 6 " * 4) == bytes(32) and cache.get("short") is None


def test_no_character_beyond_plane_3_changes_under_the_fold():
    # the kernels' fold table lists the changed characters of planes 0-3 and treats all others as unchanged
    import unicodedata
    assert all(unicodedata.normalize("NFKC", chr(c)).lower() == chr(c) for c in range(0x40000, 0x110000, 1))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example("Ｔｈｅ REFUND limit IS $600 per order!")  # one that restates a fact
@given(st.lists(st.sampled_from(["服务区域是上海市浦东新区。", "The refund limit is $600 per order.", "上海市浦东新区",
                                 "refund limit is 600", "请问", "。", "Ｔｈｅ REFUND limit IS $600 per order!", "\n",
                                 "服务区域：上海市浦东新区", "我们只在上海市浦东新区服务。"]), max_size=12).map("".join))
def test_context_restatements_agree(turn):
    source = json.dumps({"system": "<context><service_area>上海市浦东新区</service_area><refund>The refund limit is $600 "
                                   "per order</refund></context>服务区域是上海市浦东新区。", "messages": [
        {"role": "user", "content": turn or "hi"}]}, ensure_ascii=False)
    with_kernels, without = _annotated_both_ways(source)
    assert with_kernels == without
    # the three ways to find them: the twin, the kernel on listed sentences, and the repeat scan on its own
    # sentences (what the engine's scans hold)
    from layerzero_viz import load_conversation
    from layerzero_viz.protect import xml_protections
    from layerzero_viz.rules import derivable
    from layerzero_viz.scans import scan
    from layerzero_viz.view import sentences
    view = TextView.of(load_conversation(source))
    structure = xml_protections(view)
    facts, ranges = structure.context_facts, structure.context_ranges
    twin = derivable.context_restatements_python(view, facts, ranges)
    listed = [(cs, ce) for b in view.blocks for cs, ce in sentences(view, b)]
    assert [(*listed[k], f) for k, f in K.context_restatements(view.text, listed, ranges, [v for _, _, v in facts])] \
        == twin
    assert scan(TextView.of(load_conversation(source)), structure).context == twin


def _scan_job(text):
    """The engine's scan job over ``text`` as one user block (every scanner, the repeat scan too)."""
    from layerzero_viz.lexicon import _native_lexicons
    whole = [(0, len(text))]
    repeats = K.RepeatScan(whole, [], repeated.function_words(), repeated.MIN_UNITS, repeated.CONTAINMENT)
    return K.ScanJob(text, _native_lexicons(), protect.identifier_guards(text), whole, repeats)


def test_a_scan_job_runs_once_and_is_read_after():
    job = _scan_job("Thank you so much, 4.2%")
    with pytest.raises(RuntimeError):
        job.results()
    job.run()
    with pytest.raises(RuntimeError):
        job.run()
    assert job.results()["numbers"]


def test_annotations_from_many_threads_at_once_equal_one_at_a_time():
    # the app serves each session on its own thread, and the scan job runs without the GIL
    import concurrent.futures
    sources = [t for t in _sample_texts() if len(t) >= 2000][:10] + _sample_texts()[:20]
    alone = [annotate(t, env={}).at_ratio(0.3).to_dict()["tokens"] for t in sources]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: annotate(t, env={}).at_ratio(0.3).to_dict()["tokens"], sources * 3))
    assert together == alone * 3


def test_annotate_leaves_the_garbage_collector_alone(monkeypatch):
    # pausing the collector is the caller's choice (engine.gc_paused), never a side effect of annotate
    import gc
    from layerzero_viz import engine
    seen = []
    tokenize = engine._tokenize_view
    monkeypatch.setattr(engine, "_tokenize_view", lambda *a, **k: (seen.append(gc.isenabled()), tokenize(*a, **k))[1])
    assert gc.isenabled()
    annotate("请问七日年化收益率4.2%？" * 200, env={})
    with engine.gc_paused():
        annotate("thank you", env={})
        assert not gc.isenabled()
    assert seen == [True, False] and gc.isenabled()


_FINISHED = ("tok_directive", "span_loss", "span_cost")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(text_st, min_size=1, max_size=3), st.booleans())
def test_finish_agrees_array_for_array(turns, directive):
    # what selection reads (per-token directive flags, span losses and costs, the information total) is equal,
    # bit for bit, with and without the kernel
    system = ('<layer-zero enabled="true" prune_ratio="0.4"/>\n' if directive else "") + \
        "你是一名税务顾问。回答不超过200字。Please be concise. 请问您好。"
    conv = json.dumps({"system": system, "messages": [
        {"role": "user" if k % 2 == 0 else "assistant", "content": t + " 回答不超过200字。thank you so much"}
        for k, t in enumerate(turns)]}, ensure_ascii=False)
    native.use(True)
    try:
        a = annotate(conv, env={})
        native.use(False)
        b = annotate(conv, env={})
    finally:
        native.use(True)
    assert len(a.spans) and (a.tokens_directive > 0) == directive
    for name in _FINISHED:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.tolist() == y.tolist(), name
    assert (a.info_total, a.tokens_directive, a.tokens_total) == (b.info_total, b.tokens_directive, b.tokens_total)


def test_packed_lexicon_hits_read_like_a_fresh_scan():
    # the engine keeps the scan job's lexicon hits packed in the view; every way of reading them gives what a
    # scan of the text gives
    for _, conv in list(iter_conversations(SAMPLE))[:12]:
        ann = annotate(conv, env={})
        view = ann.view
        fresh = lexicon.scan_flat(view.text)
        assert {name: list(view.lexicon_of(name)) for name in fresh} == fresh
        assert {name: list(flat) for name, flat in view.lexicon_flat.items()} == fresh
        assert view.lexicon_hits == lexicon.as_pairs(fresh)
