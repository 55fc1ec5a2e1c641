"""The rich renderer (interactive terminals): Markdown answers, compact tool lines, status line."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from client.engine.mcp.hub import ToolProgress
from client.ui.render import Status, cells, cut, fit_parts
from client.ui.render_rich import RichRenderer, Tail, column_widths, status_line

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
    printed = buf.getvalue()  # the finished blocks, for good; the live region has the last one
    assert "가게 A" in printed and "print('hi')" not in printed
    r.end_turn()
    out = buf.getvalue()
    assert "정리" in out and "## 정리" not in out
    assert "• 첫째" in out and "• 둘째" in out
    assert "print('hi')" in out and "```" not in out
    assert "가게 A" in out and "|---|" not in out and "| 가게 A |" not in out
    assert out.count("첫째") == 1
    whole, _, _ = rich()
    whole.console.print(Markdown(MD))  # block by block, it looks as the whole answer does
    assert lines(out) == lines(whole.console.file.getvalue()), out


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
        "HCX-005 · 세션 demo · 4턴 (컨텍스트 3) · 1,234 토큰 · 예산 1.0% · 트리밍함 · 요약함 · 2.3s"]
    r, buf, _ = rich()
    r.status(Status("HCX-005", "0123456789abcdef0123", 1, 1, 500, None, 1000))
    assert lines(buf.getvalue()) == ["HCX-005 · 세션 01234567… · 1턴 (컨텍스트 1) · ~500 토큰 · 예산 50.0% · 0.0s"]


LONG_MODEL = "Qwen2.5-Coder-1.5B-Instruct Q4_K_M-imatrix-experimental-long-name"


def test_status_line_fits_100_columns_however_long_the_model_and_thread():
    """Issue 27: it was ~180 columns (wrapping to 2-3 lines) with the local model's note in it."""
    st = Status(LONG_MODEL, "f" * 40, 120, 5, 13456, None, 131072, trimmed=3, seconds=12.3, via="로컬")
    for width, want in ((100, 100), (200, 100), (64, 64)):  # never wider than 100, nor than the terminal
        r, buf, _ = rich(width=width)
        r.status(st)
        got = lines(buf.getvalue())
        assert len(got) == 1 and cells(got[0]) <= want, (width, got)
        assert "세션 ffffffff…" in got[0] or width < 100
    line = status_line(st, 100)
    assert line.startswith("Qwen2.5-Coder") and "…" in line.split(" · ")[0]  # the model name is cut first
    for kept in ("세션 ffffffff…", "120턴 (컨텍스트 5)", "~13,456 토큰", "예산 10.3%", "트리밍함"):
        assert kept in line, kept
    plain = Status(LONG_MODEL, "f" * 40, 12, 5, 3456, None, 131072, seconds=12.3)
    assert status_line(plain, 100).endswith(" · 세션 ffffffff… · 12턴 (컨텍스트 5) · ~3,456 토큰 · 예산 2.6% · 12.3s")
    crowded = Status(LONG_MODEL, "f" * 40, 12345, 12, 123456, None, 131072, trimmed=3, summarized=True, seconds=123.4,
                     via="로컬")
    line = status_line(crowded, 100)  # then the seconds and the budget go, and the model name is cut further
    assert cells(line) <= 100 and "123.4s" not in line and "12345턴" in line and "요약함" in line
    short = Status("HCX-005", "demo", 1, 1, 500, None, 1000, via="CLOVA Studio")
    assert status_line(short, 100) == "HCX-005 · CLOVA Studio · 세션 demo · 1턴 (컨텍스트 1) · ~500 토큰 · 예산 50.0% · 0.0s"


def test_a_narrow_status_line_keeps_the_model_before_its_provider():
    """At 60 columns the line kept `CLOVA Studio…` and dropped the model's name: now the model
    comes first and the provider goes (after the seconds) before the model's name is cut."""
    from client.core.config import Settings
    from client.ui.provider_label import status_names

    model, via = status_names(Settings(model="HCX-007"))
    assert (model, via) == ("HCX-007", "CLOVA Studio")
    st = Status(model, "f" * 40, 12, 5, 3456, None, 131072, trimmed=1, seconds=12.3, via=via)
    r, buf, _ = rich(width=60)
    r.status(st)
    [line] = lines(buf.getvalue())
    assert cells(line) <= 60 and line.startswith("HCX-007 · 세션 ffffffff…") and "CLOVA" not in line, line
    assert status_line(st, 100).startswith("HCX-007 · CLOVA Studio · ")
    assert status_names(Settings(provider="openai", model="llama3.2", base_url="http://127.0.0.1:11434/v1")) == (
        "llama3.2", "127.0.0.1:11434")


def test_cut_and_fit_count_terminal_cells():
    assert cells("가나다") == 6 and cut("가나다라", 5) == "가나…" and cut("abc", 3) == "abc"
    assert fit_parts(["a" * 40, "b", "c"], 34, droppable=(2,)) == "a" * 25 + "… · b · c"
    assert fit_parts(["a" * 40, "b", "c"], 26, droppable=(2,)) == "a" * 19 + "… · b"
    assert fit_parts(["a" * 40, "b" * 5, "c"], 20, droppable=(2,)) == "a" * 11 + "… · bbbbb"
    assert fit_parts(["a" * 5, "b" * 10, "c" * 10], 20, droppable=(2, 1)) == "aaaaa · bbbbbbbbbb"


def test_the_local_models_note_is_in_help_and_at_the_start_not_on_the_status_line():
    from client.core.config import Settings
    from client.ui.provider_label import local_note, provider_lines

    status, help_line = provider_lines(Settings(provider="local"))
    assert "소형" not in status and "소형 모델" in help_line
    assert "소형 모델" in (local_note(Settings(provider="local")) or "")
    assert local_note(Settings(provider="local", provider_auto=True)) is None  # the start said so already
    assert local_note(Settings(provider="clova")) is None


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


@pytest.mark.parametrize("width", [60, 80, 110])
def test_a_narrow_terminal_cuts_long_text_columns_never_a_number_or_a_whole_column(width):
    """/threads at 110 columns lost its turn counts and dates to rich's own squeeze."""
    r, buf, _ = rich(width=width)
    rows = [["3b0197db2d584105bf06a443f6045bc6", 2, "2026-12-05 19:02", "내 자전거는 빨간색이야.", "57e19c5d의 1턴에서 포크"],
            ["5d979d6b46614902915acf87ccd36e97", 12, "2026-12-05 19:02", "내 강아지 이름은 보리이고, 나는 부산에 살아.",
             "되감기 보관 (57e19c5d, 1턴 뒤)"]]
    r.table(["세션 ID", "턴", "마지막 활동", "제목", "출처"], rows)
    head, *got = lines(buf.getvalue())
    assert head.split()[:3] == ["세션", "ID", "턴"] and len(got) == 2
    assert all(cells(line) <= width for line in got)
    for line, turns in zip(got, ("2", "12")):
        parts = line.split()
        assert parts[1] == turns and parts[2] == "2026-12-05"  # the id is cut, never the count
    if width >= 80:  # the long id and the title give first
        assert all("2026-12-05 19:02" in line for line in got)
        assert "3b0197db2d58" in got[0] and "내 자전거" in got[0]


def test_column_widths_give_from_the_widest_text_column_first():
    cols = [[Text("id"), Text("x" * 32)], [Text("n"), Text("12")], [Text("title"), Text("y" * 40)]]
    assert column_widths(cols, [False, True, False], 200) == [32, 2, 40]
    assert column_widths(cols, [False, True, False], 60) == [27, 2, 27]
    assert column_widths(cols, [False, True, False], 10) == [8, 2, 8]  # floors: nothing vanishes


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


CSI = re.compile(r"\x1b\[(\??)(\d*(?:;\d*)*)([A-Za-z])")


def replay(data: str) -> list[str]:
    """The screen lines that `data` leaves (enough of a terminal for rich's live region:
    text, CR, LF, cursor up, erase line; other sequences ignored)."""
    rows: list[list[str]] = [[]]
    row = col = 0
    i = 0
    while i < len(data):
        m = CSI.match(data, i)
        if m:
            n = int(m.group(2) or 1) if m.group(2).isdigit() else 1
            if m.group(1) == "" and m.group(3) == "A":
                row = max(0, row - n)
            elif m.group(1) == "" and m.group(3) == "K":
                rows[row] = []
            i = m.end()
            continue
        ch = data[i]
        i += 1
        if ch == "\r":
            col = 0
        elif ch == "\n":
            row, col = row + 1, 0
            rows.extend([] for _ in range(row + 1 - len(rows)))
        else:
            line = rows[row]
            line.extend(" " for _ in range(col + 1 - len(line)))
            line[col] = ch
            col += 1
    return ["".join(r).rstrip() for r in rows]


def test_a_refresh_during_a_print_never_moves_the_cursor_over_earlier_lines():
    """The race of the flaky tmux test (the second answer over the first turn's lines): rich
    takes the live region's lock only while it computes where the region starts, so a refresh
    between that and the drawing shrank the region and the print then moved up by the old
    height. A render hook after the live region's waits, inside that window, for the refresh
    thread to draw: with the renderer holding the lock it never can, and the screen is whole."""
    import threading
    import time

    buf = io.StringIO()
    console = Console(file=buf, width=60, height=60, force_terminal=True, color_system=None, highlight=False,
                      emoji=False)
    r = RichRenderer(out=Stream(), err=Stream(True), console=console)
    r.line("BEFORE-1")
    r.line("BEFORE-2")
    drawn = threading.Event()
    view = r._view

    def watched():  # the refresh thread asks the renderer what to draw
        if threading.current_thread() is not threading.main_thread():
            drawn.set()
        return view()

    r._view = watched  # type: ignore[method-assign]
    r.begin_turn()
    answer = "\n\n".join(f"answer line {i}" for i in range(1, 21))
    r.stream(answer)
    deadline = time.monotonic() + 30
    # the live region is tall (its last characters may be held back while secrets are known)
    while "answer line 10" not in buf.getvalue():
        assert time.monotonic() < deadline, "the live region never drew the answer"
        time.sleep(0.01)

    raced = []

    class InTheWindow:  # runs after the live region's hook: its cursor move is already decided
        def process_renderables(self, renderables):
            drawn.clear()
            raced.append(drawn.wait(1.0))
            return renderables

    console.push_render_hook(InTheWindow())
    r.tool_call("web_search", {"query": "x"})  # prints the answer for good, then the tool line
    console.pop_render_hook()
    r.end_turn()
    r.line("AFTER")
    screen = [ln for ln in replay(buf.getvalue()) if ln.strip()]
    assert raced and not any(raced), "the refresh thread drew while a print was between its hook and its drawing"
    assert screen[:2] == ["BEFORE-1", "BEFORE-2"], screen
    assert [ln for ln in screen if ln.startswith("answer line")] == [f"answer line {i}" for i in range(1, 21)], screen
    assert screen[-1] == "AFTER" and any("web_search" in ln for ln in screen), screen


def test_the_finished_part_of_a_streamed_answer():
    """Blocks before the last blank line outside a code fence; inside an open fence, its whole lines
    (closed by the fence to be drawn); never a line that may still grow."""
    from client.ui.live_answer import finished, open_fence

    assert finished("첫 문단\n\n둘째") == (len("첫 문단\n"), "")
    assert finished("첫 문단\n\n```py\nx = 1\ny") == (len("첫 문단\n\n```py\nx = 1"), "\n```")
    assert finished("```py\n") == (0, "") and finished("\n\n\n문단") == (0, "")
    assert finished("```\n\n\n") == (len("```\n\n"), "\n```")  # blank lines in code are code
    assert open_fence("글\n\n~~~~ sh\necho") == "~~~~ sh" and open_fence("```\nx\n```\n") == ""



def test_the_live_region_counts_the_rows_a_terminal_wraps_wide_characters_onto():
    """A wide character that does not fit at the end of a row starts the next one: cells / width
    counts too few rows, and the region's first rows were left on screen after a resize."""
    from client.ui.live_answer import rows

    assert [rows("가가가", 3), rows("a가가", 4), rows("abcd", 4), rows("", 9)] == [3, 2, 1, 1]
    assert rows("낱말 " * 20, 60) == 2 and rows("a" + "가" * 30, 60) == 2 and rows("가" * 30 + "a", 60) == 2

def test_cells_count_what_the_terminal_draws():
    """Combining marks and zero-width joiners take no cell, a modified emoji two (rich.cells): the
    hand-written count gave 'àb́ĉ' 6 cells and a family emoji 8, and cut long lines short."""
    assert [cells(s) for s in ("àb́ĉ", "👍🏽", "한\u200b글", "가")] == [3, 2, 4, 2]
    assert cut("àb́ĉdef", 4) == "àb́ĉ…" and cells(cut("abc한국어", 5)) <= 5
