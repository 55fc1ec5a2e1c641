"""The decision taken before each turn: what the working context becomes; and what /context shows.

Pure. The agent adapter runs the summarizer when a plan asks for one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from langchain_core.messages import BaseMessage

from client.core.config import DEFAULT_MAX_TURNS, STRATEGIES, ContextSettings, Strategy  # noqa: F401 - the knobs live with the settings
from client.core.context.budget import estimate_messages_tokens
from client.core.context.summarize import SummaryPlan, plan_summary
from client.core.context.trim import trim_turns
from client.core.context.turns import count_turns, repair_tool_pairs, split, text_of


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


def with_strategy(settings: ContextSettings, strategy: str, max_turns: int | None) -> ContextSettings | None:
    """The policy switched to `strategy` (/context), its turn count reset to `max_turns`; None: unknown."""
    if strategy not in STRATEGIES:
        return None
    return ContextSettings(strategy, max_turns, settings.summary_after)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ContextReport:
    """What /context shows: the policy in force and the working context now."""

    strategy: str
    keep_turns: int
    summary_after: int
    max_input_tokens: int
    turns: int
    tokens: int  # tool schemas + working context, estimated
    has_summary: bool


def report(settings: ContextSettings, budget: int, tools_tokens: int, messages: Sequence[BaseMessage]) -> ContextReport:
    parts = split(messages) if messages else None
    return ContextReport(settings.strategy, settings.keep_turns, settings.summary_after, budget,
                         turns=count_turns(parts.join()) if parts else 0,
                         tokens=tools_tokens + estimate_messages_tokens(messages) if messages else 0,
                         has_summary=bool(parts and parts.pair))


def summary_of(messages: Sequence[BaseMessage]) -> str | None:
    """The running summary the working context carries, if any."""
    s = split(messages)
    return text_of(s.pair[1]) if s.pair else None
