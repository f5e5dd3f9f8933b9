import pytest

from layerzero_viz import DirectiveError, PatternError, annotate, load_conversation

from .helpers import conv, prune, tokens_of

DIRECTIVE = '<layer-zero enabled="true" prune_ratio="0.35"/>'


def settings_of(source, **config):
    config.setdefault("env", {})
    return annotate(load_conversation(source), **config).settings


def test_directive_on_first_system_line_sets_the_ratio():
    s = settings_of(conv(DIRECTIVE + "\n你是一名客服。", "您好"))
    assert (s.ratio, s.ratio_source, s.enabled) == (0.35, "directive", True)


def test_directive_elsewhere_is_not_honoured_and_says_so():
    ann = annotate(load_conversation(conv("你是一名客服。\n" + DIRECTIVE, "您好")), env={})
    assert ann.settings.ratio_source == "default" and ann.settings.ratio == 0.30
    assert any("not honoured" in w for w in ann.warnings)
    # still an engine directive: it never reaches the model
    assert DIRECTIVE not in ann.at_ratio(0.0).messages[0].pruned


def test_directive_in_user_message_is_not_honoured():
    ann = annotate(load_conversation(conv("sys", DIRECTIVE + "\nhello")), env={})
    assert ann.settings.ratio_source == "default"
    assert ann.warnings


def test_a_plain_text_prompt_is_the_whole_prompt_its_first_line_directive_and_lists_are_honoured():
    # (a UX review: the bundled plain_prompt.zh.txt advertises its directive and <redundant_phrases>, and both were
    # ignored — plain text loads as one user message, and only the system prompt's first line was a directive)
    text = DIRECTIVE + '\n<redundant_phrases>["亲亲"]</redundant_phrases>\n亲亲，帮我写一段种草文案，字数300字以内。'
    ann = annotate(load_conversation(text), env={})
    assert ann.conversation.format == "text" and not ann.warnings
    assert (ann.settings.ratio, ann.settings.ratio_source) == (0.35, "directive")
    pruned = ann.at_ratio().messages[0].pruned
    assert "<layer-zero" not in pruned and "redundant_phrases" not in pruned and "亲亲" not in pruned, pruned
    assert "300字以内" in pruned
    # anywhere else in the text it is still not honoured, and says so
    later = annotate(load_conversation("帮我写一段文案。\n" + DIRECTIVE), env={})
    assert later.settings.ratio_source == "default" and any("not honoured" in w for w in later.warnings)


def test_disabled_directive_prunes_nothing():
    r = prune(conv('<layer-zero enabled="false" prune_ratio="0.5"/>\nYou are a bot.', "Hello, could you please help?"), None)
    assert r.tokens_pruned == 0
    assert {t["reason"] for t in r.token_records()} == {"disabled", "directive"}
    assert "Hello, could you please help?" == r.messages[1].pruned


@pytest.mark.parametrize("bad", [
    '<layer-zero enabled="true" prune_ratio="1.5"/>',
    '<layer-zero enabled="true" prune_ratio="abc"/>',
    '<layer-zero enabled="maybe"/>',
    '<layer-zero enabled="true" prune_ratio="0.3" colour="red"/>',
    '<layer-zero enabled=true/>',
])
def test_malformed_directive_is_a_directive_error_naming_it(bad):
    with pytest.raises(DirectiveError) as exc:
        settings_of(conv(bad + "\nsys", "hi"))
    assert "layer-zero" in str(exc.value)
    # where it is (the input, the message, the line), as every input error says (second UX walkthrough)
    assert str(exc.value).startswith("<input>: message system block 0, line 1: ")


def test_an_out_of_range_ratio_says_what_to_write_and_a_bad_pattern_names_its_input():
    with pytest.raises(DirectiveError, match=r"use a value from 0 to 0\.95"):
        settings_of(conv('<layer-zero enabled="true" prune_ratio="1.2"/>\nsys', "hi"))
    with pytest.raises(PatternError, match=r"^<input>: message system block 0 <protected_tokens>"):
        settings_of(conv('<protected_tokens>["(a+"]</protected_tokens>\nsys', "hi"))


def test_a_list_written_as_prose_says_how_to_write_it_as_json():
    # review 16: '<protected_tokens>P1, P2, P3, hardware</protected_tokens>' only said what was wrong
    with pytest.raises(DirectiveError) as exc:
        settings_of(conv("You are a helpdesk bot.\n<protected_tokens>\nP1, P2, P3, hardware\n</protected_tokens>", "hi"))
    assert 'write it as ["P1", "P2", "P3", "hardware"]' in str(exc.value)
    assert "escape" in str(exc.value)  # (they are regexes)
    with pytest.raises(DirectiveError, match=r'write it as \["as I said", "just to confirm"\]'):
        settings_of(conv("<redundant_phrases>\nas I said\njust to confirm\n</redundant_phrases>\nsys", "hi"))


def test_precedence_argument_env_header_directive_default():
    capture = ("POST /v1/messages HTTP/1.1\r\nX-Anthropic-Layer-Zero: enabled;prune_ratio=0.32\r\n"
               "Content-Type: application/json\r\n\r\n" + conv(DIRECTIVE + "\nsys", "hi"))
    env = {"ANTHROPIC_LAYER_ZERO_PRUNE_RATIO": "0.2"}
    assert settings_of(capture).ratio_source == "header"
    assert settings_of(capture).ratio == 0.32
    assert (settings_of(capture, env=env).ratio, settings_of(capture, env=env).ratio_source) == (0.2, "env")
    s = settings_of(capture, env=env, ratio=0.1)
    assert (s.ratio, s.ratio_source) == (0.1, "argument")
    assert settings_of(conv("sys", "hi")).ratio_source == "default"


def test_env_can_disable_and_bad_env_is_named():
    s = settings_of(conv(DIRECTIVE + "\nsys", "hi"), env={"ANTHROPIC_EXPERIMENTAL_LAYER_ZERO": "false"})
    assert (s.enabled, s.enabled_source) == (False, "env")
    with pytest.raises(DirectiveError, match="ANTHROPIC_LAYER_ZERO_PRUNE_RATIO"):
        settings_of(conv("sys", "hi"), env={"ANTHROPIC_LAYER_ZERO_PRUNE_RATIO": "2"})


def test_bad_header_is_named():
    capture = "POST /v1/messages HTTP/1.1\r\nX-Anthropic-Layer-Zero: enabled;ratio=0.3\r\n\r\n" + conv("s", "hi")
    with pytest.raises(DirectiveError, match="X-Anthropic-Layer-Zero"):
        settings_of(capture)


def test_argument_ratio_out_of_range_is_rejected():
    ann = annotate(load_conversation(conv("s", "hi")), env={})
    with pytest.raises(DirectiveError):
        ann.at_ratio(0.96)
    with pytest.raises(DirectiveError):
        ann.at_ratio(-0.1)


def test_protected_tokens_patterns_protect_matches():
    system = '<protected_tokens>["七日", "HM-\\\\d{6}"]</protected_tokens>\n你是客服。'
    r = prune(conv(system, "请问七日的的的收益和HM-123456的的的情况"))
    kept = [t["text"] for t in tokens_of(r, "protected_pattern")]
    assert "".join(kept).count("七") == 1 and "HM" in "".join(kept)
    assert "七日" in r.messages[1].pruned and "HM-123456" in r.messages[1].pruned


@pytest.mark.parametrize("pattern", ["(a)\\\\1", "(?=x)y", "[", "(?<=a)b"])
def test_invalid_or_backtracking_pattern_is_a_pattern_error(pattern):
    with pytest.raises(PatternError) as exc:
        settings_of(conv(f'<protected_tokens>["{pattern}"]</protected_tokens>', "hi"))
    assert "RE2" in str(exc.value)


def test_protected_tokens_must_be_a_json_list():
    with pytest.raises(DirectiveError, match="JSON list"):
        settings_of(conv('<protected_tokens>["a", </protected_tokens>', "hi"))


def test_directive_blocks_leave_the_output_and_the_budget():
    system = DIRECTIVE + '\n<redundant_phrases>["麻烦"]</redundant_phrases>\n你是客服。'
    r = prune(conv(system, "麻烦看一下订单"), 0.0)
    assert r.tokens_directive > 0
    assert r.tokens_total == len(r.token_records()) - r.tokens_directive
    assert r.messages[0].pruned == "你是客服。"
    kept = prune(conv(system, "麻烦看一下订单"), 0.0, keep_directives=True)
    assert DIRECTIVE in kept.messages[0].pruned
