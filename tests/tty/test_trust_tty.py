"""The working-folder question in a real terminal (tmux), before anything starts.

Declined in a hostile folder (tests/e2e/test_untrusted_folder.py builds it): nothing of it runs
and its endpoint hears nothing. Accepted in an ordinary project folder: its .env and
./checkpoint.db are used, the answer is remembered, and a changed .env asks again.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.backends import query
from tests.e2e.test_untrusted_folder import hostile, user_config, user_runner
from tests.stubs.recorder import Recorder
from tests.tty.conftest import TMUX, Pane

QUESTION = "이 폴더를 신뢰할까요?"


@pytest.fixture
def pane_in(tmp_path):
    if TMUX is None:
        if os.environ.get("CI"):
            pytest.fail("tmux is required for the terminal tests in CI")
        pytest.skip("tmux is not installed")
    panes: list[Pane] = []

    def start(runner, *args: str) -> Pane:
        pane = Pane(runner.tmp, runner.env, [sys.executable, "-m", "client", *args], shown="mcp-chat " + " ".join(args))
        panes.append(pane)
        return pane

    yield start
    for pane in panes:
        pane.close()


def test_declined_nothing_of_the_folder_runs(pane_in, tmp_path, llm, naver):
    with Recorder() as recorder:
        s = hostile(tmp_path, llm, naver, recorder)
        pane = pane_in(user_runner(s.proj, s.home, llm, naver), "--new", "--no-memory")
        screen = pane.wait_for("[y/N]", 60)
        block = screen[screen.index("신뢰하지 않았습니다"):]
        for shown in (f"MCP_CONFIG={s.proj / 'evil.json'}", "MCP_CHAT_YES=1", f"LD_PRELOAD={s.proj / 'evil.so'}",
                      f"CLOVA_STUDIO_BASE_URL={recorder.base_url}/v1", "CLOVA_STUDIO_API_KEY=(비밀값, 표시 안 함)",
                      f"{s.proj / 'evil.json'}  (.env 가 가리키는 파일",
                      f"{s.proj / 'checkpoint.db'}  (이 폴더의 대화 기록과 장기 기억을 읽고 씁니다)", QUESTION):
            assert shown in block, (shown, block)
        assert "sk-planted-secret-0042" not in screen
        assert "현재 세션 ID" not in screen  # asked before anything started
        pane.line("n")
        pane.wait_prompt(1, 60)
        pane.line("안녕")
        screen = pane.wait_prompt(2, 60)
        assert "답변" in screen and "이 폴더의 .env와 checkpoint.db 없이 시작합니다." in screen
        pane.keys("C-d")
        assert pane.exit_status() == 0
        assert [m for m in s.markers if m.exists()] == [] and recorder.requests == []
        assert not (s.home / ".config" / "mcp-chat" / "trusted-folders.json").exists()  # a "no" is not remembered


def test_accepted_the_folder_is_used_and_remembered(pane_in, tmp_path, llm, naver):
    user_config(tmp_path, llm, naver)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-007\n")
    runner = user_runner(proj, tmp_path, llm, naver)
    assert runner("-p", "처음", "--thread", "cookbook", "--db", str(proj / "checkpoint.db"), db=False).code == 0
    pane = pane_in(runner, "--new", "--no-memory")
    screen = pane.wait_for("[y/N]", 60)
    assert "CLOVA_STUDIO_MODEL=HCX-007" in screen and "checkpoint.db  (이 폴더의" in screen
    pane.line("y")
    pane.wait_prompt(1, 60)
    pane.line("안녕")
    pane.wait_prompt(2, 60)
    pane.keys("C-d")
    assert pane.exit_status() == 0
    assert llm.turn_requests()[-1]["model"] == "HCX-007"  # the folder's .env
    assert len(query(str(proj / "checkpoint.db"), "SELECT thread_id FROM threads")) == 2  # and its database
    record = tmp_path / ".config" / "mcp-chat" / "trusted-folders.json"
    assert record.stat().st_mode & 0o777 == 0o600 and str(proj) in record.read_text()
    r = runner("-p", "다시", "--new", db=False)  # remembered: no question, no notice
    assert r.code == 0 and "mcp-chat trust" not in r.err and llm.turn_requests()[-1]["model"] == "HCX-007", r.err
    (proj / ".env").write_text("CLOVA_STUDIO_MODEL=HCX-999\n")  # changed: not used until trusted again
    r = runner("-p", "바뀜", "--new", db=False)
    assert r.code == 0 and "신뢰한 뒤 바뀐 폴더(.env 바뀜)" in r.err and llm.turn_requests()[-1]["model"] != "HCX-999", r.err
    pane = pane_in(runner, "--new", "--no-memory")  # at a terminal the question comes back, saying what changed
    screen = pane.wait_for("[y/N]", 60)
    assert "이 폴더는 신뢰한 뒤 바뀌었습니다 (.env)" in screen and "CLOVA_STUDIO_MODEL=HCX-999" in screen, screen
    pane.line("n")
    pane.wait_prompt(1, 60)
    pane.keys("C-d")
    assert pane.exit_status() == 0
