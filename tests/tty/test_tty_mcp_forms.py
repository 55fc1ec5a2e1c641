"""Server requests at a real terminal (tmux): the elicitation form and the sampling question."""

from __future__ import annotations

import json

from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401

SEND = "이 값으로 보낼까요? [y/N]"


def _next_question(pane, before: str) -> None:
    """Until the next field prompt (a last line ending in ':') or the form's end is drawn."""
    pane.wait_for(lambda s: s != before and (s.rstrip().endswith(":") or SEND in s or "필수 항목이 비어" in s), 20)


def test_elicitation_form_and_sampling_approval(tty, llm, everything_js, tmp_path):
    config = write_config(tmp_path, {"everything": {"command": "node", "args": [everything_js, "stdio"]}})
    pane = tty("--new", "--no-memory", "--mcp-config", config)
    pane.wait_prompt(1, 90)
    pane.line(call_line("trigger-elicitation-request", {}))
    pane.wait_for("[입력 요청] 서버 'everything': Please provide inputs", 60)
    pane.wait_for("  * String (string): Your full, legal name")
    pane.wait_for("  String:")
    pane.line("")  # the required name left empty
    pane.wait_for("  Boolean:")
    for _ in range(40):  # Enter through the remaining fields (their defaults) until the final question
        screen = pane.screen()
        if SEND in screen or "필수 항목이 비어" in screen:
            break
        pane.keys("Enter")
        _next_question(pane, screen)
    screen = pane.screen()
    assert "필수 항목이 비어 있어 거절합니다: name" in screen  # nothing sent for an empty required field
    assert "  - Integer (integer, 기본값 42): Your favorite integer" in screen
    assert "  - Untitled Single Select Enum (1.Monica | 2.Rachel" in screen
    pane.wait_prompt(2, 60)
    # second time: a name, a bad integer then a good one, defaults for the rest, confirm
    pane.line(call_line("trigger-elicitation-request", {}))
    pane.wait_for("[입력 요청] 서버 'everything': Please provide inputs", 60, count=2)
    pane.wait_for("  String:", count=2)
    pane.line("Kim Tester")
    for _ in range(40):
        screen = pane.screen()
        if SEND in screen:
            break
        if screen.rstrip().endswith("Integer:"):
            pane.line("4.5")
            pane.wait_for(lambda s: "형식이 맞지 않습니다 (integer)" in s and s.rstrip().endswith("Integer:"))
            pane.line("7")
        else:
            pane.keys("Enter")
        _next_question(pane, screen)
    pane.line("y")
    pane.wait_prompt(3, 60)
    results = tool_results(llm.chat_requests())["trigger-elicitation-request"]
    accepted = results[-1]
    assert '"action": "accept"' in accepted and "Kim Tester" in accepted
    assert '"integer": 7' in accepted and "It was a dark and stormy night." in accepted
    # sampling asks first; "y" runs it on the model without tools
    pane.line(call_line("trigger-sampling-request", {"prompt": "tty-sample-31", "maxTokens": 40}))
    pane.wait_for("허용할까요? [y/N]", 60)
    pane.line("y")
    pane.wait_prompt(4, 60)
    assert [q for q in llm.requests if "tty-sample-31" in json.dumps(q.get("messages")) and not q.get("tools")]
    assert "[샘플링] 모델 응답 → 'everything'" in pane.screen()
    pane.keys("C-d")
    assert pane.exit_status() == 0
