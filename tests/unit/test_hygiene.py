"""The pieces of data hygiene, each played against: the secret rule (whole, fragments, streams),
URL credentials, the process-wide registry, the terminal sanitizer and the Markdown blocks."""

from __future__ import annotations

import io
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from markdown_it import MarkdownIt

from client.core import secrets
from client.core.secrets import (FRAGMENT, MASK, Redactor, credential_values, mask, mask_url_credentials, mask_value,
                                 remember, url_credentials)
from client.ui.md_blocks import code_span, contained, fenced
from client.ui.safe_text import StreamCleaner, clean, escape_invisible, json_text, screen, visible

KEY = "sk-live-ABCDEFGHIJKLMNOP-123456"  # 31 characters


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """A fresh process registry per test (the module keeps what it learned)."""
    monkeypatch.setattr(secrets, "_remembered", set())
    monkeypatch.setattr(secrets, "_cache", None)
    for n in (*secrets.SECRET_VARS, secrets.DB_VAR, *secrets.URL_VARS):
        monkeypatch.delenv(n, raising=False)


def test_runs_of_a_secret_are_masked_wherever_they_sit():
    r = Redactor([KEY])
    assert r(f"x {KEY} y") == "x *** y"
    assert r(f"prefix {KEY[:26]}, middle {KEY[5:5 + FRAGMENT]}, end {KEY[-FRAGMENT:]}.") == "prefix ***, middle ***, end ***."
    assert r(f"short {KEY[:FRAGMENT - 1]}") == f"short {KEY[:FRAGMENT - 1]}"  # 11 characters: not a piece that matters
    assert r(f"{KEY[:20]}{KEY[20:]}!") == "***!"  # adjacent pieces: one mask
    assert Redactor(["Bearer tok-0123456789ab"])("sent tok-0123456789ab ok") == "sent *** ok"  # the mask keeps the space


def test_a_streamed_secret_is_never_shown_in_part():
    r = Redactor([KEY])
    text = f"답: {KEY} 그리고 {KEY[:16]}"
    shown, held = "", ""
    for ch in text:  # one character per chunk: the worst split
        held += ch
        head, n = r.settled(held)
        shown, held = shown + head, held[n:]
        assert KEY[:3] not in shown, shown
    assert shown + r(held) == "답: *** 그리고 ***"


def test_a_secret_with_spaces_is_held_whole_in_a_stream():
    phrase = "correct horse battery staple"  # no space-free part of 12 characters: masked only whole
    r = Redactor([phrase, "Bearer tok-0123456789abcdef"])
    text = f"비번은 {phrase} 이고 헤더는 Bearer tok-0123456789abcdef, 토큰만 tok-0123456789ab 끝"
    shown, held = "", ""
    for ch in text:
        held += ch
        head, n = r.settled(held)
        shown, held = shown + head, held[n:]
        assert "horse battery" not in shown
    assert shown + r(held) == "비번은 *** 이고 헤더는 ***, 토큰만 *** 끝"


def test_url_credentials_and_their_display():
    url = "https://bob:pa%24s-word@mcp.example/mcp?api_key=LIT-1234&q=서울&access_token=tok+en&x=1#frag"
    found = url_credentials(url)
    assert {"pa%24s-word", "pa$s-word", "LIT-1234", "tok en", "tok+en"} <= set(found) and "서울" not in found
    assert mask_url_credentials(url) == "https://bob:***@mcp.example/mcp?api_key=***&q=서울&access_token=***&x=1#frag"
    assert url_credentials("http://h/mcp?q=1") == [] and mask_url_credentials("http://h/mcp") == "http://h/mcp"


def test_only_credential_names_become_process_wide():
    got = credential_values({"GITHUB_TOKEN": "ghp-abcdef", "NODE_ENV": "production"},
                            {"Authorization": "Bearer t0k3n-xyz", "Accept": "application/json"})
    assert set(got) == {"ghp-abcdef", "Bearer t0k3n-xyz", "t0k3n-xyz"}


def test_the_registry_and_the_environment_are_masked_everywhere(monkeypatch):
    assert mask(f"a {KEY}") == f"a {KEY}"
    remember([KEY])
    monkeypatch.setenv("NAVER_CLIENT_SECRET", "naver-sec-0099")
    monkeypatch.setenv("MCP_SERVER_URL", "http://h/mcp?token=envtok-777")
    assert mask("naver-sec-0099") == "naver-sec-0099"  # the core reads no environment: the ui tells it
    from client.ui.cli import learn_env_secrets

    learn_env_secrets()  # what every command does once its environment is settled
    assert mask(f"{KEY[:15]} naver-sec-0099 envtok-777") == "*** *** ***"


def test_mask_value_copies_messages_only_when_needed():
    remember([KEY])
    ai = AIMessage(content=[{"type": "text", "text": f"k {KEY}"}],
                   tool_calls=[{"name": "f", "args": {"q": KEY[:20]}, "id": "c1"}],
                   additional_kwargs={"tool_calls": [{"function": {"arguments": json.dumps({"q": KEY})}}]})
    clean_msg = HumanMessage(content="안녕", id="h1")
    out = mask_value({"messages": [ai, clean_msg], "n": 3})
    assert KEY[:FRAGMENT] not in repr(out)
    assert out["messages"][1] is clean_msg and out["messages"][0].id == ai.id
    assert out["messages"][0].tool_calls[0]["args"] == {"q": MASK}
    assert KEY in repr(ai)  # the original is untouched


def test_the_checkpoint_serializer_masks_on_the_way_in():
    from client.engine.store.serde import checkpoint_serde

    remember([KEY])
    serde = checkpoint_serde()
    blob = serde.dumps_typed({"messages": [ToolMessage(content=f"file: {KEY}", tool_call_id="c1")]})
    assert KEY[:FRAGMENT].encode() not in blob[1]
    assert serde.loads_typed(blob)["messages"][0].content == "file: ***"


def test_transcript_rows_and_titles_are_masked():
    from client.engine.store import codec

    remember([KEY])
    rows, _, title = codec.number_rows("t", [HumanMessage(content=f"제 키 {KEY} 입니다", id="m1")], 0, "", 0, 0.0)
    assert KEY[:FRAGMENT] not in rows[0][4] and title == "제 키 *** 입니다"
    assert codec.stored_title(f"새 제목 {KEY}") == "새 제목 ***"


def test_clean_removes_what_acts_on_or_hides_from_a_terminal():
    evil = ("a\x1b]0;PWNED\x07b\x1b]52;c;SGVsbG8=\x1b\\c\x1bP1$rX\x1b\\d\x1b_apc\x07e\x9b31mf\x9d0;t\x9cg"
            "\u202eh\u2066i\u2069\u200bj\u200dk\u2060l\ufeffm\u061cn\u200eo\x7fp\tq\nr")
    assert clean(evil) == "abcdefghijklmnop\tq\nr"


def test_a_stream_holds_a_sequence_split_across_chunks():
    text = "앞\x1b]0;PWNED\x07 가\x1b[31m나\x1b[0m 다\x1bP1$rX\x1b\\ 끝\x1b"
    for size in (1, 2, 3, 7):
        c = StreamCleaner()
        out = "".join(c.feed(text[i:i + size]) for i in range(0, len(text), size)) + c.flush()
        assert out == "앞 가나 다 끝", size


def test_plain_renderer_masks_a_secret_split_across_chunks():
    from client.ui.render import Renderer

    remember([KEY])
    out, err = io.StringIO(), io.StringIO()
    r = Renderer(out=out, err=err)
    text = f"키는 {KEY} 이고 앞부분은 {KEY[:14]}\x1b]0;X\x07 끝"
    for ch in text:
        r.stream(ch)
    r.end_stream()
    assert out.getvalue() == "키는 *** 이고 앞부분은 *** 끝\n"


def test_invisible_characters_in_json_are_escaped_not_lost():
    doc = {"a": "x\u202ey\u200bz\x1b\x9b"}
    text = json_text(doc)
    assert json.loads(text) == doc and not any(c in text for c in "\u202e\u200b\x1b\x9b")
    assert escape_invisible('"\u2066"') == '"\\u2066"'


def test_visible_writes_controls_out():
    assert visible("a\x1b]0;t\x07b\r\nc\x9b") == "a\\x1b]0;t\\x07b\nc\\x9b"


@pytest.mark.parametrize("answer", [
    "```python\nprint(1)",  # an answer that starts with a fence and never closes it
    "~~~~\ncode\n~~~",  # a shorter closing fence does not close it
    "<!-- a comment that never ends\n\nmore",
    "<script>\nalert(1)\n",
    "text\n<pre>\nx",
])
def test_a_message_block_ends_where_it_ends(answer):
    doc = "\n\n".join(["### assistant", contained(answer), "## 2번째 턴", "### user", "다음"])
    tokens = MarkdownIt("commonmark").parse(doc)
    headings = [tokens[i + 1].content for i, tk in enumerate(tokens) if tk.type == "heading_open"]
    assert headings == ["assistant", "2번째 턴", "user"]


def test_fences_and_code_spans_outlast_what_they_hold():
    body = "a ```` b\n````\nc"
    tokens = MarkdownIt("commonmark").parse("\n".join(fenced(body)) + "\n\n# after")
    assert tokens[0].type == "fence" and tokens[0].content == body + "\n" and tokens[1].type == "heading_open"
    span = code_span("x `` y")
    assert MarkdownIt("commonmark").parseInline(span)[0].children[0].content == "x `` y"


def test_screen_cleans_before_it_masks_so_nothing_hides_a_secret() -> None:
    remember([KEY])
    out = screen(f"\x1b]0;PWNED\x07answer {KEY[:10]}\u200b{KEY[10:]} \x1b[2Jend")
    assert "\x1b" not in out and "\u200b" not in out and "PWNED" not in out
    assert KEY not in out and KEY[:12] not in out and MASK in out  # the zero-width split did not save the key
    assert out.startswith("answer ") and out.endswith("end")
