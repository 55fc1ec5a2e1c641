"""Storage: pruned checkpoints, concurrent processes, crashes, older databases. The command line
in this process (tests/cli.py), but two clients at once: two processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from tests.backends import count_rows, open_saver, query
from tests.conftest import roles, user_texts

pytestmark = pytest.mark.storage  # pruning, concurrency, crashes, upgrades: both backends


def count(db: str, table: str, thread: str) -> int:
    return count_rows(db, table, thread)  # SQLite file or Postgres schema


def seed_legacy_thread(db: str, thread_id: str, messages: list) -> None:
    """Write a thread the way an older client (plain graph + saver) would."""
    from langgraph.graph import END, START, MessagesState, StateGraph

    async def seed() -> None:
        async with open_saver(db) as saver:
            g = StateGraph(MessagesState)
            g.add_node("noop", lambda s: {})
            g.add_edge(START, "noop")
            g.add_edge("noop", END)
            await g.compile(checkpointer=saver).ainvoke({"messages": messages},
                                                         {"configurable": {"thread_id": thread_id}})

    asyncio.run(seed())


def test_old_checkpoints_pruned_latest_intact(cli, llm):
    cli("--thread", "p", input="하나\n둘\n서울 검색\n넷\n")
    assert count(cli.db, "checkpoints", "p") == 1
    assert count(cli.db, "messages", "p") >= 10
    llm.clear()
    r = cli("--thread", "p", input="다섯\n")
    assert r.code == 0, r.err
    assert user_texts(llm.chat_requests()[0]) == ["하나", "둘", "서울 검색", "넷", "다섯"]
    assert count(cli.db, "checkpoints", "p") == 1


@pytest.mark.timeout(300)  # two clients, 24 turns
def test_two_processes_on_one_file_different_threads(chat, llm):  # processes: two clients on one file
    sent = {tid: [f"{tid} 메시지 {i}" for i in range(12)] for tid in ("left", "right")}
    procs = []
    for tid in ("left", "right"):
        argv = [sys.executable, "-m", "client", "--thread", tid, "--db", chat.db, "--context", "none"]
        procs.append(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, cwd=chat.tmp, env=chat.env))
    outs = [p.communicate("".join(f"{ln}\n" for ln in sent[tid]).encode(), timeout=120)
            for p, tid in zip(procs, sent)]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err.decode()
        assert b"locked" not in err + out
    doc = chat.sub("threads").out
    for tid in ("left", "right"):
        assert f"{tid}\t12\t" in doc
    seen = {"left": [], "right": []}
    for q in llm.chat_requests():
        texts = user_texts(q)
        tid = texts[-1].split()[0]
        assert texts == sent[tid][: len(texts)], texts  # only its own lines, in order: nothing leaked
        seen[tid].append(len(texts))
    assert seen == {"left": list(range(1, 13)), "right": list(range(1, 13))}
    for tid, other in (("left", "right"), ("right", "left")):
        export = chat.sub("export", tid).out
        assert all(line in export for line in sent[tid])
        assert other not in export


def test_repairs_dangling_tool_call_from_an_older_client(cli, llm):
    """A thread whose stored state ends in a tool call without a result."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    call = AIMessage(content="", tool_calls=[{"name": "web_search", "args": {"query": "q"}, "id": "call_1"}])
    seed_legacy_thread(cli.db, "legacy", [SystemMessage("시스템"), HumanMessage("옛 질문"), call,
                                           HumanMessage("그다음 질문"), AIMessage("답")])
    r = cli("--thread", "legacy", input="새 질문\n")
    assert r.code == 0, r.err
    msgs = llm.chat_requests()[0]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "user", "assistant", "user"]
    assert msgs[3]["tool_call_id"] == "call_1"  # right after the call, not at the end
    assert "중단" in msgs[3]["content"]
    doc = cli.sub("export", "legacy").out
    assert "옛 질문" in doc and "새 질문" in doc  # older history brought into the transcript


def test_upgrade_a_cookbook_database_keeps_its_data(cli, llm):
    """A database written by the cookbook's client (checkpoints only) is upgraded in place."""
    from langchain_core.messages import HumanMessage, SystemMessage

    seed_legacy_thread(cli.db, "cookbook", [SystemMessage("시스템"), HumanMessage("쿡북 질문")])
    before = count(cli.db, "checkpoints", "cookbook")
    import init_db

    for _ in range(2):
        p = cli.run(init_db.main, "--db", cli.db)
        assert p.code == 0, p.err
    assert count(cli.db, "checkpoints", "cookbook") == before
    assert query(cli.db, "SELECT max(version) FROM schema_migrations")[0][0] >= 1
    r = cli("--thread", "cookbook", input="이어서\n")
    assert r.code == 0, r.err
    assert user_texts(llm.chat_requests()[0]) == ["쿡북 질문", "이어서"]


@pytest.mark.sqlite_only
def test_database_file_is_owner_only(cli):
    cli("--new", input="안녕\n")
    assert os.stat(cli.db).st_mode & 0o777 == 0o600
