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

    async def make(*, memory: bool = True, user: str = "kim", one_shot: bool = False,
                   interactive: bool = True) -> ChatSession:
        settings = Settings(db=str(tmp_path / "chat.db"), api_key=TEST_KEY, base_url=llm.base_url, model="stub",
                            user=user, max_input_tokens=8_000, context=ContextSettings("trim", 3, 5),
                            prompt="(-p)" if one_shot else None, interactive=interactive)
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


async def test_memory_passes_run_after_the_answer_and_neither_the_end_nor_exit_waits(make_session, llm):
    """Issue 27: the pass starts once the answer is shown; /new and exit return while it runs;
    exit leaves it for the next start; a new thread meanwhile carries the user's own words."""
    import asyncio

    def extractions() -> list[dict]:
        return [q for q in llm.requests if "장기 기억 후보" in str(q["messages"][0]["content"])]

    s = await make_session()
    await s.open("mem-bg")
    await run_turn(s, "오늘 몇 시야?")  # a question states nothing: no pass
    assert not s.memory_passes.worker.busy and extractions() == []
    llm.push({"text": "네, 기억할게요."}, {"stall": 120, "text": "- [2] 사용자는 채식주의자다", "for": "memory"})  # the answer; a stuck extraction
    await run_turn(s, "나는 채식주의자라서 고기는 안 먹어.")
    for _ in range(600):  # the sign: the extraction request reached the endpoint
        if extractions():
            break
        await asyncio.sleep(0.05)
    assert extractions()
    status = await s.end()  # the thread ends (/new): returns with the pass still running
    assert status is not None and status.running and status.finished == []
    assert "사용자의 말: 나는 채식주의자라서 고기는 안 먹어." in await s.new_system_prompt()
    assert await asyncio.wait_for(s.close(), 30) == 1  # exit: one thread left for the next start
    assert await s.store.memory_list("kim") == [] and await s.store.memory_turn("mem-bg") == 0


async def test_a_piped_batch_folds_each_thread_at_its_end(make_session, llm):
    """A pipe (nobody reads between answers): no pass after an answer; the thread's end folds it
    before going on, so the script's memory is complete and its output the same on every run."""
    s = await make_session(user="choi", interactive=False)
    await s.open("batch-1")
    await run_turn(s, "나는 부산에 살아.")
    assert not s.memory_passes.worker.busy and not s.memory_passes.worker.status().queued
    assert not [q for q in llm.requests if "장기 기억 후보" in str(q["messages"][0]["content"])]
    status = await s.end()  # waits for the pass (one extraction request)
    assert status is not None and not status.running and len(status.finished) == 1
    assert [q for q in llm.requests if "장기 기억 후보" in str(q["messages"][0]["content"])]
    assert await s.store.memory_list("choi") and await s.close() == 0


async def test_one_shot_folds_only_a_pass_that_needs_no_request(make_session, llm):
    """-p (memory mode "defer"): with the user's statements as the source (the local model's
    default) the pass takes milliseconds and ends within the exit's grace; with an extraction
    request it is left to the next session, which is never started for nothing."""
    s = await make_session(user="lee", one_shot=True)
    s.memory.source = "user"
    await s.open("one-1")
    await run_turn(s, "나는 간호사로 일해.")
    assert not s.memory_passes.worker.busy  # -p: no pass after the answer
    await s.end()
    assert await s.close() == 0
    assert [b.text for b in await s.store.memory_list("lee")] == ["사용자의 말: 나는 간호사로 일해."]
    assert not [q for q in llm.requests if "장기 기억 후보" in str(q["messages"][0]["content"])]

    t = await make_session(user="park", one_shot=True)  # extraction needed: left pending, no request made
    await t.open("one-2")
    await run_turn(t, "나는 제주도에 살아.")
    await t.end()
    assert await t.close() == 1 and await t.store.memory_list("park") == []
    assert not [q for q in llm.requests if "장기 기억 후보" in str(q["messages"][0]["content"])]
