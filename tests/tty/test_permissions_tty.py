"""The question before a tool call, in a real terminal (tmux), with the real server-filesystem."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import TEST_KEY
from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401
from tests.e2e.test_permissions import DENIED, fs_entry

QUESTION = "도구를 실행할까요?"


def test_question_n_denies_a_allows_for_the_session(tty, llm, naver, everything_js, tmp_path):
    files = (tmp_path / "files").resolve()
    files.mkdir()
    config = write_config(tmp_path, {"fs": fs_entry(everything_js, files)})
    pane = tty("--thread", "perm", "--no-memory", "--mcp-config", config,
               env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    pane.wait_prompt(1, 60)

    def write(name: str, content: str) -> None:
        pane.line(call_line("write_file", {"path": str(files / name), "content": content}))

    write("one.txt", f"secret {TEST_KEY}")
    screen = pane.wait_for(QUESTION, 60)
    screen = pane.wait_for("[y] 이번만 허용  [a] 이 세션 동안 이 도구 허용  [s] 항상 허용(저장)  [n] 거부")
    block = screen[screen.rindex(QUESTION):]
    assert "서버: fs" in block and "도구: write_file" in block and "데이터를 바꾸거나 지울 수 있음" in block
    assert "one.txt" in block and '"content": "secret ***"' in block and TEST_KEY not in block  # masked
    pane.type("n")
    screen = pane.wait_prompt(2, 60)
    assert "→ 거부" in screen and "사용자가 허용하지 않아 실행하지 않았습니다" in screen
    assert not (files / "one.txt").exists()
    assert tool_results(llm.turn_requests())["write_file"][0].startswith(DENIED)

    write("two.txt", "second")
    pane.wait_for(QUESTION, 60, count=2)
    pane.type("a")
    screen = pane.wait_prompt(3, 60)
    assert "→ 허용: 이 세션 동안 허용" in screen
    assert (files / "two.txt").read_text(encoding="utf-8") == "second"

    write("three.txt", "third")  # allowed for the session: no third question
    screen = pane.wait_prompt(4, 60)
    assert screen.count(QUESTION) == 2
    assert (files / "three.txt").read_text(encoding="utf-8") == "third"
    pane.line("/permissions")
    pane.wait_for("이 세션 동안 허용: fs/write_file")
    pane.keys("C-d")
    assert pane.exit_status() == 0
    assert not Path(str(tmp_path / "chat.db") + "-lock").exists()
