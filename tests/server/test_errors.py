"""Every error path over every transport: an MCP tool error (isError) with one clear sentence,
no traceback, no secret, and the same session keeps working afterwards."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.types import CallToolResult

from tests.server.helpers import CLIENT_ID, CLIENT_SECRET, RunningServer
from tests.stubs.naver_stub import NaverStub


def error_text(result: CallToolResult) -> str:
    assert result.is_error is True, result.content
    assert len(result.content) == 1 and result.content[0].type == "text"
    text = result.content[0].text
    assert "\n" not in text and text.endswith("."), text  # one sentence
    for leak in (CLIENT_ID, CLIENT_SECRET, "Traceback", "Error executing tool", "pydantic", "validation error"):
        assert leak not in text, (leak, text)
    return text


def assert_still_works(server: RunningServer, naver_stub: NaverStub) -> None:
    """The next call in the same session succeeds and the server logged no traceback."""
    naver_stub.set_mode("ok")
    result = server.mcp.call("news_search", {"query": "다음 호출", "display": 1})
    assert result.is_error is False, result.content
    assert json.loads(result.content[0].text)["items"][0]["title"] == "다음 호출 관련 뉴스 1"
    assert "Traceback" not in server.log()


BAD_ARGUMENTS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("web_search", {"query": ""}, ["검색어", "query must not be empty"]),
    ("news_search", {"query": "   \t "}, ["검색어", "query must not be empty"]),
    ("web_search", {"query": "x", "display": 0}, ["display", "1", "100", "입력값: 0"]),
    ("blog_search", {"query": "x", "display": 101}, ["display", "between 1 and 100"]),
    ("web_search", {"query": "x", "start": 0}, ["start", "1000"]),
    ("news_search", {"query": "x", "start": 1001}, ["start", "between 1 and 1000", "1001"]),
    ("news_search", {"query": "x", "sort": "popular"}, ["sort", "'sim'", "'date'", "popular"]),
    ("blog_search", {"query": "x", "sort": ""}, ["sort", "'sim'", "'date'"]),
    ("web_search", {"query": "x", "display": "many"}, ["display", "invalid argument"]),
    ("web_search", {"display": 5}, ["query", "invalid argument"]),
]


@pytest.mark.parametrize(("tool", "arguments", "words"), BAD_ARGUMENTS)
def test_bad_arguments_are_refused_before_calling_naver(
    server: RunningServer, naver_stub: NaverStub, tool: str, arguments: dict[str, Any], words: list[str]
) -> None:
    text = error_text(server.mcp.call(tool, arguments))
    for word in words:
        assert word in text, (word, text)
    assert naver_stub.requests == []  # validated before any request
    assert_still_works(server, naver_stub)


NAVER_FAULTS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("status", {"status": 401}, ["인증", "401", "NAVER_CLIENT_ID", "authentication failed"]),
    ("status", {"status": 403}, ["403", "검색 API", "not enabled"]),
    ("status", {"status": 429}, ["한도", "25,000", "quota", "rate limited"]),
    ("status", {"status": 500}, ["HTTP 500", "잠시 후", "server error"]),
    ("status", {"status": 503, "body": "<html>busy</html>"}, ["HTTP 503", "server error"]),
    ("status", {"status": 418, "body": "{}"}, ["HTTP 418", "rejected"]),
    ("naver_error", {"code": "SE01"}, ["SE01", "검색어", "query"]),
    ("naver_error", {"code": "SE02"}, ["SE02", "display"]),
    ("naver_error", {"code": "SE03"}, ["SE03", "start"]),
    ("naver_error", {"code": "SE04"}, ["SE04", "sort"]),
    ("naver_error", {"code": "SE05"}, ["SE05", "NAVER_API_BASE_URL", "invalid search API"]),
    ("naver_error", {"code": "SE06"}, ["SE06", "인코딩", "encoding"]),
    ("naver_error", {"code": "SE99"}, ["SE99", "system error"]),
    ("naver_error", {"code": "XX42", "status": 400}, ["HTTP 400", "XX42"]),
    ("not_json", {}, ["JSON", "non-JSON"]),
    ("unexpected", {}, ["형식", "unexpected response format"]),
]


@pytest.mark.parametrize(("mode", "options", "words"), NAVER_FAULTS, ids=lambda v: str(v)[:24])
def test_naver_faults_become_clear_tool_errors(
    server: RunningServer, naver_stub: NaverStub, mode: str, options: dict[str, Any], words: list[str]
) -> None:
    naver_stub.set_mode(mode, **options)
    text = error_text(server.mcp.call("web_search", {"query": "오류 상황"}))
    for word in words:
        assert word in text, (word, text)
    assert len(naver_stub.requests) == 1
    assert_still_works(server, naver_stub)


def test_naver_timeout_becomes_a_clear_tool_error(short_timeout_server: RunningServer, naver_stub: NaverStub) -> None:
    naver_stub.set_mode("slow", delay=3.0)
    text = error_text(short_timeout_server.mcp.call("web_search", {"query": "느린 응답"}))
    for word in ("0.5초", "timed out"):
        assert word in text, (word, text)
    assert len(naver_stub.requests) == 1
    assert_still_works(short_timeout_server, naver_stub)


def test_naver_error_message_echoing_the_secret_is_not_passed_on(
    server: RunningServer, naver_stub: NaverStub
) -> None:
    body = {"errorCode": "024", "errorMessage": f"bad key {CLIENT_ID}:{CLIENT_SECRET}"}
    naver_stub.set_mode("status", status=401, body=body)
    error_text(server.mcp.call("blog_search", {"query": "비밀"}))
    assert_still_works(server, naver_stub)


def test_wrong_credentials_get_the_auth_message(server: RunningServer, naver_stub: NaverStub) -> None:
    naver_stub.client_secret = "another-secret"
    try:
        text = error_text(server.mcp.call("news_search", {"query": "인증"}))
    finally:
        naver_stub.client_secret = CLIENT_SECRET
    assert "401" in text and "NAVER_CLIENT_SECRET" in text
    assert_still_works(server, naver_stub)


def test_unknown_tool_is_a_tool_error(server: RunningServer, naver_stub: NaverStub) -> None:
    result = server.mcp.call("image_search", {"query": "고양이"})
    assert result.is_error is True and "image_search" in result.content[0].text
    assert_still_works(server, naver_stub)
