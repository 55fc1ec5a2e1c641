"""How many model calls the running turn has made, sampling included (stdlib only: the
session's Models builds it before anything heavy is loaded).

TurnLimits (client/engine/limits.py) sets the agent's answers at each model call; the MCP
sampler (client/engine/mcp/sampling.py) counts every sampling request it grants, whether a
2025 server sent it or a 2026 server embedded it in an input round.
"""

from __future__ import annotations

from typing import Callable


class ModelCalls:
    """The model calls of the running turn: the agent's answers (set by TurnLimits at each call)
    and the sampling requests servers made (counted by the sampler). A sample is granted only
    while one call is left after it for the turn's last answer; the count starts again with
    the first model call of each turn, so requests between turns spend what the last one left."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit  # the session's --max-model-calls, read when asked
        self.answers = 0
        self.sampled = 0

    @property
    def limit(self) -> int:
        return max(1, self._limit())

    def room(self) -> bool:
        """Whether one more sampling call fits and leaves the last answer its call."""
        return self.answers + self.sampled + 2 <= self.limit

    def take(self) -> bool:
        """Count one sampling call; False (nothing counted) when it does not fit."""
        if not self.room():
            return False
        self.sampled += 1
        return True
