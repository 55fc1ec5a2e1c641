"""On the real llama-server: the turn that applies a background summary reads only its own
message, because the context it sends was already read while the user was typing
(client/engine/warm.py), into the chat's own slot (summaries use the other one).

The server's own count is the proof: `timings.prompt_n`, the prompt tokens it evaluated for
a request (the rest came from the slot's cache), read from the recorded responses.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from client.core.context.policy import ContextSettings
from client.engine.build import build_session
from client.engine.providers import Runtime
from client.engine.events import TurnDone
from client.engine.store import open_store
from tests.localmodel.conftest import FIGURES
from tests.localmodel.test_retention import _bench

pytestmark = [pytest.mark.localmodel, pytest.mark.timeout(900)]


def prompt_n(proxy, i: int) -> int:
    timings = [c["timings"] for c in proxy.stream_of(i) if "timings" in c]
    assert timings, f"no timings in response {i}"
    return int(timings[-1]["prompt_n"])


async def _scenario(s, db: str, turns: list[str], proxy) -> tuple[int, int, TurnDone, int]:
    store = await open_store(db)
    try:
        # as the client's runtime is for the server it starts: two slots, the chat keeps slot 0
        session = build_session(s, store, [], runtime=Runtime(proxy.base_url, chat_slot=0))
        await session.open("warm")
        for text in turns:
            async for _ in session.turn(text):
                pass
            if session.summaries.pending is not None:
                break
        assert session.summaries.pending is not None, "no background summary was started"
        await asyncio.wait([session.summaries.pending.task])  # the user is still typing
        assert session.warmer is not None and session.warmer.task is not None
        await asyncio.wait([session.warmer.task])
        warm = [i for i, r in enumerate(proxy.requests) if r.get("max_tokens") == 1]
        assert len(warm) == 1 and session.warmer.sent == 1
        first = len(proxy.requests)
        done = None
        async for ev in session.turn("What is my cat's name? Answer with the name only."):
            if isinstance(ev, TurnDone):
                done = ev
        assert done is not None
        summaries = [r for r in proxy.requests if r.get("id_slot") == 1]
        assert summaries, "the summary did not go to the summaries' slot"
        return prompt_n(proxy, warm[0]), prompt_n(proxy, first), done, first
    finally:
        await store.close()


def test_the_turn_that_applies_a_summary_reads_only_its_message(proxy, tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_CHAT_TEMPERATURE", "0")
    bench = _bench()
    s = dataclasses.replace(bench.settings_for("local", None, answer_tokens=64), context=ContextSettings("summarize", 2, 4),
                            interactive=True)  # at a terminal: the summary is made after the answer
    turns = bench.SHORT["en"]["turns"]
    warm_n, turn_n, done, first = asyncio.run(_scenario(s, str(tmp_path / "warm.db"), turns, proxy))
    assert done.summarized
    assert proxy.requests[first].get("id_slot") == 0
    print(f"warming request read {warm_n} prompt tokens, the turn {turn_n}")
    assert turn_n <= 40, f"the turn read {turn_n} prompt tokens (warmed: {warm_n})"
    assert warm_n >= 2 * turn_n  # what changed was read ahead, while the user typed
    FIGURES["warm_prompt_tokens"] = warm_n
    FIGURES["applied_turn_prompt_tokens"] = turn_n
