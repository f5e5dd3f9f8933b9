"""Debug links: round trips, secrets, hostile tokens and the SQLite short-link store."""
from __future__ import annotations

import base64
import doctest
import hashlib
import json
import re
import sqlite3
import zlib
from contextlib import closing

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layerzero_viz import share
from layerzero_viz.errors import ShareLinkError
from layerzero_viz.share import ShareStore, decode_state, encode_state, make_link, redact_secrets, resolve_query

STATE = {
    "page": "heatmap",
    "conversation": '{"system": "你是税务顾问", "messages": [{"role": "user", "content": "请问 SKU-12345"}]}',
    "format": "anthropic",
    "line": None,
    "ratio": 0.35,
    "low_information": True,
    "show_whitespace": False,
    "message": 3,
    "profile": None,
    "view": {"block": 0, "search": "请问", "sort": ["reason", "score"]},
}


def raw_token(document: object, *, text: str | None = None) -> str:
    """A token built by hand around any JSON document (what a forged or foreign link would carry)."""
    data = (text if text is not None else json.dumps(document)).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(data)).rstrip(b"=").decode()


# ---------------------------------------------------------------- round trips


def test_state_survives_a_round_trip():
    assert decode_state(encode_state(STATE)) == STATE


def test_token_is_base64url_without_padding():
    assert re.fullmatch(r"[A-Za-z0-9_-]+", encode_state(STATE))


def test_same_state_gives_the_same_token_whatever_the_key_order():
    reordered = dict(reversed(list(STATE.items())))
    assert encode_state(reordered) == encode_state(STATE)


def test_payload_is_versioned_canonical_json():
    token = encode_state({"ratio": 0.2, "page": "sweep"})
    data = zlib.decompress(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert data == b'{"state":{"page":"sweep","ratio":0.2},"v":1}'


def test_unknown_fields_are_dropped():
    assert decode_state(encode_state({"page": "timing", "surprise": [1, 2]})) == {"page": "timing"}
    assert decode_state(raw_token({"v": 1, "state": {"page": "x", "extra": {"a": 1}}})) == {"page": "x"}


def test_integer_ratio_reads_as_float():
    assert decode_state(raw_token({"v": 1, "state": {"ratio": 0}})) == {"ratio": 0.0}


def test_lone_surrogate_in_text_still_round_trips():
    state = {"conversation": "cut emoji \ud83d here"}
    assert decode_state(encode_state(state)) == state


# ---------------------------------------------------------------- secrets


def test_anthropic_key_in_conversation_is_redacted():
    token = encode_state({"conversation": "my key is sk-ant-api03-AbC_dEf-0123456789 ok"})
    assert "sk-ant" not in json.dumps(decode_state(token))
    assert decode_state(token)["conversation"] == "my key is [REDACTED] ok"


def test_http_capture_header_values_are_redacted_but_names_kept():
    capture = (
        "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: abc123\r\n"
        "Authorization: Bearer tok_456\r\nanthropic-version: 2023-06-01\r\n\r\n{\"model\": \"claude\"}"
    )
    text = decode_state(encode_state({"conversation": capture}))["conversation"]
    assert "abc123" not in text and "tok_456" not in text
    assert "x-api-key: [REDACTED]\r\n" in text and "Authorization: [REDACTED]\r\n" in text
    assert "anthropic-version: 2023-06-01" in text and '{"model": "claude"}' in text


def test_header_written_as_json_key_is_redacted():
    text = redact_secrets('{"headers": {"x-api-key": "secret-value", "content-type": "json"}}')
    assert text == '{"headers": {"x-api-key": "[REDACTED]", "content-type": "json"}}'


def test_openai_style_key_is_redacted():
    assert redact_secrets("key sk-proj-abcdefghijklmnopqrstuvwxyz0123") == "key [REDACTED]"


def test_credential_named_view_fields_are_dropped_but_lookalikes_kept():
    view = {"api_key": "x", "headers": {"a": 1}, "env": "PROD", "auth_token": "t", "client_secret": "s",
            "max_tokens": 5, "tokenizer": "cl100k"}
    assert decode_state(encode_state({"view": view}))["view"] == {"max_tokens": 5, "tokenizer": "cl100k"}


def test_view_keeps_only_simple_values():
    view = {"a": 1, "b": 2.5, "c": "x", "d": None, "e": True, "f": [1, "x"], "g": {"nested": 1}, "h": [[1]]}
    assert decode_state(encode_state({"view": view}))["view"] == {
        "a": 1, "b": 2.5, "c": "x", "d": None, "e": True, "f": [1, "x"]
    }


# ---------------------------------------------------------------- bad fields


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("ratio", 0.96), ("ratio", -0.1), ("ratio", "0.3"), ("ratio", True),
        ("line", "3"), ("line", -1), ("line", 1.5),
        ("low_information", 1), ("show_whitespace", "yes"),
        ("page", 3), ("conversation", ["a"]), ("format", None),
        ("message", 1.0), ("message", -2), ("message", ["x"]),
        ("profile", 7), ("view", [1, 2]),
    ],
)
def test_field_of_the_wrong_type_is_refused_naming_the_field(field, value):
    with pytest.raises(ShareLinkError, match=f"'{field}'"):
        encode_state({field: value})
    with pytest.raises(ShareLinkError, match=f"'{field}'"):
        decode_state(raw_token({"v": 1, "state": {field: value}}))


@pytest.mark.parametrize("text", ['{"v":1,"state":{"ratio":NaN}}', '{"v":1,"state":{"ratio":1e999}}'])
def test_non_finite_ratio_is_refused(text):
    with pytest.raises(ShareLinkError):
        decode_state(raw_token(None, text=text))


def test_other_version_says_which_version_and_what_to_do():
    with pytest.raises(ShareLinkError, match=r"version 2.*version 1 only.*create a new link"):
        decode_state(raw_token({"v": 2, "state": {}}))


@pytest.mark.parametrize("version", ["1", 1.0, True, None])
def test_version_must_be_the_integer_1(version):
    with pytest.raises(ShareLinkError, match="version"):
        decode_state(raw_token({"v": version, "state": {}}))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([1, 2], "not a layerzero-viz debug link"),
        ({"state": {}}, "not a layerzero-viz debug link"),
        ({"v": 1}, "no app state"),
        ({"v": 1, "state": [1]}, "no app state"),
    ],
)
def test_wrong_document_shape_is_explained(document, message):
    with pytest.raises(ShareLinkError, match=message):
        decode_state(raw_token(document))


# ---------------------------------------------------------------- hostile tokens


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc$def", r"contains '\$'"),
        ("a", "impossible"),
        ("AAAA", "damaged"),
        (raw_token(None, text="not json"), "not valid JSON"),
        (raw_token(None, text="[" * 100_000), "not valid JSON"),
        (base64.urlsafe_b64encode(b"\xff\xfe" + zlib.compress(b"x")).decode(), "damaged"),
        (base64.urlsafe_b64encode(zlib.compress("é".encode("latin-1"))).decode(), "not valid JSON"),
    ],
)
def test_damaged_token_gets_a_clear_message(token, message):
    with pytest.raises(ShareLinkError, match=message):
        decode_state(token)


def test_truncated_token_is_reported_as_cut_short():
    token = encode_state(STATE)
    with pytest.raises(ShareLinkError, match="cut short|damaged|impossible"):
        decode_state(token[: len(token) // 2])


def test_extra_bytes_after_the_stream_are_refused():
    payload = zlib.compress(json.dumps({"v": 1, "state": {}}).encode()) + b"junk"
    with pytest.raises(ShareLinkError, match="extra data"):
        decode_state(base64.urlsafe_b64encode(payload).decode())


def test_padding_and_surrounding_whitespace_are_tolerated():
    token = base64.urlsafe_b64encode(zlib.compress(b'{"v":1,"state":{"page":"p"}}')).decode()
    assert decode_state(f"  {token}\n") == {"page": "p"}


def test_token_longer_than_the_limit_is_refused_before_decoding():
    with pytest.raises(ShareLinkError, match="characters long"):
        decode_state("A" * (64 * 1024 + 1))
    with pytest.raises(ShareLinkError, match="most accepted is 10"):
        decode_state(encode_state(STATE), max_chars=10)


def test_zip_bomb_is_refused_without_inflating_it():
    bomb = zlib.compress(b'{"v":1,"state":{"conversation":"' + b"0" * (30 * 2**20) + b'"}}', 9)
    token = base64.urlsafe_b64encode(bomb).rstrip(b"=").decode()
    assert len(token) < share.MAX_TOKEN_CHARS
    with pytest.raises(ShareLinkError, match="more than 25 MB"):
        decode_state(token)


def test_decompressed_limit_is_configurable():
    with pytest.raises(ShareLinkError, match="more than 100 bytes"):
        decode_state(encode_state({"conversation": "x" * 500}), max_decompressed=100)


def test_non_string_token_is_refused():
    with pytest.raises(ShareLinkError, match="must be text"):
        decode_state(b"abc")  # type: ignore[arg-type]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_any_text_either_decodes_or_raises_share_link_error(token):
    try:
        assert isinstance(decode_state(token), dict)
    except ShareLinkError:
        pass


@settings(max_examples=400)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=", max_size=200))
def test_any_base64url_text_either_decodes_or_raises_share_link_error(token):
    try:
        decode_state(token)
    except ShareLinkError:
        pass


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
state_like = st.fixed_dictionaries(
    {}, optional={name: json_values for name in share.STATE_FIELDS} | {"other": json_values}
)


@settings(max_examples=300)
@given(st.one_of(json_values, st.fixed_dictionaries({"v": st.sampled_from([1, 2, "1"]), "state": state_like})))
def test_any_compressed_json_either_decodes_or_raises_share_link_error(document):
    token = raw_token(None, text=json.dumps(document))
    try:
        decoded = decode_state(token)
    except ShareLinkError:
        return
    assert set(decoded) <= set(share.STATE_FIELDS)
    assert decode_state(encode_state(decoded)) == decoded


valid_states = st.fixed_dictionaries(
    {},
    optional={
        "page": st.text(max_size=20),
        "conversation": st.text(),
        "format": st.sampled_from(["anthropic", "openai", "jsonl", "http", "text"]),
        "line": st.none() | st.integers(min_value=0),
        "ratio": st.none() | st.floats(min_value=0, max_value=0.95),
        "low_information": st.booleans(),
        "show_whitespace": st.booleans(),
        "message": st.none() | st.just("system") | st.integers(min_value=0, max_value=10_000),
        "profile": st.none() | st.text(max_size=20),
        "view": st.dictionaries(
            st.sampled_from(["block", "sort", "search", "page_size"]),
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            max_size=4,
        ),
    },
)


@settings(max_examples=300)
@given(valid_states)
def test_valid_state_round_trips_up_to_redaction(state):
    expected = {k: redact_secrets(v) if isinstance(v, str) else v for k, v in state.items()}
    if "view" in expected:
        expected["view"] = {k: redact_secrets(v) if isinstance(v, str) else v for k, v in expected["view"].items()}
    assert decode_state(encode_state(state)) == expected


# ---------------------------------------------------------------- store


def test_store_returns_what_was_put(tmp_path):
    store = ShareStore(tmp_path / "shares.db")
    assert store.get(store.put(STATE)) == STATE


def test_store_id_is_sha256_prefix_of_the_payload_and_put_is_idempotent(tmp_path):
    store = ShareStore(tmp_path / "shares.db")
    first = store.put(STATE)
    assert first == store.put(dict(reversed(list(STATE.items()))))
    token = encode_state(STATE)
    payload = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    assert first == hashlib.sha256(payload).hexdigest()[:16]
    with closing(sqlite3.connect(tmp_path / "shares.db")) as db:
        assert db.execute("SELECT COUNT(*) FROM shares").fetchone() == (1,)


def test_store_creates_missing_folders(tmp_path):
    ShareStore(tmp_path / "a" / "b" / "shares.db").put({"page": "x"})
    assert (tmp_path / "a" / "b" / "shares.db").is_file()


def test_store_location_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LAYERZERO_SHARE_DB", str(tmp_path / "env.db"))
    assert ShareStore().path == tmp_path / "env.db"


def test_store_defaults_to_dot_layerzero(tmp_path, monkeypatch):
    monkeypatch.delenv("LAYERZERO_SHARE_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    store = ShareStore()
    assert (tmp_path / ".layerzero" / "shares.db").is_file() and str(store.path) == ".layerzero/shares.db"


def test_store_redacts_secrets_too(tmp_path):
    store = ShareStore(tmp_path / "s.db")
    assert store.get(store.put({"conversation": "sk-ant-0123456789abcdef"})) == {"conversation": "[REDACTED]"}


def test_unknown_id_says_it_may_come_from_another_machine(tmp_path):
    with pytest.raises(ShareLinkError, match=r"(?i)unknown share id 0123456789abcdef.*another machine"):
        ShareStore(tmp_path / "s.db").get("0123456789abcdef")


@pytest.mark.parametrize("share_id", ["", "0123", "0123456789ABCDEF", "0123456789abcdeg", "x' OR 1=1 --", None])
def test_malformed_id_is_refused_before_the_lookup(tmp_path, share_id):
    with pytest.raises(ShareLinkError, match="not a share id"):
        ShareStore(tmp_path / "s.db").get(share_id)  # type: ignore[arg-type]


def test_corrupt_database_file_raises_share_link_error(tmp_path):
    path = tmp_path / "broken.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ShareLinkError, match="cannot be used"):
        ShareStore(path)


# ---------------------------------------------------------------- links


def test_short_state_makes_a_self_contained_link():
    link = make_link(STATE, base_url="https://lz.example/", page="sweep")
    assert link.startswith("https://lz.example/sweep?s=")
    assert resolve_query({"s": link.split("?s=")[1]}) == STATE


def test_long_state_goes_to_the_store(tmp_path):
    store = ShareStore(tmp_path / "s.db")
    big = dict(STATE, conversation="".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(20_000)))
    link = make_link(big, store=store, max_url=2000)
    assert re.fullmatch(r"/heatmap\?share=[0-9a-f]{16}", link)
    assert resolve_query({"share": link.split("=")[1]}, store=store) == big


def test_query_without_a_link_resolves_to_none():
    assert resolve_query({}) is None
    assert resolve_query({"page": "x"}) is None


def test_query_accepts_list_values_and_prefers_the_inline_state(tmp_path):
    store = ShareStore(tmp_path / "s.db")
    share_id = store.put({"page": "stored"})
    token = encode_state({"page": "inline"})
    assert resolve_query({"s": ["junk", token], "share": share_id}, store=store) == {"page": "inline"}
    assert resolve_query({"share": [share_id]}, store=store) == {"page": "stored"}


def test_query_with_a_bad_value_raises_share_link_error(tmp_path):
    with pytest.raises(ShareLinkError):
        resolve_query({"s": "!!!"})
    with pytest.raises(ShareLinkError, match="must be text"):
        resolve_query({"s": 5})
    with pytest.raises(ShareLinkError, match="(?i)unknown share id"):
        resolve_query({"share": "0123456789abcdef"}, store=ShareStore(tmp_path / "s.db"))


def test_docstring_examples_hold():
    assert doctest.testmod(share).failed == 0
