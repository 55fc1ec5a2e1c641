"""Fast suite (no model): choosing a provider, what each one sends, the local budget, and the
lines that say which model answers. The recording LLM stub stands in for every server."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.engine.local.spec import TOOL_RESULT_CHARS
from tests.conftest import TEST_KEY, roles

NO_CLOVA = {"CLOVA_STUDIO_API_KEY": None, "CLOVASTUDIO_API_KEY": None}


def test_openai_provider_sends_to_its_server_with_its_own_key(chat, llm):
    env = {**NO_CLOVA, "OPENAI_API_KEY": "sk-openai-test-777"}
    r = chat("--provider", "openai", "--base-url", llm.base_url, "--model", "llama3.2", "--new",
             input="안녕\n/help\n", env=env)
    assert r.code == 0, r.err
    req = llm.chat_requests()[0]
    assert req["model"] == "llama3.2"
    assert req["max_tokens"] == 2048 and "max_completion_tokens" not in req  # llama.cpp reads max_tokens
    assert llm.headers[-1]["authorization"] == "Bearer sk-openai-test-777"
    assert "[상태] OpenAI 호환 서버 127.0.0.1" in r.err and "llama3.2" in r.err
    assert "모델: OpenAI 호환 서버" in r.out  # /help names the model
    assert "sk-openai-test-777" not in r.out + r.err


def test_openai_base_url_from_env_and_empty_key(chat, llm):
    env = {**NO_CLOVA, "OPENAI_BASE_URL": llm.base_url, "OPENAI_MODEL": "qwen"}
    r = chat("--provider", "openai", "--new", input="안녕\n", env=env)
    assert r.code == 0, r.err
    assert llm.chat_requests()[0]["model"] == "qwen"


def test_openai_needs_url_and_model(chat, llm):
    r = chat("--provider", "openai", "--new", input="안녕\n", env={"OPENAI_BASE_URL": None})
    assert r.code == 2 and "--base-url" in r.err and len(r.err.strip().splitlines()) == 1
    r = chat("--provider", "openai", "--base-url", llm.base_url, "--new", input="안녕\n", env={"OPENAI_MODEL": None})
    assert r.code == 2 and "--model" in r.err
    assert llm.requests == []


def test_clova_stays_the_default_with_a_key(chat, llm):
    r = chat("--new", input="안녕\n/help\n")
    assert r.code == 0, r.err
    assert llm.headers[-1]["authorization"] == f"Bearer {TEST_KEY}"
    assert "[상태] CLOVA Studio HCX-005 ·" in r.err and "모델: CLOVA Studio HCX-005" in r.out


def test_no_key_and_nothing_prepared_is_one_line_exit_2(chat, llm, tmp_path: Path):
    r = chat("--new", input="안녕\n", env={**NO_CLOVA, "MCP_CHAT_CACHE": str(tmp_path / "empty")})
    assert r.code == 2
    assert len(r.err.strip().splitlines()) == 1
    assert "CLOVA_STUDIO_API_KEY" in r.err and "--provider local" in r.err
    assert not (tmp_path / "empty").exists()  # nothing downloaded from a script
    assert llm.requests == []


@pytest.mark.bundled_search  # the tool result in the second request is capped by the provider, as a user gets it
def test_local_provider_budget_labels_and_compact_tool_count(chat, llm, naver):
    """`--provider local` against a server that is already running (MCP_CHAT_LOCAL_URL)."""
    env = {**NO_CLOVA, "MCP_CHAT_LOCAL_URL": llm.base_url}
    r = chat("--provider", "local", "--new", "--no-memory", input="서울 맛집 검색해줘\n/context\n/help\n", env=env)
    assert r.code == 0, r.err
    first = llm.chat_requests()[0]
    assert first["model"] == "qwen2.5-coder-1.5b-instruct-q4_k_m" and first["max_tokens"] == 512  # 4K window
    assert first["repeat_penalty"] > 1 and first["frequency_penalty"] > 0  # llama-server's repetition guard
    assert first["temperature"] == 0.3
    assert roles(llm.chat_requests()[1])[-2:] == ["assistant", "tool"]
    assert "max_input_tokens=3072" in r.out  # 4,096 window - 1,024 reserved output
    assert "[상태] 로컬 Qwen2.5-Coder-1.5B-Instruct Q4_K_M · 요청 토큰" in r.err
    # the small model's note: once at the start and in /help, not on every status line (issue 27)
    assert r.err.count("소형 모델") == 1 and "로컬 Qwen2.5-Coder-1.5B-Instruct Q4_K_M: 이 컴퓨터에서 실행하는 소형 모델" in r.err
    assert "모델: 로컬 Qwen2.5-Coder-1.5B-Instruct Q4_K_M (이 컴퓨터에서 실행하는 소형 모델" in r.out
    assert "요청 예산 3072 토큰" in r.out
    status = next(ln for ln in r.err.splitlines() if ln.startswith("[상태]"))
    pct = float(status.split("예산의 ")[1].split("%")[0])
    assert pct < 40  # tools counted as the local template sends them (compact), not as full schemas


@pytest.mark.bundled_search  # the provider caps the bundled server's results
def test_local_results_are_capped_for_the_small_window(chat, llm, naver):
    naver.set_mode("huge", count=50, item_chars=400)
    env = {**NO_CLOVA, "MCP_CHAT_LOCAL_URL": llm.base_url}
    r = chat("--provider", "local", "--new", "--no-memory", input="서울 맛집 검색해줘\n", env=env)
    assert r.code == 0, r.err
    tool_msg = next(m for m in llm.chat_requests()[1]["messages"] if m["role"] == "tool")
    assert len(tool_msg["content"]) <= TOOL_RESULT_CHARS


def test_base_url_is_refused_for_local(chat, llm):
    r = chat("--provider", "local", "--base-url", "http://x", "--new", input="", env=NO_CLOVA)
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
