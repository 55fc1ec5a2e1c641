"""A stand-in model streams malformed arguments for a destructive tool, under --yes.

Nothing runs with defaults the model never sent: each malformed call is refused, the model's
next request carries a tool error naming what was wrong, the user sees one line per refusal,
and no tool line is printed again on later turns. The server (tests/stubs/danger_server.py)
records every run in a file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import CliRunner

pytestmark = pytest.mark.sqlite_only  # tool-call handling does not depend on the storage backend
SERVER = Path(__file__).resolve().parents[1] / "stubs" / "danger_server.py"
MALFORMED = {
    "{not json": "are not valid JSON",
    '{"target": "a", "target": "b"}': "name the same key twice",
    '{"target": "c"} trailing': "have text after the JSON object",
    '["target", "d"]': "are not a JSON object",
    '{"target": "e", "value": 1e400}': "contain NaN or Infinity",  # Python reads 1e400 as inf: once it ran with null
}


def tool_messages(llm) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for q in llm.chat_requests() for m in q["messages"] if m["role"] == "tool"}


def test_malformed_arguments_never_run(tmp_path, llm, naver):
    log = tmp_path / "ran.log"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"danger": {"command": sys.executable, "args": [str(SERVER), str(log)]}}}))
    llm.push({"tool_calls": [("wipe", {"target": "kept"})]}, {"text": "done"})
    for raw in MALFORMED:
        llm.push({"tool_calls": [("wipe", raw)]}, {"text": "retry later"})
    turns = ["first", *(f"bad {i}" for i in range(len(MALFORMED))), "last", "/permissions"]
    r = CliRunner(tmp_path, llm, naver)("--new", "--yes", "--no-memory", "--context", "none",
                                          "--mcp-config", str(config), input="\n".join(turns) + "\n")
    assert r.code == 0, r.err
    assert log.read_text().splitlines() == ["wipe kept"]  # only the well-formed call ran
    reqs = llm.chat_requests()
    results = tool_messages(llm)
    for n, why in enumerate(MALFORMED.values()):
        bad = reqs[2 * n + 3]  # the request after each malformed call carries its error
        call = next(m for m in reversed(bad["messages"]) if m["role"] == "assistant")
        assert bad["messages"][-1]["role"] == "tool", bad["messages"][-1]
        text = results[call["tool_calls"][0]["id"]]
        assert text.startswith("This call of wipe was not run") and why in text, text
    both = r.out + r.err
    assert both.count("[도구 선택]: wipe") == 1 and both.count("[도구 호출]:") == 1  # never re-printed
    assert both.count("모델이 보낸 wipe 호출의 인자가 올바른 JSON 객체가 아니어서 실행하지 않았습니다") == len(MALFORMED)
    # contradicting hints are no safety claim: peek is not listed as read-only, look is
    line = next(ln for ln in both.splitlines() if ln.startswith("읽기 전용 도구(readOnlyHint) [danger]"))
    assert "look" in line and "peek" not in line
