"""The real client stack in-process (agent, checkpointer, policies, MCP over
stdio) against the local stubs, for benchmarks. No network beyond 127.0.0.1."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.engine.build import build_session  # noqa: E402
from client.core.config import Settings  # noqa: E402
from client.core.context.policy import ContextSettings  # noqa: E402
from client.engine.mcp import bundled_spec  # noqa: E402
from client.engine.mcp.hub import ToolHub  # noqa: E402
from client.engine.events import TurnDone  # noqa: E402
from client.engine.session import ChatSession  # noqa: E402
from client.engine.store import open_store  # noqa: E402
from tests.stubs.llm_stub import LLMStub  # noqa: E402
from tests.stubs.naver_stub import NaverStub  # noqa: E402


@asynccontextmanager
async def stubs() -> AsyncIterator[tuple[LLMStub, NaverStub]]:
    with LLMStub() as llm, NaverStub() as naver:
        os.environ.update({
            "NAVER_CLIENT_ID": naver.client_id,
            "NAVER_CLIENT_SECRET": naver.client_secret,
            "NAVER_API_BASE_URL": naver.base_url,
        })
        yield llm, naver


@asynccontextmanager
async def client_stack(llm: LLMStub, db: str, strategy: str, *, tools: bool = True,
                       max_input_tokens: int = 123_904, **ctx: int) -> AsyncIterator[ChatSession]:
    settings = Settings(db=db, api_key="bench-key", base_url=llm.base_url,
                        context=ContextSettings(strategy, ctx.get("max_turns"), ctx.get("summary_after", 5)),  # type: ignore[arg-type]
                        max_input_tokens=max_input_tokens, memory=False)
    store = await open_store(db)
    hub = ToolHub([bundled_spec(env=os.environ)])  # the Naver stub's settings, as the ui hands them down
    if tools:
        await hub.fleet.connect()
        assert not hub.fleet.error, hub.fleet.error
    try:
        yield build_session(settings, store, hub.tools)
    finally:
        await hub.fleet.aclose()
        await store.close()


async def run_turn(session: ChatSession, text: str) -> TurnDone | None:
    done = None
    async for ev in session.turn(text):
        if isinstance(ev, TurnDone):
            done = ev
    return done
