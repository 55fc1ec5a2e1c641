"""The rich renderer (interactive terminals): Markdown answers, compact tool lines, status line."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console

from client.engine.mcp.hub import ToolProgress
from client.ui.render import Status
from client.ui.render_rich import RichRenderer, Tail

MD = "## 정리\n\n| 이름 | 평점 |\n|---|---|\n| 가게 A | 4.5 |\n\n- 첫째\n- 둘째\n\n```python\nprint('hi')\n```\n"


class Stream(io.StringIO):
    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def rich(width: int = 100, terminal: bool = False, err_tty: bool = True) -> tuple[RichRenderer, io.StringIO, Stream]:
    buf, err = io.StringIO(), Stream(err_tty)
    console = Console(file=buf, width=width, height=30, force_terminal=terminal, color_system="truecolor" if terminal else None,
                      highlight=False, emoji=False)
    return RichRenderer(out=Stream(), err=err, console=console), buf, err


def lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.splitlines()]


def test_streamed_answer_is_printed_once_as_markdown():
    r, buf, _ = rich()
    r.begin_turn()
    for i in range(0, len(MD), 7):
        r.stream(MD[i:i + 7])
    assert buf.getvalue() == ""  # nothing final yet: the live region shows the tail
    r.end_turn()
    out = buf.getvalue()
    assert "정리" in out and "## 정리" not in out
    assert "• 첫째" in out and "• 둘째" in out
    assert "print('hi')" in out and "```" not in out
    assert "가게 A" in out and "|---|" not in out and "| 가게 A |" not in out
    assert out.count("첫째") == 1


def test_tool_lines_are_compact_with_duration():
    r, buf, _ = rich()
    r.begin_turn()
    r.stream("찾아볼게요.")
    r.tool_call("web_search", {"query": "서울 맛집", "display": 3})
    result = {"query": "서울 맛집", "total": 99, "items": [{"title": "맛집 A"}, {"title": "B"}, {"title": "C"}]}
    r.tool_result(json.dumps(result, ensure_ascii=False), False, "web_search")
    r.tool_call("news_search", {"query": "x"})
    r.tool_result("Naver 검색 API 오류입니다.", True, "news_search")
    r.end_turn()
    got = lines(buf.getvalue())
    assert got[0] == "찾아볼게요."  # text before a call is printed before it
    assert got[1] == '⏺ web_search(query="서울 맛집", display=3)'
    assert re.fullmatch(r"  ⎿  결과 3건 \(전체 99\) · 맛집 A · \d+\.\ds", got[2])
    assert got[3] == '⏺ news_search(query="x")'
    assert re.fullmatch(r"  ⎿  오류: Naver 검색 API 오류입니다\. · \d+\.\ds", got[4])


def test_status_line_names_model_thread_turns_tokens_budget_and_actions():
    r, buf, _ = rich()
    r.status(Status("HCX-005", "demo", 4, 3, 1200, 1234, 123904, trimmed=2, summarized=True, seconds=2.34))
    assert lines(buf.getvalue()) == [
        "HCX-005 · 세션 demo · 4턴 (컨텍스트 3턴) · 요청 1,234 토큰 · 예산의 1.0% · 트리밍함 · 요약함 · 2.3s"]
    r, buf, _ = rich()
    r.status(Status("HCX-005", "0123456789abcdef0123", 1, 1, 500, None, 1000))
    assert lines(buf.getvalue()) == ["HCX-005 · 세션 01234567… · 1턴 (컨텍스트 1턴) · 요청 ~500 토큰 · 예산의 50.0% · 0.0s"]


def test_errors_are_one_red_line_on_the_screen_or_plain_on_a_redirected_stderr():
    r, buf, err = rich(terminal=True)
    r.error("요청을 처리하는 중 오류가 발생했습니다: boom")
    assert "\x1b[31m" in buf.getvalue() and "boom" in buf.getvalue() and err.getvalue() == ""
    r, buf, err = rich(err_tty=False)
    r.error("boom")
    assert err.getvalue() == "boom\n" and buf.getvalue() == ""


def test_model_and_tool_text_cannot_drive_the_terminal_or_rich_markup():
    r, buf, _ = rich(terminal=True)
    r.begin_turn()
    r.stream("안녕 \x1b]0;pwned\x07[bold red]그대로[/bold red] \x1b[2J끝")
    r.tool_call("t\x1b[31m", {"q": "\x1b]8;;http://evil\x1b\\x"})
    r.tool_result("[link=http://evil]y[/link]\x07", False, "t")
    r.end_turn()
    out = buf.getvalue()
    for bad in ("\x1b]0;", "pwned\x07", "\x1b[2J", "\x1b]8;;http://evil", "\x07"):
        assert bad not in out, bad
    assert "[bold red]그대로[/bold red]" in out  # shown literally, not as markup
    assert "[link=http://evil]y[/link]" in out


def test_tables_and_blocks():
    r, buf, _ = rich()
    r.table(["턴", "입력", "출력", "합계"], [[1, 1121, 11, 1132], [2, 3414, 75, 3489], ["전체", 4535, 86, 4621]],
            title="토큰 사용량", header=True)
    got = lines(buf.getvalue())
    assert got[0] == "토큰 사용량"
    assert got[1].split() == ["턴", "입력", "출력", "합계"]
    assert got[2].split() == ["1", "1,121", "11", "1,132"]
    assert got[-1].split() == ["전체", "4,535", "86", "4,621"]
    r, buf, _ = rich()
    r.block("요약: 하나; 둘", "현재 요약")
    text = buf.getvalue()
    assert "현재 요약" in text and "요약: 하나; 둘" in text and "╭" in text


def test_tail_keeps_the_last_rows_of_a_long_answer():
    console = Console(file=io.StringIO(), width=40, force_terminal=False, color_system=None)
    with console.capture() as cap:
        console.print(Tail("\n".join(f"줄 {i}" for i in range(50)), 5))
    assert lines(cap.get()) == [f"줄 {i}" for i in range(45, 50)]


def test_progress_updates_the_spinner_and_prints_the_final_line():
    r, buf, _ = rich()
    r.begin_turn()
    r.progress(ToolProgress("t", 1, 3))
    assert "[진행] t: 1/3" in r._waiting and buf.getvalue() == ""
    r.progress(ToolProgress("t", 3, 3, state="done"))
    r.end_turn()
    assert lines(buf.getvalue()) == ["[진행] t: 완료 (3/3)"]
