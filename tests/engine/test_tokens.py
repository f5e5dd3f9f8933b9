from hypothesis import given, settings, strategies as st

from layerzero_viz.tokens import encoding, tokenize


def test_tokens_partition_the_text_into_whole_characters():
    text = "七日年化收益率4.2% SKU-12345 😀"
    t = tokenize(text)
    assert "".join(text[s:e] for s, e in zip(t.start, t.end)) == text
    assert list(t.ids) == encoding().encode_ordinary(text)


def test_a_token_that_splits_a_character_shares_its_group():
    t = tokenize("七")  # cl100k splits 七 into two byte tokens
    assert len(t) == 2
    assert list(t.group) == [0, 0]
    assert (t.start[1], t.end[1]) == (1, 1)  # the continuation token owns no characters


def test_special_token_text_is_plain_text():
    t = tokenize("a <|endoftext|> b")
    assert "".join("a <|endoftext|> b"[s:e] for s, e in zip(t.start, t.end)) == "a <|endoftext|> b"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_unicode_round_trips_through_offsets(text):
    t = tokenize(text)
    assert "".join(text[s:e] for s, e in zip(t.start, t.end)) == text
    assert all(b >= a for a, b in zip(t.group, t.group[1:]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=5))
def test_view_tokenisation_matches_tokenising_each_block(blocks):
    """The one-pass offsets over the whole view equal the per-block reference."""
    import json as _json

    from layerzero_viz import annotate, load_conversation

    doc = {"messages": [{"role": "user", "content": [{"type": "text", "text": t} for t in blocks]}]}
    try:
        ann = annotate(load_conversation(_json.dumps(doc).encode()), env={})
    except Exception:  # an empty conversation is an InputError: nothing to compare
        return
    view = ann.view
    for k, b in enumerate(view.blocks):
        ref = tokenize(view.text[b.start:b.end])
        mine = ann.tok_block == k
        assert list(ann.tok_ids[mine]) == list(ref.ids)
        assert list(ann.tok_start[mine] - b.start) == list(ref.start)
        assert list(ann.tok_end[mine] - b.start) == list(ref.end)
        groups = ann.tok_group[mine]
        assert list(groups - groups[0]) == list(ref.group) if len(groups) else True
