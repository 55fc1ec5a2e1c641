"""Keep the last M completed turns (the lecture's window memory)."""

from __future__ import annotations

from typing import Sequence

from langchain_core.messages import BaseMessage

from client.core.context.turns import split


def trim_turns(messages: Sequence[BaseMessage], max_turns: int) -> tuple[list[BaseMessage], int]:
    """System message, summary pair if any, and the last `max_turns` turns.

    `messages` holds completed turns only (the new message is added after).
    Returns the kept list and how many turns were dropped. Cuts happen only
    at turn starts, so tool calls and their results stay together.
    """
    s = split(messages)
    dropped = max(0, len(s.turns) - max(0, max_turns))
    if dropped:
        s.turns = s.turns[dropped:]
        s.preamble = []  # older than every kept turn
    return s.join(), dropped
