"""Sampling on the configured chat model: the server's messages, no tools, a capped answer."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from client.engine.mcp.features import Sampler


def make_sampler(model: BaseChatModel, model_name: str) -> Sampler:
    async def sample(messages: list[tuple[str, str]], system: str | None, max_tokens: int) -> tuple[str, str]:
        lc: list[BaseMessage] = [SystemMessage(system)] if system else []
        lc += [AIMessage(text) if role == "assistant" else HumanMessage(text) for role, text in messages]
        reply = await model.bind(max_tokens=max_tokens).ainvoke(lc)
        return reply.text if isinstance(reply.text, str) else str(reply.content), model_name

    return sample
