"""ChatSession's narrow API for the UI (threads, memory, context), on a real SQLite store and the recording model stub."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.core.memory.policy import Bullet
from client.engine.session import ChatSession, ContextReport
from tests.conftest import TEST_KEY
from tests.sessions import Sessions, run_turn


@pytest.fixture
async def make_session(tmp_path: Path, llm):
    """make(memory=True) -> a session on a fresh SQLite file; every store closed afterwards."""
    sessions = Sessions()

    async def make(*, memory: bool = True, user: str = "kim") -> ChatSession:
        settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                            user=user, max_input_tokens=8_000, context=ContextSettings("trim", 3, 5))
        return await sessions.open(settings, memory_user=user if memory else None)

    yield make
    await sessions.close()


async def test_a_new_thread_before_and_after_its_first_turn(make_session):
    s = await make_session()
    await s.open("alpha-1")
    assert await s.threads.info() is None and await s.threads.usage() == []
    assert await s.context_report() == ContextReport("trim", 3, 5, 8_000, 0, 0, False)

    await run_turn(s, "서울 날씨 알려줘")
    info = await s.threads.info()
    assert info is not None and info.thread_id == "alpha-1" and info.turns == 1 and info.user_name == "kim"
    [u] = await s.threads.usage()
    assert u.turn == 1 and u.input_tokens and u.output_tokens  # the stub reports usage
    rep = await s.context_report()
    assert rep.turns == 1 and rep.tokens > 0 and not rep.has_summary


async def test_threads_match_rename_export_delete(make_session):
    s = await make_session()
    for tid in ("abc-1", "abc-2", "xyz-1"):
        await s.open(tid)
        await run_turn(s, f"{tid} 질문입니다")
    assert {th.thread_id for th in await s.threads.list()} == {"abc-1", "abc-2", "xyz-1"}
    assert (await s.threads.list())[0].thread_id == "xyz-1"  # most recently active first
    assert await s.threads.match("xyz") == ["xyz-1"]
    assert sorted(await s.threads.match("abc")) == ["abc-1", "abc-2"]
    assert await s.threads.match("abc-1") == ["abc-1"]  # an exact id even when it prefixes others
    assert await s.threads.match("nope") == []

    await s.threads.rename("제목 " + "x" * 200)
    assert (await s.threads.info()).title == "제목 " + "x" * 97  # capped at 100 characters
    data = await s.threads.export()
    assert data.info.thread_id == "xyz-1"
    assert [type(m).__name__ for _, m in data.rows][:2] == ["SystemMessage", "HumanMessage"]

    await s.threads.delete("abc-2")
    assert await s.threads.info("abc-2") is None and await s.threads.match("abc") == ["abc-1"]


async def test_set_strategy(make_session):
    s = await make_session()
    await s.open(None)
    assert not s.set_strategy("bogus") and s.context.strategy == "trim"
    assert s.set_strategy("none")
    rep = await s.context_report()
    assert (rep.strategy, rep.summary_after) == ("none", 5)
    assert s.set_strategy("summarize") and s.context.strategy == "summarize"


async def test_memory_list_and_forget(make_session):
    s = await make_session()
    await s.open("mem-1")
    assert s.memory is not None and await s.memory.list() == []
    await s.store.memory_add("kim", [Bullet("커피를 좋아한다", [2], 0.4, thread_id="mem-1"),
                                 Bullet("서울에 산다", [1], 0.9, thread_id="mem-1")])
    items = await s.memory.list()
    assert [b.text for b in items] == ["서울에 산다", "커피를 좋아한다"]  # best first
    assert await s.memory.forget(3) is None and await s.memory.forget(0) is None
    gone = await s.memory.forget(1)
    assert gone is not None and gone.text == "서울에 산다"
    assert [b.text for b in await s.memory.list()] == ["커피를 좋아한다"]


async def test_memory_off(make_session):
    s = await make_session(memory=False)
    await s.open(None)
    assert s.memory is None
