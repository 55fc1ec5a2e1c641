"""Token estimates tuned for Korean text, and fitting a request into a budget.

The estimate is a character-class heuristic; the agent corrects it with the
input-token counts the API reports (see `Calibration`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from .turns import split, text_of

# Tokens per character by class. HyperCLOVA X's tokenizer is Korean-aware:
# a Hangul syllable costs well under one token; Latin text about 4 chars/token.
HANGUL = 0.75
CJK = 1.0
ASCII_ALNUM = 0.27
ASCII_PUNCT = 0.6
OTHER = 1.0
PER_MESSAGE = 4  # role and separators
PER_REQUEST = 3


def estimate_text_tokens(text: str) -> int:
    total = 0.0
    for ch in text:
        o = ord(ch)
        if 0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
            total += HANGUL
        elif ch.isspace():
            continue
        elif o < 128:
            total += ASCII_ALNUM if ch.isalnum() else ASCII_PUNCT
        elif 0x4E00 <= o <= 0x9FFF or 0x3040 <= o <= 0x30FF:
            total += CJK
        else:
            total += OTHER
    return int(total + 0.999)


def estimate_message_tokens(m: BaseMessage) -> int:
    n = PER_MESSAGE + estimate_text_tokens(text_of(m))
    if isinstance(m, AIMessage):
        for tc in m.tool_calls:
            n += 8 + estimate_text_tokens(tc.get("name") or "")
            n += estimate_text_tokens(json.dumps(tc.get("args", {}), ensure_ascii=False))
    return n


def estimate_messages_tokens(messages: Iterable[BaseMessage]) -> int:
    return PER_REQUEST + sum(estimate_message_tokens(m) for m in messages)


def estimate_tools_tokens(tool_schemas: Sequence[dict[str, Any]]) -> int:
    """Tool definitions are sent with every request; count them once here."""
    if not tool_schemas:
        return 0
    return estimate_text_tokens(json.dumps(list(tool_schemas), ensure_ascii=False))


@dataclass
class Calibration:
    """Reported/estimated ratio from the API's usage numbers (moving average)."""

    ratio: float = 1.0
    samples: int = 0

    def observe(self, estimated: int, reported: int | None) -> None:
        if not reported or estimated <= 0:
            return
        r = min(3.0, max(0.33, reported / estimated))
        self.ratio = r if self.samples == 0 else 0.7 * self.ratio + 0.3 * r
        self.samples += 1

    def scale(self, estimated: int) -> int:
        return int(estimated * self.ratio + 0.5)


def fit_to_budget(
    messages: Sequence[BaseMessage], budget: int, fixed_tokens: int = 0, ratio: float = 1.0
) -> tuple[list[BaseMessage], int]:
    """Drop the oldest turns (then the preamble, then the summary pair) until it fits.

    The last turn, the one in progress, is never dropped. Returns the kept
    messages and the number of turns dropped. The result may still exceed the
    budget when the last turn alone does not fit; callers check that first.
    """

    def cost(msgs: Sequence[BaseMessage]) -> float:
        return fixed_tokens + estimate_messages_tokens(msgs) * ratio

    msgs = list(messages)
    if cost(msgs) <= budget:
        return msgs, 0
    s = split(msgs)
    dropped = 0
    while len(s.turns) > 1 and cost(s.join()) > budget:
        s.turns.pop(0)
        s.preamble = []
        dropped += 1
    if cost(s.join()) > budget and s.preamble:
        s.preamble = []
    if cost(s.join()) > budget and s.pair:
        s.pair = []
    return s.join(), dropped
