"""Successful searches over every transport: cleaned JSON text, extra fields, paging, the size cap,
and what the (stub) Naver API received."""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult

from tests.server.helpers import CLIENT_ID, CLIENT_SECRET, RunningServer
from tests.stubs.naver_stub import NaverStub

QUERY = "서울 맛집"


def ok_json(result: CallToolResult) -> tuple[str, dict[str, Any]]:
    assert result.is_error is False, result.content
    assert len(result.content) == 1 and result.content[0].type == "text"
    text = result.content[0].text
    return text, json.loads(text)


def test_web_search_result_is_clean_readable_json(server: RunningServer, naver_stub: NaverStub) -> None:
    text, data = ok_json(server.mcp.call("web_search", {"query": QUERY, "display": 3}))
    for raw in ("<b>", "</b>", "&quot;", "&amp;", "&lt;", "&gt;", "\\u"):
        assert raw not in text, raw
    assert QUERY in text  # Korean as characters
    assert data["query"] == QUERY and data["total"] == 1234 and data["start"] == 1
    assert "truncated" not in data
    assert len(data["items"]) == 3
    first = data["items"][0]
    assert set(first) == {"title", "link", "description"}
    assert first["title"] == f"{QUERY} 관련 웹 문서 1"
    assert first["description"] == f'"{QUERY}"에 대한 1번째 결과 & 설명입니다. <참고>'
    assert first["link"].startswith("https://example.com/webkr/1?q=")
    assert all("  " not in value for item in data["items"] for value in item.values())  # collapsed


def test_web_search_request_sent_to_naver(server: RunningServer, naver_stub: NaverStub) -> None:
    ok_json(server.mcp.call("web_search", {"query": f"  {QUERY}  "}))
    assert len(naver_stub.requests) == 1
    request = naver_stub.requests[0]
    assert request["method"] == "GET" and request["path"] == "/v1/search/webkr.json"
    assert request["params"] == {"query": QUERY, "display": "10", "start": "1"}  # no sort for webkr
    assert request["headers"]["x-naver-client-id"] == CLIENT_ID
    assert request["headers"]["x-naver-client-secret"] == CLIENT_SECRET


def test_news_search_fields_and_sort(server: RunningServer, naver_stub: NaverStub) -> None:
    text, data = ok_json(server.mcp.call("news_search", {"query": "금리 인상", "display": 2, "sort": "date"}))
    assert naver_stub.requests[-1]["path"] == "/v1/search/news.json"
    assert naver_stub.requests[-1]["params"] == {"query": "금리 인상", "display": "2", "start": "1", "sort": "date"}
    assert [set(i) for i in data["items"]] == [{"title", "link", "description", "pubDate", "originallink"}] * 2
    assert data["items"][1]["pubDate"] == "Mon, 02 Jun 2025 09:02:00 +0900"
    assert data["items"][1]["originallink"] == "https://press.example.com/article/2"
    assert "<b>" not in text


def test_blog_search_fields_and_default_sort(server: RunningServer, naver_stub: NaverStub) -> None:
    _, data = ok_json(server.mcp.call("blog_search", {"query": "제주 여행", "display": 1}))
    assert naver_stub.requests[-1]["path"] == "/v1/search/blog.json"
    assert naver_stub.requests[-1]["params"]["sort"] == "sim"
    (item,) = data["items"]
    assert set(item) == {"title", "link", "description", "bloggername", "postdate"}
    assert item["bloggername"] == "여행 블로거 1" and item["postdate"] == "20250602"


def test_paging_with_start_and_display(server: RunningServer, naver_stub: NaverStub) -> None:
    _, data = ok_json(server.mcp.call("web_search", {"query": "파이썬", "display": 3, "start": 11}))
    assert naver_stub.requests[-1]["params"] == {"query": "파이썬", "display": "3", "start": "11"}
    assert data["start"] == 11
    assert [i["title"] for i in data["items"]] == [f"파이썬 관련 웹 문서 {n}" for n in (11, 12, 13)]


def test_zero_results_is_a_normal_result(server: RunningServer, naver_stub: NaverStub) -> None:
    naver_stub.set_mode("empty")
    for tool in ("web_search", "news_search", "blog_search"):
        _, data = ok_json(server.mcp.call(tool, {"query": "존재하지않는검색어"}))
        assert data == {"query": "존재하지않는검색어", "total": 0, "start": 1, "items": []}


def test_many_long_items_are_capped_with_a_note(server: RunningServer, naver_stub: NaverStub) -> None:
    naver_stub.set_mode("huge", count=100, item_chars=1000)
    text, data = ok_json(server.mcp.call("web_search", {"query": "긴 결과", "display": 100}))
    assert len(text) <= 4000
    assert data["truncated"] is True
    kept = len(data["items"])
    assert 1 <= kept < 100
    assert f"100개 중 {kept}개만 포함" in data["note"] and "truncated" in data["note"]
    assert f"start={1 + kept}" in data["note"]
    assert data["items"][0]["title"] == "긴 결과 관련 웹 문서 1"


def test_single_huge_item_is_shortened(server: RunningServer, naver_stub: NaverStub) -> None:
    naver_stub.set_mode("huge", count=1, item_chars=20000)
    text, data = ok_json(server.mcp.call("blog_search", {"query": "큰 항목"}))
    assert len(text) <= 4000
    assert data["truncated"] is True and "설명을 줄였습니다" in data["note"]
    (item,) = data["items"]
    assert item["description"].endswith("…") and len(item["description"]) > 1000
    assert item["bloggername"] == "여행 블로거 1"


def test_one_http_client_reuses_its_connection(server: RunningServer, naver_stub: NaverStub) -> None:
    for _ in range(3):
        ok_json(server.mcp.call("web_search", {"query": "연결 재사용"}))
    clients = {r["client"] for r in naver_stub.requests}
    assert len(naver_stub.requests) == 3 and len(clients) == 1, clients
