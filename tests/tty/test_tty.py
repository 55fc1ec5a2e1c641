"""The real interactive program in a pseudo-terminal (tmux), against the model and Naver stubs."""

from __future__ import annotations

import os
import re
import stat
import time

import pytest

from tests.conftest import roles, user_texts
from tests.faults.conftest import wait_for
from tests.stubs.llm_stub import prompt_tokens_of
from tests.tty.conftest import GREETING

MARKDOWN = ("## 정리\n\n| 이름 | 평점 |\n|---|---|\n| 가게 A | 4.5 |\n| 가게 B | 4.2 |\n\n"
            "- 첫째 항목\n- 둘째 항목\n\n```python\nprint('hi')\n```\n")
STATUS = re.compile(r"^HCX-005 · (?:CLOVA Studio · )?세션 (\S+) · (\d+)턴 \(컨텍스트 (\d+)\) · ~?([\d,]+) 토큰 · 예산 [\d.]+%")


def ask(pane, text: str, timeout: float = 30) -> str:
    """Send one line at the prompt and wait until the next prompt is drawn."""
    n = pane.prompts()
    pane.line(text)
    return pane.wait_prompt(n + 1, timeout)


def servers_up(pane, timeout: float = 60) -> None:
    """Until /mcp lists no server still connecting: a message typed earlier goes without the tools
    of a server that is not up yet (issue 41), which is right at a terminal but changes what a
    test that counts model calls sees. wait_prompt alone can see the prompt before its toolbar."""
    end = time.monotonic() + timeout
    while True:
        screen = ask(pane, "/mcp")
        if "연결 중" not in screen[screen.rindex("❯ /mcp"):]:
            return
        assert time.monotonic() < end, "an MCP server still connecting:\n" + screen


def completion_menu(typed: str, entry: str):
    """A wait_for predicate: the last prompt line is `❯ typed` and the completion menu under it
    shows `entry` (complete-while-typing runs asynchronously; a key sent before it is there
    races it)."""
    def shown(screen: str) -> bool:
        lines = screen.splitlines()
        starts = [i for i, ln in enumerate(lines) if ln.startswith("❯")]
        return bool(starts) and lines[starts[-1]] == f"❯ {typed}" and any(
            ln.strip().startswith(entry) for ln in lines[starts[-1] + 1:])
    return shown


def record_usage(llm) -> list[tuple[int, int]]:
    """(prompt, completion) tokens the stub reports, per request, in order."""
    seen: list[tuple[int, int]] = []
    respond = llm.respond

    def wrapper(h, body, reply):
        if body.get("tools"):
            seen.append((prompt_tokens_of(body), len(reply.get("text", "")) + 5 * len(reply.get("tool_calls", []))))
        return respond(h, body, reply)

    llm.respond = wrapper
    return seen


@pytest.mark.bundled_search  # the default configuration, as on a first launch ever
def test_tool_turn_markdown_and_status_line(tty, llm, naver):
    """Typed at once, the search goes with web_search whether or not the bundled server is up yet:
    its tools ship with the client (issue 48), and the call waits for the server."""
    pane = tty("--thread", "demo", "--no-memory")
    pane.wait_for(lambda s: any(ln.startswith("❯") for ln in s.splitlines()) and any(g in s for g in GREETING), 60)
    screen = ask(pane, "서울 맛집 검색해줘", 90)
    assert "web_search" in [t["function"]["name"] for t in llm.turn_requests()[0]["tools"]]
    assert '⏺ web_search(query="서울 맛집 검색해줘")' in screen
    assert re.search(r"  ⎿  결과 10건 \(전체 \d+\) · .+ · \d+\.\ds", screen)
    assert "[도구 선택]" not in screen  # the plain lines are for pipes
    llm.push({"text": MARKDOWN})
    screen = ask(pane, "표로 정리해줘")
    answer = screen[screen.rindex("❯ 표로 정리해줘"):]
    assert "• 첫째 항목" in answer and "• 둘째 항목" in answer
    assert "print('hi')" in answer and "```" not in answer
    assert re.search(r"가게 A\s+4\.5", answer) and "|---|" not in answer and "## 정리" not in answer
    status = [m for m in (STATUS.match(ln) for ln in screen.splitlines()) if m]
    assert [(m.group(1), m.group(2)) for m in status] == [("demo", "1"), ("demo", "2")]
    assert "\x1b" not in screen
    pane.keys("C-d")
    assert pane.exit_status() == 0
    assert "대화를 종료합니다" in pane.screen()


def test_tokens_match_what_the_api_reported(tty, llm, naver):
    usage = record_usage(llm)
    pane = tty("--thread", "tok", "--no-memory")
    pane.wait_prompt(1, 60)
    servers_up(pane)  # the search turn must carry web_search (two model calls)
    ask(pane, "안녕하세요")
    ask(pane, "날씨 검색해줘")  # two model calls: the tool call, then the answer
    ask(pane, "고마워요")
    screen = ask(pane, "/tokens")
    assert len(usage) == 4
    per_turn = [usage[0], (usage[1][0] + usage[2][0], usage[1][1] + usage[2][1]), usage[3]]
    block = screen[screen.rindex("❯ /tokens"):]
    assert "토큰 사용량 · 세션 tok" in block
    rows = {}
    for ln in block.splitlines():
        m = re.fullmatch(r"\s*(\d+|전체)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)", ln)
        if m:
            rows[m.group(1)] = tuple(int(g.replace(",", "")) for g in m.groups()[1:])
    for turn, (i, o) in enumerate(per_turn, 1):
        assert rows[str(turn)] == (i, o, i + o)
    tin, tout = sum(i for i, _ in per_turn), sum(o for _, o in per_turn)
    assert rows["전체"] == (tin, tout, tin + tout)


def test_threads_then_resume_switches_the_conversation(tty, llm, naver):
    pane = tty("--thread", "alpha", "--no-memory")
    pane.wait_prompt(1, 60)
    ask(pane, "사과는 빨갛다")
    screen = ask(pane, "/new")
    new_id = re.findall(r"현재 세션 ID: (\S+)", screen)[-1]
    assert new_id != "alpha"
    ask(pane, "바나나는 노랗다")
    screen = ask(pane, "/threads")
    listing = screen[screen.rindex("❯ /threads"):]
    assert re.search(r"alpha\s+1\s+\S+ \S+\s+사과는 빨갛다", listing)
    assert re.search(rf"{new_id}\s+1\s+\S+ \S+\s+바나나는 노랗다", listing)
    screen = ask(pane, "/resume alp")  # a unique prefix is enough
    assert "❯ /resume alp\n현재 세션 ID: alpha\n이전 대화 1턴을 이어갑니다.\n세션 제목: 사과는 빨갛다\n" in screen
    ask(pane, "무슨 과일?")
    assert user_texts(llm.turn_requests()[-1]) == ["사과는 빨갛다", "무슨 과일?"]
    ask(pane, "/resume " + new_id)
    ask(pane, "그리고?")
    assert user_texts(llm.turn_requests()[-1]) == ["바나나는 노랗다", "그리고?"]
    screen = ask(pane, "/title 바나나 세션")
    assert "세션 제목: 바나나 세션" in screen
    assert re.search(rf"{new_id}\s+2\s+\S+ \S+\s+바나나 세션", ask(pane, "/threads"))


def test_compact_puts_a_summary_pair_in_the_next_request(tty, llm, naver):
    pane = tty("--thread", "cmp", "--no-memory")
    pane.wait_prompt(1, 60)
    for q in ("첫째 질문", "둘째 질문", "셋째 질문"):
        ask(pane, q)
    assert "(요약 없음)" in ask(pane, "/summary")
    screen = ask(pane, "/compact 둘째 위주로")
    assert "이전 대화 1턴을 요약합니다" in screen and "요약했습니다" in screen
    summary_req = llm.summary_requests()[-1]
    assert "둘째 위주로" in str(summary_req["messages"])  # the focus steers the summary
    assert "tools" not in summary_req
    screen = ask(pane, "/summary")
    answer = llm.answer_to(summary_req).strip()  # what the summarizer said
    assert "현재 요약" in screen and answer in screen
    ask(pane, "넷째 질문")
    req = llm.turn_requests()[-1]
    assert roles(req)[:3] == ["system", "user", "assistant"]
    assert req["messages"][1]["content"] == "지금까지의 대화를 요약해 주세요."
    assert req["messages"][2]["content"].startswith(answer)
    assert user_texts(req)[1:] == ["둘째 질문", "셋째 질문", "넷째 질문"]


def test_ctrl_c_during_a_slow_answer_and_a_slow_tool_returns_to_the_prompt(tty, llm, naver):
    pane = tty("--thread", "intr", "--no-memory", "--context", "none")
    pane.wait_prompt(1, 60)
    ask(pane, "첫 질문")
    n = pane.prompts()
    pane.line("[slow:20] 느린 답을 천천히 길게 보내 주세요 하나 둘 셋 넷")
    pane.wait_for("답변 2: [slow", timeout=20)  # streaming has begun
    pane.keys("C-c")
    screen = pane.wait_prompt(n + 1, 15)
    assert "중단했습니다" in screen
    naver.set_mode("slow", delay=20)
    n = pane.prompts()
    pane.line("날씨 검색해줘")
    pane.wait_for("web_search 실행 중", timeout=20)  # the spinner while the tool runs
    wait_for(lambda: len(naver.requests) >= 1)
    pane.keys("C-c")
    screen = pane.wait_prompt(n + 1, 15)
    assert screen.count("중단했습니다") == 2
    naver.reset()
    ask(pane, "셋째 질문")
    last = llm.turn_requests()[-1]
    assert user_texts(last) == ["첫 질문", "셋째 질문"]  # both cancelled turns left nothing behind
    assert "tool" not in roles(last)
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_ctrl_c_clears_a_typed_line_and_exits_at_an_empty_prompt(tty, llm, naver):
    pane = tty("--thread", "keys", "--no-memory")
    pane.wait_prompt(1, 60)
    pane.type("보내지 않을 글")
    pane.wait_for("❯ 보내지 않을 글")
    pane.keys("C-c")
    pane.wait_for(lambda s: s.rstrip().splitlines()[-1] == "❯")
    pane.keys("Enter")  # an empty line sends nothing
    pane.wait_prompt(2)
    pane.keys("C-c")
    assert pane.exit_status() == 0
    assert llm.turn_requests() == []
    assert "대화를 종료합니다" in pane.screen()


def test_paste_keeps_lines_in_one_message_and_history_is_per_user(tty, llm, naver, tmp_path):
    pane = tty("--thread", "paste", "--no-memory", "--user", "kim")
    pane.wait_prompt(1, 60)
    pane.paste("첫째 줄\n둘째 줄\n셋째 줄")
    pane.wait_for("… 셋째 줄")
    n = pane.prompts()
    pane.keys("Enter")
    pane.wait_prompt(n + 1)
    assert user_texts(llm.turn_requests()[-1]) == ["첫째 줄\n둘째 줄\n셋째 줄"]
    ask(pane, "두 번째 메시지")
    pane.keys("C-d")
    assert pane.exit_status() == 0
    history = tmp_path / "data" / "mcp-chat" / "history-kim"
    assert "+두 번째 메시지" in history.read_text() and "+둘째 줄" in history.read_text()
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    assert not list(tmp_path.glob("*history*"))  # nothing in the working directory
    pane = tty("--thread", "paste", "--no-memory", "--user", "kim")  # a new process, same user
    pane.wait_prompt(1, 60)
    pane.keys("Up")
    pane.wait_for(lambda s: s.rstrip().splitlines()[-1] == "❯ 두 번째 메시지")
    other = tty("--thread", "other", "--no-memory", "--user", "lee")
    other.wait_prompt(1, 60)
    other.keys("Up")
    other.type("§")  # a sentinel typed after Up: once it shows, Up has been handled
    last = other.wait_for(lambda s: s.rstrip().endswith("§")).rstrip().splitlines()[-1]
    assert last == "❯ §"  # lee has no history of kim's (a recalled line would precede the §)


def test_delete_asks_first_unknown_command_hints_and_help_is_korean(tty, llm, naver):
    pane = tty("--thread", "keep", "--no-memory")
    pane.wait_prompt(1, 60)
    ask(pane, "남길 대화")
    ask(pane, "/new")
    ask(pane, "지울 대화")
    screen = ask(pane, "/help")
    for name in ("/new", "/threads", "/resume", "/delete", "/export", "/context", "/compact", "/summary",
                 "/tokens", "/tools", "/clear", "/exit", "/title"):
        assert name in screen
    assert "새 세션 시작" in screen and "토큰" in screen
    assert "/help 로 명령 목록" in ask(pane, "/frobnicate")
    pane.type("/thr")
    pane.wait_for(completion_menu("/thr", "/threads"))  # the completer ran: Tab now has a choice
    pane.keys("Tab")  # completes slash commands
    pane.wait_for(lambda s: "\n❯ /threads" in s.split("❯ /frobnicate")[-1])
    pane.keys("C-c")
    pane.line("/delete keep")
    pane.wait_for("'keep' 세션을 삭제할까요? (y/N)")
    n = pane.prompts()
    pane.line("n")
    assert "삭제하지 않았습니다" in pane.wait_prompt(n + 1)
    pane.line("/delete keep")
    pane.wait_for("삭제할까요? (y/N)", count=2)
    n = pane.prompts()
    pane.line("y")
    assert "세션을 삭제했습니다: keep" in pane.wait_prompt(n + 1)
    assert "keep" not in ask(pane, "/threads").split("❯ /threads")[-1]
    screen = ask(pane, "/clear")
    assert "남길 대화" not in pane.visible()
    pane.line("/exit")
    assert pane.exit_status() == 0


def test_english_ui_and_memory_update_on_exit(tty, llm, naver):
    pane = tty("--thread", "en", "--lang", "en", "--user", "sam")
    pane.wait_prompt(1, 60)
    screen = ask(pane, "hello there")
    assert "Current session ID: en" in screen
    assert re.search(r"HCX-005 · CLOVA Studio · session en · turn 1 \(context 1\) · [\d,]+ tokens · budget [\d.]+%", screen)
    screen = ask(pane, "/help")
    assert "start a new session" in screen and "새 세션 시작" not in screen
    assert "Unknown command" in ask(pane, "/nope")
    pane.line("/exit")
    assert pane.exit_status() == 0
    screen = pane.screen()
    # the memory line in English either way (nothing of a greeting is kept; or left to the next start)
    assert re.search(r"Memory: (\d+ added, \d+ updated of \d+ candidates|nothing from this session was kept "
                     r"\(\d+ candidates, 0 saved\)\.|\d+ session\(s\) left to fold in at the next start\.)\nGoodbye\.",
                     screen), screen
