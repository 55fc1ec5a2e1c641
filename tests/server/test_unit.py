"""In-process checks of the pure parts: cleaning, validation, the size cap, config, CLI defaults."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import naver
from server.__main__ import parse_args
from server.results import clean_text, fit_result, render


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
