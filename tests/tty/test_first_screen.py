"""The first screen and the habits of other terminal tools (issue 27), in a real terminal (tmux):
the thread picker, /clear as a fresh context, /cls and Ctrl-L, the status line at 100 columns."""

from __future__ import annotations

import re
import sqlite3
import unicodedata

from tests.conftest import thread_id_of, user_texts
from tests.tty.test_tty import ask

QUESTION = "세션 ID를 입력하세요(새 세션 시작은 Enter):"
INTRO = "세션은 저장된 대화 하나입니다."


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def stored(tty, *threads: tuple[str, str]) -> None:
    """Threads made beforehand, one turn each, oldest first."""
    for tid, text in threads:
        r = tty.runner("-p", text, "--thread", tid, "--no-memory")
        assert r.code == 0, r.err


def test_the_picker_lists_recent_threads_and_resumes_by_number_or_prefix(tty, llm, naver):
    stored(tty, ("alpha-1", "사과는 빨갛다"), ("beta-2", "바나나는 노랗다"))
    pane = tty("--no-memory")
    screen = pane.wait_for(QUESTION, 60)
    before = screen[:screen.index(QUESTION)]
    assert INTRO in before and "안녕하세요" not in before  # explained first, greeted after
    rows = [ln.split() for ln in before.splitlines() if re.match(r"\s*\d+\s", ln)]
    assert [(r[0], r[1], r[-2], r[-1]) for r in rows] == [("1", "바나나는", "1", "beta-2"), ("2", "사과는", "1", "alpha-1")]
    assert all("방금" in ln for ln in before.splitlines() if re.match(r"\s*\d+\s", ln))  # the age
    pane.line("2")
    screen = pane.wait_prompt(1, 60)
    assert "현재 세션 ID: alpha-1\n이전 대화 1턴을 이어갑니다." in screen
    ask(pane, "무슨 과일?")
    assert user_texts(llm.turn_requests()[-1]) == ["사과는 빨갛다", "무슨 과일?"]
    pane.line("/exit")
    assert pane.exit_status() == 0

    pane = tty("--no-memory")  # an id prefix
    pane.wait_for(QUESTION, 60)
    pane.line("bet")
    assert "현재 세션 ID: beta-2" in pane.wait_prompt(1, 60)
    ask(pane, "그리고?")
    assert user_texts(llm.turn_requests()[-1]) == ["바나나는 노랗다", "그리고?"]
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_the_picker_refuses_a_bad_answer_and_enter_starts_a_new_thread(tty, llm, naver, tmp_path):
    stored(tty, ("alpha-1", "사과는 빨갛다"))
    with sqlite3.connect(tmp_path / "chat.db") as db:  # a title that would drive the terminal
        db.execute("UPDATE threads SET title=? WHERE thread_id='alpha-1'", ("evil\x1b]2;pwned\x07\x1b[2J title",))
    pane = tty("-r", "--no-memory")  # -r opens the same picker
    screen = pane.wait_for(QUESTION, 60)
    assert "evil title" in screen, screen
    assert "pwned" not in pane.tmux("display", "-p", "-t", "chat", "#{pane_title}")  # shown, never obeyed
    pane.line("7")
    pane.wait_for("목록에 없는 번호입니다: 7")
    pane.wait_for(QUESTION, count=2)
    pane.line("bad id!")
    pane.wait_for("세션 ID가 올바르지 않습니다")
    pane.wait_for(QUESTION, count=3)
    pane.keys("Enter")
    screen = pane.wait_prompt(1, 60)
    tid = thread_id_of(screen)
    assert tid != "alpha-1" and "안녕하세요" in screen
    ask(pane, "새 질문")
    assert user_texts(llm.turn_requests()[-1]) == ["새 질문"]  # nothing of alpha-1
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_the_picker_takes_the_commands_it_mentions(tty, llm, naver):
    """`... 외 N개 (/threads 로 전체 목록)` is a command the question takes: /threads lists every
    session (a number then picks from all of them), /help says what may be typed, another command
    says it waits for a session, /exit leaves (before: each was 'not a valid session ID')."""
    stored(tty, *((f"old-{i:02}", f"질문 {i}") for i in range(11)))  # more than the 10 rows shown
    pane = tty("--no-memory")
    pane.wait_for("... 외 1개 (/threads 로 전체 목록)", 90)
    pane.line("/threads")
    screen = pane.wait_for(QUESTION, count=2)
    assert re.search(r"\b11\s.*old-00", screen) and "세션 ID가 올바르지 않습니다" not in screen
    pane.line("/help")
    pane.wait_for("/threads: 전체 목록 · /exit: 종료")
    pane.line("/tokens")
    pane.wait_for("여기서는 /threads, /help, /exit 만 됩니다 (/tokens 은(는) 세션을 고른 뒤에 쓰세요).")
    pane.wait_for(QUESTION, count=4)
    pane.line("11")  # the 11th of the whole list
    assert "현재 세션 ID: old-00" in pane.wait_prompt(1, 60)
    pane.keys("C-d")
    assert pane.exit_status() == 0
    pane = tty("--no-memory")
    pane.wait_for(QUESTION, 60)
    pane.line("/exit")
    assert pane.exit_status() == 0
    assert "현재 세션 ID" not in pane.screen()


def test_with_no_thread_stored_a_new_one_starts_with_a_greeting(tty, llm, naver):
    pane = tty("--no-memory")
    screen = pane.wait_prompt(1, 60)
    assert QUESTION not in screen and INTRO not in screen
    assert "현재 세션 ID:" in screen and "안녕하세요" in screen
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_clear_starts_a_fresh_context_and_cls_and_ctrl_l_clear_only_the_screen(tty, llm, naver):
    pane = tty("--thread", "clr", "--no-memory")
    pane.wait_prompt(1, 60)
    ask(pane, "사과는 빨갛다")
    pane.line("/clear")  # (a cleared screen: wait for its signs, not for a prompt count)
    screen = pane.wait_for(lambda s: len(re.findall(r"현재 세션 ID: (\S+)", s)) >= 2 and "❯" in pane.visible(), 60)
    new_id = re.findall(r"현재 세션 ID: (\S+)", screen)[-1]
    assert new_id != "clr" and "사과는 빨갛다" not in pane.visible()
    ask(pane, "무슨 과일?")
    assert user_texts(llm.turn_requests()[-1]) == ["무슨 과일?"]  # a fresh context
    listing = ask(pane, "/threads").split("❯ /threads")[-1]
    assert re.search(r"clr\s+1\s", listing) and new_id in listing  # the old thread is kept
    pane.line("/cls")
    pane.wait_for(lambda s: "무슨 과일?" not in pane.visible() and "❯" in pane.visible())
    pane.line("또?")
    pane.wait_for(lambda s: re.search(r"답변 \d+: 또\?", s) is not None, 60)
    assert user_texts(llm.turn_requests()[-1]) == ["무슨 과일?", "또?"]  # the same thread
    pane.type("지워질 화면")
    pane.wait_for("❯ 지워질 화면")
    pane.keys("C-l")
    pane.wait_for(lambda s: "답변" not in pane.visible() and "❯ 지워질 화면" in pane.visible())
    pane.keys("C-u")
    pane.line("/exit")
    assert pane.exit_status() == 0


def test_status_line_fits_100_columns(tty, llm, naver):
    tid = "a-rather-long-thread-id-0123456789abcdef"
    model = "HCX-005-with-an-unusually-long-deployment-name-for-testing"
    pane = tty("--thread", tid, "--no-memory", "-m", model, width=100)
    pane.wait_prompt(1, 60)
    screen = ask(pane, "안녕하세요")
    [status] = [ln for ln in screen.splitlines() if "세션 a-rather…" in ln]  # -J joins a wrapped line
    assert cells(status) <= 100, status
    assert status.startswith("HCX-005-with") and "1턴 (컨텍스트 1)" in status and "예산" in status
    assert llm.turn_requests()[-1]["model"] == model
    pane.keys("C-d")
    assert pane.exit_status() == 0
