"""Prompt-cache warming (client/engine/warm.py), on the recording stub and a real SQLite file:
once a background summary is ready, the local provider's server is sent the exact context the
next turn sends, with a one-token answer; no other provider is ever sent such a request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from client.core.config import Settings
from client.core.context.policy import ContextSettings
from client.engine.session import ChatSession
from client.engine.warm import PLACEHOLDER, Binding, Warmer
from tests.sessions import Sessions, run_turn
from tests.stubs.llm_stub import _content_text

TURNS = ["My cat is called Mochi.", "My locker number is 4817.", "I live in Lisbon.", "Why is the sky blue?"]


def shape(messages: list[dict]) -> list[tuple[str, str]]:
    return [(m["role"], _content_text(m.get("content"))) for m in messages]


def is_warm(body: dict) -> bool:
    return body.get("max_tokens") == 1


@pytest.fixture
async def session_for(tmp_path: Path, llm):
    sessions = Sessions()

    async def make(provider: str) -> ChatSession:
        settings = Settings(db=str(tmp_path / f"{provider}.db"), api_key="k", base_url=llm.base_url, model="stub",
                            provider=provider, max_input_tokens=8_000, context=ContextSettings("summarize", 1, 3),
                            interactive=True)  # a person at a terminal: summaries in the background
        s = await sessions.open(settings)
        await s.open(f"t-{provider}")
        return s

    yield make
    await sessions.close()


async def _pause(s: ChatSession) -> None:
    """A person reading the answer: the background summary and any warm it starts finish."""
    if s.summaries.pending is not None:
        await asyncio.wait([s.summaries.pending.task])
    if s.warmer is not None and s.warmer.task is not None:
        await asyncio.wait([s.warmer.task])


async def test_the_next_turn_finds_its_context_already_sent(session_for, llm):
    s = await session_for("local")
    for text in TURNS:
        await run_turn(s, text)
        await _pause(s)
    assert s.summaries.ready() and s.warmer is not None
    warm = [b for b in llm.requests if is_warm(b)]
    assert warm and s.warmer.sent == len(warm)
    assert warm[-1]["messages"][-1] == {"role": "user", "content": PLACEHOLDER}

    done = await run_turn(s, "Where do I live?")
    assert done.summarized
    turn_req = [b for b in llm.requests if not is_warm(b)][-1]
    assert shape(turn_req["messages"])[-1] == ("user", "Where do I live?")
    # byte for byte the same context before the last message: the server's cached prefix
    assert shape(turn_req["messages"])[:-1] == shape(warm[-1]["messages"])[:-1]
    assert any("Mochi" in c or "4817" in c for _, c in shape(warm[-1]["messages"])[1:3])  # the summary pair
    assert len([b for b in llm.requests if is_warm(b)]) == len(warm)  # nothing new to warm before a summary


async def test_a_paid_provider_is_never_sent_a_warming_request(session_for, llm):
    s = await session_for("openai")
    assert s.warmer is None
    summarized = 0
    for text in [*TURNS, "Where do I live?"]:
        done = await run_turn(s, text)
        summarized += done.summarized
        await _pause(s)  # a ready summary: when a local server would be warmed
    assert summarized >= 1
    assert llm.requests and not [b for b in llm.requests if is_warm(b)]


class SlowModel:
    """Stands for a bound model: `ainvoke` records and waits for `gate`."""

    def __init__(self) -> None:
        self.gate, self.started, self.calls = asyncio.Event(), asyncio.Event(), []

    def bind(self, **kw):
        self.kw = kw
        return self

    async def ainvoke(self, messages):
        self.calls.append(messages)
        self.started.set()
        await self.gate.wait()
        return AIMessage(content="x")


async def test_a_warm_waiting_for_its_summary_is_dropped_by_the_turn() -> None:
    model, summary = SlowModel(), asyncio.get_running_loop().create_future()
    w = Warmer()
    w.start(Binding(model, [], None, {}), summary, lambda: _some())
    await asyncio.sleep(0)
    await asyncio.wait_for(w.settle(), 5)  # the summary is not ready: nothing is sent, nothing waited for
    summary.set_result(None)
    await asyncio.sleep(0)
    assert model.calls == [] and w.task is None


async def test_a_warm_in_flight_is_waited_for_by_the_turn() -> None:
    model, summary = SlowModel(), asyncio.get_running_loop().create_future()
    summary.set_result(None)
    w = Warmer()
    w.start(Binding(model, [], None, {}), summary, lambda: _some())
    await asyncio.wait_for(model.started.wait(), 5)
    assert model.kw == {"max_tokens": 1}
    settle = asyncio.ensure_future(w.settle())
    await asyncio.sleep(0)
    assert not settle.done()  # the turn waits: it would compete with the request for the CPU
    model.gate.set()
    await asyncio.wait_for(settle, 5)
    assert w.sent == 1


async def _some():
    from langchain_core.messages import SystemMessage

    return [SystemMessage(content="sys")]


async def test_a_stuck_warm_holds_the_turn_no_longer_than_the_timeout(monkeypatch) -> None:
    from client.engine import warm

    monkeypatch.setattr(warm, "SETTLE_TIMEOUT_S", 0.05)
    model, summary = SlowModel(), asyncio.get_running_loop().create_future()
    summary.set_result(None)
    w = Warmer()
    w.start(Binding(model, [], None, {}), summary, lambda: _some())
    task = w.task
    await asyncio.wait_for(model.started.wait(), 5)
    await asyncio.wait_for(w.settle(), 5)  # the gate never opens: the request is given up
    await asyncio.wait([task], timeout=5)
    assert task.cancelled() and w.sent == 0

