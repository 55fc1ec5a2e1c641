"""One run of the agent over a turn's request, and what the thread keeps when it fails.

The request replaces the graph's state (RemoveMessage(REMOVE_ALL_MESSAGES) first: LangGraph's
add_messages merges by id, so without it the model would still get the whole history).
"""

from __future__ import annotations

from typing import AsyncIterator

from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from client.engine.events import Event, stream_events
from client.engine.models import ModelStack
from client.engine.threads import Threads


async def run_agent(stack: ModelStack, threads: Threads, request: list[BaseMessage], context: list[BaseMessage],
                    new: HumanMessage) -> AsyncIterator[Event]:
    """The agent on `request`; the working context it leaves when the turn fails or is cancelled."""
    payload = {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *request]}
    # a hard backstop under the per-turn caps (client/engine/limits.py): a few graph steps per model call
    config = {**threads.config, "recursion_limit": 4 * stack.settings.max_model_calls + 10}
    try:
        async for mode, data in stack.agent.astream(payload, config, stream_mode=["messages", "updates", "custom"],
                                                    durability="exit"):
            for ev in stream_events(mode, data):
                yield ev
    except Exception:  # a provider error or a runaway graph: the turn failed, the user's words stay
        await _restore(threads, [*context, new])
        raise
    except BaseException:  # Ctrl-C (cancel), shutdown: the turn never happened
        await _restore(threads, context)  # a summary made this turn is kept
        raise


async def _restore(threads: Threads, context: list[BaseMessage]) -> None:
    try:
        await threads.replace(context)
    except Exception:  # noqa: BLE001 - never hide the original error
        pass
