"""Context policies: pure functions from message lists to message lists."""

from client.core.context.budget import Calibration, estimate_messages_tokens, estimate_text_tokens, fit_to_budget
from client.core.context.summarize import SummaryPlan, apply_summary, chunk_turns, plan_summary, summarizer_request
from client.core.context.trim import trim_turns
from client.core.context.turns import (
    SUMMARY_REQUEST,
    count_turns,
    is_synthetic,
    is_turn_start,
    repair_tool_pairs,
    split,
    summary_pair,
    text_of,
    tool_pairs_intact,
)

__all__ = [
    "Calibration",
    "SUMMARY_REQUEST",
    "SummaryPlan",
    "apply_summary",
    "chunk_turns",
    "count_turns",
    "estimate_messages_tokens",
    "estimate_text_tokens",
    "fit_to_budget",
    "is_synthetic",
    "is_turn_start",
    "plan_summary",
    "repair_tool_pairs",
    "split",
    "summarizer_request",
    "summary_pair",
    "text_of",
    "tool_pairs_intact",
    "trim_turns",
]
