"""Token estimates tuned for Korean text, and fitting a request into a budget.

The estimate is a character-class heuristic; the agent corrects it with the
input-token counts the API reports (see `Calibration`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage

from client.core.context.turns import split, text_of

# Tokens per character by class. HyperCLOVA X's tokenizer is Korean-aware:
# a Hangul syllable costs well under one token; Latin text about 4 chars/token.
HANGUL = 0.75
CJK = 1.0
ASCII_ALNUM = 0.27
ASCII_PUNCT = 0.6
OTHER = 1.0
PER_MESSAGE = 4  # role and separators
PER_REQUEST = 3


_HANGUL_RE = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_SPACE_RE = re.compile(r"\s")
_ALNUM_RE = re.compile(r"[A-Za-z0-9]")
_PUNCT_RE = re.compile(r"[!-/:-@\[-`{-~]")
_CJK_RE = re.compile(r"[\u4e00-\u9fff\u3040-\u30ff]")


def _count(pattern: re.Pattern[str], text: str) -> int:
    return pattern.subn("", text)[1]  # counts in C; no per-character Python loop


def estimate_text_tokens(text: str) -> int:
    if not text:
        return 0
    hangul = _count(_HANGUL_RE, text)
    space = _count(_SPACE_RE, text)
    alnum = _count(_ALNUM_RE, text)
    punct = _count(_PUNCT_RE, text)
    cjk = _count(_CJK_RE, text)
    other = len(text) - hangul - space - alnum - punct - cjk
    total = hangul * HANGUL + alnum * ASCII_ALNUM + punct * ASCII_PUNCT + cjk * CJK + other * OTHER
    return int(total + 0.999)


_MEMO: dict[tuple[str, int], int] = {}  # (message id, content length) -> estimate


def estimate_message_tokens(m: BaseMessage) -> int:
    """Estimate of one message; memoized by id, as the same messages recur every turn."""
    key = (m.id, len(m.content)) if m.id else None
    if key is not None and key in _MEMO:
        return _MEMO[key]
    n = _estimate_message(m)
    if key is not None:
        if len(_MEMO) > 100_000:
            _MEMO.clear()
        _MEMO[key] = n
    return n


def _estimate_message(m: BaseMessage) -> int:
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
