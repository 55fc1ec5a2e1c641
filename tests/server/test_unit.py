"""In-process checks of the pure parts: cleaning, validation, the size cap, config, CLI defaults."""

from __future__ import annotations

import json
import re
import logging
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import naver
from server.__main__ import parse_args
from server.limits import (RESERVED_FILES, UsageError, accept_slack, apply_limits, connection_cap, connection_room,
                           describe_limits)
from server.logsafe import OneLineFormatter, Throttle, escape, url_path
from server.results import clean_text, fit_result, render
from tests.server.helpers import server_env


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<b>서울</b> 날씨", "서울 날씨"),
        ("&quot;인용&quot; &amp; 기호 &lt;참고&gt;", '"인용" & 기호 <참고>'),
        ("줄\n바꿈\t  과   공백 ", "줄 바꿈 과 공백"),
        ('<a href="x">링크</a><br/>끝', "링크끝"),
        ("&lt;b&gt;escaped tag&lt;/b&gt;", "escaped tag"),
        ("a < b > c", "a < b > c"),
        ("&#39;숫자 엔티티&#x27;", "'숫자 엔티티'"),
        (None, ""),
    ],
)
def test_clean_text(raw: Any, clean: str) -> None:
    assert clean_text(raw) == clean


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (("webkr", "", 10, 1, None), "query"),
        (("webkr", "x", 0, 1, None), "display"),
        (("webkr", "x", True, 1, None), "display"),
        (("news", "x", 10, 1001, "sim"), "start"),
        (("blog", "x", 10, 1, "rank"), "sort"),
    ],
)
def test_validate_args_rejects(args: tuple[Any, ...], word: str) -> None:
    with pytest.raises(naver.NaverSearchError) as info:
        naver.validate_args(*args)
    assert word in str(info.value)


def test_validate_args_accepts_bounds() -> None:
    assert naver.validate_args("webkr", " q ", 100, 1000, None) == "q"
    assert naver.validate_args("news", "q", 1, 1, "date") == "q"


item_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=3000)
items_strategy = st.lists(
    st.fixed_dictionaries({"title": item_text, "link": st.just("https://example.com/x"), "description": item_text}),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(items=items_strategy, max_chars=st.integers(min_value=naver.MIN_MAX_CHARS, max_value=6000),
       query=st.text(max_size=600))
def test_fit_result_always_fits_and_stays_valid(items: list[dict[str, str]], max_chars: int, query: str) -> None:
    header = {"query": query, "total": 999, "start": 1}
    text = fit_result(header, items, max_chars)
    assert len(text) <= max_chars
    data = json.loads(text)
    kept = data["items"]
    if data.get("truncated"):
        assert "note" in data and text != render(header, items)
    else:
        assert kept == items and data["query"] == query
    assert len(kept) <= len(items)
    assert kept[: max(len(kept) - 1, 0)] == items[: max(len(kept) - 1, 0)]  # a prefix, last maybe shortened


def test_config_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVER_API_BASE_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("NAVER_TIMEOUT", "not-a-number")
    monkeypatch.setenv("NAVER_RESULT_MAX_CHARS", "10")
    config = naver.NaverConfig.from_env()
    assert config.base_url == "http://127.0.0.1:9"
    assert config.timeout == naver.DEFAULT_TIMEOUT
    assert config.max_chars == naver.MIN_MAX_CHARS
    monkeypatch.setenv("NAVER_TIMEOUT", "inf")
    assert naver.NaverConfig.from_env().timeout == naver.DEFAULT_TIMEOUT
    monkeypatch.delenv("NAVER_API_BASE_URL")
    monkeypatch.setenv("NAVER_TIMEOUT", "2.5")
    config = naver.NaverConfig.from_env()
    assert config.base_url == "https://openapi.naver.com" and config.timeout == 2.5


async def test_only_the_missing_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVER_CLIENT_ID", "some-id")
    monkeypatch.delenv("NAVER_CLIENT_SECRET", raising=False)
    with pytest.raises(naver.NaverSearchError) as info:
        await naver.search("webkr", "q")
    assert "NAVER_CLIENT_SECRET" in str(info.value) and "NAVER_CLIENT_ID" not in str(info.value)


async def test_non_ascii_credentials_are_refused_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVER_CLIENT_ID", "아이디")
    monkeypatch.setenv("NAVER_CLIENT_SECRET", "secret")
    with pytest.raises(naver.NaverSearchError, match="non-ASCII"):
        await naver.search("news", "q", sort="sim")


async def test_shared_client_is_reused_and_closed() -> None:
    first = naver.get_client()
    assert naver.get_client() is first
    await naver.aclose_client()
    assert first.is_closed
    second = naver.get_client()
    assert second is not first
    await naver.aclose_client()


def test_cli_defaults() -> None:
    args = parse_args([])
    assert (args.transport, args.host, args.port, args.stateless, args.log_level) == (
        "streamable-http", "127.0.0.1", 8000, False, "INFO")
    args = parse_args(["--transport", "stdio", "--stateless", "--log-level", "debug"])
    assert (args.transport, args.stateless, args.log_level) == ("stdio", True, "DEBUG")
    assert parse_args(["--transport", "stdio"]).log_level == "WARNING"


def test_limits_from_options_env_and_defaults() -> None:
    args = parse_args(["--max-sessions", "5"])
    apply_limits(args, {"MCP_MAX_SESSIONS": "7", "MCP_SESSION_IDLE_TIMEOUT": "0", "MCP_HEADER_TIMEOUT": " 2.5 "})
    assert (args.max_sessions, args.session_idle_timeout, args.header_timeout) == (5, 0.0, 2.5)  # the option wins
    args = parse_args([])
    apply_limits(args, {"MCP_MAX_SESSIONS": "", "MCP_BODY_TIMEOUT": "5", "MCP_MAX_CONNECTIONS": "100"})
    assert (args.max_sessions, args.session_idle_timeout, args.header_timeout) == (1000, 600.0, 10.0)
    assert (args.body_timeout, args.max_connections) == (5.0, 100)
    assert describe_limits(args) == ("request line and headers must arrive within 10s, the body within 5s; at most "
                                     "100 connections; MCP sessions: at most 1000; a session closes after 600s "
                                     "without a request")
    args.stateless = True
    assert describe_limits(args).endswith("stateless: no MCP sessions are kept")


def test_the_connection_limit_stays_below_the_descriptor_limit() -> None:
    """Issue 50: every connection is a descriptor; the cap leaves room for the rest of the process."""
    assert connection_room(1024) == 1024 - RESERVED_FILES == 832
    assert connection_room(64) == 16 and accept_slack(16) == 8  # a small limit: a quarter, half that in flight
    assert connection_room(20_000) + accept_slack(connection_room(20_000)) + 128 == 20_000
    assert connection_cap(0, 1024) == 832 and connection_cap(100, 1024) == 100 and connection_cap(5000, 1024) == 832
    args = parse_args(["--max-connections", "10000000"])
    apply_limits(args, {})
    assert "(not 10000000: the descriptor limit leaves room for " in describe_limits(args)


def test_a_flood_of_events_is_told_once_a_second() -> None:
    throttle = Throttle(3600.0)
    assert throttle.note("evicted") == "1 evicted"  # the first at once
    assert [throttle.note("evicted") for _ in range(1000)] == [""] * 1000
    throttle.last -= 3600.0
    assert throttle.note("refused") == "1000 evicted, 1 refused"  # the next line counts what it held back


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"MCP_MAX_SESSIONS": "many"}, "MCP_MAX_SESSIONS: not a whole number: 'many'"),
        ({"MCP_MAX_SESSIONS": "-1"}, "MCP_MAX_SESSIONS: must be 0 or more"),
        ({"MCP_SESSION_IDLE_TIMEOUT": "inf"}, "MCP_SESSION_IDLE_TIMEOUT: must be 0 or more seconds"),
        ({"MCP_HEADER_TIMEOUT": "0"}, "MCP_HEADER_TIMEOUT: must be more than 0 seconds"),
        ({"MCP_HEADER_TIMEOUT": "1\x1b[2J"}, r"MCP_HEADER_TIMEOUT: not a number of seconds: '1\x1b[2J'"),
    ],
)
def test_bad_limits_name_the_variable(env: dict[str, str], words: str) -> None:
    with pytest.raises(UsageError) as info:
        apply_limits(parse_args([]), env)
    assert str(info.value).startswith(words) and "\x1b" not in str(info.value)


def test_bad_limit_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse_args(["--header-timeout", "0"])
    assert info.value.code == 2 and "must be more than 0 seconds" in capsys.readouterr().err


def test_bad_limit_env_exits_2_with_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "server", "--no-env-file"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env=server_env(None, MCP_MAX_SESSIONS="lots"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "mcp-search-server: error: MCP_MAX_SESSIONS: not a whole number: 'lots'"
    assert "Traceback" not in proc.stderr


@given(st.text())
@settings(max_examples=300)
def test_escaped_text_is_one_visible_line(text: str) -> None:
    out = escape(text)
    assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") for ch in out)
    assert len(out.splitlines()) <= 1
    assert escape(out) == out


def test_escape_and_url_path() -> None:
    assert escape("a\nb\r\x1b[2J\x85\u202e\u200b\u2028 서울\u3000x\\n") == r"a\x0ab\x0d\x1b[2J\x85\u202e\u200b\u2028 서울" + "\u3000x\\n"
    assert url_path(b"/mcp\nX %0a\x1b\xea\xb0\x80") == "/mcp%0AX%20%0a%1B%EA%B0%80"


def test_formatter_writes_one_line_per_record() -> None:
    formatter = OneLineFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("t", logging.WARNING, __file__, 1, "path %s", ("/x\n2026 INFO forged\x1b[0m\u202e",), None)
    assert formatter.format(record) == r"WARNING path /x\x0a2026 INFO forged\x1b[0m\u202e"
    try:
        raise ValueError("bad\x1b[31m value")
    except ValueError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    lines = formatter.format(record).split("\n")
    assert lines[0] == "ERROR failed" and lines[1].startswith("Traceback") and lines[-1] == r"ValueError: bad\x1b[31m value"


def test_help_is_korean_unless_english_is_asked_for(capsys, monkeypatch):
    """`mcp-search-server --help` speaks the client's language: Korean by default, English with
    --lang en or MCP_CHAT_LANG=en (it was English only). Every option is described."""
    monkeypatch.delenv("MCP_CHAT_LANG", raising=False)

    def help_text(*argv: str) -> str:
        with pytest.raises(SystemExit):
            parse_args([*argv, "--help"])
        return capsys.readouterr().out

    ko = help_text()
    assert ko.startswith("사용법: mcp-search-server") and "옵션:" in ko and "이 도움말을 출력하고 종료" in ko
    for option in ("--log-level", "--env-file", "--no-env-file", "--version", "--lang", "--auth-token"):
        assert option in ko
    assert "usage:" not in ko and "show this help" not in ko
    en = help_text("--lang", "en")
    assert en.startswith("usage: mcp-search-server") and not re.search(r"[\uac00-\ud7a3]", en)
    monkeypatch.setenv("MCP_CHAT_LANG", "en")
    assert help_text() == en
    assert parse_args(["--lang", "ko"]).transport == "streamable-http"


def test_every_option_is_in_the_configuration_page(monkeypatch) -> None:
    """docs/configuration.md lists the server's options; it lacked --log-level, --env-file,
    --no-env-file and --version."""
    import argparse

    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = page[page.index("## 검색 서버 옵션"):]
    seen: list[str] = []
    real = argparse.ArgumentParser.parse_args

    def spy(self, args=None, namespace=None):  # the server's own parser, as built
        seen.extend(o for a in self._actions for o in a.option_strings if o.startswith("--"))
        return real(self, args, namespace)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", spy)
    parse_args([])
    assert seen and [o for o in seen if f"`{o}" not in section] == []
