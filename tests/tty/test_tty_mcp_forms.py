"""Server requests at a real terminal (tmux): the elicitation form and the sampling question."""

from __future__ import annotations

import json

from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401


def test_elicitation_form_and_sampling_approval(tty, llm, everything_js, tmp_path):
    # tools pre-approved: this test is about the server's requests, not the tool-permission question
    config = write_config(tmp_path, {"everything": {"command": "node", "args": [everything_js, "stdio"],
                                                    "alwaysAllow": ["*"]}})
    pane = tty("--new", "--no-memory", "--mcp-config", config)
    pane.wait_prompt(1, 90)
    pane.line(call_line("trigger-elicitation-request", {}))
    pane.wait_for("[입력 요청] 서버 'everything': Please provide inputs", 60)
    pane.wait_for("  * String (string): Your full, legal name")
    pane.wait_for("  String:")
    pane.line("Kim Tester")
    pane.wait_for("  Boolean:")
    screen = pane.screen()  # each field shown with its type and description as it is reached
    assert "  String: Kim Tester" in screen and "  - Boolean (boolean): Agree to the terms and conditions" in screen
    pane.line("/cancel")  # the user walks away from the form: the server is told "cancel"
    pane.wait_prompt(2, 60)
    result = tool_results(llm.turn_requests())["trigger-elicitation-request"][-1]
    assert "cancel" in result.lower() and "Kim Tester" not in result
    # sampling asks first; "y" runs it on the model without tools
    pane.line(call_line("trigger-sampling-request", {"prompt": "tty-sample-31", "maxTokens": 40}))
    pane.wait_for("허용할까요? [y/N]", 60)
    pane.line("y")
    pane.wait_prompt(3, 60)
    assert [q for q in llm.requests if "tty-sample-31" in json.dumps(q.get("messages")) and not q.get("tools")]
    assert "[샘플링] 모델 응답 → 'everything'" in pane.screen()
    pane.keys("C-d")
    assert pane.exit_status() == 0


def test_a_2026_servers_questions_are_the_same_at_the_terminal(tty, llm, tmp_path):
    """A server that speaks only 2026-07-28 returns its questions (InputRequiredResult): the same
    form and the same sampling question, answered in place, and the call is retried with the answers."""
    import sys

    from tests.e2e.test_mcp_modern import STUB

    ran = tmp_path / "ran.log"
    config = write_config(tmp_path, {"modern": {"command": sys.executable, "args": [str(STUB), str(ran)],
                                                "alwaysAllow": ["*"]}})
    pane = tty("--new", "--no-memory", "--mcp-config", config)
    pane.wait_prompt(1, 90)
    pane.line(call_line("pick_color", {}))
    pane.wait_for("[입력 요청] 서버 'modern': Which color?", 60)
    pane.wait_for("  Color:")
    pane.line("green")
    pane.wait_for("보낼까요?", 30)
    pane.line("y")
    pane.wait_prompt(2, 60)
    assert tool_results(llm.turn_requests())["pick_color"] == ["picked green"]
    pane.line(call_line("summarize", {"text": "tty-modern-47"}))
    pane.wait_for("허용할까요? [y/N]", 60)
    pane.line("n")
    pane.wait_prompt(3, 60)
    assert not [q for q in llm.requests if "tty-modern-47" in json.dumps(q.get("messages")) and not q.get("tools")]
    assert ran.read_text().splitlines() == ["picked green"]  # the refused one never ran
    pane.keys("C-d")
    assert pane.exit_status() == 0
