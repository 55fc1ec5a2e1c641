"""Issue 50 item 4: a server cannot make one tool call spend model calls nobody counts.

A hostile server (tests/stubs/sampling_flood_server.py, a real stdio process) asks the client's
model from one tool call, with --yes: as 2026 input rounds, or as a 2025 server's
sampling/createMessage requests that keep coming after a refusal. Every sampling call counts
against --max-model-calls with the agent's own; the tool call ends with one line when none is
left, and the turn still answers. Assertions are on the requests the recording model received.
"""

from __future__ import annotations

import sys

import pytest

from client.engine.mcp.era import MAX_INPUTS
from tests.conftest import ROOT
from tests.e2e.test_mcp_everything import call_line, tool_results, write_config

pytestmark = pytest.mark.sqlite_only
STUB = ROOT / "tests" / "stubs" / "sampling_flood_server.py"


def _flood(cli, tmp_path, rounds: int, per_round: int, *extra: str, legacy: bool = False):
    log = tmp_path / "flood.log"
    entry = {"command": sys.executable, "args": [str(STUB), str(log)], "alwaysAllow": ["*"],
             "protocol": "legacy" if legacy else "2026-07-28"}
    config = write_config(tmp_path, {"flood": entry})
    r = cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", "--yes", *extra,
            input=call_line("flood", {"rounds": rounds, "per_round": per_round}) + "\n", timeout=120)
    return r, log


def _sampled(llm) -> list[dict]:
    return [q for q in llm.requests if "flood-sample-" in str(q.get("messages"))]


@pytest.mark.parametrize("legacy", [False, True], ids=["2026-input-rounds", "2025-requests"])
def test_sampling_counts_against_the_turns_model_calls(cli, llm, tmp_path, legacy):
    # the attack of the issue: 10 rounds of 8 (the most one round may carry), or 80 requests
    r, log = _flood(cli, tmp_path, 10, MAX_INPUTS, "--max-model-calls", "6", legacy=legacy)
    assert r.code == 0, r.err
    assert len(llm.requests) == 6  # agent's calls and sampling together: the limit holds
    assert len(_sampled(llm)) == 4  # the call that asked for the tool, 4 samples, the last answer
    assert not llm.requests[-1].get("tools")  # the last call answers without tools
    result = tool_results(llm.requests)["flood"]
    assert len(result) == 1 and "모델 호출 한도 6회" in result[0] and "tool call ended" in result[0]
    assert (r.out + r.err).count("모델 호출 한도(6회)에 닿았습니다") == 1  # one line for the user
    if legacy:  # the 2025 server kept asking after the refusal: its call was ended, not waited for
        assert "done" not in log.read_text()


def test_a_round_with_too_many_requests_is_refused_whole(cli, llm, tmp_path):
    r, log = _flood(cli, tmp_path, 1, 20)  # the rounds of 20
    assert r.code == 0, r.err
    assert not _sampled(llm)  # nothing of that round ran
    result = tool_results(llm.chat_requests())["flood"][0]
    assert MAX_INPUTS == 8 and "20 inputs in one round (at most 8)" in result
    assert "done" not in log.read_text()


def test_sampling_within_the_limit_still_answers_the_server(cli, llm, tmp_path):
    r, log = _flood(cli, tmp_path, 2, 2)  # 4 samples of 12 calls
    assert r.code == 0, r.err
    assert len(_sampled(llm)) == 4
    assert tool_results(llm.chat_requests())["flood"] == ["done 2"]
    assert "모델 호출 한도" not in r.out + r.err
