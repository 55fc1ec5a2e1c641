"""Sampling on the session's model: the server's messages, no tools, a capped answer.

The model is read from the one owner (client/engine/models.py) at each request, so after
/model a server's sampling goes to the new model, within its window and output reserve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from client.engine.providers import limit_output

if TYPE_CHECKING:
    from client.engine.models import Models


class ModelSampler:
    """client/engine/mcp/features.Sampler over the session's current model stack."""

    def __init__(self, models: Models | Callable[[], Models]) -> None:
        """`models`, or what gives it once built (the servers start before the model, ui/startup.py)."""
        self._models = models

    @property
    def models(self) -> Models:
        return self._models() if callable(self._models) else self._models

    @property
    def budget(self) -> int:
        return self.models.current.budget

    @property
    def max_output(self) -> int:
        return self.models.current.max_output

    @property
    def limit(self) -> int:
        return self.models.calls.limit

    def room(self) -> bool:
        return self.models.calls.room()

    def take(self) -> bool:
        """One model call of the running turn (client/engine/model_calls.py); False: none left."""
        return self.models.calls.take()

    async def __call__(self, messages: list[tuple[str, str]], system: str | None, max_tokens: int) -> tuple[str, str]:
        stack = self.models.current
        lc: list[BaseMessage] = [SystemMessage(system)] if system else []
        lc += [AIMessage(text) if role == "assistant" else HumanMessage(text) for role, text in messages]
        reply = await limit_output(stack.summarizer, max_tokens).ainvoke(lc)
        return reply.text if isinstance(reply.text, str) else str(reply.content), stack.name
