"""Memory passes off the critical path (issue 27): scheduling returns at once, exit cancels without
writing half a pass, deferred threads are folded at the next start, new threads get the user's
statements meanwhile. Real SQLite stores; the model is a stand-in that answers when told."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.engine.memory.background import MemoryWorker
from client.engine.memory.manager import MemoryManager
from client.engine.store import open_store
from tests.unit.test_filelock import Child


class Model:
    """Answers the extraction request once `gate` is set; counts requests and cancellations."""

    def __init__(self, answer: str, gate: asyncio.Event | None = None) -> None:
        self.answer, self.gate = answer, gate
        self.calls = 0
        self.cancelled = 0
        self.asked = asyncio.Event()

    async def ainvoke(self, messages):
        self.calls += 1
        self.asked.set()
        try:
            if self.gate is not None:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return AIMessage(content=self.answer)


def owner(model: Model) -> SimpleNamespace:
    """Stands for the session's model owner (client/engine/models.py): memory asks its summarizer."""
    return SimpleNamespace(current=SimpleNamespace(summarizer=model))


async def add_thread(store, tid: str, user: str, lines: list[str]) -> None:
    await store.create_thread(tid, user)
    msgs = [SystemMessage("sys", id=uuid.uuid4().hex)]
    for line in lines:
        msgs += [HumanMessage(line, id=uuid.uuid4().hex), AIMessage("네, 알겠어요. 해운대의 바다정원 카페도 좋아요.", id=uuid.uuid4().hex)]
    await store.append(tid, msgs)


@pytest.fixture
async def store(tmp_path: Path):
    s = await open_store(str(tmp_path / "chat.db"))
    yield s
    await s.close()


async def test_a_scheduled_pass_runs_in_the_background_and_folds_the_thread(store):
    await add_thread(store, "t1", "kim", ["나는 채식주의자라서 고기는 안 먹어.", "내 이름은 김민지야."])
    model = Model("- [턴 1] 사용자는 채식주의자라 고기를 먹지 않는다.\n- [턴 2] 사용자의 이름은 김민지이다.", asyncio.Event())
    worker = MemoryWorker(MemoryManager(store, owner(model), "kim"))
    worker.schedule("t1")  # returns at once: the model has not answered
    await asyncio.wait_for(model.asked.wait(), 10)
    assert worker.busy and await store.memory_list("kim") == [] and await worker.pending() == ["t1"]
    assert not await worker.drain(0.05)  # a timeout leaves it running
    model.gate.set()
    assert await worker.drain(10)
    assert sorted(b.text for b in await store.memory_list("kim")) == ["사용자는 채식주의자라 고기를 먹지 않는다.",
                                                                    "사용자의 이름은 김민지이다."]
    assert await store.memory_turn("t1") == 2 and await worker.pending() == []
    [(tid, up)] = worker.status().finished
    assert tid == "t1" and up.added == 2 and worker.status().finished == []  # reported once


async def test_exit_cancels_the_pass_writes_nothing_and_the_next_start_folds_it(store):
    await add_thread(store, "t1", "kim", ["나는 부산 해운대에 살아."])
    blocked = Model("- [턴 1] 사용자는 부산 해운대에 산다.", asyncio.Event())  # never answers
    worker = MemoryWorker(MemoryManager(store, owner(blocked), "kim"))
    worker.schedule("t1")
    await asyncio.wait_for(blocked.asked.wait(), 10)
    assert await asyncio.wait_for(worker.close(), 30) == 1  # deferred: one thread left for the next start
    assert blocked.cancelled == 1 and await store.memory_list("kim") == [] and await store.memory_turn("t1") == 0
    worker.schedule("t1")  # closed: nothing starts
    assert not worker.busy

    # meanwhile a new thread carries the user's own words of the deferred one, with no request
    quiet = Model("never asked")
    manager = MemoryManager(store, owner(quiet), "kim")
    assert "사용자의 말: 나는 부산 해운대에 살아." in await manager.section() and quiet.calls == 0

    again = MemoryWorker(MemoryManager(store, owner(Model("- [턴 1] 사용자는 부산 해운대에 산다.")), "kim"))
    assert await again.resume(start=False) == ["t1"]  # the next start: queued for the first idle moment
    assert not again.busy and await again.pending() == ["t1"]
    again.kick()  # an answer was shown
    assert again.busy and await again.drain(10)
    assert [b.text for b in await store.memory_list("kim")] == ["사용자는 부산 해운대에 산다."]
    assert await again.close() == 0
    section = await manager.section()
    assert "사용자는 부산 해운대에 산다." in section and "사용자의 말" not in section  # folded: no provisional copy
    assert "바다정원" not in section  # the assistant's suggestion never becomes memory


async def test_a_pending_thread_open_in_another_client_is_left_to_it(tmp_path: Path, store):
    await add_thread(store, "busy", "kim", ["나는 간호사야."])
    await add_thread(store, "free", "kim", ["나는 제주도에 살아."])
    other = Child(tmp_path / "chat.db-lock", "busy")  # another client (a process) holds "busy"
    try:
        assert other.first == "held"
        model = Model("- [턴 1] 사용자는 제주도에 산다.")
        worker = MemoryWorker(MemoryManager(store, owner(model), "kim"))
        assert sorted(await worker.resume()) == ["busy", "free"]
        assert await worker.drain(10)
        assert model.calls == 1 and await store.memory_turn("busy") == 0 and await store.memory_turn("free") == 1
        assert "free" not in store.locks.held  # released after its pass
    finally:
        other.close()


async def test_passes_run_one_at_a_time_and_a_thread_scheduled_again_is_folded_again(store):
    await add_thread(store, "t1", "kim", ["나는 고양이를 키워."])
    gate = asyncio.Event()
    model = Model("- [턴 1] 사용자는 고양이를 키운다.", gate)
    worker = MemoryWorker(MemoryManager(store, owner(model), "kim"), current=lambda: "t1")
    worker.schedule("t1")
    await asyncio.wait_for(model.asked.wait(), 10)
    await store.append("t1", [HumanMessage("고양이 이름은 모찌야.", id="u2"), AIMessage("귀여워요!", id="a2")])
    worker.schedule("t1")  # a new turn while the first pass runs: queued once more
    worker.schedule("t1")
    assert worker.status().queued == 1
    gate.set()
    assert await worker.drain(10)
    assert model.calls == 2 and await store.memory_turn("t1") == 2
