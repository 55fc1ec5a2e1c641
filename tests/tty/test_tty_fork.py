"""/fork and /rewind at a real terminal (tmux): what they print, the session they go on in, and what
the next request holds (issue 40)."""

from __future__ import annotations

import re

from tests.conftest import user_texts
from tests.tty.test_tty import ask


def test_fork_and_rewind_at_a_terminal(tty, llm, naver):
    pane = tty("--thread", "root", "--no-memory", "--context", "none")
    pane.wait_prompt(1, 60)
    ask(pane, "사과는 빨갛다")
    ask(pane, "바나나는 노랗다")
    screen = ask(pane, "/fork 1")
    fork = re.findall(r"현재 세션 ID: (\S+)", screen)[-1]
    assert fork != "root" and f"세션 root의 처음 1턴으로 새 세션 {fork}" in screen
    assert "이전 대화 1턴을 이어갑니다." in screen
    ask(pane, "포도는 보라색")
    assert user_texts(llm.turn_requests()[-1]) == ["사과는 빨갛다", "포도는 보라색"]
    ask(pane, "서울 날씨 검색해줘")  # a turn that runs a tool
    screen = ask(pane, "/rewind")
    tail = screen[screen.rindex("❯ /rewind"):]
    assert "마지막 1턴을 되감았습니다" in tail and "web_search" in tail and "되돌려지지 않습니다" in tail
    kept = re.search(r"세션 (\S+)에 보관했습니다", tail).group(1)
    ask(pane, "무슨 색?")
    assert user_texts(llm.turn_requests()[-1]) == ["사과는 빨갛다", "포도는 보라색", "무슨 색?"]
    listing = ask(pane, "/threads")
    listing = listing[listing.rindex("❯ /threads"):]
    assert re.search(rf"{fork[:20]}\S*\s+3\s.*root의 1턴에서 포크", listing)  # long ids are cut to the column
    assert re.search(rf"{kept[:20]}\S*\s+3\s.*되감기 보관 \({fork[:8]}, 2턴 뒤\)", listing)
    assert re.search(r"root\s+2\s", listing)
    ask(pane, f"/resume {kept}")
    ask(pane, "다시 묻기")
    assert "서울 날씨 검색해줘" in user_texts(llm.turn_requests()[-1])  # recoverable
