"""Pure parsing of /prompt calls and @server:uri mentions; the budget cut."""

from client.core.context.budget import estimate_text_tokens
from client.engine.mcp.catalog import PromptCall, cut_to_tokens, mentions, parse_prompt_call


def test_prompt_calls():
    assert parse_prompt_call('ev:greet name=Kim "note=two words"') == PromptCall("ev", "greet", {"name": "Kim", "note": "two words"})
    assert parse_prompt_call("ev:simple") == PromptCall("ev", "simple", {})
    for bad in ("", "noserver", "ev:", ":name", "ev:x novalue", 'ev:x "unclosed'):
        assert parse_prompt_call(bad) is None, bad


def test_mentions_only_for_known_servers_without_repeats():
    text = "see @ev:demo://a/1, @ev:demo://a/1 and @other:x://y mail me@ev:z and @ev:file:///tmp/b.txt."
    assert mentions(text, {"ev"}) == [("ev", "demo://a/1"), ("ev", "file:///tmp/b.txt")]


def test_cut_to_tokens():
    text = "가나다라 " * 500
    cut, was = cut_to_tokens(text, 100)
    assert was and estimate_text_tokens(cut) <= 100 < estimate_text_tokens(cut + text[len(cut):len(cut) + 8])
    assert cut_to_tokens("short", 100) == ("short", False)
