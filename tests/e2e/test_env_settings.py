"""Settings given as environment variables (the contract's `env` column), each seen on the
wire or in behaviour, with no command-line option doing the same."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.conftest import user_texts

pytestmark = pytest.mark.sqlite_only  # settings, not storage

SUMMARY_REQ = "지금까지의 대화를 요약해 주세요."


def lines(n: int) -> str:
    return "".join(f"질문 {i}\n" for i in range(1, n + 1))


def real_users(req: dict) -> list[str]:
    return [u for u in user_texts(req) if u != SUMMARY_REQ]


def test_context_strategy_and_max_turns_to_keep(cli, llm):
    r = cli("--new", "--no-memory", input=lines(4), env={"CONTEXT_STRATEGY": "trim", "MAX_TURNS_TO_KEEP": "2"})
    assert r.code == 0, r.err
    reqs = llm.chat_requests()
    assert real_users(reqs[2]) == ["질문 1", "질문 2", "질문 3"]
    assert real_users(reqs[3]) == ["질문 2", "질문 3", "질문 4"]  # trimmed to the last 2 turns
    assert "2턴을 초과하여서 트리밍을 수행합니다." in r.out + r.err
    assert llm.summary_requests() == []


def test_summarize_with_context_turns_limit(cli, llm):
    env = {"CONTEXT_STRATEGY": "summarize", "CONTEXT_TURNS_LIMIT": "2", "MAX_TURNS_TO_KEEP": "1"}
    r = cli("--new", "--no-memory", input=lines(4), env=env)
    assert r.code == 0, r.err
    assert len(llm.summary_requests()) == 1  # 3 completed turns > 2: turns 1-2 summarized
    last = llm.chat_requests()[3]
    assert [m["content"] for m in last["messages"]].count(SUMMARY_REQ) == 1
    assert real_users(last) == ["질문 3", "질문 4"]  # 1 turn kept verbatim


def test_context_strategy_rejects_an_unknown_value(cli, llm):
    r = cli("--new", input="안녕\n", env={"CONTEXT_STRATEGY": "forget-everything"})
    assert r.code == 2 and "CONTEXT_STRATEGY" in r.err and len(r.err.strip().splitlines()) == 1
    assert llm.requests == []


def test_max_input_tokens(cli, llm):
    big = "가" * 4000
    r = cli("--new", "--no-memory", input=f"{big}\n짧은 질문\n", env={"MAX_INPUT_TOKENS": "3000"})
    assert r.code == 0, r.err
    assert "요청 예산 3000 토큰" in r.out + r.err
    assert [user_texts(q)[-1] for q in llm.chat_requests()] == ["짧은 질문"]


def test_mcp_chat_user_owns_the_memory(cli, llm):
    cli("--thread", "u1", input="나는 고양이를 좋아해\n", env={"MCP_CHAT_USER": "minji"})
    r = cli("--thread", "u2", "--user", "minji", input="/memory\n")
    assert "고양이를 좋아해" in r.out
    r = cli("--thread", "u3", "--user", "someone-else", input="/memory\n")
    assert "고양이" not in r.out


def test_model_and_language(cli, llm):
    r = cli("--new", "--no-memory", input="안녕\n", env={"CLOVA_STUDIO_MODEL": "HCX-007", "MCP_CHAT_LANG": "en"})
    assert r.code == 0, r.err
    req = llm.chat_requests()[0]
    assert req["model"] == "HCX-007"
    assert "Hello, I am an AI assistant." in r.err and "[status]" in r.err  # status lines: stderr in a pipe


def test_checkpoint_db_and_mcp_server_url(cli, llm, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here
    db = tmp_path / "from-env.db"
    r = cli("--thread", "envdb", "--no-memory", input="안녕\n", db=False,
             env={"CHECKPOINT_DB": str(db), "MCP_SERVER_URL": f"http://127.0.0.1:{port}/mcp"})
    assert r.code == 0, r.err
    assert f"127.0.0.1:{port}" in r.err or "연결하지 못했습니다" in r.err  # the URL from the env was tried
    assert "tools" not in llm.requests[-1]  # and no bundled search server was spawned instead
    assert db.exists() and not Path(cli.db).exists()
    assert "envdb\t1\t" in cli("threads", db=False, env={"CHECKPOINT_DB": str(db)}).out
