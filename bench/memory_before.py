"""The memory candidate rules of main before issue 49 (commit 2b0ea98), frozen for the `before`
rows of bench/memory_precision.py: sentences decided by their shape alone (no structural
detector, the whole message is the user's, piped stdin included), and the scorer artefact
trained without hard negatives (bench/data/scorer_before_i49.json)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from client.core.context.turns import is_turn_start, text_of
from client.core.memory.ground import Vocabulary, grounding, is_echo, strip_markup, words
from client.core.memory.parse import ENV_NAME
from client.core.memory.policy import Bullet

SCORER = Path(__file__).resolve().parent / "data" / "scorer_before_i49.json"
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_REMEMBER = re.compile(r"^\s*(?:(?:꼭\s*)?기억해\s*(?:줘|주세요|둬|두세요)?|참고로|please\s+remember(?:\s+that)?|remember(?:\s+that)?"
                       r"|note(?:\s+that)?|fyi)\s*[:：,.!-]?\s*", re.I)
_SELF = re.compile(r"(^|[\s:,])(나는|난|내가|내|나의|저는|전|제가|제|저의|우리|우리는|우리집)(?=\s|$)"
                   r"|\b(i|i'm|i've|i'd|im|my|mine|me|we|we're|our)\b", re.I)
_QUESTION_EN = re.compile(r"^\s*(how|what|what's|why|when|where|who|which|can|could|would|will|should|do|does|did|is|are"
                          r"|please|tell|give|show|suggest|recommend|explain|write|find|list|help|let's)\b", re.I)
_REQUEST_KO = re.compile(r"(줘|줘요|주세요|줄래|줄래요|줄 수 있어|해\s?봐|할까|할까요|을까|을까요|까요|일까|인가요|나요|니|냐|어때|어때요"
                         r"|알려\s?줘|추천해|설명해|찾아\s?줘|검색해|뭐야|뭐지|뭘까|있을까)\s*[.!~]*\s*$")
_ASKS = re.compile(r"(?:^|\s)(?:어디|뭐|뭘|무엇|무슨|누구|누가|언제|왜|어떻게|어느|얼마)(?!든|나|라도|냐)"
                   r"|\b(?:what|where|who|whom|whose|when|why|how|which)\b", re.I)
_HEAD = re.compile(r"^(?P<head>\S.*?\S)(?:(?:는데|은데|인데|니까|이니까)[\s,]|[,;]\s)")


def _is_request(s: str) -> bool:
    s = s.strip()
    return s.endswith(("?", "？")) or bool(_QUESTION_EN.match(s) or _REQUEST_KO.search(s))


def _states(s: str) -> bool:
    if not _is_request(s):
        return True
    head = _HEAD.match(s)
    if head and not _is_request(head.group("head")) and not _ASKS.search(head.group("head")) and words(head.group("head")):
        return True
    return not s.endswith(("?", "？")) and not _QUESTION_EN.match(s) and bool(_SELF.search(s))


def statements_of(text: str) -> list[str]:
    out = []
    for s in (" ".join(x.split()) for x in _SENTENCE.split(text or "") if x.strip()):
        s = _REMEMBER.sub("", s).strip()
        if s and len(s) <= 200 and not ENV_NAME.search(s) and words(s) and _states(s):
            out.append(s)
    return out


def user_turns(rows: Sequence[tuple[int, object]]) -> dict[int, str]:
    return {t: text_of(m) for t, m in rows if t and is_turn_start(m)}  # type: ignore[arg-type]


def grounded_items(bullets: Sequence[Bullet], user_said: dict[int, str], assistant: dict[int, str],
                   prompt_lines: Sequence[str]) -> list[Bullet]:
    said = {t: " ".join(statements_of(text)) for t, text in user_said.items()}
    user, helper = Vocabulary(said.values()), Vocabulary(assistant.values())
    out = []
    for b in bullets:
        text, _ = strip_markup(b.text)
        if (not text or "?" in text or "？" in text or is_echo(text, prompt_lines, user) or ENV_NAME.search(text)
                or not grounding(text, user, helper).grounded):
            continue
        out.append(Bullet(text, b.sources))
    return out
