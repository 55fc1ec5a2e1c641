"""Server requests through mcp-chat, against server-everything over stdio: sampling, elicitation, roots.

Piped runs (no terminal): `--yes` approves sampling and accepts elicitation with the schema's
defaults; without it both are refused. Assertions are on what the model stub received and on the
tool results that went back to the model. The command line in this process (tests/cli.py).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import thread_id_of
from tests.e2e.test_mcp_everything import call_line, everything_js, tool_results, write_config  # noqa: F401

pytestmark = pytest.mark.sqlite_only


def _run(cli, tmp_path, js, lines, *extra, env=None):
    # every tool pre-approved: these tests are about the server's requests, not tool permissions
    config = write_config(tmp_path, {"everything": {"command": "node", "args": [js, "stdio"], "alwaysAllow": ["*"]}})
    return cli("--new", "--mcp-config", config, "--context", "none", "--no-memory", *extra,
                input="\n".join(lines) + "\n", env=env, timeout=90)


def test_sampling_with_yes_runs_on_the_chat_model_without_tools(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js,
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
    exported = json.loads(cli.sub("export", thread_id_of(r.err), "--format", "json").out)
    sampled_rows = [m["sampling"] for m in exported["messages"] if m.get("sampling")]
    assert len(sampled_rows) == 1 and sampled_rows[0][0]["server"] == "everything"
    assert sampled_rows[0][0]["decision"] == "allow:yes" and "sample-me-77" in sampled_rows[0][0]["request"]
    md = cli.sub("export", thread_id_of(r.err)).out
    assert "**sampling** `everything` (허용 (--yes)): " in md and "sample-me-77" in md


def test_sampling_without_yes_and_without_a_terminal_is_denied(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js,
             [call_line("trigger-sampling-request", {"prompt": "never-sampled-55", "maxTokens": 64})])
    assert r.code == 0, r.err
    assert not [q for q in llm.requests if "never-sampled-55" in str(q.get("messages")) and not q.get("tools")]
    assert "[샘플링] 서버 'everything'의 모델 요청을 거절했습니다." in r.out + r.err
    result = tool_results(llm.chat_requests())["trigger-sampling-request"][0]
    assert "rejected" in result.lower()
    exported = json.loads(cli.sub("export", thread_id_of(r.err), "--format", "json").out)
    assert [m["sampling"][0]["decision"] for m in exported["messages"] if m.get("sampling")] == ["deny:no_terminal"]


def test_elicitation_piped_is_declined_and_yes_keeps_required_fields_honest(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js, [call_line("trigger-elicitation-request", {})])
    assert r.code == 0, r.err
    assert "decline" in tool_results(llm.chat_requests())["trigger-elicitation-request"][0]
    assert "[입력 요청] 서버 'everything'의 입력 요청을 거절했습니다" in r.out + r.err
    # --yes: this form has required fields without defaults, so defaults alone cannot answer it
    llm.clear()
    r = _run(cli, tmp_path, everything_js, [call_line("trigger-elicitation-request", {})], "--yes")
    assert r.code == 0, r.err
    assert "decline" in tool_results(llm.chat_requests())["trigger-elicitation-request"][0]


def test_roots_are_only_the_configured_ones_and_changes_are_announced(cli, llm, everything_js, tmp_path):
    extra, later = tmp_path / "extra-root", tmp_path / "later-root"
    extra.mkdir()
    later.mkdir()
    r = _run(cli, tmp_path, everything_js, [call_line("get-roots-list", {}), f"/roots {later}",
                                             call_line("get-roots-list", {})], "--root", str(extra))
    assert r.code == 0, r.err
    first, second = tool_results(llm.chat_requests())["get-roots-list"]
    assert f"URI: {tmp_path.resolve().as_uri()}\n" not in first + "\n"  # the working folder only when asked for
    assert f"URI: {extra.resolve().as_uri()}" in first and later.resolve().as_uri() not in first
    # server-everything caches the roots and asks again only on roots/list_changed
    assert f"URI: {later.resolve().as_uri()}" in second
    assert "[루트] 바꿨습니다. 연결된 서버 1곳에 알렸습니다." in r.out


def _last_user(req: dict) -> str:
    return [m for m in req["messages"] if m["role"] == "user"][-1]["content"]


def test_prompts_list_and_run_as_a_normal_turn(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js, ["/prompts", "/prompt everything:args-prompt city=Seoul \"state=Gyeonggi do\"",
                                             "/prompt everything:args-prompt", "/prompt everything:nope"])
    assert r.code == 0, r.err
    assert "[everything] 프롬프트 " in r.out
    assert "/prompt everything:args-prompt city=<city> state=[...]" in r.out
    turns = llm.chat_requests()
    assert len(turns) == 1  # only the complete call became a turn
    assert _last_user(turns[0]) == "What's weather in Seoul, Gyeonggi do?"
    both = r.out + r.err
    assert "필수 인자가 없습니다: city" in both and "프롬프트를 찾을 수 없습니다: everything:nope" in both


def test_resources_list_and_mentions_attach_text_and_describe_nothing_secret(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js, ["/resources",
                                             "summarize @everything:demo://resource/dynamic/text/1 please",
                                             "and @everything:demo://resource/dynamic/text/nope too"])
    assert r.code == 0, r.err
    assert "  @everything:demo://resource/static/document/" in r.out
    turns = llm.chat_requests()
    first = _last_user(turns[0])
    assert first.startswith("summarize @everything:demo://resource/dynamic/text/1 please")
    assert "[resource @everything:demo://resource/dynamic/text/1]\nResource 1: This is a plaintext resource" in first
    assert "[리소스] @everything:demo://resource/dynamic/text/1 첨부" in r.out + r.err
    assert "리소스를 읽지 못했습니다 (@everything:demo://resource/dynamic/text/nope)" in r.out + r.err
    assert _last_user(turns[1]) == "and @everything:demo://resource/dynamic/text/nope too"


def test_a_large_resource_is_cut_to_the_budget(cli, llm, everything_js, tmp_path):
    r = _run(cli, tmp_path, everything_js, ["read @everything:demo://resource/static/document/architecture.md"],
             "--max-input-tokens", "800")
    assert r.code == 0, r.err
    assert "[리소스] @everything:demo://resource/static/document/architecture.md 가 예산을 넘어" in r.out + r.err
