"""Background summaries (client/engine/summaries.py): a turn that must wait does not wait on the
niced summary server; it has the summary made at full priority by the session's summarizer."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from client.core.config import Settings
from client.core.context.summarize import plan_summary
from client.engine.summaries import Summaries


class Model:
    """A tool-less chat model that answers once `gate` is set (never, when it stays unset)."""

    def __init__(self, text: str, gate: asyncio.Event | None = None) -> None:
        self.text, self.gate, self.calls = text, gate, 0

    def bind(self, **kw):  # the output limit of a summary section
        return self

    async def ainvoke(self, request):
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        return AIMessage(content=self.text)


class Models:
    """The session's model owner, as Summaries reads it: the current summarizer, the summary
    server's (`niced`, None: there is none)."""

    def __init__(self, main: Model, niced: Model | None = None) -> None:
        self.current = SimpleNamespace(summarizer=main, budget=4_000, summary_output=600, settings=Settings())
        self.niced = niced

    def background_summarizer(self):
        return self.niced


def conversation(n: int) -> list:
    msgs = [SystemMessage(content="sys", id="s")]
    for i in range(n):
        msgs += [HumanMessage(content=f"My locker number is {4810 + i}.", id=f"u{i}"),
                 AIMessage(content=f"Noted, {4810 + i}.", id=f"a{i}")]
    return msgs


@pytest.mark.asyncio
async def test_a_waiting_turn_takes_the_summary_from_the_session_summarizer() -> None:
    main, niced = Model("- locker numbers noted"), Model("never", asyncio.Event())
    summaries = Summaries(Models(main, niced))
    msgs = conversation(7)
    plan = plan_summary(msgs, 5, 2)
    assert plan is not None
    summaries.start("t", plan)
    assert summaries.pending.background
    assert await summaries.take("t", msgs, wait=False) is None  # not ready: the turn goes on
    taken = await asyncio.wait_for(summaries.take("t", msgs, wait=True), 10)
    assert taken is not None and taken.turns == 5
    assert "locker numbers noted" in taken.messages[2].content
    assert main.calls == 1 and summaries.pending is None


@pytest.mark.asyncio
async def test_a_ready_background_summary_is_used_as_made() -> None:
    main, niced = Model("main"), Model("- from the summary server")
    summaries = Summaries(Models(main, niced))
    msgs = conversation(7)
    summaries.start("t", plan_summary(msgs, 5, 2))
    await asyncio.wait([summaries.pending.task])
    taken = await summaries.take("t", msgs, wait=True)
    assert taken is not None and "from the summary server" in taken.messages[2].content
    assert main.calls == 0
