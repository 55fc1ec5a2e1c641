"""The decision taken before each turn: what the working context becomes.

Pure. The agent adapter runs the summarizer when a plan asks for one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from langchain_core.messages import BaseMessage

from client.core.config import DEFAULT_MAX_TURNS, STRATEGIES, ContextSettings, Strategy  # noqa: F401 - the knobs live with the settings
from client.core.context.summarize import SummaryPlan, plan_summary
from client.core.context.trim import trim_turns
from client.core.context.turns import repair_tool_pairs, split


@dataclass
class Prepared:
    messages: list[BaseMessage]  # the working context before the new message
    trimmed: int = 0  # turns dropped by trim
    plan: SummaryPlan | None = None  # set when a summary must be made first


def hydrate(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Stored state -> a context safe to send: pruned to the last summary, pairs repaired."""
    return split(repair_tool_pairs(messages)).join()


def prepare(
    messages: Sequence[BaseMessage], settings: ContextSettings, *, force_summary: bool = False
) -> Prepared:
    """Apply the policy to completed turns (the new user message is not included)."""
    msgs = hydrate(messages)
    if force_summary:  # /compact, under any strategy
        keep = settings.max_turns if settings.max_turns is not None else DEFAULT_MAX_TURNS["summarize"]
        return Prepared(msgs, plan=plan_summary(msgs, settings.summary_after, keep, force=True))
    if settings.strategy == "trim":
        kept, dropped = trim_turns(msgs, settings.keep_turns)
        return Prepared(kept, trimmed=dropped)
    if settings.strategy == "summarize":
        return Prepared(msgs, plan=plan_summary(msgs, settings.summary_after, settings.keep_turns))
    return Prepared(msgs)
