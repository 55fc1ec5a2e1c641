"""The plain renderer (pipes, scripts): stable text, no ANSI; the pure helpers."""

from __future__ import annotations

import io
import json

from client.ui import i18n
from client.ui.render import Renderer, Status, call_summary, clean, preview, result_summary


class Stream(io.StringIO):
    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def plain() -> tuple[Renderer, Stream, Stream]:
    out, err = Stream(), Stream()
    return Renderer(out=out, err=err), out, err


def status(**kw) -> Status:
    base = dict(model="HCX-005", thread="demo", turn=3, context_turns=2, estimated=1234, reported=1240,
                budget=123904, trimmed=0, summarized=False, seconds=1.5)
    return Status(**{**base, **kw})


def test_clean_neutralizes_escape_sequences():
    evil = "a\x1b[31mred\x1b[0m \x1b]0;title\x07b\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ c\x07\x08\x9b"
    assert clean(evil) == "ared blink c"
    assert clean("줄1\r\n줄2\t탭") == "줄1\n줄2\t탭"


def test_preview_is_one_line_and_bounded():
    assert preview("a\n b\t\tc") == "a b c"
    assert preview("x" * 300, 10) == "x" * 10 + "…"


def test_plain_tool_lines_are_unchanged():
    r, out, err = plain()
    r.stream("부분 답")
    r.tool_call("web_search", {"query": "서울 맛집"})
    r.tool_result('{"items": []}', False, "web_search")
    r.tool_result("boom", True, "web_search")
    assert out.getvalue() == "부분 답\n"  # stdout not a terminal: only the answer
    assert err.getvalue() == (
        "[도구 선택]: web_search\n[도구 호출]: {\"query\": \"서울 맛집\"}\n"
        "[도구 응답]: {\"items\": []}\n[도구 오류]: boom\n"
    )


def test_status_lines_follow_stdout_to_a_terminal():
    out, err = Stream(tty=True), Stream()
    r = Renderer(out=out, err=err)
    r.info("현재 세션 ID: a")
    r.notice("트리밍")
    r.status(status(trimmed=1, summarized=True))
    assert out.getvalue().splitlines()[:2] == ["현재 세션 ID: a", "트리밍"] and err.getvalue() == ""
    piped = Renderer(out=Stream(), err=(e := Stream()))
    piped.info("현재 세션 ID: a")
    piped.line("/threads output")
    assert e.getvalue() == "현재 세션 ID: a\n" and piped.out.getvalue() == "/threads output\n"


def test_plain_status_line_is_unchanged():
    r, _, out = plain()  # piped: the status line goes to stderr
    r.status(status(trimmed=1, summarized=True))
    assert out.getvalue() == "[상태] 요청 토큰 추정 1234 / API 1240 · 예산의 1.0% · 컨텍스트 2턴 · 트리밍 · 요약\n"
    r2, _, out2 = plain()
    r2.status(status(reported=None, budget=0))
    assert out2.getvalue() == "[상태] 요청 토큰 추정 1234 · 예산의 0% · 컨텍스트 2턴\n"


def test_plain_turn_hooks_hints_and_tables():
    r, out, err = plain()
    r.begin_turn("생각 중")  # no spinner when piped
    r.stream("답")
    r.end_turn()  # ends the streamed line
    r.hint("/help 명령 목록")  # terminals only
    r.table(["세션 ID", "턴", "마지막 활동", "제목"], [["a", 2, "2025-01-01 10:00", "첫 질문"]], current=0)
    r.table(["턴", "입력", "출력"], [[1, 10, 2], ["전체", 10, 2]], title="토큰", header=True)
    r.block("# 요약\n- 하나")
    r.clear()  # not a terminal: nothing
    assert out.getvalue() == ("답\na\t2\t2025-01-01 10:00\t첫 질문\n토큰\n턴\t입력\t출력\n1\t10\t2\n전체\t10\t2\n"
                              "# 요약\n- 하나\n")
    assert err.getvalue() == ""
    assert "\x1b" not in out.getvalue()


def test_plain_errors_go_to_stderr_red_only_on_a_terminal():
    r, out, err = plain()
    r.error("실패")
    assert err.getvalue() == "실패\n" and out.getvalue() == ""
    tty_err = Stream(tty=True)
    Renderer(out=Stream(), err=tty_err).error("실패")
    assert tty_err.getvalue() == "\x1b[31m실패\x1b[0m\n"


def test_call_summary():
    assert call_summary("web_search", {"query": "서울 맛집", "display": 5}) == 'web_search(query="서울 맛집", display=5)'
    assert call_summary("t\x1b[2Jx", {}) == "tx()"
    long = call_summary("t", {"q": "가" * 300}, limit=20)
    assert long.endswith("…)") and len(long) < 40


def test_result_summary_of_search_json():
    doc = {"query": "q", "total": 1234, "start": 1, "items": [{"title": "첫 결과", "link": "x"}, {"title": "둘"}]}
    assert result_summary(json.dumps(doc, ensure_ascii=False)) == "결과 2건 (전체 1234) · 첫 결과"
    assert result_summary(json.dumps({"total": 0, "items": []})) == "결과 0건"
    assert result_summary("[1, 2, 3]") == "결과 3건"
    assert result_summary("plain\ntext") == "plain text"
    assert result_summary("") == "(빈 결과)"


def test_result_summary_in_english():
    i18n.set_lang("en")
    try:
        assert result_summary(json.dumps({"total": 50, "items": [{"title": "A"}]})) == "1 result (of 50) · A"
    finally:
        i18n.set_lang("ko")
