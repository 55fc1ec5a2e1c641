"""Server requests through mcp-chat, against server-everything over stdio: sampling, elicitation, roots.

Piped runs (no terminal): `--yes` approves sampling and accepts elicitation with the schema's
defaults; without it both are refused. Assertions are on what the model stub received and on the
tool results that went back to the model.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401

pytestmark = pytest.mark.sqlite_only


def _run(chat, tmp_path, js, lines, *extra, env=None):
    config = write_config(tmp_path, {"everything": {"command": "node", "args": [js, "stdio"]}})
    return chat("--new", "--mcp-config", config, "--context", "none", "--no-memory", *extra,
                input="\n".join(lines) + "\n", env=env, timeout=90)


def test_sampling_with_yes_runs_on_the_chat_model_without_tools(chat, llm, everything_js, tmp_path):
    r = _run(chat, tmp_path, everything_js,
             [call_line("trigger-sampling-request", {"prompt": "sample-me-77", "maxTokens": 64})], "--yes")
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    sampled = [q for q in llm.requests if "sample-me-77" in str(q.get("messages")) and not q.get("tools")]
    assert len(sampled) == 1, llm.requests
    assert sampled[0]["max_tokens"] <= 64 or sampled[0].get("max_completion_tokens", 0) <= 64
    result = tool_results(reqs)["trigger-sampling-request"][0]
    assert "sample-me-77" in result and '"model"' in result  # the stub's answer went back to the server
    both = r.out + r.err
    assert "[샘플링] 서버 'everything' 요청: " in both and "[샘플링] 모델 응답 → 'everything'" in both


def test_sampling_without_yes_and_without_a_terminal_is_denied(chat, llm, everything_js, tmp_path):
    r = _run(chat, tmp_path, everything_js,
             [call_line("trigger-sampling-request", {"prompt": "never-sampled-55", "maxTokens": 64})])
    assert r.code == 0, r.err
    assert not [q for q in llm.requests if "never-sampled-55" in str(q.get("messages")) and not q.get("tools")]
    assert "[샘플링] 서버 'everything'의 모델 요청을 거절했습니다." in r.out + r.err
    result = tool_results(llm.chat_requests())["trigger-sampling-request"][0]
    assert "rejected" in result.lower()


def test_elicitation_piped_is_declined_and_yes_keeps_required_fields_honest(chat, llm, everything_js, tmp_path):
    r = _run(chat, tmp_path, everything_js, [call_line("trigger-elicitation-request", {})])
    assert r.code == 0, r.err
    assert "decline" in tool_results(llm.chat_requests())["trigger-elicitation-request"][0]
    assert "[입력 요청] 서버 'everything'의 입력 요청을 거절했습니다" in r.out + r.err
    # --yes: this form has required fields without defaults, so defaults alone cannot answer it
    llm.clear()
    r = _run(chat, tmp_path, everything_js, [call_line("trigger-elicitation-request", {})], "--yes")
    assert r.code == 0, r.err
    assert "decline" in tool_results(llm.chat_requests())["trigger-elicitation-request"][0]


def test_roots_are_the_working_folder_and_configured_roots(chat, llm, everything_js, tmp_path):
    extra = tmp_path / "extra-root"
    extra.mkdir()
    r = _run(chat, tmp_path, everything_js, [call_line("get-roots-list", {})], "--root", str(extra))
    assert r.code == 0, r.err
    result = tool_results(llm.chat_requests())["get-roots-list"][0]
    assert f"URI: {tmp_path.resolve().as_uri()}" in result
    assert f"URI: {extra.resolve().as_uri()}" in result
